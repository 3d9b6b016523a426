//===- DecodeFields.cpp - pbc__T_dec: the field handlers ------------------===//
//
// A handler reads one value (or a packed run, a string, a sub-message),
// stores it at its field's offset, marks it present and ends with the
// field's parse chain (Decode.cpp). Scalars and lengths are read twice over:
// unchecked at the handler's fast entry (below the read limit), checked
// near the end of the input (splitRead). Repeated fields grow their arrays
// in the arena; map entries replace an entry of the same key; closed enums
// send the values they do not declare to the unknown fields.
//
//===----------------------------------------------------------------------===//
#include "Decoder.h"

#include "pbc/Dialect/Wire/WireOps.h"

using namespace mlir;
using namespace pbc::proto;
using pbc::abi::Role;
namespace wire = pbc::wire;

/// The tags a field is accepted under, with the code for each: its own wire
/// type, plus the other form for packable repeated fields.
SmallVector<std::pair<uint32_t, DecoderBuilder::Handler>>
DecoderBuilder::fieldHandlers(const FieldPlan &f) {
  SmallVector<std::pair<uint32_t, Handler>> handlers;
  const FieldPlan *field = &f;
  uint32_t tag = pbc_make_tag(f.number, f.type->wireType);
  if (f.type->isView()) {
    handlers.push_back(
        {tag, [field](DecoderBuilder &d) { d.readString(*field); }});
  } else if (f.type->isMessage()) {
    handlers.push_back(
        {tag, [field](DecoderBuilder &d) { d.readEmbedded(*field); }});
  } else {
    handlers.push_back(
        {tag, [field](DecoderBuilder &d) { d.readScalar(*field); }});
    if (f.isRepeated())
      handlers.push_back({pbc_make_tag(f.number, PBC_WIRE_LEN),
                          [field](DecoderBuilder &d) { d.readPacked(*field); }});
  }
  return handlers;
}

/// Reads one scalar value at `pos` (bounded by `end`): the position after
/// it, the value as stored and, for varints, the 64 bits read. `element`:
/// a repeated field's, read in a loop.
DecoderBuilder::Scalar DecoderBuilder::getScalar(const FieldTypeInfo &type,
                                                 Value pos, Value end,
                                                 bool unchecked, bool element) {
  if (type.fixedWidth()) {
    auto op = b.create<wire::GetFixedOp>(loc, cx.ptrTy, cx.storageType(type),
                                         dec, pos, end);
    op.setUnchecked(unchecked);
    if (!unchecked)
      cx.continueIfNotNull(op.getNext(), fail);
    return {op.getNext(), op.getValue(), Value()};
  }
  auto op = b.create<wire::GetVarintOp>(loc, dec, pos, end);
  op.setUnchecked(unchecked);
  // The inlined word-wide read of a long varint (about 230 bytes with its
  // ninth and tenth bytes) pays for itself in a repeated field's loop, where
  // a run of large values takes it at every element. A singular field reads
  // its value once a message, and a bool or an enum of three bytes is legal
  // but rare: there the runtime's reader, a call.
  op.setRareLong(!element || type.repr == ValueRepr::BOOL ||
                 type.type == FieldType::Enum);
  cx.continueIfNotNull(op.getNext(), fail);
  return {op.getNext(), cx.fromVarint(type, op.getValue()), op.getValue()};
}

/// For closed enums: is the value one the enum declares?
Value DecoderBuilder::isKnownEnumValue(const FieldPlan &f, Value v) {
  SmallVector<int32_t> values;
  for (EnumValueOp ev : f.enumType.getValues())
    values.push_back(ev.getNumber());
  llvm::sort(values);
  values.erase(std::unique(values.begin(), values.end()), values.end());
  // Contiguous values: one range check.
  if (int64_t(values.back()) - values.front() + 1 == int64_t(values.size())) {
    Value rel = b.create<arith::SubIOp>(loc, v, cx.cst(cx.i32, values.front()));
    return cx.cmp(arith::CmpIPredicate::ule, rel,
                  cx.cst(cx.i32, int64_t(values.back()) - values.front()));
  }
  Value any = cx.cst(cx.i1, 0);
  for (int32_t value : values)
    any = b.create<arith::OrIOp>(
        loc, any,
        cx.cmp(arith::CmpIPredicate::eq, v,
                                cx.cst(cx.i32, value)));
  return any;
}

/// Continues when a closed enum value is known. An unknown value goes to the
/// unknown fields instead, as libprotobuf does: the record just read as it
/// is, or, for a value out of a packed run (`packedRaw`: the 64 bits read),
/// re-encoded as a record of its own. Then control goes to `next` with
/// `pos`. In a map entry the value stays: the map field moves the whole
/// entry (see keepOnlyKnownMapValue).
void DecoderBuilder::keepOnlyKnownEnum(const FieldPlan &f, Value v,
                                       Value packedRaw, Block *next, Value pos,
                                       Value packedOut) {
  if (!f.closedEnum || f.inMapEntry)
    return;
  Block *unknown = cx.newBlock(*b.getBlock()->getParent());
  cx.continueIf(isKnownEnumValue(f, v), unknown);
  Block *keep = b.getBlock();
  b.setInsertionPointToStart(unknown);
  if (!packedRaw) {
    keepUnknown(pos);
  } else if (message.keepsUnknownFields()) {
    Value ok = b.create<wire::KeepUnknownVarintOp>(
        loc, dec, cx.unknownAddr(msg, message), packedRaw,
        b.getI32IntegerAttr(f.number));
    cx.continueIf(ok, fail);
  }
  SmallVector<Value, 2> args{pos};
  if (packedOut)
    args.push_back(packedOut);
  b.create<LLVM::BrOp>(loc, args, next);
  b.setInsertionPointToStart(keep);
}

/// Room for `add` more elements of a repeated field: the (possibly moved)
/// array, its size before, the address right after its elements, and
/// where the size is kept, which is left unchanged.
DecoderBuilder::Reserved DecoderBuilder::reserveElements(const FieldPlan &f,
                                                         Value add) {
  Value addr = cx.fieldAddr(msg, f);
  Value sizeAddr = cx.viewSizeAddr(addr);
  Value data = cx.load(cx.ptrTy, addr);
  Value size = cx.load(cx.i64, sizeAddr);
  Value grown = b.create<wire::GrowOp>(loc, dec, data, size, add,
                                       b.getI64IntegerAttr(f.elementSize));
  cx.continueIfNotNull(grown, fail);
  cx.store(grown, addr);
  Value off = b.create<arith::MulIOp>(loc, size, cx.cst(cx.i64, f.elementSize));
  return {grown, size, cx.offsetPtr(grown, off), sizeAddr};
}

/// Appends `add` uninitialized elements; returns the address of the first.
Value DecoderBuilder::appendElements(const FieldPlan &f, Value add) {
  Reserved r = reserveElements(f, add);
  cx.store(b.create<arith::AddIOp>(loc, r.size, add), r.sizeAddr);
  return r.end;
}

void DecoderBuilder::readScalar(const FieldPlan &f) {
  SmallVector<Value> read =
      splitRead([&](Value pos, bool unchecked) -> SmallVector<Value> {
        Scalar r = getScalar(*f.type, pos, end, unchecked, f.isRepeated());
        if (r.raw)
          return {r.next, r.value, r.raw};
        return {r.next, r.value};
      });
  Value next = read[0], v = read[1];
  keepOnlyKnownEnum(f, v, Value(), loop, next);
  if (f.isRepeated()) {
    cx.store(v, appendElements(f, cx.cst(cx.i64, 1)));
  } else {
    cx.store(v, cx.fieldAddr(msg, f));
    cx.markPresent(msg, f);
  }
  continueAfter(f, next);
}

/// A packed run of a repeated scalar field (accepted whatever the schema
/// says about packing).
void DecoderBuilder::readPacked(const FieldPlan &f) {
  const FieldTypeInfo &type = *f.type;
  SmallVector<Value> lenRead = splitLength();
  Value start = lenRead[0], length = lenRead[1];
  Value runEnd = cx.offsetPtr(start, length);

  if (unsigned w = type.fixedWidth()) {
    // Fixed-width values are already in memory order (little-endian
    // targets): one copy.
    Value rem = b.create<arith::RemUIOp>(loc, length, cx.cst(cx.i64, w));
    continueOrFail(
        cx.cmp(arith::CmpIPredicate::eq, rem, cx.cst(cx.i64, 0)),
        PBC_ERR_BAD_LENGTH);
    Value count = b.create<arith::DivUIOp>(loc, length, cx.cst(cx.i64, w));
    Value dst = appendElements(f, count);
    b.create<LLVM::MemcpyOp>(loc, dst, start, length, /*isVolatile=*/false);
    continueAfter(f, runEnd);
    return;
  }

  // Varints: room for the whole run at once (one terminating byte per
  // element), then a loop that only stores. The size is set after the run,
  // from the last element written: a closed enum's unknown values take no
  // element, and a malformed run leaves the old size.
  int64_t esize = f.elementSize;
  Value count = b.create<wire::CountVarintsOp>(loc, start, runEnd);
  Reserved room = reserveElements(f, count);
  Region &body = *b.getBlock()->getParent();
  Block *element = cx.newBlock(body);
  element->addArgument(cx.ptrTy, loc);
  element->addArgument(cx.ptrTy, loc);
  Block *read = cx.newBlock(body);
  Block *exit = cx.newBlock(body);
  // Up to 10 bytes before the run's end no varint can cross it: there the
  // loop reads with no bounds check.
  Block *readFast = cx.newBlock(body);
  Block *checkEnd = cx.newBlock(body);
  Value slack = b.create<arith::MaxUIOp>(
      loc, length, cx.cst(cx.i64, PBC_MAX_VARINT_BYTES));
  Value fastEnd = cx.offsetPtr(
      start, b.create<arith::SubIOp>(loc, slack,
                                     cx.cst(cx.i64, PBC_MAX_VARINT_BYTES)));
  b.create<LLVM::BrOp>(loc, ValueRange{start, room.end}, element);

  b.setInsertionPointToStart(element);
  Value pos = element->getArgument(0), out = element->getArgument(1);
  Value fast =
      cx.cmp(arith::CmpIPredicate::ult, pos, fastEnd);
  b.create<LLVM::CondBrOp>(loc, fast, readFast, checkEnd);
  b.setInsertionPointToStart(checkEnd);
  Value done =
      cx.cmp(arith::CmpIPredicate::uge, pos, runEnd);
  b.create<LLVM::CondBrOp>(loc, done, exit, read);

  b.setInsertionPointToStart(readFast);
  {
    auto [next, v, raw] =
        getScalar(type, pos, runEnd, /*unchecked=*/true, /*element=*/true);
    keepOnlyKnownEnum(f, v, raw, element, next, out);
    cx.store(v, out);
    b.create<LLVM::BrOp>(loc, ValueRange{next, cx.offsetPtr(out, esize)},
                         element);
  }
  b.setInsertionPointToStart(exit);
  Value size = b.create<arith::DivUIOp>(loc, cx.ptrDiff(out, room.array),
                                        cx.cst(cx.i64, esize));
  cx.store(size, room.sizeAddr);
  continueAfter(f, runEnd);

  b.setInsertionPointToStart(read);
  auto [next, v, raw] =
      getScalar(type, pos, runEnd, /*unchecked=*/false, /*element=*/true);
  keepOnlyKnownEnum(f, v, raw, element, next, out);
  cx.store(v, out);
  b.create<LLVM::BrOp>(loc, ValueRange{next, cx.offsetPtr(out, esize)},
                       element);
}

void DecoderBuilder::readString(const FieldPlan &f) {
  SmallVector<Value> lenRead = splitLength();
  Value data = lenRead[0], size = lenRead[1];
  if (f.utf8)
    continueOrFail(b.create<wire::Utf8ValidOp>(loc, data, size),
                   PBC_ERR_INVALID_UTF8);
  Value addr = f.isRepeated() ? appendElements(f, cx.cst(cx.i64, 1))
                              : cx.fieldAddr(msg, f);
  cx.store(data, addr);
  cx.store(size, cx.viewSizeAddr(addr));
  if (!f.isRepeated())
    cx.markPresent(msg, f);
  continueAfter(f, cx.offsetPtr(data, size));
}

/// The sub-message a singular field points to, allocated and initialized
/// on first sight; a second occurrence merges into the same one.
Value DecoderBuilder::singularSubMessage(const FieldPlan &f) {
  const MessagePlan &sub = *f.message;
  Value addr = cx.fieldAddr(msg, f);
  Value existing = cx.load(cx.ptrTy, addr);
  // A oneof's union may hold another member: merge only into this one.
  if (f.inOneof)
    existing = b.create<arith::SelectOp>(loc, cx.isOneofCase(msg, f),
                                         existing, cx.null());
  Region &body = *b.getBlock()->getParent();
  Block *allocate = cx.newBlock(body);
  Block *have = cx.newBlock(body);
  have->addArgument(cx.ptrTy, loc);
  b.create<LLVM::CondBrOp>(loc, cx.isNull(existing), allocate, ValueRange(),
                           have, ValueRange{existing});
  b.setInsertionPointToStart(allocate);
  Value mem =
      b.create<wire::AllocOp>(loc, dec, b.getI64IntegerAttr(sub.size));
  cx.continueIfNotNull(mem, fail);
  cx.call(sub, Role::Init, mem);
  cx.store(mem, addr);
  b.create<LLVM::BrOp>(loc, ValueRange{mem}, have);
  b.setInsertionPointToStart(have);
  cx.markPresent(msg, f);
  return have->getArgument(0);
}

void DecoderBuilder::readEmbedded(const FieldPlan &f) {
  const MessagePlan &sub = *f.message;
  Value start = afterTag, subEnd = end;
  if (!f.isGroup()) {
    SmallVector<Value> lenRead = splitLength();
    start = lenRead[0];
    subEnd = cx.offsetPtr(start, lenRead[1]);
  }
  Value target;
  if (f.isRepeated()) {
    target = appendElements(f, cx.cst(cx.i64, 1));
    cx.call(sub, Role::Init, target);
  } else {
    target = singularSubMessage(f);
  }
  cx.continueIf(b.create<wire::PushOp>(loc, dec), fail);
  Value groupNumber = cx.cst(cx.i32, f.isGroup() ? f.number : 0);
  Value next =
      cx.call(sub, Role::Decoder, {target, start, subEnd, decState, groupNumber});
  b.create<wire::PopOp>(loc, dec);
  cx.continueIfNotNull(next, fail);
  if (f.isRepeated() && sub.isMapEntry) {
    keepOnlyKnownMapValue(f, next);
    replaceDuplicateKey(f);
  }
  continueAfter(f, next);
}

/// A map entry whose value is a closed enum's undeclared value goes, whole
/// and as read, to the unknown fields, and the map is left as it was (as
/// libprotobuf does).
void DecoderBuilder::keepOnlyKnownMapValue(const FieldPlan &f, Value next) {
  const FieldPlan &value = f.message->fields.back();
  if (!value.closedEnum)
    return;
  Value addr = cx.fieldAddr(msg, f);
  Value sizeAddr = cx.viewSizeAddr(addr);
  Value last = b.create<arith::SubIOp>(loc, cx.load(cx.i64, sizeAddr),
                                       cx.cst(cx.i64, 1));
  Value added = cx.offsetPtr(
      cx.load(cx.ptrTy, addr),
      b.create<arith::MulIOp>(loc, last, cx.cst(cx.i64, f.elementSize)));
  Value v = cx.load(cx.i32, cx.fieldAddr(added, value));
  Block *unknown = cx.newBlock(*b.getBlock()->getParent());
  cx.continueIf(isKnownEnumValue(value, v), unknown);
  Block *keep = b.getBlock();
  b.setInsertionPointToStart(unknown);
  cx.store(last, sizeAddr);
  keepUnknown(next);
  continueAfter(f, next);
  b.setInsertionPointToStart(keep);
}

/// A map entry whose key is already in the map replaces that entry's value
/// (the last one wins, as libprotobuf's map does) and is dropped.
void DecoderBuilder::replaceDuplicateKey(const FieldPlan &f) {
  const FieldPlan &key = f.message->fields.front();
  int64_t esize = f.elementSize;
  Value addr = cx.fieldAddr(msg, f);
  Value sizeAddr = cx.viewSizeAddr(addr);
  Value data = cx.load(cx.ptrTy, addr);
  Value last = b.create<arith::SubIOp>(loc, cx.load(cx.i64, sizeAddr),
                                       cx.cst(cx.i64, 1));
  Value added = cx.offsetPtr(
      data, b.create<arith::MulIOp>(loc, last, cx.cst(cx.i64, esize)));
  Value addedKey = cx.fieldAddr(added, key);

  Region &body = *b.getBlock()->getParent();
  Block *search = cx.newBlock(body);
  search->addArgument(cx.i64, loc);
  Block *compare = cx.newBlock(body);
  Block *replace = cx.newBlock(body);
  Block *done = cx.newBlock(body);
  b.create<LLVM::BrOp>(loc, ValueRange{cx.cst(cx.i64, 0)}, search);

  b.setInsertionPointToStart(search);
  Value i = search->getArgument(0);
  Value more =
      cx.cmp(arith::CmpIPredicate::ult, i, last);
  b.create<LLVM::CondBrOp>(loc, more, compare, done);

  b.setInsertionPointToStart(compare);
  Value elem = cx.offsetPtr(
      data, b.create<arith::MulIOp>(loc, i, cx.cst(cx.i64, esize)));
  Value same = keysEqual(key, cx.fieldAddr(elem, key), addedKey);
  Value nextI = b.create<arith::AddIOp>(loc, i, cx.cst(cx.i64, 1));
  b.create<LLVM::CondBrOp>(loc, same, replace, ValueRange(), search,
                           ValueRange{nextI});

  b.setInsertionPointToStart(replace);
  b.create<LLVM::MemcpyOp>(loc, elem, added, cx.cst(cx.i64, esize),
                           /*isVolatile=*/false);
  cx.store(last, sizeAddr);
  b.create<LLVM::BrOp>(loc, ValueRange(), done);
  b.setInsertionPointToStart(done);
}

Value DecoderBuilder::keysEqual(const FieldPlan &key, Value a, Value b2) {
  if (key.type->isView())
    return b.create<wire::BytesEqualOp>(loc, cx.viewData(a), cx.viewSize(a),
                                        cx.viewData(b2), cx.viewSize(b2));
  Type t = cx.storageType(*key.type);
  return cx.cmp(arith::CmpIPredicate::eq, cx.load(t, a),
                                 cx.load(t, b2));
}
