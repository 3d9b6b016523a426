// wire-to-llvm, Sizes.cpp: varint sizes and zigzag, branch-free.
// RUN: pbc-opt %s -split-input-file -wire-to-llvm | FileCheck %s

// Branch-free varint size: the entry of the highest set bit of v | 1
// (63 - ctlz, as an xor) in the module's one table of sizes, @pbc.varint_size
// (1 for bits 0-6, 2 for 7-13, ... 10 for 63), made at the module's end on the
// first use and shared by the later ones; an i32 is zero-extended first.
// CHECK-LABEL: llvm.func @varint_size
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: %[[OR:.*]] = llvm.or %arg0, %[[ONE]] : i64
// CHECK-NEXT: %[[LZ:.*]] = "llvm.intr.ctlz"(%[[OR]]) <{is_zero_poison = true}> : (i64) -> i64
// CHECK-NEXT: %[[C63:.*]] = llvm.mlir.constant(63 : i64) : i64
// CHECK-NEXT: %[[BIT:.*]] = llvm.xor %[[LZ]], %[[C63]] : i64
// CHECK-NEXT: %[[TABLE:.*]] = llvm.mlir.addressof @pbc.varint_size : !llvm.ptr
// CHECK-NEXT: %[[ENTRY:.*]] = llvm.getelementptr inbounds %[[TABLE]][%[[BIT]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT: %[[SIZE:.*]] = llvm.load %[[ENTRY]] : !llvm.ptr -> i8
// CHECK-NEXT: %[[WIDE:.*]] = llvm.zext %[[SIZE]] : i8 to i64
// CHECK-NEXT: llvm.return %[[WIDE]] : i64
// CHECK-LABEL: llvm.func @varint_size32
// CHECK-NEXT: %[[V:.*]] = llvm.zext %arg0 : i32 to i64
// CHECK: llvm.mlir.addressof @pbc.varint_size
// CHECK: llvm.mlir.addressof @pbc.varint_size
// CHECK-NOT: llvm.cond_br
// CHECK: llvm.mlir.global internal constant @pbc.varint_size(dense<[1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 10]> : tensor<64xi8>)
// CHECK-NOT: @pbc.varint_size(
llvm.func @varint_size(%v: i64) -> i64 {
  %s = wire.varint_size %v : i64
  llvm.return %s : i64
}
llvm.func @varint_size32(%v: i32) -> i64 {
  %s = wire.varint_size %v : i32
  %t = wire.varint_size %v : i32
  %u = llvm.add %s, %t : i64
  llvm.return %u : i64
}

// -----

// Zigzag, both ways, branch-free at the value's own width:
// encode (n << 1) ^ (n >> (bits - 1)), decode (n >> 1) ^ -(n & 1).
// CHECK-LABEL: llvm.func @zigzag_encode
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[SHL:.*]] = llvm.shl %arg0, %[[ONE]] : i32
// CHECK-NEXT: %[[C31:.*]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-NEXT: %[[SIGN:.*]] = llvm.ashr %arg0, %[[C31]] : i32
// CHECK-NEXT: llvm.xor %[[SHL]], %[[SIGN]] : i32
// CHECK-NEXT: %[[ONE64:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: %[[SHL64:.*]] = llvm.shl %arg1, %[[ONE64]] : i64
// CHECK-NEXT: %[[C63:.*]] = llvm.mlir.constant(63 : i64) : i64
// CHECK-NEXT: %[[SIGN64:.*]] = llvm.ashr %arg1, %[[C63]] : i64
// CHECK-NEXT: %[[Z:.*]] = llvm.xor %[[SHL64]], %[[SIGN64]] : i64
// CHECK-NEXT: llvm.return %[[Z]]
llvm.func @zigzag_encode(%a: i32, %b: i64) -> i64 {
  %0 = wire.zigzag_encode %a : i32
  %1 = wire.zigzag_encode %b : i64
  llvm.return %1 : i64
}

// -----

// CHECK-LABEL: llvm.func @zigzag_decode
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[HALF:.*]] = llvm.lshr %arg0, %[[ONE]] : i32
// CHECK-NEXT: %[[ONEB:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[LOW:.*]] = llvm.and %arg0, %[[ONEB]] : i32
// CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[NEG:.*]] = llvm.sub %[[ZERO]], %[[LOW]] : i32
// CHECK-NEXT: llvm.xor %[[HALF]], %[[NEG]] : i32
// CHECK-NEXT: %[[ONE64:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: %[[HALF64:.*]] = llvm.lshr %arg1, %[[ONE64]] : i64
// CHECK-NEXT: %[[ONEB64:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: %[[LOW64:.*]] = llvm.and %arg1, %[[ONEB64]] : i64
// CHECK-NEXT: %[[ZERO64:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT: %[[NEG64:.*]] = llvm.sub %[[ZERO64]], %[[LOW64]] : i64
// CHECK-NEXT: %[[V:.*]] = llvm.xor %[[HALF64]], %[[NEG64]] : i64
// CHECK-NEXT: llvm.return %[[V]]
llvm.func @zigzag_decode(%a: i32, %b: i64) -> i64 {
  %0 = wire.zigzag_decode %a : i32
  %1 = wire.zigzag_decode %b : i64
  llvm.return %1 : i64
}
