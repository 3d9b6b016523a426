/* Lookups over a message's description (pbc/desc.h): what generic code
 * asks besides walking its arrays. */
#include <stdlib.h>

#include "table_internal.h"

const pbc_field_desc *pbc_field_by_number(const pbc_message_desc *d,
                                          uint32_t number) {
  return pbc_tbl_find_field(d, number);
}

/* A linear scan: names are looked up when text or JSON is read, a field at
 * a time, and messages have tens of fields. */
const pbc_field_desc *pbc_field_by_name(const pbc_message_desc *d,
                                        const char *name, size_t len,
                                        bool json) {
  if (d->field_names == NULL) return NULL;
  for (uint32_t i = 0; i < d->field_count; i++) {
    const char *s = d->strings + (json ? d->field_names[i].json_name
                                       : d->field_names[i].name);
    size_t k = 0; /* no strlen: most names differ in their first byte */
    while (k < len && s[k] == name[k] && s[k] != '\0') k++;
    if (k == len && s[len] == '\0') return &d->fields[i];
  }
  return NULL;
}

static const char *name_of(const pbc_message_desc *d, const pbc_field_desc *f,
                           bool json) {
  if (d->field_names == NULL) return NULL;
  const pbc_field_names *n = &d->field_names[f - d->fields];
  return d->strings + (json ? n->json_name : n->name);
}

const char *pbc_field_name(const pbc_message_desc *d, const pbc_field_desc *f) {
  return name_of(d, f, false);
}

const char *pbc_field_json_name(const pbc_message_desc *d,
                                const pbc_field_desc *f) {
  return name_of(d, f, true);
}

const pbc_message_desc *pbc_field_message(const pbc_message_desc *d,
                                          const pbc_field_desc *f) {
  return pbc_tbl_is_message(f) ? pbc_tbl_link_message(d, f) : NULL;
}

const pbc_enum_info *pbc_field_enum(const pbc_message_desc *d,
                                    const pbc_field_desc *f) {
  return f->type == PBC_TYPE_ENUM ? (const pbc_enum_info *)d->links[f->link]
                                  : NULL;
}

const char *pbc_enum_value_name(const pbc_enum_info *e, int32_t number) {
  const pbc_enum_value *v = pbc_tbl_enum_lower_bound(e, number);
  if (v == e->values + e->value_count || v->number != number) return NULL;
  return e->strings + v->name;
}

bool pbc_enum_value_by_name(const pbc_enum_info *e, const char *name,
                            size_t len, int32_t *number) {
  for (uint32_t i = 0; i < e->value_count; i++) {
    const char *s = e->strings + e->values[i].name;
    if (strlen(s) == len && memcmp(s, name, len) == 0) {
      *number = e->values[i].number;
      return true;
    }
  }
  return false;
}

/* ---- Map entries by key (text format, equality) ------------------------- */

/* Compares two map entries' keys (field 1 of the entry) as libprotobuf's
 * MapEntryMessageComparator: numbers by value, strings as bytes. */
int pbc_tbl_compare_keys(const pbc_field_desc *key, const uint8_t *a,
                         const uint8_t *b) {
  a += key->offset;
  b += key->offset;
  switch (key->type) {
  case PBC_TYPE_STRING: {
    pbc_bytes x = pbc_tbl_load_view(a), y = pbc_tbl_load_view(b);
    size_t n = x.size < y.size ? x.size : y.size;
    int c = n ? memcmp(x.data, y.data, n) : 0;
    return c != 0 ? c : (x.size > y.size) - (x.size < y.size);
  }
  case PBC_TYPE_BOOL:
    return (*a != 0) - (*b != 0);
  case PBC_TYPE_INT64: case PBC_TYPE_SFIXED64: case PBC_TYPE_SINT64: {
    int64_t x = (int64_t)pbc_tbl_load64(a), y = (int64_t)pbc_tbl_load64(b);
    return (x > y) - (x < y);
  }
  case PBC_TYPE_UINT64: case PBC_TYPE_FIXED64: {
    uint64_t x = pbc_tbl_load64(a), y = pbc_tbl_load64(b);
    return (x > y) - (x < y);
  }
  case PBC_TYPE_UINT32: case PBC_TYPE_FIXED32: {
    uint32_t x = pbc_tbl_load32(a), y = pbc_tbl_load32(b);
    return (x > y) - (x < y);
  }
  default: { /* the signed 32-bit types */
    int32_t x = (int32_t)pbc_tbl_load32(a), y = (int32_t)pbc_tbl_load32(b);
    return (x > y) - (x < y);
  }
  }
}

/* Sorts entry pointers by key: a merge sort (keys are unique, so any
 * stable or unstable order is the same). */
void pbc_tbl_sort_entries(const pbc_field_desc *key, const uint8_t **e,
                          const uint8_t **tmp, size_t n) {
  if (n < 2) return;
  size_t half = n / 2;
  pbc_tbl_sort_entries(key, e, tmp, half);
  pbc_tbl_sort_entries(key, e + half, tmp, n - half);
  size_t i = 0, j = half, k = 0;
  while (i < half && j < n)
    tmp[k++] = pbc_tbl_compare_keys(key, e[j], e[i]) < 0 ? e[j++] : e[i++];
  while (i < half) tmp[k++] = e[i++];
  while (j < n) tmp[k++] = e[j++];
  memcpy(e, tmp, n * sizeof *e);
}

/* ---- google.protobuf.Any ------------------------------------------------- */

const pbc_message_info *pbc_tbl_any_type(const pbc_message_desc *d,
                                         const uint8_t *m,
                                         pbc_message_finder find,
                                         const void *find_ctx, pbc_bytes *url,
                                         pbc_bytes *value, size_t *prefix_len) {
  const pbc_field_desc *url_field = &d->fields[0], *value_field = &d->fields[1];
  pbc_bytes none = {NULL, 0};
  *url = pbc_tbl_is_set(d, url_field, m) ? pbc_tbl_load_view(m + url_field->offset)
                                         : none;
  *value = pbc_tbl_is_set(d, value_field, m)
               ? pbc_tbl_load_view(m + value_field->offset)
               : none;
  size_t slash = url->size;
  while (slash > 0 && url->data[slash - 1] != '/') slash--;
  *prefix_len = slash;
  /* ParseAnyTypeUrl wants a '/' and a name after it. */
  if (slash == 0 || slash == url->size) return NULL;
  size_t name_len = url->size - slash;
  char *name = malloc(name_len + 1);
  if (name == NULL) return NULL;
  memcpy(name, url->data + slash, name_len);
  name[name_len] = '\0';
  const pbc_message_info *info =
      find ? find(find_ctx, name) : pbc_find_message(name);
  free(name);
  return info != NULL && info->desc != NULL ? info : NULL;
}
