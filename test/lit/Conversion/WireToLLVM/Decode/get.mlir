// wire-to-llvm, Decode.cpp: the get_* ops and expect_tag, checked or not.
// RUN: pbc-opt %s -split-input-file -wire-to-llvm | FileCheck %s

// Tags: the one- and two-byte forms (field number >= 1) inline, straight
// line, the rest in the runtime.
// CHECK-LABEL: llvm.func @get_tag
// CHECK: %[[SLOT:.*]] = llvm.alloca %{{.*}} x i32
// CHECK-NEXT: %[[ANY:.*]] = llvm.icmp "ult" %arg1, %arg2 : !llvm.ptr
// CHECK: llvm.cond_br %[[ANY]], ^[[ONE:bb[0-9]+]], ^[[SLOW:bb[0-9]+]]
// CHECK: ^[[ONE]]:
// CHECK: %[[BYTE:.*]] = llvm.load %arg1 : !llvm.ptr -> i8
// CHECK: %[[REL:.*]] = llvm.sub %[[BYTE]], %{{.*}} : i8
// CHECK: %[[FITS:.*]] = llvm.icmp "ult" %[[REL]], %{{.*}} : i8
// CHECK: llvm.cond_br %[[FITS]], ^[[DONE:bb[0-9]+]]({{.*}}), ^[[SECOND:bb[0-9]+]]
// CHECK: ^[[SECOND]]:
// CHECK: %[[AFTER1:.*]] = llvm.getelementptr %arg1[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT: %[[TWO:.*]] = llvm.icmp "ult" %[[AFTER1]], %arg2 : !llvm.ptr
// CHECK: llvm.cond_br %[[TWO]], ^[[TWOBYTES:bb[0-9]+]], ^[[SLOW]]
// CHECK: ^[[TWOBYTES]]:
// CHECK: %[[B1:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i8
// CHECK: %[[HIGH:.*]] = llvm.shl %{{.*}}, %{{.*}} : i32
// CHECK: %[[V:.*]] = llvm.or %{{.*}}, %[[HIGH]]
// CHECK: llvm.icmp "uge" %[[V]]
// CHECK: llvm.cond_br %{{.*}}, ^[[DONE]](%{{.*}}, %[[V]] : !llvm.ptr, i32), ^[[SLOW]]
// CHECK: ^[[SLOW]]:
// CHECK: llvm.call @pbc_rt_tag(%arg0, %arg1, %arg2, %[[SLOT]])
// CHECK: ^[[DONE]](%{{.*}}: !llvm.ptr, %{{.*}}: i32):
llvm.func @get_tag(%state: !llvm.ptr, %p: !llvm.ptr, %end: !llvm.ptr) -> i32 {
  %d = wire.decoder %state
  %next, %tag = wire.get_tag %d, %p, %end
  llvm.return %tag : i32
}

// -----

// Lengths near the end of the input (checked): a one-byte length inline,
// bounds and payload checked; any other read and checked by the runtime,
// one call where the inline varint and its checks were.
// CHECK-LABEL: llvm.func @get_length
// CHECK: %[[SLOT:.*]] = llvm.alloca %{{.*}} x i64
// CHECK: %[[ANY:.*]] = llvm.icmp "ult" %arg1, %arg2
// CHECK-NEXT: llvm.cond_br %[[ANY]], ^[[FIRST:bb[0-9]+]], ^[[GENERAL:bb[0-9]+]]
// CHECK: ^[[FIRST]]:
// CHECK-NEXT: %[[B0:.*]] = llvm.load %arg1 : !llvm.ptr -> i8
// CHECK: %[[ONE:.*]] = llvm.icmp "sge" %[[B0]]
// CHECK-NEXT: llvm.cond_br %[[ONE]], ^[[ONEBB:bb[0-9]+]], ^[[GENERAL]]
// CHECK: ^[[ONEBB]]:
// CHECK: %[[LASTBYTE:.*]] = llvm.getelementptr %arg1[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT: %[[FITS:.*]] = llvm.icmp "ult" %[[LASTBYTE]], %arg2 : !llvm.ptr
// CHECK: llvm.cond_br %[[FITS]], ^[[DONE:bb[0-9]+]](%{{.*}}, %{{.*}} : !llvm.ptr, i64), ^[[BAD:bb[0-9]+]](
// CHECK: ^[[GENERAL]]:
// CHECK-NEXT: %[[NEXT:.*]] = llvm.call @pbc_rt_length(%arg0, %arg1, %arg2, %[[SLOT]])
// CHECK-NEXT: %[[LEN:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> i64
// CHECK-NEXT: llvm.br ^[[DONE]](%[[NEXT]], %[[LEN]] : !llvm.ptr, i64)
// CHECK: ^[[BAD]](%[[CODE:.*]]: i32):
// CHECK-NEXT: llvm.call @pbc_rt_fail(%arg0, %[[CODE]])
// CHECK-NOT: pbc_rt_varint
// CHECK: llvm.return
llvm.func @get_length(%state: !llvm.ptr, %p: !llvm.ptr, %end: !llvm.ptr) -> i64 {
  %d = wire.decoder %state
  %next, %len = wire.get_length %d, %p, %end
  llvm.return %len : i64
}

// -----

// Fixed values: one bounds check (the value's end against the input's),
// one unaligned load.
// CHECK-LABEL: llvm.func @get_fixed
// CHECK: %[[VALUEEND:.*]] = llvm.getelementptr %arg1[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT: llvm.icmp "ule" %[[VALUEEND]], %arg2 : !llvm.ptr
// CHECK: llvm.load %arg1 {alignment = 1 : i64} : !llvm.ptr -> f32
// CHECK: llvm.call @pbc_rt_fail(
llvm.func @get_fixed(%state: !llvm.ptr, %p: !llvm.ptr, %end: !llvm.ptr) -> f32 {
  %d = wire.decoder %state
  %next, %v = wire.get_fixed %d, %p, %end : f32
  llvm.return %v : f32
}

// -----

// expect_tag: one bounds check, then the tag bytes as one integer load.
// CHECK-LABEL: llvm.func @expect_tag
// CHECK: %[[TAGEND:.*]] = llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT: %[[ENOUGH:.*]] = llvm.icmp "ule" %[[TAGEND]], %arg1 : !llvm.ptr
// CHECK: llvm.cond_br %[[ENOUGH]], ^[[CMP:bb[0-9]+]], ^[[DONE:bb[0-9]+]](%{{.*}} : i1)
// CHECK: ^[[CMP]]:
// CHECK: %[[WORD:.*]] = llvm.load %arg0 {alignment = 1 : i64} : !llvm.ptr -> i16
// CHECK: %[[TAG:.*]] = llvm.mlir.constant(394 : i16)
// CHECK: %[[SAME:.*]] = llvm.icmp "eq" %[[WORD]], %[[TAG]] : i16
// CHECK: llvm.br ^[[DONE]](%[[SAME]] : i1)
llvm.func @expect_tag(%p: !llvm.ptr, %end: !llvm.ptr) -> i1 {
  %0 = wire.expect_tag %p, %end, "\8A\01"
  llvm.return %0 : i1
}

// -----

// Hoisted bounds checks: below wire.read_limit (RuntimeCalls/) a decoder
// reads with no bounds check (`unchecked`). An unchecked varint starts
// with its first byte: no comparison with the end before.
// CHECK-LABEL: llvm.func @get_varint_unchecked
// CHECK-NOT: llvm.icmp "sgt"
// CHECK: %[[B0:.*]] = llvm.load %arg1 : !llvm.ptr -> i8
// CHECK: %[[NEXT1:.*]] = llvm.getelementptr inbounds %arg1[1]
// CHECK: llvm.cond_br %{{.*}}, ^[[DONE:bb[0-9]+]](%[[NEXT1]], %{{.*}} : !llvm.ptr, i64), ^
// CHECK-NOT: llvm.icmp "sgt"
// The second byte's address is inbounds too: LLVM merges it with the
// one-byte form's next position, which must stay provably non-null.
// CHECK: %[[AT1:.*]] = llvm.getelementptr inbounds %arg1[1]
// CHECK: llvm.load %[[AT1]] : !llvm.ptr -> i8
// CHECK: llvm.getelementptr inbounds %arg1[2]
// CHECK: llvm.call @pbc_rt_varint_unchecked(%arg0, %arg1, %arg2, %{{.*}})
llvm.func @get_varint_unchecked(%state: !llvm.ptr, %p: !llvm.ptr, %end: !llvm.ptr) -> i64 {
  %d = wire.decoder %state
  %next, %v = wire.get_varint %d, %p, %end unchecked
  llvm.return %v : i64
}

// -----

// A `rare_long` varint keeps the inline one- and two-byte forms but reads
// the longer ones with a call the generated code never inlines: unchecked,
// pbc_rt_varint_long (the word-wide read, out of line).
// CHECK-LABEL: llvm.func @get_varint_rare_long
// CHECK-NOT: llvm.icmp "sgt"
// CHECK: llvm.load %arg1 : !llvm.ptr -> i8
// CHECK-NOT: pbc_rt_varint_unchecked
// CHECK: llvm.call @pbc_rt_varint_long(%arg0, %arg1, %arg2, %{{.*}})
// CHECK-NOT: pbc_rt_varint_unchecked
// CHECK: llvm.return
llvm.func @get_varint_rare_long(%state: !llvm.ptr, %p: !llvm.ptr, %end: !llvm.ptr) -> i64 {
  %d = wire.decoder %state
  %next, %v = wire.get_varint %d, %p, %end unchecked rare_long
  llvm.return %v : i64
}

// -----

// Checked (near the end of the input, a few reads a message), rare_long:
// the one-byte form inline, any other the bounds-checked pbc_rt_varint, no
// inline two-byte form.
// CHECK-LABEL: llvm.func @get_varint_rare_long_checked
// CHECK: %[[SLOT:.*]] = llvm.alloca %{{.*}} x i64
// CHECK-NEXT: %[[ANY:.*]] = llvm.icmp "ult" %arg1, %arg2 : !llvm.ptr
// CHECK-NEXT: llvm.cond_br %[[ANY]], ^[[ONE:bb[0-9]+]], ^[[SLOW:bb[0-9]+]]
// CHECK: ^[[ONE]]:
// CHECK-NEXT: llvm.load %arg1 : !llvm.ptr -> i8
// CHECK: llvm.cond_br %{{.*}}, ^[[DONE:bb[0-9]+]]({{.*}}), ^[[SLOW]]
// CHECK-NEXT: ^[[SLOW]]:
// CHECK-NEXT: llvm.call @pbc_rt_varint(%arg0, %arg1, %arg2, %[[SLOT]])
// CHECK-NOT: pbc_rt_varint_long
// CHECK: llvm.return
llvm.func @get_varint_rare_long_checked(%state: !llvm.ptr, %p: !llvm.ptr, %end: !llvm.ptr) -> i64 {
  %d = wire.decoder %state
  %next, %v = wire.get_varint %d, %p, %end rare_long
  llvm.return %v : i64
}

// -----

// A one-byte length has a path of its own: only the payload is checked, by
// where its last byte is (pos + len, before `end`; an unchecked read may
// have run past the end, and then so does that byte).
// CHECK-LABEL: llvm.func @get_length_unchecked
// CHECK-NEXT: llvm.mlir.constant
// CHECK-NEXT: llvm.alloca
// CHECK-NEXT: llvm.br ^[[FIRST:bb[0-9]+]]
// CHECK: ^[[FIRST]]:
// CHECK-NEXT: %[[B0:.*]] = llvm.load %arg1 : !llvm.ptr -> i8
// CHECK: %[[ONE:.*]] = llvm.icmp "sge" %[[B0]]
// CHECK-NEXT: llvm.cond_br %[[ONE]], ^[[ONEBB:bb[0-9]+]], ^[[GENERAL:bb[0-9]+]]
// CHECK: ^[[ONEBB]]:
// CHECK-NEXT: %[[NEXT:.*]] = llvm.getelementptr inbounds %arg1[1]
// CHECK-NEXT: %[[LEN:.*]] = llvm.zext %[[B0]] : i8 to i64
// CHECK-NEXT: %[[LASTBYTE:.*]] = llvm.getelementptr %arg1[%[[LEN]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT: %[[FITS:.*]] = llvm.icmp "ult" %[[LASTBYTE]], %arg2 : !llvm.ptr
// CHECK: llvm.cond_br %[[FITS]], ^[[DONE:bb[0-9]+]](%[[NEXT]], %[[LEN]] : !llvm.ptr, i64), ^[[BAD:bb[0-9]+]](
// Lengths of three bytes and more (16 KiB and up) are read out of line;
// any longer length then fits when its payload ends by `end` (next + len,
// below 2^35 past a position in the input: no wrap), it is not null and
// took at most 5 bytes.
// CHECK: ^[[GENERAL]]:
// CHECK: llvm.call @pbc_rt_varint_long(
// CHECK: ^{{bb[0-9]+}}(%[[LNEXT:.*]]: !llvm.ptr, %[[LLEN:.*]]: i64):
// CHECK-NEXT: %[[PAYLOADEND:.*]] = llvm.getelementptr %[[LNEXT]][%[[LLEN]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT: llvm.icmp "ule" %[[PAYLOADEND]], %arg2 : !llvm.ptr
// CHECK: ^[[BAD]](%[[CODE:.*]]: i32):
// CHECK-NEXT: llvm.call @pbc_rt_fail(%arg0, %[[CODE]])
llvm.func @get_length_unchecked(%state: !llvm.ptr, %p: !llvm.ptr, %end: !llvm.ptr) -> i64 {
  %d = wire.decoder %state
  %next, %len = wire.get_length %d, %p, %end unchecked
  llvm.return %len : i64
}

// -----

// CHECK-LABEL: llvm.func @get_fixed_unchecked
// CHECK-NEXT: llvm.load %arg1 {alignment = 1 : i64} : !llvm.ptr -> f32
// CHECK-NEXT: llvm.getelementptr inbounds %arg1[4]
// CHECK-NEXT: llvm.return
llvm.func @get_fixed_unchecked(%state: !llvm.ptr, %p: !llvm.ptr, %end: !llvm.ptr) -> f32 {
  %d = wire.decoder %state
  %next, %v = wire.get_fixed %d, %p, %end unchecked : f32
  llvm.return %v : f32
}

// -----

// CHECK-LABEL: llvm.func @expect_tag_unchecked
// CHECK-NEXT: %[[WORD:.*]] = llvm.load %arg0 {alignment = 1 : i64} : !llvm.ptr -> i16
// CHECK-NEXT: %[[TAG:.*]] = llvm.mlir.constant(394 : i16)
// CHECK-NEXT: %[[SAME:.*]] = llvm.icmp "eq" %[[WORD]], %[[TAG]] : i16
// CHECK-NEXT: llvm.return %[[SAME]]
llvm.func @expect_tag_unchecked(%p: !llvm.ptr, %end: !llvm.ptr) -> i1 {
  %0 = wire.expect_tag %p, %end, "\8A\01" unchecked
  llvm.return %0 : i1
}
