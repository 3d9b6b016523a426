#!/bin/bash
# The cost of reflection: bytes of message descriptions (pbc/desc.h, what
# the table codec, the text format and generic tools read) per message and
# per field, for the benchmark schemas, with names and without (a
# LITE_RUNTIME file leaves field and oneof names out).
#
# Counts the symbols pbc compile emits for descriptions in the archive
# (`nm -S`): each message's record (*_desc), its arrays and string pool
# (*_desc_data), its links (*_links), the struct T_init copies when it has
# defaults (*_prototype), and each enum's record and values (*_enum,
# *_enum_data). Not counted: the pbc_message_info records (the
# codec entry points, 88 bytes a message, which every program has),
# extensions (their records and fields) and the code. Messages, fields and enum values are counted in the schema as
# pbc imports it (--emit=mlir), map entries included.
#
#   bench/reflection-size.sh [--pbc PATH]
set -euo pipefail
cd "$(dirname "$0")/.."

pbc=${PBC:-build/bin/pbc}
[ "${1:-}" = "--pbc" ] && pbc=$2
[ -x "$pbc" ] || { echo "reflection-size.sh: $pbc not found (build first)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name|include (-I)|files: google_message3 and 4 import their files as
# datasets/google_message3/..., so their -I maps that prefix.
d=bench/data
gm3=$(cd $d/google_message3 && ls benchmark_message3*.proto | sed 's|^|datasets/google_message3/|')
gm4=$(cd $d/google_message4 && ls benchmark_message4*.proto | sed 's|^|datasets/google_message4/|')
schemas=(
  "google_message1 proto2|$d/google_message1/proto2|benchmark_message1_proto2.proto"
  "google_message1 proto3|$d/google_message1/proto3|benchmark_message1_proto3.proto"
  "google_message2|$d/google_message2|benchmark_message2.proto"
  "google_message3|datasets=$d|$(echo $gm3)"
  "google_message4|datasets=$d|$(echo $gm4)"
)

# Bytes of the description symbols in an archive.
desc_bytes() {
  nm -S -t d "$1" | awk '$4 ~ /_(desc|desc_data|links|prototype|enum|enum_data)$/ { n += $2 + 0 }
                    END { print n + 0 }'
}

printf '| schema | messages | fields | enum values | bytes | per message | per field | LITE_RUNTIME bytes | per field |\n'
printf '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n'
for s in "${schemas[@]}"; do
  IFS='|' read -r name dir files <<< "$s"
  read -r -a paths <<< "$files"
  "$pbc" compile -I "$dir" "${paths[@]}" --emit=mlir -o "$tmp/s.mlir"
  messages=$(grep -c ' proto.message ' "$tmp/s.mlir" || true)
  # An extension holds one proto.field; its record is not a message's.
  fields=$(( $(grep -c ' proto.field ' "$tmp/s.mlir" || true) -
             $(grep -c ' proto.extension ' "$tmp/s.mlir" || true) ))
  values=$(grep -c ' proto.enum_value ' "$tmp/s.mlir" || true)
  "$pbc" compile --optimize-for=code-size -I "$dir" "${paths[@]}" -o "$tmp/named.a"
  "$pbc" compile --optimize-for=lite-runtime -I "$dir" "${paths[@]}" -o "$tmp/lite.a"
  named=$(desc_bytes "$tmp/named.a")
  lite=$(desc_bytes "$tmp/lite.a")
  awk -v n="$name" -v m="$messages" -v f="$fields" -v v="$values" -v b="$named" -v l="$lite" \
    'BEGIN { printf "| %s | %d | %d | %d | %d | %.0f | %.1f | %d | %.1f |\n", n, m, f, v, b, b / m, b / f, l, l / f }'
done
