/* The text format's tokens (runtime/text_lex.c), for the parser
 * (text_parse.c). They are libprotobuf 3.21's io::Tokenizer tokens with
 * the settings TextFormat::Parser gives it: `#` comments, an `f` allowed
 * after a float, a number followed at once by a letter an error. The
 * lexer keeps one token (`cur`) and the one before it; the parser asks for
 * the next. Not a user API.
 *
 * Errors: the first one is recorded (pbc_text_fail) and the lexer then
 * gives only PBC_TOK_END, so a parser that checks `failed` where it
 * matters stops at the error libprotobuf reports first. libprotobuf's
 * tokenizer goes on after an error, but any error fails the parse, and
 * the tokenizer reads one token ahead of the parser just as this one does,
 * so the first error is the same. */
#ifndef PBC_TEXT_LEX_H
#define PBC_TEXT_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pbc/text.h"

typedef enum pbc_tok_type {
  PBC_TOK_START,  /* before the first pbc_lex_next */
  PBC_TOK_END,    /* the end of the text (text ""), or after an error */
  PBC_TOK_IDENT,  /* [A-Za-z_][A-Za-z0-9_]* */
  PBC_TOK_INT,    /* decimal, 0x hex or 0 octal; no sign */
  PBC_TOK_FLOAT,  /* digits with a point, exponent or f suffix; no sign */
  PBC_TOK_STRING, /* quoted as written, escapes checked (not decoded) */
  PBC_TOK_SYMBOL  /* one other character */
} pbc_tok_type;

typedef struct pbc_token {
  pbc_tok_type type;
  const char *text; /* into the input, `len` bytes */
  size_t len;
  uint32_t line, column, end_column; /* from 0, as libprotobuf's */
} pbc_token;

typedef struct pbc_lexer {
  const char *p, *end;
  uint32_t line, column; /* of *p */
  pbc_token cur, prev;
  bool failed;
  pbc_status status;     /* of the first error */
  pbc_text_error *error; /* where it goes (may be NULL) */
} pbc_lexer;

/* Starts at the text's beginning and reads the first token. */
void pbc_lex_init(pbc_lexer *lx, const char *text, size_t len,
                  pbc_text_error *error);
/* Moves to the next token; false (and PBC_TOK_END) once failed. */
bool pbc_lex_next(pbc_lexer *lx);

/* Whether the current token's text is `s` (a symbol or an identifier). */
bool pbc_lex_at(const pbc_lexer *lx, const char *s);

/* Records the first error: status, place (from 0) and printf-style
 * message. Always false, for `return pbc_text_fail(...)`. */
bool pbc_text_fail(pbc_lexer *lx, pbc_status status, uint32_t line,
                   uint32_t column, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* An integer token's value when it is at most max (Tokenizer::ParseInteger:
 * 0x hex, 0 octal, else decimal). */
bool pbc_lex_integer(const char *text, size_t len, uint64_t max,
                     uint64_t *value);

/* A float or integer token's value (Tokenizer::ParseFloat: strtod, an `f`
 * suffix ignored). */
double pbc_lex_float(const char *text, size_t len);

/* The ASCII digits that begin the eight bytes at p (all readable), at
 * most eight: their value, the first the most significant, and in *count
 * how many. One word's arithmetic where a loop would take a
 * multiplication and a test per digit: a byte is no digit when adding
 * 0x46 sets its top bit (above '9') or subtracting '0' does (below it, or
 * not ASCII); a carry or borrow only moves up from a byte that is no
 * digit, which only bytes past the first such byte see. Then the
 * digits shifted to the top of the word, zeros below them, each byte
 * times 10 plus the next gives two digits in every other byte, and two
 * multiplications gather the four pairs. Little-endian words (every
 * target pbc has); elsewhere *count is always 0, the loops' case. */
static inline uint64_t pbc_lex_leading_digits(const char *p, unsigned *count) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t x;
  __builtin_memcpy(&x, p, 8);
  const uint64_t ones = 0x0101010101010101u;
  uint64_t other = ((x + ones * 0x46) | (x - ones * '0')) & ones * 0x80;
  unsigned n = other != 0 ? (unsigned)__builtin_ctzll(other) / 8 : 8;
  *count = n;
  if (n == 0) return 0;
  x = (x - 0x3030303030303030u) << (64 - 8 * n);
  x = x * 10 + (x >> 8);
  const uint64_t pairs = 0x000000ff000000ffu;
  return ((x & pairs) * (100 + (1000000ull << 32)) +
          ((x >> 16) & pairs) * (1 + (10000ull << 32))) >> 32;
#else
  (void)p;
  *count = 0;
  return 0;
#endif
}

/* 10^n for the n digits pbc_lex_leading_digits read: what shifts a value
 * left past them. */
static const uint64_t pbc_lex_word_pow10[9] = {
    1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

/* The digits at p (before end) appended to *m, which wraps past 19 of
 * them (the caller counts), up to eight at a time while eight bytes are
 * left, then one; returns the end of them. */
static inline const char *pbc_lex_digits(const char *p, const char *end,
                                         uint64_t *m) {
  uint64_t v = *m;
  while (end - p >= 8) {
    unsigned n;
    uint64_t x = pbc_lex_leading_digits(p, &n);
    v = v * pbc_lex_word_pow10[n] + x;
    p += n;
    if (n != 8) {
      *m = v;
      return p;
    }
  }
  for (; p < end && (unsigned)(*p - '0') < 10; p++)
    v = v * 10 + (uint64_t)(*p - '0');
  *m = v;
  return p;
}

/* A decimal at p (before end) of at most 19 significant digits and 4
 * exponent digits: an optional '-', digits, optionally a point and
 * digits, optionally 'e' or 'E', a sign and digits. Its digits as one
 * integer *m, scaled by 10^*exp; returns where it ends, NULL when the text
 * there is not such a decimal (the callers then go to strtod, which reads
 * the rest). Leading zeros are the caller's to judge. */
static inline const char *pbc_lex_decimal_scan(const char *p, const char *end,
                                               uint64_t *m, int *exp,
                                               bool *negative) {
  *negative = p < end && *p == '-';
  p += *negative;
  *m = 0;
  *exp = 0;
  const char *start = p;
  p = pbc_lex_digits(p, end, m);
  if (p == start || p - start > 19) return NULL; /* *m may have wrapped */
  int digits = (int)(p - start);
  if (p < end && *p == '.') {
    start = ++p;
    p = pbc_lex_digits(p, end, m);
    if (p == start || p - start > 19 - digits) return NULL;
    *exp = -(int)(p - start);
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    p++;
    bool below = p < end && *p == '-';
    if (p < end && (*p == '+' || *p == '-')) p++;
    int e = 0;
    for (start = p; p < end && (unsigned)(*p - '0') < 10; p++) {
      if (p - start == 4) return NULL;
      e = e * 10 + (*p - '0');
    }
    if (p == start) return NULL;
    *exp += below ? -e : e;
  }
  return p;
}

/* m * 10^exp (negated when negative) correctly rounded, when that can be
 * done without strtod: Clinger's fast path or Eisel-Lemire
 * (pbc_lex_float's, for the parsers that read a number's digits as they
 * check its grammar); false for the rest, which pbc_lex_float's strtod
 * reads. */
bool pbc_lex_decimal(uint64_t m, int exp, bool negative, double *out);

/* A code point (at most 0x10FFFF) as UTF-8 at out, 1 to 4 bytes: how
 * many. */
size_t pbc_utf8_put(uint32_t cp, uint8_t *out);

/* Appends a string token's bytes, escapes decoded, to `out` (room for
 * len - 2 bytes: no escape makes more bytes than it takes). Returns the
 * bytes written, or -1 when a \u or \U escape is a surrogate or beyond
 * U+10FFFF (the parser reports that). */
long pbc_lex_unescape(const char *text, size_t len, uint8_t *out);

#endif /* PBC_TEXT_LEX_H */
