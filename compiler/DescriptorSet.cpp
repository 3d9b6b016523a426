//===- DescriptorSet.cpp - schemas from a FileDescriptorSet --------------===//
//
// Descriptors from any protoc (or buf, Bazel) are rebuilt in a libprotobuf
// 3.21 DescriptorPool and modelled exactly like parsed .proto files, so both
// routes give the same module and the same bytes.
//
//===----------------------------------------------------------------------===//
#include "DescriptorSet.h"

#include "pbc/Dialect/Proto/ProtoOps.h"

#include "mlir/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/descriptor_database.h>
#include <google/protobuf/unknown_field_set.h>

#include <map>
#include <set>

using namespace pbc;
namespace gp = google::protobuf;

namespace {

void printError(llvm::raw_ostream &os, const llvm::Twine &message) {
  os << "pbc: error: " << message << '\n';
  os.flush();
}

/// Descriptor validation errors, as `file: element: message` (a descriptor
/// has no line numbers).
class PoolErrorPrinter : public gp::DescriptorPool::ErrorCollector {
public:
  explicit PoolErrorPrinter(llvm::raw_ostream &os) : os(os) {}

  void AddError(const std::string &filename, const std::string &element,
                const gp::Message *, ErrorLocation,
                const std::string &message) override {
    print(filename, element, message, "");
  }
  void AddWarning(const std::string &filename, const std::string &element,
                  const gp::Message *, ErrorLocation,
                  const std::string &message) override {
    print(filename, element, message, "warning: ");
  }

private:
  void print(const std::string &filename, const std::string &element,
             const std::string &message, llvm::StringRef kind) {
    os << filename << ": ";
    if (!element.empty() && element != filename)
      os << element << ": ";
    os << kind << message << '\n';
    os.flush();
  }
  llvm::raw_ostream &os;
};

//===----------------------------------------------------------------------===//
// Editions
//
// libprotobuf 3.21 predates editions: its descriptor.proto has no `edition`
// field and no `features` options, and its DescriptorPool refuses syntax
// "editions". A newer protoc's descriptors carry everything that matters,
// though, so pbc resolves the features itself (edition defaults, then file,
// message, oneof, field/enum overrides), rewrites the file as proto2 (closed
// enums, explicit presence, expanded repeated fields, no UTF-8 check) where
// that says the same thing, and marks the rest -- implicit presence, UTF-8
// checks, open enums -- on the proto dialect module afterwards. Packed
// encoding, required fields and delimited (group) encoding have proto2
// spellings. Features that do not change the wire format or the C API
// (json_format, enforce_naming_style, ...) are ignored.
//===----------------------------------------------------------------------===//

// Field numbers in a newer descriptor.proto, unknown to 3.21's.
constexpr int kFileEdition = 14;
constexpr int kFileOptionsFeatures = 50;
constexpr int kMessageOptionsFeatures = 12;
constexpr int kFieldOptionsFeatures = 21;
constexpr int kOneofOptionsFeatures = 1;
constexpr int kEnumOptionsFeatures = 7;
constexpr int kEdition2023 = 1000;
constexpr int kEdition2024 = 1001;

/// FeatureSet values as google/protobuf/descriptor.proto numbers them.
struct Features {
  int presence = 1;       // EXPLICIT=1 IMPLICIT=2 LEGACY_REQUIRED=3
  int enumType = 1;       // OPEN=1 CLOSED=2
  int repeated = 1;       // PACKED=1 EXPANDED=2
  int utf8 = 2;           // VERIFY=2 NONE=3
  int encoding = 1;       // LENGTH_PREFIXED=1 DELIMITED=2
};

/// `base` with the FeatureSet stored as unknown field `number` of
/// `options` applied (unset features inherit).
Features merged(Features base, const gp::Message &options, int number) {
  const gp::UnknownFieldSet &unknown =
      options.GetReflection()->GetUnknownFields(options);
  for (int i = 0; i < unknown.field_count(); ++i) {
    const gp::UnknownField &field = unknown.field(i);
    if (field.number() != number ||
        field.type() != gp::UnknownField::TYPE_LENGTH_DELIMITED)
      continue;
    gp::UnknownFieldSet set;
    if (!set.ParseFromString(field.length_delimited()))
      continue;
    for (int j = 0; j < set.field_count(); ++j) {
      const gp::UnknownField &feature = set.field(j);
      if (feature.type() != gp::UnknownField::TYPE_VARINT ||
          feature.varint() == 0) // *_UNKNOWN: inherit
        continue;
      int value = static_cast<int>(feature.varint());
      switch (feature.number()) {
      case 1: base.presence = value; break;
      case 2: base.enumType = value; break;
      case 3: base.repeated = value; break;
      case 4: base.utf8 = value; break;
      case 5: base.encoding = value; break;
      default: break;
      }
    }
  }
  return base;
}

/// What the proto2 rewrite cannot say, by full name.
struct EditionsOverrides {
  std::set<std::string> implicitFields; // "pkg.Msg.field"
  std::set<std::string> utf8Fields;
  std::set<std::string> openEnums;      // "pkg.Enum"
  std::map<std::string, int> editions;  // file name -> Edition number
  /// Each editions file's descriptor as the set had it, serialized: what
  /// ImportResult::descriptorSet keeps (pbc_schema_load resolves features
  /// itself).
  std::map<std::string, std::string> originals;
};

bool isPackable(gp::FieldDescriptorProto::Type type) {
  using FDP = gp::FieldDescriptorProto;
  return type != FDP::TYPE_STRING && type != FDP::TYPE_BYTES &&
         type != FDP::TYPE_MESSAGE && type != FDP::TYPE_GROUP;
}

class EditionsRewriter {
public:
  explicit EditionsRewriter(EditionsOverrides &overrides)
      : overrides(overrides) {}

  void rewrite(gp::FileDescriptorProto &file, const Features &defaults) {
    Features features =
        merged(defaults, file.options(), kFileOptionsFeatures);
    std::string scope = file.package();
    for (const auto &message : file.message_type())
      collectMapEntries(message, scope);
    for (auto &e : *file.mutable_enum_type())
      rewriteEnum(e, scope, features);
    for (auto &message : *file.mutable_message_type())
      rewriteMessage(message, scope, features);
    for (auto &extension : *file.mutable_extension())
      rewriteField(extension, scope, features);
    file.set_syntax("proto2");
  }

private:
  static std::string join(const std::string &scope, const std::string &name) {
    return scope.empty() ? name : scope + "." + name;
  }

  void collectMapEntries(const gp::DescriptorProto &message,
                         const std::string &scope) {
    std::string name = join(scope, message.name());
    if (message.options().map_entry())
      mapEntries.insert("." + name);
    for (const auto &nested : message.nested_type())
      collectMapEntries(nested, name);
  }

  void rewriteEnum(gp::EnumDescriptorProto &e, const std::string &scope,
                   const Features &parent) {
    Features features = merged(parent, e.options(), kEnumOptionsFeatures);
    if (features.enumType == 1)
      overrides.openEnums.insert(join(scope, e.name()));
  }

  void rewriteMessage(gp::DescriptorProto &message, const std::string &scope,
                      const Features &parent) {
    Features features =
        merged(parent, message.options(), kMessageOptionsFeatures);
    std::string name = join(scope, message.name());
    for (auto &field : *message.mutable_field()) {
      Features fieldScope = features;
      if (field.has_oneof_index() &&
          field.oneof_index() < message.oneof_decl_size())
        fieldScope = merged(features,
                            message.oneof_decl(field.oneof_index()).options(),
                            kOneofOptionsFeatures);
      rewriteField(field, name, fieldScope);
    }
    for (auto &extension : *message.mutable_extension())
      rewriteField(extension, name, features);
    for (auto &e : *message.mutable_enum_type())
      rewriteEnum(e, name, features);
    for (auto &nested : *message.mutable_nested_type())
      rewriteMessage(nested, name, features);
  }

  void rewriteField(gp::FieldDescriptorProto &field, const std::string &scope,
                    const Features &parent) {
    using FDP = gp::FieldDescriptorProto;
    Features features = merged(parent, field.options(), kFieldOptionsFeatures);
    std::string name = join(scope, field.name());
    bool repeated = field.label() == FDP::LABEL_REPEATED;
    bool message = field.type() == FDP::TYPE_MESSAGE ||
                   field.type() == FDP::TYPE_GROUP;

    if (!repeated && (field.label() == FDP::LABEL_REQUIRED ||
                      features.presence == 3))
      field.set_label(FDP::LABEL_REQUIRED);
    else if (!repeated && !message && !field.has_oneof_index() &&
             !field.proto3_optional() && features.presence == 2)
      overrides.implicitFields.insert(name);

    if (repeated && field.has_type() && isPackable(field.type()))
      field.mutable_options()->set_packed(features.repeated == 1);
    if (field.type() == FDP::TYPE_STRING && features.utf8 == 2)
      overrides.utf8Fields.insert(name);
    // Map entries are length-prefixed whatever the features say: the map
    // field's entries, and a message value inside an entry.
    bool inMapEntry = mapEntries.count("." + scope);
    if (field.type() == FDP::TYPE_MESSAGE && features.encoding == 2 &&
        !mapEntries.count(field.type_name()) && !inMapEntry)
      field.set_type(FDP::TYPE_GROUP);
    // A proto3 `optional` has no meaning in proto2, where every singular
    // field has presence already.
    field.clear_proto3_optional();
  }

  EditionsOverrides &overrides;
  std::set<std::string> mapEntries; // ".pkg.Msg.Entry", as type_name says
};

/// The edition of an editions file, or 0 if it names none pbc knows.
int editionOf(const gp::FileDescriptorProto &file) {
  const gp::UnknownFieldSet &unknown =
      file.GetReflection()->GetUnknownFields(file);
  for (int i = 0; i < unknown.field_count(); ++i)
    if (unknown.field(i).number() == kFileEdition &&
        unknown.field(i).type() == gp::UnknownField::TYPE_VARINT)
      return static_cast<int>(unknown.field(i).varint());
  return 0;
}

/// Applies what the proto2 rewrite could not express to the module, then
/// checks the result.
mlir::LogicalResult applyOverrides(mlir::ModuleOp module,
                                   const EditionsOverrides &overrides) {
  if (overrides.editions.empty())
    return mlir::success();
  module.walk([&](pbc::proto::FileOp f) {
    auto it = overrides.editions.find(f.getName().str());
    if (it != overrides.editions.end())
      f.setEdition(it->second);
  });
  module.walk([&](pbc::proto::EnumOp e) {
    if (overrides.openEnums.count(e.getSymName().str()))
      e.setClosed(false);
  });
  module.walk([&](pbc::proto::FieldOp field) {
    // A field's full name (an extension's is its symbol).
    auto ext = llvm::dyn_cast<pbc::proto::ExtensionOp>(field->getParentOp());
    std::string name = ext ? ext.getSymName().str()
                           : (field.getParentMessage().getSymName() + "." +
                              field.getName())
                                 .str();
    if (overrides.implicitFields.count(name))
      field.setCardinality(pbc::proto::Cardinality::Implicit);
    if (overrides.utf8Fields.count(name))
      field.setUtf8(true);
    if (auto typeName = field.getTypeNameAttr())
      if (field.getType() == pbc::proto::FieldType::Enum &&
          overrides.openEnums.count(typeName.getValue().str()))
        field.setClosed(false);
  });
  return mlir::verify(module);
}

/// Adds one file's descriptor to the database (its features resolved if it
/// is an editions file), unless a file of its name is there already, as
/// protoc keeps a file's first definition. `origin` names where it comes
/// from in errors.
bool addFile(gp::FileDescriptorProto &file, const std::string &origin,
             gp::SimpleDescriptorDatabase &db, std::set<std::string> &names,
             EditionsOverrides &overrides, llvm::raw_ostream &errs) {
  if (file.name().empty()) {
    printError(errs, origin + ": a file in the set has no name; the set is "
                              "corrupt");
    return false;
  }
  if (!names.insert(file.name()).second)
    return true;
  if (file.syntax() == "editions") {
    int edition = editionOf(file);
    if (edition != kEdition2023 && edition != kEdition2024) {
      printError(errs,
                 file.name() + " (in " + origin + "): " +
                     (edition ? "edition " + llvm::Twine(edition) +
                                    " is not supported"
                              : llvm::Twine("syntax \"editions\" but no "
                                            "edition")) +
                     "; pbc reads editions 2023 and 2024 (Edition enum "
                     "values 1000, 1001)");
      return false;
    }
    overrides.originals[file.name()] = file.SerializeAsString();
    EditionsRewriter(overrides).rewrite(file, Features());
    overrides.editions[file.name()] = edition;
  }
  if (!db.Add(file)) {
    printError(errs, origin + ": cannot use the descriptor of " + file.name());
    return false;
  }
  return true;
}

/// The sets as one database.
bool loadSets(const std::vector<std::string> &setPaths,
              gp::SimpleDescriptorDatabase &db, std::set<std::string> &names,
              EditionsOverrides &overrides, llvm::raw_ostream &errs) {
  for (const std::string &path : setPaths) {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer) {
      printError(errs, path + ": " + buffer.getError().message());
      return false;
    }
    llvm::StringRef bytes = (*buffer)->getBuffer();
    gp::FileDescriptorSet set;
    if (!set.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())) ||
        set.file_size() == 0) {
      printError(errs, path + ": not a FileDescriptorSet (write one with "
                              "`protoc --descriptor_set_out=FILE "
                              "--include_imports`)");
      return false;
    }
    for (gp::FileDescriptorProto &file : *set.mutable_file())
      if (!addFile(file, path, db, names, overrides, errs))
        return false;
  }
  return true;
}

} // namespace

namespace {

/// The files named `inputs` from the database, imported as the proto
/// dialect with the editions overrides applied.
ImportResult importFromDatabase(mlir::MLIRContext &ctx,
                                gp::SimpleDescriptorDatabase &setDb,
                                const std::set<std::string> &names,
                                const EditionsOverrides &overrides,
                                const std::vector<std::string> &inputs,
                                llvm::raw_ostream &errs) {
  // A set written without --include_imports still compiles when it only
  // lacks the well-known types, which every libprotobuf carries.
  gp::DescriptorPoolDatabase builtinDb(*gp::DescriptorPool::generated_pool());
  gp::MergedDescriptorDatabase db(&setDb, &builtinDb);
  PoolErrorPrinter printer(errs);
  gp::DescriptorPool pool(&db, &printer);

  std::vector<const gp::FileDescriptor *> files;
  for (const std::string &name : inputs) {
    if (!names.count(name)) {
      std::string known;
      for (const auto &entry : names)
        known += (known.empty() ? "" : ", ") + entry;
      printError(errs, name + ": not in the descriptor set (it has: " +
                           known + "); name inputs as the set does, by "
                                   "their path relative to the -I directory "
                                   "protoc was given");
      return {};
    }
    const gp::FileDescriptor *file = pool.FindFileByName(name);
    if (!file) {
      printError(errs, name + ": its descriptor is invalid or an import is "
                              "missing from the set (was it written with "
                              "--include_imports?)");
      return {};
    }
    files.push_back(file);
  }
  ImportResult result = importDescriptors(ctx, files, errs);
  if (!overrides.originals.empty())
    result.descriptorSet = descriptorSetOf(files, overrides.originals);
  if (result.module && failed(applyOverrides(*result.module, overrides))) {
    printError(errs, "the editions features of the descriptor set make an "
                     "invalid schema (see above)");
    return {};
  }
  return result;
}

} // namespace

ImportResult pbc::importDescriptorSet(mlir::MLIRContext &ctx,
                                      const std::vector<std::string> &setPaths,
                                      const std::vector<std::string> &inputs,
                                      llvm::raw_ostream &errs) {
  gp::SimpleDescriptorDatabase setDb;
  std::set<std::string> names;
  EditionsOverrides overrides;
  if (!loadSets(setPaths, setDb, names, overrides, errs))
    return {};
  return importFromDatabase(ctx, setDb, names, overrides, inputs, errs);
}

ImportResult
pbc::importFileDescriptors(mlir::MLIRContext &ctx,
                           std::vector<gp::FileDescriptorProto> files,
                           const std::vector<std::string> &inputs,
                           const std::string &origin, llvm::raw_ostream &errs) {
  gp::SimpleDescriptorDatabase setDb;
  std::set<std::string> names;
  EditionsOverrides overrides;
  for (gp::FileDescriptorProto &file : files)
    if (!addFile(file, origin, setDb, names, overrides, errs))
      return {};
  return importFromDatabase(ctx, setDb, names, overrides, inputs, errs);
}

