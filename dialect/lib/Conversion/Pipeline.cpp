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

void pbc::buildLowerToLLVMPipeline(OpPassManager &pm,
                                   ArrayRef<std::string> files) {
  pm.addPass(createProtoLayout());
  ProtoToWireOptions options;
  options.files = files; // copied by the pass when it is created
  pm.addPass(createProtoToWire(options));
  // Function-local passes run nested on each function: in parallel, and
  // with worklists the size of one function instead of the whole module
  // (a 5,000-message schema spent half its lowering in module-wide
  // canonicalization).
  OpPassManager &structured = pm.nest<LLVM::LLVMFuncOp>();
  structured.addPass(createCanonicalizerPass());
  structured.addPass(createLowerSCF());
  pm.addPass(createWireToLLVM());
  pm.nest<LLVM::LLVMFuncOp>().addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  // No canonicalization at the end: it changed no byte of the objects (the
  // constants it folds become LLVM constants, not instructions, anyway) and
  // cost as much as all the conversions together.
  pm.nest<LLVM::LLVMFuncOp>().addPass(createReconcileUnrealizedCastsPass());
}

void pbc::registerPipelines() {
  PassPipelineRegistration<>(
      "pbc-lower-to-llvm",
      "Lower a proto schema to LLVM dialect codec functions",
      [](OpPassManager &pm) { buildLowerToLLVMPipeline(pm); });
}

void pbc::registerDialects(DialectRegistry &registry) {
  registry.insert<proto::ProtoDialect, wire::WireDialect, LLVM::LLVMDialect,
                  arith::ArithDialect, scf::SCFDialect,
                  cf::ControlFlowDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}
