// Encode.cpp, Write.cpp: a message with extension ranges and unknown
// fields is written by the table codec, which places the extensions those
// hold at their range's place among the fields; without unknown fields,
// by its own code, which writes no unknown fields. One test each.
// RUN: pbc-opt %s -proto-layout -proto-to-wire | FileCheck %s

proto.file "o.proto" package "" proto2 imports []
proto.message @O file "o.proto" extensions [2, 11, 12, 101] {
  proto.field "one" = 1 : int32 optional
  proto.field "eleven" = 11 : int32 optional
  proto.field "big" = 200 : int32 optional
}
proto.message @P file "o.proto" {
  proto.field "one" = 1 : int32 optional
}

// CHECK-LABEL: llvm.func @pbc__O_enc(
// CHECK-NEXT: %[[U:.*]] = llvm.getelementptr inbounds %arg0[8]
// CHECK-NEXT: %[[NA:.*]] = llvm.getelementptr inbounds %[[U]][8]
// CHECK-NEXT: %[[N:.*]] = llvm.load %[[NA]] : !llvm.ptr -> i64
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[ANY:.*]] = arith.cmpi ne, %[[N]], %[[ZERO]] : i64
// CHECK-NEXT: llvm.cond_br %[[ANY]], ^[[TABLE:bb[0-9]+]], ^[[OWN:bb[0-9]+]]
// CHECK: ^[[TABLE]]:
// CHECK-NEXT: %[[D:.*]] = llvm.mlir.addressof @pbc__O_desc
// CHECK-NEXT: %[[S:.*]] = llvm.call @pbc_table_encode_backwards(%[[D]], %arg0, %arg1, %arg2)
// CHECK-NEXT: llvm.return %[[S]]
// CHECK: ^[[OWN]]:
// CHECK-NOT: wire.put_data
// CHECK: wire.put_bytes %{{.*}}, "\C0\0C"
// CHECK-NOT: wire.put_data
// CHECK-LABEL: llvm.func @pbc__O_wr(
// CHECK-NEXT: %[[W:.*]] = wire.writer %arg1
// CHECK-NEXT: %[[U:.*]] = llvm.getelementptr inbounds %arg0[8]
// CHECK-NEXT: %[[NA:.*]] = llvm.getelementptr inbounds %[[U]][8]
// CHECK-NEXT: %[[N:.*]] = llvm.load %[[NA]] : !llvm.ptr -> i64
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[ANY:.*]] = arith.cmpi ne, %[[N]], %[[ZERO]] : i64
// CHECK-NEXT: llvm.cond_br %[[ANY]], ^[[TABLE:bb[0-9]+]], ^[[OWN:bb[0-9]+]]
// CHECK-NEXT: ^[[TABLE]]:
// CHECK-NEXT: %[[D:.*]] = llvm.mlir.addressof @pbc__O_desc
// CHECK-NEXT: llvm.call @pbc_table_write_fields(%[[D]], %arg0, %arg1, %arg2)
// CHECK-NEXT: llvm.return
// CHECK-NEXT: ^[[OWN]]:
// CHECK-NEXT: wire.reserve %[[W]], %arg2
// CHECK-NOT: wire.write_data
// CHECK-LABEL: llvm.func @pbc__O_dec(

// Without extension ranges: the unknown fields written as they are.
// CHECK-LABEL: llvm.func @pbc__P_enc(
// CHECK-NOT: pbc_table_encode_backwards
// CHECK: wire.put_data
// CHECK-LABEL: llvm.func @pbc__P_wr(
// CHECK-NOT: pbc_table_write_fields
// CHECK: wire.write_data
