//===- ProtoOps.cpp - proto dialect verifiers -----------------------------===//
//
// The verifiers reject what protoc rejects, so a module that verifies is a
// schema libprotobuf would accept (pbc-opt reads hand-written modules too).
//
//===----------------------------------------------------------------------===//
#include "pbc/Dialect/Proto/ProtoOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace pbc::proto;

#include "pbc/Dialect/Proto/ProtoEnums.cpp.inc"
#define GET_OP_CLASSES
#include "pbc/Dialect/Proto/ProtoOps.cpp.inc"

namespace {
constexpr int64_t kMaxFieldNumber = (1 << 29) - 1;
constexpr int64_t kReservedFirst = 19000;
constexpr int64_t kReservedLast = 19999;
} // namespace

bool pbc::proto::isPackable(FieldType type) {
  switch (type) {
  case FieldType::String:
  case FieldType::Bytes:
  case FieldType::Message:
  case FieldType::Group:
    return false;
  default:
    return true;
  }
}

//===----------------------------------------------------------------------===//
// FieldOp
//===----------------------------------------------------------------------===//

LogicalResult FieldOp::verify() {
  int64_t number = getNumber();
  if (number < 1 || number > kMaxFieldNumber)
    return emitOpError("field number ")
           << number << " is out of range [1, " << kMaxFieldNumber << "]";
  if (number >= kReservedFirst && number <= kReservedLast)
    return emitOpError("field number ")
           << number << " is in the range 19000-19999 reserved by protobuf";

  FieldType type = getType();
  bool needsTypeName = type == FieldType::Message ||
                       type == FieldType::Group || type == FieldType::Enum;
  if (needsTypeName != getTypeName().has_value())
    return needsTypeName
               ? emitOpError("a ") << stringifyFieldType(type)
                                   << " field needs a type name"
               : emitOpError("a ") << stringifyFieldType(type)
                                   << " field cannot have a type name";

  if (getPacked() && !(isRepeated() && isPackable(type)))
    return emitOpError("only repeated scalar fields can be packed");
  if (getUtf8() && type != FieldType::String)
    return emitOpError("only string fields can require UTF-8");
  if (getClosed() && type != FieldType::Enum)
    return emitOpError("only enum fields can be closed");
  if (isMessageLike() && getCardinality() == Cardinality::Implicit)
    return emitOpError("message fields always have explicit presence");
  if (getDefaultValue()) {
    if (isRepeated() || isMessageLike())
      return emitOpError("repeated and message fields cannot have a default");
    if (getCardinality() == Cardinality::Implicit)
      return emitOpError("fields with implicit presence cannot have a default");
  }
  return success();
}

LogicalResult FieldOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto typeName = getTypeNameAttr();
  if (!typeName)
    return success();
  Operation *target = symbols.lookupNearestSymbolFrom(
      getParentMessage()->getParentOp(), typeName);
  if (getType() == FieldType::Enum) {
    if (!isa_and_nonnull<EnumOp>(target))
      return emitOpError("type ") << typeName << " is not a known enum";
    if (getClosed() != cast<EnumOp>(target).getClosed())
      return emitOpError("`closed` must match enum ") << typeName;
    return success();
  }
  if (!isa_and_nonnull<MessageOp>(target))
    return emitOpError("type ") << typeName << " is not a known message";
  return success();
}

//===----------------------------------------------------------------------===//
// MessageOp
//===----------------------------------------------------------------------===//

SmallVector<FieldOp> MessageOp::getFields() {
  SmallVector<FieldOp> fields;
  for (Operation &op : getBody().front()) {
    if (auto field = dyn_cast<FieldOp>(op))
      fields.push_back(field);
    else if (auto oneof = dyn_cast<OneofOp>(op))
      llvm::append_range(fields, oneof.getFields());
  }
  return fields;
}

LogicalResult MessageOp::verifyRegions() {
  llvm::DenseMap<int32_t, FieldOp> numbers;
  llvm::StringSet<> names;
  for (Operation &op : getBody().front())
    if (!isa<FieldOp, OneofOp>(op))
      return op.emitOpError("is not allowed in a message");
  for (FieldOp field : getFields()) {
    auto [it, fresh] = numbers.try_emplace(field.getNumber(), field);
    if (!fresh)
      return field.emitOpError("field number ")
             << field.getNumber() << " is already used by field \""
             << it->second.getName() << "\"";
    if (!names.insert(field.getName()).second)
      return field.emitOpError("field name \"")
             << field.getName() << "\" is already used";
  }
  if (getMapEntry()) {
    SmallVector<FieldOp> fields = getFields();
    if (fields.size() != 2 || fields[0].getNumber() != 1 ||
        fields[1].getNumber() != 2 || fields[0].isRepeated() ||
        fields[1].isRepeated() || fields[0].isMessageLike() ||
        fields[0].getType() == FieldType::Float ||
        fields[0].getType() == FieldType::Double ||
        fields[0].getType() == FieldType::Bytes ||
        fields[0].getType() == FieldType::Enum)
      return emitOpError("a map entry has a scalar or string key = 1 and a "
                         "singular value = 2");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// OneofOp
//===----------------------------------------------------------------------===//

LogicalResult OneofOp::verifyRegions() {
  bool empty = true;
  for (Operation &op : getBody().front()) {
    auto field = dyn_cast<FieldOp>(op);
    if (!field)
      return op.emitOpError("is not allowed in a oneof");
    if (field.getCardinality() != Cardinality::Optional)
      return field.emitOpError("a oneof member is a singular optional field");
    empty = false;
  }
  if (empty)
    return emitOpError("a oneof needs at least one field");
  return success();
}

//===----------------------------------------------------------------------===//
// EnumOp
//===----------------------------------------------------------------------===//

LogicalResult EnumOp::verifyRegions() {
  llvm::StringSet<> names;
  // int64_t keys: DenseMap<int32_t> reserves INT32_MAX and INT32_MIN, which
  // are valid enum numbers.
  llvm::DenseMap<int64_t, EnumValueOp> numbers;
  bool first = true;
  for (Operation &op : getBody().front()) {
    auto value = dyn_cast<EnumValueOp>(op);
    if (!value)
      return op.emitOpError("is not allowed in an enum");
    if (first && !getClosed() && value.getNumber() != 0)
      return value.emitOpError(
          "the first value of an open (proto3) enum must be zero");
    first = false;
    if (!names.insert(value.getName()).second)
      return value.emitOpError("enumerator \"")
             << value.getName() << "\" is already defined";
    int32_t number = value.getNumber();
    auto [it, fresh] = numbers.try_emplace(number, value);
    if (!fresh && !getAllowAlias())
      return value.emitOpError("value ")
             << number << " is already used by \""
             << it->second.getName() << "\" (set allow_alias to allow it)";
  }
  if (first)
    return emitOpError("an enum needs at least one value");
  return success();
}

MessageOp FieldOp::getParentMessage() {
  return (*this)->getParentOfType<MessageOp>();
}

OneofOp FieldOp::getOneof() { return dyn_cast<OneofOp>((*this)->getParentOp()); }
