//===- Naming.h - C and C++ names for proto entities ------------*- C++ -*-===//
//
// One place decides the spelling of every name pbc generates: the C
// identifiers of the header and the object code, the C++ header's, and the
// generated files' names and include guards. The header and the object
// code then always agree, and the header's check for clashing names sees
// every name the way it is written.
//
//===----------------------------------------------------------------------===//
#ifndef PBC_DIALECT_PROTO_NAMING_H
#define PBC_DIALECT_PROTO_NAMING_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace pbc::proto {

//===----------------------------------------------------------------------===//
// Types, members and enumerators
//===----------------------------------------------------------------------===//

/// `tutorial.Person.PhoneNumber` -> `tutorial_Person_PhoneNumber`.
std::string cTypeName(llvm::StringRef fullName);

/// A field's struct member name: the proto name, with `_` appended when it
/// would collide with a C or C++ keyword (`default` -> `default_`) or a
/// member the struct declares itself.
std::string cMemberName(llvm::StringRef fieldName);

/// The members every generated struct may declare besides its fields: the
/// presence bits, the raw unknown fields, and the one member of a struct
/// that would otherwise be empty (C has no empty structs). cMemberName
/// keeps fields off these names.
inline constexpr llvm::StringLiteral kPresenceMember = "_presence";
inline constexpr llvm::StringLiteral kUnknownMember = "_unknown";
inline constexpr llvm::StringLiteral kUnusedMember = "_unused";

/// The enumerator of value `valueName` in enum `enumFullName`:
/// `<C type>_<value>`, since C enumerators share the file scope.
std::string cEnumeratorName(llvm::StringRef enumFullName,
                            llvm::StringRef valueName);

/// The struct member holding oneof `oneofName`'s union: the oneof's name,
/// kept off keywords like a field's.
std::string cUnionMemberName(llvm::StringRef oneofName);

/// The struct member holding the field number of the oneof's member that
/// is set: `<oneof>_case`.
std::string cCaseMemberName(llvm::StringRef oneofName);

/// The enum naming a oneof's cases, `<message C type>_<oneof>_case`, and
/// its enumerators `<message C type>_<oneof>_<field>` (the proto names) and
/// `<message C type>_<oneof>_NOT_SET`.
std::string cCaseEnumName(llvm::StringRef messageFullName,
                          llvm::StringRef oneofName);
std::string cCaseEnumeratorName(llvm::StringRef messageFullName,
                                llvm::StringRef oneofName,
                                llvm::StringRef fieldName);
std::string cCaseNotSetName(llvm::StringRef messageFullName,
                            llvm::StringRef oneofName);

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

/// The public functions of message `fullName`: `<C type>_<suffix>`, e.g.
/// `tutorial_Person_decode`.
std::string cFunctionName(llvm::StringRef fullName, llvm::StringRef suffix);

/// Message `fullName`'s `pbc_message_info` record, `<C type>_info`: named
/// like its functions, for generic code to find next to them.
std::string cInfoName(llvm::StringRef fullName);

/// Extension `fullName`'s pbc_extension_info record, `<C name>_ext`
/// (`pkg.Scope.ext` -> `pkg_Scope_ext_ext`), and its typed accessors,
/// `<C name>_<suffix>` (`_has`, `_get`, `_set`, ...).
std::string cExtensionName(llvm::StringRef fullName);
std::string cExtensionAccessorName(llvm::StringRef fullName,
                                   llvm::StringRef suffix);

/// The inline functions the header defines per field (Clear: also per
/// oneof), named `<C type>_<prefix><field><suffix>`.
enum class Accessor {
  Has,             ///< `has_F`: presence.
  Set,             ///< `set_F`: store the value and mark it present.
  Clear,           ///< `clear_F`: mark it absent.
  WriterSet,       ///< `w_set_F`: append a singular field (pbc/writer.h).
  WriterAdd,       ///< `w_add_F`: append one element of a repeated field.
  WriterSetPacked, ///< `w_set_F_packed`: append a packed repeated field.
  WriterBegin,     ///< `w_begin_F`: start a sub-message or group.
};
std::string cAccessorName(llvm::StringRef messageFullName, Accessor accessor,
                          llvm::StringRef fieldName);

/// Internal codec functions: `pbc__<C type>_<suffix>`.
std::string internalFunctionName(llvm::StringRef fullName,
                                 llvm::StringRef suffix);

/// The internal constants of message `fullName`'s code, `pbc__<C type>_...`:
/// its description (pbc/desc.h: `_desc`, its arrays and strings `_desc_data`,
/// its links `_links`, the struct T_init makes `_prototype`) and its
/// `pbc_msgs` section entry.
std::string internalDescription(llvm::StringRef fullName);
std::string internalDescriptionData(llvm::StringRef fullName);
std::string internalLinks(llvm::StringRef fullName);
std::string internalPrototype(llvm::StringRef fullName);
/// The extensions of the message its description lists, `_ext_links`.
std::string internalExtensionLinks(llvm::StringRef fullName);
/// Whether `symbol` may be some message's internalLinks or
/// internalExtensionLinks: among pbc's constants only link arrays have such
/// a name (a user's C code may, which the caller tells apart by type: a
/// link array holds pointers).
bool mayBeInternalLinks(llvm::StringRef symbol);
std::string internalSectionEntry(llvm::StringRef fullName);
/// Enum `fullName`'s pbc_enum_info, `pbc__<C type>_enum`, and its values
/// and strings, `..._enum_data`.
std::string internalEnumInfo(llvm::StringRef fullName);
std::string internalEnumData(llvm::StringRef fullName);
/// Extension `fullName`'s strings (its full name, a string default),
/// `pbc__<C name>_ext_data`; its `pbc_exts` section entry is
/// internalSectionEntry's, as a message's (full names are unique).
std::string internalExtensionData(llvm::StringRef fullName);

//===----------------------------------------------------------------------===//
// Protobuf's own names
//===----------------------------------------------------------------------===//

/// The json_name protobuf derives from a field's name when the schema
/// declares none: each `_` dropped and the letter after it upper-cased
/// (`phone_number` -> `phoneNumber`), as libprotobuf's ToJsonName.
std::string jsonName(llvm::StringRef fieldName);

//===----------------------------------------------------------------------===//
// C++
//===----------------------------------------------------------------------===//

/// The C++ namespace of `package`: `a.b` -> `a::b`, each part kept off
/// keywords like a member.
std::string cppNamespace(llvm::StringRef package);

/// Type `fullName` of `package` named again in the package's namespace:
/// its C name less the package prefix (`pkg.Outer.Inner` -> `Outer_Inner`),
/// kept off keywords like a member.
std::string cppTypeAlias(llvm::StringRef fullName, llvm::StringRef package);

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

/// `dir/addressbook.proto` -> `addressbook`: outputs are named after the
/// .proto file's last path component.
std::string stemOf(llvm::StringRef protoFile);

/// The C header for `protoFile`: `dir/addressbook.proto` ->
/// `addressbook.pbc.h`.
std::string headerFileName(llvm::StringRef protoFile);

/// The C++ header for `protoFile`: `dir/addressbook.proto` ->
/// `addressbook.pbc.hpp`.
std::string cppHeaderFileName(llvm::StringRef protoFile);

/// A C identifier for a file path, injective like protoc's
/// FilenameIdentifier (`a/b.proto` -> `a_2fb_2eproto`), so that two files
/// never share an include guard.
std::string fileIdentifier(llvm::StringRef path);

/// The include guards of the C header for `protoFile`
/// (`PBC_HEADER_<file identifier>`) and of the block each header has for
/// each file it declares (`PBC_FILE_<file identifier>`), which keeps a file
/// included through two headers from being declared twice.
std::string headerGuard(llvm::StringRef protoFile);
std::string headerFileBlockGuard(llvm::StringRef protoFile);

/// The same for the C++ header: `PBC_CPP_HEADER_<file identifier>` and
/// `PBC_CPP_FILE_<file identifier>`.
std::string cppHeaderGuard(llvm::StringRef protoFile);
std::string cppHeaderFileBlockGuard(llvm::StringRef protoFile);

} // namespace pbc::proto

#endif
