//===- ProtoOps.cpp - proto dialect verifiers -----------------------------===//
//
// The verifiers reject what protoc rejects, so a module that verifies is a
// schema libprotobuf would accept (pbc-opt reads hand-written modules too).
//
//===----------------------------------------------------------------------===//
#include "pbc/Dialect/Proto/ProtoOps.h"
#include "pbc/Dialect/Proto/FieldTypes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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
  return fieldTypeInfo(type).isPackable();
}

Type pbc::proto::defaultValueType(MLIRContext *ctx, FieldType type) {
  const FieldTypeInfo &info = fieldTypeInfo(type);
  Builder b(ctx);
  switch (info.repr) {
  case ValueRepr::SIGNED:
  case ValueRepr::ZIGZAG:
    return b.getIntegerType(8 * info.size);
  case ValueRepr::UNSIGNED:
    return b.getIntegerType(8 * info.size, /*isSigned=*/false);
  case ValueRepr::BOOL:
    return b.getI1Type();
  case ValueRepr::FLOAT:
    return info.size == 8 ? Type(b.getF64Type()) : Type(b.getF32Type());
  case ValueRepr::VIEW:
    return b.getNoneType();
  case ValueRepr::MESSAGE:
    break;
  }
  return {};
}

namespace {
/// The shortest of the usual precisions that reads back to the same value,
/// as libprotobuf's SimpleDtoa/SimpleFtoa print descriptor defaults.
std::string formatFloating(double value, bool isFloat) {
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  if (std::isnan(value))
    return "nan";
  char buf[64];
  if (isFloat) {
    float f = static_cast<float>(value);
    std::snprintf(buf, sizeof(buf), "%.*g", FLT_DIG, static_cast<double>(f));
    if (std::strtof(buf, nullptr) != f)
      std::snprintf(buf, sizeof(buf), "%.*g", FLT_DECIMAL_DIG,
                    static_cast<double>(f));
  } else {
    std::snprintf(buf, sizeof(buf), "%.*g", DBL_DIG, value);
    if (std::strtod(buf, nullptr) != value)
      std::snprintf(buf, sizeof(buf), "%.*g", DBL_DECIMAL_DIG, value);
  }
  return buf;
}
} // namespace

std::string pbc::proto::defaultValueText(FieldOp field) {
  TypedAttr value = field.getDefaultValueAttr();
  if (auto text = dyn_cast<StringAttr>(value))
    return text.str();
  if (auto number = dyn_cast<FloatAttr>(value))
    return formatFloating(number.getValueAsDouble(),
                          number.getType().isF32());
  auto integer = cast<IntegerAttr>(value);
  if (integer.getType().isInteger(1))
    return integer.getValue().getBoolValue() ? "true" : "false";
  return llvm::toString(integer.getValue(),
                        /*Radix=*/10,
                        /*Signed=*/!integer.getType().isUnsignedInteger());
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
  if (TypedAttr value = getDefaultValueAttr()) {
    if (isRepeated() || isMessageLike())
      return emitOpError("repeated and message fields cannot have a default");
    if (getCardinality() == Cardinality::Implicit)
      return emitOpError("fields with implicit presence cannot have a default");
    // A string, or a number of exactly the field's type.
    Type expected = defaultValueType(getContext(), type);
    bool ok = isa<NoneType>(expected)
                  ? isa<StringAttr>(value)
                  : (isa<IntegerAttr, FloatAttr>(value) &&
                     value.getType() == expected);
    if (!ok) {
      InFlightDiagnostic diag = emitOpError("the default of a ")
                                << stringifyFieldType(type) << " field is ";
      if (isa<NoneType>(expected))
        diag << "a string";
      else
        diag << "of type " << expected;
      return diag << ", not " << value;
    }
  }
  if (getPresenceBit() && !getOffset())
    return emitOpError("has a presence bit but no offset: a layout is all or "
                       "nothing");
  return success();
}

LogicalResult FieldOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto typeName = getTypeNameAttr();
  if (!typeName)
    return success();
  // The module: a message's or an extension's parent.
  Operation *scope = (*this)->getParentOp();
  while (!isa<ModuleOp>(scope))
    scope = scope->getParentOp();
  Operation *target = symbols.lookupNearestSymbolFrom(scope, typeName);
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
  for (FieldOp field : getFields())
    if (std::optional<uint32_t> next = field.getFollowedBy();
        next && (*next == static_cast<uint32_t>(field.getNumber()) ||
                 !numbers.count(static_cast<int32_t>(*next))))
      return field.emitOpError("followed_by ")
             << *next << " is not another field of the message";
  if (failed(verifyLayout()) || failed(verifyExtensionRanges()))
    return failure();
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

llvm::SmallVector<std::pair<int64_t, int64_t>> MessageOp::getExtensionRanges() {
  llvm::SmallVector<std::pair<int64_t, int64_t>> ranges;
  if (std::optional<ArrayRef<int64_t>> flat = getExtensions())
    for (size_t i = 0; i + 1 < flat->size(); i += 2)
      ranges.push_back({(*flat)[i], (*flat)[i + 1]});
  return ranges;
}

/// The encoders place extensions by these ranges and the description
/// carries them: they must be what descriptor.cc lets through, sorted.
LogicalResult MessageOp::verifyExtensionRanges() {
  std::optional<ArrayRef<int64_t>> flat = getExtensions();
  if (!flat)
    return success();
  if (flat->empty() || flat->size() % 2)
    return emitOpError("extensions must be [start, end) pairs");
  if (getMapEntry())
    return emitOpError("is a map entry: it has no extension ranges");
  int64_t last = 0;
  for (auto [start, end] : getExtensionRanges()) {
    // A MessageSet's type ids reach INT32_MAX.
    if (start < 1 || end <= start || end > int64_t(INT32_MAX))
      return emitOpError("extension range [")
             << start << ", " << end << ") is not a range of field numbers";
    if (start < last)
      return emitOpError("extension range [")
             << start << ", " << end
             << ") overlaps or precedes the range before it";
    last = end;
  }
  for (FieldOp field : getFields())
    for (auto [start, end] : getExtensionRanges())
      if (field.getNumber() >= start && field.getNumber() < end)
        return field.emitOpError("field number ")
               << field.getNumber() << " is in the extension range [" << start
               << ", " << end << ")";
  return success();
}

/// The layout pass's attributes are all there or none are: later stages
/// (the lowering, the header generator) read them without checking.
LogicalResult MessageOp::verifyLayout() {
  bool laidOut = getSize().has_value();
  if (getAlign().has_value() != laidOut ||
      getPresenceWords().has_value() != laidOut)
    return emitOpError("has part of a layout: size, align and presence_words "
                       "go together");
  if (getUnknownOffset().has_value() && !(laidOut && keepsUnknownFields()))
    return emitOpError(getMapEntry()
                           ? "is a map entry: it keeps no unknown fields"
                           : "has an unknown_offset but no layout");
  if (laidOut && keepsUnknownFields() && !getUnknownOffset())
    return emitOpError("has a layout but no unknown_offset");
  int64_t bits = laidOut ? *getPresenceWords() * 32 : 0;
  for (FieldOp field : getFields()) {
    if (field.getOffset().has_value() != laidOut)
      return field.emitOpError(laidOut ? "has no offset in a laid-out message"
                                       : "has an offset in a message "
                                         "without a layout");
    if (std::optional<uint32_t> bit = field.getPresenceBit();
        bit && *bit >= bits)
      return field.emitOpError("presence bit ")
             << *bit << " is past the message's " << bits << " bits";
  }
  for (OneofOp oneof : getOneofs())
    if (oneof.getCaseOffset().has_value() != laidOut)
      return oneof.emitOpError(laidOut
                                   ? "has no case_offset in a laid-out message"
                                   : "has a case_offset in a message without "
                                     "a layout");
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
// ExtensionOp
//===----------------------------------------------------------------------===//

FieldOp ExtensionOp::getField() {
  return cast<FieldOp>(getBody().front().front());
}

LogicalResult ExtensionOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.empty() || !isa<FieldOp>(body.front()) ||
      std::next(body.begin()) != body.end())
    return emitOpError("an extension holds exactly one proto.field");
  FieldOp field = getField();
  // protoc: "The extension ... cannot be required" (and has presence).
  Cardinality card = field.getCardinality();
  if (card != Cardinality::Optional && card != Cardinality::Repeated)
    return field.emitOpError("an extension is optional or repeated, not ")
           << stringifyCardinality(card);
  if (field.getOffset() || field.getPresenceBit())
    return field.emitOpError(
        "an extension's field has no layout: it lives in the extendee's "
        "unknown fields");
  if (field.getFollowedBy())
    return field.emitOpError("an extension's field has no followed_by");
  if (getMessageSet() && (field.getType() != FieldType::Message ||
                          card != Cardinality::Optional))
    return emitOpError("a message_set extension is an optional message");
  return success();
}

LogicalResult ExtensionOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto extendee = symbols.lookupNearestSymbolFrom<MessageOp>(
      (*this)->getParentOp(), getExtendeeAttr());
  if (!extendee)
    return emitOpError("extendee ")
           << getExtendeeAttr() << " is not a known message";
  if (extendee.getMapEntry())
    return emitOpError("a map entry cannot be extended");
  // The extendee's own fields, where this module has them (a declaration
  // of another file's message has none).
  int32_t number = getField().getNumber();
  for (FieldOp f : extendee.getFields())
    if (f.getNumber() == number)
      return emitOpError("field number ")
             << number << " is already used by field \"" << f.getName()
             << "\" of " << getExtendeeAttr();
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
