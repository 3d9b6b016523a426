//===- Frontend.h - .proto files to the proto dialect -----------*- C++ -*-===//
//
// The front end runs libprotobuf's own compiler front end (Importer over a
// DiskSourceTree, resolving paths exactly like protoc) and models the
// resulting descriptors as a `proto` dialect module.
//
//===----------------------------------------------------------------------===//
#ifndef PBC_COMPILER_FRONTEND_H
#define PBC_COMPILER_FRONTEND_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace google::protobuf {
class FileDescriptor;
} // namespace google::protobuf

namespace pbc {

struct FrontendOptions {
  /// Input files, as given on the command line (disk paths, or virtual paths
  /// under an include dir, as protoc accepts them).
  std::vector<std::string> inputs;
  /// -I / --proto_path values, in order. Like protoc, each may be
  /// `DIR`, `VIRTUAL=DIR`, or several of those joined with ':'.
  std::vector<std::string> includeDirs;
  /// A protoc that reads editions files (27 or later), for inputs that are
  /// or import one; empty: the first `protoc` on PATH, if it is one.
  std::string protoc;
  /// The output, as given (-o), for the command the editions note suggests.
  std::string output;
};

struct ImportResult {
  /// The schema as a `proto` dialect module, or null after an error.
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// Virtual names of the inputs, e.g. "addressbook.proto", in command line
  /// order, without duplicates.
  std::vector<std::string> inputFiles;
  /// Disk paths of every .proto file read (inputs and their imports), for a
  /// depfile; empty when the schema did not come from .proto files.
  std::vector<std::string> sourceFiles;
  /// The inputs and everything they import as a serialized
  /// FileDescriptorSet, imports first (as `protoc --include_imports`
  /// writes it), with json_name set: what pbc_schema_load (pbc/schema.h)
  /// reads, for `pbc decode` and `pbc encode`. An editions file is there as
  /// its set had it, its features unresolved.
  std::string descriptorSet;
};

/// `files` and their imports as a serialized FileDescriptorSet, imports
/// first; a file named in `originals` is written as those bytes (a
/// FileDescriptorProto) instead of from its descriptor.
std::string descriptorSetOf(
    llvm::ArrayRef<const google::protobuf::FileDescriptor *> files,
    const std::map<std::string, std::string> &originals = {});

/// Parses `opts.inputs` and everything they import, and builds a verified
/// module with one `proto.file` per file and every message and enum at module
/// level. Every schema protoc accepts imports: real oneofs become
/// `proto.oneof` ops, map entry types are marked `map_entry`, and extensions
/// are left out (their data is kept as unknown fields). On any error (schema
/// error, missing file) prints protoc-style diagnostics to `errs` and returns
/// a null module. Warnings are printed too but do not fail the import.
///
/// libprotobuf 3.21 cannot parse protobuf editions (`edition = "2023";`).
/// When an input is, or imports, an editions file, a protoc 27 or later
/// (`opts.protoc`, or on PATH) writes the files' descriptor set, which is
/// imported like `--descriptor_set_in`; without one, one note says what to
/// do and the import fails.
ImportResult importProtos(mlir::MLIRContext &ctx, const FrontendOptions &opts,
                          llvm::raw_ostream &errs);

/// Models descriptors libprotobuf has already built (from protoc's plugin
/// request or a descriptor set) like importProtos does: `files` are the
/// inputs, their imports come along. Prints internal errors to `errs` and
/// returns a null module if the result does not verify.
ImportResult
importDescriptors(mlir::MLIRContext &ctx,
                  llvm::ArrayRef<const google::protobuf::FileDescriptor *> files,
                  llvm::raw_ostream &errs);

} // namespace pbc

#endif // PBC_COMPILER_FRONTEND_H
