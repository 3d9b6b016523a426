//===- CppHeaderGen.cpp - the C++ wrapper header --------------------------===//
//
// The C++ header adds no state and no code of its own to the library: every
// function in it is an inline forwarder to the C API, so a C++ program links
// the same archive as a C one. What varies per schema is small (type aliases
// in the package's namespace and one pbc::message_traits specialization per
// message); the rest is a fixed support block shared by all pbc C++ headers
// and guarded so several can be included together.
//
//===----------------------------------------------------------------------===//
#include "CppHeaderGen.h"
#include "HeaderGen.h"

#include "pbc/Dialect/Proto/Naming.h"
#include "pbc/Dialect/Proto/ProtoOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;
using namespace pbc;
using namespace pbc::proto;
using llvm::StringRef;

namespace {

// Shared by every generated C++ header; the guard lets headers of several
// schemas (or pbc versions with the same support block) be included in one
// translation unit.
const char kSupport[] = R"(
#ifndef PBC_CPP_SUPPORT_V6
#define PBC_CPP_SUPPORT_V6
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "pbc/json.h"

namespace pbc {

/* A non-owning view of contiguous elements (std::span is C++20). */
template <class T> class span {
public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;
  span() = default;
  span(T *data, std::size_t size) : data_(data), size_(size) {}
  template <std::size_t N> span(T (&array)[N]) : data_(array), size_(N) {}
  /* Any contiguous container whose data() converts to T* (std::vector,
   * std::array, std::string for span<const char>, ...). */
  template <class C,
            class = std::enable_if_t<std::is_convertible_v<
                decltype(std::declval<C &>().data()), T *>>>
  span(C &&c) : data_(c.data()), size_(c.size()) {}
  T *data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T &operator[](std::size_t i) const { return data_[i]; }
  T *begin() const { return data_; }
  T *end() const { return data_ + size_; }
  T &front() const { return data_[0]; }
  T &back() const { return data_[size_ - 1]; }

private:
  T *data_ = nullptr;
  std::size_t size_ = 0;
};

/* Views of decoded fields: valid as long as the input buffer and the arena
 * the message was decoded with. */
inline std::string_view view(const pbc_str &s) {
  return std::string_view(s.data, s.size);
}
inline span<const std::uint8_t> view(const pbc_bytes &b) {
  return span<const std::uint8_t>(b.data, b.size);
}
/* A repeated field (PBC_REPEATED(T): {T *data; size_t size;}). */
template <class R>
auto view(const R &repeated)
    -> span<std::remove_pointer_t<decltype(repeated.data)>> {
  return {repeated.data, repeated.size};
}

/* Values to store in a message: the message points at the caller's memory,
 * which must outlive it (nothing is copied). */
inline pbc_str str(std::string_view s) { return pbc_str{s.data(), s.size()}; }
inline pbc_bytes bytes(span<const std::uint8_t> b) {
  return pbc_bytes{b.data(), b.size()};
}
template <class R, class T> void assign(R &repeated, span<T> elements) {
  repeated.data = elements.data();
  repeated.size = elements.size();
}

inline const char *status_str(pbc_status s) { return pbc_status_str(s); }

/* A value or the status saying why there is none; no exceptions. */
template <class T> class result {
public:
  static result success(T value) { return result(PBC_OK, std::move(value)); }
  static result failure(pbc_status status) { return result(status, T()); }
  bool ok() const { return status_ == PBC_OK; }
  explicit operator bool() const { return ok(); }
  pbc_status status() const { return status_; }
  const char *error() const { return pbc_status_str(status_); }
  /* Only meaningful when ok(). */
  T &value() & { return value_; }
  const T &value() const & { return value_; }
  T &&value() && { return std::move(value_); }
  T &operator*() & { return value_; }
  const T &operator*() const & { return value_; }
  T *operator->() { return &value_; }
  const T *operator->() const { return &value_; }
  T value_or(T fallback) const { return ok() ? value_ : std::move(fallback); }

private:
  result(pbc_status status, T value)
      : status_(status), value_(std::move(value)) {}
  pbc_status status_;
  T value_;
};

/* Owns a pbc_arena: everything decoded into it is freed with it. Neither
 * copyable nor movable, since messages point into it. */
class arena {
public:
  arena() { pbc_arena_init(&a_, nullptr, 0); }
  /* `block` is used first and never freed (e.g. a stack buffer). */
  arena(void *block, std::size_t size) { pbc_arena_init(&a_, block, size); }
  ~arena() { pbc_arena_destroy(&a_); }
  arena(const arena &) = delete;
  arena &operator=(const arena &) = delete;
  /* Frees everything decoded so far; the arena stays usable. */
  void reset() { pbc_arena_reset(&a_); }
  void set_max_bytes(std::size_t max) { pbc_arena_set_max_bytes(&a_, max); }
  pbc_arena *get() { return &a_; }

private:
  pbc_arena a_;
};

/* Specialized by generated headers for each message type. */
template <class T> struct message_traits;

/* A message with its defaults (T_init). */
template <class T> T make() {
  T m;
  message_traits<T>::init(&m);
  return m;
}
/* Replaces m with the message decoded from `in` (T_init, then T_decode). */
template <class T>
pbc_status decode(T &m, span<const std::uint8_t> in, arena &a) {
  message_traits<T>::init(&m);
  return message_traits<T>::decode(&m, in.data(), in.size(), a.get());
}
template <class T> pbc_status decode(T &m, std::string_view in, arena &a) {
  return decode(m,
                span<const std::uint8_t>(
                    reinterpret_cast<const std::uint8_t *>(in.data()),
                    in.size()),
                a);
}
/* Merges the message decoded from `in` into m (T_merge_decode, libprotobuf's
 * MergeFromString): m's structure is copied into `a` first, so m may hold
 * anything; see pbc_merge_decode. */
template <class T>
pbc_status merge_decode(T &m, span<const std::uint8_t> in, arena &a) {
  return message_traits<T>::merge_decode(&m, in.data(), in.size(), a.get());
}
template <class T>
pbc_status merge_decode(T &m, std::string_view in, arena &a) {
  return merge_decode(m,
                      span<const std::uint8_t>(
                          reinterpret_cast<const std::uint8_t *>(in.data()),
                          in.size()),
                      a);
}
template <class T> result<T> parse(std::string_view in, arena &a) {
  T m;
  pbc_status s = decode(m, in, a);
  return s == PBC_OK ? result<T>::success(m) : result<T>::failure(s);
}
template <class T> std::size_t encoded_size(const T &m) {
  return message_traits<T>::encoded_size(&m);
}
/* Serializes into `out`; the result is the number of bytes written. */
template <class T>
result<std::size_t> encode(const T &m, span<std::uint8_t> out) {
  std::size_t written = 0;
  pbc_status s = message_traits<T>::encode(&m, out.data(), out.size(), &written);
  return s == PBC_OK ? result<std::size_t>::success(written)
                     : result<std::size_t>::failure(s);
}
/* Serializes into the end of `out` and returns the bytes, a view into
 * `out`: no move whatever the buffer's size (see T_encode_at_end). */
template <class T>
result<span<std::uint8_t>> encode_at_end(const T &m, span<std::uint8_t> out) {
  std::uint8_t *start = nullptr;
  std::size_t written = 0;
  pbc_status s = message_traits<T>::encode_at_end(&m, out.data(), out.size(),
                                                  &start, &written);
  return s == PBC_OK
             ? result<span<std::uint8_t>>::success(span<std::uint8_t>(start, written))
             : result<span<std::uint8_t>>::failure(s);
}
/* Serializes into a new std::string (which allocates). */
template <class T> result<std::string> encode_to_string(const T &m) {
  std::string out(encoded_size(m), '\0');
  std::size_t written = 0;
  pbc_status s = message_traits<T>::encode(
      &m, reinterpret_cast<std::uint8_t *>(&out[0]), out.size(), &written);
  if (s != PBC_OK)
    return result<std::string>::failure(s);
  out.resize(written);
  return result<std::string>::success(std::move(out));
}
template <class T> bool is_initialized(const T &m) {
  return message_traits<T>::is_initialized(&m);
}
template <class T> const pbc_message_info &info() {
  return message_traits<T>::info();
}
/* MessageDifferencer::Equals, CopyFrom, MergeFrom and Clear (see
 * pbc_message_equal and the others in pbc.h): what copy and merge add to
 * `dst` is copied into the arena. */
template <class T> bool equal(const T &a, const T &b) {
  return pbc_message_equal(&info<T>(), &a, &b, nullptr);
}
template <class T> pbc_status copy(T &dst, const T &src, arena &a) {
  return pbc_message_copy(&info<T>(), &dst, &src, a.get());
}
template <class T> pbc_status merge(T &dst, const T &src, arena &a) {
  return pbc_message_merge(&info<T>(), &dst, &src, a.get());
}
template <class T> void clear(T &m) { message_traits<T>::init(&m); }
/* ProtoJSON (pbc/json.h: what libprotobuf's MessageToJsonString prints)
 * into a new std::string; `options` may be null for the defaults. */
template <class T>
result<std::string> to_json(const T &m, const pbc_json_options *options = nullptr) {
  std::size_t n = 0;
  pbc_status s = pbc_json_print(&info<T>(), &m, nullptr, 0, &n, options);
  if (s != PBC_OK && s != PBC_ERR_BUFFER_TOO_SMALL)
    return result<std::string>::failure(s);
  std::string out(n, '\0');
  s = pbc_json_print(&info<T>(), &m, &out[0], n, &n, options);
  return s == PBC_OK ? result<std::string>::success(std::move(out))
                     : result<std::string>::failure(s);
}
/* The same JSON appended to a scattered writer (pbc/writer.h). */
template <class T>
pbc_status write_json(const T &m, pbc_writer *w,
                      const pbc_json_options *options = nullptr) {
  return pbc_json_write(&info<T>(), &m, w, options);
}
/* Replaces m with the message read from ProtoJSON (pbc_json_parse): what
 * it holds is put in `a`, nothing points into `json`; `error`, if given,
 * says where and why it failed. */
template <class T>
pbc_status from_json(T &m, std::string_view json, arena &a,
                     const pbc_json_options *options = nullptr,
                     pbc_json_error *error = nullptr) {
  return pbc_json_parse(&info<T>(), &m, json.data(), json.size(), a.get(),
                        options, error);
}

} // namespace pbc
#endif /* PBC_CPP_SUPPORT_V6 */
)";

/// A path as comment text: itself unless it could end the comment.
std::string commentText(StringRef path) {
  if (path.contains("*/") || path.contains("??") ||
      llvm::any_of(path, [](char c) { return c < 0x20 || c == 0x7f; }))
    return fileIdentifier(path);
  return path.str();
}

class CppHeaderWriter {
public:
  CppHeaderWriter(ModuleOp module, llvm::raw_ostream &os)
      : module(module), os(os) {}

  LogicalResult emit(StringRef protoFile);

private:
  void emitFile(FileOp file);

  ModuleOp module;
  llvm::raw_ostream &os;
};

} // namespace

LogicalResult CppHeaderWriter::emit(StringRef protoFile) {
  SmallVector<FileOp> order; // imports first, as in the C header
  if (failed(filesInImportOrder(module, protoFile, order)))
    return failure();

  std::string guard = cppHeaderGuard(protoFile);
  os << "/* Generated by pbc from " << commentText(protoFile)
     << ". Do not edit.\n"
     << " * C++17 wrapper over " << headerFileName(protoFile)
     << " (docs/generated-api.md): the message types are the C\n"
     << " * structs, named again in the package's namespace; pbc::decode, "
        "pbc::encode,\n"
     << " * pbc::view, pbc::arena and pbc::result work on all of them. */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include \"" << headerFileName(protoFile) << "\"\n"
     << kSupport;
  for (FileOp file : order)
    emitFile(file);
  os << "\n#endif /* " << guard << " */\n";
  return success();
}

void CppHeaderWriter::emitFile(FileOp file) {
  // Each file's block once per translation unit, like the C header's, so
  // two headers sharing an import do not specialize its traits twice.
  std::string guard = cppHeaderFileBlockGuard(file.getName());
  os << "\n/* ---- " << commentText(file.getName()) << " ---- */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n";

  StringRef package = file.getPackage();
  auto inFile = [&](auto op) { return op.getFile() == file.getName(); };
  SmallVector<EnumOp> enums(
      llvm::make_filter_range(module.getOps<EnumOp>(), inFile));
  SmallVector<MessageOp> messages(
      llvm::make_filter_range(module.getOps<MessageOp>(), inFile));

  // The types again in the package's namespace. Without a package the C
  // names are already global.
  if (!package.empty() && (!enums.empty() || !messages.empty())) {
    os << "\nnamespace " << cppNamespace(package) << " {\n";
    auto alias = [&](StringRef fullName) {
      os << "using " << cppTypeAlias(fullName, package) << " = ::"
         << cTypeName(fullName) << ";\n";
    };
    for (EnumOp op : enums)
      alias(op.getSymName());
    for (MessageOp msg : messages)
      alias(msg.getSymName());
    os << "} // namespace\n";
  }

  if (messages.empty()) {
    os << "#endif /* " << guard << " */\n";
    return;
  }
  os << "\nnamespace pbc {\n";
  for (MessageOp msg : messages) {
    StringRef full = msg.getSymName();
    std::string type = "::" + cTypeName(full);
    auto fn = [&](StringRef suffix) { return "::" + cFunctionName(full, suffix); };
    os << "template <> struct message_traits<" << type << "> {\n"
       << "  static constexpr const char *full_name = \"" << full << "\";\n"
       << "  static void init(" << type << " *m) { " << fn("init")
       << "(m); }\n"
       << "  static pbc_status decode(" << type
       << " *m, const std::uint8_t *p, std::size_t n, pbc_arena *a) {\n"
       << "    return " << fn("decode") << "(m, p, n, a);\n  }\n"
       << "  static pbc_status merge_decode(" << type
       << " *m, const std::uint8_t *p, std::size_t n, pbc_arena *a) {\n"
       << "    return " << fn("merge_decode") << "(m, p, n, a);\n  }\n"
       << "  static std::size_t encoded_size(const " << type << " *m) {\n"
       << "    return " << fn("encoded_size") << "(m);\n  }\n"
       << "  static pbc_status encode(const " << type
       << " *m, std::uint8_t *p, std::size_t cap, std::size_t *written) {\n"
       << "    return " << fn("encode") << "(m, p, cap, written);\n  }\n"
       << "  static pbc_status encode_at_end(const " << type
       << " *m, std::uint8_t *p, std::size_t cap, std::uint8_t **start, "
          "std::size_t *written) {\n"
       << "    return " << fn("encode_at_end")
       << "(m, p, cap, start, written);\n  }\n"
       << "  static bool is_initialized(const " << type << " *m) {\n"
       << "    return " << fn("is_initialized") << "(m);\n  }\n"
       << "  static const pbc_message_info &info() { return ::"
       << cInfoName(full) << "; }\n"
       << "};\n";
  }
  os << "} // namespace pbc\n#endif /* " << guard << " */\n";
}

LogicalResult pbc::emitCppHeader(ModuleOp module, StringRef protoFile,
                                 llvm::raw_ostream &os) {
  std::string text;
  llvm::raw_string_ostream buffer(text);
  if (failed(CppHeaderWriter(module, buffer).emit(protoFile)))
    return failure();
  os << text;
  return success();
}
