// Description.cpp: what a description links to across files, and a message
// without fields.
// RUN: pbc-opt %s -proto-layout -proto-to-wire=files=f.proto | FileCheck %s

proto.file "e.proto" package "" proto3 imports []
proto.file "f.proto" package "" proto3 imports ["e.proto"]
proto.enum @Other file "e.proto" {
  proto.enum_value "ZERO" = 0
}
proto.message @Peer file "e.proto" {
}
proto.message @Empty file "f.proto" {
}
proto.message @User file "f.proto" {
  proto.field "o" = 1 : enum<@Other> implicit
  proto.field "p" = 2 : message<@Peer> optional
}

// No fields: every array pointer null but the lookup's, one empty entry;
// the pool still holds the name.
// CHECK-LABEL: llvm.mlir.global internal constant @pbc__Empty_desc_data("\00\00Empty\00f.proto\00")
// CHECK-NEXT: llvm.mlir.global weak_odr constant @pbc__Empty_desc()
// CHECK-NEXT: llvm.mlir.zero
// CHECK-NEXT: llvm.mlir.zero
// CHECK-NEXT: llvm.mlir.zero
// CHECK-NEXT: llvm.mlir.zero
// CHECK-NEXT: llvm.mlir.zero
// CHECK-NEXT: llvm.mlir.addressof @pbc__Empty_desc_data
// proto3 (3) in the header.
// CHECK: llvm.mlir.constant(3 : i8)
// The records of another file's enum and message (its description, not its
// info: descriptions link to descriptions): declared, since e.proto's
// object defines them.
// CHECK: llvm.mlir.global external constant @pbc__Other_enum() {{.*}} : !llvm.struct<(ptr, ptr, ptr, i32, i32)>{{$}}
// CHECK-NEXT: llvm.mlir.global external constant @pbc__Peer_desc() {{.*}} : !llvm.struct<{{.*}}>{{$}}
// An implicit (0) open enum field, no flags, link 0, tested as 4 bytes; a
// POINTER (3) message, link 1.
// CHECK-NEXT: llvm.mlir.global internal constant @pbc__User_desc_data("
// CHECK-SAME: \01\00\00\00\18\00\00\00\00\00\00\00\0E\00\00\04
// CHECK-SAME: \02\00\00\00\00\00\00\00\00\00\01\00\0B\03\00\00
// After the names and the lookup (2 in entry 0, 1 in entry 1): p among the
// checks, since Peer is e.proto's, whose fields this file's code does not
// see (its copy of the schema holds them as declarations); o and p among
// the others (no presence bits).
// CHECK-SAME: \02\00\01\00\01\00\00\00\01\00User\00
// CHECK-NEXT: llvm.mlir.global internal constant @pbc__User_links()
// CHECK-NEXT: llvm.mlir.undef
// CHECK-NEXT: llvm.mlir.addressof @pbc__Other_enum
// CHECK-NEXT: llvm.insertvalue
// CHECK-NEXT: llvm.mlir.addressof @pbc__Peer_desc
// Nothing of e.proto is defined here.
// CHECK-NOT: @pbc__Other_enum_data
// CHECK-NOT: @pbc__Peer_desc_data
// CHECK-NOT: @Peer_info
