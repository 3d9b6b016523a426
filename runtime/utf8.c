/* UTF-8 validation for proto3 string fields: the strict rule of the Unicode
 * standard (Table 3-7), which libprotobuf applies too. No overlong forms, no
 * surrogates, nothing above U+10FFFF.
 *
 * Three paths, by length:
 *  - up to 16 bytes, the common case: an ASCII test with two overlapping
 *    loads, inlined into the generated decoder (no call);
 *  - under 64 bytes, or when that test fails on a short string: the bytes
 *    copied into a zeroed 64-byte buffer, checked as two vector blocks;
 *  - longer: 32-byte vector blocks (generic vectors: SSE2 pairs on a baseline
 *    x86-64, one AVX2 register with --mcpu=haswell or newer, NEON pairs on
 *    aarch64), with an ASCII fast path over 64 bytes. */
#include <stdint.h>
#include <string.h>

#include "pbc_rt.h"

static uint64_t load64(const uint8_t *p) {
  uint64_t w;
  memcpy(&w, p, sizeof w);
  return w;
}

static uint32_t load32(const uint8_t *p) {
  uint32_t w;
  memcpy(&w, p, sizeof w);
  return w;
}

/* True when the n <= 16 bytes at p are all ASCII. Two loads that overlap
 * cover every length of a size class, so there is no loop. */
static bool ascii_upto16(const uint8_t *p, size_t n) {
  if (n >= 8) return ((load64(p) | load64(p + n - 8)) & 0x8080808080808080ull) == 0;
  if (n >= 4) return ((load32(p) | load32(p + n - 4)) & 0x80808080u) == 0;
  if (n == 0) return true;
  /* n is 1..3: the first, middle and last byte cover them all. */
  return ((p[0] | p[n / 2] | p[n - 1]) & 0x80) == 0;
}

/* ---- 32-byte blocks ------------------------------------------------------
 * Every byte is checked against the three bytes before it, all lanes at
 * once: a byte must be a continuation (10xxxxxx) exactly when one of the
 * previous three is a lead that still needs it (a 2-, 3- or 4-byte lead one,
 * two or three positions back); C0, C1 and F5..FF never occur; and after
 * E0, ED, F0 and F4 the second byte's range narrows (Table 3-7): that rules
 * out overlongs (E0, F0), surrogates (ED) and code points above U+10FFFF (F4).
 * Errors accumulate in a vector that is tested once at the end. */
typedef uint8_t v32 __attribute__((vector_size(32)));
/* The helpers below are static and inline into one function, so no vector
 * ever crosses a call: the warning about the AVX calling convention does not
 * apply. */
#pragma GCC diagnostic ignored "-Wpsabi"

static v32 load_v32(const uint8_t *p) {
  v32 v;
  memcpy(&v, p, sizeof v);
  return v;
}

static v32 splat(uint8_t b) {
  return (v32){0} + b;
}

/* Lane i of the result is byte i - k of the stream, where `prev` is the
 * block before `cur` (k = 1, 2, 3). A macro: shuffle indices must be
 * constants. */
#define PREV_BYTES(prev, cur, k)                                              \
  __builtin_shufflevector(prev, cur, 32 - k, 33 - k, 34 - k, 35 - k, 36 - k, \
                          37 - k, 38 - k, 39 - k, 40 - k, 41 - k, 42 - k,    \
                          43 - k, 44 - k, 45 - k, 46 - k, 47 - k, 48 - k,    \
                          49 - k, 50 - k, 51 - k, 52 - k, 53 - k, 54 - k,    \
                          55 - k, 56 - k, 57 - k, 58 - k, 59 - k, 60 - k,    \
                          61 - k, 62 - k, 63 - k)

/* The lanes (all ones) where `cur` breaks the rules, given `prev`. */
static v32 block_errors(const v32 *prev_block, const v32 *block) {
  v32 prev = *prev_block, cur = *block;
  v32 p1 = PREV_BYTES(prev, cur, 1);
  v32 p2 = PREV_BYTES(prev, cur, 2);
  v32 p3 = PREV_BYTES(prev, cur, 3);
  v32 needed = (v32)((p1 >= splat(0xc0)) | (p2 >= splat(0xe0)) | (p3 >= splat(0xf0)));
  v32 continuation = (v32)((cur & splat(0xc0)) == splat(0x80));
  v32 errors = needed ^ continuation;
  errors |= (v32)((cur & splat(0xfe)) == splat(0xc0)) | (v32)(cur >= splat(0xf5));
  errors |= (v32)(p1 == splat(0xe0)) & (v32)(cur < splat(0xa0));
  errors |= (v32)(p1 == splat(0xed)) & (v32)(cur > splat(0x9f));
  errors |= (v32)(p1 == splat(0xf0)) & (v32)(cur < splat(0x90));
  errors |= (v32)(p1 == splat(0xf4)) & (v32)(cur > splat(0x8f));
  return errors;
}

static bool any_high_bit(const v32 *v) {
  uint64_t w[4];
  memcpy(w, v, sizeof w);
  return ((w[0] | w[1] | w[2] | w[3]) & 0x8080808080808080ull) != 0;
}

/* A lead byte in a block's last three lanes still waits for continuations. */
static bool block_needs_more(const v32 *b) {
  return (*b)[31] >= 0xc0 || (*b)[30] >= 0xe0 || (*b)[29] >= 0xf0;
}

/* n >= 64. The last block overlaps the one before it instead of running past
 * the end: checking a byte twice, with its true predecessors, is harmless. */
__attribute__((noinline)) static bool utf8_valid_blocks(const uint8_t *p, size_t n) {
  v32 prev = {0}, errors = {0};
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    v32 a = load_v32(p + i), b = load_v32(p + i + 32);
    v32 both = a | b;
    if (!any_high_bit(&both) && !block_needs_more(&prev)) {
      prev = b;
      continue;
    }
    errors |= block_errors(&prev, &a) | block_errors(&a, &b);
    prev = b;
  }
  for (; i + 32 <= n; i += 32) {
    v32 a = load_v32(p + i);
    errors |= block_errors(&prev, &a);
    prev = a;
  }
  if (i < n) {
    /* The 32 bytes ending at p + n, after the 32 before them (n >= 64). */
    v32 before = load_v32(p + n - 64);
    prev = load_v32(p + n - 32);
    errors |= block_errors(&before, &prev);
  }
  /* prev is now the block that ends the text. */
  return !any_high_bit(&errors) && !block_needs_more(&prev);
}

/* n < 64: the bytes copied into a zeroed 64-byte buffer, then one or two
 * blocks. The zeros after the text are what a sequence cut short at the end
 * meets instead of its continuations. */
__attribute__((noinline)) static bool utf8_valid_short(const uint8_t *p, size_t n) {
  uint8_t buf[64] = {0};
  memcpy(buf, p, n);
  v32 none = {0}, a = load_v32(buf), b = load_v32(buf + 32);
  v32 errors = block_errors(&none, &a);
  /* The first missing continuation of a cut sequence is at n: in `b` from
   * n = 32 on. */
  if (n >= 32) errors |= block_errors(&a, &b);
  return !any_high_bit(&errors);
}

bool pbc_rt_utf8_valid(const uint8_t *p, size_t n) {
  if (n <= 16 && ascii_upto16(p, n)) return true;
  if (n < 64) return utf8_valid_short(p, n);
  return utf8_valid_blocks(p, n);
}
