/* Reading is in bounds (guard_pages.test): every truncation of every test
 * vector is decoded by the generated decoders with the input flush against
 * a PROT_NONE page, after it and then before it, so that a read of even one
 * byte outside [buf, buf + len) faults. After each decode the message
 * (complete or left by an error) is sized and encoded, which must be safe
 * either way. A dataset's payloads are also printed as ProtoJSON, and that
 * text parsed (by the compiled parsers) the same way: every truncation up
 * to 16 KB, beyond that 1,024 spread over the text and the last 256.
 *
 *   guard_pages VECTOR...
 *     dataset:FILE            the file and every payload of a
 *                             benchmarks.BenchmarkDataset (each must decode
 *                             whole)
 *     hex:full.Message:HEX    one input (valid or not)
 *
 * Prints "<vectors> vectors, <decodes> decodes, <errors> errors" and
 * "<passed> passed, <failed> failed"; a fault kills it. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "benchmarks.pbc.h"
#include "pbc/json.h"

static int passed, failed;
static unsigned long vectors, decodes, errors;

static void check(int ok, const char *what, const char *name, size_t len) {
  if (ok) {
    passed++;
  } else {
    failed++;
    printf("FAIL: %s (%s, %zu bytes)\n", what, name, len);
  }
}

/* [PROT_NONE][data pages][PROT_NONE]. */
static size_t page;
static uint8_t *region, *data;
static size_t data_cap;

static void map_region(size_t need) {
  if (region) munmap(region, data_cap + 2 * page);
  data_cap = (need + page - 1) / page * page;
  if (data_cap == 0) data_cap = page;
  region = mmap(NULL, data_cap + 2 * page, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) {
    perror("mmap");
    exit(2);
  }
  data = region + page;
  if (mprotect(region, page, PROT_NONE) || mprotect(data + data_cap, page, PROT_NONE)) {
    perror("mprotect");
    exit(2);
  }
}

/* Where the prefix of k bytes of `bytes` sits: flush against the back
 * guard (copied there), or right after the front guard, where every
 * prefix starts at the same place and the caller copied the whole vector
 * once. */
static uint8_t *place(const void *bytes, size_t k, int at_end) {
  if (!at_end) return data;
  uint8_t *buf = data + data_cap - k;
  if (k) memcpy(buf, bytes, k);
  return buf;
}

/* Decodes every prefix of `bytes` as `info`, both placements. */
static void run_vector(const pbc_message_info *info, const uint8_t *bytes, size_t len,
                       int must_decode) {
  vectors++;
  void *m = malloc(info->struct_size);
  uint8_t *out = malloc(len + 16);
  /* A block big enough for these vectors: no malloc/munmap per decode. */
  static uint8_t block[8 << 20];
  pbc_arena arena;
  pbc_arena_init(&arena, block, sizeof block);
  int bad_full = 0, bad_encode = 0;
  if (len > data_cap) map_region(len);
  for (int at_end = 1; at_end >= 0; at_end--) {
    /* Right after the front guard every prefix starts at the same place:
     * one copy serves them all. */
    if (!at_end && len) memcpy(data, bytes, len);
    for (size_t k = 0; k <= len; k++) {
      pbc_status s = info->decode(m, place(bytes, k, at_end), k, &arena);
      decodes++;
      if (s != PBC_OK) errors++;
      if (must_decode && k == len && s != PBC_OK) bad_full++;
      /* Whatever decode left is a valid message: its size is what encode
       * writes. A complete decode re-encodes within the input's size
       * (libprotobuf's canonical form is never longer than these
       * vectors). */
      size_t n = info->encoded_size(m);
      uint8_t *dst = n <= len + 16 ? out : malloc(n);
      size_t written = 0;
      if (info->encode(m, dst, n, &written) != PBC_OK || written != n) bad_encode++;
      if (dst != out) free(dst);
      pbc_arena_reset(&arena);
    }
  }
  check(bad_full == 0, "the whole vector decodes", info->full_name, len);
  check(bad_encode == 0, "encode after every decode", info->full_name, len);
  pbc_arena_destroy(&arena);
  free(out);
  free(m);
}

/* Whether to try the prefix of k bytes of a text of len: all of a short
 * text; of a long one (its parses cost its length each) a spread and the
 * end, where a read past the prefix would start. */
static int json_prefix(size_t k, size_t len) {
  return len <= (16u << 10) || k + 256 >= len || k % (len / 1024) == 0;
}

/* Parses every prefix (json_prefix's) of m's JSON, both placements; the
 * whole must parse, and re-encode as m does. */
static void run_json(const pbc_message_info *info, const void *m) {
  size_t len = 0;
  pbc_json_print(info, m, NULL, 0, &len, NULL);
  char *text = malloc(len ? len : 1);
  if (pbc_json_print(info, m, text, len, &len, NULL) != PBC_OK) {
    check(0, "the payload prints as JSON", info->full_name, len);
    free(text);
    return;
  }
  vectors++;
  void *back = malloc(info->struct_size);
  static uint8_t block[8 << 20];
  pbc_arena arena;
  pbc_arena_init(&arena, block, sizeof block);
  size_t want_n = info->encoded_size(m), got_n;
  uint8_t *want = malloc(want_n + 1), *got = NULL;
  info->encode(m, want, want_n, &want_n);
  int whole = 0, same = 0;
  if (len > data_cap) map_region(len);
  for (int at_end = 1; at_end >= 0; at_end--) {
    if (!at_end && len) memcpy(data, text, len);
    for (size_t k = 0; k <= len; k++) {
      if (!json_prefix(k, len)) continue;
      pbc_status s = pbc_json_parse(info, back,
                                    (const char *)place(text, k, at_end), k,
                                    &arena, NULL, NULL);
      decodes++;
      if (s != PBC_OK) errors++;
      if (k == len && s == PBC_OK) {
        whole++;
        got_n = info->encoded_size(back);
        got = realloc(got, got_n + 1);
        same += info->encode(back, got, got_n, &got_n) == PBC_OK &&
                got_n == want_n && memcmp(got, want, got_n) == 0;
      }
      pbc_arena_reset(&arena);
    }
  }
  check(whole == 2, "the whole JSON parses", info->full_name, len);
  check(same == 2, "the JSON parses back to the message", info->full_name, len);
  pbc_arena_destroy(&arena);
  free(got);
  free(want);
  free(back);
  free(text);
}

static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    exit(2);
  }
  size_t cap = 1 << 16, n = 0;
  uint8_t *b = malloc(cap);
  size_t got;
  while ((got = fread(b + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) b = realloc(b, cap *= 2);
  }
  fclose(f);
  *len = n;
  return b;
}

static void run_dataset(const char *path) {
  size_t len;
  uint8_t *bytes = read_file(path, &len);
  /* The container itself is a vector too (proto3, bytes fields). */
  run_vector(&benchmarks_BenchmarkDataset_info, bytes, len, 1);
  benchmarks_BenchmarkDataset ds;
  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  if (benchmarks_BenchmarkDataset_decode(&ds, bytes, len, &arena) != PBC_OK) {
    printf("FAIL: cannot decode %s\n", path);
    failed++;
    return;
  }
  char name[256];
  snprintf(name, sizeof name, "%.*s", (int)ds.message_name.size, ds.message_name.data);
  const pbc_message_info *info = pbc_find_message(name);
  check(info != NULL, "the dataset's message is linked", name, 0);
  if (info) {
    void *m = malloc(info->struct_size);
    for (size_t i = 0; i < ds.payload.size; i++) {
      run_vector(info, ds.payload.data[i].data, ds.payload.data[i].size, 1);
      if (info->decode(m, ds.payload.data[i].data, ds.payload.data[i].size,
                       &arena) == PBC_OK)
        run_json(info, m);
    }
    free(m);
  }
  pbc_arena_destroy(&arena);
  free(bytes);
}

static void run_hex(const char *spec) {
  const char *colon = strchr(spec, ':');
  if (!colon) {
    fprintf(stderr, "hex:MESSAGE:HEX expected, got hex:%s\n", spec);
    exit(2);
  }
  char name[256];
  snprintf(name, sizeof name, "%.*s", (int)(colon - spec), spec);
  const pbc_message_info *info = pbc_find_message(name);
  check(info != NULL, "the message is linked", name, 0);
  if (!info) return;
  uint8_t bytes[4096];
  size_t n = 0;
  int hi = -1;
  for (const char *p = colon + 1; *p && n < sizeof bytes; p++) {
    if (!isxdigit((unsigned char)*p)) continue;
    int v = isdigit((unsigned char)*p) ? *p - '0' : (tolower((unsigned char)*p) - 'a' + 10);
    if (hi < 0) {
      hi = v;
    } else {
      bytes[n++] = (uint8_t)(hi << 4 | v);
      hi = -1;
    }
  }
  run_vector(info, bytes, n, 0);
}

int main(int argc, char **argv) {
  page = (size_t)sysconf(_SC_PAGESIZE);
  map_region(page);
  for (int i = 1; i < argc; i++) {
    if (strncmp(argv[i], "dataset:", 8) == 0) {
      run_dataset(argv[i] + 8);
    } else if (strncmp(argv[i], "hex:", 4) == 0) {
      run_hex(argv[i] + 4);
    } else {
      fprintf(stderr, "unknown vector %s\n", argv[i]);
      return 2;
    }
  }
  printf("%lu vectors, %lu decodes, %lu errors\n", vectors, decodes, errors);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
