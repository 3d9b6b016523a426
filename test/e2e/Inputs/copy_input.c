/* pbc_decode_options.copy_input: every payload of a dataset decoded from a
 * heap copy of it, which is then overwritten; the message must still
 * encode to the bytes it encoded to before (its strings, bytes and unknown
 * fields live in the arena). With zero-copy decoding the bytes must differ,
 * or the test would prove nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks.pbc.h"
#include "benchmark_message1_proto3.pbc.h"

/* 1 when the message encodes to the same bytes before and after its input
 * is overwritten, 0 when not, -1 when decode or encode fails. */
static int check(const pbc_message_info *info, pbc_bytes payload, bool copy) {
  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  uint8_t *input = malloc(payload.size);
  memcpy(input, payload.data, payload.size);
  void *m = calloc(1, info->struct_size);
  pbc_decode_options options = {0, false, copy};
  size_t cap = payload.size + 64, before_size, after_size;
  uint8_t *before = malloc(cap), *after = malloc(cap);
  int same = -1;
  if (pbc_decode(info, m, input, payload.size, &arena, &options) == PBC_OK &&
      info->encode(m, before, cap, &before_size) == PBC_OK) {
    memset(input, 0xaa, payload.size);
    if (info->encode(m, after, cap, &after_size) == PBC_OK)
      same = after_size == before_size && memcmp(before, after, after_size) == 0;
  }
  free(input);
  free(before);
  free(after);
  free(m);
  pbc_arena_destroy(&arena);
  return same;
}

int main(int argc, char **argv) {
  FILE *f = argc == 2 ? fopen(argv[1], "rb") : NULL;
  if (f == NULL) return 2;
  static uint8_t file[1 << 20];
  size_t size = fread(file, 1, sizeof file, f);
  fclose(f);
  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  benchmarks_BenchmarkDataset dataset;
  if (benchmarks_BenchmarkDataset_decode(&dataset, file, size, &arena) != PBC_OK) return 1;
  const pbc_message_info *info = &benchmarks_proto3_GoogleMessage1_info;
  for (size_t i = 0; i < dataset.payload.size; i++) {
    printf("payload %zu: copy_input %s, zero-copy %s\n", i,
           check(info, dataset.payload.data[i], true) == 1 ? "same" : "DIFFERENT",
           check(info, dataset.payload.data[i], false) == 1 ? "same" : "different");
  }
  pbc_arena_destroy(&arena);
  return 0;
}
