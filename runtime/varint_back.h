/* Varints written backwards, ending at a position, with word stores: the
 * generated encoders' (through encode.c's pbc_rt_put_varint*) and the table
 * encoder's (table_encode.c). Runtime-internal. */
#ifndef PBC_VARINT_BACK_H
#define PBC_VARINT_BACK_H

#include <stdint.h>
#include <string.h>

#include "pbc_rt.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PBC_WORD_VARINTS 1

/* The low 56 bits of v as eight 7-bit groups, one a byte, by halving:
 * 28-bit halves into 32-bit lanes, 14-bit quarters into 16-bit lanes,
 * then bytes. */
static inline uint64_t pbc_rt_spread7(uint64_t v) {
  uint64_t x = (v & UINT64_C(0x000000000fffffff)) |
               ((v & UINT64_C(0x00fffffff0000000)) << 4);
  x = (x & UINT64_C(0x00003fff00003fff)) |
      ((x & UINT64_C(0x0fffc0000fffc000)) << 2);
  return (x & UINT64_C(0x007f007f007f007f)) |
         ((x & UINT64_C(0x3f803f803f803f80)) << 1);
}

/* 9 and 10 bytes (v >= 2^56), from pbc_rt_spread7(v): the first eight
 * bytes as one word, all with their continuation bit, inside the varint;
 * then the top 8 bits. */
static PBC_ALWAYS_INLINE uint8_t *pbc_rt_spread_long(uint8_t *end,
                                                     uint64_t spread,
                                                     uint64_t v) {
  uint64_t x = spread | UINT64_C(0x8080808080808080);
  uint8_t top = (uint8_t)(v >> 56);
  if (top < 0x80) {
    memcpy(end - 9, &x, 8);
    end[-1] = top;
    return end - 9;
  }
  memcpy(end - 10, &x, 8);
  end[-2] = top;
  end[-1] = 1;
  return end - 10;
}

/* v as a varint ending at `end`, when the 10 bytes below `end` may be
 * written: one 8-byte store for values of up to 8 bytes; whatever lands
 * below the varint's start is overwritten later. */
static PBC_ALWAYS_INLINE uint8_t *pbc_rt_varint_back_slack(uint8_t *end,
                                                           uint64_t v) {
  uint64_t x = pbc_rt_spread7(v);
  if (v >= (UINT64_C(1) << 56)) return pbc_rt_spread_long(end, x, v);
  size_t n = pbc_varint_size(v);
  /* Continuation bits on all bytes but the last, then the varint moved to
   * the top of the word so that it ends at `end`; the word's low bytes land
   * in the free room below it. */
  x |= UINT64_C(0x8080808080808080) & ((UINT64_C(1) << (8 * (n - 1))) - 1);
  x <<= 8 * (8 - n);
  memcpy(end - 8, &x, 8);
  return end - n;
}
#else
static inline uint8_t *pbc_rt_varint_back_slack(uint8_t *end, uint64_t v) {
  return pbc_rt_put_varint(end, v);
}
#endif

#endif /* PBC_VARINT_BACK_H */
