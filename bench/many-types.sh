#!/bin/bash
# The many-types load across the tiers: runs bin/pbc_bench_many_{compact,
# default,profile,speed} (each google_message3 build against libprotobuf
# 3.21, in its own run) and prints one table: each build's parse and
# serialize speed over the random messages of every google_message3 type,
# as the ratio to libprotobuf's in the same run, and its archive's code and
# data (size -t). Extra arguments go to Google Benchmark, e.g.
#
#   bench/many-types.sh --benchmark_repetitions=5 --benchmark_min_time=0.5
set -euo pipefail

build=${BUILD:-$(dirname "$0")/../build}
printf '%-8s %12s %12s %16s\n' build parse serialize "code+data (B)"
for tier in compact default profile speed; do
  bin=$build/bin/pbc_bench_many_$tier
  [ -x "$bin" ] || { echo "many-types.sh: $bin not built" >&2; exit 1; }
  out=$("$bin" --benchmark_report_aggregates_only=true --benchmark_color=false "$@" 2>/dev/null)
  parse=$(sed -n "s/^.*$tier parse: pbc \([0-9.]*\)x libprotobuf.*$/\1/p" <<<"$out")
  serialize=$(sed -n "s/^.*$tier serialize: pbc \([0-9.]*\)x libprotobuf.*$/\1/p" <<<"$out")
  bytes=$(size -t "$build/bench/gen/many_$tier/libgm3.a" | awk '/TOTALS/ {print $4}')
  printf '%-8s %11sx %11sx %16s\n' "$tier" "$parse" "$serialize" "$bytes"
done
