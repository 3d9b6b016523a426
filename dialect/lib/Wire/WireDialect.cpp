//===- WireDialect.cpp - the codec-level wire dialect ---------------------===//
#include "pbc/Dialect/Wire/WireDialect.h"
#include "pbc/Dialect/Wire/WireOps.h"

using namespace mlir;
using namespace pbc::wire;

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include "pbc/Dialect/Wire/WireDialect.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "pbc/Dialect/Wire/WireTypes.cpp.inc"

void WireDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "pbc/Dialect/Wire/WireOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "pbc/Dialect/Wire/WireTypes.cpp.inc"
      >();
}

Operation *WireDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}
