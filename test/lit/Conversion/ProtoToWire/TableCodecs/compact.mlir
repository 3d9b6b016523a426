// TableCodecs.cpp: a compact message has every function of the ABI, each
// one call into the runtime's table codec with its description first (not
// T_info, which points back to the functions) and its own arguments after;
// T_decode and T_merge_decode add the default options (null). Each is
// noinline and optnone: one call, nothing to optimize.
// RUN: pbc-opt %s -split-input-file -proto-layout -proto-to-wire | FileCheck %s

proto.file "a.proto" package "" proto3 imports []
proto.message @M file "a.proto" tier compact {
  proto.field "id" = 1 : int32 implicit
  proto.field "sub" = 2 : message<@M> optional
}

// CHECK-LABEL: llvm.func @M_init(%arg0: !llvm.ptr)
// CHECK-SAME: passthrough = {{\[}}["pbc-codec", "init"], "noinline", "optnone"]
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__M_desc : !llvm.ptr
// CHECK-NEXT: llvm.call tail @pbc_table_init(%[[DESC]], %arg0)
// CHECK-NEXT: llvm.return
// CHECK-LABEL: llvm.func @M_is_initialized(%arg0: !llvm.ptr) -> (i1 {llvm.zeroext})
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__M_desc : !llvm.ptr
// CHECK-NEXT: %[[R:.*]] = llvm.call tail @pbc_table_is_initialized(%[[DESC]], %arg0)
// CHECK-NEXT: llvm.return %[[R]] : i1
// CHECK-LABEL: llvm.func @M_encoded_size(%arg0: !llvm.ptr) -> i64
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__M_desc : !llvm.ptr
// CHECK-NEXT: %[[R:.*]] = llvm.call tail @pbc_table_encoded_size(%[[DESC]], %arg0)
// CHECK-NEXT: llvm.return %[[R]] : i64
// CHECK-LABEL: llvm.func @pbc__M_enc(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr) -> !llvm.ptr
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__M_desc : !llvm.ptr
// CHECK-NEXT: %[[R:.*]] = llvm.call tail @pbc_table_encode_backwards(%[[DESC]], %arg0, %arg1, %arg2)
// CHECK-NEXT: llvm.return %[[R]] : !llvm.ptr
// CHECK-LABEL: llvm.func @pbc__M_wr(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64)
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__M_desc : !llvm.ptr
// CHECK-NEXT: llvm.call tail @pbc_table_write_fields(%[[DESC]], %arg0, %arg1, %arg2)
// CHECK-NEXT: llvm.return
// CHECK-LABEL: llvm.func @pbc__M_dec(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr, %arg3: !llvm.ptr, %arg4: i32) -> !llvm.ptr
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__M_desc : !llvm.ptr
// CHECK-NEXT: %[[R:.*]] = llvm.call tail @pbc_table_decode_fields(%[[DESC]], %arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-NEXT: llvm.return %[[R]] : !llvm.ptr
// ToJson: the JSON printer's walk over the description.
// CHECK-LABEL: llvm.func @pbc__M_json(%arg0: !llvm.ptr, %arg1: !llvm.ptr)
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__M_desc : !llvm.ptr
// CHECK-NEXT: llvm.call tail @pbc_json_put_message(%[[DESC]], %arg0, %arg1)
// CHECK-NEXT: llvm.return
// FromJson: the JSON parser's walk over the description.
// CHECK-LABEL: llvm.func @pbc__M_from_json(%arg0: !llvm.ptr, %arg1: !llvm.ptr) -> (i1 {llvm.zeroext})
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__M_desc : !llvm.ptr
// CHECK-NEXT: %[[OK:.*]] = llvm.call tail @pbc_json_parse_message(%[[DESC]], %arg0, %arg1)
// CHECK-NEXT: llvm.return %[[OK]] : i1
// CHECK-LABEL: llvm.func @M_decode(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: !llvm.ptr) -> i32
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__M_desc : !llvm.ptr
// CHECK-NEXT: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: %[[R:.*]] = llvm.call tail @pbc_table_decode(%[[DESC]], %arg0, %arg1, %arg2, %arg3, %[[NULL]])
// CHECK-NEXT: llvm.return %[[R]] : i32
// CHECK-LABEL: llvm.func @M_merge_decode(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: !llvm.ptr) -> i32
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__M_desc : !llvm.ptr
// CHECK-NEXT: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: %[[R:.*]] = llvm.call tail @pbc_table_merge_decode(%[[DESC]], %arg0, %arg1, %arg2, %arg3, %[[NULL]])
// CHECK-NEXT: llvm.return %[[R]] : i32
// CHECK-LABEL: llvm.func @M_encode(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: !llvm.ptr) -> i32
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__M_desc : !llvm.ptr
// CHECK-NEXT: %[[R:.*]] = llvm.call tail @pbc_table_encode(%[[DESC]], %arg0, %arg1, %arg2, %arg3)
// CHECK-NEXT: llvm.return %[[R]] : i32
// CHECK-LABEL: llvm.func @M_encode_at_end(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: !llvm.ptr, %arg4: !llvm.ptr) -> i32
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__M_desc : !llvm.ptr
// CHECK-NEXT: %[[R:.*]] = llvm.call tail @pbc_table_encode_at_end(%[[DESC]], %arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-NEXT: llvm.return %[[R]] : i32
// CHECK-LABEL: llvm.func @M_write(%arg0: !llvm.ptr, %arg1: !llvm.ptr) -> i32
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__M_desc : !llvm.ptr
// CHECK-NEXT: %[[R:.*]] = llvm.call tail @pbc_table_write(%[[DESC]], %arg0, %arg1)
// CHECK-NEXT: llvm.return %[[R]] : i32
// The description and the info record are a specialized message's.
// CHECK: llvm.mlir.global internal constant @pbc__M_desc_data(
// CHECK: llvm.mlir.global weak_odr constant @pbc__M_desc()
// CHECK: llvm.mlir.global weak_odr constant @M_info()

// -----

// A specialized message calls a compact sub-message's functions as it
// would any other's: the tiers mix freely.
proto.file "b.proto" package "" proto3 imports []
proto.message @Outer file "b.proto" {
  proto.field "inner" = 1 : message<@Inner> optional
}
proto.message @Inner file "b.proto" tier compact {
  proto.field "x" = 1 : int32 implicit
}

// CHECK-LABEL: llvm.func @Outer_encoded_size(
// CHECK: llvm.call @Inner_encoded_size(
// CHECK-LABEL: llvm.func @pbc__Outer_dec(
// CHECK: llvm.call @pbc__Inner_dec(
// CHECK-LABEL: llvm.func @Inner_encoded_size(
// CHECK-NEXT: llvm.mlir.addressof @pbc__Inner_desc
// CHECK-NEXT: llvm.call tail @pbc_table_encoded_size(
