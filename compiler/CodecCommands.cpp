//===- CodecCommands.cpp - pbc decode, encode and decode_raw --------------===//
//
// The drop-ins for protoc --decode, --encode and --decode_raw: the same
// output bytes and messages, from pbc's runtime alone. The schema is the
// imported one as a FileDescriptorSet, loaded with pbc_schema_load
// (pbc/schema.h) as any program would load one at run time, so these
// commands run the table codec and the text format on descriptions built in
// memory: what they print is what that API gives. With --jit the types are
// the schema's code compiled into the process (Jit.h) instead, and the
// output is the same.
//
//===----------------------------------------------------------------------===//
#include "CodecCommands.h"

#include "pbc/json.h"
#include "pbc/schema.h"
#include "pbc/text.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

using namespace llvm;
using pbc::MessageTypes;

namespace {

/// An arena, destroyed when it goes.
struct Arena {
  Arena() { pbc_arena_init(&arena, nullptr, 0); }
  ~Arena() { pbc_arena_destroy(&arena); }
  pbc_arena arena;
};

bool readStdin(std::unique_ptr<MemoryBuffer> &out) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> in = MemoryBuffer::getSTDIN();
  if (!in) {
    errs() << "pbc: error: cannot read stdin: " << in.getError().message()
           << "\n";
    return false;
  }
  out = std::move(*in);
  return true;
}

/// stdout takes raw bytes (the encoded messages, the text as printed).
bool writeStdout(const void *data, size_t size) {
  return fwrite(data, 1, size, stdout) == size;
}

/// The message type, as protoc finds it: its full name, with or without a
/// leading dot. Prints protoc's error when the schema has none.
const pbc_message_info *findType(const MessageTypes &types, StringRef name) {
  std::string full = name.ltrim('.').str();
  const pbc_message_info *info = types.find(types.ctx, full.c_str());
  if (!info)
    errs() << "Type not defined: " << name << "\n";
  return info;
}

/// libprotobuf's FindInitializationErrors: the paths of the required
/// fields missing in m and in the messages it holds ("a", "b.c",
/// "d[2].e"), this message's first, then those of its set message fields,
/// by field number.
void missingRequired(const pbc_message_desc *d, const uint8_t *m,
                     const std::string &prefix,
                     std::vector<std::string> &out) {
  for (uint32_t i = 0; i < d->field_count; ++i) {
    const pbc_field_desc *f = &d->fields[i];
    if (!(f->flags & PBC_FIELD_REQUIRED))
      continue;
    bool set = f->kind == PBC_FIELD_BIT
                   ? (m[f->presence / 32 * 4 + f->presence % 32 / 8] >>
                      (f->presence % 8)) & 1
                   : [&] {
                       const uint8_t *p;
                       memcpy(&p, m + f->offset, sizeof p);
                       return p != nullptr;
                     }();
    if (!set)
      out.push_back(prefix + pbc_field_name(d, f));
  }
  for (uint32_t i = 0; i < d->field_count; ++i) {
    const pbc_field_desc *f = &d->fields[i];
    const pbc_message_desc *sub = pbc_field_message(d, f);
    if (!sub || !sub->check_count)
      continue;
    std::string name = prefix + pbc_field_name(d, f);
    if (f->kind == PBC_FIELD_REPEATED) {
      pbc_bytes view;
      memcpy(&view, m + f->offset, sizeof view);
      for (size_t j = 0; j < view.size; ++j)
        missingRequired(sub, view.data + j * sub->size,
                        name + "[" + std::to_string(j) + "].", out);
      continue;
    }
    if (f->kind == PBC_FIELD_ONEOF) {
      uint32_t c;
      memcpy(&c, m + d->oneofs[f->presence].case_offset, sizeof c);
      if (c != f->number)
        continue;
    }
    const uint8_t *p;
    memcpy(&p, m + f->offset, sizeof p);
    if (p)
      missingRequired(sub, p, name + ".", out);
  }
}

/// protoc's warning for a message that lacks required fields.
void warnIfPartial(const pbc_message_info *info, const void *m) {
  if (pbc_message_is_initialized(info, m))
    return;
  std::vector<std::string> paths;
  missingRequired(info->desc, static_cast<const uint8_t *>(m), "", paths);
  std::string list;
  for (const std::string &p : paths)
    list += (list.empty() ? "" : ", ") + p;
  errs() << "warning:  Input message is missing required fields:  " << list
         << "\n";
}

/// The text or JSON of m into `text` (reused: grown when too small).
bool print(const MessageTypes &types, const pbc_message_info *info,
           const void *m, pbc::TextFormat format, std::string &text,
           size_t &length) {
  pbc_text_options options = {};
  options.extensions = types.extensions.data();
  options.extension_count = types.extensions.size();
  pbc_json_options json = {};
  json.find_message = types.find;
  json.find_message_ctx = types.ctx;
  json.extensions = types.extensions.data();
  json.extension_count = types.extensions.size();
  // An empty ArrayRef's data() may be NULL, which means "the linked
  // extensions": none are linked here.
  static const pbc_extension_info *const kNone[1] = {nullptr};
  if (types.extensions.empty())
    options.extensions = json.extensions = kNone;
  for (;;) {
    pbc_status s =
        format == pbc::TextFormat::Json
            ? pbc_json_print(info, m, text.data(), text.size(), &length, &json)
            : pbc_text_print(info, m, text.data(), text.size(), &length,
                             &options);
    if (s == PBC_OK)
      return true;
    if (s != PBC_ERR_BUFFER_TOO_SMALL) {
      errs() << "pbc: error: cannot print the message: " << pbc_status_str(s)
             << "\n";
      return false;
    }
    text.resize(length);
  }
}

/// A varint length prefix, as a delimited stream has before each message.
void putLength(std::string &out, uint64_t n) {
  for (; n >= 0x80; n >>= 7)
    out.push_back(static_cast<char>((n & 0x7f) | 0x80));
  out.push_back(static_cast<char>(n));
}

/// The length prefix at p: its value and bytes, or false when it is cut
/// short or longer than 10 bytes.
bool takeLength(const uint8_t *p, const uint8_t *end, uint64_t &n,
                size_t &bytes) {
  n = 0;
  for (bytes = 0; bytes < 10 && p + bytes < end; ++bytes) {
    n |= static_cast<uint64_t>(p[bytes] & 0x7f) << (7 * bytes);
    if (!(p[bytes] & 0x80)) {
      ++bytes;
      return true;
    }
  }
  return false;
}

/// The line before each message of a delimited stream's text: a comment,
/// so each message's text still parses as text format.
constexpr StringLiteral kMessageMark = "# message ";

} // namespace

void pbc::SchemaDeleter::operator()(pbc_schema *schema) const {
  pbc_schema_free(schema);
}

pbc::SchemaPtr pbc::loadSchema(StringRef descriptorSet) {
  pbc_schema *loaded = nullptr;
  pbc_schema_error error;
  if (pbc_schema_load(reinterpret_cast<const uint8_t *>(descriptorSet.data()),
                      descriptorSet.size(), &loaded, &error) != PBC_OK) {
    errs() << "pbc: error: cannot load the schema: " << error.message << "\n";
    return nullptr;
  }
  return SchemaPtr(loaded);
}

int pbc::runDecode(const MessageTypes &types, StringRef message,
                   bool delimited, TextFormat format) {
  const pbc_message_info *info = findType(types, message);
  std::unique_ptr<MemoryBuffer> in;
  if (!info || !readStdin(in))
    return 1;
  const uint8_t *p = reinterpret_cast<const uint8_t *>(in->getBufferStart());
  const uint8_t *end = p + in->getBufferSize();

  Arena arena;
  pbc_decode_options options = {};
  options.allow_missing_required = true; // ParsePartialFromZeroCopyStream
  std::string text(4096, '\0');
  for (uint64_t index = 1; !delimited || p < end; ++index) {
    const uint8_t *at = p;
    size_t size = static_cast<size_t>(end - p);
    if (delimited) {
      uint64_t n;
      size_t bytes;
      if (!takeLength(p, end, n, bytes) ||
          n > static_cast<uint64_t>(end - p - bytes)) {
        errs() << "pbc: error: stdin: message " << index << " at byte "
               << (p - reinterpret_cast<const uint8_t *>(in->getBufferStart()))
               << ": its length prefix is cut short or runs past the end\n";
        return 1;
      }
      at = p + bytes;
      size = static_cast<size_t>(n);
    }
    pbc_arena_reset(&arena.arena);
    void *m = pbc_message_new(info, &arena.arena);
    if (!m ||
        pbc_decode(info, m, at, size, &arena.arena, &options) != PBC_OK) {
      if (delimited)
        errs() << "pbc: error: stdin: message " << index << ":\n";
      errs() << "Failed to parse input.\n";
      return 1;
    }
    warnIfPartial(info, m);
    size_t length;
    if (!print(types, info, m, format, text, length))
      return 1;
    // Text after a mark line in a stream; JSON one message a line, whatever
    // the stream (a JSON Lines file).
    const bool json = format == TextFormat::Json;
    if (delimited && !json) {
      std::string mark = (kMessageMark + Twine(index) + "\n").str();
      if (!writeStdout(mark.data(), mark.size()))
        return 1;
    }
    if (!writeStdout(text.data(), length) || (json && !writeStdout("\n", 1)))
      return 1;
    if (!delimited)
      break;
    p = at + size;
  }
  return fflush(stdout) == 0 ? 0 : 1;
}

/// Where a byte offset into `text` is, as line:column (from 1).
static std::pair<uint32_t, uint32_t> lineColumn(StringRef text, size_t at) {
  StringRef before = text.take_front(at);
  size_t eol = before.rfind('\n');
  return {static_cast<uint32_t>(before.count('\n') + 1),
          static_cast<uint32_t>(eol == StringRef::npos ? at + 1 : at - eol)};
}

int pbc::runEncode(const MessageTypes &types, StringRef message,
                   bool delimited, TextFormat format) {
  const pbc_message_info *info = findType(types, message);
  std::unique_ptr<MemoryBuffer> in;
  if (!info || !readStdin(in))
    return 1;
  StringRef text = in->getBuffer();
  const bool json = format == TextFormat::Json;

  // Each message's text: the whole input, or (--delimited) what follows
  // each `# message` line up to the next (JSON: each non-empty line), with
  // the line it starts on.
  struct Piece {
    StringRef text;
    uint32_t firstLine;
  };
  std::vector<Piece> pieces;
  if (!delimited) {
    pieces.push_back({text, 1});
  } else if (json) {
    uint32_t line = 1;
    for (size_t pos = 0; pos < text.size(); ++line) {
      size_t eol = std::min(text.find('\n', pos), text.size());
      StringRef piece = text.slice(pos, eol);
      if (!piece.trim().empty())
        pieces.push_back({piece, line});
      pos = eol + 1;
    }
  } else {
    uint32_t line = 1;
    size_t start = StringRef::npos;
    uint32_t startLine = 0;
    for (size_t pos = 0; pos <= text.size();) {
      size_t eol = text.find('\n', pos);
      size_t next = eol == StringRef::npos ? text.size() + 1 : eol + 1;
      if (text.substr(pos).starts_with(kMessageMark) || pos == text.size()) {
        if (start != StringRef::npos)
          pieces.push_back({text.slice(start, pos), startLine});
        start = std::min(next, text.size());
        startLine = line + 1;
      }
      pos = next;
      ++line;
    }
  }

  Arena arena;
  pbc_text_parse_options options = {};
  options.allow_partial = true; // as protoc: the warning below instead
  // An Any's type, in expanded form, is one of the schema's messages.
  options.find_message = types.find;
  options.find_message_ctx = types.ctx;
  options.extensions = types.extensions.data();
  options.extension_count = types.extensions.size();
  pbc_json_options jsonOptions = {};
  jsonOptions.find_message = types.find;
  jsonOptions.find_message_ctx = types.ctx;
  jsonOptions.extensions = types.extensions.data();
  jsonOptions.extension_count = types.extensions.size();
  std::string out;
  for (const Piece &piece : pieces) {
    pbc_arena_reset(&arena.arena);
    void *m = pbc_message_new(info, &arena.arena);
    // Where it went wrong, as line and column (0: the whole message).
    uint32_t line = 0, column = 0;
    const char *why = "";
    pbc_text_error textError = {};
    pbc_json_error jsonError = {};
    pbc_status s = PBC_ERR_OUT_OF_MEMORY;
    if (m && json) {
      s = pbc_json_parse(info, m, piece.text.data(), piece.text.size(),
                         &arena.arena, &jsonOptions, &jsonError);
      why = jsonError.message;
      if (s != PBC_OK && s != PBC_ERR_MISSING_REQUIRED)
        std::tie(line, column) = lineColumn(piece.text, jsonError.offset);
    } else if (m) {
      s = pbc_text_parse(info, m, piece.text.data(), piece.text.size(),
                         &arena.arena, &options, &textError);
      why = textError.message;
      line = textError.line;
      column = textError.column;
    }
    if (s != PBC_OK) {
      if (line)
        errs() << "input:" << line + piece.firstLine - 1 << ":" << column
               << ": " << why << "\n";
      else
        errs() << "input: " << (why[0] ? why : pbc_status_str(s)) << "\n";
      errs() << "Failed to parse input.\n";
      return 1;
    }
    warnIfPartial(info, m);
    size_t size = pbc_message_encoded_size(info, m);
    if (delimited)
      putLength(out, size);
    size_t at = out.size(), written = 0;
    out.resize(at + size);
    if (pbc_message_encode(info, m, reinterpret_cast<uint8_t *>(&out[at]),
                           size, &written) != PBC_OK) {
      errs() << "pbc: error: the message is too large to encode\n";
      return 1;
    }
  }
  if (!writeStdout(out.data(), out.size()) || fflush(stdout) != 0) {
    errs() << "output: I/O error.\n";
    return 1;
  }
  return 0;
}

int pbc::runDecodeRaw() {
  std::unique_ptr<MemoryBuffer> in;
  if (!readStdin(in))
    return 1;
  // A message without fields: every field is unknown. The struct is its
  // unknown fields' view alone; the one lookup entry is empty (no field has
  // a number).
  static const uint16_t noLookup[1] = {0};
  pbc_message_desc desc = {};
  desc.strings = "decode_raw";
  desc.size = sizeof(pbc_bytes);
  desc.unknown_offset = 0;
  desc.lookup = noLookup;
  desc.syntax = PBC_SYNTAX_PROTO2;
  pbc_message_info info = {};
  info.full_name = desc.strings;
  info.struct_size = desc.size;
  info.desc = &desc;

  Arena arena;
  pbc_bytes message;
  StringRef bytes = in->getBuffer();
  if (pbc_decode(&info, &message,
                 reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size(),
                 &arena.arena, nullptr) != PBC_OK) {
    errs() << "Failed to parse input.\n";
    return 1;
  }
  std::string text(4096, '\0');
  size_t length;
  if (!print(MessageTypes{}, &info, &message, TextFormat::Text, text, length) ||
      !writeStdout(text.data(), length) || fflush(stdout) != 0)
    return 1;
  return 0;
}
