// libFuzzer target: pbc_schema_load (pbc/schema.h) on arbitrary bytes, the
// descriptor sets a program loads at run time being untrusted input.
//
// Every input: the loader accepts it or refuses it with PBC_ERR_BAD_SCHEMA
// and a message, never a crash, hang or out-of-bounds read (ASan, UBSan).
// What it accepts must be usable: every message gets a new message, is
// decoded from the input's own bytes, encoded, printed as text. And where
// libprotobuf builds every file of the set (its DescriptorPool, the judge
// of a valid schema), pbc must load it too, each description saying what
// libprotobuf's descriptor says (the difftest's description check), and
// each extension's record its number, type, extendee and flags, with
// four documented exceptions (pbc/schema.h): a type name that is not fully
// qualified (protoc always writes them so), a field with neither a type nor
// a type name (libprotobuf builds one as a double and never parses its
// default), a message nested deeper than 100, and a string holding a NUL
// byte (pbc's names are C strings).
#include <cstdint>
#include <cstring>
#include <string>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/stubs/logging.h>

#include "description_check.cpp"
#include "pbc/schema.h"
#include "pbc/text.h"

namespace gp = google::protobuf;

namespace {

[[noreturn]] void Finding(const std::string &what) {
  fprintf(stderr, "FINDING: %s\n", what.c_str());
  abort();
}

// Whether a field has a type or a fully qualified type name (".pkg.T"),
// and an extension a fully qualified extendee.
bool FullyQualified(const gp::FieldDescriptorProto &f) {
  if (!f.type_name().empty() && f.type_name()[0] != '.') return false;
  if (f.type_name().empty() && !f.has_type()) return false;
  return !f.has_extendee() || (!f.extendee().empty() && f.extendee()[0] == '.');
}

// Whether every field and extension of the message is.
bool FullyQualified(const gp::DescriptorProto &m) {
  for (const auto &f : m.field())
    if (!FullyQualified(f)) return false;
  for (const auto &f : m.extension())
    if (!FullyQualified(f)) return false;
  for (const auto &n : m.nested_type())
    if (!FullyQualified(n)) return false;
  return true;
}

// Whether pbc's record of an extension says what libprotobuf's descriptor
// says.
void CheckExtension(const pbc_schema *schema, const gp::FieldDescriptor *x) {
  const pbc_extension_info *e = pbc_schema_find_extension(schema, x->full_name().c_str());
  if (!e) Finding("extension " + x->full_name() + " is not in the loaded schema");
  bool mset = x->containing_type()->options().message_set_wire_format();
  if (e->number != static_cast<uint32_t>(x->number()) ||
      e->type != static_cast<uint8_t>(x->type()) ||
      x->containing_type()->full_name() != e->extendee->strings ||
      ((e->flags & PBC_EXTENSION_REPEATED) != 0) != x->is_repeated() ||
      ((e->flags & PBC_FIELD_PACKED) != 0) != x->is_packed() ||
      ((e->flags & PBC_EXTENSION_MESSAGE_SET) != 0) != mset)
    Finding("extension " + x->full_name() + ": the record is not libprotobuf's");
}

// Those declared in a message, at any depth.
void CheckExtensions(const pbc_schema *schema, const gp::Descriptor *d) {
  for (int i = 0; i < d->extension_count(); i++) CheckExtension(schema, d->extension(i));
  for (int i = 0; i < d->nested_type_count(); i++) CheckExtensions(schema, d->nested_type(i));
}

// Whether any string of the message, at any depth, holds a NUL byte (pbc
// refuses those) but a string field's default, which may hold one.
bool HoldsNul(const gp::Message &m) {
  const gp::Reflection *r = m.GetReflection();
  std::vector<const gp::FieldDescriptor *> fields;
  r->ListFields(m, &fields);
  const auto *field = dynamic_cast<const gp::FieldDescriptorProto *>(&m);
  for (const gp::FieldDescriptor *f : fields) {
    if (field && field->type() == gp::FieldDescriptorProto::TYPE_STRING &&
        f->number() == gp::FieldDescriptorProto::kDefaultValueFieldNumber)
      continue;
    bool repeated = f->is_repeated();
    int n = repeated ? r->FieldSize(m, f) : 1;
    for (int i = 0; i < n; i++) {
      if (f->cpp_type() == gp::FieldDescriptor::CPPTYPE_STRING) {
        std::string v = repeated ? r->GetRepeatedString(m, f, i) : r->GetString(m, f);
        if (v.find('\0') != std::string::npos) return true;
      } else if (f->cpp_type() == gp::FieldDescriptor::CPPTYPE_MESSAGE) {
        if (HoldsNul(repeated ? r->GetRepeatedMessage(m, f, i) : r->GetMessage(m, f)))
          return true;
      }
    }
  }
  return false;
}

int Depth(const gp::DescriptorProto &m) {
  int d = 0;
  for (const auto &n : m.nested_type()) d = std::max(d, Depth(n));
  return d + 1;
}

// libprotobuf's verdict: every file built into one pool, each only once.
bool LibprotobufBuilds(const uint8_t *data, size_t size, gp::DescriptorPool *pool,
                       gp::FileDescriptorSet *set) {
  if (!set->ParseFromArray(data, static_cast<int>(size)) || HoldsNul(*set)) return false;
  std::set<std::string> names;
  for (const auto &file : set->file()) {
    if (!names.insert(file.name()).second) return false;
    for (const auto &m : file.message_type())
      if (!FullyQualified(m) || Depth(m) >= 100) return false;
    for (const auto &f : file.extension())
      if (!FullyQualified(f)) return false;
    if (!pool->BuildFile(file)) return false;
  }
  return true;
}

// Uses a loaded message every way a program would.
void Exercise(const pbc_message_info *info, const uint8_t *data, size_t size) {
  pbc_arena arena;
  pbc_arena_init(&arena, nullptr, 0);
  pbc_arena_set_max_bytes(&arena, 1 << 20);
  void *m = pbc_message_new(info, &arena);
  if (m) {
    pbc_status s = pbc_decode(info, m, data, size, &arena, nullptr);
    if (s != PBC_OK) pbc_message_init(info, m);
    size_t n = pbc_message_encoded_size(info, m), written = 0;
    std::string out(n, '\0');
    if (pbc_message_encode(info, m, reinterpret_cast<uint8_t *>(out.data()), n, &written) !=
            PBC_OK ||
        written != n)
      Finding(std::string(info->full_name) + ": encode fails on a decoded message");
    size_t text = 0;
    pbc_text_print(info, m, nullptr, 0, &text, nullptr);
  }
  pbc_arena_destroy(&arena);
}

void Quiet(gp::LogLevel, const char *, int, const std::string &) {}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  gp::SetLogHandler(Quiet);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pbc_schema *schema = nullptr;
  pbc_schema_error error;
  pbc_status s = pbc_schema_load(data, size, &schema, &error);
  if ((s == PBC_OK) != (schema != nullptr))
    Finding("pbc_schema_load's status and schema disagree");
  if (s != PBC_OK && s != PBC_ERR_BAD_SCHEMA && s != PBC_ERR_OUT_OF_MEMORY)
    Finding(std::string("pbc_schema_load returned ") + pbc_status_str(s));
  if (s != PBC_OK && (!error.message[0] || !memchr(error.message, 0, sizeof error.message)))
    Finding("a refusal without a message");

  gp::DescriptorPool pool;
  gp::FileDescriptorSet set;
  bool builds = LibprotobufBuilds(data, size, &pool, &set);
  if (builds && !schema)
    Finding(std::string("libprotobuf builds the set, pbc refuses it: ") + error.message);
  if (schema) {
    for (size_t i = 0; i < pbc_schema_message_count(schema); i++)
      Exercise(pbc_schema_message_at(schema, i), data, size);
    if (builds) {
      for (const auto &file : set.file()) {
        const gp::FileDescriptor *f = pool.FindFileByName(file.name());
        for (int i = 0; f && i < f->message_type_count(); i++) {
          const gp::Descriptor *d = f->message_type(i);
          const pbc_message_info *info = pbc_schema_find_message(schema, d->full_name().c_str());
          std::string why;
          if (!info) Finding(d->full_name() + " is not in the loaded schema");
          if (!pbc_test::DescriptionMatches(d, info, "speed", &why, pbc_schema_finder, schema))
            Finding(why);
          CheckExtensions(schema, d);
        }
        for (int i = 0; f && i < f->extension_count(); i++) CheckExtension(schema, f->extension(i));
      }
    }
  }
  pbc_schema_free(schema);
  return 0;
}
