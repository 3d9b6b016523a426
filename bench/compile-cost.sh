#!/bin/bash
# What compiling a schema costs: pbc's CPU time, wall time and peak memory
# (/usr/bin/time), and what it produces, by section (`size -A`): code
# (.text*), read-only data (.rodata*), relocated constants (.data.rel.ro*:
# records with pointers) and, among them, the bytes of the messages'
# descriptions (pbc/desc.h: the pbc__*_desc, _desc_data, _links, _prototype,
# _enum and _enum_data symbols, from `nm --print-size`). With --cpp, the same schema
# and its imports through protoc --cpp_out and clang++ -O2 -c, in the same run.
#
#   bench/compile-cost.sh [--pbc PATH] [--flags "-O2 -j1"] [--cpp] \
#       -I DIR SCHEMA.proto [SCHEMA.proto...]
#
# Each schema is one row; schemas are paths relative to the -I directory.
# Timing is for reading, never for asserting: compare runs made together.
set -euo pipefail

pbc=${PBC:-$(dirname "$0")/../build/bin/pbc}
flags="-O2"
cpp=0
include=()
schemas=()
while [ $# -gt 0 ]; do
  case "$1" in
    --pbc) pbc=$2; shift 2 ;;
    --flags) flags=$2; shift 2 ;;
    --cpp) cpp=1; shift ;;
    -I) include+=(-I "$2"); shift 2 ;;
    -I*) include+=(-I "${1#-I}"); shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    -*) echo "compile-cost.sh: unknown option $1" >&2; exit 2 ;;
    *) schemas+=("$1"); shift ;;
  esac
done
[ ${#schemas[@]} -gt 0 ] || { echo "compile-cost.sh: no schema given" >&2; exit 2; }
[ -x "$pbc" ] || { echo "compile-cost.sh: no pbc at $pbc (--pbc PATH)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# CPU seconds (user + system), wall seconds, peak RSS in MiB of a command.
timed() {
  /usr/bin/time -f '%U %S %e %M' -o "$work/time" "$@" > /dev/null
  awk '{printf "%.2f %.2f %.0f\n", $1 + $2, $3, $4 / 1024}' "$work/time"
}

# text rodata relro of the objects in an archive or object files.
sections() {
  size -A -d "$@" | awk '
    $1 ~ /^\.text/ { text += $2 }
    $1 ~ /^\.rodata/ { ro += $2 }
    $1 ~ /^\.data\.rel\.ro/ { relro += $2 }
    END { printf "%d %d %d\n", text, ro, relro }'
}

description_bytes() {
  nm --print-size --radix=d "$@" 2>/dev/null | awk '
    NF == 4 && $4 ~ /^pbc__.*_(desc|desc_data|links|prototype|enum|enum_data)$/ { n += $2 }
    END { printf "%d", n }'
}

printf '%-40s %-6s %8s %8s %8s %10s %10s %10s %10s\n' schema tool cpu_s wall_s rss_MiB \
  text rodata relro desc
for schema in "${schemas[@]}"; do
  out=$work/$(basename "$schema" .proto)
  mkdir -p "$out/pbc" "$out/cpp"
  # shellcheck disable=SC2086
  read -r cpu wall rss < <(timed "$pbc" compile $flags "${include[@]}" "$schema" \
    -o "$out/pbc/lib.a")
  read -r text ro relro < <(sections "$out/pbc/lib.a")
  desc=$(description_bytes "$out/pbc/lib.a")
  printf '%-40s %-6s %8s %8s %8s %10s %10s %10s %10s\n' "$schema" pbc "$cpu" "$wall" "$rss" \
    "$text" "$ro" "$relro" "$desc"
  if [ "$cpp" = 1 ]; then
    # protoc, then every generated .pb.cc, one after the other (as one
    # core of a build would). pbc compiles a schema's imports into its
    # archive, so the C++ side generates them too (all but the well-known
    # types, which libprotobuf ships compiled): the files of the schema's
    # descriptor set with its imports.
    protoc "${include[@]}" --include_imports \
      --descriptor_set_out="$out/set.pb" "$schema"
    mapfile -t files < <(protoc --decode=google.protobuf.FileDescriptorSet \
        google/protobuf/descriptor.proto < "$out/set.pb" |
      sed -n 's/^  name: "\(.*\)"$/\1/p' | grep -v '^google/protobuf/')
    /usr/bin/time -f '%U %S %e %M' -o "$work/t0" \
      protoc --descriptor_set_in="$out/set.pb" --cpp_out="$out/cpp" "${files[@]}"
    total_cpu=$(awk '{print $1 + $2}' "$work/t0")
    total_wall=$(awk '{print $3}' "$work/t0")
    max_rss=$(awk '{print $4}' "$work/t0")
    for cc in $(find "$out/cpp" -name '*.pb.cc'); do
      /usr/bin/time -f '%U %S %e %M' -o "$work/t1" \
        clang++-19 -O2 -std=c++17 -c -I "$out/cpp" "$cc" -o "${cc%.cc}.o"
      total_cpu=$(awk -v t="$total_cpu" '{print t + $1 + $2}' "$work/t1")
      total_wall=$(awk -v t="$total_wall" '{print t + $3}' "$work/t1")
      max_rss=$(awk -v m="$max_rss" '{print ($4 > m ? $4 : m)}' "$work/t1")
    done
    # shellcheck disable=SC2046
    read -r text ro relro < <(sections $(find "$out/cpp" -name '*.o'))
    printf '%-40s %-6s %8.2f %8.2f %8.0f %10s %10s %10s %10s\n' "$schema" c++ "$total_cpu" \
      "$total_wall" "$((max_rss / 1024))" "$text" "$ro" "$relro" -
  fi
done
