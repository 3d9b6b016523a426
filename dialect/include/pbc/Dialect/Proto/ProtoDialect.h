//===- ProtoDialect.h - the schema-level proto dialect ----------*- C++ -*-===//
#ifndef PBC_DIALECT_PROTO_PROTODIALECT_H
#define PBC_DIALECT_PROTO_PROTODIALECT_H

#include "mlir/IR/Dialect.h"

#include "pbc/Dialect/Proto/ProtoDialect.h.inc"

#endif
