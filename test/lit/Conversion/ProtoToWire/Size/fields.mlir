// Size.cpp: T_encoded_size, field by field.
// RUN: pbc-opt %s -proto-to-wire | FileCheck %s

proto.file "a.proto" package "" proto3 imports []
proto.message @M file "a.proto" attributes {align = 8 : i64, presence_words = 1 : i64, size = 64 : i64, unknown_offset = 48 : i64} {
  proto.field "id" = 1 : int32 implicit {offset = 40 : i64}
  proto.field "name" = 2 : string implicit utf8 {offset = 8 : i64}
  proto.field "vals" = 3 : sint32 repeated packed {offset = 24 : i64}
  proto.field "sub" = 16 : message<@M> optional {offset = 0 : i64}
  proto.field "x" = 4 : fixed64 optional {offset = 32 : i64, presence_bit = 0 : i32}
}

// The size adds each field's size under a branch on its presence, so an
// absent field costs a test (presence-bit groups: presence-groups.mlir).
// CHECK-LABEL: llvm.func @M_encoded_size(
// The unknown fields' size starts the sum.
// CHECK: %[[UNK:.*]] = llvm.getelementptr inbounds %arg0[48]
// CHECK: %[[UNKSIZE:.*]] = llvm.getelementptr inbounds %[[UNK]][8]
// CHECK: %[[TOTAL0:.*]] = llvm.load %[[UNKSIZE]] : !llvm.ptr -> i64
// x (fixed64, presence bit 0): a constant 9 bytes with its tag.
// CHECK: %[[WORD:.*]] = llvm.load %arg0 : !llvm.ptr -> i32
// CHECK: %[[XBIT:.*]] = arith.andi %[[WORD]], %c1_i32
// CHECK: %[[HASX:.*]] = arith.cmpi ne, %[[XBIT]]
// CHECK: %[[TOTAL1:.*]] = scf.if %[[HASX]] -> (i64) {
// CHECK: arith.addi %[[TOTAL0]], %c9_i64
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[TOTAL0]]
// id (proto3 implicit presence): written when not zero; its varint size
// is computed only then, and the 1-byte tag is a constant.
// CHECK: %[[ID:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK: %[[NZ:.*]] = arith.cmpi ne, %[[ID]]
// CHECK: scf.if %[[NZ]] -> (i64) {
// CHECK: %[[WIDE:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK: %[[VS:.*]] = wire.varint_size %[[WIDE]] : i64
// CHECK: %[[WITHTAG:.*]] = arith.addi %[[VS]], %c1_i64
// CHECK: arith.addi %[[TOTAL1]], %[[WITHTAG]]
// The sub-message, then the repeated fields (summed last, see
// repeated.mlir). Packed: one size over the run, zigzag folded into the
// element size.
// CHECK: llvm.call @M_encoded_size(
// CHECK: scf.for
// CHECK: wire.zigzag_encode
// CHECK: wire.varint_size
// CHECK-LABEL: llvm.func @pbc__M_enc(
