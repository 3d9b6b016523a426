//===- CodecCommands.h - pbc decode, encode and decode_raw ------*- C++ -*-===//
//
// protoc's --decode, --encode and --decode_raw, on pbc's runtime: stdin to
// stdout, the same bytes and messages as protoc 3.21. Each returns the exit
// code, after printing any error to stderr.
//
//===----------------------------------------------------------------------===//
#ifndef PBC_COMPILER_CODECCOMMANDS_H
#define PBC_COMPILER_CODECCOMMANDS_H

#include "pbc/pbc.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <memory>

struct pbc_schema;

namespace pbc {

/// Where the commands find the message types, by full name: the schema
/// loaded at run time (pbc_schema_finder over loadSchema's) or the code
/// compiled for it in the process (JitSchema::finder, --jit).
struct MessageTypes {
  pbc_message_finder find;
  const void *ctx;
  /// The schema's extensions, which the text format names.
  llvm::ArrayRef<const pbc_extension_info *> extensions;
};

/// A schema loaded with pbc_schema_load (pbc/schema.h), freed when it goes.
struct SchemaDeleter {
  void operator()(pbc_schema *schema) const;
};
using SchemaPtr = std::unique_ptr<pbc_schema, SchemaDeleter>;

/// The schema of a serialized FileDescriptorSet, as any program would load
/// it at run time: the table codec on descriptions built in memory. Null
/// after printing why it cannot be loaded.
SchemaPtr loadSchema(llvm::StringRef descriptorSet);

/// What runDecode prints and runEncode reads: text format, or ProtoJSON
/// (pbc/json.h).
enum class TextFormat { Text, Json };

/// A binary `message` (its full name) read from stdin, printed as text or
/// JSON. `delimited`: stdin is a stream of messages each after its varint
/// length, printed one after the other: the text of each after a
/// `# message N` line, the JSON of each on its own line.
int runDecode(const MessageTypes &types, llvm::StringRef message,
              bool delimited, TextFormat format);

/// A text or JSON `message` read from stdin, written binary. `delimited`:
/// the input is messages (what runDecode prints: the text of each after a
/// `# message N` line, the JSON of each on its own line), each written
/// after its varint length.
int runEncode(const MessageTypes &types, llvm::StringRef message,
              bool delimited, TextFormat format);

/// stdin's bytes read as a message of unknown fields, printed as text.
int runDecodeRaw();

} // namespace pbc

#endif // PBC_COMPILER_CODECCOMMANDS_H
