/* The description of a message: the one compact, constant record of a
 * message's schema that pbc emits next to its code (docs/description-format.md).
 * It is what generic code reads (reflection, text format, JSON) and the
 * program a table-driven codec runs, so it says everything the generated
 * codecs know about a field: its number, type, presence, offset in the C
 * struct, packedness, UTF-8 check, closed enum, sub-message or enum, default
 * and names.
 *
 * Every record is constant data written by the compiler; the layout of each
 * is a row of runtime/abi.def, which runtime/abi.c checks against the
 * declarations below. Strings are offsets into the message's (or enum's)
 * string pool, each NUL-terminated, so the arrays hold no pointers and need
 * no relocations; only the records at the top (pbc_message_desc,
 * pbc_enum_info) and the link arrays point anywhere.
 *
 * A message's description is reached from its pbc_message_info (`desc`).
 * Plain C11. */
#ifndef PBC_DESC_H
#define PBC_DESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pbc/wire_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A field's type: descriptor.proto's FieldDescriptorProto.Type numbers. */
typedef enum pbc_field_type {
  PBC_TYPE_DOUBLE = 1,
  PBC_TYPE_FLOAT = 2,
  PBC_TYPE_INT64 = 3,
  PBC_TYPE_UINT64 = 4,
  PBC_TYPE_INT32 = 5,
  PBC_TYPE_FIXED64 = 6,
  PBC_TYPE_FIXED32 = 7,
  PBC_TYPE_BOOL = 8,
  PBC_TYPE_STRING = 9,
  PBC_TYPE_GROUP = 10,
  PBC_TYPE_MESSAGE = 11,
  PBC_TYPE_BYTES = 12,
  PBC_TYPE_UINT32 = 13,
  PBC_TYPE_ENUM = 14,
  PBC_TYPE_SFIXED32 = 15,
  PBC_TYPE_SFIXED64 = 16,
  PBC_TYPE_SINT32 = 17,
  PBC_TYPE_SINT64 = 18
} pbc_field_type;

/* How a field is held and when it is written: the codecs' rule. */
typedef enum pbc_field_kind {
  /* Singular without presence (proto3): written when not zero (floats: when
   * their bits are not zero, so -0.0 is written) and not empty. */
  PBC_FIELD_IMPLICIT = 0,
  /* Singular with a presence bit: bit `presence` of `_presence[]` (word
   * presence / 32, bit presence % 32). */
  PBC_FIELD_BIT = 1,
  /* A oneof member: set when the uint32_t case of oneof `presence` holds
   * the field's number. A message member is a pointer in the union. */
  PBC_FIELD_ONEOF = 2,
  /* A singular message or group outside a oneof: a pointer, set when not
   * NULL. */
  PBC_FIELD_POINTER = 3,
  /* A map entry's scalar, string or bytes key or value: always written. */
  PBC_FIELD_ALWAYS = 4,
  /* A view {data, size} of elements (pbc.h's PBC_REPEATED); message
   * elements are structs of the sub-message's struct_size, in place. */
  PBC_FIELD_REPEATED = 5
} pbc_field_kind;

/* pbc_field_desc.flags */
enum {
  PBC_FIELD_PACKED = 1,      /* a repeated scalar written as one packed run */
  PBC_FIELD_UTF8 = 2,        /* decoding rejects invalid UTF-8 */
  PBC_FIELD_CLOSED_ENUM = 4, /* values the enum lacks go to unknown fields */
  PBC_FIELD_REQUIRED = 8,    /* proto2 `required` */
  PBC_FIELD_DEFAULT = 16,    /* has an entry in the message's defaults */
  PBC_FIELD_MAP = 32         /* a map: repeated entries of the linked message */
};

/* pbc_field_desc.zero_test: what an IMPLICIT field's member holds that is
 * zero exactly when the field is absent, so that a walk over a proto3
 * message (mostly absent fields) passes one with a load and a compare, not
 * through the type. Derived from kind and type; every other kind has NONE. */
enum {
  PBC_ZERO_TEST_NONE = 0,
  PBC_ZERO_TEST_8 = 1,   /* a bool: its byte */
  PBC_ZERO_TEST_32 = 4,  /* a 4-byte scalar's bits (-0.0f is set) */
  PBC_ZERO_TEST_64 = 8,  /* an 8-byte scalar's bits */
  PBC_ZERO_TEST_VIEW = 16 /* a string or bytes: its view's size */
};

/* Bytes a value of a scalar, string or bytes type takes in its struct: 8,
 * 4 or 1 (bool), a {data, size} view 16 (pbc.h's PBC_VIEW_BYTES). */
static inline uint8_t pbc_type_value_bytes(uint8_t type) {
  switch (type) {
  case PBC_TYPE_DOUBLE: case PBC_TYPE_INT64: case PBC_TYPE_UINT64:
  case PBC_TYPE_FIXED64: case PBC_TYPE_SFIXED64: case PBC_TYPE_SINT64:
    return 8;
  case PBC_TYPE_BOOL:
    return 1;
  case PBC_TYPE_STRING: case PBC_TYPE_BYTES:
    return 16;
  default:
    return 4;
  }
}

/* The zero_test of a field of this kind and type (its value's bytes when
 * IMPLICIT): the one rule the compiler's descriptions and the run-time
 * schemas follow. */
static inline uint8_t pbc_zero_test_of(uint8_t kind, uint8_t type) {
  if (kind != PBC_FIELD_IMPLICIT)
    return PBC_ZERO_TEST_NONE;
  return pbc_type_value_bytes(type);
}

/* One field, 16 bytes. A message's fields are sorted by number. */
typedef struct pbc_field_desc {
  uint32_t number;
  uint32_t offset;   /* of its member in the struct (oneof: the union's) */
  uint16_t presence; /* PBC_FIELD_BIT: the bit; PBC_FIELD_ONEOF: the oneof */
  uint16_t link;     /* message, group and enum fields: index in links */
  uint8_t type;      /* pbc_field_type */
  uint8_t kind;      /* pbc_field_kind */
  uint8_t flags;     /* PBC_FIELD_* */
  uint8_t zero_test; /* PBC_ZERO_TEST_* */
} pbc_field_desc;

/* The bytes of the struct a field's presence is read from, when it is one
 * of them being non-zero (returns their count, 0 for none, and sets *at to
 * the first): an IMPLICIT field's zero-test bytes (a string's or bytes'
 * view's size), a POINTER field's pointer, a REPEATED field's view's size.
 * A BIT, ONEOF or ALWAYS field's presence is read elsewhere or not at
 * all. */
static inline uint32_t pbc_presence_bytes(const pbc_field_desc *f,
                                          uint32_t *at) {
  bool view_size = f->kind == PBC_FIELD_REPEATED ||
                   f->zero_test == PBC_ZERO_TEST_VIEW;
  *at = f->offset + (view_size ? 8 : 0);
  if (view_size || f->kind == PBC_FIELD_POINTER) return 8;
  return f->zero_test; /* IMPLICIT: 1, 4 or 8; the other kinds 0 */
}

/* Whether a message's description has by_byte: its presence is all in its
 * fields' bytes (every field IMPLICIT, POINTER or REPEATED: no presence
 * bits, oneofs or map entry's always-written fields), it has 8 to 63
 * fields (a scan collects them in one 64-bit word, by index plus one) and
 * no more than 16 bytes of struct a field, whose size is a multiple of 8
 * (the scan reads words). The scan costs about what testing one field
 * does for every 16 bytes, and a call: it pays for messages of many small
 * fields (google_message1 proto3's: 41 fields in 272 bytes), not for a
 * few strings (a 2-string map-like entry took 25 instructions more). */
static inline bool pbc_has_by_byte(const pbc_field_desc *fields,
                                   uint32_t field_count, uint32_t size) {
  if (field_count < 8 || field_count > 63 || size > 16 * field_count ||
      size % 8 != 0)
    return false;
  for (uint32_t i = 0; i < field_count; i++) {
    uint32_t at;
    if (pbc_presence_bytes(&fields[i], &at) == 0) return false;
  }
  return true;
}

/* Fills a by_byte of `size` bytes (pbc_has_by_byte): each byte the index
 * plus one of the field whose presence is read from it, or 0. The one rule
 * the compiler's descriptions and the run-time schemas follow. */
static inline void pbc_fill_by_byte(const pbc_field_desc *fields,
                                    uint32_t field_count, uint32_t size,
                                    uint8_t *by_byte) {
  for (uint32_t k = 0; k < size; k++) by_byte[k] = 0;
  for (uint32_t i = 0; i < field_count; i++) {
    uint32_t at, n = pbc_presence_bytes(&fields[i], &at);
    for (uint32_t k = 0; k < n; k++) by_byte[at + k] = (uint8_t)(i + 1);
  }
}

/* pbc_message_desc.by_bit: a presence bit no field has. */
#define PBC_NO_FIELD 0xffffu

/* pbc_message_desc.sizes: how a size walk sums a message's present fields
 * without a case per field. It runs over slots: a message with presence
 * bits has one per bit (slot i is bit i, its field by_bit[i]), one with
 * by_byte one per field (slot i is fields[i]). For every 32 slots it holds
 * PBC_SIZE_MASKS masks, bit j of mask k set when slot 32w + j is sized by
 * rule k, and after all masks one record per slot: its field's offset << 4
 * and the bytes it always takes (the tag's, plus a fixed value's width). A
 * walk takes a word of set slots, ANDs it with each mask and loops over the
 * bits that remain, each rule a loop of its own: the fixed fields' bytes
 * come from their records alone, a varint's from its value, a string's from
 * its size. (Offsets fit in 28 bits: fewer than UINT16_MAX fields of at
 * most 16 bytes each.) */
enum {
  PBC_SIZE_FIXED,    /* bool, fixed32, sfixed32, float, fixed64, sfixed64,
                        double: the record's bytes */
  PBC_SIZE_INT32,    /* int32, enum: the sign-extended value's varint */
  PBC_SIZE_VARINT64, /* int64, uint64 */
  PBC_SIZE_VIEW,     /* string, bytes: the size's varint and the bytes */
  /* The three below, rarer: a walk tests this before their loops. */
  PBC_SIZE_RARE,
  PBC_SIZE_UINT32,   /* uint32 */
  PBC_SIZE_SINT32,   /* sint32: the zigzag's varint */
  PBC_SIZE_SINT64,   /* sint64 */
  /* Every slot of the masks above. A by_byte message's message and
   * repeated fields are in none: a walk takes them as it takes others. */
  PBC_SIZE_SIZED,
  PBC_SIZE_MASKS
};

/* The rule of a scalar, string or bytes type. */
static inline uint32_t pbc_size_rule(uint8_t type) {
  switch (type) {
  case PBC_TYPE_INT32: case PBC_TYPE_ENUM: return PBC_SIZE_INT32;
  case PBC_TYPE_UINT32: return PBC_SIZE_UINT32;
  case PBC_TYPE_INT64: case PBC_TYPE_UINT64: return PBC_SIZE_VARINT64;
  case PBC_TYPE_SINT32: return PBC_SIZE_SINT32;
  case PBC_TYPE_SINT64: return PBC_SIZE_SINT64;
  case PBC_TYPE_STRING: case PBC_TYPE_BYTES: return PBC_SIZE_VIEW;
  default: return PBC_SIZE_FIXED;
  }
}

/* A sizes array over `slots` slots: the words of its groups' masks, which
 * its records follow; its words in all. */
static inline uint32_t pbc_sizes_mask_words(uint32_t slots) {
  return (slots + 31) / 32 * PBC_SIZE_MASKS;
}
static inline uint32_t pbc_sizes_words(uint32_t slots) {
  return pbc_sizes_mask_words(slots) + slots;
}

/* Fills a sizes array (pbc_sizes_words(slots) words) whose slot i is field
 * slot_field[i] (by_bit: PBC_NO_FIELD, no field) or, slot_field NULL, field
 * i, where only IMPLICIT fields are sized (by_byte's slots). The one rule
 * the compiler's descriptions and the run-time schemas follow. */
static inline void pbc_fill_sizes(const pbc_field_desc *fields,
                                  const uint16_t *slot_field, uint32_t slots,
                                  uint32_t *sizes) {
  uint32_t *records = sizes + pbc_sizes_mask_words(slots);
  for (uint32_t k = 0; k < pbc_sizes_words(slots); k++) sizes[k] = 0;
  for (uint32_t i = 0; i < slots; i++) {
    uint32_t index = slot_field ? slot_field[i] : i;
    if (index == PBC_NO_FIELD) continue;
    const pbc_field_desc *f = &fields[index];
    if (!slot_field && f->kind != PBC_FIELD_IMPLICIT) continue;
    uint32_t rule = pbc_size_rule(f->type);
    uint32_t bytes = pbc_varint_size(pbc_make_tag(f->number, PBC_WIRE_VARINT));
    if (rule == PBC_SIZE_FIXED) bytes += pbc_type_value_bytes(f->type);
    uint32_t *masks = sizes + i / 32 * PBC_SIZE_MASKS;
    masks[rule] |= UINT32_C(1) << (i % 32);
    if (rule > PBC_SIZE_RARE) masks[PBC_SIZE_RARE] |= UINT32_C(1) << (i % 32);
    masks[PBC_SIZE_SIZED] |= UINT32_C(1) << (i % 32);
    records[i] = f->offset << 4 | bytes;
  }
}

/* A field's names: offsets into the message's string pool. */
typedef struct pbc_field_names {
  uint32_t name;      /* as declared: "phone_number" */
  uint32_t json_name; /* its json_name, "phoneNumber" unless declared */
} pbc_field_names;

typedef struct pbc_oneof_desc {
  uint32_t case_offset; /* of its uint32_t case: the member's number or 0 */
  uint32_t name;        /* offset into the string pool */
} pbc_oneof_desc;

/* A field's declared default (proto2), or a proto2 enum's first value when
 * it is not zero: what T_init stores. `value` holds the member's bytes
 * (little-endian, zero-extended: integers, enums and bools as stored,
 * floats and doubles as their bits); for strings and bytes it is the offset
 * of the bytes in the string pool and `size` their length. */
typedef struct pbc_default {
  uint32_t field; /* index in fields */
  uint32_t size;
  uint64_t value;
} pbc_default;

/* PBC_NO_UNKNOWN_FIELDS: a map entry keeps no unknown fields. */
#define PBC_NO_UNKNOWN_FIELDS 0xffffffffu

/* pbc_message_desc.flags */
enum {
  PBC_MESSAGE_MAP_ENTRY = 1,
  /* Compiled as LITE_RUNTIME: field_names is NULL and every oneof's name
   * is "" (the full name, file and enum value names stay). Text format and
   * JSON, which need field names, refuse such a message. */
  PBC_MESSAGE_NO_NAMES = 2
};

/* pbc_message_desc.syntax: libprotobuf's FileDescriptor::Syntax numbers. */
enum { PBC_SYNTAX_PROTO2 = 2, PBC_SYNTAX_PROTO3 = 3, PBC_SYNTAX_EDITIONS = 99 };

typedef struct pbc_message_desc {
  const pbc_field_desc *fields;       /* field_count, by ascending number */
  /* parallel to fields; NULL with PBC_MESSAGE_NO_NAMES */
  const pbc_field_names *field_names;
  const pbc_oneof_desc *oneofs;       /* in declaration order */
  const pbc_default *defaults;        /* by field index */
  /* The message and enum fields' targets: a `const pbc_message_desc *`
   * for a message, group or map field (a map's entry message), a
   * `const pbc_enum_info *` for an enum field. Descriptions, not info
   * records: they hold everything the table codec and reflection read, and
   * no function pointers (pbc_find_message(desc->strings) finds a
   * sub-message's info by its full name, the pool's first string). */
  const void *const *links;
  const char *strings; /* the string pool */
  uint32_t field_count;
  uint32_t oneof_count;
  uint32_t default_count;
  uint32_t link_count;
  uint32_t size;           /* of the struct: pbc_message_info.struct_size */
  uint32_t unknown_offset; /* of its pbc_bytes, or PBC_NO_UNKNOWN_FIELDS */
  uint32_t file;           /* the .proto file's name: an offset in strings */
  uint16_t presence_words; /* uint32_t words of _presence[], at offset 0 */
  /* fields[i].number == i + 1 for every i below it: field n of a message
   * numbered from 1 is fields[n - 1]. */
  uint16_t dense_below;
  uint8_t syntax;   /* PBC_SYNTAX_* of its file */
  uint8_t flags;    /* PBC_MESSAGE_* */
  /* An editions file's edition: descriptor.proto's Edition number (1000:
   * 2023, 1001: 2024); 0 for proto2 and proto3. */
  uint16_t edition;
  /* lookup has lookup_mask + 1 entries (a power of two). */
  uint16_t lookup_mask;
  uint16_t check_count;
  /* Field numbers to fields in one probe, for decoders: entry
   * `number & lookup_mask` is the index in fields plus one of the field
   * with that number, if the field has it (check its number), or 0. Where
   * two numbers share an entry the lower has it; the other is found by
   * binary search. */
  const uint16_t *lookup;
  /* What T_is_initialized checks, by ascending index in fields: the
   * required fields, and the message, group and map fields whose messages
   * may hold required fields (through any depth; a message of a file
   * compiled into another object may). None: the message is always
   * initialized. */
  const uint16_t *checks;
  /* The struct T_init makes, `size` bytes: zeros and the defaults (those
   * outside oneofs) in place; NULL when that is all zeros. */
  const void *prototype;
  /* The fields by presence: an encoder visits the fields whose presence
   * bit is set and the others, not every field. by_bit[i] is the index in
   * fields of the field with presence bit i (PBC_NO_FIELD for a bit no
   * field has), for bits 0 to bit_count - 1; others holds the indexes of
   * the other_count fields without a bit (PBC_FIELD_BIT kind is the one
   * with), ascending. */
  uint16_t bit_count;
  uint16_t other_count;
  /* ext_range_count extension ranges, [start, end) pairs of field numbers
   * as descriptor.proto's ExtensionRange has them, ascending and apart from
   * every field's number. The table codec writes the extensions the
   * unknown fields hold at their range's place among the fields, as
   * libprotobuf does (a specialized message with unknown fields is
   * written by it). */
  uint16_t ext_range_count;
  const uint16_t *by_bit;
  const uint16_t *others;
  const uint32_t *ext_ranges;
  /* The extensions of this message the description knows of itself, a
   * NULL-terminated list (or NULL): those its compilation declares (an
   * archive's object, those of the message's file; a schema compiled in
   * one object, pbc/jit.h, all) or a schema loaded at run time declares
   * (pbc_schema_load). The others are the linked ones (the pbc_exts
   * section). Encoders place the values of both. */
  const struct pbc_extension_info *const *extensions;
  /* Parallel to fields: each field's tag as the encoders store it, one
   * word that ends with it, so that a store of the word ending where the
   * tag ends writes it: the varint of number << 3 | wire type (LEN for a
   * packed run, START_GROUP for a group) in the word's last n bytes,
   * little-endian, and n (1 to 5) in its first byte. NULL when field_count
   * is 0. */
  const uint64_t *tags;
  /* `size` bytes, or NULL: when the message's presence is all in its
   * fields' bytes (pbc_has_by_byte: a proto3 message without oneofs or
   * `optional`, of 8 to 63 small fields), by_byte[k] is the index plus one of
   * the field whose presence is read from byte k of the struct
   * (pbc_presence_bytes), or 0. A field is then present exactly when one
   * of its bytes is not zero, and a byte is one to look at exactly when
   * the smaller of it and its by_byte entry is not zero: a walk finds the
   * present fields 16 bytes of the struct at a time, and passes the absent
   * ones (most of a proto3 message's) without looking at them one by
   * one. */
  const uint8_t *by_byte;
  /* The size walk's masks and records (PBC_SIZE_MASKS above) over the
   * bit_count presence bits, or with by_byte over the field_count fields;
   * NULL when the message has neither. */
  const uint32_t *sizes;
} pbc_message_desc;

/* One value of an enum: its number and name (an offset in the enum's
 * string pool). */
typedef struct pbc_enum_value {
  int32_t number;
  uint32_t name;
} pbc_enum_value;

/* pbc_enum_info.flags */
enum { PBC_ENUM_CLOSED = 1 };

typedef struct pbc_enum_info {
  const char *full_name;
  /* value_count values by ascending number; aliases (allow_alias) keep
   * their declaration order, so the first value of a number is the one
   * libprotobuf names it by. */
  const pbc_enum_value *values;
  const char *strings;
  uint32_t value_count;
  uint32_t flags; /* PBC_ENUM_* */
} pbc_enum_info;

/* pbc_extension_info.flags, beside PBC_FIELD_PACKED, PBC_FIELD_UTF8,
 * PBC_FIELD_CLOSED_ENUM and PBC_FIELD_DEFAULT, which mean what they mean
 * for a field. */
enum {
  PBC_EXTENSION_REPEATED = 64,
  /* An extension of a message_set_wire_format message (an optional
   * message): written as a MessageSet item, group 1 holding type_id = 2
   * (the number) and message = 3. */
  PBC_EXTENSION_MESSAGE_SET = 128
};

/* An extension: a field declared outside its message (`extend Base { ...
 * }`). Its values live in the extendee's unknown fields, where decoding
 * leaves them and the accessors (pbc.h's pbc_extension_*, the generated
 * EXT_has, EXT_get, ...) read and rewrite them; so an extension costs the
 * extendee nothing until used. The header declares each as `EXT_ext`;
 * pbc_find_extension finds the linked ones by name or number. */
typedef struct pbc_extension_info {
  const char *full_name; /* "pkg.Scope.ext": its scope's name, not Base's */
  const pbc_message_desc *extendee;
  /* A message or group extension's message description, an enum
   * extension's pbc_enum_info, else NULL. */
  const void *link;
  /* A string or bytes default: its default_size bytes (NUL-terminated);
   * else NULL. */
  const char *default_bytes;
  /* A scalar default (PBC_FIELD_DEFAULT): its bytes as pbc_default.value
   * holds them. */
  uint64_t default_value;
  uint32_t number;
  uint32_t default_size;
  uint8_t type;  /* pbc_field_type */
  uint8_t flags; /* PBC_FIELD_* and PBC_EXTENSION_* above */
  uint16_t reserved; /* zero */
} pbc_extension_info;

/* ---- Lookups ---------------------------------------------------------------
 * What generic code (text format, JSON, tools) asks of a description
 * besides walking its arrays (runtime/reflect.c). */

/* The message's full name ("tutorial.Person"): its string pool's first. */
static inline const char *pbc_message_full_name(const pbc_message_desc *d) {
  return d->strings;
}

/* The field numbered `number`, or NULL: one probe of the lookup table. */
const pbc_field_desc *pbc_field_by_number(const pbc_message_desc *d,
                                          uint32_t number);

/* The field whose name (`json` false) or json_name (`json` true) is the
 * `len` bytes at `name`, or NULL; always NULL for a message without names
 * (PBC_MESSAGE_NO_NAMES). */
const pbc_field_desc *pbc_field_by_name(const pbc_message_desc *d,
                                        const char *name, size_t len,
                                        bool json);

/* A field's name as declared, or its json_name; NULL without names. */
const char *pbc_field_name(const pbc_message_desc *d, const pbc_field_desc *f);
const char *pbc_field_json_name(const pbc_message_desc *d,
                                const pbc_field_desc *f);

/* The description of a message, group or map field's message (a map's
 * entry), or the enum of an enum field; NULL for other fields. */
const pbc_message_desc *pbc_field_message(const pbc_message_desc *d,
                                          const pbc_field_desc *f);
const pbc_enum_info *pbc_field_enum(const pbc_message_desc *d,
                                    const pbc_field_desc *f);

/* The name libprotobuf gives `number` (its first value with that number),
 * or NULL when the enum has none. */
const char *pbc_enum_value_name(const pbc_enum_info *e, int32_t number);

/* The number of the value named by the `len` bytes at `name`: true and
 * *number, or false. */
bool pbc_enum_value_by_name(const pbc_enum_info *e, const char *name,
                            size_t len, int32_t *number);

#ifdef __cplusplus
}
#endif

#endif /* PBC_DESC_H */
