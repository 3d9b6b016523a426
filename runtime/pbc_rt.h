/* The runtime functions pbc-generated code calls. Not a user API.
 *
 * pbc links the runtime into every module it compiles as LLVM bitcode, so
 * these small helpers inline into the generated code: keep them short and
 * keep their signatures to pointers and integers (no structs by value), which
 * keeps the bitcode independent of the target's calling convention. */
#ifndef PBC_RT_H
#define PBC_RT_H

#include "pbc/pbc.h"
#include "pbc/port.h"
#include "pbc/wire_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes the generated decoders' fast paths may read from a position below
 * pbc_rt_read_limit without a bounds check: a tag and a varint
 * (PBC_MAX_TAG_BYTES + PBC_MAX_VARINT_BYTES). */
#define PBC_RT_READ_SLOP 16

/* Decoding state shared by all generated decoders of one decode call. */
typedef struct pbc_decoder {
  pbc_arena *arena;
  uint32_t depth;     /* sub-messages and groups currently open */
  uint32_t max_depth;
  pbc_status status;  /* the first error, PBC_OK while none */
  const uint8_t *input_begin, *input_end; /* the whole input */
  /* input_end - PBC_RT_READ_SLOP (input_begin for a shorter input, NULL
   * for no input): see pbc_rt_read_limit. */
  const uint8_t *read_end;
} pbc_decoder;

/* Generated per message T:
 *   void T_init(T *m);
 *   const uint8_t *pbc__T_dec(T *m, const uint8_t *p, const uint8_t *end,
 *                             pbc_decoder *d, uint32_t group_field);
 *     parses fields until `end` (group_field == 0) or until the END_GROUP tag
 *     of field `group_field`; returns the position after it, NULL on error.
 *   bool T_is_initialized(const T *m);
 *     every proto2 required field is set, in this message and the messages
 *     it holds.
 *   size_t T_encoded_size(const T *m);
 *   uint8_t *pbc__T_enc(const T *m, uint8_t *end, uint8_t *limit);
 *     writes the encoding backwards so that it ends at `end`; returns its
 *     first byte, or NULL when it would write below `limit`. Bytes between
 *     `limit` and the first byte may be overwritten (word stores). */
typedef void (*pbc_init_fn)(void *m);
typedef bool (*pbc_check_fn)(const void *m);
typedef const uint8_t *(*pbc_decode_fn)(void *m, const uint8_t *p,
                                        const uint8_t *end, pbc_decoder *d,
                                        uint32_t group_field);
typedef size_t (*pbc_size_fn)(const void *m);
typedef uint8_t *(*pbc_encode_fn)(const void *m, uint8_t *end,
                                   uint8_t *limit);

/* Entry points behind T_decode and T_encode. A decode that parses
 * returns PBC_ERR_MISSING_REQUIRED when is_initialized(m) is false, as
 * libprotobuf's ParseFromString fails (unless the options allow it). */
pbc_status pbc_rt_decode(void *m, const uint8_t *buf, size_t len,
                         pbc_arena *arena, pbc_init_fn init,
                         pbc_decode_fn decode, pbc_check_fn is_initialized);
pbc_status pbc_rt_decode_with(void *m, const uint8_t *buf, size_t len,
                              pbc_arena *arena, pbc_init_fn init,
                              pbc_decode_fn decode,
                              pbc_check_fn is_initialized,
                              const pbc_decode_options *options);
/* Behind T_merge_decode: the input merged into m (MergeFromString), not
 * replacing it. `desc` is m's description, through which m's structure is
 * first moved into the arena (pbc_rt_adopt). */
pbc_status pbc_rt_merge_decode(void *m, const uint8_t *buf, size_t len,
                               pbc_arena *arena, const pbc_message_desc *desc,
                               pbc_decode_fn decode,
                               pbc_check_fn is_initialized);
pbc_status pbc_rt_encode(const void *m, uint8_t *buf, size_t cap,
                         size_t *written, pbc_size_fn size,
                         pbc_encode_fn encode);
/* Behind T_encode_at_end: the one walk, and no move. */
pbc_status pbc_rt_encode_at_end(const void *m, uint8_t *buf, size_t cap,
                                uint8_t **start, size_t *written,
                                pbc_size_fn size, pbc_encode_fn encode);

/* The table codec's functions a compact message's codecs call (these
 * three, for its pbc__T_enc, pbc__T_wr and pbc__T_dec; pbc.h's and
 * writer.h's pbc_table_* for the others) are defined noinline: the codec
 * is shared by every message, and inlining an entry would copy it into
 * each object that calls it.
 *
 * The table-driven encoder (table_encode.c): writes `m` backwards ending at
 * `end`, no lower than `limit`, as pbc__T_enc; returns where it starts,
 * NULL when it does not fit. */
uint8_t *pbc_table_encode_backwards(const pbc_message_desc *desc,
                                    const void *m, uint8_t *end,
                                    uint8_t *limit);

/* The table-driven writer (table_encode.c): what pbc__T_wr does, for any
 * message; `size` is its encoded size. */
void pbc_table_write_fields(const pbc_message_desc *desc, const void *m,
                            pbc_writer *w, size_t size);

/* The table-driven decoder (table_decode.c): what pbc__T_dec does, for
 * any message, from its description. */
const uint8_t *pbc_table_decode_fields(const pbc_message_desc *desc, void *m,
                                       const uint8_t *p, const uint8_t *end,
                                       pbc_decoder *d, uint32_t group);

/* Records the first error and returns NULL, so callers can `return
 * pbc_rt_fail(d, ...)`. */
const uint8_t *pbc_rt_fail(pbc_decoder *d, pbc_status s);

/* Reads a varint at p (p may equal end). Returns the position after it, or
 * NULL with status TRUNCATED / MALFORMED_VARINT. Generated code inlines the
 * one-byte case and calls this for the rest. */
const uint8_t *pbc_rt_varint(pbc_decoder *d, const uint8_t *p,
                             const uint8_t *end, uint64_t *out);

/* min(end, the input's end - PBC_RT_READ_SLOP): below it a decoder reads a
 * tag and a value with no bounds check, and checks once that it has not run
 * past `end` (a read past it, in the input still, is then an error). */
const uint8_t *pbc_rt_read_limit(const pbc_decoder *d, const uint8_t *end);

/* pbc_rt_varint for a position below pbc_rt_read_limit (see there): the
 * word read needs no bounds check. A varint that runs past `end` is read
 * all the same; the caller rejects the position past `end`. */
const uint8_t *pbc_rt_varint_unchecked(pbc_decoder *d, const uint8_t *p,
                                       const uint8_t *end, uint64_t *out);

/* pbc_rt_varint_unchecked as a call: the generated code never inlines it
 * (compiler/CodeGen.cpp, kOutOfLine), for the long form of a varint whose
 * values are rarely long (`rare_long`) below the read limit. A symbol of
 * its own because kOutOfLine keeps every generated call of a function out
 * of line, and a repeated integer's elements inline the unchecked read. */
const uint8_t *pbc_rt_varint_long(pbc_decoder *d, const uint8_t *p,
                                  const uint8_t *end, uint64_t *out);

/* Reads the length of a length-delimited field at p (p may equal end):
 * the position after it, its bytes following it up to `end`; or NULL with
 * the status libprotobuf gives: BAD_LENGTH for a length of more than 5
 * bytes (it reads lengths as an int, ReadSize), TRUNCATED when the bytes
 * do not follow, or the varint's own error (*len is then 0): the table
 * decoder's read_length (both check with pbc_rt_length_fits), as a call.
 * The generated decoders call it for the lengths of two bytes and more
 * near the end of the input (where their inline form would be about 60
 * bytes a field for a few reads a message); compiler/CodeGen.cpp keeps it
 * out of line. */
const uint8_t *pbc_rt_length(pbc_decoder *d, const uint8_t *p,
                             const uint8_t *end, uint64_t *len);

/* The checks of a length whose varint, `len`, was read from p to next:
 * next, or NULL with BAD_LENGTH past 5 bytes, TRUNCATED when its bytes do
 * not follow before end. */
static inline const uint8_t *pbc_rt_length_fits(pbc_decoder *d,
                                                const uint8_t *p,
                                                const uint8_t *next,
                                                const uint8_t *end,
                                                uint64_t len) {
  if (next - p > PBC_MAX_LENGTH_BYTES) return pbc_rt_fail(d, PBC_ERR_BAD_LENGTH);
  if (len > (uint64_t)(end - next)) return pbc_rt_fail(d, PBC_ERR_TRUNCATED);
  return next;
}

/* Reads a tag: a varint of at most 5 bytes whose value fits 32 bits
 * (MALFORMED_VARINT otherwise) with a non-zero field number
 * (BAD_FIELD_NUMBER otherwise). */
const uint8_t *pbc_rt_tag(pbc_decoder *d, const uint8_t *p,
                          const uint8_t *end, uint32_t *tag);

/* Skips the value of a field whose tag was just read (p points after it).
 * START_GROUP skips to the matching END_GROUP, nested groups counting
 * against the depth limit. A bare END_GROUP is END_GROUP; wire types 6 and 7
 * are BAD_WIRE_TYPE. */
const uint8_t *pbc_rt_skip(pbc_decoder *d, const uint8_t *p,
                           const uint8_t *end, uint32_t tag);

/* Opens a nested message or group: false (status DEPTH_LIMIT) when that
 * would exceed max_depth. pbc_rt_pop closes it. */
bool pbc_rt_push(pbc_decoder *d);
void pbc_rt_pop(pbc_decoder *d);

/* Grows the arena's newest allocation p (of old_size bytes) to new_size in
 * place, when it is the last thing in the current block and the block has
 * room; false (nothing changed) otherwise. */
bool pbc_arena_extend(pbc_arena *a, void *p, size_t old_size, size_t new_size);

/* True when pbc_arena_alloc(a, size) cannot succeed because of the arena's
 * byte cap (as opposed to malloc failing): the error is then ARENA_LIMIT. */
bool pbc_arena_over_cap(const pbc_arena *a, size_t size);

/* What every arena allocation's size is rounded up to (arena.c). */
enum { PBC_ARENA_ALIGN = 8 };

/* pbc_arena_alloc's common case, inline for the hottest callers: size
 * bytes (rounded up to PBC_ARENA_ALIGN) from the bottom of the current
 * block when it has room; NULL when it has not, or size is 0 or overflows
 * in the rounding, which pbc_arena_alloc then handles (a new block, the
 * cap, the unique pointer of an empty allocation). */
static inline void *pbc_rt_arena_bump(pbc_arena *a, size_t size) {
  size_t aligned = (size + PBC_ARENA_ALIGN - 1) & ~(size_t)(PBC_ARENA_ALIGN - 1);
  /* aligned - 1 wraps for 0; uintptr_t, since both ends are NULL before
   * the first block. */
  if (aligned - 1 >= (size_t)((uintptr_t)a->end - (uintptr_t)a->ptr)) return NULL;
  void *p = a->ptr;
  a->ptr += aligned;
  return p;
}

/* pbc_arena_alloc from the top of the current block (see arena.c). */
void *pbc_arena_alloc_high(pbc_arena *a, size_t size);

/* Arena memory for a sub-message, from the top of the block (it never
 * grows); NULL with OUT_OF_MEMORY
 * (ARENA_LIMIT when the arena's cap is what stops it). */
void *pbc_rt_alloc(pbc_decoder *d, size_t size);

/* Makes room for `add` more elements in a repeated field's array of `size`
 * elements of `elem_size` bytes. Arrays the decoder builds always have a
 * capacity of max(4, next power of two >= size), so the capacity is implied
 * by the size: when size + add fits, `data` comes back unchanged; otherwise
 * the array grows in place when it is the arena's newest allocation (the
 * common case while one repeated field is being read), or moves to a new
 * arena array with the first `size` elements copied. NULL with
 * OUT_OF_MEMORY (also when the byte count would overflow). */
void *pbc_rt_grow(pbc_decoder *d, void *data, size_t size, size_t add,
                  size_t elem_size);
/* The capacity pbc_rt_grow takes an array of n elements to have: max(4,
 * the next power of two >= n); 0 when no such size_t exists. */
static inline size_t pbc_rt_capacity_for(size_t n) {
  size_t cap = 4;
  while (cap < n) {
    if (cap > SIZE_MAX / 2) return 0;
    cap *= 2;
  }
  return cap;
}

/* Before a decode merges into m: what the decoder would write into in
 * place, moved into the arena. The decoder appends to arrays and unknown
 * fields where pbc_rt_grow says they have room, and merges into the
 * sub-messages m points to; a message the caller built or decoded may have
 * arrays of any capacity in any memory, and sub-messages the caller means
 * to keep. So every sub-message, array and unknown-field buffer reachable
 * from m is copied into the arena (arrays at pbc_rt_capacity_for), and m
 * points to the copies; string and bytes values are not copied (the
 * decoder only replaces them). Nothing m pointed to is written. */
pbc_status pbc_rt_adopt(const pbc_message_desc *desc, void *m,
                        pbc_arena *arena);
/* Fields merged into m from a wire form its caller built and goes on
 * using (json_parse.c's, for the members it does not store in the struct
 * itself): the bytes copied into the arena first (the caller's buffer is
 * reused), m neither initialized nor adopted (what the decoder merges into,
 * the caller left as init made it), no required-field check. len > 0. */
pbc_status pbc_rt_decode_more(const pbc_message_desc *desc, void *m,
                              const uint8_t *buf, size_t len, pbc_arena *arena,
                              uint32_t max_depth);
/* How many varints [p, end) holds (the bytes that end one): the element
 * count of a packed run, so that its array is allocated once. */
size_t pbc_rt_count_varints(const uint8_t *p, const uint8_t *end);

/* True when [p, p+n) is well-formed UTF-8 (no overlongs, no surrogates,
 * nothing above U+10FFFF), the rule libprotobuf applies to proto3 strings. */
bool pbc_rt_utf8_valid(const uint8_t *p, size_t n);

/* A run of a JSON or text-format string's plain characters from p: the
 * first byte at or after p that is '"', '\\' or below 0x20 (end when there
 * is none), with *valid false when [p, stop) is not UTF-8, a sequence the
 * stop byte cuts short included. The bytes are scanned and validated in
 * one pass of 16- or 32-byte blocks (x86-64 with SSSE3 or AVX2; two passes
 * elsewhere); nothing is read past end. The caller knows the run's bytes
 * before p are ASCII (or that p starts it). */
const char *pbc_rt_utf8_string_run(const char *p, const char *end, bool *valid);

/* Whether 3.21 escapes U+2000 + k, k < 0x80: General Punctuation, where
 * text's dashes, quotation marks and ellipses are, and the superscripts
 * after it; a bit each (U+200B..200F, 2028..202E; 2060..2064, 206A..206F).
 * Its UTF-8 is E2 80 or E2 81, then 0x80 | (k & 63). */
static inline bool pbc_rt_json_escapes_punctuation(uint32_t k) {
  uint64_t bits = k < 0x40 ? 0x00007f000000f800u : 0x0000fc1f00000000u;
  return bits >> (k & 63) & 1;
}

/* Whether 3.21 writes code point cp (from 0x80 on) as \u escapes (its
 * EscapeCodePoint: C1 controls, format characters, the BOM). Tested by
 * ranges of where they lie, so that the letters of most scripts (below
 * U+0600, and from U+2080 to U+FEFE: CJK, kana, hangul) take two or three
 * comparisons. */
static inline bool pbc_rt_json_escapes_code_point(uint32_t cp) {
  if (cp < 0x600) return cp < 0xa0 || cp == 0xad;
  if (cp < 0x2000)
    return cp <= 0x603 || cp == 0x6dd || cp == 0x70f || cp == 0x17b4 ||
           cp == 0x17b5;
  if (cp < 0x2080) return pbc_rt_json_escapes_punctuation(cp - 0x2000);
  if (cp < 0xfeff) return false;
  if (cp < 0x10000) return cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb);
  return (cp >= 0x1d173 && cp <= 0x1d17a) || cp == 0xe0001 ||
         (cp >= 0xe0020 && cp <= 0xe007f);
}

/* How many of the n bytes from p (p at the start of a code point) 3.21's
 * JSON escaper writes as they are, found in 16- or 32-byte blocks (x86-64
 * with SSSE3 or AVX2, as the validator in use; 0 elsewhere): the longest
 * prefix of whole code points that is valid UTF-8 without a character it
 * escapes (json_print.c judges from there). With copy (not NULL), every
 * block it scans is also stored there at its offset, so that the kept
 * prefix is copied: copy has room for n + PBC_RT_JSON_KEPT_SLACK bytes,
 * the last block's store going past the text. */
enum { PBC_RT_JSON_KEPT_SLACK = 32 };
size_t pbc_rt_utf8_json_kept(const uint8_t *p, size_t n, uint8_t *copy);

/* The block validators behind pbc_rt_utf8_valid (runtime/utf8.c): AUTO is
 * the best this CPU runs (what the first call picks), GENERIC the portable
 * vector code, SSSE3 and AVX2 the lookup-table code of x86-64. The same
 * levels name pbc_rt_base64_blocks' decoders (GENERIC: none). */
enum { PBC_RT_UTF8_AUTO, PBC_RT_UTF8_GENERIC, PBC_RT_UTF8_SSSE3, PBC_RT_UTF8_AVX2 };
/* Makes pbc_rt_utf8_valid use `impl` from then on, for tests of each one;
 * false, changing nothing, when this CPU or build cannot run it. */
bool pbc_rt_utf8_use(int impl);
/* The one in use; AUTO before the first call has picked one. */
int pbc_rt_utf8_current(void);
#if defined(__x86_64__)
/* The CPU has AVX2 (its registers enabled by the OS), SSSE3. */
bool pbc_rt_cpu_has_avx2(void);
bool pbc_rt_cpu_has_ssse3(void);
/* 1 when the code is built for a CPU with AVX2 (utf8.c): no run-time
 * choice then. */
extern const uint8_t pbc_rt_target_avx2;
#endif

/* Base64 digits (either alphabet, no padding) from in, decoded in blocks
 * of 16 or 32 while whole blocks of digits remain (x86-64 with SSSE3 or
 * AVX2; nothing elsewhere): how many were read, a multiple of 16, their
 * bytes (3 for 4) at out. It stops at a block holding a byte that is no
 * digit, or where fewer than 24 digits are left: the caller's scalar loop
 * reads the rest. out has room for n / 4 * 3 bytes, which may all be
 * written. */
size_t pbc_rt_base64_blocks(const uint8_t *in, size_t n, uint8_t *out);
/* pbc_rt_utf8_use for pbc_rt_base64_blocks. */
bool pbc_rt_base64_use(int impl);

/* Appends the raw field [start, end) to the unknown fields `unknown`:
 * still a view of the input while contiguous with it, else an arena copy
 * (grown like repeated fields). False (OUT_OF_MEMORY) when out of memory. */
bool pbc_rt_keep_unknown(pbc_decoder *d, pbc_bytes *unknown,
                         const uint8_t *start, const uint8_t *end);
/* Appends field `number` with varint `value` to the unknown fields. */
bool pbc_rt_keep_unknown_varint(pbc_decoder *d, pbc_bytes *unknown,
                                uint64_t value, uint32_t number);

bool pbc_rt_bytes_equal(const uint8_t *a, size_t a_size, const uint8_t *b,
                        size_t b_size);

/* Writes v as a varint ending at `end`; returns its first byte. */
/* The extensions generic code looks in: `count` records at `list`, or the
 * linked ones (pbc_extension_at) when `list` is NULL. */
typedef struct pbc_rt_extensions {
  const pbc_extension_info *const *list;
  size_t count;
} pbc_rt_extensions;

static inline size_t pbc_rt_extensions_count(const pbc_rt_extensions *x) {
  return x->list ? x->count : pbc_extension_count();
}
static inline const pbc_extension_info *
pbc_rt_extensions_at(const pbc_rt_extensions *x, size_t i) {
  return x->list ? x->list[i] : pbc_extension_at(i);
}

/* Extensions as the text format shows them (runtime/extension.c). The
 * extensions of d among `x` whose values the unknown fields `u` hold, by
 * ascending number (*exts, malloc'd), and the unknown fields libprotobuf's
 * parser would have left once it parsed those (*rest, malloc'd): the
 * other records, and a closed enum's undeclared values as varint records
 * of their own; not made when `rest` is NULL (JSON prints no unknown
 * fields). False when memory runs out. */
bool pbc_rt_split_extensions(const pbc_message_desc *d,
                             const pbc_rt_extensions *x, const uint8_t *u,
                             size_t size, const pbc_extension_info ***exts,
                             size_t *count, uint8_t **rest, size_t *rest_size);
/* The unknown fields `u` of a message of d with extension ranges, in the
 * order libprotobuf writes what its parser made of them: the extensions
 * (linked, of d, holding a value of their kind) at their range's place
 * among the fields, by number (the records of one number in their order),
 * and the other records, as they came, after the last field. `part` picks
 * what one call writes: the extensions in d->ext_ranges' range `part`, or,
 * when it is d->ext_range_count, the rest. Every byte of `u` belongs to
 * exactly one part, so the parts add up to `size` (T_encoded_size needs no
 * change). Backwards, ending at `end` (NULL when it does not fit above
 * `limit`; a NULL limit is unchecked), or forwards into a writer. */
uint8_t *pbc_rt_put_unknown_part(const pbc_message_desc *d, const uint8_t *u,
                                 size_t size, uint32_t part, uint8_t *end,
                                 uint8_t *limit);
void pbc_rt_write_unknown_part(const pbc_message_desc *d, const uint8_t *u,
                               size_t size, uint32_t part, pbc_writer *w);
/* The name text format gives an extension in brackets (libprotobuf's
 * PrintableNameForExtension), and the extension of d among `x` that a
 * bracketed name names (its full name, or that one). */
const char *pbc_rt_extension_printable_name(const pbc_extension_info *e);
/* Bytes one value of e takes as a struct member would hold it: a scalar's
 * size, a view's, a message element's struct (pbc_field_value_bytes). */
size_t pbc_rt_extension_value_bytes(const pbc_extension_info *e);
const pbc_extension_info *pbc_rt_find_extension_named(
    const pbc_message_desc *d, const pbc_rt_extensions *x, const char *name,
    size_t len);

/* ---- ProtoJSON parsing: what pbc__T_from_json calls (abi.def's rows) ----
 * The parser is json_parse.c's state; these run its rules (names given
 * once, one member per oneof, null, nesting) as its own member loop does.
 * See abi.def for what each returns. */
typedef struct pbc_json_parser pbc_json_parser;
bool pbc_json_key(pbc_json_parser *ps, const void *key, size_t n);
int64_t pbc_json_open_object(pbc_json_parser *ps, const pbc_message_desc *d);
int32_t pbc_json_find_member(pbc_json_parser *ps, const pbc_message_desc *d,
                             int64_t frame);
bool pbc_json_member(pbc_json_parser *ps, const pbc_message_desc *d,
                     int64_t frame, uint32_t index, bool colon, void *m);
#define PBC_JSON_VALUE_READER(name)                                            \
  int32_t name(pbc_json_parser *ps, const pbc_message_desc *d, uint32_t index, \
               bool colon, void *slot);
PBC_JSON_VALUE_READER(pbc_json_int32)
PBC_JSON_VALUE_READER(pbc_json_int64)
PBC_JSON_VALUE_READER(pbc_json_uint32)
PBC_JSON_VALUE_READER(pbc_json_uint64)
PBC_JSON_VALUE_READER(pbc_json_float)
PBC_JSON_VALUE_READER(pbc_json_double)
PBC_JSON_VALUE_READER(pbc_json_bool)
PBC_JSON_VALUE_READER(pbc_json_string)
PBC_JSON_VALUE_READER(pbc_json_bytes)
PBC_JSON_VALUE_READER(pbc_json_enum)
#undef PBC_JSON_VALUE_READER
bool pbc_json_given_twice(pbc_json_parser *ps, const pbc_message_desc *d,
                          uint32_t index);
bool pbc_json_message_member(pbc_json_parser *ps, const pbc_message_desc *d,
                             int64_t frame, uint32_t index, bool colon,
                             void *m, const void *parse);
int32_t pbc_json_more(pbc_json_parser *ps, const pbc_message_desc *d);
bool pbc_json_close_object(pbc_json_parser *ps, const pbc_message_desc *d,
                           int64_t frame, void *m);
bool pbc_json_parse_message(const pbc_message_desc *d, void *m,
                            pbc_json_parser *ps);

/* ---- ProtoJSON printing: what pbc__T_json calls (abi.def's rows) --------
 * The printer is json_print.c's state. Members and list elements are each
 * written with a comma before them; pbc_json_end_object (end_list) turns
 * the first comma into the bracket at the position pbc_json_begin_object
 * (begin_list) returned, or writes "{}" ("[]") when nothing followed it, so
 * the generated code never tests whether a member is the first. That needs
 * the text in one buffer: pbc_json_print runs the generated code, a
 * writer's chunks (pbc_json_write) take the description's printer. */
typedef struct pbc_json_printer pbc_json_printer;
void pbc_json_put(pbc_json_printer *p, const void *s, size_t n);
bool pbc_json_proto_names(pbc_json_printer *p);
/* SIZE_MAX past the depth limit (the printer has failed). */
size_t pbc_json_begin_object(pbc_json_printer *p);
void pbc_json_end_object(pbc_json_printer *p, size_t mark);
size_t pbc_json_begin_list(pbc_json_printer *p);
void pbc_json_end_list(pbc_json_printer *p, size_t mark);
void pbc_json_put_i32(pbc_json_printer *p, int32_t v);
void pbc_json_put_u32(pbc_json_printer *p, uint32_t v);
void pbc_json_put_i64(pbc_json_printer *p, uint64_t v); /* quoted */
void pbc_json_put_u64(pbc_json_printer *p, uint64_t v); /* quoted */
void pbc_json_put_double(pbc_json_printer *p, uint64_t bits);
void pbc_json_put_float(pbc_json_printer *p, uint32_t bits);
void pbc_json_put_bool(pbc_json_printer *p, bool v);
void pbc_json_put_string(pbc_json_printer *p, const uint8_t *s, size_t n);
void pbc_json_put_bytes(pbc_json_printer *p, const uint8_t *s, size_t n);
void pbc_json_put_enum(pbc_json_printer *p, const pbc_enum_info *e, int32_t v);
/* A repeated field's n elements of a number or bool type (`type`, a
 * pbc_field_type; not an enum), each behind a comma: one call a list. */
void pbc_json_put_run(pbc_json_printer *p, uint32_t type, const uint8_t *data,
                      size_t n);
void pbc_json_put_field(pbc_json_printer *p, const pbc_message_desc *d,
                        uint32_t index, const void *m);
/* d's message at m as a JSON value (a well-known type's form, extensions
 * among the fields): the ToJson codec of messages the compiler does not
 * specialize it for. */
void pbc_json_put_message(const pbc_message_desc *d, const void *m,
                          pbc_json_printer *p);

uint8_t *pbc_rt_put_varint(uint8_t *end, uint64_t v);
/* v's varint at p, forwards (generic code that writes a few records);
 * returns its bytes. */
static inline size_t pbc_rt_put_varint_forward(uint8_t *p, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    p[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  p[n++] = (uint8_t)v;
  return n;
}
/* The same when the `room` bytes below `end` may be written: with 4, a
 * value below 2^28 as one 4-byte store, with 10 any value as one or two
 * words, whatever lands below the varint's start to be overwritten later;
 * with less, its own bytes only. Never writes below end - max(room, the
 * varint's size). */
uint8_t *pbc_rt_put_varint_room(uint8_t *end, uint64_t v, int64_t room);

#ifdef __cplusplus
}
#endif

#endif /* PBC_RT_H */
