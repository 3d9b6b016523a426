//===- Encode.cpp - pbc__T_enc: backwards, highest field number first -----===//
//
// The encoder writes backwards from `end` and checks every write against
// `limit` (null: unchecked, the caller sized the buffer exactly), so
// T_encode needs no size pass: one walk, then a move to the buffer's start.
// Writing backwards, a sub-message's length is known when its header is
// written. The checks are cheap: one comparison per run of small fields
// against a bound that holds for any values (10 bytes per varint); only
// when that fails, near the front of the buffer, is the exact size
// computed. Failing returns null.
//
// A message with extension ranges and unknown fields is written by the
// table codec, which places the extensions those hold among the fields, as
// libprotobuf does (pbc_rt_put_unknown_part): one test for the usual
// message, which has none, instead of code at every range.
//
//===----------------------------------------------------------------------===//
#include "CodecContext.h"

#include "pbc/Dialect/Wire/WireOps.h"

#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace pbc::proto;
using pbc::abi::Role;
namespace wire = pbc::wire;

namespace {

class EncoderBuilder : RoleBuilder {
public:
  using RoleBuilder::RoleBuilder;

  void build(const MessagePlan &m);

private:
  Value msg, limit;
  /// Returns null: the output does not fit above `limit`.
  Block *fail = nullptr;

  Value ensureRoom(Value pos, Value bound, function_ref<Value()> exact);
  Value putIf(Value cond, Value pos, function_ref<Value(Value)> then,
              function_ref<Value(Value)> otherwise = nullptr);
  Value encodeScalarRun(ArrayRef<const FieldPlan *> run, Value pos);
  Value anyPresenceBit(ArrayRef<const FieldPlan *> fields);
  Value encodeScalarChunk(ArrayRef<const FieldPlan *> run, Value pos);
  Value roomAt(Value pos);
  Value putVarint(const FieldTypeInfo &type, Value pos, Value v, Value room);
  Value putLength(Value pos, Value len);
  Value putConstant(Value pos, StringRef bytes);
  Value putLengthAndTag(const FieldPlan &f, Value pos, Value len);
  Value putEmbedded(const FieldPlan &f, Value sub, Value pos);
  Value putString(const FieldPlan &f, Value addr, Value pos);
  Value putScalar(const FieldPlan &f, Value v, Value pos);
  Value encodeField(const FieldPlan &f, Value pos);
  Value forEachElementBackwards(const FieldPlan &f, Value data, Value count,
                                Value pos,
                                function_ref<Value(Value, Value)> body);
  Value encodeRepeated(const FieldPlan &f, Value addr, Value pos);
};

/// Singular fields whose encoding has a small constant bound: scalars and
/// enums outside map entries and oneofs.
bool isSmallScalar(const FieldPlan &f) {
  return !f.isRepeated() && !f.type->isMessage() && !f.type->isView();
}

void EncoderBuilder::build(const MessagePlan &m) {
  Block *entry = cx.define(m, Role::Encoder);
  msg = entry->getArgument(0);
  limit = entry->getArgument(2);
  fail = cx.newBlock(*entry->getParent());
  b.setInsertionPointToStart(fail);
  b.create<LLVM::ReturnOp>(loc, cx.null());
  b.setInsertionPointToEnd(entry);

  Value pos = entry->getArgument(1);
  // Unknown fields come last in the output: written first.
  if (m.placesExtensions()) {
    // The table codec's encoder writes such a message with unknown fields
    // (its result, null when it does not fit, is this encoder's).
    cx.handOffUnknownFields(m, msg, [&](Value desc) {
      return cx.callRuntime(pbc::abi::Runtime::pbc_table_encode_backwards,
                            {desc, msg, pos, limit});
    });
  } else if (m.keepsUnknownFields()) {
    Value unknown = cx.unknownAddr(msg, m);
    Value size = cx.viewSize(unknown);
    // Usually there are none: no memcpy call for nothing, and no inline
    // copies either.
    Value any = cx.cmp(arith::CmpIPredicate::ne, size,
                                        cx.cst(cx.i64, 0));
    pos = putIf(any, pos, [&](Value p) {
      ensureRoom(p, size, nullptr);
      return b.create<wire::PutDataOp>(loc, p, cx.viewData(unknown), size,
                                       /*out_of_line=*/true);
    });
  }
  ArrayRef<const FieldPlan *> byNumber = m.byNumber;
  SmallVector<const FieldPlan *> fields(llvm::reverse(byNumber));
  for (size_t i = 0; i < fields.size();) {
    size_t runEnd = i;
    while (runEnd < fields.size() && isSmallScalar(*fields[runEnd]))
      ++runEnd;
    if (runEnd > i) {
      pos = encodeScalarRun(ArrayRef(fields).slice(i, runEnd - i), pos);
      i = runEnd;
      continue;
    }
    pos = encodeField(*fields[i++], pos);
  }
  b.create<LLVM::ReturnOp>(loc, pos);
}

/// Continues when `pos` has `bound` bytes of room above the limit, or, if
/// not, `exact()` bytes (computed only then); else fails. Returns the
/// room, the bytes free below `pos`. The room against the bound, not pos
/// against limit + bound as the decoders check their bounds: that form
/// took 1-2 instructions a check fewer but 3-8% more time encoding
/// google_message1 (bench/README.md, "Bounds as addresses").
Value EncoderBuilder::ensureRoom(Value pos, Value bound,
                                 function_ref<Value()> exact) {
  Value room = roomAt(pos);
  Value ok =
      cx.cmp(arith::CmpIPredicate::sge, room, bound);
  Region &body = *b.getBlock()->getParent();
  Block *cont = cx.newBlock(body);
  if (!exact) {
    cx.continueIf(ok, fail, cont);
    return room;
  }
  // Or, when the bound does not hold, the exact size fits.
  Block *precise = cx.newBlock(body);
  b.create<LLVM::CondBrOp>(loc, ok, cont, precise);
  b.setInsertionPointToStart(precise);
  Value fits =
      cx.cmp(arith::CmpIPredicate::sge, room, exact());
  b.create<LLVM::CondBrOp>(loc, fits, cont, fail);
  b.setInsertionPointToStart(cont);
  return room;
}

/// `then(pos)` under `cond` (`otherwise(pos)` if given, else `pos`
/// unchanged); returns the position after.
Value EncoderBuilder::putIf(Value cond, Value pos,
                            function_ref<Value(Value)> then,
                            function_ref<Value(Value)> otherwise) {
  Region &body = *b.getBlock()->getParent();
  Block *thenBlock = cx.newBlock(body);
  Block *elseBlock = otherwise ? cx.newBlock(body) : nullptr;
  Block *join = cx.newBlock(body);
  join->addArgument(cx.ptrTy, loc);
  if (otherwise)
    b.create<LLVM::CondBrOp>(loc, cond, thenBlock, elseBlock);
  else
    b.create<LLVM::CondBrOp>(loc, cond, thenBlock, ValueRange(), join,
                             ValueRange{pos});
  b.setInsertionPointToStart(thenBlock);
  b.create<LLVM::BrOp>(loc, ValueRange{then(pos)}, join);
  if (otherwise) {
    b.setInsertionPointToStart(elseBlock);
    b.create<LLVM::BrOp>(loc, ValueRange{otherwise(pos)}, join);
  }
  b.setInsertionPointToStart(join);
  return join->getArgument(0);
}

/// A run of singular scalar fields, in chunks: a chunk whose fields all
/// have presence bits is skipped after one test when none is set, and each
/// chunk checks its room once for all its fields.
Value EncoderBuilder::encodeScalarRun(ArrayRef<const FieldPlan *> run,
                                      Value pos) {
  while (!run.empty()) {
    size_t n = 1;
    bool bits = run.front()->hasPresenceBit();
    while (n < run.size() && n < size_t(kPresenceGroupBits) &&
           run[n]->hasPresenceBit() == bits)
      ++n;
    ArrayRef<const FieldPlan *> chunk = run.take_front(n);
    run = run.drop_front(n);
    // A lone field with a presence bit is tested before its room check
    // too: absent, it costs the test alone.
    if (!bits) {
      pos = encodeScalarChunk(chunk, pos);
      continue;
    }
    pos = putIf(anyPresenceBit(chunk), pos,
                [&](Value p) { return encodeScalarChunk(chunk, p); });
  }
  return pos;
}

/// Whether any of `fields` (all with presence bits) has its bit set: one
/// test per presence word involved.
Value EncoderBuilder::anyPresenceBit(ArrayRef<const FieldPlan *> fields) {
  llvm::MapVector<int64_t, uint32_t> masks;
  for (const FieldPlan *f : fields)
    masks[f->presenceBit / 32] |= cx.presenceMask(f);
  Value any;
  for (auto [w, mask] : masks) {
    Value word = cx.load(cx.i32, cx.offsetPtr(msg, w * 4));
    Value bits = b.create<arith::AndIOp>(loc, word, cx.cst(cx.i32, mask));
    any = any ? b.create<arith::OrIOp>(loc, any, bits) : bits;
  }
  return cx.cmp(arith::CmpIPredicate::ne, any,
                                 cx.cst(cx.i32, 0));
}

/// Singular scalar fields under one room check. Values are loaded where
/// they are written, except those whose value is their presence.
Value EncoderBuilder::encodeScalarChunk(ArrayRef<const FieldPlan *> run,
                                        Value pos) {
  auto value = [&](const FieldPlan &f) { return cx.loadValue(msg, f); };
  SmallVector<Value> present;
  int64_t bound = 0;
  for (const FieldPlan *f : run) {
    present.push_back(f->hasPresenceBit() ? cx.hasBit(msg, *f)
                                          : cx.isPresent(msg, *f, value(*f)));
    bound += f->tag.size() + f->type->maxWireSize();
  }
  // Near the front of an exactly sized buffer the bound fails: the exact
  // size then counts only the fields that are there.
  ensureRoom(pos, cx.cst(cx.i64, bound), [&] {
    Value exact = cx.cst(cx.i64, 0);
    for (size_t i = 0; i < run.size(); ++i) {
      const FieldPlan &f = *run[i];
      exact = cx.addIf(present[i], exact, [&]() -> Value {
        return b.create<arith::AddIOp>(loc, cx.valueSize(*f.type, value(f)),
                                       cx.cst(cx.i64, f.tag.size()));
      });
    }
    return exact;
  });
  for (size_t i = 0; i < run.size(); ++i) {
    const FieldPlan &f = *run[i];
    const FieldTypeInfo &type = *f.type;
    pos = putIf(present[i], pos, [&](Value q) {
      q = type.constantWireSize() ? cx.putValue(type, q, value(f))
                                  : putVarint(type, q, value(f), roomAt(q));
      return cx.putBytes(q, f.tag);
    });
  }
  return pos;
}

/// The bytes free below `pos`: computed where a long varint is written,
/// not kept from the chunk's room check, so that no value stays live
/// across the chunk's fields.
Value EncoderBuilder::roomAt(Value pos) { return cx.ptrDiff(pos, limit); }

/// A varint, written as one word spilling into the free bytes below it
/// when `room` (the bytes free below `pos`) allows.
Value EncoderBuilder::putVarint(const FieldTypeInfo &type, Value pos, Value v,
                                Value room) {
  return b.create<wire::PutVarintOp>(loc, pos, cx.toVarint(type, v), room);
}

Value EncoderBuilder::putConstant(Value pos, StringRef bytes) {
  ensureRoom(pos, cx.cst(cx.i64, bytes.size()), nullptr);
  return cx.putBytes(pos, bytes);
}

/// A length: lengths of three bytes and more follow 16 KiB of payload, so
/// their form is the runtime's out-of-line writer (no room: its one-word
/// form inlined at every length would cost more code than it saves time).
Value EncoderBuilder::putLength(Value pos, Value len) {
  return b.create<wire::PutVarintOp>(loc, pos, len, Value());
}

/// A varint length and a tag in front of a payload that starts at `pos`.
Value EncoderBuilder::putLengthAndTag(const FieldPlan &f, Value pos,
                                      Value len) {
  int64_t tag = f.lengthTag.size();
  ensureRoom(pos, cx.cst(cx.i64, tag + 10), [&] {
    return b.create<arith::AddIOp>(loc, b.create<wire::VarintSizeOp>(loc, len),
                                   cx.cst(cx.i64, tag));
  });
  pos = putLength(pos, len);
  return cx.putBytes(pos, f.lengthTag);
}

/// Writes a sub-message held at `sub` with its tag and length (or its
/// start/end group tags). The sub-message checks its own room.
Value EncoderBuilder::putEmbedded(const FieldPlan &f, Value sub, Value pos) {
  if (f.isGroup()) {
    pos = putConstant(pos, f.endGroupTag);
    pos = cx.call(*f.message, Role::Encoder, {sub, pos, limit});
    cx.continueIfNotNull(pos, fail,
                  cx.newBlock(*b.getBlock()->getParent()));
    return putConstant(pos, f.tag);
  }
  Value start = cx.call(*f.message, Role::Encoder, {sub, pos, limit});
  cx.continueIfNotNull(start, fail,
                cx.newBlock(*b.getBlock()->getParent()));
  return putLengthAndTag(f, start, cx.ptrDiff(pos, start));
}

/// The bytes, their length and tag under one room check.
Value EncoderBuilder::putString(const FieldPlan &f, Value addr, Value pos) {
  Value data = cx.viewData(addr);
  Value len = cx.viewSize(addr);
  int64_t tag = f.lengthTag.size();
  ensureRoom(
      pos, b.create<arith::AddIOp>(loc, len, cx.cst(cx.i64, tag + 10)), [&] {
        return b.create<arith::AddIOp>(loc, cx.lengthDelimitedSize(len),
                                       cx.cst(cx.i64, tag));
      });
  pos = b.create<wire::PutDataOp>(loc, pos, data, len);
  pos = putLength(pos, len);
  return cx.putBytes(pos, f.lengthTag);
}

/// A scalar with its tag, room checked (repeated elements).
Value EncoderBuilder::putScalar(const FieldPlan &f, Value v, Value pos) {
  const FieldTypeInfo &type = *f.type;
  int64_t tag = f.tag.size();
  Value room =
      ensureRoom(pos, cx.cst(cx.i64, tag + type.maxWireSize()), [&] {
        return b.create<arith::AddIOp>(loc, cx.valueSize(type, v),
                                       cx.cst(cx.i64, tag));
      });
  pos = type.constantWireSize() ? cx.putValue(type, pos, v)
                                : putVarint(type, pos, v, room);
  return cx.putBytes(pos, f.tag);
}

Value EncoderBuilder::encodeField(const FieldPlan &f, Value pos) {
  Value addr = cx.fieldAddr(msg, f);
  if (f.isRepeated())
    return encodeRepeated(f, addr, pos);
  if (f.type->isMessage()) {
    Value sub = cx.load(cx.ptrTy, addr);
    Value present = cx.isMessagePresent(msg, f, sub);
    auto put = [&](Value p) { return putEmbedded(f, sub, p); };
    if (!f.alwaysWritten)
      return putIf(present, pos, put);
    // Absent, a map entry's value is still written: an empty message.
    return putIf(present, pos, put,
                 [&](Value p) { return putConstant(p, f.emptyEncoding); });
  }
  assert(f.type->isView());
  Value len = cx.viewSize(addr);
  return putIf(cx.isPresent(msg, f, len), pos,
               [&](Value p) { return putString(f, addr, p); });
}

/// Calls `body(element address, pos)` for the elements of a repeated field,
/// last element first.
Value EncoderBuilder::forEachElementBackwards(
    const FieldPlan &f, Value data, Value count, Value pos,
    function_ref<Value(Value, Value)> body) {
  Region &region = *b.getBlock()->getParent();
  Block *header = cx.newBlock(region);
  header->addArguments({cx.i64, cx.ptrTy}, {loc, loc});
  Block *bodyBlock = cx.newBlock(region);
  Block *exit = cx.newBlock(region);
  exit->addArgument(cx.ptrTy, loc);
  b.create<LLVM::BrOp>(loc, ValueRange{count, pos}, header);

  b.setInsertionPointToStart(header);
  Value left = header->getArgument(0);
  Value p = header->getArgument(1);
  Value more = cx.cmp(arith::CmpIPredicate::ne, left,
                                       cx.cst(cx.i64, 0));
  b.create<LLVM::CondBrOp>(loc, more, bodyBlock, ValueRange(), exit,
                           ValueRange{p});

  b.setInsertionPointToStart(bodyBlock);
  Value j = b.create<arith::SubIOp>(loc, left, cx.cst(cx.i64, 1));
  Value elem = cx.offsetPtr(
      data, b.create<arith::MulIOp>(loc, j, cx.cst(cx.i64, f.elementSize)));
  Value next = body(elem, p);
  b.create<LLVM::BrOp>(loc, ValueRange{j, next}, header);

  b.setInsertionPointToStart(exit);
  return exit->getArgument(0);
}

Value EncoderBuilder::encodeRepeated(const FieldPlan &f, Value addr,
                                     Value pos) {
  const FieldTypeInfo &type = *f.type;
  Value data = cx.viewData(addr);
  Value count = cx.viewSize(addr);

  if (f.packed) {
    Value any = cx.cmp(arith::CmpIPredicate::ne, count,
                                        cx.cst(cx.i64, 0));
    return putIf(any, pos, [&](Value end) {
      Value start;
      if (unsigned w = type.fixedWidth()) {
        Value len = b.create<arith::MulIOp>(loc, count, cx.cst(cx.i64, w));
        ensureRoom(end, len, nullptr);
        start = b.create<wire::PutDataOp>(loc, end, data, len);
      } else {
        // Room for every element at its longest is checked once; only near
        // the front of the buffer does each element check its own. With
        // room for its longest form, a varint may be written as one word
        // that spills into the free bytes below it.
        auto putWithRoom = [&](Value p, Value v) {
          return putVarint(type, p, v, cx.cst(cx.i64, PBC_MAX_VARINT_BYTES));
        };
        Value longest = cx.cst(cx.i64, type.maxWireSize());
        Value bound = b.create<arith::MulIOp>(loc, count, longest);
        Value roomy =
            cx.cmp(arith::CmpIPredicate::sge, cx.ptrDiff(end, limit), bound);
        start = putIf(
            roomy, end,
            [&](Value p0) {
              return forEachElementBackwards(
                  f, data, count, p0, [&](Value elem, Value p) {
                    return putWithRoom(p, cx.load(cx.storageType(type), elem));
                  });
            },
            [&](Value p0) {
              return forEachElementBackwards(
                  f, data, count, p0, [&](Value elem, Value p) {
                    Value v = cx.load(cx.storageType(type), elem);
                    Value fits = cx.cmp(arith::CmpIPredicate::sge,
                                        cx.ptrDiff(p, limit), longest);
                    return putIf(
                        fits, p, [&](Value q) { return putWithRoom(q, v); },
                        [&](Value q) {
                          ensureRoom(q, cx.valueSize(type, v), nullptr);
                          return cx.putValue(type, q, v);
                        });
                  });
            });
      }
      return putLengthAndTag(f, start, cx.ptrDiff(end, start));
    });
  }

  return forEachElementBackwards(
      f, data, count, pos, [&](Value elem, Value p) -> Value {
        if (type.isView())
          return putString(f, elem, p);
        if (type.isMessage())
          return putEmbedded(f, elem, p);
        return putScalar(f, cx.load(cx.storageType(type), elem), p);
      });
}

} // namespace

void pbc::proto::buildEncoder(CodecContext &cx, const MessagePlan &m) {
  EncoderBuilder(cx).build(m);
}
