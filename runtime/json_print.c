/* ProtoJSON printing (pbc/json.h) from a message's description: what
 * libprotobuf 3.21's MessageToJsonString writes (its ProtoStreamObjectSource
 * walking the serialized message into a JsonObjectWriter). The differential
 * test prints every random message of the difftest with both and compares
 * the bytes. */
#include <assert.h>
#include <stdlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "pbc/json.h"
#include "json_internal.h"
#include "pbc_rt.h"
#include "print_internal.h"

typedef struct pbc_json_printer {
  pbc_sink out;
  pbc_status status; /* the first error stops the output */
  /* out.cap while the text goes straight into the buffer, 0 with a writer
   * or after an error: the inline paths' one test, has_room. */
  size_t fast_end;
  bool whitespace, always, enum_ints, proto_names;
  uint32_t max_depth, depth;
  unsigned level; /* open objects and lists: the indentation */
  pbc_message_finder find_message;
  const void *find_message_ctx;
  pbc_rt_extensions extensions;
  /* Where Any values, extensions and empty map values are made (on first
   * use). */
  pbc_arena arena;
  bool has_arena;
} printer;

/* Do n more bytes go into the buffer where it is now? One comparison for
 * the buffer's room, the writer and the status (fast_end). len + n does
 * not wrap: both are sizes of objects in memory. */
static PBC_ALWAYS_INLINE bool has_room(const printer *p, size_t n) {
  return p->out.len + n <= p->fast_end;
}

/* What does not fit (or goes to a writer, or after an error). */
PBC_NOINLINE static void put_slow(printer *p, const char *s, size_t n) {
  if (p->status == PBC_OK) pbc_sink_put(&p->out, s, n);
}

/* Inlined everywhere: most pieces are punctuation of a constant size,
 * which then is a store into the buffer rather than a call. */
static PBC_ALWAYS_INLINE void put(printer *p, const char *s, size_t n) {
  pbc_sink *o = &p->out;
  if (PBC_LIKELY(has_room(p, n))) {
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    return;
  }
  put_slow(p, s, n);
}

static void fail(printer *p, pbc_status s) {
  if (p->status == PBC_OK) p->status = s;
  p->fast_end = 0;
}

static pbc_arena *arena(printer *p) {
  if (!p->has_arena) {
    pbc_arena_init(&p->arena, NULL, 0);
    p->has_arena = true;
  }
  return &p->arena;
}

/* JsonObjectWriter's NewLine: pretty-printing only. */
static void newline(printer *p) {
  if (!p->whitespace) return;
  put(p, "\n", 1);
  for (unsigned i = 0; i < p->level; i++) put(p, " ", 1);
}

/* ---- Strings -------------------------------------------------------------
 * JsonEscaping::Escape of 3.21, code point by code point: what it escapes
 * and what it drops. A byte that cannot start a code point is dropped; a
 * sequence broken by a byte that does not continue it is dropped with that
 * byte; one cut short by the end of the string, or decoding to a surrogate
 * or past U+10FFFF, is dropped; overlong forms are read as their value. */

static const char kHex[] = "0123456789abcdef";

static void put_u_escape(printer *p, uint32_t unit) {
  char s[6] = {'\\', 'u', kHex[unit >> 12], kHex[(unit >> 8) & 15],
               kHex[(unit >> 4) & 15], kHex[unit & 15]};
  put(p, s, 6);
}

static void put_escaped_ascii(printer *p, uint8_t c) {
  switch (c) {
  case '"': put(p, "\\\"", 2); return;
  case '\\': put(p, "\\\\", 2); return;
  case '\b': put(p, "\\b", 2); return;
  case '\t': put(p, "\\t", 2); return;
  case '\n': put(p, "\\n", 2); return;
  case '\f': put(p, "\\f", 2); return;
  case '\r': put(p, "\\r", 2); return;
  default: put_u_escape(p, c); return; /* controls, DEL, < and > */
  }
}

/* The bytes written as they are: [0x20, 0x7e] but '"', '\\', '<' and
 * '>'. */
static const uint8_t kPlainAscii[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* '"' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, /* '<', '>' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* '\\' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, /* DEL */
};

static bool plain_ascii(uint8_t c) { return kPlainAscii[c] != 0; }

#if defined(__SSE2__)
/* The lanes of v that are not plain ASCII: outside [0x20, 0x7e], or '"',
 * '\\', '<' or '>'. */
static PBC_ALWAYS_INLINE unsigned not_plain_lanes(__m128i v) {
  const __m128i low = _mm_set1_epi8(0x1f), high = _mm_set1_epi8(0x7f);
  __m128i bad = _mm_or_si128(
      _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(v, low), v),
                   _mm_cmpeq_epi8(_mm_max_epu8(v, high), v)),
      _mm_or_si128(
          _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                       _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
          _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('<')),
                       _mm_cmpeq_epi8(v, _mm_set1_epi8('>')))));
  return (unsigned)_mm_movemask_epi8(bad);
}
#endif

/* The index of the first byte from i on (below n) that plain_ascii
 * refuses, n if none: sixteen bytes at a time with SSE2 (every x86-64 has
 * it), the last few of a string of 16 bytes or more in the block that ends
 * it (its lanes before i masked off). */
static size_t plain_ascii_run(const uint8_t *s, size_t i, size_t n) {
#if defined(__SSE2__)
  while (n - i >= 16) {
    unsigned mask = not_plain_lanes(_mm_loadu_si128((const __m128i *)(s + i)));
    if (mask != 0) return i + (unsigned)__builtin_ctz(mask);
    i += 16;
  }
  if (i < n && n >= 16) {
    unsigned mask =
        not_plain_lanes(_mm_loadu_si128((const __m128i *)(s + n - 16))) >> (16 - (n - i));
    return mask != 0 ? i + (unsigned)__builtin_ctz(mask) : n;
  }
#endif
  while (i < n && plain_ascii(s[i])) i++;
  return i;
}

/* The length of the UTF-8 sequence at s[i] (a byte from 0x80 on, i < n)
 * when it is well formed (no overlong form, no surrogate) and its code
 * point is one 3.21 writes as it is; 0 for put_escaped's slow path, which
 * judges the rest. Each length decoded on its own, unrolled. */
static PBC_ALWAYS_INLINE size_t kept_utf8(const uint8_t *s, size_t i,
                                          size_t n) {
  uint8_t c = s[i];
  size_t left = n - i;
  uint32_t cp;
  if (c >= 0xc2 && c <= 0xdf) {
    if (left < 2 || (s[i + 1] & 0xc0) != 0x80) return 0;
    cp = (uint32_t)(c & 0x1f) << 6 | (s[i + 1] & 0x3f);
    return pbc_rt_json_escapes_code_point(cp) ? 0 : 2;
  }
  if (c >= 0xe0 && c <= 0xef) {
    if (left < 3 || (s[i + 1] & 0xc0) != 0x80 || (s[i + 2] & 0xc0) != 0x80)
      return 0;
    cp = (uint32_t)(c & 0x0f) << 12 | (uint32_t)(s[i + 1] & 0x3f) << 6 |
         (s[i + 2] & 0x3f);
    return cp < 0x800 || (cp & 0xf800) == 0xd800 ||
                   pbc_rt_json_escapes_code_point(cp)
               ? 0
               : 3;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    if (left < 4 || (s[i + 1] & 0xc0) != 0x80 || (s[i + 2] & 0xc0) != 0x80 ||
        (s[i + 3] & 0xc0) != 0x80)
      return 0;
    cp = (uint32_t)(c & 0x07) << 18 | (uint32_t)(s[i + 1] & 0x3f) << 12 |
         (uint32_t)(s[i + 2] & 0x3f) << 6 | (s[i + 3] & 0x3f);
    return cp < 0x10000 || cp > 0x10ffff || pbc_rt_json_escapes_code_point(cp)
               ? 0
               : 4;
  }
  return 0;
}

/* The n bytes at s escaped, without the quotes. What is written as it is
 * (plain ASCII, and UTF-8 sequences of code points 3.21 does not escape)
 * accumulates in one run, written when an escape or the end comes. From
 * the first byte that is not ASCII, 8 bytes or more before the end, the
 * run goes on in blocks (pbc_rt_utf8_json_kept) to the first character
 * 3.21 escapes or byte that is not UTF-8; where there are no blocks (fewer
 * than 8 bytes left, or no vector code for this CPU), past a kept
 * multi-byte sequence the scan goes on a byte at a time until 16 plain
 * ASCII bytes in a row: text that mixes scripts alternates too often for
 * the 16-byte ASCII scan to pay. */
static void put_escaped(printer *p, const uint8_t *s, size_t n) {
  size_t run = 0, i = 0;
  for (;;) {
    i = plain_ascii_run(s, i, n);
    if (i == n) break;
    uint8_t c = s[i];
    if (c < 0x80) {
      put(p, (const char *)s + run, i - run);
      put_escaped_ascii(p, c);
      run = ++i;
      continue;
    }
    /* A long stretch goes through the vector blocks, which take text that
     * is not ASCII as fast as ASCII (and stop where the code below must
     * judge). */
    if (n - i >= 8) {
      size_t block_kept = pbc_rt_utf8_json_kept(s + i, n - i, NULL);
      if (block_kept != 0) {
        i += block_kept;
        continue;
      }
    }
    size_t kept = kept_utf8(s, i, n);
    if (kept != 0) {
      i += kept;
      for (size_t ascii = 0; i < n && ascii < 16;) {
        if (plain_ascii(s[i])) {
          i++;
          ascii++;
        } else if (s[i] >= 0x80 && (kept = kept_utf8(s, i, n)) != 0) {
          i += kept;
          ascii = 0;
        } else {
          break;
        }
      }
      continue;
    }
    size_t start = i++, more;
    uint32_t cp;
    if (c >= 0xc0 && c <= 0xdf) more = 1, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef) more = 2, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf7) more = 3, cp = c & 0x07;
    else more = 0, cp = UINT32_MAX; /* not a lead byte: dropped */
    bool ok = cp != UINT32_MAX;
    for (; ok && more > 0 && i < n; more--) {
      uint8_t b = s[i++];
      cp = cp << 6 | (b & 0x3f);
      ok = b >= 0x80 && b <= 0xbf;
    }
    ok = ok && more == 0 && (cp & 0xfffff800) != 0xd800 && cp <= 0x10ffff;
    /* Kept as it is: stays in the run. An overlong form of a plain ASCII
     * character is copied as it is too. */
    if (ok && (cp < 0x80 ? plain_ascii((uint8_t)cp)
                         : !pbc_rt_json_escapes_code_point(cp)))
      continue;
    put(p, (const char *)s + run, start - run);
    if (ok && cp < 0x80) {
      put_escaped_ascii(p, (uint8_t)cp); /* an overlong form, escaped */
    } else if (ok) {
      if (cp < 0x10000) {
        put_u_escape(p, cp);
      } else {
        put_u_escape(p, 0xd800 + ((cp - 0x10000) >> 10));
        put_u_escape(p, 0xdc00 + (cp & 0x3ff));
      }
    }
    run = i;
  }
  put(p, (const char *)s + run, n - run);
}

static void put_quoted(printer *p, const uint8_t *s, size_t n) {
#if defined(__SSE2__)
  /* The common short string (a name, a key, a tag) of 4 to 16 plain ASCII
   * bytes: tested in two loads that overlap and written, quotes and all,
   * by stores of the same size, when the buffer has room. */
  pbc_sink *o = &p->out;
  if (n >= 4 && n <= 16 && has_room(p, n + 2)) {
    uint64_t head, tail;
    if (n >= 8) {
      memcpy(&head, s, 8);
      memcpy(&tail, s + n - 8, 8);
    } else {
      uint32_t h, t;
      memcpy(&h, s, 4);
      memcpy(&t, s + n - 4, 4);
      head = tail = h | (uint64_t)t << 32;
    }
    if (not_plain_lanes(_mm_set_epi64x((long long)tail, (long long)head)) == 0) {
      char *d = o->buf + o->len;
      d[0] = '"';
      if (n >= 8) {
        memcpy(d + 1, &head, 8);
        memcpy(d + 1 + n - 8, &tail, 8);
      } else {
        memcpy(d + 1, &head, 4);
        memcpy(d + 1 + n - 4, (const char *)&tail + 4, 4);
      }
      d[n + 1] = '"';
      o->len += n + 2;
      return;
    }
  }
  /* Text whose first 16 bytes hold other UTF-8 before any ASCII character
   * to escape (text in another script, mostly): copied into the buffer by
   * the blocks that scan it (pbc_rt_utf8_json_kept), when the buffer has
   * their room, as far as 3.21 writes it as it is: one pass, where the scan
   * and then the copy of its run were two. What follows the first
   * character it escapes goes the general way, and so does other text:
   * plain ASCII is scanned faster 16 bytes at a time than by the blocks,
   * which validate UTF-8 too. */
  unsigned head = n >= 16 ? not_plain_lanes(_mm_loadu_si128((const __m128i *)s)) : 0;
  if (head != 0 && s[__builtin_ctz(head)] >= 0x80 &&
      has_room(p, n + 2 + PBC_RT_JSON_KEPT_SLACK)) {
    char *d = o->buf + o->len;
    d[0] = '"';
    size_t kept = pbc_rt_utf8_json_kept(s, n, (uint8_t *)d + 1);
    o->len += 1 + kept;
    if (kept == n) {
      o->buf[o->len++] = '"';
      return;
    }
    put_escaped(p, s + kept, n - kept);
    put(p, "\"", 1);
    return;
  }
#endif
  put(p, "\"", 1);
  put_escaped(p, s, n);
  put(p, "\"", 1);
}

/* ---- Where a value goes --------------------------------------------------
 * Each value writes its own prefix: a comma after a sibling, the newline
 * and indent, and in an object its quoted name and colon. */
typedef struct slot {
  bool *first; /* of the enclosing object or list; NULL at the top */
  bool named;  /* a member of an object: name, len */
  const char *name;
  size_t len;
} slot;

/* A member's quoted name and its colon. A name that needs no escape (every
 * field name, most map keys) is copied straight into the buffer, checked a
 * byte at a time as it goes: no scan before the copy, no call. A name that
 * needs one, a writer or a full buffer take put_quoted. */
static void put_name(printer *p, const char *name, size_t len) {
  pbc_sink *o = &p->out;
  size_t n = len + (p->whitespace ? 4 : 3);
  if (has_room(p, n)) {
    char *d = o->buf + o->len;
    size_t i = 0;
    for (; i < len && plain_ascii((uint8_t)name[i]); i++) d[1 + i] = name[i];
    if (i == len) {
      d[0] = '"';
      d[len + 1] = '"';
      d[len + 2] = ':';
      if (p->whitespace) d[len + 3] = ' ';
      o->len += n;
      return;
    }
  }
  put_quoted(p, (const uint8_t *)name, len);
  put(p, p->whitespace ? ": " : ":", p->whitespace ? 2 : 1);
}

static void prefix(printer *p, const slot *at) {
  if (at->first == NULL) return;
  if (!*at->first) put(p, ",", 1);
  *at->first = false;
  newline(p);
  if (at->named) put_name(p, at->name, at->len);
}

static slot member(bool *first, const char *name, size_t len) {
  slot s = {first, true, name, len};
  return s;
}
static slot element(bool *first) {
  slot s = {first, false, NULL, 0};
  return s;
}

/* A value with nothing before it: the top, or where the caller wrote the
 * member name. */
static const slot kValue = {NULL, false, NULL, 0};

static void begin(printer *p, char c) {
  put(p, &c, 1);
  p->level++;
}

/* JsonObjectWriter's EndObject and EndList: a newline before the bracket
 * when something was written, and after the top one. */
static void end(printer *p, char c, bool first) {
  p->level--;
  if (!first) newline(p);
  put(p, &c, 1);
  if (p->level == 0) newline(p);
}

/* ---- Scalars -------------------------------------------------------------- */

static void put_simple(printer *p, const slot *at, const char *s, size_t n) {
  prefix(p, at);
  put(p, s, n);
}

static void put_real(printer *p, const slot *at, double v, bool is_float) {
  if (v != v || v == __builtin_inf() || v == -__builtin_inf()) {
    const char *s = v != v ? "\"NaN\"" : v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
    put_simple(p, at, s, strlen(s));
    return;
  }
  char s[PBC_FORMAT_REAL_ROOM];
  put_simple(p, at, s, pbc_format_real(s, v, is_float));
}

/* An integer in decimal (v's bits read as signed when `is_signed`):
 * quoted, a 64-bit type's; else a 32-bit type's (its low half). Formatted
 * in place when the buffer has room for the longest, else through a copy. */
static void put_int(printer *p, const slot *at, uint64_t v, bool is_signed,
                    bool quoted) {
  enum { LONGEST = PBC_FORMAT_INT_ROOM + 2 }; /* quotes, digits and scratch */
  prefix(p, at);
  pbc_sink *o = &p->out;
  char copy[LONGEST];
  bool in_place = has_room(p, LONGEST);
  char *d = in_place ? o->buf + o->len : copy;
  size_t n = quoted ? (is_signed ? pbc_format_i64(d + 1, (int64_t)v)
                                 : pbc_format_u64(d + 1, v)) + 2
                    : is_signed ? pbc_format_i32(d, (int32_t)v)
                                : pbc_format_u32(d, (uint32_t)v);
  if (quoted) d[0] = d[n - 1] = '"';
  if (in_place)
    o->len += n;
  else
    put(p, copy, n);
}

/* Standard base64 with padding, as 3.21's Base64Escape. */
static void put_base64(printer *p, const slot *at, const uint8_t *s, size_t n) {
  static const char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  prefix(p, at);
  put(p, "\"", 1);
  char block[64];
  size_t used = 0;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)s[i] << 16;
    if (i + 1 < n) v |= (uint32_t)s[i + 1] << 8;
    if (i + 2 < n) v |= s[i + 2];
    block[used++] = kAlphabet[v >> 18];
    block[used++] = kAlphabet[(v >> 12) & 63];
    block[used++] = i + 1 < n ? kAlphabet[(v >> 6) & 63] : '=';
    block[used++] = i + 2 < n ? kAlphabet[v & 63] : '=';
    if (used == sizeof block) {
      put(p, block, used);
      used = 0;
    }
  }
  put(p, block, used);
  put(p, "\"", 1);
}

static void put_enum(printer *p, const slot *at, const pbc_enum_info *e,
                     int32_t v) {
  if (pbc_json_is_null_value(e)) {
    put_simple(p, at, "null", 4);
    return;
  }
  const char *name = p->enum_ints ? NULL : pbc_enum_value_name(e, v);
  if (name == NULL) {
    put_int(p, at, (uint64_t)(int64_t)v, true, false);
    return;
  }
  prefix(p, at);
  put_quoted(p, (const uint8_t *)name, strlen(name));
}

/* A scalar, string, bytes or enum value of that type (an enum's names in
 * `e`). */
static void put_scalar(printer *p, const slot *at, uint8_t type,
                       const pbc_enum_info *e, const uint8_t *v) {
  switch (type) {
  case PBC_TYPE_DOUBLE: {
    double d;
    memcpy(&d, v, 8);
    put_real(p, at, d, false);
    return;
  }
  case PBC_TYPE_FLOAT: {
    float f;
    memcpy(&f, v, 4);
    put_real(p, at, f, true);
    return;
  }
  case PBC_TYPE_INT64: case PBC_TYPE_SFIXED64: case PBC_TYPE_SINT64:
    put_int(p, at, pbc_tbl_load64(v), true, true);
    return;
  case PBC_TYPE_UINT64: case PBC_TYPE_FIXED64:
    put_int(p, at, pbc_tbl_load64(v), false, true);
    return;
  case PBC_TYPE_INT32: case PBC_TYPE_SFIXED32: case PBC_TYPE_SINT32:
    put_int(p, at, (uint64_t)(int64_t)(int32_t)pbc_tbl_load32(v), true, false);
    return;
  case PBC_TYPE_UINT32: case PBC_TYPE_FIXED32:
    put_int(p, at, pbc_tbl_load32(v), false, false);
    return;
  case PBC_TYPE_BOOL:
    put_simple(p, at, *v ? "true" : "false", *v ? 4 : 5);
    return;
  case PBC_TYPE_ENUM:
    put_enum(p, at, e, (int32_t)pbc_tbl_load32(v));
    return;
  case PBC_TYPE_BYTES: {
    pbc_bytes b = pbc_tbl_load_view(v);
    put_base64(p, at, b.data, b.size);
    return;
  }
  default: {
    assert(type == PBC_TYPE_STRING);
    pbc_bytes b = pbc_tbl_load_view(v);
    prefix(p, at);
    put_quoted(p, b.data, b.size);
    return;
  }
  }
}

/* ---- Messages ------------------------------------------------------------- */

static void put_message(printer *p, const slot *at, const pbc_message_desc *d,
                        const uint8_t *m);

/* A struct of type d as T_init makes it: what a map entry without its
 * message value holds, as libprotobuf's map does. */
static const uint8_t *empty_message(printer *p, const pbc_message_desc *d) {
  uint8_t *m = pbc_arena_alloc(arena(p), d->size ? d->size : 1);
  if (m == NULL) {
    fail(p, PBC_ERR_OUT_OF_MEMORY);
    return NULL;
  }
  if (d->prototype != NULL) memcpy(m, d->prototype, d->size);
  else memset(m, 0, d->size);
  return m;
}

/* One value of field f of d at v (an element of a repeated field: a
 * message element is the struct itself, a singular message a pointer). */
static void put_field_value(printer *p, const slot *at,
                            const pbc_message_desc *d, const pbc_field_desc *f,
                            const uint8_t *v, bool element) {
  if (!pbc_tbl_is_message(f)) {
    put_scalar(p, at, f->type,
               f->type == PBC_TYPE_ENUM ? pbc_field_enum(d, f) : NULL, v);
    return;
  }
  const pbc_message_desc *sub = pbc_tbl_link_message(d, f);
  const uint8_t *m = element ? v : pbc_tbl_load_ptr(v);
  if (m == NULL) m = empty_message(p, sub);
  if (m != NULL) put_message(p, at, sub, m);
}

/* A map key as a member name: numbers in decimal, bools as true or false,
 * strings as they are (escaped where written). */
static slot key_slot(bool *first, const pbc_field_desc *key,
                     const uint8_t *entry, char *buf) {
  const uint8_t *v = entry + key->offset;
  size_t n;
  switch (key->type) {
  case PBC_TYPE_STRING: {
    pbc_bytes b = pbc_tbl_load_view(v);
    return member(first, (const char *)b.data, b.size);
  }
  case PBC_TYPE_BOOL:
    return member(first, *v ? "true" : "false", *v ? 4 : 5);
  case PBC_TYPE_INT64: case PBC_TYPE_SFIXED64: case PBC_TYPE_SINT64:
    n = pbc_format_i64(buf, (int64_t)pbc_tbl_load64(v));
    break;
  case PBC_TYPE_UINT64: case PBC_TYPE_FIXED64:
    n = pbc_format_u64(buf, pbc_tbl_load64(v));
    break;
  case PBC_TYPE_UINT32: case PBC_TYPE_FIXED32:
    n = pbc_format_u32(buf, pbc_tbl_load32(v));
    break;
  default:
    n = pbc_format_i32(buf, (int32_t)pbc_tbl_load32(v));
    break;
  }
  return member(first, buf, n);
}

/* A map's entries as an object's members (after `first`), sorted by key,
 * each key once with its last value. */
static void put_map_members(printer *p, bool *first, const pbc_message_desc *d,
                            const pbc_field_desc *f, pbc_bytes v) {
  const pbc_message_desc *entry = pbc_tbl_link_message(d, f);
  assert(entry->field_count == 2 && entry->fields[0].number == 1);
  const pbc_field_desc *key = &entry->fields[0], *value = &entry->fields[1];
  if (v.size == 0) return;
  const uint8_t **order = malloc(2 * v.size * sizeof *order);
  if (order == NULL) {
    fail(p, PBC_ERR_OUT_OF_MEMORY);
    return;
  }
  for (size_t k = 0; k < v.size; k++) order[k] = v.data + k * entry->size;
  pbc_tbl_sort_entries(key, order, order + v.size, v.size);
  for (size_t k = 0; k < v.size && p->status == PBC_OK; k++) {
    if (k + 1 < v.size && pbc_tbl_compare_keys(key, order[k], order[k + 1]) == 0)
      continue; /* a later entry has the key */
    char buf[PBC_FORMAT_INT_ROOM];
    slot at = key_slot(first, key, order[k], buf);
    put_field_value(p, &at, entry, value, order[k] + value->offset, false);
  }
  free(order);
}

/* ---- Runs of numbers ------------------------------------------------------
 * A repeated field of a number or bool type prints as a run: each element
 * behind a comma (the first too when `comma`: the compiled lists, whose end
 * turns it into the bracket), integers and bools formatted in place while
 * the buffer has room for the longest, with the buffer's length in a
 * register, a loop per type: packed_heavy's lists paid a call, the slot's
 * test and the room test of a separate comma for each element. */

/* Whether a repeated field of this type prints as a run. */
static bool is_run_type(uint8_t type) {
  return type != PBC_TYPE_ENUM && type != PBC_TYPE_STRING &&
         type != PBC_TYPE_BYTES && type != PBC_TYPE_MESSAGE &&
         type != PBC_TYPE_GROUP;
}

/* An integer or bool element at d, as put_scalar prints it; its length. */
static PBC_ALWAYS_INLINE size_t format_element(char *d, uint8_t type,
                                               const uint8_t *v) {
  switch (type) {
  case PBC_TYPE_INT32:
    return pbc_format_i32(d, (int32_t)pbc_tbl_load32(v));
  case PBC_TYPE_UINT32:
    return pbc_format_u32(d, pbc_tbl_load32(v));
  case PBC_TYPE_INT64:
  case PBC_TYPE_UINT64: { /* the 64-bit types are quoted */
    uint64_t x = pbc_tbl_load64(v);
    size_t n = type == PBC_TYPE_INT64 ? pbc_format_i64(d + 1, (int64_t)x)
                                      : pbc_format_u64(d + 1, x);
    d[0] = d[n + 1] = '"';
    return n + 2;
  }
  default:
    assert(type == PBC_TYPE_BOOL);
    memcpy(d, *v ? "true " : "false", 5);
    return *v ? 4 : 5;
  }
}

/* `type` is one of format_element's (a constant where this is inlined). */
static PBC_ALWAYS_INLINE void int_run(printer *p, uint8_t type, size_t stride,
                                      const uint8_t *v, size_t n, bool comma) {
  /* A comma, a quote, the digits and their scratch. */
  enum { LONGEST = 2 + PBC_FORMAT_INT_ROOM };
  pbc_sink *o = &p->out;
  const uint8_t *end = v + n * stride;
  while (v != end) {
    /* The loop's room test is has_room's, in registers. */
    if (o->len <= p->fast_end) {
      char *buf = o->buf;
      size_t len = o->len, cap = p->fast_end;
      for (; v != end && LONGEST <= cap - len; v += stride) {
        buf[len] = ','; /* overwritten by the element when no comma */
        len += comma;
        len += format_element(buf + len, type, v);
        comma = true;
      }
      o->len = len;
      if (v == end) return;
    }
    /* Near the end of the buffer, past it, or after an error. */
    if (comma) put(p, ",", 1);
    put_scalar(p, &kValue, type, NULL, v);
    comma = true;
    v += stride;
  }
}

static void real_run(printer *p, bool is_float, const uint8_t *v, size_t n,
                     bool comma) {
  pbc_sink *o = &p->out;
  size_t stride = is_float ? 4 : 8;
  while (n > 0) {
    if (o->len <= p->fast_end) {
      size_t done = pbc_format_real_run(o->buf, &o->len, p->fast_end, v, n,
                                        is_float, comma);
      v += done * stride;
      n -= done;
      comma |= done != 0;
      if (n == 0) return;
    }
    /* "NaN", "Infinity", no room, a writer or an error: one element. */
    double d;
    if (is_float) {
      float f;
      memcpy(&f, v, 4);
      d = f;
    } else {
      memcpy(&d, v, 8);
    }
    if (comma) put(p, ",", 1);
    put_real(p, &kValue, d, is_float);
    comma = true;
    v += stride;
    n--;
  }
}

static void put_run(printer *p, uint8_t type, const uint8_t *v, size_t n,
                    bool comma) {
  assert(is_run_type(type));
  switch (type) {
  case PBC_TYPE_INT32: case PBC_TYPE_SFIXED32: case PBC_TYPE_SINT32:
    int_run(p, PBC_TYPE_INT32, 4, v, n, comma);
    return;
  case PBC_TYPE_UINT32: case PBC_TYPE_FIXED32:
    int_run(p, PBC_TYPE_UINT32, 4, v, n, comma);
    return;
  case PBC_TYPE_INT64: case PBC_TYPE_SFIXED64: case PBC_TYPE_SINT64:
    int_run(p, PBC_TYPE_INT64, 8, v, n, comma);
    return;
  case PBC_TYPE_UINT64: case PBC_TYPE_FIXED64:
    int_run(p, PBC_TYPE_UINT64, 8, v, n, comma);
    return;
  case PBC_TYPE_BOOL:
    int_run(p, PBC_TYPE_BOOL, 1, v, n, comma);
    return;
  default: /* a float or double: in place too, when finite */
    real_run(p, type == PBC_TYPE_FLOAT, v, n, comma);
  }
}

/* Field f of d, set or shown by always_print_primitive_fields, as a member
 * of the open object. */
static void put_field(printer *p, bool *first, const pbc_message_desc *d,
                      uint32_t i, const uint8_t *m) {
  const pbc_field_desc *f = &d->fields[i];
  const char *name = p->proto_names ? pbc_field_name(d, f)
                                    : pbc_field_json_name(d, f);
  slot at = member(first, name, strlen(name));
  if (f->kind != PBC_FIELD_REPEATED) {
    put_field_value(p, &at, d, f, m + f->offset, false);
    return;
  }
  pbc_bytes v = pbc_tbl_load_view(m + f->offset);
  bool empty = true;
  prefix(p, &at);
  if (f->flags & PBC_FIELD_MAP) {
    begin(p, '{');
    put_map_members(p, &empty, d, f, v);
    end(p, '}', empty);
    return;
  }
  begin(p, '[');
  if (!p->whitespace && is_run_type(f->type)) { /* no newline an element */
    put_run(p, f->type, v.data, v.size, false);
    end(p, ']', v.size == 0);
    return;
  }
  size_t stride = pbc_tbl_value_bytes(d, f);
  for (size_t k = 0; k < v.size; k++) {
    slot el = element(&empty);
    put_field_value(p, &el, d, f, v.data + k * stride, true);
  }
  end(p, ']', empty);
}

/* Whether field f prints: set, or (always_print_primitive_fields) a field
 * without presence: a singular scalar outside a oneof, repeated, a map. */
static bool prints(const printer *p, const pbc_message_desc *d,
                   const pbc_field_desc *f, const uint8_t *m) {
  if (f->kind == PBC_FIELD_REPEATED)
    return p->always || pbc_tbl_load_view(m + f->offset).size != 0;
  if (pbc_tbl_is_set(d, f, m)) return true;
  return p->always && f->kind == PBC_FIELD_IMPLICIT;
}

/* Extension e's value in m as a member "[pkg.ext]". */
static void put_extension(printer *p, bool *first, const pbc_extension_info *e,
                          const uint8_t *m) {
  _Alignas(16) uint8_t value[16];
  pbc_status s = pbc_extension_get(e, m, arena(p), value);
  if (s != PBC_OK) {
    fail(p, s);
    return;
  }
  const char *name = pbc_rt_extension_printable_name(e);
  size_t len = strlen(name);
  char *bracketed = pbc_arena_alloc(arena(p), len + 2);
  if (bracketed == NULL) {
    fail(p, PBC_ERR_OUT_OF_MEMORY);
    return;
  }
  bracketed[0] = '[';
  memcpy(bracketed + 1, name, len);
  bracketed[len + 1] = ']';
  slot at = member(first, bracketed, len + 2);
  bool message = e->type == PBC_TYPE_MESSAGE || e->type == PBC_TYPE_GROUP;
  const pbc_enum_info *en =
      e->type == PBC_TYPE_ENUM ? (const pbc_enum_info *)e->link : NULL;
  if (!(e->flags & PBC_EXTENSION_REPEATED)) {
    const pbc_message_desc *sub = (const pbc_message_desc *)e->link;
    const uint8_t *v = message ? pbc_tbl_load_ptr(value) : NULL;
    if (message && v == NULL) v = empty_message(p, sub);
    if (message && v != NULL)
      put_message(p, &at, sub, v);
    else if (!message)
      put_scalar(p, &at, e->type, en, value);
    return;
  }
  pbc_bytes v = pbc_tbl_load_view(value);
  size_t stride = pbc_rt_extension_value_bytes(e);
  bool empty = true;
  prefix(p, &at);
  begin(p, '[');
  for (size_t k = 0; k < v.size; k++) {
    slot el = element(&empty);
    if (message)
      put_message(p, &el, (const pbc_message_desc *)e->link,
                  v.data + k * stride);
    else
      put_scalar(p, &el, e->type, en, v.data + k * stride);
  }
  end(p, ']', empty);
}

/* d's fields in m as members of the open object (after `first`), by
 * number, the extensions the unknown fields hold among them. */
static void put_members(printer *p, bool *first, const pbc_message_desc *d,
                        const uint8_t *m) {
  const pbc_extension_info **exts = NULL;
  size_t ext_count = 0, next = 0;
  if (d->unknown_offset != PBC_NO_UNKNOWN_FIELDS &&
      pbc_rt_extensions_count(&p->extensions) != 0) {
    pbc_bytes u = pbc_tbl_load_view(m + d->unknown_offset);
    if (u.size != 0 &&
        !pbc_rt_split_extensions(d, &p->extensions, u.data, u.size, &exts,
                                 &ext_count, NULL, NULL)) {
      fail(p, PBC_ERR_OUT_OF_MEMORY);
      return;
    }
  }
  for (uint32_t i = 0; i < d->field_count && p->status == PBC_OK; i++) {
    const pbc_field_desc *f = &d->fields[i];
    while (next < ext_count && exts[next]->number < f->number)
      put_extension(p, first, exts[next++], m);
    if (prints(p, d, f, m)) put_field(p, first, d, i, m);
  }
  while (next < ext_count && p->status == PBC_OK)
    put_extension(p, first, exts[next++], m);
  free(exts);
}

/* ---- Well-known types ----------------------------------------------------- */

PBC_NOINLINE pbc_json_wkt pbc_json_wkt_of(const pbc_message_desc *d) {
  static const char kPackage[] = "google.protobuf.";
  const char *name = d->strings;
  if (strncmp(name, kPackage, sizeof kPackage - 1) != 0) return WKT_NONE;
  name += sizeof kPackage - 1;
  static const struct { const char *name; pbc_json_wkt kind; } kTypes[] = {
      {"Any", WKT_ANY}, {"Timestamp", WKT_TIMESTAMP},
      {"Duration", WKT_DURATION}, {"FieldMask", WKT_FIELD_MASK},
      {"Struct", WKT_STRUCT}, {"Value", WKT_VALUE},
      {"ListValue", WKT_LIST_VALUE}, {"DoubleValue", WKT_WRAPPER},
      {"FloatValue", WKT_WRAPPER}, {"Int64Value", WKT_WRAPPER},
      {"UInt64Value", WKT_WRAPPER}, {"Int32Value", WKT_WRAPPER},
      {"UInt32Value", WKT_WRAPPER}, {"BoolValue", WKT_WRAPPER},
      {"StringValue", WKT_WRAPPER}, {"BytesValue", WKT_WRAPPER}};
  for (size_t i = 0; i < sizeof kTypes / sizeof kTypes[0]; i++) {
    if (strcmp(name, kTypes[i].name) != 0) continue;
    /* A message of that name but another shape prints as any message. */
    if (kTypes[i].kind == WKT_ANY && !pbc_tbl_is_any(d)) return WKT_NONE;
    if (kTypes[i].kind == WKT_WRAPPER && pbc_json_wrapped(d) == NULL) return WKT_NONE;
    return kTypes[i].kind;
  }
  return WKT_NONE;
}

/* Field `number` of d at m, if d has it and it is not repeated. */
static const pbc_field_desc *singular(const pbc_message_desc *d,
                                      uint32_t number) {
  const pbc_field_desc *f = pbc_field_by_number(d, number);
  return f != NULL && f->kind != PBC_FIELD_REPEATED ? f : NULL;
}

static int64_t int_field(const pbc_message_desc *d, const uint8_t *m,
                         uint32_t number) {
  const pbc_field_desc *f = singular(d, number);
  if (f == NULL || pbc_tbl_is_message(f) || !pbc_tbl_is_set(d, f, m)) return 0;
  if (pbc_tbl_type_of(f)->bytes == 8)
    return (int64_t)pbc_tbl_load64(m + f->offset);
  return (int32_t)pbc_tbl_load32(m + f->offset);
}

/* "0.5" of 500000000 nanos: 3, 6 or 9 digits, as few as hold it exactly. */
static size_t format_nanos(char *out, uint32_t nanos) {
  unsigned digits = nanos % 1000 ? 9 : nanos % 1000000 ? 6 : 3;
  uint32_t v = digits == 9 ? nanos : digits == 6 ? nanos / 1000 : nanos / 1000000;
  out[0] = '.';
  for (unsigned i = digits; i > 0; i--, v /= 10) out[i] = (char)('0' + v % 10);
  return digits + 1;
}

static void put_2(char *out, unsigned v) {
  out[0] = (char)('0' + v / 10);
  out[1] = (char)('0' + v % 10);
}

/* Timestamp: "0001-01-01T00:00:00Z" to "9999-12-31T23:59:59.999999999Z". */
static void put_timestamp(printer *p, const slot *at, const pbc_message_desc *d,
                          const uint8_t *m) {
  int64_t seconds = int_field(d, m, 1), nanos = int_field(d, m, 2);
  if (seconds < INT64_C(-62135596800) || seconds > INT64_C(253402300799) ||
      nanos < 0 || nanos > 999999999) {
    fail(p, PBC_ERR_JSON_VALUE);
    return;
  }
  /* Days since 1970-01-01 to the civil date (proleptic Gregorian, eras of
   * 400 years from 0000-03-01). */
  int64_t days = (seconds >= 0 ? seconds : seconds - 86399) / 86400;
  int64_t secs = seconds - days * 86400;
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  unsigned day = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
  unsigned month = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
  unsigned year = (unsigned)(yoe + era * 400 + (month <= 2));
  char s[40] = "\"0000-00-00T00:00:00";
  put_2(s + 1, year / 100);
  put_2(s + 3, year % 100);
  put_2(s + 6, month);
  put_2(s + 9, day);
  put_2(s + 12, (unsigned)(secs / 3600));
  put_2(s + 15, (unsigned)(secs / 60 % 60));
  put_2(s + 18, (unsigned)(secs % 60));
  size_t n = 20;
  if (nanos != 0) n += format_nanos(s + n, (uint32_t)nanos);
  s[n++] = 'Z';
  s[n++] = '"';
  put_simple(p, at, s, n);
}

/* Duration: "-315576000000.999999999s" to "315576000000.999999999s";
 * seconds and nanos must not differ in sign (3.21 lets a positive second
 * count with negative nanos through, printing garbage; pbc refuses it). */
static void put_duration(printer *p, const slot *at, const pbc_message_desc *d,
                         const uint8_t *m) {
  int64_t seconds = int_field(d, m, 1), nanos = int_field(d, m, 2);
  if (seconds < INT64_C(-315576000000) || seconds > INT64_C(315576000000) ||
      nanos <= -1000000000 || nanos >= 1000000000 ||
      (seconds < 0 && nanos > 0) || (seconds > 0 && nanos < 0)) {
    fail(p, PBC_ERR_JSON_VALUE);
    return;
  }
  char s[40];
  size_t n = 0;
  s[n++] = '"';
  if (seconds < 0 || nanos < 0) s[n++] = '-';
  n += pbc_format_u64(s + n, (uint64_t)(seconds < 0 ? -seconds : seconds));
  if (nanos != 0) n += format_nanos(s + n, (uint32_t)(nanos < 0 ? -nanos : nanos));
  s[n++] = 's';
  s[n++] = '"';
  put_simple(p, at, s, n);
}

/* A FieldMask path's snake_case segment s[0, n) in lowerCamelCase, as
 * 3.21's ToCamelCase writes it, at out; its length (at most n). */
static size_t camel(char *out, const uint8_t *s, size_t n) {
  bool capitalize_next = false, was_cap = true, first_word = true;
  size_t len = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t c = s[i];
    bool is_cap = c >= 'A' && c <= 'Z', was = was_cap;
    was_cap = is_cap;
    uint8_t lower = is_cap ? (uint8_t)(c + 32) : c;
    if (c == '_') {
      capitalize_next = true;
      if (len != 0) first_word = false;
      continue;
    }
    if (first_word) {
      bool lower_next = i + 1 < n && s[i + 1] >= 'a' && s[i + 1] <= 'z';
      if (len != 0 && is_cap && (!was || lower_next)) {
        first_word = false;
        out[len++] = (char)c;
      } else {
        out[len++] = (char)lower;
      }
    } else if (capitalize_next) {
      capitalize_next = false;
      out[len++] = (char)(c >= 'a' && c <= 'z' ? c - 32 : c);
    } else {
      out[len++] = (char)lower;
    }
  }
  return len;
}

/* Whether a segment's lowerCamelCase reads back as it (the conformance
 * suite's recommended rule, which 3.21 does not check): no capital letter,
 * and each '_' followed by a small letter. */
static bool round_trips(const uint8_t *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (s[i] >= 'A' && s[i] <= 'Z') return false;
    if (s[i] == '_' && (i + 1 == n || s[i + 1] < 'a' || s[i + 1] > 'z'))
      return false;
  }
  return true;
}

/* One path as 3.21's ConvertFieldMaskPath converts it: the segments
 * between '.', '(', ')' and '"' through camel(), quoted parts as they are;
 * at out, its length (at most n), or SIZE_MAX for a path whose segments
 * would not read back (round_trips). */
static size_t mask_path(char *out, const uint8_t *s, size_t n) {
  bool quoted = false, escaping = false;
  size_t start = 0, len = 0;
  for (size_t i = 0; i <= n; i++) {
    if (quoted) {
      if (i == n) break;
      out[len++] = (char)s[i];
      if (escaping) escaping = false;
      else if (s[i] == '\\') escaping = true;
      else if (s[i] == '"') start = i + 1, quoted = false;
      continue;
    }
    if (i == n || s[i] == '.' || s[i] == '(' || s[i] == ')' || s[i] == '"') {
      if (!round_trips(s + start, i - start)) return SIZE_MAX;
      len += camel(out + len, s + start, i - start);
      if (i < n) out[len++] = (char)s[i];
      start = i + 1;
    }
    if (i < n && s[i] == '"') quoted = true;
  }
  return len;
}

/* FieldMask: its paths converted and joined by commas (a comma only after
 * something was written, as 3.21 joins them), one string; a path that
 * would not read back is PBC_ERR_JSON_VALUE. */
static void put_field_mask(printer *p, const slot *at, const pbc_message_desc *d,
                           const uint8_t *m) {
  const pbc_field_desc *f = pbc_field_by_number(d, 1);
  pbc_bytes paths = {NULL, 0};
  if (f != NULL && f->kind == PBC_FIELD_REPEATED && f->type == PBC_TYPE_STRING)
    paths = pbc_tbl_load_view(m + f->offset);
  size_t room = 1;
  for (size_t k = 0; k < paths.size; k++)
    room += pbc_tbl_load_view(paths.data + k * sizeof(pbc_bytes)).size + 1;
  char *joined = malloc(room);
  if (joined == NULL) {
    fail(p, PBC_ERR_OUT_OF_MEMORY);
    return;
  }
  size_t len = 0;
  for (size_t k = 0; k < paths.size; k++) {
    pbc_bytes path = pbc_tbl_load_view(paths.data + k * sizeof(pbc_bytes));
    if (len != 0) joined[len++] = ',';
    size_t converted = mask_path(joined + len, path.data, path.size);
    if (converted == SIZE_MAX) {
      free(joined);
      fail(p, PBC_ERR_JSON_VALUE);
      return;
    }
    len += converted;
  }
  prefix(p, at);
  put_quoted(p, (const uint8_t *)joined, len);
  free(joined);
}

/* Value: the JSON its kind holds; null when no kind is set (as upb and
 * newer libprotobuf print it; 3.21 prints nothing, not even the member's
 * name, and drops the element from a list). A NaN or infinite
 * number_value has no JSON number (3.21 prints it as a string, which reads
 * back as a string_value): PBC_ERR_JSON_VALUE. */
static void put_struct_value(printer *p, const slot *at,
                             const pbc_message_desc *d, const uint8_t *m) {
  for (uint32_t i = 0; i < d->field_count; i++) {
    const pbc_field_desc *f = &d->fields[i];
    if (f->kind != PBC_FIELD_REPEATED && pbc_tbl_is_set(d, f, m)) {
      if (f->type == PBC_TYPE_DOUBLE) {
        double v;
        memcpy(&v, m + f->offset, 8);
        if (v != v || v == __builtin_inf() || v == -__builtin_inf()) {
          fail(p, PBC_ERR_JSON_VALUE);
          return;
        }
      }
      put_field_value(p, at, d, f, m + f->offset, false);
      return;
    }
  }
  put_simple(p, at, "null", 4);
}

/* Struct: its map as an object; ListValue: its values as an array. */
static void put_struct(printer *p, const slot *at, const pbc_message_desc *d,
                       const uint8_t *m, bool list) {
  const pbc_field_desc *f = pbc_field_by_number(d, 1);
  bool first = true;
  prefix(p, at);
  begin(p, list ? '[' : '{');
  if (f != NULL && f->kind == PBC_FIELD_REPEATED) {
    pbc_bytes v = pbc_tbl_load_view(m + f->offset);
    if (!list && (f->flags & PBC_FIELD_MAP)) {
      put_map_members(p, &first, d, f, v);
    } else if (list && pbc_tbl_is_message(f)) {
      size_t stride = pbc_tbl_value_bytes(d, f);
      for (size_t k = 0; k < v.size; k++) {
        slot el = element(&first);
        put_field_value(p, &el, d, f, v.data + k * stride, true);
      }
    }
  }
  end(p, list ? ']' : '}', first);
}

/* Any: {"@type": url, ...the value's members}, or {"@type": url, "value":
 * its form} for a well-known type; {} or just "@type" without a value. */
static void put_any(printer *p, const slot *at, const pbc_message_desc *d,
                    const uint8_t *m) {
  pbc_bytes url, value;
  size_t slash;
  const pbc_message_info *info = pbc_tbl_any_type(
      d, m, p->find_message, p->find_message_ctx, &url, &value, &slash);
  static const char kPrefix[] = "type.googleapis.com/";
  const uint8_t *v = NULL;
  if (value.size != 0) {
    /* libprotobuf's type resolver: exactly its prefix, then the name. */
    if (info == NULL || slash != sizeof kPrefix - 1 ||
        memcmp(url.data, kPrefix, slash) != 0) {
      fail(p, PBC_ERR_JSON_VALUE);
      return;
    }
    uint8_t *decoded = pbc_arena_alloc(arena(p), info->desc->size ? info->desc->size : 1);
    if (decoded == NULL) {
      fail(p, PBC_ERR_OUT_OF_MEMORY);
      return;
    }
    pbc_decode_options o = {0};
    /* What nesting is left (0 would mean the default). */
    o.max_depth = p->max_depth > p->depth ? p->max_depth - p->depth : 1;
    o.allow_missing_required = true;
    pbc_status s = pbc_table_decode(info->desc, decoded, value.data, value.size,
                                    arena(p), &o);
    if (s != PBC_OK) {
      fail(p, s == PBC_ERR_OUT_OF_MEMORY || s == PBC_ERR_ARENA_LIMIT ? s
                                                                    : PBC_ERR_JSON_VALUE);
      return;
    }
    v = decoded;
  }
  bool first = true;
  prefix(p, at);
  begin(p, '{');
  if (url.size != 0) {
    slot type = member(&first, "@type", 5);
    prefix(p, &type);
    put_quoted(p, url.data, url.size);
  }
  if (v != NULL) {
    if (pbc_json_wkt_of(info->desc) != WKT_NONE) {
      slot inner = member(&first, "value", 5);
      put_message(p, &inner, info->desc, v);
    } else if (info->desc->flags & PBC_MESSAGE_NO_NAMES) {
      fail(p, PBC_ERR_NO_NAMES);
    } else {
      p->depth++;
      put_members(p, &first, info->desc, v);
      p->depth--;
    }
  }
  end(p, '}', first);
}

static void put_message(printer *p, const slot *at, const pbc_message_desc *d,
                        const uint8_t *m) {
  if (p->status != PBC_OK) return;
  if (d->flags & PBC_MESSAGE_NO_NAMES) {
    fail(p, PBC_ERR_NO_NAMES);
    return;
  }
  if (p->depth >= p->max_depth) {
    fail(p, PBC_ERR_DEPTH_LIMIT);
    return;
  }
  p->depth++;
  switch (pbc_json_wkt_of(d)) {
  case WKT_ANY: put_any(p, at, d, m); break;
  case WKT_TIMESTAMP: put_timestamp(p, at, d, m); break;
  case WKT_DURATION: put_duration(p, at, d, m); break;
  case WKT_FIELD_MASK: put_field_mask(p, at, d, m); break;
  case WKT_STRUCT: put_struct(p, at, d, m, false); break;
  case WKT_LIST_VALUE: put_struct(p, at, d, m, true); break;
  case WKT_VALUE: put_struct_value(p, at, d, m); break;
  case WKT_WRAPPER:
    put_field_value(p, at, d, pbc_json_wrapped(d), m + pbc_json_wrapped(d)->offset, false);
    break;
  default: {
    bool first = true;
    prefix(p, at);
    begin(p, '{');
    put_members(p, &first, d, m);
    end(p, '}', first);
  }
  }
  p->depth--;
}

/* ---- What the compiled printer calls (pbc_rt.h) -------------------------
 * The pieces of punctuation are a few instructions that LLVM inlines into
 * pbc__T_json from the runtime's bitcode: a constant member name becomes a
 * room test and a few wide stores. The values are calls (noinline): their
 * bodies, and the printer behind the map and message ones, stay in the
 * runtime's object instead of being copied into every generated one. */

void pbc_json_put(printer *p, const void *s, size_t n) { put(p, s, n); }

bool pbc_json_proto_names(printer *p) { return p->proto_names; }

/* The mark is where the opening bracket goes: the first member's comma,
 * overwritten by the end when it is in the buffer (counted past its end,
 * it is not there to overwrite, and the length is the same). */
static size_t begin_compiled(printer *p) { return p->out.len; }

static void end_compiled(printer *p, size_t mark, char open, char close) {
  if (p->status != PBC_OK) return;
  if (p->out.len == mark) {
    char both[2] = {open, close};
    put(p, both, 2);
    return;
  }
  if (mark < p->out.cap) p->out.buf[mark] = open;
  put(p, &close, 1);
}

size_t pbc_json_begin_object(printer *p) {
  if (p->status != PBC_OK) return SIZE_MAX;
  if (p->depth >= p->max_depth) {
    fail(p, PBC_ERR_DEPTH_LIMIT);
    return SIZE_MAX;
  }
  p->depth++;
  return begin_compiled(p);
}

void pbc_json_end_object(printer *p, size_t mark) {
  p->depth--;
  end_compiled(p, mark, '{', '}');
}

size_t pbc_json_begin_list(printer *p) { return begin_compiled(p); }

void pbc_json_end_list(printer *p, size_t mark) {
  end_compiled(p, mark, '[', ']');
}

PBC_NOINLINE void pbc_json_put_i32(printer *p, int32_t v) {
  put_int(p, &kValue, (uint64_t)(int64_t)v, true, false);
}
PBC_NOINLINE void pbc_json_put_u32(printer *p, uint32_t v) {
  put_int(p, &kValue, v, false, false);
}
PBC_NOINLINE void pbc_json_put_i64(printer *p, uint64_t v) {
  put_int(p, &kValue, v, true, true);
}
PBC_NOINLINE void pbc_json_put_u64(printer *p, uint64_t v) {
  put_int(p, &kValue, v, false, true);
}
PBC_NOINLINE void pbc_json_put_double(printer *p, uint64_t bits) {
  double d;
  memcpy(&d, &bits, 8);
  put_real(p, &kValue, d, false);
}
PBC_NOINLINE void pbc_json_put_float(printer *p, uint32_t bits) {
  float f;
  memcpy(&f, &bits, 4);
  put_real(p, &kValue, f, true);
}
void pbc_json_put_bool(printer *p, bool v) {
  put(p, v ? "true" : "false", v ? 4 : 5);
}
PBC_NOINLINE void pbc_json_put_run(printer *p, uint32_t type,
                                   const uint8_t *data, size_t n) {
  put_run(p, (uint8_t)type, data, n, true);
}
PBC_NOINLINE void pbc_json_put_string(printer *p, const uint8_t *s, size_t n) {
  put_quoted(p, s, n);
}
PBC_NOINLINE void pbc_json_put_bytes(printer *p, const uint8_t *s, size_t n) {
  put_base64(p, &kValue, s, n);
}
PBC_NOINLINE void pbc_json_put_enum(printer *p, const pbc_enum_info *e, int32_t v) {
  put_enum(p, &kValue, e, v);
}

PBC_NOINLINE void pbc_json_put_field(printer *p, const pbc_message_desc *d, uint32_t index,
                        const void *m) {
  bool first = false; /* the comma, as the compiled members write it */
  if (p->status == PBC_OK) put_field(p, &first, d, index, m);
}

PBC_NOINLINE void pbc_json_put_message(const pbc_message_desc *d, const void *m,
                          printer *p) {
  put_message(p, &kValue, d, m);
}

static pbc_status print(printer *p, const pbc_message_info *info,
                        const void *m, const pbc_json_options *o) {
  if (o != NULL) {
    p->whitespace = o->add_whitespace;
    p->always = o->always_print_primitive_fields;
    p->enum_ints = o->always_print_enums_as_ints;
    p->proto_names = o->preserve_proto_field_names;
    p->max_depth = o->max_depth;
    p->find_message = o->find_message;
    p->find_message_ctx = o->find_message_ctx;
    p->extensions.list = o->extensions;
    p->extensions.count = o->extension_count;
  }
  if (p->max_depth == 0) p->max_depth = PBC_DEFAULT_MAX_DEPTH;
  /* The compiled printer takes the text in one buffer (it turns the
   * first comma of each object into its brace afterwards) and prints
   * without whitespace or fields at their defaults. */
  if (info->json_printer != NULL && p->out.w == NULL && !p->whitespace &&
      !p->always)
    ((void (*)(const void *, printer *))info->json_printer)(m, p);
  else
    put_message(p, &kValue, info->desc, (const uint8_t *)m);
  if (p->has_arena) pbc_arena_destroy(&p->arena);
  return p->status;
}

pbc_status pbc_json_print(const pbc_message_info *info, const void *m,
                          char *buf, size_t cap, size_t *written,
                          const pbc_json_options *options) {
  printer p = {.out = {.buf = buf, .cap = buf ? cap : 0},
               .fast_end = buf ? cap : 0};
  return pbc_sink_finish(&p.out, print(&p, info, m, options), written);
}

pbc_status pbc_json_write(const pbc_message_info *info, const void *m,
                          pbc_writer *w, const pbc_json_options *options) {
  printer p = {.out = {.w = w}};
  return pbc_sink_finish(&p.out, print(&p, info, m, options), NULL);
}
