// proto-to-wire: specialized codec functions, constant tags, a tag switch.
// RUN: pbc-opt %s -proto-to-wire | FileCheck %s
// RUN: pbc-opt %s -proto-to-wire | FileCheck %s --check-prefix=HANDLERS
// RUN: pbc-opt %s -proto-to-wire | FileCheck %s --check-prefix=BYTE2
// RUN: pbc-opt %s -proto-to-wire=files=other.proto | FileCheck %s --check-prefix=DECL

proto.file "a.proto" package "" proto3 imports []
proto.message @M file "a.proto" attributes {align = 8 : i64, presence_words = 1 : i64, size = 64 : i64, unknown_offset = 48 : i64} {
  proto.field "id" = 1 : int32 implicit {offset = 40 : i64}
  proto.field "name" = 2 : string implicit utf8 {offset = 8 : i64}
  proto.field "vals" = 3 : sint32 repeated packed {offset = 24 : i64}
  proto.field "sub" = 16 : message<@M> optional {offset = 0 : i64}
  proto.field "x" = 4 : fixed64 optional {offset = 32 : i64, presence_bit = 0 : i32}
}

// T_init zeroes the struct.
// CHECK-LABEL: llvm.func @M_init(
// CHECK: "llvm.intr.memset"(%arg0, %{{.*}}, %{{.*}})

// The size adds each field's size under a branch on its presence, so an
// absent field costs a test (presence-bit groups: size-groups.mlir).
// CHECK-LABEL: llvm.func @M_encoded_size(
// The unknown fields' size starts the sum.
// CHECK: %[[UNK:.*]] = llvm.getelementptr inbounds %arg0[48]
// CHECK: %[[UNKSIZE:.*]] = llvm.getelementptr inbounds %[[UNK]][8]
// CHECK: %[[TOTAL0:.*]] = llvm.load %[[UNKSIZE]] : !llvm.ptr -> i64
// x (fixed64, presence bit 0): a constant 9 bytes with its tag.
// CHECK: %[[WORD:.*]] = llvm.load %arg0 : !llvm.ptr -> i32
// CHECK: %[[XBIT:.*]] = arith.andi %[[WORD]], %c1_i32
// CHECK: %[[HASX:.*]] = arith.cmpi ne, %[[XBIT]]
// CHECK: %[[TOTAL1:.*]] = scf.if %[[HASX]] -> (i64) {
// CHECK: arith.addi %[[TOTAL0]], %c9_i64
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[TOTAL0]]
// id (proto3 implicit presence): written when not zero; its varint size
// is computed only then, and the 1-byte tag is a constant.
// CHECK: %[[ID:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK: %[[NZ:.*]] = arith.cmpi ne, %[[ID]]
// CHECK: scf.if %[[NZ]] -> (i64) {
// CHECK: %[[WIDE:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK: %[[VS:.*]] = wire.varint_size %[[WIDE]] : i64
// CHECK: %[[WITHTAG:.*]] = arith.addi %[[VS]], %c1_i64
// CHECK: arith.addi %[[TOTAL1]], %[[WITHTAG]]
// The sub-message, then the repeated fields (summed last, see
// size-groups.mlir). Packed: one size over the run, zigzag folded into the
// element size.
// CHECK: llvm.call @M_encoded_size(
// CHECK: scf.for
// CHECK: wire.zigzag_encode
// CHECK: wire.varint_size

// The encoder writes backwards from %arg1, highest field number first, each
// value before its constant tag, and checks its room against the limit
// %arg2: one comparison against a bound good for any value, the exact size
// only when that fails.
// CHECK-LABEL: llvm.func @pbc__M_enc(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr) -> !llvm.ptr
// Unknown fields last in the output, so first written; when there are
// none, no copy.
// CHECK: %[[UNKNOWN:.*]] = llvm.getelementptr inbounds %arg0[48]
// CHECK: %[[UNKSIZE:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK: %[[ANYUNK:.*]] = arith.cmpi ne, %[[UNKSIZE]], %c0_i64
// CHECK: llvm.cond_br %[[ANYUNK]]
// CHECK: wire.put_data %arg1, %{{.*}}, %[[UNKSIZE]]
// The sub-message (field 16) checks its own room; then its length and tag:
// at most 12 bytes, exactly varint_size + 2.
// CHECK: llvm.call @pbc__M_enc(%{{.*}}, %{{.*}}, %arg2)
// CHECK: %[[C12:.*]] = arith.constant 12 : i64
// CHECK: %[[ROOM:.*]] = arith.subi
// CHECK: arith.cmpi sge, %[[ROOM]], %[[C12]]
// CHECK: wire.put_varint
// CHECK: wire.put_bytes %{{.*}}, "\82\01"
// CHECK: wire.varint_size
// Field 4, fixed64 (its 9-byte bound was checked before the sub-message's
// blocks in the output).
// CHECK: wire.put_fixed %{{.*}} : i64
// CHECK: wire.put_bytes %{{.*}}, "!"
// The packed field: a loop over the elements, last first. With room for
// 10 bytes an element, checked once, no element checks its own, and a long
// varint may spill a word into the free bytes below it ({slack}); near the
// front of the buffer, a second loop checks each element.
// CHECK: %[[PACKEDBOUND:.*]] = arith.muli %{{.*}}, %c10_i64
// CHECK: %[[PACKEDROOMY:.*]] = arith.cmpi sge, %{{.*}}, %[[PACKEDBOUND]]
// CHECK: llvm.cond_br %[[PACKEDROOMY]]
// CHECK: wire.zigzag_encode
// CHECK-NEXT: arith.extui
// CHECK-NEXT: wire.put_varint %{{.*}}, %{{.*}} {slack}
// CHECK-NEXT: llvm.br
// CHECK: arith.cmpi sge, %{{.*}}, %c10_i64
// CHECK: wire.put_varint %{{.*}}, %{{.*}} {slack}
// CHECK: wire.varint_size
// CHECK: wire.put_varint
// CHECK-NOT: {slack}
// CHECK: wire.put_bytes %{{.*}}, "\1A"
// CHECK: wire.put_data
// CHECK: wire.put_bytes %{{.*}}, "\12"
// CHECK: wire.put_bytes %{{.*}}, "\08"
// CHECK: llvm.return

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
// CHECK-NEXT: wire.get_varint %[[DEC]], %[[A1]], %arg2 unchecked
// CHECK: ^[[SLOW1]]:
// CHECK-NEXT: wire.get_varint %[[DEC]], %[[F1AFTER]], %arg2{{$}}
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
// CHECK: wire.utf8_valid
// A repeated field expects itself first (its usual, packed tag), then the
// next field.
// CHECK: wire.grow %{{.*}}, 4
// CHECK: wire.expect_tag %{{.*}}, %arg2, "\1A" unchecked
// CHECK-NEXT: llvm.getelementptr
// CHECK-NEXT: llvm.cond_br %{{.*}}, ^{{.*}}, ^[[MISS3:bb[0-9]+]]
// CHECK: ^[[MISS3]]:
// CHECK-NEXT: wire.expect_tag %{{.*}}, %arg2, "!" unchecked
// The second byte of a two-byte tag (82 01, field 16): a hit goes to the
// handler's fast entry past both bytes; anything else to the full read.
// BYTE2-LABEL: llvm.func @pbc__M_dec(
// BYTE2: llvm.switch %{{.*}} : i32, ^[[READTAG:bb[0-9]+]](%[[P:.*]] : !llvm.ptr) [
// BYTE2: 130: ^[[SECONDBB:bb[0-9]+]]
// BYTE2: ^[[SECONDBB]]:
// BYTE2-NEXT: %[[PAST:.*]] = llvm.getelementptr inbounds %[[P]][2]
// BYTE2-NEXT: %[[B1:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i8
// BYTE2-NEXT: %[[W1:.*]] = arith.extui %[[B1]]
// BYTE2-NEXT: llvm.switch %[[W1]] : i32, ^[[READTAG]](%[[P]] : !llvm.ptr) [
// BYTE2-NEXT: 1: ^{{bb[0-9]+}}(%[[P]], %[[PAST]] : !llvm.ptr, !llvm.ptr)
// The other handlers, in any order.
// HANDLERS-LABEL: llvm.func @pbc__M_dec(
// HANDLERS-NEXT: %[[DEC:.*]] = wire.decoder %arg3
// A packed run of varints: its elements counted, the array grown once,
// then a loop that reads and stores; the size is set after the run.
// Up to 10 bytes before the run's end the loop reads with no bounds check.
// HANDLERS-DAG: %[[COUNT:.*]] = wire.count_varints %[[FIRST:.*]], %[[RUNEND:.*]]
// HANDLERS-DAG: wire.grow %[[DEC]], %{{.*}}, %{{.*}}, %[[COUNT]], 4
// HANDLERS-DAG: %[[SLACK:.*]] = arith.maxui %[[LEN:.*]], %c10_i64
// HANDLERS-DAG: %[[FASTLEN:.*]] = arith.subi %[[SLACK]], %c10_i64
// HANDLERS-DAG: %[[FASTEND:.*]] = llvm.getelementptr %[[FIRST]][%[[FASTLEN]]]
// HANDLERS-DAG: llvm.icmp "ult" %{{.*}}, %[[FASTEND]]
// HANDLERS-DAG: wire.get_varint %[[DEC]], %{{.*}}, %[[RUNEND]] unchecked
// HANDLERS-DAG: wire.get_varint %[[DEC]], %{{.*}}, %[[RUNEND]]{{$}}
// HANDLERS-DAG: wire.fail %{{.*}}, 7
// HANDLERS-DAG: wire.get_fixed %{{.*}} : i64
// HANDLERS-DAG: wire.alloc %{{.*}}, 64
// HANDLERS-DAG: llvm.call @M_init(
// HANDLERS-DAG: wire.push
// HANDLERS-DAG: llvm.call @pbc__M_dec(
// HANDLERS-DAG: wire.pop
// HANDLERS: llvm.func @M_decode(
// Unknown fields: END_GROUP ends a group, anything else is skipped and
// kept, from its tag to its end.
// CHECK: ^[[UNKNOWN]]:
// CHECK: wire.skip
// CHECK: wire.keep_unknown %[[DEC]], %{{.*}}, %[[TAGSTART]], %{{.*}}
// CHECK: wire.fail %{{.*}}, 6

// CHECK-LABEL: llvm.func @M_decode(
// CHECK: llvm.call @pbc_rt_decode(
// CHECK-LABEL: llvm.func @M_encode(
// CHECK: llvm.call @pbc_rt_encode(

// The by-name table: a record per message (public as M_info), a pointer to
// it in `pbc_msgs`.
// CHECK: llvm.mlir.global internal constant @pbc__M_name("M\00")
// CHECK: llvm.mlir.global weak_odr constant @M_info()
// CHECK: llvm.mlir.global internal @pbc__M_entry() {{.*}}section = "pbc_msgs"
// CHECK: llvm.mlir.global appending @llvm.used()

// Messages of files not selected are only declared.
// DECL: llvm.func @M_init(!llvm.ptr)
// DECL: llvm.func @M_encoded_size(!llvm.ptr) -> i64
// DECL: llvm.func @pbc__M_enc(!llvm.ptr, !llvm.ptr, !llvm.ptr) -> !llvm.ptr
// DECL: llvm.func @pbc__M_dec(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32) -> !llvm.ptr
// DECL-NOT: llvm.func @M_decode
// DECL-NOT: pbc_msgs
