// ToJson.cpp: pbc__T_json prints a message's fields as JSON members, in
// number order, each behind the binary writer's presence test: its name a
// constant `,"name":` (two, chosen by the printer, when the json_name
// differs), its value one runtime call by type (a list of numbers or bools
// one call for the run); the begin and end of the object around them. Maps
// and names that need escaping are the runtime's, field by field; messages
// whose JSON is not their fields, whole.
// RUN: pbc-opt %s -split-input-file -proto-layout -proto-to-wire | FileCheck %s

proto.file "j.proto" package "" proto3 imports []
proto.enum @Color file "j.proto" {
  proto.enum_value "RED" = 0
}
proto.message @J file "j.proto" {
  proto.field "id" = 1 : int32 implicit
  proto.field "big_id" = 2 : uint64 implicit
  proto.field "name" = 3 : string implicit
  proto.field "sub" = 4 : message<@J> optional
  proto.field "vals" = 5 : float repeated packed
  proto.field "color" = 6 : enum<@Color> implicit
  proto.field "flag" = 7 : bool implicit
  proto.field "subs" = 8 : message<@J> repeated
  proto.field "odd" = 9 : double implicit json "a<b"
  proto.field "by_name" = 10 : message<@J.ByNameEntry> repeated
  proto.field "colors" = 11 : enum<@Color> repeated packed
}
proto.message @J.ByNameEntry file "j.proto" map_entry {
  proto.field "key" = 1 : string implicit
  proto.field "value" = 2 : int32 implicit
}

// CHECK-LABEL: llvm.func @pbc__J_json(%arg0: !llvm.ptr, %arg1: !llvm.ptr)
// CHECK-NEXT: %[[MARK:.*]] = llvm.call @pbc_json_begin_object(%arg1) : (!llvm.ptr) -> i64
// CHECK-NEXT: %[[FAILED:.*]] = arith.constant -1 : i64
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi ne, %[[MARK]], %[[FAILED]] : i64
// CHECK-NEXT: scf.if %[[OK]] {
// big_id's json_name is bigId: the printer's flag, read once.
// CHECK-NEXT: %[[PROTO:.*]] = llvm.call @pbc_json_proto_names(%arg1)
// id, an int32 that prints when not zero.
// CHECK: %[[ID:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: %[[K:.*]] = llvm.mlir.addressof @pbc__J_json_1 : !llvm.ptr
// CHECK-NEXT: %[[N:.*]] = arith.constant 6 : i64
// CHECK-NEXT: llvm.call @pbc_json_put(%arg1, %[[K]], %[[N]])
// CHECK-NEXT: llvm.call @pbc_json_put_i32(%arg1, %[[ID]])
// big_id: one of two names; a uint64, quoted by the runtime.
// CHECK: scf.if %[[PROTO]] {
// CHECK-NEXT: llvm.mlir.addressof @pbc__J_json_2_proto
// CHECK: } else {
// CHECK-NEXT: llvm.mlir.addressof @pbc__J_json_2 :
// CHECK: llvm.call @pbc_json_put_u64(
// name: the string's size is its presence.
// CHECK: llvm.call @pbc_json_put_string(%arg1,
// sub: present when the pointer is not null; its own printer.
// CHECK: %[[SUB:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.call @pbc__J_json(%[[SUB]], %arg1)
// vals: a list of numbers, one call for the run: the type (float, 2), the
// elements and their count.
// CHECK: %[[VALS:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[LIST:.*]] = llvm.call @pbc_json_begin_list(%arg1)
// CHECK-NEXT: %[[FLOAT:.*]] = arith.constant 2 : i32
// CHECK-NEXT: llvm.call @pbc_json_put_run(%arg1, %[[FLOAT]], %[[VALS]], %{{.*}}) : (!llvm.ptr, i32, !llvm.ptr, i64) -> ()
// CHECK-NEXT: llvm.call @pbc_json_end_list(%arg1, %[[LIST]])
// color: by name, from the enum's info.
// CHECK: %[[ENUM:.*]] = llvm.mlir.addressof @pbc__Color_enum
// CHECK-NEXT: llvm.call @pbc_json_put_enum(%arg1, %[[ENUM]],
// CHECK: llvm.call @pbc_json_put_bool(
// subs: each element behind a comma, the struct itself.
// CHECK: scf.for
// CHECK: llvm.mlir.addressof @pbc__json_comma
// CHECK: %[[AT:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}]
// CHECK-NEXT: llvm.call @pbc__J_json(%[[AT]], %arg1)
// odd's json_name needs escaping, by_name is a map: the runtime prints
// each from the description (indexes 8 and 9 in number order).
// CHECK: %[[DESC:.*]] = llvm.mlir.addressof @pbc__J_desc
// CHECK-NEXT: %[[I8:.*]] = arith.constant 8 : i32
// CHECK-NEXT: llvm.call @pbc_json_put_field(%arg1, %[[DESC]], %[[I8]], %arg0)
// CHECK: %[[I9:.*]] = arith.constant 9 : i32
// CHECK-NEXT: llvm.call @pbc_json_put_field(%arg1, %{{.*}}, %[[I9]], %arg0)
// colors: a list of enums is not a run: element by element, by name.
// CHECK: llvm.call @pbc_json_begin_list(%arg1)
// CHECK: scf.for
// CHECK: llvm.call @pbc_json_put_enum(
// CHECK: llvm.call @pbc_json_end_list(
// CHECK: llvm.call @pbc_json_end_object(%arg1, %[[MARK]])
// CHECK-NEXT: }
// CHECK-NEXT: llvm.return
// The names, constants with their comma.
// CHECK-DAG: llvm.mlir.global private unnamed_addr constant @pbc__J_json_1(",\22id\22:")
// CHECK-DAG: llvm.mlir.global private unnamed_addr constant @pbc__J_json_2_proto(",\22big_id\22:")
// CHECK-DAG: llvm.mlir.global private unnamed_addr constant @pbc__J_json_2(",\22bigId\22:")

// -----

// Messages whose JSON is not their fields print from their description:
// a well-known type, a message with extension ranges (its extensions go
// among the fields).
proto.file "google/protobuf/duration.proto" package "google.protobuf" proto3 imports []
proto.message @google.protobuf.Duration file "google/protobuf/duration.proto" {
  proto.field "seconds" = 1 : int64 implicit
  proto.field "nanos" = 2 : int32 implicit
}
proto.file "e.proto" package "" proto2 imports []
proto.message @E file "e.proto" extensions [100, 200] {
  proto.field "one" = 1 : int32 optional
}

// CHECK-LABEL: llvm.func @pbc__google_protobuf_Duration_json(%arg0: !llvm.ptr, %arg1: !llvm.ptr)
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__google_protobuf_Duration_desc
// CHECK-NEXT: llvm.call @pbc_json_put_message(%[[DESC]], %arg0, %arg1)
// CHECK-NEXT: llvm.return
// CHECK-LABEL: llvm.func @pbc__E_json(%arg0: !llvm.ptr, %arg1: !llvm.ptr)
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__E_desc
// CHECK-NEXT: llvm.call @pbc_json_put_message(%[[DESC]], %arg0, %arg1)
// CHECK-NEXT: llvm.return
