/* The wire form a text parser builds (text format, JSON): both parsers
 * transcode their text to the binary wire format, field by field in the
 * order written, and hand that to the table decoder (pbc_table_decode),
 * so one decoder keeps repeated fields, oneofs, maps, defaults and the
 * required check in one place. This is the buffer they write into, and
 * the record of what each open message has been given, which the parsers
 * check their "given once" rules against. Not a user API.
 *
 * Functions returning bool fail only for want of memory; the parser
 * reports that where its text stands. */
#ifndef PBC_WIRE_BUILD_H
#define PBC_WIRE_BUILD_H

#include "table_internal.h"

typedef struct pbc_wire_build {
  uint8_t *out; /* the wire form so far */
  size_t len, cap;
  /* A frame per open message (see pbc_wb_frame_*), a stack. */
  uint32_t *seen;
  size_t seen_len, seen_cap;
  /* The singular extensions each open message has been given: pairs of
   * its frame and the extension's number, innermost last. */
  uint32_t *ext_seen;
  size_t ext_len, ext_cap;
  /* Where out and seen start, so that a small message costs no heap:
   * they move to the heap when they outgrow these. */
  uint8_t first_out[1024];
  uint32_t first_seen[64];
} pbc_wire_build;

/* An empty builder. Its first buffers need no zeroing: what parses JSON
 * starts one per message, and zeroing them cost more than a small
 * message's members. */
static inline void pbc_wb_init(pbc_wire_build *b) {
  memset(b, 0, offsetof(pbc_wire_build, first_out));
}

void pbc_wb_free(pbc_wire_build *b);

bool pbc_wb_reserve(pbc_wire_build *b, size_t n);

static inline void pbc_wb_varint_at(uint8_t *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *p = (uint8_t)v;
}

static inline bool pbc_wb_varint(pbc_wire_build *b, uint64_t v) {
  if (!pbc_wb_reserve(b, 10)) return false;
  pbc_wb_varint_at(b->out + b->len, v);
  b->len += pbc_varint_size(v);
  return true;
}

static inline bool pbc_wb_tag(pbc_wire_build *b, uint32_t number,
                              pbc_wire_type wire) {
  return pbc_wb_varint(b, (uint64_t)number << 3 | wire);
}

static inline bool pbc_wb_bytes(pbc_wire_build *b, const void *p, size_t n) {
  if (!pbc_wb_reserve(b, n)) return false;
  if (n) memcpy(b->out + b->len, p, n);
  b->len += n;
  return true;
}

/* A scalar field's record: its tag and `bits` (an integer's two's
 * complement, a float's or double's IEEE bits, a bool's 0 or 1) as its
 * type writes them (zigzag for sint32/sint64, fixed for the fixed types).
 * Not for strings, bytes or messages. */
bool pbc_wb_scalar(pbc_wire_build *b, const pbc_field_desc *f, uint64_t bits);
/* The value alone: an element of a packed run. */
static inline bool pbc_wb_scalar_value(pbc_wire_build *b,
                                       const pbc_field_desc *f,
                                       uint64_t bits) {
  pbc_wire_type wire = pbc_tbl_wire_type(f);
  if (wire == PBC_WIRE_FIXED32 || wire == PBC_WIRE_FIXED64) {
    size_t n = wire == PBC_WIRE_FIXED32 ? 4 : 8;
    if (!pbc_wb_reserve(b, n)) return false;
    for (size_t i = 0; i < n; i++) b->out[b->len++] = (uint8_t)(bits >> 8 * i);
    return true;
  }
  if (f->type == PBC_TYPE_SINT32) bits = pbc_zigzag32((int32_t)bits);
  else if (f->type == PBC_TYPE_SINT64) bits = pbc_zigzag64((int64_t)bits);
  else if (f->type == PBC_TYPE_BOOL) bits = bits != 0;
  return pbc_wb_varint(b, bits);
}

/* A length-delimited value: pbc_wb_open_len keeps a byte for the length
 * and returns where; pbc_wb_close_len writes it, moving the value up when
 * it needs more (a copy per nesting level at most: text is far larger
 * than its wire form). close_len fails with PBC_ERR_TOO_LARGE for 2 GiB
 * or more, or PBC_ERR_OUT_OF_MEMORY. */
static inline bool pbc_wb_open_len(pbc_wire_build *b, size_t *at) {
  if (!pbc_wb_reserve(b, 1)) return false;
  *at = b->len++;
  return true;
}
pbc_status pbc_wb_close_len(pbc_wire_build *b, size_t at);

/* ---- What a message has been given ----------------------------------------
 * A frame per open message: a bit per field (set once a singular field is
 * present, as the parser's rules see it), a word per oneof (its set
 * member's index plus one) and the wire form's length at the push. Frames are offsets into a stack a nested push
 * may move: use pbc_wb_frame_oneof's pointer at once. */

/* A frame's words: the field bits and a word per oneof, which a push
 * zeroes, then the length of the wire form at the push (two words:
 * size_t). */
static inline uint32_t pbc_wb_frame_zeroed(const pbc_message_desc *d) {
  return (d->field_count + 31) / 32 + d->oneof_count;
}
static inline size_t pbc_wb_frame_words(const pbc_message_desc *d) {
  return pbc_wb_frame_zeroed(d) + 2;
}

bool pbc_wb_frame_push_slow(pbc_wire_build *b, const pbc_message_desc *d,
                            size_t *frame);

/* Every JSON and text object pushes one, so the common frame (up to four
 * words of field bits and oneofs) is pushed inline: zeroed by two 8-byte
 * stores whatever its size, its length words stored over the rest. */
static inline bool pbc_wb_frame_push(pbc_wire_build *b,
                                     const pbc_message_desc *d,
                                     size_t *frame) {
  size_t zero = pbc_wb_frame_zeroed(d);
  if (PBC_UNLIKELY(zero > 4 || b->seen_cap - b->seen_len < 6))
    return pbc_wb_frame_push_slow(b, d, frame);
  uint32_t *w = b->seen + b->seen_len;
  const uint64_t none = 0;
  memcpy(w, &none, 8);
  memcpy(w + 2, &none, 8);
  w[zero] = (uint32_t)b->len;
  w[zero + 1] = (uint32_t)((uint64_t)b->len >> 32);
  *frame = b->seen_len;
  b->seen_len += zero + 2;
  return true;
}
void pbc_wb_frame_pop(pbc_wire_build *b, const pbc_message_desc *d);

static inline bool pbc_wb_frame_has(const pbc_wire_build *b, size_t frame,
                                    uint32_t index) {
  return b->seen[frame + index / 32] >> (index % 32) & 1;
}
static inline void pbc_wb_frame_set(pbc_wire_build *b, size_t frame,
                                    uint32_t index) {
  b->seen[frame + index / 32] |= 1u << (index % 32);
}
static inline uint32_t *pbc_wb_frame_oneof(pbc_wire_build *b,
                                           const pbc_message_desc *d,
                                           size_t frame, uint32_t oneof) {
  return &b->seen[frame + (d->field_count + 31) / 32 + oneof];
}
static inline size_t pbc_wb_frame_start(const pbc_wire_build *b,
                                        const pbc_message_desc *d,
                                        size_t frame) {
  const uint32_t *at = &b->seen[frame + (d->field_count + 31) / 32 + d->oneof_count];
  return (size_t)((uint64_t)at[1] << 32 | at[0]);
}

/* A singular extension given to the message of `frame`: as frame_has and
 * frame_set for a field. */
bool pbc_wb_ext_has(const pbc_wire_build *b, size_t frame, uint32_t number);
bool pbc_wb_ext_set(pbc_wire_build *b, size_t frame, uint32_t number);

/* ---- Extensions ---------------------------------------------------------- */

/* What an extension's values are parsed as: a one-field message whose field
 * is the extension (its type, named by its short name as messages about
 * its values name it, numbered as its records: for a MessageSet
 * extension, the item's message field). Points into itself: init it where
 * it stays. */
typedef struct pbc_wb_extension {
  pbc_field_desc field;
  pbc_field_names names;
  const void *links[1];
  pbc_message_desc one;
} pbc_wb_extension;

void pbc_wb_extension_init(pbc_wb_extension *x, const pbc_extension_info *e);

/* ---- google.protobuf.Any ------------------------------------------------- */

/* The canonical bytes of the message of type `type` whose fields stand
 * from `at` to the end (in text order, maybe repeated): what libprotobuf
 * stores in Any.value, which it serializes from a message, and writes for
 * an extension's message, which pbc keeps as bytes. The decode's status
 * (PBC_ERR_MISSING_REQUIRED unless allow_partial, ...). */
pbc_status pbc_wb_canonicalize(pbc_wire_build *b, const pbc_message_desc *type,
                               size_t at, uint32_t max_depth,
                               bool allow_partial);

/* An Any's two fields from the value's bytes standing from `at` to the
 * end: type_url (field 1) and value (field 2, unless empty) records in
 * their place. */
bool pbc_wb_any(pbc_wire_build *b, size_t at, const char *url, size_t url_len);

/* ---- The end of a parse ---------------------------------------------------- */

/* Decodes the wire form built into m, a message of type d (strings copied
 * into the arena: the wire form goes); on failure `why` (if not NULL)
 * holds the reason, "Message missing required fields." for a required
 * field missing, else the status's name. */
pbc_status pbc_wb_decode(const pbc_wire_build *b, const pbc_message_desc *d,
                         void *m, pbc_arena *arena, uint32_t max_depth,
                         bool allow_partial, char *why, size_t why_cap);

#endif /* PBC_WIRE_BUILD_H */
