// DecodeFields.cpp: a map entry whose value is a closed enum's undeclared
// value goes, whole and as read, to the unknown fields (as libprotobuf).
// RUN: pbc-opt %s -proto-layout -proto-to-wire | FileCheck %s

proto.file "o.proto" package "" proto2 imports []
proto.enum @Color file "o.proto" closed {
  proto.enum_value "RED" = 1
  proto.enum_value "BLUE" = 2
}
proto.message @O file "o.proto" {
  proto.field "cm" = 5 : message<@O.CEntry> repeated
}
proto.message @O.CEntry file "o.proto" map_entry {
  proto.field "key" = 1 : int32 optional
  proto.field "value" = 2 : enum<@Color> optional closed
}

// A map entry whose closed-enum value is undeclared goes whole to the
// unknown fields: the array shrinks back, the raw entry is kept.
// CHECK-LABEL: llvm.func @pbc__O_dec(
// CHECK: %[[NEXT:.*]] = llvm.call @pbc__O_CEntry_dec(
// CHECK: %[[SIZEADDR:.*]] = llvm.getelementptr inbounds %arg0[8]
// CHECK: %[[SIZE:.*]] = llvm.load %[[SIZEADDR]] : !llvm.ptr -> i64
// CHECK-NEXT: %[[LAST:.*]] = arith.subi %[[SIZE]], %c1_i64
// The value: the enum at offset 4 of the last 8-byte entry, checked
// against the values Color declares (1 and 2: one range check).
// CHECK: %[[ENTRY:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}]
// CHECK-NEXT: %[[VALUEADDR:.*]] = llvm.getelementptr inbounds %[[ENTRY]][4]
// CHECK-NEXT: %[[VALUE:.*]] = llvm.load %[[VALUEADDR]] : !llvm.ptr -> i32
// CHECK-NEXT: %[[LOW:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[REL:.*]] = arith.subi %[[VALUE]], %[[LOW]] : i32
// CHECK-NEXT: %[[SPAN:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[KNOWNVALUE:.*]] = arith.cmpi ule, %[[REL]], %[[SPAN]] : i32
// CHECK-NEXT: llvm.cond_br %[[KNOWNVALUE]], ^[[KNOWN:bb[0-9]+]], ^[[UNDECLARED:bb[0-9]+]]
// CHECK: ^[[UNDECLARED]]:
// CHECK-NEXT: llvm.store %[[LAST]], %[[SIZEADDR]] : i64, !llvm.ptr
// CHECK-NEXT: %[[UNKNOWN:.*]] = llvm.getelementptr inbounds %arg0[16]
// CHECK-NEXT: wire.keep_unknown %{{.*}}, %[[UNKNOWN]], %{{.*}}, %[[NEXT]]
// CHECK: llvm.func @O_decode(
