// IsInitialized.cpp: T_is_initialized: required presence bits, and every
// sub-message held (a required sub-message must be there).
// RUN: pbc-opt %s -proto-to-wire | FileCheck %s

proto.file "r.proto" package "" proto2 imports []
proto.message @R file "r.proto" attributes {align = 8 : i64, presence_words = 1 : i64, size = 64 : i64, unknown_offset = 48 : i64} {
  proto.field "a" = 1 : int32 required {offset = 40 : i64, presence_bit = 0 : i32}
  proto.field "sub" = 2 : message<@R> required {offset = 8 : i64}
  proto.field "subs" = 3 : message<@R> repeated {offset = 16 : i64}
  proto.field "opt" = 4 : message<@R> optional {offset = 32 : i64}
}

// CHECK-LABEL: llvm.func @R_is_initialized(%arg0: !llvm.ptr) -> (i1 {llvm.zeroext})
// CHECK: %[[WORD:.*]] = llvm.load %arg0 : !llvm.ptr -> i32
// CHECK: %[[BIT:.*]] = arith.andi %[[WORD]], %c1_i32
// CHECK: %[[HAS:.*]] = arith.cmpi ne, %[[BIT]]
// CHECK: %[[OK1:.*]] = arith.andi %true{{.*}}, %[[HAS]]
// A required sub-message: absent is false.
// CHECK: scf.if
// CHECK: llvm.call @R_is_initialized(
// CHECK: } else {
// CHECK: scf.yield %false
// Repeated: every element.
// CHECK: scf.for
// CHECK: llvm.call @R_is_initialized(
// Optional: absent is fine.
// CHECK: scf.if
// CHECK: llvm.call @R_is_initialized(
// CHECK: } else {
// CHECK: scf.yield %true
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @R_encoded_size(
