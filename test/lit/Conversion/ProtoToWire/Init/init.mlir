// Init.cpp: T_init zeroes the struct, then copies each proto2 default from
// the description's prototype (Description.cpp), the defaults' one home.
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

// After the memset, each defaulted member is copied from the prototype, at
// its offset, its C type's bytes (LLVM folds these copies of constant data
// into stores), in field order; a string or bytes view in its two 8-byte
// members. No default, nothing copied (plain); nor a oneof member's.
// CHECK-LABEL: llvm.func @D_init(
// CHECK-NEXT: %[[SIZE:.*]] = arith.constant 104 : i64
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK-NEXT: "llvm.intr.memset"(%arg0, %[[ZERO]], %[[SIZE]])
// CHECK-NEXT: %[[P:.*]] = llvm.mlir.addressof @pbc__D_prototype
// port: 4 bytes at 72.
// CHECK-NEXT: %[[N4:.*]] = arith.constant 4 : i64
// CHECK-NEXT: %[[FROM:.*]] = llvm.getelementptr inbounds %[[P]][72]
// CHECK-NEXT: %[[TO:.*]] = llvm.getelementptr inbounds %arg0[72]
// CHECK-NEXT: "llvm.intr.memcpy"(%[[TO]], %[[FROM]], %[[N4]])
// big (8 at 8), ratio (4 at 76), third (8 at 16), on (1 at 96).
// CHECK-NEXT: arith.constant 8 : i64
// CHECK-NEXT: llvm.getelementptr inbounds %[[P]][8]
// CHECK-NEXT: llvm.getelementptr inbounds %arg0[8]
// CHECK-NEXT: "llvm.intr.memcpy"
// CHECK-NEXT: arith.constant 4 : i64
// CHECK-NEXT: llvm.getelementptr inbounds %[[P]][76]
// CHECK-NEXT: llvm.getelementptr inbounds %arg0[76]
// CHECK-NEXT: "llvm.intr.memcpy"
// CHECK-NEXT: arith.constant 8 : i64
// CHECK-NEXT: llvm.getelementptr inbounds %[[P]][16]
// CHECK-NEXT: llvm.getelementptr inbounds %arg0[16]
// CHECK-NEXT: "llvm.intr.memcpy"
// CHECK-NEXT: arith.constant 1 : i64
// CHECK-NEXT: llvm.getelementptr inbounds %[[P]][96]
// CHECK-NEXT: llvm.getelementptr inbounds %arg0[96]
// CHECK-NEXT: "llvm.intr.memcpy"
// greeting's data and size at 24 and 32, magic's at 40 and 48.
// CHECK-NEXT: arith.constant 8 : i64
// CHECK-NEXT: llvm.getelementptr inbounds %[[P]][24]
// CHECK-NEXT: llvm.getelementptr inbounds %arg0[24]
// CHECK-NEXT: "llvm.intr.memcpy"
// CHECK-NEXT: arith.constant 8 : i64
// CHECK-NEXT: llvm.getelementptr inbounds %[[P]][32]
// CHECK-NEXT: llvm.getelementptr inbounds %arg0[32]
// CHECK-NEXT: "llvm.intr.memcpy"
// CHECK-NEXT: arith.constant 8 : i64
// CHECK-NEXT: llvm.getelementptr inbounds %[[P]][40]
// CHECK-NEXT: llvm.getelementptr inbounds %arg0[40]
// CHECK-NEXT: "llvm.intr.memcpy"
// CHECK-NEXT: arith.constant 8 : i64
// CHECK-NEXT: llvm.getelementptr inbounds %[[P]][48]
// CHECK-NEXT: llvm.getelementptr inbounds %arg0[48]
// CHECK-NEXT: "llvm.intr.memcpy"
// color: 4 at 80.
// CHECK-NEXT: arith.constant 4 : i64
// CHECK-NEXT: llvm.getelementptr inbounds %[[P]][80]
// CHECK-NEXT: llvm.getelementptr inbounds %arg0[80]
// CHECK-NEXT: "llvm.intr.memcpy"
// CHECK-NEXT: llvm.return
// The prototype: the struct with each default as its field's C type.
// CHECK: llvm.mlir.global internal constant @pbc__D_desc_data("{{.*}}hi\00\00\FF\00")
// CHECK-NEXT: llvm.mlir.global internal constant @pbc__D_prototype()
// CHECK-SAME: !llvm.struct<packed (array<24 x i8>, ptr, array<8 x i8>, ptr, array<56 x i8>)>
// CHECK-NEXT: llvm.mlir.undef
// The presence word and padding; at 8 a uint64 above INT64_MAX keeps its
// bits; at 16 a double.
// CHECK-NEXT: llvm.mlir.constant("\00\00\00\00\00\00\00\00\FF\FF\FF\FF\FF\FF\FF\FFUUUUUU\D5?")
// CHECK-NEXT: llvm.insertvalue
// Strings and bytes point into the description's string pool (the
// defaults at its end, each with its NUL: "hi" at 664, "\00\FF" at 667),
// their sizes the text's, without the NUL.
// CHECK-NEXT: llvm.mlir.addressof @pbc__D_desc_data
// CHECK-NEXT: llvm.getelementptr inbounds %{{.*}}[664]
// CHECK-NEXT: llvm.insertvalue
// CHECK-NEXT: llvm.mlir.constant("\02\00\00\00\00\00\00\00")
// CHECK-NEXT: llvm.insertvalue
// CHECK-NEXT: llvm.mlir.addressof @pbc__D_desc_data
// CHECK-NEXT: llvm.getelementptr inbounds %{{.*}}[667]
// CHECK-NEXT: llvm.insertvalue
// The rest: magic's size, padding; at 72 the uint32 8080, at 76 the float
// 0.1 as a float (not converted through double), at 80 the enum's -1; the
// oneof's union at 88 stays zero (a oneof member's default is never
// stored: the members share it, and an unset member is not read); at 96 a
// bool, one byte.
// CHECK-NEXT: llvm.mlir.constant("\02\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\90\1F\00\00\CD\CC\CC=\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\01\00\00\00\00\00\00\00")
// CHECK-NEXT: llvm.insertvalue
// CHECK-NEXT: llvm.return
