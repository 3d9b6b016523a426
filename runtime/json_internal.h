/* What the JSON printer and parser (json_print.c, json_parse.c) share:
 * which messages and enums ProtoJSON gives a special form. Not a user
 * API. */
#ifndef PBC_JSON_INTERNAL_H
#define PBC_JSON_INTERNAL_H

#include "pbc/json.h"
#include "table_internal.h"

/* The well-known types with a JSON form of their own (Empty has none: it
 * is the empty object as any message). */
typedef enum pbc_json_wkt {
  WKT_NONE, WKT_ANY, WKT_TIMESTAMP, WKT_DURATION, WKT_FIELD_MASK, WKT_STRUCT,
  WKT_VALUE, WKT_LIST_VALUE, WKT_WRAPPER
} pbc_json_wkt;

/* A wrapper's value: field 1, a singular scalar, string or bytes. */
static inline const pbc_field_desc *
pbc_json_wrapped(const pbc_message_desc *d) {
  const pbc_field_desc *f = pbc_field_by_number(d, 1);
  return f != NULL && f->kind != PBC_FIELD_REPEATED && !pbc_tbl_is_message(f)
             ? f
             : NULL;
}

/* Which of them d is, by its full name and shape (json_print.c): a
 * message of such a name but another shape is none. One copy for the
 * printer and the parser. */
pbc_json_wkt pbc_json_wkt_of(const pbc_message_desc *d);

/* google.protobuf.NullValue: null in JSON. */
static inline bool pbc_json_is_null_value(const pbc_enum_info *e) {
  return e != NULL && strcmp(e->full_name, "google.protobuf.NullValue") == 0;
}

#endif /* PBC_JSON_INTERNAL_H */
