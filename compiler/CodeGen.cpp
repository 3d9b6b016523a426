//===- CodeGen.cpp - LLVM IR to machine code ------------------------------===//
#include "CodeGen.h"

#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace {
// The runtime (runtime/*.c), compiled to bitcode when pbc was built.
const unsigned char kRuntimeBitcode[] = {
#include "RuntimeBitcode.inc"
};

Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// A portable CPU for the target unless the user picked one: code pbc writes
/// must run on any machine of the target architecture.
std::string baselineCpu(const Triple &triple) {
  if (triple.getArch() == Triple::x86_64)
    return "x86-64";
  return "generic";
}
} // namespace

namespace pbc {

CodeGen::CodeGen(const CodeGenOptions &options, TargetMachine *machine)
    : options(options), machine(machine) {}

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
  if (!triple.isArch64Bit() || !triple.isLittleEndian())
    return makeError("target '" + resolved.triple +
                     "' is not supported: pbc generates code for 64-bit "
                     "little-endian targets");

  std::string error;
  const Target *target = TargetRegistry::lookupTarget(resolved.triple, error);
  if (!target)
    return makeError("unknown target '" + resolved.triple + "': " + error);
  CodeGenOptLevel level = resolved.optLevel == 0   ? CodeGenOptLevel::None
                          : resolved.optLevel == 1 ? CodeGenOptLevel::Less
                          : resolved.optLevel == 2 ? CodeGenOptLevel::Default
                                                   : CodeGenOptLevel::Aggressive;
  TargetMachine *machine = target->createTargetMachine(
      resolved.triple, resolved.cpu, /*Features=*/"", TargetOptions(),
      Reloc::PIC_, std::nullopt, level);
  if (!machine)
    return makeError("cannot create a target machine for '" +
                     resolved.triple + "' (cpu '" + resolved.cpu + "')");
  return std::unique_ptr<CodeGen>(new CodeGen(resolved, machine));
}

/// Links the runtime in. Its functions become weak_odr (as do the generated
/// ones) so two pbc libraries, or two objects sharing an import, never clash
/// at link time, while LLVM may still inline them.
Error CodeGen::linkRuntime(Module &module) {
  StringRef bytes(reinterpret_cast<const char *>(kRuntimeBitcode),
                  sizeof(kRuntimeBitcode));
  auto runtime =
      parseBitcodeFile(MemoryBufferRef(bytes, "pbc_runtime.bc"), context);
  if (!runtime)
    return runtime.takeError();
  Module &rt = **runtime;
  rt.setTargetTriple(module.getTargetTriple());
  rt.setDataLayout(module.getDataLayout());
  // The bitcode was compiled for a generic x86-64; the module's target
  // decides the instruction set.
  for (Function &f : rt) {
    f.removeFnAttr("target-cpu");
    f.removeFnAttr("target-features");
    f.removeFnAttr("tune-cpu");
  }
  if (Linker::linkModules(module, std::move(*runtime)))
    return makeError("cannot link the pbc runtime into the module");
  for (Function &f : module)
    if (!f.isDeclaration() && !f.hasLocalLinkage())
      f.setLinkage(GlobalValue::WeakODRLinkage);
  return Error::success();
}

void CodeGen::optimize(Module &module) {
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PassBuilder builder(machine.get());
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  OptimizationLevel level = options.optLevel == 0   ? OptimizationLevel::O0
                            : options.optLevel == 1 ? OptimizationLevel::O1
                            : options.optLevel == 2 ? OptimizationLevel::O2
                                                    : OptimizationLevel::O3;
  ModulePassManager pm = level == OptimizationLevel::O0
                             ? builder.buildO0DefaultPipeline(level)
                             : builder.buildPerModuleDefaultPipeline(level);
  pm.run(module, mam);
}

Expected<std::unique_ptr<Module>> CodeGen::buildModule(mlir::ModuleOp module,
                                                       StringRef name) {
  std::unique_ptr<Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, context, name);
  if (!llvmModule)
    return makeError("cannot translate the module to LLVM IR");
  llvmModule->setTargetTriple(options.triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  // The module identifier and source name end up in the object file; keep
  // them independent of the build directory.
  llvmModule->setSourceFileName(name);
  if (Error e = linkRuntime(*llvmModule))
    return std::move(e);
  optimize(*llvmModule);
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
    SmallString<0> buffer;
    raw_svector_ostream stream(buffer);
    legacy::PassManager pm;
    CodeGenFileType type = kind == OutputKind::Object
                               ? CodeGenFileType::ObjectFile
                               : CodeGenFileType::AssemblyFile;
    if (machine->addPassesToEmitFile(pm, stream, nullptr, type))
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
