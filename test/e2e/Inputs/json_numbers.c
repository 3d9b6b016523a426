/* json_numbers.test: number and bool arrays in their compact form (no
 * white space: what printers write, which runtime/json_parse.c reads by a
 * loop a type, compact_numbers) against the same arrays with a space after
 * every '[' and ',' (which read_value reads, element by element): the
 * same status and error message, and on success the same message (its
 * encoding), for every text below and every prefix of it, as it is and
 * with a member after it (the loops read up to 33 bytes from an
 * element's start). Prints each
 * text's verdict (the message printed back as JSON), then the count of
 * disagreements. Each text ends where a page without access begins: a
 * read past it is a crash. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "json_numbers.pbc.h"

static int failures, compared;

typedef struct {
  pbc_status status;
  pbc_json_error error;
  uint8_t *bytes;
  size_t len;
  char json[16384];
} verdict;

/* Room for the longest text, then a page without access. */
static char *guarded;
static size_t guarded_room;

static verdict parse(const char *json, size_t len) {
  verdict v = {0};
  pbc_arena a;
  pbc_arena_init(&a, NULL, 0);
  e2e_jn_Arrays m;
  if (len > guarded_room) {
    printf("FAIL: a text longer than the guarded room\n");
    exit(1);
  }
  char *text = guarded + guarded_room - len;
  memcpy(text, json, len);
  v.status = pbc_json_parse(&e2e_jn_Arrays_info, &m, text, len, &a, NULL,
                            &v.error);
  if (v.status == PBC_OK) {
    memset(&m.pad, 0, sizeof m.pad); /* not printed */
    v.len = e2e_jn_Arrays_encoded_size(&m);
    v.bytes = malloc(v.len + 1);
    size_t n = 0;
    if (e2e_jn_Arrays_encode(&m, v.bytes, v.len, &v.len) != PBC_OK ||
        pbc_json_print(&e2e_jn_Arrays_info, &m, v.json, sizeof v.json - 1,
                       &n, NULL) != PBC_OK) {
      printf("FAIL: a parsed message does not encode or print\n");
      failures++;
    }
    v.json[n] = 0;
  }
  pbc_arena_destroy(&a);
  return v;
}

/* The text with a space after each '[' and ',' outside strings; *cut set
 * to where its first `len` bytes' counterpart ends. */
static char *spaced(const char *json, size_t len, size_t *cut) {
  char *out = malloc(2 * strlen(json) + 1);
  size_t o = 0;
  bool in_string = false;
  for (size_t i = 0; json[i]; i++) {
    if (i == len) *cut = o;
    char c = json[i];
    out[o++] = c;
    if (in_string) {
      if (c == '\\' && json[i + 1]) out[o++] = json[++i];
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == ',') {
      out[o++] = ' ';
    }
  }
  if (len >= strlen(json)) *cut = o;
  out[o] = 0;
  return out;
}

/* json[0, len) against its spaced form; prints the verdict when `label`. */
static void compare(const char *label, const char *json, size_t len) {
  size_t cut = 0;
  char *s = spaced(json, len, &cut);
  verdict c = parse(json, len), g = parse(s, cut);
  compared++;
  if (c.status != g.status || strcmp(c.error.message, g.error.message) != 0 ||
      c.len != g.len || (c.len && memcmp(c.bytes, g.bytes, c.len) != 0)) {
    failures++;
    printf("FAIL %.*s\n  compact: %s: %s (%zu bytes)\n"
           "  spaced:  %s: %s (%zu bytes)\n",
           (int)len, json, pbc_status_str(c.status), c.error.message, c.len,
           pbc_status_str(g.status), g.error.message, g.len);
  }
  if (label) {
    if (c.status == PBC_OK)
      printf("%s: %s\n", label, c.json);
    else
      printf("%s: %s at %zu: %s\n", label, pbc_status_str(c.status),
             c.error.offset, c.error.message);
  }
  free(c.bytes);
  free(g.bytes);
  free(s);
}

/* The text and its prefixes as they are (the arrays' last bytes are
 * read_value's), then with a member after the arrays, which gives the
 * loops the bytes they read ahead. */
static void check(const char *label, const char *json) {
  size_t n = strlen(json);
  compare(NULL, json, n);
  for (size_t len = 0; len < n; len++) compare(NULL, json, len);
  char *padded = malloc(n + 64);
  sprintf(padded, "%.*s,\"pad\":\"%s\"}", (int)(n - 1), json,
          "........................");
  n = strlen(padded);
  compare(label, padded, n);
  for (size_t len = 0; len < n; len++) compare(NULL, padded, len);
  free(padded);
}

int main(void) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  guarded_room = 4 * page;
  guarded = mmap(NULL, guarded_room + page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (guarded == MAP_FAILED ||
      mprotect(guarded + guarded_room, page, PROT_NONE) != 0) {
    perror("guard page");
    return 1;
  }
  check("int32", "{\"i32\":[0,-0,1,-1,2147483647,-2147483648,\"-7\",\"007\"]}");
  check("int32 past its range", "{\"i32\":[1,2147483648]}");
  check("int32 below its range", "{\"i32\":[1,-2147483649]}");
  check("int32 bare leading zero", "{\"i32\":[1,01]}");
  check("int32 integral forms", "{\"i32\":[1e2,1.0,-3E1]}");
  check("int32 fraction", "{\"i32\":[1.5]}");
  check("int32 null element", "{\"i32\":[1,null,2]}");
  check("int32 quoted bad", "{\"i32\":[\"1x\"]}");
  check("int32 lone minus", "{\"i32\":[-]}");
  check("int32 trailing comma", "{\"i32\":[1,]}");
  check("int64 19 digits",
        "{\"i64\":[9223372036854775807,-9223372036854775808,"
        "\"1234567890123456789\",12345678,123456789,1234567890123456]}");
  check("int64 past its range", "{\"i64\":[9223372036854775808]}");
  check("int64 20 digits", "{\"i64\":[12345678901234567890]}");
  check("uint64 20 digits",
        "{\"u64\":[18446744073709551615,\"18446744073709551615\",0]}");
  check("uint64 past its range", "{\"u64\":[18446744073709551616]}");
  check("uint64 negative", "{\"u64\":[-1]}");
  check("uint32", "{\"u32\":[4294967295,0,\"4294967295\"]}");
  check("uint32 past its range", "{\"u32\":[4294967296]}");
  check("sint32 and sint64", "{\"s32\":[-1000,999],\"s64\":[\"-5\",6]}");
  check("fixed and sfixed",
        "{\"f32\":[4294967295],\"f64\":[\"18446744073709551615\"],"
        "\"sf32\":[-2147483648],\"sf64\":[\"-9223372036854775808\"]}");
  check("double",
        "{\"db\":[0,-0,0.1,1e+20,-1.5e-300,5e-324,1234.5714285714287,"
        "1.7976931348623157e308,\"NaN\",\"-Infinity\",\"2.5\"]}");
  /* The printers' form (compact_decimal) at its limits: 15 and 16
   * digits before the point, 15 and 16 after it, 19 and 20 in all, and
   * what it leaves to the one-pass reader (an exponent) or refuses. */
  check("double digits",
        "{\"db\":[123456789012345.5,1234567890123456.5,12345678901234567,"
        "0.123456789012345,0.1234567890123456,0.1234567890123456789,"
        "12345678.12345678901,1234567890.1234567891,99999999.999999999,"
        "99999.999999999999999,1.5E3,2.5e-3,-0.5,0.0,-0.0,7,14285.714285714286]}");
  check("double point without digits", "{\"db\":[1,2.]}");
  check("double point then exponent", "{\"db\":[1,2.e5]}");
  check("double leading zero before a point", "{\"db\":[1,01.5]}");
  check("double two points", "{\"db\":[1,1.5.5]}");
  check("double out of range", "{\"db\":[1,1e999]}");
  check("double leading zero", "{\"db\":[00.5]}");
  check("double bad exponent", "{\"db\":[1e]}");
  check("float", "{\"fl\":[0.1,3.4028235e38,-3.4028235e38,1e-46,\"Infinity\"]}");
  check("float past its range", "{\"fl\":[3.5e38]}");
  check("bool", "{\"b\":[true,false,true]}");
  check("bool misspelt", "{\"b\":[true,fals]}");
  check("bool glued", "{\"b\":[truefalse]}");
  check("bool as a number", "{\"b\":[1]}");
  check("all at once",
        "{\"i32\":[1,2,3],\"i64\":[\"4\"],\"u32\":[5],\"u64\":[\"6\"],"
        "\"s32\":[-7],\"s64\":[\"-8\"],\"f32\":[9],\"f64\":[\"10\"],"
        "\"sf32\":[-11],\"sf64\":[\"-12\"],\"fl\":[1.5],\"db\":[2.5],"
        "\"b\":[false]}");
  /* Arrays that outgrow their room, ending within a few bytes of the end
   * of the text (the loops leave the last bytes to read_value). */
  char big[8192];
  size_t n = (size_t)sprintf(big, "{\"i64\":[");
  for (int i = 0; i < 300; i++)
    n += (size_t)sprintf(big + n, "%s%lld", i ? "," : "",
                         (long long)i * 12345678901LL * (i % 2 ? -1 : 1));
  sprintf(big + n, "]}");
  check(NULL, big);
  printf("growing: checked\n");
  printf("%d of %d comparisons differ\n", failures, compared);
  return failures != 0;
}
