// Encode.cpp: a map entry's encoder.
// RUN: pbc-opt %s -proto-layout -proto-to-wire | FileCheck %s

proto.file "o.proto" package "" proto2 imports []
proto.message @O file "o.proto" {
  proto.field "m" = 4 : message<@O.MEntry> repeated
}
proto.message @O.MEntry file "o.proto" map_entry {
  proto.field "key" = 1 : string optional
  proto.field "value" = 2 : message<@O> optional
}

// Encode: a map entry writes key and value always; an unset message value
// is written empty (tag 0x12, length 0).
// CHECK-LABEL: llvm.func @pbc__O_MEntry_enc(
// CHECK-NEXT: %[[VALUEADDR:.*]] = llvm.getelementptr inbounds %arg0[16]
// CHECK-NEXT: %[[VALUE:.*]] = llvm.load %[[VALUEADDR]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: %[[SET:.*]] = llvm.icmp "ne" %[[VALUE]], %[[NULL]] : !llvm.ptr
// CHECK-NEXT: llvm.cond_br %[[SET]], ^{{.*}}, ^[[ABSENT:bb[0-9]+]]
// CHECK: ^[[ABSENT]]:
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK: %[[ROOM:.*]] = arith.cmpi sge, %{{.*}}, %[[TWO]] : i64
// CHECK-NEXT: llvm.cond_br %[[ROOM]], ^[[EMPTY:bb[0-9]+]], ^bb1
// CHECK: ^[[EMPTY]]:
// CHECK-NEXT: wire.put_bytes %arg1, "\12\00"
// The key (a string, field 1) is written even when empty.
// CHECK: wire.put_data
// CHECK-NEXT: wire.put_varint
// CHECK-NEXT: wire.put_bytes %{{.*}}, "\0A"
// CHECK-LABEL: llvm.func @pbc__O_MEntry_wr(
