/* The protobuf wire format, defined once for all of pbc: the runtime, the
 * headers pbc generates and pbc's compiler itself (which includes this file
 * to compute the tags and sizes it folds into the generated code).
 *
 * A record on the wire is a tag, the varint (field_number << 3 | wire
 * type), followed by the value its wire type says: a varint, 8 or 4
 * little-endian bytes, a varint length and that many bytes, or (groups)
 * the fields up to an END_GROUP tag of the same number. Varints hold 7
 * bits a byte, least significant first, the high bit set on every byte but
 * the last.
 *
 * Plain C11, no dependencies beyond <stdint.h>. */
#ifndef PBC_WIRE_TYPES_H
#define PBC_WIRE_TYPES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pbc_wire_type {
  PBC_WIRE_VARINT = 0,
  PBC_WIRE_FIXED64 = 1,
  PBC_WIRE_LEN = 2, /* length-delimited: strings, bytes, messages, packed runs */
  PBC_WIRE_START_GROUP = 3,
  PBC_WIRE_END_GROUP = 4,
  PBC_WIRE_FIXED32 = 5
  /* 6 and 7 are invalid */
} pbc_wire_type;

enum {
  PBC_WIRE_TYPE_BITS = 3,
  PBC_MAX_VARINT_BYTES = 10,
  /* A tag is a varint of at most 5 bytes whose value fits 32 bits. */
  PBC_MAX_TAG_BYTES = 5,
  /* libprotobuf reads a length in at most 5 bytes (ReadSize): a longer one,
   * even with a small value, is malformed. */
  PBC_MAX_LENGTH_BYTES = 5
};

/* Field numbers are 1 to 2^29 - 1. */
#define PBC_MAX_FIELD_NUMBER 536870911u

/* A MessageSet's item (message_set_wire_format): group 1 holding the
 * extension's number as varint 2 and its message as bytes 3. */
#define PBC_MSET_ITEM 1u
#define PBC_MSET_TYPE_ID 2u
#define PBC_MSET_MESSAGE 3u

static inline uint32_t pbc_make_tag(uint32_t field_number,
                                    pbc_wire_type wire_type) {
  return field_number << PBC_WIRE_TYPE_BITS | (uint32_t)wire_type;
}
static inline uint32_t pbc_tag_field_number(uint32_t tag) {
  return tag >> PBC_WIRE_TYPE_BITS;
}
static inline pbc_wire_type pbc_tag_wire_type(uint32_t tag) {
  return (pbc_wire_type)(tag & ((1u << PBC_WIRE_TYPE_BITS) - 1));
}

/* Bytes the varint encoding of v takes (1 to 10): 7 bits a byte, so
 * (significant bits * 9 + 64) / 64, with no branch. */
static inline unsigned pbc_varint_size(uint64_t v) {
#if defined(__GNUC__) || defined(__clang__)
  unsigned bits = 64 - (unsigned)__builtin_clzll(v | 1);
#else
  unsigned bits = 1;
  while (bits < 64 && (v >> bits) != 0) bits++;
#endif
  return (bits * 9 + 64) >> 6;
}

/* The varint encoding of v as a little-endian integer (its first byte
 * lowest), for values of at most 8 bytes: what a tag is. */
static inline uint64_t pbc_varint_bytes(uint64_t v) {
  uint64_t out = 0;
  unsigned shift = 0;
  while (v >= 0x80) {
    out |= ((v & 0x7f) | 0x80) << shift;
    v >>= 7;
    shift += 8;
  }
  return out | v << shift;
}

#ifdef __cplusplus
}
#endif

#endif /* PBC_WIRE_TYPES_H */
