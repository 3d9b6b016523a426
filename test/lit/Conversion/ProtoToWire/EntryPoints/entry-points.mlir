// EntryPoints.cpp: T_decode, T_merge_decode, T_encode, T_encode_at_end and T_write hand
// the message's own functions to the runtime, which does the bookkeeping.
// RUN: pbc-opt %s -split-input-file -proto-layout -proto-to-wire | FileCheck %s

proto.file "a.proto" package "" proto3 imports []
proto.message @M file "a.proto" {
  proto.field "id" = 1 : int32 implicit
}

// T_decode: the arena, the decoder state and the required-field check are
// pbc_rt_decode's, given T_init, the decoder and T_is_initialized.
// CHECK-LABEL: llvm.func @M_decode(
// CHECK-NEXT: %[[INIT:.*]] = llvm.mlir.addressof @M_init : !llvm.ptr
// CHECK-NEXT: %[[DEC:.*]] = llvm.mlir.addressof @pbc__M_dec : !llvm.ptr
// CHECK-NEXT: %[[ISINIT:.*]] = llvm.mlir.addressof @M_is_initialized : !llvm.ptr
// CHECK: llvm.call @pbc_rt_decode(
// CHECK-SAME: %arg0, %arg1, %arg2, %arg3, %[[INIT]], %[[DEC]], %[[ISINIT]])
// CHECK-NEXT: llvm.return
// T_merge_decode: the same decoder and check; instead of T_init, the
// description, through which pbc_rt_merge_decode first moves the message's
// structure into the arena.
// CHECK-LABEL: llvm.func @M_merge_decode(
// CHECK-SAME: %arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: !llvm.ptr) -> i32
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__M_desc : !llvm.ptr
// CHECK-NEXT: %[[DEC:.*]] = llvm.mlir.addressof @pbc__M_dec : !llvm.ptr
// CHECK-NEXT: %[[ISINIT:.*]] = llvm.mlir.addressof @M_is_initialized : !llvm.ptr
// CHECK-NEXT: %[[ST:.*]] = llvm.call @pbc_rt_merge_decode(
// CHECK-SAME: %arg0, %arg1, %arg2, %arg3, %[[DESC]], %[[DEC]], %[[ISINIT]])
// CHECK-NEXT: llvm.return %[[ST]] : i32
// T_encode: pbc_rt_encode runs the backwards encoder and moves the bytes to
// the front; T_encoded_size only tells a too-small buffer what it needs.
// CHECK-LABEL: llvm.func @M_encode(
// CHECK-NEXT: %[[SIZE:.*]] = llvm.mlir.addressof @M_encoded_size : !llvm.ptr
// CHECK-NEXT: %[[ENC:.*]] = llvm.mlir.addressof @pbc__M_enc : !llvm.ptr
// CHECK: llvm.call @pbc_rt_encode(
// CHECK-SAME: %arg0, %arg1, %arg2, %arg3, %[[SIZE]], %[[ENC]])
// CHECK-NEXT: llvm.return
// T_encode_at_end: the same walk, the start handed back (%arg3), no move.
// CHECK-LABEL: llvm.func @M_encode_at_end(
// CHECK-SAME: %arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: !llvm.ptr, %arg4: !llvm.ptr) -> i32
// CHECK-NEXT: %[[SIZE:.*]] = llvm.mlir.addressof @M_encoded_size : !llvm.ptr
// CHECK-NEXT: %[[ENC:.*]] = llvm.mlir.addressof @pbc__M_enc : !llvm.ptr
// CHECK-NEXT: %[[ST:.*]] = llvm.call @pbc_rt_encode_at_end(
// CHECK-SAME: %arg0, %arg1, %arg2, %arg3, %arg4, %[[SIZE]], %[[ENC]])
// CHECK-NEXT: llvm.return %[[ST]] : i32

// -----

// T_decode hands T_is_initialized to the runtime.
proto.file "r.proto" package "" proto2 imports []
proto.message @R file "r.proto" {
  proto.field "a" = 1 : int32 required
}

// CHECK-LABEL: llvm.func @R_decode(
// CHECK: %[[CHECK:.*]] = llvm.mlir.addressof @R_is_initialized
// CHECK: llvm.call @pbc_rt_decode({{.*}}, %[[CHECK]])

// -----

// T_write: size once, then pbc__T_wr (Write.cpp) writes into the writer;
// the status is the writer's.
proto.file "w.proto" package "" proto3 imports []
proto.message @W file "w.proto" {
  proto.field "id" = 1 : int32 implicit
}

// CHECK-LABEL: llvm.func @W_write(%arg0: !llvm.ptr, %arg1: !llvm.ptr) -> i32
// CHECK: %[[SIZE:.*]] = llvm.call @W_encoded_size(%arg0)
// CHECK: llvm.call @pbc__W_wr(%arg0, %arg1, %[[SIZE]])
// CHECK: %[[ST:.*]] = llvm.call @pbc_writer_status(%arg1)
// CHECK: llvm.return %[[ST]] : i32
