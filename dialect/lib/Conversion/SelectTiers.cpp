//===- SelectTiers.cpp - specialized code or the table codec, per message -===//
//
// Specialized code is pbc's speed and its cost: about 1.4 KB of machine
// code and most of the compiler's time per field. The table codec costs a
// few dozen bytes of description per field and no compile time, and runs
// several times slower. This pass decides, file by file, which one each
// message gets: what the user asked for (the command line, then the file's
// `option optimize_for`), else the budget: the estimated code of all the
// files left fits it, or their largest go compact until it does. A profile
// (later) will decide message by message.
//
//===----------------------------------------------------------------------===//
#include "pbc/Conversion/Passes.h"
#include "pbc/Dialect/Proto/ProtoOps.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"

namespace pbc {
#define GEN_PASS_DEF_PROTOSELECTTIERS
#include "pbc/Conversion/Passes.h.inc"
} // namespace pbc

using namespace mlir;
using namespace pbc::proto;

namespace {

/// The specialized code a message is expected to take, in bytes of text:
/// fitted (least squares) to what pbc -O2 emits for the files of
/// google_message1-3, which it predicts within 20%. A repeated message
/// field costs more: its decoder grows an array of structs in place.
uint64_t estimatedCode(MessageOp message) {
  uint64_t bytes = 3072;
  for (FieldOp field : message.getFields())
    bytes += field.isRepeated() && field.isMessageLike() ? 2304 : 1408;
  return bytes;
}

Tier tierFor(OptimizeFor mode) {
  switch (mode) {
  case OptimizeFor::Speed:
    return Tier::Specialized;
  case OptimizeFor::CodeSize:
    return Tier::Compact;
  case OptimizeFor::LiteRuntime:
    return Tier::Lite;
  }
  llvm_unreachable("an optimize_for mode");
}

struct ProtoSelectTiersPass
    : pbc::impl::ProtoSelectTiersBase<ProtoSelectTiersPass> {
  using ProtoSelectTiersBase::ProtoSelectTiersBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<OptimizeFor> forced;
    if (!optimizeFor.empty())
      forced = pbc::parseOptimizeFor(optimizeFor);
    if (!optimizeFor.empty() && !forced) {
      module.emitError("unknown optimize-for '")
          << optimizeFor << "': expected speed, code-size or lite-runtime";
      return signalPassFailure();
    }

    // What each file's code would take specialized, and what the files
    // without a mode of their own would take together: the budget's.
    llvm::StringMap<uint64_t> fileCode;
    for (MessageOp m : module.getOps<MessageOp>())
      fileCode[m.getFile()] += estimatedCode(m);
    llvm::StringMap<Tier> fileTier;
    for (FileOp file : module.getOps<FileOp>()) {
      std::optional<OptimizeFor> mode = forced;
      if (!mode)
        mode = file.getOptimizeFor();
      if (mode)
        fileTier[file.getName()] = tierFor(*mode);
    }
    SmallVector<std::pair<uint64_t, StringRef>> undecided;
    uint64_t total = 0;
    for (const auto &[file, bytes] : fileCode)
      if (!fileTier.contains(file)) {
        undecided.push_back({bytes, file});
        total += bytes;
      }
    // The largest files go compact until the others fit: a schema's big
    // generated files (or one huge file) stop costing minutes, and the
    // small ones it imports keep their speed. Ties by name, so the choice
    // is the same whatever the hash order.
    llvm::sort(undecided, [](const auto &a, const auto &b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (const auto &[bytes, file] : undecided) {
      bool over = total > codeBudget;
      fileTier[file] = over ? Tier::Compact : Tier::Specialized;
      if (over)
        total -= bytes;
    }
    for (MessageOp m : module.getOps<MessageOp>())
      m.setTierAttr(TierAttr::get(&getContext(), fileTier.lookup(m.getFile())));
  }
};

} // namespace

std::optional<OptimizeFor> pbc::parseOptimizeFor(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<OptimizeFor>>(name)
      .Case("speed", OptimizeFor::Speed)
      .Case("code-size", OptimizeFor::CodeSize)
      .Case("lite-runtime", OptimizeFor::LiteRuntime)
      .Default(std::nullopt);
}
