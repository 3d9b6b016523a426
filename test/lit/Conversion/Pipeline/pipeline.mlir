// pbc-lower-to-llvm runs every stage of the lowering (layout, wire,
// LLVM), so it takes a schema as imported, with no layout yet, and leaves
// only the LLVM dialect.
// RUN: pbc-opt %s --pbc-lower-to-llvm | FileCheck %s
// RUN: pbc-opt %s --pbc-lower-to-llvm | FileCheck %s --check-prefix=LLVM

proto.file "p.proto" package "p" proto3 imports []
proto.message @p.Point file "p.proto" {
  proto.field "x" = 1 : int32 implicit
}

// CHECK: llvm.func @p_Point_init(
// CHECK: llvm.func @pbc__p_Point_enc(
// CHECK: llvm.func @pbc__p_Point_dec(
// CHECK: llvm.func @p_Point_decode(
// CHECK: llvm.mlir.global weak_odr constant @p_Point_info()

// LLVM-NOT: {{proto\.|wire\.|scf\.|arith\.|cf\.|unrealized_conversion_cast}}
