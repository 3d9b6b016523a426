/* json_compiled.test: T_to_json of a specialized message runs its compiled
 * printer; pbc_json_write (a writer's chunks) runs the printer from the
 * description. Both must give the same bytes, for every message below:
 *  - the members in number order, each kind of value, an empty message,
 *    empty and non-empty lists, a list of empty messages, a map and an
 *    escaped name (the two the compiled printer hands to the runtime);
 *  - a chain of messages at the depth limit and one past it;
 *  - every buffer size from 0 to the text's length: the text's first cap
 *    bytes, the full length in *written, BUFFER_TOO_SMALL, and nothing
 *    written past cap (the compiled printer patches each object's first
 *    comma into its brace afterwards, which must stay inside the buffer).
 * Prints each message's JSON, then the checks' verdicts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_compiled.pbc.h"
#include "pbc/writer.h"

static int failures;

static void fail(const char *what, const char *detail) {
  printf("FAIL %s: %s\n", what, detail);
  failures++;
}

/* pbc_json_write into one chunk as large as asked: the description's
 * printer (the compiled one needs the text in one buffer). */
typedef struct {
  uint8_t *buf;
  size_t cap;
} chunk;

static bool one_chunk(void *ctx, uint32_t id, uint8_t **begin, uint8_t **end,
                      bool *committed) {
  chunk *c = ctx;
  (void)committed;
  if (id != 0) return false;
  *begin = c->buf;
  *end = c->buf + c->cap;
  return true;
}

static char *by_description(const e2e_jc_Node *m, const pbc_json_options *o,
                            size_t *len, pbc_status *status) {
  chunk c = {malloc(1 << 20), 1 << 20};
  pbc_writer_delegate d = {one_chunk, NULL, &c};
  pbc_writer w;
  pbc_writer_init(&w, &d);
  *status = pbc_json_write(&e2e_jc_Node_info, m, &w, o);
  *len = (size_t)pbc_writer_position(&w);
  pbc_writer_finish(&w);
  return (char *)c.buf;
}

/* Prints m both ways and checks every buffer size. */
static void check(const char *what, const e2e_jc_Node *m,
                  const pbc_json_options *o) {
  size_t n = 0;
  pbc_status s = e2e_jc_Node_to_json(m, NULL, 0, &n, o);
  size_t want_len;
  pbc_status want_status;
  char *want = by_description(m, o, &want_len, &want_status);
  if (s != PBC_OK && s != PBC_ERR_BUFFER_TOO_SMALL) {
    printf("%s: %s\n", what, pbc_status_str(s));
    if (want_status != s) fail(what, "the description's printer says otherwise");
    free(want);
    return;
  }
  char *text = malloc(n + 16);
  for (size_t cap = 0; cap <= n; cap++) {
    memset(text, 0xAA, n + 16);
    size_t written = 0;
    s = e2e_jc_Node_to_json(m, text, cap, &written, o);
    if (s != (cap < n ? PBC_ERR_BUFFER_TOO_SMALL : PBC_OK) || written != n)
      fail(what, "status or length at a smaller buffer");
    for (size_t i = cap; i < n + 16; i++)
      if ((unsigned char)text[i] != 0xAA) {
        fail(what, "a byte written past the buffer");
        break;
      }
    if (cap == n) {
      printf("%s: %.*s\n", what, (int)n, text);
      if (want_status != PBC_OK || want_len != n || memcmp(want, text, n) != 0)
        printf("FAIL %s: the description's printer: %.*s\n", what,
               (int)want_len, want), failures++;
    } else if (cap != 0 && memcmp(text, want, cap) != 0) {
      fail(what, "a truncated text differs");
    }
  }
  free(text);
  free(want);
}

static e2e_jc_Node *node(pbc_arena *a) {
  e2e_jc_Node *m = pbc_arena_alloc(a, sizeof *m);
  e2e_jc_Node_init(m);
  return m;
}

#define STR(s) ((pbc_str){(s), sizeof(s) - 1})

int main(void) {
  pbc_arena a;
  pbc_arena_init(&a, NULL, 0);
  pbc_json_options plain = {0};
  pbc_json_options proto_names = {.preserve_proto_field_names = true,
                                  .always_print_enums_as_ints = true};

  e2e_jc_Node *empty = node(&a);
  check("empty", empty, &plain);

  e2e_jc_Node *full = node(&a);
  full->id = -42;
  full->label = STR("say \"hi\" <3");
  full->child = node(&a);
  full->child->on = true;
  e2e_jc_Node *kids = pbc_arena_alloc(&a, 2 * sizeof *kids);
  e2e_jc_Node_init(&kids[0]);
  e2e_jc_Node_init(&kids[1]);
  kids[1].id = 7;
  full->kids.data = kids;
  full->kids.size = 2;
  static const int64_t nums[] = {0, -1, INT64_MIN, INT64_MAX};
  full->nums.data = (int64_t *)nums;
  full->nums.size = 4;
  e2e_jc_Node_TagsEntry *tags = pbc_arena_alloc(&a, 2 * sizeof *tags);
  tags[0] = (e2e_jc_Node_TagsEntry){.key = STR("b"), .value = 2};
  tags[1] = (e2e_jc_Node_TagsEntry){.key = STR("a"), .value = 1};
  full->tags.data = tags;
  full->tags.size = 2;
  full->ratio = 0.1;
  full->odd_name = STR("odd");
  full->mood = e2e_jc_Mood_HAPPY;
  full->blob = (pbc_bytes){(const uint8_t *)"\x00\xff", 2};
  full->big = UINT64_MAX;
  check("full", full, &plain);
  check("full, proto names", full, &proto_names);

  /* A list of empty messages, and nothing else. */
  e2e_jc_Node *list = node(&a);
  list->kids.data = kids;
  list->kids.size = 1;
  check("list", list, &plain);

  /* 100 messages deep: the default limit; one more is past it. */
  for (int depth = 100; depth <= 101; depth++) {
    e2e_jc_Node *top = node(&a), *at = top;
    for (int i = 1; i < depth; i++) at = at->child = node(&a);
    at->id = depth;
    char what[32];
    snprintf(what, sizeof what, "depth %d", depth);
    size_t n = 0;
    pbc_status s = e2e_jc_Node_to_json(top, NULL, 0, &n, &plain);
    printf("%s: %s, %zu bytes\n", what, pbc_status_str(s), n);
    if (depth == 100) check(what, top, &plain);
  }
  pbc_arena_destroy(&a);
  printf("%d failures\n", failures);
  return failures != 0;
}
