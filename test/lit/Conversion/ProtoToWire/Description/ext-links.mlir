// Description.cpp: a message's description lists the extensions of it that
// its compilation declares (`extensions`, NULL-terminated, `_ext_links`);
// those of a file it does not generate are found in the pbc_exts section.
// RUN: pbc-opt %s -proto-layout -proto-to-wire=files=b.proto | FileCheck %s

proto.file "a.proto" package "" proto2 imports []
proto.file "b.proto" package "" proto2 imports ["a.proto"]
proto.message @B file "b.proto" extensions [10, 20] {
  proto.field "x" = 1 : int32 optional
}
proto.extension @mine extends @B file "b.proto" {
  proto.field "mine" = 10 : int32 optional
}
proto.extension @theirs extends @B file "a.proto" {
  proto.field "theirs" = 11 : int32 optional
}

// CHECK-LABEL: llvm.mlir.global internal constant @pbc__B_ext_links() {{.*}} : !llvm.array<2 x ptr> {
// CHECK-NEXT: llvm.mlir.undef
// CHECK-NEXT: llvm.mlir.addressof @mine_ext
// CHECK-NEXT: llvm.insertvalue
// CHECK-NEXT: llvm.mlir.zero
// CHECK-NEXT: llvm.insertvalue
// CHECK-NEXT: llvm.return
// CHECK: llvm.mlir.global weak_odr constant @pbc__B_desc()
// The last members: the list, then the tags, by_byte and the sizes.
// CHECK: %[[LIST:.*]] = llvm.mlir.addressof @pbc__B_ext_links
// CHECK-NEXT: llvm.mlir.addressof @pbc__B_desc_data
// CHECK-NEXT: llvm.getelementptr
// CHECK-NEXT: llvm.mlir.zero
// CHECK-NEXT: llvm.mlir.addressof @pbc__B_desc_data
// CHECK-NEXT: llvm.getelementptr
// CHECK-NEXT: llvm.mlir.undef
// CHECK: llvm.insertvalue %[[LIST]], %{{.*}}[29]
