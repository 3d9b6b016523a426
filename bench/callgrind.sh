#!/usr/bin/env bash
# Instructions per message for every dataset and codec of bench/, counted by
# callgrind (no timing noise): the figure to compare before and after a change.
#   bench/callgrind.sh [build-dir] [dataset ...]
set -euo pipefail
build=${1:-build}
shift || true
bin=$build/bin/pbc_bench_instructions
datasets=("$@")
[ ${#datasets[@]} -gt 0 ] || datasets=(message1_proto2 message1_proto3 message2 string_heavy prose_heavy packed_heavy)
codecs=(libprotobuf_parse libprotobuf_parse_arena pbc_parse pbc_parse_copy
        pbc_table_parse libprotobuf_dynamic_parse pbc_schema_parse pbc_jit_parse
        libprotobuf_serialize pbc_size_encode pbc_encode_exact
        pbc_encode pbc_encode_at_end pbc_table_size_encode pbc_table_encode_exact
        pbc_table_encode_at_end
        libprotobuf_copy pbc_copy libprotobuf_merge pbc_merge libprotobuf_equal pbc_equal libprotobuf_reflect pbc_reflect
        libprotobuf_to_json pbc_to_json libprotobuf_from_json pbc_from_json
        libprotobuf_merge_parse pbc_merge_parse)
# upb's codecs exist when bench/ was built with libupb-dev.
if "$bin" --codecs | grep -x upb_parse >/dev/null; then
  codecs+=(upb_parse upb_serialize)
fi
# simdjson's DOM parse, the JSON reference line, when built with libsimdjson-dev.
if "$bin" --codecs | grep -x simdjson_dom >/dev/null; then
  codecs+=(simdjson_dom)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-18s %-24s %14s %18s\n' dataset codec instr/message 'libprotobuf / it'
for d in "${datasets[@]}"; do
  declare -A per=()
  for c in "${codecs[@]}"; do
    passes=200
    [ "$d" = message2 ] && passes=5
    info=$(valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$tmp/out" \
           "$bin" "$d" "$c" "$passes" 2>/dev/null)
    messages=$(sed -n 's/.*messages=\([0-9]*\).*/\1/p' <<<"$info")
    total=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$tmp/out")
    per[$c]=$((total / (messages * passes)))
  done
  for c in "${codecs[@]}"; do
    base=${per[libprotobuf_parse]}
    [[ $c == *serialize* || $c == *encode* ]] && base=${per[libprotobuf_serialize]}
    [[ $c == simdjson_dom ]] && base=${per[libprotobuf_from_json]}
    for op in copy merge equal merge_parse reflect to_json from_json; do
      [[ $c == *_$op ]] && base=${per[libprotobuf_$op]}
    done
    printf '%-18s %-24s %14d %17.2fx\n' "$d" "$c" "${per[$c]}" \
      "$(awk -v a="$base" -v b="${per[$c]}" 'BEGIN { print a / b }')"
  done
  unset per
done
