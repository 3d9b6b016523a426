// Description.cpp: the description of every message (pbc/desc.h), byte by
// byte. Each array is abi.def's records, little-endian, one after another in
// one blob (fields by number, their names, the oneofs, the defaults, the
// tags, the size walk's masks and records), then the string pool; the
// pbc_message_desc points into it.
// RUN: pbc-opt %s -proto-layout -proto-to-wire | FileCheck %s

proto.file "d.proto" package "" proto2 imports []
proto.enum @E file "d.proto" closed allow_alias {
  proto.enum_value "ONE" = 1
  proto.enum_value "NEG" = -2
  proto.enum_value "UNO" = 1
}
proto.message @M file "d.proto" {
  proto.field "count" = 1 : int32 optional default -3 : i32
  proto.field "text" = 2 : bytes required default "a\00b"
  proto.field "e" = 3 : enum<@E> optional closed default 1 : i32
  proto.field "xs" = 5 : sint64 repeated packed
  proto.oneof "pick" {
    proto.field "ratio" = 6 : float optional default 5.000000e-01 : f32
    proto.field "sub" = 7 : message<@M> optional
  }
  proto.field "by_key" = 8 : message<@M.ByKeyEntry> repeated json "keyed"
}
proto.message @M.ByKeyEntry file "d.proto" map_entry {
  proto.field "key" = 1 : string optional
  proto.field "value" = 2 : message<@M> optional
}

// An enum: its values by number, aliases in declaration order (ONE before
// UNO), each {number, name offset}; the pool starts with the full name.
// CHECK-LABEL: llvm.mlir.global internal constant @pbc__E_enum_data("
// CHECK-SAME: \FE\FF\FF\FF\02\00\00\00
// CHECK-SAME: \01\00\00\00\06\00\00\00
// CHECK-SAME: \01\00\00\00\0A\00\00\00
// CHECK-SAME: E\00NEG\00ONE\00UNO\00")
// CHECK-SAME: alignment = 8
// Public (weak_odr): other files' descriptions link to it.
// CHECK-NEXT: llvm.mlir.global weak_odr constant @pbc__E_enum() {{.*}} : !llvm.struct<(ptr, ptr, ptr, i32, i32)> {
// full_name, values, strings, value_count, flags (closed).
// CHECK: llvm.mlir.constant(3 : i32)
// CHECK-NEXT: llvm.mlir.constant(1 : i32)

// M's description links to M's and the entry's descriptions (declared at
// that first use, each moved after its arrays when defined).
// CHECK-LABEL: llvm.mlir.global internal constant @pbc__M_desc_data("
// Fields by number, 16 bytes each: number, offset, presence (bit or
// oneof), link, type, kind, flags, 0.
// count: offset 80, bit 0, int32 (5), BIT (1), DEFAULT (0x10).
// CHECK-SAME: \01\00\00\00P\00\00\00\00\00\00\00\05\01\10\00
// text: offset 8, bit 1, bytes (12), BIT, REQUIRED|DEFAULT.
// CHECK-SAME: \02\00\00\00\08\00\00\00\01\00\00\00\0C\01\18\00
// e: offset 84, bit 2, link 0 (E), enum (14), BIT, CLOSED_ENUM|DEFAULT.
// CHECK-SAME: \03\00\00\00T\00\00\00\02\00\00\00\0E\01\14\00
// xs: offset 24, sint64 (18), REPEATED (5), PACKED.
// CHECK-SAME: \05\00\00\00\18\00\00\00\00\00\00\00\12\05\01\00
// ratio and sub share the union at 40, both in oneof 0: float with a
// default; sub a message (11), link 1 (M).
// CHECK-SAME: \06\00\00\00(\00\00\00\00\00\00\00\02\02\10\00
// CHECK-SAME: \07\00\00\00(\00\00\00\00\00\01\00\0B\02\00\00
// by_key: a MAP (0x20) of link 2, the entry.
// CHECK-SAME: \08\00\00\000\00\00\00\00\00\02\00\0B\05 \00
// Names: {name, json_name} offsets; equal where the json_name is derived
// from a one-word name, `keyed` as declared for by_key.
// CHECK-SAME: \0A\00\00\00\0A\00\00\00\10\00\00\00\10\00\00\00\15\00\00\00\15\00\00\00\17\00\00\00\17\00\00\00\1A\00\00\00\1A\00\00\00 \00\00\00 \00\00\00$\00\00\00+\00\00\00
// The oneof: its case at 88, its name.
// CHECK-SAME: X\00\00\001\00\00\00
// Defaults, by field index: {field, size, value}: -3 as its 32 bits; the
// bytes "a\0b" at pool offset 54, 3 long; E's ONE; 0.5f's bits.
// CHECK-SAME: \00\00\00\00\00\00\00\00\FD\FF\FF\FF\00\00\00\00
// CHECK-SAME: \01\00\00\00\03\00\00\006\00\00\00\00\00\00\00
// CHECK-SAME: \02\00\00\00\00\00\00\00\01\00\00\00\00\00\00\00
// CHECK-SAME: \04\00\00\00\00\00\00\00\00\00\00?\00\00\00\00
// The tags, by field index: a word ending with the tag as written, its
// byte count first: count 0x08, text 0x12, e 0x18, xs a packed run (LEN,
// 0x2A), ratio FIXED32 (0x35), sub and by_key LEN (0x3A, 0x42).
// CHECK-SAME: \01\00\00\00\00\00\00\08\01\00\00\00\00\00\00\12\01\00\00\00\00\00\00\18
// CHECK-SAME: \01\00\00\00\00\00\00*\01\00\00\00\00\00\005\01\00\00\00\00\00\00:\01\00\00\00\00\00\00B
// The sizes, over the 3 presence bits: nine masks (FIXED none, INT32 count
// and e, VARINT64 none, VIEW text, RARE and its three none, SIZED all
// three), then a record a bit, offset << 4 | the tag's byte: count 80
// (0x501), text 8 (0x81), e 84 (0x541).
// CHECK-SAME: \00\00\00\00\05\00\00\00\00\00\00\00\02\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\07\00\00\00
// CHECK-SAME: \01\05\00\00\81\00\00\00A\05\00\00
// The lookup, 8 entries (numbers 1-3 and 5-8 share none): entry n & 7 is
// the index plus one of field n (8 in entry 0), entry 4 empty.
// CHECK-SAME: \07\00\01\00\02\00\03\00\00\00\04\00\05\00\06\00
// The checks: text (required), sub and by_key (M, whose text is required).
// CHECK-SAME: \01\00\05\00\06\00
// by_bit: bits 0-2 are count, text, e; the others: xs, ratio, sub, by_key.
// CHECK-SAME: \00\00\01\00\02\00
// CHECK-SAME: \03\00\04\00\05\00\06\00
// The pool: full name (where pbc_message_info.full_name points), file,
// names, and the default's bytes with their NUL.
// CHECK-SAME: M\00d.proto\00count\00text\00e\00xs\00ratio\00sub\00by_key\00keyed\00pick\00a\00b\00")
// Links in field order, each once.
// The prototype: 96 bytes, text's default a pointer into the pool (at 380
// + 54) with its size 3 after it, count's -3 at 80 and e's 1 at 84; ratio's
// default is left out (a oneof member).
// CHECK-NEXT: llvm.mlir.global internal constant @pbc__M_prototype() {{.*}} : !llvm.struct<packed (array<8 x i8>, ptr, array<80 x i8>)> {
// CHECK-NEXT: llvm.mlir.undef
// CHECK-NEXT: llvm.mlir.constant("\00\00\00\00\00\00\00\00")
// CHECK-NEXT: llvm.insertvalue
// CHECK-NEXT: llvm.mlir.addressof @pbc__M_desc_data
// CHECK-NEXT: llvm.getelementptr inbounds %{{.*}}[434]
// CHECK-NEXT: llvm.insertvalue
// CHECK-NEXT: llvm.mlir.constant("\03\00\00\00\00\00\00\00{{(\\00)+}}\FD\FF\FF\FF\01\00\00\00\00\00\00\00\00\00\00\00")
// CHECK-NEXT: llvm.insertvalue
// CHECK-NEXT: llvm.return
// CHECK-NEXT: }
// CHECK-NEXT: llvm.mlir.global internal constant @pbc__M_links() {{.*}} : !llvm.array<3 x ptr> {
// CHECK-NEXT: llvm.mlir.undef
// CHECK-NEXT: llvm.mlir.addressof @pbc__E_enum
// CHECK-NEXT: llvm.insertvalue
// CHECK-NEXT: llvm.mlir.addressof @pbc__M_desc
// CHECK-NEXT: llvm.insertvalue
// CHECK-NEXT: llvm.mlir.addressof @pbc__M_ByKeyEntry_desc
// The header: the arrays (7 fields of 16 bytes, then 7 names of 8, one
// oneof, four defaults, the pool at 380), the counts, size 96, unknown
// fields at 64, the file's name at 2, one presence word, fields 1 to 3
// dense, proto2, no flags, no edition; the lookup's mask 7 and 3 checks,
// the lookup at 344 and the checks at 360, the prototype, 3 bits and 4
// others at 366 and 372, no ranges or extensions, the tags at 240, no
// by_byte (proto2: presence bits), the sizes at 296.
// CHECK: llvm.mlir.global weak_odr constant @pbc__M_desc() {{.*}} : !llvm.struct<(ptr, ptr, ptr, ptr, ptr, ptr, i32, i32, i32, i32, i32, i32, i32, i16, i16, i8, i8, i16, i16, i16, ptr, ptr, ptr, i16, i16, i16, ptr, ptr, ptr, ptr, ptr, ptr, ptr)> {
// CHECK-NEXT: %[[F:.*]] = llvm.mlir.addressof @pbc__M_desc_data
// CHECK-NEXT: llvm.mlir.addressof @pbc__M_desc_data
// CHECK-NEXT: %[[N:.*]] = llvm.getelementptr inbounds %{{.*}}[112]
// CHECK-NEXT: llvm.mlir.addressof @pbc__M_desc_data
// CHECK-NEXT: %[[O:.*]] = llvm.getelementptr inbounds %{{.*}}[168]
// CHECK-NEXT: llvm.mlir.addressof @pbc__M_desc_data
// CHECK-NEXT: %[[D:.*]] = llvm.getelementptr inbounds %{{.*}}[176]
// CHECK-NEXT: %[[L:.*]] = llvm.mlir.addressof @pbc__M_links
// CHECK-NEXT: llvm.mlir.addressof @pbc__M_desc_data
// CHECK-NEXT: %[[S:.*]] = llvm.getelementptr inbounds %{{.*}}[380]
// CHECK-NEXT: llvm.mlir.constant(7 : i32)
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK-NEXT: llvm.mlir.constant(4 : i32)
// CHECK-NEXT: llvm.mlir.constant(3 : i32)
// CHECK-NEXT: llvm.mlir.constant(96 : i32)
// CHECK-NEXT: llvm.mlir.constant(64 : i32)
// CHECK-NEXT: llvm.mlir.constant(2 : i32)
// CHECK-NEXT: llvm.mlir.constant(1 : i16)
// CHECK-NEXT: llvm.mlir.constant(3 : i16)
// CHECK-NEXT: llvm.mlir.constant(2 : i8)
// CHECK-NEXT: llvm.mlir.constant(0 : i8)
// CHECK-NEXT: llvm.mlir.constant(0 : i16)
// CHECK-NEXT: llvm.mlir.constant(7 : i16)
// CHECK-NEXT: llvm.mlir.constant(3 : i16)
// CHECK-NEXT: llvm.mlir.addressof @pbc__M_desc_data
// CHECK-NEXT: llvm.getelementptr inbounds %{{.*}}[344]
// CHECK-NEXT: llvm.mlir.addressof @pbc__M_desc_data
// CHECK-NEXT: llvm.getelementptr inbounds %{{.*}}[360]
// CHECK-NEXT: llvm.mlir.addressof @pbc__M_prototype
// CHECK-NEXT: llvm.mlir.constant(3 : i16)
// CHECK-NEXT: llvm.mlir.constant(4 : i16)
// CHECK-NEXT: llvm.mlir.constant(0 : i16)
// CHECK-NEXT: llvm.mlir.addressof @pbc__M_desc_data
// CHECK-NEXT: llvm.getelementptr inbounds %{{.*}}[366]
// CHECK-NEXT: llvm.mlir.addressof @pbc__M_desc_data
// CHECK-NEXT: llvm.getelementptr inbounds %{{.*}}[372]
// CHECK-NEXT: llvm.mlir.zero
// CHECK-NEXT: llvm.mlir.zero
// CHECK-NEXT: llvm.mlir.addressof @pbc__M_desc_data
// CHECK-NEXT: llvm.getelementptr inbounds %{{.*}}[240]
// CHECK-NEXT: llvm.mlir.zero
// CHECK-NEXT: llvm.mlir.addressof @pbc__M_desc_data
// CHECK-NEXT: llvm.getelementptr inbounds %{{.*}}[296]
// CHECK-NEXT: %[[R0:.*]] = llvm.mlir.undef
// CHECK-NEXT: %[[R1:.*]] = llvm.insertvalue %[[F]], %[[R0]][0]
// CHECK-NEXT: %[[R2:.*]] = llvm.insertvalue %[[N]], %[[R1]][1]
// CHECK-NEXT: %[[R3:.*]] = llvm.insertvalue %[[O]], %[[R2]][2]
// CHECK-NEXT: %[[R4:.*]] = llvm.insertvalue %[[D]], %[[R3]][3]
// CHECK-NEXT: %[[R5:.*]] = llvm.insertvalue %[[L]], %[[R4]][4]
// CHECK-NEXT: llvm.insertvalue %[[S]], %[[R5]][5]

// The map entry: no unknown fields (0xffffffff), the MAP_ENTRY flag; its
// scalar key is ALWAYS written (4), its message value a POINTER (3).
// CHECK-LABEL: llvm.mlir.global internal constant @pbc__M_ByKeyEntry_desc_data("
// CHECK-SAME: \01\00\00\00\00\00\00\00\00\00\00\00\09\04\00\00
// CHECK-SAME: \02\00\00\00\10\00\00\00\00\00\00\00\0B\03\00\00
// CHECK: llvm.mlir.global weak_odr constant @pbc__M_ByKeyEntry_desc()
// CHECK: llvm.mlir.constant(-1 : i32)
// CHECK: llvm.mlir.constant(1 : i8)
// CHECK-NEXT: llvm.mlir.constant(0 : i16)

// Numbers that share lookup entries: 1, 9 and 17 share every entry of 4 or
// 8; of 16, 1 and 17 share entry 1, which the lower keeps (17 is found by
// binary search). No defaults: no prototype; nothing required: no checks.
proto.message @N file "d.proto" {
  proto.field "a" = 1 : int32 optional
  proto.field "b" = 9 : int32 optional
  proto.field "c" = 17 : int32 optional
}
// CHECK-LABEL: llvm.mlir.global internal constant @pbc__N_desc_data("
// The tags after the fields and names: c's is two bytes (17 << 3 | 0 is
// 0x88 0x01).
// CHECK-SAME: \01\00\00\00\00\00\00\08\01\00\00\00\00\00\00H\02\00\00\00\00\00\88\01
// The sizes: three int32 bits, records a, b, c at 24, 28, 32 with 1, 1 and
// 2 bytes of tag (0x181, 0x1C1, 0x202).
// CHECK-SAME: \00\00\00\00\07\00\00\00{{(\\00)+}}\07\00\00\00\81\01\00\00\C1\01\00\00\02\02\00\00
// The lookup: 16 entries, a in 1 and b in 9.
// CHECK-SAME: \00\00\01\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\00\00\00\00\00\00\00\00\00\00
// No checks; by_bit: a, b, c; no others.
// CHECK-SAME: \00\00\01\00\02\00N\00
// CHECK: llvm.mlir.global weak_odr constant @pbc__N_desc()
// CHECK: llvm.mlir.constant(15 : i16)
// CHECK-NEXT: llvm.mlir.constant(0 : i16)
// CHECK-NEXT: llvm.mlir.addressof @pbc__N_desc_data
// CHECK-NEXT: llvm.getelementptr
// CHECK-NEXT: %[[NULL:.*]] = llvm.mlir.zero
// CHECK-NEXT: llvm.mlir.zero
// CHECK-NEXT: llvm.mlir.constant(3 : i16)
// CHECK-NEXT: llvm.mlir.constant(0 : i16)
// CHECK-NEXT: llvm.mlir.constant(0 : i16)

// Extension ranges: [start, end) pairs of 32-bit numbers right after the
// records, ext_range_count 2 and ext_ranges pointing there (after the
// 16-byte field record, its 8-byte names record, its 8-byte tag and 40
// bytes of sizes: nine masks and a record).
proto.message @X file "d.proto" extensions [2, 11, 100, 536870912] {
  proto.field "a" = 1 : int32 optional
}
// CHECK-LABEL: llvm.mlir.global internal constant @pbc__X_desc_data("
// CHECK-SAME: \01\00\00\00\00\00\00\08\00\00\00\00\01\00\00\00{{(\\00)+}}\01\00\00\00\81\01\00\00\02\00\00\00\0B\00\00\00d\00\00\00\00\00\00
// CHECK: llvm.mlir.global weak_odr constant @pbc__X_desc()
// CHECK: llvm.mlir.constant(2 : i16)
// CHECK-NEXT: llvm.mlir.addressof @pbc__X_desc_data
// CHECK-NEXT: llvm.getelementptr
// CHECK-NEXT: llvm.mlir.zero
// CHECK-NEXT: llvm.mlir.addressof @pbc__X_desc_data
// CHECK-NEXT: llvm.getelementptr inbounds %{{.*}}[72]
// No extensions of its own (a compiled description's are linked).
// CHECK-NEXT: llvm.mlir.zero

// A lite message (LITE_RUNTIME): no names records, field_names NULL, the
// NO_NAMES flag (2); its oneof's name is "" (pool offset 13, after the
// full name and the file's).
proto.message @Lite file "d.proto" tier lite {
  proto.field "a" = 1 : int32 optional
  proto.oneof "pick" {
    proto.field "b" = 2 : string optional
  }
}
// CHECK-LABEL: llvm.mlir.global internal constant @pbc__Lite_desc_data("
// CHECK-SAME: \01\00\00\00(\00\00\00\00\00\00\00\05\01\00\00
// CHECK-SAME: \02\00\00\00\08\00\00\00\00\00\00\00\09\02\00\00
// The oneof right after the fields (its case at 44, its name ""), then the
// tags, the sizes (a's bit only: b's presence is its oneof's case), the
// lookup, by_bit, others and the pool.
// CHECK-SAME: ,\00\00\00\0D\00\00\00\01\00\00\00\00\00\00\08\01\00\00\00\00\00\00\12
// CHECK-SAME: \00\00\00\00\01\00\00\00{{(\\00)+}}\01\00\00\00\81\02\00\00
// CHECK-SAME: \02\00\01\00\00\00\01\00Lite\00d.proto\00\00")
// CHECK-NEXT: llvm.mlir.global weak_odr constant @pbc__Lite_desc()
// CHECK-NEXT: llvm.mlir.addressof @pbc__Lite_desc_data
// CHECK-NEXT: llvm.mlir.zero
// CHECK-NEXT: llvm.mlir.addressof @pbc__Lite_desc_data
// CHECK-NEXT: llvm.getelementptr inbounds %{{.*}}[32]
// The syntax, then the flags.
// CHECK: llvm.mlir.constant(2 : i8)
// CHECK-NEXT: llvm.mlir.constant(2 : i8)
