#!/usr/bin/env bash
# Are the README's two commands true on a fresh Debian 12 machine?
#
#   scripts/fresh-machine-check.sh [--keep] [--root DIR]
#
# Builds a minimal Debian 12 root with Debian's debootstrap
# (`debootstrap --variant=minbase bookworm`: what a `debian:12` container
# gives a user), gives it the apt sources of this machine, copies a clean
# clone of HEAD into it and runs, with chroot, exactly the README's two
# commands, one after the other:
#
#   scripts/example.sh
#   scripts/test.sh
#
# Then it prints each one's exit code and wall time and the test summary
# line, and exits non-zero unless both passed. Their full output is in
# ROOT/root/{example,test}.log (kept with --keep).
#
# Not part of CI: it takes about half an hour on 2 cores, most of it
# scripts/test.sh. Needs root (or sudo), and debootstrap, which it installs
# from this machine's apt sources when missing. The mirror is the one this
# machine's own apt sources name (read at run time, never written here).
#
# Inside a chroot:
# - /proc, /sys and /dev (with /dev/pts and /dev/shm, which lit's worker
#   processes need for their semaphores) are bind-mounted from the host,
#   /etc/resolv.conf copied for apt, and this machine's pip configuration
#   and local certificate authorities for pip (scripts/python-deps.sh). Everything is unmounted on exit,
#   interrupted or not, before the root is removed.
# - The cross tests (test/e2e/cross-*.test) run their aarch64/riscv64
#   programs as `qemu-ARCH PROGRAM`, statically linked, so they need
#   neither binfmt_misc (whose registrations are the host kernel's, and
#   whose interpreter paths would have to exist inside the root) nor the
#   target's dynamic loader: install-deps.sh's qemu-user inside the root is
#   enough. Nothing the tests do needs more than a chroot gives.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
if [ "$(id -u)" -ne 0 ]; then
  exec sudo -E "$0" "$@"
fi

keep=0
root=""
while [ $# -gt 0 ]; do
  case "$1" in
    --keep) keep=1 ;;
    --root) root=$2; shift ;;
    -h|--help) sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fresh-machine-check.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done

die() { echo "fresh-machine-check.sh: error: $*" >&2; exit 1; }

# --- The mirror: the first Debian entry of this machine's apt sources ------
mirror_of_host() {
  local deb822=/etc/apt/sources.list.d/debian.sources
  if [ -f "$deb822" ]; then
    # The first URI of an enabled `Types: deb` stanza whose suites include
    # bookworm.
    awk '
      function flush() {
        if (deb && !off && bookworm && uri != "" && !found) { print uri; found = 1 }
        deb = 0; off = 0; bookworm = 0; uri = ""
      }
      /^[[:space:]]*$/ { flush(); next }
      /^Types:/ { deb = ($0 ~ /[[:space:]]deb([[:space:]]|$)/) }
      /^Enabled:[[:space:]]*no/ { off = 1 }
      /^Suites:/ { bookworm = ($0 ~ /[[:space:]]bookworm([[:space:]]|$)/) }
      /^URIs:/ { uri = $2 }
      END { flush() }' "$deb822"
  fi
  if [ -f /etc/apt/sources.list ]; then
    # deb [options] URI bookworm components...
    sed -nE 's/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+)[[:space:]]+bookworm[[:space:]].*/\2/p' \
      /etc/apt/sources.list
  fi
}
mirror=$(mirror_of_host | head -1)
[ -n "$mirror" ] || die "no Debian bookworm entry in /etc/apt/sources.list{,.d/debian.sources}"

if ! command -v debootstrap >/dev/null; then
  echo "fresh-machine-check.sh: installing debootstrap" >&2
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap
fi

# --- The root, and its cleanup ----------------------------------------------
made_root=0
if [ -z "$root" ]; then
  root=$(mktemp -d /var/tmp/pbc-fresh-root.XXXXXX)
  made_root=1
else
  [ ! -e "$root" ] || [ -z "$(ls -A "$root")" ] || die "--root $root exists and is not empty"
  mkdir -p "$root"
fi
root=$(cd "$root" && pwd)

mounted=()
cleanup() {
  local rc=$? i
  # Innermost first; recursive and lazy, so a process still holding a file
  # cannot keep a host tree mounted inside the root.
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount -R "${mounted[i]}" 2>/dev/null || umount -R -l "${mounted[i]}" 2>/dev/null || true
  done
  # Never remove while anything is still mounted below the root: that would
  # delete the host's /dev or /sys.
  if [ "$keep" -eq 0 ] && [ "$made_root" -eq 1 ]; then
    if findmnt -rn -o TARGET | grep -q "^$root/"; then
      echo "fresh-machine-check.sh: something is still mounted under $root; not removing it" >&2
    else
      rm -rf "$root"
    fi
  elif [ "$keep" -eq 1 ]; then
    echo "fresh-machine-check.sh: kept the root at $root" >&2
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

clock() { date +%s; }
minutes() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

echo "fresh-machine-check.sh: debootstrap --variant=minbase bookworm $root $mirror" >&2
t0=$(clock)
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
  { tail -20 "$root.debootstrap.log" >&2; die "debootstrap failed (log: $root.debootstrap.log)"; }
rm -f "$root.debootstrap.log"
t_debootstrap=$(($(clock) - t0))

# The apt sources a Debian 12 machine here has: this machine's Debian
# entries (bookworm, its updates and security), not debootstrap's lone
# `bookworm main`.
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
  cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/debian.sources"
  : >"$root/etc/apt/sources.list"
elif [ -f /etc/apt/sources.list ]; then
  grep -E '^deb[[:space:]]' /etc/apt/sources.list >"$root/etc/apt/sources.list" || true
fi
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
# This machine's way to the package registries over TLS, copied like
# resolv.conf: its pip configuration (/etc/pip.conf) and the local
# certificate authorities of its network (/usr/local/share/ca-certificates,
# e.g. a proxy that re-signs TLS), with the bundle built from them, which
# the ca-certificates package rebuilds the same way if install-deps pulls
# it in. A machine that reaches PyPI directly has neither and needs
# neither; the project installs nothing from them.
if [ -f /etc/pip.conf ]; then cp /etc/pip.conf "$root/etc/pip.conf"; fi
if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
fi
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  mkdir -p "$root/etc/ssl/certs"
  cp -L /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
fi

# A clean clone of HEAD: what a user gets from the repository.
head=$(git -C "$repo" rev-parse HEAD)
git clone -q --no-hardlinks "$repo" "$root/root/pbc"
git -C "$root/root/pbc" checkout -q --detach "$head"

mount -t proc proc "$root/proc"; mounted+=("$root/proc")
mount --rbind /sys "$root/sys"; mount --make-rslave "$root/sys"; mounted+=("$root/sys")
mount --rbind /dev "$root/dev"; mount --make-rslave "$root/dev"; mounted+=("$root/dev")

# A login's environment, nothing of this shell's.
in_root() {
  chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c "cd /root/pbc && $1"
}

run() { # name command
  local t rc
  t=$(clock)
  set +e
  in_root "$2" >"$root/root/$1.log" 2>&1
  rc=$?
  set -e
  echo "$rc $(($(clock) - t))"
}

echo "fresh-machine-check.sh: HEAD $head; running scripts/example.sh" >&2
read -r rc_example t_example < <(run example scripts/example.sh)
echo "fresh-machine-check.sh: running scripts/test.sh" >&2
read -r rc_test t_test < <(run test scripts/test.sh)

summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$root/root/test.log" | tail -1 || true)
echo
echo "fresh Debian 12 root (debootstrap --variant=minbase bookworm, $(minutes "$t_debootstrap")), HEAD $head"
echo "  scripts/example.sh: exit $rc_example, $(minutes "$t_example")"
echo "  scripts/test.sh:    exit $rc_test, $(minutes "$t_test"): ${summary:-no summary line}"
if [ "$rc_example" -ne 0 ]; then
  echo "--- example.log (last 30 lines)"; tail -30 "$root/root/example.log"
fi
if [ "$rc_test" -ne 0 ]; then
  echo "--- test.log (failures)"
  grep -E '^(FAIL|UNRESOLVED|TIMEOUT|XPASS):|^lit.*(fatal|error)' "$root/root/test.log" | head -40 || true
  tail -15 "$root/root/test.log"
fi
[ "$rc_example" -eq 0 ] && [ "$rc_test" -eq 0 ]
