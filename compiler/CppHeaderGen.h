//===- CppHeaderGen.h - the C++ wrapper header ------------------*- C++ -*-===//
//
// Writes `STEM.pbc.hpp` (pbc compile --cpp-header): a C++17, header-only
// layer over `STEM.pbc.h`. The message types stay the C structs (so C and
// C++ code share them and the layout asserts), named again in namespaces
// from the package; on top come views (std::string_view, pbc::span), an
// RAII arena and decode/encode functions that return status codes or
// pbc::result<T>, never exceptions.
//
//===----------------------------------------------------------------------===//
#ifndef PBC_COMPILER_CPPHEADERGEN_H
#define PBC_COMPILER_CPPHEADERGEN_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

namespace pbc {

/// Writes the C++ header for `protoFile` (a `proto.file` in `module`, laid
/// out, whose C header emitHeader has already written without errors: the
/// C++ header relies on the names it checked).
mlir::LogicalResult emitCppHeader(mlir::ModuleOp module,
                                  llvm::StringRef protoFile,
                                  llvm::raw_ostream &os);

} // namespace pbc

#endif // PBC_COMPILER_CPPHEADERGEN_H
