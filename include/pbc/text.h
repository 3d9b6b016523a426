/* Text format: any message printed from its description (pbc/desc.h) as
 * libprotobuf 3.21's TextFormat::Printer prints it, byte for byte (what
 * `DebugString`, `TextFormat::PrintToString` and `protoc --decode` print),
 * or on one line as `ShortDebugString` does.
 *
 * What is printed: the set fields by ascending number, each on its own line
 * (`name: value`, a message or group as `name {` ... `}` with its fields
 * indented by two spaces; a group is named by its message type, as in
 * libprotobuf); repeated fields one line per element, maps one entry per
 * line sorted by key; enums by the name of their first value with that
 * number (a number without a name as the number); strings and bytes in
 * double quotes with C escapes (\n \r \t \" \' \\, other bytes below 0x20
 * and from 0x7f on as three octal digits); floats and doubles with the
 * shortest of 6/9 (float) or 15/17 (double) significant digits that reads
 * back the same, "inf", "-inf" and "nan"; then the unknown fields, by
 * number: varints as decimal, fixed32 and fixed64 as 0x and 8 or 16 hex
 * digits, a length-delimited one as `N {` ... `}` when its bytes parse as
 * fields (10 levels deep at most) and else as an escaped string, groups as
 * `N {` ... `}`.
 *
 * Not yet: extensions (pbc keeps them as unknown fields, printed by
 * number) and the expanded form of google.protobuf.Any.
 *
 * A message compiled as LITE_RUNTIME has no field names
 * (PBC_MESSAGE_NO_NAMES): printing it, or a message holding one, fails with
 * PBC_ERR_NO_NAMES (pbc_text_print then reports no length; a writer keeps
 * what was written before that message). Plain C11. */
#ifndef PBC_TEXT_H
#define PBC_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "pbc/pbc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pbc_text_options {
  /* One line, as ShortDebugString: fields separated by one space, a
   * message as `name { ... }`, no trailing space. */
  bool single_line;
} pbc_text_options;

/* Prints m, a message of type `info`, into buf: at most cap bytes, no NUL
 * added. *written (if not NULL) is the length of the whole text; when it
 * is larger than cap, buf holds its first cap bytes and the result is
 * PBC_ERR_BUFFER_TOO_SMALL (a NULL buf with cap 0 asks for the length).
 * `options` may be NULL for the multi-line form. */
pbc_status pbc_text_print(const pbc_message_info *info, const void *m,
                          char *buf, size_t cap, size_t *written,
                          const pbc_text_options *options);

/* The same text appended to a writer (pbc/writer.h), as raw bytes at its
 * current position; the writer's status after it. */
pbc_status pbc_text_write(const pbc_message_info *info, const void *m,
                          pbc_writer *w, const pbc_text_options *options);

#ifdef __cplusplus
}
#endif

#endif /* PBC_TEXT_H */
