/* The part of <stdlib.h> the runtime uses; see string.h here for why. */
#ifndef PBC_BITCODE_STDLIB_H
#define PBC_BITCODE_STDLIB_H
#include <stddef.h>
void *malloc(size_t size);
void *realloc(void *p, size_t size);
void free(void *p);
double strtod(const char *restrict s, char **restrict end);
float strtof(const char *restrict s, char **restrict end);
#endif
