//===- ProtoDialect.cpp - the schema-level proto dialect ------------------===//
#include "pbc/Dialect/Proto/ProtoDialect.h"
#include "pbc/Dialect/Proto/ProtoOps.h"

using namespace pbc::proto;

#include "pbc/Dialect/Proto/ProtoDialect.cpp.inc"

void ProtoDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "pbc/Dialect/Proto/ProtoOps.cpp.inc"
      >();
}
