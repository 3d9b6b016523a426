#!/usr/bin/env bash
# Installs pbc's build and test dependencies from Debian 12's own archive.
# Idempotent: apt-get skips what is already installed.
set -euo pipefail
# Every package the build, the example and every test use, named: apt's
# recommendations are not installed, so nothing may come in as one.
# scripts/fresh-machine-check.sh checks this list on a minimal Debian 12.
packages=(
  llvm-19-dev libmlir-19-dev mlir-19-tools clang-19 llvm-19-tools
  libclang-rt-19-dev  # test/fuzz: libFuzzer and ASan's runtimes for clang
  gcc g++ libc6-dev  # cc and c++: CMake's compilers, the example, the tests' programs
  libprotobuf-dev libprotoc-dev protobuf-compiler libbenchmark-dev libprotozero-dev
  libmimalloc-dev  # pbc, protoc-gen-pbc: LLVM's many small allocations (docs/performance.md)
  libupb-dev  # bench/: upb as a measured peer
  libsimdjson-dev  # bench/: simdjson, the JSON parsing reference line; test/fuzz: what is strict JSON
  valgrind  # bench/: callgrind's client requests (valgrind/callgrind.h), bench/callgrind.sh
  cmake ninja-build python3
  python3-venv  # scripts/python-deps.sh: PyPI's protoc and python protobuf, the editions reference
  pkg-config make  # test/install: the installed pbc.pc, the Makefile example
  # cross tests (test/e2e/cross-*.test): link for and run on aarch64/riscv64
  gcc-aarch64-linux-gnu gcc-riscv64-linux-gnu libc6-dev-arm64-cross libc6-dev-riscv64-cross qemu-user
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
