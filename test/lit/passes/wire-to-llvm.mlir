// wire-to-llvm: each op's expansion.
// RUN: pbc-opt %s -wire-to-llvm | FileCheck %s

// Branch-free varint size: ((64 - ctlz(v | 1)) * 9 + 64) >> 6.
// CHECK-LABEL: llvm.func @varint_size
// CHECK: %[[OR:.*]] = llvm.or %arg0, %{{.*}} : i64
// CHECK: %[[LZ:.*]] = "llvm.intr.ctlz"(%[[OR]]) <{is_zero_poison = true}>
// CHECK: %[[BITS:.*]] = llvm.sub %{{.*}}, %[[LZ]]
// CHECK: llvm.mul %[[BITS]], %{{.*}}
// CHECK: llvm.lshr
// CHECK-NOT: llvm.cond_br
llvm.func @varint_size(%v: i64) -> i64 {
  %s = wire.varint_size %v : i64
  llvm.return %s : i64
}

// Constant bytes: 3 bytes become a 2-byte and a 1-byte store.
// CHECK-LABEL: llvm.func @put_bytes
// CHECK: %[[START:.*]] = llvm.getelementptr %arg0[%{{.*}}]
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 1 : i64} : i16, !llvm.ptr
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 1 : i64} : i8, !llvm.ptr
// CHECK: llvm.return %[[START]]
llvm.func @put_bytes(%p: !llvm.ptr) -> !llvm.ptr {
  %0 = wire.put_bytes %p, "\0A\12\1A"
  llvm.return %0 : !llvm.ptr
}

// CHECK-LABEL: llvm.func @put_fixed
// CHECK: %[[START:.*]] = llvm.getelementptr %arg0[%{{.*}}]
// CHECK: llvm.store %arg1, %[[START]] {alignment = 1 : i64} : f64, !llvm.ptr
llvm.func @put_fixed(%p: !llvm.ptr, %v: f64) -> !llvm.ptr {
  %0 = wire.put_fixed %p, %v : f64
  llvm.return %0 : !llvm.ptr
}

// Backwards varints: one byte (below 0x80) and two bytes (below 0x4000) are
// one store each, the rest goes to the runtime.
// CHECK-LABEL: llvm.func @put_varint
// CHECK: %[[ONE:.*]] = llvm.icmp "ult" %arg1, %{{.*}} : i64
// CHECK: llvm.cond_br %[[ONE]], ^[[B1:bb[0-9]+]], ^[[NOT1:bb[0-9]+]]
// CHECK: ^[[B1]]:
// CHECK: %[[P1:.*]] = llvm.getelementptr %arg0[%{{.*}}]
// CHECK: %[[BYTE:.*]] = llvm.trunc %arg1 : i64 to i8
// CHECK: llvm.store %[[BYTE]], %[[P1]] {alignment = 1 : i64} : i8, !llvm.ptr
// CHECK: llvm.br ^[[DONE:bb[0-9]+]](%[[P1]] : !llvm.ptr)
// CHECK: ^[[NOT1]]:
// CHECK: %[[TWO:.*]] = llvm.icmp "ult" %arg1, %{{.*}} : i64
// CHECK: llvm.cond_br %[[TWO]], ^[[B2:bb[0-9]+]], ^[[SLOW:bb[0-9]+]]
// CHECK: ^[[B2]]:
// CHECK: llvm.or
// CHECK: llvm.lshr %arg1
// CHECK: %[[PAIR:.*]] = llvm.trunc %{{.*}} : i64 to i16
// CHECK: llvm.store %[[PAIR]], %{{.*}} {alignment = 1 : i64} : i16, !llvm.ptr
// CHECK: ^[[SLOW]]:
// CHECK: llvm.call @pbc_rt_put_varint(%arg0, %arg1)
// CHECK: ^[[DONE]](%[[START:.*]]: !llvm.ptr):
// CHECK: llvm.return %[[START]]
llvm.func @put_varint(%p: !llvm.ptr, %v: i64) -> !llvm.ptr {
  %0 = wire.put_varint %p, %v
  llvm.return %0 : !llvm.ptr
}

// With slack (room checked for 10 bytes), the long forms go to the
// runtime's one-word writer.
// CHECK-LABEL: llvm.func @put_varint_slack
// CHECK: llvm.call @pbc_rt_put_varint_slack(%arg0, %arg1)
llvm.func @put_varint_slack(%p: !llvm.ptr, %v: i64) -> !llvm.ptr {
  %0 = wire.put_varint %p, %v {slack}
  llvm.return %0 : !llvm.ptr
}

// Bytes: up to 64 copied inline by two overlapping loads and stores of 32,
// 16, 8, 4 or 1 bytes, longer ones by memcpy.
// CHECK-LABEL: llvm.func @put_data
// CHECK: %[[START:.*]] = llvm.getelementptr %arg0[%{{.*}}]
// CHECK: %[[SMALL:.*]] = llvm.icmp "ult" %arg2, %{{.*}} : i64
// CHECK: llvm.cond_br %[[SMALL]], ^[[SMALLBB:bb[0-9]+]], ^[[OVER16:bb[0-9]+]]
// CHECK: ^[[OVER16]]:
// CHECK: %[[C33:.*]] = llvm.mlir.constant(33 : i64) : i64
// CHECK: %[[LT33:.*]] = llvm.icmp "ult" %arg2, %[[C33]] : i64
// CHECK: llvm.cond_br %[[LT33]], ^[[V16:bb[0-9]+]], ^[[OVER32:bb[0-9]+]]
// CHECK: ^[[V16]]:
// CHECK: llvm.load %arg1 {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
// CHECK: llvm.store %{{.*}}, %[[START]] {alignment = 1 : i64} : vector<16xi8>, !llvm.ptr
// CHECK: ^[[OVER32]]:
// CHECK: %[[C65:.*]] = llvm.mlir.constant(65 : i64) : i64
// CHECK: %[[LT65:.*]] = llvm.icmp "ult" %arg2, %[[C65]] : i64
// CHECK: llvm.cond_br %[[LT65]], ^[[V32:bb[0-9]+]], ^[[BIG:bb[0-9]+]]
// CHECK: ^[[V32]]:
// CHECK: llvm.load %arg1 {alignment = 1 : i64} : !llvm.ptr -> vector<32xi8>
// CHECK: llvm.store %{{.*}}, %[[START]] {alignment = 1 : i64} : vector<32xi8>, !llvm.ptr
// CHECK: ^[[BIG]]:
// CHECK: "llvm.intr.memcpy"(%[[START]], %arg1, %arg2)
// CHECK: ^[[SMALLBB]]:
// CHECK: %[[TAIL8:.*]] = llvm.sub %arg2, %{{.*}} : i64
// CHECK: %[[HEAD:.*]] = llvm.load %arg1 {alignment = 1 : i64} : !llvm.ptr -> i64
// CHECK: %[[LASTP:.*]] = llvm.getelementptr %arg1[%[[TAIL8]]]
// CHECK: %[[LAST:.*]] = llvm.load %[[LASTP]] {alignment = 1 : i64} : !llvm.ptr -> i64
// CHECK: llvm.store %[[HEAD]], %[[START]] {alignment = 1 : i64} : i64, !llvm.ptr
// CHECK: %[[DLAST:.*]] = llvm.getelementptr %[[START]][%[[TAIL8]]]
// CHECK: llvm.store %[[LAST]], %[[DLAST]] {alignment = 1 : i64} : i64, !llvm.ptr
// CHECK: llvm.load %arg1 {alignment = 1 : i64} : !llvm.ptr -> i32
// CHECK: llvm.load %arg1 : !llvm.ptr -> i8
llvm.func @put_data(%p: !llvm.ptr, %d: !llvm.ptr, %n: i64) -> !llvm.ptr {
  %0 = wire.put_data %p, %d, %n
  llvm.return %0 : !llvm.ptr
}

// Tags: the one- and two-byte forms (field number >= 1) inline, straight
// line, the rest in the runtime.
// CHECK-LABEL: llvm.func @get_tag
// CHECK: %[[SLOT:.*]] = llvm.alloca %{{.*}} x i32
// CHECK: %[[AVAIL:.*]] = llvm.sub
// CHECK: %[[ANY:.*]] = llvm.icmp "sgt" %[[AVAIL]]
// CHECK: llvm.cond_br %[[ANY]], ^[[ONE:bb[0-9]+]], ^[[SLOW:bb[0-9]+]]
// CHECK: ^[[ONE]]:
// CHECK: %[[BYTE:.*]] = llvm.load %arg1 : !llvm.ptr -> i8
// CHECK: %[[REL:.*]] = llvm.sub %[[BYTE]], %{{.*}} : i8
// CHECK: %[[FITS:.*]] = llvm.icmp "ult" %[[REL]], %{{.*}} : i8
// CHECK: llvm.cond_br %[[FITS]], ^[[DONE:bb[0-9]+]]({{.*}}), ^[[SECOND:bb[0-9]+]]
// CHECK: ^[[SECOND]]:
// CHECK: %[[TWO:.*]] = llvm.icmp "sgt" %[[AVAIL]]
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

// Lengths: a varint, then a check that the payload fits.
// CHECK-LABEL: llvm.func @get_length
// CHECK: llvm.call @pbc_rt_varint(
// CHECK: llvm.icmp "ule"
// CHECK: llvm.call @pbc_rt_fail(%arg0, %{{.*}})
llvm.func @get_length(%state: !llvm.ptr, %p: !llvm.ptr, %end: !llvm.ptr) -> i64 {
  %d = wire.decoder %state
  %next, %len = wire.get_length %d, %p, %end
  llvm.return %len : i64
}

// Fixed values: one bounds check, one unaligned load.
// CHECK-LABEL: llvm.func @get_fixed
// CHECK: llvm.icmp "sge" %{{.*}}, %{{.*}} : i64
// CHECK: llvm.load %arg1 {alignment = 1 : i64} : !llvm.ptr -> f32
// CHECK: llvm.call @pbc_rt_fail(
llvm.func @get_fixed(%state: !llvm.ptr, %p: !llvm.ptr, %end: !llvm.ptr) -> f32 {
  %d = wire.decoder %state
  %next, %v = wire.get_fixed %d, %p, %end : f32
  llvm.return %v : f32
}

// The rest are runtime calls, attributes passed as constants.
// CHECK-LABEL: llvm.func @runtime_calls
// CHECK: llvm.call @pbc_rt_skip(%arg0, %arg1, %arg2, %arg3)
// CHECK: llvm.call @pbc_rt_utf8_valid(%arg1, %{{.*}})
// CHECK: llvm.call @pbc_rt_push(%arg0)
// CHECK: llvm.call @pbc_rt_pop(%arg0)
// CHECK: %[[SZ:.*]] = llvm.mlir.constant(48 : i64)
// CHECK: llvm.call @pbc_rt_alloc(%arg0, %[[SZ]])
// CHECK: %[[ES:.*]] = llvm.mlir.constant(16 : i64)
// CHECK: llvm.call @pbc_rt_grow(%arg0, %arg1, %{{.*}}, %{{.*}}, %[[ES]])
// CHECK: %[[ST:.*]] = llvm.mlir.constant(7 : i32)
// CHECK: llvm.call @pbc_rt_fail(%arg0, %[[ST]])
llvm.func @runtime_calls(%state: !llvm.ptr, %p: !llvm.ptr, %end: !llvm.ptr, %tag: i32) {
  %d = wire.decoder %state
  %0 = wire.skip %d, %p, %end, %tag
  %n = llvm.mlir.constant(3 : i64) : i64
  %1 = wire.utf8_valid %p, %n
  %2 = wire.push %d
  wire.pop %d
  %3 = wire.alloc %d, 48
  %4 = wire.grow %d, %p, %n, %n, 16
  %5 = wire.fail %d, 7
  llvm.return
}

// expect_tag: one bounds check, then the tag bytes as one integer load.
// CHECK-LABEL: llvm.func @expect_tag
// CHECK: %[[AVAIL:.*]] = llvm.sub
// CHECK: %[[ENOUGH:.*]] = llvm.icmp "sge" %[[AVAIL]], %{{.*}} : i64
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

// Hoisted bounds checks: below wire.read_limit (min(end, input end - 16),
// from the runtime) a decoder reads with no bounds check. An unchecked
// varint starts with its first byte: no comparison with the end before.
// CHECK-LABEL: llvm.func @read_limit
// CHECK: llvm.call @pbc_rt_read_limit(%arg0, %arg1)
llvm.func @read_limit(%state: !llvm.ptr, %end: !llvm.ptr) -> !llvm.ptr {
  %d = wire.decoder %state
  %0 = wire.read_limit %d, %end
  llvm.return %0 : !llvm.ptr
}

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

// A one-byte length has a path of its own: only the payload is checked
// (signed: an unchecked read may have run past the end).
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
// CHECK: %[[AVAIL:.*]] = llvm.sub
// CHECK-NEXT: %[[FITS:.*]] = llvm.icmp "sle" %[[LEN]], %[[AVAIL]] : i64
// CHECK: llvm.cond_br %[[FITS]], ^[[DONE:bb[0-9]+]](%[[NEXT]], %[[LEN]] : !llvm.ptr, i64), ^[[BAD:bb[0-9]+]](
// CHECK: ^[[GENERAL]]:
// CHECK: llvm.call @pbc_rt_varint_unchecked(
// CHECK: ^[[BAD]](%[[CODE:.*]]: i32):
// CHECK-NEXT: llvm.call @pbc_rt_fail(%arg0, %[[CODE]])
llvm.func @get_length_unchecked(%state: !llvm.ptr, %p: !llvm.ptr, %end: !llvm.ptr) -> i64 {
  %d = wire.decoder %state
  %next, %len = wire.get_length %d, %p, %end unchecked
  llvm.return %len : i64
}

// CHECK-LABEL: llvm.func @get_fixed_unchecked
// CHECK-NEXT: llvm.load %arg1 {alignment = 1 : i64} : !llvm.ptr -> f32
// CHECK-NEXT: llvm.getelementptr inbounds %arg1[4]
// CHECK-NEXT: llvm.return
llvm.func @get_fixed_unchecked(%state: !llvm.ptr, %p: !llvm.ptr, %end: !llvm.ptr) -> f32 {
  %d = wire.decoder %state
  %next, %v = wire.get_fixed %d, %p, %end unchecked : f32
  llvm.return %v : f32
}

// CHECK-LABEL: llvm.func @expect_tag_unchecked
// CHECK-NEXT: %[[WORD:.*]] = llvm.load %arg0 {alignment = 1 : i64} : !llvm.ptr -> i16
// CHECK-NEXT: %[[TAG:.*]] = llvm.mlir.constant(394 : i16)
// CHECK-NEXT: %[[SAME:.*]] = llvm.icmp "eq" %[[WORD]], %[[TAG]] : i16
// CHECK-NEXT: llvm.return %[[SAME]]
llvm.func @expect_tag_unchecked(%p: !llvm.ptr, %end: !llvm.ptr) -> i1 {
  %0 = wire.expect_tag %p, %end, "\8A\01" unchecked
  llvm.return %0 : i1
}
