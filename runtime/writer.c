/* The scattered writer's slow paths: crossing chunk boundaries, lengths
 * that straddle or whose chunk was handed off (patches), finalizing open
 * children, errors. The fast paths are the inline functions in
 * pbc/writer.h; everything here runs at most once per chunk or per call
 * that did not fit. */
#include <assert.h>
#include <string.h>

#include "pbc/pbc.h"
#include "pbc/writer.h"
#include "pbc_rt.h"

static uint8_t *put_varint_exact(uint8_t *p, uint64_t v);
PBC_NOINLINE static void leave_scratch(pbc_writer *w);

/* Every write first moves out what the inline code left in the scratch
 * buffer, if anything: the test inline, the move out of line. */
static inline void flush_scratch(pbc_writer *w) {
  if (PBC_UNLIKELY(w->in_scratch)) leave_scratch(w);
}

#ifndef NDEBUG
/* What the fast paths rely on, as every call into this file finds it:
 * the innermost open message is in the stack (never the sink), the
 * cursor is inside the current chunk (past its end only after the inline
 * code wrote into the scratch buffer), and that message's limit is the
 * chunk's end while every other message's is NULL. */
static bool writer_consistent(const pbc_writer *w) {
  if (w->top < &w->stack[0] || w->top > w->deepest ||
      w->deepest != &w->stack[PBC_WRITER_MAX_DEPTH])
    return false;
  if (!w->in_scratch && (uintptr_t)w->cur > (uintptr_t)w->end) return false;
  for (size_t i = 0; i < sizeof w->stack / sizeof w->stack[0]; i++) {
    const pbc_msg *m = &w->stack[i];
    if (m->writer != w || m->limit != (m == w->top ? w->end : NULL))
      return false;
  }
  return true;
}

/* Where a length's reserved bytes are (size_chunk_delta): the first in
 * size_chunk, each of the others in its predecessor's chunk or the next. */
static bool size_bytes_in_order(const pbc_msg *m) {
  for (int i = 1; i < 4; i++) {
    int step = m->size_chunk_delta[i] - m->size_chunk_delta[i - 1];
    if (step != 0 && step != 1) return false;
  }
  return m->size_chunk_delta[0] == 0;
}
#endif

/* The writer's end and top change only through these two, which keep the
 * innermost open message's limit (the fast paths' bound) equal to the end
 * and every other message's NULL. */
static void set_end(pbc_writer *w, uint8_t *end) {
  w->end = end;
  w->top->limit = end;
}

static void set_top(pbc_writer *w, pbc_msg *m) {
  assert(m >= &w->stack[0] && m <= w->deepest);
  w->top->limit = NULL;
  w->top = m;
  m->limit = w->end;
}

/* Records the first error; from now on nothing fits, so every append takes
 * a slow path, which drops it. */
static void fail(pbc_writer *w, pbc_status s) {
  assert(s != PBC_OK);
  if (w->status == PBC_OK) w->status = s;
  set_end(w, w->cur);
}

static bool is_open(const pbc_writer *w, const pbc_msg *m) {
  return m <= w->top;
}

static bool is_root(const pbc_writer *w, const pbc_msg *m) {
  return m == &w->stack[0];
}

void pbc_writer_init(pbc_writer *w, const pbc_writer_delegate *delegate) {
  memset(w, 0, sizeof *w);
  w->delegate = *delegate;
  w->chunk_id = UINT32_MAX; /* so the first chunk is id 0 */
  for (size_t i = 0; i < sizeof w->stack / sizeof w->stack[0]; i++)
    w->stack[i].writer = w;
  w->top = &w->stack[0];
  w->deepest = &w->stack[PBC_WRITER_MAX_DEPTH];
}

pbc_status pbc_writer_status(const pbc_writer *w) { return w->status; }

uint64_t pbc_writer_position(pbc_writer *w) {
  flush_scratch(w);
  return pbc__position(w);
}

size_t pbc_writer_chunk_used(pbc_writer *w) {
  flush_scratch(w);
  return (size_t)(w->cur - w->chunk_begin);
}

/* The slow-path view of m's reserved length bytes, which lie contiguous
 * before m->body in the current chunk. */
static void record_size_location(pbc_writer *w, pbc_msg *m) {
  uint8_t *field = m->body - 4;
  assert(w->chunk_begin <= field && m->body <= w->cur);
  m->size_chunk = w->chunk_id;
  m->size_offset = (uint32_t)(field - w->chunk_begin);
  for (int i = 0; i < 4; i++) {
    m->size_at[i] = field + i;
    m->size_chunk_delta[i] = 0;
  }
}

/* The writer leaves the current chunk: open messages whose length bytes are
 * in it remember where they are (finalize may have to patch them) and
 * where their body starts, and leave finalize's fast path, which only
 * knows the current chunk. */
static void leave_chunk(pbc_writer *w) {
  uintptr_t lo = (uintptr_t)w->chunk_begin, hi = (uintptr_t)w->end;
  for (pbc_msg *m = &w->stack[1]; m <= w->top; m++) {
    if (m->body == NULL) continue;
    uintptr_t at = (uintptr_t)(m->body - 4);
    if (at < lo || at >= hi) continue;
    record_size_location(w, m);
    m->start = (uint64_t)(uintptr_t)m->body + w->base;
    m->body = NULL;
  }
}

/* Asks the delegate for the next chunk; the current one is full. */
static bool next_chunk(pbc_writer *w) {
  assert(w->cur == w->end && !w->in_scratch);
  if (w->status != PBC_OK) return false;
  if (w->chunk_id == UINT32_MAX - 1) {
    fail(w, PBC_ERR_TOO_LARGE); /* chunk ids would wrap */
    return false;
  }
  if (w->chunk_begin != NULL) leave_chunk(w);
  uint32_t id = w->chunk_id + 1;
  uint8_t *begin = NULL, *end = NULL;
  bool committed = false;
  if (!w->delegate.get_new_buffer(w->delegate.ctx, id, &begin, &end,
                                  &committed) ||
      begin == NULL || end <= begin) {
    fail(w, PBC_ERR_OUT_OF_MEMORY);
    return false;
  }
  uint64_t pos = pbc__position(w);
  w->chunk_id = id;
  w->chunk_begin = begin;
  w->cur = begin;
  set_end(w, end);
  w->base = pos - (uint64_t)(uintptr_t)begin;
  /* Open messages' lengths are all in earlier chunks now: with those
   * committed, they go out as patches. */
  if (committed && w->delegate.patch != NULL) w->first_live = id;
  return true;
}

uint8_t *pbc_writer_reserve(pbc_writer *w, size_t n) {
  assert(writer_consistent(w));
  flush_scratch(w);
  if ((size_t)(w->end - w->cur) < n) return NULL;
  uint8_t *p = w->cur;
  w->cur += n;
  return p;
}

/* Bytes that do not fit in the current chunk: the rare path of every
 * write, out of line, so that a write inlined into a caller stays a
 * comparison and a copy. */
PBC_NOINLINE static void write_straddling(pbc_writer *w, const uint8_t *src,
                                          size_t n) {
  while (n > 0) {
    if (w->cur == w->end && !next_chunk(w)) return;
    size_t room = (size_t)(w->end - w->cur);
    size_t k = n < room ? n : room;
    memcpy(w->cur, src, k);
    w->cur += k;
    src += k;
    n -= k;
  }
}

void pbc_writer_write(pbc_writer *w, const void *data, size_t n) {
  flush_scratch(w);
  if (PBC_LIKELY((size_t)(w->end - w->cur) >= n)) {
    if (n != 0) { /* cur is null before the first chunk */
      memcpy(w->cur, data, n);
      w->cur += n;
    }
    return;
  }
  write_straddling(w, data, n);
}

/* pbc_writer_write's fast path again, not a call of it: a varint is never
 * empty, so its copy needs no test for a writer without a chunk yet (the
 * call cost a nested T_write 0.7%: its forward path's varints come here). */
void pbc_writer_write_varint(pbc_writer *w, uint64_t v) {
  uint8_t buf[PBC_MAX_VARINT_BYTES];
  flush_scratch(w);
  size_t n = (size_t)(put_varint_exact(buf, v) - buf);
  if (PBC_LIKELY((size_t)(w->end - w->cur) >= n)) {
    memcpy(w->cur, buf, n);
    w->cur += n;
    return;
  }
  write_straddling(w, buf, n);
}

static void write_tag(pbc_writer *w, uint64_t tag, unsigned tag_len) {
  uint8_t buf[8];
  if (tag_len == 0) return;
  pbc__put_tag(buf, tag, tag_len);
  pbc_writer_write(w, buf, tag_len);
}

/* ---- The scratch buffer ------------------------------------------------------ */

/* Moves a value the inline code wrote into the scratch buffer to the
 * chunks (where it may straddle), and points the writer back at them. */
static void leave_scratch(pbc_writer *w) {
  assert(w->scratch <= w->cur && w->cur <= w->scratch + sizeof w->scratch);
  size_t n = (size_t)(w->cur - w->scratch);
  w->in_scratch = false;
  w->cur = w->saved_cur;
  set_end(w, w->saved_end);
  w->base = w->saved_base;
  if (!w->scratch_discard && w->status == PBC_OK)
    pbc_writer_write(w, w->scratch, n);
}

/* Points the inline code at the scratch buffer. Open messages leave
 * finalize's fast path, which computes lengths from cur. */
static uint8_t *enter_scratch(pbc_writer *w, bool discard) {
  assert(!w->in_scratch);
  for (pbc_msg *m = &w->stack[1]; m <= w->top; m++) {
    if (m->body == NULL) continue;
    record_size_location(w, m);
    m->start = (uint64_t)(uintptr_t)m->body + w->base;
    m->body = NULL;
  }
  uint64_t pos = pbc__position(w);
  w->saved_cur = w->cur;
  w->saved_end = w->end;
  w->saved_base = w->base;
  w->base = pos - (uint64_t)(uintptr_t)w->scratch;
  /* cur will be past end after the write: the next write is slow. */
  w->cur = w->scratch;
  set_end(w, w->scratch);
  w->in_scratch = true;
  w->scratch_discard = discard;
  return w->scratch;
}

static bool make_top(pbc_msg *m);

uint8_t *pbc__msg_prepare(pbc_msg *m, size_t need) {
  pbc_writer *w = m->writer;
  assert(writer_consistent(w) && need <= sizeof w->scratch);
  if (!make_top(m)) return enter_scratch(w, true);
  if (w->end - w->cur >= (ptrdiff_t)need) return w->cur;
  /* At the end of a chunk, the value usually fits the next one. */
  if (w->cur == w->end && next_chunk(w) && w->end - w->cur >= (ptrdiff_t)need)
    return w->cur;
  return enter_scratch(w, w->status != PBC_OK);
}

/* ---- Messages -------------------------------------------------------------- */

/* Sends `n` length bytes starting at byte `i` of m's reserved bytes, all in
 * committed chunk `chunk`, to the delegate. */
static void patch_bytes(pbc_writer *w, const pbc_msg *m, const uint8_t *bytes,
                        int i, int n, uint32_t chunk) {
  /* Only a delegate with patch commits (next_chunk). */
  assert(w->delegate.patch != NULL && chunk < w->first_live);
  assert(i >= 0 && n >= 1 && i + n <= 4);
  /* Byte i is the first of its chunk unless that is the first byte's chunk. */
  size_t offset = m->size_chunk_delta[i] == 0 ? m->size_offset + (size_t)i : 0;
  w->delegate.patch(w->delegate.ctx, chunk, offset, bytes + i, (size_t)n);
}

/* Back-fills m's length through size_at: directly into chunks the writer
 * still holds, as patches for the committed ones. */
static void store_size_slow(pbc_writer *w, pbc_msg *m, uint32_t size) {
  assert(size_bytes_in_order(m));
  uint8_t bytes[4];
  pbc__put_redundant_size(bytes, size);
  int i = 0;
  while (i < 4) {
    uint32_t chunk = m->size_chunk + m->size_chunk_delta[i];
    int n = 1;
    while (i + n < 4 && m->size_chunk_delta[i + n] == m->size_chunk_delta[i])
      n++;
    if (chunk >= w->first_live) {
      for (int k = i; k < i + n; k++) *m->size_at[k] = bytes[k];
    } else {
      patch_bytes(w, m, bytes, i, n, chunk);
    }
    i += n;
  }
}

/* Ends the innermost open message m. */
static size_t finalize_top(pbc_writer *w, pbc_msg *m) {
  assert(m == w->top);
  /* body is set only while the length bytes are in the current chunk. */
  assert(m->body == NULL ||
         (w->chunk_begin <= m->body - 4 && m->body <= w->cur));
  uint64_t size = m->body != NULL ? (uint64_t)(w->cur - m->body)
                                  : pbc__position(w) - m->start;
  if (is_root(w, m)) return w->status == PBC_OK ? (size_t)size : SIZE_MAX;
  set_top(w, m - 1);
  if (m->end_tag != 0) {
    uint32_t end_tag = m->end_tag;
    m->end_tag = 0; /* closed slots have none: begin does not store it */
    pbc_writer_write_varint(w, end_tag);
  } else if (size > PBC_MAX_NESTED_SIZE) {
    fail(w, PBC_ERR_TOO_LARGE);
  } else if (w->status == PBC_OK) {
    if (m->body != NULL)
      pbc__put_redundant_size(m->body - 4, (uint32_t)size);
    else
      store_size_slow(w, m, (uint32_t)size);
  }
  return w->status == PBC_OK ? (size_t)size : SIZE_MAX;
}

/* Makes m the innermost open message by finalizing its open children.
 * False when the write must be dropped (an error, or m was finalized). */
static bool make_top(pbc_msg *m) {
  pbc_writer *w = m->writer;
  flush_scratch(w);
  if (!is_open(w, m)) return false;
  while (w->top != m) finalize_top(w, w->top);
  assert(writer_consistent(w));
  return w->status == PBC_OK;
}

size_t pbc__msg_finalize_slow(pbc_msg *m) {
  pbc_writer *w = m->writer;
  assert(writer_consistent(w));
  flush_scratch(w);
  if (!is_open(w, m)) return SIZE_MAX;
  while (w->top != m) finalize_top(w, w->top);
  return finalize_top(w, m);
}

pbc_status pbc_writer_finish(pbc_writer *w) {
  pbc__msg_finalize_slow(&w->stack[0]);
  return w->status;
}

void pbc__msg_bytes_slow(pbc_msg *m, uint64_t tag, unsigned tag_len,
                         const void *data, size_t size) {
  if (!make_top(m)) return;
  /* Parsers read lengths as int32: a longer value could not be read back. */
  if (size > INT32_MAX) {
    fail(m->writer, PBC_ERR_TOO_LARGE);
    return;
  }
  write_tag(m->writer, tag, tag_len);
  pbc_writer_write_varint(m->writer, size);
  pbc_writer_write(m->writer, data, size);
}

void pbc__msg_raw_slow(pbc_msg *m, const void *data, size_t size) {
  if (!make_top(m)) return;
  pbc_writer_write(m->writer, data, size);
}

/* Reserves the 4 length bytes of `child`, which may straddle chunks. */
static bool reserve_size(pbc_writer *w, pbc_msg *child) {
  if ((size_t)(w->end - w->cur) >= 4) {
    w->cur += 4;
    child->body = w->cur;
    return true;
  }
  child->body = NULL;
  for (int i = 0; i < 4; i++) {
    if (w->cur == w->end && !next_chunk(w)) return false;
    if (i == 0) {
      child->size_chunk = w->chunk_id;
      child->size_offset = (uint32_t)(w->cur - w->chunk_begin);
    }
    child->size_at[i] = w->cur;
    child->size_chunk_delta[i] = (uint8_t)(w->chunk_id - child->size_chunk);
    *w->cur++ = 0; /* a placeholder until finalize */
  }
  return true;
}

pbc_msg *pbc__msg_begin_slow(pbc_msg *m, uint64_t tag, unsigned tag_len,
                             uint32_t end_tag) {
  pbc_writer *w = m->writer;
  pbc_msg *sink = &w->stack[PBC_WRITER_MAX_DEPTH + 1];
  if (!make_top(m)) return sink;
  if (m == &w->stack[PBC_WRITER_MAX_DEPTH]) {
    fail(w, PBC_ERR_DEPTH_LIMIT);
    return sink;
  }
  pbc_msg *child = m + 1;
  write_tag(w, tag, tag_len);
  child->end_tag = end_tag;
  if (end_tag != 0) {
    child->body = NULL;
  } else if (!reserve_size(w, child)) {
    return sink;
  }
  if (w->status != PBC_OK) return sink;
  child->start = pbc__position(w); /* used while body is NULL */
  set_top(w, child);
  return child;
}

/* ---- Packed runs ------------------------------------------------------------ */

/* Writes exactly the varint's bytes (the inline encoder may write past
 * them, which an exactly reserved span cannot take). */
static uint8_t *put_varint_exact(uint8_t *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *p++ = (uint8_t)v;
  return p;
}


/* Element i of a packed array as the varint (or fixed value) it becomes. */
static uint64_t packed_value(pbc_packed_kind kind, const void *values,
                             size_t i) {
  switch (kind) {
  case PBC_PACKED_INT32: return (uint64_t)(int64_t)((const int32_t *)values)[i];
  case PBC_PACKED_INT64: return ((const uint64_t *)values)[i];
  case PBC_PACKED_UINT32: return ((const uint32_t *)values)[i];
  case PBC_PACKED_SINT32: return pbc_zigzag32(((const int32_t *)values)[i]);
  case PBC_PACKED_SINT64: return pbc_zigzag64(((const int64_t *)values)[i]);
  case PBC_PACKED_BOOL: return ((const bool *)values)[i] ? 1 : 0;
  case PBC_PACKED_FIXED32: return ((const uint32_t *)values)[i];
  case PBC_PACKED_FIXED64: return ((const uint64_t *)values)[i];
  }
  return 0;
}

static unsigned fixed_width(pbc_packed_kind kind) {
  return kind == PBC_PACKED_FIXED32 ? 4 : kind == PBC_PACKED_FIXED64 ? 8 : 0;
}

/* The payload size of a packed run; false when it is not representable
 * as a length (2 GiB or more). */
static bool packed_size(pbc_packed_kind kind, const void *values,
                        size_t count, uint64_t *out) {
  unsigned width = fixed_width(kind);
  if (width != 0) {
    if (count > INT32_MAX / width) return false;
    *out = (uint64_t)count * width;
    return true;
  }
  uint64_t total = 0;
  for (size_t i = 0; i < count; i++) {
    total += pbc_varint_size(packed_value(kind, values, i));
    if (total > INT32_MAX) return false;
  }
  *out = total;
  return true;
}

/* Writes the values, element by element through the writer (they may
 * straddle), or in one go when they fit the current chunk. */
static void write_packed_values(pbc_writer *w, pbc_packed_kind kind,
                                const void *values, size_t count,
                                uint64_t size) {
  unsigned width = fixed_width(kind);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  /* The array already is the wire form. */
  if (width != 0) {
    pbc_writer_write(w, values, (size_t)size);
    return;
  }
#endif
  uint8_t *p = pbc_writer_reserve(w, (size_t)size);
  for (size_t i = 0; i < count; i++) {
    uint64_t v = packed_value(kind, values, i);
    if (p != NULL) {
      if (width == 4) pbc__store_le32(p, (uint32_t)v), p += 4;
      else if (width == 8) pbc__store_le64(p, v), p += 8;
      else p = put_varint_exact(p, v);
    } else if (width != 0) {
      uint8_t buf[8];
      pbc__store_le64(buf, v);
      pbc_writer_write(w, buf, width);
    } else {
      pbc_writer_write_varint(w, v);
    }
  }
}

void pbc_msg_append_tag_packed(pbc_msg *m, uint64_t tag, unsigned tag_len,
                               pbc_packed_kind kind, const void *values,
                               size_t count) {
  /* An empty packed run is nothing, as libprotobuf writes it. */
  if (count == 0) return;
  if (!make_top(m)) return;
  pbc_writer *w = m->writer;
  uint64_t size;
  if (!packed_size(kind, values, count, &size)) {
    fail(w, PBC_ERR_TOO_LARGE);
    return;
  }
  write_tag(w, tag, tag_len);
  pbc_writer_write_varint(w, size);
  write_packed_values(w, kind, values, count, size);
}
