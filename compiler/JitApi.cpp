//===- JitApi.cpp - pbc/jit.h, libpbc_jit's C API --------------------------===//
//
// The C face of JitSchema (Jit.h): a FileDescriptorSet in memory goes
// through the import a protoc plugin's request takes (editions features
// resolved), then the JIT. What the compiler would print goes to the
// caller's pbc_schema_error instead.
//
//===----------------------------------------------------------------------===//
#include "DescriptorSet.h"
#include "Diagnostics.h"
#include "Jit.h"

#include "pbc/jit.h"

#include "mlir/IR/MLIRContext.h"

#include "google/protobuf/descriptor.pb.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>
#include <mutex>

using namespace llvm;

struct pbc_jit_schema {
  std::unique_ptr<pbc::JitSchema> compiled;
};

namespace {

/// The first line of `text` into `error` (the compiler's first error; the
/// lines after it are its notes or follow from it).
pbc_status fail(pbc_schema_error *error, StringRef text) {
  if (error) {
    StringRef first = text.trim().split('\n').first;
    size_t n = std::min(first.size(), sizeof error->message - 1);
    memcpy(error->message, first.data(), n);
    error->message[n] = '\0';
  }
  return PBC_ERR_BAD_SCHEMA;
}

} // namespace

extern "C" pbc_status pbc_jit_load(const uint8_t *set, size_t len,
                                   const pbc_jit_options *options,
                                   pbc_jit_schema **schema,
                                   pbc_schema_error *error) {
  *schema = nullptr;
  static const pbc_jit_options defaults = PBC_JIT_OPTIONS_DEFAULT;
  const pbc_jit_options &opts = options ? *options : defaults;
  if (opts.opt_level > 3)
    return fail(error, "opt_level " + std::to_string(opts.opt_level) +
                           " is not an optimization level (0-3)");
  if (opts.optimize_for && !pbc::parseOptimizeFor(opts.optimize_for))
    return fail(error, std::string("optimize_for \"") + opts.optimize_for +
                           "\": expected speed, code-size or lite-runtime");
  google::protobuf::FileDescriptorSet files;
  if (len > static_cast<size_t>(INT32_MAX) ||
      !files.ParseFromArray(set, static_cast<int>(len)) ||
      files.file_size() == 0)
    return fail(error, "not a FileDescriptorSet (write one with `protoc "
                       "--descriptor_set_out=FILE --include_imports`)");

  // LLVM's target registry and command-line options (the pass timers)
  // are process-wide: one compilation at a time.
  static std::mutex compiling;
  std::lock_guard<std::mutex> lock(compiling);
  std::string messages;
  raw_string_ostream errs(messages);
  mlir::MLIRContext context;
  pbc::setUpContext(context);
  pbc::ProtocDiagnosticHandler handler(&context, errs, "");
  std::vector<std::string> inputs;
  for (const auto &file : files.file())
    inputs.push_back(file.name());
  pbc::ImportResult imported = pbc::importFileDescriptors(
      context, {files.file().begin(), files.file().end()}, inputs,
      "the descriptor set", errs);
  if (!imported.module)
    return fail(error, messages);

  pbc::DriverOptions driver;
  driver.codegen.optLevel = opts.opt_level;
  if (opts.optimize_for)
    driver.tiers.optimizeFor = opts.optimize_for;
  if (opts.code_budget)
    driver.tiers.codeBudget = opts.code_budget;
  auto compiled = pbc::JitSchema::compile(context, imported, driver);
  if (!compiled) {
    std::string why = toString(compiled.takeError());
    return fail(error, messages.empty() ? why : messages);
  }
  *schema = new (std::nothrow) pbc_jit_schema{std::move(*compiled)};
  return *schema ? PBC_OK : PBC_ERR_OUT_OF_MEMORY;
}

extern "C" void pbc_jit_free(pbc_jit_schema *schema) { delete schema; }

extern "C" const pbc_message_info *
pbc_jit_find_message(const pbc_jit_schema *schema, const char *full_name) {
  return schema->compiled->find(full_name);
}

extern "C" const pbc_message_info *pbc_jit_finder(const void *ctx,
                                                  const char *full_name) {
  return pbc_jit_find_message(static_cast<const pbc_jit_schema *>(ctx),
                              full_name);
}

extern "C" size_t pbc_jit_message_count(const pbc_jit_schema *schema) {
  return schema->compiled->messageCount();
}

extern "C" const pbc_message_info *
pbc_jit_message_at(const pbc_jit_schema *schema, size_t i) {
  return i < schema->compiled->messageCount() ? schema->compiled->messageAt(i)
                                              : nullptr;
}
