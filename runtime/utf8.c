/* UTF-8 validation for proto3 string fields: the strict rule of the Unicode
 * standard (Table 3-7), which libprotobuf applies too. No overlong forms, no
 * surrogates, nothing above U+10FFFF.
 *
 * Up to 16 bytes, the common case, an ASCII test with two overlapping loads
 * is inlined into the generated decoder (no call). Anything else goes to one
 * of three block validators:
 *  - x86-64 with AVX2: the lookup-table algorithm of Keiser and Lemire
 *    ("Validating UTF-8 in less than one instruction per byte", 2021), three
 *    16-entry nibble tables through vpshufb, 32 bytes per register. pbc builds
 *    for a baseline x86-64 (SSE2) by default, so that function alone is
 *    compiled for AVX2 (a target attribute) and picked at run time, once,
 *    from the CPU model; with --mcpu=haswell or newer pbc tells the runtime the
 *    target has AVX2 and the check folds away;
 *  - x86-64 with SSSE3 but no AVX2: the same with 16-byte registers;
 *  - elsewhere (no SSSE3, aarch64, riscv64): generic 32-byte vectors, SSE2
 *    pairs on a baseline x86-64, NEON pairs on aarch64.
 * All check strings under 64 bytes as blocks of the text then zeros (the
 * generic code a copy, the x86 ones put together in registers) and skip
 * ASCII 64 bytes at a time.
 *
 * The text parsers' strings get one pass more fitting them
 * (pbc_rt_utf8_string_run): the bytes that end a run of plain characters
 * ('"', '\\', control characters) are found in the same blocks, with the
 * same lookups, that validate it, so a run that is not ASCII is read once,
 * not scanned and then validated. */
#include <assert.h>
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
  assert(n <= 16);
  if (n >= 8) return ((load64(p) | load64(p + n - 8)) & 0x8080808080808080ull) == 0;
  if (n >= 4) return ((load32(p) | load32(p + n - 4)) & 0x80808080u) == 0;
  if (n == 0) return true;
  /* n is 1..3: the first, middle and last byte cover them all. */
  return ((p[0] | p[n / 2] | p[n - 1]) & 0x80) == 0;
}

/* ---- Generic 32-byte blocks ----------------------------------------------
 * Every byte is checked against the three bytes before it, all lanes at
 * once: a byte must be a continuation (10xxxxxx) exactly when one of the
 * previous three is a lead that still needs it (a 2-, 3- or 4-byte lead one,
 * two or three positions back); C0, C1 and F5..FF never occur; and after
 * E0, ED, F0 and F4 the second byte's range narrows (Table 3-7): that rules
 * out overlongs (E0, F0), surrogates (ED) and code points above U+10FFFF (F4).
 * Errors accumulate in a vector that is tested once at the end. */
typedef uint8_t v32 PBC_VECTOR_SIZE(32);
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
PBC_NOINLINE static bool utf8_valid_blocks(const uint8_t *p, size_t n) {
  assert(n >= 64);
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
PBC_NOINLINE static bool utf8_valid_short(const uint8_t *p, size_t n) {
  assert(n < 64);
  uint8_t buf[64] = {0};
  memcpy(buf, p, n);
  v32 none = {0}, a = load_v32(buf), b = load_v32(buf + 32);
  v32 errors = block_errors(&none, &a);
  /* The first missing continuation of a cut sequence is at n: in `b` from
   * n = 32 on. */
  if (n >= 32) errors |= block_errors(&a, &b);
  return !any_high_bit(&errors);
}

static bool utf8_generic(const uint8_t *p, size_t n) {
  return n < 64 ? utf8_valid_short(p, n) : utf8_valid_blocks(p, n);
}

/* Stop bytes and validity as two passes: the portable fallback, for CPUs
 * without SSSE3's byte shuffle. */
static const char *string_run_generic(const char *p, const char *end,
                                      bool *valid) {
  const char *stop = p;
  while (stop < end && *stop != '"' && *stop != '\\' && (uint8_t)*stop >= 0x20)
    stop++;
  *valid = utf8_generic((const uint8_t *)p, (size_t)(stop - p));
  return stop;
}

#if defined(__x86_64__)
/* ---- AVX2 lookup tables --------------------------------------------------
 * Most errors show in a pair of adjacent bytes. Each table maps a nibble to
 * the set of error classes (one bit each) that nibble is compatible with:
 * the high and low nibble of the previous byte, the high nibble of the
 * current one. A class survives the AND of the three lookups only when the
 * whole pair matches it, so a non-zero lane is an error. The exception is
 * TWO_CONTS, a continuation after a continuation: right in the third and
 * fourth byte of a sequence, wrong anywhere else. It is XOR-ed with the
 * lanes that must be such a continuation (two bytes after a lead >= E0,
 * three after one >= F0). */
#include <immintrin.h>

enum {
  TOO_SHORT = 0x01,  /* a lead not followed by a continuation */
  TOO_LONG = 0x02,   /* a continuation after ASCII */
  OVERLONG_3 = 0x04, /* E0 80..9F */
  TOO_LARGE = 0x08,  /* F4 90..BF, F5..FF 90..BF */
  SURROGATE = 0x10,  /* ED A0..BF */
  OVERLONG_2 = 0x20, /* C0 or C1 then a continuation */
  F_THEN_8X = 0x40,  /* F0 80..8F (overlong), F5..FF 80..8F (too large) */
  TWO_CONTS = 0x80,
};

/* Indexed by the previous byte's high nibble. */
static const uint8_t kPrevHigh[16] = {
    TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
    TWO_CONTS, TWO_CONTS, TWO_CONTS, TWO_CONTS,
    TOO_SHORT | OVERLONG_2,                    /* C */
    TOO_SHORT,                                 /* D */
    TOO_SHORT | OVERLONG_3 | SURROGATE,        /* E */
    TOO_SHORT | TOO_LARGE | F_THEN_8X,         /* F */
};

/* Indexed by the previous byte's low nibble: the classes that depend on the
 * high nibble alone are in every entry. */
#define ANY_LOW (TOO_SHORT | TOO_LONG | TWO_CONTS)
static const uint8_t kPrevLow[16] = {
    ANY_LOW | OVERLONG_2 | OVERLONG_3 | F_THEN_8X, /* C0 E0 F0 */
    ANY_LOW | OVERLONG_2,                          /* C1 */
    ANY_LOW,
    ANY_LOW,
    ANY_LOW | TOO_LARGE,                           /* F4 */
    ANY_LOW | TOO_LARGE | F_THEN_8X,               /* F5..FF */
    ANY_LOW | TOO_LARGE | F_THEN_8X,
    ANY_LOW | TOO_LARGE | F_THEN_8X,
    ANY_LOW | TOO_LARGE | F_THEN_8X,
    ANY_LOW | TOO_LARGE | F_THEN_8X,
    ANY_LOW | TOO_LARGE | F_THEN_8X,
    ANY_LOW | TOO_LARGE | F_THEN_8X,
    ANY_LOW | TOO_LARGE | F_THEN_8X,
    ANY_LOW | TOO_LARGE | F_THEN_8X | SURROGATE, /* ED */
    ANY_LOW | TOO_LARGE | F_THEN_8X,
    ANY_LOW | TOO_LARGE | F_THEN_8X,
};

/* Indexed by the current byte's high nibble. */
#define CONT_ANY (TOO_LONG | OVERLONG_2 | TWO_CONTS)
static const uint8_t kCurHigh[16] = {
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
    CONT_ANY | OVERLONG_3 | F_THEN_8X,  /* 80..8F */
    CONT_ANY | OVERLONG_3 | TOO_LARGE,  /* 90..9F */
    CONT_ANY | SURROGATE | TOO_LARGE,   /* A0..AF */
    CONT_ANY | SURROGATE | TOO_LARGE,   /* B0..BF */
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
};

/* A lead byte in the last lanes still waiting for continuations: above
 * these limits (saturating subtraction leaves something) when it is one of
 * the last three lanes and needs more than the lanes left. */
static const uint8_t kIncompleteLimit[32] = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xef, 0xdf, 0xbf};

#define AVX2 PBC_TARGET("avx2")
#define SSSE3 PBC_TARGET("ssse3")

/* ---- The end of a text in a register ---------------------------------------
 * A block that the text's end cuts short is its bytes, then `fill` (what a
 * sequence cut short meets instead of its continuations). It is put
 * together in registers from loads inside the text: copied into a buffer
 * by stores of other widths, it took a vector load that the stores cannot
 * forward, a stall of a dozen cycles or more on every string's last block:
 * a third of the decoders' time on short strings in other scripts, a
 * seventh of the JSON printer's on prose. */

/* pshufb masks that move bytes down by s: the 16 from kShiftTable + 16 + s
 * give lane k the register's lane s + k while s + k < 16, the 16 from
 * kShiftTable + s lane s + k - 16 of the second register of a pair while
 * 16 <= s + k < 32; 0x80 (a zero lane) elsewhere. */
static const uint8_t kShiftTable[64] = {
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0x80, 0x80, 0x80, 0x80, 0,    1,    2,    3,    4,    5,    6,    7,
    8,    9,    10,   11,   12,   13,   14,   15,   0x80, 0x80, 0x80, 0x80,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0x80, 0x80, 0x80, 0x80};

/* v's lanes from `mask` (a kShiftTable window), `fill` in the lanes the
 * mask leaves empty. */
SSSE3 static inline __m128i shuffle_fill(__m128i v, __m128i mask, __m128i fill) {
  __m128i empty = _mm_cmplt_epi8(mask, _mm_setzero_si128());
  return _mm_or_si128(_mm_shuffle_epi8(v, mask), _mm_and_si128(empty, fill));
}

/* The n < 16 bytes at p, then fill, from loads of [p, p + n) only: two
 * overlapping loads of the size class put every byte in place. */
static inline __m128i short_block(const uint8_t *p, size_t n, uint8_t fill) {
  assert(n < 16);
  uint64_t f = fill * 0x0101010101010101ull, lo = f, hi = f;
  if (n >= 8) {
    lo = load64(p);
    if (n > 8) hi = load64(p + n - 8) >> (8 * (16 - n)) | f << (8 * (n - 8));
  } else if (n >= 4) {
    lo = load32(p) | (uint64_t)load32(p + n - 4) << (8 * (n - 4)) | f << (8 * n);
  } else if (n > 0) {
    lo = p[0] | (uint64_t)p[n / 2] << (8 * (n / 2)) |
         (uint64_t)p[n - 1] << (8 * (n - 1)) | f << (8 * n);
  }
  return _mm_set_epi64x((long long)hi, (long long)lo);
}

/* The last `left` < 16 bytes of the n at p, then fill. */
SSSE3 static inline __m128i ssse3_last_block(const uint8_t *p, size_t n, size_t left,
                                             uint8_t fill) {
  assert(left < 16 && left <= n);
  if (n < 16) return short_block(p + n - left, left, fill);
  __m128i mask = _mm_loadu_si128((const __m128i *)(kShiftTable + 32 - left));
  return shuffle_fill(_mm_loadu_si128((const __m128i *)(p + n - 16)), mask,
                      _mm_set1_epi8((char)fill));
}

/* The last `left` < 32 bytes of the n at p, then fill. From 32 bytes on,
 * the 32 before the end shifted down, without a branch on `left`. */
AVX2 static inline __m256i avx2_last_block(const uint8_t *p, size_t n, size_t left,
                                           uint8_t fill) {
  assert(left < 32 && (n >= 32 || left == n));
  __m128i f = _mm_set1_epi8((char)fill);
  if (n >= 32) {
    size_t s = 32 - left; /* lane k of the block is byte s + k of the 32 */
    __m128i a = _mm_loadu_si128((const __m128i *)(p + n - 32));
    __m128i b = _mm_loadu_si128((const __m128i *)(p + n - 16));
    __m128i from_a = _mm_loadu_si128((const __m128i *)(kShiftTable + 16 + s));
    __m128i from_b = _mm_loadu_si128((const __m128i *)(kShiftTable + s));
    __m128i lo = _mm_or_si128(_mm_shuffle_epi8(a, from_a), _mm_shuffle_epi8(b, from_b));
    __m128i past = _mm_cmplt_epi8(_mm_and_si128(from_a, from_b), _mm_setzero_si128());
    lo = _mm_or_si128(lo, _mm_and_si128(past, f));
    return _mm256_set_m128i(shuffle_fill(b, from_a, f), lo);
  }
  /* The text is this one block (left == n); written with `left`, which
   * changes from block to block, so that the compiler does not hoist what
   * depends on n alone out of a caller's loop, for every call to pay. */
  const uint8_t *q = p + n - left;
  if (left >= 16)
    return _mm256_set_m128i(ssse3_last_block(q, left, left - 16, fill),
                            _mm_loadu_si128((const __m128i *)q));
  return _mm256_set_m128i(f, short_block(q, left, fill));
}

/* Lane i is byte i - k of the stream, where `prev` is the block before
 * `cur`. vpalignr shifts within 16-byte halves, so the halves it joins are
 * first paired up: (prev's high half, cur's low half). A macro: the shift
 * must be a constant. */
#define AVX2_PREV(prev, cur, k)                                                \
  _mm256_alignr_epi8(cur, _mm256_permute2x128_si256(prev, cur, 0x21), 16 - (k))

typedef struct {
  __m256i prev_high, prev_low, cur_high, nibble;
} avx2_tables;

AVX2 static inline __m256i avx2_table(const uint8_t *t) {
  return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t));
}

AVX2 static inline avx2_tables avx2_load_tables(void) {
  avx2_tables t = {avx2_table(kPrevHigh), avx2_table(kPrevLow), avx2_table(kCurHigh),
                   _mm256_set1_epi8(0x0f)};
  return t;
}

/* The lanes of `cur` (non-zero) that break the rules, given `prev`. */
AVX2 static inline __m256i avx2_block_errors(const avx2_tables *t, __m256i prev,
                                             __m256i cur) {
  __m256i p1 = AVX2_PREV(prev, cur, 1);
  __m256i p1_high = _mm256_and_si256(_mm256_srli_epi16(p1, 4), t->nibble);
  __m256i p1_low = _mm256_and_si256(p1, t->nibble);
  __m256i cur_high = _mm256_and_si256(_mm256_srli_epi16(cur, 4), t->nibble);
  __m256i pair = _mm256_and_si256(
      _mm256_and_si256(_mm256_shuffle_epi8(t->prev_high, p1_high),
                       _mm256_shuffle_epi8(t->prev_low, p1_low)),
      _mm256_shuffle_epi8(t->cur_high, cur_high));
  /* High bit set (after saturating subtraction) where the byte two back is
   * >= E0 or the one three back >= F0. */
  __m256i third = _mm256_subs_epu8(AVX2_PREV(prev, cur, 2), _mm256_set1_epi8(0xe0 - 0x80));
  __m256i fourth = _mm256_subs_epu8(AVX2_PREV(prev, cur, 3), _mm256_set1_epi8((char)(0xf0 - 0x80)));
  __m256i must_continue =
      _mm256_and_si256(_mm256_or_si256(third, fourth), _mm256_set1_epi8((char)0x80));
  return _mm256_xor_si256(pair, must_continue);
}

AVX2 static inline __m256i avx2_incomplete(__m256i block) {
  return _mm256_subs_epu8(block, _mm256_loadu_si256((const __m256i *)kIncompleteLimit));
}

/* Any length. As in the generic code: under 64 bytes the text then zeros
 * (what a cut sequence meets instead of its continuations);
 * longer, a last block that overlaps the one before instead of running past
 * the end. */
AVX2 static bool utf8_avx2(const uint8_t *p, size_t n) {
  const avx2_tables t = avx2_load_tables();
  __m256i zero = _mm256_setzero_si256();
  if (n < 64) {
    __m256i a = n >= 32 ? _mm256_loadu_si256((const __m256i *)p) : avx2_last_block(p, n, n, 0);
    __m256i b = n >= 32 ? avx2_last_block(p, n, n - 32, 0) : zero;
    __m256i errors = _mm256_or_si256(avx2_block_errors(&t, zero, a),
                                     avx2_block_errors(&t, a, b));
    return _mm256_testz_si256(errors, errors);
  }
  __m256i prev = zero, errors = zero;
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(p + i));
    __m256i b = _mm256_loadu_si256((const __m256i *)(p + i + 32));
    if (_mm256_movemask_epi8(_mm256_or_si256(a, b)) == 0) {
      /* ASCII: only a sequence cut short by it can be wrong. */
      errors = _mm256_or_si256(errors, avx2_incomplete(prev));
    } else {
      errors = _mm256_or_si256(errors, avx2_block_errors(&t, prev, a));
      errors = _mm256_or_si256(errors, avx2_block_errors(&t, a, b));
    }
    prev = b;
  }
  if (i + 32 <= n) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(p + i));
    errors = _mm256_or_si256(errors, avx2_block_errors(&t, prev, a));
    prev = a;
    i += 32;
  }
  if (i < n) {
    __m256i before = _mm256_loadu_si256((const __m256i *)(p + n - 64));
    prev = _mm256_loadu_si256((const __m256i *)(p + n - 32));
    errors = _mm256_or_si256(errors, avx2_block_errors(&t, before, prev));
  }
  errors = _mm256_or_si256(errors, avx2_incomplete(prev));
  return _mm256_testz_si256(errors, errors);
}

/* ---- The same with 16-byte SSSE3 registers -------------------------------
 * For x86-64 CPUs with pshufb but no AVX2 (before Haswell, and low-power
 * cores up to Tremont). 64 bytes per iteration in four registers. */

typedef struct {
  __m128i prev_high, prev_low, cur_high, nibble;
} ssse3_tables;

SSSE3 static inline ssse3_tables ssse3_load_tables(void) {
  ssse3_tables t = {_mm_loadu_si128((const __m128i *)kPrevHigh),
                    _mm_loadu_si128((const __m128i *)kPrevLow),
                    _mm_loadu_si128((const __m128i *)kCurHigh), _mm_set1_epi8(0x0f)};
  return t;
}

/* avx2_block_errors on 16 bytes; palignr joins `prev` and `cur` whole. */
SSSE3 static inline __m128i ssse3_block_errors(const ssse3_tables *t, __m128i prev,
                                               __m128i cur) {
  __m128i p1 = _mm_alignr_epi8(cur, prev, 15);
  __m128i p1_high = _mm_and_si128(_mm_srli_epi16(p1, 4), t->nibble);
  __m128i p1_low = _mm_and_si128(p1, t->nibble);
  __m128i cur_high = _mm_and_si128(_mm_srli_epi16(cur, 4), t->nibble);
  __m128i pair = _mm_and_si128(_mm_and_si128(_mm_shuffle_epi8(t->prev_high, p1_high),
                                             _mm_shuffle_epi8(t->prev_low, p1_low)),
                               _mm_shuffle_epi8(t->cur_high, cur_high));
  __m128i third = _mm_subs_epu8(_mm_alignr_epi8(cur, prev, 14), _mm_set1_epi8(0xe0 - 0x80));
  __m128i fourth = _mm_subs_epu8(_mm_alignr_epi8(cur, prev, 13), _mm_set1_epi8(0xf0 - 0x80));
  __m128i must_continue =
      _mm_and_si128(_mm_or_si128(third, fourth), _mm_set1_epi8((char)0x80));
  return _mm_xor_si128(pair, must_continue);
}

SSSE3 static inline __m128i ssse3_incomplete(__m128i block) {
  return _mm_subs_epu8(block, _mm_loadu_si128((const __m128i *)(kIncompleteLimit + 16)));
}

/* utf8_avx2 with 16-byte blocks. */
SSSE3 static bool utf8_ssse3(const uint8_t *p, size_t n) {
  const ssse3_tables t = ssse3_load_tables();
  __m128i prev = _mm_setzero_si128(), errors = prev;
  size_t i = 0;
  if (n < 64) {
    for (; i < 64; i += 16) {
      __m128i a = i + 16 <= n ? _mm_loadu_si128((const __m128i *)(p + i))
                  : i < n     ? ssse3_last_block(p, n, n - i, 0)
                              : _mm_setzero_si128();
      errors = _mm_or_si128(errors, ssse3_block_errors(&t, prev, a));
      prev = a;
    }
    return _mm_movemask_epi8(_mm_cmpeq_epi8(errors, _mm_setzero_si128())) == 0xffff;
  }
  for (; i + 64 <= n; i += 64) {
    __m128i a = _mm_loadu_si128((const __m128i *)(p + i));
    __m128i b = _mm_loadu_si128((const __m128i *)(p + i + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(p + i + 32));
    __m128i d = _mm_loadu_si128((const __m128i *)(p + i + 48));
    if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d))) == 0) {
      errors = _mm_or_si128(errors, ssse3_incomplete(prev));
    } else {
      errors = _mm_or_si128(errors, ssse3_block_errors(&t, prev, a));
      errors = _mm_or_si128(errors, ssse3_block_errors(&t, a, b));
      errors = _mm_or_si128(errors, ssse3_block_errors(&t, b, c));
      errors = _mm_or_si128(errors, ssse3_block_errors(&t, c, d));
    }
    prev = d;
  }
  for (; i + 16 <= n; i += 16) {
    __m128i a = _mm_loadu_si128((const __m128i *)(p + i));
    errors = _mm_or_si128(errors, ssse3_block_errors(&t, prev, a));
    prev = a;
  }
  if (i < n) {
    __m128i before = _mm_loadu_si128((const __m128i *)(p + n - 32));
    prev = _mm_loadu_si128((const __m128i *)(p + n - 16));
    errors = _mm_or_si128(errors, ssse3_block_errors(&t, before, prev));
  }
  errors = _mm_or_si128(errors, ssse3_incomplete(prev));
  return _mm_movemask_epi8(_mm_cmpeq_epi8(errors, _mm_setzero_si128())) == 0xffff;
}

/* ---- Strings: stop bytes and UTF-8 in one pass ----------------------------
 * Each block yields two lane masks: the stop bytes ('"', '\\', below 0x20)
 * and the lanes the validator flags. The run ends at the first stop; it is
 * valid when no lane up to and including that stop is flagged: the stop
 * lane itself is flagged when it cuts a sequence short (an ASCII byte where
 * a continuation must be), and lanes past it, which belong to the JSON
 * after the string, do not count. Fewer bytes than a block are copied into
 * one filled with '"', so nothing is read past `end` and the run stops
 * there. */

/* One block of string_run_avx2: the stops and the flagged lanes of cur
 * (after prev), gathered into *flagged up to the first stop. True, with
 * that stop's lane in *n, when the block has one. */
AVX2 static PBC_ALWAYS_INLINE bool string_block_avx2(const avx2_tables *t,
                                                     __m256i prev, __m256i cur,
                                                     uint32_t *flagged,
                                                     unsigned *n) {
  const __m256i zero = _mm256_setzero_si256();
  __m256i stop = _mm256_or_si256(
      _mm256_or_si256(_mm256_cmpeq_epi8(cur, _mm256_set1_epi8('"')),
                      _mm256_cmpeq_epi8(cur, _mm256_set1_epi8('\\'))),
      _mm256_cmpeq_epi8(_mm256_min_epu8(cur, _mm256_set1_epi8(0x1f)), cur));
  __m256i errors = avx2_block_errors(t, prev, cur);
  uint32_t stops = (uint32_t)_mm256_movemask_epi8(stop);
  uint32_t bad = ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(errors, zero));
  if (stops == 0) {
    *flagged |= bad;
    return false;
  }
  *n = (unsigned)__builtin_ctz(stops);
  *flagged |= bad & (uint32_t)((2ull << *n) - 1);
  return true;
}

/* string_run_avx2's last block, fewer than 32 bytes before end, copied
 * into one filled with '"' (which stops the run there); the block before
 * it, if the run had one, read again from the text. Out of line, and
 * taking no vector (passed through memory): its buffer made every call of
 * the loop realign its stack frame to 32 bytes. */
AVX2 static PBC_NOINLINE const char *string_run_avx2_last(const char *start,
                                                          const char *p,
                                                          const char *end,
                                                          bool *valid,
                                                          uint32_t flagged) {
  const avx2_tables t = avx2_load_tables();
  __m256i prev = p == start ? _mm256_setzero_si256()
                            : _mm256_loadu_si256((const __m256i *)(p - 32));
  char buf[32];
  memset(buf, '"', sizeof buf);
  memcpy(buf, p, (size_t)(end - p));
  unsigned n = 0;
  bool stopped = string_block_avx2(&t, prev, _mm256_loadu_si256((const __m256i *)buf),
                                   &flagged, &n);
  assert(stopped);
  (void)stopped;
  *valid = flagged == 0;
  return p + n;
}

AVX2 static const char *string_run_avx2(const char *p, const char *end,
                                        bool *valid) {
  const avx2_tables t = avx2_load_tables();
  const char *start = p;
  __m256i prev = _mm256_setzero_si256();
  uint32_t flagged = 0;
  for (; end - p >= 32; p += 32) {
    __m256i cur = _mm256_loadu_si256((const __m256i *)p);
    unsigned n;
    if (string_block_avx2(&t, prev, cur, &flagged, &n)) {
      *valid = flagged == 0;
      return p + n;
    }
    prev = cur;
  }
  return string_run_avx2_last(start, p, end, valid, flagged);
}

/* string_block_avx2 on 16 bytes. */
SSSE3 static PBC_ALWAYS_INLINE bool string_block_ssse3(const ssse3_tables *t,
                                                       __m128i prev, __m128i cur,
                                                       uint32_t *flagged,
                                                       unsigned *n) {
  const __m128i zero = _mm_setzero_si128();
  __m128i stop = _mm_or_si128(
      _mm_or_si128(_mm_cmpeq_epi8(cur, _mm_set1_epi8('"')),
                   _mm_cmpeq_epi8(cur, _mm_set1_epi8('\\'))),
      _mm_cmpeq_epi8(_mm_min_epu8(cur, _mm_set1_epi8(0x1f)), cur));
  __m128i errors = ssse3_block_errors(t, prev, cur);
  uint32_t stops = (uint32_t)_mm_movemask_epi8(stop);
  uint32_t bad = 0xffffu & ~(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(errors, zero));
  if (stops == 0) {
    *flagged |= bad;
    return false;
  }
  *n = (unsigned)__builtin_ctz(stops);
  *flagged |= bad & ((2u << *n) - 1);
  return true;
}

/* string_run_avx2_last with 16-byte blocks. */
SSSE3 static PBC_NOINLINE const char *string_run_ssse3_last(const char *start,
                                                            const char *p,
                                                            const char *end,
                                                            bool *valid,
                                                            uint32_t flagged) {
  const ssse3_tables t = ssse3_load_tables();
  __m128i prev = p == start ? _mm_setzero_si128()
                            : _mm_loadu_si128((const __m128i *)(p - 16));
  char buf[16];
  memset(buf, '"', sizeof buf);
  memcpy(buf, p, (size_t)(end - p));
  unsigned n = 0;
  bool stopped = string_block_ssse3(&t, prev, _mm_loadu_si128((const __m128i *)buf),
                                    &flagged, &n);
  assert(stopped);
  (void)stopped;
  *valid = flagged == 0;
  return p + n;
}

/* string_run_avx2 with 16-byte blocks. */
SSSE3 static const char *string_run_ssse3(const char *p, const char *end,
                                          bool *valid) {
  const ssse3_tables t = ssse3_load_tables();
  const char *start = p;
  __m128i prev = _mm_setzero_si128();
  uint32_t flagged = 0;
  for (; end - p >= 16; p += 16) {
    __m128i cur = _mm_loadu_si128((const __m128i *)p);
    unsigned n;
    if (string_block_ssse3(&t, prev, cur, &flagged, &n)) {
      *valid = flagged == 0;
      return p + n;
    }
    prev = cur;
  }
  return string_run_ssse3_last(start, p, end, valid, flagged);
}

/* ---- JSON output: what 3.21's escaper keeps as it is -----------------------
 * A block is written as it is when it is valid UTF-8 (the validator's
 * lookups), holds no ASCII byte 3.21 escapes ('"', '\\', '<', '>', controls,
 * DEL) and no code point it escapes from U+0080 on (json_print.c's
 * escapes_code_point). Those code points are found by their first two
 * bytes, four nibble lookups AND-ed like the validator's three, one class a
 * bit (the byte before, then the byte):
 *   C2 8x, C2 9x (C1 controls); C2 AD (soft hyphen);
 *   D8 80..83, DC 8F (and D8 8F, DC 80..83); DB 9D; E1 9E;
 *   EF BB, EF BF (BOM, U+FFF0..FFFF);
 *   F0 or F3, then 90, 9D, A0 or AD (U+1D173.., tags U+E0001..);
 *   80 or 81, then 8x or Ax (the second and third bytes of U+2000..207F's
 *   escaped points: E2 80 8B..8F, A8..AE; E2 81 A0..A4, AA..AF)
 * which flags more than the escaped points themselves (a whole range, a
 * pair of a product of nibble sets, or the last two bytes of any code
 * point). The pair flag lands on the lane of its second byte: the second
 * byte of a code point, or for the last class its third (or fourth); a
 * flagged code point in a block without a UTF-8 error is decoded and
 * judged exactly (kept_through). Prose's punctuation, U+2010..201F (dashes,
 * quotation marks: E2 80 9x), is not flagged at all; the ellipsis and the
 * bullet (E2 80 A6, A2) are, and kept. */
enum {
  ESC_C2_8X_9X = 0x01, ESC_C2_AD = 0x02, ESC_D8_DC = 0x04, ESC_DB_9D = 0x08,
  ESC_E1_9E = 0x10, ESC_8081_8XAX = 0x20, ESC_EF_BX = 0x40, ESC_F0_F3 = 0x80,
};
static const uint8_t kEscPrevHigh[16] = {
    0, 0, 0, 0, 0, 0, 0, 0,
    ESC_8081_8XAX,                           /* 8x */
    0, 0, 0,
    ESC_C2_8X_9X | ESC_C2_AD,                /* Cx */
    ESC_D8_DC | ESC_DB_9D,                   /* Dx */
    ESC_E1_9E | ESC_EF_BX,                   /* Ex */
    ESC_F0_F3,                               /* Fx */
};
static const uint8_t kEscPrevLow[16] = {
    ESC_F0_F3 | ESC_8081_8XAX, ESC_E1_9E | ESC_8081_8XAX, ESC_C2_8X_9X | ESC_C2_AD, ESC_F0_F3,
    0, 0, 0, 0, ESC_D8_DC, 0, 0, ESC_DB_9D, ESC_D8_DC, 0, 0, ESC_EF_BX,
};
static const uint8_t kEscCurHigh[16] = {
    0, 0, 0, 0, 0, 0, 0, 0,
    ESC_C2_8X_9X | ESC_D8_DC | ESC_8081_8XAX,         /* 8x */
    ESC_C2_8X_9X | ESC_DB_9D | ESC_E1_9E | ESC_F0_F3, /* 9x */
    ESC_C2_AD | ESC_F0_F3 | ESC_8081_8XAX,            /* Ax */
    ESC_EF_BX,                                        /* Bx */
    0, 0, 0, 0,
};
#define ESC_ANY_LOW (ESC_C2_8X_9X | ESC_8081_8XAX)
static const uint8_t kEscCurLow[16] = {
    ESC_ANY_LOW | ESC_D8_DC | ESC_F0_F3,
    ESC_ANY_LOW | ESC_D8_DC,
    ESC_ANY_LOW | ESC_D8_DC,
    ESC_ANY_LOW | ESC_D8_DC,
    ESC_ANY_LOW, ESC_ANY_LOW, ESC_ANY_LOW, ESC_ANY_LOW, ESC_ANY_LOW, ESC_ANY_LOW, ESC_ANY_LOW,
    ESC_ANY_LOW | ESC_EF_BX,
    ESC_ANY_LOW,
    ESC_ANY_LOW | ESC_C2_AD | ESC_DB_9D | ESC_F0_F3,
    ESC_ANY_LOW | ESC_E1_9E,
    ESC_ANY_LOW | ESC_D8_DC | ESC_EF_BX,
};

/* The ASCII bytes 3.21 escapes, by their two nibbles: controls (0x00-0x1F),
 * '"', '<' and '>', '\\', DEL. A byte beyond ASCII has none in the high
 * table. */
enum {
  ESC_CONTROL = 0x01, ESC_QUOTE = 0x02, ESC_ANGLE = 0x04, ESC_BACKSLASH = 0x08,
  ESC_DEL = 0x10,
};
static const uint8_t kEscAsciiHigh[16] = {
    ESC_CONTROL, ESC_CONTROL, ESC_QUOTE, ESC_ANGLE, 0, ESC_BACKSLASH, 0, ESC_DEL,
};
#define C ESC_CONTROL
static const uint8_t kEscAsciiLow[16] = {
    C, C, C | ESC_QUOTE, C, C, C, C, C, C, C, C, C,
    C | ESC_ANGLE | ESC_BACKSLASH, C, C | ESC_ANGLE, C | ESC_DEL,
};
#undef C

/* Where a run that stops at lane j (the first flagged) may end: [0, j) is
 * valid UTF-8 up to its last sequence, which the flag at j may have cut
 * short; that one is left to the printer's slow path unless complete. */
static size_t kept_before(const uint8_t *p, size_t j) {
  if (j == 0 || p[j - 1] < 0x80) return j;
  size_t q = j - 1;
  while (q > 0 && (p[q] & 0xc0) == 0x80 && j - q < 4) q--;
  size_t len = p[q] >= 0xf0 ? 4 : p[q] >= 0xe0 ? 3 : 2;
  return q + len == j ? j : q;
}

/* Where a run ends in block i, whose flagged lanes are `bad` (`err` the
 * UTF-8 errors among them), or SIZE_MAX when it goes on: each flagged code
 * point 3.21 keeps (its lead byte one to three lanes before the flag; a
 * block with no error before it is valid up to it) is passed over; the first it
 * escapes ends the run at its lead byte, an escaped ASCII byte at itself,
 * an error as kept_before says. A code point the end of the text cuts
 * short ends it too, and one the next block finds broken is backed off
 * there. */
static PBC_ALWAYS_INLINE size_t kept_through(const uint8_t *p, size_t n,
                                             size_t i, uint32_t bad,
                                             uint32_t err) {
  for (; bad != 0; bad &= bad - 1) {
    size_t j = i + (unsigned)__builtin_ctz(bad);
    if ((err & bad & -bad) != 0) return kept_before(p, j < n ? j : n);
    if (p[j] < 0x80) return j;
    /* Valid up to j: the lead is at most three bytes back. */
    size_t lead = j - 1;
    while (p[lead] < 0xc0) lead--;
    assert(j - lead <= 3 && p[lead] >= 0xc2);
    uint8_t c = p[lead];
    size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    if (n - lead < len) return lead;
    uint32_t cp = c & (0x7f >> len);
    for (size_t k = 1; k < len; k++) cp = cp << 6 | (p[lead + k] & 0x3f);
    if (pbc_rt_json_escapes_code_point(cp)) return lead;
  }
  return SIZE_MAX;
}

/* The lanes of `cur` 3.21 would escape (non-zero), given `prev`: ASCII
 * bytes and code points by their first two bytes, in nibble lookups. */
AVX2 static inline __m256i avx2_escaped(__m256i prev, __m256i cur) {
  const __m256i nibble = _mm256_set1_epi8(0x0f);
  __m256i p1 = AVX2_PREV(prev, cur, 1);
  __m256i high = _mm256_and_si256(_mm256_srli_epi16(cur, 4), nibble);
  __m256i low = _mm256_and_si256(cur, nibble);
  __m256i pair = _mm256_and_si256(
      _mm256_and_si256(
          _mm256_shuffle_epi8(avx2_table(kEscPrevHigh),
                              _mm256_and_si256(_mm256_srli_epi16(p1, 4), nibble)),
          _mm256_shuffle_epi8(avx2_table(kEscPrevLow), _mm256_and_si256(p1, nibble))),
      _mm256_and_si256(_mm256_shuffle_epi8(avx2_table(kEscCurHigh), high),
                       _mm256_shuffle_epi8(avx2_table(kEscCurLow), low)));
  __m256i ascii = _mm256_and_si256(_mm256_shuffle_epi8(avx2_table(kEscAsciiHigh), high),
                                   _mm256_shuffle_epi8(avx2_table(kEscAsciiLow), low));
  return _mm256_or_si256(pair, ascii);
}

/* The blocks of 32 from p that are kept, the last one (fewer than 32
 * bytes, none when n is a multiple of 32) with spaces after it; with copy,
 * each block scanned also stored there, at its offset. */
AVX2 static size_t json_kept_avx2(const uint8_t *p, size_t n, uint8_t *copy) {
  const avx2_tables t = avx2_load_tables();
  const __m256i zero = _mm256_setzero_si256();
  __m256i prev = zero;
  for (size_t i = 0;; i += 32) {
    __m256i cur = n - i >= 32 ? _mm256_loadu_si256((const __m256i *)(p + i))
                              : avx2_last_block(p, n, n - i, ' ');
    if (copy != NULL) _mm256_storeu_si256((__m256i *)(copy + i), cur);
    __m256i errors = avx2_block_errors(&t, prev, cur);
    __m256i flags = _mm256_or_si256(errors, avx2_escaped(prev, cur));
    uint32_t bad = ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(flags, zero));
    if (bad != 0) {
      uint32_t err = ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(errors, zero));
      size_t end = kept_through(p, n, i, bad, err);
      if (end != SIZE_MAX) return end;
    }
    if (n - i < 32) return n;
    prev = cur;
  }
}

/* avx2_escaped on 16 bytes. */
SSSE3 static inline __m128i ssse3_escaped(__m128i prev, __m128i cur) {
  const __m128i nibble = _mm_set1_epi8(0x0f);
  __m128i p1 = _mm_alignr_epi8(cur, prev, 15);
  __m128i high = _mm_and_si128(_mm_srli_epi16(cur, 4), nibble);
  __m128i low = _mm_and_si128(cur, nibble);
  __m128i pair = _mm_and_si128(
      _mm_and_si128(_mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)kEscPrevHigh),
                                     _mm_and_si128(_mm_srli_epi16(p1, 4), nibble)),
                    _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)kEscPrevLow),
                                     _mm_and_si128(p1, nibble))),
      _mm_and_si128(_mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)kEscCurHigh), high),
                    _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)kEscCurLow), low)));
  __m128i ascii =
      _mm_and_si128(_mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)kEscAsciiHigh), high),
                    _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)kEscAsciiLow), low));
  return _mm_or_si128(pair, ascii);
}

/* json_kept_avx2 with 16-byte blocks. */
SSSE3 static size_t json_kept_ssse3(const uint8_t *p, size_t n, uint8_t *copy) {
  const ssse3_tables t = ssse3_load_tables();
  const __m128i zero = _mm_setzero_si128();
  __m128i prev = zero;
  for (size_t i = 0;; i += 16) {
    __m128i cur = n - i >= 16 ? _mm_loadu_si128((const __m128i *)(p + i))
                              : ssse3_last_block(p, n, n - i, ' ');
    if (copy != NULL) _mm_storeu_si128((__m128i *)(copy + i), cur);
    __m128i errors = ssse3_block_errors(&t, prev, cur);
    __m128i flags = _mm_or_si128(errors, ssse3_escaped(prev, cur));
    uint32_t bad = 0xffffu & ~(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(flags, zero));
    if (bad != 0) {
      uint32_t err = 0xffffu & ~(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(errors, zero));
      size_t end = kept_through(p, n, i, bad, err);
      if (end != SIZE_MAX) return end;
    }
    if (n - i < 16) return n;
    prev = cur;
  }
}

/* AVX2 in the CPU, its registers enabled by the OS. From the C library's
 * CPU model (libgcc's, or compiler-rt's, __cpu_model; filled in by a
 * constructor, here made sure of first) rather than cpuid: pbc's code
 * generator has no inline-asm support, and libgcc is in every link made by
 * a C compiler. */
bool pbc_rt_cpu_has_avx2(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
}

bool pbc_rt_cpu_has_ssse3(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("ssse3");
}

/* 1 when the code is compiled for a CPU with AVX2, so that no run-time check
 * is needed: a C compiler says so with -mavx2 (or a -march that has it); in
 * the bitcode pbc embeds, pbc sets it from --mcpu (compiler/CodeGen.cpp),
 * which is why it is weak there: clang must not fold it. */
#if defined(__AVX2__)
const uint8_t pbc_rt_target_avx2 = 1;
#else
PBC_WEAK const uint8_t pbc_rt_target_avx2 = 0;
#endif

typedef bool utf8_fn(const uint8_t *p, size_t n);

static bool utf8_first_call(const uint8_t *p, size_t n);

/* The validator this CPU runs best, found on the first call. Threads racing
 * on the first call all store the same value; relaxed atomics make that
 * well-defined and cost a plain load. */
static utf8_fn *utf8_impl = utf8_first_call;

static utf8_fn *utf8_best(void) {
  if (pbc_rt_cpu_has_avx2()) return utf8_avx2;
  return pbc_rt_cpu_has_ssse3() ? utf8_ssse3 : utf8_generic;
}

static bool utf8_first_call(const uint8_t *p, size_t n) {
  utf8_fn *best = utf8_best();
  __atomic_store_n(&utf8_impl, best, __ATOMIC_RELAXED);
  return best(p, n);
}

typedef const char *string_run_fn(const char *p, const char *end, bool *valid);

/* The string scanner that goes with each validator. */
static string_run_fn *string_run_for(utf8_fn *fn) {
  if (fn == utf8_avx2) return string_run_avx2;
  return fn == utf8_ssse3 ? string_run_ssse3 : string_run_generic;
}

static const char *string_run_first_call(const char *p, const char *end,
                                         bool *valid);

/* Picked like utf8_impl, and changed with it by pbc_rt_utf8_use. */
static string_run_fn *string_run_impl = string_run_first_call;

static const char *string_run_first_call(const char *p, const char *end,
                                         bool *valid) {
  string_run_fn *best = string_run_for(utf8_best());
  __atomic_store_n(&string_run_impl, best, __ATOMIC_RELAXED);
  return best(p, end, valid);
}

bool pbc_rt_utf8_use(int impl) {
  utf8_fn *fn;
  if (impl == PBC_RT_UTF8_AUTO) fn = utf8_best();
  else if (impl == PBC_RT_UTF8_GENERIC && !pbc_rt_target_avx2) fn = utf8_generic;
  else if (impl == PBC_RT_UTF8_SSSE3 && !pbc_rt_target_avx2 && pbc_rt_cpu_has_ssse3()) fn = utf8_ssse3;
  else if (impl == PBC_RT_UTF8_AVX2 && pbc_rt_cpu_has_avx2()) fn = utf8_avx2;
  else return false;
  __atomic_store_n(&utf8_impl, fn, __ATOMIC_RELAXED);
  __atomic_store_n(&string_run_impl, string_run_for(fn), __ATOMIC_RELAXED);
  return true;
}

int pbc_rt_utf8_current(void) {
  utf8_fn *fn = __atomic_load_n(&utf8_impl, __ATOMIC_RELAXED);
  if (pbc_rt_target_avx2 || fn == utf8_avx2) return PBC_RT_UTF8_AVX2;
  if (fn == utf8_ssse3) return PBC_RT_UTF8_SSSE3;
  return fn == utf8_generic ? PBC_RT_UTF8_GENERIC : PBC_RT_UTF8_AUTO;
}

bool pbc_rt_utf8_valid(const uint8_t *p, size_t n) {
  if (n <= 16 && ascii_upto16(p, n)) return true;
  /* Built for AVX2 (-mavx2, pbc --mcpu), so run on a CPU that has it. */
  assert(!pbc_rt_target_avx2 || pbc_rt_cpu_has_avx2());
  if (pbc_rt_target_avx2) return utf8_avx2(p, n);
  utf8_fn *fn = __atomic_load_n(&utf8_impl, __ATOMIC_RELAXED);
  /* The first call's chooser, then what it or pbc_rt_utf8_use chose. */
  assert(fn == utf8_first_call || fn == utf8_generic || fn == utf8_ssse3 ||
         fn == utf8_avx2);
  return fn(p, n);
}

const char *pbc_rt_utf8_string_run(const char *p, const char *end, bool *valid) {
  assert(p <= end);
  if (pbc_rt_target_avx2) return string_run_avx2(p, end, valid);
  string_run_fn *fn = __atomic_load_n(&string_run_impl, __ATOMIC_RELAXED);
  return fn(p, end, valid);
}

size_t pbc_rt_utf8_json_kept(const uint8_t *p, size_t n, uint8_t *copy) {
  if (pbc_rt_target_avx2) return json_kept_avx2(p, n, copy);
  /* Goes with the validator in use (the first call picks it here too). */
  utf8_fn *fn = __atomic_load_n(&utf8_impl, __ATOMIC_RELAXED);
  if (fn == utf8_first_call) {
    fn = utf8_best();
    __atomic_store_n(&utf8_impl, fn, __ATOMIC_RELAXED);
  }
  if (fn == utf8_avx2) return json_kept_avx2(p, n, copy);
  return fn == utf8_ssse3 ? json_kept_ssse3(p, n, copy) : 0;
}

#else /* not x86-64 */

bool pbc_rt_utf8_use(int impl) {
  return impl == PBC_RT_UTF8_AUTO || impl == PBC_RT_UTF8_GENERIC;
}

int pbc_rt_utf8_current(void) {
  return PBC_RT_UTF8_GENERIC;
}

bool pbc_rt_utf8_valid(const uint8_t *p, size_t n) {
  if (n <= 16 && ascii_upto16(p, n)) return true;
  return utf8_generic(p, n);
}

const char *pbc_rt_utf8_string_run(const char *p, const char *end, bool *valid) {
  return string_run_generic(p, end, valid);
}

size_t pbc_rt_utf8_json_kept(const uint8_t *p, size_t n, uint8_t *copy) {
  (void)p, (void)n, (void)copy;
  return 0;
}

#endif
