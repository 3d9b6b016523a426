"""split_dataset.py DATASET OUT: the payloads of a benchmarks.BenchmarkDataset
(Google's benchmark data: message_name = 2, payload = 3) as OUT.N.bin, one
file each from 1, and all of them as OUT.stream.bin, each after its varint
length (a delimited stream). Wire parsing by hand: the test needs nothing
but python3."""
import sys


def varint(data, at):
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def length_prefix(n):
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


data = open(sys.argv[1], "rb").read()
at, count, stream = 0, 0, bytearray()
while at < len(data):
    tag, at = varint(data, at)
    wire = tag & 7
    if wire == 0:
        _, at = varint(data, at)
    elif wire == 1:
        at += 8
    elif wire == 5:
        at += 4
    elif wire == 2:
        n, at = varint(data, at)
        value, at = data[at:at + n], at + n
        if tag >> 3 == 3:
            count += 1
            open("%s.%d.bin" % (sys.argv[2], count), "wb").write(value)
            stream += length_prefix(len(value)) + value
    else:
        sys.exit("not a BenchmarkDataset: wire type %d" % wire)
open(sys.argv[2] + ".stream.bin", "wb").write(stream)
print("%d payloads" % count)
