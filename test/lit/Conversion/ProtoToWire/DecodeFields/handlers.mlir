// DecodeFields.cpp: the field handlers of pbc__T_dec (the loop, dispatch
// and chains around them: Decode/).
// RUN: pbc-opt %s -proto-to-wire | FileCheck %s

proto.file "a.proto" package "" proto3 imports []
proto.message @M file "a.proto" attributes {align = 8 : i64, presence_words = 1 : i64, size = 64 : i64, unknown_offset = 48 : i64} {
  proto.field "id" = 1 : int32 implicit {offset = 40 : i64}
  proto.field "name" = 2 : string implicit utf8 {offset = 8 : i64}
  proto.field "vals" = 3 : sint32 repeated packed {offset = 24 : i64}
  proto.field "sub" = 16 : message<@M> optional {offset = 0 : i64}
  proto.field "x" = 4 : fixed64 optional {offset = 32 : i64, presence_bit = 0 : i32}
}

// The handlers, in any order.
// CHECK-LABEL: llvm.func @pbc__M_dec(
// CHECK-NEXT: %[[DEC:.*]] = wire.decoder %arg3
// A packed run of varints: its elements counted, the array grown once,
// then a loop that reads and stores; the size is set after the run.
// Up to 10 bytes before the run's end the loop reads with no bounds check.
// CHECK-DAG: %[[COUNT:.*]] = wire.count_varints %[[FIRST:.*]], %[[RUNEND:.*]]
// CHECK-DAG: wire.grow %[[DEC]], %{{.*}}, %{{.*}}, %[[COUNT]], 4
// CHECK-DAG: %[[SLACK:.*]] = arith.maxui %[[LEN:.*]], %c10_i64
// CHECK-DAG: %[[FASTLEN:.*]] = arith.subi %[[SLACK]], %c10_i64
// CHECK-DAG: %[[FASTEND:.*]] = llvm.getelementptr %[[FIRST]][%[[FASTLEN]]]
// CHECK-DAG: llvm.icmp "ult" %{{.*}}, %[[FASTEND]]
// CHECK-DAG: wire.get_varint %[[DEC]], %{{.*}}, %[[RUNEND]] unchecked
// CHECK-DAG: wire.get_varint %[[DEC]], %{{.*}}, %[[RUNEND]]{{$}}
// A string that must be UTF-8 (proto3) is validated, else the decode
// fails with PBC_ERR_INVALID_UTF8 (7).
// CHECK-DAG: wire.utf8_valid
// CHECK-DAG: wire.fail %{{.*}}, 7
// CHECK-DAG: wire.get_fixed %{{.*}} : i64
// CHECK-DAG: wire.alloc %{{.*}}, 64
// CHECK-DAG: llvm.call @M_init(
// CHECK-DAG: wire.push
// CHECK-DAG: llvm.call @pbc__M_dec(
// CHECK-DAG: wire.pop
// CHECK: llvm.func @M_decode(
