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

/* The eight bytes at p (all readable), when all are ASCII digits: their
 * value, the first the most significant; else -1. One word's arithmetic
 * where a loop would take a multiplication and a test per digit: a byte
 * is a digit when its high nibble is 3 and adding 6 keeps it so; then
 * each byte times 10 plus the next gives two digits in every other byte,
 * and two multiplications gather the four pairs. Little-endian words
 * (every target pbc has); elsewhere always -1, the loops' cases. */
static inline int64_t pbc_lex_eight_digits(const char *p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t x;
  __builtin_memcpy(&x, p, 8);
  const uint64_t nibbles = 0xf0f0f0f0f0f0f0f0u;
  if (((x & nibbles) | ((x + 0x0606060606060606u) & nibbles) >> 4) !=
      0x3333333333333333u)
    return -1;
  x -= 0x3030303030303030u;
  x = x * 10 + (x >> 8);
  const uint64_t pairs = 0x000000ff000000ffu;
  x = ((x & pairs) * (100 + (1000000ull << 32)) +
       ((x >> 16) & pairs) * (1 + (10000ull << 32))) >> 32;
  return (int64_t)x;
#else
  (void)p;
  return -1;
#endif
}

/* A code point (at most 0x10FFFF) as UTF-8 at out, 1 to 4 bytes: how
 * many. */
size_t pbc_utf8_put(uint32_t cp, uint8_t *out);

/* Appends a string token's bytes, escapes decoded, to `out` (room for
 * len - 2 bytes: no escape makes more bytes than it takes). Returns the
 * bytes written, or -1 when a \u or \U escape is a surrogate or beyond
 * U+10FFFF (the parser reports that). */
long pbc_lex_unescape(const char *text, size_t len, uint8_t *out);

#endif /* PBC_TEXT_LEX_H */
