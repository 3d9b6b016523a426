// proto-to-wire: specialized codec functions, constant tags, a tag switch.
// RUN: pbc-opt %s -proto-to-wire | FileCheck %s
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

// The size is a sum of branch-free per-field terms: implicit presence is a
// select between the field's size and zero.
// CHECK-LABEL: llvm.func @M_encoded_size(
// The unknown fields' size starts the sum.
// CHECK: %[[UNK:.*]] = llvm.getelementptr inbounds %arg0[48]
// CHECK: %[[UNKSIZE:.*]] = llvm.getelementptr inbounds %[[UNK]][8]
// CHECK: llvm.load %[[UNKSIZE]] : !llvm.ptr -> i64
// CHECK: %[[ID:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK: %[[WIDE:.*]] = arith.extsi %[[ID]] : i32 to i64
// CHECK: %[[VS:.*]] = wire.varint_size %[[WIDE]] : i64
// CHECK: %[[NZ:.*]] = arith.cmpi ne, %[[ID]]
// CHECK: %[[WITHTAG:.*]] = arith.addi %[[VS]], %c1_i64
// CHECK: arith.select %[[NZ]], %[[WITHTAG]]
// Packed: one size over the run, zigzag folded into the element size.
// CHECK: scf.for
// CHECK: wire.zigzag_encode
// CHECK: wire.varint_size
// CHECK: llvm.call @M_encoded_size(

// The encoder writes backwards, highest field number first, each value
// before its constant tag.
// CHECK-LABEL: llvm.func @pbc__M_enc(
// Unknown fields last in the output, so first written.
// CHECK: %[[UNKNOWN:.*]] = llvm.getelementptr inbounds %arg0[48]
// CHECK: wire.put_data %arg1, %{{.*}}, %{{.*}}
// CHECK: llvm.call @pbc__M_enc(
// CHECK: wire.put_varint
// CHECK: wire.put_bytes %{{.*}}, "\82\01"
// CHECK: wire.put_fixed %{{.*}} : i64
// CHECK: wire.put_bytes %{{.*}}, "!"
// CHECK: scf.for
// CHECK: wire.zigzag_encode
// CHECK: wire.put_bytes %{{.*}}, "\1A"
// CHECK: wire.put_data
// CHECK: wire.put_bytes %{{.*}}, "\12"
// CHECK: wire.put_bytes %{{.*}}, "\08"
// CHECK: llvm.return

// The decoder: a loop around a switch on the whole tag. The packed field is
// accepted in both forms (24 unpacked, 26 packed).
// CHECK-LABEL: llvm.func @pbc__M_dec(
// CHECK: ^bb1(%[[TAGSTART:.*]]: !llvm.ptr):
// CHECK: wire.get_tag %arg3, %[[TAGSTART]]
// CHECK: llvm.switch %{{.*}} : i32, ^[[UNKNOWN:bb[0-9]+]] [
// CHECK-NEXT: 8: ^
// CHECK-NEXT: 18: ^
// CHECK-NEXT: 24: ^
// CHECK-NEXT: 26: ^
// CHECK-NEXT: 130: ^
// CHECK-NEXT: 33: ^
// CHECK: wire.utf8_valid
// CHECK: wire.fail %{{.*}}, 7
// CHECK: wire.grow %{{.*}}, 4
// CHECK: wire.alloc %{{.*}}, 64
// CHECK: llvm.call @M_init(
// CHECK: wire.push
// CHECK: llvm.call @pbc__M_dec(
// CHECK: wire.pop
// CHECK: wire.get_fixed %{{.*}} : i64
// Unknown fields: END_GROUP ends a group, anything else is skipped and
// kept, from its tag to its end.
// CHECK: ^[[UNKNOWN]]:
// CHECK: wire.skip
// CHECK: wire.keep_unknown %arg3, %{{.*}}, %[[TAGSTART]], %{{.*}}
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
// DECL: llvm.func @pbc__M_enc(!llvm.ptr, !llvm.ptr) -> !llvm.ptr
// DECL: llvm.func @pbc__M_dec(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32) -> !llvm.ptr
// DECL-NOT: llvm.func @M_decode
// DECL-NOT: pbc_msgs
