// Shared by the libFuzzer targets: difftest's machinery (schemas loaded with
// libprotobuf's front end, pbc driven through pbc_message_info, the
// comparisons) and the list of messages one fuzzer binary covers.
//
// A fuzzer binary links the pbc libraries of several schemas; each
//   --schema=DIR[:DIR...],FILE.proto,full.MessageName
// argument (libFuzzer passes arguments starting with "--" to the target)
// adds one message. The first byte of every fuzz input picks the message
// (modulo their count), so one corpus and one run cover all of them.
// --write-seeds=DIR writes a few seed inputs per message and exits;
// --dump-dir=DIR saves a finding's input and both outputs there.
#ifndef PBC_FUZZ_COMMON_H
#define PBC_FUZZ_COMMON_H

#define PBC_DIFFTEST_NO_MAIN
#include "description_check.cpp"
#include "difftest.cpp"

namespace {

struct Target {
  Options opts;
  Schema schema;
  const Descriptor *d = nullptr;
  std::unique_ptr<PbcMessage> pbc;
};

std::vector<std::unique_ptr<Target>> g_targets;
std::string g_seed_dir, g_dump_dir;

std::vector<std::string> Split(const std::string &s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t at = s.find(sep, start);
    out.push_back(s.substr(start, at - start));
    if (at == std::string::npos) return out;
    start = at + 1;
  }
}

void AddTarget(const std::string &spec) {
  std::vector<std::string> parts = Split(spec, ',');
  if (parts.size() != 3) Die("--schema=%s: want DIR[:DIR...],FILE.proto,full.Message", spec.c_str());
  auto t = std::make_unique<Target>();
  t->opts.proto_paths = Split(parts[0], ':');
  t->opts.proto = parts[1];
  t->opts.message = parts[2];
  t->schema.Load(t->opts.proto_paths, t->opts.proto);
  t->d = t->schema.Find(t->opts.message);
  if (!t->d) Die("no message %s in %s", parts[2].c_str(), parts[1].c_str());
  const pbc_message_info *info = FindPbc(parts[2]);
  if (!info) Die("pbc_find_message(\"%s\") is NULL: is its library linked whole?", parts[2].c_str());
  t->pbc = std::make_unique<PbcMessage>(info);
  g_targets.push_back(std::move(t));
}

// FNV-1a: a fixed seed per input, so every run of an input is the same.
uint64_t HashInput(const uint8_t *data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 0x100000001b3ULL;
  return h;
}

[[noreturn]] void Finding(const Context &ctx, const Descriptor *d, const Failure &f) {
  ReportFailure(ctx, d, f);
  // libFuzzer saves the input that got here.
  abort();
}

void WriteFile(const std::string &path, const std::string &data) {
  std::ofstream o(path, std::ios::binary);
  o.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!o) Die("cannot write %s", path.c_str());
}

// Each target defines how a seed for message `index` looks.
std::string MakeSeed(size_t index, Rng &r);

void InitTargets(int *argc, char ***argv) {
  gp::SetLogHandler(QuietLogHandler);
  for (int i = 1; i < *argc; i++) {
    std::string a = (*argv)[i];
    if (a.rfind("--schema=", 0) == 0) AddTarget(a.substr(9));
    else if (a.rfind("--write-seeds=", 0) == 0) g_seed_dir = a.substr(14);
    else if (a.rfind("--dump-dir=", 0) == 0) g_dump_dir = a.substr(11);
  }
  for (auto &t : g_targets) t->opts.dump_dir = g_dump_dir;
  if (g_targets.empty()) Die("no --schema=DIR,FILE.proto,Message given");
  if (g_seed_dir.empty()) return;
  for (size_t i = 0; i < g_targets.size(); i++) {
    for (uint64_t k = 0; k < 3; k++) {
      Rng r(CaseSeed(20240601, i * 3 + k));
      WriteFile(g_seed_dir + "/seed-" + std::to_string(i) + "-" + std::to_string(k),
                MakeSeed(i, r));
    }
  }
  exit(0);
}

}  // namespace

#endif  // PBC_FUZZ_COMMON_H
