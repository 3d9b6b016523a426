/* pbc_format_real (runtime/print.c), which prints floats and doubles
 * without snprintf where it can, against libprotobuf's definition done
 * with the C library: "%.15g" if strtod reads it back, else "%.17g"
 * (floats: "%.6g" if strtof reads it back and the value is not subnormal,
 * else "%.9g"). Deterministic inputs, each compared byte for byte:
 *  - doubles and floats with random mantissas at every binary exponent of
 *    the exact path's range and beyond it (where the fallback answers),
 *    and random bit patterns;
 *  - short decimals ("0.1", "2.5e-7", 1 to 17 digits, exponents -30..30)
 *    as strtod and strtof read them: the values people write, whose
 *    shortest form has few digits;
 *  - integers, powers of two and ten, and each one's neighbours (the
 *    values on the edges of a decimal exponent or of a binade).
 * And integers (pbc_format_u64, pbc_format_i64 and their 32-bit forms:
 * the digit count first, then the digits made in a register and shifted
 * past the leading zeros) against "%llu", "%lld", "%u" and "%d", into a
 * buffer of exactly PBC_FORMAT_INT_ROOM bytes: every power of two and of
 * ten with its neighbours (and their low halves for the 32-bit forms), the
 * extremes, the first 100,000 numbers and their negations, random values
 * of every bit length. And runs (pbc_format_real_run, a repeated
 * field's values after commas): arrays of doubles and floats mixing
 * random bits, fractions, zeros, subnormals, NaN and infinities, into
 * buffers (exactly their capacity, for ASan) from random positions with
 * random room, against the same texts joined: the count written, the
 * length, the text, stopping at a value that is not finite and where
 * PBC_FORMAT_REAL_ROOM and the comma no longer fit. And reading (pbc_lex_float, runtime/text_lex.c, which
 * both parsers use: Clinger's fast path, Eisel-Lemire, else strtod)
 * against strtod, bit for bit: every text above, and decimals of 1 to 22
 * digits with the point anywhere or nowhere, exponents -40..40 in every
 * spelling, signs, the fast paths' edges (2^53 and past, 10^22 and past,
 * 19 and 20 digits), decimals of 15 to 19 digits at exponents -140..140
 * (past the table of powers both ways), and exact ties between two
 * doubles with their neighbours one unit of the last digit away.
 * Prints the counts checked; the first mismatches with both texts. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "print_internal.h"
#include "text_lex.h"

static uint64_t state = 0x9e3779b97f4a7c15ULL;
static uint64_t next(void) { /* xorshift64* */
  state ^= state >> 12;
  state ^= state << 25;
  state ^= state >> 27;
  return state * 0x2545f4914f6cdd1dULL;
}

static size_t reference(char *out, double v, bool is_float) {
  int n;
  if (is_float) {
    n = snprintf(out, 32, "%.6g", v);
    bool subnormal = v != 0 && v < 0x1p-126 && v > -0x1p-126;
    if (subnormal || strtof(out, NULL) != (float)v) n = snprintf(out, 32, "%.9g", v);
  } else {
    n = snprintf(out, 32, "%.15g", v);
    if (strtod(out, NULL) != v) n = snprintf(out, 32, "%.17g", v);
  }
  return (size_t)n;
}

static unsigned long checked, failed, read, read_failed;

/* pbc_lex_float against strtod, bit for bit. */
static void check_read(const char *text) {
  double want = strtod(text, NULL), got = pbc_lex_float(text, strlen(text));
  read++;
  if (memcmp(&want, &got, sizeof want) != 0 && read_failed++ < 20)
    printf("read %s: want %a, got %a\n", text, want, got);
}

static void decimals(void) {
  static const char *edges[] = {
      "9007199254740992", "9007199254740993", "9007199254740991e22",
      "9007199254740993e-22", "1e22", "1e23", "1e-22", "1e-23",
      "1234567890123456789", "12345678901234567890", "0.1", "-0", "-0.0",
      "0e0", "0.000000000000000000001", "4.9406564584124654e-324",
      "1.7976931348623157e308", "2.2250738585072014e-308", "1e0001",
      "123.456e-5", "7E+3", "3.14159265358979323846"};
  for (size_t i = 0; i < sizeof edges / sizeof *edges; i++)
    check_read(edges[i]);
  for (int i = 0; i < 400000; i++) {
    char text[80];
    int k = 0, digits = 1 + (int)(next() % 22);
    int point = (int)(next() % (unsigned)(digits + 1)); /* digits: none */
    if (next() & 1) text[k++] = '-';
    for (int j = 0; j < digits; j++) {
      if (j == point && j > 0) text[k++] = '.';
      text[k++] = (char)('0' + next() % 10);
    }
    switch (next() % 4) {
    case 0: break;
    case 1: k += sprintf(text + k, "e%d", (int)(next() % 81) - 40); break;
    case 2: k += sprintf(text + k, "E+%d", (int)(next() % 41)); break;
    default: k += sprintf(text + k, "e-%02d", (int)(next() % 41)); break;
    }
    text[k] = '\0';
    check_read(text);
  }
  /* Long decimals, 15 to 19 digits (past Clinger's 2^53: Eisel-Lemire's),
   * with exponents past its table's -100..100 on both sides. */
  for (int i = 0; i < 400000; i++) {
    char text[64];
    int k = 0, digits = 15 + (int)(next() % 5);
    text[k++] = (char)('1' + next() % 9);
    text[k++] = '.';
    for (int j = 1; j < digits; j++) text[k++] = (char)('0' + next() % 10);
    sprintf(text + k, "e%d", (int)(next() % 281) - 140);
    check_read(text);
  }
  /* Exactly halfway between two doubles: an odd 54-bit integer times 2^k
   * (k = 0..9), or over 2^k (k = 1..4, written out exactly), so that the
   * tie goes to the even neighbour; and one unit of the 19th digit either
   * side of such a tie. */
  for (int i = 0; i < 100000; i++) {
    uint64_t m = (next() >> 10) | (uint64_t)1 << 53 | 1;
    char text[64];
    int k = (int)(next() % 14) - 4;
    if (k >= 0) {
      sprintf(text, "%llu", (unsigned long long)(m << k));
    } else {
      uint64_t scaled = m;
      for (int j = 0; j < -k; j++) scaled *= 5;
      uint64_t unit = 1;
      for (int j = 0; j < -k; j++) unit *= 10;
      sprintf(text, "%llu.%0*llu", (unsigned long long)(scaled / unit), -k,
              (unsigned long long)(scaled % unit));
    }
    check_read(text);
    size_t n = strlen(text);
    if (n >= 2 && text[n - 1] < '9') {
      text[n - 1]++;
      check_read(text);
      text[n - 1] -= 2;
      if (text[n - 1] >= '0') check_read(text);
    }
  }
}

static void check(double v, bool is_float) {
  if (is_float) v = (float)v;
  if (!isfinite(v)) return;
  char want[40], got[PBC_FORMAT_REAL_ROOM];
  size_t nw = reference(want, v, is_float);
  size_t ng = pbc_format_real(got, v, is_float);
  checked++;
  want[nw] = '\0';
  check_read(want);
  if (ng != nw || memcmp(want, got, nw) != 0) {
    if (failed++ < 20)
      printf("%s %a: want %.*s, got %.*s\n", is_float ? "float" : "double", v, (int)nw, want,
             (int)ng, got);
  }
}

static void both(double v) {
  check(v, false);
  check(-v, false);
  check(v, true);
  check(nextafter(v, INFINITY), false);
  check(nextafter(v, 0), false);
  check(nextafterf((float)v, INFINITY), true);
  check(nextafterf((float)v, 0), true);
}

static unsigned long ints_checked, ints_failed;

/* got (exactly the room the formatters may write into, so that ASan sees
 * a store past it) against want. */
static void expect_int(const char *what, uint64_t v, const char *want, int nw,
                       const char *got, size_t ng) {
  ints_checked++;
  if (ng != (size_t)nw || memcmp(want, got, ng) != 0) {
    if (++ints_failed <= 10)
      printf("%s %llx: want %s, got %.*s\n", what, (unsigned long long)v, want,
             (int)ng, got);
  }
}

static void check_int(uint64_t v) {
  char want[32], got[PBC_FORMAT_INT_ROOM];
  int nw = snprintf(want, sizeof want, "%llu", (unsigned long long)v);
  expect_int("u64", v, want, nw, got, pbc_format_u64(got, v));
  nw = snprintf(want, sizeof want, "%lld", (long long)(int64_t)v);
  expect_int("i64", v, want, nw, got, pbc_format_i64(got, (int64_t)v));
  nw = snprintf(want, sizeof want, "%u", (unsigned)(uint32_t)v);
  expect_int("u32", v, want, nw, got, pbc_format_u32(got, (uint32_t)v));
  nw = snprintf(want, sizeof want, "%d", (int)(int32_t)v);
  expect_int("i32", v, want, nw, got, pbc_format_i32(got, (int32_t)v));
}

static void integers(void) {
  for (int e = 0; e < 64; e++) {
    uint64_t b = (uint64_t)1 << e;
    check_int(b - 1);
    check_int(b);
    check_int(b + 1);
    check_int(0 - b);
  }
  for (uint64_t t = 1; t <= UINT64_MAX / 10; t *= 10) {
    check_int(t - 1);
    check_int(t);
    check_int(t + 1);
    check_int(t * 10 - 1);
  }
  check_int(UINT64_MAX);
  check_int((uint64_t)INT64_MAX);
  check_int((uint64_t)INT64_MIN);
  for (uint64_t v = 0; v < 100000; v++) check_int(v);
  for (uint64_t v = 0; v < 100000; v++) check_int(0 - v);
  for (int i = 0; i < 200000; i++) check_int(next() >> (next() % 64));
}

static unsigned long runs_checked, runs_failed;

/* A run's value: random bits, a fraction, or one of the edges. */
static double run_value(bool is_float) {
  static const double edges[] = {0.0, -0.0, 1e-310, -2.5e-320, 1.0 / 0.0,
                                 -1.0 / 0.0, 0.0 / 0.0, 1e300, 0.1, 1e17};
  uint64_t b = next();
  switch (next() % 4) {
  case 0: {
    double d;
    if (is_float) {
      uint32_t fb = (uint32_t)b;
      float f;
      memcpy(&f, &fb, sizeof f);
      return f;
    }
    memcpy(&d, &b, sizeof d);
    return d;
  }
  case 1: return (double)(int64_t)(b % 2000001 - 1000000) / 7.0;
  case 2: return edges[b % (sizeof edges / sizeof edges[0])];
  default: return (double)(b % 100000) / 1000.0;
  }
}

static void check_run(bool is_float) {
  enum { N = 48 };
  double d[N];
  float f[N];
  size_t n = (size_t)(next() % N);
  for (size_t i = 0; i < n; i++) {
    d[i] = run_value(is_float);
    if (next() % 8 != 0 && !isfinite(d[i])) d[i] = 2.5; /* most runs go on */
    f[i] = (float)d[i];
  }
  size_t start = (size_t)(next() % 9), cap = start + (size_t)(next() % (N * 30));
  bool comma = next() & 1;
  char *buf = malloc(cap ? cap : 1), want[N * 64 + 16];
  size_t len = start;
  size_t done = pbc_format_real_run(buf, &len, cap, is_float ? (const void *)f : d, n,
                                    is_float, comma);
  size_t at = start, k = 0;
  for (; k < n; k++) {
    double v = is_float ? (double)f[k] : d[k];
    if (!isfinite(v) || cap - at < 1 + PBC_FORMAT_REAL_ROOM) break;
    if (comma) want[at++] = ',';
    at += reference(want + at, v, is_float);
    comma = true;
  }
  runs_checked++;
  if (done != k || len != at || memcmp(buf + start, want + start, at - start) != 0) {
    if (runs_failed++ < 5)
      printf("%s run of %zu from %zu, cap %zu: want %zu values, %zu bytes, "
             "got %zu values, %zu bytes\n",
             is_float ? "float" : "double", n, start, cap, k, at, done, len);
  }
  free(buf);
}

int main(void) {
  integers();
  printf("%lu integers checked, %lu differ\n", ints_checked, ints_failed);
  /* Random mantissas at every exponent from 2^-80 to 2^80 (the exact
   * path covers about 10^-16 to 10^17 for doubles, 10^-24 to 10^9 for
   * floats), and at the extremes. */
  for (int e = -80; e <= 80; e++)
    for (int i = 0; i < 4000; i++) {
      double m = (double)(next() >> 11) / 0x1p53; /* [0, 1) */
      both(ldexp(1 + m, e));
    }
  for (int i = 0; i < 200000; i++) {
    uint64_t b = next();
    double d;
    memcpy(&d, &b, sizeof d);
    check(d, false);
    uint32_t fb = (uint32_t)b;
    float f;
    memcpy(&f, &fb, sizeof f);
    check(f, true);
  }
  /* Short decimals. */
  for (int i = 0; i < 300000; i++) {
    int digits = 1 + (int)(next() % 17), exp10 = (int)(next() % 61) - 30;
    char text[64];
    int k = 0;
    for (int j = 0; j < digits; j++) {
      text[k++] = (char)('0' + next() % 10);
      if (j == 0) text[k++] = '.';
    }
    snprintf(text + k, sizeof text - (size_t)k, "e%d", exp10);
    check(strtod(text, NULL), false);
    check(strtof(text, NULL), true);
  }
  /* Integers, powers of two and ten, and their neighbours. */
  for (int64_t n = 1; n < 100000; n++) both((double)n);
  for (int e = -1074; e <= 1023; e++) both(ldexp(1, e));
  for (int e = -320; e <= 308; e++) both(strtod("1e0", NULL) * pow(10, e));
  for (int e = -45; e <= 38; e++) {
    char text[16];
    snprintf(text, sizeof text, "1e%d", e);
    both(strtod(text, NULL));
  }
  check(0.0, false);
  check(-0.0, false);
  check(0.0, true);
  check(-0.0, true);
  printf("%lu values checked, %lu differ\n", checked, failed);
  for (int i = 0; i < 20000; i++) check_run(i & 1);
  printf("%lu runs checked, %lu differ\n", runs_checked, runs_failed);
  decimals();
  printf("%lu texts read, %lu differ\n", read, read_failed);
  return failed != 0 || ints_failed != 0 || read_failed != 0;
}
