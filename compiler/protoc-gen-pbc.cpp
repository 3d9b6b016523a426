//===- protoc-gen-pbc.cpp - pbc as a protoc plugin ------------------------===//
//
//   protoc --plugin=protoc-gen-pbc --pbc_out=DIR [--pbc_opt=OPTIONS] x.proto
//
// writes DIR/libx.a, DIR/x.pbc.h and the runtime headers DIR/pbc/*.h: the
// bytes `pbc compile x.proto -o DIR/libx.a` writes, since both run the same
// Driver on the same descriptors. It says it supports editions 2023 and
// 2024, whose features it resolves as for a descriptor set
// (--descriptor_set_in), so a protoc 27 or later hands it editions files.
// OPTIONS is a comma-separated list of
//   O=0..3        optimization level (default 2)
//   target=TRIPLE target triple (default: host)
//   mcpu=CPU      target CPU
//   lib=NAME.a    one archive for all the files of this protoc run (like
//                 `pbc compile a.proto b.proto -o NAME.a`) instead of one
//                 libSTEM.a per file
//   header_dir=D  write the headers under DIR/D instead of DIR
//   cpp_header    also write STEM.pbc.hpp (pbc compile --cpp-header)
//
//===----------------------------------------------------------------------===//
#include "DescriptorSet.h"
#include "Driver.h"

#include "mlir/IR/MLIRContext.h"
#include "pbc/Dialect/Proto/Naming.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/compiler/code_generator.h>
#include <google/protobuf/compiler/plugin.pb.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/unknown_field_set.h>

#include <unistd.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gp = google::protobuf;

namespace {

namespace plugin = gp::compiler;

/// What a plugin says it supports (CodeGeneratorResponse.supported_features,
/// a bit mask; libprotoc 3.21 knows only the first bit) and, for editions,
/// the range of editions (fields 3 and 4 of the response, which 3.21's
/// plugin.proto lacks: sent as unknown fields, read by protoc 27 and later).
constexpr uint64_t kFeatureProto3Optional = 1;
constexpr uint64_t kFeatureSupportsEditions = 2;
constexpr int kResponseMinimumEdition = 3;
constexpr int kResponseMaximumEdition = 4;
constexpr int kEdition2023 = 1000;
constexpr int kEdition2024 = 1001;

bool parseOptions(const std::string &parameter, pbc::DriverOptions &options,
                  std::string &lib, std::string &error) {
  std::vector<std::pair<std::string, std::string>> pairs;
  plugin::ParseGeneratorParameter(parameter, &pairs);
  for (const auto &[key, value] : pairs) {
    if (key == "O") {
      if (value.size() != 1 || value[0] < '0' || value[0] > '3') {
        error = "O=" + value + " is not an optimization level (0-3)";
        return false;
      }
      options.codegen.optLevel = value[0] - '0';
    } else if (key == "target") {
      options.codegen.triple = value;
    } else if (key == "mcpu") {
      options.codegen.cpu = value;
    } else if (key == "lib") {
      if (!llvm::StringRef(value).ends_with(".a")) {
        error = "lib=" + value + ": the archive name must end in .a";
        return false;
      }
      lib = value;
    } else if (key == "header_dir") {
      options.headerDir = value;
    } else if (key == "cpp_header") {
      options.cppHeader = value.empty() || value == "true" || value == "1";
    } else if (key == "optimize_for") {
      if (!pbc::parseOptimizeFor(value)) {
        error = "optimize_for=" + value +
                ": expected speed, code-size or lite-runtime";
        return false;
      }
      options.tiers.optimizeFor = value;
    } else if (key == "code_budget") {
      if (!llvm::to_integer(value, options.tiers.codeBudget, 10)) {
        error = "code_budget=" + value + " is not a number of bytes";
        return false;
      }
    } else if (key == "profile") {
      options.profile.profile = value;
    } else {
      error = "unknown option '" + key +
              "' (known: O, target, mcpu, lib, header_dir, cpp_header, "
              "optimize_for, code_budget, profile)";
      return false;
    }
  }
  return true;
}

/// Compiles `inputs` (files of the request) to `outputs`. The request's
/// descriptors go through the same import as a descriptor set, which
/// resolves editions features that libprotobuf 3.21 cannot.
bool compile(const plugin::CodeGeneratorRequest &request,
             const std::vector<std::string> &inputs,
             const pbc::DriverOptions &options, pbc::OutputMap &outputs) {
  mlir::MLIRContext context;
  pbc::setUpContext(context);
  std::vector<gp::FileDescriptorProto> files(request.proto_file().begin(),
                                             request.proto_file().end());
  pbc::ImportResult imported = pbc::importFileDescriptors(
      context, std::move(files), inputs, "the protoc request", llvm::errs());
  if (!imported.module)
    return false;
  return pbc::compileImported(context, imported, options, outputs) == 0;
}

/// Serves one request: one compilation per file, or one for all of them
/// (lib=), merged into one set of outputs: the runtime headers each writes
/// are the same bytes, and protoc refuses a file written twice.
void generate(const plugin::CodeGeneratorRequest &request,
              plugin::CodeGeneratorResponse &response) {
  pbc::DriverOptions base;
  std::string lib, error;
  if (!parseOptions(request.parameter(), base, lib, error)) {
    response.set_error(error);
    return;
  }
  std::vector<std::vector<std::string>> groups;
  if (lib.empty())
    for (const std::string &file : request.file_to_generate())
      groups.push_back({file});
  else
    groups.emplace_back(request.file_to_generate().begin(),
                        request.file_to_generate().end());

  pbc::OutputMap outputs;
  for (const auto &group : groups) {
    pbc::DriverOptions options = base;
    options.output =
        lib.empty() ? "lib" + pbc::proto::stemOf(group.front()) + ".a" : lib;
    if (!compile(request, group, options, outputs)) {
      response.set_error("pbc could not compile " + group.front() +
                         " (see the errors above)");
      return;
    }
  }
  for (const auto &[path, data] : outputs) {
    llvm::SmallString<128> name(path);
    llvm::sys::path::remove_dots(name, /*remove_dot_dot=*/true);
    plugin::CodeGeneratorResponse::File *file = response.add_file();
    file->set_name(std::string(name));
    file->set_content(data);
  }
}

} // namespace

/// An archive is binary, and CodeGeneratorResponse.File.content is a proto2
/// `string`: libprotobuf logs an "invalid UTF-8" error when serializing it,
/// though the bytes go through intact. Drop that one message; protoc 3.21
/// still logs its own copy when it parses the response.
static gp::LogHandler *defaultLogHandler;

static void filterLog(gp::LogLevel level, const char *filename, int line,
                      const std::string &message) {
  if (message.find("CodeGeneratorResponse.File.content") != std::string::npos)
    return;
  if (defaultLogHandler)
    defaultLogHandler(level, filename, line, message);
}

int main(int argc, char **argv) {
  defaultLogHandler = gp::SetLogHandler(&filterLog);
  if (argc > 1) {
    llvm::errs() << argv[0]
                 << ": a protoc plugin, run by protoc: protoc "
                    "--plugin=protoc-gen-pbc=PATH --pbc_out=DIR x.proto\n";
    return 1;
  }
  plugin::CodeGeneratorRequest request;
  if (!request.ParseFromFileDescriptor(STDIN_FILENO)) {
    llvm::errs() << argv[0] << ": cannot read a CodeGeneratorRequest\n";
    return 1;
  }
  plugin::CodeGeneratorResponse response;
  response.set_supported_features(kFeatureProto3Optional |
                                  kFeatureSupportsEditions);
  gp::UnknownFieldSet *extra =
      response.GetReflection()->MutableUnknownFields(&response);
  extra->AddVarint(kResponseMinimumEdition, kEdition2023);
  extra->AddVarint(kResponseMaximumEdition, kEdition2024);
  generate(request, response);
  if (!response.SerializeToFileDescriptor(STDOUT_FILENO)) {
    llvm::errs() << argv[0] << ": cannot write the CodeGeneratorResponse\n";
    return 1;
  }
  return 0;
}
