// EntryPoints.cpp: the by-name table. A pbc_message_info record per
// message (public as T_info), its members in runtime/abi.def's order, and
// a pointer to it in the `pbc_msgs` section, kept by @llvm.compiler.used.
// RUN: pbc-opt %s -proto-layout -proto-to-wire | FileCheck %s

proto.file "a.proto" package "" proto3 imports []
proto.message @M file "a.proto" {
  proto.field "id" = 1 : int32 implicit
  proto.field "inner" = 2 : message<@M.Inner> optional
}
proto.message @M.Inner file "a.proto" {
  proto.field "name" = 1 : string implicit
  proto.field "note" = 2 : string implicit
}

// The by-name table: a record per message (public as M_info), a pointer to
// it in `pbc_msgs`. The description comes first (Description.cpp; its own
// tests are in ../Description/): its string pool starts with the full name.
// M's description links to M.Inner's description, not its record.
// CHECK: llvm.mlir.global internal constant @pbc__M_desc_data("{{.*}}M\00a.proto\00id\00inner\00")
// CHECK-NEXT: llvm.mlir.global internal constant @pbc__M_links()
// CHECK: llvm.mlir.addressof @pbc__M_Inner_desc
// CHECK: llvm.mlir.global weak_odr constant @pbc__M_desc()
// weak_odr like the functions: libraries that share an import don't clash.
// CHECK: llvm.mlir.global weak_odr constant @M_info()
// CHECK-SAME: !llvm.struct<(ptr, i64, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr)>
// CHECK-NEXT: %[[R0:.*]] = llvm.mlir.undef
// full_name (in the description's pool: 2 fields of 16 bytes, 2 of names,
// 2 tags of 8, a lookup of 2 entries and 2 others of 2 bytes),
// struct_size, then the functions: init, decode, encoded_size, encode,
// write, is_initialized, internal_decoder, encode_at_end, the
// description, the JSON printer and parser (members are appended: records built
// before keep their layout).
// CHECK-NEXT: %[[POOL:.*]] = llvm.mlir.addressof @pbc__M_desc_data : !llvm.ptr
// CHECK-NEXT: %[[NAME:.*]] = llvm.getelementptr inbounds %[[POOL]][72]
// CHECK-NEXT: %[[SIZE:.*]] = llvm.mlir.constant(32 : i64) : i64
// CHECK-NEXT: %[[INIT:.*]] = llvm.mlir.addressof @M_init : !llvm.ptr
// CHECK-NEXT: %[[DECODE:.*]] = llvm.mlir.addressof @M_decode : !llvm.ptr
// CHECK-NEXT: %[[ESIZE:.*]] = llvm.mlir.addressof @M_encoded_size : !llvm.ptr
// CHECK-NEXT: %[[ENCODE:.*]] = llvm.mlir.addressof @M_encode : !llvm.ptr
// CHECK-NEXT: %[[WRITE:.*]] = llvm.mlir.addressof @M_write : !llvm.ptr
// CHECK-NEXT: %[[ISINIT:.*]] = llvm.mlir.addressof @M_is_initialized : !llvm.ptr
// CHECK-NEXT: %[[DEC:.*]] = llvm.mlir.addressof @pbc__M_dec : !llvm.ptr
// CHECK-NEXT: %[[ATEND:.*]] = llvm.mlir.addressof @M_encode_at_end : !llvm.ptr
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__M_desc : !llvm.ptr
// CHECK-NEXT: %[[JSON:.*]] = llvm.mlir.addressof @pbc__M_json : !llvm.ptr
// CHECK-NEXT: %[[FROMJSON:.*]] = llvm.mlir.addressof @pbc__M_from_json : !llvm.ptr
// CHECK-NEXT: %[[R1:.*]] = llvm.insertvalue %[[NAME]], %[[R0]][0]
// CHECK-NEXT: %[[R2:.*]] = llvm.insertvalue %[[SIZE]], %[[R1]][1]
// CHECK-NEXT: %[[R3:.*]] = llvm.insertvalue %[[INIT]], %[[R2]][2]
// CHECK-NEXT: %[[R4:.*]] = llvm.insertvalue %[[DECODE]], %[[R3]][3]
// CHECK-NEXT: %[[R5:.*]] = llvm.insertvalue %[[ESIZE]], %[[R4]][4]
// CHECK-NEXT: %[[R6:.*]] = llvm.insertvalue %[[ENCODE]], %[[R5]][5]
// CHECK-NEXT: %[[R7:.*]] = llvm.insertvalue %[[WRITE]], %[[R6]][6]
// CHECK-NEXT: %[[R8:.*]] = llvm.insertvalue %[[ISINIT]], %[[R7]][7]
// CHECK-NEXT: %[[R9:.*]] = llvm.insertvalue %[[DEC]], %[[R8]][8]
// CHECK-NEXT: %[[R10:.*]] = llvm.insertvalue %[[ATEND]], %[[R9]][9]
// CHECK-NEXT: %[[R11:.*]] = llvm.insertvalue %[[DESC]], %[[R10]][10]
// CHECK-NEXT: %[[R12:.*]] = llvm.insertvalue %[[JSON]], %[[R11]][11]
// CHECK-NEXT: %[[R13:.*]] = llvm.insertvalue %[[FROMJSON]], %[[R12]][12]
// CHECK-NEXT: llvm.return %[[R13]]
// The section holds a pointer to the record, not the record: every entry
// is 8 bytes whatever the record's alignment padding. Writable, so a PIE
// needs no text relocation.
// CHECK: llvm.mlir.global internal @pbc__M_entry() {addr_space = 0 : i32, alignment = 8 : i64, section = "pbc_msgs"} : !llvm.ptr {
// CHECK-NEXT: %[[INFO:.*]] = llvm.mlir.addressof @M_info : !llvm.ptr
// CHECK-NEXT: llvm.return %[[INFO]] : !llvm.ptr
// A nested message: the full name with its dot, C names with underscores.
// CHECK: llvm.mlir.global internal constant @pbc__M_Inner_desc_data("{{.*}}M.Inner\00a.proto\00name\00note\00")
// CHECK: llvm.mlir.global weak_odr constant @M_Inner_info()
// CHECK: llvm.mlir.addressof @pbc__M_Inner_desc_data
// CHECK-NEXT: llvm.getelementptr
// CHECK-NEXT: llvm.mlir.constant(48 : i64) : i64
// CHECK: llvm.mlir.global internal @pbc__M_Inner_entry() {{.*}}section = "pbc_msgs"
// Every entry is kept in the module, in message order, by
// @llvm.compiler.used (nothing refers to them), but not retained: the
// linker keeps them only for a program that calls pbc_find_message.
// CHECK: llvm.mlir.global appending @llvm.compiler.used()
// CHECK-SAME: section = "llvm.metadata"} : !llvm.array<2 x ptr> {
// CHECK-NEXT: %[[U0:.*]] = llvm.mlir.undef : !llvm.array<2 x ptr>
// CHECK-NEXT: %[[E0:.*]] = llvm.mlir.addressof @pbc__M_entry : !llvm.ptr
// CHECK-NEXT: %[[U1:.*]] = llvm.insertvalue %[[E0]], %[[U0]][0]
// CHECK-NEXT: %[[E1:.*]] = llvm.mlir.addressof @pbc__M_Inner_entry : !llvm.ptr
// CHECK-NEXT: %[[U2:.*]] = llvm.insertvalue %[[E1]], %[[U1]][1]
// CHECK-NEXT: llvm.return %[[U2]]
