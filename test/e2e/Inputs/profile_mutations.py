"""Feeds `pbc profile` mutated payloads: flipped, inserted, deleted and
truncated bytes of a valid one. Each run must end with the profile written
(exit 0) or one `pbc: error:` line naming the payload (exit 1): never a
crash, a hang or another message.

usage: profile_mutations.py PBC PAYLOAD OUTDIR COUNT -- PROFILE_ARGS...
"""
import random
import subprocess
import sys


def mutate(data, rng):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(4)
        at = rng.randrange(len(data) + 1)
        if kind == 0 and data:
            data[min(at, len(data) - 1)] ^= 1 << rng.randrange(8)
        elif kind == 1:
            data[at:at] = bytes([rng.choice([0x80, 0xff, 0x0b, 0x0c, 0x33, 0x34, rng.randrange(256)])])
        elif kind == 2 and data:
            del data[min(at, len(data) - 1)]
        elif data:
            del data[at:]
    return bytes(data)


def main():
    pbc, payload, outdir, count = sys.argv[1:5]
    args = sys.argv[sys.argv.index("--") + 1:]
    seed = open(payload, "rb").read()
    rng = random.Random(20261126)
    outcomes = {0: 0, 1: 0}
    for i in range(int(count)):
        path = f"{outdir}/mutant{i}.bin"
        with open(path, "wb") as f:
            f.write(mutate(seed, rng))
        run = subprocess.run([pbc, "profile", *args, f"--payloads={path}", "-o", f"{outdir}/mutant.profile"],
                             capture_output=True, text=True, timeout=60)
        lines = run.stderr.splitlines()
        if run.returncode not in outcomes or (run.returncode == 1 and
                                              (len(lines) != 1 or not lines[0].startswith("pbc: error: ")
                                               or "payload 1 is not a" not in lines[0])):
            print(f"FAIL: {path}: exit {run.returncode}: {run.stderr}")
            return 1
        outcomes[run.returncode] += 1
    print(f"{count} mutants: {outcomes[0]} profiled, {outcomes[1]} rejected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
