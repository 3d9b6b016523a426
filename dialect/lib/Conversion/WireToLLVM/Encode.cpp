//===- Encode.cpp - put_*: writing backwards --------------------------------===//
//
// Tags are constants, written as the widest stores that fit (a varint's on
// each of its paths); varints of one and two bytes and strings of up to
// 128 bytes are written inline, longer ones by the runtime or memcpy.
//
//===----------------------------------------------------------------------===//
#include "Patterns.h"

using namespace mlir;
using namespace pbc::wire;
namespace abi = pbc::abi;

namespace {

/// `bytes` as the widest little-endian integer stores that fit, from
/// `start` up.
void storeConstant(Emitter &e, Value start, StringRef bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    size_t width = 8;
    while (width > bytes.size() - done)
      width /= 2;
    uint64_t word = 0;
    for (size_t i = 0; i < width; ++i)
      word |= uint64_t(uint8_t(bytes[done + i])) << (8 * i);
    Type t = e.rw.getIntegerType(width * 8);
    e.rw.create<LLVM::StoreOp>(e.loc, e.cst(t, word),
                               done ? e.gep(start, done) : start,
                               /*alignment=*/1);
    done += width;
  }
}

/// Constant bytes become the widest little-endian integer stores that fit.
struct PutBytesLowering : OpConversionPattern<PutBytesOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PutBytesOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rw) const override {
    Emitter e{rw, op.getLoc()};
    StringRef bytes = op.getBytes();
    Value start = e.gep(adaptor.getPos(), -int64_t(bytes.size()));
    storeConstant(e, start, bytes);
    rw.replaceOp(op, start);
    return success();
  }
};

/// Varints written backwards, with their prefix (the tag) on each path:
///   v < 0x80   -> the byte, then the prefix
///   v < 0x4000 -> the two bytes (v & 0x7f | 0x80) | (v >> 7) << 8, then
///                 the prefix
///   else       -> the runtime's writer: with room, its one-word form
///                 (inlined), else its loop; then the prefix below what it
///                 wrote
struct PutVarintLowering : OpConversionPattern<PutVarintOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PutVarintOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rw) const override {
    Emitter e{rw, op.getLoc()};
    Value pos = adaptor.getPos(), v = adaptor.getValue();
    StringRef prefix = op.getPrefix().value_or("");
    int64_t p = prefix.size();

    Block *before = op->getBlock();
    Block *done = e.splitAt(op);
    Value room = adaptor.getRoom();
    Block *isLong = e.newBlockBefore(done);
    Block *two = e.newBlockBefore(isLong);
    Block *notOne = e.newBlockBefore(two);
    Block *one = e.newBlockBefore(notOne);

    // The prefix below the varint that starts at `start`, `n` bytes below
    // `end` (addressed from `end`: one offset, no chain); then to `done`
    // with where the prefix starts.
    auto finish = [&](Value start, Value end, int64_t n) {
      if (p) {
        start = e.gep(end, -(n + p));
        storeConstant(e, start, prefix);
      }
      rw.create<LLVM::BrOp>(e.loc, ValueRange{start}, done);
    };
    // The n low bytes of `bytes` (an i64) ending at pos. Two stores with the
    // prefix: one joined word would cost a shift and an or.
    auto putShort = [&](Value bytes, int64_t n) {
      Value value =
          rw.create<LLVM::TruncOp>(e.loc, rw.getIntegerType(8 * n), bytes);
      Value start = e.gep(pos, -n);
      rw.create<LLVM::StoreOp>(e.loc, value, start, /*alignment=*/1);
      finish(start, pos, n);
    };
    rw.setInsertionPointToEnd(before);
    Value isOne = rw.create<LLVM::ICmpOp>(e.loc, LLVM::ICmpPredicate::ult, v,
                                          e.cst(e.i64, 0x80));
    rw.create<LLVM::CondBrOp>(e.loc, isOne, one, notOne);

    rw.setInsertionPointToStart(one);
    putShort(v, 1);

    rw.setInsertionPointToStart(notOne);
    Value isTwo = rw.create<LLVM::ICmpOp>(e.loc, LLVM::ICmpPredicate::ult, v,
                                          e.cst(e.i64, 0x4000));
    rw.create<LLVM::CondBrOp>(e.loc, isTwo, two, isLong);

    rw.setInsertionPointToStart(two);
    Value low = rw.create<LLVM::OrOp>(
        e.loc, rw.create<LLVM::AndOp>(e.loc, v, e.cst(e.i64, 0x7f)),
        e.cst(e.i64, 0x80));
    Value high = rw.create<LLVM::ShlOp>(
        e.loc, rw.create<LLVM::LShrOp>(e.loc, v, e.cst(e.i64, 7)),
        e.cst(e.i64, 8));
    putShort(rw.create<LLVM::OrOp>(e.loc, low, high), 2);

    // The runtime picks the long form by the value and the room: one call
    // site, so one prefix store after it.
    rw.setInsertionPointToStart(isLong);
    Value start =
        room ? e.callRuntime(op, abi::Runtime::pbc_rt_put_varint_room,
                             {pos, v, room})
             : e.callRuntime(op, abi::Runtime::pbc_rt_put_varint, {pos, v});
    finish(start, start, 0);

    rw.replaceOp(op, done->getArguments());
    return success();
  }
};

struct PutFixedLowering : OpConversionPattern<PutFixedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PutFixedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rw) const override {
    Emitter e{rw, op.getLoc()};
    int64_t width = adaptor.getValue().getType().getIntOrFloatBitWidth() / 8;
    Value start = e.gep(adaptor.getPos(), -width);
    rw.create<LLVM::StoreOp>(e.loc, adaptor.getValue(), start,
                             /*alignment=*/1);
    rw.replaceOp(op, start);
    return success();
  }
};

/// Strings and bytes: up to 128 bytes copied inline by two overlapping
/// loads and stores (most strings are short, and a memcpy call, through
/// the PLT to the C library's dispatch, costs more than the copy: the two
/// strings of 67 and 86 bytes of google_message1 were a sixth of its
/// encode's time), longer ones by memcpy.
///   n > 128 -> memcpy;  n > 64 -> 2 x 64 bytes;  n > 32 -> 2 x 32 bytes;
///   n > 16 -> 2 x 16 bytes;  n >= 8 -> 2 x i64;  n >= 4 -> 2 x i32;
///   n >= 1 -> bytes 0, n/2, n-1
/// `out_of_line`: memcpy alone.
struct PutDataLowering : OpConversionPattern<PutDataOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PutDataOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rw) const override {
    Emitter e{rw, op.getLoc()};
    Value n = adaptor.getSize(), src = adaptor.getData();
    Value start = e.gep(adaptor.getPos(), e.neg(n));
    if (op.getOutOfLine()) {
      rw.create<LLVM::MemcpyOp>(e.loc, start, src, n, /*isVolatile=*/false);
      rw.replaceOp(op, start);
      return success();
    }

    Block *before = op->getBlock();
    Block *done = e.splitAt(op);
    Block *bytes = e.newBlockBefore(done);
    Block *lt4 = e.newBlockBefore(bytes);
    Block *words = e.newBlockBefore(lt4);
    Block *lt8 = e.newBlockBefore(words);
    Block *dwords = e.newBlockBefore(lt8);
    Block *small = e.newBlockBefore(dwords);
    Block *over = e.newBlockBefore(small);

    auto below = [&](int64_t bound) {
      return rw.create<LLVM::ICmpOp>(e.loc, LLVM::ICmpPredicate::ult, n,
                                     e.cst(e.i64, bound));
    };
    // The first and the last `width` bytes: together all of 1..2*width.
    auto copyEnds = [&](Type t, int64_t width) {
      Value tail = rw.create<LLVM::SubOp>(e.loc, n, e.cst(e.i64, width));
      Value head = rw.create<LLVM::LoadOp>(e.loc, t, src, /*alignment=*/1);
      Value last = rw.create<LLVM::LoadOp>(e.loc, t, e.gep(src, tail), 1);
      rw.create<LLVM::StoreOp>(e.loc, head, start, /*alignment=*/1);
      rw.create<LLVM::StoreOp>(e.loc, last, e.gep(start, tail), 1);
      rw.create<LLVM::BrOp>(e.loc, ValueRange{start}, done);
    };

    rw.setInsertionPointToEnd(before);
    rw.create<LLVM::CondBrOp>(e.loc, below(17), small, over);

    // From 17 bytes, the narrowest vector whose two copies cover n.
    for (int64_t width : {16, 32, 64}) {
      Block *vecs = e.newBlockBefore(small);
      Block *next = e.newBlockBefore(small);
      rw.setInsertionPointToStart(over);
      rw.create<LLVM::CondBrOp>(e.loc, below(2 * width + 1), vecs, next);
      rw.setInsertionPointToStart(vecs);
      copyEnds(VectorType::get({width}, e.i8), width);
      over = next;
    }

    rw.setInsertionPointToStart(over); // past 128 bytes
    rw.create<LLVM::MemcpyOp>(e.loc, start, src, n, /*isVolatile=*/false);
    rw.create<LLVM::BrOp>(e.loc, ValueRange{start}, done);

    rw.setInsertionPointToStart(small);
    rw.create<LLVM::CondBrOp>(e.loc, below(8), lt8, dwords);
    rw.setInsertionPointToStart(dwords);
    copyEnds(e.i64, 8);

    rw.setInsertionPointToStart(lt8);
    rw.create<LLVM::CondBrOp>(e.loc, below(4), lt4, words);
    rw.setInsertionPointToStart(words);
    copyEnds(e.i32, 4);

    rw.setInsertionPointToStart(lt4);
    rw.create<LLVM::CondBrOp>(e.loc, below(1), done, ValueRange{start}, bytes,
                              ValueRange());
    rw.setInsertionPointToStart(bytes);
    Value mid = rw.create<LLVM::LShrOp>(e.loc, n, e.cst(e.i64, 1));
    Value lastAt = rw.create<LLVM::SubOp>(e.loc, n, e.cst(e.i64, 1));
    Value b0 = rw.create<LLVM::LoadOp>(e.loc, e.i8, src);
    Value bm = rw.create<LLVM::LoadOp>(e.loc, e.i8, e.gep(src, mid));
    Value bl = rw.create<LLVM::LoadOp>(e.loc, e.i8, e.gep(src, lastAt));
    rw.create<LLVM::StoreOp>(e.loc, b0, start);
    rw.create<LLVM::StoreOp>(e.loc, bm, e.gep(start, mid));
    rw.create<LLVM::StoreOp>(e.loc, bl, e.gep(start, lastAt));
    rw.create<LLVM::BrOp>(e.loc, ValueRange{start}, done);

    rw.replaceOp(op, done->getArguments());
    return success();
  }
};

} // namespace

void pbc::wire::populateEncodePatterns(RewritePatternSet &patterns) {
  patterns.add<PutBytesLowering, PutVarintLowering, PutFixedLowering,
               PutDataLowering>(patterns.getContext());
}
