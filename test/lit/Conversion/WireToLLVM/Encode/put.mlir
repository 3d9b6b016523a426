// wire-to-llvm, Encode.cpp: the put_* ops, writing backwards.
// RUN: pbc-opt %s -split-input-file -wire-to-llvm | FileCheck %s

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

// -----

// CHECK-LABEL: llvm.func @put_fixed
// CHECK: %[[START:.*]] = llvm.getelementptr %arg0[%{{.*}}]
// CHECK: llvm.store %arg1, %[[START]] {alignment = 1 : i64} : f64, !llvm.ptr
llvm.func @put_fixed(%p: !llvm.ptr, %v: f64) -> !llvm.ptr {
  %0 = wire.put_fixed %p, %v : f64
  llvm.return %0 : !llvm.ptr
}

// -----

// Backwards varints: one byte (below 0x80) and two bytes (below 0x4000) are
// one store each, the rest goes to the runtime (its byte loop without a
// room operand).
// CHECK-LABEL: llvm.func @put_varint
// CHECK: %[[ONE:.*]] = llvm.icmp "ult" %arg1, %{{.*}} : i64
// CHECK: llvm.cond_br %[[ONE]], ^[[B1:bb[0-9]+]], ^[[NOT1:bb[0-9]+]]
// CHECK: ^[[B1]]:
// CHECK-NEXT: %[[BYTE:.*]] = llvm.trunc %arg1 : i64 to i8
// CHECK: %[[P1:.*]] = llvm.getelementptr %arg0[%{{.*}}]
// CHECK-NEXT: llvm.store %[[BYTE]], %[[P1]] {alignment = 1 : i64} : i8, !llvm.ptr
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

// -----

// A prefix (the tag) is stored on each path, below the varint's bytes;
// the long forms go to the runtime's room writer, which picks its one-word
// form or its byte loop by the value and the room: one call, one prefix.
// CHECK-LABEL: llvm.func @put_varint_prefix
// CHECK: llvm.cond_br %{{.*}}, ^[[B1:bb[0-9]+]], ^[[NOT1:bb[0-9]+]]
// CHECK: ^[[B1]]:
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 1 : i64} : i8, !llvm.ptr
// CHECK: %[[C3:.*]] = llvm.mlir.constant(-3 : i64) : i64
// CHECK-NEXT: %[[T1:.*]] = llvm.getelementptr %arg0[%[[C3]]]
// CHECK-NEXT: %[[TAG1:.*]] = llvm.mlir.constant(384 : i16) : i16
// CHECK-NEXT: llvm.store %[[TAG1]], %[[T1]] {alignment = 1 : i64} : i16, !llvm.ptr
// CHECK-NEXT: llvm.br ^[[DONE:bb[0-9]+]](%[[T1]] : !llvm.ptr)
// CHECK: ^[[NOT1]]:
// CHECK: llvm.cond_br %{{.*}}, ^[[B2:bb[0-9]+]], ^[[LONG:bb[0-9]+]]
// CHECK: ^[[B2]]:
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 1 : i64} : i16, !llvm.ptr
// CHECK: %[[C4:.*]] = llvm.mlir.constant(-4 : i64) : i64
// CHECK-NEXT: %[[T2:.*]] = llvm.getelementptr %arg0[%[[C4]]]
// CHECK: llvm.store %{{.*}}, %[[T2]] {alignment = 1 : i64} : i16, !llvm.ptr
// CHECK-NEXT: llvm.br ^[[DONE]](%[[T2]] : !llvm.ptr)
// CHECK: ^[[LONG]]:
// CHECK-NEXT: %[[L:.*]] = llvm.call @pbc_rt_put_varint_room(%arg0, %arg1, %arg2) : (!llvm.ptr, i64, i64) -> !llvm.ptr
// CHECK-NOT: llvm.call
// CHECK: %[[TL:.*]] = llvm.getelementptr %[[L]][%{{.*}}]
// CHECK: llvm.store %{{.*}}, %[[TL]] {alignment = 1 : i64} : i16, !llvm.ptr
// CHECK-NEXT: llvm.br ^[[DONE]](%[[TL]] : !llvm.ptr)
// CHECK: ^[[DONE]](%[[START:.*]]: !llvm.ptr):
// CHECK-NEXT: llvm.return %[[START]]
llvm.func @put_varint_prefix(%p: !llvm.ptr, %v: i64, %room: i64) -> !llvm.ptr {
  %0 = wire.put_varint %p, %v room %room prefix "\80\01"
  llvm.return %0 : !llvm.ptr
}

// -----

// Bytes: up to 128 copied inline by two overlapping loads and stores of 64,
// 32, 16, 8, 4 or 1 bytes, longer ones by memcpy.
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
// CHECK: llvm.cond_br %[[LT65]], ^[[V32:bb[0-9]+]], ^[[OVER64:bb[0-9]+]]
// CHECK: ^[[V32]]:
// CHECK: llvm.load %arg1 {alignment = 1 : i64} : !llvm.ptr -> vector<32xi8>
// CHECK: llvm.store %{{.*}}, %[[START]] {alignment = 1 : i64} : vector<32xi8>, !llvm.ptr
// CHECK: ^[[OVER64]]:
// CHECK: %[[C129:.*]] = llvm.mlir.constant(129 : i64) : i64
// CHECK: %[[LT129:.*]] = llvm.icmp "ult" %arg2, %[[C129]] : i64
// CHECK: llvm.cond_br %[[LT129]], ^[[V64:bb[0-9]+]], ^[[BIG:bb[0-9]+]]
// CHECK: ^[[V64]]:
// CHECK: %[[TAIL64:.*]] = llvm.sub %arg2, %{{.*}} : i64
// CHECK: %[[HEAD64:.*]] = llvm.load %arg1 {alignment = 1 : i64} : !llvm.ptr -> vector<64xi8>
// CHECK: %[[LASTP64:.*]] = llvm.getelementptr %arg1[%[[TAIL64]]]
// CHECK: %[[LAST64:.*]] = llvm.load %[[LASTP64]] {alignment = 1 : i64} : !llvm.ptr -> vector<64xi8>
// CHECK: llvm.store %[[HEAD64]], %[[START]] {alignment = 1 : i64} : vector<64xi8>, !llvm.ptr
// CHECK: %[[DLAST64:.*]] = llvm.getelementptr %[[START]][%[[TAIL64]]]
// CHECK: llvm.store %[[LAST64]], %[[DLAST64]] {alignment = 1 : i64} : vector<64xi8>, !llvm.ptr
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

// -----

// out_of_line (a message's unknown fields, usually none): the memcpy call
// alone, no size classes.
// CHECK-LABEL: llvm.func @put_data_out_of_line
// CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT: %[[NEG:.*]] = llvm.sub %[[ZERO]], %arg2 : i64
// CHECK-NEXT: %[[START:.*]] = llvm.getelementptr %arg0[%[[NEG]]]
// CHECK-NEXT: "llvm.intr.memcpy"(%[[START]], %arg1, %arg2) <{isVolatile = false}>
// CHECK-NEXT: llvm.return %[[START]] : !llvm.ptr
llvm.func @put_data_out_of_line(%p: !llvm.ptr, %d: !llvm.ptr, %n: i64) -> !llvm.ptr {
  %0 = wire.put_data %p, %d, %n out_of_line
  llvm.return %0 : !llvm.ptr
}
