//===- HeaderGen.h - the C header for a compiled .proto file ----*- C++ -*-===//
//
// Writes `STEM.pbc.h`: plain C11 (usable from C++ unchanged) declaring the
// message structs, enums and functions of one .proto file and of everything
// it imports, so that the header is self-contained.
//
//===----------------------------------------------------------------------===//
#ifndef PBC_COMPILER_HEADERGEN_H
#define PBC_COMPILER_HEADERGEN_H

#include "pbc/Dialect/Proto/ProtoOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

namespace pbc {

/// Writes the C header for `protoFile` (a virtual name with a `proto.file`
/// in `module`). The module must have been through the layout pass: every
/// message has `size`, `align`, `presence_words` and (map entries excepted)
/// `unknown_offset`, every oneof `case_offset`, every field `offset` and,
/// when it has a presence bit, `presence_bit`. Emits an error on the
/// module and returns failure if it has not, or if `protoFile` or one of
/// its imports is missing. Two schema entities whose C names would clash
/// (`a.B_C` and `a.B.C`, fields `default` and `default_`, a field `k_case`
/// next to oneof `k`, ...) are reported protoc-style on stderr, each clash
/// at the later entity, and fail without writing anything to `os`.
mlir::LogicalResult emitHeader(mlir::ModuleOp module, llvm::StringRef protoFile,
                               llvm::raw_ostream &os);

/// `protoFile` and every file it imports, transitively, each once and
/// imports first (the order the C and C++ headers define things in). Fails,
/// with an error on the module, when one of them is not in the module.
mlir::LogicalResult
filesInImportOrder(mlir::ModuleOp module, llvm::StringRef protoFile,
                   llvm::SmallVectorImpl<proto::FileOp> &order);

} // namespace pbc

#endif // PBC_COMPILER_HEADERGEN_H
