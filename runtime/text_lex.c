/* The text format's tokenizer (text_lex.h): io::Tokenizer's rules and
 * error messages, over a buffer that may hold NUL bytes (an error, as in
 * libprotobuf, whose tokenizer sees its end of input as a NUL). */
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pow5_table.h"
#include "text_lex.h"

/* Tokenizer's character classes, locale-free. */
static bool is_space(int c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' ||
         c == '\f';
}
static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_octal(int c) { return c >= '0' && c <= '7'; }
static bool is_hex(int c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static bool is_letter(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_alnum(int c) { return is_letter(c) || is_digit(c); }
static bool is_escape(int c) {
  switch (c) {
  case 'a': case 'b': case 'f': case 'n': case 'r': case 't': case 'v':
  case '\\': case '?': case '\'': case '"':
    return true;
  default:
    return false;
  }
}
static int digit_value(int c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 36;
}

bool pbc_text_fail(pbc_lexer *lx, pbc_status status, uint32_t line,
                   uint32_t column, const char *format, ...) {
  if (lx->failed) return false;
  lx->failed = true;
  lx->status = status;
  lx->cur.type = PBC_TOK_END;
  lx->cur.text = "";
  lx->cur.len = 0;
  if (lx->error) {
    lx->error->line = line + 1;
    lx->error->column = column + 1;
    va_list args;
    va_start(args, format);
    vsnprintf(lx->error->message, sizeof lx->error->message, format, args);
    va_end(args);
  }
  return false;
}

/* The current character: 0 at the end, as libprotobuf's tokenizer sees
 * it. */
static int peek(const pbc_lexer *lx) {
  return lx->p < lx->end ? (unsigned char)*lx->p : 0;
}
static bool at_end(const pbc_lexer *lx) { return lx->p >= lx->end; }

/* Moves past the current character, counting lines and columns (a tab to
 * the next multiple of 8). */
static void advance(pbc_lexer *lx) {
  int c = peek(lx);
  if (c == '\n') {
    lx->line++;
    lx->column = 0;
  } else if (c == '\t') {
    lx->column += 8 - lx->column % 8;
  } else {
    lx->column++;
  }
  lx->p++;
}

static bool take(pbc_lexer *lx, int c) {
  if (at_end(lx) || peek(lx) != c) return false;
  advance(lx);
  return true;
}

static bool take_if(pbc_lexer *lx, bool (*cls)(int)) {
  if (at_end(lx) || !cls(peek(lx))) return false;
  advance(lx);
  return true;
}

static bool lex_error(pbc_lexer *lx, const char *message) {
  return pbc_text_fail(lx, PBC_ERR_TEXT_SYNTAX, lx->line, lx->column, "%s",
                       message);
}

/* After the opening quote: to the closing one, checking each escape as
 * Tokenizer::ConsumeString does. */
static bool lex_string(pbc_lexer *lx, int quote) {
  for (;;) {
    int c = peek(lx);
    if (c == 0) return lex_error(lx, "Unexpected end of string.");
    if (c == '\n')
      return lex_error(lx, "String literals cannot cross line boundaries.");
    advance(lx);
    if (c == quote) return true;
    if (c != '\\') continue;
    if (take_if(lx, is_escape) || take_if(lx, is_octal)) continue;
    if (take(lx, 'x')) {
      if (!take_if(lx, is_hex))
        return lex_error(lx, "Expected hex digits for escape sequence.");
    } else if (take(lx, 'u')) {
      for (int i = 0; i < 4; i++)
        if (!take_if(lx, is_hex))
          return lex_error(lx,
                           "Expected four hex digits for \\u escape sequence.");
    } else if (take(lx, 'U')) {
      bool ok = take(lx, '0') && take(lx, '0') &&
                (take(lx, '0') || take(lx, '1'));
      for (int i = 0; ok && i < 5; i++) ok = take_if(lx, is_hex);
      if (!ok)
        return lex_error(lx, "Expected eight hex digits up to 10ffff for \\U "
                             "escape sequence");
    } else {
      return lex_error(lx, "Invalid escape sequence in string literal.");
    }
  }
}

/* The rest of a number (Tokenizer::ConsumeNumber): its type, or END after
 * an error. */
static pbc_tok_type lex_number(pbc_lexer *lx, bool started_with_zero,
                               bool started_with_dot) {
  bool is_float = false;
  if (started_with_zero && (take(lx, 'x') || take(lx, 'X'))) {
    if (!take_if(lx, is_hex)) {
      lex_error(lx, "\"0x\" must be followed by hex digits.");
      return PBC_TOK_END;
    }
    while (take_if(lx, is_hex)) {
    }
  } else if (started_with_zero && is_digit(peek(lx))) {
    while (take_if(lx, is_octal)) {
    }
    if (is_digit(peek(lx))) {
      lex_error(lx, "Numbers starting with leading zero must be in octal.");
      return PBC_TOK_END;
    }
  } else {
    if (started_with_dot) {
      is_float = true;
    } else {
      while (take_if(lx, is_digit)) {
      }
      if (take(lx, '.')) is_float = true;
    }
    while (take_if(lx, is_digit)) {
    }
    if (take(lx, 'e') || take(lx, 'E')) {
      is_float = true;
      if (!take(lx, '-')) take(lx, '+');
      if (!take_if(lx, is_digit)) {
        lex_error(lx, "\"e\" must be followed by exponent.");
        return PBC_TOK_END;
      }
      while (take_if(lx, is_digit)) {
      }
    }
    if (take(lx, 'f') || take(lx, 'F')) is_float = true;
  }
  if (is_letter(peek(lx))) {
    lex_error(lx, "Need space between number and identifier.");
    return PBC_TOK_END;
  }
  if (peek(lx) == '.') {
    lex_error(lx, is_float ? "Already saw decimal point or exponent; can't "
                             "have another one."
                           : "Hex and octal numbers must be integers.");
    return PBC_TOK_END;
  }
  return is_float ? PBC_TOK_FLOAT : PBC_TOK_INT;
}

bool pbc_lex_next(pbc_lexer *lx) {
  if (lx->failed) return false;
  lx->prev = lx->cur;
  for (;;) {
    while (take_if(lx, is_space)) {
    }
    if (!take(lx, '#')) break;
    /* A comment runs to a newline; a NUL ends it too, and is then the
     * error below. */
    while (peek(lx) != 0 && peek(lx) != '\n') advance(lx);
    take(lx, '\n');
  }
  pbc_token *t = &lx->cur;
  t->text = lx->p;
  t->line = lx->line;
  t->column = lx->column;
  if (at_end(lx)) {
    t->type = PBC_TOK_END;
    t->text = "";
    t->len = 0;
    t->end_column = lx->column;
    return true;
  }
  int c = peek(lx);
  if (c < ' ') {
    /* Whitespace is gone, so this is a control character or a NUL. */
    return lex_error(lx, "Invalid control characters encountered in text.");
  }
  advance(lx);
  if (is_letter(c)) {
    while (take_if(lx, is_alnum)) {
    }
    t->type = PBC_TOK_IDENT;
  } else if (c == '0') {
    t->type = lex_number(lx, true, false);
  } else if (c == '.' && is_digit(peek(lx))) {
    advance(lx);
    if (lx->prev.type == PBC_TOK_IDENT && t->line == lx->prev.line &&
        t->column == lx->prev.end_column)
      return pbc_text_fail(lx, PBC_ERR_TEXT_SYNTAX, lx->line, lx->column - 2,
                           "Need space between identifier and decimal point.");
    t->type = lex_number(lx, false, true);
  } else if (is_digit(c)) {
    t->type = lex_number(lx, false, false);
  } else if (c == '"' || c == '\'') {
    t->type = lex_string(lx, c) ? PBC_TOK_STRING : PBC_TOK_END;
  } else {
    if (c & 0x80)
      return pbc_text_fail(lx, PBC_ERR_TEXT_SYNTAX, t->line, t->column,
                           "Interpreting non ascii codepoint %d.", c);
    t->type = PBC_TOK_SYMBOL;
  }
  if (lx->failed) return false;
  t->len = (size_t)(lx->p - t->text);
  t->end_column = lx->column;
  return true;
}

void pbc_lex_init(pbc_lexer *lx, const char *text, size_t len,
                  pbc_text_error *error) {
  memset(lx, 0, sizeof *lx);
  lx->p = text;
  lx->end = text + len;
  lx->error = error;
  lx->cur.type = PBC_TOK_START;
  lx->cur.text = "";
  pbc_lex_next(lx);
}

bool pbc_lex_at(const pbc_lexer *lx, const char *s) {
  size_t n = strlen(s);
  return lx->cur.len == n && memcmp(lx->cur.text, s, n) == 0;
}

bool pbc_lex_integer(const char *text, size_t len, uint64_t max,
                     uint64_t *value) {
  const char *p = text, *end = text + len;
  unsigned base = 10;
  if (len >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    base = 16;
    p += 2;
  } else if (len >= 1 && p[0] == '0') {
    base = 8;
  }
  uint64_t v = 0;
  for (; p < end; p++) {
    unsigned d = (unsigned)digit_value((unsigned char)*p);
    if (d >= base) return false;
    if (v > (UINT64_MAX - d) / base) return false;
    v = v * base + d;
  }
  if (v > max) return false;
  *value = v;
  return true;
}

/* Eisel-Lemire (Lemire, "Number parsing at a gigabyte per second", 2021):
 * w * 10^q for a nonzero w of at most 19 digits, correctly rounded, from
 * w's product with 5^q to 128 bits (pow5_table.h) and the binary exponent
 * 10^q's logarithm gives; false where the product's bits cannot decide the
 * rounding, and for q past the table or a result that is subnormal or
 * infinite: strtod's cases. Integers only, so no double rounding on any
 * FPU. */
static bool eisel_lemire(uint64_t w, int q, bool negative, double *out) {
  if (q < PBC_POW5_LOW || q > PBC_POW5_HIGH) return false;
  int lz = __builtin_clzll(w);
  w <<= lz;
  const uint64_t *t = pbc_pow5[q - PBC_POW5_LOW];
  unsigned __int128 first = (unsigned __int128)w * t[0];
  uint64_t hi = (uint64_t)(first >> 64), lo = (uint64_t)first;
  /* 55 bits decide a double's 53 and its rounding: the 9 below them all
   * ones may carry from the truncated part, which the low word adds. */
  const uint64_t below = UINT64_MAX >> 55;
  if ((hi & below) == below) {
    uint64_t carry = (uint64_t)(((unsigned __int128)w * t[1]) >> 64);
    lo += carry;
    hi += lo < carry;
    if ((hi & below) == below && lo == UINT64_MAX) return false;
  }
  int top = (int)(hi >> 63), shift = top + 64 - 55;
  uint64_t mantissa = hi >> shift;
  /* floor(q * log2(10)) + 63 (217706 / 2^16 ~ log2(10), exact for the
   * table's q), plus the bias. */
  int32_t power2 = ((217706 * q) >> 16) + 63 + top - lz + 1023;
  if (power2 <= 0) return false;
  /* Exactly halfway (only possible for small q): to even. */
  if (lo <= 1 && q >= -4 && q <= 23 && (mantissa & 3) == 1 &&
      mantissa << shift == hi)
    mantissa &= ~(uint64_t)1;
  mantissa = (mantissa + (mantissa & 1)) >> 1;
  if (mantissa >= (uint64_t)2 << 52) {
    mantissa = (uint64_t)1 << 52;
    power2++;
  }
  if (power2 >= 0x7ff) return false;
  uint64_t bits = (mantissa & ~((uint64_t)1 << 52)) | (uint64_t)power2 << 52 |
                  (uint64_t)negative << 63;
  memcpy(out, &bits, sizeof bits);
  return true;
}

/* A decimal of at most 19 significant digits (a sign, digits, a point,
 * an exponent: what strtod reads but hexadecimal, inf and nan) without
 * strtod: Clinger's fast path where it applies (its value m fits in a
 * double's 53 bits, times 10^e for |e| <= 22, exact doubles too: one IEEE
 * multiplication or division of exact operands, so rounded once,
 * correctly), else Eisel-Lemire. Most numbers in JSON and text are such;
 * the rest go to strtod. */
static bool float_fast(const char *p, size_t len, double *out) {
  uint64_t m;
  int exp;
  bool negative;
  const char *end = p + len;
  return pbc_lex_decimal_scan(p, end, &m, &exp, &negative) == end &&
         pbc_lex_decimal(m, exp, negative, out);
}

bool pbc_lex_decimal(uint64_t m, int exp, bool negative, double *out) {
  static const double powers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,
                                  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
                                  1e18, 1e19, 1e20, 1e21, 1e22};
  if (m == 0) {
    *out = negative ? -0.0 : 0.0;
    return true;
  }
#if FLT_EVAL_METHOD == 0 /* (x87: the operation would be rounded twice) */
  if (m <= (uint64_t)1 << 53 && exp >= -22 && exp <= 22) {
    double v = (double)m;
    v = exp < 0 ? v / powers[-exp] : v * powers[exp];
    *out = negative ? -v : v;
    return true;
  }
#endif
  return eisel_lemire(m, exp, negative, out);
}

double pbc_lex_float(const char *text, size_t len) {
  double fast;
  if (float_fast(text, len, &fast)) return fast;
  /* strtod wants a NUL after the number; a token is short, but not
   * bounded, so a long one is copied to the heap. */
  char local[64], *copy = local;
  if (len >= sizeof local) {
    copy = malloc(len + 1);
    if (copy == NULL) return 0; /* the caller's next allocation fails too */
  }
  memcpy(copy, text, len);
  copy[len] = '\0';
  double v = strtod(copy, NULL);
  if (copy != local) free(copy);
  return v;
}

size_t pbc_utf8_put(uint32_t cp, uint8_t *out) {
  if (cp < 0x80) {
    out[0] = (uint8_t)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (uint8_t)(0xc0 | cp >> 6);
    out[1] = (uint8_t)(0x80 | (cp & 0x3f));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (uint8_t)(0xe0 | cp >> 12);
    out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
    out[2] = (uint8_t)(0x80 | (cp & 0x3f));
    return 3;
  }
  out[0] = (uint8_t)(0xf0 | cp >> 18);
  out[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
  out[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
  out[3] = (uint8_t)(0x80 | (cp & 0x3f));
  return 4;
}

static char translate_escape(char c) {
  switch (c) {
  case 'a': return '\a';
  case 'b': return '\b';
  case 'f': return '\f';
  case 'n': return '\n';
  case 'r': return '\r';
  case 't': return '\t';
  case 'v': return '\v';
  default: return c; /* \\ \? \' \" */
  }
}

long pbc_lex_unescape(const char *text, size_t len, uint8_t *out) {
  /* The token was checked by lex_string: every escape is complete. */
  const char *p = text + 1, *end = text + len - 1;
  uint8_t *o = out;
  while (p < end) {
    if (*p != '\\') {
      *o++ = (uint8_t)*p++;
      continue;
    }
    p++;
    char c = *p;
    if (is_octal((unsigned char)c)) {
      unsigned code = 0;
      for (int i = 0; i < 3 && p < end && is_octal((unsigned char)*p); i++)
        code = code * 8 + (unsigned)(*p++ - '0');
      *o++ = (uint8_t)code;
    } else if (c == 'x') {
      p++;
      unsigned code = 0;
      for (int i = 0; i < 2 && p < end && is_hex((unsigned char)*p); i++)
        code = code * 16 + (unsigned)digit_value((unsigned char)*p++);
      *o++ = (uint8_t)code;
    } else if (c == 'u' || c == 'U') {
      int digits = c == 'u' ? 4 : 8;
      uint32_t cp = 0;
      p++;
      for (int i = 0; i < digits; i++)
        cp = cp << 4 | (uint32_t)digit_value((unsigned char)*p++);
      if ((cp >= 0xd800 && cp < 0xe000) || cp > 0x10ffff) return -1;
      o += pbc_utf8_put(cp, o);
    } else {
      *o++ = (uint8_t)translate_escape(c);
      p++;
    }
  }
  return (long)(o - out);
}
