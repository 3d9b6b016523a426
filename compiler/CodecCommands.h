//===- CodecCommands.h - pbc decode, encode and decode_raw ------*- C++ -*-===//
//
// protoc's --decode, --encode and --decode_raw, on pbc's runtime: stdin to
// stdout, the same bytes and messages as protoc 3.21. Each returns the exit
// code, after printing any error to stderr.
//
//===----------------------------------------------------------------------===//
#ifndef PBC_COMPILER_CODECCOMMANDS_H
#define PBC_COMPILER_CODECCOMMANDS_H

#include "llvm/ADT/StringRef.h"

namespace pbc {

/// A binary `message` (its full name) read from stdin, printed as text.
/// `descriptorSet` is the schema as a serialized FileDescriptorSet.
/// `delimited`: stdin is a stream of messages each after its varint length,
/// printed one after the other, each after a `# message N` line.
int runDecode(llvm::StringRef descriptorSet, llvm::StringRef message,
              bool delimited);

/// A text `message` read from stdin, written binary. `delimited`: the text
/// is messages each after a `# message N` line (what runDecode prints), and
/// each is written after its varint length.
int runEncode(llvm::StringRef descriptorSet, llvm::StringRef message,
              bool delimited);

/// stdin's bytes read as a message of unknown fields, printed as text.
int runDecodeRaw();

} // namespace pbc

#endif // PBC_COMPILER_CODECCOMMANDS_H
