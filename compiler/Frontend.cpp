//===- Frontend.cpp - .proto files to the proto dialect -------------------===//
//
// Everything about the schema comes from libprotobuf's descriptors; pbc never
// reads .proto text itself. Path handling and diagnostics follow protoc 3.21
// (src/google/protobuf/compiler/command_line_interface.cc) so that users see
// the same messages they know from protoc.
//
//===----------------------------------------------------------------------===//
#include "Frontend.h"
#include "DescriptorSet.h"
#include "Diagnostics.h"

#include "pbc/Dialect/Proto/Naming.h"
#include "pbc/Dialect/Proto/ProtoDialect.h"
#include "pbc/Dialect/Proto/ProtoOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"

#include <google/protobuf/compiler/importer.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/stubs/logging.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

#ifndef PBC_PROTOBUF_INCLUDE_DIR
#define PBC_PROTOBUF_INCLUDE_DIR "/usr/include"
#endif

using namespace mlir;
using namespace pbc;
namespace gp = google::protobuf;
using gp::compiler::DiskSourceTree;

namespace {

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

/// Prints libprotobuf's parse and validation errors exactly like protoc's
/// default (GCC) error format: 1-based `file:line:col: message`, or
/// `file: message` for errors about a whole file.
class ErrorPrinter : public gp::compiler::MultiFileErrorCollector {
public:
  explicit ErrorPrinter(llvm::raw_ostream &os) : os(os) {}

  void AddError(const std::string &filename, int line, int column,
                const std::string &message) override {
    hadErrors = true;
    print(filename, line, column, message, /*warning=*/false);
  }

  void AddWarning(const std::string &filename, int line, int column,
                  const std::string &message) override {
    print(filename, line, column, message, /*warning=*/true);
  }

  bool hadErrors = false;

private:
  void print(llvm::StringRef filename, int line, int column,
             llvm::StringRef message, bool warning) {
    os << filename;
    if (line != -1)
      os << ':' << line + 1 << ':' << column + 1;
    os << (warning ? ": warning: " : ": ") << message << '\n';
    os.flush();
  }

  llvm::raw_ostream &os;
};

/// libprotobuf reports a few things through GOOGLE_LOG rather than the error
/// collector (e.g. "No syntax specified"). Route them to `errs` for the
/// duration of an import so they do not bypass pbc's diagnostics stream.
class ScopedLogRedirect {
public:
  explicit ScopedLogRedirect(llvm::raw_ostream &os) {
    current = &os;
    previous = gp::SetLogHandler(&handle);
  }
  ~ScopedLogRedirect() {
    gp::SetLogHandler(previous);
    current = nullptr;
  }

private:
  static void handle(gp::LogLevel level, const char *, int,
                     const std::string &message) {
    if (!current)
      return;
    *current << "pbc: "
             << (level == gp::LOGLEVEL_INFO      ? "note"
                 : level == gp::LOGLEVEL_WARNING ? "warning"
                                                 : "error")
             << ": " << message << '\n';
    current->flush();
  }

  static inline llvm::raw_ostream *current = nullptr;
  gp::LogHandler *previous;
};

/// One line for problems that have no source location (missing files, bad
/// paths), in the form the driver uses for its own errors.
void printError(llvm::raw_ostream &os, const llvm::Twine &message) {
  os << "pbc: error: " << message << '\n';
  os.flush();
}

//===----------------------------------------------------------------------===//
// Source tree and inputs
//===----------------------------------------------------------------------===//

/// Maps the -I values like protoc: `DIR` maps the root, `VIRTUAL=DIR` a
/// subtree, ':' separates several. With no -I the current directory is the
/// root. A last, lowest-priority mapping makes the well-known types resolve
/// from the libprotobuf installation without any -I.
void mapIncludeDirs(DiskSourceTree &tree, const FrontendOptions &opts,
                    llvm::raw_ostream &errs) {
  bool mappedAny = false;
  for (const std::string &arg : opts.includeDirs) {
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(arg).split(parts, ':', /*MaxSplit=*/-1,
                               /*KeepEmpty=*/false);
    for (llvm::StringRef part : parts) {
      llvm::StringRef virtualPath, diskPath = part;
      if (size_t eq = part.find('='); eq != llvm::StringRef::npos) {
        virtualPath = part.take_front(eq);
        diskPath = part.drop_front(eq + 1);
        // As in protoc: the '=' may just be part of a directory name.
        if (!llvm::sys::fs::exists(diskPath) && llvm::sys::fs::exists(part)) {
          virtualPath = "";
          diskPath = part;
        }
      }
      if (!llvm::sys::fs::exists(diskPath)) {
        errs << diskPath << ": warning: directory does not exist.\n";
        errs.flush();
      }
      tree.MapPath(virtualPath.str(), diskPath.str());
      mappedAny = true;
    }
  }
  if (!mappedAny)
    tree.MapPath("", ".");
  tree.MapPath("google/protobuf",
               std::string(PBC_PROTOBUF_INCLUDE_DIR) + "/google/protobuf");
}

/// The virtual name of input `path`, following protoc's
/// MakeProtoProtoPathRelative: a disk file must lie under some -I dir; a
/// name that is not a disk file may be a virtual name already.
std::optional<std::string> resolveInput(DiskSourceTree &tree,
                                        const std::string &path,
                                        llvm::raw_ostream &errs) {
  std::string diskFile;
  if (!llvm::sys::fs::exists(path)) {
    if (tree.VirtualFileToDiskFile(path, &diskFile))
      return path;
    printError(errs, path + ": No such file or directory");
    return std::nullopt;
  }

  std::string virtualFile, shadowingFile;
  switch (tree.DiskFileToVirtualFile(path, &virtualFile, &shadowingFile)) {
  case DiskSourceTree::SUCCESS:
    return virtualFile;
  case DiskSourceTree::SHADOWED:
    printError(errs, path + ": Input is shadowed in the --proto_path by \"" +
                         shadowingFile +
                         "\"; use that file as the input or reorder the "
                         "--proto_path so that this file's directory comes "
                         "first");
    return std::nullopt;
  case DiskSourceTree::CANNOT_OPEN: {
    std::string reason = tree.GetLastErrorMessage();
    printError(errs, path + ": " +
                         (reason.empty() ? std::strerror(errno) : reason));
    return std::nullopt;
  }
  case DiskSourceTree::NO_MAPPING:
    if (tree.VirtualFileToDiskFile(path, &diskFile))
      return path;
    printError(errs, path +
                         ": File does not reside within any path specified "
                         "using --proto_path (or -I)");
    return std::nullopt;
  }
  llvm_unreachable("unknown DiskFileToVirtualFile result");
}

/// `text` without its comments (a statement scan, not a parse: strings
/// that hold `//` or `/*` are rare enough in a .proto file's header).
std::string withoutComments(llvm::StringRef text) {
  std::string out;
  while (!text.empty()) {
    if (text.consume_front("//")) {
      text = text.drop_until([](char c) { return c == '\n'; });
    } else if (text.consume_front("/*")) {
      size_t end = text.find("*/");
      text = end == llvm::StringRef::npos ? "" : text.drop_front(end + 2);
      out += ' ';
    } else {
      out += text.front();
      text = text.drop_front();
    }
  }
  return out;
}

/// Whether a .proto file's first statement is `edition = "...";`.
bool usesEditions(llvm::StringRef text) {
  llvm::StringRef rest = llvm::StringRef(text).ltrim();
  return rest.consume_front("edition") && rest.ltrim().starts_with("=");
}

/// The editions files among `inputs` and what they import, found by
/// reading their `import "...";` statements (libprotobuf 3.21 cannot
/// parse an editions file, so its own importer cannot be asked).
std::vector<std::string> editionsFiles(DiskSourceTree &tree,
                                       llvm::ArrayRef<std::string> inputs) {
  std::vector<std::string> found, work(inputs.begin(), inputs.end());
  llvm::StringSet<> seen;
  static const llvm::Regex importStatement(
      "(^|;)[[:space:]]*import[[:space:]]+((public|weak)[[:space:]]+)?\"([^\"]+)\"");
  while (!work.empty()) {
    std::string name = work.back();
    work.pop_back();
    std::string diskFile;
    if (!seen.insert(name).second ||
        !tree.VirtualFileToDiskFile(name, &diskFile))
      continue;
    auto buffer = llvm::MemoryBuffer::getFile(diskFile);
    if (!buffer)
      continue;
    std::string text = withoutComments((*buffer)->getBuffer());
    if (usesEditions(text))
      found.push_back(name);
    llvm::StringRef rest = text;
    llvm::SmallVector<llvm::StringRef> match;
    while (importStatement.match(rest, &match)) {
      work.push_back(match[4].str());
      rest = rest.drop_front(match[0].end() - rest.begin());
    }
  }
  return found;
}

/// The major version `protoc --version` reports ("libprotoc 35.1" -> 35;
/// 3.21 says "libprotoc 3.21.12"), 0 if it cannot be run.
unsigned protocMajorVersion(const std::string &protoc) {
  llvm::SmallString<128> out;
  if (llvm::sys::fs::createTemporaryFile("pbc-protoc-version", "txt", out))
    return 0;
  llvm::FileRemover remover(out);
  std::optional<llvm::StringRef> redirects[] = {std::nullopt,
                                                llvm::StringRef(out),
                                                std::nullopt};
  if (llvm::sys::ExecuteAndWait(protoc, {protoc, "--version"}, std::nullopt,
                                redirects) != 0)
    return 0;
  auto buffer = llvm::MemoryBuffer::getFile(out);
  if (!buffer)
    return 0;
  llvm::StringRef version = (*buffer)->getBuffer().trim();
  version.consume_front("libprotoc");
  unsigned major = 0;
  version.ltrim().consumeInteger(10, major);
  return major;
}

/// Editions need protoc 27 or later.
constexpr unsigned kEditionsProtocMajor = 27;

/// The protoc to read editions files with: the one given, else the first
/// on PATH if it is recent enough; empty if none.
std::string editionsProtoc(const FrontendOptions &opts) {
  if (!opts.protoc.empty())
    return opts.protoc;
  llvm::ErrorOr<std::string> onPath = llvm::sys::findProgramByName("protoc");
  if (onPath && protocMajorVersion(*onPath) >= kEditionsProtocMajor)
    return *onPath;
  return "";
}

/// `arg` quoted for a POSIX shell where it needs to be.
std::string shellQuoted(llvm::StringRef arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                            "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789_-+=./:,@") ==
                          llvm::StringRef::npos)
    return arg.str();
  std::string out = "'";
  for (char c : arg)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// libprotobuf 3.21 predates editions: say so (before any parse error it
/// would print) with the commands that compile the files anyway.
void explainEditions(const FrontendOptions &opts,
                     llvm::ArrayRef<std::string> virtualInputs,
                     llvm::ArrayRef<std::string> editions,
                     llvm::raw_ostream &errs) {
  std::string includes, inputs;
  for (const std::string &dir : opts.includeDirs)
    includes += " -I " + shellQuoted(dir);
  for (const std::string &input : opts.inputs)
    inputs += " " + shellQuoted(input);
  std::string set = "schema.pb";
  errs << editions.front()
       << ": note: this file is written in protobuf editions (`edition = "
          "...`), which the libprotobuf 3.21 parser pbc uses cannot read. "
          "Give pbc a protoc that knows editions (27 or later) with "
          "--protoc=PATH or on PATH, or compile a descriptor set it writes: "
          "protoc --include_imports --descriptor_set_out="
       << set << includes << inputs
       << " && pbc compile --descriptor_set_in=" << set;
  // The set names files by their paths under the -I folders.
  for (const std::string &input : virtualInputs)
    errs << " " << shellQuoted(input);
  errs << (opts.output.empty() ? std::string(" -o OUT")
                               : " -o " + shellQuoted(opts.output))
       << " (docs/getting-started.md)\n";
  errs.flush();
}

/// Imports `inputs` through a descriptor set `protoc` writes of them.
ImportResult importThroughProtoc(MLIRContext &ctx, const FrontendOptions &opts,
                                 const std::string &protoc,
                                 DiskSourceTree &tree,
                                 const std::vector<std::string> &inputs,
                                 llvm::raw_ostream &errs) {
  llvm::SmallString<128> set;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("pbc-editions", "pb", set)) {
    printError(errs, "cannot create a temporary file: " + ec.message());
    return {};
  }
  llvm::FileRemover remover(set);
  std::vector<std::string> args = {protoc, "--include_imports",
                                   "--descriptor_set_out=" + set.str().str()};
  for (const std::string &dir : opts.includeDirs)
    args.push_back("-I" + dir);
  if (opts.includeDirs.empty())
    args.push_back("-I.");
  for (const std::string &input : inputs)
    args.push_back(input);
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(protoc, argRefs, std::nullopt, {}, 0, 0,
                                     &message);
  if (rc != 0) {
    printError(errs, protoc + " could not read the editions files" +
                         (message.empty() ? "" : ": " + message) +
                         " (its errors are above)");
    return {};
  }
  ImportResult result = importDescriptorSet(ctx, {set.str().str()}, inputs, errs);
  if (!result.module)
    return result;
  result.inputFiles = inputs;
  // The depfile lists what protoc read: the set's files that are on disk.
  for (auto file : result.module->getOps<proto::FileOp>()) {
    std::string diskFile;
    if (tree.VirtualFileToDiskFile(file.getName().str(), &diskFile))
      result.sourceFiles.push_back(diskFile);
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Module construction
//===----------------------------------------------------------------------===//

bool isProto2(const gp::FileDescriptor *file) {
  return file->syntax() == gp::FileDescriptor::SYNTAX_PROTO2;
}

/// A field's proto2 default, typed as the field (see proto.field), or null
/// when the field's default is the type's zero value and was not written
/// out.
TypedAttr defaultValueOf(Builder &b, const gp::FieldDescriptor *field) {
  if (!isProto2(field->file()) || field->is_repeated() ||
      field->cpp_type() == gp::FieldDescriptor::CPPTYPE_MESSAGE)
    return {};
  // A proto2 enum defaults to its first value, which need not be zero.
  bool implicitEnumDefault =
      field->cpp_type() == gp::FieldDescriptor::CPPTYPE_ENUM &&
      field->default_value_enum()->number() != 0;
  if (!field->has_default_value() && !implicitEnumDefault)
    return {};

  using FD = gp::FieldDescriptor;
  switch (field->cpp_type()) {
  case FD::CPPTYPE_INT32:
    return b.getI32IntegerAttr(field->default_value_int32());
  case FD::CPPTYPE_INT64:
    return b.getI64IntegerAttr(field->default_value_int64());
  case FD::CPPTYPE_UINT32:
    return b.getIntegerAttr(b.getIntegerType(32, /*isSigned=*/false),
                            llvm::APInt(32, field->default_value_uint32()));
  case FD::CPPTYPE_UINT64:
    return b.getIntegerAttr(b.getIntegerType(64, /*isSigned=*/false),
                            llvm::APInt(64, field->default_value_uint64()));
  case FD::CPPTYPE_FLOAT:
    return b.getF32FloatAttr(field->default_value_float());
  case FD::CPPTYPE_DOUBLE:
    return b.getF64FloatAttr(field->default_value_double());
  case FD::CPPTYPE_BOOL:
    return b.getBoolAttr(field->default_value_bool());
  case FD::CPPTYPE_ENUM:
    return b.getI32IntegerAttr(field->default_value_enum()->number());
  case FD::CPPTYPE_STRING:
    return b.getStringAttr(field->default_value_string());
  case FD::CPPTYPE_MESSAGE:
    break;
  }
  return {};
}

proto::Cardinality cardinalityOf(const gp::FieldDescriptor *field) {
  if (field->is_repeated())
    return proto::Cardinality::Repeated;
  if (field->is_required())
    return proto::Cardinality::Required;
  // Singular message fields, proto2 optional and proto3 `optional`.
  if (field->has_presence())
    return proto::Cardinality::Optional;
  return proto::Cardinality::Implicit;
}

/// Builds the module: files in dependency order, each followed by its enums
/// and messages (a message, then its nested enums and messages).
class ModuleBuilder {
public:
  explicit ModuleBuilder(MLIRContext &ctx)
      : ctx(ctx), builder(&ctx),
        module(ModuleOp::create(UnknownLoc::get(&ctx))) {
    builder.setInsertionPointToEnd(module->getBody());
  }

  void addFileAndDeps(const gp::FileDescriptor *file) {
    if (!visited.insert(file).second)
      return;
    for (int i = 0; i < file->dependency_count(); ++i)
      addFileAndDeps(file->dependency(i));
    addFile(file);
  }

  OwningOpRef<ModuleOp> take() { return std::move(module); }

private:
  template <typename DescT>
  Location locOf(const DescT *desc) {
    gp::SourceLocation loc;
    if (!desc->GetSourceLocation(&loc))
      return FileLineColLoc::get(&ctx, desc->file()->name(), 0, 0);
    return FileLineColLoc::get(&ctx, desc->file()->name(),
                               loc.start_line + 1, loc.start_column + 1);
  }

  /// A file: its enums, its messages, then the extensions its `extend`
  /// blocks declare at file level.
  void addFile(const gp::FileDescriptor *file) {
    SmallVector<Attribute> imports;
    for (int i = 0; i < file->dependency_count(); ++i)
      imports.push_back(builder.getStringAttr(file->dependency(i)->name()));
    // Only an explicit option: where the file says nothing, pbc's own
    // policy chooses (proto-select-tiers), not descriptor.proto's SPEED.
    proto::OptimizeForAttr optimizeFor;
    if (file->options().has_optimize_for())
      optimizeFor = proto::OptimizeForAttr::get(
          &ctx, static_cast<proto::OptimizeFor>(file->options().optimize_for()));
    builder.create<proto::FileOp>(
        FileLineColLoc::get(&ctx, file->name(), 1, 1), file->name(),
        file->package(),
        isProto2(file) ? proto::Syntax::Proto2 : proto::Syntax::Proto3,
        /*edition=*/nullptr, optimizeFor, builder.getArrayAttr(imports));
    for (int i = 0; i < file->enum_type_count(); ++i)
      addEnum(file->enum_type(i));
    for (int i = 0; i < file->message_type_count(); ++i)
      addMessage(file->message_type(i));
    for (int i = 0; i < file->extension_count(); ++i)
      addExtension(file->extension(i));
  }

  /// An extension: a module-level op under its full name holding its
  /// field. Its data stays in the extendee's unknown fields, where the
  /// generated accessors read and rewrite it.
  void addExtension(const gp::FieldDescriptor *field) {
    const gp::Descriptor *extendee = field->containing_type();
    auto op = builder.create<proto::ExtensionOp>(
        locOf(field), field->full_name(), extendee->full_name(),
        field->file()->name(),
        extendee->options().message_set_wire_format());
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(&op.getBody().front());
    addField(field);
  }

  void addEnum(const gp::EnumDescriptor *desc) {
    auto op = builder.create<proto::EnumOp>(
        locOf(desc), desc->full_name(), desc->file()->name(),
        /*closed=*/isProto2(desc->file()), desc->options().allow_alias());
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(&op.getBody().front());
    for (int i = 0; i < desc->value_count(); ++i) {
      const gp::EnumValueDescriptor *value = desc->value(i);
      builder.create<proto::EnumValueOp>(
          locOf(value), builder.getStringAttr(value->name()),
          builder.getI32IntegerAttr(value->number()));
    }
  }

  /// A message and, after it, its nested enums and messages (map entries
  /// included) and the extensions declared inside it (`extend` blocks).
  /// A message_set_wire_format message has no fields, so everything in it is
  /// an unknown field (its extensions included).
  void addMessage(const gp::Descriptor *desc) {
    auto op = builder.create<proto::MessageOp>(locOf(desc), desc->full_name(),
                                               desc->file()->name());
    if (desc->options().map_entry())
      op.setMapEntry(true);
    if (desc->extension_range_count()) {
      SmallVector<std::pair<int64_t, int64_t>> ranges;
      for (int i = 0; i < desc->extension_range_count(); ++i)
        ranges.push_back({desc->extension_range(i)->start,
                          desc->extension_range(i)->end});
      llvm::sort(ranges);
      SmallVector<int64_t> flat;
      for (auto [start, end] : ranges)
        flat.append({start, end});
      op.setExtensions(flat);
    }
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToEnd(&op.getBody().front());
      for (int i = 0; i < desc->field_count(); ++i) {
        const gp::FieldDescriptor *field = desc->field(i);
        // A real oneof (not the synthetic one of a proto3 `optional`) is
        // placed where its first field is declared and holds all its
        // fields, which libprotobuf requires to be declared contiguously.
        const gp::OneofDescriptor *oneof = field->real_containing_oneof();
        if (!oneof) {
          addField(field);
          continue;
        }
        if (oneof->field(0) != field)
          continue;
        auto oneofOp =
            builder.create<proto::OneofOp>(locOf(oneof), oneof->name());
        OpBuilder::InsertionGuard oneofGuard(builder);
        builder.setInsertionPointToEnd(&oneofOp.getBody().front());
        for (int j = 0; j < oneof->field_count(); ++j)
          addField(oneof->field(j));
      }
    }
    for (int i = 0; i < desc->enum_type_count(); ++i)
      addEnum(desc->enum_type(i));
    for (int i = 0; i < desc->nested_type_count(); ++i)
      addMessage(desc->nested_type(i));
    for (int i = 0; i < desc->extension_count(); ++i)
      addExtension(desc->extension(i));
  }

  void addField(const gp::FieldDescriptor *field) {
    // proto::FieldType uses descriptor.proto's numbering.
    std::optional<proto::FieldType> type =
        proto::symbolizeFieldType(static_cast<uint32_t>(field->type()));
    assert(type && "descriptor.proto field type without a proto::FieldType");

    FlatSymbolRefAttr typeName;
    bool closed = false;
    if (field->message_type()) {
      typeName =
          FlatSymbolRefAttr::get(&ctx, field->message_type()->full_name());
    } else if (field->enum_type()) {
      typeName = FlatSymbolRefAttr::get(&ctx, field->enum_type()->full_name());
      closed = isProto2(field->enum_type()->file());
    }

    TypedAttr defaultValue = defaultValueOf(builder, field);

    // Recorded only when the schema's differs from the derived one.
    StringAttr jsonName;
    if (field->json_name() != proto::jsonName(field->name()))
      jsonName = builder.getStringAttr(field->json_name());

    // libprotobuf 3.21 checks UTF-8 only for proto3 `string` fields.
    bool utf8 = field->type() == gp::FieldDescriptor::TYPE_STRING &&
                !isProto2(field->file());

    builder.create<proto::FieldOp>(
        locOf(field), builder.getStringAttr(field->name()),
        builder.getI32IntegerAttr(field->number()),
        proto::FieldTypeAttr::get(&ctx, *type), typeName,
        proto::CardinalityAttr::get(&ctx, cardinalityOf(field)),
        field->is_packed() ? builder.getUnitAttr() : nullptr,
        utf8 ? builder.getUnitAttr() : nullptr,
        closed ? builder.getUnitAttr() : nullptr, defaultValue, jsonName,
        /*offset=*/nullptr, /*presence_bit=*/nullptr,
        /*followed_by=*/nullptr);
  }

  MLIRContext &ctx;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
  llvm::SmallPtrSet<const gp::FileDescriptor *, 16> visited;
};

} // namespace

ImportResult pbc::importProtos(MLIRContext &ctx, const FrontendOptions &opts,
                               llvm::raw_ostream &errs) {
  ctx.getOrLoadDialect<proto::ProtoDialect>();
  ImportResult result;

  DiskSourceTree tree;
  mapIncludeDirs(tree, opts, errs);

  llvm::StringSet<> seen;
  for (const std::string &input : opts.inputs) {
    std::optional<std::string> virtualName = resolveInput(tree, input, errs);
    if (!virtualName)
      return result;
    if (seen.insert(*virtualName).second)
      result.inputFiles.push_back(*virtualName);
  }

  // Editions files go through a newer protoc, or stop here with a note:
  // libprotobuf 3.21 would report them as syntax errors.
  std::vector<std::string> editions = editionsFiles(tree, result.inputFiles);
  if (!editions.empty()) {
    std::string protoc = editionsProtoc(opts);
    if (protoc.empty()) {
      explainEditions(opts, result.inputFiles, editions, errs);
      printError(errs, "no protoc that reads editions (27 or later): give "
                       "one with --protoc=PATH");
      return result;
    }
    return importThroughProtoc(ctx, opts, protoc, tree, result.inputFiles,
                               errs);
  }

  ScopedLogRedirect logRedirect(errs);
  ErrorPrinter printer(errs);
  gp::compiler::Importer importer(&tree, &printer);
  // Like protoc: warn about imports an input does not use.
  for (const std::string &name : result.inputFiles)
    importer.AddUnusedImportTrackFile(name);

  // Like protoc, stop at the first input that fails; its errors (and those
  // of its imports) have been printed.
  SmallVector<const gp::FileDescriptor *> files;
  for (const std::string &name : result.inputFiles) {
    const gp::FileDescriptor *file = importer.Import(name);
    if (!file || printer.hadErrors)
      return result;
    files.push_back(file);
  }

  ImportResult built = importDescriptors(ctx, files, errs);
  // Every file read, imports included, for a depfile (--dependency_out).
  llvm::SmallPtrSet<const gp::FileDescriptor *, 16> read;
  std::function<void(const gp::FileDescriptor *)> addRead =
      [&](const gp::FileDescriptor *file) {
        if (!read.insert(file).second)
          return;
        std::string diskFile;
        if (tree.VirtualFileToDiskFile(file->name(), &diskFile))
          built.sourceFiles.push_back(diskFile);
        for (int i = 0; i < file->dependency_count(); ++i)
          addRead(file->dependency(i));
      };
  for (const gp::FileDescriptor *file : files)
    addRead(file);
  return built;
}

ImportResult
pbc::importDescriptors(MLIRContext &ctx,
                       llvm::ArrayRef<const gp::FileDescriptor *> files,
                       llvm::raw_ostream &errs) {
  ctx.getOrLoadDialect<proto::ProtoDialect>();
  ImportResult result;
  llvm::StringSet<> seen;
  for (const gp::FileDescriptor *file : files)
    if (seen.insert(file->name()).second)
      result.inputFiles.push_back(file->name());

  ModuleBuilder moduleBuilder(ctx);
  for (const gp::FileDescriptor *file : files)
    moduleBuilder.addFileAndDeps(file);
  OwningOpRef<ModuleOp> module = moduleBuilder.take();

  // A schema libprotobuf accepted must verify; if it does not, the front end
  // or the dialect has a bug, and the user should see where.
  ProtocDiagnosticHandler handler(&ctx, errs, "pbc internal error: ");
  if (failed(verify(*module)))
    return result;

  result.module = std::move(module);
  result.descriptorSet = descriptorSetOf(files);
  return result;
}

std::string
pbc::descriptorSetOf(llvm::ArrayRef<const gp::FileDescriptor *> files,
                     const std::map<std::string, std::string> &originals) {
  // FileDescriptorSet.file is field 1: the set is each file's bytes behind
  // that tag and its length, so an original is copied as it is.
  std::string out;
  llvm::SmallPtrSet<const gp::FileDescriptor *, 16> seen;
  std::function<void(const gp::FileDescriptor *)> add =
      [&](const gp::FileDescriptor *file) {
        if (!seen.insert(file).second)
          return;
        for (int i = 0; i < file->dependency_count(); ++i)
          add(file->dependency(i));
        std::string bytes;
        auto original = originals.find(file->name());
        if (original != originals.end()) {
          bytes = original->second;
        } else {
          gp::FileDescriptorProto proto;
          file->CopyTo(&proto);
          file->CopyJsonNameTo(&proto);
          bytes = proto.SerializeAsString();
        }
        out.push_back('\x0a');
        for (uint64_t n = bytes.size(); ; n >>= 7) {
          out.push_back(static_cast<char>((n & 0x7f) | (n > 0x7f ? 0x80 : 0)));
          if (n <= 0x7f)
            break;
        }
        out += bytes;
      };
  for (const gp::FileDescriptor *file : files)
    add(file);
  return out;
}
