//===- ABI.cpp - the tables of include/runtime/abi.def ------------------------===//
#include "pbc/Support/ABI.h"
#include "pbc/Dialect/Proto/Naming.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace pbc::abi;
using mlir::MLIRContext;
using mlir::ModuleOp;
using mlir::OpBuilder;
using mlir::Operation;
namespace LLVM = mlir::LLVM;

namespace {

enum class LLVMKind : uint8_t { VOID, I1, I8, I16, I32, I64, PTR };

struct TypeRow {
  llvm::StringLiteral cType;
  LLVMKind llvm;
};

const TypeRow kTypes[] = {
#define PBC_ABI_TYPE(Name, ctype, llvm) {#ctype, LLVMKind::llvm},
#include "abi.def"
};

// One array of parameters per codec and runtime function, then the rows.
#define PBC_PARAM(type, name) Param{Type::type, #name}
#define PBC_CODEC(R, suffix, kind, result, ...)                                \
  const Param k##R##Params[] = {__VA_ARGS__};
#include "abi.def"
#undef PBC_PARAM

constexpr CodecKind PUBLIC = CodecKind::Public;
constexpr CodecKind ENTRY = CodecKind::Entry;
constexpr CodecKind INTERNAL = CodecKind::Internal;
const Codec kCodecs[] = {
#define PBC_CODEC(R, suffix, kind, result, ...)                                \
  {Role::R, #suffix, kind, Type::result, k##R##Params},
#include "abi.def"
};

// What each PBC_INFO_FIELD row names: NAME, SIZE or a codec's role.
namespace info {
constexpr InfoField NAME{InfoField::Name, Role{}};
constexpr InfoField SIZE{InfoField::Size, Role{}};
constexpr InfoField DESC{InfoField::Desc, Role{}};
#define PBC_CODEC(R, suffix, kind, result, ...)                                \
  constexpr InfoField R{InfoField::Codec, Role::R};
#include "abi.def"
} // namespace info

const InfoField kInfoFields[] = {
#define PBC_INFO_FIELD(member, what) info::what,
#include "abi.def"
};

#define PBC_RUNTIME(name, result, ...)                                         \
  const Type k_##name##_params[] = {PBC_TYPES(__VA_ARGS__)};
#define PBC_TYPES(...) PBC_TYPES_N(__VA_ARGS__, 7, 6, 5, 4, 3, 2, 1)(__VA_ARGS__)
#define PBC_TYPES_N(a, b, c, d, e, f, g, n, ...) PBC_TYPES_##n
#define PBC_TYPES_1(a) Type::a
#define PBC_TYPES_2(a, ...) Type::a, PBC_TYPES_1(__VA_ARGS__)
#define PBC_TYPES_3(a, ...) Type::a, PBC_TYPES_2(__VA_ARGS__)
#define PBC_TYPES_4(a, ...) Type::a, PBC_TYPES_3(__VA_ARGS__)
#define PBC_TYPES_5(a, ...) Type::a, PBC_TYPES_4(__VA_ARGS__)
#define PBC_TYPES_6(a, ...) Type::a, PBC_TYPES_5(__VA_ARGS__)
#define PBC_TYPES_7(a, ...) Type::a, PBC_TYPES_6(__VA_ARGS__)
#include "abi.def"

const RuntimeFunction kRuntime[] = {
#define PBC_RUNTIME(name, result, ...) {#name, Type::result, k_##name##_params},
#include "abi.def"
};

// The description's members, every record's in one array (a record's rows
// are contiguous), and the records, which find theirs in it.
struct DescMemberRow {
  DescRecord record;
  DescMember member;
};
const DescMemberRow kDescMembers[] = {
#define PBC_DESC_MEMBER(Record, member, type, offset)                          \
  {DescRecord::Record, {#member, Type::type, offset}},
#include "abi.def"
};

struct DescRecordRow {
  llvm::StringLiteral cType;
  uint32_t size;
};
const DescRecordRow kDescRecords[] = {
#define PBC_DESC_RECORD(Record, ctype, size) {#ctype, size},
#include "abi.def"
};

/// The layouts, built once from the rows.
struct DescLayouts {
  llvm::SmallVector<DescMember> members;
  llvm::SmallVector<DescRecordLayout> records;
  DescLayouts() {
    for (const DescMemberRow &row : kDescMembers)
      members.push_back(row.member);
    size_t begin = 0;
    for (auto [i, row] : llvm::enumerate(kDescRecords)) {
      size_t end = begin;
      while (end < std::size(kDescMembers) &&
             kDescMembers[end].record == static_cast<DescRecord>(i))
        ++end;
      records.push_back({row.cType, row.size,
                         llvm::ArrayRef(members).slice(begin, end - begin)});
      begin = end;
    }
    assert(begin == std::size(kDescMembers) &&
           "abi.def: a record's members are not contiguous");
#ifndef NDEBUG
    // LLVM lays a struct out as C does: each member at the next multiple of
    // its size (all are 1, 2, 4 or 8 bytes).
    for (const DescRecordLayout &r : records) {
      uint32_t at = 0;
      for (const DescMember &m : r.members) {
        uint32_t n = byteSize(m.type);
        at = (at + n - 1) / n * n;
        assert(m.offset == at && "abi.def: a member not at its natural offset");
        at += n;
      }
      assert((at + 7) / 8 * 8 == r.size && "abi.def: a record's size");
    }
#endif
  }
};

} // namespace

bool DescRecordLayout::hasPointers() const {
  return llvm::any_of(members,
                      [](const DescMember &m) { return m.type == Type::PTR; });
}

const DescMember &DescRecordLayout::member(llvm::StringRef name) const {
  for (const DescMember &m : members)
    if (m.name == name)
      return m;
  llvm_unreachable("a description member abi.def does not have");
}

const DescRecordLayout &pbc::abi::descRecord(DescRecord record) {
  static const DescLayouts layouts;
  return layouts.records[static_cast<size_t>(record)];
}

LLVM::LLVMStructType pbc::abi::llvmStructType(MLIRContext *ctx,
                                              DescRecord record) {
  llvm::SmallVector<mlir::Type> members;
  for (const DescMember &m : descRecord(record).members)
    members.push_back(llvmType(ctx, m.type));
  return LLVM::LLVMStructType::getLiteral(ctx, members);
}

uint32_t pbc::abi::byteSize(abi::Type type) {
  switch (kTypes[static_cast<size_t>(type)].llvm) {
  case LLVMKind::VOID:
    return 0;
  case LLVMKind::I1:
  case LLVMKind::I8:
    return 1;
  case LLVMKind::I16:
    return 2;
  case LLVMKind::I32:
    return 4;
  case LLVMKind::I64:
  case LLVMKind::PTR:
    return 8;
  }
  llvm_unreachable("unknown LLVM kind");
}

llvm::ArrayRef<Codec> pbc::abi::codecs() { return kCodecs; }

llvm::ArrayRef<InfoField> pbc::abi::infoFields() { return kInfoFields; }

const Codec &pbc::abi::codec(Role role) {
  const Codec &c = kCodecs[static_cast<size_t>(role)];
  assert(c.role == role && "abi.def rows are in Role order");
  return c;
}

std::optional<Role> pbc::abi::roleNamed(llvm::StringRef suffix) {
  for (const Codec &c : kCodecs)
    if (c.suffix == suffix)
      return c.role;
  return std::nullopt;
}

std::string pbc::abi::functionName(llvm::StringRef fullName, Role role) {
  const Codec &c = codec(role);
  return c.kind == CodecKind::Internal
             ? proto::internalFunctionName(fullName, c.suffix)
             : proto::cFunctionName(fullName, c.suffix);
}

const RuntimeFunction &pbc::abi::runtimeFunction(Runtime fn) {
  return kRuntime[static_cast<size_t>(fn)];
}

mlir::Type pbc::abi::llvmType(MLIRContext *ctx, abi::Type type) {
  switch (kTypes[static_cast<size_t>(type)].llvm) {
  case LLVMKind::VOID:
    return LLVM::LLVMVoidType::get(ctx);
  case LLVMKind::I1:
    return mlir::IntegerType::get(ctx, 1);
  case LLVMKind::I8:
    return mlir::IntegerType::get(ctx, 8);
  case LLVMKind::I16:
    return mlir::IntegerType::get(ctx, 16);
  case LLVMKind::I32:
    return mlir::IntegerType::get(ctx, 32);
  case LLVMKind::I64:
    return mlir::IntegerType::get(ctx, 64);
  case LLVMKind::PTR:
    return LLVM::LLVMPointerType::get(ctx);
  }
  llvm_unreachable("unknown LLVM kind");
}

LLVM::LLVMFunctionType pbc::abi::llvmFunctionType(MLIRContext *ctx,
                                                  const Codec &codec) {
  llvm::SmallVector<mlir::Type> params;
  for (const Param &p : codec.params)
    params.push_back(llvmType(ctx, p.type));
  return LLVM::LLVMFunctionType::get(llvmType(ctx, codec.result), params);
}

LLVM::LLVMFunctionType pbc::abi::llvmFunctionType(MLIRContext *ctx,
                                                  Runtime fn) {
  const RuntimeFunction &f = runtimeFunction(fn);
  llvm::SmallVector<mlir::Type> params;
  for (abi::Type t : f.params)
    params.push_back(llvmType(ctx, t));
  return LLVM::LLVMFunctionType::get(llvmType(ctx, f.result), params);
}

LLVM::LLVMFuncOp pbc::abi::declareRuntime(OpBuilder &builder, ModuleOp module,
                                          Runtime fn) {
  llvm::StringRef name = runtimeFunction(fn).name;
  for (Operation &op : llvm::reverse(*module.getBody()))
    if (auto f = llvm::dyn_cast<LLVM::LLVMFuncOp>(op);
        f && f.isExternal() && f.getSymName() == name)
      return f;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(module.getBody());
  return builder.create<LLVM::LLVMFuncOp>(
      module.getLoc(), name, llvmFunctionType(module.getContext(), fn));
}

std::string pbc::abi::cType(abi::Type type, llvm::StringRef messageType) {
  if (type == abi::Type::MSG)
    return (messageType + " *").str();
  if (type == abi::Type::CMSG)
    return ("const " + messageType + " *").str();
  return kTypes[static_cast<size_t>(type)].cType.str();
}

std::string pbc::abi::cPrototype(const Codec &codec, llvm::StringRef fullName) {
  std::string type = proto::cTypeName(fullName);
  // "T *m", "size_t len": no space after a pointer's star.
  auto declarator = [&](abi::Type t, llvm::StringRef name) {
    std::string c = cType(t, type);
    return c + (llvm::StringRef(c).ends_with("*") ? "" : " ") + name.str();
  };
  std::string text = declarator(codec.result, functionName(fullName, codec.role));
  text += "(";
  for (auto [i, p] : llvm::enumerate(codec.params)) {
    if (i)
      text += ", ";
    text += declarator(p.type, p.name);
  }
  return text + ")";
}
