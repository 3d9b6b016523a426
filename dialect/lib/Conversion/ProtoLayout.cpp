//===- ProtoLayout.cpp - C struct layout of messages ----------------------===//
//
// The layout is decided once, here, and recorded as attributes: the lowering
// addresses fields by these offsets and the header declares members at them
// (with static asserts), so the two can never silently disagree.
//
//===----------------------------------------------------------------------===//
#include "pbc/Conversion/Passes.h"
#include "pbc/Dialect/Proto/ProtoOps.h"

#include "llvm/Support/MathExtras.h"

namespace pbc {
#define GEN_PASS_DEF_PROTOLAYOUT
#include "pbc/Conversion/Passes.h.inc"
} // namespace pbc

using namespace mlir;
using namespace pbc::proto;

namespace {
struct MemberShape {
  int64_t size;
  int64_t align;
};

/// Size and alignment of a field's struct member on an LP64 target.
MemberShape shapeOf(FieldOp field) {
  if (field.isRepeated())
    return {16, 8}; // { T *data; size_t size; }
  switch (field.getType()) {
  case FieldType::Double:
  case FieldType::Int64:
  case FieldType::UInt64:
  case FieldType::Fixed64:
  case FieldType::SFixed64:
  case FieldType::SInt64:
    return {8, 8};
  case FieldType::Float:
  case FieldType::Int32:
  case FieldType::UInt32:
  case FieldType::Fixed32:
  case FieldType::SFixed32:
  case FieldType::SInt32:
  case FieldType::Enum:
    return {4, 4};
  case FieldType::Bool:
    return {1, 1};
  case FieldType::String:
  case FieldType::Bytes:
    return {16, 8}; // pbc_str / pbc_bytes
  case FieldType::Message:
  case FieldType::Group:
    return {8, 8}; // pointer, NULL when absent
  }
  llvm_unreachable("unknown field type");
}

/// Explicit presence needs a bit, except for sub-messages whose pointer
/// already says whether they are there.
bool needsPresenceBit(FieldOp field) {
  Cardinality c = field.getCardinality();
  return (c == Cardinality::Optional || c == Cardinality::Required) &&
         !field.isMessageLike();
}

void layOut(MessageOp message) {
  Builder b(message.getContext());
  SmallVector<FieldOp> fields(message.getFields());

  int32_t bits = 0;
  for (FieldOp field : fields)
    if (needsPresenceBit(field))
      field.setPresenceBitAttr(b.getI32IntegerAttr(bits++));
    else
      field.removePresenceBitAttr();
  int64_t words = llvm::divideCeil(bits, 32);

  llvm::stable_sort(fields, [](FieldOp a, FieldOp b) {
    return shapeOf(a).align > shapeOf(b).align;
  });
  int64_t offset = words * 4;
  int64_t align = words ? 4 : 1;
  for (FieldOp field : fields) {
    MemberShape shape = shapeOf(field);
    offset = llvm::alignTo(offset, shape.align);
    field.setOffsetAttr(b.getI64IntegerAttr(offset));
    offset += shape.size;
    align = std::max(align, shape.align);
  }
  // C has no empty structs: an empty message gets one char member.
  int64_t size = std::max<int64_t>(llvm::alignTo(offset, align), 1);
  message.setSizeAttr(b.getI64IntegerAttr(size));
  message.setAlignAttr(b.getI64IntegerAttr(align));
  message.setPresenceWordsAttr(b.getI64IntegerAttr(words));
}

struct ProtoLayoutPass : pbc::impl::ProtoLayoutBase<ProtoLayoutPass> {
  void runOnOperation() override {
    for (auto message : getOperation().getOps<MessageOp>())
      layOut(message);
  }
};
} // namespace
