"""Runs a command and succeeds only if it exits with status 1, the status pbc
gives every user error. lit's `not` would also pass a crash or a failed
assertion (a signal), which is exactly what these tests must catch."""
import subprocess
import sys

rc = subprocess.call(sys.argv[1:])
if rc != 1:
    how = f"was killed by signal {-rc}" if rc < 0 else f"exited with {rc}"
    print(f"expect-exit1: {sys.argv[1]} {how}, expected exit status 1",
          file=sys.stderr)
    sys.exit(1)
