/* Text format parsing (pbc/text.h): libprotobuf 3.21's TextFormat::Parser
 * over a message's description.
 *
 * The parser does not build the message itself: it transcodes the text to
 * the binary wire format, field by field in the order written, and hands
 * that to the table decoder (pbc_table_decode). Text and wire hold the
 * same fields with the same merge rules (a later singular value replaces
 * an earlier one, repeated values append, a map keeps the last value of a
 * key), so one decoder keeps repeated fields, oneofs, maps, defaults and
 * the required check in one place, and a message's text costs one more
 * pass over its bytes. What the wire cannot say the parser checks itself,
 * where the text still tells the line and column: names, value ranges,
 * closed enums, UTF-8, nesting, and libprotobuf's rule that a singular
 * field (or a oneof) is given once.
 *
 * A message value's length is written after its fields, into one byte
 * kept for it; a longer length moves the fields up (a copy per nesting
 * level at most, and text is far larger than its wire form). */
#include <assert.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbc/text.h"
#include "text_lex.h"
#include "wire_build.h"

typedef struct parser {
  pbc_lexer lx;
  pbc_wire_build wb; /* the wire form so far */
  uint32_t depth, max_depth;
  bool allow_field_number, allow_partial;
  pbc_message_finder find_message; /* an Any's type: NULL: linked ones */
  const void *find_message_ctx;
  pbc_rt_extensions extensions; /* pbc_text_parse_options.extensions */
} parser;

#define TRY(x)                                                                 \
  do {                                                                         \
    if (!(x)) return false;                                                    \
  } while (0)

/* Errors at the current token, as TextFormat's ReportError. */
#define FAIL_AT_TOKEN(ps, status, ...)                                         \
  pbc_text_fail(&(ps)->lx, status, (ps)->lx.cur.line, (ps)->lx.cur.column,     \
                __VA_ARGS__)
#define SYNTAX(ps, ...) FAIL_AT_TOKEN(ps, PBC_ERR_TEXT_SYNTAX, __VA_ARGS__)

static bool out_of_memory(parser *ps) {
  return pbc_text_fail(&ps->lx, PBC_ERR_OUT_OF_MEMORY, ps->lx.cur.line,
                       ps->lx.cur.column, "Out of memory.");
}

/* ---- Tokens ------------------------------------------------------------- */

static bool next(parser *ps) { return pbc_lex_next(&ps->lx); }

static bool try_consume(parser *ps, const char *s) {
  if (!pbc_lex_at(&ps->lx, s)) return false;
  return next(ps);
}

/* An optional symbol: false only on a lexer error. */
static bool skip_optional(parser *ps, const char *s) {
  try_consume(ps, s);
  return !ps->lx.failed;
}

static bool consume(parser *ps, const char *s) {
  if (!pbc_lex_at(&ps->lx, s))
    return SYNTAX(ps, "Expected \"%s\", found \"%.*s\".", s,
                  (int)ps->lx.cur.len, ps->lx.cur.text);
  return next(ps);
}

/* ConsumeIdentifier: an identifier, or with field numbers allowed an
 * integer; the token it took in *name. */
static bool consume_identifier(parser *ps, pbc_token *name) {
  pbc_tok_type t = ps->lx.cur.type;
  if (t == PBC_TOK_IDENT || (ps->allow_field_number && t == PBC_TOK_INT)) {
    *name = ps->lx.cur;
    return next(ps);
  }
  return SYNTAX(ps, "Expected identifier, got: %.*s", (int)ps->lx.cur.len,
                ps->lx.cur.text);
}

/* A growable string for names made of several tokens. */
typedef struct name_buf {
  char *data;
  size_t len, cap;
} name_buf;

static bool name_append(parser *ps, name_buf *b, const char *s, size_t n) {
  if (b->cap - b->len < n + 1) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap - b->len < n + 1) cap *= 2;
    char *p = realloc(b->data, cap);
    if (p == NULL) return out_of_memory(ps);
    b->data = p;
    b->cap = cap;
  }
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
  return true;
}

/* ConsumeFullTypeName: ident(.ident)*, appended to *b as the identifiers
 * joined by dots (whatever space or comments stand between the tokens). */
static bool consume_type_name(parser *ps, name_buf *b) {
  pbc_token part = {0};
  TRY(consume_identifier(ps, &part));
  TRY(name_append(ps, b, part.text, part.len));
  while (pbc_lex_at(&ps->lx, ".")) {
    TRY(next(ps));
    TRY(consume_identifier(ps, &part));
    TRY(name_append(ps, b, ".", 1) && name_append(ps, b, part.text, part.len));
  }
  return true;
}

/* ConsumeUnsignedInteger. */
static bool consume_unsigned(parser *ps, uint64_t max, uint64_t *v) {
  const pbc_token *t = &ps->lx.cur;
  if (t->type != PBC_TOK_INT)
    return SYNTAX(ps, "Expected integer, got: %.*s", (int)t->len, t->text);
  if (!pbc_lex_integer(t->text, t->len, max, v))
    return SYNTAX(ps, "Integer out of range (%.*s)", (int)t->len, t->text);
  return next(ps);
}

/* ConsumeSignedInteger: a '-' token allows one more than max. */
static bool consume_signed(parser *ps, uint64_t max, int64_t *v) {
  bool negative = try_consume(ps, "-");
  if (ps->lx.failed) return false;
  uint64_t u;
  TRY(consume_unsigned(ps, max + negative, &u));
  *v = negative ? (int64_t)(0 - u) : (int64_t)u;
  return true;
}

/* Whether a token's text is `s`. */
static bool token_is(const pbc_token *t, const char *s) {
  size_t n = strlen(s);
  return t->len == n && memcmp(t->text, s, n) == 0;
}

/* Whether a token's text is `s` ignoring ASCII case (`s` lower case). */
static bool token_is_lower(const pbc_token *t, const char *s) {
  size_t n = strlen(s);
  if (t->len != n) return false;
  for (size_t i = 0; i < n; i++) {
    char c = t->text[i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != s[i]) return false;
  }
  return true;
}

/* ConsumeDouble: [-] integer, float, inf, infinity or nan. */
static bool consume_double(parser *ps, double *v) {
  bool negative = try_consume(ps, "-");
  if (ps->lx.failed) return false;
  const pbc_token *t = &ps->lx.cur;
  if (t->type == PBC_TOK_INT) {
    /* ConsumeUnsignedDecimalAsDouble */
    if (t->len >= 2 && t->text[0] == '0' &&
        (t->text[1] == 'x' || t->text[1] == 'X' ||
         (t->text[1] >= '0' && t->text[1] < '8')))
      return SYNTAX(ps, "Expect a decimal number, got: %.*s", (int)t->len,
                    t->text);
    uint64_t u;
    *v = pbc_lex_integer(t->text, t->len, UINT64_MAX, &u)
             ? (double)u
             : pbc_lex_float(t->text, t->len);
  } else if (t->type == PBC_TOK_FLOAT) {
    *v = pbc_lex_float(t->text, t->len);
  } else if (t->type == PBC_TOK_IDENT) {
    if (token_is_lower(t, "inf") || token_is_lower(t, "infinity"))
      *v = __builtin_inf();
    else if (token_is_lower(t, "nan"))
      *v = __builtin_nan("");
    else {
      /* libprotobuf names the identifier lower-cased. */
      char lower[sizeof ps->lx.error->message];
      size_t n = t->len < sizeof lower ? t->len : sizeof lower - 1;
      for (size_t i = 0; i < n; i++) {
        char c = t->text[i];
        lower[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
      }
      return SYNTAX(ps, "Expected double, got: %.*s", (int)n, lower);
    }
  } else {
    return SYNTAX(ps, "Expected double, got: %.*s", (int)t->len, t->text);
  }
  TRY(next(ps));
  if (negative) *v = -*v;
  return true;
}

/* io::SafeDoubleToFloat: out of float's range is infinite, except that
 * what rounds to FLT_MAX's printed form (3.4028235e+38) is FLT_MAX. */
static float double_to_float(double v) {
  const double max_rounded = 3.4028235677973366e+38;
  if (v > FLT_MAX) return v <= max_rounded ? FLT_MAX : __builtin_inff();
  if (v < -FLT_MAX) return v >= -max_rounded ? -FLT_MAX : -__builtin_inff();
  return (float)v;
}

/* ---- The wire form (wire_build.h) --------------------------------------- */

/* Each reports a want of memory at the current token. */
static bool put_varint(parser *ps, uint64_t v) {
  return pbc_wb_varint(&ps->wb, v) || out_of_memory(ps);
}

static bool put_tag(parser *ps, uint32_t number, pbc_wire_type wire) {
  return pbc_wb_tag(&ps->wb, number, wire) || out_of_memory(ps);
}

static bool open_len(parser *ps, size_t *at) {
  return pbc_wb_open_len(&ps->wb, at) || out_of_memory(ps);
}

static bool close_len(parser *ps, size_t at) {
  pbc_status s = pbc_wb_close_len(&ps->wb, at);
  if (s == PBC_ERR_TOO_LARGE)
    return FAIL_AT_TOKEN(ps, s, "Message is 2 GiB or more.");
  return s == PBC_OK || out_of_memory(ps);
}

static bool frame_push(parser *ps, const pbc_message_desc *d, size_t *frame) {
  return pbc_wb_frame_push(&ps->wb, d, frame) || out_of_memory(ps);
}

/* ---- Values ------------------------------------------------------------- */

static bool parse_message(parser *ps, const pbc_message_desc *d,
                          const char *close);

/* ConsumeString: one or more string tokens, concatenated, as a LEN value;
 * *nonempty for the presence rule. */
static bool parse_string(parser *ps, const pbc_message_desc *d,
                         const pbc_field_desc *f, bool *nonempty) {
  const pbc_token *t = &ps->lx.cur;
  if (t->type != PBC_TOK_STRING)
    return SYNTAX(ps, "Expected string, got: %.*s", (int)t->len, t->text);
  uint32_t line = t->line, column = t->column;
  size_t at = 0;
  TRY(put_tag(ps, f->number, PBC_WIRE_LEN));
  TRY(open_len(ps, &at));
  while (ps->lx.cur.type == PBC_TOK_STRING) {
    TRY(pbc_wb_reserve(&ps->wb, t->len) || out_of_memory(ps));
    long n = pbc_lex_unescape(t->text, t->len, ps->wb.out + ps->wb.len);
    if (n < 0)
      return SYNTAX(ps, "Unicode escape of a surrogate or beyond U+10FFFF.");
    ps->wb.len += (size_t)n;
    TRY(next(ps));
  }
  size_t n = ps->wb.len - at - 1;
  if ((f->flags & PBC_FIELD_UTF8) &&
      !pbc_rt_utf8_valid(ps->wb.out + at + 1, n))
    return pbc_text_fail(&ps->lx, PBC_ERR_INVALID_UTF8, line, column,
                         "String field \"%s\" is not valid UTF-8.",
                         pbc_field_name(d, f));
  *nonempty = n != 0;
  return close_len(ps, at);
}

/* An enum value by name, or by number ([-] integer): a closed enum takes
 * only its own values. */
static bool parse_enum(parser *ps, const pbc_message_desc *d,
                       const pbc_field_desc *f, int64_t *v) {
  const pbc_enum_info *e = pbc_field_enum(d, f);
  const pbc_token *t = &ps->lx.cur;
  if (t->type == PBC_TOK_IDENT) {
    pbc_token name = *t;
    TRY(next(ps));
    int32_t number;
    if (!pbc_enum_value_by_name(e, name.text, name.len, &number))
      return SYNTAX(ps, "Unknown enumeration value of \"%.*s\" for field "
                        "\"%s\".",
                    (int)name.len, name.text, pbc_field_name(d, f));
    *v = number;
    return true;
  }
  if (t->type != PBC_TOK_INT && !pbc_lex_at(&ps->lx, "-"))
    return SYNTAX(ps, "Expected integer or identifier, got: %.*s",
                  (int)t->len, t->text);
  TRY(consume_signed(ps, INT32_MAX, v));
  if ((f->flags & PBC_FIELD_CLOSED_ENUM) &&
      !pbc_tbl_enum_declares(e, (int32_t)*v))
    return SYNTAX(ps, "Unknown enumeration value of \"%lld\" for field "
                      "\"%s\".",
                  (long long)*v, pbc_field_name(d, f));
  return true;
}

/* ConsumeFieldValue for a scalar, string or bytes field: its tag and
 * value; *nonzero for the presence rule of a field without presence. */
static bool parse_value(parser *ps, const pbc_message_desc *d,
                        const pbc_field_desc *f, bool *nonzero) {
  if (pbc_tbl_is_view(f)) return parse_string(ps, d, f, nonzero);
  uint64_t bits;
  int64_t s;
  switch ((pbc_field_type)f->type) {
  case PBC_TYPE_INT32: case PBC_TYPE_SINT32: case PBC_TYPE_SFIXED32:
    TRY(consume_signed(ps, INT32_MAX, &s));
    bits = (uint64_t)s;
    break;
  case PBC_TYPE_INT64: case PBC_TYPE_SINT64: case PBC_TYPE_SFIXED64:
    TRY(consume_signed(ps, INT64_MAX, &s));
    bits = (uint64_t)s;
    break;
  case PBC_TYPE_UINT32: case PBC_TYPE_FIXED32:
    TRY(consume_unsigned(ps, UINT32_MAX, &bits));
    break;
  case PBC_TYPE_UINT64: case PBC_TYPE_FIXED64:
    TRY(consume_unsigned(ps, UINT64_MAX, &bits));
    break;
  case PBC_TYPE_DOUBLE: {
    double v;
    TRY(consume_double(ps, &v));
    memcpy(&bits, &v, 8);
    break;
  }
  case PBC_TYPE_FLOAT: {
    double v;
    TRY(consume_double(ps, &v));
    float x = double_to_float(v);
    uint32_t b32;
    memcpy(&b32, &x, 4);
    bits = b32;
    break;
  }
  case PBC_TYPE_BOOL:
    if (ps->lx.cur.type == PBC_TOK_INT) {
      TRY(consume_unsigned(ps, 1, &bits));
    } else {
      pbc_token name = {0};
      TRY(consume_identifier(ps, &name));
      if (token_is(&name, "true") || token_is(&name, "True") ||
          token_is(&name, "t"))
        bits = 1;
      else if (token_is(&name, "false") || token_is(&name, "False") ||
               token_is(&name, "f"))
        bits = 0;
      else
        return SYNTAX(ps, "Invalid value for boolean field \"%s\". Value: "
                          "\"%.*s\".",
                      pbc_field_name(d, f), (int)name.len, name.text);
    }
    break;
  case PBC_TYPE_ENUM:
    TRY(parse_enum(ps, d, f, &s));
    bits = (uint64_t)s;
    break;
  default:
    assert(0 && "messages take parse_submessage");
    return false;
  }
  *nonzero = bits != 0;
  return pbc_wb_scalar(&ps->wb, f, bits) || out_of_memory(ps);
}

/* `{` or `<`; the closing symbol in *close. */
static bool open_delimiter(parser *ps, const char **close) {
  if (try_consume(ps, "<")) {
    *close = ">";
    return true;
  }
  TRY(!ps->lx.failed);
  *close = "}";
  return consume(ps, "{");
}

static bool enter(parser *ps) {
  if (ps->depth >= ps->max_depth)
    return FAIL_AT_TOKEN(ps, PBC_ERR_DEPTH_LIMIT,
                         "Message is too deep, the parser exceeded the "
                         "configured recursion limit of %u.",
                         (unsigned)ps->max_depth);
  ps->depth++;
  return true;
}

/* An extension's message from `at` on, canonical. Required fields are the
 * whole message's check's business (pbc_wb_decode's), as for any field. */
static bool canonicalize_kept(parser *ps, const pbc_message_desc *type,
                              size_t at) {
  pbc_status s = pbc_wb_canonicalize(&ps->wb, type, at, ps->max_depth, true);
  return s == PBC_OK ||
         FAIL_AT_TOKEN(ps, s, "Cannot write the value of type \"%s\": %s.",
                       pbc_message_full_name(type), pbc_status_str(s));
}

/* ConsumeFieldMessage: a message or group value, `{...}` or `<...>`. A
 * value the decoder keeps as raw bytes (`kept`: an extension's) is written
 * canonical, as libprotobuf writes the message it parses; the decoder
 * makes every other value canonical. */
static bool parse_submessage(parser *ps, const pbc_message_desc *d,
                             const pbc_field_desc *f, bool kept) {
  TRY(enter(ps));
  const char *close;
  TRY(open_delimiter(ps, &close));
  bool group = f->type == PBC_TYPE_GROUP;
  size_t at = 0;
  TRY(put_tag(ps, f->number, group ? PBC_WIRE_START_GROUP : PBC_WIRE_LEN));
  if (!group) TRY(open_len(ps, &at));
  size_t fields = group ? ps->wb.len : at + 1;
  const pbc_message_desc *type = pbc_tbl_link_message(d, f);
  TRY(parse_message(ps, type, close));
  if (kept) TRY(canonicalize_kept(ps, type, fields));
  ps->depth--;
  return group ? put_tag(ps, f->number, PBC_WIRE_END_GROUP) : close_len(ps, at);
}

/* ---- google.protobuf.Any's expanded form -------------------------------- */

/* The message's canonical bytes in place of the wire form from `at` on
 * (fields in text order): what libprotobuf stores in Any.value, which it
 * serializes from a message. */
static bool canonicalize(parser *ps, const pbc_message_desc *type, size_t at,
                         const char *type_name) {
  pbc_status s = pbc_wb_canonicalize(&ps->wb, type, at, ps->max_depth,
                                     ps->allow_partial);
  if (s == PBC_ERR_MISSING_REQUIRED)
    return SYNTAX(ps, "Value of type \"%s\" stored in google.protobuf.Any has "
                      "missing required fields",
                  type_name);
  if (s != PBC_OK)
    return FAIL_AT_TOKEN(ps, s, "Cannot store the value of type \"%s\" in "
                                "google.protobuf.Any: %s.",
                         type_name, pbc_status_str(s));
  return true;
}

/* `[prefix/full.Name] { ... }` in an Any (after the `[`): its type_url
 * and, as value, the message's bytes. */
static bool parse_any(parser *ps, size_t frame) {
  /* The URL: the prefix (one of the two libprotobuf's default finder
   * knows), '/', the type's full name. */
  name_buf url = {0};
  size_t slash = 0;
  bool ok = consume_type_name(ps, &url) && consume(ps, "/") &&
            name_append(ps, &url, "/", 1);
  if (ok) {
    slash = url.len;
    ok = consume_type_name(ps, &url) && consume(ps, "]") &&
         skip_optional(ps, ":");
  }
  const pbc_message_info *info = NULL;
  if (ok) {
    if (pbc_tbl_any_prefix_known(url.data, slash))
      info = ps->find_message
                 ? ps->find_message(ps->find_message_ctx, url.data + slash)
                 : pbc_find_message(url.data + slash);
    if (info == NULL || info->desc == NULL)
      ok = SYNTAX(ps, "Could not find type \"%s\" stored in "
                      "google.protobuf.Any.",
                  url.data);
  }
  /* The value's wire form goes where the fields will, then moves up past
   * the type_url written before it. */
  size_t at = ps->wb.len;
  const char *close;
  ok = ok && enter(ps) && open_delimiter(ps, &close) &&
       parse_message(ps, info->desc, close) &&
       canonicalize(ps, info->desc, at, url.data + slash);
  if (ok) {
    ps->depth--;
    /* type_url is fields[0], value fields[1] (pbc_tbl_is_any). */
    if (pbc_wb_frame_has(&ps->wb, frame, 0) ||
        pbc_wb_frame_has(&ps->wb, frame, 1))
      ok = SYNTAX(ps, "Non-repeated Any specified multiple times.");
  }
  if (ok) {
    size_t value_len = ps->wb.len - at;
    ok = pbc_wb_any(&ps->wb, at, url.data, url.len) || out_of_memory(ps);
    if (ok) {
      pbc_wb_frame_set(&ps->wb, frame, 0);
      if (value_len) pbc_wb_frame_set(&ps->wb, frame, 1);
    }
  }
  free(url.data);
  return ok;
}

/* ---- Fields ------------------------------------------------------------- */

/* The field a name (or, allowed, a number) names, as ConsumeField finds
 * it: a group by its type's name, which is the field's name but for case. */
static const pbc_field_desc *find_field(const pbc_message_desc *d,
                                        const pbc_token *name) {
  if (name->type == PBC_TOK_INT) {
    /* safe_strto32: a decimal int32 (an octal-looking 010 is 10). */
    uint64_t n = 0;
    for (size_t i = 0; i < name->len; i++) {
      char c = name->text[i];
      if (c < '0' || c > '9') return NULL;
      n = n * 10 + (uint64_t)(c - '0');
      if (n > INT32_MAX) return NULL;
    }
    return pbc_field_by_number(d, (uint32_t)n);
  }
  const pbc_field_desc *f = pbc_field_by_name(d, name->text, name->len, false);
  if (f == NULL) {
    /* FindFieldByName(lower-cased name), for groups only. */
    for (uint32_t i = 0; i < d->field_count && d->field_names; i++) {
      const pbc_field_desc *g = &d->fields[i];
      if (g->type != PBC_TYPE_GROUP) continue;
      const char *n = pbc_field_name(d, g);
      if (strlen(n) != name->len) continue;
      size_t k = 0;
      for (; k < name->len; k++) {
        char c = name->text[k];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != n[k]) break;
      }
      if (k == name->len) {
        f = g;
        break;
      }
    }
  }
  if (f != NULL && f->type == PBC_TYPE_GROUP) {
    /* The group's type name (its full name's last part) as written. */
    const char *full = pbc_message_full_name(pbc_tbl_link_message(d, f));
    const char *dot = strrchr(full, '.');
    const char *type = dot ? dot + 1 : full;
    if (strlen(type) != name->len || memcmp(type, name->text, name->len) != 0)
      f = NULL;
  }
  return f;
}

/* One value of extension e, as its record: a field's, of the one-field
 * description `one` stands for it with; a MessageSet item around a
 * MessageSet extension's message (field 3 of the item). */
static bool parse_extension_value(parser *ps, const pbc_message_desc *one,
                                  const pbc_extension_info *e) {
  bool mset = (e->flags & PBC_EXTENSION_MESSAGE_SET) != 0;
  if (mset) {
    TRY(put_tag(ps, PBC_MSET_ITEM, PBC_WIRE_START_GROUP));
    TRY(put_tag(ps, PBC_MSET_TYPE_ID, PBC_WIRE_VARINT));
    TRY(put_varint(ps, e->number));
  }
  bool set;
  TRY(pbc_tbl_is_message(&one->fields[0])
          ? parse_submessage(ps, one, &one->fields[0], true)
          : parse_value(ps, one, &one->fields[0], &set));
  return !mset || put_tag(ps, PBC_MSET_ITEM, PBC_WIRE_END_GROUP);
}

/* ConsumeField for `[name]` (after the `]`), an extension of d: its values
 * go into the wire form as records the decoder keeps in the unknown
 * fields, where the extension's accessors read them. `name` as written,
 * for errors. */
static bool parse_extension(parser *ps, size_t frame,
                            const pbc_extension_info *e, const char *name) {
  bool repeated = (e->flags & PBC_EXTENSION_REPEATED) != 0;
  if (!repeated && pbc_wb_ext_has(&ps->wb, frame, e->number))
    return SYNTAX(ps, "Non-repeated field \"%s\" is specified multiple "
                      "times.",
                  name);
  pbc_wb_extension x;
  pbc_wb_extension_init(&x, e);
  const pbc_message_desc *one = &x.one;
  const pbc_field_desc *f = &x.field;

  bool message = pbc_tbl_is_message(f);
  TRY(message ? skip_optional(ps, ":") : consume(ps, ":"));
  if (repeated && pbc_lex_at(&ps->lx, "[")) {
    TRY(next(ps));
    if (!try_consume(ps, "]")) {
      for (;;) {
        TRY(!ps->lx.failed);
        TRY(parse_extension_value(ps, one, e));
        if (try_consume(ps, "]")) break;
        TRY(consume(ps, ","));
      }
    }
  } else {
    TRY(parse_extension_value(ps, one, e));
  }
  TRY(!ps->lx.failed);
  if (!repeated) TRY(pbc_wb_ext_set(&ps->wb, frame, e->number) || out_of_memory(ps));
  return pbc_lex_at(&ps->lx, ";") ? next(ps) : skip_optional(ps, ",");
}

/* ConsumeField. */
static bool parse_field(parser *ps, const pbc_message_desc *d, size_t frame) {
  if (pbc_lex_at(&ps->lx, "[")) {
    TRY(next(ps));
    if (pbc_tbl_is_any(d)) return parse_any(ps, frame);
    /* An extension of d the program links (or the options list), by its
     * full name (or, for a MessageSet item, its message's). */
    name_buf name = {0};
    bool ok = consume_type_name(ps, &name) && consume(ps, "]");
    const pbc_extension_info *e =
        ok ? pbc_rt_find_extension_named(d, &ps->extensions, name.data, name.len)
           : NULL;
    if (ok && e == NULL)
      ok = SYNTAX(ps, "Extension \"%s\" is not defined or is not an "
                      "extension of \"%s\".",
                  name.data, pbc_message_full_name(d));
    if (ok) ok = parse_extension(ps, frame, e, name.data);
    free(name.data);
    return ok;
  }
  pbc_token name = {0};
  TRY(consume_identifier(ps, &name));
  const pbc_field_desc *f = find_field(d, &name);
  if (f == NULL)
    return SYNTAX(ps, "Message type \"%s\" has no field named \"%.*s\".",
                  pbc_message_full_name(d), (int)name.len, name.text);
  uint32_t index = (uint32_t)(f - d->fields);
  bool repeated = f->kind == PBC_FIELD_REPEATED;
  if (!repeated && pbc_wb_frame_has(&ps->wb, frame, index))
    return SYNTAX(ps, "Non-repeated field \"%.*s\" is specified multiple "
                      "times.",
                  (int)name.len, name.text);
  if (f->kind == PBC_FIELD_ONEOF) {
    uint32_t other = *pbc_wb_frame_oneof(&ps->wb, d, frame, f->presence);
    if (other != 0)
      return SYNTAX(ps, "Field \"%.*s\" is specified along with field "
                        "\"%s\", another member of oneof \"%s\".",
                    (int)name.len, name.text,
                    pbc_field_name(d, &d->fields[other - 1]),
                    d->strings + d->oneofs[f->presence].name);
  }

  bool message = pbc_tbl_is_message(f);
  TRY(message ? skip_optional(ps, ":") : consume(ps, ":"));

  bool set = true;
  if (repeated && pbc_lex_at(&ps->lx, "[")) {
    /* The list form, "foo: [1, 2, 3]"; "foo: []" is no element. */
    TRY(next(ps));
    if (!try_consume(ps, "]")) {
      for (;;) {
        TRY(!ps->lx.failed);
        TRY(message ? parse_submessage(ps, d, f, false) : parse_value(ps, d, f, &set));
        if (try_consume(ps, "]")) break;
        TRY(consume(ps, ","));
      }
    }
  } else {
    TRY(message ? parse_submessage(ps, d, f, false) : parse_value(ps, d, f, &set));
  }
  TRY(!ps->lx.failed);

  /* A field without presence is present when its value is not zero
   * (-0.0 is), every other singular field once given. A proto3 map
   * entry's key and value have no presence (libprotobuf's descriptors). */
  bool implicit = f->kind == PBC_FIELD_IMPLICIT ||
                  (f->kind == PBC_FIELD_ALWAYS && !message &&
                   d->syntax == PBC_SYNTAX_PROTO3);
  if (!repeated && (!implicit || set)) pbc_wb_frame_set(&ps->wb, frame, index);
  /* (After the value: a sub-message's frame may have moved the stack.) */
  if (f->kind == PBC_FIELD_ONEOF)
    *pbc_wb_frame_oneof(&ps->wb, d, frame, f->presence) = index + 1;

  /* Fields may end with `;` or `,`. */
  return pbc_lex_at(&ps->lx, ";") ? next(ps) : skip_optional(ps, ",");
}

/* ConsumeMessage: fields up to `close` (NULL: the end of the text). */
static bool parse_message(parser *ps, const pbc_message_desc *d,
                          const char *close) {
  size_t frame = 0;
  TRY(frame_push(ps, d, &frame));
  for (;;) {
    if (close == NULL ? ps->lx.cur.type == PBC_TOK_END
                      : pbc_lex_at(&ps->lx, ">") || pbc_lex_at(&ps->lx, "}"))
      break;
    TRY(parse_field(ps, d, frame));
  }
  pbc_wb_frame_pop(&ps->wb, d);
  return close == NULL || consume(ps, close);
}

pbc_status pbc_text_parse(const pbc_message_info *info, void *m,
                          const char *text, size_t len, pbc_arena *arena,
                          const pbc_text_parse_options *options,
                          pbc_text_error *error) {
  const pbc_message_desc *d = info->desc;
  if (error) memset(error, 0, sizeof *error);
  parser ps;
  memset(&ps, 0, sizeof ps);
  ps.max_depth = options && options->max_depth ? options->max_depth
                                               : PBC_DEFAULT_MAX_DEPTH;
  ps.allow_field_number = options && options->allow_field_number;
  ps.allow_partial = options && options->allow_partial;
  if (options) {
    ps.find_message = options->find_message;
    ps.find_message_ctx = options->find_message_ctx;
    ps.extensions.list = options->extensions;
    ps.extensions.count = options->extension_count;
  }
  static const char empty[1];
  if (text == NULL) text = empty;
  pbc_lex_init(&ps.lx, text, len, error);

  pbc_status s;
  if (d->flags & PBC_MESSAGE_NO_NAMES) {
    pbc_table_init(d, m);
    s = PBC_ERR_NO_NAMES;
    if (error)
      snprintf(error->message, sizeof error->message,
               "Message type \"%s\" was compiled without field names "
               "(LITE_RUNTIME).",
               pbc_message_full_name(d));
  } else if (!ps.lx.failed && parse_message(&ps, d, NULL)) {
    s = pbc_wb_decode(&ps.wb, d, m, arena, ps.max_depth, ps.allow_partial,
                      error ? error->message : NULL,
                      error ? sizeof error->message : 0);
    if (s != PBC_OK && error) error->line = error->column = 0;
  } else {
    pbc_table_init(d, m);
    s = ps.lx.status;
  }
  pbc_wb_free(&ps.wb);
  return s;
}
