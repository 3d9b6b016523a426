//===- IsInitialized.cpp - proto2 required fields, through the tree -------===//
//
// T_is_initialized: every required field of the message is set, and every
// sub-message it holds is initialized too (as libprotobuf's
// IsInitialized), which T_decode checks after parsing.
//
//===----------------------------------------------------------------------===//
#include "CodecContext.h"

using namespace mlir;
using namespace pbc::proto;
using pbc::abi::Role;

namespace {

Value subMessagesInitialized(CodecContext &cx, Value msg, const FieldPlan &f) {
  OpBuilder &b = cx.b;
  Location loc = cx.loc;
  Value addr = cx.fieldAddr(msg, f);
  if (f.isRepeated()) {
    Value data = cx.viewData(addr);
    Value count = cx.viewSize(addr);
    auto loop = b.create<scf::ForOp>(
        loc, cx.cst(cx.i64, 0), count, cx.cst(cx.i64, 1),
        ValueRange{cx.cst(cx.i1, 1)},
        [&](OpBuilder &, Location, Value i, ValueRange acc) {
          Value off = b.create<arith::MulIOp>(loc, i, cx.cst(cx.i64, f.elementSize));
          Value ok = cx.call(*f.message, Role::IsInitialized,
                             cx.offsetPtr(data, off));
          b.create<scf::YieldOp>(
              loc, ValueRange{b.create<arith::AndIOp>(loc, acc[0], ok)});
        });
    return loop.getResult(0);
  }
  Value sub = cx.load(cx.ptrTy, addr);
  bool required = f.op.getCardinality() == Cardinality::Required;
  auto ifOp = b.create<scf::IfOp>(
      loc, cx.isMessagePresent(msg, f, sub),
      [&](OpBuilder &, Location) {
        b.create<scf::YieldOp>(loc, cx.call(*f.message, Role::IsInitialized, sub));
      },
      [&](OpBuilder &, Location) {
        b.create<scf::YieldOp>(loc, cx.cst(cx.i1, required ? 0 : 1));
      });
  return ifOp.getResult(0);
}

} // namespace

void pbc::proto::buildIsInitialized(CodecContext &cx, const MessagePlan &m) {
  Block *entry = cx.define(m, Role::IsInitialized);
  Value msg = entry->getArgument(0);
  Value ok = cx.cst(cx.i1, 1);
  for (const FieldPlan &f : m.fields) {
    if (f.op.getCardinality() == Cardinality::Required && !f.type->isMessage())
      ok = cx.b.create<arith::AndIOp>(cx.loc, ok, cx.hasBit(msg, f));
    if (f.type->isMessage())
      ok = cx.b.create<arith::AndIOp>(cx.loc, ok,
                                      subMessagesInitialized(cx, msg, f));
  }
  cx.b.create<LLVM::ReturnOp>(cx.loc, ok);
}
