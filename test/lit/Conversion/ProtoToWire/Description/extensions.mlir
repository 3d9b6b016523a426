// Description.cpp: an extension's record (pbc_extension_info, pbc/desc.h),
// its strings, and its pbc_exts section entry; only for the extensions of
// the files this compilation generates.
// RUN: pbc-opt %s -proto-layout -proto-to-wire=files=f.proto | FileCheck %s

proto.file "e.proto" package "" proto2 imports []
proto.file "f.proto" package "" proto2 imports ["e.proto"]
proto.enum @Kind file "e.proto" closed {
  proto.enum_value "ONE" = 1
}
proto.message @Base file "e.proto" {
  proto.field "a" = 1 : int32 optional
}
proto.message @Set file "e.proto" {
}
proto.message @Item file "f.proto" {
  proto.field "x" = 1 : int32 optional
}
proto.extension @Item.item extends @Set file "f.proto" message_set {
  proto.field "item" = 1000 : message<@Item> optional
}
proto.extension @count extends @Base file "f.proto" {
  proto.field "count" = 100 : sint32 repeated packed
}
proto.extension @name extends @Base file "f.proto" {
  proto.field "name" = 101 : string optional default "n\00ne"
}
proto.extension @kind extends @Base file "f.proto" {
  proto.field "kind" = 102 : enum<@Kind> optional closed default 1 : i32
}
proto.extension @other extends @Base file "e.proto" {
  proto.field "other" = 103 : int32 optional
}

// A MessageSet item: its message's description as the link; type 11
// (message), flags PBC_EXTENSION_MESSAGE_SET (128, -128 as an i8).
// CHECK-LABEL: llvm.mlir.global internal constant @pbc__Item_item_ext_data("Item.item\00")
// CHECK-NEXT: llvm.mlir.global weak_odr constant @Item_item_ext() {{.*}} : !llvm.struct<(ptr, ptr, ptr, ptr, i64, i32, i32, i8, i8, i16)> {
// CHECK-DAG: %[[LINK:.*]] = llvm.mlir.addressof @pbc__Item_desc
// CHECK-DAG: %[[NAME:.*]] = llvm.mlir.addressof @pbc__Item_item_ext_data
// CHECK-DAG: %[[BASE:.*]] = llvm.mlir.addressof @pbc__Set_desc
// CHECK-DAG: llvm.mlir.constant(1000 : i32)
// CHECK-DAG: llvm.mlir.constant(11 : i8)
// CHECK-DAG: llvm.mlir.constant(-128 : i8)
// CHECK: llvm.insertvalue %[[NAME]], %{{.*}}[0]
// CHECK-NEXT: llvm.insertvalue %[[BASE]], %{{.*}}[1]
// CHECK-NEXT: llvm.insertvalue %[[LINK]], %{{.*}}[2]
// Another file's message: declared (e.proto's object defines it).
// CHECK: llvm.mlir.global external constant @pbc__Set_desc()
// CHECK-NEXT: llvm.mlir.global internal @pbc__Item_item_entry() {{.*}}section = "pbc_exts"
// CHECK-NEXT: llvm.mlir.addressof @Item_item_ext

// Packed sint32 (17), flags PACKED | REPEATED (1 | 64); no link.
// CHECK-LABEL: llvm.mlir.global weak_odr constant @count_ext()
// CHECK-DAG: llvm.mlir.constant(100 : i32)
// CHECK-DAG: llvm.mlir.constant(17 : i8)
// CHECK-DAG: llvm.mlir.constant(65 : i8)
// CHECK: llvm.insertvalue %{{.*}}[9]

// A string default, NUL included: its 4 bytes after the name in the blob
// (default_bytes at offset 5, default_size 4); flags DEFAULT (16).
// CHECK-LABEL: llvm.mlir.global internal constant @pbc__name_ext_data("name\00n\00ne\00")
// CHECK: llvm.mlir.global weak_odr constant @name_ext()
// CHECK-DAG: llvm.mlir.addressof @pbc__name_ext_data
// CHECK-DAG: llvm.getelementptr inbounds %{{.*}}[5] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-DAG: llvm.mlir.constant(4 : i32)
// CHECK-DAG: llvm.mlir.constant(9 : i8)
// CHECK-DAG: llvm.mlir.constant(16 : i8)

// A closed enum with a default: the enum's record as the link, the default
// in default_value, flags CLOSED_ENUM | DEFAULT (4 | 16).
// CHECK-LABEL: llvm.mlir.global weak_odr constant @kind_ext()
// CHECK-DAG: llvm.mlir.addressof @pbc__Kind_enum
// CHECK-DAG: llvm.mlir.constant(1 : i64)
// CHECK-DAG: llvm.mlir.constant(14 : i8)
// CHECK-DAG: llvm.mlir.constant(20 : i8)

// e.proto's extension is e.proto's object's; every entry is kept by
// llvm.compiler.used with the messages'.
// CHECK-NOT: @other_ext
// CHECK: llvm.mlir.global appending @llvm.compiler.used() {{.*}} : !llvm.array<5 x ptr>
// CHECK-NOT: @other_ext
