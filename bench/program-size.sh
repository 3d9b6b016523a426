#!/bin/bash
# What a program that uses pbc links: a main() that decodes and encodes each
# ROOT message (its C name, e.g. benchmarks_proto2_GoogleMessage1), linked
# with the archive pbc compiles from the schemas and -Wl,--gc-sections, as
# the pkg-config and CMake packages link. Prints the program's code (.text)
# and read-only data (.rodata, .eh_frame, .data.rel.ro: the descriptions and
# info records) from `size -A`, each minus what an empty C program has.
#
#   bench/program-size.sh [--pbc PATH] [--flags "--optimize-for=code-size"] \
#       -I DIR SCHEMA.proto [SCHEMA.proto...] -- ROOT [ROOT...]
set -euo pipefail

pbc=${PBC:-$(dirname "$0")/../build/bin/pbc}
flags=""
include=()
schemas=()
while [ $# -gt 0 ]; do
  case "$1" in
    --pbc) pbc=$2; shift 2 ;;
    --flags) flags=$2; shift 2 ;;
    -I) include+=(-I "$2"); shift 2 ;;
    -I*) include+=(-I "${1#-I}"); shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    -*) echo "program-size.sh: unknown option $1" >&2; exit 2 ;;
    *) schemas+=("$1"); shift ;;
  esac
done
roots=("$@")
[ ${#schemas[@]} -gt 0 ] && [ ${#roots[@]} -gt 0 ] ||
  { echo "program-size.sh: give schemas, then -- and root messages" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2086
"$pbc" compile $flags "${include[@]}" "${schemas[@]}" -o "$work/lib.a"

{
  echo '#include <stdint.h>'
  echo '#include <stdio.h>'
  for h in "$work"/*.pbc.h; do echo "#include \"$(basename "$h")\""; done
  echo 'static uint8_t buf[1 << 20];'
  echo 'int main(int argc, char **argv) {'
  echo '  (void)argv; size_t n = fread(buf, 1, sizeof buf, stdin), w = 0;'
  echo '  pbc_arena arena; pbc_arena_init(&arena, NULL, 0); int bad = 0;'
  for r in "${roots[@]}"; do
    echo "  { $r m; bad |= ${r}_decode(&m, buf, n, &arena) != PBC_OK;"
    echo "    bad |= ${r}_encode(&m, buf, sizeof buf, &w) != PBC_OK; }"
  done
  echo '  pbc_arena_destroy(&arena); return bad + argc - 1 + (int)w;'
  echo '}'
} > "$work/main.c"
echo 'int main(void) { return 0; }' > "$work/empty.c"

cc -O2 -I"$work" "$work/main.c" "$work/lib.a" -Wl,--gc-sections -o "$work/prog"
cc -O2 "$work/empty.c" -Wl,--gc-sections -o "$work/empty"

sections() {
  size -A -d "$1" | awk '
    $1 == ".text" { text += $2 }
    $1 ~ /^\.(rodata|eh_frame|data\.rel\.ro)/ { ro += $2 }
    END { printf "%d %d\n", text, ro }'
}
read -r text ro < <(sections "$work/prog")
read -r text0 ro0 < <(sections "$work/empty")
printf '%-12s %10s %10s\n' "" text rodata
printf '%-12s %10d %10d\n' program $((text - text0)) $((ro - ro0))
