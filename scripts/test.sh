#!/usr/bin/env bash
# The README's second command: install what is needed, build everything and
# run the whole test suite (lit: compiler, runtime unit tests, end-to-end).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/python-deps.sh
scripts/build.sh
scripts/conformance.sh
# Everything the tests need is installed and built now: a test that would
# be skipped for want of it is an error instead (test/pbc_lit.py).
export PBC_REQUIRE_ALL_TESTS=1
log=build/test-results.log
set +e
python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv build/test 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
# The end-to-end and runtime tests once more, under ASan + UBSan
# (docs/security.md#sanitizers).
python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv --param pbc_sanitize=1 \
  build/test/e2e build/test/runtime 2>&1 | tee -a "$log"
rc_sanitize=${PIPESTATUS[0]}
[ "$rc" -ne 0 ] || rc=$rc_sanitize
set -e
# Summed over both runs.
count() { grep -oP "^\s*$1\s*:\s*\K[0-9]+" "$log" | awk '{ n += $1 } END { print n + 0 }' || true; }
passed=$(count Passed)
failed=0
for kind in Failed Unresolved "Timed Out" "Unexpectedly Passed"; do
  n=$(count "$kind")
  failed=$((failed + ${n:-0}))
done
# Tests a configuration excludes on purpose (the sanitizer pass leaves out
# what ASan changes or cannot run), never a missing package.
unsupported=$(count Unsupported)
echo "${passed:-0} passed, $failed failed, ${unsupported:-0} unsupported"
exit "$rc"
