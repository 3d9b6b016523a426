#!/usr/bin/env bash
# Configures and builds pbc into build/ (Release, Ninja). Extra arguments
# are ninja targets (default: everything).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=Release
fi
ninja -C build "$@"
