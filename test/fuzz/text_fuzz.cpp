// libFuzzer target: pbc_text_parse on arbitrary text, against libprotobuf
// 3.21's TextFormat::Parser (see fuzz_common.h for how messages are
// chosen; the first byte picks one, the rest is the text).
//
// For every input the difftest's text check (Checker::TextParse) decides:
// both parsers accept it as the same message (the same serialization), or
// both reject it with libprotobuf's first error at the same line and
// column; pbc alone rejects only by the conformance suite's stricter
// rules (pbc/text.h). Under ASan and UBSan, so an out-of-bounds read of
// the text (which is not NUL-terminated) or of the parser's buffers is a
// finding too.
#include "fuzz_common.h"

#include <google/protobuf/text_format.h>

namespace {
std::string MakeSeed(size_t index, Rng &r) {
  Target &t = *g_targets[index];
  // A random message as libprotobuf prints it, in pbc's view of the schema
  // (extensions as unknown fields, printed by number), cut at a line end
  // within 1500 bytes: libFuzzer grows and cuts it further.
  std::unique_ptr<Message> m = t.schema.New(t.d);
  Filler(r, t.schema, 2, false).Fill(m.get(), 0);
  std::unique_ptr<Message> opaque = t.schema.NewOpaque(t.d);
  opaque->ParseFromString(LibBytes(m.get()));
  std::string text;
  gp::TextFormat::PrintToString(*opaque, &text);
  if (text.size() > 1500) {
    size_t cut = text.rfind('\n', 1500);
    text.resize(cut == std::string::npos ? 1500 : cut + 1);
  }
  return std::string(1, static_cast<char>(index)) + text;
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  InitTargets(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  Target &t = *g_targets[data[0] % g_targets.size()];
  if (t.d->options().message_set_wire_format()) return 0;
  std::string text(reinterpret_cast<const char *>(data + 1), size - 1);
  Rng r(HashInput(data, size));
  Context ctx{&t.opts, &t.schema, "fuzz input", "", nullptr};
  Checker c(ctx, t.d, t.pbc.get(), r);
  if (!c.TextParse("fuzz text parse", text, text)) Finding(ctx, t.d, c.failure());
  t.pbc->ResetArenas();
  return 0;
}
