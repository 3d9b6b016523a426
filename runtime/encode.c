/* Encoding entry point and the backward varint writer. Generated encoders
 * write each message back to front, so a sub-message's length is known when
 * its length prefix is written and nothing has to be sized twice. */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "pbc_rt.h"
#include "varint_back.h"


/* The generated code writes one- and two-byte varints inline, and longer
 * ones with the room writer below: this is the rest (near the front of an
 * exactly sized buffer), out of line, where the bytes below the varint may
 * not be written. */
PBC_NOINLINE uint8_t *pbc_rt_put_varint(uint8_t *end, uint64_t v) {
  return pbc_rt_varint_back(end, v);
}

/* Past 4 bytes, out of line: such values are rarer, and inlining the
 * 64-bit spread at every varint of every encoder costs more code than the
 * call costs time. */
PBC_NOINLINE static uint8_t *put_varint_slack_long(uint8_t *end, uint64_t v) {
  return pbc_rt_varint_back_slack(end, v);
}

/* 3 and 4 bytes (values below 2^28, the usual long varint) inline as one
 * 4-byte store, which needs only 4 free bytes below `end`: near the front
 * of an exactly sized buffer, where the 10 bytes of the longest form are
 * not free, such a value still takes it (google_message1's third field,
 * written a few bytes from the front). */
PBC_ALWAYS_INLINE uint8_t *pbc_rt_put_varint_room(uint8_t *end, uint64_t v,
                                                  int64_t room) {
  if (PBC_LIKELY(v < (UINT64_C(1) << 28))) {
#if PBC_WORD_STORES
    if (PBC_LIKELY(room >= 4)) return pbc_rt_varint_back_slack28(end, v);
#endif
  } else if (room >= PBC_MAX_VARINT_BYTES) {
    return put_varint_slack_long(end, v);
  }
  return pbc_rt_put_varint(end, v);
}

static void set_written(size_t *written, size_t n) {
  if (written != NULL) *written = n;
}

/* The message did not fit (or there was no buffer): its size `n` tells
 * the caller how big a buffer to retry with. Out of line: the fitting case
 * is the one to keep short. */
PBC_NOINLINE static pbc_status did_not_fit(size_t n, size_t *written) {
  /* libprotobuf refuses to serialize 2 GiB or more, and lengths on the wire
   * are read back as int32, so neither side could use such a message. */
  if (n > INT32_MAX) {
    set_written(written, 0);
    return PBC_ERR_TOO_LARGE;
  }
  set_written(written, n);
  return n == 0 ? PBC_OK : PBC_ERR_BUFFER_TOO_SMALL;
}

/* A larger cap than any encoding (they stay below 2 GiB) only means "no
 * limit": clamped, buf + cap stays a valid pointer, and what fits is below
 * INT32_MAX, so only the size path checks the limit. */
static size_t clamp_cap(size_t cap) {
  return cap > (size_t)INT32_MAX ? (size_t)INT32_MAX : cap;
}

/* One walk, backwards from buf + cap. Returns where the bytes start, NULL
 * when they do not fit (or there is no buffer). */
static uint8_t *encode_backwards(const void *m, uint8_t *buf, size_t cap,
                                 pbc_encode_fn encode) {
  /* An empty message writes nothing, and buf may be NULL when cap is 0. */
  uint8_t *start = buf ? encode(m, buf + cap, buf) : NULL;
  assert(start == NULL || (buf <= start && start <= buf + cap));
  return start;
}

/* The bytes the walk wrote at [start, buf + cap), moved to buf: nothing
 * when the buffer has the exact size, else a copy of the encoding
 * (T_encode_at_end has none). */
static pbc_status move_to_front(uint8_t *buf, size_t cap, uint8_t *start,
                                size_t *written) {
  size_t n = (size_t)(buf + cap - start);
  if (start != buf) memmove(buf, start, n);
  set_written(written, n);
  return PBC_OK;
}

/* T_encode: the bytes at buf. Only when they do not fit is the size
 * computed, to tell the caller how much is needed. */
pbc_status pbc_rt_encode(const void *m, uint8_t *buf, size_t cap,
                         size_t *written, pbc_size_fn size,
                         pbc_encode_fn encode) {
  cap = clamp_cap(cap);
  uint8_t *start = encode_backwards(m, buf, cap, encode);
  if (start == NULL) return did_not_fit(size(m), written);
  return move_to_front(buf, cap, start, written);
}

/* encode_backwards through the message's description (table_encode.c). */
static uint8_t *table_backwards(const pbc_message_desc *desc, const void *m,
                                uint8_t *buf, size_t cap) {
  uint8_t *start =
      buf ? pbc_table_encode_backwards(desc, m, buf + cap, buf) : NULL;
  assert(start == NULL || (buf <= start && start <= buf + cap));
  return start;
}

/* pbc_rt_encode through the message's description. Not inlined: a compact
 * message's T_encode is a call to it. */
PBC_NOINLINE pbc_status pbc_table_encode(const pbc_message_desc *desc,
                                         const void *m, uint8_t *buf,
                                         size_t cap, size_t *written) {
  cap = clamp_cap(cap);
  uint8_t *start = table_backwards(desc, m, buf, cap);
  if (start == NULL)
    return did_not_fit(pbc_table_encoded_size(desc, m), written);
  return move_to_front(buf, cap, start, written);
}

/* T_encode_at_end's report once the walk is done: false when it did not
 * fit (*start is then buf), and the caller computes the size. The fitting
 * case tests nothing but the two pointers. */
static PBC_ALWAYS_INLINE bool report_at_end(uint8_t *buf, size_t cap,
                                            uint8_t *first, uint8_t **start,
                                            size_t *written) {
  if (PBC_UNLIKELY(first == NULL)) {
    if (start != NULL) *start = buf;
    return false;
  }
  if (start != NULL) *start = first;
  set_written(written, (size_t)(buf + cap - first));
  return true;
}

/* T_encode_at_end: the bytes where the one walk leaves them, ending at
 * buf + cap. */
pbc_status pbc_rt_encode_at_end(const void *m, uint8_t *buf, size_t cap,
                                uint8_t **start, size_t *written,
                                pbc_size_fn size, pbc_encode_fn encode) {
  cap = clamp_cap(cap);
  uint8_t *first = encode_backwards(m, buf, cap, encode);
  if (!report_at_end(buf, cap, first, start, written))
    return did_not_fit(size(m), written);
  return PBC_OK;
}

PBC_NOINLINE pbc_status pbc_table_encode_at_end(const pbc_message_desc *desc,
                                                const void *m, uint8_t *buf,
                                                size_t cap, uint8_t **start,
                                                size_t *written) {
  cap = clamp_cap(cap);
  uint8_t *first = table_backwards(desc, m, buf, cap);
  if (!report_at_end(buf, cap, first, start, written))
    return did_not_fit(pbc_table_encoded_size(desc, m), written);
  return PBC_OK;
}
