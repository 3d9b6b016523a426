//===- Driver.cpp - one compilation, from descriptors to outputs ---------===//
//
// front end (libprotobuf) -> proto dialect -> proto-layout -> header
//                                          -> proto-to-wire -> wire-to-llvm
//                                          -> LLVM IR + runtime -> -O2
//                                          -> object / archive
//
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "CppHeaderGen.h"
#include "HeaderGen.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "pbc/Conversion/Passes.h"
#include "pbc/Dialect/Proto/Naming.h"
#include "pbc/Dialect/Proto/ProtoOps.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cstring>
#include <thread>

using namespace llvm;
using namespace pbc;

namespace {

// The runtime headers generated headers include (pbc/pbc.h and every header
// it includes), written next to them: one entry per header of
// PBC_RUNTIME_HEADERS (CMakeLists.txt).
struct RuntimeHeader {
  const char *path; // relative to the header folder, '/'-separated
  const char *text;
};
const RuntimeHeader kRuntimeHeaders[] = {
#include "RuntimeHeaders.inc"
};

std::string printOp(mlir::Operation *op) {
  std::string text;
  raw_string_ostream os(text);
  op->print(os);
  os << "\n";
  return text;
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
  Compilation(mlir::MLIRContext &context, const DriverOptions &options,
              OutputMap &outputs)
      : context(context), options(options), output(options.output),
        outputs(outputs) {}

  int run(ImportResult &imported) {
    mlir::ModuleOp module = *imported.module;
    Emit kind = options.emit ? *options.emit : emitFromExtension(output);

    if (kind == Emit::Mlir) {
      outputs[output] = printOp(module);
      return 0;
    }

    mlir::TimingScope layoutTime = stage("MLIR: struct layout");
    if (failed(lower(module, LoweringStage::Layout, LoweringStage::Layout, {},
                     layoutTime)))
      return 1;
    layoutTime.stop();
    mlir::TimingScope headerTime = stage("headers");
    if (options.headers || kind == Emit::Header)
      if (int rc = emitHeaders(module, imported.inputFiles, kind))
        return rc;
    headerTime.stop();
    if (kind == Emit::Header)
      return 0;
    if (kind == Emit::Wire) {
      mlir::TimingScope wireTime = stage("MLIR: lower to the wire dialect");
      if (failed(lower(module, LoweringStage::Wire, LoweringStage::Wire, {},
                       wireTime)))
        return 1;
      outputs[output] = printOp(module);
      return 0;
    }

    pbc::CodeGenOptions cgOptions = options.codegen;
    cgOptions.timing = options.timing;
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
    // share its object's symbols instead of clashing. The runtime is an
    // object of its own (weak symbols, like the rest), which the others
    // inline from but do not repeat. The objects are independent, so they
    // are compiled on up to `jobs` threads, each with a code generator
    // (an LLVMContext) of its own; the archive lists them in input order,
    // the same bytes whatever the number of threads.
    std::vector<std::string> files;
    for (auto file : module.getOps<pbc::proto::FileOp>())
      files.push_back(file.getName().str());
    std::vector<pbc::ArchiveMember> members(files.size() + 1);
    for (size_t i = 0; i < files.size(); ++i)
      members[i].name = memberNameOf(files[i]);
    // Not a name memberNameOf gives a .proto file (those end in .pbc.o).
    members.back().name = "pbc_runtime.o";
    std::vector<std::string> errors(members.size());
    // Each worker takes the next object; this thread is one of them, with
    // the code generator it already has.
    std::atomic<size_t> next{0};
    auto worker = [&](pbc::CodeGen &cg) {
      for (size_t i; (i = next++) < members.size();) {
        Expected<std::string> object =
            i < files.size()
                ? compile(cg, module, {files[i]}, Emit::Obj, files[i])
                : cg.emitRuntimeObject();
        if (object)
          members[i].data = std::move(*object);
        else
          errors[i] = toString(object.takeError());
      }
    };
    unsigned jobs = std::min<size_t>(jobCount(), members.size());
    std::vector<std::unique_ptr<pbc::CodeGen>> more;
    for (unsigned j = 1; j < jobs; ++j) {
      auto cg = pbc::CodeGen::create(cgOptions);
      if (!cg)
        return fail(toString(cg.takeError()));
      more.push_back(std::move(*cg));
    }
    std::vector<std::thread> threads;
    for (auto &cg : more)
      threads.emplace_back(worker, std::ref(*cg));
    worker(**codegen);
    for (std::thread &t : threads)
      t.join();
    for (const std::string &error : errors)
      if (!error.empty())
        return fail(error);
    mlir::TimingScope archiveTime = stage("archive");
    auto archive = pbc::writeArchive(members);
    if (!archive)
      return fail(toString(archive.takeError()));
    outputs[output] = std::move(*archive);
    return 0;
  }

private:
  mlir::MLIRContext &context;
  const DriverOptions &options;
  const std::string &output;
  OutputMap &outputs;

  mlir::TimingScope stage(StringRef name) {
    return options.timing ? options.timing->nest(name) : mlir::TimingScope();
  }

  /// How many objects to compile at once: --jobs, else one per hardware
  /// thread. One with -v or --time-trace: MLIR's timing scopes and LLVM's
  /// pass timers are not thread-safe, the time-trace profiler records the
  /// thread that started it, and a serial profile is the one worth reading.
  unsigned jobCount() const {
    if (options.timing || timeTraceProfilerEnabled())
      return 1;
    if (options.jobs)
      return options.jobs;
    // The CPUs this process may run on (its affinity mask), not the
    // machine's: a build pinned to two CPUs gets two threads.
    return std::max(1u, llvm::hardware_concurrency().compute_thread_count());
  }

  /// Runs the lowering stages `first` to `last` on `module`, generating
  /// code for `files` (all when empty). With -v, MLIR's pass timers nest
  /// under `time`, the driver's stage.
  mlir::LogicalResult lower(mlir::ModuleOp module, LoweringStage first,
                            LoweringStage last, ArrayRef<std::string> files,
                            mlir::TimingScope &time) {
    mlir::PassManager pm(&context);
    pbc::buildLoweringPipeline(pm, first, last, files, options.tiers,
                               options.profile);
    if (time)
      pm.enableTiming(time);
    return pm.run(module);
  }

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
    SmallString<256> dir(options.headerDir);
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
      sys::path::append(path, proto::headerFileName(file));
      outputs[std::string(path)] = std::move(text);
      if (options.cppHeader) {
        std::string cpp;
        raw_string_ostream cppOs(cpp);
        if (failed(pbc::emitCppHeader(module, file, cppOs)))
          return 1;
        SmallString<256> cppPath(dir);
        sys::path::append(cppPath, proto::cppHeaderFileName(file));
        outputs[std::string(cppPath)] = std::move(cpp);
      }
    }
    for (const RuntimeHeader &header : kRuntimeHeaders) {
      SmallString<256> path(dir);
      sys::path::append(path, header.path);
      outputs[std::string(path)] = header.text;
    }
    return 0;
  }

  /// What lowering code for `files` needs of the laid-out module: their
  /// files, messages and enums, the enums their fields use, and the
  /// messages their fields use as declarations only (name, file and layout,
  /// no fields: their code is another file's). Copying the whole module
  /// for each file made an import chain quadratic.
  mlir::OwningOpRef<mlir::ModuleOp> copyFor(mlir::ModuleOp module,
                                            ArrayRef<std::string> files) {
    if (files.empty())
      return module.clone();
    StringSet<> mine(files);
    StringSet<> used;
    for (auto m : module.getOps<pbc::proto::MessageOp>())
      if (mine.contains(m.getFile()))
        for (pbc::proto::FieldOp field : m.getFields())
          if (auto type = field.getTypeNameAttr())
            used.insert(type.getValue());
    // An extension's record points to its extendee's description and to
    // its message's or enum's.
    for (auto ext : module.getOps<pbc::proto::ExtensionOp>())
      if (mine.contains(ext.getFile())) {
        used.insert(ext.getExtendee());
        if (auto type = ext.getField().getTypeNameAttr())
          used.insert(type.getValue());
      }
    auto copy = mlir::ModuleOp::create(module.getLoc());
    copy->setAttrs(module->getAttrs());
    mlir::OpBuilder builder = mlir::OpBuilder::atBlockEnd(copy.getBody());
    for (mlir::Operation &op : module.getOps()) {
      if (auto file = dyn_cast<pbc::proto::FileOp>(op)) {
        if (mine.contains(file.getName()))
          builder.clone(op);
      } else if (auto e = dyn_cast<pbc::proto::EnumOp>(op)) {
        if (mine.contains(e.getFile()) || used.contains(e.getSymName()))
          builder.clone(op);
      } else if (auto m = dyn_cast<pbc::proto::MessageOp>(op)) {
        if (mine.contains(m.getFile()))
          builder.clone(op);
        else if (used.contains(m.getSymName()))
          builder.cloneWithoutRegions(op)->getRegion(0).emplaceBlock();
      } else if (auto ext = dyn_cast<pbc::proto::ExtensionOp>(op)) {
        if (mine.contains(ext.getFile()))
          builder.clone(op);
      } else {
        builder.clone(op);
      }
    }
    return copy;
  }

  /// Lowers a copy of the laid-out module (code for `files`, all when
  /// empty) and returns it in the form `kind` asks for. Code for some files
  /// goes into an archive, whose pbc_runtime.o has the runtime; code for
  /// all of them is a lone output with the runtime in it.
  Expected<std::string> compile(pbc::CodeGen &codegen, mlir::ModuleOp module,
                                ArrayRef<std::string> files, Emit kind,
                                StringRef name) {
    mlir::TimingScope lowerTime = stage("MLIR: lower to the LLVM dialect");
    mlir::OwningOpRef<mlir::ModuleOp> copy = copyFor(module, files);
    if (failed(lower(*copy, LoweringStage::Wire, LoweringStage::LLVM, files,
                     lowerTime)))
      return createStringError(inconvertibleErrorCode(),
                               "lowering to LLVM failed");
    lowerTime.stop();
    auto llvmModule =
        codegen.buildModule(std::move(copy), name,
                            /*runtimeInOwnObject=*/!files.empty());
    if (!llvmModule)
      return llvmModule.takeError();
    pbc::OutputKind out = kind == Emit::LLVM  ? pbc::OutputKind::LLVMIR
                          : kind == Emit::Bc  ? pbc::OutputKind::Bitcode
                          : kind == Emit::Asm ? pbc::OutputKind::Assembly
                                              : pbc::OutputKind::Object;
    return codegen.emit(**llvmModule, out);
  }
};

} // namespace

int pbc::fail(const Twine &message) {
  errs() << "pbc: error: " << message << "\n";
  return 1;
}

Emit pbc::emitFromExtension(StringRef path) {
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

void pbc::setUpContext(mlir::MLIRContext &context) {
  mlir::DialectRegistry registry;
  pbc::registerDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
  // Diagnostics from the verifiers and passes name the schema entity they
  // concern; print them and fail instead of aborting.
  context.printOpOnDiagnostic(false);
}

int pbc::compileImported(mlir::MLIRContext &context, ImportResult &imported,
                         const DriverOptions &options, OutputMap &outputs) {
  return Compilation(context, options, outputs).run(imported);
}

static void appendEscaped(std::string &out, StringRef path) {
  for (char c : path) {
    if (c == ' ' || c == '#')
      out += '\\';
    else if (c == '$')
      out += '$';
    out += c;
  }
}

std::string pbc::depfile(StringRef target,
                         const std::vector<std::string> &deps) {
  std::string text;
  appendEscaped(text, target);
  text += ":";
  for (const std::string &dep : deps) {
    text += " \\\n  ";
    appendEscaped(text, dep);
  }
  text += "\n";
  return text;
}

int pbc::writeOutputs(const OutputMap &outputs) {
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
