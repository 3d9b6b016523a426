//===- TableCodecs.cpp - a compact message's codecs -----------------------===//
//
// A message in the compact tier has every function a specialized one has,
// so that the messages holding it and T_info call it the same way; each is
// one call into the runtime's table codec with the message's description
// (Description.cpp), the program the codec runs. The message then costs its
// description and a few bytes of code per role, and nothing for LLVM to
// optimize. The description, not T_info: the info record points to the
// message's functions, and functions pointing back to it would tie every
// message of a schema into one cycle of LLVM's call graph, whose passes
// then took minutes and gigabytes for a few thousand messages.
//
//===----------------------------------------------------------------------===//
#include "CodecContext.h"

using namespace mlir;
using namespace pbc::proto;
namespace abi = pbc::abi;
using abi::Role;
using abi::Runtime;

/// The role and the table codec function that does its work, taking the
/// role's arguments after the message's description: the entry points too,
/// which for a specialized message inline the runtime's bookkeeping around
/// its own codecs (EntryPoints.cpp), since the table codec has its own.
static constexpr std::pair<Role, Runtime> kTableRoles[] = {
    {Role::Init, Runtime::pbc_table_init},
    {Role::Decode, Runtime::pbc_table_decode},
    {Role::MergeDecode, Runtime::pbc_table_merge_decode},
    {Role::IsInitialized, Runtime::pbc_table_is_initialized},
    {Role::EncodedSize, Runtime::pbc_table_encoded_size},
    {Role::Encode, Runtime::pbc_table_encode},
    {Role::EncodeAtEnd, Runtime::pbc_table_encode_at_end},
    {Role::Write, Runtime::pbc_table_write},
    {Role::Encoder, Runtime::pbc_table_encode_backwards},
    {Role::Writer, Runtime::pbc_table_write_fields},
    {Role::Decoder, Runtime::pbc_table_decode_fields},
    {Role::ToJson, Runtime::pbc_json_put_message},
    {Role::FromJson, Runtime::pbc_json_parse_message},
};

void pbc::proto::buildTableCodecs(CodecContext &cx, const MessagePlan &m) {
  for (auto [role, fn] : kTableRoles) {
    Block *entry = cx.define(m, role);
    // One call: nothing to optimize, and LLVM's -O2 pipeline and
    // instruction selection, per function, would cost more than all the
    // message's data. optnone (with the noinline it requires) takes the
    // -O0 path, which emits the same call; a module of nothing else is
    // compiled at -O0 (CodeGen.cpp).
    auto f = cast<LLVM::LLVMFuncOp>(entry->getParentOp());
    SmallVector<Attribute> passthrough(f.getPassthroughAttr().getValue());
    passthrough.push_back(cx.b.getStringAttr("noinline"));
    passthrough.push_back(cx.b.getStringAttr("optnone"));
    f.setPassthroughAttr(cx.b.getArrayAttr(passthrough));
    SmallVector<Value> args{
        cx.b.create<LLVM::AddressOfOp>(cx.loc, cx.descGlobal(m))};
    llvm::append_range(args, entry->getArguments());
    // T_decode and T_merge_decode take the default options.
    if (role == Role::Decode || role == Role::MergeDecode)
      args.push_back(cx.null());
    cx.returnRuntime(fn, args);
  }
}
