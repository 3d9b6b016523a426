//===- WireOps.h - wire dialect operations ----------------------*- C++ -*-===//
#ifndef PBC_DIALECT_WIRE_WIREOPS_H
#define PBC_DIALECT_WIRE_WIREOPS_H

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "pbc/Dialect/Wire/WireDialect.h"

#define GET_OP_CLASSES
#include "pbc/Dialect/Wire/WireOps.h.inc"

#endif
