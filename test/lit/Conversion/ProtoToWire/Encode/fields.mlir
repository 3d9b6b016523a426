// Encode.cpp: pbc__T_enc, the backwards encoder, field by field.
// RUN: pbc-opt %s -proto-to-wire | FileCheck %s

proto.file "a.proto" package "" proto3 imports []
proto.message @M file "a.proto" attributes {align = 8 : i64, presence_words = 1 : i64, size = 64 : i64, unknown_offset = 48 : i64} {
  proto.field "id" = 1 : int32 implicit {offset = 40 : i64}
  proto.field "name" = 2 : string implicit utf8 {offset = 8 : i64}
  proto.field "vals" = 3 : sint32 repeated packed {offset = 24 : i64}
  proto.field "sub" = 16 : message<@M> optional {offset = 0 : i64}
  proto.field "x" = 4 : fixed64 optional {offset = 32 : i64, presence_bit = 0 : i32}
}

// The encoder writes backwards from %arg1, highest field number first, each
// value before its constant tag, and checks its room against the limit
// %arg2: one comparison against a bound good for any value, the exact size
// only when that fails.
// CHECK-LABEL: llvm.func @pbc__M_enc(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr) -> !llvm.ptr
// Unknown fields last in the output, so first written; when there are
// none, no copy, and when there are, a memcpy call (out_of_line).
// CHECK: %[[UNKNOWN:.*]] = llvm.getelementptr inbounds %arg0[48]
// CHECK: %[[UNKSIZE:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK: %[[ANYUNK:.*]] = arith.cmpi ne, %[[UNKSIZE]], %c0_i64
// CHECK: llvm.cond_br %[[ANYUNK]]
// CHECK: wire.put_data %arg1, %{{.*}}, %[[UNKSIZE]] out_of_line
// The sub-message (field 16) checks its own room; then its length and tag:
// at most 12 bytes, exactly varint_size + 2.
// CHECK: llvm.call @pbc__M_enc(%{{.*}}, %{{.*}}, %arg2)
// CHECK: %[[C12:.*]] = arith.constant 12 : i64
// CHECK: %[[ROOM:.*]] = arith.subi
// CHECK: arith.cmpi sge, %[[ROOM]], %[[C12]]
// A length takes no room: one of three bytes and more (16 KiB of payload
// before it) is left to the runtime's out-of-line writer.
// CHECK: %[[LEN:.*]] = wire.put_varint %{{.*}}, %{{.*}}{{$}}
// CHECK-NEXT: wire.put_bytes %[[LEN]], "\82\01"
// CHECK: wire.varint_size
// Field 4, fixed64 (its 9-byte bound was checked before the sub-message's
// blocks in the output).
// CHECK: wire.put_fixed %{{.*}} : i64
// CHECK: wire.put_bytes %{{.*}}, "!"
// The packed field: a loop over the elements, last first. With room for
// 10 bytes an element, checked once, no element checks its own, and a long
// varint may spill a word into the free bytes below it (room 10); near the
// front of the buffer, a second loop checks each element.
// CHECK: %[[PACKEDBOUND:.*]] = arith.muli %{{.*}}, %c10_i64
// CHECK: %[[PACKEDROOMY:.*]] = arith.cmpi sge, %{{.*}}, %[[PACKEDBOUND]]
// CHECK: llvm.cond_br %[[PACKEDROOMY]]
// CHECK: wire.zigzag_encode
// CHECK-NEXT: arith.extui
// CHECK-NEXT: wire.put_varint %{{.*}}, %{{.*}} room %c10_i64
// CHECK-NEXT: llvm.br
// CHECK: arith.cmpi sge, %{{.*}}, %c10_i64
// CHECK: wire.put_varint %{{.*}}, %{{.*}} room %c10_i64
// CHECK: wire.varint_size
// CHECK: wire.put_varint %{{.*}}, %{{.*}}{{$}}
// CHECK: wire.put_varint %{{.*}}, %{{.*}}{{$}}
// CHECK-NEXT: wire.put_bytes %{{.*}}, "\1A"
// CHECK: wire.put_data
// CHECK-NEXT: wire.put_varint %{{.*}}, %{{.*}}{{$}}
// CHECK-NEXT: wire.put_bytes %{{.*}}, "\12"
// CHECK: wire.put_bytes %{{.*}}, "\08"
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @pbc__M_wr(
