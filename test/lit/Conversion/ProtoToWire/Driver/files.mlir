// ProtoToWire.cpp, the pass driver: a message of a selected file gets all
// its functions and its pbc_msgs entry; a message of another file (an
// import) gets declarations of the functions other code calls; the schema
// itself (the proto ops, printed first) is dropped.
// RUN: pbc-opt %s -proto-layout -proto-to-wire=files=a.proto | FileCheck %s

proto.file "b.proto" package "" proto3 imports []
proto.file "a.proto" package "" proto3 imports ["b.proto"]
proto.message @B file "b.proto" {
  proto.field "n" = 1 : int32 implicit
}
proto.message @A file "a.proto" {
  proto.field "b" = 1 : message<@B> optional
}

// Every message's codecs are declared first, in schema order (B, then A),
// each with its role; only B's stay declarations.
// CHECK-LABEL: module {
// CHECK-NEXT: llvm.func @B_init(!llvm.ptr) attributes {passthrough = {{\[\["pbc-codec", "init"\]\]}}}{{$}}
// CHECK-NEXT: llvm.func @B_is_initialized(!llvm.ptr) -> (i1 {llvm.zeroext}) attributes {passthrough = {{\[\["pbc-codec", "is_initialized"\]\]}}}{{$}}
// CHECK-NEXT: llvm.func @B_encoded_size(!llvm.ptr) -> i64 attributes {passthrough = {{\[\["pbc-codec", "encoded_size"\]\]}}}{{$}}
// CHECK-NEXT: llvm.func @pbc__B_enc(!llvm.ptr, !llvm.ptr, !llvm.ptr) -> !llvm.ptr attributes {passthrough = {{\[\["pbc-codec", "enc"\]\]}}}{{$}}
// CHECK-NEXT: llvm.func @pbc__B_wr(!llvm.ptr, !llvm.ptr, i64) attributes {passthrough = {{\[\["pbc-codec", "wr"\]\]}}}{{$}}
// CHECK-NEXT: llvm.func @pbc__B_dec(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32) -> !llvm.ptr attributes {passthrough = {{\[\["pbc-codec", "dec"\]\]}}}{{$}}
// CHECK-NEXT: llvm.func @pbc__B_json(!llvm.ptr, !llvm.ptr) attributes {passthrough = {{\[\["pbc-codec", "json"\]\]}}}{{$}}
// CHECK-NEXT: llvm.func @pbc__B_from_json(!llvm.ptr, !llvm.ptr) -> (i1 {llvm.zeroext}) attributes {passthrough = {{\[\["pbc-codec", "from_json"\]\]}}}{{$}}
// A's are defined: the codecs, then the entry points.
// CHECK-NEXT: llvm.func @A_init(%arg0: !llvm.ptr) {{.*}} {
// CHECK: llvm.func @A_is_initialized(
// CHECK: llvm.func @A_encoded_size(
// CHECK: llvm.call @B_encoded_size(
// CHECK: llvm.func @pbc__A_enc(
// CHECK: llvm.func @pbc__A_wr(
// CHECK: llvm.func @pbc__A_dec(
// CHECK: llvm.call @pbc__B_dec(
// CHECK: llvm.func @pbc__A_json(
// CHECK: llvm.func @A_decode(
// CHECK: llvm.func @A_encode(
// CHECK: llvm.func @A_write(
// No entry points of B, and B's description only declared, for A's
// description to link to (b.proto's object defines it): only A is listed.
// CHECK-NOT: @B_decode
// CHECK: llvm.mlir.global external constant @pbc__B_desc() {{.*}} : !llvm.struct<{{.*}}>{{$}}
// CHECK: llvm.mlir.global internal constant @pbc__A_links()
// CHECK-NEXT: llvm.mlir.undef
// CHECK-NEXT: llvm.mlir.addressof @pbc__B_desc
// CHECK: llvm.mlir.global weak_odr constant @A_info()
// CHECK: llvm.mlir.global internal @pbc__A_entry() {{.*}}section = "pbc_msgs"
// CHECK: llvm.mlir.global appending @llvm.compiler.used() {{.*}} : !llvm.array<1 x ptr>
// CHECK-NOT: B_
// CHECK-NOT: proto.
