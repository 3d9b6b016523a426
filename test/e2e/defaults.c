/* T_init and proto2 defaults: every [default = ...] of Inputs/alltypes2.proto
 * exactly, nothing set after init, and presence surviving a decode/encode
 * round trip (a field explicitly set to its default is written; an absent
 * one is not).
 *
 * The expected values are what libprotobuf 3.21 reports for these fields
 * (FieldDescriptor::default_value_*(), dumped with a throwaway program over
 * the same .proto); floating-point defaults are compared bit for bit, since
 * an explicitly set default must encode to libprotobuf's exact bytes. The
 * byte strings below come from `protoc --encode=e2e.p2.AllTypes2`.
 *
 * Presence is observed through the encoding only (encoded_size and encode),
 * because the contract does not name the presence accessors. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "alltypes2.pbc.h"

static int passed, failed;

#define CHECK(cond)                                                   \
  do {                                                                \
    if (cond) {                                                       \
      passed++;                                                       \
    } else {                                                          \
      failed++;                                                       \
      printf("%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                 \
  } while (0)

static bool str_eq(pbc_str s, const char *want, size_t n) {
  return s.size == n && (n == 0 || (s.data && memcmp(s.data, want, n) == 0));
}

static bool bytes_eq(pbc_bytes s, const char *want, size_t n) {
  return s.size == n && (n == 0 || (s.data && memcmp(s.data, want, n) == 0));
}

static uint32_t fbits(float f) {
  uint32_t b;
  memcpy(&b, &f, sizeof b);
  return b;
}

static uint64_t dbits(double d) {
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return b;
}

/* Fills a struct with garbage so that init has to set every member. */
#define GARBAGE(m) memset(&(m), 0xa5, sizeof(m))

/* The optional fields of AllTypes2 (not the required ones). */
static void check_alltypes2_optional_defaults(const e2e_p2_AllTypes2 *m) {
  CHECK(m->d_int32 == -42);
  CHECK(m->d_int64 == INT64_MIN);
  CHECK(m->d_uint32 == UINT32_MAX);
  CHECK(m->d_uint64 == UINT64_MAX);
  CHECK(m->d_sint32 == INT32_MIN);
  CHECK(m->d_sint64 == INT64_MAX);
  CHECK(m->d_fixed32 == 0xdeadbeefu);
  CHECK(m->d_fixed64 == UINT64_C(0x123456789abcdef0));
  CHECK(m->d_sfixed32 == -123456);
  CHECK(m->d_sfixed64 == INT64_C(-1234567890123));
  CHECK(fbits(m->d_float) == 0x3ac49ba6u);                     /* 1.5e-3 */
  CHECK(dbits(m->d_double) == UINT64_C(0xc005bf0a8b145769));   /* -2.718281828459045 */
  CHECK(m->d_bool == true);
  CHECK(str_eq(m->d_string, "h\"ello\n\t\\ w\303\266rld \001!", 19));
  CHECK(bytes_eq(m->d_bytes, "\000\001\377\200abc\\'", 9));
  CHECK(m->d_kind == e2e_p2_AllTypes2_Kind_KIND_NEG);
  CHECK(m->d_kind == -3);
  CHECK(m->d_color == e2e_p2_Color_BLUE);
  CHECK(fbits(m->d_float_inf) == 0x7f800000u);
  CHECK(fbits(m->d_float_ninf) == 0xff800000u);
  CHECK(isnan(m->d_float_nan));
  CHECK(fbits(m->d_float_nan) == 0x7fc00000u);                 /* libprotobuf's quiet NaN */
  CHECK(dbits(m->d_double_inf) == UINT64_C(0x7ff0000000000000));
  CHECK(dbits(m->d_double_ninf) == UINT64_C(0xfff0000000000000));
  CHECK(isnan(m->d_double_nan));
  CHECK(dbits(m->d_double_nan) == UINT64_C(0x7ff8000000000000));
  CHECK(m->d_int32_min == INT32_MIN);
  CHECK(dbits(m->d_double_big) == UINT64_C(0x7e37e43c8800759c));  /* 1e300 */
  CHECK(fbits(m->d_float_neg_zero) == 0x80000000u);               /* -0.0 */
  CHECK(str_eq(m->d_string_empty, "", 0));
  CHECK(m->d_int64_octal == -493);                                /* -0755 */
  CHECK(dbits(m->d_double_tiny) == UINT64_C(0x0000000000000001));  /* 4.9e-324 */
  CHECK(m->d_color_neg == e2e_p2_Color_NEGATIVE);
  CHECK(m->d_color_neg == -5);

  CHECK(m->o_int32 == 0);
  CHECK(m->o_int64 == 0);
  CHECK(m->o_uint32 == 0);
  CHECK(m->o_uint64 == 0);
  CHECK(m->o_sint32 == 0);
  CHECK(m->o_sint64 == 0);
  CHECK(m->o_fixed32 == 0);
  CHECK(m->o_fixed64 == 0);
  CHECK(m->o_sfixed32 == 0);
  CHECK(m->o_sfixed64 == 0);
  CHECK(fbits(m->o_float) == 0);
  CHECK(dbits(m->o_double) == 0);
  CHECK(m->o_bool == false);
  CHECK(m->o_string.size == 0);
  CHECK(m->o_bytes.size == 0);
  CHECK(m->o_kind == e2e_p2_AllTypes2_Kind_KIND_A); /* the first value, not 0 */
  CHECK(m->o_kind == 1);
  CHECK(m->o_color == e2e_p2_Color_RED);
  CHECK(m->tag_2048 == 0);

  CHECK(m->u_int32.size == 0);
  CHECK(m->u_int64.size == 0);
  CHECK(m->u_uint32.size == 0);
  CHECK(m->u_uint64.size == 0);
  CHECK(m->u_sint32.size == 0);
  CHECK(m->u_sint64.size == 0);
  CHECK(m->u_fixed32.size == 0);
  CHECK(m->u_fixed64.size == 0);
  CHECK(m->u_sfixed32.size == 0);
  CHECK(m->u_sfixed64.size == 0);
  CHECK(m->u_float.size == 0);
  CHECK(m->u_double.size == 0);
  CHECK(m->u_bool.size == 0);
  CHECK(m->u_kind.size == 0);
  CHECK(m->u_color.size == 0);
  CHECK(m->u_string.size == 0);
  CHECK(m->u_bytes.size == 0);
  CHECK(m->p_int32.size == 0);
  CHECK(m->p_int64.size == 0);
  CHECK(m->p_uint32.size == 0);
  CHECK(m->p_uint64.size == 0);
  CHECK(m->p_sint32.size == 0);
  CHECK(m->p_sint64.size == 0);
  CHECK(m->p_fixed32.size == 0);
  CHECK(m->p_fixed64.size == 0);
  CHECK(m->p_sfixed32.size == 0);
  CHECK(m->p_sfixed64.size == 0);
  CHECK(m->p_float.size == 0);
  CHECK(m->p_double.size == 0);
  CHECK(m->p_bool.size == 0);
  CHECK(m->p_kind.size == 0);
  CHECK(m->p_color.size == 0);

  CHECK(m->optgroup == NULL);
  CHECK(m->repgroup.size == 0);
  CHECK(m->sub == NULL);
  CHECK(m->subs.size == 0);
  CHECK(m->imported == NULL);
  CHECK(m->tree == NULL);
  CHECK(m->with_required == NULL);
  CHECK(m->with_required_list.size == 0);
  CHECK(m->recursive == NULL);
  CHECK(m->biggroup == NULL);
}

static void check_sub_defaults(const e2e_p2_Sub *s) {
  CHECK(s->a == 7);
  CHECK(str_eq(s->b, "sub", 3));
  CHECK(s->rec.size == 0);
  CHECK(s->color == e2e_p2_Color_GREEN);
}

static void test_init(void) {
  e2e_p2_AllTypes2 m;
  GARBAGE(m);
  e2e_p2_AllTypes2_init(&m);
  CHECK(m.req_int32 == 0);
  CHECK(m.req_string.size == 0);
  CHECK(m.req_kind == e2e_p2_AllTypes2_Kind_KIND_A);
  check_alltypes2_optional_defaults(&m);
  /* Nothing is set: nothing to write (required fields included). */
  CHECK(e2e_p2_AllTypes2_encoded_size(&m) == 0);

  e2e_p2_AllTypes2_OptGroup g;
  GARBAGE(g);
  e2e_p2_AllTypes2_OptGroup_init(&g);
  CHECK(g.g_int32 == 0);
  CHECK(str_eq(g.g_string, "grp", 3));
  CHECK(g.g_sub == NULL);
  CHECK(g.g_fixed.size == 0);
  CHECK(e2e_p2_AllTypes2_OptGroup_encoded_size(&g) == 0);

  e2e_p2_AllTypes2_RepGroup rg;
  GARBAGE(rg);
  e2e_p2_AllTypes2_RepGroup_init(&rg);
  CHECK(rg.rg_id == 0);
  CHECK(rg.rg_data.size == 0);
  CHECK(rg.rg_vals.size == 0);
  CHECK(rg.inner == NULL);
  CHECK(e2e_p2_AllTypes2_RepGroup_encoded_size(&rg) == 0);

  e2e_p2_AllTypes2_RepGroup_Inner in;
  GARBAGE(in);
  e2e_p2_AllTypes2_RepGroup_Inner_init(&in);
  CHECK(in.x == 99);
  CHECK(in.kind == e2e_p2_AllTypes2_Kind_KIND_A);
  CHECK(e2e_p2_AllTypes2_RepGroup_Inner_encoded_size(&in) == 0);

  e2e_p2_AllTypes2_BigGroup big;
  GARBAGE(big);
  e2e_p2_AllTypes2_BigGroup_init(&big);
  CHECK(big.deep == 0);
  CHECK(e2e_p2_AllTypes2_BigGroup_encoded_size(&big) == 0);

  e2e_p2_Sub s;
  GARBAGE(s);
  e2e_p2_Sub_init(&s);
  check_sub_defaults(&s);
  CHECK(e2e_p2_Sub_encoded_size(&s) == 0);

  e2e_p2_Tree2 t;
  GARBAGE(t);
  e2e_p2_Tree2_init(&t);
  CHECK(t.v == 0);
  CHECK(t.left == NULL);
  CHECK(t.right == NULL);
  CHECK(t.kids.size == 0);
  CHECK(t.leaf == NULL);
  CHECK(e2e_p2_Tree2_encoded_size(&t) == 0);

  e2e_p2_Tree2_Leaf leaf;
  GARBAGE(leaf);
  e2e_p2_Tree2_Leaf_init(&leaf);
  CHECK(leaf.name.size == 0);
  CHECK(leaf.back == NULL);
  CHECK(e2e_p2_Tree2_Leaf_encoded_size(&leaf) == 0);

  e2e_p2_WithRequired w;
  GARBAGE(w);
  e2e_p2_WithRequired_init(&w);
  CHECK(w.id == 0);
  CHECK(w.data.size == 0);
  CHECK(w.next == NULL);
  CHECK(w.sub == NULL);
  CHECK(e2e_p2_WithRequired_encoded_size(&w) == 0);

  /* The imported proto3 message. */
  e2e_imp_Imported imp;
  GARBAGE(imp);
  e2e_imp_Imported_init(&imp);
  CHECK(imp.a == 0);
  CHECK(imp.s.size == 0);
  CHECK(imp.c.size == 0);
  CHECK(imp.e == e2e_imp_ImportedEnum_IMP_ZERO);
  CHECK(imp.self == NULL);
  CHECK(e2e_imp_Imported_encoded_size(&imp) == 0);
}

/* Decodes `in`, checks the status, and that it re-encodes to itself. */
static bool roundtrip(e2e_p2_AllTypes2 *m, const uint8_t *in, size_t len, pbc_arena *a) {
  GARBAGE(*m);
  pbc_status s = e2e_p2_AllTypes2_decode(m, in, len, a);
  CHECK(s == PBC_OK);
  if (s != PBC_OK) {
    printf("  decode: %s\n", pbc_status_str(s));
    return false;
  }
  size_t n = e2e_p2_AllTypes2_encoded_size(m);
  CHECK(n == len);
  uint8_t out[256];
  size_t written = 0;
  if (n > sizeof out) return false;
  s = e2e_p2_AllTypes2_encode(m, out, sizeof out, &written);
  CHECK(s == PBC_OK);
  CHECK(written == len);
  CHECK(written == len && memcmp(out, in, len) == 0);
  return true;
}

static void test_decode(void) {
  pbc_arena a;
  pbc_arena_init(&a, NULL, 0);

  /* Only the required fields: every optional field keeps its default and
   * stays absent. */
  static const uint8_t required_only[] = {0x08, 0x01, 0x12, 0x00, 0x18, 0x01};
  e2e_p2_AllTypes2 m;
  if (roundtrip(&m, required_only, sizeof required_only, &a)) {
    CHECK(m.req_int32 == 1);
    CHECK(m.req_string.size == 0);
    CHECK(m.req_kind == e2e_p2_AllTypes2_Kind_KIND_A);
    check_alltypes2_optional_defaults(&m);
  }
  pbc_arena_reset(&a);

  /* Fields set explicitly to their defaults are present: written back. */
  static const uint8_t explicit_defaults[] = {
      0x08, 0x01, 0x12, 0x00, 0x18, 0x01,                         /* required */
      0x50, 0xd6, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, /* d_int32 -42 */
      0xba, 0x01, 0x13, 0x68, 0x22, 0x65, 0x6c, 0x6c, 0x6f, 0x0a, 0x09, 0x5c, 0x20,
      0x77, 0xc3, 0xb6, 0x72, 0x6c, 0x64, 0x20, 0x01, 0x21,       /* d_string */
      0xed, 0x01, 0x00, 0x00, 0xc0, 0x7f,                         /* d_float_nan */
      0xa3, 0x06, 0xa4, 0x06,                                     /* OptGroup {} */
      0xc2, 0x07, 0x00};                                          /* sub {} */
  if (roundtrip(&m, explicit_defaults, sizeof explicit_defaults, &a)) {
    CHECK(m.d_int32 == -42);
    CHECK(str_eq(m.d_string, "h\"ello\n\t\\ w\303\266rld \001!", 19));
    CHECK(fbits(m.d_float_nan) == 0x7fc00000u);
    CHECK(m.optgroup != NULL);
    if (m.optgroup) {
      CHECK(m.optgroup->g_int32 == 0);
      CHECK(str_eq(m.optgroup->g_string, "grp", 3));
    }
    CHECK(m.sub != NULL);
    if (m.sub) check_sub_defaults(m.sub);
    CHECK(m.d_uint64 == UINT64_MAX); /* untouched defaults stay */
    CHECK(m.o_kind == e2e_p2_AllTypes2_Kind_KIND_A);
  }
  pbc_arena_reset(&a);

  /* Required fields missing. */
  GARBAGE(m);
  CHECK(e2e_p2_AllTypes2_decode(&m, required_only, 0, &a) == PBC_ERR_MISSING_REQUIRED);
  pbc_arena_reset(&a);
  GARBAGE(m);
  CHECK(e2e_p2_AllTypes2_decode(&m, required_only, 4, &a) == PBC_ERR_MISSING_REQUIRED);
  pbc_arena_reset(&a);

  /* An empty Sub decodes to its defaults. */
  e2e_p2_Sub s;
  GARBAGE(s);
  CHECK(e2e_p2_Sub_decode(&s, required_only, 0, &a) == PBC_OK);
  check_sub_defaults(&s);
  CHECK(e2e_p2_Sub_encoded_size(&s) == 0);

  pbc_arena_destroy(&a);
}

int main(void) {
  test_init();
  test_decode();
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
