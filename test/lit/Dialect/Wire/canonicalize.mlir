// Wire folds: constant varint sizes and zigzags fold, adjacent constant
// writes merge into one.
// RUN: pbc-opt %s -split-input-file -canonicalize | FileCheck %s

// CHECK-LABEL: llvm.func @sizes
llvm.func @sizes() -> i64 {
  %c127 = arith.constant 127 : i64
  %c128 = arith.constant 128 : i64
  %cmax = arith.constant -1 : i64
  %a = wire.varint_size %c127 : i64
  %b = wire.varint_size %c128 : i64
  %c = wire.varint_size %cmax : i64
  %ab = arith.addi %a, %b : i64
  %abc = arith.addi %ab, %c : i64
  // 1 + 2 + 10
  // CHECK: %[[C:.*]] = arith.constant 13 : i64
  // CHECK-NEXT: llvm.return %[[C]]
  llvm.return %abc : i64
}

// -----

// CHECK-LABEL: llvm.func @zigzag
llvm.func @zigzag() -> i32 {
  %m1 = arith.constant -1 : i32
  %z = wire.zigzag_encode %m1 : i32
  %c5 = arith.constant 5 : i32
  %d = wire.zigzag_decode %c5 : i32
  %r = arith.addi %z, %d : i32
  // zigzag(-1) = 1, unzigzag(5) = -3
  // CHECK: %[[C:.*]] = arith.constant -2 : i32
  // CHECK-NEXT: llvm.return %[[C]]
  llvm.return %r : i32
}

// -----

// Written backwards: the later write lands first in memory.
// CHECK-LABEL: llvm.func @merge
llvm.func @merge(%p: !llvm.ptr) -> !llvm.ptr {
  // CHECK-NEXT: %[[P:.*]] = wire.put_bytes %arg0, "\0A\12\1A"
  // CHECK-NEXT: llvm.return %[[P]]
  %0 = wire.put_bytes %p, "\1A"
  %1 = wire.put_bytes %0, "\12"
  %2 = wire.put_bytes %1, "\0A"
  llvm.return %2 : !llvm.ptr
}

// -----

// A value between two constant writes keeps them apart; the write before
// the varint (its tag) becomes the varint's prefix, so that each of the
// varint's paths stores it.
// CHECK-LABEL: llvm.func @prefix
llvm.func @prefix(%p: !llvm.ptr, %v: i64, %room: i64) -> !llvm.ptr {
  // CHECK-NEXT: %[[A:.*]] = wire.put_bytes %arg0, "\1A"
  // CHECK-NEXT: %[[B:.*]] = wire.put_varint %[[A]], %arg1 room %arg2 prefix "\80\01\08"
  // CHECK-NEXT: llvm.return %[[B]]
  %0 = wire.put_bytes %p, "\1A"
  %1 = wire.put_varint %0, %v room %room
  %2 = wire.put_bytes %1, "\08"
  %3 = wire.put_bytes %2, "\80\01"
  llvm.return %3 : !llvm.ptr
}

// -----

// A varint whose position is used again keeps its writes apart.
// CHECK-LABEL: llvm.func @no_prefix
llvm.func @no_prefix(%p: !llvm.ptr, %v: i64) -> !llvm.struct<(ptr, ptr)> {
  // CHECK: %[[A:.*]] = wire.put_varint %arg0, %arg1{{$}}
  // CHECK-NEXT: %[[B:.*]] = wire.put_bytes %[[A]], "\08"
  // CHECK: llvm.return
  %0 = wire.put_varint %p, %v
  %1 = wire.put_bytes %0, "\08"
  %2 = llvm.mlir.undef : !llvm.struct<(ptr, ptr)>
  %3 = llvm.insertvalue %0, %2[0] : !llvm.struct<(ptr, ptr)>
  %4 = llvm.insertvalue %1, %3[1] : !llvm.struct<(ptr, ptr)>
  llvm.return %4 : !llvm.struct<(ptr, ptr)>
}
