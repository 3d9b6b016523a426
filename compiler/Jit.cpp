//===- Jit.cpp - a schema's code compiled into the running process --------===//
//
// The JIT is the ahead-of-time compiler with a different last step: the
// driver compiles the whole schema into one object (code, descriptions,
// info records and the runtime it inlines, as `pbc compile -o x.o` writes
// it) and ORC's object layer links that object into this process. So the
// code comes from the pipeline and code generator a linked library's comes
// from (built for this CPU; the tests compare both with libprotobuf), and
// there is one pipeline to maintain.
// Linking an object rather than handing ORC the LLVM module costs nothing
// that matters (JITLink reads it in milliseconds; code generation is the
// seconds) and keeps the code generator's own choices (PIC, the CPU, the
// runtime's inlining) in one place.
//
//===----------------------------------------------------------------------===//
#include "Jit.h"

#include "pbc/Dialect/Proto/Naming.h"
#include "pbc/Dialect/Proto/ProtoOps.h"

#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;
using namespace pbc;

#if defined(__x86_64__) || defined(__i386__)
// The CPU's features, which the runtime's UTF-8 check reads to pick its
// AVX2 loop (__builtin_cpu_supports). They live in libgcc (or
// compiler-rt), linked into this program but not exported from it, so the
// JIT is told where they are.
extern "C" char __cpu_model[];
extern "C" int __cpu_indicator_init(void);
#endif

namespace {

/// What the code needs from the compiler's support library that the
/// process does not export: defined at their addresses in this program.
Error defineSupportSymbols(orc::LLJIT &jit) {
  orc::SymbolMap symbols;
#if defined(__x86_64__) || defined(__i386__)
  symbols[jit.mangleAndIntern("__cpu_model")] = {
      orc::ExecutorAddr::fromPtr(__cpu_model), JITSymbolFlags::Exported};
  symbols[jit.mangleAndIntern("__cpu_indicator_init")] = {
      orc::ExecutorAddr::fromPtr(&__cpu_indicator_init),
      JITSymbolFlags::Exported | JITSymbolFlags::Callable};
#endif
  if (symbols.empty())
    return Error::success();
  return jit.getMainJITDylib().define(orc::absoluteSymbols(std::move(symbols)));
}

} // namespace

JitSchema::~JitSchema() = default;

Expected<std::unique_ptr<JitSchema>>
JitSchema::compile(mlir::MLIRContext &context, ImportResult &imported,
                   DriverOptions options) {
  std::vector<std::string> names, extensionNames;
  for (auto message : imported.module->getOps<proto::MessageOp>())
    names.push_back(message.getSymName().str());
  for (auto extension : imported.module->getOps<proto::ExtensionOp>())
    extensionNames.push_back(extension.getSymName().str());

  // Code for every file in one object with the runtime it calls (no
  // archive: nothing here is linked twice), for the CPU it will run on.
  const std::string objectName = "pbc-jit.o";
  options.output = objectName;
  options.emit = Emit::Obj;
  options.headers = false;
  if (options.codegen.triple.empty() && options.codegen.cpu.empty())
    options.codegen.cpu = "native";
  options.codegen.jit = true;
  OutputMap outputs;
  if (compileImported(context, imported, options, outputs))
    return createStringError(inconvertibleErrorCode(),
                             "cannot compile the schema");
  std::string &object = outputs[objectName];

  auto jit = orc::LLJITBuilder().create();
  if (!jit)
    return jit.takeError();
  std::unique_ptr<JitSchema> schema(new JitSchema());
  schema->jit = std::move(*jit);
  if (Error e = defineSupportSymbols(*schema->jit))
    return std::move(e);
  if (Error e = schema->jit->addObjectFile(
          MemoryBuffer::getMemBufferCopy(object, objectName)))
    return std::move(e);

  // One lookup for every record: it links the object (resolving libc's
  // functions from the process) and gives each record's address.
  orc::SymbolLookupSet wanted;
  std::vector<orc::SymbolStringPtr> symbols;
  for (const std::string &name : names) {
    symbols.push_back(schema->jit->mangleAndIntern(proto::cInfoName(name)));
    wanted.add(symbols.back());
  }
  // The extensions' records, for the text format: the program's registry
  // (the pbc_exts section) does not see the JIT's.
  for (const std::string &name : extensionNames) {
    symbols.push_back(
        schema->jit->mangleAndIntern(proto::cExtensionName(name)));
    wanted.add(symbols.back());
  }
  orc::JITDylib &main = schema->jit->getMainJITDylib();
  auto found = schema->jit->getExecutionSession().lookup(
      orc::makeJITDylibSearchOrder(&main), std::move(wanted));
  if (!found)
    return found.takeError();
  for (auto [i, name] : enumerate(names)) {
    auto *info = (*found)[symbols[i]].getAddress().toPtr<pbc_message_info *>();
    schema->byName[name] = info;
    schema->ordered.push_back(info);
  }
  for (size_t i = 0; i < extensionNames.size(); ++i)
    schema->extensionRecords.push_back(
        (*found)[symbols[names.size() + i]]
            .getAddress()
            .toPtr<const pbc_extension_info *>());
  return schema;
}

const pbc_message_info *JitSchema::find(StringRef fullName) const {
  auto it = byName.find(fullName);
  return it == byName.end() ? nullptr : it->second;
}

const pbc_message_info *JitSchema::finder(const void *ctx,
                                          const char *fullName) {
  return static_cast<const JitSchema *>(ctx)->find(fullName);
}
