//===- Size.cpp - T_encoded_size ------------------------------------------===//
//
// The exact size of a message's encoding, which T_write reserves and which
// the writer's forwards path writes as sub-message lengths: it must count
// what the encoder writes, field by field (both read the encoding plan).
// Fields with presence bits are sized a group of 8 bits at a time: one test
// skips a group none of whose fields is set, and inside, constant-size
// fields of one size are counted with a popcount. The repeated fields are
// sized behind one test of their OR-ed counts.
//
//===----------------------------------------------------------------------===//
#include "CodecContext.h"

#include "pbc/Dialect/Wire/WireOps.h"

#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace pbc::proto;

namespace {

/// Constant-size fields of one size in one group at least this many are
/// counted with one popcount instead of a branch each.
constexpr size_t kPopcountMinFields = 3;

class SizeBuilder : RoleBuilder {
public:
  using RoleBuilder::RoleBuilder;

  void build(const MessagePlan &m);

private:

  Value addGroupSize(Value msg, ArrayRef<const FieldPlan *> group, Value total);
  Value addRepeatedSizes(Value msg, ArrayRef<const FieldPlan *> fields,
                         Value total);
  Value addFieldSize(Value msg, const FieldPlan &f, Value total);
  Value repeatedSize(const FieldPlan &f, Value addr);
};

/// Bytes a field with a presence bit takes when present, if that does not
/// depend on its value (fixed widths and bools): 0 otherwise.
int64_t constantFieldSize(const FieldPlan &f) {
  unsigned width = f.type->constantWireSize();
  return width ? width + f.tag.size() : 0;
}

void SizeBuilder::build(const MessagePlan &m) {
  Block *entry = cx.define(m, pbc::abi::Role::EncodedSize);
  Value msg = entry->getArgument(0);
  Value total = cx.cst(cx.i64, 0);
  if (m.keepsUnknownFields())
    total = cx.viewSize(cx.unknownAddr(msg, m));
  // The presence bits are numbered in declaration order, so the groups
  // follow it too.
  SmallVector<SmallVector<const FieldPlan *>> groups;
  SmallVector<const FieldPlan *> rest;
  for (const FieldPlan &f : m.fields) {
    if (!f.hasPresenceBit()) {
      rest.push_back(&f);
      continue;
    }
    size_t g = f.presenceBit / kPresenceGroupBits;
    if (groups.size() <= g)
      groups.resize(g + 1);
    groups[g].push_back(&f);
  }
  for (ArrayRef<const FieldPlan *> group : groups)
    if (!group.empty())
      total = addGroupSize(msg, group, total);
  SmallVector<const FieldPlan *> repeated;
  for (const FieldPlan *f : rest) {
    if (f->isRepeated())
      repeated.push_back(f);
    else
      total = addFieldSize(msg, *f, total);
  }
  total = addRepeatedSizes(msg, repeated, total);
  b.create<LLVM::ReturnOp>(loc, total);
}

/// The repeated fields' sizes, behind one test of their OR-ed counts: most
/// messages leave most repeated fields empty, and a test (and the registers
/// of a loop) per empty field cost more than the OR.
Value SizeBuilder::addRepeatedSizes(Value msg,
                                    ArrayRef<const FieldPlan *> fields,
                                    Value total) {
  if (fields.size() < 2) {
    for (const FieldPlan *f : fields)
      total = addFieldSize(msg, *f, total);
    return total;
  }
  Value counts;
  for (const FieldPlan *f : fields) {
    Value n = cx.viewSize(cx.fieldAddr(msg, *f));
    counts = counts ? b.create<arith::OrIOp>(loc, counts, n) : n;
  }
  return cx.addIf(cx.isNonZero(counts), total, [&] {
    Value t = cx.cst(cx.i64, 0);
    for (const FieldPlan *f : fields)
      t = addFieldSize(msg, *f, t);
    return t;
  });
}

/// Adds the sizes of up to 8 fields with presence bits in one word: one
/// test skips them all when none is set; inside, constant-size fields of
/// one size are counted with a popcount, the others branch on their bit.
Value SizeBuilder::addGroupSize(Value msg, ArrayRef<const FieldPlan *> group,
                                Value total) {
  Value word = cx.load(cx.i32, cx.presenceWord(msg, *group.front()));
  if (group.size() == 1) {
    int64_t size = constantFieldSize(*group.front());
    return cx.addIf(cx.anyBits(word, cx.presenceMask(group)), total, [&] {
      return size ? cx.cst(cx.i64, size) : cx.singularSize(msg, *group.front());
    });
  }
  auto ifOp = b.create<scf::IfOp>(
      loc, cx.anyBits(word, cx.presenceMask(group)),
      [&](OpBuilder &, Location) {
        Value t = total;
        llvm::MapVector<int64_t, SmallVector<const FieldPlan *>> bySize;
        for (const FieldPlan *f : group)
          if (int64_t size = constantFieldSize(*f))
            bySize[size].push_back(f);
        for (auto &[size, fields] : bySize) {
          if (fields.size() < kPopcountMinFields) {
            for (const FieldPlan *f : fields)
              t = cx.addIf(cx.anyBits(word, cx.presenceMask(f)), t,
                           [&] { return cx.cst(cx.i64, size); });
            continue;
          }
          Value bits = b.create<arith::AndIOp>(
              loc, word, cx.cst(cx.i32, cx.presenceMask(fields)));
          Value n = b.create<arith::ExtUIOp>(
              loc, cx.i64, b.create<LLVM::CtPopOp>(loc, cx.i32, bits));
          t = b.create<arith::AddIOp>(
              loc, t, b.create<arith::MulIOp>(loc, n, cx.cst(cx.i64, size)));
        }
        for (const FieldPlan *f : group)
          if (!constantFieldSize(*f))
            t = cx.addIf(cx.anyBits(word, cx.presenceMask(f)), t,
                         [&] { return cx.singularSize(msg, *f); });
        b.create<scf::YieldOp>(loc, ValueRange{t});
      },
      [&](OpBuilder &, Location) {
        b.create<scf::YieldOp>(loc, ValueRange{total});
      });
  return ifOp.getResult(0);
}

/// `total` plus the size of a field without a presence bit: repeated,
/// sub-message, oneof member, map entry field or implicit presence.
Value SizeBuilder::addFieldSize(Value msg, const FieldPlan &f, Value total) {
  Value addr = cx.fieldAddr(msg, f);
  Value tagSize = cx.cst(cx.i64, f.tag.size());

  if (f.isRepeated())
    return b.create<arith::AddIOp>(loc, total, repeatedSize(f, addr));

  if (f.type->isMessage()) {
    Value sub = cx.load(cx.ptrTy, addr);
    // Absent, a map entry's value is still written: an empty message.
    int64_t absent = f.emptyEncoding.size();
    auto ifOp = b.create<scf::IfOp>(
        loc, cx.isMessagePresent(msg, f, sub),
        [&](OpBuilder &, Location) {
          Value s = cx.embeddedSize(f, sub);
          b.create<scf::YieldOp>(
              loc, ValueRange{b.create<arith::AddIOp>(loc, s, tagSize)});
        },
        [&](OpBuilder &, Location) {
          b.create<scf::YieldOp>(loc, cx.cst(cx.i64, absent));
        });
    return b.create<arith::AddIOp>(loc, total, ifOp.getResult(0));
  }

  // Fields with presence bits are summed by group (addGroupSize).
  assert(!f.hasPresenceBit() && "summed with its presence group");
  if (f.alwaysWritten)
    return b.create<arith::AddIOp>(loc, total, cx.singularSize(msg, f));
  Value present;
  if (f.inOneof)
    present = cx.isOneofCase(msg, f);
  else if (f.type->isView())
    present = cx.isNonZero(cx.viewSize(addr));
  else
    present = cx.isNonZero(cx.load(cx.storageType(*f.type), addr));
  return cx.addIf(present, total, [&] { return cx.singularSize(msg, f); });
}

Value SizeBuilder::repeatedSize(const FieldPlan &f, Value addr) {
  const FieldTypeInfo &type = *f.type;
  Value data = cx.viewData(addr);
  Value count = cx.viewSize(addr);

  // Bytes of the values alone.
  Value payload;
  if (unsigned w = type.fixedWidth()) {
    payload = b.create<arith::MulIOp>(loc, count, cx.cst(cx.i64, w));
  } else if (type.repr == ValueRepr::BOOL) {
    payload = count;
  } else {
    payload = cx.sumElements(f, data, count, [&](Value elem) -> Value {
      if (type.isView())
        return cx.lengthDelimitedSize(cx.viewSize(elem));
      if (type.isMessage())
        return cx.embeddedSize(f, elem);
      return cx.valueSize(type, cx.load(cx.storageType(type), elem));
    });
  }

  if (f.packed) {
    Value total = b.create<arith::AddIOp>(loc, cx.lengthDelimitedSize(payload),
                                          cx.cst(cx.i64, f.lengthTag.size()));
    Value any = cx.cmp(arith::CmpIPredicate::ne, count,
                                        cx.cst(cx.i64, 0));
    return b.create<arith::SelectOp>(loc, any, total, cx.cst(cx.i64, 0));
  }
  Value tags = b.create<arith::MulIOp>(loc, count, cx.cst(cx.i64, f.tag.size()));
  return b.create<arith::AddIOp>(loc, tags, payload);
}

} // namespace

void pbc::proto::buildSize(CodecContext &cx, const MessagePlan &m) {
  SizeBuilder(cx).build(m);
}
