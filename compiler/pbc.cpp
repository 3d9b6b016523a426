//===- pbc.cpp - the pbc compiler driver ----------------------------------===//
//
//   pbc compile [-I DIR]... FILE.proto... -o OUT [--emit=KIND] [-O0..3]
//
// front end (libprotobuf) -> proto dialect -> proto-layout -> header
//                                          -> proto-to-wire -> wire-to-llvm
//                                          -> LLVM IR + runtime -> -O2
//                                          -> object / archive
//
// Every output is produced in memory first and written only when the whole
// compilation succeeded, so a failed run leaves nothing behind.
//
//===----------------------------------------------------------------------===//
#include "CodeGen.h"
#include "Frontend.h"
#include "HeaderGen.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "pbc/Conversion/Passes.h"
#include "pbc/Dialect/Proto/ProtoOps.h"

#include "google/protobuf/stubs/common.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace llvm;

namespace {

cl::SubCommand compileCmd("compile",
                          "Compile .proto files to a library, object or IR");
cl::OptionCategory compileCat("pbc compile options");

cl::list<std::string> inputs(cl::Positional, cl::OneOrMore,
                             cl::desc("<file.proto>..."), cl::sub(compileCmd),
                             cl::cat(compileCat));
cl::list<std::string> includeDirs(
    "I", cl::Prefix, cl::desc("Directory to search for imports (like protoc)"),
    cl::value_desc("dir"), cl::sub(compileCmd), cl::cat(compileCat));
cl::list<std::string> protoPaths("proto_path",
                                 cl::desc("Same as -I"), cl::value_desc("dir"),
                                 cl::sub(compileCmd), cl::cat(compileCat));
cl::opt<std::string> output("o", cl::Required, cl::desc("Output file"),
                            cl::value_desc("out"), cl::sub(compileCmd),
                            cl::cat(compileCat));
cl::opt<std::string> headerDir(
    "header-dir",
    cl::desc("Where to write STEM.pbc.h (default: the output's folder)"),
    cl::value_desc("dir"), cl::sub(compileCmd), cl::cat(compileCat));

enum class Emit { Lib, Obj, Asm, LLVM, Bc, Mlir, Wire, Header };
cl::opt<Emit> emit(
    "emit", cl::desc("What to write to OUT (default: from its extension)"),
    cl::values(clEnumValN(Emit::Lib, "lib", "static archive"),
               clEnumValN(Emit::Obj, "obj", "one object file"),
               clEnumValN(Emit::Asm, "asm", "assembly"),
               clEnumValN(Emit::LLVM, "llvm", "optimized LLVM IR"),
               clEnumValN(Emit::Bc, "bc", "optimized LLVM bitcode"),
               clEnumValN(Emit::Mlir, "mlir", "the proto dialect as imported"),
               clEnumValN(Emit::Wire, "wire",
                          "the codec functions in the wire dialect"),
               clEnumValN(Emit::Header, "header", "the C header")),
    cl::sub(compileCmd), cl::cat(compileCat));
cl::opt<std::string> targetTriple("target",
                                  cl::desc("Target triple (default: host)"),
                                  cl::value_desc("triple"), cl::sub(compileCmd),
                                  cl::cat(compileCat));
cl::opt<std::string> targetCpu(
    "mcpu", cl::desc("Target CPU (default: a portable baseline)"),
    cl::value_desc("cpu"), cl::sub(compileCmd), cl::cat(compileCat));
cl::opt<unsigned> optLevel("O", cl::Prefix, cl::init(2),
                           cl::desc("Optimization level 0-3 (default 2)"),
                           cl::sub(compileCmd), cl::cat(compileCat));

// The runtime headers generated headers include, written next to them.
const char kRuntimeHeader[] = {
#include "RuntimeHeader.inc"
    0};
const char kRuntimeWriterHeader[] = {
#include "RuntimeWriterHeader.inc"
    0};

int fail(const Twine &message) {
  errs() << "pbc: error: " << message << "\n";
  return 1;
}

Emit emitFromExtension(StringRef path) {
  if (path.ends_with(".a"))
    return Emit::Lib;
  if (path.ends_with(".o"))
    return Emit::Obj;
  if (path.ends_with(".s"))
    return Emit::Asm;
  if (path.ends_with(".ll"))
    return Emit::LLVM;
  if (path.ends_with(".bc"))
    return Emit::Bc;
  if (path.ends_with(".mlir"))
    return Emit::Mlir;
  if (path.ends_with(".h"))
    return Emit::Header;
  return Emit::Lib;
}

std::string printOp(mlir::Operation *op) {
  std::string text;
  raw_string_ostream os(text);
  op->print(os);
  os << "\n";
  return text;
}

/// `dir/addressbook.proto` -> `addressbook`.
std::string stemOf(StringRef protoFile) {
  StringRef name = sys::path::filename(protoFile);
  name.consume_back(".proto");
  return name.str();
}

/// `google/protobuf/timestamp.proto` -> `google_protobuf_timestamp.pbc.o`.
std::string memberNameOf(StringRef protoFile) {
  std::string name = protoFile.str();
  if (StringRef(name).ends_with(".proto"))
    name.resize(name.size() - strlen(".proto"));
  for (char &c : name)
    if (c == '/' || c == '\\')
      c = '_';
  return name + ".pbc.o";
}

class Compilation {
public:
  explicit Compilation(mlir::MLIRContext &context) : context(context) {}

  /// Files to write, by path; written together at the end.
  std::map<std::string, std::string> outputs;

  int run() {
    pbc::FrontendOptions feOptions;
    feOptions.inputs.assign(inputs.begin(), inputs.end());
    feOptions.includeDirs.assign(includeDirs.begin(), includeDirs.end());
    feOptions.includeDirs.insert(feOptions.includeDirs.end(),
                                 protoPaths.begin(), protoPaths.end());
    pbc::ImportResult imported = pbc::importProtos(context, feOptions, errs());
    if (!imported.module)
      return 1;
    mlir::ModuleOp module = *imported.module;
    Emit kind = emit.getNumOccurrences() ? emit.getValue()
                                         : emitFromExtension(output);

    if (kind == Emit::Mlir) {
      outputs[output] = printOp(module);
      return 0;
    }

    mlir::PassManager layout(&context);
    layout.addPass(pbc::createProtoLayout());
    if (failed(layout.run(module)))
      return 1;
    if (int rc = emitHeaders(module, imported.inputFiles, kind))
      return rc;
    if (kind == Emit::Header)
      return 0;
    if (kind == Emit::Wire) {
      mlir::PassManager pm(&context);
      pm.addPass(pbc::createProtoToWire());
      pm.addPass(mlir::createCanonicalizerPass());
      if (failed(pm.run(module)))
        return 1;
      outputs[output] = printOp(module);
      return 0;
    }

    pbc::CodeGenOptions cgOptions{targetTriple, targetCpu, optLevel};
    auto codegen = pbc::CodeGen::create(cgOptions);
    if (!codegen)
      return fail(toString(codegen.takeError()));

    if (kind != Emit::Lib) {
      auto text = compile(**codegen, module, {}, kind, output);
      if (!text)
        return fail(toString(text.takeError()));
      outputs[output] = std::move(*text);
      return 0;
    }

    // One object per .proto file: two libraries that share an import then
    // share its object's symbols instead of clashing.
    std::vector<pbc::ArchiveMember> members;
    for (auto file : module.getOps<pbc::proto::FileOp>()) {
      std::string name = file.getName().str();
      auto object = compile(**codegen, module, {name}, Emit::Obj, name);
      if (!object)
        return fail(toString(object.takeError()));
      members.push_back({memberNameOf(name), std::move(*object)});
    }
    auto archive = pbc::writeArchive(members);
    if (!archive)
      return fail(toString(archive.takeError()));
    outputs[output] = std::move(*archive);
    return 0;
  }

private:
  mlir::MLIRContext &context;

  int emitHeaders(mlir::ModuleOp module, ArrayRef<std::string> files,
                  Emit kind) {
    if (kind == Emit::Header) {
      if (files.size() != 1)
        return fail("--emit=header takes exactly one input file");
      std::string text;
      raw_string_ostream os(text);
      if (failed(pbc::emitHeader(module, files[0], os)))
        return 1;
      outputs[output] = std::move(text);
      return 0;
    }
    SmallString<256> dir(headerDir);
    if (dir.empty()) {
      dir = sys::path::parent_path(output);
      if (dir.empty())
        dir = ".";
    }
    for (const std::string &file : files) {
      std::string text;
      raw_string_ostream os(text);
      if (failed(pbc::emitHeader(module, file, os)))
        return 1;
      SmallString<256> path(dir);
      sys::path::append(path, stemOf(file) + ".pbc.h");
      outputs[std::string(path)] = std::move(text);
    }
    SmallString<256> runtimeHeader(dir);
    sys::path::append(runtimeHeader, "pbc", "pbc.h");
    outputs[std::string(runtimeHeader)] = kRuntimeHeader;
    SmallString<256> writerHeader(dir);
    sys::path::append(writerHeader, "pbc", "writer.h");
    outputs[std::string(writerHeader)] = kRuntimeWriterHeader;
    return 0;
  }

  /// Lowers a copy of the laid-out module (code for `files`, all when
  /// empty) and returns it in the form `kind` asks for.
  Expected<std::string> compile(pbc::CodeGen &codegen, mlir::ModuleOp module,
                                ArrayRef<std::string> files, Emit kind,
                                StringRef name) {
    mlir::OwningOpRef<mlir::ModuleOp> copy(module.clone());
    mlir::PassManager pm(&context);
    pbc::buildLowerToLLVMPipeline(pm, files);
    if (failed(pm.run(*copy)))
      return createStringError(inconvertibleErrorCode(),
                               "lowering to LLVM failed");
    auto llvmModule = codegen.buildModule(*copy, name);
    if (!llvmModule)
      return llvmModule.takeError();
    pbc::OutputKind out = kind == Emit::LLVM  ? pbc::OutputKind::LLVMIR
                          : kind == Emit::Bc  ? pbc::OutputKind::Bitcode
                          : kind == Emit::Asm ? pbc::OutputKind::Assembly
                                              : pbc::OutputKind::Object;
    return codegen.emit(**llvmModule, out);
  }
};

/// Writes each output through a temporary file renamed into place, so a
/// reader never sees a half-written file.
int writeOutputs(const std::map<std::string, std::string> &outputs) {
  for (const auto &[path, data] : outputs) {
    StringRef dir = sys::path::parent_path(path);
    if (!dir.empty())
      if (std::error_code ec = sys::fs::create_directories(dir))
        return fail("cannot create directory '" + dir + "': " + ec.message());
    auto temp = sys::fs::TempFile::create(path + ".tmp%%%%%%");
    if (!temp)
      return fail("cannot write '" + path +
                  "': " + toString(temp.takeError()));
    {
      raw_fd_ostream os(temp->FD, /*shouldClose=*/false);
      os << data;
      os.flush();
      if (os.has_error()) {
        consumeError(temp->discard());
        return fail("cannot write '" + path + "': " + os.error().message());
      }
    }
    if (Error e = temp->keep(path))
      return fail("cannot write '" + path + "': " + toString(std::move(e)));
  }
  return 0;
}

void printVersion(raw_ostream &os) {
  os << "pbc " PBC_VERSION "\n"
     << "  LLVM/MLIR " LLVM_VERSION_STRING "\n"
     << "  libprotobuf "
     << google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION)
     << "\n";
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::SetVersionPrinter(printVersion);
  cl::HideUnrelatedOptions(compileCat);
  cl::HideUnrelatedOptions(compileCat, compileCmd);
  cl::ParseCommandLineOptions(
      argc, argv,
      "pbc: an ahead-of-time protobuf compiler\n\n"
      "  pbc compile [options] FILE.proto... -o OUT\n");
  if (!compileCmd) {
    cl::PrintHelpMessage();
    return 1;
  }
  if (optLevel > 3)
    return fail("-O" + Twine(optLevel) + " is not an optimization level (0-3)");

  mlir::DialectRegistry registry;
  pbc::registerDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics from the verifiers and passes name the schema entity they
  // concern; print them and fail instead of aborting.
  context.printOpOnDiagnostic(false);

  Compilation compilation(context);
  if (int rc = compilation.run())
    return rc;
  return writeOutputs(compilation.outputs);
}
