#!/usr/bin/env bash
# The README's second command: install what is needed, build everything and
# run the whole test suite (lit: compiler, runtime unit tests, end-to-end).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
scripts/conformance.sh
log=build/test-results.log
set +e
python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv build/test 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
count() { grep -oP "^\s*$1\s*:\s*\K[0-9]+" "$log" | head -1 || true; }
passed=$(count Passed)
failed=0
for kind in Failed Unresolved "Timed Out" "Unexpectedly Passed"; do
  n=$(count "$kind")
  failed=$((failed + ${n:-0}))
done
echo "${passed:-0} passed, $failed failed"
exit "$rc"
