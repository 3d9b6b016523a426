/* Any message by name, read and changed through pbc/field.h: prints every
 * field a binary message sets, one line each (`phones[1].type = WORK`),
 * then sets the top-level fields given as NAME=VALUE, appends the values
 * given as NAME+=VALUE, and prints the result in the text format. It works
 * for every message the program links; it knows none of them.
 *   fields MESSAGE [NAME=VALUE | NAME+=VALUE ...] < message.bin */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbc/field.h"
#include "pbc/text.h"

static void walk(const pbc_message_desc *d, const void *m, const char *prefix);

static void show(const pbc_message_desc *d, const pbc_field_desc *f,
                 pbc_value v, const char *path) {
  const pbc_message_desc *sub = pbc_field_message(d, f);
  if (sub != NULL) {
    char prefix[600];
    snprintf(prefix, sizeof prefix, "%s.", path);
    if (v.message != NULL) walk(sub, v.message, prefix);
    return;
  }
  printf("%s = ", path);
  switch (f->type) {
  case PBC_TYPE_STRING: case PBC_TYPE_BYTES:
    printf("\"%.*s\"\n", (int)v.bytes.size, (const char *)v.bytes.data);
    break;
  case PBC_TYPE_ENUM: {
    const char *name = pbc_enum_value_name(pbc_field_enum(d, f), v.i32);
    if (name != NULL) puts(name);
    else printf("%" PRId32 "\n", v.i32);
    break;
  }
  case PBC_TYPE_BOOL: puts(v.b ? "true" : "false"); break;
  case PBC_TYPE_FLOAT: printf("%g\n", v.f); break;
  case PBC_TYPE_DOUBLE: printf("%g\n", v.d); break;
  case PBC_TYPE_INT64: case PBC_TYPE_SINT64: case PBC_TYPE_SFIXED64:
    printf("%" PRId64 "\n", v.i64);
    break;
  case PBC_TYPE_UINT64: case PBC_TYPE_FIXED64:
    printf("%" PRIu64 "\n", v.u64);
    break;
  case PBC_TYPE_UINT32: case PBC_TYPE_FIXED32:
    printf("%" PRIu32 "\n", v.u32);
    break;
  default:
    printf("%" PRId32 "\n", v.i32);
  }
}

static void walk(const pbc_message_desc *d, const void *m, const char *prefix) {
  for (uint32_t i = 0; i < d->field_count; i++) {
    const pbc_field_desc *f = &d->fields[i];
    if (!pbc_field_has(d, f, m)) continue;
    char path[600];
    if (f->kind != PBC_FIELD_REPEATED) {
      snprintf(path, sizeof path, "%s%s", prefix, pbc_field_name(d, f));
      show(d, f, pbc_field_get(d, f, m), path);
      continue;
    }
    for (size_t j = 0; j < pbc_field_size(d, f, m); j++) {
      snprintf(path, sizeof path, "%s%s[%zu]", prefix, pbc_field_name(d, f), j);
      show(d, f, pbc_field_get_at(d, f, m, j), path);
    }
  }
}

/* A value of f's type from text: false when it is not one. */
static int parse_value(const pbc_message_desc *d, const pbc_field_desc *f,
                       const char *s, pbc_value *v) {
  char *end = NULL;
  memset(v, 0, sizeof *v);
  switch (f->type) {
  case PBC_TYPE_STRING: case PBC_TYPE_BYTES:
    v->str.data = s;
    v->str.size = strlen(s);
    return 1;
  case PBC_TYPE_ENUM:
    return pbc_enum_value_by_name(pbc_field_enum(d, f), s, strlen(s), &v->i32);
  case PBC_TYPE_BOOL:
    v->b = strcmp(s, "true") == 0;
    return v->b || strcmp(s, "false") == 0;
  case PBC_TYPE_FLOAT: v->f = strtof(s, &end); break;
  case PBC_TYPE_DOUBLE: v->d = strtod(s, &end); break;
  case PBC_TYPE_INT64: case PBC_TYPE_SINT64: case PBC_TYPE_SFIXED64:
    v->i64 = strtoll(s, &end, 0);
    break;
  case PBC_TYPE_UINT64: case PBC_TYPE_FIXED64:
    v->u64 = strtoull(s, &end, 0);
    break;
  case PBC_TYPE_UINT32: case PBC_TYPE_FIXED32:
    v->u32 = (uint32_t)strtoul(s, &end, 0);
    break;
  default:
    v->i32 = (int32_t)strtol(s, &end, 0);
  }
  return end != s && *end == '\0';
}

/* NAME=VALUE sets a singular field, NAME+=VALUE appends to a repeated one. */
static int assign(const pbc_message_desc *d, void *m, const char *arg,
                  pbc_arena *arena) {
  const char *eq = strchr(arg, '=');
  if (eq == NULL) return 0;
  int add = eq > arg && eq[-1] == '+';
  const pbc_field_desc *f =
      pbc_field_by_name(d, arg, (size_t)(eq - arg - add), false);
  pbc_value v;
  if (f == NULL || pbc_field_message(d, f) != NULL ||
      (f->kind == PBC_FIELD_REPEATED) != add || !parse_value(d, f, eq + 1, &v))
    return 0;
  if (add) return pbc_field_add(d, f, m, v, arena) != NULL;
  pbc_field_set(d, f, m, v);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MESSAGE [NAME=VALUE ...] < message.bin\n", argv[0]);
    return 2;
  }
  const pbc_message_info *info = pbc_find_message(argv[1]);
  if (info == NULL) {
    fprintf(stderr, "no message %s is linked\n", argv[1]);
    return 1;
  }
  static uint8_t in[1 << 16];
  size_t len = fread(in, 1, sizeof in, stdin);
  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  void *m = pbc_message_new(info, &arena);
  pbc_status s = m ? pbc_decode(info, m, in, len, &arena, NULL) : PBC_ERR_OUT_OF_MEMORY;
  if (s != PBC_OK) {
    fprintf(stderr, "decode: %s\n", pbc_status_str(s));
    return 1;
  }
  walk(info->desc, m, "");
  for (int i = 2; i < argc; i++) {
    if (!assign(info->desc, m, argv[i], &arena)) {
      fprintf(stderr, "%s: not a field of %s and a value of its type\n",
              argv[i], info->full_name);
      return 1;
    }
  }
  static char text[1 << 16];
  size_t n = 0;
  s = pbc_text_print(info, m, text, sizeof text, &n, NULL);
  if (s != PBC_OK) {
    fprintf(stderr, "print: %s\n", pbc_status_str(s));
    return 1;
  }
  fwrite(text, 1, n, stdout);
  pbc_arena_destroy(&arena);
  return 0;
}
