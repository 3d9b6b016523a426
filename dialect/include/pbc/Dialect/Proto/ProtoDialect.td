//===- ProtoDialect.td - the schema-level proto dialect ------*- tablegen -*-===//
//
// The `proto` dialect models a protobuf schema as libprotobuf's front end
// resolved it: files, messages, fields and enums. It carries no code; the
// lowering passes turn it into codec functions.
//
//===----------------------------------------------------------------------===//
#ifndef PBC_PROTO_DIALECT
#define PBC_PROTO_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"

def Proto_Dialect : Dialect {
  let name = "proto";
  let summary = "Protobuf schemas: files, messages, fields, enums";
  let cppNamespace = "::pbc::proto";
}

class Proto_Op<string mnemonic, list<Trait> traits = []>
    : Op<Proto_Dialect, mnemonic, traits>;

// The field types of descriptor.proto, by their wire-relevant name.
def Proto_FieldType : I32EnumAttr<"FieldType", "a protobuf field type", [
    I32EnumAttrCase<"Double", 1, "double">,
    I32EnumAttrCase<"Float", 2, "float">,
    I32EnumAttrCase<"Int64", 3, "int64">,
    I32EnumAttrCase<"UInt64", 4, "uint64">,
    I32EnumAttrCase<"Int32", 5, "int32">,
    I32EnumAttrCase<"Fixed64", 6, "fixed64">,
    I32EnumAttrCase<"Fixed32", 7, "fixed32">,
    I32EnumAttrCase<"Bool", 8, "bool">,
    I32EnumAttrCase<"String", 9, "string">,
    I32EnumAttrCase<"Group", 10, "group">,
    I32EnumAttrCase<"Message", 11, "message">,
    I32EnumAttrCase<"Bytes", 12, "bytes">,
    I32EnumAttrCase<"UInt32", 13, "uint32">,
    I32EnumAttrCase<"Enum", 14, "enum">,
    I32EnumAttrCase<"SFixed32", 15, "sfixed32">,
    I32EnumAttrCase<"SFixed64", 16, "sfixed64">,
    I32EnumAttrCase<"SInt32", 17, "sint32">,
    I32EnumAttrCase<"SInt64", 18, "sint64">]> {
  let cppNamespace = "::pbc::proto";
}

// How many values a field holds and how its presence is tracked:
//   implicit - proto3 singular without `optional`: present iff non-zero;
//   optional - explicit presence (proto2 optional, proto3 optional,
//              and every singular message field);
//   required - proto2 required (explicit presence, must be set);
//   repeated - zero or more values.
def Proto_Cardinality : I32EnumAttr<"Cardinality", "field cardinality", [
    I32EnumAttrCase<"Implicit", 0, "implicit">,
    I32EnumAttrCase<"Optional", 1, "optional">,
    I32EnumAttrCase<"Required", 2, "required">,
    I32EnumAttrCase<"Repeated", 3, "repeated">]> {
  let cppNamespace = "::pbc::proto";
}

def Proto_Syntax : I32EnumAttr<"Syntax", "proto file syntax", [
    I32EnumAttrCase<"Proto2", 2, "proto2">,
    I32EnumAttrCase<"Proto3", 3, "proto3">]> {
  let cppNamespace = "::pbc::proto";
}

// descriptor.proto's FileOptions.OptimizeMode, by its numbers: what a file
// asks for with `option optimize_for`.
def Proto_OptimizeFor : I32EnumAttr<"OptimizeFor", "a file's optimize_for", [
    I32EnumAttrCase<"Speed", 1, "speed">,
    I32EnumAttrCase<"CodeSize", 2, "code_size">,
    I32EnumAttrCase<"LiteRuntime", 3, "lite_runtime">]> {
  let cppNamespace = "::pbc::proto";
}

// How a message's codecs are built (docs/architecture.md, "Tiers"): its
// specialized machine code, or the runtime's table codec driven by its
// description; `lite` is compact with a description that leaves field and
// oneof names out (LITE_RUNTIME: no reflection by name).
def Proto_Tier : I32EnumAttr<"Tier", "a message's codec tier", [
    I32EnumAttrCase<"Specialized", 0, "specialized">,
    I32EnumAttrCase<"Compact", 1, "compact">,
    I32EnumAttrCase<"Lite", 2, "lite">]> {
  let cppNamespace = "::pbc::proto";
}

#endif // PBC_PROTO_DIALECT
