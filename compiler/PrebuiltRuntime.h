//===- PrebuiltRuntime.h - runtime objects compiled with pbc ----*- C++ -*-===//
//
// Every archive pbc writes holds pbc_runtime.o: the whole runtime, optimized
// and compiled for the archive's target. For one configuration those bytes
// never change, yet compiling them took six to ten seconds of LLVM, most of
// a small schema's compile. So pbc's build runs pbc-runtime-objects, which
// compiles the runtime with pbc's own code generator (CodeGen, the same
// code, the same options) for the configurations archives most often ask
// for, and links the objects into pbc: an archive for one of those gets a
// copy. Any other configuration (another target or CPU, another -O level)
// compiles its runtime as before. `pbc compile --no-prebuilt-runtime`
// compiles it always; test/lit/emit/prebuilt-runtime.test checks that both
// give the same archive, byte for byte.
//
// pbc and protoc-gen-pbc link the table (pbc_prebuilt_runtime); the tool
// that makes it, and libpbc_jit (which writes no archives), link an empty
// one (pbc_no_prebuilt_runtime): the same source without the table.
//
//===----------------------------------------------------------------------===//
#ifndef PBC_COMPILER_PREBUILTRUNTIME_H
#define PBC_COMPILER_PREBUILTRUNTIME_H

#include "CodeGen.h"

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace pbc {

/// The runtime object pbc was built with for `resolved` (a CodeGen's
/// options, target resolved: CodeGen::getOptions), if any.
std::optional<llvm::StringRef>
prebuiltRuntimeObject(const CodeGenOptions &resolved);

} // namespace pbc

#endif
