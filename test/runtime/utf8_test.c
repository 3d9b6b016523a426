/* pbc_rt_utf8_valid against a plain decoder that follows the Unicode
 * standard's definition literally (decode the code point, then reject
 * overlongs, surrogates and values above U+10FFFF), on hand-picked
 * sequences and on deterministic random text: lengths 0-300 so that every
 * path (inline short check, scalar, 32-byte blocks with the overlapping last
 * block) sees every boundary, valid pieces with random byte mutations and
 * truncations. Each input sits at the end of its own allocation, so ASan sees
 * any read past it. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbc_rt.h"

static bool reference_valid(const uint8_t *s, size_t n) {
  for (size_t i = 0; i < n;) {
    uint8_t c = s[i];
    size_t len;
    uint32_t cp;
    if (c < 0x80) { i++; continue; }
    if (c >= 0xc0 && c <= 0xdf) { len = 2; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { len = 3; cp = c & 0x0f; }
    else if (c >= 0xf0 && c <= 0xf7) { len = 4; cp = c & 0x07; }
    else return false;
    if (n - i < len) return false;
    for (size_t k = 1; k < len; k++) {
      if ((s[i + k] & 0xc0) != 0x80) return false;
      cp = cp << 6 | (s[i + k] & 0x3f);
    }
    static const uint32_t min_for_len[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_for_len[len] || cp > 0x10ffff) return false;
    if (cp >= 0xd800 && cp <= 0xdfff) return false;
    i += len;
  }
  return true;
}

static int failures, checks;

static void check(const uint8_t *bytes, size_t n) {
  uint8_t *copy = malloc(n ? n : 1);
  memcpy(copy, bytes, n);
  bool got = pbc_rt_utf8_valid(copy, n), want = reference_valid(copy, n);
  checks++;
  if (got != want && failures++ < 5) {
    printf("FAIL: n=%zu pbc says %d, the standard %d:", n, got, want);
    for (size_t i = 0; i < n; i++) printf(" %02x", copy[i]);
    printf("\n");
  }
  free(copy);
}

/* Each hand-picked sequence alone, and at every offset of a 100-byte ASCII
 * run so it also straddles the 32-byte block boundaries. */
static void hand_picked(void) {
  static const char *const cases[] = {
      "", "a", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf",
      "\xc0\x80", "\xc1\xbf", "\xe0\x9f\xbf", "\xe0\xa0\x80", "\xed\x9f\xbf",
      "\xed\xa0\x80", "\xef\xbf\xbf", "\xf0\x8f\xbf\xbf", "\xf0\x90\x80\x80",
      "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xff", "\x80", "\xbf", "\xc3",
      "\xe2\x82", "\xf0\x9f\x98", "\xc3\xa9\xa9", "\xe2\x28\xa1",
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    size_t len = strlen(cases[c]);
    check((const uint8_t *)cases[c], len);
    for (size_t at = 0; at + len <= 100; at++) {
      uint8_t buf[100];
      memset(buf, 'x', sizeof buf);
      memcpy(buf + at, cases[c], len);
      check(buf, 100);
      check(buf, at + len); /* ending right after the sequence */
    }
  }
}

static void random_text(void) {
  static const char *const pieces[] = {"a", "\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80",
                                       "\xf4\x8f\xbf\xbf", "\xed\x9f\xbf", "\xee\x80\x80"};
  uint32_t seed = 12345;
  for (int t = 0; t < 200000; t++) {
    seed = seed * 1103515245u + 12345u;
    uint8_t buf[300];
    size_t n = (seed >> 8) % (t % 2 ? 300 : 70), k = 0;
    while (k < n) {
      seed = seed * 1103515245u + 12345u;
      const char *piece = pieces[(seed >> 16) % 7];
      size_t l = strlen(piece);
      if (k + l > n) break;
      memcpy(buf + k, piece, l);
      k += l;
    }
    seed = seed * 1103515245u + 12345u;
    for (uint32_t m = (seed >> 16) % 3; m > 0 && k > 0; m--) {
      seed = seed * 1103515245u + 12345u;
      buf[(seed >> 8) % k] = (uint8_t)(seed >> 24);
    }
    check(buf, k);
    if (k > 0) check(buf, k - 1 - (seed >> 4) % (k < 3 ? k : 3));
  }
}

int main(void) {
  hand_picked();
  random_text();
  printf("%d checks, %d failed\n", checks, failures);
  return failures != 0;
}
