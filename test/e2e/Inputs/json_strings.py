"""The JSON parser's string scanner (runtime/json_parse.c: plain_run reads
16 and 8 bytes at a time, and hands a run that is not ASCII to the one-pass
scan that validates it) at every alignment: strings of 0 to 40 bytes
with a special piece at every position, read by `pbc encode --json` as
tutorial.Person's name and compared with their exact encoding; the same
places holding what must be refused (a raw control character, a byte that
is not UTF-8, an unknown escape), each refused at its column; and the
printer's (runtime/json_print.c), which copies runs of plain bytes and
UTF-8 whole and escapes what libprotobuf 3.21 escapes, through
`pbc decode --json` of the same strings.

  json_strings.py PBC PROTO_DIR
"""
import subprocess
import sys

pbc, proto_dir = sys.argv[1:3]
cmd = [pbc, "encode", "--json", "-I", proto_dir, "--message", "tutorial.Person",
       "addressbook.proto"]

# (JSON text of the piece, the bytes it stands for)
valid = [
    ('\\"', b'"'), ('\\\\', b'\\'), ('\\n', b'\n'), ('\\u0001', b'\x01'),
    ('\\u00e9', 'é'.encode()), ('é', 'é'.encode()), ('€', '€'.encode()),
    ('😀', '😀'.encode()), ('\\ud83d\\ude00', '😀'.encode()), ('\x7f', b'\x7f'),
]
# (raw bytes of the piece, the error's text)
invalid = [
    (b'\x01', b'Control character'), (b'\x1f', b'Control character'),
    (b'\xff', b'not valid UTF-8'), (b'\xc3', b'not valid UTF-8'),
    (b'\xed\xa0\x80', b'not valid UTF-8'), (b'\\x', b'Invalid escape'),
]


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7f | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


# After ASCII, the piece is where the 16-byte scan stops; after "é", the
# one-pass scan with UTF-8 validation (pbc_rt_utf8_string_run) reads the
# string from its first block, and the piece lands in every lane of its 16-
# or 32-byte blocks.
lines, want = [], bytearray()
for text, raw in valid:
    for fill in ("a", "é"):
        for before in range(0, 41):
            for after in (0, 1, 7, 8, 9, 15, 16, 17, 33):
                s = fill * before + text + "b" * after
                value = (fill * before).encode() + raw + b"b" * after
                lines.append('{"name":"' + s + '"}')
                body = b"\x0a" + varint(len(value)) + value
                want += varint(len(body)) + body
run = subprocess.run(cmd + ["--delimited"], input="\n".join(lines).encode(),
                     capture_output=True)
if run.returncode != 0 or run.stdout != bytes(want):
    sys.exit("valid strings: pbc encode --json gave %d bytes (status %d, %s), want %d"
             % (len(run.stdout), run.returncode, run.stderr.decode(errors="replace"),
                len(want)))

# (character, how 3.21 prints it)
printed = [
    ('é', 'é'), ('😀', '😀'), ('\u00ad', '\\u00ad'), ('\u2028', '\\u2028'),
    ('\u0085', '\\u0085'), ('\ufeff', '\\ufeff'), ('\U000e0001', '\\udb40\\udc01'),
    ('<', '\\u003c'), ('\x7f', '\\u007f'), ('"', '\\"'), ('\n', '\\n'),
    ('\u0601', '\\u0601'), ('\u06dd', '\\u06dd'), ('\u070f', '\\u070f'),
    ('\u17b5', '\\u17b5'), ('\u200b', '\\u200b'), ('\u2064', '\\u2064'),
    ('\ufffa', '\\ufffa'), ('\U0001d173', '\\ud834\\udd73'),
    ('\U000e007f', '\\udb40\\udc7f'),
    # Kept, though the printer's blocks hand their first two bytes to the
    # slow path (runtime/utf8.c, pbc_rt_utf8_json_kept).
    ('\u2013', '\u2013'), ('\u00a0', '\u00a0'), ('\u060f', '\u060f'),
    ('\U00020000', '\U00020000'), ('\ufefe', '\ufefe'),
]
# After ASCII the character is where the 16-byte scan stops; after "é" the
# printer's 32-byte blocks (pbc_rt_utf8_json_kept) meet it in every lane.
stream, want_lines = bytearray(), []
for char, out in printed:
    for fill in ("a", "é"):
        for before in range(0, 34):
            for after in (0, 1, 15, 16, 17):
                value = (fill * before + char + "é" * after).encode()
                body = b"\x0a" + varint(len(value)) + value
                stream += varint(len(body)) + body
                want_lines.append('{"name":"' + fill * before + out + "é" * after + '"}')
run = subprocess.run([pbc, "decode", "--json", "--delimited", "-I", proto_dir, "--message",
                      "tutorial.Person", "addressbook.proto"], input=bytes(stream),
                     capture_output=True)
got_lines = run.stdout.decode().splitlines()
if run.returncode != 0 or got_lines != want_lines:
    bad = [(w, g) for w, g in zip(want_lines, got_lines) if w != g][:3]
    sys.exit("printed strings differ (status %d): %r" % (run.returncode, bad))

refused = 0
for piece, error in invalid:
    for fill in (b"a", "é".encode()):
        for before in (0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33):
            for after in (0, 3, 20):
                text = b'{"name":"' + fill * before + piece + b"b" * after + b'"}'
                run = subprocess.run(cmd, input=text, capture_output=True)
                column = len(b'{"name":"') + len(fill) * before + 1
                where = b"input:1:%d: " % column
                if (run.returncode == 0 or where not in run.stderr
                        or error not in run.stderr):
                    sys.exit("%r: want %r and %r, got status %d: %s"
                             % (text, where, error, run.returncode, run.stderr))
                refused += 1
print("%d strings read exactly, %d refused where they go wrong, %d printed exactly"
      % (len(lines), refused, len(want_lines)))
