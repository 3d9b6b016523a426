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

namespace pbc::proto {
/// Scalar types that may be packed: everything but strings, bytes, messages
/// and groups.
bool isPackable(FieldType type);
} // namespace pbc::proto

#endif
