//===- WireToLLVM.cpp - wire ops to the LLVM dialect ----------------------===//
//
// Hot, small cases are expanded inline: one-byte tags and varints, fixed
// loads and stores, constant tag writes, branch-free varint sizes. Everything
// else calls the runtime (`pbc_rt_*`), which pbc links into the module as
// bitcode so LLVM can inline it too.
//
// Expects structured control flow to be lowered already: reading ops split
// their block to branch to a slow path.
//
//===----------------------------------------------------------------------===//
#include "pbc/Conversion/Passes.h"
#include "pbc/Dialect/Wire/WireOps.h"
#include "pbc/pbc.h" // the status codes the generated code reports

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace pbc {
#define GEN_PASS_DEF_WIRETOLLVM
#include "pbc/Conversion/Passes.h.inc"
} // namespace pbc

using namespace mlir;
using namespace pbc::wire;

namespace {

/// IR building shared by the patterns.
struct Emitter {
  ConversionPatternRewriter &rw;
  Location loc;
  Type ptrTy = LLVM::LLVMPointerType::get(rw.getContext());
  Type i1 = rw.getI1Type(), i8 = rw.getI8Type(), i32 = rw.getI32Type(),
       i64 = rw.getI64Type();

  Value cst(Type t, int64_t v) {
    return rw.create<LLVM::ConstantOp>(loc, t, rw.getIntegerAttr(t, v));
  }
  Value gep(Value base, Value bytes) {
    return rw.create<LLVM::GEPOp>(loc, ptrTy, i8, base,
                                  ArrayRef<LLVM::GEPArg>{bytes});
  }
  Value gep(Value base, int64_t bytes) { return gep(base, cst(i64, bytes)); }
  /// A position past one just read: inbounds, so LLVM knows it is not null
  /// and drops the decoders' null checks on the inline paths.
  Value advance(Value pos, int32_t bytes) {
    return rw.create<LLVM::GEPOp>(loc, ptrTy, i8, pos,
                                  ArrayRef<LLVM::GEPArg>{bytes},
                                  /*inbounds=*/true);
  }
  Value neg(Value v) { return rw.create<LLVM::SubOp>(loc, cst(v.getType(), 0), v); }
  Value ptrDiff(Value hi, Value lo) {
    return rw.create<LLVM::SubOp>(loc, rw.create<LLVM::PtrToIntOp>(loc, i64, hi),
                                  rw.create<LLVM::PtrToIntOp>(loc, i64, lo));
  }

  /// Declares a runtime function (once per module) and calls it.
  Value callRuntime(Operation *from, StringRef name, Type result,
                    ValueRange args) {
    auto module = from->getParentOfType<ModuleOp>();
    // Declarations go at the end of the module, so search from there:
    // module.lookupSymbol scans from the start, once per call, which made
    // a schema with 5,000 messages take minutes.
    LLVM::LLVMFuncOp fn;
    for (Operation &op : llvm::reverse(*module.getBody()))
      if (auto f = dyn_cast<LLVM::LLVMFuncOp>(op);
          f && f.isExternal() && f.getSymName() == name) {
        fn = f;
        break;
      }
    if (!fn) {
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPointToEnd(module.getBody());
      SmallVector<Type> argTypes(args.getTypes());
      fn = rw.create<LLVM::LLVMFuncOp>(
          loc, name, LLVM::LLVMFunctionType::get(result, argTypes));
    }
    auto call = rw.create<LLVM::CallOp>(loc, fn, args);
    return call.getNumResults() ? call.getResult() : Value();
  }

  /// A stack slot for a runtime out-parameter, in the entry block so loops
  /// do not grow the stack.
  Value entryAlloca(Operation *from, Type type) {
    OpBuilder::InsertionGuard guard(rw);
    Block &entry = from->getParentOfType<LLVM::LLVMFuncOp>().getBody().front();
    rw.setInsertionPointToStart(&entry);
    return rw.create<LLVM::AllocaOp>(loc, ptrTy, type, cst(i64, 1));
  }

  /// Splits the block before `op`; the returned block receives the op's
  /// replacement values as arguments.
  Block *splitAt(Operation *op) {
    Block *before = op->getBlock();
    Block *after = rw.splitBlock(before, op->getIterator());
    for (Type t : op->getResultTypes())
      after->addArgument(t, loc);
    rw.setInsertionPointToEnd(before);
    return after;
  }

  /// To `more` when over `n` bytes are available, else to `fewer`; an
  /// unchecked read (below the decoder's read limit) goes to `more`.
  void branchIfMore(bool unchecked, Value avail, int64_t n, Block *more,
                    Block *fewer) {
    if (unchecked) {
      rw.create<LLVM::BrOp>(loc, ValueRange(), more);
      return;
    }
    Value over = rw.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::sgt, avail,
                                         cst(i64, n));
    rw.create<LLVM::CondBrOp>(loc, over, more, fewer);
  }

  Block *newBlockBefore(Block *next) {
    return rw.createBlock(next->getParent(), Region::iterator(next));
  }
};

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

/// Constant bytes become the widest little-endian integer stores that fit.
struct PutBytesLowering : OpConversionPattern<PutBytesOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PutBytesOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rw) const override {
    Emitter e{rw, op.getLoc()};
    StringRef bytes = op.getBytes();
    Value start = e.gep(adaptor.getPos(), -int64_t(bytes.size()));
    size_t done = 0;
    while (done < bytes.size()) {
      size_t width = 8;
      while (width > bytes.size() - done)
        width /= 2;
      uint64_t word = 0;
      for (size_t i = 0; i < width; ++i)
        word |= uint64_t(uint8_t(bytes[done + i])) << (8 * i);
      Type t = rw.getIntegerType(width * 8);
      rw.create<LLVM::StoreOp>(e.loc, e.cst(t, word), e.gep(start, done),
                               /*alignment=*/1);
      done += width;
    }
    rw.replaceOp(op, start);
    return success();
  }
};

/// Varints written backwards: one and two bytes (small values, most
/// lengths) inline as one store, the longer forms in the runtime.
///   if (v < 0x80)   -> store i8 v at pos - 1
///   if (v < 0x4000) -> store i16 (v & 0x7f | 0x80) | (v >> 7) << 8 at pos - 2
///   else runtime(pos, v)   (with `slack`: the one-word writer)
struct PutVarintLowering : OpConversionPattern<PutVarintOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PutVarintOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rw) const override {
    Emitter e{rw, op.getLoc()};
    Value pos = adaptor.getPos(), v = adaptor.getValue();

    Block *before = op->getBlock();
    Block *done = e.splitAt(op);
    Block *slow = e.newBlockBefore(done);
    Block *two = e.newBlockBefore(slow);
    Block *notOne = e.newBlockBefore(two);
    Block *one = e.newBlockBefore(notOne);

    rw.setInsertionPointToEnd(before);
    Value isOne = rw.create<LLVM::ICmpOp>(e.loc, LLVM::ICmpPredicate::ult, v,
                                          e.cst(e.i64, 0x80));
    rw.create<LLVM::CondBrOp>(e.loc, isOne, one, notOne);

    rw.setInsertionPointToStart(one);
    Value p1 = e.gep(pos, -1);
    rw.create<LLVM::StoreOp>(e.loc, rw.create<LLVM::TruncOp>(e.loc, e.i8, v),
                             p1, /*alignment=*/1);
    rw.create<LLVM::BrOp>(e.loc, ValueRange{p1}, done);

    rw.setInsertionPointToStart(notOne);
    Value isTwo = rw.create<LLVM::ICmpOp>(e.loc, LLVM::ICmpPredicate::ult, v,
                                          e.cst(e.i64, 0x4000));
    rw.create<LLVM::CondBrOp>(e.loc, isTwo, two, slow);

    rw.setInsertionPointToStart(two);
    Value low = rw.create<LLVM::OrOp>(
        e.loc, rw.create<LLVM::AndOp>(e.loc, v, e.cst(e.i64, 0x7f)),
        e.cst(e.i64, 0x80));
    Value high = rw.create<LLVM::ShlOp>(
        e.loc, rw.create<LLVM::LShrOp>(e.loc, v, e.cst(e.i64, 7)),
        e.cst(e.i64, 8));
    Value word = rw.create<LLVM::TruncOp>(
        e.loc, rw.getIntegerType(16), rw.create<LLVM::OrOp>(e.loc, low, high));
    Value p2 = e.gep(pos, -2);
    rw.create<LLVM::StoreOp>(e.loc, word, p2, /*alignment=*/1);
    rw.create<LLVM::BrOp>(e.loc, ValueRange{p2}, done);

    rw.setInsertionPointToStart(slow);
    Value start = e.callRuntime(
        op, op.getSlack() ? "pbc_rt_put_varint_slack" : "pbc_rt_put_varint",
        e.ptrTy, {pos, v});
    rw.create<LLVM::BrOp>(e.loc, ValueRange{start}, done);

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

/// Strings and bytes: up to 64 bytes copied inline by two overlapping
/// loads and stores (most strings are short, and a memcpy call costs more
/// than the copy), longer ones by memcpy.
///   n > 64 -> memcpy;  n > 32 -> 2 x 32 bytes;  n > 16 -> 2 x 16 bytes;
///   n >= 8 -> 2 x i64;  n >= 4 -> 2 x i32;  n >= 1 -> bytes 0, n/2, n-1
struct PutDataLowering : OpConversionPattern<PutDataOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PutDataOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rw) const override {
    Emitter e{rw, op.getLoc()};
    Value n = adaptor.getSize(), src = adaptor.getData();
    Value start = e.gep(adaptor.getPos(), e.neg(n));

    Block *before = op->getBlock();
    Block *done = e.splitAt(op);
    Block *bytes = e.newBlockBefore(done);
    Block *lt4 = e.newBlockBefore(bytes);
    Block *words = e.newBlockBefore(lt4);
    Block *lt8 = e.newBlockBefore(words);
    Block *dwords = e.newBlockBefore(lt8);
    Block *small = e.newBlockBefore(dwords);
    Block *big = e.newBlockBefore(small);
    Block *vecs32 = e.newBlockBefore(big);
    Block *over32 = e.newBlockBefore(vecs32);
    Block *vecs16 = e.newBlockBefore(over32);
    Block *over16 = e.newBlockBefore(vecs16);

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
    rw.create<LLVM::CondBrOp>(e.loc, below(17), small, over16);

    rw.setInsertionPointToStart(over16);
    rw.create<LLVM::CondBrOp>(e.loc, below(33), vecs16, over32);
    rw.setInsertionPointToStart(vecs16);
    copyEnds(VectorType::get({16}, e.i8), 16);
    rw.setInsertionPointToStart(over32);
    rw.create<LLVM::CondBrOp>(e.loc, below(65), vecs32, big);
    rw.setInsertionPointToStart(vecs32);
    copyEnds(VectorType::get({32}, e.i8), 32);

    rw.setInsertionPointToStart(big);
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

/// Tags and varints: the one- and two-byte forms inline (straight-line
/// code, the values of nearly every tag, length and small integer), the
/// long form in the runtime.
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
    bool unchecked = false;
    if constexpr (!isTag)
      unchecked = op.getUnchecked();

    Block *before = op->getBlock();
    Block *done = e.splitAt(op);
    Block *slow = e.newBlockBefore(done);
    Block *twoBytes = e.newBlockBefore(slow);
    Block *second = e.newBlockBefore(twoBytes);
    Block *first = e.newBlockBefore(second);

    rw.setInsertionPointToEnd(before);
    Value avail = e.ptrDiff(end, pos);
    e.branchIfMore(unchecked, avail, 0, first, slow);

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

    // Byte 0 has its continuation bit (or is a tag below 8, which the
    // runtime rejects: its value is complete, so the next check fails).
    rw.setInsertionPointToStart(second);
    e.branchIfMore(unchecked, avail, 1, twoBytes, slow);

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

    rw.setInsertionPointToStart(slow);
    StringRef callee = isTag       ? "pbc_rt_tag"
                       : unchecked ? "pbc_rt_varint_unchecked"
                                   : "pbc_rt_varint";
    Value next = e.callRuntime(op, callee, e.ptrTy, {dec, pos, end, out});
    Value slowValue = rw.create<LLVM::LoadOp>(e.loc, valueTy, out);
    rw.create<LLVM::BrOp>(e.loc, ValueRange{next, slowValue}, done);

    rw.replaceOp(op, done->getArguments());
    return success();
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
    Value avail = e.ptrDiff(adaptor.getEnd(), pos);
    Value enough = rw.create<LLVM::ICmpOp>(e.loc, LLVM::ICmpPredicate::sge,
                                           avail, e.cst(e.i64, width));
    rw.create<LLVM::CondBrOp>(e.loc, enough, read, truncated);

    rw.setInsertionPointToStart(read);
    Value v = rw.create<LLVM::LoadOp>(e.loc, valueTy, pos, /*alignment=*/1);
    rw.create<LLVM::BrOp>(e.loc, ValueRange{e.advance(pos, width), v}, done);

    rw.setInsertionPointToStart(truncated);
    Value null = e.callRuntime(op, "pbc_rt_fail", e.ptrTy,
                               {dec, e.cst(e.i32, PBC_ERR_TRUNCATED)});
    Value zero = rw.create<LLVM::ZeroOp>(e.loc, valueTy);
    rw.create<LLVM::BrOp>(e.loc, ValueRange{null, zero}, done);

    rw.replaceOp(op, done->getArguments());
    return success();
  }
};

/// A length varint, then a check that the payload fits in the input.
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
    Value oneFits = rw.create<LLVM::ICmpOp>(e.loc, LLVM::ICmpPredicate::sle,
                                            oneLen, e.ptrDiff(end, oneNext));
    rw.create<LLVM::CondBrOp>(e.loc, oneFits, done,
                              ValueRange{oneNext, oneLen}, truncated,
                              ValueRange{e.cst(e.i32, PBC_ERR_TRUNCATED)});

    rw.setInsertionPointToStart(general);
    auto varint = rw.create<GetVarintOp>(e.loc, dec, pos, end);
    varint.setUnchecked(op.getUnchecked());
    Value next = varint.getNext(), len = varint.getValue();
    // A failed varint (null next) has already recorded its error; the
    // comparison then routes to `truncated`, which keeps the first error.
    // Signed: an unchecked length may end past `end` (avail < 0), and a
    // length of at most 5 bytes is below 2^35.
    Value avail = e.ptrDiff(end, next);
    Value fits =
        rw.create<LLVM::ICmpOp>(e.loc, LLVM::ICmpPredicate::sle, len, avail);
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

    truncated->addArgument(e.i32, e.loc);
    rw.setInsertionPointToStart(truncated);
    Value null = e.callRuntime(op, "pbc_rt_fail", e.ptrTy,
                               {dec, truncated->getArgument(0)});
    rw.create<LLVM::BrOp>(e.loc, ValueRange{null, e.cst(e.i64, 0)}, done);

    rw.replaceOp(op, done->getArguments());
    return success();
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
    Value avail = e.ptrDiff(adaptor.getEnd(), adaptor.getPos());
    Value enough = rw.create<LLVM::ICmpOp>(
        e.loc, LLVM::ICmpPredicate::sge, avail, e.cst(e.i64, bytes.size()));
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

/// A fixed value goes through a stack slot to pbc_writer_write.
struct WriteFixedLowering : OpConversionPattern<WriteFixedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WriteFixedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rw) const override {
    Emitter e{rw, op.getLoc()};
    Type type = adaptor.getValue().getType();
    Value slot = e.entryAlloca(op, type);
    rw.create<LLVM::StoreOp>(e.loc, adaptor.getValue(), slot);
    e.callRuntime(op, "pbc_writer_write", LLVM::LLVMVoidType::get(rw.getContext()),
                  {adaptor.getWriter(), slot,
                   e.cst(e.i64, type.getIntOrFloatBitWidth() / 8)});
    rw.eraseOp(op);
    return success();
  }
};

/// Ops that are a runtime call: the operands, then the integer attributes
/// as constants (ops declare their attributes last, so the order matches the
/// runtime function's parameters).
template <typename Op>
struct RuntimeCallLowering : OpConversionPattern<Op> {
  RuntimeCallLowering(MLIRContext *ctx, StringRef callee)
      : OpConversionPattern<Op>(ctx), callee(callee) {}
  using OpAdaptor = typename Op::Adaptor;

  LogicalResult
  matchAndRewrite(Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rw) const override {
    Emitter e{rw, op.getLoc()};
    SmallVector<Value> args(adaptor.getOperands());
    for (NamedAttribute attr : op->getAttrs())
      if (auto i = dyn_cast<IntegerAttr>(attr.getValue()))
        args.push_back(e.cst(i.getType(), i.getInt()));
    Type result = op->getNumResults()
                      ? op->getResult(0).getType()
                      : LLVM::LLVMVoidType::get(rw.getContext());
    Value v = e.callRuntime(op, callee, result, args);
    if (v)
      rw.replaceOp(op, v);
    else
      rw.eraseOp(op);
    return success();
  }
  std::string callee;
};

struct WireToLLVMPass : pbc::impl::WireToLLVMBase<WireToLLVMPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<VarintSizeLowering, ZigZagEncodeLowering,
                 ZigZagDecodeLowering, PutBytesLowering, PutVarintLowering,
                 PutFixedLowering, PutDataLowering,
                 ReadVarintLowering<GetTagOp>, ReadVarintLowering<GetVarintOp>,
                 GetFixedLowering, GetLengthLowering, WriteFixedLowering,
                 ExpectTagLowering>(ctx);
    patterns.add<RuntimeCallLowering<SkipOp>>(ctx, "pbc_rt_skip");
    patterns.add<RuntimeCallLowering<ReadLimitOp>>(ctx, "pbc_rt_read_limit");
    patterns.add<RuntimeCallLowering<FailOp>>(ctx, "pbc_rt_fail");
    patterns.add<RuntimeCallLowering<Utf8ValidOp>>(ctx, "pbc_rt_utf8_valid");
    patterns.add<RuntimeCallLowering<CountVarintsOp>>(ctx, "pbc_rt_count_varints");
    patterns.add<RuntimeCallLowering<PushOp>>(ctx, "pbc_rt_push");
    patterns.add<RuntimeCallLowering<PopOp>>(ctx, "pbc_rt_pop");
    patterns.add<RuntimeCallLowering<AllocOp>>(ctx, "pbc_rt_alloc");
    patterns.add<RuntimeCallLowering<GrowOp>>(ctx, "pbc_rt_grow");
    patterns.add<RuntimeCallLowering<KeepUnknownOp>>(ctx, "pbc_rt_keep_unknown");
    patterns.add<RuntimeCallLowering<KeepUnknownVarintOp>>(
        ctx, "pbc_rt_keep_unknown_varint");
    patterns.add<RuntimeCallLowering<BytesEqualOp>>(ctx, "pbc_rt_bytes_equal");
    patterns.add<RuntimeCallLowering<ReserveOp>>(ctx, "pbc_writer_reserve");
    patterns.add<RuntimeCallLowering<WriteVarintOp>>(ctx,
                                                     "pbc_writer_write_varint");
    patterns.add<RuntimeCallLowering<WriteDataOp>>(ctx, "pbc_writer_write");

    ConversionTarget target(*ctx);
    target.addIllegalDialect<WireDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    // One function at a time: the conversion keeps every replaced op until
    // it ends, which over a whole 5,000-message module was a gigabyte. The
    // runtime declarations it adds go at the end of the module, after the
    // functions collected here.
    FrozenRewritePatternSet frozen(std::move(patterns));
    SmallVector<LLVM::LLVMFuncOp> functions(
        getOperation().getOps<LLVM::LLVMFuncOp>());
    for (LLVM::LLVMFuncOp function : functions)
      if (failed(applyPartialConversion(function, target, frozen)))
        return signalPassFailure();
  }
};

} // namespace
