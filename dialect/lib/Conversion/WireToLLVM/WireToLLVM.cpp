//===- WireToLLVM.cpp - wire ops to the LLVM dialect ----------------------===//
//
// The pass, and the IR building its patterns share (Patterns.h says which
// file lowers what). Expects structured control flow to be lowered
// already: reading ops split their block to branch to a slow path.
//
//===----------------------------------------------------------------------===//
#include "Patterns.h"

#include "pbc/Conversion/Passes.h"

namespace pbc {
#define GEN_PASS_DEF_WIRETOLLVM
#include "pbc/Conversion/Passes.h.inc"
} // namespace pbc

using namespace mlir;
using namespace pbc::wire;
namespace abi = pbc::abi;

Value Emitter::cst(Type t, int64_t v) {
  return rw.create<LLVM::ConstantOp>(loc, t, rw.getIntegerAttr(t, v));
}

Value Emitter::gep(Value base, Value bytes) {
  return rw.create<LLVM::GEPOp>(loc, ptrTy, i8, base,
                                ArrayRef<LLVM::GEPArg>{bytes});
}

Value Emitter::advance(Value pos, int32_t bytes) {
  return rw.create<LLVM::GEPOp>(loc, ptrTy, i8, pos,
                                ArrayRef<LLVM::GEPArg>{bytes},
                                /*inbounds=*/true);
}

Value Emitter::neg(Value v) {
  return rw.create<LLVM::SubOp>(loc, cst(v.getType(), 0), v);
}

Value Emitter::ptrDiff(Value hi, Value lo) {
  return rw.create<LLVM::SubOp>(loc, rw.create<LLVM::PtrToIntOp>(loc, i64, hi),
                                rw.create<LLVM::PtrToIntOp>(loc, i64, lo));
}

Value Emitter::callRuntime(Operation *from, abi::Runtime fn, ValueRange args) {
  LLVM::LLVMFuncOp f = abi::declareRuntime(
      rw, from->getParentOfType<ModuleOp>(), fn);
  assert(llvm::equal(f.getFunctionType().getParams(), args.getTypes()) &&
         "a runtime call whose arguments differ from runtime/abi.def");
  auto call = rw.create<LLVM::CallOp>(loc, f, args);
  return call.getNumResults() ? call.getResult() : Value();
}

Value Emitter::entryAlloca(Operation *from, Type type) {
  OpBuilder::InsertionGuard guard(rw);
  Block &entry = from->getParentOfType<LLVM::LLVMFuncOp>().getBody().front();
  rw.setInsertionPointToStart(&entry);
  return rw.create<LLVM::AllocaOp>(loc, ptrTy, type, cst(i64, 1));
}

Block *Emitter::splitAt(Operation *op) {
  Block *before = op->getBlock();
  Block *after = rw.splitBlock(before, op->getIterator());
  for (Type t : op->getResultTypes())
    after->addArgument(t, loc);
  rw.setInsertionPointToEnd(before);
  return after;
}

Value Emitter::hasBytes(Value pos, Value n, Value end, bool over) {
  return rw.create<LLVM::ICmpOp>(
      loc, over ? LLVM::ICmpPredicate::ult : LLVM::ICmpPredicate::ule,
      gep(pos, n), end);
}

Value Emitter::hasBytes(Value pos, int64_t n, Value end, bool over) {
  if (n == 0 && over)
    return rw.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ult, pos, end);
  return hasBytes(pos, cst(i64, n), end, over);
}

void Emitter::branchIfMore(bool unchecked, Value pos, Value end, int64_t n,
                           Block *more, Block *fewer) {
  if (unchecked) {
    rw.create<LLVM::BrOp>(loc, ValueRange(), more);
    return;
  }
  rw.create<LLVM::CondBrOp>(loc, hasBytes(pos, n, end, /*over=*/true), more,
                            fewer);
}

namespace {

struct WireToLLVMPass : pbc::impl::WireToLLVMBase<WireToLLVMPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    populateSizePatterns(patterns);
    populateEncodePatterns(patterns);
    populateDecodePatterns(patterns);
    populateRuntimeCallPatterns(patterns);

    ConversionTarget target(*ctx);
    target.addIllegalDialect<WireDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    // One function at a time: the conversion keeps every replaced op until
    // it ends, which over a whole 5,000-message module was a gigabyte. The
    // runtime declarations it adds go at the end of the module, after the
    // functions collected here.
    FrozenRewritePatternSet frozen(std::move(patterns));
    SmallVector<LLVM::LLVMFuncOp> functions(
        getOperation().getOps<LLVM::LLVMFuncOp>());
    for (LLVM::LLVMFuncOp function : functions)
      if (failed(applyPartialConversion(function, target, frozen)))
        return signalPassFailure();
  }
};

} // namespace
