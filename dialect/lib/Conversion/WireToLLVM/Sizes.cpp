//===- Sizes.cpp - varint sizes and zigzag, branch-free ---------------------===//
#include "Patterns.h"

using namespace mlir;
using namespace pbc::wire;
namespace abi = pbc::abi;

namespace {

/// ((64 - ctlz(v | 1)) * 9 + 64) / 64: the byte count of a varint without a
/// branch or a loop.
struct VarintSizeLowering : OpConversionPattern<VarintSizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(VarintSizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rw) const override {
    Emitter e{rw, op.getLoc()};
    Value v = adaptor.getValue();
    if (v.getType() != e.i64)
      v = rw.create<LLVM::ZExtOp>(e.loc, e.i64, v);
    Value nonZero = rw.create<LLVM::OrOp>(e.loc, v, e.cst(e.i64, 1));
    Value lz = rw.create<LLVM::CountLeadingZerosOp>(e.loc, e.i64, nonZero,
                                                     /*is_zero_poison=*/true);
    Value bits = rw.create<LLVM::SubOp>(e.loc, e.cst(e.i64, 64), lz);
    Value scaled = rw.create<LLVM::AddOp>(
        e.loc, rw.create<LLVM::MulOp>(e.loc, bits, e.cst(e.i64, 9)),
        e.cst(e.i64, 64));
    rw.replaceOpWithNewOp<LLVM::LShrOp>(op, scaled, e.cst(e.i64, 6));
    return success();
  }
};

struct ZigZagEncodeLowering : OpConversionPattern<ZigZagEncodeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ZigZagEncodeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rw) const override {
    Emitter e{rw, op.getLoc()};
    Value n = adaptor.getValue();
    Type t = n.getType();
    Value shl = rw.create<LLVM::ShlOp>(e.loc, n, e.cst(t, 1));
    Value sign = rw.create<LLVM::AShrOp>(
        e.loc, n, e.cst(t, t.getIntOrFloatBitWidth() - 1));
    rw.replaceOpWithNewOp<LLVM::XOrOp>(op, shl, sign);
    return success();
  }
};

struct ZigZagDecodeLowering : OpConversionPattern<ZigZagDecodeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ZigZagDecodeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rw) const override {
    Emitter e{rw, op.getLoc()};
    Value n = adaptor.getValue();
    Type t = n.getType();
    Value half = rw.create<LLVM::LShrOp>(e.loc, n, e.cst(t, 1));
    Value low = rw.create<LLVM::AndOp>(e.loc, n, e.cst(t, 1));
    rw.replaceOpWithNewOp<LLVM::XOrOp>(op, half, e.neg(low));
    return success();
  }
};

} // namespace

void pbc::wire::populateSizePatterns(RewritePatternSet &patterns) {
  patterns.add<VarintSizeLowering, ZigZagEncodeLowering, ZigZagDecodeLowering>(
      patterns.getContext());
}
