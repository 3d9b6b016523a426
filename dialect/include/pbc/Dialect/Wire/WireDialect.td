//===- WireDialect.td - the codec-level wire dialect ---------*- tablegen -*-===//
//
// The `wire` dialect says what generated encode/size/decode code does on the
// protobuf wire format: write a constant tag, write or size a varint, read a
// tag, check UTF-8, call into the runtime. The proto-to-wire pass builds codec
// functions from these ops (inside llvm.func bodies, next to llvm/scf/arith
// ops); their folds and canonicalizations are where constant tags and sizes
// fold away; wire-to-llvm then expands them.
//
// Encoding writes backwards: `put` ops take the position just past the bytes
// to write and return the position of the first written byte, so a nested
// message's length is known when its tag is written, without a size pass.
//
//===----------------------------------------------------------------------===//
#ifndef PBC_WIRE_DIALECT
#define PBC_WIRE_DIALECT

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"

def Wire_Dialect : Dialect {
  let name = "wire";
  let summary = "Protobuf wire-format codec operations";
  let cppNamespace = "::pbc::wire";
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::arith::ArithDialect"];
  let hasConstantMaterializer = 1;
  let useDefaultTypePrinterParser = 1;
}

class Wire_Type<string name, string typeMnemonic>
    : TypeDef<Wire_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def Wire_DecoderType : Wire_Type<"Decoder", "decoder"> {
  let summary = "the state of one decode call";
  let description = [{
    The runtime's `pbc_decoder`: the arena, the nesting depth, the first
    error and the bounds of the whole input. Every reading op takes it; a
    failing one records its error there. `wire.decoder` gives it to the
    pointer a decoder function receives.
  }];
}

def Wire_WriterType : Wire_Type<"Writer", "writer"> {
  let summary = "a scattered writer";
  let description = [{
    The runtime's `pbc_writer`, which the `write_*` ops append to.
    `wire.writer` gives it to the pointer a writer function receives.
  }];
}

#endif // PBC_WIRE_DIALECT
