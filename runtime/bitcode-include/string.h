/* The part of <string.h> the runtime uses, for compiling it to bitcode for
 * every target pbc supports (runtime/CMakeLists.txt): the C library's own
 * header would need that target's libc headers installed, and these
 * functions have the same signature under every LP64 C library. */
#ifndef PBC_BITCODE_STRING_H
#define PBC_BITCODE_STRING_H
#include <stddef.h>
void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
size_t strlen(const char *s);
char *strrchr(const char *s, int c);
void *memchr(const void *s, int c, size_t n);
#endif
