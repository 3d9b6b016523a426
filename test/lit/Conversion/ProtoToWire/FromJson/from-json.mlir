// FromJson.cpp: pbc__T_from_json parses a message's JSON object with an
// in-order expect-key chain: after the object opens, each field's whole
// `"json_name":` is compared in number order (or the profile's), a hit
// going to the field's value (its ':' read), a miss to the next field's
// key and after the last to the runtime's search by name, whose index the
// header switches on to the same value blocks (':' still to read). A value
// is one runtime call that stores it into the message (%arg0), a singular
// message's with its own parser to fill the new struct; a scalar's after
// the test of its given-once bit, which the function keeps (an alloca a
// word per 64 fields). Then ',' goes on to the next key, '}' closes the
// object's frame and returns. A name that
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

// CHECK-LABEL: llvm.func @pbc__J_from_json(%arg0: !llvm.ptr, %arg1: !llvm.ptr) -> (i1 {llvm.zeroext})
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__J_desc : !llvm.ptr
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT: %[[GIVEN:.*]] = llvm.alloca %[[ONE]] x i64 : (i64) -> !llvm.ptr
// CHECK-NEXT: %[[NONE:.*]] = arith.constant 0 : i64
// CHECK-NEXT: llvm.store %[[NONE]], %[[GIVEN]] : i64, !llvm.ptr
// CHECK-NEXT: %[[FRAME:.*]] = llvm.call @pbc_json_open_object(%arg1, %[[DESC]])
// CHECK-NEXT: %[[START:.*]] = arith.constant -3 : i32
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[NEG:.*]] = arith.cmpi slt, %[[FRAME]], %[[ZERO]] : i64
// CHECK-NEXT: llvm.cond_br %[[NEG]], ^[[OPEN_NEG:bb[0-9]+]], ^[[DISPATCH:bb[0-9]+]](%[[START]] : i32)
// The header: the start (-3) goes to the first key, the end (-2) returns,
// a field's index to its value with its ':' still to read (true).
// CHECK-NEXT: ^[[DISPATCH]](%[[WHERE:.*]]: i32):  // 2 preds: ^bb0, ^[[MISS:bb[0-9]+]]
// CHECK-NEXT: %[[UNREAD:.*]] = arith.constant true
// CHECK-NEXT: llvm.switch %[[WHERE]] : i32, ^[[FAIL0:bb[0-9]+]] [
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
// CHECK-NEXT: %[[HIT1:.*]] = llvm.call @pbc_json_key(%arg1, %[[K1]], %[[N1]]) : (!llvm.ptr, !llvm.ptr, i64) -> i1
// CHECK-NEXT: %[[READ:.*]] = arith.constant false
// CHECK-NEXT: llvm.cond_br %[[HIT1]], ^[[VAL_ID]](%[[READ]] : i1), ^[[KEY_BIG:bb[0-9]+]]
// Its bit (1) set before: given twice; else set, and the value stored.
// CHECK-NEXT: ^[[VAL_ID]](%[[COLON:.*]]: i1):
// CHECK-NEXT: %[[I0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[BITS:.*]] = llvm.load %[[GIVEN]] : !llvm.ptr -> i64
// CHECK-NEXT: %[[BIT:.*]] = arith.constant 1 : i64
// CHECK-NEXT: %[[Z0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[AND:.*]] = arith.andi %[[BITS]], %[[BIT]] : i64
// CHECK-NEXT: %[[SEEN:.*]] = arith.cmpi ne, %[[AND]], %[[Z0]] : i64
// CHECK-NEXT: llvm.cond_br %[[SEEN]], ^[[TWICE:bb[0-9]+]](%[[I0]] : i32), ^[[FRESH:bb[0-9]+]]
// CHECK-NEXT: ^[[FRESH]]:
// CHECK-NEXT: %[[SET:.*]] = arith.ori %[[BITS]], %[[BIT]] : i64
// CHECK-NEXT: llvm.store %[[SET]], %[[GIVEN]] : i64, !llvm.ptr
// CHECK-NEXT: %[[SLOT:.*]] = llvm.getelementptr inbounds %arg0[40] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT: %[[READ:.*]] = llvm.call @pbc_json_int32(%arg1, %[[DESC]], %[[I0]], %[[COLON]], %[[SLOT]]) : (!llvm.ptr, !llvm.ptr, i32, i1, !llvm.ptr) -> i32
// The reader read the ',' or '}' after the value too: -1 fails; else bit
// 1 of its answer is '}', which returns, and the rest go on to big_id's key
// (an implicit field has no presence to set, so stored or not, the same).
// CHECK-NEXT: %[[Z1:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi sge, %[[READ]], %[[Z1]] : i32
// CHECK-NEXT: llvm.cond_br %[[OK]], ^[[READ_ID:bb[0-9]+]], ^[[FAIL:bb[0-9]+]]
// CHECK-NEXT: ^[[READ_ID]]:
// CHECK-NEXT: %[[Z2:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[B1:.*]] = arith.andi %[[READ]], %[[TWO]] : i32
// CHECK-NEXT: %[[ENDED:.*]] = arith.cmpi ne, %[[B1]], %[[Z2]] : i32
// CHECK-NEXT: llvm.cond_br %[[ENDED]], ^[[DONE]], ^[[KEY_BIG]]
// big_id's key is its json_name; a miss tries sub's.
// CHECK-NEXT: ^[[KEY_BIG]]:  // 2 preds: ^[[KEY_ID]], ^[[READ_ID]]
// CHECK-NEXT: llvm.mlir.addressof @pbc__J_json_key_2
// CHECK: llvm.cond_br %{{.*}}, ^[[VAL_BIG]](%{{.*}} : i1), ^[[KEY_SUB:bb[0-9]+]]
// CHECK-NEXT: ^[[VAL_BIG]](
// CHECK: llvm.cond_br %{{.*}}, ^[[DONE]], ^[[KEY_SUB]]
// sub: a new struct, which its own parser fills.
// CHECK: ^[[KEY_SUB]]:
// CHECK-NEXT: llvm.mlir.addressof @pbc__J_json_key_4
// CHECK: llvm.cond_br %{{.*}}, ^[[VAL_SUB]](%{{.*}} : i1), ^[[KEY_ODD:bb[0-9]+]]
// CHECK-NEXT: ^[[VAL_SUB]](%[[SUBCOLON:.*]]: i1):
// CHECK-NEXT: %[[I2:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[PARSER:.*]] = llvm.mlir.addressof @pbc__J_from_json : !llvm.ptr
// CHECK-NEXT: %[[SUBOK:.*]] = llvm.call @pbc_json_message_member(%arg1, %[[DESC]], %[[FRAME]], %[[I2]], %[[SUBCOLON]], %arg0, %[[PARSER]]) : (!llvm.ptr, !llvm.ptr, i64, i32, i1, !llvm.ptr, !llvm.ptr) -> i1
// CHECK-NEXT: llvm.cond_br %[[SUBOK]], ^[[SEP_SUB:bb[0-9]+]], ^[[FAIL]]
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
// CHECK: llvm.call @pbc_json_double(
// CHECK: llvm.cond_br %{{.*}}, ^{{bb[0-9]+}}, ^[[FAIL]]
// CHECK: llvm.cond_br %{{.*}}, ^[[DONE]], ^[[MISS]]
// The search, the only branch back: to the header.
// CHECK-NEXT: ^[[MISS]]:
// CHECK-NEXT: %[[IDX:.*]] = llvm.call @pbc_json_find_member(%arg1, %[[DESC]], %[[FRAME]]) : (!llvm.ptr, !llvm.ptr, i64) -> i32
// CHECK-NEXT: llvm.br ^[[DISPATCH]](%[[IDX]] : i32)
// `{}`: -2, read whole, no frame; else an error.
// CHECK-NEXT: ^[[OPEN_NEG]]:
// CHECK-NEXT: %[[M2B:.*]] = arith.constant -2 : i64
// CHECK-NEXT: %[[EMPTY:.*]] = arith.cmpi eq, %[[FRAME]], %[[M2B]] : i64
// CHECK-NEXT: llvm.cond_br %[[EMPTY]], ^[[EMPTYBB:bb[0-9]+]], ^[[FAIL]]
// CHECK-NEXT: ^[[EMPTYBB]]:
// CHECK-NEXT: %[[T:.*]] = arith.constant true
// CHECK-NEXT: llvm.return %[[T]] : i1
// The object's end: the frame closed, what the wire form kept merged.
// CHECK-NEXT: ^[[DONE]]:
// CHECK-NEXT: %[[CLOSED:.*]] = llvm.call @pbc_json_close_object(%arg1, %[[DESC]], %[[FRAME]], %arg0) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> i1
// CHECK-NEXT: llvm.return %[[CLOSED]] : i1
// A scalar given twice: the runtime says which, and the parse fails.
// CHECK-NEXT: ^[[TWICE]](%[[WHICH:.*]]: i32):
// CHECK-NEXT: llvm.call @pbc_json_given_twice(%arg1, %[[DESC]], %[[WHICH]]) : (!llvm.ptr, !llvm.ptr, i32) -> i1
// CHECK-NEXT: llvm.br ^[[FAIL]]
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
// a's value: -1 fails; bit 0 of the answer (stored) is or'ed into the
// presence word at a's bit (0), no branch; after its member, c's key; bit
// 1 ('}') the end.
// CHECK: %[[READ:.*]] = llvm.call @pbc_json_int32
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi sge, %[[READ]], %[[Z]] : i32
// CHECK-NEXT: llvm.cond_br %[[OK]], ^[[READ_A:bb[0-9]+]], ^[[FAIL:bb[0-9]+]]
// CHECK-NEXT: ^[[READ_A]]:
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[STORED:.*]] = arith.andi %[[READ]], %[[ONE]] : i32
// CHECK-NEXT: %[[SHIFT:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[PB:.*]] = arith.shli %[[STORED]], %[[SHIFT]] : i32
// CHECK-NEXT: %[[PW:.*]] = llvm.load %arg0 : !llvm.ptr -> i32
// CHECK-NEXT: %[[PS:.*]] = arith.ori %[[PW]], %[[PB]] : i32
// CHECK-NEXT: llvm.store %[[PS]], %arg0 : i32, !llvm.ptr
// CHECK-NEXT: %[[Z2:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[B1:.*]] = arith.andi %[[READ]], %[[TWO]] : i32
// CHECK-NEXT: %[[ENDED:.*]] = arith.cmpi ne, %[[B1]], %[[Z2]] : i32
// CHECK-NEXT: llvm.cond_br %[[ENDED]], ^[[DONE:bb[0-9]+]], ^[[KEY_C:bb[0-9]+]]
// CHECK-NEXT: ^[[KEY_B]]:  // pred:
// CHECK-NEXT: llvm.mlir.addressof @pbc__P_json_key_2
// CHECK: ^[[KEY_C]]:  // 3 preds: ^[[READ_A]], ^[[KEY_B]], ^{{bb[0-9]+}}
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

// CHECK-LABEL: llvm.func @pbc__google_protobuf_Duration_from_json(%arg0: !llvm.ptr, %arg1: !llvm.ptr) -> (i1 {llvm.zeroext})
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__google_protobuf_Duration_desc
// CHECK-NEXT: %[[OK:.*]] = llvm.call @pbc_json_parse_message(%[[DESC]], %arg0, %arg1)
// CHECK-NEXT: llvm.return %[[OK]] : i1
// CHECK-LABEL: llvm.func @pbc__E_from_json(%arg0: !llvm.ptr, %arg1: !llvm.ptr) -> (i1 {llvm.zeroext})
// CHECK-NEXT: %[[DESC:.*]] = llvm.mlir.addressof @pbc__E_desc
// CHECK-NEXT: %[[OK:.*]] = llvm.call @pbc_json_parse_message(%[[DESC]], %arg0, %arg1)
// CHECK-NEXT: llvm.return %[[OK]] : i1

// -----

// Each singular value is read by its type's reader (the runtime switches
// on no type): the signed integers of 32 bits by int32 whatever their wire
// form, the unsigned by uint32, the 64-bit ones likewise.
proto.file "t.proto" package "" proto3 imports []
proto.enum @K file "t.proto" {
  proto.enum_value "ZERO" = 0
}
proto.message @T file "t.proto" {
  proto.field "a" = 1 : int32 implicit
  proto.field "b" = 2 : sint32 implicit
  proto.field "c" = 3 : sfixed32 implicit
  proto.field "d" = 4 : int64 implicit
  proto.field "e" = 5 : sint64 implicit
  proto.field "f" = 6 : sfixed64 implicit
  proto.field "g" = 7 : uint32 implicit
  proto.field "h" = 8 : fixed32 implicit
  proto.field "i" = 9 : uint64 implicit
  proto.field "j" = 10 : fixed64 implicit
  proto.field "k" = 11 : float implicit
  proto.field "l" = 12 : double implicit
  proto.field "m" = 13 : bool implicit
  proto.field "n" = 14 : string implicit
  proto.field "o" = 15 : bytes implicit
  proto.field "p" = 16 : enum<@K> implicit
}

// CHECK-LABEL: llvm.func @pbc__T_from_json
// CHECK: llvm.call @pbc_json_int32(
// CHECK: llvm.call @pbc_json_int32(
// CHECK: llvm.call @pbc_json_int32(
// CHECK: llvm.call @pbc_json_int64(
// CHECK: llvm.call @pbc_json_int64(
// CHECK: llvm.call @pbc_json_int64(
// CHECK: llvm.call @pbc_json_uint32(
// CHECK: llvm.call @pbc_json_uint32(
// CHECK: llvm.call @pbc_json_uint64(
// CHECK: llvm.call @pbc_json_uint64(
// CHECK: llvm.call @pbc_json_float(
// CHECK: llvm.call @pbc_json_double(
// CHECK: llvm.call @pbc_json_bool(
// CHECK: llvm.call @pbc_json_string(
// CHECK: llvm.call @pbc_json_bytes(
// CHECK: llvm.call @pbc_json_enum(
// CHECK-NOT: llvm.call @pbc_json_{{(int|uint|float|double|bool|string|bytes|enum)}}

// -----

// A repeated field's array is read by the runtime into the struct: a
// message field's with its elements' own parser (each element's chain
// goes on inside it), a scalar field's without; a map's entries are not a
// message array (no parser: the runtime writes them for the decoder).
proto.file "r.proto" package "" proto3 imports []
proto.message @R file "r.proto" {
  proto.field "nums" = 1 : int32 repeated
  proto.field "kids" = 2 : message<@R> repeated
  proto.field "m" = 3 : message<@R.MEntry> repeated
}
proto.message @R.MEntry file "r.proto" map_entry {
  proto.field "key" = 1 : string implicit
  proto.field "value" = 2 : int32 implicit
}

// CHECK-LABEL: llvm.func @pbc__R_from_json
// CHECK: %[[NUMS:.*]] = arith.constant 0 : i32
// CHECK: llvm.call @pbc_json_member(%arg1, %{{.*}}, %{{.*}}, %[[NUMS]], %{{.*}}, %arg0) : (!llvm.ptr, !llvm.ptr, i64, i32, i1, !llvm.ptr) -> i1
// CHECK: %[[KIDS:.*]] = arith.constant 1 : i32
// CHECK: %[[PARSER:.*]] = llvm.mlir.addressof @pbc__R_from_json : !llvm.ptr
// CHECK-NEXT: llvm.call @pbc_json_message_member(%arg1, %{{.*}}, %{{.*}}, %[[KIDS]], %{{.*}}, %arg0, %[[PARSER]])
// CHECK: %[[MAP:.*]] = arith.constant 2 : i32
// CHECK: llvm.call @pbc_json_member(%arg1, %{{.*}}, %{{.*}}, %[[MAP]], %{{.*}}, %arg0) : (!llvm.ptr, !llvm.ptr, i64, i32, i1, !llvm.ptr) -> i1
