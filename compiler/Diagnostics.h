//===- Diagnostics.h - MLIR diagnostics in protoc's format ------*- C++ -*-===//
//
// Problems pbc finds in a schema after libprotobuf accepted it (C names
// that clash, a module that does not verify) are printed the way protoc
// prints its own, `file.proto:LINE:COL: message`, so that users read one
// format and editors can jump to the place.
//
//===----------------------------------------------------------------------===//
#ifndef PBC_COMPILER_DIAGNOSTICS_H
#define PBC_COMPILER_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

namespace pbc {

/// While in scope, prints every diagnostic of `context` to `os` as
/// `file.proto:LINE:COL: <prefix>message`, each of its notes after it as
/// `file.proto:LINE:COL: note: message`, and consumes it. A location that
/// is not a position in a file is printed the way MLIR prints it. The
/// severity is not printed: the callers only report errors, and `prefix`
/// says whose.
class ProtocDiagnosticHandler : public mlir::ScopedDiagnosticHandler {
public:
  ProtocDiagnosticHandler(mlir::MLIRContext *context, llvm::raw_ostream &os,
                          llvm::StringRef prefix = "");
};

} // namespace pbc

#endif // PBC_COMPILER_DIAGNOSTICS_H
