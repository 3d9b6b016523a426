//===- ProtoLayout.cpp - C struct layout of messages ----------------------===//
//
// The layout is decided once, here, and recorded as attributes: the lowering
// addresses fields by these offsets and the header declares members at them
// (with static asserts), so the two can never silently disagree.
//
//===----------------------------------------------------------------------===//
#include "pbc/Conversion/Passes.h"
#include "pbc/Dialect/Proto/FieldTypes.h"
#include "pbc/Dialect/Proto/ProtoOps.h"
#include "pbc/Support/ABI.h"

#include "llvm/Support/MathExtras.h"

#include <functional>

namespace pbc {
#define GEN_PASS_DEF_PROTOLAYOUT
#include "pbc/Conversion/Passes.h.inc"
} // namespace pbc

using namespace mlir;
using namespace pbc::proto;
namespace abi = pbc::abi;

namespace {
struct MemberShape {
  int64_t size;
  int64_t align;
};

/// Size and alignment of a field's struct member on an LP64 target.
MemberShape shapeOf(FieldOp field) {
  const FieldTypeInfo &type = fieldTypeInfo(field.getType());
  if (field.isRepeated() || type.isView())
    return {abi::kViewBytes, abi::kViewAlign}; // { data; size_t size; }
  if (type.isMessage())
    return {abi::kPointerBytes, abi::kPointerBytes}; // NULL when absent
  return {type.size, type.align()};
}

/// Explicit presence needs a bit, except for sub-messages whose pointer
/// already says whether they are there, oneof members (the case says it) and
/// map entry fields (always written).
bool needsPresenceBit(FieldOp field) {
  Cardinality c = field.getCardinality();
  return (c == Cardinality::Optional || c == Cardinality::Required) &&
         !field.isMessageLike() && !field.getOneof() &&
         !field.getParentMessage().getMapEntry();
}

/// One struct member: a field, a oneof's union or case, or the unknown
/// fields. `place` records the offset it gets.
struct Slot {
  MemberShape shape;
  std::function<void(int64_t)> place;
};

void layOut(MessageOp message) {
  Builder b(message.getContext());
  auto offsetAttr = [&](int64_t v) { return b.getI64IntegerAttr(v); };

  // Bits in field-number order: walking the set bits from the highest
  // visits the present fields in the order the table encoder writes them
  // (backwards, highest number first), with no sort.
  SmallVector<FieldOp> byNumber(message.getFields());
  llvm::stable_sort(byNumber, [](FieldOp a, FieldOp b) {
    return a.getNumber() < b.getNumber();
  });
  int32_t bits = 0;
  for (FieldOp field : byNumber)
    if (needsPresenceBit(field))
      field.setPresenceBitAttr(b.getI32IntegerAttr(bits++));
    else
      field.removePresenceBitAttr();
  int64_t words = llvm::divideCeil(bits, 32);

  SmallVector<Slot> slots;
  for (Operation &op : message.getBody().front()) {
    if (auto field = dyn_cast<FieldOp>(op)) {
      slots.push_back({shapeOf(field), [field, offsetAttr](int64_t off) mutable {
                         field.setOffsetAttr(offsetAttr(off));
                       }});
      continue;
    }
    auto oneof = cast<OneofOp>(op);
    MemberShape shape{0, 1};
    for (FieldOp field : oneof.getFields()) {
      MemberShape member = shapeOf(field);
      shape.size = std::max(shape.size, member.size);
      shape.align = std::max(shape.align, member.align);
    }
    slots.push_back({shape, [oneof, offsetAttr](int64_t off) mutable {
                       for (FieldOp field : oneof.getFields())
                         field.setOffsetAttr(offsetAttr(off));
                     }});
    // The case: the field number of the member set, a uint32_t.
    slots.push_back({{4, 4}, [oneof, offsetAttr](int64_t off) mutable {
                       oneof.setCaseOffsetAttr(offsetAttr(off));
                     }});
  }
  if (message.keepsUnknownFields())
    slots.push_back({{abi::kViewBytes, abi::kViewAlign},
                     [message, offsetAttr](int64_t off) mutable {
                       message.setUnknownOffsetAttr(offsetAttr(off));
                     }});
  else
    message.removeUnknownOffsetAttr();

  llvm::stable_sort(slots, [](const Slot &a, const Slot &b) {
    return a.shape.align > b.shape.align;
  });
  int64_t offset = words * 4;
  int64_t align = words ? 4 : 1;
  for (Slot &slot : slots) {
    offset = llvm::alignTo(offset, slot.shape.align);
    slot.place(offset);
    offset += slot.shape.size;
    align = std::max(align, slot.shape.align);
  }
  // C has no empty structs: an empty message gets one char member.
  int64_t size = std::max<int64_t>(llvm::alignTo(offset, align), 1);
  message.setSizeAttr(b.getI64IntegerAttr(size));
  message.setAlignAttr(b.getI64IntegerAttr(align));
  message.setPresenceWordsAttr(b.getI64IntegerAttr(words));
}

struct ProtoLayoutPass : pbc::impl::ProtoLayoutBase<ProtoLayoutPass> {
  void runOnOperation() override {
    // A message with a size keeps its layout, so that running the pass
    // again changes nothing: the driver's per-file copies declare other
    // files' messages without their fields, which could not be laid out
    // again.
    for (auto message : getOperation().getOps<MessageOp>())
      if (!message.getSize())
        layOut(message);
  }
};
} // namespace
