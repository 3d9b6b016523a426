//===- ToJson.cpp - pbc__T_json: a message as ProtoJSON -------------------===//
//
// pbc__T_json(m, p) prints m as a JSON object through the runtime's printer
// (runtime/json_print.c), the way the printer does from the description
// but with the walk over the fields unrolled: each field's presence test
// is the binary writer's, its member name a constant `,"name":` (the
// printer turns the first comma into the brace at the end, so no member
// asks whether it is the first), and its value one call of the runtime's
// number, string or enum printers, which LLVM inlines from the bitcode
// where they are small. Both names are constants when the json_name
// differs; the printer's preserve_proto_field_names picks one.
//
// What the runtime already prints from the description and is rare goes
// there whole: a map field, a field whose name needs escaping; and the
// messages whose JSON is not their fields (the well-known types), whose
// extensions go among the fields (extension ranges), or that have no
// names (LITE_RUNTIME) get the description's printer as their ToJson, as
// compact messages do (TableCodecs.cpp).
//
//===----------------------------------------------------------------------===//
#include "CodecContext.h"

using namespace mlir;
using namespace pbc::proto;
using pbc::abi::Role;
using pbc::abi::Runtime;

namespace {

class JsonBuilder : RoleBuilder {
public:
  using RoleBuilder::RoleBuilder;

  void build(const MessagePlan &m);

private:
  Value p;
  /// The printer's preserve_proto_field_names, read once where a field's
  /// two names differ.
  Value protoNames;

  void put(StringRef symbol, StringRef text);
  void printIf(Value cond, function_ref<void()> then);
  void putName(const MessagePlan &m, const FieldPlan &f);
  void putValue(const FieldPlan &f, Value addr, bool element);
  void putScalar(const FieldPlan &f, Value v);
  std::pair<Value, Value> presence(Value msg, const FieldPlan &f, Value addr);
  void putField(const MessagePlan &m, Value msg, const FieldPlan &f,
                uint32_t index);
};

void JsonBuilder::build(const MessagePlan &m) {
  Block *entry = cx.define(m, Role::ToJson);
  Value msg = entry->getArgument(0);
  p = entry->getArgument(1);
  if (!jsonIsFields(m)) {
    Value desc = b.create<LLVM::AddressOfOp>(loc, cx.descGlobal(m));
    cx.callRuntime(Runtime::pbc_json_put_message, {desc, msg, p});
    b.create<LLVM::ReturnOp>(loc, ValueRange());
    return;
  }
  Value mark = cx.callRuntime(Runtime::pbc_json_begin_object, {p});
  printIf(cx.cmp(arith::CmpIPredicate::ne, mark, cx.cst(cx.i64, -1)), [&] {
    if (llvm::any_of(m.fields, [](const FieldPlan &f) {
          return f.jsonName != f.op.getName();
        }))
      protoNames = cx.callRuntime(Runtime::pbc_json_proto_names, {p});
    for (auto [index, f] : llvm::enumerate(m.byNumber))
      putField(m, msg, *f, index);
    cx.callRuntime(Runtime::pbc_json_end_object, {p, mark});
  });
  b.create<LLVM::ReturnOp>(loc, ValueRange());
}

void JsonBuilder::put(StringRef symbol, StringRef text) {
  cx.callRuntime(Runtime::pbc_json_put,
                 {p, b.create<LLVM::AddressOfOp>(loc, cx.textGlobal(symbol, text)),
                  cx.cst(cx.i64, text.size())});
}

void JsonBuilder::printIf(Value cond, function_ref<void()> then) {
  b.create<scf::IfOp>(loc, cond, [&](OpBuilder &, Location) {
    then();
    b.create<scf::YieldOp>(loc);
  });
}

/// `,"name":`, by json_name or as declared as the printer says.
void JsonBuilder::putName(const MessagePlan &m, const FieldPlan &f) {
  std::string symbol =
      ("pbc__" + m.name + "_json_" + Twine(f.number)).str();
  StringRef declared = f.op.getName();
  auto member = [](StringRef name) { return (",\"" + name + "\":").str(); };
  if (f.jsonName == declared)
    return put(symbol, member(declared));
  b.create<scf::IfOp>(
      loc, protoNames,
      [&](OpBuilder &, Location) {
        put(symbol + "_proto", member(declared));
        b.create<scf::YieldOp>(loc);
      },
      [&](OpBuilder &, Location) {
        put(symbol, member(f.jsonName));
        b.create<scf::YieldOp>(loc);
      });
}

/// One value of `f` at `addr` (an element of a repeated field when
/// `element`: a message element is the struct itself).
void JsonBuilder::putValue(const FieldPlan &f, Value addr, bool element) {
  const FieldTypeInfo &type = *f.type;
  if (type.isMessage()) {
    Value sub = element ? addr : cx.load(cx.ptrTy, addr);
    cx.call(*f.message, Role::ToJson, {sub, p});
    return;
  }
  if (type.isView()) {
    Runtime fn = type.type == FieldType::String ? Runtime::pbc_json_put_string
                                                : Runtime::pbc_json_put_bytes;
    cx.callRuntime(fn, {p, cx.viewData(addr), cx.viewSize(addr)});
    return;
  }
  putScalar(f, cx.load(cx.storageType(type), addr));
}

/// A scalar value `v` of `f`, as it is stored.
void JsonBuilder::putScalar(const FieldPlan &f, Value v) {
  switch (f.type->type) {
  case FieldType::Double:
    v = b.create<LLVM::BitcastOp>(loc, cx.i64, v);
    cx.callRuntime(Runtime::pbc_json_put_double, {p, v});
    return;
  case FieldType::Float:
    v = b.create<LLVM::BitcastOp>(loc, cx.i32, v);
    cx.callRuntime(Runtime::pbc_json_put_float, {p, v});
    return;
  case FieldType::Bool:
    cx.callRuntime(Runtime::pbc_json_put_bool, {p, cx.isNonZero(v)});
    return;
  case FieldType::Enum: {
    Value info =
        b.create<LLVM::AddressOfOp>(loc, cx.enumInfoGlobal(f.enumType));
    cx.callRuntime(Runtime::pbc_json_put_enum, {p, info, v});
    return;
  }
  case FieldType::UInt32:
  case FieldType::Fixed32:
    cx.callRuntime(Runtime::pbc_json_put_u32, {p, v});
    return;
  case FieldType::UInt64:
  case FieldType::Fixed64:
    cx.callRuntime(Runtime::pbc_json_put_u64, {p, v});
    return;
  default:
    cx.callRuntime(f.type->size == 8 ? Runtime::pbc_json_put_i64
                                  : Runtime::pbc_json_put_i32,
                   {p, v});
    return;
  }
}

/// Whether `f` prints (what the binary writer writes, a repeated field
/// with elements), and what the test loaded: the element count, the
/// sub-message, the string's size or the scalar value.
std::pair<Value, Value> JsonBuilder::presence(Value msg, const FieldPlan &f,
                                              Value addr) {
  if (f.isRepeated()) {
    Value count = cx.viewSize(addr);
    return {cx.cmp(arith::CmpIPredicate::ne, count, cx.cst(cx.i64, 0)), count};
  }
  if (f.type->isMessage()) {
    Value sub = cx.load(cx.ptrTy, addr);
    return {cx.isMessagePresent(msg, f, sub), sub};
  }
  Value v = f.type->isView() ? cx.viewSize(addr) : cx.loadValue(msg, f);
  return {cx.isPresent(msg, f, v), v};
}

void JsonBuilder::putField(const MessagePlan &m, Value msg, const FieldPlan &f,
                           uint32_t index) {
  Value addr = cx.fieldAddr(msg, f);
  auto [set, loaded] = presence(msg, f, addr);
  bool isMap = f.message && f.message->isMapEntry;
  bool byRuntime = isMap || !plainJson(f.jsonName) || !plainJson(f.op.getName());
  printIf(set, [&] {
    if (byRuntime) {
      Value desc = b.create<LLVM::AddressOfOp>(loc, cx.descGlobal(m));
      cx.callRuntime(Runtime::pbc_json_put_field,
                     {p, desc, cx.cst(cx.i32, index), msg});
      return;
    }
    putName(m, f);
    if (f.isRepeated()) {
      Value data = cx.viewData(addr);
      Value mark = cx.callRuntime(Runtime::pbc_json_begin_list, {p});
      const FieldTypeInfo &type = *f.type;
      if (!type.isMessage() && !type.isView() &&
          type.type != FieldType::Enum) {
        // Numbers and bools: one call formats the run, no call an element.
        cx.callRuntime(Runtime::pbc_json_put_run,
                       {p, cx.cst(cx.i32, static_cast<int64_t>(type.type)),
                        data, loaded});
        cx.callRuntime(Runtime::pbc_json_end_list, {p, mark});
        return;
      }
      b.create<scf::ForOp>(
          loc, cx.cst(cx.i64, 0), loaded, cx.cst(cx.i64, 1), ValueRange(),
          [&](OpBuilder &, Location, Value i, ValueRange) {
            put("pbc__json_comma", ",");
            Value at = b.create<arith::MulIOp>(loc, i,
                                               cx.cst(cx.i64, f.elementSize));
            putValue(f, cx.offsetPtr(data, at), /*element=*/true);
            b.create<scf::YieldOp>(loc);
          });
      cx.callRuntime(Runtime::pbc_json_end_list, {p, mark});
    } else if (f.type->isMessage()) {
      cx.call(*f.message, Role::ToJson, {loaded, p});
    } else if (f.type->isView()) {
      putValue(f, addr, /*element=*/false);
    } else {
      putScalar(f, loaded);
    }
  });
}

} // namespace

void pbc::proto::buildToJson(CodecContext &cx, const MessagePlan &m) {
  JsonBuilder(cx).build(m);
}
