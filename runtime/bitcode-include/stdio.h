/* The part of <stdio.h> the runtime uses (text_print.c's floats); see
 * string.h here for why. */
#ifndef PBC_BITCODE_STDIO_H
#define PBC_BITCODE_STDIO_H
#include <stddef.h>
int snprintf(char *restrict s, size_t n, const char *restrict format, ...);
#endif
