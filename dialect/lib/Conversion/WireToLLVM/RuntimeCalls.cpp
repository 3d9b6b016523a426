//===- RuntimeCalls.cpp - the wire ops that are a runtime call ------------===//
//
// The decoder and writer states are the runtime's pointers. Each of the
// other ops here is one call into the runtime; which function, and with
// which arguments in which order, is spelled out here for each op (the
// function's type comes from runtime/abi.def). Attributes that are arguments
// (an allocation's size, a status) become constants.
//
//===----------------------------------------------------------------------===//
#include "Patterns.h"

using namespace mlir;
using namespace pbc::wire;
namespace abi = pbc::abi;

namespace {

/// An op that is a call to runtime function `fn` with the arguments `args`
/// gives for it.
template <typename Op>
struct RuntimeCallLowering : OpConversionPattern<Op> {
  using OpAdaptor = typename Op::Adaptor;
  using Arguments = SmallVector<Value> (*)(Op, OpAdaptor, Emitter &);

  RuntimeCallLowering(MLIRContext *ctx, abi::Runtime fn, Arguments args)
      : OpConversionPattern<Op>(ctx), fn(fn), args(args) {}

  LogicalResult
  matchAndRewrite(Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rw) const override {
    Emitter e{rw, op.getLoc()};
    Value v = e.callRuntime(op, fn, args(op, adaptor, e));
    if (v)
      rw.replaceOp(op, v);
    else
      rw.eraseOp(op);
    return success();
  }

  abi::Runtime fn;
  Arguments args;
};

template <typename Op>
void addCall(RewritePatternSet &patterns, abi::Runtime fn,
             typename RuntimeCallLowering<Op>::Arguments args) {
  patterns.add<RuntimeCallLowering<Op>>(patterns.getContext(), fn, args);
}

/// `wire.decoder %p` and `wire.writer %p`: the runtime's state is the
/// pointer itself.
template <typename Op>
struct StateLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rw) const override {
    rw.replaceOp(op, adaptor.getState());
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
    e.callRuntime(op, abi::Runtime::pbc_writer_write,
                  {adaptor.getWriter(), slot,
                   e.cst(e.i64, type.getIntOrFloatBitWidth() / 8)});
    rw.eraseOp(op);
    return success();
  }
};

} // namespace

void pbc::wire::populateRuntimeCallPatterns(RewritePatternSet &patterns) {
  using R = abi::Runtime;
  patterns.add<StateLowering<DecoderOp>, StateLowering<WriterOp>,
               WriteFixedLowering>(patterns.getContext());
  // Decoding.
  addCall<ReadLimitOp>(patterns, R::pbc_rt_read_limit,
                       [](ReadLimitOp, ReadLimitOp::Adaptor a, Emitter &) {
                         return SmallVector<Value>{a.getDec(), a.getEnd()};
                       });
  addCall<SkipOp>(patterns, R::pbc_rt_skip,
                  [](SkipOp, SkipOp::Adaptor a, Emitter &) {
                    return SmallVector<Value>{a.getDec(), a.getPos(),
                                              a.getEnd(), a.getTag()};
                  });
  addCall<FailOp>(patterns, R::pbc_rt_fail,
                  [](FailOp op, FailOp::Adaptor a, Emitter &e) {
                    return SmallVector<Value>{
                        a.getDec(), e.cst(e.i32, op.getStatus())};
                  });
  addCall<Utf8ValidOp>(patterns, R::pbc_rt_utf8_valid,
                       [](Utf8ValidOp, Utf8ValidOp::Adaptor a, Emitter &) {
                         return SmallVector<Value>{a.getData(), a.getSize()};
                       });
  addCall<CountVarintsOp>(
      patterns, R::pbc_rt_count_varints,
      [](CountVarintsOp, CountVarintsOp::Adaptor a, Emitter &) {
        return SmallVector<Value>{a.getBegin(), a.getEnd()};
      });
  addCall<PushOp>(patterns, R::pbc_rt_push,
                  [](PushOp, PushOp::Adaptor a, Emitter &) {
                    return SmallVector<Value>{a.getDec()};
                  });
  addCall<PopOp>(patterns, R::pbc_rt_pop,
                 [](PopOp, PopOp::Adaptor a, Emitter &) {
                   return SmallVector<Value>{a.getDec()};
                 });
  addCall<AllocOp>(patterns, R::pbc_rt_alloc,
                   [](AllocOp op, AllocOp::Adaptor a, Emitter &e) {
                     return SmallVector<Value>{a.getDec(),
                                               e.cst(e.i64, op.getSize())};
                   });
  addCall<GrowOp>(patterns, R::pbc_rt_grow,
                  [](GrowOp op, GrowOp::Adaptor a, Emitter &e) {
                    return SmallVector<Value>{a.getDec(), a.getData(),
                                              a.getSize(), a.getAdd(),
                                              e.cst(e.i64, op.getElemSize())};
                  });
  addCall<KeepUnknownOp>(
      patterns, R::pbc_rt_keep_unknown,
      [](KeepUnknownOp, KeepUnknownOp::Adaptor a, Emitter &) {
        return SmallVector<Value>{a.getDec(), a.getUnknown(), a.getStart(),
                                  a.getEnd()};
      });
  addCall<KeepUnknownVarintOp>(
      patterns, R::pbc_rt_keep_unknown_varint,
      [](KeepUnknownVarintOp op, KeepUnknownVarintOp::Adaptor a, Emitter &e) {
        return SmallVector<Value>{a.getDec(), a.getUnknown(), a.getValue(),
                                  e.cst(e.i32, op.getNumber())};
      });
  addCall<BytesEqualOp>(
      patterns, R::pbc_rt_bytes_equal,
      [](BytesEqualOp, BytesEqualOp::Adaptor a, Emitter &) {
        return SmallVector<Value>{a.getLhs(), a.getLhsSize(), a.getRhs(),
                                  a.getRhsSize()};
      });
  // Writing forwards.
  addCall<ReserveOp>(patterns, R::pbc_writer_reserve,
                     [](ReserveOp, ReserveOp::Adaptor a, Emitter &) {
                       return SmallVector<Value>{a.getWriter(), a.getSize()};
                     });
  addCall<WriteVarintOp>(
      patterns, R::pbc_writer_write_varint,
      [](WriteVarintOp, WriteVarintOp::Adaptor a, Emitter &) {
        return SmallVector<Value>{a.getWriter(), a.getValue()};
      });
  addCall<WriteDataOp>(patterns, R::pbc_writer_write,
                       [](WriteDataOp, WriteDataOp::Adaptor a, Emitter &) {
                         return SmallVector<Value>{a.getWriter(), a.getData(),
                                                   a.getSize()};
                       });
}
