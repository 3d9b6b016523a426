//===- FieldTypes.h - what a field's type alone decides ---------*- C++ -*-===//
//
// The compiler's reading of include/runtime/field_types.def: for each
// descriptor.proto field type, its wire type, how the struct keeps it, its
// C type and size. The layout, every codec role and the header generator
// ask this table instead of switching over FieldType themselves.
//
//===----------------------------------------------------------------------===//
#ifndef PBC_DIALECT_PROTO_FIELDTYPES_H
#define PBC_DIALECT_PROTO_FIELDTYPES_H

#include "pbc/Dialect/Proto/ProtoOps.h"
#include "pbc/wire_types.h"

#include "llvm/ADT/StringRef.h"

namespace pbc::proto {

/// How a value is kept in its struct member and goes on the wire (see
/// field_types.def).
enum class ValueRepr : uint8_t {
  SIGNED,
  UNSIGNED,
  ZIGZAG,
  BOOL,
  FLOAT,
  VIEW,
  MESSAGE
};

struct FieldTypeInfo {
  FieldType type;
  llvm::StringLiteral name;
  uint8_t number;
  pbc_wire_type wireType;
  ValueRepr repr;
  llvm::StringLiteral cType;
  uint8_t size;

  unsigned align() const { return size < 8 ? size : 8; }
  /// 4 or 8 for the fixed-width wire types, 0 for the others.
  unsigned fixedWidth() const {
    return wireType == PBC_WIRE_FIXED32   ? 4
           : wireType == PBC_WIRE_FIXED64 ? 8
                                          : 0;
  }
  bool isVarint() const { return wireType == PBC_WIRE_VARINT; }
  /// Scalars: varints and fixed widths, which repeated fields may pack.
  bool isPackable() const { return isVarint() || fixedWidth(); }
  bool isView() const { return repr == ValueRepr::VIEW; }
  bool isMessage() const { return repr == ValueRepr::MESSAGE; }
  /// Bytes a scalar value always takes on the wire (fixed widths, bools),
  /// 0 when that depends on the value.
  unsigned constantWireSize() const {
    return repr == ValueRepr::BOOL ? 1 : fixedWidth();
  }
  /// The most bytes a scalar value takes on the wire: a negative int32 is
  /// a 10-byte varint like any 64-bit value.
  unsigned maxWireSize() const {
    unsigned constant = constantWireSize();
    return constant ? constant : PBC_MAX_VARINT_BYTES;
  }
};

const FieldTypeInfo &fieldTypeInfo(FieldType type);

} // namespace pbc::proto

#endif // PBC_DIALECT_PROTO_FIELDTYPES_H
