#!/usr/bin/env bash
# Digests of what a pbc binary writes for a fixed set of schemas, to show
# that a refactoring changed no output byte:
#
#   scripts/output-digest.sh PBC OUT.txt      # once with the old pbc, once with the new
#   diff old.txt new.txt                      # empty: byte-identical
#
# The schemas: the benchmark datasets (google_message1 proto2/proto3,
# google_message2, google_message3 and 4), bench/'s synthetic and streaming
# schemas, the conformance protos (when scripts/conformance.sh has staged
# them) and every schema of the end-to-end tests (alltypes, semantics, ...).
# Each is compiled to an archive (objects at -O2 and -O0), its C and C++
# headers, and the proto dialect (--emit=mlir); OUT.txt gets one line per
# file: sha256, size, name.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 PBC OUT.txt" >&2; exit 2; }
pbc=$(realpath "$1")
out=$(realpath -m "$2")
cd "$(dirname "$0")/.."
src=$PWD
data=$src/bench/data
e2e=$src/test/e2e/Inputs
conf=$src/build/conformance/protos
work=$(mktemp -d)
# google_message3 and 4 import their files as datasets/google_messageN/...
# (bench/data/README.md): compile them from a folder whose datasets/ is
# bench/data.
links=$(mktemp -d)
ln -s "$data" "$links/datasets"
trap 'rm -rf "$work" "$links"' EXIT

# name | -I folders | files
schemas=(
  "m1p2|$data/google_message1/proto2|benchmark_message1_proto2.proto"
  "m1p3|$data/google_message1/proto3|benchmark_message1_proto3.proto"
  "m2|$data/google_message2|benchmark_message2.proto"
  "m3|$links|datasets/google_message3/benchmark_message3.proto"
  "m4|$links|datasets/google_message4/benchmark_message4.proto"
  "datasets|$data|benchmarks.proto"
  "synthetic|$src/bench|synthetic.proto"
  "protozero|$src/bench|protozero_bench.proto"
)
for f in "$e2e"/*.proto; do
  schemas+=("e2e_$(basename "$f" .proto)|$e2e|$(basename "$f")")
done
if [ -d "$conf" ]; then
  schemas+=("conformance|$conf|conformance/conformance.proto google/protobuf/test_messages_proto2.proto google/protobuf/test_messages_proto3.proto")
fi

for entry in "${schemas[@]}"; do
  IFS='|' read -r name dir files <<<"$entry"
  read -r -a inputs <<<"$files"
  for opt in O2 O0; do
    (cd "$dir" && "$pbc" compile "-$opt" -I . --cpp-header "${inputs[@]}" \
      -o "$work/$name/$opt/lib$name.a")
  done
  (cd "$dir" && "$pbc" compile --emit=mlir -I . "${inputs[@]}" -o "$work/$name/schema.mlir")
done
(cd "$work" && find . -type f | LC_ALL=C sort | while read -r f; do
  printf '%s %10d %s\n' "$(sha256sum "$f" | cut -c1-64)" "$(stat -c %s "$f")" "${f#./}"
done) >"$out"
echo "output-digest.sh: $(wc -l <"$out") files from $pbc -> $out" >&2
