// The difftest's checks of the descriptions pbc emits (pbc/desc.h) against
// libprotobuf's descriptors and reflection: what the description says
// (numbers, names, types, presence, oneofs, defaults, links, enums), and
// that a decoded message read through it (pbc/field.h) has libprotobuf's
// values, and one built through it libprotobuf's bytes.
#ifndef PBC_TEST_E2E_DESCRIPTION_CHECK_H
#define PBC_TEST_E2E_DESCRIPTION_CHECK_H

#include <string>

#include <google/protobuf/message.h>

#include "pbc/pbc.h"

namespace pbc_test {

// Whether `info`'s description says what `d` does, and so do those of the
// messages and enums it links to, recursively. `optimize_for` is what the
// library was compiled with (pbc compile --optimize-for; empty: each file's
// option), which says whose descriptions leave names out (LITE_RUNTIME).
// A linked description must be the one its message's info points to, the
// info `find` (with `find_ctx`) finds by name: pbc_find_message when it is
// NULL. On a mismatch, `why` says where and what.
bool DescriptionMatches(const google::protobuf::Descriptor *d,
                        const pbc_message_info *info,
                        const std::string &optimize_for, std::string *why,
                        pbc_message_finder find = nullptr,
                        const void *find_ctx = nullptr);

// Whether the struct `m` (of `info`'s message, decoded by pbc) holds the
// values of `lib`, reading every field through the description alone:
// presence, scalars, strings, repeated elements, oneofs, sub-messages and
// map entries (as sets; lib's unknown fields and extensions are not read).
bool DecodedMatches(const google::protobuf::Message &lib,
                    const pbc_message_info *info, const void *m,
                    std::string *why);

// libprotobuf's deterministic serialization (partial: no required-field
// check): map entries sorted by key.
std::string Det(const google::protobuf::Message &m);

// Whether `lib`'s fields (not its extensions or unknown fields), set into a
// new struct of `info`'s message through pbc/field.h's setters (and one
// cleared, as ClearField, when `pick` says so), read back through its
// getters as libprotobuf's, and encode to bytes libprotobuf parses back
// into the same message (compared deterministically serialized).
bool BuiltMatches(const google::protobuf::Message &lib, const pbc_message_info *info,
                  uint64_t pick, std::string *why);

} // namespace pbc_test

#endif // PBC_TEST_E2E_DESCRIPTION_CHECK_H
