// Decode.cpp: the unknown fields of a map entry.
// RUN: pbc-opt %s -proto-layout -proto-to-wire | FileCheck %s

proto.file "o.proto" package "" proto2 imports []
proto.message @O file "o.proto" {
  proto.field "m" = 4 : message<@O.MEntry> repeated
}
proto.message @O.MEntry file "o.proto" map_entry {
  proto.field "key" = 1 : string optional
  proto.field "value" = 2 : message<@O> optional
}

// The map entry keeps no unknown fields: unknown tags are only skipped.
// CHECK-LABEL: llvm.func @pbc__O_MEntry_dec(
// CHECK: %[[NEXT:.*]] = wire.skip
// CHECK-NEXT: %[[NULL:.*]] = llvm.mlir.zero
// CHECK-NEXT: %[[FAILED:.*]] = llvm.icmp "eq" %[[NEXT]], %[[NULL]]
// CHECK-NEXT: llvm.cond_br %[[FAILED]], ^{{bb[0-9]+}}, ^[[SKIPPED:bb[0-9]+]]
// CHECK: ^[[SKIPPED]]:
// CHECK-NEXT: llvm.br ^bb1(%[[NEXT]] : !llvm.ptr)
// CHECK-NOT: wire.keep_unknown
// CHECK: llvm.func @O_MEntry_decode(
