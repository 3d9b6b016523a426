// wire-to-llvm, RuntimeCalls.cpp: the ops that are one runtime call, and
// the decoder and writer states.
// RUN: pbc-opt %s -split-input-file -wire-to-llvm | FileCheck %s

// Runtime calls, attributes passed as constants.
// CHECK-LABEL: llvm.func @runtime_calls
// CHECK: llvm.call @pbc_rt_skip(%arg0, %arg1, %arg2, %arg3)
// CHECK: llvm.call @pbc_rt_utf8_valid(%arg1, %{{.*}})
// CHECK: llvm.call @pbc_rt_push(%arg0)
// CHECK: llvm.call @pbc_rt_pop(%arg0)
// CHECK: %[[SZ:.*]] = llvm.mlir.constant(48 : i64)
// CHECK: llvm.call @pbc_rt_alloc(%arg0, %[[SZ]])
// CHECK: %[[ES:.*]] = llvm.mlir.constant(16 : i64)
// CHECK: llvm.call @pbc_rt_grow(%arg0, %arg1, %{{.*}}, %{{.*}}, %[[ES]])
// CHECK: %[[ST:.*]] = llvm.mlir.constant(7 : i32)
// CHECK: llvm.call @pbc_rt_fail(%arg0, %[[ST]])
llvm.func @runtime_calls(%state: !llvm.ptr, %p: !llvm.ptr, %end: !llvm.ptr, %tag: i32) {
  %d = wire.decoder %state
  %0 = wire.skip %d, %p, %end, %tag
  %n = llvm.mlir.constant(3 : i64) : i64
  %1 = wire.utf8_valid %p, %n
  %2 = wire.push %d
  wire.pop %d
  %3 = wire.alloc %d, 48
  %4 = wire.grow %d, %p, %n, %n, 16
  %5 = wire.fail %d, 7
  llvm.return
}

// -----

// wire.read_limit, min(end, input end - 16), is the runtime's: below it
// a decoder reads with no bounds check (Decode/get.mlir).
// CHECK-LABEL: llvm.func @read_limit
// CHECK: llvm.call @pbc_rt_read_limit(%arg0, %arg1)
llvm.func @read_limit(%state: !llvm.ptr, %end: !llvm.ptr) -> !llvm.ptr {
  %d = wire.decoder %state
  %0 = wire.read_limit %d, %end
  llvm.return %0 : !llvm.ptr
}

// -----

// The other decoding calls: operands in the runtime's order, the field
// number a constant.
// CHECK-LABEL: llvm.func @more_calls
// CHECK-NEXT: llvm.call @pbc_rt_count_varints(%arg1, %arg2) : (!llvm.ptr, !llvm.ptr) -> i64
// CHECK-NEXT: llvm.call @pbc_rt_keep_unknown(%arg0, %arg4, %arg1, %arg2) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i1
// CHECK-NEXT: %[[NUMBER:.*]] = llvm.mlir.constant(7 : i32) : i32
// CHECK-NEXT: llvm.call @pbc_rt_keep_unknown_varint(%arg0, %arg4, %arg3, %[[NUMBER]]) : (!llvm.ptr, !llvm.ptr, i64, i32) -> i1
// CHECK-NEXT: llvm.call @pbc_rt_bytes_equal(%arg1, %arg3, %arg2, %arg3) : (!llvm.ptr, i64, !llvm.ptr, i64) -> i1
// CHECK-NEXT: llvm.return
llvm.func @more_calls(%state: !llvm.ptr, %p: !llvm.ptr, %end: !llvm.ptr, %n: i64, %u: !llvm.ptr) {
  %d = wire.decoder %state
  %0 = wire.count_varints %p, %end
  %1 = wire.keep_unknown %d, %u, %p, %end
  %2 = wire.keep_unknown_varint %d, %u, %n, 7
  %3 = wire.bytes_equal %p, %n, %end, %n
  llvm.return
}

// -----

// Writing forwards: the writer is the runtime's pointer (wire.writer
// disappears); a fixed value goes through a stack slot, allocated in the
// entry block, to pbc_writer_write with its width.
// CHECK-LABEL: llvm.func @writer
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: %[[SLOT64:.*]] = llvm.alloca %[[ONE]] x f64 : (i64) -> !llvm.ptr
// CHECK-NEXT: %[[ONEB:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: %[[SLOT32:.*]] = llvm.alloca %[[ONEB]] x f32 : (i64) -> !llvm.ptr
// CHECK-NEXT: llvm.call @pbc_writer_reserve(%arg0, %arg1) : (!llvm.ptr, i64) -> !llvm.ptr
// CHECK-NEXT: llvm.call @pbc_writer_write_varint(%arg0, %arg1) : (!llvm.ptr, i64) -> ()
// CHECK-NEXT: llvm.store %arg2, %[[SLOT32]] : f32, !llvm.ptr
// CHECK-NEXT: %[[FOUR:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT: llvm.call @pbc_writer_write(%arg0, %[[SLOT32]], %[[FOUR]])
// CHECK-NEXT: llvm.store %arg3, %[[SLOT64]] : f64, !llvm.ptr
// CHECK-NEXT: %[[EIGHT:.*]] = llvm.mlir.constant(8 : i64) : i64
// CHECK-NEXT: llvm.call @pbc_writer_write(%arg0, %[[SLOT64]], %[[EIGHT]])
// CHECK-NEXT: llvm.call @pbc_writer_write(%arg0, %arg4, %arg1)
// CHECK-NEXT: llvm.return
// The runtime functions are declared with abi.def's types.
// CHECK-DAG: llvm.func @pbc_writer_reserve(!llvm.ptr, i64) -> !llvm.ptr
// CHECK-DAG: llvm.func @pbc_writer_write_varint(!llvm.ptr, i64){{$}}
// CHECK-DAG: llvm.func @pbc_writer_write(!llvm.ptr, !llvm.ptr, i64){{$}}
llvm.func @writer(%state: !llvm.ptr, %n: i64, %f: f32, %d: f64, %data: !llvm.ptr) {
  %w = wire.writer %state
  %0 = wire.reserve %w, %n
  wire.write_varint %w, %n
  wire.write_fixed %w, %f : f32
  wire.write_fixed %w, %d : f64
  wire.write_data %w, %data, %n
  llvm.return
}
