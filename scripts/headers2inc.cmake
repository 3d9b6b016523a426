# Turns text files into the entries of a C++ table of {path, contents}:
#   cmake -DROOT=include -DFILES="pbc/pbc.h;pbc/writer.h" -DOUT=x.inc -P headers2inc.cmake
# writes x.inc with one `{"pbc/pbc.h", "..."},` per file (path relative to
# ROOT), for
#   const Entry table[] = {
#   #include "x.inc"
#   };
# The contents are hex escapes in string literals of 32 bytes: an escape
# ends where its literal does, so no byte can run into the next.
# 32 escaped bytes (CMake's regular expressions have no {32}).
string(REPEAT "\\\\x.." 32 literal)
set(entries "")
foreach(file IN LISTS FILES)
  file(READ "${ROOT}/${file}" hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" escaped "${hex}")
  string(REGEX REPLACE "(${literal})" "\\1\"\n \"" escaped "${escaped}")
  string(APPEND entries "{\"${file}\",\n \"${escaped}\"},\n")
endforeach()
file(WRITE "${OUT}" "${entries}")
