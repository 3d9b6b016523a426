/* text_parse.test's driver: parses stdin as text format into the message
 * named by argv[1] (pbc_find_message) with pbc_text_parse, then prints
 * "ok: " and the message on one line (pbc_text_print), or "error NAME
 * L:C: message". Options: --allow-field-number, --allow-partial,
 * --max-depth N. The text is copied into a buffer of exactly its size (no
 * NUL after it), so a sanitized build sees any read past its end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbc/text.h"

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  const pbc_message_info *info = pbc_find_message(argv[1]);
  if (!info) {
    fprintf(stderr, "no message %s\n", argv[1]);
    return 2;
  }
  pbc_text_parse_options o = {0};
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--allow-field-number") == 0) o.allow_field_number = true;
    else if (strcmp(argv[i], "--allow-partial") == 0) o.allow_partial = true;
    else if (strcmp(argv[i], "--max-depth") == 0 && i + 1 < argc) o.max_depth = (uint32_t)atoi(argv[++i]);
    else return 2;
  }
  static char in[1 << 20];
  size_t len = fread(in, 1, sizeof in, stdin);
  char *text = malloc(len ? len : 1);
  memcpy(text, in, len);

  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  void *m = pbc_arena_alloc(&arena, info->struct_size);
  pbc_text_error err;
  pbc_status s = pbc_text_parse(info, m, text, len, &arena, &o, &err);
  free(text);
  if (s != PBC_OK) {
    printf("error %s %u:%u: %s\n", pbc_status_str(s), err.line, err.column, err.message);
  } else {
    pbc_text_options one_line = {.single_line = true};
    static char out[1 << 20];
    size_t n = 0;
    pbc_text_print(info, m, out, sizeof out, &n, &one_line);
    printf("ok: %.*s\n", (int)n, out);
  }
  pbc_arena_destroy(&arena);
  return 0;
}
