//===- CodeGen.cpp - LLVM IR to machine code ------------------------------===//
#include "CodeGen.h"
#include "PrebuiltRuntime.h"

#include "pbc/Dialect/Proto/Naming.h"
#include "pbc/Support/ABI.h"

#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/IR/PassTimingInfo.h"
#include "llvm/Pass.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/IPO/ElimAvailExtern.h"
#include "llvm/Transforms/IPO/GlobalDCE.h"
#include "llvm/Transforms/Instrumentation.h"
#include "llvm/Transforms/Instrumentation/AddressSanitizer.h"
#include "llvm/Transforms/Instrumentation/SanitizerCoverage.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;
namespace abi = pbc::abi;

namespace {
// The runtime (runtime/*.c), compiled to bitcode for each supported
// architecture when pbc was built (runtime/CMakeLists.txt).
const unsigned char kRuntimeX86_64[] = {
#include "RuntimeBitcode-x86_64.inc"
};
const unsigned char kRuntimeAArch64[] = {
#include "RuntimeBitcode-aarch64.inc"
};
const unsigned char kRuntimeRISCV64[] = {
#include "RuntimeBitcode-riscv64.inc"
};

/// The runtime bitcode for `arch`; empty when pbc has none for it.
StringRef runtimeBitcodeFor(Triple::ArchType arch) {
  auto bytes = [](const auto &array) {
    return StringRef(reinterpret_cast<const char *>(array), sizeof(array));
  };
  switch (arch) {
  case Triple::x86_64:
    return bytes(kRuntimeX86_64);
  case Triple::aarch64:
    return bytes(kRuntimeAArch64);
  case Triple::riscv64:
    return bytes(kRuntimeRISCV64);
  default:
    return {};
  }
}

std::string toString(const Type *type) {
  std::string text;
  raw_string_ostream(text) << *type;
  return text;
}

Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// A portable CPU for the target unless the user picked one: code pbc writes
/// must run on any machine of the target architecture.
std::string baselineCpu(const Triple &triple) {
  if (triple.getArch() == Triple::x86_64)
    return "x86-64";
  if (triple.getArch() == Triple::riscv64)
    return "generic-rv64";
  return "generic";
}

/// Features on top of the CPU's: riscv64's generic CPU is bare RV64I, while
/// Linux distributions (and their C compilers, whose lp64d calling
/// convention needs the D extension) assume RV64GC.
std::string baselineFeatures(const Triple &triple) {
  if (triple.getArch() == Triple::riscv64)
    return "+m,+a,+f,+d,+c,+zicsr,+zifencei";
  return "";
}

/// The runtime bitcode for `module`'s architecture, read into `context`
/// lazily: a function's body is parsed when the linker takes it, so a
/// .proto file's object, which takes only what it calls, parses only that.
/// Its triple and data layout become the module's so that the linker sees
/// one target: the bitcode was compiled for the architecture, not for the
/// exact triple the user asked for.
Expected<std::unique_ptr<Module>> loadRuntime(const Module &module,
                                              LLVMContext &context) {
  Triple triple(module.getTargetTriple());
  auto runtime = getLazyBitcodeModule(
      MemoryBufferRef(runtimeBitcodeFor(triple.getArch()), "pbc_runtime.bc"),
      context);
  if (!runtime)
    return runtime.takeError();
  (*runtime)->setTargetTriple(module.getTargetTriple());
  (*runtime)->setDataLayout(module.getDataLayout());
  return runtime;
}

/// The target features most runtime functions have: those of the
/// architecture's generic CPU the bitcode was compiled for, where a function
/// with others asked for them in its source. Ties go to the lesser string,
/// so that the choice does not depend on hash order.
std::string commonTargetFeatures(const Module &runtime) {
  StringMap<unsigned> featureUses;
  for (const Function &f : runtime)
    if (!f.isDeclaration())
      ++featureUses[f.getFnAttribute("target-features").getValueAsString()];
  StringRef common;
  unsigned mostUses = 0;
  for (const auto &entry : featureUses)
    if (entry.second > mostUses ||
        (entry.second == mostUses && entry.first() < common)) {
      mostUses = entry.second;
      common = entry.first();
    }
  return common.str();
}

/// Drops the CPU and the common features the bitcode was compiled with, so
/// that the module's target (--mcpu) decides the runtime's instruction set
/// as it does the generated code's. Functions that ask for more than most
/// (runtime/utf8.c's AVX2 validator, picked at run time) keep their
/// features: the baseline CPU could not compile them.
void retargetRuntime(Module &runtime) {
  std::string common = commonTargetFeatures(runtime);
  for (Function &f : runtime) {
    f.removeFnAttr("target-cpu");
    f.removeFnAttr("tune-cpu");
    if (f.getFnAttribute("target-features").getValueAsString() == common)
      f.removeFnAttr("target-features");
  }
}

/// The functions the runtime defines for others to call, remembered before
/// linking moves them into the module, where only their names tell them
/// from the generated ones.
StringSet<> runtimeEntryPoints(const Module &runtime) {
  StringSet<> names;
  for (const Function &f : runtime)
    if (!f.isDeclaration() && !f.hasLocalLinkage())
      names.insert(f.getName());
  return names;
}

/// The prefix of the runtime's shared helpers (shareRuntimeHelpers): no C
/// identifier has a '.'.
constexpr StringLiteral kSharedPrefix = "pbc__rt.";

/// The runtime's own helpers that are never inlined (noinline: the slow
/// paths, such as the arena's new block or a writer's straddling copy) are
/// static in its C, local to its bitcode; an object whose code inlined a
/// runtime function that calls one got a copy of its own (google_message3's
/// nine objects, all specialized, held nine of each: 22 KB). Made hidden
/// runtime functions under kSharedPrefix, the runtime object defines them
/// once (setLinkage) and the other objects call that definition. (Its
/// constant tables stay local: shared, the runtime object would have to
/// keep each, the copies its files' headers made and those its code folds
/// away, more bytes than the objects' copies of the few that inlining
/// carries, google_message3's default build 1 KB more.)
void shareRuntimeHelpers(Module &runtime) {
  for (Function &f : runtime)
    if (f.hasLocalLinkage() && !f.isDeclaration() &&
        f.hasFnAttribute(Attribute::NoInline)) {
      f.setName(kSharedPrefix + f.getName());
      f.setLinkage(GlobalValue::ExternalLinkage);
      f.setVisibility(GlobalValue::HiddenVisibility);
    }
}

/// Links the runtime into `module`: all of it, or with `onlyNeeded` the
/// functions the module calls (and what they call), which is all an object
/// that only inlines the runtime needs.
Error linkRuntimeModule(Module &module, std::unique_ptr<Module> runtime,
                        bool onlyNeeded) {
  unsigned flags =
      onlyNeeded ? Linker::Flags::LinkOnlyNeeded : Linker::Flags::None;
  if (Linker::linkModules(module, std::move(runtime), flags))
    return makeError("cannot link the pbc runtime into the module");
  return Error::success();
}

/// Makes every definition weak_odr, so that two pbc libraries, or two
/// objects sharing an import, never clash at link time while LLVM may
/// still inline them. With `inlineOnly`, the runtime's functions become
/// available_externally instead: LLVM inlines them and emits none, since
/// the archive's runtime object defines them (those it may not inline,
/// noinline, linkRuntime did not link at all).
void setLinkage(Module &module, const StringSet<> &runtimeFunctions,
                bool inlineOnly) {
  for (Function &f : module) {
    if (f.isDeclaration() || f.hasLocalLinkage())
      continue;
    bool external = inlineOnly && runtimeFunctions.contains(f.getName());
    f.setLinkage(external ? GlobalValue::AvailableExternallyLinkage
                          : GlobalValue::WeakODRLinkage);
  }
}

/// runtime/utf8.c checks the CPU for AVX2 at run time unless it is told the
/// target has it; folding the answer in, as a constant, drops the check.
void foldTargetHasAVX2(Module &module, const MCSubtargetInfo &subtarget) {
  GlobalVariable *avx2 = module.getGlobalVariable("pbc_rt_target_avx2");
  if (!avx2)
    return;
  bool has = subtarget.checkFeatures("+avx2");
  avx2->setInitializer(ConstantInt::get(avx2->getValueType(), has));
  avx2->setLinkage(GlobalValue::InternalLinkage);
  avx2->setConstant(true);
}

/// Fails when a call's type differs from its callee's. The lowering
/// declares the runtime functions it calls, and when the runtime defines
/// one with another type, linking keeps the call as it was: LLVM no longer
/// sees its callee (getCalledFunction is null), so applyCallingConvention
/// would skip it, and running it is undefined behaviour. The declaration
/// or the runtime is wrong, a bug in pbc that must not reach an object.
Error checkCallTypes(const Module &module) {
  for (const Function &caller : module)
    for (const BasicBlock &block : caller)
      for (const Instruction &inst : block) {
        const auto *call = dyn_cast<CallBase>(&inst);
        const auto *callee =
            call ? dyn_cast<Function>(call->getCalledOperand()) : nullptr;
        if (!callee || callee->getFunctionType() == call->getFunctionType())
          continue;
        return makeError("internal error: " + caller.getName() + " calls " +
                         callee->getName() + " as '" +
                         toString(call->getFunctionType()) + "', but " +
                         callee->getName() + " has type '" +
                         toString(callee->getFunctionType()) + "'");
      }
  return Error::success();
}

/// Gives every call the callee's argument and return extensions
/// (signext/zeroext), and on riscv64 sign-extends the 32-bit results of the
/// generated functions as its C ABI requires. The lowering declares
/// functions without them; the runtime, compiled by clang, has them, and a
/// caller that does not extend where the callee assumes it passes garbage
/// in the upper bits of a register. Call and callee types agree
/// (checkCallTypes).
void applyCallingConvention(Module &module, const Triple &triple) {
  if (triple.getArch() == Triple::riscv64)
    for (Function &f : module)
      if (!f.isDeclaration() && !f.hasLocalLinkage() &&
          f.getReturnType()->isIntegerTy(32) &&
          !f.hasRetAttribute(Attribute::ZExt))
        f.addRetAttr(Attribute::SExt);
  const Attribute::AttrKind kinds[] = {Attribute::SExt, Attribute::ZExt};
  for (Function &f : module)
    for (BasicBlock &block : f)
      for (Instruction &inst : block) {
        auto *call = dyn_cast<CallBase>(&inst);
        Function *callee = call ? call->getCalledFunction() : nullptr;
        if (!callee)
          continue;
        for (Attribute::AttrKind kind : kinds) {
          if (callee->hasRetAttribute(kind))
            call->addRetAttr(kind);
          for (unsigned i = 0; i < callee->arg_size(); ++i)
            if (callee->hasParamAttribute(i, kind))
              call->addParamAttr(i, kind);
        }
      }
}
} // namespace

namespace pbc {

CodeGen::CodeGen(const CodeGenOptions &options, const Target *target)
    : options(options), target(target) {}

CodeGen::~CodeGen() = default;

Expected<std::unique_ptr<CodeGen>>
CodeGen::create(const CodeGenOptions &options) {
  InitializeAllTargetInfos();
  InitializeAllTargets();
  InitializeAllTargetMCs();
  InitializeAllAsmPrinters();

  CodeGenOptions resolved = options;
  if (resolved.triple.empty())
    resolved.triple = sys::getDefaultTargetTriple();
  Triple triple(Triple::normalize(resolved.triple));
  resolved.triple = triple.str();
  if (resolved.cpu.empty())
    resolved.cpu = baselineCpu(triple);
  if (runtimeBitcodeFor(triple.getArch()).empty())
    return makeError("target '" + resolved.triple +
                     "' is not supported: pbc generates code for "
                     "x86_64, aarch64 and riscv64 (64-bit little-endian); "
                     "use e.g. --target=aarch64-linux-gnu");

  std::string error;
  const Target *target = TargetRegistry::lookupTarget(resolved.triple, error);
  if (!target)
    return makeError("unknown target '" + resolved.triple + "': " + error);
  if (resolved.cpu == "native") {
    if (triple.getArch() != Triple(sys::getProcessTriple()).getArch())
      return makeError("--mcpu=native names this machine's CPU; it cannot "
                       "be used with --target=" + resolved.triple);
    resolved.cpu = sys::getHostCPUName().str();
  }
  // LLVM only warns about an unknown CPU, then generates baseline code (or
  // aborts for some names); a typo should be an error.
  std::unique_ptr<MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(resolved.triple, "", ""));
  if (!subtarget || !subtarget->isCPUStringValid(resolved.cpu))
    return makeError("unknown CPU '" + resolved.cpu + "' for target '" +
                     resolved.triple + "' (e.g. --mcpu=" + baselineCpu(triple) +
                     ", or native)");
  std::unique_ptr<CodeGen> codegen(new CodeGen(resolved, target));
  codegen->machine = codegen->createMachine();
  if (!codegen->machine)
    return makeError("cannot create a target machine for '" +
                     resolved.triple + "' (cpu '" + resolved.cpu + "')");
  return codegen;
}

std::unique_ptr<TargetMachine>
CodeGen::createMachine(std::optional<unsigned> optLevel) const {
  unsigned opt = optLevel.value_or(options.optLevel);
  CodeGenOptLevel level = opt == 0   ? CodeGenOptLevel::None
                          : opt == 1 ? CodeGenOptLevel::Less
                          : opt == 2 ? CodeGenOptLevel::Default
                                     : CodeGenOptLevel::Aggressive;
  // A section per function and per object, as clang's -ffunction-sections
  // -fdata-sections: a program linked with --gc-sections keeps only the
  // code it reaches (the runtime functions it never calls, above all).
  TargetOptions targetOptions;
  targetOptions.FunctionSections = true;
  targetOptions.DataSections = true;
  return std::unique_ptr<TargetMachine>(target->createTargetMachine(
      options.triple, options.cpu, baselineFeatures(Triple(options.triple)),
      targetOptions, Reloc::PIC_, std::nullopt, level));
}

/// Links the runtime in, for LLVM to inline it into the generated code and
/// compile it for the module's target. With `inlineOnly`, only the runtime
/// functions the module calls come in, as available_externally: optimizing
/// and generating the whole runtime again for every .proto file of an
/// archive took most of a small file's compile time.
Error CodeGen::linkRuntime(Module &module, bool inlineOnly) {
  auto runtime = loadRuntime(module, context);
  if (!runtime)
    return runtime.takeError();
  retargetRuntime(**runtime);
  shareRuntimeHelpers(**runtime);
  StringSet<> runtimeFunctions = runtimeEntryPoints(**runtime);
  // What the object may not inline it only declares (setLinkage): their
  // bodies (the table codec's and the JSON printer's and parser's entries,
  // which every compact message calls) are dropped before the linker would
  // parse and copy them, and all they call. The linker then keeps the
  // lowering's declarations, which get the runtime's type check and
  // attributes (the argument extensions) here.
  SmallVector<std::tuple<std::string, FunctionType *, AttributeList>> bodiless;
  if (inlineOnly)
    for (Function &f : **runtime)
      if (!f.isDeclaration() && !f.hasLocalLinkage() &&
          f.hasFnAttribute(Attribute::NoInline)) {
        bodiless.emplace_back(f.getName().str(), f.getFunctionType(),
                              f.getAttributes());
        f.deleteBody();
      }
  // The JIT's code only needs what it calls: the program it runs in
  // reaches the rest of the runtime in its own copy.
  if (Error e = linkRuntimeModule(module, std::move(*runtime),
                                  inlineOnly || options.jit))
    return e;
  for (auto &[name, type, attributes] : bodiless) {
    Function *f = module.getFunction(name);
    if (!f)
      continue;
    if (f->getFunctionType() != type)
      return makeError("internal error: " + name + " is declared as '" +
                       toString(f->getFunctionType()) +
                       "', but the runtime defines it as '" + toString(type) +
                       "'");
    f->setAttributes(attributes);
  }
  setLinkage(module, runtimeFunctions, inlineOnly);
  foldTargetHasAVX2(module, *machine->getMCSubtargetInfo());
  if (Error e = checkCallTypes(module))
    return e;
  applyCallingConvention(module, Triple(module.getTargetTriple()));
  return Error::success();
}

/// Loops of pbc's code, whose headers come before their bodies: blocks
/// that a later block branches back to.
static unsigned countLoops(Function &f) {
  DenseMap<const BasicBlock *, unsigned> position;
  for (BasicBlock &block : f)
    position[&block] = position.size();
  SmallPtrSet<const BasicBlock *, 16> headers;
  for (BasicBlock &block : f)
    for (const BasicBlock *next : successors(&block))
      if (position.lookup(next) <= position.lookup(&block))
        headers.insert(next);
  return headers.size();
}

/// LLVM's loop passes redo whole-function work per loop, so optimizing a
/// function costs about its size times its loop count: a message with
/// 2,000 fields (thousands of loops over repeated fields in one function)
/// took seven minutes at -O2. Functions past this bound are compiled as at
/// -O0, with the runtime still inlined. Conformance's TestAllTypesProto2
/// decoder, the largest in the tests, scores about a million; a message
/// with 200 fields of every kind, four million; with 500, 26 million.
static constexpr uint64_t kMaxOptimizedSizeTimesLoops = 5'000'000;

static void leaveHugeFunctionsUnoptimized(Module &module, bool verbose) {
  for (Function &f : module) {
    if (f.isDeclaration())
      continue;
    uint64_t size = f.getInstructionCount(), loops = countLoops(f);
    if (size * (1 + loops) <= kMaxOptimizedSizeTimesLoops)
      continue;
    f.addFnAttr(Attribute::OptimizeNone);
    f.addFnAttr(Attribute::NoInline);
    if (verbose)
      errs() << "pbc: note: " << f.getName() << " (" << size
             << " instructions, " << loops
             << " loops) is too large to optimize; compiled as at -O0\n";
  }
}

/// The role of a generated codec (its abi::kRoleAttr attribute), if it is
/// one whose small instances are inlined into their callers of the same
/// role: a decoder, an encoder or a size function.
static std::optional<abi::Role> inlinedRole(const Function &f) {
  Attribute attr = f.getFnAttribute(abi::kRoleAttr);
  if (!attr.isStringAttribute())
    return std::nullopt;
  std::optional<abi::Role> role = abi::roleNamed(attr.getValueAsString());
  if (role == abi::Role::Decoder || role == abi::Role::Encoder ||
      role == abi::Role::EncodedSize)
    return role;
  return std::nullopt;
}

/// Codec functions up to this size are inlined where another of their role
/// calls them.
static constexpr unsigned kInlinedCodecInstructions = 3000;

/// A sub-message's decoder, encoder and size function run once per
/// occurrence, and each call (spills around it, its prologue and epilogue)
/// cost google_message2's parse a sixth of its instructions: LLVM's inliner
/// leaves such callees alone, as too big for its threshold. Small ones that
/// call no other function of their role (so that inlining stays linear in
/// the schema) are inlined into the functions of their role that call them;
/// the entry points keep calling the top one.
static void inlineLeafCodecs(Module &module) {
  auto callsItsRole = [](Function &f, abi::Role role) {
    for (BasicBlock &block : f)
      for (Instruction &inst : block)
        if (auto *call = dyn_cast<CallBase>(&inst))
          if (Function *callee = call->getCalledFunction();
              callee && inlinedRole(*callee) == role)
            return true;
    return false;
  };
  SmallPtrSet<Function *, 32> leaves;
  for (Function &f : module) {
    std::optional<abi::Role> role = inlinedRole(f);
    if (role && !f.isDeclaration() && !f.hasOptNone() &&
        f.getInstructionCount() <= kInlinedCodecInstructions &&
        !callsItsRole(f, *role))
      leaves.insert(&f);
  }
  for (Function &f : module) {
    std::optional<abi::Role> role = inlinedRole(f);
    if (!role || f.isDeclaration() || f.hasOptNone())
      continue;
    for (BasicBlock &block : f)
      for (Instruction &inst : block)
        if (auto *call = dyn_cast<CallBase>(&inst))
          if (Function *callee = call->getCalledFunction();
              callee && callee != &f && leaves.contains(callee) &&
              inlinedRole(*callee) == role)
            call->addFnAttr(Attribute::AlwaysInline);
  }
}

/// Runtime functions the generated code calls but never inlines: each
/// inlined copy would cost more code than the call costs time. The readers
/// of the rare forms of tags and varints (near the end of the input, and
/// below it three bytes and more for singular values, bools, enums and
/// lengths: pbc_rt_varint_long, the word-wide read without bounds checks):
/// the word-wide varint read at every field was a third of the decoders'
/// code, for what a call costs once in a message's last 16 bytes or once a
/// value; near the end, lengths of two bytes and more with their checks
/// (pbc_rt_length). The count of a packed run's varints, a loop over the
/// run (about 300 bytes inlined, where a call is one more step of a walk
/// over every element). The writer's forward writes (a varint, bytes),
/// which split what they write over chunks: a writer takes that path only
/// for a message that does not fit in the current chunk (it encodes the
/// others backwards into a reservation), and inlined, the copy of bytes
/// alone was over half of a small message's writer. T_merge_decode's
/// bookkeeping (about 140 bytes a message inlined, for a few instructions
/// of a merge that walks the message's description anyway). The runtime's
/// own callers may inline them.
static constexpr StringLiteral kOutOfLine[] = {
    "pbc_rt_varint",           "pbc_rt_varint_long", "pbc_rt_length",
    "pbc_rt_tag",              "pbc_writer_write",   "pbc_writer_write_varint",
    "pbc_rt_merge_decode",     "pbc_rt_count_varints"};

/// Keeps the generated codecs' calls of kOutOfLine calls.
static void keepOutOfLine(Module &module) {
  SmallPtrSet<Function *, 4> outOfLine;
  for (StringRef name : kOutOfLine)
    if (Function *f = module.getFunction(name))
      outOfLine.insert(f);
  for (Function &f : module) {
    if (!f.hasFnAttribute(abi::kRoleAttr))
      continue;
    for (BasicBlock &block : f)
      for (Instruction &inst : block)
        if (auto *call = dyn_cast<CallBase>(&inst))
          if (outOfLine.contains(call->getCalledFunction()))
            call->addFnAttr(Attribute::NoInline);
  }
}

/// The descriptions' link arrays (`pbc__T_links`, Description.cpp), with
/// their initializers set aside. Each description links to its
/// sub-messages' descriptions, so the descriptions of a schema are one
/// connected graph of constants, and a compact message's functions refer to
/// their description: LLVM's call graph walks every constant reachable from
/// each function for the functions it refers to (LazyCallGraph's
/// visitReferences), again after each change, which made a 5,000-message
/// file take minutes. Without their initializers the link arrays are
/// declarations, where the walk stops; they hold no functions, and no code
/// reads them (the table codec is in its own object), so the optimizer
/// loses nothing. Each initializer waits in an external global that nothing
/// refers to (which keeps the declarations of other files' descriptions it
/// points to alive) until restoreLinks puts it back. DetachedLinks pairs
/// each link array with that holder.
using DetachedLinks =
    SmallVector<std::pair<GlobalVariable *, GlobalVariable *>>;

static bool isLinkArray(const GlobalVariable &g) {
  auto *array = dyn_cast<ArrayType>(g.getValueType());
  return g.hasInitializer() && g.hasLocalLinkage() && array &&
         array->getElementType()->isPointerTy() &&
         pbc::proto::mayBeInternalLinks(g.getName());
}

static DetachedLinks detachLinks(Module &module) {
  DetachedLinks detached;
  for (GlobalVariable &g : module.globals())
    if (isLinkArray(g))
      detached.push_back({&g, nullptr});
  for (auto &[g, held] : detached) {
    held = new GlobalVariable(module, g->getValueType(), /*isConstant=*/true,
                              GlobalValue::ExternalLinkage, g->getInitializer(),
                              "pbc.detached." + g->getName());
    g->setInitializer(nullptr);
    g->setLinkage(GlobalValue::ExternalLinkage);
  }
  return detached;
}

static void restoreLinks(const DetachedLinks &detached) {
  for (auto [g, held] : detached) {
    g->setInitializer(held->getInitializer());
    g->setLinkage(GlobalValue::InternalLinkage);
    held->eraseFromParent();
  }
}

/// A module whose every function is optnone (one of compact messages only:
/// each function one call into the table codec, TableCodecs.cpp) is
/// optimized and generated as at -O0. The -O2 pipelines skip an optnone
/// function in each of their passes, but still pay each pass's setup per
/// function, about a third of a millisecond, and each of google_message3's
/// 318 messages has 13 such functions. At -O0 the code is the same: the
/// arguments moved up a register, the description's address and a tail
/// call. Functions the object does not emit (the runtime's
/// available_externally bodies, linked in for inlining) do not count.
unsigned CodeGen::optLevelFor(const Module &module) const {
  for (const Function &f : module)
    if (!f.isDeclaration() && !f.hasAvailableExternallyLinkage() &&
        !f.hasOptNone())
      return options.optLevel;
  return 0;
}

void CodeGen::optimize(Module &module, unsigned optLevel) {
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  // -v (llvm::TimePassesIsEnabled): LLVM's own per-pass timers, reported
  // by the driver at the end; --time-trace: each pass on each function in
  // the trace.
  PassInstrumentationCallbacks callbacks;
  StandardInstrumentations instrumentations(context, /*DebugLogging=*/false);
  bool instrumented = TimePassesIsEnabled || timeTraceProfilerEnabled();
  if (instrumented)
    instrumentations.registerCallbacks(callbacks, &mam);
  // Messages of the same shape (the empty ones, a schema's many
  // two-string records) get the same code: one copy of each function, the
  // others calls of it, as clang's -fmerge-functions does.
  PipelineTuningOptions tuning;
  tuning.MergeFunctions = true;
  PassBuilder builder(machine.get(), tuning, std::nullopt,
                      instrumented ? &callbacks : nullptr);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  OptimizationLevel level = optLevel == 0   ? OptimizationLevel::O0
                            : optLevel == 1 ? OptimizationLevel::O1
                            : optLevel == 2 ? OptimizationLevel::O2
                                            : OptimizationLevel::O3;
  // ASan only instruments functions that ask for it, and the inliner keeps
  // apart functions that differ in it: mark all of them before optimizing.
  if (options.sanitizeAddress)
    for (Function &f : module)
      if (!f.isDeclaration())
        f.addFnAttr(Attribute::SanitizeAddress);
  if (level != OptimizationLevel::O0) {
    leaveHugeFunctionsUnoptimized(module, options.timing != nullptr);
    keepOutOfLine(module);
    inlineLeafCodecs(module);
  }
  ModulePassManager pm;
  pm.addPass(GlobalDCEPass());
  pm.addPass(level == OptimizationLevel::O0
                 ? builder.buildO0DefaultPipeline(level)
                 : builder.buildPerModuleDefaultPipeline(level));
  // At -O0 nothing inlines the runtime's available_externally bodies
  // (-O2 drops them itself); what only they call would be emitted, dead.
  if (level == OptimizationLevel::O0) {
    pm.addPass(EliminateAvailableExternallyPass());
    pm.addPass(GlobalDCEPass());
  }
  DetachedLinks links = detachLinks(module);
  pm.run(module, mam);
  restoreLinks(links);

  // After optimization, in clang's order (coverage, then ASan), so the
  // instrumented code is the code that ships without it; with the link
  // arrays back, since ASan replaces the globals it pads.
  mam.clear();
  ModulePassManager instrument;
  if (options.sanitizeCoverage) {
    // What clang's -fsanitize=fuzzer turns on.
    SanitizerCoverageOptions cov;
    cov.CoverageType = SanitizerCoverageOptions::SCK_Edge;
    cov.IndirectCalls = true;
    cov.TraceCmp = true;
    cov.Inline8bitCounters = true;
    cov.PCTable = true;
    instrument.addPass(SanitizerCoveragePass(cov));
  }
  if (options.sanitizeAddress)
    instrument.addPass(AddressSanitizerPass(AddressSanitizerOptions()));
  instrument.run(module, mam);
}

Expected<std::unique_ptr<Module>> CodeGen::buildRuntimeModule() {
  auto module = std::make_unique<Module>("pbc_runtime", context);
  module->setTargetTriple(options.triple);
  module->setDataLayout(machine->createDataLayout());
  module->setSourceFileName("pbc_runtime");
  mlir::TimingScope linking = stage("link the runtime bitcode");
  if (Error e = linkRuntime(*module, /*inlineOnly=*/false))
    return std::move(e);
  linking.stop();
  mlir::TimingScope optimizing = stage("LLVM optimization");
  optimize(*module, options.optLevel);
  return module;
}

Expected<std::string> CodeGen::emitRuntimeObject() {
  if (options.prebuiltRuntime)
    if (std::optional<StringRef> object = prebuiltRuntimeObject(options)) {
      // Nothing to time but the copy; -v still lists the stage.
      mlir::TimingScope copying = stage("runtime object (prebuilt)");
      return object->str();
    }
  auto runtime = buildRuntimeModule();
  if (!runtime)
    return runtime.takeError();
  return emit(**runtime, OutputKind::Object);
}

Expected<std::unique_ptr<Module>>
CodeGen::buildModule(mlir::OwningOpRef<mlir::ModuleOp> module, StringRef name,
                     bool runtimeInOwnObject) {
  mlir::TimingScope translating = stage("translate to LLVM IR");
  std::unique_ptr<Module> llvmModule =
      mlir::translateModuleToLLVMIR(*module, context, name);
  module = nullptr;
  if (!llvmModule)
    return makeError("cannot translate the module to LLVM IR");
  llvmModule->setTargetTriple(options.triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  // The module identifier and source name end up in the object file; keep
  // them independent of the build directory.
  llvmModule->setSourceFileName(name);
  // Decided before the runtime comes in: an object that has the runtime in
  // it (the JIT's, a lone object) optimizes it.
  unsigned optLevel =
      runtimeInOwnObject ? optLevelFor(*llvmModule) : options.optLevel;
  if (optLevel != options.optLevel && options.timing)
    errs() << "pbc: note: " << name
           << ": compact messages only (each function one call); optimized "
              "and generated at -O0\n";
  translating.stop();
  mlir::TimingScope linking = stage("link the runtime bitcode");
  if (Error e = linkRuntime(*llvmModule, runtimeInOwnObject))
    return std::move(e);
  // Linked into a running process, the code lands wherever the JIT maps
  // it, gigabytes from the program's own data (libgcc's CPU model, which
  // clang declares dso_local), so what it does not define is reached
  // through the GOT.
  if (options.jit)
    for (GlobalValue &value : llvmModule->global_values())
      if (value.isDeclaration())
        value.setDSOLocal(false);
  linking.stop();
  mlir::TimingScope optimizing = stage("LLVM optimization");
  optimize(*llvmModule, optLevel);
  return llvmModule;
}

Expected<std::string> CodeGen::emit(Module &module, OutputKind kind) {
  std::string out;
  raw_string_ostream os(out);
  switch (kind) {
  case OutputKind::LLVMIR:
    module.print(os, nullptr);
    return out;
  case OutputKind::Bitcode:
    WriteBitcodeToFile(module, os);
    return out;
  case OutputKind::Assembly:
  case OutputKind::Object: {
    mlir::TimingScope generating = stage("LLVM code generation");
    SmallString<0> buffer;
    raw_svector_ostream stream(buffer);
    legacy::PassManager pm;
    CodeGenFileType type = kind == OutputKind::Object
                               ? CodeGenFileType::ObjectFile
                               : CodeGenFileType::AssemblyFile;
    // A target machine per object: LLVM's ELF object-file lowering keeps
    // per-module state it never clears (the globals of a module's llvm.used,
    // in a set: a later module's global allocated where an earlier module's
    // used one was freed got SHF_GNU_RETAIN, now and then, when the
    // registry entries were llvm.used).
    std::unique_ptr<TargetMachine> emitter = createMachine(optLevelFor(module));
    if (emitter->addPassesToEmitFile(pm, stream, nullptr, type))
      return makeError("the target cannot emit this file type");
    pm.run(module);
    return std::string(buffer.str());
  }
  }
  llvm_unreachable("unknown output kind");
}

Expected<std::string> writeArchive(const std::vector<ArchiveMember> &members) {
  std::vector<NewArchiveMember> newMembers;
  for (const ArchiveMember &m : members) {
    NewArchiveMember member(MemoryBufferRef(m.data, m.name));
    member.MemberName = m.name;
    newMembers.push_back(std::move(member));
  }
  auto buffer = writeArchiveToBuffer(newMembers, SymtabWritingMode::NormalSymtab,
                                     object::Archive::K_GNU,
                                     /*Deterministic=*/true, /*Thin=*/false);
  if (!buffer)
    return buffer.takeError();
  return std::string((*buffer)->getBuffer());
}

} // namespace pbc
