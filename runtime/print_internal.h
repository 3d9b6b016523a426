/* What the text format and JSON printers share (runtime/print.c): where
 * the text goes, and numbers as libprotobuf writes them. */
#ifndef PBC_PRINT_INTERNAL_H
#define PBC_PRINT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "pbc/port.h"
#include "pbc/writer.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* A buffer (len counts every byte, also those past cap, so a short buffer
 * still learns the whole length) or, when w is set, a writer. */
typedef struct pbc_sink {
  char *buf;
  size_t cap, len;
  pbc_writer *w;
} pbc_sink;

static inline void pbc_sink_put(pbc_sink *s, const void *p, size_t n) {
  if (s->w != NULL) {
    pbc_writer_write(s->w, p, n);
    return;
  }
  if (s->len < s->cap) {
    size_t room = s->cap - s->len;
    memcpy(s->buf + s->len, p, n < room ? n : room);
  }
  s->len += n;
}

/* A printer's result once its status is known: into a buffer, the length
 * in *written (when not NULL; 0 on an error) and BUFFER_TOO_SMALL when it
 * did not fit; into a writer, the writer's status. */
static inline pbc_status pbc_sink_finish(const pbc_sink *s, pbc_status status,
                                         size_t *written) {
  if (s->w != NULL) return status != PBC_OK ? status : pbc_writer_status(s->w);
  if (written != NULL) *written = status == PBC_OK ? s->len : 0;
  if (status != PBC_OK) return status;
  return s->len > s->cap ? PBC_ERR_BUFFER_TOO_SMALL : PBC_OK;
}

/* What pbc_format_u64 and its kin may write: an int64's 20 digits and sign
 * or a uint64's 20 digits, and scratch past them (the digits go out by
 * stores of 4, 8 and 16 bytes). The longest float or double in
 * pbc_format_real's form, and PBC_FORMAT_REAL_ROOM what it may write, text
 * and scratch. */
enum {
  PBC_FORMAT_INT_ROOM = 24,
  PBC_FORMAT_REAL_MAX = 32,
  PBC_FORMAT_REAL_ROOM = 48
};

/* How many decimal digits v takes (1 to 20): the bit length times
 * log10(2) is the count or one less; a power of ten says which. */
static inline size_t pbc_decimal_digits(uint64_t v) {
  static const uint64_t kPow10[20] = {
      0, /* so that 0 takes one digit */
      10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
      100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
      1000000000000ull, 10000000000000ull, 100000000000000ull,
      1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
      1000000000000000000ull, 10000000000000000000ull};
  size_t n = ((size_t)(64 - __builtin_clzll(v | 1)) * 1233) >> 12;
  return n + (v >= kPow10[n]);
}

/* "00" to "99". */
static const char pbc_digit_pairs[201] =
    "000102030405060708091011121314151617181920212223242526272829"
    "303132333435363738394041424344454647484950515253545556575859"
    "606162636465666768697071727374757677787980818283848586878889"
    "90919293949596979899";

/* ---- Digits in a register --------------------------------------------------
 * The decimal digits of v < 10^8 as eight bytes of 0 to 9, the first digit
 * in the lowest byte (the first in memory), leading zeros included: v split
 * into its two groups of four, one in each 32-bit half, then each group
 * into pairs (x / 100 as x * 10486 >> 20, exact below 43,699) in the 16-bit
 * quarters, then each pair into its digits (x / 10 as x * 103 >> 10, exact
 * below 179) in the bytes; no lane's product reaches the next lane. No
 * table, no branch, no store: the printers place the word, shifted past its
 * leading zeros, with one store, where a digit pair at a time took a
 * division loop whose trip count the branch predictor cannot know on
 * numbers of mixed lengths, and a buffer the text was then copied out of
 * (stores a wider load cannot forward from).
 * PBC_DIGITS_ASCII (a '0' in every byte) makes them text. */
#define PBC_DIGITS_ASCII 0x3030303030303030ULL
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the digit words are stored as little-endian integers"
#endif

static PBC_ALWAYS_INLINE uint64_t pbc_digit_bytes8(uint32_t v) {
  uint64_t x = (uint64_t)(v / 10000) | (uint64_t)(v % 10000) << 32;
  uint64_t h = (x * 10486) >> 20 & 0x0000007F0000007FULL;
  x = h | (x - h * 100) << 16;
  h = (x * 103) >> 10 & 0x000F000F000F000FULL;
  return h | (x - h * 10) << 8;
}

typedef unsigned __int128 pbc_u128;

/* The sixteen digits of v < 10^16 the same way: two words in one value.
 * With SSE2 both words at once, the same three splits in its lanes (the
 * 32-bit halves of two 64-bit lanes, then 16-bit lanes): about half the
 * instructions of two words one after the other. */
static PBC_ALWAYS_INLINE pbc_u128 pbc_digit_bytes16(uint64_t v) {
  uint32_t first = (uint32_t)(v / 100000000), last = (uint32_t)(v % 100000000);
#if defined(__SSE2__)
  __m128i x = _mm_unpacklo_epi64(_mm_cvtsi32_si128((int)first),
                                 _mm_cvtsi32_si128((int)last));
  /* x / 10^4 as x * ceil(2^45 / 10^4) >> 45, exact below 10^8. */
  __m128i h = _mm_srli_epi64(
      _mm_mul_epu32(x, _mm_set1_epi32((int)0xd1b71759)), 45);
  __m128i rest = _mm_sub_epi32(x, _mm_mul_epu32(h, _mm_set1_epi32(10000)));
  x = _mm_or_si128(h, _mm_slli_epi64(rest, 32));
  /* In each 32-bit lane y < 10^4: y / 100 as (y * 5243 >> 16) >> 3. */
  h = _mm_srli_epi16(_mm_mulhi_epu16(x, _mm_set1_epi32(5243)), 3);
  rest = _mm_sub_epi16(x, _mm_mullo_epi16(h, _mm_set1_epi32(100)));
  x = _mm_or_si128(h, _mm_slli_epi32(rest, 16));
  /* In each 16-bit lane z < 100: z / 10 as z * (103 << 6) >> 16. */
  h = _mm_mulhi_epu16(x, _mm_set1_epi16(103 << 6));
  rest = _mm_sub_epi16(x, _mm_mullo_epi16(h, _mm_set1_epi16(10)));
  x = _mm_or_si128(h, _mm_slli_epi16(rest, 8));
  return (pbc_u128)(uint64_t)_mm_cvtsi128_si64(x) |
         (pbc_u128)(uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(x, x)) << 64;
#else
  return (pbc_u128)pbc_digit_bytes8(first) |
         (pbc_u128)pbc_digit_bytes8(last) << 64;
#endif
}
#define PBC_DIGITS_ASCII16 ((pbc_u128)PBC_DIGITS_ASCII << 64 | PBC_DIGITS_ASCII)

/* How many of pbc_digit_bytes16's digits come before its trailing zeros
 * (0 when all are 0), without a branch: the zero bytes' mask (SSE2), or
 * the highest byte of a word that is not 0 (d + 0x7f sets a byte's top
 * bit when it is 1 to 9). */
static PBC_ALWAYS_INLINE int pbc_digits16_used(pbc_u128 d) {
#if defined(__SSE2__)
  __m128i v = _mm_unpacklo_epi64(
      _mm_cvtsi64_si128((long long)(uint64_t)d),
      _mm_cvtsi64_si128((long long)(uint64_t)(d >> 64)));
  unsigned zero = (unsigned)_mm_movemask_epi8(
      _mm_cmpeq_epi8(v, _mm_setzero_si128()));
  return 31 - __builtin_clz((~zero & 0xffffu) << 1 | 1);
#else
  const pbc_u128 ones = PBC_DIGITS_ASCII16 / '0'; /* 0x01 in every byte */
  pbc_u128 top = (d + ones * 0x7f) & ones * 0x80;
  uint64_t hi = (uint64_t)(top >> 64), lo = (uint64_t)top | 1;
  int bit = hi != 0 ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll(lo);
  return (bit + 1) / 8;
#endif
}

/* v < 10^16, of n digits (1 to 16), at out: the sixteen digits shifted
 * down past the 16 - n leading zeros, one 16-byte store. */
static PBC_ALWAYS_INLINE void pbc_put_digits16(char *out, uint64_t v,
                                               size_t n) {
  pbc_u128 d = (pbc_digit_bytes16(v) | PBC_DIGITS_ASCII16) >> (8 * (16 - n));
  memcpy(out, &d, 16);
}

/* v in decimal at out (no NUL), PBC_FORMAT_INT_ROOM bytes there; the
 * number of bytes. Inline: the printers call them for every integer. A
 * number of 17 to 20 digits puts its first 1 to 4 (below 1845) ahead of
 * the last sixteen. */
static PBC_ALWAYS_INLINE size_t pbc_format_u64(char *out, uint64_t v) {
  size_t n = pbc_decimal_digits(v);
  if (PBC_LIKELY(v < 10000000000000000ULL)) {
    pbc_put_digits16(out, v, n);
    return n;
  }
  uint64_t top = v / 10000000000000000ULL, rest = v % 10000000000000000ULL;
  size_t lead = n - 16;
  uint32_t t = (uint32_t)(pbc_digit_bytes8((uint32_t)top) >> 32) | 0x30303030u;
  t >>= 8 * (4 - lead);
  memcpy(out, &t, 4);
  pbc_put_digits16(out + lead, rest, 16);
  return n;
}

/* A 32-bit v: below 10^8 (nearly all), one word. */
static PBC_ALWAYS_INLINE size_t pbc_format_u32(char *out, uint32_t v) {
  size_t n = pbc_decimal_digits(v);
  if (PBC_UNLIKELY(v >= 100000000)) {
    pbc_put_digits16(out, v, n);
    return n;
  }
  uint64_t d = (pbc_digit_bytes8(v) | PBC_DIGITS_ASCII) >> (8 * (8 - n));
  memcpy(out, &d, 8);
  return n;
}

/* The signed forms: the '-' written in any case, the digits after it or
 * over it (no branch on the sign, which mixed signs would mispredict). */
static PBC_ALWAYS_INLINE size_t pbc_format_i64(char *out, int64_t v) {
  size_t neg = v < 0;
  out[0] = '-';
  return neg + pbc_format_u64(out + neg, neg ? 0 - (uint64_t)v : (uint64_t)v);
}
static PBC_ALWAYS_INLINE size_t pbc_format_i32(char *out, int32_t v) {
  size_t neg = v < 0;
  out[0] = '-';
  return neg + pbc_format_u32(out + neg, neg ? 0 - (uint32_t)v : (uint32_t)v);
}

/* A finite float (is_float, v holding its value exactly) or double as
 * libprotobuf's SimpleFtoa and SimpleDtoa write it: FLT_DIG (DBL_DIG)
 * significant digits, %g style, three (two) more when those do not read
 * back as the value; NUL-terminated, the length (at most
 * PBC_FORMAT_REAL_MAX - 1) returned. out has PBC_FORMAT_REAL_ROOM bytes. */
size_t pbc_format_real(char *out, double v, bool is_float);

/* A repeated field's floats (is_float) or doubles from `values`, n of
 * them, into buf from *len on as pbc_format_real writes each, a ','
 * before each but the first when !comma: while they are finite and
 * PBC_FORMAT_REAL_ROOM bytes and the comma fit below cap (*len <= cap).
 * *len advanced past the text; returns how many were written. The
 * formatter inlined in one loop, where a call a number cost its
 * registers' saves and the buffer's length kept in memory. */
size_t pbc_format_real_run(char *buf, size_t *len, size_t cap,
                           const void *values, size_t n, bool is_float,
                           bool comma);

#endif /* PBC_PRINT_INTERNAL_H */
