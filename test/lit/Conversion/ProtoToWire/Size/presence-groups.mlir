// Presence bits tested a group at a time in T_encoded_size: a group none
// of whose fields is set costs one test (the encoder's runs:
// Encode/presence-runs.mlir).
// RUN: pbc-opt %s -proto-layout -proto-to-wire | FileCheck %s

proto.file "g.proto" package "" proto2 imports []
proto.message @P file "g.proto" {
  proto.field "b1" = 1 : bool optional
  proto.field "b2" = 2 : bool optional
  proto.field "b3" = 3 : bool optional
  proto.field "n" = 4 : int32 optional
  proto.field "f" = 5 : fixed32 optional
  proto.field "s" = 6 : string optional
  proto.field "d" = 7 : double optional
  proto.field "l" = 8 : int64 optional
  proto.field "m" = 9 : uint32 optional
}

// Bits 0-7 (fields 1-8) are one group, bit 8 (field 9) another.
// CHECK-LABEL: llvm.func @P_encoded_size(
// CHECK: %[[TOTAL0:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK: %[[WORD:.*]] = llvm.load %arg0 : !llvm.ptr -> i32
// CHECK: %[[GROUP:.*]] = arith.andi %[[WORD]], %c255_i32
// CHECK: %[[ANY:.*]] = arith.cmpi ne, %[[GROUP]], %c0_i32
// CHECK: %[[TOTAL1:.*]] = scf.if %[[ANY]] -> (i64) {
// The three bools take 2 bytes each with their tags: a popcount of their
// bits (0-2), no branch.
// CHECK: %[[BOOLBITS:.*]] = arith.andi %[[WORD]], %c7_i32
// CHECK: %[[NBOOLS:.*]] = llvm.intr.ctpop(%[[BOOLBITS]]) : (i32) -> i32
// CHECK: %[[NBOOLS64:.*]] = arith.extui %[[NBOOLS]] : i32 to i64
// CHECK: %[[BOOLBYTES:.*]] = arith.muli %[[NBOOLS64]], %c2_i64
// CHECK: %[[T:.*]] = arith.addi %[[TOTAL0]], %[[BOOLBYTES]]
// The fixed32 (bit 4) and the double (bit 6): constants, tags folded in.
// CHECK: arith.andi %[[WORD]], %c16_i32
// CHECK: scf.if
// CHECK: arith.addi %[[T]], %c5_i64
// CHECK: arith.andi %[[WORD]], %c64_i32
// CHECK: scf.if
// CHECK: arith.addi %{{.*}}, %c9_i64
// The int32 (bit 3): its varint size, only when set.
// CHECK: arith.andi %[[WORD]], %c8_i32
// CHECK: scf.if
// CHECK: %[[N:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK: %[[NWIDE:.*]] = arith.extsi %[[N]] : i32 to i64
// CHECK: wire.varint_size %[[NWIDE]] : i64
// The string (bit 5): its length's size plus its length.
// CHECK: arith.andi %[[WORD]], %c32_i32
// CHECK: scf.if
// CHECK: wire.varint_size
// The int64 (bit 7).
// CHECK: arith.andi %[[WORD]], %c128_i32
// CHECK: scf.if
// CHECK: wire.varint_size
// Nothing in the group: the total so far.
// CHECK: scf.yield %[[TOTAL0]] : i64
// The second group has one field: its bit alone.
// CHECK: arith.andi %{{.*}}, %c256_i32
// CHECK: scf.if
// CHECK: arith.addi %[[TOTAL1]], %{{.*}}
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @pbc__P_enc(
