// The proto dialect prints and parses back to the same module.
// RUN: pbc-opt %s | pbc-opt | FileCheck %s

// CHECK: proto.file "addressbook.proto" package "tutorial" proto3 imports ["google/protobuf/timestamp.proto"]
proto.file "addressbook.proto" package "tutorial" proto3 imports ["google/protobuf/timestamp.proto"]
// CHECK: proto.file "shapes.proto" package "shapes" proto2 edition 1000 imports []
proto.file "shapes.proto" package "shapes" proto2 edition 1000 imports []
// CHECK: proto.file "big.proto" package "big" proto3 optimize_for code_size imports []
proto.file "big.proto" package "big" proto3 optimize_for code_size imports []
// CHECK: proto.file "ed.proto" package "ed" proto2 edition 1001 optimize_for lite_runtime imports []
proto.file "ed.proto" package "ed" proto2 edition 1001 optimize_for lite_runtime imports []
// CHECK-LABEL: proto.message @big.Row file "big.proto" tier compact {
proto.message @big.Row file "big.proto" tier compact {
}
// A profile's marks: the message's field reads, a field's successor.
// CHECK-LABEL: proto.message @big.Hot file "big.proto" tier lite profile 12 {
// CHECK-NEXT: proto.field "a" = 1 : int32 implicit followed_by 2
// CHECK-NEXT: proto.field "b" = 2 : int32 implicit{{$}}
proto.message @big.Hot file "big.proto" tier lite profile 12 {
  proto.field "a" = 1 : int32 implicit followed_by 2
  proto.field "b" = 2 : int32 implicit
}
// CHECK-LABEL: proto.message @big.Map file "big.proto" map_entry tier specialized {
proto.message @big.Map file "big.proto" map_entry tier specialized {
  proto.field "key" = 1 : int32 implicit
  proto.field "value" = 2 : int32 implicit
}

// Extension ranges, [start, end) pairs: between and above the fields.
// CHECK-LABEL: proto.message @shapes.Ext file "shapes.proto" extensions [2, 11, 100, 536870912] tier specialized {
proto.message @shapes.Ext file "shapes.proto" extensions [2, 11, 100, 536870912] tier specialized {
  proto.field "a" = 1 : int32 optional
  proto.field "b" = 11 : int32 optional
}
// A MessageSet's type ids reach INT32_MAX.
// CHECK-LABEL: proto.message @shapes.Set file "shapes.proto" extensions [4, 2147483647] {
proto.message @shapes.Set file "shapes.proto" extensions [4, 2147483647] {
}

// CHECK-LABEL: proto.message @tutorial.Person file "addressbook.proto" {
// CHECK-NEXT: proto.field "name" = 1 : string implicit utf8
// CHECK-NEXT: proto.field "id" = 2 : int32 implicit
// CHECK-NEXT: proto.field "phones" = 4 : message<@tutorial.Person.PhoneNumber> repeated
// CHECK-NEXT: proto.field "samples" = 5 : sint64 repeated packed
// CHECK-NEXT: proto.field "ratio" = 6 : double optional
// CHECK-NEXT: proto.field "kind" = 7 : enum<@tutorial.Kind> optional closed default 2 : i32
// CHECK-NEXT: proto.field "blob" = 8 : bytes optional default "\00\FF"
// CHECK-NEXT: proto.field "req" = 9 : fixed32 required
// CHECK-NEXT: proto.field "g" = 10 : group<@tutorial.Person.G> optional
// CHECK-NEXT: proto.field "when_ms" = 11 : int64 implicit json "when"
proto.message @tutorial.Person file "addressbook.proto" {
  proto.field "name" = 1 : string implicit utf8
  proto.field "id" = 2 : int32 implicit
  proto.field "phones" = 4 : message<@tutorial.Person.PhoneNumber> repeated
  proto.field "samples" = 5 : sint64 repeated packed
  proto.field "ratio" = 6 : double optional
  proto.field "kind" = 7 : enum<@tutorial.Kind> optional closed default 2 : i32
  proto.field "blob" = 8 : bytes optional default "\00\FF"
  proto.field "req" = 9 : fixed32 required
  proto.field "g" = 10 : group<@tutorial.Person.G> optional
  proto.field "when_ms" = 11 : int64 implicit json "when"
}

// CHECK: proto.message @tutorial.Person.PhoneNumber file "addressbook.proto" {
proto.message @tutorial.Person.PhoneNumber file "addressbook.proto" {
  proto.field "number" = 1 : string implicit utf8
}

// CHECK: proto.message @tutorial.Person.G file "addressbook.proto" {
// CHECK-NEXT: }
proto.message @tutorial.Person.G file "addressbook.proto" {
}

// CHECK-LABEL: proto.enum @tutorial.Kind file "addressbook.proto" closed allow_alias {
// CHECK-NEXT: proto.enum_value "A" = 1
// CHECK-NEXT: proto.enum_value "B" = 2
// CHECK-NEXT: proto.enum_value "B2" = 2
proto.enum @tutorial.Kind file "addressbook.proto" closed allow_alias {
  proto.enum_value "A" = 1
  proto.enum_value "B" = 2
  proto.enum_value "B2" = 2
}

// CHECK-LABEL: proto.extension @tutorial.Person.G.note extends @tutorial.Person.PhoneNumber file "addressbook.proto" {
// CHECK-NEXT: proto.field "note" = 100 : string repeated
// CHECK-NEXT: }
proto.extension @tutorial.Person.G.note extends @tutorial.Person.PhoneNumber file "addressbook.proto" {
  proto.field "note" = 100 : string repeated
}

// CHECK-LABEL: proto.extension @tutorial.item extends @tutorial.Person.G file "addressbook.proto" message_set {
// CHECK-NEXT: proto.field "item" = 7 : message<@tutorial.Person.G> optional
// CHECK-NEXT: }
proto.extension @tutorial.item extends @tutorial.Person.G file "addressbook.proto" message_set {
  proto.field "item" = 7 : message<@tutorial.Person.G> optional
}

// CHECK-LABEL: proto.extension @tutorial.kind extends @tutorial.Person.G file "addressbook.proto" {
// CHECK-NEXT: proto.field "kind" = 8 : enum<@tutorial.Kind> optional closed default 2 : i32
// CHECK-NEXT: }
proto.extension @tutorial.kind extends @tutorial.Person.G file "addressbook.proto" {
  proto.field "kind" = 8 : enum<@tutorial.Kind> optional closed default 2 : i32
}
