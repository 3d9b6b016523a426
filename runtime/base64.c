/* Base64 decoding in blocks, for ProtoJSON's bytes fields (json_parse.c
 * reads the rest: a tail shorter than a block, padding, a bad digit's
 * error). Both alphabets are accepted, even mixed (3.21 refuses a mix;
 * docs/json.md): '+' and '-' are 62, '/' and '_' 63.
 *
 * The block decoders follow Muła and Lemire ("Faster Base64 Encoding and
 * Decoding Using AVX2 Instructions", 2018): each digit's 6-bit value is its
 * byte plus an offset looked up (vpshufb) by the byte's high nibble, and
 * validity is the AND of two nibble lookups. Two alphabets put three
 * different offsets under the high nibble 2 ('+', '-', '/') and two under 5
 * ('P'..'Z', '_'), so the index is the high nibble plus a small shift looked
 * up by the low nibble (6 for 0xD, 9 for 0xF), which moves '-', '/' and '_'
 * (and 'M', 'm', 'O', 'o' with them) to slots of their own: a search over
 * the shifts found these. Then multiply-adds pack four 6-bit values into
 * three bytes, and a shuffle puts them in order.
 *
 * x86-64 only, like utf8.c's lookup-table validators (SSSE3: 16 digits a
 * block, AVX2: 32), picked at run time from the CPU model; elsewhere the
 * caller's four-digit loop does it all. */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "pbc_rt.h"

#if defined(__x86_64__)
#include <immintrin.h>

/* Each byte's high nibble gives it a class bit, its low nibble the set of
 * classes in which it is no digit: a byte is a digit when the two do not
 * meet. The classes, by high nibble: 2 (only B, D, F are digits), 3 (0..9),
 * 4 and 6 (all but 0), 5 (0..A and F), 7 (0..A), and all the others (none). */
static const uint8_t kClassOfHigh[16] = {0x02, 0x02, 0x04, 0x08, 0x01, 0x10, 0x01, 0x20,
                                         0x02, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02};
static const uint8_t kBadInLow[16] = {0x07, 0x06, 0x06, 0x06, 0x06, 0x06, 0x06, 0x06,
                                      0x06, 0x06, 0x0e, 0x3a, 0x3e, 0x3a, 0x3e, 0x2a};
/* The low nibble's shift of the offset slot, and the offsets (value minus
 * byte, mod 256) by slot: 2 '+', 3 digits, 4 and 5 'A'..'Z', 6 and 7
 * 'a'..'z', 8 '-', 10 and 13 'M' and 'O', 11 '/', 12 and 15 'm' and 'o',
 * 14 '_'. */
static const uint8_t kSlotShift[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6, 0, 9};
static const uint8_t kOffset[16] = {0x00, 0x00, 0x13, 0x04, 0xbf, 0xbf, 0xb9, 0xb9,
                                    0x11, 0x00, 0xbf, 0x10, 0xb9, 0xbf, 0xe0, 0xb9};
/* Within each 32-bit lane the three bytes of its 24-bit group, most
 * significant first; the last four lanes of the 16 are left over. */
static const int8_t kPackOrder[16] = {2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1};

#define SSSE3 PBC_TARGET("ssse3")
#define AVX2 PBC_TARGET("avx2")

/* 16 digits' values in `*v`, or false when a byte of `in` is no digit. */
SSSE3 static inline bool ssse3_values(__m128i in, __m128i *v) {
  const __m128i nibble = _mm_set1_epi8(0x0f);
  __m128i hi = _mm_and_si128(_mm_srli_epi32(in, 4), nibble), lo = _mm_and_si128(in, nibble);
  __m128i bad = _mm_and_si128(_mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)kClassOfHigh), hi),
                              _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)kBadInLow), lo));
  if (_mm_movemask_epi8(_mm_cmpeq_epi8(bad, _mm_setzero_si128())) != 0xffff) return false;
  __m128i slot =
      _mm_add_epi8(hi, _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)kSlotShift), lo));
  *v = _mm_add_epi8(in, _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)kOffset), slot));
  return true;
}

/* Four values a lane to the lane's 24 bits, then the bytes in order. */
SSSE3 static inline __m128i ssse3_pack(__m128i v) {
  __m128i pairs = _mm_maddubs_epi16(v, _mm_set1_epi32(0x01400140));
  __m128i lanes = _mm_madd_epi16(pairs, _mm_set1_epi32(0x00011000));
  return _mm_shuffle_epi8(lanes, _mm_loadu_si128((const __m128i *)kPackOrder));
}

SSSE3 static size_t blocks_ssse3(const uint8_t *in, size_t n, uint8_t *out) {
  size_t i = 0;
  /* A block stores 16 bytes, 12 of them its own: 24 digits left keep the
   * other four inside n / 4 * 3. */
  for (; i + 24 <= n; i += 16) {
    __m128i v;
    if (!ssse3_values(_mm_loadu_si128((const __m128i *)(in + i)), &v)) break;
    _mm_storeu_si128((__m128i *)(out + i / 4 * 3), ssse3_pack(v));
  }
  return i;
}

/* ssse3_values on 32 digits; vpshufb looks up each 16-byte half in its own
 * copy of the table. */
AVX2 static inline bool avx2_values(__m256i in, __m256i *v) {
  const __m256i nibble = _mm256_set1_epi8(0x0f);
  __m256i hi = _mm256_and_si256(_mm256_srli_epi32(in, 4), nibble),
          lo = _mm256_and_si256(in, nibble);
  __m256i bad = _mm256_and_si256(
      _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)kClassOfHigh)), hi),
      _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)kBadInLow)), lo));
  if (!_mm256_testz_si256(bad, bad)) return false;
  __m256i slot = _mm256_add_epi8(
      hi, _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)kSlotShift)), lo));
  *v = _mm256_add_epi8(
      in, _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)kOffset)), slot));
  return true;
}

AVX2 static size_t blocks_avx2(const uint8_t *in, size_t n, uint8_t *out) {
  const __m256i order = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)kPackOrder));
  /* Each half's 12 bytes, then the two halves' together: 24 bytes in the
   * low 24 of the 32 stored. */
  const __m256i join = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7);
  size_t i = 0;
  /* A block stores 32 bytes, 24 of them its own: 44 digits left keep the
   * other eight inside n / 4 * 3. */
  for (; i + 44 <= n; i += 32) {
    __m256i v;
    if (!avx2_values(_mm256_loadu_si256((const __m256i *)(in + i)), &v)) break;
    __m256i pairs = _mm256_maddubs_epi16(v, _mm256_set1_epi32(0x01400140));
    __m256i lanes = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x00011000));
    __m256i bytes = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(lanes, order), join);
    _mm256_storeu_si256((__m256i *)(out + i / 4 * 3), bytes);
  }
  /* Then 16-digit blocks for what is left. */
  return i + blocks_ssse3(in + i, n - i, out + i / 4 * 3);
}

typedef size_t blocks_fn(const uint8_t *in, size_t n, uint8_t *out);

static size_t blocks_first_call(const uint8_t *in, size_t n, uint8_t *out);

static size_t blocks_none(const uint8_t *in, size_t n, uint8_t *out) {
  (void)in, (void)n, (void)out;
  return 0;
}

/* Picked on the first call, like utf8.c's validator. */
static blocks_fn *blocks_impl = blocks_first_call;

static blocks_fn *blocks_best(void) {
  if (pbc_rt_cpu_has_avx2()) return blocks_avx2;
  return pbc_rt_cpu_has_ssse3() ? blocks_ssse3 : blocks_none;
}

static size_t blocks_first_call(const uint8_t *in, size_t n, uint8_t *out) {
  blocks_fn *best = blocks_best();
  __atomic_store_n(&blocks_impl, best, __ATOMIC_RELAXED);
  return best(in, n, out);
}

bool pbc_rt_base64_use(int impl) {
  blocks_fn *fn;
  if (impl == PBC_RT_UTF8_AUTO) fn = blocks_best();
  else if (impl == PBC_RT_UTF8_GENERIC && !pbc_rt_target_avx2) fn = blocks_none;
  else if (impl == PBC_RT_UTF8_SSSE3 && !pbc_rt_target_avx2 && pbc_rt_cpu_has_ssse3()) fn = blocks_ssse3;
  else if (impl == PBC_RT_UTF8_AVX2 && pbc_rt_cpu_has_avx2()) fn = blocks_avx2;
  else return false;
  __atomic_store_n(&blocks_impl, fn, __ATOMIC_RELAXED);
  return true;
}

size_t pbc_rt_base64_blocks(const uint8_t *in, size_t n, uint8_t *out) {
  if (n < 24) return 0;
  if (pbc_rt_target_avx2) return blocks_avx2(in, n, out);
  blocks_fn *fn = __atomic_load_n(&blocks_impl, __ATOMIC_RELAXED);
  return fn(in, n, out);
}

#else /* not x86-64 */

bool pbc_rt_base64_use(int impl) {
  return impl == PBC_RT_UTF8_AUTO || impl == PBC_RT_UTF8_GENERIC;
}

size_t pbc_rt_base64_blocks(const uint8_t *in, size_t n, uint8_t *out) {
  (void)in, (void)n, (void)out;
  return 0;
}

#endif
