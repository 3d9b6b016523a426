// Every verifier rejects what protoc rejects.
// RUN: pbc-opt %s -split-input-file -verify-diagnostics

proto.message @M file "a.proto" {
  proto.field "a" = 1 : int32 implicit
  // expected-error@+1 {{field number 1 is already used by field "a"}}
  proto.field "b" = 1 : int32 implicit
}

// -----

proto.message @M file "a.proto" {
  proto.field "a" = 1 : int32 implicit
  // expected-error@+1 {{field name "a" is already used}}
  proto.field "a" = 2 : int32 implicit
}

// -----

proto.message @M file "a.proto" {
  // expected-error@+1 {{field number 19000 is in the range 19000-19999 reserved by protobuf}}
  proto.field "a" = 19000 : int32 implicit
}

// -----

proto.message @M file "a.proto" {
  // expected-error@+1 {{field number 0 is out of range [1, 536870911]}}
  proto.field "a" = 0 : int32 implicit
}

// -----

proto.message @M file "a.proto" {
  // expected-error@+1 {{field number 536870912 is out of range [1, 536870911]}}
  proto.field "a" = 536870912 : int32 implicit
}

// -----

proto.message @M file "a.proto" {
  // expected-error@+1 {{a message field needs a type name}}
  proto.field "a" = 1 : message optional
}

// -----

proto.message @M file "a.proto" {
  // expected-error@+1 {{a int32 field cannot have a type name}}
  proto.field "a" = 1 : int32<@M> implicit
}

// -----

proto.message @M file "a.proto" {
  // expected-error@+1 {{only repeated scalar fields can be packed}}
  proto.field "a" = 1 : string repeated packed
}

// -----

proto.message @M file "a.proto" {
  // expected-error@+1 {{only repeated scalar fields can be packed}}
  proto.field "a" = 1 : int32 optional packed
}

// -----

proto.message @M file "a.proto" {
  // expected-error@+1 {{only string fields can require UTF-8}}
  proto.field "a" = 1 : bytes implicit utf8
}

// -----

proto.message @M file "a.proto" {
  // expected-error@+1 {{only enum fields can be closed}}
  proto.field "a" = 1 : int32 optional closed
}

// -----

proto.message @M file "a.proto" {
  // expected-error@+1 {{message fields always have explicit presence}}
  proto.field "a" = 1 : message<@M> implicit
}

// -----

proto.message @M file "a.proto" {
  // expected-error@+1 {{repeated and message fields cannot have a default}}
  proto.field "a" = 1 : int32 repeated default "1"
}

// -----

proto.message @M file "a.proto" {
  // expected-error@+1 {{fields with implicit presence cannot have a default}}
  proto.field "a" = 1 : int32 implicit default "1"
}

// -----

proto.message @M file "a.proto" {
  // expected-error@+1 {{type @Nope is not a known message}}
  proto.field "a" = 1 : message<@Nope> optional
}

// -----

proto.enum @E file "a.proto" {
  proto.enum_value "Z" = 0
}
proto.message @M file "a.proto" {
  // expected-error@+1 {{type @E is not a known message}}
  proto.field "a" = 1 : message<@E> optional
}

// -----

proto.message @M file "a.proto" {
  // expected-error@+1 {{type @M is not a known enum}}
  proto.field "a" = 1 : enum<@M> implicit
}

// -----

proto.enum @E file "a.proto" closed {
  proto.enum_value "A" = 1
}
proto.message @M file "a.proto" {
  // expected-error@+1 {{`closed` must match enum @E}}
  proto.field "a" = 1 : enum<@E> optional
}

// -----

// expected-error@+1 {{an enum needs at least one value}}
proto.enum @E file "a.proto" {
}

// -----

proto.enum @E file "a.proto" {
  // expected-error@+1 {{the first value of an open (proto3) enum must be zero}}
  proto.enum_value "A" = 1
}

// -----

proto.enum @E file "a.proto" {
  proto.enum_value "A" = 0
  // expected-error@+1 {{enumerator "A" is already defined}}
  proto.enum_value "A" = 1
}

// -----

proto.enum @E file "a.proto" {
  proto.enum_value "A" = 0
  // expected-error@+1 {{value 0 is already used by "A" (set allow_alias to allow it)}}
  proto.enum_value "B" = 0
}

// -----

// Defaults are typed as their field.
proto.message @M file "a.proto" {
  // expected-error@+1 {{the default of a uint32 field is of type 'ui32', not -1 : i32}}
  proto.field "a" = 1 : uint32 optional default -1 : i32
}

// -----

proto.message @M file "a.proto" {
  // expected-error@+1 {{the default of a int64 field is of type 'i64', not "12"}}
  proto.field "a" = 1 : int64 optional default "12"
}

// -----

proto.message @M file "a.proto" {
  // expected-error@+1 {{the default of a float field is of type 'f32', not 1.500000e+00 : f64}}
  proto.field "a" = 1 : float optional default 1.5 : f64
}

// -----

proto.message @M file "a.proto" {
  // expected-error@+1 {{the default of a bool field is of type 'i1', not 1 : i8}}
  proto.field "a" = 1 : bool optional default 1 : i8
}

// -----

proto.message @M file "a.proto" {
  // expected-error@+1 {{the default of a string field is a string, not 0 : i32}}
  proto.field "a" = 1 : string optional default 0 : i32
}

// -----

// A layout is all or nothing.
// expected-error@+1 {{has part of a layout: size, align and presence_words go together}}
proto.message @M file "a.proto" attributes {size = 24 : i64} {
  proto.field "a" = 1 : int32 implicit
}

// -----

// expected-error@+1 {{has a layout but no unknown_offset}}
proto.message @M file "a.proto" attributes {align = 4 : i64, presence_words = 0 : i64, size = 4 : i64} {
  proto.field "a" = 1 : int32 implicit {offset = 0 : i64}
}

// -----

// expected-error@+1 {{is a map entry: it keeps no unknown fields}}
proto.message @E file "a.proto" map_entry attributes {align = 4 : i64, presence_words = 0 : i64, size = 8 : i64, unknown_offset = 8 : i64} {
  proto.field "key" = 1 : int32 optional {offset = 0 : i64}
  proto.field "value" = 2 : int32 optional {offset = 4 : i64}
}

// -----

proto.message @M file "a.proto" attributes {align = 8 : i64, presence_words = 0 : i64, size = 24 : i64, unknown_offset = 8 : i64} {
  // expected-error@+1 {{has no offset in a laid-out message}}
  proto.field "a" = 1 : int32 implicit
}

// -----

proto.message @M file "a.proto" {
  // expected-error@+1 {{has an offset in a message without a layout}}
  proto.field "a" = 1 : int32 implicit {offset = 0 : i64}
}

// -----

proto.message @M file "a.proto" attributes {align = 8 : i64, presence_words = 1 : i64, size = 32 : i64, unknown_offset = 8 : i64} {
  // expected-error@+1 {{presence bit 32 is past the message's 32 bits}}
  proto.field "a" = 1 : int32 optional {offset = 4 : i64, presence_bit = 32 : i32}
}

// -----

proto.message @M file "a.proto" attributes {align = 8 : i64, presence_words = 0 : i64, size = 32 : i64, unknown_offset = 8 : i64} {
  // expected-error@+1 {{has no case_offset in a laid-out message}}
  proto.oneof "o" {
    proto.field "a" = 1 : int32 optional {offset = 0 : i64}
  }
}

// -----

proto.message @M file "a.proto" {
  // expected-error@+1 {{has a presence bit but no offset: a layout is all or nothing}}
  proto.field "a" = 1 : int32 optional {presence_bit = 0 : i32}
}

// -----

// A tier is one of the three.
// expected-error@+1 {{enum values for attribute 'tier' [specialized, compact, lite]}}
proto.message @M file "a.proto" tier fast {
}

// -----

// An optimize_for is one of descriptor.proto's three modes.
// expected-error@+1 {{enum values for attribute 'optimize_for' [speed, code_size, lite_runtime]}}
proto.file "a.proto" package "" proto3 optimize_for size imports []

// -----

// A profile's successor is another field of the same message.
proto.message @M file "a.proto" {
  // expected-error@+1 {{followed_by 7 is not another field of the message}}
  proto.field "a" = 1 : int32 optional followed_by 7
}

// -----

proto.message @M file "a.proto" {
  proto.field "a" = 1 : int32 optional
  // expected-error@+1 {{followed_by 2 is not another field of the message}}
  proto.field "b" = 2 : int32 repeated followed_by 2
}

// -----

proto.message @M file "a.proto" {
}
// expected-error@+1 {{an extension holds exactly one proto.field}}
proto.extension @e extends @M file "a.proto" {
}

// -----

proto.message @M file "a.proto" {
}
// expected-error@+1 {{an extension holds exactly one proto.field}}
proto.extension @e extends @M file "a.proto" {
  proto.field "e" = 100 : int32 optional
  proto.field "f" = 101 : int32 optional
}

// -----

proto.message @M file "a.proto" {
}
proto.extension @e extends @M file "a.proto" {
  // expected-error@+1 {{an extension is optional or repeated, not required}}
  proto.field "e" = 100 : int32 required
}

// -----

proto.message @M file "a.proto" {
}
proto.extension @e extends @M file "a.proto" {
  // expected-error@+1 {{an extension is optional or repeated, not implicit}}
  proto.field "e" = 100 : int32 implicit
}

// -----

proto.message @M file "a.proto" {
}
proto.extension @e extends @M file "a.proto" {
  // expected-error@+1 {{an extension's field has no layout: it lives in the extendee's unknown fields}}
  proto.field "e" = 100 : int32 optional {offset = 8 : i64}
}

// -----

proto.message @M file "a.proto" {
}
proto.extension @e extends @M file "a.proto" {
  // expected-error@+1 {{an extension's field has no followed_by}}
  proto.field "e" = 100 : int32 optional followed_by 3
}

// -----

proto.message @M file "a.proto" {
}
// expected-error@+1 {{a message_set extension is an optional message}}
proto.extension @e extends @M file "a.proto" message_set {
  proto.field "e" = 100 : int32 optional
}

// -----

proto.enum @E file "a.proto" closed {
  proto.enum_value "A" = 1
}
// expected-error@+1 {{extendee @E is not a known message}}
proto.extension @e extends @E file "a.proto" {
  proto.field "e" = 100 : int32 optional
}

// -----

proto.message @M file "a.proto" map_entry {
  proto.field "key" = 1 : int32 optional
  proto.field "value" = 2 : int32 optional
}
// expected-error@+1 {{a map entry cannot be extended}}
proto.extension @e extends @M file "a.proto" {
  proto.field "e" = 100 : int32 optional
}

// -----

proto.message @M file "a.proto" {
  proto.field "a" = 100 : int32 optional
}
// expected-error@+1 {{field number 100 is already used by field "a" of @M}}
proto.extension @e extends @M file "a.proto" {
  proto.field "e" = 100 : int32 optional
}

// -----

proto.message @M file "a.proto" {
}
proto.extension @e extends @M file "a.proto" {
  // expected-error@+1 {{type @Nope is not a known message}}
  proto.field "e" = 100 : message<@Nope> optional
}

// -----

proto.message @M file "a.proto" {
}
proto.extension @e extends @M file "a.proto" {
  // expected-error@+1 {{only repeated scalar fields can be packed}}
  proto.field "e" = 100 : int32 optional packed
}

// -----

// expected-error@+1 {{extensions must be [start, end) pairs}}
proto.message @M file "a.proto" extensions [1, 10, 20] {
}

// -----

// expected-error@+1 {{extension range [5, 5) is not a range of field numbers}}
proto.message @M file "a.proto" extensions [5, 5] {
}

// -----

// expected-error@+1 {{extension range [0, 5) is not a range of field numbers}}
proto.message @M file "a.proto" extensions [0, 5] {
}

// -----

// expected-error@+1 {{extension range [8, 20) overlaps or precedes the range before it}}
proto.message @M file "a.proto" extensions [1, 10, 8, 20] {
}

// -----

proto.message @M file "a.proto" extensions [1, 10] {
  // expected-error@+1 {{field number 9 is in the extension range [1, 10)}}
  proto.field "a" = 9 : int32 optional
}

// -----

// expected-error@+1 {{is a map entry: it has no extension ranges}}
proto.message @M file "a.proto" map_entry extensions [5, 10] {
  proto.field "key" = 1 : int32 implicit
  proto.field "value" = 2 : int32 implicit
}
