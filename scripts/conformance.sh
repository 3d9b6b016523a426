#!/usr/bin/env bash
# Builds protobuf's official conformance runner (conformance_test_runner) from
# Debian 12's source package of protobuf 3.21.12, against the system protoc and
# libprotobuf, and stages the .proto files a testee needs:
#   build/conformance/conformance_test_runner
#   build/conformance/protos/{conformance,google/protobuf}/*.proto
#     (the conformance messages, and protobuf's unittest*.proto for the e2e tests)
# Idempotent: the download, the unpack and the build are each skipped when
# already done. Needs protobuf-compiler, libprotobuf-dev and a C++ compiler
# ($CXX, else g++, else install-deps.sh's clang++-19).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$PWD/build/conformance
cache=$out/cache   # the source package, as apt-get downloads it
src=$out/src       # the few files of it the runner needs
runner=$out/conformance_test_runner

die() { echo "conformance.sh: error: $*" >&2; exit 1; }
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo

cxx=${CXX:-$(command -v g++ || command -v clang++-19 || true)}
[ -n "$cxx" ] || die "no C++ compiler (set CXX, or run scripts/install-deps.sh)"
for tool in protoc tar "$cxx"; do
  command -v "$tool" >/dev/null || die "$tool not found (run scripts/install-deps.sh)"
done
[ -f /usr/include/google/protobuf/message.h ] || die "libprotobuf headers missing (apt-get install libprotobuf-dev)"

# --- 1. The source package --------------------------------------------------
# apt-get source needs a deb-src entry. Mirror the machine's own Debian entries
# (same URIs, suites, components and key) so it uses the same archive the
# binary packages came from.
add_deb_src() {
  local deb822=/etc/apt/sources.list.d/debian.sources
  local entries=""
  if [ -f "$deb822" ]; then
    # Each enabled stanza of type deb, retyped as deb-src.
    entries=$(awk '
      function flush() { if (keep && !off) print buf; buf = ""; keep = 0; off = 0 }
      /^[[:space:]]*$/ { flush(); next }
      /^Types:/ { keep = ($0 ~ /[[:space:]]deb([[:space:]]|$)/); $0 = "Types: deb-src" }
      /^Enabled:[[:space:]]*no/ { off = 1 }
      { buf = buf $0 "\n" }
      END { flush() }' "$deb822")
  elif [ -f /etc/apt/sources.list ] && grep -qE '^deb[[:space:]].*debian' /etc/apt/sources.list; then
    # One-line format: the same lines as deb-src, in a .list file.
    grep -E '^deb[[:space:]].*debian' /etc/apt/sources.list | sed 's/^deb[[:space:]]/deb-src /' |
      $SUDO tee /etc/apt/sources.list.d/pbc-src.list >/dev/null
    return
  fi
  if [ -z "$entries" ]; then
    entries="Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"
  fi
  printf '%s' "$entries" | $SUDO tee /etc/apt/sources.list.d/pbc-src.sources >/dev/null
}

mkdir -p "$cache"
tarball=$(ls "$cache"/protobuf_3.21.12*.orig.tar.* 2>/dev/null | head -1 || true)
if [ -z "$tarball" ]; then
  # (grep without -q: an early exit would fail the pipe under pipefail)
  if ! apt-cache showsrc protobuf 2>/dev/null | grep '^Version: 3\.21\.12' >/dev/null; then
    echo "conformance.sh: adding a deb-src entry for protobuf's source package" >&2
    add_deb_src
    $SUDO apt-get update -q || die "apt-get update failed"
  fi
  # Runs as the calling user so the files are theirs; as root apt warns that
  # the download is unsandboxed, which is harmless here.
  (cd "$cache" && apt-get source --download-only -q protobuf) ||
    die "apt-get source --download-only protobuf failed"
  tarball=$(ls "$cache"/protobuf_3.21.12*.orig.tar.* 2>/dev/null | head -1 || true)
  [ -n "$tarball" ] || die "no protobuf_3.21.12 orig tarball in $cache (is this Debian 12?)"
fi

# --- 2. The files the runner is built from ----------------------------------
# conformance/ itself, the test messages (not shipped by libprotobuf-dev), and
# stringprintf.h, which the runner includes but Debian's headers omit; also
# protobuf's own unit-test schemas (unittest.proto and what it imports, the
# MessageSet and custom-option ones), which test/e2e/unittest_protos.test
# compiles and compares with libprotobuf. Debian's patches do not touch these
# files, so the upstream tarball is enough.
top=protobuf-3.21.12
unittest_protos=(unittest.proto unittest_import.proto unittest_import_public.proto
                 unittest_mset.proto unittest_mset_wire_format.proto unittest_custom_options.proto)
unpacked_all() {
  [ -f "$src/.unpacked" ] && [ "$src/.unpacked" -nt "$tarball" ] || return 1
  local f
  for f in "${unittest_protos[@]}"; do [ -f "$src/src/google/protobuf/$f" ] || return 1; done
}
if ! unpacked_all; then
  rm -rf "$src" && mkdir -p "$src"
  tar -xf "$tarball" -C "$src" --strip-components=1 \
    "$top/conformance" \
    "$top/src/google/protobuf/test_messages_proto2.proto" \
    "$top/src/google/protobuf/test_messages_proto3.proto" \
    "${unittest_protos[@]/#/$top/src/google/protobuf/}" \
    "$top/src/google/protobuf/stubs/stringprintf.h" ||
    die "cannot unpack $tarball"
  touch "$src/.unpacked"
fi

# --- 3. conformance_test_runner ---------------------------------------------
# The runner's sources, as conformance/Makefile.am lists them (the tarball's
# cmake/conformance.cmake forgets the text-format suite and main).
runner_srcs=(
  conformance/conformance_test.cc conformance/conformance_test_main.cc
  conformance/binary_json_conformance_suite.cc conformance/text_format_conformance_suite.cc
  conformance/conformance_test_runner.cc conformance/third_party/jsoncpp/jsoncpp.cpp
)
protos=(
  conformance/conformance.proto
  src/google/protobuf/test_messages_proto2.proto
  src/google/protobuf/test_messages_proto3.proto
)
gen=$out/gen
up_to_date() {
  [ -x "$runner" ] || return 1
  local f
  for f in "${runner_srcs[@]}" "${protos[@]}"; do
    [ "$runner" -nt "$src/$f" ] || return 1
  done
  [ "$runner" -nt "$(command -v protoc)" ]
}
if ! up_to_date; then
  echo "conformance.sh: building $runner" >&2
  rm -rf "$gen" && mkdir -p "$gen"
  # -I conformance and -I src give the package paths the sources include:
  # "conformance.pb.h" and "google/protobuf/test_messages_proto3.pb.h".
  protoc -I"$src/conformance" -I"$src/src" --cpp_out="$gen" "${protos[@]/#/$src/}" ||
    die "protoc failed on the conformance protos"
  # One job per core, biggest files first; -O0 because the generated test
  # messages take most of the time and the runner's speed does not matter.
  cxx_srcs=("$gen"/google/protobuf/test_messages_proto{3,2}.pb.cc "${runner_srcs[@]/#/$src/}" "$gen"/conformance.pb.cc)
  printf '%s\n' "${cxx_srcs[@]}" |
    CXX=$cxx xargs -P "$(nproc)" -I{} sh -c '"$CXX" -std=c++17 -O0 -w -I"$1" -I"$2/conformance" -I"$2/src" -c "$3" -o "$1/$(basename "${3%.*}").o"' \
      _ "$gen" "$src" {} ||
    die "compiling the conformance runner failed"
  objs=()
  for f in "${cxx_srcs[@]}"; do objs+=("$gen/$(basename "${f%.*}").o"); done
  "$cxx" -o "$runner.tmp" "${objs[@]}" -lprotobuf -pthread || die "linking the conformance runner failed"
  mv "$runner.tmp" "$runner"
fi

# --- 4. The protos a testee compiles, under their package paths -------------
mkdir -p "$out/protos/conformance" "$out/protos/google/protobuf"
cp -p "$src/conformance/conformance.proto" "$out/protos/conformance/"
cp -p "$src"/src/google/protobuf/test_messages_proto{2,3}.proto "$out/protos/google/protobuf/"
cp -p "${unittest_protos[@]/#/$src/src/google/protobuf/}" "$out/protos/google/protobuf/"
echo "conformance.sh: $runner ready; testee protos in $out/protos" >&2
