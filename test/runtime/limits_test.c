/* The decoder's limits, through generated code (limits.test): nesting
 * depth, the arena's byte cap, lengths the input cannot hold or that do not
 * fit 32 bits, repeated fields whose element count is bounded by the input,
 * and the state a failed decode leaves behind. Built plain and with
 * AddressSanitizer (its leak checker then proves the arena owns every
 * byte). Prints "<passed> passed, <failed> failed". */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "limits.pbc.h"

static int passed, failed;

static void check(int ok, const char *what, int line) {
  if (ok) {
    passed++;
  } else {
    failed++;
    printf("limits_test.c:%d: CHECK failed: %s\n", line, what);
  }
}
#define CHECK(cond) check((cond) ? 1 : 0, #cond, __LINE__)

/* ---- Building inputs ------------------------------------------------------ */

typedef struct {
  uint8_t *data;
  size_t size, cap;
} buf;

static void put(buf *b, uint8_t byte) {
  if (b->size == b->cap) {
    b->cap = b->cap ? 2 * b->cap : 64;
    b->data = realloc(b->data, b->cap);
    if (!b->data) abort();
  }
  b->data[b->size++] = byte;
}

static void put_varint(buf *b, uint64_t v) {
  while (v >= 0x80) {
    put(b, (uint8_t)(v | 0x80));
    v >>= 7;
  }
  put(b, (uint8_t)v);
}

static void put_tag(buf *b, uint32_t field, uint32_t wire_type) {
  put_varint(b, ((uint64_t)field << 3) | wire_type);
}

/* `depth` messages nested through field `field` (1: child, 6: children,
 * 9: map value), innermost empty. */
static void nested(buf *b, int depth, uint32_t field) {
  if (depth == 0) return;
  buf inner = {0};
  nested(&inner, depth - 1, field);
  if (field == 9) {
    /* A map entry is a level of its own, like in libprotobuf: the value
     * is one level further down. */
    buf entry = {0};
    put_tag(&entry, 2, 2);
    put_varint(&entry, inner.size);
    for (size_t i = 0; i < inner.size; i++) put(&entry, inner.data[i]);
    free(inner.data);
    inner = entry;
  }
  put_tag(b, field, 2);
  put_varint(b, inner.size);
  for (size_t i = 0; i < inner.size; i++) put(b, inner.data[i]);
  free(inner.data);
}

/* `depth` levels of group G { in_group { G { ... } } }. */
static void nested_groups(buf *b, int depth) {
  if (depth == 0) return;
  buf inner = {0};
  nested_groups(&inner, depth - 1);
  put_tag(b, 7, 3);
  put_tag(b, 8, 2);
  put_varint(b, inner.size);
  for (size_t i = 0; i < inner.size; i++) put(b, inner.data[i]);
  put_tag(b, 7, 4);
  free(inner.data);
}

static pbc_status decode(const buf *b, pbc_arena *a, uint32_t max_depth) {
  lim_Node m;
  pbc_decode_options o = {0};
  o.max_depth = max_depth;
  return pbc_decode(&lim_Node_info, &m, b->data, b->size, a, &o);
}

/* ---- Depth ----------------------------------------------------------------- */

static void test_depth(void) {
  pbc_arena a;
  pbc_arena_init(&a, NULL, 0);
  /* The default is libprotobuf's: 100 nested messages parse, 101 do not. */
  CHECK(PBC_DEFAULT_MAX_DEPTH == 100);
  const uint32_t fields[] = {1, 6};
  for (int k = 0; k < 2; k++) {
    buf ok = {0}, deep = {0};
    nested(&ok, 100, fields[k]);
    nested(&deep, 101, fields[k]);
    lim_Node m;
    CHECK(lim_Node_decode(&m, ok.data, ok.size, &a) == PBC_OK);
    CHECK(lim_Node_decode(&m, deep.data, deep.size, &a) == PBC_ERR_DEPTH_LIMIT);
    CHECK(decode(&ok, &a, 0) == PBC_OK);
    /* A caller's limit, lower or higher. */
    CHECK(decode(&ok, &a, 99) == PBC_ERR_DEPTH_LIMIT);
    CHECK(decode(&deep, &a, 101) == PBC_OK);
    buf five = {0};
    nested(&five, 5, fields[k]);
    CHECK(decode(&five, &a, 5) == PBC_OK);
    CHECK(decode(&five, &a, 4) == PBC_ERR_DEPTH_LIMIT);
    free(ok.data);
    free(deep.data);
    free(five.data);
    pbc_arena_reset(&a);
  }
  /* Map values: each level is an entry plus a message. */
  buf maps = {0};
  nested(&maps, 50, 9);
  CHECK(decode(&maps, &a, 0) == PBC_OK);
  CHECK(decode(&maps, &a, 99) == PBC_ERR_DEPTH_LIMIT);
  free(maps.data);
  /* Unknown groups count too: 100 open groups are fine, 101 are not, and
   * a million fail fast without recursing that deep. */
  const int opens[] = {100, 101, 1000000};
  for (int k = 0; k < 3; k++) {
    int n = opens[k];
    buf g = {0};
    for (int i = 0; i < n; i++) put_tag(&g, 99, 3);
    for (int i = 0; i < n; i++) put_tag(&g, 99, 4);
    CHECK(decode(&g, &a, 0) == (n == 100 ? PBC_OK : PBC_ERR_DEPTH_LIMIT));
    free(g.data);
    pbc_arena_reset(&a);
  }
  /* Known groups holding the next level as a message: two levels each. */
  buf g50 = {0}, g51 = {0};
  nested_groups(&g50, 50);
  nested_groups(&g51, 51);
  CHECK(decode(&g50, &a, 0) == PBC_OK);
  CHECK(decode(&g51, &a, 0) == PBC_ERR_DEPTH_LIMIT);
  CHECK(decode(&g50, &a, 99) == PBC_ERR_DEPTH_LIMIT);
  free(g50.data);
  free(g51.data);
  pbc_arena_destroy(&a);
}

/* ---- The arena's byte cap --------------------------------------------------- */

static void test_arena_cap(void) {
  /* 1000 repeated sub-messages: about 1000 struct copies of arena memory. */
  buf b = {0};
  for (int i = 0; i < 1000; i++) {
    put_tag(&b, 6, 2);
    put_varint(&b, 2);
    put_tag(&b, 10, 0);
    put_varint(&b, (uint64_t)(i % 128));
  }
  pbc_arena a;
  pbc_arena_init(&a, NULL, 0);
  lim_Node m;
  CHECK(lim_Node_decode(&m, b.data, b.size, &a) == PBC_OK);
  size_t needed = a.allocated;
  CHECK(needed >= 1000 * sizeof(lim_Node) && m.children.size == 1000);
  pbc_arena_destroy(&a);

  /* Capped well below that: the specific error, and never more heap than
   * the cap. */
  const size_t caps[] = {0, 1, 4096, 10000, 100000};
  for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
    pbc_arena c;
    pbc_arena_init(&c, NULL, 0);
    pbc_arena_set_max_bytes(&c, caps[k]);
    CHECK(lim_Node_decode(&m, b.data, b.size, &c) == PBC_ERR_ARENA_LIMIT);
    CHECK(c.allocated <= caps[k]);
    /* The message stays valid: what it holds can be read and encoded. */
    CHECK(m.children.size <= 1000);
    for (size_t i = 0; i < m.children.size; i++)
      CHECK(m.children.data[i].unpacked.size <= 1);
    size_t n = lim_Node_encoded_size(&m);
    uint8_t *out = malloc(n + 1);
    size_t written = 0;
    CHECK(lim_Node_encode(&m, out, n, &written) == PBC_OK && written == n);
    CHECK(n <= b.size && memcmp(out, b.data, n) == 0);
    free(out);
    pbc_arena_destroy(&c);
  }
  /* Exactly enough is enough. */
  pbc_arena c;
  pbc_arena_init(&c, NULL, 0);
  pbc_arena_set_max_bytes(&c, needed);
  CHECK(lim_Node_decode(&m, b.data, b.size, &c) == PBC_OK && m.children.size == 1000);
  pbc_arena_destroy(&c);

  /* The caller's initial block is not counted: a cap of 0 with a block
   * large enough still decodes. */
  static uint8_t block[1 << 20];
  pbc_arena_init(&c, block, sizeof block);
  pbc_arena_set_max_bytes(&c, 0);
  CHECK(lim_Node_decode(&m, b.data, b.size, &c) == PBC_OK && c.allocated == 0);
  pbc_arena_destroy(&c);

  /* The arena can be reused after a failure. */
  pbc_arena_init(&c, NULL, 0);
  pbc_arena_set_max_bytes(&c, 100);
  CHECK(lim_Node_decode(&m, b.data, b.size, &c) == PBC_ERR_ARENA_LIMIT);
  pbc_arena_reset(&c);
  pbc_arena_set_max_bytes(&c, SIZE_MAX);
  CHECK(lim_Node_decode(&m, b.data, b.size, &c) == PBC_OK);
  pbc_arena_destroy(&c);
  CHECK(strcmp(pbc_status_str(PBC_ERR_ARENA_LIMIT), "arena byte limit reached") == 0);
  free(b.data);
}

/* ---- Lengths ---------------------------------------------------------------- */

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* A length-delimited field whose length claims far more than the input:
 * every such field (sub-message, packed varints, packed fixed, bytes,
 * string, repeated message, map, unknown) fails at once, without touching
 * the heap: the arena is capped at 0 bytes, so an allocation would show as
 * ARENA_LIMIT. */
static void test_huge_lengths(void) {
  const uint32_t fields[] = {1, 2, 3, 4, 5, 6, 9, 99};
  const uint64_t lengths[] = {
      (1u << 31) - 1, 1u << 31, 2000000000u, (1ull << 32) + 5, UINT64_MAX,
      1ull << 62,
  };
  double start = now();
  for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
    for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
      buf b = {0};
      put_tag(&b, fields[f], 2);
      put_varint(&b, lengths[l]);
      while (b.size < 10) put(&b, 0x08); /* 10 bytes in all */
      pbc_arena a;
      pbc_arena_init(&a, NULL, 0);
      pbc_arena_set_max_bytes(&a, 0);
      lim_Node m;
      pbc_status s = lim_Node_decode(&m, b.data, b.size, &a);
      /* Known fields: the input cannot hold it; unknown fields (and the
       * runtime's skip): 2 GiB or more is never a valid length, as in
       * libprotobuf. */
      int ok = s == PBC_ERR_TRUNCATED ||
               (s == PBC_ERR_BAD_LENGTH && lengths[l] > INT32_MAX);
      if (!ok) printf("field %u, length %llu: %s\n", fields[f],
                      (unsigned long long)lengths[l], pbc_status_str(s));
      CHECK(ok);
      CHECK(a.allocated == 0);
      pbc_arena_destroy(&a);
      free(b.data);
    }
  }
  CHECK(now() - start < 1.0);
  /* Length varints longer than 10 bytes are malformed. */
  uint8_t eleven[] = {0x2a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
  pbc_arena a;
  pbc_arena_init(&a, NULL, 0);
  lim_Node m;
  CHECK(lim_Node_decode(&m, eleven, sizeof eleven, &a) == PBC_ERR_MALFORMED_VARINT);
  /* libprotobuf reads lengths in at most 5 bytes: a 5-byte overlong
   * length is fine, a 6-byte one is BAD_LENGTH, for every field kind. */
  int overlong_bad = 0;
  for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
    for (int extra = 4; extra <= 5; extra++) {
      buf b = {0};
      put_tag(&b, fields[f], 2);
      put(&b, 0x80); /* length 0, in 1 + extra bytes */
      for (int i = 1; i < extra; i++) put(&b, 0x80);
      put(&b, 0x00);
      pbc_status s = lim_Node_decode(&m, b.data, b.size, &a);
      if (s != (extra == 4 ? PBC_OK : PBC_ERR_BAD_LENGTH)) {
        printf("field %u, length in %d bytes: %s\n", fields[f], 1 + extra, pbc_status_str(s));
        overlong_bad++;
      }
      free(b.data);
    }
  }
  CHECK(overlong_bad == 0);
  /* A length of exactly what is left is fine, one more is not. */
  uint8_t exact[] = {0x2a, 0x03, 'a', 'b', 'c'};
  CHECK(lim_Node_decode(&m, exact, sizeof exact, &a) == PBC_OK && m.text.size == 3);
  uint8_t over[] = {0x2a, 0x04, 'a', 'b', 'c'};
  CHECK(lim_Node_decode(&m, over, sizeof over, &a) == PBC_ERR_TRUNCATED);
  pbc_arena_destroy(&a);
}

/* ---- Repeated fields are bounded by the input ------------------------------- */

/* Arena bytes one decode of `b` takes. */
static size_t arena_bytes(const buf *b, pbc_status *s) {
  pbc_arena a;
  pbc_arena_init(&a, NULL, 0);
  lim_Node m;
  *s = lim_Node_decode(&m, b->data, b->size, &a);
  size_t n = a.allocated;
  pbc_arena_destroy(&a);
  return n;
}

static void test_repeated_bounded(void) {
  /* A packed run of n one-byte varints holds at most n elements: arrays
   * double, so at most 2 * 8 bytes of array per input byte (plus the
   * arena's block slack), whatever the length claims. */
  const size_t n = 100000;
  buf b = {0};
  put_tag(&b, 2, 2);
  put_varint(&b, n);
  for (size_t i = 0; i < n; i++) put(&b, 1);
  pbc_status s;
  size_t used = arena_bytes(&b, &s);
  CHECK(s == PBC_OK);
  CHECK(used <= 2 * 8 * n + 2 * 1024 * 1024);
  /* The same run claiming a longer length fails before growing. */
  b.data[1] = 0xff; /* length varint now runs into the data: 5+ bytes */
  buf lie = {0};
  put_tag(&lie, 2, 2);
  put_varint(&lie, 1u << 30);
  for (size_t i = 0; i < n; i++) put(&lie, 1);
  pbc_arena a;
  pbc_arena_init(&a, NULL, 0);
  pbc_arena_set_max_bytes(&a, 0);
  lim_Node m;
  CHECK(lim_Node_decode(&m, lie.data, lie.size, &a) == PBC_ERR_TRUNCATED);
  CHECK(a.allocated == 0);
  pbc_arena_destroy(&a);
  /* Packed fixed64: len / 8 elements, in one allocation. */
  buf fx = {0};
  put_tag(&fx, 3, 2);
  put_varint(&fx, 8 * 1000);
  for (size_t i = 0; i < 8 * 1000; i++) put(&fx, (uint8_t)i);
  used = arena_bytes(&fx, &s);
  CHECK(s == PBC_OK && used <= 2 * 8 * 1000 + 8192);
  /* A run whose length is not a multiple of 8. */
  fx.data[1] ^= 1;
  pbc_arena_init(&a, NULL, 0);
  CHECK(lim_Node_decode(&m, fx.data, fx.size, &a) == PBC_ERR_BAD_LENGTH ||
        lim_Node_decode(&m, fx.data, fx.size, &a) == PBC_ERR_TRUNCATED);
  pbc_arena_destroy(&a);
  /* Unpacked elements: two input bytes each. */
  buf up = {0};
  for (size_t i = 0; i < n; i++) {
    put_tag(&up, 10, 0);
    put(&up, 7);
  }
  used = arena_bytes(&up, &s);
  CHECK(s == PBC_OK && used <= 2 * 4 * n + 2 * 1024 * 1024);
  free(b.data);
  free(lie.data);
  free(fx.data);
  free(up.data);
}

/* ---- State after an error ---------------------------------------------------- */

/* Every truncation of a message with every kind of field: decode fails (or
 * succeeds on field boundaries), and the message it leaves can be read,
 * sized, encoded and checked; T_init resets it. */
static void test_state_after_error(void) {
  buf b = {0};
  put_tag(&b, 5, 2);
  put_varint(&b, 5);
  for (int i = 0; i < 5; i++) put(&b, (uint8_t)('a' + i));
  put_tag(&b, 2, 2);
  put_varint(&b, 3);
  put(&b, 1);
  put(&b, 0x80);
  put(&b, 1);
  buf child = {0};
  nested(&child, 4, 1);
  put_tag(&b, 6, 2);
  put_varint(&b, child.size);
  for (size_t i = 0; i < child.size; i++) put(&b, child.data[i]);
  buf map = {0};
  nested(&map, 3, 9);
  for (size_t i = 0; i < map.size; i++) put(&b, map.data[i]);
  put_tag(&b, 7, 3);
  put_tag(&b, 8, 2);
  put_varint(&b, 0);
  put_tag(&b, 7, 4);
  put_tag(&b, 4, 2);
  put_varint(&b, 2);
  put(&b, 0xff);
  put(&b, 0x00);
  int bad = 0;
  for (size_t cut = 0; cut <= b.size; cut++) {
    pbc_arena a;
    pbc_arena_init(&a, NULL, 0);
    lim_Node m;
    pbc_status s = lim_Node_decode(&m, b.data, cut, &a);
    size_t n = lim_Node_encoded_size(&m);
    uint8_t *out = malloc(n + 1);
    size_t written = 0;
    if (lim_Node_encode(&m, out, n, &written) != PBC_OK || written != n) bad++;
    (void)lim_Node_is_initialized(&m);
    /* Success only on field boundaries; the whole input is canonical but
     * for the map entries without a key, which come back with key 0. */
    if (s == PBC_OK && cut < b.size - 4 && n < cut) bad++;
    if (s != PBC_OK && s != PBC_ERR_TRUNCATED) {
      printf("cut %zu: %s\n", cut, pbc_status_str(s));
      bad++;
    }
    free(out);
    lim_Node_init(&m);
    if (lim_Node_encoded_size(&m) != 0) bad++;
    pbc_arena_destroy(&a);
  }
  CHECK(bad == 0);
  free(b.data);
  free(child.data);
  free(map.data);
}

int main(void) {
  test_depth();
  test_arena_cap();
  test_huge_lengths();
  test_repeated_bounded();
  test_state_after_error();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
