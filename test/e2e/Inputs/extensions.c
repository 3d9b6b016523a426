/* The typed extension accessors of Inputs/semantics2.proto (extensions.test):
 * absent values read as their defaults; a message built through the setters,
 * in a scrambled order and with values replaced, appended and cleared,
 * encodes as protoc --encode writes Inputs/extensions.txtpb (extensions by
 * number: the test compares the files), and every value reads back from its
 * decoding; a MessageSet's items (Inputs/extensions_mset.txtpb) likewise.
 * Also compiled as C++. Writes the two encodings to argv[1] and argv[2]. */
#include <stdio.h>
#include <string.h>

#include "semantics2.pbc.h"

static int checks, failures;
#define CHECK(c)                                                              \
  do {                                                                        \
    checks++;                                                                 \
    if (!(c)) {                                                               \
      failures++;                                                             \
      printf("check failed (line %d): %s\n", __LINE__, #c);                   \
    }                                                                         \
  } while (0)
#define OK(s) CHECK((s) == PBC_OK)

static void write_file(const char *path, const uint8_t *p, size_t n) {
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  if (!f) return;
  CHECK(fwrite(p, 1, n, f) == n);
  fclose(f);
}

static void absent(pbc_arena *a) {
  e2e_s2_Extendable m;
  e2e_s2_Extendable_init(&m);
  CHECK(!e2e_s2_ext_int32_has(&m));
  CHECK(e2e_s2_ext_int32_get(&m) == 0);
  CHECK(e2e_s2_ext_default_get(&m) == -42);
  pbc_bytes d;
  OK(e2e_s2_ext_default_bytes_get(&m, &d));
  CHECK(d.size == 3 && memcmp(d.data, "d\0e", 3) == 0);
  /* A proto2 enum defaults to its first value. */
  CHECK(e2e_s2_ext_nozero_get(&m) == e2e_s2_NoZero_NZ_FIVE);
  e2e_s2_Req other;
  e2e_s2_Req *req = &other;
  OK(e2e_s2_ext_msg_get(&m, a, &req));
  CHECK(req == NULL);
  CHECK(e2e_s2_ext_rep_int32_size(&m) == 0);
  const int32_t *data = NULL;
  size_t n = 1;
  OK(e2e_s2_ext_rep_int32_get(&m, a, &data, &n));
  CHECK(n == 0);
}

static size_t build(pbc_arena *a, uint8_t *buf, size_t cap) {
  e2e_s2_Extendable m;
  e2e_s2_Extendable_init(&m);
  e2e_s2_Extendable_set_a(&m, 7);
  /* Scrambled order; the encoding is by number. */
  OK(e2e_s2_ext_bool_set(&m, true, a));
  OK(e2e_s2_ext_big_set(&m, -1, a));
  OK(e2e_s2_ext_int32_set(&m, -5, a));
  OK(e2e_s2_ext_int32_set(&m, 11, a)); /* replaces */
  pbc_str hello = {"hello", 5};
  OK(e2e_s2_ext_string_set(&m, hello, a));
  OK(e2e_s2_ext_sint64_set(&m, -3, a));
  OK(e2e_s2_ext_fixed32_set(&m, 0xdeadbeefu, a));
  OK(e2e_s2_ext_fixed32_clear(&m, a));
  CHECK(!e2e_s2_ext_fixed32_has(&m));
  OK(e2e_s2_ext_double_set(&m, 1.5, a));
  OK(e2e_s2_ext_enum_set(&m, e2e_s2_Closed_C_NEG, a));
  OK(e2e_s2_ext_default_set(&m, -42, a)); /* the default, set: present */
  e2e_s2_Req req;
  e2e_s2_Req_init(&req);
  e2e_s2_Req_set_id(&req, 9);
  OK(e2e_s2_ext_msg_set(&m, &req, a));
  e2e_s2_ExtGroup g;
  e2e_s2_ExtGroup_init(&g);
  e2e_s2_ExtGroup_set_eg_a(&g, 4);
  OK(e2e_s2_extgroup_set(&m, &g, a));
  for (int32_t i = 1; i <= 3; i++) OK(e2e_s2_ext_rep_int32_add(&m, i * 100, a));
  const int32_t packed[] = {1, -1, 300};
  OK(e2e_s2_ext_packed_set(&m, packed, 3, a));
  OK(e2e_s2_ext_packed_add(&m, 5, a)); /* still one packed run */
  e2e_s2_Req reqs[2];
  e2e_s2_Req_init(&reqs[0]);
  e2e_s2_Req_init(&reqs[1]);
  e2e_s2_Req_set_id(&reqs[0], 1);
  e2e_s2_Req_set_id(&reqs[1], 2);
  OK(e2e_s2_ext_rep_msg_set(&m, reqs, 1, a));
  OK(e2e_s2_ext_rep_msg_add(&m, &reqs[1], a));
  OK(e2e_s2_ext_packed_enum_add(&m, e2e_s2_Closed_C_BIG, a));
  pbc_str x = {"x", 1}, y = {"yy", 2};
  OK(e2e_s2_Scope_scoped_str_add(&m, x, a));
  OK(e2e_s2_Scope_scoped_str_add(&m, y, a));
  OK(e2e_s2_Scope_scoped_float_set(&m, 0.25f, a));
  e2e_s2_ExtRepGroup rg;
  e2e_s2_ExtRepGroup_init(&rg);
  OK(e2e_s2_extrepgroup_add(&m, &rg, a));
  CHECK(e2e_s2_ext_rep_int32_size(&m) == 3);
  CHECK(e2e_s2_ext_packed_size(&m) == 4);
  size_t written = 0;
  OK(e2e_s2_Extendable_encode(&m, buf, cap, &written));
  return written;
}

static void read_back(pbc_arena *a, const uint8_t *buf, size_t len) {
  e2e_s2_Extendable m;
  OK(e2e_s2_Extendable_decode(&m, buf, len, a));
  CHECK(m.a == 7);
  CHECK(e2e_s2_ext_int32_get(&m) == 11);
  CHECK(e2e_s2_ext_sint64_get(&m) == -3);
  CHECK(!e2e_s2_ext_fixed32_has(&m));
  CHECK(e2e_s2_ext_double_get(&m) == 1.5);
  CHECK(e2e_s2_ext_enum_get(&m) == e2e_s2_Closed_C_NEG);
  CHECK(e2e_s2_ext_default_has(&m) && e2e_s2_ext_default_get(&m) == -42);
  CHECK(e2e_s2_ext_bool_get(&m));
  CHECK(e2e_s2_ext_big_get(&m) == -1);
  pbc_str s;
  OK(e2e_s2_ext_string_get(&m, &s));
  CHECK(s.size == 5 && memcmp(s.data, "hello", 5) == 0);
  e2e_s2_Req *req = NULL;
  OK(e2e_s2_ext_msg_get(&m, a, &req));
  CHECK(req != NULL && req->id == 9 && e2e_s2_Req_is_initialized(req));
  e2e_s2_ExtGroup *g = NULL;
  OK(e2e_s2_extgroup_get(&m, a, &g));
  CHECK(g != NULL && e2e_s2_ExtGroup_has_eg_a(g) && g->eg_a == 4);
  const int32_t *ints;
  size_t n;
  OK(e2e_s2_ext_rep_int32_get(&m, a, &ints, &n));
  CHECK(n == 3 && ints[0] == 100 && ints[1] == 200 && ints[2] == 300);
  OK(e2e_s2_ext_packed_get(&m, a, &ints, &n));
  CHECK(n == 4 && ints[0] == 1 && ints[1] == -1 && ints[2] == 300 && ints[3] == 5);
  const e2e_s2_Req *reqs;
  OK(e2e_s2_ext_rep_msg_get(&m, a, &reqs, &n));
  CHECK(n == 2 && reqs[0].id == 1 && reqs[1].id == 2);
  const pbc_str *strs;
  OK(e2e_s2_Scope_scoped_str_get(&m, a, &strs, &n));
  CHECK(n == 2 && strs[1].size == 2 && memcmp(strs[1].data, "yy", 2) == 0);
  CHECK(e2e_s2_Scope_scoped_float_get(&m) == 0.25f);
  CHECK(e2e_s2_extrepgroup_size(&m) == 1);
  /* Cleared after decoding: gone from the encoding too. */
  OK(e2e_s2_ext_rep_int32_clear(&m, a));
  CHECK(!e2e_s2_ext_rep_int32_has(&m));
  uint8_t out[512];
  size_t written = 0;
  OK(e2e_s2_Extendable_encode(&m, out, sizeof out, &written));
  /* Three records of two-byte tags: 100, 200 and 300 take 1, 2, 2 bytes. */
  CHECK(written == len - 11);
}

static size_t message_set(pbc_arena *a, uint8_t *buf, size_t cap) {
  e2e_s2_MSet ms;
  e2e_s2_MSet_init(&ms);
  e2e_s2_MSetItemB b;
  e2e_s2_MSetItemB_init(&b);
  int64_t xs[] = {-2, 3};
  b.xs.data = xs;
  b.xs.size = 2;
  OK(e2e_s2_MSetItemB_item_b_set(&ms, &b, a));
  e2e_s2_MSetItemA ia;
  e2e_s2_MSetItemA_init(&ia);
  e2e_s2_MSetItemA_set_v(&ia, 3);
  OK(e2e_s2_MSetItemA_item_a_set(&ms, &ia, a));
  size_t written = 0;
  OK(e2e_s2_MSet_encode(&ms, buf, cap, &written));
  e2e_s2_MSet back;
  OK(e2e_s2_MSet_decode(&back, buf, written, a));
  e2e_s2_MSetItemA *got = NULL;
  OK(e2e_s2_MSetItemA_item_a_get(&back, a, &got));
  CHECK(got != NULL && got->v == 3);
  e2e_s2_MSetItemB *gb = NULL;
  OK(e2e_s2_MSetItemB_item_b_get(&back, a, &gb));
  CHECK(gb != NULL && gb->xs.size == 2 && gb->xs.data[0] == -2);
  return written;
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  pbc_arena a;
  pbc_arena_init(&a, NULL, 0);
  absent(&a);
  uint8_t buf[512];
  size_t n = build(&a, buf, sizeof buf);
  write_file(argv[1], buf, n);
  read_back(&a, buf, n);
  n = message_set(&a, buf, sizeof buf);
  write_file(argv[2], buf, n);
  pbc_arena_destroy(&a);
  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures != 0;
}
