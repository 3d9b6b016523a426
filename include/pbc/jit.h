/* pbc/jit.h: a schema known only at run time, compiled to machine code in
 * the process.
 *
 * pbc_schema_load (pbc/schema.h) turns a FileDescriptorSet into
 * descriptions that the runtime's table codec drives: ready in
 * microseconds, with no compiler in the process. pbc_jit_load compiles the
 * same set with pbc's whole compiler (the pipeline `pbc compile` runs, at
 * the same optimization level and with the same tiers) and links the code
 * into the process with LLVM's ORC JIT: it takes as long as compiling the
 * schema ahead of time (docs/cli.md has figures) and decodes at the speed
 * of a library linked ahead of time. Either way the result is a set of
 * pbc_message_info records, which every generic function of pbc.h and
 * pbc/text.h takes (pbc_decode, pbc_message_encode, pbc_text_print,
 * pbc_message_equal, ...).
 *
 * This is libpbc_jit (link with -lpbc_jit, or the pbc::jit target of
 * find_package(pbc)), a shared library that holds the compiler and depends
 * on LLVM's, MLIR's and libprotobuf's; generated code and pbc_runtime need
 * none of it. pbc_jit_load may be called from any thread (loads run one
 * at a time); a loaded schema is read-only and may be used from every
 * thread. */
#ifndef PBC_JIT_H
#define PBC_JIT_H

#include "pbc/pbc.h"
#include "pbc/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pbc_jit_schema pbc_jit_schema;

typedef struct pbc_jit_options {
  /* LLVM's optimization level, 0-3, as `pbc compile -O`: 2 makes the code
   * a linked library has, 0 compiles several times faster (at -O0 the
   * runtime's functions are still inlined into the generated code). */
  unsigned opt_level;
  /* As `pbc compile --optimize-for`: "speed" (specialized code for every
   * message), "code-size" or "lite-runtime" (the table codec for every
   * message); NULL: as each file's `option optimize_for` says, and
   * code_budget for the files without one. */
  const char *optimize_for;
  /* As `pbc compile --code-budget`, in bytes; 0: pbc compile's default. */
  uint64_t code_budget;
} pbc_jit_options;

/* What a NULL options pointer means. */
#define PBC_JIT_OPTIONS_DEFAULT {2, NULL, 0}

/* Compiles every file of the `len` bytes at `set`, a serialized
 * google.protobuf.FileDescriptorSet that holds them and their imports
 * (`protoc --include_imports --descriptor_set_out`; the well-known types
 * may be left out), for this machine's CPU. On success *schema is the new
 * schema, to be freed with pbc_jit_free; nothing in it points into `set`.
 * On failure *schema is NULL, the result is PBC_ERR_BAD_SCHEMA (the set
 * is not a FileDescriptorSet, a file's descriptor is invalid, an option is
 * out of range) and *error (if not NULL) holds the first error the
 * compiler reported. */
pbc_status pbc_jit_load(const uint8_t *set, size_t len,
                        const pbc_jit_options *options, pbc_jit_schema **schema,
                        pbc_schema_error *error);

/* Frees the schema, its code and its records; NULL does nothing. Messages
 * decoded through its records must not be used after it. */
void pbc_jit_free(pbc_jit_schema *schema);

/* The record of the message of that full name ("pkg.Msg"; no leading
 * dot), or NULL. */
const pbc_message_info *pbc_jit_find_message(const pbc_jit_schema *schema,
                                             const char *full_name);

/* pbc_jit_find_message as a pbc_message_finder (pbc.h), `ctx` the schema,
 * for the text format's find_message option. */
const pbc_message_info *pbc_jit_finder(const void *ctx, const char *full_name);

/* Every message of the schema, imports first, i from 0 to count-1. */
size_t pbc_jit_message_count(const pbc_jit_schema *schema);
const pbc_message_info *pbc_jit_message_at(const pbc_jit_schema *schema,
                                           size_t i);

#ifdef __cplusplus
}
#endif

#endif /* PBC_JIT_H */
