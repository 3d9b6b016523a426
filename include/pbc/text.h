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
 * Extensions the program links (pbc_find_extension), or those the options
 * list (a schema's), print among the set
 * fields by number as `[pkg.ext]: value` (a MessageSet item declared in its
 * message's scope as `[pkg.Item]`), their values read from the unknown
 * fields as pbc_extension_get reads them; the unknown fields then print
 * without them, as libprotobuf's parser would have left them. An
 * extension the program does not link is an unknown field. Printing fails
 * with the status of a value that does not read (PBC_ERR_INVALID_UTF8,
 * PBC_ERR_OUT_OF_MEMORY, ...).
 *
 * Parsing (pbc_text_parse) reads what libprotobuf 3.21's TextFormat::Parser
 * reads (ParseFromString: the message is replaced, a required field
 * missing is an error), with the same errors at the same line and column.
 * Where the protobuf conformance suite asks for more than 3.21 does, pbc
 * follows the suite: a \u or \U escape of a surrogate (also a pair of
 * them) or of a number beyond U+10FFFF is an error, and a string field
 * whose file checks UTF-8 (proto3) rejects text that is not UTF-8.
 * `[pkg.ext]` names a linked extension of the message; its values are kept
 * as the extension's records in the unknown fields, in text order.
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
  /* Leave the unknown fields out, as Printer::SetHideUnknownFields. */
  bool hide_unknown_fields;
  /* Print a google.protobuf.Any whose type is known as
   * `[type.googleapis.com/pkg.M] { ...its fields... }`, as
   * Printer::SetExpandAny (and DebugString) does: when the URL's prefix is
   * type.googleapis.com/ or type.googleprod.com/, the type is a message
   * linked into the program (pbc_find_message; or find_message's) and
   * the value decodes as one. Other Anys print as plain messages. */
  bool expand_any;
  /* Where an Any's type is looked up: NULL for the linked messages
   * (pbc_find_message), else this finder with find_message_ctx (for a
   * schema loaded at run time, pbc_schema_finder and the schema). */
  pbc_message_finder find_message;
  const void *find_message_ctx;
  /* The extensions printed by name: NULL for the linked ones
   * (pbc_find_extension), else these extension_count records (for a
   * schema loaded at run time, pbc_schema_extensions). */
  const pbc_extension_info *const *extensions;
  size_t extension_count;
} pbc_text_options;

/* Prints m, a message of type `info`, into buf: at most cap bytes, no NUL
 * added. *written (if not NULL) is the length of the whole text; when it
 * is larger than cap, buf holds its first cap bytes and the result is
 * PBC_ERR_BUFFER_TOO_SMALL (a NULL buf with cap 0 asks for the length).
 * The bytes of buf past the text (below cap) may have served as scratch.
 * `options` may be NULL for the multi-line form. */
pbc_status pbc_text_print(const pbc_message_info *info, const void *m,
                          char *buf, size_t cap, size_t *written,
                          const pbc_text_options *options);

/* The same text appended to a writer (pbc/writer.h), as raw bytes at its
 * current position; the writer's status after it. */
pbc_status pbc_text_write(const pbc_message_info *info, const void *m,
                          pbc_writer *w, const pbc_text_options *options);

/* ---- Parsing ------------------------------------------------------------ */

typedef struct pbc_text_parse_options {
  /* A field may be named by its number (`7: 1`), as
   * Parser::AllowFieldNumber: what reads back printed unknown fields whose
   * numbers the message knows. */
  bool allow_field_number;
  /* Leave the required-field check out, as Parser::AllowPartialMessage. */
  bool allow_partial;
  /* Nesting limit, as pbc_decode_options; 0 means PBC_DEFAULT_MAX_DEPTH. */
  uint32_t max_depth;
  /* Where the type of an Any in expanded form is looked up, as
   * pbc_text_options.find_message: NULL for the linked messages. */
  pbc_message_finder find_message;
  const void *find_message_ctx;
  /* The extensions `[pkg.ext]` names, as pbc_text_options.extensions:
   * NULL for the linked ones. */
  const pbc_extension_info *const *extensions;
  size_t extension_count;
} pbc_text_parse_options;

/* Why a parse failed: libprotobuf's message for the same input, at the
 * place libprotobuf gives (the token the parser was looking at, or the
 * character a token went wrong at). Lines and columns count from 1, a tab
 * moving the column to the next multiple of 8 as libprotobuf counts; both
 * are 0 for an error of the whole message (a required field missing). */
typedef struct pbc_text_error {
  uint32_t line, column;
  char message[200]; /* NUL-terminated, cut short if longer */
} pbc_text_error;

/* Parses the `len` bytes at `text` into m, a message of type `info`, which
 * it replaces (as T_decode does): strings, bytes and repeated fields are
 * put in `arena`, nothing points into `text`. On failure m is left as
 * T_decode leaves it on failure, the result says what kind of error it was
 * (PBC_ERR_TEXT_SYNTAX for anything the text itself gets wrong, else
 * PBC_ERR_INVALID_UTF8, PBC_ERR_DEPTH_LIMIT, PBC_ERR_MISSING_REQUIRED or a
 * memory error) and *error (if not NULL) where and why. `options` may be
 * NULL for the defaults. Never reads outside the `len` bytes (a NUL among
 * them is an error, as in libprotobuf). */
pbc_status pbc_text_parse(const pbc_message_info *info, void *m,
                          const char *text, size_t len, pbc_arena *arena,
                          const pbc_text_parse_options *options,
                          pbc_text_error *error);

#ifdef __cplusplus
}
#endif

#endif /* PBC_TEXT_H */
