/* Numbers as libprotobuf's printers write them (runtime/print_internal.h). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "pbc/port.h"
#include "print_internal.h"

/* ---- Without snprintf ------------------------------------------------------
 * libprotobuf's SimpleDtoa is "%.15g" when that reads back as the value,
 * else "%.17g" (SimpleFtoa: "%.6g", else "%.9g"). Both roundings are of the
 * exact binary value, so they are computed here exactly, in integers, for
 * the values most messages hold; the rest (magnitudes from 10^17 up or
 * below about 10^-16, subnormal floats) take snprintf below, which gives
 * the same text.
 *
 * v = m * 2^e exactly. X = v * 10^s, with s chosen so that X has `hi`
 * (17 or 9) digits before the point, is P / 2^t for the integer
 * P = m * 5^s (t = -(e + s)): its integer part q and the remainder r give
 * the `hi`-digit rounding (half to even), and q alone, with r, the
 * `lo`-digit one (15 or 6). That one reads back exactly when it lies
 * inside v's rounding interval, whose half-width in units of 2^-t is
 * 5^s / 2 (times 2^(e + s) when X is an integer; half that below a power
 * of two, where the next value down is closer); on its edge, when m is
 * even (strtod rounds ties to even). */

static const uint64_t kPow10[18] = {
    1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
    10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
    100000000000ULL, 1000000000000ULL, 10000000000000ULL,
    100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
    100000000000000000ULL};

/* 5^s for s <= 27, the powers that fit in 64 bits; format_exact's larger
 * ones are a product of two. */
static const uint64_t kPow5[28] = {
    1ULL, 5ULL, 25ULL, 125ULL, 625ULL, 3125ULL, 15625ULL, 78125ULL, 390625ULL,
    1953125ULL, 9765625ULL, 48828125ULL, 244140625ULL, 1220703125ULL,
    6103515625ULL, 30517578125ULL, 152587890625ULL, 762939453125ULL,
    3814697265625ULL, 19073486328125ULL, 95367431640625ULL, 476837158203125ULL,
    2384185791015625ULL, 11920928955078125ULL, 59604644775390625ULL,
    298023223876953125ULL, 1490116119384765625ULL, 7450580596923828125ULL};

/* From 24 - k on, k bytes of 0xff (k <= 24) and zeros after them. */
static const uint8_t kFirstBytes[48] = {[0 ... 23] = 0xff};

/* printf's %.<precision>g of the value digits * 10^(exp - 16), where
 * digits has 17 digits, those past the first `precision` zeros, or is
 * 10^17 (a rounding that carried into a new digit: exp + 1). Always 17:
 * the digits need no shift past leading zeros, and the precision only
 * decides between the fixed and the exponent form. The digits are made in
 * registers (pbc_digit_bytes16): a 24-byte string, the first sixteen in
 * `lo`, the seventeenth in `hi`; %g's trailing zeros are found in them
 * (pbc_digits16_used), and the text is placed by stores of those words,
 * past its end into the scratch room (PBC_FORMAT_REAL_ROOM). No byte is
 * stored to be loaded again (a wider load cannot be forwarded from
 * narrower stores: it waits for them to reach the cache). */
static PBC_ALWAYS_INLINE size_t put_g(char *out, bool neg, uint64_t digits,
                                      int precision, int exp) {
  assert(precision >= 6 && precision <= 17);
  assert(digits >= kPow10[16] && digits <= kPow10[17]);
  if (digits == kPow10[17]) {
    digits = kPow10[16];
    exp++;
  }
  pbc_u128 last = pbc_digit_bytes16(digits % 10000000000000000ULL);
  pbc_u128 lo = (pbc_u128)(digits / 10000000000000000ULL) | last << 8;
  uint64_t hi = (uint64_t)(last >> 120);
  /* The digits up to the last that is not 0 (the first is not). */
  int n = 1 + pbc_digits16_used(last);
  lo |= PBC_DIGITS_ASCII16;
  hi |= PBC_DIGITS_ASCII;
  out[0] = '-';
  char *o = out + neg;
  size_t k;
  if (exp < 0 && exp >= -4) {
    /* "0.", -exp - 1 zeros (at most 3), the digits. */
    memcpy(o, "0.000000", 8);
    memcpy(o + 1 - exp, &lo, 16);
    memcpy(o + 17 - exp, &hi, 8);
    k = (size_t)(1 - exp + n);
  } else {
    /* `whole` digits before the point: one in the exponent's form, else
     * exp + 1 (the zeros %g dropped among them). */
    bool sci = exp < -4 || exp >= precision;
    int whole = sci ? 1 : exp + 1;
    /* The point after the first `whole` digits without a branch or a
     * shift by a variable count: the string moved up a byte, blended
     * with itself below the point by a mask read at an offset, the
     * point's byte then stored over (and over that the 'e' or the NUL
     * when no digit follows it). */
    pbc_u128 mask_lo;
    uint64_t mask_hi;
    memcpy(&mask_lo, kFirstBytes + 24 - whole, 16);
    memcpy(&mask_hi, kFirstBytes + 40 - whole, 8);
    pbc_u128 moved_lo = lo << 8;
    uint64_t moved_hi = hi << 8 | (uint64_t)(lo >> 120);
    lo = moved_lo ^ ((lo ^ moved_lo) & mask_lo);
    hi = moved_hi ^ ((hi ^ moved_hi) & mask_hi);
    memcpy(o, &lo, 16);
    memcpy(o + 16, &hi, 8);
    o[whole] = '.';
    k = (size_t)(n > whole ? n + 1 : whole);
    if (sci) {
      o[k++] = 'e';
      o[k++] = exp < 0 ? '-' : '+';
      int e = exp < 0 ? -exp : exp;
      if (e >= 100) o[k++] = (char)('0' + e / 100);
      memcpy(o + k, pbc_digit_pairs + e % 100 * 2, 2);
      k += 2;
    }
  }
  o[k] = '\0';
  return k + neg;
}

/* 10^k as the double nearest it, k from -25 to 18, for the decimal
 * exponent (below). */
static const double kPow10Double[44] = {
    1e-25, 1e-24, 1e-23, 1e-22, 1e-21, 1e-20, 1e-19, 1e-18, 1e-17,
    1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1e-11, 1e-10, 1e-9,  1e-8,
    1e-7,  1e-6,  1e-5,  1e-4,  1e-3,  1e-2,  1e-1,  1e0,   1e1,
    1e2,   1e3,   1e4,   1e5,   1e6,   1e7,   1e8,   1e9,   1e10,
    1e11,  1e12,  1e13,  1e14,  1e15,  1e16,  1e17,  1e18};

/* The text of mag = m * 2^e (m > 0) into out, or 0 when out of this
 * method's range. lower_closer: m is the smallest mantissa of its
 * exponent. hi and lo are constants where this is inlined.
 *
 * The decimal exponent: the binary one times log10(2) gives it or one
 * less, and mag against the power of ten above says which. That compare
 * is exact but where the double nearest 10^k is below it and mag is that
 * double (then the estimate is one too high); the product's digit count
 * catches both misses and the loop takes the other exponent.
 *
 * X's integer part q and its remainder r (below 2^t) come from one
 * 128-bit product; where 5^s fits a word and t is at most 55 (a double's
 * magnitudes from about 10^-4 to 10^17, a float's from 10^-4 up) r is a
 * word too and so are the roundings' tests, the 128-bit forms only take
 * the rest. */
static PBC_ALWAYS_INLINE size_t format_exact(char *out, bool neg, double mag,
                                             uint64_t m, int e,
                                             bool lower_closer, int hi, int lo,
                                             bool wide) {
  int bits = 64 - __builtin_clzll(m);
  /* floor(log10(2^(e + bits - 1))): v's decimal exponent or one less. */
  int b2 = e + bits - 1;
  int exp = b2 >= 0 ? (int)(((int64_t)b2 * 78913) >> 18)
                    : -(int)(((int64_t)-b2 * 78913 + (1 << 18) - 1) >> 18);
  if (exp < -25 || exp > 17) return 0;
  exp += mag >= kPow10Double[exp + 26];
  const uint64_t d = kPow10[hi - lo];
  /* The interval's half-width is below 10^hi / 2^bits units of X (X is
   * below 10^hi, m at least 2^(bits - 1)) and the lo-digit value lies
   * |dq| - 1 or more from X: past (10^hi >> bits) + 1 it cannot read
   * back, which most 17-digit values show here without the exact test
   * (|dq| up to 50; the bound 12, 60 for a float). */
  const int64_t near = (int64_t)(kPow10[hi] >> bits) + 1;
  for (int attempt = 0; attempt < 2; attempt++) {
    int s = hi - 1 - exp;
    if (s < 0 || s > 32) return 0;
    int shift = e + s;
    bool narrow = s <= 27 && shift < 0 && shift >= -55;
    if (!wide && !narrow) return 0;
    pbc_u128 five = s <= 27 ? (pbc_u128)kPow5[s]
                            : (pbc_u128)kPow5[27] * kPow5[s - 27];
    pbc_u128 p = (pbc_u128)m * five;
    /* X = q + r / 2^t: in words (narrow), else in 128 bits (r_wide; r then
     * only says whether it is 0). */
    int t = shift < 0 ? -shift : 0;
    uint64_t q, r;
    pbc_u128 r_wide = 0;
    if (PBC_LIKELY(narrow)) {
      /* q is below 10^18 (the exponent is at most one off). */
      q = (uint64_t)(p >> (t & 63));
      r = (uint64_t)p & (((uint64_t)1 << (t & 63)) - 1);
    } else {
      if (shift > 63 || t > 100) return 0;
      pbc_u128 q_wide = shift >= 0 ? p << shift : p >> t;
      if (q_wide >= kPow10[hi]) q = kPow10[hi]; /* (and retried below) */
      else q = (uint64_t)q_wide;
      if (t) r_wide = p & (((pbc_u128)1 << t) - 1);
      r = r_wide != 0;
    }
    if (q >= kPow10[hi]) {
      exp++;
      continue;
    }
    if (q < kPow10[hi - 1]) {
      exp--;
      continue;
    }
    /* The `lo`-digit rounding, and whether it reads back. */
    uint64_t low = q / d, rem = q % d;
    /* Bitwise, not ||: half of these go each way, a branch would guess. */
    bool up = (rem > d / 2) | ((rem == d / 2) & ((r != 0) | (low & 1)));
    int64_t dq = (int64_t)((low + up) * d) - (int64_t)q;
    bool back = false, up_hi;
    if ((uint64_t)(dq + near) <= (uint64_t)(2 * near)) { /* |dq| <= near */
      /* Its distance from X, against the interval's width in units of
       * 2^-t: 5^s, times 2^shift when X is an integer. In words: |dq| is
       * at most 60 and t at most 55, so |diff| < 2^61, 4 |diff| < 2^63. */
      if (PBC_LIKELY(narrow)) {
        int64_t diff = dq * ((int64_t)1 << t) - (int64_t)r;
        uint64_t a = (uint64_t)(diff < 0 ? -diff : diff);
        uint64_t edge = diff < 0 && lower_closer ? 4 * a : 2 * a;
        uint64_t width = (uint64_t)five;
        back = edge < width || (edge == width && (m & 1) == 0);
      } else {
        __int128 diff = (__int128)dq * ((__int128)1 << t) - (__int128)r_wide;
        pbc_u128 a = (pbc_u128)(diff < 0 ? -diff : diff);
        pbc_u128 width = shift > 0 ? five << shift : five;
        pbc_u128 edge = diff < 0 && lower_closer ? 4 * a : 2 * a;
        back = edge < width || (edge == width && (m & 1) == 0);
      }
    }
    /* The `hi`-digit rounding: r against half of 2^t, half to even. */
    if (PBC_LIKELY(narrow)) {
      uint64_t half = (uint64_t)1 << ((t - 1) & 63);
      up_hi = (r > half) | ((r == half) & (q & 1));
    } else {
      pbc_u128 half = t ? (pbc_u128)1 << (t - 1) : 0;
      up_hi = (t != 0) & ((r_wide > half) | ((r_wide == half) & (q & 1)));
    }
    /* One put_g for both, its digits and precision chosen without a
     * branch: whether `lo` digits read back is as unpredictable as the
     * rounding. */
    uint64_t digits = back ? (low + up) * d : q + up_hi;
    return put_g(out, neg, digits * kPow10[17 - hi], back ? lo : hi, exp);
  }
  return 0;
}

/* The exact path for v, or 0; without `wide`, only its word-sized form
 * (the other values are format_slow's: the runs' loops, which inline
 * this, keep their registers). */
static PBC_ALWAYS_INLINE size_t format_fast(char *out, double v, bool is_float,
                                            bool wide) {
  uint64_t m;
  int e;
  bool neg, lower_closer;
  if (is_float) {
    float f = (float)v;
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    neg = b >> 31;
    uint32_t biased = b >> 23 & 0xff, frac = b & 0x7fffff;
    if (biased == 0 || biased == 0xff) return 0; /* zero, subnormal, inf, NaN */
    m = frac | 0x800000u;
    e = (int)biased - 150;
    lower_closer = frac == 0 && biased > 1;
    return format_exact(out, neg, __builtin_fabs(v), m, e, lower_closer, 9, 6,
                        wide);
  }
  uint64_t b;
  memcpy(&b, &v, sizeof b);
  neg = b >> 63;
  uint32_t biased = (uint32_t)(b >> 52 & 0x7ff);
  uint64_t frac = b & 0xfffffffffffffULL;
  if (biased == 0x7ff || (biased == 0 && frac == 0)) return 0;
  m = biased ? frac | (1ULL << 52) : frac;
  e = biased ? (int)biased - 1075 : -1074;
  lower_closer = frac == 0 && biased > 1;
  return format_exact(out, neg, __builtin_fabs(v), m, e, lower_closer, 17, 15,
                      wide);
}

/* Zero, format_fast's wide form, and what that leaves (magnitudes from
 * 10^17 up or below about 10^-16, subnormal floats) by snprintf. Reading
 * back is strtod, or for a float safe_strtof, which also fails when strtof
 * reports an underflow: every non-zero subnormal takes the 9 digits. Out
 * of line: the runs below keep their loop small. */
static PBC_NOINLINE size_t format_slow(char *out, double v, bool is_float) {
  if (v == 0) {
    if (__builtin_signbit(v)) return memcpy(out, "-0", 3), 2;
    return memcpy(out, "0", 2), 1;
  }
  size_t exact = format_fast(out, v, is_float, true);
  if (exact != 0) return exact;
  int n;
  if (is_float) {
    n = snprintf(out, PBC_FORMAT_REAL_MAX, "%.6g", v);
    bool subnormal = v != 0 && v < 0x1p-126 && v > -0x1p-126;
    if (subnormal || strtof(out, NULL) != (float)v)
      n = snprintf(out, PBC_FORMAT_REAL_MAX, "%.9g", v);
  } else {
    n = snprintf(out, PBC_FORMAT_REAL_MAX, "%.15g", v);
    if (strtod(out, NULL) != v)
      n = snprintf(out, PBC_FORMAT_REAL_MAX, "%.17g", v);
  }
  return (size_t)n;
}

/* pbc_format_real for one type (a constant where this is inlined). */
static PBC_ALWAYS_INLINE size_t format_one(char *out, double v, bool is_float) {
  size_t fast = format_fast(out, v, is_float, false);
  return fast != 0 ? fast : format_slow(out, v, is_float);
}

size_t pbc_format_real(char *out, double v, bool is_float) {
  assert(__builtin_isfinite(v));
  return is_float ? format_one(out, v, true) : format_one(out, v, false);
}

/* pbc_format_real_run for one type (a constant where this is inlined):
 * the formatter in the loop, the text's end in a register. */
static PBC_ALWAYS_INLINE size_t format_run(char *buf, size_t *len, size_t cap,
                                           const uint8_t *v, size_t n,
                                           bool is_float, bool comma) {
  size_t at = *len, i = 0;
  for (; i < n && cap - at >= 1 + PBC_FORMAT_REAL_ROOM; i++) {
    double d;
    if (is_float) {
      float f;
      memcpy(&f, v + 4 * i, 4);
      d = f;
    } else {
      memcpy(&d, v + 8 * i, 8);
    }
    if (!__builtin_isfinite(d)) break;
    buf[at] = ','; /* overwritten by the number when no comma */
    at += comma;
    comma = true;
    at += format_one(buf + at, d, is_float);
  }
  *len = at;
  return i;
}

size_t pbc_format_real_run(char *buf, size_t *len, size_t cap,
                           const void *values, size_t n, bool is_float,
                           bool comma) {
  assert(*len <= cap);
  return is_float ? format_run(buf, len, cap, values, n, true, comma)
                  : format_run(buf, len, cap, values, n, false, comma);
}
