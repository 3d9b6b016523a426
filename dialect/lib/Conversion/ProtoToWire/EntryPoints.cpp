//===- EntryPoints.cpp - T_decode, T_encode, T_write and T_info -----------===//
//
// The public entry points are thin: the runtime does the bookkeeping (the
// arena, the decoder state, the required-field check, sizing the buffer,
// the writer's status), given the message's own functions, and LLVM inlines it and turns its
// calls through pointers into direct calls. The pbc_message_info record
// lists the same functions for generic code, in abi.def's order.
//
//===----------------------------------------------------------------------===//
#include "CodecContext.h"

#include "pbc/Dialect/Proto/Naming.h"

using namespace mlir;
using namespace pbc::proto;
namespace abi = pbc::abi;
using abi::Role;

void pbc::proto::buildEntryPoints(CodecContext &cx, const MessagePlan &m) {
  // (T_decode, T_encode, T_encode_at_end, T_write.)
  OpBuilder &b = cx.b;
  Location loc = cx.loc;
  Block *entry = cx.define(m, Role::Decode);
  Value init = cx.addressOf(m, Role::Init);
  Value dec = cx.addressOf(m, Role::Decoder);
  Value check = cx.addressOf(m, Role::IsInitialized);
  Value st = cx.callRuntime(
      abi::Runtime::pbc_rt_decode,
      {entry->getArgument(0), entry->getArgument(1), entry->getArgument(2),
       entry->getArgument(3), init, dec, check});
  b.create<LLVM::ReturnOp>(loc, st);

  entry = cx.define(m, Role::Encode);
  Value size = cx.addressOf(m, Role::EncodedSize);
  Value enc = cx.addressOf(m, Role::Encoder);
  st = cx.callRuntime(abi::Runtime::pbc_rt_encode,
                      {entry->getArgument(0), entry->getArgument(1),
                       entry->getArgument(2), entry->getArgument(3), size,
                       enc});
  b.create<LLVM::ReturnOp>(loc, st);

  entry = cx.define(m, Role::EncodeAtEnd);
  size = cx.addressOf(m, Role::EncodedSize);
  enc = cx.addressOf(m, Role::Encoder);
  st = cx.callRuntime(abi::Runtime::pbc_rt_encode_at_end,
                      {entry->getArgument(0), entry->getArgument(1),
                       entry->getArgument(2), entry->getArgument(3),
                       entry->getArgument(4), size, enc});
  b.create<LLVM::ReturnOp>(loc, st);

  // T_write sizes the message once; pbc__T_wr writes it into the writer's
  // chunk, or forwards through the writer (Write.cpp).
  entry = cx.define(m, Role::Write);
  Value msg = entry->getArgument(0), w = entry->getArgument(1);
  size = cx.call(m, Role::EncodedSize, msg);
  cx.call(m, Role::Writer, {msg, w, size});
  b.create<LLVM::ReturnOp>(
      loc, cx.callRuntime(abi::Runtime::pbc_writer_status, w));
}

FlatSymbolRefAttr pbc::proto::buildInfo(CodecContext &cx, const MessagePlan &m) {
  OpBuilder &b = cx.b;
  Location loc = cx.loc;
  std::string base = cInfoName(m.name);
  std::string name = internalNameString(m.name);
  cx.stringGlobal(name, m.name);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(cx.module.getBody());
  SmallVector<Type> memberTypes;
  for (const abi::InfoField &field : abi::infoFields())
    memberTypes.push_back(field.kind == abi::InfoField::Size ? cx.i64
                                                             : cx.ptrTy);
  auto infoTy = LLVM::LLVMStructType::getLiteral(b.getContext(), memberTypes);
  // weak_odr like the functions: libraries sharing an import don't clash.
  auto info = b.create<LLVM::GlobalOp>(loc, infoTy, /*isConstant=*/true,
                                       LLVM::Linkage::WeakODR, base,
                                       Attribute());
  b.setInsertionPointToStart(&info.getInitializerRegion().emplaceBlock());
  Value rec = b.create<LLVM::UndefOp>(loc, infoTy);
  SmallVector<Value> members;
  for (const abi::InfoField &field : abi::infoFields()) {
    switch (field.kind) {
    case abi::InfoField::Name:
      members.push_back(b.create<LLVM::AddressOfOp>(loc, cx.ptrTy, name));
      break;
    case abi::InfoField::Size:
      members.push_back(b.create<LLVM::ConstantOp>(loc, cx.i64, m.size));
      break;
    case abi::InfoField::Codec:
      members.push_back(cx.addressOf(m, field.role));
      break;
    }
  }
  for (auto [i, v] : llvm::enumerate(members))
    rec = b.create<LLVM::InsertValueOp>(loc, rec, v, i);
  b.create<LLVM::ReturnOp>(loc, rec);

  // A pointer, not the record, goes into the section: every entry is then
  // the same size whatever the objects' alignment padding. Writable, so
  // the relocation needs no text relocation in a PIE.
  std::string entryName = internalSectionEntry(m.name);
  b.setInsertionPointToEnd(cx.module.getBody());
  auto entry = b.create<LLVM::GlobalOp>(loc, cx.ptrTy, /*isConstant=*/false,
                                        LLVM::Linkage::Internal, entryName,
                                        Attribute(), /*alignment=*/8);
  entry.setSectionAttr(b.getStringAttr("pbc_msgs"));
  b.setInsertionPointToStart(&entry.getInitializerRegion().emplaceBlock());
  b.create<LLVM::ReturnOp>(loc,
                           b.create<LLVM::AddressOfOp>(loc, cx.ptrTy, base));
  return FlatSymbolRefAttr::get(b.getContext(), entryName);
}

void pbc::proto::buildUsedList(CodecContext &cx, ArrayRef<Attribute> entries) {
  if (entries.empty())
    return;
  OpBuilder &b = cx.b;
  Location loc = cx.loc;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(cx.module.getBody());
  auto type = LLVM::LLVMArrayType::get(cx.ptrTy, entries.size());
  auto used = b.create<LLVM::GlobalOp>(loc, type, /*isConstant=*/false,
                                       LLVM::Linkage::Appending, "llvm.used",
                                       Attribute());
  used.setSectionAttr(b.getStringAttr("llvm.metadata"));
  b.setInsertionPointToStart(&used.getInitializerRegion().emplaceBlock());
  Value list = b.create<LLVM::UndefOp>(loc, type);
  for (auto [i, e] : llvm::enumerate(entries)) {
    Value addr = b.create<LLVM::AddressOfOp>(
        loc, cx.ptrTy, cast<FlatSymbolRefAttr>(e).getValue());
    list = b.create<LLVM::InsertValueOp>(loc, list, addr, i);
  }
  b.create<LLVM::ReturnOp>(loc, list);
}
