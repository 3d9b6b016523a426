//===- Jit.h - a schema's code compiled into the running process -*- C++ -*-===//
//
// `pbc decode --jit` and pbc_jit_load (pbc/jit.h): the code `pbc compile`
// would write for a schema, compiled by the same pipeline and linked into
// this process by LLVM's ORC JIT instead of written to an archive. Its
// messages' pbc_message_info records are those a linked library would
// have, so every generic function of the runtime (pbc_decode,
// pbc_text_print, pbc_message_equal, ...) takes them: specialized machine
// code for a schema known only at run time, where pbc_schema_load
// (pbc/schema.h) gives the table codec.
//
//===----------------------------------------------------------------------===//
#ifndef PBC_COMPILER_JIT_H
#define PBC_COMPILER_JIT_H

#include "Driver.h"

#include "pbc/pbc.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <memory>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace pbc {

class JitSchema {
public:
  /// Compiles `imported` (a successful import; its module is lowered in
  /// place, as compileImported does) with `options`' tiers and
  /// optimization level, for this machine's CPU unless options.codegen
  /// names one, and links the code into the process. Compile errors are
  /// printed to stderr as `pbc compile` prints them; the Error says which
  /// stage failed.
  static llvm::Expected<std::unique_ptr<JitSchema>>
  compile(mlir::MLIRContext &context, ImportResult &imported,
          DriverOptions options);
  ~JitSchema();

  /// The record of a message of the schema (or of its imports), by full
  /// name without a leading dot; null when there is none. Valid while the
  /// JitSchema lives: the code and data are freed with it.
  const pbc_message_info *find(llvm::StringRef fullName) const;
  /// find as a pbc_message_finder (pbc.h), `ctx` the JitSchema.
  static const pbc_message_info *finder(const void *ctx, const char *fullName);

  size_t messageCount() const { return ordered.size(); }
  /// The messages in the schema's order (imports first).
  const pbc_message_info *messageAt(size_t i) const { return ordered[i]; }

  /// Every extension the schema declares (pbc_text_options.extensions).
  llvm::ArrayRef<const pbc_extension_info *> extensions() const {
    return extensionRecords;
  }

private:
  JitSchema() = default;

  std::unique_ptr<llvm::orc::LLJIT> jit;
  llvm::StringMap<const pbc_message_info *> byName;
  std::vector<const pbc_message_info *> ordered;
  std::vector<const pbc_extension_info *> extensionRecords;
};

} // namespace pbc

#endif // PBC_COMPILER_JIT_H
