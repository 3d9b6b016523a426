/* Wire-format reading shared by all generated decoders: varints, tags,
 * skipping unknown fields, nesting depth and arena memory. The rules follow
 * libprotobuf 3.21, so both accept and reject the same inputs. */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "pbc_rt.h"

_Static_assert(PBC_RT_READ_SLOP >= PBC_MAX_TAG_BYTES + PBC_MAX_VARINT_BYTES,
               "below the read limit, a tag and a varint need no check");

const uint8_t *pbc_rt_fail(pbc_decoder *d, pbc_status s) {
  assert(s != PBC_OK);
  /* The first error is the one that explains the input; later ones are
   * usually its echoes as the decoders unwind. */
  if (d->status == PBC_OK) d->status = s;
  return NULL;
}

/* 0 past the end: a fast path that read past a sub-message's end (see
 * pbc_rt_read_limit) comes here with p > end, and that is truncated. */
static size_t bytes_left(const uint8_t *p, const uint8_t *end) {
  return p < end ? (size_t)(end - p) : 0;
}

const uint8_t *pbc_rt_read_limit(const pbc_decoder *d, const uint8_t *end) {
  /* A message ends inside the input: lengths are checked against it. */
  assert(d->input_begin <= end && end <= d->input_end);
  return end < d->read_end ? end : d->read_end;
}

static void set_input(pbc_decoder *d, const uint8_t *buf, size_t len) {
  d->input_begin = buf;
  d->input_end = buf + len;
  d->read_end = len >= PBC_RT_READ_SLOP ? buf + len - PBC_RT_READ_SLOP : buf;
  assert(d->input_begin <= d->read_end && d->read_end <= d->input_end);
}

/* The 7-bit groups of up to eight varint bytes (continuation bits
 * cleared), packed together in three steps: each keeps the low half of a
 * lane and moves the high half down over the gap. */
static uint64_t pack_groups(uint64_t x) {
  uint64_t lo = x & 0x007f007f007f007full;
  x = lo | (x ^ lo) >> 1;
  lo = x & 0x00003fff00003fffull;
  x = lo | (x ^ lo) >> 2;
  lo = x & 0x000000000fffffffull;
  return lo | (x ^ lo) >> 4;
}

/* Varints near the end of the input, and the errors: rare enough for a
 * call of their own, which keeps pbc_rt_varint small enough to inline. */
PBC_NOINLINE static const uint8_t *
varint_slow(pbc_decoder *d, const uint8_t *p, const uint8_t *end,
            uint64_t *out) {
  size_t avail = bytes_left(p, end);
  size_t n = avail < PBC_MAX_VARINT_BYTES ? avail : PBC_MAX_VARINT_BYTES;
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t b = p[i];
    /* In the 10th byte only the low bit fits; libprotobuf drops the rest
     * rather than rejecting the varint, and so do we. */
    v |= (uint64_t)(b & 0x7f) << (7 * i);
    if (b < 0x80) {
      *out = v;
      return p + i + 1;
    }
  }
  if (n == PBC_MAX_VARINT_BYTES)
    return pbc_rt_fail(d, PBC_ERR_MALFORMED_VARINT);
  return pbc_rt_fail(d, PBC_ERR_TRUNCATED);
}

/* A varint at p, which has ten bytes of input after it, from one 8-byte
 * load: up to 8 bytes without a branch per byte. Its bytes are those up to
 * the first without a continuation bit, which (ends ^ (ends - 1)) masks
 * (all eight when they all continue); pack_groups joins their 7-bit groups.
 * Bytes 9 and 10 (values of 2^56 and up, negative int32/int64) follow one
 * at a time; in the 10th only the low bit fits (see varint_slow). NULL when
 * all ten continue (malformed). */
static inline const uint8_t *varint_from_word(const uint8_t *p, uint64_t *out) {
  uint64_t w;
  memcpy(&w, p, sizeof w);
  uint64_t ends = ~w & 0x8080808080808080ull;
  uint64_t x = pack_groups(w & (ends ^ (ends - 1)) & 0x7f7f7f7f7f7f7f7full);
  if (ends != 0) {
    *out = x;
    return p + ((unsigned)__builtin_ctzll(ends) >> 3) + 1;
  }
  uint8_t b8 = p[8];
  if (b8 < 0x80) {
    *out = x | (uint64_t)b8 << 56;
    return p + 9;
  }
  uint8_t b9 = p[9];
  if (b9 < 0x80) {
    *out = x | (uint64_t)(b8 & 0x7f) << 56 | (uint64_t)b9 << 63;
    return p + 10;
  }
  return NULL;
}

const uint8_t *pbc_rt_varint_unchecked(pbc_decoder *d, const uint8_t *p,
                                       const uint8_t *end, uint64_t *out) {
  /* Callers read here only where the input holds a whole varint: below the
   * read limit, or that far before the end of a packed run. */
  assert(d->input_begin <= p && p <= d->input_end &&
         d->input_end - p >= PBC_MAX_VARINT_BYTES);
  const uint8_t *next = varint_from_word(p, out);
  return next != NULL ? next : varint_slow(d, p, end, out);
}

const uint8_t *pbc_rt_varint_long(pbc_decoder *d, const uint8_t *p,
                                  const uint8_t *end, uint64_t *out) {
  return pbc_rt_varint_unchecked(d, p, end, out);
}

const uint8_t *pbc_rt_varint(pbc_decoder *d, const uint8_t *p,
                             const uint8_t *end, uint64_t *out) {
  /* With ten bytes of input the word read cannot run past it. */
  if (bytes_left(p, end) >= PBC_MAX_VARINT_BYTES) {
    const uint8_t *next = varint_from_word(p, out);
    if (next != NULL) return next;
  }
  return varint_slow(d, p, end, out);
}

const uint8_t *pbc_rt_length(pbc_decoder *d, const uint8_t *p,
                             const uint8_t *end, uint64_t *len) {
  uint64_t v;
  const uint8_t *next = pbc_rt_varint(d, p, end, &v);
  if (next != NULL) next = pbc_rt_length_fits(d, p, next, end, v);
  *len = next != NULL ? v : 0;
  return next;
}

const uint8_t *pbc_rt_tag(pbc_decoder *d, const uint8_t *p,
                          const uint8_t *end, uint32_t *tag) {
  size_t avail = bytes_left(p, end);
  size_t n = avail < PBC_MAX_TAG_BYTES ? avail : PBC_MAX_TAG_BYTES;
  uint32_t v = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t b = p[i];
    if (b < 0x80) {
      /* Bits of a 5th byte past bit 31 are dropped, as libprotobuf does. */
      v |= (uint32_t)b << (7 * i);
      if (pbc_tag_field_number(v) == 0)
        return pbc_rt_fail(d, PBC_ERR_BAD_FIELD_NUMBER);
      *tag = v;
      return p + i + 1;
    }
    v |= (uint32_t)(b & 0x7f) << (7 * i);
  }
  if (n == PBC_MAX_TAG_BYTES) return pbc_rt_fail(d, PBC_ERR_MALFORMED_VARINT);
  return pbc_rt_fail(d, PBC_ERR_TRUNCATED);
}

static const uint8_t *skip_bytes(pbc_decoder *d, const uint8_t *p,
                                 const uint8_t *end, uint64_t n) {
  if (n > bytes_left(p, end)) return pbc_rt_fail(d, PBC_ERR_TRUNCATED);
  return p + n;
}

static const uint8_t *skip_length_delimited(pbc_decoder *d, const uint8_t *p,
                                            const uint8_t *end) {
  uint64_t len;
  const uint8_t *start = p;
  p = pbc_rt_varint(d, p, end, &len);
  if (p == NULL) return NULL;
  /* libprotobuf keeps lengths in an int: 2 GiB or more is never valid, even
   * when that much input follows; and it reads them in at most 5 bytes, so
   * an overlong one is an error too. */
  if (len > INT32_MAX || p - start > PBC_MAX_LENGTH_BYTES)
    return pbc_rt_fail(d, PBC_ERR_BAD_LENGTH);
  return skip_bytes(d, p, end, len);
}

/* Skips a group's fields up to its END_GROUP. Nested groups recurse through
 * pbc_rt_skip, but every level takes one step of d->max_depth first, so the
 * recursion is as deep as the depth limit at most. */
static const uint8_t *skip_group(pbc_decoder *d, const uint8_t *p,
                                 const uint8_t *end, uint32_t field) {
  if (!pbc_rt_push(d)) return NULL;
  for (;;) {
    uint32_t tag;
    p = pbc_rt_tag(d, p, end, &tag);
    if (p == NULL) break;
    if (pbc_tag_wire_type(tag) == PBC_WIRE_END_GROUP) {
      if (pbc_tag_field_number(tag) != field)
        p = pbc_rt_fail(d, PBC_ERR_END_GROUP);
      break;
    }
    p = pbc_rt_skip(d, p, end, tag);
    if (p == NULL) break;
  }
  pbc_rt_pop(d);
  return p;
}

const uint8_t *pbc_rt_skip(pbc_decoder *d, const uint8_t *p,
                           const uint8_t *end, uint32_t tag) {
  switch (pbc_tag_wire_type(tag)) {
  case PBC_WIRE_VARINT: {
    uint64_t ignored;
    return pbc_rt_varint(d, p, end, &ignored);
  }
  case PBC_WIRE_FIXED64:
    return skip_bytes(d, p, end, 8);
  case PBC_WIRE_LEN:
    return skip_length_delimited(d, p, end);
  case PBC_WIRE_START_GROUP:
    return skip_group(d, p, end, pbc_tag_field_number(tag));
  case PBC_WIRE_END_GROUP:
    /* A matching END_GROUP is consumed by whoever opened the group, so one
     * that reaches here has no start. */
    return pbc_rt_fail(d, PBC_ERR_END_GROUP);
  case PBC_WIRE_FIXED32:
    return skip_bytes(d, p, end, 4);
  default:
    return pbc_rt_fail(d, PBC_ERR_BAD_WIRE_TYPE);
  }
}

bool pbc_rt_push(pbc_decoder *d) {
  assert(d->depth <= d->max_depth);
  if (d->depth >= d->max_depth) {
    pbc_rt_fail(d, PBC_ERR_DEPTH_LIMIT);
    return false;
  }
  d->depth++;
  return true;
}

void pbc_rt_pop(pbc_decoder *d) {
  assert(d->depth > 0); /* every pop closes a push */
  d->depth--;
}

/* NULL allocations fail the decode with the reason. */
static void *allocated_or_fail(pbc_decoder *d, void *p, size_t size) {
  if (p == NULL)
    pbc_rt_fail(d, pbc_arena_over_cap(d->arena, size) ? PBC_ERR_ARENA_LIMIT
                                                       : PBC_ERR_OUT_OF_MEMORY);
  return p;
}

void *pbc_rt_alloc(pbc_decoder *d, size_t size) {
  return allocated_or_fail(d, pbc_arena_alloc_high(d->arena, size), size);
}

static void *grow_array(pbc_decoder *d, void *data, size_t size, size_t add,
                        size_t elem_size);

/* n > 0. Shifting out the leading zeros leaves the top bit alone only for
 * a power of two. (Not n & (n - 1): LLVM turns that into a population count,
 * a long expansion on a baseline x86-64 without POPCNT.) */
static bool is_power_of_two(size_t n) {
  return (uint64_t)n << __builtin_clzll(n) == 0x8000000000000000ull;
}

/* The common case inline: one more element while the array has room (its
 * capacity is pbc_rt_capacity_for(size): 4, then powers of two). */
void *pbc_rt_grow(pbc_decoder *d, void *data, size_t size, size_t add,
                  size_t elem_size) {
  /* An array with elements has memory (NULL is only the empty one's). */
  assert(elem_size > 0 && (size == 0 || data != NULL));
  if (add == 1 && size != 0 && (size < 4 || !is_power_of_two(size))) {
    assert(size + 1 <= pbc_rt_capacity_for(size));
    return data;
  }
  return grow_array(d, data, size, add, elem_size);
}

PBC_NOINLINE static void *grow_array(pbc_decoder *d, void *data, size_t size,
                                     size_t add, size_t elem_size) {
  if (add > SIZE_MAX - size) {
    pbc_rt_fail(d, PBC_ERR_OUT_OF_MEMORY);
    return NULL;
  }
  size_t needed = size + add;
  /* An empty array may have no memory at all yet (data is NULL after init),
   * so only a non-empty one can have room to spare. */
  if (size > 0 && needed <= pbc_rt_capacity_for(size)) return data;

  size_t cap = pbc_rt_capacity_for(needed);
  if (cap == 0 || elem_size > SIZE_MAX / cap) {
    pbc_rt_fail(d, PBC_ERR_OUT_OF_MEMORY);
    return NULL;
  }
  if (size > 0 && pbc_arena_extend(d->arena, data,
                                   pbc_rt_capacity_for(size) * elem_size,
                                   cap * elem_size))
    return data;
  /* A first array comes from the top, like sub-messages: most repeated
   * fields stay small, and there they never stop the bottom's newest array
   * (say, of the messages holding them) from growing in place. An array
   * that outgrows its first capacity moves to the bottom, to grow there. */
  pbc_arena *a = d->arena;
  size_t bytes = cap * elem_size;
  void *grown = allocated_or_fail(
      d, size == 0 ? pbc_arena_alloc_high(a, bytes) : pbc_arena_alloc(a, bytes),
      bytes);
  if (grown == NULL) return NULL;
  if (size > 0) memcpy(grown, data, size * elem_size);
  return grown;
}

/* The bookkeeping of a decode: the input (copied first if asked), the
 * decoder state, init, the fields, the required-field check. The message's
 * generated code does each step (`init`, `decode`, `is_initialized`) or,
 * when `table` is not NULL, the table-driven codec from its description.
 * With `merge_into` (m's description) the input merges into m instead
 * (MergeFromString): m is adopted (pbc_rt_adopt), not initialized, and the
 * decoder reads the fields into it as it would the later fields of one
 * input. Inlined into each T_decode and T_merge_decode, where `table` and
 * `merge_into` are constants and their branches fold away. */
static inline pbc_status decode_message(void *m, const uint8_t *buf,
                                        size_t len, pbc_arena *arena,
                                        pbc_init_fn init, pbc_decode_fn decode,
                                        const pbc_message_desc *table,
                                        pbc_check_fn is_initialized,
                                        const pbc_message_desc *merge_into,
                                        const pbc_decode_options *options) {
  /* An empty input may come as NULL; give the decoder a real address so its
   * pointer arithmetic never touches NULL. */
  static const uint8_t empty[1];
  if (buf == NULL && len == 0) buf = empty;
  uint32_t max_depth = PBC_DEFAULT_MAX_DEPTH;
  if (options && options->max_depth) max_depth = options->max_depth;
  pbc_decoder d = {arena, 0, max_depth, PBC_OK, NULL, NULL, NULL};
  set_input(&d, buf, len);
  if (merge_into) {
    pbc_status adopted = pbc_rt_adopt(merge_into, m, arena);
    if (adopted != PBC_OK) return adopted;
  } else if (table) {
    pbc_table_init(table, m);
  } else {
    init(m);
  }
  if (options && options->copy_input && len > 0) {
    uint8_t *copy = allocated_or_fail(&d, pbc_arena_alloc(arena, len), len);
    if (copy == NULL) return d.status;
    memcpy(copy, buf, len);
    buf = copy;
    set_input(&d, buf, len);
  }
  const uint8_t *end =
      table ? pbc_table_decode_fields(table, m, buf, buf + len, &d, 0)
            : decode(m, buf, buf + len, &d, 0);
  if (end != NULL) {
    /* Errors are sticky (a decoder that recorded one fails), and every
     * level a decoder opened it closed. */
    assert(d.status == PBC_OK && d.depth == 0);
    if (options && options->allow_missing_required) return PBC_OK;
    bool complete =
        table ? pbc_table_is_initialized(table, m) : is_initialized(m);
    return complete ? PBC_OK : PBC_ERR_MISSING_REQUIRED;
  }
  /* A decoder that fails without saying why is a bug in the generated code;
   * still report an error, never success on input it rejected. */
  return d.status != PBC_OK ? d.status : PBC_ERR_TRUNCATED;
}

pbc_status pbc_rt_decode_with(void *m, const uint8_t *buf, size_t len,
                              pbc_arena *arena, pbc_init_fn init,
                              pbc_decode_fn decode,
                              pbc_check_fn is_initialized,
                              const pbc_decode_options *options) {
  return decode_message(m, buf, len, arena, init, decode, NULL, is_initialized,
                        NULL, options);
}

pbc_status pbc_rt_merge_decode(void *m, const uint8_t *buf, size_t len,
                               pbc_arena *arena, const pbc_message_desc *desc,
                               pbc_decode_fn decode,
                               pbc_check_fn is_initialized) {
  return decode_message(m, buf, len, arena, NULL, decode, NULL,
                        is_initialized, desc, NULL);
}

pbc_status pbc_rt_decode(void *m, const uint8_t *buf, size_t len,
                         pbc_arena *arena, pbc_init_fn init,
                         pbc_decode_fn decode, pbc_check_fn is_initialized) {
  return pbc_rt_decode_with(m, buf, len, arena, init, decode, is_initialized,
                            NULL);
}

pbc_status pbc_decode(const pbc_message_info *info, void *m,
                      const uint8_t *buf, size_t len, pbc_arena *arena,
                      const pbc_decode_options *options) {
  /* A message loaded at run time (pbc/schema.h) has only its description. */
  if (!info->internal_decoder)
    return pbc_table_decode(info->desc, m, buf, len, arena, options);
  return pbc_rt_decode_with(m, buf, len, arena, info->init,
                            (pbc_decode_fn)info->internal_decoder,
                            info->is_initialized, options);
}

pbc_status pbc_merge_decode(const pbc_message_info *info, void *m,
                            const uint8_t *buf, size_t len, pbc_arena *arena,
                            const pbc_decode_options *options) {
  if (!info->internal_decoder)
    return pbc_table_merge_decode(info->desc, m, buf, len, arena, options);
  return decode_message(m, buf, len, arena, NULL,
                        (pbc_decode_fn)info->internal_decoder, NULL,
                        info->is_initialized, info->desc, options);
}

/* Not inlined: a compact message's T_decode is a call to it. */
PBC_NOINLINE pbc_status pbc_table_decode(const pbc_message_desc *desc, void *m,
                                         const uint8_t *buf, size_t len,
                                         pbc_arena *arena,
                                         const pbc_decode_options *options) {
  return decode_message(m, buf, len, arena, NULL, NULL, desc, NULL, NULL,
                        options);
}

/* Not inlined either: a compact message's T_merge_decode. */
PBC_NOINLINE pbc_status pbc_table_merge_decode(
    const pbc_message_desc *desc, void *m, const uint8_t *buf, size_t len,
    pbc_arena *arena, const pbc_decode_options *options) {
  return decode_message(m, buf, len, arena, NULL, NULL, desc, NULL, desc,
                        options);
}

pbc_status pbc_rt_decode_more(const pbc_message_desc *desc, void *m,
                              const uint8_t *buf, size_t len, pbc_arena *arena,
                              uint32_t max_depth) {
  pbc_decoder d = {arena, 0, max_depth, PBC_OK, NULL, NULL, NULL};
  uint8_t *copy = allocated_or_fail(&d, pbc_arena_alloc(arena, len), len);
  if (copy == NULL) return d.status;
  memcpy(copy, buf, len);
  set_input(&d, copy, len);
  if (pbc_table_decode_fields(desc, m, copy, copy + len, &d, 0) != NULL)
    return PBC_OK;
  return d.status != PBC_OK ? d.status : PBC_ERR_TRUNCATED;
}

size_t pbc_rt_count_varints(const uint8_t *p, const uint8_t *end) {
  assert(p <= end); /* a packed run, whose length was checked */
  /* Every varint ends in the one byte of it below 0x80. Eight bytes at a
   * time: the multiply adds the per-byte flags into the top byte. */
  size_t n = 0;
  for (; bytes_left(p, end) >= 8; p += 8) {
    uint64_t w;
    memcpy(&w, p, sizeof w);
    uint64_t last = (~w & 0x8080808080808080ull) >> 7;
    n += (last * 0x0101010101010101ull) >> 56;
  }
  /* At most 7 bytes: vectorized, this loop's constants would sit in vector
   * registers across the whole decoder it inlines into. */
PBC_LOOP_SCALAR
  for (; p < end; p++) n += *p < 0x80;
  return n;
}
