//===- FromJson.cpp - pbc__T_from_json: a message's ProtoJSON object ------===//
//
// pbc__T_from_json(m, ps) parses the JSON object at the parser's position
// into m (runtime/json_parse.c holds the parser and its rules), the way the
// parser's own member loop does but with the walk over the names unrolled:
// an in-order expect-key chain. Members usually come in field-number order
// (every printer writes them so, leaving out the fields not set), so after
// field k's member the code compares the text with field k+1's whole
// `"json_name":` (or, with a profile, the field's seen after k), a
// constant the runtime's pbc_json_key compares in a few wide loads once
// LLVM inlines it; a miss tries the fields after it the same way, a hit
// goes straight to that field's value. What the chain does not find (a
// field before, a declared name, an escape, white space before the colon,
// an extension, an unknown member) the runtime finds by name and returns
// the field's index for one switch over the fields' value blocks.
//
// A value is one runtime call that stores it into m (or, for what the
// struct cannot take as it comes, a map's entries and a closed enum's
// undeclared number, keeps it in the wire form for the table decoder to
// merge into m at the object's end, pbc_json_close_object). A repeated
// field's elements go straight into its array. A singular scalar, string, bytes or enum
// field outside a oneof, most of a message's, costs the runtime no
// bookkeeping: the code tests and sets its given-once bit itself (kept in
// a register across the members' loop), calls its type's reader with the
// member's address (which reads the ',' or '}' after the value too), and
// sets its presence bit when the reader stored a value. A message
// field's value (each element of a repeated one's) is a struct that the
// sub-message's own pbc__S_from_json fills, so the chain goes on inside
// it. The messages whose JSON is not their fields (see jsonIsFields)
// parse from the description, as compact ones do.
//
//===----------------------------------------------------------------------===//
#include "CodecContext.h"

using namespace mlir;
using namespace pbc::proto;
using pbc::abi::Role;
using pbc::abi::Runtime;

namespace {

class JsonParserBuilder : RoleBuilder {
public:
  using RoleBuilder::RoleBuilder;

  void build(const MessagePlan &m);

private:
  Value msg, ps, desc, frame;
  Block *dispatch, *miss, *done, *fail, *twice;
  /// The given-once bits of the fields whose values the code stores
  /// (hasOwnBit), a word per 64 fields: allocas that LLVM keeps in
  /// registers.
  SmallVector<Value> given;
  /// Per field (by number): where its `"name":` is compared, its value
  /// (argument: whether its ':' is still to read), and the blocks of both
  /// in the order they go into the function.
  SmallVector<Block *> keys, values;
  SmallVector<SmallVector<Block *, 6>> fieldBlocks;

  Block *newBlock() { return cx.newBlock(*b.getBlock()->getParent()); }
  void branchIf(Value cond, Block *then, Block *otherwise);
  Block *nextAfter(const MessagePlan &m, uint32_t index);
  void buildKey(const MessagePlan &m, uint32_t index);
  void buildValue(const MessagePlan &m, uint32_t index);
  void buildScalarValue(const MessagePlan &m, uint32_t index, Value colon,
                        Value i);
  void buildDispatch(const MessagePlan &m);
  /// A singular scalar, string, bytes or enum field outside a oneof: its
  /// given-once bit is the compiled code's, its value one call.
  static bool hasOwnBit(const FieldPlan &f) {
    return !f.isRepeated() && !f.type->isMessage() && !f.inOneof;
  }
};

/// The dispatch block is where the chain's start and the search's answers
/// meet: it goes to the first key, to the end, or to the value of the
/// field the search found. Every path from the entry passes it before any
/// field's block, so the members' loop has this one header, and LLVM a
/// reducible loop. Its cases besides a field's index:
static constexpr int32_t kStart = -3, kEnd = -2;

void JsonParserBuilder::build(const MessagePlan &m) {
  Block *entry = cx.define(m, Role::FromJson);
  msg = entry->getArgument(0);
  ps = entry->getArgument(1);
  desc = b.create<LLVM::AddressOfOp>(loc, cx.descGlobal(m));
  if (!jsonIsFields(m)) {
    b.create<LLVM::ReturnOp>(
        loc, cx.callRuntime(Runtime::pbc_json_parse_message, {desc, msg, ps}));
    return;
  }
  size_t n = m.byNumber.size();
  for (size_t word = 0; word < (n + 63) / 64; word++) {
    given.push_back(b.create<LLVM::AllocaOp>(loc, cx.ptrTy, cx.i64,
                                             cx.cst(cx.i64, 1)));
    cx.store(cx.cst(cx.i64, 0), given.back());
  }
  frame = cx.callRuntime(Runtime::pbc_json_open_object, {ps, desc});
  Region &body = *entry->getParent();
  dispatch = newBlock();
  dispatch->addArgument(cx.i32, loc);
  miss = newBlock();
  done = newBlock();
  fail = newBlock();
  twice = newBlock();
  twice->addArgument(cx.i32, loc);
  fieldBlocks.resize(n);
  for (size_t i = 0; i < n; i++) {
    keys.push_back(newBlock());
    values.push_back(newBlock());
    values.back()->addArgument(cx.i1, loc);
    fieldBlocks[i] = {keys[i], values[i]};
  }

  // -1: an error; -2: `{}`, read whole, no frame to close.
  Block *negative = newBlock(), *empty = newBlock();
  b.create<LLVM::CondBrOp>(
      loc, cx.cmp(arith::CmpIPredicate::slt, frame, cx.cst(cx.i64, 0)),
      negative, ValueRange(), dispatch, ValueRange{cx.cst(cx.i32, kStart)});
  b.setInsertionPointToStart(negative);
  branchIf(cx.cmp(arith::CmpIPredicate::eq, frame, cx.cst(cx.i64, kEnd)),
           empty, fail);
  b.setInsertionPointToStart(empty);
  b.create<LLVM::ReturnOp>(loc, cx.cst(cx.i1, 1));

  for (uint32_t i = 0; i < n; i++) {
    buildKey(m, i);
    buildValue(m, i);
  }
  buildDispatch(m);
  b.setInsertionPointToStart(done);
  b.create<LLVM::ReturnOp>(
      loc, cx.callRuntime(Runtime::pbc_json_close_object,
                          {ps, desc, frame, msg}));
  b.setInsertionPointToStart(twice);
  cx.callRuntime(Runtime::pbc_json_given_twice,
                 {ps, desc, twice->getArgument(0)});
  b.create<LLVM::BrOp>(loc, ValueRange(), fail);
  b.setInsertionPointToStart(fail);
  b.create<LLVM::ReturnOp>(loc, cx.cst(cx.i1, 0));

  // The header, the fields' blocks in number order, the search and the
  // exits: the only branch back is the search's to the header.
  auto &list = body.getBlocks();
  auto toEnd = [&](Block *block) {
    list.splice(list.end(), list, block->getIterator());
  };
  toEnd(dispatch);
  for (auto &blocks : fieldBlocks)
    llvm::for_each(blocks, toEnd);
  for (Block *block : {miss, negative, empty, done, twice, fail})
    toEnd(block);
}

/// The runtime's reader of a singular value of type `t`: one per way
/// ProtoJSON reads a type and the struct keeps it, so that the runtime
/// does not switch on the type per value.
static Runtime valueReader(const FieldTypeInfo &t) {
  switch (t.type) {
  case FieldType::Double: return Runtime::pbc_json_double;
  case FieldType::Float: return Runtime::pbc_json_float;
  case FieldType::Bool: return Runtime::pbc_json_bool;
  case FieldType::Enum: return Runtime::pbc_json_enum;
  case FieldType::String: return Runtime::pbc_json_string;
  case FieldType::Bytes: return Runtime::pbc_json_bytes;
  default:
    assert(t.isPackable() && !t.isMessage() && "an integer type");
    if (t.repr == ValueRepr::UNSIGNED)
      return t.size == 8 ? Runtime::pbc_json_uint64 : Runtime::pbc_json_uint32;
    return t.size == 8 ? Runtime::pbc_json_int64 : Runtime::pbc_json_int32;
  }
}

void JsonParserBuilder::branchIf(Value cond, Block *then, Block *otherwise) {
  b.create<LLVM::CondBrOp>(loc, cond, then, otherwise);
}

/// Where the chain goes after field `index`'s member: the key of the field
/// a profile saw next, else of the next by number; after the last, the
/// search by name.
Block *JsonParserBuilder::nextAfter(const MessagePlan &m, uint32_t index) {
  const FieldPlan &f = *m.byNumber[index];
  uint32_t next = index + 1;
  if (std::optional<uint32_t> observed = f.op.getFollowedBy())
    for (auto [i, g] : llvm::enumerate(m.byNumber))
      if (g->number == *observed)
        next = i;
  return next < keys.size() ? keys[next] : miss;
}

/// Field `index`'s `"name":` comes next: its value; else the next field's
/// key, and after the last, the search.
void JsonParserBuilder::buildKey(const MessagePlan &m, uint32_t index) {
  const FieldPlan &f = *m.byNumber[index];
  b.setInsertionPointToStart(keys[index]);
  Block *otherwise = index + 1 < keys.size() ? keys[index + 1] : miss;
  if (!plainJson(f.jsonName)) {
    b.create<LLVM::BrOp>(loc, ValueRange(), otherwise);
    return;
  }
  std::string text = "\"" + f.jsonName + "\":";
  std::string symbol = ("pbc__" + m.name + "_json_key_" + Twine(f.number)).str();
  Value hit = cx.callRuntime(
      Runtime::pbc_json_key,
      {ps, b.create<LLVM::AddressOfOp>(loc, cx.textGlobal(symbol, text)),
       cx.cst(cx.i64, text.size())});
  b.create<LLVM::CondBrOp>(loc, hit, values[index],
                           ValueRange{cx.cst(cx.i1, 0)}, otherwise,
                           ValueRange());
}

/// Field `index`'s value, then the ',' that leads to the next member or
/// the '}' that ends the object.
void JsonParserBuilder::buildValue(const MessagePlan &m, uint32_t index) {
  const FieldPlan &f = *m.byNumber[index];
  Block *value = values[index];
  b.setInsertionPointToStart(value);
  Value colon = value->getArgument(0);
  Value i = cx.cst(cx.i32, index);
  if (hasOwnBit(f))
    return buildScalarValue(m, index, colon, i);
  Block *separator = newBlock();
  bool isMap = f.isRepeated() && f.message && f.message->isMapEntry;
  if (f.type->isMessage() && !isMap) {
    Value parse = cx.addressOf(*f.message, Role::FromJson);
    branchIf(cx.callRuntime(Runtime::pbc_json_message_member,
                            {ps, desc, frame, i, colon, msg, parse}),
             separator, fail);
  } else {
    branchIf(cx.callRuntime(Runtime::pbc_json_member,
                            {ps, desc, frame, i, colon, msg}),
             separator, fail);
  }
  fieldBlocks[index].push_back(separator);
  b.setInsertionPointToStart(separator);
  Value more = cx.callRuntime(Runtime::pbc_json_more, {ps, desc});
  b.create<LLVM::SwitchOp>(loc, more, fail, ValueRange(),
                           ArrayRef<int32_t>{0, 1},
                           BlockRange{done, nextAfter(m, index)},
                           ArrayRef<ValueRange>{ValueRange(), ValueRange()});
}

/// A field of hasOwnBit's: its given-once bit tested and set, its value
/// and the ',' or '}' after it one call to its type's reader.
void JsonParserBuilder::buildScalarValue(const MessagePlan &m, uint32_t index,
                                         Value colon, Value i) {
  const FieldPlan &f = *m.byNumber[index];
  // Given before: an error; else the bit set and the value stored.
  Value word = given[index / 64];
  Value bits = cx.load(cx.i64, word);
  Value bit = cx.cst(cx.i64, int64_t(1) << (index % 64));
  Block *fresh = newBlock();
  fieldBlocks[index].push_back(fresh);
  b.create<LLVM::CondBrOp>(
      loc,
      cx.cmp(arith::CmpIPredicate::ne,
             b.create<arith::AndIOp>(loc, bits, bit), cx.cst(cx.i64, 0)),
      twice, ValueRange{i}, fresh, ValueRange());
  b.setInsertionPointToStart(fresh);
  cx.store(b.create<arith::OrIOp>(loc, bits, bit), word);
  Value read = cx.callRuntime(valueReader(*f.type),
                              {ps, desc, i, colon, cx.fieldAddr(msg, f)});
  // The reader reads the ',' or '}' after the value too: -1 an error;
  // else bit 0: stored, so present (not null, nor kept for the unknown
  // fields); bit 1: the object ended. Two tests and the presence bit or'ed
  // in from bit 0, where a switch on the four answers was a jump table a
  // field (and an indirect jump a value).
  Block *next = nextAfter(m, index);
  Block *read0 = newBlock();
  fieldBlocks[index].push_back(read0);
  b.create<LLVM::CondBrOp>(
      loc, cx.cmp(arith::CmpIPredicate::sge, read, cx.cst(cx.i32, 0)), read0,
      fail);
  b.setInsertionPointToStart(read0);
  if (f.hasPresenceBit())
    cx.markPresentIf(
        msg, f, b.create<arith::AndIOp>(loc, read, cx.cst(cx.i32, 1)));
  Value ended = cx.cmp(arith::CmpIPredicate::ne,
                       b.create<arith::AndIOp>(loc, read, cx.cst(cx.i32, 2)),
                       cx.cst(cx.i32, 0));
  branchIf(ended, done, next);
}

/// A member the chain did not find: the runtime reads its name, and what
/// it does not hand back (an extension, an ignored unknown member) itself,
/// and returns the field's index, or the object's end; the header goes
/// there.
void JsonParserBuilder::buildDispatch(const MessagePlan &m) {
  b.setInsertionPointToStart(miss);
  Value index =
      cx.callRuntime(Runtime::pbc_json_find_member, {ps, desc, frame});
  b.create<LLVM::BrOp>(loc, ValueRange{index}, dispatch);

  b.setInsertionPointToStart(dispatch);
  SmallVector<int32_t> cases{kStart, kEnd};
  SmallVector<Block *> dests{keys.empty() ? miss : keys[0], done};
  SmallVector<ValueRange> operands{ValueRange(), ValueRange()};
  Value colon = cx.cst(cx.i1, 1);
  for (uint32_t i = 0; i < values.size(); i++) {
    cases.push_back(i);
    dests.push_back(values[i]);
    operands.push_back(colon);
  }
  b.create<LLVM::SwitchOp>(loc, dispatch->getArgument(0), fail, ValueRange(),
                           cases, dests, operands);
}

} // namespace

void pbc::proto::buildFromJson(CodecContext &cx, const MessagePlan &m) {
  JsonParserBuilder(cx).build(m);
}
