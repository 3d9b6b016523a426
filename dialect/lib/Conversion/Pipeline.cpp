//===- Pipeline.cpp - pbc's lowering pipeline -----------------------------===//
#include "pbc/Conversion/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "pbc/Dialect/Proto/ProtoOps.h"
#include "pbc/Dialect/Wire/WireOps.h"

using namespace mlir;

namespace {

/// A stage of its own because the C header needs the layout before any code
/// exists, and because lowering a file works on a copy of the schema whose
/// other files' messages are declarations without fields: those can only
/// be laid out in the whole schema.
void addLayoutStage(OpPassManager &pm,
                    const pbc::ProtoSelectTiersOptions &tiers,
                    const pbc::ProtoApplyProfileOptions &profile) {
  pm.addPass(pbc::createProtoLayout());
  if (!profile.profile.empty())
    pm.addPass(pbc::createProtoApplyProfile(profile));
  pm.addPass(pbc::createProtoSelectTiers(tiers));
}

/// Canonicalization belongs to this stage because it is what makes the wire
/// ops worth having (constant sizes fold, adjacent constant writes merge),
/// and `--emit=wire` shows its result. It runs nested on each op of the
/// module, functions and global initializers alike: in parallel, and with
/// worklists the size of one function instead of the whole module (a
/// 5,000-message schema spent half its lowering in module-wide
/// canonicalization).
void addWireStage(OpPassManager &pm, ArrayRef<std::string> files) {
  pbc::ProtoToWireOptions options;
  options.files = files; // copied by the pass when it is created
  pm.addPass(pbc::createProtoToWire(options));
  pm.nestAny().addPass(createCanonicalizerPass());
}

/// Function-local conversions run nested on each function, in parallel;
/// wire-to-llvm and cf-to-llvm add declarations to the module and so run
/// on all of it.
void addLLVMStage(OpPassManager &pm) {
  pm.nest<LLVM::LLVMFuncOp>().addPass(pbc::createLowerSCF());
  pm.addPass(pbc::createWireToLLVM());
  pm.nest<LLVM::LLVMFuncOp>().addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  // No canonicalization at the end: it changed no byte of the objects (the
  // constants it folds become LLVM constants, not instructions, anyway) and
  // cost as much as all the conversions together.
  pm.nest<LLVM::LLVMFuncOp>().addPass(createReconcileUnrealizedCastsPass());
}

} // namespace

void pbc::buildLoweringPipeline(OpPassManager &pm, LoweringStage first,
                                LoweringStage last,
                                ArrayRef<std::string> files,
                                const ProtoSelectTiersOptions &tiers,
                                const ProtoApplyProfileOptions &profile) {
  auto runs = [&](LoweringStage stage) {
    return first <= stage && stage <= last;
  };
  if (runs(LoweringStage::Layout))
    addLayoutStage(pm, tiers, profile);
  if (runs(LoweringStage::Wire))
    addWireStage(pm, files);
  if (runs(LoweringStage::LLVM))
    addLLVMStage(pm);
}

void pbc::registerPipelines() {
  PassPipelineRegistration<>(
      "pbc-lower-to-llvm",
      "Lower a proto schema to LLVM dialect codec functions",
      [](OpPassManager &pm) {
        buildLoweringPipeline(pm, LoweringStage::Layout, LoweringStage::LLVM);
      });
}

void pbc::registerDialects(DialectRegistry &registry) {
  registry.insert<proto::ProtoDialect, wire::WireDialect, LLVM::LLVMDialect,
                  arith::ArithDialect, scf::SCFDialect,
                  cf::ControlFlowDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}
