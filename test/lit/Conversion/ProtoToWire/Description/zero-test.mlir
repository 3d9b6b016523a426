// Description.cpp: a field record's last byte, zero_test, is what an
// implicit (proto3) field's member holds that is zero exactly when the field
// is absent: the member's width (1, 4, 8), a view's 16 (its size). The
// encoder's proto3 walk tests it instead of kind and type. Every other kind
// has 0: a proto3 `optional` (BIT), repeated, a message (POINTER).
// RUN: pbc-opt %s -proto-layout -proto-to-wire | FileCheck %s

proto.file "z.proto" package "" proto3 imports []
proto.enum @Z.E file "z.proto" {
  proto.enum_value "ZERO" = 0
}
proto.message @Z file "z.proto" {
  proto.field "b" = 1 : bool implicit
  proto.field "i" = 2 : int32 implicit
  proto.field "f" = 3 : float implicit
  proto.field "l" = 4 : sint64 implicit
  proto.field "d" = 5 : double implicit
  proto.field "s" = 6 : string implicit utf8
  proto.field "y" = 7 : bytes implicit
  proto.field "e" = 8 : enum<@Z.E> implicit
  proto.field "o" = 9 : int32 optional
  proto.field "r" = 10 : int32 repeated packed
  proto.field "m" = 11 : message<@Z> optional
}

// Each record: number, offset, presence, link, then type, kind, flags and
// zero_test.
// CHECK-LABEL: llvm.mlir.global internal constant @pbc__Z_desc_data("
// b: bool (8), IMPLICIT (0), its byte.
// CHECK-SAME: \01\00\00\00p\00\00\00\00\00\00\00\08\00\00\01
// i: int32 (5), 4 bytes.
// CHECK-SAME: \02\00\00\00`\00\00\00\00\00\00\00\05\00\00\04
// f: float (2), its 4 bytes' bits (-0.0f is set).
// CHECK-SAME: \03\00\00\00d\00\00\00\00\00\00\00\02\00\00\04
// l: sint64 (18), 8 bytes.
// CHECK-SAME: \04\00\00\00\08\00\00\00\00\00\00\00\12\00\00\08
// d: double (1), 8 bytes.
// CHECK-SAME: \05\00\00\00\10\00\00\00\00\00\00\00\01\00\00\08
// s: string (9), UTF8 (2), its view's size (16).
// CHECK-SAME: \06\00\00\00\18\00\00\00\00\00\00\00\09\00\02\10
// y: bytes (12), its view's size.
// CHECK-SAME: \07\00\00\00(\00\00\00\00\00\00\00\0C\00\00\10
// e: an open enum (14), 4 bytes.
// CHECK-SAME: \08\00\00\00h\00\00\00\00\00\00\00\0E\00\00\04
// o: proto3 optional, BIT (1): none.
// CHECK-SAME: \09\00\00\00l\00\00\00\00\00\00\00\05\01\00\00
// r: REPEATED (5), PACKED: none.
// CHECK-SAME: \0A\00\00\008\00\00\00\00\00\00\00\05\05\01\00
// m: POINTER (3), link 1: none.
// CHECK-SAME: \0B\00\00\00H\00\00\00\00\00\01\00\0B\03\00\00
