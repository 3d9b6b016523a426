// proto-to-wire for oneofs, map entries and closed enums.
// RUN: pbc-opt %s -proto-layout -proto-to-wire | FileCheck %s
// RUN: pbc-opt %s -proto-layout -proto-to-wire | FileCheck %s --check-prefix=CMAP

proto.file "o.proto" package "" proto2 imports []
proto.enum @Color file "o.proto" closed {
  proto.enum_value "RED" = 1
  proto.enum_value "BLUE" = 2
}
proto.message @O file "o.proto" {
  proto.oneof "kind" {
    proto.field "num" = 1 : int32 optional
    proto.field "sub" = 2 : message<@O> optional
  }
  proto.field "colors" = 3 : enum<@Color> repeated closed
  proto.field "m" = 4 : message<@O.MEntry> repeated
  proto.field "cm" = 5 : message<@O.CEntry> repeated
}
proto.message @O.CEntry file "o.proto" map_entry {
  proto.field "key" = 1 : int32 optional
  proto.field "value" = 2 : enum<@Color> optional closed
}
proto.message @O.MEntry file "o.proto" map_entry {
  proto.field "key" = 1 : string optional
  proto.field "value" = 2 : message<@O> optional
}

// Size: a oneof member counts when the case is its number (zero included),
// and its size is computed only then.
// CHECK-LABEL: llvm.func @O_encoded_size(
// CHECK: %[[CASEADDR:.*]] = llvm.getelementptr inbounds %arg0[72]
// CHECK: %[[CASE:.*]] = llvm.load %[[CASEADDR]] : !llvm.ptr -> i32
// CHECK: %[[IS1:.*]] = arith.cmpi eq, %[[CASE]], %c1_i32
// CHECK: scf.if %[[IS1]] -> (i64) {
// CHECK: wire.varint_size
// CHECK: } else {

// Decode: a oneof member sets the case; a message member merges only into
// the message the case names.
// CHECK-LABEL: llvm.func @pbc__O_dec(
// CHECK-NEXT: %[[DEC:.*]] = wire.decoder %arg3
// CHECK: wire.get_varint
// CHECK: llvm.store %{{.*}}, %[[NUMADDR:.*]] : i32, !llvm.ptr
// CHECK: %[[C1:.*]] = arith.constant 1 : i32
// CHECK: llvm.store %[[C1]], %{{.*}} : i32, !llvm.ptr
// CHECK: wire.get_length
// CHECK: %[[EXISTING:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[IS2:.*]] = arith.cmpi eq, %{{.*}}, %c2_i32
// CHECK: arith.select %[[IS2]], %[[EXISTING]], %{{.*}} : !llvm.ptr
// A closed enum value the enum does not declare goes to the unknown
// fields: as read when unpacked, re-encoded when out of a packed run.
// CHECK-DAG: wire.keep_unknown %[[DEC]]
// CHECK-DAG: wire.keep_unknown_varint %[[DEC]], %{{.*}}, %value{{.*}}, 3
// A map entry with a key already in the map replaces that entry.
// CHECK-DAG: llvm.call @pbc__O_MEntry_dec(
// CHECK-DAG: wire.bytes_equal
// CHECK-DAG: "llvm.intr.memcpy"

// Encode: a map entry writes key and value always; an unset message value
// is written empty (tag 0x12, length 0).
// CHECK-LABEL: llvm.func @pbc__O_MEntry_enc(
// CHECK: llvm.cond_br %{{.*}}, ^{{.*}}, ^[[ABSENT:bb[0-9]+]]
// CHECK: ^[[ABSENT]]:
// CHECK: wire.put_bytes %arg1, "\12\00"
// CHECK: wire.put_data

// A map entry whose closed-enum value is undeclared goes whole to the
// unknown fields: the array shrinks back, the raw entry is kept.
// CMAP-LABEL: llvm.func @pbc__O_dec(
// CMAP: llvm.call @pbc__O_CEntry_dec(
// CMAP: arith.subi %{{.*}}, %c1_i64
// CMAP: llvm.cond_br %{{.*}}, ^[[KNOWN:bb[0-9]+]], ^[[UNDECLARED:bb[0-9]+]]
// CMAP: ^[[UNDECLARED]]:
// CMAP-NEXT: llvm.store
// CMAP: wire.keep_unknown
// CMAP: llvm.func @O_decode(

// The map entry keeps no unknown fields: unknown tags are only skipped.
// CHECK-LABEL: llvm.func @pbc__O_MEntry_dec(
// CHECK: wire.skip
// CHECK-NOT: wire.keep_unknown
// CHECK: llvm.func @O_MEntry_decode(
