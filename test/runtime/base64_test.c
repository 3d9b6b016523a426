/* pbc_rt_base64_blocks (runtime/base64.c), once per decoder this CPU runs
 * (pbc_rt_base64_use: none, SSSE3, AVX2), against a plain decoder of both
 * alphabets. For each input: the digits read are a multiple of 16, hold no
 * byte that is no digit, and their bytes are the reference's; the decoder
 * stops only for a reason (fewer than 24 digits left, or a byte that is no
 * digit in the next block); nothing is written past n / 4 * 3 bytes, the
 * room the contract promises (a guard after it stays untouched; the input
 * sits at the end of its allocation, so ASan sees a read past it).
 * Inputs: every byte value at every position of the first 48 of a 64-digit
 * string; deterministic random digits of both alphabets, lengths 0-400, with
 * and without a bad byte somewhere. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbc_rt.h"

static const char kStandard[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char kUrlSafe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static int checks, failures;

/* The digit's value, or -1. */
static int digit_value(uint8_t c) {
  if (c == '-') return 62;
  if (c == '_') return 63;
  const char *at = c != 0 ? strchr(kStandard, c) : NULL;
  return at != NULL ? (int)(at - kStandard) : -1;
}

static void fail(const char *what, const uint8_t *in, size_t n) {
  failures++;
  if (failures > 20) return;
  printf("FAIL: %s: \"", what);
  for (size_t i = 0; i < n; i++) printf(in[i] >= 0x20 && in[i] < 0x7f ? "%c" : "\\x%02x", in[i]);
  printf("\"\n");
}

static void check(const uint8_t *src, size_t n, bool vectors) {
  checks++;
  size_t room = n / 4 * 3;
  /* The input at the end of its allocation; a guard after the output's
   * room. */
  uint8_t *in = malloc(n > 0 ? n : 1), *out = malloc(room + 8);
  memcpy(in, src, n);
  memset(out, 0xa5, room + 8);
  size_t k = pbc_rt_base64_blocks(in, n, out);
  size_t bad = n;
  for (size_t i = 0; i < n; i++)
    if (digit_value(src[i]) < 0) {
      bad = i;
      break;
    }
  if (k % 16 != 0 || k > bad) fail("read past a byte that is no digit", src, n);
  else if (!vectors && k != 0) fail("decoded without vectors", src, n);
  else if (vectors && k + 24 <= n && k + 16 <= bad) fail("stopped early", src, n);
  else {
    for (size_t i = 0; i < k; i += 4) {
      uint32_t v = (uint32_t)digit_value(src[i]) << 18 | (uint32_t)digit_value(src[i + 1]) << 12 |
                   (uint32_t)digit_value(src[i + 2]) << 6 | (uint32_t)digit_value(src[i + 3]);
      uint8_t want[3] = {(uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
      if (memcmp(out + i / 4 * 3, want, 3) != 0) {
        fail("wrong bytes", src, n);
        break;
      }
    }
  }
  for (size_t i = room; i < room + 8; i++)
    if (out[i] != 0xa5) {
      fail("wrote past n / 4 * 3", src, n);
      break;
    }
  free(in);
  free(out);
}

static uint32_t seed = 12345;
static uint32_t next(void) {
  seed = seed * 1103515245u + 12345u;
  return seed >> 8;
}

static void random_digits(uint8_t *buf, size_t n) {
  /* One alphabet, the other, or both mixed. */
  uint32_t mode = next() % 3;
  for (size_t i = 0; i < n; i++) {
    const char *a = mode == 0 ? kStandard : mode == 1 ? kUrlSafe : next() % 2 ? kStandard : kUrlSafe;
    buf[i] = (uint8_t)a[next() % 64];
  }
}

static void every_byte_everywhere(bool vectors) {
  uint8_t buf[64];
  for (int c = 0; c < 256; c++)
    for (size_t at = 0; at < 48; at++) {
      random_digits(buf, sizeof buf);
      buf[at] = (uint8_t)c;
      check(buf, sizeof buf, vectors);
    }
}

static void random_strings(bool vectors) {
  uint8_t buf[400];
  for (int round = 0; round < 20000; round++) {
    size_t n = next() % (sizeof buf + 1);
    random_digits(buf, n);
    if (n > 0 && next() % 2) buf[next() % n] = (uint8_t)next();
    check(buf, n, vectors);
  }
}

int main(void) {
  static const struct {
    int impl;
    const char *name;
  } impls[] = {{PBC_RT_UTF8_GENERIC, "none"}, {PBC_RT_UTF8_SSSE3, "ssse3"}, {PBC_RT_UTF8_AVX2, "avx2"}};
  int best = PBC_RT_UTF8_GENERIC;
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2")) best = PBC_RT_UTF8_AVX2;
  else if (__builtin_cpu_supports("ssse3")) best = PBC_RT_UTF8_SSSE3;
#endif
  /* The first call's choice, before any pbc_rt_base64_use. */
  every_byte_everywhere(best != PBC_RT_UTF8_GENERIC);
  printf("decoders tested:");
  for (size_t i = 0; i < sizeof impls / sizeof *impls; i++) {
    if (!pbc_rt_base64_use(impls[i].impl)) {
      if (impls[i].impl == best) {
        printf("FAIL: decoder %s refused\n", impls[i].name);
        failures++;
      }
      continue;
    }
    printf(" %s", impls[i].name);
    bool vectors = impls[i].impl != PBC_RT_UTF8_GENERIC;
    every_byte_everywhere(vectors);
    random_strings(vectors);
  }
  printf("\n%d checks, %d failed\n", checks, failures);
  return failures != 0;
}
