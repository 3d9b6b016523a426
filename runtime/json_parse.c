/* ProtoJSON parsing (pbc/json.h) over a message's description.
 *
 * As the text format parser, the description's parser does not build the
 * message itself: it transcodes the JSON to the binary wire format, member
 * by member in the order written (wire_build.h), and hands that to the
 * table decoder. A message's compiled parser (pbc__T_from_json) stores
 * most members into the struct itself; see "What compiled parsers call".
 * ProtoJSON's rules that the wire cannot express are checked here, where
 * the offset is still known: names, kinds and ranges of values, UTF-8, a
 * member given once, one member per oneof, nesting.
 *
 * One pass, no tree: a value is read and written as it is met. The one
 * exception is an Any, whose "@type" may come after the members it types:
 * its object is scanned once for "@type" before it is read. Strings are
 * read in place; only a string with escapes is decoded, into one scratch
 * buffer that each string's reader finishes with before the next. */
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "json_internal.h"
#include "text_lex.h"
#include "wire_build.h"

typedef struct pbc_json_parser {
  /* First: pbc_json_key, inlined into compiled parsers, reads p and end. */
  const char *p, *end, *begin;
  const char *key_at; /* the member name just read, for errors */
  pbc_arena *arena; /* what compiled parsers store into the struct */
  uint8_t *scratch; /* a decoded string with escapes */
  size_t scratch_cap;
  uint32_t depth, max_depth;
  bool ignore_unknown;
  pbc_message_finder find_message; /* an Any's type: NULL: linked ones */
  const void *find_message_ctx;
  pbc_rt_extensions extensions;
  pbc_status status;
  pbc_json_error *error;
  /* Last, what is not zeroed at the start (pbc_json_parse). */
  pbc_wire_build wb;
  uint8_t first_scratch[256]; /* scratch until a string outgrows it */
} pbc_json_parser;
typedef pbc_json_parser parser;

#define TRY(x)                                                                 \
  do {                                                                         \
    if (!(x)) return false;                                                    \
  } while (0)

/* The first error wins: later ones are what it caused. */
static bool fail_at(parser *ps, const char *at, pbc_status status,
                    const char *format, ...) {
  if (ps->status != PBC_OK) return false;
  ps->status = status;
  if (ps->error) {
    ps->error->offset = (size_t)(at - ps->begin);
    va_list args;
    va_start(args, format);
    vsnprintf(ps->error->message, sizeof ps->error->message, format, args);
    va_end(args);
  }
  return false;
}

#define SYNTAX(at, ...) fail_at(ps, at, PBC_ERR_JSON_SYNTAX, __VA_ARGS__)
#define BAD_VALUE(at, ...) fail_at(ps, at, PBC_ERR_JSON_VALUE, __VA_ARGS__)

static bool out_of_memory(parser *ps) {
  return fail_at(ps, ps->p, PBC_ERR_OUT_OF_MEMORY, "Out of memory.");
}

static bool wrote(parser *ps, bool ok) { return ok || out_of_memory(ps); }

static bool closed(parser *ps, size_t at) {
  pbc_status s = pbc_wb_close_len(&ps->wb, at);
  if (s == PBC_ERR_TOO_LARGE)
    return fail_at(ps, ps->p, s, "Message is 2 GiB or more.");
  return s == PBC_OK || out_of_memory(ps);
}

/* ---- Tokens ---------------------------------------------------------------- */

/* The next character past white space (RFC 8259's four), 0 at the end. */
static char peek(parser *ps) {
  const char *p = ps->p;
  while (p < ps->end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
    p++;
  ps->p = p;
  return p < ps->end ? *p : 0;
}

/* What stands at p, for errors. */
static const char *what(const parser *ps) {
  if (ps->p >= ps->end) return "the end of the text";
  switch (*ps->p) {
  case '{': return "an object";
  case '[': return "an array";
  case '"': return "a string";
  case 't': case 'f': return "a bool";
  case 'n': return "null";
  default: return *ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9')
                      ? "a number"
                      : "an unexpected character";
  }
}

static bool expect(parser *ps, char c) {
  if (peek(ps) != c) {
    if (ps->p >= ps->end) return SYNTAX(ps->p, "Expected '%c', found the end.", c);
    return SYNTAX(ps->p, "Expected '%c', found '%c'.", c, *ps->p);
  }
  ps->p++;
  return true;
}

/* Consumes `close` when it is next: an empty object or array. */
static bool at_close(parser *ps, char close) {
  if (peek(ps) != close) return false;
  ps->p++;
  return true;
}

/* A literal (true, false, null) at p. Inlined: its memcmp of a constant
 * length is then a load or two. */
static PBC_ALWAYS_INLINE bool at_literal(const parser *ps, const char *word, size_t n) {
  return (size_t)(ps->end - ps->p) >= n && memcmp(ps->p, word, n) == 0 &&
         (ps->end - ps->p == (ptrdiff_t)n ||
          !((ps->p[n] >= 'a' && ps->p[n] <= 'z') ||
            (ps->p[n] >= 'A' && ps->p[n] <= 'Z') ||
            (ps->p[n] >= '0' && ps->p[n] <= '9') || ps->p[n] == '_'));
}

static bool at_null(parser *ps) {
  return peek(ps) == 'n' && at_literal(ps, "null", 4);
}

/* A string: its decoded bytes (in the text, or in the scratch buffer until
 * the next string is read) and where it starts. */
typedef struct jstr {
  const char *data;
  size_t len;
  const char *at;
} jstr;

/* A hex digit's value plus one; 0 for any other byte. */
static const uint8_t hex_value[256] = {
    ['0'] = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ['A'] = 11, 12, 13, 14, 15, 16,
    ['a'] = 11, 12, 13, 14, 15, 16,
};

/* Four hex digits after "\u" at p: a lookup each, the four checked at
 * once (a byte that is no digit looks up 0, which the minus one turns
 * into high bits). */
static bool read_hex4(parser *ps, const char *p, uint32_t *v) {
  if (ps->end - p >= 4) {
    uint32_t a = hex_value[(uint8_t)p[0]] - 1u, b = hex_value[(uint8_t)p[1]] - 1u,
             c = hex_value[(uint8_t)p[2]] - 1u, d = hex_value[(uint8_t)p[3]] - 1u;
    if (((a | b | c | d) & ~0xfu) == 0) {
      *v = a << 12 | b << 8 | c << 4 | d;
      return true;
    }
  }
  return SYNTAX(p - 2, "Invalid \\u escape: four hex digits expected.");
}

static bool scratch_reserve(parser *ps, size_t n) {
  if (ps->scratch_cap >= n) return true;
  if (ps->scratch == NULL) {
    ps->scratch = ps->first_scratch;
    ps->scratch_cap = sizeof ps->first_scratch;
    if (ps->scratch_cap >= n) return true;
  }
  size_t cap = ps->scratch_cap;
  while (cap < n) cap *= 2;
  uint8_t *q;
  if (ps->scratch == ps->first_scratch) {
    q = malloc(cap);
    if (q != NULL) memcpy(q, ps->first_scratch, sizeof ps->first_scratch);
  } else {
    q = realloc(ps->scratch, cap);
  }
  if (q == NULL) return out_of_memory(ps);
  ps->scratch = q;
  ps->scratch_cap = cap;
  return true;
}

/* What plain_run knows of a run's UTF-8. */
enum { RUN_ASCII, RUN_UNCHECKED, RUN_INVALID };

#if defined(__SSE2__)
/* The lanes of v that end a string's run of plain bytes: '"', '\\' and
 * the control characters. */
static PBC_ALWAYS_INLINE unsigned string_stops(__m128i v) {
  __m128i hit = _mm_or_si128(
      _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                   _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
      _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v));
  return (unsigned)_mm_movemask_epi8(hit);
}
#endif

/* The first byte at or after p (before end) that ends a string's run of
 * plain bytes: '"', '\\' or a control character; end if none. p starts the
 * run, *utf8 is RUN_ASCII. Sixteen bytes at a time with SSE2 (every x86-64
 * has it) while they are ASCII; from the first block that is not,
 * pbc_rt_utf8_string_run takes over, finding the end and validating the
 * UTF-8 in one pass (RUN_INVALID when it is not). The last bytes of the
 * text, fewer than 16, go eight as a word: a byte of word w is flagged
 * where it equals '"' or '\\' (a zero byte of w ^ that byte repeated) or is
 * below 0x20; the borrows of the subtractions can flag a byte above a
 * flagged one falsely, never below, so the lowest flag is the first such
 * byte. A byte those pass over that is not ASCII makes the run
 * RUN_UNCHECKED: the caller validates it. */
static const char *plain_run(const char *p, const char *end, int *utf8) {
#if defined(__SSE2__)
  while (end - p >= 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)p);
    unsigned mask = string_stops(v), top = (unsigned)_mm_movemask_epi8(v);
    if (mask != 0) {
      unsigned n = (unsigned)__builtin_ctz(mask);
      if ((top & ((1u << n) - 1)) == 0) return p + n;
    } else if (top == 0) {
      p += 16;
      continue;
    }
    /* A byte that is not ASCII before the first stop (or no stop). */
    bool valid;
    p = pbc_rt_utf8_string_run(p, end, &valid);
    if (!valid) *utf8 = RUN_INVALID;
    return p;
  }
#endif
  const uint64_t ones = 0x0101010101010101ULL, tops = ones * 0x80;
  uint64_t seen = 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  while (end - p >= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    uint64_t hit = ((q - ones) & ~q) | ((b - ones) & ~b) |
                   ((w - ones * 0x20) & ~w);
    hit &= tops;
    if (hit != 0) {
      size_t n = (size_t)__builtin_ctzll(hit) / 8;
      /* Only the bytes before the hit were passed over. */
      if (n != 0) seen |= w & (~0ULL >> (64 - 8 * n));
      if (seen & tops) *utf8 = RUN_UNCHECKED;
      return p + n;
    }
    seen |= w;
    p += 8;
  }
#endif
  while (p < end && *p != '"' && *p != '\\' && (uint8_t)*p >= 0x20)
    seen |= (uint8_t)*p++;
  if (seen & tops) *utf8 = RUN_UNCHECKED;
  return p;
}

/* Where the bytes [p, end), which are not UTF-8, stop being it: the lead
 * of the first sequence that is cut, malformed or out of range. */
static const char *first_bad_utf8(const char *p, const char *end) {
  while (p < end) {
    uint8_t c = (uint8_t)*p;
    size_t n = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    if ((size_t)(end - p) < n || !pbc_rt_utf8_valid((const uint8_t *)p, n))
      return p;
    p += n;
  }
  return end;
}

static PBC_NOINLINE bool read_string_run(parser *ps, jstr *s) {
  if (peek(ps) != '"')
    return SYNTAX(ps->p, "Expected a string, found %s.", what(ps));
  s->at = ps->p;
  const char *p = ++ps->p, *run = p;
  size_t out = 0; /* decoded bytes in scratch; escapes seen when > 0 */
  bool escaped = false;
  for (;;) {
    /* The run of plain bytes must be UTF-8 (the text is). */
    int utf8 = RUN_ASCII;
    p = plain_run(p, ps->end, &utf8);
    if (p >= ps->end) return SYNTAX(s->at, "Unterminated string.");
    if (utf8 != RUN_ASCII &&
        (utf8 == RUN_INVALID ||
         !pbc_rt_utf8_valid((const uint8_t *)run, (size_t)(p - run))))
      return fail_at(ps, first_bad_utf8(run, p), PBC_ERR_INVALID_UTF8,
                     "String is not valid UTF-8.");
    if ((uint8_t)*p < 0x20)
      return SYNTAX(p, "Control character in a string: escape it.");
    if (*p == '"' && !escaped) {
      s->data = run;
      s->len = (size_t)(p - run);
      ps->p = p + 1;
      return true;
    }
    /* Escapes: decode into scratch from here on. Each escape's output is
     * at most its input's length. */
    size_t n = (size_t)(p - run);
    TRY(scratch_reserve(ps, out + n + 8));
    memcpy(ps->scratch + out, run, n);
    out += n;
    escaped = true;
    if (*p == '"') {
      s->data = (const char *)ps->scratch;
      s->len = out;
      ps->p = p + 1;
      return true;
    }
    const char *esc = p++;
    if (p >= ps->end) return SYNTAX(esc, "Unterminated escape.");
    char c = *p++, plain = 0;
    switch (c) {
    case '"': plain = '"'; break;
    case '\\': plain = '\\'; break;
    case '/': plain = '/'; break;
    case 'b': plain = '\b'; break;
    case 'f': plain = '\f'; break;
    case 'n': plain = '\n'; break;
    case 'r': plain = '\r'; break;
    case 't': plain = '\t'; break;
    case 'u': {
      uint32_t cp;
      TRY(read_hex4(ps, p, &cp));
      p += 4;
      if (cp >= 0xDC00 && cp <= 0xDFFF)
        return SYNTAX(esc, "Unpaired low surrogate \\u%04X.", (unsigned)cp);
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        uint32_t lo;
        if (ps->end - p < 6 || p[0] != '\\' || p[1] != 'u')
          return SYNTAX(esc, "Unpaired high surrogate \\u%04X.", (unsigned)cp);
        TRY(read_hex4(ps, p + 2, &lo));
        if (lo < 0xDC00 || lo > 0xDFFF)
          return SYNTAX(esc, "Unpaired high surrogate \\u%04X.", (unsigned)cp);
        p += 6;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      }
      out += pbc_utf8_put(cp, ps->scratch + out);
      break;
    }
    default:
      return SYNTAX(esc, "Invalid escape \\%c.", c);
    }
    if (plain) ps->scratch[out++] = (uint8_t)plain;
    run = p;
  }
}

/* A string's text (its escapes decoded into scratch). The common one, up
 * to 15 plain ASCII bytes and its closing quote (a key, a tag, a name),
 * is found by one 16-byte load and compare here, inlined, where the
 * general reader above costs its call and its setup. */
static PBC_ALWAYS_INLINE bool read_string(parser *ps, jstr *s) {
#if defined(__SSE2__)
  const char *p = ps->p;
  if (ps->end - p >= 17 && *p == '"') {
    __m128i v = _mm_loadu_si128((const __m128i *)(p + 1));
    unsigned stops = string_stops(v), top = (unsigned)_mm_movemask_epi8(v);
    /* The first stop a quote, nothing before it above 0x7F. */
    unsigned before = (stops & (0u - stops)) - 1;
    if (stops != 0 && (top & before) == 0 &&
        p[1 + __builtin_ctz(stops)] == '"') {
      size_t n = (size_t)__builtin_ctz(stops);
      s->at = p;
      s->data = p + 1;
      s->len = n;
      ps->p = p + 2 + n;
      return true;
    }
  }
#endif
  return read_string_run(ps, s);
}

/* A number's text, checked against JSON's grammar:
 * -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
typedef struct jnum {
  const char *text;
  size_t len;
  bool negative, integral; /* integral: no fraction, no exponent */
} jnum;

/* Scans a number in [p, end) into *n; false (no error reported) when the
 * text there is not exactly one. */
static bool scan_number(const char *p, const char *end, jnum *n,
                        const char **stop) {
  const char *start = p;
  n->negative = p < end && *p == '-';
  if (n->negative) p++;
  if (p >= end || *p < '0' || *p > '9') return false;
  if (*p == '0') {
    p++;
    if (p < end && *p >= '0' && *p <= '9') return false; /* leading zero */
  } else {
    while (p < end && *p >= '0' && *p <= '9') p++;
  }
  n->integral = true;
  if (p < end && *p == '.') {
    n->integral = false;
    p++;
    if (p >= end || *p < '0' || *p > '9') return false;
    while (p < end && *p >= '0' && *p <= '9') p++;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    n->integral = false;
    p++;
    if (p < end && (*p == '+' || *p == '-')) p++;
    if (p >= end || *p < '0' || *p > '9') return false;
    while (p < end && *p >= '0' && *p <= '9') p++;
  }
  n->text = start;
  n->len = (size_t)(p - start);
  *stop = p;
  return true;
}

/* A number token at p (a delimiter must follow it). */
static bool read_number(parser *ps, jnum *n) {
  const char *at = ps->p, *stop;
  if (!scan_number(at, ps->end, n, &stop) ||
      (stop < ps->end && ((*stop >= '0' && *stop <= '9') || *stop == '.' ||
                          (*stop >= 'a' && *stop <= 'z') ||
                          (*stop >= 'A' && *stop <= 'Z'))))
    return SYNTAX(at, "Invalid number.");
  ps->p = stop;
  return true;
}

/* The magnitude of an integral number's digits, false past UINT64_MAX. */
static bool digits_u64(const jnum *n, uint64_t *v) {
  *v = 0;
  for (size_t i = n->negative; i < n->len; i++)
    if (__builtin_mul_overflow(*v, 10, v) ||
        __builtin_add_overflow(*v, (uint64_t)(n->text[i] - '0'), v))
      return false;
  return true;
}

/* A quoted integer (a value or a map key): an optional '-' and decimal
 * digits, leading zeros allowed, as libprotobuf's safe_strto64 reads it;
 * false when the text is not one. */
static bool scan_decimal(const char *p, size_t len, jnum *n) {
  n->text = p;
  n->len = len;
  n->negative = len > 0 && p[0] == '-';
  n->integral = true;
  if (len == (size_t)n->negative) return false;
  for (size_t i = n->negative; i < len; i++)
    if (p[i] < '0' || p[i] > '9') return false;
  return true;
}

/* ---- Values ---------------------------------------------------------------- */

/* An integer field's value from a number (any integral one: 1e5, 100.0)
 * or a string of an optional '-' and decimal digits (libprotobuf's
 * safe_strto64), within [min, max]: its two's complement in *bits. */
static bool read_integer_text(parser *ps, int64_t min, uint64_t max,
                              uint64_t *bits) {
  const char *at = ps->p;
  jnum n;
  if (peek(ps) == '"') {
    jstr s;
    TRY(read_string(ps, &s));
    if (!scan_decimal(s.data, s.len, &n))
      return BAD_VALUE(at, "Not an integer: \"%.*s\".", (int)s.len, s.data);
  } else if (ps->p < ps->end && (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))) {
    TRY(read_number(ps, &n));
  } else {
    return SYNTAX(at, "Expected an integer, found %s.", what(ps));
  }
  uint64_t limit = n.negative ? (uint64_t)0 - (uint64_t)min : max;
  uint64_t magnitude;
  if (n.integral) {
    if (!digits_u64(&n, &magnitude) || magnitude > limit)
      return BAD_VALUE(at, "Integer out of range: %.*s.", (int)n.len, n.text);
  } else {
    double v = __builtin_fabs(pbc_lex_float(n.text, n.len));
    /* limit + 1 is a power of two, exact as a double. */
    if (!(v < (double)(limit / 2 + 1) * 2.0))
      return BAD_VALUE(at, "Integer out of range: %.*s.", (int)n.len, n.text);
    magnitude = (uint64_t)v;
    if ((double)magnitude != v)
      return BAD_VALUE(at, "Not an integer: %.*s.", (int)n.len, n.text);
    if (magnitude > limit)
      return BAD_VALUE(at, "Integer out of range: %.*s.", (int)n.len, n.text);
  }
  *bits = n.negative ? (uint64_t)0 - magnitude : magnitude;
  return true;
}

/* Whether c may end a number: what JSON lets follow a value (a comma, a
 * closing bracket, white space). Anything else after digits ('.', 'e', a
 * letter, a 20th digit) is read_integer_text's to judge. */
static inline bool ends_number(char c) {
  return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' ||
         c == '\r' || c == '\t';
}

/* An integer field's value, as read_integer_text reads it; the common
 * forms, up to 19 plain digits (no overflow) bare or quoted (as 64-bit
 * integers are printed), in one pass where that would check the grammar
 * or read the string and then read the digits again. */
static PBC_ALWAYS_INLINE bool read_integer(parser *ps, int64_t min,
                                           uint64_t max, uint64_t *bits) {
  const char *p = ps->p, *end = ps->end;
  bool quoted = p < end && *p == '"';
  p += quoted;
  bool negative = p < end && *p == '-';
  const char *first = p + negative, *q = first;
  const char *stop = end - first > 19 ? first + 19 : end;
  uint64_t v = 0, d;
  while (q < stop && (d = (uint64_t)(uint8_t)*q - '0') <= 9) {
    v = v * 10 + d;
    q++;
  }
  uint64_t limit = negative ? (uint64_t)0 - (uint64_t)min : max;
  /* Quoted, leading zeros are allowed (libprotobuf's safe_strto64). */
  size_t n = (size_t)(q - first);
  bool whole = n != 0 && (quoted ? q < end && *q == '"'
                                 : (*first != '0' || n == 1) &&
                                       (q == end || ends_number(*q)));
  if (whole && v <= limit) {
    *bits = negative ? (uint64_t)0 - v : v;
    ps->p = q + quoted;
    return true;
  }
  return read_integer_text(ps, min, max, bits);
}

/* ---- Number arrays in their compact form -----------------------------------
 * An array of numbers or bools as printers write it, `[1,-2,"3"]`,
 * `[0.5,2]`, `[true,false]`: element after element with no white space,
 * read by a loop of its own a type (compact_elements): integers a word of
 * digits at a time (pbc_lex_leading_digits) with no bounds test, the
 * position in a register, each element stored straight into the array.
 * What is not that form (white space, null, a quoted real, a fraction or
 * exponent on an integer, more than 19 digits, an error, the last bytes of
 * the text) goes to read_value, which judges it, and the loop takes up the
 * compact form again after it. */

/* The bytes compact_integer may read: a quote, '-' and three words of
 * digits (19 digits, a quote and the ',' or ']' after it lie within). */
enum { COMPACT_INTEGER_SPAN = 2 + 3 * 8 };

/* The integer element at p (COMPACT_INTEGER_SPAN bytes readable) in the
 * compact form read_integer's fast path takes, within [min, max], its
 * two's complement in *bits: where its ',' or ']' stands, or NULL. */
static PBC_ALWAYS_INLINE const char *compact_integer(const char *p,
                                                     int64_t min, uint64_t max,
                                                     uint64_t *bits) {
  bool quoted = *p == '"';
  p += quoted;
  bool negative = *p == '-';
  const char *first = p + negative;
  unsigned k;
  uint64_t v = pbc_lex_leading_digits(first, &k);
  if (k == 0) return NULL;
  const char *q = first + k;
  /* Two more words while they are full: 17 to 19 digits fit a uint64_t,
   * 20 may not. */
  for (int word = 0; k == 8 && word < 2; word++) {
    uint64_t next = pbc_lex_leading_digits(q, &k);
    if (word == 1 && k > 3) return NULL;
    v = v * pbc_lex_word_pow10[k] + next;
    q += k;
  }
  /* Bare, no leading zero (JSON's grammar); quoted, any (safe_strto64). */
  if (quoted ? *q++ != '"' : *first == '0' && q - first > 1) return NULL;
  if (*q != ',' && *q != ']') return NULL;
  if (v > (negative ? (uint64_t)0 - (uint64_t)min : max)) return NULL;
  *bits = negative ? (uint64_t)0 - v : v;
  return q;
}

/* The bytes compact_decimal may read: '-' and four words (the point
 * among them, the last read past the 19th digit). */
enum { COMPACT_REAL_SPAN = 1 + 4 * 8 };

/* Up to 15 digits at *q (16 bytes readable) appended to *v, *q moved past
 * them: a word of them, and a second when the first is full. How many, or
 * -1 at 16 and more. */
static PBC_ALWAYS_INLINE int up_to_15_digits(const char **q, uint64_t *v) {
  unsigned k, more = 0;
  uint64_t x = pbc_lex_leading_digits(*q, &k);
  if (k == 0) return 0;
  *v = *v * pbc_lex_word_pow10[k] + x;
  *q += k;
  if (k == 8) {
    x = pbc_lex_leading_digits(*q, &more);
    if (more == 8) return -1;
    *v = *v * pbc_lex_word_pow10[more] + x; /* wraps past 19 digits: refused */
    *q += more;
  }
  return (int)(k + more);
}

/* A bare decimal at p (COMPACT_REAL_SPAN bytes readable) in the form
 * printers write a double that needs no exponent, `-?int(.frac)?`: at
 * most 15 digits before the point, 15 after it and 19 in all, no leading
 * zero. Its digits as one integer in *m, scaled by 10^*exp, as
 * pbc_lex_decimal_scan gives them, and where it ends; NULL, having read
 * nothing, for the rest (an exponent, more digits), which
 * one_pass_decimal reads. A word of digits at a time with no bounds
 * test, where pbc_lex_decimal_scan tests the end before each word and
 * returns its results through memory (174 instructions a double of
 * packed_heavy's: 17 digits, a point after the fifth). */
static PBC_ALWAYS_INLINE const char *compact_decimal(const char *p,
                                                     uint64_t *m, int *exp,
                                                     bool *negative) {
  bool minus = *p == '-';
  const char *first = p + minus, *q = first;
  uint64_t v = 0;
  int digits = up_to_15_digits(&q, &v);
  if (digits <= 0 || (*first == '0' && digits > 1)) /* JSON's grammar */
    return NULL;
  int scale = 0;
  if (*q == '.') {
    ++q;
    scale = -up_to_15_digits(&q, &v);
    if (scale >= 0) return NULL; /* a point needs digits */
    digits -= scale;
  }
  if (digits > 19 || (*q | 0x20) == 'e') return NULL;
  *m = v;
  *exp = scale;
  *negative = minus;
  return q;
}

/* A bare decimal at p (before end) in one pass: its digits read as JSON's
 * grammar is checked, the value by pbc_lex_decimal, where it stops;
 * NULL, having read nothing, for the rest (a leading zero, more than 19
 * significant digits, a long exponent, what pbc_lex_decimal leaves to
 * strtod, what is not a number). What may follow it is the caller's. */
static PBC_ALWAYS_INLINE const char *one_pass_decimal(const char *p,
                                                      const char *end,
                                                      double *v) {
  uint64_t m;
  int exp;
  bool negative;
  const char *stop = pbc_lex_decimal_scan(p, end, &m, &exp, &negative);
  p += negative;
  if (stop == NULL || (p[0] == '0' && p + 1 < end && p[1] >= '0' && p[1] <= '9') ||
      !pbc_lex_decimal(m, exp, negative, v))
    return NULL;
  return stop;
}

/* A float or double field's bare number by one_pass_decimal, followed by
 * what can end one. False, having read nothing, for the rest: read_real's
 * general path judges them. */
static PBC_ALWAYS_INLINE bool real_one_pass(parser *ps, double *v) {
  const char *stop = one_pass_decimal(ps->p, ps->end, v);
  if (stop == NULL || (stop < ps->end && !ends_number(*stop))) return false;
  ps->p = stop;
  return true;
}

/* A float or double field's value: a number, or a string holding one or
 * "NaN", "Infinity", "-Infinity"; out of the type's range is an error
 * (what rounds to FLT_MAX is FLT_MAX, as libprotobuf). */
static bool read_real(parser *ps, bool is_float, uint64_t *bits) {
  const char *at = ps->p;
  jnum n;
  double v;
  if (peek(ps) == '"') {
    jstr s;
    TRY(read_string(ps, &s));
    const char *stop;
    if (s.len == 3 && memcmp(s.data, "NaN", 3) == 0) {
      v = __builtin_nan("");
    } else if (s.len == 8 && memcmp(s.data, "Infinity", 8) == 0) {
      v = __builtin_inf();
    } else if (s.len == 9 && memcmp(s.data, "-Infinity", 9) == 0) {
      v = -__builtin_inf();
    } else if (scan_number(s.data, s.data + s.len, &n, &stop) &&
               stop == s.data + s.len) {
      v = pbc_lex_float(n.text, n.len);
      if (__builtin_isinf(v))
        return BAD_VALUE(at, "Number out of range: \"%.*s\".", (int)s.len,
                         s.data);
    } else {
      return BAD_VALUE(at, "Not a number: \"%.*s\".", (int)s.len, s.data);
    }
  } else if (!real_one_pass(ps, &v)) {
    if (ps->p >= ps->end || (*ps->p != '-' && (*ps->p < '0' || *ps->p > '9')))
      return SYNTAX(at, "Expected a number, found %s.", what(ps));
    TRY(read_number(ps, &n));
    v = pbc_lex_float(n.text, n.len);
    if (__builtin_isinf(v))
      return BAD_VALUE(at, "Number out of range: %.*s.", (int)n.len, n.text);
  }
  if (!is_float) {
    memcpy(bits, &v, 8);
    return true;
  }
  float f;
  if (__builtin_isfinite(v) && (v > FLT_MAX || v < -FLT_MAX)) {
    /* Halving is exact; what then rounds within half of FLT_MAX doubled
     * is what rounds to FLT_MAX. */
    double half = v * 0.5;
    float hf = (float)(half > FLT_MAX ? FLT_MAX : half < -FLT_MAX ? -FLT_MAX : half);
    if (!(__builtin_fabs(half) < FLT_MAX) || __builtin_fabsf(hf) > FLT_MAX * 0.5f)
      return BAD_VALUE(at, "Number out of float's range.");
    f = hf + hf;
  } else {
    f = (float)v;
  }
  uint32_t b;
  memcpy(&b, &f, 4);
  *bits = b;
  return true;
}

/* A base64 digit's value plus one, both alphabets ('+' and '-' 62, '/'
 * and '_' 63); 0 for any other byte. */
static const uint8_t base64_value[256] = {
    ['A'] = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
        20, 21, 22, 23, 24, 25, 26,
    ['a'] = 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
        44, 45, 46, 47, 48, 49, 50, 51, 52,
    ['0'] = 53, 54, 55, 56, 57, 58, 59, 60, 61, 62,
    ['+'] = 63, ['-'] = 63, ['/'] = 64, ['_'] = 64,
};

/* Base64, standard or URL-safe, '=' padding optional, into `out` (room
 * for base64_bytes(s)); *written its length. */
static size_t base64_bytes(const jstr *s) { return s->len / 4 * 3 + 3; }

static bool read_base64(parser *ps, const jstr *s, uint8_t *out,
                        size_t *written) {
  size_t n = s->len;
  while (n > 0 && s->data[n - 1] == '=') n--;
  if (s->len - n > 2 || (s->len != n && s->len % 4 != 0) || n % 4 == 1)
    return BAD_VALUE(s->at, "Invalid base64.");
  /* Blocks of 16 or 32 digits in vector registers while they last; then
   * four digits at a time, checked at once (a byte that is no digit looks
   * up 0, which the minus one turns into high bits); the rest, and a bad
   * digit's error, one at a time. */
  const uint8_t *d = (const uint8_t *)s->data;
  size_t i = pbc_rt_base64_blocks(d, n, out), o = i / 4 * 3;
  for (; i + 4 <= n; i += 4) {
    uint32_t a = base64_value[d[i]] - 1u, b = base64_value[d[i + 1]] - 1u,
             c = base64_value[d[i + 2]] - 1u, e = base64_value[d[i + 3]] - 1u;
    if ((a | b | c | e) & ~0x3fu) break;
    uint32_t v = a << 18 | b << 12 | c << 6 | e;
    out[o] = (uint8_t)(v >> 16);
    out[o + 1] = (uint8_t)(v >> 8);
    out[o + 2] = (uint8_t)v;
    o += 3;
  }
  uint32_t acc = 0;
  size_t k = 0;
  for (; i < n; i++) {
    uint32_t v = base64_value[d[i]] - 1u;
    if (v > 63)
      return BAD_VALUE(s->at, "Invalid base64 character '%c'.", s->data[i]);
    acc = acc << 6 | v;
    if (++k == 4) {
      out[o++] = (uint8_t)(acc >> 16);
      out[o++] = (uint8_t)(acc >> 8);
      out[o++] = (uint8_t)acc;
      acc = 0;
      k = 0;
    }
  }
  if (k == 2) {
    out[o++] = (uint8_t)(acc >> 4);
  } else if (k == 3) {
    out[o++] = (uint8_t)(acc >> 10);
    out[o++] = (uint8_t)(acc >> 2);
  }
  *written = o;
  return true;
}

/* Base64 into the wire form. */
static bool put_base64(parser *ps, const jstr *s) {
  TRY(wrote(ps, pbc_wb_reserve(&ps->wb, base64_bytes(s))));
  size_t n;
  TRY(read_base64(ps, s, ps->wb.out + ps->wb.len, &n));
  ps->wb.len += n;
  return true;
}

/* The enum value a name (or a number) gives; *known false for a name the
 * enum does not declare when unknown names are ignored. */
static bool read_enum(parser *ps, const pbc_enum_info *e, uint64_t *bits,
                      bool *known) {
  *known = true;
  if (peek(ps) != '"') return read_integer(ps, INT32_MIN, INT32_MAX, bits);
  jstr s;
  TRY(read_string(ps, &s));
  int32_t v;
  if (pbc_enum_value_by_name(e, s.data, s.len, &v)) {
    *bits = (uint64_t)(int64_t)v;
    return true;
  }
  if (ps->ignore_unknown) {
    *known = false;
    return true;
  }
  return BAD_VALUE(s.at, "Enum %s has no value named \"%.*s\".", e->full_name,
                   (int)s.len, s.data);
}

static bool enter(parser *ps) {
  if (ps->depth >= ps->max_depth)
    return fail_at(ps, ps->p, PBC_ERR_DEPTH_LIMIT,
                   "Nested deeper than the limit of %u.",
                   (unsigned)ps->max_depth);
  ps->depth++;
  return true;
}

/* Any JSON value, read and dropped (an unknown member's). */
static bool skip_value(parser *ps) {
  char c = peek(ps);
  if (c == '"') {
    jstr s;
    return read_string(ps, &s);
  }
  if (c == '{' || c == '[') {
    TRY(enter(ps));
    char close = c == '{' ? '}' : ']';
    ps->p++;
    if (peek(ps) != close) {
      for (;;) {
        if (c == '{') {
          jstr key;
          TRY(read_string(ps, &key) && expect(ps, ':'));
        }
        TRY(skip_value(ps));
        if (peek(ps) != ',') break;
        ps->p++;
      }
    }
    ps->depth--;
    return expect(ps, close);
  }
  if (at_literal(ps, "true", 4) || at_literal(ps, "null", 4)) {
    ps->p += 4;
    return true;
  }
  if (at_literal(ps, "false", 5)) {
    ps->p += 5;
    return true;
  }
  jnum n;
  if (c == '-' || (c >= '0' && c <= '9')) return read_number(ps, &n);
  return SYNTAX(ps->p, "Expected a value, found %s.", what(ps));
}

static bool parse_field_value(parser *ps, const pbc_message_desc *d,
                              const pbc_field_desc *f, bool *set, bool kept);
static bool parse_message(parser *ps, const pbc_message_desc *d);
static bool parse_object(parser *ps, const pbc_message_desc *d,
                         bool any_body);
static bool parse_member(parser *ps, const pbc_message_desc *d, size_t frame,
                         bool any_body, uint32_t *next);

/* A string field's value, as its record. */
static bool put_string(parser *ps, const pbc_field_desc *f, const jstr *s,
                       bool base64) {
  size_t at = 0;
  TRY(wrote(ps, pbc_wb_tag(&ps->wb, f->number, PBC_WIRE_LEN) &&
                    pbc_wb_open_len(&ps->wb, &at)));
  TRY(base64 ? put_base64(ps, s)
             : wrote(ps, pbc_wb_bytes(&ps->wb, s->data, s->len)));
  return closed(ps, at);
}

static PBC_ALWAYS_INLINE bool read_number_bits(parser *ps,
                                               const pbc_message_desc *d,
                                               const pbc_field_desc *f,
                                               pbc_field_type type,
                                               uint64_t *out);

/* What read_scalar found. */
typedef enum {
  SCALAR_ERROR,
  SCALAR_NONE, /* null (but NullValue's), an enum name ignored */
  SCALAR_BITS, /* a number, bool or enum value (NullValue's null: 0) */
  SCALAR_TEXT, /* a string or bytes field's string, still base64 */
} scalar_read;

/* A scalar, string, bytes or enum value of f (whose type is `type`, a
 * constant where the caller knows it, so that the switches fold): its
 * bits, as pbc_wb_scalar takes them, or its string. `element` (a constant)
 * says the caller has skipped the white space before it and refused null,
 * as an array's element loop does. What both parsers do
 * with it differs: the description's writes it to the wire form
 * (parse_scalar), a compiled one stores it into the struct (read_value).
 * Inlined into both: called, its results through memory cost
 * google_message1 6% more instructions. */
static PBC_ALWAYS_INLINE scalar_read read_scalar(parser *ps,
                                                 const pbc_message_desc *d,
                                                 const pbc_field_desc *f,
                                                 pbc_field_type type,
                                                 bool element, uint64_t *bits,
                                                 jstr *s) {
  const char *at = ps->p;
  *bits = 0;
  if (!element && at_null(ps)) {
    ps->p += 4;
    /* google.protobuf.NullValue's one value is null. */
    return type == PBC_TYPE_ENUM &&
                   pbc_json_is_null_value(pbc_field_enum(d, f))
               ? SCALAR_BITS
               : SCALAR_NONE;
  }
  switch (type) {
  case PBC_TYPE_STRING:
  case PBC_TYPE_BYTES:
    if (peek(ps) != '"')
      return SYNTAX(at, "Expected a string for field \"%s\", found %s.",
                    pbc_field_json_name(d, f), what(ps)),
             SCALAR_ERROR;
    return read_string(ps, s) ? SCALAR_TEXT : SCALAR_ERROR;
  case PBC_TYPE_ENUM: {
    bool known;
    if (!read_enum(ps, pbc_field_enum(d, f), bits, &known)) return SCALAR_ERROR;
    return known ? SCALAR_BITS : SCALAR_NONE;
  }
  default:
    return read_number_bits(ps, d, f, type, bits) ? SCALAR_BITS : SCALAR_ERROR;
  }
}

/* A scalar, string, bytes or enum value of f as its record; null, and an
 * enum name ignored, write nothing and leave *set false. */
static bool parse_scalar(parser *ps, const pbc_message_desc *d,
                         const pbc_field_desc *f, bool *set) {
  uint64_t bits;
  jstr s;
  scalar_read r =
      read_scalar(ps, d, f, (pbc_field_type)f->type, false, &bits, &s);
  *set = r == SCALAR_BITS || r == SCALAR_TEXT;
  switch (r) {
  case SCALAR_ERROR: return false;
  case SCALAR_NONE: return true;
  case SCALAR_BITS: return wrote(ps, pbc_wb_scalar(&ps->wb, f, bits));
  case SCALAR_TEXT: break;
  }
  return put_string(ps, f, &s, f->type == PBC_TYPE_BYTES);
}

/* A number or bool field's value (not null), as pbc_wb_scalar takes it:
 * inlined into both its callers, a switch on the type each. */
static PBC_ALWAYS_INLINE bool read_number_bits(parser *ps,
                                               const pbc_message_desc *d,
                                               const pbc_field_desc *f,
                                               pbc_field_type type,
                                               uint64_t *out) {
  const char *at = ps->p;
  uint64_t bits = 0;
  switch (type) {
  case PBC_TYPE_INT32: case PBC_TYPE_SINT32: case PBC_TYPE_SFIXED32:
    TRY(read_integer(ps, INT32_MIN, INT32_MAX, &bits));
    break;
  case PBC_TYPE_INT64: case PBC_TYPE_SINT64: case PBC_TYPE_SFIXED64:
    TRY(read_integer(ps, INT64_MIN, INT64_MAX, &bits));
    break;
  case PBC_TYPE_UINT32: case PBC_TYPE_FIXED32:
    TRY(read_integer(ps, 0, UINT32_MAX, &bits));
    break;
  case PBC_TYPE_UINT64: case PBC_TYPE_FIXED64:
    TRY(read_integer(ps, 0, UINT64_MAX, &bits));
    break;
  case PBC_TYPE_FLOAT: case PBC_TYPE_DOUBLE:
    TRY(read_real(ps, type == PBC_TYPE_FLOAT, &bits));
    break;
  case PBC_TYPE_BOOL:
    if (at_literal(ps, "true", 4)) {
      ps->p += 4;
      bits = 1;
    } else if (at_literal(ps, "false", 5)) {
      ps->p += 5;
    } else {
      return SYNTAX(at, "Expected true or false for field \"%s\", found %s.",
                    pbc_field_json_name(d, f), what(ps));
    }
    break;
  default:
    assert(0 && "strings, enums and messages are read elsewhere");
    return false;
  }
  *out = bits;
  return true;
}

/* ---- Well-known types -------------------------------------------------------
 * Their fields by number are part of their definition (google/protobuf/
 * *.proto), fixed for good. */

/* A string value of a well-known type, or a syntax error. */
static bool read_wkt_string(parser *ps, const char *type, jstr *s) {
  if (peek(ps) != '"')
    return SYNTAX(ps->p, "Expected a string for %s, found %s.", type, what(ps));
  return read_string(ps, s);
}

static bool put_varint_field(parser *ps, uint32_t number, uint64_t v) {
  return wrote(ps, pbc_wb_tag(&ps->wb, number, PBC_WIRE_VARINT) &&
                       pbc_wb_varint(&ps->wb, v));
}

/* Digits at *p (exactly `count`, or 1 to `count` when `upto`), as a number;
 * *digits how many. */
static bool fixed_digits(const char **p, const char *end, int count,
                         bool upto, int64_t *v, int *digits) {
  *v = 0;
  int k = 0;
  while (k < count && *p < end && **p >= '0' && **p <= '9') {
    *v = *v * 10 + (**p - '0');
    (*p)++;
    k++;
  }
  if (digits) *digits = k;
  return upto ? k > 0 : k == count;
}

/* Nanoseconds from ".d{1,9}" at *p, if there. */
static bool read_nanos(const char **p, const char *end, int64_t *nanos) {
  *nanos = 0;
  if (*p >= end || **p != '.') return true;
  (*p)++;
  int digits;
  if (!fixed_digits(p, end, 9, true, nanos, &digits)) return false;
  for (; digits < 9; digits++) *nanos *= 10;
  return true;
}

/* A Timestamp's or Duration's seconds (1) and nanos (2), zeros left out
 * as a serializer leaves them. */
static bool put_seconds_nanos(parser *ps, int64_t seconds, int64_t nanos) {
  return (seconds == 0 || put_varint_field(ps, 1, (uint64_t)seconds)) &&
         (nanos == 0 || put_varint_field(ps, 2, (uint64_t)nanos));
}

/* Days since 1970-01-01 of a proleptic Gregorian date. */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/* Timestamp: RFC 3339, "1972-01-01T10:00:20.021Z" or with an offset
 * ("+08:00"), 0 to 9 fractional digits, years 0001 to 9999. */
static bool parse_timestamp(parser *ps) {
  jstr s;
  TRY(read_wkt_string(ps, "google.protobuf.Timestamp", &s));
  const char *p = s.data, *end = s.data + s.len;
  int64_t year, month, day, hour, minute, second, nanos, off_h = 0, off_m = 0;
  int sign = 0;
  bool ok = fixed_digits(&p, end, 4, false, &year, NULL) && p < end &&
            *p++ == '-' && fixed_digits(&p, end, 2, false, &month, NULL) &&
            p < end && *p++ == '-' &&
            fixed_digits(&p, end, 2, false, &day, NULL) && p < end &&
            *p++ == 'T' && fixed_digits(&p, end, 2, false, &hour, NULL) &&
            p < end && *p++ == ':' &&
            fixed_digits(&p, end, 2, false, &minute, NULL) && p < end &&
            *p++ == ':' && fixed_digits(&p, end, 2, false, &second, NULL) &&
            read_nanos(&p, end, &nanos) && p < end;
  if (ok) {
    char z = *p++;
    if (z == '+' || z == '-') {
      sign = z == '+' ? 1 : -1;
      ok = fixed_digits(&p, end, 2, false, &off_h, NULL) && p < end &&
           *p++ == ':' && fixed_digits(&p, end, 2, false, &off_m, NULL) &&
           off_h <= 23 && off_m <= 59;
    } else {
      ok = z == 'Z';
    }
  }
  static const int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
  ok = ok && p == end && year >= 1 && month >= 1 && month <= 12 &&
       day >= 1 && day <= kDays[month - 1] - (month == 2 && !leap) &&
       hour <= 23 && minute <= 59 && second <= 59;
  if (!ok)
    return BAD_VALUE(s.at, "Invalid RFC 3339 timestamp: \"%.*s\".",
                     (int)s.len, s.data);
  int64_t seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 +
                    minute * 60 + second - sign * (off_h * 3600 + off_m * 60);
  if (seconds < INT64_C(-62135596800) || seconds > INT64_C(253402300799))
    return BAD_VALUE(s.at, "Timestamp out of range: \"%.*s\".", (int)s.len,
                     s.data);
  return put_seconds_nanos(ps, seconds, nanos);
}

/* Duration: "-315576000000.999999999s" to "315576000000.999999999s". */
static bool parse_duration(parser *ps) {
  jstr s;
  TRY(read_wkt_string(ps, "google.protobuf.Duration", &s));
  const char *p = s.data, *end = s.data + s.len;
  bool negative = p < end && *p == '-';
  if (negative) p++;
  int64_t seconds, nanos;
  bool ok = fixed_digits(&p, end, 12, true, &seconds, NULL) &&
            read_nanos(&p, end, &nanos) && p + 1 == end && *p == 's';
  if (!ok)
    return BAD_VALUE(s.at, "Invalid duration: \"%.*s\".", (int)s.len, s.data);
  if (seconds > INT64_C(315576000000))
    return BAD_VALUE(s.at, "Duration out of range: \"%.*s\".", (int)s.len,
                     s.data);
  return negative ? put_seconds_nanos(ps, -seconds, -nanos)
                  : put_seconds_nanos(ps, seconds, nanos);
}

/* FieldMask: paths in lowerCamelCase joined by commas, each as its
 * snake_case path ("fooBar.baz" -> "foo_bar.baz"). */
static bool parse_field_mask(parser *ps) {
  jstr s;
  TRY(read_wkt_string(ps, "google.protobuf.FieldMask", &s));
  /* A paths record per non-empty path, converted as it is copied. */
  const char *p = s.data, *end = s.data + s.len;
  while (p < end) {
    const char *comma = memchr(p, ',', (size_t)(end - p));
    const char *stop = comma ? comma : end;
    if (stop != p) {
      size_t at = 0;
      TRY(wrote(ps, pbc_wb_tag(&ps->wb, 1, PBC_WIRE_LEN) &&
                        pbc_wb_open_len(&ps->wb, &at) &&
                        pbc_wb_reserve(&ps->wb, 2 * (size_t)(stop - p))));
      for (const char *q = p; q < stop; q++) {
        char c = *q;
        if (c == '_')
          return BAD_VALUE(s.at, "FieldMask path \"%.*s\" is not "
                                 "lowerCamelCase.",
                           (int)(stop - p), p);
        if (c >= 'A' && c <= 'Z') {
          ps->wb.out[ps->wb.len++] = '_';
          c = (char)(c - 'A' + 'a');
        }
        ps->wb.out[ps->wb.len++] = (uint8_t)c;
      }
      TRY(closed(ps, at));
    }
    p = comma ? comma + 1 : end;
  }
  return true;
}

static bool parse_json_value(parser *ps);

/* The keys a map's object has given, as the offsets and lengths of their
 * records in the wire form (fixed once their entry is closed): equal keys
 * have equal records. Open addressing, FNV-1a over the record. */
typedef struct key_set {
  struct key { size_t at, len; } *slots; /* len 0: empty */
  size_t cap, count;
} key_set;

static uint64_t key_hash(const uint8_t *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325u;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3u;
  return h;
}

/* Adds a key record; false (no error reported) when it is there already
 * or memory runs out (*oom). */
static bool key_add(const parser *ps, key_set *set, size_t at, size_t len,
                    bool *oom) {
  *oom = false;
  if (2 * (set->count + 1) > set->cap) {
    size_t cap = set->cap ? 2 * set->cap : 16;
    struct key *slots = malloc(cap * sizeof *slots);
    if (slots == NULL) return !(*oom = true);
    memset(slots, 0, cap * sizeof *slots);
    for (size_t i = 0; i < set->cap; i++) {
      if (set->slots[i].len == 0) continue;
      size_t j = key_hash(ps->wb.out + set->slots[i].at, set->slots[i].len) &
                 (cap - 1);
      while (slots[j].len) j = (j + 1) & (cap - 1);
      slots[j] = set->slots[i];
    }
    free(set->slots);
    set->slots = slots;
    set->cap = cap;
  }
  const uint8_t *key = ps->wb.out + at;
  size_t j = key_hash(key, len) & (set->cap - 1);
  for (; set->slots[j].len; j = (j + 1) & (set->cap - 1))
    if (set->slots[j].len == len &&
        memcmp(ps->wb.out + set->slots[j].at, key, len) == 0)
      return false;
  set->slots[j] = (struct key){at, len};
  set->count++;
  return true;
}

/* Struct's body: each member as a fields entry (key 1, Value 2); a key
 * given twice is an error, as in a map. */
static bool parse_struct(parser *ps) {
  TRY(expect(ps, '{'));
  if (at_close(ps, '}')) return true;
  key_set keys = {0};
  bool ok = true;
  for (;;) {
    jstr key;
    size_t entry = 0, value = 0;
    ok = read_string(ps, &key) &&
         wrote(ps, pbc_wb_tag(&ps->wb, 1, PBC_WIRE_LEN) &&
                       pbc_wb_open_len(&ps->wb, &entry) &&
                       pbc_wb_tag(&ps->wb, 1, PBC_WIRE_LEN) &&
                       pbc_wb_varint(&ps->wb, key.len) &&
                       pbc_wb_bytes(&ps->wb, key.data, key.len));
    if (!ok) break;
    size_t key_len = ps->wb.len - (entry + 1);
    ok = wrote(ps, pbc_wb_tag(&ps->wb, 2, PBC_WIRE_LEN) &&
                       pbc_wb_open_len(&ps->wb, &value)) &&
         expect(ps, ':') && parse_json_value(ps) && closed(ps, value);
    if (!ok) break;
    size_t content = ps->wb.len - (entry + 1);
    bool oom;
    ok = closed(ps, entry);
    if (ok && !key_add(ps, &keys, entry + pbc_varint_size(content), key_len,
                       &oom))
      ok = oom ? out_of_memory(ps)
               : BAD_VALUE(key.at, "google.protobuf.Struct has this key "
                                   "twice.");
    if (!ok || peek(ps) != ',') break;
    ps->p++;
  }
  free(keys.slots);
  return ok && expect(ps, '}');
}

/* ListValue's body: each element as a values record (1). */
static bool parse_list(parser *ps) {
  TRY(expect(ps, '['));
  if (at_close(ps, ']')) return true;
  for (;;) {
    size_t value = 0;
    TRY(wrote(ps, pbc_wb_tag(&ps->wb, 1, PBC_WIRE_LEN) &&
                      pbc_wb_open_len(&ps->wb, &value)));
    TRY(parse_json_value(ps) && closed(ps, value));
    if (peek(ps) != ',') break;
    ps->p++;
  }
  return expect(ps, ']');
}

/* Value's body: null_value 1, number_value 2, string_value 3, bool_value
 * 4, struct_value 5, list_value 6. */
static bool parse_json_value(parser *ps) {
  char c = peek(ps);
  const char *at = ps->p;
  if (c == '{' || c == '[') {
    size_t inner = 0;
    TRY(enter(ps));
    TRY(wrote(ps, pbc_wb_tag(&ps->wb, c == '{' ? 5 : 6, PBC_WIRE_LEN) &&
                      pbc_wb_open_len(&ps->wb, &inner)));
    TRY(c == '{' ? parse_struct(ps) : parse_list(ps));
    ps->depth--;
    return closed(ps, inner);
  }
  if (c == '"') {
    jstr s;
    TRY(read_string(ps, &s));
    return wrote(ps, pbc_wb_tag(&ps->wb, 3, PBC_WIRE_LEN) &&
                         pbc_wb_varint(&ps->wb, s.len) &&
                         pbc_wb_bytes(&ps->wb, s.data, s.len));
  }
  if (at_literal(ps, "null", 4)) {
    ps->p += 4;
    return put_varint_field(ps, 1, 0);
  }
  if (at_literal(ps, "true", 4) || at_literal(ps, "false", 5)) {
    bool v = *ps->p == 't';
    ps->p += v ? 4 : 5;
    return put_varint_field(ps, 4, v);
  }
  jnum n;
  if (c == '-' || (c >= '0' && c <= '9')) {
    TRY(read_number(ps, &n));
    double v = pbc_lex_float(n.text, n.len);
    if (__builtin_isinf(v))
      return BAD_VALUE(at, "Number out of range: %.*s.", (int)n.len, n.text);
    uint64_t bits;
    memcpy(&bits, &v, 8);
    pbc_field_desc number_value = {.number = 2, .type = PBC_TYPE_DOUBLE};
    return wrote(ps, pbc_wb_scalar(&ps->wb, &number_value, bits));
  }
  return SYNTAX(at, "Expected a value, found %s.", what(ps));
}

/* Any: {"@type": url, ...the value's members} or, for a well-known type,
 * {"@type": url, "value": its form}; {} for an empty Any. */
static bool parse_any(parser *ps) {
  const char *open = ps->p;
  TRY(expect(ps, '{'));
  /* Find "@type" first: it may come after what it types. */
  size_t members = 0;
  char *url = NULL;
  size_t url_len = 0;
  const char *url_at = NULL;
  bool ok = true;
  if (peek(ps) != '}') {
    for (;;) {
      jstr key;
      ok = read_string(ps, &key) && expect(ps, ':');
      if (!ok) break;
      members++;
      if (key.len == 5 && memcmp(key.data, "@type", 5) == 0) {
        jstr v;
        url_at = ps->p;
        ok = url == NULL ? read_wkt_string(ps, "@type", &v)
                         : SYNTAX(key.at, "Duplicate \"@type\".");
        if (!ok) break;
        url = malloc(v.len + 1);
        if (url == NULL) {
          ok = out_of_memory(ps);
          break;
        }
        memcpy(url, v.data, v.len);
        url[v.len] = '\0';
        url_len = v.len;
      } else {
        ok = skip_value(ps);
        if (!ok) break;
      }
      if (peek(ps) != ',') break;
      ps->p++;
    }
  }
  ok = ok && expect(ps, '}');
  if (ok && url == NULL)
    return members == 0 ||
           SYNTAX(open, "google.protobuf.Any without \"@type\".");
  const pbc_message_info *info = NULL;
  if (ok) {
    static const char kPrefix[] = "type.googleapis.com/";
    const char *slash = strrchr(url, '/');
    if (slash && (size_t)(slash + 1 - url) == sizeof kPrefix - 1 &&
        memcmp(url, kPrefix, sizeof kPrefix - 1) == 0)
      info = ps->find_message ? ps->find_message(ps->find_message_ctx, slash + 1)
                              : pbc_find_message(slash + 1);
    if (info == NULL || info->desc == NULL)
      ok = BAD_VALUE(url_at, "Unknown type in google.protobuf.Any: \"%s\".",
                     url);
  }
  if (!ok) {
    free(url);
    return false;
  }
  /* Read the members again, as the type's; the value's wire form goes
   * where the Any's fields will, then moves up past its type_url. */
  const pbc_message_desc *type = info->desc;
  size_t at = ps->wb.len;
  ps->p = open;
  ok = enter(ps);
  if (ok && pbc_json_wkt_of(type) != WKT_NONE) {
    ok = expect(ps, '{');
    bool value = false;
    while (ok && peek(ps) != '}') {
      jstr key;
      ok = read_string(ps, &key) && expect(ps, ':');
      if (!ok) break;
      if (key.len == 5 && memcmp(key.data, "@type", 5) == 0) {
        ok = skip_value(ps);
      } else if (key.len == 5 && memcmp(key.data, "value", 5) == 0 && !value) {
        value = true;
        ok = parse_message(ps, type);
      } else {
        ok = SYNTAX(key.at, "Unexpected member \"%.*s\" in a "
                            "google.protobuf.Any of %s.",
                    (int)key.len, key.data, type->strings);
      }
      if (ok && peek(ps) == ',') ps->p++;
      else break;
    }
    ok = ok && expect(ps, '}');
  } else if (ok) {
    ok = parse_object(ps, type, true);
  }
  if (ok) {
    ps->depth--;
    pbc_status s = pbc_wb_canonicalize(&ps->wb, type, at, ps->max_depth, false);
    if (s == PBC_ERR_MISSING_REQUIRED)
      ok = fail_at(ps, open, s, "%s in google.protobuf.Any is missing "
                                "required fields.",
                   type->strings);
    else if (s != PBC_OK)
      ok = fail_at(ps, open, s, "Cannot store %s in google.protobuf.Any: %s.",
                   type->strings, pbc_status_str(s));
  }
  ok = ok && wrote(ps, pbc_wb_any(&ps->wb, at, url, url_len));
  free(url);
  return ok;
}

/* A message's value (its object, or its well-known type's form), its
 * fields written into the open message. */
static bool parse_message(parser *ps, const pbc_message_desc *d) {
  switch (pbc_json_wkt_of(d)) {
  case WKT_ANY: return parse_any(ps);
  case WKT_TIMESTAMP: return parse_timestamp(ps);
  case WKT_DURATION: return parse_duration(ps);
  case WKT_FIELD_MASK: return parse_field_mask(ps);
  case WKT_STRUCT: return parse_struct(ps);
  case WKT_LIST_VALUE: return parse_list(ps);
  case WKT_VALUE: return parse_json_value(ps);
  case WKT_WRAPPER: {
    bool set;
    const char *at = ps->p;
    TRY(parse_field_value(ps, d, pbc_json_wrapped(d), &set, false));
    return set || SYNTAX(at, "null is not a value of %s.", d->strings);
  }
  case WKT_NONE: break;
  }
  return parse_object(ps, d, false);
}

/* A message's object: its members, each into the open message; the
 * "@type" of an Any's body (any_body) skipped. */
static bool parse_object(parser *ps, const pbc_message_desc *d,
                         bool any_body) {
  if (d->flags & PBC_MESSAGE_NO_NAMES)
    return fail_at(ps, ps->p, PBC_ERR_NO_NAMES,
                   "Message type \"%s\" was compiled without field names "
                   "(LITE_RUNTIME).",
                   d->strings);
  if (peek(ps) != '{')
    return SYNTAX(ps->p, "Expected an object for %s, found %s.", d->strings,
                  what(ps));
  ps->p++;
  size_t frame;
  TRY(wrote(ps, pbc_wb_frame_push(&ps->wb, d, &frame)));
  if (peek(ps) != '}') {
    uint32_t next = 0;
    for (;;) {
      TRY(parse_member(ps, d, frame, any_body, &next));
      if (peek(ps) != ',') break;
      ps->p++;
    }
  }
  pbc_wb_frame_pop(&ps->wb, d);
  return expect(ps, '}');
}

/* ---- Fields ---------------------------------------------------------------- */

/* A message value's record opened, one level deeper: a group's start tag,
 * else the tag and a length byte kept at *at (pbc_wb_open_len). */
static bool open_record(parser *ps, const pbc_field_desc *f, size_t *at) {
  bool group = f->type == PBC_TYPE_GROUP;
  *at = 0;
  TRY(enter(ps));
  return wrote(ps, pbc_wb_tag(&ps->wb, f->number,
                              group ? PBC_WIRE_START_GROUP : PBC_WIRE_LEN) &&
                       (group || pbc_wb_open_len(&ps->wb, at)));
}

/* And closed, one level up: the end tag, or the length. */
static bool close_record(parser *ps, const pbc_field_desc *f, size_t at) {
  ps->depth--;
  return f->type == PBC_TYPE_GROUP
             ? wrote(ps, pbc_wb_tag(&ps->wb, f->number, PBC_WIRE_END_GROUP))
             : closed(ps, at);
}

/* One value of f (a singular field's, or an element) as its record;
 * null and an ignored enum name write nothing and leave *set false. A
 * message the decoder keeps as raw bytes (`kept`: an extension's) is written
 * canonical, as libprotobuf writes the message it parses (members come in
 * any order); the decoder makes every other message canonical. */
static bool parse_field_value(parser *ps, const pbc_message_desc *d,
                              const pbc_field_desc *f, bool *set, bool kept) {
  if (!pbc_tbl_is_message(f)) return parse_scalar(ps, d, f, set);
  const pbc_message_desc *type = pbc_tbl_link_message(d, f);
  *set = true;
  if (at_null(ps) && pbc_json_wkt_of(type) != WKT_VALUE) {
    ps->p += 4;
    *set = false;
    return true;
  }
  size_t at;
  TRY(open_record(ps, f, &at));
  size_t fields = f->type == PBC_TYPE_GROUP ? ps->wb.len : at + 1;
  const char *open = ps->p;
  TRY(parse_message(ps, type));
  if (kept) {
    /* Required fields are the whole message's check's business. */
    pbc_status s = pbc_wb_canonicalize(&ps->wb, type, fields, ps->max_depth, true);
    if (s != PBC_OK)
      return fail_at(ps, open, s, "Cannot write the value of type %s: %s.",
                     type->strings, pbc_status_str(s));
  }
  return close_record(ps, f, at);
}

/* Whether null is one of f's values (google.protobuf.Value's null, or
 * NullValue's) rather than "not set". */
static bool null_is_value(const pbc_message_desc *d, const pbc_field_desc *f) {
  if (f->type == PBC_TYPE_ENUM) return pbc_json_is_null_value(pbc_field_enum(d, f));
  return pbc_tbl_is_message(f) &&
         pbc_json_wkt_of(pbc_tbl_link_message(d, f)) == WKT_VALUE;
}

/* An array's member: null (no elements), else its '['. -1 an error, 0
 * nothing to read (null, []), 1 elements follow. */
static int array_start(parser *ps, const pbc_message_desc *d,
                       const pbc_field_desc *f) {
  if (at_null(ps)) {
    ps->p += 4;
    return 0;
  }
  if (peek(ps) != '[')
    return SYNTAX(ps->p, "Expected an array for repeated field \"%s\", "
                         "found %s.",
                  pbc_field_json_name(d, f), what(ps)),
           -1;
  ps->p++;
  return at_close(ps, ']') ? 0 : 1;
}

/* A null element: an error but where null is one of the values. */
static bool null_element(parser *ps, const pbc_message_desc *d,
                         const pbc_field_desc *f) {
  return null_is_value(d, f) ||
         SYNTAX(ps->p, "null element in repeated field \"%s\".",
                pbc_field_json_name(d, f));
}

/* Whether f's elements go into one packed run: numbers and bools. Not
 * enums: a closed enum's unknown numbers go to the unknown fields, where
 * libprotobuf keeps each as its own record. */
static bool packs(const pbc_field_desc *f) {
  return f->type != PBC_TYPE_STRING && f->type != PBC_TYPE_BYTES &&
         f->type != PBC_TYPE_ENUM && !pbc_tbl_is_message(f);
}

/* The elements of a number or bool array after its '[' (one at least), as
 * one packed record: the decoder takes a packed run for any such field,
 * and the tags of one record per element cost both sides more than the
 * numbers. */
static bool parse_packed(parser *ps, const pbc_message_desc *d,
                         const pbc_field_desc *f) {
  size_t at = 0;
  TRY(wrote(ps, pbc_wb_tag(&ps->wb, f->number, PBC_WIRE_LEN) &&
                    pbc_wb_open_len(&ps->wb, &at)));
  for (;;) {
    uint64_t bits = 0; /* (set unless the read fails) */
    if (at_null(ps)) TRY(null_element(ps, d, f));
    TRY(read_number_bits(ps, d, f, (pbc_field_type)f->type, &bits));
    TRY(wrote(ps, pbc_wb_scalar_value(&ps->wb, f, bits)));
    if (peek(ps) != ',') break;
    ps->p++;
  }
  return closed(ps, at) && expect(ps, ']');
}

/* A repeated field's array: its elements' records (null only where it is a
 * value). */
static bool parse_repeated(parser *ps, const pbc_message_desc *d,
                           const pbc_field_desc *f, bool kept) {
  int start = array_start(ps, d, f);
  if (start <= 0) return start == 0;
  if (packs(f) && !kept) return parse_packed(ps, d, f);
  for (;;) {
    bool set;
    if (at_null(ps)) TRY(null_element(ps, d, f));
    TRY(parse_field_value(ps, d, f, &set, kept));
    if (peek(ps) != ',') break;
    ps->p++;
  }
  return expect(ps, ']');
}

/* A map key's text as the key field's record. */
static bool put_map_key(parser *ps, const pbc_field_desc *kf, const jstr *key) {
  if (kf->type == PBC_TYPE_STRING) return put_string(ps, kf, key, false);
  uint64_t bits;
  if (kf->type == PBC_TYPE_BOOL) {
    if (key->len == 4 && memcmp(key->data, "true", 4) == 0) bits = 1;
    else if (key->len == 5 && memcmp(key->data, "false", 5) == 0) bits = 0;
    else
      return BAD_VALUE(key->at, "Map key \"%.*s\" is not a bool.",
                       (int)key->len, key->data);
    return wrote(ps, pbc_wb_scalar(&ps->wb, kf, bits));
  }
  jnum n;
  if (!scan_decimal(key->data, key->len, &n) || !digits_u64(&n, &bits))
    return BAD_VALUE(key->at, "Map key \"%.*s\" is not an integer.",
                     (int)key->len, key->data);
  bool is64 = kf->type == PBC_TYPE_INT64 || kf->type == PBC_TYPE_SINT64 ||
              kf->type == PBC_TYPE_SFIXED64 || kf->type == PBC_TYPE_UINT64 ||
              kf->type == PBC_TYPE_FIXED64;
  bool is_signed = kf->type != PBC_TYPE_UINT32 &&
                   kf->type != PBC_TYPE_FIXED32 &&
                   kf->type != PBC_TYPE_UINT64 && kf->type != PBC_TYPE_FIXED64;
  uint64_t max = is64 ? (is_signed ? INT64_MAX : UINT64_MAX)
                      : (is_signed ? INT32_MAX : UINT32_MAX);
  if ((n.negative && !is_signed) || bits > max + n.negative)
    return BAD_VALUE(key->at, "Map key \"%.*s\" is out of range.",
                     (int)key->len, key->data);
  return wrote(ps, pbc_wb_scalar(&ps->wb, kf, n.negative ? 0 - bits : bits));
}

/* A map's object: an entry record per member (key 1, value 2); a key
 * given twice is an error, as in libprotobuf. */
static bool parse_map(parser *ps, const pbc_message_desc *d,
                      const pbc_field_desc *f) {
  const pbc_message_desc *entry = pbc_tbl_link_message(d, f);
  const pbc_field_desc *kf = pbc_field_by_number(entry, 1);
  const pbc_field_desc *vf = pbc_field_by_number(entry, 2);
  if (peek(ps) != '{')
    return SYNTAX(ps->p, "Expected an object for map field \"%s\", found %s.",
                  pbc_field_json_name(d, f), what(ps));
  ps->p++;
  if (at_close(ps, '}')) return true;
  key_set keys = {0};
  bool ok = true;
  for (;;) {
    jstr key;
    size_t start = ps->wb.len, at = 0;
    ok = read_string(ps, &key) &&
         wrote(ps, pbc_wb_tag(&ps->wb, f->number, PBC_WIRE_LEN) &&
                       pbc_wb_open_len(&ps->wb, &at)) &&
         put_map_key(ps, kf, &key) && expect(ps, ':');
    if (!ok) break;
    size_t key_len = ps->wb.len - (at + 1);
    const char *value_at = ps->p;
    bool set;
    if (at_null(ps) && !null_is_value(entry, vf)) {
      ok = SYNTAX(value_at, "null value in map field \"%s\".",
                  pbc_field_json_name(d, f));
      break;
    }
    ok = parse_field_value(ps, entry, vf, &set, false);
    if (!ok) break;
    if (!set) {
      ps->wb.len = start; /* an ignored enum name: no entry */
    } else {
      size_t content = ps->wb.len - (at + 1);
      ok = closed(ps, at);
      if (!ok) break;
      bool oom;
      if (!key_add(ps, &keys, at + pbc_varint_size(content), key_len, &oom)) {
        ok = oom ? out_of_memory(ps)
                 : BAD_VALUE(key.at, "Map field \"%s\" has this key twice.",
                             pbc_field_json_name(d, f));
        break;
      }
    }
    if (peek(ps) != ',') break;
    ps->p++;
  }
  free(keys.slots);
  return ok && expect(ps, '}');
}

/* "[pkg.ext]": an extension of d the program links (or the options list),
 * its values as the records the decoder keeps in the unknown fields. */
static bool parse_extension(parser *ps, const pbc_message_desc *d,
                            size_t frame, const jstr *key) {
  const pbc_extension_info *e = pbc_rt_find_extension_named(
      d, &ps->extensions, key->data + 1, key->len - 2);
  if (e == NULL) {
    if (ps->ignore_unknown) return expect(ps, ':') && skip_value(ps);
    return SYNTAX(key->at, "Extension \"%.*s\" is not defined or is not an "
                           "extension of \"%s\".",
                  (int)(key->len - 2), key->data + 1, d->strings);
  }
  if (pbc_wb_ext_has(&ps->wb, frame, e->number))
    return SYNTAX(key->at, "Extension \"%s\" given twice.", e->full_name);
  TRY(wrote(ps, pbc_wb_ext_set(&ps->wb, frame, e->number)));
  TRY(expect(ps, ':'));
  pbc_wb_extension x;
  pbc_wb_extension_init(&x, e);
  if (at_null(ps)) {
    ps->p += 4;
    return true;
  }
  bool mset = (e->flags & PBC_EXTENSION_MESSAGE_SET) != 0, set;
  if (mset)
    TRY(wrote(ps, pbc_wb_tag(&ps->wb, PBC_MSET_ITEM, PBC_WIRE_START_GROUP) &&
                      pbc_wb_tag(&ps->wb, PBC_MSET_TYPE_ID, PBC_WIRE_VARINT) &&
                      pbc_wb_varint(&ps->wb, e->number)));
  TRY(x.field.kind == PBC_FIELD_REPEATED
          ? parse_repeated(ps, &x.one, &x.field, true)
          : parse_field_value(ps, &x.one, &x.field, &set, true));
  return !mset ||
         wrote(ps, pbc_wb_tag(&ps->wb, PBC_MSET_ITEM, PBC_WIRE_END_GROUP));
}

/* The NUL-terminated name is the key's len bytes (which may hold a NUL). */
static bool name_is(const char *name, const jstr *key) {
  for (size_t i = 0; i < key->len; i++)
    if (name[i] != key->data[i] || name[i] == '\0') return false;
  return name[key->len] == '\0';
}

/* The field a member's name names: its json_name, else its declared name.
 * Members usually come in the order of the fields (libprotobuf and pbc
 * print them by number, which is the descriptions' order), so the fields
 * after the last one found are tried first: a message's members then cost
 * one pass over its fields in all. *next follows the fields. */
static const pbc_field_desc *find_member(const pbc_message_desc *d,
                                         const jstr *key, uint32_t *next) {
  const pbc_field_desc *f = NULL;
  for (uint32_t i = *next; i < d->field_count && f == NULL; i++) {
    const pbc_field_names *n = &d->field_names[i];
    if (name_is(d->strings + n->json_name, key) ||
        (n->name != n->json_name && name_is(d->strings + n->name, key)))
      f = &d->fields[i];
  }
  if (f == NULL) f = pbc_field_by_name(d, key->data, key->len, true);
  if (f == NULL) f = pbc_field_by_name(d, key->data, key->len, false);
  if (f != NULL) *next = (uint32_t)(f - d->fields) + 1;
  return f;
}

/* A member of a oneof may be given when no other member of it was. */
static bool oneof_free(parser *ps, const pbc_message_desc *d, size_t frame,
                       const pbc_field_desc *f) {
  if (f->kind != PBC_FIELD_ONEOF || at_null(ps)) return true;
  uint32_t other = *pbc_wb_frame_oneof(&ps->wb, d, frame, f->presence);
  if (other == 0) return true;
  return SYNTAX(ps->key_at, "Field \"%s\" and field \"%s\" are members of "
                            "oneof \"%s\": only one may be given.",
                pbc_field_name(d, f), pbc_field_name(d, &d->fields[other - 1]),
                d->strings + d->oneofs[f->presence].name);
}

/* The member of field `index` given: a second time is an error. Then its
 * ':' when `colon` (a compiled parser's key includes it). */
static bool member_given(parser *ps, const pbc_message_desc *d, size_t frame,
                         uint32_t index, bool colon) {
  if (pbc_wb_frame_has(&ps->wb, frame, index))
    return SYNTAX(ps->key_at, "Field \"%s\" given twice.",
                  pbc_field_name(d, &d->fields[index]));
  pbc_wb_frame_set(&ps->wb, frame, index);
  return !colon || expect(ps, ':');
}

/* The value of the member of field `index`, its name read (ps->key_at). */
static bool member_value(parser *ps, const pbc_message_desc *d, size_t frame,
                         uint32_t index, bool colon) {
  const pbc_field_desc *f = &d->fields[index];
  TRY(member_given(ps, d, frame, index, colon));
  if (f->kind == PBC_FIELD_REPEATED) {
    if (at_null(ps)) {
      ps->p += 4;
      return true;
    }
    return (f->flags & PBC_FIELD_MAP) ? parse_map(ps, d, f)
                                  : parse_repeated(ps, d, f, false);
  }
  TRY(oneof_free(ps, d, frame, f));
  bool set;
  TRY(parse_field_value(ps, d, f, &set, false));
  /* (After the value: a sub-message's frame may have moved the stack.) */
  if (f->kind == PBC_FIELD_ONEOF && set)
    *pbc_wb_frame_oneof(&ps->wb, d, frame, f->presence) = index + 1;
  return true;
}

/* One "name": value member of d's object. */
static bool parse_member(parser *ps, const pbc_message_desc *d, size_t frame,
                         bool any_body, uint32_t *next) {
  jstr key;
  TRY(read_string(ps, &key));
  ps->key_at = key.at;
  if (any_body && key.len == 5 && memcmp(key.data, "@type", 5) == 0)
    return expect(ps, ':') && skip_value(ps);
  if (key.len > 2 && key.data[0] == '[' && key.data[key.len - 1] == ']')
    return parse_extension(ps, d, frame, &key);
  const pbc_field_desc *f = find_member(d, &key, next);
  if (f == NULL) {
    if (ps->ignore_unknown) return expect(ps, ':') && skip_value(ps);
    return SYNTAX(key.at, "Message type \"%s\" has no field named \"%.*s\".",
                  d->strings, (int)key.len, key.data);
  }
  return member_value(ps, d, frame, (uint32_t)(f - d->fields), true);
}

/* ---- What compiled parsers call (abi.def's rows) ---------------------------
 * pbc__T_from_json(m, ps) parses T's object into m with the members
 * unrolled in number order: each expected `"name":` compared whole
 * (pbc_json_key, inlined), a match parsed by its field's value function,
 * anything else found by name here (pbc_json_find_member) and dispatched
 * back by index.
 *
 * A singular scalar, string, bytes or enum member is stored into m as
 * T_decode stores it (its presence bit set by the compiled code, a oneof's
 * case here), strings copied into the arena; a singular message member is
 * a struct from the arena that the sub-message's own parser fills; a
 * repeated field's elements go into its array the same ways (see "Arrays
 * into the struct"). The rest (maps, a closed enum's undeclared number,
 * which belongs in the unknown fields) the description's parser writes to
 * the wire form, and when the object ends the table decoder merges those
 * records into m (flush): they are fields m does not hold yet, so merging
 * is setting. All but pbc_json_key stay calls (PBC_NOINLINE): inlined,
 * they would copy the whole parser, their static callees, into every
 * object that holds a compiled parser. */

static bool out_of_arena(parser *ps, size_t size) {
  if (pbc_arena_over_cap(ps->arena, size))
    return fail_at(ps, ps->p, PBC_ERR_ARENA_LIMIT, "The arena's limit is reached.");
  return out_of_memory(ps);
}

/* The records written since `start` merged into m, and gone. */
static bool flush(parser *ps, const pbc_message_desc *d, void *m,
                  size_t start) {
  size_t len = ps->wb.len - start;
  if (len == 0) return true;
  pbc_status s = pbc_rt_decode_more(d, m, ps->wb.out + start, len, ps->arena,
                                    ps->max_depth);
  ps->wb.len = start;
  return s == PBC_OK ||
         fail_at(ps, ps->p, s, "Cannot store a value of %s: %s.", d->strings,
                 pbc_status_str(s));
}

/* [0, w) and [n - w, n) of src to dst, which do not overlap: w a
 * constant, each end one load and one store (the ends overlap when
 * n < 2w). */
static PBC_ALWAYS_INLINE void copy_ends(uint8_t *dst, const uint8_t *src,
                                        size_t n, size_t w) {
  memcpy(dst, src, w);
  memcpy(dst + n - w, src + n - w, w);
}

/* Copies n <= 64 bytes without a call, where memcpy's call costs more
 * than the bytes. (The printer's runs are better off with memcpy:
 * string_heavy 7,050 -> 7,176 instructions that way.) */
static PBC_ALWAYS_INLINE void copy_short(uint8_t *dst, const uint8_t *src,
                                          size_t n) {
  assert(n <= 64);
  if (n > 32) {
    copy_ends(dst, src, 32, 16);
    copy_ends(dst + n - 32, src + n - 32, 32, 16);
  } else if (n >= 16) {
    copy_ends(dst, src, n, 16);
  } else if (n >= 8) {
    copy_ends(dst, src, n, 8);
  } else if (n >= 4) {
    copy_ends(dst, src, n, 4);
  } else if (n > 0) {
    dst[0] = src[0];
    dst[n / 2] = src[n / 2];
    dst[n - 1] = src[n - 1];
  }
}

/* A copy of [data, data + n) in the arena. */
static PBC_NOINLINE const uint8_t *arena_copy_slow(parser *ps,
                                                   const uint8_t *data,
                                                   size_t n) {
  static const uint8_t empty[1];
  if (n == 0) return empty;
  uint8_t *copy = pbc_arena_alloc(ps->arena, n);
  if (copy == NULL) return out_of_arena(ps, n), NULL;
  memcpy(copy, data, n);
  return copy;
}

/* A string's bytes copied into the arena. The common short one (a key, a
 * name, a value of a few words: 1 to 64 bytes) inline, by the block's bump
 * and copy_short, where a call each cost more than the bytes. */
static PBC_ALWAYS_INLINE const uint8_t *arena_copy(parser *ps,
                                                  const uint8_t *data,
                                                  size_t n) {
  uint8_t *copy;
  if (n - 1 >= 64 || (copy = pbc_rt_arena_bump(ps->arena, n)) == NULL)
    return arena_copy_slow(ps, data, n);
  copy_short(copy, data, n);
  return copy;
}

/* What read_value found. */
typedef enum {
  VALUE_ERROR = -1,
  VALUE_NONE = 0, /* null (but NullValue's), an enum name ignored */
  VALUE_STORED = 1,
  VALUE_KEPT = 2, /* a closed enum's undeclared number, in the wire form */
} value_read;

/* A scalar, string, bytes or enum value of f (of type `type` and
 * `element`: see read_scalar) stored at `slot`, its member, as T_decode stores it
 * (strings copied into the arena); its presence is the caller's. A closed
 * enum's number it does not declare goes to the wire form instead, which
 * flush puts into the unknown fields: given, for the oneof rule, as on the
 * description's path. */
static PBC_ALWAYS_INLINE value_read read_value(parser *ps,
                                               const pbc_message_desc *d,
                                               const pbc_field_desc *f,
                                               pbc_field_type type,
                                               bool element, uint8_t *slot) {
  uint64_t bits;
  jstr s;
  switch (read_scalar(ps, d, f, type, element, &bits, &s)) {
  case SCALAR_ERROR: return VALUE_ERROR;
  case SCALAR_NONE: return VALUE_NONE;
  case SCALAR_BITS: break;
  case SCALAR_TEXT: {
    if (type == PBC_TYPE_STRING) {
      const uint8_t *copy = arena_copy(ps, (const uint8_t *)s.data, s.len);
      if (copy == NULL) return VALUE_ERROR;
      pbc_tbl_store_view(slot, copy, s.len);
      return VALUE_STORED;
    }
    uint8_t *out = pbc_arena_alloc(ps->arena, base64_bytes(&s));
    if (out == NULL) return out_of_arena(ps, base64_bytes(&s)), VALUE_ERROR;
    size_t n;
    if (!read_base64(ps, &s, out, &n)) return VALUE_ERROR;
    pbc_tbl_store_view(slot, out, n);
    return VALUE_STORED;
  }
  }
  if (type == PBC_TYPE_ENUM && (f->flags & PBC_FIELD_CLOSED_ENUM) &&
      !pbc_tbl_enum_declares(pbc_field_enum(d, f), (int32_t)bits))
    return wrote(ps, pbc_wb_scalar(&ps->wb, f, bits)) ? VALUE_KEPT
                                                       : VALUE_ERROR;
  /* (A constant type folds the table's load.) */
  pbc_tbl_store_value(slot, pbc_tbl_types[type].bytes, bits);
  return VALUE_STORED;
}

/* read_value where the type is not a constant (a member read by
 * pbc_json_member, a number array's element that is not in the compact
 * form): one copy of it, not one in each caller. */
static PBC_NOINLINE value_read read_value_of(parser *ps,
                                             const pbc_message_desc *d,
                                             const pbc_field_desc *f,
                                             pbc_field_type type, bool element,
                                             uint8_t *slot) {
  return read_value(ps, d, f, type, element, slot);
}

/* ---- Arrays into the struct -------------------------------------------------
 * A compiled parser's repeated field (not a map) is read straight into its
 * member's array, grown in the arena as the table decoder grows one
 * (pbc_rt_grow: in place while the array is the arena's newest block),
 * each element stored as read_value stores a singular value: no wire form,
 * no second pass. The field is empty before: given twice is an error. */

/* Room for one more element after the n at *data, which fill its room
 * (*room: pbc_rt_capacity_for(n), the capacity pbc_rt_grow gives an array
 * of n), or false with the arena's failure (pbc_rt_grow's decoder carries
 * only the arena). */
static PBC_NOINLINE bool grow_one(parser *ps, uint8_t **data, size_t n,
                                  size_t *room, size_t esize) {
  pbc_decoder grow = {.arena = ps->arena};
  uint8_t *grown = pbc_rt_grow(&grow, *data, n, 1, esize);
  if (grown != NULL) {
    *data = grown;
    *room = pbc_rt_capacity_for(n + 1);
    return true;
  }
  if (grow.status == PBC_ERR_ARENA_LIMIT)
    return fail_at(ps, ps->p, grow.status, "The arena's limit is reached.");
  return out_of_memory(ps);
}

/* A bare double (float when is_float) at p, before end, as real_one_pass
 * reads it, finite (and within float's range), its bits in *bits: where
 * the ',' or ']' after it stands, or NULL. */
static PBC_ALWAYS_INLINE const char *compact_real(const char *p,
                                                  const char *end,
                                                  bool is_float,
                                                  uint64_t *bits) {
  double v;
  uint64_t m;
  int exp;
  bool negative;
  /* The printers' form, else (an exponent) the one-pass reader's, whose
   * digits would be the same where the printers' form was read. */
  const char *stop = compact_decimal(p, &m, &exp, &negative);
  if (stop == NULL) stop = one_pass_decimal(p, end, &v);
  else if (!pbc_lex_decimal(m, exp, negative, &v)) return NULL;
  if (stop == NULL || stop == end || (*stop != ',' && *stop != ']') ||
      !__builtin_isfinite(v))
    return NULL;
  if (!is_float) {
    memcpy(bits, &v, 8);
    return stop;
  }
  if (__builtin_fabs(v) > FLT_MAX) return NULL; /* read_real rounds these */
  float f = (float)v;
  uint32_t b;
  memcpy(&b, &f, 4);
  *bits = b;
  return stop;
}

/* A bool at p (6 bytes readable): where the ',' or ']' after it stands,
 * or NULL. */
static PBC_ALWAYS_INLINE const char *compact_bool(const char *p,
                                                  uint64_t *bits) {
  if (memcmp(p, "true", 4) == 0) {
    *bits = 1;
    p += 4;
  } else if (memcmp(p, "false", 5) == 0) {
    *bits = 0;
    p += 5;
  } else {
    return NULL;
  }
  return *p == ',' || *p == ']' ? p : NULL;
}

/* The readers of the compact form, by the number type's group. */
typedef enum { COMPACT_INTEGER, COMPACT_REAL, COMPACT_BOOL } compact_kind;

/* An array's elements from ps->p on while they are in the compact form,
 * of `kind` (a constant; integers within [min, max], reals floats when
 * is_float), appended at *data (*n of them, room for *room), each of
 * `bytes`: 1 when that read the array's ']', 0 at an element read_value
 * must read (ps->p at it), -1 for an error. */
static PBC_ALWAYS_INLINE int compact_elements(parser *ps, compact_kind kind,
                                              int64_t min, uint64_t max,
                                              bool is_float, size_t bytes,
                                              uint8_t **data, size_t *n,
                                              size_t *room) {
  /* In locals: the stores into the array are bytes, which the compiler
   * must assume alias the parser's and the caller's words. */
  const char *p = ps->p, *end = ps->end;
  uint8_t *at = *data;
  size_t count = *n, capacity = *room;
  /* What each reader may read: an integer's words; "false" and its ','
   * or ']'; a real's words (the one-pass reader, its fallback, reads
   * within end). */
  ptrdiff_t span = kind == COMPACT_INTEGER ? COMPACT_INTEGER_SPAN
                   : kind == COMPACT_BOOL  ? 6
                                           : COMPACT_REAL_SPAN;
  int read = 0;
  while (end - p >= span) {
    uint64_t bits;
    const char *q = kind == COMPACT_INTEGER ? compact_integer(p, min, max, &bits)
                    : kind == COMPACT_BOOL  ? compact_bool(p, &bits)
                                            : compact_real(p, end, is_float, &bits);
    if (q == NULL) break;
    if (count == capacity) {
      ps->p = p;
      if (!grow_one(ps, &at, count, &capacity, bytes)) {
        read = -1;
        break;
      }
    }
    pbc_tbl_store_value(at + count * bytes, bytes, bits);
    count++;
    p = q + 1;
    if (*q == ']') {
      read = 1;
      break;
    }
  }
  ps->p = p;
  *data = at;
  *n = count;
  *room = capacity;
  return read;
}

/* compact_elements by kind: out of line, a call an array, so that each
 * loop has the registers to itself (inlined into the member reader, the
 * integers' spilled a third of their values). */
static PBC_NOINLINE int compact_integers(parser *ps, int64_t min,
                                         uint64_t max, size_t bytes,
                                         uint8_t **data, size_t *n,
                                         size_t *room) {
  return compact_elements(ps, COMPACT_INTEGER, min, max, false, bytes, data,
                          n, room);
}
static PBC_NOINLINE int compact_reals(parser *ps, bool is_float,
                                      uint8_t **data, size_t *n,
                                      size_t *room) {
  return compact_elements(ps, COMPACT_REAL, 0, 0, is_float, is_float ? 4 : 8,
                          data, n, room);
}
static PBC_NOINLINE int compact_bools(parser *ps, uint8_t **data, size_t *n,
                                      size_t *room) {
  return compact_elements(ps, COMPACT_BOOL, 0, 0, false, 1, data, n, room);
}

/* The compact form's reader of a number type (one of read_number_bits'
 * groups, as read_array gives them). */
static int compact_numbers(parser *ps, pbc_field_type type, uint8_t **data,
                           size_t *n, size_t *room) {
  switch (type) {
  case PBC_TYPE_INT32:
    return compact_integers(ps, INT32_MIN, INT32_MAX, 4, data, n, room);
  case PBC_TYPE_UINT32:
    return compact_integers(ps, 0, UINT32_MAX, 4, data, n, room);
  case PBC_TYPE_INT64:
    return compact_integers(ps, INT64_MIN, INT64_MAX, 8, data, n, room);
  case PBC_TYPE_UINT64:
    return compact_integers(ps, 0, UINT64_MAX, 8, data, n, room);
  case PBC_TYPE_FLOAT:
  case PBC_TYPE_DOUBLE:
    return compact_reals(ps, type == PBC_TYPE_FLOAT, data, n, room);
  default:
    assert(type == PBC_TYPE_BOOL);
    return compact_bools(ps, data, n, room);
  }
}

/* The elements of a scalar, string, bytes or enum field of type `type`
 * after its '['. A string, bytes or enum field's type is a constant, and
 * read_value's switches fold; a number field's (`number`, a constant) is
 * one of number_group's, its compact form read by compact_numbers and the
 * rest by read_value_of. An enum name ignored adds nothing; a closed enum's
 * undeclared number goes to the unknown fields (read_value), not the
 * array. */
static PBC_ALWAYS_INLINE bool read_elements(parser *ps,
                                            const pbc_message_desc *d,
                                            const pbc_field_desc *f,
                                            pbc_field_type type, bool number,
                                            uint8_t *member) {
  size_t esize = pbc_tbl_value_bytes(d, f);
  uint8_t *data = NULL;
  size_t n = 0, room = 0;
  for (;;) {
    if (number) {
      int read = compact_numbers(ps, type, &data, &n, &room);
      if (read < 0) return false;
      if (read > 0) {
        pbc_tbl_store_view(member, data, n);
        return true;
      }
    }
    if (at_null(ps)) TRY(null_element(ps, d, f));
    if (n == room) TRY(grow_one(ps, &data, n, &room, esize));
    uint8_t *slot = data + n * esize;
    value_read r = number ? read_value_of(ps, d, f, type, true, slot)
                          : read_value(ps, d, f, type, true, slot);
    if (r == VALUE_ERROR) return false;
    n += r == VALUE_STORED;
    if (peek(ps) != ',') break;
    ps->p++;
  }
  pbc_tbl_store_view(member, n ? data : NULL, n);
  return expect(ps, ']');
}

/* The group of number types read_value tells apart that `type` is in
 * (as the value readers below). */
static pbc_field_type number_group(pbc_field_type type) {
  switch (type) {
  case PBC_TYPE_INT32: case PBC_TYPE_SINT32: case PBC_TYPE_SFIXED32:
    return PBC_TYPE_INT32;
  case PBC_TYPE_INT64: case PBC_TYPE_SINT64: case PBC_TYPE_SFIXED64:
    return PBC_TYPE_INT64;
  case PBC_TYPE_UINT32: case PBC_TYPE_FIXED32: return PBC_TYPE_UINT32;
  case PBC_TYPE_UINT64: case PBC_TYPE_FIXED64: return PBC_TYPE_UINT64;
  default:
    assert(type == PBC_TYPE_FLOAT || type == PBC_TYPE_DOUBLE ||
           type == PBC_TYPE_BOOL);
    return type;
  }
}

/* A number array's elements: its compact form by compact_numbers' loops,
 * the rest (white space, null, what they leave to judge) here, one copy
 * for every number type (`type`, one of number_group's, is not a
 * constant here): a switch an element, where a copy per type cost 5 KB
 * of code in every program that parses JSON. */
static PBC_NOINLINE bool read_numbers(parser *ps, const pbc_message_desc *d,
                                      const pbc_field_desc *f,
                                      pbc_field_type type, uint8_t *member) {
  return read_elements(ps, d, f, type, true, member);
}

/* A repeated scalar, string, bytes or enum member's array into m. */
static bool read_array(parser *ps, const pbc_message_desc *d,
                       const pbc_field_desc *f, uint8_t *m) {
  int start = array_start(ps, d, f);
  if (start <= 0) return start == 0;
  uint8_t *member = m + f->offset;
  switch ((pbc_field_type)f->type) {
  case PBC_TYPE_STRING:
    return read_elements(ps, d, f, PBC_TYPE_STRING, false, member);
  case PBC_TYPE_BYTES:
    return read_elements(ps, d, f, PBC_TYPE_BYTES, false, member);
  case PBC_TYPE_ENUM:
    return read_elements(ps, d, f, PBC_TYPE_ENUM, false, member);
  default:
    assert(!pbc_tbl_is_message(f) && "message arrays are read_message_array's");
    return read_numbers(ps, d, f, number_group((pbc_field_type)f->type),
                        member);
  }
}

/* A repeated message or group member's array into m: each element a
 * struct of the array, initialized and filled by the element type's
 * compiled parser (`parse`), so the chain goes on inside it. */
static bool read_message_array(parser *ps, const pbc_message_desc *d,
                               const pbc_field_desc *f, uint8_t *m,
                               bool (*parse)(void *, parser *)) {
  int start = array_start(ps, d, f);
  if (start <= 0) return start == 0;
  const pbc_message_desc *type = pbc_tbl_link_message(d, f);
  uint8_t *data = NULL;
  size_t n = 0, room = 0;
  for (;;) {
    if (at_null(ps)) TRY(null_element(ps, d, f));
    if (n == room) TRY(grow_one(ps, &data, n, &room, type->size));
    TRY(enter(ps));
    uint8_t *e = data + n * type->size;
    pbc_table_init(type, e);
    /* (Stored before the element's parse, which may fail: the message
     * is reset then, and holds nothing half-made.) */
    pbc_tbl_store_view(m + f->offset, data, ++n);
    TRY(parse(e, ps));
    ps->depth--;
    if (peek(ps) != ',') break;
    ps->p++;
  }
  return expect(ps, ']');
}

bool pbc_json_key(pbc_json_parser *ps, const void *key, size_t n) {
  if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, key, n) != 0)
    return false;
  ps->key_at = ps->p;
  ps->p += n;
  return true;
}

PBC_NOINLINE int64_t pbc_json_open_object(pbc_json_parser *ps,
                                          const pbc_message_desc *d) {
  if (peek(ps) != '{') {
    SYNTAX(ps->p, "Expected an object for %s, found %s.", d->strings, what(ps));
    return -1;
  }
  ps->p++;
  if (peek(ps) == '}') {
    ps->p++;
    return -2;
  }
  size_t frame;
  if (!wrote(ps, pbc_wb_frame_push(&ps->wb, d, &frame))) return -1;
  return (int64_t)frame;
}

static PBC_NOINLINE int32_t more(parser *ps) {
  if (peek(ps) == ',') {
    ps->p++;
    peek(ps);
    return 1;
  }
  return expect(ps, '}') ? 0 : -1;
}

/* What follows a member: ',' (1) or the object's '}' (0), -1 an error.
 * Compact JSON's `,"` and `}` in a few instructions; white space and
 * errors are more's. */
static PBC_ALWAYS_INLINE int32_t member_end(parser *ps) {
  const char *p = ps->p;
  if (PBC_LIKELY(ps->end - p >= 2)) {
    if (p[0] == ',' && p[1] == '"') {
      ps->p = p + 1;
      return 1;
    }
    if (p[0] == '}') {
      ps->p = p + 1;
      return 0;
    }
  }
  return more(ps);
}

PBC_NOINLINE int32_t pbc_json_more(pbc_json_parser *ps,
                                   const pbc_message_desc *d) {
  (void)d;
  return member_end(ps);
}

PBC_NOINLINE bool pbc_json_close_object(pbc_json_parser *ps,
                                        const pbc_message_desc *d,
                                        int64_t frame, void *m) {
  size_t start = pbc_wb_frame_start(&ps->wb, d, (size_t)frame);
  pbc_wb_frame_pop(&ps->wb, d);
  return flush(ps, d, m, start);
}

PBC_NOINLINE int32_t pbc_json_find_member(pbc_json_parser *ps,
                                          const pbc_message_desc *d,
                                          int64_t frame) {
  for (;;) {
    uint32_t next = d->field_count; /* the chain tried the fields in order */
    jstr key;
    if (!read_string(ps, &key)) return -1;
    ps->key_at = key.at;
    if (key.len > 2 && key.data[0] == '[' && key.data[key.len - 1] == ']') {
      if (!parse_extension(ps, d, (size_t)frame, &key)) return -1;
    } else {
      const pbc_field_desc *f = find_member(d, &key, &next);
      if (f != NULL) return (int32_t)(f - d->fields);
      if (!ps->ignore_unknown) {
        SYNTAX(key.at, "Message type \"%s\" has no field named \"%.*s\".",
               d->strings, (int)key.len, key.data);
        return -1;
      }
      if (!expect(ps, ':') || !skip_value(ps)) return -1;
    }
    int32_t after = more(ps);
    if (after != 1) return after == 0 ? -2 : -1;
  }
}

PBC_NOINLINE bool pbc_json_member(pbc_json_parser *ps,
                                  const pbc_message_desc *d, int64_t frame,
                                  uint32_t index, bool colon, void *m) {
  const pbc_field_desc *f = &d->fields[index];
  /* A map's entries are written as records, which flush merges. */
  if (f->flags & PBC_FIELD_MAP)
    return member_value(ps, d, (size_t)frame, index, colon);
  assert(!pbc_tbl_is_message(f) && "pbc_json_message_member's");
  if (f->kind == PBC_FIELD_REPEATED)
    return member_given(ps, d, (size_t)frame, index, colon) &&
           read_array(ps, d, f, m);
  TRY(member_given(ps, d, (size_t)frame, index, colon) &&
      oneof_free(ps, d, (size_t)frame, f));
  value_read r =
      read_value_of(ps, d, f, (pbc_field_type)f->type, false,
                    (uint8_t *)m + f->offset);
  if (r == VALUE_STORED) pbc_tbl_mark_present(d, f, m);
  if (f->kind == PBC_FIELD_ONEOF && r > VALUE_NONE)
    *pbc_wb_frame_oneof(&ps->wb, d, (size_t)frame, f->presence) = index + 1;
  return r != VALUE_ERROR;
}

/* The readers of a singular value by its type: the compiled code calls
 * the one of its field's type, where one reader of all would switch on the
 * type per value (a tenth of google_message1's instructions). Each reads
 * the ',' or '}' after the value too (pbc_json_more's work, without its
 * call: most members are such values), and returns -1 for an error, else
 * bit 0 set when it stored a value, bit 1 when the '}' ended the object. */
static PBC_ALWAYS_INLINE int32_t read_member(parser *ps,
                                             const pbc_message_desc *d,
                                             uint32_t index, bool colon,
                                             pbc_field_type type, void *slot) {
  if (colon && !expect(ps, ':')) return -1;
  value_read r = read_value(ps, d, &d->fields[index], type, false, slot);
  if (r == VALUE_ERROR) return -1;
  int32_t after = member_end(ps);
  if (after < 0) return -1;
  return (int32_t)(r == VALUE_STORED) | (int32_t)(after == 0) << 1;
}

#define JSON_VALUE_READER(name, type)                                          \
  PBC_NOINLINE int32_t name(pbc_json_parser *ps, const pbc_message_desc *d,   \
                            uint32_t index, bool colon, void *slot) {          \
    return read_member(ps, d, index, colon, type, slot);                      \
  }
JSON_VALUE_READER(pbc_json_int32, PBC_TYPE_INT32)
JSON_VALUE_READER(pbc_json_int64, PBC_TYPE_INT64)
JSON_VALUE_READER(pbc_json_uint32, PBC_TYPE_UINT32)
JSON_VALUE_READER(pbc_json_uint64, PBC_TYPE_UINT64)
JSON_VALUE_READER(pbc_json_float, PBC_TYPE_FLOAT)
JSON_VALUE_READER(pbc_json_double, PBC_TYPE_DOUBLE)
JSON_VALUE_READER(pbc_json_bool, PBC_TYPE_BOOL)
JSON_VALUE_READER(pbc_json_string, PBC_TYPE_STRING)
JSON_VALUE_READER(pbc_json_bytes, PBC_TYPE_BYTES)
JSON_VALUE_READER(pbc_json_enum, PBC_TYPE_ENUM)

PBC_NOINLINE bool pbc_json_given_twice(pbc_json_parser *ps,
                                       const pbc_message_desc *d,
                                       uint32_t index) {
  return SYNTAX(ps->key_at, "Field \"%s\" given twice.",
                pbc_field_name(d, &d->fields[index]));
}

PBC_NOINLINE bool pbc_json_message_member(pbc_json_parser *ps,
                                          const pbc_message_desc *d,
                                          int64_t frame, uint32_t index,
                                          bool colon, void *m,
                                          const void *parse) {
  const pbc_field_desc *f = &d->fields[index];
  assert(!(f->flags & PBC_FIELD_MAP) && "pbc_json_member's");
  if (f->kind == PBC_FIELD_REPEATED)
    return member_given(ps, d, (size_t)frame, index, colon) &&
           read_message_array(ps, d, f, m, (bool (*)(void *, parser *))parse);
  TRY(member_given(ps, d, (size_t)frame, index, colon) &&
      oneof_free(ps, d, (size_t)frame, f));
  const pbc_message_desc *type = pbc_tbl_link_message(d, f);
  if (at_null(ps) && pbc_json_wkt_of(type) != WKT_VALUE) {
    ps->p += 4;
    return true;
  }
  TRY(enter(ps));
  void *sub = pbc_arena_alloc(ps->arena, type->size);
  if (sub == NULL) return out_of_arena(ps, type->size);
  pbc_table_init(type, sub);
  pbc_tbl_store_ptr((uint8_t *)m + f->offset, sub);
  pbc_tbl_mark_present(d, f, m);
  if (f->kind == PBC_FIELD_ONEOF)
    *pbc_wb_frame_oneof(&ps->wb, d, (size_t)frame, f->presence) = index + 1;
  TRY(((bool (*)(void *, pbc_json_parser *))parse)(sub, ps));
  ps->depth--;
  return true;
}

PBC_NOINLINE bool pbc_json_parse_message(const pbc_message_desc *d, void *m,
                                         pbc_json_parser *ps) {
  size_t start = ps->wb.len;
  return parse_message(ps, d) && flush(ps, d, m, start);
}

pbc_status pbc_json_parse(const pbc_message_info *info, void *m,
                          const char *json, size_t len, pbc_arena *arena,
                          const pbc_json_options *options,
                          pbc_json_error *error) {
  const pbc_message_desc *d = info->desc;
  if (error) memset(error, 0, sizeof *error);
  static const char empty[1];
  if (json == NULL) json = empty;
  parser state, *ps = &state;
  memset(ps, 0, offsetof(parser, wb));
  pbc_wb_init(&ps->wb);
  ps->begin = ps->p = json;
  ps->end = json + len;
  ps->error = error;
  ps->max_depth = options && options->max_depth ? options->max_depth
                                               : PBC_DEFAULT_MAX_DEPTH;
  if (options) {
    ps->ignore_unknown = options->ignore_unknown_fields;
    ps->find_message = options->find_message;
    ps->find_message_ctx = options->find_message_ctx;
    ps->extensions.list = options->extensions;
    ps->extensions.count = options->extension_count;
  }
  /* No pass of its own for NUL: a raw NUL is a control character inside a
   * string and no token outside one, an error either way. */
  bool ok;
  /* A message's compiled parser (pbc__T_from_json) stores into m; the
   * description's (a schema loaded at run time) writes the wire form. */
  bool compiled = info->json_parser != NULL;
  ps->arena = arena;
  if (compiled) pbc_message_init(info, m);
  if (at_null(ps) && pbc_json_wkt_of(d) != WKT_VALUE) {
    ok = SYNTAX(ps->p, "Expected a message, found null.");
  } else {
    ok = compiled ? ((bool (*)(void *, parser *))info->json_parser)(m, ps)
                  : parse_message(ps, d);
    /* (peek's 0 is also a NUL byte: the position tells the end.) */
    if (ok && (peek(ps), ps->p != ps->end))
      ok = SYNTAX(ps->p, "Unexpected text after the message.");
  }
  pbc_status s = ps->status;
  if (ok && compiled) {
    /* JsonStringToMessage checks required fields too. */
    if (!pbc_message_is_initialized(info, m)) {
      s = PBC_ERR_MISSING_REQUIRED;
      if (error)
        snprintf(error->message, sizeof error->message,
                 "Message missing required fields.");
    }
  } else if (ok) {
    s = pbc_wb_decode(&ps->wb, d, m, arena, ps->max_depth, false,
                      error ? error->message : NULL,
                      error ? sizeof error->message : 0);
    if (s != PBC_OK && error) error->offset = 0;
  }
  if (s != PBC_OK) pbc_table_init(d, m);
  pbc_wb_free(&ps->wb);
  if (ps->scratch != ps->first_scratch) free(ps->scratch);
  return s;
}
