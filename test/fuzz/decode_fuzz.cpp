// libFuzzer target: pbc's generated decoders on arbitrary bytes, against
// libprotobuf 3.21 (see fuzz_common.h for how messages are chosen).
//
// For every input: libprotobuf accepts it exactly when pbc does (same
// depth limit, same required-field and UTF-8 rules), and when both accept,
// pbc's re-encoding parsed by libprotobuf equals libprotobuf's own parse of
// the input (compared as libprotobuf's deterministic bytes of both, map
// entries normalized; extensions read as unknown fields, as pbc keeps them).
// The input sits flush against a PROT_NONE page, read-only, and the decoder
// writes nothing past the struct: out-of-bounds reads and writes fault even
// where ASan cannot see them (the input buffer is not heap memory). After
// an error, the message left behind must still size and encode safely.
#include "fuzz_common.h"

namespace {
std::string MakeSeed(size_t index, Rng &r) {
  Target &t = *g_targets[index];
  // Small valid messages: libFuzzer grows and cuts them.
  std::string bytes;
  for (int tries = 0; tries < 200; tries++) {
    std::unique_ptr<Message> m = t.schema.New(t.d);
    Filler(r, t.schema, 2, t.d->options().message_set_wire_format()).Fill(m.get(), 0);
    std::string candidate = LibBytes(m.get());
    if (tries == 0 || candidate.size() < bytes.size()) bytes = candidate;
    if (bytes.size() <= 400) break;
  }
  return std::string(1, static_cast<char>(index)) + bytes;
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  InitTargets(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  Target &t = *g_targets[data[0] % g_targets.size()];
  std::string input(reinterpret_cast<const char *>(data + 1), size - 1);
  Rng r(HashInput(data, size));
  Context ctx{&t.opts, &t.schema, "fuzz input", "", nullptr};
  Checker c(ctx, t.d, t.pbc.get(), r);
  Expect e;
  e.compare = Compare::kNormalized;
  if (!c.Same("fuzz decode", input, e)) Finding(ctx, t.d, c.failure());
  // Whatever the decode left (all of it, or what came before an error) is
  // a valid message: encoded_size is stable and encode writes exactly that.
  std::string out, err;
  if (!t.pbc->Encode(&out, &err)) {
    Failure f;
    f.check = "state after decode";
    f.detail = err;
    f.input = input;
    Finding(ctx, t.d, f);
  }
  // Arena memory goes back before the input ends, so libFuzzer's leak
  // check (mallocs outnumbering frees) stays quiet.
  t.pbc->ResetArenas();
  return 0;
}
