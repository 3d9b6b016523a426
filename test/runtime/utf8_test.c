/* pbc_rt_utf8_valid against a plain decoder that follows the Unicode
 * standard's definition literally (decode the code point, then reject
 * overlongs, surrogates and values above U+10FFFF), once per block
 * validator this CPU runs (pbc_rt_utf8_use: the generic vectors, and the
 * SSSE3 and AVX2 lookup tables on x86-64), and pbc_rt_utf8_string_run (the
 * text parsers' one-pass scan) with it: where the run stops and whether it
 * is valid, on each input as it is and ended by a stop byte followed by
 * bytes that are not UTF-8. Inputs:
 *  - hand-picked sequences of every row of the standard's Table 3-7 and
 *    just outside it, alone and at every offset of 100- and 200-byte ASCII
 *    runs, also cut right after them, so they straddle every 16-, 32- and
 *    64-byte boundary, the overlapping last block, and a 64-byte ASCII
 *    stretch after a cut sequence;
 *  - every pair of bytes, every lead byte with every second byte and a
 *    spread of third (and fourth) bytes, alone and inside longer text;
 *  - deterministic random text: lengths 0-300 so that every path (inline
 *    short check, zero-padded short copy, blocks with the overlapping last
 *    block) sees every boundary, valid pieces with random byte mutations and
 *    truncations, and random bytes drawn from the interesting ones.
 * Each input sits at the end of its own allocation, so ASan sees any read
 * past it. */
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

static bool stop_byte(uint8_t c) {
  return c == '"' || c == '\\' || c < 0x20;
}

/* pbc_rt_utf8_string_run on the n bytes at s (the end of an allocation):
 * the first stop byte, and whether the bytes before it are UTF-8. */
static void check_run(const uint8_t *s, size_t n) {
  size_t stop = 0;
  while (stop < n && !stop_byte(s[stop])) stop++;
  bool want = reference_valid(s, stop), got;
  const char *end = (const char *)s + n;
  const char *got_stop = pbc_rt_utf8_string_run((const char *)s, end, &got);
  checks++;
  if ((got_stop != (const char *)s + stop || got != want) && failures++ < 5) {
    printf("FAIL: string run of n=%zu stops at %td, valid %d; want %zu, %d:", n,
           got_stop - (const char *)s, got, stop, want);
    for (size_t i = 0; i < n; i++) printf(" %02x", s[i]);
    printf("\n");
  }
}

/* ---- pbc_rt_utf8_json_kept ----
 * The code points from U+0080 on that 3.21's JSON escaper writes as \u
 * escapes (its table, transcribed), and the ASCII it writes as it is. */
static bool ref_escaped(uint32_t cp) {
  static const uint32_t ranges[][2] = {
      {0x80, 0x9f},       {0xad, 0xad},       {0x600, 0x603},     {0x6dd, 0x6dd},
      {0x70f, 0x70f},     {0x17b4, 0x17b5},   {0x200b, 0x200f},   {0x2028, 0x202e},
      {0x2060, 0x2064},   {0x206a, 0x206f},   {0xfeff, 0xfeff},   {0xfff9, 0xfffb},
      {0x1d173, 0x1d17a}, {0xe0001, 0xe0001}, {0xe0020, 0xe007f},
  };
  for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++)
    if (cp >= ranges[i][0] && cp <= ranges[i][1]) return true;
  return false;
}

/* The length of the code point at s (n > 0 bytes left) when 3.21 writes it
 * as it is: plain ASCII, or well-formed UTF-8 of a code point it does not
 * escape; 0 otherwise. */
static size_t ref_kept_at(const uint8_t *s, size_t n) {
  uint8_t c = s[0];
  if (c < 0x80) return c >= 0x20 && c != 0x7f && c != '"' && c != '\\' && c != '<' && c != '>';
  size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
  if (len > n || !reference_valid(s, len)) return 0;
  uint32_t cp = c & (0x7f >> len);
  for (size_t k = 1; k < len; k++) cp = cp << 6 | (s[k] & 0x3f);
  return ref_escaped(cp) ? 0 : len;
}

/* The escaper's own test (pbc_rt.h, json_print.c's and the blocks'):
 * every code point from U+0080 against the table. */
static void escapes_code_point(void) {
  for (uint32_t cp = 0x80; cp <= 0x10ffff; cp++) {
    checks++;
    if (pbc_rt_json_escapes_code_point(cp) != ref_escaped(cp) && failures++ < 5)
      printf("FAIL: U+%04X %s\n", cp, ref_escaped(cp) ? "kept" : "escaped");
  }
}

static bool json_kept_vectors;

/* pbc_rt_utf8_json_kept on the n bytes at s: with vectors, every code
 * point 3.21 keeps before the first it escapes or the first byte that is
 * not UTF-8 (the blocks flag more than it escapes: a flagged code point it
 * keeps, U+2013 say, is passed over); without, none. The same with a copy,
 * which then holds the kept bytes, and nothing past its room (a heap block
 * of exactly n + PBC_RT_JSON_KEPT_SLACK bytes, for ASan to watch). */
static void check_json_kept(const uint8_t *s, size_t n) {
  size_t want = 0, len;
  while (want < n && (len = ref_kept_at(s + want, n - want)) != 0) want += len;
  if (!json_kept_vectors) want = 0;
  size_t got = pbc_rt_utf8_json_kept(s, n, NULL);
  uint8_t *copy = malloc(n + PBC_RT_JSON_KEPT_SLACK);
  size_t copied = pbc_rt_utf8_json_kept(s, n, copy);
  checks += 2;
  if ((got != want || copied != want || memcmp(copy, s, want) != 0) &&
      failures++ < 5) {
    printf("FAIL: json kept of n=%zu is %zu (copying: %zu%s), want %zu:", n,
           got, copied, memcmp(copy, s, copied < want ? copied : want) != 0
                            ? ", copied wrong" : "", want);
    for (size_t i = 0; i < n; i++) printf(" %02x", s[i]);
    printf("\n");
  }
  free(copy);
}

/* Text of code points 3.21 keeps, escapes, or that the blocks flag though
 * it keeps them, with broken UTF-8 now and then: lengths 0-300, so that
 * each lands in every lane. */
static void random_json_text(void) {
  static const char *const pieces[] = {
      "a", "z", " ", "\"", "<", "\n", "\x7f", "\\",                     /* ASCII */
      "\xc3\xa9", "\xe2\x82\xac", "\xe4\xb8\xad", "\xf0\x9f\x98\x80", /* kept */
      "\xc2\xad", "\xc2\x85", "\xd8\x81", "\xdb\x9d", "\xdc\x8f",    /* escaped */
      "\xe1\x9e\xb4", "\xe2\x80\x8b", "\xe2\x80\xa8", "\xe2\x81\xa0", "\xe2\x81\xaf",
      "\xef\xbb\xbf", "\xef\xbf\xb9", "\xf0\x9d\x85\xb3", "\xf3\xa0\x80\x81",
      "\xf3\xa0\x81\xbf",
      "\xc2\xa0" /* kept */, "\xe2\x80\x93", "\xd8\x8f", "\xef\xbb\xbe",      /* flagged, kept */
      "\xf0\xa0\x80\x80", "\xe1\x9e\x80",
      "\xff", "\x80", "\xc0\x80", "\xed\xa0\x80", "\xe2\x82", "\xf4\x90\x80\x80", /* broken */
  };
  uint32_t seed = 4242;
  for (int t = 0; t < 40000; t++) {
    uint8_t buf[320];
    seed = seed * 1103515245u + 12345u;
    size_t want = (seed >> 8) % 301, n = 0;
    /* Mostly one kept kind, so that long stretches are kept. */
    unsigned common = (seed >> 20) % 12;
    while (n < want) {
      seed = seed * 1103515245u + 12345u;
      unsigned pick = (seed >> 28) < 14 ? common : (seed >> 8) % (sizeof pieces / sizeof *pieces);
      const char *piece = pieces[pick];
      size_t len = strlen(piece);
      memcpy(buf + n, piece, len);
      n += len;
    }
    uint8_t *tail = malloc(n ? n : 1);
    memcpy(tail, buf, n);
    check_json_kept(tail, n);
    free(tail);
  }
}

/* The bytes as a whole, and as a string run twice: as they are (the stop
 * bytes among them end it), and ended by a stop byte with bytes after it
 * that are not UTF-8 and must not count, at lengths that put the stop at
 * every lane of a block. */
static void check(const uint8_t *bytes, size_t n) {
  static const uint8_t stops[] = {'"', '\\', 0x01, 0x1f};
  size_t after = 3 + n % 37;
  uint8_t *copy = malloc(n + 1 + after);
  memcpy(copy, bytes, n);
  /* In a heap block of exactly n bytes, for ASan to see any read past it. */
  uint8_t *tail = malloc(n ? n : 1);
  memcpy(tail, bytes, n);
  bool got = pbc_rt_utf8_valid(tail, n), want = reference_valid(copy, n);
  checks++;
  if (got != want && failures++ < 5) {
    printf("FAIL: n=%zu pbc says %d, the standard %d:", n, got, want);
    for (size_t i = 0; i < n; i++) printf(" %02x", copy[i]);
    printf("\n");
  }
  check_run(tail, n);
  check_json_kept(tail, n);
  free(tail);
  copy[n] = stops[n % sizeof stops];
  memset(copy + n + 1, 0x80, after);
  copy[n + after] = 0xff;
  check_run(copy, n + 1 + after);
  free(copy);
}

/* Each hand-picked sequence alone, and at every offset of ASCII runs of
 * 100 and 200 bytes. */
static void hand_picked(void) {
  static const char *const cases[] = {
      /* Table 3-7, each row's first and last sequence. */
      "", "a", "\x7f", "\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xe0\xbf\xbf",
      "\xe1\x80\x80", "\xec\xbf\xbf", "\xed\x80\x80", "\xed\x9f\xbf",
      "\xee\x80\x80", "\xef\xbf\xbf", "\xf0\x90\x80\x80", "\xf0\xbf\xbf\xbf",
      "\xf1\x80\x80\x80", "\xf3\xbf\xbf\xbf", "\xf4\x80\x80\x80",
      "\xf4\x8f\xbf\xbf", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
      /* Overlongs. */
      "\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xe0\x9f\xbf",
      "\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf",
      /* Surrogates. */
      "\xed\xa0\x80", "\xed\xaf\xbf", "\xed\xb0\x80", "\xed\xbf\xbf",
      /* Above U+10FFFF, and bytes that never occur. */
      "\xf4\x90\x80\x80", "\xf4\xbf\xbf\xbf", "\xf5\x80\x80\x80",
      "\xf7\xbf\xbf\xbf", "\xf8\x88\x80\x80\x80", "\xfc\x84\x80\x80\x80\x80",
      "\xfe", "\xff", "\xf5", "\xf4\x90", "\xf5\x8f",
      /* Continuations where none belongs, or missing. */
      "\x80", "\xbf", "\x80\x80", "\xc3\xa9\xa9", "\xe2\x82\xac\x80",
      "\xf0\x9f\x98\x80\x80", "\xc2\x7f", "\xc2\xc0", "\xe1\x7f\x80",
      "\xe1\x80\x7f", "\xe1\x80\xc0", "\xf1\x80\x80\x7f", "\xf1\x80\xc0\x80",
      "\xe2\x28\xa1",
      /* Cut short. */
      "\xc3", "\xdf", "\xe1", "\xe2\x82", "\xef\xbf", "\xf0", "\xf0\x9f",
      "\xf0\x9f\x98", "\xf4\x8f\xbf", "\xc3\xc3\xa9", "\xe2\x82\xe2\x82\xac",
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    size_t len = strlen(cases[c]);
    check((const uint8_t *)cases[c], len);
    for (size_t run = 100; run <= 200; run += 100)
      for (size_t at = 0; at + len <= run; at++) {
        uint8_t buf[200];
        memset(buf, 'x', sizeof buf);
        memcpy(buf + at, cases[c], len);
        check(buf, run);
        if (run == 100) check(buf, at + len); /* ending right after it */
      }
  }
}

/* `seq` alone, then in text where it crosses a different block boundary
 * each time (`where` picks the offset), and ending the text. */
static void check_seq(const uint8_t *seq, size_t len, unsigned where) {
  check(seq, len);
  uint8_t buf[160];
  memset(buf, 'y', sizeof buf);
  size_t at = 24 + where % 112;
  memcpy(buf + at, seq, len);
  check(buf, sizeof buf);
  check(buf, at + len);
}

/* Every byte pair; every lead byte from C0 on followed by every byte and
 * third and fourth bytes at the boundaries of the continuation ranges. */
static void exhaustive(void) {
  static const uint8_t third[] = {0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff};
  static const uint8_t fourth[] = {0x7f, 0x80, 0xbf, 0xc0};
  unsigned where = 0;
  for (unsigned a = 0; a < 256; a++)
    for (unsigned b = 0; b < 256; b++) {
      uint8_t seq[4] = {(uint8_t)a, (uint8_t)b};
      check_seq(seq, 2, where++);
      if (a < 0xc0) continue;
      for (size_t c = 0; c < sizeof third; c++) {
        seq[2] = third[c];
        check_seq(seq, 3, where++);
        if (a < 0xf0 || (third[c] & 0xc0) != 0x80) continue;
        for (size_t d = 0; d < sizeof fourth; d++) {
          seq[3] = fourth[d];
          check_seq(seq, 4, where++);
        }
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

/* Random bytes, mostly from the ones where the rules change, in runs of
 * 0-300. */
static void random_bytes(void) {
  static const uint8_t pool[] = {0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf,
                                 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee,
                                 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff};
  uint32_t seed = 777;
  for (int t = 0; t < 20000; t++) {
    seed = seed * 1103515245u + 12345u;
    uint8_t buf[300];
    size_t n = (seed >> 8) % 301;
    for (size_t k = 0; k < n; k++) {
      seed = seed * 1103515245u + 12345u;
      /* Mostly ASCII, so that some runs are valid. */
      buf[k] = (seed >> 28) < 13 ? 'z' : pool[(seed >> 8) % sizeof pool];
    }
    check(buf, n);
  }
}

int main(void) {
  static const struct {
    int impl;
    const char *name;
  } impls[] = {{PBC_RT_UTF8_GENERIC, "generic"},
                {PBC_RT_UTF8_SSSE3, "ssse3"},
                {PBC_RT_UTF8_AVX2, "avx2"}};
  /* The first call picks the best validator the CPU runs. */
  int best = PBC_RT_UTF8_GENERIC;
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2")) best = PBC_RT_UTF8_AVX2;
  else if (__builtin_cpu_supports("ssse3")) best = PBC_RT_UTF8_SSSE3;
#endif
  if (pbc_rt_utf8_current() != PBC_RT_UTF8_AUTO && pbc_rt_utf8_current() != best) {
    printf("FAIL: validator %d picked before the first call\n", pbc_rt_utf8_current());
    failures++;
  }
  json_kept_vectors = best != PBC_RT_UTF8_GENERIC;
  check((const uint8_t *)"\xe2\x82\xac", 3);
  escapes_code_point();
  if (pbc_rt_utf8_current() != best) {
    printf("FAIL: the first call picked validator %d, not %d\n", pbc_rt_utf8_current(), best);
    failures++;
  }
  printf("validators tested:");
  for (size_t i = 0; i < sizeof impls / sizeof *impls; i++) {
    if (!pbc_rt_utf8_use(impls[i].impl)) {
      if (impls[i].impl == best) {
        printf("FAIL: validator %s refused\n", impls[i].name);
        failures++;
      }
      continue;
    }
    if (pbc_rt_utf8_current() != impls[i].impl) {
      printf("FAIL: %s asked for, %d in use\n", impls[i].name, pbc_rt_utf8_current());
      failures++;
    }
    printf(" %s", impls[i].name);
    json_kept_vectors = impls[i].impl != PBC_RT_UTF8_GENERIC;
    random_json_text();
    hand_picked();
    exhaustive();
    random_text();
    random_bytes();
  }
  printf("\n");
  if (!pbc_rt_utf8_use(PBC_RT_UTF8_AUTO) || pbc_rt_utf8_current() != best) {
    printf("FAIL: pbc_rt_utf8_use(AUTO) did not pick validator %d\n", best);
    failures++;
  }
  printf("%d checks, %d failed\n", checks, failures);
  return failures != 0;
}
