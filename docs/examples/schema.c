/* Loads a schema at run time and uses one of its messages: no generated
 * code, only pbc's runtime (link libpbc_runtime.a).
 *   schema_example SET.pb MESSAGE < message.txt */
#include <stdio.h>
#include <stdlib.h>

#include "pbc/schema.h"
#include "pbc/text.h"

static char *read_all(FILE *f, size_t *n) {
  size_t cap = 1 << 16;
  char *buf = malloc(cap);
  *n = 0;
  for (size_t got; buf && (got = fread(buf + *n, 1, cap - *n, f)) > 0;)
    if ((*n += got) == cap) buf = realloc(buf, cap *= 2);
  return buf;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s SET.pb MESSAGE < message.txt\n", argv[0]);
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  size_t set_len, text_len;
  char *set = read_all(f, &set_len);
  fclose(f);
  char *text = read_all(stdin, &text_len);

  pbc_schema *schema;
  pbc_schema_error error;
  if (pbc_schema_load((const uint8_t *)set, set_len, &schema, &error) != PBC_OK) {
    fprintf(stderr, "%s: %s\n", argv[1], error.message);
    return 1;
  }
  const pbc_message_info *type = pbc_schema_find_message(schema, argv[2]);
  if (!type) {
    fprintf(stderr, "no message %s in %s\n", argv[2], argv[1]);
    return 1;
  }

  /* Text in, binary out, binary back in, text out. */
  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  void *m = pbc_message_new(type, &arena);
  pbc_text_error where;
  pbc_text_parse_options parse = {.find_message = pbc_schema_finder,
                                  .find_message_ctx = schema};
  if (pbc_text_parse(type, m, text, text_len, &arena, &parse, &where) != PBC_OK) {
    fprintf(stderr, "stdin:%u:%u: %s\n", where.line, where.column, where.message);
    return 1;
  }
  size_t size = pbc_message_encoded_size(type, m), written;
  uint8_t *bytes = malloc(size ? size : 1);
  pbc_message_encode(type, m, bytes, size, &written);
  printf("%s: %zu bytes\n", type->full_name, written);

  void *back = pbc_message_new(type, &arena);
  if (pbc_decode(type, back, bytes, written, &arena, NULL) != PBC_OK) return 1;
  char out[4096];
  size_t out_len;
  pbc_text_options one_line = {.single_line = true};
  pbc_text_print(type, back, out, sizeof out, &out_len, &one_line);
  printf("%.*s\n", (int)(out_len < sizeof out ? out_len : sizeof out), out);

  /* Walk the description: what generic code reads. */
  const pbc_message_desc *d = type->desc;
  for (uint32_t i = 0; i < d->field_count; i++)
    printf("  field %u %s\n", d->fields[i].number, pbc_field_name(d, &d->fields[i]));

  free(bytes);
  pbc_arena_destroy(&arena);
  pbc_schema_free(schema);
  free(set);
  free(text);
  return 0;
}
