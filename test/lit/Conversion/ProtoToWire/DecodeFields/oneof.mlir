// DecodeFields.cpp: oneof members in pbc__T_dec.
// RUN: pbc-opt %s -proto-layout -proto-to-wire | FileCheck %s

proto.file "o.proto" package "" proto2 imports []
proto.message @O file "o.proto" {
  proto.oneof "kind" {
    proto.field "num" = 1 : int32 optional
    proto.field "sub" = 2 : message<@O> optional
  }
}

// Decode: a oneof member sets the case; a message member merges only into
// the message the case names.
// CHECK-LABEL: llvm.func @pbc__O_dec(
// CHECK-NEXT: %[[DEC:.*]] = wire.decoder %arg3
// CHECK: wire.get_varint
// CHECK: llvm.store %{{.*}}, %[[NUMADDR:.*]] : i32, !llvm.ptr
// CHECK-NEXT: %[[CASEADDR:.*]] = llvm.getelementptr inbounds %arg0[24]
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: llvm.store %[[C1]], %[[CASEADDR]] : i32, !llvm.ptr
// CHECK: wire.get_length
// CHECK: %[[EXISTING:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[IS2:.*]] = arith.cmpi eq, %{{.*}}, %c2_i32
// CHECK-NEXT: arith.select %[[IS2]], %[[EXISTING]], %[[NULL]] : !llvm.ptr
// Allocated and initialized on first sight; the case is set either way.
// CHECK: wire.alloc %[[DEC]], 32
// CHECK: llvm.call @O_init(
// CHECK: ^{{bb[0-9]+}}(%[[SUB:.*]]: !llvm.ptr):
// CHECK-NEXT: %[[CASEADDR2:.*]] = llvm.getelementptr inbounds %arg0[24]
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT: llvm.store %[[C2]], %[[CASEADDR2]] : i32, !llvm.ptr
// CHECK-NEXT: wire.push %[[DEC]]
// CHECK-LABEL: llvm.func @O_decode(
