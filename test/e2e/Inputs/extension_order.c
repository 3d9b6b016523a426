/* extension_order.test: the bytes of a message holding extensions and
 * unknown fields, written by every encoder (T_encode into a large and an
 * exactly sized buffer, T_encode_at_end, T_write through chunks of 1 to 40
 * bytes, the table codec's encoder and writer), against libprotobuf's
 * (protoc --encode): the extensions at their range's place among the
 * fields, by number, the other unknown fields last. Each message is also
 * decoded from its records shuffled (descending numbers, the records of one
 * number kept in order) with unknown fields in front, which libprotobuf
 * would write canonically with the unknown fields at the end: so must pbc.
 *   extension_order MESSAGE WANT.bin UNKNOWN-HEX */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extension_order.pbc.h"
#include "pbc/writer.h"

static int failures, checks;

static void check(int ok, const char *what, const char *form) {
  checks++;
  if (!ok) {
    failures++;
    printf("check failed: %s: %s\n", what, form);
  }
}

static const uint8_t *read_varint(const uint8_t *p, const uint8_t *end,
                                  uint64_t *v) {
  *v = 0;
  for (int shift = 0; p < end && shift < 64; shift += 7) {
    uint8_t b = *p++;
    *v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return p;
  }
  return NULL;
}

/* The end of the record at p (no groups inside groups but ours, which
 * hold one varint field). */
static const uint8_t *skip_record(const uint8_t *p, const uint8_t *end,
                                  uint32_t *number) {
  uint64_t tag, v;
  if (!(p = read_varint(p, end, &tag))) return NULL;
  *number = (uint32_t)(tag >> 3);
  switch (tag & 7) {
  case 0: return read_varint(p, end, &v);
  case 1: return p + 8 <= end ? p + 8 : NULL;
  case 5: return p + 4 <= end ? p + 4 : NULL;
  case 2:
    if (!(p = read_varint(p, end, &v)) || v > (uint64_t)(end - p)) return NULL;
    return p + v;
  case 3:
    while (p && p < end) {
      uint32_t inner;
      const uint8_t *q = read_varint(p, end, &v);
      if (q && v == ((tag & ~7u) | 4)) return q;
      p = skip_record(p, end, &inner);
    }
    return NULL;
  default: return NULL;
  }
}

/* A record's number; a MessageSet item's (group 1) its type id. */
static const uint8_t *next_key(const uint8_t *p, const uint8_t *end,
                               uint32_t *key) {
  const uint8_t *q = skip_record(p, end, key);
  uint64_t id;
  if (q && *key == 1 && *p == 0x0b && p + 1 < q && p[1] == 0x10 &&
      read_varint(p + 2, q, &id))
    *key = (uint32_t)id;
  return q;
}

/* The records of `in`, by descending number (those of one number in
 * order), after `front`. */
static size_t shuffle(const uint8_t *in, size_t n, const uint8_t *front,
                      size_t front_n, uint8_t *out) {
  memcpy(out, front, front_n);
  size_t k = front_n;
  uint32_t above = UINT32_MAX;
  for (;;) {
    uint32_t best = 0, number;
    for (const uint8_t *p = in; p < in + n;) {
      const uint8_t *q = next_key(p, in + n, &number);
      if (!q) { puts("harness error: bad input"); exit(2); }
      if (number < above && number > best) best = number;
      p = q;
    }
    if (best == 0) return k;
    for (const uint8_t *p = in; p < in + n;) {
      const uint8_t *q = next_key(p, in + n, &number);
      if (number == best) {
        memcpy(out + k, p, (size_t)(q - p));
        k += (size_t)(q - p);
      }
      p = q;
    }
    above = best;
  }
}

/* Every encoder's bytes of m against `want`. */
static void encoders(const pbc_message_info *info, const void *m,
                     const uint8_t *want, size_t n, const char *form) {
  static uint8_t big[1 << 20];
  size_t written = 0;
  check(pbc_message_encoded_size(info, m) == n, "T_encoded_size", form);
  check(pbc_message_encode(info, m, big, sizeof big, &written) == PBC_OK &&
            written == n && memcmp(big, want, n) == 0,
        "T_encode, 1 MiB", form);
  uint8_t *exact = malloc(n ? n : 1);
  check(pbc_message_encode(info, m, exact, n, &written) == PBC_OK &&
            written == n && memcmp(exact, want, n) == 0,
        "T_encode, exact", form);
  check(n == 0 || pbc_message_encode(info, m, exact, n - 1, &written) ==
                      PBC_ERR_BUFFER_TOO_SMALL,
        "T_encode, one byte short", form);
  free(exact);
  uint8_t *start = NULL;
  check(pbc_message_encode_at_end(info, m, big, sizeof big, &start,
                                  &written) == PBC_OK &&
            written == n && memcmp(start, want, n) == 0,
        "T_encode_at_end", form);
  check(pbc_table_encode(info->desc, m, big, sizeof big, &written) ==
                PBC_OK &&
            written == n && memcmp(big, want, n) == 0,
        "pbc_table_encode", form);
  for (int table = 0; table < 2; table++) {
    for (size_t chunk = 1; chunk <= 40; chunk++) {
      pbc_heap_writer h;
      pbc_heap_writer_init(&h, chunk);
      pbc_status s = table ? pbc_table_write(info->desc, m, &h.writer)
                           : pbc_message_write(info, m, &h.writer);
      size_t got = pbc_heap_writer_size(&h);
      int same = s == PBC_OK && got == n &&
                 pbc_heap_writer_copy(&h, big, n) == n &&
                 memcmp(big, want, n) == 0;
      pbc_heap_writer_destroy(&h);
      if (!same) {
        printf("check failed: %s, %zu-byte chunks: %s\n",
               table ? "pbc_table_write" : "T_write", chunk, form);
        failures++;
      }
      checks++;
    }
  }
}

static size_t unhex(const char *s, uint8_t *out) {
  size_t n = 0;
  for (; s[0] && s[1]; s += 2) {
    unsigned b;
    sscanf(s, "%2x", &b);
    out[n++] = (uint8_t)b;
  }
  return n;
}

int main(int argc, char **argv) {
  if (argc != 4) return 2;
  const pbc_message_info *const infos[] = {&eo_Ordered_info, &eo_Bare_info,
                                            &eo_Set_info};
  const pbc_message_info *info = NULL;
  for (size_t i = 0; i < sizeof infos / sizeof *infos; i++)
    if (strcmp(infos[i]->full_name, argv[1]) == 0) info = infos[i];
  FILE *f = fopen(argv[2], "rb");
  if (!info || !f) return 2;
  static uint8_t want[4096], shuffled[8192], unknown[256], expected[8192];
  size_t n = fread(want, 1, sizeof want, f);
  fclose(f);
  size_t unknown_n = unhex(argv[3], unknown);
  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);

  /* libprotobuf's own bytes, read and written back. */
  void *m = pbc_message_new(info, &arena);
  check(pbc_decode(info, m, want, n, &arena, NULL) == PBC_OK, "decode",
        "canonical");
  encoders(info, m, want, n, "canonical");

  /* Shuffled, unknown fields in front: libprotobuf's canonical bytes, the
   * unknown fields after them. */
  size_t sn = shuffle(want, n, unknown, unknown_n, shuffled);
  memcpy(expected, want, n);
  memcpy(expected + n, unknown, unknown_n);
  void *s = pbc_message_new(info, &arena);
  check(pbc_decode(info, s, shuffled, sn, &arena, NULL) == PBC_OK, "decode",
        "shuffled");
  encoders(info, s, expected, n + unknown_n, "shuffled");

  pbc_arena_destroy(&arena);
  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures != 0;
}
