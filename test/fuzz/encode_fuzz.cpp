// libFuzzer target: pbc's generated encoders (see fuzz_common.h for how
// messages are chosen).
//
// The fuzz bytes drive difftest's random message generator (each byte one
// choice: which fields are set, how many elements, which values, how deep),
// so the fuzzer steers the struct contents pbc gets. pbc decodes
// libprotobuf's bytes of that message into its C struct, then
// T_encoded_size must be their size, T_encode must write exactly them
// (BUFFER_TOO_SMALL one byte short, nothing written outside the buffer),
// and libprotobuf must parse pbc's bytes back to an equal message. With
// extensions set, pbc writes them after the known fields (it keeps them as
// unknown fields, docs/generated-api.md) where libprotobuf orders them by
// number: then the bytes are compared by what they mean (both parsed by
// libprotobuf and re-serialized), and sizes must still agree.
#include "fuzz_common.h"

namespace {
std::string MakeSeed(size_t index, Rng &r) {
  std::string tape(1, static_cast<char>(index));
  for (int i = 0; i < 48; i++) tape += static_cast<char>(r.Next());
  return tape;
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  InitTargets(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  Target &t = *g_targets[data[0] % g_targets.size()];
  Rng r(0);
  r.SetTape(data + 1, size - 1);
  std::unique_ptr<Message> msg = t.schema.New(t.d);
  Filler(r, t.schema, t.opts.max_depth, t.d->options().message_set_wire_format())
      .Fill(msg.get(), 0);
  if (!msg->IsInitialized()) Die("harness error: the random message is not initialized");
  std::string bytes = LibBytes(msg.get());
  Context ctx{&t.opts, &t.schema, "fuzz input", "", msg.get()};
  Rng checker_rng(HashInput(data, size));
  Checker c(ctx, t.d, t.pbc.get(), checker_rng);
  bool ok;
  if (HasExtensions(*msg)) {
    Expect e;
    e.compare = Compare::kReordered;
    ok = c.Same("fuzz encode (extensions)", bytes, e);
  } else {
    ok = c.Canonical(bytes);
  }
  if (!ok) Finding(ctx, t.d, c.failure());
  t.pbc->ResetArenas();
  return 0;
}
