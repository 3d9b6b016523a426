/* Decodes standard input as the message a command-line argument names
 * and writes it encoded again to standard output. The message is the
 * linked library's (pbc_find_message: link the library whole), or with a
 * second argument, a FileDescriptorSet, that set's as loaded at run time
 * (pbc_schema_load: the table codec on descriptions built in memory).
 * Exit status 2 when pbc rejects the input. */
#include <stdio.h>
#include <stdlib.h>

#include "pbc/pbc.h"
#include "pbc/schema.h"

static uint8_t in[1 << 20];

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: %s MESSAGE [SET.pb] < in.bin > out.bin\n", argv[0]);
    return 1;
  }
  pbc_schema *schema = NULL;
  const pbc_message_info *info;
  if (argc == 3) {
    FILE *f = fopen(argv[2], "rb");
    if (!f) {
      perror(argv[2]);
      return 1;
    }
    size_t n = fread(in, 1, sizeof in, f);
    fclose(f);
    pbc_schema_error error;
    pbc_status st = pbc_schema_load(in, n, &schema, &error);
    if (st != PBC_OK) {
      fprintf(stderr, "%s: %s: %s\n", argv[0], argv[2], error.message);
      return 1;
    }
    info = pbc_schema_find_message(schema, argv[1]);
  } else {
    info = pbc_find_message(argv[1]);
  }
  if (!info) {
    fprintf(stderr, "%s: no message %s\n", argv[0], argv[1]);
    return 1;
  }
  size_t n = fread(in, 1, sizeof in, stdin);
  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  void *m = pbc_message_new(info, &arena);
  pbc_status st = m ? pbc_decode(info, m, in, n, &arena, NULL) : PBC_ERR_OUT_OF_MEMORY;
  if (st != PBC_OK) {
    fprintf(stderr, "%s: decode: %s\n", argv[0], pbc_status_str(st));
    return 2;
  }
  size_t size = pbc_message_encoded_size(info, m), written = 0;
  uint8_t *out = malloc(size ? size : 1);
  st = pbc_message_encode(info, m, out, size, &written);
  if (st != PBC_OK || written != size) {
    fprintf(stderr, "%s: encode: %s\n", argv[0], pbc_status_str(st));
    return 1;
  }
  fwrite(out, 1, written, stdout);
  free(out);
  pbc_arena_destroy(&arena);
  pbc_schema_free(schema);
  return 0;
}
