#!/usr/bin/env bash
# A modern protoc and python protobuf, the reference the editions tests
# compare pbc with (protoc 35 hands editions files to protoc-gen-pbc and
# writes editions descriptor sets; python protobuf is upb): PyPI's
# grpcio-tools and protobuf, pinned, in a virtual environment under
# build/venv. Idempotent. Needs python3-venv (scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=build/venv
requirements=(grpcio-tools==1.85.1 grpcio==1.85.3 protobuf==7.36.2)
# (the stamp also covers the protoc wrapper below: bump it with the script)
stamp_version=3
stamp=$venv/.installed
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stamp_version ${requirements[*]}" ]; then
  exit 0
fi
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-cache-dir "${requirements[@]}"
# grpcio-tools' protoc as a `protoc` command, for pbc compile --protoc.
cat >"$venv/bin/protoc" <<WRAPPER
#!/bin/sh
exec "$PWD/$venv/bin/python" -m grpc_tools.protoc "\$@"
WRAPPER
chmod +x "$venv/bin/protoc"
echo "$stamp_version ${requirements[*]}" >"$stamp"
