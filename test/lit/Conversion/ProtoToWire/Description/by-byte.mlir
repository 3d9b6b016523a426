// Description.cpp: by_byte, and the sizes that go with it, the header's
// last two pointers. A message whose
// presence is all in its members (proto3 implicit scalars, strings and
// bytes by their view's size, repeated fields by theirs, sub-message
// pointers) gets one entry per byte of its struct: the field's index plus
// one where its presence is read, 0 elsewhere (a view's data, the unknown
// fields, padding). Any other presence (a proto3 `optional`'s bit, a
// oneof's case, a map entry's always-written key) leaves it null, and so
// do fewer than 8 fields or more than 16 bytes of struct a field, where
// testing each field costs less than the scan. With by_byte the size walk's
// masks and records are over the fields (its implicit ones sized, the
// others in no mask); a message with presence bits has them over its bits;
// a message with neither has none.
// RUN: pbc-opt %s -split-input-file -proto-layout -proto-to-wire | FileCheck %s

proto.file "z.proto" package "" proto3 imports []
proto.message @Z file "z.proto" {
  proto.field "b" = 1 : bool implicit
  proto.field "i" = 2 : int32 implicit
  proto.field "l" = 3 : sint64 implicit
  proto.field "s" = 4 : string implicit utf8
  proto.field "r" = 5 : int32 repeated packed
  proto.field "m" = 6 : message<@Z> optional
  proto.field "c" = 7 : bool implicit
  proto.field "j" = 8 : int32 implicit
}

// The layout: l at 0, s at 8, r at 24, m at 40, the unknown fields at 48,
// i at 64, j at 68, b at 72, c at 73; 80 bytes. The sizes follow the tags
// at 256: masks over the fields by index, FIXED b and c (0x41), INT32 i
// and j (0x82), VIEW s (0x08), RARE and SINT64 l (0x04), SIZED all but r
// and m (0xCF); the records, offset << 4 | bytes: b 0x482 (its tag and
// its byte), i 0x401, l 0x001, s 0x081, none for r and m, c 0x492, j 0x441.
// The others end at byte 356, where by_byte starts: l (3) its 8 bytes, s
// (4) its size's, r (5) its size's, m (6) its pointer's, i (2) and j (8)
// their 4, b (1) and c (7) a byte each.
// CHECK-LABEL: llvm.mlir.global internal constant @pbc__Z_desc_data(
// CHECK-SAME: A\00\00\00\82\00\00\00\00\00\00\00\08\00\00\00\04\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\CF\00\00\00
// CHECK-SAME: \82\04\00\00\01\04\00\00\01\00\00\00\81\00\00\00\00\00\00\00\00\00\00\00\92\04\00\00A\04\00\00
// CHECK-SAME: \06\00\07\00\03\03\03\03\03\03\03\03\00\00\00\00\00\00\00\00\04\04\04\04\04\04\04\04\00\00\00\00\00\00\00\00\05\05\05\05\05\05\05\05\06\06\06\06\06\06\06\06\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\02\02\02\02\08\08\08\08\01\07\00\00\00\00\00\00Z\00z.proto\00
// CHECK-LABEL: llvm.mlir.global weak_odr constant @pbc__Z_desc()
// CHECK: %[[BY_BYTE:[0-9]+]] = llvm.getelementptr inbounds %{{[0-9]+}}[356]
// CHECK-NEXT: llvm.mlir.addressof @pbc__Z_desc_data
// CHECK-NEXT: %[[SIZES:[0-9]+]] = llvm.getelementptr inbounds %{{[0-9]+}}[256]
// CHECK-NEXT: llvm.mlir.undef
// CHECK: llvm.insertvalue %[[BY_BYTE]], %{{[0-9]+}}[31]
// CHECK-NEXT: llvm.insertvalue %[[SIZES]], %{{[0-9]+}}[32]

// -----

// Eight int32 fields, but one a proto3 `optional`, with a presence bit: no
// by_byte.
proto.file "o.proto" package "" proto3 imports []
proto.message @O file "o.proto" {
  proto.field "a" = 1 : int32 implicit
  proto.field "b" = 2 : int32 implicit
  proto.field "c" = 3 : int32 implicit
  proto.field "d" = 4 : int32 implicit
  proto.field "e" = 5 : int32 implicit
  proto.field "f" = 6 : int32 implicit
  proto.field "g" = 7 : int32 implicit
  proto.field "o" = 8 : int32 optional
}

// The last three members: the tags (at 192, after 8 fields and 8 names),
// by_byte null, and the sizes over o's bit (after the tags, at 256).
// CHECK-LABEL: llvm.mlir.global weak_odr constant @pbc__O_desc()
// CHECK: llvm.getelementptr inbounds %{{[0-9]+}}[192]
// CHECK-NEXT: %[[NONE:[0-9]+]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: llvm.mlir.addressof @pbc__O_desc_data
// CHECK-NEXT: llvm.getelementptr inbounds %{{[0-9]+}}[256]
// CHECK-NEXT: llvm.mlir.undef
// CHECK: llvm.insertvalue %[[NONE]], %{{[0-9]+}}[31]

// -----

// Eight fields, but one a oneof member, whose presence is its oneof's case:
// no by_byte.
proto.file "c.proto" package "" proto3 imports []
proto.message @C file "c.proto" {
  proto.field "a" = 1 : int32 implicit
  proto.field "b" = 2 : int32 implicit
  proto.field "c" = 3 : int32 implicit
  proto.field "d" = 4 : int32 implicit
  proto.field "e" = 5 : int32 implicit
  proto.field "f" = 6 : int32 implicit
  proto.field "g" = 7 : int32 implicit
  proto.oneof "pick" {
    proto.field "s" = 8 : string optional utf8
  }
}

// The tags at 200 (after 8 fields, 8 names and the oneof); by_byte null, and
// the sizes null too (no presence bits, no by_byte).
// CHECK-LABEL: llvm.mlir.global weak_odr constant @pbc__C_desc()
// CHECK: llvm.getelementptr inbounds %{{[0-9]+}}[200]
// CHECK-NEXT: %[[NONE:[0-9]+]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: %[[NO_SIZES:[0-9]+]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: llvm.mlir.undef
// CHECK: llvm.insertvalue %[[NONE]], %{{[0-9]+}}[31]
// CHECK-NEXT: llvm.insertvalue %[[NO_SIZES]], %{{[0-9]+}}[32]

// -----

// Two strings, 48 bytes: fewer than 8 fields, and 24 bytes a field (and no
// presence bits: no sizes either).
proto.file "e.proto" package "" proto3 imports []
proto.message @E file "e.proto" {
  proto.field "key" = 1 : string implicit utf8
  proto.field "value" = 2 : string implicit utf8
}

// CHECK-LABEL: llvm.mlir.global weak_odr constant @pbc__E_desc()
// CHECK: llvm.getelementptr inbounds %{{[0-9]+}}[48]
// CHECK-NEXT: %[[NONE:[0-9]+]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: %[[NO_SIZES:[0-9]+]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: llvm.mlir.undef
// CHECK: llvm.insertvalue %[[NONE]], %{{[0-9]+}}[31]
// CHECK-NEXT: llvm.insertvalue %[[NO_SIZES]], %{{[0-9]+}}[32]
