//===- Decode.cpp - get_*, expect_tag: reading, checked or not --------------===//
//
// Every read returns the next position, or null with the error recorded in
// the decoder. The one- and two-byte forms of tags, varints and lengths are
// read inline, the longer ones by the runtime (near the end of the input,
// where a message reads a few values, the two-byte forms of lengths and
// singular values too); `unchecked` reads (below the decoder's read limit)
// skip their bounds checks.
//
//===----------------------------------------------------------------------===//
#include "Patterns.h"

using namespace mlir;
using namespace pbc::wire;
namespace abi = pbc::abi;

namespace {

/// Tags and varints: the one- and two-byte forms inline (straight-line
/// code, the values of nearly every tag, length and small integer), the
/// long form in the runtime: below the read limit its word-wide read,
/// inlined, or for `rare_long` values called (pbc_rt_varint_long); else
/// the bounds-checked reader, which also takes a checked `rare_long`
/// value's two-byte form. The generated code never inlines those two
/// (CodeGen.cpp, kOutOfLine).
///   if (p < end && byte(p) < 0x80)            -> p + 1, byte(p)
///   if (p + 1 < end && byte(p + 1) < 0x80)    -> p + 2, low 7 bits | byte(p + 1) << 7
///   else runtime(dec, p, end, &out)
/// A tag must also have a non-zero field number (a value >= 8).
/// `unchecked` varints skip the two bounds checks: the caller checked the
/// position against wire.read_limit.
template <typename Op>
struct ReadVarintLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  using OpAdaptor = typename Op::Adaptor;
  static constexpr bool isTag = std::is_same_v<Op, GetTagOp>;

  LogicalResult
  matchAndRewrite(Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rw) const override {
    Emitter e{rw, op.getLoc()};
    Type valueTy = isTag ? e.i32 : e.i64;
    Value out = e.entryAlloca(op, valueTy);
    Value dec = adaptor.getDec(), pos = adaptor.getPos(),
          end = adaptor.getEnd();
    bool unchecked = false, rareLong = false;
    if constexpr (!isTag) {
      unchecked = op.getUnchecked();
      rareLong = op.getRareLong();
    }

    // Checked reads happen near the end of the input only, a few a
    // message: there a `rare_long` value's two-byte form is the runtime's
    // too (about 40 bytes a field less), while a repeated integer's
    // elements, which may run to the end in numbers, keep it.
    bool inlineTwo = unchecked || !rareLong;

    Block *before = op->getBlock();
    Block *done = e.splitAt(op);
    Block *slow = e.newBlockBefore(done);
    Block *twoBytes = inlineTwo ? e.newBlockBefore(slow) : nullptr;
    Block *second = inlineTwo ? e.newBlockBefore(twoBytes) : slow;
    Block *first = e.newBlockBefore(second);

    rw.setInsertionPointToEnd(before);
    e.branchIfMore(unchecked, pos, end, 0, first, slow);

    rw.setInsertionPointToStart(first);
    int64_t lowest = isTag ? 8 : 0;
    Value b0 = rw.create<LLVM::LoadOp>(e.loc, e.i8, pos);
    Value rel = rw.create<LLVM::SubOp>(e.loc, b0, e.cst(e.i8, lowest));
    Value fits = rw.create<LLVM::ICmpOp>(e.loc, LLVM::ICmpPredicate::ult, rel,
                                         e.cst(e.i8, 0x80 - lowest));
    Value v0 = rw.create<LLVM::ZExtOp>(e.loc, valueTy, b0);
    rw.create<LLVM::CondBrOp>(e.loc, fits, done,
                              ValueRange{e.advance(pos, 1), v0}, second,
                              ValueRange());

    if (inlineTwo)
      readSecondByte(e, second, twoBytes, slow, done, pos, end, unchecked,
                     b0, v0);

    rw.setInsertionPointToStart(slow);
    abi::Runtime callee = isTag      ? abi::Runtime::pbc_rt_tag
                          : !unchecked ? abi::Runtime::pbc_rt_varint
                          : rareLong   ? abi::Runtime::pbc_rt_varint_long
                                       : abi::Runtime::pbc_rt_varint_unchecked;
    Value next = e.callRuntime(op, callee, {dec, pos, end, out});
    Value slowValue = rw.create<LLVM::LoadOp>(e.loc, valueTy, out);
    rw.create<LLVM::BrOp>(e.loc, ValueRange{next, slowValue}, done);

    rw.replaceOp(op, done->getArguments());
    return success();
  }

private:
  /// Byte 0 has its continuation bit (or is a tag below 8, which the
  /// runtime rejects: its value is complete, so the next check fails):
  /// `second` tests for byte 1, `twoBytes` joins the two when it ends the
  /// value, else `slow`.
  static void readSecondByte(Emitter &e, Block *second, Block *twoBytes,
                             Block *slow, Block *done, Value pos, Value end,
                             bool unchecked, Value b0, Value v0) {
    ConversionPatternRewriter &rw = e.rw;
    Type valueTy = v0.getType();
    rw.setInsertionPointToStart(second);
    e.branchIfMore(unchecked, pos, end, 1, twoBytes, slow);

    rw.setInsertionPointToStart(twoBytes);
    // Inbounds like the fast path's `advance(pos, 1)`: LLVM merges the two,
    // and a plain GEP there would hide that the position is not null.
    Value b1 = rw.create<LLVM::LoadOp>(e.loc, e.i8, e.advance(pos, 1));
    Value low = rw.create<LLVM::AndOp>(e.loc, v0, e.cst(valueTy, 0x7f));
    Value high = rw.create<LLVM::ShlOp>(
        e.loc, rw.create<LLVM::ZExtOp>(e.loc, valueTy, b1), e.cst(valueTy, 7));
    Value v1 = rw.create<LLVM::OrOp>(e.loc, low, high);
    Value ok = rw.create<LLVM::AndOp>(
        e.loc,
        rw.create<LLVM::ICmpOp>(e.loc, LLVM::ICmpPredicate::slt, b0,
                                e.cst(e.i8, 0)),
        rw.create<LLVM::ICmpOp>(e.loc, LLVM::ICmpPredicate::sge, b1,
                                e.cst(e.i8, 0)));
    if (isTag)
      ok = rw.create<LLVM::AndOp>(
          e.loc, ok,
          rw.create<LLVM::ICmpOp>(e.loc, LLVM::ICmpPredicate::uge, v1,
                                  e.cst(valueTy, 8)));
    rw.create<LLVM::CondBrOp>(e.loc, ok, done,
                              ValueRange{e.advance(pos, 2), v1}, slow,
                              ValueRange());
  }
};

/// Fixed-width values: one bounds check (none when `unchecked`) and an
/// unaligned load.
struct GetFixedLowering : OpConversionPattern<GetFixedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GetFixedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rw) const override {
    Emitter e{rw, op.getLoc()};
    Type valueTy = op.getValue().getType();
    int64_t width = valueTy.getIntOrFloatBitWidth() / 8;
    Value dec = adaptor.getDec(), pos = adaptor.getPos();
    if (op.getUnchecked()) {
      Value v = rw.create<LLVM::LoadOp>(e.loc, valueTy, pos, /*alignment=*/1);
      rw.replaceOp(op, ValueRange{e.advance(pos, width), v});
      return success();
    }

    Block *before = op->getBlock();
    Block *done = e.splitAt(op);
    Block *truncated = e.newBlockBefore(done);
    Block *read = e.newBlockBefore(truncated);

    rw.setInsertionPointToEnd(before);
    Value enough = e.hasBytes(pos, width, adaptor.getEnd());
    rw.create<LLVM::CondBrOp>(e.loc, enough, read, truncated);

    rw.setInsertionPointToStart(read);
    Value v = rw.create<LLVM::LoadOp>(e.loc, valueTy, pos, /*alignment=*/1);
    rw.create<LLVM::BrOp>(e.loc, ValueRange{e.advance(pos, width), v}, done);

    rw.setInsertionPointToStart(truncated);
    Value null = e.callRuntime(op, abi::Runtime::pbc_rt_fail,
                               {dec, e.cst(e.i32, PBC_ERR_TRUNCATED)});
    Value zero = rw.create<LLVM::ZeroOp>(e.loc, valueTy);
    rw.create<LLVM::BrOp>(e.loc, ValueRange{null, zero}, done);

    rw.replaceOp(op, done->getArguments());
    return success();
  }
};

/// A length varint, then a check that the payload fits in the input. A
/// one-byte length inline; a longer one read and checked inline below the
/// read limit (`unchecked`), else by the runtime (pbc_rt_length).
struct GetLengthLowering : OpConversionPattern<GetLengthOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GetLengthOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rw) const override {
    Emitter e{rw, op.getLoc()};
    Value dec = adaptor.getDec(), end = adaptor.getEnd(),
          pos = adaptor.getPos();
    Block *before = op->getBlock();
    Block *done = e.splitAt(op);
    Block *truncated = e.newBlockBefore(done);
    Block *general = e.newBlockBefore(truncated);
    Block *oneByte = e.newBlockBefore(general);
    Block *first = e.newBlockBefore(oneByte);

    // A one-byte length (below 128, nearly all of them) on its own path:
    // only the payload is left to check.
    rw.setInsertionPointToEnd(before);
    if (op.getUnchecked()) {
      rw.create<LLVM::BrOp>(e.loc, ValueRange(), first);
    } else {
      Value any = rw.create<LLVM::ICmpOp>(e.loc, LLVM::ICmpPredicate::ult,
                                          pos, end);
      rw.create<LLVM::CondBrOp>(e.loc, any, first, general);
    }
    rw.setInsertionPointToStart(first);
    Value b0 = rw.create<LLVM::LoadOp>(e.loc, e.i8, pos);
    Value isOne = rw.create<LLVM::ICmpOp>(e.loc, LLVM::ICmpPredicate::sge, b0,
                                          e.cst(e.i8, 0));
    rw.create<LLVM::CondBrOp>(e.loc, isOne, oneByte, general);
    rw.setInsertionPointToStart(oneByte);
    Value oneNext = e.advance(pos, 1);
    Value oneLen = rw.create<LLVM::ZExtOp>(e.loc, e.i64, b0);
    // The payload fits when over len bytes follow pos (its end, next + len,
    // is at most `end`): from next, a three-operand lea the x86 tuning
    // splits in two.
    Value oneFits = e.hasBytes(pos, oneLen, end, /*over=*/true);
    rw.create<LLVM::CondBrOp>(e.loc, oneFits, done,
                              ValueRange{oneNext, oneLen}, truncated,
                              ValueRange{e.cst(e.i32, PBC_ERR_TRUNCATED)});

    rw.setInsertionPointToStart(general);
    if (!op.getUnchecked()) {
      // Near the end of the input, where a message reads a handful of
      // lengths: the runtime's reader, one call for the varint and both
      // checks, where the inline form below is about 60 bytes a field.
      Value out = e.entryAlloca(op, e.i64);
      Value next = e.callRuntime(op, abi::Runtime::pbc_rt_length,
                                 {dec, pos, end, out});
      Value len = rw.create<LLVM::LoadOp>(e.loc, e.i64, out);
      rw.create<LLVM::BrOp>(e.loc, ValueRange{next, len}, done);
      finish(op, rw, e, dec, truncated, done);
      return success();
    }
    auto varint = rw.create<GetVarintOp>(e.loc, dec, pos, end);
    varint.setUnchecked(true);
    varint.setRareLong(true);
    Value next = varint.getNext(), len = varint.getValue();
    // A failed varint (null next) has already recorded its error; the
    // comparison then routes to `truncated`, which keeps the first error.
    // An unchecked length may end past `end` (then so does the payload),
    // and a length of at most 5 bytes is below 2^35: next + len cannot
    // wrap.
    Value fits = e.hasBytes(next, len, end);
    // libprotobuf reads a length in at most 5 bytes (ReadSize): a longer,
    // overlong one is an error even when its value is small.
    Value isShort = rw.create<LLVM::ICmpOp>(
        e.loc, LLVM::ICmpPredicate::ule, e.ptrDiff(next, pos),
        e.cst(e.i64, 5));
    Value ok = rw.create<LLVM::AndOp>(
        e.loc, rw.create<LLVM::AndOp>(e.loc, fits, isShort),
        rw.create<LLVM::ICmpOp>(e.loc, LLVM::ICmpPredicate::ne, next,
                                rw.create<LLVM::ZeroOp>(e.loc, e.ptrTy)));
    Value code = rw.create<LLVM::SelectOp>(
        e.loc, isShort, e.cst(e.i32, PBC_ERR_TRUNCATED),
        e.cst(e.i32, PBC_ERR_BAD_LENGTH));
    rw.create<LLVM::CondBrOp>(e.loc, ok, done, ValueRange{next, len},
                              truncated, ValueRange{code});

    finish(op, rw, e, dec, truncated, done);
    return success();
  }

private:
  /// The failure block (`truncated`: records its status, the length 0) and
  /// the results.
  static void finish(GetLengthOp op, ConversionPatternRewriter &rw,
                     Emitter &e, Value dec, Block *truncated, Block *done) {
    truncated->addArgument(e.i32, e.loc);
    rw.setInsertionPointToStart(truncated);
    Value null = e.callRuntime(op, abi::Runtime::pbc_rt_fail,
                               {dec, truncated->getArgument(0)});
    rw.create<LLVM::BrOp>(e.loc, ValueRange{null, e.cst(e.i64, 0)}, done);
    rw.replaceOp(op, done->getArguments());
  }
};

/// One bounds check (none when `unchecked`), then the tag's bytes as one
/// little-endian integer.
struct ExpectTagLowering : OpConversionPattern<ExpectTagOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpectTagOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rw) const override {
    Emitter e{rw, op.getLoc()};
    StringRef bytes = op.getBytes();
    uint64_t word = 0;
    for (size_t i = 0; i < bytes.size(); ++i)
      word |= uint64_t(uint8_t(bytes[i])) << (8 * i);
    Type wordTy = rw.getIntegerType(8 * bytes.size());
    if (op.getUnchecked()) {
      Value loaded = rw.create<LLVM::LoadOp>(e.loc, wordTy, adaptor.getPos(),
                                             /*alignment=*/1);
      rw.replaceOpWithNewOp<LLVM::ICmpOp>(op, LLVM::ICmpPredicate::eq, loaded,
                                          e.cst(wordTy, word));
      return success();
    }

    Block *before = op->getBlock();
    Block *done = e.splitAt(op);
    Block *compare = e.newBlockBefore(done);
    rw.setInsertionPointToEnd(before);
    Value enough =
        e.hasBytes(adaptor.getPos(), bytes.size(), adaptor.getEnd());
    rw.create<LLVM::CondBrOp>(e.loc, enough, compare, ValueRange(), done,
                              ValueRange{e.cst(e.i1, 0)});

    rw.setInsertionPointToStart(compare);
    Value loaded = rw.create<LLVM::LoadOp>(e.loc, wordTy, adaptor.getPos(),
                                           /*alignment=*/1);
    Value same = rw.create<LLVM::ICmpOp>(e.loc, LLVM::ICmpPredicate::eq,
                                         loaded, e.cst(wordTy, word));
    rw.create<LLVM::BrOp>(e.loc, ValueRange{same}, done);
    rw.replaceOp(op, done->getArguments());
    return success();
  }
};

} // namespace

void pbc::wire::populateDecodePatterns(RewritePatternSet &patterns) {
  patterns.add<ReadVarintLowering<GetTagOp>, ReadVarintLowering<GetVarintOp>,
               GetFixedLowering, GetLengthLowering, ExpectTagLowering>(
      patterns.getContext());
}
