//===- SelectTiers.cpp - specialized code or the table codec, per message -===//
//
// Specialized code is pbc's speed and its cost: about 1.4 KB of machine
// code and most of the compiler's time per field. The table codec costs a
// few dozen bytes of description per field and no compile time, and runs
// several times slower. This pass decides, file by file, which one each
// message gets: what the user asked for (the command line, then the file's
// `option optimize_for`), else a profile, message by message: the hottest,
// holding 99.9% of the work, are specialized, the rest compact; else
// the budget: the estimated code of all the files left fits it, or their
// largest go compact until it does.
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
    // A profiled schema: its messages' heat decides instead of their files'
    // size.
    if (llvm::any_of(module.getOps<MessageOp>(),
                     [](MessageOp m) { return m.getProfile().has_value(); })) {
      selectByProfile(module, fileTier);
      return;
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

  /// The messages of files without a mode of their own, by their heat:
  /// the hottest, until together they hold 99.9% of those messages' work
  /// in the profile (instances and field reads), are specialized; the rest are compact, every
  /// message the payloads never held among them. The budget does not cap
  /// this: it guesses from the schema where a profile knows where the time
  /// goes, and a load that reads every message (a proxy, a generic tool)
  /// should get them all specialized. Map entries are messages like any
  /// other here: a hot map's entries are hot.
  void selectByProfile(ModuleOp module,
                       const llvm::StringMap<Tier> &fileTier) {
    SmallVector<MessageOp> seen;
    uint64_t total = 0;
    for (MessageOp m : module.getOps<MessageOp>())
      if (!fileTier.contains(m.getFile()) && m.getProfile().value_or(0)) {
        seen.push_back(m);
        total += *m.getProfile();
      }
    llvm::stable_sort(seen, [](MessageOp a, MessageOp b) {
      return *a.getProfile() > *b.getProfile();
    });
    llvm::DenseSet<Operation *> specialized;
    uint64_t covered = 0;
    for (MessageOp m : seen) {
      if (covered * 1000 >= total * 999)
        break;
      covered += *m.getProfile();
      specialized.insert(m.getOperation());
    }
    for (MessageOp m : module.getOps<MessageOp>()) {
      Tier tier = fileTier.lookup(m.getFile());
      if (!fileTier.contains(m.getFile()))
        tier = specialized.contains(m.getOperation()) ? Tier::Specialized
                                                      : Tier::Compact;
      m.setTierAttr(TierAttr::get(&getContext(), tier));
    }
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
