//===- WireOps.cpp - wire dialect verifiers, folds, canonicalizations -----===//
//
// The verifiers hold the ops to what their lowering assumes (a tag is a
// well-formed one, a status is a decoder's error). The folds are the
// compile-time half of "fused varint/size computation": every size or
// zigzag of a constant folds, and adjacent constant writes merge into one
// store.
//
//===----------------------------------------------------------------------===//
#include "pbc/Dialect/Wire/WireOps.h"
#include "pbc/pbc.h"
#include "pbc/wire_types.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace pbc::wire;

#define GET_OP_CLASSES
#include "pbc/Dialect/Wire/WireOps.cpp.inc"

OpFoldResult VarintSizeOp::fold(FoldAdaptor adaptor) {
  auto value = dyn_cast_or_null<IntegerAttr>(adaptor.getValue());
  if (!value)
    return {};
  return IntegerAttr::get(getType(),
                          pbc_varint_size(value.getValue().getZExtValue()));
}

OpFoldResult ZigZagEncodeOp::fold(FoldAdaptor adaptor) {
  auto value = dyn_cast_or_null<IntegerAttr>(adaptor.getValue());
  if (!value)
    return {};
  APInt n = value.getValue();
  APInt result = n.shl(1) ^ n.ashr(n.getBitWidth() - 1);
  return IntegerAttr::get(getType(), result);
}

OpFoldResult ZigZagDecodeOp::fold(FoldAdaptor adaptor) {
  auto value = dyn_cast_or_null<IntegerAttr>(adaptor.getValue());
  if (!value)
    return {};
  APInt n = value.getValue();
  APInt low = n & 1;
  APInt result = n.lshr(1) ^ (-low);
  return IntegerAttr::get(getType(), result);
}

namespace {
/// put_bytes(put_bytes(p, A), B) -> put_bytes(p, B ++ A). Writes go
/// backwards, so the outer op's bytes come first in memory.
struct MergeAdjacentPutBytes : OpRewritePattern<PutBytesOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PutBytesOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getPos().getDefiningOp<PutBytesOp>();
    if (!inner || !inner->hasOneUse())
      return failure();
    std::string merged = (op.getBytes() + inner.getBytes()).str();
    rewriter.replaceOpWithNewOp<PutBytesOp>(op, inner.getPos(),
                                            rewriter.getStringAttr(merged));
    rewriter.eraseOp(inner);
    return success();
  }
};

/// put_bytes(put_varint(p, v), B) -> put_varint(p, v) prefix B: the bytes
/// (a tag) go out on each of the varint's paths, where they join its store.
struct PrefixPutVarint : OpRewritePattern<PutBytesOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PutBytesOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getPos().getDefiningOp<PutVarintOp>();
    if (!inner || !inner->hasOneUse())
      return failure();
    std::string merged = (op.getBytes() + inner.getPrefix().value_or("")).str();
    rewriter.modifyOpInPlace(
        inner, [&] { inner.setPrefixAttr(rewriter.getStringAttr(merged)); });
    rewriter.replaceOp(op, inner.getResult());
    return success();
  }
};
} // namespace

void PutBytesOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                             MLIRContext *context) {
  patterns.add<MergeAdjacentPutBytes, PrefixPutVarint>(context);
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

LogicalResult PutBytesOp::verify() {
  if (getBytes().empty())
    return emitOpError("writes no bytes");
  return success();
}

LogicalResult PutVarintOp::verify() {
  if (std::optional<StringRef> prefix = getPrefix(); prefix && prefix->empty())
    return emitOpError("has an empty prefix");
  return success();
}

LogicalResult ExpectTagOp::verify() {
  StringRef bytes = getBytes();
  if (bytes.empty() || bytes.size() > PBC_MAX_TAG_BYTES)
    return emitOpError("expects a tag of 1 to ")
           << int(PBC_MAX_TAG_BYTES) << " bytes, not " << bytes.size();
  uint64_t tag = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    uint8_t byte = bytes[i];
    bool last = i + 1 == bytes.size();
    if ((byte >= 0x80) == last)
      return emitOpError("expects a varint: byte ")
             << i << " has its continuation bit " << (last ? "set" : "clear");
    tag |= uint64_t(byte & 0x7f) << (7 * i);
  }
  if (tag > UINT32_MAX || pbc_tag_field_number(tag) == 0 ||
      pbc_tag_wire_type(tag) > PBC_WIRE_FIXED32)
    return emitOpError("expects a tag: a field number from 1 and a wire "
                       "type from 0 to 5, not ")
           << tag;
  return success();
}

LogicalResult FailOp::verify() {
  uint32_t status = getStatus();
  bool decodeError = status >= PBC_ERR_TRUNCATED &&
                     status <= PBC_ERR_ARENA_LIMIT &&
                     status != PBC_ERR_BUFFER_TOO_SMALL &&
                     status != PBC_ERR_TOO_LARGE;
  if (!decodeError)
    return emitOpError("status ") << status << " is not a decoding error";
  return success();
}

LogicalResult AllocOp::verify() {
  if (getSize() == 0)
    return emitOpError("allocates nothing");
  return success();
}

LogicalResult GrowOp::verify() {
  if (getElemSize() == 0)
    return emitOpError("has elements of 0 bytes");
  return success();
}

LogicalResult KeepUnknownVarintOp::verify() {
  uint32_t number = getNumber();
  if (number == 0 || number > PBC_MAX_FIELD_NUMBER)
    return emitOpError("field number ")
           << number << " is out of range [1, " << PBC_MAX_FIELD_NUMBER << "]";
  return success();
}
