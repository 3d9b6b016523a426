// proto-select-tiers on a profiled schema: the files without an
// optimize_for option go message by message. The hot messages (at least
// 1/1000 of the 17,003 reads: not C's 3), hottest first, are specialized
// while their estimated code fits the budget (A: 3,072 + 1,408 = 4,480;
// B: 3,072 + 4 * 1,408 = 8,704); the rest are compact, D (never seen)
// too. A file's option still wins, and the command line over it.
// RUN: pbc-opt %s -proto-select-tiers | FileCheck %s
// RUN: pbc-opt %s -proto-select-tiers="code-budget=10000" | FileCheck %s --check-prefix=TIGHT
// RUN: pbc-opt %s -proto-select-tiers="optimize-for=speed" | FileCheck %s --check-prefix=SPEED

// CHECK-LABEL: proto.message @p.A file "plain.proto" tier specialized profile 5000
// CHECK-LABEL: proto.message @p.B file "plain.proto" tier specialized profile 3000
// CHECK-LABEL: proto.message @p.C file "plain.proto" tier compact profile 3
// CHECK-LABEL: proto.message @p.D file "plain.proto" tier compact profile 0
// CHECK-LABEL: proto.message @f.E file "fast.proto" tier specialized profile 0
// CHECK-LABEL: proto.message @s.F file "small.proto" tier compact profile 9000
// B no longer fits once A, the hotter, took its share.
// TIGHT-LABEL: proto.message @p.A file "plain.proto" tier specialized
// TIGHT-LABEL: proto.message @p.B file "plain.proto" tier compact
// TIGHT-LABEL: proto.message @p.C file "plain.proto" tier compact
// TIGHT-LABEL: proto.message @p.D file "plain.proto" tier compact
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
proto.message @p.C file "plain.proto" profile 3 {
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
