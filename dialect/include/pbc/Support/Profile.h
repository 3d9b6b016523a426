//===- Profile.h - what sample payloads held, for profile-guided tiers ----===//
//
// `pbc profile` reads sample payloads of root messages and records, per
// message type, how many instances and field reads they held and, per
// field, which field came next on the wire; `pbc compile --profile`
// (proto-apply-profile) turns that into the proto dialect's `profile` and
// `followed_by` attributes, from which proto-select-tiers specializes the
// hot messages and the decoder orders its expect-tag chains.
//
// The file is text, one record a line (docs/cli.md, "Profiles"):
//
//   pbc-profile 1
//   root benchmarks.proto2.GoogleMessage1 payloads 1 bytes 228
//   message benchmarks.proto2.GoogleMessage1 instances 1 reads 16
//   field 1 count 1 next 2:1
//   field 100 count 1 next 0:1
//
// A root line per root message the payloads were of; a message's field
// lines follow it; `next N:C` says C times field N came next in the same
// message, 0 meaning the message ended there. Messages go hottest first,
// fields by number.
//
//===----------------------------------------------------------------------===//
#ifndef PBC_SUPPORT_PROFILE_H
#define PBC_SUPPORT_PROFILE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace pbc {

struct FieldProfile {
  uint64_t count = 0;
  /// The field read next in the same message, by number (0: the end).
  std::map<uint32_t, uint64_t> next;
};

struct MessageProfile {
  uint64_t instances = 0;
  /// Tags read in messages of this type (not in their sub-messages).
  uint64_t reads = 0;
  std::map<uint32_t, FieldProfile> fields;
};

/// The payloads of one root message.
struct RootProfile {
  uint64_t payloads = 0;
  uint64_t bytes = 0;
};

struct Profile {
  std::map<std::string, RootProfile> roots;
  std::map<std::string, MessageProfile> messages;

  /// The profile file's text.
  void print(llvm::raw_ostream &os) const;
  /// Reads a profile file's text; errors name `name:line`.
  static llvm::Expected<Profile> parse(llvm::StringRef text,
                                       llvm::StringRef name);
};

/// Records payloads of root messages, read against a proto dialect schema
/// (the front end's module, before layout).
class ProfileRecorder {
public:
  explicit ProfileRecorder(mlir::ModuleOp schema);

  /// Whether the schema has a message of this full name.
  bool hasMessage(llvm::StringRef name) const;

  /// Adds one serialized message of type `root` (one the schema has).
  /// Malformed wire data (what a decoder would reject: a truncated varint
  /// or length, a length past the end, a group that does not end, nesting
  /// past 100) fails with where it is; nothing of that payload is kept.
  llvm::Error add(llvm::StringRef root, llvm::StringRef payload);

  const Profile &profile() const { return result; }

  ProfileRecorder(ProfileRecorder &&);
  ~ProfileRecorder();
  struct Index;

private:
  std::unique_ptr<Index> index;
  Profile result;
};

} // namespace pbc

#endif // PBC_SUPPORT_PROFILE_H
