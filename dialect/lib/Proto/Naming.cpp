//===- Naming.cpp - C names for proto entities ----------------------------===//
#include "pbc/Dialect/Proto/Naming.h"

#include "llvm/ADT/StringSet.h"

using namespace llvm;

std::string pbc::proto::cTypeName(StringRef fullName) {
  std::string name = fullName.str();
  for (char &c : name)
    if (c == '.')
      c = '_';
  return name;
}

std::string pbc::proto::cMemberName(StringRef fieldName) {
  // C11 and C++17 keywords plus the macros C headers commonly define; a
  // field named like one of them gets a trailing underscore.
  static const StringSet<> reserved = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand",
      "bitor", "bool", "break", "case", "catch", "char", "char16_t",
      "char32_t", "class", "compl", "const", "const_cast", "constexpr",
      "continue", "decltype", "default", "delete", "do", "double",
      "dynamic_cast", "else", "enum", "explicit", "export", "extern",
      "false", "float", "for", "friend", "goto", "if", "inline", "int",
      "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
      "nullptr", "operator", "or", "or_eq", "private", "protected",
      "public", "register", "reinterpret_cast", "restrict", "return",
      "short", "signed", "sizeof", "static", "static_assert", "static_cast",
      "struct", "switch", "template", "this", "thread_local", "throw",
      "true", "try", "typedef", "typeid", "typename", "union", "unsigned",
      "using", "virtual", "void", "volatile", "wchar_t", "while", "xor",
      "xor_eq", "_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex",
      "_Generic", "_Imaginary", "_Noreturn", "_Static_assert",
      "_Thread_local", "NULL", "EOF", "errno", "stdin", "stdout", "stderr",
      "assert", "offsetof", "linux", "unix",
      // Members the generated structs declare themselves.
      "_presence", "_unused", "_unknown"};
  std::string name = fieldName.str();
  if (reserved.contains(name))
    name += '_';
  return name;
}

std::string pbc::proto::cFunctionName(StringRef fullName, StringRef suffix) {
  return cTypeName(fullName) + "_" + suffix.str();
}

std::string pbc::proto::internalFunctionName(StringRef fullName,
                                             StringRef suffix) {
  return "pbc__" + cTypeName(fullName) + "_" + suffix.str();
}
