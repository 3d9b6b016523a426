/* The compiler attributes of pbc's runtime and of the headers it ships,
 * defined once. Not a user API: include pbc/pbc.h.
 *
 * The headers a program includes are plain C11 and compile with any C11 or
 * C++ compiler, so the macros they use fall back to nothing (or plain
 * `inline`) without GCC or Clang: they change how fast the code is, never
 * what it does. The runtime's own sources are GNU C (vector extensions,
 * weak symbols, per-function targets); the macros only they use have no
 * fallback. */
#ifndef PBC_PORT_H
#define PBC_PORT_H

#if defined(__GNUC__) || defined(__clang__)
#define PBC_LIKELY(x) __builtin_expect(!!(x), 1)
#define PBC_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* Inlined at every call, even where the compiler's size limits would say
 * no: the fast paths are only fast inline. On an extern runtime function
 * (declared without `inline` in pbc_rt.h, so still its external
 * definition) it makes the generated code that links the runtime bitcode
 * inline it. */
#define PBC_ALWAYS_INLINE inline __attribute__((always_inline))
/* Slow paths: out of line, and away from the code that calls them. */
#define PBC_COLD __attribute__((cold, noinline))
#else
#define PBC_LIKELY(x) (x)
#define PBC_UNLIKELY(x) (x)
#define PBC_ALWAYS_INLINE inline
#define PBC_COLD
#endif

/* The runtime's sources only. */
#if defined(__GNUC__) || defined(__clang__)
#define PBC_NOINLINE __attribute__((noinline))
#define PBC_WEAK __attribute__((weak))
/* Compiles one function for more than the baseline CPU, e.g. "avx2". */
#define PBC_TARGET(features) __attribute__((target(features)))
/* A GNU vector of `bytes` bytes, e.g. `typedef uint8_t v32
 * PBC_VECTOR_SIZE(32);`. */
#define PBC_VECTOR_SIZE(bytes) __attribute__((vector_size(bytes)))
#endif
/* Before a loop that must stay scalar. Clang's spelling; the bitcode pbc
 * embeds is built by clang, and GCC (the unit tests' runtime) does not
 * vectorize such short loops at -O2 anyway. */
#if defined(__clang__)
#define PBC_LOOP_SCALAR _Pragma("clang loop vectorize(disable) interleave(disable)")
#else
#define PBC_LOOP_SCALAR
#endif

#endif /* PBC_PORT_H */
