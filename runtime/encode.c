/* Encoding entry point and the backward varint writer. Generated encoders
 * write each message back to front, so a sub-message's length is known when
 * its length prefix is written and nothing has to be sized twice. */
#include <stdint.h>
#include <string.h>

#include "pbc_rt.h"


uint8_t *pbc_rt_put_varint(uint8_t *end, uint64_t v) {
  uint8_t *start = end - pbc_rt_varint_size(v);
  uint8_t *p = start;
  while (v >= 0x80) {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *p = (uint8_t)v;
  return start;
}

static void set_written(size_t *written, size_t n) {
  if (written != NULL) *written = n;
}

/* One walk: the encoder writes backwards from the end of the buffer,
 * checking its room, and the result moves to the front. Only when it does
 * not fit is the size computed, to tell the caller how much is needed. */
pbc_status pbc_rt_encode(const void *m, uint8_t *buf, size_t cap,
                         size_t *written, pbc_size_fn size,
                         pbc_encode_fn encode) {
  /* No encoding reaches 2 GiB (see below): a larger cap only means "no
   * limit", and clamping it keeps buf + cap a valid pointer. */
  if (cap > (size_t)INT32_MAX) cap = (size_t)INT32_MAX;
  /* An empty message writes nothing, and buf may be NULL when cap is 0. */
  uint8_t *start = buf ? encode(m, buf + cap, buf) : NULL;
  size_t n = start ? (size_t)(buf + cap - start) : size(m);
  /* libprotobuf refuses to serialize 2 GiB or more, and lengths on the wire
   * are read back as int32, so neither side could use such a message. */
  if (n > INT32_MAX) {
    set_written(written, 0);
    return PBC_ERR_TOO_LARGE;
  }
  if (start == NULL && n > 0) {
    /* Tells the caller how big a buffer to retry with. */
    set_written(written, n);
    return PBC_ERR_BUFFER_TOO_SMALL;
  }
  if (n > 0 && start != buf) memmove(buf, start, n);
  set_written(written, n);
  return PBC_OK;
}
