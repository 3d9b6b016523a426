// See description_check.h. Everything here reads pbc's structs through the
// description only (pbc/desc.h): no generated header, no offsets from
// elsewhere, which is what generic code (reflection, text, JSON, a table
// codec) will do.
#include "description_check.h"

#include "pbc/field.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

namespace gp = google::protobuf;
using gp::Descriptor;
using gp::FieldDescriptor;
using gp::Message;
using gp::Reflection;

namespace pbc_test {
namespace {

bool Proto2File(const gp::FileDescriptor *f) {
  return f->syntax() == gp::FileDescriptor::SYNTAX_PROTO2;
}

const char *Str(const pbc_message_desc *d, uint32_t offset) { return d->strings + offset; }

class StaticChecker {
 public:
  StaticChecker(const std::string &optimize_for, pbc_message_finder find,
                const void *find_ctx, std::string *why)
      : optimize_for_(optimize_for), find_(find), find_ctx_(find_ctx), why_(why) {}

  // The info record: its description, full name and size agree.
  bool Info(const Descriptor *d, const pbc_message_info *info) {
    where_ = d->full_name();
    const pbc_message_desc *m = info->desc;
    if (!m) return Fail("pbc_message_info.desc is NULL");
    if (d->full_name() != info->full_name) return Fail("full_name is " + std::string(info->full_name));
    if (m->size != info->struct_size) return Fail("size differs from struct_size");
    return Message(d, m);
  }

  // A description, and those it links to. Each is its message's info's
  // (found by the full name, the pool's first string), when that message
  // is linked into the program: what the difftest and the fuzzers link is.
  bool Message(const Descriptor *d, const pbc_message_desc *m) {
    if (!seen_.insert(m).second) return true;
    where_ = d->full_name();
    if (d->full_name() != m->strings) return Fail(std::string("the pool starts with ") + m->strings);
    const pbc_message_info *info =
        find_ ? find_(find_ctx_, m->strings) : pbc_find_message(m->strings);
    if (info && info->desc != m) return Fail("not the description its pbc_message_info points to");
    if (d->file()->name() != Str(m, m->file)) return Fail(std::string("file is ") + Str(m, m->file));
    if (m->syntax != (Proto2File(d->file()) ? 2 : 3)) return Fail("syntax");
    bool entry = d->options().map_entry();
    if (!!(m->flags & PBC_MESSAGE_MAP_ENTRY) != entry) return Fail("map-entry flag");
    if ((m->unknown_offset == PBC_NO_UNKNOWN_FIELDS) != entry)
      return Fail("unknown_offset (only map entries keep no unknown fields)");
    if (!entry && m->unknown_offset + PBC_VIEW_BYTES > m->size) return Fail("unknown_offset past the struct");
    if (static_cast<int>(m->field_count) != d->field_count())
      return Fail("field_count " + std::to_string(m->field_count) + ", libprotobuf has " +
                  std::to_string(d->field_count()));
    uint32_t dense = 0;
    while (dense < m->field_count && dense < 0xffff && m->fields[dense].number == dense + 1) dense++;
    if (m->dense_below != dense) return Fail("dense_below " + std::to_string(m->dense_below));
    if (static_cast<int>(m->oneof_count) != d->real_oneof_decl_count()) return Fail("oneof_count");
    // LITE_RUNTIME leaves the field and oneof names out, and only it.
    bool lite = optimize_for_.empty()
                    ? d->file()->options().optimize_for() == gp::FileOptions::LITE_RUNTIME
                    : optimize_for_ == "lite-runtime";
    if (!!(m->flags & PBC_MESSAGE_NO_NAMES) != lite) return Fail("no-names flag");
    if (lite && m->field_names) return Fail("a lite message's field_names is not NULL");
    for (uint32_t i = 0; i < m->oneof_count; i++) {
      if ((lite ? "" : d->oneof_decl(static_cast<int>(i))->name()) != Str(m, m->oneofs[i].name))
        return Fail("oneof " + std::to_string(i) + "'s name");
      if (m->oneofs[i].case_offset + 4 > m->size) return Fail("a oneof case past the struct");
    }
    std::set<uint32_t> bits;
    uint32_t with_default = 0;
    for (uint32_t i = 0; i < m->field_count; i++) {
      const pbc_field_desc &f = m->fields[i];
      if (i && f.number <= m->fields[i - 1].number) return Fail("fields not by ascending number");
      const FieldDescriptor *fd = d->FindFieldByNumber(static_cast<int>(f.number));
      if (!fd) return Fail("field " + std::to_string(f.number) + " is not libprotobuf's");
      where_ = fd->full_name();
      if (!Field(d, m, f, fd, &bits)) return false;
      if (!lite && fd->name() != Str(m, m->field_names[i].name)) return Fail("name");
      if (!lite && fd->json_name() != Str(m, m->field_names[i].json_name))
        return Fail(std::string("json_name is ") + Str(m, m->field_names[i].json_name));
      // The lookups (pbc/desc.h) find it by number, name and json_name (a
      // proto2 json_name two fields share: the first of them).
      if (pbc_field_by_number(m, f.number) != &f) return Fail("pbc_field_by_number");
      const pbc_field_desc *by_name =
          pbc_field_by_name(m, fd->name().data(), fd->name().size(), false);
      const pbc_field_desc *by_json =
          pbc_field_by_name(m, fd->json_name().data(), fd->json_name().size(), true);
      if (lite ? by_name || by_json || pbc_field_name(m, &f)
               : by_name != &f || !by_json ||
                     pbc_field_json_name(m, by_json) != fd->json_name() ||
                     pbc_field_name(m, &f) != fd->name())
        return Fail("pbc_field_by_name or pbc_field_name");
      if (pbc_field_message(m, &f) != (fd->message_type() ? m->links[f.link] : nullptr) ||
          pbc_field_enum(m, &f) != (fd->enum_type() ? m->links[f.link] : nullptr))
        return Fail("pbc_field_message or pbc_field_enum");
      with_default += (f.flags & PBC_FIELD_DEFAULT) != 0;
      where_ = d->full_name();
    }
    if (m->default_count != with_default) return Fail("default_count");
    for (uint32_t i = 0; i < m->default_count; i++)
      if (!Default(d, m, m->defaults[i])) return false;
    if (!Lookup(m) || !Checks(d, m) || !Visits(m) || !ByByte(m) || !Sizes(d, m) || !Tags(d, m) ||
        !ExtRanges(d, m) || (info && !Prototype(m, info)))
      return false;
    // Links last: they recurse.
    for (uint32_t i = 0; i < m->field_count; i++) {
      const FieldDescriptor *fd = d->FindFieldByNumber(static_cast<int>(m->fields[i].number));
      if (fd->message_type()) {
        if (!Message(fd->message_type(),
                     static_cast<const pbc_message_desc *>(m->links[m->fields[i].link])))
          return false;
      } else if (fd->enum_type()) {
        if (!Enum(fd->enum_type(), static_cast<const pbc_enum_info *>(m->links[m->fields[i].link])))
          return false;
      }
    }
    return true;
  }

 private:
  // The lookup: a power of two of entries, each field in the entry of its
  // number unless a lower number holds it, and no entry naming a field of
  // another entry.
  bool Lookup(const pbc_message_desc *m) {
    uint32_t entries = m->lookup_mask + 1u;
    if (!m->lookup || (entries & (entries - 1)) != 0) return Fail("lookup size");
    for (uint32_t e = 0; e < entries; e++) {
      uint32_t i = m->lookup[e];
      if (i != 0 && (i > m->field_count || (m->fields[i - 1].number & m->lookup_mask) != e))
        return Fail("lookup entry " + std::to_string(e));
    }
    for (uint32_t i = 0; i < m->field_count; i++) {
      uint32_t held = m->lookup[m->fields[i].number & m->lookup_mask];
      if (held == 0 || m->fields[held - 1].number > m->fields[i].number)
        return Fail("field " + std::to_string(m->fields[i].number) + " not in the lookup");
    }
    return true;
  }

  // Whether d or a message it can hold has a required field.
  static bool ReachesRequired(const Descriptor *d, std::set<const Descriptor *> *seen) {
    if (!seen->insert(d).second) return false;
    for (int i = 0; i < d->field_count(); i++) {
      const FieldDescriptor *fd = d->field(i);
      if (fd->is_required()) return true;
      if (fd->message_type() && ReachesRequired(fd->message_type(), seen)) return true;
    }
    return false;
  }

  // Whether d or a message it can hold is of a file other than `file`.
  static bool ReachesOtherFile(const Descriptor *d, const gp::FileDescriptor *file,
                          std::set<const Descriptor *> *seen) {
    if (!seen->insert(d).second) return false;
    if (d->file() != file) return true;
    for (int i = 0; i < d->field_count(); i++)
      if (d->field(i)->message_type() && ReachesOtherFile(d->field(i)->message_type(), file, seen))
        return true;
    return false;
  }

  // The checks: the required fields and the message fields whose messages
  // reach a required field, by ascending index; more message fields when
  // the compiler could not tell (another file's message, compiled into
  // another object).
  bool Checks(const Descriptor *d, const pbc_message_desc *m) {
    std::vector<uint16_t> have(m->checks, m->checks + m->check_count);
    for (uint32_t i = 0; i < m->field_count; i++) {
      const FieldDescriptor *fd = d->FindFieldByNumber(static_cast<int>(m->fields[i].number));
      std::set<const Descriptor *> seen;
      bool needed =
          fd->is_required() || (fd->message_type() && ReachesRequired(fd->message_type(), &seen));
      bool listed = std::find(have.begin(), have.end(), i) != have.end();
      std::set<const Descriptor *> reached;
      bool may = needed || (fd->message_type() && ReachesOtherFile(fd->message_type(), d->file(), &reached));
      if (needed != listed && !(listed && may))
        return Fail("checks " + List(have) + (listed ? " list " : " miss ") + "field " +
                    std::to_string(fd->number()));
    }
    if (!std::is_sorted(have.begin(), have.end())) return Fail("checks " + List(have) + " not sorted");
    return true;
  }

  // by_bit and others: every field once, BIT fields by their bit.
  bool Visits(const pbc_message_desc *m) {
    std::vector<uint16_t> by_bit, others;
    for (uint32_t i = 0; i < m->field_count; i++) {
      const pbc_field_desc &f = m->fields[i];
      if (f.kind != PBC_FIELD_BIT) {
        others.push_back(static_cast<uint16_t>(i));
        continue;
      }
      if (f.presence >= by_bit.size()) by_bit.resize(f.presence + 1u, PBC_NO_FIELD);
      by_bit[f.presence] = static_cast<uint16_t>(i);
    }
    if (m->bit_count != by_bit.size() || m->bit_count > m->presence_words * 32u ||
        (!by_bit.empty() && memcmp(m->by_bit, by_bit.data(), by_bit.size() * 2) != 0))
      return Fail("by_bit");
    if (m->other_count != others.size() ||
        (!others.empty() && memcmp(m->others, others.data(), others.size() * 2) != 0))
      return Fail("others");
    return true;
  }

  // by_byte: present exactly when the fields allow it (pbc_has_by_byte);
  // then each field's presence bytes, inside the struct and apart from
  // every other field's, name it (its index plus one), every other byte 0.
  bool ByByte(const pbc_message_desc *m) {
    bool want = pbc_has_by_byte(m->fields, m->field_count, m->size);
    if (want != (m->by_byte != nullptr)) return Fail(want ? "by_byte missing" : "by_byte present");
    if (!want) return true;
    std::vector<uint8_t> expect(m->size, 0);
    for (uint32_t i = 0; i < m->field_count; i++) {
      uint32_t at, n = pbc_presence_bytes(&m->fields[i], &at);
      if (n == 0 || at + n > m->size) return Fail("by_byte: field " + std::to_string(i));
      for (uint32_t k = at; k < at + n; k++) {
        if (expect[k] != 0) return Fail("by_byte: byte " + std::to_string(k) + " of two fields");
        expect[k] = static_cast<uint8_t>(i + 1);
      }
    }
    if (memcmp(m->by_byte, expect.data(), m->size) != 0) return Fail("by_byte");
    return true;
  }

  // sizes: over the presence bits, or with by_byte over the fields, else
  // NULL. A slot's field (by_byte: an implicit one) is in its rule's mask
  // (by libprotobuf's type), in SIZED, and in RARE for uint32, sint32 and
  // sint64; its record is its offset and the bytes libprotobuf counts for
  // it whatever its value: the tag's (TagSize), a fixed width's.
  bool Sizes(const Descriptor *d, const pbc_message_desc *m) {
    using google::protobuf::internal::WireFormatLite;
    uint32_t slots = m->bit_count ? m->bit_count : m->by_byte ? m->field_count : 0;
    if ((slots == 0) != (m->sizes == nullptr)) return Fail("sizes (NULL)");
    uint32_t groups = (slots + 31) / 32;
    std::vector<uint32_t> want(groups * PBC_SIZE_MASKS + slots, 0);
    for (uint32_t i = 0; i < slots; i++) {
      uint32_t index = m->bit_count ? m->by_bit[i] : i;
      if (index == PBC_NO_FIELD) continue;
      const pbc_field_desc &f = m->fields[index];
      if (!m->bit_count && f.kind != PBC_FIELD_IMPLICIT) continue;
      const FieldDescriptor *fd = d->FindFieldByNumber(static_cast<int>(f.number));
      if (!fd) return Fail("sizes (no field " + std::to_string(f.number) + ")");
      auto type = static_cast<WireFormatLite::FieldType>(fd->type());
      uint32_t rule = PBC_SIZE_FIXED, bytes = static_cast<uint32_t>(
                                          WireFormatLite::TagSize(fd->number(), type));
      switch (fd->type()) {
      case FieldDescriptor::TYPE_INT32: case FieldDescriptor::TYPE_ENUM: rule = PBC_SIZE_INT32; break;
      case FieldDescriptor::TYPE_INT64: case FieldDescriptor::TYPE_UINT64: rule = PBC_SIZE_VARINT64; break;
      case FieldDescriptor::TYPE_STRING: case FieldDescriptor::TYPE_BYTES: rule = PBC_SIZE_VIEW; break;
      case FieldDescriptor::TYPE_UINT32: rule = PBC_SIZE_UINT32; break;
      case FieldDescriptor::TYPE_SINT32: rule = PBC_SIZE_SINT32; break;
      case FieldDescriptor::TYPE_SINT64: rule = PBC_SIZE_SINT64; break;
      case FieldDescriptor::TYPE_BOOL: bytes += WireFormatLite::kBoolSize; break;
      case FieldDescriptor::TYPE_FIXED32: case FieldDescriptor::TYPE_SFIXED32:
      case FieldDescriptor::TYPE_FLOAT: bytes += WireFormatLite::kFixed32Size; break;
      case FieldDescriptor::TYPE_FIXED64: case FieldDescriptor::TYPE_SFIXED64:
      case FieldDescriptor::TYPE_DOUBLE: bytes += WireFormatLite::kFixed64Size; break;
      default: return Fail("sizes: field " + std::to_string(f.number) + " is not a scalar");
      }
      uint32_t *masks = &want[i / 32 * PBC_SIZE_MASKS], bit = 1u << (i % 32);
      masks[rule] |= bit;
      masks[PBC_SIZE_SIZED] |= bit;
      if (rule == PBC_SIZE_UINT32 || rule == PBC_SIZE_SINT32 || rule == PBC_SIZE_SINT64)
        masks[PBC_SIZE_RARE] |= bit;
      want[groups * PBC_SIZE_MASKS + i] = f.offset << 4 | bytes;
    }
    if (slots && memcmp(m->sizes, want.data(), want.size() * 4) != 0) return Fail("sizes");
    return true;
  }

  // The tags: each field's as libprotobuf writes it (coded_stream's varint
  // of WireFormatLite's tag: LEN for a packed field), ending its word,
  // with its byte count in the first byte.
  bool Tags(const Descriptor *d, const pbc_message_desc *m) {
    using google::protobuf::internal::WireFormatLite;
    if ((m->field_count == 0) != (m->tags == nullptr)) return Fail("tags (NULL)");
    for (uint32_t i = 0; i < m->field_count; i++) {
      const FieldDescriptor *fd = d->FindFieldByNumber(static_cast<int>(m->fields[i].number));
      if (!fd) return Fail("tags (no field " + std::to_string(m->fields[i].number) + ")");
      WireFormatLite::WireType wt =
          fd->is_packed() ? WireFormatLite::WIRETYPE_LENGTH_DELIMITED
                          : WireFormatLite::WireTypeForFieldType(
                                static_cast<WireFormatLite::FieldType>(fd->type()));
      uint8_t tag[8] = {};
      uint8_t *end = google::protobuf::io::CodedOutputStream::WriteVarint32ToArray(
          WireFormatLite::MakeTag(fd->number(), wt), tag);
      size_t n = static_cast<size_t>(end - tag);
      uint8_t word[8] = {static_cast<uint8_t>(n)};
      memcpy(word + 8 - n, tag, n);
      uint64_t want = 0;
      for (int k = 7; k >= 0; k--) want = want << 8 | word[k];
      if (m->tags[i] != want) return Fail("tag of field " + std::to_string(fd->number()));
    }
    return true;
  }

  // The extension ranges: descriptor.cc's, sorted by start; and the
  // extensions the description lists (a loaded schema's) are d's.
  bool ExtRanges(const Descriptor *d, const pbc_message_desc *m) {
    std::vector<std::pair<int, int>> want;
    for (int i = 0; i < d->extension_range_count(); i++)
      want.push_back({d->extension_range(i)->start, d->extension_range(i)->end});
    std::sort(want.begin(), want.end());
    if (m->ext_range_count != want.size() || (want.empty() != (m->ext_ranges == nullptr)))
      return Fail("ext_range_count " + std::to_string(m->ext_range_count));
    for (size_t i = 0; i < want.size(); i++)
      if (m->ext_ranges[2 * i] != static_cast<uint32_t>(want[i].first) ||
          m->ext_ranges[2 * i + 1] != static_cast<uint32_t>(want[i].second))
        return Fail("ext_ranges[" + std::to_string(i) + "]");
    for (size_t i = 0; m->extensions && m->extensions[i]; i++) {
      const pbc_extension_info *e = m->extensions[i];
      const gp::FieldDescriptor *fd =
          d->file()->pool()->FindExtensionByNumber(d, static_cast<int>(e->number));
      if (e->extendee != m || !fd || fd->full_name() != e->full_name)
        return Fail(std::string("extensions lists ") + e->full_name);
    }
    return true;
  }

  // The prototype is what the message's T_init makes (zeros without one).
  bool Prototype(const pbc_message_desc *m, const pbc_message_info *info) {
    std::vector<uint8_t> made(m->size, 0xa5), want(m->size, 0);
    pbc_message_init(info, made.data());
    if (m->prototype) memcpy(want.data(), m->prototype, m->size);
    if (made != want) return Fail(m->prototype ? "prototype differs from T_init" : "no prototype, T_init stores defaults");
    return true;
  }

  bool Field(const Descriptor *d, const pbc_message_desc *m, const pbc_field_desc &f,
             const FieldDescriptor *fd, std::set<uint32_t> *bits) {
    if (f.type != static_cast<uint8_t>(fd->type())) return Fail("type " + std::to_string(f.type));
    uint8_t kind;
    if (fd->is_repeated()) kind = PBC_FIELD_REPEATED;
    else if (fd->real_containing_oneof()) kind = PBC_FIELD_ONEOF;
    else if (fd->message_type()) kind = PBC_FIELD_POINTER;
    else if (d->options().map_entry()) kind = PBC_FIELD_ALWAYS;
    else if (fd->has_presence()) kind = PBC_FIELD_BIT;
    else kind = PBC_FIELD_IMPLICIT;
    if (f.kind != kind) return Fail("kind " + std::to_string(f.kind) + ", want " + std::to_string(kind));
    if (kind == PBC_FIELD_ONEOF && f.presence != fd->real_containing_oneof()->index())
      return Fail("oneof index");
    if (kind == PBC_FIELD_BIT) {
      if (f.presence >= m->presence_words * 32u) return Fail("presence bit past _presence");
      if (!bits->insert(f.presence).second) return Fail("presence bit shared");
    }
    size_t bytes = kind == PBC_FIELD_REPEATED ? PBC_VIEW_BYTES
                   : fd->message_type()       ? sizeof(void *)
                                              : pbc_field_value_bytes(m, &f);
    if (f.offset < m->presence_words * 4u || f.offset + bytes > m->size)
      return Fail("offset " + std::to_string(f.offset) + " outside the fields");
    auto flag = [&](int bit, bool want, const char *what) {
      return !!(f.flags & bit) == want || Fail(std::string(what) + " flag");
    };
    bool proto2_enum = fd->enum_type() && Proto2File(fd->enum_type()->file());
    bool has_default = Proto2File(fd->file()) && !fd->is_repeated() && !fd->message_type() &&
                       (fd->has_default_value() ||
                        (fd->enum_type() && fd->default_value_enum()->number() != 0));
    return flag(PBC_FIELD_PACKED, fd->is_packed(), "packed") &&
           flag(PBC_FIELD_UTF8, fd->type() == FieldDescriptor::TYPE_STRING && !Proto2File(fd->file()),
                "utf8") &&
           flag(PBC_FIELD_CLOSED_ENUM, proto2_enum, "closed enum") &&
           flag(PBC_FIELD_REQUIRED, fd->is_required(), "required") &&
           flag(PBC_FIELD_MAP, fd->is_map(), "map") &&
           flag(PBC_FIELD_DEFAULT, has_default, "default") &&
           // An implicit field's zero test names its member's width (a view's 16).
           (f.zero_test == (kind == PBC_FIELD_IMPLICIT ? bytes : 0) || Fail("zero test"));
  }

  bool Default(const Descriptor *d, const pbc_message_desc *m, const pbc_default &def) {
    if (def.field >= m->field_count || !(m->fields[def.field].flags & PBC_FIELD_DEFAULT))
      return Fail("a default for a field without one");
    const FieldDescriptor *fd = d->FindFieldByNumber(static_cast<int>(m->fields[def.field].number));
    where_ = fd->full_name();
    uint64_t want = 0;
    switch (fd->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32: want = static_cast<uint32_t>(fd->default_value_int32()); break;
      case FieldDescriptor::CPPTYPE_INT64: want = static_cast<uint64_t>(fd->default_value_int64()); break;
      case FieldDescriptor::CPPTYPE_UINT32: want = fd->default_value_uint32(); break;
      case FieldDescriptor::CPPTYPE_UINT64: want = fd->default_value_uint64(); break;
      case FieldDescriptor::CPPTYPE_BOOL: want = fd->default_value_bool(); break;
      case FieldDescriptor::CPPTYPE_ENUM:
        want = static_cast<uint32_t>(fd->default_value_enum()->number());
        break;
      case FieldDescriptor::CPPTYPE_FLOAT: {
        float v = fd->default_value_float();
        uint32_t bits;
        memcpy(&bits, &v, 4);
        want = bits;
        break;
      }
      case FieldDescriptor::CPPTYPE_DOUBLE: {
        double v = fd->default_value_double();
        memcpy(&want, &v, 8);
        break;
      }
      case FieldDescriptor::CPPTYPE_STRING: {
        const std::string &s = fd->default_value_string();
        if (def.size != s.size() || memcmp(Str(m, static_cast<uint32_t>(def.value)), s.data(), s.size()))
          return Fail("string default");
        where_ = d->full_name();
        return true;
      }
      default:
        return Fail("a default on a message field");
    }
    if (def.value != want) return Fail("default value " + std::to_string(def.value));
    where_ = d->full_name();
    return true;
  }

  bool Enum(const gp::EnumDescriptor *e, const pbc_enum_info *info) {
    if (!seen_.insert(info).second) return true;
    where_ = e->full_name();
    if (e->full_name() != info->full_name) return Fail("enum full_name");
    if (!!(info->flags & PBC_ENUM_CLOSED) != Proto2File(e->file())) return Fail("closed flag");
    std::vector<const gp::EnumValueDescriptor *> values;
    for (int i = 0; i < e->value_count(); i++) values.push_back(e->value(i));
    std::stable_sort(values.begin(), values.end(),
                     [](auto *a, auto *b) { return a->number() < b->number(); });
    if (info->value_count != values.size()) return Fail("value_count");
    for (size_t i = 0; i < values.size(); i++)
      if (info->values[i].number != values[i]->number() ||
          values[i]->name() != info->strings + info->values[i].name)
        return Fail("value " + std::to_string(i) + " is " + (info->strings + info->values[i].name));
    // The lookups: a name gives its number; a number the name of its first
    // declared value, as FindValueByNumber does.
    for (int i = 0; i < e->value_count(); i++) {
      const gp::EnumValueDescriptor *v = e->value(i);
      int32_t number = 0;
      const char *name = pbc_enum_value_name(info, v->number());
      if (!pbc_enum_value_by_name(info, v->name().data(), v->name().size(), &number) ||
          number != v->number() || !name ||
          e->FindValueByNumber(v->number())->name() != name)
        return Fail("pbc_enum_value_by_name or pbc_enum_value_name for " + v->name());
    }
    int32_t unused;
    if (pbc_enum_value_by_name(info, "", 0, &unused)) return Fail("an enum value named \"\"");
    return true;
  }

  static std::string List(const std::vector<uint16_t> &v) {
    std::string s = "[";
    for (uint16_t x : v) s += (s.size() > 1 ? " " : "") + std::to_string(x);
    return s + "]";
  }

  bool Fail(const std::string &what) {
    *why_ = where_ + ": description: " + what;
    return false;
  }

  const std::string &optimize_for_;
  pbc_message_finder find_;
  const void *find_ctx_;
  std::string *why_;
  std::string where_;
  std::set<const void *> seen_;
};

// --- Reading a struct through the field API (pbc/field.h) -----------------

class DynamicChecker {
 public:
  explicit DynamicChecker(std::string *why) : why_(why) {}

  bool Message(const gp::Message &lib, const pbc_message_desc *desc, const void *m) {
    const Descriptor *d = lib.GetDescriptor();
    const Reflection *R = lib.GetReflection();
    for (uint32_t i = 0; i < desc->field_count; i++) {
      const pbc_field_desc &f = desc->fields[i];
      const FieldDescriptor *fd = d->FindFieldByNumber(static_cast<int>(f.number));
      path_.push_back(fd->name());
      if (!Field(lib, R, fd, desc, f, m)) return false;
      path_.pop_back();
    }
    for (uint32_t i = 0; i < desc->oneof_count; i++) {
      const FieldDescriptor *want = R->GetOneofFieldDescriptor(lib, d->oneof_decl(static_cast<int>(i)));
      const pbc_field_desc *got = pbc_oneof_field(desc, i, m);
      if ((want ? want->number() : 0) != (got ? static_cast<int>(got->number) : 0))
        return Fail("oneof " + d->oneof_decl(static_cast<int>(i))->name() + " holds " +
                    std::to_string(got ? got->number : 0) + ", libprotobuf's " +
                    std::to_string(want ? want->number() : 0));
    }
    return true;
  }

 private:
  bool Field(const gp::Message &lib, const Reflection *R, const FieldDescriptor *fd,
             const pbc_message_desc *d, const pbc_field_desc &f, const void *m) {
    if (f.kind == PBC_FIELD_REPEATED) {
      size_t n = pbc_field_size(d, &f, m);
      if (n != static_cast<size_t>(R->FieldSize(lib, fd)))
        return Fail(std::to_string(n) + " elements, libprotobuf has " +
                    std::to_string(R->FieldSize(lib, fd)));
      if (pbc_field_has(d, &f, m) != (n != 0)) return Fail("has differs from size");
      if (f.flags & PBC_FIELD_MAP) return Map(lib, R, fd, d, f, m, n);
      for (size_t i = 0; i < n; i++) {
        path_.push_back("[" + std::to_string(i) + "]");
        if (!Value(lib, R, fd, static_cast<int>(i), d, f, pbc_field_get_at(d, &f, m, i)))
          return false;
        path_.pop_back();
      }
      return true;
    }
    bool present = pbc_field_has(d, &f, m);
    bool is_message = f.type == PBC_TYPE_MESSAGE || f.type == PBC_TYPE_GROUP;
    bool lib_present = R->HasField(lib, fd);
    if (f.kind != PBC_FIELD_ALWAYS && present != lib_present)
      return Fail(std::string("present: pbc ") + (present ? "yes" : "no") + ", libprotobuf " +
                  (lib_present ? "yes" : "no"));
    pbc_value v = pbc_field_get(d, &f, m);
    if (is_message) {
      if (!present) return v.message == nullptr || Fail("an unset message is not NULL");
      if (!v.message) {  // an entry's absent value: libprotobuf's is empty
        if (R->GetMessage(lib, fd).ByteSizeLong() != 0) return Fail("absent value, libprotobuf's is not empty");
        return true;
      }
      return Message(R->GetMessage(lib, fd), pbc_field_message(d, &f), v.message);
    }
    // Unset: libprotobuf's getter gives the default, and so must pbc's.
    return Value(lib, R, fd, -1, d, f, v);
  }

  // One value: singular (index < 0) or element `index`.
  bool Value(const gp::Message &lib, const Reflection *R, const FieldDescriptor *fd, int index,
             const pbc_message_desc *d, const pbc_field_desc &f, pbc_value v) {
    bool rep = index >= 0;
    switch (fd->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        return Same(v.i32, rep ? R->GetRepeatedInt32(lib, fd, index) : R->GetInt32(lib, fd));
      case FieldDescriptor::CPPTYPE_INT64:
        return Same(v.i64, rep ? R->GetRepeatedInt64(lib, fd, index) : R->GetInt64(lib, fd));
      case FieldDescriptor::CPPTYPE_UINT32:
        return Same(v.u32, rep ? R->GetRepeatedUInt32(lib, fd, index) : R->GetUInt32(lib, fd));
      case FieldDescriptor::CPPTYPE_UINT64:
        return Same(v.u64, rep ? R->GetRepeatedUInt64(lib, fd, index) : R->GetUInt64(lib, fd));
      case FieldDescriptor::CPPTYPE_BOOL:
        return Same(v.b, rep ? R->GetRepeatedBool(lib, fd, index) : R->GetBool(lib, fd));
      case FieldDescriptor::CPPTYPE_FLOAT: {
        float b = rep ? R->GetRepeatedFloat(lib, fd, index) : R->GetFloat(lib, fd);
        return memcmp(&v.f, &b, 4) == 0 || Fail("float " + std::to_string(v.f) + " != " + std::to_string(b));
      }
      case FieldDescriptor::CPPTYPE_DOUBLE: {
        double b = rep ? R->GetRepeatedDouble(lib, fd, index) : R->GetDouble(lib, fd);
        return memcmp(&v.d, &b, 8) == 0 || Fail("double " + std::to_string(v.d) + " != " + std::to_string(b));
      }
      case FieldDescriptor::CPPTYPE_ENUM: {
        int want = rep ? R->GetRepeatedEnumValue(lib, fd, index) : R->GetEnumValue(lib, fd);
        if (v.i32 != want) return Same(v.i32, want);
        // The name through the enum's own record, as text and JSON will.
        const gp::EnumValueDescriptor *ev = fd->enum_type()->FindValueByNumber(v.i32);
        const char *name = pbc_enum_value_name(pbc_field_enum(d, &f), v.i32);
        if ((ev == nullptr) != (name == nullptr) || (ev && ev->name() != name))
          return Fail(std::string("enum value ") + std::to_string(v.i32) + " named " +
                      (name ? name : "(none)") + ", libprotobuf: " + (ev ? ev->name() : "(none)"));
        return true;
      }
      case FieldDescriptor::CPPTYPE_STRING: {
        std::string scratch;
        const std::string &want =
            rep ? R->GetRepeatedStringReference(lib, fd, index, &scratch)
                : R->GetStringReference(lib, fd, &scratch);
        if (v.bytes.size != want.size() ||
            (v.bytes.size && memcmp(v.bytes.data, want.data(), v.bytes.size)))
          return Fail("string of " + std::to_string(v.bytes.size) + " bytes differs (libprotobuf: " +
                      std::to_string(want.size()) + ")");
        return true;
      }
      case FieldDescriptor::CPPTYPE_MESSAGE:
        return Message(R->GetRepeatedMessage(lib, fd, index), pbc_field_message(d, &f), v.message);
    }
    return Fail("unknown cpp type");
  }

  // Map entries as a set: each of pbc's entries is libprotobuf's entry of
  // its key (a decode of canonical bytes has no repeated keys; the counts
  // were compared).
  bool Map(const gp::Message &lib, const Reflection *R, const FieldDescriptor *fd,
           const pbc_message_desc *d, const pbc_field_desc &f, const void *m, size_t n) {
    const pbc_message_desc *entry = pbc_field_message(d, &f);
    for (size_t i = 0; i < n; i++) {
      const void *p = pbc_field_get_at(d, &f, m, i).message;
      const gp::Message *match = nullptr;
      for (int j = 0; j < R->FieldSize(lib, fd) && !match; j++) {
        const gp::Message &e = R->GetRepeatedMessage(lib, fd, j);
        std::string ignored;
        if (DynamicChecker(&ignored).KeyMatches(e, entry, p)) match = &e;
      }
      if (!match) return Fail("map entry " + std::to_string(i) + "'s key is not libprotobuf's");
      path_.push_back("{entry " + std::to_string(i) + "}");
      if (!Message(*match, entry, p)) return false;
      path_.pop_back();
    }
    return true;
  }

  bool KeyMatches(const gp::Message &lib_entry, const pbc_message_desc *ed, const void *p) {
    const FieldDescriptor *key_fd = lib_entry.GetDescriptor()->map_key();
    return Value(lib_entry, lib_entry.GetReflection(), key_fd, -1, ed, ed->fields[0],
                 pbc_field_get(ed, &ed->fields[0], p));
  }

  template <typename T>
  bool Same(T a, T b) {
    return a == b || Fail(std::to_string(a) + " != libprotobuf's " + std::to_string(b));
  }

  bool Fail(const std::string &what) {
    std::string p;
    for (const std::string &s : path_) p += (p.empty() || s[0] == '[' || s[0] == '{' ? "" : ".") + s;
    *why_ = "read through pbc/field.h, " + p + ": " + what;
    return false;
  }

  std::string *why_;
  std::vector<std::string> path_;
};

// --- Building a struct through the field API -----------------------------

// Sets every field a libprotobuf message has (not its extensions or unknown
// fields) into a pbc struct through pbc/field.h's setters: singular values
// by pbc_field_set, sub-messages by pbc_field_mutable_message, elements by
// pbc_field_add; every other repeated element is first added as a zero and
// then written by pbc_field_set_at (a message element: one built on its
// own and copied in), so that both are tested.
class Builder {
 public:
  explicit Builder(pbc_arena *arena) : arena_(arena) {}

  bool Message(const gp::Message &lib, const pbc_message_desc *d, void *m) {
    const Reflection *R = lib.GetReflection();
    std::vector<const FieldDescriptor *> fields;
    R->ListFields(lib, &fields);
    for (const FieldDescriptor *fd : fields) {
      if (fd->is_extension()) continue;
      const pbc_field_desc *f = pbc_field_by_number(d, static_cast<uint32_t>(fd->number()));
      bool is_message = fd->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
      if (!fd->is_repeated()) {
        if (!is_message) {
          pbc_field_set(d, f, m, Value(lib, R, fd, -1));
          continue;
        }
        void *sub = pbc_field_mutable_message(d, f, m, arena_);
        if (!sub || !Message(R->GetMessage(lib, fd), pbc_field_message(d, f), sub)) return false;
        continue;
      }
      for (int i = 0; i < R->FieldSize(lib, fd); i++) {
        bool later = i % 2 == 1;
        pbc_value zero;
        memset(&zero, 0, sizeof zero);
        if (!is_message) {
          if (!pbc_field_add(d, f, m, later ? zero : Value(lib, R, fd, i), arena_)) return false;
          if (later) pbc_field_set_at(d, f, m, static_cast<size_t>(i), Value(lib, R, fd, i));
          continue;
        }
        const pbc_message_desc *sub = pbc_field_message(d, f);
        const gp::Message &e = R->GetRepeatedMessage(lib, fd, i);
        void *at = pbc_field_add(d, f, m, zero, arena_);
        if (!at) return false;
        if (!later) {
          if (!Message(e, sub, at)) return false;
          continue;
        }
        void *own = pbc_arena_alloc(arena_, sub->size);
        if (!own) return false;
        pbc_table_init(sub, own);
        if (!Message(e, sub, own)) return false;
        pbc_value v;
        v.message = own;
        pbc_field_set_at(d, f, m, static_cast<size_t>(i), v);
      }
    }
    return true;
  }

 private:
  pbc_value Value(const gp::Message &lib, const Reflection *R, const FieldDescriptor *fd,
                  int i) {
    bool rep = i >= 0;
    pbc_value v;
    memset(&v, 0, sizeof v);
    switch (fd->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        v.i32 = rep ? R->GetRepeatedInt32(lib, fd, i) : R->GetInt32(lib, fd);
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        v.i64 = rep ? R->GetRepeatedInt64(lib, fd, i) : R->GetInt64(lib, fd);
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        v.u32 = rep ? R->GetRepeatedUInt32(lib, fd, i) : R->GetUInt32(lib, fd);
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        v.u64 = rep ? R->GetRepeatedUInt64(lib, fd, i) : R->GetUInt64(lib, fd);
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        v.b = rep ? R->GetRepeatedBool(lib, fd, i) : R->GetBool(lib, fd);
        break;
      case FieldDescriptor::CPPTYPE_FLOAT:
        v.f = rep ? R->GetRepeatedFloat(lib, fd, i) : R->GetFloat(lib, fd);
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        v.d = rep ? R->GetRepeatedDouble(lib, fd, i) : R->GetDouble(lib, fd);
        break;
      case FieldDescriptor::CPPTYPE_ENUM:
        v.i32 = rep ? R->GetRepeatedEnumValue(lib, fd, i) : R->GetEnumValue(lib, fd);
        break;
      case FieldDescriptor::CPPTYPE_STRING: {
        // Into the arena: the struct outlives nothing of lib's.
        std::string s = rep ? R->GetRepeatedString(lib, fd, i) : R->GetString(lib, fd);
        auto *p = static_cast<uint8_t *>(pbc_arena_alloc(arena_, s.size()));
        if (p && !s.empty()) memcpy(p, s.data(), s.size());
        v.bytes = {p, p ? s.size() : 0};
        break;
      }
      case FieldDescriptor::CPPTYPE_MESSAGE:
        break;
    }
    return v;
  }

  pbc_arena *arena_;
};

// Extensions and unknown fields out, through every level: what the
// builder cannot set.
void StripToFields(gp::Message *m) {
  const Reflection *R = m->GetReflection();
  std::vector<const FieldDescriptor *> fields;
  R->ListFields(*m, &fields);
  for (const FieldDescriptor *fd : fields) {
    if (fd->is_extension()) {
      R->ClearField(m, fd);
    } else if (fd->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (!fd->is_repeated()) StripToFields(R->MutableMessage(m, fd));
      else
        for (int i = 0; i < R->FieldSize(*m, fd); i++)
          StripToFields(R->MutableRepeatedMessage(m, fd, i));
    }
  }
  R->MutableUnknownFields(m)->Clear();
}

}  // namespace

std::string Det(const gp::Message &m) {
  std::string s;
  {
    gp::io::StringOutputStream out(&s);
    gp::io::CodedOutputStream coded(&out);
    coded.SetSerializationDeterministic(true);
    m.SerializePartialToCodedStream(&coded);
  }
  return s;
}

bool BuiltMatches(const gp::Message &lib, const pbc_message_info *info, uint64_t pick,
                  std::string *why) {
  std::unique_ptr<gp::Message> ref(lib.New());
  ref->CopyFrom(lib);
  StripToFields(ref.get());
  pbc_arena arena;
  pbc_arena_init(&arena, nullptr, 0);
  struct Free {
    pbc_arena *a;
    ~Free() { pbc_arena_destroy(a); }
  } free_arena{&arena};
  const pbc_message_desc *d = info->desc;
  void *m = pbc_message_new(info, &arena);
  if (!m || !Builder(&arena).Message(*ref, d, m)) {
    *why = "the arena failed";
    return false;
  }
  // One field cleared in both (ClearField), by `pick`.
  std::vector<const FieldDescriptor *> set;
  ref->GetReflection()->ListFields(*ref, &set);
  if (!set.empty() && pick % 3 == 0) {
    const FieldDescriptor *fd = set[(pick / 3) % set.size()];
    const pbc_field_desc *f = pbc_field_by_number(d, static_cast<uint32_t>(fd->number()));
    pbc_field_clear(d, f, m);
    ref->GetReflection()->ClearField(ref.get(), fd);
    if (pbc_field_has(d, f, m)) {
      *why = "field " + fd->name() + " still set after pbc_field_clear";
      return false;
    }
  }
  std::string read_why;
  if (!DynamicChecker(&read_why).Message(*ref, d, m)) {
    *why = "built through pbc/field.h, then " + read_why;
    return false;
  }
  std::string out(pbc_message_encoded_size(info, m), '\0');
  size_t written = 0;
  pbc_status st = pbc_message_encode(info, m, reinterpret_cast<uint8_t *>(&out[0]), out.size(),
                                     &written);
  if (st != PBC_OK || written != out.size()) {
    *why = std::string("built through pbc/field.h: encode: ") + pbc_status_str(st);
    return false;
  }
  std::unique_ptr<gp::Message> back(ref->New());
  if (!back->ParsePartialFromString(out) || Det(*back) != Det(*ref)) {
    *why = "built through pbc/field.h, encoded by pbc: libprotobuf reads another message";
    return false;
  }
  return true;
}

bool DescriptionMatches(const Descriptor *d, const pbc_message_info *info,
                        const std::string &optimize_for, std::string *why,
                        pbc_message_finder find, const void *find_ctx) {
  return StaticChecker(optimize_for, find, find_ctx, why).Info(d, info);
}

bool DecodedMatches(const gp::Message &lib, const pbc_message_info *info, const void *m,
                    std::string *why) {
  return DynamicChecker(why).Message(lib, info->desc, m);
}

}  // namespace pbc_test
