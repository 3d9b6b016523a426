//===- FieldTypes.cpp - the table of include/runtime/field_types.def ----------===//
#include "pbc/Dialect/Proto/FieldTypes.h"

using namespace pbc::proto;

namespace {
// The proto dialect's FieldType enum (ODS) is descriptor.proto's numbering;
// the table must say the same.
#define PBC_FIELD_TYPE(Name, name, number, wire, repr, ctype, size)            \
  static_assert(static_cast<int>(FieldType::Name) == number,                   \
                "field_types.def: " #Name);
#include "field_types.def"

const FieldTypeInfo kFieldTypes[] = {
#define PBC_FIELD_TYPE(Name, name, number, wire, repr, ctype, size)            \
  {FieldType::Name, #name, number, wire, ValueRepr::repr, #ctype, size},
#include "field_types.def"
};
} // namespace

const FieldTypeInfo &pbc::proto::fieldTypeInfo(FieldType type) {
  // Rows are in descriptor order, from 1.
  const FieldTypeInfo &info = kFieldTypes[static_cast<int>(type) - 1];
  assert(info.type == type && "field_types.def rows are in number order");
  return info;
}
