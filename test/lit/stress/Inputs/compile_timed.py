"""Compiles one schema with pbc under a CPU-time and memory bound, then links
the library whole with roundtrip_all.c and runs it (every message's default
instance must round-trip). Prints pbc's notes and the figures:

    ok: NAME: N messages, compiled in U s CPU (W s wall), M MB peak

    compile_timed.py --pbc PBC --cc CC --include DIR --roundtrip FILE
        --out DIR --max-cpu SECONDS --max-mb MB -- PBC-ARGS...
"""
import argparse
import os
import re
import resource
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
for opt in ("--pbc", "--cc", "--include", "--roundtrip", "--out", "--name"):
    ap.add_argument(opt, required=True)
ap.add_argument("--max-cpu", type=float, required=True)
ap.add_argument("--max-mb", type=float, required=True)
ap.add_argument("pbc_args", nargs="+")
args = ap.parse_args()

lib = os.path.join(args.out, "lib.a")


def limit():
    # A runaway compile is stopped rather than hanging the test suite.
    cpu = int(args.max_cpu * 4) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))


before = resource.getrusage(resource.RUSAGE_CHILDREN)
start = time.monotonic()
p = subprocess.run([args.pbc, "compile", *args.pbc_args, "-o", lib],
                   preexec_fn=limit, stderr=subprocess.PIPE, text=True)
wall = time.monotonic() - start
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
peak_mb = after.ru_maxrss / 1024  # the largest child so far: pbc
if p.returncode != 0:
    sys.exit(f"FAILED: {args.name}: pbc exited {p.returncode}:\n{p.stderr}")

# pbc's notes (with -v: functions left unoptimized) are part of the result.
for line in p.stderr.splitlines():
    if line.startswith("pbc: note:"):
        print(line)

exe = os.path.join(args.out, "roundtrip")
subprocess.run([args.cc, "-std=c11", "-w", args.roundtrip, f"-I{args.out}",
                f"-I{args.include}", "-o", exe, "-Wl,--whole-archive", lib,
                "-Wl,--no-whole-archive"], check=True)
out = subprocess.run([exe], stdout=subprocess.PIPE, text=True).stdout
m = re.search(r"^(\d+) passed, (\d+) failed$", out, re.M)
if not m or m.group(2) != "0":
    sys.exit(f"FAILED: {args.name}: round trip:\n{out}")
print(f"ok: {args.name}: {m.group(1)} messages, compiled in {cpu:.1f} s CPU "
      f"({wall:.1f} s wall), {peak_mb:.0f} MB peak")
problems = []
if cpu > args.max_cpu:
    problems.append(f"{cpu:.1f} s CPU > {args.max_cpu} s")
if peak_mb > args.max_mb:
    problems.append(f"{peak_mb:.0f} MB > {args.max_mb} MB")
if problems:
    sys.exit(f"FAILED: {args.name}: over budget: {', '.join(problems)}")
