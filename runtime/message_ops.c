/* Clear, copy, merge and equal for any message, through its description
 * (pbc/desc.h): libprotobuf's Message::Clear, CopyFrom, MergeFrom and
 * util::MessageDifferencer::Equals, rule for rule. The difftest checks each
 * against libprotobuf on every random message it makes.
 *
 * Everything a copy or merge adds to the destination is copied into the
 * caller's arena (strings, bytes, arrays, sub-messages, unknown fields), so
 * the destination never points into the source. Arrays are never grown in
 * place: a struct does not say how much room its arrays have (a user's may
 * have none), so appending allocates the whole array again. */
#include <stdlib.h>

#include "table_internal.h"

/* ---- Copy and merge ------------------------------------------------------ */

typedef struct merger {
  pbc_arena *arena;
  pbc_status status; /* the first failure */
} merger;

static void *merger_alloc(merger *g, size_t size) {
  void *p = pbc_arena_alloc(g->arena, size ? size : 1);
  if (p == NULL && g->status == PBC_OK)
    g->status = pbc_arena_over_cap(g->arena, size) ? PBC_ERR_ARENA_LIMIT
                                                   : PBC_ERR_OUT_OF_MEMORY;
  return p;
}

/* `n` bytes at `data` again, in the arena; an empty view stays as it is
 * (nothing is read through it). */
static bool copy_bytes(merger *g, uint8_t *at, pbc_bytes v) {
  if (v.size == 0) {
    pbc_tbl_store_view(at, v.data, 0);
    return true;
  }
  uint8_t *p = merger_alloc(g, v.size);
  if (p == NULL) return false;
  memcpy(p, v.data, v.size);
  pbc_tbl_store_view(at, p, v.size);
  return true;
}

static bool merge_message(merger *g, const pbc_message_desc *d, uint8_t *dst,
                          const uint8_t *src);

/* One value of field f (a singular member or an array element) from `from`
 * into the unused or initialized slot `to`: scalars by value, strings and
 * bytes copied, a message element initialized and merged into. */
static bool copy_value(merger *g, const pbc_message_desc *d,
                       const pbc_field_desc *f, uint8_t *to,
                       const uint8_t *from) {
  const pbc_tbl_type *t = pbc_tbl_type_of(f);
  if (t->bytes) {
    memcpy(to, from, t->bytes);
    return true;
  }
  if (t->handler == PBC_TBL_VIEW)
    return copy_bytes(g, to, pbc_tbl_load_view(from));
  const pbc_message_desc *sub = pbc_tbl_link_message(d, f);
  pbc_table_init(sub, to);
  return merge_message(g, sub, to, from);
}

/* A singular message member: merged into the destination's message, which
 * is made (initialized) when it has none. `fresh` forces a new one (a
 * oneof whose union holds another member). */
static bool merge_pointer(merger *g, const pbc_message_desc *d,
                          const pbc_field_desc *f, uint8_t *dst,
                          const uint8_t *from, bool fresh) {
  const pbc_message_desc *sub = pbc_tbl_link_message(d, f);
  uint8_t *at = dst + f->offset;
  uint8_t *target = fresh ? NULL : pbc_tbl_load_ptr(at);
  if (target == NULL) {
    target = merger_alloc(g, sub->size);
    if (target == NULL) return false;
    pbc_table_init(sub, target);
    pbc_tbl_store_ptr(at, target);
  }
  return merge_message(g, sub, target, from);
}

/* The index in `data` (n entries) of the entry whose key is `entry`'s, or
 * n. */
static size_t find_key(const pbc_message_desc *entry, const uint8_t *data,
                       size_t n, const uint8_t *key_of) {
  const pbc_field_desc *key = &entry->fields[0];
  for (size_t i = 0; i < n; i++)
    if (pbc_tbl_compare_keys(key, data + i * entry->size, key_of) == 0)
      return i;
  return n;
}

/* Repeated field f: the source's elements after the destination's, in a
 * new array. A map replaces the entry of a key it has (MergeFrom's
 * `map[key] = value`, the value whole) and adds the others. */
static bool merge_repeated(merger *g, const pbc_message_desc *d,
                           const pbc_field_desc *f, uint8_t *dst,
                           const uint8_t *src) {
  pbc_bytes from = pbc_tbl_load_view(src + f->offset);
  if (from.size == 0) return true;
  pbc_bytes to = pbc_tbl_load_view(dst + f->offset);
  size_t esize = pbc_tbl_value_bytes(d, f);
  size_t total = to.size + from.size;
  if (total < to.size || total > SIZE_MAX / esize) {
    if (g->status == PBC_OK) g->status = PBC_ERR_OUT_OF_MEMORY;
    return false;
  }
  uint8_t *data = merger_alloc(g, total * esize);
  if (data == NULL) return false;
  if (to.size) memcpy(data, to.data, to.size * esize);
  size_t n = to.size;
  if (pbc_tbl_type_of(f)->bytes) {
    /* Scalars are their bytes: one copy (a packed field may hold
     * thousands). */
    memcpy(data + n * esize, from.data, from.size * esize);
    pbc_tbl_store_view(dst + f->offset, data, total);
    return true;
  }
  const pbc_message_desc *entry =
      (f->flags & PBC_FIELD_MAP) ? pbc_tbl_link_message(d, f) : NULL;
  for (size_t i = 0; i < from.size; i++) {
    const uint8_t *e = from.data + i * esize;
    size_t at = entry ? find_key(entry, data, n, e) : n;
    if (!copy_value(g, d, f, data + at * esize, e)) return false;
    if (at == n) n++;
  }
  pbc_tbl_store_view(dst + f->offset, data, n);
  return true;
}

/* The unknown fields: the source's after the destination's
 * (UnknownFieldSet::MergeFrom). */
static bool merge_unknown(merger *g, const pbc_message_desc *d, uint8_t *dst,
                          const uint8_t *src) {
  if (d->unknown_offset == PBC_NO_UNKNOWN_FIELDS) return true;
  pbc_bytes from = pbc_tbl_load_view(src + d->unknown_offset);
  if (from.size == 0) return true;
  pbc_bytes to = pbc_tbl_load_view(dst + d->unknown_offset);
  uint8_t *p = merger_alloc(g, to.size + from.size);
  if (p == NULL) return false;
  if (to.size) memcpy(p, to.data, to.size);
  memcpy(p + to.size, from.data, from.size);
  pbc_tbl_store_view(dst + d->unknown_offset, p, to.size + from.size);
  return true;
}

/* MergeFrom: every field set in src overwrites (scalars, strings), merges
 * into (messages) or appends to (repeated) the destination's; a oneof
 * member set in src replaces another member of the destination. */
static bool merge_message(merger *g, const pbc_message_desc *d, uint8_t *dst,
                          const uint8_t *src) {
  for (uint32_t i = 0; i < d->field_count; i++) {
    const pbc_field_desc *f = &d->fields[i];
    if (f->kind == PBC_FIELD_REPEATED) {
      if (!merge_repeated(g, d, f, dst, src)) return false;
      continue;
    }
    if (!pbc_tbl_is_set(d, f, src)) continue;
    const uint8_t *from = src + f->offset;
    uint8_t *to = dst + f->offset;
    bool ok;
    if (f->kind == PBC_FIELD_ONEOF) {
      uint8_t *case_at = dst + d->oneofs[f->presence].case_offset;
      bool same = pbc_tbl_load32(case_at) == f->number;
      memcpy(case_at, &f->number, 4);
      ok = pbc_tbl_is_message(f)
               ? merge_pointer(g, d, f, dst, pbc_tbl_load_ptr(from), !same)
               : copy_value(g, d, f, to, from);
    } else if (f->kind == PBC_FIELD_POINTER) {
      ok = merge_pointer(g, d, f, dst, pbc_tbl_load_ptr(from), false);
    } else {
      if (f->kind == PBC_FIELD_BIT) pbc_tbl_set_bit(dst, f->presence);
      ok = copy_value(g, d, f, to, from);
    }
    if (!ok) return false;
  }
  return merge_unknown(g, d, dst, src);
}

pbc_status pbc_message_merge(const pbc_message_info *info, void *dst,
                             const void *src, pbc_arena *arena) {
  assert(dst != src);
  merger g = {arena, PBC_OK};
  merge_message(&g, info->desc, (uint8_t *)dst, (const uint8_t *)src);
  return g.status;
}

pbc_status pbc_message_copy(const pbc_message_info *info, void *dst,
                            const void *src, pbc_arena *arena) {
  if (dst == src) return PBC_OK; /* CopyFrom(*this) changes nothing */
  pbc_message_init(info, dst);
  return pbc_message_merge(info, dst, src, arena);
}

void pbc_message_clear(const pbc_message_info *info, void *m) {
  pbc_message_init(info, m);
}

/* ---- Adopt (pbc_rt.h), before a merge decode ---------------------------- */

static bool adopt_message(merger *g, const pbc_message_desc *d, uint8_t *m);

/* `n` elements of `esize` bytes again, in arena memory with room for
 * pbc_rt_capacity_for(n), as the decoder's own arrays have. */
static uint8_t *adopt_array(merger *g, const uint8_t *data, size_t n,
                            size_t esize) {
  size_t cap = pbc_rt_capacity_for(n);
  if (cap == 0 || esize > SIZE_MAX / cap) {
    if (g->status == PBC_OK) g->status = PBC_ERR_OUT_OF_MEMORY;
    return NULL;
  }
  uint8_t *p = merger_alloc(g, cap * esize);
  if (p != NULL) memcpy(p, data, n * esize);
  return p;
}

/* The sub-message a singular member points to (if any), copied and
 * adopted; the member then points to the copy. */
static bool adopt_pointer(merger *g, const pbc_message_desc *sub,
                          uint8_t *at) {
  const uint8_t *from = pbc_tbl_load_ptr(at);
  if (from == NULL) return true;
  uint8_t *to = merger_alloc(g, sub->size);
  if (to == NULL) return false;
  memcpy(to, from, sub->size);
  pbc_tbl_store_ptr(at, to);
  return adopt_message(g, sub, to);
}

static bool adopt_message(merger *g, const pbc_message_desc *d, uint8_t *m) {
  for (uint32_t i = 0; i < d->field_count; i++) {
    const pbc_field_desc *f = &d->fields[i];
    uint8_t *at = m + f->offset;
    if (f->kind == PBC_FIELD_REPEATED) {
      pbc_bytes v = pbc_tbl_load_view(at);
      if (v.size == 0) continue;
      size_t esize = pbc_tbl_value_bytes(d, f);
      uint8_t *data = adopt_array(g, v.data, v.size, esize);
      if (data == NULL) return false;
      pbc_tbl_store_view(at, data, v.size);
      if (!pbc_tbl_is_message(f)) continue;
      /* Messages and map entries are held in the array itself. */
      const pbc_message_desc *sub = pbc_tbl_link_message(d, f);
      for (size_t k = 0; k < v.size; k++)
        if (!adopt_message(g, sub, data + k * esize)) return false;
    } else if (pbc_tbl_is_message(f) &&
               (f->kind != PBC_FIELD_ONEOF || pbc_tbl_is_set(d, f, m))) {
      if (!adopt_pointer(g, pbc_tbl_link_message(d, f), at)) return false;
    }
  }
  if (d->unknown_offset == PBC_NO_UNKNOWN_FIELDS) return true;
  uint8_t *at = m + d->unknown_offset;
  pbc_bytes unknown = pbc_tbl_load_view(at);
  if (unknown.size == 0) return true;
  uint8_t *data = adopt_array(g, unknown.data, unknown.size, 1);
  if (data == NULL) return false;
  pbc_tbl_store_view(at, data, unknown.size);
  return true;
}

pbc_status pbc_rt_adopt(const pbc_message_desc *desc, void *m,
                        pbc_arena *arena) {
  merger g = {arena, PBC_OK};
  adopt_message(&g, desc, (uint8_t *)m);
  return g.status;
}

/* ---- Equal ---------------------------------------------------------------
 * MessageDifferencer::Equals with its defaults: the same fields set (a
 * field set to its default differs from one unset), values equal (floats
 * by ==, so NaN differs from itself and -0.0 equals 0.0), repeated fields
 * as lists, maps as maps (same keys, equal values), unknown fields as the
 * same records once sorted by number and type (varints by value, groups
 * compared alike), and an Any whose type both sides resolve and whose
 * values both decode compared by its decoded value. */

typedef struct equality {
  pbc_message_finder find_message;
  const void *find_message_ctx;
} equality;

static bool equal_message(const equality *q, const pbc_message_desc *d,
                          const uint8_t *a, const uint8_t *b);

static bool equal_value(const equality *q, const pbc_message_desc *d,
                        const pbc_field_desc *f, const uint8_t *a,
                        const uint8_t *b) {
  switch (f->type) {
  case PBC_TYPE_DOUBLE: {
    double x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    return x == y;
  }
  case PBC_TYPE_FLOAT: {
    float x, y;
    memcpy(&x, a, 4);
    memcpy(&y, b, 4);
    return x == y;
  }
  case PBC_TYPE_BOOL:
    return (*a != 0) == (*b != 0);
  case PBC_TYPE_STRING: case PBC_TYPE_BYTES: {
    pbc_bytes x = pbc_tbl_load_view(a), y = pbc_tbl_load_view(b);
    return pbc_rt_bytes_equal(x.data, x.size, y.data, y.size);
  }
  case PBC_TYPE_MESSAGE: case PBC_TYPE_GROUP:
    return equal_message(q, pbc_tbl_link_message(d, f), a, b);
  default:
    return memcmp(a, b, pbc_tbl_type_of(f)->bytes) == 0;
  }
}

/* A singular message member, NULL for none: an unset map value is its
 * message's default instance (a map entry's fields are always present). */
static bool equal_pointed(const equality *q, const pbc_message_desc *sub,
                          const uint8_t *a, const uint8_t *b) {
  if (a != NULL && b != NULL) return equal_message(q, sub, a, b);
  if (a == NULL && b == NULL) return true;
  uint8_t stack[256];
  uint8_t *empty = sub->size <= sizeof stack ? stack : malloc(sub->size);
  if (empty == NULL) return false;
  pbc_table_init(sub, empty);
  bool same = equal_message(q, sub, a ? a : empty, b ? b : empty);
  if (empty != stack) free(empty);
  return same;
}

/* Entries of map field f, keys unique on each side (the decoder keeps the
 * last of a key): each of a's has one of its key in b, with an equal
 * value. Sorted by key first, so a large map is not quadratic. */
static bool equal_map(const equality *q, const pbc_message_desc *d,
                      const pbc_field_desc *f, pbc_bytes a, pbc_bytes b) {
  const pbc_message_desc *entry = pbc_tbl_link_message(d, f);
  const pbc_field_desc *key = &entry->fields[0];
  const pbc_field_desc *value = &entry->fields[entry->field_count - 1];
  size_t n = a.size;
  const uint8_t **order = malloc(4 * n * sizeof *order);
  if (order == NULL) return false;
  const uint8_t **sa = order, **sb = order + n, **tmp = order + 2 * n;
  for (size_t i = 0; i < n; i++) {
    sa[i] = a.data + i * entry->size;
    sb[i] = b.data + i * entry->size;
  }
  pbc_tbl_sort_entries(key, sa, tmp, n);
  pbc_tbl_sort_entries(key, sb, tmp, n);
  bool same = true;
  for (size_t i = 0; i < n && same; i++) {
    same = pbc_tbl_compare_keys(key, sa[i], sb[i]) == 0;
    if (same && pbc_tbl_is_message(value))
      same = equal_pointed(q, pbc_tbl_link_message(entry, value),
                           pbc_tbl_load_ptr(sa[i] + value->offset),
                           pbc_tbl_load_ptr(sb[i] + value->offset));
    else if (same)
      same = equal_value(q, entry, value, sa[i] + value->offset,
                         sb[i] + value->offset);
  }
  free(order);
  return same;
}

static bool equal_repeated(const equality *q, const pbc_message_desc *d,
                           const pbc_field_desc *f, const uint8_t *a,
                           const uint8_t *b) {
  pbc_bytes x = pbc_tbl_load_view(a + f->offset);
  pbc_bytes y = pbc_tbl_load_view(b + f->offset);
  if (x.size != y.size) return false;
  if (x.size == 0) return true;
  if (f->flags & PBC_FIELD_MAP) return equal_map(q, d, f, x, y);
  size_t esize = pbc_tbl_value_bytes(d, f);
  /* Integers and enums are equal when their bytes are (floats are not:
   * NaN, -0.0; nor bools, any non-zero byte being true). */
  if (pbc_tbl_type_of(f)->bytes && f->type != PBC_TYPE_FLOAT &&
      f->type != PBC_TYPE_DOUBLE && f->type != PBC_TYPE_BOOL)
    return memcmp(x.data, y.data, x.size * esize) == 0;
  for (size_t i = 0; i < x.size; i++)
    if (!equal_value(q, d, f, x.data + i * esize, y.data + i * esize))
      return false;
  return true;
}

/* ---- Unknown fields, as UnknownFieldSet compares them -------------------- */

/* One unknown field: number, UnknownField::Type order (varint, fixed32,
 * fixed64, length-delimited, group), and its value or bytes (a group's:
 * its fields, up to the END_GROUP). */
typedef struct unknown_record {
  uint32_t number;
  uint8_t type;
  uint64_t value;
  const uint8_t *data;
  size_t size;
} unknown_record;

enum { UNKNOWN_VARINT, UNKNOWN_FIXED32, UNKNOWN_FIXED64, UNKNOWN_LEN,
       UNKNOWN_GROUP };

/* The fields of [*p, end) up to the END_GROUP of `group` (0: to the end)
 * into out (NULL: only counted), *p after them; false when the bytes are
 * not well-formed fields. */
static bool read_unknown(const uint8_t **p, const uint8_t *end, uint32_t group,
                         unsigned depth, unknown_record *out, size_t *count) {
  size_t n = 0;
  while (*p < end) {
    uint64_t tag;
    if (!pbc_tbl_read_varint(p, end, &tag) || tag > UINT32_MAX) return false;
    uint32_t number = pbc_tag_field_number((uint32_t)tag);
    pbc_wire_type wt = pbc_tag_wire_type((uint32_t)tag);
    if (wt == PBC_WIRE_END_GROUP) {
      if (group == 0 || number != group) return false;
      *count = n;
      return true;
    }
    if (number == 0) return false;
    unknown_record r = {number, 0, 0, *p, 0};
    switch (wt) {
    case PBC_WIRE_VARINT:
      r.type = UNKNOWN_VARINT;
      if (!pbc_tbl_read_varint(p, end, &r.value)) return false;
      break;
    case PBC_WIRE_FIXED32: case PBC_WIRE_FIXED64: {
      size_t w = wt == PBC_WIRE_FIXED32 ? 4 : 8;
      if ((size_t)(end - *p) < w) return false;
      r.type = w == 4 ? UNKNOWN_FIXED32 : UNKNOWN_FIXED64;
      r.value = w == 4 ? pbc_tbl_load32(*p) : pbc_tbl_load64(*p);
      *p += w;
      break;
    }
    case PBC_WIRE_LEN: {
      uint64_t len;
      if (!pbc_tbl_read_varint(p, end, &len) || len > (uint64_t)(end - *p))
        return false;
      r.type = UNKNOWN_LEN;
      r.data = *p;
      r.size = (size_t)len;
      *p += len;
      break;
    }
    case PBC_WIRE_START_GROUP: {
      size_t inner;
      r.type = UNKNOWN_GROUP;
      r.data = *p;
      if (depth == 0 || !read_unknown(p, end, number, depth - 1, NULL, &inner))
        return false;
      r.size = (size_t)(*p - r.data); /* with its END_GROUP */
      break;
    }
    default:
      return false;
    }
    if (out != NULL) out[n] = r;
    n++;
  }
  if (group != 0) return false;
  *count = n;
  return true;
}

/* By number, then type; records of one number and type keep their order
 * (a stable sort, as libprotobuf's std::stable_sort). */
static bool record_before(const unknown_record *x, const unknown_record *y) {
  return x->number != y->number ? x->number < y->number : x->type < y->type;
}

static void sort_records(unknown_record *r, unknown_record *tmp, size_t n) {
  if (n < 2) return;
  size_t half = n / 2;
  sort_records(r, tmp, half);
  sort_records(r + half, tmp, n - half);
  size_t i = 0, j = half, k = 0;
  while (i < half && j < n)
    tmp[k++] = record_before(&r[j], &r[i]) ? r[j++] : r[i++];
  while (i < half) tmp[k++] = r[i++];
  while (j < n) tmp[k++] = r[j++];
  memcpy(r, tmp, n * sizeof *r);
}

/* The records of [data, data + size) (a group's without its END_GROUP),
 * sorted; NULL when the bytes are not fields (or memory ran out). */
static unknown_record *sorted_records(const uint8_t *data, size_t size,
                                      uint32_t group, size_t *n) {
  const uint8_t *p = data;
  if (!read_unknown(&p, data + size, group, PBC_DEFAULT_MAX_DEPTH, NULL, n))
    return NULL;
  unknown_record *r = malloc((2 * *n + 1) * sizeof *r);
  if (r == NULL) return NULL;
  p = data;
  read_unknown(&p, data + size, group, PBC_DEFAULT_MAX_DEPTH, r, n);
  sort_records(r, r + *n, *n);
  return r;
}

static bool equal_unknown(const uint8_t *a, size_t a_size, const uint8_t *b,
                          size_t b_size, uint32_t group) {
  if (a_size == 0 && b_size == 0) return true;
  size_t na = 0, nb = 0;
  unknown_record *x = sorted_records(a, a_size, group, &na);
  unknown_record *y = sorted_records(b, b_size, group, &nb);
  bool same;
  if (x == NULL || y == NULL) {
    /* Not fields (set by hand): as bytes. */
    same = pbc_rt_bytes_equal(a, a_size, b, b_size);
  } else {
    same = na == nb;
    for (size_t i = 0; i < na && same; i++) {
      same = x[i].number == y[i].number && x[i].type == y[i].type;
      if (!same) break;
      if (x[i].type == UNKNOWN_GROUP)
        same = equal_unknown(x[i].data, x[i].size, y[i].data, y[i].size,
                             x[i].number);
      else if (x[i].type == UNKNOWN_LEN)
        same = pbc_rt_bytes_equal(x[i].data, x[i].size, y[i].data, y[i].size);
      else
        same = x[i].value == y[i].value;
    }
  }
  free(x);
  free(y);
  return same;
}

/* ---- Any ----------------------------------------------------------------- */

/* An Any's value decoded as the type its URL names (the name after the
 * last '/', found by the finder), required fields or not
 * (ParsePartialFromString); NULL when any step fails. */
static void *unpack_any(const equality *q, const pbc_message_desc *d,
                        const uint8_t *m, pbc_arena *arena,
                        const pbc_message_info **type) {
  pbc_bytes url, value;
  size_t slash;
  *type = pbc_tbl_any_type(d, m, q->find_message, q->find_message_ctx, &url,
                           &value, &slash);
  if (*type == NULL) return NULL;
  size_t size = (*type)->desc->size;
  void *v = pbc_arena_alloc(arena, size ? size : 1);
  pbc_decode_options partial = {0, true, false};
  if (v == NULL || pbc_table_decode((*type)->desc, v, value.data, value.size,
                                    arena, &partial) != PBC_OK)
    return NULL;
  return v;
}

/* Both values unpacked: *same says whether they are equal. */
static bool equal_any(const equality *q, const pbc_message_desc *d,
                      const uint8_t *a, const uint8_t *b, bool *same) {
  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  const pbc_message_info *ta = NULL, *tb = NULL;
  void *va = unpack_any(q, d, a, &arena, &ta);
  void *vb = va ? unpack_any(q, d, b, &arena, &tb) : NULL;
  bool unpacked = vb != NULL;
  if (unpacked)
    *same = ta->desc == tb->desc && equal_message(q, ta->desc, va, vb);
  pbc_arena_destroy(&arena);
  return unpacked;
}

static bool equal_message(const equality *q, const pbc_message_desc *d,
                          const uint8_t *a, const uint8_t *b) {
  bool same;
  if (pbc_tbl_is_any(d) && equal_any(q, d, a, b, &same)) return same;
  if (d->unknown_offset != PBC_NO_UNKNOWN_FIELDS) {
    pbc_bytes x = pbc_tbl_load_view(a + d->unknown_offset);
    pbc_bytes y = pbc_tbl_load_view(b + d->unknown_offset);
    if (!equal_unknown(x.data, x.size, y.data, y.size, 0)) return false;
  }
  for (uint32_t i = 0; i < d->field_count; i++) {
    const pbc_field_desc *f = &d->fields[i];
    if (f->kind == PBC_FIELD_REPEATED) {
      if (!equal_repeated(q, d, f, a, b)) return false;
      continue;
    }
    bool set = pbc_tbl_is_set(d, f, a);
    if (set != pbc_tbl_is_set(d, f, b)) return false;
    if (!set) continue;
    if (pbc_tbl_is_message(f)) {
      if (!equal_pointed(q, pbc_tbl_link_message(d, f),
                         pbc_tbl_load_ptr(a + f->offset),
                         pbc_tbl_load_ptr(b + f->offset)))
        return false;
    } else if (!equal_value(q, d, f, a + f->offset, b + f->offset)) {
      return false;
    }
  }
  return true;
}

bool pbc_message_equal(const pbc_message_info *info, const void *a,
                       const void *b, const pbc_equal_options *options) {
  equality q = {options ? options->find_message : NULL,
                options ? options->find_message_ctx : NULL};
  return equal_message(&q, info->desc, (const uint8_t *)a,
                       (const uint8_t *)b);
}
