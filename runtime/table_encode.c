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
static uint64_t wire_value(const pbc_field_desc *f, const uint8_t *p) {
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

/* Bytes a scalar value takes on the wire, without its tag. */
static size_t scalar_size(const pbc_field_desc *f, const uint8_t *p) {
  switch (pbc_tbl_wire_type(f)) {
  case PBC_WIRE_FIXED64: return 8;
  case PBC_WIRE_FIXED32: return 4;
  default: return pbc_varint_size(wire_value(f, p));
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
  default: /* implicit: not zero (floats by their bits), not empty */
    if (pbc_tbl_is_view(f)) return pbc_tbl_load_view(at).size != 0;
    switch (pbc_field_value_bytes(d, f)) {
    case 1: return *at != 0;
    case 4: return pbc_tbl_load32(at) != 0;
    default: return pbc_tbl_load64(at) != 0;
    }
  }
}

/* Whether a singular field is written. Presence bits first and inline:
 * most fields of a proto2 message are absent, and a clear bit is all it
 * takes to pass one. */
static inline bool is_present(const pbc_message_desc *d,
                              const pbc_field_desc *f, const uint8_t *m) {
  if (f->kind == PBC_FIELD_BIT)
    return pbc_tbl_has_bit(f, m);
  return is_present_other(d, f, m);
}

static size_t tag_size(const pbc_field_desc *f) {
  return pbc_varint_size(pbc_make_tag(f->number, PBC_WIRE_VARINT));
}

static size_t length_delimited(size_t n) { return pbc_varint_size(n) + n; }

/* ---- Size --------------------------------------------------------------- */

static size_t message_size(const pbc_message_desc *d, const uint8_t *m);

/* A sub-message's bytes after its tag: length and payload, or payload and
 * END_GROUP tag. */
static size_t embedded_size(const pbc_field_desc *f,
                            const pbc_message_desc *sub, const uint8_t *s) {
  size_t n = message_size(sub, s);
  return f->type == PBC_TYPE_GROUP ? n + tag_size(f) : length_delimited(n);
}

static size_t value_size(const pbc_field_desc *f, const uint8_t *p) {
  if (pbc_tbl_is_view(f)) return length_delimited(pbc_tbl_load_view(p).size);
  return scalar_size(f, p);
}

static size_t repeated_size(const pbc_message_desc *d, const pbc_field_desc *f,
                            const uint8_t *m) {
  pbc_bytes v = pbc_tbl_load_view(m + f->offset);
  if (v.size == 0) return 0;
  size_t stride = pbc_field_value_bytes(d, f), total = 0;
  if (f->flags & PBC_FIELD_PACKED) {
    for (size_t i = 0; i < v.size; i++) total += scalar_size(f, v.data + i * stride);
    return tag_size(f) + length_delimited(total);
  }
  const pbc_message_desc *sub = pbc_tbl_is_message(f) ? pbc_tbl_link_message(d, f) : NULL;
  for (size_t i = 0; i < v.size; i++) {
    const uint8_t *e = v.data + i * stride;
    total += sub ? embedded_size(f, sub, e) : value_size(f, e);
  }
  return total + v.size * tag_size(f);
}

static size_t message_size(const pbc_message_desc *d, const uint8_t *m) {
  size_t total = 0;
  if (d->unknown_offset != PBC_NO_UNKNOWN_FIELDS)
    total += pbc_tbl_load_view(m + d->unknown_offset).size;
  bool entry = d->flags & PBC_MESSAGE_MAP_ENTRY;
  for (uint32_t i = 0; i < d->field_count; i++) {
    const pbc_field_desc *f = &d->fields[i];
    if (f->kind == PBC_FIELD_REPEATED) {
      total += repeated_size(d, f, m);
    } else if (pbc_tbl_is_message(f)) {
      if (is_present(d, f, m))
        total += tag_size(f) +
                 embedded_size(f, pbc_tbl_link_message(d, f), pbc_tbl_load_ptr(m + f->offset));
      else if (entry) /* an absent value: an empty message */
        total += tag_size(f) + (f->type == PBC_TYPE_GROUP ? tag_size(f) : 1);
    } else if (is_present(d, f, m)) {
      total += tag_size(f) + value_size(f, m + f->offset);
    }
  }
  return total;
}

PBC_NOINLINE size_t pbc_table_encoded_size(const pbc_message_desc *d,
                                           const void *m) {
  return message_size(d, (const uint8_t *)m);
}

/* ---- Encode, backwards ---------------------------------------------------- */

/* Room for n bytes below pos, above limit; a NULL limit: the caller
 * guarantees the room (pbc__T_enc's unchecked form). */
static bool room(const uint8_t *pos, const uint8_t *limit, size_t n) {
  return limit == NULL || (size_t)(pos - limit) >= n;
}

static uint8_t *put_varint(uint8_t *pos, const uint8_t *limit, uint64_t v) {
  if (!room(pos, limit, pbc_varint_size(v))) return NULL;
  return pbc_rt_put_varint(pos, v);
}

static uint8_t *put_tag(uint8_t *pos, const uint8_t *limit,
                        const pbc_field_desc *f, pbc_wire_type wt) {
  return put_varint(pos, limit, pbc_make_tag(f->number, wt));
}

static uint8_t *put_data(uint8_t *pos, const uint8_t *limit, const void *data,
                         size_t n) {
  if (!room(pos, limit, n)) return NULL;
  pos -= n;
  if (n) memcpy(pos, data, n);
  return pos;
}

/* A scalar value without its tag. */
static uint8_t *put_scalar(uint8_t *pos, const uint8_t *limit,
                           const pbc_field_desc *f, const uint8_t *p) {
  switch (pbc_tbl_wire_type(f)) {
  case PBC_WIRE_FIXED64: return put_data(pos, limit, p, 8);
  case PBC_WIRE_FIXED32: return put_data(pos, limit, p, 4);
  default: return put_varint(pos, limit, wire_value(f, p));
  }
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

/* One value (or element) with its tag. */
static uint8_t *put_value(uint8_t *pos, const uint8_t *limit,
                          const pbc_message_desc *d, const pbc_field_desc *f,
                          const uint8_t *p) {
  if (pbc_tbl_is_message(f)) return put_embedded(pos, limit, f, pbc_tbl_link_message(d, f), pbc_tbl_load_ptr(p));
  if (pbc_tbl_is_view(f)) {
    pbc_bytes v = pbc_tbl_load_view(p);
    pos = put_data(pos, limit, v.data, v.size);
    if (pos) pos = put_varint(pos, limit, v.size);
  } else {
    pos = put_scalar(pos, limit, f, p);
  }
  return pos ? put_tag(pos, limit, f, pbc_tbl_wire_type(f)) : NULL;
}

static uint8_t *put_repeated(uint8_t *pos, const uint8_t *limit,
                             const pbc_message_desc *d,
                             const pbc_field_desc *f, const uint8_t *m) {
  pbc_bytes v = pbc_tbl_load_view(m + f->offset);
  if (v.size == 0) return pos;
  size_t stride = pbc_field_value_bytes(d, f);
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
    pos = sub ? put_embedded(pos, limit, f, sub, e) : put_value(pos, limit, d, f, e);
  }
  return pos;
}

static uint8_t *message_enc(const pbc_message_desc *d, const uint8_t *m,
                            uint8_t *pos, const uint8_t *limit) {
  if (d->unknown_offset != PBC_NO_UNKNOWN_FIELDS) {
    pbc_bytes u = pbc_tbl_load_view(m + d->unknown_offset);
    pos = put_data(pos, limit, u.data, u.size);
  }
  bool entry = d->flags & PBC_MESSAGE_MAP_ENTRY;
  for (uint32_t i = d->field_count; i-- > 0 && pos;) {
    const pbc_field_desc *f = &d->fields[i];
    if (f->kind == PBC_FIELD_REPEATED) {
      pos = put_repeated(pos, limit, d, f, m);
    } else if (is_present(d, f, m)) {
      pos = put_value(pos, limit, d, f, m + f->offset);
    } else if (entry && pbc_tbl_is_message(f)) { /* an absent value: empty */
      if (f->type == PBC_TYPE_GROUP) {
        pos = put_tag(pos, limit, f, PBC_WIRE_END_GROUP);
        if (pos) pos = put_tag(pos, limit, f, PBC_WIRE_START_GROUP);
      } else {
        pos = put_varint(pos, limit, 0);
        if (pos) pos = put_tag(pos, limit, f, PBC_WIRE_LEN);
      }
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
  size_t stride = pbc_field_value_bytes(d, f);
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
