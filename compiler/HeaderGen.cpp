//===- HeaderGen.cpp - the C header for a compiled .proto file ------------===//
//
// The header mirrors the layout the layout pass chose (the compiled code's
// view of each struct) and asserts it at the user's compile time, so any
// disagreement between header and object code is a compile error rather
// than memory corruption. All names come from pbc/Dialect/Proto/Naming.h,
// the single place that decides C spellings.
//
//===----------------------------------------------------------------------===//
#include "HeaderGen.h"
#include "Diagnostics.h"

#include "pbc/Dialect/Proto/EncodingPlan.h"
#include "pbc/Dialect/Proto/Naming.h"
#include "pbc/Support/ABI.h"
#include "pbc/Dialect/Proto/ProtoOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <climits>

using namespace mlir;
using namespace pbc;
using namespace pbc::proto;
using llvm::StringRef;

namespace {

/// `text` as a C string literal body that is also safe inside a comment:
/// no `*` (which could end the comment) and no `??` (trigraphs).
std::string commentSafe(StringRef text) {
  std::string out;
  char prev = 0;
  for (unsigned char c : text) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f && c != '*' &&
               !(c == '?' && prev == '?')) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\%03o", c);
      out += buf;
    }
    prev = static_cast<char>(c);
  }
  return out;
}

/// `full` as it would be written inside message `scope`: the longest
/// enclosing scope prefix is dropped ("a.Person.Phone" in "a.Person" ->
/// "Phone"). Only used in comments, so shadowing does not matter.
std::string relativeName(StringRef full, StringRef scope) {
  while (!scope.empty()) {
    if (full.starts_with(scope) && full.size() > scope.size() &&
        full[scope.size()] == '.')
      return full.drop_front(scope.size() + 1).str();
    size_t dot = scope.rfind('.');
    scope = dot == StringRef::npos ? StringRef() : scope.take_front(dot);
  }
  return full.str();
}

/// An int32 as a C constant expression of type int (INT_MIN has no literal).
std::string intConstant(int32_t value) {
  if (value == INT32_MIN)
    return "(-2147483647 - 1)";
  return std::to_string(value);
}

/// One struct member after `_presence`: a field outside any oneof, a
/// oneof's union, a oneof's case, or the unknown fields.
struct Member {
  enum Kind { Field, Union, Case, Unknown } kind;
  int64_t offset;
  FieldOp field = nullptr;
  OneofOp oneof = nullptr;
};

/// The members in the order the layout pass placed them in the struct.
SmallVector<Member> membersByOffset(MessageOp msg) {
  SmallVector<Member> members;
  for (Operation &op : msg.getBody().front()) {
    if (auto field = dyn_cast<FieldOp>(op)) {
      members.push_back({Member::Field,
                         static_cast<int64_t>(*field.getOffset()), field,
                         nullptr});
    } else if (auto oneof = dyn_cast<OneofOp>(op)) {
      FieldOp first = *oneof.getFields().begin();
      members.push_back({Member::Union,
                         static_cast<int64_t>(*first.getOffset()), nullptr,
                         oneof});
      members.push_back({Member::Case,
                         static_cast<int64_t>(*oneof.getCaseOffset()),
                         nullptr, oneof});
    }
  }
  if (std::optional<uint64_t> unknown = msg.getUnknownOffset())
    members.push_back({Member::Unknown, static_cast<int64_t>(*unknown),
                       nullptr, nullptr});
  llvm::stable_sort(members, [](const Member &a, const Member &b) {
    return a.offset < b.offset;
  });
  return members;
}

const char kUsage[] = R"(
/* For each message type T:
 *   void T_init(T *m);
 *       Proto defaults (proto2 [default = ...] included), nothing present.
 *   pbc_status T_decode(T *m, const uint8_t *buf, size_t len,
 *                       pbc_arena *arena);
 *       Parses buf. Strings and bytes point into buf, repeated fields and
 *       sub-messages into arena memory: both must outlive the message.
 *       Fails with PBC_ERR_MISSING_REQUIRED when T_is_initialized fails.
 *   bool T_is_initialized(const T *m);
 *       Every proto2 required field is set, in m and the messages it holds.
 *   size_t T_encoded_size(const T *m);
 *       The exact size of the encoding.
 *   pbc_status T_encode(const T *m, uint8_t *buf, size_t cap,
 *                       size_t *written);
 *       Serializes into buf, byte-identical to libprotobuf: one walk that
 *       writes the bytes at the end of buf, then moves them to its front
 *       (no move when cap is T_encoded_size(m)).
 *   pbc_status T_encode_at_end(const T *m, uint8_t *buf, size_t cap,
 *                              uint8_t **start, size_t *written);
 *       The same bytes, left where the walk writes them: [*start, buf +
 *       cap) (the room below *start may be overwritten too). No move
 *       whatever cap is: the fastest serialization when the
 *       bytes can be used where they are (written out, sent, copied once).
 *       Too small a cap: PBC_ERR_BUFFER_TOO_SMALL, *start = buf, *written
 *       the size needed.
 *   pbc_status T_write(const T *m, pbc_writer *w);
 *       The same bytes, appended to a scattered writer (pbc/writer.h).
 *   extern const pbc_message_info T_info;
 *       T's entry for generic code, as pbc_find_message returns it.
 *   pbc_status T_from_json(T *m, const char *json, size_t len,
 *                          pbc_arena *arena, const pbc_json_options *opt,
 *                          pbc_json_error *error);
 *   pbc_status T_to_json(const T *m, char *buf, size_t cap,
 *                        size_t *written, const pbc_json_options *opt);
 *   pbc_status T_write_json(const T *m, pbc_writer *w,
 *                           const pbc_json_options *opt);
 *       ProtoJSON read and printed (pbc/json.h: pbc_json_parse,
 *       pbc_json_print, pbc_json_write with T_info).
 * Fields with explicit presence also get inline T_has_F, T_set_F (stores
 * the value and marks it present) and T_clear_F (marks it absent and resets
 * the value to zero/empty, not to a proto2 [default]). Singular message
 * fields are pointers (NULL = absent); repeated fields are {data, size}
 * views.
 * A oneof O is a union `O` of its fields plus `uint32_t O_case`, the field
 * number of the member set (0 = none; enum T_O_case names them), with
 * inline T_has_F (O_case == F's number), T_set_F (stores the value, sets
 * O_case) and T_clear_O (O_case = 0).
 * A map field is a repeated field of entry structs {key, value}, encoded
 * in array order; keys are unique (as in libprotobuf, decoding keeps the
 * last entry of a key), so a message built by hand should not repeat one.
 * _unknown holds the fields the decoder did not know (other fields,
 * extensions, enum values a proto2 enum does not declare), raw; encoding
 * writes them back after the known fields. Map entries have none. */

)";

/// The C identifiers declared in one scope (the header's file scope, or
/// one struct or union), each with the proto entity it stands for, so that
/// two entities that would get the same C name are reported rather than
/// written into a header that does not compile.
struct NameScope {
  struct Entry {
    Operation *op;
    std::string what;
  };
  llvm::StringMap<Entry> names;
};

class HeaderWriter {
public:
  HeaderWriter(ModuleOp module, llvm::raw_ostream &out)
      : module(module), symbols(module), os(text), out(out) {}

  LogicalResult emit(StringRef protoFile);

private:
  LogicalResult checkLayout(MessageOp msg);

  void emitFile(FileOp file);
  void emitEnum(EnumOp op);
  void emitCaseEnum(MessageOp msg, OneofOp oneof);
  void emitStruct(MessageOp msg);
  void emitAsserts(MessageOp msg);
  void emitFunctions(MessageOp msg);
  void emitJsonFunctions(StringRef type, StringRef info,
                         llvm::function_ref<std::string(StringRef)> function);
  void emitPresenceAccessors(MessageOp msg, FieldOp field);
  void emitOneofAccessors(MessageOp msg, OneofOp oneof);
  void emitStreamingWriters(MessageOp msg);
  void emitExtension(ExtensionOp ext);

  /// Records that `name` in `scope` stands for `what` (declared by `op`);
  /// reports a clash with an earlier entity of the same name.
  void declare(NameScope &scope, StringRef name, Operation *op,
               const llvm::Twine &what);
  void declareGlobal(StringRef name, Operation *op, const llvm::Twine &what) {
    declare(globals, name, op, what);
  }

  std::string memberType(FieldOp field);
  std::string elementType(FieldOp field);
  std::string fieldComment(FieldOp field);
  std::string typeText(FieldOp field, StringRef scope);
  MessageOp mapEntryOf(FieldOp field);
  std::string defaultText(FieldOp field);

  ModuleOp module;
  SymbolTable symbols;
  /// What the streaming writers write: the same tags as the codecs (made
  /// once the layout is known to be there).
  std::optional<EncodingPlan> plan;
  llvm::StringMap<FileOp> files;
  NameScope globals;
  bool nameClash = false;
  llvm::SmallPtrSet<Operation *, 4> reported;
  /// The header is written to `text` and goes to `out` only when complete.
  std::string text;
  llvm::raw_string_ostream os;
  llvm::raw_ostream &out;
};

/// How diagnostics name proto entities.
std::string describe(MessageOp msg) {
  return ("message \"" + msg.getSymName() + "\"").str();
}
std::string describe(FieldOp field) {
  return ("field \"" + field.getName() + "\" of " +
          describe(field.getParentMessage()))
      .str();
}
std::string describe(MessageOp msg, OneofOp oneof) {
  return ("oneof \"" + oneof.getName() + "\" of " + describe(msg)).str();
}

} // namespace

static LogicalResult collectFiles(ModuleOp module,
                                  const llvm::StringMap<FileOp> &files,
                                  StringRef name, llvm::StringSet<> &seen,
                                  SmallVectorImpl<FileOp> &order) {
  if (!seen.insert(name).second)
    return success();
  FileOp file = files.lookup(name);
  if (!file)
    return module.emitError("no proto.file \"") << name << "\" in the module";
  for (StringRef dep : file.getImports().getAsValueRange<StringAttr>())
    if (failed(collectFiles(module, files, dep, seen, order)))
      return failure();
  order.push_back(file);
  return success();
}

LogicalResult pbc::filesInImportOrder(ModuleOp module, StringRef protoFile,
                                      SmallVectorImpl<FileOp> &order) {
  llvm::StringMap<FileOp> files;
  for (FileOp file : module.getOps<FileOp>())
    files.try_emplace(file.getName(), file);
  llvm::StringSet<> seen;
  return collectFiles(module, files, protoFile, seen, order);
}

LogicalResult HeaderWriter::emit(StringRef protoFile) {
  for (FileOp file : module.getOps<FileOp>())
    files.try_emplace(file.getName(), file);

  // Dependencies first, so every block only refers to earlier ones.
  SmallVector<FileOp> order;
  if (failed(filesInImportOrder(module, protoFile, order)))
    return failure();
  llvm::StringSet<> seen;
  for (FileOp file : order)
    seen.insert(file.getName());
  for (MessageOp msg : module.getOps<MessageOp>())
    if (seen.contains(msg.getFile()) && failed(checkLayout(msg)))
      return failure();
  plan.emplace(module);

  std::string guard = headerGuard(protoFile);
  os << "/* Generated by pbc from " << commentSafe(protoFile)
     << ". Do not edit. */\n"
     << kUsage << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include \"pbc/json.h\"\n#include \"pbc/pbc.h\"\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n";
  for (FileOp file : order)
    emitFile(file);
  os << "\n#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n\n"
     << "#endif /* " << guard << " */\n";
  if (nameClash)
    return failure();
  out << text;
  return success();
}

void HeaderWriter::declare(NameScope &scope, StringRef name, Operation *op,
                           const llvm::Twine &what) {
  auto [it, fresh] = scope.names.try_emplace(name, NameScope::Entry{op, ""});
  if (fresh) {
    it->second.what = what.str();
    return;
  }
  nameClash = true;
  // One report per entity: a message whose type name clashes would repeat
  // it for each of its functions.
  if (!reported.insert(op).second)
    return;
  InFlightDiagnostic diag = op->emitError()
                            << "pbc cannot name " << what << " in C: " << name
                            << " already names " << it->second.what;
  if (it->second.op != op)
    diag.attachNote(it->second.op->getLoc())
        << it->second.what << " is declared here";
}

/// The header declares the layout the layout pass chose; the message's
/// verifier checks that a layout, when there, is complete.
LogicalResult HeaderWriter::checkLayout(MessageOp msg) {
  if (!msg.hasLayout())
    return msg.emitError("message has no layout (run the layout pass first)");
  return success();
}

void HeaderWriter::emitFile(FileOp file) {
  std::string guard = headerFileBlockGuard(file.getName());
  os << "\n/* ---- " << commentSafe(file.getName());
  if (!file.getPackage().empty())
    os << " (package " << file.getPackage() << ")";
  os << " ---- */\n#ifndef " << guard << "\n#define " << guard << "\n";

  auto inFile = [&](auto op) { return op.getFile() == file.getName(); };
  SmallVector<EnumOp> enums(llvm::make_filter_range(module.getOps<EnumOp>(),
                                                    inFile));
  SmallVector<MessageOp> messages(
      llvm::make_filter_range(module.getOps<MessageOp>(), inFile));

  for (EnumOp op : enums)
    emitEnum(op);
  if (!messages.empty())
    os << "\n";
  for (MessageOp msg : messages) {
    std::string name = cTypeName(msg.getSymName());
    declareGlobal(name, msg, describe(msg));
    os << "typedef struct " << name << " " << name << ";\n";
  }
  for (MessageOp msg : messages)
    emitStruct(msg);
  for (MessageOp msg : messages)
    emitAsserts(msg);
  for (MessageOp msg : messages)
    emitFunctions(msg);
  for (MessageOp msg : messages)
    emitStreamingWriters(msg);
  for (ExtensionOp ext : module.getOps<ExtensionOp>())
    if (inFile(ext))
      emitExtension(ext);
  os << "\n#endif /* " << guard << " */\n";
}

void HeaderWriter::emitEnum(EnumOp op) {
  std::string name = cTypeName(op.getSymName());
  std::string enumText = ("enum \"" + op.getSymName() + "\"").str();
  declareGlobal(name, op, enumText);
  os << "\n/* enum " << op.getSymName() << " */\n"
     << "typedef enum " << name << " {\n";
  llvm::interleave(
      op.getValues(), os,
      [&](EnumValueOp value) {
        std::string enumerator =
            cEnumeratorName(op.getSymName(), value.getName());
        declareGlobal(enumerator, value,
                      "value \"" + value.getName() + "\" of " + enumText);
        os << "  " << enumerator << " = "
           << intConstant(static_cast<int32_t>(value.getNumber()));
      },
      ",\n");
  os << "\n} " << name << ";\n";
}

std::string HeaderWriter::elementType(FieldOp field) {
  if (field.isMessageLike())
    return "struct " + cTypeName(*field.getTypeName());
  return fieldTypeInfo(field.getType()).cType.str();
}

std::string HeaderWriter::memberType(FieldOp field) {
  if (field.isRepeated())
    return "PBC_REPEATED(" + elementType(field) + ") ";
  if (field.isMessageLike())
    return elementType(field) + " *";
  return elementType(field) + " ";
}

std::string HeaderWriter::defaultText(FieldOp field) {
  std::string value = defaultValueText(field);
  switch (field.getType()) {
  case FieldType::String:
  case FieldType::Bytes:
    return "\"" + commentSafe(value) + "\"";
  case FieldType::Enum: {
    // Show the enumerator's name; the attribute holds its number.
    auto number = cast<IntegerAttr>(field.getDefaultValueAttr()).getInt();
    if (auto op = symbols.lookup<EnumOp>(*field.getTypeName()))
      for (EnumValueOp v : op.getValues())
        if (static_cast<int32_t>(v.getNumber()) == number)
          return v.getName().str();
    return commentSafe(value);
  }
  default:
    return commentSafe(value);
  }
}

/// The map entry type of a map field, or null.
MessageOp HeaderWriter::mapEntryOf(FieldOp field) {
  if (!field.isRepeated() || field.getType() != FieldType::Message)
    return nullptr;
  auto entry = symbols.lookup<MessageOp>(field.getTypeNameAttr().getValue());
  return entry && entry.getMapEntry() ? entry : nullptr;
}

/// A field's type as written in a .proto inside message `scope`.
std::string HeaderWriter::typeText(FieldOp field, StringRef scope) {
  if (auto typeName = field.getTypeNameAttr())
    return relativeName(typeName.getValue(), scope);
  return stringifyFieldType(field.getType()).str();
}

/// The field as declared in the .proto, e.g. `4: repeated PhoneNumber
/// phones`, for the human reading the header.
std::string HeaderWriter::fieldComment(FieldOp field) {
  MessageOp msg = field.getParentMessage();
  FileOp file = files.lookup(msg.getFile());
  bool proto3 = file && file.getSyntax() == Syntax::Proto3;

  std::string text = std::to_string(field.getNumber()) + ": ";
  if (MessageOp entry = mapEntryOf(field)) {
    SmallVector<FieldOp> kv = entry.getFields();
    return text + "map<" + typeText(kv[0], msg.getSymName()) + ", " +
           typeText(kv[1], msg.getSymName()) + "> " + field.getName().str() +
           ": entries unique by key";
  }
  switch (field.getCardinality()) {
  case Cardinality::Implicit:
    break;
  case Cardinality::Optional:
    // proto3 message fields have presence without being written optional;
    // oneof members and map entry fields are written without a label.
    if (!(proto3 && field.isMessageLike()) && !field.getOneof() &&
        !msg.getMapEntry())
      text += "optional ";
    break;
  case Cardinality::Required:
    text += "required ";
    break;
  case Cardinality::Repeated:
    text += "repeated ";
    break;
  }
  if (field.getType() == FieldType::Group)
    text += "group ";
  text += typeText(field, msg.getSymName()) + " " + field.getName().str();

  SmallVector<std::string> options;
  bool packable =
      field.isRepeated() && fieldTypeInfo(field.getType()).isPackable();
  if (packable && field.getPacked() != proto3)
    options.push_back(field.getPacked() ? "packed = true" : "packed = false");
  if (field.getDefaultValueAttr())
    options.push_back("default = " + defaultText(field));
  if (!options.empty())
    text += " [" + llvm::join(options, ", ") + "]";

  if (field.getType() == FieldType::Enum)
    text += " (enum " + cTypeName(*field.getTypeName()) + ")";
  return text;
}

void HeaderWriter::emitCaseEnum(MessageOp msg, OneofOp oneof) {
  std::string name = cCaseEnumName(msg.getSymName(), oneof.getName());
  std::string notSet = cCaseNotSetName(msg.getSymName(), oneof.getName());
  declareGlobal(name, oneof, "the case enum of " + describe(msg, oneof));
  declareGlobal(notSet, oneof,
                "the NOT_SET case of " + describe(msg, oneof));
  os << "\n/* oneof " << msg.getSymName() << "." << oneof.getName()
     << ": the member set */\n"
     << "typedef enum " << name << " {\n  " << notSet << " = 0";
  for (FieldOp field : oneof.getFields()) {
    std::string enumerator =
        cCaseEnumeratorName(msg.getSymName(), oneof.getName(), field.getName());
    declareGlobal(enumerator, field, "the oneof case of " + describe(field));
    os << ",\n  " << enumerator << " = " << field.getNumber();
  }
  os << "\n} " << name << ";\n";
}

void HeaderWriter::emitStruct(MessageOp msg) {
  std::string name = cTypeName(msg.getSymName());
  for (OneofOp oneof : msg.getOneofs())
    emitCaseEnum(msg, oneof);

  os << "\n/* message " << msg.getSymName() << " */\n"
     << "struct " << name << " {\n";

  int64_t presenceWords = *msg.getPresenceWords();
  if (presenceWords > 0)
    os << "  uint32_t " << kPresenceMember << "[" << presenceWords
       << "]; /* presence bits, see "
       << cAccessorName(msg.getSymName(), Accessor::Has, "*") << " */\n";

  NameScope structScope;
  if (presenceWords > 0)
    declare(structScope, kPresenceMember, msg, "the presence bits");
  auto emitField = [&](FieldOp field, NameScope &scope, StringRef indent) {
    std::string member = cMemberName(field.getName());
    declare(scope, member, field, "the member of " + describe(field));
    os << indent << memberType(field) << member << "; /* "
       << fieldComment(field) << " */\n";
  };
  SmallVector<Member> members = membersByOffset(msg);
  for (Member member : members) {
    switch (member.kind) {
    case Member::Field:
      emitField(member.field, structScope, "  ");
      break;
    case Member::Union: {
      OneofOp oneof = member.oneof;
      std::string unionMember = cUnionMemberName(oneof.getName());
      declare(structScope, unionMember, oneof,
              "the union of " + describe(msg, oneof));
      NameScope unionScope;
      os << "  union {\n";
      for (FieldOp field : oneof.getFields())
        emitField(field, unionScope, "    ");
      os << "  } " << unionMember << "; /* oneof " << oneof.getName()
         << ": the member named by " << cCaseMemberName(oneof.getName())
         << " */\n";
      break;
    }
    case Member::Case: {
      StringRef oneof = member.oneof.getName();
      std::string caseMember = cCaseMemberName(oneof);
      declare(structScope, caseMember, member.oneof,
              "the case member of " + describe(msg, member.oneof));
      os << "  uint32_t " << caseMember << "; /* "
         << cCaseEnumName(msg.getSymName(), oneof)
         << ": field number of the member of " << oneof
         << " that is set, 0 = none */\n";
      break;
    }
    case Member::Unknown:
      declare(structScope, kUnknownMember, msg, "the unknown fields");
      os << "  pbc_bytes " << kUnknownMember
         << "; /* raw unknown fields, re-serialized after the known fields "
            "*/\n";
      break;
    }
  }

  if (members.empty() && presenceWords == 0)
    os << "  char " << kUnusedMember << "; /* C has no empty structs */\n";
  os << "};\n";
}

void HeaderWriter::emitAsserts(MessageOp msg) {
  std::string name = cTypeName(msg.getSymName());
  std::string message = "\"pbc: the layout of " + name +
                        " differs from the compiled code\"";
  auto assertOffset = [&](StringRef member, int64_t offset) {
    os << "PBC_STATIC_ASSERT(offsetof(" << name << ", " << member
       << ") == " << offset << ", " << message << ");\n";
  };
  os << "\nPBC_STATIC_ASSERT(sizeof(" << name << ") == " << *msg.getSize()
     << ", " << message << ");\n";
  if (*msg.getPresenceWords() > 0)
    assertOffset(kPresenceMember, 0);
  for (Member member : membersByOffset(msg)) {
    switch (member.kind) {
    case Member::Field:
      assertOffset(cMemberName(member.field.getName()), member.offset);
      break;
    case Member::Union:
      assertOffset(cUnionMemberName(member.oneof.getName()), member.offset);
      break;
    case Member::Case:
      assertOffset(cCaseMemberName(member.oneof.getName()), member.offset);
      break;
    case Member::Unknown:
      assertOffset(kUnknownMember, member.offset);
      break;
    }
  }
}

void HeaderWriter::emitFunctions(MessageOp msg) {
  StringRef full = msg.getSymName();
  std::string name = cTypeName(full);
  auto function = [&](StringRef suffix) {
    std::string fn = cFunctionName(full, suffix);
    declareGlobal(fn, msg, "function " + fn + " of " + describe(msg));
    return fn;
  };
  auto record = [&] {
    std::string info = cInfoName(full);
    declareGlobal(info, msg, "record " + info + " of " + describe(msg));
    return info;
  };
  os << "\n/* " << full << " */\n";
  for (const abi::Codec &codec : abi::codecs())
    if (codec.kind != abi::CodecKind::Internal) {
      function(codec.suffix);
      os << abi::cPrototype(codec, full) << ";\n";
    }
  std::string info = record();
  os << "extern const pbc_message_info " << info << ";\n";
  emitJsonFunctions(name, info, function);
  for (Operation &op : msg.getBody().front()) {
    if (auto field = dyn_cast<FieldOp>(op)) {
      if (field.hasPresenceBit() && !field.isRepeated())
        emitPresenceAccessors(msg, field);
    } else if (auto oneof = dyn_cast<OneofOp>(op)) {
      emitOneofAccessors(msg, oneof);
    }
  }
}

/// T_from_json, T_to_json and T_write_json: inline calls of pbc/json.h's
/// codec with T's record. Inline rather than a generated function per
/// message, so a program links the JSON runtime only if it calls one (a
/// pointer in every T_info would link it into every program), and a
/// message's own JSON code, when the compiler makes it, replaces the body
/// without changing the API.
void HeaderWriter::emitJsonFunctions(
    StringRef type, StringRef info,
    llvm::function_ref<std::string(StringRef)> function) {
  std::string from = function("from_json"), to = function("to_json"),
              write = function("write_json");
  os << "static inline pbc_status " << from << "(" << type
     << " *m, const char *json, size_t len, pbc_arena *arena, "
        "const pbc_json_options *options, pbc_json_error *error) {\n"
     << "  return pbc_json_parse(&" << info
     << ", m, json, len, arena, options, error);\n}\n"
     << "static inline pbc_status " << to << "(const " << type
     << " *m, char *buf, size_t cap, size_t *written, "
        "const pbc_json_options *options) {\n"
     << "  return pbc_json_print(&" << info
     << ", m, buf, cap, written, options);\n}\n"
     << "static inline pbc_status " << write << "(const " << type
     << " *m, pbc_writer *w, const pbc_json_options *options) {\n"
     << "  return pbc_json_write(&" << info << ", m, w, options);\n}\n";
}

/// An extension's record and its typed accessors, inline calls of pbc.h's
/// pbc_extension_*: values that need no memory (scalars, enums) are
/// returned, the others (strings and bytes, which may fail a UTF-8 check;
/// messages and repeated extensions, decoded into an arena) are stored
/// through a pointer and the call returns a status.
void HeaderWriter::emitExtension(ExtensionOp ext) {
  StringRef full = ext.getSymName();
  FieldOp field = ext.getField();
  std::string base = cTypeName(ext.getExtendee());
  std::string what = ("extension \"" + full + "\"").str();
  auto name = [&](StringRef suffix) {
    std::string fn = cExtensionAccessorName(full, suffix);
    declareGlobal(fn, ext, "function " + fn + " of " + what);
    return fn;
  };
  std::string record = cExtensionName(full);
  declareGlobal(record, ext, "record " + record + " of " + what);

  std::string comment = std::to_string(field.getNumber()) + ": ";
  comment += field.isRepeated() ? "repeated " : "optional ";
  if (field.getType() == FieldType::Group)
    comment += "group ";
  comment += typeText(field, full) + " " + field.getName().str();
  if (field.getPacked())
    comment += " [packed]";
  if (field.getDefaultValueAttr())
    comment += " [default = " + defaultText(field) + "]";
  os << "\n/* extension " << full << " of " << ext.getExtendee() << ": "
     << comment << (ext.getMessageSet() ? " (a MessageSet item)" : "")
     << " */\n"
     << "extern const pbc_extension_info " << record << ";\n";

  std::string elem = elementType(field);
  std::string ref = "&" + record;
  os << "static inline bool " << name("has") << "(const " << base
     << " *m) {\n  return pbc_extension_has(" << ref << ", m);\n}\n";
  os << "static inline pbc_status " << name("clear") << "(" << base
     << " *m, pbc_arena *arena) {\n  return pbc_extension_clear(" << ref
     << ", m, arena);\n}\n";
  if (field.isRepeated()) {
    os << "static inline size_t " << name("size") << "(const " << base
       << " *m) {\n  return pbc_extension_size(" << ref << ", m);\n}\n";
    // Elements as they are in a repeated member: messages in place.
    os << "/* Every element, in `arena` (strings and bytes: views into m's "
          "unknown fields). */\n"
       << "static inline pbc_status " << name("get") << "(const " << base
       << " *m, pbc_arena *arena, const " << elem
       << " **data, size_t *size) {\n"
       << "  PBC_REPEATED(" << elem << ") v;\n"
       << "  pbc_status s = pbc_extension_get(" << ref
       << ", m, arena, &v);\n"
       << "  *data = v.data;\n  *size = v.size;\n  return s;\n}\n"
       << "static inline pbc_status " << name("set") << "(" << base
       << " *m, const " << elem << " *data, size_t size, pbc_arena *arena) "
       << "{\n  struct { const " << elem
       << " *data; size_t size; } v = {data, size};\n"
       << "  return pbc_extension_set(" << ref << ", m, &v, arena);\n}\n";
    if (field.isMessageLike())
      os << "static inline pbc_status " << name("add") << "(" << base
         << " *m, const " << elem << " *value, pbc_arena *arena) {\n"
         << "  return pbc_extension_add(" << ref
         << ", m, &value, arena);\n}\n";
    else
      os << "static inline pbc_status " << name("add") << "(" << base
         << " *m, " << elem << " value, pbc_arena *arena) {\n"
         << "  return pbc_extension_add(" << ref
         << ", m, &value, arena);\n}\n";
    return;
  }
  if (field.isMessageLike()) {
    os << "/* A new message in `arena`, its occurrences merged; NULL when "
          "absent. */\n"
       << "static inline pbc_status " << name("get") << "(const " << base
       << " *m, pbc_arena *arena, " << elem << " **value) {\n"
       << "  return pbc_extension_get(" << ref
       << ", m, arena, value);\n}\n"
       << "static inline pbc_status " << name("set") << "(" << base
       << " *m, const " << elem << " *value, pbc_arena *arena) {\n"
       << "  return pbc_extension_set(" << ref
       << ", m, &value, arena);\n}\n";
    return;
  }
  if (fieldTypeInfo(field.getType()).repr == ValueRepr::VIEW) {
    os << "/* A view into m's unknown fields, or the default. */\n"
       << "static inline pbc_status " << name("get") << "(const " << base
       << " *m, " << elem << " *value) {\n"
       << "  return pbc_extension_get(" << ref
       << ", m, (pbc_arena *)0, value);\n}\n";
  } else {
    os << "static inline " << elem << " " << name("get") << "(const " << base
       << " *m) {\n  " << elem << " v;\n"
       << "  (void)pbc_extension_get(" << ref
       << ", m, (pbc_arena *)0, &v);\n  return v;\n}\n";
  }
  os << "static inline pbc_status " << name("set") << "(" << base << " *m, "
     << elem << " value, pbc_arena *arena) {\n"
     << "  return pbc_extension_set(" << ref << ", m, &value, arena);\n}\n";
}

void HeaderWriter::emitOneofAccessors(MessageOp msg, OneofOp oneof) {
  StringRef full = msg.getSymName();
  std::string name = cTypeName(full);
  std::string unionMember = cUnionMemberName(oneof.getName());
  std::string caseMember = cCaseMemberName(oneof.getName());
  for (FieldOp field : oneof.getFields()) {
    StringRef fieldName = field.getName();
    std::string enumerator =
        cCaseEnumeratorName(full, oneof.getName(), fieldName);
    std::string has = cAccessorName(full, Accessor::Has, fieldName);
    std::string set = cAccessorName(full, Accessor::Set, fieldName);
    declareGlobal(has, field, "accessor " + has + " of " + describe(field));
    declareGlobal(set, field, "accessor " + set + " of " + describe(field));
    os << "\nstatic inline bool " << has << "(const " << name
       << " *m) {\n  return m->" << caseMember << " == " << enumerator
       << ";\n}\n";
    os << "static inline void " << set << "(" << name << " *m, "
       << memberType(field) << "v) {\n  m->" << unionMember << "."
       << cMemberName(fieldName) << " = v;\n  m->" << caseMember << " = "
       << enumerator << ";\n}\n";
  }
  std::string clear = cAccessorName(full, Accessor::Clear, oneof.getName());
  declareGlobal(clear, oneof,
                "accessor " + clear + " of " + describe(msg, oneof));
  os << "\nstatic inline void " << clear << "(" << name << " *m) {\n  m->"
     << caseMember << " = " << cCaseNotSetName(full, oneof.getName())
     << ";\n}\n";
}

void HeaderWriter::emitPresenceAccessors(MessageOp msg, FieldOp field) {
  StringRef full = msg.getSymName();
  std::string name = cTypeName(full);
  std::string member = cMemberName(field.getName());
  StringRef fieldName = field.getName();
  uint32_t bit = *field.getPresenceBit();
  std::string word =
      "m->" + kPresenceMember.str() + "[" + std::to_string(bit / 32) + "]";
  std::string mask = "(1u << " + std::to_string(bit % 32) + ")";

  std::string zero;
  switch (fieldTypeInfo(field.getType()).repr) {
  case ValueRepr::VIEW:
    zero = "m->" + member + ".data = NULL;\n  m->" + member + ".size = 0;";
    break;
  case ValueRepr::MESSAGE:
    zero = "m->" + member + " = NULL;";
    break;
  case ValueRepr::BOOL:
    zero = "m->" + member + " = false;";
    break;
  default:
    zero = "m->" + member + " = 0;";
    break;
  }

  std::string has = cAccessorName(full, Accessor::Has, fieldName);
  std::string set = cAccessorName(full, Accessor::Set, fieldName);
  std::string clear = cAccessorName(full, Accessor::Clear, fieldName);
  for (const std::string &fn : {has, set, clear})
    declareGlobal(fn, field, "accessor " + fn + " of " + describe(field));
  os << "\nstatic inline bool " << has << "(const " << name
     << " *m) {\n  return (" << word << " & " << mask << ") != 0;\n}\n";
  os << "static inline void " << set << "(" << name << " *m, "
     << memberType(field) << "v) {\n  m->" << member << " = v;\n  " << word
     << " |= " << mask << ";\n}\n";
  os << "static inline void " << clear << "(" << name << " *m) {\n  " << word
     << " &= ~" << mask << ";\n  " << zero << "\n}\n";
}

//===----------------------------------------------------------------------===//
// Streaming (append-only) writers, ProtoZero-style: T_w_set_F, T_w_add_F,
// T_w_set_F_packed and T_w_begin_F, all static always-inline functions over
// pbc/writer.h (compilers would otherwise leave some out of line).
// Each passes its field's tag as constants computed here (the tag varint's
// bytes as a little-endian integer, and its length), so that a setter
// inlines to a constant store of the tag plus the value's encoding.
//===----------------------------------------------------------------------===//

namespace {

/// A tag, as the runtime's *_tag_* functions take it: its bytes as a
/// little-endian integer and their count, "0x1au, 1".
std::string tagArgs(llvm::StringRef tag) {
  uint64_t bytes = 0;
  for (size_t i = 0; i < tag.size(); ++i)
    bytes |= uint64_t(uint8_t(tag[i])) << (8 * i);
  return "0x" + llvm::utohexstr(bytes, /*LowerCase=*/true) +
         (bytes > UINT32_MAX ? "ull" : "u") + ", " +
         std::to_string(tag.size());
}

/// How a scalar is appended: the C parameter type, the runtime call and
/// the expression that turns `v` into what that call takes, and the kind
/// of a packed run of them; all from how the type goes on the wire.
struct ScalarWrite {
  std::string param, call, value, packedKind;
};

ScalarWrite scalarWrite(const FieldTypeInfo &type) {
  ScalarWrite w{type.cType.str(), "", "v", ""};
  bool wide = type.size == 8;
  if (unsigned width = type.fixedWidth()) {
    std::string bits = std::to_string(8 * width);
    w.call = "pbc_msg_append_tag_fixed" + bits;
    w.packedKind = "PBC_PACKED_FIXED" + bits;
    if (type.repr == ValueRepr::FLOAT)
      w.value = wide ? "pbc_double_bits(v)" : "pbc_float_bits(v)";
    else if (type.repr == ValueRepr::SIGNED)
      w.value = "(uint" + bits + "_t)v";
    return w;
  }
  switch (type.repr) {
  case ValueRepr::SIGNED:
    // A negative int32 is a 10-byte varint, as libprotobuf writes it.
    w.call = wide ? "pbc_msg_append_tag_varint" : "pbc_msg_append_tag_int32";
    w.value = wide ? "(uint64_t)v" : "v";
    w.packedKind = wide ? "PBC_PACKED_INT64" : "PBC_PACKED_INT32";
    break;
  case ValueRepr::UNSIGNED:
    w.call = wide ? "pbc_msg_append_tag_varint" : "pbc_msg_append_tag_varint32";
    w.packedKind = wide ? "PBC_PACKED_INT64" : "PBC_PACKED_UINT32";
    break;
  case ValueRepr::ZIGZAG:
    w.call = wide ? "pbc_msg_append_tag_varint" : "pbc_msg_append_tag_varint32";
    w.value = wide ? "pbc_zigzag64(v)" : "pbc_zigzag32(v)";
    w.packedKind = wide ? "PBC_PACKED_SINT64" : "PBC_PACKED_SINT32";
    break;
  case ValueRepr::BOOL:
    w.call = "pbc_msg_append_tag_varint32";
    w.value = "v ? 1u : 0u";
    w.packedKind = "PBC_PACKED_BOOL";
    break;
  default:
    llvm_unreachable("not a scalar field type");
  }
  return w;
}

} // namespace

void HeaderWriter::emitStreamingWriters(MessageOp msg) {
  StringRef full = msg.getSymName();
  os << "\n/* " << full
     << ": append-only writers (pbc/writer.h, docs/streaming.md) */\n";
  for (const FieldPlan &f : plan->message(msg).fields) {
    FieldOp field = f.op;
    StringRef fieldName = field.getName();
    auto writer = [&](Accessor accessor) {
      std::string fn = cAccessorName(full, accessor, fieldName);
      declareGlobal(fn, field,
                    "streaming writer " + fn + " of " + describe(field));
      return fn;
    };
    Accessor append = f.isRepeated() ? Accessor::WriterAdd : Accessor::WriterSet;
    const FieldTypeInfo &type = *f.type;

    if (f.message && f.message->isMapEntry) {
      // The entry is a message with fields key = 1 and value = 2: the
      // caller sets them with the entry type's own writers.
      os << "static PBC_ALWAYS_INLINE pbc_msg *" << writer(Accessor::WriterAdd)
         << "(pbc_msg *m) {\n  return pbc_msg_begin_tag_nested(m, "
         << tagArgs(f.lengthTag) << ");\n}\n";
      continue;
    }
    if (f.isGroup()) {
      os << "static PBC_ALWAYS_INLINE pbc_msg *"
         << writer(Accessor::WriterBegin)
         << "(pbc_msg *m) {\n  return pbc_msg_begin_tag_group(m, "
         << tagArgs(f.tag) << ", "
         << pbc_make_tag(f.number, PBC_WIRE_END_GROUP) << "u);\n}\n";
      continue;
    }
    if (type.isMessage()) {
      os << "static PBC_ALWAYS_INLINE pbc_msg *"
         << writer(Accessor::WriterBegin)
         << "(pbc_msg *m) {\n  return pbc_msg_begin_tag_nested(m, "
         << tagArgs(f.lengthTag) << ");\n}\n";
      continue;
    }
    if (type.isView()) {
      const char *data = type.type == FieldType::String ? "const char *data"
                                                        : "const void *data";
      os << "static PBC_ALWAYS_INLINE void " << writer(append)
         << "(pbc_msg *m, " << data
         << ", size_t size) {\n  pbc_msg_append_tag_bytes(m, "
         << tagArgs(f.lengthTag) << ", data, size);\n}\n";
      continue;
    }

    ScalarWrite write = scalarWrite(type);
    os << "static PBC_ALWAYS_INLINE void " << writer(append)
       << "(pbc_msg *m, " << write.param << " v) {\n  " << write.call
       << "(m, " << tagArgs(f.tag) << ", " << write.value << ");\n}\n";
    if (f.isRepeated())
      os << "static PBC_ALWAYS_INLINE void "
         << writer(Accessor::WriterSetPacked) << "(pbc_msg *m, const "
         << write.param
         << " *values, size_t count) {\n  pbc_msg_append_tag_packed(m, "
         << tagArgs(f.lengthTag) << ", " << write.packedKind
         << ", values, count);\n}\n";
  }
}

LogicalResult pbc::emitHeader(ModuleOp module, StringRef protoFile,
                              llvm::raw_ostream &os) {
  // Problems found here are about the schema (names that clash in C): print
  // them like the front end's.
  ProtocDiagnosticHandler handler(module.getContext(), llvm::errs());
  return HeaderWriter(module, os).emit(protoFile);
}
