// ProtoToWire.cpp, the pass driver: with -proto-to-wire=files=..., only
// the messages of those files get code; the others' functions, which the
// code may call, are declared.
// RUN: pbc-opt %s -proto-to-wire=files=other.proto | FileCheck %s

proto.file "a.proto" package "" proto3 imports []
proto.message @M file "a.proto" attributes {align = 8 : i64, presence_words = 1 : i64, size = 64 : i64, unknown_offset = 48 : i64} {
  proto.field "id" = 1 : int32 implicit {offset = 40 : i64}
  proto.field "name" = 2 : string implicit utf8 {offset = 8 : i64}
  proto.field "vals" = 3 : sint32 repeated packed {offset = 24 : i64}
  proto.field "sub" = 16 : message<@M> optional {offset = 0 : i64}
  proto.field "x" = 4 : fixed64 optional {offset = 32 : i64, presence_bit = 0 : i32}
}

// Messages of files not selected are only declared.
// CHECK: llvm.func @M_init(!llvm.ptr)
// CHECK: llvm.func @M_encoded_size(!llvm.ptr) -> i64
// CHECK: llvm.func @pbc__M_enc(!llvm.ptr, !llvm.ptr, !llvm.ptr) -> !llvm.ptr
// CHECK: llvm.func @pbc__M_dec(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32) -> !llvm.ptr
// CHECK-NOT: llvm.func @M_decode
// CHECK-NOT: pbc_msgs
