// DecodeFields.cpp: a closed enum's undeclared values in pbc__T_dec.
// RUN: pbc-opt %s -proto-layout -proto-to-wire | FileCheck %s

proto.file "o.proto" package "" proto2 imports []
proto.enum @Color file "o.proto" closed {
  proto.enum_value "RED" = 1
  proto.enum_value "BLUE" = 2
}
proto.message @O file "o.proto" {
  proto.field "colors" = 3 : enum<@Color> repeated closed
}

// A closed enum value the enum does not declare goes to the unknown
// fields: as read when unpacked, re-encoded when out of a packed run.
// CHECK-LABEL: llvm.func @pbc__O_dec(
// CHECK-NEXT: %[[DEC:.*]] = wire.decoder %arg3
// Unpacked: the value read (fast or checked) is compared with the values
// Color declares, 1 and 2: contiguous, so one range check.
// CHECK: ^{{bb[0-9]+}}(%[[TAGSTART:.*]]: !llvm.ptr, %[[NEXT:.*]]: !llvm.ptr, %[[V:.*]]: i32, %{{.*}}: i64):
// CHECK-NEXT: %[[LOW:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[REL:.*]] = arith.subi %[[V]], %[[LOW]] : i32
// CHECK-NEXT: %[[SPAN:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[KNOWN:.*]] = arith.cmpi ule, %[[REL]], %[[SPAN]] : i32
// CHECK-NEXT: llvm.cond_br %[[KNOWN]], ^[[APPEND:bb[0-9]+]], ^[[UNDECLARED:bb[0-9]+]]
// CHECK: ^[[APPEND]]:
// CHECK: wire.grow %[[DEC]]
// Undeclared: the record from its tag to its end, as read.
// CHECK: ^[[UNDECLARED]]:
// CHECK-NEXT: %[[UNKNOWN:.*]] = llvm.getelementptr inbounds %arg0[16]
// CHECK-NEXT: wire.keep_unknown %[[DEC]], %[[UNKNOWN]], %[[TAGSTART]], %[[NEXT]]
// Packed, in the unchecked loop: an undeclared value takes no element and
// is kept as a varint record of field 3 of its own.
// CHECK: %{{.*}}, %[[RAW:.*]] = wire.get_varint %[[DEC]], %{{.*}}, %{{.*}} unchecked
// CHECK: arith.cmpi ule
// CHECK-NEXT: llvm.cond_br %{{.*}}, ^{{bb[0-9]+}}, ^[[PACKEDUNDECLARED:bb[0-9]+]]
// CHECK: ^[[PACKEDUNDECLARED]]:
// CHECK-NEXT: %[[UNKNOWN2:.*]] = llvm.getelementptr inbounds %arg0[16]
// CHECK-NEXT: wire.keep_unknown_varint %[[DEC]], %[[UNKNOWN2]], %[[RAW]], 3
// CHECK-LABEL: llvm.func @O_decode(
