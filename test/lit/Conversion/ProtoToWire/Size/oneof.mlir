// Size.cpp: oneof members in T_encoded_size.
// RUN: pbc-opt %s -proto-layout -proto-to-wire | FileCheck %s

proto.file "o.proto" package "" proto2 imports []
proto.message @O file "o.proto" {
  proto.oneof "kind" {
    proto.field "num" = 1 : int32 optional
    proto.field "sub" = 2 : message<@O> optional
  }
}

// Size: a oneof member counts when the case is its number (zero included),
// and its size is computed only then.
// CHECK-LABEL: llvm.func @O_encoded_size(
// CHECK: %[[CASEADDR:.*]] = llvm.getelementptr inbounds %arg0[24]
// CHECK: %[[CASE:.*]] = llvm.load %[[CASEADDR]] : !llvm.ptr -> i32
// CHECK: %[[IS1:.*]] = arith.cmpi eq, %[[CASE]], %c1_i32
// CHECK: scf.if %[[IS1]] -> (i64) {
// CHECK-NEXT: %[[NUM:.*]] = llvm.load %arg0 : !llvm.ptr -> i32
// CHECK-NEXT: %[[WIDE:.*]] = arith.extsi %[[NUM]] : i32 to i64
// CHECK: wire.varint_size
// CHECK-SAME: %[[WIDE]]
// CHECK: } else {
// A message member counts when its pointer is set and the case is its
// number: the union may hold another member's bits.
// CHECK: %[[SUBPTR:.*]] = llvm.load %arg0 : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: %[[SET:.*]] = llvm.icmp "ne" %[[SUBPTR]], %[[NULL]] : !llvm.ptr
// CHECK-NEXT: %[[CASEADDR2:.*]] = llvm.getelementptr inbounds %arg0[24]
// CHECK-NEXT: %[[CASE2:.*]] = llvm.load %[[CASEADDR2]] : !llvm.ptr -> i32
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[IS2:.*]] = arith.cmpi eq, %[[CASE2]], %[[TWO]] : i32
// CHECK-NEXT: %[[BOTH:.*]] = arith.andi %[[SET]], %[[IS2]] : i1
// CHECK-NEXT: scf.if %[[BOTH]] -> (i64) {
// CHECK-NEXT: llvm.call @O_encoded_size(%[[SUBPTR]])
// CHECK-LABEL: llvm.func @pbc__O_enc(
