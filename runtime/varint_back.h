/* Varints written backwards, ending at a position, with word stores: the
 * generated encoders' (through encode.c's pbc_rt_put_varint*) and the table
 * encoder's (table_encode.c). Runtime-internal. */
#ifndef PBC_VARINT_BACK_H
#define PBC_VARINT_BACK_H

#include <stdint.h>
#include <string.h>

#include "pbc/writer.h"
#include "pbc_rt.h"

/* v as a varint ending at `end`, one byte at a time: for when only its
 * own bytes may be written. The size comes first, without a loop. */
static PBC_ALWAYS_INLINE uint8_t *pbc_rt_varint_back(uint8_t *end,
                                                     uint64_t v) {
  uint8_t *start = end - pbc_varint_size(v);
  uint8_t *p = start;
  /* Bounded by the value, not a count: nothing for the compiler to unroll. */
  while (v >= 0x80) {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *p = (uint8_t)v;
  return start;
}

#if PBC_WORD_STORES
/* v as a varint ending at `end`, when the 10 bytes below `end` may be
 * written: the forward writer's pieces (pbc/writer_internal.h: the 7-bit
 * groups spread into a register, the continuation bits and the length
 * from one table indexed by the highest set bit), stored as one word
 * shifted up so that the varint ends at `end`; whatever lands below its
 * start is overwritten later. Up to 4 bytes (every varint of a value below
 * 2^28, the common long one) a 4-byte word, up to 8 an 8-byte one, then
 * a word and the top bits. */
/* The same for v < 2^28 (at most 4 bytes, one 4-byte store). */
static PBC_ALWAYS_INLINE uint8_t *pbc_rt_varint_back_slack28(uint8_t *end,
                                                             uint64_t v) {
  size_t hi = pbc__highest_bit(v | 1);
  size_t n = pbc__varint_len(hi);
  uint32_t x = pbc__spread28((uint32_t)v) | (uint32_t)pbc__varint_cont(hi);
  pbc__store_le32(end - 4, x << (8 * (4 - n)));
  return end - n;
}

static PBC_ALWAYS_INLINE uint8_t *pbc_rt_varint_back_slack(uint8_t *end,
                                                           uint64_t v) {
  uint32_t top = (uint32_t)(v >> 56);
  if (PBC_LIKELY(top == 0)) {
    if (v < (UINT64_C(1) << 28)) return pbc_rt_varint_back_slack28(end, v);
    size_t hi = pbc__highest_bit(v);
    size_t n = pbc__varint_len(hi);
    uint64_t x = pbc__spread7(v) | pbc__varint_cont(hi);
    pbc__store_le64(end - 8, x << (8 * (8 - n)));
    return end - n;
  }
  /* 9 or 10 bytes: the low 56 bits, all with their continuation bit, then
   * bits 56-62 (with bit 63 in a tenth byte). A field's values are mostly
   * of one length: a branch, not a computed shift. */
  uint64_t low = pbc__spread7_halves((v & 0x0FFFFFFFu) | (v << 8 >> 36 << 32)) |
                 UINT64_C(0x8080808080808080);
  if (top < 0x80) {
    end[-1] = (uint8_t)top;
    pbc__store_le64(end - 9, low);
    return end - 9;
  }
  pbc__store_le16(end - 2, top + 0x100);
  pbc__store_le64(end - 10, low);
  return end - 10;
}
#else
static PBC_ALWAYS_INLINE uint8_t *pbc_rt_varint_back_slack(uint8_t *end,
                                                           uint64_t v) {
  return pbc_rt_varint_back(end, v);
}
#endif

#endif /* PBC_VARINT_BACK_H */
