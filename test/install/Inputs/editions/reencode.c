/* Decodes standard input as the message a command-line argument names
 * (through pbc_find_message: link the library whole) and writes it encoded
 * again to standard output. Exit status 2 when pbc rejects the input. */
#include <stdio.h>
#include <stdlib.h>

#include "pbc/pbc.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s MESSAGE < in.bin > out.bin\n", argv[0]);
    return 1;
  }
  const pbc_message_info *info = pbc_find_message(argv[1]);
  if (!info) {
    fprintf(stderr, "%s: no message %s\n", argv[0], argv[1]);
    return 1;
  }
  static uint8_t in[1 << 16];
  size_t n = fread(in, 1, sizeof in, stdin);
  void *m = malloc(info->struct_size);
  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  pbc_status st = info->decode(m, in, n, &arena);
  if (st != PBC_OK) {
    fprintf(stderr, "%s: decode: %s\n", argv[0], pbc_status_str(st));
    return 2;
  }
  size_t size = info->encoded_size(m), written = 0;
  uint8_t *out = malloc(size ? size : 1);
  st = info->encode(m, out, size, &written);
  if (st != PBC_OK || written != size) {
    fprintf(stderr, "%s: encode: %s\n", argv[0], pbc_status_str(st));
    return 1;
  }
  fwrite(out, 1, written, stdout);
  free(out);
  free(m);
  pbc_arena_destroy(&arena);
  return 0;
}
