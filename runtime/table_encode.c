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

#include "pbc/writer.h"
#include "table_internal.h"
#include "varint_back.h"

static PBC_ALWAYS_INLINE size_t tag_size(const pbc_field_desc *f) {
  if (f->number < 16) return 1; /* most fields' */
  return pbc_varint_size(pbc_make_tag(f->number, PBC_WIRE_VARINT));
}

static PBC_ALWAYS_INLINE size_t length_delimited(size_t n) {
  return pbc_varint_size(n) + n;
}

/* ---- The encoder's cases ------------------------------------------------
 * What the size and the encoder do with a value, by type: one switch per
 * value on a case chosen from the type's field_types.def row. */
enum {
  ENC_INT32,    /* int32, enum: sign-extended, so a negative one takes 10 */
  ENC_UINT32,
  ENC_VARINT64, /* int64, uint64 */
  ENC_SINT32,
  ENC_SINT64,
  ENC_BOOL,
  ENC_FIXED32,  /* fixed32, sfixed32, float: the stored bits */
  ENC_FIXED64,  /* fixed64, sfixed64, double */
  ENC_VIEW,     /* string, bytes */
  ENC_MESSAGE,
  ENC_GROUP
};

#define ENC_CASE(wire, repr, size)                                             \
  ((wire) == PBC_WIRE_FIXED64          ? ENC_FIXED64                           \
   : (wire) == PBC_WIRE_FIXED32        ? ENC_FIXED32                           \
   : (wire) == PBC_WIRE_START_GROUP    ? ENC_GROUP                             \
   : (repr) == PBC_TBL_REPR_MESSAGE    ? ENC_MESSAGE                           \
   : (repr) == PBC_TBL_REPR_VIEW       ? ENC_VIEW                              \
   : (repr) == PBC_TBL_REPR_BOOL       ? ENC_BOOL                              \
   : (repr) == PBC_TBL_REPR_ZIGZAG     ? ((size) == 4 ? ENC_SINT32 : ENC_SINT64) \
   : (size) == 8                       ? ENC_VARINT64                          \
   : (repr) == PBC_TBL_REPR_SIGNED     ? ENC_INT32                             \
                                       : ENC_UINT32)

/* By pbc_field_type: runtime/field_types.def's rows. */
static const uint8_t enc_cases[19] = {
#define PBC_FIELD_TYPE(Name, name, number, wire, repr, ctype, size)           \
  [number] = ENC_CASE(wire, PBC_TBL_REPR_##repr, size),
#include "field_types.def"
};

static PBC_ALWAYS_INLINE unsigned enc_case(const pbc_field_desc *f) {
  assert(f->type >= PBC_TYPE_DOUBLE && f->type <= PBC_TYPE_SINT64);
  return enc_cases[f->type];
}

/* The varint a varint case's value is written as. */
static PBC_ALWAYS_INLINE uint64_t varint_value(unsigned c, const uint8_t *p) {
  switch (c) {
  case ENC_INT32: return (uint64_t)(int64_t)(int32_t)pbc_tbl_load32(p);
  case ENC_UINT32: return pbc_tbl_load32(p);
  case ENC_SINT32: return pbc_zigzag32((int32_t)pbc_tbl_load32(p));
  case ENC_SINT64: return pbc_zigzag64((int64_t)pbc_tbl_load64(p));
  case ENC_BOOL: return *p != 0;
  default: assert(c == ENC_VARINT64); return pbc_tbl_load64(p);
  }
}

/* The varint cases of a switch on enc_case: each loads its value into v
 * and breaks, so that they meet after the switch. One flat switch: a
 * switch on the case and then another in varint_value cost a second
 * dispatch per field. */
#define VARINT_CASES(v, p)                                                     \
  case ENC_INT32: v = varint_value(ENC_INT32, p); break;                       \
  case ENC_UINT32: v = varint_value(ENC_UINT32, p); break;                     \
  case ENC_VARINT64: v = varint_value(ENC_VARINT64, p); break;                 \
  case ENC_SINT32: v = varint_value(ENC_SINT32, p); break;                     \
  case ENC_SINT64: v = varint_value(ENC_SINT64, p); break;                     \
  case ENC_BOOL: v = varint_value(ENC_BOOL, p); break;

/* ---- Size --------------------------------------------------------------- */

static PBC_ALWAYS_INLINE size_t message_size(const pbc_message_desc *d,
                                             const uint8_t *m);

/* A field's tag word (pbc_message_desc.tags) and its tag's bytes. */
static PBC_ALWAYS_INLINE uint64_t tag_word(const pbc_message_desc *d,
                                           const pbc_field_desc *f) {
  return d->tags[f - d->fields];
}
static PBC_ALWAYS_INLINE size_t tag_word_size(uint64_t tag) {
  return (uint8_t)tag;
}

/* A sub-message's bytes with its tag (of tag_bytes): tag, length and
 * payload, or the two group tags around the payload. */
static size_t embedded_size(const pbc_field_desc *f, size_t tag_bytes,
                            const pbc_message_desc *sub, const uint8_t *s) {
  size_t n = message_size(sub, s);
  return tag_bytes + (f->type == PBC_TYPE_GROUP ? n + tag_bytes
                                                : length_delimited(n));
}

/* A scalar, string or bytes value's bytes with its tag (of tag_bytes). */
static PBC_ALWAYS_INLINE size_t value_field_size(const pbc_field_desc *f,
                                                 size_t tag_bytes,
                                                 const uint8_t *p) {
  uint64_t v;
  switch (enc_case(f)) {
  VARINT_CASES(v, p)
  case ENC_FIXED32: return tag_bytes + 4;
  case ENC_FIXED64: return tag_bytes + 8;
  default: return tag_bytes + length_delimited(pbc_tbl_load_view(p).size);
  }
  return tag_bytes + pbc_varint_size(v);
}

/* A packed run's varints' bytes, case c (a constant: one loop per case). */
static PBC_ALWAYS_INLINE size_t packed_varints_size(unsigned c, pbc_bytes v,
                                                    size_t stride) {
  size_t total = 0;
  for (size_t i = 0; i < v.size; i++)
    total += pbc_varint_size(varint_value(c, v.data + i * stride));
  return total;
}

/* A packed run's payload: fixed widths as stored, else each element's
 * varint. */
static PBC_NOINLINE size_t packed_size(const pbc_field_desc *f, pbc_bytes v,
                                       size_t stride) {
  unsigned c = enc_case(f);
  switch (c) {
  case ENC_FIXED32:
  case ENC_FIXED64: return v.size * stride;
  case ENC_INT32: return packed_varints_size(ENC_INT32, v, stride);
  case ENC_UINT32: return packed_varints_size(ENC_UINT32, v, stride);
  case ENC_SINT32: return packed_varints_size(ENC_SINT32, v, stride);
  case ENC_SINT64: return packed_varints_size(ENC_SINT64, v, stride);
  case ENC_BOOL: return v.size; /* one byte each */
  default:
    assert(c == ENC_VARINT64);
    return packed_varints_size(ENC_VARINT64, v, stride);
  }
}

static size_t repeated_size(const pbc_message_desc *d, const pbc_field_desc *f,
                            const uint8_t *m) {
  pbc_bytes v = pbc_tbl_load_view(m + f->offset);
  if (v.size == 0) return 0;
  size_t stride = pbc_tbl_value_bytes(d, f), total = 0;
  size_t tag_bytes = tag_word_size(tag_word(d, f));
  if (f->flags & PBC_FIELD_PACKED)
    return tag_bytes + length_delimited(packed_size(f, v, stride));
  if (pbc_tbl_is_message(f)) {
    const pbc_message_desc *sub = pbc_tbl_link_message(d, f);
    for (size_t i = 0; i < v.size; i++)
      total += embedded_size(f, tag_bytes, sub, v.data + i * stride);
    return total;
  }
  for (size_t i = 0; i < v.size; i++)
    total += value_field_size(f, tag_bytes, v.data + i * stride);
  return total;
}

/* The size of a field without a presence bit: repeated, messages, oneof
 * members, map entry fields (and proto3's scalars, which the walks test
 * inline first). */
static PBC_NOINLINE size_t other_size_slow(const pbc_message_desc *d,
                                           const pbc_field_desc *f,
                                           const uint8_t *m) {
  if (f->kind == PBC_FIELD_REPEATED) return repeated_size(d, f, m);
  size_t tag_bytes = tag_word_size(tag_word(d, f));
  if (pbc_tbl_is_message(f)) {
    if (pbc_tbl_is_set(d, f, m))
      return embedded_size(f, tag_bytes, pbc_tbl_link_message(d, f),
                           pbc_tbl_load_ptr(m + f->offset));
    if (d->flags & PBC_MESSAGE_MAP_ENTRY) /* an absent value: empty */
      return tag_bytes + (f->type == PBC_TYPE_GROUP ? tag_bytes : 1);
    return 0;
  }
  return pbc_tbl_is_set_other(d, f, m)
             ? value_field_size(f, tag_bytes, m + f->offset)
             : 0;
}

/* Whether a field without a presence bit is an empty repeated field or an
 * absent sub-message outside a map entry: the usual others (google_message2
 * passes four in each of its 1,000 group elements, each a call of the slow
 * path before this test), which write nothing. */
static PBC_ALWAYS_INLINE bool other_absent(const pbc_message_desc *d,
                                           const pbc_field_desc *f,
                                           const uint8_t *m) {
  const uint8_t *at = m + f->offset;
  if (f->kind == PBC_FIELD_REPEATED) return pbc_tbl_load_view(at).size == 0;
  return f->kind == PBC_FIELD_POINTER && pbc_tbl_load_ptr(at) == NULL &&
         !(d->flags & PBC_MESSAGE_MAP_ENTRY);
}

/* The size of a field without a presence bit, inline for the usual
 * others: nothing for an empty repeated field or an absent sub-message, a
 * present sub-message's without the slow path's call (about 30
 * instructions; google_message2's 1,000 group elements each hold one). */
static PBC_ALWAYS_INLINE size_t other_size(const pbc_message_desc *d,
                                           const pbc_field_desc *f,
                                           const uint8_t *m) {
  if (f->kind == PBC_FIELD_POINTER && !(d->flags & PBC_MESSAGE_MAP_ENTRY)) {
    const uint8_t *s = pbc_tbl_load_ptr(m + f->offset);
    return s ? embedded_size(f, tag_word_size(tag_word(d, f)),
                             pbc_tbl_link_message(d, f), s)
             : 0;
  }
  return other_absent(d, f, m) ? 0 : other_size_slow(d, f, m);
}

/* A slot's bytes (pbc/desc.h's `sizes`) by its rule, a constant: its
 * record's bytes, and a varint's or a string's. */
static PBC_ALWAYS_INLINE size_t slot_size(unsigned rule, uint32_t record,
                                          const uint8_t *m) {
  const uint8_t *p = m + (record >> 4);
  size_t bytes = record & 15;
  switch (rule) {
  case PBC_SIZE_INT32: return bytes + pbc_varint_size(varint_value(ENC_INT32, p));
  case PBC_SIZE_UINT32: return bytes + pbc_varint_size(varint_value(ENC_UINT32, p));
  case PBC_SIZE_VARINT64:
    return bytes + pbc_varint_size(varint_value(ENC_VARINT64, p));
  case PBC_SIZE_SINT32: return bytes + pbc_varint_size(varint_value(ENC_SINT32, p));
  case PBC_SIZE_SINT64: return bytes + pbc_varint_size(varint_value(ENC_SINT64, p));
  case PBC_SIZE_VIEW: return bytes + length_delimited(pbc_tbl_load_view(p).size);
  default: assert(rule == PBC_SIZE_FIXED); return bytes;
  }
}

/* total plus the bytes of the set slots of one group of 32 (its masks and
 * records) that follow one rule. */
static PBC_ALWAYS_INLINE size_t rule_size(unsigned rule, const uint32_t *masks,
                                          const uint32_t *records, uint32_t set,
                                          const uint8_t *m, size_t total) {
  for (uint32_t b = set & masks[rule]; b; b &= b - 1)
    total += slot_size(rule, records[__builtin_ctz(b)], m);
  return total;
}

/* total plus the bytes of a group's set slots, a loop per rule (the rare
 * ones behind one test): where a walk of the set slots switched on each
 * one's type (an indirect jump a field, about 28 instructions with the
 * lookups of its field and tag), a fixed-width field costs 8 and a varint
 * 17. */
static PBC_ALWAYS_INLINE size_t slots_size(const uint32_t *masks,
                                           const uint32_t *records,
                                           uint32_t set, const uint8_t *m,
                                           size_t total) {
  total = rule_size(PBC_SIZE_FIXED, masks, records, set, m, total);
  total = rule_size(PBC_SIZE_INT32, masks, records, set, m, total);
  total = rule_size(PBC_SIZE_VARINT64, masks, records, set, m, total);
  total = rule_size(PBC_SIZE_VIEW, masks, records, set, m, total);
  if (PBC_LIKELY(!(set & masks[PBC_SIZE_RARE]))) return total;
  total = rule_size(PBC_SIZE_UINT32, masks, records, set, m, total);
  total = rule_size(PBC_SIZE_SINT32, masks, records, set, m, total);
  return rule_size(PBC_SIZE_SINT64, masks, records, set, m, total);
}

/* The unknown fields' bytes, which a size counts first. */
static PBC_ALWAYS_INLINE size_t unknown_size(const pbc_message_desc *d,
                                             const uint8_t *m) {
  return d->unknown_offset != PBC_NO_UNKNOWN_FIELDS
             ? pbc_tbl_load_view(m + d->unknown_offset).size
             : 0;
}

/* A message with `sizes` (presence bits, or by_byte): the set slots (a BIT
 * field is a scalar, string or bytes; with by_byte, the present IMPLICIT
 * fields), then the other fields. A size needs no order. */
static PBC_NOINLINE size_t slots_message_size(const pbc_message_desc *d,
                                              const uint8_t *m) {
  size_t total = unknown_size(d, m);
  const pbc_field_desc *fields = d->fields;
  const uint32_t *sizes = d->sizes;
  if (d->by_byte) { /* proto3: the present fields only */
    assert(d->field_count < 64);
    uint64_t present = pbc_tbl_present_fields(d, m);
    uint32_t groups = (d->field_count + 31) / 32;
    const uint32_t *records = sizes + pbc_sizes_mask_words(d->field_count);
    for (uint32_t w = 0; w < groups; w++) {
      const uint32_t *masks = sizes + w * PBC_SIZE_MASKS;
      uint32_t set = (uint32_t)(present >> (32 * w));
      total = slots_size(masks, records + 32 * w, set, m, total);
      for (uint32_t o = set & ~masks[PBC_SIZE_SIZED]; o; o &= o - 1)
        total += other_size(d, &fields[32 * w + (uint32_t)__builtin_ctz(o)], m);
    }
    return total;
  }
  uint32_t groups = (d->bit_count + 31u) / 32;
  const uint32_t *records = sizes + pbc_sizes_mask_words(d->bit_count);
  for (uint32_t w = 0; w < groups; w++)
    total = slots_size(sizes + w * PBC_SIZE_MASKS, records + 32 * w,
                       pbc_tbl_load32(m + w * 4), m, total);
  for (uint32_t o = 0; o < d->other_count; o++)
    total += other_size(d, &fields[d->others[o]], m);
  return total;
}

/* A message without `sizes` (every field an other: proto3 without
 * by_byte), field by field. Apart from the slots' walk, whose registers
 * and spills its small messages (a map entry's two strings) would pay. */
static PBC_NOINLINE size_t fields_message_size(const pbc_message_desc *d,
                                               const uint8_t *m) {
  assert(d->bit_count == 0);
  size_t total = unknown_size(d, m);
  const pbc_field_desc *fields = d->fields;
  const uint64_t *tags = d->tags;
  for (uint32_t i = 0; i < d->field_count; i++) {
    /* An absent field passed at its first test (as in message_enc): most
     * of a proto3 message's fields are absent. */
    const pbc_field_desc *f = &fields[i];
    const uint8_t *at = m + f->offset;
    if (PBC_LIKELY(f->zero_test != PBC_ZERO_TEST_NONE)) { /* IMPLICIT */
      if (pbc_tbl_implicit_set(f, at))
        total += value_field_size(f, tag_word_size(tags[i]), at);
    } else if (!other_absent(d, f, m)) {
      total += other_size_slow(d, f, m);
    }
  }
  return total;
}

static PBC_ALWAYS_INLINE size_t message_size(const pbc_message_desc *d,
                                             const uint8_t *m) {
  return d->sizes ? slots_message_size(d, m) : fields_message_size(d, m);
}

PBC_NOINLINE size_t pbc_table_encoded_size(const pbc_message_desc *d,
                                           const void *m) {
  return message_size(d, (const uint8_t *)m);
}

/* ---- Encode, backwards --------------------------------------------------
 * The fast paths store whole words ending at the position (a varint of up
 * to 8 bytes is one 8-byte store, see varint_back.h), so they need SLOP
 * bytes of room below it besides a string's bytes: a value of at most 10
 * bytes, then a tag stored as a word below it. Near the limit a field's
 * exact size is checked and its bytes stored one by one. */
enum { SLOP = 2 * PBC_MAX_VARINT_BYTES };

/* Whether n bytes fit below pos. (As a compare of pos with limit + n,
 * hoisted, it took 2 instructions fewer a field and 5% more time on
 * google_message1.) */
static PBC_ALWAYS_INLINE bool room(const uint8_t *pos, const uint8_t *limit,
                                   size_t n) {
  return (size_t)(pos - limit) >= n;
}

/* A tag word (pbc_message_desc.tags) stored ending at pos: 8 bytes below
 * it written (slack). */
static PBC_ALWAYS_INLINE uint8_t *tag_word_back(uint8_t *pos, uint64_t tag) {
  pbc__store_le64(pos - 8, tag);
  return pos - tag_word_size(tag);
}

/* The writers below take `slack`, a constant: true, they may store below
 * what they write (SLOP bytes of room); false, they store exactly their
 * bytes (near the limit). */
static PBC_ALWAYS_INLINE uint8_t *varint_back(uint8_t *pos, uint64_t v,
                                              bool slack) {
  if (PBC_LIKELY(v < 0x80)) {
    *--pos = (uint8_t)v;
    return pos;
  }
  if (v < 0x4000) { /* tags of fields 16 to 2047, most lengths */
    pos -= 2;
    pos[0] = (uint8_t)(v | 0x80);
    pos[1] = (uint8_t)(v >> 7);
    return pos;
  }
  return slack ? pbc_rt_varint_back_slack(pos, v) : pbc_rt_varint_back(pos, v);
}

static PBC_ALWAYS_INLINE uint8_t *tag_back(uint8_t *pos,
                                           const pbc_field_desc *f,
                                           pbc_wire_type wt, bool slack) {
  return varint_back(pos, pbc_make_tag(f->number, wt), slack);
}

/* n bytes ending at pos, none below them: word moves up to 32 bytes, no
 * call. */
static PBC_ALWAYS_INLINE uint8_t *data_back(uint8_t *pos, const uint8_t *s,
                                            size_t n) {
  pos -= n;
  if (n > 32) {
    memcpy(pos, s, n);
  } else if (n >= 4) {
    pbc__copy_small(pos, s, n); /* exact from 4 bytes on */
  } else if (n > 0) {
    pos[0] = s[0];
    pos[n / 2] = s[n / 2];
    pos[n - 1] = s[n - 1];
  }
  return pos;
}

/* A packed element (no tag): a varint case's or a bool's. */
static PBC_ALWAYS_INLINE uint8_t *element_back(uint8_t *pos, unsigned c,
                                               const uint8_t *p, bool slack) {
  return varint_back(pos, varint_value(c, p), slack);
}

static PBC_NOINLINE uint8_t *put_value_tight(uint8_t *pos, uint8_t *limit,
                                             const pbc_field_desc *f,
                                             const uint8_t *p);

/* A scalar, string or bytes value with its tag. `slack` (a constant): the
 * fast form, whose room check is made in the value's case (SLOP bytes
 * below pos, and a string's), so that the type is dispatched on once, and
 * which leaves the field to put_value_tight where it fails; without it, the
 * exact stores of put_value_tight, its room checked before. */
static PBC_ALWAYS_INLINE uint8_t *value_back(uint8_t *pos, uint8_t *limit,
                                             const pbc_field_desc *f,
                                             uint64_t tag, const uint8_t *p,
                                             bool slack) {
  uint64_t v;
  pbc_wire_type wt;
  switch (enc_case(f)) {
  VARINT_CASES(v, p)
  case ENC_FIXED32:
    if (slack && PBC_UNLIKELY(!room(pos, limit, SLOP))) goto tight;
    pos -= 4;
    memcpy(pos, p, 4);
    wt = PBC_WIRE_FIXED32;
    goto tag;
  case ENC_FIXED64:
    if (slack && PBC_UNLIKELY(!room(pos, limit, SLOP))) goto tight;
    pos -= 8;
    memcpy(pos, p, 8);
    wt = PBC_WIRE_FIXED64;
    goto tag;
  default: {
    pbc_bytes b = pbc_tbl_load_view(p);
    if (slack && PBC_UNLIKELY(!room(pos, limit, SLOP + b.size))) goto tight;
    pos = varint_back(data_back(pos, b.data, b.size), b.size, slack);
    wt = PBC_WIRE_LEN;
    goto tag;
  }
  }
  if (slack && PBC_UNLIKELY(!room(pos, limit, SLOP))) goto tight;
  pos = varint_back(pos, v, slack);
  wt = PBC_WIRE_VARINT;
tag:
  /* Its word (8 bytes below pos: SLOP holds a value of 10 and it) with
   * slack, else computed from its number. */
  return slack ? tag_word_back(pos, tag) : tag_back(pos, f, wt, false);
tight:
  return put_value_tight(pos, limit, f, p);
}

/* A present scalar, string or bytes value with its tag near the limit: its
 * exact size checked, its exact bytes stored (an exactly sized buffer's
 * first fields come here). */
static PBC_NOINLINE uint8_t *put_value_tight(uint8_t *pos, uint8_t *limit,
                                             const pbc_field_desc *f,
                                             const uint8_t *p) {
  if (!room(pos, limit, value_field_size(f, tag_size(f), p))) return NULL;
  return value_back(pos, limit, f, 0, p, false);
}

/* A present scalar, string or bytes value with its tag. */
static PBC_ALWAYS_INLINE uint8_t *put_value(uint8_t *pos, uint8_t *limit,
                                            const pbc_field_desc *f,
                                            uint64_t tag, const uint8_t *p) {
  return value_back(pos, limit, f, tag, p, true);
}

/* A group's END_GROUP tag word, from its START_GROUP one: the wire type
 * is in the tag's first byte, 3 to 4 without a carry. */
static PBC_ALWAYS_INLINE uint64_t end_group_word(uint64_t start) {
  return start + (UINT64_C(1) << (64 - 8 * tag_word_size(start)));
}

/* A tag (its word), and before it (below it in memory: after it on the
 * wire) nothing else: the group tags. */
static uint8_t *put_tag(uint8_t *pos, uint8_t *limit,
                        const pbc_field_desc *f, uint64_t tag,
                        pbc_wire_type wt) {
  if (PBC_LIKELY(room(pos, limit, SLOP))) return tag_word_back(pos, tag);
  return room(pos, limit, tag_word_size(tag)) ? tag_back(pos, f, wt, false)
                                              : NULL;
}

/* A length-delimited field's tag (its word) and length in front of its
 * payload. */
static uint8_t *put_length_tag(uint8_t *pos, uint8_t *limit,
                               const pbc_field_desc *f, uint64_t tag,
                               size_t n) {
  if (PBC_LIKELY(room(pos, limit, SLOP)))
    return tag_word_back(varint_back(pos, n, true), tag);
  if (!room(pos, limit, tag_word_size(tag) + pbc_varint_size(n))) return NULL;
  return tag_back(varint_back(pos, n, false), f, PBC_WIRE_LEN, false);
}

static uint8_t *message_enc(const pbc_message_desc *d, const uint8_t *m,
                            uint8_t *pos, uint8_t *limit);
static PBC_NOINLINE uint8_t *present_enc(const pbc_message_desc *d,
                                         const uint8_t *m, uint8_t *pos,
                                         uint8_t *limit);

/* A message's bytes below pos, by the walk its description allows: over
 * the present fields found from by_byte, or field by field. */
static PBC_ALWAYS_INLINE uint8_t *fields_enc(const pbc_message_desc *d,
                                             const uint8_t *m, uint8_t *pos,
                                             uint8_t *limit) {
  return d->by_byte ? present_enc(d, m, pos, limit)
                    : message_enc(d, m, pos, limit);
}

/* A sub-message with its tag and length (or its group tags). */
static PBC_ALWAYS_INLINE uint8_t *put_embedded(uint8_t *pos, uint8_t *limit,
                             const pbc_field_desc *f, uint64_t tag,
                             const pbc_message_desc *sub, const uint8_t *s) {
  if (f->type == PBC_TYPE_GROUP) {
    pos = put_tag(pos, limit, f, end_group_word(tag), PBC_WIRE_END_GROUP);
    if (pos) pos = fields_enc(sub, s, pos, limit);
    return pos ? put_tag(pos, limit, f, tag, PBC_WIRE_START_GROUP) : NULL;
  }
  uint8_t *end = pos;
  pos = fields_enc(sub, s, pos, limit);
  return pos ? put_length_tag(pos, limit, f, tag, (size_t)(end - pos)) : NULL;
}

/* A packed run's varints, case c (a constant: one loop per case, no
 * dispatch per element). */
static PBC_ALWAYS_INLINE uint8_t *packed_varints(uint8_t *pos, uint8_t *limit,
                                                 unsigned c, pbc_bytes v,
                                                 size_t stride) {
  for (size_t i = v.size; i-- > 0;) {
    const uint8_t *e = v.data + i * stride;
    if (PBC_LIKELY(room(pos, limit, SLOP))) {
      pos = element_back(pos, c, e, true);
      continue;
    }
    if (!room(pos, limit, pbc_varint_size(varint_value(c, e)))) return NULL;
    pos = element_back(pos, c, e, false);
  }
  return pos;
}

/* A packed run's elements, without the tag and length. Out of line: its
 * loops want the registers the field walk holds. */
static PBC_NOINLINE uint8_t *put_packed(uint8_t *pos, uint8_t *limit,
                                        const pbc_field_desc *f, pbc_bytes v,
                                        size_t stride) {
  unsigned c = enc_case(f);
  switch (c) {
  case ENC_FIXED32:
  case ENC_FIXED64: { /* as stored, little-endian */
    size_t n = v.size * stride;
    return room(pos, limit, n) ? data_back(pos, v.data, n) : NULL;
  }
  case ENC_INT32: return packed_varints(pos, limit, ENC_INT32, v, stride);
  case ENC_UINT32: return packed_varints(pos, limit, ENC_UINT32, v, stride);
  case ENC_SINT32: return packed_varints(pos, limit, ENC_SINT32, v, stride);
  case ENC_SINT64: return packed_varints(pos, limit, ENC_SINT64, v, stride);
  case ENC_BOOL: return packed_varints(pos, limit, ENC_BOOL, v, stride);
  default:
    assert(c == ENC_VARINT64);
    return packed_varints(pos, limit, ENC_VARINT64, v, stride);
  }
}

static uint8_t *put_repeated(uint8_t *pos, uint8_t *limit,
                             const pbc_message_desc *d,
                             const pbc_field_desc *f, const uint8_t *m) {
  pbc_bytes v = pbc_tbl_load_view(m + f->offset);
  if (v.size == 0) return pos;
  size_t stride = pbc_tbl_value_bytes(d, f);
  uint64_t tag = tag_word(d, f);
  if (f->flags & PBC_FIELD_PACKED) {
    uint8_t *end = pos;
    pos = put_packed(pos, limit, f, v, stride);
    return pos ? put_length_tag(pos, limit, f, tag, (size_t)(end - pos)) : NULL;
  }
  if (pbc_tbl_is_message(f)) { /* elements are structs in place */
    const pbc_message_desc *sub = pbc_tbl_link_message(d, f);
    for (size_t i = v.size; i-- > 0 && pos;)
      pos = put_embedded(pos, limit, f, tag, sub, v.data + i * stride);
    return pos;
  }
  for (size_t i = v.size; i-- > 0 && pos;)
    pos = put_value(pos, limit, f, tag, v.data + i * stride);
  return pos;
}

/* A field without a presence bit: repeated, messages, oneof members, map
 * entry fields (and proto3's scalars, which the walks test inline first). */
static PBC_NOINLINE uint8_t *put_other_slow(uint8_t *pos,
                                            uint8_t *limit,
                                            const pbc_message_desc *d,
                                            const pbc_field_desc *f,
                                            const uint8_t *m) {
  if (f->kind == PBC_FIELD_REPEATED) return put_repeated(pos, limit, d, f, m);
  uint64_t tag = tag_word(d, f);
  if (pbc_tbl_is_message(f)) {
    if (pbc_tbl_is_set(d, f, m))
      return put_embedded(pos, limit, f, tag, pbc_tbl_link_message(d, f),
                          pbc_tbl_load_ptr(m + f->offset));
    if (!(d->flags & PBC_MESSAGE_MAP_ENTRY)) return pos;
    /* A map entry's absent value: an empty message. */
    if (f->type == PBC_TYPE_GROUP) {
      pos = put_tag(pos, limit, f, end_group_word(tag), PBC_WIRE_END_GROUP);
      return pos ? put_tag(pos, limit, f, tag, PBC_WIRE_START_GROUP) : NULL;
    }
    return put_length_tag(pos, limit, f, tag, 0);
  }
  return pbc_tbl_is_set_other(d, f, m)
             ? put_value(pos, limit, f, tag, m + f->offset)
             : pos;
}

/* A message with extension ranges and unknown fields: field by field,
 * highest number first, each range's extensions written where its numbers
 * fall among the fields and the other unknown fields last
 * (pbc_rt_put_unknown_part). */
static PBC_NOINLINE uint8_t *extendable_enc(const pbc_message_desc *d,
                                            const uint8_t *m, pbc_bytes u,
                                            uint8_t *pos,
                                            uint8_t *limit) {
  uint32_t k = d->ext_range_count;
  pos = pbc_rt_put_unknown_part(d, u.data, u.size, k, pos, limit);
  for (uint32_t i = d->field_count; i-- > 0 && pos;) {
    const pbc_field_desc *f = &d->fields[i];
    for (; k > 0 && d->ext_ranges[2 * (k - 1)] > f->number && pos; k--)
      pos = pbc_rt_put_unknown_part(d, u.data, u.size, k - 1, pos, limit);
    if (pos == NULL) break;
    if (f->kind != PBC_FIELD_BIT) pos = put_other_slow(pos, limit, d, f, m);
    else if (pbc_tbl_is_set(d, f, m))
      pos = put_value(pos, limit, f, d->tags[i], m + f->offset);
  }
  for (; k > 0 && pos; k--)
    pos = pbc_rt_put_unknown_part(d, u.data, u.size, k - 1, pos, limit);
  return pos;
}

/* A message with by_byte: message_enc's work (the unknown fields first,
 * as there) over its present fields only, highest first. Apart from
 * message_enc (fields_enc chooses), whose code is then what it was: a
 * test of by_byte in it moved its google_message1 proto2 encode from 81 to
 * 96 ns, as many instructions, 2 more a message. */
static PBC_NOINLINE uint8_t *present_enc(const pbc_message_desc *d,
                                         const uint8_t *m, uint8_t *pos,
                                         uint8_t *limit) {
  /* (Not a map entry, which alone keeps no unknown fields: its key is an
   * ALWAYS field.) */
  assert(d->unknown_offset != PBC_NO_UNKNOWN_FIELDS);
  pbc_bytes u = pbc_tbl_load_view(m + d->unknown_offset);
  if (u.size && d->ext_range_count) return extendable_enc(d, m, u, pos, limit);
  if (u.size && !room(pos, limit, u.size)) return NULL;
  pos = data_back(pos, u.data, u.size);
  const pbc_field_desc *fields = d->fields;
  const uint64_t *tags = d->tags;
  for (uint64_t bits = pbc_tbl_present_fields(d, m); bits;) {
    uint32_t i = 63 - (uint32_t)__builtin_clzll(bits);
    bits ^= UINT64_C(1) << i;
    const pbc_field_desc *f = &fields[i];
    pos = f->zero_test != PBC_ZERO_TEST_NONE
              ? put_value(pos, limit, f, tags[i], m + f->offset)
              : put_other_slow(pos, limit, d, f, m);
    if (pos == NULL) return NULL;
  }
  return pos;
}

/* Backwards, highest number first. A proto3 message's fields are all
 * others: each is tested. Otherwise the walk goes down the set bits of
 * _presence[], from the top word, which follow field numbers
 * (ProtoLayout.cpp): by_bit gives each one's field, and the others (the
 * fields without a bit, ascending in others[]) above that field are written
 * before it, one compare a set field. Absent fields with a bit cost
 * nothing. */
static uint8_t *message_enc(const pbc_message_desc *d, const uint8_t *m,
                            uint8_t *pos, uint8_t *limit) {
  if (d->unknown_offset != PBC_NO_UNKNOWN_FIELDS) {
    pbc_bytes u = pbc_tbl_load_view(m + d->unknown_offset);
    if (u.size && d->ext_range_count)
      return extendable_enc(d, m, u, pos, limit);
    if (u.size) {
      if (!room(pos, limit, u.size)) return NULL;
      pos = data_back(pos, u.data, u.size);
    }
  }
  /* Read once: the stores through pos may alias the description, as far
   * as the compiler knows, so each field would load them again. */
  const pbc_field_desc *fields = d->fields;
  const uint64_t *tags = d->tags;
  if (d->bit_count == 0) { /* every field is an other: no indirection */
    assert(d->other_count == d->field_count);
    for (uint32_t i = d->field_count; i-- > 0;) {
      /* An absent field passed before the test of the position: most of
       * a proto3 message's fields are absent. */
      const pbc_field_desc *f = &fields[i];
      const uint8_t *at = m + f->offset;
      if (PBC_LIKELY(f->zero_test != PBC_ZERO_TEST_NONE)) { /* IMPLICIT */
        if (!pbc_tbl_implicit_set(f, at)) continue;
        pos = put_value(pos, limit, f, tags[i], at);
      } else {
        if (other_absent(d, f, m)) continue;
        pos = put_other_slow(pos, limit, d, f, m);
      }
      if (pos == NULL) return NULL;
    }
    return pos;
  }
  const uint16_t *by_bit = d->by_bit, *others = d->others;
  uint32_t o = d->other_count;
  /* The index of the next other to write; -1 when none is left. */
  int32_t next = o ? others[o - 1] : -1;
  for (uint32_t w = (d->bit_count + 31u) / 32; w-- > 0;) {
    const uint16_t *word_fields = by_bit + w * 32;
    for (uint32_t bits = pbc_tbl_load32(m + w * 4); bits;) {
      uint32_t high = 31 - (uint32_t)__builtin_clz(bits);
      bits ^= UINT32_C(1) << high;
      assert(w * 32 + high < d->bit_count && word_fields[high] != PBC_NO_FIELD);
      uint32_t i = word_fields[high];
      /* The others above field i; out of line but for the absent ones
       * (inline, their writes keep registers from this loop). */
      while (next > (int32_t)i) {
        const pbc_field_desc *g = &fields[next];
        if (!other_absent(d, g, m)) {
          pos = put_other_slow(pos, limit, d, g, m);
          if (pos == NULL) return NULL;
        }
        next = --o ? others[o - 1] : -1;
      }
      const pbc_field_desc *f = &fields[i];
      pos = put_value(pos, limit, f, tags[i], m + f->offset);
      if (pos == NULL) return NULL;
    }
  }
  while (o > 0) {
    const pbc_field_desc *g = &fields[others[--o]];
    if (other_absent(d, g, m)) continue;
    pos = put_other_slow(pos, limit, d, g, m);
    if (pos == NULL) return NULL;
  }
  return pos;
}

/* Spans of up to SCRATCH bytes are encoded in a scratch buffer with SLOP
 * bytes below the span, then copied to it. An exactly sized buffer's first
 * SLOP bytes are written last, and there each field would check its exact
 * size and store byte by byte (put_value_tight: about 60 instructions a
 * field, five fields of google_message1); in the scratch every field takes
 * the fast path, for one copy of the bytes. Larger spans keep the tight
 * path, whose cost stays the same while the copy's would grow. */
enum { SCRATCH = 512 };

static uint8_t *encode_span(const pbc_message_desc *d, const uint8_t *m,
                            uint8_t *end, uint8_t *limit) {
  size_t cap = (size_t)(end - limit);
  if (cap > SCRATCH) return fields_enc(d, m, end, limit);
  uint8_t scratch[SLOP + SCRATCH];
  uint8_t *top = scratch + SLOP + cap;
  /* Its limit is the scratch's start: the room checks then test the bytes
   * against the span (SLOP + n below the position means n in the span),
   * and the slack stores land in the scratch below it. What takes more
   * than the span ends up below scratch + SLOP: it did not fit. */
  uint8_t *first = fields_enc(d, m, top, scratch);
  if (first == NULL || first < scratch + SLOP) return NULL;
  size_t n = (size_t)(top - first);
  memcpy(end - n, first, n);
  return end - n;
}

PBC_NOINLINE uint8_t *
pbc_table_encode_backwards(const pbc_message_desc *d, const void *m,
                           uint8_t *end, uint8_t *limit) {
  return encode_span(d, (const uint8_t *)m, end, limit);
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
  switch (enc_case(f)) {
  case ENC_FIXED64: pbc_writer_write(w, p, 8); break;
  case ENC_FIXED32: pbc_writer_write(w, p, 4); break;
  default: pbc_writer_write_varint(w, varint_value(enc_case(f), p)); break;
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
    write_tag(w, f, PBC_WIRE_LEN);
    pbc_writer_write_varint(w, packed_size(f, v, stride));
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
  pbc_bytes u = {NULL, 0};
  if (d->unknown_offset != PBC_NO_UNKNOWN_FIELDS)
    u = pbc_tbl_load_view(m + d->unknown_offset);
  /* The encoder's order: each range's extensions before the first field
   * above it. */
  uint32_t k = u.size ? 0 : d->ext_range_count;
  for (uint32_t i = 0; i < d->field_count; i++) {
    const pbc_field_desc *f = &d->fields[i];
    for (; k < d->ext_range_count && d->ext_ranges[2 * k] < f->number; k++)
      pbc_rt_write_unknown_part(d, u.data, u.size, k, w);
    if (f->kind == PBC_FIELD_REPEATED) {
      write_repeated(w, d, f, m);
    } else if (pbc_tbl_is_set(d, f, m)) {
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
  if (d->ext_range_count == 0) {
    pbc_writer_write(w, u.data, u.size);
    return;
  }
  for (; k < d->ext_range_count; k++)
    pbc_rt_write_unknown_part(d, u.data, u.size, k, w);
  pbc_rt_write_unknown_part(d, u.data, u.size, k, w);
}

static void write_message(const pbc_message_desc *d, const uint8_t *m,
                          pbc_writer *w, size_t size) {
  uint8_t *room = pbc_writer_reserve(w, size);
  if (room == NULL) {
    write_fields(d, m, w);
    return;
  }
  /* Sized exactly, so it cannot fail. */
  uint8_t *start = encode_span(d, m, room + size, room);
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
