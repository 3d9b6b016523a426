/* T_write after other bytes in the same chunk: the message is encoded
 * backwards straight into the writer's reservation, and packed varints may
 * be written as whole words spilling below their start, but never below the
 * reservation, which holds the bytes written before. Long varints at the
 * front of the message make a spill reach there if it could. */
#include <stdio.h>
#include <string.h>

#include "t_write_slack.pbc.h"

int main(void) {
  int64_t wide[40];
  uint32_t narrow[3] = {1, 300, 70000};
  for (int i = 0; i < 40; i++) wide[i] = (int64_t)((UINT64_C(1) << (20 + i)) + (uint64_t)i);
  slack_Packed m;
  slack_Packed_init(&m);
  m.wide.data = wide;
  m.wide.size = 40;
  m.narrow.data = narrow;
  m.narrow.size = 3;

  uint8_t want[1024];
  size_t n = 0;
  if (slack_Packed_encode(&m, want, sizeof want, &n) != PBC_OK) {
    printf("FAILED: encode\n");
    return 1;
  }
  int failed = 0;
  for (size_t before = 1; before <= 16; before++) {
    pbc_heap_writer h;
    pbc_heap_writer_init(&h, 4096);
    uint8_t prefix[16];
    memset(prefix, 0xa5, sizeof prefix);
    pbc_writer_write(&h.writer, prefix, before);
    uint8_t got[1100];
    size_t total = before + n;
    int ok = slack_Packed_write(&m, &h.writer) == PBC_OK &&
             pbc_heap_writer_size(&h) == total &&
             pbc_heap_writer_copy(&h, got, sizeof got) == total &&
             memcmp(got, prefix, before) == 0 && memcmp(got + before, want, n) == 0;
    if (!ok) {
      printf("FAILED: %zu bytes before the message\n", before);
      failed++;
    }
    pbc_heap_writer_destroy(&h);
  }
  printf("%s\n", failed ? "some failed" : "all passed");
  return failed != 0;
}
