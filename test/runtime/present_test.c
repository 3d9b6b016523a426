/* pbc_tbl_present_fields (runtime/table_internal.h), the table encoder's
 * scan of a struct for its present fields (pbc/desc.h's by_byte), against
 * the encoder's own per-field tests (pbc_tbl_implicit_set, a pointer not
 * NULL, a view's size not 0). Built three ways: with its SSE2 blocks, with
 * its portable words only (-U__SSE2__), and under ASan + UBSan, where the
 * struct ends its allocation so a read past it is caught.
 *
 * Descriptions: deterministic random sets of 8 to 63 fields of every kind
 * by_byte covers (implicit bools, 4- and 8-byte scalars, strings; repeated
 * fields; sub-message pointers), laid out as ProtoLayout would (by
 * alignment, the unknown fields' view among them, padding to 8 bytes), so
 * that structs end on a 16-byte block or on the 8-byte tail. Structs: every
 * byte random, then each field made absent (its presence bytes zero) or
 * present (one or all of them non-zero); a view's data pointer, the unknown
 * fields and padding keep their random bytes, which must not count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table_internal.h"

static int checks, failures, blocks, tails;
static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint32_t next(uint32_t n) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng % n);
}

/* What the encoder tests for a field, read the way its walks read it. */
static bool reference_set(const pbc_message_desc *d, const pbc_field_desc *f,
                          const uint8_t *m) {
  const uint8_t *at = m + f->offset;
  switch (f->kind) {
  case PBC_FIELD_REPEATED: return pbc_tbl_load_view(at).size != 0;
  case PBC_FIELD_POINTER: return pbc_tbl_load_ptr(at) != NULL;
  default: return pbc_tbl_is_set_other(d, f, m);
  }
}

/* Field types by the bytes their member takes: 16 (views, repeated), 8, 4
 * and 1. */
static const uint8_t kTypes[] = {PBC_TYPE_BOOL,   PBC_TYPE_INT32, PBC_TYPE_FLOAT,
                                 PBC_TYPE_FIXED32, PBC_TYPE_INT64, PBC_TYPE_DOUBLE,
                                 PBC_TYPE_SINT64, PBC_TYPE_STRING, PBC_TYPE_BYTES};

static uint32_t member_bytes(const pbc_field_desc *f) {
  if (f->kind == PBC_FIELD_REPEATED) return 16;
  if (f->kind == PBC_FIELD_POINTER) return 8;
  return pbc_type_value_bytes(f->type);
}

/* The members of `width` bytes laid out from `at`; returns where they end. */
static uint32_t place(pbc_field_desc *fields, uint32_t n, uint32_t width,
                      uint32_t at) {
  for (uint32_t i = 0; i < n; i++)
    if (member_bytes(&fields[i]) == width) {
      fields[i].offset = at;
      at += width;
    }
  return at;
}

/* A random description's fields and struct size; false when pbc_has_by_byte
 * refuses it (too many bytes a field). */
static bool describe(pbc_field_desc *fields, uint32_t n, uint32_t *size,
                     uint32_t *unknown) {
  for (uint32_t i = 0; i < n; i++) {
    pbc_field_desc *f = &fields[i];
    memset(f, 0, sizeof *f);
    f->number = i + 1;
    uint32_t pick = next(12);
    if (pick == 9) {
      f->kind = PBC_FIELD_REPEATED;
      f->type = PBC_TYPE_INT32;
    } else if (pick == 10) {
      f->kind = PBC_FIELD_POINTER;
      f->type = PBC_TYPE_MESSAGE;
    } else {
      f->kind = PBC_FIELD_IMPLICIT;
      f->type = kTypes[pick % 9];
    }
    f->zero_test = pbc_zero_test_of(f->kind, f->type);
  }
  /* Widest first, the unknown fields' view after the 16-byte members
   * (set outside the loop, where the compiler sees that it always is). */
  uint32_t at = place(fields, n, 16, 0);
  *unknown = at;
  at += 16;
  for (uint32_t width = 8; width >= 1; width /= 2)
    if (width != 2) at = place(fields, n, width, at);
  *size = (at + 7) / 8 * 8;
  return pbc_has_by_byte(fields, n, *size);
}

static void check(uint32_t n) {
  pbc_field_desc fields[63];
  uint32_t size, unknown;
  if (!describe(fields, n, &size, &unknown)) return;
  if (size % 16) tails++;
  else blocks++;
  uint8_t *by_byte = malloc(size);
  pbc_fill_by_byte(fields, n, size, by_byte);
  pbc_message_desc d;
  memset(&d, 0, sizeof d);
  d.fields = fields;
  d.field_count = n;
  d.other_count = n;
  d.size = size;
  d.unknown_offset = unknown;
  d.by_byte = by_byte;
  for (int round = 0; round < 40; round++) {
    uint8_t *m = malloc(size); /* ends its allocation */
    for (uint32_t k = 0; k < size; k++) m[k] = (uint8_t)next(256);
    for (uint32_t i = 0; i < n; i++) {
      uint32_t from, count = pbc_presence_bytes(&fields[i], &from);
      memset(m + from, 0, count);
      uint32_t how = next(4); /* absent, one byte, all bytes, absent */
      if (how == 1) m[from + next(count)] = (uint8_t)(1 + next(255));
      if (how == 2)
        for (uint32_t k = 0; k < count; k++) m[from + k] = (uint8_t)(1 + next(255));
    }
    uint64_t want = 0;
    for (uint32_t i = 0; i < n; i++)
      if (reference_set(&d, &fields[i], m)) want |= UINT64_C(1) << i;
    uint64_t got = pbc_tbl_present_fields(&d, m);
    checks++;
    if (got != want && ++failures <= 10)
      printf("FAIL: %u fields, %u bytes: present %016llx, expected %016llx\n", n, size,
             (unsigned long long)got, (unsigned long long)want);
    free(m);
  }
  free(by_byte);
}

int main(void) {
  for (int i = 0; i < 3000; i++) check(8 + next(56));
  /* Both ends of a struct were met: a 16-byte block, the 8-byte tail. */
  printf("structs ending on a block: %s, on the tail: %s\n", blocks ? "yes" : "no",
         tails ? "yes" : "no");
  printf("%d checks, %d failed\n", checks, failures);
  return failures != 0;
}
