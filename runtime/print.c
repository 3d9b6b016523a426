/* Numbers as libprotobuf's printers write them (runtime/print_internal.h). */
#include <stdio.h>
#include <stdlib.h>

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
typedef unsigned __int128 pbc_u128;

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

/* printf's %.<precision>g of the value digits * 10^(exp - precision + 1),
 * where digits has exactly `precision` digits, or is 10^precision (a
 * rounding that carried into a new digit: one digit less, exp + 1). */
static size_t put_g(char *out, bool neg, uint64_t digits, int precision,
                    int exp) {
  if (digits == kPow10[precision]) {
    digits = kPow10[precision - 1];
    exp++;
  }
  char d[20];
  pbc_digits_back(d + precision, digits); /* exactly `precision` digits */
  int n = precision;
  while (n > 1 && d[n - 1] == '0') n--; /* %g drops trailing zeros */
  size_t k = 0;
  if (neg) out[k++] = '-';
  if (exp < -4 || exp >= precision) {
    out[k++] = d[0];
    if (n > 1) {
      out[k++] = '.';
      memcpy(out + k, d + 1, (size_t)n - 1);
      k += (size_t)n - 1;
    }
    out[k++] = 'e';
    out[k++] = exp < 0 ? '-' : '+';
    int a = exp < 0 ? -exp : exp;
    if (a >= 100) out[k++] = (char)('0' + a / 100);
    out[k++] = (char)('0' + a / 10 % 10);
    out[k++] = (char)('0' + a % 10);
  } else if (exp >= 0) {
    int whole = exp + 1; /* digits before the point: whole <= precision */
    for (int i = 0; i < whole; i++) out[k++] = i < n ? d[i] : '0';
    if (n > whole) {
      out[k++] = '.';
      memcpy(out + k, d + whole, (size_t)(n - whole));
      k += (size_t)(n - whole);
    }
  } else {
    out[k++] = '0';
    out[k++] = '.';
    for (int i = 0; i < -exp - 1; i++) out[k++] = '0';
    memcpy(out + k, d, (size_t)n);
    k += (size_t)n;
  }
  return k;
}


/* The text of m * 2^e (m > 0) into out, or 0 when out of this method's
 * range. lower_closer: m is the smallest mantissa of its exponent. */
static size_t format_exact(char *out, bool neg, uint64_t m, int e,
                           bool lower_closer, int hi, int lo) {
  int bits = 64 - __builtin_clzll(m);
  /* floor(log10(2^(e + bits - 1))): v's decimal exponent or one less. */
  int b2 = e + bits - 1;
  int exp = b2 >= 0 ? (int)(((int64_t)b2 * 78913) >> 18)
                    : -(int)(((int64_t)-b2 * 78913 + (1 << 18) - 1) >> 18);
  for (int attempt = 0; attempt < 2; attempt++) {
    int s = hi - 1 - exp;
    if (s < 0 || s > 32) return 0;
    pbc_u128 five = s <= 27 ? (pbc_u128)kPow5[s] : (pbc_u128)kPow5[27] * kPow5[s - 27];
    pbc_u128 p = (pbc_u128)m * five;
    int shift = e + s, t = 0;
    pbc_u128 q, r = 0;
    if (shift >= 0) {
      if (shift > 63) return 0;
      q = p << shift;
    } else {
      t = -shift;
      if (t > 100) return 0;
      q = p >> t;
      r = p & (((pbc_u128)1 << t) - 1);
    }
    if (q >= kPow10[hi]) { /* the estimate was one too low */
      exp++;
      continue;
    }
    if (q < kPow10[hi - 1]) return 0; /* (the estimate is never high) */
    uint64_t qd = (uint64_t)q;
    /* The `lo`-digit rounding, and whether it reads back. */
    uint64_t d = kPow10[hi - lo], low = qd / d, rem = qd % d;
    bool up = rem > d / 2 || (rem == d / 2 && (r != 0 || (low & 1)));
    int64_t dq = (int64_t)((low + up) * d) - (int64_t)qd;
    bool back = false;
    if (dq >= -128 && dq <= 128) {
      __int128 diff = (__int128)dq * ((__int128)1 << t) - (__int128)r;
      pbc_u128 a = (pbc_u128)(diff < 0 ? -diff : diff);
      /* The interval's width, in units of 2^-t: 5^s, times 2^shift when
       * X is an integer. */
      pbc_u128 width = shift > 0 ? five << shift : five;
      pbc_u128 edge = diff < 0 && lower_closer ? 4 * a : 2 * a;
      back = edge < width || (edge == width && (m & 1) == 0);
    }
    if (back) return put_g(out, neg, low + up, lo, exp);
    pbc_u128 half = t ? (pbc_u128)1 << (t - 1) : 0;
    bool up_hi = t != 0 && (r > half || (r == half && (qd & 1)));
    return put_g(out, neg, qd + up_hi, hi, exp);
  }
  return 0;
}

/* The exact path for v, or 0. */
static size_t format_fast(char *out, double v, bool is_float) {
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
    return format_exact(out, neg, m, e, lower_closer, 9, 6);
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
  return format_exact(out, neg, m, e, lower_closer, 17, 15);
}

/* Reading back is strtod, or for a float safe_strtof, which also fails
 * when strtof reports an underflow: every non-zero subnormal takes the 9
 * digits. */
size_t pbc_format_real(char *out, double v, bool is_float) {
  if (v == 0) {
    memcpy(out, "-0", 2);
    return __builtin_signbit(v) ? 2 : (out[0] = '0', 1);
  }
  size_t fast = format_fast(out, v, is_float);
  if (fast != 0) return fast;
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
