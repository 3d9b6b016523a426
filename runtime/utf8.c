/* UTF-8 validation for proto3 string fields: the strict rule of the Unicode
 * standard (Table 3-7), which libprotobuf applies too. No overlong forms, no
 * surrogates, nothing above U+10FFFF. */
#include <stdint.h>
#include <string.h>

#include "pbc_rt.h"

/* True when the 8 bytes at p are all ASCII. memcpy keeps the unaligned load
 * legal; compilers turn it into one instruction. */
static bool ascii8(const uint8_t *p) {
  uint64_t w;
  memcpy(&w, p, sizeof w);
  return (w & 0x8080808080808080ull) == 0;
}

static bool is_continuation(uint8_t b) {
  return (b & 0xc0) == 0x80;
}

/* Checks the multi-byte sequence at p (p[0] >= 0x80); returns the position
 * after it, or NULL when it is not well-formed. The lead byte fixes the length
 * and the range of the second byte: narrowing that range is what rules out
 * overlongs (E0, F0), surrogates (ED) and code points above U+10FFFF (F4). */
static const uint8_t *skip_sequence(const uint8_t *p, const uint8_t *end) {
  uint8_t lead = p[0];
  uint8_t lo = 0x80, hi = 0xbf;
  size_t len;
  if (lead >= 0xc2 && lead <= 0xdf) {
    len = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    len = 3;
    if (lead == 0xe0) lo = 0xa0;
    if (lead == 0xed) hi = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    len = 4;
    if (lead == 0xf0) lo = 0x90;
    if (lead == 0xf4) hi = 0x8f;
  } else {
    /* 80..BF continue a sequence, C0/C1 only start overlongs, F5..FF would
     * encode past U+10FFFF. */
    return NULL;
  }
  if ((size_t)(end - p) < len) return NULL;
  if (p[1] < lo || p[1] > hi) return NULL;
  for (size_t i = 2; i < len; i++)
    if (!is_continuation(p[i])) return NULL;
  return p + len;
}

bool pbc_rt_utf8_valid(const uint8_t *p, size_t n) {
  if (n == 0) return true;
  const uint8_t *end = p + n;
  while (p < end) {
    if ((size_t)(end - p) >= 8 && ascii8(p)) {
      p += 8;
    } else if (*p < 0x80) {
      p++;
    } else {
      p = skip_sequence(p, end);
      if (p == NULL) return false;
    }
  }
  return true;
}
