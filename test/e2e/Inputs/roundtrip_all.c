/* Round-trips a default instance of every message linked in (found through
 * pbc_message_count/pbc_message_at): init, encode, decode, encode again.
 * A default message encodes to nothing, except a map entry, which always
 * writes its key and value. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbc/pbc.h"

static int roundtrip(const pbc_message_info *info, pbc_arena *arena) {
  void *m = calloc(1, info->struct_size);
  void *back = calloc(1, info->struct_size);
  uint8_t first[64], second[64];
  size_t n1 = 0, n2 = 0;
  int ok = m && back;
  if (ok) {
    info->init(m);
    size_t size = info->encoded_size(m);
    bool map_entry = strstr(info->full_name, "Entry") != NULL;
    ok = (size == 0 || map_entry) &&
         info->encode(m, first, sizeof first, &n1) == PBC_OK && n1 == size;
    pbc_decode_options partial = {0, true, false};
    ok = ok && pbc_decode(info, back, first, n1, arena, &partial) == PBC_OK &&
         info->encode(back, second, sizeof second, &n2) == PBC_OK &&
         n2 == n1 && memcmp(first, second, n1) == 0;
  }
  if (!ok)
    printf("FAILED: %s\n", info->full_name);
  free(m);
  free(back);
  return ok;
}

int main(void) {
  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  size_t passed = 0, failed = 0;
  for (size_t i = 0; i < pbc_message_count(); i++) {
    if (roundtrip(pbc_message_at(i), &arena))
      passed++;
    else
      failed++;
    pbc_arena_reset(&arena);
  }
  pbc_arena_destroy(&arena);
  printf("%zu passed, %zu failed\n", passed, failed);
  return failed != 0;
}
