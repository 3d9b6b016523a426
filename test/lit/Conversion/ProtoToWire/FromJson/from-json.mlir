// FromJson.cpp: pbc__T_from_json parses a message's JSON object with an
// in-order expect-key chain: after the object opens, each field's whole
// `"json_name":` is compared in number order (or the profile's), a hit
// going to the field's value (its ':' read), a miss to the next field's
// key and after the last to the runtime's search by name, whose index the
// header switches on to the same value blocks (':' still to read). A value
// is one runtime call, a singular message's its own parser between enter
// and leave; then ',' goes on to the next key, '}' returns. A name that
// needs escaping has no key: the search finds it. The blocks are laid out
// in that order, the search's branch to the header the only one back.
// RUN: pbc-opt %s -split-input-file -proto-layout -proto-to-wire | FileCheck %s

proto.file "j.proto" package "" proto3 imports []
proto.message @J file "j.proto" {
  proto.field "id" = 1 : int32 implicit
  proto.field "big_id" = 2 : uint64 implicit
  proto.field "sub" = 4 : message<@J> optional
  proto.field "odd" = 9 : double implicit json "a<b"
}

// CHECK-LABEL: llvm.func @pbc__J_from_json(%arg0: !llvm.ptr) -> (i1 {llvm.zeroext})
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__J_desc : !llvm.ptr
// CHECK-NEXT: %[[FRAME:.*]] = llvm.call @pbc_json_open_object(%arg0, %[[DESC]])
// CHECK-NEXT: %[[START:.*]] = arith.constant -3 : i32
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[NEG:.*]] = arith.cmpi slt, %[[FRAME]], %[[ZERO]] : i64
// CHECK-NEXT: llvm.cond_br %[[NEG]], ^[[OPEN_NEG:bb[0-9]+]], ^[[DISPATCH:bb[0-9]+]](%[[START]] : i32)
// The header: the start (-3) goes to the first key, the end (-2) returns,
// a field's index to its value with its ':' still to read (true).
// CHECK-NEXT: ^[[DISPATCH]](%[[WHERE:.*]]: i32):  // 2 preds: ^bb0, ^[[MISS:bb[0-9]+]]
// CHECK-NEXT: %[[UNREAD:.*]] = arith.constant true
// CHECK-NEXT: llvm.switch %[[WHERE]] : i32, ^[[FAIL:bb[0-9]+]] [
// CHECK-NEXT: 4294967293: ^[[KEY_ID:bb[0-9]+]],
// CHECK-NEXT: 4294967294: ^[[DONE:bb[0-9]+]],
// CHECK-NEXT: 0: ^[[VAL_ID:bb[0-9]+]](%[[UNREAD]] : i1),
// CHECK-NEXT: 1: ^[[VAL_BIG:bb[0-9]+]](%[[UNREAD]] : i1),
// CHECK-NEXT: 2: ^[[VAL_SUB:bb[0-9]+]](%[[UNREAD]] : i1),
// CHECK-NEXT: 3: ^[[VAL_ODD:bb[0-9]+]](%[[UNREAD]] : i1)
// CHECK-NEXT: ]
// id's key: a hit is its value (':' read: false), a miss big_id's key.
// CHECK-NEXT: ^[[KEY_ID]]:
// CHECK-NEXT: %[[K1:.*]] = llvm.mlir.addressof @pbc__J_json_key_1 : !llvm.ptr
// CHECK-NEXT: %[[N1:.*]] = arith.constant 5 : i64
// CHECK-NEXT: %[[HIT1:.*]] = llvm.call @pbc_json_key(%arg0, %[[K1]], %[[N1]]) : (!llvm.ptr, !llvm.ptr, i64) -> i1
// CHECK-NEXT: %[[READ:.*]] = arith.constant false
// CHECK-NEXT: llvm.cond_br %[[HIT1]], ^[[VAL_ID]](%[[READ]] : i1), ^[[KEY_BIG:bb[0-9]+]]
// CHECK-NEXT: ^[[VAL_ID]](%[[COLON:.*]]: i1):
// CHECK-NEXT: %[[I0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[OK:.*]] = llvm.call @pbc_json_member(%arg0, %[[DESC]], %[[FRAME]], %[[I0]], %[[COLON]])
// CHECK-NEXT: llvm.cond_br %[[OK]], ^[[SEP_ID:bb[0-9]+]], ^[[FAIL]]
// Then ',' goes on to big_id's key, '}' returns.
// CHECK-NEXT: ^[[SEP_ID]]:
// CHECK-NEXT: %[[MORE:.*]] = llvm.call @pbc_json_more(%arg0, %[[DESC]]) : (!llvm.ptr, !llvm.ptr) -> i32
// CHECK-NEXT: llvm.switch %[[MORE]] : i32, ^[[FAIL]] [
// CHECK-NEXT: 0: ^[[DONE]],
// CHECK-NEXT: 1: ^[[KEY_BIG]]
// CHECK-NEXT: ]
// big_id's key is its json_name; a miss tries sub's.
// CHECK-NEXT: ^[[KEY_BIG]]:  // 2 preds: ^[[KEY_ID]], ^[[SEP_ID]]
// CHECK-NEXT: llvm.mlir.addressof @pbc__J_json_key_2
// CHECK: llvm.cond_br %{{.*}}, ^[[VAL_BIG]](%{{.*}} : i1), ^[[KEY_SUB:bb[0-9]+]]
// CHECK-NEXT: ^[[VAL_BIG]](
// CHECK: llvm.switch
// CHECK: 1: ^[[KEY_SUB]]
// sub: enter, its own parser, leave; -2 from enter is null: no value.
// CHECK: ^[[KEY_SUB]]:
// CHECK-NEXT: llvm.mlir.addressof @pbc__J_json_key_4
// CHECK: llvm.cond_br %{{.*}}, ^[[VAL_SUB]](%{{.*}} : i1), ^[[KEY_ODD:bb[0-9]+]]
// CHECK-NEXT: ^[[VAL_SUB]](%[[SUBCOLON:.*]]: i1):
// CHECK-NEXT: %[[I2:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[AT:.*]] = llvm.call @pbc_json_enter_message(%arg0, %[[DESC]], %[[FRAME]], %[[I2]], %[[SUBCOLON]]) : (!llvm.ptr, !llvm.ptr, i64, i32, i1) -> i64
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[ATNEG:.*]] = arith.cmpi slt, %[[AT]], %[[Z]] : i64
// CHECK-NEXT: llvm.cond_br %[[ATNEG]], ^[[NULL:bb[0-9]+]], ^[[PARSE:bb[0-9]+]]
// CHECK-NEXT: ^[[NULL]]:
// CHECK-NEXT: %[[M2:.*]] = arith.constant -2 : i64
// CHECK-NEXT: %[[ISNULL:.*]] = arith.cmpi eq, %[[AT]], %[[M2]] : i64
// CHECK-NEXT: llvm.cond_br %[[ISNULL]], ^[[SEP_SUB:bb[0-9]+]], ^[[FAIL]]
// CHECK-NEXT: ^[[PARSE]]:
// CHECK-NEXT: %[[SUBOK:.*]] = llvm.call @pbc__J_from_json(%arg0) : (!llvm.ptr) -> i1
// CHECK-NEXT: llvm.cond_br %[[SUBOK]], ^[[LEAVE:bb[0-9]+]], ^[[FAIL]]
// CHECK-NEXT: ^[[LEAVE]]:
// CHECK-NEXT: %[[LEFT:.*]] = llvm.call @pbc_json_leave_message(%arg0, %[[DESC]], %[[FRAME]], %[[I2]], %[[AT]])
// CHECK-NEXT: llvm.cond_br %[[LEFT]], ^[[SEP_SUB]], ^[[FAIL]]
// CHECK-NEXT: ^[[SEP_SUB]]:
// CHECK-NEXT: llvm.call @pbc_json_more(
// CHECK-NEXT: llvm.switch %{{.*}} : i32, ^[[FAIL]] [
// CHECK-NEXT: 0: ^[[DONE]],
// CHECK-NEXT: 1: ^[[KEY_ODD]]
// CHECK-NEXT: ]
// odd ("a<b") has no key: the search finds it.
// CHECK-NEXT: ^[[KEY_ODD]]:
// CHECK-NEXT: llvm.br ^[[MISS]]
// CHECK-NEXT: ^[[VAL_ODD]](
// CHECK: llvm.call @pbc_json_more(
// CHECK-NEXT: llvm.switch %{{.*}} : i32, ^[[FAIL]] [
// CHECK-NEXT: 0: ^[[DONE]],
// CHECK-NEXT: 1: ^[[MISS]]
// CHECK-NEXT: ]
// The search, the only branch back: to the header.
// CHECK-NEXT: ^[[MISS]]:
// CHECK-NEXT: %[[IDX:.*]] = llvm.call @pbc_json_find_member(%arg0, %[[DESC]], %[[FRAME]]) : (!llvm.ptr, !llvm.ptr, i64) -> i32
// CHECK-NEXT: llvm.br ^[[DISPATCH]](%[[IDX]] : i32)
// `{}`: -2, done; else an error.
// CHECK-NEXT: ^[[OPEN_NEG]]:
// CHECK-NEXT: %[[M2B:.*]] = arith.constant -2 : i64
// CHECK-NEXT: %[[EMPTY:.*]] = arith.cmpi eq, %[[FRAME]], %[[M2B]] : i64
// CHECK-NEXT: llvm.cond_br %[[EMPTY]], ^[[DONE]], ^[[FAIL]]
// CHECK-NEXT: ^[[DONE]]:
// CHECK-NEXT: %[[T:.*]] = arith.constant true
// CHECK-NEXT: llvm.return %[[T]] : i1
// CHECK-NEXT: ^[[FAIL]]:
// CHECK-NEXT: %[[F:.*]] = arith.constant false
// CHECK-NEXT: llvm.return %[[F]] : i1
// CHECK-NEXT: }
// The keys: quote, name, quote, colon.
// CHECK-DAG: llvm.mlir.global private unnamed_addr constant @pbc__J_json_key_1("\22id\22:")
// CHECK-DAG: llvm.mlir.global private unnamed_addr constant @pbc__J_json_key_2("\22bigId\22:")

// -----

// A profile's order (followed_by): after a's member, c's key (a's
// followed_by 3), not b's; b's key is now reached only when a's misses;
// after b, c's by number.
proto.file "p.proto" package "" proto2 imports []
proto.message @P file "p.proto" {
  proto.field "a" = 1 : int32 optional followed_by 3
  proto.field "b" = 2 : int32 optional
  proto.field "c" = 3 : int32 optional
}

// CHECK-LABEL: llvm.func @pbc__P_from_json
// CHECK: llvm.mlir.addressof @pbc__P_json_key_1
// CHECK: llvm.cond_br %{{.*}}, ^{{bb[0-9]+}}(%{{.*}} : i1), ^[[KEY_B:bb[0-9]+]]
// After a's member: c's key.
// CHECK: ^[[SEP_A:bb[0-9]+]]:  // pred:
// CHECK-NEXT: llvm.call @pbc_json_more
// CHECK-NEXT: llvm.switch %{{.*}} : i32, ^{{.*}} [
// CHECK-NEXT: 0: ^{{.*}},
// CHECK-NEXT: 1: ^[[KEY_C:bb[0-9]+]]
// CHECK-NEXT: ]
// CHECK-NEXT: ^[[KEY_B]]:  // pred:
// CHECK-NEXT: llvm.mlir.addressof @pbc__P_json_key_2
// CHECK: ^[[KEY_C]]:  // 3 preds: ^[[SEP_A]], ^[[KEY_B]], ^{{bb[0-9]+}}
// CHECK-NEXT: llvm.mlir.addressof @pbc__P_json_key_3

// -----

// Messages whose JSON is not their fields parse from their description:
// a well-known type, a message with extension ranges.
proto.file "google/protobuf/duration.proto" package "google.protobuf" proto3 imports []
proto.message @google.protobuf.Duration file "google/protobuf/duration.proto" {
  proto.field "seconds" = 1 : int64 implicit
  proto.field "nanos" = 2 : int32 implicit
}
proto.file "e.proto" package "" proto2 imports []
proto.message @E file "e.proto" extensions [100, 200] {
  proto.field "one" = 1 : int32 optional
}

// CHECK-LABEL: llvm.func @pbc__google_protobuf_Duration_from_json(%arg0: !llvm.ptr) -> (i1 {llvm.zeroext})
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__google_protobuf_Duration_desc
// CHECK-NEXT: %[[OK:.*]] = llvm.call @pbc_json_parse_message(%[[DESC]], %arg0)
// CHECK-NEXT: llvm.return %[[OK]] : i1
// CHECK-LABEL: llvm.func @pbc__E_from_json(%arg0: !llvm.ptr) -> (i1 {llvm.zeroext})
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__E_desc
// CHECK-NEXT: %[[OK:.*]] = llvm.call @pbc_json_parse_message(%[[DESC]], %arg0)
// CHECK-NEXT: llvm.return %[[OK]] : i1
