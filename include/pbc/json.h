/* ProtoJSON (https://protobuf.dev/programming-guides/json/): any message
 * printed from its description (pbc/desc.h), as libprotobuf 3.21's
 * MessageToJsonString prints the same message, byte for byte, with the
 * same options, with these deliberate differences (docs/json.md):
 *
 *  - map entries print sorted by key (numbers by value, strings as bytes),
 *    each key once with its last value: libprotobuf prints them in its hash
 *    map's order, which varies from run to run (its deterministic
 *    serialization's order is pbc's);
 *  - groups print as messages, named by their field's json_name, as the
 *    spec says: 3.21 drops them and may misread what follows;
 *  - the extensions the program links (or the options list) print among
 *    the fields by number, as "[pkg.ext]": value, as newer libprotobuf
 *    prints them; 3.21 drops them;
 *  - an Any's value prints its fields by number (3.21 walks the value's
 *    bytes in their order; for bytes a serializer wrote, that is the same);
 *  - where 3.21 prints what does not read back, pbc refuses (the errors
 *    below) or prints what the spec and newer libprotobuf print: a Value
 *    with no kind prints null (3.21 leaves it out, a list element too).
 *
 * What is printed: an object of the set fields by ascending number, named
 * by json_name (or as declared, preserve_proto_field_names), no whitespace
 * unless asked; 64-bit integers as quoted decimals, other integers as
 * numbers; float and double with the shortest of 6/9 (float) or 15/17
 * (double) significant digits that reads back the same (libprotobuf's
 * SimpleFtoa/SimpleDtoa: "1e+20", "-0"), "NaN", "Infinity" and
 * "-Infinity" quoted; bytes as standard base64 with padding; enums by the
 * name of their first value with that number, else the number
 * (google.protobuf.NullValue as null); strings escaped as libprotobuf's
 * JsonEscaping: ", \ and the C0 and C1 controls, DEL, < and >, and a few
 * invisible or format code points as \uXXXX (\b \t \n \f \r by their
 * short forms); bytes that are not UTF-8 are left out, as 3.21 leaves
 * them. Unknown fields are not printed.
 *
 * Well-known types print in their special forms: Timestamp as RFC 3339
 * ("1972-01-01T10:00:20.021Z", 0, 3, 6 or 9 fractional digits), Duration
 * as "1.000340012s", the wrappers as their value, Struct, Value and
 * ListValue as the JSON they hold (a Value with no kind set as null),
 * FieldMask as its paths in lowerCamelCase joined by commas, Any as
 * {"@type": url, ...the value's fields} (a well-known type's as "value":
 * its form), Empty as {}. An Any's type is looked up as text format's
 * (find_message); its URL must be "type.googleapis.com/" and the full
 * name, as libprotobuf's type resolver requires.
 *
 * Errors: PBC_ERR_JSON_VALUE for a value ProtoJSON cannot write (a
 * Timestamp or Duration out of its range, or a Duration whose seconds and
 * nanos differ in sign; a FieldMask path whose lowerCamelCase would not
 * read back as it, such as "foo__bar" or "fooBar"; a Value's NaN or
 * infinite number; an Any with a value but no type, a URL that is not of
 * that form or names no known message, or a value that does not decode as
 * its type); PBC_ERR_NO_NAMES for a LITE_RUNTIME message;
 * PBC_ERR_DEPTH_LIMIT past the nesting limit; memory errors. Plain C11. */
#ifndef PBC_JSON_H
#define PBC_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "pbc/pbc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The options of libprotobuf's JsonPrintOptions, by the same names. */
typedef struct pbc_json_options {
  /* Pretty-printed: a newline and one space of indent per level before
   * each member, ": " after a name, and a newline after the top object. */
  bool add_whitespace;
  /* Fields without presence (proto3 singular scalars outside oneofs,
   * repeated fields, maps) print also when empty or zero. */
  bool always_print_primitive_fields;
  /* Enums as numbers. */
  bool always_print_enums_as_ints;
  /* Names as declared ("phone_number") rather than json_name. */
  bool preserve_proto_field_names;
  /* Nesting limit; 0 means PBC_DEFAULT_MAX_DEPTH. */
  uint32_t max_depth;
  /* Where an Any's type is looked up, as pbc_text_options.find_message:
   * NULL for the linked messages. */
  pbc_message_finder find_message;
  const void *find_message_ctx;
  /* The extensions printed, as pbc_text_options.extensions: NULL for the
   * linked ones; a non-NULL list with extension_count 0 prints none. */
  const pbc_extension_info *const *extensions;
  size_t extension_count;
  /* Parsing: members the message does not know, and enum names it does
   * not declare, are skipped (JsonParseOptions::ignore_unknown_fields). */
  bool ignore_unknown_fields;
} pbc_json_options;

/* Prints m, a message of type `info`, as JSON into buf: at most cap bytes,
 * no NUL added. *written (if not NULL) is the length of the whole text;
 * when it is larger than cap, buf holds its first cap bytes and the result
 * is PBC_ERR_BUFFER_TOO_SMALL (a NULL buf with cap 0 asks for the length).
 * The bytes of buf past the text (below cap) may have served as scratch.
 * `options` may be NULL for the defaults. */
pbc_status pbc_json_print(const pbc_message_info *info, const void *m,
                          char *buf, size_t cap, size_t *written,
                          const pbc_json_options *options);

/* The same JSON appended to a writer (pbc/writer.h) at its current
 * position; the writer's status after it. On an error the writer keeps
 * what was written before it. */
pbc_status pbc_json_write(const pbc_message_info *info, const void *m,
                          pbc_writer *w, const pbc_json_options *options);

/* ---- Parsing ------------------------------------------------------------ */

/* Why a parse failed, and where: the byte offset into the text of the
 * token (or the character inside a string or number) that went wrong,
 * the text's length for an input that ends too soon. */
typedef struct pbc_json_error {
  size_t offset;
  char message[200]; /* NUL-terminated, cut short if longer */
} pbc_json_error;

/* Parses the `len` bytes at `json` (RFC 8259 JSON, UTF-8) into m, a
 * message of type `info`, which it replaces (as T_decode does): strings,
 * bytes and repeated fields are put in `arena`, nothing points into
 * `json`. It reads what it prints, and all of ProtoJSON: members named by
 * json_name or by the declared name; integers as numbers (an integral
 * value in any form: 1e5, 100000.0) or as strings of decimal digits;
 * floats also as "NaN", "Infinity", "-Infinity" or numeric strings; bytes
 * in standard or URL-safe base64, padded or not; enums by name or number;
 * null for "not set" (for google.protobuf.Value: its null); maps' keys as
 * their values' text; "[pkg.ext]" for the extensions printing names (kept
 * as their records in the unknown fields); every well-known type's form
 * ("@type" anywhere among an Any's members). Where libprotobuf 3.21 is
 * laxer than JSON and the conformance suite, pbc follows the suite: it
 * refuses trailing commas, single quotes, unquoted names, comments,
 * \U escapes, unpaired surrogates, quoted bools, null elements in lists
 * and maps, a member given twice (also by its two names), two members of
 * a oneof, and anything after the value. (docs/json.md lists the rest.)
 *
 * On failure m is left as T_decode leaves it on failure; the result is
 * PBC_ERR_JSON_SYNTAX for text that is not JSON or not a message of the
 * type (an unknown member, a value of the wrong kind), PBC_ERR_JSON_VALUE
 * for a value outside its field's range or form (an integer too large or
 * with a fraction, a float beyond float's range, bad base64, an unknown
 * enum name, a Timestamp that is not RFC 3339 or out of range, ...),
 * PBC_ERR_INVALID_UTF8, PBC_ERR_DEPTH_LIMIT, PBC_ERR_MISSING_REQUIRED,
 * PBC_ERR_NO_NAMES or a memory error, and *error (if not NULL) says where
 * and why. `options` may be NULL for the defaults (of its members, parsing
 * reads ignore_unknown_fields, max_depth, find_message and extensions).
 * Never reads outside the `len` bytes; a NUL among them is an error. */
pbc_status pbc_json_parse(const pbc_message_info *info, void *m,
                          const char *json, size_t len, pbc_arena *arena,
                          const pbc_json_options *options,
                          pbc_json_error *error);

#ifdef __cplusplus
}
#endif

#endif /* PBC_JSON_H */
