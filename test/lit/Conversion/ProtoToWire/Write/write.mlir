// Write.cpp: pbc__T_wr, given the size T_write computed once (EntryPoints),
// writes straight into the writer's chunk when it has room (the backwards
// encoder), else forwards through the writer, field by field, sub-messages
// with the size already known.
// RUN: pbc-opt %s -proto-layout -proto-to-wire | FileCheck %s

proto.file "w.proto" package "" proto3 imports []
proto.message @W file "w.proto" {
  proto.field "id" = 1 : int32 implicit
  proto.field "name" = 2 : string implicit
  proto.field "sub" = 3 : message<@W> optional
  proto.field "vals" = 4 : fixed32 repeated packed
}

// CHECK-LABEL: llvm.func @pbc__W_wr(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64)
// CHECK-NEXT: %[[W:.*]] = wire.writer %arg1
// CHECK-NEXT: %[[ROOM:.*]] = wire.reserve %[[W]], %arg2
// CHECK: scf.if %{{.*}} {
// Forwards, ascending field numbers.
// CHECK: wire.write_varint %[[W]], %c8_i64
// CHECK: wire.write_varint %[[W]], %{{.*}}
// CHECK: wire.write_varint %[[W]], %c18_i64
// CHECK: wire.write_data
// CHECK: %[[SUBSIZE:.*]] = llvm.call @W_encoded_size(
// CHECK: wire.write_varint %[[W]], %c26_i64
// CHECK: wire.write_varint %[[W]], %[[SUBSIZE]]
// CHECK: llvm.call @pbc__W_wr(%{{.*}}, %arg1, %[[SUBSIZE]])
// Packed fixed32: one copy of the array.
// CHECK: wire.write_varint %[[W]], %c34_i64
// CHECK: wire.write_data %[[W]]
// Unknown fields last.
// CHECK: wire.write_data %[[W]]
// The reservation is sized exactly; its start is the encoder's limit, so
// word-wide varint writes never reach the stream's earlier bytes.
// CHECK: } else {
// CHECK: %[[END:.*]] = llvm.getelementptr %[[ROOM]][%arg2]
// CHECK: llvm.call @pbc__W_enc(%arg0, %[[END]], %[[ROOM]])
// CHECK-LABEL: llvm.func @pbc__W_dec(
