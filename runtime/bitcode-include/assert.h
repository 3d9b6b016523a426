/* <assert.h> for the runtime bitcode, which is always compiled with NDEBUG
 * (runtime/CMakeLists.txt): pbc links it into the code it generates, which
 * must not pay for the runtime's own checks, and a call of the C library's
 * assert-failure function would tie that code to one C library. The
 * runtime's unit tests build it with asserts on (test/runtime/). No include
 * guard, as the standard's <assert.h>. */
#ifndef NDEBUG
#error "the runtime bitcode is compiled with NDEBUG"
#endif
#undef assert
#define assert(e) ((void)0)
