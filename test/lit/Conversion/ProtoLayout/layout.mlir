// proto-layout: presence words at offset 0, then members by decreasing
// alignment (declaration order within one alignment), C padding rules; the
// unknown fields (pbc_bytes) are the last member of their alignment.
// RUN: pbc-opt %s -split-input-file -proto-layout | FileCheck %s

// CHECK-LABEL: proto.message @M
// CHECK-SAME: align = 8 : i64, presence_words = 1 : i64, size = 80 : i64, unknown_offset = 56 : i64
proto.message @M file "a.proto" {
  // CHECK: "flag" = 1 : bool optional {offset = 76 : i64, presence_bit = 0 : i32}
  proto.field "flag" = 1 : bool optional
  // CHECK: "count" = 2 : int32 implicit {offset = 72 : i64}
  proto.field "count" = 2 : int32 implicit
  // CHECK: "name" = 3 : string implicit {offset = 8 : i64}
  proto.field "name" = 3 : string implicit
  // CHECK: "big" = 4 : uint64 required {offset = 24 : i64, presence_bit = 1 : i32}
  proto.field "big" = 4 : uint64 required
  // Sub-messages use their pointer for presence: no bit.
  // CHECK: "sub" = 5 : message<@M> optional {offset = 32 : i64}
  proto.field "sub" = 5 : message<@M> optional
  // CHECK: "list" = 6 : float repeated {offset = 40 : i64}
  proto.field "list" = 6 : float repeated
}

// -----

// 33 presence bits need two words.
// CHECK-LABEL: proto.message @Wide
// CHECK-SAME: align = 8 : i64, presence_words = 2 : i64, size = 160 : i64, unknown_offset = 8 : i64
proto.message @Wide file "a.proto" {
  proto.field "f1" = 1 : int32 optional
  proto.field "f2" = 2 : int32 optional
  proto.field "f3" = 3 : int32 optional
  proto.field "f4" = 4 : int32 optional
  proto.field "f5" = 5 : int32 optional
  proto.field "f6" = 6 : int32 optional
  proto.field "f7" = 7 : int32 optional
  proto.field "f8" = 8 : int32 optional
  proto.field "f9" = 9 : int32 optional
  proto.field "f10" = 10 : int32 optional
  proto.field "f11" = 11 : int32 optional
  proto.field "f12" = 12 : int32 optional
  proto.field "f13" = 13 : int32 optional
  proto.field "f14" = 14 : int32 optional
  proto.field "f15" = 15 : int32 optional
  proto.field "f16" = 16 : int32 optional
  proto.field "f17" = 17 : int32 optional
  proto.field "f18" = 18 : int32 optional
  proto.field "f19" = 19 : int32 optional
  proto.field "f20" = 20 : int32 optional
  proto.field "f21" = 21 : int32 optional
  proto.field "f22" = 22 : int32 optional
  proto.field "f23" = 23 : int32 optional
  proto.field "f24" = 24 : int32 optional
  proto.field "f25" = 25 : int32 optional
  proto.field "f26" = 26 : int32 optional
  proto.field "f27" = 27 : int32 optional
  proto.field "f28" = 28 : int32 optional
  proto.field "f29" = 29 : int32 optional
  proto.field "f30" = 30 : int32 optional
  proto.field "f31" = 31 : int32 optional
  proto.field "f32" = 32 : int32 optional
  // CHECK: "f33" = 33 : int32 optional {offset = 152 : i64, presence_bit = 32 : i32}
  proto.field "f33" = 33 : int32 optional
  // CHECK: "f34" = 34 : int32 implicit {offset = 156 : i64}
  proto.field "f34" = 34 : int32 implicit
}

// -----

// An empty message still keeps unknown fields.
// CHECK-LABEL: proto.message @Empty
// CHECK-SAME: align = 8 : i64, presence_words = 0 : i64, size = 16 : i64, unknown_offset = 0 : i64
proto.message @Empty file "a.proto" {
}

// -----

// A oneof: one union (the largest member) and a 4-byte case, placed like
// any member of their alignment. Members have no presence bit.
// CHECK-LABEL: proto.message @O
// CHECK-SAME: align = 8 : i64, presence_words = 0 : i64, size = 48 : i64, unknown_offset = 24 : i64
proto.message @O file "a.proto" {
  // CHECK: proto.oneof "kind" attributes {case_offset = 40 : i64}
  proto.oneof "kind" {
    // CHECK-NEXT: "num" = 1 : int32 optional {offset = 0 : i64}
    proto.field "num" = 1 : int32 optional
    // CHECK-NEXT: "text" = 2 : string optional {offset = 0 : i64}
    proto.field "text" = 2 : string optional
  }
  // CHECK: "after" = 3 : int32 implicit {offset = 44 : i64}
  proto.field "after" = 3 : int32 implicit
  // CHECK: "big" = 4 : int64 implicit {offset = 16 : i64}
  proto.field "big" = 4 : int64 implicit
}

// -----

// Presence bits follow field numbers, not declaration order: the table
// encoder writes the set bits from the highest as the highest numbers.
// CHECK-LABEL: proto.message @Shuffled
proto.message @Shuffled file "a.proto" {
  // CHECK: "c" = 30 : int32 optional {offset = {{.*}}, presence_bit = 2 : i32}
  proto.field "c" = 30 : int32 optional
  // CHECK: "a" = 1 : int32 optional {offset = {{.*}}, presence_bit = 0 : i32}
  proto.field "a" = 1 : int32 optional
  // CHECK: "o" = 2 : int32 repeated {offset = {{.*}}}
  proto.field "o" = 2 : int32 repeated
  // CHECK: "b" = 7 : string optional {offset = {{.*}}, presence_bit = 1 : i32}
  proto.field "b" = 7 : string optional
}

// -----

// A map entry: no presence bits (both fields are always written), no
// unknown fields.
// CHECK-LABEL: proto.message @E
// CHECK-SAME: align = 8 : i64, presence_words = 0 : i64, size = 24 : i64}
proto.message @E file "a.proto" map_entry {
  // CHECK: "key" = 1 : string optional {offset = 0 : i64}
  proto.field "key" = 1 : string optional
  // CHECK: "value" = 2 : int32 optional {offset = 16 : i64}
  proto.field "value" = 2 : int32 optional
}

// -----

// A message laid out already keeps its layout: the driver lowers each file
// from a copy where other files' messages are declared without fields.
// CHECK-LABEL: proto.message @Declared
// CHECK-SAME: align = 8 : i64, presence_words = 1 : i64, size = 64 : i64, unknown_offset = 48 : i64} {
// CHECK-NEXT: {{^  }$}}
proto.message @Declared file "b.proto" attributes {align = 8 : i64, presence_words = 1 : i64, size = 64 : i64, unknown_offset = 48 : i64} {
}
