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
//   diff diff --proto_path DIR --proto benchmarks.proto --dataset FILE.pb
//        --dataset-proto-path DIR2 --dataset-proto FILE2.proto [--seed S]
//
// Every case is generated from (seed, case number) alone, so
// `--seed S --only-case K` replays a failure. The last line is
// `<passed> passed, <failed> failed`; the exit status is 0 only when nothing
// failed (1: a check failed, 2: bad usage or setup).
//
// What one case checks (see README.md beside this file):
//  (a) forward: libprotobuf serializes a random message; pbc decodes it (OK),
//      pbc's encoded_size is the byte count and pbc's encode writes exactly
//      those bytes (and reports BUFFER_TOO_SMALL for one byte less);
//  (b) reverse: libprotobuf parses pbc's output and re-serializes it to the
//      same bytes;
//  (c) non-canonical wire: shuffled field order, packed <-> unpacked runs,
//      repeated singular fields (last one wins), sub-messages split into
//      several occurrences, overlong varints, bool/int32 varints with high
//      garbage bits, 5-byte tags with garbage above bit 31, explicit zeros for proto3 implicit fields: libprotobuf
//      and pbc must both accept and re-encode to the same bytes;
//  (d) truncation: prefixes libprotobuf rejects pbc must reject; prefixes it
//      accepts pbc must accept and re-encode identically;
//  (e) invalid input: a proto3 string with invalid UTF-8 must fail with
//      PBC_ERR_INVALID_UTF8, a missing proto2 required field with
//      PBC_ERR_MISSING_REQUIRED;
//  (f) an arena with a tiny byte cap: decode either succeeds (and re-encodes
//      identically) or fails with PBC_ERR_OUT_OF_MEMORY;
//  with --unknown-fields: unknown field numbers, known numbers with the wrong
//      wire type and undeclared values of closed enums, all of which
//      libprotobuf keeps as unknown fields and writes back last;
//  with --mutations M: M randomly corrupted inputs per case: both accept or
//      both reject, and accepted ones mean the same (compared after a
//      libprotobuf round trip of both outputs).
// Before the cases: every message of the file and its imports is known to
// pbc_find_message, init sets nothing, the empty input behaves as in
// libprotobuf, and recursive messages nested 90..110 deep are accepted
// exactly when libprotobuf accepts them (else PBC_ERR_DEPTH_LIMIT).
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
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <google/protobuf/compiler/importer.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/message.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/wire_format_lite.h>

#include "pbc/pbc.h"

namespace gp = google::protobuf;
using gp::Descriptor;
using gp::FieldDescriptor;
using gp::FileDescriptor;
using gp::Message;
using gp::Reflection;
using COS = gp::io::CodedOutputStream;
using WFL = gp::internal::WireFormatLite;

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
  uint64_t Next() {
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
  }

  const Descriptor *Find(const std::string &name) const {
    return importer->pool()->FindMessageTypeByName(name);
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
    if (in.size() > cap_) Grow(in.size());
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

constexpr size_t kCanary = 64;
constexpr uint8_t kCanaryByte = 0x5a;

class PbcMessage {
 public:
  explicit PbcMessage(const pbc_message_info *info) : info_(info) {
    size_t n = (info->struct_size + kCanary + 63) / 64 * 64;
    void *p = nullptr;
    if (posix_memalign(&p, 64, n) != 0) Die("out of memory");
    mem_ = static_cast<uint8_t *>(p);
    pbc_arena_init(&arena_, nullptr, 0);
    pbc_arena_init(&block_arena_, block_, sizeof block_);
    pbc_arena_init(&capped_, nullptr, 0);
  }
  ~PbcMessage() {
    pbc_arena_destroy(&arena_);
    pbc_arena_destroy(&block_arena_);
    pbc_arena_destroy(&capped_);
    free(mem_);
  }
  PbcMessage(const PbcMessage &) = delete;
  PbcMessage &operator=(const PbcMessage &) = delete;

  const pbc_message_info *info() const { return info_; }
  void *mem() { return mem_; }

  // Fills the struct with garbage first: decode must not depend on what
  // was there. `byte_cap` != SIZE_MAX decodes with a fresh arena capped at
  // that many heap bytes.
  pbc_status Decode(const std::string &in, bool guard_front, bool block_arena,
                    std::string *err, size_t byte_cap = SIZE_MAX) {
    memset(mem_, 0xa5, info_->struct_size);
    memset(mem_ + info_->struct_size, kCanaryByte, kCanary);
    const uint8_t *buf = input_.Place(in, guard_front);
    pbc_status s;
    if (byte_cap != SIZE_MAX) {
      pbc_arena_destroy(&capped_);
      pbc_arena_init(&capped_, nullptr, 0);
      pbc_arena_set_max_bytes(&capped_, byte_cap);
      s = info_->decode(mem_, buf, in.size(), &capped_);
    } else {
      s = info_->decode(mem_, buf, in.size(), block_arena ? &block_arena_ : &arena_);
    }
    if (!CanaryIntact()) {
      *err = "decode wrote past struct_size (" + std::to_string(info_->struct_size) + ")";
      return static_cast<pbc_status>(-1);
    }
    return s;
  }

  // Encodes the decoded message; checks encoded_size, written, the
  // BUFFER_TOO_SMALL path and that nothing outside [buf, buf+size) changed.
  bool Encode(std::string *out, std::string *err) {
    size_t n = info_->encoded_size(mem_);
    size_t n2 = info_->encoded_size(mem_);
    if (n != n2) {
      *err = "encoded_size is not stable: " + std::to_string(n) + " then " + std::to_string(n2);
      return false;
    }
    std::vector<uint8_t> buf(n + 2 * kCanary, kCanaryByte);
    uint8_t *start = buf.data() + kCanary;
    if (n > 0) {
      size_t w = 12345;
      pbc_status s = info_->encode(mem_, start, n - 1, &w);
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
    pbc_status s = info_->encode(mem_, start, n, &written);
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
    return true;
  }

  // Checks init: nothing set (encodes to nothing), struct_size respected.
  bool CheckInit(std::string *err) {
    memset(mem_, 0xa5, info_->struct_size);
    memset(mem_ + info_->struct_size, kCanaryByte, kCanary);
    info_->init(mem_);
    if (!CanaryIntact()) {
      *err = "init wrote past struct_size";
      return false;
    }
    size_t n = info_->encoded_size(mem_);
    if (n != 0) {
      *err = "encoded_size after init is " + std::to_string(n) + ", want 0 (nothing set)";
      return false;
    }
    size_t written = 12345;
    pbc_status s = info_->encode(mem_, nullptr, 0, &written);
    if (s != PBC_OK || written != 0) {
      *err = std::string("encode of an init'ed message into a NULL, 0 buffer: ") +
             StatusName(s) + ", written " + std::to_string(written);
      return false;
    }
    return true;
  }

  void ResetArenas() {
    pbc_arena_reset(&arena_);
    pbc_arena_reset(&block_arena_);
  }

 private:
  static bool AllCanary(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
      if (p[i] != kCanaryByte) return false;
    return true;
  }
  bool CanaryIntact() const { return AllCanary(mem_ + info_->struct_size, kCanary); }

  const pbc_message_info *info_;
  uint8_t *mem_ = nullptr;
  pbc_arena arena_;
  pbc_arena block_arena_;
  pbc_arena capped_;
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

class Filler {
 public:
  Filler(Rng &r, const Schema &schema, int max_depth)
      : r_(r), schema_(schema), max_depth_(max_depth) {}

  void Fill(Message *m, int depth) {
    const Descriptor *d = m->GetDescriptor();
    std::set<const gp::OneofDescriptor *> oneofs_done;
    for (int i = 0; i < d->field_count(); i++) {
      const FieldDescriptor *f = d->field(i);
      if (f->is_map()) continue;  // maps: not in this milestone
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
      // Fewer fields deeper down keeps messages a few KB on average.
      double p_set = depth == 0 ? 0.6 : 0.25;
      if (f->is_repeated()) {
        if (IsMessageLike(f) && !MayNest(depth)) continue;
        if (depth > 0 && !r_.Chance(p_set)) continue;
        size_t n = RandomCount(r_, IsMessageLike(f) || !f->is_packable() || depth > 0);
        if (IsMessageLike(f)) n = std::min<size_t>(n, depth < 2 ? 4 : 2);
        for (size_t k = 0; k < n; k++) AddElement(m, f, depth);
        continue;
      }
      if (IsMessageLike(f)) {
        if (!MayNest(depth) || !r_.Chance(0.5)) continue;
      } else if (!r_.Chance(p_set)) {
        continue;
      }
      SetSingular(m, f, depth);
    }
  }

 private:
  bool MayNest(int depth) const { return depth < max_depth_ && nodes_ < kMaxNodes; }

  void SetSingular(Message *m, const FieldDescriptor *f, int depth) {
    const Reflection *R = m->GetReflection();
    if (IsMessageLike(f)) {
      nodes_++;
      Fill(R->MutableMessage(m, f, schema_.factory.get()), depth + 1);
      return;
    }
    // Fields with presence: sometimes their default (proto2) or zero value,
    // set explicitly.
    bool dflt = f->has_presence() && r_.Chance(0.12);
    bool zero = f->has_presence() && !dflt && r_.Chance(0.05);
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

struct VariantStats {
  bool unknown = false;  // unknown fields were written: output != canonical
};

class VariantEncoder {
 public:
  VariantEncoder(Rng &r, const Schema &schema, bool unknown_fields, VariantStats *stats)
      : r_(r), schema_(schema), unknown_(unknown_fields), stats_(stats) {}

  // `whole`: m is a complete message, not one part of a split one (the
  // explicit-zero trick for absent proto3 fields is only valid then).
  std::string Encode(const Message &m, int depth, bool whole = true) {
    const Descriptor *d = m.GetDescriptor();
    const Reflection *R = m.GetReflection();
    std::vector<const FieldDescriptor *> fields;
    R->ListFields(m, &fields);
    std::vector<std::vector<std::string>> queues;
    for (const FieldDescriptor *f : fields) {
      if (f->is_map()) Die("maps are not supported by this harness yet");
      queues.push_back(Chunks(m, f, depth, whole));
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
    if (unknown_) {
      int n = r_.Chance(0.4) ? static_cast<int>(r_.Range(1, 3)) : 0;
      for (int i = 0; i < n; i++) queues.push_back({UnknownField(d, depth)});
    }
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
    PutTag(s, f->number(), WireTypeOf(f), false);
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
                                  bool whole) {
    const Reflection *R = m.GetReflection();
    std::vector<std::string> out;
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
        if (unknown_ && f->type() == FieldDescriptor::TYPE_ENUM && !IsOpenEnum(f) &&
            r_.Chance(0.3)) {
          // Undeclared values of a closed enum go to the unknown fields.
          size_t at = static_cast<size_t>(r_.Below(raws.size() + 1));
          raws.insert(raws.begin() + static_cast<std::ptrdiff_t>(at),
                      static_cast<uint64_t>(int64_t{UndeclaredEnumValue(r_, f)}));
          stats_->unknown = true;
        }
        PackedRuns(f, raws, &out);
      }
      return out;
    }
    if (IsMessageLike(f)) {
      const Message &sub = R->GetMessage(m, f);
      if (r_.Chance(0.3)) {
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
    for (int i = 0; i < earlier; i++) {
      std::string s;
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING)
        PutLenField(&s, f->number(), RandomStringFor(r_, f));
      else
        PutScalarField(&s, f, RandomRaw(f));
      out.push_back(s);
    }
    std::string s;
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING)
      PutLenField(&s, f->number(), R->GetString(m, f));
    else
      PutScalarField(&s, f, RawSingular(m, f));
    out.push_back(s);
    if (unknown_ && f->type() == FieldDescriptor::TYPE_ENUM && !IsOpenEnum(f) &&
        r_.Chance(0.2)) {
      // An undeclared value, before or after the real one: it does not
      // replace the field's value but lands in the unknown fields.
      std::string u;
      PutTag(&u, f->number(), WFL::WIRETYPE_VARINT, true);
      PutCanonicalVarint(&u, static_cast<uint64_t>(int64_t{UndeclaredEnumValue(r_, f)}));
      out.insert(r_.Chance(0.5) ? out.begin() : out.end(), u);
      stats_->unknown = true;
    }
    return out;
  }

  // Repeated scalars: the schema's form (one packed run, or one record per
  // element), or any mix of packed runs and single records, with empty
  // packed runs thrown in.
  void PackedRuns(const FieldDescriptor *f, const std::vector<uint64_t> &raws,
                  std::vector<std::string> *out) {
    bool canonical_shape = r_.Chance(0.35);
    size_t i = 0;
    while (i < raws.size()) {
      size_t len = canonical_shape ? raws.size()
                                   : static_cast<size_t>(r_.Range(1, static_cast<int64_t>(raws.size() - i)));
      bool packed = canonical_shape ? f->is_packed() : r_.Chance(0.5);
      if (packed) {
        std::string body;
        for (size_t k = i; k < i + len; k++) PutScalarValue(&body, f, raws[k], false);
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

  void SetRandom(Message *m, const FieldDescriptor *f) {
    const Reflection *R = m->GetReflection();
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32: R->SetInt32(m, f, static_cast<int32_t>(RandomBits(r_, 32))); break;
      case FieldDescriptor::CPPTYPE_INT64: R->SetInt64(m, f, static_cast<int64_t>(RandomBits(r_, 64))); break;
      case FieldDescriptor::CPPTYPE_UINT32: R->SetUInt32(m, f, static_cast<uint32_t>(RandomBits(r_, 32))); break;
      case FieldDescriptor::CPPTYPE_UINT64: R->SetUInt64(m, f, RandomBits(r_, 64)); break;
      case FieldDescriptor::CPPTYPE_FLOAT: R->SetFloat(m, f, RandomFloat(r_)); break;
      case FieldDescriptor::CPPTYPE_DOUBLE: R->SetDouble(m, f, RandomDouble(r_)); break;
      case FieldDescriptor::CPPTYPE_BOOL: R->SetBool(m, f, r_.Chance(0.5)); break;
      case FieldDescriptor::CPPTYPE_ENUM: R->SetEnumValue(m, f, RandomEnumValue(r_, f, true)); break;
      case FieldDescriptor::CPPTYPE_STRING: R->SetString(m, f, RandomStringFor(r_, f)); break;
      case FieldDescriptor::CPPTYPE_MESSAGE: break;
    }
  }

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
        bad.push_back(t);
      }
      number = f->number();
      wt = bad[r_.Below(bad.size())];
    } else {
      do {
        number = r_.Chance(0.5) ? static_cast<int>(r_.Range(1, 300))
                                : static_cast<int>(r_.Range(1, (1 << 29) - 1));
      } while (d && d->FindFieldByNumber(number));
      wt = kTypes[r_.Below(5)];
    }
    if (wt == WFL::WIRETYPE_START_GROUP && depth > 3) wt = WFL::WIRETYPE_VARINT;
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
};

// ---------------------------------------------------------------------------
// Poisoned inputs (check (e))

struct FieldSlot {
  Message *msg;
  const FieldDescriptor *field;
};

void CollectSlots(Message *m, std::vector<FieldSlot> *utf8, std::vector<FieldSlot> *required) {
  const Descriptor *d = m->GetDescriptor();
  const Reflection *R = m->GetReflection();
  for (int i = 0; i < d->field_count(); i++) {
    const FieldDescriptor *f = d->field(i);
    if (NeedsUtf8(f) && !f->is_map()) utf8->push_back({m, f});
    if (f->is_required() && R->HasField(*m, f)) required->push_back({m, f});
    if (!IsMessageLike(f) || f->is_map()) continue;
    if (f->is_repeated()) {
      for (int k = 0; k < R->FieldSize(*m, f); k++)
        CollectSlots(R->MutableRepeatedMessage(m, f, k), utf8, required);
    } else if (R->HasField(*m, f)) {
      CollectSlots(R->MutableMessage(m, f), utf8, required);
    }
  }
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
  std::string dump_dir;
  bool verbose = false;
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
    size_t n = pbc_->info()->encoded_size(pbc_->mem());
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
    // (b) reverse: libprotobuf reads pbc's bytes back.
    std::unique_ptr<Message> back = ctx_.schema->New(d_);
    if (!back->ParseFromString(out))
      return Fail("reverse", "libprotobuf cannot parse pbc's output", bytes, nullptr, &out);
    std::string again;
    back->SerializeToString(&again);
    if (again != bytes)
      return Fail("reverse", "libprotobuf's re-serialization of pbc's output differs", bytes,
                  &again, &out);
    return true;
  }

  // Both parse `input` (or both reject it); accepted input re-encodes to the
  // same bytes. `want_status` (if not PBC_OK) is the error pbc must give.
  // `semantic`: compare pbc's output after a libprotobuf round trip (for
  // mutated inputs, whose unknown fields libprotobuf normalizes).
  bool Same(const char *check, const std::string &input, pbc_status want_status = PBC_OK,
            bool semantic = false, const std::string *expect_lib = nullptr) {
    Enter(check, input);
    std::unique_ptr<Message> lib = ctx_.schema->New(d_);
    g_last_log.clear();
    bool lib_ok = lib->ParseFromString(input);
    auto &stat = g_stats[check];
    stat.first++;
    if (!lib_ok) stat.second++;
    std::string lib_out;
    if (lib_ok) lib->SerializeToString(&lib_out);
    if (want_status != PBC_OK && lib_ok)
      return Fail(check, "harness error: libprotobuf accepted an input built to be invalid",
                  input, &lib_out, nullptr);
    if (expect_lib && lib_ok && lib_out != *expect_lib)
      return Fail(check,
                  "harness error: libprotobuf re-serializes the variant encoding differently "
                  "from the original message (lib output vs original shown)",
                  input, &lib_out, expect_lib);
    if (expect_lib && !lib_ok)
      return Fail(check, "harness error: libprotobuf rejected a variant encoding", input);
    std::string err;
    pbc_status s = pbc_->Decode(input, r_.Chance(0.5), r_.Chance(0.3), &err);
    if (!err.empty()) return Fail(check, err, input);
    if (!lib_ok) {
      if (s == PBC_OK) {
        std::string pbc_out;
        pbc_->Encode(&pbc_out, &err);
        return Fail(check, "libprotobuf rejects this input, pbc accepted it", input, nullptr,
                    &pbc_out);
      }
      if (want_status != PBC_OK && s != want_status)
        return Fail(check, std::string("pbc returned ") + StatusName(s) + ", want " +
                               StatusName(want_status),
                    input);
      return true;
    }
    if (s != PBC_OK)
      return Fail(check, std::string("libprotobuf accepts this input, pbc returned ") +
                             StatusName(s),
                  input, &lib_out, nullptr);
    std::string pbc_out;
    if (!pbc_->Encode(&pbc_out, &err)) return Fail(check, err, input, &lib_out, nullptr);
    if (semantic) {
      // libprotobuf's parse-serialize is not always idempotent (undeclared
      // closed-enum values from packed runs), so normalize both sides.
      std::string norm_pbc, norm_lib;
      if (!Normalize(pbc_out, &norm_pbc))
        return Fail(check, "libprotobuf cannot parse pbc's re-encoding", input, &lib_out,
                    &pbc_out);
      if (!Normalize(lib_out, &norm_lib))
        return Fail(check, "harness error: libprotobuf cannot parse its own output", input,
                    &lib_out, &pbc_out);
      if (norm_pbc != norm_lib)
        return Fail(check,
                    "pbc's re-encoding means something else than libprotobuf's parse "
                    "(compared after a libprotobuf round trip)",
                    input, &lib_out, &pbc_out);
      return true;
    }
    if (pbc_out != lib_out)
      return Fail(check, "pbc and libprotobuf re-encode this input differently", input,
                  &lib_out, &pbc_out);
    return true;
  }

  // (f): a tiny arena cap: PBC_OK with the right bytes, or OUT_OF_MEMORY.
  bool ArenaCap(const std::string &bytes) {
    g_stats["arena cap"].first++;
    Enter("arena cap", bytes);
    std::string err;
    size_t cap = static_cast<size_t>(r_.Below(3)) * static_cast<size_t>(r_.Range(0, 256));
    pbc_status s = pbc_->Decode(bytes, r_.Chance(0.5), false, &err, cap);
    if (!err.empty()) return Fail("arena cap", err, bytes);
    if (s == PBC_ERR_OUT_OF_MEMORY) return true;
    if (s != PBC_OK)
      return Fail("arena cap",
                  "decode with an arena capped at " + std::to_string(cap) + " bytes returned " +
                      StatusName(s) + ", want PBC_OK or PBC_ERR_OUT_OF_MEMORY",
                  bytes);
    std::string out;
    if (!pbc_->Encode(&out, &err)) return Fail("arena cap", err, bytes);
    if (out != bytes)
      return Fail("arena cap", "re-encoding after a capped-arena decode differs", bytes, &bytes,
                  &out);
    return true;
  }

 private:
  bool Normalize(const std::string &in, std::string *out) {
    std::unique_ptr<Message> m = ctx_.schema->New(d_);
    if (!m->ParseFromString(in)) return false;
    m->SerializeToString(out);
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

// All checks for one message with its canonical bytes. Returns false and
// reports on the first failure.
bool CheckMessage(const Context &ctx, const Message &msg, const std::string &bytes,
                  PbcMessage *pbc, Rng &r) {
  const Descriptor *d = msg.GetDescriptor();
  Checker c(ctx, d, pbc, r);
  auto fail = [&]() {
    ReportFailure(ctx, d, c.failure());
    return false;
  };
  // (a), (b)
  if (!c.Canonical(bytes)) return fail();
  // (c) variant encodings.
  for (int v = 0; v < 2; v++) {
    VariantStats stats;
    VariantEncoder enc(r, *ctx.schema, ctx.opts->unknown_fields, &stats);
    std::string variant = enc.Encode(msg, 0);
    if (!c.Same("non-canonical wire", variant, PBC_OK, false, stats.unknown ? nullptr : &bytes))
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
  // (e) invalid UTF-8 in a proto3 string; a missing required field.
  {
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
      std::string bad;
      copy->SerializePartialToString(&bad);
      if (!c.Same("invalid utf-8", bad, PBC_ERR_INVALID_UTF8)) return fail();
    } else if (!required.empty() && r.Chance(0.3)) {
      FieldSlot slot = required[r.Below(required.size())];
      slot.msg->GetReflection()->ClearField(slot.msg, slot.field);
      std::string bad;
      copy->SerializePartialToString(&bad);
      if (!c.Same("missing required", bad, PBC_ERR_MISSING_REQUIRED)) return fail();
    }
  }
  // (f) arena cap.
  if (r.Chance(0.1) && !c.ArenaCap(bytes)) return fail();
  // Mutations.
  for (int i = 0; i < ctx.opts->mutations; i++) {
    std::string m = Mutate(r, bytes);
    if (!c.Same("mutation", m, PBC_OK, /*semantic=*/true)) return fail();
  }
  return true;
}

const pbc_message_info *FindPbc(const std::string &name) {
  const pbc_message_info *info = pbc_find_message(name.c_str());
  if (!info) return nullptr;
  if (!info->full_name || name != info->full_name)
    Die("pbc_find_message(\"%s\") returned the entry of \"%s\"", name.c_str(),
        info->full_name ? info->full_name : "(null)");
  if (info->struct_size == 0 || !info->init || !info->decode || !info->encoded_size ||
      !info->encode)
    Die("pbc_message_info of %s is incomplete", name.c_str());
  return info;
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
    PbcMessage pbc(info);
    std::string err;
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

// The shortest cycle of singular message/group fields from d back to d.
std::vector<const FieldDescriptor *> RecursionPath(const Descriptor *d) {
  std::map<const Descriptor *, std::pair<const Descriptor *, const FieldDescriptor *>> prev;
  std::vector<const Descriptor *> queue = {d};
  std::set<const Descriptor *> visited = {d};
  for (size_t qi = 0; qi < queue.size(); qi++) {
    const Descriptor *cur = queue[qi];
    for (int i = 0; i < cur->field_count(); i++) {
      const FieldDescriptor *f = cur->field(i);
      if (!IsMessageLike(f) || f->is_repeated() || f->real_containing_oneof()) continue;
      const Descriptor *t = f->message_type();
      if (t == d) {
        std::vector<const FieldDescriptor *> path = {f};
        for (const Descriptor *x = cur; x != d; x = prev[x].first) path.push_back(prev[x].second);
        std::reverse(path.begin(), path.end());
        return path;
      }
      if (visited.insert(t).second) {
        prev[t] = {cur, f};
        queue.push_back(t);
      }
    }
  }
  return {};
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

// Depth limit: chains of nested messages (or groups) around the shortest
// recursion cycle of d, a few levels either side of libprotobuf's default
// recursion limit (100). pbc must accept exactly the chains libprotobuf
// accepts, and reject the others with PBC_ERR_DEPTH_LIMIT.
bool DepthProbe(const Options &opts, const Schema &schema, const Descriptor *d,
                PbcMessage *pbc) {
  std::vector<const FieldDescriptor *> path = RecursionPath(d);
  if (path.empty()) return true;
  int accepted = 0, rejected = 0;
  for (int levels = 90; levels <= 110; levels++) {
    std::unique_ptr<Message> root = schema.New(d);
    Message *cur = root.get();
    if (!FillRequiredScalars(cur)) return true;
    for (int i = 0; i < levels; i++) {
      cur = cur->GetReflection()->MutableMessage(cur, path[static_cast<size_t>(i) % path.size()],
                                                 schema.factory.get());
      if (!FillRequiredScalars(cur)) return true;
    }
    std::string bytes;
    root->SerializePartialToString(&bytes);
    std::unique_ptr<Message> probe = schema.New(d);
    bool lib_ok = probe->ParseFromString(bytes);
    (lib_ok ? accepted : rejected)++;
    Context ctx{&opts, &schema, "depth probe (" + std::to_string(levels) + " levels)", "",
                nullptr};
    Rng r(static_cast<uint64_t>(levels));
    Checker c(ctx, d, pbc, r);
    if (!c.Same("depth limit", bytes, lib_ok ? PBC_OK : PBC_ERR_DEPTH_LIMIT)) {
      ReportFailure(ctx, d, c.failure());
      return false;
    }
  }
  if (accepted == 0 || rejected == 0) {
    fprintf(stdout, "FAIL: harness error: the depth probe of %s found no limit (%d accepted, "
                    "%d rejected)\n",
            d->full_name().c_str(), accepted, rejected);
    return false;
  }
  return true;
}

void PrintStats() {
  for (const auto &kv : g_stats)
    fprintf(stderr, "  %-20s %8" PRIu64 " runs, %8" PRIu64 " rejected by libprotobuf\n",
            kv.first.c_str(), kv.second.first, kv.second.second);
}

int RunRandom(const Options &opts) {
  Schema schema;
  schema.Load(opts.proto_paths, opts.proto);
  const Descriptor *d = schema.Find(opts.message);
  if (!d) Die("no message %s in %s", opts.message.c_str(), opts.proto.c_str());
  const pbc_message_info *info = FindPbc(opts.message);
  if (!info) Die("pbc_find_message(\"%s\") is NULL: is its library linked whole?", opts.message.c_str());
  printf("seed: %" PRIu64 "\n", opts.seed);
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
  uint64_t passed = 0;
  size_t total_bytes = 0, max_bytes = 0;
  for (uint64_t k = 0; k < opts.cases; k++) {
    if (opts.only_case >= 0 && k != static_cast<uint64_t>(opts.only_case)) continue;
    Rng r(CaseSeed(opts.seed, k));
    std::unique_ptr<Message> msg = schema.New(d);
    Filler(r, schema, opts.max_depth).Fill(msg.get(), 0);
    if (!msg->IsInitialized()) Die("harness error: case %" PRIu64 " is not initialized", k);
    std::string bytes;
    if (!msg->SerializeToString(&bytes)) Die("harness error: libprotobuf cannot serialize case %" PRIu64, k);
    total_bytes += bytes.size();
    max_bytes = std::max(max_bytes, bytes.size());
    Context ctx{&opts, &schema, "case " + std::to_string(k), "--only-case " + std::to_string(k),
                msg.get()};
    pbc.ResetArenas();
    if (!CheckMessage(ctx, *msg, bytes, &pbc, r)) {
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
    std::string canon;
    dataset->SerializeToString(&canon);
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
    std::string canon;
    msg->SerializeToString(&canon);
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

void Usage() {
  fprintf(stderr,
          "usage:\n"
          "  difftest diff --proto_path DIR --proto FILE.proto --message NAME --cases N\n"
          "                [--seed S] [--max-depth D] [--unknown-fields] [--mutations M]\n"
          "                [--only-case K] [--dump-dir DIR] [--verbose]\n"
          "  difftest diff --proto_path DIR --proto benchmarks.proto --dataset FILE.pb\n"
          "                --dataset-proto-path DIR2 --dataset-proto FILE2.proto [--seed S]\n");
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

int main(int argc, char **argv) {
  gp::SetLogHandler(QuietLogHandler);
  InstallCrashHandler();
  if (argc < 2 || std::string(argv[1]) != "diff") Usage();
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
    else if (a == "--dataset") o.dataset = next();
    else if (a == "--dataset-proto-path") o.dataset_proto_paths.push_back(next());
    else if (a == "--dataset-proto") o.dataset_proto = next();
    else if (a == "--help" || a == "-h") Usage();
    else Die("unknown option %s", a.c_str());
  }
  if (o.proto.empty()) Usage();
  if (o.proto_paths.empty()) o.proto_paths.push_back(".");
  if (!o.dataset.empty()) {
    if (o.dataset_proto.empty()) Die("--dataset needs --dataset-proto");
    if (o.dataset_proto_paths.empty()) o.dataset_proto_paths.push_back(".");
    return RunDataset(o);
  }
  if (o.message.empty()) Die("--message is required");
  return RunRandom(o);
}
