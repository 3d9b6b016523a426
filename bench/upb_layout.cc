// The rules of upbc's message_layout.cc and generator.cc (mid-2020), applied
// to libprotobuf's descriptors at start-up instead of at build time.
#include "upb_layout.h"

#include <google/protobuf/descriptor.pb.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace pbcbench {

namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::FileDescriptor;
using google::protobuf::OneofDescriptor;

[[noreturn]] void Unsupported(const std::string &what, const std::string &why) {
  fprintf(stderr, "upb tables: %s: %s\n", what.c_str(), why.c_str());
  abort();
}

struct SizeAlign {
  size_t size, align;
};

// In-message storage (64-bit): arrays and sub-messages by pointer, strings
// and bytes as upb_strview, scalars in place.
SizeAlign SizeOf(const FieldDescriptor *f) {
  if (f->is_repeated()) return {8, 8};
  switch (f->cpp_type()) {
  case FieldDescriptor::CPPTYPE_MESSAGE: return {8, 8};
  case FieldDescriptor::CPPTYPE_STRING: return {sizeof(upb_strview), 8};
  case FieldDescriptor::CPPTYPE_BOOL: return {1, 1};
  case FieldDescriptor::CPPTYPE_FLOAT:
  case FieldDescriptor::CPPTYPE_INT32:
  case FieldDescriptor::CPPTYPE_UINT32:
  case FieldDescriptor::CPPTYPE_ENUM: return {4, 4};
  default: return {8, 8};
  }
}

// upbc's placement order: 8-byte scalars, 4-byte, bools, strings,
// sub-messages, repeated fields; ties by field number. (upbc ranks enums with
// the 8-byte scalars; so does this.)
int64_t Rank(const FieldDescriptor *f) {
  int64_t rank = 1;
  if (f->is_repeated()) {
    rank = 6;
  } else {
    switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_MESSAGE: rank = 5; break;
    case FieldDescriptor::CPPTYPE_STRING: rank = 4; break;
    case FieldDescriptor::CPPTYPE_BOOL: rank = 3; break;
    case FieldDescriptor::CPPTYPE_FLOAT:
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_UINT32: rank = 2; break;
    default: break;
    }
  }
  return (rank << 29) | f->number();
}

bool HasHasbit(const FieldDescriptor *f) {
  return f->has_presence() && !f->real_containing_oneof() &&
         !f->containing_type()->options().map_entry();
}

// The decoder validates UTF-8 of every STRING field; upbc declares proto2
// strings as BYTES so only proto3 ones are checked (as libprotobuf does).
uint8_t TableDescriptorType(const FieldDescriptor *f) {
  if (f->type() == FieldDescriptor::TYPE_STRING &&
      f->file()->syntax() == FileDescriptor::SYNTAX_PROTO2)
    return FieldDescriptor::TYPE_BYTES;
  return uint8_t(f->type());
}

uint8_t Label(const FieldDescriptor *f) {
  if (f->is_map()) return 4;
  if (f->is_packed()) return 7;
  return uint8_t(f->label());
}

// Offsets grow from 0 (the message pointer, after upb's internal header).
class Placer {
public:
  size_t Place(SizeAlign sa) {
    size_t offset = (size_ + sa.align - 1) / sa.align * sa.align;
    size_ = offset + sa.size;
    maxalign_ = std::max(maxalign_, sa.size);  // upbc aligns the end to the largest member
    return offset;
  }
  size_t Size() const { return (size_ + maxalign_ - 1) / maxalign_ * maxalign_; }

private:
  size_t size_ = 0, maxalign_ = 8;
};

}  // namespace

UpbLayouts::UpbLayouts(const Descriptor *root) : root_(&Build(root).layout) {}

UpbLayouts::Table &UpbLayouts::Build(const Descriptor *d) {
  auto found = tables_.find(d);
  if (found != tables_.end()) return *found->second;
  // Registered before its sub-messages are built, so recursive types find it.
  Table &t = *tables_.emplace(d, std::make_unique<Table>()).first->second;

  if (d->options().map_entry()) Unsupported(d->full_name(), "map fields are not modelled");
  std::vector<const FieldDescriptor *> plain;
  for (int i = 0; i < d->field_count(); i++) {
    const FieldDescriptor *f = d->field(i);
    if (f->is_map()) Unsupported(f->full_name(), "map fields are not modelled");
    if (!f->containing_oneof()) plain.push_back(f);
  }
  std::sort(plain.begin(), plain.end(),
            [](auto *a, auto *b) { return Rank(a) < Rank(b); });

  // Hasbits first, numbered from 1 in placement order (0 in the table means
  // "no hasbit"). upbc sizes them as ceil(count / 8) bytes, which lets the
  // last index spill into the next field when count is a multiple of 8; one
  // more bit is reserved here so that cannot happen.
  std::map<const FieldDescriptor *, int> hasbit;
  int hasbits = 0;
  for (const FieldDescriptor *f : plain)
    if (HasHasbit(f)) hasbit[f] = ++hasbits;
  Placer placer;
  placer.Place({hasbits ? size_t(hasbits + 8) / 8 : 0, 1});

  std::map<const FieldDescriptor *, size_t> offset;
  for (const FieldDescriptor *f : plain) offset[f] = placer.Place(SizeOf(f));

  // Each oneof (by full name): room for its largest member, then its case.
  std::vector<const OneofDescriptor *> oneofs;
  for (int i = 0; i < d->oneof_decl_count(); i++) oneofs.push_back(d->oneof_decl(i));
  std::sort(oneofs.begin(), oneofs.end(),
            [](auto *a, auto *b) { return a->full_name() < b->full_name(); });
  std::map<const FieldDescriptor *, size_t> case_offset;
  for (const OneofDescriptor *o : oneofs) {
    SizeAlign widest = {0, 1};
    for (int i = 0; i < o->field_count(); i++) {
      SizeAlign sa = SizeOf(o->field(i));
      widest = {std::max(widest.size, sa.size), std::max(widest.align, sa.align)};
    }
    size_t data = placer.Place(widest);
    size_t kase = placer.Place({4, 4});
    for (int i = 0; i < o->field_count(); i++) {
      offset[o->field(i)] = data;
      case_offset[o->field(i)] = kase;
    }
  }
  if (placer.Size() > UINT16_MAX || hasbits > INT16_MAX)
    Unsupported(d->full_name(), "message too large for upb's 16-bit offsets");

  // Sub-message tables, one entry per type, by full name.
  std::vector<const Descriptor *> subtypes;
  for (int i = 0; i < d->field_count(); i++)
    if (const Descriptor *m = d->field(i)->message_type()) subtypes.push_back(m);
  std::sort(subtypes.begin(), subtypes.end(),
            [](auto *a, auto *b) { return a->full_name() < b->full_name(); });
  subtypes.erase(std::unique(subtypes.begin(), subtypes.end()), subtypes.end());
  std::map<const Descriptor *, uint16_t> subindex;
  for (const Descriptor *m : subtypes) {
    subindex[m] = uint16_t(t.submsgs.size());
    t.submsgs.push_back(&Build(m).layout);
  }

  std::vector<const FieldDescriptor *> by_number;
  for (int i = 0; i < d->field_count(); i++) by_number.push_back(d->field(i));
  std::sort(by_number.begin(), by_number.end(),
            [](auto *a, auto *b) { return a->number() < b->number(); });
  for (const FieldDescriptor *f : by_number) {
    upb_msglayout_field lf = {};
    lf.number = uint32_t(f->number());
    lf.offset = uint16_t(offset.at(f));
    if (hasbit.count(f))
      lf.presence = int16_t(hasbit[f]);
    else if (f->real_containing_oneof())
      lf.presence = int16_t(~case_offset.at(f));
    if (f->message_type()) lf.submsg_index = subindex.at(f->message_type());
    lf.descriptortype = TableDescriptorType(f);
    lf.label = Label(f);
    t.index[f] = t.fields.size();
    t.fields.push_back(lf);
  }

  t.layout.submsgs = t.submsgs.empty() ? nullptr : t.submsgs.data();
  t.layout.fields = t.fields.empty() ? nullptr : t.fields.data();
  t.layout.size = uint16_t(placer.Size());
  t.layout.field_count = uint16_t(t.fields.size());
  t.layout.extendable = false;  // as upbc of 2020 always emitted
  return t;
}

size_t UpbLayouts::UnknownBytes(const void *msg, const Descriptor *d) const {
  size_t n = 0;
  upb_msg_getunknown(msg, &n);
  const Table &t = *tables_.at(d);
  const char *base = static_cast<const char *>(msg);
  for (const auto &[f, i] : t.index) {
    if (!f->message_type()) continue;
    const upb_msglayout_field &lf = t.fields[i];
    if (lf.presence < 0 && *reinterpret_cast<const uint32_t *>(base + ~lf.presence) != lf.number)
      continue;
    const void *slot = *reinterpret_cast<const void *const *>(base + lf.offset);
    if (!slot) continue;
    if (f->is_repeated()) {
      const upb_array *arr = static_cast<const upb_array *>(slot);
      const void *const *elems = reinterpret_cast<const void *const *>(arr->data & ~uintptr_t(7));
      for (size_t k = 0; k < arr->len; k++) n += UnknownBytes(elems[k], f->message_type());
    } else {
      n += UnknownBytes(slot, f->message_type());
    }
  }
  return n;
}

}  // namespace pbcbench
