//===- Decode.cpp - pbc__T_dec: the loop, its dispatch and the chains -----===//
//
// pbc__T_dec(m, pos, end, d, group) reads fields until `end` (or, for a
// group, its END_GROUP tag) and returns the position after them, or null
// with the error recorded in `d`.
//
// Bounds checks are hoisted: `wire.read_limit` is the lower of `end` and
// the input's end minus 16 bytes; below it a tag and a varint are read with
// no bounds check. So the loop compares the position with the limit and,
// below it, switches on the first byte alone: one-byte tags go straight to
// their handlers' fast entries, the first byte of a two-byte tag to a
// switch on the second, a group's END_GROUP to the return. Near the end of
// the input, and for longer or unknown tags, the full tag read and a switch
// on the whole tag take over.
//
// Fields usually arrive in field-number order, so every handler ends with
// an in-order parse chain: one comparison with the limit, then
// `wire.expect_tag` for the same field again (repeated) and for the next
// field (by number, or the one a profile saw next: `followed_by`), jumping
// straight into its handler.
//
//===----------------------------------------------------------------------===//
#include "Decoder.h"

#include "pbc/Dialect/Wire/WireOps.h"

#include <map>

using namespace mlir;
using namespace pbc::proto;
namespace wire = pbc::wire;

void pbc::proto::buildDecoder(CodecContext &cx, const MessagePlan &m) {
  DecoderBuilder(cx, m).build();
}

void DecoderBuilder::continueOrFail(Value ok, int32_t status) {
  Region &body = *b.getBlock()->getParent();
  Block *bad = cx.newBlock(body);
  cx.continueIf(ok, bad, cx.newBlock(body));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(bad);
  b.create<wire::FailOp>(loc, dec, b.getI32IntegerAttr(status));
  b.create<LLVM::BrOp>(loc, ValueRange(), fail);
}

void DecoderBuilder::continueAt(Value pos) {
  b.create<LLVM::BrOp>(loc, ValueRange{pos}, loop);
}

/// The in-order parse chain. Fields usually arrive in field-number order
/// and repeated ones in runs, so after `f` the decoder first checks for the
/// tag of `f` again (repeated) and then for the tag of the next field (the
/// one a profile saw follow `f` most often, when there is a profile), and
/// jumps straight to its handler's fast entry; a miss goes to the loop's
/// switch on the first byte. One comparison with the read limit covers the
/// tag compares and the next handler's value.
void DecoderBuilder::continueAfter(const FieldPlan &f, Value pos) {
  SmallVector<const FieldPlan *, 2> candidates;
  if (f.isRepeated())
    candidates.push_back(&f);
  if (std::optional<uint32_t> observed = f.op.getFollowedBy()) {
    auto next = llvm::find_if(message.byNumber, [&](const FieldPlan *g) {
      return g->number == *observed;
    });
    assert(next != message.byNumber.end() && "verified: a field of m");
    candidates.push_back(*next);
  } else if (auto it = std::next(llvm::find(message.byNumber, &f));
             it != message.byNumber.end()) {
    candidates.push_back(*it);
  }
  if (candidates.empty()) {
    continueAt(pos);
    return;
  }
  Region &body = *b.getBlock()->getParent();
  Block *chain = cx.newBlock(body);
  b.create<LLVM::CondBrOp>(loc, belowLimit(pos), chain, ValueRange(), loop,
                           ValueRange{pos});
  b.setInsertionPointToStart(chain);
  for (const FieldPlan *next : candidates) {
    auto [bytes, handler] = expected.lookup(next);
    auto hit =
        b.create<wire::ExpectTagOp>(loc, pos, end, b.getStringAttr(bytes));
    hit.setUnchecked(true);
    Block *miss = cx.newBlock(body);
    Value afterTag = cx.offsetPtr(pos, int64_t(bytes.size()));
    b.create<LLVM::CondBrOp>(loc, hit, handler, ValueRange{pos, afterTag},
                             miss, ValueRange());
    b.setInsertionPointToStart(miss);
  }
  b.create<LLVM::BrOp>(loc, ValueRange{pos}, fastTag);
}

Value DecoderBuilder::belowLimit(Value pos) {
  return cx.cmp(arith::CmpIPredicate::ult, pos, limit);
}

/// A hoisted bounds check. A handler's value is read at its fast entry
/// with no bounds check (`unchecked`): the chain and the first-byte switch
/// jump there only from below the read limit. Entered through the full tag
/// switch instead, the handler compares its position with the limit once
/// and reads with the checks only near the end of the input.
/// `read(pos, unchecked)` builds the read; both forms meet in one block,
/// whose arguments (after the tag start, now `tagStart`) are returned.
SmallVector<Value> DecoderBuilder::splitRead(
    function_ref<SmallVector<Value>(Value, bool)> read) {
  Region &body = *b.getBlock()->getParent();
  Block *fast = fastEntry;
  Block *slow = cx.newBlock(body);
  Value start = tagStart, after = afterTag;
  b.create<LLVM::CondBrOp>(loc, belowLimit(after), fast,
                           ValueRange{start, after}, slow, ValueRange());
  b.setInsertionPointToStart(fast);
  SmallVector<Value> fastValues = read(fast->getArgument(1), true);
  Block *fastEnd = b.getBlock();
  b.setInsertionPointToStart(slow);
  SmallVector<Value> slowValues = read(after, false);
  Block *slowEnd = b.getBlock();

  Block *join = cx.newBlock(body);
  join->addArgument(cx.ptrTy, loc);
  for (Value v : fastValues)
    join->addArgument(v.getType(), loc);
  SmallVector<Value> args{fast->getArgument(0)};
  args.append(fastValues);
  b.setInsertionPointToEnd(fastEnd);
  b.create<LLVM::BrOp>(loc, args, join);
  args.assign({start});
  args.append(slowValues);
  b.setInsertionPointToEnd(slowEnd);
  b.create<LLVM::BrOp>(loc, args, join);
  b.setInsertionPointToStart(join);
  tagStart = join->getArgument(0);
  afterTag = Value(); // does not dominate the join
  return SmallVector<Value>(join->getArguments().drop_front());
}

/// A length at the handler's position, checked against the input.
SmallVector<Value> DecoderBuilder::splitLength() {
  return splitRead([&](Value pos, bool unchecked) -> SmallVector<Value> {
    auto len = b.create<wire::GetLengthOp>(loc, dec, pos, end);
    len.setUnchecked(unchecked);
    cx.continueIfNotNull(len.getNext(), fail);
    return {len.getNext(), len.getLength()};
  });
}

void DecoderBuilder::build() {
  Block *entry = cx.define(message, pbc::abi::Role::Decoder);
  Region &body = *entry->getParent();
  msg = entry->getArgument(0);
  end = entry->getArgument(2);
  decState = entry->getArgument(3);
  dec = b.create<wire::DecoderOp>(loc, decState);
  group = entry->getArgument(4);
  limit = b.create<wire::ReadLimitOp>(loc, dec, end);
  loop = cx.newBlock(body);
  loop->addArgument(cx.ptrTy, loc);
  fastTag = cx.newBlock(body);
  fastTag->addArgument(cx.ptrTy, loc);
  fail = cx.newBlock(body);
  ret = cx.newBlock(body);
  ret->addArgument(cx.ptrTy, loc);
  b.create<LLVM::BrOp>(loc, ValueRange{entry->getArgument(1)}, loop);

  b.setInsertionPointToStart(fail);
  b.create<LLVM::ReturnOp>(loc, cx.null());
  b.setInsertionPointToStart(ret);
  b.create<LLVM::ReturnOp>(loc, ret->getArgument(0));

  // ^loop: below the read limit, the switch on the first byte; else the
  // end of the input or the tag read with bounds checks.
  Value pos = loop->getArgument(0);
  b.setInsertionPointToStart(loop);
  Block *checkEnd = cx.newBlock(body);
  Block *atEnd = cx.newBlock(body);
  Block *readTag = cx.newBlock(body);
  readTag->addArgument(cx.ptrTy, loc);
  b.create<LLVM::CondBrOp>(loc, belowLimit(pos), fastTag, ValueRange{pos},
                           checkEnd, ValueRange());
  b.setInsertionPointToStart(checkEnd);
  Value done =
      cx.cmp(arith::CmpIPredicate::uge, pos, end);
  b.create<LLVM::CondBrOp>(loc, done, atEnd, ValueRange(), readTag,
                           ValueRange{pos});
  // At the end of the input a message is complete; a group is not. Past
  // it, a fast path read a value that ran over the end: truncated.
  b.setInsertionPointToStart(atEnd);
  Value exact = cx.cmp(arith::CmpIPredicate::eq, pos, end);
  Value inGroup = cx.cmp(arith::CmpIPredicate::eq, group,
                                          cx.cst(cx.i32, 0));
  continueOrFail(b.create<arith::AndIOp>(loc, exact, inGroup),
                 PBC_ERR_TRUNCATED);
  b.create<LLVM::BrOp>(loc, ValueRange{pos}, ret);

  b.setInsertionPointToStart(readTag);
  tagStart = readTag->getArgument(0);
  auto tagOp = b.create<wire::GetTagOp>(loc, dec, tagStart, end);
  afterTag = tagOp.getNext();
  tag = tagOp.getTag();
  cx.continueIfNotNull(afterTag, fail);
  Block *dispatch = b.getBlock();

  // Every handler block exists before any is filled: the parse chain of
  // one field jumps into another's. Each handler has two entries: one from
  // the full tag switch, one (fast) from below the read limit.
  Value dispatchTagStart = tagStart, dispatchAfterTag = afterTag;
  SmallVector<int32_t> caseTags;
  SmallVector<Block *> caseBlocks, fastBlocks;
  SmallVector<Handler> handlers;
  for (const FieldPlan *f : message.byNumber) {
    uint32_t usual = pbc_make_tag(
        f->number, f->packed ? PBC_WIRE_LEN : f->type->wireType);
    for (auto [fieldTag, handler] : fieldHandlers(*f)) {
      Block *block = cx.newBlock(body);
      block->addArguments({cx.ptrTy, cx.ptrTy}, {loc, loc});
      Block *fast = cx.newBlock(body);
      fast->addArguments({cx.ptrTy, cx.ptrTy}, {loc, loc});
      caseTags.push_back(static_cast<int32_t>(fieldTag));
      caseBlocks.push_back(block);
      fastBlocks.push_back(fast);
      handlers.push_back(handler);
      if (fieldTag == usual)
        expected[f] = {f->writtenTag(), fast};
    }
  }
  for (auto [block, fast, handler] :
       llvm::zip(caseBlocks, fastBlocks, handlers)) {
    b.setInsertionPointToStart(block);
    tagStart = block->getArgument(0);
    afterTag = block->getArgument(1);
    fastEntry = fast;
    handler(*this);
    // A handler that reads nothing before its code (a group) has one entry.
    if (fast->empty()) {
      b.setInsertionPointToStart(fast);
      b.create<LLVM::BrOp>(loc, fast->getArguments(), block);
    }
  }
  tagStart = dispatchTagStart;
  afterTag = dispatchAfterTag;

  Block *unknown = cx.newBlock(body);
  b.setInsertionPointToEnd(dispatch);
  SmallVector<Value> positions = {tagStart, afterTag};
  SmallVector<ValueRange> caseOperands(caseBlocks.size(), positions);
  b.create<LLVM::SwitchOp>(loc, tag, unknown, ValueRange(), caseTags,
                           caseBlocks, caseOperands);

  buildFirstByteSwitch(caseTags, fastBlocks, readTag);

  b.setInsertionPointToStart(unknown);
  buildUnknownField(body);
}

/// ^fastTag(%pos): one load and one switch on the first byte, whose
/// one-byte tags go to the handlers' fast entries, and the END_GROUP of a
/// group straight to the return; the first byte of a two-byte tag leads to
/// a switch on the second. Other bytes (longer tags, unknown fields,
/// errors) go to the full tag read. Below the read limit both bytes are in
/// memory; a tag that would run past the end of the message is a malformed
/// message, which the loop rejects when the position ends up past it.
void DecoderBuilder::buildFirstByteSwitch(ArrayRef<int32_t> tags,
                                          ArrayRef<Block *> blocks,
                                          Block *readTag) {
  Region &body = *fastTag->getParent();
  Value pos = fastTag->getArgument(0);
  b.setInsertionPointToStart(fastTag);
  Value after = cx.offsetPtr(pos, 1);
  SmallVector<int32_t> caseTags;
  SmallVector<Block *> caseBlocks;
  SmallVector<SmallVector<Value>> operands;
  std::map<int32_t, std::pair<SmallVector<int32_t>, SmallVector<Block *>>>
      byFirstByte;
  for (auto [fieldTag, block] : llvm::zip(tags, blocks)) {
    if (fieldTag < 0x80) {
      caseTags.push_back(fieldTag);
      caseBlocks.push_back(block);
      operands.push_back({pos, after});
    } else if (fieldTag < 0x4000) {
      auto &[seconds, targets] = byFirstByte[0x80 | (fieldTag & 0x7f)];
      seconds.push_back(fieldTag >> 7);
      targets.push_back(block);
    }
  }
  for (auto &[first, cases] : byFirstByte) {
    OpBuilder::InsertionGuard guard(b);
    Block *second = cx.newBlock(body);
    b.setInsertionPointToStart(second);
    SmallVector<Value> positions{pos, cx.offsetPtr(pos, 2)};
    Value byte = b.create<arith::ExtUIOp>(loc, cx.i32, cx.load(cx.i8, after));
    SmallVector<ValueRange> secondOperands(cases.first.size(), positions);
    b.create<LLVM::SwitchOp>(loc, byte, readTag, ValueRange{pos}, cases.first,
                             cases.second, secondOperands);
    caseTags.push_back(first);
    caseBlocks.push_back(second);
    operands.push_back({});
  }
  for (uint32_t number : message.groupNumbers) {
    uint32_t endTag = pbc_make_tag(number, PBC_WIRE_END_GROUP);
    if (endTag >= 0x80 || llvm::is_contained(caseTags, int32_t(endTag)))
      continue;
    OpBuilder::InsertionGuard guard(b);
    Block *endBlock = cx.newBlock(body);
    b.setInsertionPointToStart(endBlock);
    Value mine = cx.cmp(arith::CmpIPredicate::eq, group,
                                         cx.cst(cx.i32, number));
    b.create<LLVM::CondBrOp>(loc, mine, ret, ValueRange{after}, readTag,
                             ValueRange{pos});
    caseTags.push_back(int32_t(endTag));
    caseBlocks.push_back(endBlock);
    operands.push_back({});
  }
  // A switch with no cases trips MLIR's translation to LLVM IR.
  if (caseTags.empty()) {
    b.create<LLVM::BrOp>(loc, ValueRange{pos}, readTag);
    return;
  }
  Value byte = b.create<arith::ExtUIOp>(loc, cx.i32, cx.load(cx.i8, pos));
  SmallVector<ValueRange> caseOperands(operands.begin(), operands.end());
  b.create<LLVM::SwitchOp>(loc, byte, readTag, ValueRange{pos}, caseTags,
                           caseBlocks, caseOperands);
}

/// An END_GROUP ends the group being decoded if the numbers match; any
/// other unknown field is skipped.
void DecoderBuilder::buildUnknownField(Region &body) {
  Block *endGroup = cx.newBlock(body);
  Block *skip = cx.newBlock(body);
  Value wt = b.create<arith::AndIOp>(loc, tag, cx.cst(cx.i32, 7));
  Value isEnd = cx.cmp(arith::CmpIPredicate::eq, wt,
                                        cx.cst(cx.i32, PBC_WIRE_END_GROUP));
  b.create<LLVM::CondBrOp>(loc, isEnd, endGroup, skip);

  b.setInsertionPointToStart(endGroup);
  Value number = b.create<arith::ShRUIOp>(
      loc, tag, cx.cst(cx.i32, PBC_WIRE_TYPE_BITS));
  Value matches =
      cx.cmp(arith::CmpIPredicate::eq, number, group);
  continueOrFail(matches, PBC_ERR_END_GROUP);
  b.create<LLVM::BrOp>(loc, ValueRange{afterTag}, ret);

  b.setInsertionPointToStart(skip);
  Value next = b.create<wire::SkipOp>(loc, dec, afterTag, end, tag);
  cx.continueIfNotNull(next, fail);
  keepUnknown(next);
  continueAt(next);
}

/// Keeps the field just read, [tagStart, next), as an unknown field.
void DecoderBuilder::keepUnknown(Value next) {
  if (!message.keepsUnknownFields())
    return;
  Value ok = b.create<wire::KeepUnknownOp>(
      loc, dec, cx.unknownAddr(msg, message), tagStart, next);
  cx.continueIf(ok, fail);
}
