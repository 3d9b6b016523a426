// difftest: differential tests of pbc-generated code against libprotobuf 3.21.
//
// The libprotobuf side uses only dynamic messages: the .proto is loaded at run
// time (compiler::Importer over a DiskSourceTree) and messages are
// DynamicMessages filled through reflection. The pbc side is reached only
// through pbc_find_message(), so any pbc-generated library linked whole into
// this program can be tested without knowing its C types:
//
//   c++ -o diff libpbc_difftest.a
//       -Wl,--whole-archive libx.a -Wl,--no-whole-archive -lprotobuf
//
//   diff diff --proto_path DIR --proto FILE.proto --message full.Name
//        --cases N [--seed S] [--max-depth D] [--unknown-fields]
//        [--mutations M] [--only-case K] [--dump-dir DIR] [--verbose]
//        [--optimize-for MODE]  (what the library was compiled with)
//        [--writer-proto_path DIR2 --writer-proto FILE2.proto]
//   diff diff --proto_path DIR --proto FILE.proto --message full.Name --hex HEX
//   diff diff --proto_path DIR --proto benchmarks.proto --dataset FILE.pb
//        --dataset-proto-path DIR2 --dataset-proto FILE2.proto [--seed S]
//   diff reduce --proto_path DIR --proto FILE.proto --seed S --out DIR2
//
// Every case is generated from (seed, case number) alone, so
// `--seed S --only-case K` replays a failure. PBC_DIFFTEST_SAMPLE=K in the
// environment runs every K-th case only (K-1, 2K-1, ...: the same cases as
// the full run, floor(N/K) of them), as the sanitizer pass of the test
// suite does (test/lit.cfg.py), where each case costs several times as
// much; --only-case ignores it. The last line is
// `<passed> passed, <failed> failed`; the exit status is 0 only when nothing
// failed (1: a check failed, 2: bad usage or setup).
//
// libprotobuf's bytes are always its deterministic serialization (map
// entries sorted by key), of messages whose maps are normalized as
// generated code keeps them (last entry of a key wins).
//
// What one case checks (see README.md beside this file):
//  (a) forward: libprotobuf serializes a random message (oneofs, maps,
//      extensions included); pbc decodes it (OK, is_initialized), pbc's
//      encoded_size is the byte count and pbc's encode writes exactly those
//      bytes (and reports BUFFER_TOO_SMALL for one byte less); every encode
//      of every check is repeated by the table encoder, T_write and the
//      table writer through scattered writers;
//  (b) reverse: libprotobuf parses pbc's output and re-serializes it to the
//      same bytes;
//  (c) non-canonical wire: shuffled field order, packed <-> unpacked runs,
//      repeated singular fields (last one wins), sub-messages split into
//      several occurrences, overlong varints, bool/int32 varints with high
//      garbage bits, 5-byte tags with garbage above bit 31, explicit zeros
//      for proto3 implicit fields, oneof members overriding each other, map
//      entries duplicated / reordered / with key or value left out or
//      written first: libprotobuf and pbc must both accept and re-encode to
//      the same bytes (the same meaning and size for shuffled map entries);
//  (d) truncation: prefixes libprotobuf rejects pbc must reject; prefixes it
//      accepts pbc must accept and re-encode identically;
//  (e) invalid input: a proto3 string with invalid UTF-8 must fail with
//      PBC_ERR_INVALID_UTF8, a missing proto2 required field with
//      PBC_ERR_MISSING_REQUIRED (and with allow_missing_required give
//      libprotobuf's partial bytes);
//  (f) an arena with a tiny byte cap: decode either succeeds (and re-encodes
//      identically) or fails with PBC_ERR_ARENA_LIMIT;
//  (h) the max_depth option against libprotobuf's recursion limit;
//  (o) the generic operations: pbc_message_equal, _merge, _copy and _clear
//      on this message, another random one, this one with a field changed
//      and this one encoded otherwise, against MessageDifferencer::Equals,
//      MergeFrom, CopyFrom and Clear (ops_check.h);
//  (t) text format: pbc_text_print's output is libprotobuf's, multi-line
//      and on one line; pbc_text_parse reads both back to the message
//      libprotobuf's parser makes, and of three random corruptions of the
//      text rejects the same ones with libprotobuf's first error (line,
//      column, message) and accepts the rest as the same message;
//  with --unknown-fields: unknown field numbers, known numbers with the wrong
//      wire type and undeclared values of closed enums, all of which
//      libprotobuf keeps as unknown fields and writes back last; (g)
//      undeclared closed-enum values where generated code is the reference
//      (64-bit single records, map values); (k) non-canonical unknown
//      fields, which pbc must give back byte for byte;
//  with --mutations M: M randomly corrupted inputs per case: both accept or
//      both reject, and accepted ones mean the same (compared after a
//      libprotobuf round trip of both outputs);
//  with --writer-proto: (u) messages written with a fuller schema than the
//      one pbc was compiled from (`reduce`): real unknown fields.
// Before the cases: every message of the file and its imports is known to
// pbc_find_message, init sets nothing, the empty input behaves as in
// libprotobuf, and recursive messages nested around the depth limit (the
// default and set with max_depth; through sub-messages, oneof members, map
// values, groups) are accepted exactly when libprotobuf accepts them (else
// PBC_ERR_DEPTH_LIMIT).
// pbc's input sits right before (or right after) a PROT_NONE page and is
// read-only while pbc decodes it, so reads outside [buf, buf+len) and writes
// into the input crash instead of passing silently.

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <google/protobuf/compiler/importer.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/message.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/unknown_field_set.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/type_resolver_util.h>
#include <google/protobuf/wire_format_lite.h>

#include "description_check.h"
#include "ops_check.h"
#include "pbc/pbc.h"
#include "pbc/json.h"
#include "pbc/schema.h"
#include "pbc/text.h"

namespace gp = google::protobuf;
using gp::Descriptor;
using gp::FieldDescriptor;
using gp::FileDescriptor;
using gp::Message;
using gp::Reflection;
using COS = gp::io::CodedOutputStream;
using WFL = gp::internal::WireFormatLite;
using pbc_test::Det;

namespace {

// ---------------------------------------------------------------------------
// Small utilities

[[noreturn]] void Die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "difftest: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(2);
}

// splitmix64: tiny, fast, and the same everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  // Fuzzing (test/fuzz): the draws come from the fuzzer's bytes, one byte
  // each, so that its mutations steer the choices; past the last byte every
  // draw is all ones (Chance is false: a random message stops growing).
  void SetTape(const uint8_t *p, size_t n) {
    tape_ = p;
    tape_end_ = p + n;
  }
  uint64_t Next() {
    if (tape_) return tape_ != tape_end_ ? *tape_++ * 0x0101010101010101ULL : UINT64_MAX;
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t Below(uint64_t n) { return n == 0 ? 0 : Next() % n; }
  // Inclusive range.
  int64_t Range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Below(static_cast<uint64_t>(hi - lo) + 1));
  }
  bool Chance(double p) { return static_cast<double>(Next() >> 11) * 0x1.0p-53 < p; }

 private:
  uint64_t s_;
  const uint8_t *tape_ = nullptr, *tape_end_ = nullptr;
};

uint64_t CaseSeed(uint64_t seed, uint64_t k) {
  Rng r(seed ^ (0xd1b54a32d192ed03ULL * (k + 1)));
  r.Next();
  return r.Next();
}

std::string Hex(const std::string &s, size_t from, size_t to) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = from; i < to && i < s.size(); i++) {
    if (i > from) out += (i % 32 == 0) ? "\n      " : " ";
    unsigned char c = static_cast<unsigned char>(s[i]);
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

size_t FirstDifference(const std::string &a, const std::string &b) {
  size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i]) return i;
  return n;
}

// Prints `s` in hex: whole when short, else its start and the bytes around
// `focus` (the first difference).
void PrintHex(const char *label, const std::string &s, size_t focus) {
  fprintf(stdout, "  %s (%zu bytes):\n", label, s.size());
  const size_t kWhole = 2048;
  if (s.size() <= kWhole) {
    fprintf(stdout, "      %s\n", Hex(s, 0, s.size()).c_str());
    return;
  }
  fprintf(stdout, "      [0, 256): %s\n", Hex(s, 0, 256).c_str());
  size_t lo = focus > 128 ? (focus - 128) & ~size_t(31) : 0;
  size_t hi = std::min(s.size(), lo + 512);
  fprintf(stdout, "      [%zu, %zu): %s\n", lo, hi, Hex(s, lo, hi).c_str());
}

// libprotobuf logs parse failures and invalid UTF-8 at ERROR level; the
// tests cause both on purpose. Keep the last message for failure reports.
std::string g_last_log;

// How often each check ran, and how often libprotobuf rejected its input
// (printed by --verbose).
std::map<std::string, std::pair<uint64_t, uint64_t>> g_stats;
void QuietLogHandler(gp::LogLevel level, const char *file, int line,
                     const std::string &message) {
  if (level >= gp::LOGLEVEL_FATAL) {
    fprintf(stderr, "[libprotobuf FATAL %s:%d] %s\n", file, line, message.c_str());
    return;
  }
  g_last_log = message;
}

// What is running, for the crash handler: a crash inside pbc's code should
// still say which case to replay.
char g_where[512] = "setting up";

void CrashHandler(int sig) {
  char buf[768];
  int n = snprintf(buf, sizeof buf, "\nCRASH: signal %d (%s) during %s\n", sig, strsignal(sig),
                   g_where);
  if (n > 0) {
    ssize_t ignored = write(STDOUT_FILENO, buf, static_cast<size_t>(n));
    ignored = write(STDERR_FILENO, buf, static_cast<size_t>(n));
    (void)ignored;
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void InstallCrashHandler() {
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) signal(sig, CrashHandler);
}

// ---------------------------------------------------------------------------
// libprotobuf's bytes for a message.
//
// Map order is not fixed in libprotobuf, so every byte comparison uses its
// deterministic serialization (map entries sorted by key). pbc keeps the
// order it decoded, so its re-encoding of a sorted input is sorted too.
//
// A DynamicMessage parsed from the wire holds its map fields as repeated
// entry messages, duplicate keys and unknown fields inside entries included
// (libprotobuf 3.21 keeps both and writes both back, even
// deterministically); generated code and DynamicMessage's own map (once
// synced, which only libprotobuf's internals can ask for) keep the last
// entry of a key and drop the rest of the entry. NormalizeMaps does that
// everywhere in the tree, through the public reflection API.
bool IsMessageLikeField(const FieldDescriptor *f) {
  return f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
}
std::string KeyText(const Message &entry, const FieldDescriptor *kf);
void NormalizeMaps(Message *m);

void NormalizeMap(Message *m, const FieldDescriptor *f) {
  const Reflection *R = m->GetReflection();
  const FieldDescriptor *kf = f->message_type()->map_key();
  const FieldDescriptor *vf = f->message_type()->map_value();
  int n = R->FieldSize(*m, f);
  std::map<std::string, int> last;
  bool entry_unknowns = false;
  for (int i = 0; i < n; i++) {
    const Message &e = R->GetRepeatedMessage(*m, f, i);
    last[KeyText(e, kf)] = i;
    entry_unknowns |= e.GetReflection()->GetUnknownFields(e).field_count() > 0;
  }
  if (static_cast<int>(last.size()) != n || entry_unknowns) {
    std::vector<int> keep;
    for (const auto &kv : last) keep.push_back(kv.second);
    std::sort(keep.begin(), keep.end());
    std::vector<std::unique_ptr<Message>> entries;
    for (int i : keep) {
      entries.emplace_back(R->GetRepeatedMessage(*m, f, i).New());
      entries.back()->CopyFrom(R->GetRepeatedMessage(*m, f, i));
      entries.back()->GetReflection()->MutableUnknownFields(entries.back().get())->Clear();
    }
    R->ClearField(m, f);
    for (auto &e : entries) R->AddMessage(m, f)->CopyFrom(*e);
  }
  if (!IsMessageLikeField(vf)) return;
  for (int i = 0; i < R->FieldSize(*m, f); i++) {
    Message *e = R->MutableRepeatedMessage(m, f, i);
    if (e->GetReflection()->HasField(*e, vf))
      NormalizeMaps(e->GetReflection()->MutableMessage(e, vf));
  }
}

void NormalizeMaps(Message *m) {
  const Reflection *R = m->GetReflection();
  std::vector<const FieldDescriptor *> fields;
  R->ListFields(*m, &fields);
  for (const FieldDescriptor *f : fields) {
    if (!IsMessageLikeField(f)) continue;
    if (f->is_map()) {
      NormalizeMap(m, f);
    } else if (f->is_repeated()) {
      for (int i = 0; i < R->FieldSize(*m, f); i++) NormalizeMaps(R->MutableRepeatedMessage(m, f, i));
    } else {
      NormalizeMaps(R->MutableMessage(m, f));
    }
  }
}


// Each schema's pbc view (Schema::BuildOpaqueView) and the full pool it
// was built from: a process may load several schemas (the fuzz targets
// do), and a message finds its own schema's by its pool.
std::map<const gp::DescriptorPool *, const gp::DescriptorPool *> g_full_pool_of;

// Whether `u`, an unknown field of a message of type `d` (full pool), is a
// record pbc takes for a value of one of d's extensions
// (runtime/extension.c: extension_of and holds_value): the extension's
// number, its wire type or, for a repeated scalar, a packed run holding a
// value; a closed enum's value declared; a MessageSet item.
bool IsExtensionRecord(const Descriptor *d, const gp::UnknownField &u) {
  // libprotobuf keeps a MessageSet's unknown items as length-delimited
  // fields numbered by their type ids (and writes them back as items).
  const int number = u.number();
  const bool item = d->options().message_set_wire_format();
  if (item && u.type() != gp::UnknownField::TYPE_LENGTH_DELIMITED) return false;
  const FieldDescriptor *e = d->file()->pool()->FindExtensionByNumber(d, number);
  if (!e) return false;
  bool mset_ext = e->containing_type()->options().message_set_wire_format() &&
                  e->type() == FieldDescriptor::TYPE_MESSAGE && !e->is_repeated();
  if (item != mset_ext) return false;
  if (item) return true;
  using WT = gp::internal::WireFormatLite;
  auto wire = [](gp::UnknownField::Type t) {
    switch (t) {
    case gp::UnknownField::TYPE_VARINT: return WT::WIRETYPE_VARINT;
    case gp::UnknownField::TYPE_FIXED32: return WT::WIRETYPE_FIXED32;
    case gp::UnknownField::TYPE_FIXED64: return WT::WIRETYPE_FIXED64;
    case gp::UnknownField::TYPE_LENGTH_DELIMITED: return WT::WIRETYPE_LENGTH_DELIMITED;
    default: return WT::WIRETYPE_START_GROUP;
    }
  };
  WT::WireType own = WT::WireTypeForFieldType(static_cast<WT::FieldType>(e->type()));
  const bool closed = e->enum_type() &&
                      e->enum_type()->file()->syntax() == gp::FileDescriptor::SYNTAX_PROTO2;
  auto declared = [&](uint64_t v) {
    return !closed || e->enum_type()->FindValueByNumber(static_cast<int32_t>(v)) != nullptr;
  };
  if (wire(u.type()) == own)
    return u.type() != gp::UnknownField::TYPE_VARINT || declared(u.varint());
  if (u.type() != gp::UnknownField::TYPE_LENGTH_DELIMITED || !e->is_repeated() ||
      !e->is_packable())
    return false;
  // A packed run: pbc takes it when it holds a value.
  const std::string &run = u.length_delimited();
  gp::io::CodedInputStream in(reinterpret_cast<const uint8_t *>(run.data()),
                              static_cast<int>(run.size()));
  for (;;) {
    if (own == WT::WIRETYPE_VARINT) {
      uint64_t v;
      if (!in.ReadVarint64(&v)) return false;
      if (declared(v)) return true;
    } else {
      uint64_t v;
      uint32_t w;
      if (own == WT::WIRETYPE_FIXED32 ? !in.ReadLittleEndian32(&w) : !in.ReadLittleEndian64(&v))
        return false;
      return true;
    }
  }
}

// pbc writes the extensions its unknown fields hold at their range's place
// among the fields, by number (those of one number in their order), and
// its other unknown fields last (pbc_rt_put_unknown_part). In pbc's view
// (extensions as unknown fields) that is an order of the unknown fields:
// the extensions', by number, then the others'. Through the tree, in
// messages of pbc's view only.
void PlaceExtensions(Message *m) {
  auto full = g_full_pool_of.find(m->GetDescriptor()->file()->pool());
  if (full == g_full_pool_of.end()) return;
  const Reflection *R = m->GetReflection();
  std::vector<const FieldDescriptor *> fields;
  R->ListFields(*m, &fields);
  for (const FieldDescriptor *f : fields) {
    if (!IsMessageLikeField(f)) continue;
    if (!f->is_repeated()) {
      PlaceExtensions(R->MutableMessage(m, f));
      continue;
    }
    for (int i = 0; i < R->FieldSize(*m, f); i++)
      PlaceExtensions(R->MutableRepeatedMessage(m, f, i));
  }
  const Descriptor *d = full->second->FindMessageTypeByName(m->GetDescriptor()->full_name());
  if (!d || d->extension_range_count() == 0 || d->options().map_entry()) return;
  const gp::UnknownFieldSet &u = R->GetUnknownFields(*m);
  std::vector<int> exts, rest;
  for (int i = 0; i < u.field_count(); i++)
    (IsExtensionRecord(d, u.field(i)) ? exts : rest).push_back(i);
  if (exts.empty()) return;
  std::stable_sort(exts.begin(), exts.end(),
                   [&](int a, int b) { return u.field(a).number() < u.field(b).number(); });
  gp::UnknownFieldSet placed;
  for (int i : exts) placed.AddField(u.field(i));
  for (int i : rest) placed.AddField(u.field(i));
  R->MutableUnknownFields(m)->Swap(&placed);
}

std::string LibBytes(Message *m) {
  NormalizeMaps(m);
  PlaceExtensions(m);
  return Det(*m);
}

// ---------------------------------------------------------------------------
// Loading .proto files with libprotobuf's own front end.

class ErrorPrinter : public gp::compiler::MultiFileErrorCollector {
 public:
  void AddError(const std::string &file, int line, int column,
                const std::string &message) override {
    fprintf(stderr, "%s:%d:%d: %s\n", file.c_str(), line + 1, column + 1,
            message.c_str());
  }
};

struct Schema {
  gp::compiler::DiskSourceTree tree;
  ErrorPrinter errors;
  std::unique_ptr<gp::compiler::Importer> importer;
  std::unique_ptr<gp::DynamicMessageFactory> factory;
  const FileDescriptor *file = nullptr;

  void Load(const std::vector<std::string> &proto_paths, const std::string &proto) {
    for (const std::string &dir : proto_paths) tree.MapPath("", dir);
    // Well-known types resolve without -I, as in protoc and pbc.
    for (const char *inc : {"/usr/include", "/usr/local/include"}) {
      std::string probe = std::string(inc) + "/google/protobuf/descriptor.proto";
      if (access(probe.c_str(), R_OK) == 0) {
        tree.MapPath("google/protobuf", std::string(inc) + "/google/protobuf");
        break;
      }
    }
    importer.reset(new gp::compiler::Importer(&tree, &errors));
    // Accept both "dir/file.proto" on disk and a path relative to -I.
    std::string virt = proto;
    std::string disk_shadow;
    if (access(proto.c_str(), R_OK) == 0) {
      std::string v;
      if (tree.DiskFileToVirtualFile(proto, &v, &disk_shadow) ==
          gp::compiler::DiskSourceTree::SUCCESS)
        virt = v;
    }
    file = importer->Import(virt);
    if (!file) Die("cannot load %s", proto.c_str());
    factory.reset(new gp::DynamicMessageFactory(importer->pool()));
    // Extensions are found in the importer's pool and built by this factory.
    factory->SetDelegateToGeneratedFactory(false);
    BuildOpaqueView();
  }

  // pbc's view of the schema: the same files without their `extend`
  // declarations, so extensions are unknown fields (pbc keeps them as raw
  // bytes and never looks inside). libprotobuf reading with it is the
  // reference where pbc cannot agree with libprotobuf's own view: which
  // corrupted inputs to accept (a corrupt extension payload is no error for
  // pbc), and what they mean.
  std::unique_ptr<gp::DescriptorPool> opaque_pool;
  std::unique_ptr<gp::DynamicMessageFactory> opaque_factory;

  void BuildOpaqueView() {
    std::vector<const FileDescriptor *> files;
    std::set<const FileDescriptor *> seen;
    bool any = false;
    std::function<void(const FileDescriptor *)> visit = [&](const FileDescriptor *f) {
      if (!seen.insert(f).second) return;
      for (int i = 0; i < f->dependency_count(); i++) visit(f->dependency(i));
      files.push_back(f);
    };
    visit(file);
    opaque_pool.reset(new gp::DescriptorPool);
    for (const FileDescriptor *f : files) {
      gp::FileDescriptorProto p;
      f->CopyTo(&p);
      any |= p.extension_size() > 0;
      p.clear_extension();
      std::function<void(gp::DescriptorProto *)> strip = [&](gp::DescriptorProto *m) {
        any |= m->extension_size() > 0;
        m->clear_extension();
        for (auto &n : *m->mutable_nested_type()) strip(&n);
      };
      for (auto &m : *p.mutable_message_type()) strip(&m);
      if (!opaque_pool->BuildFile(p)) Die("cannot rebuild %s without extensions", f->name().c_str());
    }
    if (!any) {
      opaque_pool.reset();
      return;
    }
    opaque_factory.reset(new gp::DynamicMessageFactory(opaque_pool.get()));
    opaque_factory->SetDelegateToGeneratedFactory(false);
    g_full_pool_of[opaque_pool.get()] = importer->pool();
  }

  // A message of d's type in pbc's view (extensions as unknown fields).
  std::unique_ptr<Message> NewOpaque(const Descriptor *d) const {
    if (!opaque_pool) return New(d);
    const Descriptor *od = opaque_pool->FindMessageTypeByName(d->full_name());
    return std::unique_ptr<Message>(opaque_factory->GetPrototype(od)->New());
  }

  const Descriptor *Find(const std::string &name) const {
    return importer->pool()->FindMessageTypeByName(name);
  }
  // The extensions of d the pool knows, by field number.
  std::vector<const FieldDescriptor *> Extensions(const Descriptor *d) const {
    std::vector<const FieldDescriptor *> exts;
    if (d->extension_range_count() == 0) return exts;
    importer->pool()->FindAllExtensions(d, &exts);
    std::sort(exts.begin(), exts.end(),
              [](const FieldDescriptor *a, const FieldDescriptor *b) {
                return a->number() < b->number();
              });
    return exts;
  }
  std::unique_ptr<Message> New(const Descriptor *d) const {
    return std::unique_ptr<Message>(factory->GetPrototype(d)->New());
  }
};

// ---------------------------------------------------------------------------
// The pbc side: a generated message driven through pbc_message_info.

const char *StatusName(int s) {
  switch (s) {
    case PBC_OK: return "PBC_OK";
    case PBC_ERR_TRUNCATED: return "PBC_ERR_TRUNCATED";
    case PBC_ERR_MALFORMED_VARINT: return "PBC_ERR_MALFORMED_VARINT";
    case PBC_ERR_BAD_WIRE_TYPE: return "PBC_ERR_BAD_WIRE_TYPE";
    case PBC_ERR_BAD_FIELD_NUMBER: return "PBC_ERR_BAD_FIELD_NUMBER";
    case PBC_ERR_BAD_LENGTH: return "PBC_ERR_BAD_LENGTH";
    case PBC_ERR_END_GROUP: return "PBC_ERR_END_GROUP";
    case PBC_ERR_INVALID_UTF8: return "PBC_ERR_INVALID_UTF8";
    case PBC_ERR_DEPTH_LIMIT: return "PBC_ERR_DEPTH_LIMIT";
    case PBC_ERR_OUT_OF_MEMORY: return "PBC_ERR_OUT_OF_MEMORY";
    case PBC_ERR_MISSING_REQUIRED: return "PBC_ERR_MISSING_REQUIRED";
    case PBC_ERR_BUFFER_TOO_SMALL: return "PBC_ERR_BUFFER_TOO_SMALL";
    case PBC_ERR_TOO_LARGE: return "PBC_ERR_TOO_LARGE";
    case PBC_ERR_ARENA_LIMIT: return "PBC_ERR_ARENA_LIMIT";
    case PBC_ERR_NO_NAMES: return "PBC_ERR_NO_NAMES";
    case PBC_ERR_TEXT_SYNTAX: return "PBC_ERR_TEXT_SYNTAX";
    case PBC_ERR_BAD_SCHEMA: return "PBC_ERR_BAD_SCHEMA";
    case PBC_ERR_JSON_VALUE: return "PBC_ERR_JSON_VALUE";
    case PBC_ERR_JSON_SYNTAX: return "PBC_ERR_JSON_SYNTAX";
  }
  return "(unknown pbc_status)";
}

// Input memory for pbc: [guard page][data pages][guard page]. The input is
// placed flush against one of the guards and the data pages are read-only
// while pbc decodes.
class GuardedInput {
 public:
  GuardedInput() : page_(static_cast<size_t>(sysconf(_SC_PAGESIZE))) {}
  ~GuardedInput() {
    if (base_) munmap(base_, cap_ + 2 * page_);
  }
  const uint8_t *Place(const std::string &in, bool at_front) {
    if (in.size() > cap_ || base_ == nullptr) Grow(in.size());
    Protect(PROT_READ | PROT_WRITE);
    uint8_t *data = base_ + page_;
    uint8_t *dst = at_front ? data : data + cap_ - in.size();
    if (!in.empty()) memcpy(dst, in.data(), in.size());
    Protect(PROT_READ);
    return dst;
  }

 private:
  void Grow(size_t need) {
    if (base_) munmap(base_, cap_ + 2 * page_);
    cap_ = std::max<size_t>(page_, (need + page_ - 1) / page_ * page_);
    void *p = mmap(nullptr, cap_ + 2 * page_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) Die("mmap failed");
    base_ = static_cast<uint8_t *>(p);
    if (mprotect(base_, page_, PROT_NONE) != 0 ||
        mprotect(base_ + page_ + cap_, page_, PROT_NONE) != 0)
      Die("mprotect failed");
  }
  void Protect(int prot) {
    if (mprotect(base_ + page_, cap_, prot) != 0) Die("mprotect failed");
  }
  size_t page_;
  uint8_t *base_ = nullptr;
  size_t cap_ = 0;
};

// --runtime-schema: the schema loaded at run time, whose messages FindPbc
// returns (and where the text format finds an Any's type).
pbc_schema *g_runtime_schema = nullptr;

// The extensions the text format names and CheckExtensions sets: a schema
// loaded at run time's, or (NULL) the linked ones.
const pbc_extension_info *const *TextExtensions(size_t *count) {
  *count = 0;
  return g_runtime_schema ? pbc_schema_extensions(g_runtime_schema, count) : nullptr;
}

constexpr size_t kCanary = 64;
constexpr uint8_t kCanaryByte = 0x5a;

// A pbc_arena that frees itself.
struct ScopedArena {
  pbc_arena a;
  ScopedArena() { pbc_arena_init(&a, nullptr, 0); }
  ~ScopedArena() { pbc_arena_destroy(&a); }
  ScopedArena(const ScopedArena &) = delete;
  ScopedArena &operator=(const ScopedArena &) = delete;
};

class PbcMessage {
 public:
  explicit PbcMessage(const pbc_message_info *info) : info_(info) {
    size_t n = (info->struct_size + kCanary + 63) / 64 * 64;
    void *p = nullptr;
    if (posix_memalign(&p, 64, n) != 0) Die("out of memory");
    mem_ = static_cast<uint8_t *>(p);
    if (posix_memalign(&p, 64, n) != 0) Die("out of memory");
    table_mem_ = static_cast<uint8_t *>(p);
    pbc_arena_init(&arena_, nullptr, 0);
    pbc_arena_init(&block_arena_, block_, sizeof block_);
    pbc_arena_init(&capped_, nullptr, 0);
    pbc_arena_init(&table_arena_, nullptr, 0);
  }
  ~PbcMessage() {
    pbc_arena_destroy(&arena_);
    pbc_arena_destroy(&block_arena_);
    pbc_arena_destroy(&capped_);
    pbc_arena_destroy(&table_arena_);
    free(mem_);
    free(table_mem_);
  }
  PbcMessage(const PbcMessage &) = delete;
  PbcMessage &operator=(const PbcMessage &) = delete;

  const pbc_message_info *info() const { return info_; }
  void *mem() { return mem_; }

  // Fills the struct with garbage first: decode must not depend on what
  // was there. `byte_cap` != SIZE_MAX decodes with a fresh arena capped at
  // that many heap bytes.
  // `options` != NULL decodes through pbc_decode with them; otherwise every
  // fourth decode goes through pbc_decode with NULL options (the defaults),
  // the others through info->decode.
  pbc_status Decode(const std::string &in, bool guard_front, bool block_arena,
                    std::string *err, size_t byte_cap = SIZE_MAX,
                    const pbc_decode_options *options = nullptr) {
    memset(mem_, 0xa5, info_->struct_size);
    memset(mem_ + info_->struct_size, kCanaryByte, kCanary);
    const uint8_t *buf = input_.Place(in, guard_front);
    pbc_arena *arena = block_arena ? &block_arena_ : &arena_;
    if (byte_cap != SIZE_MAX) {
      pbc_arena_destroy(&capped_);
      pbc_arena_init(&capped_, nullptr, 0);
      pbc_arena_set_max_bytes(&capped_, byte_cap);
      arena = &capped_;
    }
    pbc_status s;
    if (options || (++decodes_ & 3) == 0)
      s = pbc_decode(info_, mem_, buf, in.size(), arena, options);
    else
      s = info_->decode ? info_->decode(mem_, buf, in.size(), arena)
                        : pbc_decode(info_, mem_, buf, in.size(), arena, nullptr);
    if (!CanaryIntact()) {
      *err = "decode wrote past struct_size (" + std::to_string(info_->struct_size) + ")";
      return static_cast<pbc_status>(-1);
    }
    if (!TableDecodes(buf, in.size(), byte_cap, options, s, err))
      return static_cast<pbc_status>(-1);
    return s;
  }

  // The table-driven decoder (pbc_table_decode, driven by the description)
  // on the same input with the same options, into a struct of its own: the
  // generated decoder's status `want`, and when both succeed a struct that
  // encodes to the same bytes.
  bool TableDecodes(const uint8_t *buf, size_t len, size_t byte_cap,
                    const pbc_decode_options *options, pbc_status want, std::string *err) {
    memset(table_mem_, 0xa5, info_->struct_size);
    memset(table_mem_ + info_->struct_size, kCanaryByte, kCanary);
    pbc_arena_destroy(&table_arena_);
    pbc_arena_init(&table_arena_, nullptr, 0);
    if (byte_cap != SIZE_MAX) pbc_arena_set_max_bytes(&table_arena_, byte_cap);
    pbc_status s = pbc_table_decode(info_->desc, table_mem_, buf, len, &table_arena_, options);
    if (!AllCanary(table_mem_ + info_->struct_size, kCanary)) {
      *err = "pbc_table_decode wrote past struct_size";
      return false;
    }
    // Malformed wire data is rejected by both, but which of these statuses
    // the generated decoder reports can depend on where the fault is: below
    // its read limit it reads a value unchecked, past the end of a
    // sub-message (a length of 8 bytes crossing it is BAD_LENGTH there,
    // TRUNCATED near the input's end, as the table decoder says everywhere).
    auto malformed = [](pbc_status x) {
      return x == PBC_ERR_TRUNCATED || x == PBC_ERR_MALFORMED_VARINT ||
             x == PBC_ERR_BAD_LENGTH || x == PBC_ERR_BAD_WIRE_TYPE ||
             x == PBC_ERR_BAD_FIELD_NUMBER || x == PBC_ERR_END_GROUP;
    };
    if (s != want && !(malformed(s) && malformed(want))) {
      *err = std::string("pbc_table_decode returned ") + StatusName(s) +
             ", the generated decoder " + StatusName(want);
      return false;
    }
    if (s != PBC_OK) return true;
    // Decoded with allow_missing_required, a message may lack a required
    // field: both checks must say so alike.
    if (pbc_table_is_initialized(info_->desc, mem_) != IsInitialized()) {
      *err = std::string("pbc_table_is_initialized says ") +
             (IsInitialized() ? "no" : "yes") + ", T_is_initialized the opposite";
      return false;
    }
    size_t n = pbc_message_encoded_size(info_, mem_), tn = pbc_message_encoded_size(info_, table_mem_);
    std::string a(n, '\0'), b(tn, '\0');
    size_t wa = 0, wb = 0;
    pbc_message_encode(info_, mem_, reinterpret_cast<uint8_t *>(a.data()), n, &wa);
    pbc_message_encode(info_, table_mem_, reinterpret_cast<uint8_t *>(b.data()), tn, &wb);
    if (a != b) {
      *err = "the struct pbc_table_decode filled encodes to other bytes (" +
             std::to_string(tn) + ") than the generated decoder's (" + std::to_string(n) + ")";
      return false;
    }
    return true;
  }

  // Encodes the decoded message; checks encoded_size, written, the
  // BUFFER_TOO_SMALL path and that nothing outside [buf, buf+size) changed.
  bool Encode(std::string *out, std::string *err) {
    size_t n = pbc_message_encoded_size(info_, mem_);
    size_t n2 = pbc_message_encoded_size(info_, mem_);
    if (n != n2) {
      *err = "encoded_size is not stable: " + std::to_string(n) + " then " + std::to_string(n2);
      return false;
    }
    std::vector<uint8_t> buf(n + 2 * kCanary, kCanaryByte);
    uint8_t *start = buf.data() + kCanary;
    if (n > 0) {
      size_t w = 12345;
      pbc_status s = pbc_message_encode(info_, mem_, start, n - 1, &w);
      if (s != PBC_ERR_BUFFER_TOO_SMALL) {
        *err = std::string("encode with cap = encoded_size - 1 returned ") + StatusName(s) +
               ", want PBC_ERR_BUFFER_TOO_SMALL";
        return false;
      }
      if (!AllCanary(buf.data(), kCanary) || !AllCanary(start + n - 1, kCanary + 1)) {
        *err = "encode into a too-small buffer wrote outside it";
        return false;
      }
      std::fill(buf.begin(), buf.end(), kCanaryByte);
    }
    size_t written = 12345;
    pbc_status s = pbc_message_encode(info_, mem_, start, n, &written);
    if (s != PBC_OK) {
      *err = std::string("encode returned ") + StatusName(s);
      return false;
    }
    if (written != n) {
      *err = "encode wrote " + std::to_string(written) + " bytes, encoded_size said " +
             std::to_string(n);
      return false;
    }
    if (!AllCanary(buf.data(), kCanary) || !AllCanary(start + n, kCanary)) {
      *err = "encode wrote outside [buf, buf + encoded_size)";
      return false;
    }
    if (!CanaryIntact()) {
      *err = "encode wrote into the message past struct_size";
      return false;
    }
    out->assign(reinterpret_cast<const char *>(start), n);
    return TableEncodes(*out, err) && WritesThroughWriters(*out, err);
  }

  // The table-driven codec (pbc_table_*, driven by the description) gives
  // the generated code's size and bytes, exactly sized and one byte short
  // (BUFFER_TOO_SMALL and the size, nothing written outside the buffer).
  bool TableEncodes(const std::string &want, std::string *err) {
    size_t n = pbc_table_encoded_size(info_->desc, mem_);
    if (n != want.size()) {
      *err = "pbc_table_encoded_size " + std::to_string(n) + ", the generated code's " +
             std::to_string(want.size());
      return false;
    }
    std::vector<uint8_t> buf(n + 2 * kCanary, kCanaryByte);
    uint8_t *start = buf.data() + kCanary;
    size_t written = 12345;
    if (n > 0) {
      pbc_status s = pbc_table_encode(info_->desc, mem_, start, n - 1, &written);
      if (s != PBC_ERR_BUFFER_TOO_SMALL || written != n ||
          !AllCanary(buf.data(), kCanary) || !AllCanary(start + n - 1, kCanary + 1)) {
        *err = std::string("pbc_table_encode with cap = size - 1: ") + StatusName(s) +
               ", written " + std::to_string(written);
        return false;
      }
    }
    pbc_status s = pbc_table_encode(info_->desc, mem_, start, n, &written);
    if (s != PBC_OK || written != n || memcmp(start, want.data(), n) != 0 ||
        !AllCanary(buf.data(), kCanary) || !AllCanary(start + n, kCanary)) {
      *err = std::string("pbc_table_encode: ") + StatusName(s) + ", written " +
             std::to_string(written) + (s == PBC_OK ? ", bytes differ from the generated code's" : "");
      return false;
    }
    return true;
  }

  // T_write and pbc_table_write through heap writers whose chunks take the
  // message whole (its bytes encoded in place) or in pieces (each field
  // written through the writer, sub-messages as their chunk allows): the
  // bytes T_encode wrote. Part of every Encode, so every check's messages
  // (unknown fields, non-canonical input) go through it.
  bool WritesThroughWriters(const std::string &want, std::string *err) {
    std::vector<uint8_t> got(want.size() + 1);
    for (size_t chunk : {size_t{5}, size_t{64}, want.size() + 1}) {
      for (bool table : {false, true}) {
        pbc_heap_writer h;
        pbc_heap_writer_init(&h, chunk);
        pbc_status s = table ? pbc_table_write(info_->desc, mem_, &h.writer)
                             : pbc_message_write(info_, mem_, &h.writer);
        size_t n = pbc_heap_writer_size(&h);
        bool same = s == PBC_OK && n == want.size() &&
                    pbc_heap_writer_copy(&h, got.data(), n) == n &&
                    memcmp(got.data(), want.data(), n) == 0;
        pbc_heap_writer_destroy(&h);
        if (!same) {
          *err = std::string(table ? "pbc_table_write" : "write") + " with " +
                 std::to_string(chunk) + "-byte chunks: " + StatusName(s) + ", " +
                 std::to_string(n) + " bytes, not encode's " + std::to_string(want.size());
          return false;
        }
      }
    }
    return true;
  }

  // T_encode and T_encode_at_end into buffers larger than the encoding, from
  // the exact size to 1 MiB: both give `want`, T_encode at buf and
  // T_encode_at_end ending at buf + cap (*start says where), and neither
  // writes outside [buf, buf + cap) (the encoder's wide stores may land in
  // the room below the bytes, as documented).
  // Then T_encode_at_end into one byte too few: BUFFER_TOO_SMALL, the size.
  bool EncodeIntoLargerBuffers(const std::string &want, std::string *err) {
    constexpr size_t kLarge = size_t{1} << 20;
    size_t n = want.size();
    if (n > kLarge) return true;
    if (large_.empty()) large_.resize(kLarge + 2 * kCanary);
    uint8_t *buf = large_.data() + kCanary;
    for (size_t cap : {n, n + 1, n + 7, n + 4096, kLarge}) {
      if (cap > kLarge) continue;
      std::string at = " (encoded size " + std::to_string(n) + ", cap " + std::to_string(cap) + ")";
      std::fill(large_.begin(), large_.begin() + cap + 2 * kCanary, kCanaryByte);
      size_t written = 12345;
      pbc_status s = pbc_message_encode(info_, mem_, buf, cap, &written);
      if (s != PBC_OK || written != n || memcmp(buf, want.data(), n) != 0) {
        *err = std::string("encode into a larger buffer: ") + StatusName(s) + ", wrote " +
               std::to_string(written) + " bytes" +
               (s == PBC_OK && written == n ? ", not the exact-size bytes" : "") + at;
        return false;
      }
      if (!AllCanary(large_.data(), kCanary) || !AllCanary(buf + cap, kCanary)) {
        *err = "encode wrote outside [buf, buf + cap)" + at;
        return false;
      }
      std::fill(large_.begin(), large_.begin() + cap + 2 * kCanary, kCanaryByte);
      uint8_t *start = nullptr;
      written = 12345;
      s = pbc_message_encode_at_end(info_, mem_, buf, cap, &start, &written);
      if (s != PBC_OK || written != n || start != buf + cap - n ||
          memcmp(start, want.data(), n) != 0) {
        *err = std::string("encode_at_end: ") + StatusName(s) + ", wrote " +
               std::to_string(written) + " bytes at buf + " +
               std::to_string(start ? start - buf : -1) + ", want the encode bytes at buf + " +
               std::to_string(cap - n) + at;
        return false;
      }
      if (!AllCanary(large_.data(), kCanary) || !AllCanary(buf + cap, kCanary)) {
        *err = "encode_at_end wrote outside [buf, buf + cap)" + at;
        return false;
      }
    }
    if (n > 0) {
      uint8_t *start = nullptr;
      size_t written = 12345;
      std::fill(large_.begin(), large_.begin() + n + 2 * kCanary, kCanaryByte);
      pbc_status s = pbc_message_encode_at_end(info_, mem_, buf, n - 1, &start, &written);
      if (s != PBC_ERR_BUFFER_TOO_SMALL || written != n || start != buf) {
        *err = std::string("encode_at_end with cap = encoded_size - 1: ") + StatusName(s) +
               ", written " + std::to_string(written) +
               ", want PBC_ERR_BUFFER_TOO_SMALL, the encoded size and *start = buf";
        return false;
      }
      if (!AllCanary(large_.data(), kCanary) || !AllCanary(buf + n - 1, kCanary + 1)) {
        *err = "encode_at_end into a too-small buffer wrote outside it";
        return false;
      }
    }
    return true;
  }

  // Checks init: nothing set (encodes to nothing), struct_size respected;
  // and pbc_table_init (from the description) leaves the same struct, but
  // that a string or bytes default may point at another copy of its bytes.
  bool CheckInit(std::string *err) {
    memset(mem_, 0xa5, info_->struct_size);
    memset(mem_ + info_->struct_size, kCanaryByte, kCanary);
    pbc_message_init(info_, mem_);
    if (!CanaryIntact()) {
      *err = "init wrote past struct_size";
      return false;
    }
    memset(table_mem_, 0xa5, info_->struct_size);
    memset(table_mem_ + info_->struct_size, kCanaryByte, kCanary);
    pbc_table_init(info_->desc, table_mem_);
    if (!AllCanary(table_mem_ + info_->struct_size, kCanary)) {
      *err = "pbc_table_init wrote past struct_size";
      return false;
    }
    const pbc_message_desc *d = info_->desc;
    for (uint32_t i = 0; i < d->default_count; i++) {
      const pbc_field_desc &f = d->fields[d->defaults[i].field];
      if (f.kind == PBC_FIELD_ONEOF || (f.type != PBC_TYPE_STRING && f.type != PBC_TYPE_BYTES))
        continue;
      pbc_bytes a, b;
      memcpy(&a, mem_ + f.offset, sizeof a);
      memcpy(&b, table_mem_ + f.offset, sizeof b);
      if (a.size != b.size || memcmp(a.data, b.data, a.size) != 0) {
        *err = "pbc_table_init's default of field " + std::to_string(f.number) +
               " differs from T_init's";
        return false;
      }
      memcpy(table_mem_ + f.offset, &a, sizeof a);
    }
    if (memcmp(mem_, table_mem_, info_->struct_size) != 0) {
      *err = "pbc_table_init leaves another struct than T_init";
      return false;
    }
    size_t n = pbc_message_encoded_size(info_, mem_);
    if (n != 0) {
      *err = "encoded_size after init is " + std::to_string(n) + ", want 0 (nothing set)";
      return false;
    }
    size_t written = 12345;
    pbc_status s = pbc_message_encode(info_, mem_, nullptr, 0, &written);
    if (s != PBC_OK || written != 0) {
      *err = std::string("encode of an init'ed message into a NULL, 0 buffer: ") +
             StatusName(s) + ", written " + std::to_string(written);
      return false;
    }
    return true;
  }

  bool IsInitialized() const {
    return pbc_message_is_initialized(info_, mem_);
  }

  void ResetArenas() {
    pbc_arena_reset(&arena_);
    pbc_arena_reset(&block_arena_);
    pbc_arena_reset(&table_arena_);
  }

 private:
  // memcmp against a block of canaries: the 1 MiB checks stay cheap under ASan.
  static bool AllCanary(const uint8_t *p, size_t n) {
    static const std::vector<uint8_t> canaries(4096, kCanaryByte);
    for (size_t at = 0; at < n; at += canaries.size())
      if (memcmp(p + at, canaries.data(), std::min(n - at, canaries.size())) != 0) return false;
    return true;
  }
  bool CanaryIntact() const { return AllCanary(mem_ + info_->struct_size, kCanary); }

  const pbc_message_info *info_;
  uint64_t decodes_ = 0;
  uint8_t *mem_ = nullptr;
  uint8_t *table_mem_ = nullptr; // pbc_table_decode's struct
  pbc_arena arena_;
  pbc_arena block_arena_;
  pbc_arena capped_;
  pbc_arena table_arena_;
  std::vector<uint8_t> large_; // EncodeIntoLargerBuffers' 1 MiB, allocated once
  alignas(16) uint8_t block_[512];
  GuardedInput input_;
};

// ---------------------------------------------------------------------------
// Random values

bool IsProto3(const FieldDescriptor *f) {
  return f->file()->syntax() == FileDescriptor::SYNTAX_PROTO3;
}
// libprotobuf 3.21 keeps undeclared enum values in the field when the
// field's file is proto3 (open enum) and moves them to the unknown fields
// otherwise (closed enum).
bool IsOpenEnum(const FieldDescriptor *f) { return IsProto3(f); }
bool NeedsUtf8(const FieldDescriptor *f) {
  return f->type() == FieldDescriptor::TYPE_STRING && IsProto3(f);
}
bool IsMessageLike(const FieldDescriptor *f) {
  return f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
}

const uint64_t kSpecial64[] = {
    0, 1, 2, 0x7f, 0x80, 0x3fff, 0x4000, 0x1fffff, 0x200000, 0xfffffff, 0x10000000,
    0x7ffffffffULL, 0x800000000ULL, 0x3ffffffffffULL, 0x40000000000ULL,
    0x1ffffffffffffULL, 0x2000000000000ULL, 0xffffffffffffffULL,
    0x100000000000000ULL, 0x7fffffffffffffffULL, 0x8000000000000000ULL,
    0xffffffffffffffffULL, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL,
    0x7ffffffe, 0x80000001,
    static_cast<uint64_t>(-2), static_cast<uint64_t>(-63), static_cast<uint64_t>(-64),
    static_cast<uint64_t>(-65), static_cast<uint64_t>(-127), static_cast<uint64_t>(-128),
    static_cast<uint64_t>(-129), static_cast<uint64_t>(-8192),
    static_cast<uint64_t>(-8193), static_cast<uint64_t>(int64_t{INT32_MIN}),
    static_cast<uint64_t>(int64_t{INT32_MIN} - 1), static_cast<uint64_t>(int64_t{INT32_MAX} + 1),
};

// A value of `width` bits (32 or 64): a special value (varint length and
// zigzag boundaries, extremes) or a random value of random bit length,
// sometimes negated.
uint64_t RandomBits(Rng &r, int width) {
  uint64_t v;
  if (r.Chance(0.4)) {
    v = kSpecial64[r.Below(sizeof kSpecial64 / sizeof kSpecial64[0])];
  } else {
    unsigned k = static_cast<unsigned>(r.Below(static_cast<uint64_t>(width) + 1));
    v = k >= 64 ? r.Next() : (r.Next() & ((uint64_t{1} << k) - 1));
    if (r.Chance(0.3)) v = ~v + 1;
  }
  return width == 32 ? (v & 0xffffffffULL) : v;
}

float RandomFloat(Rng &r) {
  static const uint32_t kSpecial[] = {
      0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7fc00000, 0xffc00000,
      0x7fc00001, 0x7f800001 /* signalling NaN */, 0x7fffffff, 0x7f800000 /* inf */,
      0xff800000 /* -inf */, 0x00800000 /* FLT_MIN */, 0x00000001 /* denorm min */,
      0x007fffff /* largest denormal */, 0x80000001, 0x7f7fffff /* FLT_MAX */,
      0xff7fffff, 0x34000000 /* FLT_EPSILON */, 0x3eaaaaab /* 1/3 */};
  uint32_t bits;
  if (r.Chance(0.35)) {
    bits = kSpecial[r.Below(sizeof kSpecial / sizeof kSpecial[0])];
  } else if (r.Chance(0.5)) {
    bits = static_cast<uint32_t>(r.Next());
  } else {
    float f = static_cast<float>(r.Range(-100000, 100000)) / 64.0f;
    memcpy(&bits, &f, 4);
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

double RandomDouble(Rng &r) {
  static const uint64_t kSpecial[] = {
      0x0000000000000000ULL, 0x8000000000000000ULL, 0x3ff0000000000000ULL,
      0xbff0000000000000ULL, 0x7ff8000000000000ULL, 0xfff8000000000000ULL,
      0x7ff8000000000001ULL, 0x7ff0000000000001ULL /* signalling NaN */,
      0x7fffffffffffffffULL, 0x7ff0000000000000ULL /* inf */,
      0xfff0000000000000ULL /* -inf */, 0x0010000000000000ULL /* DBL_MIN */,
      0x0000000000000001ULL /* denorm min */, 0x000fffffffffffffULL,
      0x8000000000000001ULL, 0x7fefffffffffffffULL /* DBL_MAX */,
      0xffefffffffffffffULL, 0x3cb0000000000000ULL /* DBL_EPSILON */,
      0x3fd5555555555555ULL /* 1/3 */};
  uint64_t bits;
  if (r.Chance(0.35)) {
    bits = kSpecial[r.Below(sizeof kSpecial / sizeof kSpecial[0])];
  } else if (r.Chance(0.5)) {
    bits = r.Next();
  } else {
    double d = static_cast<double>(r.Range(-10000000, 10000000)) / 1024.0;
    memcpy(&bits, &d, 8);
  }
  double d;
  memcpy(&d, &bits, 8);
  return d;
}

void AppendUtf8(std::string *s, uint32_t cp) {
  if (cp < 0x80) {
    *s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *s += static_cast<char>(0xc0 | (cp >> 6));
    *s += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    *s += static_cast<char>(0xe0 | (cp >> 12));
    *s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    *s += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    *s += static_cast<char>(0xf0 | (cp >> 18));
    *s += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    *s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    *s += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

size_t Utf8Len(uint32_t cp) { return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4; }

uint32_t RandomCodePoint(Rng &r) {
  static const uint32_t kEdges[] = {0x00,   0x7f,   0x80,   0x7ff,   0x800,   0xd7ff,
                                    0xe000, 0xfffd, 0xffff, 0x10000, 0x10ffff, 0xfeff};
  uint64_t k = r.Below(100);
  if (k < 55) return static_cast<uint32_t>(r.Range(0x20, 0x7e));
  if (k < 60) return static_cast<uint32_t>(r.Range(0x00, 0x1f));
  if (k < 75) return static_cast<uint32_t>(r.Range(0x80, 0x7ff));
  if (k < 87) {
    uint32_t cp = static_cast<uint32_t>(r.Range(0x800, 0xffff));
    return (cp >= 0xd800 && cp <= 0xdfff) ? cp - 0x800 : cp;  // no surrogates
  }
  if (k < 95) return static_cast<uint32_t>(r.Range(0x10000, 0x10ffff));
  return kEdges[r.Below(sizeof kEdges / sizeof kEdges[0])];
}

// Exactly `len` bytes of valid UTF-8.
std::string RandomUtf8(Rng &r, size_t len) {
  std::string s;
  s.reserve(len);
  bool ascii_only = r.Chance(0.3);
  while (s.size() < len) {
    uint32_t cp = ascii_only ? static_cast<uint32_t>(r.Range(0x20, 0x7e)) : RandomCodePoint(r);
    if (Utf8Len(cp) > len - s.size()) cp = static_cast<uint32_t>(r.Range(0x20, 0x7e));
    AppendUtf8(&s, cp);
  }
  return s;
}

size_t RandomLength(Rng &r) {
  static const size_t kEdges[] = {127, 128, 129, 255, 256};
  uint64_t k = r.Below(1000);
  if (k < 200) return 0;
  if (k < 650) return static_cast<size_t>(r.Range(1, 16));
  if (k < 900) return static_cast<size_t>(r.Range(17, 200));
  if (k < 950) return static_cast<size_t>(r.Range(201, 4000));
  if (k < 995) return kEdges[r.Below(sizeof kEdges / sizeof kEdges[0])];
  return r.Chance(0.5) ? 16383 : 16384;  // length varint goes 2 -> 3 bytes
}

std::string RandomBytes(Rng &r, size_t len) {
  std::string s(len, '\0');
  for (size_t i = 0; i < len; i++) s[i] = static_cast<char>(r.Next());
  return s;
}

std::string RandomStringFor(Rng &r, const FieldDescriptor *f) {
  size_t len = RandomLength(r);
  // proto3 strings must be UTF-8; proto2 strings and bytes may be anything.
  if (NeedsUtf8(f) || r.Chance(0.5)) return RandomUtf8(r, len);
  return RandomBytes(r, len);
}

int32_t RandomEnumValue(Rng &r, const FieldDescriptor *f, bool allow_undeclared) {
  const gp::EnumDescriptor *e = f->enum_type();
  if (allow_undeclared && IsOpenEnum(f) && r.Chance(0.15)) {
    return static_cast<int32_t>(static_cast<uint32_t>(RandomBits(r, 32)));
  }
  return e->value(static_cast<int>(r.Below(static_cast<uint64_t>(e->value_count()))))->number();
}

// An int32 that no value of the (closed) enum has.
int32_t UndeclaredEnumValue(Rng &r, const FieldDescriptor *f) {
  for (;;) {
    int32_t v = r.Chance(0.5) ? static_cast<int32_t>(r.Range(-5, 200))
                              : static_cast<int32_t>(static_cast<uint32_t>(RandomBits(r, 32)));
    if (!f->enum_type()->FindValueByNumber(v)) return v;
  }
}

size_t RandomCount(Rng &r, bool small) {
  uint64_t k = r.Below(100);
  if (k < 25) return 0;
  if (k < 65) return static_cast<size_t>(r.Range(1, 3));
  if (small || k < 90) return static_cast<size_t>(r.Range(1, 12));
  return static_cast<size_t>(r.Range(13, 150));
}

// ---------------------------------------------------------------------------
// Filling messages through reflection

// A field whose type is a message_set_wire_format message. libprotobuf
// 3.21's DynamicMessage cannot parse message sets (it drops their items), so
// it is no reference for them: the random filler leaves such fields alone
// unless the message under test is itself a message set (whose checks do not
// rely on libprotobuf parsing it; see CheckOpaque).
bool IsMessageSetField(const FieldDescriptor *f) {
  return IsMessageLike(f) && f->message_type()->options().message_set_wire_format();
}

// A map key as text, for telling keys apart.
std::string KeyText(const Message &entry, const FieldDescriptor *kf) {
  const Reflection *R = entry.GetReflection();
  switch (kf->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: return std::to_string(R->GetInt32(entry, kf));
    case FieldDescriptor::CPPTYPE_INT64: return std::to_string(R->GetInt64(entry, kf));
    case FieldDescriptor::CPPTYPE_UINT32: return std::to_string(R->GetUInt32(entry, kf));
    case FieldDescriptor::CPPTYPE_UINT64: return std::to_string(R->GetUInt64(entry, kf));
    case FieldDescriptor::CPPTYPE_BOOL: return R->GetBool(entry, kf) ? "true" : "false";
    case FieldDescriptor::CPPTYPE_STRING: return "s:" + R->GetString(entry, kf);
    default: Die("map key of type %s", kf->type_name());
  }
}

// Orders map keys as libprotobuf's deterministic serialization does.
bool KeyLess(const Message &a, const Message &b, const FieldDescriptor *kf) {
  const Reflection *R = a.GetReflection();
  switch (kf->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: return R->GetInt32(a, kf) < R->GetInt32(b, kf);
    case FieldDescriptor::CPPTYPE_INT64: return R->GetInt64(a, kf) < R->GetInt64(b, kf);
    case FieldDescriptor::CPPTYPE_UINT32: return R->GetUInt32(a, kf) < R->GetUInt32(b, kf);
    case FieldDescriptor::CPPTYPE_UINT64: return R->GetUInt64(a, kf) < R->GetUInt64(b, kf);
    case FieldDescriptor::CPPTYPE_BOOL: return R->GetBool(a, kf) < R->GetBool(b, kf);
    case FieldDescriptor::CPPTYPE_STRING: return R->GetString(a, kf) < R->GetString(b, kf);
    default: Die("map key of type %s", kf->type_name());
  }
}

// The entries of a map field, sorted by key (the order of libprotobuf's
// deterministic serialization). The keys must be unique.
std::vector<const Message *> SortedEntries(const Message &m, const FieldDescriptor *f) {
  const Reflection *R = m.GetReflection();
  std::vector<const Message *> out;
  for (int i = 0; i < R->FieldSize(m, f); i++) out.push_back(&R->GetRepeatedMessage(m, f, i));
  const FieldDescriptor *kf = f->message_type()->map_key();
  std::stable_sort(out.begin(), out.end(), [kf](const Message *a, const Message *b) {
    return KeyLess(*a, *b, kf);
  });
  return out;
}

class Filler {
 public:
  Filler(Rng &r, const Schema &schema, int max_depth, bool message_sets = false)
      : r_(r), schema_(schema), max_depth_(max_depth), message_sets_(message_sets) {}

  void Fill(Message *m, int depth) {
    const Descriptor *d = m->GetDescriptor();
    if (depth == 0) root_file_ = d->file();
    // An Any mostly holds a message of the file under test, which pbc's
    // library has too (the text format's expanded form); else random bytes.
    if (d->full_name() == "google.protobuf.Any" && root_file_ != nullptr &&
        root_file_->message_type_count() > 0 && r_.Chance(0.7)) {
      const Descriptor *t = root_file_->message_type(
          static_cast<int>(r_.Below(static_cast<uint64_t>(root_file_->message_type_count()))));
      std::unique_ptr<Message> value = schema_.New(t);
      if (MayNest(depth)) Fill(value.get(), depth + 1);
      const Reflection *R = m->GetReflection();
      R->SetString(m, d->FindFieldByNumber(1),
                   (r_.Chance(0.9) ? "type.googleapis.com/" : "example.com/") + t->full_name());
      R->SetString(m, d->FindFieldByNumber(2), value->SerializePartialAsString());
      return;
    }
    std::set<const gp::OneofDescriptor *> oneofs_done;
    // Fewer fields deeper down keeps messages a few KB on average.
    double p_set = depth == 0 ? 0.6 : 0.25;
    for (int i = 0; i < d->field_count(); i++) {
      const FieldDescriptor *f = d->field(i);
      if (IsMessageSetField(f) && !message_sets_) continue;
      if (f->is_map()) {
        if (!r_.Chance(p_set)) continue;
        FillMap(m, f, depth);
        continue;
      }
      if (const gp::OneofDescriptor *o = f->real_containing_oneof()) {
        if (!oneofs_done.insert(o).second) continue;
        if (r_.Chance(0.3)) continue;
        const FieldDescriptor *pick = o->field(static_cast<int>(r_.Below(o->field_count())));
        if (IsMessageLike(pick) && !MayNest(depth)) continue;
        SetSingular(m, pick, depth);
        continue;
      }
      if (f->is_required()) {
        SetSingular(m, f, depth);
        continue;
      }
      FillField(m, f, depth, p_set);
    }
    // Extensions: set through reflection like fields.
    for (const FieldDescriptor *ext : schema_.Extensions(d)) {
      if (IsMessageSetField(ext) && !message_sets_) continue;
      FillField(m, ext, depth, depth == 0 ? 0.5 : 0.2);
    }
  }

 private:
  bool MayNest(int depth) const { return depth < max_depth_ && nodes_ < kMaxNodes; }

  void FillField(Message *m, const FieldDescriptor *f, int depth, double p_set) {
    if (f->is_repeated()) {
      if (IsMessageLike(f) && !MayNest(depth)) return;
      if (depth > 0 && !r_.Chance(p_set)) return;
      size_t n = RandomCount(r_, IsMessageLike(f) || !f->is_packable() || depth > 0);
      if (IsMessageLike(f)) n = std::min<size_t>(n, depth < 2 ? 4 : 2);
      for (size_t k = 0; k < n; k++) AddElement(m, f, depth);
      return;
    }
    if (IsMessageLike(f)) {
      if (!MayNest(depth) || !r_.Chance(0.5)) return;
    } else if (!r_.Chance(p_set)) {
      return;
    }
    SetSingular(m, f, depth);
  }

  // Entries with unique keys (sometimes the zero key), any values (zero
  // ones too, and empty messages).
  void FillMap(Message *m, const FieldDescriptor *f, int depth) {
    const Reflection *R = m->GetReflection();
    const FieldDescriptor *kf = f->message_type()->map_key();
    const FieldDescriptor *vf = f->message_type()->map_value();
    // The entry is one level, its message value another.
    if (IsMessageLike(vf) && !MayNest(depth + 1)) return;
    size_t n = RandomCount(r_, true);
    if (IsMessageLike(vf)) n = std::min<size_t>(n, depth < 2 ? 4 : 2);
    std::set<std::string> keys;
    for (size_t k = 0; k < n; k++) {
      Message *e = R->AddMessage(m, f, schema_.factory.get());
      SetScalar(e, kf, false, r_.Chance(0.1));
      if (!keys.insert(KeyText(*e, kf)).second) {
        R->RemoveLast(m, f);
        continue;
      }
      if (IsMessageLike(vf)) {
        nodes_++;
        Message *v = e->GetReflection()->MutableMessage(e, vf, schema_.factory.get());
        // Sometimes an empty message (when that is a valid one).
        if (!r_.Chance(0.1) || !v->IsInitialized()) Fill(v, depth + 2);
      } else {
        SetScalar(e, vf, false, r_.Chance(0.1));
      }
    }
  }

  void SetSingular(Message *m, const FieldDescriptor *f, int depth) {
    const Reflection *R = m->GetReflection();
    if (IsMessageLike(f)) {
      nodes_++;
      Fill(R->MutableMessage(m, f, schema_.factory.get()), depth + 1);
      return;
    }
    // Fields with presence: sometimes their default (proto2) or zero value,
    // set explicitly (oneof members more often: they are written anyway).
    bool dflt = f->has_presence() && r_.Chance(0.12);
    bool zero = f->has_presence() && !dflt &&
                r_.Chance(f->real_containing_oneof() ? 0.15 : 0.05);
    SetScalar(m, f, dflt, zero);
  }

  void SetScalar(Message *m, const FieldDescriptor *f, bool dflt, bool zero) {
    const Reflection *R = m->GetReflection();
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        R->SetInt32(m, f, dflt ? f->default_value_int32() : zero ? 0 : Int32(f));
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        R->SetInt64(m, f, dflt ? f->default_value_int64() : zero ? 0 : Int64());
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        R->SetUInt32(m, f, dflt ? f->default_value_uint32() : zero ? 0 : UInt32());
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        R->SetUInt64(m, f, dflt ? f->default_value_uint64() : zero ? 0 : UInt64());
        break;
      case FieldDescriptor::CPPTYPE_FLOAT:
        R->SetFloat(m, f, dflt ? f->default_value_float() : zero ? 0.0f : RandomFloat(r_));
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        R->SetDouble(m, f, dflt ? f->default_value_double() : zero ? 0.0 : RandomDouble(r_));
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        R->SetBool(m, f, dflt ? f->default_value_bool() : zero ? false : r_.Chance(0.5));
        break;
      case FieldDescriptor::CPPTYPE_ENUM:
        if (dflt) {
          R->SetEnumValue(m, f, f->default_value_enum()->number());
        } else if (zero && (IsOpenEnum(f) || f->enum_type()->FindValueByNumber(0))) {
          R->SetEnumValue(m, f, 0);
        } else {
          R->SetEnumValue(m, f, RandomEnumValue(r_, f, true));
        }
        break;
      case FieldDescriptor::CPPTYPE_STRING:
        R->SetString(m, f, dflt ? f->default_value_string() : zero ? "" : RandomStringFor(r_, f));
        break;
      case FieldDescriptor::CPPTYPE_MESSAGE:
        break;
    }
  }

  void AddElement(Message *m, const FieldDescriptor *f, int depth) {
    const Reflection *R = m->GetReflection();
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32: R->AddInt32(m, f, Int32(f)); break;
      case FieldDescriptor::CPPTYPE_INT64: R->AddInt64(m, f, Int64()); break;
      case FieldDescriptor::CPPTYPE_UINT32: R->AddUInt32(m, f, UInt32()); break;
      case FieldDescriptor::CPPTYPE_UINT64: R->AddUInt64(m, f, UInt64()); break;
      case FieldDescriptor::CPPTYPE_FLOAT: R->AddFloat(m, f, RandomFloat(r_)); break;
      case FieldDescriptor::CPPTYPE_DOUBLE: R->AddDouble(m, f, RandomDouble(r_)); break;
      case FieldDescriptor::CPPTYPE_BOOL: R->AddBool(m, f, r_.Chance(0.5)); break;
      case FieldDescriptor::CPPTYPE_ENUM: R->AddEnumValue(m, f, RandomEnumValue(r_, f, true)); break;
      case FieldDescriptor::CPPTYPE_STRING: R->AddString(m, f, RandomStringFor(r_, f)); break;
      case FieldDescriptor::CPPTYPE_MESSAGE:
        nodes_++;
        Fill(R->AddMessage(m, f, schema_.factory.get()), depth + 1);
        break;
    }
  }

  int32_t Int32(const FieldDescriptor *) {
    return static_cast<int32_t>(static_cast<uint32_t>(RandomBits(r_, 32)));
  }
  int64_t Int64() { return static_cast<int64_t>(RandomBits(r_, 64)); }
  uint32_t UInt32() { return static_cast<uint32_t>(RandomBits(r_, 32)); }
  uint64_t UInt64() { return RandomBits(r_, 64); }

  static constexpr int kMaxNodes = 30;
  Rng &r_;
  const Schema &schema_;
  int max_depth_;
  bool message_sets_;
  const gp::FileDescriptor *root_file_ = nullptr; // of the message at depth 0
  int nodes_ = 0;
};

// ---------------------------------------------------------------------------
// Copying single fields between messages of one type (for splitting).

void CopyElement(const Message &src, const FieldDescriptor *f, int i, Message *dst,
                 gp::MessageFactory *factory) {
  const Reflection *S = src.GetReflection();
  const Reflection *D = dst->GetReflection();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: D->AddInt32(dst, f, S->GetRepeatedInt32(src, f, i)); break;
    case FieldDescriptor::CPPTYPE_INT64: D->AddInt64(dst, f, S->GetRepeatedInt64(src, f, i)); break;
    case FieldDescriptor::CPPTYPE_UINT32: D->AddUInt32(dst, f, S->GetRepeatedUInt32(src, f, i)); break;
    case FieldDescriptor::CPPTYPE_UINT64: D->AddUInt64(dst, f, S->GetRepeatedUInt64(src, f, i)); break;
    case FieldDescriptor::CPPTYPE_FLOAT: D->AddFloat(dst, f, S->GetRepeatedFloat(src, f, i)); break;
    case FieldDescriptor::CPPTYPE_DOUBLE: D->AddDouble(dst, f, S->GetRepeatedDouble(src, f, i)); break;
    case FieldDescriptor::CPPTYPE_BOOL: D->AddBool(dst, f, S->GetRepeatedBool(src, f, i)); break;
    case FieldDescriptor::CPPTYPE_ENUM: D->AddEnumValue(dst, f, S->GetRepeatedEnumValue(src, f, i)); break;
    case FieldDescriptor::CPPTYPE_STRING: D->AddString(dst, f, S->GetRepeatedString(src, f, i)); break;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      D->AddMessage(dst, f, factory)->CopyFrom(S->GetRepeatedMessage(src, f, i));
      break;
  }
}

void CopySingular(const Message &src, const FieldDescriptor *f, Message *dst,
                  gp::MessageFactory *factory) {
  const Reflection *S = src.GetReflection();
  const Reflection *D = dst->GetReflection();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: D->SetInt32(dst, f, S->GetInt32(src, f)); break;
    case FieldDescriptor::CPPTYPE_INT64: D->SetInt64(dst, f, S->GetInt64(src, f)); break;
    case FieldDescriptor::CPPTYPE_UINT32: D->SetUInt32(dst, f, S->GetUInt32(src, f)); break;
    case FieldDescriptor::CPPTYPE_UINT64: D->SetUInt64(dst, f, S->GetUInt64(src, f)); break;
    case FieldDescriptor::CPPTYPE_FLOAT: D->SetFloat(dst, f, S->GetFloat(src, f)); break;
    case FieldDescriptor::CPPTYPE_DOUBLE: D->SetDouble(dst, f, S->GetDouble(src, f)); break;
    case FieldDescriptor::CPPTYPE_BOOL: D->SetBool(dst, f, S->GetBool(src, f)); break;
    case FieldDescriptor::CPPTYPE_ENUM: D->SetEnumValue(dst, f, S->GetEnumValue(src, f)); break;
    case FieldDescriptor::CPPTYPE_STRING: D->SetString(dst, f, S->GetString(src, f)); break;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      D->MutableMessage(dst, f, factory)->CopyFrom(S->GetMessage(src, f));
      break;
  }
}

// ---------------------------------------------------------------------------
// Non-canonical encodings of a message (check (c)).
//
// Values come from CodedOutputStream / WireFormatLite; the only bytes made
// here are the padding of overlong varints (which libprotobuf never writes).

// Sets singular scalar field f to a random value.
void SetRandomValue(Rng &r, Message *m, const FieldDescriptor *f) {
  const Reflection *R = m->GetReflection();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: R->SetInt32(m, f, static_cast<int32_t>(RandomBits(r, 32))); break;
    case FieldDescriptor::CPPTYPE_INT64: R->SetInt64(m, f, static_cast<int64_t>(RandomBits(r, 64))); break;
    case FieldDescriptor::CPPTYPE_UINT32: R->SetUInt32(m, f, static_cast<uint32_t>(RandomBits(r, 32))); break;
    case FieldDescriptor::CPPTYPE_UINT64: R->SetUInt64(m, f, RandomBits(r, 64)); break;
    case FieldDescriptor::CPPTYPE_FLOAT: R->SetFloat(m, f, RandomFloat(r)); break;
    case FieldDescriptor::CPPTYPE_DOUBLE: R->SetDouble(m, f, RandomDouble(r)); break;
    case FieldDescriptor::CPPTYPE_BOOL: R->SetBool(m, f, r.Chance(0.5)); break;
    case FieldDescriptor::CPPTYPE_ENUM: R->SetEnumValue(m, f, RandomEnumValue(r, f, true)); break;
    case FieldDescriptor::CPPTYPE_STRING: R->SetString(m, f, RandomStringFor(r, f)); break;
    case FieldDescriptor::CPPTYPE_MESSAGE: break;
  }
}

// True when m or a message it holds, at any depth, has an extension set or
// (`or_unknown`) unknown fields.
bool HasExtensionsIn(const Message &m, bool or_unknown) {
  const Reflection *R = m.GetReflection();
  if (or_unknown && R->GetUnknownFields(m).field_count() > 0) return true;
  std::vector<const FieldDescriptor *> fields;
  R->ListFields(m, &fields);
  for (const FieldDescriptor *f : fields) {
    if (f->is_extension()) return true;
    if (!IsMessageLike(f)) continue;
    if (f->is_repeated()) {
      for (int i = 0; i < R->FieldSize(m, f); i++)
        if (HasExtensionsIn(R->GetRepeatedMessage(m, f, i), or_unknown)) return true;
    } else if (HasExtensionsIn(R->GetMessage(m, f), or_unknown)) {
      return true;
    }
  }
  return false;
}

// Extensions or unknown fields anywhere in m's tree: pbc keeps both as raw
// unknown fields, so a message holding them is never split into several
// occurrences (libprotobuf would merge extensions by number, and pbc would
// concatenate their bytes).
bool HasOpaque(const Message &m) { return HasExtensionsIn(m, true); }

struct VariantStats {
  bool unknown = false;    // unknown fields were written: output != canonical
  bool map_order = false;  // map entries out of key order: pbc keeps that order
};

class VariantEncoder {
 public:
  VariantEncoder(Rng &r, const Schema &schema, bool unknown_fields, VariantStats *stats)
      : r_(r), schema_(schema), unknown_(unknown_fields), stats_(stats),
        shuffle_maps_(r.Chance(0.2)) {}

  // `whole`: m is a complete message, not one part of a split one (the
  // explicit-zero trick for absent proto3 fields is only valid then).
  std::string Encode(const Message &m, int depth, bool whole = true) {
    const Descriptor *d = m.GetDescriptor();
    const Reflection *R = m.GetReflection();
    std::vector<const FieldDescriptor *> fields;
    R->ListFields(m, &fields);
    bool has_extensions = false;
    for (const FieldDescriptor *f : fields) has_extensions |= f->is_extension();
    std::vector<std::vector<std::string>> queues;
    for (const FieldDescriptor *f : fields) {
      if (f->is_extension()) continue;
      if (f->is_map())
        queues.push_back(MapChunks(m, f, depth));
      else
        queues.push_back(Chunks(m, f, depth, whole, !has_extensions));
    }
    // proto3 implicit fields that are absent: an earlier non-zero value
    // then an explicit zero, which leaves the field absent.
    for (int i = 0; i < d->field_count(); i++) {
      const FieldDescriptor *f = d->field(i);
      if (f->is_repeated() || f->has_presence() || IsMessageLike(f)) continue;
      if (!whole || R->HasField(m, f) || !r_.Chance(0.04)) continue;
      std::vector<std::string> q(2);
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
        std::string early = RandomStringFor(r_, f);
        if (early.empty()) early = "x";
        PutLenField(&q[0], f->number(), early);
        PutLenField(&q[1], f->number(), "");
      } else {
        PutScalarField(&q[0], f, RandomNonZeroRaw(f));
        PutScalarField(&q[1], f, 0);
      }
      queues.push_back(std::move(q));
    }
    // Extensions and unknown fields: pbc keeps both as raw unknown fields in
    // the order read and writes them after the known fields; libprotobuf
    // writes extensions among the known fields by number (the schemas put
    // extension ranges above the fields) and its unknown fields after them,
    // in the order read, re-encoded canonically. So they go canonically, in
    // libprotobuf's order, as one queue (interleaved with the known fields).
    std::vector<std::string> opaque;
    for (const FieldDescriptor *f : fields)
      if (f->is_extension()) opaque.push_back(ExtensionBytes(m, f));
    const gp::UnknownFieldSet &ufs = R->GetUnknownFields(m);
    for (int i = 0; i < ufs.field_count(); i++) {
      gp::UnknownFieldSet one;
      one.AddField(ufs.field(i));
      std::string bytes;
      one.SerializeToString(&bytes);
      opaque.push_back(bytes);
    }
    if (unknown_ && !d->options().message_set_wire_format()) {
      int n = r_.Chance(0.4) ? static_cast<int>(r_.Range(1, 3)) : 0;
      for (int i = 0; i < n; i++) opaque.push_back(UnknownField(d, depth));
    }
    if (!opaque.empty()) queues.push_back(std::move(opaque));
    std::string out;
    size_t total = 0;
    for (auto &q : queues) total += q.size();
    std::vector<size_t> next(queues.size(), 0);
    if (r_.Chance(0.4)) {
      // In field-number order (the fast path of an in-order decoder).
      for (auto &q : queues)
        for (auto &c : q) out += c;
      return out;
    }
    // A uniformly random interleaving that keeps each field's own order.
    while (total > 0) {
      uint64_t k = r_.Below(total);
      size_t qi = 0;
      for (; qi < queues.size(); qi++) {
        size_t left = queues[qi].size() - next[qi];
        if (k < left) break;
        k -= left;
      }
      out += queues[qi][next[qi]++];
      total--;
    }
    return out;
  }

 private:
  // ---- primitive writers
  // A varint, overlong (redundant 0x80 continuation bytes) now and then, at
  // most `max_len` bytes in all.
  void PutVarint(std::string *s, uint64_t v, size_t max_len, double p_overlong) {
    uint8_t buf[16];
    uint8_t *e = COS::WriteVarint64ToArray(v, buf);
    size_t n = static_cast<size_t>(e - buf);
    if (n < max_len && r_.Chance(p_overlong)) {
      size_t extra = static_cast<size_t>(r_.Range(1, static_cast<int64_t>(max_len - n)));
      buf[n - 1] |= 0x80;
      for (size_t i = 0; i + 1 < extra; i++) buf[n++] = 0x80;
      buf[n++] = 0x00;
    }
    s->append(reinterpret_cast<const char *>(buf), n);
  }
  void PutCanonicalVarint(std::string *s, uint64_t v) { PutVarint(s, v, 10, 0.0); }
  void PutTag(std::string *s, int number, WFL::WireType wt, bool canonical) {
    uint32_t tag = WFL::MakeTag(number, wt);
    if (!canonical && r_.Chance(0.01)) {
      // Five bytes whose last one has garbage above bit 31: libprotobuf
      // 3.21 reads tags as uint32 and drops those bits (ReadTagFallback).
      uint8_t buf[5];
      for (int i = 0; i < 4; i++) buf[i] = static_cast<uint8_t>(((tag >> (7 * i)) & 0x7f) | 0x80);
      buf[4] = static_cast<uint8_t>((tag >> 28) | (r_.Range(1, 7) << 4));
      s->append(reinterpret_cast<const char *>(buf), 5);
      return;
    }
    PutVarint(s, tag, 5, canonical ? 0.0 : 0.03);
  }
  void PutLength(std::string *s, size_t n, bool canonical) {
    PutVarint(s, n, 5, canonical ? 0.0 : 0.08);
  }
  void PutFixed32(std::string *s, uint32_t v) {
    uint8_t buf[4];
    COS::WriteLittleEndian32ToArray(v, buf);
    s->append(reinterpret_cast<const char *>(buf), 4);
  }
  void PutFixed64(std::string *s, uint64_t v) {
    uint8_t buf[8];
    COS::WriteLittleEndian64ToArray(v, buf);
    s->append(reinterpret_cast<const char *>(buf), 8);
  }

  // ---- values
  static WFL::WireType WireTypeOf(const FieldDescriptor *f) {
    return WFL::WireTypeForFieldType(static_cast<WFL::FieldType>(f->type()));
  }

  // The wire form of a scalar: the varint value, or the fixed bits.
  static uint64_t RawSingular(const Message &m, const FieldDescriptor *f) {
    const Reflection *R = m.GetReflection();
    switch (f->type()) {
      case FieldDescriptor::TYPE_INT32: return static_cast<uint64_t>(int64_t{R->GetInt32(m, f)});
      case FieldDescriptor::TYPE_INT64: return static_cast<uint64_t>(R->GetInt64(m, f));
      case FieldDescriptor::TYPE_UINT32: return R->GetUInt32(m, f);
      case FieldDescriptor::TYPE_UINT64: return R->GetUInt64(m, f);
      case FieldDescriptor::TYPE_SINT32: return WFL::ZigZagEncode32(R->GetInt32(m, f));
      case FieldDescriptor::TYPE_SINT64: return WFL::ZigZagEncode64(R->GetInt64(m, f));
      case FieldDescriptor::TYPE_FIXED32: return R->GetUInt32(m, f);
      case FieldDescriptor::TYPE_FIXED64: return R->GetUInt64(m, f);
      case FieldDescriptor::TYPE_SFIXED32: return static_cast<uint32_t>(R->GetInt32(m, f));
      case FieldDescriptor::TYPE_SFIXED64: return static_cast<uint64_t>(R->GetInt64(m, f));
      case FieldDescriptor::TYPE_FLOAT: return WFL::EncodeFloat(R->GetFloat(m, f));
      case FieldDescriptor::TYPE_DOUBLE: return WFL::EncodeDouble(R->GetDouble(m, f));
      case FieldDescriptor::TYPE_BOOL: return R->GetBool(m, f) ? 1 : 0;
      case FieldDescriptor::TYPE_ENUM: return static_cast<uint64_t>(int64_t{R->GetEnumValue(m, f)});
      default: Die("RawSingular: not a scalar");
    }
  }
  static uint64_t RawRepeated(const Message &m, const FieldDescriptor *f, int i) {
    const Reflection *R = m.GetReflection();
    switch (f->type()) {
      case FieldDescriptor::TYPE_INT32: return static_cast<uint64_t>(int64_t{R->GetRepeatedInt32(m, f, i)});
      case FieldDescriptor::TYPE_INT64: return static_cast<uint64_t>(R->GetRepeatedInt64(m, f, i));
      case FieldDescriptor::TYPE_UINT32: return R->GetRepeatedUInt32(m, f, i);
      case FieldDescriptor::TYPE_UINT64: return R->GetRepeatedUInt64(m, f, i);
      case FieldDescriptor::TYPE_SINT32: return WFL::ZigZagEncode32(R->GetRepeatedInt32(m, f, i));
      case FieldDescriptor::TYPE_SINT64: return WFL::ZigZagEncode64(R->GetRepeatedInt64(m, f, i));
      case FieldDescriptor::TYPE_FIXED32: return R->GetRepeatedUInt32(m, f, i);
      case FieldDescriptor::TYPE_FIXED64: return R->GetRepeatedUInt64(m, f, i);
      case FieldDescriptor::TYPE_SFIXED32: return static_cast<uint32_t>(R->GetRepeatedInt32(m, f, i));
      case FieldDescriptor::TYPE_SFIXED64: return static_cast<uint64_t>(R->GetRepeatedInt64(m, f, i));
      case FieldDescriptor::TYPE_FLOAT: return WFL::EncodeFloat(R->GetRepeatedFloat(m, f, i));
      case FieldDescriptor::TYPE_DOUBLE: return WFL::EncodeDouble(R->GetRepeatedDouble(m, f, i));
      case FieldDescriptor::TYPE_BOOL: return R->GetRepeatedBool(m, f, i) ? 1 : 0;
      case FieldDescriptor::TYPE_ENUM: return static_cast<uint64_t>(int64_t{R->GetRepeatedEnumValue(m, f, i)});
      default: Die("RawRepeated: not a scalar");
    }
  }

  // A random raw value of f's type other than zero (for closed enums: a
  // declared value).
  uint64_t RandomNonZeroRaw(const FieldDescriptor *f) {
    for (;;) {
      uint64_t v = RandomRaw(f);
      if (v != 0) return v;
      if (f->type() == FieldDescriptor::TYPE_ENUM && !IsOpenEnum(f)) return v;
    }
  }
  uint64_t RandomRaw(const FieldDescriptor *f) {
    switch (f->type()) {
      case FieldDescriptor::TYPE_INT32:
        return static_cast<uint64_t>(int64_t{static_cast<int32_t>(RandomBits(r_, 32))});
      case FieldDescriptor::TYPE_UINT32:
      case FieldDescriptor::TYPE_FIXED32:
      case FieldDescriptor::TYPE_SFIXED32:
        return RandomBits(r_, 32);
      case FieldDescriptor::TYPE_SINT32:
        return WFL::ZigZagEncode32(static_cast<int32_t>(RandomBits(r_, 32)));
      case FieldDescriptor::TYPE_SINT64:
        return WFL::ZigZagEncode64(static_cast<int64_t>(RandomBits(r_, 64)));
      case FieldDescriptor::TYPE_FLOAT: return WFL::EncodeFloat(RandomFloat(r_));
      case FieldDescriptor::TYPE_DOUBLE: return WFL::EncodeDouble(RandomDouble(r_));
      case FieldDescriptor::TYPE_BOOL: return r_.Chance(0.5) ? 1 : 0;
      case FieldDescriptor::TYPE_ENUM:
        return static_cast<uint64_t>(int64_t{RandomEnumValue(r_, f, true)});
      default: return RandomBits(r_, 64);
    }
  }

  // Writes the value part of a varint/fixed field. Non-canonical forms:
  // overlong varints; int32/uint32/sint32/enum varints with garbage above
  // bit 31 (libprotobuf keeps the low 32 bits); bools as any non-zero varint.
  void PutScalarValue(std::string *s, const FieldDescriptor *f, uint64_t raw, bool canonical) {
    switch (WireTypeOf(f)) {
      case WFL::WIRETYPE_FIXED32: PutFixed32(s, static_cast<uint32_t>(raw)); return;
      case WFL::WIRETYPE_FIXED64: PutFixed64(s, raw); return;
      case WFL::WIRETYPE_VARINT: break;
      default: Die("PutScalarValue: not a scalar");
    }
    // An undeclared value of a closed enum ends up in the unknown fields,
    // which libprotobuf re-encodes canonically (and keeps as the raw 64-bit
    // varint from packed runs but as a sign-extended int32 from single
    // records): only its canonical form has one right answer.
    if (f->type() == FieldDescriptor::TYPE_ENUM && !IsOpenEnum(f) &&
        !f->enum_type()->FindValueByNumber(static_cast<int32_t>(raw)))
      canonical = true;
    if (!canonical && r_.Chance(0.08)) {
      switch (f->type()) {
        case FieldDescriptor::TYPE_INT32:
        case FieldDescriptor::TYPE_UINT32:
        case FieldDescriptor::TYPE_SINT32:
        case FieldDescriptor::TYPE_ENUM:
          raw = (raw & 0xffffffffULL) | (r_.Next() << 32);
          break;
        case FieldDescriptor::TYPE_BOOL:
          if (raw != 0) {
            raw = r_.Next();
            if (raw == 0) raw = 2;
          }
          break;
        default:
          break;
      }
    }
    PutVarint(s, raw, 10, canonical ? 0.0 : 0.08);
  }

  void PutScalarField(std::string *s, const FieldDescriptor *f, uint64_t raw) {
    // A record with an undeclared closed-enum value ends up in the unknown
    // fields as it is (pbc) or re-encoded (libprotobuf): canonical tag too.
    bool undeclared = f->type() == FieldDescriptor::TYPE_ENUM && !IsOpenEnum(f) &&
                      !f->enum_type()->FindValueByNumber(static_cast<int32_t>(raw));
    PutTag(s, f->number(), WireTypeOf(f), undeclared);
    PutScalarValue(s, f, raw, false);
  }

  void PutLenField(std::string *s, int number, const std::string &payload) {
    PutTag(s, number, WFL::WIRETYPE_LENGTH_DELIMITED, false);
    PutLength(s, payload.size(), false);
    *s += payload;
  }

  std::string SubMessage(const FieldDescriptor *f, const Message &sub, int depth, bool whole) {
    std::string s;
    std::string body = Encode(sub, depth + 1, whole);
    if (f->type() == FieldDescriptor::TYPE_GROUP) {
      PutTag(&s, f->number(), WFL::WIRETYPE_START_GROUP, false);
      s += body;
      PutTag(&s, f->number(), WFL::WIRETYPE_END_GROUP, false);
    } else {
      PutLenField(&s, f->number(), body);
    }
    return s;
  }

  // ---- per-field chunks: the field's occurrences, in the order they must
  // stay in.
  std::vector<std::string> Chunks(const Message &m, const FieldDescriptor *f, int depth,
                                  bool whole, bool enum_unknown_ok) {
    const Reflection *R = m.GetReflection();
    std::vector<std::string> out;
    // Closed-enum values the enum does not declare become unknown fields
    // where they are read; not in a message with extensions, whose unknown
    // fields must follow the extensions on the wire (see Encode).
    bool undeclared = unknown_ && enum_unknown_ok && f->type() == FieldDescriptor::TYPE_ENUM &&
                      !IsOpenEnum(f);
    if (f->is_repeated()) {
      int n = R->FieldSize(m, f);
      if (IsMessageLike(f)) {
        for (int i = 0; i < n; i++)
          out.push_back(SubMessage(f, R->GetRepeatedMessage(m, f, i), depth, true));
      } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
        for (int i = 0; i < n; i++) {
          std::string s;
          PutLenField(&s, f->number(), R->GetRepeatedString(m, f, i));
          out.push_back(s);
        }
      } else {
        std::vector<uint64_t> raws;
        for (int i = 0; i < n; i++) raws.push_back(RawRepeated(m, f, i));
        std::vector<uint64_t> packed_raws;
        if (undeclared && r_.Chance(0.3)) {
          // Undeclared values of a closed enum go to the unknown fields.
          size_t at = static_cast<size_t>(r_.Below(raws.size() + 1));
          uint64_t v = static_cast<uint64_t>(int64_t{UndeclaredEnumValue(r_, f)});
          raws.insert(raws.begin() + static_cast<std::ptrdiff_t>(at), v);
          stats_->unknown = true;
          if (r_.Chance(0.3)) {
            // In a packed run, a varint that is not the int32's canonical
            // form: the 32 bits zero-extended (5 bytes for a negative), or
            // garbage above bit 31 (the low 32 bits still undeclared).
            // libprotobuf 3.21 (generated code and DynamicMessage alike)
            // keeps the 64-bit value read and writes it as a varint record
            // of its own. Single records only get the canonical int32 form
            // (there the two libprotobuf parsers differ).
            packed_raws = raws;
            packed_raws[at] = (v & 0xffffffffULL) |
                              (r_.Chance(0.5) ? 0 : (r_.Next() | 1) << 32);
          }
        }
        PackedRuns(f, raws, &out, packed_raws.empty() ? nullptr : &packed_raws);
      }
      return out;
    }
    // A oneof member: sometimes earlier occurrences of members of the same
    // oneof (the last one read wins; a message member set again after
    // another member starts afresh). Only in a whole message: in one part of
    // a split message they would cut off what an earlier part set.
    if (const gp::OneofDescriptor *o = f->real_containing_oneof();
        o && whole && o->field_count() > 1 && r_.Chance(0.25)) {
      const FieldDescriptor *last = nullptr;
      if (IsMessageLike(f) && r_.Chance(0.4)) {
        out.push_back(Occurrence(f, depth));  // message, other member, message
        last = f;
      }
      int k = static_cast<int>(r_.Range(1, 2));
      for (int i = 0; i < k; i++) {
        last = o->field(static_cast<int>(r_.Below(o->field_count())));
        out.push_back(Occurrence(last, depth));
      }
      if (last == f && IsMessageLike(f)) {
        // Right before the real one it would merge with it: put another
        // member in between.
        const FieldDescriptor *g = f;
        while (g == f) g = o->field(static_cast<int>(r_.Below(o->field_count())));
        out.push_back(Occurrence(g, depth));
      }
    }
    if (IsMessageLike(f)) {
      const Message &sub = R->GetMessage(m, f);
      if (r_.Chance(0.3) && !HasOpaque(sub)) {
        // Two or three occurrences whose merge is `sub`.
        std::unique_ptr<Message> a(sub.New()), b(sub.New());
        Split(sub, a.get(), b.get());
        if (r_.Chance(0.3)) {
          std::unique_ptr<Message> b1(sub.New()), b2(sub.New());
          Split(*b, b1.get(), b2.get());
          out.push_back(SubMessage(f, *a, depth, false));
          out.push_back(SubMessage(f, *b1, depth, false));
          out.push_back(SubMessage(f, *b2, depth, false));
        } else {
          out.push_back(SubMessage(f, *a, depth, false));
          out.push_back(SubMessage(f, *b, depth, false));
        }
      } else {
        out.push_back(SubMessage(f, sub, depth, whole));
      }
      return out;
    }
    // Singular scalar: sometimes earlier occurrences with other values.
    int earlier = r_.Chance(0.25) ? static_cast<int>(r_.Range(1, 2)) : 0;
    for (int i = 0; i < earlier; i++) out.push_back(Occurrence(f, depth));
    std::string s;
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING)
      PutLenField(&s, f->number(), R->GetString(m, f));
    else
      PutScalarField(&s, f, RawSingular(m, f));
    out.push_back(s);
    if (undeclared && r_.Chance(0.2)) {
      // An undeclared value, before or after the real one: it does not
      // replace the field's value (nor the member of its oneof) but lands
      // in the unknown fields.
      std::string u;
      PutTag(&u, f->number(), WFL::WIRETYPE_VARINT, true);
      PutCanonicalVarint(&u, static_cast<uint64_t>(int64_t{UndeclaredEnumValue(r_, f)}));
      out.insert(r_.Chance(0.5) ? out.begin() : out.end(), u);
      stats_->unknown = true;
    }
    return out;
  }

  // One occurrence of field f with a random value (a small random message
  // for messages and groups).
  std::string Occurrence(const FieldDescriptor *f, int depth) {
    std::string s;
    if (IsMessageLike(f)) {
      std::unique_ptr<Message> junk(schema_.factory->GetPrototype(f->message_type())->New());
      Filler(r_, schema_, 2).Fill(junk.get(), 1);
      return SubMessage(f, *junk, depth, true);
    }
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING)
      PutLenField(&s, f->number(), RandomStringFor(r_, f));
    else
      PutScalarField(&s, f, RandomRaw(f));
    return s;
  }

  // libprotobuf's bytes for one extension of m (for a message set: its
  // items).
  std::string ExtensionBytes(const Message &m, const FieldDescriptor *f) {
    std::unique_ptr<Message> only(m.New());
    const Reflection *R = m.GetReflection();
    if (f->is_repeated()) {
      for (int i = 0; i < R->FieldSize(m, f); i++)
        CopyElement(m, f, i, only.get(), schema_.factory.get());
    } else {
      CopySingular(m, f, only.get(), schema_.factory.get());
    }
    return LibBytes(only.get());
  }

  // ---- maps
  // The entries in key order (libprotobuf's deterministic order), each one
  // written in any of the forms libprotobuf accepts: key and value in either
  // order, a default key or value left out, a key or value written twice,
  // a message value split in two, an unknown field inside (dropped).
  // Sometimes an entry is preceded by one with the same key and another
  // value, which it replaces (the key keeps the first entry's position in
  // pbc, so this stays in key order), the real entry moved further down
  // now and then. Sometimes the entries are shuffled: then pbc's order is
  // not libprotobuf's, and the outputs are compared after normalizing.
  std::vector<std::string> MapChunks(const Message &m, const FieldDescriptor *f, int depth) {
    std::vector<const Message *> entries = SortedEntries(m, f);
    // (chunk, index of its key among `entries`)
    std::vector<std::pair<std::string, size_t>> out;
    std::vector<std::pair<size_t, std::pair<std::string, size_t>>> deferred;
    for (size_t k = 0; k < entries.size(); k++) {
      const Message *e = entries[k];
      if (r_.Chance(0.08)) {
        // Replaced by the real one (which may come further down).
        std::unique_ptr<Message> junk(e->New());
        junk->CopyFrom(*e);
        RandomizeValue(junk.get());
        out.push_back({EntryChunk(f, *junk, depth), k});
        if (r_.Chance(0.5)) {
          deferred.push_back({out.size() - 1, {EntryChunk(f, *e, depth), k}});
          continue;
        }
      }
      out.push_back({EntryChunk(f, *e, depth), k});
    }
    for (size_t i = deferred.size(); i-- > 0;) {
      size_t lo = deferred[i].first + 1;
      size_t at = lo + static_cast<size_t>(r_.Below(out.size() - lo + 1));
      out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), deferred[i].second);
    }
    if (out.size() >= 2 && shuffle_maps_ && r_.Chance(0.5)) {
      // Shuffled, but the entries of one key stay in their order (the last
      // one wins).
      std::vector<size_t> keys;
      for (auto &c : out) keys.push_back(c.second);
      for (size_t i = keys.size() - 1; i > 0; i--)
        std::swap(keys[i], keys[static_cast<size_t>(r_.Below(i + 1))]);
      std::map<size_t, std::vector<std::string>> by_key;
      for (auto &c : out) by_key[c.second].push_back(c.first);
      std::map<size_t, size_t> used;
      for (size_t i = 0; i < out.size(); i++)
        out[i] = {by_key[keys[i]][used[keys[i]]++], keys[i]};
      stats_->map_order = true;
    }
    std::vector<std::string> chunks;
    for (auto &c : out) chunks.push_back(std::move(c.first));
    return chunks;
  }

  void RandomizeValue(Message *entry) {
    const FieldDescriptor *vf = entry->GetDescriptor()->map_value();
    const Reflection *R = entry->GetReflection();
    if (IsMessageLike(vf)) {
      R->ClearField(entry, vf);
      Message *v = R->MutableMessage(entry, vf, schema_.factory.get());
      if (r_.Chance(0.8) || !v->IsInitialized()) Filler(r_, schema_, 2).Fill(v, 1);
    } else {
      SetRandom(entry, vf);
    }
  }

  static bool IsZeroScalar(const Message &m, const FieldDescriptor *f) {
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING)
      return m.GetReflection()->GetString(m, f).empty();
    return RawSingular(m, f) == 0;
  }

  std::string ScalarRecord(const Message &m, const FieldDescriptor *f) {
    std::string s;
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING)
      PutLenField(&s, f->number(), m.GetReflection()->GetString(m, f));
    else
      PutScalarField(&s, f, RawSingular(m, f));
    return s;
  }

  std::string EntryChunk(const FieldDescriptor *f, const Message &e, int depth) {
    const FieldDescriptor *kf = f->message_type()->map_key();
    const FieldDescriptor *vf = f->message_type()->map_value();
    const Reflection *R = e.GetReflection();
    std::string key, value;
    if (!(IsZeroScalar(e, kf) && r_.Chance(0.3))) {
      if (r_.Chance(0.04)) key += Occurrence(kf, depth + 1);
      key += ScalarRecord(e, kf);
    }
    if (IsMessageLike(vf)) {
      const Message &v = R->GetMessage(e, vf);
      bool empty = v.ByteSizeLong() == 0;
      if (empty && r_.Chance(0.3)) {
        // Left out: the value is an empty message.
      } else if (!empty && !HasOpaque(v) && r_.Chance(0.15)) {
        std::unique_ptr<Message> a(v.New()), b(v.New());
        Split(v, a.get(), b.get());
        value += SubMessage(vf, *a, depth + 1, false);
        value += SubMessage(vf, *b, depth + 1, false);
      } else {
        value += SubMessage(vf, v, depth + 1, true);
      }
    } else if (!(IsZeroScalar(e, vf) && r_.Chance(0.3))) {
      if (r_.Chance(0.04)) value += Occurrence(vf, depth + 1);
      value += ScalarRecord(e, vf);
    }
    std::string body = r_.Chance(0.2) ? value + key : key + value;
    if (r_.Chance(0.03)) {
      std::string u = UnknownField(f->message_type(), depth + 1);
      body = r_.Chance(0.5) ? u + body : body + u;
    }
    std::string s;
    PutLenField(&s, f->number(), body);
    return s;
  }

  // Repeated scalars: the schema's form (one packed run, or one record per
  // element), or any mix of packed runs and single records, with empty
  // packed runs thrown in.
  // `packed_raws` (if not NULL): the values to write in packed runs instead.
  void PackedRuns(const FieldDescriptor *f, const std::vector<uint64_t> &raws,
                  std::vector<std::string> *out,
                  const std::vector<uint64_t> *packed_raws = nullptr) {
    bool canonical_shape = r_.Chance(0.35);
    size_t i = 0;
    while (i < raws.size()) {
      size_t len = canonical_shape ? raws.size()
                                   : static_cast<size_t>(r_.Range(1, static_cast<int64_t>(raws.size() - i)));
      bool packed = canonical_shape ? f->is_packed() : r_.Chance(0.5);
      if (packed) {
        std::string body;
        for (size_t k = i; k < i + len; k++)
          PutScalarValue(&body, f, packed_raws ? (*packed_raws)[k] : raws[k], false);
        std::string s;
        PutLenField(&s, f->number(), body);
        out->push_back(s);
      } else {
        for (size_t k = i; k < i + len; k++) {
          std::string s;
          PutScalarField(&s, f, raws[k]);
          out->push_back(s);
        }
      }
      i += len;
    }
    if (r_.Chance(0.08)) {
      std::string s;
      PutLenField(&s, f->number(), "");
      out->insert(out->begin() + static_cast<std::ptrdiff_t>(r_.Below(out->size() + 1)), s);
    }
  }

  // Two partial messages whose merge (a then b) equals src.
  void Split(const Message &src, Message *a, Message *b) {
    const Reflection *R = src.GetReflection();
    gp::MessageFactory *factory = schema_.factory.get();
    std::vector<const FieldDescriptor *> fields;
    R->ListFields(src, &fields);
    for (const FieldDescriptor *f : fields) {
      if (f->is_map()) {
        // The smaller keys to a, the others to b: in key order on the wire.
        std::vector<const Message *> entries = SortedEntries(src, f);
        size_t k = static_cast<size_t>(r_.Below(entries.size() + 1));
        for (size_t i = 0; i < entries.size(); i++) {
          Message *dst = i < k ? a : b;
          dst->GetReflection()->AddMessage(dst, f, factory)->CopyFrom(*entries[i]);
        }
        continue;
      }
      if (f->is_repeated()) {
        int n = R->FieldSize(src, f);
        int k = static_cast<int>(r_.Below(static_cast<uint64_t>(n) + 1));
        for (int i = 0; i < n; i++) CopyElement(src, f, i, i < k ? a : b, factory);
        continue;
      }
      uint64_t how = r_.Below(3);
      if (IsMessageLike(f)) {
        if (how == 2) {
          Split(R->GetMessage(src, f), a->GetReflection()->MutableMessage(a, f, factory),
                b->GetReflection()->MutableMessage(b, f, factory));
        } else {
          CopySingular(src, f, how == 0 ? a : b, factory);
        }
        continue;
      }
      if (how == 2) {
        // a has another value that b's overrides.
        std::unique_ptr<Message> other(src.New());
        SetRandom(other.get(), f);
        CopySingular(*other, f, a, factory);
        CopySingular(src, f, b, factory);
      } else {
        CopySingular(src, f, how == 0 ? a : b, factory);
      }
    }
  }

  void SetRandom(Message *m, const FieldDescriptor *f) { SetRandomValue(r_, m, f); }

  // Whether a number is a field's or a declared extension's of d. A number
  // in an extension range that no extension declares is an unknown field
  // like any other (and must be, or a message with `extensions 1 to max`,
  // unittest.proto's TestAllExtensions, would have no unknown numbers).
  static bool NumberTaken(const Descriptor *d, int number) {
    return d && (d->FindFieldByNumber(number) ||
                 d->file()->pool()->FindExtensionByNumber(d, number));
  }

 public:
  // An unknown field as libprotobuf never writes one: overlong tags, value
  // and length varints, nested groups (their end tags overlong too). pbc
  // keeps unknown fields raw and must give it back byte for byte;
  // libprotobuf re-encodes it canonically.
  std::string RawUnknownField(const Descriptor *d, int depth) {
    int number;
    do {
      number = r_.Chance(0.5) ? static_cast<int>(r_.Range(1, 300))
                              : static_cast<int>(r_.Range(1, (1 << 29) - 1));
    } while (NumberTaken(d, number));
    static const WFL::WireType kTypes[] = {WFL::WIRETYPE_VARINT, WFL::WIRETYPE_FIXED64,
                                           WFL::WIRETYPE_LENGTH_DELIMITED,
                                           WFL::WIRETYPE_START_GROUP, WFL::WIRETYPE_FIXED32};
    WFL::WireType wt = kTypes[r_.Below(5)];
    if (wt == WFL::WIRETYPE_START_GROUP && depth > 2) wt = WFL::WIRETYPE_FIXED32;
    std::string s;
    PutVarint(&s, WFL::MakeTag(number, wt), 5, 0.6);
    switch (wt) {
      case WFL::WIRETYPE_VARINT: PutVarint(&s, RandomBits(r_, 64), 10, 0.6); break;
      case WFL::WIRETYPE_FIXED64: PutFixed64(&s, r_.Next()); break;
      case WFL::WIRETYPE_FIXED32: PutFixed32(&s, static_cast<uint32_t>(r_.Next())); break;
      case WFL::WIRETYPE_LENGTH_DELIMITED: {
        std::string payload = RandomBytes(r_, static_cast<size_t>(r_.Range(0, 20)));
        PutVarint(&s, payload.size(), 5, 0.6);
        s += payload;
        break;
      }
      case WFL::WIRETYPE_START_GROUP: {
        int n = static_cast<int>(r_.Range(0, 3));
        for (int i = 0; i < n; i++) s += RawUnknownField(nullptr, depth + 1);
        PutVarint(&s, WFL::MakeTag(number, WFL::WIRETYPE_END_GROUP), 5, 0.6);
        break;
      }
      default: break;
    }
    return s;
  }

 private:
  // An unknown field, canonically encoded (libprotobuf re-encodes unknown
  // fields canonically, so only canonical ones are comparable byte for
  // byte with a decoder that keeps them raw): an unused field number, or a
  // known number with a wire type its field cannot have.
  std::string UnknownField(const Descriptor *d, int depth) {
    stats_->unknown = true;
    int number = 0;
    WFL::WireType wt = static_cast<WFL::WireType>(0);
    static const WFL::WireType kTypes[] = {WFL::WIRETYPE_VARINT, WFL::WIRETYPE_FIXED64,
                                           WFL::WIRETYPE_LENGTH_DELIMITED,
                                           WFL::WIRETYPE_START_GROUP, WFL::WIRETYPE_FIXED32};
    if (d && d->field_count() > 0 && r_.Chance(0.3)) {
      const FieldDescriptor *f = d->field(static_cast<int>(r_.Below(d->field_count())));
      std::vector<WFL::WireType> bad;
      for (WFL::WireType t : kTypes) {
        if (t == WireTypeOf(f)) continue;
        if (f->is_packable() && t == WFL::WIRETYPE_LENGTH_DELIMITED) continue;
        if (t == WFL::WIRETYPE_START_GROUP && depth > 3) continue;  // keep nesting bounded
        bad.push_back(t);
      }
      number = f->number();
      wt = bad[r_.Below(bad.size())];
    } else {
      do {
        number = r_.Chance(0.5) ? static_cast<int>(r_.Range(1, 300))
                                : static_cast<int>(r_.Range(1, (1 << 29) - 1));
      } while (NumberTaken(d, number));
      wt = kTypes[r_.Below(5)];
      if (wt == WFL::WIRETYPE_START_GROUP && depth > 3) wt = WFL::WIRETYPE_VARINT;
    }
    std::string s;
    PutTag(&s, number, wt, true);
    switch (wt) {
      case WFL::WIRETYPE_VARINT: PutCanonicalVarint(&s, RandomBits(r_, 64)); break;
      case WFL::WIRETYPE_FIXED64: PutFixed64(&s, r_.Next()); break;
      case WFL::WIRETYPE_FIXED32: PutFixed32(&s, static_cast<uint32_t>(r_.Next())); break;
      case WFL::WIRETYPE_LENGTH_DELIMITED: {
        std::string payload = RandomBytes(r_, static_cast<size_t>(r_.Range(0, 40)));
        PutCanonicalVarint(&s, payload.size());
        s += payload;
        break;
      }
      case WFL::WIRETYPE_START_GROUP: {
        int n = static_cast<int>(r_.Range(0, 3));
        for (int i = 0; i < n; i++) s += UnknownField(nullptr, depth + 1);
        PutTag(&s, number, WFL::WIRETYPE_END_GROUP, true);
        break;
      }
      default: break;
    }
    return s;
  }

  Rng &r_;
  const Schema &schema_;
  bool unknown_;
  VariantStats *stats_;
  // Map entries out of key order in this encoding (then pbc's order is not
  // libprotobuf's, and only a normalized comparison is possible).
  bool shuffle_maps_;
};

// ---------------------------------------------------------------------------
// Poisoned inputs (check (e))

struct FieldSlot {
  Message *msg;
  const FieldDescriptor *field;
};

// Where a proto3 string could hold invalid UTF-8 (map keys and values
// too), and the required fields that are set, anywhere in the tree: inside
// oneof members, map values and groups too, but not inside extensions (pbc
// keeps those as raw bytes and cannot see into them) nor message sets.
void CollectSlots(Message *m, std::vector<FieldSlot> *utf8, std::vector<FieldSlot> *required) {
  const Descriptor *d = m->GetDescriptor();
  const Reflection *R = m->GetReflection();
  for (int i = 0; i < d->field_count(); i++) {
    const FieldDescriptor *f = d->field(i);
    if (NeedsUtf8(f)) utf8->push_back({m, f});
    if (f->is_required() && R->HasField(*m, f)) required->push_back({m, f});
  }
  std::vector<const FieldDescriptor *> fields;
  R->ListFields(*m, &fields);
  for (const FieldDescriptor *f : fields) {
    if (!IsMessageLike(f) || f->is_extension() || IsMessageSetField(f)) continue;
    if (f->is_repeated()) {
      // Map entries too (their key and value fields, their message values).
      for (int k = 0; k < R->FieldSize(*m, f); k++)
        CollectSlots(R->MutableRepeatedMessage(m, f, k), utf8, required);
    } else {
      CollectSlots(R->MutableMessage(m, f), utf8, required);
    }
  }
}

bool HasExtensions(const Message &m) { return HasExtensionsIn(m, false); }

int UnknownGroupDepth(const gp::UnknownFieldSet &u) {
  int depth = 0;
  for (int i = 0; i < u.field_count(); i++)
    if (u.field(i).type() == gp::UnknownField::TYPE_GROUP)
      depth = std::max(depth, 1 + UnknownGroupDepth(u.field(i).group()));
  return depth;
}

// How deep libprotobuf's recursion limit sees m's tree: each sub-message or
// group one level (a map entry one, its message value another), unknown
// groups included.
int NestingDepth(const Message &m) {
  const Reflection *R = m.GetReflection();
  int depth = UnknownGroupDepth(R->GetUnknownFields(m));
  std::vector<const FieldDescriptor *> fields;
  R->ListFields(m, &fields);
  for (const FieldDescriptor *f : fields) {
    if (!IsMessageLike(f)) continue;
    if (f->is_map() && IsMessageLike(f->message_type()->map_value())) {
      // The value is written (and read) even when it is not set.
      const FieldDescriptor *vf = f->message_type()->map_value();
      for (int i = 0; i < R->FieldSize(m, f); i++) {
        const Message &e = R->GetRepeatedMessage(m, f, i);
        depth = std::max(depth, 2 + NestingDepth(e.GetReflection()->GetMessage(e, vf)));
      }
    } else if (f->is_repeated()) {
      for (int i = 0; i < R->FieldSize(m, f); i++)
        depth = std::max(depth, 1 + NestingDepth(R->GetRepeatedMessage(m, f, i)));
    } else {
      depth = std::max(depth, 1 + NestingDepth(R->GetMessage(m, f)));
    }
  }
  return depth;
}

std::string InvalidUtf8(Rng &r) {
  static const char *const kBad[] = {
      "\xff", "\xc0\x80" /* overlong NUL */, "\xc1\xbf", "\xe0\x80\x80",
      "\xed\xa0\x80" /* surrogate */, "\xed\xbf\xbf", "\xf4\x90\x80\x80" /* > U+10FFFF */,
      "\xf8\x88\x80\x80\x80", "\x80", "\xbf", "\xe2\x82" /* cut short */, "\xf0\x9f\x98",
      "\xc3", "\xfe"};
  std::string bad = kBad[r.Below(sizeof kBad / sizeof kBad[0])];
  std::string pre = RandomUtf8(r, static_cast<size_t>(r.Range(0, r.Chance(0.2) ? 100 : 10)));
  std::string post = RandomUtf8(r, static_cast<size_t>(r.Range(0, r.Chance(0.2) ? 100 : 10)));
  return pre + bad + post;
}

// ---------------------------------------------------------------------------
// The checks

struct Options {
  std::vector<std::string> proto_paths;
  std::string proto;
  std::string message;
  uint64_t cases = 1000;
  uint64_t seed = 20240601;
  int max_depth = 4;
  bool unknown_fields = false;
  int mutations = 0;
  long long only_case = -1;
  // every sample-th case (PBC_DIFFTEST_SAMPLE), 1: all of them
  uint64_t sample = 1;
  std::string dump_dir;
  bool verbose = false;
  // what the library was compiled with (pbc compile --optimize-for), which
  // the description checks need to know
  std::string optimize_for;
  // --runtime-schema: the messages are pbc_schema_load's, from the
  // schema's descriptors serialized as a FileDescriptorSet, not the linked
  // library's (whose descriptions they must equal, record for record)
  bool runtime_schema = false;
  // random mode with a writer schema (--writer-proto): the random messages
  // are made and serialized with it, then read with --proto (a reduced
  // copy, see `reduce`), so the reader sees real unknown fields.
  std::vector<std::string> writer_proto_paths;
  std::string writer_proto;
  // reduce mode
  std::string reduce_out;
  // one given input
  std::string hex;
  // dataset mode
  std::string dataset;
  std::vector<std::string> dataset_proto_paths;
  std::string dataset_proto;
};

struct Context {
  const Options *opts;
  const Schema *schema;
  std::string label;  // "case 17" / "payload 3"
  std::string replay; // extra flags that replay just this, "--only-case 17"
  const Message *message = nullptr;  // the message under test, if any
};

struct Failure {
  std::string check;
  std::string detail;
  std::string input;
  bool has_lib = false, has_pbc = false;
  std::string lib_out, pbc_out;
};

void ReportFailure(const Context &ctx, const Descriptor *d, const Failure &f) {
  fprintf(stdout, "FAIL: %s of %s, seed %" PRIu64 ", check %s\n", ctx.label.c_str(),
          d->full_name().c_str(), ctx.opts->seed, f.check.c_str());
  fprintf(stdout, "  %s\n", f.detail.c_str());
  size_t focus = 0;
  if (f.has_lib && f.has_pbc) {
    focus = FirstDifference(f.lib_out, f.pbc_out);
    if (f.lib_out != f.pbc_out)
      fprintf(stdout, "  outputs first differ at byte %zu\n", focus);
  }
  PrintHex("input", f.input, focus);
  if (f.has_lib) PrintHex("libprotobuf output", f.lib_out, focus);
  if (f.has_pbc) PrintHex("pbc output", f.pbc_out, focus);
  if (!g_last_log.empty())
    fprintf(stdout, "  last libprotobuf log: %s\n", g_last_log.c_str());
  if (ctx.message) {
    std::string text = ctx.message->DebugString();
    if (text.size() > 6000) text = text.substr(0, 6000) + "...(cut)\n";
    fprintf(stdout, "  message under test (text format):\n%s", text.c_str());
  }
  if (!ctx.opts->dump_dir.empty()) {
    auto dump = [&](const char *name, const std::string &data) {
      std::string path = ctx.opts->dump_dir + "/" + name;
      std::ofstream o(path, std::ios::binary);
      o.write(data.data(), static_cast<std::streamsize>(data.size()));
      fprintf(stdout, "  wrote %s\n", path.c_str());
    };
    dump("input.bin", f.input);
    if (f.has_lib) dump("libprotobuf.bin", f.lib_out);
    if (f.has_pbc) dump("pbc.bin", f.pbc_out);
  }
  fflush(stdout);
}

// A map entry with unknown fields whose value is a closed enum, anywhere
// in m as DynamicMessage parsed it: an undeclared value, which
// DynamicMessage keeps inside the entry (and NormalizeMaps drops with the
// entry's unknown fields) where generated code and pbc move the whole entry
// to the message's unknown fields. DynamicMessage is no reference for such
// an input; (g) checks these against generated code's rule.
bool ClosedEnumInMapEntry(const Message &m) {
  const Reflection *R = m.GetReflection();
  std::vector<const FieldDescriptor *> fields;
  R->ListFields(m, &fields);
  for (const FieldDescriptor *f : fields) {
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    int n = f->is_repeated() ? R->FieldSize(m, f) : 1;
    for (int i = 0; i < n; i++) {
      const Message &sub = f->is_repeated() ? R->GetRepeatedMessage(m, f, i) : R->GetMessage(m, f);
      if (f->is_map()) {
        const FieldDescriptor *v = f->message_type()->map_value();
        if (v->enum_type() != nullptr && !IsOpenEnum(v) &&
            sub.GetReflection()->GetUnknownFields(sub).field_count() > 0)
          return true;
      }
      if (ClosedEnumInMapEntry(sub)) return true;
    }
  }
  return false;
}

// Required fields that libprotobuf finds missing only inside extensions
// (its error paths name extensions in parentheses): pbc keeps extensions as
// raw bytes, so for pbc nothing is missing.
bool MissingOnlyInExtensions(const Message &m) {
  std::vector<std::string> errors;
  m.FindInitializationErrors(&errors);
  if (errors.empty()) return false;
  for (const std::string &e : errors)
    if (e.find('(') == std::string::npos) return false;
  return true;
}

enum class Compare {
  kExact,       // pbc's output == libprotobuf's (deterministic) re-serialization
  kNormalized,  // equal after a libprotobuf round trip of both (mutations)
  kReordered,   // kNormalized, and of the same size (map entries out of key
                // order: pbc keeps their order, libprotobuf sorts them)
};

// What Checker::Same expects.
struct Expect {
  // The input is built to be invalid: libprotobuf must reject it (else the
  // harness is wrong) and pbc must return `status`.
  bool must_reject = false;
  // When libprotobuf rejects the input, the error pbc must return (PBC_OK:
  // any error).
  pbc_status status = PBC_OK;
  Compare compare = Compare::kExact;
  // Harness self-check: libprotobuf's re-serialization must be this.
  const std::string *expect_lib = nullptr;
  // pbc decodes through pbc_decode with these options.
  const pbc_decode_options *options = nullptr;
  // libprotobuf parses through a CodedInputStream with this recursion limit
  // (-1: ParseFromString, whose limit is 100).
  int lib_recursion_limit = -1;
  // libprotobuf parses with ParsePartial (missing required fields allowed).
  bool partial = false;
};

class Checker {
 public:
  Checker(const Context &ctx, const Descriptor *d, PbcMessage *pbc, Rng &r)
      : ctx_(ctx), d_(d), pbc_(pbc), r_(r) {}

  const Failure &failure() const { return failure_; }

  // Notes what runs (for the crash handler) and, with --dump-dir, saves the
  // input first so that a crash leaves it behind.
  void Enter(const char *check, const std::string &input) {
    snprintf(g_where, sizeof g_where,
             "%s of %s, check %s, input %zu bytes (replay: --seed %" PRIu64 "%s%s)",
             ctx_.label.c_str(), d_->full_name().c_str(), check, input.size(), ctx_.opts->seed,
             ctx_.replay.empty() ? "" : " ", ctx_.replay.c_str());
    if (!ctx_.opts->dump_dir.empty()) {
      std::ofstream o(ctx_.opts->dump_dir + "/input.bin", std::ios::binary);
      o.write(input.data(), static_cast<std::streamsize>(input.size()));
    }
  }

  // (a) + (b): `bytes` is libprotobuf's serialization of `msg`.
  bool Canonical(const std::string &bytes) {
    g_stats["forward+reverse"].first++;
    Enter("forward+reverse", bytes);
    std::string err;
    pbc_status s = pbc_->Decode(bytes, r_.Chance(0.5), r_.Chance(0.3), &err);
    if (!err.empty()) return Fail("forward decode", err, bytes);
    if (s != PBC_OK)
      return Fail("forward decode",
                  std::string("pbc rejected libprotobuf's serialization: ") + StatusName(s), bytes);
    if (!pbc_->IsInitialized())
      return Fail("forward decode", "is_initialized is false after a successful decode", bytes);
    size_t n = pbc_message_encoded_size(pbc_->info(), pbc_->mem());
    if (n != bytes.size())
      return Fail("forward encoded_size",
                  "pbc encoded_size " + std::to_string(n) + " != libprotobuf size " +
                      std::to_string(bytes.size()),
                  bytes);
    std::string out;
    if (!pbc_->Encode(&out, &err)) return Fail("forward encode", err, bytes);
    if (out != bytes)
      return Fail("forward encode", "pbc re-encoding differs from libprotobuf's bytes", bytes,
                  &bytes, &out);
    if (!pbc_->EncodeIntoLargerBuffers(out, &err)) return Fail("forward encode", err, bytes);
    if (Opaque()) return true;
    // (b) reverse: libprotobuf reads pbc's bytes back.
    std::unique_ptr<Message> back = ctx_.schema->New(d_);
    if (!back->ParseFromString(out))
      return Fail("reverse", "libprotobuf cannot parse pbc's output", bytes, nullptr, &out);
    std::string again = LibBytes(back.get());
    if (again != bytes)
      return Fail("reverse", "libprotobuf's re-serialization of pbc's output differs", bytes,
                  &again, &out);
    return true;
  }

  // (a') Read through its description alone (pbc/field.h's getters), the
  // struct Canonical decoded last holds msg's values; and msg's fields set
  // into a new struct through the setters make libprotobuf's message.
  bool Described(const Message &msg, const std::string &bytes) {
    std::string why;
    if (!pbc_test::DecodedMatches(msg, pbc_->info(), pbc_->mem(), &why))
      return Fail("description", why, bytes);
    g_stats["built through pbc/field.h"].first++;
    if (!pbc_test::BuiltMatches(msg, pbc_->info(), r_.Next(), &why))
      return Fail("field setters", why, bytes);
    return true;
  }

  // What a printer (`print` into a buffer, `write` into a writer; `name`
  // their prefix) makes of the struct is `want`: its length asked with no
  // buffer, its text, its prefix in a buffer one byte short, and through a
  // writer of 5-byte chunks. `same` may accept a text that differs.
  bool SamePrinted(const char *form, const std::string &name, const std::string &want,
                   const std::string &bytes,
                   const std::function<pbc_status(char *, size_t, size_t *)> &print,
                   const std::function<pbc_status(pbc_writer *)> &write,
                   const std::function<bool(const std::string &)> &same = nullptr) {
    size_t n = 0;
    pbc_status s = print(nullptr, 0, &n);
    std::string got(n, '\0');
    pbc_status full = print(got.data(), n, nullptr);
    std::string expected = full == PBC_OK && got != want && same && same(got) ? got : want;
    if (full == PBC_OK && got != expected) {
      size_t at = 0;
      while (at < got.size() && at < want.size() && got[at] == want[at]) at++;
      size_t from = at < 60 ? 0 : at - 60;
      return Fail(form,
                  name + "_print differs from libprotobuf's at byte " + std::to_string(at) +
                      ":\n--- libprotobuf:\n" + want.substr(from, 120) + "\n--- pbc:\n" +
                      got.substr(from, 120) + "\n---",
                  bytes, &want, &got);
    }
    if (s != (expected.empty() ? PBC_OK : PBC_ERR_BUFFER_TOO_SMALL) || n != expected.size() ||
        full != PBC_OK)
      return Fail(form,
                  std::string("asking for the length: ") + StatusName(s) + ", " +
                      std::to_string(n) + " bytes, libprotobuf printed " +
                      std::to_string(want.size()) + "; printing: " + StatusName(full),
                  bytes, &want);
    if (!expected.empty()) {
      std::string shorter(expected.size() - 1, '\0');
      s = print(shorter.data(), shorter.size(), &n);
      if (s != PBC_ERR_BUFFER_TOO_SMALL || n != expected.size() ||
          shorter != expected.substr(0, shorter.size()))
        return Fail(form, std::string("a buffer one byte short: ") + StatusName(s), bytes,
                    &want, &shorter);
    }
    pbc_heap_writer h;
    pbc_heap_writer_init(&h, 5);
    s = write(&h.writer);
    std::string written(pbc_heap_writer_size(&h), '\0');
    pbc_heap_writer_copy(&h, written.data(), written.size());
    pbc_heap_writer_destroy(&h);
    if (s != PBC_OK || written != expected)
      return Fail(form, name + "_write with 5-byte chunks: " + StatusName(s), bytes, &want,
                  &written);
    return true;
  }

  // (t) text format: what pbc_text_print makes of the struct Canonical
  // decoded is what libprotobuf's TextFormat::Printer prints for the same
  // bytes read in pbc's view of the schema (extensions as unknown fields),
  // byte for byte: multi-line, on one line without the trailing space
  // (ShortDebugString's form), and multi-line with Anys expanded. Also into a buffer one byte short (its
  // prefix, BUFFER_TOO_SMALL) and through a writer of 5-byte chunks. A
  // LITE_RUNTIME library has no names: NO_NAMES.
  // The libprotobuf message the text format is compared against: one that
  // knows the schema's extensions, as pbc's text format does those the
  // program links (all of the schema's, here), or a schema loaded at run
  // time lists (TextExtensions).
  std::unique_ptr<Message> TextReference() const { return ctx_.schema->New(d_); }

  bool Text(const std::string &bytes) {
    g_stats["text format"].first++;
    std::unique_ptr<Message> lib = TextReference();
    if (!lib->ParseFromString(bytes))
      return Fail("text format", "libprotobuf cannot parse its own serialization", bytes);
    // As description_check.cpp decides it: the command line, else the file.
    const bool lite = ctx_.opts->optimize_for.empty()
                          ? d_->file()->options().optimize_for() == gp::FileOptions::LITE_RUNTIME
                          : ctx_.opts->optimize_for == "lite-runtime";
    for (int k = 0; k < 3; k++) {
      const bool single = k == 1, expand = k == 2;
      const char *form = single ? "one-line text" : expand ? "text, Any expanded" : "text";
      std::string want;
      gp::TextFormat::Printer printer;
      printer.SetSingleLineMode(single);
      printer.SetExpandAny(expand);
      printer.PrintToString(*lib, &want);
      if (single && !want.empty() && want.back() == ' ') want.pop_back();
      pbc_text_options o = {single, false, expand,
                            g_runtime_schema ? pbc_schema_finder : nullptr, g_runtime_schema,
                            nullptr, 0};
      o.extensions = TextExtensions(&o.extension_count);
      size_t n = 0;
      pbc_status s = pbc_text_print(pbc_->info(), pbc_->mem(), nullptr, 0, &n, &o);
      if (lite) {
        if (s != PBC_ERR_NO_NAMES)
          return Fail(form, std::string("a LITE_RUNTIME message printed: ") + StatusName(s),
                      bytes);
        return true;
      }
      auto print = [&](char *buf, size_t cap, size_t *written) {
        return pbc_text_print(pbc_->info(), pbc_->mem(), buf, cap, written, &o);
      };
      auto write = [&](pbc_writer *w) { return pbc_text_write(pbc_->info(), pbc_->mem(), w, &o); };
      if (!SamePrinted(form, "pbc_text", want, bytes, print, write)) return false;
      // What was printed reads back, and a few corruptions of it fail where
      // libprotobuf's parser fails.
      if (!TextParse(form, want, bytes)) return false;
      for (int m = 0; m < 3 && !single; m++) {
        std::string bad = MutateText(want);
        if (!TextParse("corrupted text", bad, bytes)) return false;
      }
    }
    return true;
  }

  // JSON text with every object's members sorted by name (stably, so
  // duplicates keep their order) and no whitespace outside strings: equal
  // for two texts that differ only in member order. Empty on text that is
  // not JSON.
  static std::string SortedJson(const std::string &t) {
    size_t at = 0;
    std::string out;
    return SortedValue(t, at, out) && SkipSpace(t, at) == t.size() ? out : std::string();
  }
  static size_t SkipSpace(const std::string &t, size_t &at) {
    while (at < t.size() && strchr(" \n\r\t", t[at]) != nullptr) at++;
    return at;
  }
  static bool SortedString(const std::string &t, size_t &at, std::string &out) {
    size_t start = at++;
    while (at < t.size() && t[at] != '"') at += t[at] == '\\' ? 2 : 1;
    if (at >= t.size()) return false;
    out += t.substr(start, ++at - start);
    return true;
  }
  static bool SortedValue(const std::string &t, size_t &at, std::string &out) {
    if (SkipSpace(t, at) >= t.size()) return false;
    const char c = t[at];
    if (c == '"') return SortedString(t, at, out);
    if (c != '{' && c != '[') {
      size_t start = at;
      while (at < t.size() && strchr(",]} \n\r\t", t[at]) == nullptr) at++;
      out += t.substr(start, at - start);
      return at > start;
    }
    const char close = c == '{' ? '}' : ']';
    std::vector<std::pair<std::string, std::string>> items;
    at++;
    while (SkipSpace(t, at) < t.size() && t[at] != close) {
      std::string key, value;
      if (c == '{') {
        if (t[at] != '"' || !SortedString(t, at, key)) return false;
        if (SkipSpace(t, at) >= t.size() || t[at++] != ':') return false;
      }
      if (!SortedValue(t, at, value)) return false;
      items.emplace_back(key, value);
      if (SkipSpace(t, at) < t.size() && t[at] == ',') at++;
    }
    if (at >= t.size()) return false;
    at++;
    if (c == '{')
      std::stable_sort(items.begin(), items.end(),
                       [](const auto &a, const auto &b) { return a.first < b.first; });
    out += c;
    for (size_t i = 0; i < items.size(); i++) {
      if (i) out += ',';
      if (c == '{') out += items[i].first + ":";
      out += items[i].second;
    }
    out += close;
    return true;
  }

  // The message as both JSON printers see it alike: groups cleared, at
  // every depth (3.21 drops them and may misread what follows, pbc/json.h;
  // json.test checks their JSON), and each Any's value re-serialized
  // deterministically (3.21 prints a value's fields in its bytes' order,
  // maps unsorted; pbc by number, maps sorted).
  // positive_zeros: also PositiveZeros, at every depth, Any values too.
  void JsonCanonical(Message *m, bool positive_zeros = false) const {
    const gp::Reflection *R = m->GetReflection();
    const Descriptor *d = m->GetDescriptor();
    if (d->full_name() == "google.protobuf.Any" && d->field_count() == 2) {
      const std::string url = R->GetString(*m, d->field(0));
      const Descriptor *type =
          d->file()->pool()->FindMessageTypeByName(url.substr(url.rfind('/') + 1));
      std::unique_ptr<Message> value = type ? ctx_.schema->New(type) : nullptr;
      if (value && url.find('/') != std::string::npos &&
          value->ParsePartialFromString(R->GetString(*m, d->field(1)))) {
        JsonCanonical(value.get(), positive_zeros);
        R->SetString(m, d->field(1), LibBytes(value.get()));
      }
      return;
    }
    std::vector<const FieldDescriptor *> set;
    R->ListFields(*m, &set);
    for (const FieldDescriptor *f : set) {
      if (f->type() == FieldDescriptor::TYPE_GROUP) {
        R->ClearField(m, f);
      } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        if (!f->is_repeated()) {
          JsonCanonical(R->MutableMessage(m, f), positive_zeros);
          continue;
        }
        for (int i = 0; i < R->FieldSize(*m, f); i++)
          JsonCanonical(R->MutableRepeatedMessage(m, f, i), positive_zeros);
      }
    }
    if (positive_zeros) PositiveZeros(m);
  }

  // Whether d and every message its fields reach are of proto3 files.
  static bool AllProto3(const Descriptor *d) {
    std::set<const Descriptor *> seen;
    std::vector<const Descriptor *> todo = {d};
    while (!todo.empty()) {
      const Descriptor *m = todo.back();
      todo.pop_back();
      if (!seen.insert(m).second) continue;
      if (m->file()->syntax() != gp::FileDescriptor::SYNTAX_PROTO3) return false;
      for (int i = 0; i < m->field_count(); i++)
        if (m->field(i)->message_type()) todo.push_back(m->field(i)->message_type());
    }
    return true;
  }

  // (j) JSON: what pbc_json_print makes of the message is what libprotobuf
  // 3.21 prints (BinaryToJsonString of its deterministic bytes, so maps
  // are sorted as pbc sorts them; groups cleared on both sides), byte for
  // byte, with each of libprotobuf's print options; also into a buffer one
  // byte short and through a writer of 5-byte chunks. Where libprotobuf
  // refuses a value (a Timestamp out of range, an Any it cannot resolve),
  // pbc refuses it too. Extensions are left out (3.21 does not print them).
  bool Json(const std::string &bytes) {
    g_stats["json"].first++;
    std::unique_ptr<Message> lib = TextReference();
    if (!lib->ParseFromString(bytes))
      return Fail("json", "libprotobuf cannot parse its own serialization", bytes);
    JsonCanonical(lib.get());
    const std::string det = LibBytes(lib.get());
    const pbc_message_info *info = pbc_->info();
    ScopedArena scoped;
    void *m = pbc_arena_alloc(&scoped.a, info->struct_size);
    pbc_decode_options partial = {};
    partial.allow_missing_required = true;
    if (pbc_decode(info, m, reinterpret_cast<const uint8_t *>(det.data()), det.size(),
                   &scoped.a, &partial) != PBC_OK)
      return Fail("json", "pbc does not decode the message without groups", bytes);
    static const pbc_extension_info *const kNoExtensions[1] = {nullptr};
    std::unique_ptr<gp::util::TypeResolver> resolver(gp::util::NewTypeResolverForDescriptorPool(
        "type.googleapis.com", d_->file()->pool()));
    for (int k = 0; k < 4; k++) {
      gp::util::JsonPrintOptions lo;
      pbc_json_options o = {};
      o.add_whitespace = lo.add_whitespace = k == 1;
      o.preserve_proto_field_names = lo.preserve_proto_field_names = k == 2;
      o.always_print_enums_as_ints = lo.always_print_enums_as_ints = k == 2;
      // 3.21 prints proto2 fields with presence at their defaults too (and
      // absent groups as null): compared where every message reachable is
      // proto3.
      if (k == 3 && !AllProto3(d_)) continue;
      o.always_print_primitive_fields = lo.always_print_primitive_fields = k == 3;
      o.find_message = g_runtime_schema ? pbc_schema_finder : nullptr;
      o.find_message_ctx = g_runtime_schema;
      o.extensions = kNoExtensions;
      const char *form = k == 0 ? "json" : k == 1 ? "json, whitespace"
                         : k == 2 ? "json, proto names, enums as ints" : "json, always print";
      std::string want;
      const bool lib_ok = gp::util::BinaryToJsonString(resolver.get(),
                                                       "type.googleapis.com/" + d_->full_name(),
                                                       det, &want, lo)
                              .ok();
      size_t n = 0;
      pbc_status s = pbc_json_print(info, m, nullptr, 0, &n, &o);
      if (info->desc->flags & PBC_MESSAGE_NO_NAMES) {
        if (s != PBC_ERR_NO_NAMES)
          return Fail(form, std::string("a LITE_RUNTIME message printed: ") + StatusName(s),
                      bytes);
        return true;
      }
      if (!lib_ok) {
        if (s != PBC_ERR_JSON_VALUE)
          return Fail(form, std::string("libprotobuf refuses the message, pbc: ") + StatusName(s),
                      bytes);
        g_stats["json: refused by both"].first++;
        continue;
      }
      auto print = [&](char *buf, size_t cap, size_t *written) {
        return pbc_json_print(info, m, buf, cap, written, &o);
      };
      auto write = [&](pbc_writer *w) { return pbc_json_write(info, m, w, &o); };
      // 3.21 prints the fields always_print_primitive_fields adds in
      // declaration order, and the set ones in an order of its own: pbc
      // prints them all by number, so only the order may differ.
      auto reordered = [&](const std::string &got) {
        const std::string sorted = k == 3 ? SortedJson(want) : std::string();
        bool same = !sorted.empty() && SortedJson(got) == sorted;
        if (same) g_stats["json, always print: same members, another order"].first++;
        return same;
      };
      if (!SamePrinted(form, "pbc_json", want, bytes, print, write, reordered)) return false;
      if (!JsonParsed(form, resolver.get(), want, o, k == 0, bytes)) return false;
    }
    return true;
  }

  // -0.0 as +0.0 in m's float and double fields (JsonCanonical applies it
  // at every depth): 3.21 reads the "-0" it prints as the integer 0
  // (docs/json.md), pbc as -0.0.
  static void PositiveZeros(Message *m) {
    const gp::Reflection *R = m->GetReflection();
    std::vector<const FieldDescriptor *> set;
    R->ListFields(*m, &set);
    for (const FieldDescriptor *f : set) {
      const int n = f->is_repeated() ? R->FieldSize(*m, f) : 1;
      for (int i = 0; i < n; i++) {
        switch (f->cpp_type()) {
          case FieldDescriptor::CPPTYPE_DOUBLE: {
            double v = f->is_repeated() ? R->GetRepeatedDouble(*m, f, i) : R->GetDouble(*m, f);
            if (v != 0 || !std::signbit(v)) break;
            if (f->is_repeated()) R->SetRepeatedDouble(m, f, i, 0.0);
            else R->SetDouble(m, f, 0.0);
            break;
          }
          case FieldDescriptor::CPPTYPE_FLOAT: {
            float v = f->is_repeated() ? R->GetRepeatedFloat(*m, f, i) : R->GetFloat(*m, f);
            if (v != 0 || !std::signbit(v)) break;
            if (f->is_repeated()) R->SetRepeatedFloat(m, f, i, 0.0f);
            else R->SetFloat(m, f, 0.0f);
            break;
          }
          default:
            break;
        }
      }
    }
  }

  // (j, parsing) libprotobuf's JSON of the message read back by
  // pbc_json_parse is the message libprotobuf reads from it
  // (JsonToBinaryString): compared as deterministic bytes, each Any's value
  // re-serialized (pbc stores it canonical, 3.21 in the JSON's order).
  bool JsonParsed(const char *form, gp::util::TypeResolver *resolver, const std::string &json,
                  const pbc_json_options &o, bool truncations, const std::string &bytes) {
    g_stats["json parse"].first++;
    std::string lib_bytes;
    const auto read = gp::util::JsonToBinaryString(
        resolver, "type.googleapis.com/" + d_->full_name(), json, &lib_bytes);
    std::unique_ptr<Message> want = TextReference();
    if (read.ok() && !want->ParsePartialFromString(lib_bytes))
      return Fail(form, "libprotobuf cannot parse what its JSON reads as", bytes);
    const pbc_message_info *info = pbc_->info();
    ScopedArena scoped;
    void *m = pbc_arena_alloc(&scoped.a, info->struct_size);
    pbc_json_error error = {};
    // The text flush against a guard page: a read past its end faults.
    static GuardedInput guarded;
    const char *text = reinterpret_cast<const char *>(guarded.Place(json, false));
    if (truncations && !json.empty() && json.back() == '}') {
      // Every truncation is refused (checked at up to 16 lengths, all of
      // the last 8), within the bytes it is given. Once per message: the
      // other option sets print the same structure, and this loop was a
      // third of the difftest's time on large messages.
      const size_t step = std::max<size_t>(1, json.size() / 16);
      for (size_t len = 0; len < json.size(); len += len + 8 >= json.size() ? 1 : step) {
        const char *cut = reinterpret_cast<const char *>(guarded.Place(json.substr(0, len), false));
        ScopedArena a;
        void *t = pbc_arena_alloc(&a.a, info->struct_size);
        if (pbc_json_parse(info, t, cut, len, &a.a, &o, nullptr) == PBC_OK)
          return Fail(form, "pbc_json_parse reads a truncation of libprotobuf's JSON (" +
                                std::to_string(len) + " bytes)",
                      bytes);
      }
      g_stats["json parse: truncations refused"].first++;
      text = reinterpret_cast<const char *>(guarded.Place(json, false));
    }
    pbc_status s = pbc_json_parse(info, m, text, json.size(), &scoped.a, &o, &error);
    if (!read.ok()) {
      // What 3.21 prints but does not read: bytes of a string that are
      // not UTF-8 it let through, an Any's URL of another host.
      if (s == PBC_OK)
        return Fail(form, "pbc_json_parse reads JSON libprotobuf refuses (" + read.ToString() +
                              "):\n" + json,
                    bytes);
      g_stats["json parse: refused by both"].first++;
      return true;
    }
    if (s == PBC_ERR_MISSING_REQUIRED && !want->IsInitialized()) {
      // A required group cleared for the printers: refused as
      // JsonStringToMessage refuses it.
      g_stats["json parse: missing required, refused"].first++;
      return true;
    }
    if (s != PBC_OK)
      return Fail(form, std::string("pbc_json_parse refuses libprotobuf's JSON: ") +
                            StatusName(s) + " at " + std::to_string(error.offset) + ": " +
                            error.message + "\n" + json,
                  bytes);
    size_t n = pbc_message_encoded_size(info, m), written = 0;
    std::string got_bytes(n, '\0');
    if (pbc_message_encode(info, m, reinterpret_cast<uint8_t *>(&got_bytes[0]), n, &written) !=
        PBC_OK)
      return Fail(form, "pbc cannot encode what it parsed", bytes);
    std::unique_ptr<Message> got = TextReference();
    if (!got->ParsePartialFromString(got_bytes))
      return Fail(form, "libprotobuf cannot parse what pbc_json_parse read", bytes);
    JsonCanonical(want.get(), true);
    JsonCanonical(got.get(), true);
    if (LibBytes(got.get()) != LibBytes(want.get()))
      return Fail(form, "pbc_json_parse reads another message than libprotobuf:\n" + json +
                            "\npbc:\n" + got->DebugString() + "libprotobuf:\n" +
                            want->DebugString(),
                  bytes);
    return true;
  }

  // Whether s is a number as RFC 8259 writes one:
  // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
  static bool IsJsonNumber(const std::string &s) {
    size_t i = 0;
    const size_t n = s.size();
    auto digits = [&]() {
      const size_t start = i;
      while (i < n && s[i] >= '0' && s[i] <= '9') i++;
      return i > start;
    };
    if (i < n && s[i] == '-') i++;
    if (i < n && s[i] == '0') i++;
    else if (!digits()) return false;
    if (i < n && s[i] == '.' && (++i, !digits())) return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
      i++;
      if (i < n && (s[i] == '+' || s[i] == '-')) i++;
      if (!digits()) return false;
    }
    return i == n;
  }

  // Whether a group is set in m, at any depth (Any values aside).
  static bool HasGroup(const Message &m) {
    const gp::Reflection *R = m.GetReflection();
    std::vector<const FieldDescriptor *> set;
    R->ListFields(m, &set);
    for (const FieldDescriptor *f : set) {
      if (f->type() == FieldDescriptor::TYPE_GROUP) return true;
      if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
      const int n = f->is_repeated() ? R->FieldSize(m, f) : 1;
      for (int i = 0; i < n; i++)
        if (HasGroup(f->is_repeated() ? R->GetRepeatedMessage(m, f, i) : R->GetMessage(m, f)))
          return true;
    }
    return false;
  }

  // How deeply the JSON text's objects (and arrays, with `arrays`) nest,
  // outside strings.
  static int JsonNesting(const std::string &t, bool arrays) {
    int depth = 0, deepest = 0;
    for (size_t i = 0; i < t.size(); i++) {
      const char c = t[i];
      if (c == '"') {
        for (i++; i < t.size() && t[i] != '"'; i++) i += t[i] == '\\';
      } else if (c == '{' || (arrays && c == '[')) {
        deepest = std::max(deepest, ++depth);
      } else if (c == '}' || (arrays && c == ']')) {
        depth--;
      }
    }
    return deepest;
  }

  // A TypeResolver for reading JSON as pbc reads it where 3.21 departs
  // from that: without group fields (3.21 writes a group's member as bytes
  // it cannot parse, a start-group tag and a length; with
  // ignore_unknown_fields it skips them instead), and with `raw_masks`
  // each FieldMask field typed as a StringValue, so that 3.21 keeps its
  // JSON string whole as the one path (RawFieldMasksAsPbc reads it then):
  // 3.21 reads a FieldMask's string in a syntax of its own ("a(b,c)",
  // map keys as ["k"], each segment between '.', '(', ')' converted on
  // its own).
  class PbcLikeResolver : public gp::util::TypeResolver {
   public:
    PbcLikeResolver(gp::util::TypeResolver *inner, bool raw_masks)
        : inner_(inner), raw_masks_(raw_masks) {}
    gp::util::Status ResolveMessageType(const std::string &url, gp::Type *type) override {
      gp::util::Status s = inner_->ResolveMessageType(url, type);
      gp::Type kept = *type;
      kept.clear_fields();
      for (const gp::Field &f : type->fields()) {
        if (f.kind() == gp::Field::TYPE_GROUP) continue;
        gp::Field *k = kept.add_fields();
        *k = f;
        if (raw_masks_ && f.type_url() == "type.googleapis.com/google.protobuf.FieldMask")
          k->set_type_url("type.googleapis.com/google.protobuf.StringValue");
      }
      *type = kept;
      return s;
    }
    gp::util::Status ResolveEnumType(const std::string &url, gp::Enum *type) override {
      return inner_->ResolveEnumType(url, type);
    }

   private:
    gp::util::TypeResolver *inner_;
    bool raw_masks_;
  };

  // m's FieldMasks as PbcLikeResolver with raw_masks reads them (the JSON
  // string as the one path), at every depth, Any values too, made the
  // paths pbc reads from that string: split at ',', empty ones dropped,
  // each capital as '_' and the lowercase letter. An Any of a FieldMask,
  // which 3.21 reads its way whatever the resolver, is left empty (also
  // on pbc's side: `raw` false).
  void RawFieldMasksAsPbc(Message *m, bool raw = true) const {
    const gp::Reflection *R = m->GetReflection();
    const Descriptor *d = m->GetDescriptor();
    if (d->full_name() == "google.protobuf.FieldMask" && d->field_count() == 1) {
      if (!raw) return;
      const FieldDescriptor *paths = d->field(0);
      if (R->FieldSize(*m, paths) != 1) return;
      const std::string json = R->GetRepeatedString(*m, paths, 0);
      R->ClearField(m, paths);
      std::string path;
      for (size_t i = 0; i <= json.size(); i++) {
        if (i == json.size() || json[i] == ',') {
          if (!path.empty()) R->AddString(m, paths, path);
          path.clear();
        } else if (json[i] >= 'A' && json[i] <= 'Z') {
          path += '_';
          path += static_cast<char>(json[i] - 'A' + 'a');
        } else {
          path += json[i];
        }
      }
      return;
    }
    if (d->full_name() == "google.protobuf.Any" && d->field_count() == 2) {
      const std::string url = R->GetString(*m, d->field(0));
      const Descriptor *type =
          d->file()->pool()->FindMessageTypeByName(url.substr(url.rfind('/') + 1));
      std::unique_ptr<Message> value = type ? ctx_.schema->New(type) : nullptr;
      if (value && type->full_name() == "google.protobuf.FieldMask") {
        R->SetString(m, d->field(1), "");
      } else if (value && value->ParsePartialFromString(R->GetString(*m, d->field(1)))) {
        RawFieldMasksAsPbc(value.get(), raw);
        R->SetString(m, d->field(1), value->SerializePartialAsString());
      }
      return;
    }
    std::vector<const FieldDescriptor *> set;
    R->ListFields(*m, &set);
    for (const FieldDescriptor *f : set) {
      if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
      if (!f->is_repeated()) {
        RawFieldMasksAsPbc(R->MutableMessage(m, f), raw);
        continue;
      }
      for (int i = 0; i < R->FieldSize(*m, f); i++)
        RawFieldMasksAsPbc(R->MutableRepeatedMessage(m, f, i), raw);
    }
  }

  // (j, fuzzing: test/fuzz/json_fuzz.cpp) pbc_json_parse on arbitrary
  // text, judged against libprotobuf 3.21's JsonToBinaryString (default
  // options) and `strict_json`, whether the text is one RFC 8259 JSON text
  // (simdjson, in the fuzzer). pbc reads the text flush against a guard
  // page, twice, into fresh arenas: the same verdict, offset and message
  // both times, an error's offset within the text. Then:
  //  (a) what pbc accepts is strict JSON;
  //  (b) what both accept is the same message (deterministic bytes, groups
  //      cleared, Any values re-serialized, -0.0 as 0: as JsonParsed), but
  //      where 3.21 misreads it (below);
  //  (c) what 3.21 accepts and pbc refuses is not strict JSON and refused
  //      as such (JSON_SYNTAX, INVALID_UTF8), or breaks one of the rules
  //      pbc keeps where 3.21 is laxer (kStricter, told by pbc's message;
  //      docs/json.md), or misses a required field (JsonStringToMessage
  //      refuses it too);
  //  (d) what 3.21 refuses (or misreads) and pbc accepts is one of 3.21's
  //      gaps, shown by undoing them: with its base64 written as 3.21
  //      wants it (no unused bits set in the last character, one
  //      alphabet), "-0" of an unsigned integer as "0", the members of
  //      groups and extensions skipped (3.21 reads no extension and writes
  //      groups it cannot parse back) and, if need be, its FieldMasks read
  //      as pbc reads them (3.21 has a path syntax of its own), 3.21 reads
  //      the text as the message pbc read; or it nests more than 100
  //      objects, which 3.21 refuses;
  //  (e) what both refuse is fine, whatever the reasons.
  // Each allowed difference is counted in g_stats.
  bool JsonParseFuzz(const std::string &text,
                     const std::function<bool(const std::string &)> &strict_json) {
    g_stats["json fuzz"].first++;
    const pbc_message_info *info = pbc_->info();
    const std::string url = "type.googleapis.com/" + d_->full_name();
    std::unique_ptr<gp::util::TypeResolver> resolver(gp::util::NewTypeResolverForDescriptorPool(
        "type.googleapis.com", d_->file()->pool()));
    // libprotobuf's verdict on `json` and its message; `skip`: group and
    // unknown members (an extension's) skipped; `raw_masks`: FieldMasks
    // read as pbc reads them (PbcLikeResolver, RawFieldMasksAsPbc).
    auto lib_read = [&](const std::string &json, bool skip, bool raw_masks,
                        std::unique_ptr<Message> *out, std::string *why) {
      gp::util::JsonParseOptions lo;
      lo.ignore_unknown_fields = skip;
      PbcLikeResolver pbc_like(resolver.get(), raw_masks);
      std::string lib_bytes;
      const auto read = gp::util::JsonToBinaryString(
          skip || raw_masks ? static_cast<gp::util::TypeResolver *>(&pbc_like) : resolver.get(),
          url, json, &lib_bytes, lo);
      if (!read.ok()) {
        *why = read.ToString();
        return false;
      }
      *out = TextReference();
      if (!(*out)->ParsePartialFromString(lib_bytes)) {
        *why = "libprotobuf cannot parse the bytes its JsonToBinaryString wrote";
        return false;
      }
      if (raw_masks) RawFieldMasksAsPbc(out->get());
      return true;
    };
    std::unique_ptr<Message> lib;
    std::string lib_why;
    const bool lib_ok = lib_read(text, false, false, &lib, &lib_why);

    // pbc's verdict on `json`, its message in `scoped` (*out): the linked
    // extensions (or a run-time schema's) unless `no_extensions`, Anys'
    // types found as Checker::Json finds them, but only those of the
    // schema libprotobuf's resolver has (a fuzzer links several).
    static GuardedInput guarded;
    static const pbc_extension_info *const kNoExtensions[1] = {nullptr};
    auto same_pool = [](const void *pool, const char *name) -> const pbc_message_info * {
      if (!static_cast<const gp::DescriptorPool *>(pool)->FindMessageTypeByName(name))
        return nullptr;
      return g_runtime_schema ? pbc_schema_finder(g_runtime_schema, name)
                              : pbc_find_message(name);
    };
    auto pbc_read = [&](const std::string &json, bool no_extensions, bool ignore_unknown,
                        ScopedArena &scoped, void **out, pbc_json_error *error) {
      pbc_json_options o = {};
      o.find_message = same_pool;
      o.find_message_ctx = d_->file()->pool();
      o.extensions = no_extensions ? kNoExtensions : TextExtensions(&o.extension_count);
      if (no_extensions) o.extension_count = 0;
      o.ignore_unknown_fields = ignore_unknown;
      *out = pbc_arena_alloc(&scoped.a, info->struct_size);
      const char *at = reinterpret_cast<const char *>(guarded.Place(json, false));
      return pbc_json_parse(info, *out, at, json.size(), &scoped.a, &o, error);
    };
    ScopedArena scoped, again_arena;
    void *m = nullptr, *again = nullptr;
    pbc_json_error error = {}, again_error = {};
    const pbc_status s = pbc_read(text, false, false, scoped, &m, &error);
    const pbc_status s2 = pbc_read(text, false, false, again_arena, &again, &again_error);
    const std::string where = std::string(StatusName(s)) + " at " +
                              std::to_string(error.offset) + ": " + error.message;
    if (info->desc->flags & PBC_MESSAGE_NO_NAMES) {
      if (s != PBC_ERR_NO_NAMES)
        return Fail("json fuzz", std::string("a LITE_RUNTIME message parsed: ") + StatusName(s),
                    text);
      return true;
    }
    if (s2 != s || again_error.offset != error.offset ||
        strcmp(again_error.message, error.message) != 0)
      return Fail("json fuzz", "pbc_json_parse's verdict changes: " + where + ", then " +
                                   StatusName(s2) + " at " + std::to_string(again_error.offset) +
                                   ": " + again_error.message, text);
    if (s != PBC_OK && error.offset > text.size())
      return Fail("json fuzz", "pbc_json_parse's error is past the text (" +
                                   std::to_string(text.size()) + " bytes): " + where, text);
    // pbc's message encoded (empty if it does not encode).
    auto pbc_bytes = [&](const void *msg) {
      size_t n = pbc_message_encoded_size(info, msg), written = 0;
      std::string bytes(n, '\0');
      if (pbc_message_encode(info, msg, reinterpret_cast<uint8_t *>(&bytes[0]), n, &written) !=
              PBC_OK ||
          written != n)
        bytes = "(pbc cannot encode its message)";
      return bytes;
    };
    // pbc's message (its bytes) and libprotobuf's the same in JsonParsed's
    // terms; `masks`: libprotobuf's read with raw_masks.
    auto same = [&](const std::string &got_bytes, Message *want, bool masks = false) {
      std::unique_ptr<Message> got = TextReference();
      if (!got->ParsePartialFromString(got_bytes)) return false;
      if (masks) RawFieldMasksAsPbc(got.get(), false);
      JsonCanonical(got.get(), true);
      JsonCanonical(want, true);
      return LibBytes(got.get()) == LibBytes(want);
    };
    const bool strict = strict_json(text);

    if (s == PBC_OK) {
      // (a)
      if (!strict)
        return Fail("json fuzz", std::string("pbc_json_parse reads text that is not JSON (") +
                                     (lib_ok ? "libprotobuf reads it too" : lib_why) + ")",
                    text);
      const std::string got = pbc_bytes(m);
      std::unique_ptr<Message> got_lib = TextReference();
      if (!got_lib->ParsePartialFromString(got))
        return Fail("json fuzz", "libprotobuf cannot parse the message pbc_json_parse read",
                    text);
      // (b)
      if (lib_ok && same(got, lib.get())) {
        g_stats["json fuzz: read by both"].first++;
        return true;
      }
      // (d) Strings as 3.21 reads them, each rewritten where pbc still
      // reads the same message (so only values pbc reads alike change):
      // base64 (a string, not a member name, of base64's characters) in
      // one alphabet, the unused bits of its last character zero; "-0" as
      // "0" (3.21 reads -0 into an unsigned field, but not "-0").
      std::string t = text;
      bool bits = false, alphabet = false, minus_zero = false;
      for (size_t i = 0; i < t.size(); i++) {
        if (t[i] != '"') continue;
        const size_t start = ++i;
        while (i < t.size() && t[i] != '"') i += t[i] == '\\' ? 2 : 1;
        size_t after = i + 1;
        while (after < t.size() && strchr(" \t\n\r", t[after]) != nullptr) after++;
        if (i >= t.size() || (after < t.size() && t[after] == ':')) continue;
        // The string's value (escapes of other than ASCII as '?': base64
        // and "-0" are ASCII); 3.21's form of it is written without escapes.
        std::string value;
        for (size_t k = start; k < i; k++) {
          if (t[k] != '\\') {
            value += t[k];
          } else if (t[k + 1] == 'u' && k + 5 < i &&
                     t.find_first_not_of("0123456789abcdefABCDEF", k + 2) >= k + 6 &&
                     std::stoul(t.substr(k + 2, 4), nullptr, 16) < 0x80) {
            value += static_cast<char>(std::stoul(t.substr(k + 2, 4), nullptr, 16));
            k += 5;
          } else {
            const char c = t[++k];
            value += c == 'b' ? '\b' : c == 'f' ? '\f' : c == 'n' ? '\n' : c == 'r' ? '\r'
                     : c == 't' ? '\t' : c == 'u' ? '?' : c;
          }
        }
        std::string as321 = value;
        bool set = false, mixed = false;
        const size_t n = value.find_last_not_of('=') + 1;
        if (!value.empty() && n != 0 && n % 4 != 1 &&
            value.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                    "0123456789+/-_") >= n) {
          mixed = value.find_first_of("+/") < n && value.find_first_of("-_") < n;
          if (mixed) {
            for (char &c : as321) c = c == '-' ? '+' : c == '_' ? '/' : c;
          }
          const bool url_safe = as321.find_first_of("-_") < n;
          static const char kDigits[] =
              "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
          char &last = as321[n - 1];
          const char *digit = strchr(kDigits, last == '-' ? '+' : last == '_' ? '/' : last);
          const int unused = n % 4 == 2 ? 4 : n % 4 == 3 ? 2 : 0;
          const int v = static_cast<int>(digit - kDigits) & ~((1 << unused) - 1);
          const char canonical =
              url_safe && v == 62 ? '-' : url_safe && v == 63 ? '_' : kDigits[v];
          set = canonical != last;
          last = canonical;
        }
        // The first of its 3.21 forms with which pbc reads the same.
        for (const std::string &form : {value == "-0" ? std::string("0") : value, as321}) {
          if (form == value) continue;
          std::string candidate = t;
          candidate.replace(start, i - start, form);
          ScopedArena a;
          void *c = nullptr;
          if (pbc_read(candidate, false, false, a, &c, nullptr) != PBC_OK ||
              pbc_bytes(c) != got)
            continue;
          t = candidate;
          i = start + form.size();
          if (form == as321) {
            bits |= set;
            alphabet |= mixed;
          } else {
            minus_zero = true;
          }
          break;
        }
      }
      // Group and extension members skipped on both sides (pbc's groups
      // cleared by `same`); whether there were any.
      ScopedArena plain_arena, skip_arena;
      void *plain = nullptr, *skipped = nullptr;
      pbc_json_error plain_error = {};
      const bool groups = HasGroup(*got_lib);
      const bool extensions =
          pbc_read(t, true, false, plain_arena, &plain, &plain_error) == PBC_ERR_JSON_SYNTAX &&
          strncmp(plain_error.message, "Extension \"", 11) == 0 &&
          strstr(plain_error.message, "\" is not defined or is not an extension of \"");
      std::string skipped_bytes = got;
      if (extensions) {
        if (pbc_read(t, true, true, skip_arena, &skipped, nullptr) != PBC_OK)
          return Fail("json fuzz", "pbc_json_parse refuses the text without extensions", text);
        skipped_bytes = pbc_bytes(skipped);
      }
      // And FieldMasks as pbc reads them, if that is what it takes.
      std::unique_ptr<Message> lib_undone;
      std::string why;
      const bool rewritten = bits || alphabet || minus_zero;
      bool explained = false, masks = false;
      for (int pass = 0; pass < 2 && !explained; pass++) {
        masks = pass == 1;
        explained = (rewritten || groups || extensions || masks) &&
                    lib_read(t, groups || extensions, masks, &lib_undone, &why) &&
                    same(skipped_bytes, lib_undone.get(), masks);
      }
      if (explained) {
        if (bits) g_stats["json fuzz: (d) base64 with unused bits set"].first++;
        if (minus_zero) g_stats["json fuzz: (d) \"-0\" for an unsigned integer"].first++;
        if (alphabet) g_stats["json fuzz: (d) base64 of both alphabets"].first++;
        if (groups) g_stats["json fuzz: (d) a group's member, which 3.21 misreads"].first++;
        if (extensions)
          g_stats["json fuzz: (d) an extension's member, which 3.21 does not read"].first++;
        if (masks) g_stats["json fuzz: (b, d) a FieldMask in 3.21's own syntax"].first++;
        return true;
      }
      // (d) 3.21's JSON parser counts nesting in objects, the top one too,
      // and refuses more than 100; pbc counts messages below the top (as
      // its decoder and libprotobuf's binary parser do) up to max_depth.
      if (!lib_ok && lib_why.find("Message too deep. Max recursion depth reached") !=
                         std::string::npos &&
          JsonNesting(text, false) > 100) {
        g_stats["json fuzz: (d) more than 100 objects nested, which 3.21 refuses"].first++;
        return true;
      }
      if (lib_ok)
        return Fail("json fuzz", "pbc_json_parse reads another message than libprotobuf:\npbc:\n" +
                                     got_lib->DebugString() + "libprotobuf:\n" +
                                     lib->DebugString(),
                    text);
      return Fail("json fuzz", "pbc_json_parse reads JSON libprotobuf refuses (" + lib_why + ")",
                  text);
    }

    if (!lib_ok) {
      // (e)
      g_stats["json fuzz: refused by both"].first++;
      return true;
    }

    // (c) The rules pbc keeps where 3.21 is laxer (pbc/json.h,
    // docs/json.md "Reading JSON"), by pbc's error message.
    struct Stricter {
      const char *what;
      pbc_status status;
      const char *prefix, *contains;
      // If set: what else the value quoted in the message (whole) must be.
      bool (*quoted)(const std::string &) = nullptr;
    };
    static const Stricter kStricter[] = {
        {"a member given twice (also by its two names)", PBC_ERR_JSON_SYNTAX, "Field \"",
         "\" given twice."},
        {"two members of a oneof", PBC_ERR_JSON_SYNTAX, "Field \"",
         "\" are members of oneof \""},
        {"a quoted bool", PBC_ERR_JSON_SYNTAX, "Expected true or false for field \"",
         "\", found a string."},
        {"a null element in a list", PBC_ERR_JSON_SYNTAX, "null element in repeated field \"", ""},
        {"a null value in a map", PBC_ERR_JSON_SYNTAX, "null value in map field \"", ""},
        {"a map key given twice", PBC_ERR_JSON_VALUE, "Map field \"", "\" has this key twice."},
        {"a Struct key given twice", PBC_ERR_JSON_VALUE,
         "google.protobuf.Struct has this key twice.", ""},
        {"an unpaired surrogate", PBC_ERR_JSON_SYNTAX, "Unpaired ", " surrogate \\u"},
        // The conformance suite's FieldMaskInvalidCharacter.
        {"a FieldMask path with '_'", PBC_ERR_JSON_VALUE, "FieldMask path \"",
         "\" is not lowerCamelCase."},
        // 3.21 reads a single value as a list of one.
        {"a repeated field's value not in an array", PBC_ERR_JSON_SYNTAX,
         "Expected an array for repeated field \"", "\", found "},
        // 3.21 reads a wrapper, Timestamp, Duration or FieldMask also as the
        // object of its fields ({"value": 1}, {"seconds": 1}).
        {"a well-known type as the object of its fields", PBC_ERR_JSON_SYNTAX, "Expected ",
         ", found an object."},
        // 3.21 reads a quoted integer with safe_strto32/64 (a '+' too), a
        // quoted float with strtod (C's syntax: "1.", ".5", "0x1p4", "\t1"),
        // a bool map key with safe_strtob ("1", "t", "yes", ...), an enum
        // number in quotes as the number.
        {"a quoted integer with a '+'", PBC_ERR_JSON_VALUE, "Not an integer: \"+", ""},
        {"a map key with a '+'", PBC_ERR_JSON_VALUE, "Map key \"+", "\" is not an integer."},
        {"a quoted float in C's syntax, not JSON's", PBC_ERR_JSON_VALUE, "Not a number: \"", "",
         [](const std::string &q) {
           return !IsJsonNumber(q) && q != "NaN" && q != "Infinity" && q != "-Infinity";
         }},
        {"a bool map key other than \"true\" or \"false\"", PBC_ERR_JSON_VALUE, "Map key \"",
         "\" is not a bool."},
        {"an enum number in quotes", PBC_ERR_JSON_VALUE, "Enum ", " has no value named \"",
         [](const std::string &q) {
           return !q.empty() && q.find_first_not_of("-0123456789") == std::string::npos;
         }},
        // 3.21 cuts a Timestamp's fraction to 9 digits, and checks its range
        // before applying the offset.
        {"a Timestamp with more than 9 fractional digits", PBC_ERR_JSON_VALUE,
         "Invalid RFC 3339 timestamp: \"", "",
         [](const std::string &q) {
           const size_t dot = q.find('.');
           return dot != std::string::npos && q.find_first_not_of("0123456789", dot + 1) > dot + 10;
         }},
        {"a Timestamp out of range once its offset applies", PBC_ERR_JSON_VALUE,
         "Timestamp out of range: \"", "",
         [](const std::string &q) {
           return (q.rfind("0001-01-01T", 0) == 0 || q.rfind("9999-12-31T", 0) == 0) &&
                  q.size() > 6 && (q[q.size() - 6] == '+' || q[q.size() - 6] == '-');
         }},
        // 3.21 reads a Duration's seconds with safe_strto64 ("+1s", " 1s",
        // "1 s") and its fraction as any digits ("1.s", 10 digits).
        {"a Duration outside -?digits(.1-9 digits)?s", PBC_ERR_JSON_VALUE,
         "Invalid duration: \"", "",
         [](const std::string &q) {
           size_t i = q.rfind('-', 0) == 0 ? 1 : 0;
           const size_t digits = q.find_first_not_of("0123456789", i);
           if (digits == i || digits == std::string::npos) return true;
           i = digits;
           if (q[i] == '.') {
             const size_t frac = q.find_first_not_of("0123456789", i + 1);
             if (frac == std::string::npos || frac == i + 1 || frac > i + 10) return true;
             i = frac;
           }
           return q.substr(i) != "s";
         }},
    };
    // (A message cut to its buffer has its prefix only.)
    const std::string message = error.message;
    const bool cut = message.size() + 1 >= sizeof error.message;
    for (const Stricter &rule : kStricter) {
      const size_t open = message.find('"'), close = message.rfind("\".");
      if (s == rule.status && message.rfind(rule.prefix, 0) == 0 &&
          (cut || message.find(rule.contains) != std::string::npos) &&
          (!rule.quoted ||
           (!cut && open < close && rule.quoted(message.substr(open + 1, close - open - 1))))) {
        g_stats[std::string("json fuzz: (c) ") + rule.what].first++;
        return true;
      }
    }
    // Text 3.21 reads but JSON does not allow (trailing commas, single
    // quotes, unquoted names, comments, \U escapes, a byte order mark,
    // \f or \v as space, ...): pbc refuses it where its grammar breaks, as
    // not JSON (not for what the text means).
    const bool grammar = s == PBC_ERR_INVALID_UTF8 ||
                         (s == PBC_ERR_JSON_SYNTAX &&
                          (message.rfind("Expected '", 0) == 0 ||
                           message.rfind("Expected a string, found ", 0) == 0 ||
                           message.rfind("Expected a value, found ", 0) == 0 ||
                           message.rfind("Unterminated ", 0) == 0 ||
                           message.rfind("Control character in a string", 0) == 0 ||
                           message.rfind("Invalid escape \\", 0) == 0 ||
                           message.rfind("Invalid \\u escape", 0) == 0 ||
                           message == "Invalid number." ||
                           message == "Unexpected text after the message." ||
                           (message.rfind("Expected ", 0) == 0 &&
                            (message.find(", found an unexpected character.") !=
                                 std::string::npos ||
                             message.find(", found the end of the text.") != std::string::npos))));
    if (!strict && grammar) {
      g_stats["json fuzz: (c) not JSON, read by 3.21"].first++;
      return true;
    }
    // pbc counts nesting in messages (an Any and its value are two levels,
    // so are a Value and its list), 3.21 in JSON objects: pbc's limit can
    // come first, but not before the text nests max_depth (100) deep,
    // counting objects, arrays and each Any once more.
    if (s == PBC_ERR_DEPTH_LIMIT) {
      int anys = 0;
      for (size_t at = text.find("\"@type\""); at != std::string::npos;
           at = text.find("\"@type\"", at + 1))
        anys++;
      if (JsonNesting(text, true) + anys > 100) {
        g_stats["json fuzz: (c) nested deeper than pbc's max_depth"].first++;
        return true;
      }
    }
    if (s == PBC_ERR_MISSING_REQUIRED && !lib->IsInitialized()) {
      // JsonToBinaryString writes what it read; JsonStringToMessage then
      // refuses it, as pbc does.
      g_stats["json fuzz: (c) a required field missing"].first++;
      return true;
    }
    return Fail("json fuzz", "pbc_json_parse refuses what libprotobuf reads: " + where +
                                 "\nlibprotobuf:\n" + lib->DebugString(), text);
  }

  // A random corruption of a text-format message: a character deleted,
  // inserted or replaced (from characters that matter to the grammar), or
  // a line repeated.
  std::string MutateText(std::string t) {
    static const char kChars[] = "{}<>[]:;,-.\"'\\ \n\t#0123456789xXeEfFuU_aznt\x80\xff\x01";
    const size_t nchars = sizeof kChars - 1;
    const size_t at = r_.Below(t.size() + 1);
    switch (r_.Below(4)) {
      case 0:
        if (at < t.size()) t.erase(at, 1);
        break;
      case 1:
        t.insert(at, 1, kChars[r_.Below(nchars)]);
        break;
      case 2:
        if (at < t.size()) t[at] = kChars[r_.Below(nchars)];
        break;
      default: {
        size_t start = t.rfind('\n', at == 0 ? 0 : at - 1);
        start = start == std::string::npos ? 0 : start + 1;
        size_t end = t.find('\n', start);
        end = end == std::string::npos ? t.size() : end + 1;
        t.insert(start, t.substr(start, end - start));
        break;
      }
    }
    return t;
  }

  // The first error libprotobuf's text parser reports.
  struct FirstError : gp::io::ErrorCollector {
    int line = -2, column = -2;
    std::string message;
    void AddError(int l, int c, const std::string &m) override {
      if (line != -2) return;
      line = l;
      column = c;
      message = m;
    }
  };

  // (t') text parsing: pbc_text_parse accepts `text` exactly when
  // libprotobuf's TextFormat::Parser does (the message as pbc sees the
  // schema, extensions unknown), then holds the same message (same
  // serialization), and otherwise fails with libprotobuf's first error at
  // the same line and column. Where pbc follows the conformance suite
  // rather than 3.21 (pbc/text.h), pbc alone fails. Messages are compared
  // as libprotobuf's deterministic bytes (maps sorted, duplicate keys
  // normalized as LibBytes does).
  bool TextParse(const char *form, const std::string &text, const std::string &bytes) {
    g_stats["text parse"].first++;
    const pbc_message_info *info = pbc_->info();
    std::unique_ptr<Message> lib = TextReference();
    FirstError lib_error;
    gp::TextFormat::Parser parser;
    parser.RecordErrorsTo(&lib_error);
    const bool lib_ok = parser.ParseFromString(text, lib.get());
    ScopedArena scoped;
    pbc_arena &arena = scoped.a;
    void *m = pbc_arena_alloc(&arena, info->struct_size);
    pbc_text_error error;
    pbc_text_parse_options parse_options = {};
    parse_options.find_message = g_runtime_schema ? pbc_schema_finder : nullptr;
    parse_options.find_message_ctx = g_runtime_schema;
    parse_options.extensions = TextExtensions(&parse_options.extension_count);
    const pbc_status s = pbc_text_parse(info, m, text.data(), text.size(), &arena, &parse_options,
                                        &error);
    if (info->desc->flags & PBC_MESSAGE_NO_NAMES) {
      if (s != PBC_ERR_NO_NAMES)
        return Fail(form, std::string("a LITE_RUNTIME message parsed: ") + StatusName(s),
                    bytes, &text);
      return true;
    }
    const std::string where = std::to_string(error.line) + ":" + std::to_string(error.column) +
                              ": " + error.message;
    // pbc's message is cut to its buffer.
    const size_t room = sizeof error.message - 1;
    const std::string lib_where =
        std::to_string(lib_error.line + 1) + ":" + std::to_string(lib_error.column + 1) + ": " +
        (strlen(error.message) == room ? lib_error.message.substr(0, room) : lib_error.message);
    if (lib_ok && s == PBC_OK) {
      std::string got(pbc_message_encoded_size(info, m), '\0');
      size_t n = 0;
      if (pbc_message_encode(info, m, reinterpret_cast<uint8_t *>(got.data()), got.size(), &n) != PBC_OK ||
          n != got.size())
        return Fail(form, "cannot encode what pbc_text_parse made", bytes, &text);
      // Through libprotobuf, whose bytes sort map entries: pbc keeps them
      // in the order read, which a corruption may have unsorted.
      std::unique_ptr<Message> back = TextReference();
      if (!back->ParseFromString(got))
        return Fail(form, "libprotobuf cannot parse pbc's encoding of pbc_text_parse's message",
                    bytes, &text);
      got = LibBytes(back.get());
      std::string want = LibBytes(lib.get());
      if (got != want)
        return Fail(form,
                    "pbc_text_parse's message differs from libprotobuf's for the text:\n" + text,
                    bytes, &want, &got);
      return true;
    }
    // The conformance suite's rules, stricter than 3.21's parser: pbc may
    // stop there where libprotobuf goes on (to accept, or to fail later).
    const bool conformance_rule =
        s == PBC_ERR_INVALID_UTF8 ||
        strstr(error.message, "Unicode escape of a surrogate") != nullptr;
    if (conformance_rule &&
        (lib_ok || lib_error.line + 1 > static_cast<int>(error.line) ||
         (lib_error.line + 1 == static_cast<int>(error.line) &&
          lib_error.column + 1 >= static_cast<int>(error.column)))) {
      g_stats["text parse: conformance rule"].first++;
      return true;
    }
    if (lib_ok) {
      return Fail(form, "pbc_text_parse rejects what libprotobuf accepts: " + where +
                            "\ntext:\n" + text, bytes);
    }
    if (s == PBC_OK) {
      // A required field missing only inside an extension's message: not
      // checked by pbc, which keeps extensions in the unknown fields (as
      // its decoder, above).
      std::unique_ptr<Message> partial = TextReference();
      gp::TextFormat::Parser partial_parser;
      partial_parser.AllowPartialMessage(true);
      if (lib_error.line == -1 && partial_parser.ParseFromString(text, partial.get()) &&
          MissingOnlyInExtensions(*partial)) {
        g_stats["text parse: required field inside an extension"].first++;
        return true;
      }
      return Fail(form, "pbc_text_parse accepts what libprotobuf rejects (" + lib_where +
                            ")\ntext:\n" + text, bytes);
    }
    g_stats["text parse: rejected"].first++;
    if (lib_error.line == -1) {
      // An error of the whole message: a required field missing.
      if (s != PBC_ERR_MISSING_REQUIRED || lib_error.message.rfind("Message missing required", 0) != 0)
        return Fail(form, "libprotobuf: " + lib_where + "; pbc: " + StatusName(s) + " " + where,
                    bytes, &text);
      return true;
    }
    if (where != lib_where)
      return Fail(form, "a different error:\n  libprotobuf: " + lib_where + "\n  pbc:         " +
                            where + "\ntext:\n" + text, bytes);
    return true;
  }

  // Both parse `input` (or both reject it); accepted input re-encodes to the
  // same bytes (see Expect for the variations).
  bool Same(const char *check, const std::string &input, const Expect &e = Expect()) {
    if (Opaque()) return SameOpaque(check, input);
    Enter(check, input);
    // Corrupted inputs (kNormalized) are judged by pbc's view of the schema,
    // extensions as unknown fields (see Schema::NewOpaque).
    const bool opaque_view = e.compare == Compare::kNormalized;
    std::unique_ptr<Message> lib =
        opaque_view ? ctx_.schema->NewOpaque(d_) : ctx_.schema->New(d_);
    g_last_log.clear();
    bool lib_ok = LibParse(input, lib.get(), e);
    bool lib_initialized = lib_ok && lib->IsInitialized();
    if (!lib_ok && !e.partial && !e.must_reject && e.lib_recursion_limit < 0) {
      // A required field missing only inside an extension is no error for
      // pbc, which keeps extensions as raw bytes.
      std::unique_ptr<Message> partial = ctx_.schema->New(d_);
      if (partial->ParsePartialFromString(input) && MissingOnlyInExtensions(*partial)) {
        lib = std::move(partial);
        lib_ok = true;
        lib_initialized = true;
      }
    }
    auto &stat = g_stats[check];
    stat.first++;
    if (!lib_ok) stat.second++;
    const bool no_reference =
        e.compare == Compare::kNormalized && lib_ok && ClosedEnumInMapEntry(*lib);
    std::string lib_out;
    if (lib_ok) lib_out = LibBytes(lib.get());
    if (e.must_reject && lib_ok)
      return Fail(check, "harness error: libprotobuf accepted an input built to be invalid",
                  input, &lib_out, nullptr);
    if (e.expect_lib && lib_ok && lib_out != *e.expect_lib)
      return Fail(check,
                  "harness error: libprotobuf re-serializes the variant encoding differently "
                  "from the original message (lib output vs original shown)",
                  input, &lib_out, e.expect_lib);
    if (e.expect_lib && !lib_ok)
      return Fail(check, "harness error: libprotobuf rejected a variant encoding", input);
    std::string err;
    pbc_status s = pbc_->Decode(input, r_.Chance(0.5), r_.Chance(0.3), &err, SIZE_MAX, e.options);
    if (!err.empty()) return Fail(check, err, input);
    if (!lib_ok) {
      if (s == PBC_OK) {
        std::string pbc_out;
        pbc_->Encode(&pbc_out, &err);
        return Fail(check, "libprotobuf rejects this input, pbc accepted it", input, nullptr,
                    &pbc_out);
      }
      if (e.status != PBC_OK && s != e.status)
        return Fail(check, std::string("pbc returned ") + StatusName(s) + ", want " +
                               StatusName(e.status),
                    input);
      return true;
    }
    if (s != PBC_OK)
      return Fail(check, std::string("libprotobuf accepts this input, pbc returned ") +
                             StatusName(s),
                  input, &lib_out, nullptr);
    if (pbc_->IsInitialized() != lib_initialized)
      return Fail(check,
                  std::string("is_initialized says ") +
                      (pbc_->IsInitialized() ? "true" : "false") + ", libprotobuf's IsInitialized " +
                      (lib_initialized ? "true" : "false"),
                  input, &lib_out, nullptr);
    std::string pbc_out;
    if (!pbc_->Encode(&pbc_out, &err)) return Fail(check, err, input, &lib_out, nullptr);
    if (no_reference) {
      g_stats[std::string(check) + ": closed enum in a map entry (see (g))"].first++;
      return true;
    }
    if (e.compare != Compare::kExact) {
      // libprotobuf's parse-serialize is not always idempotent (undeclared
      // closed-enum values from packed runs), so normalize both sides.
      std::string norm_pbc, norm_lib;
      if (!Normalize(pbc_out, &norm_pbc, opaque_view))
        return Fail(check, "libprotobuf cannot parse pbc's re-encoding", input, &lib_out,
                    &pbc_out);
      if (!Normalize(lib_out, &norm_lib, opaque_view))
        return Fail(check, "harness error: libprotobuf cannot parse its own output", input,
                    &lib_out, &pbc_out);
      if (norm_pbc != norm_lib)
        return Fail(check,
                    "pbc's re-encoding means something else than libprotobuf's parse "
                    "(compared after a libprotobuf round trip)",
                    input, &lib_out, &pbc_out);
      if (e.compare == Compare::kReordered && pbc_out.size() != lib_out.size())
        return Fail(check,
                    "pbc's re-encoding (map entries in the order read) has another size than "
                    "libprotobuf's (sorted)",
                    input, &lib_out, &pbc_out);
      return true;
    }
    if (pbc_out != lib_out)
      return Fail(check, "pbc and libprotobuf re-encode this input differently", input,
                  &lib_out, &pbc_out);
    return true;
  }

  // pbc must accept `input` and re-encode it to `expected` (for inputs on
  // which libprotobuf's DynamicMessage is no reference; see the callers).
  bool Against(const char *check, const std::string &input, const std::string &expected) {
    Enter(check, input);
    g_stats[check].first++;
    std::string err;
    pbc_status s = pbc_->Decode(input, r_.Chance(0.5), r_.Chance(0.3), &err);
    if (!err.empty()) return Fail(check, err, input);
    if (s != PBC_OK)
      return Fail(check, std::string("pbc returned ") + StatusName(s), input, &expected, nullptr);
    std::string out;
    if (!pbc_->Encode(&out, &err)) return Fail(check, err, input, &expected, nullptr);
    if (out != expected)
      return Fail(check, "pbc's re-encoding differs from the expected bytes (shown as "
                         "libprotobuf's)",
                  input, &expected, &out);
    return true;
  }

  // (f): a tiny arena cap: PBC_OK with the right bytes, or ARENA_LIMIT.
  bool ArenaCap(const std::string &bytes) {
    g_stats["arena cap"].first++;
    Enter("arena cap", bytes);
    std::string err;
    size_t cap = static_cast<size_t>(r_.Below(3)) * static_cast<size_t>(r_.Range(0, 256));
    pbc_status s = pbc_->Decode(bytes, r_.Chance(0.5), false, &err, cap);
    if (!err.empty()) return Fail("arena cap", err, bytes);
    if (s == PBC_ERR_ARENA_LIMIT) return true;
    if (s != PBC_OK)
      return Fail("arena cap",
                  "decode with an arena capped at " + std::to_string(cap) + " bytes returned " +
                      StatusName(s) + ", want PBC_OK or PBC_ERR_ARENA_LIMIT",
                  bytes);
    std::string out;
    if (!pbc_->Encode(&out, &err)) return Fail("arena cap", err, bytes);
    if (out != bytes)
      return Fail("arena cap", "re-encoding after a capped-arena decode differs", bytes, &bytes,
                  &out);
    return true;
  }

  // (o) the generic operations (pbc_message_clear, _copy, _merge, _equal)
  // against libprotobuf's Clear, CopyFrom, MergeFrom and
  // MessageDifferencer::Equals, in pbc's view of the schema (extensions as
  // unknown fields), over four messages: this one; another random one;
  // this one with a field changed or cleared (often equal, sometimes not);
  // this one encoded otherwise (maps in another order, overlong
  // varints, unknown fields: equal unless those are new), and that one with
  // its unknown fields reordered.
  bool Ops(const Message &msg, const std::string &bytes) {
    g_stats["generic operations"].first++;
    Enter("generic operations", bytes);
    std::vector<std::string> inputs = {bytes};
    std::unique_ptr<Message> other = ctx_.schema->New(d_);
    Filler(r_, *ctx_.schema, ctx_.opts->max_depth, Opaque()).Fill(other.get(), 0);
    inputs.push_back(LibBytes(other.get()));
    std::unique_ptr<Message> changed(msg.New());
    changed->CopyFrom(msg);
    std::vector<const FieldDescriptor *> set;
    changed->GetReflection()->ListFields(*changed, &set);
    if (!set.empty()) {
      const FieldDescriptor *f = set[r_.Below(set.size())];
      if (f->is_repeated() || f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE || r_.Chance(0.3))
        changed->GetReflection()->ClearField(changed.get(), f);
      else
        SetRandomValue(r_, changed.get(), f);
    }
    inputs.push_back(Det(*changed));
    if (!Opaque()) {
      VariantStats stats;
      inputs.push_back(VariantEncoder(r_, *ctx_.schema, ctx_.opts->unknown_fields, &stats)
                           .Encode(msg, 0));
      // That one's unknown fields (with --unknown-fields; extensions are
      // unknown fields too) in another order, those of one number and type
      // kept in theirs: equal for MessageDifferencer, which sorts them.
      std::unique_ptr<Message> moved = ctx_.schema->NewOpaque(d_);
      bool parsed = moved->ParsePartialFromString(inputs.back());
      const gp::UnknownFieldSet &unknown = moved->GetReflection()->GetUnknownFields(*moved);
      if (parsed && unknown.field_count() > 1) {
        std::map<std::pair<int, int>, uint64_t> rank;
        for (int i = 0; i < unknown.field_count(); i++)
          rank.emplace(std::make_pair(unknown.field(i).number(), unknown.field(i).type()), r_.Next());
        std::vector<int> order;
        for (int i = 0; i < unknown.field_count(); i++) order.push_back(i);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
          return rank[{unknown.field(a).number(), unknown.field(a).type()}] <
                 rank[{unknown.field(b).number(), unknown.field(b).type()}];
        });
        gp::UnknownFieldSet reordered;
        for (int i : order) reordered.AddField(unknown.field(i));
        moved->GetReflection()->MutableUnknownFields(moved.get())->Swap(&reordered);
        inputs.push_back(Det(*moved));
        g_stats["generic operations: unknown fields reordered"].first++;
      }
    }
    std::unique_ptr<Message> prototype = ctx_.schema->NewOpaque(d_);
    pbc_equal_options eq = {g_runtime_schema ? pbc_schema_finder : nullptr, g_runtime_schema};
    pbc_test::OpsReference ref{prototype.get(),
                               [](Message *m) {
                                 NormalizeMaps(m);
                                 PlaceExtensions(m);
                               },
                               Det, ClosedEnumInMapEntry, &eq};
    std::string why;
    if (!pbc_test::OpsMatch(ref, pbc_->info(), inputs, &why))
      return Fail("generic operations", why, bytes);
    return true;
  }

 private:
  // A message_set_wire_format message: libprotobuf 3.21's DynamicMessage
  // drops message-set items when it parses, so it is no reference. Such a
  // message has no fields: pbc keeps all of it as unknown fields, raw.
  bool Opaque() const { return d_->options().message_set_wire_format(); }

  // A message type without fields (proto2), for libprotobuf to read any
  // input as unknown fields only.
  static std::unique_ptr<Message> NewEmpty() {
    static gp::DescriptorPool pool;
    static std::unique_ptr<gp::DynamicMessageFactory> factory;
    static const Descriptor *empty = nullptr;
    if (!empty) {
      gp::FileDescriptorProto p;
      p.set_name("difftest_empty.proto");
      p.set_package("difftest");
      p.add_message_type()->set_name("Empty");
      if (!pool.BuildFile(p)) Die("cannot build difftest.Empty");
      empty = pool.FindMessageTypeByName("difftest.Empty");
      factory.reset(new gp::DynamicMessageFactory(&pool));
    }
    return std::unique_ptr<Message>(factory->GetPrototype(empty)->New());
  }

  // For a message set: libprotobuf reading the input as a message without
  // fields (all unknown fields) decides whether it is well-formed; pbc must
  // accept exactly those inputs and give them back unchanged.
  bool SameOpaque(const char *check, const std::string &input) {
    Enter(check, input);
    bool ref_ok = NewEmpty()->ParseFromString(input);
    auto &stat = g_stats[std::string(check) + " (message set)"];
    stat.first++;
    if (!ref_ok) stat.second++;
    std::string err;
    pbc_status s = pbc_->Decode(input, r_.Chance(0.5), r_.Chance(0.3), &err);
    if (!err.empty()) return Fail(check, err, input);
    std::string pbc_out;
    if (s == PBC_OK && !pbc_->Encode(&pbc_out, &err)) return Fail(check, err, input);
    if (!ref_ok && s == PBC_OK)
      return Fail(check, "libprotobuf rejects this input (as a message without fields), pbc "
                         "accepted it",
                  input, nullptr, &pbc_out);
    if (ref_ok && s != PBC_OK)
      return Fail(check, std::string("libprotobuf accepts this input (as a message without "
                                     "fields), pbc returned ") + StatusName(s),
                  input);
    std::string want = ref_ok ? PlacedItems(input) : input;
    if (ref_ok && pbc_out != want)
      return Fail(check,
                  "pbc does not give back a message set's bytes unchanged (but for the "
                  "extensions' items, first by type id)",
                  input, &want, &pbc_out);
    return true;
  }

  // A message set's well-formed bytes as pbc writes them back: the items of
  // its extensions (runtime/extension.c's read_item: a type id and a
  // message, the last of each) first, by type id, those of one id in their
  // order, then the other records as they came; each record's bytes kept.
  std::string PlacedItems(const std::string &in) const {
    gp::io::CodedInputStream cis(reinterpret_cast<const uint8_t *>(in.data()),
                                 static_cast<int>(in.size()));
    struct Rec {
      int64_t id;  // -1: not an extension's item
      std::string bytes;
    };
    std::vector<Rec> recs;
    for (;;) {
      int start = cis.CurrentPosition();
      uint32_t tag = cis.ReadTag();
      if (tag == 0) break;
      int body = cis.CurrentPosition();
      if (!gp::internal::WireFormatLite::SkipField(&cis, tag)) break;
      int end = cis.CurrentPosition();
      Rec r{-1, in.substr(start, end - start)};
      if (tag == gp::internal::WireFormatLite::MakeTag(
                     1, gp::internal::WireFormatLite::WIRETYPE_START_GROUP)) {
        gp::io::CodedInputStream item(reinterpret_cast<const uint8_t *>(in.data()) + body,
                                      end - body);
        int64_t id = 0;
        bool has_id = false, has_message = false;
        for (;;) {
          uint32_t t = item.ReadTag();
          if (t == 0 || t == gp::internal::WireFormatLite::MakeTag(
                                  1, gp::internal::WireFormatLite::WIRETYPE_END_GROUP))
            break;
          uint64_t v;
          if (t == gp::internal::WireFormatLite::MakeTag(
                       2, gp::internal::WireFormatLite::WIRETYPE_VARINT)) {
            if (!item.ReadVarint64(&v)) break;
            id = static_cast<int64_t>(v), has_id = true;
          } else {
            if (t == gp::internal::WireFormatLite::MakeTag(
                         3, gp::internal::WireFormatLite::WIRETYPE_LENGTH_DELIMITED))
              has_message = true;
            if (!gp::internal::WireFormatLite::SkipField(&item, t)) break;
          }
        }
        const FieldDescriptor *e =
            has_id && has_message && id > 0 && id <= 536870911
                ? ctx_.schema->importer->pool()->FindExtensionByNumber(d_, static_cast<int>(id))
                : nullptr;
        if (e && e->type() == FieldDescriptor::TYPE_MESSAGE && !e->is_repeated()) r.id = id;
      }
      recs.push_back(std::move(r));
    }
    std::string out;
    std::vector<const Rec *> items;
    for (const Rec &r : recs)
      if (r.id >= 0) items.push_back(&r);
    std::stable_sort(items.begin(), items.end(),
                     [](const Rec *a, const Rec *b) { return a->id < b->id; });
    for (const Rec *r : items) out += r->bytes;
    for (const Rec &r : recs)
      if (r.id < 0) out += r.bytes;
    return out + in.substr(static_cast<size_t>(cis.CurrentPosition()));
  }

  bool LibParse(const std::string &in, Message *m, const Expect &e) {
    if (e.lib_recursion_limit < 0)
      return e.partial ? m->ParsePartialFromString(in) : m->ParseFromString(in);
    gp::io::CodedInputStream cis(reinterpret_cast<const uint8_t *>(in.data()),
                                 static_cast<int>(in.size()));
    cis.SetRecursionLimit(e.lib_recursion_limit);
    bool ok = e.partial ? m->ParsePartialFromCodedStream(&cis) : m->ParseFromCodedStream(&cis);
    return ok && cis.ConsumedEntireMessage();
  }

  bool Normalize(const std::string &in, std::string *out, bool opaque_view) {
    std::unique_ptr<Message> m = opaque_view ? ctx_.schema->NewOpaque(d_) : ctx_.schema->New(d_);
    if (!m->ParsePartialFromString(in)) return false;
    *out = LibBytes(m.get());
    return true;
  }

  bool Fail(const std::string &check, const std::string &detail, const std::string &input,
            const std::string *lib = nullptr, const std::string *pbc = nullptr) {
    failure_.check = check;
    failure_.detail = detail;
    failure_.input = input;
    failure_.has_lib = lib != nullptr;
    failure_.has_pbc = pbc != nullptr;
    if (lib) failure_.lib_out = *lib;
    if (pbc) failure_.pbc_out = *pbc;
    return false;
  }

  const Context &ctx_;
  const Descriptor *d_;
  PbcMessage *pbc_;
  Rng &r_;
  Failure failure_;
};

std::string Mutate(Rng &r, std::string s) {
  int n = static_cast<int>(r.Range(1, 3));
  for (int i = 0; i < n; i++) {
    uint64_t what = r.Below(7);
    size_t at = static_cast<size_t>(r.Below(s.size() + 1));
    switch (what) {
      case 0:  // flip a bit
        if (!s.empty()) s[at % s.size()] ^= static_cast<char>(1u << r.Below(8));
        break;
      case 1:  // a random byte
        if (!s.empty()) s[at % s.size()] = static_cast<char>(r.Next());
        break;
      case 2:  // insert a byte
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), static_cast<char>(r.Next()));
        break;
      case 3:  // delete a byte
        if (!s.empty()) s.erase(at % s.size(), 1);
        break;
      case 4:  // cut
        s.resize(at);
        break;
      case 5: {  // duplicate a slice
        size_t len = static_cast<size_t>(r.Below(std::min<size_t>(s.size() - at, 16) + 1));
        s.insert(at, s.substr(at, len));
        break;
      }
      default:  // a continuation bit on a byte
        if (!s.empty()) s[at % s.size()] |= static_cast<char>(0x80);
        break;
    }
  }
  return s;
}

// Offsets where the top-level fields of `bytes` end (all but the last).
std::vector<size_t> FieldBoundaries(const std::string &bytes) {
  std::vector<size_t> out;
  gp::io::CodedInputStream in(reinterpret_cast<const uint8_t *>(bytes.data()),
                              static_cast<int>(bytes.size()));
  for (;;) {
    uint32_t tag = in.ReadTag();
    if (tag == 0 || !WFL::SkipField(&in, tag)) break;
    size_t pos = static_cast<size_t>(in.CurrentPosition());
    if (pos >= bytes.size()) break;
    out.push_back(pos);
  }
  return out;
}

// Closed-enum fields and map fields whose values are closed enums, anywhere
// in the tree (not in extensions or message sets).
void CollectClosedEnums(Message *m, std::vector<FieldSlot> *out) {
  const Reflection *R = m->GetReflection();
  const Descriptor *d = m->GetDescriptor();
  for (int i = 0; i < d->field_count(); i++) {
    const FieldDescriptor *f = d->field(i);
    const FieldDescriptor *vf = f->is_map() ? f->message_type()->map_value() : f;
    if (vf->type() == FieldDescriptor::TYPE_ENUM && !IsOpenEnum(vf)) out->push_back({m, f});
  }
  std::vector<const FieldDescriptor *> fields;
  R->ListFields(*m, &fields);
  for (const FieldDescriptor *f : fields) {
    if (!IsMessageLike(f) || f->is_extension() || IsMessageSetField(f)) continue;
    if (f->is_map()) {
      const FieldDescriptor *vf = f->message_type()->map_value();
      if (!IsMessageLike(vf)) continue;
      for (int k = 0; k < R->FieldSize(*m, f); k++) {
        Message *e = R->MutableRepeatedMessage(m, f, k);
        CollectClosedEnums(e->GetReflection()->MutableMessage(e, vf), out);
      }
    } else if (f->is_repeated()) {
      for (int k = 0; k < R->FieldSize(*m, f); k++)
        CollectClosedEnums(R->MutableRepeatedMessage(m, f, k), out);
    } else {
      CollectClosedEnums(R->MutableMessage(m, f), out);
    }
  }
}

// (g) Undeclared closed-enum values where libprotobuf's two parsers differ,
// judged by the C++ code protoc generates (libprotobuf 3.21's parser for
// compiled messages; DynamicMessage differs in both cases):
//  - a single record (singular, oneof member or repeated field) holding a
//    varint whose low 32 bits the enum does not declare: generated code
//    keeps the 64-bit value read as an unknown varint field (DynamicMessage
//    keeps it truncated to int32 and sign-extended);
//  - a map entry whose value the enum does not declare: generated code
//    moves the whole entry to the unknown fields of the message holding the
//    map, re-serialized as key then value (the int32 value sign-extended);
//    an entry already in the map with that key stays (DynamicMessage keeps
//    the entry with the enum's first value, the undeclared value stays in
//    the entry's own unknown fields, and its map then drops them).
// Either way the unknown field lands in the unknown fields in the order
// read. The expected bytes are made here: the message with that unknown
// field added, serialized by libprotobuf; the input is its variant encoding
// (the unknown field then reads as a record of the enum or map field).
bool CheckClosedEnumUnknowns(const Context &ctx, const Message &msg, Checker *c, Rng &r) {
  std::unique_ptr<Message> copy(msg.New());
  copy->CopyFrom(msg);
  std::vector<FieldSlot> slots;
  CollectClosedEnums(copy.get(), &slots);
  if (slots.empty()) return true;
  FieldSlot slot = slots[r.Below(slots.size())];
  const Reflection *R = slot.msg->GetReflection();
  const char *check;
  if (!slot.field->is_map()) {
    check = "closed enum, 64-bit record";
    uint64_t low = static_cast<uint32_t>(UndeclaredEnumValue(r, slot.field));
    uint64_t raw = r.Chance(0.5) ? low : low | ((r.Next() | 1) << 32);
    R->MutableUnknownFields(slot.msg)->AddVarint(slot.field->number(), raw);
  } else {
    check = "closed enum in map value";
    const gp::Descriptor *ed = slot.field->message_type();
    const FieldDescriptor *kf = ed->map_key();
    const FieldDescriptor *vf = ed->map_value();
    // The key: an existing one (that entry must stay) or a random one.
    std::unique_ptr<Message> entry(ctx.schema->factory->GetPrototype(ed)->New());
    int n = R->FieldSize(*slot.msg, slot.field);
    if (n > 0 && r.Chance(0.5))
      entry->CopyFrom(R->GetRepeatedMessage(*slot.msg, slot.field, static_cast<int>(r.Below(n))));
    else
      SetRandomValue(r, entry.get(), kf);
    // The entry as generated code re-serializes it: key, then the value.
    std::string body;
    {
      gp::io::StringOutputStream so(&body);
      gp::io::CodedOutputStream cos(&so);
      const Reflection *E = entry->GetReflection();
      switch (kf->type()) {
        case FieldDescriptor::TYPE_INT32: WFL::WriteInt32(1, E->GetInt32(*entry, kf), &cos); break;
        case FieldDescriptor::TYPE_SINT32: WFL::WriteSInt32(1, E->GetInt32(*entry, kf), &cos); break;
        case FieldDescriptor::TYPE_SFIXED32: WFL::WriteSFixed32(1, E->GetInt32(*entry, kf), &cos); break;
        case FieldDescriptor::TYPE_INT64: WFL::WriteInt64(1, E->GetInt64(*entry, kf), &cos); break;
        case FieldDescriptor::TYPE_SINT64: WFL::WriteSInt64(1, E->GetInt64(*entry, kf), &cos); break;
        case FieldDescriptor::TYPE_SFIXED64: WFL::WriteSFixed64(1, E->GetInt64(*entry, kf), &cos); break;
        case FieldDescriptor::TYPE_UINT32: WFL::WriteUInt32(1, E->GetUInt32(*entry, kf), &cos); break;
        case FieldDescriptor::TYPE_FIXED32: WFL::WriteFixed32(1, E->GetUInt32(*entry, kf), &cos); break;
        case FieldDescriptor::TYPE_UINT64: WFL::WriteUInt64(1, E->GetUInt64(*entry, kf), &cos); break;
        case FieldDescriptor::TYPE_FIXED64: WFL::WriteFixed64(1, E->GetUInt64(*entry, kf), &cos); break;
        case FieldDescriptor::TYPE_BOOL: WFL::WriteBool(1, E->GetBool(*entry, kf), &cos); break;
        case FieldDescriptor::TYPE_STRING: WFL::WriteString(1, E->GetString(*entry, kf), &cos); break;
        default: Die("map key of type %s", kf->type_name());
      }
      WFL::WriteEnum(2, UndeclaredEnumValue(r, vf), &cos);
    }
    R->MutableUnknownFields(slot.msg)->AddLengthDelimited(slot.field->number(), body);
  }
  std::string expected = LibBytes(copy.get());
  for (int attempt = 0; attempt < 4; attempt++) {
    VariantStats stats;
    // No unknown fields of its own: they would not be in `expected`.
    VariantEncoder enc(r, *ctx.schema, false, &stats);
    std::string variant = enc.Encode(*copy, 0);
    if (stats.map_order) continue;  // pbc keeps that order; `expected` is sorted
    return c->Against(check, variant, expected);
  }
  return true;
}

// All checks for one message with its canonical bytes. Returns false and
// reports on the first failure.
// (x) Extensions through pbc's accessors (pbc.h, "Extensions"), for each
// extension of the message's type in pbc's registry, against libprotobuf's
// ExtensionSet: has and size; each value read from the decoded message
// (scalars and strings compared with libprotobuf's getters, set or not)
// and set alone on an empty message (by pbc_extension_set, and element by
// element by pbc_extension_add) gives libprotobuf's bytes of a message
// holding only that extension; clearing one gives its bytes without it;
// and the message without its extensions, each then set in a random
// order, gives the message's bytes (libprotobuf writes extensions by
// number, and so do pbc's setters).
bool CheckExtensions(const Context &ctx, const Message &msg, Rng &r) {
  const Descriptor *d = msg.GetDescriptor();
  const pbc_message_info *info =
      g_runtime_schema ? pbc_schema_find_message(g_runtime_schema, d->full_name().c_str())
                       : pbc_find_message(d->full_name().c_str());
  if (!info || d->extension_range_count() == 0) return true;
  std::vector<const pbc_extension_info *> exts;
  size_t listed = 0;
  const pbc_extension_info *const *list = TextExtensions(&listed);
  for (size_t i = 0; i < (list ? listed : pbc_extension_count()); i++) {
    const pbc_extension_info *e = list ? list[i] : pbc_extension_at(i);
    if (e && e->extendee == info->desc) exts.push_back(e);
  }
  if (exts.empty()) return true;
  g_stats["extensions"].first++;
  const Reflection *R = msg.GetReflection();
  const gp::DescriptorPool *pool = d->file()->pool();
  ScopedArena scoped;
  pbc_arena &arena = scoped.a;
  const pbc_decode_options partial = {0, true, false};
  auto fresh = [&]() {
    void *m = pbc_message_new(info, &arena);
    if (!m) Die("out of memory");
    return m;
  };
  auto encode = [&](const void *m) {
    std::string out(pbc_message_encoded_size(info, m), '\0');
    size_t written = 0;
    pbc_message_encode(info, m, reinterpret_cast<uint8_t *>(&out[0]), out.size(), &written);
    out.resize(written);
    return out;
  };
  const std::string bytes = Det(msg);
  auto decoded = [&]() {
    void *m = fresh();
    pbc_status st = pbc_decode(info, m, reinterpret_cast<const uint8_t *>(bytes.data()),
                               bytes.size(), &arena, &partial);
    return st == PBC_OK ? m : nullptr;
  };
  auto fail = [&](const std::string &check, const std::string &detail, const std::string *lib,
                  const std::string *pbc) {
    Failure f;
    f.check = "extensions: " + check;
    f.detail = detail;
    f.input = bytes;
    if (lib) f.has_lib = true, f.lib_out = *lib;
    if (pbc) f.has_pbc = true, f.pbc_out = *pbc;
    ReportFailure(ctx, d, f);
    return false;
  };
  void *whole = decoded();
  if (!whole) return fail("decode", "pbc does not decode libprotobuf's bytes", nullptr, nullptr);

  for (const pbc_extension_info *e : exts) {
    const FieldDescriptor *fd = pool->FindExtensionByName(e->full_name);
    std::string name = e->full_name;
    if (!fd) return fail(name, "libprotobuf has no extension of that name", nullptr, nullptr);
    size_t lib_size = fd->is_repeated() ? static_cast<size_t>(R->FieldSize(msg, fd))
                                        : R->HasField(msg, fd);
    if (pbc_extension_has(e, whole) != (lib_size != 0) || pbc_extension_size(e, whole) != lib_size)
      return fail(name + " has/size",
                  "libprotobuf holds " + std::to_string(lib_size) + ", pbc_extension_size says " +
                      std::to_string(pbc_extension_size(e, whole)),
                  nullptr, nullptr);
    alignas(16) uint8_t value[16] = {};
    pbc_status st = pbc_extension_get(e, whole, &arena, value);
    if (st != PBC_OK)
      return fail(name + " get", std::string("pbc_extension_get: ") + pbc_status_str(st),
                  nullptr, nullptr);
    // Singular scalars and strings, present or not: libprotobuf's getter.
    if (!fd->is_repeated() && fd->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
      bool same = true;
      std::string lib_text, pbc_text;
      switch (fd->cpp_type()) {
#define SCALAR(CPP, T, Get)                                                  \
  case FieldDescriptor::CPP: {                                               \
    T v;                                                                     \
    memcpy(&v, value, sizeof v);                                             \
    T want = R->Get(msg, fd);                                                \
    same = memcmp(&v, &want, sizeof v) == 0;                                 \
    lib_text = std::to_string(want), pbc_text = std::to_string(v);           \
    break;                                                                   \
  }
        SCALAR(CPPTYPE_INT32, int32_t, GetInt32)
        SCALAR(CPPTYPE_INT64, int64_t, GetInt64)
        SCALAR(CPPTYPE_UINT32, uint32_t, GetUInt32)
        SCALAR(CPPTYPE_UINT64, uint64_t, GetUInt64)
        SCALAR(CPPTYPE_FLOAT, float, GetFloat)
        SCALAR(CPPTYPE_DOUBLE, double, GetDouble)
        SCALAR(CPPTYPE_ENUM, int32_t, GetEnumValue)
#undef SCALAR
      case FieldDescriptor::CPPTYPE_BOOL: {
        bool want = R->GetBool(msg, fd);
        same = (value[0] != 0) == want;
        lib_text = want ? "true" : "false", pbc_text = value[0] ? "true" : "false";
        break;
      }
      case FieldDescriptor::CPPTYPE_STRING: {
        pbc_bytes v;
        memcpy(&v, value, sizeof v);
        lib_text = R->GetString(msg, fd);
        pbc_text.assign(reinterpret_cast<const char *>(v.data), v.size);
        same = lib_text == pbc_text;
        break;
      }
      default:
        break;
      }
      if (!same)
        return fail(name + " value", "libprotobuf's getter gives " + lib_text + ", pbc's " + pbc_text,
                    nullptr, nullptr);
    }
    // The value alone, set on an empty message.
    std::unique_ptr<Message> only(msg.New());
    if (fd->is_repeated()) {
      for (int i = 0; i < R->FieldSize(msg, fd); i++) CopyElement(msg, fd, i, only.get(), ctx.schema->factory.get());
    } else if (R->HasField(msg, fd)) {
      CopySingular(msg, fd, only.get(), ctx.schema->factory.get());
    }
    const std::string want = Det(*only);
    // (An absent singular scalar reads as its default: set, it would be
    // present.)
    void *alone = fresh();
    if (fd->is_repeated() || lib_size) st = pbc_extension_set(e, alone, value, &arena);
    std::string got = encode(alone);
    if (st != PBC_OK || got != want)
      return fail(name + " set", std::string("pbc_extension_set: ") + pbc_status_str(st), &want,
                  &got);
    if (fd->is_repeated()) {
      struct {
        const uint8_t *data;
        size_t size;
      } view;
      memcpy(&view, value, sizeof view);
      size_t stride = fd->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE
                          ? static_cast<const pbc_message_desc *>(e->link)->size
                      : fd->cpp_type() == FieldDescriptor::CPPTYPE_STRING ? sizeof(pbc_bytes)
                                                                           : 0;
      if (stride == 0) {
        static const uint8_t kBytes[] = {0, 8, 4, 8, 8, 4, 8, 4, 1, 0, 0, 0, 0, 4, 4, 4, 8, 4, 8};
        stride = kBytes[e->type];
      }
      void *added = fresh();
      for (size_t i = 0; i < view.size && st == PBC_OK; i++) {
        const void *element = view.data + i * stride;
        st = fd->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE
                 ? pbc_extension_add(e, added, &element, &arena)
                 : pbc_extension_add(e, added, element, &arena);
      }
      got = encode(added);
      if (st != PBC_OK || got != want)
        return fail(name + " add", std::string("pbc_extension_add: ") + pbc_status_str(st),
                    &want, &got);
    }
    // Cleared.
    void *cleared = decoded();
    st = pbc_extension_clear(e, cleared, &arena);
    std::unique_ptr<Message> lib_cleared(msg.New());
    lib_cleared->CopyFrom(msg);
    lib_cleared->GetReflection()->ClearField(lib_cleared.get(), fd);
    const std::string want_cleared = Det(*lib_cleared);
    got = encode(cleared);
    if (st != PBC_OK || got != want_cleared)
      return fail(name + " clear", std::string("pbc_extension_clear: ") + pbc_status_str(st),
                  &want_cleared, &got);
  }

  // Rebuilt: the message without extensions, then each set (random order).
  if (!R->GetUnknownFields(msg).empty()) return true;
  std::unique_ptr<Message> bare(msg.New());
  bare->CopyFrom(msg);
  std::vector<const FieldDescriptor *> set;
  R->ListFields(msg, &set);
  for (const FieldDescriptor *f : set)
    if (f->is_extension()) bare->GetReflection()->ClearField(bare.get(), f);
  const std::string bare_bytes = Det(*bare);
  void *rebuilt = fresh();
  if (pbc_decode(info, rebuilt, reinterpret_cast<const uint8_t *>(bare_bytes.data()),
                 bare_bytes.size(), &arena, &partial) != PBC_OK)
    return fail("rebuild", "pbc does not decode the message without extensions", nullptr,
                nullptr);
  for (size_t i = exts.size(); i > 1; i--) std::swap(exts[i - 1], exts[r.Below(i)]);
  for (const pbc_extension_info *e : exts) {
    alignas(16) uint8_t value[16] = {};
    if (!pbc_extension_has(e, whole)) continue;
    pbc_status st = pbc_extension_get(e, whole, &arena, value);
    if (st == PBC_OK) st = pbc_extension_set(e, rebuilt, value, &arena);
    if (st != PBC_OK)
      return fail("rebuild", std::string(e->full_name) + ": " + pbc_status_str(st), nullptr,
                  nullptr);
  }
  std::string got = encode(rebuilt);
  if (got != bytes) return fail("rebuild", "every extension set again", &bytes, &got);
  return true;
}

bool CheckMessage(const Context &ctx, const Message &msg, const std::string &bytes,
                  PbcMessage *pbc, Rng &r) {
  const Descriptor *d = msg.GetDescriptor();
  const bool opaque = d->options().message_set_wire_format();
  Checker c(ctx, d, pbc, r);
  auto fail = [&]() {
    ReportFailure(ctx, d, c.failure());
    return false;
  };
  // (a), (b)
  if (!c.Canonical(bytes)) return fail();
  if (!opaque && !c.Described(msg, bytes)) return fail();
  if (!opaque && !c.Text(bytes)) return fail();
  if (!opaque && !c.Json(bytes)) return fail();
  // (c) variant encodings (not for message sets: pbc gives their bytes back
  // as they are, libprotobuf re-encodes them).
  for (int v = 0; v < 2 && !opaque; v++) {
    VariantStats stats;
    VariantEncoder enc(r, *ctx.schema, ctx.opts->unknown_fields, &stats);
    std::string variant = enc.Encode(msg, 0);
    Expect e;
    e.expect_lib = stats.unknown ? nullptr : &bytes;
    e.compare = stats.map_order ? Compare::kReordered : Compare::kExact;
    if (!c.Same(stats.map_order ? "non-canonical wire, maps unsorted" : "non-canonical wire",
                variant, e))
      return fail();
  }
  // (d) truncation: anywhere, and at top-level field boundaries (where
  // libprotobuf accepts the prefix unless a required field is cut off).
  if (!bytes.empty()) {
    std::vector<size_t> cuts = {bytes.size() - 1, 0};
    for (int i = 0; i < 3; i++) cuts.push_back(static_cast<size_t>(r.Below(bytes.size())));
    std::vector<size_t> bounds = FieldBoundaries(bytes);
    for (int i = 0; i < 2 && !bounds.empty(); i++) cuts.push_back(bounds[r.Below(bounds.size())]);
    for (size_t cut : cuts)
      if (!c.Same("truncation", bytes.substr(0, cut))) return fail();
  }
  // (e) invalid UTF-8 in a proto3 string; a missing required field (also
  // decoded with allow_missing_required, which must give libprotobuf's
  // ParsePartial + SerializePartial bytes).
  if (!opaque) {
    std::unique_ptr<Message> copy(msg.New());
    copy->CopyFrom(msg);
    std::vector<FieldSlot> utf8, required;
    CollectSlots(copy.get(), &utf8, &required);
    if (!utf8.empty() && r.Chance(0.3)) {
      FieldSlot slot = utf8[r.Below(utf8.size())];
      const Reflection *R = slot.msg->GetReflection();
      if (slot.field->is_repeated()) {
        int n = R->FieldSize(*slot.msg, slot.field);
        if (n > 0 && r.Chance(0.5))
          R->SetRepeatedString(slot.msg, slot.field, static_cast<int>(r.Below(n)), InvalidUtf8(r));
        else
          R->AddString(slot.msg, slot.field, InvalidUtf8(r));
      } else {
        R->SetString(slot.msg, slot.field, InvalidUtf8(r));
      }
      Expect e;
      e.must_reject = true;
      e.status = PBC_ERR_INVALID_UTF8;
      if (!c.Same("invalid utf-8", Det(*copy), e)) return fail();
    } else if (!required.empty() && r.Chance(0.3)) {
      int n = r.Chance(0.3) ? 2 : 1;
      for (int i = 0; i < n; i++) {
        FieldSlot slot = required[r.Below(required.size())];
        slot.msg->GetReflection()->ClearField(slot.msg, slot.field);
      }
      std::string bad = Det(*copy);
      Expect e;
      e.must_reject = true;
      e.status = PBC_ERR_MISSING_REQUIRED;
      if (!c.Same("missing required", bad, e)) return fail();
      pbc_decode_options o = {0, true, false};
      Expect partial;
      partial.partial = true;
      partial.options = &o;
      if (!c.Same("allow missing required", bad, partial)) return fail();
    }
  }
  // (x) extensions through pbc's accessors.
  if (!CheckExtensions(ctx, msg, r)) return false;
  // (f) arena cap.
  if (r.Chance(0.1) && !c.ArenaCap(bytes)) return fail();
  // (o) generic operations (a third of the cases: each runs about forty
  // parses and decodes).
  if (r.Chance(0.35) && !c.Ops(msg, bytes)) return fail();
  // (g) undeclared closed-enum values where DynamicMessage is no reference.
  if (!opaque && ctx.opts->unknown_fields && r.Chance(0.3) &&
      !CheckClosedEnumUnknowns(ctx, msg, &c, r))
    return fail();
  // (k) unknown fields in non-canonical forms between the top-level fields:
  // pbc keeps unknown fields raw, so it must write the known fields, then
  // these bytes unchanged, in the order read (libprotobuf re-encodes them:
  // its output must mean the same).
  if (!opaque && ctx.opts->unknown_fields && r.Chance(0.3) &&
      msg.GetReflection()->GetUnknownFields(msg).field_count() == 0) {
    std::vector<const FieldDescriptor *> top;
    msg.GetReflection()->ListFields(msg, &top);
    bool top_extensions = false;
    for (const FieldDescriptor *f : top) top_extensions |= f->is_extension();
    if (!top_extensions) {
      VariantStats stats;
      VariantEncoder enc(r, *ctx.schema, true, &stats);
      std::vector<size_t> at = FieldBoundaries(bytes);
      at.push_back(0);
      at.push_back(bytes.size());
      std::vector<std::pair<size_t, std::string>> raw;
      int n = static_cast<int>(r.Range(1, 3));
      for (int i = 0; i < n; i++) raw.push_back({at[r.Below(at.size())], enc.RawUnknownField(d, 0)});
      std::stable_sort(raw.begin(), raw.end(),
                       [](const auto &a, const auto &b) { return a.first < b.first; });
      std::string input, tail;
      size_t pos = 0;
      for (auto &u : raw) {
        input += bytes.substr(pos, u.first - pos) + u.second;
        pos = u.first;
        tail += u.second;
      }
      input += bytes.substr(pos);
      Expect e;
      e.compare = Compare::kNormalized;
      if (!c.Same("raw unknown fields (meaning)", input, e)) return fail();
      if (!c.Against("raw unknown fields (bytes)", input, bytes + tail)) return fail();
    }
  }
  // (h) the max_depth option, at and around the message's own depth,
  // against libprotobuf with that recursion limit. Not with extensions:
  // pbc does not look into them, libprotobuf counts their levels.
  if (!opaque && r.Chance(0.25) && !HasExtensions(msg)) {
    int depth = NestingDepth(msg);
    uint32_t limit = static_cast<uint32_t>(
        std::max<int64_t>(1, r.Chance(0.7) ? depth - static_cast<int>(r.Below(2))
                                           : r.Range(1, depth + 1)));
    std::unique_ptr<Message> probe(msg.New());
    gp::io::CodedInputStream cis(reinterpret_cast<const uint8_t *>(bytes.data()),
                                 static_cast<int>(bytes.size()));
    cis.SetRecursionLimit(static_cast<int>(limit));
    bool lib_ok = probe->ParseFromCodedStream(&cis);
    if (lib_ok != (depth <= static_cast<int>(limit))) {
      fprintf(stdout,
              "FAIL: harness error: %s nests %d levels deep by the harness's count, but "
              "libprotobuf with a recursion limit of %u %s it\n",
              ctx.label.c_str(), depth, limit, lib_ok ? "accepts" : "rejects");
      return false;
    }
    pbc_decode_options o = {limit, false, false};
    Expect e;
    e.options = &o;
    e.lib_recursion_limit = static_cast<int>(limit);
    e.status = PBC_ERR_DEPTH_LIMIT;
    if (!c.Same("max_depth option", bytes, e)) return fail();
  }
  // Mutations.
  for (int i = 0; i < ctx.opts->mutations; i++) {
    std::string m = Mutate(r, bytes);
    Expect e;
    e.compare = Compare::kNormalized;
    if (!c.Same("mutation", m, e)) return fail();
  }
  return true;
}

const pbc_message_info *FindPbc(const std::string &name) {
  if (g_runtime_schema) {
    const pbc_message_info *info = pbc_schema_find_message(g_runtime_schema, name.c_str());
    if (info && (info->init || info->decode || info->encode || info->internal_decoder))
      Die("pbc_schema_find_message(\"%s\") has function pointers", name.c_str());
    return info;
  }
  const pbc_message_info *info = pbc_find_message(name.c_str());
  if (!info) return nullptr;
  if (!info->full_name || name != info->full_name)
    Die("pbc_find_message(\"%s\") returned the entry of \"%s\"", name.c_str(),
        info->full_name ? info->full_name : "(null)");
  if (info->struct_size == 0 || !info->init || !info->decode || !info->encoded_size ||
      !info->encode || !info->is_initialized || !info->internal_decoder)
    Die("pbc_message_info of %s is incomplete", name.c_str());
  return info;
}

// The file and its imports as the FileDescriptorSet protoc would write
// (--include_imports: imports first), loaded with pbc_schema_load.
void LoadRuntimeSchema(const FileDescriptor *file) {
  gp::FileDescriptorSet set;
  std::set<const FileDescriptor *> seen;
  std::function<void(const FileDescriptor *)> add = [&](const FileDescriptor *f) {
    if (!seen.insert(f).second) return;
    for (int i = 0; i < f->dependency_count(); i++) add(f->dependency(i));
    gp::FileDescriptorProto *proto = set.add_file();
    f->CopyTo(proto);
    f->CopyJsonNameTo(proto);
  };
  add(file);
  std::string bytes = set.SerializeAsString();
  pbc_schema_error error;
  pbc_status s = pbc_schema_load(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size(),
                                 &g_runtime_schema, &error);
  if (s != PBC_OK) Die("pbc_schema_load: %s: %s", StatusName(s), error.message);
}

// Whether two descriptions of one message say the same, record for record:
// `linked`, compiled into the program, and `loaded`, built at run time. Link
// targets compare by full name; strings by content; the prototype by bytes,
// a string default's pointer by what it points to.
bool SameDescription(const pbc_message_desc *linked, const pbc_message_desc *loaded,
                     std::string *why) {
  auto fail = [&](const std::string &what) {
    *why = std::string(linked->strings) + ": the loaded description's " + what +
           " differs from the compiled one's";
    return false;
  };
  const pbc_message_desc &a = *linked, &b = *loaded;
  if (strcmp(a.strings, b.strings) != 0) return fail("full name");
  if (strcmp(a.strings + a.file, b.strings + b.file) != 0) return fail("file");
  if (a.field_count != b.field_count || a.oneof_count != b.oneof_count ||
      a.default_count != b.default_count || a.link_count != b.link_count)
    return fail("counts");
  if (a.size != b.size || a.unknown_offset != b.unknown_offset ||
      a.presence_words != b.presence_words || a.dense_below != b.dense_below)
    return fail("layout");
  if (a.syntax != b.syntax || a.edition != b.edition ||
      (a.flags & ~PBC_MESSAGE_NO_NAMES) != b.flags)
    return fail("syntax, edition or flags");
  for (uint32_t i = 0; i < a.field_count; i++) {
    if (memcmp(&a.fields[i], &b.fields[i], sizeof a.fields[i]) != 0)
      return fail("field " + std::to_string(a.fields[i].number));
    if (a.field_names &&
        (strcmp(a.strings + a.field_names[i].name, b.strings + b.field_names[i].name) != 0 ||
         strcmp(a.strings + a.field_names[i].json_name,
                b.strings + b.field_names[i].json_name) != 0))
      return fail("names of field " + std::to_string(a.fields[i].number));
  }
  if (!b.field_names && b.field_count) return fail("names (none)");
  for (uint32_t i = 0; i < a.oneof_count; i++)
    if (a.oneofs[i].case_offset != b.oneofs[i].case_offset ||
        (a.field_names && strcmp(a.strings + a.oneofs[i].name, b.strings + b.oneofs[i].name) != 0))
      return fail("oneof " + std::to_string(i));
  for (uint32_t i = 0; i < a.default_count; i++) {
    const pbc_default &x = a.defaults[i], &y = b.defaults[i];
    bool view = a.fields[x.field].type == PBC_TYPE_STRING || a.fields[x.field].type == PBC_TYPE_BYTES;
    if (x.field != y.field || x.size != y.size ||
        (view ? memcmp(a.strings + x.value, b.strings + y.value, x.size) != 0
              : x.value != y.value))
      return fail("default " + std::to_string(i));
  }
  for (uint32_t i = 0; i < a.link_count; i++) {
    const pbc_field_desc *f = nullptr;
    for (uint32_t j = 0; j < a.field_count && !f; j++)
      if (a.fields[j].link == i && (a.fields[j].type == PBC_TYPE_MESSAGE ||
                                    a.fields[j].type == PBC_TYPE_GROUP ||
                                    a.fields[j].type == PBC_TYPE_ENUM))
        f = &a.fields[j];
    if (!f) return fail("links (one no field uses)");
    const char *x = f->type == PBC_TYPE_ENUM
                        ? static_cast<const pbc_enum_info *>(a.links[i])->full_name
                        : static_cast<const pbc_message_desc *>(a.links[i])->strings;
    const char *y = f->type == PBC_TYPE_ENUM
                        ? static_cast<const pbc_enum_info *>(b.links[i])->full_name
                        : static_cast<const pbc_message_desc *>(b.links[i])->strings;
    if (strcmp(x, y) != 0) return fail("link " + std::to_string(i));
    if (f->type == PBC_TYPE_ENUM) {
      auto *e = static_cast<const pbc_enum_info *>(a.links[i]);
      auto *g = static_cast<const pbc_enum_info *>(b.links[i]);
      if (e->value_count != g->value_count || e->flags != g->flags) return fail("enum " + std::string(x));
      for (uint32_t v = 0; v < e->value_count; v++)
        if (e->values[v].number != g->values[v].number ||
            strcmp(e->strings + e->values[v].name, g->strings + g->values[v].name) != 0)
          return fail("enum " + std::string(x) + " value " + std::to_string(v));
    }
  }
  if (a.lookup_mask != b.lookup_mask ||
      memcmp(a.lookup, b.lookup, (a.lookup_mask + 1u) * sizeof *a.lookup) != 0)
    return fail("lookup table");
  // The compiled checks may hold more: a message of another file is built
  // in another object, so the compiler assumes it may hold a required
  // field; the loader sees the whole schema.
  std::set<uint16_t> loaded_checks(b.checks, b.checks + b.check_count);
  for (uint32_t i = 0; i < a.check_count; i++) {
    const pbc_field_desc &f = a.fields[a.checks[i]];
    if (loaded_checks.erase(a.checks[i])) continue;
    // Allowed when the field reaches a message of another file.
    bool reaches_other_file = false;
    std::vector<const pbc_message_desc *> work;
    std::set<const pbc_message_desc *> seen;
    if (const pbc_message_desc *sub = pbc_field_message(&a, &f)) work.push_back(sub);
    while (!work.empty() && !reaches_other_file) {
      const pbc_message_desc *m = work.back();
      work.pop_back();
      if (!seen.insert(m).second) continue;
      reaches_other_file = strcmp(m->strings + m->file, a.strings + a.file) != 0;
      for (uint32_t j = 0; j < m->field_count; j++)
        if (const pbc_message_desc *sub = pbc_field_message(m, &m->fields[j])) work.push_back(sub);
    }
    if (!reaches_other_file) return fail("checks (field " + std::to_string(f.number) + ")");
  }
  if (!loaded_checks.empty()) return fail("checks (one the compiled has not)");
  if (a.bit_count != b.bit_count || a.other_count != b.other_count ||
      (a.bit_count && memcmp(a.by_bit, b.by_bit, a.bit_count * sizeof *a.by_bit) != 0) ||
      (a.other_count && memcmp(a.others, b.others, a.other_count * sizeof *a.others) != 0))
    return fail("fields by presence");
  if (a.field_count && memcmp(a.tags, b.tags, a.field_count * sizeof *a.tags) != 0)
    return fail("tags");
  if (!a.prototype != !b.prototype) return fail("prototype (one is NULL)");
  if (a.prototype) {
    std::string x(static_cast<const char *>(a.prototype), a.size);
    std::string y(static_cast<const char *>(b.prototype), b.size);
    for (uint32_t i = 0; i < a.default_count; i++) {
      const pbc_field_desc &f = a.fields[a.defaults[i].field];
      if ((f.type != PBC_TYPE_STRING && f.type != PBC_TYPE_BYTES) || f.kind == PBC_FIELD_ONEOF)
        continue;
      pbc_bytes vx, vy;
      memcpy(&vx, x.data() + f.offset, sizeof vx);
      memcpy(&vy, y.data() + f.offset, sizeof vy);
      if (vx.size != vy.size || memcmp(vx.data, vy.data, vx.size) != 0)
        return fail("prototype's string default of field " + std::to_string(f.number));
      memset(&x[f.offset], 0, 8);
      memset(&y[f.offset], 0, 8);
    }
    if (x != y) return fail("prototype");
  }
  return true;
}

void CollectMessages(const Descriptor *d, std::vector<const Descriptor *> *out) {
  if (d->options().map_entry()) return;
  out->push_back(d);
  for (int i = 0; i < d->nested_type_count(); i++) CollectMessages(d->nested_type(i), out);
}

void CollectFileMessages(const FileDescriptor *f, std::set<const FileDescriptor *> *seen,
                         std::vector<const Descriptor *> *out) {
  if (!seen->insert(f).second) return;
  for (int i = 0; i < f->dependency_count(); i++) CollectFileMessages(f->dependency(i), seen, out);
  for (int i = 0; i < f->message_type_count(); i++) CollectMessages(f->message_type(i), out);
}

// Every message of the file and its imports is registered with pbc; init
// sets nothing; the empty input parses (or fails for missing required
// fields) as in libprotobuf.
bool Preflight(const Options &opts, const Schema &schema) {
  std::set<const FileDescriptor *> seen;
  std::vector<const Descriptor *> all;
  CollectFileMessages(schema.file, &seen, &all);
  for (const Descriptor *d : all) {
    const pbc_message_info *info = FindPbc(d->full_name());
    Context ctx{&opts, &schema, "preflight", "", nullptr};
    if (!info) {
      fprintf(stdout, "FAIL: %s (from %s) is not in the linked pbc library (pbc_find_message "
                      "returned NULL)\n",
              d->full_name().c_str(), d->file()->name().c_str());
      return false;
    }
    std::string err;
    const pbc_message_info *linked = pbc_find_message(d->full_name().c_str());
    if (opts.runtime_schema && linked && !SameDescription(linked->desc, info->desc, &err)) {
      fprintf(stdout, "FAIL: %s\n", err.c_str());
      return false;
    }
    // A loaded schema keeps every name, whatever the file's optimize_for.
    if (!pbc_test::DescriptionMatches(d, info, opts.runtime_schema ? "speed" : opts.optimize_for,
                                      &err, g_runtime_schema ? pbc_schema_finder : nullptr,
                                      g_runtime_schema)) {
      fprintf(stdout, "FAIL: %s\n", err.c_str());
      return false;
    }
    PbcMessage pbc(info);
    if (!pbc.CheckInit(&err)) {
      fprintf(stdout, "FAIL: %s: %s\n", d->full_name().c_str(), err.c_str());
      return false;
    }
    Rng r(1);
    Checker c(ctx, d, &pbc, r);
    if (!c.Same("empty input", "")) {
      ReportFailure(ctx, d, c.failure());
      return false;
    }
  }
  return true;
}

// The message a step of a recursion path leads to (a map field: its value).
const Descriptor *StepTarget(const FieldDescriptor *f) {
  if (!IsMessageLike(f) || IsMessageSetField(f)) return nullptr;
  if (f->is_map()) {
    const FieldDescriptor *vf = f->message_type()->map_value();
    return IsMessageLike(vf) ? vf->message_type() : nullptr;
  }
  return f->message_type();
}

// Short cycles of fields from d back to d: for each kind of first step
// (singular message, oneof member, repeated message, map value, group), the
// shortest one starting with a step of that kind.
std::vector<std::vector<const FieldDescriptor *>> RecursionPaths(const Descriptor *d) {
  auto kind = [](const FieldDescriptor *f) {
    if (f->is_map()) return 3;
    if (f->type() == FieldDescriptor::TYPE_GROUP) return 4;
    if (f->real_containing_oneof()) return 1;
    if (f->is_repeated()) return 2;
    return 0;
  };
  std::map<int, std::vector<const FieldDescriptor *>> best;
  for (int i = 0; i < d->field_count(); i++) {
    const FieldDescriptor *first = d->field(i);
    const Descriptor *start = StepTarget(first);
    if (!start) continue;
    // Breadth-first from `start` back to d.
    std::map<const Descriptor *, std::pair<const Descriptor *, const FieldDescriptor *>> prev;
    std::vector<const Descriptor *> queue = {start};
    std::set<const Descriptor *> visited = {start};
    std::vector<const FieldDescriptor *> path;
    bool found = start == d;
    const Descriptor *last = start;
    for (size_t qi = 0; qi < queue.size() && !found; qi++) {
      const Descriptor *cur = queue[qi];
      for (int j = 0; j < cur->field_count() && !found; j++) {
        const FieldDescriptor *f = cur->field(j);
        const Descriptor *t = StepTarget(f);
        if (!t) continue;
        if (t == d) {
          found = true;
          prev[d] = {cur, f};
          last = d;
        } else if (visited.insert(t).second) {
          prev[t] = {cur, f};
          queue.push_back(t);
        }
      }
    }
    if (!found) continue;
    if (last == d && start != d)
      for (const Descriptor *x = d; x != start; x = prev[x].first) path.push_back(prev[x].second);
    path.push_back(first);
    std::reverse(path.begin(), path.end());
    auto &b = best[kind(first)];
    if (b.empty() || path.size() < b.size()) b = path;
  }
  std::vector<std::vector<const FieldDescriptor *>> out;
  for (auto &kv : best) out.push_back(kv.second);
  return out;
}

// Sets the required scalar fields of m to their defaults; false when m has
// a required message field (no chain can be built through it cheaply).
bool FillRequiredScalars(Message *m) {
  const Descriptor *d = m->GetDescriptor();
  const Reflection *R = m->GetReflection();
  for (int i = 0; i < d->field_count(); i++) {
    const FieldDescriptor *f = d->field(i);
    if (!f->is_required()) continue;
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32: R->SetInt32(m, f, f->default_value_int32()); break;
      case FieldDescriptor::CPPTYPE_INT64: R->SetInt64(m, f, f->default_value_int64()); break;
      case FieldDescriptor::CPPTYPE_UINT32: R->SetUInt32(m, f, f->default_value_uint32()); break;
      case FieldDescriptor::CPPTYPE_UINT64: R->SetUInt64(m, f, f->default_value_uint64()); break;
      case FieldDescriptor::CPPTYPE_FLOAT: R->SetFloat(m, f, f->default_value_float()); break;
      case FieldDescriptor::CPPTYPE_DOUBLE: R->SetDouble(m, f, f->default_value_double()); break;
      case FieldDescriptor::CPPTYPE_BOOL: R->SetBool(m, f, f->default_value_bool()); break;
      case FieldDescriptor::CPPTYPE_ENUM: R->SetEnumValue(m, f, f->default_value_enum()->number()); break;
      case FieldDescriptor::CPPTYPE_STRING: R->SetString(m, f, f->default_value_string()); break;
      case FieldDescriptor::CPPTYPE_MESSAGE: return false;
    }
  }
  return true;
}

// A chain of at least `levels` nested messages following `path` round and
// round (a map step is two levels: the entry and its value); NULL when a
// required message field is in the way.
std::unique_ptr<Message> BuildChain(const Schema &schema, const Descriptor *d,
                                    const std::vector<const FieldDescriptor *> &path,
                                    int levels, int *actual) {
  std::unique_ptr<Message> root = schema.New(d);
  Message *cur = root.get();
  if (!FillRequiredScalars(cur)) return nullptr;
  int lv = 0;
  for (size_t i = 0; lv < levels; i++) {
    const FieldDescriptor *f = path[i % path.size()];
    const Reflection *R = cur->GetReflection();
    if (f->is_map()) {
      Message *entry = R->AddMessage(cur, f, schema.factory.get());
      cur = entry->GetReflection()->MutableMessage(entry, f->message_type()->map_value(),
                                                   schema.factory.get());
      lv += 2;
    } else if (f->is_repeated()) {
      cur = R->AddMessage(cur, f, schema.factory.get());
      lv++;
    } else {
      cur = R->MutableMessage(cur, f, schema.factory.get());
      lv++;
    }
    if (!FillRequiredScalars(cur)) return nullptr;
  }
  *actual = lv;
  return root;
}

// Depth limit: chains of nested messages (or groups, oneof members, map
// entries and values) around d's recursion cycles, a few levels either side
// of the limit: libprotobuf's default (100) against pbc's default (decode,
// pbc_decode with NULL options or max_depth 0), and small limits set with
// the max_depth option against libprotobuf's CodedInputStream recursion
// limit. pbc must accept exactly the chains libprotobuf accepts and reject
// the others with PBC_ERR_DEPTH_LIMIT.
bool DepthProbe(const Options &opts, const Schema &schema, const Descriptor *d,
                PbcMessage *pbc) {
  for (const auto &path : RecursionPaths(d)) {
    std::string route;
    for (const FieldDescriptor *f : path) route += (route.empty() ? "" : ".") + f->name();
    for (int limit : {100, 1, 2, 10, 31}) {
      int accepted = 0, rejected = 0;
      for (int levels = std::max(0, limit - 3); levels <= limit + 3; levels++) {
        int actual = 0;
        std::unique_ptr<Message> root = BuildChain(schema, d, path, levels, &actual);
        if (!root) break;
        std::string bytes = Det(*root);
        Context ctx{&opts, &schema,
                    "depth probe (" + std::to_string(actual) + " levels through " + route +
                        ", limit " + std::to_string(limit) + ")",
                    "", nullptr};
        Rng r(static_cast<uint64_t>(levels));
        Checker c(ctx, d, pbc, r);
        pbc_decode_options o = {limit == 100 ? 0u : static_cast<uint32_t>(limit), false, false};
        Expect e;
        e.status = PBC_ERR_DEPTH_LIMIT;
        if (limit != 100) {
          e.lib_recursion_limit = limit;
          e.options = &o;
        } else if (levels & 1) {
          e.options = &o;  // max_depth 0: the default
        }
        if (!c.Same("depth limit", bytes, e)) {
          ReportFailure(ctx, d, c.failure());
          return false;
        }
        std::unique_ptr<Message> probe = schema.New(d);
        bool lib_ok;
        if (limit == 100) {
          lib_ok = probe->ParseFromString(bytes);
        } else {
          gp::io::CodedInputStream cis(reinterpret_cast<const uint8_t *>(bytes.data()),
                                       static_cast<int>(bytes.size()));
          cis.SetRecursionLimit(limit);
          lib_ok = probe->ParseFromCodedStream(&cis);
        }
        (lib_ok ? accepted : rejected)++;
      }
      if (accepted + rejected > 0 && (accepted == 0 || rejected == 0)) {
        fprintf(stdout, "FAIL: harness error: the depth probe of %s through %s found no limit "
                        "around %d (%d accepted, %d rejected)\n",
                d->full_name().c_str(), route.c_str(), limit, accepted, rejected);
        return false;
      }
    }
  }
  return true;
}

void PrintStats() {
  for (const auto &kv : g_stats)
    fprintf(stderr, "  %-20s %8" PRIu64 " runs, %8" PRIu64 " rejected by libprotobuf\n",
            kv.first.c_str(), kv.second.first, kv.second.second);
}

// --hex: one given input (for reproducing a failure by hand): libprotobuf's
// and pbc's verdicts and outputs, then the usual comparison.
int RunHex(const Options &opts) {
  Schema schema;
  schema.Load(opts.proto_paths, opts.proto);
  const Descriptor *d = schema.Find(opts.message);
  if (!d) Die("no message %s in %s", opts.message.c_str(), opts.proto.c_str());
  const pbc_message_info *info = FindPbc(opts.message);
  if (!info) Die("pbc_find_message(\"%s\") is NULL", opts.message.c_str());
  std::string in;
  std::string digits;
  for (char ch : opts.hex)
    if (isxdigit(static_cast<unsigned char>(ch))) digits += ch;
  if (digits.size() % 2) Die("--hex: odd number of digits");
  for (size_t i = 0; i < digits.size(); i += 2)
    in += static_cast<char>(std::stoi(digits.substr(i, 2), nullptr, 16));
  std::unique_ptr<Message> lib = schema.New(d);
  bool lib_ok = lib->ParseFromString(in);
  printf("input:       %s\n", Hex(in, 0, in.size()).c_str());
  if (lib_ok)
    printf("libprotobuf: %s\n", Hex(LibBytes(lib.get()), 0, SIZE_MAX).c_str());
  else
    printf("libprotobuf: rejects it\n");
  PbcMessage pbc(info);
  std::string err, out;
  pbc_status st = pbc.Decode(in, true, false, &err);
  if (st == PBC_OK && pbc.Encode(&out, &err))
    printf("pbc:         %s\n", Hex(out, 0, out.size()).c_str());
  else
    printf("pbc:         %s %s\n", StatusName(st), err.c_str());
  Context ctx{&opts, &schema, "--hex input", "", nullptr};
  Rng r(opts.seed);
  Checker c(ctx, d, &pbc, r);
  if (!c.Same("given input", in)) {
    ReportFailure(ctx, d, c.failure());
    printf("0 passed, 1 failed\n");
    return 1;
  }
  printf("1 passed, 0 failed\n");
  return 0;
}

int RunRandom(const Options &opts) {
  Schema schema;
  schema.Load(opts.proto_paths, opts.proto);
  const Descriptor *d = schema.Find(opts.message);
  if (!d) Die("no message %s in %s", opts.message.c_str(), opts.proto.c_str());
  // The writer's schema: the same one, or (--writer-proto) the full schema
  // of which --proto is a reduced copy.
  Schema writer_schema;
  const Schema *writer = &schema;
  const Descriptor *wd = d;
  if (!opts.writer_proto.empty()) {
    writer_schema.Load(opts.writer_proto_paths, opts.writer_proto);
    writer = &writer_schema;
    wd = writer->Find(opts.message);
    if (!wd) Die("no message %s in %s", opts.message.c_str(), opts.writer_proto.c_str());
  }
  if (opts.runtime_schema) LoadRuntimeSchema(schema.file);
  const pbc_message_info *info = FindPbc(opts.message);
  if (!info) Die("pbc_find_message(\"%s\") is NULL: is its library linked whole?", opts.message.c_str());
  printf("seed: %" PRIu64 "\n", opts.seed);
  if (opts.sample > 1)
    printf("sample: every %" PRIu64 "th of %" PRIu64 " cases (PBC_DIFFTEST_SAMPLE)\n", opts.sample,
           opts.cases);
  fflush(stdout);
  if (!Preflight(opts, schema)) {
    printf("0 passed, 1 failed\n");
    return 1;
  }
  PbcMessage pbc(info);
  if (!DepthProbe(opts, schema, d, &pbc)) {
    printf("0 passed, 1 failed\n");
    return 1;
  }
  const bool message_set = d->options().message_set_wire_format();
  uint64_t passed = 0;
  size_t total_bytes = 0, max_bytes = 0;
  for (uint64_t k = 0; k < opts.cases; k++) {
    if (opts.only_case >= 0 ? k != static_cast<uint64_t>(opts.only_case) : k % opts.sample != opts.sample - 1)
      continue;
    Rng r(CaseSeed(opts.seed, k));
    std::unique_ptr<Message> written = writer->New(wd);
    Filler(r, *writer, opts.max_depth, message_set).Fill(written.get(), 0);
    if (!written->IsInitialized()) Die("harness error: case %" PRIu64 " is not initialized", k);
    std::string written_bytes = Det(*written);
    std::unique_ptr<Message> msg;
    if (writer == &schema) {
      msg = std::move(written);
    } else {
      // Read with the reduced schema: what it lacks are unknown fields.
      msg = schema.New(d);
      if (!msg->ParseFromString(written_bytes))
        Die("harness error: the reduced schema cannot parse case %" PRIu64, k);
    }
    std::string bytes = LibBytes(msg.get());
    total_bytes += bytes.size();
    max_bytes = std::max(max_bytes, bytes.size());
    Context ctx{&opts, &schema, "case " + std::to_string(k), "--only-case " + std::to_string(k),
                msg.get()};
    pbc.ResetArenas();
    bool ok = true;
    if (writer != &schema) {
      // (u) the writer's bytes as they are: the unknown fields where they
      // were written, among the known ones. pbc must write them after the
      // known fields, in the order read, as libprotobuf does.
      Checker c(ctx, d, &pbc, r);
      if (written_bytes != bytes) g_stats["(cases moving unknown fields)"].first++;
      if (!c.Same("unknown fields", written_bytes)) {
        ReportFailure(ctx, d, c.failure());
        ok = false;
      }
    }
    if (!ok || !CheckMessage(ctx, *msg, bytes, &pbc, r)) {
      printf("reproduce with: --seed %" PRIu64 " --only-case %" PRIu64 "\n", opts.seed, k);
      printf("%" PRIu64 " passed, 1 failed\n", passed);
      return 1;
    }
    passed++;
  }
  if (opts.verbose) {
    fprintf(stderr, "canonical inputs: %zu bytes in all, %zu at most\n", total_bytes, max_bytes);
    PrintStats();
  }
  printf("%" PRIu64 " passed, 0 failed\n", passed);
  return 0;
}

std::string ReadFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Die("cannot read %s", path.c_str());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int RunDataset(const Options &opts) {
  Schema bench;
  bench.Load(opts.proto_paths, opts.proto);
  const Descriptor *ds = bench.Find("benchmarks.BenchmarkDataset");
  if (!ds) Die("%s does not define benchmarks.BenchmarkDataset", opts.proto.c_str());
  Schema schema;
  schema.Load(opts.dataset_proto_paths, opts.dataset_proto);
  printf("seed: %" PRIu64 "\n", opts.seed);
  fflush(stdout);
  std::string file = ReadFile(opts.dataset);
  uint64_t passed = 0, failed = 0;

  // The dataset file itself, through pbc's BenchmarkDataset when linked.
  std::unique_ptr<Message> dataset = bench.New(ds);
  if (!dataset->ParseFromString(file)) Die("libprotobuf cannot parse %s", opts.dataset.c_str());
  if (const pbc_message_info *info = FindPbc("benchmarks.BenchmarkDataset")) {
    PbcMessage pbc(info);
    Rng r(CaseSeed(opts.seed, ~0ULL));
    Context ctx{&opts, &bench, "dataset file", "", dataset.get()};
    std::string canon = LibBytes(dataset.get());
    if (canon != file) {
      fprintf(stdout, "FAIL: %s is not in libprotobuf's canonical form\n", opts.dataset.c_str());
      failed++;
    } else if (Checker c(ctx, ds, &pbc, r); c.Canonical(file)) {
      passed++;
    } else {
      ReportFailure(ctx, ds, c.failure());
      failed++;
    }
  }

  const Reflection *R = dataset->GetReflection();
  const std::string message_name = R->GetString(*dataset, ds->FindFieldByName("message_name"));
  const FieldDescriptor *payload_field = ds->FindFieldByName("payload");
  const Descriptor *d = schema.Find(message_name);
  if (!d) Die("%s names %s, which %s does not define", opts.dataset.c_str(), message_name.c_str(),
              opts.dataset_proto.c_str());
  const pbc_message_info *info = FindPbc(message_name);
  if (!info) Die("pbc_find_message(\"%s\") is NULL: is its library linked whole?", message_name.c_str());
  PbcMessage pbc(info);
  int n = R->FieldSize(*dataset, payload_field);
  for (int i = 0; i < n; i++) {
    const std::string payload = R->GetRepeatedString(*dataset, payload_field, i);
    std::unique_ptr<Message> msg = schema.New(d);
    Context ctx{&opts, &schema, "payload " + std::to_string(i), "", nullptr};
    if (!msg->ParseFromString(payload)) {
      fprintf(stdout, "FAIL: libprotobuf cannot parse payload %d as %s\n", i, message_name.c_str());
      failed++;
      continue;
    }
    ctx.message = msg.get();
    std::string canon = LibBytes(msg.get());
    Rng r(CaseSeed(opts.seed, static_cast<uint64_t>(i)));
    pbc.ResetArenas();
    // The payload as it is: pbc must re-encode it exactly as libprotobuf
    // re-serializes it (which is the payload itself when it is canonical;
    // google_message1_proto3's payload is not: it was written for proto2
    // and sets proto3 fields to their zero values explicitly).
    if (canon != payload)
      printf("note: payload %d is not canonical for %s (%zu bytes, re-serialized %zu); "
             "comparing with libprotobuf's re-serialization\n",
             i, message_name.c_str(), payload.size(), canon.size());
    Checker c(ctx, d, &pbc, r);
    if (!c.Same("dataset payload", payload)) {
      ReportFailure(ctx, d, c.failure());
      failed++;
      continue;
    }
    if (CheckMessage(ctx, *msg, canon, &pbc, r))
      passed++;
    else
      failed++;
  }
  if (opts.verbose) PrintStats();
  printf("%" PRIu64 " passed, %" PRIu64 " failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

// ---------------------------------------------------------------------------
// reduce: a copy of a .proto file with some fields and extensions removed,
// for pbc to compile; the random mode with --writer-proto then writes
// messages with the full schema and pbc reads them with the reduced one, so
// what was removed reaches pbc as unknown fields of every kind (groups,
// sub-messages, packed runs, map entries, oneof members, extensions...).
//
// libprotobuf writes extensions among the known fields by number and
// unknown fields after all of them, while pbc keeps extensions as unknown
// fields: for a message with extension ranges, either all its extensions
// (of this file) go, and any of its fields may go too, or only extensions
// numbered above the ones kept go, and no field (the schemas put extension
// numbers above field numbers). Message sets keep everything.

class Reducer {
 public:
  Reducer(Rng &r, const FileDescriptor *file) : r_(r), file_(file) {}

  void Run(gp::FileDescriptorProto *fdp) {
    // Decide, per extended message, which of this file's extensions stay.
    std::vector<const FieldDescriptor *> exts;
    CollectExtensions(file_, &exts);
    std::map<const Descriptor *, std::vector<int>> numbers;
    for (const FieldDescriptor *e : exts) numbers[e->containing_type()].push_back(e->number());
    for (auto &kv : numbers) {
      const Descriptor *t = kv.first;
      std::vector<int> &ns = kv.second;
      std::sort(ns.begin(), ns.end());
      if (t->options().message_set_wire_format()) {
        keep_fields_.insert(t);
        continue;
      }
      int max_field = 0;
      for (int i = 0; i < t->field_count(); i++) max_field = std::max(max_field, t->field(i)->number());
      if (r_.Chance(0.5) || ns.front() < max_field) {
        // All extensions go, fields may go too.
        for (int n : ns) drop_ext_.insert({t, n});
      } else {
        keep_fields_.insert(t);
        size_t keep = static_cast<size_t>(r_.Below(ns.size() + 1));
        for (size_t i = keep; i < ns.size(); i++) drop_ext_.insert({t, ns[i]});
      }
    }
    // Messages of this file with extension ranges that nobody here extends:
    // their fields may go.
    for (int i = 0; i < fdp->message_type_size(); i++)
      ReduceMessage(fdp->mutable_message_type(i), file_->message_type(i));
    ReduceExtensions(fdp->mutable_extension());
  }

 private:
  static void CollectExtensions(const Descriptor *d, std::vector<const FieldDescriptor *> *out) {
    for (int i = 0; i < d->extension_count(); i++) out->push_back(d->extension(i));
    for (int i = 0; i < d->nested_type_count(); i++) CollectExtensions(d->nested_type(i), out);
  }
  static void CollectExtensions(const FileDescriptor *f, std::vector<const FieldDescriptor *> *out) {
    for (int i = 0; i < f->extension_count(); i++) out->push_back(f->extension(i));
    for (int i = 0; i < f->message_type_count(); i++) CollectExtensions(f->message_type(i), out);
  }

  void ReduceExtensions(gp::RepeatedPtrField<gp::FieldDescriptorProto> *exts) {
    gp::RepeatedPtrField<gp::FieldDescriptorProto> kept;
    for (const gp::FieldDescriptorProto &e : *exts) {
      const Descriptor *t = file_->pool()->FindMessageTypeByName(e.extendee().substr(1));
      if (!t) Die("reduce: extendee %s not found", e.extendee().c_str());
      if (!drop_ext_.count({t, e.number()})) *kept.Add() = e;
    }
    exts->Swap(&kept);
  }

  void ReduceMessage(gp::DescriptorProto *mp, const Descriptor *d) {
    for (int i = 0; i < mp->nested_type_size(); i++)
      if (!d->nested_type(i)->options().map_entry())
        ReduceMessage(mp->mutable_nested_type(i), d->nested_type(i));
    ReduceExtensions(mp->mutable_extension());
    if (keep_fields_.count(d) || d->options().message_set_wire_format()) return;
    std::set<std::string> dropped_entries;
    gp::RepeatedPtrField<gp::FieldDescriptorProto> kept;
    for (int i = 0; i < mp->field_size(); i++) {
      const gp::FieldDescriptorProto &f = mp->field(i);
      if (r_.Chance(0.3)) {
        const FieldDescriptor *fd = d->FindFieldByNumber(f.number());
        if (fd->is_map()) dropped_entries.insert(fd->message_type()->name());
        continue;
      }
      *kept.Add() = f;
    }
    mp->mutable_field()->Swap(&kept);
    // Map entry types of removed map fields go too.
    gp::RepeatedPtrField<gp::DescriptorProto> nested;
    for (const gp::DescriptorProto &n : mp->nested_type())
      if (!dropped_entries.count(n.name())) *nested.Add() = n;
    mp->mutable_nested_type()->Swap(&nested);
    // Oneofs left without members go; the others are renumbered.
    std::map<int, int> renumber;
    for (const gp::FieldDescriptorProto &f : mp->field())
      if (f.has_oneof_index()) renumber[f.oneof_index()] = 0;
    gp::RepeatedPtrField<gp::OneofDescriptorProto> oneofs;
    for (auto &kv : renumber) {
      kv.second = oneofs.size();
      *oneofs.Add() = mp->oneof_decl(kv.first);
    }
    mp->mutable_oneof_decl()->Swap(&oneofs);
    for (gp::FieldDescriptorProto &f : *mp->mutable_field())
      if (f.has_oneof_index()) f.set_oneof_index(renumber[f.oneof_index()]);
  }

  Rng &r_;
  const FileDescriptor *file_;
  std::set<const Descriptor *> keep_fields_;    // no field of these goes
  std::set<std::pair<const Descriptor *, int>> drop_ext_;
};

void AddToPool(const FileDescriptor *f, gp::DescriptorPool *pool,
               std::set<const FileDescriptor *> *done) {
  if (!done->insert(f).second) return;
  for (int i = 0; i < f->dependency_count(); i++) AddToPool(f->dependency(i), pool, done);
  gp::FileDescriptorProto p;
  f->CopyTo(&p);
  if (!pool->BuildFile(p)) Die("reduce: cannot rebuild %s", f->name().c_str());
}

int RunReduce(const Options &opts) {
  Schema schema;
  schema.Load(opts.proto_paths, opts.proto);
  gp::FileDescriptorProto fdp;
  schema.file->CopyTo(&fdp);
  Rng r(opts.seed);
  Reducer(r, schema.file).Run(&fdp);
  gp::DescriptorPool pool;
  std::set<const FileDescriptor *> done;
  for (int i = 0; i < schema.file->dependency_count(); i++)
    AddToPool(schema.file->dependency(i), &pool, &done);
  const FileDescriptor *reduced = pool.BuildFile(fdp);
  if (!reduced) Die("reduce: the reduced %s does not build", schema.file->name().c_str());
  std::string path = opts.reduce_out + "/" + schema.file->name();
  std::ofstream o(path, std::ios::binary);
  o << "// " << schema.file->name() << " reduced by difftest (seed " << opts.seed
    << "): read with it, what it lacks are unknown fields.\n";
  o << reduced->DebugString();
  if (!o) Die("cannot write %s", path.c_str());
  printf("wrote %s\n", path.c_str());
  return 0;
}

void Usage() {
  fprintf(stderr,
          "usage:\n"
          "  difftest diff --proto_path DIR --proto FILE.proto --message NAME --cases N\n"
          "                [--seed S] [--max-depth D] [--unknown-fields] [--mutations M]\n"
          "                [--only-case K] [--dump-dir DIR] [--verbose]\n"
          "                [--optimize-for MODE (as the library was compiled)]\n"
          "                [--runtime-schema (the messages of pbc_schema_load, compared\n"
          "                 with the linked library's)]\n"
          "                [--writer-proto_path DIR2 --writer-proto FILE2.proto]\n"
          "  difftest diff --proto_path DIR --proto FILE.proto --message NAME --hex HEX\n"
          "  difftest diff --proto_path DIR --proto benchmarks.proto --dataset FILE.pb\n"
          "                --dataset-proto-path DIR2 --dataset-proto FILE2.proto [--seed S]\n"
          "  difftest reduce --proto_path DIR --proto FILE.proto --seed S --out DIR2\n");
  exit(2);
}

uint64_t ParseU64(const char *flag, const std::string &v) {
  char *end = nullptr;
  errno = 0;
  unsigned long long x = strtoull(v.c_str(), &end, 0);
  if (v.empty() || *end || errno || v[0] == '-') Die("bad value for %s: %s", flag, v.c_str());
  return x;
}

}  // namespace

// test/fuzz includes this file for its machinery and has its own entry point.
#ifndef PBC_DIFFTEST_NO_MAIN
int main(int argc, char **argv) {
  gp::SetLogHandler(QuietLogHandler);
  InstallCrashHandler();
  if (argc < 2) Usage();
  const std::string command = argv[1];
  if (command != "diff" && command != "reduce") Usage();
  Options o;
  for (int i = 2; i < argc; i++) {
    std::string a = argv[i];
    std::string value;
    // --flag=value and --flag value.
    size_t eq = a.find('=');
    bool has_inline = a.rfind("--", 0) == 0 && eq != std::string::npos;
    if (has_inline) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
    }
    auto next = [&]() -> std::string {
      if (has_inline) return value;
      if (i + 1 >= argc) Die("%s needs a value", a.c_str());
      return argv[++i];
    };
    if (a == "--proto_path" || a == "-I") o.proto_paths.push_back(next());
    else if (a == "--proto") o.proto = next();
    else if (a == "--message") o.message = next();
    else if (a == "--cases") o.cases = ParseU64("--cases", next());
    else if (a == "--seed") o.seed = ParseU64("--seed", next());
    else if (a == "--max-depth") o.max_depth = static_cast<int>(ParseU64("--max-depth", next()));
    else if (a == "--unknown-fields") o.unknown_fields = true;
    else if (a == "--mutations") o.mutations = static_cast<int>(ParseU64("--mutations", next()));
    else if (a == "--only-case") o.only_case = static_cast<long long>(ParseU64("--only-case", next()));
    else if (a == "--dump-dir") o.dump_dir = next();
    else if (a == "--verbose") o.verbose = true;
    else if (a == "--optimize-for") o.optimize_for = next();
    else if (a == "--runtime-schema") o.runtime_schema = true;
    else if (a == "--writer-proto_path") o.writer_proto_paths.push_back(next());
    else if (a == "--writer-proto") o.writer_proto = next();
    else if (a == "--out") o.reduce_out = next();
    else if (a == "--hex") o.hex = next();
    else if (a == "--dataset") o.dataset = next();
    else if (a == "--dataset-proto-path") o.dataset_proto_paths.push_back(next());
    else if (a == "--dataset-proto") o.dataset_proto = next();
    else if (a == "--help" || a == "-h") Usage();
    else Die("unknown option %s", a.c_str());
  }
  if (o.proto.empty()) Usage();
  if (const char *sample = getenv("PBC_DIFFTEST_SAMPLE")) {
    o.sample = ParseU64("PBC_DIFFTEST_SAMPLE", sample);
    if (o.sample == 0) Die("PBC_DIFFTEST_SAMPLE must be 1 or more");
  }
  if (o.proto_paths.empty()) o.proto_paths.push_back(".");
  if (command == "reduce") {
    if (o.reduce_out.empty()) Die("reduce needs --out");
    return RunReduce(o);
  }
  if (!o.writer_proto.empty() && o.writer_proto_paths.empty()) o.writer_proto_paths.push_back(".");
  if (!o.dataset.empty()) {
    if (o.dataset_proto.empty()) Die("--dataset needs --dataset-proto");
    if (o.dataset_proto_paths.empty()) o.dataset_proto_paths.push_back(".");
    return RunDataset(o);
  }
  if (o.message.empty()) Die("--message is required");
  if (!o.hex.empty()) return RunHex(o);
  return RunRandom(o);
}
#endif  // PBC_DIFFTEST_NO_MAIN
