//===- Decoder.h - pbc__T_dec, shared by its two files ----------*- C++ -*-===//
//
// The decoder of a message is a loop around a switch on the tag, with a
// handler per field and wire type. Decode.cpp builds the loop, the
// dispatch (a switch on the first byte below the read limit, the full tag
// read near the end of the input), the in-order parse chains between
// handlers and the unknown-field path; DecodeFields.cpp builds the
// handlers, which read a value and store it.
//
//===----------------------------------------------------------------------===//
#ifndef PBC_CONVERSION_PROTOTOWIRE_DECODER_H
#define PBC_CONVERSION_PROTOTOWIRE_DECODER_H

#include "CodecContext.h"

#include "llvm/ADT/DenseMap.h"

#include <functional>

namespace pbc::proto {

class DecoderBuilder : RoleBuilder {
public:
  DecoderBuilder(CodecContext &cx, const MessagePlan &m)
      : RoleBuilder(cx), message(m) {}

  void build();

private:
  const MessagePlan &message;

  mlir::Value msg, end, group;
  /// The decoder state: as the pointer sub-message decoders are called
  /// with, and as the reading ops take it.
  mlir::Value decState, dec;
  mlir::Value limit;    ///< wire.read_limit: below it, reads need no bounds check
  mlir::Value tagStart; ///< position of the tag just read
  mlir::Block *loop;    ///< ^loop(%pos): read the next tag or finish
  mlir::Block *fastTag; ///< ^fastTag(%pos): %pos < limit, switch on its first byte
  mlir::Block *fail;    ///< return null (the status is already recorded)
  mlir::Block *ret;     ///< ^ret(%pos): return %pos
  mlir::Value afterTag; ///< position after the tag just read
  mlir::Value tag;
  /// The handler being built's second entry, taken when its position is
  /// known to be below `limit` (see splitRead).
  mlir::Block *fastEntry = nullptr;
  /// Per field: the tag it usually arrives with (as written) and its
  /// handler's fast entry, which takes (tag start, position after the tag)
  /// below `limit`.
  llvm::DenseMap<const FieldPlan *, std::pair<llvm::StringRef, mlir::Block *>>
      expected;

  using Handler = std::function<void(DecoderBuilder &)>;

  // Decode.cpp: the loop and its dispatch.
  /// Goes on when `ok`, else records `status` and fails.
  void continueOrFail(mlir::Value ok, int32_t status);
  void continueAt(mlir::Value pos);
  void continueAfter(const FieldPlan &f, mlir::Value pos);
  mlir::Value belowLimit(mlir::Value pos);
  llvm::SmallVector<mlir::Value>
  splitRead(llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::Value, bool)>
                read);
  llvm::SmallVector<mlir::Value> splitLength();
  void buildFirstByteSwitch(llvm::ArrayRef<int32_t> tags,
                            llvm::ArrayRef<mlir::Block *> blocks,
                            mlir::Block *readTag);
  void buildUnknownField(mlir::Region &body);
  void keepUnknown(mlir::Value next);

  // DecodeFields.cpp: the handlers.
  llvm::SmallVector<std::pair<uint32_t, Handler>>
  fieldHandlers(const FieldPlan &f);
  struct Scalar {
    mlir::Value next, value, raw;
  };
  Scalar getScalar(const FieldTypeInfo &type, mlir::Value pos, mlir::Value end,
                   bool unchecked = false, bool element = false);
  mlir::Value isKnownEnumValue(const FieldPlan &f, mlir::Value v);
  void keepOnlyKnownEnum(const FieldPlan &f, mlir::Value v,
                         mlir::Value packedRaw, mlir::Block *next,
                         mlir::Value pos, mlir::Value packedOut = {});
  struct Reserved {
    mlir::Value array, size, end, sizeAddr;
  };
  Reserved reserveElements(const FieldPlan &f, mlir::Value add);
  mlir::Value appendElements(const FieldPlan &f, mlir::Value add);
  void readScalar(const FieldPlan &f);
  void readPacked(const FieldPlan &f);
  void readString(const FieldPlan &f);
  mlir::Value singularSubMessage(const FieldPlan &f);
  void readEmbedded(const FieldPlan &f);
  void keepOnlyKnownMapValue(const FieldPlan &f, mlir::Value next);
  void replaceDuplicateKey(const FieldPlan &f);
  mlir::Value keysEqual(const FieldPlan &key, mlir::Value a, mlir::Value b2);
};

} // namespace pbc::proto

#endif // PBC_CONVERSION_PROTOTOWIRE_DECODER_H
