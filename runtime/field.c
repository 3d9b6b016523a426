/* Fields read and written through their description (pbc/field.h). The
 * kinds of pbc/desc.h say where a value and its presence live; this file
 * is their one reader and writer for callers outside the codecs. */
#include "pbc/field.h"

#include "table_internal.h"

static const uint8_t *member(const pbc_field_desc *f, const void *m) {
  return (const uint8_t *)m + f->offset;
}

/* A value's C representation at `at`: the bytes of its type's member. */
static pbc_value load_value(const pbc_field_desc *f, const uint8_t *at) {
  pbc_value v;
  memset(&v, 0, sizeof v);
  if (pbc_tbl_is_view(f)) {
    v.bytes = pbc_tbl_load_view(at);
    return v;
  }
  switch (pbc_tbl_type_of(f)->bytes) {
  case 1: v.b = *at != 0; break;
  case 4: memcpy(&v.u32, at, 4); break;
  default: memcpy(&v.u64, at, 8); break;
  }
  return v;
}

static void store_value(const pbc_field_desc *f, uint8_t *at, pbc_value v) {
  if (pbc_tbl_is_view(f)) {
    pbc_tbl_store_view(at, v.bytes.data, v.bytes.size);
    return;
  }
  switch (pbc_tbl_type_of(f)->bytes) {
  case 1: *at = v.b ? 1 : 0; break;
  case 4: memcpy(at, &v.u32, 4); break;
  default: memcpy(at, &v.u64, 8); break;
  }
}

/* The default T_init gives a scalar, string or bytes field: its entry in
 * the description's defaults (sorted by field index), else zero. */
static pbc_value default_value(const pbc_message_desc *d,
                               const pbc_field_desc *f) {
  pbc_value v;
  memset(&v, 0, sizeof v);
  if (!(f->flags & PBC_FIELD_DEFAULT)) return v;
  uint32_t index = (uint32_t)(f - d->fields), lo = 0, hi = d->default_count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (d->defaults[mid].field < index) lo = mid + 1;
    else hi = mid;
  }
  assert(lo < d->default_count && d->defaults[lo].field == index);
  const pbc_default *def = &d->defaults[lo];
  if (pbc_tbl_is_view(f)) {
    v.bytes.data = (const uint8_t *)d->strings + def->value;
    v.bytes.size = def->size;
  } else {
    v.u64 = def->value; /* little-endian, zero-extended: i32, u32, f too */
    if (pbc_tbl_type_of(f)->bytes == 1) v.b = def->value != 0;
  }
  return v;
}

static uint8_t *oneof_case(const pbc_message_desc *d, const pbc_field_desc *f,
                           void *m) {
  return (uint8_t *)m + d->oneofs[f->presence].case_offset;
}

static void set_presence(const pbc_message_desc *d, const pbc_field_desc *f,
                         void *m) {
  if (f->kind == PBC_FIELD_BIT) {
    pbc_tbl_set_bit(m, f->presence);
  } else if (f->kind == PBC_FIELD_ONEOF) {
    uint32_t number = f->number;
    memcpy(oneof_case(d, f, m), &number, 4);
  }
}

bool pbc_field_has(const pbc_message_desc *d, const pbc_field_desc *f,
                   const void *m) {
  if (f->kind == PBC_FIELD_REPEATED) return pbc_field_size(d, f, m) != 0;
  return pbc_tbl_is_set(d, f, m);
}

pbc_value pbc_field_get(const pbc_message_desc *d, const pbc_field_desc *f,
                        const void *m) {
  assert(f->kind != PBC_FIELD_REPEATED);
  if (pbc_tbl_is_message(f)) {
    pbc_value v;
    v.message = pbc_tbl_is_set(d, f, m) ? pbc_tbl_load_ptr(member(f, m)) : NULL;
    return v;
  }
  if (!pbc_tbl_is_set(d, f, m) && f->kind != PBC_FIELD_IMPLICIT)
    return default_value(d, f);
  return load_value(f, member(f, m));
}

void pbc_field_set(const pbc_message_desc *d, const pbc_field_desc *f,
                   void *m, pbc_value v) {
  assert(f->kind != PBC_FIELD_REPEATED);
  uint8_t *at = (uint8_t *)m + f->offset;
  if (pbc_tbl_is_message(f)) {
    if (v.message == NULL) {
      pbc_field_clear(d, f, m);
      return;
    }
    pbc_tbl_store_ptr(at, v.message);
  } else {
    store_value(f, at, v);
  }
  set_presence(d, f, m);
}

void pbc_field_clear(const pbc_message_desc *d, const pbc_field_desc *f,
                     void *m) {
  uint8_t *at = (uint8_t *)m + f->offset;
  switch (f->kind) {
  case PBC_FIELD_REPEATED:
    pbc_tbl_store_view(at, NULL, 0);
    return;
  case PBC_FIELD_POINTER:
    pbc_tbl_store_ptr(at, NULL);
    return;
  case PBC_FIELD_ONEOF: {
    uint8_t *c = oneof_case(d, f, m);
    if (pbc_tbl_load32(c) != f->number) return;
    memset(c, 0, 4);
    /* The union as T_init leaves it: zeros (a oneof's defaults are not
     * stored in place). */
    memset(at, 0, pbc_tbl_is_message(f) ? sizeof(void *)
                                         : pbc_tbl_value_bytes(d, f));
    return;
  }
  case PBC_FIELD_BIT: {
    uint8_t *word = (uint8_t *)m + f->presence / 32 * 4;
    uint32_t bits = pbc_tbl_load32(word) & ~(UINT32_C(1) << (f->presence % 32));
    memcpy(word, &bits, 4);
    break;
  }
  default:
    break;
  }
  store_value(f, at, default_value(d, f));
}

void *pbc_field_mutable_message(const pbc_message_desc *d,
                                const pbc_field_desc *f, void *m,
                                pbc_arena *arena) {
  assert(pbc_tbl_is_message(f) && f->kind != PBC_FIELD_REPEATED);
  /* A map entry's value (PBC_FIELD_ALWAYS) is set with a NULL pointer:
   * an entry without its value. */
  uint8_t *held = pbc_tbl_is_set(d, f, m) ? pbc_tbl_load_ptr(member(f, m)) : NULL;
  if (held != NULL) return held;
  const pbc_message_desc *sub = pbc_tbl_link_message(d, f);
  /* From the top of the block: an array being grown at the bottom stays
   * the newest allocation there (pbc_field_add). */
  void *s = pbc_arena_alloc_high(arena, sub->size);
  if (s == NULL) return NULL;
  pbc_table_init(sub, s);
  pbc_value v;
  v.message = s;
  pbc_field_set(d, f, m, v);
  return s;
}

const pbc_field_desc *pbc_oneof_field(const pbc_message_desc *d,
                                      uint32_t oneof, const void *m) {
  assert(oneof < d->oneof_count);
  uint32_t number =
      pbc_tbl_load32((const uint8_t *)m + d->oneofs[oneof].case_offset);
  if (number == 0) return NULL;
  const pbc_field_desc *f = pbc_tbl_find_field(d, number);
  assert(f != NULL && f->kind == PBC_FIELD_ONEOF && f->presence == oneof);
  /* A message member whose pointer is NULL is not set (pbc_field_has). */
  return pbc_tbl_is_set(d, f, m) ? f : NULL;
}

size_t pbc_field_size(const pbc_message_desc *d, const pbc_field_desc *f,
                      const void *m) {
  (void)d;
  assert(f->kind == PBC_FIELD_REPEATED);
  return pbc_tbl_load_view(member(f, m)).size;
}

/* Element i's address in a repeated field's array. */
static uint8_t *element(const pbc_message_desc *d, const pbc_field_desc *f,
                        const void *m, size_t i) {
  pbc_bytes a = pbc_tbl_load_view(member(f, m));
  assert(f->kind == PBC_FIELD_REPEATED && i < a.size);
  return (uint8_t *)a.data + i * pbc_tbl_value_bytes(d, f);
}

pbc_value pbc_field_get_at(const pbc_message_desc *d, const pbc_field_desc *f,
                           const void *m, size_t i) {
  const uint8_t *at = element(d, f, m, i);
  if (pbc_tbl_is_message(f)) {
    pbc_value v;
    v.message = at;
    return v;
  }
  return load_value(f, at);
}

static void store_element(const pbc_message_desc *d, const pbc_field_desc *f,
                          uint8_t *at, pbc_value v) {
  if (!pbc_tbl_is_message(f)) {
    store_value(f, at, v);
    return;
  }
  const pbc_message_desc *sub = pbc_tbl_link_message(d, f);
  if (v.message != NULL) memmove(at, v.message, sub->size);
  else pbc_table_init(sub, at);
}

void pbc_field_set_at(const pbc_message_desc *d, const pbc_field_desc *f,
                      void *m, size_t i, pbc_value v) {
  store_element(d, f, element(d, f, m, i), v);
}

void *pbc_field_add(const pbc_message_desc *d, const pbc_field_desc *f,
                    void *m, pbc_value v, pbc_arena *arena) {
  assert(f->kind == PBC_FIELD_REPEATED);
  uint8_t *at = (uint8_t *)m + f->offset;
  pbc_bytes a = pbc_tbl_load_view(at);
  size_t n = pbc_tbl_value_bytes(d, f);
  if (a.size >= (SIZE_MAX - n) / n) return NULL;
  size_t old = a.size * n;
  uint8_t *data = (uint8_t *)a.data;
  if (a.size == 0 || !pbc_arena_extend(arena, data, old, old + n)) {
    data = pbc_arena_alloc(arena, old + n);
    if (data == NULL) return NULL;
    if (old != 0) memcpy(data, a.data, old);
  }
  /* v may point into the old array (a copy of one of its entries). */
  store_element(d, f, data + old, v);
  pbc_tbl_store_view(at, data, a.size + 1);
  return data + old;
}

void pbc_field_set_array(const pbc_message_desc *d, const pbc_field_desc *f,
                         void *m, const void *data, size_t size) {
  (void)d;
  assert(f->kind == PBC_FIELD_REPEATED);
  pbc_tbl_store_view((uint8_t *)m + f->offset, data, size);
}
