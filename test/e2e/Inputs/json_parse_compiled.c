/* json_parse_compiled.test: pbc_json_parse of a specialized message runs
 * its compiled parser (pbc__T_from_json: the expected names compared in
 * order, the rest found by the runtime); with the info's json_parser
 * cleared it runs the parser from the description. Both must agree on
 * every text below, every prefix of it and every text with one byte
 * removed, with and without ignore_unknown_fields: the same status, the
 * same error offset and message, and on success the same message (its
 * encoding). Prints each listed text's verdict, then the count of
 * disagreements. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_compiled.pbc.h"

static int failures, compared;
static pbc_message_info by_description;

typedef struct {
  pbc_status status;
  pbc_json_error error;
  uint8_t *bytes;
  size_t len;
} verdict;

static verdict parse(const pbc_message_info *info, const char *json,
                     size_t len, const pbc_json_options *o) {
  verdict v = {0};
  pbc_arena a;
  pbc_arena_init(&a, NULL, 0);
  e2e_jc_Node m;
  /* A copy of the text, exactly `len` long: ASan sees a read past it. */
  char *text = malloc(len ? len : 1);
  memcpy(text, json, len);
  v.status = pbc_json_parse(info, &m, text, len, &a, o, &v.error);
  if (v.status == PBC_OK) {
    v.len = e2e_jc_Node_encoded_size(&m);
    v.bytes = malloc(v.len + 1);
    if (e2e_jc_Node_encode(&m, v.bytes, v.len, &v.len) != PBC_OK) {
      printf("FAIL: a parsed message does not encode\n");
      failures++;
    }
  }
  free(text);
  pbc_arena_destroy(&a);
  return v;
}

/* Both parsers on json[0, len); prints the verdict when `label`. */
static void compare(const char *label, const char *json, size_t len,
                    const pbc_json_options *o) {
  verdict c = parse(&e2e_jc_Node_info, json, len, o);
  verdict d = parse(&by_description, json, len, o);
  compared++;
  if (c.status != d.status || c.error.offset != d.error.offset ||
      strcmp(c.error.message, d.error.message) != 0 || c.len != d.len ||
      (c.len && memcmp(c.bytes, d.bytes, c.len) != 0)) {
    failures++;
    printf("FAIL %.*s\n  compiled:    %s at %zu: %s (%zu bytes)\n"
           "  description: %s at %zu: %s (%zu bytes)\n",
           (int)len, json, pbc_status_str(c.status), c.error.offset,
           c.error.message, c.len, pbc_status_str(d.status), d.error.offset,
           d.error.message, d.len);
  }
  if (label) {
    if (c.status == PBC_OK)
      printf("%s: ok, %zu bytes\n", label, c.len);
    else
      printf("%s: %s at %zu: %s\n", label, pbc_status_str(c.status),
             c.error.offset, c.error.message);
  }
  free(c.bytes);
  free(d.bytes);
}

/* The text, its prefixes and its one-byte deletions, both ways. */
static void check(const char *label, const char *json,
                  const pbc_json_options *o) {
  size_t n = strlen(json);
  compare(label, json, n, o);
  char *cut = malloc(n);
  for (size_t i = 0; i < n; i++) {
    compare(NULL, json, i, o);
    memcpy(cut, json, i);
    memcpy(cut + i, json + i + 1, n - i - 1);
    compare(NULL, cut, n - 1, o);
  }
  free(cut);
}

static char *nested(int depth) {
  size_t n = (size_t)depth * 12 + 16;
  char *s = malloc(n), *p = s;
  for (int i = 0; i < depth; i++) p += sprintf(p, "{\"child\":");
  p += sprintf(p, "{\"id\":1}");
  for (int i = 0; i < depth; i++) *p++ = '}';
  *p = '\0';
  return s;
}

int main(void) {
  by_description = e2e_jc_Node_info;
  by_description.json_parser = NULL;
  pbc_json_options plain = {0}, lax = {.ignore_unknown_fields = true};

  static const struct {
    const char *label, *json;
  } texts[] = {
      {"empty", "{}"},
      {"in order",
       "{\"id\":-42,\"label\":\"x\",\"child\":{\"on\":true},\"kids\":[{},{\"id\":"
       "7}],\"nums\":[\"0\",\"-1\"],\"tags\":{\"a\":1},\"on\":true,\"ratio\":"
       "0.1,\"a<b\":\"odd\",\"mood\":\"HAPPY\",\"blob\":\"AP8=\",\"big\":"
       "\"18446744073709551615\",\"text\":\"t\"}"},
      {"reversed",
       "{\"sub\":{\"big\":\"1\",\"id\":3},\"big\":2,\"blob\":\"\",\"mood\":1,"
       "\"odd_name\":\"o\",\"ratio\":\"NaN\",\"on\":false,\"tags\":{},\"nums\":"
       "[],\"kids\":[{\"kids\":[{}]}],\"child\":{},\"label\":\"\",\"id\":1}"},
      {"skips", "{\"label\":\"a\",\"mood\":\"HAPPY\",\"sub\":{\"on\":true}}"},
      {"white space", " {\n\t\"id\" : 1 ,\r\n \"child\" :{ \"id\":2 } , "
                      "\"on\"\t:\ttrue }\n"},
      {"escaped name", "{\"\\u0069d\":5,\"label\":\"l\"}"},
      {"proto name", "{\"odd_name\":\"x\",\"id\":1}"},
      {"given twice", "{\"id\":1,\"label\":\"a\",\"id\":2}"},
      {"twice by two names", "{\"a<b\":\"x\",\"odd_name\":\"y\"}"},
      {"twice, the message", "{\"child\":{},\"child\":null}"},
      {"oneof twice", "{\"text\":\"a\",\"sub\":{}}"},
      {"oneof after null", "{\"text\":null,\"sub\":{\"id\":1}}"},
      {"oneof null message", "{\"sub\":null,\"text\":\"a\"}"},
      {"nulls", "{\"child\":null,\"kids\":null,\"id\":null,\"tags\":null}"},
      {"unknown", "{\"id\":1,\"nope\":{\"a\":[1,2,{}]},\"on\":true}"},
      {"unknown first", "{\"nope\":2}"},
      {"extension", "{\"[e2e.jc.ext]\":1}"},
      {"trailing comma", "{\"id\":1,}"},
      {"no colon", "{\"id\" 1}"},
      {"no comma", "{\"id\":1 \"label\":\"x\"}"},
      {"only a comma", "{,}"},
      {"inner trailing comma", "{\"child\":{\"id\":1,}}"},
      {"after the end", "{\"id\":1}}"},
      {"array for a message", "{\"child\":[]}"},
      {"string for a message", "{\"child\":\"x\",\"id\":1}"},
      {"bad value", "{\"id\":1.5}"},
      {"not an object", "[]"},
      {"arrays",
       "{\"kids\":[{\"id\":1,\"kids\":[{\"id\":2},{}]},{}],\"nums\":[1,"
       "\"-2\",3],\"words\":[\"a\",\"\\u00e9\",\"\"],\"moods\":[\"HAPPY\",0,"
       "\"MOOD_UNSET\"],\"blobs\":[\"AP8=\",\"\"],\"reals\":[0.5,\"NaN\","
       "-1e3],\"flags\":[true,false],\"hashes\":[4294967295,\"0\"]}"},
      {"arrays, white space",
       "{ \"nums\" : [ 1 , 2 ] , \"kids\" : [ { } , { \"id\" : 1 } ] ,"
       " \"words\" : [ \"x\" ]\t}"},
      {"null element", "{\"nums\":[1,null]}"},
      {"null message element", "{\"kids\":[{},null]}"},
      {"null string element", "{\"words\":[null]}"},
      {"unknown enum names", "{\"moods\":[\"NOPE\",\"HAPPY\",\"NOPE\"]}"},
      {"only unknown enum names", "{\"moods\":[\"NOPE\"],\"id\":1}"},
      {"an array twice", "{\"nums\":[1],\"nums\":[2]}"},
      {"messages twice", "{\"kids\":[],\"kids\":[{}]}"},
      {"number for an array", "{\"nums\":1}"},
      {"object for an array", "{\"kids\":{}}"},
      {"array trailing comma", "{\"nums\":[1,]}"},
      {"messages trailing comma", "{\"kids\":[{},]}"},
      {"bad element", "{\"hashes\":[1,-1]}"},
  };
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
    check(texts[i].label, texts[i].json, &plain);
    char lax_label[64];
    snprintf(lax_label, sizeof lax_label, "%s, lax", texts[i].label);
    check(lax_label, texts[i].json, &lax);
  }
  /* Arrays that outgrow their first room (4 elements) several times:
   * their elements grow in place or move. */
  {
    char *text = malloc(4096), *p = text;
    p += sprintf(p, "{\"nums\":[");
    for (int i = 0; i < 70; i++) p += sprintf(p, "%s%d", i ? "," : "", i * 37 - 900);
    p += sprintf(p, "],\"kids\":[");
    for (int i = 0; i < 40; i++)
      p += sprintf(p, "%s{\"words\":[\"w%d\"],\"id\":%d}", i ? "," : "", i, i);
    p += sprintf(p, "],\"words\":[");
    for (int i = 0; i < 33; i++) p += sprintf(p, "%s\"%d\"", i ? "," : "", i);
    p += sprintf(p, "]}");
    compare("long arrays", text, strlen(text), &plain);
    free(text);
  }
  /* The default limit: 100 messages nested in the top one. */
  for (int depth = 100; depth <= 101; depth++) {
    char label[32];
    snprintf(label, sizeof label, "%d nested", depth);
    char *text = nested(depth);
    compare(label, text, strlen(text), &plain);
    free(text);
  }
  /* The same limit through arrays' elements. */
  for (int depth = 100; depth <= 101; depth++) {
    char label[32];
    snprintf(label, sizeof label, "%d nested in arrays", depth);
    char *text = malloc((size_t)depth * 12 + 16), *p = text;
    for (int i = 0; i < depth; i++) p += sprintf(p, "{\"kids\":[");
    p += sprintf(p, "{}");
    for (int i = 0; i < depth; i++) p += sprintf(p, "]}");
    compare(label, text, strlen(text), &plain);
    free(text);
  }
  printf("%d texts, %d failures\n", compared, failures);
  return failures != 0;
}
