"""doc_contains.py DOC.md FILE: fails unless DOC.md has FILE verbatim as a
fenced code block, so a program shown in the docs is the one tested."""
import sys

doc = open(sys.argv[1], encoding="utf-8").read()
code = open(sys.argv[2], encoding="utf-8").read()
for fence in ("```cpp\n", "```c++\n", "```c\n", "```cmake\n", "```make\n"):
    if fence + code + "```" in doc:
        sys.exit(0)
sys.exit("%s does not show %s verbatim in a code block" % (sys.argv[1], sys.argv[2]))
