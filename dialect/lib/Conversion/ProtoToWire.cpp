//===- ProtoToWire.cpp - codec functions from the schema ------------------===//
//
// For every message this pass writes specialized code: no tables, no
// interpreter. The decoder is a loop around a switch on the full tag (field
// number and wire type) whose cases read the value and store it at the
// field's offset; the encoder writes the fields backwards (highest number
// first) so a sub-message's length is known when its header is written; the
// size function adds the sizes of the fields that are there, testing
// presence bits a group at a time. Tags, tag sizes and offsets are constants
// in the IR.
//
//===----------------------------------------------------------------------===//
#include "pbc/Conversion/Passes.h"
#include "pbc/Dialect/Proto/Naming.h"
#include "pbc/Dialect/Proto/ProtoOps.h"
#include "pbc/Dialect/Wire/WireOps.h"
#include "pbc/pbc.h" // the status codes the generated code reports

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>
#include <map>

namespace pbc {
#define GEN_PASS_DEF_PROTOTOWIRE
#include "pbc/Conversion/Passes.h.inc"
} // namespace pbc

using namespace mlir;
using namespace pbc::proto;
namespace wire = pbc::wire;

namespace {

enum WireType : uint32_t {
  kVarint = 0,
  kFixed64 = 1,
  kLen = 2,
  kStartGroup = 3,
  kEndGroupWire = 4,
  kFixed32 = 5,
};

WireType naturalWireType(FieldType type) {
  switch (type) {
  case FieldType::Double:
  case FieldType::Fixed64:
  case FieldType::SFixed64:
    return kFixed64;
  case FieldType::Float:
  case FieldType::Fixed32:
  case FieldType::SFixed32:
    return kFixed32;
  case FieldType::String:
  case FieldType::Bytes:
  case FieldType::Message:
    return kLen;
  case FieldType::Group:
    return kStartGroup;
  default:
    return kVarint;
  }
}

uint32_t makeTag(FieldOp field, WireType wt) {
  return (static_cast<uint32_t>(field.getNumber()) << 3) | wt;
}

std::string varintBytes(uint64_t v) {
  std::string out;
  do {
    uint8_t byte = v & 0x7f;
    v >>= 7;
    out.push_back(static_cast<char>(v ? byte | 0x80 : byte));
  } while (v);
  return out;
}

/// Width in bytes of a fixed-width type, 0 for varints and the rest.
int64_t fixedWidth(FieldType type) {
  switch (naturalWireType(type)) {
  case kFixed32:
    return 4;
  case kFixed64:
    return 8;
  default:
    return 0;
  }
}

/// Builds the codec functions of the messages of one module.
class CodecBuilder {
public:
  CodecBuilder(ModuleOp module, const llvm::StringSet<> &files)
      : module(module), files(files), b(module.getContext()),
        loc(module.getLoc()) {
    MLIRContext *ctx = module.getContext();
    ptrTy = LLVM::LLVMPointerType::get(ctx);
    i1 = b.getI1Type();
    i8 = b.getI8Type();
    i32 = b.getI32Type();
    i64 = b.getI64Type();
    voidTy = LLVM::LLVMVoidType::get(ctx);
  }

  void run() {
    SmallVector<MessageOp> messages(module.getOps<MessageOp>());
    for (MessageOp m : messages)
      symbols[m.getSymName()] = m;
    for (MessageOp m : messages)
      for (FieldOp field : m.getFields())
        if (field.getType() == FieldType::Group)
          groupNumbers[field.getTypeNameAttr().getValue()].push_back(
              field.getNumber());
    for (EnumOp e : module.getOps<EnumOp>())
      enums[e.getSymName()] = e;
    for (MessageOp m : messages)
      declareFunctions(m);
    SmallVector<Attribute> infos;
    for (MessageOp m : messages) {
      if (!generates(m))
        continue;
      buildInit(m);
      buildIsInitialized(m);
      buildSize(m);
      buildEncoder(m);
      buildWriter(m);
      buildDecoder(m);
      buildEntryPoints(m);
      infos.push_back(buildInfo(m));
    }
    buildUsedList(infos);
    for (Operation &op : llvm::make_early_inc_range(module.getOps()))
      if (isa<MessageOp, EnumOp, FileOp>(op))
        op.erase();
  }

private:
  ModuleOp module;
  const llvm::StringSet<> &files;
  OpBuilder b;
  Location loc;
  Type ptrTy, i1, i8, i32, i64, voidTy;
  llvm::StringMap<MessageOp> symbols;
  llvm::StringMap<EnumOp> enums;
  llvm::StringMap<LLVM::LLVMFuncOp> funcs;
  /// Per message, the numbers of the group fields that hold it.
  llvm::StringMap<SmallVector<uint32_t, 1>> groupNumbers;

  bool generates(MessageOp m) {
    return files.empty() || files.contains(m.getFile());
  }

  //===--------------------------------------------------------------------===//
  // Small IR helpers
  //===--------------------------------------------------------------------===//

  Value cst(Type type, int64_t v) {
    return b.create<arith::ConstantOp>(loc, type, b.getIntegerAttr(type, v));
  }
  Value null() { return b.create<LLVM::ZeroOp>(loc, ptrTy); }
  Value isNull(Value p) {
    return b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::eq, p, null());
  }
  Value offsetPtr(Value base, Value bytes) {
    return b.create<LLVM::GEPOp>(loc, ptrTy, i8, base,
                                 ArrayRef<LLVM::GEPArg>{bytes});
  }
  Value offsetPtr(Value base, int64_t bytes) {
    if (bytes == 0)
      return base;
    return b.create<LLVM::GEPOp>(
        loc, ptrTy, i8, base,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(bytes)},
        /*inbounds=*/true);
  }
  Value load(Type type, Value addr) {
    return b.create<LLVM::LoadOp>(loc, type, addr);
  }
  void store(Value v, Value addr) { b.create<LLVM::StoreOp>(loc, v, addr); }
  Value ptrDiff(Value hi, Value lo) {
    Value h = b.create<LLVM::PtrToIntOp>(loc, i64, hi);
    Value l = b.create<LLVM::PtrToIntOp>(loc, i64, lo);
    return b.create<arith::SubIOp>(loc, h, l);
  }
  Value call(StringRef name, ValueRange args) {
    LLVM::LLVMFuncOp f = funcs.lookup(name);
    assert(f && "calling an undeclared function");
    auto op = b.create<LLVM::CallOp>(loc, f, args);
    return op.getNumResults() ? op.getResult() : Value();
  }

  LLVM::LLVMFuncOp declare(StringRef name, Type result, ArrayRef<Type> args) {
    if (LLVM::LLVMFuncOp f = funcs.lookup(name))
      return f;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    auto f = b.create<LLVM::LLVMFuncOp>(
        loc, name, LLVM::LLVMFunctionType::get(result, args));
    funcs[name] = f;
    return f;
  }

  /// Starts the body of a declared function and returns its entry block.
  Block *define(StringRef name) {
    LLVM::LLVMFuncOp f = funcs.lookup(name);
    Block *entry = f.addEntryBlock(b);
    b.setInsertionPointToStart(entry);
    return entry;
  }

  //===--------------------------------------------------------------------===//
  // Fields in memory
  //===--------------------------------------------------------------------===//

  /// The type a singular field's value has in the struct.
  Type storageType(FieldType type) {
    switch (type) {
    case FieldType::Double:
      return b.getF64Type();
    case FieldType::Float:
      return b.getF32Type();
    case FieldType::Int64:
    case FieldType::UInt64:
    case FieldType::Fixed64:
    case FieldType::SFixed64:
    case FieldType::SInt64:
      return i64;
    case FieldType::Bool:
      return i8;
    case FieldType::Message:
    case FieldType::Group:
      return ptrTy;
    default:
      return i32;
    }
  }

  MessageOp messageOf(FieldOp field) {
    return symbols.lookup(field.getTypeNameAttr().getValue());
  }

  /// Bytes one element of a repeated field takes in its array.
  int64_t elementSize(FieldOp field) {
    switch (field.getType()) {
    case FieldType::String:
    case FieldType::Bytes:
      return 16;
    case FieldType::Message:
    case FieldType::Group:
      return *messageOf(field).getSize();
    case FieldType::Bool:
      return 1;
    default:
      return storageType(field.getType()).getIntOrFloatBitWidth() / 8;
    }
  }

  Value fieldAddr(Value msg, FieldOp field) {
    return offsetPtr(msg, *field.getOffset());
  }

  Value presenceWord(Value msg, FieldOp field) {
    return offsetPtr(msg, (*field.getPresenceBit() / 32) * 4);
  }
  Value presenceMask(FieldOp field) {
    return cst(i32, int64_t(1) << (*field.getPresenceBit() % 32));
  }
  Value hasBit(Value msg, FieldOp field) {
    Value word = load(i32, presenceWord(msg, field));
    Value bit = b.create<arith::AndIOp>(loc, word, presenceMask(field));
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, bit,
                                   cst(i32, 0));
  }
  void setHasBit(Value msg, FieldOp field) {
    Value addr = presenceWord(msg, field);
    Value word = load(i32, addr);
    store(b.create<arith::OrIOp>(loc, word, presenceMask(field)), addr);
  }

  /// A oneof's case: the field number of the member set, 0 for none.
  Value oneofCaseAddr(Value msg, FieldOp field) {
    return offsetPtr(msg, *field.getOneof().getCaseOffset());
  }
  Value isOneofCase(Value msg, FieldOp field) {
    Value c = load(i32, oneofCaseAddr(msg, field));
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, c,
                                   cst(i32, field.getNumber()));
  }

  /// Records that a singular field was decoded: its presence bit, or its
  /// oneof's case.
  void markPresent(Value msg, FieldOp field) {
    if (field.getOneof())
      store(cst(i32, field.getNumber()), oneofCaseAddr(msg, field));
    else if (field.hasPresenceBit())
      setHasBit(msg, field);
  }

  bool inMapEntry(FieldOp field) {
    return field.getParentMessage().getMapEntry();
  }

  Value unknownAddr(Value msg, MessageOp m) {
    return offsetPtr(msg, *m.getUnknownOffset());
  }

  //===--------------------------------------------------------------------===//
  // Scalars on the wire
  //===--------------------------------------------------------------------===//

  /// The unsigned 64-bit varint a stored value is written as.
  Value toVarint(FieldType type, Value v) {
    switch (type) {
    case FieldType::Int32:
    case FieldType::Enum:
      return b.create<arith::ExtSIOp>(loc, i64, v);
    case FieldType::UInt32:
      return b.create<arith::ExtUIOp>(loc, i64, v);
    case FieldType::Bool:
      // Any non-zero byte is true and written as 1: one byte, as sized,
      // and the writer knows it needs no continuation bit.
      return b.create<arith::ExtUIOp>(loc, i64, isNonZero(v));
    case FieldType::SInt32:
      return b.create<arith::ExtUIOp>(
          loc, i64, b.create<wire::ZigZagEncodeOp>(loc, v));
    case FieldType::SInt64:
      return b.create<wire::ZigZagEncodeOp>(loc, v);
    default:
      return v;
    }
  }

  /// The stored value of a varint read from the wire.
  Value fromVarint(FieldType type, Value v) {
    switch (type) {
    case FieldType::Int32:
    case FieldType::UInt32:
    case FieldType::Enum:
      return b.create<arith::TruncIOp>(loc, i32, v);
    case FieldType::SInt32:
      return b.create<wire::ZigZagDecodeOp>(
          loc, b.create<arith::TruncIOp>(loc, i32, v));
    case FieldType::SInt64:
      return b.create<wire::ZigZagDecodeOp>(loc, v);
    case FieldType::Bool: {
      Value nz = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, v,
                                         cst(i64, 0));
      return b.create<arith::ExtUIOp>(loc, i8, nz);
    }
    default:
      return v;
    }
  }

  /// Bytes the value takes on the wire (without tag).
  Value valueSize(FieldType type, Value v) {
    if (int64_t w = fixedWidth(type))
      return cst(i64, w);
    if (type == FieldType::Bool)
      return cst(i64, 1);
    return b.create<wire::VarintSizeOp>(loc, toVarint(type, v));
  }

  Value putValue(FieldType type, Value pos, Value v) {
    if (fixedWidth(type))
      return b.create<wire::PutFixedOp>(loc, pos, v);
    return b.create<wire::PutVarintOp>(loc, pos, toVarint(type, v));
  }

  Value putTag(Value pos, uint32_t tag) {
    return b.create<wire::PutBytesOp>(loc, pos,
                                      b.getStringAttr(varintBytes(tag)));
  }

  /// Is a stored value non-zero (proto3 implicit presence)? Floats compare
  /// their bits, so -0.0 is written, as libprotobuf does.
  Value isNonZero(Value v) {
    Type t = v.getType();
    if (isa<FloatType>(t)) {
      Type bits = b.getIntegerType(t.getIntOrFloatBitWidth());
      v = b.create<arith::BitcastOp>(loc, bits, v);
      t = bits;
    }
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, v,
                                   cst(t, 0));
  }

  //===--------------------------------------------------------------------===//
  // Functions and entry points
  //===--------------------------------------------------------------------===//

  std::string fn(MessageOp m, StringRef suffix) {
    return cFunctionName(m.getSymName(), suffix);
  }
  std::string internal(MessageOp m, StringRef suffix) {
    return internalFunctionName(m.getSymName(), suffix);
  }

  void declareFunctions(MessageOp m) {
    declare(fn(m, "init"), voidTy, {ptrTy});
    // C `bool`: the caller may read the whole register.
    declare(fn(m, "is_initialized"), i1, {ptrTy})
        .setResultAttr(0, LLVM::LLVMDialect::getZExtAttrName(), b.getUnitAttr());
    declare(fn(m, "encoded_size"), i64, {ptrTy});
    declare(internal(m, "enc"), ptrTy, {ptrTy, ptrTy, ptrTy});
    declare(internal(m, "wr"), voidTy, {ptrTy, ptrTy, i64});
    declare(internal(m, "dec"), ptrTy, {ptrTy, ptrTy, ptrTy, ptrTy, i32});
    if (!generates(m))
      return;
    declare(fn(m, "decode"), i32, {ptrTy, ptrTy, i64, ptrTy});
    declare(fn(m, "encode"), i32, {ptrTy, ptrTy, i64, ptrTy});
    declare(fn(m, "write"), i32, {ptrTy, ptrTy});
    declare("pbc_writer_status", i32, {ptrTy});
    declare("pbc_rt_decode", i32,
            {ptrTy, ptrTy, i64, ptrTy, ptrTy, ptrTy, ptrTy});
    declare("pbc_rt_encode", i32, {ptrTy, ptrTy, i64, ptrTy, ptrTy, ptrTy});
  }

  /// T_decode and T_encode: the runtime does the bookkeeping, given the
  /// message's functions (LLVM inlines it and makes the calls direct).
  void buildEntryPoints(MessageOp m) {
    Block *entry = define(fn(m, "decode"));
    Value init = b.create<LLVM::AddressOfOp>(loc, ptrTy, fn(m, "init"));
    Value dec = b.create<LLVM::AddressOfOp>(loc, ptrTy, internal(m, "dec"));
    Value check =
        b.create<LLVM::AddressOfOp>(loc, ptrTy, fn(m, "is_initialized"));
    Value st = call("pbc_rt_decode",
                    {entry->getArgument(0), entry->getArgument(1),
                     entry->getArgument(2), entry->getArgument(3), init, dec,
                     check});
    b.create<LLVM::ReturnOp>(loc, st);

    entry = define(fn(m, "encode"));
    Value size = b.create<LLVM::AddressOfOp>(loc, ptrTy, fn(m, "encoded_size"));
    Value enc = b.create<LLVM::AddressOfOp>(loc, ptrTy, internal(m, "enc"));
    st = call("pbc_rt_encode",
              {entry->getArgument(0), entry->getArgument(1),
               entry->getArgument(2), entry->getArgument(3), size, enc});
    b.create<LLVM::ReturnOp>(loc, st);
  }

  LLVM::GlobalOp stringGlobal(StringRef name, StringRef bytes) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    std::string data = bytes.str();
    data.push_back('\0');
    auto type = LLVM::LLVMArrayType::get(i8, data.size());
    return b.create<LLVM::GlobalOp>(loc, type, /*isConstant=*/true,
                                    LLVM::Linkage::Internal, name,
                                    b.getStringAttr(data));
  }

  /// The pbc_message_info record of a message and its entry in the
  /// `pbc_msgs` section, which pbc_find_message walks.
  Attribute buildInfo(MessageOp m) {
    std::string base = fn(m, "info");
    stringGlobal(internal(m, "name"), m.getSymName());
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    auto infoTy = LLVM::LLVMStructType::getLiteral(
        b.getContext(),
        {ptrTy, i64, ptrTy, ptrTy, ptrTy, ptrTy, ptrTy, ptrTy, ptrTy});
    // weak_odr like the functions: libraries sharing an import don't clash.
    auto info = b.create<LLVM::GlobalOp>(loc, infoTy, /*isConstant=*/true,
                                         LLVM::Linkage::WeakODR, base,
                                         Attribute());
    b.setInsertionPointToStart(&info.getInitializerRegion().emplaceBlock());
    Value rec = b.create<LLVM::UndefOp>(loc, infoTy);
    Value fields[] = {
        b.create<LLVM::AddressOfOp>(loc, ptrTy, internal(m, "name")),
        b.create<LLVM::ConstantOp>(loc, i64, *m.getSize()),
        b.create<LLVM::AddressOfOp>(loc, ptrTy, fn(m, "init")),
        b.create<LLVM::AddressOfOp>(loc, ptrTy, fn(m, "decode")),
        b.create<LLVM::AddressOfOp>(loc, ptrTy, fn(m, "encoded_size")),
        b.create<LLVM::AddressOfOp>(loc, ptrTy, fn(m, "encode")),
        b.create<LLVM::AddressOfOp>(loc, ptrTy, fn(m, "write")),
        b.create<LLVM::AddressOfOp>(loc, ptrTy, fn(m, "is_initialized")),
        b.create<LLVM::AddressOfOp>(loc, ptrTy, internal(m, "dec"))};
    for (auto [i, v] : llvm::enumerate(fields))
      rec = b.create<LLVM::InsertValueOp>(loc, rec, v, i);
    b.create<LLVM::ReturnOp>(loc, rec);

    // A pointer, not the record, goes into the section: every entry is then
    // the same size whatever the objects' alignment padding. Writable, so
    // the relocation needs no text relocation in a PIE.
    b.setInsertionPointToEnd(module.getBody());
    auto entry = b.create<LLVM::GlobalOp>(loc, ptrTy, /*isConstant=*/false,
                                          LLVM::Linkage::Internal,
                                          internal(m, "entry"), Attribute(),
                                          /*alignment=*/8);
    entry.setSectionAttr(b.getStringAttr("pbc_msgs"));
    b.setInsertionPointToStart(&entry.getInitializerRegion().emplaceBlock());
    b.create<LLVM::ReturnOp>(loc,
                             b.create<LLVM::AddressOfOp>(loc, ptrTy, base));
    return FlatSymbolRefAttr::get(b.getContext(), internal(m, "entry"));
  }

  /// Keeps the section entries alive: nothing references them by name.
  void buildUsedList(ArrayRef<Attribute> entries) {
    if (entries.empty())
      return;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    auto type = LLVM::LLVMArrayType::get(ptrTy, entries.size());
    auto used = b.create<LLVM::GlobalOp>(loc, type, /*isConstant=*/false,
                                         LLVM::Linkage::Appending, "llvm.used",
                                         Attribute());
    used.setSectionAttr(b.getStringAttr("llvm.metadata"));
    b.setInsertionPointToStart(&used.getInitializerRegion().emplaceBlock());
    Value list = b.create<LLVM::UndefOp>(loc, type);
    for (auto [i, e] : llvm::enumerate(entries)) {
      Value addr = b.create<LLVM::AddressOfOp>(
          loc, ptrTy, cast<FlatSymbolRefAttr>(e).getValue());
      list = b.create<LLVM::InsertValueOp>(loc, list, addr, i);
    }
    b.create<LLVM::ReturnOp>(loc, list);
  }

  //===--------------------------------------------------------------------===//
  // T_init: zero, then the proto2 defaults
  //===--------------------------------------------------------------------===//

  void buildInit(MessageOp m) {
    Block *entry = define(fn(m, "init"));
    Value msg = entry->getArgument(0);
    b.create<LLVM::MemsetOp>(loc, msg, cst(i8, 0), cst(i64, *m.getSize()),
                             /*isVolatile=*/false);
    // Oneof members share one union: their defaults would overwrite each
    // other, and an unset member is never written anyway.
    for (FieldOp field : m.getFields())
      if (auto text = field.getDefaultValue(); text && !field.getOneof())
        storeDefault(m, msg, field, *text);
    b.create<LLVM::ReturnOp>(loc, ValueRange());
  }

  void storeDefault(MessageOp m, Value msg, FieldOp field, StringRef text) {
    Value addr = fieldAddr(msg, field);
    FieldType type = field.getType();
    if (type == FieldType::String || type == FieldType::Bytes) {
      std::string name = internal(m, "default_" + field.getName().str());
      stringGlobal(name, text);
      store(b.create<LLVM::AddressOfOp>(loc, ptrTy, name), addr);
      store(cst(i64, text.size()), offsetPtr(addr, 8));
      return;
    }
    Type t = storageType(type);
    if (auto ft = dyn_cast<FloatType>(t)) {
      double d = text == "inf"    ? INFINITY
                 : text == "-inf" ? -INFINITY
                 : text == "nan"  ? NAN
                                  : std::strtod(text.str().c_str(), nullptr);
      store(b.create<arith::ConstantOp>(loc, ft, b.getFloatAttr(ft, d)), addr);
      return;
    }
    if (type == FieldType::Bool) {
      store(cst(i8, text == "true"), addr);
      return;
    }
    // Integers and enum numbers: unsigned values above INT64_MAX keep their
    // bits.
    int64_t v = 0;
    uint64_t u = 0;
    if (text.getAsInteger(10, v) && !text.getAsInteger(10, u))
      v = static_cast<int64_t>(u);
    store(cst(t, v), addr);
  }

  //===--------------------------------------------------------------------===//
  // T_is_initialized: proto2 required fields, through the whole tree
  //===--------------------------------------------------------------------===//

  void buildIsInitialized(MessageOp m) {
    Block *entry = define(fn(m, "is_initialized"));
    Value msg = entry->getArgument(0);
    Value ok = cst(i1, 1);
    for (FieldOp field : m.getFields()) {
      if (field.getCardinality() == Cardinality::Required && !field.isMessageLike())
        ok = b.create<arith::AndIOp>(loc, ok, hasBit(msg, field));
      if (field.isMessageLike())
        ok = b.create<arith::AndIOp>(loc, ok, subMessagesInitialized(msg, field));
    }
    b.create<LLVM::ReturnOp>(loc, ok);
  }

  Value subMessagesInitialized(Value msg, FieldOp field) {
    std::string check = fn(messageOf(field), "is_initialized");
    Value addr = fieldAddr(msg, field);
    if (field.isRepeated()) {
      Value data = load(ptrTy, addr);
      Value count = load(i64, offsetPtr(addr, 8));
      int64_t esize = elementSize(field);
      auto loop = b.create<scf::ForOp>(
          loc, cst(i64, 0), count, cst(i64, 1), ValueRange{cst(i1, 1)},
          [&](OpBuilder &, Location, Value i, ValueRange acc) {
            Value off = b.create<arith::MulIOp>(loc, i, cst(i64, esize));
            Value ok = call(check, offsetPtr(data, off));
            b.create<scf::YieldOp>(
                loc, ValueRange{b.create<arith::AndIOp>(loc, acc[0], ok)});
          });
      return loop.getResult(0);
    }
    Value sub = load(ptrTy, addr);
    bool required = field.getCardinality() == Cardinality::Required;
    auto ifOp = b.create<scf::IfOp>(
        loc, isMessagePresent(msg, field, sub),
        [&](OpBuilder &, Location) {
          b.create<scf::YieldOp>(loc, call(check, sub));
        },
        [&](OpBuilder &, Location) {
          b.create<scf::YieldOp>(loc, cst(i1, required ? 0 : 1));
        });
    return ifOp.getResult(0);
  }

  //===--------------------------------------------------------------------===//
  // T_encoded_size
  //===--------------------------------------------------------------------===//

  /// Presence bits tested together: a group of fields none of which is set
  /// costs one test (libprotobuf's `cached_has_bits & 0xff`, per byte).
  static constexpr int64_t kPresenceGroupBits = 8;
  /// Constant-size fields of one size in one group at least this many are
  /// counted with one popcount instead of a branch each.
  static constexpr int64_t kPopcountMinFields = 3;

  void buildSize(MessageOp m) {
    Block *entry = define(fn(m, "encoded_size"));
    Value msg = entry->getArgument(0);
    Value total = cst(i64, 0);
    if (m.keepsUnknownFields())
      total = load(i64, offsetPtr(unknownAddr(msg, m), 8));
    // The presence bits are numbered in declaration order, so the groups
    // follow it too.
    SmallVector<SmallVector<FieldOp>> groups;
    SmallVector<FieldOp> rest;
    for (FieldOp field : m.getFields()) {
      if (!field.hasPresenceBit()) {
        rest.push_back(field);
        continue;
      }
      size_t g = *field.getPresenceBit() / kPresenceGroupBits;
      if (groups.size() <= g)
        groups.resize(g + 1);
      groups[g].push_back(field);
    }
    for (ArrayRef<FieldOp> group : groups)
      if (!group.empty())
        total = addGroupSize(msg, group, total);
    SmallVector<FieldOp> repeated;
    for (FieldOp field : rest) {
      if (field.isRepeated())
        repeated.push_back(field);
      else
        total = addFieldSize(msg, field, total);
    }
    total = addRepeatedSizes(msg, repeated, total);
    b.create<LLVM::ReturnOp>(loc, total);
  }

  /// The repeated fields' sizes, behind one test of their OR-ed counts:
  /// most messages leave most repeated fields empty, and a test (and the
  /// registers of a loop) per empty field cost more than the OR.
  Value addRepeatedSizes(Value msg, ArrayRef<FieldOp> fields, Value total) {
    if (fields.size() < 2) {
      for (FieldOp field : fields)
        total = addFieldSize(msg, field, total);
      return total;
    }
    Value counts;
    for (FieldOp field : fields) {
      Value n = load(i64, offsetPtr(fieldAddr(msg, field), 8));
      counts = counts ? b.create<arith::OrIOp>(loc, counts, n) : n;
    }
    return addIf(isNonZero(counts), total, [&] {
      Value t = cst(i64, 0);
      for (FieldOp field : fields)
        t = addFieldSize(msg, field, t);
      return t;
    });
  }

  /// `total + size()` when `cond` holds, else `total`: a branch, so an
  /// absent field costs a test and its size is computed only when present.
  Value addIf(Value cond, Value total, function_ref<Value()> size) {
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

  /// The presence bits of `fields` (all in one word) as a mask.
  uint32_t presenceMaskOf(ArrayRef<FieldOp> fields) {
    uint32_t mask = 0;
    for (FieldOp field : fields)
      mask |= uint32_t(1) << (*field.getPresenceBit() % 32);
    return mask;
  }

  Value anyBits(Value word, uint32_t mask) {
    Value bits = b.create<arith::AndIOp>(loc, word, cst(i32, mask));
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, bits,
                                   cst(i32, 0));
  }

  /// Bytes a field with a presence bit takes when present, if that does
  /// not depend on its value (fixed widths and bools): 0 otherwise.
  int64_t constantFieldSize(FieldOp field) {
    FieldType type = field.getType();
    int64_t width = fixedWidth(type);
    if (type == FieldType::Bool)
      width = 1;
    if (!width)
      return 0;
    return width + tagSize(field, naturalWireType(type));
  }

  /// Adds the sizes of up to 8 fields with presence bits in one word: one
  /// test skips them all when none is set; inside, constant-size fields of
  /// one size are counted with a popcount, the others branch on their bit.
  Value addGroupSize(Value msg, ArrayRef<FieldOp> group, Value total) {
    Value word = load(i32, presenceWord(msg, group.front()));
    if (group.size() == 1) {
      int64_t size = constantFieldSize(group.front());
      return addIf(anyBits(word, presenceMaskOf(group)), total, [&] {
        return size ? cst(i64, size) : singularSize(msg, group.front());
      });
    }
    auto ifOp = b.create<scf::IfOp>(
        loc, anyBits(word, presenceMaskOf(group)),
        [&](OpBuilder &, Location) {
          Value t = total;
          llvm::MapVector<int64_t, SmallVector<FieldOp>> bySize;
          for (FieldOp field : group)
            if (int64_t size = constantFieldSize(field))
              bySize[size].push_back(field);
          for (auto &[size, fields] : bySize) {
            if (fields.size() < size_t(kPopcountMinFields)) {
              for (FieldOp field : fields)
                t = addIf(anyBits(word, presenceMaskOf(field)), t,
                          [&] { return cst(i64, size); });
              continue;
            }
            Value bits = b.create<arith::AndIOp>(
                loc, word, cst(i32, presenceMaskOf(fields)));
            Value n = b.create<arith::ExtUIOp>(
                loc, i64, b.create<LLVM::CtPopOp>(loc, i32, bits));
            t = b.create<arith::AddIOp>(
                loc, t, b.create<arith::MulIOp>(loc, n, cst(i64, size)));
          }
          for (FieldOp field : group)
            if (!constantFieldSize(field))
              t = addIf(anyBits(word, presenceMaskOf(field)), t,
                        [&] { return singularSize(msg, field); });
          b.create<scf::YieldOp>(loc, ValueRange{t});
        },
        [&](OpBuilder &, Location) {
          b.create<scf::YieldOp>(loc, ValueRange{total});
        });
    return ifOp.getResult(0);
  }

  /// Bytes a singular non-message field takes with its tag, when written.
  Value singularSize(Value msg, FieldOp field) {
    Value addr = fieldAddr(msg, field);
    FieldType type = field.getType();
    Value size;
    if (type == FieldType::String || type == FieldType::Bytes)
      size = lengthDelimitedSize(load(i64, offsetPtr(addr, 8)));
    else
      size = valueSize(type, load(storageType(type), addr));
    return b.create<arith::AddIOp>(
        loc, size, cst(i64, tagSize(field, naturalWireType(type))));
  }

  /// Whether a singular non-message field is written: its oneof case is
  /// this field, its presence bit is set, it is in a map entry (always
  /// written), or (implicit presence) it is not zero.
  Value isPresent(Value msg, FieldOp field, Value value) {
    if (field.getOneof())
      return isOneofCase(msg, field);
    if (field.hasPresenceBit())
      return hasBit(msg, field);
    if (inMapEntry(field))
      return cst(i1, 1);
    return isNonZero(value);
  }

  /// Whether a singular sub-message is written: it is there and, in a
  /// oneof, the case says so.
  Value isMessagePresent(Value msg, FieldOp field, Value sub) {
    Value there =
        b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ne, sub, null());
    if (!field.getOneof())
      return there;
    return b.create<arith::AndIOp>(loc, there, isOneofCase(msg, field));
  }

  Value lengthDelimitedSize(Value len) {
    return b.create<arith::AddIOp>(loc, b.create<wire::VarintSizeOp>(loc, len),
                                   len);
  }

  /// Size of a sub-message (by pointer) including its length or end tag.
  Value embeddedSize(FieldOp field, Value sub) {
    Value n = call(fn(messageOf(field), "encoded_size"), sub);
    if (field.getType() == FieldType::Group)
      return b.create<arith::AddIOp>(
          loc, n, cst(i64, varintBytes(makeTag(field, kEndGroupWire)).size()));
    return lengthDelimitedSize(n);
  }

  /// `total` plus the size of a field without a presence bit: repeated,
  /// sub-message, oneof member, map entry field or implicit presence.
  Value addFieldSize(Value msg, FieldOp field, Value total) {
    Value addr = fieldAddr(msg, field);
    FieldType type = field.getType();
    WireType wt = naturalWireType(type);
    int64_t tagSize = varintBytes(makeTag(field, wt)).size();
    Value tagSizeV = cst(i64, tagSize);

    if (field.isRepeated())
      return b.create<arith::AddIOp>(loc, total,
                                     repeatedSize(field, addr, tagSize));

    if (field.isMessageLike()) {
      Value sub = load(ptrTy, addr);
      // A map entry always writes its value: an empty message when unset.
      int64_t absent = inMapEntry(field) ? emptyEmbeddedBytes(field).size() : 0;
      auto ifOp = b.create<scf::IfOp>(
          loc, isMessagePresent(msg, field, sub),
          [&](OpBuilder &, Location) {
            Value s = embeddedSize(field, sub);
            b.create<scf::YieldOp>(
                loc, ValueRange{b.create<arith::AddIOp>(loc, s, tagSizeV)});
          },
          [&](OpBuilder &, Location) {
            b.create<scf::YieldOp>(loc, cst(i64, absent));
          });
      return b.create<arith::AddIOp>(loc, total, ifOp.getResult(0));
    }

    // Fields with presence bits are summed by group (addGroupSize).
    assert(!field.hasPresenceBit() && "summed with its presence group");
    if (inMapEntry(field))
      return b.create<arith::AddIOp>(loc, total, singularSize(msg, field));
    Value present;
    if (field.getOneof())
      present = isOneofCase(msg, field);
    else if (type == FieldType::String || type == FieldType::Bytes)
      present = isNonZero(load(i64, offsetPtr(addr, 8)));
    else
      present = isNonZero(load(storageType(type), addr));
    return addIf(present, total, [&] { return singularSize(msg, field); });
  }

  /// Sums `body(element address)` over a repeated field's elements.
  Value sumElements(FieldOp field, Value data, Value count,
                    function_ref<Value(Value)> body) {
    int64_t esize = elementSize(field);
    auto loop = b.create<scf::ForOp>(
        loc, cst(i64, 0), count, cst(i64, 1), ValueRange{cst(i64, 0)},
        [&](OpBuilder &, Location, Value i, ValueRange acc) {
          Value off = b.create<arith::MulIOp>(loc, i, cst(i64, esize));
          Value s = body(offsetPtr(data, off));
          b.create<scf::YieldOp>(
              loc, ValueRange{b.create<arith::AddIOp>(loc, acc[0], s)});
        });
    return loop.getResult(0);
  }

  Value repeatedSize(FieldOp field, Value addr, int64_t tagSize) {
    FieldType type = field.getType();
    Value data = load(ptrTy, addr);
    Value count = load(i64, offsetPtr(addr, 8));

    // Bytes of the values alone.
    Value payload;
    if (int64_t w = fixedWidth(type)) {
      payload = b.create<arith::MulIOp>(loc, count, cst(i64, w));
    } else if (type == FieldType::Bool) {
      payload = count;
    } else {
      payload = sumElements(field, data, count, [&](Value elem) -> Value {
        switch (type) {
        case FieldType::String:
        case FieldType::Bytes:
          return lengthDelimitedSize(load(i64, offsetPtr(elem, 8)));
        case FieldType::Message:
        case FieldType::Group:
          return embeddedSize(field, elem);
        default:
          return valueSize(type, load(storageType(type), elem));
        }
      });
    }

    if (field.getPacked()) {
      int64_t packedTag = varintBytes(makeTag(field, kLen)).size();
      Value total = b.create<arith::AddIOp>(
          loc, lengthDelimitedSize(payload), cst(i64, packedTag));
      Value any = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne,
                                          count, cst(i64, 0));
      return b.create<arith::SelectOp>(loc, any, total, cst(i64, 0));
    }
    Value tags = b.create<arith::MulIOp>(loc, count, cst(i64, tagSize));
    return b.create<arith::AddIOp>(loc, tags, payload);
  }

  //===--------------------------------------------------------------------===//
  // pbc__T_enc(m, end, limit): backwards, highest field number first
  //===--------------------------------------------------------------------===//
  //
  // The encoder writes backwards from `end` and checks every write against
  // `limit` (null: unchecked, the caller sized the buffer exactly), so
  // T_encode needs no size pass: one walk, then a move to the buffer's start.
  // The checks are cheap: one comparison per run of small fields against a
  // bound that holds for any values (10 bytes per varint); only when that
  // fails, near the front of the buffer, is the exact size computed. Failing
  // returns null.

  struct EncoderState {
    Value msg, limit;
    Block *fail;
  };

  void buildEncoder(MessageOp m) {
    Block *entry = define(internal(m, "enc"));
    EncoderState e{entry->getArgument(0), entry->getArgument(2), nullptr};
    e.fail = newBlock(*entry->getParent());
    b.setInsertionPointToStart(e.fail);
    b.create<LLVM::ReturnOp>(loc, null());
    b.setInsertionPointToEnd(entry);

    Value pos = entry->getArgument(1);
    // Unknown fields come last in the output: written first.
    if (m.keepsUnknownFields()) {
      Value unknown = unknownAddr(e.msg, m);
      Value size = load(i64, offsetPtr(unknown, 8));
      // Usually there are none: no memcpy call for nothing.
      Value any = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, size,
                                          cst(i64, 0));
      pos = putIf(any, pos, [&](Value p) {
        ensureRoom(e, p, size, nullptr);
        return b.create<wire::PutDataOp>(loc, p, load(ptrTy, unknown), size);
      });
    }
    SmallVector<FieldOp> fields(m.getFields());
    llvm::sort(fields, [](FieldOp a, FieldOp b) {
      return a.getNumber() > b.getNumber();
    });
    for (size_t i = 0; i < fields.size();) {
      size_t runEnd = i;
      while (runEnd < fields.size() && isSmallScalar(fields[runEnd]))
        ++runEnd;
      if (runEnd > i) {
        pos = encodeScalarRun(e, ArrayRef(fields).slice(i, runEnd - i), pos);
        i = runEnd;
        continue;
      }
      pos = encodeField(e, fields[i++], pos);
    }
    b.create<LLVM::ReturnOp>(loc, pos);
  }

  /// Continues when `pos` has `bound` bytes of room above the limit, or, if
  /// not, `exact()` bytes (computed only then); else fails. Returns whether
  /// the bound held.
  Value ensureRoom(EncoderState &e, Value pos, Value bound,
                   function_ref<Value()> exact) {
    Value room = ptrDiff(pos, e.limit);
    Value ok =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, room, bound);
    Region &body = *b.getBlock()->getParent();
    Block *cont = newBlock(body);
    if (!exact) {
      b.create<LLVM::CondBrOp>(loc, ok, cont, e.fail);
      b.setInsertionPointToStart(cont);
      return ok;
    }
    Block *precise = newBlock(body);
    b.create<LLVM::CondBrOp>(loc, ok, cont, precise);
    b.setInsertionPointToStart(precise);
    Value fits = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, room,
                                         exact());
    b.create<LLVM::CondBrOp>(loc, fits, cont, e.fail);
    b.setInsertionPointToStart(cont);
    return ok;
  }

  /// `then(pos)` under `cond` (`otherwise(pos)` if given, else `pos`
  /// unchanged); returns the position after.
  Value putIf(Value cond, Value pos, function_ref<Value(Value)> then,
              function_ref<Value(Value)> otherwise = nullptr) {
    Region &body = *b.getBlock()->getParent();
    Block *thenBlock = newBlock(body);
    Block *elseBlock = otherwise ? newBlock(body) : nullptr;
    Block *join = newBlock(body);
    join->addArgument(ptrTy, loc);
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

  /// Singular fields whose encoding has a small constant bound: scalars and
  /// enums outside map entries and oneofs.
  bool isSmallScalar(FieldOp field) {
    FieldType type = field.getType();
    return !field.isRepeated() && !field.isMessageLike() &&
           type != FieldType::String && type != FieldType::Bytes;
  }

  int64_t tagSize(FieldOp field, WireType wt) {
    return varintBytes(makeTag(field, wt)).size();
  }

  /// The most bytes a scalar value takes.
  int64_t maxValueSize(FieldType type) {
    if (int64_t w = fixedWidth(type))
      return w;
    return type == FieldType::Bool ? 1 : 10;
  }

  /// A run of singular scalar fields, in chunks: a chunk whose fields all
  /// have presence bits is skipped after one test when none is set, and
  /// each chunk checks its room once for all its fields.
  Value encodeScalarRun(EncoderState &e, ArrayRef<FieldOp> run, Value pos) {
    while (!run.empty()) {
      size_t n = 1;
      bool bits = FieldOp(run.front()).hasPresenceBit();
      while (n < run.size() && n < size_t(kPresenceGroupBits) &&
             FieldOp(run[n]).hasPresenceBit() == bits)
        ++n;
      ArrayRef<FieldOp> chunk = run.take_front(n);
      run = run.drop_front(n);
      // A lone field with a presence bit is tested before its room check
      // too: absent, it costs the test alone.
      if (!bits) {
        pos = encodeScalarChunk(e, chunk, pos);
        continue;
      }
      pos = putIf(anyPresenceBit(e.msg, chunk), pos, [&](Value p) {
        return encodeScalarChunk(e, chunk, p);
      });
    }
    return pos;
  }

  /// Whether any of `fields` (all with presence bits) has its bit set: one
  /// test per presence word involved.
  Value anyPresenceBit(Value msg, ArrayRef<FieldOp> fields) {
    llvm::MapVector<int64_t, uint32_t> masks;
    for (FieldOp field : fields)
      masks[*field.getPresenceBit() / 32] |= presenceMaskOf(field);
    Value any;
    for (auto [w, mask] : masks) {
      Value word = load(i32, offsetPtr(msg, w * 4));
      Value bits = b.create<arith::AndIOp>(loc, word, cst(i32, mask));
      any = any ? b.create<arith::OrIOp>(loc, any, bits) : bits;
    }
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, any,
                                   cst(i32, 0));
  }

  /// Singular scalar fields under one room check. Values are loaded where
  /// they are written, except those whose value is their presence.
  Value encodeScalarChunk(EncoderState &e, ArrayRef<FieldOp> run, Value pos) {
    auto value = [&](FieldOp field) {
      return load(storageType(field.getType()), fieldAddr(e.msg, field));
    };
    SmallVector<Value> present;
    int64_t bound = 0;
    for (FieldOp field : run) {
      present.push_back(field.hasPresenceBit()
                            ? hasBit(e.msg, field)
                            : isPresent(e.msg, field, value(field)));
      bound += tagSize(field, naturalWireType(field.getType())) +
               maxValueSize(field.getType());
    }
    // Near the front of an exactly sized buffer the bound fails: the exact
    // size then counts only the fields that are there.
    Value roomy = ensureRoom(e, pos, cst(i64, bound), [&] {
      Value exact = cst(i64, 0);
      for (size_t i = 0; i < run.size(); ++i) {
        FieldOp field = run[i];
        FieldType type = field.getType();
        exact = addIf(present[i], exact, [&]() -> Value {
          return b.create<arith::AddIOp>(
              loc, valueSize(type, value(field)),
              cst(i64, tagSize(field, naturalWireType(type))));
        });
      }
      return exact;
    });
    for (size_t i = 0; i < run.size(); ++i) {
      FieldOp field = run[i];
      FieldType type = field.getType();
      pos = putIf(present[i], pos, [&](Value q) {
        // 64-bit values are often long: when the bound held, such a varint
        // has 10 bytes of room and may be written as one word.
        if (isWideVarint(type))
          q = putIf(
              roomy, q,
              [&](Value r) { return putVarintWithSlack(type, r, value(field)); },
              [&](Value r) { return putValue(type, r, value(field)); });
        else
          q = putValue(type, q, value(field));
        return putTag(q, makeTag(field, naturalWireType(type)));
      });
    }
    return pos;
  }

  static bool isWideVarint(FieldType type) {
    return type == FieldType::Int64 || type == FieldType::UInt64 ||
           type == FieldType::SInt64;
  }

  /// A varint written where the 10 bytes below `pos` are known to be free.
  Value putVarintWithSlack(FieldType type, Value pos, Value v) {
    auto put = b.create<wire::PutVarintOp>(loc, pos, toVarint(type, v));
    put.setSlack(true);
    return put;
  }

  /// The encoding of an empty sub-message: tag and zero length, or the
  /// start and end group tags.
  std::string emptyEmbeddedBytes(FieldOp field) {
    if (field.getType() == FieldType::Group)
      return varintBytes(makeTag(field, kStartGroup)) +
             varintBytes(makeTag(field, kEndGroupWire));
    return varintBytes(makeTag(field, kLen)) + std::string(1, '\0');
  }

  Value putConstant(EncoderState &e, Value pos, StringRef bytes) {
    ensureRoom(e, pos, cst(i64, bytes.size()), nullptr);
    return b.create<wire::PutBytesOp>(loc, pos, b.getStringAttr(bytes));
  }

  /// A varint length and a tag in front of a payload that starts at `pos`.
  Value putLengthAndTag(EncoderState &e, FieldOp field, Value pos, Value len) {
    int64_t tag = tagSize(field, kLen);
    ensureRoom(e, pos, cst(i64, tag + 10), [&] {
      return b.create<arith::AddIOp>(
          loc, b.create<wire::VarintSizeOp>(loc, len), cst(i64, tag));
    });
    pos = b.create<wire::PutVarintOp>(loc, pos, len);
    return putTag(pos, makeTag(field, kLen));
  }

  /// Writes a sub-message held at `sub` with its tag and length (or its
  /// start/end group tags). The sub-message checks its own room.
  Value putEmbedded(EncoderState &e, FieldOp field, Value sub, Value pos) {
    std::string enc = internal(messageOf(field), "enc");
    if (field.getType() == FieldType::Group) {
      pos = putConstant(e, pos, varintBytes(makeTag(field, kEndGroupWire)));
      pos = call(enc, {sub, pos, e.limit});
      failIfNull(e, pos);
      return putConstant(e, pos, varintBytes(makeTag(field, kStartGroup)));
    }
    Value start = call(enc, {sub, pos, e.limit});
    failIfNull(e, start);
    return putLengthAndTag(e, field, start, ptrDiff(pos, start));
  }

  void failIfNull(EncoderState &e, Value p) {
    Block *cont = newBlock(*b.getBlock()->getParent());
    b.create<LLVM::CondBrOp>(loc, isNull(p), e.fail, cont);
    b.setInsertionPointToStart(cont);
  }

  /// The bytes, their length and tag under one room check.
  Value putString(EncoderState &e, FieldOp field, Value addr, Value pos) {
    Value data = load(ptrTy, addr);
    Value len = load(i64, offsetPtr(addr, 8));
    int64_t tag = tagSize(field, kLen);
    ensureRoom(e, pos, b.create<arith::AddIOp>(loc, len, cst(i64, tag + 10)),
               [&] {
                 return b.create<arith::AddIOp>(loc, lengthDelimitedSize(len),
                                                cst(i64, tag));
               });
    pos = b.create<wire::PutDataOp>(loc, pos, data, len);
    pos = b.create<wire::PutVarintOp>(loc, pos, len);
    return putTag(pos, makeTag(field, kLen));
  }

  /// A scalar with its tag, room checked (repeated elements).
  Value putScalar(EncoderState &e, FieldOp field, Value v, Value pos) {
    FieldType type = field.getType();
    WireType wt = naturalWireType(type);
    int64_t tag = tagSize(field, wt);
    ensureRoom(e, pos, cst(i64, tag + maxValueSize(type)), [&] {
      return b.create<arith::AddIOp>(loc, valueSize(type, v), cst(i64, tag));
    });
    pos = putValue(type, pos, v);
    return putTag(pos, makeTag(field, wt));
  }

  Value encodeField(EncoderState &e, FieldOp field, Value pos) {
    Value addr = fieldAddr(e.msg, field);
    FieldType type = field.getType();
    if (field.isRepeated())
      return encodeRepeated(e, field, addr, pos);
    if (field.isMessageLike()) {
      Value sub = load(ptrTy, addr);
      Value present = isMessagePresent(e.msg, field, sub);
      auto put = [&](Value p) { return putEmbedded(e, field, sub, p); };
      if (!inMapEntry(field))
        return putIf(present, pos, put);
      // A map entry always writes its value: empty when unset.
      return putIf(present, pos, put, [&](Value p) {
        return putConstant(e, p, emptyEmbeddedBytes(field));
      });
    }
    assert(type == FieldType::String || type == FieldType::Bytes);
    Value len = load(i64, offsetPtr(addr, 8));
    return putIf(isPresent(e.msg, field, len), pos,
                 [&](Value p) { return putString(e, field, addr, p); });
  }

  /// Calls `body(element address, pos)` for the elements of a repeated
  /// field, last element first.
  Value forEachElementBackwards(FieldOp field, Value data, Value count,
                                Value pos,
                                function_ref<Value(Value, Value)> body) {
    int64_t esize = elementSize(field);
    Region &region = *b.getBlock()->getParent();
    Block *header = newBlock(region);
    header->addArguments({i64, ptrTy}, {loc, loc});
    Block *bodyBlock = newBlock(region);
    Block *exit = newBlock(region);
    exit->addArgument(ptrTy, loc);
    b.create<LLVM::BrOp>(loc, ValueRange{count, pos}, header);

    b.setInsertionPointToStart(header);
    Value left = header->getArgument(0);
    Value p = header->getArgument(1);
    Value more = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, left,
                                         cst(i64, 0));
    b.create<LLVM::CondBrOp>(loc, more, bodyBlock, ValueRange(), exit,
                             ValueRange{p});

    b.setInsertionPointToStart(bodyBlock);
    Value j = b.create<arith::SubIOp>(loc, left, cst(i64, 1));
    Value elem =
        offsetPtr(data, b.create<arith::MulIOp>(loc, j, cst(i64, esize)));
    Value next = body(elem, p);
    b.create<LLVM::BrOp>(loc, ValueRange{j, next}, header);

    b.setInsertionPointToStart(exit);
    return exit->getArgument(0);
  }

  Value encodeRepeated(EncoderState &e, FieldOp field, Value addr, Value pos) {
    FieldType type = field.getType();
    Value data = load(ptrTy, addr);
    Value count = load(i64, offsetPtr(addr, 8));

    if (field.getPacked()) {
      Value any = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne,
                                          count, cst(i64, 0));
      return putIf(any, pos, [&](Value end) {
        Value start;
        if (int64_t w = fixedWidth(type)) {
          Value len = b.create<arith::MulIOp>(loc, count, cst(i64, w));
          ensureRoom(e, end, len, nullptr);
          start = b.create<wire::PutDataOp>(loc, end, data, len);
        } else {
          // Room for every element at its longest is checked once; only
          // near the front of the buffer does each element check its own.
          // With room for its longest form, a varint may be written as one
          // word that spills into the free bytes below it.
          auto putWithSlack = [&](Value p, Value v) {
            return putVarintWithSlack(type, p, v);
          };
          Value longest = cst(i64, maxValueSize(type));
          Value bound = b.create<arith::MulIOp>(loc, count, longest);
          Value roomy = b.create<arith::CmpIOp>(
              loc, arith::CmpIPredicate::sge, ptrDiff(end, e.limit), bound);
          start = putIf(
              roomy, end,
              [&](Value p0) {
                return forEachElementBackwards(
                    field, data, count, p0, [&](Value elem, Value p) {
                      return putWithSlack(p, load(storageType(type), elem));
                    });
              },
              [&](Value p0) {
                return forEachElementBackwards(
                    field, data, count, p0, [&](Value elem, Value p) {
                      Value v = load(storageType(type), elem);
                      Value fits = b.create<arith::CmpIOp>(
                          loc, arith::CmpIPredicate::sge, ptrDiff(p, e.limit),
                          longest);
                      return putIf(
                          fits, p, [&](Value q) { return putWithSlack(q, v); },
                          [&](Value q) {
                            ensureRoom(e, q, valueSize(type, v), nullptr);
                            return putValue(type, q, v);
                          });
                    });
              });
        }
        return putLengthAndTag(e, field, start, ptrDiff(end, start));
      });
    }

    return forEachElementBackwards(
        field, data, count, pos, [&](Value elem, Value p) -> Value {
          switch (type) {
          case FieldType::String:
          case FieldType::Bytes:
            return putString(e, field, elem, p);
          case FieldType::Message:
          case FieldType::Group:
            return putEmbedded(e, field, elem, p);
          default:
            return putScalar(e, field, load(storageType(type), elem), p);
          }
        });
  }

  //===--------------------------------------------------------------------===//
  // T_write: to a scattered writer
  //===--------------------------------------------------------------------===//

  /// T_write(m, w) sizes the message once and hands it to pbc__T_wr:
  /// when the writer's current chunk has room, the backwards encoder writes
  /// straight into it; otherwise the fields go forwards through the writer,
  /// each sub-message again through its own pbc__S_wr with the size the
  /// parent already computed for its length prefix.
  void buildWriter(MessageOp m) {
    Block *entry = define(fn(m, "write"));
    Value msg = entry->getArgument(0), w = entry->getArgument(1);
    Value size = call(fn(m, "encoded_size"), msg);
    call(internal(m, "wr"), {msg, w, size});
    b.create<LLVM::ReturnOp>(loc, call("pbc_writer_status", w));

    entry = define(internal(m, "wr"));
    msg = entry->getArgument(0);
    w = entry->getArgument(1);
    size = entry->getArgument(2);
    Value room = b.create<wire::ReserveOp>(loc, w, size);
    b.create<scf::IfOp>(
        loc, isNull(room),
        [&](OpBuilder &, Location) {
          writeFieldsForward(m, msg, w);
          b.create<scf::YieldOp>(loc);
        },
        [&](OpBuilder &, Location) {
          // Sized exactly. The reservation's start is the limit, not null
          // (unchecked): packed varints write whole words into the free
          // bytes below them when the limit says there are some, and the
          // bytes below the reservation are the stream's.
          call(internal(m, "enc"), {msg, offsetPtr(room, size), room});
          b.create<scf::YieldOp>(loc);
        });
    b.create<LLVM::ReturnOp>(loc, ValueRange());
  }

  void writeTag(Value w, uint32_t tag) {
    b.create<wire::WriteVarintOp>(loc, w, cst(i64, tag));
  }

  void writeValue(FieldType type, Value w, Value v) {
    if (fixedWidth(type))
      b.create<wire::WriteFixedOp>(loc, w, v);
    else
      b.create<wire::WriteVarintOp>(loc, w, toVarint(type, v));
  }

  void writeIf(Value cond, function_ref<void()> then) {
    b.create<scf::IfOp>(loc, cond, [&](OpBuilder &, Location) {
      then();
      b.create<scf::YieldOp>(loc);
    });
  }

  void writeString(FieldOp field, Value w, Value addr) {
    Value len = load(i64, offsetPtr(addr, 8));
    writeTag(w, makeTag(field, kLen));
    b.create<wire::WriteVarintOp>(loc, w, len);
    b.create<wire::WriteDataOp>(loc, w, load(ptrTy, addr), len);
  }

  void writeEmbedded(FieldOp field, Value w, Value sub) {
    MessageOp type = messageOf(field);
    Value size = call(fn(type, "encoded_size"), sub);
    if (field.getType() == FieldType::Group) {
      writeTag(w, makeTag(field, kStartGroup));
      call(internal(type, "wr"), {sub, w, size});
      writeTag(w, makeTag(field, kEndGroupWire));
      return;
    }
    writeTag(w, makeTag(field, kLen));
    b.create<wire::WriteVarintOp>(loc, w, size);
    call(internal(type, "wr"), {sub, w, size});
  }

  /// The forwards twin of buildEncoder: same fields, same conditions,
  /// ascending field numbers, unknown fields last.
  void writeFieldsForward(MessageOp m, Value msg, Value w) {
    SmallVector<FieldOp> fields(m.getFields());
    llvm::sort(fields, [](FieldOp a, FieldOp b) {
      return a.getNumber() < b.getNumber();
    });
    for (FieldOp field : fields)
      writeFieldForward(msg, field, w);
    if (m.keepsUnknownFields()) {
      Value unknown = unknownAddr(msg, m);
      b.create<wire::WriteDataOp>(loc, w, load(ptrTy, unknown),
                                  load(i64, offsetPtr(unknown, 8)));
    }
  }

  void writeFieldForward(Value msg, FieldOp field, Value w) {
    Value addr = fieldAddr(msg, field);
    FieldType type = field.getType();
    if (field.isRepeated())
      return writeRepeatedForward(field, addr, w);
    if (field.isMessageLike()) {
      Value sub = load(ptrTy, addr);
      b.create<scf::IfOp>(
          loc, isMessagePresent(msg, field, sub),
          [&](OpBuilder &, Location) {
            writeEmbedded(field, w, sub);
            b.create<scf::YieldOp>(loc);
          },
          [&](OpBuilder &, Location) {
            if (inMapEntry(field)) {
              std::string empty = emptyEmbeddedBytes(field);
              for (char c : empty)
                b.create<wire::WriteVarintOp>(loc, w, cst(i64, uint8_t(c)));
            }
            b.create<scf::YieldOp>(loc);
          });
      return;
    }
    if (type == FieldType::String || type == FieldType::Bytes) {
      Value len = load(i64, offsetPtr(addr, 8));
      writeIf(isPresent(msg, field, len),
              [&] { writeString(field, w, addr); });
      return;
    }
    Value v = load(storageType(type), addr);
    writeIf(isPresent(msg, field, v), [&] {
      writeTag(w, makeTag(field, naturalWireType(type)));
      writeValue(type, w, v);
    });
  }

  /// Calls `body(element address)` for each element, first to last.
  void forEachElement(FieldOp field, Value data, Value count,
                      function_ref<void(Value)> body) {
    int64_t esize = elementSize(field);
    b.create<scf::ForOp>(
        loc, cst(i64, 0), count, cst(i64, 1), ValueRange(),
        [&](OpBuilder &, Location, Value i, ValueRange) {
          body(offsetPtr(data, b.create<arith::MulIOp>(loc, i, cst(i64, esize))));
          b.create<scf::YieldOp>(loc);
        });
  }

  void writeRepeatedForward(FieldOp field, Value addr, Value w) {
    FieldType type = field.getType();
    Value data = load(ptrTy, addr);
    Value count = load(i64, offsetPtr(addr, 8));
    if (field.getPacked()) {
      Value any = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne,
                                          count, cst(i64, 0));
      writeIf(any, [&] {
        writeTag(w, makeTag(field, kLen));
        if (int64_t width = fixedWidth(type)) {
          Value len = b.create<arith::MulIOp>(loc, count, cst(i64, width));
          b.create<wire::WriteVarintOp>(loc, w, len);
          b.create<wire::WriteDataOp>(loc, w, data, len);
          return;
        }
        Value len = sumElements(field, data, count, [&](Value elem) {
          return valueSize(type, load(storageType(type), elem));
        });
        b.create<wire::WriteVarintOp>(loc, w, len);
        forEachElement(field, data, count, [&](Value elem) {
          writeValue(type, w, load(storageType(type), elem));
        });
      });
      return;
    }
    forEachElement(field, data, count, [&](Value elem) {
      switch (type) {
      case FieldType::String:
      case FieldType::Bytes:
        return writeString(field, w, elem);
      case FieldType::Message:
      case FieldType::Group:
        return writeEmbedded(field, w, elem);
      default:
        writeTag(w, makeTag(field, naturalWireType(type)));
        writeValue(type, w, load(storageType(type), elem));
      }
    });
  }

  //===--------------------------------------------------------------------===//
  // pbc__T_dec: a loop around a switch on the tag
  //===--------------------------------------------------------------------===//

  struct DecoderState {
    MessageOp message;
    Value msg, end, dec, group;
    Value limit;    // wire.read_limit: below it, reads need no bounds check
    Value tagStart; // position of the tag just read
    Block *loop;    // ^loop(%pos): read the next tag or finish
    Block *fastTag; // ^fastTag(%pos): %pos < limit, switch on its first byte
    Block *fail;    // return null (the status is already recorded)
    Block *ret;     // ^ret(%pos): return %pos
    Value afterTag; // position after the tag just read
    Value tag;
    /// The handler being built's second entry, taken when its position is
    /// known to be below `limit` (see splitRead).
    Block *fastEntry = nullptr;
    /// Per field, in field-number order: the tag it usually arrives with and
    /// its handler's fast entry, which takes (tag start, position after the
    /// tag) below `limit`.
    SmallVector<FieldOp> order;
    llvm::DenseMap<Operation *, std::pair<uint32_t, Block *>> expected;
  };

  /// Continues at a new block when `p` is non-null, else jumps to fail.
  void checkNotNull(DecoderState &s, Value p) {
    Block *next = b.getBlock()->splitBlock(b.getInsertionPoint());
    b.create<LLVM::CondBrOp>(loc, isNull(p), s.fail, next);
    b.setInsertionPointToStart(next);
  }

  /// Continues at a new block when `ok`, else records `status` and fails.
  void checkOr(DecoderState &s, Value ok, int32_t status) {
    Block *bad = new Block();
    Block *next = new Block();
    b.getBlock()->getParent()->push_back(bad);
    b.getBlock()->getParent()->push_back(next);
    b.create<LLVM::CondBrOp>(loc, ok, next, bad);
    b.setInsertionPointToStart(bad);
    b.create<wire::FailOp>(loc, s.dec, b.getI32IntegerAttr(status));
    b.create<LLVM::BrOp>(loc, ValueRange(), s.fail);
    b.setInsertionPointToStart(next);
  }

  void continueAt(DecoderState &s, Value pos) {
    b.create<LLVM::BrOp>(loc, ValueRange{pos}, s.loop);
  }

  /// The in-order parse chain. Fields usually arrive in field-number order
  /// and repeated ones in runs, so after `field` the decoder first checks
  /// for the tag of `field` again (repeated) and then for the tag of the
  /// next field, and jumps straight to its handler's fast entry; a miss
  /// goes to the loop's switch on the first byte. One comparison with the
  /// read limit covers the tag compares and the next handler's value.
  void continueAfter(DecoderState &s, FieldOp field, Value pos) {
    SmallVector<FieldOp, 2> candidates;
    if (field.isRepeated())
      candidates.push_back(field);
    auto it = llvm::find(s.order, field);
    if (std::next(it) != s.order.end())
      candidates.push_back(*std::next(it));
    if (candidates.empty()) {
      continueAt(s, pos);
      return;
    }
    Region &body = *b.getBlock()->getParent();
    Block *chain = newBlock(body);
    b.create<LLVM::CondBrOp>(loc, belowLimit(s, pos), chain, ValueRange(),
                             s.loop, ValueRange{pos});
    b.setInsertionPointToStart(chain);
    for (FieldOp next : candidates) {
      auto [tag, handler] = s.expected.lookup(next.getOperation());
      std::string bytes = varintBytes(tag);
      auto hit = b.create<wire::ExpectTagOp>(loc, pos, s.end,
                                             b.getStringAttr(bytes));
      hit.setUnchecked(true);
      Block *miss = newBlock(body);
      Value afterTag = offsetPtr(pos, int64_t(bytes.size()));
      b.create<LLVM::CondBrOp>(loc, hit, handler, ValueRange{pos, afterTag},
                               miss, ValueRange());
      b.setInsertionPointToStart(miss);
    }
    b.create<LLVM::BrOp>(loc, ValueRange{pos}, s.fastTag);
  }

  Value belowLimit(DecoderState &s, Value pos) {
    return b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ult, pos, s.limit);
  }

  /// A hoisted bounds check. A handler's value is read at its fast entry
  /// with no bounds check (`unchecked`): the chain and the first-byte
  /// switch jump there only from below the read limit. Entered through the
  /// full tag switch instead, the handler compares its position with the
  /// limit once and reads with the checks only near the end of the input.
  /// `read(pos, unchecked)` builds the read; both forms meet in one block,
  /// whose arguments (after the tag start, now s.tagStart) are returned.
  SmallVector<Value>
  splitRead(DecoderState &s,
            function_ref<SmallVector<Value>(Value, bool)> read) {
    Region &body = *b.getBlock()->getParent();
    Block *fast = s.fastEntry;
    Block *slow = newBlock(body);
    Value tagStart = s.tagStart, afterTag = s.afterTag;
    b.create<LLVM::CondBrOp>(loc, belowLimit(s, afterTag), fast,
                             ValueRange{tagStart, afterTag}, slow,
                             ValueRange());
    b.setInsertionPointToStart(fast);
    SmallVector<Value> fastValues = read(fast->getArgument(1), true);
    Block *fastEnd = b.getBlock();
    b.setInsertionPointToStart(slow);
    SmallVector<Value> slowValues = read(afterTag, false);
    Block *slowEnd = b.getBlock();

    Block *join = newBlock(body);
    join->addArgument(ptrTy, loc);
    for (Value v : fastValues)
      join->addArgument(v.getType(), loc);
    SmallVector<Value> args{fast->getArgument(0)};
    args.append(fastValues);
    b.setInsertionPointToEnd(fastEnd);
    b.create<LLVM::BrOp>(loc, args, join);
    args.assign({tagStart});
    args.append(slowValues);
    b.setInsertionPointToEnd(slowEnd);
    b.create<LLVM::BrOp>(loc, args, join);
    b.setInsertionPointToStart(join);
    s.tagStart = join->getArgument(0);
    s.afterTag = Value(); // does not dominate the join
    return SmallVector<Value>(join->getArguments().drop_front());
  }

  /// A length at the handler's position, checked against the input.
  SmallVector<Value> splitLength(DecoderState &s) {
    return splitRead(s, [&](Value pos, bool unchecked) -> SmallVector<Value> {
      auto len = b.create<wire::GetLengthOp>(loc, s.dec, pos, s.end);
      len.setUnchecked(unchecked);
      checkNotNull(s, len.getNext());
      return {len.getNext(), len.getLength()};
    });
  }

  Block *newBlock(Region &region) {
    Block *block = new Block();
    region.push_back(block);
    return block;
  }

  void buildDecoder(MessageOp m) {
    Block *entry = define(internal(m, "dec"));
    Region &body = *entry->getParent();
    DecoderState s;
    s.message = m;
    s.msg = entry->getArgument(0);
    s.end = entry->getArgument(2);
    s.dec = entry->getArgument(3);
    s.group = entry->getArgument(4);
    s.limit = b.create<wire::ReadLimitOp>(loc, s.dec, s.end);
    s.loop = newBlock(body);
    s.loop->addArgument(ptrTy, loc);
    s.fastTag = newBlock(body);
    s.fastTag->addArgument(ptrTy, loc);
    s.fail = newBlock(body);
    s.ret = newBlock(body);
    s.ret->addArgument(ptrTy, loc);
    b.create<LLVM::BrOp>(loc, ValueRange{entry->getArgument(1)}, s.loop);

    b.setInsertionPointToStart(s.fail);
    b.create<LLVM::ReturnOp>(loc, null());
    b.setInsertionPointToStart(s.ret);
    b.create<LLVM::ReturnOp>(loc, s.ret->getArgument(0));

    // ^loop: below the read limit, the switch on the first byte; else the
    // end of the input or the tag read with bounds checks.
    Value pos = s.loop->getArgument(0);
    b.setInsertionPointToStart(s.loop);
    Block *checkEnd = newBlock(body);
    Block *atEnd = newBlock(body);
    Block *readTag = newBlock(body);
    readTag->addArgument(ptrTy, loc);
    b.create<LLVM::CondBrOp>(loc, belowLimit(s, pos), s.fastTag,
                             ValueRange{pos}, checkEnd, ValueRange());
    b.setInsertionPointToStart(checkEnd);
    Value done = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::uge, pos,
                                        s.end);
    b.create<LLVM::CondBrOp>(loc, done, atEnd, ValueRange(), readTag,
                             ValueRange{pos});
    // At the end of the input a message is complete; a group is not. Past
    // it, a fast path read a value that ran over the end: truncated.
    b.setInsertionPointToStart(atEnd);
    Value exact = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::eq, pos,
                                         s.end);
    Value inGroup = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                            s.group, cst(i32, 0));
    checkOr(s, b.create<arith::AndIOp>(loc, exact, inGroup),
            PBC_ERR_TRUNCATED);
    b.create<LLVM::BrOp>(loc, ValueRange{pos}, s.ret);

    b.setInsertionPointToStart(readTag);
    s.tagStart = readTag->getArgument(0);
    auto tagOp = b.create<wire::GetTagOp>(loc, s.dec, s.tagStart, s.end);
    s.afterTag = tagOp.getNext();
    s.tag = tagOp.getTag();
    checkNotNull(s, s.afterTag);
    Block *dispatch = b.getBlock();

    // Every handler block exists before any is filled: the parse chain of
    // one field jumps into another's. Each handler has two entries: one
    // from the full tag switch, one (fast) from below the read limit.
    Value dispatchTagStart = s.tagStart, dispatchAfterTag = s.afterTag;
    SmallVector<int32_t> caseTags;
    SmallVector<Block *> caseBlocks, fastBlocks;
    SmallVector<Handler> handlers;
    s.order = m.getFields();
    llvm::sort(s.order, [](FieldOp a, FieldOp b) {
      return a.getNumber() < b.getNumber();
    });
    for (FieldOp field : s.order) {
      uint32_t usual =
          makeTag(field, field.getPacked() ? kLen
                                           : naturalWireType(field.getType()));
      for (auto [tag, handler] : fieldHandlers(field)) {
        Block *block = newBlock(body);
        block->addArguments({ptrTy, ptrTy}, {loc, loc});
        Block *fast = newBlock(body);
        fast->addArguments({ptrTy, ptrTy}, {loc, loc});
        caseTags.push_back(static_cast<int32_t>(tag));
        caseBlocks.push_back(block);
        fastBlocks.push_back(fast);
        handlers.push_back(handler);
        if (tag == usual)
          s.expected[field.getOperation()] = {tag, fast};
      }
    }
    for (auto [block, fast, handler] :
         llvm::zip(caseBlocks, fastBlocks, handlers)) {
      b.setInsertionPointToStart(block);
      s.tagStart = block->getArgument(0);
      s.afterTag = block->getArgument(1);
      s.fastEntry = fast;
      handler(s);
      // A handler that reads nothing before its code (a group) has one
      // entry.
      if (fast->empty()) {
        b.setInsertionPointToStart(fast);
        b.create<LLVM::BrOp>(loc, fast->getArguments(), block);
      }
    }
    s.tagStart = dispatchTagStart;
    s.afterTag = dispatchAfterTag;

    Block *unknown = newBlock(body);
    b.setInsertionPointToEnd(dispatch);
    SmallVector<Value> positions = {s.tagStart, s.afterTag};
    SmallVector<ValueRange> caseOperands(caseBlocks.size(), positions);
    b.create<LLVM::SwitchOp>(loc, s.tag, unknown, ValueRange(), caseTags,
                             caseBlocks, caseOperands);

    buildFirstByteSwitch(s, m, caseTags, fastBlocks, readTag);

    b.setInsertionPointToStart(unknown);
    buildUnknownField(s, body);
  }

  /// ^fastTag(%pos): one load and one switch on the first byte, whose
  /// one-byte tags go to the handlers' fast entries, and the END_GROUP of
  /// a group straight to the return; the first byte of a two-byte tag
  /// leads to a switch on the second. Other bytes (longer tags, unknown
  /// fields, errors) go to the full tag read. Below the read limit both
  /// bytes are in memory; a tag that would run past the end of the
  /// message is a malformed message, which the loop rejects when the
  /// position ends up past it.
  void buildFirstByteSwitch(DecoderState &s, MessageOp m,
                            ArrayRef<int32_t> tags, ArrayRef<Block *> blocks,
                            Block *readTag) {
    Region &body = *s.fastTag->getParent();
    Value pos = s.fastTag->getArgument(0);
    b.setInsertionPointToStart(s.fastTag);
    Value afterTag = offsetPtr(pos, 1);
    SmallVector<int32_t> caseTags;
    SmallVector<Block *> caseBlocks;
    SmallVector<SmallVector<Value>> operands;
    std::map<int32_t, std::pair<SmallVector<int32_t>, SmallVector<Block *>>>
        byFirstByte;
    for (auto [tag, block] : llvm::zip(tags, blocks)) {
      if (tag < 0x80) {
        caseTags.push_back(tag);
        caseBlocks.push_back(block);
        operands.push_back({pos, afterTag});
      } else if (tag < 0x4000) {
        auto &[seconds, targets] = byFirstByte[0x80 | (tag & 0x7f)];
        seconds.push_back(tag >> 7);
        targets.push_back(block);
      }
    }
    for (auto &[first, cases] : byFirstByte) {
      OpBuilder::InsertionGuard guard(b);
      Block *second = newBlock(body);
      b.setInsertionPointToStart(second);
      SmallVector<Value> positions{pos, offsetPtr(pos, 2)};
      Value byte = b.create<arith::ExtUIOp>(loc, i32, load(i8, afterTag));
      SmallVector<ValueRange> secondOperands(cases.first.size(), positions);
      b.create<LLVM::SwitchOp>(loc, byte, readTag, ValueRange{pos},
                               cases.first, cases.second, secondOperands);
      caseTags.push_back(first);
      caseBlocks.push_back(second);
      operands.push_back({});
    }
    for (uint32_t number : groupNumbers.lookup(m.getSymName())) {
      uint32_t tag = (number << 3) | kEndGroupWire;
      if (tag >= 0x80 || llvm::is_contained(caseTags, int32_t(tag)))
        continue;
      OpBuilder::InsertionGuard guard(b);
      Block *end = newBlock(body);
      b.setInsertionPointToStart(end);
      Value mine = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                           s.group, cst(i32, number));
      b.create<LLVM::CondBrOp>(loc, mine, s.ret, ValueRange{afterTag},
                               readTag, ValueRange{pos});
      caseTags.push_back(int32_t(tag));
      caseBlocks.push_back(end);
      operands.push_back({});
    }
    // A switch with no cases trips MLIR's translation to LLVM IR.
    if (caseTags.empty()) {
      b.create<LLVM::BrOp>(loc, ValueRange{pos}, readTag);
      return;
    }
    Value byte = b.create<arith::ExtUIOp>(loc, i32, load(i8, pos));
    SmallVector<ValueRange> caseOperands(operands.begin(), operands.end());
    b.create<LLVM::SwitchOp>(loc, byte, readTag, ValueRange{pos}, caseTags,
                             caseBlocks, caseOperands);
  }

  /// An END_GROUP ends the group being decoded if the numbers match; any
  /// other unknown field is skipped.
  void buildUnknownField(DecoderState &s, Region &body) {
    Block *endGroup = newBlock(body);
    Block *skip = newBlock(body);
    Value wt = b.create<arith::AndIOp>(loc, s.tag, cst(i32, 7));
    Value isEnd = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, wt,
                                          cst(i32, kEndGroupWire));
    b.create<LLVM::CondBrOp>(loc, isEnd, endGroup, skip);

    b.setInsertionPointToStart(endGroup);
    Value number = b.create<arith::ShRUIOp>(loc, s.tag, cst(i32, 3));
    Value matches = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                            number, s.group);
    checkOr(s, matches, PBC_ERR_END_GROUP);
    b.create<LLVM::BrOp>(loc, ValueRange{s.afterTag}, s.ret);

    b.setInsertionPointToStart(skip);
    Value next = b.create<wire::SkipOp>(loc, s.dec, s.afterTag, s.end, s.tag);
    checkNotNull(s, next);
    keepUnknown(s, next);
    continueAt(s, next);
  }

  /// Keeps the field just read, [tagStart, next), as an unknown field.
  void keepUnknown(DecoderState &s, Value next) {
    if (!s.message.keepsUnknownFields())
      return;
    Value ok = b.create<wire::KeepUnknownOp>(
        loc, s.dec, unknownAddr(s.msg, s.message), s.tagStart, next);
    Block *cont = b.getBlock()->splitBlock(b.getInsertionPoint());
    b.create<LLVM::CondBrOp>(loc, ok, cont, s.fail);
    b.setInsertionPointToStart(cont);
  }

  using Handler = std::function<void(DecoderState &)>;

  /// The tags a field is accepted under, with the code for each: its natural
  /// wire type, plus the other form for packable repeated fields.
  SmallVector<std::pair<uint32_t, Handler>> fieldHandlers(FieldOp field) {
    SmallVector<std::pair<uint32_t, Handler>> handlers;
    FieldType type = field.getType();
    WireType wt = naturalWireType(type);
    switch (type) {
    case FieldType::String:
    case FieldType::Bytes:
      handlers.push_back({makeTag(field, kLen),
                          [this, field](DecoderState &s) { readString(s, field); }});
      break;
    case FieldType::Message:
    case FieldType::Group:
      handlers.push_back({makeTag(field, wt), [this, field](DecoderState &s) {
                            readEmbedded(s, field);
                          }});
      break;
    default:
      handlers.push_back({makeTag(field, wt), [this, field](DecoderState &s) {
                            readScalar(s, field);
                          }});
      if (field.isRepeated())
        handlers.push_back({makeTag(field, kLen),
                            [this, field](DecoderState &s) {
                              readPacked(s, field);
                            }});
    }
    return handlers;
  }

  /// Reads one scalar value at `pos` (bounded by `end`), as stored.
  /// Reads one scalar value at `pos` (bounded by `end`): the position
  /// after it, the value as stored and, for varints, the 64 bits read.
  struct Scalar {
    Value next, value, raw;
  };
  Scalar getScalar(DecoderState &s, FieldType type, Value pos, Value end,
                   bool unchecked = false) {
    if (fixedWidth(type)) {
      auto op = b.create<wire::GetFixedOp>(loc, ptrTy, storageType(type),
                                           s.dec, pos, end);
      op.setUnchecked(unchecked);
      if (!unchecked)
        checkNotNull(s, op.getNext());
      return {op.getNext(), op.getValue(), Value()};
    }
    auto op = b.create<wire::GetVarintOp>(loc, s.dec, pos, end);
    op.setUnchecked(unchecked);
    checkNotNull(s, op.getNext());
    return {op.getNext(), fromVarint(type, op.getValue()), op.getValue()};
  }

  /// For closed enums: is the value one the enum declares?
  Value isKnownEnumValue(FieldOp field, Value v) {
    EnumOp e = enums.lookup(field.getTypeNameAttr().getValue());
    SmallVector<int32_t> values;
    for (EnumValueOp ev : e.getValues())
      values.push_back(ev.getNumber());
    llvm::sort(values);
    values.erase(std::unique(values.begin(), values.end()), values.end());
    // Contiguous values: one range check.
    if (int64_t(values.back()) - values.front() + 1 == int64_t(values.size())) {
      Value rel = b.create<arith::SubIOp>(loc, v, cst(i32, values.front()));
      return b.create<arith::CmpIOp>(
          loc, arith::CmpIPredicate::ule, rel,
          cst(i32, int64_t(values.back()) - values.front()));
    }
    Value any = cst(i1, 0);
    for (int32_t value : values)
      any = b.create<arith::OrIOp>(
          loc, any,
          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, v,
                                  cst(i32, value)));
    return any;
  }

  /// Continues when a closed enum value is known. An unknown value goes to
  /// the unknown fields instead, as libprotobuf does: the record just read
  /// as it is, or, for a value out of a packed run (`packedRaw`: the 64
  /// bits read), re-encoded as a record of its own. Then control goes to
  /// `next` with `pos`. In a map entry the value stays: the map field moves
  /// the whole entry (see keepOnlyKnownMapValue).
  void keepOnlyKnownEnum(DecoderState &s, FieldOp field, Value v,
                         Value packedRaw, Block *next, Value pos,
                         Value packedOut = Value()) {
    if (!field.getClosed() || inMapEntry(field))
      return;
    Block *keep = b.getBlock()->splitBlock(b.getInsertionPoint());
    Region &body = *keep->getParent();
    Block *unknown = newBlock(body);
    b.create<LLVM::CondBrOp>(loc, isKnownEnumValue(field, v), keep, unknown);
    b.setInsertionPointToStart(unknown);
    if (!packedRaw) {
      keepUnknown(s, pos);
    } else if (s.message.keepsUnknownFields()) {
      Value ok = b.create<wire::KeepUnknownVarintOp>(
          loc, s.dec, unknownAddr(s.msg, s.message), packedRaw,
          b.getI32IntegerAttr(field.getNumber()));
      Block *cont = b.getBlock()->splitBlock(b.getInsertionPoint());
      b.create<LLVM::CondBrOp>(loc, ok, cont, s.fail);
      b.setInsertionPointToStart(cont);
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
  struct Reserved {
    Value array, size, end, sizeAddr;
  };
  Reserved reserveElements(DecoderState &s, FieldOp field, Value add) {
    Value addr = fieldAddr(s.msg, field);
    Value sizeAddr = offsetPtr(addr, 8);
    Value data = load(ptrTy, addr);
    Value size = load(i64, sizeAddr);
    int64_t esize = elementSize(field);
    Value grown = b.create<wire::GrowOp>(loc, s.dec, data, size, add,
                                         b.getI64IntegerAttr(esize));
    checkNotNull(s, grown);
    store(grown, addr);
    Value off = b.create<arith::MulIOp>(loc, size, cst(i64, esize));
    return {grown, size, offsetPtr(grown, off), sizeAddr};
  }

  /// Appends `add` uninitialized elements; returns the address of the first.
  Value appendElements(DecoderState &s, FieldOp field, Value add) {
    Reserved r = reserveElements(s, field, add);
    store(b.create<arith::AddIOp>(loc, r.size, add), r.sizeAddr);
    return r.end;
  }

  void storeSingular(DecoderState &s, FieldOp field, Value v) {
    store(v, fieldAddr(s.msg, field));
    markPresent(s.msg, field);
  }

  void readScalar(DecoderState &s, FieldOp field) {
    SmallVector<Value> read =
        splitRead(s, [&](Value pos, bool unchecked) -> SmallVector<Value> {
          Scalar r = getScalar(s, field.getType(), pos, s.end, unchecked);
          if (r.raw)
            return {r.next, r.value, r.raw};
          return {r.next, r.value};
        });
    Value next = read[0], v = read[1];
    keepOnlyKnownEnum(s, field, v, Value(), s.loop, next);
    if (field.isRepeated())
      store(v, appendElements(s, field, cst(i64, 1)));
    else
      storeSingular(s, field, v);
    continueAfter(s, field, next);
  }

  /// A packed run of a repeated scalar field (accepted whatever the schema
  /// says about packing).
  void readPacked(DecoderState &s, FieldOp field) {
    FieldType type = field.getType();
    SmallVector<Value> lenRead = splitLength(s);
    Value start = lenRead[0], length = lenRead[1];
    Value runEnd = offsetPtr(start, length);

    if (int64_t w = fixedWidth(type)) {
      // Fixed-width values are already in memory order (little-endian
      // targets): one copy.
      Value rem = b.create<arith::RemUIOp>(loc, length, cst(i64, w));
      checkOr(s,
              b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, rem,
                                      cst(i64, 0)),
              PBC_ERR_BAD_LENGTH);
      Value count = b.create<arith::DivUIOp>(loc, length, cst(i64, w));
      Value dst = appendElements(s, field, count);
      b.create<LLVM::MemcpyOp>(loc, dst, start, length,
                               /*isVolatile=*/false);
      continueAfter(s, field, runEnd);
      return;
    }

    // Varints: room for the whole run at once (one terminating byte per
    // element), then a loop that only stores. The size is set after the
    // run, from the last element written: a closed enum's unknown values
    // take no element, and a malformed run leaves the old size.
    int64_t esize = elementSize(field);
    Value count = b.create<wire::CountVarintsOp>(loc, start, runEnd);
    Reserved room = reserveElements(s, field, count);
    Region &body = *b.getBlock()->getParent();
    Block *element = newBlock(body);
    element->addArgument(ptrTy, loc);
    element->addArgument(ptrTy, loc);
    Block *read = newBlock(body);
    Block *exit = newBlock(body);
    // Up to 10 bytes before the run's end no varint can cross it: there
    // the loop reads with no bounds check.
    Block *readFast = newBlock(body);
    Block *checkEnd = newBlock(body);
    Value slack = b.create<arith::MaxUIOp>(loc, length, cst(i64, 10));
    Value fastEnd = offsetPtr(
        start, b.create<arith::SubIOp>(loc, slack, cst(i64, 10)));
    b.create<LLVM::BrOp>(loc, ValueRange{start, room.end}, element);

    b.setInsertionPointToStart(element);
    Value pos = element->getArgument(0), out = element->getArgument(1);
    Value fast = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ult, pos,
                                        fastEnd);
    b.create<LLVM::CondBrOp>(loc, fast, readFast, checkEnd);
    b.setInsertionPointToStart(checkEnd);
    Value done = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::uge, pos,
                                        runEnd);
    b.create<LLVM::CondBrOp>(loc, done, exit, read);

    b.setInsertionPointToStart(readFast);
    {
      auto [next, v, raw] = getScalar(s, type, pos, runEnd, /*unchecked=*/true);
      keepOnlyKnownEnum(s, field, v, raw, element, next, out);
      store(v, out);
      b.create<LLVM::BrOp>(loc, ValueRange{next, offsetPtr(out, esize)},
                           element);
    }
    b.setInsertionPointToStart(exit);
    Value size = b.create<arith::DivUIOp>(loc, ptrDiff(out, room.array),
                                          cst(i64, esize));
    store(size, room.sizeAddr);
    continueAfter(s, field, runEnd);

    b.setInsertionPointToStart(read);
    auto [next, v, raw] = getScalar(s, type, pos, runEnd);
    keepOnlyKnownEnum(s, field, v, raw, element, next, out);
    store(v, out);
    b.create<LLVM::BrOp>(loc, ValueRange{next, offsetPtr(out, esize)}, element);
  }

  void readString(DecoderState &s, FieldOp field) {
    SmallVector<Value> lenRead = splitLength(s);
    Value data = lenRead[0], size = lenRead[1];
    if (field.getUtf8())
      checkOr(s, b.create<wire::Utf8ValidOp>(loc, data, size), PBC_ERR_INVALID_UTF8);
    Value addr = field.isRepeated() ? appendElements(s, field, cst(i64, 1))
                                    : fieldAddr(s.msg, field);
    store(data, addr);
    store(size, offsetPtr(addr, 8));
    if (!field.isRepeated())
      markPresent(s.msg, field);
    continueAfter(s, field, offsetPtr(data, size));
  }

  /// The sub-message a singular field points to, allocated and initialized
  /// on first sight; a second occurrence merges into the same one.
  Value singularSubMessage(DecoderState &s, FieldOp field) {
    MessageOp sub = messageOf(field);
    Value addr = fieldAddr(s.msg, field);
    Value existing = load(ptrTy, addr);
    // A oneof's union may hold another member: merge only into this one.
    if (field.getOneof())
      existing = b.create<arith::SelectOp>(loc, isOneofCase(s.msg, field),
                                           existing, null());
    Region &body = *b.getBlock()->getParent();
    Block *allocate = newBlock(body);
    Block *have = newBlock(body);
    have->addArgument(ptrTy, loc);
    b.create<LLVM::CondBrOp>(loc, isNull(existing), allocate, ValueRange(),
                             have, ValueRange{existing});
    b.setInsertionPointToStart(allocate);
    Value mem = b.create<wire::AllocOp>(loc, s.dec,
                                        b.getI64IntegerAttr(*sub.getSize()));
    checkNotNull(s, mem);
    call(fn(sub, "init"), mem);
    store(mem, addr);
    b.create<LLVM::BrOp>(loc, ValueRange{mem}, have);
    b.setInsertionPointToStart(have);
    markPresent(s.msg, field);
    return have->getArgument(0);
  }

  void readEmbedded(DecoderState &s, FieldOp field) {
    MessageOp sub = messageOf(field);
    bool group = field.getType() == FieldType::Group;
    Value start = s.afterTag, end = s.end;
    if (!group) {
      SmallVector<Value> lenRead = splitLength(s);
      start = lenRead[0];
      end = offsetPtr(start, lenRead[1]);
    }
    Value target;
    if (field.isRepeated()) {
      target = appendElements(s, field, cst(i64, 1));
      call(fn(sub, "init"), target);
    } else {
      target = singularSubMessage(s, field);
    }
    auto push = b.create<wire::PushOp>(loc, s.dec);
    Block *enter = b.getBlock()->splitBlock(b.getInsertionPoint());
    b.create<LLVM::CondBrOp>(loc, push, enter, s.fail);
    b.setInsertionPointToStart(enter);
    Value groupNumber = cst(i32, group ? field.getNumber() : 0);
    Value next = call(internal(sub, "dec"),
                      {target, start, end, s.dec, groupNumber});
    b.create<wire::PopOp>(loc, s.dec);
    checkNotNull(s, next);
    if (field.isRepeated() && sub.getMapEntry()) {
      keepOnlyKnownMapValue(s, field, sub, next);
      replaceDuplicateKey(s, field, sub);
    }
    continueAfter(s, field, next);
  }

  /// A map entry whose value is a closed enum's undeclared value goes, whole
  /// and as read, to the unknown fields, and the map is left as it was (as
  /// libprotobuf does).
  void keepOnlyKnownMapValue(DecoderState &s, FieldOp field, MessageOp entry,
                             Value next) {
    FieldOp value = entry.getFields().back();
    if (!value.getClosed())
      return;
    Value addr = fieldAddr(s.msg, field);
    Value sizeAddr = offsetPtr(addr, 8);
    Value last = b.create<arith::SubIOp>(loc, load(i64, sizeAddr), cst(i64, 1));
    Value added = offsetPtr(
        load(ptrTy, addr),
        b.create<arith::MulIOp>(loc, last, cst(i64, elementSize(field))));
    Value v = load(i32, fieldAddr(added, value));
    Block *keep = b.getBlock()->splitBlock(b.getInsertionPoint());
    Block *unknown = newBlock(*keep->getParent());
    b.create<LLVM::CondBrOp>(loc, isKnownEnumValue(value, v), keep, unknown);
    b.setInsertionPointToStart(unknown);
    store(last, sizeAddr);
    keepUnknown(s, next);
    continueAfter(s, field, next);
    b.setInsertionPointToStart(keep);
  }

  /// A map entry whose key is already in the map replaces that entry's value
  /// (the last one wins, as libprotobuf's map does) and is dropped.
  void replaceDuplicateKey(DecoderState &s, FieldOp field, MessageOp entry) {
    FieldOp key = entry.getFields().front();
    int64_t esize = elementSize(field);
    Value addr = fieldAddr(s.msg, field);
    Value sizeAddr = offsetPtr(addr, 8);
    Value data = load(ptrTy, addr);
    Value last = b.create<arith::SubIOp>(loc, load(i64, sizeAddr), cst(i64, 1));
    Value added = offsetPtr(data, b.create<arith::MulIOp>(loc, last, cst(i64, esize)));
    Value addedKey = fieldAddr(added, key);

    Region &body = *b.getBlock()->getParent();
    Block *search = newBlock(body);
    search->addArgument(i64, loc);
    Block *compare = newBlock(body);
    Block *replace = newBlock(body);
    Block *done = newBlock(body);
    b.create<LLVM::BrOp>(loc, ValueRange{cst(i64, 0)}, search);

    b.setInsertionPointToStart(search);
    Value i = search->getArgument(0);
    Value more = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, i, last);
    b.create<LLVM::CondBrOp>(loc, more, compare, done);

    b.setInsertionPointToStart(compare);
    Value elem = offsetPtr(data, b.create<arith::MulIOp>(loc, i, cst(i64, esize)));
    Value same = keysEqual(key, fieldAddr(elem, key), addedKey);
    Value nextI = b.create<arith::AddIOp>(loc, i, cst(i64, 1));
    b.create<LLVM::CondBrOp>(loc, same, replace, ValueRange(), search,
                             ValueRange{nextI});

    b.setInsertionPointToStart(replace);
    b.create<LLVM::MemcpyOp>(loc, elem, added, cst(i64, esize),
                             /*isVolatile=*/false);
    store(last, sizeAddr);
    b.create<LLVM::BrOp>(loc, ValueRange(), done);
    b.setInsertionPointToStart(done);
  }

  Value keysEqual(FieldOp key, Value a, Value b2) {
    if (key.getType() == FieldType::String)
      return b.create<wire::BytesEqualOp>(
          loc, load(ptrTy, a), load(i64, offsetPtr(a, 8)), load(ptrTy, b2),
          load(i64, offsetPtr(b2, 8)));
    Type t = storageType(key.getType());
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, load(t, a),
                                   load(t, b2));
  }
};

struct ProtoToWirePass : pbc::impl::ProtoToWireBase<ProtoToWirePass> {
  using ProtoToWireBase::ProtoToWireBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (MessageOp m : module.getOps<MessageOp>())
      if (!m.hasLayout()) {
        m.emitOpError("has no layout; run -proto-layout first");
        return signalPassFailure();
      }
    llvm::StringSet<> selected;
    for (const std::string &f : files)
      selected.insert(f);
    CodecBuilder(module, selected).run();
  }
};

} // namespace
