//===- ABI.h - what generated code and the runtime agree on -----*- C++ -*-===//
//
// The compiler's reading of include/runtime/abi.def, the one table of the
// interface between the code pbc generates and its C runtime: the codec
// functions of every message (their names, C prototypes, LLVM types and
// roles), the pbc_message_info record, the runtime functions generated code
// calls and the layout of views. runtime/abi.c checks the same rows against
// the runtime's C declarations, so the two sides cannot drift apart.
//
//===----------------------------------------------------------------------===//
#ifndef PBC_SUPPORT_ABI_H
#define PBC_SUPPORT_ABI_H

#include "pbc/pbc.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace pbc::abi {

/// The types abi.def's rows are made of.
enum class Type : uint8_t {
#define PBC_ABI_TYPE(Name, ctype, llvm) Name,
#include "abi.def"
};

/// The functions generated for every message, by what they do. A generated
/// function carries its role as an LLVM function attribute (kRoleAttr), so
/// later stages find it by role rather than by parsing its name.
enum class Role : uint8_t {
#define PBC_CODEC(Role, suffix, kind, result, ...) Role,
#include "abi.def"
};

enum class CodecKind : uint8_t {
  Public,   ///< T_<suffix>, defined by generated code
  Entry,    ///< T_<suffix>, a call into the runtime; only T's object needs it
  Internal, ///< pbc__T_<suffix>
};

struct Param {
  Type type;
  llvm::StringLiteral name;
};

struct Codec {
  Role role;
  llvm::StringLiteral suffix;
  CodecKind kind;
  Type result;
  llvm::ArrayRef<Param> params;
};

/// Every codec, in abi.def's order: the public ones in the order headers
/// declare them.
llvm::ArrayRef<Codec> codecs();
const Codec &codec(Role role);
/// The role a function carries (kRoleAttr), if it is a generated codec.
std::optional<Role> roleNamed(llvm::StringRef suffix);

/// The LLVM function attribute holding a codec's role: its suffix.
constexpr llvm::StringLiteral kRoleAttr = "pbc-codec";

/// `tutorial_Person_decode`, `pbc__tutorial_Person_dec`: the symbol of
/// message `fullName`'s codec.
std::string functionName(llvm::StringRef fullName, Role role);

/// One member of pbc_message_info: the message's full name, its struct
/// size, the address of one of its codecs or of its description.
struct InfoField {
  enum Kind : uint8_t { Name, Size, Codec, Desc } kind;
  Role role; ///< for Codec
};
llvm::ArrayRef<InfoField> infoFields();

/// The runtime functions generated code calls.
enum class Runtime : uint8_t {
#define PBC_RUNTIME(name, result, ...) name,
#include "abi.def"
};
struct RuntimeFunction {
  llvm::StringLiteral name;
  Type result;
  llvm::ArrayRef<Type> params;
};
const RuntimeFunction &runtimeFunction(Runtime fn);

/// The records of a message's description (pbc/desc.h), each a
/// PBC_DESC_RECORD row and its PBC_DESC_MEMBER rows.
enum class DescRecord : uint8_t {
#define PBC_DESC_RECORD(Record, ctype, size) Record,
#include "abi.def"
};
struct DescMember {
  llvm::StringLiteral name;
  Type type; ///< U8, U16, U32, I32, U64 or PTR
  uint32_t offset;
};
struct DescRecordLayout {
  llvm::StringLiteral cType;
  uint32_t size;
  llvm::ArrayRef<DescMember> members;
  /// Whether a member is a pointer: the record is then built as an LLVM
  /// struct rather than written as bytes.
  bool hasPointers() const;
  const DescMember &member(llvm::StringRef name) const;
};
const DescRecordLayout &descRecord(DescRecord record);
/// A record with pointers as the LLVM struct it is built as: its members'
/// types in order, which LLVM lays out at the rows' natural offsets.
mlir::LLVM::LLVMStructType llvmStructType(mlir::MLIRContext *ctx,
                                          DescRecord record);
/// Bytes an ABI type takes in memory (LP64).
uint32_t byteSize(Type type);

/// The LLVM dialect type of an ABI type.
mlir::Type llvmType(mlir::MLIRContext *ctx, Type type);
mlir::LLVM::LLVMFunctionType llvmFunctionType(mlir::MLIRContext *ctx,
                                              const Codec &codec);
mlir::LLVM::LLVMFunctionType llvmFunctionType(mlir::MLIRContext *ctx,
                                              Runtime fn);

/// Declares runtime function `fn` at the end of `module`, once: declarations
/// are looked up from the end, where they all are (a lookup from the start
/// per call made a schema of 5,000 messages take minutes).
mlir::LLVM::LLVMFuncOp declareRuntime(mlir::OpBuilder &builder,
                                      mlir::ModuleOp module, Runtime fn);

/// The C spelling of an ABI type; MSG and CMSG are `messageType *` and
/// `const messageType *`.
std::string cType(Type type, llvm::StringRef messageType);
/// `pbc_status tutorial_Person_decode(tutorial_Person *m, const uint8_t
/// *buf, size_t len, pbc_arena *arena)`, without the semicolon.
std::string cPrototype(const Codec &codec, llvm::StringRef fullName);

/// Views (pbc_str, pbc_bytes, repeated fields): {data, size}.
constexpr int64_t kViewBytes = PBC_VIEW_BYTES;
constexpr int64_t kViewAlign = 8;
constexpr int64_t kViewDataOffset = PBC_VIEW_DATA_OFFSET;
constexpr int64_t kViewSizeOffset = PBC_VIEW_SIZE_OFFSET;
/// Pointers, size_t and every pbc_message_info member (LP64 targets).
constexpr int64_t kPointerBytes = 8;

} // namespace pbc::abi

#endif // PBC_SUPPORT_ABI_H
