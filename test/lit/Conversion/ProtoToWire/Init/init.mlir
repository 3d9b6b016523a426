// Init.cpp: T_init zeroes the struct, then stores the proto2 defaults.
// RUN: pbc-opt %s -split-input-file -proto-layout -proto-to-wire | FileCheck %s

proto.file "a.proto" package "" proto3 imports []
proto.message @M file "a.proto" {
  proto.field "id" = 1 : int32 implicit
  proto.field "name" = 2 : string implicit utf8
}

// T_init zeroes the struct: one memset of its size, nothing else (proto3
// has no defaults).
// CHECK-LABEL: llvm.func @M_init(
// CHECK-NEXT: %[[SIZE:.*]] = arith.constant 40 : i64
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK-NEXT: "llvm.intr.memset"(%arg0, %[[ZERO]], %[[SIZE]])
// CHECK-NEXT: llvm.return

// -----

proto.file "d.proto" package "" proto2 imports []
proto.enum @Color file "d.proto" closed {
  proto.enum_value "RED" = 1
  proto.enum_value "BLUE" = -1
}
proto.message @D file "d.proto" {
  proto.field "port" = 1 : uint32 optional default 8080 : ui32
  proto.field "big" = 2 : fixed64 optional default 18446744073709551615 : ui64
  proto.field "ratio" = 3 : float optional default 1.000000e-01 : f32
  proto.field "third" = 4 : double optional default 0.33333333333333331 : f64
  proto.field "on" = 5 : bool optional default true
  proto.field "greeting" = 6 : string optional default "hi"
  proto.field "magic" = 7 : bytes optional default "\00\FF"
  proto.field "color" = 8 : enum<@Color> optional closed default -1 : i32
  proto.field "plain" = 9 : int32 optional
  proto.oneof "kind" {
    proto.field "n" = 10 : int32 optional default 5 : i32
  }
}

// After the memset, each proto2 default is stored at its field's offset,
// as the field's C type, in field order; its presence bit stays clear.
// CHECK-LABEL: llvm.func @D_init(
// CHECK-NEXT: %[[SIZE:.*]] = arith.constant 104 : i64
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK-NEXT: "llvm.intr.memset"(%arg0, %[[ZERO]], %[[SIZE]])
// uint32: the unsigned value's bits.
// CHECK-NEXT: %[[PORT:.*]] = llvm.getelementptr inbounds %arg0[72]
// CHECK-NEXT: %[[V8080:.*]] = arith.constant 8080 : i32
// CHECK-NEXT: llvm.store %[[V8080]], %[[PORT]] : i32, !llvm.ptr
// A uint64 above INT64_MAX keeps its bits.
// CHECK-NEXT: %[[BIG:.*]] = llvm.getelementptr inbounds %arg0[8]
// CHECK-NEXT: %[[ALLONES:.*]] = arith.constant -1 : i64
// CHECK-NEXT: llvm.store %[[ALLONES]], %[[BIG]] : i64, !llvm.ptr
// Floats as their own type, not converted through double.
// CHECK-NEXT: %[[RATIO:.*]] = llvm.getelementptr inbounds %arg0[76]
// CHECK-NEXT: %[[F:.*]] = arith.constant 1.000000e-01 : f32
// CHECK-NEXT: llvm.store %[[F]], %[[RATIO]] : f32, !llvm.ptr
// CHECK-NEXT: %[[THIRD:.*]] = llvm.getelementptr inbounds %arg0[16]
// CHECK-NEXT: %[[D:.*]] = arith.constant 0.33333333333333331 : f64
// CHECK-NEXT: llvm.store %[[D]], %[[THIRD]] : f64, !llvm.ptr
// A bool is a byte.
// CHECK-NEXT: %[[ON:.*]] = llvm.getelementptr inbounds %arg0[96]
// CHECK-NEXT: %[[TRUE:.*]] = arith.constant 1 : i8
// CHECK-NEXT: llvm.store %[[TRUE]], %[[ON]] : i8, !llvm.ptr
// Strings and bytes point into a constant global; the size is the text's,
// without the NUL the global ends with.
// CHECK-NEXT: %[[GREETING:.*]] = llvm.getelementptr inbounds %arg0[24]
// CHECK-NEXT: %[[HI:.*]] = llvm.mlir.addressof @pbc__D_default_greeting : !llvm.ptr
// CHECK-NEXT: llvm.store %[[HI]], %[[GREETING]] : !llvm.ptr, !llvm.ptr
// CHECK-NEXT: %[[GSIZE:.*]] = llvm.getelementptr inbounds %[[GREETING]][8]
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-NEXT: llvm.store %[[TWO]], %[[GSIZE]] : i64, !llvm.ptr
// CHECK-NEXT: %[[MAGIC:.*]] = llvm.getelementptr inbounds %arg0[40]
// CHECK-NEXT: %[[BYTES:.*]] = llvm.mlir.addressof @pbc__D_default_magic : !llvm.ptr
// CHECK-NEXT: llvm.store %[[BYTES]], %[[MAGIC]] : !llvm.ptr, !llvm.ptr
// CHECK-NEXT: %[[MSIZE:.*]] = llvm.getelementptr inbounds %[[MAGIC]][8]
// CHECK-NEXT: %[[TWO2:.*]] = arith.constant 2 : i64
// CHECK-NEXT: llvm.store %[[TWO2]], %[[MSIZE]] : i64, !llvm.ptr
// An enum default is the value's number.
// CHECK-NEXT: %[[COLOR:.*]] = llvm.getelementptr inbounds %arg0[80]
// CHECK-NEXT: %[[BLUE:.*]] = arith.constant -1 : i32
// CHECK-NEXT: llvm.store %[[BLUE]], %[[COLOR]] : i32, !llvm.ptr
// No default, nothing stored (plain); a oneof member's default is never
// stored: the members share one union, and an unset member is not read.
// CHECK-NEXT: llvm.return
// CHECK: llvm.mlir.global internal constant @pbc__D_default_greeting("hi\00")
// CHECK-NEXT: llvm.mlir.global internal constant @pbc__D_default_magic("\00\FF\00")
