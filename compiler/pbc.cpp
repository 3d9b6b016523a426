//===- pbc.cpp - the pbc compiler driver ----------------------------------===//
//
//   pbc compile [-I DIR]... FILE.proto... -o OUT [--emit=KIND] [-O0..3]
//   pbc profile [-I DIR]... FILE.proto... --message=NAME --payloads=FILE...
//               -o PROFILE
//   pbc decode [-I DIR]... FILE.proto... --message=NAME < MESSAGE.bin
//   pbc encode [-I DIR]... FILE.proto... --message=NAME < MESSAGE.txt
//   pbc decode_raw < MESSAGE.bin
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
#include "CodecCommands.h"
#include "DescriptorSet.h"
#include "Driver.h"
#include "Jit.h"
#include "pbc/Support/Profile.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/Timing.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "pbc/Conversion/Passes.h"
#include "pbc/Dialect/Proto/ProtoOps.h"

#include "pbc/schema.h"

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"
#include "google/protobuf/stubs/common.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/IR/PassTimingInfo.h"
#include "llvm/Pass.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <map>

#include <mimalloc.h>

using namespace llvm;

namespace {

cl::SubCommand compileCmd("compile",
                          "Compile .proto files to a library, object or IR");
cl::SubCommand profileCmd(
    "profile", "Record what sample payloads of a message hold, for "
               "`pbc compile --profile`");
cl::SubCommand decodeCmd(
    "decode", "Print a binary message read from stdin as text (as protoc "
              "--decode), through the schema loaded at run time");
cl::SubCommand encodeCmd(
    "encode", "Write a text-format (or --json) message read from stdin as "
              "binary (as protoc --encode), through the schema loaded at "
              "run time");
cl::SubCommand decodeRawCmd(
    "decode_raw", "Print a binary message read from stdin as text, its "
                  "fields by number (as protoc --decode_raw)");
cl::OptionCategory schemaCat("schema options");
cl::OptionCategory compileCat("pbc compile options");
cl::OptionCategory profileCat("pbc profile options");
cl::OptionCategory codecCat("pbc decode/encode options");

// The schema: both commands read it the same way.
cl::list<std::string> inputs(cl::Positional, cl::OneOrMore,
                             cl::desc("<file.proto>..."), cl::sub(compileCmd),
                             cl::sub(profileCmd), cl::sub(decodeCmd),
                             cl::sub(encodeCmd), cl::cat(schemaCat));
cl::list<std::string> includeDirs(
    "I", cl::Prefix, cl::desc("Directory to search for imports (like protoc)"),
    cl::value_desc("dir"), cl::sub(compileCmd), cl::sub(profileCmd),
    cl::sub(decodeCmd), cl::sub(encodeCmd), cl::cat(schemaCat));
cl::list<std::string> protoPaths("proto_path",
                                 cl::desc("Same as -I"), cl::value_desc("dir"),
                                 cl::sub(compileCmd), cl::sub(profileCmd),
                                 cl::sub(decodeCmd), cl::sub(encodeCmd),
                                 cl::cat(schemaCat));
cl::opt<std::string> output("o", cl::Required, cl::desc("Output file"),
                            cl::value_desc("out"), cl::sub(compileCmd),
                            cl::cat(compileCat));
cl::opt<std::string> headerDir(
    "header-dir",
    cl::desc("Where to write STEM.pbc.h (default: the output's folder)"),
    cl::value_desc("dir"), cl::sub(compileCmd), cl::cat(compileCat));

using pbc::Emit;
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
                           cl::sub(compileCmd), cl::sub(decodeCmd),
                           cl::sub(encodeCmd), cl::cat(compileCat));
cl::list<std::string> descriptorSetIn(
    "descriptor_set_in", cl::CommaSeparated,
    cl::desc("Read the schema from these FileDescriptorSets (protoc "
             "--descriptor_set_out --include_imports) instead of .proto "
             "files; inputs are names in the set. Several: ':'-separated"),
    cl::value_desc("FILE.pb"), cl::sub(compileCmd), cl::sub(profileCmd),
    cl::sub(decodeCmd), cl::sub(encodeCmd), cl::cat(schemaCat));
cl::opt<std::string> protocPath(
    "protoc",
    cl::desc("A protoc that reads protobuf editions files (27 or later), "
             "which pbc's libprotobuf 3.21 parser cannot; default: the "
             "first protoc on PATH, if it is one"),
    cl::value_desc("path"), cl::sub(compileCmd), cl::sub(profileCmd),
    cl::sub(decodeCmd), cl::sub(encodeCmd), cl::cat(schemaCat));
cl::opt<std::string> dependencyOut(
    "dependency_out",
    cl::desc("Write a make-style depfile listing every .proto file read "
             "(like protoc), for build systems"),
    cl::value_desc("file"), cl::sub(compileCmd), cl::cat(compileCat));
enum class Sanitizer { Address, Fuzzer };
cl::list<Sanitizer> sanitize(
    "sanitize", cl::CommaSeparated,
    cl::desc("Instrument the generated code (comma-separated list)"),
    cl::values(clEnumValN(Sanitizer::Address, "address",
                          "AddressSanitizer (link with -fsanitize=address)"),
               clEnumValN(Sanitizer::Fuzzer, "fuzzer",
                          "libFuzzer coverage (link with -fsanitize=fuzzer)")),
    cl::sub(compileCmd), cl::cat(compileCat));
cl::opt<bool> noPrebuiltRuntime(
    "no-prebuilt-runtime",
    cl::desc("Compile the archive's runtime object even where pbc has it "
             "prebuilt for these options (the same bytes, ten seconds "
             "later: for checking that they are)"),
    cl::Hidden, cl::sub(compileCmd), cl::cat(compileCat));

cl::opt<unsigned> jobs(
    "j",
    cl::desc("Compile up to N of a library's objects at once (default: one "
             "per hardware thread; -v compiles one at a time)"),
    cl::value_desc("N"), cl::Prefix, cl::sub(compileCmd), cl::cat(compileCat));
cl::opt<bool> verbose(
    "v",
    cl::desc("Print the stages and where time went (MLIR and LLVM pass "
             "timing) to stderr"),
    cl::sub(compileCmd), cl::sub(decodeCmd), cl::sub(encodeCmd),
    cl::cat(compileCat));
cl::opt<std::string> timeTrace(
    "time-trace",
    cl::desc("Write where the compile time went, per LLVM pass and per "
             "function, as a Chrome trace (like clang's -ftime-trace: "
             "chrome://tracing or ui.perfetto.dev read it); compiles one "
             "object at a time"),
    cl::value_desc("file.json"), cl::sub(compileCmd), cl::sub(decodeCmd),
    cl::sub(encodeCmd), cl::cat(compileCat));
cl::opt<std::string> optimizeFor(
    "optimize-for",
    cl::desc("Build every message's codecs this way, whatever its file's "
             "`option optimize_for` says: speed (specialized machine code), "
             "code-size or lite-runtime (the runtime's table codec; "
             "docs/architecture.md, Tiers)"),
    cl::value_desc("speed|code-size|lite-runtime"), cl::sub(compileCmd),
    cl::sub(decodeCmd), cl::sub(encodeCmd), cl::cat(compileCat));
cl::opt<uint64_t> codeBudget(
    "code-budget",
    cl::desc("The files without an optimize_for option get specialized "
             "code while its estimate fits this many bytes; beyond it, the "
             "largest get the table codec (default 262144)"),
    cl::value_desc("bytes"),
    cl::init(pbc::ProtoSelectTiersOptions().codeBudget),
    cl::sub(compileCmd), cl::sub(decodeCmd), cl::sub(encodeCmd),
    cl::cat(compileCat));
cl::opt<std::string> profilePath(
    "profile",
    cl::desc("A profile of sample payloads (pbc profile): its hottest "
             "messages, holding 99.9% of the work, get specialized code "
             "(instead of --code-budget deciding), the others the table "
             "codec, and decoders expect fields in the order it saw; files "
             "with an optimize_for option keep it"),
    cl::value_desc("file"), cl::sub(compileCmd), cl::cat(compileCat));
cl::opt<bool> cppHeader(
    "cpp-header",
    cl::desc("Also write STEM.pbc.hpp, a C++17 header-only wrapper over the "
             "C API (docs/generated-api.md)"),
    cl::sub(compileCmd), cl::cat(compileCat));

// pbc profile
cl::opt<std::string> profileOut("o", cl::Required,
                                cl::desc("The profile to write"),
                                cl::value_desc("file"), cl::sub(profileCmd),
                                cl::cat(profileCat));
cl::opt<std::string> rootMessage(
    "message",
    cl::desc("The payloads' message, by full name (pbc profile: when not "
             "given, each dataset's own message_name)"),
    cl::value_desc("pkg.Name"), cl::sub(profileCmd), cl::sub(decodeCmd),
    cl::sub(encodeCmd), cl::cat(profileCat));
cl::opt<bool> delimited(
    "delimited",
    cl::desc("A stream of messages, each after its varint length (Java's "
             "writeDelimitedTo); their text is each after a `# message N` "
             "line"),
    cl::sub(decodeCmd), cl::sub(encodeCmd), cl::cat(codecCat));
cl::opt<bool> json(
    "json",
    cl::desc("Print (decode) or read (encode) ProtoJSON (pbc/json.h: "
             "what libprotobuf's MessageToJsonString prints and "
             "JsonStringToMessage reads) instead of text format; with "
             "--delimited, one message a line"),
    cl::sub(decodeCmd), cl::sub(encodeCmd), cl::cat(codecCat));
cl::opt<bool> jit(
    "jit",
    cl::desc("Compile the schema's code into this process (LLVM ORC JIT) "
             "and run it, instead of the table codec on the schema loaded "
             "at run time: what `pbc compile` would build, with its -O, "
             "--optimize-for and --code-budget, for this machine's CPU"),
    cl::sub(decodeCmd), cl::sub(encodeCmd), cl::cat(codecCat));
cl::list<std::string> payloadFiles(
    "payloads", cl::CommaSeparated, cl::OneOrMore,
    cl::desc("Files of sample payloads (comma-separated or repeated)"),
    cl::value_desc("file"), cl::sub(profileCmd), cl::cat(profileCat));
enum class PayloadFormat { Message, Delimited, Dataset };
cl::opt<PayloadFormat> payloadFormat(
    "format", cl::desc("How a payload file holds its messages"),
    cl::init(PayloadFormat::Message),
    cl::values(
        clEnumValN(PayloadFormat::Message, "message",
                   "one serialized message (the default)"),
        clEnumValN(PayloadFormat::Delimited, "delimited",
                   "messages each after its varint length (Java's "
                   "writeDelimitedTo, C++'s SerializeDelimitedToOstream)"),
        clEnumValN(PayloadFormat::Dataset, "dataset",
                   "a benchmarks.BenchmarkDataset (Google's protobuf "
                   "benchmark data): its payloads, of its message_name")),
    cl::sub(profileCmd), cl::cat(profileCat));

void printVersion(raw_ostream &os) {
  os << "pbc " PBC_VERSION "\n"
     << "  LLVM/MLIR " LLVM_VERSION_STRING "\n"
     << "  libprotobuf "
     << google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION)
     << "\n";
  // The allocator, and whether its malloc is the process's: the link
  // order's doing (compiler/CMakeLists.txt), which nothing else would show.
  int v = mi_version();
  void *probe = std::malloc(16);
  bool active = mi_is_in_heap_region(probe);
  std::free(probe);
  os << "  mimalloc " << v / 100 << "." << v / 10 % 10 << "." << v % 10
     << (active ? "" : " (linked, but not the process's malloc)") << "\n";
}

/// Splits one payload file into its messages, as --format says; a
/// dataset's message_name goes to `named`. Errors name the file and byte.
Error readPayloads(StringRef path, std::vector<std::string> &payloads,
                   std::string &named) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> file = MemoryBuffer::getFile(path);
  if (!file)
    return createStringError(file.getError(), "cannot read " + path + ": " +
                                                  file.getError().message());
  StringRef bytes = (*file)->getBuffer();
  if (payloadFormat == PayloadFormat::Message) {
    payloads.push_back(bytes.str());
    return Error::success();
  }
  namespace gpio = google::protobuf::io;
  gpio::CodedInputStream in(reinterpret_cast<const uint8_t *>(bytes.data()),
                            static_cast<int>(bytes.size()));
  auto broken = [&](const Twine &what) {
    return createStringError(inconvertibleErrorCode(),
                             path + ": byte " + Twine(in.CurrentPosition()) +
                                 ": " + what);
  };
  // A length-delimited message reads as a bytes field's value does.
  using WFL = google::protobuf::internal::WireFormatLite;
  if (payloadFormat == PayloadFormat::Delimited) {
    while (!in.ExpectAtEnd()) {
      std::string message;
      if (!WFL::ReadString(&in, &message))
        return broken("a length or a message cut short by the end");
      payloads.push_back(std::move(message));
    }
    return Error::success();
  }
  // benchmarks.BenchmarkDataset: message_name = 2, payload = 3.
  while (uint32_t tag = in.ReadTag()) {
    int number = WFL::GetTagFieldNumber(tag);
    std::string value;
    if ((number == 2 || number == 3) &&
        WFL::GetTagWireType(tag) == WFL::WIRETYPE_LENGTH_DELIMITED) {
      if (!WFL::ReadString(&in, &value))
        return broken("not a BenchmarkDataset (a string cut short)");
      if (number == 2)
        named = value;
      else
        payloads.push_back(std::move(value));
    } else if (!WFL::SkipField(&in, tag)) {
      return broken("not a BenchmarkDataset (malformed wire data)");
    }
  }
  if (!in.ExpectAtEnd())
    return broken("not a BenchmarkDataset (malformed wire data)");
  return Error::success();
}

/// pbc profile: the payloads read against the imported schema, their
/// profile written to -o. Each file's payloads are of --message, or of the
/// message its dataset names.
int runProfile(mlir::ModuleOp schema) {
  pbc::ProfileRecorder recorder(schema);
  for (const std::string &path : payloadFiles) {
    std::vector<std::string> payloads;
    std::string named;
    if (Error e = readPayloads(path, payloads, named))
      return pbc::fail(toString(std::move(e)));
    std::string root =
        (rootMessage.empty() ? StringRef(named) : StringRef(rootMessage))
            .ltrim('.')
            .str();
    if (root.empty())
      return pbc::fail("--message is required: which message the payloads "
                       "hold (only a dataset names it)");
    if (!recorder.hasMessage(root))
      return pbc::fail("no message " + root + " in the schema");
    for (auto [i, payload] : llvm::enumerate(payloads))
      if (Error e = recorder.add(root, payload))
        return pbc::fail(path + ": payload " + Twine(i + 1) + " is not a " +
                         root + ": " + toString(std::move(e)));
  }
  std::string text;
  raw_string_ostream os(text);
  recorder.profile().print(os);
  return pbc::writeOutputs({{profileOut, std::move(text)}});
}

/// What decides the code, as the command line gives it: the tiers, the
/// profile, the target, -O and the sanitizers (pbc compile's; decode and
/// encode --jit take the tiers and -O, the rest keep their defaults).
pbc::DriverOptions codeOptions() {
  pbc::DriverOptions options;
  options.tiers.optimizeFor = optimizeFor;
  options.tiers.codeBudget = codeBudget;
  options.profile.profile = profilePath;
  options.codegen = pbc::CodeGenOptions{targetTriple, targetCpu, optLevel};
  for (Sanitizer s : sanitize) {
    options.codegen.sanitizeAddress |= s == Sanitizer::Address;
    options.codegen.sanitizeCoverage |= s == Sanitizer::Fuzzer;
  }
  options.codegen.prebuiltRuntime = !noPrebuiltRuntime;
  return options;
}

/// -v: the stages' wall-clock tree, then LLVM's pass timing report.
void printTimes(mlir::DefaultTimingManager &timing,
                mlir::TimingScope &rootTime) {
  rootTime.stop();
  timing.print();
  reportAndResetTimings(&errs());
}

/// --time-trace: the profile, once the compilation is done.
int writeTimeTrace() {
  if (!timeTraceProfilerEnabled())
    return 0;
  std::error_code ec;
  raw_fd_ostream os(timeTrace, ec);
  if (!ec)
    timeTraceProfilerWrite(os);
  timeTraceProfilerCleanup();
  if (ec || os.has_error())
    return pbc::fail("cannot write '" + timeTrace + "': " +
                     (ec ? ec : os.error()).message());
  return 0;
}

/// pbc decode / encode: the message types from the schema loaded at run
/// time, or (--jit) from its code compiled into the process.
int runCodec(mlir::MLIRContext &context, pbc::ImportResult &imported,
             mlir::DefaultTimingManager &timing, mlir::TimingScope &rootTime) {
  pbc::SchemaPtr schema;
  std::unique_ptr<pbc::JitSchema> compiled;
  pbc::MessageTypes types;
  if (jit) {
    mlir::TimingScope jitTime = rootTime.nest("JIT: compile and link");
    pbc::DriverOptions options = codeOptions();
    if (verbose)
      options.timing = &jitTime;
    auto made = pbc::JitSchema::compile(context, imported, options);
    if (!made)
      return pbc::fail(toString(made.takeError()));
    jitTime.stop();
    compiled = std::move(*made);
    types = {pbc::JitSchema::finder, compiled.get(), compiled->extensions()};
  } else {
    schema = pbc::loadSchema(imported.descriptorSet);
    if (!schema)
      return 1;
    size_t count = 0;
    const pbc_extension_info *const *extensions =
        pbc_schema_extensions(schema.get(), &count);
    types = {pbc_schema_finder, schema.get(), {extensions, count}};
  }
  if (verbose)
    printTimes(timing, rootTime);
  if (int rc = writeTimeTrace())
    return rc;
  pbc::TextFormat format =
      json ? pbc::TextFormat::Json : pbc::TextFormat::Text;
  return decodeCmd ? pbc::runDecode(types, rootMessage, delimited, format)
                   : pbc::runEncode(types, rootMessage, delimited, format);
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::SetVersionPrinter(printVersion);
  cl::HideUnrelatedOptions({&schemaCat, &compileCat});
  cl::HideUnrelatedOptions({&schemaCat, &compileCat}, compileCmd);
  cl::HideUnrelatedOptions({&schemaCat, &profileCat}, profileCmd);
  cl::HideUnrelatedOptions({&schemaCat, &compileCat, &profileCat, &codecCat},
                           decodeCmd);
  cl::HideUnrelatedOptions({&schemaCat, &compileCat, &profileCat, &codecCat},
                           encodeCmd);
  cl::ParseCommandLineOptions(
      argc, argv,
      "pbc: an ahead-of-time protobuf compiler\n\n"
      "  pbc compile [options] FILE.proto... -o OUT\n"
      "  pbc profile [options] FILE.proto... --message=NAME "
      "--payloads=FILE... -o PROFILE\n"
      "  pbc decode [options] FILE.proto... --message=NAME < MESSAGE.bin\n"
      "  pbc encode [options] FILE.proto... --message=NAME < MESSAGE.txt\n"
      "  pbc decode_raw < MESSAGE.bin\n");
  if (decodeRawCmd)
    return pbc::runDecodeRaw();
  bool codec = decodeCmd || encodeCmd;
  if (codec && rootMessage.empty())
    return pbc::fail("--message is required: the full name of the message "
                     "type (as protoc --decode=TYPE)");
  if (!compileCmd && !profileCmd && !codec) {
    cl::PrintHelpMessage();
    return 1;
  }
  if (optLevel > 3)
    return pbc::fail("-O" + Twine(optLevel) + " is not an optimization level (0-3)");

  mlir::MLIRContext context;
  pbc::setUpContext(context);
  // Events of 50 us and more: a function's passes, not each instruction's.
  if (!timeTrace.empty())
    timeTraceProfilerInitialize(/*TimeTraceGranularity=*/50, "pbc");

  // -v: a wall-clock tree of the stages (MLIR's pass timers nest inside),
  // printed at the end with LLVM's pass timing report.
  mlir::DefaultTimingManager timing;
  timing.setEnabled(verbose);
  timing.setDisplayMode(mlir::DefaultTimingManager::DisplayMode::Tree);
  mlir::TimingScope rootTime = timing.getRootScope();
  if (verbose) {
    TimePassesIsEnabled = true;
    if (compileCmd || jit)
      errs() << "pbc: compiling " << inputs.size() << " file(s) for "
             << (jit                   ? "this process (JIT)"
                 : targetTriple.empty() ? "the host"
                                        : targetTriple.getValue())
             << " at -O" << optLevel << "\n";
  }
  mlir::TimingScope frontendTime = rootTime.nest("front end (libprotobuf)");

  pbc::FrontendOptions feOptions;
  feOptions.inputs.assign(inputs.begin(), inputs.end());
  feOptions.includeDirs.assign(includeDirs.begin(), includeDirs.end());
  feOptions.includeDirs.insert(feOptions.includeDirs.end(), protoPaths.begin(),
                               protoPaths.end());
  feOptions.protoc = protocPath;
  feOptions.output = profileCmd ? profileOut.getValue()
                     : codec    ? std::string()
                                : output.getValue();
  std::vector<std::string> setPaths;
  for (StringRef arg : descriptorSetIn) {
    SmallVector<StringRef> parts;
    arg.split(parts, ':', -1, /*KeepEmpty=*/false);
    for (StringRef part : parts)
      setPaths.push_back(part.str());
  }
  pbc::ImportResult imported =
      setPaths.empty()
          ? pbc::importProtos(context, feOptions, errs())
          : pbc::importDescriptorSet(context, setPaths, feOptions.inputs,
                                     errs());
  if (!imported.module)
    return 1;
  frontendTime.stop();
  if (profileCmd)
    return runProfile(*imported.module);
  if (!optimizeFor.empty() && !pbc::parseOptimizeFor(optimizeFor))
    return pbc::fail("--optimize-for=" + optimizeFor +
                     ": expected speed, code-size or lite-runtime");
  if (codec)
    return runCodec(context, imported, timing, rootTime);

  pbc::DriverOptions options = codeOptions();
  if (verbose)
    options.timing = &rootTime;
  options.cppHeader = cppHeader;
  options.jobs = jobs;
  options.output = output;
  options.headerDir = headerDir;
  if (emit.getNumOccurrences())
    options.emit = emit.getValue();
  pbc::OutputMap outputs;
  if (int rc = pbc::compileImported(context, imported, options, outputs))
    return rc;
  if (verbose)
    printTimes(timing, rootTime);
  if (int rc = writeTimeTrace())
    return rc;
  if (!dependencyOut.empty()) {
    // The profile is an input too: a new one means new code.
    std::vector<std::string> deps =
        setPaths.empty() ? imported.sourceFiles : setPaths;
    if (!profilePath.empty())
      deps.push_back(profilePath);
    outputs[dependencyOut] = pbc::depfile(output, deps);
  }
  return pbc::writeOutputs(outputs);
}
