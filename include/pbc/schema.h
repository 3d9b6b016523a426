/* Schemas at run time: a FileDescriptorSet (what `protoc
 * --descriptor_set_out --include_imports` writes, or a program builds from
 * its own descriptors) turned into a description (pbc/desc.h) and a
 * pbc_message_info for each of its messages, with no code generated.
 *
 * The descriptions are the ones `pbc compile` would emit for the same
 * files (the same struct layout, kinds, flags, names, defaults and lookup
 * tables), built in memory, so everything that works from a description
 * works on them: the table-driven codec, the text format (pbc/text.h) and
 * the generic calls of pbc.h (pbc_decode, pbc_message_new,
 * pbc_message_encode, ...). A message loaded here has no generated
 * functions: the codec pointers of its pbc_message_info (init, decode,
 * encoded_size, encode, write, is_initialized, internal_decoder,
 * encode_at_end) are NULL, and the pbc_message_* calls run the table codec
 * instead. Every message keeps its field names, whatever its file's
 * optimize_for says.
 *
 * What is read: proto2, proto3 and editions 2023/2024 files (their
 * features resolved as protoc resolves them: presence, enum openness,
 * packed encoding, UTF-8 checks, delimited encoding), messages, nested
 * messages, enums, oneofs, proto3 `optional`, maps, groups, defaults and
 * json_name (derived when the set has none), and extensions (the records
 * `pbc compile` emits, pbc/desc.h's pbc_extension_info: pbc.h's
 * pbc_extension_* read and write them, and the text format names them when
 * its options list pbc_schema_extensions). Services are skipped. A file that appears twice keeps its first definition, as in
 * protoc; otherwise the set is read as libprotobuf reads one (the last of
 * a repeated singular field wins, a record of the wrong wire type is an
 * unknown field, defaults parsed by its rules).
 *
 * The input is untrusted: a set that is not one, or one whose files
 * contradict themselves (a type that is not defined, a field number used
 * twice, a default that is not a value of its field) is refused with
 * PBC_ERR_BAD_SCHEMA and a message naming the file, message and field,
 * never a crash. Besides what libprotobuf's DescriptorPool refuses, pbc
 * refuses a type name that is not fully qualified (".pkg.Msg", as protoc
 * writes them), a field with neither a type nor a type name, messages
 * nested more than 100 deep and a string holding a NUL byte. Plain C11. */
#ifndef PBC_SCHEMA_H
#define PBC_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include "pbc/pbc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Everything a loaded set describes, in memory it owns. */
typedef struct pbc_schema pbc_schema;

typedef struct pbc_schema_error {
  char message[256]; /* NUL-terminated, cut short if longer */
} pbc_schema_error;

/* Reads the `len` bytes at `set`, a serialized
 * google.protobuf.FileDescriptorSet (several sets concatenated are one set
 * of all their files). On success *schema is the new schema, to be freed
 * with pbc_schema_free; nothing in it points into `set`. On failure
 * *schema is NULL, the result is PBC_ERR_BAD_SCHEMA (or
 * PBC_ERR_OUT_OF_MEMORY) and *error (if not NULL) says why. */
pbc_status pbc_schema_load(const uint8_t *set, size_t len, pbc_schema **schema,
                           pbc_schema_error *error);

/* Frees the schema and everything it returned; NULL does nothing. Messages
 * decoded with its descriptions must not be read after it. */
void pbc_schema_free(pbc_schema *schema);

/* The message or enum of that full name ("pkg.Msg", "pkg.Msg.Nested"; no
 * leading dot), or NULL. */
const pbc_message_info *pbc_schema_find_message(const pbc_schema *schema,
                                                const char *full_name);
const pbc_enum_info *pbc_schema_find_enum(const pbc_schema *schema,
                                          const char *full_name);

/* The extension of that full name ("pkg.Scope.ext"), or NULL. */
const pbc_extension_info *pbc_schema_find_extension(const pbc_schema *schema,
                                                    const char *full_name);
/* Every extension the set declares, as the schema holds them: *count of
 * them, for pbc_text_options.extensions. */
const pbc_extension_info *const *
pbc_schema_extensions(const pbc_schema *schema, size_t *count);

/* pbc_schema_find_message as a pbc_message_finder (pbc.h), `ctx` the
 * schema: what the text format's find_message option takes, so that an
 * Any holding one of the schema's messages is read and printed expanded. */
const pbc_message_info *pbc_schema_finder(const void *ctx,
                                          const char *full_name);

/* Every message (map entries included) in file order, each file's
 * messages as declared, nested ones after their parent: i from 0 to
 * pbc_schema_message_count()-1. */
size_t pbc_schema_message_count(const pbc_schema *schema);
const pbc_message_info *pbc_schema_message_at(const pbc_schema *schema,
                                              size_t i);

#ifdef __cplusplus
}
#endif

#endif /* PBC_SCHEMA_H */
