//===- LowerSCF.cpp - scf to cf, last op first ----------------------------===//
//
// Reuses MLIR's scf-to-cf patterns; only the order and the driver are ours
// (see Passes.td for why).
//
//===----------------------------------------------------------------------===//
#include "pbc/Conversion/Passes.h"

#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace pbc {
#define GEN_PASS_DEF_LOWERSCF
#include "pbc/Conversion/Passes.h.inc"
} // namespace pbc

using namespace mlir;

namespace {

struct LowerSCFPass : pbc::impl::LowerSCFBase<LowerSCFPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateSCFToControlFlowConversionPatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    // Post-order puts nested ops before their parents and a block's ops in
    // order; the driver pops its worklist from the back, so the last
    // outermost op is lowered first and inner ones after their parent has
    // become blocks. Only scf.if and scf.for, what proto-to-wire builds:
    // upstream's other patterns rely on the conversion driver's deferred
    // erasure.
    SmallVector<Operation *> ops;
    getOperation()->walk<WalkOrder::PostOrder>([&](Operation *op) {
      if (isa<scf::IfOp, scf::ForOp>(op))
        ops.push_back(op);
    });
    GreedyRewriteConfig config;
    config.strictMode = GreedyRewriteStrictness::ExistingOps;
    if (!ops.empty() && failed(applyOpPatternsAndFold(ops, frozen, config)))
      return signalPassFailure();
    // Anything else the upstream way.
    ConversionTarget target(getContext());
    target.addIllegalDialect<scf::SCFDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(getOperation(), target, frozen)))
      signalPassFailure();
  }
};

} // namespace
