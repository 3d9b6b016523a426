/* Compiles a schema at run time into this process and uses one of its
 * messages through the compiled code (link libpbc_jit and
 * libpbc_runtime.a).
 *   jit_example SET.pb MESSAGE [OPT_LEVEL] < message.bin */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbc/jit.h"
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
  if (argc != 3 && argc != 4) {
    fprintf(stderr, "usage: %s SET.pb MESSAGE [OPT_LEVEL] < message.bin\n", argv[0]);
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  size_t set_len, in_len;
  char *set = read_all(f, &set_len);
  fclose(f);
  uint8_t *in = (uint8_t *)read_all(stdin, &in_len);

  pbc_jit_options options = PBC_JIT_OPTIONS_DEFAULT;
  if (argc == 4) options.opt_level = (unsigned)atoi(argv[3]);
  pbc_jit_schema *schema;
  pbc_schema_error error;
  if (pbc_jit_load((const uint8_t *)set, set_len, &options, &schema, &error) != PBC_OK) {
    fprintf(stderr, "%s: %s\n", argv[1], error.message);
    return 1;
  }
  const pbc_message_info *type = pbc_jit_find_message(schema, argv[2]);
  if (!type) {
    fprintf(stderr, "no message %s in %s\n", argv[2], argv[1]);
    return 1;
  }
  printf("%s: %zu messages compiled\n", argv[1], pbc_jit_message_count(schema));

  /* The record's functions are the compiled code: call them, or pass the
   * record to pbc.h's and pbc/text.h's generic functions. */
  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  void *m = pbc_message_new(type, &arena);
  pbc_status s = type->decode(m, in, in_len, &arena);
  if (s != PBC_OK) {
    fprintf(stderr, "stdin: %s\n", pbc_status_str(s));
    return 1;
  }
  char out[4096];
  size_t out_len;
  pbc_text_options one_line = {.single_line = true,
                               .expand_any = true,
                               .find_message = pbc_jit_finder,
                               .find_message_ctx = schema};
  pbc_text_print(type, m, out, sizeof out, &out_len, &one_line);
  printf("%.*s\n", (int)(out_len < sizeof out ? out_len : sizeof out), out);

  size_t size = type->encoded_size(m), written;
  uint8_t *bytes = malloc(size ? size : 1);
  type->encode(m, bytes, size, &written);
  printf("encoded again: %zu bytes, %s\n", written,
         written == in_len && memcmp(bytes, in, in_len) == 0 ? "the same" : "different");

  free(bytes);
  pbc_arena_destroy(&arena);
  pbc_jit_free(schema);
  free(set);
  free(in);
  return 0;
}
