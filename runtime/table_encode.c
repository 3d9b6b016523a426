/* The table-driven size and encoder: any message, driven by its
 * description (pbc/desc.h) instead of code generated for it. The same bytes
 * as the generated pbc__T_enc and T_encoded_size, by the same rules (the
 * encoding plan's, which the description records per field as its kind and
 * flags): highest field number first, backwards, the unknown fields last in
 * the output; a field is written when its kind says it is present; a map
 * entry writes its key and value even when absent.
 *
 * These are the compact tier's size and encode roles (docs/architecture.md)
 * and, in every difftest run, checked against the generated code for every
 * random message. */
#include <assert.h>

#include "table_internal.h"

/* A varint-typed value as the varint it is written as; fixed-width ones as
 * their bits. */
static PBC_ALWAYS_INLINE uint64_t wire_value(const pbc_field_desc *f, const uint8_t *p) {
  switch (f->type) {
  case PBC_TYPE_INT32: case PBC_TYPE_ENUM:
    return (uint64_t)(int64_t)(int32_t)pbc_tbl_load32(p); /* sign-extended: 10 bytes */
  case PBC_TYPE_SINT32: {
    uint32_t v = pbc_tbl_load32(p);
    return (uint32_t)((v << 1) ^ (uint32_t)((int32_t)v >> 31));
  }
  case PBC_TYPE_SINT64: {
    uint64_t v = pbc_tbl_load64(p);
    return (v << 1) ^ (uint64_t)((int64_t)v >> 63);
  }
  case PBC_TYPE_BOOL:
    return *p != 0;
  case PBC_TYPE_UINT32: case PBC_TYPE_FIXED32: case PBC_TYPE_SFIXED32:
  case PBC_TYPE_FLOAT:
    return pbc_tbl_load32(p);
  default: /* the 64-bit types */
    return pbc_tbl_load64(p);
  }
}

/* Bytes a scalar value takes on the wire, without its tag: a case per
 * type. */
static PBC_ALWAYS_INLINE size_t scalar_size(const pbc_field_desc *f,
                                            const uint8_t *p) {
  switch (f->type) {
  case PBC_TYPE_DOUBLE: case PBC_TYPE_FIXED64: case PBC_TYPE_SFIXED64:
    return 8;
  case PBC_TYPE_FLOAT: case PBC_TYPE_FIXED32: case PBC_TYPE_SFIXED32:
    return 4;
  case PBC_TYPE_BOOL:
    return 1;
  case PBC_TYPE_INT32: case PBC_TYPE_ENUM: { /* negative: 10 bytes */
    int32_t v = (int32_t)pbc_tbl_load32(p);
    return v < 0 ? PBC_MAX_VARINT_BYTES : pbc_varint_size((uint32_t)v);
  }
  case PBC_TYPE_UINT32:
    return pbc_varint_size(pbc_tbl_load32(p));
  default:
    return pbc_varint_size(wire_value(f, p));
  }
}

/* Whether an IMPLICIT field is written: not zero (floats by their bits),
 * not empty. */
static PBC_ALWAYS_INLINE bool implicit_present(const pbc_field_desc *f,
                                               const uint8_t *at) {
  switch (pbc_tbl_type_of(f)->bytes) {
  case 0: return pbc_tbl_load_view(at).size != 0;
  case 1: return *at != 0;
  case 4: return pbc_tbl_load32(at) != 0;
  default: return pbc_tbl_load64(at) != 0;
  }
}

/* Whether a singular field other than a BIT one is written (the kinds of
 * pbc/desc.h). */
static bool is_present_other(const pbc_message_desc *d,
                             const pbc_field_desc *f, const uint8_t *m) {
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
    return implicit_present(f, at);
  }
}

/* Whether a singular field is written. Presence bits first and inline:
 * most fields of a proto2 message are absent, and a clear bit is all it
 * takes to pass one. */
static PBC_ALWAYS_INLINE bool is_present(const pbc_message_desc *d,
                              const pbc_field_desc *f, const uint8_t *m) {
  if (f->kind == PBC_FIELD_BIT)
    return pbc_tbl_has_bit(f, m);
  return is_present_other(d, f, m);
}

static PBC_ALWAYS_INLINE size_t tag_size(const pbc_field_desc *f) {
  if (f->number < 16) return 1; /* most fields' */
  return pbc_varint_size(pbc_make_tag(f->number, PBC_WIRE_VARINT));
}

static PBC_ALWAYS_INLINE size_t length_delimited(size_t n) {
  return pbc_varint_size(n) + n;
}

/* ---- Size --------------------------------------------------------------- */

static size_t message_size(const pbc_message_desc *d, const uint8_t *m);

/* A sub-message's bytes after its tag: length and payload, or payload and
 * END_GROUP tag. */
static size_t embedded_size(const pbc_field_desc *f,
                            const pbc_message_desc *sub, const uint8_t *s) {
  size_t n = message_size(sub, s);
  return f->type == PBC_TYPE_GROUP ? n + tag_size(f) : length_delimited(n);
}

static PBC_ALWAYS_INLINE size_t value_size(const pbc_field_desc *f, const uint8_t *p) {
  if (pbc_tbl_is_view(f)) return length_delimited(pbc_tbl_load_view(p).size);
  return scalar_size(f, p);
}

static size_t repeated_size(const pbc_message_desc *d, const pbc_field_desc *f,
                            const uint8_t *m) {
  pbc_bytes v = pbc_tbl_load_view(m + f->offset);
  if (v.size == 0) return 0;
  size_t stride = pbc_tbl_value_bytes(d, f), total = 0;
  if (f->flags & PBC_FIELD_PACKED) {
    size_t w = pbc_tbl_type_of(f)->wire == PBC_WIRE_VARINT ? 0 : stride;
    if (w != 0) total = v.size * w; /* fixed widths: as stored */
    else
      for (size_t i = 0; i < v.size; i++)
        total += pbc_varint_size(wire_value(f, v.data + i * stride));
    return tag_size(f) + length_delimited(total);
  }
  const pbc_message_desc *sub = pbc_tbl_is_message(f) ? pbc_tbl_link_message(d, f) : NULL;
  for (size_t i = 0; i < v.size; i++) {
    const uint8_t *e = v.data + i * stride;
    total += sub ? embedded_size(f, sub, e) : value_size(f, e);
  }
  return total + v.size * tag_size(f);
}

/* The size of a field other than a present BIT scalar: repeated,
 * messages, the other kinds. */
static size_t other_size(const pbc_message_desc *d, const pbc_field_desc *f,
                         const uint8_t *m) {
  if (f->kind == PBC_FIELD_REPEATED) return repeated_size(d, f, m);
  if (pbc_tbl_is_message(f)) {
    if (is_present(d, f, m))
      return tag_size(f) + embedded_size(f, pbc_tbl_link_message(d, f),
                                         pbc_tbl_load_ptr(m + f->offset));
    if (d->flags & PBC_MESSAGE_MAP_ENTRY) /* an absent value: empty */
      return tag_size(f) + (f->type == PBC_TYPE_GROUP ? tag_size(f) : 1);
    return 0;
  }
  return is_present_other(d, f, m) ? tag_size(f) + value_size(f, m + f->offset)
                                   : 0;
}

/* ---- The fields to visit ------------------------------------------------
 * A message's encoders visit the fields whose presence bit is set (found
 * word by word from _presence[], through by_bit) and the fields without a
 * bit (others), not every field: most fields of a large proto2 message are
 * absent, and passing each one costs more than encoding a present one. The
 * size takes them in any order; the encoder needs number order, so it
 * marks them in a bitmap of field indexes and walks that backwards (a
 * message of more than VISIT_MAX_FIELDS fields, field by field). */
enum { VISIT_MAX_FIELDS = 256, VISIT_WORDS = VISIT_MAX_FIELDS / 64 };

static inline void visit(uint64_t *set, uint32_t index) {
  set[index / 64] |= UINT64_C(1) << (index % 64);
}

/* Fills set with the fields to visit; its word count. */
static inline uint32_t fields_to_visit(const pbc_message_desc *d,
                                       const uint8_t *m, uint64_t *set) {
  uint32_t words = (d->field_count + 63) / 64;
  for (uint32_t w = 0; w < words; w++) set[w] = 0;
  for (uint32_t w = 0; w * 32 < d->bit_count; w++) {
    for (uint32_t bits = pbc_tbl_load32(m + w * 4); bits; bits &= bits - 1) {
      uint32_t bit = w * 32 + (uint32_t)__builtin_ctz(bits);
      assert(bit < d->bit_count && d->by_bit[bit] != PBC_NO_FIELD);
      visit(set, d->by_bit[bit]);
    }
  }
  for (uint32_t i = 0; i < d->other_count; i++) visit(set, d->others[i]);
  return words;
}

/* A field's bytes; `bit_set`: f's presence bit (if it has one) is known
 * to be set. Scalars, strings and bytes with a bit or implicit presence
 * inline, the rest through other_size. */
static PBC_ALWAYS_INLINE size_t field_size(const pbc_message_desc *d,
                                           const pbc_field_desc *f,
                                           const uint8_t *m, bool bit_set) {
  if (!pbc_tbl_is_message(f)) {
    const uint8_t *at = m + f->offset;
    if (f->kind == PBC_FIELD_BIT)
      return bit_set || pbc_tbl_has_bit(f, m) ? tag_size(f) + value_size(f, at)
                                              : 0;
    if (f->kind == PBC_FIELD_IMPLICIT)
      return implicit_present(f, at) ? tag_size(f) + value_size(f, at) : 0;
  }
  return other_size(d, f, m);
}

static size_t message_size(const pbc_message_desc *d, const uint8_t *m) {
  size_t total = 0;
  if (d->unknown_offset != PBC_NO_UNKNOWN_FIELDS)
    total += pbc_tbl_load_view(m + d->unknown_offset).size;
  /* A size needs no order: the set bits, then the others, without a visit
   * set. */
  for (uint32_t w = 0; w * 32 < d->bit_count; w++) {
    for (uint32_t bits = pbc_tbl_load32(m + w * 4); bits; bits &= bits - 1) {
      uint32_t bit = w * 32 + (uint32_t)__builtin_ctz(bits);
      assert(bit < d->bit_count && d->by_bit[bit] != PBC_NO_FIELD);
      total += field_size(d, &d->fields[d->by_bit[bit]], m, true);
    }
  }
  for (uint32_t i = 0; i < d->other_count; i++)
    total += field_size(d, &d->fields[d->others[i]], m, false);
  return total;
}

PBC_NOINLINE size_t pbc_table_encoded_size(const pbc_message_desc *d,
                                           const void *m) {
  return message_size(d, (const uint8_t *)m);
}

/* ---- Encode, backwards ---------------------------------------------------- */

/* Room for n bytes below pos, above limit; a NULL limit: the caller
 * guarantees the room (pbc__T_enc's unchecked form). */
static PBC_ALWAYS_INLINE bool room(const uint8_t *pos, const uint8_t *limit, size_t n) {
  return limit == NULL || (size_t)(pos - limit) >= n;
}

/* A varint ending at pos, whose room was checked: one and two bytes
 * (every tag of a field numbered below 2048) inline. */
static PBC_ALWAYS_INLINE uint8_t *put_varint_unchecked(uint8_t *pos,
                                                       uint64_t v) {
  if (v < 0x80) {
    *--pos = (uint8_t)v;
    return pos;
  }
  if (v < 0x4000) {
    pos -= 2;
    pos[0] = (uint8_t)(v | 0x80);
    pos[1] = (uint8_t)(v >> 7);
    return pos;
  }
  return pbc_rt_put_varint(pos, v);
}

static PBC_ALWAYS_INLINE uint8_t *put_varint(uint8_t *pos, const uint8_t *limit,
                                  uint64_t v) {
  if (!room(pos, limit, pbc_varint_size(v))) return NULL;
  return put_varint_unchecked(pos, v);
}

static PBC_ALWAYS_INLINE uint8_t *put_tag(uint8_t *pos, const uint8_t *limit,
                               const pbc_field_desc *f, pbc_wire_type wt) {
  return put_varint(pos, limit, pbc_make_tag(f->number, wt));
}

static PBC_ALWAYS_INLINE uint8_t *put_data(uint8_t *pos, const uint8_t *limit,
                                const void *data, size_t n) {
  if (!room(pos, limit, n)) return NULL;
  pos -= n;
  if (n) memcpy(pos, data, n);
  return pos;
}

/* A scalar value without its tag, room checked. */
static PBC_ALWAYS_INLINE uint8_t *put_scalar_unchecked(uint8_t *pos,
                                            const pbc_field_desc *f,
                                            const uint8_t *p) {
  switch (pbc_tbl_wire_type(f)) {
  case PBC_WIRE_FIXED64: pos -= 8; memcpy(pos, p, 8); return pos;
  case PBC_WIRE_FIXED32: pos -= 4; memcpy(pos, p, 4); return pos;
  default: return put_varint_unchecked(pos, wire_value(f, p));
  }
}

/* The most a scalar and its tag take. */
enum { MAX_SCALAR_FIELD = PBC_MAX_TAG_BYTES + PBC_MAX_VARINT_BYTES };

/* A scalar without its tag. Its room: the most any scalar takes, or near
 * the limit its own size (the writes below are exact). */
static PBC_ALWAYS_INLINE uint8_t *put_scalar(uint8_t *pos,
                                             const uint8_t *limit,
                                             const pbc_field_desc *f,
                                             const uint8_t *p) {
  if (!room(pos, limit, PBC_MAX_VARINT_BYTES) &&
      !room(pos, limit, scalar_size(f, p)))
    return NULL;
  return put_scalar_unchecked(pos, f, p);
}

static uint8_t *message_enc(const pbc_message_desc *d, const uint8_t *m,
                            uint8_t *pos, const uint8_t *limit);

/* A sub-message with its tag and length (or its group tags). */
static uint8_t *put_embedded(uint8_t *pos, const uint8_t *limit,
                             const pbc_field_desc *f,
                             const pbc_message_desc *sub, const uint8_t *s) {
  if (f->type == PBC_TYPE_GROUP) {
    pos = put_tag(pos, limit, f, PBC_WIRE_END_GROUP);
    if (pos) pos = message_enc(sub, s, pos, limit);
    return pos ? put_tag(pos, limit, f, PBC_WIRE_START_GROUP) : NULL;
  }
  uint8_t *end = pos;
  pos = message_enc(sub, s, pos, limit);
  if (pos) pos = put_varint(pos, limit, (uint64_t)(end - pos));
  return pos ? put_tag(pos, limit, f, PBC_WIRE_LEN) : NULL;
}

/* A scalar, string or bytes value (or element) with its tag: one room
 * check (as put_scalar's), then a case per type. */
static PBC_ALWAYS_INLINE uint8_t *put_value(uint8_t *pos, const uint8_t *limit,
                                            const pbc_field_desc *f,
                                            const uint8_t *p) {
  size_t data = pbc_tbl_is_view(f) ? pbc_tbl_load_view(p).size : 0;
  if (!room(pos, limit, MAX_SCALAR_FIELD + data) &&
      !room(pos, limit, tag_size(f) + value_size(f, p)))
    return NULL;
  uint32_t tag = pbc_make_tag(f->number, PBC_WIRE_VARINT);
  uint64_t v;
  switch (f->type) {
  case PBC_TYPE_DOUBLE: case PBC_TYPE_FIXED64: case PBC_TYPE_SFIXED64:
    pos -= 8;
    memcpy(pos, p, 8);
    return put_varint_unchecked(pos, tag | PBC_WIRE_FIXED64);
  case PBC_TYPE_FLOAT: case PBC_TYPE_FIXED32: case PBC_TYPE_SFIXED32:
    pos -= 4;
    memcpy(pos, p, 4);
    return put_varint_unchecked(pos, tag | PBC_WIRE_FIXED32);
  case PBC_TYPE_STRING: case PBC_TYPE_BYTES:
    pos -= data;
    if (data) memcpy(pos, pbc_tbl_load_view(p).data, data);
    pos = put_varint_unchecked(pos, data);
    return put_varint_unchecked(pos, tag | PBC_WIRE_LEN);
  case PBC_TYPE_INT32: case PBC_TYPE_ENUM: /* sign-extended: 10 bytes */
    v = (uint64_t)(int64_t)(int32_t)pbc_tbl_load32(p);
    break;
  case PBC_TYPE_UINT32:
    v = pbc_tbl_load32(p);
    break;
  case PBC_TYPE_BOOL:
    v = *p != 0;
    break;
  default:
    v = wire_value(f, p);
    break;
  }
  pos = put_varint_unchecked(pos, v);
  return put_varint_unchecked(pos, tag);
}

static uint8_t *put_repeated(uint8_t *pos, const uint8_t *limit,
                             const pbc_message_desc *d,
                             const pbc_field_desc *f, const uint8_t *m) {
  pbc_bytes v = pbc_tbl_load_view(m + f->offset);
  if (v.size == 0) return pos;
  size_t stride = pbc_tbl_value_bytes(d, f);
  if (f->flags & PBC_FIELD_PACKED) {
    uint8_t *end = pos;
    for (size_t i = v.size; i-- > 0 && pos;)
      pos = put_scalar(pos, limit, f, v.data + i * stride);
    if (pos) pos = put_varint(pos, limit, (uint64_t)(end - pos));
    return pos ? put_tag(pos, limit, f, PBC_WIRE_LEN) : NULL;
  }
  const pbc_message_desc *sub = pbc_tbl_is_message(f) ? pbc_tbl_link_message(d, f) : NULL;
  for (size_t i = v.size; i-- > 0 && pos;) {
    const uint8_t *e = v.data + i * stride;
    /* Message elements are structs in place, not pointers. */
    pos = sub ? put_embedded(pos, limit, f, sub, e) : put_value(pos, limit, f, e);
  }
  return pos;
}

/* A field other than a BIT scalar: repeated, messages, the other kinds. */
static uint8_t *put_other(uint8_t *pos, const uint8_t *limit,
                          const pbc_message_desc *d, const pbc_field_desc *f,
                          const uint8_t *m) {
  if (f->kind == PBC_FIELD_REPEATED) return put_repeated(pos, limit, d, f, m);
  if (pbc_tbl_is_message(f)) {
    if (is_present(d, f, m))
      return put_embedded(pos, limit, f, pbc_tbl_link_message(d, f),
                          pbc_tbl_load_ptr(m + f->offset));
    if (!(d->flags & PBC_MESSAGE_MAP_ENTRY)) return pos;
    /* A map entry's absent value: an empty message. */
    if (f->type == PBC_TYPE_GROUP) {
      pos = put_tag(pos, limit, f, PBC_WIRE_END_GROUP);
      return pos ? put_tag(pos, limit, f, PBC_WIRE_START_GROUP) : NULL;
    }
    pos = put_varint(pos, limit, 0);
    return pos ? put_tag(pos, limit, f, PBC_WIRE_LEN) : NULL;
  }
  return is_present_other(d, f, m) ? put_value(pos, limit, f, m + f->offset)
                                   : pos;
}

/* A field with its tag, if written; `bit_set` as for field_size. */
static PBC_ALWAYS_INLINE uint8_t *put_field(uint8_t *pos, const uint8_t *limit,
                                            const pbc_message_desc *d,
                                            const pbc_field_desc *f,
                                            const uint8_t *m, bool bit_set) {
  if (!pbc_tbl_is_message(f)) {
    const uint8_t *at = m + f->offset;
    if (f->kind == PBC_FIELD_BIT)
      return bit_set || pbc_tbl_has_bit(f, m) ? put_value(pos, limit, f, at)
                                              : pos;
    if (f->kind == PBC_FIELD_IMPLICIT)
      return implicit_present(f, at) ? put_value(pos, limit, f, at) : pos;
  }
  return put_other(pos, limit, d, f, m);
}

/* Whether the encoder walks a message's fields one by one: too many for
 * the visit set, or none with a presence bit (the visit set would hold
 * them all). */
static inline bool walk_all(const pbc_message_desc *d) {
  return d->field_count > VISIT_MAX_FIELDS || d->bit_count == 0;
}

static uint8_t *message_enc(const pbc_message_desc *d, const uint8_t *m,
                            uint8_t *pos, const uint8_t *limit) {
  if (d->unknown_offset != PBC_NO_UNKNOWN_FIELDS) {
    pbc_bytes u = pbc_tbl_load_view(m + d->unknown_offset);
    pos = put_data(pos, limit, u.data, u.size);
  }
  /* Backwards: the highest field first. */
  if (walk_all(d)) {
    for (uint32_t i = d->field_count; i-- > 0 && pos;)
      pos = put_field(pos, limit, d, &d->fields[i], m, false);
    return pos;
  }
  uint64_t set[VISIT_WORDS];
  for (uint32_t w = fields_to_visit(d, m, set); w-- > 0;) {
    for (uint64_t bits = set[w]; bits && pos;) {
      uint32_t high = 63 - (uint32_t)__builtin_clzll(bits);
      bits &= ~(UINT64_C(1) << high);
      pos = put_field(pos, limit, d, &d->fields[w * 64 + high], m, true);
    }
  }
  return pos;
}

PBC_NOINLINE uint8_t *
pbc_table_encode_backwards(const pbc_message_desc *d, const void *m,
                           uint8_t *end, uint8_t *limit) {
  return message_enc(d, (const uint8_t *)m, end, limit);
}

/* ---- Write, forwards through a scattered writer ---------------------------
 * pbc__T_wr's rule: a message whose encoding fits the writer's current chunk
 * is encoded backwards into it; a larger one goes field by field through the
 * writer, in the encoder's order (the unknown fields last), each
 * sub-message again by this rule with the size its length prefix took. */

static void write_message(const pbc_message_desc *d, const uint8_t *m,
                          pbc_writer *w, size_t size);
static void write_fields(const pbc_message_desc *d, const uint8_t *m,
                         pbc_writer *w);

static void write_tag(pbc_writer *w, const pbc_field_desc *f,
                      pbc_wire_type wt) {
  pbc_writer_write_varint(w, pbc_make_tag(f->number, wt));
}

static void write_scalar(pbc_writer *w, const pbc_field_desc *f,
                         const uint8_t *p) {
  switch (pbc_tbl_wire_type(f)) {
  case PBC_WIRE_FIXED64: pbc_writer_write(w, p, 8); break;
  case PBC_WIRE_FIXED32: pbc_writer_write(w, p, 4); break;
  default: pbc_writer_write_varint(w, wire_value(f, p)); break;
  }
}

static void write_embedded(pbc_writer *w, const pbc_field_desc *f,
                           const pbc_message_desc *sub, const uint8_t *s) {
  if (f->type == PBC_TYPE_GROUP) {
    write_tag(w, f, PBC_WIRE_START_GROUP);
    write_fields(sub, s, w);
    write_tag(w, f, PBC_WIRE_END_GROUP);
    return;
  }
  size_t n = message_size(sub, s);
  write_tag(w, f, PBC_WIRE_LEN);
  pbc_writer_write_varint(w, n);
  write_message(sub, s, w, n);
}

static void write_value(pbc_writer *w, const pbc_message_desc *d,
                        const pbc_field_desc *f, const uint8_t *p) {
  if (pbc_tbl_is_message(f)) {
    write_embedded(w, f, pbc_tbl_link_message(d, f), pbc_tbl_load_ptr(p));
    return;
  }
  write_tag(w, f, pbc_tbl_wire_type(f));
  if (pbc_tbl_is_view(f)) {
    pbc_bytes v = pbc_tbl_load_view(p);
    pbc_writer_write_varint(w, v.size);
    pbc_writer_write(w, v.data, v.size);
  } else {
    write_scalar(w, f, p);
  }
}

static void write_repeated(pbc_writer *w, const pbc_message_desc *d,
                           const pbc_field_desc *f, const uint8_t *m) {
  pbc_bytes v = pbc_tbl_load_view(m + f->offset);
  if (v.size == 0) return;
  size_t stride = pbc_tbl_value_bytes(d, f);
  if (f->flags & PBC_FIELD_PACKED) {
    size_t n = 0;
    for (size_t i = 0; i < v.size; i++) n += scalar_size(f, v.data + i * stride);
    write_tag(w, f, PBC_WIRE_LEN);
    pbc_writer_write_varint(w, n);
    for (size_t i = 0; i < v.size; i++) write_scalar(w, f, v.data + i * stride);
    return;
  }
  const pbc_message_desc *sub = pbc_tbl_is_message(f) ? pbc_tbl_link_message(d, f) : NULL;
  for (size_t i = 0; i < v.size; i++) {
    const uint8_t *e = v.data + i * stride;
    if (sub) write_embedded(w, f, sub, e); /* elements are structs in place */
    else write_value(w, d, f, e);
  }
}

static void write_fields(const pbc_message_desc *d, const uint8_t *m,
                         pbc_writer *w) {
  bool entry = d->flags & PBC_MESSAGE_MAP_ENTRY;
  for (uint32_t i = 0; i < d->field_count; i++) {
    const pbc_field_desc *f = &d->fields[i];
    if (f->kind == PBC_FIELD_REPEATED) {
      write_repeated(w, d, f, m);
    } else if (is_present(d, f, m)) {
      write_value(w, d, f, m + f->offset);
    } else if (entry && pbc_tbl_is_message(f)) { /* an absent value: empty */
      if (f->type == PBC_TYPE_GROUP) {
        write_tag(w, f, PBC_WIRE_START_GROUP);
        write_tag(w, f, PBC_WIRE_END_GROUP);
      } else {
        write_tag(w, f, PBC_WIRE_LEN);
        pbc_writer_write_varint(w, 0);
      }
    }
  }
  if (d->unknown_offset != PBC_NO_UNKNOWN_FIELDS) {
    pbc_bytes u = pbc_tbl_load_view(m + d->unknown_offset);
    pbc_writer_write(w, u.data, u.size);
  }
}

static void write_message(const pbc_message_desc *d, const uint8_t *m,
                          pbc_writer *w, size_t size) {
  uint8_t *room = pbc_writer_reserve(w, size);
  if (room == NULL) {
    write_fields(d, m, w);
    return;
  }
  /* Sized exactly, so it cannot fail. */
  uint8_t *start = message_enc(d, m, room + size, room);
  assert(start == room);
  (void)start;
}

PBC_NOINLINE void pbc_table_write_fields(const pbc_message_desc *d,
                                         const void *m, pbc_writer *w,
                                         size_t size) {
  write_message(d, (const uint8_t *)m, w, size);
}

PBC_NOINLINE pbc_status pbc_table_write(const pbc_message_desc *d,
                                        const void *m, pbc_writer *w) {
  write_message(d, (const uint8_t *)m, w, message_size(d, m));
  return pbc_writer_status(w);
}
