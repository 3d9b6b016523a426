//===- Naming.cpp - C and C++ names for proto entities --------------------===//
#include "pbc/Dialect/Proto/Naming.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <cctype>

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
      kPresenceMember, kUnusedMember, kUnknownMember};
  std::string name = fieldName.str();
  if (reserved.contains(name))
    name += '_';
  return name;
}

std::string pbc::proto::cEnumeratorName(StringRef enumFullName,
                                        StringRef valueName) {
  return cTypeName(enumFullName) + "_" + valueName.str();
}

std::string pbc::proto::cUnionMemberName(StringRef oneofName) {
  return cMemberName(oneofName);
}

std::string pbc::proto::cCaseMemberName(StringRef oneofName) {
  return oneofName.str() + "_case";
}

std::string pbc::proto::cCaseEnumName(StringRef messageFullName,
                                      StringRef oneofName) {
  return cTypeName(messageFullName) + "_" + oneofName.str() + "_case";
}

std::string pbc::proto::cCaseEnumeratorName(StringRef messageFullName,
                                            StringRef oneofName,
                                            StringRef fieldName) {
  return cTypeName(messageFullName) + "_" + oneofName.str() + "_" +
         fieldName.str();
}

std::string pbc::proto::cCaseNotSetName(StringRef messageFullName,
                                        StringRef oneofName) {
  return cCaseEnumeratorName(messageFullName, oneofName, "NOT_SET");
}

std::string pbc::proto::cFunctionName(StringRef fullName, StringRef suffix) {
  return cTypeName(fullName) + "_" + suffix.str();
}

std::string pbc::proto::cInfoName(StringRef fullName) {
  return cFunctionName(fullName, "info");
}

std::string pbc::proto::cExtensionName(StringRef fullName) {
  return cFunctionName(fullName, "ext");
}

std::string pbc::proto::cExtensionAccessorName(StringRef fullName,
                                               StringRef suffix) {
  return cFunctionName(fullName, suffix);
}

std::string pbc::proto::cAccessorName(StringRef messageFullName,
                                      Accessor accessor, StringRef fieldName) {
  auto name = [&](StringRef prefix, StringRef suffix = "") {
    return cFunctionName(messageFullName,
                         prefix.str() + fieldName.str() + suffix.str());
  };
  switch (accessor) {
  case Accessor::Has:
    return name("has_");
  case Accessor::Set:
    return name("set_");
  case Accessor::Clear:
    return name("clear_");
  case Accessor::WriterSet:
    return name("w_set_");
  case Accessor::WriterAdd:
    return name("w_add_");
  case Accessor::WriterSetPacked:
    return name("w_set_", "_packed");
  case Accessor::WriterBegin:
    return name("w_begin_");
  }
  llvm_unreachable("unknown accessor");
}

std::string pbc::proto::internalFunctionName(StringRef fullName,
                                             StringRef suffix) {
  return "pbc__" + cTypeName(fullName) + "_" + suffix.str();
}

std::string pbc::proto::cppNamespace(StringRef package) {
  SmallVector<StringRef> parts;
  package.split(parts, '.');
  return join(map_range(parts, cMemberName), "::");
}

std::string pbc::proto::cppTypeAlias(StringRef fullName, StringRef package) {
  return cMemberName(cTypeName(fullName.drop_front(package.size() + 1)));
}

std::string pbc::proto::stemOf(StringRef protoFile) {
  StringRef name = sys::path::filename(protoFile);
  name.consume_back(".proto");
  return name.str();
}

std::string pbc::proto::headerFileName(StringRef protoFile) {
  return stemOf(protoFile) + ".pbc.h";
}

std::string pbc::proto::cppHeaderFileName(StringRef protoFile) {
  return stemOf(protoFile) + ".pbc.hpp";
}

/// Alphanumerics stay, anything else becomes `_` and its hex code.
std::string pbc::proto::fileIdentifier(StringRef path) {
  std::string id;
  for (unsigned char c : path) {
    if (std::isalnum(c)) {
      id += static_cast<char>(c);
    } else {
      static const char hex[] = "0123456789abcdef";
      id += '_';
      if (c >= 16)
        id += hex[c >> 4];
      id += hex[c & 15];
    }
  }
  return id;
}

std::string pbc::proto::headerGuard(StringRef protoFile) {
  return "PBC_HEADER_" + fileIdentifier(protoFile);
}

std::string pbc::proto::headerFileBlockGuard(StringRef protoFile) {
  return "PBC_FILE_" + fileIdentifier(protoFile);
}

std::string pbc::proto::cppHeaderGuard(StringRef protoFile) {
  return "PBC_CPP_HEADER_" + fileIdentifier(protoFile);
}

std::string pbc::proto::cppHeaderFileBlockGuard(StringRef protoFile) {
  return "PBC_CPP_FILE_" + fileIdentifier(protoFile);
}

std::string pbc::proto::internalDescription(StringRef fullName) {
  return internalFunctionName(fullName, "desc");
}

std::string pbc::proto::internalDescriptionData(StringRef fullName) {
  return internalFunctionName(fullName, "desc_data");
}

std::string pbc::proto::internalLinks(StringRef fullName) {
  return internalFunctionName(fullName, "links");
}

std::string pbc::proto::internalExtensionLinks(StringRef fullName) {
  return internalFunctionName(fullName, "ext_links");
}

std::string pbc::proto::internalPrototype(StringRef fullName) {
  return internalFunctionName(fullName, "prototype");
}

bool pbc::proto::mayBeInternalLinks(StringRef symbol) {
  return symbol.starts_with("pbc__") && symbol.ends_with("_links");
}

std::string pbc::proto::internalEnumInfo(StringRef fullName) {
  return internalFunctionName(fullName, "enum");
}

std::string pbc::proto::internalEnumData(StringRef fullName) {
  return internalFunctionName(fullName, "enum_data");
}

std::string pbc::proto::internalExtensionData(StringRef fullName) {
  return internalFunctionName(fullName, "ext_data");
}

std::string pbc::proto::jsonName(StringRef fieldName) {
  std::string out;
  bool upper = false;
  for (char c : fieldName) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? llvm::toUpper(c) : c;
    upper = false;
  }
  return out;
}

std::string pbc::proto::internalSectionEntry(StringRef fullName) {
  return internalFunctionName(fullName, "entry");
}

