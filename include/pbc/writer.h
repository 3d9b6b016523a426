/* pbc streaming writer: ProtoZero-style append-only serialization into
 * scattered chunks of memory (see docs/streaming.md).
 *
 * A pbc_writer writes into the current chunk [cur, end). Every append is
 * bounds-checked by an inline fast path; when a value does not fit, an
 * out-of-line slow path in writer.c writes what fits, asks the delegate for
 * the next chunk (get_new_buffer) and continues there, so values, strings
 * and reserved length bytes may straddle chunks. The stream is the
 * concatenation of the chunks in id order: every chunk but the last is
 * filled completely.
 *
 * Nested messages: begin writes the field's tag and reserves 4 bytes for
 * the length; finalize back-fills them as a redundant varint (7 is written
 * 87 80 80 00), which every protobuf parser accepts. When the chunk holding
 * those bytes has been handed off (the delegate says so when it returns a
 * new chunk), finalize sends the bytes to the delegate's patch callback
 * instead, as ProtoZero's patch list. A nested message holds at most
 * 2^28 - 1 bytes (what 4 varint bytes can say); a larger one fails the
 * writer with PBC_ERR_TOO_LARGE rather than writing a wrong length.
 *
 * Nothing here allocates. Open messages live in a stack inside the writer,
 * PBC_WRITER_MAX_DEPTH levels below the root. Errors are sticky: after the
 * first one every append is dropped and pbc_writer_status reports it. */
#ifndef PBC_WRITER_H
#define PBC_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pbc/pbc.h"
#include "pbc/port.h"
#include "pbc/wire_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Nested messages (and groups) below the root a writer can hold open. */
#define PBC_WRITER_MAX_DEPTH 100
/* The largest nested message: 4 redundant varint bytes hold 28 bits. */
#define PBC_MAX_NESTED_SIZE 0x0FFFFFFFu

typedef struct pbc_writer pbc_writer;

/* The user's side of a writer.
 *
 * get_new_buffer: called when the current chunk is full (and for the first
 *   chunk, at the first write) with the id of the chunk wanted (0, 1, 2,
 *   ...). Stores its bounds in *begin and *end (at least one byte) and
 *   returns true; returns false when there is no memory, which fails the
 *   writer with PBC_ERR_OUT_OF_MEMORY. The previous chunk is then complete
 *   except for length bytes still to be back-filled. Setting *committed
 *   (initially false) says that every chunk before the new one has been
 *   handed off: the writer never touches them again and sends what it still
 *   owes them through patch.
 * patch: `size` bytes (1 to 4) that belong at `offset` in committed chunk
 *   `chunk_id`, replacing what the writer left there. A length that
 *   straddles chunks arrives as one call per chunk. May be NULL only for a
 *   delegate that never commits (the writer ignores *committed without it).
 * ctx: passed to both. */
typedef struct pbc_writer_delegate {
  bool (*get_new_buffer)(void *ctx, uint32_t chunk_id, uint8_t **begin,
                         uint8_t **end, bool *committed);
  void (*patch)(void *ctx, uint32_t chunk_id, size_t offset,
                const uint8_t *bytes, size_t size);
  void *ctx;
} pbc_writer_delegate;

/* An open message: the root, a nested message or a group. Returned by
 * pbc_writer_root and the begin functions; valid until it is finalized
 * (directly, or by finalizing or writing to an ancestor). */
typedef struct pbc_msg {
  pbc_writer *writer;
  /* The first byte of the body while the 4 reserved length bytes right
   * before it are in the current chunk: finalize's fast path stores the
   * length at body - 4, the body's size being cur - body. NULL for the
   * root, groups, and messages whose length bytes straddle chunks or are
   * in an earlier chunk, which finalize handles through start and size_at
   * below. */
  uint8_t *body;
  /* Stream offset of the first byte of the body, kept while body is NULL. */
  uint64_t start;
  /* The end of the current chunk (the writer's end) while this is the
   * innermost open message, NULL otherwise: the fast paths' one compare,
   * cur + need <= limit, says both that m may append (an open child would
   * have to be finalized first; a finalized m drops the write) and that
   * the bytes fit. The runtime keeps it in step with the writer's end and
   * top. (Not next to body: gcc would pair the two stores of begin into
   * one vector store, which costs more.) */
  uint8_t *limit;
  /* A group's END_GROUP tag while it is open; 0 for a length-delimited
   * message and for every slot not open (finalize clears it), so that
   * begin need not store it. */
  uint32_t end_tag;
  /* Where each reserved length byte is, for the slow path: its address,
   * and its chunk as size_chunk + size_chunk_delta[i]; size_offset is the
   * first byte's offset in its chunk. Filled when the length straddles
   * chunks, or when the writer leaves the chunk holding it. */
  uint32_t size_chunk;
  uint32_t size_offset;
  uint8_t size_chunk_delta[4];
  uint8_t *size_at[4];
} pbc_msg;

struct pbc_writer {
  uint8_t *cur;        /* next byte to write */
  uint8_t *end;        /* end of the current chunk (== cur after an error) */
  pbc_msg *top;        /* the innermost open message */
  uint64_t base;       /* stream offset of cur is (uintptr_t)cur + base */
  uint8_t *chunk_begin;
  uint32_t chunk_id;   /* current chunk; UINT32_MAX before the first */
  uint32_t first_live; /* chunks below this id are committed */
  pbc_status status;   /* the first error, PBC_OK while none */
  /* A value that did not fit the current chunk is written here by the
   * inline code, then moved into the chunks by the next slow path
   * (cur/end/base point here meanwhile; saved_* hold the chunk's). */
  bool in_scratch;
  bool scratch_discard;  /* the value is dropped (error, finalized message) */
  uint8_t *saved_cur, *saved_end;
  uint64_t saved_base;
  uint8_t scratch[64];
  pbc_writer_delegate delegate;
  /* &stack[PBC_WRITER_MAX_DEPTH], which may not begin: begin compares m
   * with it in memory (one instruction fewer than computing it). */
  pbc_msg *deepest;
  /* [0] the root, [1..MAX_DEPTH] nested levels, [MAX_DEPTH + 1] a sink
   * handed out when a begin fails: writes to it are dropped. */
  pbc_msg stack[PBC_WRITER_MAX_DEPTH + 2];
};

/* ---- The writer ----------------------------------------------------------
 * The writer must not move while in use (messages point to it). */
void pbc_writer_init(pbc_writer *w, const pbc_writer_delegate *delegate);

/* The root message: the stream itself. Finalizing it finalizes every open
 * message and returns the bytes written since init; it stays usable. */
static inline pbc_msg *pbc_writer_root(pbc_writer *w) { return &w->stack[0]; }

/* Finalizes every open message; returns the writer's status. The stream
 * is complete once the delegate has applied the patches it was sent. */
pbc_status pbc_writer_finish(pbc_writer *w);

/* The first error (sticky), PBC_OK while none. */
pbc_status pbc_writer_status(const pbc_writer *w);

/* Bytes written so far (the stream offset of the next byte). */
uint64_t pbc_writer_position(pbc_writer *w);

/* Bytes used in the current (last) chunk: all of it is stream. */
size_t pbc_writer_chunk_used(pbc_writer *w);

/* Raw access at the current position, i.e. inside the innermost open
 * message; T_write(const T *m, pbc_writer *w) writes through these.
 * reserve: n contiguous bytes of the current chunk (cur advances past
 *   them), or NULL with no effect when they do not fit.
 * write: n bytes, straddling chunks as needed.
 * write_varint: one varint. */
uint8_t *pbc_writer_reserve(pbc_writer *w, size_t n);
void pbc_writer_write(pbc_writer *w, const void *p, size_t n);
void pbc_writer_write_varint(pbc_writer *w, uint64_t v);

/* T_write through the message's description (the table codec, pbc.h):
 * the same bytes and status for any message. */
pbc_status pbc_table_write(const pbc_message_desc *desc, const void *m,
                           pbc_writer *w);

/* T_write for a message known by its info (pbc.h, "Any message by its
 * info"): its generated T_write, or pbc_table_write. */
pbc_status pbc_message_write(const pbc_message_info *info, const void *m,
                             pbc_writer *w);

/* ---- Heap-backed writer ---------------------------------------------------
 * For tests and simple use: chunks of `chunk_size` bytes from malloc, kept
 * until destroy, never committed. Its writer is `&h->writer`. */
typedef struct pbc_heap_writer {
  pbc_writer writer;
  size_t chunk_size;
  uint8_t **chunks;
  size_t chunk_count;
  size_t chunk_capacity;
} pbc_heap_writer;

/* chunk_size 0 means 4096. */
void pbc_heap_writer_init(pbc_heap_writer *h, size_t chunk_size);
/* Bytes written (finalize or finish first for complete messages). */
size_t pbc_heap_writer_size(pbc_heap_writer *h);
size_t pbc_heap_writer_chunk_count(const pbc_heap_writer *h);
/* Chunk i and, in *size, how much of it is stream. */
const uint8_t *pbc_heap_writer_chunk(pbc_heap_writer *h, size_t i,
                                     size_t *size);
/* Copies the stream to out (at most cap bytes); returns the bytes copied. */
size_t pbc_heap_writer_copy(pbc_heap_writer *h, void *out, size_t cap);
/* Frees the chunks and starts an empty stream. */
void pbc_heap_writer_reset(pbc_heap_writer *h);
void pbc_heap_writer_destroy(pbc_heap_writer *h);

/* ---- Encoding helpers ----------------------------------------------------- */
static inline uint32_t pbc_zigzag32(int32_t v) {
  return ((uint32_t)v << 1) ^ (0u - ((uint32_t)v >> 31));
}
static inline uint64_t pbc_zigzag64(int64_t v) {
  return ((uint64_t)v << 1) ^ (0u - ((uint64_t)v >> 63));
}
static inline uint32_t pbc_float_bits(float v) {
  uint32_t u;
  memcpy(&u, &v, 4);
  return u;
}
static inline uint64_t pbc_double_bits(double v) {
  uint64_t u;
  memcpy(&u, &v, 8);
  return u;
}

/* A field's tag as the generated setters pass it: the tag varint's bytes as
 * a little-endian integer, and its length (1 to 5). Constant-fold when
 * field_number is a constant. (pbc_varint_bytes and pbc_varint_size of
 * pbc_make_tag compute the same, but change what GCC makes of calls whose
 * field_number is not a constant: one stays out of line, the other becomes
 * a bit scan and tips GCC's inlining of the caller.) */
static PBC_ALWAYS_INLINE uint64_t pbc_tag_bytes(uint32_t field_number,
                                                uint32_t wire_type) {
  uint64_t t = ((uint64_t)field_number << PBC_WIRE_TYPE_BITS) | wire_type;
  uint64_t out = 0;
  unsigned shift = 0;
  while (t >= 0x80) {
    out |= ((t & 0x7f) | 0x80) << shift;
    t >>= 7;
    shift += 8;
  }
  return out | (t << shift);
}
static PBC_ALWAYS_INLINE unsigned pbc_tag_len(uint32_t field_number) {
  /* The top bits do not fit a tag; then 7 bits a byte, the first 3 the
   * wire type's. */
  uint32_t t = field_number << PBC_WIRE_TYPE_BITS >> PBC_WIRE_TYPE_BITS;
  return t < (1u << 4) ? 1 : t < (1u << 11) ? 2 : t < (1u << 18) ? 3
       : t < (1u << 25) ? 4 : 5;
}

/* Element kinds of a packed run (what C array the values are). */
typedef enum pbc_packed_kind {
  PBC_PACKED_INT32,   /* int32_t, sign-extended varints (int32, enum) */
  PBC_PACKED_INT64,   /* int64_t or uint64_t varints (int64, uint64) */
  PBC_PACKED_UINT32,  /* uint32_t varints */
  PBC_PACKED_SINT32,  /* int32_t, zigzag varints */
  PBC_PACKED_SINT64,  /* int64_t, zigzag varints */
  PBC_PACKED_BOOL,    /* bool, one byte each */
  PBC_PACKED_FIXED32, /* 4-byte values: fixed32, sfixed32, float */
  PBC_PACKED_FIXED64  /* 8-byte values: fixed64, sfixed64, double */
} pbc_packed_kind;

/* What the inline appenders below are made of (pbc__*): not an API. */
#include "pbc/writer_internal.h"

/* ---- Appending to a message ------------------------------------------------
 * The generated T_w_* functions call the *_tag_* forms with constant tags:
 * `tag` holds the tag varint's tag_len bytes (pbc_tag_bytes, pbc_tag_len),
 * and tag_len 0 writes no tag. The *_field forms below take a field number
 * and are for hand-written code. Writing to a message first finalizes its
 * open children (as ProtoZero). Writes to a finalized message are dropped,
 * and so is everything after the writer's first error. */

/* Raw bytes: already-encoded fields. */
static PBC_ALWAYS_INLINE void pbc_msg_append_raw(pbc_msg *m, const void *data,
                                                 size_t size) {
  pbc_writer *w = m->writer;
  ptrdiff_t room = pbc__room(m, w);
  if (PBC_LIKELY(m->limit != NULL && room >= 0 && (size_t)room >= size)) {
    if (size) memcpy(w->cur, data, size);
    w->cur += size;
    return;
  }
  pbc__msg_raw_slow(m, data, size);
}

/* A tag (tag_len bytes of `tag`, none when tag_len is 0) and a varint. */
static PBC_ALWAYS_INLINE void pbc_msg_append_tag_varint(pbc_msg *m,
                                                        uint64_t tag,
                                                        unsigned tag_len,
                                                        uint64_t v) {
  pbc_writer *w = m->writer;
  uint8_t *p = pbc__tag_and_room(m, &w, tag, tag_len, 10);
  w->cur = pbc__put_varint(p, v);
}

/* The same for values known to fit 32 bits (at most 5 varint bytes). */
static PBC_ALWAYS_INLINE void pbc_msg_append_tag_varint32(pbc_msg *m,
                                                          uint64_t tag,
                                                          unsigned tag_len,
                                                          uint32_t v) {
  pbc_writer *w = m->writer;
  uint8_t *p = pbc__tag_and_room(m, &w, tag, tag_len, 8);
  w->cur = pbc__put_varint32(p, v);
}

/* An int32 or enum value: sign-extended to 64 bits as libprotobuf writes
 * it, so a negative one is 10 bytes, whose last 6 do not depend on it. */
static PBC_ALWAYS_INLINE void pbc_msg_append_tag_int32(pbc_msg *m,
                                                       uint64_t tag,
                                                       unsigned tag_len,
                                                       int32_t v) {
  pbc_writer *w = m->writer;
  uint8_t *p = pbc__tag_and_room(m, &w, tag, tag_len, 10);
  uint32_t u = (uint32_t)v;
  if (u < 0x80 || PBC_LIKELY(v >= 0)) { /* one compare for small values */
    w->cur = pbc__put_varint32(p, u);
    return;
  }
  pbc__store_le64(p, (pbc__spread28(u & 0x0fffffffu) | 0x80808080u) |
                         (uint64_t)((u >> 28) | 0xf0u) << 32 |
                         0xffffff0000000000ull);
  pbc__store_le16(p + 8, 0x01ff);
  w->cur = p + 10;
}

static PBC_ALWAYS_INLINE void pbc_msg_append_tag_fixed32(pbc_msg *m,
                                                         uint64_t tag,
                                                         unsigned tag_len,
                                                         uint32_t v) {
  pbc_writer *w = m->writer;
  uint8_t *p = pbc__tag_and_room(m, &w, tag, tag_len, 4);
  pbc__store_le32(p, v);
  w->cur = p + 4;
}

static PBC_ALWAYS_INLINE void pbc_msg_append_tag_fixed64(pbc_msg *m,
                                                         uint64_t tag,
                                                         unsigned tag_len,
                                                         uint64_t v) {
  pbc_writer *w = m->writer;
  uint8_t *p = pbc__tag_and_room(m, &w, tag, tag_len, 8);
  pbc__store_le64(p, v);
  w->cur = p + 8;
}

/* A tag, the length and the bytes (strings, bytes, encoded messages). */
static PBC_ALWAYS_INLINE void pbc_msg_append_tag_bytes(pbc_msg *m,
                                                       uint64_t tag,
                                                       unsigned tag_len,
                                                       const void *data,
                                                       size_t size) {
  pbc_writer *w = m->writer;
  if (PBC_LIKELY(size <= 32)) {
    /* Short values: tag and length byte in one store, an inline copy. */
    uint8_t *p = w->cur;
    if (PBC_UNLIKELY(!pbc__fits(m, w, tag_len + 1 + 32)))
      p = pbc__prepare(m, &w, tag_len + 1 + 32);
    pbc__store_le64(p, tag | ((uint64_t)size << (8 * tag_len)));
    p += tag_len + 1;
    pbc__copy_small(p, data, size);
    w->cur = p + size;
    return;
  }
  ptrdiff_t room = pbc__room(m, w);
  if (PBC_LIKELY(m->limit != NULL && room >= 0 && size <= (size_t)room &&
                 (size_t)room - size >= tag_len + 10)) {
    uint8_t *p = pbc__put_tag(w->cur, tag, tag_len);
    p = pbc__put_varint(p, size);
    if (size) memcpy(p, data, size); /* data may be NULL when size is 0 */
    w->cur = p + size;
    return;
  }
  pbc__msg_bytes_slow(m, tag, tag_len, data, size);
}

/* A packed run (nothing when count is 0): tag, length, the values. */
void pbc_msg_append_tag_packed(pbc_msg *m, uint64_t tag, unsigned tag_len,
                               pbc_packed_kind kind, const void *values,
                               size_t count);

/* Begins a nested message: writes the tag, reserves the 4 length bytes and
 * returns the child, now the innermost open message. More than
 * PBC_WRITER_MAX_DEPTH levels fail the writer with PBC_ERR_DEPTH_LIMIT
 * (the returned message then drops everything). */
static PBC_ALWAYS_INLINE pbc_msg *pbc_msg_begin_tag_nested(pbc_msg *m,
                                                           uint64_t tag,
                                                           unsigned tag_len) {
  pbc_writer *w = m->writer;
  if (PBC_LIKELY(pbc__fits(m, w, tag_len + 4) &&
                 m != w->deepest)) {
    pbc_msg *child = m + 1;
    uint8_t *p = pbc__put_tag(w->cur, tag, tag_len) + 4;
    child->body = p;
    child->limit = m->limit;
    m->limit = NULL;
    w->cur = p;
    w->top = child;
    return child;
  }
  return pbc__msg_begin_slow(m, tag, tag_len, 0);
}

/* Begins a group: writes its START_GROUP tag; finalizing it writes the
 * END_GROUP tag `end_tag` (pbc_make_tag(field_number, PBC_WIRE_END_GROUP))
 * instead of a length. */
static PBC_ALWAYS_INLINE pbc_msg *pbc_msg_begin_tag_group(pbc_msg *m,
                                                          uint64_t tag,
                                                          unsigned tag_len,
                                                          uint32_t end_tag) {
  pbc_writer *w = m->writer;
  if (PBC_LIKELY(pbc__fits(m, w, tag_len) &&
                 m != w->deepest)) {
    pbc_msg *child = m + 1;
    w->cur = pbc__put_tag(w->cur, tag, tag_len);
    child->body = NULL;
    child->end_tag = end_tag;
    child->start = pbc__position(w);
    child->limit = m->limit;
    m->limit = NULL;
    w->top = child;
    return child;
  }
  return pbc__msg_begin_slow(m, tag, tag_len, end_tag);
}

/* Ends m (and first its open children): back-fills its length, or writes
 * a group's END_GROUP tag. Returns the size of m's body (for the root: the
 * bytes written since init), SIZE_MAX when m was already finalized or its
 * length could not be written (pbc_writer_status says why). Finalize
 * children before their parent for the fast path; a parent's finalize
 * closes them too, but through the slow path. */
static PBC_ALWAYS_INLINE size_t pbc_msg_finalize(pbc_msg *m) {
  pbc_writer *w = m->writer;
  uint8_t *body = m->body, *limit = m->limit;
  if (PBC_LIKELY(limit != NULL && body != NULL)) {
    /* m is the innermost open message (it has a limit), and body is set
     * only while the length bytes are in the current chunk. */
    size_t size = (size_t)(w->cur - body);
    if (PBC_LIKELY(size <= PBC_MAX_NESTED_SIZE)) {
      pbc__put_redundant_size(body - 4, (uint32_t)size);
      m->limit = NULL;
      (m - 1)->limit = limit;
      w->top = m - 1;
      return size;
    }
  }
  return pbc__msg_finalize_slow(m);
}

/* ---- The same by field number, for hand-written code ---------------------- */
static PBC_ALWAYS_INLINE void pbc_msg_append_varint(pbc_msg *m, uint64_t v) {
  pbc_msg_append_tag_varint(m, 0, 0, v);
}
static PBC_ALWAYS_INLINE void pbc_msg_append_fixed32(pbc_msg *m, uint32_t v) {
  pbc_msg_append_tag_fixed32(m, 0, 0, v);
}
static PBC_ALWAYS_INLINE void pbc_msg_append_fixed64(pbc_msg *m, uint64_t v) {
  pbc_msg_append_tag_fixed64(m, 0, 0, v);
}
static PBC_ALWAYS_INLINE void pbc_msg_append_varint_field(pbc_msg *m,
                                                          uint32_t field,
                                                          uint64_t v) {
  pbc_msg_append_tag_varint(m, pbc_tag_bytes(field, PBC_WIRE_VARINT),
                            pbc_tag_len(field), v);
}
static PBC_ALWAYS_INLINE void pbc_msg_append_fixed32_field(pbc_msg *m,
                                                           uint32_t field,
                                                           uint32_t v) {
  pbc_msg_append_tag_fixed32(m, pbc_tag_bytes(field, PBC_WIRE_FIXED32),
                             pbc_tag_len(field), v);
}
static PBC_ALWAYS_INLINE void pbc_msg_append_fixed64_field(pbc_msg *m,
                                                           uint32_t field,
                                                           uint64_t v) {
  pbc_msg_append_tag_fixed64(m, pbc_tag_bytes(field, PBC_WIRE_FIXED64),
                             pbc_tag_len(field), v);
}
static PBC_ALWAYS_INLINE void pbc_msg_append_bytes_field(pbc_msg *m,
                                                         uint32_t field,
                                                         const void *data,
                                                         size_t size) {
  pbc_msg_append_tag_bytes(m, pbc_tag_bytes(field, PBC_WIRE_LEN),
                           pbc_tag_len(field), data, size);
}
static inline void pbc_msg_append_packed_field(pbc_msg *m, uint32_t field,
                                               pbc_packed_kind kind,
                                               const void *values,
                                               size_t count) {
  pbc_msg_append_tag_packed(m, pbc_tag_bytes(field, PBC_WIRE_LEN),
                            pbc_tag_len(field), kind, values, count);
}
static PBC_ALWAYS_INLINE pbc_msg *pbc_msg_begin_nested(pbc_msg *parent,
                                                       uint32_t field) {
  return pbc_msg_begin_tag_nested(parent, pbc_tag_bytes(field, PBC_WIRE_LEN),
                                  pbc_tag_len(field));
}
static PBC_ALWAYS_INLINE pbc_msg *pbc_msg_begin_group(pbc_msg *parent,
                                                      uint32_t field) {
  return pbc_msg_begin_tag_group(
      parent, pbc_tag_bytes(field, PBC_WIRE_START_GROUP), pbc_tag_len(field),
      pbc_make_tag(field, PBC_WIRE_END_GROUP));
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PBC_WRITER_H */
