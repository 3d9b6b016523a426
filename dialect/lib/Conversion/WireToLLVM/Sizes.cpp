//===- Sizes.cpp - varint sizes and zigzag, branch-free ---------------------===//
#include "Patterns.h"

using namespace mlir;
using namespace pbc::wire;
namespace abi = pbc::abi;

namespace {

/// The varint byte count of each highest set bit (0 to 63): the module's
/// constant `pbc.varint_size`, made on first use, at the module's end with
/// the runtime declarations (where a reverse walk finds it at once).
LLVM::GlobalOp varintSizeTable(ConversionPatternRewriter &rw, Operation *from) {
  constexpr llvm::StringLiteral name = "pbc.varint_size";
  auto module = from->getParentOfType<ModuleOp>();
  for (Operation &op : llvm::reverse(*module.getBody()))
    if (auto g = llvm::dyn_cast<LLVM::GlobalOp>(op);
        g && g.getSymName() == name)
      return g;
  SmallVector<int8_t, 64> sizes;
  for (int bit = 0; bit < 64; bit++)
    sizes.push_back(static_cast<int8_t>(bit / 7 + 1));
  auto i8 = rw.getI8Type();
  OpBuilder::InsertionGuard guard(rw);
  rw.setInsertionPointToEnd(module.getBody());
  return rw.create<LLVM::GlobalOp>(
      module.getLoc(), LLVM::LLVMArrayType::get(i8, 64), /*isConstant=*/true,
      LLVM::Linkage::Internal, name,
      DenseElementsAttr::get(RankedTensorType::get({64}, i8),
                             ArrayRef<int8_t>(sizes)));
}

/// The byte count of a varint, without a branch or a loop: the table's entry
/// for the highest set bit of v | 1 (63 - ctlz, which x86 computes as one
/// `bsr`). Three instructions, where the arithmetic form
/// ((64 - ctlz) * 9 + 64) >> 6 took six; the size functions sum one per
/// field, packed fields one per element.
struct VarintSizeLowering : OpConversionPattern<VarintSizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(VarintSizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rw) const override {
    Emitter e{rw, op.getLoc()};
    LLVM::GlobalOp table = varintSizeTable(rw, op);
    Value v = adaptor.getValue();
    if (v.getType() != e.i64)
      v = rw.create<LLVM::ZExtOp>(e.loc, e.i64, v);
    Value nonZero = rw.create<LLVM::OrOp>(e.loc, v, e.cst(e.i64, 1));
    Value lz = rw.create<LLVM::CountLeadingZerosOp>(e.loc, e.i64, nonZero,
                                                     /*is_zero_poison=*/true);
    Value bit = rw.create<LLVM::XOrOp>(e.loc, lz, e.cst(e.i64, 63));
    Value base = rw.create<LLVM::AddressOfOp>(e.loc, table);
    Value entry = rw.create<LLVM::GEPOp>(e.loc, e.ptrTy, e.i8, base,
                                         ArrayRef<LLVM::GEPArg>{bit},
                                         /*inbounds=*/true);
    Value size = rw.create<LLVM::LoadOp>(e.loc, e.i8, entry);
    rw.replaceOpWithNewOp<LLVM::ZExtOp>(op, e.i64, size);
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
