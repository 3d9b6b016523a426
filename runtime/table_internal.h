/* What the table-driven codec (table_encode.c, table_decode.c) reads from a
 * message's description (pbc/desc.h) and from the structs it describes.
 * Not a user API. */
#ifndef PBC_TABLE_INTERNAL_H
#define PBC_TABLE_INTERNAL_H

#include <assert.h>
#include <string.h>

#include "pbc_rt.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static inline const pbc_message_desc *
pbc_tbl_link_message(const pbc_message_desc *d, const pbc_field_desc *f) {
  return (const pbc_message_desc *)d->links[f->link];
}

static inline bool pbc_tbl_is_message(const pbc_field_desc *f) {
  return f->type == PBC_TYPE_MESSAGE || f->type == PBC_TYPE_GROUP;
}

static inline bool pbc_tbl_is_view(const pbc_field_desc *f) {
  return f->type == PBC_TYPE_STRING || f->type == PBC_TYPE_BYTES;
}

/* How the codec handles a value of each type: its handler and the wire
 * type it is written with. */
enum {
  PBC_TBL_VARINT,   /* stored as its low `bytes` bytes */
  PBC_TBL_ENUM,     /* a varint, 4 bytes; a closed enum checks its values */
  PBC_TBL_ZIGZAG32,
  PBC_TBL_ZIGZAG64,
  PBC_TBL_BOOL,
  PBC_TBL_FIXED32,
  PBC_TBL_FIXED64,
  PBC_TBL_VIEW,     /* string or bytes */
  PBC_TBL_MESSAGE,
  PBC_TBL_GROUP
};

/* What the codec needs of a field's type, in one load instead of a switch
 * per value. */
typedef struct pbc_tbl_type {
  uint8_t handler; /* PBC_TBL_* */
  uint8_t wire;    /* pbc_wire_type of a value (a packed run: LEN) */
  uint8_t bytes;   /* a scalar's bytes in the struct (else 0) */
} pbc_tbl_type;

/* field_types.def's representations, for the table below. */
enum {
  PBC_TBL_REPR_SIGNED, PBC_TBL_REPR_UNSIGNED, PBC_TBL_REPR_ZIGZAG,
  PBC_TBL_REPR_BOOL, PBC_TBL_REPR_FLOAT, PBC_TBL_REPR_VIEW,
  PBC_TBL_REPR_MESSAGE
};

/* A type's handler, from its field_types.def row (a constant expression:
 * table_decode.c builds its own table from the rows too). */
#define PBC_TBL_HANDLER(number, wire, repr, size)                              \
  ((wire) == PBC_WIRE_FIXED64          ? PBC_TBL_FIXED64                       \
   : (wire) == PBC_WIRE_FIXED32        ? PBC_TBL_FIXED32                       \
   : (wire) == PBC_WIRE_START_GROUP    ? PBC_TBL_GROUP                         \
   : (repr) == PBC_TBL_REPR_MESSAGE    ? PBC_TBL_MESSAGE                       \
   : (repr) == PBC_TBL_REPR_VIEW       ? PBC_TBL_VIEW                          \
   : (repr) == PBC_TBL_REPR_BOOL       ? PBC_TBL_BOOL                          \
   : (repr) == PBC_TBL_REPR_ZIGZAG     ? ((size) == 4 ? PBC_TBL_ZIGZAG32       \
                                                      : PBC_TBL_ZIGZAG64)      \
   : (number) == PBC_TYPE_ENUM         ? PBC_TBL_ENUM                          \
                                       : PBC_TBL_VARINT)

/* By pbc_field_type (type 0 does not occur): runtime/field_types.def's
 * rows, the ones the compiler reads. */
static const pbc_tbl_type pbc_tbl_types[19] = {
#define PBC_FIELD_TYPE(Name, name, number, wire, repr, ctype, size)           \
  [number] = {PBC_TBL_HANDLER(number, wire, PBC_TBL_REPR_##repr, size), wire, \
              PBC_TBL_REPR_##repr == PBC_TBL_REPR_VIEW ||                      \
                      PBC_TBL_REPR_##repr == PBC_TBL_REPR_MESSAGE              \
                  ? 0                                                          \
                  : size},
#include "field_types.def"
};

static inline const pbc_tbl_type *pbc_tbl_type_of(const pbc_field_desc *f) {
  assert(f->type >= PBC_TYPE_DOUBLE && f->type <= PBC_TYPE_SINT64);
  return &pbc_tbl_types[f->type];
}

/* The wire type a field's values are written with (a packed run: LEN). */
static inline pbc_wire_type pbc_tbl_wire_type(const pbc_field_desc *f) {
  return (pbc_wire_type)pbc_tbl_type_of(f)->wire;
}

/* Bytes of one value or element in the struct: pbc_field_value_bytes
 * without its switch. */
static inline size_t pbc_tbl_value_bytes(const pbc_message_desc *d,
                                         const pbc_field_desc *f) {
  const pbc_tbl_type *t = pbc_tbl_type_of(f);
  if (t->bytes) return t->bytes;
  if (t->handler == PBC_TBL_VIEW) return PBC_VIEW_BYTES;
  return pbc_tbl_link_message(d, f)->size;
}

/* A tag as pbc_message_desc.tags holds it: the varint of number << 3 | wt
 * in the word's last n bytes, n in its first. */
static inline uint64_t pbc_tbl_tag_word(uint32_t number, pbc_wire_type wt) {
  uint64_t t = pbc_make_tag(number, wt), bytes = 0;
  unsigned n = 0;
  for (; t >= 0x80; t >>= 7) bytes |= (uint64_t)((t & 0x7f) | 0x80) << (8 * n++);
  bytes |= t << (8 * n++);
  return bytes << (8 * (8 - n)) | n;
}

/* The wire type a field's tag has: its values' (pbc_tbl_wire_type), or LEN
 * for a packed run. */
static inline pbc_wire_type pbc_tbl_written_wire(const pbc_field_desc *f) {
  return f->flags & PBC_FIELD_PACKED ? PBC_WIRE_LEN : pbc_tbl_wire_type(f);
}

/* Unaligned loads and stores of struct members (the struct is aligned, but
 * arrays of views and elements are reached through byte offsets). */
static inline uint32_t pbc_tbl_load32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
static inline uint64_t pbc_tbl_load64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}
static inline uint8_t *pbc_tbl_load_ptr(const uint8_t *p) {
  uint8_t *v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline void pbc_tbl_store_ptr(uint8_t *p, const void *v) {
  memcpy(p, &v, sizeof v);
}
static inline pbc_bytes pbc_tbl_load_view(const uint8_t *p) {
  pbc_bytes v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline void pbc_tbl_store_view(uint8_t *p, const uint8_t *data,
                                      size_t size) {
  pbc_bytes v = {data, size};
  memcpy(p, &v, sizeof v);
}

/* The field numbered `number`, or NULL: one probe of the lookup table,
 * else (two numbers sharing its entry, the lower holding it) a binary
 * search; fields are sorted by number. */
static inline const pbc_field_desc *pbc_tbl_find_field(const pbc_message_desc *d,
                                                       uint32_t number) {
  uint32_t i = d->lookup[number & d->lookup_mask];
  /* An empty entry: no field has a number of that entry. */
  if (i == 0) return NULL;
  if (d->fields[i - 1].number == number) return &d->fields[i - 1];
  uint32_t lo = 0, hi = d->field_count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    uint32_t n = d->fields[mid].number;
    if (n == number) return &d->fields[mid];
    if (n < number) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

/* The first of an enum's values numbered `v` or more: values are sorted
 * by number, aliases in declaration order, so when it has v's number it
 * is the value libprotobuf names v by. */
static inline const pbc_enum_value *pbc_tbl_enum_lower_bound(const pbc_enum_info *e,
                                                             int32_t v) {
  uint32_t lo = 0, hi = e->value_count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (e->values[mid].number < v) lo = mid + 1;
    else hi = mid;
  }
  return &e->values[lo];
}

/* Whether an enum declares `v`. */
static inline bool pbc_tbl_enum_declares(const pbc_enum_info *e, int32_t v) {
  const pbc_enum_value *x = pbc_tbl_enum_lower_bound(e, v);
  return x < e->values + e->value_count && x->number == v;
}

/* A PBC_FIELD_BIT field's presence bit in `_presence[]` at the struct's
 * start. */
static inline bool pbc_tbl_has_bit(const pbc_field_desc *f, const uint8_t *m) {
  return (pbc_tbl_load32(m + f->presence / 32 * 4) >> (f->presence % 32)) & 1;
}

/* Sets presence bit `bit` of `_presence[]`. */
static inline void pbc_tbl_set_bit(uint8_t *m, uint32_t bit) {
  uint8_t *word = m + bit / 32 * 4;
  uint32_t bits = pbc_tbl_load32(word) | (UINT32_C(1) << (bit % 32));
  memcpy(word, &bits, 4);
}

/* A scalar member or element of `n` bytes (its type's `bytes`) stored: the
 * low bytes of v (a bool's 0 or 1). */
static inline void pbc_tbl_store_value(uint8_t *at, size_t n, uint64_t v) {
  if (n == 1) *at = (uint8_t)v;
  else if (n == 4) { uint32_t w = (uint32_t)v; memcpy(at, &w, 4); }
  else memcpy(at, &v, 8);
}

/* A singular field's value stored: its presence bit set, or its oneof
 * made to hold it. */
static inline void pbc_tbl_mark_present(const pbc_message_desc *d,
                                        const pbc_field_desc *f, uint8_t *m) {
  if (f->kind == PBC_FIELD_BIT) {
    pbc_tbl_set_bit(m, f->presence);
  } else if (f->kind == PBC_FIELD_ONEOF) {
    memcpy(m + d->oneofs[f->presence].case_offset, &f->number, 4);
  }
}

/* Whether an IMPLICIT field is set (written, printed): not zero (floats by
 * their bits, so -0.0 is set), not empty. Through zero_test, not the type:
 * the encoder's proto3 walks test every field this way. */
static inline bool pbc_tbl_implicit_set(const pbc_field_desc *f,
                                        const uint8_t *at) {
  assert(f->kind == PBC_FIELD_IMPLICIT);
  switch (f->zero_test) {
  case PBC_ZERO_TEST_8: return *at != 0;
  case PBC_ZERO_TEST_32: return pbc_tbl_load32(at) != 0;
  case PBC_ZERO_TEST_64: return pbc_tbl_load64(at) != 0;
  default:
    assert(f->zero_test == PBC_ZERO_TEST_VIEW);
    return pbc_tbl_load_view(at).size != 0;
  }
}

/* The present fields of a message with by_byte (pbc/desc.h), as bits by
 * index: field i is present when bit i is set. Each non-zero byte of the
 * struct sets bit by_byte[k] (its field's index plus one; 0, a byte no
 * presence is read from, sets bit 0, shifted out at the end). Bytes whose
 * entry is 0 are left out before that, where the smaller of the byte and
 * its entry is zero (one compare for 16 bytes), so that a view's data
 * pointer, the unknown fields and padding cost no iteration. A proto3
 * message costs a few instructions for every 16 bytes and every non-zero
 * byte of a present field, where a walk testing each field took about 12
 * a field, absent or not (most are). */
static inline uint64_t pbc_tbl_present_fields(const pbc_message_desc *d,
                                              const uint8_t *m) {
  const uint8_t *by_byte = d->by_byte;
  uint32_t size = d->size;
  assert(by_byte && size % 8 == 0 && d->field_count < 64);
  uint64_t present = 0; /* bit i + 1: field i */
  uint32_t at = 0;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  for (; at + 16 <= size; at += 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(m + at));
    __m128i k = _mm_loadu_si128((const __m128i *)(by_byte + at));
    uint32_t set = (uint32_t)_mm_movemask_epi8(
                       _mm_cmpeq_epi8(_mm_min_epu8(v, k), zero)) ^ 0xffffu;
    for (; set; set &= set - 1)
      present |= UINT64_C(1) << by_byte[at + (uint32_t)__builtin_ctz(set)];
  }
#endif
  /* Without SSE2, and the last 8 bytes: a word at a time. */
  for (; at < size; at += 8) {
    uint64_t word;
    memcpy(&word, m + at, 8);
    if (word == 0) continue;
    for (uint32_t b = at; b < at + 8; b++)
      if (m[b] != 0) present |= UINT64_C(1) << by_byte[b];
  }
  return present >> 1; /* by_byte's zeros set bit 0, no field's */
}

/* Whether a singular field other than a BIT one is set (the kinds of
 * pbc/desc.h): the encoder writes it, the text printer prints it. */
static inline bool pbc_tbl_is_set_other(const pbc_message_desc *d,
                                        const pbc_field_desc *f,
                                        const uint8_t *m) {
  const uint8_t *at = m + f->offset;
  switch (f->kind) {
  case PBC_FIELD_ONEOF:
    return pbc_tbl_load32(m + d->oneofs[f->presence].case_offset) == f->number &&
           (!pbc_tbl_is_message(f) || pbc_tbl_load_ptr(at) != NULL);
  case PBC_FIELD_POINTER:
    return pbc_tbl_load_ptr(at) != NULL;
  case PBC_FIELD_ALWAYS:
    return true;
  default:
    assert(f->kind == PBC_FIELD_IMPLICIT);
    return pbc_tbl_implicit_set(f, at);
  }
}

/* Whether a singular field is set. Presence bits first and inline: most
 * fields of a proto2 message are absent, and a clear bit is all it takes
 * to pass one. */
static inline bool pbc_tbl_is_set(const pbc_message_desc *d,
                                  const pbc_field_desc *f, const uint8_t *m) {
  if (f->kind == PBC_FIELD_BIT) return pbc_tbl_has_bit(f, m);
  return pbc_tbl_is_set_other(d, f, m);
}

/* Whether a message is google.protobuf.Any as the text format and JSON
 * expand it (libprotobuf's GetAnyFieldDescriptors): that name, a singular
 * string type_url numbered 1 and a singular bytes value numbered 2, neither
 * in a oneof. */
static inline bool pbc_tbl_is_any(const pbc_message_desc *d) {
  if (strcmp(d->strings, "google.protobuf.Any") != 0 || d->field_count < 2)
    return false;
  const pbc_field_desc *url = &d->fields[0], *value = &d->fields[1];
  return url->number == 1 && url->type == PBC_TYPE_STRING &&
         (url->kind == PBC_FIELD_IMPLICIT || url->kind == PBC_FIELD_BIT) &&
         value->number == 2 && value->type == PBC_TYPE_BYTES &&
         (value->kind == PBC_FIELD_IMPLICIT || value->kind == PBC_FIELD_BIT);
}

/* Whether an Any's type URL up to its last '/' (`prefix_len` bytes, the
 * '/' included) is a prefix libprotobuf's default finder resolves. */
static inline bool pbc_tbl_any_prefix_known(const char *url,
                                            size_t prefix_len) {
  return prefix_len == 20 && (memcmp(url, "type.googleapis.com/", 20) == 0 ||
                              memcmp(url, "type.googleprod.com/", 20) == 0);
}

/* An Any's (pbc_tbl_is_any) type URL and value, empty when unset, and the
 * message its URL names after the last '/', found by `find` with
 * `find_ctx` (pbc_find_message when NULL): NULL without a '/' or a name
 * after it (libprotobuf's ParseAnyTypeUrl), or when no message with a
 * description has that name. *prefix_len: the URL's bytes up to and
 * including its last '/'. (runtime/reflect.c) */
const pbc_message_info *pbc_tbl_any_type(const pbc_message_desc *d,
                                         const uint8_t *m,
                                         pbc_message_finder find,
                                         const void *find_ctx, pbc_bytes *url,
                                         pbc_bytes *value, size_t *prefix_len);

/* A varint of at most 10 bytes at *p, which it advances; false when the
 * input ends first or the 10th byte has its high bit set. Generic code's
 * reader of raw unknown fields (the codecs have their own, faster ones). */
static inline bool pbc_tbl_read_varint(const uint8_t **p, const uint8_t *end,
                                       uint64_t *v) {
  uint64_t x = 0;
  for (unsigned i = 0; i < PBC_MAX_VARINT_BYTES && *p < end; i++) {
    uint8_t b = *(*p)++;
    x |= (uint64_t)(b & 0x7f) << (7 * i);
    if (b < 0x80) {
      *v = x;
      return true;
    }
  }
  return false;
}

/* Map entries by key (runtime/reflect.c): the order of two entries' keys
 * (field 1 of the entry), as libprotobuf's MapEntryMessageComparator sorts
 * them (numbers by value, strings as bytes), and a merge sort of `n` entry
 * pointers by it (`tmp` has room for n more). */
int pbc_tbl_compare_keys(const pbc_field_desc *key, const uint8_t *a,
                         const uint8_t *b);
void pbc_tbl_sort_entries(const pbc_field_desc *key, const uint8_t **e,
                          const uint8_t **tmp, size_t n);

#endif /* PBC_TABLE_INTERNAL_H */
