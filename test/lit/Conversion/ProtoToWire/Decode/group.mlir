// A group's decoder ends on its END_GROUP in the first-byte switch: the
// byte of (number << 3 | 4) compares the group number it was called with
// and returns past the tag; any other group number (or a top-level
// decode, group 0) goes to the full tag read, which reports the error.
// RUN: pbc-opt %s -proto-layout -proto-to-wire | FileCheck %s

proto.file "g.proto" package "" proto2 imports []
proto.message @Outer file "g.proto" {
  proto.field "g" = 2 : group<@Outer.G> optional
}
proto.message @Outer.G file "g.proto" {
  proto.field "a" = 1 : int32 optional
}

// The message holding the group has no END_GROUP case of its own.
// CHECK-LABEL: llvm.func @pbc__Outer_dec(
// CHECK: llvm.switch %{{.*}} : i32, ^{{bb[0-9]+}}(%{{.*}} : !llvm.ptr) [
// CHECK-NEXT: 19: ^
// CHECK-NEXT: ]

// CHECK-LABEL: llvm.func @pbc__Outer_G_dec(
// CHECK: llvm.switch %{{.*}} : i32, ^[[READTAG:bb[0-9]+]](%[[P:.*]] : !llvm.ptr) [
// CHECK-NEXT: 8: ^{{bb[0-9]+}}(
// CHECK-NEXT: 20: ^[[END:bb[0-9]+]]
// CHECK-NEXT: ]
// CHECK: ^[[END]]:
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[MINE:.*]] = arith.cmpi eq, %arg4, %[[TWO]] : i32
// CHECK-NEXT: llvm.cond_br %[[MINE]], ^{{bb[0-9]+}}(%{{.*}} : !llvm.ptr), ^[[READTAG]](%[[P]] : !llvm.ptr)
