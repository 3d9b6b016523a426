/* What the table-driven codec (table_encode.c, table_decode.c) reads from a
 * message's description (pbc/desc.h) and from the structs it describes.
 * Not a user API. */
#ifndef PBC_TABLE_INTERNAL_H
#define PBC_TABLE_INTERNAL_H

#include <string.h>

#include "pbc_rt.h"

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

/* The wire type a field's values are written with (a packed run: LEN). */
static inline pbc_wire_type pbc_tbl_wire_type(const pbc_field_desc *f) {
  switch (f->type) {
  case PBC_TYPE_DOUBLE: case PBC_TYPE_FIXED64: case PBC_TYPE_SFIXED64:
    return PBC_WIRE_FIXED64;
  case PBC_TYPE_FLOAT: case PBC_TYPE_FIXED32: case PBC_TYPE_SFIXED32:
    return PBC_WIRE_FIXED32;
  case PBC_TYPE_STRING: case PBC_TYPE_BYTES: case PBC_TYPE_MESSAGE:
    return PBC_WIRE_LEN;
  case PBC_TYPE_GROUP:
    return PBC_WIRE_START_GROUP;
  default:
    return PBC_WIRE_VARINT;
  }
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

/* A PBC_FIELD_BIT field's presence bit in `_presence[]` at the struct's
 * start. */
static inline bool pbc_tbl_has_bit(const pbc_field_desc *f, const uint8_t *m) {
  return (pbc_tbl_load32(m + f->presence / 32 * 4) >> (f->presence % 32)) & 1;
}

#endif /* PBC_TABLE_INTERNAL_H */
