//===- EntryPoints.cpp - T_decode, T_encode, T_write, ... and T_info ------===//
//
// The public entry points are thin: the runtime does the bookkeeping (the
// arena, the decoder state, the required-field check, sizing the buffer,
// the writer's status), given the message's own functions, and LLVM inlines it and turns its
// calls through pointers into direct calls (all but T_merge_decode's, which
// stays a call: kOutOfLine in compiler/CodeGen.cpp). The pbc_message_info record
// lists the same functions for generic code, in abi.def's order, and the
// message's description (Description.cpp).
//
//===----------------------------------------------------------------------===//
#include "CodecContext.h"

#include "pbc/Dialect/Proto/Naming.h"

using namespace mlir;
using namespace pbc::proto;
namespace abi = pbc::abi;
using abi::Role;

/// An entry point that hands its arguments to the runtime function `fn`,
/// followed by the addresses of the message's own `codecs`: the runtime
/// does the bookkeeping, and inlining it turns those into direct calls.
static void forwardToRuntime(CodecContext &cx, const MessagePlan &m,
                             Role entryRole, abi::Runtime fn,
                             ArrayRef<Role> codecs) {
  Block *entry = cx.define(m, entryRole);
  SmallVector<Value> args(entry->getArguments());
  for (Role codec : codecs)
    args.push_back(cx.addressOf(m, codec));
  cx.b.create<LLVM::ReturnOp>(cx.loc, cx.callRuntime(fn, args));
}

void pbc::proto::buildEntryPoints(CodecContext &cx, const MessagePlan &m) {
  OpBuilder &b = cx.b;
  Location loc = cx.loc;
  forwardToRuntime(cx, m, Role::Decode, abi::Runtime::pbc_rt_decode,
                   {Role::Init, Role::Decoder, Role::IsInitialized});
  // T_merge_decode moves the message's structure into the arena through
  // its description before the same decoder reads into it.
  {
    Block *entry = cx.define(m, Role::MergeDecode);
    SmallVector<Value> args(entry->getArguments());
    args.push_back(b.create<LLVM::AddressOfOp>(loc, cx.descGlobal(m)));
    args.push_back(cx.addressOf(m, Role::Decoder));
    args.push_back(cx.addressOf(m, Role::IsInitialized));
    b.create<LLVM::ReturnOp>(
        loc, cx.callRuntime(abi::Runtime::pbc_rt_merge_decode, args));
  }
  forwardToRuntime(cx, m, Role::Encode, abi::Runtime::pbc_rt_encode,
                   {Role::EncodedSize, Role::Encoder});
  forwardToRuntime(cx, m, Role::EncodeAtEnd,
                   abi::Runtime::pbc_rt_encode_at_end,
                   {Role::EncodedSize, Role::Encoder});

  // T_write sizes the message once; pbc__T_wr writes it into the writer's
  // chunk, or forwards through the writer (Write.cpp).
  Block *entry = cx.define(m, Role::Write);
  Value msg = entry->getArgument(0), w = entry->getArgument(1);
  Value size = cx.call(m, Role::EncodedSize, msg);
  cx.call(m, Role::Writer, {msg, w, size});
  b.create<LLVM::ReturnOp>(
      loc, cx.callRuntime(abi::Runtime::pbc_writer_status, w));
}

FlatSymbolRefAttr pbc::proto::buildInfo(CodecContext &cx, const MessagePlan &m,
                                        const Description &desc) {
  OpBuilder &b = cx.b;
  Location loc = cx.loc;
  // weak_odr like the functions: libraries sharing an import don't clash.
  LLVM::GlobalOp info = cx.infoGlobal(m);
  info.setLinkage(LLVM::Linkage::WeakODR);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&info.getInitializerRegion().emplaceBlock());
  Type infoTy = info.getGlobalType();
  Value rec = b.create<LLVM::UndefOp>(loc, infoTy);
  SmallVector<Value> members;
  for (const abi::InfoField &field : abi::infoFields()) {
    switch (field.kind) {
    case abi::InfoField::Name:
      members.push_back(cx.offsetPtr(
          b.create<LLVM::AddressOfOp>(loc, desc.data),
          static_cast<int64_t>(desc.nameOffset)));
      break;
    case abi::InfoField::Size:
      members.push_back(b.create<LLVM::ConstantOp>(loc, cx.i64, m.size));
      break;
    case abi::InfoField::Codec:
      members.push_back(cx.addressOf(m, field.role));
      break;
    case abi::InfoField::Desc:
      members.push_back(b.create<LLVM::AddressOfOp>(loc, desc.desc));
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
  b.create<LLVM::ReturnOp>(loc, b.create<LLVM::AddressOfOp>(loc, info));
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
  // llvm.compiler.used, not llvm.used: LLVM keeps the entries, and the
  // linker may drop them. llvm.used would mark each SHF_GNU_RETAIN, and an
  // entry retained keeps its message's info, description and codecs: a
  // program that links one message of a file would get the whole file.
  // Unretained, the entries are what GNU ld (and lld with -z
  // nostart-stop-gc) keeps for a live reference to __start_pbc_msgs, that
  // is for a program that calls pbc_find_message: all of them or none.
  auto used = b.create<LLVM::GlobalOp>(loc, type, /*isConstant=*/false,
                                       LLVM::Linkage::Appending,
                                       "llvm.compiler.used", Attribute());
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
