//===- EncodingPlan.h - each field as every codec role sees it --*- C++ -*-===//
//
// The encoding plan of a laid-out schema: for every field, decided once,
// everything the codec roles must agree on to the byte (its tags, how its
// presence is tested, whether it is written when absent, packed or not,
// where it lives in the struct, what its type is on the wire). Size,
// encode, write, decode and the header's streaming writers all read the
// plan; none of them re-derives these rules from the proto ops.
//
//===----------------------------------------------------------------------===//
#ifndef PBC_DIALECT_PROTO_ENCODINGPLAN_H
#define PBC_DIALECT_PROTO_ENCODINGPLAN_H

#include "pbc/Dialect/Proto/FieldTypes.h"
#include "pbc/Dialect/Proto/ProtoOps.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <deque>
#include <optional>
#include <string>

namespace pbc::proto {

/// How a role tells whether a field is there to be written.
enum class Presence : uint8_t {
  Implicit,  ///< proto3 singular: its value is not zero (floats: their bits)
             ///< and not empty
  Bit,       ///< explicit presence, a bit of `_presence`
  OneofCase, ///< a scalar, string or bytes oneof member: the case is its number
  Pointer,   ///< a singular sub-message: its pointer is not null (in a
             ///< oneof, the case is its number too)
  Always,    ///< a map entry's scalar key or value
  Repeated,  ///< elements, each written (packed: one run when there are any)
};

/// The tags of a field as bytes on the wire.
std::string tagBytes(uint32_t number, pbc_wire_type wireType);

struct MessagePlan;

/// One field, as every codec role sees it.
struct FieldPlan {
  /// (Op handles are values whose accessors are not const.)
  mutable FieldOp op;
  const FieldTypeInfo *type;
  uint32_t number;
  Presence presence;
  /// Written even when absent: a map entry writes its key and value, an
  /// unset message value as `emptyEncoding`.
  bool alwaysWritten;
  /// A repeated scalar written as one length-delimited run (decoding takes
  /// both forms).
  bool packed;
  /// A proto3 string: the decoder rejects invalid UTF-8.
  bool utf8;
  /// A closed (proto2) enum: values it does not declare go to the unknown
  /// fields.
  bool closedEnum;
  bool inOneof;
  bool inMapEntry;

  /// The member's offset in the struct (a oneof member: the union's).
  int64_t offset;
  /// Presence::Bit: which bit of `_presence`.
  uint32_t presenceBit;
  /// Oneof members: the offset of the oneof's case, and the oneof's index
  /// in its message's `oneofs`.
  int64_t caseOffset;
  uint32_t oneofIndex;
  /// Repeated fields: the bytes one element takes in the array.
  int64_t elementSize;
  /// Message and group fields: the sub-message.
  const MessagePlan *message;
  /// Enum fields: the enum.
  mutable EnumOp enumType;

  /// The tag of one value, with the type's own wire type.
  std::string tag;
  /// The length-delimited tag: strings, bytes, messages and packed runs.
  std::string lengthTag;
  /// Groups: the END_GROUP tag after the group's fields.
  std::string endGroupTag;
  /// A map entry's message value that is unset: the bytes of an empty one.
  std::string emptyEncoding;
  /// Its JSON name: declared, or derived from its name.
  std::string jsonName;

  bool isRepeated() const { return presence == Presence::Repeated; }
  bool hasPresenceBit() const { return presence == Presence::Bit; }
  bool isGroup() const { return type->type == FieldType::Group; }
  /// The tag the field is written with: a packed run's, or one value's.
  llvm::StringRef writtenTag() const { return packed ? lengthTag : tag; }
};

/// A oneof: its name and where its case is.
struct OneofPlan {
  llvm::StringRef name;
  int64_t caseOffset;
};

/// One message: its struct and its fields.
struct MessagePlan {
  mutable MessageOp op;
  /// Its .proto file's op (syntax, edition); null if the module lacks it.
  mutable FileOp file;
  llvm::StringRef name; ///< the full name, `tutorial.Person`
  int64_t size;
  int64_t presenceWords;
  /// Where the raw unknown fields are kept; none in map entries.
  std::optional<int64_t> unknownOffset;
  bool isMapEntry;
  /// Declaration order, which is also the order of the presence bits.
  llvm::SmallVector<FieldPlan> fields;
  /// The same fields by ascending number: the order on the wire.
  llvm::SmallVector<const FieldPlan *> byNumber;
  /// In declaration order.
  llvm::SmallVector<OneofPlan, 0> oneofs;
  /// The extension ranges, `[start, end)`, ascending: where the table
  /// codec writes the extensions the unknown fields hold.
  llvm::SmallVector<std::pair<int64_t, int64_t>, 0> extensionRanges;
  /// The extensions of it the module declares, in the module's order.
  mutable llvm::SmallVector<ExtensionOp, 0> extensions;
  /// The numbers of the group fields (of any message) whose type this is:
  /// its decoder ends at their END_GROUP tags.
  llvm::SmallVector<uint32_t, 1> groupNumbers;

  bool keepsUnknownFields() const { return unknownOffset.has_value(); }
  /// Its unknown fields may hold extensions, which go among the fields:
  /// with unknown fields, the table codec writes it.
  bool placesExtensions() const {
    return keepsUnknownFields() && !extensionRanges.empty();
  }
};

/// The plans of every message of a laid-out module.
class EncodingPlan {
public:
  /// `module` must be laid out (proto-layout): the plan holds its offsets.
  explicit EncodingPlan(mlir::ModuleOp module);

  /// In the module's order.
  llvm::ArrayRef<const MessagePlan *> messages() const { return order; }
  const MessagePlan &message(llvm::StringRef fullName) const;
  const MessagePlan &message(MessageOp op) const {
    return message(op.getSymName());
  }

private:
  std::deque<MessagePlan> storage;
  llvm::SmallVector<const MessagePlan *> order;
  llvm::StringMap<MessagePlan *> byName;
};

} // namespace pbc::proto

#endif // PBC_DIALECT_PROTO_ENCODINGPLAN_H
