/* Text format printing (pbc/text.h): libprotobuf 3.21's TextFormat::Printer
 * from a message's description. The differential test prints every random
 * message of the difftest with both and compares the bytes. */
#include <assert.h>
#include <stdlib.h>

#include "pbc/text.h"
#include "print_internal.h"
#include "table_internal.h"

/* In one-line mode the space after a field waits in `space` until more
 * text follows, so the last one is never written. */
typedef struct printer {
  pbc_sink out;
  bool single_line, space;
  bool hide_unknown; /* pbc_text_options.hide_unknown_fields */
  bool expand_any;   /* pbc_text_options.expand_any */
  pbc_message_finder find_message; /* and its context: NULL: linked ones */
  const void *find_message_ctx;
  pbc_rt_extensions extensions; /* pbc_text_options.extensions */
  unsigned any_depth; /* Any values being printed expanded */
  unsigned indent;
  pbc_status status; /* NO_NAMES stops the output */
  /* Where extensions' values are read into (made on first use). */
  pbc_arena arena;
  bool has_arena;
} printer;

static void emit_raw(printer *p, const char *s, size_t n) {
  if (p->status == PBC_OK) pbc_sink_put(&p->out, s, n);
}

static void emit(printer *p, const char *s, size_t n) {
  if (p->space) {
    p->space = false;
    emit_raw(p, " ", 1);
  }
  emit_raw(p, s, n);
}

static void emit_str(printer *p, const char *s) { emit(p, s, strlen(s)); }

/* A field's line starts with its indentation; in one-line mode a space
 * ends what a newline ends. */
static void line_start(printer *p) {
  if (p->single_line) return;
  for (unsigned i = 0; i < p->indent; i++) emit(p, "  ", 2);
}
static void line_end(printer *p) {
  if (p->single_line) p->space = true;
  else emit(p, "\n", 1);
}

/* `name {` and the indentation inside; close_block the `}`. */
static void open_block(printer *p) {
  emit_str(p, " {");
  line_end(p);
  p->indent++;
}
static void close_block(printer *p) {
  p->indent--;
  line_start(p);
  emit(p, "}", 1);
  line_end(p);
}

/* ---- Values ------------------------------------------------------------- */

static void emit_u64(printer *p, uint64_t v) {
  char s[PBC_FORMAT_INT_ROOM];
  emit(p, s, pbc_format_u64(s, v));
}

static void emit_i64(printer *p, int64_t v) {
  char s[PBC_FORMAT_INT_ROOM];
  emit(p, s, pbc_format_i64(s, v));
}

static void emit_hex(printer *p, uint64_t v, unsigned digits) {
  char s[18] = "0x";
  for (unsigned i = 0; i < digits; i++)
    s[2 + i] = "0123456789abcdef"[(v >> (4 * (digits - 1 - i))) & 15];
  emit(p, s, 2 + digits);
}

/* pbc_format_real's digits; "inf", "-inf" and "nan" as libprotobuf's
 * SimpleDtoa writes them. */
static void emit_real(printer *p, double v, bool is_float) {
  if (v != v) {
    emit_str(p, "nan");
    return;
  }
  if (v == __builtin_inf() || v == -__builtin_inf()) {
    emit_str(p, v > 0 ? "inf" : "-inf");
    return;
  }
  char s[PBC_FORMAT_REAL_ROOM];
  emit(p, s, pbc_format_real(s, v, is_float));
}

/* libprotobuf's CEscape, in double quotes: runs of plain bytes at once. */
static void emit_quoted(printer *p, const uint8_t *s, size_t n) {
  emit(p, "\"", 1);
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t c = s[i];
    const char *esc = NULL;
    char oct[4];
    switch (c) {
    case '\n': esc = "\\n"; break;
    case '\r': esc = "\\r"; break;
    case '\t': esc = "\\t"; break;
    case '"': esc = "\\\""; break;
    case '\'': esc = "\\'"; break;
    case '\\': esc = "\\\\"; break;
    default:
      if (c >= 0x20 && c < 0x7f) continue;
      oct[0] = '\\';
      oct[1] = (char)('0' + (c >> 6));
      oct[2] = (char)('0' + ((c >> 3) & 7));
      oct[3] = (char)('0' + (c & 7));
      break;
    }
    emit(p, (const char *)s + run, i - run);
    if (esc) emit_str(p, esc);
    else emit(p, oct, 4);
    run = i + 1;
  }
  /* An empty view may have no data at all (NULL). */
  if (run < n) emit(p, (const char *)s + run, n - run);
  emit(p, "\"", 1);
}

/* An enum value by its name (pbc_enum_value_name's), else its number. */
static void emit_enum(printer *p, const pbc_enum_info *e, int32_t v) {
  const char *name = pbc_enum_value_name(e, v);
  if (name != NULL) emit_str(p, name);
  else emit_i64(p, v);
}

static void print_fields(printer *p, const pbc_message_desc *d,
                         const uint8_t *m);

/* A scalar, string or bytes value of that type after its `name: ` (an
 * enum's by its name in `e`). */
static void emit_scalar(printer *p, uint8_t type, const pbc_enum_info *e,
                        const uint8_t *at) {
  switch (type) {
  case PBC_TYPE_DOUBLE: {
    double v;
    memcpy(&v, at, 8);
    emit_real(p, v, false);
    break;
  }
  case PBC_TYPE_FLOAT: {
    float v;
    memcpy(&v, at, 4);
    emit_real(p, v, true);
    break;
  }
  case PBC_TYPE_INT64: case PBC_TYPE_SFIXED64: case PBC_TYPE_SINT64:
    emit_i64(p, (int64_t)pbc_tbl_load64(at));
    break;
  case PBC_TYPE_UINT64: case PBC_TYPE_FIXED64:
    emit_u64(p, pbc_tbl_load64(at));
    break;
  case PBC_TYPE_INT32: case PBC_TYPE_SFIXED32: case PBC_TYPE_SINT32:
    emit_i64(p, (int32_t)pbc_tbl_load32(at));
    break;
  case PBC_TYPE_UINT32: case PBC_TYPE_FIXED32:
    emit_u64(p, pbc_tbl_load32(at));
    break;
  case PBC_TYPE_BOOL:
    emit_str(p, *at ? "true" : "false");
    break;
  case PBC_TYPE_ENUM:
    emit_enum(p, e, (int32_t)pbc_tbl_load32(at));
    break;
  default: {
    assert(type == PBC_TYPE_STRING || type == PBC_TYPE_BYTES);
    pbc_bytes v = pbc_tbl_load_view(at);
    emit_quoted(p, v.data, v.size);
    break;
  }
  }
}

static void emit_value(printer *p, const pbc_message_desc *d,
                       const pbc_field_desc *f, const uint8_t *at) {
  emit_scalar(p, f->type,
              f->type == PBC_TYPE_ENUM ? pbc_field_enum(d, f) : NULL, at);
}

/* A field's name as text format spells it: a group by its message type's
 * name (the last part of its full name). */
static void emit_name(printer *p, const pbc_message_desc *d, uint32_t i) {
  const pbc_field_desc *f = &d->fields[i];
  if (f->type == PBC_TYPE_GROUP) {
    const char *full = pbc_message_full_name(pbc_tbl_link_message(d, f));
    const char *dot = strrchr(full, '.');
    emit_str(p, dot ? dot + 1 : full);
    return;
  }
  emit_str(p, pbc_field_name(d, f));
}

/* One value of field i (an element of a repeated one) on its line. */
static void print_one(printer *p, const pbc_message_desc *d, uint32_t i,
                      const uint8_t *at, bool element) {
  const pbc_field_desc *f = &d->fields[i];
  line_start(p);
  emit_name(p, d, i);
  if (pbc_tbl_is_message(f)) {
    /* A singular message is a pointer, an element the struct itself. */
    const uint8_t *sub = element ? at : pbc_tbl_load_ptr(at);
    open_block(p);
    if (sub != NULL) print_fields(p, pbc_tbl_link_message(d, f), sub);
    close_block(p);
    return;
  }
  emit(p, ": ", 2);
  emit_value(p, d, f, at);
  line_end(p);
}

/* ---- Maps, sorted by key ------------------------------------------------- */

/* A map's entries, sorted by key when memory allows (else as stored). */
static void print_map(printer *p, const pbc_message_desc *d, uint32_t i,
                      pbc_bytes v) {
  const pbc_field_desc *f = &d->fields[i];
  const pbc_message_desc *entry = pbc_tbl_link_message(d, f);
  size_t stride = entry->size;
  const uint8_t **order = malloc(2 * v.size * sizeof *order);
  if (order != NULL) {
    for (size_t k = 0; k < v.size; k++) order[k] = v.data + k * stride;
    assert(entry->field_count == 2 && entry->fields[0].number == 1);
    pbc_tbl_sort_entries(&entry->fields[0], order, order + v.size, v.size);
  }
  for (size_t k = 0; k < v.size; k++)
    print_one(p, d, i, order ? order[k] : v.data + k * stride, true);
  free(order);
}

/* ---- Unknown fields ------------------------------------------------------
 * Raw wire bytes, as libprotobuf's UnknownFieldSet holds them. A
 * length-delimited field prints as a message when its bytes parse as an
 * UnknownFieldSet would parse them (WireFormat::SkipMessage to the end):
 * tags of at most 10 bytes read as 32 bits, no field number 0, no wire
 * type 6 or 7, lengths read as 32 bits below 2^31, groups closed by their
 * own END_GROUP and nested at most `depth` deep, and no END_GROUP or zero
 * tag outside a group. */

/* Fields until end (group 0) or the END_GROUP of field `group`; *p after
 * them. */
static bool parses(const uint8_t **p, const uint8_t *end, uint32_t group,
                   unsigned depth) {
  while (*p < end) {
    uint64_t tag, v;
    if (!pbc_tbl_read_varint(p, end, &tag)) return false;
    uint32_t number = (uint32_t)tag >> 3;
    unsigned wt = (uint32_t)tag & 7;
    if ((uint32_t)tag == 0) return false;
    if (wt == PBC_WIRE_END_GROUP) return group != 0 && number == group;
    if (number == 0) return false;
    switch (wt) {
    case PBC_WIRE_VARINT:
      if (!pbc_tbl_read_varint(p, end, &v)) return false;
      break;
    case PBC_WIRE_FIXED64:
    case PBC_WIRE_FIXED32: {
      size_t n = wt == PBC_WIRE_FIXED64 ? 8 : 4;
      if ((size_t)(end - *p) < n) return false;
      *p += n;
      break;
    }
    case PBC_WIRE_LEN:
      if (!pbc_tbl_read_varint(p, end, &v)) return false;
      v = (uint32_t)v;
      if (v > INT32_MAX || v > (uint64_t)(end - *p)) return false;
      *p += v;
      break;
    case PBC_WIRE_START_GROUP:
      if (depth == 0 || !parses(p, end, number, depth - 1)) return false;
      break;
    default:
      return false;
    }
  }
  return group == 0;
}

static void print_unknown(printer *p, const uint8_t *s, const uint8_t *end,
                          unsigned budget);

/* Unknown fields from *s until end or the END_GROUP closing the group
 * (consumed). A decoder's unknown fields are well-formed; a struct a user
 * filled may hold anything, so every read is checked and printing stops at
 * the first thing that is not a field (or at groups nested `groups` deep). */
static bool print_unknown_fields(printer *p, const uint8_t **s,
                                 const uint8_t *end, unsigned budget,
                                 unsigned groups) {
  while (*s < end) {
    uint64_t tag, v;
    if (!pbc_tbl_read_varint(s, end, &tag)) return false;
    uint32_t number = (uint32_t)tag >> 3;
    unsigned wt = (uint32_t)tag & 7;
    if (wt == PBC_WIRE_END_GROUP) return true;
    if (wt > PBC_WIRE_FIXED32) return false;
    size_t fixed = wt == PBC_WIRE_FIXED64 ? 8 : wt == PBC_WIRE_FIXED32 ? 4 : 0;
    if ((size_t)(end - *s) < fixed) return false;
    line_start(p);
    emit_u64(p, number);
    switch (wt) {
    case PBC_WIRE_VARINT:
      if (!pbc_tbl_read_varint(s, end, &v)) return false;
      emit(p, ": ", 2);
      emit_u64(p, v);
      line_end(p);
      break;
    case PBC_WIRE_FIXED64:
    case PBC_WIRE_FIXED32:
      emit(p, ": ", 2);
      emit_hex(p, fixed == 8 ? pbc_tbl_load64(*s) : pbc_tbl_load32(*s),
               2 * (unsigned)fixed);
      *s += fixed;
      line_end(p);
      break;
    case PBC_WIRE_LEN: {
      /* Read as 32 bits, as parses() and libprotobuf read it. */
      if (!pbc_tbl_read_varint(s, end, &v)) return false;
      v = (uint32_t)v;
      if (v > (uint64_t)(end - *s)) return false;
      const uint8_t *body = *s, *probe = body;
      *s += v;
      if (v != 0 && budget > 0 && parses(&probe, *s, 0, budget)) {
        open_block(p);
        print_unknown(p, body, *s, budget - 1);
        close_block(p);
      } else {
        emit(p, ": ", 2);
        emit_quoted(p, body, (size_t)v);
        line_end(p);
      }
      break;
    }
    default: /* START_GROUP: nested without spending the budget */
      if (groups == 0) return false;
      open_block(p);
      bool ok = print_unknown_fields(p, s, end, budget, groups - 1);
      close_block(p);
      if (!ok) return false;
      break;
    }
  }
  return true;
}

static void print_unknown(printer *p, const uint8_t *s, const uint8_t *end,
                          unsigned budget) {
  print_unknown_fields(p, &s, end, budget, PBC_DEFAULT_MAX_DEPTH);
}

/* libprotobuf's kUnknownFieldRecursionLimit. */
enum { UNKNOWN_BUDGET = 10 };

/* ---- Messages ------------------------------------------------------------ */

/* An Any's value in place of its fields (Printer::PrintAny, under
 * SetExpandAny): `[type_url] {` and the value's fields, when the URL's
 * prefix is one libprotobuf's default finder takes, its type is a message
 * linked into the program (pbc_find_message) and the value decodes as one
 * (required fields included). Else false: the Any prints as any message.
 * Any values inside are expanded too, to a bounded depth. */
static bool print_any(printer *p, const pbc_message_desc *d, const uint8_t *m) {
  if (p->any_depth >= PBC_DEFAULT_MAX_DEPTH) return false;
  pbc_bytes url, value;
  size_t slash;
  const pbc_message_info *info = pbc_tbl_any_type(
      d, m, p->find_message, p->find_message_ctx, &url, &value, &slash);
  if (info == NULL || !pbc_tbl_any_prefix_known((const char *)url.data, slash))
    return false;
  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  void *v = pbc_arena_alloc(&arena, info->desc->size ? info->desc->size : 1);
  bool ok = v != NULL && pbc_table_decode(info->desc, v, value.data, value.size,
                                          &arena, NULL) == PBC_OK;
  if (ok) {
    line_start(p);
    emit(p, "[", 1);
    emit(p, (const char *)url.data, url.size);
    emit(p, "]", 1);
    open_block(p);
    p->any_depth++;
    print_fields(p, info->desc, v);
    p->any_depth--;
    close_block(p);
  }
  pbc_arena_destroy(&arena);
  return ok;
}

/* ---- Extensions ---------------------------------------------------------- */

/* One value of extension e (an element of a repeated one) on its line:
 * `[name]` where a field has its name. */
static void print_extension_value(printer *p, const pbc_extension_info *e,
                                  const uint8_t *at) {
  line_start(p);
  emit(p, "[", 1);
  emit_str(p, pbc_rt_extension_printable_name(e));
  emit(p, "]", 1);
  if (e->type == PBC_TYPE_MESSAGE || e->type == PBC_TYPE_GROUP) {
    open_block(p);
    print_fields(p, (const pbc_message_desc *)e->link, at);
    close_block(p);
    return;
  }
  emit(p, ": ", 2);
  emit_scalar(p, e->type,
              e->type == PBC_TYPE_ENUM ? (const pbc_enum_info *)e->link : NULL,
              at);
  line_end(p);
}

/* Extension e's values in m, as libprotobuf prints an extension: each
 * element of a repeated one, else the value (a message's occurrences
 * merged). */
static void print_extension(printer *p, const pbc_extension_info *e,
                            const uint8_t *m) {
  if (!p->has_arena) {
    pbc_arena_init(&p->arena, NULL, 0);
    p->has_arena = true;
  }
  _Alignas(16) uint8_t value[16];
  pbc_status s = pbc_extension_get(e, m, &p->arena, value);
  if (s != PBC_OK) {
    p->status = s;
    return;
  }
  bool message = e->type == PBC_TYPE_MESSAGE || e->type == PBC_TYPE_GROUP;
  if (!(e->flags & PBC_EXTENSION_REPEATED)) {
    print_extension_value(p, e, message ? pbc_tbl_load_ptr(value) : value);
    return;
  }
  pbc_bytes v = pbc_tbl_load_view(value);
  size_t stride = pbc_rt_extension_value_bytes(e);
  for (size_t k = 0; k < v.size; k++)
    print_extension_value(p, e, v.data + k * stride);
}

/* ---- Messages, continued --------------------------------------------------- */

static void print_fields(printer *p, const pbc_message_desc *d,
                         const uint8_t *m) {
  if (d->flags & PBC_MESSAGE_NO_NAMES) {
    p->status = PBC_ERR_NO_NAMES;
    return;
  }
  if (p->expand_any && pbc_tbl_is_any(d) && print_any(p, d, m)) return;
  /* The extensions the unknown fields hold print among the fields, by
   * number, and the rest of the unknown fields after them, as libprotobuf
   * prints a message whose parser knew the extensions. */
  pbc_bytes u = {NULL, 0};
  if (d->unknown_offset != PBC_NO_UNKNOWN_FIELDS)
    u = pbc_tbl_load_view(m + d->unknown_offset);
  const pbc_extension_info **exts = NULL;
  size_t ext_count = 0, next_ext = 0;
  uint8_t *rest = NULL;
  size_t rest_size = 0;
  if (u.size && pbc_rt_extensions_count(&p->extensions)) {
    if (!pbc_rt_split_extensions(d, &p->extensions, u.data, u.size, &exts,
                                 &ext_count, &rest, &rest_size)) {
      p->status = PBC_ERR_OUT_OF_MEMORY;
      return;
    }
    u.data = rest;
    u.size = rest_size;
  }
  for (uint32_t i = 0; i < d->field_count; i++) {
    const pbc_field_desc *f = &d->fields[i];
    while (next_ext < ext_count && exts[next_ext]->number < f->number)
      print_extension(p, exts[next_ext++], m);
    if (f->kind != PBC_FIELD_REPEATED) {
      /* A map entry's key and value always print (a message value
       * absent from the input as an empty one), as libprotobuf prints
       * the entries it makes from its map. */
      if (pbc_tbl_is_set(d, f, m) || (d->flags & PBC_MESSAGE_MAP_ENTRY))
        print_one(p, d, i, m + f->offset, false);
      continue;
    }
    pbc_bytes v = pbc_tbl_load_view(m + f->offset);
    if (f->flags & PBC_FIELD_MAP) {
      print_map(p, d, i, v);
      continue;
    }
    size_t stride = pbc_tbl_value_bytes(d, f);
    for (size_t k = 0; k < v.size; k++)
      print_one(p, d, i, v.data + k * stride, true);
  }
  while (next_ext < ext_count) print_extension(p, exts[next_ext++], m);
  if (u.size && !p->hide_unknown)
    print_unknown(p, u.data, u.data + u.size, UNKNOWN_BUDGET);
  free(exts);
  free(rest);
}

static pbc_status print(printer *p, const pbc_message_info *info,
                        const void *m, const pbc_text_options *options) {
  p->single_line = options != NULL && options->single_line;
  p->hide_unknown = options != NULL && options->hide_unknown_fields;
  p->expand_any = options != NULL && options->expand_any;
  if (options != NULL) {
    p->find_message = options->find_message;
    p->find_message_ctx = options->find_message_ctx;
    p->extensions.list = options->extensions;
    p->extensions.count = options->extension_count;
  }
  print_fields(p, info->desc, (const uint8_t *)m);
  if (p->has_arena) pbc_arena_destroy(&p->arena);
  return p->status;
}

pbc_status pbc_text_print(const pbc_message_info *info, const void *m,
                          char *buf, size_t cap, size_t *written,
                          const pbc_text_options *options) {
  printer p = {.out = {.buf = buf, .cap = buf ? cap : 0}};
  return pbc_sink_finish(&p.out, print(&p, info, m, options), written);
}

pbc_status pbc_text_write(const pbc_message_info *info, const void *m,
                          pbc_writer *w, const pbc_text_options *options) {
  printer p = {.out = {.w = w}};
  return pbc_sink_finish(&p.out, print(&p, info, m, options), NULL);
}
