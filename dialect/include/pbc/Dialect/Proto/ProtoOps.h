//===- ProtoOps.h - proto dialect operations --------------------*- C++ -*-===//
#ifndef PBC_DIALECT_PROTO_PROTOOPS_H
#define PBC_DIALECT_PROTO_PROTOOPS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "pbc/Dialect/Proto/ProtoDialect.h"

#include "pbc/Dialect/Proto/ProtoEnums.h.inc"

namespace pbc::proto {
class MessageOp;
class OneofOp;
class FieldOp;
class EnumOp;
} // namespace pbc::proto

#define GET_OP_CLASSES
#include "pbc/Dialect/Proto/ProtoOps.h.inc"

#include <string>

namespace pbc::proto {
/// Scalar types that may be packed: everything but strings, bytes, messages
/// and groups.
bool isPackable(FieldType type);
/// The type a field's `default` has: `i32`, `ui64`, `f32`, `i1`..., none
/// for strings and bytes (a StringAttr), null for messages (no default).
mlir::Type defaultValueType(mlir::MLIRContext *ctx, FieldType type);
/// A field's default as descriptor.proto writes it (`default_value`):
/// numbers in decimal, floats in the fewest of 6/9 (float) or 15/17
/// (double) significant digits that read back the same (libprotobuf's
/// SimpleFtoa/SimpleDtoa), `inf`, `-inf`, `nan`, `true`, `false`, an
/// enum's number, and strings and bytes raw.
std::string defaultValueText(FieldOp field);
} // namespace pbc::proto

#endif
