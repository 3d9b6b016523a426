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

#include "pbc/Dialect/Proto/Naming.h"
#include "pbc/Dialect/Proto/ProtoOps.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <cctype>
#include <climits>

using namespace mlir;
using namespace pbc;
using namespace pbc::proto;
using llvm::StringRef;

std::string pbc::headerFileName(StringRef protoFile) {
  StringRef stem = llvm::sys::path::filename(protoFile);
  stem.consume_back(".proto");
  return (stem + ".pbc.h").str();
}

namespace {

/// A C identifier for a file path, injective like protoc's
/// FilenameIdentifier: alphanumerics stay, anything else becomes `_` and its
/// hex code ("a/b.proto" -> "a_2fb_2eproto").
std::string fileIdentifier(StringRef path) {
  std::string id;
  for (unsigned char c : path) {
    if (std::isalnum(c)) {
      id += static_cast<char>(c);
    } else {
      static const char hex[] = "0123456789abcdef";
      id += '_';
      if (c >= 16)
        id += hex[c >> 4];
      id += hex[c & 15];
    }
  }
  return id;
}

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

/// Fields in the order the layout pass placed them in the struct.
SmallVector<FieldOp> fieldsByOffset(MessageOp msg) {
  SmallVector<FieldOp> fields(msg.getFields());
  llvm::stable_sort(fields, [](FieldOp a, FieldOp b) {
    return *a.getOffset() < *b.getOffset();
  });
  return fields;
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
 *       Serializes into buf, byte-identical to libprotobuf.
 * Fields with explicit presence also get inline T_has_F, T_set_F (stores
 * the value and marks it present) and T_clear_F (marks it absent and resets
 * the value to zero/empty, not to a proto2 [default]). Singular message
 * fields are pointers (NULL = absent); repeated fields are {data, size}
 * views. */

)";

class HeaderWriter {
public:
  HeaderWriter(ModuleOp module, llvm::raw_ostream &os)
      : module(module), symbols(module), os(os) {}

  LogicalResult emit(StringRef protoFile);

private:
  LogicalResult collectFiles(StringRef name, llvm::StringSet<> &seen,
                             SmallVectorImpl<FileOp> &order);
  LogicalResult checkLayout(MessageOp msg);

  void emitFile(FileOp file);
  void emitEnum(EnumOp op);
  void emitStruct(MessageOp msg);
  void emitAsserts(MessageOp msg);
  void emitFunctions(MessageOp msg);
  void emitPresenceAccessors(MessageOp msg, FieldOp field);

  std::string memberType(FieldOp field);
  std::string elementType(FieldOp field);
  std::string fieldComment(FieldOp field);
  std::string defaultText(FieldOp field);

  ModuleOp module;
  SymbolTable symbols;
  llvm::StringMap<FileOp> files;
  llvm::raw_ostream &os;
};

} // namespace

LogicalResult HeaderWriter::emit(StringRef protoFile) {
  for (FileOp file : module.getOps<FileOp>())
    files.try_emplace(file.getName(), file);

  // Dependencies first, so every block only refers to earlier ones.
  llvm::StringSet<> seen;
  SmallVector<FileOp> order;
  if (failed(collectFiles(protoFile, seen, order)))
    return failure();
  for (MessageOp msg : module.getOps<MessageOp>())
    if (seen.contains(msg.getFile()) && failed(checkLayout(msg)))
      return failure();

  std::string guard = "PBC_HEADER_" + fileIdentifier(protoFile);
  os << "/* Generated by pbc from " << commentSafe(protoFile)
     << ". Do not edit. */\n"
     << kUsage << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include \"pbc/pbc.h\"\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n";
  for (FileOp file : order)
    emitFile(file);
  os << "\n#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n\n"
     << "#endif /* " << guard << " */\n";
  return success();
}

LogicalResult HeaderWriter::collectFiles(StringRef name,
                                         llvm::StringSet<> &seen,
                                         SmallVectorImpl<FileOp> &order) {
  if (!seen.insert(name).second)
    return success();
  FileOp file = files.lookup(name);
  if (!file)
    return module.emitError("no proto.file \"") << name << "\" in the module";
  for (StringRef dep : file.getImports().getAsValueRange<StringAttr>())
    if (failed(collectFiles(dep, seen, order)))
      return failure();
  order.push_back(file);
  return success();
}

LogicalResult HeaderWriter::checkLayout(MessageOp msg) {
  if (!msg.hasLayout() || !msg.getPresenceWords())
    return msg.emitError("message has no layout (run the layout pass first)");
  for (FieldOp field : msg.getFields())
    if (!field.getOffset())
      return field.emitError("field has no offset (run the layout pass first)");
  return success();
}

void HeaderWriter::emitFile(FileOp file) {
  std::string guard = "PBC_FILE_" + fileIdentifier(file.getName());
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
    os << "typedef struct " << name << " " << name << ";\n";
  }
  for (MessageOp msg : messages)
    emitStruct(msg);
  for (MessageOp msg : messages)
    emitAsserts(msg);
  for (MessageOp msg : messages)
    emitFunctions(msg);
  os << "\n#endif /* " << guard << " */\n";
}

void HeaderWriter::emitEnum(EnumOp op) {
  std::string name = cTypeName(op.getSymName());
  os << "\n/* enum " << op.getSymName() << " */\n"
     << "typedef enum " << name << " {\n";
  llvm::interleave(
      op.getValues(), os,
      [&](EnumValueOp value) {
        os << "  " << name << "_" << value.getName() << " = "
           << intConstant(static_cast<int32_t>(value.getNumber()));
      },
      ",\n");
  os << "\n} " << name << ";\n";
}

std::string HeaderWriter::elementType(FieldOp field) {
  switch (field.getType()) {
  case FieldType::Int32:
  case FieldType::SInt32:
  case FieldType::SFixed32:
  case FieldType::Enum:
    return "int32_t";
  case FieldType::UInt32:
  case FieldType::Fixed32:
    return "uint32_t";
  case FieldType::Int64:
  case FieldType::SInt64:
  case FieldType::SFixed64:
    return "int64_t";
  case FieldType::UInt64:
  case FieldType::Fixed64:
    return "uint64_t";
  case FieldType::Float:
    return "float";
  case FieldType::Double:
    return "double";
  case FieldType::Bool:
    return "bool";
  case FieldType::String:
    return "pbc_str";
  case FieldType::Bytes:
    return "pbc_bytes";
  case FieldType::Message:
  case FieldType::Group:
    return "struct " + cTypeName(*field.getTypeName());
  }
  llvm_unreachable("unknown field type");
}

std::string HeaderWriter::memberType(FieldOp field) {
  if (field.isRepeated())
    return "PBC_REPEATED(" + elementType(field) + ") ";
  if (field.isMessageLike())
    return elementType(field) + " *";
  return elementType(field) + " ";
}

std::string HeaderWriter::defaultText(FieldOp field) {
  StringRef value = *field.getDefaultValue();
  switch (field.getType()) {
  case FieldType::String:
  case FieldType::Bytes:
    return "\"" + commentSafe(value) + "\"";
  case FieldType::Enum: {
    // Show the enumerator's name; the attribute holds its number.
    int32_t number;
    if (auto op = symbols.lookup<EnumOp>(*field.getTypeName());
        op && !value.getAsInteger(10, number))
      for (EnumValueOp v : op.getValues())
        if (static_cast<int32_t>(v.getNumber()) == number)
          return v.getName().str();
    return commentSafe(value);
  }
  default:
    return commentSafe(value);
  }
}

/// The field as declared in the .proto, e.g. `4: repeated PhoneNumber
/// phones`, for the human reading the header.
std::string HeaderWriter::fieldComment(FieldOp field) {
  MessageOp msg = field.getParentMessage();
  FileOp file = files.lookup(msg.getFile());
  bool proto3 = file && file.getSyntax() == Syntax::Proto3;

  std::string text = std::to_string(field.getNumber()) + ": ";
  switch (field.getCardinality()) {
  case Cardinality::Implicit:
    break;
  case Cardinality::Optional:
    // proto3 message fields have presence without being written optional.
    if (!(proto3 && field.isMessageLike()))
      text += "optional ";
    break;
  case Cardinality::Required:
    text += "required ";
    break;
  case Cardinality::Repeated:
    text += "repeated ";
    break;
  }
  if (auto typeName = field.getTypeNameAttr()) {
    if (field.getType() == FieldType::Group)
      text += "group ";
    text += relativeName(typeName.getValue(), msg.getSymName());
  } else {
    text += stringifyFieldType(field.getType()).str();
  }
  text += " " + field.getName().str();

  SmallVector<std::string> options;
  bool packable = field.isRepeated() && isPackable(field.getType());
  if (packable && field.getPacked() != proto3)
    options.push_back(field.getPacked() ? "packed = true" : "packed = false");
  if (field.getDefaultValue())
    options.push_back("default = " + defaultText(field));
  if (!options.empty())
    text += " [" + llvm::join(options, ", ") + "]";

  if (field.getType() == FieldType::Enum)
    text += " (enum " + cTypeName(*field.getTypeName()) + ")";
  return text;
}

void HeaderWriter::emitStruct(MessageOp msg) {
  std::string name = cTypeName(msg.getSymName());
  os << "\n/* message " << msg.getSymName() << " */\n"
     << "struct " << name << " {\n";

  int64_t presenceWords = *msg.getPresenceWords();
  if (presenceWords > 0)
    os << "  uint32_t _presence[" << presenceWords
       << "]; /* presence bits, see " << name << "_has_* */\n";

  SmallVector<FieldOp> fields = fieldsByOffset(msg);
  for (FieldOp field : fields)
    os << "  " << memberType(field) << cMemberName(field.getName()) << "; /* "
       << fieldComment(field) << " */\n";

  if (fields.empty() && presenceWords == 0)
    os << "  char _unused; /* C has no empty structs */\n";
  os << "};\n";
}

void HeaderWriter::emitAsserts(MessageOp msg) {
  std::string name = cTypeName(msg.getSymName());
  std::string message = "\"pbc: the layout of " + name +
                        " differs from the compiled code\"";
  os << "\nPBC_STATIC_ASSERT(sizeof(" << name << ") == " << *msg.getSize()
     << ", " << message << ");\n";
  if (*msg.getPresenceWords() > 0)
    os << "PBC_STATIC_ASSERT(offsetof(" << name << ", _presence) == 0, "
       << message << ");\n";
  for (FieldOp field : fieldsByOffset(msg))
    os << "PBC_STATIC_ASSERT(offsetof(" << name << ", "
       << cMemberName(field.getName()) << ") == " << *field.getOffset() << ", "
       << message << ");\n";
}

void HeaderWriter::emitFunctions(MessageOp msg) {
  StringRef full = msg.getSymName();
  std::string name = cTypeName(full);
  os << "\n/* " << full << " */\n"
     << "void " << cFunctionName(full, "init") << "(" << name << " *m);\n"
     << "pbc_status " << cFunctionName(full, "decode") << "(" << name
     << " *m, const uint8_t *buf, size_t len, pbc_arena *arena);\n"
     << "bool " << cFunctionName(full, "is_initialized") << "(const " << name
     << " *m);\n"
     << "size_t " << cFunctionName(full, "encoded_size") << "(const " << name
     << " *m);\n"
     << "pbc_status " << cFunctionName(full, "encode") << "(const " << name
     << " *m, uint8_t *buf, size_t cap, size_t *written);\n";
  for (FieldOp field : msg.getFields())
    if (field.hasPresenceBit() && !field.isRepeated())
      emitPresenceAccessors(msg, field);
}

void HeaderWriter::emitPresenceAccessors(MessageOp msg, FieldOp field) {
  StringRef full = msg.getSymName();
  std::string name = cTypeName(full);
  std::string member = cMemberName(field.getName());
  StringRef fieldName = field.getName();
  uint32_t bit = *field.getPresenceBit();
  std::string word = "m->_presence[" + std::to_string(bit / 32) + "]";
  std::string mask = "(1u << " + std::to_string(bit % 32) + ")";

  std::string zero;
  switch (field.getType()) {
  case FieldType::String:
  case FieldType::Bytes:
    zero = "m->" + member + ".data = NULL;\n  m->" + member + ".size = 0;";
    break;
  case FieldType::Message:
  case FieldType::Group:
    zero = "m->" + member + " = NULL;";
    break;
  case FieldType::Bool:
    zero = "m->" + member + " = false;";
    break;
  default:
    zero = "m->" + member + " = 0;";
    break;
  }

  os << "\nstatic inline bool "
     << cFunctionName(full, "has_" + fieldName.str())
     << "(const " << name << " *m) {\n  return (" << word << " & " << mask
     << ") != 0;\n}\n";
  os << "static inline void " << cFunctionName(full, "set_" + fieldName.str())
     << "(" << name << " *m, " << memberType(field) << "v) {\n  m->" << member
     << " = v;\n  " << word << " |= " << mask << ";\n}\n";
  os << "static inline void "
     << cFunctionName(full, "clear_" + fieldName.str()) << "(" << name
     << " *m) {\n  " << word << " &= ~" << mask << ";\n  " << zero << "\n}\n";
}

LogicalResult pbc::emitHeader(ModuleOp module, StringRef protoFile,
                              llvm::raw_ostream &os) {
  return HeaderWriter(module, os).emit(protoFile);
}
