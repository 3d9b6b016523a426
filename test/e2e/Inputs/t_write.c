/* T_write against T_encode: every payload of a BenchmarkDataset, decoded
 * with pbc, then written through heap writers of many chunk sizes (1 byte
 * up: every value and length straddles a boundary somewhere) and through a
 * chunk with room for all of it; the bytes must equal T_encode's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks.pbc.h"

static uint8_t *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *data = malloc(n > 0 ? (size_t)n : 1);
  *size = fread(data, 1, (size_t)n, f);
  fclose(f);
  return data;
}

static int same_through_writer(const pbc_message_info *info, const void *m,
                               const uint8_t *want, size_t n,
                               size_t chunk_size) {
  pbc_heap_writer h;
  pbc_heap_writer_init(&h, chunk_size);
  int ok = info->write(m, &h.writer) == PBC_OK &&
           pbc_heap_writer_size(&h) == n;
  uint8_t *got = malloc(n + 1);
  ok = ok && pbc_heap_writer_copy(&h, got, n) == n && memcmp(got, want, n) == 0;
  free(got);
  pbc_heap_writer_destroy(&h);
  return ok;
}

int main(int argc, char **argv) {
  static const size_t chunk_sizes[] = {1, 2, 3, 5, 7, 13, 64, 100, 4096, 1 << 20};
  size_t passed = 0, failed = 0;
  for (int a = 1; a < argc; a++) {
    size_t size;
    uint8_t *file = read_file(argv[a], &size);
    pbc_arena arena;
    pbc_arena_init(&arena, NULL, 0);
    benchmarks_BenchmarkDataset dataset;
    if (!file || benchmarks_BenchmarkDataset_decode(&dataset, file, size, &arena)) {
      printf("FAILED: cannot read %s\n", argv[a]);
      return 1;
    }
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)dataset.message_name.size,
             dataset.message_name.data);
    const pbc_message_info *info = pbc_find_message(name);
    for (size_t i = 0; info && i < dataset.payload.size; i++) {
      pbc_bytes payload = dataset.payload.data[i];
      void *m = calloc(1, info->struct_size);
      size_t n = 0;
      uint8_t *want = malloc(payload.size + 16);
      int ok = info->decode(m, payload.data, payload.size, &arena) == PBC_OK &&
               info->encode(m, want, payload.size + 16, &n) == PBC_OK;
      for (size_t c = 0; ok && c < sizeof chunk_sizes / sizeof *chunk_sizes; c++)
        ok = same_through_writer(info, m, want, n, chunk_sizes[c]);
      if (ok) {
        passed++;
      } else {
        failed++;
        printf("FAILED: %s payload %zu\n", name, i);
      }
      free(want);
      free(m);
    }
    if (!info) {
      failed++;
      printf("FAILED: no message %s\n", name);
    }
    pbc_arena_destroy(&arena);
    free(file);
  }
  printf("%zu passed, %zu failed\n", passed, failed);
  return failed != 0;
}
