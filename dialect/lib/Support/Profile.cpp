//===- Profile.cpp - recording sample payloads, and the profile file ------===//
#include "pbc/Support/Profile.h"

#include "pbc/Dialect/Proto/FieldTypes.h"
#include "pbc/Dialect/Proto/ProtoOps.h"
#include "pbc/pbc.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <vector>

using namespace mlir;
using namespace pbc;
using namespace pbc::proto;
using llvm::Error;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// The file
//===----------------------------------------------------------------------===//

static constexpr StringRef kMagic = "pbc-profile 1";

void Profile::print(llvm::raw_ostream &os) const {
  os << kMagic << "\n";
  for (const auto &[name, root] : roots)
    os << "root " << name << " payloads " << root.payloads << " bytes "
       << root.bytes << "\n";
  // Hottest first, so the file reads as a ranking; ties by name.
  std::vector<const std::pair<const std::string, MessageProfile> *> order;
  for (const auto &entry : messages)
    order.push_back(&entry);
  std::stable_sort(order.begin(), order.end(), [](auto *a, auto *b) {
    return a->second.reads > b->second.reads;
  });
  for (const auto *entry : order) {
    const MessageProfile &m = entry->second;
    os << "message " << entry->first << " instances " << m.instances
       << " reads " << m.reads << "\n";
    for (const auto &[number, field] : m.fields) {
      os << "field " << number << " count " << field.count;
      if (!field.next.empty()) {
        os << " next";
        for (const auto &[next, count] : field.next)
          os << " " << next << ":" << count;
      }
      os << "\n";
    }
  }
}

namespace {

/// Reads the file line by line; every error says `name:line: what`.
class ProfileParser {
public:
  ProfileParser(StringRef text, StringRef name) : rest(text), name(name) {}

  llvm::Expected<Profile> parse() {
    Profile p;
    if (!nextLine() || line != kMagic)
      return fail("not a pbc profile (its first line is not '" + kMagic +
                  "')");
    MessageProfile *message = nullptr;
    while (nextLine()) {
      if (line.empty())
        continue;
      StringRef kind;
      word(kind);
      if (kind == "root") {
        std::string name;
        RootProfile root;
        if (message)
          return fail("a root after the messages");
        if (!word(name) || !expectWord("payloads") ||
            !number(root.payloads) || !expectWord("bytes") ||
            !number(root.bytes) || !atEnd())
          return fail("expected 'root NAME payloads N bytes N'");
        if (!p.roots.emplace(name, root).second)
          return fail("root " + name + " is listed twice");
      } else if (kind == "message") {
        if (p.roots.empty())
          return fail("a message before any root");
        std::string full;
        MessageProfile m;
        if (!word(full) || !expectWord("instances") || !number(m.instances) ||
            !expectWord("reads") || !number(m.reads) || !atEnd())
          return fail("expected 'message NAME instances N reads N'");
        auto [it, fresh] = p.messages.emplace(full, std::move(m));
        if (!fresh)
          return fail("message " + full + " is listed twice");
        message = &it->second;
      } else if (kind == "field") {
        if (!message)
          return fail("a field before any message");
        uint64_t numberValue;
        FieldProfile f;
        if (!number(numberValue) || numberValue == 0 ||
            numberValue > PBC_MAX_FIELD_NUMBER || !expectWord("count") ||
            !number(f.count))
          return fail("expected 'field NUMBER count N [next N:C...]'");
        if (!atEnd()) {
          if (!expectWord("next"))
            return fail("expected 'next' after the count");
          while (!atEnd()) {
            StringRef pair, left, right;
            word(pair);
            std::tie(left, right) = pair.split(':');
            uint64_t next, count;
            if (left.getAsInteger(10, next) || right.getAsInteger(10, count) ||
                next > PBC_MAX_FIELD_NUMBER)
              return fail("expected NUMBER:COUNT, not '" + pair + "'");
            f.next[static_cast<uint32_t>(next)] += count;
          }
        }
        if (!message->fields.emplace(static_cast<uint32_t>(numberValue), f)
                 .second)
          return fail("field " + llvm::Twine(numberValue) +
                      " is listed twice");
      } else {
        return fail("expected 'root', 'message' or 'field', not '" + kind +
                    "'");
      }
    }
    if (p.roots.empty())
      return fail("no 'root NAME payloads N bytes N' line");
    return p;
  }

private:
  bool nextLine() {
    if (rest.empty())
      return false;
    std::tie(line, rest) = rest.split('\n');
    line = line.trim();
    ++lineNumber;
    return true;
  }
  bool word(StringRef &out) {
    line = line.ltrim();
    size_t end = line.find_first_of(" \t");
    out = line.take_front(end);
    line = line.drop_front(out.size());
    return !out.empty();
  }
  bool word(std::string &out) {
    StringRef w;
    if (!word(w))
      return false;
    out = w.str();
    return true;
  }
  bool expectWord(StringRef expected) {
    StringRef w;
    return word(w) && w == expected;
  }
  bool number(uint64_t &out) {
    StringRef w;
    return word(w) && !w.getAsInteger(10, out);
  }
  bool atEnd() { return line.trim().empty(); }
  Error fail(const llvm::Twine &what) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   name + ":" + llvm::Twine(lineNumber) +
                                       ": " + what);
  }

  StringRef rest, line, name;
  unsigned lineNumber = 0;
};

} // namespace

llvm::Expected<Profile> Profile::parse(StringRef text, StringRef name) {
  return ProfileParser(text, name).parse();
}

//===----------------------------------------------------------------------===//
// Recording
//===----------------------------------------------------------------------===//

namespace {

/// The decoders' nesting limit.
constexpr int kMaxDepth = PBC_DEFAULT_MAX_DEPTH;

} // namespace

/// The schema as the walk reads it: messages by full name, fields by
/// number.
struct ProfileRecorder::Index {
  llvm::StringMap<MessageOp> messages;
  llvm::DenseMap<Operation *, llvm::DenseMap<uint32_t, FieldOp>> fields;

  explicit Index(ModuleOp schema) {
    for (MessageOp m : schema.getOps<MessageOp>()) {
      messages[m.getSymName()] = m;
      auto &byNumber = fields[m.getOperation()];
      for (FieldOp f : m.getFields())
        byNumber[f.getNumber()] = f;
    }
  }
};

namespace {

/// One payload's walk: the wire format read against the schema, each
/// message's tags counted into `out`, which the caller merges only when
/// the whole payload was well formed.
class Walker {
public:
  Walker(const ProfileRecorder::Index &index, const uint8_t *begin,
         Profile &out)
      : index(index), begin(begin), out(out) {}

  /// Reads the message's fields in [p, end), or up to the END_GROUP of
  /// field `group`; returns where it stopped.
  const uint8_t *message(MessageOp m, const uint8_t *p, const uint8_t *end,
                         int depth, uint32_t group) {
    if (depth > kMaxDepth)
      return fail(p, "nested more than 100 deep");
    MessageProfile &mp = out.messages[m.getSymName().str()];
    ++mp.instances;
    const llvm::DenseMap<uint32_t, FieldOp> &fields =
        index.fields.find(m.getOperation())->second;
    uint32_t previous = 0;
    while (p < end) {
      uint64_t tag;
      const uint8_t *at = p;
      if (!(p = varint(p, end, tag)))
        return nullptr;
      if (tag >> 32 || pbc_tag_field_number(static_cast<uint32_t>(tag)) == 0)
        return fail(at, "a field number of 0 or over 2^29");
      uint32_t number = pbc_tag_field_number(static_cast<uint32_t>(tag));
      pbc_wire_type wire = pbc_tag_wire_type(static_cast<uint32_t>(tag));
      if (wire == PBC_WIRE_END_GROUP) {
        if (number != group)
          return fail(at, "an END_GROUP that ends no group");
        ended(mp, previous);
        return p;
      }
      auto it = fields.find(number);
      if (it == fields.end() || !accepts(it->second, wire)) {
        // An unknown field, as a decoder sees it: read past, not counted.
        if (!(p = skip(p, end, number, wire, depth)))
          return nullptr;
        continue;
      }
      ++mp.reads;
      ++mp.fields[number].count;
      if (previous)
        ++mp.fields[previous].next[number];
      previous = number;
      FieldOp field = it->second;
      MessageOp sub = field.isMessageLike() ? messageOf(field) : MessageOp();
      if (sub && wire == PBC_WIRE_LEN) {
        uint64_t size;
        if (!(p = varint(p, end, size)))
          return nullptr;
        if (size > static_cast<uint64_t>(end - p))
          return fail(p, "a length past the end of its message");
        if (!message(sub, p, p + size, depth + 1, 0))
          return nullptr;
        p += size;
      } else if (sub && wire == PBC_WIRE_START_GROUP) {
        if (!(p = message(sub, p, end, depth + 1, number)))
          return nullptr;
      } else if (!(p = skip(p, end, number, wire, depth))) {
        return nullptr;
      }
    }
    if (group)
      return fail(p, "a group without its END_GROUP");
    ended(mp, previous);
    return p;
  }

  std::string error;

private:
  /// Whether a decoder reads a value of wire type `wire` as `field`: its
  /// own wire type, or a packed run of a repeated scalar.
  static bool accepts(FieldOp field, pbc_wire_type wire) {
    const FieldTypeInfo &type = fieldTypeInfo(field.getType());
    return wire == type.wireType ||
           (wire == PBC_WIRE_LEN && field.isRepeated() && type.isPackable());
  }

  static void ended(MessageProfile &mp, uint32_t previous) {
    if (previous)
      ++mp.fields[previous].next[0];
  }

  const uint8_t *varint(const uint8_t *p, const uint8_t *end, uint64_t &v) {
    v = 0;
    for (int i = 0, shift = 0; i < PBC_MAX_VARINT_BYTES; i++, shift += 7) {
      if (p == end)
        return fail(p, "a varint cut short by the end");
      uint8_t byte = *p++;
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80))
        return p;
    }
    return fail(p, "a varint of more than 10 bytes");
  }

  /// Reads past one value of wire type `wire` (a group: to its END_GROUP).
  const uint8_t *skip(const uint8_t *p, const uint8_t *end, uint32_t number,
                      pbc_wire_type wire, int depth) {
    uint64_t v;
    switch (wire) {
    case PBC_WIRE_VARINT:
      return varint(p, end, v);
    case PBC_WIRE_FIXED64:
    case PBC_WIRE_FIXED32: {
      size_t n = wire == PBC_WIRE_FIXED64 ? 8 : 4;
      if (static_cast<size_t>(end - p) < n)
        return fail(p, "a fixed-width value cut short by the end");
      return p + n;
    }
    case PBC_WIRE_LEN:
      if (!(p = varint(p, end, v)))
        return nullptr;
      if (v > static_cast<uint64_t>(end - p))
        return fail(p, "a length past the end of its message");
      return p + v;
    case PBC_WIRE_START_GROUP:
      if (depth >= kMaxDepth)
        return fail(p, "nested more than 100 deep");
      while (true) {
        uint64_t tag;
        const uint8_t *at = p;
        if (p == end)
          return fail(p, "a group without its END_GROUP");
        if (!(p = varint(p, end, tag)))
          return nullptr;
        if (tag >> 32)
          return fail(at, "a field number over 2^29");
        uint32_t inner = pbc_tag_field_number(static_cast<uint32_t>(tag));
        pbc_wire_type innerWire = pbc_tag_wire_type(static_cast<uint32_t>(tag));
        if (innerWire == PBC_WIRE_END_GROUP) {
          if (inner != number)
            return fail(at, "an END_GROUP that ends no group");
          return p;
        }
        if (!(p = skip(p, end, inner, innerWire, depth + 1)))
          return nullptr;
      }
    default:
      return fail(p, "wire type " + std::to_string(wire));
    }
  }

  MessageOp messageOf(FieldOp field) {
    std::optional<StringRef> type = field.getTypeName();
    return type ? index.messages.lookup(*type) : MessageOp();
  }

  const uint8_t *fail(const uint8_t *at, const std::string &what) {
    if (error.empty())
      error = "byte " + std::to_string(at - begin) + ": " + what;
    return nullptr;
  }

  const ProfileRecorder::Index &index;
  const uint8_t *begin;
  Profile &out;
};

} // namespace

ProfileRecorder::ProfileRecorder(ModuleOp schema)
    : index(std::make_unique<Index>(schema)) {}
ProfileRecorder::~ProfileRecorder() = default;
ProfileRecorder::ProfileRecorder(ProfileRecorder &&) = default;

bool ProfileRecorder::hasMessage(StringRef name) const {
  return index->messages.count(name);
}

Error ProfileRecorder::add(StringRef root, StringRef payload) {
  assert(hasMessage(root) && "the caller checks the root");
  const auto *begin = reinterpret_cast<const uint8_t *>(payload.data());
  Profile one;
  Walker walker(*index, begin, one);
  if (!walker.message(index->messages.lookup(root), begin,
                      begin + payload.size(), 0, 0))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   walker.error);
  RootProfile &stats = result.roots[root.str()];
  ++stats.payloads;
  stats.bytes += payload.size();
  for (auto &[name, m] : one.messages) {
    MessageProfile &into = result.messages[name];
    into.instances += m.instances;
    into.reads += m.reads;
    for (auto &[number, f] : m.fields) {
      FieldProfile &fi = into.fields[number];
      fi.count += f.count;
      for (auto [next, count] : f.next)
        fi.next[next] += count;
    }
  }
  return Error::success();
}
