// The ProtoZero design doc's serialization benchmark (see README.md), with
// pbc's streaming writers, pbc's struct encoder T_write, libprotobuf,
// mapbox protozero and the doc's speed-of-light serializer in one binary.
//
// Simple: one event of int32, uint32, int64, uint64 and a 31-character
// string. Nested: the same, with a child event three levels deep (four
// events). The integers' varints are of different lengths (1 to 10 bytes),
// and each nesting level has other values. Every iteration writes its
// event into fresh memory: the next 512-byte slot of a 1 MiB working set
// (pbc: the writer's 4 KiB chunks, carved from the same working set).
//
// After the runs, a table of each case's time relative to the
// speed-of-light serializer and to libprotobuf (median CPU time of the
// repetitions when --benchmark_repetitions is given).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <new>
#include <string>
#include <vector>

#include "protozero_bench.pb.h"
#include "protozero_bench.pbc.h"
#include "median_reporter.h"

#ifdef PBC_BENCH_HAVE_PROTOZERO
#include <protozero/pbf_writer.hpp>
#endif

namespace {

// ---- Inputs and output memory -------------------------------------------------

struct Input {
  int32_t i32;
  uint32_t u32;
  int64_t i64;
  uint64_t u64;
  char str[32]; // 31 characters and the NUL, as the doc's
};

// Level d of the nested event uses g_input[d]. Varint lengths in bytes:
//   level 0: 1, 3, 7, 10   level 1: 2, 4, 10, 5
//   level 2: 5, 5, 3, 8    level 3: 3, 1, 9, 2
Input g_input[4] = {
    {42, 0x12345, 0x1234567890abcLL, 0xfedcba9876543210ULL, {}},
    {300, 0xfffffff, -1, 0xffffffffULL, {}},
    {0x12345678, 0x90abcdef, 0x1234, 0xffffffffffffffULL, {}},
    {0x10000, 7, 0x7edcba9876543210LL, 0x3fff, {}},
};

void init_inputs() {
  for (int d = 0; d < 4; d++) {
    memset(g_input[d].str, 'f' + d, 31);
    g_input[d].str[31] = '\0';
  }
}

constexpr size_t kSlot = 512;          // more than one event needs
constexpr size_t kWorkingSet = 1 << 20;
constexpr size_t kChunk = 4096;        // pbc writers' chunks
alignas(64) char g_out[kWorkingSet];
size_t g_slot = 0;

char *next_slot() {
  char *p = g_out + g_slot;
  g_slot = (g_slot + kSlot) % kWorkingSet;
  return p;
}

// ---- Speed of light, as the doc defines it --------------------------------------
// Appends raw values to a linear buffer: no encoding, no bounds checks,
// 64-bit aligned; a nested message is a new object right after its parent;
// the string is strcpy'd and (as in the doc) does not advance the pointer.
struct SolMsg {
  template <typename T> void Append(T x) {
    memcpy(ptr, &x, sizeof(x)); // a single aligned store
    ptr += sizeof(x);
  }
  void set_field_int32(int32_t x) { Append(x); }
  void set_field_uint32(uint32_t x) { Append(x); }
  void set_field_int64(int64_t x) { Append(x); }
  void set_field_uint64(uint64_t x) { Append(x); }
  void set_field_string(const char *s) { ptr = strcpy(ptr, s); }
  SolMsg *add_field_nested() { return new (this + 1) SolMsg(); }

  alignas(uint64_t) char storage[64 + 8];
  char *ptr = &storage[0];
};

// The fill functions of each implementation, same shape as the doc's.
template <typename T> inline void FillSimple(T *msg, const Input &in) {
  msg->set_field_int32(in.i32);
  msg->set_field_uint32(in.u32);
  msg->set_field_int64(in.i64);
  msg->set_field_uint64(in.u64);
  msg->set_field_string(in.str);
}

template <typename T> inline void FillNested(T *msg, int depth = 0) {
  FillSimple(msg, g_input[depth]);
  if (depth < 3) FillNested(msg->add_field_nested(), depth + 1);
}

void BM_Simple_SpeedOfLight(benchmark::State &state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(g_input);
    SolMsg *msg = new (next_slot()) SolMsg();
    FillSimple(msg, g_input[0]);
    benchmark::DoNotOptimize(msg);
    benchmark::ClobberMemory();
  }
}

void BM_Nested_SpeedOfLight(benchmark::State &state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(g_input);
    SolMsg *msg = new (next_slot()) SolMsg();
    FillNested(msg);
    benchmark::DoNotOptimize(msg);
    benchmark::ClobberMemory();
  }
}

// ---- libprotobuf: set fields, SerializeToArray ------------------------------------

void BM_Simple_Libprotobuf(benchmark::State &state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(g_input);
    {
      pbcbench::Event msg;
      FillSimple(&msg, g_input[0]);
      msg.SerializeToArray(next_slot(), kSlot);
    }
    benchmark::ClobberMemory();
  }
}

void BM_Nested_Libprotobuf(benchmark::State &state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(g_input);
    {
      pbcbench::Event msg;
      FillNested(&msg);
      msg.SerializeToArray(next_slot(), kSlot);
    }
    benchmark::ClobberMemory();
  }
}

// ---- mapbox protozero: pbf_writer into a reused std::string ----------------------
#ifdef PBC_BENCH_HAVE_PROTOZERO
void FillSimpleMapbox(protozero::pbf_writer &w, const Input &in) {
  w.add_int32(1, in.i32);
  w.add_uint32(2, in.u32);
  w.add_int64(3, in.i64);
  w.add_uint64(4, in.u64);
  w.add_string(5, in.str);
}

void FillNestedMapbox(protozero::pbf_writer &w, int depth = 0) {
  FillSimpleMapbox(w, g_input[depth]);
  if (depth < 3) {
    protozero::pbf_writer child{w, 6};
    FillNestedMapbox(child, depth + 1);
  }
}

void BM_Simple_MapboxProtozero(benchmark::State &state) {
  std::string buffer;
  buffer.reserve(kSlot);
  for (auto _ : state) {
    benchmark::DoNotOptimize(g_input);
    buffer.clear();
    {
      protozero::pbf_writer w{buffer};
      FillSimpleMapbox(w, g_input[0]);
    }
    benchmark::DoNotOptimize(buffer.data());
    benchmark::ClobberMemory();
  }
}

void BM_Nested_MapboxProtozero(benchmark::State &state) {
  std::string buffer;
  buffer.reserve(kSlot);
  for (auto _ : state) {
    benchmark::DoNotOptimize(g_input);
    buffer.clear();
    {
      protozero::pbf_writer w{buffer};
      FillNestedMapbox(w);
    }
    benchmark::DoNotOptimize(buffer.data());
    benchmark::ClobberMemory();
  }
}
#endif

// ---- pbc: a tracing-style writer over 4 KiB chunks ---------------------------------
// Chunks come from the working set in turn; each new chunk commits the
// previous ones (they would go to the tracing service), so the length of
// an event that straddles chunks goes out as a patch. Every event is a
// packet: field 1 of the stream, length-prefixed.
struct ChunkRing {
  size_t next = 0;
  uint8_t patches[64][4];
  size_t patch_count = 0;

  static bool get(void *ctx, uint32_t, uint8_t **begin, uint8_t **end,
                  bool *committed) {
    auto *r = static_cast<ChunkRing *>(ctx);
    *begin = reinterpret_cast<uint8_t *>(g_out + r->next);
    *end = *begin + kChunk;
    r->next = (r->next + kChunk) % kWorkingSet;
    *committed = true;
    return true;
  }
  static void patch(void *ctx, uint32_t, size_t, const uint8_t *bytes,
                    size_t size) {
    auto *r = static_cast<ChunkRing *>(ctx);
    memcpy(r->patches[r->patch_count++ % 64], bytes, size);
  }
};

struct TracingWriter {
  ChunkRing ring;
  pbc_writer w;
  TracingWriter() {
    pbc_writer_delegate d = {ChunkRing::get, ChunkRing::patch, &ring};
    pbc_writer_init(&w, &d);
  }
  pbc_msg *packet() { return pbc_msg_begin_nested(pbc_writer_root(&w), 1); }
};

inline void FillSimplePbc(pbc_msg *m, const Input &in) {
  pbcbench_Event_w_set_field_int32(m, in.i32);
  pbcbench_Event_w_set_field_uint32(m, in.u32);
  pbcbench_Event_w_set_field_int64(m, in.i64);
  pbcbench_Event_w_set_field_uint64(m, in.u64);
  pbcbench_Event_w_set_field_string(m, in.str, strlen(in.str));
}

inline void FillNestedPbc(pbc_msg *m, int depth = 0) {
  FillSimplePbc(m, g_input[depth]);
  if (depth < 3) {
    pbc_msg *child = pbcbench_Event_w_begin_field_nested(m);
    FillNestedPbc(child, depth + 1);
    pbc_msg_finalize(child);
  }
}

void BM_Simple_PbcStreaming(benchmark::State &state) {
  static TracingWriter tw;
  for (auto _ : state) {
    benchmark::DoNotOptimize(g_input);
    pbc_msg *m = tw.packet();
    FillSimplePbc(m, g_input[0]);
    pbc_msg_finalize(m);
    benchmark::ClobberMemory();
  }
  if (pbc_writer_status(&tw.w) != PBC_OK) state.SkipWithError("writer failed");
}

void BM_Nested_PbcStreaming(benchmark::State &state) {
  static TracingWriter tw;
  for (auto _ : state) {
    benchmark::DoNotOptimize(g_input);
    pbc_msg *m = tw.packet();
    FillNestedPbc(m);
    pbc_msg_finalize(m);
    benchmark::ClobberMemory();
  }
  if (pbc_writer_status(&tw.w) != PBC_OK) state.SkipWithError("writer failed");
}

// The same events written as the stream's root message (no length prefix),
// as the doc's ProtoZero benchmark writes its root message into a static
// buffer.
void BM_Simple_PbcStreamingRoot(benchmark::State &state) {
  static TracingWriter tw;
  pbc_msg *root = pbc_writer_root(&tw.w);
  for (auto _ : state) {
    benchmark::DoNotOptimize(g_input);
    FillSimplePbc(root, g_input[0]);
    benchmark::ClobberMemory();
  }
  if (pbc_writer_status(&tw.w) != PBC_OK) state.SkipWithError("writer failed");
}

void BM_Nested_PbcStreamingRoot(benchmark::State &state) {
  static TracingWriter tw;
  pbc_msg *root = pbc_writer_root(&tw.w);
  for (auto _ : state) {
    benchmark::DoNotOptimize(g_input);
    FillNestedPbc(root);
    benchmark::ClobberMemory();
  }
  if (pbc_writer_status(&tw.w) != PBC_OK) state.SkipWithError("writer failed");
}

// ---- pbc T_write: fill the struct, write it as a packet -----------------------------
inline void FillStruct(pbcbench_Event *e, const Input &in) {
  pbcbench_Event_init(e);
  pbcbench_Event_set_field_int32(e, in.i32);
  pbcbench_Event_set_field_uint32(e, in.u32);
  pbcbench_Event_set_field_int64(e, in.i64);
  pbcbench_Event_set_field_uint64(e, in.u64);
  pbcbench_Event_set_field_string(e, pbc_str{in.str, strlen(in.str)});
}

void BM_Simple_PbcWrite(benchmark::State &state) {
  static TracingWriter tw;
  for (auto _ : state) {
    benchmark::DoNotOptimize(g_input);
    pbcbench_Event e;
    FillStruct(&e, g_input[0]);
    pbc_msg *m = tw.packet();
    pbcbench_Event_write(&e, &tw.w);
    pbc_msg_finalize(m);
    benchmark::ClobberMemory();
  }
  if (pbc_writer_status(&tw.w) != PBC_OK) state.SkipWithError("writer failed");
}

void BM_Nested_PbcWrite(benchmark::State &state) {
  static TracingWriter tw;
  for (auto _ : state) {
    benchmark::DoNotOptimize(g_input);
    pbcbench_Event e[4];
    for (int d = 0; d < 4; d++) {
      FillStruct(&e[d], g_input[d]);
      if (d > 0) {
        e[d - 1].field_nested.data = &e[d];
        e[d - 1].field_nested.size = 1;
      }
    }
    pbc_msg *m = tw.packet();
    pbcbench_Event_write(&e[0], &tw.w);
    pbc_msg_finalize(m);
    benchmark::ClobberMemory();
  }
  if (pbc_writer_status(&tw.w) != PBC_OK) state.SkipWithError("writer failed");
}

// ---- The ratio table ------------------------------------------------------------------

// Prints, after the runs, every CPU time as a multiple of the speed of
// light's and of libprotobuf's.
class RatioReporter : public MedianReporter {
public:
  RatioReporter()
      : MedianReporter([](const Run &run) { return run.GetAdjustedCPUTime(); }) {}

  void PrintRatios() const {
    printf("\n%-28s %10s %12s %14s\n", "benchmark", "ns", "x light",
           "x libprotobuf");
    for (const char *kase : {"Simple", "Nested"}) {
      std::string prefix = std::string("BM_") + kase + "_";
      auto get = [&](const char *impl) {
        auto it = figures_.find(prefix + impl);
        return it == figures_.end() ? 0.0 : it->second;
      };
      double light = get("SpeedOfLight"), lib = get("Libprotobuf");
      for (const char *impl : {"SpeedOfLight", "PbcStreaming",
                               "PbcStreamingRoot", "PbcWrite",
                               "MapboxProtozero", "Libprotobuf"}) {
        double t = get(impl);
        if (t == 0) continue;
        printf("%-28s %10.2f %12.2f %14.2f\n", (prefix + impl).c_str() + 3, t,
               light > 0 ? t / light : 0.0, lib > 0 ? t / lib : 0.0);
      }
    }
  }

};

} // namespace

BENCHMARK(BM_Simple_SpeedOfLight);
BENCHMARK(BM_Simple_PbcStreaming);
BENCHMARK(BM_Simple_PbcStreamingRoot);
BENCHMARK(BM_Simple_PbcWrite);
#ifdef PBC_BENCH_HAVE_PROTOZERO
BENCHMARK(BM_Simple_MapboxProtozero);
#endif
BENCHMARK(BM_Simple_Libprotobuf);
BENCHMARK(BM_Nested_SpeedOfLight);
BENCHMARK(BM_Nested_PbcStreaming);
BENCHMARK(BM_Nested_PbcStreamingRoot);
BENCHMARK(BM_Nested_PbcWrite);
#ifdef PBC_BENCH_HAVE_PROTOZERO
BENCHMARK(BM_Nested_MapboxProtozero);
#endif
BENCHMARK(BM_Nested_Libprotobuf);

int main(int argc, char **argv) {
  init_inputs();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintRatios();
  benchmark::Shutdown();
  return 0;
}
