// Presence bits tested a run at a time in the encoder: a run none of whose
// fields is set costs one test (T_encoded_size's groups:
// Size/presence-groups.mlir).
// RUN: pbc-opt %s -split-input-file -proto-layout -proto-to-wire | FileCheck %s

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

// The encoder, highest field first: fields 9, 8, 7 (bits 8, 7, 6 = 448)
// are skipped together when none is set, before their room check; the
// string breaks the run; then fields 5 to 1 (bits 4-0 = 31).
// CHECK-LABEL: llvm.func @pbc__P_enc(
// CHECK: %[[W1:.*]] = llvm.load %arg0 : !llvm.ptr -> i32
// CHECK: %[[RUN1:.*]] = arith.andi %[[W1]], %c448_i32
// CHECK: %[[ANY1:.*]] = arith.cmpi ne, %[[RUN1]], %c0_i32
// CHECK: llvm.cond_br %[[ANY1]], ^[[RUN1BB:bb[0-9]+]], ^[[AFTER1:bb[0-9]+]](
// CHECK: ^[[RUN1BB]]:
// CHECK: %[[ROOMY:.*]] = arith.cmpi sge, %{{.*}}, %c31_i64
// CHECK: llvm.cond_br %[[ROOMY]]
// Each varint (the uint32, field 9, and the int64, field 8) takes the bytes
// free below it where it is written: with enough, a long value is one word.
// No value from the room check lives across the run.
// CHECK: %[[ROOM9:.*]] = arith.subi
// CHECK: %[[P9:.*]] = wire.put_varint %{{.*}}, %{{.*}} room %[[ROOM9]]
// CHECK-NEXT: wire.put_bytes %[[P9]], "H"
// CHECK: %[[ROOM8:.*]] = arith.subi
// CHECK: %[[P8:.*]] = wire.put_varint %{{.*}}, %{{.*}} room %[[ROOM8]]
// CHECK-NEXT: wire.put_bytes %[[P8]], "@"
// The double (field 7) has no varint to spill.
// CHECK: wire.put_fixed %{{.*}} : f64
// CHECK-NEXT: wire.put_bytes %{{.*}}, "9"
// CHECK: %[[RUN2:.*]] = arith.andi %{{.*}}, %c31_i32
// CHECK: %[[ANY2:.*]] = arith.cmpi ne, %[[RUN2]], %c0_i32
// CHECK: llvm.cond_br %[[ANY2]]
// A bool is written as 0 or 1, whatever byte the struct holds.
// CHECK: %[[B1SET:.*]] = arith.cmpi ne, %{{.*}}, %c0_i8 : i8
// CHECK: %[[B1V:.*]] = arith.extui %[[B1SET]] : i1 to i64
// CHECK: wire.put_varint %{{.*}}, %[[B1V]]
// CHECK: wire.put_bytes %{{.*}}, "\08"
// The last write branches to the return, which is printed before the
// fields' blocks.
// CHECK-NEXT: llvm.br
// CHECK-LABEL: llvm.func @pbc__P_wr(

// -----

proto.file "g.proto" package "" proto2 imports []
proto.message @L file "g.proto" {
  proto.field "a" = 1 : int32 optional
  proto.field "s" = 2 : string optional
  proto.field "b" = 3 : int64 optional
}

// A lone field with a presence bit (b, between the unknown fields and the
// string) is tested before its room check: absent, it costs the test alone.
// CHECK-LABEL: llvm.func @pbc__L_enc(
// CHECK: %[[LW:.*]] = llvm.load %arg0 : !llvm.ptr -> i32
// CHECK: %[[LB:.*]] = arith.andi %[[LW]], %c4_i32
// CHECK: %[[HASB:.*]] = arith.cmpi ne, %[[LB]], %c0_i32
// CHECK: llvm.cond_br %[[HASB]], ^[[BBB:bb[0-9]+]], ^{{bb[0-9]+}}(
// CHECK: ^[[BBB]]:
// CHECK: %[[C11:.*]] = arith.constant 11 : i64
// CHECK: arith.cmpi sge, %{{.*}}, %[[C11]]
// CHECK-LABEL: llvm.func @pbc__L_wr(
