// DecodeFields.cpp: a map entry whose key is already in the map replaces
// that entry (the last one wins, as in libprotobuf's map).
// RUN: pbc-opt %s -proto-layout -proto-to-wire | FileCheck %s

proto.file "o.proto" package "" proto2 imports []
proto.message @O file "o.proto" {
  proto.field "m" = 4 : message<@O.MEntry> repeated
}
proto.message @O.MEntry file "o.proto" map_entry {
  proto.field "key" = 1 : string optional
  proto.field "value" = 2 : message<@O> optional
}

// A map entry with a key already in the map replaces that entry.
// CHECK-LABEL: llvm.func @pbc__O_dec(
// CHECK: %[[NEXT:.*]] = llvm.call @pbc__O_MEntry_dec(
// CHECK-NEXT: wire.pop
// The entry just decoded is the last one (entries of 24 bytes); a loop
// compares its key with every earlier entry's.
// CHECK: %[[SIZEADDR:.*]] = llvm.getelementptr inbounds %arg0[8]
// CHECK-NEXT: %[[DATA:.*]] = llvm.load %arg0 : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT: %[[SIZE:.*]] = llvm.load %[[SIZEADDR]] : !llvm.ptr -> i64
// CHECK-NEXT: %[[LAST:.*]] = arith.subi %[[SIZE]], %[[ONE]] : i64
// CHECK-NEXT: %[[ESIZE:.*]] = arith.constant 24 : i64
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %[[LAST]], %[[ESIZE]] : i64
// CHECK-NEXT: %[[ADDED:.*]] = llvm.getelementptr %[[DATA]][%[[OFF]]]
// CHECK: ^[[SEARCH:bb[0-9]+]](%[[I:.*]]: i64):
// CHECK-NEXT: %[[MORE:.*]] = arith.cmpi ult, %[[I]], %[[LAST]] : i64
// CHECK-NEXT: llvm.cond_br %[[MORE]], ^[[COMPARE:bb[0-9]+]], ^[[DONE:bb[0-9]+]]
// String keys compare as bytes.
// CHECK: ^[[COMPARE]]:
// CHECK: %[[SAME:.*]] = wire.bytes_equal
// CHECK: llvm.cond_br %[[SAME]], ^[[REPLACE:bb[0-9]+]], ^[[SEARCH]](
// The old entry takes the new one's bytes and the map shrinks back.
// CHECK-NEXT: ^[[REPLACE]]:
// CHECK: "llvm.intr.memcpy"(%{{.*}}, %[[ADDED]], %{{.*}})
// CHECK-NEXT: llvm.store %[[LAST]], %[[SIZEADDR]] : i64, !llvm.ptr
// CHECK-NEXT: llvm.br ^[[DONE]]
// Either way, on to the chain.
// CHECK-NEXT: ^[[DONE]]:
// CHECK-NEXT: llvm.icmp "ult" %[[NEXT]]
// CHECK-LABEL: llvm.func @O_decode(
