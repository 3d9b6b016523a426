//===- Init.cpp - T_init: zero, then the proto2 defaults ------------------===//
#include "CodecContext.h"

#include "pbc/Dialect/Proto/Naming.h"

using namespace mlir;
using namespace pbc::proto;

namespace {

/// Stores a field's proto2 default, which the verifier typed as the field.
void storeDefault(CodecContext &cx, const MessagePlan &m, Value msg,
                  const FieldPlan &f, TypedAttr value) {
  OpBuilder &b = cx.b;
  Location loc = cx.loc;
  Value addr = cx.fieldAddr(msg, f);
  if (auto text = dyn_cast<StringAttr>(value)) {
    std::string name = internalDefaultString(m.name, f.op.getName());
    cx.stringGlobal(name, text.getValue());
    cx.store(b.create<LLVM::AddressOfOp>(loc, cx.ptrTy, name), addr);
    cx.store(cx.cst(cx.i64, text.size()), cx.viewSizeAddr(addr));
    return;
  }
  Type t = cx.storageType(*f.type);
  if (auto number = dyn_cast<FloatAttr>(value)) {
    cx.store(b.create<arith::ConstantOp>(loc, t, number), addr);
    return;
  }
  // Integers (bools as a byte) keep their bits: unsigned values above
  // INT64_MAX too.
  APInt bits = cast<IntegerAttr>(value).getValue();
  cx.store(cx.cst(t, static_cast<int64_t>(bits.getZExtValue())), addr);
}

} // namespace

void pbc::proto::buildInit(CodecContext &cx, const MessagePlan &m) {
  Block *entry = cx.define(m, pbc::abi::Role::Init);
  Value msg = entry->getArgument(0);
  cx.b.create<LLVM::MemsetOp>(cx.loc, msg, cx.cst(cx.i8, 0),
                              cx.cst(cx.i64, m.size), /*isVolatile=*/false);
  // Oneof members share one union: their defaults would overwrite each
  // other, and an unset member is never written anyway.
  for (const FieldPlan &f : m.fields)
    if (TypedAttr value = f.op.getDefaultValueAttr(); value && !f.inOneof)
      storeDefault(cx, m, msg, f, value);
  cx.b.create<LLVM::ReturnOp>(cx.loc, ValueRange());
}
