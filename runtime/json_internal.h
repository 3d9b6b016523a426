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

static inline pbc_json_wkt pbc_json_wkt_of(const pbc_message_desc *d) {
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

/* google.protobuf.NullValue: null in JSON. */
static inline bool pbc_json_is_null_value(const pbc_enum_info *e) {
  return e != NULL && strcmp(e->full_name, "google.protobuf.NullValue") == 0;
}

#endif /* PBC_JSON_INTERNAL_H */
