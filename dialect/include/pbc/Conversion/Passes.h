//===- Passes.h - pbc's passes and pipeline ---------------------*- C++ -*-===//
#ifndef PBC_CONVERSION_PASSES_H
#define PBC_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "pbc/Dialect/Proto/ProtoDialect.h"
#include "pbc/Dialect/Wire/WireDialect.h"

namespace pbc {

#define GEN_PASS_DECL
#include "pbc/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "pbc/Conversion/Passes.h.inc"

/// Registers the pipeline `pbc-lower-to-llvm` (everything from a laid-out
/// schema to the LLVM dialect) with the pass registry.
void registerPipelines();

/// Appends the whole lowering: layout, proto-to-wire, canonicalize,
/// wire-to-llvm and MLIR's conversions to the LLVM dialect. Code is generated
/// for the messages of `files` (all when empty); the others are declared.
void buildLowerToLLVMPipeline(mlir::OpPassManager &pm,
                              llvm::ArrayRef<std::string> files = {});

/// Registers every dialect pbc's pipeline touches.
void registerDialects(mlir::DialectRegistry &registry);

} // namespace pbc

#endif
