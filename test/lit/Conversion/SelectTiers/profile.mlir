// proto-select-tiers on a profiled schema: the files without an
// optimize_for option go message by message. The hottest, until together
// they hold 99.9% of those files' 8,005 reads (A and B: 8,000), are
// specialized, whatever the code budget; the rest are compact: C (5
// reads) and D (never seen). A file's option still wins (E, F), and
// the command line over it.
// RUN: pbc-opt %s -proto-select-tiers | FileCheck %s
// RUN: pbc-opt %s -proto-select-tiers="code-budget=0" | FileCheck %s
// RUN: pbc-opt %s -proto-select-tiers="optimize-for=speed" | FileCheck %s --check-prefix=SPEED

// CHECK-LABEL: proto.message @p.A file "plain.proto" tier specialized profile 5000
// CHECK-LABEL: proto.message @p.B file "plain.proto" tier specialized profile 3000
// CHECK-LABEL: proto.message @p.C file "plain.proto" tier compact profile 5
// CHECK-LABEL: proto.message @p.D file "plain.proto" tier compact profile 0
// CHECK-LABEL: proto.message @f.E file "fast.proto" tier specialized profile 0
// CHECK-LABEL: proto.message @s.F file "small.proto" tier compact profile 9000
// SPEED-COUNT-6: tier specialized
proto.file "plain.proto" package "p" proto2 imports []
proto.file "fast.proto" package "f" proto2 optimize_for speed imports []
proto.file "small.proto" package "s" proto2 optimize_for code_size imports []
proto.message @p.A file "plain.proto" profile 5000 {
  proto.field "x" = 1 : int32 optional
}
proto.message @p.B file "plain.proto" profile 3000 {
  proto.field "a" = 1 : int32 optional
  proto.field "b" = 2 : int32 optional
  proto.field "c" = 3 : int32 optional
  proto.field "d" = 4 : int32 optional
}
proto.message @p.C file "plain.proto" profile 5 {
  proto.field "x" = 1 : int32 optional
}
proto.message @p.D file "plain.proto" profile 0 {
  proto.field "x" = 1 : int32 optional
}
proto.message @f.E file "fast.proto" profile 0 {
  proto.field "x" = 1 : int32 optional
}
proto.message @s.F file "small.proto" profile 9000 {
  proto.field "x" = 1 : int32 optional
}
