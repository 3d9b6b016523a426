/* Lookups over a message's description (pbc/desc.h): what generic code
 * asks besides walking its arrays. */
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
    if (strlen(s) == len && memcmp(s, name, len) == 0) return &d->fields[i];
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
