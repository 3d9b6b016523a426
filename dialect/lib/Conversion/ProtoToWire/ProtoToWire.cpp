//===- ProtoToWire.cpp - codec functions from the schema ------------------===//
//
// For every message this pass writes its codecs, specialized code or calls
// into the table codec as its tier says, and its description (the constant
// record generic code and the table codec read: Description.cpp); for every
// extension, its record. Each role has
// its file (see CodecContext.h); this one runs them, message by message,
// from the encoding plan of the laid-out schema, and then drops the proto
// ops.
//
//===----------------------------------------------------------------------===//
#include "CodecContext.h"

#include "pbc/Conversion/Passes.h"

namespace pbc {
#define GEN_PASS_DEF_PROTOTOWIRE
#include "pbc/Conversion/Passes.h.inc"
} // namespace pbc

using namespace mlir;
using namespace pbc::proto;

namespace {

struct ProtoToWirePass : pbc::impl::ProtoToWireBase<ProtoToWirePass> {
  using ProtoToWireBase::ProtoToWireBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (MessageOp m : module.getOps<MessageOp>())
      if (!m.hasLayout()) {
        m.emitOpError("has no layout; run -proto-layout first");
        return signalPassFailure();
      }
    llvm::StringSet<> selected;
    for (const std::string &f : files)
      selected.insert(f);

    EncodingPlan plan(module);
    CodecContext cx(module, plan, selected);
    for (const MessagePlan *m : plan.messages())
      cx.declareCodecs(*m);
    SmallVector<Attribute> infos;
    for (EnumOp e : module.getOps<EnumOp>())
      if (cx.generates(e))
        buildEnumInfo(cx, e);
    for (const MessagePlan *m : plan.messages()) {
      if (!cx.generates(*m))
        continue;
      FailureOr<Description> desc = buildDescription(cx, *m);
      if (failed(desc))
        return signalPassFailure();
      if (m->op.isCompact()) {
        buildTableCodecs(cx, *m);
      } else {
        buildInit(cx, *m, *desc);
        buildIsInitialized(cx, *m);
        buildSize(cx, *m);
        buildEncoder(cx, *m);
        buildWriter(cx, *m);
        buildDecoder(cx, *m);
        buildToJson(cx, *m);
        buildFromJson(cx, *m);
        buildEntryPoints(cx, *m);
      }
      infos.push_back(buildInfo(cx, *m, *desc));
    }
    llvm::StringMap<EnumOp> enums;
    for (EnumOp e : module.getOps<EnumOp>())
      enums[e.getSymName()] = e;
    for (ExtensionOp ext : module.getOps<ExtensionOp>()) {
      if (!cx.generates(ext))
        continue;
      FieldOp field = ext.getField();
      EnumOp enumType;
      if (field.getType() == FieldType::Enum)
        enumType = enums.lookup(*field.getTypeName());
      infos.push_back(buildExtensionInfo(cx, ext, enumType));
    }
    buildUsedList(cx, infos);
    for (Operation &op : llvm::make_early_inc_range(module.getOps()))
      if (isa<MessageOp, EnumOp, FileOp, ExtensionOp>(op))
        op.erase();
  }
};

} // namespace
