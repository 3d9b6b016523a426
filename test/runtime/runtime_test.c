/* Unit tests for the pbc C runtime. Prints "N passed, N failed" and exits
 * non-zero when anything failed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aborts.h"
#include "pbc/pbc.h"
#include "pbc/schema.h"
#include "pbc/text.h"
#include "pbc_rt.h"

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

/* A decoder over a fresh heap-only arena. */
static pbc_decoder new_decoder(pbc_arena *a) {
  pbc_decoder d = {a, 0, PBC_DEFAULT_MAX_DEPTH, PBC_OK, NULL, NULL};
  return d;
}

static bool aligned8(const void *p) {
  return ((uintptr_t)p & 7) == 0;
}

/* ---- Varints and tags ---------------------------------------------------- */

/* Reads the whole of buf as one varint: true when it succeeds, consumes
 * exactly n bytes and yields `want`. */
static bool varint_reads(const uint8_t *buf, size_t n, uint64_t want) {
  pbc_arena a;
  pbc_arena_init(&a, NULL, 0);
  pbc_decoder d = new_decoder(&a);
  uint64_t v = ~want;
  const uint8_t *p = pbc_rt_varint(&d, buf, buf + n, &v);
  return p == buf + n && v == want && d.status == PBC_OK;
}

/* The status pbc_rt_varint leaves for buf, which must be rejected. */
static pbc_status varint_error(const uint8_t *buf, size_t n) {
  pbc_decoder d = new_decoder(NULL);
  uint64_t v;
  if (pbc_rt_varint(&d, buf, buf + n, &v) != NULL) return PBC_OK;
  return d.status;
}

static void test_varint_lengths(void) {
  /* The smallest and largest value of every length 1..10. */
  for (int len = 1; len <= 10; len++) {
    uint64_t lo = len == 1 ? 0 : (uint64_t)1 << (7 * (len - 1));
    uint64_t hi = len == 10 ? UINT64_MAX : ((uint64_t)1 << (7 * len)) - 1;
    uint64_t vals[2] = {lo, hi};
    for (int k = 0; k < 2; k++) {
      uint8_t buf[10];
      uint8_t *start = pbc_rt_put_varint(buf + 10, vals[k]);
      CHECK(start == buf + 10 - len);
      CHECK(varint_reads(start, (size_t)len, vals[k]));
    }
  }
}

static void test_varint_edges(void) {
  /* Non-canonical but legal: padded with continuation bytes. */
  const uint8_t padded[] = {0x81, 0x80, 0x80, 0x00};
  CHECK(varint_reads(padded, sizeof padded, 1));

  /* A 10th byte above 1 carries bits past 64; libprotobuf drops them. */
  const uint8_t ten_high[] = {0xff, 0xff, 0xff, 0xff, 0xff,
                              0xff, 0xff, 0xff, 0xff, 0x7f};
  CHECK(varint_reads(ten_high, sizeof ten_high, UINT64_MAX));
  const uint8_t ten_two[] = {0x80, 0x80, 0x80, 0x80, 0x80,
                             0x80, 0x80, 0x80, 0x80, 0x02};
  CHECK(varint_reads(ten_two, sizeof ten_two, 0));

  const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                            0x80, 0x80, 0x80, 0x80, 0x01};
  CHECK(varint_error(eleven, sizeof eleven) == PBC_ERR_MALFORMED_VARINT);
  /* Ten continuation bytes are malformed already, whatever follows. */
  CHECK(varint_error(eleven, 10) == PBC_ERR_MALFORMED_VARINT);

  const uint8_t cut[] = {0x80, 0x80};
  CHECK(varint_error(cut, sizeof cut) == PBC_ERR_TRUNCATED);
  CHECK(varint_error(cut, 0) == PBC_ERR_TRUNCATED);

  /* Stops at the end of the varint, not of the input. */
  const uint8_t two[] = {0x96, 0x01, 0xaa};
  pbc_decoder d = new_decoder(NULL);
  uint64_t v;
  CHECK(pbc_rt_varint(&d, two, two + 3, &v) == two + 2 && v == 150);
}

static void test_put_varint_round_trip(void) {
  int bad = 0;
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 100000; i++) {
    /* Every bit length, both powers of two and random-ish values. */
    uint64_t v = i < 64 ? (uint64_t)1 << i : i < 128 ? ((uint64_t)1 << (i - 64)) - 1 : x;
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    x ^= x >> (i % 63 + 1);
    uint8_t buf[16];
    memset(buf, 0xee, sizeof buf);
    uint8_t *start = pbc_rt_put_varint(buf + 12, v);
    if (start < buf + 2 || !varint_reads(start, (size_t)(buf + 12 - start), v)) bad++;
    if (buf[12] != 0xee || buf[1] != 0xee) bad++;
    /* The room writer, with every room from none to more than the longest
     * varint: the same bytes, nothing written at or above the end, nothing
     * below end - max(room, the varint's size). */
    for (int64_t room = 0; room <= 12; room++) {
      uint8_t same[32];
      memset(same, 0xee, sizeof same);
      uint8_t *end = same + 24;
      uint8_t *s2 = pbc_rt_put_varint_room(end, v, room);
      if (s2 - end != start - (buf + 12) ||
          memcmp(s2, start, (size_t)(buf + 12 - start)) != 0)
        bad++;
      int64_t own = end - s2;
      uint8_t *lowest = end - (room > own ? room : own);
      for (uint8_t *q = same; q < same + sizeof same; q++)
        if ((q < lowest || q >= end) && *q != 0xee) bad++;
    }
  }
  CHECK(bad == 0);

  uint8_t one[1];
  CHECK(pbc_rt_put_varint(one + 1, 0) == one && one[0] == 0);
  CHECK(pbc_rt_put_varint(one + 1, 127) == one && one[0] == 127);
  uint8_t two[2];
  CHECK(pbc_rt_put_varint(two + 2, 300) == two && two[0] == 0xac && two[1] == 0x02);
}

/* The status pbc_rt_tag leaves for buf (PBC_OK when it reads the whole of
 * buf); the tag goes to *tag. Statuses pbc_rt_tag never sets stand for
 * "failed without a status" and "stopped early", so neither looks like a
 * pass. */
static pbc_status read_tag(const uint8_t *buf, size_t n, uint32_t *tag) {
  pbc_decoder d = new_decoder(NULL);
  const uint8_t *p = pbc_rt_tag(&d, buf, buf + n, tag);
  if (p == NULL) return d.status == PBC_OK ? PBC_ERR_TOO_LARGE : d.status;
  return p == buf + n ? PBC_OK : PBC_ERR_BAD_LENGTH;
}

static void test_tags(void) {
  uint32_t tag = 0;
  const uint8_t f1_varint[] = {0x08};
  CHECK(read_tag(f1_varint, 1, &tag) == PBC_OK && tag == 8);

  const uint8_t f16_len[] = {0x82, 0x01};
  CHECK(read_tag(f16_len, 2, &tag) == PBC_OK && tag == ((16 << 3) | 2));

  const uint8_t padded[] = {0x88, 0x80, 0x00};
  CHECK(read_tag(padded, 3, &tag) == PBC_OK && tag == 8);

  const uint8_t max_tag[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
  CHECK(read_tag(max_tag, 5, &tag) == PBC_OK && tag == UINT32_MAX);

  const uint8_t field0[] = {0x00};
  CHECK(read_tag(field0, 1, &tag) == PBC_ERR_BAD_FIELD_NUMBER);
  const uint8_t field0_wt7[] = {0x07};
  CHECK(read_tag(field0_wt7, 1, &tag) == PBC_ERR_BAD_FIELD_NUMBER);
  const uint8_t field0_long[] = {0x80, 0x80, 0x00};
  CHECK(read_tag(field0_long, 3, &tag) == PBC_ERR_BAD_FIELD_NUMBER);

  /* Like libprotobuf, bits of a 5th byte past bit 31 are dropped... */
  const uint8_t over32[] = {0x88, 0x80, 0x80, 0x80, 0x70};
  CHECK(read_tag(over32, 5, &tag) == PBC_OK && tag == 8);
  /* ...so this one is field number 0. */
  const uint8_t bit32[] = {0x80, 0x80, 0x80, 0x80, 0x10};
  CHECK(read_tag(bit32, 5, &tag) == PBC_ERR_BAD_FIELD_NUMBER);

  /* Six bytes is too long even when the value would fit. */
  const uint8_t six[] = {0x88, 0x80, 0x80, 0x80, 0x80, 0x00};
  CHECK(read_tag(six, 6, &tag) == PBC_ERR_MALFORMED_VARINT);

  const uint8_t cut[] = {0x88, 0x80};
  CHECK(read_tag(cut, 2, &tag) == PBC_ERR_TRUNCATED);
  CHECK(read_tag(cut, 0, &tag) == PBC_ERR_TRUNCATED);
}

/* pbc_rt_length on the n bytes of buf: its status, the length in *len and
 * how many bytes of buf its varint took in *used. */
static pbc_status read_length(const uint8_t *buf, size_t n, uint64_t *len,
                              size_t *used) {
  pbc_decoder d = new_decoder(NULL);
  *len = 12345;
  const uint8_t *p = pbc_rt_length(&d, buf, buf + n, len);
  if (p == NULL) {
    CHECK(*len == 0);
    return d.status == PBC_OK ? PBC_ERR_TOO_LARGE : d.status;
  }
  *used = (size_t)(p - buf);
  return PBC_OK;
}

static void test_lengths(void) {
  uint64_t len;
  size_t used = 0;
  /* 2 bytes of length, then its 150 bytes. */
  uint8_t two[152] = {0x96, 0x01};
  CHECK(read_length(two, sizeof two, &len, &used) == PBC_OK && len == 150 &&
        used == 2);
  CHECK(read_length(two, sizeof two - 1, &len, &used) == PBC_ERR_TRUNCATED);
  const uint8_t one[] = {0x01, 0xaa};
  CHECK(read_length(one, 2, &len, &used) == PBC_OK && len == 1 && used == 1);
  CHECK(read_length(one, 1, &len, &used) == PBC_ERR_TRUNCATED);
  const uint8_t empty[] = {0x80, 0x00};
  CHECK(read_length(empty, 2, &len, &used) == PBC_OK && len == 0 && used == 2);
  /* The varint's own errors. */
  CHECK(read_length(two, 1, &len, &used) == PBC_ERR_TRUNCATED);
  CHECK(read_length(two, 0, &len, &used) == PBC_ERR_TRUNCATED);
  const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                            0x80, 0x80, 0x80, 0x80, 0x00};
  CHECK(read_length(eleven, sizeof eleven, &len, &used) ==
        PBC_ERR_MALFORMED_VARINT);
  /* Five bytes are the most libprotobuf reads, whatever the value; a
   * length past the input is truncated, however large. */
  const uint8_t six[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
  CHECK(read_length(six, sizeof six, &len, &used) == PBC_ERR_BAD_LENGTH);
  const uint8_t five[] = {0x80, 0x80, 0x80, 0x80, 0x00};
  CHECK(read_length(five, sizeof five, &len, &used) == PBC_OK && len == 0 &&
        used == 5);
  const uint8_t huge[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
  CHECK(read_length(huge, sizeof huge, &len, &used) == PBC_ERR_TRUNCATED);
}

/* ---- Skipping ------------------------------------------------------------ */

/* Reads buf's first tag and skips its value: the status, and in *rest the
 * number of bytes left after it. TOO_LARGE, which decoding never sets, stands
 * for "failed without a status". */
static pbc_status skip_first(const uint8_t *buf, size_t n, size_t *rest,
                             uint32_t *depth_after) {
  pbc_decoder d = new_decoder(NULL);
  const uint8_t *end = buf + n;
  uint32_t tag;
  const uint8_t *p = pbc_rt_tag(&d, buf, end, &tag);
  if (p != NULL) p = pbc_rt_skip(&d, p, end, tag);
  if (depth_after != NULL) *depth_after = d.depth;
  if (p == NULL) return d.status == PBC_OK ? PBC_ERR_TOO_LARGE : d.status;
  *rest = (size_t)(end - p);
  return PBC_OK;
}

static void test_skip_each_wire_type(void) {
  size_t rest = 0;
  const uint8_t varint[] = {0x08, 0xff, 0xff, 0x03, 0xaa};
  CHECK(skip_first(varint, sizeof varint, &rest, NULL) == PBC_OK && rest == 1);
  const uint8_t fixed64[] = {0x09, 1, 2, 3, 4, 5, 6, 7, 8, 0xaa};
  CHECK(skip_first(fixed64, sizeof fixed64, &rest, NULL) == PBC_OK && rest == 1);
  const uint8_t len[] = {0x0a, 0x03, 'a', 'b', 'c', 0xaa};
  CHECK(skip_first(len, sizeof len, &rest, NULL) == PBC_OK && rest == 1);
  const uint8_t len0[] = {0x0a, 0x00};
  CHECK(skip_first(len0, sizeof len0, &rest, NULL) == PBC_OK && rest == 0);
  const uint8_t group[] = {0x0b, 0x10, 0x01, 0x0c, 0xaa};
  CHECK(skip_first(group, sizeof group, &rest, NULL) == PBC_OK && rest == 1);
  const uint8_t empty_group[] = {0x0b, 0x0c};
  CHECK(skip_first(empty_group, sizeof empty_group, &rest, NULL) == PBC_OK && rest == 0);
  const uint8_t fixed32[] = {0x0d, 1, 2, 3, 4, 0xaa};
  CHECK(skip_first(fixed32, sizeof fixed32, &rest, NULL) == PBC_OK && rest == 1);

  const uint8_t bare_end[] = {0x0c};
  CHECK(skip_first(bare_end, 1, &rest, NULL) == PBC_ERR_END_GROUP);
  const uint8_t wt6[] = {0x0e, 0x00};
  CHECK(skip_first(wt6, sizeof wt6, &rest, NULL) == PBC_ERR_BAD_WIRE_TYPE);
  const uint8_t wt7[] = {0x0f, 0x00};
  CHECK(skip_first(wt7, sizeof wt7, &rest, NULL) == PBC_ERR_BAD_WIRE_TYPE);
}

static void test_skip_truncated(void) {
  size_t rest;
  const uint8_t varint[] = {0x08, 0xff};
  CHECK(skip_first(varint, sizeof varint, &rest, NULL) == PBC_ERR_TRUNCATED);
  const uint8_t fixed64[] = {0x09, 1, 2, 3, 4, 5, 6, 7};
  CHECK(skip_first(fixed64, sizeof fixed64, &rest, NULL) == PBC_ERR_TRUNCATED);
  const uint8_t fixed32[] = {0x0d, 1, 2, 3};
  CHECK(skip_first(fixed32, sizeof fixed32, &rest, NULL) == PBC_ERR_TRUNCATED);
  const uint8_t no_len[] = {0x0a};
  CHECK(skip_first(no_len, sizeof no_len, &rest, NULL) == PBC_ERR_TRUNCATED);
  const uint8_t past_end[] = {0x0a, 0x04, 'a', 'b', 'c'};
  CHECK(skip_first(past_end, sizeof past_end, &rest, NULL) == PBC_ERR_TRUNCATED);
  const uint8_t int32_max[] = {0x0a, 0xff, 0xff, 0xff, 0xff, 0x07, 'a'};
  CHECK(skip_first(int32_max, sizeof int32_max, &rest, NULL) == PBC_ERR_TRUNCATED);
  const uint8_t open_group[] = {0x0b, 0x08, 0x01};
  CHECK(skip_first(open_group, sizeof open_group, &rest, NULL) == PBC_ERR_TRUNCATED);
  const uint8_t group_cut_value[] = {0x0b, 0x09, 0x01};
  CHECK(skip_first(group_cut_value, sizeof group_cut_value, &rest, NULL) == PBC_ERR_TRUNCATED);
}

static void test_skip_bad_lengths(void) {
  size_t rest;
  /* 2^31 and 2^64-1: too long for libprotobuf, whatever the input size. */
  const uint8_t two_gib[] = {0x0a, 0x80, 0x80, 0x80, 0x80, 0x08};
  CHECK(skip_first(two_gib, sizeof two_gib, &rest, NULL) == PBC_ERR_BAD_LENGTH);
  const uint8_t huge[] = {0x0a, 0xff, 0xff, 0xff, 0xff, 0xff,
                          0xff, 0xff, 0xff, 0xff, 0x01};
  CHECK(skip_first(huge, sizeof huge, &rest, NULL) == PBC_ERR_BAD_LENGTH);
  const uint8_t eleven[] = {0x0a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                            0x80, 0x80, 0x80, 0x80, 0x00};
  CHECK(skip_first(eleven, sizeof eleven, &rest, NULL) == PBC_ERR_MALFORMED_VARINT);
}

static void test_skip_groups(void) {
  size_t rest = 0;
  uint32_t depth = 99;
  /* group 1 { group 2 { varint 1; bytes 3; fixed32 4 } group 2 {} } */
  const uint8_t nested[] = {0x0b, 0x13, 0x08, 0x01, 0x1a, 0x01, 'x', 0x25, 1, 2,
                            3, 4, 0x14, 0x13, 0x14, 0x0c, 0xaa};
  CHECK(skip_first(nested, sizeof nested, &rest, &depth) == PBC_OK && rest == 1);
  CHECK(depth == 0);

  /* An END_GROUP of the same field number as the inner group's parent. */
  const uint8_t same_field[] = {0x0b, 0x0b, 0x0c, 0x0c, 0xaa};
  CHECK(skip_first(same_field, sizeof same_field, &rest, NULL) == PBC_OK && rest == 1);

  const uint8_t wrong_end[] = {0x0b, 0x14};
  CHECK(skip_first(wrong_end, sizeof wrong_end, &rest, &depth) == PBC_ERR_END_GROUP);
  CHECK(depth == 0);
  const uint8_t outer_closes_inner[] = {0x0b, 0x13, 0x0c, 0x14, 0x0c};
  CHECK(skip_first(outer_closes_inner, sizeof outer_closes_inner, &rest, NULL) ==
        PBC_ERR_END_GROUP);
  const uint8_t bad_inside[] = {0x0b, 0x0e, 0x0c};
  CHECK(skip_first(bad_inside, sizeof bad_inside, &rest, NULL) == PBC_ERR_BAD_WIRE_TYPE);
  const uint8_t field0_inside[] = {0x0b, 0x00, 0x0c};
  CHECK(skip_first(field0_inside, sizeof field0_inside, &rest, NULL) ==
        PBC_ERR_BAD_FIELD_NUMBER);
}

/* n nested groups of field 1, closed when `closed`. */
static size_t nested_groups(uint8_t *buf, int n, bool closed) {
  size_t len = 0;
  for (int i = 0; i < n; i++) buf[len++] = 0x0b;
  for (int i = 0; closed && i < n; i++) buf[len++] = 0x0c;
  return len;
}

static void test_skip_depth_limit(void) {
  static uint8_t buf[4000];
  size_t rest = 0;
  uint32_t depth = 99;

  /* libprotobuf allows 100 levels below the top-level message. */
  size_t n = nested_groups(buf, PBC_DEFAULT_MAX_DEPTH, true);
  CHECK(skip_first(buf, n, &rest, &depth) == PBC_OK && rest == 0 && depth == 0);

  n = nested_groups(buf, PBC_DEFAULT_MAX_DEPTH + 1, true);
  CHECK(skip_first(buf, n, &rest, &depth) == PBC_ERR_DEPTH_LIMIT && depth == 0);

  n = nested_groups(buf, 200, false);
  CHECK(skip_first(buf, n, &rest, NULL) == PBC_ERR_DEPTH_LIMIT);
  n = nested_groups(buf, 1900, true);
  CHECK(skip_first(buf, n, &rest, NULL) == PBC_ERR_DEPTH_LIMIT);

  /* Groups count on top of the levels already open. */
  pbc_decoder d = new_decoder(NULL);
  d.depth = PBC_DEFAULT_MAX_DEPTH;
  const uint8_t group[] = {0x0c};
  CHECK(pbc_rt_skip(&d, group, group + 1, 0x0b) == NULL);
  CHECK(d.status == PBC_ERR_DEPTH_LIMIT && d.depth == PBC_DEFAULT_MAX_DEPTH);
}

/* ---- Decoder state ------------------------------------------------------- */

static void test_fail_keeps_first_error(void) {
  pbc_decoder d = new_decoder(NULL);
  CHECK(pbc_rt_fail(&d, PBC_ERR_TRUNCATED) == NULL);
  CHECK(pbc_rt_fail(&d, PBC_ERR_BAD_LENGTH) == NULL);
  CHECK(d.status == PBC_ERR_TRUNCATED);
}

static void test_push_pop(void) {
  pbc_decoder d = new_decoder(NULL);
  d.max_depth = 3;
  CHECK(pbc_rt_push(&d) && pbc_rt_push(&d) && pbc_rt_push(&d));
  CHECK(d.depth == 3 && d.status == PBC_OK);
  CHECK(!pbc_rt_push(&d));
  CHECK(d.depth == 3 && d.status == PBC_ERR_DEPTH_LIMIT);
  pbc_rt_pop(&d);
  pbc_rt_pop(&d);
  CHECK(d.depth == 1);
}

static void test_rt_alloc(void) {
  pbc_arena a;
  pbc_arena_init(&a, NULL, 0);
  pbc_decoder d = new_decoder(&a);
  void *p = pbc_rt_alloc(&d, 24);
  CHECK(p != NULL && aligned8(p) && d.status == PBC_OK);
  pbc_arena_set_max_bytes(&a, 0);
  pbc_arena_reset(&a);
  CHECK(pbc_rt_alloc(&d, 24) == NULL && d.status == PBC_ERR_ARENA_LIMIT);
  pbc_arena_destroy(&a);
}

static size_t expected_capacity(size_t n) {
  size_t cap = 4;
  while (cap < n) cap *= 2;
  return cap;
}

static void test_grow(void) {
  pbc_arena a;
  pbc_arena_init(&a, NULL, 0);
  pbc_decoder d = new_decoder(&a);

  /* Append one element at a time: data moves only when size crosses a
   * capacity (and then only when it cannot grow in place), and keeps its
   * contents. */
  uint32_t *data = NULL;
  size_t size = 0;
  int moved_wrongly = 0, lost = 0;
  for (uint32_t i = 0; i < 5000; i++) {
    uint32_t *grown = pbc_rt_grow(&d, data, size, 1, sizeof *data);
    if (grown == NULL) break;
    bool may_move = size == 0 || size + 1 > expected_capacity(size);
    if (grown != data && !may_move) moved_wrongly++;
    for (size_t k = 0; k < size; k++)
      if (grown[k] != (uint32_t)k) lost++;
    data = grown;
    data[size++] = i;
  }
  CHECK(size == 5000 && d.status == PBC_OK);
  CHECK(moved_wrongly == 0 && lost == 0);

  /* A first array comes from the top of the block; appends within its
   * capacity keep it; past it, it moves to the bottom, contents kept... */
  uint64_t *run = pbc_rt_grow(&d, NULL, 0, 5, sizeof *run);
  CHECK(run != NULL && aligned8(run));
  for (int k = 0; k < 5; k++) run[k] = (uint64_t)k;
  CHECK(pbc_rt_grow(&d, run, 5, 3, sizeof *run) == run);
  uint64_t *bottom = pbc_rt_grow(&d, run, 5, 4, sizeof *run);
  CHECK(bottom != NULL && bottom != run && bottom[0] == 0 && bottom[4] == 4);
  /* ...where, as the newest allocation, it grows in place, also after
   * sub-messages and other first arrays were allocated (from the top)... */
  CHECK(pbc_rt_alloc(&d, 8) != NULL);
  CHECK(pbc_rt_grow(&d, NULL, 0, 1, 8) != NULL);
  uint64_t *in_place = pbc_rt_grow(&d, bottom, 9, 8, sizeof *run);
  CHECK(in_place == bottom && in_place[4] == 4);
  /* ...while one with something allocated after it at the bottom moves,
   * contents kept. */
  CHECK(pbc_arena_alloc(d.arena, 8) != NULL);
  uint64_t *more = pbc_rt_grow(&d, in_place, 17, 16, sizeof *run);
  CHECK(more != NULL && more != in_place && more[0] == 0 && more[4] == 4);

  /* Growing by nothing still hands back usable memory, never NULL. */
  CHECK(pbc_rt_grow(&d, NULL, 0, 0, 8) != NULL);
  CHECK(d.status == PBC_OK);

  /* Byte counts that overflow are OUT_OF_MEMORY, not a wrapped size. */
  pbc_decoder d2 = new_decoder(&a);
  CHECK(pbc_rt_grow(&d2, more, 5, SIZE_MAX, 8) == NULL);
  CHECK(d2.status == PBC_ERR_OUT_OF_MEMORY);
  pbc_decoder d3 = new_decoder(&a);
  CHECK(pbc_rt_grow(&d3, more, 5, SIZE_MAX / 4, 8) == NULL);
  CHECK(d3.status == PBC_ERR_OUT_OF_MEMORY);
  pbc_decoder d4 = new_decoder(&a);
  CHECK(pbc_rt_grow(&d4, NULL, 0, (SIZE_MAX / 2) + 2, 1) == NULL);
  CHECK(d4.status == PBC_ERR_OUT_OF_MEMORY);

  pbc_arena_destroy(&a);
}

/* ---- Arena --------------------------------------------------------------- */

static void test_arena_alignment(void) {
  pbc_arena a;
  pbc_arena_init(&a, NULL, 0);
  int misaligned = 0, overlap = 0;
  uint8_t *prev = NULL;
  size_t prev_size = 0;
  for (size_t i = 0; i < 2000; i++) {
    size_t size = i % 37;
    uint8_t *p = pbc_arena_alloc(&a, size);
    if (p == NULL || !aligned8(p)) misaligned++;
    /* Writing the whole request must not corrupt the previous one. */
    if (p != NULL) memset(p, (int)(i & 0xff), size);
    if (prev != NULL && prev_size > 0 && prev[prev_size - 1] != (uint8_t)((i - 1) & 0xff))
      overlap++;
    prev = p;
    prev_size = size;
  }
  CHECK(misaligned == 0 && overlap == 0);
  /* Zero bytes: distinct, non-NULL pointers. */
  void *z1 = pbc_arena_alloc(&a, 0), *z2 = pbc_arena_alloc(&a, 0);
  CHECK(z1 != NULL && z2 != NULL && z1 != z2);
  pbc_arena_destroy(&a);
}

static void test_arena_initial_block(void) {
  /* An odd address: the arena aligns it itself. */
  static uint64_t storage[33];
  uint8_t *block = (uint8_t *)storage + 1;
  size_t block_size = 256;
  pbc_arena a;
  pbc_arena_init(&a, block, block_size);

  uint8_t *p = pbc_arena_alloc(&a, 10);
  CHECK(p == (uint8_t *)storage + 8);
  uint8_t *q = pbc_arena_alloc(&a, 1);
  CHECK(q == p + 16 && a.allocated == 0 && a.blocks == NULL);

  /* Fill the rest, then spill to the heap. */
  while (a.end - a.ptr >= 8) CHECK(pbc_arena_alloc(&a, 8) != NULL && a.allocated == 0);
  uint8_t *heap = pbc_arena_alloc(&a, 8);
  CHECK(heap != NULL && (heap < block || heap >= block + block_size));
  CHECK(a.allocated > 0 && a.blocks != NULL);

  /* Reset frees the heap and starts over in the initial block. */
  pbc_arena_reset(&a);
  CHECK(a.allocated == 0 && a.blocks == NULL);
  CHECK(pbc_arena_alloc(&a, 10) == p);

  /* A block too small for one aligned byte is simply not used. */
  pbc_arena tiny;
  pbc_arena_init(&tiny, (uint8_t *)storage + 1, 7);
  uint8_t *t = pbc_arena_alloc(&tiny, 1);
  CHECK(t != NULL && (t < (uint8_t *)storage || t >= (uint8_t *)(storage + 33)));
  pbc_arena_destroy(&tiny);

  /* Destroy leaves the caller's block alone (ASan would catch a free). */
  pbc_arena_destroy(&a);
  CHECK(a.blocks == NULL && a.allocated == 0);
  pbc_arena_destroy(&a);
}

static void test_arena_large_requests(void) {
  pbc_arena a;
  pbc_arena_init(&a, NULL, 0);
  uint8_t *small = pbc_arena_alloc(&a, 8);
  size_t after_first = a.allocated;
  CHECK(small != NULL && after_first >= 4096 && after_first <= 8192);

  /* A request bigger than the next block gets its own, and the current
   * block keeps serving small requests. */
  uint8_t *big = pbc_arena_alloc(&a, 3 * 1024 * 1024);
  CHECK(big != NULL && aligned8(big));
  if (big != NULL) memset(big, 1, 3 * 1024 * 1024);
  CHECK(pbc_arena_alloc(&a, 8) == small + 8);

  /* Heap blocks grow, but no ordinary block exceeds 1 MiB. */
  size_t before = a.allocated;
  for (int i = 0; i < 40; i++) CHECK(pbc_arena_alloc(&a, 64 * 1024) != NULL);
  CHECK(a.allocated - before <= 40 * 64 * 1024 + 2 * 1024 * 1024);

  /* Sizes that overflow once rounded or given a header. */
  size_t before_huge = a.allocated;
  CHECK(pbc_arena_alloc(&a, SIZE_MAX) == NULL);
  CHECK(pbc_arena_alloc(&a, SIZE_MAX - 7) == NULL);
  CHECK(pbc_arena_alloc(&a, SIZE_MAX - 8) == NULL);
  CHECK(pbc_arena_alloc(&a, SIZE_MAX - 16) == NULL);
  CHECK(a.allocated == before_huge);

  pbc_arena_reset(&a);
  CHECK(a.allocated == 0 && a.blocks == NULL && a.ptr == NULL);
  CHECK(pbc_arena_alloc(&a, 8) != NULL);
  pbc_arena_destroy(&a);
  CHECK(a.allocated == 0 && a.blocks == NULL);
}

static void test_arena_max_bytes(void) {
  pbc_arena a;
  pbc_arena_init(&a, NULL, 0);
  CHECK(a.max_bytes == SIZE_MAX);

  pbc_arena_set_max_bytes(&a, 0);
  CHECK(pbc_arena_alloc(&a, 1) == NULL && a.allocated == 0 && a.blocks == NULL);

  /* Under a 10000-byte cap, allocations succeed until the cap, then fail
   * without taking more. */
  pbc_arena_set_max_bytes(&a, 10000);
  size_t got = 0;
  while (pbc_arena_alloc(&a, 100) != NULL) got += 104;
  CHECK(a.allocated <= 10000);
  CHECK(got >= 9000);
  size_t at_cap = a.allocated;
  CHECK(pbc_arena_alloc(&a, 100) == NULL && a.allocated == at_cap);
  CHECK(pbc_arena_alloc(&a, 20000) == NULL && a.allocated == at_cap);

  /* The cap survives reset and leaves the initial block uncounted. */
  static uint64_t storage[16];
  pbc_arena b;
  pbc_arena_init(&b, storage, sizeof storage);
  pbc_arena_set_max_bytes(&b, 0);
  CHECK(pbc_arena_alloc(&b, 64) != NULL);
  CHECK(pbc_arena_alloc(&b, 64) != NULL);
  CHECK(pbc_arena_alloc(&b, 8) == NULL);
  pbc_arena_reset(&b);
  CHECK(pbc_arena_alloc(&b, 128) == (void *)storage);

  /* Lowering the cap below what is taken stops new blocks. */
  pbc_arena_set_max_bytes(&a, SIZE_MAX);
  pbc_arena_reset(&a);
  CHECK(pbc_arena_alloc(&a, 8) != NULL);
  pbc_arena_set_max_bytes(&a, 1);
  CHECK(pbc_arena_alloc(&a, 8) != NULL); /* still room in the current block */
  CHECK(pbc_arena_alloc(&a, 100000) == NULL);

  pbc_arena_destroy(&a);
  pbc_arena_destroy(&b);
}

/* ---- UTF-8 --------------------------------------------------------------- */

static bool utf8(const char *s, size_t n) {
  return pbc_rt_utf8_valid((const uint8_t *)s, n);
}

/* A reference validator written the other way round: decode the code point,
 * then reject what Unicode forbids. */
static bool utf8_reference(const uint8_t *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    uint8_t b = s[i];
    size_t len;
    uint32_t cp;
    if (b < 0x80) { len = 1; cp = b; }
    else if ((b & 0xe0) == 0xc0) { len = 2; cp = b & 0x1f; }
    else if ((b & 0xf0) == 0xe0) { len = 3; cp = b & 0x0f; }
    else if ((b & 0xf8) == 0xf0) { len = 4; cp = b & 0x07; }
    else return false;
    if (n - i < len) return false;
    for (size_t k = 1; k < len; k++) {
      if ((s[i + k] & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (s[i + k] & 0x3f);
    }
    static const uint32_t min_for_len[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_for_len[len]) return false;
    if (cp >= 0xd800 && cp <= 0xdfff) return false;
    if (cp > 0x10ffff) return false;
    i += len;
  }
  return true;
}

static void test_utf8_vectors(void) {
  CHECK(pbc_rt_utf8_valid(NULL, 0));
  CHECK(utf8("hello", 5));
  CHECK(utf8("\xc3\xa9", 2));           /* U+00E9 */
  CHECK(utf8("\xc2\x80", 2));           /* U+0080, smallest 2-byte */
  CHECK(utf8("\xdf\xbf", 2));           /* U+07FF */
  CHECK(utf8("\xe0\xa0\x80", 3));       /* U+0800, smallest 3-byte */
  CHECK(utf8("\xe2\x82\xac", 3));       /* U+20AC */
  CHECK(utf8("\xed\x9f\xbf", 3));       /* U+D7FF, below the surrogates */
  CHECK(utf8("\xee\x80\x80", 3));       /* U+E000, above them */
  CHECK(utf8("\xef\xbf\xbf", 3));       /* U+FFFF */
  CHECK(utf8("\xf0\x90\x80\x80", 4));   /* U+10000 */
  CHECK(utf8("\xf0\x9f\x98\x80", 4));   /* U+1F600 */
  CHECK(utf8("\xf4\x8f\xbf\xbf", 4));   /* U+10FFFF */
  CHECK(utf8("a\0b", 3));               /* NUL is valid UTF-8 */

  CHECK(!utf8("\xc0\x80", 2));          /* overlong NUL */
  CHECK(!utf8("\xc1\xbf", 2));          /* overlong U+007F */
  CHECK(!utf8("\xe0\x9f\xbf", 3));      /* overlong U+07FF */
  CHECK(!utf8("\xf0\x8f\xbf\xbf", 4));  /* overlong U+FFFF */
  CHECK(!utf8("\xed\xa0\x80", 3));      /* U+D800 */
  CHECK(!utf8("\xed\xbf\xbf", 3));      /* U+DFFF */
  CHECK(!utf8("\xf4\x90\x80\x80", 4));  /* U+110000 */
  CHECK(!utf8("\xf5\x80\x80\x80", 4));
  CHECK(!utf8("\xff", 1));
  CHECK(!utf8("\x80", 1));              /* stray continuation */
  CHECK(!utf8("a\xbf" "b", 3));
  CHECK(!utf8("\xc3", 1));              /* truncated */
  CHECK(!utf8("\xe2\x82", 2));
  CHECK(!utf8("\xf0\x9f\x98", 3));
  CHECK(!utf8("\xc3\x28", 2));          /* second byte not a continuation */
  CHECK(!utf8("\xe2\x28\xac", 3));
  CHECK(!utf8("\xe2\x82\x28", 3));
  CHECK(!utf8("\xf0\x9f\x28\x80", 4));
  CHECK(!utf8("\xf0\x9f\x98\x28", 4));
  CHECK(!utf8("\xc3\xa9\xa9", 3));      /* one continuation too many */
  /* The length given, not a NUL, ends the string. */
  CHECK(!utf8("\xe2\x82\xac", 2));
}

static void test_utf8_every_position(void) {
  enum { LEN = 67 };
  uint8_t buf[LEN];
  int bad = 0;
  static const uint8_t stray[] = {0x80, 0xbf, 0xc0, 0xff};
  for (size_t pos = 0; pos < LEN; pos++) {
    for (size_t k = 0; k < sizeof stray; k++) {
      memset(buf, 'a', LEN);
      buf[pos] = stray[k];
      if (pbc_rt_utf8_valid(buf, LEN)) bad++;
      /* The same, seen through every starting offset. */
      if (pos > 0 && pbc_rt_utf8_valid(buf + 1, LEN - 1)) bad++;
    }
    /* A valid 4-byte character anywhere it fits, and cut by the end. */
    memset(buf, 'a', LEN);
    size_t fits = LEN - pos;
    memcpy(buf + pos, "\xf0\x9f\x98\x80", fits < 4 ? fits : 4);
    if (pbc_rt_utf8_valid(buf, LEN) != (fits >= 4)) bad++;
  }
  CHECK(bad == 0);
  memset(buf, 'a', LEN);
  CHECK(pbc_rt_utf8_valid(buf, LEN));
}

static void test_utf8_exhaustive(void) {
  /* Every 1-, 2- and 3-byte string, and every 4-byte string whose last two
   * bytes sit on the continuation boundaries, against the reference. */
  long mismatches = 0;
  uint8_t s[4];
  for (uint32_t x = 0; x < (1u << 24); x++) {
    s[0] = (uint8_t)(x >> 16);
    s[1] = (uint8_t)(x >> 8);
    s[2] = (uint8_t)x;
    if (pbc_rt_utf8_valid(s, 3) != utf8_reference(s, 3)) mismatches++;
    if ((x & 0xff) == 0 &&
        pbc_rt_utf8_valid(s, 2) != utf8_reference(s, 2)) mismatches++;
  }
  static const uint8_t edges[] = {0x00, 0x7f, 0x80, 0x9f, 0xa0, 0xbf, 0xc0, 0xff};
  for (uint32_t x = 0; x < (1u << 16); x++) {
    for (size_t i = 0; i < sizeof edges; i++) {
      for (size_t j = 0; j < sizeof edges; j++) {
        s[0] = (uint8_t)(x >> 8);
        s[1] = (uint8_t)x;
        s[2] = edges[i];
        s[3] = edges[j];
        if (pbc_rt_utf8_valid(s, 4) != utf8_reference(s, 4)) mismatches++;
      }
    }
  }
  CHECK(mismatches == 0);
}

/* ---- Status names -------------------------------------------------------- */

static void test_status_str(void) {
  const char *names[PBC_ERR_JSON_SYNTAX + 1];
  int missing = 0, duplicate = 0;
  for (int s = PBC_OK; s <= PBC_ERR_JSON_SYNTAX; s++) {
    names[s] = pbc_status_str((pbc_status)s);
    if (names[s] == NULL || strcmp(names[s], "unknown status") == 0) missing++;
    for (int t = 0; t < s; t++)
      if (names[s] != NULL && names[t] != NULL && strcmp(names[s], names[t]) == 0)
        duplicate++;
  }
  CHECK(missing == 0 && duplicate == 0);
  CHECK(strcmp(pbc_status_str(PBC_OK), "ok") == 0);
  CHECK(strcmp(pbc_status_str((pbc_status)99), "unknown status") == 0);
  CHECK(strcmp(pbc_status_str((pbc_status)-1), "unknown status") == 0);
}


/* ---- Schemas at run time ------------------------------------------------- */

/* Builds descriptor bytes by hand: a buffer and the open length-delimited
 * fields, each patched with its length when closed. */
typedef struct wbuf {
  uint8_t b[4096];
  size_t n;
  size_t open[16];
  int depth;
} wbuf;

static void w_varint(wbuf *w, uint64_t v) {
  for (; v >= 0x80; v >>= 7) w->b[w->n++] = (uint8_t)(v | 0x80);
  w->b[w->n++] = (uint8_t)v;
}
static void w_int(wbuf *w, uint32_t field, uint64_t v) {
  w_varint(w, (uint64_t)field << 3);
  w_varint(w, v);
}
static void w_str(wbuf *w, uint32_t field, const char *s) {
  w_varint(w, (uint64_t)field << 3 | 2);
  w_varint(w, strlen(s));
  memcpy(w->b + w->n, s, strlen(s));
  w->n += strlen(s);
}
/* A nested message: its length as a 2-byte varint, patched on close. */
static void w_open(wbuf *w, uint32_t field) {
  w_varint(w, (uint64_t)field << 3 | 2);
  w->open[w->depth++] = w->n;
  w->n += 2;
}
static void w_close(wbuf *w) {
  size_t at = w->open[--w->depth], len = w->n - at - 2;
  w->b[at] = (uint8_t)(len | 0x80);
  w->b[at + 1] = (uint8_t)(len >> 7);
}
/* FieldDescriptorProto: name 1, number 3, label 4, type 5, type_name 6,
 * default_value 7. */
static void w_field(wbuf *w, const char *name, int number, int label, int type,
                    const char *type_name, const char *dflt) {
  w_open(w, 2);
  w_str(w, 1, name);
  w_int(w, 3, (uint64_t)number);
  w_int(w, 4, (uint64_t)label);
  w_int(w, 5, (uint64_t)type);
  if (type_name) w_str(w, 6, type_name);
  if (dflt) w_str(w, 7, dflt);
  w_close(w);
}

/* proto2 file "t.proto", package t:
 *   enum E { ONE = 1; TWO = 2; }
 *   message M { optional int32 a = 1 [default = -5]; optional string s = 2
 *     [default = "hi"]; optional E e = 3; repeated M kids = 4;
 *     required bytes r = 5 [default = "\001\377"];
 *     extensions 100 to 199; }
 *   extend M { optional E x = 100; }
 * `mutate` changes it into a broken one (see test_schema_errors). */
static void w_schema(wbuf *w, int mutate) {
  memset(w, 0, sizeof *w);
  w_open(w, 1);
  w_str(w, 1, "t.proto");
  w_str(w, 2, "t");
  w_open(w, 5);
  w_str(w, 1, "E");
  w_open(w, 2); w_str(w, 1, "ONE"); w_int(w, 2, 1); w_close(w);
  w_open(w, 2); w_str(w, 1, "TWO"); w_int(w, 2, 2); w_close(w);
  w_close(w);
  w_open(w, 4);
  w_str(w, 1, "M");
  w_field(w, "a", 1, 1, PBC_TYPE_INT32, NULL, mutate == 3 ? "x1" : "-5");
  w_field(w, "s", mutate == 2 ? 1 : 2, 1, PBC_TYPE_STRING, NULL, "hi");
  w_field(w, "e", 3, 1, PBC_TYPE_ENUM, mutate == 1 ? ".t.F" : ".t.E",
          mutate == 4 ? "THREE" : NULL);
  w_field(w, "kids", 4, 3, PBC_TYPE_MESSAGE, mutate == 5 ? ".t.E" : ".t.M", NULL);
  w_field(w, "r", mutate == 6 ? 0 : 5, 2, PBC_TYPE_BYTES, NULL, "\\001\\377");
  /* extensions 100 to 199 */
  w_open(w, 5);
  w_int(w, 1, mutate == 12 ? 5 : 100);
  w_int(w, 2, 200);
  w_close(w);
  w_close(w);
  /* extend M { optional E x = 100; } */
  w_open(w, 7);
  w_str(w, 1, "x");
  w_str(w, 2, mutate == 7 ? ".t.E" : mutate == 10 ? "t.M" : ".t.M");
  w_int(w, 3, mutate == 8 ? 3 : mutate == 11 ? 250 : 100);
  w_int(w, 4, mutate == 9 ? 2 : 1);
  w_int(w, 5, PBC_TYPE_ENUM);
  w_str(w, 6, ".t.E");
  w_close(w);
  w_close(w);
}

/* w_schema's set loaded, or NULL (its error printed). */
static pbc_schema *load_test_schema(void) {
  wbuf w;
  w_schema(&w, 0);
  pbc_schema *s = NULL;
  pbc_schema_error err;
  CHECK(pbc_schema_load(w.b, w.n, &s, &err) == PBC_OK);
  if (!s) printf("  %s\n", err.message);
  return s;
}

static void test_schema_load(void) {
  pbc_schema *s = load_test_schema();
  if (!s) return;
  const pbc_message_info *info = pbc_schema_find_message(s, "t.M");
  const pbc_enum_info *e = pbc_schema_find_enum(s, "t.E");
  CHECK(info && e && pbc_schema_message_count(s) == 1);
  CHECK(pbc_schema_find_message(s, "t.E") == NULL);
  CHECK(pbc_schema_find_message(s, "t.Nope") == NULL);
  if (!info || !e) return;
  CHECK(strcmp(info->full_name, "t.M") == 0 && pbc_schema_message_at(s, 0) == info);
  CHECK(!info->init && !info->decode && !info->encode && !info->internal_decoder);
  const pbc_message_desc *d = info->desc;
  CHECK(d->field_count == 5 && d->syntax == PBC_SYNTAX_PROTO2);
  CHECK(d->check_count == 2); /* r, and kids (M holds a required field) */
  CHECK(e->value_count == 2 && (e->flags & PBC_ENUM_CLOSED));
  CHECK(pbc_field_by_name(d, "kids", 4, false) == &d->fields[3]);
  CHECK(pbc_field_enum(d, &d->fields[2]) == e);

  /* The defaults and a round trip through the generic calls. */
  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  void *m = pbc_message_new(info, &arena);
  char text[256];
  size_t n = 0;
  CHECK(m && pbc_text_print(info, m, text, sizeof text, &n, NULL) == PBC_OK && n == 0);
  CHECK(!pbc_message_is_initialized(info, m));
  const char in[] = "a: 7 kids { r: \"x\" } e: TWO r: \"\\001\"";
  pbc_text_error terr;
  CHECK(pbc_text_parse(info, m, in, strlen(in), &arena, NULL, &terr) == PBC_OK);
  uint8_t buf[64];
  size_t written = 0;
  size_t size = pbc_message_encoded_size(info, m);
  CHECK(pbc_message_encode(info, m, buf, sizeof buf, &written) == PBC_OK && written == size);
  static const uint8_t want[] = {0x08, 0x07, 0x18, 0x02, 0x22, 0x03, 0x2a, 0x01,
                                 'x',  0x2a, 0x01, 0x01};
  CHECK(written == sizeof want && memcmp(buf, want, sizeof want) == 0);
  void *back = pbc_message_new(info, &arena);
  CHECK(pbc_decode(info, back, buf, written, &arena, NULL) == PBC_OK);
  CHECK(pbc_text_print(info, back, text, sizeof text, &n, NULL) == PBC_OK);
  const char printed[] = "a: 7\ne: TWO\nkids {\n  r: \"x\"\n}\nr: \"\\001\"\n";
  CHECK(n == strlen(printed) && memcmp(text, printed, n) == 0);
  /* An empty message reads the defaults back. */
  CHECK(pbc_decode(info, back, buf, 0, &arena,
                   &(pbc_decode_options){.allow_missing_required = true}) == PBC_OK);
  int32_t a;
  memcpy(&a, (uint8_t *)back + d->fields[0].offset, 4);
  pbc_bytes r;
  memcpy(&r, (uint8_t *)back + d->fields[4].offset, sizeof r);
  CHECK(a == -5 && r.size == 2 && r.data[0] == 1 && r.data[1] == 0xff);

  /* The extension: its record, its default (E's first value), set and
   * printed by name when the text options list the schema's. */
  const pbc_extension_info *x = pbc_schema_find_extension(s, "t.x");
  size_t count = 0;
  const pbc_extension_info *const *all = pbc_schema_extensions(s, &count);
  CHECK(x && count == 1 && all[0] == x && pbc_schema_find_extension(s, "t.M") == NULL);
  if (x) {
    CHECK(x->extendee == d && x->link == e && x->number == 100 &&
          x->type == PBC_TYPE_ENUM);
    CHECK(x->flags == (PBC_FIELD_CLOSED_ENUM | PBC_FIELD_DEFAULT) &&
          x->default_value == 1);
    int32_t v = 0;
    CHECK(pbc_extension_get(x, back, &arena, &v) == PBC_OK && v == 1);
    v = 2;
    CHECK(pbc_extension_set(x, back, &v, &arena) == PBC_OK);
    pbc_text_options named = {.single_line = true, .extensions = all,
                              .extension_count = count};
    CHECK(pbc_text_print(info, back, text, sizeof text, &n, &named) == PBC_OK);
    const char with_x[] = "[t.x]: TWO";
    CHECK(n == strlen(with_x) && memcmp(text, with_x, n) == 0);
    /* Without the list, the linked extensions only: a number. */
    const pbc_text_options unnamed = {.single_line = true};
    CHECK(pbc_text_print(info, back, text, sizeof text, &n, &unnamed) == PBC_OK);
    CHECK(n == 6 && memcmp(text, "100: 2", 6) == 0);
    const pbc_text_parse_options parse = {.allow_partial = true, .extensions = all,
                                          .extension_count = count};
    CHECK(pbc_text_parse(info, back, "[t.x]: ONE", 10, &arena, &parse, &terr) == PBC_OK);
    CHECK(pbc_extension_get(x, back, &arena, &v) == PBC_OK && v == 1 &&
          pbc_extension_has(x, back));
  }
  pbc_arena_destroy(&arena);
  pbc_schema_free(s);
  pbc_schema_free(NULL);
}

/* Broken sets: a specific error each, and every truncation of a good one
 * either loads or fails cleanly (ASan watches the reads). */
/* The generic operations on t.M (a: int32, s: string, e: enum, kids:
 * repeated M, r: required bytes), where the difftest cannot reach: arrays
 * and strings in the user's memory, an arena that runs out, unknown bytes
 * set by hand. */
static void test_message_ops(void) {
  pbc_schema *s = load_test_schema();
  if (!s) return;
  const pbc_message_info *info = pbc_schema_find_message(s, "t.M");
  const pbc_message_desc *d = info->desc;
  uint32_t kids_at = d->fields[3].offset, a_at = d->fields[0].offset;
  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  /* dst's one kid lives in a static array the size of one element: the
   * merge must not write past it. */
  static uint8_t user_kids[256 + 8];
  CHECK(d->size <= 256);
  memset(user_kids, 0xee, sizeof user_kids);
  pbc_text_error terr;
  const pbc_text_parse_options partial = {.allow_partial = true};
  uint8_t *k = pbc_message_new(info, &arena);
  CHECK(pbc_text_parse(info, k, "a: 7", 4, &arena, &partial, &terr) == PBC_OK);
  memcpy(user_kids, k, d->size);
  int32_t seven = 7;
  uint8_t *dst = pbc_message_new(info, &arena), *src = pbc_message_new(info, &arena);
  pbc_bytes view = {user_kids, 1};
  memcpy(dst + kids_at, &view, sizeof view);
  const char in[] = "a: 3 kids { a: 1 } kids { a: 2 } r: \"z\"";
  CHECK(pbc_text_parse(info, src, in, strlen(in), &arena, &partial, &terr) == PBC_OK);
  CHECK(pbc_message_merge(info, dst, src, &arena) == PBC_OK);
  memcpy(&view, dst + kids_at, sizeof view);
  CHECK(view.size == 3 && view.data != user_kids);
  CHECK(user_kids[d->size] == 0xee);
  char text[256];
  size_t n = 0;
  CHECK(pbc_text_print(info, dst, text, sizeof text, &n, &(pbc_text_options){.single_line = true}) == PBC_OK);
  const char merged[] = "a: 3 kids { a: 7 } kids { a: 1 } kids { a: 2 } r: \"z\"";
  CHECK(n == strlen(merged) && memcmp(text, merged, n) == 0);
  /* A copy is equal, and stays so when the source's memory changes. */
  uint8_t *copy = pbc_message_new(info, &arena);
  CHECK(pbc_message_copy(info, copy, dst, &arena) == PBC_OK);
  CHECK(pbc_message_equal(info, copy, dst, NULL));
  memset(user_kids, 0, sizeof user_kids);
  pbc_message_init(info, user_kids);
  CHECK(!pbc_message_equal(info, copy, user_kids, NULL));
  memcpy(copy + a_at, &seven, 4);
  CHECK(!pbc_message_equal(info, copy, dst, NULL));
  /* Unknown fields: equal once sorted by number; bytes that are not
   * fields compare as bytes. */
  static const uint8_t u1[] = {0x30, 0x01, 0x38, 0x02, 0x30, 0x03};
  static const uint8_t u2[] = {0x38, 0x02, 0x30, 0x01, 0x30, 0x03};
  static const uint8_t u3[] = {0x30, 0x03, 0x38, 0x02, 0x30, 0x01};
  static const uint8_t bad[] = {0x30};
  uint8_t *x = pbc_message_new(info, &arena), *y = pbc_message_new(info, &arena);
  pbc_bytes ux = {u1, sizeof u1}, uy = {u2, sizeof u2};
  memcpy(x + d->unknown_offset, &ux, sizeof ux);
  memcpy(y + d->unknown_offset, &uy, sizeof uy);
  CHECK(pbc_message_equal(info, x, y, NULL));
  uy.data = u3;
  memcpy(y + d->unknown_offset, &uy, sizeof uy);
  CHECK(!pbc_message_equal(info, x, y, NULL));
  ux.data = bad;
  ux.size = uy.size = 1;
  uy.data = bad;
  memcpy(x + d->unknown_offset, &ux, sizeof ux);
  memcpy(y + d->unknown_offset, &uy, sizeof uy);
  CHECK(pbc_message_equal(info, x, y, NULL));
  /* An arena that runs out: the status, never a crash. */
  pbc_arena tiny;
  pbc_arena_init(&tiny, NULL, 0);
  pbc_arena_set_max_bytes(&tiny, 0);
  CHECK(pbc_message_copy(info, x, dst, &tiny) == PBC_ERR_ARENA_LIMIT);
  pbc_message_clear(info, x);
  CHECK(pbc_message_encoded_size(info, x) == 0);
  pbc_arena_destroy(&tiny);
  pbc_arena_destroy(&arena);
  pbc_schema_free(s);
}

/* pbc_merge_decode (MergeFromString) into a message whose array is the
 * caller's, one element long, and whose unknown fields are read-only: both
 * are copied into the arena, never written. */
static void test_merge_decode(void) {
  pbc_schema *s = load_test_schema();
  if (!s) return;
  const pbc_message_info *info = pbc_schema_find_message(s, "t.M");
  const pbc_message_desc *d = info->desc;
  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  pbc_text_error terr;
  const pbc_text_parse_options partial = {.allow_partial = true};
  uint8_t *kid = pbc_message_new(info, &arena);
  CHECK(pbc_text_parse(info, kid, "a: 7", 4, &arena, &partial, &terr) == PBC_OK);
  static uint8_t kids[256];
  CHECK(d->size <= sizeof kids);
  memcpy(kids, kid, d->size);
  static const uint8_t unknown[] = {0x30, 0x01}; /* 6: 1 */
  uint8_t *m = pbc_message_new(info, &arena);
  pbc_bytes view = {kids, 1}, u = {unknown, sizeof unknown};
  memcpy(m + d->fields[3].offset, &view, sizeof view);
  memcpy(m + d->unknown_offset, &u, sizeof u);
  /* a: 3, kids { a: 1 }, 7: 2, e: 9 (a closed enum's undeclared value:
   * an unknown field), kids { a: 2 }. */
  static const uint8_t in[] = {0x08, 0x03, 0x22, 0x02, 0x08, 0x01, 0x38, 0x02,
                               0x18, 0x09, 0x22, 0x02, 0x08, 0x02};
  uint8_t before[256];
  memcpy(before, kids, sizeof before);
  CHECK(pbc_merge_decode(info, m, in, sizeof in, &arena, NULL) ==
        PBC_ERR_MISSING_REQUIRED);
  CHECK(memcmp(before, kids, sizeof before) == 0);
  char text[256];
  size_t n = 0;
  const pbc_text_options line = {.single_line = true};
  CHECK(pbc_text_print(info, m, text, sizeof text, &n, &line) == PBC_OK);
  const char want[] =
      "a: 3 kids { a: 7 } kids { a: 1 } kids { a: 2 } 6: 1 7: 2 3: 9";
  CHECK(n == strlen(want) && memcmp(text, want, n) == 0);
  if (n != strlen(want) || memcmp(text, want, n) != 0)
    printf("  got \"%.*s\"\n", (int)n, text);
  /* The required r set now, but not in the kids; then not checked. */
  static const uint8_t r[] = {0x2a, 0x00};
  const pbc_decode_options unchecked = {.allow_missing_required = true};
  CHECK(pbc_merge_decode(info, m, r, sizeof r, &arena, NULL) ==
        PBC_ERR_MISSING_REQUIRED);
  CHECK(pbc_merge_decode(info, m, r, sizeof r, &arena, &unchecked) == PBC_OK);
  memcpy(&view, m + d->fields[3].offset, sizeof view);
  CHECK(view.size == 3 && view.data != kids);
  /* Malformed input and an arena that runs out: a status, never a crash. */
  static const uint8_t cut[] = {0x22, 0x05, 0x08};
  CHECK(pbc_merge_decode(info, m, cut, sizeof cut, &arena, NULL) ==
        PBC_ERR_TRUNCATED);
  pbc_arena tiny;
  pbc_arena_init(&tiny, NULL, 0);
  pbc_arena_set_max_bytes(&tiny, 0);
  CHECK(pbc_merge_decode(info, m, r, sizeof r, &tiny, NULL) ==
        PBC_ERR_ARENA_LIMIT);
  pbc_arena_destroy(&tiny);
  pbc_arena_destroy(&arena);
  pbc_schema_free(s);
}

static void test_schema_errors(void) {
  static const char *const want[] = {
      NULL,
      "t.proto: t.M.e: type .t.F is not defined",
      "t.proto: t.M.s: field number 1 is used twice",
      "t.proto: t.M.a: default \"x1\" is not a value of the field",
      "t.proto: t.M.e: default \"THREE\" is not a value of the field",
      "t.proto: t.M.kids: type .t.E is not a message",
      "t.proto: t.M.r: field number 0 is not 1 to 536870911",
      "t.proto: t.x: extendee .t.E is not a message",
      "t.proto: t.x: number 3 is a field of t.M",
      "t.proto: t.x: an extension cannot be required",
      "t.proto: t.x: type name \"t.M\" is not fully qualified",
      "t.proto: t.x: t.M does not declare 250 as an extension number",
      "t.proto: t.M.r: extension range 5 to 199 of t.M holds field number 5",
  };
  for (int i = 1; i < (int)(sizeof want / sizeof *want); i++) {
    wbuf w;
    w_schema(&w, i);
    pbc_schema *s = (pbc_schema *)1;
    pbc_schema_error err;
    CHECK(pbc_schema_load(w.b, w.n, &s, &err) == PBC_ERR_BAD_SCHEMA && s == NULL);
    if (strcmp(err.message, want[i]) != 0) {
      printf("  case %d: got \"%s\"\n  want \"%s\"\n", i, err.message, want[i]);
      CHECK(false);
    }
  }
  wbuf w;
  w_schema(&w, 0);
  int loaded = 0;
  for (size_t n = 0; n < w.n; n++) {
    uint8_t *copy = malloc(n ? n : 1); /* exactly n bytes, for ASan */
    memcpy(copy, w.b, n);
    pbc_schema *s = NULL;
    pbc_status st = pbc_schema_load(copy, n, &s, NULL);
    CHECK((st == PBC_OK) == (s != NULL));
    CHECK(st == PBC_OK || st == PBC_ERR_BAD_SCHEMA);
    loaded += st == PBC_OK;
    pbc_schema_free(s);
    free(copy);
  }
  CHECK(loaded == 1); /* only the empty set: every cut breaks the one file */
  pbc_schema_error err;
  pbc_schema *s;
  CHECK(pbc_schema_load((const uint8_t *)"\x0a\x05\x0a\x01", 4, &s, &err) == PBC_ERR_BAD_SCHEMA);
  CHECK(strstr(err.message, "not a FileDescriptorSet") != NULL);
  CHECK(pbc_schema_load((const uint8_t *)"\x0a\x00", 2, &s, &err) == PBC_ERR_BAD_SCHEMA);
  CHECK(strcmp(err.message, "a file in the set has no name") == 0);
}

/* ---- Encode and decode entry points -------------------------------------- */

/* A hand-written stand-in for a generated message:
 *   message Fake { uint64 id = 1; string name = 2; } */
typedef struct fake {
  uint64_t id;
  pbc_str name;
  int inits;
} fake;

static void fake_init(void *mp) {
  fake *m = mp;
  int inits = m->inits;
  memset(m, 0, sizeof *m);
  m->inits = inits + 1;
}

static const uint8_t *fake_dec(void *mp, const uint8_t *p, const uint8_t *end,
                               pbc_decoder *d, uint32_t group_field) {
  fake *m = mp;
  (void)group_field;
  while (p < end) {
    uint32_t tag;
    p = pbc_rt_tag(d, p, end, &tag);
    if (p == NULL) return NULL;
    if (tag == 0x08) {
      p = pbc_rt_varint(d, p, end, &m->id);
    } else if (tag == 0x12) {
      uint64_t len;
      p = pbc_rt_varint(d, p, end, &len);
      if (p == NULL) return NULL;
      if (len > (uint64_t)(end - p)) return pbc_rt_fail(d, PBC_ERR_TRUNCATED);
      if (!pbc_rt_utf8_valid(p, (size_t)len)) return pbc_rt_fail(d, PBC_ERR_INVALID_UTF8);
      char *copy = pbc_rt_alloc(d, (size_t)len);
      if (copy == NULL) return NULL;
      memcpy(copy, p, (size_t)len);
      m->name.data = copy;
      m->name.size = (size_t)len;
      p += len;
    } else {
      p = pbc_rt_skip(d, p, end, tag);
    }
    if (p == NULL) return NULL;
  }
  return p;
}

static size_t fake_size(const void *mp) {
  const fake *m = mp;
  size_t n = 0;
  uint8_t scratch[10];
  if (m->id != 0) n += 1 + (size_t)(scratch + 10 - pbc_rt_put_varint(scratch + 10, m->id));
  if (m->name.size != 0) {
    n += 1 + (size_t)(scratch + 10 - pbc_rt_put_varint(scratch + 10, m->name.size));
    n += m->name.size;
  }
  return n;
}

/* Like generated encoders: backwards, NULL when below `limit`. */
static uint8_t *fake_enc(const void *mp, uint8_t *end, uint8_t *limit) {
  const fake *m = mp;
  uint8_t *p = end;
  size_t need = fake_size(mp);
  if (limit && (size_t)(end - limit) < need) return NULL;
  if (m->name.size != 0) {
    p -= m->name.size;
    memcpy(p, m->name.data, m->name.size);
    p = pbc_rt_put_varint(p, m->name.size);
    *--p = 0x12;
  }
  if (m->id != 0) {
    p = pbc_rt_put_varint(p, m->id);
    *--p = 0x08;
  }
  return p;
}

static void test_encode(void) {
  fake m = {300, {"hi", 2}, 0};
  const uint8_t want[] = {0x08, 0xac, 0x02, 0x12, 0x02, 'h', 'i'};
  uint8_t buf[16];
  memset(buf, 0xee, sizeof buf);
  size_t written = 0;
  CHECK(pbc_rt_encode(&m, buf, sizeof buf, &written, fake_size, fake_enc) == PBC_OK);
  CHECK(written == sizeof want && memcmp(buf, want, sizeof want) == 0);
  CHECK(buf[sizeof want] == 0xee);

  /* Exactly enough room. */
  CHECK(pbc_rt_encode(&m, buf, sizeof want, &written, fake_size, fake_enc) == PBC_OK);
  CHECK(written == sizeof want);

  /* One byte short: the needed size is reported (the buffer's contents are
   * unspecified after a failed encode). */
  written = 0;
  CHECK(pbc_rt_encode(&m, buf, sizeof want - 1, &written, fake_size, fake_enc) ==
        PBC_ERR_BUFFER_TOO_SMALL);
  CHECK(written == sizeof want);
  CHECK(pbc_rt_encode(&m, NULL, 0, &written, fake_size, fake_enc) ==
        PBC_ERR_BUFFER_TOO_SMALL);
  CHECK(written == sizeof want);

  /* An empty message encodes to nothing, even into no buffer. */
  fake empty = {0, {NULL, 0}, 0};
  written = 99;
  CHECK(pbc_rt_encode(&empty, NULL, 0, &written, fake_size, fake_enc) == PBC_OK);
  CHECK(written == 0);
}

static size_t size_2gib(const void *m) {
  (void)m;
  return (size_t)1 << 31;
}

static size_t size_2gib_minus_1(const void *m) {
  (void)m;
  return ((size_t)1 << 31) - 1;
}

static size_t size_max(const void *m) {
  (void)m;
  return SIZE_MAX;
}

/* An encoder that finds no room, as for a message larger than the buffer. */
static uint8_t *enc_no_room(const void *m, uint8_t *end, uint8_t *limit) {
  (void)m;
  (void)end;
  (void)limit;
  return NULL;
}

static void test_encode_too_large(void) {
  uint8_t buf[8];
  size_t written = 7;
  CHECK(pbc_rt_encode(NULL, buf, sizeof buf, &written, size_2gib, enc_no_room) ==
        PBC_ERR_TOO_LARGE);
  CHECK(pbc_rt_encode(NULL, buf, SIZE_MAX, &written, size_2gib, enc_no_room) ==
        PBC_ERR_TOO_LARGE);
  CHECK(pbc_rt_encode(NULL, buf, SIZE_MAX, &written, size_max, enc_no_room) ==
        PBC_ERR_TOO_LARGE);
  /* Just under 2 GiB is a size like any other. */
  CHECK(pbc_rt_encode(NULL, buf, sizeof buf, &written, size_2gib_minus_1, enc_no_room) ==
        PBC_ERR_BUFFER_TOO_SMALL);
  CHECK(written == ((size_t)1 << 31) - 1);
}

static const uint8_t *dec_fails_silently(void *m, const uint8_t *p,
                                         const uint8_t *end, pbc_decoder *d,
                                         uint32_t group_field) {
  (void)m, (void)p, (void)end, (void)d, (void)group_field;
  return NULL;
}

/* Records what pbc_rt_decode hands the decoder. */
typedef struct decode_call {
  const uint8_t *p, *end;
  pbc_decoder d;
  uint32_t group_field;
} decode_call;

static const uint8_t *dec_record(void *m, const uint8_t *p, const uint8_t *end,
                                 pbc_decoder *d, uint32_t group_field) {
  decode_call *call = m;
  call->p = p;
  call->end = end;
  call->d = *d;
  call->group_field = group_field;
  return end;
}

static bool fresh_decoder(const decode_call *call, const pbc_arena *a) {
  return call->d.arena == a && call->d.depth == 0 &&
         call->d.max_depth == PBC_DEFAULT_MAX_DEPTH &&
         call->d.status == PBC_OK && call->group_field == 0;
}

static void no_init(void *m) {
  (void)m;
}

static bool always_initialized(const void *m) {
  (void)m;
  return true;
}

static bool never_initialized(const void *m) {
  (void)m;
  return false;
}

static void test_decode(void) {
  pbc_arena a;
  pbc_arena_init(&a, NULL, 0);

  const uint8_t in[] = {0x08, 0xac, 0x02, 0x1d, 1, 2, 3, 4, 0x12, 0x02, 'h', 'i',
                        0x23, 0x08, 0x01, 0x24};
  fake m = {0, {NULL, 0}, 0};
  m.id = 5;
  CHECK(pbc_rt_decode(&m, in, sizeof in, &a, fake_init, fake_dec, always_initialized) == PBC_OK);
  CHECK(m.inits == 1 && m.id == 300);
  CHECK(m.name.size == 2 && memcmp(m.name.data, "hi", 2) == 0);
  CHECK((const uint8_t *)m.name.data != in + 10); /* copied into the arena */

  /* Round trip through the encoder. */
  uint8_t out[16];
  size_t written = 0;
  CHECK(pbc_rt_encode(&m, out, sizeof out, &written, fake_size, fake_enc) == PBC_OK);
  fake back = {0, {NULL, 0}, 0};
  CHECK(pbc_rt_decode(&back, out, written, &a, fake_init, fake_dec, always_initialized) == PBC_OK);
  CHECK(back.id == 300 && back.name.size == 2 && memcmp(back.name.data, "hi", 2) == 0);

  /* Init runs first even for an empty input, which may be NULL. */
  m.id = 5;
  CHECK(pbc_rt_decode(&m, NULL, 0, &a, fake_init, fake_dec, always_initialized) == PBC_OK);
  CHECK(m.inits == 2 && m.id == 0);
  decode_call call;
  memset(&call, 0, sizeof call);
  CHECK(pbc_rt_decode(&call, NULL, 0, &a, no_init, dec_record, always_initialized) == PBC_OK);
  CHECK(call.p != NULL && call.p == call.end && fresh_decoder(&call, &a));
  memset(&call, 0, sizeof call);
  CHECK(pbc_rt_decode(&call, in, sizeof in, &a, no_init, dec_record, always_initialized) == PBC_OK);
  CHECK(call.p == in && call.end == in + sizeof in && fresh_decoder(&call, &a));

  /* A parse that succeeds still fails when a required field is missing. */
  CHECK(pbc_rt_decode(&m, in, sizeof in, &a, fake_init, fake_dec,
                      never_initialized) == PBC_ERR_MISSING_REQUIRED);

  /* Errors come back as the first status recorded. */
  CHECK(pbc_rt_decode(&m, in, 2, &a, fake_init, fake_dec, always_initialized) == PBC_ERR_TRUNCATED);
  const uint8_t bad_utf8[] = {0x12, 0x01, 0xff};
  CHECK(pbc_rt_decode(&m, bad_utf8, sizeof bad_utf8, &a, fake_init, fake_dec, always_initialized) ==
        PBC_ERR_INVALID_UTF8);
  const uint8_t bad_wire[] = {0x08, 0x01, 0x0f};
  CHECK(pbc_rt_decode(&m, bad_wire, sizeof bad_wire, &a, fake_init, fake_dec, always_initialized) ==
        PBC_ERR_BAD_WIRE_TYPE);
  const uint8_t end_group[] = {0x0c};
  CHECK(pbc_rt_decode(&m, end_group, sizeof end_group, &a, fake_init, fake_dec, always_initialized) ==
        PBC_ERR_END_GROUP);
  static uint8_t deep[300];
  size_t n = nested_groups(deep, 150, true);
  CHECK(pbc_rt_decode(&m, deep, n, &a, fake_init, fake_dec, always_initialized) == PBC_ERR_DEPTH_LIMIT);

  /* The arena's cap stops the string copy. */
  pbc_arena capped;
  pbc_arena_init(&capped, NULL, 0);
  pbc_arena_set_max_bytes(&capped, 0);
  CHECK(pbc_rt_decode(&m, in, sizeof in, &capped, fake_init, fake_dec, always_initialized) ==
        PBC_ERR_ARENA_LIMIT);
  pbc_arena_destroy(&capped);

  /* A decoder that fails without a status still fails. */
  CHECK(pbc_rt_decode(&m, in, sizeof in, &a, no_init, dec_fails_silently, always_initialized) != PBC_OK);

  pbc_arena_destroy(&a);
}

/* ---- Invariants ----------------------------------------------------------
 * Each of these breaks one of the runtime's invariants, as only a bug in the
 * runtime or in generated code could, and must stop at its assert. */

static void pop_without_push(void) {
  pbc_decoder d = new_decoder(NULL);
  pbc_rt_pop(&d);
}

static void fail_without_error(void) {
  pbc_decoder d = new_decoder(NULL);
  pbc_rt_fail(&d, PBC_OK);
}

static void arena_ptr_past_end(void) {
  static uint64_t block[8];
  pbc_arena a;
  pbc_arena_init(&a, block, sizeof block);
  a.end = a.ptr;
  a.ptr += 8;
  pbc_arena_alloc(&a, 8);
}

static void grow_elements_without_array(void) {
  pbc_arena a;
  pbc_arena_init(&a, NULL, 0);
  pbc_decoder d = new_decoder(&a);
  pbc_rt_grow(&d, NULL, 3, 1, 8);
}

static void test_invariants_asserted(void) {
  CHECK(aborts(pop_without_push));
  CHECK(aborts(fail_without_error));
  CHECK(aborts(arena_ptr_past_end));
  CHECK(aborts(grow_elements_without_array));
}

int main(void) {
  test_varint_lengths();
  test_varint_edges();
  test_put_varint_round_trip();
  test_tags();
  test_lengths();
  test_skip_each_wire_type();
  test_skip_truncated();
  test_skip_bad_lengths();
  test_skip_groups();
  test_skip_depth_limit();
  test_fail_keeps_first_error();
  test_push_pop();
  test_rt_alloc();
  test_grow();
  test_arena_alignment();
  test_arena_initial_block();
  test_arena_large_requests();
  test_arena_max_bytes();
  test_utf8_vectors();
  test_utf8_every_position();
  test_utf8_exhaustive();
  test_status_str();
  test_encode();
  test_encode_too_large();
  test_decode();
  test_invariants_asserted();
  test_schema_load();
  test_message_ops();
  test_merge_decode();
  test_schema_errors();
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
