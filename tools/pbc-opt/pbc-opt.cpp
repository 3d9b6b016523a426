//===- pbc-opt.cpp - mlir-opt with pbc's dialects and passes --------------===//
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Conversion/Passes.h"
#include "pbc/Conversion/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  pbc::registerDialects(registry);
  mlir::registerTransformsPasses();
  mlir::registerArithToLLVMConversionPass();
  mlir::registerConvertControlFlowToLLVMPass();
  mlir::registerSCFToControlFlowPass();
  mlir::registerReconcileUnrealizedCastsPass();
  pbc::registerPBCPasses();
  pbc::registerPipelines();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "pbc optimizer driver\n", registry));
}
