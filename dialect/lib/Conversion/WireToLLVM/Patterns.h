//===- Patterns.h - wire-to-llvm's patterns and what they share -*- C++ -*-===//
//
// wire-to-llvm expands each wire op into the LLVM dialect: the hot, small
// cases inline (one- and two-byte tags and varints, fixed loads and
// stores, constant tag writes, branch-free varint sizes), everything else
// as a call into the runtime (`pbc_rt_*`, `pbc_writer_*`, declared from
// runtime/abi.def), which pbc links into the module as bitcode so that LLVM
// inlines it too. The patterns are grouped by what they lower:
//   Sizes.cpp         varint_size, zigzag
//   Encode.cpp        put_* (backwards encoding)
//   Decode.cpp        get_*, expect_tag (reading with or without checks)
//   RuntimeCalls.cpp  the ops that are a runtime call, and the writer's
//
//===----------------------------------------------------------------------===//
#ifndef PBC_CONVERSION_WIRETOLLVM_PATTERNS_H
#define PBC_CONVERSION_WIRETOLLVM_PATTERNS_H

#include "pbc/Dialect/Wire/WireOps.h"
#include "pbc/Support/ABI.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace pbc::wire {

/// IR building shared by the patterns.
struct Emitter {
  mlir::ConversionPatternRewriter &rw;
  mlir::Location loc;
  mlir::Type ptrTy = mlir::LLVM::LLVMPointerType::get(rw.getContext());
  mlir::Type i1 = rw.getI1Type(), i8 = rw.getI8Type(), i32 = rw.getI32Type(),
             i64 = rw.getI64Type();

  mlir::Value cst(mlir::Type t, int64_t v);
  mlir::Value gep(mlir::Value base, mlir::Value bytes);
  mlir::Value gep(mlir::Value base, int64_t bytes) {
    return gep(base, cst(i64, bytes));
  }
  /// A position past one just read: inbounds, so LLVM knows it is not null
  /// and drops the decoders' null checks on the inline paths.
  mlir::Value advance(mlir::Value pos, int32_t bytes);
  mlir::Value neg(mlir::Value v);
  mlir::Value ptrDiff(mlir::Value hi, mlir::Value lo);

  /// Calls runtime function `fn` (declared once per module, from
  /// abi.def). The arguments must have the types the table gives.
  mlir::Value callRuntime(mlir::Operation *from, abi::Runtime fn,
                          mlir::ValueRange args);

  /// A stack slot for a runtime out-parameter, in the entry block so loops
  /// do not grow the stack.
  mlir::Value entryAlloca(mlir::Operation *from, mlir::Type type);

  /// Splits the block before `op`; the returned block receives the op's
  /// replacement values as arguments.
  mlir::Block *splitAt(mlir::Operation *op);

  /// Whether the `n` bytes from `pos` end by `end` (pos + n <= end; with
  /// `over`, pos + n < end: more than n bytes). A compare of addresses
  /// (x86: lea, cmp) where end - pos against n took a mov and a sub too;
  /// pos lies inside the input or a read's length past it, so pos + n
  /// cannot wrap. Not inbounds: a truncated value ends past the input.
  mlir::Value hasBytes(mlir::Value pos, mlir::Value n, mlir::Value end,
                       bool over = false);
  mlir::Value hasBytes(mlir::Value pos, int64_t n, mlir::Value end,
                       bool over = false);

  /// To `more` when over `n` bytes are available from `pos`, else to
  /// `fewer`; an unchecked read (below the decoder's read limit) goes to
  /// `more`.
  void branchIfMore(bool unchecked, mlir::Value pos, mlir::Value end,
                    int64_t n, mlir::Block *more, mlir::Block *fewer);

  mlir::Block *newBlockBefore(mlir::Block *next) {
    return rw.createBlock(next->getParent(), mlir::Region::iterator(next));
  }
};

void populateSizePatterns(mlir::RewritePatternSet &patterns);
void populateEncodePatterns(mlir::RewritePatternSet &patterns);
void populateDecodePatterns(mlir::RewritePatternSet &patterns);
void populateRuntimeCallPatterns(mlir::RewritePatternSet &patterns);

} // namespace pbc::wire

#endif // PBC_CONVERSION_WIRETOLLVM_PATTERNS_H
