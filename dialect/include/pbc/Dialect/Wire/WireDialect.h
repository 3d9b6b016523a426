//===- WireDialect.h - the codec-level wire dialect -------------*- C++ -*-===//
#ifndef PBC_DIALECT_WIRE_WIREDIALECT_H
#define PBC_DIALECT_WIRE_WIREDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Dialect.h"

#include "pbc/Dialect/Wire/WireDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "pbc/Dialect/Wire/WireTypes.h.inc"

#endif
