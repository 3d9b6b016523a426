// The difftest's check of the generic operations (pbc_message_clear, _copy,
// _merge, _equal, pbc_merge_decode) against libprotobuf's Clear, CopyFrom,
// MergeFrom, util::MessageDifferencer::Equals and MergeFromString.
#ifndef PBC_TEST_E2E_OPS_CHECK_H
#define PBC_TEST_E2E_OPS_CHECK_H

#include <functional>
#include <string>
#include <vector>

#include <google/protobuf/message.h>

#include "pbc/pbc.h"

namespace pbc_test {

struct OpsReference {
  // A message of the type in pbc's view of the schema (extensions as
  // unknown fields, as pbc keeps them), whose New() libprotobuf parses into.
  const google::protobuf::Message *prototype;
  // What libprotobuf's bytes for a message are compared as: its maps
  // normalized (the last entry of a key, no unknown fields in entries, as
  // pbc keeps them) and deterministically serialized.
  std::function<void(google::protobuf::Message *)> normalize;
  std::function<std::string(const google::protobuf::Message &)> serialize;
  // Whether DynamicMessage's parse of an input (merged into another) may
  // differ from generated code's (a closed enum's undeclared value in a map
  // entry): then pbc_merge_decode is checked on pbc's re-encoding instead.
  std::function<bool(const google::protobuf::Message &)> dynamic_differs;
  // Where pbc_message_equal looks up an Any's type (NULL: linked ones).
  const pbc_equal_options *equal_options;
};

// For pairs of `inputs` (encodings both decode; the first is the message
// under test): the first with each, each with the one before it (equal),
// the first with itself and the next two (merge), each as given decoded
// into the first, and the first and the last into the second (merge
// decode). pbc_message_equal says what MessageDifferencer::Equals says,
// both ways and each with itself; pbc_message_merge gives the message
// MergeFrom does (compared as `serialize` writes it, and read through the
// description: maps without a key twice) and leaves the source as it was;
// pbc_merge_decode gives the message MergePartialFromCodedStream does, fails
// the required-field check exactly when that one is incomplete, and writes
// nothing the message pointed to; pbc_message_copy gives the same bytes
// with the source's input and arena gone; pbc_message_clear leaves a
// message that encodes to nothing and equals a new one. `why` says what
// differs.
bool OpsMatch(const OpsReference &ref, const pbc_message_info *info,
              const std::vector<std::string> &inputs, std::string *why);

} // namespace pbc_test

#endif // PBC_TEST_E2E_OPS_CHECK_H
