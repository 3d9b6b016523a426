//===- DescriptorSet.h - schemas from a FileDescriptorSet -------*- C++ -*-===//
//
// `pbc compile --descriptor_set_in=SET.pb NAME.proto`: the schema comes from
// a FileDescriptorSet (protoc --descriptor_set_out --include_imports, buf
// build, Bazel's proto_library) instead of .proto text, so any tool that can
// write descriptors can feed pbc.
//
//===----------------------------------------------------------------------===//
#ifndef PBC_COMPILER_DESCRIPTORSET_H
#define PBC_COMPILER_DESCRIPTORSET_H

#include "Frontend.h"

#include <google/protobuf/descriptor.pb.h>

#include <string>
#include <vector>

namespace pbc {

/// Builds the files named `inputs` (names as recorded in the set, e.g.
/// "dir/x.proto") from the descriptor sets at `setPaths` (later sets do not
/// override earlier ones, like protoc). Imports missing from every set fall
/// back to the well-known types built into libprotobuf. Editions files
/// (2023, 2024), which libprotobuf 3.21 cannot build, have their features
/// resolved by pbc. Errors (unreadable or corrupt set, a name not in it, an
/// unknown edition, an invalid descriptor) are printed to `errs` and give a
/// null module.
ImportResult importDescriptorSet(mlir::MLIRContext &ctx,
                                 const std::vector<std::string> &setPaths,
                                 const std::vector<std::string> &inputs,
                                 llvm::raw_ostream &errs);

/// The same from descriptors in memory (a protoc plugin's request):
/// `origin` names where they come from in errors.
ImportResult
importFileDescriptors(mlir::MLIRContext &ctx,
                      std::vector<google::protobuf::FileDescriptorProto> files,
                      const std::vector<std::string> &inputs,
                      const std::string &origin, llvm::raw_ostream &errs);

} // namespace pbc

#endif // PBC_COMPILER_DESCRIPTORSET_H
