//===- Naming.h - C names for proto entities --------------------*- C++ -*-===//
//
// One place decides the C spelling of every generated name, so the header
// and the object code always agree.
//
//===----------------------------------------------------------------------===//
#ifndef PBC_DIALECT_PROTO_NAMING_H
#define PBC_DIALECT_PROTO_NAMING_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace pbc::proto {

/// `tutorial.Person.PhoneNumber` -> `tutorial_Person_PhoneNumber`.
std::string cTypeName(llvm::StringRef fullName);

/// A field's struct member name: the proto name, with `_` appended when it
/// would collide with a C or C++ keyword (`default` -> `default_`).
std::string cMemberName(llvm::StringRef fieldName);

/// The public functions of message `fullName`: `<C type>_<suffix>`, e.g.
/// `tutorial_Person_decode`.
std::string cFunctionName(llvm::StringRef fullName, llvm::StringRef suffix);

/// Internal codec functions: `pbc__<C type>_<suffix>`.
std::string internalFunctionName(llvm::StringRef fullName,
                                 llvm::StringRef suffix);

} // namespace pbc::proto

#endif
