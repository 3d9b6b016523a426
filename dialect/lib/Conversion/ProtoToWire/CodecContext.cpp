//===- CodecContext.cpp - what every codec role builds with ---------------===//
#include "CodecContext.h"

#include "pbc/Dialect/Proto/Naming.h"
#include "pbc/Dialect/Wire/WireOps.h"

using namespace mlir;
using namespace pbc::proto;
namespace abi = pbc::abi;
namespace wire = pbc::wire;

CodecContext::CodecContext(ModuleOp module, const EncodingPlan &plan,
                           const llvm::StringSet<> &files)
    : module(module), plan(plan), b(module.getContext()),
      loc(module.getLoc()), files(files) {
  MLIRContext *ctx = module.getContext();
  ptrTy = LLVM::LLVMPointerType::get(ctx);
  i1 = b.getI1Type();
  i8 = b.getI8Type();
  i32 = b.getI32Type();
  i64 = b.getI64Type();
  voidTy = LLVM::LLVMVoidType::get(ctx);
}

//===----------------------------------------------------------------------===//
// Constants, memory and blocks
//===----------------------------------------------------------------------===//

Value CodecContext::cst(Type type, int64_t v) {
  return b.create<arith::ConstantOp>(loc, type, b.getIntegerAttr(type, v));
}

Value CodecContext::null() { return b.create<LLVM::ZeroOp>(loc, ptrTy); }

Value CodecContext::isNull(Value p) {
  return cmp(arith::CmpIPredicate::eq, p, null());
}

Value CodecContext::notNull(Value p) {
  return cmp(arith::CmpIPredicate::ne, p, null());
}

// The predicates are numbered alike in both dialects.
static_assert(static_cast<int>(arith::CmpIPredicate::eq) ==
                  static_cast<int>(LLVM::ICmpPredicate::eq) &&
              static_cast<int>(arith::CmpIPredicate::ult) ==
                  static_cast<int>(LLVM::ICmpPredicate::ult) &&
              static_cast<int>(arith::CmpIPredicate::uge) ==
                  static_cast<int>(LLVM::ICmpPredicate::uge));

Value CodecContext::cmp(arith::CmpIPredicate pred, Value lhs, Value rhs) {
  if (!isa<LLVM::LLVMPointerType>(lhs.getType()))
    return b.create<arith::CmpIOp>(loc, pred, lhs, rhs);
  return b.create<LLVM::ICmpOp>(
      loc, static_cast<LLVM::ICmpPredicate>(static_cast<uint64_t>(pred)), lhs,
      rhs);
}

Value CodecContext::offsetPtr(Value base, Value bytes) {
  return b.create<LLVM::GEPOp>(loc, ptrTy, i8, base,
                               ArrayRef<LLVM::GEPArg>{bytes});
}

Value CodecContext::offsetPtr(Value base, int64_t bytes) {
  if (bytes == 0)
    return base;
  return b.create<LLVM::GEPOp>(
      loc, ptrTy, i8, base,
      ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(bytes)},
      /*inbounds=*/true);
}

Value CodecContext::load(Type type, Value addr) {
  return b.create<LLVM::LoadOp>(loc, type, addr);
}

void CodecContext::store(Value v, Value addr) {
  b.create<LLVM::StoreOp>(loc, v, addr);
}

Value CodecContext::ptrDiff(Value hi, Value lo) {
  Value h = b.create<LLVM::PtrToIntOp>(loc, i64, hi);
  Value l = b.create<LLVM::PtrToIntOp>(loc, i64, lo);
  return b.create<arith::SubIOp>(loc, h, l);
}

Block *CodecContext::newBlock(Region &region) {
  Block *block = new Block();
  region.push_back(block);
  return block;
}

void CodecContext::continueIf(Value ok, Block *otherwise, Block *next) {
  if (!next)
    next = b.getBlock()->splitBlock(b.getInsertionPoint());
  b.create<LLVM::CondBrOp>(loc, ok, next, otherwise);
  b.setInsertionPointToStart(next);
}

void CodecContext::continueIfNotNull(Value p, Block *otherwise, Block *next) {
  if (!next)
    next = b.getBlock()->splitBlock(b.getInsertionPoint());
  b.create<LLVM::CondBrOp>(loc, isNull(p), otherwise, next);
  b.setInsertionPointToStart(next);
}

void CodecContext::handOffUnknownFields(
    const MessagePlan &m, Value msg, function_ref<Value(Value)> handOff) {
  assert(m.placesExtensions() && "no extension ranges, or no unknown fields");
  Value any = isNonZero(viewSize(unknownAddr(msg, m)));
  Region &body = *b.getBlock()->getParent();
  Block *table = newBlock(body), *own = newBlock(body);
  b.create<LLVM::CondBrOp>(loc, any, table, own);
  b.setInsertionPointToStart(table);
  Value result = handOff(b.create<LLVM::AddressOfOp>(loc, descGlobal(m)));
  b.create<LLVM::ReturnOp>(loc, result ? ValueRange(result) : ValueRange());
  b.setInsertionPointToStart(own);
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

void CodecContext::declareCodecs(const MessagePlan &m) {
  auto declare = [&](const abi::Codec &codec) {
    std::string name = abi::functionName(m.name, codec.role);
    if (codecs.count(name))
      return;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    auto f = b.create<LLVM::LLVMFuncOp>(
        loc, name, abi::llvmFunctionType(b.getContext(), codec));
    // Its role, for the later stages (CodeGen's inliner): an LLVM string
    // attribute, which changes nothing in the machine code.
    f.setPassthroughAttr(b.getArrayAttr({b.getArrayAttr(
        {b.getStringAttr(abi::kRoleAttr), b.getStringAttr(codec.suffix)})}));
    // A C `bool` result: the caller may read the whole register.
    if (codec.result == abi::Type::BOOL)
      f.setResultAttr(0, LLVM::LLVMDialect::getZExtAttrName(),
                      b.getUnitAttr());
    codecs[name] = f;
  };
  // What other messages' code calls, then the entry points of the
  // messages this compilation writes (and then the runtime functions
  // those call).
  for (const abi::Codec &codec : abi::codecs())
    if (codec.kind != abi::CodecKind::Entry)
      declare(codec);
  if (!generates(m))
    return;
  for (const abi::Codec &codec : abi::codecs())
    if (codec.kind == abi::CodecKind::Entry)
      declare(codec);
  for (abi::Runtime fn : {abi::Runtime::pbc_writer_status,
                          abi::Runtime::pbc_rt_decode,
                          abi::Runtime::pbc_rt_encode,
                          abi::Runtime::pbc_rt_encode_at_end})
    declareRuntime(fn);
}

bool CodecContext::mayHoldRequired(const MessagePlan &m) {
  if (!holdRequired) {
    llvm::DenseMap<const MessagePlan *, SmallVector<const MessagePlan *>>
        holders;
    SmallVector<const MessagePlan *> work;
    holdRequired.emplace();
    for (const MessagePlan *p : plan.messages()) {
      bool required = !generates(*p);
      for (const FieldPlan &f : p->fields) {
        required |= f.op.getCardinality() == Cardinality::Required;
        if (f.message)
          holders[f.message].push_back(p);
      }
      if (required && holdRequired->insert(p).second)
        work.push_back(p);
    }
    while (!work.empty())
      for (const MessagePlan *holder : holders.lookup(work.pop_back_val()))
        if (holdRequired->insert(holder).second)
          work.push_back(holder);
  }
  return holdRequired->contains(&m);
}

Block *CodecContext::define(const MessagePlan &m, abi::Role role) {
  LLVM::LLVMFuncOp f = codecs.lookup(abi::functionName(m.name, role));
  assert(f && "defining an undeclared codec");
  Block *entry = f.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  return entry;
}

Value CodecContext::call(const MessagePlan &m, abi::Role role,
                         ValueRange args) {
  LLVM::LLVMFuncOp f = codecs.lookup(abi::functionName(m.name, role));
  assert(f && "calling an undeclared codec");
  auto op = b.create<LLVM::CallOp>(loc, f, args);
  return op.getNumResults() ? op.getResult() : Value();
}

LLVM::LLVMFuncOp CodecContext::declareRuntime(abi::Runtime fn) {
  LLVM::LLVMFuncOp &f = runtime[fn];
  if (!f)
    f = abi::declareRuntime(b, module, fn);
  return f;
}

Value CodecContext::callRuntime(abi::Runtime fn, ValueRange args) {
  auto op = b.create<LLVM::CallOp>(loc, declareRuntime(fn), args);
  return op.getNumResults() ? op.getResult() : Value();
}

void CodecContext::returnRuntime(abi::Runtime fn, ValueRange args) {
  auto op = b.create<LLVM::CallOp>(loc, declareRuntime(fn), args);
  // Marked here, not left to -O2's passes: a function of only this call is
  // compiled at -O0 (CodeGen.cpp), which keeps the marker, and is a jump.
  op.setTailCallKind(LLVM::tailcallkind::TailCallKind::Tail);
  b.create<LLVM::ReturnOp>(loc, op.getResults());
}

Value CodecContext::addressOf(const MessagePlan &m, abi::Role role) {
  return b.create<LLVM::AddressOfOp>(loc, ptrTy,
                                     abi::functionName(m.name, role));
}

//===----------------------------------------------------------------------===//
// Records other records point to
//===----------------------------------------------------------------------===//

Type CodecContext::infoType() {
  SmallVector<Type> members;
  for (const abi::InfoField &field : abi::infoFields())
    members.push_back(field.kind == abi::InfoField::Size ? i64 : ptrTy);
  return LLVM::LLVMStructType::getLiteral(b.getContext(), members);
}

LLVM::GlobalOp CodecContext::declareRecord(StringRef name, Type type) {
  LLVM::GlobalOp &global = records[name];
  if (!global) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    global = b.create<LLVM::GlobalOp>(loc, type, /*isConstant=*/true,
                                      LLVM::Linkage::External, name,
                                      Attribute(), /*alignment=*/8);
  }
  return global;
}

LLVM::GlobalOp CodecContext::infoGlobal(const MessagePlan &m) {
  return declareRecord(cInfoName(m.name), infoType());
}

LLVM::GlobalOp CodecContext::descGlobal(const MessagePlan &m) {
  return declareRecord(
      internalDescription(m.name),
      abi::llvmStructType(b.getContext(), abi::DescRecord::Message));
}

LLVM::GlobalOp CodecContext::extensionInfoGlobal(StringRef fullName) {
  return declareRecord(
      cExtensionName(fullName),
      abi::llvmStructType(b.getContext(), abi::DescRecord::Extension));
}

LLVM::GlobalOp CodecContext::enumInfoGlobal(EnumOp e) {
  return declareRecord(
      internalEnumInfo(e.getSymName()),
      abi::llvmStructType(b.getContext(), abi::DescRecord::Enum));
}

//===----------------------------------------------------------------------===//
// Fields in memory
//===----------------------------------------------------------------------===//

Type CodecContext::storageType(const FieldTypeInfo &type) {
  switch (type.repr) {
  case ValueRepr::FLOAT:
    return type.size == 8 ? Type(b.getF64Type()) : Type(b.getF32Type());
  case ValueRepr::MESSAGE:
    return ptrTy;
  case ValueRepr::VIEW:
    llvm_unreachable("a view is two members");
  default:
    return b.getIntegerType(8 * type.size);
  }
}

Value CodecContext::presenceWord(Value msg, const FieldPlan &f) {
  return offsetPtr(msg, (f.presenceBit / 32) * 4);
}

uint32_t CodecContext::presenceMask(ArrayRef<const FieldPlan *> fields) {
  uint32_t mask = 0;
  for (const FieldPlan *f : fields)
    mask |= uint32_t(1) << (f->presenceBit % 32);
  return mask;
}

Value CodecContext::hasBit(Value msg, const FieldPlan &f) {
  Value word = load(i32, presenceWord(msg, f));
  Value bit = b.create<arith::AndIOp>(loc, word, cst(i32, presenceMask(&f)));
  return cmp(arith::CmpIPredicate::ne, bit,
                                 cst(i32, 0));
}

Value CodecContext::anyBits(Value word, uint32_t mask) {
  Value bits = b.create<arith::AndIOp>(loc, word, cst(i32, mask));
  return cmp(arith::CmpIPredicate::ne, bits,
                                 cst(i32, 0));
}

Value CodecContext::isOneofCase(Value msg, const FieldPlan &f) {
  Value c = load(i32, offsetPtr(msg, f.caseOffset));
  return cmp(arith::CmpIPredicate::eq, c,
                                 cst(i32, f.number));
}

void CodecContext::markPresent(Value msg, const FieldPlan &f) {
  if (f.inOneof) {
    store(cst(i32, f.number), offsetPtr(msg, f.caseOffset));
  } else if (f.hasPresenceBit()) {
    Value addr = presenceWord(msg, f);
    Value word = load(i32, addr);
    store(b.create<arith::OrIOp>(loc, word, cst(i32, presenceMask(&f))), addr);
  }
}

void CodecContext::markPresentIf(Value msg, const FieldPlan &f, Value flag) {
  assert(f.hasPresenceBit() && "a field with a presence bit");
  Value addr = presenceWord(msg, f);
  Value bit = b.create<arith::ShLIOp>(loc, flag, cst(i32, f.presenceBit % 32));
  store(b.create<arith::OrIOp>(loc, load(i32, addr), bit), addr);
}

Value CodecContext::isPresent(Value msg, const FieldPlan &f, Value value) {
  switch (f.presence) {
  case Presence::OneofCase:
    return isOneofCase(msg, f);
  case Presence::Bit:
    return hasBit(msg, f);
  case Presence::Always:
    return cst(i1, 1);
  case Presence::Implicit:
    return isNonZero(value);
  case Presence::Pointer:
  case Presence::Repeated:
    break;
  }
  llvm_unreachable("not a singular non-message field");
}

Value CodecContext::isMessagePresent(Value msg, const FieldPlan &f, Value sub) {
  Value there = notNull(sub);
  if (!f.inOneof)
    return there;
  return b.create<arith::AndIOp>(loc, there, isOneofCase(msg, f));
}

Value CodecContext::isNonZero(Value v) {
  Type t = v.getType();
  if (isa<FloatType>(t)) {
    Type bits = b.getIntegerType(t.getIntOrFloatBitWidth());
    v = b.create<arith::BitcastOp>(loc, bits, v);
    t = bits;
  }
  return cmp(arith::CmpIPredicate::ne, v, cst(t, 0));
}

//===----------------------------------------------------------------------===//
// Values on the wire
//===----------------------------------------------------------------------===//

Value CodecContext::toVarint(const FieldTypeInfo &type, Value v) {
  if (type.size == 8 && type.repr != ValueRepr::ZIGZAG)
    return v;
  switch (type.repr) {
  case ValueRepr::SIGNED:
    return b.create<arith::ExtSIOp>(loc, i64, v);
  case ValueRepr::UNSIGNED:
    return b.create<arith::ExtUIOp>(loc, i64, v);
  case ValueRepr::BOOL:
    // Any non-zero byte is true and written as 1: one byte, as sized, and
    // the writer knows it needs no continuation bit.
    return b.create<arith::ExtUIOp>(loc, i64, isNonZero(v));
  case ValueRepr::ZIGZAG:
    if (type.size == 8)
      return b.create<wire::ZigZagEncodeOp>(loc, v);
    return b.create<arith::ExtUIOp>(loc, i64,
                                    b.create<wire::ZigZagEncodeOp>(loc, v));
  default:
    llvm_unreachable("not a varint");
  }
}

Value CodecContext::fromVarint(const FieldTypeInfo &type, Value v) {
  switch (type.repr) {
  case ValueRepr::SIGNED:
  case ValueRepr::UNSIGNED:
    return type.size == 8 ? v : b.create<arith::TruncIOp>(loc, i32, v);
  case ValueRepr::ZIGZAG:
    if (type.size == 8)
      return b.create<wire::ZigZagDecodeOp>(loc, v);
    return b.create<wire::ZigZagDecodeOp>(
        loc, b.create<arith::TruncIOp>(loc, i32, v));
  case ValueRepr::BOOL: {
    Value nz = cmp(arith::CmpIPredicate::ne, v,
                                       cst(i64, 0));
    return b.create<arith::ExtUIOp>(loc, i8, nz);
  }
  default:
    llvm_unreachable("not a varint");
  }
}

Value CodecContext::valueSize(const FieldTypeInfo &type, Value v) {
  if (unsigned size = type.constantWireSize())
    return cst(i64, size);
  return b.create<wire::VarintSizeOp>(loc, toVarint(type, v));
}

Value CodecContext::lengthDelimitedSize(Value len) {
  return b.create<arith::AddIOp>(loc, b.create<wire::VarintSizeOp>(loc, len),
                                 len);
}

Value CodecContext::singularSize(Value msg, const FieldPlan &f) {
  Value addr = fieldAddr(msg, f);
  Value size;
  if (f.type->isView())
    size = lengthDelimitedSize(load(i64, viewSizeAddr(addr)));
  else
    size = valueSize(*f.type, load(storageType(*f.type), addr));
  return b.create<arith::AddIOp>(loc, size, cst(i64, f.tag.size()));
}

Value CodecContext::embeddedSize(const FieldPlan &f, Value sub) {
  Value n = call(*f.message, abi::Role::EncodedSize, sub);
  if (f.isGroup())
    return b.create<arith::AddIOp>(loc, n, cst(i64, f.endGroupTag.size()));
  return lengthDelimitedSize(n);
}

Value CodecContext::putValue(const FieldTypeInfo &type, Value pos, Value v) {
  if (type.fixedWidth())
    return b.create<wire::PutFixedOp>(loc, pos, v);
  return b.create<wire::PutVarintOp>(loc, pos, toVarint(type, v));
}

Value CodecContext::putBytes(Value pos, StringRef bytes) {
  return b.create<wire::PutBytesOp>(loc, pos, b.getStringAttr(bytes));
}

Value CodecContext::addIf(Value cond, Value total, function_ref<Value()> size) {
  auto ifOp = b.create<scf::IfOp>(
      loc, cond,
      [&](OpBuilder &, Location) {
        b.create<scf::YieldOp>(
            loc, ValueRange{b.create<arith::AddIOp>(loc, total, size())});
      },
      [&](OpBuilder &, Location) {
        b.create<scf::YieldOp>(loc, ValueRange{total});
      });
  return ifOp.getResult(0);
}

Value CodecContext::sumElements(const FieldPlan &f, Value data, Value count,
                                function_ref<Value(Value)> body) {
  auto loop = b.create<scf::ForOp>(
      loc, cst(i64, 0), count, cst(i64, 1), ValueRange{cst(i64, 0)},
      [&](OpBuilder &, Location, Value i, ValueRange acc) {
        Value off = b.create<arith::MulIOp>(loc, i, cst(i64, f.elementSize));
        Value s = body(offsetPtr(data, off));
        b.create<scf::YieldOp>(
            loc, ValueRange{b.create<arith::AddIOp>(loc, acc[0], s)});
      });
  return loop.getResult(0);
}

LLVM::GlobalOp CodecContext::textGlobal(StringRef symbol, StringRef text) {
  LLVM::GlobalOp &global = texts[symbol];
  if (!global) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    global = b.create<LLVM::GlobalOp>(
        loc, LLVM::LLVMArrayType::get(i8, text.size()), /*isConstant=*/true,
        LLVM::Linkage::Private, symbol, b.getStringAttr(text));
    global.setUnnamedAddr(LLVM::UnnamedAddr::Global);
  }
  return global;
}
