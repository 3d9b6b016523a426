#!/usr/bin/env python3
"""Writes valid but extreme .proto schemas for the compiler's stress test.

    gen-adversarial-schemas.py OUTDIR [--scale F]

Each schema is legal for protoc and pushes one dimension far past what
hand-written schemas do, so a quadratic pass or a recursion without a bound
shows up as time, memory or a crash (test/e2e/adversarial_schemas.test).
They are generated rather than checked in: the largest is megabytes of text.
--scale shrinks or grows every count (1.0 is what the test uses).

The files written, one schema each (deep_imports is a chain of files):
  many_messages.proto   5,000 top-level messages that reference each other
  many_fields.proto     one message with 2,000 fields of every kind
  big_numbers.proto     field numbers up to 536,870,911 (2^29-1), both sides
                        of the 19000-19999 hole, sparse everywhere
  deep_nesting.proto    message definitions nested 31 deep (libprotobuf
                        3.21's parser stops at 32, protoc included: deeper
                        is a schema error, see --nesting), each level
                        holding a field of the next and of the outermost
  long_names.proto      message, field, enum, value names of 1,200
                        characters, a 511-character package (libprotobuf's
                        limit) and a long nested path
  many_enum_values.proto  open and closed enums with 10,000 values, sparse
                        and negative numbers, aliases
  deep_imports_NNN.proto  a chain of 200 files, each importing the previous
"""
import argparse
import os

TYPES = ["int32", "int64", "uint32", "uint64", "sint32", "sint64", "fixed32",
         "fixed64", "sfixed32", "sfixed64", "float", "double", "bool",
         "string", "bytes"]


def write(outdir, name, text):
    with open(os.path.join(outdir, name), "w") as f:
        f.write(text)


def many_messages(n):
    out = ['syntax = "proto3";', "package adv.many;", ""]
    for i in range(n):
        # Each message points at an earlier one and at a later one, so the
        # symbol references span the whole file.
        out.append(f"message M{i} {{")
        out.append(f"  int32 a = 1;")
        out.append(f"  M{(i * 7919) % n} prev = 2;")
        out.append(f"  repeated M{(i + 1) % n} next = 3;")
        out.append("}")
    return "\n".join(out) + "\n"


def many_fields(n):
    out = ['syntax = "proto2";', "package adv.fields;", "",
           "enum Color { RED = 1; GREEN = 2; }",
           "message Sub { optional int32 x = 1; }", "",
           "message Wide {"]
    num = 1
    for i in range(n):
        t = TYPES[i % len(TYPES)]
        kind = i % 5
        if kind == 0:
            out.append(f"  optional {t} f{i} = {num};")
        elif kind == 1:
            out.append(f"  repeated {t} f{i} = {num};")
        elif kind == 2:
            out.append(f"  optional Color f{i} = {num} [default = GREEN];")
        elif kind == 3:
            out.append(f"  optional Sub f{i} = {num};")
        else:
            out.append(f"  map<string, {t}> f{i} = {num};")
        num += 1
    # A oneof with many members: one union, one case word.
    out.append("  oneof choice {")
    for i in range(n // 10):
        out.append(f"    {TYPES[i % len(TYPES)]} o{i} = {num};")
        num += 1
    out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"


def big_numbers():
    numbers = [1, 2, 15, 16, 2047, 2048, 18999, 20000, 262143, 262144,
               33554431, 33554432, 268435455, 268435456, 536870910,
               536870911]
    out = ['syntax = "proto2";', "package adv.numbers;", "",
           "message Sparse {"]
    for i, n in enumerate(numbers):
        t = TYPES[i % len(TYPES)]
        label = "repeated" if i % 3 == 0 else "optional"
        out.append(f"  {label} {t} n{n} = {n};")
    out.append("  extensions 100 to 1000;")
    out.append("  extensions 400000000 to 536000000;")
    out.append("}")
    out.append("message Packed {")
    out.append("  repeated int64 a = 536870911 [packed = true];")
    out.append("  repeated sint32 b = 536870910 [packed = true];")
    out.append("  optional Sparse s = 536870909;")
    out.append("  optional group G = 536870908 { optional int32 x = 536870911; }")
    out.append("}")
    out.append("extend Sparse { optional int32 ext_far = 536000000; }")
    return "\n".join(out) + "\n"


def deep_nesting(depth):
    out = ['syntax = "proto3";', "package adv.deep;", ""]
    for d in range(depth):
        pad = "  " * d
        out.append(f"{pad}message L{d} {{")
        out.append(f"{pad}  int32 v{d} = 1;")
        out.append(f"{pad}  L0 root = 2;")
        if d + 1 < depth:
            out.append(f"{pad}  L{d + 1} child = 3;")
        out.append(f"{pad}  enum E{d} {{ Z{d} = 0; }}")
        out.append(f"{pad}  E{d} e = 4;")
    for d in reversed(range(depth)):
        out.append("  " * d + "}")
    return "\n".join(out) + "\n"


def long_names(length):
    def name(prefix):
        return (prefix + "_" + "x" * length)[:length]
    # libprotobuf rejects a package name over 511 characters.
    pkg = ".".join(name(p)[:min(length, 511) // 3 - 1]
                   for p in ("pkga", "pkgb", "pkgc"))
    msg, field, enum, value = name("Msg"), name("field"), name("Enum"), name("V")
    inner = name("Inner")
    out = ['syntax = "proto3";', f"package {pkg};", "",
           f"enum {enum} {{ {value}_ZERO = 0; {value}_ONE = 1; }}",
           f"message {msg} {{",
           f"  int32 {field} = 1;",
           f"  {enum} {field}_e = 2;",
           f"  repeated string {field}_s = 3;",
           f"  message {inner} {{",
           f"    message {inner}2 {{ {msg} {field}_back = 1; }}",
           f"    {inner}2 {field}_in = 1;",
           "  }",
           f"  {inner} {field}_m = 4;",
           f"  map<string, {inner}.{inner}2> {field}_map = 5;",
           f"  oneof {name('choice')} {{ int32 {field}_o1 = 6; string {field}_o2 = 7; }}",
           "}"]
    return "\n".join(out) + "\n"


def many_enum_values(n):
    out = ['syntax = "proto2";', "package adv.enums;", ""]
    out.append("enum Closed {")
    out.append("  option allow_alias = true;")
    for i in range(n):
        # Sparse, negative, and both int32 extremes.
        v = (i * 214013) % 2000000000 - 1000000000
        out.append(f"  C{i} = {v};")
    out.append("  C_MIN = -2147483648;")
    out.append("  C_MAX = 2147483647;")
    out.append("  C_ALIAS = -1000000000;  // the number of C0")
    out.append("}")
    out.append("message UsesClosed {")
    out.append("  optional Closed c = 1 [default = C_MAX];")
    out.append("  repeated Closed cs = 2;")
    out.append("  repeated Closed packed = 3 [packed = true];")
    out.append("}")
    return "\n".join(out) + "\n"


def many_enum_values_open(n):
    out = ['syntax = "proto3";', "package adv.openenums;", "",
           "enum Open {"]
    for i in range(n):
        out.append(f"  O{i} = {i};")
    out.append("}")
    out.append("message UsesOpen { Open o = 1; repeated Open os = 2; }")
    return "\n".join(out) + "\n"


def deep_imports(outdir, n):
    for i in range(n):
        lines = ['syntax = "proto3";', f"package adv.chain{i};"]
        if i:
            lines.append(f'import public "deep_imports_{i - 1:03d}.proto";')
        lines.append(f"message Link{i} {{")
        if i:
            lines.append(f"  adv.chain{i - 1}.Link{i - 1} prev = 1;")
        lines.append(f"  int32 v = 2;")
        lines.append("}")
        write(outdir, f"deep_imports_{i:03d}.proto", "\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--nesting", type=int, default=31,
                    help="depth of deep_nesting.proto (over 31 is an error)")
    ap.add_argument("--only", help="write just this schema, e.g. deep_nesting")
    args = ap.parse_args()
    s = lambda n: max(1, int(n * args.scale))
    os.makedirs(args.outdir, exist_ok=True)
    if args.only == "deep_nesting":
        write(args.outdir, "deep_nesting.proto", deep_nesting(args.nesting))
        return
    write(args.outdir, "many_messages.proto", many_messages(s(5000)))
    write(args.outdir, "many_fields.proto", many_fields(s(2000)))
    write(args.outdir, "big_numbers.proto", big_numbers())
    write(args.outdir, "deep_nesting.proto", deep_nesting(args.nesting))
    write(args.outdir, "long_names.proto", long_names(s(1200)))
    write(args.outdir, "many_enum_values.proto", many_enum_values(s(10000)))
    write(args.outdir, "many_enum_values_open.proto",
          many_enum_values_open(s(10000)))
    deep_imports(args.outdir, s(200))


if __name__ == "__main__":
    main()
