/* gc_sections.test: a program that uses one message of profile.proto
 * (Warm), and with -DREGISTRY one that also looks messages up by name. */
#include <stdio.h>

#include "profile.pbc.h"

int main(void) {
  uint8_t buf[16] = {0x08, 0x05, 0x12, 0x01, 'w'};
  e2e_profile_Warm w;
  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  pbc_status st = e2e_profile_Warm_decode(&w, buf, 5, &arena);
  size_t n = 0;
  if (st == PBC_OK) st = e2e_profile_Warm_encode(&w, buf, sizeof buf, &n);
  printf("warm: status %d, x %d, %zu bytes\n", (int)st, (int)w.x, n);
#ifdef REGISTRY
  printf("registry: %zu messages, Cold %s\n", pbc_message_count(),
         pbc_find_message("e2e.profile.Cold") ? "found" : "missing");
#endif
  pbc_arena_destroy(&arena);
  return st == PBC_OK ? 0 : 1;
}
