// Size.cpp: T_encoded_size sums the repeated fields behind one test of their OR-ed
// counts: a message whose repeated fields are all empty skips them (and
// their loops) with one branch. A lone repeated field needs no OR.
// RUN: pbc-opt %s -proto-layout -proto-to-wire | FileCheck %s

proto.file "r.proto" package "" proto2 imports []
proto.message @R file "r.proto" {
  proto.field "a" = 1 : int32 repeated
  proto.field "n" = 2 : int32 optional
  proto.field "s" = 3 : string repeated
  proto.field "sub" = 4 : message<@R> optional
  proto.field "d" = 5 : double repeated
}
proto.message @One file "r.proto" {
  proto.field "a" = 1 : int32 repeated
}

// CHECK-LABEL: llvm.func @R_encoded_size(
// The sub-message comes before the repeated fields, out of declaration
// order (a sum: the order does not matter).
// CHECK: llvm.call @R_encoded_size(
// CHECK: %[[NA:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK: %[[NS:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK: %[[OR1:.*]] = arith.ori %[[NA]], %[[NS]] : i64
// CHECK: %[[ND:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK: %[[OR2:.*]] = arith.ori %[[OR1]], %[[ND]] : i64
// CHECK: %[[ANY:.*]] = arith.cmpi ne, %[[OR2]], %c0_i64
// CHECK: scf.if %[[ANY]] -> (i64) {
// a (int32 varints) and s (strings): a loop each; d (doubles): 8 bytes
// and a 1-byte tag each, no loop.
// CHECK: scf.for
// CHECK: wire.varint_size
// CHECK: scf.for
// CHECK: wire.varint_size
// CHECK: arith.muli %{{.*}}, %c8_i64
// CHECK: } else {
// CHECK-NEXT: scf.yield %{{.*}} : i64
// CHECK: llvm.return

// CHECK-LABEL: llvm.func @One_encoded_size(
// CHECK-NOT: arith.ori
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK: llvm.return
