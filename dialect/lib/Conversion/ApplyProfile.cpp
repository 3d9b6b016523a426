//===- ApplyProfile.cpp - what sample payloads held, onto the schema ------===//
//
// A profile (pbc profile's recording of sample payloads) says which
// messages do the work and in what order their fields arrive. This pass
// writes both onto the schema, where the passes that decide act on them:
// a message's `profile` (its instances and field reads) for
// proto-select-tiers, a field's `followed_by` for the decoder's in-order
// chain.
//
//===----------------------------------------------------------------------===//
#include "pbc/Conversion/Passes.h"
#include "pbc/Dialect/Proto/ProtoOps.h"
#include "pbc/Support/Profile.h"

#include "llvm/Support/MemoryBuffer.h"

namespace pbc {
#define GEN_PASS_DEF_PROTOAPPLYPROFILE
#include "pbc/Conversion/Passes.h.inc"
} // namespace pbc

using namespace mlir;
using namespace pbc::proto;

namespace {

/// The other field of the message most often read right after `number`
/// (ties: the lower number), if the profile saw one.
std::optional<uint32_t> likeliestNext(const pbc::FieldProfile &field,
                                      uint32_t number,
                                      const llvm::DenseSet<uint32_t> &fields) {
  std::optional<uint32_t> best;
  uint64_t bestCount = 0;
  for (auto [next, count] : field.next)
    if (next != 0 && next != number && fields.contains(next) &&
        count > bestCount) {
      best = next;
      bestCount = count;
    }
  return best;
}

struct ProtoApplyProfilePass
    : pbc::impl::ProtoApplyProfileBase<ProtoApplyProfilePass> {
  using ProtoApplyProfileBase::ProtoApplyProfileBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
        llvm::MemoryBuffer::getFile(profile, /*IsText=*/true);
    if (!file) {
      module.emitError("cannot read the profile '")
          << profile << "': " << file.getError().message();
      return signalPassFailure();
    }
    llvm::Expected<pbc::Profile> parsed =
        pbc::Profile::parse((*file)->getBuffer(), profile);
    if (!parsed) {
      module.emitError(llvm::toString(parsed.takeError()));
      return signalPassFailure();
    }

    Builder b(&getContext());
    bool matched = false;
    for (MessageOp m : module.getOps<MessageOp>()) {
      auto it = parsed->messages.find(m.getSymName().str());
      bool seen = it != parsed->messages.end();
      matched |= seen;
      // Its work: each instance (a call, at least) and each field read.
      // An empty message read a thousand times is hot.
      m.setProfileAttr(b.getI64IntegerAttr(
          seen ? static_cast<int64_t>(it->second.instances + it->second.reads)
               : 0));
      if (!seen)
        continue;
      llvm::DenseSet<uint32_t> numbers;
      for (FieldOp f : m.getFields())
        numbers.insert(f.getNumber());
      for (FieldOp f : m.getFields()) {
        auto field = it->second.fields.find(f.getNumber());
        if (field == it->second.fields.end())
          continue;
        if (std::optional<uint32_t> next =
                likeliestNext(field->second, f.getNumber(), numbers))
          f.setFollowedByAttr(b.getI32IntegerAttr(*next));
      }
    }
    if (!matched) {
      std::string roots;
      for (const auto &entry : parsed->roots)
        roots += (roots.empty() ? "" : ", ") + entry.first;
      module.emitWarning("the profile '")
          << profile << "' names none of the schema's messages (its roots: "
          << roots << ")";
    }
  }
};

} // namespace
