/* Extensions (pbc.h, "Extensions"): values kept in the extendee's unknown
 * fields. Reading walks the unknown fields' records and takes the ones of
 * the extension as libprotobuf's parser would have (the wire type its type
 * is written with, or a packed run of a repeated scalar; a closed enum's
 * declared values); writing builds the extension's canonical records, as
 * libprotobuf's ExtensionSet serializes them, and splices them into a copy
 * of the unknown fields in the arena. */
#include <stdlib.h>
#include <string.h>

#include "pbc_rt.h"
#include "table_internal.h"

/* One record of the unknown fields. */
typedef struct record {
  uint32_t number; /* its field number; a MessageSet item's type_id */
  uint8_t wire;    /* a MessageSet item: PBC_WIRE_LEN (its message) */
  bool item;       /* a MessageSet item with a type_id and a message */
  const uint8_t *start, *end; /* the whole record */
  /* LEN: the payload; a group: its fields (without the END_GROUP tag);
   * fixed: the bytes; an item: its message */
  const uint8_t *data;
  size_t size;
  uint64_t varint; /* VARINT */
} record;

static bool skip_value(const uint8_t **p, const uint8_t *end, uint32_t number,
                       pbc_wire_type wire, unsigned depth);

/* Skips a group's fields after its START_GROUP tag (field `number`) and
 * its END_GROUP, where *fields_end is set. Nested groups count against
 * the decoders' depth limit, as they would in a decode. */
static bool skip_group(const uint8_t **p, const uint8_t *end, uint32_t number,
                       unsigned depth, const uint8_t **fields_end) {
  if (depth > PBC_DEFAULT_MAX_DEPTH) return false;
  for (;;) {
    const uint8_t *at = *p;
    uint64_t tag;
    if (!pbc_tbl_read_varint(p, end, &tag) || tag > UINT32_MAX) return false;
    uint32_t n = pbc_tag_field_number((uint32_t)tag);
    pbc_wire_type wire = pbc_tag_wire_type((uint32_t)tag);
    if (n == 0) return false;
    if (wire == PBC_WIRE_END_GROUP) {
      *fields_end = at;
      return n == number;
    }
    if (!skip_value(p, end, n, wire, depth)) return false;
  }
}

static bool skip_value(const uint8_t **p, const uint8_t *end, uint32_t number,
                       pbc_wire_type wire, unsigned depth) {
  uint64_t v;
  const uint8_t *fields_end;
  switch (wire) {
  case PBC_WIRE_VARINT:
    return pbc_tbl_read_varint(p, end, &v);
  case PBC_WIRE_FIXED64:
  case PBC_WIRE_FIXED32: {
    size_t n = wire == PBC_WIRE_FIXED64 ? 8 : 4;
    if ((size_t)(end - *p) < n) return false;
    *p += n;
    return true;
  }
  case PBC_WIRE_LEN:
    if (!pbc_tbl_read_varint(p, end, &v) || v > (uint64_t)(end - *p))
      return false;
    *p += v;
    return true;
  case PBC_WIRE_START_GROUP:
    return skip_group(p, end, number, depth + 1, &fields_end);
  default:
    return false;
  }
}

/* A MessageSet item's type_id and message, in either order (libprotobuf
 * reads both); the last of each counts. */
static void read_item(record *r) {
  const uint8_t *p = r->data, *end = r->data + r->size;
  bool has_id = false, has_message = false;
  uint64_t id = 0;
  while (p < end) {
    uint64_t tag;
    if (!pbc_tbl_read_varint(&p, end, &tag) || tag > UINT32_MAX) return;
    uint32_t n = pbc_tag_field_number((uint32_t)tag);
    pbc_wire_type wire = pbc_tag_wire_type((uint32_t)tag);
    const uint8_t *value = p;
    if (n == 0 || !skip_value(&p, end, n, wire, 1)) return;
    if (n == PBC_MSET_TYPE_ID && wire == PBC_WIRE_VARINT) {
      pbc_tbl_read_varint(&value, end, &id);
      has_id = true;
    } else if (n == PBC_MSET_MESSAGE && wire == PBC_WIRE_LEN) {
      uint64_t len = 0;
      pbc_tbl_read_varint(&value, end, &len);
      r->data = value;
      r->size = (size_t)len;
      has_message = true;
    }
  }
  if (!has_id || !has_message || id == 0 || id > PBC_MAX_FIELD_NUMBER) return;
  r->item = true;
  r->number = (uint32_t)id;
  r->wire = PBC_WIRE_LEN;
}

/* The record at *p, which it advances; false at the end or where the
 * bytes are not a record (the walk stops there). `mset`: the extendee is
 * a MessageSet, whose items are read as the extensions they hold. */
static bool next_record(const uint8_t **p, const uint8_t *end, bool mset,
                        record *r) {
  if (*p >= end) return false;
  r->start = *p;
  r->item = false;
  uint64_t tag;
  if (!pbc_tbl_read_varint(p, end, &tag) || tag > UINT32_MAX) return false;
  r->number = pbc_tag_field_number((uint32_t)tag);
  r->wire = (uint8_t)pbc_tag_wire_type((uint32_t)tag);
  if (r->number == 0) return false;
  const uint8_t *value = *p;
  if (!skip_value(p, end, r->number, (pbc_wire_type)r->wire, 0)) return false;
  r->end = *p;
  switch (r->wire) {
  case PBC_WIRE_VARINT:
    pbc_tbl_read_varint(&value, end, &r->varint);
    break;
  case PBC_WIRE_LEN: {
    uint64_t len = 0;
    pbc_tbl_read_varint(&value, end, &len);
    r->data = value;
    r->size = (size_t)len;
    break;
  }
  case PBC_WIRE_START_GROUP: {
    const uint8_t *fields_end = value;
    skip_group(&fields_end, end, r->number, 1, &fields_end);
    r->data = value;
    r->size = (size_t)(fields_end - value);
    if (mset && r->number == PBC_MSET_ITEM) read_item(r);
    break;
  }
  default: /* fixed */
    r->data = value;
    r->size = (size_t)(r->end - value);
    break;
  }
  return true;
}

static bool is_mset(const pbc_extension_info *e) {
  return (e->flags & PBC_EXTENSION_MESSAGE_SET) != 0;
}

static bool is_repeated(const pbc_extension_info *e) {
  return (e->flags & PBC_EXTENSION_REPEATED) != 0;
}

static const pbc_tbl_type *type_of(const pbc_extension_info *e) {
  assert(e->type >= PBC_TYPE_DOUBLE && e->type <= PBC_TYPE_SINT64);
  return &pbc_tbl_types[e->type];
}

size_t pbc_rt_extension_value_bytes(const pbc_extension_info *e) {
  const pbc_tbl_type *t = type_of(e);
  return t->bytes                      ? t->bytes
         : t->handler == PBC_TBL_VIEW ? PBC_VIEW_BYTES
                                      : ((const pbc_message_desc *)e->link)->size;
}

/* Whether r is one of e's records: its number, and an item exactly when e
 * is a MessageSet extension. */
static bool is_of(const pbc_extension_info *e, const record *r) {
  return r->number == e->number && r->item == is_mset(e);
}

static pbc_bytes *unknown_of(const pbc_extension_info *e, const void *m) {
  uint32_t at = e->extendee->unknown_offset;
  if (at == PBC_NO_UNKNOWN_FIELDS) return NULL;
  return (pbc_bytes *)((uint8_t *)(uintptr_t)m + at);
}

/* ---- Reading ---------------------------------------------------------- */

/* A scalar value from its wire form, as the struct would hold it (in the
 * low bytes); false for a closed enum's undeclared value. */
static bool scalar_value(const pbc_extension_info *e, uint64_t wire_value,
                         uint64_t *out) {
  switch (type_of(e)->handler) {
  case PBC_TBL_ENUM:
    if ((e->flags & PBC_FIELD_CLOSED_ENUM) &&
        !pbc_tbl_enum_declares((const pbc_enum_info *)e->link,
                               (int32_t)wire_value))
      return false;
    *out = (uint32_t)wire_value;
    return true;
  case PBC_TBL_ZIGZAG32: {
    uint32_t v = (uint32_t)wire_value;
    *out = (uint32_t)((v >> 1) ^ (0u - (v & 1)));
    return true;
  }
  case PBC_TBL_ZIGZAG64:
    *out = (wire_value >> 1) ^ (0 - (wire_value & 1));
    return true;
  case PBC_TBL_BOOL:
    *out = wire_value != 0;
    return true;
  default:
    *out = type_of(e)->bytes == 4 ? (uint32_t)wire_value : wire_value;
    return true;
  }
}

/* The scalar values record r holds for e: one, a packed run's, or none (a
 * wire type e's type is not read from). Stores them `elem` bytes apart at
 * `out` when not NULL, the last at *last when not NULL; returns how many. */
static size_t scalar_values(const pbc_extension_info *e, const record *r,
                            uint8_t *out, size_t elem, uint64_t *last) {
  const pbc_tbl_type *t = type_of(e);
  uint64_t v;
  if (r->wire == t->wire) {
    uint64_t raw = r->wire == PBC_WIRE_VARINT   ? r->varint
                   : r->wire == PBC_WIRE_FIXED32 ? pbc_tbl_load32(r->data)
                                                 : pbc_tbl_load64(r->data);
    if (!scalar_value(e, raw, &v)) return 0;
    if (out) memcpy(out, &v, elem);
    if (last) *last = v;
    return 1;
  }
  /* A packed run, whatever e's declaration says, as libprotobuf reads one:
   * of a repeated extension only (a singular one's is an unknown field). */
  if (r->wire != PBC_WIRE_LEN || r->item || !is_repeated(e)) return 0;
  size_t n = 0;
  const uint8_t *p = r->data, *end = r->data + r->size;
  while (p < end) {
    uint64_t raw;
    if (t->wire == PBC_WIRE_VARINT) {
      if (!pbc_tbl_read_varint(&p, end, &raw)) break;
    } else {
      size_t w = t->wire == PBC_WIRE_FIXED32 ? 4 : 8;
      if ((size_t)(end - p) < w) break;
      raw = w == 4 ? pbc_tbl_load32(p) : pbc_tbl_load64(p);
      p += w;
    }
    if (!scalar_value(e, raw, &v)) continue;
    if (out) memcpy(out + n * elem, &v, elem);
    if (last) *last = v;
    n++;
  }
  return n;
}

/* Whether r holds a value of e's kind (strings, bytes and messages: the
 * wire type they are written with). */
static bool holds_value(const pbc_extension_info *e, const record *r) {
  const pbc_tbl_type *t = type_of(e);
  if (t->handler == PBC_TBL_VIEW || t->handler == PBC_TBL_MESSAGE ||
      t->handler == PBC_TBL_GROUP)
    return r->wire == t->wire;
  return scalar_values(e, r, NULL, 0, NULL) != 0;
}

/* The values of e in m, counted: scalars element by element. */
static size_t count_values(const pbc_extension_info *e, const pbc_bytes *u) {
  if (u == NULL) return 0;
  const uint8_t *p = u->data, *end = u->data + u->size;
  bool scalar = type_of(e)->bytes != 0;
  size_t n = 0;
  record r;
  while (next_record(&p, end, is_mset(e), &r)) {
    if (!is_of(e, &r)) continue;
    if (scalar) n += scalar_values(e, &r, NULL, 0, NULL);
    else n += holds_value(e, &r);
  }
  return n;
}

bool pbc_extension_has(const pbc_extension_info *e, const void *m) {
  return count_values(e, unknown_of(e, m)) != 0;
}

size_t pbc_extension_size(const pbc_extension_info *e, const void *m) {
  size_t n = count_values(e, unknown_of(e, m));
  return is_repeated(e) || n == 0 ? n : 1;
}

static pbc_status check_string(const pbc_extension_info *e, const record *r) {
  if ((e->flags & PBC_FIELD_UTF8) && !pbc_rt_utf8_valid(r->data, r->size))
    return PBC_ERR_INVALID_UTF8;
  return PBC_OK;
}

/* A message value: r's bytes merged into *msg, made first if NULL. Partial
 * messages are values too: the caller checks required fields. */
static pbc_status merge_message(const pbc_extension_info *e, const record *r,
                                void *msg, pbc_arena *arena) {
  static const pbc_decode_options partial = {0, true, false};
  return pbc_table_merge_decode((const pbc_message_desc *)e->link, msg,
                                r->data, r->size, arena, &partial);
}

static void *new_message(const pbc_extension_info *e, pbc_arena *arena) {
  const pbc_message_desc *sub = (const pbc_message_desc *)e->link;
  void *msg = pbc_arena_alloc(arena, sub->size ? sub->size : 1);
  if (msg) pbc_table_init(sub, msg);
  return msg;
}

static pbc_status get_singular(const pbc_extension_info *e, const pbc_bytes *u,
                               pbc_arena *arena, void *value) {
  const pbc_tbl_type *t = type_of(e);
  const uint8_t *p = u ? u->data : NULL, *end = u ? u->data + u->size : NULL;
  record r;
  pbc_status st;
  if (t->handler == PBC_TBL_VIEW) {
    pbc_bytes v = {(const uint8_t *)e->default_bytes, e->default_size};
    while (next_record(&p, end, is_mset(e), &r))
      if (is_of(e, &r) && holds_value(e, &r)) {
        if ((st = check_string(e, &r)) != PBC_OK) return st;
        v.data = r.data;
        v.size = r.size;
      }
    memcpy(value, &v, sizeof v);
    return PBC_OK;
  }
  if (t->handler == PBC_TBL_MESSAGE || t->handler == PBC_TBL_GROUP) {
    void *msg = NULL;
    while (next_record(&p, end, is_mset(e), &r))
      if (is_of(e, &r) && holds_value(e, &r)) {
        if (msg == NULL && (msg = new_message(e, arena)) == NULL)
          return PBC_ERR_OUT_OF_MEMORY;
        if ((st = merge_message(e, &r, msg, arena)) != PBC_OK) return st;
      }
    memcpy(value, &msg, sizeof msg);
    return PBC_OK;
  }
  uint64_t v = (e->flags & PBC_FIELD_DEFAULT) ? e->default_value : 0;
  while (next_record(&p, end, is_mset(e), &r))
    if (is_of(e, &r)) scalar_values(e, &r, NULL, 0, &v);
  memcpy(value, &v, t->bytes); /* little-endian: the low bytes */
  return PBC_OK;
}

static pbc_status get_repeated(const pbc_extension_info *e, const pbc_bytes *u,
                               pbc_arena *arena, void *value) {
  const pbc_tbl_type *t = type_of(e);
  size_t count = count_values(e, u);
  struct {
    void *data;
    size_t size;
  } view = {NULL, 0};
  if (count == 0) {
    memcpy(value, &view, sizeof view);
    return PBC_OK;
  }
  size_t elem = pbc_rt_extension_value_bytes(e);
  if (elem != 0 && count > SIZE_MAX / elem) return PBC_ERR_OUT_OF_MEMORY;
  uint8_t *data = pbc_arena_alloc(arena, count * elem);
  if (data == NULL) return PBC_ERR_OUT_OF_MEMORY;
  const uint8_t *p = u->data, *end = u->data + u->size;
  size_t n = 0;
  record r;
  pbc_status st;
  while (n < count && next_record(&p, end, is_mset(e), &r)) {
    if (!is_of(e, &r)) continue;
    if (t->bytes) {
      /* count_values counted these: they fit. */
      n += scalar_values(e, &r, data + n * elem, elem, NULL);
    } else if (holds_value(e, &r)) {
      uint8_t *at = data + n++ * elem;
      if (t->handler == PBC_TBL_VIEW) {
        if ((st = check_string(e, &r)) != PBC_OK) return st;
        pbc_tbl_store_view(at, r.data, r.size);
      } else {
        pbc_table_init((const pbc_message_desc *)e->link, at);
        if ((st = merge_message(e, &r, at, arena)) != PBC_OK) return st;
      }
    }
  }
  view.data = data;
  view.size = n;
  memcpy(value, &view, sizeof view);
  return PBC_OK;
}

pbc_status pbc_extension_get(const pbc_extension_info *e, const void *m,
                             pbc_arena *arena, void *value) {
  const pbc_bytes *u = unknown_of(e, m);
  return is_repeated(e) ? get_repeated(e, u, arena, value)
                        : get_singular(e, u, arena, value);
}

/* ---- Writing ---------------------------------------------------------- */

/* A scalar's C value (t->bytes bytes at v) as the varint or fixed bits
 * it is written as. */
static uint64_t wire_bits(const pbc_extension_info *e, const void *v) {
  const pbc_tbl_type *t = type_of(e);
  switch (t->handler) {
  case PBC_TBL_BOOL:
    return *(const uint8_t *)v != 0;
  case PBC_TBL_ZIGZAG32: {
    int32_t x;
    memcpy(&x, v, 4);
    return (uint32_t)(((uint32_t)x << 1) ^ (uint32_t)(x >> 31));
  }
  case PBC_TBL_ZIGZAG64: {
    int64_t x;
    memcpy(&x, v, 8);
    return ((uint64_t)x << 1) ^ (uint64_t)(x >> 63);
  }
  case PBC_TBL_ENUM: {
    int32_t x; /* negative numbers take 10 bytes, as int32's */
    memcpy(&x, v, 4);
    return (uint64_t)(int64_t)x;
  }
  case PBC_TBL_VARINT:
    if (t->bytes == 4) {
      uint32_t x;
      memcpy(&x, v, 4);
      return e->type == PBC_TYPE_INT32 ? (uint64_t)(int64_t)(int32_t)x : x;
    }
    /* fallthrough */
  default: {
    uint64_t x = 0;
    memcpy(&x, v, t->bytes);
    return x;
  }
  }
}

/* One value, without its tag: its bytes, and (when `p` is not NULL) the
 * value written at p. `size` is a message value's encoded size, given. */
static size_t put_value(const pbc_extension_info *e, uint8_t *p, const void *v,
                        size_t size) {
  const pbc_tbl_type *t = type_of(e);
  switch (t->handler) {
  case PBC_TBL_FIXED32:
  case PBC_TBL_FIXED64:
    if (p) memcpy(p, v, t->bytes);
    return t->bytes;
  case PBC_TBL_VIEW: {
    pbc_bytes s;
    memcpy(&s, v, sizeof s);
    size_t n = p ? pbc_rt_put_varint_forward(p, s.size)
                 : pbc_varint_size(s.size);
    if (p && s.size) memcpy(p + n, s.data, s.size);
    return n + s.size;
  }
  case PBC_TBL_MESSAGE:
  case PBC_TBL_GROUP: {
    size_t n = 0;
    if (t->handler == PBC_TBL_MESSAGE)
      n = p ? pbc_rt_put_varint_forward(p, size) : pbc_varint_size(size);
    if (p && size) {
      size_t written;
      pbc_table_encode((const pbc_message_desc *)e->link, v, p + n, size,
                       &written);
    }
    return n + size;
  }
  default: {
    uint64_t bits = wire_bits(e, v);
    return p ? pbc_rt_put_varint_forward(p, bits) : pbc_varint_size(bits);
  }
  }
}

static size_t put_tag(uint8_t *p, uint32_t number, pbc_wire_type wire) {
  uint32_t tag = pbc_make_tag(number, wire);
  return p ? pbc_rt_put_varint_forward(p, tag) : pbc_varint_size(tag);
}

/* One value's record: tag and value; a group's start and end tags; a
 * MessageSet item. Bytes, written at p when not NULL. */
static size_t put_record(const pbc_extension_info *e, uint8_t *p,
                         const void *v, size_t size) {
  const pbc_tbl_type *t = type_of(e);
  size_t n = 0;
#define AT (p ? p + n : NULL)
  if (is_mset(e)) {
    n += put_tag(AT, PBC_MSET_ITEM, PBC_WIRE_START_GROUP);
    n += put_tag(AT, PBC_MSET_TYPE_ID, PBC_WIRE_VARINT);
    n += p ? pbc_rt_put_varint_forward(p + n, e->number)
           : pbc_varint_size(e->number);
    n += put_tag(AT, PBC_MSET_MESSAGE, PBC_WIRE_LEN);
    n += put_value(e, AT, v, size);
    n += put_tag(AT, PBC_MSET_ITEM, PBC_WIRE_END_GROUP);
    return n;
  }
  n += put_tag(AT, e->number, (pbc_wire_type)t->wire);
  n += put_value(e, AT, v, size);
  if (t->handler == PBC_TBL_GROUP)
    n += put_tag(AT, e->number, PBC_WIRE_END_GROUP);
#undef AT
  return n;
}

/* What replaces e's records: `count` values at `values` (elements of the
 * struct's size apart), as records or one packed run. */
typedef struct encoding {
  const pbc_extension_info *e;
  const uint8_t *values;
  size_t count, stride;
  size_t *sizes;  /* message values' encoded sizes */
  size_t payload; /* a packed run's, without its tag and length */
  size_t bytes;
} encoding;

static pbc_status plan_encoding(encoding *enc, pbc_arena *arena) {
  const pbc_extension_info *e = enc->e;
  const pbc_tbl_type *t = type_of(e);
  bool message = t->handler == PBC_TBL_MESSAGE || t->handler == PBC_TBL_GROUP;
  enc->sizes = NULL;
  enc->bytes = 0;
  if (message && enc->count) {
    enc->sizes = pbc_arena_alloc(arena, enc->count * sizeof(size_t));
    if (enc->sizes == NULL) return PBC_ERR_OUT_OF_MEMORY;
  }
  enc->payload = 0;
  for (size_t i = 0; i < enc->count; i++) {
    const void *v = enc->values + i * enc->stride;
    size_t size = 0;
    if (message) {
      /* Elements are structs in place; a singular message is a pointer. */
      if (!is_repeated(e)) memcpy(&v, v, sizeof v);
      size = enc->sizes[i] =
          pbc_table_encoded_size((const pbc_message_desc *)e->link, v);
      if (size > INT32_MAX) return PBC_ERR_TOO_LARGE;
    }
    if (e->flags & PBC_FIELD_PACKED) enc->payload += put_value(e, NULL, v, 0);
    else enc->bytes += put_record(e, NULL, v, size);
  }
  if ((e->flags & PBC_FIELD_PACKED) && enc->count)
    enc->bytes = put_tag(NULL, e->number, PBC_WIRE_LEN) +
                 pbc_varint_size(enc->payload) + enc->payload;
  return enc->bytes > INT32_MAX ? PBC_ERR_TOO_LARGE : PBC_OK;
}

static void write_encoding(const encoding *enc, uint8_t *p) {
  const pbc_extension_info *e = enc->e;
  bool message = enc->sizes != NULL;
  if ((e->flags & PBC_FIELD_PACKED) && enc->count) {
    p += put_tag(p, e->number, PBC_WIRE_LEN);
    p += pbc_rt_put_varint_forward(p, enc->payload);
    for (size_t i = 0; i < enc->count; i++)
      p += put_value(e, p, enc->values + i * enc->stride, 0);
    return;
  }
  for (size_t i = 0; i < enc->count; i++) {
    const void *v = enc->values + i * enc->stride;
    if (message && !is_repeated(e)) memcpy(&v, v, sizeof v);
    p += put_record(e, p, v, message ? enc->sizes[i] : 0);
  }
}

/* Where the new records go among the kept ones. REPLACE: e's records go,
 * the new ones are placed before the first record of a higher number (the
 * order libprotobuf writes extensions in). APPEND: e's records stay, the
 * new ones follow the last of them (or are placed as REPLACE places them). */
typedef enum { REPLACE, APPEND } splice_mode;

/* m's unknown fields without e's records (REPLACE) or with them (APPEND),
 * and enc's records placed among them, in a new arena buffer. */
static pbc_status splice(const encoding *enc, void *m, splice_mode mode,
                         pbc_arena *arena) {
  const pbc_extension_info *e = enc->e;
  pbc_bytes *u = unknown_of(e, m);
  if (u == NULL) return PBC_OK; /* a map entry: nothing to hold it */
  const uint8_t *begin = u->data, *end = u->data + u->size, *p = begin;
  /* Pass 1: the bytes kept and the insertion point (an offset in the
   * input: the new records go before the record there). */
  size_t kept = 0;
  const uint8_t *insert = NULL, *last_of_e = NULL;
  record r;
  while (next_record(&p, end, is_mset(e), &r)) {
    if (is_of(e, &r)) {
      last_of_e = r.end;
      if (mode == REPLACE) continue;
    } else if (insert == NULL && r.number > e->number) {
      insert = r.start;
    }
    kept += (size_t)(r.end - r.start);
  }
  kept += (size_t)(end - p); /* bytes that are not records stay, last */
  if (insert == NULL) insert = p;
  if (mode == APPEND && last_of_e) insert = last_of_e;
  if (mode == REPLACE && kept == u->size && enc->bytes == 0) return PBC_OK;

  size_t total = kept + enc->bytes;
  uint8_t *out = total ? pbc_arena_alloc(arena, total) : NULL;
  if (total && out == NULL) return PBC_ERR_OUT_OF_MEMORY;
  uint8_t *q = out;
  p = begin;
  bool placed = false;
  while (next_record(&p, end, is_mset(e), &r)) {
    if (!placed && r.start == insert) {
      write_encoding(enc, q);
      q += enc->bytes;
      placed = true;
    }
    if (mode == REPLACE && is_of(e, &r)) continue;
    memcpy(q, r.start, (size_t)(r.end - r.start));
    q += r.end - r.start;
  }
  if (!placed) {
    /* At the end of the records (or after the last of e's, at the end). */
    write_encoding(enc, q);
    q += enc->bytes;
  }
  if (end > p) {
    memcpy(q, p, (size_t)(end - p));
    q += end - p;
  }
  assert((size_t)(q - out) == total);
  u->data = out;
  u->size = total;
  return PBC_OK;
}

pbc_status pbc_extension_set(const pbc_extension_info *e, void *m,
                             const void *value, pbc_arena *arena) {
  encoding enc = {e, value, 1, 0, NULL, 0, 0};
  if (is_repeated(e)) {
    struct {
      const uint8_t *data;
      size_t size;
    } view;
    memcpy(&view, value, sizeof view);
    enc.values = view.data;
    enc.count = view.size;
    enc.stride = pbc_rt_extension_value_bytes(e);
  } else if ((type_of(e)->handler == PBC_TBL_MESSAGE ||
              type_of(e)->handler == PBC_TBL_GROUP) &&
             *(void *const *)value == NULL) {
    enc.count = 0; /* a NULL message: none */
  }
  pbc_status st = plan_encoding(&enc, arena);
  if (st != PBC_OK) return st;
  return splice(&enc, m, REPLACE, arena);
}

pbc_status pbc_extension_add(const pbc_extension_info *e, void *m,
                             const void *value, pbc_arena *arena) {
  assert(is_repeated(e) && "pbc_extension_add: a repeated extension");
  const pbc_tbl_type *t = type_of(e);
  bool message = t->handler == PBC_TBL_MESSAGE || t->handler == PBC_TBL_GROUP;
  if (!(e->flags & PBC_FIELD_PACKED)) {
    /* One more record after the last: canonical when the others are. */
    const void *v = value;
    if (message) memcpy(&v, value, sizeof v);
    encoding enc = {e, (const uint8_t *)v, 1, 0, NULL, 0, 0};
    pbc_status st = plan_encoding(&enc, arena);
    if (st != PBC_OK) return st;
    return splice(&enc, m, APPEND, arena);
  }
  /* A packed run is one record: read the elements, add one, rewrite. */
  struct {
    uint8_t *data;
    size_t size;
  } view;
  pbc_status st = pbc_extension_get(e, m, arena, &view);
  if (st != PBC_OK) return st;
  if (view.size >= SIZE_MAX / 8) return PBC_ERR_OUT_OF_MEMORY;
  uint8_t *data = pbc_arena_alloc(arena, (view.size + 1) * t->bytes);
  if (data == NULL) return PBC_ERR_OUT_OF_MEMORY;
  if (view.size) memcpy(data, view.data, view.size * t->bytes);
  memcpy(data + view.size * t->bytes, value, t->bytes);
  view.data = data;
  view.size++;
  return pbc_extension_set(e, m, &view, arena);
}

pbc_status pbc_extension_clear(const pbc_extension_info *e, void *m,
                               pbc_arena *arena) {
  encoding enc = {e, NULL, 0, 0, NULL, 0, 0};
  return splice(&enc, m, REPLACE, arena);
}

/* ---- The text format's view ------------------------------------------- */

/* The extension a record is of, if `x` has one of d's with its number and
 * the record is of its kind (an item exactly for a MessageSet extension),
 * else NULL. */
static const pbc_extension_info *extension_of(const pbc_message_desc *d,
                                              const pbc_rt_extensions *x,
                                              const record *r) {
  for (size_t i = 0; i < pbc_rt_extensions_count(x); i++) {
    const pbc_extension_info *e = pbc_rt_extensions_at(x, i);
    if (e != NULL && e->extendee == d && e->number == r->number)
      return is_of(e, r) ? e : NULL;
  }
  return NULL;
}

/* Whether d is a MessageSet, as far as `x` tells: an item is an item only
 * there. */
static bool is_mset_extendee(const pbc_message_desc *d,
                             const pbc_rt_extensions *x) {
  for (size_t i = 0; i < pbc_rt_extensions_count(x); i++) {
    const pbc_extension_info *e = pbc_rt_extensions_at(x, i);
    if (e && is_mset(e) && e->extendee == d) return true;
  }
  return false;
}

/* Appends n bytes to a malloc'd buffer. */
static bool append(uint8_t **buf, size_t *len, size_t *cap, const void *p,
                   size_t n) {
  if (*cap - *len < n) {
    size_t c = *cap ? *cap : 64;
    while (c - *len < n) c *= 2;
    uint8_t *b = realloc(*buf, c);
    if (b == NULL) return false;
    *buf = b;
    *cap = c;
  }
  if (n) memcpy(*buf + *len, p, n);
  *len += n;
  return true;
}

/* A closed enum's undeclared values in r, as libprotobuf's parser leaves
 * them: each a varint record of e's number. */
static bool keep_undeclared(const pbc_extension_info *e, const record *r,
                            uint8_t **buf, size_t *len, size_t *cap) {
  const uint8_t *p = r->data, *end = r->data + r->size;
  bool run = r->wire == PBC_WIRE_LEN;
  uint64_t v = r->varint;
  while (run ? p < end : true) {
    if (run && !pbc_tbl_read_varint(&p, end, &v)) break;
    if (!pbc_tbl_enum_declares((const pbc_enum_info *)e->link, (int32_t)v)) {
      uint8_t rec[PBC_MAX_TAG_BYTES + PBC_MAX_VARINT_BYTES];
      size_t n = pbc_rt_put_varint_forward(
          rec, pbc_make_tag(e->number, PBC_WIRE_VARINT));
      n += pbc_rt_put_varint_forward(rec + n, v);
      if (!append(buf, len, cap, rec, n)) return false;
    }
    if (!run) break;
  }
  return true;
}

/* By number: an insertion sort, for the few extensions a message holds. */
static void sort_by_number(const pbc_extension_info **e, size_t n) {
  for (size_t i = 1; i < n; i++) {
    const pbc_extension_info *x = e[i];
    size_t j = i;
    for (; j > 0 && e[j - 1]->number > x->number; j--) e[j] = e[j - 1];
    e[j] = x;
  }
}

bool pbc_rt_split_extensions(const pbc_message_desc *d,
                             const pbc_rt_extensions *x, const uint8_t *u,
                             size_t size, const pbc_extension_info ***exts,
                             size_t *count, uint8_t **rest,
                             size_t *rest_size) {
  *exts = NULL;
  *count = 0;
  if (rest != NULL) {
    *rest = NULL;
    *rest_size = 0;
  }
  size_t cap = 0, rest_cap = 0;
  const uint8_t *p = u, *end = u + size;
  record r;
  bool mset = is_mset_extendee(d, x);
  while (next_record(&p, end, mset, &r)) {
    const pbc_extension_info *e = extension_of(d, x, &r);
    bool value = e != NULL && holds_value(e, &r);
    if (value) {
      size_t k = 0;
      while (k < *count && (*exts)[k] != e) k++;
      if (k == *count) {
        if (*count == cap) {
          size_t c = cap ? 2 * cap : 8;
          const pbc_extension_info **x = realloc(*exts, c * sizeof *x);
          if (x == NULL) goto fail;
          *exts = x;
          cap = c;
        }
        (*exts)[(*count)++] = e;
      }
    }
    if (rest == NULL) continue;
    if (!value) {
      if (!append(rest, rest_size, &rest_cap, r.start, (size_t)(r.end - r.start)))
        goto fail;
    } else if ((e->flags & PBC_FIELD_CLOSED_ENUM) &&
               !keep_undeclared(e, &r, rest, rest_size, &rest_cap)) {
      goto fail;
    }
  }
  if (rest != NULL && !append(rest, rest_size, &rest_cap, p, (size_t)(end - p)))
    goto fail;
  sort_by_number(*exts, *count);
  return true;
fail:
  free(*exts);
  *exts = NULL;
  *count = 0;
  if (rest != NULL) {
    free(*rest);
    *rest = NULL;
    *rest_size = 0;
  }
  return false;
}

/* ---- The unknown fields in libprotobuf's order ---------------------------
 * libprotobuf's parser moves the extensions it knows into an ExtensionSet,
 * which its serializer writes, by number, at each extension range's place
 * among the fields; the other records stay unknown fields, written last.
 * pbc keeps both in the unknown fields and sorts them out when writing:
 * the part a record belongs to (below) decides where it goes. */

/* What decides where d's unknown records go, gathered once per call. */
typedef struct unknown_parts {
  const pbc_message_desc *d;
  /* The extensions d's description lists (its compilation's, or a loaded
   * schema's), and the linked ones. */
  pbc_rt_extensions own, linked;
  bool mset; /* d is a MessageSet: items are extensions */
} unknown_parts;

static void parts_init(unknown_parts *up, const pbc_message_desc *d) {
  up->d = d;
  size_t n = 0;
  while (d->extensions && d->extensions[n]) n++;
  up->own.list = d->extensions;
  up->own.count = n;
  up->linked.list = NULL;
  up->linked.count = 0;
  up->mset = (n && is_mset_extendee(d, &up->own)) ||
             is_mset_extendee(d, &up->linked);
}

/* The part r belongs to: the index of the range holding its extension, or
 * ext_range_count (the rest) when it is not one of d's extensions holding
 * a value, as libprotobuf's parser would have left it unknown. */
static uint32_t part_of(const unknown_parts *up, const record *r) {
  const pbc_message_desc *d = up->d;
  const pbc_extension_info *e = NULL;
  if (up->own.count) e = extension_of(d, &up->own, r);
  if (e == NULL) e = extension_of(d, &up->linked, r);
  if (e != NULL && holds_value(e, r))
    for (uint32_t k = 0; k < d->ext_range_count; k++)
      if (r->number >= d->ext_ranges[2 * k] &&
          r->number < d->ext_ranges[2 * k + 1])
        return k;
  return d->ext_range_count;
}

/* Where the bytes of a part go: a buffer, written forwards from `at`, or a
 * writer. */
typedef struct part_sink {
  uint8_t *at;
  pbc_writer *w;
} part_sink;

static void sink_put(part_sink *s, const uint8_t *p, size_t n) {
  if (s->w != NULL) {
    pbc_writer_write(s->w, p, n);
  } else {
    memcpy(s->at, p, n);
    s->at += n;
  }
}

/* Emits part `part` of u to s (with a NULL sink, only counts it) and
 * returns its size. The rest keeps the input's order, with the bytes after
 * the last record the walk could read; a range's extensions go by number,
 * each number's records in their order: one pass over u per number
 * present, so at most one per extension of d (the schema's count, whatever
 * the input), without memory to sort in. */
static size_t emit_part(const unknown_parts *up, const uint8_t *u, size_t size,
                        uint32_t part, part_sink *s) {
  const uint8_t *end = u + size;
  size_t total = 0;
  record r;
  if (part == up->d->ext_range_count) {
    const uint8_t *p = u, *tail = u;
    for (; next_record(&p, end, up->mset, &r); tail = p) {
      if (part_of(up, &r) != part) continue;
      size_t n = (size_t)(r.end - r.start);
      if (s) sink_put(s, r.start, n);
      total += n;
    }
    if (s && tail < end) sink_put(s, tail, (size_t)(end - tail));
    return total + (size_t)(end - tail);
  }
  /* The numbers in ascending order: each pass takes the least above the
   * last one taken. */
  uint64_t last = 0;
  for (;;) {
    uint64_t least = UINT64_MAX;
    const uint8_t *p = u;
    while (next_record(&p, end, up->mset, &r))
      if (r.number > last && r.number < least && part_of(up, &r) == part)
        least = r.number;
    if (least == UINT64_MAX) return total;
    p = u;
    while (next_record(&p, end, up->mset, &r)) {
      if (r.number != least || part_of(up, &r) != part) continue;
      size_t n = (size_t)(r.end - r.start);
      if (s) sink_put(s, r.start, n);
      total += n;
    }
    last = least;
  }
}

uint8_t *pbc_rt_put_unknown_part(const pbc_message_desc *d, const uint8_t *u,
                                 size_t size, uint32_t part, uint8_t *end,
                                 uint8_t *limit) {
  assert(part <= d->ext_range_count);
  if (size == 0) return end;
  unknown_parts up;
  parts_init(&up, d);
  size_t n = emit_part(&up, u, size, part, NULL);
  if (limit != NULL && (uintptr_t)(end - limit) < n) return NULL;
  part_sink s = {end - n, NULL};
  emit_part(&up, u, size, part, &s);
  assert(s.at == end);
  return end - n;
}

void pbc_rt_write_unknown_part(const pbc_message_desc *d, const uint8_t *u,
                               size_t size, uint32_t part, pbc_writer *w) {
  assert(part <= d->ext_range_count);
  if (size == 0) return;
  unknown_parts up;
  parts_init(&up, d);
  part_sink s = {NULL, w};
  emit_part(&up, u, size, part, &s);
}

/* libprotobuf's FieldDescriptor::PrintableNameForExtension: a MessageSet
 * extension declared in its message's scope goes by the message's name. */
const char *pbc_rt_extension_printable_name(const pbc_extension_info *e) {
  if (is_mset(e)) {
    const char *type = ((const pbc_message_desc *)e->link)->strings;
    size_t n = strlen(type);
    if (strncmp(e->full_name, type, n) == 0 && e->full_name[n] == '.' &&
        strrchr(e->full_name + n + 1, '.') == NULL)
      return type;
  }
  return e->full_name;
}

const pbc_extension_info *pbc_rt_find_extension_named(
    const pbc_message_desc *d, const pbc_rt_extensions *x, const char *name,
    size_t len) {
  for (size_t i = 0; i < pbc_rt_extensions_count(x); i++) {
    const pbc_extension_info *e = pbc_rt_extensions_at(x, i);
    if (e == NULL || e->extendee != d) continue;
    const char *printable = pbc_rt_extension_printable_name(e);
    if ((strlen(e->full_name) == len && memcmp(e->full_name, name, len) == 0) ||
        (strlen(printable) == len && memcmp(printable, name, len) == 0))
      return e;
  }
  return NULL;
}
