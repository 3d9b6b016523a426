// Google's protobuf benchmark datasets, parsed and serialized by pbc and by
// libprotobuf 3.21 in the same run. Each iteration handles every payload of
// a dataset; times are per message (items). pbc goes through the by-name
// table, the way a generic tool would; libprotobuf through protoc's C++.
//
//   ninja -C build pbc_bench_datasets && build/bin/pbc_bench_datasets
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "benchmark_message1_proto2.pb.h"
#include "benchmark_message1_proto3.pb.h"
#include "benchmark_message2.pb.h"
#include "pbc/pbc.h"

namespace {

// The payloads of a BenchmarkDataset (field 3, repeated bytes): a minimal
// walk over its records (all varints and length-delimited fields).
std::vector<std::string> Payloads(const char *file) {
  std::ifstream in(std::string(PBC_DATA_DIR) + "/" + file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  std::vector<std::string> out;
  size_t i = 0;
  auto varint = [&] {
    uint64_t v = 0;
    for (int shift = 0; i < s.size(); shift += 7) {
      uint8_t b = s[i++];
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
    return v;
  };
  while (i < s.size()) {
    uint64_t tag = varint();
    uint64_t len = varint();
    if ((tag >> 3) == 3) out.push_back(s.substr(i, len));
    i += len;
  }
  return out;
}

struct Dataset {
  const char *file, *message;
};
const Dataset kMessage1Proto2 = {
    "google_message1/proto2/dataset.google_message1_proto2.pb",
    "benchmarks.proto2.GoogleMessage1"};
const Dataset kMessage1Proto3 = {
    "google_message1/proto3/dataset.google_message1_proto3.pb",
    "benchmarks.proto3.GoogleMessage1"};
const Dataset kMessage2 = {"google_message2/dataset.google_message2.pb",
                           "benchmarks.proto2.GoogleMessage2"};

template <class M>
void LibprotobufParse(benchmark::State &state, Dataset d) {
  std::vector<std::string> payloads = Payloads(d.file);
  M m;  // reused: libprotobuf's fastest mode
  for (auto _ : state)
    for (const std::string &p : payloads) {
      m.ParseFromString(p);
      benchmark::DoNotOptimize(m);
    }
  state.SetItemsProcessed(state.iterations() * payloads.size());
}

template <class M>
void LibprotobufSerialize(benchmark::State &state, Dataset d) {
  std::vector<std::string> payloads = Payloads(d.file);
  std::vector<M> ms(payloads.size());
  for (size_t i = 0; i < payloads.size(); i++) ms[i].ParseFromString(payloads[i]);
  std::vector<uint8_t> out(1 << 20);
  for (auto _ : state)
    for (const M &m : ms) {
      size_t n = m.ByteSizeLong();
      m.SerializeWithCachedSizesToArray(out.data());
      benchmark::DoNotOptimize(n);
    }
  state.SetItemsProcessed(state.iterations() * payloads.size());
}

void PbcParse(benchmark::State &state, Dataset d) {
  std::vector<std::string> payloads = Payloads(d.file);
  const pbc_message_info *info = pbc_find_message(d.message);
  std::vector<char> m(info->struct_size);
  static char block[1 << 20];
  pbc_arena arena;
  pbc_arena_init(&arena, block, sizeof block);
  for (auto _ : state)
    for (const std::string &p : payloads) {
      pbc_arena_reset(&arena);
      if (info->decode(m.data(), reinterpret_cast<const uint8_t *>(p.data()),
                       p.size(), &arena) != PBC_OK)
        state.SkipWithError("pbc decode failed");
      benchmark::DoNotOptimize(m.data());
    }
  pbc_arena_destroy(&arena);
  state.SetItemsProcessed(state.iterations() * payloads.size());
}

void PbcSerialize(benchmark::State &state, Dataset d) {
  std::vector<std::string> payloads = Payloads(d.file);
  const pbc_message_info *info = pbc_find_message(d.message);
  std::vector<std::vector<char>> ms(payloads.size(),
                                    std::vector<char>(info->struct_size));
  pbc_arena arena;
  pbc_arena_init(&arena, nullptr, 0);
  for (size_t i = 0; i < payloads.size(); i++)
    info->decode(ms[i].data(), reinterpret_cast<const uint8_t *>(payloads[i].data()),
                 payloads[i].size(), &arena);
  std::vector<uint8_t> out(1 << 20);
  for (auto _ : state)
    for (auto &m : ms) {
      size_t n;
      info->encode(m.data(), out.data(), out.size(), &n);
      benchmark::DoNotOptimize(n);
    }
  pbc_arena_destroy(&arena);
  state.SetItemsProcessed(state.iterations() * payloads.size());
}

}  // namespace

// BENCHMARK_CAPTURE pastes the function name into identifiers: no templates.
void LibprotobufParse_M1P2(benchmark::State &s, Dataset d) { LibprotobufParse<benchmarks::proto2::GoogleMessage1>(s, d); }
void LibprotobufParse_M1P3(benchmark::State &s, Dataset d) { LibprotobufParse<benchmarks::proto3::GoogleMessage1>(s, d); }
void LibprotobufParse_M2(benchmark::State &s, Dataset d) { LibprotobufParse<benchmarks::proto2::GoogleMessage2>(s, d); }
void LibprotobufSerialize_M1P2(benchmark::State &s, Dataset d) { LibprotobufSerialize<benchmarks::proto2::GoogleMessage1>(s, d); }
void LibprotobufSerialize_M1P3(benchmark::State &s, Dataset d) { LibprotobufSerialize<benchmarks::proto3::GoogleMessage1>(s, d); }
void LibprotobufSerialize_M2(benchmark::State &s, Dataset d) { LibprotobufSerialize<benchmarks::proto2::GoogleMessage2>(s, d); }

BENCHMARK_CAPTURE(LibprotobufParse_M1P2, message1_proto2, kMessage1Proto2);
BENCHMARK_CAPTURE(PbcParse, message1_proto2, kMessage1Proto2);
BENCHMARK_CAPTURE(LibprotobufParse_M1P3, message1_proto3, kMessage1Proto3);
BENCHMARK_CAPTURE(PbcParse, message1_proto3, kMessage1Proto3);
BENCHMARK_CAPTURE(LibprotobufParse_M2, message2, kMessage2);
BENCHMARK_CAPTURE(PbcParse, message2, kMessage2);
BENCHMARK_CAPTURE(LibprotobufSerialize_M1P2, message1_proto2, kMessage1Proto2);
BENCHMARK_CAPTURE(PbcSerialize, message1_proto2, kMessage1Proto2);
BENCHMARK_CAPTURE(LibprotobufSerialize_M1P3, message1_proto3, kMessage1Proto3);
BENCHMARK_CAPTURE(PbcSerialize, message1_proto3, kMessage1Proto3);
BENCHMARK_CAPTURE(LibprotobufSerialize_M2, message2, kMessage2);
BENCHMARK_CAPTURE(PbcSerialize, message2, kMessage2);

BENCHMARK_MAIN();
