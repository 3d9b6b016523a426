//===- Passes.h - pbc's passes and pipeline ---------------------*- C++ -*-===//
#ifndef PBC_CONVERSION_PASSES_H
#define PBC_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "pbc/Dialect/Proto/ProtoDialect.h"
#include "pbc/Dialect/Proto/ProtoOps.h"
#include "pbc/Dialect/Wire/WireDialect.h"

namespace pbc {

#define GEN_PASS_DECL
#include "pbc/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "pbc/Conversion/Passes.h.inc"

/// Registers the pipeline `pbc-lower-to-llvm` (every stage, from a schema
/// as imported to the LLVM dialect) with the pass registry.
void registerPipelines();

/// The stages of pbc's lowering, in pipeline order. They are run apart:
/// the driver lays out the whole schema once (the headers read the layout),
/// then runs the later stages on a copy per .proto file; `--emit=wire`
/// stops after Wire; `pbc-lower-to-llvm` runs them all.
enum class LoweringStage {
  /// proto-layout: each message's C struct layout, as attributes; and
  /// proto-select-tiers: each message's tier, which needs the whole schema
  /// (a file's budget counts all its fields).
  Layout,
  /// proto-to-wire and the canonicalization that folds its wire ops.
  Wire,
  /// lower-scf, wire-to-llvm, arith and cf to the LLVM dialect, and the
  /// reconciliation of the casts those conversions leave.
  LLVM,
};

/// Appends the stages `first` to `last` to `pm`, which runs on the module.
/// Code is generated for the messages of `files` (all when empty); the
/// others are declared. `tiers` is the policy of the layout stage's
/// proto-select-tiers; a `profile` file, when given, informs it (and the
/// decoders' chains) through proto-apply-profile.
void buildLoweringPipeline(mlir::OpPassManager &pm, LoweringStage first,
                           LoweringStage last,
                           llvm::ArrayRef<std::string> files = {},
                           const ProtoSelectTiersOptions &tiers = {},
                           const ProtoApplyProfileOptions &profile = {});

/// The mode an `optimize-for` option names (speed, code-size,
/// lite-runtime), or none.
std::optional<proto::OptimizeFor> parseOptimizeFor(llvm::StringRef name);

/// Registers every dialect pbc's pipeline touches.
void registerDialects(mlir::DialectRegistry &registry);

} // namespace pbc

#endif
