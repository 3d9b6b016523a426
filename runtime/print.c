/* Numbers as libprotobuf's printers write them (runtime/print_internal.h). */
#include <stdio.h>
#include <stdlib.h>

#include "print_internal.h"

size_t pbc_format_u64(char *out, uint64_t v) {
  char digits[20];
  size_t n = 0;
  do {
    digits[sizeof digits - ++n] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  memcpy(out, digits + sizeof digits - n, n);
  return n;
}

size_t pbc_format_i64(char *out, int64_t v) {
  if (v >= 0) return pbc_format_u64(out, (uint64_t)v);
  out[0] = '-';
  return 1 + pbc_format_u64(out + 1, 0 - (uint64_t)v);
}

/* Reading back is strtod, or for a float safe_strtof, which also fails
 * when strtof reports an underflow: every non-zero subnormal takes the 9
 * digits. */
size_t pbc_format_real(char *out, double v, bool is_float) {
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
