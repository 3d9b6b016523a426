//===- CodecContext.h - what every codec role builds with -------*- C++ -*-===//
//
// proto-to-wire writes each message's codec functions one role at a time
// (Init.cpp, IsInitialized.cpp, Size.cpp, Encode.cpp, Write.cpp,
// Decode*.cpp, EntryPoints.cpp; a compact message's are TableCodecs.cpp). They share this context: the builder, the
// encoding plan of the schema (pbc/Dialect/Proto/EncodingPlan.h), the
// declared functions (pbc/Support/ABI.h), and the helpers every role needs
// to address fields, test presence and put values on the wire, so that two
// roles that must agree to the byte compute the same thing the same way.
//
// Control flow: the roles without an early exit (init, is_initialized,
// size, write) build structured `scf` ops, which keep them testable as
// nested conditions; the encoder and the decoder leave from anywhere (a
// full buffer, a malformed input) and the decoder's parse chains jump
// between field handlers, so they build blocks and branches. Integers are
// compared with `arith`, pointers with `llvm.icmp` (arith has no pointers):
// cmp() picks.
//
//===----------------------------------------------------------------------===//
#ifndef PBC_CONVERSION_PROTOTOWIRE_CODECCONTEXT_H
#define PBC_CONVERSION_PROTOTOWIRE_CODECCONTEXT_H

#include "pbc/Dialect/Proto/EncodingPlan.h"
#include "pbc/Support/ABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

#include <optional>

namespace pbc::proto {

class CodecContext {
public:
  CodecContext(mlir::ModuleOp module, const EncodingPlan &plan,
               const llvm::StringSet<> &files);

  mlir::ModuleOp module;
  const EncodingPlan &plan;
  mlir::OpBuilder b;
  mlir::Location loc;
  mlir::Type ptrTy, i1, i8, i32, i64, voidTy;

  /// Whether this compilation writes `m`'s code (the others' are declared:
  /// another file's object defines them).
  bool generates(const MessagePlan &m) const {
    return files.empty() || files.contains(m.op.getFile());
  }
  /// The same for an enum's pbc_enum_info.
  bool generates(EnumOp e) const {
    return files.empty() || files.contains(e.getFile());
  }
  /// The same for an extension's pbc_extension_info.
  bool generates(ExtensionOp e) const {
    return files.empty() || files.contains(e.getFile());
  }
  /// Whether `m` or a message it can hold may have a required field.
  /// Another file's message is a declaration without fields in the module
  /// a file's code is built from (see the driver): it may.
  bool mayHoldRequired(const MessagePlan &m);

  //===------------------------------------------------------------------===//
  // Constants, memory and blocks
  //===------------------------------------------------------------------===//

  mlir::Value cst(mlir::Type type, int64_t v);
  mlir::Value null();
  mlir::Value isNull(mlir::Value p);
  mlir::Value notNull(mlir::Value p);
  /// `lhs pred rhs` for integers (arith) or pointers (llvm.icmp).
  mlir::Value cmp(mlir::arith::CmpIPredicate pred, mlir::Value lhs,
                  mlir::Value rhs);
  mlir::Value offsetPtr(mlir::Value base, mlir::Value bytes);
  mlir::Value offsetPtr(mlir::Value base, int64_t bytes);
  mlir::Value load(mlir::Type type, mlir::Value addr);
  void store(mlir::Value v, mlir::Value addr);
  mlir::Value ptrDiff(mlir::Value hi, mlir::Value lo);
  /// A new block at the end of `region`.
  mlir::Block *newBlock(mlir::Region &region);
  /// Goes on when `ok`, else branches to `otherwise`: how every check
  /// continues that can fail (a null position, a full buffer, an error
  /// status) or divert (an undeclared enum value). The code after it goes
  /// into `next`, by default a block right after the current one (the
  /// encoder, which lays its blocks out in field order, passes a new last
  /// one).
  void continueIf(mlir::Value ok, mlir::Block *otherwise,
                  mlir::Block *next = nullptr);
  /// The same for a pointer (a position, an allocation): goes on when it is
  /// not null.
  void continueIfNotNull(mlir::Value p, mlir::Block *otherwise,
                         mlir::Block *next = nullptr);

  /// A view's (string, bytes, repeated field) data pointer and size.
  mlir::Value viewData(mlir::Value view) { return load(ptrTy, view); }
  mlir::Value viewSizeAddr(mlir::Value view) {
    return offsetPtr(view, abi::kViewSizeOffset);
  }
  mlir::Value viewSize(mlir::Value view) { return load(i64, viewSizeAddr(view)); }

  //===------------------------------------------------------------------===//
  // Functions
  //===------------------------------------------------------------------===//

  /// Declares `m`'s codecs (abi.def's order; the entry points only when
  /// this compilation generates `m`).
  void declareCodecs(const MessagePlan &m);
  /// Starts the body of `m`'s codec `role`; returns its entry block.
  mlir::Block *define(const MessagePlan &m, abi::Role role);
  mlir::Value call(const MessagePlan &m, abi::Role role, mlir::ValueRange args);
  mlir::Value callRuntime(abi::Runtime fn, mlir::ValueRange args);
  /// Returns what runtime function `fn` returns for `args`, by a tail call.
  void returnRuntime(abi::Runtime fn, mlir::ValueRange args);
  mlir::Value addressOf(const MessagePlan &m, abi::Role role);

  //===------------------------------------------------------------------===//
  // Records other records point to
  //===------------------------------------------------------------------===//

  /// The type of pbc_message_info: abi.def's members, 8 bytes each.
  mlir::Type infoType();
  /// Message `m`'s pbc_message_info, `T_info`: declared at the end of the
  /// module on first use (a description's link to it); buildInfo gives it
  /// its initializer where this compilation generates `m`.
  mlir::LLVM::GlobalOp infoGlobal(const MessagePlan &m);
  /// Message `m`'s description, `pbc__T_desc`, declared alike (the table
  /// codec's calls and other descriptions' links use it); buildDescription
  /// defines it.
  mlir::LLVM::GlobalOp descGlobal(const MessagePlan &m);
  /// Enum `e`'s pbc_enum_info, declared alike; buildEnumInfo defines it.
  mlir::LLVM::GlobalOp enumInfoGlobal(EnumOp e);
  /// Extension `fullName`'s pbc_extension_info, `EXT_ext`;
  /// buildExtensionInfo defines it.
  mlir::LLVM::GlobalOp extensionInfoGlobal(llvm::StringRef fullName);
  /// A private constant holding `text` (a JSON member's name), defined at
  /// the first use of `symbol`.
  mlir::LLVM::GlobalOp textGlobal(llvm::StringRef symbol, llvm::StringRef text);

  //===------------------------------------------------------------------===//
  // Fields in memory
  //===------------------------------------------------------------------===//

  /// The type a scalar keeps in its struct member.
  mlir::Type storageType(const FieldTypeInfo &type);
  mlir::Value fieldAddr(mlir::Value msg, const FieldPlan &f) {
    return offsetPtr(msg, f.offset);
  }
  mlir::Value loadValue(mlir::Value msg, const FieldPlan &f) {
    return load(storageType(*f.type), fieldAddr(msg, f));
  }
  mlir::Value unknownAddr(mlir::Value msg, const MessagePlan &m) {
    return offsetPtr(msg, *m.unknownOffset);
  }
  /// For a message whose unknown fields may hold extensions
  /// (MessagePlan::placesExtensions): when it has unknown fields, returns
  /// `handOff(its description)`, a call of the table codec, which places
  /// them among the fields; the code built after this runs otherwise.
  void handOffUnknownFields(
      const MessagePlan &m, mlir::Value msg,
      llvm::function_ref<mlir::Value(mlir::Value desc)> handOff);

  mlir::Value presenceWord(mlir::Value msg, const FieldPlan &f);
  /// The presence bits of `fields`, all in one word, as a mask.
  uint32_t presenceMask(llvm::ArrayRef<const FieldPlan *> fields);
  mlir::Value hasBit(mlir::Value msg, const FieldPlan &f);
  /// `word & mask` is not zero.
  mlir::Value anyBits(mlir::Value word, uint32_t mask);
  mlir::Value isOneofCase(mlir::Value msg, const FieldPlan &f);
  /// Records that a singular field was decoded: its presence bit, or its
  /// oneof's case.
  void markPresent(mlir::Value msg, const FieldPlan &f);
  /// Sets f's presence bit (f has one) when `flag`, an i32 that is 0 or 1,
  /// is 1: without a branch, the word stored back either way.
  void markPresentIf(mlir::Value msg, const FieldPlan &f, mlir::Value flag);
  /// Whether a singular non-message field is written (see Presence);
  /// `value` is its stored value, or a string's size.
  mlir::Value isPresent(mlir::Value msg, const FieldPlan &f, mlir::Value value);
  /// Whether a singular sub-message `sub` is written.
  mlir::Value isMessagePresent(mlir::Value msg, const FieldPlan &f,
                               mlir::Value sub);
  /// A stored value is not zero; floats compare their bits, so -0.0 is
  /// written, as libprotobuf does.
  mlir::Value isNonZero(mlir::Value v);

  //===------------------------------------------------------------------===//
  // Values on the wire
  //===------------------------------------------------------------------===//

  /// The unsigned 64-bit varint a stored value is written as.
  mlir::Value toVarint(const FieldTypeInfo &type, mlir::Value v);
  /// The stored value of a varint read from the wire.
  mlir::Value fromVarint(const FieldTypeInfo &type, mlir::Value v);
  /// Bytes a scalar value takes on the wire (without its tag).
  mlir::Value valueSize(const FieldTypeInfo &type, mlir::Value v);
  /// A length and the bytes it counts.
  mlir::Value lengthDelimitedSize(mlir::Value len);
  /// Bytes a singular scalar, string or bytes field takes with its tag.
  mlir::Value singularSize(mlir::Value msg, const FieldPlan &f);
  /// Bytes a sub-message at `sub` takes with its length or END_GROUP tag
  /// (not its own tag).
  mlir::Value embeddedSize(const FieldPlan &f, mlir::Value sub);
  /// Writes a scalar value backwards, ending at `pos`.
  mlir::Value putValue(const FieldTypeInfo &type, mlir::Value pos,
                       mlir::Value v);
  /// Writes constant bytes (a tag) backwards, ending at `pos`.
  mlir::Value putBytes(mlir::Value pos, llvm::StringRef bytes);

  /// `total + size()` when `cond` holds, else `total`: a branch, so an
  /// absent field costs a test and its size is computed only when present.
  mlir::Value addIf(mlir::Value cond, mlir::Value total,
                    llvm::function_ref<mlir::Value()> size);
  /// Sums `body(element address)` over a repeated field's elements.
  mlir::Value sumElements(const FieldPlan &f, mlir::Value data,
                          mlir::Value count,
                          llvm::function_ref<mlir::Value(mlir::Value)> body);

private:
  const llvm::StringSet<> &files;
  /// The codecs declared so far, by symbol.
  llvm::StringMap<mlir::LLVM::LLVMFuncOp> codecs;
  /// The runtime functions declared so far: found here, not by a search of
  /// a module of tens of thousands of functions.
  llvm::DenseMap<abi::Runtime, mlir::LLVM::LLVMFuncOp> runtime;
  /// The info records declared so far, by symbol.
  llvm::StringMap<mlir::LLVM::GlobalOp> records;
  /// The textGlobal constants so far, by symbol.
  llvm::StringMap<mlir::LLVM::GlobalOp> texts;
  /// The messages mayHoldRequired says yes for, found for the whole schema
  /// at its first question: one search backwards along the message fields
  /// from those with a required field, linear in the schema (a search
  /// forwards from each message was quadratic where messages all reach
  /// each other).
  std::optional<llvm::DenseSet<const MessagePlan *>> holdRequired;
  mlir::LLVM::GlobalOp declareRecord(llvm::StringRef name, mlir::Type type);
  mlir::LLVM::LLVMFuncOp declareRuntime(abi::Runtime fn);
};

/// What each role's builder starts from: the context, its builder and its
/// location.
struct RoleBuilder {
  explicit RoleBuilder(CodecContext &cx) : cx(cx), b(cx.b), loc(cx.loc) {}
  CodecContext &cx;
  mlir::OpBuilder &b;
  mlir::Location loc;
};

struct Description;

/// Whether `s` goes into JSON as it is: what the runtime's printer writes
/// without an escape (printable ASCII but `"`, `\`, `<` and `>`), and so
/// what a parser may compare with the text as it stands.
inline bool plainJson(llvm::StringRef s) {
  return llvm::all_of(s, [](char c) {
    return c >= 0x20 && c <= 0x7e && c != '"' && c != '\\' && c != '<' &&
           c != '>';
  });
}

/// Whether `m`'s JSON is its fields, which the compiled printer and parser
/// walk (ToJson.cpp, FromJson.cpp); the others' is the runtime's, from the
/// description: the well-known types, messages whose extensions go among
/// their fields, and messages without names (LITE_RUNTIME).
inline bool jsonIsFields(const MessagePlan &m) {
  return m.op.hasNames() && m.extensionRanges.empty() &&
         !m.name.starts_with("google.protobuf.");
}

/// The roles, each in its file.
void buildInit(CodecContext &cx, const MessagePlan &m, const Description &desc);
void buildIsInitialized(CodecContext &cx, const MessagePlan &m);
void buildSize(CodecContext &cx, const MessagePlan &m);
void buildEncoder(CodecContext &cx, const MessagePlan &m);
void buildWriter(CodecContext &cx, const MessagePlan &m);
void buildDecoder(CodecContext &cx, const MessagePlan &m);
void buildToJson(CodecContext &cx, const MessagePlan &m);
void buildFromJson(CodecContext &cx, const MessagePlan &m);
/// A compact message's functions, entry points included: each a call into
/// the runtime's table codec (TableCodecs.cpp).
void buildTableCodecs(CodecContext &cx, const MessagePlan &m);
/// T_decode, T_encode and T_write: calls into the runtime, given the
/// message's functions.
void buildEntryPoints(CodecContext &cx, const MessagePlan &m);
/// The description of a message (pbc/desc.h): `pbc__T_desc`, and the blob
/// whose string pool starts with the message's full name.
struct Description {
  mlir::LLVM::GlobalOp desc, data;
  uint64_t nameOffset;
  /// The struct T_init makes; null when that is all zeros.
  mlir::LLVM::GlobalOp prototype;
};
/// Fails (with an error on the message) when the message is too large to
/// describe (Description.cpp).
mlir::FailureOr<Description> buildDescription(CodecContext &cx,
                                              const MessagePlan &m);
/// An enum's pbc_enum_info (Description.cpp).
void buildEnumInfo(CodecContext &cx, EnumOp e);
/// An extension's pbc_extension_info (Description.cpp), given its enum
/// (enum extensions; else null), and its entry in the `pbc_exts` section
/// (which pbc_find_extension walks); returns the entry.
mlir::FlatSymbolRefAttr buildExtensionInfo(CodecContext &cx, ExtensionOp ext,
                                           EnumOp enumType);
/// The pbc_message_info record of a message, pointing to its description,
/// and its entry in the `pbc_msgs` section (which pbc_find_message walks);
/// returns the entry.
mlir::FlatSymbolRefAttr buildInfo(CodecContext &cx, const MessagePlan &m,
                                  const Description &desc);
/// Keeps the `pbc_msgs` and `pbc_exts` entries in the module (nothing references them by
/// name) without making the linker keep them: a program that never calls
/// pbc_find_message links only the messages it reaches.
void buildUsedList(CodecContext &cx, llvm::ArrayRef<mlir::Attribute> entries);

/// Presence bits tested together: a group of fields none of which is set
/// costs one test (libprotobuf's `cached_has_bits & 0xff`, per byte). The
/// size function and the encoder both group them so.
constexpr int64_t kPresenceGroupBits = 8;

} // namespace pbc::proto

#endif // PBC_CONVERSION_PROTOTOWIRE_CODECCONTEXT_H
