//===- Description.cpp - every message's description as constant data -----===//
//
// The description of a message (pbc/desc.h, docs/description-format.md) is
// the one record of its schema that generic code and a table-driven codec
// read: fields by number, with everything the generated codecs know about
// each (the encoding plan), its names, oneofs and defaults. Each message gets
// three constants:
//
//   pbc__T_desc_data  the arrays (fields, names, oneofs, defaults, the
//                     number lookup) and the string pool, one blob of bytes:
//                     no pointers, so no relocations, and one string
//                     attribute in the IR
//   pbc__T_links      the sub-messages' descriptions and the enums' records,
//                     when it has any
//   pbc__T_desc       the pbc_message_desc pointing into both (weak_odr: the
//                     links of other files' descriptions, and their compact
//                     messages' code, refer to it)
//
// An enum gets its pbc_enum_info, `pbc__E_enum`, and `pbc__E_enum_data`. The
// records' layouts are abi.def's rows, which runtime/abi.c checks against
// pbc/desc.h.
//
//===----------------------------------------------------------------------===//
#include "CodecContext.h"

#include "pbc/Dialect/Proto/Naming.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"

#include <functional>
#include <map>

using namespace mlir;
using namespace pbc::proto;
namespace abi = pbc::abi;
using abi::DescRecord;

namespace {

/// NUL-terminated strings, each stored once, addressed by offset.
class StringPool {
public:
  uint32_t add(StringRef s) {
    auto [it, inserted] = offsets.try_emplace(s, bytes.size());
    if (inserted) {
      bytes.append(s.begin(), s.end());
      bytes.push_back('\0');
    }
    return it->second;
  }
  const std::string &data() const { return bytes; }

private:
  std::string bytes;
  llvm::StringMap<uint32_t> offsets;
};

/// Appends one pointer-free record to `out`, laid out by its abi.def rows:
/// each member little-endian at its offset (pbc's targets are all
/// little-endian, which CodeGen checks).
class RecordBytes {
public:
  RecordBytes(std::string &out, DescRecord record)
      : out(out), layout(abi::descRecord(record)), base(out.size()) {
    assert(!layout.hasPointers() && "a record with pointers is a struct");
    out.append(layout.size, '\0');
  }
  RecordBytes &set(StringRef member, uint64_t value) {
    const abi::DescMember &m = layout.member(member);
    uint32_t n = abi::byteSize(m.type);
    assert((n == 8 || value >> (8 * n) == 0) && "a value its member cannot hold");
    for (uint32_t i = 0; i < n; ++i)
      out[base + m.offset + i] = static_cast<char>(value >> (8 * i));
    return *this;
  }

private:
  std::string &out;
  const abi::DescRecordLayout &layout;
  size_t base;
};

/// Builds a record with pointers as its LLVM struct, member by member by
/// name, inside a global's initializer.
class RecordStruct {
public:
  RecordStruct(CodecContext &cx, DescRecord record)
      : cx(cx), layout(abi::descRecord(record)),
        type(abi::llvmStructType(cx.b.getContext(), record)),
        values(layout.members.size()) {}
  RecordStruct &set(StringRef member, Value v) {
    values[&layout.member(member) - layout.members.data()] = v;
    return *this;
  }
  RecordStruct &set(StringRef member, uint64_t v) {
    const abi::DescMember &m = layout.member(member);
    return set(member, cx.b.create<LLVM::ConstantOp>(
                           cx.loc, abi::llvmType(cx.b.getContext(), m.type),
                           static_cast<int64_t>(v)));
  }
  /// Ends the initializer: every member must have been set.
  void finish() {
    Value rec = cx.b.create<LLVM::UndefOp>(cx.loc, type);
    for (auto [i, v] : llvm::enumerate(values)) {
      assert(v && "a description member left unset");
      rec = cx.b.create<LLVM::InsertValueOp>(cx.loc, rec, v, i);
    }
    cx.b.create<LLVM::ReturnOp>(cx.loc, rec);
  }
  LLVM::LLVMStructType getType() const { return type; }

private:
  CodecContext &cx;
  const abi::DescRecordLayout &layout;
  LLVM::LLVMStructType type;
  SmallVector<Value> values;
};

/// A constant global of bytes, aligned for the records in it.
LLVM::GlobalOp bytesGlobal(CodecContext &cx, StringRef name,
                           const std::string &bytes) {
  OpBuilder::InsertionGuard guard(cx.b);
  cx.b.setInsertionPointToEnd(cx.module.getBody());
  auto type = LLVM::LLVMArrayType::get(cx.i8, bytes.size());
  return cx.b.create<LLVM::GlobalOp>(cx.loc, type, /*isConstant=*/true,
                                     LLVM::Linkage::Internal, name,
                                     cx.b.getStringAttr(bytes),
                                     /*alignment=*/8);
}

/// `&global + offset`, or null when `count` says the array is empty.
Value pointerInto(CodecContext &cx, LLVM::GlobalOp global, size_t offset,
                  size_t count = 1) {
  if (count == 0)
    return cx.null();
  Value base = cx.b.create<LLVM::AddressOfOp>(cx.loc, global);
  return cx.offsetPtr(base, static_cast<int64_t>(offset));
}

uint8_t kindOf(const FieldPlan &f) {
  if (f.inOneof)
    return PBC_FIELD_ONEOF;
  switch (f.presence) {
  case Presence::Implicit:
    return PBC_FIELD_IMPLICIT;
  case Presence::Bit:
    return PBC_FIELD_BIT;
  case Presence::OneofCase:
    return PBC_FIELD_ONEOF;
  case Presence::Pointer:
    return PBC_FIELD_POINTER;
  case Presence::Always:
    return PBC_FIELD_ALWAYS;
  case Presence::Repeated:
    return PBC_FIELD_REPEATED;
  }
  llvm_unreachable("unknown presence");
}

uint8_t flagsOf(const FieldPlan &f) {
  uint8_t flags = 0;
  if (f.packed)
    flags |= PBC_FIELD_PACKED;
  if (f.utf8)
    flags |= PBC_FIELD_UTF8;
  if (f.closedEnum)
    flags |= PBC_FIELD_CLOSED_ENUM;
  if (f.op.getCardinality() == Cardinality::Required)
    flags |= PBC_FIELD_REQUIRED;
  if (f.op.getDefaultValueAttr())
    flags |= PBC_FIELD_DEFAULT;
  if (f.isRepeated() && f.message && f.message->isMapEntry)
    flags |= PBC_FIELD_MAP;
  return flags;
}

/// A default's `value`: the member's bytes, or a string's pool offset.
uint64_t defaultBits(TypedAttr value, StringPool &strings) {
  if (auto text = dyn_cast<StringAttr>(value))
    return strings.add(text.getValue());
  if (auto number = dyn_cast<FloatAttr>(value))
    return number.getValue().bitcastToAPInt().getZExtValue();
  return cast<IntegerAttr>(value).getValue().getZExtValue();
}

/// The lookup table's entries (pbc_message_desc.lookup): a power of two
/// between the field count and four times it (at most 2^15), the one that
/// leaves the fewest fields to the binary search (the smallest of those);
/// where numbers collide the lower keeps the entry.
SmallVector<uint16_t> lookupTable(const MessagePlan &m) {
  size_t n = m.byNumber.size();
  size_t least = llvm::PowerOf2Ceil(std::max<size_t>(n, 1));
  size_t best = least, bestMisses = SIZE_MAX;
  for (size_t size = least; size <= 4 * least && size <= (1u << 15);
       size *= 2) {
    llvm::BitVector taken(size);
    size_t misses = 0;
    for (const FieldPlan *f : m.byNumber) {
      size_t slot = f->number & (size - 1);
      if (taken[slot])
        ++misses;
      taken.set(slot);
    }
    if (misses < bestMisses) {
      best = size;
      bestMisses = misses;
    }
  }
  SmallVector<uint16_t> table(best, 0);
  for (auto [i, f] : llvm::enumerate(m.byNumber)) {
    uint16_t &entry = table[f->number & (best - 1)];
    if (entry == 0)
      entry = static_cast<uint16_t>(i + 1);
  }
  return table;
}

/// pbc_message_desc.checks: the indexes of the fields T_is_initialized
/// looks at.
SmallVector<uint16_t> initChecks(CodecContext &cx, const MessagePlan &m) {
  SmallVector<uint16_t> checks;
  for (auto [i, f] : llvm::enumerate(m.byNumber))
    if (f->op.getCardinality() == Cardinality::Required ||
        (f->message && cx.mayHoldRequired(*f->message)))
      checks.push_back(static_cast<uint16_t>(i));
  return checks;
}

/// pbc_message_desc.prototype: the struct T_init makes, or none when that
/// is all zeros. Bytes, but for the string and bytes defaults' data
/// pointers, which point into the string pool (which holds every default
/// already): a packed struct of byte arrays and pointers.
LLVM::GlobalOp buildPrototype(CodecContext &cx, const MessagePlan &m,
                              LLVM::GlobalOp blob, size_t stringsAt,
                              StringPool &strings) {
  std::string image(m.size, '\0');
  std::map<int64_t, uint64_t> pointers; // offset -> pool offset
  for (const FieldPlan &f : m.fields) {
    TypedAttr value = f.op.getDefaultValueAttr();
    if (!value || f.inOneof)
      continue;
    uint64_t bits = defaultBits(value, strings);
    if (f.type->isView()) {
      pointers[f.offset + PBC_VIEW_DATA_OFFSET] = bits;
      bits = cast<StringAttr>(value).size();
      for (int i = 0; i < 8; ++i)
        image[f.offset + PBC_VIEW_SIZE_OFFSET + i] =
            static_cast<char>(bits >> (8 * i));
      continue;
    }
    for (unsigned i = 0; i < f.type->size; ++i)
      image[f.offset + i] = static_cast<char>(bits >> (8 * i));
  }
  if (pointers.empty() && image.find_first_not_of('\0') == std::string::npos)
    return {};

  OpBuilder &b = cx.b;
  MLIRContext *ctx = b.getContext();
  SmallVector<Type> members;
  SmallVector<std::function<Value()>> values;
  int64_t at = 0;
  auto bytes = [&](int64_t end) {
    if (end == at)
      return;
    auto type = LLVM::LLVMArrayType::get(cx.i8, end - at);
    std::string part = image.substr(at, end - at);
    members.push_back(type);
    values.push_back([&cx, type, part] {
      return cx.b.create<LLVM::ConstantOp>(cx.loc, type,
                                           cx.b.getStringAttr(part));
    });
    at = end;
  };
  for (auto [offset, poolOffset] : pointers) {
    bytes(offset);
    members.push_back(cx.ptrTy);
    values.push_back([&cx, blob, at = stringsAt + poolOffset] {
      return pointerInto(cx, blob, at);
    });
    at = offset + 8;
  }
  bytes(m.size);
  auto type = LLVM::LLVMStructType::getLiteral(ctx, members, /*isPacked=*/true);

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(cx.module.getBody());
  auto global = b.create<LLVM::GlobalOp>(
      cx.loc, type, /*isConstant=*/true, LLVM::Linkage::Internal,
      internalPrototype(m.name), Attribute(), /*alignment=*/8);
  b.setInsertionPointToStart(&global.getInitializerRegion().emplaceBlock());
  Value rec = b.create<LLVM::UndefOp>(cx.loc, type);
  for (auto [i, value] : llvm::enumerate(values))
    rec = b.create<LLVM::InsertValueOp>(cx.loc, rec, value(), i);
  b.create<LLVM::ReturnOp>(cx.loc, rec);
  return global;
}

} // namespace

FailureOr<Description> pbc::proto::buildDescription(CodecContext &cx,
                                                    const MessagePlan &m) {
  OpBuilder &b = cx.b;
  // Field and oneof indexes are 16 bits in the records (PBC_NO_FIELD, all
  // ones, is none).
  if (m.byNumber.size() >= UINT16_MAX || m.oneofs.size() > UINT16_MAX)
    return m.op.emitError("has more than ")
           << UINT16_MAX - 1 << " fields or " << UINT16_MAX
           << " oneofs, more than pbc describes";

  // The pool starts with the full name, which pbc_message_info points to.
  StringPool strings;
  strings.add(m.name);
  uint32_t file = strings.add(m.op.getFile());

  // Links: each sub-message's and enum's record once, in field order.
  SmallVector<LLVM::GlobalOp> links;
  llvm::DenseMap<Operation *, uint16_t> linkIndex;
  auto linkOf = [&](const FieldPlan &f) -> uint16_t {
    LLVM::GlobalOp target;
    Operation *key;
    if (f.message) {
      key = f.message->op;
      target = cx.descGlobal(*f.message);
    } else if (f.enumType) {
      key = f.enumType;
      target = cx.enumInfoGlobal(f.enumType);
    } else {
      return 0;
    }
    auto [it, inserted] = linkIndex.try_emplace(key, links.size());
    if (inserted)
      links.push_back(target);
    return it->second;
  };

  // The field records, as the runtime reads them (by_byte is derived from
  // them below, by the runtime's own rule), then as bytes.
  SmallVector<pbc_field_desc> records;
  for (const FieldPlan *f : m.byNumber) {
    uint8_t kind = kindOf(*f), type = static_cast<uint8_t>(f->type->type);
    records.push_back(
        {f->number, static_cast<uint32_t>(f->offset),
         static_cast<uint16_t>(f->inOneof            ? f->oneofIndex
                               : f->hasPresenceBit() ? f->presenceBit
                                                     : 0),
         linkOf(*f), type, kind, flagsOf(*f), pbc_zero_test_of(kind, type)});
  }
  std::string data;
  for (const pbc_field_desc &r : records)
    RecordBytes(data, DescRecord::Field)
        .set("number", r.number)
        .set("offset", r.offset)
        .set("presence", r.presence)
        .set("link", r.link)
        .set("type", r.type)
        .set("kind", r.kind)
        .set("flags", r.flags)
        .set("zero_test", r.zero_test);
  // A lite message's description names no field or oneof: LITE_RUNTIME
  // drops what only reflection by name reads.
  bool names = m.op.hasNames();
  size_t namesAt = data.size();
  for (const FieldPlan *f : names ? m.byNumber : ArrayRef<const FieldPlan *>()) {
    uint32_t name = strings.add(f->op.getName());
    RecordBytes(data, DescRecord::FieldNames)
        .set("name", name)
        .set("json_name", strings.add(f->jsonName));
  }
  size_t oneofsAt = data.size();
  for (const OneofPlan &o : m.oneofs)
    RecordBytes(data, DescRecord::Oneof)
        .set("case_offset", static_cast<uint64_t>(o.caseOffset))
        .set("name", strings.add(names ? StringRef(o.name) : StringRef()));
  size_t defaultsAt = data.size();
  size_t defaults = 0;
  for (auto [i, f] : llvm::enumerate(m.byNumber)) {
    TypedAttr value = f->op.getDefaultValueAttr();
    if (!value)
      continue;
    auto text = dyn_cast<StringAttr>(value);
    RecordBytes(data, DescRecord::Default)
        .set("field", i)
        .set("size", text ? text.size() : 0)
        .set("value", defaultBits(value, strings));
    ++defaults;
  }
  // Each field's tag as the encoders store it (pbc/desc.h's `tags`): a
  // word ending with its written tag (a packed run's LEN tag, a group's
  // START_GROUP), their count in its first byte. 64-bit words, still 8-byte
  // aligned after the records.
  size_t tagsAt = data.size();
  for (const FieldPlan *f : m.byNumber) {
    StringRef tag = f->writtenTag();
    assert(!tag.empty() && tag.size() <= 5 && "a tag is 1 to 5 bytes");
    std::string word(8, '\0');
    word[0] = static_cast<char>(tag.size());
    llvm::copy(tag, word.end() - tag.size());
    data += word;
  }
  // The size walk's masks and records (pbc/desc.h's `sizes`), 32-bit words
  // after the 64-bit tags: over the presence bits, or by_byte's fields.
  SmallVector<uint16_t> byBit, others;
  for (auto [i, r] : llvm::enumerate(records)) {
    if (r.kind != PBC_FIELD_BIT) {
      others.push_back(static_cast<uint16_t>(i));
      continue;
    }
    if (r.presence >= byBit.size())
      byBit.resize(r.presence + 1, PBC_NO_FIELD);
    byBit[r.presence] = static_cast<uint16_t>(i);
  }
  uint32_t structSize = static_cast<uint32_t>(m.size);
  bool byByte = pbc_has_by_byte(records.data(), records.size(), structSize);
  uint32_t slots = !byBit.empty() ? byBit.size() : byByte ? records.size() : 0;
  size_t sizesAt = data.size();
  if (slots) {
    SmallVector<uint32_t> sizes(pbc_sizes_words(slots));
    pbc_fill_sizes(records.data(), byBit.empty() ? nullptr : byBit.data(),
                   slots, sizes.data());
    for (uint32_t word : sizes)
      for (int shift = 0; shift < 32; shift += 8)
        data.push_back(static_cast<char>((word >> shift) & 0xff));
  }
  // Records are multiples of 8 bytes: these 16-bit entries are aligned.
  auto append16 = [&](ArrayRef<uint16_t> entries) {
    for (uint16_t entry : entries) {
      data.push_back(static_cast<char>(entry & 0xff));
      data.push_back(static_cast<char>(entry >> 8));
    }
  };
  // The extension ranges' 32-bit numbers, still 4-byte aligned here.
  size_t rangesAt = data.size();
  for (auto [start, end] : m.extensionRanges)
    for (int64_t n : {start, end})
      for (int shift = 0; shift < 32; shift += 8)
        data.push_back(static_cast<char>((n >> shift) & 0xff));
  size_t lookupAt = data.size();
  SmallVector<uint16_t> lookup = lookupTable(m);
  append16(lookup);
  size_t checksAt = data.size();
  SmallVector<uint16_t> checks = initChecks(cx, m);
  append16(checks);
  // The table encoder writes the fields in the order of their bits
  // (ProtoLayout assigns them by number).
  assert(llvm::is_sorted(byBit) && "presence bits out of field order");
  size_t byBitAt = data.size();
  append16(byBit);
  size_t othersAt = data.size();
  append16(others);
  size_t byByteAt = data.size();
  if (byByte) {
    data.resize(byByteAt + structSize);
    pbc_fill_by_byte(records.data(), records.size(), structSize,
                     reinterpret_cast<uint8_t *>(&data[byByteAt]));
    // The string pool after it, as after the 16-bit arrays, needs no
    // alignment.
  }
  size_t stringsAt = data.size();
  data += strings.data();
  LLVM::GlobalOp blob =
      bytesGlobal(cx, internalDescriptionData(m.name), data);
  size_t poolSize = strings.data().size();
  LLVM::GlobalOp prototype = buildPrototype(cx, m, blob, stringsAt, strings);
  assert(strings.data().size() == poolSize && "a default not in the pool");
  (void)poolSize;

  LLVM::GlobalOp linkArray;
  if (!links.empty()) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(cx.module.getBody());
    auto type = LLVM::LLVMArrayType::get(cx.ptrTy, links.size());
    linkArray = b.create<LLVM::GlobalOp>(cx.loc, type, /*isConstant=*/true,
                                         LLVM::Linkage::Internal,
                                         internalLinks(m.name), Attribute(),
                                         /*alignment=*/8);
    b.setInsertionPointToStart(
        &linkArray.getInitializerRegion().emplaceBlock());
    Value list = b.create<LLVM::UndefOp>(cx.loc, type);
    for (auto [i, target] : llvm::enumerate(links))
      list = b.create<LLVM::InsertValueOp>(
          cx.loc, list, b.create<LLVM::AddressOfOp>(cx.loc, target), i);
    b.create<LLVM::ReturnOp>(cx.loc, list);
  }

  // The extensions of m this compilation declares, NULL-terminated
  // (pbc_message_desc's `extensions`): the table codec places their values
  // as it places the linked ones'. For an archive, those of m's own file;
  // for a schema compiled into one object (the JIT's), all of them, which
  // no pbc_exts section of the process lists. Named as a link array, and
  // set aside with them while LLVM optimizes (CodeGen.cpp).
  SmallVector<LLVM::GlobalOp> exts;
  for (ExtensionOp ext : m.extensions)
    if (cx.generates(ext))
      exts.push_back(cx.extensionInfoGlobal(ext.getSymName()));
  LLVM::GlobalOp extList;
  if (!exts.empty()) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(cx.module.getBody());
    auto type = LLVM::LLVMArrayType::get(cx.ptrTy, exts.size() + 1);
    extList = b.create<LLVM::GlobalOp>(
        cx.loc, type, /*isConstant=*/true, LLVM::Linkage::Internal,
        internalExtensionLinks(m.name), Attribute(), /*alignment=*/8);
    b.setInsertionPointToStart(&extList.getInitializerRegion().emplaceBlock());
    Value list = b.create<LLVM::UndefOp>(cx.loc, type);
    for (auto [i, info] : llvm::enumerate(exts))
      list = b.create<LLVM::InsertValueOp>(
          cx.loc, list, b.create<LLVM::AddressOfOp>(cx.loc, info), i);
    list = b.create<LLVM::InsertValueOp>(cx.loc, list, cx.null(), exts.size());
    b.create<LLVM::ReturnOp>(cx.loc, list);
  }

  FileOp fileOp = m.file;
  std::optional<uint32_t> edition = fileOp ? fileOp.getEdition() : std::nullopt;
  uint8_t syntax = edition  ? PBC_SYNTAX_EDITIONS
                   : fileOp ? static_cast<uint8_t>(fileOp.getSyntax())
                            : PBC_SYNTAX_PROTO2;

  uint32_t denseBelow = 0;
  while (denseBelow < m.byNumber.size() && denseBelow < UINT16_MAX &&
         m.byNumber[denseBelow]->number == denseBelow + 1)
    ++denseBelow;

  // weak_odr, like the info records: other files' descriptions link to it.
  // Declared already where a link (its own, or an earlier message's) first
  // named it: moved after its arrays, which it points into.
  LLVM::GlobalOp desc = cx.descGlobal(m);
  desc.setLinkage(LLVM::Linkage::WeakODR);
  desc->moveBefore(cx.module.getBody(), cx.module.getBody()->end());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&desc.getInitializerRegion().emplaceBlock());
  RecordStruct rec(cx, DescRecord::Message);
  size_t fields = m.byNumber.size();
  rec.set("fields", pointerInto(cx, blob, 0, fields))
      .set("field_names",
           pointerInto(cx, blob, namesAt, names ? fields : 0))
      .set("oneofs", pointerInto(cx, blob, oneofsAt, m.oneofs.size()))
      .set("defaults", pointerInto(cx, blob, defaultsAt, defaults))
      .set("links", linkArray ? pointerInto(cx, linkArray, 0) : cx.null())
      .set("strings", pointerInto(cx, blob, stringsAt))
      .set("field_count", fields)
      .set("oneof_count", m.oneofs.size())
      .set("default_count", defaults)
      .set("link_count", links.size())
      .set("size", static_cast<uint64_t>(m.size))
      .set("unknown_offset", m.unknownOffset
                                 ? static_cast<uint64_t>(*m.unknownOffset)
                                 : PBC_NO_UNKNOWN_FIELDS)
      .set("file", file)
      .set("presence_words", static_cast<uint64_t>(m.presenceWords))
      .set("dense_below", denseBelow)
      .set("syntax", syntax)
      .set("flags", (m.isMapEntry ? PBC_MESSAGE_MAP_ENTRY : 0) |
                        (names ? 0 : PBC_MESSAGE_NO_NAMES))
      .set("edition", edition.value_or(0))
      .set("lookup_mask", lookup.size() - 1)
      .set("check_count", checks.size())
      .set("lookup", pointerInto(cx, blob, lookupAt))
      .set("checks", pointerInto(cx, blob, checksAt, checks.size()))
      .set("prototype", prototype ? pointerInto(cx, prototype, 0) : cx.null())
      .set("bit_count", byBit.size())
      .set("other_count", others.size())
      .set("ext_range_count", m.extensionRanges.size())
      .set("by_bit", pointerInto(cx, blob, byBitAt, byBit.size()))
      .set("others", pointerInto(cx, blob, othersAt, others.size()))
      .set("ext_ranges",
           pointerInto(cx, blob, rangesAt, m.extensionRanges.size()))
      .set("extensions", extList ? pointerInto(cx, extList, 0) : cx.null())
      .set("tags", pointerInto(cx, blob, tagsAt, fields))
      .set("by_byte", byByte ? pointerInto(cx, blob, byByteAt) : cx.null())
      .set("sizes", slots ? pointerInto(cx, blob, sizesAt) : cx.null())
      .finish();
  return Description{desc, blob, stringsAt, prototype};
}

void pbc::proto::buildEnumInfo(CodecContext &cx, EnumOp e) {
  OpBuilder &b = cx.b;
  StringPool strings;
  strings.add(e.getSymName());
  // By number (I32Attr reads as uint32_t: compare signed); aliases keep
  // their declaration order.
  SmallVector<EnumValueOp> values(e.getBody().getOps<EnumValueOp>());
  llvm::stable_sort(values, [](EnumValueOp x, EnumValueOp y) {
    return static_cast<int32_t>(x.getNumber()) <
           static_cast<int32_t>(y.getNumber());
  });
  std::string data;
  for (EnumValueOp v : values)
    RecordBytes(data, DescRecord::EnumValue)
        .set("number", v.getNumber())
        .set("name", strings.add(v.getName()));
  size_t stringsAt = data.size();
  data += strings.data();
  LLVM::GlobalOp blob =
      bytesGlobal(cx, internalEnumData(e.getSymName()), data);

  // weak_odr like the info records: every object of a library that shares
  // the enum's file may define it.
  LLVM::GlobalOp info = cx.enumInfoGlobal(e);
  info.setLinkage(LLVM::Linkage::WeakODR);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&info.getInitializerRegion().emplaceBlock());
  RecordStruct(cx, DescRecord::Enum)
      .set("full_name", pointerInto(cx, blob, stringsAt))
      .set("values", pointerInto(cx, blob, 0, values.size()))
      .set("strings", pointerInto(cx, blob, stringsAt))
      .set("value_count", values.size())
      .set("flags", e.getClosed() ? PBC_ENUM_CLOSED : 0)
      .finish();
}

FlatSymbolRefAttr pbc::proto::buildExtensionInfo(CodecContext &cx,
                                                 ExtensionOp ext,
                                                 EnumOp enumType) {
  OpBuilder &b = cx.b;
  FieldOp field = ext.getField();
  StringRef fullName = ext.getSymName();
  // The full name, then a string or bytes default: one blob.
  std::string data = fullName.str();
  data.push_back('\0');
  size_t defaultAt = data.size();
  uint64_t defaultValue = 0, defaultSize = 0;
  bool bytesDefault = false;
  TypedAttr value = field.getDefaultValueAttr();
  if (auto text = dyn_cast_or_null<StringAttr>(value)) {
    bytesDefault = true;
    defaultSize = text.getValue().size();
    data += text.getValue();
    data.push_back('\0');
  } else if (value) {
    StringPool unused;
    defaultValue = defaultBits(value, unused);
  }
  LLVM::GlobalOp blob =
      bytesGlobal(cx, internalExtensionData(fullName), data);

  const FieldTypeInfo &type = fieldTypeInfo(field.getType());
  uint8_t flags = 0;
  if (field.getPacked())
    flags |= PBC_FIELD_PACKED;
  if (field.getUtf8())
    flags |= PBC_FIELD_UTF8;
  if (field.getClosed())
    flags |= PBC_FIELD_CLOSED_ENUM;
  if (value)
    flags |= PBC_FIELD_DEFAULT;
  if (field.isRepeated())
    flags |= PBC_EXTENSION_REPEATED;
  if (ext.getMessageSet())
    flags |= PBC_EXTENSION_MESSAGE_SET;

  // weak_odr like the info records: every library that compiles the file
  // defines it.
  LLVM::GlobalOp info = cx.extensionInfoGlobal(fullName);
  info.setLinkage(LLVM::Linkage::WeakODR);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&info.getInitializerRegion().emplaceBlock());
    Value link = cx.null();
    if (field.isMessageLike())
      link = b.create<LLVM::AddressOfOp>(
          cx.loc, cx.descGlobal(cx.plan.message(*field.getTypeName())));
    else if (enumType)
      link = b.create<LLVM::AddressOfOp>(cx.loc, cx.enumInfoGlobal(enumType));
    RecordStruct(cx, DescRecord::Extension)
        .set("full_name", pointerInto(cx, blob, 0))
        .set("extendee", b.create<LLVM::AddressOfOp>(
                             cx.loc, cx.descGlobal(cx.plan.message(
                                         ext.getExtendee()))))
        .set("link", link)
        .set("default_bytes",
             bytesDefault ? pointerInto(cx, blob, defaultAt) : cx.null())
        .set("default_value", defaultValue)
        .set("number", static_cast<uint32_t>(field.getNumber()))
        .set("default_size", defaultSize)
        .set("type", type.number)
        .set("flags", flags)
        .set("reserved", 0)
        .finish();
  }

  // Its entry in the `pbc_exts` section, which pbc_find_extension walks:
  // as a message's in `pbc_msgs` (buildInfo).
  std::string entryName = internalSectionEntry(fullName);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(cx.module.getBody());
  auto entry = b.create<LLVM::GlobalOp>(cx.loc, cx.ptrTy, /*isConstant=*/false,
                                        LLVM::Linkage::Internal, entryName,
                                        Attribute(), /*alignment=*/8);
  entry.setSectionAttr(b.getStringAttr("pbc_exts"));
  b.setInsertionPointToStart(&entry.getInitializerRegion().emplaceBlock());
  b.create<LLVM::ReturnOp>(cx.loc, b.create<LLVM::AddressOfOp>(cx.loc, info));
  return FlatSymbolRefAttr::get(b.getContext(), entryName);
}
