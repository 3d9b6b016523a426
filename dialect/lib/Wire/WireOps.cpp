//===- WireOps.cpp - wire dialect folds and canonicalizations -------------===//
//
// The compile-time half of "fused varint/size computation": every size or
// zigzag of a constant folds, and adjacent constant writes merge into one
// store.
//
//===----------------------------------------------------------------------===//
#include "pbc/Dialect/Wire/WireOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace pbc::wire;

#define GET_OP_CLASSES
#include "pbc/Dialect/Wire/WireOps.cpp.inc"

static unsigned varintSize(uint64_t v) {
  unsigned n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

OpFoldResult VarintSizeOp::fold(FoldAdaptor adaptor) {
  auto value = dyn_cast_or_null<IntegerAttr>(adaptor.getValue());
  if (!value)
    return {};
  return IntegerAttr::get(getType(),
                          varintSize(value.getValue().getZExtValue()));
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
} // namespace

void PutBytesOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                             MLIRContext *context) {
  patterns.add<MergeAdjacentPutBytes>(context);
}
