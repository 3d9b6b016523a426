/* The table-driven decoder: any message, driven by its description
 * (pbc/desc.h) instead of code generated for it. The same result as the
 * generated pbc__T_dec, rule for rule (DecodeFields.cpp): values stored at
 * their offsets and marked present, strings and bytes as views of the
 * input, repeated fields grown in the arena (a packed run at once),
 * sub-messages allocated and initialized on first sight and merged into
 * after, a oneof member replacing another, closed enums' undeclared values
 * and fields it does not know (or of another wire type) kept raw as unknown
 * fields, map entries replacing an entry of the same key, the same errors
 * for the same input (the first one kept), the same depth limit.
 *
 * Checked against the generated decoder in every difftest and fuzzer run:
 * same status, and the struct it fills re-encodes to the same bytes. */
#include <assert.h>

#include "table_internal.h"

static bool bytes_left(const uint8_t *p, const uint8_t *end, size_t n) {
  return (size_t)(end - p) >= n;
}

static bool diverts_enum(const pbc_message_desc *d, const pbc_field_desc *f,
                         uint64_t v) {
  /* In a map entry the value stays: the map field moves the whole entry. */
  return (f->flags & PBC_FIELD_CLOSED_ENUM) &&
         !(d->flags & PBC_MESSAGE_MAP_ENTRY) &&
         !pbc_tbl_enum_declares((const pbc_enum_info *)d->links[f->link], (int32_t)v);
}

/* A varint as the member stores it (its type's `bytes`). */
static inline uint64_t stored_varint(const pbc_tbl_type *t, uint64_t v) {
  switch (t->handler) {
  case PBC_TBL_ZIGZAG32: {
    uint32_t u = (uint32_t)v;
    return (uint32_t)((u >> 1) ^ (0u - (u & 1)));
  }
  case PBC_TBL_ZIGZAG64:
    return (v >> 1) ^ (0 - (v & 1));
  case PBC_TBL_BOOL:
    return v != 0;
  default: /* 32-bit types keep the low half */
    return v;
  }
}

/* A varint, its one-byte form inline (most values, and every length
 * below 128). */
static inline const uint8_t *read_varint(pbc_decoder *d, const uint8_t *p,
                                         const uint8_t *end, uint64_t *v) {
  if (p < end && *p < 0x80) {
    *v = *p;
    return p + 1;
  }
  return pbc_rt_varint(d, p, end, v);
}

/* A length, then its bytes: the position after the length, or NULL
 * (pbc_rt_length's rules, its one-byte form inline). */
static inline const uint8_t *read_length(pbc_decoder *d, const uint8_t *p,
                                         const uint8_t *end, size_t *len) {
  uint64_t v;
  const uint8_t *next = read_varint(d, p, end, &v);
  if (next == NULL) return NULL;
  next = pbc_rt_length_fits(d, p, next, end, v);
  if (next != NULL) *len = (size_t)v;
  return next;
}

/* Room for `add` more elements at the end of repeated field f: where they
 * go; the field's size is left for the caller to set. */
static uint8_t *reserve(pbc_decoder *d, const pbc_message_desc *desc,
                        const pbc_field_desc *f, uint8_t *m, size_t add) {
  uint8_t *at = m + f->offset;
  pbc_bytes v = pbc_tbl_load_view(at);
  size_t esize = pbc_tbl_value_bytes(desc, f);
  uint8_t *grown = pbc_rt_grow(d, (void *)v.data, v.size, add, esize);
  if (grown == NULL) return NULL;
  pbc_tbl_store_view(at, grown, v.size);
  return grown + v.size * esize;
}

static uint8_t *append(pbc_decoder *d, const pbc_message_desc *desc,
                       const pbc_field_desc *f, uint8_t *m) {
  uint8_t *e = reserve(d, desc, f, m, 1);
  if (e == NULL) return NULL;
  uint8_t *at = m + f->offset;
  pbc_bytes v = pbc_tbl_load_view(at);
  pbc_tbl_store_view(at, v.data, v.size + 1);
  return e;
}

/* Where a value read for scalar, string or bytes field f goes: a new
 * element of a repeated field, or the member, marked present. NULL when out
 * of memory. */
static inline uint8_t *value_slot(pbc_decoder *d,
                                  const pbc_message_desc *desc,
                                  const pbc_field_desc *f, uint8_t *m) {
  if (f->kind == PBC_FIELD_REPEATED) return append(d, desc, f, m);
  pbc_tbl_mark_present(desc, f, m);
  return m + f->offset;
}

static const uint8_t *message_dec(const pbc_message_desc *desc, uint8_t *m,
                                  const uint8_t *p, const uint8_t *end,
                                  pbc_decoder *d, uint32_t group);

/* T_init from the description: its prototype, or zeros. */
static inline void table_init(const pbc_message_desc *d, uint8_t *m) {
  if (d->prototype != NULL) memcpy(m, d->prototype, d->size);
  else memset(m, 0, d->size);
}

PBC_NOINLINE void pbc_table_init(const pbc_message_desc *d, void *m) {
  table_init(d, (uint8_t *)m);
}

/* The field just read, [start, next), goes to the unknown fields (map
 * entries keep none). */
static bool keep_unknown(pbc_decoder *d, const pbc_message_desc *desc,
                         uint8_t *m, const uint8_t *start,
                         const uint8_t *next) {
  if (desc->unknown_offset == PBC_NO_UNKNOWN_FIELDS) return true;
  return pbc_rt_keep_unknown(d, (pbc_bytes *)(m + desc->unknown_offset), start,
                             next);
}

/* A scalar of the field's own wire type. */
static inline const uint8_t *read_scalar(pbc_decoder *d,
                                         const pbc_message_desc *desc,
                                         const pbc_field_desc *f,
                                         const pbc_tbl_type *t, uint8_t *m,
                                         const uint8_t *start,
                                         const uint8_t *p,
                                         const uint8_t *end) {
  uint64_t v;
  switch (t->handler) {
  case PBC_TBL_FIXED64:
    if (!bytes_left(p, end, 8)) return pbc_rt_fail(d, PBC_ERR_TRUNCATED);
    v = pbc_tbl_load64(p);
    p += 8;
    break;
  case PBC_TBL_FIXED32:
    if (!bytes_left(p, end, 4)) return pbc_rt_fail(d, PBC_ERR_TRUNCATED);
    v = pbc_tbl_load32(p);
    p += 4;
    break;
  case PBC_TBL_ENUM:
    p = read_varint(d, p, end, &v);
    if (p == NULL) return NULL;
    if (diverts_enum(desc, f, v))
      return keep_unknown(d, desc, m, start, p)
                 ? p
                 : pbc_rt_fail(d, PBC_ERR_OUT_OF_MEMORY);
    break;
  default:
    p = read_varint(d, p, end, &v);
    if (p == NULL) return NULL;
    v = stored_varint(t, v);
    break;
  }
  uint8_t *at = value_slot(d, desc, f, m);
  if (at == NULL) return NULL;
  pbc_tbl_store_value(at, t->bytes, v);
  return p;
}

/* A packed run of a repeated scalar field, whatever the schema says about
 * packing. */
static const uint8_t *read_packed(pbc_decoder *d, const pbc_message_desc *desc,
                                  const pbc_field_desc *f, uint8_t *m,
                                  const uint8_t *p, const uint8_t *end) {
  size_t len = 0;
  p = read_length(d, p, end, &len);
  if (p == NULL) return NULL;
  const uint8_t *run_end = p + len;
  const pbc_tbl_type *t = pbc_tbl_type_of(f);
  size_t esize = t->bytes;
  uint8_t *at = m + f->offset;
  pbc_wire_type wt = (pbc_wire_type)t->wire;
  if (wt != PBC_WIRE_VARINT) {
    size_t w = wt == PBC_WIRE_FIXED64 ? 8 : 4;
    if (len % w != 0) return pbc_rt_fail(d, PBC_ERR_BAD_LENGTH);
    uint8_t *dst = reserve(d, desc, f, m, len / w);
    if (dst == NULL) return NULL;
    if (len) memcpy(dst, p, len);
    pbc_bytes v = pbc_tbl_load_view(at);
    pbc_tbl_store_view(at, v.data, v.size + len / w);
    return run_end;
  }
  uint8_t *out = reserve(d, desc, f, m, pbc_rt_count_varints(p, run_end));
  if (out == NULL) return NULL;
  /* The size is set after the run, from the last element written: a
   * closed enum's undeclared values take no element, and a malformed run
   * leaves the old size. */
  uint8_t *first = pbc_tbl_load_ptr(at);
  while (p < run_end) {
    uint64_t raw;
    p = read_varint(d, p, run_end, &raw);
    if (p == NULL) return NULL;
    if (diverts_enum(desc, f, raw)) {
      if (desc->unknown_offset != PBC_NO_UNKNOWN_FIELDS &&
          !pbc_rt_keep_unknown_varint(d, (pbc_bytes *)(m + desc->unknown_offset),
                                      raw, f->number))
        return pbc_rt_fail(d, PBC_ERR_OUT_OF_MEMORY);
      continue;
    }
    pbc_tbl_store_value(out, esize, stored_varint(t, raw));
    out += esize;
  }
  pbc_tbl_store_view(at, first, (size_t)(out - first) / esize);
  return run_end;
}

static inline const uint8_t *read_string(pbc_decoder *d,
                                         const pbc_message_desc *desc,
                                         const pbc_field_desc *f, uint8_t *m,
                                         const uint8_t *p,
                                         const uint8_t *end) {
  size_t len = 0;
  p = read_length(d, p, end, &len);
  if (p == NULL) return NULL;
  if ((f->flags & PBC_FIELD_UTF8) && !pbc_rt_utf8_valid(p, len))
    return pbc_rt_fail(d, PBC_ERR_INVALID_UTF8);
  uint8_t *at = value_slot(d, desc, f, m);
  if (at == NULL) return NULL;
  pbc_tbl_store_view(at, p, len);
  return p + len;
}

/* Keys of two entries of map field f are equal. */
static bool keys_equal(const pbc_message_desc *entry, const uint8_t *a,
                       const uint8_t *b) {
  const pbc_field_desc *key = &entry->fields[0];
  if (pbc_tbl_is_view(key)) {
    pbc_bytes x = pbc_tbl_load_view(a + key->offset);
    pbc_bytes y = pbc_tbl_load_view(b + key->offset);
    return pbc_rt_bytes_equal(x.data, x.size, y.data, y.size);
  }
  return memcmp(a + key->offset, b + key->offset,
                pbc_tbl_type_of(key)->bytes) == 0;
}

/* After a map entry was appended: an entry whose value is a closed enum's
 * undeclared value goes whole to the unknown fields, the map left as it
 * was; an entry whose key is already there replaces that one's value. */
static const uint8_t *finish_map_entry(pbc_decoder *d,
                                       const pbc_message_desc *desc,
                                       const pbc_field_desc *f, uint8_t *m,
                                       const uint8_t *start,
                                       const uint8_t *next) {
  const pbc_message_desc *ed = pbc_tbl_link_message(desc, f);
  uint8_t *at = m + f->offset;
  pbc_bytes v = pbc_tbl_load_view(at);
  size_t esize = ed->size, last = v.size - 1;
  uint8_t *data = (uint8_t *)v.data, *added = data + last * esize;
  const pbc_field_desc *value = &ed->fields[ed->field_count - 1];
  if ((value->flags & PBC_FIELD_CLOSED_ENUM) &&
      !pbc_tbl_enum_declares((const pbc_enum_info *)ed->links[value->link],
                             (int32_t)pbc_tbl_load32(added + value->offset))) {
    pbc_tbl_store_view(at, data, last);
    return keep_unknown(d, desc, m, start, next)
               ? next
               : pbc_rt_fail(d, PBC_ERR_OUT_OF_MEMORY);
  }
  for (size_t i = 0; i < last; i++) {
    uint8_t *e = data + i * esize;
    if (keys_equal(ed, e, added)) {
      memcpy(e, added, esize);
      pbc_tbl_store_view(at, data, last);
      break;
    }
  }
  return next;
}

static const uint8_t *read_embedded(pbc_decoder *d,
                                    const pbc_message_desc *desc,
                                    const pbc_field_desc *f, uint8_t *m,
                                    const uint8_t *start, const uint8_t *p,
                                    const uint8_t *end) {
  const pbc_message_desc *sub = pbc_tbl_link_message(desc, f);
  const uint8_t *sub_end = end;
  bool group = f->type == PBC_TYPE_GROUP;
  if (!group) {
    size_t len = 0;
    p = read_length(d, p, end, &len);
    if (p == NULL) return NULL;
    sub_end = p + len;
  }
  uint8_t *target;
  if (f->kind == PBC_FIELD_REPEATED) {
    target = append(d, desc, f, m);
    if (target == NULL) return NULL;
    table_init(sub, target);
  } else {
    uint8_t *at = m + f->offset;
    target = pbc_tbl_load_ptr(at);
    /* A oneof's union may hold another member: merge only into this one. */
    if (f->kind == PBC_FIELD_ONEOF &&
        pbc_tbl_load32(m + desc->oneofs[f->presence].case_offset) != f->number)
      target = NULL;
    if (target == NULL) {
      target = pbc_rt_alloc(d, sub->size);
      if (target == NULL) return NULL;
      table_init(sub, target);
      pbc_tbl_store_ptr(at, target);
    }
    pbc_tbl_mark_present(desc, f, m);
  }
  if (!pbc_rt_push(d)) return NULL;
  const uint8_t *next =
      message_dec(sub, target, p, sub_end, d, group ? f->number : 0);
  pbc_rt_pop(d);
  if (next == NULL) return NULL;
  if (f->flags & PBC_FIELD_MAP) return finish_map_entry(d, desc, f, m, start, next);
  return next;
}

/* A tag, its one- and two-byte forms inline (field numbers below 2048). */
static inline const uint8_t *read_tag(pbc_decoder *d, const uint8_t *p,
                                      const uint8_t *end, uint32_t *tag) {
  uint32_t b0 = p[0];
  if (b0 < 0x80) {
    if (b0 >= 1u << PBC_WIRE_TYPE_BITS) { /* field number not 0 */
      *tag = b0;
      return p + 1;
    }
  } else if (bytes_left(p, end, 2) && p[1] < 0x80) {
    uint32_t v = (b0 & 0x7f) | (uint32_t)p[1] << 7;
    if (v >= 1u << PBC_WIRE_TYPE_BITS) {
      *tag = v;
      return p + 2;
    }
  }
  return pbc_rt_tag(d, p, end, tag);
}

/* The decoder's handlers for the common fields, one switch case each: a
 * plain varint (stored in 4 or 8 bytes), a bool, a fixed-width value or a
 * string or bytes view, singular with a presence bit (BIT) or without
 * (PLAIN: implicit presence, a map entry's key or value). Every other
 * field (enums, zigzag, oneofs, repeated fields, messages) goes through
 * OTHER, the general path. */
enum {
  DEC_OTHER,
  DEC_V4_BIT, DEC_V4_PLAIN,
  DEC_V8_BIT, DEC_V8_PLAIN,
  DEC_BOOL_BIT, DEC_BOOL_PLAIN,
  DEC_F4_BIT, DEC_F4_PLAIN,
  DEC_F8_BIT, DEC_F8_PLAIN,
  DEC_VIEW_BIT, DEC_VIEW_PLAIN
};

/* The handler by type and kind, from field_types.def's rows: a type's BIT
 * handler for the BIT kind, its PLAIN one (the next) for IMPLICIT and
 * ALWAYS, else OTHER. */
#define DEC_BIT(handler, size)                                                 \
  ((handler) == PBC_TBL_VARINT    ? ((size) == 4 ? DEC_V4_BIT : DEC_V8_BIT)    \
   : (handler) == PBC_TBL_BOOL    ? DEC_BOOL_BIT                               \
   : (handler) == PBC_TBL_FIXED32 ? DEC_F4_BIT                                 \
   : (handler) == PBC_TBL_FIXED64 ? DEC_F8_BIT                                 \
   : (handler) == PBC_TBL_VIEW    ? DEC_VIEW_BIT                               \
                                  : DEC_OTHER)
#define DEC_ROW(BIT)                                                           \
  { [PBC_FIELD_IMPLICIT] = (BIT) ? (BIT) + 1 : DEC_OTHER,                      \
    [PBC_FIELD_BIT] = (BIT),                                                   \
    [PBC_FIELD_ALWAYS] = (BIT) ? (BIT) + 1 : DEC_OTHER }
static const uint8_t dec_handlers[19][PBC_FIELD_REPEATED + 1] = {
#define PBC_FIELD_TYPE(Name, name, number, wire, repr, ctype, size)           \
  [number] = DEC_ROW(DEC_BIT(                                                  \
      PBC_TBL_HANDLER(number, wire, PBC_TBL_REPR_##repr, size), size)),
#include "field_types.def"
};
#undef DEC_ROW
#undef DEC_BIT

static inline unsigned dec_handler(const pbc_field_desc *f) {
  assert(f->type <= PBC_TYPE_SINT64 && f->kind <= PBC_FIELD_REPEATED);
  return dec_handlers[f->type][f->kind];
}

/* The general path: any field of the wire type its values have. */
static const uint8_t *read_field(pbc_decoder *d, const pbc_message_desc *desc,
                                 const pbc_field_desc *f, uint8_t *m,
                                 const uint8_t *start, const uint8_t *p,
                                 const uint8_t *end) {
  const pbc_tbl_type *t = pbc_tbl_type_of(f);
  switch (t->handler) {
  case PBC_TBL_MESSAGE: case PBC_TBL_GROUP:
    return read_embedded(d, desc, f, m, start, p, end);
  case PBC_TBL_VIEW:
    return read_string(d, desc, f, m, p, end);
  default:
    return read_scalar(d, desc, f, t, m, start, p, end);
  }
}

/* A field whose tag's wire type is not its values' own: a packed run of a
 * repeated scalar, the END_GROUP ending the group being decoded, or an
 * unknown field. *done is set when the group ended. */
static const uint8_t *read_other_wire(pbc_decoder *d,
                                      const pbc_message_desc *desc,
                                      const pbc_field_desc *f, uint8_t *m,
                                      uint32_t tag, uint32_t group,
                                      const uint8_t *start, const uint8_t *p,
                                      const uint8_t *end, bool *done) {
  pbc_wire_type wt = pbc_tag_wire_type(tag);
  if (f != NULL && wt == PBC_WIRE_LEN && f->kind == PBC_FIELD_REPEATED &&
      pbc_tbl_type_of(f)->bytes != 0)
    return read_packed(d, desc, f, m, p, end);
  if (wt == PBC_WIRE_END_GROUP) {
    /* Ends the group being decoded if the numbers match. */
    if (pbc_tag_field_number(tag) != group)
      return pbc_rt_fail(d, PBC_ERR_END_GROUP);
    *done = true;
    return p;
  }
  p = pbc_rt_skip(d, p, end, tag);
  if (p != NULL && !keep_unknown(d, desc, m, start, p))
    return pbc_rt_fail(d, PBC_ERR_OUT_OF_MEMORY);
  return p;
}

/* One case of the switch below: a value of wire type WIRE read into v
 * (by READ), stored by STORE, and the presence bit set when BIT. */
#define DEC_CASE(OP, WIRE, BIT, READ, STORE)                                   \
  case OP:                                                                     \
    if (wt != (WIRE)) goto other_wire;                                         \
    READ;                                                                      \
    STORE;                                                                     \
    if (BIT) pbc_tbl_set_bit(m, f->presence);                                          \
    continue;

static const uint8_t *message_dec(const pbc_message_desc *desc, uint8_t *m,
                                  const uint8_t *p, const uint8_t *end,
                                  pbc_decoder *d, uint32_t group) {
  while (p < end) {
    const uint8_t *start = p;
    uint32_t tag;
    p = read_tag(d, p, end, &tag);
    if (p == NULL) return NULL;
    pbc_wire_type wt = pbc_tag_wire_type(tag);
    const pbc_field_desc *f = pbc_tbl_find_field(desc, pbc_tag_field_number(tag));
    if (f == NULL) goto other_wire;
    uint8_t *at = m + f->offset;
    uint64_t v;
    size_t len;
    switch (dec_handler(f)) {
#define VARINT                                                                 \
  if ((p = read_varint(d, p, end, &v)) == NULL) return NULL
#define FIXED(N)                                                               \
  if (!bytes_left(p, end, N)) return pbc_rt_fail(d, PBC_ERR_TRUNCATED);       \
  memcpy(at, p, N);                                                            \
  p += N
#define VIEW                                                                   \
  len = 0;                                                                     \
  if ((p = read_length(d, p, end, &len)) == NULL) return NULL;                \
  if ((f->flags & PBC_FIELD_UTF8) && !pbc_rt_utf8_valid(p, len))               \
    return pbc_rt_fail(d, PBC_ERR_INVALID_UTF8);                               \
  pbc_tbl_store_view(at, p, len);                                              \
  p += len
    DEC_CASE(DEC_V4_BIT, PBC_WIRE_VARINT, 1, VARINT, pbc_tbl_store_value(at, 4, v))
    DEC_CASE(DEC_V4_PLAIN, PBC_WIRE_VARINT, 0, VARINT, pbc_tbl_store_value(at, 4, v))
    DEC_CASE(DEC_V8_BIT, PBC_WIRE_VARINT, 1, VARINT, pbc_tbl_store_value(at, 8, v))
    DEC_CASE(DEC_V8_PLAIN, PBC_WIRE_VARINT, 0, VARINT, pbc_tbl_store_value(at, 8, v))
    DEC_CASE(DEC_BOOL_BIT, PBC_WIRE_VARINT, 1, VARINT, *at = v != 0)
    DEC_CASE(DEC_BOOL_PLAIN, PBC_WIRE_VARINT, 0, VARINT, *at = v != 0)
    DEC_CASE(DEC_F4_BIT, PBC_WIRE_FIXED32, 1, FIXED(4), (void)0)
    DEC_CASE(DEC_F4_PLAIN, PBC_WIRE_FIXED32, 0, FIXED(4), (void)0)
    DEC_CASE(DEC_F8_BIT, PBC_WIRE_FIXED64, 1, FIXED(8), (void)0)
    DEC_CASE(DEC_F8_PLAIN, PBC_WIRE_FIXED64, 0, FIXED(8), (void)0)
    DEC_CASE(DEC_VIEW_BIT, PBC_WIRE_LEN, 1, VIEW, (void)0)
    DEC_CASE(DEC_VIEW_PLAIN, PBC_WIRE_LEN, 0, VIEW, (void)0)
#undef VARINT
#undef FIXED
#undef VIEW
    default:
      if (wt != pbc_tbl_type_of(f)->wire) goto other_wire;
      p = read_field(d, desc, f, m, start, p, end);
      if (p == NULL) return NULL;
      continue;
    }
  other_wire:;
    bool done = false;
    p = read_other_wire(d, desc, f, m, tag, group, start, p, end, &done);
    if (p == NULL || done) return p;
  }
  /* At the end of the input a message is complete; a group is not. */
  if (group != 0) return pbc_rt_fail(d, PBC_ERR_TRUNCATED);
  return p;
}
#undef DEC_CASE

PBC_NOINLINE const uint8_t *
pbc_table_decode_fields(const pbc_message_desc *desc, void *m,
                        const uint8_t *p, const uint8_t *end, pbc_decoder *d,
                        uint32_t group) {
  return message_dec(desc, (uint8_t *)m, p, end, d, group);
}

/* When every check of d is a required field with a presence bit in the
 * first presence word: the mask of their bits, so that an element of a
 * repeated field is one test (google_message2's 1,000 group elements each
 * made a call and a walk of their checks). */
static bool required_mask(const pbc_message_desc *d, uint32_t *mask) {
  uint32_t bits = 0;
  for (uint32_t i = 0; i < d->check_count; i++) {
    const pbc_field_desc *f = &d->fields[d->checks[i]];
    if (pbc_tbl_is_message(f) || f->presence >= 32) return false;
    assert(f->kind == PBC_FIELD_BIT && (f->flags & PBC_FIELD_REQUIRED));
    bits |= UINT32_C(1) << f->presence;
  }
  *mask = bits;
  return true;
}

/* T_is_initialized from the description: every required field set, and
 * every sub-message held initialized too, through the tree. */
PBC_NOINLINE bool pbc_table_is_initialized(const pbc_message_desc *d,
                                           const void *msg) {
  const uint8_t *m = (const uint8_t *)msg;
  for (uint32_t i = 0; i < d->check_count; i++) {
    const pbc_field_desc *f = &d->fields[d->checks[i]];
    bool required = f->flags & PBC_FIELD_REQUIRED;
    if (!pbc_tbl_is_message(f)) {
      assert(required && f->kind == PBC_FIELD_BIT);
      if (!pbc_tbl_has_bit(f, m)) return false;
      continue;
    }
    const pbc_message_desc *sub = pbc_tbl_link_message(d, f);
    if (f->kind == PBC_FIELD_REPEATED) {
      pbc_bytes v = pbc_tbl_load_view(m + f->offset);
      uint32_t mask;
      if (v.size > 1 && required_mask(sub, &mask)) {
        for (size_t j = 0; j < v.size; j++)
          if ((pbc_tbl_load32(v.data + j * sub->size) & mask) != mask) return false;
        continue;
      }
      for (size_t j = 0; j < v.size; j++)
        if (!pbc_table_is_initialized(sub, v.data + j * sub->size)) return false;
      continue;
    }
    const uint8_t *s = pbc_tbl_load_ptr(m + f->offset);
    bool present = s != NULL &&
                   (f->kind != PBC_FIELD_ONEOF ||
                    pbc_tbl_load32(m + d->oneofs[f->presence].case_offset) == f->number);
    if (present ? !pbc_table_is_initialized(sub, s) : required) return false;
  }
  return true;
}
