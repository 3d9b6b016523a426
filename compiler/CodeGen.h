//===- CodeGen.h - LLVM IR to machine code ----------------------*- C++ -*-===//
//
// The back half of the pipeline: translate the LLVM dialect to LLVM IR, link
// the runtime bitcode in, run LLVM's optimization pipeline and write object
// code, assembly or an archive.
//
//===----------------------------------------------------------------------===//
#ifndef PBC_COMPILER_CODEGEN_H
#define PBC_COMPILER_CODEGEN_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/Timing.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Target;
class TargetMachine;
}

namespace pbc {

struct CodeGenOptions {
  std::string triple; // empty: the host's
  std::string cpu;    // empty: the target's portable baseline
  unsigned optLevel = 2;
  // --sanitize: instrument the generated code (and the runtime linked into
  // it) as clang's -fsanitize=address / -fsanitize=fuzzer would.
  bool sanitizeAddress = false;
  bool sanitizeCoverage = false;
  // The code is linked into a running process (Jit.h), not an executable.
  bool jit = false;
  // An archive's runtime object is the copy pbc was built with for these
  // options when it has one (PrebuiltRuntime.h); false (pbc compile
  // --no-prebuilt-runtime) compiles it anyway, to the same bytes.
  bool prebuiltRuntime = true;
  // -v: translation, runtime linking and optimization are timed under this
  // scope (null: not timed).
  mlir::TimingScope *timing = nullptr;
};

enum class OutputKind { LLVMIR, Bitcode, Assembly, Object };

class CodeGen {
public:
  /// Fails (with a message) when the target is unknown to the linked LLVM.
  static llvm::Expected<std::unique_ptr<CodeGen>>
  create(const CodeGenOptions &options);
  ~CodeGen();

  /// Translates a module in the LLVM dialect, links the runtime into it and
  /// optimizes it. The MLIR module is freed once translated: both forms of
  /// a 5,000-message schema at once doubled the peak memory. With
  /// `runtimeInOwnObject`, the runtime is only inlined: the code expects
  /// the object of emitRuntimeObject next to it (an archive has both).
  /// Fails with an internal error when a call, once the runtime is linked,
  /// does not have its callee's type.
  llvm::Expected<std::unique_ptr<llvm::Module>>
  buildModule(mlir::OwningOpRef<mlir::ModuleOp> module, llvm::StringRef name,
              bool runtimeInOwnObject);

  /// The object an archive's pbc_runtime.o holds: the whole runtime,
  /// optimized and emitted; a copy of those bytes when pbc was built with
  /// them for these options (PrebuiltRuntime.h).
  llvm::Expected<std::string> emitRuntimeObject();

  /// The options with the target resolved: the triple normalized (the
  /// host's when none was given) and the CPU named.
  const CodeGenOptions &getOptions() const { return options; }

  /// Serializes an optimized module in the given form.
  llvm::Expected<std::string> emit(llvm::Module &module, OutputKind kind);

  llvm::LLVMContext &getContext() { return context; }

private:
  CodeGen(const CodeGenOptions &options, const llvm::Target *target);
  /// A machine at `optLevel` (0-3), options.optLevel by default.
  std::unique_ptr<llvm::TargetMachine>
  createMachine(std::optional<unsigned> optLevel = std::nullopt) const;
  /// options.optLevel, or 0 for a module with nothing to optimize.
  unsigned optLevelFor(const llvm::Module &module) const;
  llvm::Error linkRuntime(llvm::Module &module, bool inlineOnly);
  /// The whole runtime, optimized, as a module of its own.
  llvm::Expected<std::unique_ptr<llvm::Module>> buildRuntimeModule();
  void optimize(llvm::Module &module, unsigned optLevel);
  /// A timer for one stage under options.timing (a no-op without -v).
  mlir::TimingScope stage(llvm::StringRef name) {
    return options.timing ? options.timing->nest(name) : mlir::TimingScope();
  }

  CodeGenOptions options;
  llvm::LLVMContext context;
  const llvm::Target *target;
  // Data layout, features and the optimization pipeline; code generation
  // makes a machine of its own per module (see emit).
  std::unique_ptr<llvm::TargetMachine> machine;
};

struct ArchiveMember {
  std::string name;
  std::string data;
};

/// A GNU `ar` archive with a symbol table, written deterministically (no
/// timestamps, uids or modes), so equal inputs give equal bytes.
llvm::Expected<std::string> writeArchive(const std::vector<ArchiveMember> &members);

} // namespace pbc

#endif
