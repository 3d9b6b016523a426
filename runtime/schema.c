/* pbc_schema_load (pbc/schema.h): a FileDescriptorSet read into the
 * descriptions `pbc compile` would emit for it.
 *
 * Three steps. Reading walks the set's bytes with a small pull reader
 * (the runtime cannot use code pbc generates from descriptor.proto: pbc
 * itself loads schemas with it) into a model of files, messages, fields and
 * enums, every string copied. Resolving links each type name to its message
 * or enum and decides each field's features as protoc does (proto2, proto3,
 * or an edition's defaults with file, message, oneof and field overrides).
 * Describing lays out each message's struct by ProtoLayout.cpp's rule and
 * writes its records by Description.cpp's (the lookup table, the checks,
 * the fields by presence bit, the prototype), so a schema loaded here and
 * the same schema compiled agree record for record; the difftest's
 * --runtime-schema mode compares them.
 *
 * All memory is one arena, the schema's; a failed load frees it. */
#include "pbc/schema.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbc_rt.h"
#include "table_internal.h"

/* ---- The model --------------------------------------------------------- */

/* FeatureSet values, descriptor.proto's numbers. */
enum { PRESENCE_EXPLICIT = 1, PRESENCE_IMPLICIT = 2, PRESENCE_REQUIRED = 3 };
enum { ENUM_OPEN = 1, ENUM_CLOSED = 2 };
enum { REPEATED_PACKED = 1, REPEATED_EXPANDED = 2 };
enum { UTF8_VERIFY = 2, UTF8_NONE = 3 };
enum { ENCODING_LENGTH_PREFIXED = 1, ENCODING_DELIMITED = 2 };

typedef struct features {
  uint8_t presence, enum_type, repeated, utf8, encoding;
} features;

enum { LABEL_OPTIONAL = 1, LABEL_REQUIRED = 2, LABEL_REPEATED = 3 };

typedef struct lfile lfile;
typedef struct lmsg lmsg;
typedef struct lenum lenum;

typedef struct lfield {
  const char *name, *json_name, *type_name, *default_value;
  size_t default_size;  /* default_value's length (once read: bytes unescaped) */
  uint64_t default_bits; /* pbc_default.value, but for views */
  int32_t number;
  int32_t oneof_decl; /* -1: none */
  uint8_t label, type;
  bool has_default, proto3_optional;
  int8_t packed_option; /* -1: not given */
  features features;    /* resolved */
  lmsg *message;        /* message and group fields */
  lenum *enumeration;   /* enum fields */
  int32_t oneof;        /* index among the real oneofs, or -1 */
  uint32_t offset;
  int32_t bit;          /* presence bit, or -1 */
  uint16_t link;
  uint8_t kind, flags;
} lfield;

typedef struct loneof {
  const char *name;
  features features;
} loneof;

struct lmsg {
  const char *full_name;
  const lfile *file;
  lfield *fields;
  uint32_t field_count;
  loneof *oneof_decls;
  uint32_t oneof_decl_count;
  bool map_entry;
  bool message_set; /* MessageOptions.message_set_wire_format */
  uint32_t *ext_ranges; /* [start, end) pairs, ascending once checked */
  uint32_t ext_range_count;
  features features;
  /* Described: */
  uint32_t *by_number;  /* field indexes, by ascending number */
  int32_t *real_oneofs; /* oneof_decl index of each real oneof, in order */
  uint32_t real_oneof_count;
  uint32_t *case_offsets;
  uint32_t size, unknown_offset, presence_words;
  bool may_require; /* it, or a message it can hold, has a required field */
  uint64_t link_stamp; /* describe(): which message links it (high 32 bits), where */
  pbc_message_desc *desc;
  pbc_message_info *info;
};

typedef struct lvalue {
  const char *name;
  int32_t number;
} lvalue;

struct lenum {
  const char *full_name;
  lvalue *values;   /* as declared */
  lvalue *by_name;  /* sorted by name, for defaults (describe_enum) */
  uint32_t value_count;
  bool closed;
  uint64_t link_stamp;
  pbc_enum_info *info;
};

struct lfile {
  const char *name;
  uint8_t syntax; /* PBC_SYNTAX_* */
  uint16_t edition;
};

/* An extension: a field declared in an `extend` block. `scope` stands in
 * for a message when its field is resolved and classified as a message's
 * fields are: its file, no oneofs, not a map entry, named by the scope the
 * extension is declared in. */
typedef struct lext {
  lfield field;
  const char *full_name;
  const char *extendee; /* as the set names it: ".pkg.Base" */
  lmsg scope;
  lmsg *base; /* the extendee, once described */
  pbc_extension_info *info;
} lext;

/* A name's entry in one of the schema's tables of names: a type's full
 * name (a message or an enum) or a file's. */
typedef struct named {
  const char *name;
  lmsg *message;
  lenum *enumeration;
  const lfile *file;
  lext *extension;
} named;

/* Open addressing, mask + 1 entries (a power of two), grown at half full. */
typedef struct table {
  named *slots;
  size_t mask, used;
} table;

struct pbc_schema {
  pbc_arena arena;
  lmsg **messages;
  size_t message_count, message_cap;
  lenum **enums;
  size_t enum_count, enum_cap;
  lfile **files;
  size_t file_count, file_cap;
  lext **extensions;
  size_t extension_count, extension_cap;
  /* The extensions' records, for pbc_schema_extensions. */
  const pbc_extension_info **extension_infos;
  table types, file_names;
};

/* ---- Errors ------------------------------------------------------------ */

typedef struct loader {
  pbc_schema *s;
  pbc_schema_error *error;
  pbc_status status;
  const char *file; /* what the error names: file, message, field */
  const char *message;
  const char *field;
  uint32_t described; /* messages described so far */
} loader;

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static bool fail(loader *l, const char *fmt, ...) {
  if (l->status != PBC_OK) return false;
  l->status = PBC_ERR_BAD_SCHEMA;
  if (!l->error) return false;
  char what[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  char *out = l->error->message;
  size_t cap = sizeof l->error->message;
  if (l->field && l->message)
    snprintf(out, cap, "%s: %s.%s: %s", l->file, l->message, l->field, what);
  else if (l->message)
    snprintf(out, cap, "%s: %s: %s", l->file ? l->file : "?", l->message,
             what);
  else if (l->file)
    snprintf(out, cap, "%s: %s", l->file, what);
  else
    snprintf(out, cap, "%s", what);
  return false;
}

static bool out_of_memory(loader *l) {
  if (l->status == PBC_OK) {
    l->status = PBC_ERR_OUT_OF_MEMORY;
    if (l->error)
      snprintf(l->error->message, sizeof l->error->message, "out of memory");
  }
  return false;
}

static void *alloc(loader *l, size_t size) {
  void *p = pbc_arena_alloc(&l->s->arena, size ? size : 1);
  if (!p) out_of_memory(l);
  return p;
}

static void *alloc_zero(loader *l, size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) {
    out_of_memory(l);
    return NULL;
  }
  size_t bytes = count * size;
  void *p = alloc(l, bytes);
  if (p) memset(p, 0, bytes ? bytes : 1);
  return p;
}

/* Appends to a growable array of pointers (the schema's lists). */
static bool push(loader *l, void ***items, size_t *count, size_t *cap,
                 void *item) {
  if (*count == *cap) {
    size_t n = *cap ? *cap * 2 : 16;
    void **grown = realloc(*items, n * sizeof *grown);
    if (!grown) return out_of_memory(l);
    *items = grown;
    *cap = n;
  }
  (*items)[(*count)++] = item;
  return true;
}

/* ---- Reading ------------------------------------------------------------
 * A pull reader over one message's bytes: each call to next() yields one
 * field (its number, wire type and value), skipping nothing. */

typedef struct reader {
  const uint8_t *p, *end;
} reader;

typedef struct record {
  uint32_t number;
  uint8_t wire;
  uint64_t varint; /* VARINT */
  reader value;    /* LEN: its bytes */
} record;

/* The next field: 1, 0 at the end, -1 for bytes that are not a message.
 * Tags, varints and skipped values are read by the runtime's decoder
 * helpers (pbc_rt.h), so a set is read by the rules every message is:
 * libprotobuf's. */
static int next(reader *r, record *f) {
  if (r->p == r->end) return 0;
  pbc_decoder d = {NULL, 0, PBC_DEFAULT_MAX_DEPTH, PBC_OK, r->p, r->end, NULL};
  uint32_t tag;
  const uint8_t *p = pbc_rt_tag(&d, r->p, r->end, &tag);
  if (!p) return -1;
  f->number = pbc_tag_field_number(tag);
  f->wire = pbc_tag_wire_type(tag);
  if (f->wire == PBC_WIRE_VARINT) {
    p = pbc_rt_varint(&d, p, r->end, &f->varint);
  } else if (f->wire == PBC_WIRE_LEN) {
    uint64_t n;
    const uint8_t *at = pbc_rt_varint(&d, p, r->end, &n);
    if (!at || at - p > PBC_MAX_LENGTH_BYTES || n >= (1u << 31) ||
        n > (uint64_t)(r->end - at))
      return -1;
    f->value = (reader){at, at + n};
    p = at + n;
  } else {
    p = pbc_rt_skip(&d, p, r->end, tag);
  }
  if (!p) return -1;
  r->p = p;
  return 1;
}

/* Whether a record is field `number` of its message: that number with
 * the wire type descriptor.proto's type of it has. libprotobuf reads a
 * record of another wire type as an unknown field, and so does pbc. */
static bool is(const record *f, uint32_t number, pbc_wire_type wire) {
  return f->number == number && f->wire == wire;
}

/* A string field's bytes, copied NUL-terminated, their length before
 * them (for clean()). */
static const char *read_string(loader *l, const record *f) {
  assert(f->wire == PBC_WIRE_LEN);
  size_t n = (size_t)(f->value.end - f->value.p);
  size_t *block = alloc(l, sizeof(size_t) + n + 1);
  if (!block) return NULL;
  block[0] = n;
  char *s = (char *)(block + 1);
  memcpy(s, f->value.p, n);
  s[n] = '\0';
  return s;
}

/* A string read_string copied, once final (a later occurrence of a field
 * replaces an earlier one, as in libprotobuf): a NUL inside is refused,
 * names being C strings everywhere else. NULL (absent) passes. */
static bool clean(loader *l, const char *s, const char *what) {
  if (!s || strlen(s) == ((const size_t *)(const void *)s)[-1]) return true;
  return fail(l, "%s holds a NUL byte", what);
}

static bool malformed(loader *l, const char *what) {
  return fail(l, "not a FileDescriptorSet: a %s is not a valid message", what);
}

/* How many messages numbered `number` a message holds (to size arrays). */
static bool count(loader *l, reader r, uint32_t number, uint32_t *n,
                  const char *what) {
  record f;
  int k;
  *n = 0;
  while ((k = next(&r, &f)) == 1)
    if (is(&f, number, PBC_WIRE_LEN)) {
      if (*n == UINT32_MAX) return fail(l, "too many %ss", what);
      ++*n;
    }
  return k == 0 || malformed(l, what);
}

/* A FeatureSet (FileOptions 50, MessageOptions 12, FieldOptions 21,
 * OneofOptions 1, EnumOptions 7) over `base`: an unset feature (or one of
 * its *_UNKNOWN zero values) inherits. */
static bool read_features(loader *l, reader r, features *out) {
  record f;
  int k;
  while ((k = next(&r, &f)) == 1) {
    if (f.wire != PBC_WIRE_VARINT || f.varint == 0 || f.varint > 3) continue;
    uint8_t v = (uint8_t)f.varint;
    switch (f.number) {
    case 1: out->presence = v; break;
    case 2: if (v <= 2) out->enum_type = v; break;
    case 3: if (v <= 2) out->repeated = v; break;
    case 4: if (v >= 2) out->utf8 = v; break;
    case 5: if (v <= 2) out->encoding = v; break;
    default: break;
    }
  }
  return k == 0 || malformed(l, "FeatureSet");
}

/* Options whose features are field `features_number`; `flag` (if not NULL)
 * gets the bool field `flag_number`. */
static bool read_options(loader *l, reader r, uint32_t features_number,
                         features *out, uint32_t flag_number, int8_t *flag) {
  record f;
  int k;
  while ((k = next(&r, &f)) == 1) {
    if (is(&f, features_number, PBC_WIRE_LEN)) {
      if (!read_features(l, f.value, out)) return false;
    } else if (flag && is(&f, flag_number, PBC_WIRE_VARINT)) {
      *flag = f.varint != 0;
    }
  }
  return k == 0 || malformed(l, "options message");
}

static const char *join(loader *l, const char *scope, const char *name) {
  size_t a = strlen(scope), b = strlen(name);
  char *s = alloc(l, a + b + 2);
  if (!s) return NULL;
  if (a) {
    memcpy(s, scope, a);
    s[a++] = '.';
  }
  memcpy(s + a, name, b + 1);
  return s;
}

static bool define(loader *l, const char *name, lmsg *m, lenum *e);
static named *insert(loader *l, table *t, const char *name);

/* EnumDescriptorProto: name 1, value 2 (name 1, number 2), options 3. */
static bool read_enum(loader *l, reader r, const char *scope,
                      features parent) {
  lenum *e = alloc_zero(l, 1, sizeof *e);
  if (!e || !count(l, r, 2, &e->value_count, "enum value")) return false;
  e->values = alloc_zero(l, e->value_count, sizeof *e->values);
  if (!e->values) return false;
  features fs = parent;
  const char *name = NULL;
  uint32_t v = 0;
  record f;
  while (next(&r, &f) == 1) {
    if (is(&f, 1, PBC_WIRE_LEN)) {
      if (!(name = read_string(l, &f))) return false;
    } else if (is(&f, 2, PBC_WIRE_LEN)) {
      lvalue *value = &e->values[v++];
      record g;
      int k;
      reader vr = f.value;
      while ((k = next(&vr, &g)) == 1) {
        if (is(&g, 1, PBC_WIRE_LEN)) {
          if (!(value->name = read_string(l, &g)))
            return false;
        } else if (is(&g, 2, PBC_WIRE_VARINT)) {
          value->number = (int32_t)(uint32_t)g.varint;
        }
      }
      if (k != 0) return malformed(l, "EnumValueDescriptorProto");
      if (!value->name) return fail(l, "an enum value has no name");
      if (!clean(l, value->name, "an enum value's name")) return false;
    } else if (is(&f, 3, PBC_WIRE_LEN)) {
      if (!read_options(l, f.value, 7, &fs, 0, NULL)) return false;
    }
  }
  if (!name) return fail(l, "an enum has no name");
  if (!clean(l, name, "an enum's name")) return false;
  if (!(e->full_name = join(l, scope, name))) return false;
  if (e->value_count == 0)
    return fail(l, "enum %s has no values", e->full_name);
  e->closed = fs.enum_type == ENUM_CLOSED;
  return push(l, (void ***)&l->s->enums, &l->s->enum_count, &l->s->enum_cap,
              e) &&
         define(l, e->full_name, NULL, e);
}

/* FieldDescriptorProto: name 1, number 3, label 4, type 5, type_name 6,
 * default_value 7, options 8 (packed 2, features 21), oneof_index 9,
 * json_name 10, proto3_optional 17. */
static bool read_field(loader *l, reader r, lfield *fd) {
  fd->oneof_decl = -1;
  fd->packed_option = -1;
  /* An absent label, or one descriptor.proto's closed enum does not have
   * (which libprotobuf keeps as an unknown field), is the default. */
  fd->label = LABEL_OPTIONAL;
  record f;
  int k;
  while ((k = next(&r, &f)) == 1) {
    /* Strings and options are LEN, the rest varints. */
    bool len = f.number == 1 || f.number == 6 || f.number == 7 ||
               f.number == 8 || f.number == 10;
    if (f.wire != (len ? PBC_WIRE_LEN : PBC_WIRE_VARINT)) continue;
    switch (f.number) {
    case 1:
      if (!(fd->name = read_string(l, &f))) return false;
      break;
    case 3:
      fd->number = (int32_t)(uint32_t)f.varint;
      break;
    case 4:
      if (f.varint >= LABEL_OPTIONAL && f.varint <= LABEL_REPEATED)
        fd->label = (uint8_t)f.varint;
      break;
    case 5:
      /* One the enum lacks is no type: the type name decides. */
      if (f.varint >= PBC_TYPE_DOUBLE && f.varint <= PBC_TYPE_SINT64)
        fd->type = (uint8_t)f.varint;
      break;
    case 6:
      if (!(fd->type_name = read_string(l, &f)))
        return false;
      break;
    case 7:
      /* A string default is the value itself, which may hold a NUL
       * (unittest.proto's "hel\000lo"): its length is kept. Every other
       * default is text without one (bytes are C-escaped), which
       * default_bits checks. */
      if (!(fd->default_value = read_string(l, &f)))
        return false;
      fd->default_size = (size_t)(f.value.end - f.value.p);
      fd->has_default = true;
      break;
    case 8:
      if (!read_options(l, f.value, 21, &fd->features, 2, &fd->packed_option))
        return false;
      break;
    case 9:
      fd->oneof_decl = f.varint <= INT32_MAX ? (int32_t)f.varint : INT32_MAX;
      break;
    case 10:
      if (!(fd->json_name = read_string(l, &f)))
        return false;
      break;
    case 17:
      fd->proto3_optional = f.varint != 0;
      break;
    default:
      break;
    }
  }
  if (k != 0) return malformed(l, "FieldDescriptorProto");
  if (!fd->name) return fail(l, "a field has no name");
  return clean(l, fd->name, "a field's name") &&
         clean(l, fd->type_name, "a field's type_name") &&
         clean(l, fd->json_name, "a field's json_name");
}

static bool read_extension(loader *l, reader r, const char *scope,
                           const lfile *file, features parent);

/* DescriptorProto: name 1, field 2, nested_type 3, enum_type 4, extension
 * 6, extension_range 5 (start 1, end 2), options 7 (message_set_wire_format
 * 1, map_entry 7, features 12), oneof_decl 8 (name 1, options 2: features
 * 1). Reserved ranges are skipped. `fs` is the scope's features;
 * the fields' own are merged once the oneofs are known. */
static bool read_message(loader *l, reader r, const char *scope,
                         const lfile *file, features parent, unsigned depth) {
  /* Nested messages recurse: a hostile set must not run the stack out. */
  if (depth >= PBC_DEFAULT_MAX_DEPTH)
    return fail(l, "messages nested more than %u deep in %s",
                PBC_DEFAULT_MAX_DEPTH, scope);
  lmsg *m = alloc_zero(l, 1, sizeof *m);
  if (!m) return false;
  m->file = file;
  if (!count(l, r, 2, &m->field_count, "field") ||
      !count(l, r, 8, &m->oneof_decl_count, "oneof") ||
      !count(l, r, 5, &m->ext_range_count, "extension range"))
    return false;
  m->ext_ranges = alloc_zero(l, 2 * (size_t)m->ext_range_count + 1,
                             sizeof *m->ext_ranges);
  if (!m->ext_ranges) return false;
  m->fields = alloc_zero(l, m->field_count, sizeof *m->fields);
  m->oneof_decls = alloc_zero(l, m->oneof_decl_count, sizeof *m->oneof_decls);
  if (!m->fields || !m->oneof_decls) return false;
  /* The name and options first: the full name scopes the nested types and
   * the options' features are their parent's. */
  const char *name = NULL;
  int8_t map_entry = 0;
  m->features = parent;
  record f;
  reader it = r;
  while (next(&it, &f) == 1) {
    if (is(&f, 1, PBC_WIRE_LEN)) {
      if (!(name = read_string(l, &f))) return false;
    } else if (is(&f, 7, PBC_WIRE_LEN)) {
      if (!read_options(l, f.value, 12, &m->features, 7, &map_entry))
        return false;
      record g;
      reader o = f.value; /* read_options checked it */
      while (next(&o, &g) == 1)
        if (is(&g, 1, PBC_WIRE_VARINT)) m->message_set = g.varint != 0;
    }
  }
  if (!name) return fail(l, "a message has no name");
  if (!clean(l, name, "a message's name") ||
      !(m->full_name = join(l, scope, name)))
    return false;
  m->map_entry = map_entry == 1;
  if (!push(l, (void ***)&l->s->messages, &l->s->message_count,
            &l->s->message_cap, m) ||
      !define(l, m->full_name, m, NULL))
    return false;

  uint32_t field = 0, oneof = 0, range = 0;
  it = r;
  while (next(&it, &f) == 1) {
    if (f.wire != PBC_WIRE_LEN) continue; /* every field read here is */
    switch (f.number) {
    case 5: {
      /* Unset, start and end are 0: refused by check_ext_ranges. */
      uint32_t *x = &m->ext_ranges[2 * range++];
      record g;
      int k;
      reader rr = f.value;
      while ((k = next(&rr, &g)) == 1) {
        if (is(&g, 1, PBC_WIRE_VARINT))
          x[0] = g.varint <= UINT32_MAX ? (uint32_t)g.varint : UINT32_MAX;
        else if (is(&g, 2, PBC_WIRE_VARINT))
          x[1] = g.varint <= UINT32_MAX ? (uint32_t)g.varint : UINT32_MAX;
      }
      if (k != 0) return malformed(l, "ExtensionRange");
      break;
    }
    case 2:
      m->fields[field].features = m->features;
      if (!read_field(l, f.value, &m->fields[field++])) return false;
      break;
    case 3:
      if (!read_message(l, f.value, m->full_name, file, m->features,
                        depth + 1))
        return false;
      break;
    case 4:
      if (!read_enum(l, f.value, m->full_name, m->features))
        return false;
      break;
    case 6:
      if (!read_extension(l, f.value, m->full_name, file, m->features))
        return false;
      break;
    case 8: {
      loneof *o = &m->oneof_decls[oneof++];
      o->features = m->features;
      record g;
      int k;
      reader orr = f.value;
      while ((k = next(&orr, &g)) == 1) {
        if (is(&g, 1, PBC_WIRE_LEN)) {
          if (!(o->name = read_string(l, &g))) return false;
        } else if (is(&g, 2, PBC_WIRE_LEN)) {
          if (!read_options(l, g.value, 1, &o->features, 0, NULL))
            return false;
        }
      }
      if (k != 0) return malformed(l, "OneofDescriptorProto");
      if (!o->name) return fail(l, "a oneof of %s has no name", m->full_name);
      if (!clean(l, o->name, "a oneof's name")) return false;
      break;
    }
    default:
      break;
    }
  }
  /* A field's features: its scope's (the message's, or its oneof's), then
   * its own options' (read over the message's above). Reading them again
   * over the right base is simpler than remembering which were set. */
  it = r;
  field = 0;
  while (next(&it, &f) == 1) {
    if (!is(&f, 2, PBC_WIRE_LEN)) continue;
    lfield *fd = &m->fields[field++];
    fd->features = m->features;
    if (fd->oneof_decl >= 0 && (uint32_t)fd->oneof_decl < m->oneof_decl_count)
      fd->features = m->oneof_decls[fd->oneof_decl].features;
    record g;
    reader fr = f.value;
    while (next(&fr, &g) == 1)
      if (is(&g, 8, PBC_WIRE_LEN) &&
          !read_options(l, g.value, 21, &fd->features, 0, NULL))
        return false;
  }
  return true;
}

/* The features a file's syntax or edition starts from. */
static features file_defaults(uint8_t syntax) {
  features fs;
  switch (syntax) {
  case PBC_SYNTAX_PROTO2:
    fs = (features){PRESENCE_EXPLICIT, ENUM_CLOSED, REPEATED_EXPANDED,
                    UTF8_NONE, ENCODING_LENGTH_PREFIXED};
    break;
  case PBC_SYNTAX_PROTO3:
    fs = (features){PRESENCE_IMPLICIT, ENUM_OPEN, REPEATED_PACKED,
                    UTF8_VERIFY, ENCODING_LENGTH_PREFIXED};
    break;
  default: /* 2023 and 2024 agree on every feature pbc reads */
    fs = (features){PRESENCE_EXPLICIT, ENUM_OPEN, REPEATED_PACKED,
                    UTF8_VERIFY, ENCODING_LENGTH_PREFIXED};
    break;
  }
  return fs;
}

/* FieldDescriptorProto in an `extend` block (its extendee is field 2),
 * in the scope of a file's package or of a message. */
static bool read_extension(loader *l, reader r, const char *scope,
                           const lfile *file, features parent) {
  lext *x = alloc_zero(l, 1, sizeof *x);
  if (!x) return false;
  x->field.features = parent;
  if (!read_field(l, r, &x->field)) return false;
  record f;
  int k;
  while ((k = next(&r, &f)) == 1)
    if (is(&f, 2, PBC_WIRE_LEN) && !(x->extendee = read_string(l, &f)))
      return false;
  if (k != 0) return malformed(l, "FieldDescriptorProto");
  if (!(x->full_name = join(l, scope, x->field.name))) return false;
  if (!x->extendee)
    return fail(l, "extension %s has no extendee", x->full_name);
  if (!clean(l, x->extendee, "an extension's extendee")) return false;
  /* What errors name: the scope, and the field's name after it. */
  x->scope.full_name = scope[0] ? scope : x->full_name;
  x->scope.file = file;
  named *at = insert(l, &l->s->types, x->full_name);
  if (!at) return false;
  if (at->name) return fail(l, "%s is defined twice", x->full_name);
  *at = (named){x->full_name, NULL, NULL, NULL, x};
  l->s->types.used++;
  return push(l, (void ***)&l->s->extensions, &l->s->extension_count,
              &l->s->extension_cap, x);
}

/* FileDescriptorProto: name 1, package 2, message_type 4, enum_type 5,
 * extension 7, options 8 (features 50), syntax 12, edition 14. */
static bool read_file(loader *l, reader r) {
  lfile *file = alloc_zero(l, 1, sizeof *file);
  if (!file) return false;
  const char *package = NULL, *syntax = NULL; /* "" and "proto2" if absent */
  uint64_t edition = 0;
  reader options = {NULL, NULL};
  record f;
  int k;
  reader it = r;
  while ((k = next(&it, &f)) == 1) {
    if (is(&f, 1, PBC_WIRE_LEN)) {
      if (!(file->name = read_string(l, &f))) return false;
    } else if (is(&f, 2, PBC_WIRE_LEN)) {
      if (!(package = read_string(l, &f))) return false;
    } else if (is(&f, 8, PBC_WIRE_LEN)) {
      options = f.value;
    } else if (is(&f, 12, PBC_WIRE_LEN)) {
      if (!(syntax = read_string(l, &f))) return false;
    } else if (is(&f, 14, PBC_WIRE_VARINT)) {
      edition = f.varint;
    }
  }
  if (k != 0) return malformed(l, "FileDescriptorProto");
  if (!file->name) return fail(l, "a file in the set has no name");
  if (!clean(l, file->name, "a file's name") ||
      !clean(l, package, "a file's package") ||
      !clean(l, syntax, "a file's syntax"))
    return false;
  if (!package) package = "";
  if (!syntax) syntax = "proto2";
  /* protoc keeps a file's first definition. */
  named *entry = insert(l, &l->s->file_names, file->name);
  if (!entry) return false;
  if (entry->name) return true;
  *entry = (named){file->name, NULL, NULL, file, NULL};
  l->s->file_names.used++;
  l->file = file->name;
  if (strcmp(syntax, "proto2") == 0) {
    file->syntax = PBC_SYNTAX_PROTO2;
  } else if (strcmp(syntax, "proto3") == 0) {
    file->syntax = PBC_SYNTAX_PROTO3;
  } else if (strcmp(syntax, "editions") == 0) {
    if (edition != 1000 && edition != 1001)
      return fail(l, "edition %llu is not supported; pbc reads editions 2023 "
                     "and 2024 (Edition values 1000, 1001)",
                  (unsigned long long)edition);
    file->syntax = PBC_SYNTAX_EDITIONS;
    file->edition = (uint16_t)edition;
  } else {
    return fail(l, "unknown syntax \"%s\"", syntax);
  }
  features fs = file_defaults(file->syntax);
  if (options.p && !read_options(l, options, 50, &fs, 0, NULL)) return false;
  if (!push(l, (void ***)&l->s->files, &l->s->file_count, &l->s->file_cap,
            file))
    return false;
  it = r;
  while (next(&it, &f) == 1) {
    if (is(&f, 4, PBC_WIRE_LEN)) {
      if (!read_message(l, f.value, package, file, fs, 0))
        return false;
    } else if (is(&f, 5, PBC_WIRE_LEN)) {
      if (!read_enum(l, f.value, package, fs))
        return false;
    } else if (is(&f, 7, PBC_WIRE_LEN)) {
      if (!read_extension(l, f.value, package, file, fs))
        return false;
    }
  }
  l->file = NULL;
  return true;
}

/* ---- Names ------------------------------------------------------------- */

static uint64_t hash(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
  return h;
}

static named *slot(const table *t, const char *name) {
  if (!t->slots) return NULL;
  for (size_t i = hash(name) & t->mask;; i = (i + 1) & t->mask)
    if (!t->slots[i].name || strcmp(t->slots[i].name, name) == 0)
      return &t->slots[i];
}

/* The entry `e.name` will have: an empty one, or the one holding it. */
static named *insert(loader *l, table *t, const char *name) {
  if (!t->slots || (t->used + 1) * 2 > t->mask + 1) {
    size_t n = t->slots ? (t->mask + 1) * 2 : 64;
    table grown = {calloc(n, sizeof(named)), n - 1, t->used};
    if (!grown.slots) return out_of_memory(l), NULL;
    for (size_t i = 0; t->slots && i <= t->mask; i++)
      if (t->slots[i].name) *slot(&grown, t->slots[i].name) = t->slots[i];
    free(t->slots);
    *t = grown;
  }
  return slot(t, name);
}

/* A type's full name, entered as it is read. */
static bool define(loader *l, const char *name, lmsg *m, lenum *e) {
  named *at = insert(l, &l->s->types, name);
  if (!at) return false;
  if (at->name) return fail(l, "%s is defined twice", name);
  *at = (named){name, m, e, NULL, NULL};
  l->s->types.used++;
  return true;
}

/* ---- Resolving --------------------------------------------------------- */

static bool packable(uint8_t type) {
  return type != PBC_TYPE_STRING && type != PBC_TYPE_BYTES &&
         type != PBC_TYPE_MESSAGE && type != PBC_TYPE_GROUP;
}

/* A field's target, and what its features and syntax decide: the same
 * rules as compiler/Frontend.cpp (proto2, proto3) and DescriptorSet.cpp
 * (editions). */
static bool resolve_field(loader *l, lmsg *m, lfield *f) {
  l->field = f->name;
  if (f->number < 1 || (uint32_t)f->number > PBC_MAX_FIELD_NUMBER)
    return fail(l, "field number %d is not 1 to %u", f->number,
                PBC_MAX_FIELD_NUMBER);
  if (f->type_name) {
    if (f->type_name[0] != '.')
      return fail(l, "type name \"%s\" is not fully qualified", f->type_name);
    named *n = slot(&l->s->types, f->type_name + 1);
    if (!n || !n->name)
      return fail(l, "type %s is not defined", f->type_name);
    if (f->type == 0)
      f->type = n->message ? PBC_TYPE_MESSAGE : PBC_TYPE_ENUM;
    f->message = n->message;
    f->enumeration = n->enumeration;
  }
  /* No type and no type name: descriptor.proto's default, as libprotobuf
   * reads it. */
  if (f->type == 0) f->type = PBC_TYPE_DOUBLE;
  bool is_message = pbc_tbl_is_message(&(pbc_field_desc){.type = f->type});
  if (is_message ? !f->message : f->type == PBC_TYPE_ENUM && !f->enumeration)
    return fail(l, "type %s is not %s", f->type_name ? f->type_name : "(none)",
                is_message ? "a message" : "an enum");
  if (!is_message && f->type != PBC_TYPE_ENUM && f->type_name)
    f->message = NULL, f->enumeration = NULL;
  if (f->oneof_decl >= 0 && (uint32_t)f->oneof_decl >= m->oneof_decl_count)
    return fail(l, "oneof_index %d, but the message has %u oneofs",
                f->oneof_decl, m->oneof_decl_count);
  bool repeated = f->label == LABEL_REPEATED;
  uint8_t syntax = m->file->syntax;
  if (syntax == PBC_SYNTAX_EDITIONS) {
    if (!repeated && f->features.presence == PRESENCE_REQUIRED)
      f->label = LABEL_REQUIRED;
    /* Map entries are length-prefixed whatever the features say: the
     * entries, and a message value inside one. */
    if (f->type == PBC_TYPE_MESSAGE &&
        f->features.encoding == ENCODING_DELIMITED && !f->message->map_entry &&
        !m->map_entry)
      f->type = PBC_TYPE_GROUP;
  }
  return true;
}

/* Cardinality and flags, once every field's target is resolved. */
static void classify_field(lmsg *m, lfield *f) {
  bool repeated = f->label == LABEL_REPEATED;
  bool is_message = f->type == PBC_TYPE_MESSAGE || f->type == PBC_TYPE_GROUP;
  uint8_t syntax = m->file->syntax;
  bool real_oneof = f->oneof_decl >= 0 && !f->proto3_optional;
  bool implicit =
      !repeated && !is_message && !real_oneof && !f->proto3_optional &&
      f->label != LABEL_REQUIRED &&
      (syntax == PBC_SYNTAX_PROTO3 ||
       (syntax == PBC_SYNTAX_EDITIONS &&
        f->features.presence == PRESENCE_IMPLICIT));
  if (repeated) f->kind = PBC_FIELD_REPEATED;
  else if (real_oneof) f->kind = PBC_FIELD_ONEOF;
  else if (is_message) f->kind = PBC_FIELD_POINTER;
  else if (m->map_entry) f->kind = PBC_FIELD_ALWAYS;
  else if (implicit) f->kind = PBC_FIELD_IMPLICIT;
  else f->kind = PBC_FIELD_BIT;

  uint8_t flags = 0;
  bool packed;
  if (syntax == PBC_SYNTAX_EDITIONS)
    packed = f->features.repeated == REPEATED_PACKED;
  else if (f->packed_option >= 0)
    packed = f->packed_option == 1;
  else
    packed = syntax == PBC_SYNTAX_PROTO3;
  if (repeated && packable(f->type) && packed) flags |= PBC_FIELD_PACKED;
  /* libprotobuf 3.21 checks UTF-8 only in proto3 string fields; editions
   * say so with utf8_validation. */
  if (f->type == PBC_TYPE_STRING &&
      (syntax == PBC_SYNTAX_PROTO3 ||
       (syntax == PBC_SYNTAX_EDITIONS && f->features.utf8 == UTF8_VERIFY)))
    flags |= PBC_FIELD_UTF8;
  if (f->enumeration && f->enumeration->closed) flags |= PBC_FIELD_CLOSED_ENUM;
  if (f->label == LABEL_REQUIRED) flags |= PBC_FIELD_REQUIRED;
  if (repeated && f->message && f->message->map_entry) flags |= PBC_FIELD_MAP;
  f->flags = flags;
}

/* ---- Defaults ---------------------------------------------------------- */

/* A bytes default's C escapes undone in place, as libprotobuf 3.21's
 * UnescapeCEscapeString undoes them (it never fails: an unknown escape,
 * or \x without a hex digit, stands for nothing; octal and hex values are
 * cut to a byte); its new length. */
static size_t unescape(char *s) {
  char *out = s;
  const char *p = s;
  while (*p) {
    if (*p != '\\') {
      *out++ = *p++;
      continue;
    }
    switch (*++p) {
    case '\0': *out = '\0'; return (size_t)(out - s);
    case 'a': *out++ = '\a'; break;
    case 'b': *out++ = '\b'; break;
    case 'f': *out++ = '\f'; break;
    case 'n': *out++ = '\n'; break;
    case 'r': *out++ = '\r'; break;
    case 't': *out++ = '\t'; break;
    case 'v': *out++ = '\v'; break;
    case '\\': case '?': case '\'': case '"': *out++ = *p; break;
    case '0': case '1': case '2': case '3':
    case '4': case '5': case '6': case '7': {
      unsigned v = (unsigned)(*p - '0');
      for (int i = 0; i < 2 && p[1] >= '0' && p[1] <= '7'; i++)
        v = v * 8 + (unsigned)(*++p - '0');
      *out++ = (char)v;
      break;
    }
    case 'x': case 'X': {
      if (!isxdigit((unsigned char)p[1])) break;
      unsigned v = 0;
      while (isxdigit((unsigned char)p[1])) {
        char c = *++p;
        v = (v << 4) + (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
      }
      *out++ = (char)v;
      break;
    }
    default: break;
    }
    p++;
  }
  *out = '\0';
  return (size_t)(out - s);
}

/* Integers as libprotobuf 3.21 reads a default: strtol, strtoul (cut to
 * 32 bits: an out-of-range value wraps), strtoll and strtoull (which
 * saturate), base 0; only text that is no number, or has junk after it, is
 * refused. */
static bool parse_integer(const char *s, uint8_t type, uint64_t *out) {
  char *end;
  switch (type) {
  case PBC_TYPE_INT32: case PBC_TYPE_SINT32: case PBC_TYPE_SFIXED32:
    *out = (uint32_t)strtol(s, &end, 0);
    break;
  case PBC_TYPE_UINT32: case PBC_TYPE_FIXED32:
    *out = (uint32_t)strtoul(s, &end, 0);
    break;
  case PBC_TYPE_INT64: case PBC_TYPE_SINT64: case PBC_TYPE_SFIXED64:
    *out = (uint64_t)strtoll(s, &end, 0);
    break;
  default:
    *out = strtoull(s, &end, 0);
    break;
  }
  return end != s && *end == '\0';
}

static bool parse_double(const char *s, double *out) {
  if (strcmp(s, "inf") == 0) *out = INFINITY;
  else if (strcmp(s, "-inf") == 0) *out = -INFINITY;
  else if (strcmp(s, "nan") == 0) *out = NAN;
  else {
    char *end;
    *out = strtod(s, &end);
    if (end == s || *end) return false;
  }
  return true;
}

static int by_value_name(const void *a, const void *b) {
  return strcmp(((const lvalue *)a)->name, ((const lvalue *)b)->name);
}

/* A field's default as pbc_default.value holds it (a view's: its bytes,
 * whose length goes to *size). False: not a value of the field. */
static bool default_bits(loader *l, lfield *f, uint64_t *bits) {
  const char *s = f->default_value;
  double d;
  if (f->type != PBC_TYPE_STRING && strlen(s) != f->default_size) return false;
  switch (f->type) {
  case PBC_TYPE_INT32: case PBC_TYPE_SINT32: case PBC_TYPE_SFIXED32:
  case PBC_TYPE_INT64: case PBC_TYPE_SINT64: case PBC_TYPE_SFIXED64:
  case PBC_TYPE_UINT32: case PBC_TYPE_FIXED32:
  case PBC_TYPE_UINT64: case PBC_TYPE_FIXED64:
    return parse_integer(s, f->type, bits);
  case PBC_TYPE_BOOL:
    if (strcmp(s, "true") && strcmp(s, "false")) return false;
    *bits = strcmp(s, "true") == 0;
    return true;
  case PBC_TYPE_DOUBLE:
    if (!parse_double(s, &d)) return false;
    memcpy(bits, &d, 8);
    return true;
  case PBC_TYPE_FLOAT: {
    if (!parse_double(s, &d)) return false;
    /* libprotobuf's SafeDoubleToFloat: beyond the floats, infinity (up to
     * the double FLT_MAX prints as, FLT_MAX). */
    const double max_rounded = 3.4028235677973366e+38;
    float v = d > FLT_MAX    ? (d <= max_rounded ? FLT_MAX : INFINITY)
              : d < -FLT_MAX ? (d >= -max_rounded ? -FLT_MAX : -INFINITY)
                             : (float)d;
    uint32_t b;
    memcpy(&b, &v, 4);
    *bits = b;
    return true;
  }
  case PBC_TYPE_ENUM: {
    lvalue key = {s, 0};
    const lvalue *v = bsearch(&key, f->enumeration->by_name,
                              f->enumeration->value_count, sizeof key,
                              by_value_name);
    if (!v) return false;
    *bits = (uint32_t)v->number;
    return true;
  }
  case PBC_TYPE_STRING:
    return true;
  case PBC_TYPE_BYTES: {
    char *copy = alloc(l, strlen(s) + 1);
    if (!copy) return false;
    strcpy(copy, s);
    f->default_size = unescape(copy);
    f->default_value = copy;
    return true;
  }
  default:
    return false;
  }
}

/* A classified field's default: declared (proto2, editions), or an enum's
 * first value when it is not zero; PBC_FIELD_DEFAULT when it has one.
 * False (the load fails) when it cannot have the one declared. */
static bool field_default(loader *l, uint8_t syntax, lfield *f) {
  bool can_default = syntax != PBC_SYNTAX_PROTO3 &&
                     f->kind != PBC_FIELD_REPEATED &&
                     !pbc_tbl_is_message(&(pbc_field_desc){.type = f->type});
  if (f->has_default && !can_default)
    return fail(l, "a default on a field that cannot have one");
  if (!f->has_default && can_default && f->type == PBC_TYPE_ENUM &&
      f->enumeration->values[0].number != 0) {
    f->has_default = true;
    f->default_value = f->enumeration->values[0].name;
    f->default_size = strlen(f->default_value);
  }
  if (!f->has_default) return true;
  if (!default_bits(l, f, &f->default_bits)) {
    if (l->status != PBC_OK) return false;
    return fail(l, "default \"%s\" is not a value of the field",
                f->default_value);
  }
  f->flags |= PBC_FIELD_DEFAULT;
  return true;
}

/* ---- Describing -------------------------------------------------------- */

/* The compiler's json_name rule (Naming.cpp): '_' dropped, the next
 * character upper-cased. */
static const char *json_name(loader *l, const char *name) {
  char *out = alloc(l, strlen(name) + 1), *o = out;
  if (!out) return NULL;
  bool upper = false;
  for (const char *p = name; *p; p++) {
    if (*p == '_') {
      upper = true;
      continue;
    }
    *o++ = upper && *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
    upper = false;
  }
  *o = '\0';
  return out;
}

/* One struct member to place: its size, alignment and what it is. */
typedef struct member {
  uint32_t size, align;
  int32_t field;  /* index in fields, or -1 */
  int32_t oneof;  /* the union of a real oneof (field -1), or -1 */
  bool is_case;   /* the oneof's case */
  bool unknown;   /* the unknown fields */
} member;

static uint32_t value_bytes(const lfield *f) {
  const pbc_tbl_type *t = &pbc_tbl_types[f->type];
  if (t->handler == PBC_TBL_VIEW) return PBC_VIEW_BYTES;
  if (t->handler == PBC_TBL_MESSAGE || t->handler == PBC_TBL_GROUP) return 8;
  return t->bytes;
}

/* ProtoLayout.cpp's rule: presence bits by field number; members in
 * declaration order (a oneof's union and case where its first field is),
 * the unknown fields last, then sorted by alignment, largest first,
 * keeping that order among equals. */
static bool lay_out(loader *l, lmsg *m, uint32_t *by_number) {
  uint32_t bits = 0;
  for (uint32_t i = 0; i < m->field_count; i++) {
    lfield *f = &m->fields[by_number[i]];
    f->bit = f->kind == PBC_FIELD_BIT ? (int32_t)bits++ : -1;
  }
  m->presence_words = (bits + 31) / 32;

  /* Each real oneof's union: as large and aligned as its largest member. */
  uint32_t *union_size = alloc_zero(l, m->real_oneof_count + 1, sizeof *union_size);
  uint8_t *placed = alloc_zero(l, m->real_oneof_count + 1, 1);
  if (!union_size || !placed) return false;
  for (uint32_t i = 0; i < m->field_count; i++) {
    const lfield *f = &m->fields[i];
    if (f->kind == PBC_FIELD_ONEOF && value_bytes(f) > union_size[f->oneof])
      union_size[f->oneof] = value_bytes(f);
  }
  member *members = alloc(l, (2 * (size_t)m->field_count + 1) * sizeof *members);
  if (!members) return false;
  size_t n = 0;
  for (uint32_t i = 0; i < m->field_count; i++) {
    lfield *f = &m->fields[i];
    if (f->kind != PBC_FIELD_ONEOF) {
      uint32_t size = f->kind == PBC_FIELD_REPEATED ? PBC_VIEW_BYTES : value_bytes(f);
      members[n++] = (member){size, size > 8 ? 8 : size, (int32_t)i, -1, false, false};
      continue;
    }
    if (placed[f->oneof]) continue;
    placed[f->oneof] = 1;
    uint32_t size = union_size[f->oneof];
    members[n++] = (member){size, size > 8 ? 8 : size, -1, f->oneof, false, false};
    members[n++] = (member){4, 4, -1, f->oneof, true, false};
  }
  if (!m->map_entry) members[n++] = (member){PBC_VIEW_BYTES, 8, -1, -1, false, true};
  /* Sorted by alignment, largest first, keeping the order among equals:
   * one pass per alignment (8, 4, 1; a bool's 1). */
  member *sorted = alloc(l, (n + 1) * sizeof *sorted);
  if (!sorted) return false;
  size_t k = 0;
  for (uint32_t a = 8; a >= 1; a /= 2)
    for (size_t i = 0; i < n; i++)
      if (members[i].align == a) sorted[k++] = members[i];
  assert(k == n);
  members = sorted;
  uint64_t offset = m->presence_words * 4;
  uint32_t align = m->presence_words ? 4 : 1;
  for (size_t i = 0; i < n; i++) {
    member *x = &members[i];
    offset = (offset + x->align - 1) / x->align * x->align;
    if (offset > UINT32_MAX / 2) return fail(l, "the message's struct is too large");
    if (x->field >= 0) {
      m->fields[x->field].offset = (uint32_t)offset;
    } else if (x->unknown) {
      m->unknown_offset = (uint32_t)offset;
    } else if (x->is_case) {
      m->case_offsets[x->oneof] = (uint32_t)offset;
    } else {
      union_size[x->oneof] = (uint32_t)offset; /* now the union's offset */
    }
    offset += x->size;
    if (x->align > align) align = x->align;
  }
  for (uint32_t i = 0; i < m->field_count; i++)
    if (m->fields[i].kind == PBC_FIELD_ONEOF)
      m->fields[i].offset = union_size[m->fields[i].oneof];
  offset = (offset + align - 1) / align * align;
  m->size = offset ? (uint32_t)offset : 1;
  if (m->map_entry) m->unknown_offset = PBC_NO_UNKNOWN_FIELDS;
  return true;
}

/* Field indexes by number: an insertion sort would be quadratic on a
 * hostile set, qsort of (number, index) pairs is not. */
typedef struct numbered {
  int64_t number;
  uint32_t index;
} numbered;

static int by_number(const void *a, const void *b) {
  const numbered *x = a, *y = b;
  if (x->number != y->number) return x->number < y->number ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* The extension ranges, sorted, as DescriptorPool checks them: numbers
 * from 1 to the largest field number (a MessageSet's type ids go to
 * INT32_MAX), start before end, apart from one another and from the fields
 * (m->by_number is made). */
static bool check_ext_ranges(loader *l, lmsg *m) {
  uint32_t n = m->ext_range_count, *x = m->ext_ranges;
  uint32_t max = m->message_set ? (uint32_t)INT32_MAX : PBC_MAX_FIELD_NUMBER;
  if (n > UINT16_MAX)
    return fail(l, "%s has more than %u extension ranges", m->full_name,
                UINT16_MAX);
  for (uint32_t i = 0; i < n; i++)
    if (x[2 * i] < 1 || x[2 * i] >= x[2 * i + 1] || x[2 * i + 1] - 1 > max)
      return fail(l, "extension range %u to %u of %s is not a range of field "
                     "numbers", x[2 * i], x[2 * i + 1], m->full_name);
  /* By start: an insertion sort, for the few ranges a message has. */
  for (uint32_t i = 1; i < n; i++) {
    uint32_t s = x[2 * i], e = x[2 * i + 1], j = i;
    for (; j > 0 && x[2 * (j - 1)] > s; j--) {
      x[2 * j] = x[2 * (j - 1)];
      x[2 * j + 1] = x[2 * (j - 1) + 1];
    }
    x[2 * j] = s;
    x[2 * j + 1] = e;
  }
  for (uint32_t i = 1; i < n; i++)
    if (x[2 * i] < x[2 * i - 1])
      return fail(l, "extension ranges of %s overlap at %u", m->full_name,
                  x[2 * i]);
  for (uint32_t i = 0, k = 0; i < m->field_count; i++) {
    const lfield *f = &m->fields[m->by_number[i]];
    while (k < n && x[2 * k + 1] <= (uint32_t)f->number) k++;
    if (k < n && x[2 * k] <= (uint32_t)f->number) {
      l->field = f->name;
      return fail(l, "extension range %u to %u of %s holds field number %d",
                  x[2 * k], x[2 * k + 1] - 1, m->full_name, (int)f->number);
    }
  }
  return true;
}

/* The string pool: a message's strings, each NUL-terminated. */
typedef struct pool {
  char *bytes;
  size_t size, cap;
} pool;

static uint32_t pool_add(pool *p, const char *s, size_t n) {
  uint32_t at = (uint32_t)p->size;
  memcpy(p->bytes + p->size, s, n);
  p->bytes[p->size + n] = '\0';
  p->size += n + 1;
  return at;
}

/* The lookup table (Description.cpp's lookupTable): a power of two
 * between the field count and four times it (at most 2^15) that leaves the
 * fewest fields to the binary search. */
static uint16_t *lookup_table(loader *l, const pbc_field_desc *fields,
                              uint32_t n, uint32_t *mask) {
  uint32_t least = 1;
  while (least < n) least *= 2;
  uint32_t best = least;
  size_t best_misses = SIZE_MAX;
  uint8_t *taken = alloc(l, 4 * (size_t)least);
  if (!taken) return NULL;
  for (uint32_t size = least; size <= 4 * least && size <= (1u << 15); size *= 2) {
    memset(taken, 0, size);
    size_t misses = 0;
    for (uint32_t i = 0; i < n; i++) {
      uint32_t at = fields[i].number & (size - 1);
      misses += taken[at];
      taken[at] = 1;
    }
    if (misses < best_misses) {
      best = size;
      best_misses = misses;
    }
  }
  uint16_t *table = alloc_zero(l, best, sizeof *table);
  if (!table) return NULL;
  for (uint32_t i = 0; i < n; i++) {
    uint16_t *entry = &table[fields[i].number & (best - 1)];
    if (*entry == 0) *entry = (uint16_t)(i + 1);
  }
  *mask = best - 1;
  return table;
}

/* Everything of a message's description but its checks (which need every
 * message's may_require). */
static bool describe(loader *l, lmsg *m) {
  l->message = m->full_name;
  l->file = m->file->name;
  if (m->field_count >= UINT16_MAX || m->oneof_decl_count > UINT16_MAX)
    return fail(l, "more than %u fields or %u oneofs, more than pbc "
                   "describes", UINT16_MAX - 1, UINT16_MAX);
  for (uint32_t i = 0; i < m->field_count; i++)
    if (!resolve_field(l, m, &m->fields[i])) return false;
  l->field = NULL;

  /* Real oneofs (not proto3 optional's synthetic ones), in declaration
   * order: libprotobuf's oneof indexes (it puts synthetic ones last). */
  m->real_oneofs = alloc(l, (m->oneof_decl_count + 1) * sizeof *m->real_oneofs);
  m->case_offsets = alloc(l, (m->oneof_decl_count + 1) * sizeof *m->case_offsets);
  int32_t *index = alloc(l, (m->oneof_decl_count + 1) * sizeof *index);
  if (!m->real_oneofs || !m->case_offsets || !index) return false;
  for (uint32_t j = 0; j < m->oneof_decl_count; j++) index[j] = -1;
  for (uint32_t i = 0; i < m->field_count; i++) {
    const lfield *f = &m->fields[i];
    if (f->oneof_decl >= 0 && !f->proto3_optional) index[f->oneof_decl] = 0;
  }
  for (uint32_t j = 0; j < m->oneof_decl_count; j++)
    if (index[j] == 0) {
      index[j] = (int32_t)m->real_oneof_count;
      m->real_oneofs[m->real_oneof_count++] = (int32_t)j;
    }
  for (uint32_t i = 0; i < m->field_count; i++) {
    lfield *f = &m->fields[i];
    f->oneof = f->oneof_decl >= 0 && !f->proto3_optional ? index[f->oneof_decl] : -1;
  }
  for (uint32_t i = 0; i < m->field_count; i++) {
    lfield *f = &m->fields[i];
    classify_field(m, f);
    /* The codecs keep a required field's presence in a bit (a message's in
     * its pointer), as libprotobuf allows one only there. */
    if (f->label == LABEL_REQUIRED && f->kind != PBC_FIELD_BIT &&
        f->kind != PBC_FIELD_POINTER) {
      l->field = f->name;
      return fail(l, "a required field in a %s",
                  m->map_entry ? "map entry" : "oneof");
    }
  }

  numbered *order = alloc(l, (m->field_count + 1) * sizeof *order);
  uint32_t *by = alloc(l, (m->field_count + 1) * sizeof *by);
  if (!order || !by) return false;
  m->by_number = by;
  for (uint32_t i = 0; i < m->field_count; i++)
    order[i] = (numbered){m->fields[i].number, i};
  qsort(order, m->field_count, sizeof *order, by_number);
  for (uint32_t i = 0; i < m->field_count; i++) {
    by[i] = order[i].index;
    if (i && order[i].number == order[i - 1].number) {
      l->field = m->fields[by[i]].name;
      return fail(l, "field number %d is used twice", (int)order[i].number);
    }
  }
  if (!check_ext_ranges(l, m)) return false;
  if (m->map_entry &&
      (m->field_count != 2 || m->fields[by[0]].number != 1 ||
       m->fields[by[1]].number != 2 ||
       m->fields[by[0]].kind == PBC_FIELD_REPEATED ||
       m->fields[by[1]].kind == PBC_FIELD_REPEATED ||
       pbc_tbl_is_message(&(pbc_field_desc){.type = m->fields[by[0]].type})))
    return fail(l, "a map entry must have a scalar key numbered 1 and a "
                   "value numbered 2");
  if (!lay_out(l, m, by)) return false;

  /* Defaults: declared (proto2, editions), or a closed enum's first value
   * when it is not zero. */
  size_t pool_size = strlen(m->full_name) + strlen(m->file->name) + 2;
  uint32_t defaults = 0;
  for (uint32_t i = 0; i < m->field_count; i++) {
    lfield *f = &m->fields[i];
    l->field = f->name;
    if (!f->json_name && !(f->json_name = json_name(l, f->name))) return false;
    pool_size += strlen(f->name) + strlen(f->json_name) + 2;
    if (!field_default(l, m->file->syntax, f)) return false;
    if (!f->has_default) continue;
    if (pbc_tbl_is_view(&(pbc_field_desc){.type = f->type}))
      pool_size += f->default_size + 1;
    defaults++;
  }
  l->field = NULL;
  for (uint32_t i = 0; i < m->real_oneof_count; i++)
    pool_size += strlen(m->oneof_decls[m->real_oneofs[i]].name) + 1;

  pbc_message_desc *d = m->desc;
  pbc_field_desc *fields = alloc_zero(l, m->field_count, sizeof *fields);
  pbc_field_names *names = alloc_zero(l, m->field_count, sizeof *names);
  pbc_oneof_desc *oneofs = alloc_zero(l, m->real_oneof_count, sizeof *oneofs);
  pbc_default *dflt = alloc_zero(l, defaults, sizeof *dflt);
  const void **links = alloc_zero(l, m->field_count, sizeof *links);
  pool p = {alloc(l, pool_size), 0, pool_size};
  if (!fields || !names || !oneofs || !dflt || !links || !p.bytes) return false;
  pool_add(&p, m->full_name, strlen(m->full_name));
  d->file = pool_add(&p, m->file->name, strlen(m->file->name));

  uint32_t link_count = 0, defaults_at = 0, bit_count = 0, other_count = 0;
  for (uint32_t i = 0; i < m->field_count; i++) {
    lfield *f = &m->fields[by[i]];
    const void *target = f->message ? (const void *)f->message->desc
                         : f->enumeration ? (const void *)f->enumeration->info
                                          : NULL;
    /* Each target once: its stamp says whether this message links it. */
    uint32_t link = 0;
    if (target) {
      uint64_t *stamp = f->message ? &f->message->link_stamp
                                   : &f->enumeration->link_stamp;
      if ((*stamp >> 32) != l->described + 1) {
        *stamp = (uint64_t)(l->described + 1) << 32 | link_count;
        links[link_count++] = target;
      }
      link = (uint32_t)*stamp;
    }
    fields[i] = (pbc_field_desc){
        .number = (uint32_t)f->number,
        .offset = f->offset,
        .presence = (uint16_t)(f->kind == PBC_FIELD_ONEOF ? f->oneof
                               : f->bit >= 0             ? f->bit
                                                         : 0),
        .link = (uint16_t)link,
        .type = f->type,
        .kind = f->kind,
        .flags = f->flags,
        .zero_test = pbc_zero_test_of(f->kind, f->type)};
    names[i].name = pool_add(&p, f->name, strlen(f->name));
    names[i].json_name = strcmp(f->name, f->json_name) == 0
                             ? names[i].name
                             : pool_add(&p, f->json_name, strlen(f->json_name));
    if (f->kind == PBC_FIELD_BIT) bit_count++;
    else other_count++;
  }
  for (uint32_t i = 0; i < m->real_oneof_count; i++) {
    const char *name = m->oneof_decls[m->real_oneofs[i]].name;
    oneofs[i] = (pbc_oneof_desc){m->case_offsets[i], pool_add(&p, name, strlen(name))};
  }

  /* The prototype: zeros and the defaults outside oneofs. */
  uint8_t *prototype = NULL;
  for (uint32_t i = 0; i < m->field_count; i++) {
    lfield *f = &m->fields[by[i]];
    if (!(f->flags & PBC_FIELD_DEFAULT)) continue;
    uint64_t bits = f->default_bits;
    bool view = pbc_tbl_is_view(&(pbc_field_desc){.type = f->type});
    if (view) bits = pool_add(&p, f->default_value, f->default_size);
    dflt[defaults_at++] = (pbc_default){i, view ? (uint32_t)f->default_size : 0, bits};
    if (f->kind == PBC_FIELD_ONEOF) continue;
    if (!prototype && !(prototype = alloc_zero(l, m->size, 1))) return false;
    if (view) {
      pbc_tbl_store_view(prototype + f->offset, (const uint8_t *)p.bytes + bits,
                         f->default_size);
      continue;
    }
    memcpy(prototype + f->offset, &bits, pbc_tbl_types[f->type].bytes);
  }
  /* All zeros (a default of 0 declared): no prototype, as compiled. */
  if (prototype) {
    bool zero = true;
    for (uint32_t i = 0; i < m->size && zero; i++) zero = prototype[i] == 0;
    if (zero) prototype = NULL;
  }

  uint64_t *tags = alloc(l, (m->field_count + 1) * sizeof *tags);
  if (!tags) return false;
  for (uint32_t i = 0; i < m->field_count; i++)
    tags[i] = pbc_tbl_tag_word(fields[i].number, pbc_tbl_written_wire(&fields[i]));
  uint16_t *by_bit = alloc(l, (bit_count + 1) * sizeof *by_bit);
  uint16_t *others = alloc(l, (other_count + 1) * sizeof *others);
  if (!by_bit || !others) return false;
  other_count = 0;
  for (uint32_t i = 0; i < m->field_count; i++) {
    if (fields[i].kind == PBC_FIELD_BIT) by_bit[fields[i].presence] = (uint16_t)i;
    else others[other_count++] = (uint16_t)i;
  }
  uint8_t *by_byte = NULL;
  if (pbc_has_by_byte(fields, m->field_count, m->size)) {
    if (!(by_byte = alloc(l, m->size))) return false;
    pbc_fill_by_byte(fields, m->field_count, m->size, by_byte);
  }
  uint32_t slots = bit_count ? bit_count : by_byte ? m->field_count : 0;
  uint32_t *sizes = NULL;
  if (slots) {
    if (!(sizes = alloc(l, pbc_sizes_words(slots) * sizeof *sizes))) return false;
    pbc_fill_sizes(fields, bit_count ? by_bit : NULL, slots, sizes);
  }
  uint32_t mask;
  uint16_t *lookup = lookup_table(l, fields, m->field_count, &mask);
  if (!lookup) return false;
  uint32_t dense = 0;
  while (dense < m->field_count && fields[dense].number == dense + 1) dense++;

  d->fields = m->field_count ? fields : NULL;
  d->field_names = m->field_count ? names : NULL;
  d->oneofs = m->real_oneof_count ? oneofs : NULL;
  d->defaults = defaults ? dflt : NULL;
  d->links = link_count ? links : NULL;
  d->strings = p.bytes;
  d->field_count = m->field_count;
  d->oneof_count = m->real_oneof_count;
  d->default_count = defaults;
  d->link_count = link_count;
  d->size = m->size;
  d->unknown_offset = m->unknown_offset;
  d->presence_words = (uint16_t)m->presence_words;
  d->dense_below = (uint16_t)dense;
  d->syntax = m->file->syntax;
  d->flags = m->map_entry ? PBC_MESSAGE_MAP_ENTRY : 0;
  d->edition = m->file->edition;
  d->lookup_mask = (uint16_t)mask;
  d->lookup = lookup;
  d->prototype = prototype;
  d->bit_count = (uint16_t)bit_count;
  d->other_count = (uint16_t)other_count;
  d->by_bit = bit_count ? by_bit : NULL;
  d->others = other_count ? others : NULL;
  d->ext_range_count = (uint16_t)m->ext_range_count;
  d->ext_ranges = m->ext_range_count ? m->ext_ranges : NULL;
  d->tags = m->field_count ? tags : NULL;
  d->by_byte = by_byte;
  d->sizes = sizes;

  pbc_message_info *info = m->info;
  info->full_name = d->strings;
  info->struct_size = d->size;
  info->desc = d;
  return true;
}

/* T_is_initialized's checks: the required fields, and the message fields
 * whose messages may hold one at any depth (schemas may be cyclic: a
 * fixpoint over every message). */
static bool describe_checks(loader *l) {
  pbc_schema *s = l->s;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < s->message_count; i++) {
      lmsg *m = s->messages[i];
      if (m->may_require) continue;
      for (uint32_t j = 0; j < m->field_count && !m->may_require; j++) {
        const lfield *f = &m->fields[j];
        m->may_require = f->label == LABEL_REQUIRED ||
                         (f->message && f->message->may_require);
      }
      changed |= m->may_require;
    }
  }
  for (size_t i = 0; i < s->message_count; i++) {
    lmsg *m = s->messages[i];
    pbc_message_desc *d = m->desc;
    uint16_t *checks = alloc(l, (d->field_count + 1) * sizeof *checks);
    if (!checks) return false;
    uint32_t n = 0;
    for (uint32_t j = 0; j < d->field_count; j++) {
      const lfield *f = &m->fields[m->by_number[j]];
      if (f->label == LABEL_REQUIRED || (f->message && f->message->may_require))
        checks[n++] = (uint16_t)j;
    }
    d->checks = n ? checks : NULL;
    d->check_count = (uint16_t)n;
  }
  return true;
}

/* An enum's record: its values by number, aliases in declaration order. */
static bool describe_enum(loader *l, lenum *e) {
  numbered *order = alloc(l, e->value_count * sizeof *order);
  pbc_enum_value *values = alloc(l, e->value_count * sizeof *values);
  size_t pool_size = strlen(e->full_name) + 1;
  for (uint32_t i = 0; i < e->value_count; i++)
    pool_size += strlen(e->values[i].name) + 1;
  pool p = {alloc(l, pool_size), 0, pool_size};
  if (!order || !values || !p.bytes) return false;
  for (uint32_t i = 0; i < e->value_count; i++)
    order[i] = (numbered){e->values[i].number, i};
  qsort(order, e->value_count, sizeof *order, by_number);
  pool_add(&p, e->full_name, strlen(e->full_name));
  for (uint32_t i = 0; i < e->value_count; i++) {
    const lvalue *v = &e->values[order[i].index];
    values[i] = (pbc_enum_value){v->number, pool_add(&p, v->name, strlen(v->name))};
  }
  *e->info = (pbc_enum_info){p.bytes, values, p.bytes, e->value_count,
                             e->closed ? PBC_ENUM_CLOSED : 0};
  if (!(e->by_name = alloc(l, e->value_count * sizeof *e->by_name)))
    return false;
  memcpy(e->by_name, e->values, e->value_count * sizeof *e->by_name);
  qsort(e->by_name, e->value_count, sizeof *e->by_name, by_value_name);
  return true;
}

/* An extension's record (pbc/desc.h's pbc_extension_info), as
 * Description.cpp writes it: resolved and classified as a field of a
 * message in its file, checked against its extendee as libprotobuf's
 * DescriptorPool checks it. */
static bool describe_extension(loader *l, lext *x) {
  lfield *f = &x->field;
  l->file = x->scope.file->name;
  l->message = x->full_name;
  if (x->extendee[0] != '.')
    return fail(l, "type name \"%s\" is not fully qualified", x->extendee);
  named *n = slot(&l->s->types, x->extendee + 1);
  lmsg *base = n && n->name ? n->message : NULL;
  if (!base) return fail(l, "extendee %s is not a message", x->extendee);
  l->message = x->scope.full_name;
  if (!resolve_field(l, &x->scope, f)) return false;
  l->message = x->full_name;
  l->field = NULL;
  classify_field(&x->scope, f);
  if (f->label == LABEL_REQUIRED)
    return fail(l, "an extension cannot be required");
  if (base->map_entry) return fail(l, "extends a map entry");
  for (uint32_t i = 0; i < base->field_count; i++)
    if (base->fields[i].number == f->number)
      return fail(l, "number %d is a field of %s", f->number,
                  base->full_name);
  bool ranged = false;
  for (uint32_t i = 0; i < base->ext_range_count; i++)
    ranged |= (uint32_t)f->number >= base->ext_ranges[2 * i] &&
              (uint32_t)f->number < base->ext_ranges[2 * i + 1];
  if (!ranged)
    return fail(l, "%s does not declare %d as an extension number",
                base->full_name, f->number);
  x->base = base;
  if (base->message_set &&
      (f->type != PBC_TYPE_MESSAGE || f->label != LABEL_OPTIONAL))
    return fail(l, "an extension of a MessageSet must be an optional message");
  if (!field_default(l, x->scope.file->syntax, f)) return false;
  bool view = pbc_tbl_is_view(&(pbc_field_desc){.type = f->type});
  uint8_t flags = f->flags & (PBC_FIELD_PACKED | PBC_FIELD_UTF8 |
                              PBC_FIELD_CLOSED_ENUM | PBC_FIELD_DEFAULT);
  if (f->label == LABEL_REPEATED) flags |= PBC_EXTENSION_REPEATED;
  if (base->message_set) flags |= PBC_EXTENSION_MESSAGE_SET;
  const void *link = f->message ? (const void *)f->message->desc
                     : f->enumeration ? (const void *)f->enumeration->info
                                      : NULL;
  if (!(x->info = alloc_zero(l, 1, sizeof *x->info))) return false;
  *x->info = (pbc_extension_info){
      x->full_name,
      base->desc,
      link,
      f->has_default && view ? f->default_value : NULL,
      f->has_default && !view ? f->default_bits : 0,
      (uint32_t)f->number,
      f->has_default && view ? (uint32_t)f->default_size : 0,
      f->type,
      flags,
      0};
  return true;
}

/* Each extendee's description lists its extensions (pbc_message_desc's
 * `extensions`, NULL-terminated): the encoders place their values among the
 * fields, as they place the linked ones of compiled messages. */
static bool list_extensions(loader *l) {
  pbc_schema *s = l->s;
  uint32_t *counts = alloc_zero(l, s->message_count + 1, sizeof *counts);
  if (!counts) return false;
  /* link_stamp is free once described: an index into counts, plus one. */
  for (size_t i = 0; i < s->message_count; i++) s->messages[i]->link_stamp = i + 1;
  for (size_t i = 0; i < s->extension_count; i++)
    counts[s->extensions[i]->base->link_stamp - 1]++;
  for (size_t i = 0; i < s->message_count; i++) {
    if (!counts[i]) continue;
    const pbc_extension_info **list =
        alloc_zero(l, (size_t)counts[i] + 1, sizeof *list);
    if (!list) return false;
    s->messages[i]->desc->extensions = list;
    counts[i] = 0;
  }
  for (size_t i = 0; i < s->extension_count; i++) {
    lmsg *base = s->extensions[i]->base;
    size_t at = base->link_stamp - 1;
    ((const pbc_extension_info **)base->desc->extensions)[counts[at]++] =
        s->extensions[i]->info;
  }
  return true;
}

static bool load(loader *l, const uint8_t *set, size_t len) {
  pbc_schema *s = l->s;
  reader r = {set, set + len};
  record f;
  int k;
  while ((k = next(&r, &f)) == 1)
    if (is(&f, 1, PBC_WIRE_LEN) && !read_file(l, f.value))
      return false;
  if (k != 0) return malformed(l, "FileDescriptorSet");
  /* Every record first: descriptions link to each other. */
  for (size_t i = 0; i < s->enum_count; i++)
    if (!(s->enums[i]->info = alloc_zero(l, 1, sizeof(pbc_enum_info))) ||
        !describe_enum(l, s->enums[i]))
      return false;
  for (size_t i = 0; i < s->message_count; i++)
    if (!(s->messages[i]->desc = alloc_zero(l, 1, sizeof(pbc_message_desc))) ||
        !(s->messages[i]->info = alloc_zero(l, 1, sizeof(pbc_message_info))))
      return false;
  for (size_t i = 0; i < s->message_count; i++, l->described++)
    if (!describe(l, s->messages[i])) return false;
  s->extension_infos =
      alloc_zero(l, s->extension_count, sizeof *s->extension_infos);
  if (!s->extension_infos) return false;
  for (size_t i = 0; i < s->extension_count; i++) {
    if (!describe_extension(l, s->extensions[i])) return false;
    s->extension_infos[i] = s->extensions[i]->info;
  }
  if (!list_extensions(l)) return false;
  l->message = l->file = NULL;
  return describe_checks(l);
}

pbc_status pbc_schema_load(const uint8_t *set, size_t len, pbc_schema **schema,
                           pbc_schema_error *error) {
  *schema = NULL;
  if (error) error->message[0] = '\0';
  pbc_schema *s = calloc(1, sizeof *s);
  if (!s) {
    if (error) snprintf(error->message, sizeof error->message, "out of memory");
    return PBC_ERR_OUT_OF_MEMORY;
  }
  pbc_arena_init(&s->arena, NULL, 0);
  loader l = {.s = s, .error = error, .status = PBC_OK};
  if (!load(&l, set ? set : (const uint8_t *)"", set ? len : 0)) {
    assert(l.status != PBC_OK);
    pbc_schema_free(s);
    return l.status;
  }
  *schema = s;
  return PBC_OK;
}

void pbc_schema_free(pbc_schema *schema) {
  if (!schema) return;
  pbc_arena_destroy(&schema->arena);
  free(schema->messages);
  free(schema->enums);
  free(schema->files);
  free(schema->extensions);
  free(schema->types.slots);
  free(schema->file_names.slots);
  free(schema);
}

const pbc_message_info *pbc_schema_find_message(const pbc_schema *schema,
                                                const char *full_name) {
  const named *n = slot(&schema->types, full_name);
  return n && n->message ? n->message->info : NULL;
}

const pbc_enum_info *pbc_schema_find_enum(const pbc_schema *schema,
                                          const char *full_name) {
  const named *n = slot(&schema->types, full_name);
  return n && n->enumeration ? n->enumeration->info : NULL;
}

size_t pbc_schema_message_count(const pbc_schema *schema) {
  return schema->message_count;
}

const pbc_message_info *pbc_schema_message_at(const pbc_schema *schema,
                                              size_t i) {
  return i < schema->message_count ? schema->messages[i]->info : NULL;
}

const pbc_extension_info *pbc_schema_find_extension(const pbc_schema *schema,
                                                    const char *full_name) {
  const named *n = slot(&schema->types, full_name);
  return n && n->extension ? n->extension->info : NULL;
}

const pbc_extension_info *const *
pbc_schema_extensions(const pbc_schema *schema, size_t *count) {
  *count = schema->extension_count;
  return schema->extension_infos;
}

const pbc_message_info *pbc_schema_finder(const void *ctx,
                                          const char *full_name) {
  return pbc_schema_find_message((const pbc_schema *)ctx, full_name);
}
