/* The program cross.test builds for the host and for each cross target and
 * runs under qemu: everything it prints must be byte-identical on every
 * architecture. It decodes each benchmark dataset payload (by message name,
 * through pbc_find_message) and re-encodes it, builds an AllTypes by hand
 * with extreme values and round-trips it, prints decoded values (so the
 * struct layout and sign/zero extension of the compiled code show), and
 * feeds the decoder broken input (so status codes cross the C ABI).
 *
 *   cross_roundtrip DATASET.pb...   (benchmarks.BenchmarkDataset files) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alltypes.pbc.h"
#include "benchmarks.pbc.h"

static void print_hex(const char *label, const uint8_t *p, size_t n) {
  printf("%s %zu bytes:", label, n);
  for (size_t i = 0; i < n; i++)
    printf("%s%02x", i % 32 ? "" : "\n  ", p[i]);
  printf("\n");
}

static uint8_t *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return buf;
}

/* Decodes `buf` as `info`, re-encodes it and prints the bytes. */
static int roundtrip(const pbc_message_info *info, const uint8_t *buf,
                     size_t len, pbc_arena *arena) {
  void *m = pbc_arena_alloc(arena, info->struct_size);
  if (!m)
    return 1;
  info->init(m);
  pbc_status s = info->decode(m, buf, len, arena);
  printf("%s: decode %d (%s), initialized %d\n", info->full_name, (int)s,
         pbc_status_str(s), (int)info->is_initialized(m));
  if (s != PBC_OK)
    return 1;
  size_t size = info->encoded_size(m), written = 0;
  uint8_t *out = malloc(size ? size : 1);
  s = info->encode(m, out, size, &written);
  printf("encode %d, size %zu, written %zu, same as input %d\n", (int)s, size,
         written, written == len && memcmp(out, buf, len) == 0);
  print_hex("encoded", out, written);
  free(out);
  return s != PBC_OK;
}

static int datasets(int argc, char **argv) {
  int failed = 0;
  for (int i = 1; i < argc; i++) {
    size_t len = 0;
    uint8_t *buf = read_file(argv[i], &len);
    if (!buf) {
      printf("cannot read %s\n", argv[i]);
      return 1;
    }
    pbc_arena arena;
    pbc_arena_init(&arena, NULL, 0);
    benchmarks_BenchmarkDataset ds;
    benchmarks_BenchmarkDataset_init(&ds);
    pbc_status s = benchmarks_BenchmarkDataset_decode(&ds, buf, len, &arena);
    printf("dataset %.*s (%.*s): %d, %zu payloads\n", (int)ds.name.size,
           ds.name.data, (int)ds.message_name.size, ds.message_name.data,
           (int)s, ds.payload.size);
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)ds.message_name.size,
             ds.message_name.data);
    const pbc_message_info *info = pbc_find_message(name);
    if (!info) {
      printf("message %s is not linked in\n", name);
      failed = 1;
    }
    for (size_t j = 0; info && j < ds.payload.size; j++)
      failed |= roundtrip(info, ds.payload.data[j].data,
                          ds.payload.data[j].size, &arena);
    pbc_arena_destroy(&arena);
    free(buf);
  }
  return failed;
}

static void print_alltypes(const e2e_p3_AllTypes *m) {
  printf("f_int32 %" PRId32 " f_int64 %" PRId64 " f_uint32 %" PRIu32
         " f_uint64 %" PRIu64 "\n",
         m->f_int32, m->f_int64, m->f_uint32, m->f_uint64);
  printf("f_sint32 %" PRId32 " f_sint64 %" PRId64 " f_fixed32 %" PRIu32
         " f_sfixed64 %" PRId64 "\n",
         m->f_sint32, m->f_sint64, m->f_fixed32, m->f_sfixed64);
  printf("f_float %.9g f_double %.17g f_bool %d\n", m->f_float, m->f_double,
         (int)m->f_bool);
  printf("f_string '%.*s' f_bytes %zu f_nested_enum %d f_top_enum %d\n",
         (int)m->f_string.size, m->f_string.data, m->f_bytes.size,
         (int)m->f_nested_enum, (int)m->f_top_enum);
  printf("o_int32 %d/%" PRId32 " o_bool %d/%d o_enum %d/%d\n",
         (int)e2e_p3_AllTypes_has_o_int32(m), m->o_int32,
         (int)e2e_p3_AllTypes_has_o_bool(m), (int)m->o_bool,
         (int)e2e_p3_AllTypes_has_o_enum(m), (int)m->o_enum);
  printf("r_sint32");
  for (size_t i = 0; i < m->r_sint32.size; i++)
    printf(" %" PRId32, m->r_sint32.data[i]);
  printf(" | u_int64");
  for (size_t i = 0; i < m->u_int64.size; i++)
    printf(" %" PRId64, m->u_int64.data[i]);
  printf(" | r_double");
  for (size_t i = 0; i < m->r_double.size; i++)
    printf(" %.17g", m->r_double.data[i]);
  printf("\n");
  if (m->f_nested)
    printf("f_nested a %" PRId32 " kind %d note '%.*s' xs %zu\n",
           m->f_nested->a, (int)m->f_nested->kind, (int)m->f_nested->note.size,
           m->f_nested->note.data, m->f_nested->xs.size);
  printf("tag_2048 %" PRId32 " tag_33554431 %" PRId32 " tag_max %zu\n",
         m->tag_2048, m->tag_33554431, m->tag_max.size);
}

static int alltypes(void) {
  static int32_t sints[] = {0, -1, 1, INT32_MIN, INT32_MAX};
  static int64_t u64s[] = {-1, INT64_MIN, INT64_MAX, 300};
  static double doubles[] = {0.1, -0.0, 1e308, -2.5e-300};
  static uint32_t xs[] = {0xdeadbeefu, 1};
  static uint32_t tags[] = {7, 0xffffffffu};
  static const uint8_t raw[] = {0, 0xff, 0x80, 0x7f};
  e2e_p3_AllTypes_Nested nested;
  e2e_p3_AllTypes_Nested_init(&nested);
  nested.a = -7;
  nested.kind = e2e_p3_AllTypes_NestedEnum_NEG;
  nested.note = (pbc_str){"\xc3\xa9t\xc3\xa9", 5};
  nested.xs.data = xs;
  nested.xs.size = 2;

  e2e_p3_AllTypes m;
  e2e_p3_AllTypes_init(&m);
  m.f_int32 = -123456;
  m.f_int64 = INT64_MIN;
  m.f_uint32 = UINT32_MAX;
  m.f_uint64 = UINT64_MAX;
  m.f_sint32 = INT32_MIN;
  m.f_sint64 = -2;
  m.f_fixed32 = 0x80000000u;
  m.f_sfixed64 = -1;
  m.f_float = -1.5e-38f;
  m.f_double = 3.141592653589793;
  m.f_bool = true;
  m.f_string = (pbc_str){"cross", 5};
  m.f_bytes = (pbc_bytes){raw, sizeof raw};
  m.f_nested_enum = e2e_p3_AllTypes_NestedEnum_NEG;
  m.f_top_enum = e2e_p3_TopEnum_TOP_MIN;
  m.f_nested = &nested;
  e2e_p3_AllTypes_set_o_int32(&m, 0);
  e2e_p3_AllTypes_set_o_bool(&m, false);
  e2e_p3_AllTypes_set_o_enum(&m, e2e_p3_AllTypes_NestedEnum_BAZ);
  m.r_sint32.data = sints;
  m.r_sint32.size = 5;
  m.u_int64.data = u64s;
  m.u_int64.size = 4;
  m.r_double.data = doubles;
  m.r_double.size = 4;
  m.tag_2048 = -2048;
  m.tag_33554431 = -33554431;
  m.tag_max.data = tags;
  m.tag_max.size = 2;

  uint8_t buf[1024];
  size_t written = 0;
  pbc_status s = e2e_p3_AllTypes_encode(&m, buf, sizeof buf, &written);
  printf("AllTypes: encode %d, size %zu\n", (int)s,
         e2e_p3_AllTypes_encoded_size(&m));
  print_hex("AllTypes", buf, written);
  size_t tiny = 0;
  s = e2e_p3_AllTypes_encode(&m, buf, 3, &tiny);
  printf("encode into 3 bytes: %d (%s)\n", (int)s, pbc_status_str(s));

  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  e2e_p3_AllTypes back;
  e2e_p3_AllTypes_init(&back);
  s = e2e_p3_AllTypes_decode(&back, buf, written, &arena);
  printf("decode %d\n", (int)s);
  print_alltypes(&back);
  int failed = roundtrip(&e2e_p3_AllTypes_info, buf, written, &arena) != 0;

  /* Broken input: each status must come back the same on every target. */
  static const uint8_t truncated[] = {0x08};
  static const uint8_t bad_wire[] = {0x0f, 0x00};
  static const uint8_t long_varint[] = {0x08, 0xff, 0xff, 0xff, 0xff, 0xff,
                                        0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  static const uint8_t bad_utf8[] = {0x72, 0x01, 0xff};
  const struct {
    const char *name;
    const uint8_t *p;
    size_t n;
  } bad[] = {{"truncated", truncated, sizeof truncated},
             {"bad wire type", bad_wire, sizeof bad_wire},
             {"long varint", long_varint, sizeof long_varint},
             {"bad utf-8", bad_utf8, sizeof bad_utf8}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    e2e_p3_AllTypes_init(&back);
    s = e2e_p3_AllTypes_decode(&back, bad[i].p, bad[i].n, &arena);
    printf("%s: %d (%s)\n", bad[i].name, (int)s, pbc_status_str(s));
  }
  pbc_arena_destroy(&arena);
  return failed;
}

int main(int argc, char **argv) {
  printf("sizeof AllTypes %zu, Nested %zu, BenchmarkDataset %zu\n",
         sizeof(e2e_p3_AllTypes), sizeof(e2e_p3_AllTypes_Nested),
         sizeof(benchmarks_BenchmarkDataset));
  int failed = alltypes();
  failed |= datasets(argc, argv);
  printf("%s\n", failed ? "FAILED" : "done");
  return failed;
}
