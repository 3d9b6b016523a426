// Decode.cpp: a field's `followed_by` (a profile's order) is the tag its
// in-order chain expects next, after the field itself when repeated;
// without one, the next field by number.
// RUN: pbc-opt %s -proto-layout -proto-to-wire | FileCheck %s

proto.file "a.proto" package "" proto2 imports []
proto.message @M file "a.proto" {
  proto.field "a" = 1 : int32 optional followed_by 3
  proto.field "b" = 2 : int32 optional
  proto.field "c" = 3 : int32 repeated followed_by 1
  proto.field "d" = 4 : int32 optional
}
// CHECK-LABEL: llvm.func @pbc__M_dec(
// a's chain: field 3's tag (0x18), not field 2's (0x10).
// CHECK: wire.expect_tag %{{.*}}, %{{.*}}, "\18" unchecked
// CHECK-NOT: wire.expect_tag
// b's: field 3's, the next by number.
// CHECK: wire.expect_tag %{{.*}}, %{{.*}}, "\18" unchecked
// CHECK-NOT: wire.expect_tag
// c's, after an element and after a packed run: itself again, then field
// 1 (0x08), not field 4 (0x20).
// CHECK: wire.expect_tag %{{.*}}, %{{.*}}, "\18" unchecked
// CHECK-NEXT: llvm.getelementptr
// CHECK-NEXT: llvm.cond_br
// CHECK-NEXT: ^bb{{[0-9]+}}:
// CHECK-NEXT: wire.expect_tag %{{.*}}, %{{.*}}, "\08" unchecked
// CHECK-NOT: wire.expect_tag
// CHECK: wire.expect_tag %{{.*}}, %{{.*}}, "\18" unchecked
// CHECK-NEXT: llvm.getelementptr
// CHECK-NEXT: llvm.cond_br
// CHECK-NEXT: ^bb{{[0-9]+}}:
// CHECK-NEXT: wire.expect_tag %{{.*}}, %{{.*}}, "\08" unchecked
// d's: none (the last field).
// CHECK-NOT: wire.expect_tag
// CHECK: llvm.func @M_decode(
