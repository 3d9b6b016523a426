// The many-types load's data (many_types_bench.cc, README.md): random
// messages of every message type of google_message3, made with libprotobuf's
// reflection from a fixed seed, one benchmarks.BenchmarkDataset file per type
// (`pbc profile --format=dataset` reads them as they are).
//
//   pbc_bench_many_gen OUTDIR [PER_TYPE]
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/message.h>
#include <google/protobuf/wire_format_lite.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "datasets/google_message3/benchmark_message3.pb.h"

namespace gp = google::protobuf;

namespace {

constexpr int kMaxDepth = 3;

class Filler {
 public:
  explicit Filler(uint64_t seed) : rng_(seed) {}

  void Fill(gp::Message *m, int depth) {
    const gp::Descriptor *d = m->GetDescriptor();
    const gp::Reflection *r = m->GetReflection();
    for (int i = 0; i < d->field_count(); i++) {
      const gp::FieldDescriptor *f = d->field(i);
      bool message = f->cpp_type() == gp::FieldDescriptor::CPPTYPE_MESSAGE;
      if (f->real_containing_oneof() && r->HasOneof(*m, f->real_containing_oneof())) continue;
      if (f->is_repeated()) {
        int n = message && depth >= kMaxDepth ? 0 : static_cast<int>(rng_() % 4);
        for (int k = 0; k < n; k++) Put(m, f, depth, /*add=*/true);
      } else if (f->is_required() || (Chance(6, 10) && !(message && depth >= kMaxDepth))) {
        Put(m, f, depth, /*add=*/false);
      }
    }
  }

 private:
  bool Chance(uint64_t n, uint64_t of) { return rng_() % of < n; }

  // Small values most of the time, as real data has; now and then any.
  uint64_t Integer() { return Chance(2, 3) ? rng_() % 200 : rng_(); }

  std::string Text(bool bytes) {
    std::string s(rng_() % 25, '\0');
    for (char &c : s) c = static_cast<char>(bytes ? rng_() % 256 : ' ' + rng_() % 95);
    return s;
  }

  // One value of f: set (singular) or appended (repeated).
  void Put(gp::Message *m, const gp::FieldDescriptor *f, int depth, bool add) {
    const gp::Reflection *r = m->GetReflection();
    switch (f->cpp_type()) {
      case gp::FieldDescriptor::CPPTYPE_INT32: {
        auto v = static_cast<int32_t>(Integer());
        add ? r->AddInt32(m, f, v) : r->SetInt32(m, f, v);
        break;
      }
      case gp::FieldDescriptor::CPPTYPE_INT64: {
        auto v = static_cast<int64_t>(Integer());
        add ? r->AddInt64(m, f, v) : r->SetInt64(m, f, v);
        break;
      }
      case gp::FieldDescriptor::CPPTYPE_UINT32: {
        auto v = static_cast<uint32_t>(Integer());
        add ? r->AddUInt32(m, f, v) : r->SetUInt32(m, f, v);
        break;
      }
      case gp::FieldDescriptor::CPPTYPE_UINT64: {
        uint64_t v = Integer();
        add ? r->AddUInt64(m, f, v) : r->SetUInt64(m, f, v);
        break;
      }
      case gp::FieldDescriptor::CPPTYPE_DOUBLE: {
        double v = static_cast<double>(rng_() % 100000) / 7;
        add ? r->AddDouble(m, f, v) : r->SetDouble(m, f, v);
        break;
      }
      case gp::FieldDescriptor::CPPTYPE_FLOAT: {
        float v = static_cast<float>(rng_() % 1000) / 3;
        add ? r->AddFloat(m, f, v) : r->SetFloat(m, f, v);
        break;
      }
      case gp::FieldDescriptor::CPPTYPE_BOOL: {
        bool v = Chance(1, 2);
        add ? r->AddBool(m, f, v) : r->SetBool(m, f, v);
        break;
      }
      case gp::FieldDescriptor::CPPTYPE_ENUM: {
        const gp::EnumDescriptor *e = f->enum_type();
        const gp::EnumValueDescriptor *v = e->value(static_cast<int>(rng_() % e->value_count()));
        add ? r->AddEnum(m, f, v) : r->SetEnum(m, f, v);
        break;
      }
      case gp::FieldDescriptor::CPPTYPE_STRING: {
        std::string v = Text(f->type() == gp::FieldDescriptor::TYPE_BYTES);
        add ? r->AddString(m, f, std::move(v)) : r->SetString(m, f, std::move(v));
        break;
      }
      case gp::FieldDescriptor::CPPTYPE_MESSAGE:
        Fill(add ? r->AddMessage(m, f) : r->MutableMessage(m, f), depth + 1);
        break;
    }
  }

  std::mt19937_64 rng_;
};

void Collect(const gp::Descriptor *d, std::vector<const gp::Descriptor *> *out) {
  if (!d->options().map_entry()) out->push_back(d);
  for (int i = 0; i < d->nested_type_count(); i++) Collect(d->nested_type(i), out);
}

// Every message of the file and of the files it imports, google_message3's
// own files only (not descriptor.proto and the like).
void CollectFile(const gp::FileDescriptor *f, std::set<const gp::FileDescriptor *> *seen,
                 std::vector<const gp::Descriptor *> *out) {
  if (!seen->insert(f).second || f->name().rfind("datasets/google_message3/", 0) != 0) return;
  for (int i = 0; i < f->dependency_count(); i++) CollectFile(f->dependency(i), seen, out);
  for (int i = 0; i < f->message_type_count(); i++) Collect(f->message_type(i), out);
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s OUTDIR [PER_TYPE]\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1];
  int per_type = argc > 2 ? atoi(argv[2]) : 4;
  std::vector<const gp::Descriptor *> types;
  std::set<const gp::FileDescriptor *> seen;
  CollectFile(benchmarks::google_message3::GoogleMessage3::descriptor()->file(), &seen, &types);
  Filler filler(20261126);
  for (const gp::Descriptor *d : types) {
    const gp::Message *prototype = gp::MessageFactory::generated_factory()->GetPrototype(d);
    std::string out;
    {
      gp::io::StringOutputStream stream(&out);
      gp::io::CodedOutputStream coded(&stream);
      using W = gp::internal::WireFormatLite;
      W::WriteString(1, d->full_name(), &coded);
      W::WriteString(2, d->full_name(), &coded);
      for (int k = 0; k < per_type; k++) {
        std::unique_ptr<gp::Message> m(prototype->New());
        filler.Fill(m.get(), 0);
        std::string payload;
        if (!m->SerializeToString(&payload)) {
          fprintf(stderr, "%s: a random message does not serialize\n", d->full_name().c_str());
          return 1;
        }
        W::WriteBytes(3, payload, &coded);
      }
    }
    std::ofstream file(dir + "/" + d->full_name() + ".pb", std::ios::binary);
    file << out;
    if (!file) {
      fprintf(stderr, "cannot write %s/%s.pb\n", dir.c_str(), d->full_name().c_str());
      return 1;
    }
  }
  printf("%zu message types, %d messages each, in %s\n", types.size(), per_type, dir.c_str());
  return 0;
}
