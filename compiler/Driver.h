//===- Driver.h - one compilation, from descriptors to outputs --*- C++ -*-===//
//
// What `pbc compile` and `protoc-gen-pbc` share: given an imported schema
// (a `proto` dialect module) and the options, produce every output file in
// memory. Both front doors only differ in how they get the schema (a .proto
// file, a descriptor set, or protoc's CodeGeneratorRequest) and where they
// write the files, so the bytes they produce are the same.
//
//===----------------------------------------------------------------------===//
#ifndef PBC_COMPILER_DRIVER_H
#define PBC_COMPILER_DRIVER_H

#include "CodeGen.h"
#include "Frontend.h"

#include "pbc/Conversion/Passes.h"

#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace pbc {

enum class Emit { Lib, Obj, Asm, LLVM, Bc, Mlir, Wire, Header };

/// The output kind an output path implies (`.a` lib, `.o` obj, ...; lib
/// when the extension says nothing).
Emit emitFromExtension(llvm::StringRef path);

struct DriverOptions {
  /// Path of the main output.
  std::string output;
  /// Where STEM.pbc.h and the runtime headers (pbc/*.h) go; empty: the
  /// output's folder.
  std::string headerDir;
  /// What to write to `output`; unset: from its extension.
  std::optional<Emit> emit;
  CodeGenOptions codegen;
  /// Also write STEM.pbc.hpp (C++ wrapper) next to each STEM.pbc.h.
  bool cppHeader = false;
  /// Write STEM.pbc.h and the runtime headers; false for code that is not
  /// compiled against (--jit: the object is linked into the running pbc).
  bool headers = true;
  /// -v: each stage is timed under this scope (null: not timed).
  mlir::TimingScope *timing = nullptr;
  /// An archive's objects compiled at once (--jobs); 0: one per hardware
  /// thread. -v compiles them one at a time.
  unsigned jobs = 0;
  /// --optimize-for and --code-budget: which messages get specialized code.
  ProtoSelectTiersOptions tiers;
  /// --profile: the sample payloads' profile that informs them.
  ProtoApplyProfileOptions profile;
};

/// File contents by path, written together once everything succeeded.
using OutputMap = std::map<std::string, std::string>;

/// Compiles `imported` (a successful import) as `options` say and adds the
/// files to write to `outputs`. Prints errors (`pbc: error: ...`) to stderr
/// and returns non-zero on failure; `outputs` is then incomplete and must
/// not be written.
int compileImported(mlir::MLIRContext &context, ImportResult &imported,
                    const DriverOptions &options, OutputMap &outputs);

/// Writes each output through a temporary file renamed into place, so a
/// reader never sees a half-written file. Returns non-zero on failure.
int writeOutputs(const OutputMap &outputs);

/// A make-style depfile: `target: dep...`, spaces and `$`/`#` escaped as
/// make and ninja read them.
std::string depfile(llvm::StringRef target,
                    const std::vector<std::string> &deps);

/// A context with every dialect pbc uses loaded and diagnostics set up the
/// way the driver prints them.
void setUpContext(mlir::MLIRContext &context);

/// Prints `pbc: error: MESSAGE` and returns 1.
int fail(const llvm::Twine &message);

} // namespace pbc

#endif // PBC_COMPILER_DRIVER_H
