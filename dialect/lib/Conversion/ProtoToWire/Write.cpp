//===- Write.cpp - pbc__T_wr: a message into a scattered writer -----------===//
//
// pbc__T_wr(m, w, size) gets the size T_encoded_size computed. When the
// writer's current chunk has that much room, the backwards encoder writes
// straight into it; otherwise the fields go forwards through the writer,
// in field-number order with the unknown fields last (the forwards twin of
// the encoder: same fields, same conditions), each sub-message again
// through its own pbc__S_wr with the size its length prefix took. Like the
// encoder, a message with extension ranges and unknown fields is the table
// codec's (pbc_table_write_fields), which places the extensions.
//
//===----------------------------------------------------------------------===//
#include "CodecContext.h"

#include "pbc/Dialect/Wire/WireOps.h"

using namespace mlir;
using namespace pbc::proto;
using pbc::abi::Role;
namespace wire = pbc::wire;

namespace {

class WriterBuilder : RoleBuilder {
public:
  using RoleBuilder::RoleBuilder;

  void build(const MessagePlan &m);

private:
  /// The writer: as the pointer sub-messages' writers are called with, and
  /// as the write ops take it.
  Value writer, w;

  void writeTag(uint32_t number, pbc_wire_type wireType);
  void writeValue(const FieldTypeInfo &type, Value v);
  void writeIf(Value cond, function_ref<void()> then);
  void writeString(const FieldPlan &f, Value addr);
  void writeEmbedded(const FieldPlan &f, Value sub);
  void writeFieldsForward(const MessagePlan &m, Value msg);
  void writeField(Value msg, const FieldPlan &f);
  void forEachElement(const FieldPlan &f, Value data, Value count,
                      function_ref<void(Value)> body);
  void writeRepeated(const FieldPlan &f, Value addr);
};

void WriterBuilder::build(const MessagePlan &m) {
  Block *entry = cx.define(m, Role::Writer);
  Value msg = entry->getArgument(0);
  writer = entry->getArgument(1);
  w = b.create<wire::WriterOp>(loc, writer);
  Value size = entry->getArgument(2);
  if (m.placesExtensions())
    cx.handOffUnknownFields(m, msg, [&](Value desc) {
      return cx.callRuntime(pbc::abi::Runtime::pbc_table_write_fields,
                            {desc, msg, writer, size});
    });
  Value room = b.create<wire::ReserveOp>(loc, w, size);
  b.create<scf::IfOp>(
      loc, cx.isNull(room),
      [&](OpBuilder &, Location) {
        writeFieldsForward(m, msg);
        b.create<scf::YieldOp>(loc);
      },
      [&](OpBuilder &, Location) {
        // Sized exactly. The reservation's start is the limit, not null
        // (unchecked): packed varints write whole words into the free
        // bytes below them when the limit says there are some, and the
        // bytes below the reservation are the stream's.
        cx.call(m, Role::Encoder, {msg, cx.offsetPtr(room, size), room});
        b.create<scf::YieldOp>(loc);
      });
  b.create<LLVM::ReturnOp>(loc, ValueRange());
}

void WriterBuilder::writeTag(uint32_t number, pbc_wire_type wireType) {
  b.create<wire::WriteVarintOp>(
      loc, w, cx.cst(cx.i64, pbc_make_tag(number, wireType)));
}

void WriterBuilder::writeValue(const FieldTypeInfo &type, Value v) {
  if (type.fixedWidth())
    b.create<wire::WriteFixedOp>(loc, w, v);
  else
    b.create<wire::WriteVarintOp>(loc, w, cx.toVarint(type, v));
}

void WriterBuilder::writeIf(Value cond, function_ref<void()> then) {
  b.create<scf::IfOp>(loc, cond, [&](OpBuilder &, Location) {
    then();
    b.create<scf::YieldOp>(loc);
  });
}

void WriterBuilder::writeString(const FieldPlan &f, Value addr) {
  Value len = cx.viewSize(addr);
  writeTag(f.number, PBC_WIRE_LEN);
  b.create<wire::WriteVarintOp>(loc, w, len);
  b.create<wire::WriteDataOp>(loc, w, cx.viewData(addr), len);
}

void WriterBuilder::writeEmbedded(const FieldPlan &f, Value sub) {
  Value size = cx.call(*f.message, Role::EncodedSize, sub);
  if (f.isGroup()) {
    writeTag(f.number, PBC_WIRE_START_GROUP);
    cx.call(*f.message, Role::Writer, {sub, writer, size});
    writeTag(f.number, PBC_WIRE_END_GROUP);
    return;
  }
  writeTag(f.number, PBC_WIRE_LEN);
  b.create<wire::WriteVarintOp>(loc, w, size);
  cx.call(*f.message, Role::Writer, {sub, writer, size});
}

void WriterBuilder::writeFieldsForward(const MessagePlan &m, Value msg) {
  for (const FieldPlan *f : m.byNumber)
    writeField(msg, *f);
  // (With extension ranges there are none here: the table codec has them.)
  if (m.keepsUnknownFields() && !m.placesExtensions()) {
    Value unknown = cx.unknownAddr(msg, m);
    b.create<wire::WriteDataOp>(loc, w, cx.viewData(unknown),
                                cx.viewSize(unknown));
  }
}

void WriterBuilder::writeField(Value msg, const FieldPlan &f) {
  Value addr = cx.fieldAddr(msg, f);
  const FieldTypeInfo &type = *f.type;
  if (f.isRepeated())
    return writeRepeated(f, addr);
  if (type.isMessage()) {
    Value sub = cx.load(cx.ptrTy, addr);
    b.create<scf::IfOp>(
        loc, cx.isMessagePresent(msg, f, sub),
        [&](OpBuilder &, Location) {
          writeEmbedded(f, sub);
          b.create<scf::YieldOp>(loc);
        },
        [&](OpBuilder &, Location) {
          // Absent, a map entry's value is still written: an empty message.
          for (char c : f.emptyEncoding)
            b.create<wire::WriteVarintOp>(loc, w, cx.cst(cx.i64, uint8_t(c)));
          b.create<scf::YieldOp>(loc);
        });
    return;
  }
  if (type.isView()) {
    Value len = cx.viewSize(addr);
    writeIf(cx.isPresent(msg, f, len), [&] { writeString(f, addr); });
    return;
  }
  Value v = cx.load(cx.storageType(type), addr);
  writeIf(cx.isPresent(msg, f, v), [&] {
    writeTag(f.number, type.wireType);
    writeValue(type, v);
  });
}

/// Calls `body(element address)` for each element, first to last.
void WriterBuilder::forEachElement(const FieldPlan &f, Value data, Value count,
                                   function_ref<void(Value)> body) {
  b.create<scf::ForOp>(
      loc, cx.cst(cx.i64, 0), count, cx.cst(cx.i64, 1), ValueRange(),
      [&](OpBuilder &, Location, Value i, ValueRange) {
        body(cx.offsetPtr(
            data, b.create<arith::MulIOp>(loc, i, cx.cst(cx.i64, f.elementSize))));
        b.create<scf::YieldOp>(loc);
      });
}

void WriterBuilder::writeRepeated(const FieldPlan &f, Value addr) {
  const FieldTypeInfo &type = *f.type;
  Value data = cx.viewData(addr);
  Value count = cx.viewSize(addr);
  if (f.packed) {
    Value any = cx.cmp(arith::CmpIPredicate::ne, count,
                                        cx.cst(cx.i64, 0));
    writeIf(any, [&] {
      writeTag(f.number, PBC_WIRE_LEN);
      if (unsigned width = type.fixedWidth()) {
        Value len = b.create<arith::MulIOp>(loc, count, cx.cst(cx.i64, width));
        b.create<wire::WriteVarintOp>(loc, w, len);
        b.create<wire::WriteDataOp>(loc, w, data, len);
        return;
      }
      Value len = cx.sumElements(f, data, count, [&](Value elem) {
        return cx.valueSize(type, cx.load(cx.storageType(type), elem));
      });
      b.create<wire::WriteVarintOp>(loc, w, len);
      forEachElement(f, data, count, [&](Value elem) {
        writeValue(type, cx.load(cx.storageType(type), elem));
      });
    });
    return;
  }
  forEachElement(f, data, count, [&](Value elem) {
    if (type.isView())
      return writeString(f, elem);
    if (type.isMessage())
      return writeEmbedded(f, elem);
    writeTag(f.number, type.wireType);
    writeValue(type, cx.load(cx.storageType(type), elem));
  });
}

} // namespace

void pbc::proto::buildWriter(CodecContext &cx, const MessagePlan &m) {
  WriterBuilder(cx).build(m);
}
