/* Unit tests for the scattered writer (runtime/writer.c, heap_writer.c,
 * pbc/writer.h). Prints "N passed, N failed" and exits non-zero when
 * anything failed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aborts.h"
#include "pbc/pbc.h"
#include "pbc/writer.h"

static int passed, failed;

static void check(bool ok, const char *what, const char *file, int line) {
  if (ok) {
    passed++;
  } else {
    failed++;
    printf("%s:%d: CHECK failed: %s\n", file, line, what);
  }
}

#define CHECK(cond) check((cond), #cond, __FILE__, __LINE__)

static bool bytes_are(const uint8_t *got, size_t got_size, const char *hex) {
  uint8_t want[256];
  size_t n = 0;
  for (const char *p = hex; *p;) {
    if (*p == ' ') {
      p++;
      continue;
    }
    unsigned v;
    if (sscanf(p, "%2x", &v) != 1) return false;
    want[n++] = (uint8_t)v;
    p += 2;
  }
  if (n != got_size || memcmp(want, got, n) != 0) {
    printf("  got:  ");
    for (size_t i = 0; i < got_size && i < 64; i++) printf("%02x ", got[i]);
    printf("\n  want: %s\n", hex);
    return false;
  }
  return true;
}

/* ---- A recording delegate ------------------------------------------------
 * Hands out chunks of a size given by a pattern, optionally commits
 * (eagerly, or at random), and keeps what a tracing service would see: a
 * committed chunk is snapshotted and its memory scribbled over, so a write
 * the writer makes into it afterwards is lost and shows up as a mismatch;
 * patches apply to the snapshots. */
enum { COMMIT_NEVER, COMMIT_ALWAYS, COMMIT_RANDOM };

typedef struct recorder {
  size_t chunk_size;     /* 0: sizes cycle through 1..max_chunk */
  size_t max_chunk;
  int commit_mode;
  uint32_t rng;
  long fail_at;          /* chunk id whose request fails, -1 for none */
  uint8_t **chunks;      /* live memory */
  uint8_t **sent;        /* snapshots of committed chunks */
  size_t *sizes;
  size_t count, cap;
  uint32_t committed_below;
  size_t patches;
  bool violation;        /* a request or patch broke the contract */
} recorder;

static uint32_t next_random(uint32_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

static bool rec_get(void *ctx, uint32_t id, uint8_t **begin, uint8_t **end,
                    bool *committed) {
  recorder *r = ctx;
  if (id != r->count) r->violation = true;
  if ((long)id == r->fail_at) return false;
  if (r->count == r->cap) {
    r->cap = r->cap ? r->cap * 2 : 16;
    r->chunks = realloc(r->chunks, r->cap * sizeof *r->chunks);
    r->sent = realloc(r->sent, r->cap * sizeof *r->sent);
    r->sizes = realloc(r->sizes, r->cap * sizeof *r->sizes);
  }
  size_t size = r->chunk_size ? r->chunk_size : 1 + id % r->max_chunk;
  r->chunks[r->count] = malloc(size);
  memset(r->chunks[r->count], 0xCC, size);
  r->sent[r->count] = NULL;
  r->sizes[r->count] = size;
  r->count++;
  bool commit = r->commit_mode == COMMIT_ALWAYS ||
                (r->commit_mode == COMMIT_RANDOM && next_random(&r->rng) % 3 == 0);
  if (commit) {
    for (uint32_t c = r->committed_below; c < id; c++) {
      r->sent[c] = malloc(r->sizes[c]);
      memcpy(r->sent[c], r->chunks[c], r->sizes[c]);
      memset(r->chunks[c], 0xEE, r->sizes[c]);
    }
    r->committed_below = id;
    *committed = true;
  }
  *begin = r->chunks[id];
  *end = r->chunks[id] + size;
  return true;
}

static void rec_patch(void *ctx, uint32_t id, size_t offset,
                      const uint8_t *bytes, size_t size) {
  recorder *r = ctx;
  r->patches++;
  if (id >= r->committed_below || size == 0 || size > 4 ||
      offset + size > r->sizes[id]) {
    r->violation = true;
    return;
  }
  memcpy(r->sent[id] + offset, bytes, size);
}

static void rec_init(recorder *r, pbc_writer *w, size_t chunk_size,
                     int commit_mode) {
  memset(r, 0, sizeof *r);
  r->chunk_size = chunk_size;
  r->max_chunk = 7;
  r->commit_mode = commit_mode;
  r->rng = 12345 + (uint32_t)chunk_size;
  r->fail_at = -1;
  pbc_writer_delegate d = {rec_get, rec_patch, r};
  pbc_writer_init(w, &d);
}

/* The stream as the service sees it, in a malloc'd buffer. */
static uint8_t *rec_stream(recorder *r, pbc_writer *w, size_t *size) {
  size_t total = 0;
  for (size_t c = 0; c < r->count; c++)
    total += c + 1 < r->count ? r->sizes[c] : pbc_writer_chunk_used(w);
  uint8_t *out = malloc(total + 1);
  size_t at = 0;
  for (size_t c = 0; c < r->count; c++) {
    size_t n = c + 1 < r->count ? r->sizes[c] : pbc_writer_chunk_used(w);
    memcpy(out + at, r->sent[c] ? r->sent[c] : r->chunks[c], n);
    at += n;
  }
  *size = total;
  return out;
}

static void rec_free(recorder *r) {
  for (size_t c = 0; c < r->count; c++) {
    free(r->chunks[c]);
    free(r->sent[c]);
  }
  free(r->chunks);
  free(r->sent);
  free(r->sizes);
}

/* Everything a heap writer holds, malloc'd. */
static uint8_t *heap_stream(pbc_heap_writer *h, size_t *size) {
  *size = pbc_heap_writer_size(h);
  uint8_t *out = malloc(*size + 1);
  CHECK(pbc_heap_writer_copy(h, out, *size) == *size);
  return out;
}

/* ---- Exact bytes ----------------------------------------------------------- */

static void test_protozero_example(void) {
  /* The design doc's example, with the 4-byte redundant length. */
  pbc_heap_writer h;
  pbc_heap_writer_init(&h, 0);
  pbc_msg *root = pbc_writer_root(&h.writer);
  pbc_msg *nested = pbc_msg_begin_nested(root, 3);
  pbc_msg_append_varint_field(nested, 2, 42);
  pbc_msg_append_bytes_field(nested, 1, "foo", 3);
  CHECK(pbc_msg_finalize(nested) == 7);
  CHECK(pbc_writer_finish(&h.writer) == PBC_OK);
  size_t n;
  uint8_t *out = heap_stream(&h, &n);
  CHECK(bytes_are(out, n, "1a 87 80 80 00 10 2a 0a 03 66 6f 6f"));
  free(out);
  pbc_heap_writer_destroy(&h);
}

static void test_redundant_sizes(void) {
  static const struct {
    uint32_t size;
    const char *hex;
  } cases[] = {
      {0, "80 80 80 00"},         {1, "81 80 80 00"},
      {127, "ff 80 80 00"},       {128, "80 81 80 00"},
      {16383, "ff ff 80 00"},     {16384, "80 80 81 00"},
      {2097151, "ff ff ff 00"},   {2097152, "80 80 80 01"},
      {268435455, "ff ff ff 7f"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint8_t b[4];
    pbc__put_redundant_size(b, cases[i].size);
    CHECK(bytes_are(b, 4, cases[i].hex));
  }
}

/* A reference varint encoder, byte by byte. */
static size_t ref_varint(uint8_t *p, uint64_t v) {
  size_t n = 0;
  do {
    p[n++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
    v >>= 7;
  } while (v != 0);
  return n;
}

static void test_tags(void) {
  static const uint32_t fields[] = {1, 15, 16, 2047, 2048, 262143, 262144,
                                    33554431, 33554432, 536870911};
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    for (uint32_t wt = 0; wt < 6; wt++) {
      uint8_t want[8], got[8];
      size_t n = ref_varint(want, ((uint64_t)fields[i] << 3) | wt);
      CHECK(pbc_tag_len(fields[i]) == n);
      uint8_t *end = pbc__put_tag(got, pbc_tag_bytes(fields[i], wt),
                                  pbc_tag_len(fields[i]));
      CHECK(end == got + n && memcmp(got, want, n) == 0);
      /* The streaming API's own tag encoder (kept for its code) says what
       * pbc/wire_types.h, the wire format's one definition, says. */
      uint32_t tag = pbc_make_tag(fields[i], (pbc_wire_type)wt);
      CHECK(pbc_tag_bytes(fields[i], wt) == pbc_varint_bytes(tag));
      CHECK(pbc_tag_len(fields[i]) == pbc_varint_size(tag));
    }
  }
}

/* The inline varint encoder against the reference, at every bit length
 * and next to every 7-bit boundary, alone and after a tag. */
static void test_varints(void) {
  int bad = 0;
  for (int bits = 0; bits <= 64; bits++) {
    for (int delta = -2; delta <= 2; delta++) {
      uint64_t v = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits);
      v += (uint64_t)(int64_t)delta;
      pbc_heap_writer h;
      pbc_heap_writer_init(&h, 0);
      pbc_msg *root = pbc_writer_root(&h.writer);
      pbc_msg_append_varint(root, v);
      pbc_msg_append_varint_field(root, 1, v);
      if (v <= UINT32_MAX)
        pbc_msg_append_tag_varint32(root, pbc_tag_bytes(2, 0), 1, (uint32_t)v);
      pbc_writer_finish(&h.writer);
      uint8_t want[32];
      size_t n = ref_varint(want, v);
      want[n] = 0x08;
      n += 1 + ref_varint(want + n + 1, v);
      if (v <= UINT32_MAX) {
        want[n] = 0x10;
        n += 1 + ref_varint(want + n + 1, v);
      }
      size_t got_size;
      uint8_t *got = heap_stream(&h, &got_size);
      bad += got_size != n || memcmp(got, want, n) != 0;
      free(got);
      pbc_heap_writer_destroy(&h);
    }
  }
  CHECK(bad == 0);
}

/* int32 (and enum) values: sign-extended to 64 bits, so negative ones are
 * 10 bytes, as libprotobuf writes them; every bit length, both signs. */
static void test_int32_varints(void) {
  int bad = 0;
  for (int bits = 0; bits <= 31; bits++) {
    for (int delta = -2; delta <= 2; delta++) {
      for (int sign = 1; sign >= -1; sign -= 2) {
        int64_t wide = sign * (((int64_t)1 << bits) + delta);
        if (wide < INT32_MIN || wide > INT32_MAX) continue;
        int32_t v = (int32_t)wide;
        pbc_heap_writer h;
        pbc_heap_writer_init(&h, 0);
        pbc_msg *root = pbc_writer_root(&h.writer);
        pbc_msg_append_tag_int32(root, pbc_tag_bytes(1, 0), 1, v);
        pbc_msg_append_tag_int32(root, 0, 0, v);
        pbc_writer_finish(&h.writer);
        uint8_t want[32];
        want[0] = 0x08;
        size_t n = 1 + ref_varint(want + 1, (uint64_t)(int64_t)v);
        n += ref_varint(want + n, (uint64_t)(int64_t)v);
        size_t got_size;
        uint8_t *got = heap_stream(&h, &got_size);
        if (got_size != n || memcmp(got, want, n) != 0) {
          if (bad++ < 3) printf("  int32 %d\n", v);
        }
        free(got);
        pbc_heap_writer_destroy(&h);
      }
    }
  }
  CHECK(bad == 0);
}

static void test_scalars(void) {
  pbc_heap_writer h;
  pbc_heap_writer_init(&h, 0);
  pbc_msg *root = pbc_writer_root(&h.writer);
  pbc_msg_append_varint_field(root, 1, 150);
  pbc_msg_append_varint_field(root, 2, UINT64_MAX);
  pbc_msg_append_tag_varint32(root, pbc_tag_bytes(3, 0), 1, pbc_zigzag32(-1));
  pbc_msg_append_tag_varint(root, pbc_tag_bytes(3, 0), 1,
                            pbc_zigzag64(INT64_MIN));
  pbc_msg_append_fixed32_field(root, 4, pbc_float_bits(1.0f));
  pbc_msg_append_fixed64_field(root, 16, 0x0102030405060708ull);
  pbc_msg_append_bytes_field(root, 5, NULL, 0);
  pbc_msg_append_varint(root, 300);
  pbc_msg_append_fixed32(root, 1);
  pbc_msg_append_fixed64(root, 2);
  pbc_msg_append_raw(root, "\x01\x02", 2);
  CHECK(pbc_writer_finish(&h.writer) == PBC_OK);
  size_t n;
  uint8_t *out = heap_stream(&h, &n);
  CHECK(bytes_are(out, n,
                  "08 96 01 10 ff ff ff ff ff ff ff ff ff 01 18 01 "
                  "18 ff ff ff ff ff ff ff ff ff 01 25 00 00 80 3f "
                  "81 01 08 07 06 05 04 03 02 01 2a 00 ac 02 01 00 00 00 "
                  "02 00 00 00 00 00 00 00 01 02"));
  free(out);
  pbc_heap_writer_destroy(&h);
}

static void test_long_string(void) {
  /* A length of two varint bytes, in a chunk with room, and one without. */
  for (size_t chunk = 200; chunk <= 4096; chunk += 3896) {
    char s[300];
    memset(s, 'x', sizeof s);
    pbc_heap_writer h;
    pbc_heap_writer_init(&h, chunk);
    pbc_msg_append_bytes_field(pbc_writer_root(&h.writer), 1, s, sizeof s);
    CHECK(pbc_writer_finish(&h.writer) == PBC_OK);
    size_t n;
    uint8_t *out = heap_stream(&h, &n);
    CHECK(n == 303 && out[0] == 0x0a && out[1] == 0xac && out[2] == 0x02 &&
          out[3] == 'x' && out[302] == 'x');
    free(out);
    pbc_heap_writer_destroy(&h);
  }
}

static void test_groups(void) {
  pbc_heap_writer h;
  pbc_heap_writer_init(&h, 0);
  pbc_msg *root = pbc_writer_root(&h.writer);
  pbc_msg *g = pbc_msg_begin_group(root, 2);
  pbc_msg_append_varint_field(g, 3, 1);
  pbc_msg *inner = pbc_msg_begin_nested(g, 4);
  pbc_msg_append_varint_field(inner, 1, 5);
  CHECK(pbc_msg_finalize(g) == 9); /* finalizes inner too */
  pbc_msg *big = pbc_msg_begin_group(root, 300);
  CHECK(pbc_msg_finalize(big) == 0);
  CHECK(pbc_writer_finish(&h.writer) == PBC_OK);
  size_t n;
  uint8_t *out = heap_stream(&h, &n);
  CHECK(bytes_are(out, n,
                  "13 18 01 22 82 80 80 00 08 05 14 e3 12 e4 12"));
  free(out);
  pbc_heap_writer_destroy(&h);
}

static void test_packed(void) {
  pbc_heap_writer h;
  pbc_heap_writer_init(&h, 0);
  pbc_msg *root = pbc_writer_root(&h.writer);
  int32_t i32[] = {1, -1};
  int64_t i64[] = {300, -2};
  uint32_t u32[] = {0, 128};
  int32_t s32[] = {-1, 1};
  int64_t s64[] = {-64, 64};
  bool bools[] = {true, false, true};
  float floats[] = {1.0f, -2.0f};
  double doubles[] = {1.0};
  pbc_msg_append_packed_field(root, 1, PBC_PACKED_INT32, i32, 2);
  pbc_msg_append_packed_field(root, 2, PBC_PACKED_INT64, i64, 2);
  pbc_msg_append_packed_field(root, 3, PBC_PACKED_UINT32, u32, 2);
  pbc_msg_append_packed_field(root, 4, PBC_PACKED_SINT32, s32, 2);
  pbc_msg_append_packed_field(root, 5, PBC_PACKED_SINT64, s64, 2);
  pbc_msg_append_packed_field(root, 6, PBC_PACKED_BOOL, bools, 3);
  pbc_msg_append_packed_field(root, 7, PBC_PACKED_FIXED32, floats, 2);
  pbc_msg_append_packed_field(root, 8, PBC_PACKED_FIXED64, doubles, 1);
  pbc_msg_append_packed_field(root, 9, PBC_PACKED_INT32, i32, 0); /* nothing */
  CHECK(pbc_writer_finish(&h.writer) == PBC_OK);
  size_t n;
  uint8_t *out = heap_stream(&h, &n);
  CHECK(bytes_are(out, n,
                  "0a 0b 01 ff ff ff ff ff ff ff ff ff 01 "
                  "12 0c ac 02 fe ff ff ff ff ff ff ff ff 01 "
                  "1a 03 00 80 01 "
                  "22 02 01 02 "
                  "2a 03 7f 80 01 "
                  "32 03 01 00 01 "
                  "3a 08 00 00 80 3f 00 00 00 c0 "
                  "42 08 00 00 00 00 00 00 f0 3f"));
  free(out);
  pbc_heap_writer_destroy(&h);
}

/* ---- Message nesting --------------------------------------------------------- */

static void test_parent_write_finalizes_children(void) {
  pbc_heap_writer h;
  pbc_heap_writer_init(&h, 0);
  pbc_msg *root = pbc_writer_root(&h.writer);
  pbc_msg *a = pbc_msg_begin_nested(root, 1);
  pbc_msg *b = pbc_msg_begin_nested(a, 2);
  pbc_msg_append_varint_field(b, 3, 1);
  pbc_msg_append_varint_field(root, 4, 2); /* closes b and a */
  pbc_msg_append_varint_field(b, 3, 9);    /* b is finalized: dropped */
  CHECK(pbc_msg_finalize(a) == SIZE_MAX);  /* already finalized */
  CHECK(pbc_writer_status(&h.writer) == PBC_OK);
  size_t n;
  uint8_t *out = heap_stream(&h, &n);
  CHECK(bytes_are(out, n, "0a 87 80 80 00 12 82 80 80 00 18 01 20 02"));
  free(out);
  /* Finalizing the root closes everything; the root stays usable. */
  pbc_msg *c = pbc_msg_begin_nested(root, 5);
  pbc_msg_append_varint_field(c, 1, 1);
  CHECK(pbc_msg_finalize(root) == 21);
  pbc_msg_append_varint_field(root, 6, 1);
  CHECK(pbc_writer_position(&h.writer) == 23);
  out = heap_stream(&h, &n);
  CHECK(n == 23 && bytes_are(out + 14, 9, "2a 82 80 80 00 08 01 30 01"));
  free(out);
  pbc_heap_writer_destroy(&h);
}

static void test_depth_limit(void) {
  pbc_heap_writer h;
  pbc_heap_writer_init(&h, 64);
  pbc_msg *m = pbc_writer_root(&h.writer);
  for (int i = 0; i < PBC_WRITER_MAX_DEPTH; i++) m = pbc_msg_begin_nested(m, 1);
  CHECK(pbc_writer_status(&h.writer) == PBC_OK);
  pbc_msg_append_varint_field(m, 2, 1);
  pbc_msg *deeper = pbc_msg_begin_nested(m, 1);
  CHECK(pbc_writer_status(&h.writer) == PBC_ERR_DEPTH_LIMIT);
  uint64_t pos = pbc_writer_position(&h.writer);
  pbc_msg_append_varint_field(deeper, 2, 1); /* dropped */
  pbc_msg_append_varint_field(m, 2, 1);      /* dropped: sticky */
  CHECK(pbc_msg_begin_nested(deeper, 1) != NULL);
  CHECK(pbc_msg_finalize(deeper) == SIZE_MAX);
  CHECK(pbc_writer_position(&h.writer) == pos);
  CHECK(pbc_writer_finish(&h.writer) == PBC_ERR_DEPTH_LIMIT);
  pbc_heap_writer_destroy(&h);

  /* Groups count too. */
  pbc_heap_writer_init(&h, 64);
  m = pbc_writer_root(&h.writer);
  for (int i = 0; i < PBC_WRITER_MAX_DEPTH; i++) m = pbc_msg_begin_group(m, 1);
  CHECK(pbc_writer_status(&h.writer) == PBC_OK);
  pbc_msg_begin_group(m, 1);
  CHECK(pbc_writer_status(&h.writer) == PBC_ERR_DEPTH_LIMIT);
  pbc_heap_writer_destroy(&h);
}

/* ---- Raw writer access --------------------------------------------------------- */

static void test_reserve_and_write(void) {
  recorder r;
  pbc_writer w;
  rec_init(&r, &w, 8, COMMIT_NEVER);
  CHECK(pbc_writer_reserve(&w, 1) == NULL); /* no chunk yet */
  CHECK(r.count == 0);
  pbc_writer_write(&w, "abc", 3);
  uint8_t *p = pbc_writer_reserve(&w, 5);
  CHECK(p == r.chunks[0] + 3);
  memcpy(p, "defgh", 5);
  CHECK(pbc_writer_reserve(&w, 1) == NULL); /* full: no side effect */
  CHECK(r.count == 1 && pbc_writer_position(&w) == 8);
  CHECK(pbc_writer_reserve(&w, 0) != NULL);
  pbc_writer_write_varint(&w, UINT64_MAX); /* 10 bytes over two chunks */
  pbc_writer_write(&w, "0123456789", 10);
  CHECK(pbc_writer_position(&w) == 28 && r.count == 4);
  CHECK(pbc_writer_chunk_used(&w) == 4);
  size_t n;
  uint8_t *out = rec_stream(&r, &w, &n);
  CHECK(bytes_are(out, n,
                  "61 62 63 64 65 66 67 68 ff ff ff ff ff ff ff ff ff 01 "
                  "30 31 32 33 34 35 36 37 38 39"));
  CHECK(!r.violation);
  free(out);
  rec_free(&r);
}

static void test_delegate_failure(void) {
  recorder r;
  pbc_writer w;
  rec_init(&r, &w, 4, COMMIT_NEVER);
  r.fail_at = 1;
  pbc_msg *root = pbc_writer_root(&w);
  pbc_msg *a = pbc_msg_begin_nested(root, 1);
  pbc_msg_append_bytes_field(a, 2, "hello", 5); /* needs chunk 1: fails */
  CHECK(pbc_writer_status(&w) == PBC_ERR_OUT_OF_MEMORY);
  uint64_t pos = pbc_writer_position(&w);
  pbc_msg_append_varint_field(a, 3, 1);
  pbc_writer_write(&w, "x", 1);
  CHECK(pbc_writer_reserve(&w, 1) == NULL);
  CHECK(pbc_msg_begin_nested(a, 4) != NULL);
  CHECK(pbc_writer_position(&w) == pos && r.count == 1);
  CHECK(pbc_writer_finish(&w) == PBC_ERR_OUT_OF_MEMORY);
  CHECK(!r.violation);
  rec_free(&r);
}

/* A delegate handing out one chunk over and over, committing each time:
 * lengths reach the patch callback, and nothing is kept. */
typedef struct {
  uint8_t chunk[65536];
  uint8_t last_patch[4];
  size_t patch_bytes;
} spinner;

static bool spin_get(void *ctx, uint32_t id, uint8_t **begin, uint8_t **end,
                     bool *committed) {
  spinner *s = ctx;
  (void)id;
  *begin = s->chunk;
  *end = s->chunk + sizeof s->chunk;
  *committed = true;
  return true;
}

static void spin_patch(void *ctx, uint32_t id, size_t offset,
                       const uint8_t *bytes, size_t size) {
  spinner *s = ctx;
  (void)id;
  (void)offset;
  memcpy(s->last_patch + s->patch_bytes % 4, bytes, size);
  s->patch_bytes += size;
}

static void test_too_large(void) {
  static spinner s;
  static uint8_t block[1 << 16];
  pbc_writer_delegate d = {spin_get, spin_patch, &s};
  for (int over = 0; over <= 1; over++) {
    pbc_writer w;
    pbc_writer_init(&w, &d);
    s.patch_bytes = 0;
    pbc_msg *m = pbc_msg_begin_nested(pbc_writer_root(&w), 1);
    size_t left = PBC_MAX_NESTED_SIZE + (size_t)over;
    while (left > 0) {
      size_t n = left < sizeof block ? left : sizeof block;
      pbc_msg_append_raw(m, block, n);
      left -= n;
    }
    size_t size = pbc_msg_finalize(m);
    if (over) {
      CHECK(size == SIZE_MAX);
      CHECK(pbc_writer_status(&w) == PBC_ERR_TOO_LARGE);
      CHECK(s.patch_bytes == 0); /* no length rather than a wrong one */
    } else {
      CHECK(size == PBC_MAX_NESTED_SIZE);
      CHECK(pbc_writer_status(&w) == PBC_OK);
      CHECK(s.patch_bytes == 4 && bytes_are(s.last_patch, 4, "ff ff ff 7f"));
    }
  }
}

/* ---- Chunking does not change the stream ----------------------------------------
 * A random script of appends (scalars, strings, packed runs, nested
 * messages and groups, writes to ancestors while children are open, raw
 * writes) must produce the same bytes whatever the chunk sizes and commit
 * policy: one big chunk is the reference. */
static void run_script(pbc_writer *w, uint32_t seed) {
  uint32_t rng = seed * 2654435761u + 1;
  pbc_msg *open[40];
  int depth = 0;
  open[0] = pbc_writer_root(w);
  char text[700];
  for (size_t i = 0; i < sizeof text; i++) text[i] = (char)('a' + i % 26);
  int steps = 40 + (int)(next_random(&rng) % 200);
  for (int step = 0; step < steps; step++) {
    /* Mostly the innermost message, sometimes an ancestor. */
    int target = depth;
    if (depth > 0 && next_random(&rng) % 8 == 0)
      target = (int)(next_random(&rng) % (uint32_t)(depth + 1));
    pbc_msg *m = open[target];
    uint32_t field = 1 + next_random(&rng) % 3000;
    uint64_t v = next_random(&rng);
    v = (v << 32 | next_random(&rng)) >> (next_random(&rng) % 64);
    switch (next_random(&rng) % 10) {
    case 0: pbc_msg_append_varint_field(m, field, v); break;
    case 1: pbc_msg_append_fixed32_field(m, field, (uint32_t)v); break;
    case 2: pbc_msg_append_fixed64_field(m, field, v); break;
    case 3:
      pbc_msg_append_bytes_field(m, field, text,
                                 next_random(&rng) % sizeof text);
      break;
    case 4: {
      /* Each kind reads its own C type. */
      int64_t i64[20];
      int32_t i32[20];
      bool bools[20];
      for (int k = 0; k < 20; k++) {
        i64[k] = (int64_t)(v >> (k * 3));
        i32[k] = (int32_t)i64[k];
        bools[k] = (i64[k] & 1) != 0;
      }
      pbc_packed_kind kind = (pbc_packed_kind)(next_random(&rng) % 8);
      const void *vals = kind == PBC_PACKED_BOOL ? (const void *)bools
                         : kind == PBC_PACKED_INT64 || kind == PBC_PACKED_SINT64 ||
                                 kind == PBC_PACKED_FIXED64
                             ? (const void *)i64
                             : (const void *)i32;
      pbc_msg_append_packed_field(m, field, kind, vals,
                                  next_random(&rng) % 10);
      break;
    }
    case 5:
    case 6:
      if (target < 39) {
        depth = target + 1;
        open[depth] = next_random(&rng) % 4 ? pbc_msg_begin_nested(m, field)
                                            : pbc_msg_begin_group(m, field);
      }
      continue;
    case 7:
      if (target > 0) {
        pbc_msg_finalize(m);
        depth = target - 1;
      }
      continue;
    case 8: {
      /* Straight to the writer, into the innermost open message. */
      pbc_writer *wr = m->writer;
      pbc_msg_append_varint(m, ((uint64_t)field << 3) | 2); /* closes children */
      pbc_writer_write_varint(wr, 3);
      uint8_t *p = pbc_writer_reserve(wr, 3);
      if (p != NULL) memcpy(p, "xyz", 3);
      else pbc_writer_write(wr, "xyz", 3);
      break;
    }
    default:
      pbc_msg_append_tag_varint32(m, pbc_tag_bytes(field, 0),
                                  pbc_tag_len(field), (uint32_t)v);
      break;
    }
    depth = target; /* the write closed the children of m */
  }
}

static void test_chunking_invariance(void) {
  int mismatches = 0, violations = 0, statuses = 0;
  size_t patches = 0;
  for (uint32_t seed = 1; seed <= 40; seed++) {
    pbc_heap_writer ref;
    pbc_heap_writer_init(&ref, 1 << 20);
    run_script(&ref.writer, seed);
    statuses += pbc_writer_finish(&ref.writer) != PBC_OK;
    size_t want_size;
    uint8_t *want = heap_stream(&ref, &want_size);
    pbc_heap_writer_destroy(&ref);

    for (size_t chunk = 0; chunk <= 24; chunk++) {
      for (int mode = COMMIT_NEVER; mode <= COMMIT_RANDOM; mode++) {
        recorder r;
        pbc_writer w;
        rec_init(&r, &w, chunk, mode);
        r.rng += seed;
        run_script(&w, seed);
        statuses += pbc_writer_finish(&w) != PBC_OK;
        size_t got_size;
        uint8_t *got = rec_stream(&r, &w, &got_size);
        if (got_size != want_size || memcmp(got, want, want_size) != 0) {
          if (mismatches++ < 3)
            printf("  mismatch: seed %u chunk %zu mode %d\n", seed, chunk,
                   mode);
        }
        violations += r.violation;
        patches += r.patches;
        free(got);
        rec_free(&r);
      }
    }
    /* The heap writer at every small chunk size. */
    for (size_t chunk = 1; chunk <= 9; chunk++) {
      pbc_heap_writer h;
      pbc_heap_writer_init(&h, chunk);
      run_script(&h.writer, seed);
      statuses += pbc_writer_finish(&h.writer) != PBC_OK;
      size_t got_size;
      uint8_t *got = heap_stream(&h, &got_size);
      mismatches += got_size != want_size || memcmp(got, want, want_size) != 0;
      size_t total = 0, size;
      for (size_t i = 0; i < pbc_heap_writer_chunk_count(&h); i++) {
        pbc_heap_writer_chunk(&h, i, &size);
        total += size;
      }
      mismatches += total != want_size;
      free(got);
      pbc_heap_writer_destroy(&h);
    }
    free(want);
  }
  CHECK(mismatches == 0);
  CHECK(violations == 0);
  CHECK(statuses == 0);
  CHECK(patches > 0); /* the patch path was taken */
}

/* A nested message whose length bytes straddle chunks that get committed
 * at once: one patch per chunk, with the right offsets. */
static void test_straddled_patch(void) {
  for (size_t chunk = 1; chunk <= 6; chunk++) {
    recorder r;
    pbc_writer w;
    rec_init(&r, &w, chunk, COMMIT_ALWAYS);
    pbc_msg *root = pbc_writer_root(&w);
    pbc_msg_append_raw(root, "\x01\x02\x03", 3);
    pbc_msg *m = pbc_msg_begin_nested(root, 1);
    pbc_msg_append_raw(m, "abcdefghij", 10);
    CHECK(pbc_msg_finalize(m) == 10);
    CHECK(pbc_writer_finish(&w) == PBC_OK);
    size_t n;
    uint8_t *out = rec_stream(&r, &w, &n);
    CHECK(bytes_are(out, n,
                    "01 02 03 0a 8a 80 80 00 61 62 63 64 65 66 67 68 69 6a"));
    CHECK(!r.violation && r.patches >= 1);
    free(out);
    rec_free(&r);
  }
}

static void test_heap_writer_api(void) {
  pbc_heap_writer h;
  pbc_heap_writer_init(&h, 5);
  pbc_msg_append_raw(pbc_writer_root(&h.writer), "0123456789ab", 12);
  CHECK(pbc_heap_writer_size(&h) == 12);
  CHECK(pbc_heap_writer_chunk_count(&h) == 3);
  size_t size;
  const uint8_t *c = pbc_heap_writer_chunk(&h, 2, &size);
  CHECK(size == 2 && memcmp(c, "ab", 2) == 0);
  CHECK(pbc_heap_writer_chunk(&h, 3, &size) == NULL && size == 0);
  uint8_t out[8];
  CHECK(pbc_heap_writer_copy(&h, out, 7) == 7 && memcmp(out, "0123456", 7) == 0);
  pbc_heap_writer_reset(&h);
  CHECK(pbc_heap_writer_size(&h) == 0 && pbc_heap_writer_chunk_count(&h) == 0);
  pbc_msg_append_varint_field(pbc_writer_root(&h.writer), 1, 1);
  CHECK(pbc_heap_writer_size(&h) == 2);
  pbc_heap_writer_destroy(&h);
}

/* ---- Invariants ----------------------------------------------------------
 * A finalized message that kept its limit would pass the fast paths' one
 * compare and write into its parent: the next slow path must stop at the
 * writer's assert. */
static void finalized_message_keeps_limit(void) {
  pbc_heap_writer h;
  pbc_heap_writer_init(&h, 64);
  pbc_msg *child = pbc_msg_begin_nested(pbc_writer_root(&h.writer), 1);
  pbc_msg_finalize(child);
  child->limit = h.writer.end;
  pbc_writer_finish(&h.writer);
}

static void test_invariants_asserted(void) {
  CHECK(aborts(finalized_message_keeps_limit));
}

int main(void) {
  test_protozero_example();
  test_redundant_sizes();
  test_tags();
  test_varints();
  test_int32_varints();
  test_scalars();
  test_long_string();
  test_groups();
  test_packed();
  test_parent_write_finalizes_children();
  test_depth_limit();
  test_reserve_and_write();
  test_delegate_failure();
  test_too_large();
  test_chunking_invariance();
  test_straddled_patch();
  test_heap_writer_api();
  test_invariants_asserted();
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
