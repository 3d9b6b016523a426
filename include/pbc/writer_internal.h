/* The internals of pbc/writer.h's inline appenders: the pieces they are
 * made of (pbc__*) and the slow paths they call (runtime/writer.c). Not a
 * user API: any of it may change. pbc/writer.h includes it where its
 * appenders need it, inside its extern "C" and after the types it uses;
 * include pbc/writer.h instead.
 *
 * The fast paths store whole words: the tag as one 8-byte store (the bytes
 * past it are overwritten by what follows; every fast path has at least 8
 * bytes of room), a varint as one 8-byte store of its bytes computed in a
 * register, the 4 length bytes as one 4-byte store. Stores through integer
 * types (not char) also tell the compiler that they do not modify the
 * writer's pointers, so cur, end and top stay in registers from one setter
 * to the next. Loads from caller memory go through may_alias types. So
 * chunk memory must be read as bytes (char, uint8_t or memcpy), which is
 * what anything that sends it on does. */
#ifndef PBC_WRITER_INTERNAL_H
#define PBC_WRITER_INTERNAL_H

#ifndef PBC_WRITER_H
#error "pbc/writer_internal.h is a part of pbc/writer.h: include that"
#endif

/* The stream offset of cur (a value being written into the scratch buffer,
 * see pbc_writer, counts). */
static inline uint64_t pbc__position(const pbc_writer *w) {
  return (uint64_t)(uintptr_t)w->cur + w->base;
}

#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PBC_WORD_STORES 1
typedef uint16_t pbc__u16 __attribute__((aligned(1)));
typedef uint32_t pbc__u32 __attribute__((aligned(1)));
typedef uint64_t pbc__u64 __attribute__((aligned(1)));
typedef uint32_t pbc__u32_in __attribute__((aligned(1), may_alias));
typedef uint64_t pbc__u64_in __attribute__((aligned(1), may_alias));
#else
#define PBC_WORD_STORES 0
#endif

static PBC_ALWAYS_INLINE void pbc__store_le16(uint8_t *p, uint32_t v) {
#if PBC_WORD_STORES
  *(pbc__u16 *)p = (uint16_t)v;
#else
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
#endif
}
static PBC_ALWAYS_INLINE void pbc__store_le32(uint8_t *p, uint32_t v) {
#if PBC_WORD_STORES
  *(pbc__u32 *)p = v;
#else
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
#endif
}
static PBC_ALWAYS_INLINE void pbc__store_le64(uint8_t *p, uint64_t v) {
#if PBC_WORD_STORES
  *(pbc__u64 *)p = v;
#else
  pbc__store_le32(p, (uint32_t)v);
  pbc__store_le32(p + 4, (uint32_t)(v >> 32));
#endif
}

/* Stores a tag (tag_len bytes of `tag`); writes 8 bytes. */
static PBC_ALWAYS_INLINE uint8_t *pbc__put_tag(uint8_t *p, uint64_t tag,
                                               unsigned tag_len) {
  pbc__store_le64(p, tag);
  return p + tag_len;
}

#if defined(__GNUC__) || defined(__clang__)
#define pbc__clz64(x) ((unsigned)__builtin_clzll(x))
#define pbc__clz32(x) ((unsigned)__builtin_clz(x))
#else
static inline unsigned pbc__clz64(uint64_t x) {
  unsigned n = 0;
  while (!(x & (1ull << 63))) x <<= 1, n++;
  return n;
}
#define pbc__clz32(x) (pbc__clz64((uint64_t)(x) << 32))
#endif

/* Spreading 7-bit groups into bytes, halving the distance each round:
 * moving the bits above a split point up by s is adding them times
 * 2^s - 1, so a round is a mask, an add and at most a multiply by 15 or
 * 3 (an imul or lea), with no shift of the kept part and no second mask.
 *
 * The low 56 bits of x (x < 2^56) as 8 groups of 7 bits, one per byte. */
static PBC_ALWAYS_INLINE uint64_t pbc__spread7_halves(uint64_t x) {
  x += (x & 0x0FFFC0000FFFC000ull) * 3;      /* 14-27 -> 16-29, in each half */
  x += x & 0x3F803F803F803F80ull;            /* 7-13 -> 8-14, in each quarter */
  return x;
}
static PBC_ALWAYS_INLINE uint64_t pbc__spread7(uint64_t x) {
  x += (x & ~0x0FFFFFFFull) * 15;            /* bits 28-55 -> 32-59 */
  return pbc__spread7_halves(x);
}

/* The low 28 bits of v (v < 2^28) as 4 groups of 7 bits, one per byte. */
static PBC_ALWAYS_INLINE uint32_t pbc__spread28(uint32_t v) {
  v += (v & 0x0FFFC000u) * 3;
  v += v & 0x3F803F80u;
  return v;
}

/* For a varint whose highest set bit is `hi`: its continuation bits (of
 * the first 8 bytes) and its length. Two loads beat computing them from
 * the highest non-zero byte (bsr, shifts, a subtraction); one table, so
 * one address computation serves both. */
typedef struct pbc__varint_table {
  uint64_t cont[64];
  uint8_t len[64];
} pbc__varint_table;
static PBC_ALWAYS_INLINE const pbc__varint_table *pbc__varint_tables(void) {
  static const pbc__varint_table t = {
    {
        0x0ull, 0x0ull, 0x0ull, 0x0ull,
        0x0ull, 0x0ull, 0x0ull, 0x80ull,
        0x80ull, 0x80ull, 0x80ull, 0x80ull,
        0x80ull, 0x80ull, 0x8080ull, 0x8080ull,
        0x8080ull, 0x8080ull, 0x8080ull, 0x8080ull,
        0x8080ull, 0x808080ull, 0x808080ull, 0x808080ull,
        0x808080ull, 0x808080ull, 0x808080ull, 0x808080ull,
        0x80808080ull, 0x80808080ull, 0x80808080ull, 0x80808080ull,
        0x80808080ull, 0x80808080ull, 0x80808080ull, 0x8080808080ull,
        0x8080808080ull, 0x8080808080ull, 0x8080808080ull, 0x8080808080ull,
        0x8080808080ull, 0x8080808080ull, 0x808080808080ull, 0x808080808080ull,
        0x808080808080ull, 0x808080808080ull, 0x808080808080ull, 0x808080808080ull,
        0x808080808080ull, 0x80808080808080ull, 0x80808080808080ull, 0x80808080808080ull,
        0x80808080808080ull, 0x80808080808080ull, 0x80808080808080ull, 0x80808080808080ull,
        0x8080808080808080ull, 0x8080808080808080ull, 0x8080808080808080ull, 0x8080808080808080ull,
        0x8080808080808080ull, 0x8080808080808080ull, 0x8080808080808080ull, 0x8080808080808080ull,
    },
    {
        1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 3, 3,
        3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5,
        5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7,
        7, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 10,
    },
  };
  return &t;
}
static PBC_ALWAYS_INLINE uint64_t pbc__varint_cont(size_t hi) {
  return pbc__varint_tables()->cont[hi];
}
static PBC_ALWAYS_INLINE size_t pbc__varint_len(size_t hi) {
  return pbc__varint_tables()->len[hi];
}

/* The index of v's highest set bit (v != 0), as a size_t without a
 * zero-extension where the compiler allows. */
static PBC_ALWAYS_INLINE size_t pbc__highest_bit(uint64_t v) {
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
  return (size_t)__builtin_ia32_bsrdi((long long)v);
#else
  return 63 - pbc__clz64(v);
#endif
}

/* Writes v as a varint; may write up to 10 bytes past p whatever its
 * length. No loop: the 7-bit groups are spread into a register (one pdep
 * where BMI2 is fast), the continuation bits and the length come from the
 * highest set bit, and one store writes them. Small values take shorter
 * paths; each call site predicts its own. */
static PBC_ALWAYS_INLINE uint8_t *pbc__put_varint(uint8_t *p, uint64_t v) {
  if (v < (1u << 7)) {
    pbc__store_le16(p, (uint32_t)v);
    return p + 1;
  }
  if (v < (1u << 14)) {
    pbc__store_le16(p, (uint32_t)(v + (v & ~0x7fu) + 0x80));
    return p + 2;
  }
  size_t hi = pbc__highest_bit(v);
  if (hi < 28) {
    pbc__store_le32(p, pbc__spread28((uint32_t)v) |
                           (uint32_t)pbc__varint_cont(hi));
    return p + pbc__varint_len(hi);
  }
  if (PBC_LIKELY(hi < 56)) {
#if defined(__BMI2__) && !defined(__znver1__) && !defined(__znver2__)
    uint64_t x = __builtin_ia32_pdep_di(v, 0x7f7f7f7f7f7f7f7full);
#else
    uint64_t x = pbc__spread7(v);
#endif
    pbc__store_le64(p, x | pbc__varint_cont(hi));
    return p + pbc__varint_len(hi);
  }
  /* 9 or 10 bytes: the low 56 bits, then bits 56-62 with bit 63 as their
   * continuation bit, then bit 63. */
  uint32_t top = (uint32_t)(v >> 56);
#if defined(__BMI2__) && !defined(__znver1__) && !defined(__znver2__)
  uint64_t low = __builtin_ia32_pdep_di(v, 0x7f7f7f7f7f7f7f7full);
#else
  /* Bits 28-55 to 32-59 by shifts, which drop the bits above 55. */
  uint64_t low = pbc__spread7_halves((v & 0x0FFFFFFFu) | (v << 8 >> 36 << 32));
#endif
  pbc__store_le64(p, low | pbc__varint_cont(hi));
  pbc__store_le16(p + 8, top + ((top & 0x80) << 1));
  return p + 9 + (top >> 7);
}

/* The same for a 32-bit value (at most 5 bytes, one store). */
static PBC_ALWAYS_INLINE uint8_t *pbc__put_varint32(uint8_t *p, uint32_t v) {
  if (v < (1u << 7)) {
    pbc__store_le16(p, v);
    return p + 1;
  }
  if (v < (1u << 14)) {
    pbc__store_le16(p, v + (v & ~0x7fu) + 0x80);
    return p + 2;
  }
  if (v < (1u << 28)) {
    size_t hi = pbc__highest_bit(v);
    pbc__store_le32(p, pbc__spread28(v) | (uint32_t)pbc__varint_cont(hi));
    return p + pbc__varint_len(hi);
  }
  pbc__store_le64(p, (pbc__spread28(v & 0x0fffffffu) | 0x80808080u) |
                         (uint64_t)(v >> 28) << 32);
  return p + 5;
}

/* The length a nested message's 4 reserved bytes get: 7 -> 87 80 80 00
 * (s is at most PBC_MAX_NESTED_SIZE). */
static PBC_ALWAYS_INLINE void pbc__put_redundant_size(uint8_t *p, uint32_t s) {
  pbc__store_le32(p, pbc__spread28(s) | 0x808080u);
}

/* Copies n (at most 32) bytes without a call: overlapping word moves. */
static PBC_ALWAYS_INLINE void pbc__copy_small(uint8_t *dst, const void *src,
                                              size_t n) {
#if PBC_WORD_STORES
  const uint8_t *s = (const uint8_t *)src;
  if (n >= 16) {
    uint64_t a = *(const pbc__u64_in *)s, b = *(const pbc__u64_in *)(s + 8);
    uint64_t c = *(const pbc__u64_in *)(s + n - 16);
    uint64_t d = *(const pbc__u64_in *)(s + n - 8);
    pbc__store_le64(dst, a);
    pbc__store_le64(dst + 8, b);
    pbc__store_le64(dst + n - 16, c);
    pbc__store_le64(dst + n - 8, d);
  } else if (n >= 8) {
    uint64_t a = *(const pbc__u64_in *)s, b = *(const pbc__u64_in *)(s + n - 8);
    pbc__store_le64(dst, a);
    pbc__store_le64(dst + n - 8, b);
  } else if (n >= 4) {
    uint32_t a = *(const pbc__u32_in *)s, b = *(const pbc__u32_in *)(s + n - 4);
    pbc__store_le32(dst, a);
    pbc__store_le32(dst + n - 4, b);
  } else if (n > 0) {
    /* 1 to 3 bytes as one 4-byte store (the rest is overwritten later). */
    uint32_t a = s[0] | (uint32_t)s[n / 2] << (8 * (n / 2)) |
                 (uint32_t)s[n - 1] << (8 * (n - 1));
    pbc__store_le32(dst, a);
  }
#else
  if (n) memcpy(dst, src, n);
#endif
}

/* True when m may append in the current chunk without the slow path: m is
 * the innermost open message and `need` bytes fit (the fast paths write at
 * least 8, see above). Other messages' limit is NULL; after a write into
 * the scratch buffer cur is past the limit, so that the next write takes
 * the slow path. */
static PBC_ALWAYS_INLINE bool pbc__fits(const pbc_msg *m, const pbc_writer *w,
                                        size_t need) {
  return (uintptr_t)w->cur + (need < 8 ? 8 : need) <= (uintptr_t)m->limit;
}

/* The bytes m may append in the current chunk (0 unless m is the innermost
 * open message; ptrdiff_t so that cur past the limit is negative). */
static PBC_ALWAYS_INLINE ptrdiff_t pbc__room(const pbc_msg *m,
                                             const pbc_writer *w) {
  return (ptrdiff_t)((uintptr_t)m->limit - (uintptr_t)w->cur);
}

/* The slow paths (writer.c): they finalize open children of m first, drop
 * the write after an error or on a finalized m, and straddle chunks.
 * pbc__msg_prepare returns where the caller writes `need` (at most 48)
 * bytes and then stores its new cursor in w->cur: the current chunk when
 * they fit now, else the scratch buffer. The fast and slow paths thus
 * meet before the stores, and the cursor stays in a register from one
 * setter to the next. */
PBC_COLD uint8_t *pbc__msg_prepare(pbc_msg *m, size_t need);
PBC_COLD void pbc__msg_bytes_slow(pbc_msg *m, uint64_t tag, unsigned tag_len,
                                  const void *data, size_t size);
PBC_COLD void pbc__msg_raw_slow(pbc_msg *m, const void *data, size_t size);
PBC_COLD pbc_msg *pbc__msg_begin_slow(pbc_msg *m, uint64_t tag,
                                      unsigned tag_len, uint32_t end_tag);
PBC_COLD size_t pbc__msg_finalize_slow(pbc_msg *m);

/* The fast paths' call of pbc__msg_prepare. It reloads the caller's writer
 * pointer: the next setter reloads m->writer anyway (the call may have
 * changed memory), and with the reload here both paths leave the same
 * value, so the compiler keeps the cursor in a register across setters
 * instead of reloading it after every store. */
static PBC_ALWAYS_INLINE uint8_t *pbc__prepare(pbc_msg *m, pbc_writer **w,
                                               size_t need) {
  uint8_t *p = pbc__msg_prepare(m, need);
  *w = m->writer;
  return p;
}

/* Where a value goes after its tag (tag_len bytes of `tag`, none when
 * tag_len is 0), with the tag written: the room for both, `need` being the
 * bytes the value's stores may touch, is checked first (the slow path when
 * they do not fit). */
static PBC_ALWAYS_INLINE uint8_t *pbc__tag_and_room(pbc_msg *m, pbc_writer **w,
                                                    uint64_t tag,
                                                    unsigned tag_len,
                                                    size_t need) {
  uint8_t *p = (*w)->cur;
  if (PBC_UNLIKELY(!pbc__fits(m, *w, tag_len + need)))
    p = pbc__prepare(m, w, tag_len + need < 8 ? 8 : tag_len + need);
  return tag_len ? pbc__put_tag(p, tag, tag_len) : p;
}

#endif /* PBC_WRITER_INTERNAL_H */
