// Decode.cpp: pbc__T_dec's loop, its tag dispatch, the hoisted bounds
// checks, the in-order chains and the unknown fields (the handlers' reads
// and stores: DecodeFields/).
// RUN: pbc-opt %s -proto-to-wire | FileCheck %s

proto.file "a.proto" package "" proto3 imports []
proto.message @M file "a.proto" attributes {align = 8 : i64, presence_words = 1 : i64, size = 64 : i64, unknown_offset = 48 : i64} {
  proto.field "id" = 1 : int32 implicit {offset = 40 : i64}
  proto.field "name" = 2 : string implicit utf8 {offset = 8 : i64}
  proto.field "vals" = 3 : sint32 repeated packed {offset = 24 : i64}
  proto.field "sub" = 16 : message<@M> optional {offset = 0 : i64}
  proto.field "x" = 4 : fixed64 optional {offset = 32 : i64, presence_bit = 0 : i32}
}

// The decoder: the read limit once, then a loop. Below the limit, one load
// and a switch on the first byte: one-byte tags go straight to the
// handlers' fast entries, the first byte of a two-byte tag (130 = 82 01)
// to a switch on the second byte. Everything else, and everything near the
// end of the input, goes to the full tag read and a switch on the whole tag
// (field number and wire type), with a handler per (field, wire type)
// taking the tag's start and end. The packed field is accepted in both
// forms (24 unpacked, 26 packed).
// CHECK-LABEL: llvm.func @pbc__M_dec(
// CHECK-NEXT: %[[DEC:.*]] = wire.decoder %arg3
// CHECK-NEXT: %[[LIMIT:.*]] = wire.read_limit %[[DEC]], %arg2
// CHECK: ^bb1(%[[POS:.*]]: !llvm.ptr):
// CHECK-NEXT: %[[BELOW:.*]] = llvm.icmp "ult" %[[POS]], %[[LIMIT]]
// CHECK-NEXT: llvm.cond_br %[[BELOW]], ^[[FASTTAG:bb[0-9]+]](%[[POS]] : !llvm.ptr), ^[[CHECKEND:bb[0-9]+]]
// CHECK: ^[[FASTTAG]](%[[P:.*]]: !llvm.ptr):
// CHECK-NEXT: %[[AFTER:.*]] = llvm.getelementptr inbounds %[[P]][1]
// CHECK-NEXT: %[[BYTE:.*]] = llvm.load %[[P]] : !llvm.ptr -> i8
// CHECK-NEXT: %[[WIDE:.*]] = arith.extui %[[BYTE]]
// CHECK-NEXT: llvm.switch %[[WIDE]] : i32, ^[[READTAG:bb[0-9]+]](%[[P]] : !llvm.ptr) [
// CHECK-NEXT: 8: ^[[FAST1:bb[0-9]+]](%[[P]], %[[AFTER]] : !llvm.ptr, !llvm.ptr),
// CHECK-NEXT: 18: ^[[FAST2:bb[0-9]+]](%[[P]], %[[AFTER]] : !llvm.ptr, !llvm.ptr),
// CHECK-NEXT: 24: ^
// CHECK-NEXT: 26: ^
// CHECK-NEXT: 33: ^
// CHECK-NEXT: 130: ^[[TWOBYTE:bb[0-9]+]]
// CHECK-NEXT: ]
// At the end of the input: exactly there (a fast read that ran past the
// end is truncated) and not inside a group.
// CHECK: ^[[CHECKEND]]:
// CHECK-NEXT: llvm.icmp "uge" %[[POS]], %arg2
// CHECK: llvm.icmp "eq" %[[POS]], %arg2
// CHECK: ^[[READTAG]](%[[TAGSTART:.*]]: !llvm.ptr):
// CHECK-NEXT: %[[NEXT:.*]], %[[TAG:.*]] = wire.get_tag %[[DEC]], %[[TAGSTART]]
// CHECK: llvm.switch %[[TAG]] : i32, ^[[UNKNOWN:bb[0-9]+]] [
// CHECK-NEXT: 8: ^[[F1:bb[0-9]+]](%[[TAGSTART]], %[[NEXT]] : !llvm.ptr, !llvm.ptr),
// CHECK-NEXT: 18: ^[[F2:bb[0-9]+]](%[[TAGSTART]], %[[NEXT]] : !llvm.ptr, !llvm.ptr),
// CHECK-NEXT: 24: ^
// CHECK-NEXT: 26: ^[[F3:bb[0-9]+]](
// CHECK-NEXT: 33: ^[[F4:bb[0-9]+]](
// CHECK-NEXT: 130: ^
// The hoisted bounds check: entered through the full switch, a handler
// compares its position with the limit once; below it, the fast entry
// reads with no bounds check (`unchecked`), else the checked read.
// CHECK: ^[[F1]](%[[F1START:.*]]: !llvm.ptr, %[[F1AFTER:.*]]: !llvm.ptr):
// CHECK-NEXT: %[[ROOM:.*]] = llvm.icmp "ult" %[[F1AFTER]], %[[LIMIT]]
// CHECK-NEXT: llvm.cond_br %[[ROOM]], ^[[FAST1]](%[[F1START]], %[[F1AFTER]] : !llvm.ptr, !llvm.ptr), ^[[SLOW1:bb[0-9]+]]
// CHECK: ^[[FAST1]](%{{.*}}: !llvm.ptr, %[[A1:.*]]: !llvm.ptr):
// CHECK-NEXT: wire.get_varint %[[DEC]], %[[A1]], %arg2 unchecked rare_long{{$}}
// CHECK: ^[[SLOW1]]:
// CHECK-NEXT: wire.get_varint %[[DEC]], %[[F1AFTER]], %arg2 rare_long{{$}}
// The in-order chain: after field 1, one comparison with the limit, then
// field 2's tag (no bounds check) and a jump to its fast entry; a miss goes
// to the first-byte switch.
// CHECK: ^{{bb[0-9]+}}(%{{.*}}: !llvm.ptr, %[[NEXT1:.*]]: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i64):
// CHECK: %[[C:.*]] = llvm.icmp "ult" %[[NEXT1]], %[[LIMIT]]
// CHECK-NEXT: llvm.cond_br %[[C]], ^[[CHAIN:bb[0-9]+]], ^bb1(%[[NEXT1]] : !llvm.ptr)
// CHECK: ^[[CHAIN]]:
// CHECK-NEXT: %[[HIT:.*]] = wire.expect_tag %[[NEXT1]], %arg2, "\12" unchecked
// CHECK-NEXT: %[[SKIPTAG:.*]] = llvm.getelementptr inbounds %[[NEXT1]][1]
// CHECK-NEXT: llvm.cond_br %[[HIT]], ^[[FAST2]](%[[NEXT1]], %[[SKIPTAG]] : !llvm.ptr, !llvm.ptr), ^[[MISS:bb[0-9]+]]
// CHECK: ^[[MISS]]:
// CHECK-NEXT: llvm.br ^[[FASTTAG]](%[[NEXT1]] : !llvm.ptr)
// A repeated field expects itself first (its usual, packed tag), then the
// next field.
// (The unpacked handler of field 3 appends its element first.)
// CHECK: wire.grow %{{.*}}, 4
// CHECK: wire.expect_tag %{{.*}}, %arg2, "\1A" unchecked
// CHECK-NEXT: llvm.getelementptr
// CHECK-NEXT: llvm.cond_br %{{.*}}, ^{{.*}}, ^[[MISS3:bb[0-9]+]]
// CHECK: ^[[MISS3]]:
// CHECK-NEXT: wire.expect_tag %{{.*}}, %arg2, "!" unchecked
// Unknown fields: END_GROUP ends a group, anything else is skipped and
// kept, from its tag to its end.
// CHECK: ^[[UNKNOWN]]:
// CHECK: wire.skip
// CHECK: wire.keep_unknown %[[DEC]], %{{.*}}, %[[TAGSTART]], %{{.*}}
// CHECK: wire.fail %{{.*}}, 6
// CHECK-LABEL: llvm.func @M_decode(
