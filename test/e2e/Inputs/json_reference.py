"""The JSON of a binary message by python protobuf (PyPI's, upb: the
editions reference of this suite), for json.test: what pbc decode --json
prints must be the same JSON value, member order aside.

    json_reference.py DESCRIPTOR_SET MESSAGE BINARY PBC_JSON
Exits 1 naming the members that differ."""
import json
import sys

from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

set_path, name, binary, ours_path = sys.argv[1:5]
files = descriptor_pb2.FileDescriptorSet.FromString(open(set_path, "rb").read())
pool = descriptor_pool.DescriptorPool()
for f in files.file:
    pool.Add(f)
cls = message_factory.GetMessageClass(pool.FindMessageTypeByName(name))
message = cls.FromString(open(binary, "rb").read())
want = json.loads(json_format.MessageToJson(message, descriptor_pool=pool))
got = json.loads(open(ours_path).read())
bad = [k for k in sorted(set(want) | set(got)) if want.get(k) != got.get(k)]
for k in bad:
    print(f"{k}: python {json.dumps(want.get(k))}, pbc {json.dumps(got.get(k))}")
print(f"{len(want)} members, {len(bad)} differ")
sys.exit(1 if bad else 0)
