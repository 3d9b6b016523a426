/* Text format with extensions (extensions.test): `print NAME FILE` prints
 * the message of type NAME in FILE with pbc_text_print; `parse NAME TEXT
 * OUT` reads TEXT with pbc_text_parse and writes its encoding to OUT. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbc/text.h"

static size_t slurp(const char *path, char *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  if (!f) exit(2);
  size_t n = fread(buf, 1, cap, f);
  fclose(f);
  return n;
}

int main(int argc, char **argv) {
  static char in[1 << 16], out[1 << 16];
  if (argc < 4) return 2;
  const pbc_message_info *info = pbc_find_message(argv[2]);
  if (!info) return 2;
  pbc_arena a;
  pbc_arena_init(&a, NULL, 0);
  void *m = pbc_message_new(info, &a);
  size_t n = slurp(argv[3], in, sizeof in), w = 0;
  pbc_status s;
  if (strcmp(argv[1], "print") == 0) {
    s = pbc_decode(info, m, (const uint8_t *)in, n, &a, NULL);
    if (s == PBC_OK) s = pbc_text_print(info, m, out, sizeof out, &w, NULL);
    if (s == PBC_OK) fwrite(out, 1, w, stdout);
  } else {
    pbc_text_error error;
    s = pbc_text_parse(info, m, in, n, &a, NULL, &error);
    if (s != PBC_OK) fprintf(stderr, "%u:%u: %s\n", error.line, error.column, error.message);
    if (s == PBC_OK) s = pbc_message_encode(info, m, (uint8_t *)out, sizeof out, &w);
    FILE *f = argc > 4 ? fopen(argv[4], "wb") : NULL;
    if (f) {
      fwrite(out, 1, w, f);
      fclose(f);
    }
  }
  pbc_arena_destroy(&a);
  if (s != PBC_OK) fprintf(stderr, "%s\n", pbc_status_str(s));
  return s != PBC_OK;
}
