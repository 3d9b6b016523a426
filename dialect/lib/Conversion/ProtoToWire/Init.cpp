//===- Init.cpp - T_init: zero, then the proto2 defaults ------------------===//
//
// The defaults' one home is the description's prototype (Description.cpp),
// the struct T_init makes, which the table codec copies whole. Generated
// code zeroes the struct and copies each defaulted member from it: LLVM
// folds those small copies from constant data into stores of constants,
// fewer bytes to write than the whole prototype, and strings point into
// the description's pool (no second copy of their text).
//
//===----------------------------------------------------------------------===//
#include "CodecContext.h"

using namespace mlir;
using namespace pbc::proto;

void pbc::proto::buildInit(CodecContext &cx, const MessagePlan &m,
                           const Description &desc) {
  OpBuilder &b = cx.b;
  Block *entry = cx.define(m, pbc::abi::Role::Init);
  Value msg = entry->getArgument(0);
  b.create<LLVM::MemsetOp>(cx.loc, msg, cx.cst(cx.i8, 0),
                           cx.cst(cx.i64, m.size), /*isVolatile=*/false);
  // Oneof members share one union: their defaults would overwrite each
  // other, and an unset member is never written anyway (the prototype
  // leaves them out).
  if (desc.prototype) {
    Value prototype = b.create<LLVM::AddressOfOp>(cx.loc, desc.prototype);
    for (const FieldPlan &f : m.fields) {
      if (!f.op.getDefaultValueAttr() || f.inOneof)
        continue;
      // A view in its two 8-byte members, each a copy LLVM folds.
      SmallVector<std::pair<int64_t, int64_t>, 2> parts;
      if (f.type->isView())
        parts = {{PBC_VIEW_DATA_OFFSET, 8}, {PBC_VIEW_SIZE_OFFSET, 8}};
      else
        parts = {{0, f.type->size}};
      for (auto [at, n] : parts)
        b.create<LLVM::MemcpyOp>(cx.loc, cx.offsetPtr(msg, f.offset + at),
                                 cx.offsetPtr(prototype, f.offset + at),
                                 cx.cst(cx.i64, n), /*isVolatile=*/false);
    }
  }
  b.create<LLVM::ReturnOp>(cx.loc, ValueRange());
}
