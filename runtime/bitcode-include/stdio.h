/* The part of <stdio.h> the runtime uses (text_print.c's floats, text_lex.c's
 * error messages); see
 * string.h here for why. */
#ifndef PBC_BITCODE_STDIO_H
#define PBC_BITCODE_STDIO_H
#include <stddef.h>
#include <stdarg.h>
int snprintf(char *restrict s, size_t n, const char *restrict format, ...);
int vsnprintf(char *restrict s, size_t n, const char *restrict format,
              va_list args);
#endif
