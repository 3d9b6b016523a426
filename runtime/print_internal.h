/* What the text format and JSON printers share (runtime/print.c): where
 * the text goes, and numbers as libprotobuf writes them. */
#ifndef PBC_PRINT_INTERNAL_H
#define PBC_PRINT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "pbc/writer.h"

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

/* Longest decimal an int64 or uint64 takes, and a float or double in
 * pbc_format_real's form; PBC_FORMAT_REAL_ROOM is what pbc_format_real
 * may write, text and scratch (it places the digits with stores of fixed
 * size past the text's end). */
enum {
  PBC_FORMAT_INT_MAX = 21,
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

/* v's decimal digits ending at `end`, written backwards two at a time. */
static inline void pbc_digits_back(char *end, uint64_t v) {
  while (v >= 100) {
    end -= 2;
    memcpy(end, pbc_digit_pairs + v % 100 * 2, 2);
    v /= 100;
  }
  if (v >= 10) memcpy(end - 2, pbc_digit_pairs + v * 2, 2);
  else end[-1] = (char)('0' + v);
}

/* The 8 decimal digits of v < 10^8, leading zeros included, at out: two
 * groups of four, each two pairs, in 32-bit arithmetic (pbc_format_real's
 * digits, which have a fixed count). */
static inline void pbc_put8_digits(char *out, uint32_t v) {
  uint32_t a = v / 10000, b = v % 10000;
  memcpy(out, pbc_digit_pairs + a / 100 * 2, 2);
  memcpy(out + 2, pbc_digit_pairs + a % 100 * 2, 2);
  memcpy(out + 4, pbc_digit_pairs + b / 100 * 2, 2);
  memcpy(out + 6, pbc_digit_pairs + b % 100 * 2, 2);
}

/* v in decimal at out (no NUL); the number of bytes. Inline: the printers
 * call them for every integer. (Eight digits at a time, pbc_put8_digits,
 * costs more instructions on the benchmarks' integers.) */
static inline size_t pbc_format_u64(char *out, uint64_t v) {
  size_t n = pbc_decimal_digits(v);
  pbc_digits_back(out + n, v);
  return n;
}
static inline size_t pbc_format_i64(char *out, int64_t v) {
  if (v >= 0) return pbc_format_u64(out, (uint64_t)v);
  out[0] = '-';
  return 1 + pbc_format_u64(out + 1, 0 - (uint64_t)v);
}

/* A finite float (is_float, v holding its value exactly) or double as
 * libprotobuf's SimpleFtoa and SimpleDtoa write it: FLT_DIG (DBL_DIG)
 * significant digits, %g style, three (two) more when those do not read
 * back as the value; NUL-terminated, the length (at most
 * PBC_FORMAT_REAL_MAX - 1) returned. out has PBC_FORMAT_REAL_ROOM bytes. */
size_t pbc_format_real(char *out, double v, bool is_float);

#endif /* PBC_PRINT_INTERNAL_H */
