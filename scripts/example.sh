#!/usr/bin/env bash
# The README's first command: install what is needed, build pbc, compile the
# addressbook schema to a static library, link a C program against it (C
# compiler + that archive, nothing else) and run it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh pbc
out=build/examples/addressbook
build/bin/pbc compile -I examples/addressbook examples/addressbook/addressbook.proto \
  -o "$out/libaddressbook.a"
cc -std=c11 -Wall -Wextra examples/addressbook/main.c -I"$out" "$out/libaddressbook.a" \
  -o "$out/addressbook"
"$out/addressbook"
