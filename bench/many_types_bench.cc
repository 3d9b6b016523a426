// The many-types load (README.md): random messages of every message type of
// google_message3 (many_types_gen.cc's datasets), each decoded and encoded
// in turn, pbc against libprotobuf 3.21 in the same run. One binary per
// build of the schema (PBC_MANY_TIER: compact, default, profile, speed), so
// many-types.sh can set the tiers side by side; libprotobuf's figures in each
// are the common yardstick.
//
// Before timing anything it checks that pbc decodes every payload and encodes
// it back to the same bytes, and fails otherwise.
#include <benchmark/benchmark.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/message.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "datasets/google_message3/benchmark_message3.pb.h"
#include "median_reporter.h"
#include "pbc/pbc.h"

namespace gp = google::protobuf;

namespace {

struct Item {
  std::string name;
  std::string payload;
  const pbc_message_info *info = nullptr;
  std::unique_ptr<gp::Message> lib;  // parsed, for the serializers
  std::unique_ptr<gp::Message> scratch;  // parsed into by the parser
  std::vector<uint64_t> pbc;  // the decoded struct (8-byte aligned)
};

std::vector<Item> items;
size_t total_bytes = 0;
pbc_arena arena;
std::vector<uint8_t> out(1 << 22);

bool ReadDataset(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  std::string bytes = text.str();
  gp::io::CodedInputStream in(reinterpret_cast<const uint8_t *>(bytes.data()),
                              static_cast<int>(bytes.size()));
  std::string name;
  std::vector<std::string> payloads;
  while (uint32_t tag = in.ReadTag()) {
    std::string value;
    if ((tag & 7) != 2 || !gp::internal::WireFormatLite::ReadString(&in, &value)) return false;
    if (tag >> 3 == 2) name = value;
    if (tag >> 3 == 3) payloads.push_back(std::move(value));
  }
  const gp::Descriptor *d = gp::DescriptorPool::generated_pool()->FindMessageTypeByName(name);
  const pbc_message_info *info = pbc_find_message(name.c_str());
  if (!d || !info) {
    fprintf(stderr, "%s: %s is not in %s\n", path.c_str(), name.c_str(), d ? "pbc" : "libprotobuf");
    return false;
  }
  const gp::Message *prototype = gp::MessageFactory::generated_factory()->GetPrototype(d);
  for (std::string &p : payloads) {
    Item item;
    item.name = name;
    item.payload = std::move(p);
    item.info = info;
    item.lib.reset(prototype->New());
    item.scratch.reset(prototype->New());
    item.pbc.resize((info->struct_size + 7) / 8);
    if (!item.lib->ParseFromString(item.payload)) return false;
    total_bytes += item.payload.size();
    items.push_back(std::move(item));
  }
  return true;
}

// pbc decodes every payload and writes it back byte for byte.
bool Check() {
  for (Item &item : items) {
    pbc_arena_reset(&arena);
    const auto *in = reinterpret_cast<const uint8_t *>(item.payload.data());
    size_t n = 0;
    if (item.info->decode(item.pbc.data(), in, item.payload.size(), &arena) != PBC_OK ||
        item.info->encoded_size(item.pbc.data()) != item.payload.size() ||
        item.info->encode(item.pbc.data(), out.data(), out.size(), &n) != PBC_OK ||
        std::string(reinterpret_cast<const char *>(out.data()), n) != item.payload) {
      fprintf(stderr, "%s: pbc does not round-trip a payload\n", item.name.c_str());
      return false;
    }
  }
  return true;
}

void LibprotobufParse(benchmark::State &state) {
  for (auto _ : state)
    for (Item &item : items)
      if (!item.scratch->ParseFromString(item.payload)) state.SkipWithError("parse failed");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * total_bytes));
}

void PbcParse(benchmark::State &state) {
  for (auto _ : state)
    for (Item &item : items) {
      pbc_arena_reset(&arena);
      if (item.info->decode(item.pbc.data(), reinterpret_cast<const uint8_t *>(item.payload.data()),
                            item.payload.size(), &arena) != PBC_OK)
        state.SkipWithError("decode failed");
    }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * total_bytes));
}

void LibprotobufSerialize(benchmark::State &state) {
  for (auto _ : state)
    for (Item &item : items) {
      item.lib->ByteSizeLong();
      item.lib->SerializeWithCachedSizesToArray(out.data());
    }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * total_bytes));
}

// The parsed structs of the last parse: every payload decoded once more,
// each into an arena of its own that lives as long as the benchmark.
void PbcSerialize(benchmark::State &state) {
  std::vector<pbc_arena> arenas(items.size());
  for (size_t i = 0; i < items.size(); i++) {
    pbc_arena_init(&arenas[i], nullptr, 0);
    items[i].info->decode(items[i].pbc.data(),
                          reinterpret_cast<const uint8_t *>(items[i].payload.data()),
                          items[i].payload.size(), &arenas[i]);
  }
  for (auto _ : state)
    for (Item &item : items) {
      size_t n = item.info->encoded_size(item.pbc.data()), written;
      if (item.info->encode(item.pbc.data(), out.data(), n, &written) != PBC_OK)
        state.SkipWithError("encode failed");
    }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * total_bytes));
  for (pbc_arena &a : arenas) pbc_arena_destroy(&a);
}

class RatioReporter : public MedianReporter {
 public:
  RatioReporter()
      : MedianReporter([](const Run &run) { return run.counters.at("bytes_per_second").value; }) {}
  void PrintRatios() {
    for (const char *role : {"parse", "serialize"}) {
      std::string pbc = std::string("many_types/pbc_") + role;
      std::string lib = std::string("many_types/libprotobuf_") + role;
      if (figures_.count(pbc) && figures_.count(lib))
        printf("%s %s: pbc %.2fx libprotobuf\n", PBC_MANY_TIER, role, figures_[pbc] / figures_[lib]);
    }
  }
};

}  // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  std::vector<std::string> files;
  if (DIR *dir = opendir(PBC_MANY_DIR)) {
    while (dirent *e = readdir(dir)) {
      std::string name = e->d_name;
      if (name.size() > 3 && name.compare(name.size() - 3, 3, ".pb") == 0)
        files.push_back(std::string(PBC_MANY_DIR) + "/" + name);
    }
    closedir(dir);
  }
  std::sort(files.begin(), files.end());
  pbc_arena_init(&arena, nullptr, 0);
  for (const std::string &f : files)
    if (!ReadDataset(f)) return 1;
  if (items.empty()) {
    fprintf(stderr, "no datasets in %s\n", PBC_MANY_DIR);
    return 1;
  }
  if (!Check()) return 1;
  printf("%s build: %zu message types, %zu messages, %zu bytes\n", PBC_MANY_TIER, files.size(),
         items.size(), total_bytes);
  benchmark::RegisterBenchmark("many_types/libprotobuf_parse", LibprotobufParse);
  benchmark::RegisterBenchmark("many_types/pbc_parse", PbcParse);
  benchmark::RegisterBenchmark("many_types/libprotobuf_serialize", LibprotobufSerialize);
  benchmark::RegisterBenchmark("many_types/pbc_serialize", PbcSerialize);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintRatios();
  benchmark::Shutdown();
  pbc_arena_destroy(&arena);
  return 0;
}
