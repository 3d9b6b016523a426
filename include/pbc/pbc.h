/* pbc runtime: the types and functions that pbc-generated headers use.
 *
 * Plain C11, no dependencies beyond libc. Everything here is also linked into
 * every archive `pbc compile` writes, so a program needs nothing else. */
#ifndef PBC_PBC_H
#define PBC_PBC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pbc/desc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pbc_status {
  PBC_OK = 0,
  PBC_ERR_TRUNCATED = 1,         /* input ends inside a tag, value or group, or a length runs past it */
  PBC_ERR_MALFORMED_VARINT = 2,  /* more than 10 bytes, or a tag over 32 bits */
  PBC_ERR_BAD_WIRE_TYPE = 3,     /* wire type 6 or 7 */
  PBC_ERR_BAD_FIELD_NUMBER = 4,  /* field number 0 */
  PBC_ERR_BAD_LENGTH = 5,        /* length of 2 GiB or more or over 5 bytes, or packed run not a multiple of the element size */
  PBC_ERR_END_GROUP = 6,         /* end-group tag without its start, or with another field number */
  PBC_ERR_INVALID_UTF8 = 7,      /* proto3 string that is not UTF-8 */
  PBC_ERR_DEPTH_LIMIT = 8,       /* sub-messages or groups nested deeper than the limit */
  PBC_ERR_OUT_OF_MEMORY = 9,     /* the arena could not get memory from malloc */
  PBC_ERR_MISSING_REQUIRED = 10, /* a proto2 required field is absent */
  PBC_ERR_BUFFER_TOO_SMALL = 11, /* encode: the output buffer is smaller than encoded_size */
  PBC_ERR_TOO_LARGE = 12,        /* encode: the message is 2 GiB or more */
  PBC_ERR_ARENA_LIMIT = 13,      /* decode needs more arena memory than pbc_arena_set_max_bytes allows */
  PBC_ERR_NO_NAMES = 14,         /* text format: a message compiled as LITE_RUNTIME has no field names */
  PBC_ERR_TEXT_SYNTAX = 15,      /* text format: the text is not a message of the type (pbc_text_error says why) */
  PBC_ERR_BAD_SCHEMA = 16,       /* pbc_schema_load: not a FileDescriptorSet pbc can describe (pbc_schema_error says why) */
  PBC_ERR_JSON_VALUE = 17,       /* JSON: a value ProtoJSON cannot write or read (a Timestamp or Duration out of range, an Any of an unknown type, an integer with a fraction, ...) */
  PBC_ERR_JSON_SYNTAX = 18       /* JSON: the text is not JSON, or not a message of the type (pbc_json_error says why and where) */
} pbc_status;

/* A human-readable name for a status ("ok", "truncated input", ...). */
const char *pbc_status_str(pbc_status s);

/* Views: decoded strings, bytes and repeated fields point into the input
 * buffer or into the arena; messages a user builds point into user memory. */
typedef struct pbc_str {
  const char *data;
  size_t size;
} pbc_str;

typedef struct pbc_bytes {
  const uint8_t *data;
  size_t size;
} pbc_bytes;

/* Every view (pbc_str, pbc_bytes, PBC_REPEATED) has this layout, which the
 * generated code relies on. */
#define PBC_VIEW_BYTES 16
#define PBC_VIEW_DATA_OFFSET 0
#define PBC_VIEW_SIZE_OFFSET 8

/* Generated headers check their struct layout against the compiled code. */
#ifdef __cplusplus
#define PBC_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define PBC_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

#define PBC_REPEATED(T) \
  struct {              \
    T *data;            \
    size_t size;        \
  }

/* ---- Arena --------------------------------------------------------------
 * A bump allocator. All memory a decode needs comes from here, and is freed
 * at once by pbc_arena_reset/pbc_arena_destroy. */
typedef struct pbc_arena_block pbc_arena_block;

typedef struct pbc_arena {
  uint8_t *ptr;                /* next free byte in the current block */
  uint8_t *end;                /* end of the current block */
  pbc_arena_block *blocks;     /* heap blocks, newest first */
  void *initial_block;         /* caller's block, never freed */
  size_t initial_size;
  size_t allocated;            /* bytes taken from the heap so far */
  size_t max_bytes;            /* heap cap; SIZE_MAX means none */
} pbc_arena;

/* `initial_block` (may be NULL) is used first and never freed. */
void pbc_arena_init(pbc_arena *a, void *initial_block, size_t size);
/* Caps the heap memory the arena may take (the initial block not counted;
 * block headers counted). A decode that would need more fails with
 * PBC_ERR_ARENA_LIMIT before calling malloc. */
void pbc_arena_set_max_bytes(pbc_arena *a, size_t max_bytes);
/* 8-byte aligned, uninitialized; NULL when out of memory or over the cap. */
void *pbc_arena_alloc(pbc_arena *a, size_t size);
/* Frees all but the initial block; the arena is ready for reuse. */
void pbc_arena_reset(pbc_arena *a);
void pbc_arena_destroy(pbc_arena *a);

/* ---- Decode options ------------------------------------------------------ */
#define PBC_DEFAULT_MAX_DEPTH 100

typedef struct pbc_decode_options {
  uint32_t max_depth;          /* nesting limit; 0 means PBC_DEFAULT_MAX_DEPTH */
  bool allow_missing_required; /* skip the proto2 required-field check */
  /* Copy the input into the arena first, so that strings, bytes and unknown
   * fields point into arena memory and the input may be freed once decode
   * returns. One copy of the whole input: never slower per string than
   * copying each, and it costs at most `len` arena bytes. */
  bool copy_input;
} pbc_decode_options;

/* ---- Messages by name -----------------------------------------------------
 * Every message a pbc library defines is listed here, so generic tools drive
 * any message without knowing its C type. A library's messages are found
 * when its object for that .proto file is linked in: reference any of its
 * functions, or link the archive whole (-Wl,--whole-archive). */
typedef struct pbc_writer pbc_writer; /* pbc/writer.h */

typedef struct pbc_message_info {
  const char *full_name; /* "tutorial.Person" */
  size_t struct_size;
  void (*init)(void *m);
  pbc_status (*decode)(void *m, const uint8_t *buf, size_t len,
                       pbc_arena *arena);
  size_t (*encoded_size)(const void *m);
  pbc_status (*encode)(const void *m, uint8_t *buf, size_t cap,
                       size_t *written);
  pbc_status (*write)(const void *m, pbc_writer *w); /* T_write */
  bool (*is_initialized)(const void *m);
  const void *internal_decoder; /* for pbc_decode; not a user API */
  pbc_status (*encode_at_end)(const void *m, uint8_t *buf, size_t cap,
                              uint8_t **start, size_t *written);
  const pbc_message_desc *desc; /* its fields, oneofs, names: pbc/desc.h */
  const void *json_printer; /* for pbc_json_print; not a user API */
  const void *json_parser;  /* for pbc_json_parse; not a user API */
} pbc_message_info;

/* Bytes one element of a repeated field, or a singular scalar, string or
 * bytes value, takes in its struct: 8, 4 or 1 (bool) by its type, a view
 * PBC_VIEW_BYTES, a message element its description's size (a singular
 * message is a pointer). */
static inline size_t pbc_field_value_bytes(const pbc_message_desc *d,
                                           const pbc_field_desc *f) {
  if (f->type == PBC_TYPE_MESSAGE || f->type == PBC_TYPE_GROUP)
    return ((const pbc_message_desc *)d->links[f->link])->size;
  return pbc_type_value_bytes(f->type);
}

/* NULL when no linked library defines `full_name`. Each message T's record
 * is also declared in its header as `T_info`. */
const pbc_message_info *pbc_find_message(const char *full_name);

/* A message by full name from somewhere else than the linked ones (a
 * schema loaded at run time: pbc_schema_finder, pbc/schema.h), for the
 * text format and JSON, which resolve a google.protobuf.Any's type by
 * name. `ctx` is what the caller gave with it. */
typedef const pbc_message_info *(*pbc_message_finder)(const void *ctx,
                                                      const char *full_name);

/* Every linked message, for generic tools: i from 0 to pbc_message_count()-1. */
size_t pbc_message_count(void);
const pbc_message_info *pbc_message_at(size_t i);

/* T_decode with options (depth limit, required-field check); `options` may
 * be NULL for the defaults. */
pbc_status pbc_decode(const pbc_message_info *info, void *m,
                      const uint8_t *buf, size_t len, pbc_arena *arena,
                      const pbc_decode_options *options);
/* T_merge_decode with options: the input merged into the message m holds
 * (libprotobuf's MergeFromString; MergePartialFromCodedStream when the
 * options allow missing required fields), as if m's encoding came first
 * in the input: scalars and strings the input sets are overwritten (a proto3
 * field written as zero too), messages merge, repeated fields append, map
 * entries replace those of their keys, oneof members replace others, and
 * unknown fields append. The required-field check covers the whole result.
 *
 * m's sub-messages, arrays and unknown fields are first copied into
 * `arena` (m's string values are not: they stay where they are), so m may
 * hold anything a caller built, and nothing it pointed to is written. That
 * costs a copy of m's structure on each call: to merge many inputs, decode
 * their concatenation once (the same message, by the wire format's rules).
 * On failure m is valid but holds part of the input. */
pbc_status pbc_merge_decode(const pbc_message_info *info, void *m,
                            const uint8_t *buf, size_t len, pbc_arena *arena,
                            const pbc_decode_options *options);

/* ---- Any message by its info ---------------------------------------------
 * What T_init, T_is_initialized, T_encoded_size, T_encode and
 * T_encode_at_end do, for a message known by its info alone: its generated
 * function, or the table codec on info->desc for a message without one (a
 * message loaded at run time, pbc/schema.h, whose info has no function
 * pointers). pbc_decode above and pbc_message_write (writer.h) do the same
 * for T_decode and T_write. */

/* A new message of the type, initialized (T_init), in the arena: NULL when
 * the arena cannot give info->struct_size bytes. */
void *pbc_message_new(const pbc_message_info *info, pbc_arena *arena);
void pbc_message_init(const pbc_message_info *info, void *m);
bool pbc_message_is_initialized(const pbc_message_info *info, const void *m);
size_t pbc_message_encoded_size(const pbc_message_info *info, const void *m);
pbc_status pbc_message_encode(const pbc_message_info *info, const void *m,
                              uint8_t *buf, size_t cap, size_t *written);
pbc_status pbc_message_encode_at_end(const pbc_message_info *info,
                                     const void *m, uint8_t *buf, size_t cap,
                                     uint8_t **start, size_t *written);

/* ---- Generic operations --------------------------------------------------
 * libprotobuf's Clear, CopyFrom, MergeFrom and MessageDifferencer::Equals
 * for any message by its info (runtime/message_ops.c, through its
 * description). What copy and merge give the destination (strings, bytes,
 * arrays, sub-messages, unknown fields) is copied into `arena`: the
 * destination never points into the source. They fail only when the
 * arena does (PBC_ERR_OUT_OF_MEMORY, PBC_ERR_ARENA_LIMIT), leaving the
 * destination valid but partly merged. */

/* Nothing set: T_init. What the message pointed to stays where it was
 * (in an arena, until its reset). */
void pbc_message_clear(const pbc_message_info *info, void *m);
/* dst becomes a deep copy of src (CopyFrom): init, then merge. */
pbc_status pbc_message_copy(const pbc_message_info *info, void *dst,
                            const void *src, pbc_arena *arena);
/* MergeFrom: each field set in src overwrites dst's (scalars, strings,
 * bytes), is merged into it (messages; made when dst has none) or is
 * appended to it (repeated fields: a new array of both); a map takes src's
 * entries, replacing the entry of a key dst has (the value whole); a oneof
 * member set in src replaces dst's other member; src's unknown fields
 * follow dst's. src must not be dst or within dst's tree. */
pbc_status pbc_message_merge(const pbc_message_info *info, void *dst,
                             const void *src, pbc_arena *arena);

typedef struct pbc_equal_options {
  /* Where an Any's type is looked up; NULL: the linked messages
   * (pbc_find_message). */
  pbc_message_finder find_message;
  const void *find_message_ctx;
} pbc_equal_options;

/* MessageDifferencer::Equals with its defaults: the same fields set (a
 * field set to its default is not an unset one), equal values (floats by
 * ==: NaN equals nothing, -0.0 equals 0.0), repeated fields in the same
 * order, maps as maps (the same keys, equal values, any order), unknown
 * fields as the same fields once sorted by number and wire type (varints
 * by value, groups alike), and an Any whose type is found and whose values
 * both decode compared by those values. `options` may be NULL. */
bool pbc_message_equal(const pbc_message_info *info, const void *a,
                       const void *b, const pbc_equal_options *options);

/* ---- The table-driven codec ---------------------------------------------
 * Any message through its description (`T_info.desc`, pbc/desc.h) instead
 * of its generated code, none of which it calls: the same results as
 * T_init, pbc_decode (T_decode with options), pbc_merge_decode,
 * T_is_initialized, T_encoded_size, T_encode and T_encode_at_end (and
 * T_write: pbc_table_write, writer.h), byte for byte and status for
 * status. Generic
 * code that has only a message's info can use it; the compact tier's
 * messages are calls into it. It takes the description, not the info: a
 * description links to its sub-messages' descriptions, so the codec needs
 * nothing else, and generated code that calls it refers to no info record
 * (whose function pointers would tie every message's code into one cycle
 * for LLVM's call graph). */
void pbc_table_init(const pbc_message_desc *desc, void *m);
pbc_status pbc_table_decode(const pbc_message_desc *desc, void *m,
                            const uint8_t *buf, size_t len, pbc_arena *arena,
                            const pbc_decode_options *options);
pbc_status pbc_table_merge_decode(const pbc_message_desc *desc, void *m,
                                  const uint8_t *buf, size_t len,
                                  pbc_arena *arena,
                                  const pbc_decode_options *options);
bool pbc_table_is_initialized(const pbc_message_desc *desc, const void *m);
size_t pbc_table_encoded_size(const pbc_message_desc *desc, const void *m);
pbc_status pbc_table_encode(const pbc_message_desc *desc, const void *m,
                            uint8_t *buf, size_t cap, size_t *written);
pbc_status pbc_table_encode_at_end(const pbc_message_desc *desc,
                                   const void *m, uint8_t *buf, size_t cap,
                                   uint8_t **start, size_t *written);

/* ---- Extensions ------------------------------------------------------------
 * An extension's values live in the extendee's unknown fields
 * (runtime/extension.c): decoding leaves them there as they came, encoding
 * writes them back, and these calls read and rewrite them; the generated
 * header wraps each extension EXT in typed inline functions (EXT_has,
 * EXT_get, EXT_set, ..., docs/generated-api.md). What a value is, as
 * libprotobuf reads it: a singular scalar, string or bytes extension is
 * its last occurrence with the right wire type; a singular message is all
 * occurrences merged; a repeated one is every element, packed or not, in
 * order; a closed enum's undeclared values are not values (they stay
 * unknown fields). A message that keeps no unknown fields (a map entry)
 * has no extensions.
 *
 * `value` points to what the struct of a message with the extension as a
 * field would hold: the C value of a scalar or enum (8, 4 or 1 bytes by
 * type, as pbc_field_value_bytes), a pbc_bytes/pbc_str view for strings
 * and bytes, a `void *` to a message struct for a singular message, and a
 * PBC_REPEATED view of such elements (message elements in place, as
 * structs) for a repeated extension. */

/* The linked extension of that full name, or of that extendee numbered
 * `number` (a MessageSet item's type_id); NULL when no linked object
 * declares it. A library's extensions are listed when its object for the
 * declaring .proto file is linked in, as its messages are. The extendee is
 * a linked message's description (T_info.desc): a schema loaded or
 * compiled at run time (pbc/schema.h, pbc/jit.h) has none of these
 * extensions, even for a message of the same name. */
const pbc_extension_info *pbc_find_extension(const char *full_name);
const pbc_extension_info *pbc_find_extension_by_number(
    const pbc_message_desc *extendee, uint32_t number);
/* Every linked extension: i from 0 to pbc_extension_count()-1. */
size_t pbc_extension_count(void);
const pbc_extension_info *pbc_extension_at(size_t i);

/* Whether m holds a value of `e` (repeated: at least one element). */
bool pbc_extension_has(const pbc_extension_info *e, const void *m);
/* A repeated extension's number of elements (a singular's 0 or 1). */
size_t pbc_extension_size(const pbc_extension_info *e, const void *m);
/* Reads the value into *value. Absent: a scalar's default (zero unless
 * declared), a string's default view, a NULL message, an empty repeated
 * view. Strings and bytes are views into the unknown fields (no copy); a
 * message is decoded into a new struct in `arena` (its occurrences merged,
 * through the table codec), as are a repeated extension's elements.
 * Fails when the arena does, or when an occurrence does not decode (a
 * message's malformed bytes, a proto3 string's invalid UTF-8): the same
 * statuses as pbc_decode's. */
pbc_status pbc_extension_get(const pbc_extension_info *e, const void *m,
                             pbc_arena *arena, void *value);
/* Replaces every occurrence of `e` in m with *value's canonical encoding
 * (libprotobuf's: one record; a packed run for a packed extension, none
 * for an empty repeated one; a MessageSet item), placed before the first
 * unknown field of a higher number: a message whose extensions are all set
 * through these calls encodes them in libprotobuf's order. The new unknown
 * fields are in `arena`; nothing m pointed to is written. */
pbc_status pbc_extension_set(const pbc_extension_info *e, void *m,
                             const void *value, pbc_arena *arena);
/* A repeated extension: appends one element (*value as a singular's). */
pbc_status pbc_extension_add(const pbc_extension_info *e, void *m,
                             const void *value, pbc_arena *arena);
/* Removes every occurrence of `e` from m. */
pbc_status pbc_extension_clear(const pbc_extension_info *e, void *m,
                               pbc_arena *arena);

#ifdef __cplusplus
}
#endif

#include "pbc/writer.h" /* the scattered writer and the streaming API */

#endif /* PBC_PBC_H */
