//===- EncodingPlan.cpp - each field as every codec role sees it ----------===//
#include "pbc/Dialect/Proto/EncodingPlan.h"
#include "pbc/Dialect/Proto/Naming.h"
#include "pbc/pbc.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace pbc::proto;

std::string pbc::proto::tagBytes(uint32_t number, pbc_wire_type wireType) {
  uint32_t tag = pbc_make_tag(number, wireType);
  uint64_t bytes = pbc_varint_bytes(tag);
  std::string out;
  for (unsigned i = 0, n = pbc_varint_size(tag); i < n; ++i)
    out.push_back(static_cast<char>(bytes >> (8 * i)));
  return out;
}

namespace {

Presence presenceOf(FieldOp field, bool inMapEntry) {
  if (field.isRepeated())
    return Presence::Repeated;
  if (field.isMessageLike())
    return Presence::Pointer;
  if (field.getOneof())
    return Presence::OneofCase;
  if (field.hasPresenceBit())
    return Presence::Bit;
  if (inMapEntry)
    return Presence::Always;
  return Presence::Implicit;
}

} // namespace

EncodingPlan::EncodingPlan(ModuleOp module) {
  llvm::StringMap<EnumOp> enums;
  for (EnumOp e : module.getOps<EnumOp>())
    enums[e.getSymName()] = e;
  llvm::StringMap<FileOp> files;
  for (FileOp f : module.getOps<FileOp>())
    files[f.getName()] = f;
  for (MessageOp m : module.getOps<MessageOp>()) {
    assert(m.hasLayout() && "the encoding plan needs the layout");
    MessagePlan &plan = storage.emplace_back();
    plan.op = m;
    plan.file = files.lookup(m.getFile());
    plan.name = m.getSymName();
    plan.size = *m.getSize();
    plan.presenceWords = m.getPresenceWords().value_or(0);
    plan.extensionRanges = m.getExtensionRanges();
    if (m.keepsUnknownFields())
      plan.unknownOffset = *m.getUnknownOffset();
    plan.isMapEntry = m.getMapEntry();
    order.push_back(&plan);
    byName[plan.name] = &plan;
  }
  // Gathered once: a search of the module per message would be quadratic,
  // and the module grows by a dozen functions per message as it is lowered.
  for (ExtensionOp ext : module.getOps<ExtensionOp>())
    if (MessagePlan *extendee = byName.lookup(ext.getExtendee()))
      extendee->extensions.push_back(ext);

  for (MessagePlan &plan : storage) {
    llvm::DenseMap<Operation *, uint32_t> oneofIndex;
    for (OneofOp oneof : plan.op.getOneofs()) {
      oneofIndex[oneof] = plan.oneofs.size();
      plan.oneofs.push_back(
          {oneof.getName(), static_cast<int64_t>(*oneof.getCaseOffset())});
    }
    for (FieldOp field : plan.op.getFields()) {
      FieldPlan &f = plan.fields.emplace_back();
      const FieldTypeInfo &type = fieldTypeInfo(field.getType());
      f.op = field;
      f.type = &type;
      f.number = field.getNumber();
      f.inMapEntry = plan.isMapEntry;
      f.inOneof = static_cast<bool>(field.getOneof());
      f.presence = presenceOf(field, f.inMapEntry);
      f.alwaysWritten = f.inMapEntry;
      f.packed = field.getPacked();
      f.utf8 = field.getUtf8();
      f.closedEnum = field.getClosed();
      f.offset = *field.getOffset();
      f.presenceBit = field.getPresenceBit().value_or(0);
      f.caseOffset = f.inOneof ? *field.getOneof().getCaseOffset() : 0;
      f.oneofIndex = f.inOneof ? oneofIndex.lookup(field.getOneof()) : 0;
      f.jsonName = field.getJsonName() ? field.getJsonName()->str()
                                       : jsonName(field.getName());
      if (auto typeName = field.getTypeNameAttr()) {
        if (type.isMessage())
          f.message = byName.lookup(typeName.getValue());
        else
          f.enumType = enums.lookup(typeName.getValue());
      }
      f.elementSize = type.isView()      ? PBC_VIEW_BYTES
                      : type.isMessage() ? f.message->size
                                         : type.size;
      f.tag = tagBytes(f.number, type.wireType);
      f.lengthTag = tagBytes(f.number, PBC_WIRE_LEN);
      if (f.isGroup())
        f.endGroupTag = tagBytes(f.number, PBC_WIRE_END_GROUP);
      if (f.alwaysWritten && type.isMessage())
        f.emptyEncoding = f.isGroup() ? f.tag + f.endGroupTag
                                      : f.lengthTag + std::string(1, '\0');
    }
    for (const FieldPlan &f : plan.fields)
      plan.byNumber.push_back(&f);
    llvm::stable_sort(plan.byNumber, [](const FieldPlan *a, const FieldPlan *b) {
      return a->number < b->number;
    });
  }

  // A message's decoder also ends at the END_GROUP of every group field of
  // its type, wherever it is declared.
  for (MessagePlan &plan : storage)
    for (const FieldPlan &f : plan.fields)
      if (f.isGroup())
        byName.lookup(f.message->name)->groupNumbers.push_back(f.number);
}

const MessagePlan &EncodingPlan::message(llvm::StringRef fullName) const {
  MessagePlan *plan = byName.lookup(fullName);
  assert(plan && "a message the plan does not know");
  return *plan;
}
