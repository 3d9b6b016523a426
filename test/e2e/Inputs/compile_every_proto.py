"""Compiles every .proto under the given roots with pbc, links each library
whole with roundtrip_all.c and runs it: every message the library defines
(imports included) must round-trip its default instance.

    compile_every_proto.py --pbc PBC --cc CC --include PBC_INCLUDE
        --roundtrip roundtrip_all.c --out DIR [--opt N]
        [--fallback-include DIR]... [--skip NAME]... [--protoc PROTOC]
        ROOT | VIRTUAL=ROOT ...

VIRTUAL=ROOT (an installed or shared schema tree): the .proto files of each
folder are compiled in one pbc call, named VIRTUAL/path-under-ROOT with
-I VIRTUAL=ROOT, so a file imported by its neighbours is compiled once.
A plain ROOT (the test suite): each file on its own, the way the lit tests
compile it (-I its folder's Inputs/, -I its folder, then the fallbacks),
since test files in one folder may define the same names.

Files meant to fail are skipped: error-*.proto, anything under bad/, and
--skip names. Files written in editions (`edition = ...`) go through
pbc's --protoc=PROTOC (a protoc 27 or later); without one they are listed
as skipped, never passed. Prints a line per library and a summary; exits 1
on a failure.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import time


def find_protos(root, skip):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in ("bad", "Output") and d[0] != "%")
        for name in sorted(filenames):
            if (name.endswith(".proto") and not name.startswith("error-")
                    and name not in skip):
                yield os.path.join(dirpath, name)


def plan(args):
    """(label, include args, input names, written in editions) per pbc call."""
    calls = []
    for spec in args.roots:
        virtual, _, root = spec.rpartition("=")
        root = os.path.normpath(root)
        if virtual:
            by_dir = {}
            for path in find_protos(root, args.skip):
                by_dir.setdefault(os.path.dirname(path), []).append(path)
            for d, paths in sorted(by_dir.items()):
                label = f"{virtual}/{os.path.relpath(d, root)}/*.proto"
                names = [f"{virtual}/{os.path.relpath(p, root)}" for p in paths]
                calls.append((label.replace("/./", "/"),
                              [f"-I{virtual}={root}"], names,
                              any(map(is_editions, paths))))
            continue
        for path in find_protos(root, args.skip):
            here = os.path.dirname(path)
            includes = [f"-I{here}"]
            if os.path.isdir(os.path.join(here, "Inputs")):
                includes.insert(0, f"-I{os.path.join(here, 'Inputs')}")
            includes += [f"-I{d}" for d in args.fallback_include]
            calls.append((os.path.relpath(path, root), includes,
                          [os.path.basename(path)], is_editions(path)))
    return calls


EDITION = re.compile(r"^\s*edition\s*=", re.M)


def is_editions(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return EDITION.search(f.read()) is not None


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors="replace")
    return p.returncode, p.stdout


def check(args, index, includes, names):
    out = os.path.join(args.out, str(index))
    lib = os.path.join(out, "lib.a")
    start = time.monotonic()
    protoc = [f"--protoc={args.protoc}"] if args.protoc else []
    rc, text = run([args.pbc, "compile", f"-O{args.opt}", *protoc, *includes,
                    *names, "-o", lib])
    seconds = time.monotonic() - start
    if rc != 0:
        return False, f"pbc exited {rc}:\n{text}", seconds
    exe = os.path.join(out, "roundtrip")
    rc, text = run([args.cc, "-std=c11", "-w", args.roundtrip, f"-I{out}",
                    f"-I{args.include}", "-o", exe, "-Wl,--whole-archive",
                    lib, "-Wl,--no-whole-archive"])
    if rc != 0:
        return False, f"link failed:\n{text}", seconds
    rc, text = run([exe])
    m = re.search(r"^(\d+) passed, (\d+) failed$", text, re.M)
    if rc != 0 or not m or m.group(2) != "0":
        return False, f"round trip failed:\n{text}", seconds
    return True, f"{m.group(1)} messages", seconds


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--pbc", "--cc", "--include", "--roundtrip", "--out"):
        ap.add_argument(opt, required=True)
    ap.add_argument("--opt", default="0")
    ap.add_argument("--fallback-include", action="append", default=[])
    ap.add_argument("--skip", action="append", default=[])
    ap.add_argument("--protoc")
    ap.add_argument("roots", nargs="+")
    args = ap.parse_args()
    if args.protoc and not os.access(args.protoc, os.X_OK):
        print(f"note: no protoc at {args.protoc}: editions files are skipped")
        args.protoc = None

    calls = plan(args)
    if not args.protoc:
        for label, *_ in [c for c in calls if c[3]]:
            print(f"skipped: {label}: written in editions, no --protoc")
        calls = [c for c in calls if not c[3]]
    start = time.monotonic()
    failed = files = 0
    # The big schemas first, so the two cores finish together.
    order = sorted(range(len(calls)), key=lambda i: -len(calls[i][2]))
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        futures = {i: pool.submit(check, args, i, calls[i][1], calls[i][2])
                   for i in order}
        for i, (label, _, names, _) in enumerate(calls):
            ok, detail, seconds = futures[i].result()
            failed += not ok
            files += len(names)
            print(f"{'ok' if ok else 'FAILED'}: {label}: {len(names)} file(s), "
                  f"{detail}, compiled in {seconds:.1f} s")
    print(f"{len(calls) - failed} of {len(calls)} libraries ({files} .proto "
          f"files) compiled and round-tripped in "
          f"{time.monotonic() - start:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
