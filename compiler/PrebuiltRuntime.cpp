//===- PrebuiltRuntime.cpp - the table pbc-runtime-objects wrote ----------===//
//
// Compiled twice (CMakeLists.txt): with PBC_PREBUILT_RUNTIME_TABLE, the
// generated PrebuiltRuntimeTable.inc names the objects that
// PrebuiltRuntime.s embeds; without it, the table is empty.
//
//===----------------------------------------------------------------------===//
#include "PrebuiltRuntime.h"

namespace {

struct PrebuiltRuntime {
  const char *triple;
  const char *cpu;
  unsigned optLevel;
  bool sanitizeAddress;
  bool sanitizeCoverage;
  const char *begin, *end;
};

#ifdef PBC_PREBUILT_RUNTIME_TABLE
#include "PrebuiltRuntimeTable.inc"
#else
const PrebuiltRuntime *const kPrebuilt = nullptr;
const size_t kPrebuiltCount = 0;
#endif

} // namespace

std::optional<llvm::StringRef>
pbc::prebuiltRuntimeObject(const CodeGenOptions &resolved) {
  // The JIT links what it calls into the running process: no object.
  if (resolved.jit)
    return std::nullopt;
  for (size_t i = 0; i < kPrebuiltCount; ++i) {
    const PrebuiltRuntime &p = kPrebuilt[i];
    if (resolved.triple == p.triple && resolved.cpu == p.cpu &&
        resolved.optLevel == p.optLevel &&
        resolved.sanitizeAddress == p.sanitizeAddress &&
        resolved.sanitizeCoverage == p.sanitizeCoverage)
      return llvm::StringRef(p.begin, p.end - p.begin);
  }
  return std::nullopt;
}
