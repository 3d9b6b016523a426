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
 * Prints the count checked; the first mismatches with both texts. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "print_internal.h"

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

static unsigned long checked, failed;

static void check(double v, bool is_float) {
  if (is_float) v = (float)v;
  if (!isfinite(v)) return;
  char want[40], got[40];
  size_t nw = reference(want, v, is_float);
  size_t ng = pbc_format_real(got, v, is_float);
  checked++;
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

int main(void) {
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
  return failed != 0;
}
