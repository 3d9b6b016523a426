//===- ProtoOps.td - proto dialect operations ----------------*- tablegen -*-===//
#ifndef PBC_PROTO_OPS
#define PBC_PROTO_OPS

include "pbc/Dialect/Proto/ProtoDialect.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"

def Proto_FileOp : Proto_Op<"file", [HasParent<"mlir::ModuleOp">]> {
  let summary = "a .proto file: its package, syntax and imports";
  let description = [{
    One per file in the compilation, inputs and their imports alike. Messages
    and enums name their file with their `file` attribute; code for each file
    goes to an object of its own so that libraries sharing an import do not
    clash at link time.

    ```mlir
    proto.file "addressbook.proto" package "tutorial" proto3 imports []
    proto.file "shapes.proto" package "shapes" proto2 edition 1000 imports []
    proto.file "big.proto" package "big" proto3 optimize_for code_size imports []
    ```

    An editions file (read from a newer protoc's descriptors, its features
    resolved into the proto2 terms the rest of pbc speaks) says which
    edition it was written in: descriptor.proto's `Edition` number, 1000 for
    2023, 1001 for 2024.

    `optimize_for` is the file's `option optimize_for`, present only when
    the file sets it: proto-select-tiers honours it.
  }];
  let arguments = (ins StrAttr:$name, StrAttr:$package, Proto_Syntax:$syntax,
                       OptionalAttr<I32Attr>:$edition,
                       OptionalAttr<Proto_OptimizeFor>:$optimize_for,
                       StrArrayAttr:$imports);
  let assemblyFormat = [{
    $name `package` $package $syntax (`edition` $edition^)?
    (`optimize_for` $optimize_for^)? `imports` $imports attr-dict
  }];
}

// Not a SymbolTable: it defines no symbols, and as one it would make the
// verifier check its fields' type references with a fresh symbol table of the
// whole module per message, quadratic in the number of messages.
def Proto_MessageOp : Proto_Op<"message", [
    Symbol, SingleBlock, NoTerminator, NoRegionArguments,
    HasParent<"mlir::ModuleOp">, IsolatedFromAbove]> {
  let summary = "a message type, named by its full name";
  let description = [{
    Holds `proto.field` and `proto.oneof` ops in declaration order. Nested
    messages are not
    nested ops: every message lives at module level under its full name
    (`@tutorial.Person.PhoneNumber`), so fields reference any message or enum
    with a flat symbol.

    `map_entry` marks the synthesized entry type of a map field (key = 1,
    value = 2): both are always written, and a map field's entries are unique
    by key.

    The layout pass adds `size`, `align`, `presence_words` and
    `unknown_offset` (where the raw unknown fields are kept): the C struct
    every later stage (lowering, header) agrees on. A layout is all or
    nothing: a message has all of them (`unknown_offset` unless it is a map
    entry) and then every field its `offset` and every oneof its
    `case_offset`, or none of them.

    `tier` (proto-select-tiers) says how its codecs are built: `specialized`
    machine code, the default, or `compact`, thin entry points into the
    runtime's table codec driven by the message's description; `lite` is
    compact with a description that leaves field and oneof names out.

    `extensions` holds its extension ranges, as descriptor.proto's
    `ExtensionRange` has them: `[start, end)` pairs of field numbers, flat,
    ascending, apart from one another and from every field's number. Its
    description carries them, and with them the table codec writes the
    extensions its unknown fields hold at their range's place among the
    fields, as libprotobuf does (its own encoders hand such a message to the
    table codec when it has unknown fields).

    `profile` (proto-apply-profile, from `pbc profile`'s recording) is the
    work the sample payloads did in messages of this type, its instances
    plus the fields read in them, 0 for a type they never held:
    proto-select-tiers specializes the hot ones. Either way
    the message has every function of the ABI, so the messages that hold
    it call it the same way.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$file,
                       UnitAttr:$map_entry,
                       OptionalAttr<DenseI64ArrayAttr>:$extensions,
                       OptionalAttr<I64Attr>:$size,
                       OptionalAttr<I64Attr>:$align,
                       OptionalAttr<I64Attr>:$presence_words,
                       OptionalAttr<I64Attr>:$unknown_offset,
                       OptionalAttr<Proto_Tier>:$tier,
                       OptionalAttr<I64Attr>:$profile);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `file` $file (`map_entry` $map_entry^)?
    (`extensions` $extensions^)? (`tier` $tier^)?
    (`profile` $profile^)? attr-dict-with-keyword $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// Every field in declaration order, oneof members included.
    llvm::SmallVector<FieldOp> getFields();
    auto getOneofs() { return getBody().front().getOps<OneofOp>(); }
    bool hasLayout() { return getSize().has_value(); }
    /// The extension ranges, `[start, end)`, ascending.
    llvm::SmallVector<std::pair<int64_t, int64_t>> getExtensionRanges();
    /// Map entries keep no unknown fields, as libprotobuf's do not.
    bool keepsUnknownFields() { return !getMapEntry(); }
    /// Its codecs are the table codec's (compact and lite).
    bool isCompact() {
      return getTier() == Tier::Compact || getTier() == Tier::Lite;
    }
    /// Its description keeps field and oneof names.
    bool hasNames() { return getTier() != Tier::Lite; }
    /// The layout attributes are all there or none are.
    mlir::LogicalResult verifyLayout();
    mlir::LogicalResult verifyExtensionRanges();
  }];
  let builders = [
    OpBuilder<(ins "llvm::StringRef":$name, "llvm::StringRef":$file), [{
      $_state.addAttribute(getSymNameAttrName($_state.name),
                           $_builder.getStringAttr(name));
      $_state.addAttribute(getFileAttrName($_state.name),
                           $_builder.getStringAttr(file));
      $_state.addRegion()->emplaceBlock();
    }]>];
  let skipDefaultBuilders = 1;
}

def Proto_OneofOp : Proto_Op<"oneof", [
    HasParent<"MessageOp">, SingleBlock, NoTerminator, NoRegionArguments]> {
  let summary = "a oneof: at most one of its fields is set";
  let description = [{
    ```mlir
    proto.oneof "kind" {
      proto.field "num" = 3 : int32 optional
      proto.field "text" = 4 : string optional utf8
    }
    ```
    Its members share one storage (a C union at the members' `offset`); the
    field number of the member set, 0 for none, is a `uint32_t` at
    `case_offset`, added by the layout pass. proto3 `optional` fields are
    not oneofs here (their synthetic oneof is a presence bit).
  }];
  let arguments = (ins StrAttr:$name, OptionalAttr<I64Attr>:$case_offset);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$name attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    auto getFields() { return getBody().front().getOps<FieldOp>(); }
  }];
  let builders = [
    OpBuilder<(ins "llvm::StringRef":$name), [{
      $_state.addAttribute(getNameAttrName($_state.name),
                           $_builder.getStringAttr(name));
      $_state.addRegion()->emplaceBlock();
    }]>];
  let skipDefaultBuilders = 1;
}

def Proto_FieldOp : Proto_Op<"field", [
    ParentOneOf<["MessageOp", "OneofOp", "ExtensionOp"]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "a field of a message";
  let description = [{
    ```mlir
    proto.field "id" = 2 : int32 implicit
    proto.field "phones" = 4 : message<@tutorial.Person.PhoneNumber> repeated
    proto.field "samples" = 5 : sint64 repeated packed
    proto.field "name" = 1 : string implicit utf8
    proto.field "port" = 6 : uint32 optional default 8080 : ui32
    proto.field "ratio" = 7 : float optional default 1.000000e-01 : f32
    proto.field "name" = 8 : string optional default "none"
    ```
    `packed` says how repeated scalars are written (decoding accepts both
    forms). `utf8` asks the decoder to reject invalid UTF-8 (proto3 strings).
    `default` is the proto2 default, typed as the field is: an integer of
    the field's width (`i32`, `i64`; `ui32`, `ui64` for the unsigned types;
    an enum's number as `i32`), a float (`f32`, `f64`), a bool, or a string
    (the bytes, for `bytes`). `closed` marks an enum field whose enum is
    closed (proto2): values outside it are not stored. `json` is a
    `json_name` the schema declares that differs from the one derived from
    the field's name (`jsonName` in Naming.h: `phone_number` becomes
    `phoneNumber`).

    The layout pass adds `offset` (bytes into the C struct) and, for fields
    with a presence bit, `presence_bit`.

    `followed_by` (proto-apply-profile) is the number of the other field of
    the message that the profile's payloads held most often right after
    this one: the decoder's in-order chain expects it next, instead of the
    next field by number.
  }];
  let arguments = (ins StrAttr:$name, ConfinedAttr<I32Attr, [IntNonNegative]>:$number,
                       Proto_FieldType:$type,
                       OptionalAttr<FlatSymbolRefAttr>:$type_name,
                       Proto_Cardinality:$cardinality,
                       UnitAttr:$packed, UnitAttr:$utf8, UnitAttr:$closed,
                       OptionalAttr<TypedAttrInterface>:$default_value,
                       OptionalAttr<StrAttr>:$json_name,
                       OptionalAttr<I64Attr>:$offset,
                       OptionalAttr<I32Attr>:$presence_bit,
                       OptionalAttr<I32Attr>:$followed_by);
  let assemblyFormat = [{
    $name `=` $number `:` $type (`<` $type_name^ `>`)? $cardinality
    (`packed` $packed^)? (`utf8` $utf8^)? (`closed` $closed^)?
    (`default` $default_value^)? (`json` $json_name^)?
    (`followed_by` $followed_by^)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    bool isRepeated() { return getCardinality() == Cardinality::Repeated; }
    bool hasPresenceBit() { return getPresenceBit().has_value(); }
    /// Message and group fields: singular ones are held by pointer.
    bool isMessageLike() {
      return getType() == FieldType::Message || getType() == FieldType::Group;
    }
    /// The message it is a field of; null for an extension's field.
    MessageOp getParentMessage();
    /// The oneof this field belongs to, if any.
    OneofOp getOneof();
  }];
}

def Proto_ExtensionOp : Proto_Op<"extension", [
    Symbol, SingleBlock, NoTerminator, NoRegionArguments,
    HasParent<"mlir::ModuleOp">,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "an extension of a message, named by its full name";
  let description = [{
    ```mlir
    proto.extension @pkg.ext_count extends @pkg.Base file "ext.proto" {
      proto.field "ext_count" = 100 : int32 optional
    }
    proto.extension @pkg.Item.item extends @pkg.Set file "ext.proto" message_set {
      proto.field "item" = 1000 : message<@pkg.Item> optional
    }
    ```
    An `extend` block's field: its one `proto.field` says what a field of
    the extendee would (number, type, cardinality, packed, default); the
    symbol is the extension's full name (its scope's, not the extendee's:
    `pkg.Item.item`), `file` the file that declares it. An extension is
    optional or repeated. Its data lives in the extendee's unknown fields
    (the accessors read and rewrite them there), so it changes neither the
    extendee's layout nor its codecs; `message_set` marks an extension of a
    `message_set_wire_format` message, written as a MessageSet item.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, FlatSymbolRefAttr:$extendee,
                       StrAttr:$file, UnitAttr:$message_set);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `extends` $extendee `file` $file (`message_set` $message_set^)?
    attr-dict-with-keyword $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// Its field (the verifier checks there is exactly one).
    FieldOp getField();
  }];
  let builders = [
    OpBuilder<(ins "llvm::StringRef":$name, "llvm::StringRef":$extendee,
                   "llvm::StringRef":$file, "bool":$messageSet), [{
      $_state.addAttribute(getSymNameAttrName($_state.name),
                           $_builder.getStringAttr(name));
      $_state.addAttribute(getExtendeeAttrName($_state.name),
                           mlir::FlatSymbolRefAttr::get(
                               $_builder.getContext(), extendee));
      $_state.addAttribute(getFileAttrName($_state.name),
                           $_builder.getStringAttr(file));
      if (messageSet)
        $_state.addAttribute(getMessageSetAttrName($_state.name),
                             $_builder.getUnitAttr());
      $_state.addRegion()->emplaceBlock();
    }]>];
  let skipDefaultBuilders = 1;
}

def Proto_EnumOp : Proto_Op<"enum", [
    Symbol, SingleBlock, NoTerminator, NoRegionArguments,
    HasParent<"mlir::ModuleOp">]> {
  let summary = "an enum type, named by its full name";
  let description = [{
    ```mlir
    proto.enum @tutorial.Person.PhoneType file "addressbook.proto" {
      proto.enum_value "MOBILE" = 0
      proto.enum_value "HOME" = 1
    }
    ```
    `closed` (proto2 enums): a decoder keeps only the listed values.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$file,
                       UnitAttr:$closed, UnitAttr:$allow_alias);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `file` $file (`closed` $closed^)? (`allow_alias` $allow_alias^)?
    attr-dict-with-keyword $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    auto getValues() { return getBody().front().getOps<EnumValueOp>(); }
  }];
  let builders = [
    OpBuilder<(ins "llvm::StringRef":$name, "llvm::StringRef":$file,
                   "bool":$closed, "bool":$allowAlias), [{
      $_state.addAttribute(getSymNameAttrName($_state.name),
                           $_builder.getStringAttr(name));
      $_state.addAttribute(getFileAttrName($_state.name),
                           $_builder.getStringAttr(file));
      if (closed)
        $_state.addAttribute(getClosedAttrName($_state.name),
                             $_builder.getUnitAttr());
      if (allowAlias)
        $_state.addAttribute(getAllowAliasAttrName($_state.name),
                             $_builder.getUnitAttr());
      $_state.addRegion()->emplaceBlock();
    }]>];
  let skipDefaultBuilders = 1;
}

def Proto_EnumValueOp : Proto_Op<"enum_value", [HasParent<"EnumOp">]> {
  let summary = "an enumerator";
  let arguments = (ins StrAttr:$name, I32Attr:$number);
  let assemblyFormat = "$name `=` $number attr-dict";
}

#endif // PBC_PROTO_OPS
