//===- protoc-gen-pbc.cpp - pbc as a protoc plugin ------------------------===//
//
//   protoc --plugin=protoc-gen-pbc --pbc_out=DIR [--pbc_opt=OPTIONS] x.proto
//
// writes DIR/libx.a, DIR/x.pbc.h and the runtime headers DIR/pbc/*.h: the
// bytes `pbc compile x.proto -o DIR/libx.a` writes, since both run the same
// Driver on the same descriptors. OPTIONS is a comma-separated list of
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
#include "Driver.h"

#include "mlir/IR/MLIRContext.h"
#include "pbc/Dialect/Proto/Naming.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/compiler/code_generator.h>
#include <google/protobuf/compiler/plugin.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/zero_copy_stream.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/stubs/logging.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gp = google::protobuf;

namespace {

class PbcGenerator : public gp::compiler::CodeGenerator {
public:
  uint64_t GetSupportedFeatures() const override {
    return FEATURE_PROTO3_OPTIONAL;
  }

  bool Generate(const gp::FileDescriptor *file, const std::string &parameter,
                gp::compiler::GeneratorContext *context,
                std::string *error) const override {
    return GenerateAll({file}, parameter, context, error);
  }

  bool GenerateAll(const std::vector<const gp::FileDescriptor *> &files,
                   const std::string &parameter,
                   gp::compiler::GeneratorContext *context,
                   std::string *error) const override {
    pbc::DriverOptions base;
    std::string lib;
    if (!parseOptions(parameter, base, lib, *error))
      return false;

    // One compilation per file, or one for all of them, merged into one
    // set of outputs: the runtime headers each writes are the same bytes,
    // and protoc refuses a file written twice.
    std::vector<std::vector<const gp::FileDescriptor *>> groups;
    if (lib.empty())
      for (const gp::FileDescriptor *file : files)
        groups.push_back({file});
    else
      groups.push_back(files);

    pbc::OutputMap outputs;
    for (const auto &group : groups) {
      pbc::DriverOptions options = base;
      options.output =
          lib.empty() ? "lib" + pbc::proto::stemOf(group.front()->name()) + ".a"
                      : lib;
      if (!compile(group, options, outputs)) {
        *error = "pbc could not compile " + group.front()->name() +
                 " (see the errors above)";
        return false;
      }
    }
    for (const auto &[path, data] : outputs) {
      llvm::SmallString<128> name(path);
      llvm::sys::path::remove_dots(name, /*remove_dot_dot=*/true);
      std::unique_ptr<gp::io::ZeroCopyOutputStream> stream(
          context->Open(std::string(name)));
      gp::io::CodedOutputStream out(stream.get());
      out.WriteRaw(data.data(), static_cast<int>(data.size()));
    }
    return true;
  }

private:
  static bool compile(const std::vector<const gp::FileDescriptor *> &files,
                      const pbc::DriverOptions &options,
                      pbc::OutputMap &outputs) {
    mlir::MLIRContext context;
    pbc::setUpContext(context);
    pbc::ImportResult imported =
        pbc::importDescriptors(context, files, llvm::errs());
    if (!imported.module)
      return false;
    return pbc::compileImported(context, imported, options, outputs) == 0;
  }

  static bool parseOptions(const std::string &parameter,
                           pbc::DriverOptions &options, std::string &lib,
                           std::string &error) {
    std::vector<std::pair<std::string, std::string>> pairs;
    gp::compiler::ParseGeneratorParameter(parameter, &pairs);
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
      } else {
        error = "unknown option '" + key +
                "' (known: O, target, mcpu, lib, header_dir, cpp_header)";
        return false;
      }
    }
    return true;
  }
};

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
  PbcGenerator generator;
  return gp::compiler::PluginMain(argc, argv, &generator);
}
