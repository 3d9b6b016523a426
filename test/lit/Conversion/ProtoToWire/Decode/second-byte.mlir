// Decode.cpp: two-byte tags in the first-byte switch and in the chains.
// RUN: pbc-opt %s -proto-layout -proto-to-wire | FileCheck %s

proto.file "a.proto" package "" proto3 imports []
proto.message @M file "a.proto" {
  proto.field "id" = 1 : int32 implicit
  proto.field "sub" = 16 : message<@M> optional
}

// The second byte of a two-byte tag (82 01, field 16): a hit goes to the
// handler's fast entry past both bytes; anything else to the full read.
// CHECK-LABEL: llvm.func @pbc__M_dec(
// CHECK: %[[AFTER:.*]] = llvm.getelementptr inbounds %{{.*}}[1]
// CHECK: llvm.switch %{{.*}} : i32, ^[[READTAG:bb[0-9]+]](%[[P:.*]] : !llvm.ptr) [
// CHECK-NEXT: 8: ^
// CHECK: 130: ^[[SECONDBB:bb[0-9]+]]
// CHECK-NEXT: ]
// The full tag switch takes the whole two-byte tag (16 << 3 | 2 = 130).
// CHECK: llvm.switch %{{.*}} : i32, ^{{bb[0-9]+}} [
// CHECK-NEXT: 8: ^
// CHECK-NEXT: 130: ^[[FULL16:bb[0-9]+]](
// CHECK: ^[[FULL16]](%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr):
// CHECK-NEXT: llvm.icmp "ult"
// CHECK-NEXT: llvm.cond_br %{{.*}}, ^[[FAST16:bb[0-9]+]](
// After field 1, the chain compares both bytes of field 16's tag at once
// and enters its handler past them.
// CHECK: %[[HIT:.*]] = wire.expect_tag %[[NEXT1:.*]], %arg2, "\82\01" unchecked
// CHECK-NEXT: %[[PAST1:.*]] = llvm.getelementptr inbounds %[[NEXT1]][2]
// CHECK-NEXT: llvm.cond_br %[[HIT]], ^[[FAST16]](%[[NEXT1]], %[[PAST1]] : !llvm.ptr, !llvm.ptr), ^
// CHECK: ^[[SECONDBB]]:
// CHECK-NEXT: %[[PAST:.*]] = llvm.getelementptr inbounds %[[P]][2]
// CHECK-NEXT: %[[B1:.*]] = llvm.load %[[AFTER]] : !llvm.ptr -> i8
// CHECK-NEXT: %[[W1:.*]] = arith.extui %[[B1]]
// CHECK-NEXT: llvm.switch %[[W1]] : i32, ^[[READTAG]](%[[P]] : !llvm.ptr) [
// CHECK-NEXT: 1: ^[[FAST16]](%[[P]], %[[PAST]] : !llvm.ptr, !llvm.ptr)
// CHECK-NEXT: ]
// CHECK-LABEL: llvm.func @M_decode(
