/* Unknown fields, kept raw so they re-serialize byte for byte. */
#include <assert.h>
#include <string.h>

#include "pbc_rt.h"

static bool in_input(const pbc_decoder *d, const uint8_t *p) {
  return p >= d->input_begin && p < d->input_end;
}

/* Copies [start, start + n) after the unknown fields into an arena buffer
 * grown like a repeated field (capacity implied by the size); a view of the
 * input is copied out first. */
static bool append_copy(pbc_decoder *d, pbc_bytes *unknown,
                        const uint8_t *start, size_t n) {
  uint8_t *buf;
  if (unknown->size == 0 || in_input(d, unknown->data)) {
    buf = pbc_rt_grow(d, NULL, 0, unknown->size + n, 1);
    if (buf == NULL) return false;
    if (unknown->size) memcpy(buf, unknown->data, unknown->size);
  } else {
    buf = pbc_rt_grow(d, (void *)unknown->data, unknown->size, n, 1);
    if (buf == NULL) return false;
  }
  memcpy(buf + unknown->size, start, n);
  unknown->data = buf;
  unknown->size += n;
  return true;
}

bool pbc_rt_keep_unknown(pbc_decoder *d, pbc_bytes *unknown,
                         const uint8_t *start, const uint8_t *end) {
  /* A field the decoder has just read, so a run of the input. */
  assert(d->input_begin <= start && start <= end && end <= d->input_end);
  size_t n = (size_t)(end - start);
  /* Zero-copy while the unknown fields are one run of the input: the
   * common case of unknown fields at the end of a message. */
  if (unknown->size == 0) {
    unknown->data = start;
    unknown->size = n;
    return true;
  }
  if (in_input(d, unknown->data) && unknown->data + unknown->size == start) {
    unknown->size += n;
    return true;
  }
  return append_copy(d, unknown, start, n);
}

bool pbc_rt_keep_unknown_varint(pbc_decoder *d, pbc_bytes *unknown,
                                uint64_t value, uint32_t number) {
  assert(number >= 1 && number <= PBC_MAX_FIELD_NUMBER);
  uint8_t record[PBC_MAX_TAG_BYTES + PBC_MAX_VARINT_BYTES];
  /* Shifted in 64 bits, as the value is: for a field number the same tag
   * as pbc_make_tag's. */
  size_t n = pbc_rt_put_varint_forward(
      record, (uint64_t)number << PBC_WIRE_TYPE_BITS | PBC_WIRE_VARINT);
  n += pbc_rt_put_varint_forward(record + n, value);
  return append_copy(d, unknown, record, n);
}

bool pbc_rt_bytes_equal(const uint8_t *a, size_t a_size, const uint8_t *b,
                        size_t b_size) {
  return a_size == b_size && (a_size == 0 || memcmp(a, b, a_size) == 0);
}
