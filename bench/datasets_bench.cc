// Parse and serialize, pbc against libprotobuf 3.21, upb (when libupb-dev is
// installed) and the speed of light, in one run, and the text format
// (print and parse) against libprotobuf's TextFormat: Google's datasets (bench/data), a string-heavy and a packed-heavy
// synthetic dataset, and UTF-8 validation inside a proto3 string parse. Times
// are per message; a ratio table follows the runs.
//
//   ninja -C build pbc_bench_datasets && build/bin/pbc_bench_datasets
#include <benchmark/benchmark.h>

#include <cstdio>
#include <functional>
#include <map>

#include "codecs.h"
#include "median_reporter.h"

namespace {

using namespace pbcbench;
using MakeCodec = std::function<std::unique_ptr<Codec>(const Dataset &)>;

struct Contender {
  const char *name;
  MakeCodec make;
};

const std::vector<Contender> &Contenders() {
  static const std::vector<Contender> all = {
      {"memcpy", [](const Dataset &d) { return std::make_unique<Memcpy>(d); }},
      {"libprotobuf_parse",
       [](const Dataset &d) { return std::make_unique<LibprotobufParse>(d); }},
      {"libprotobuf_parse_arena",
       [](const Dataset &d) { return std::make_unique<LibprotobufArenaParse>(d); }},
      {"pbc_parse",
       [](const Dataset &d) { return std::make_unique<PbcParse>(d, PbcParseMode::Generated); }},
      {"pbc_parse_copy",
       [](const Dataset &d) { return std::make_unique<PbcParse>(d, PbcParseMode::CopyInput); }},
      {"pbc_table_parse",
       [](const Dataset &d) { return std::make_unique<PbcParse>(d, PbcParseMode::Table); }},
      {"libprotobuf_dynamic_parse",
       [](const Dataset &d) { return std::make_unique<LibprotobufDynamicParse>(d); }},
      {"pbc_schema_parse",
       [](const Dataset &d) {
         return std::make_unique<PbcParse>(d, PbcParseMode::RunTimeTables);
       }},
      {"pbc_jit_parse",
       [](const Dataset &d) { return std::make_unique<PbcParse>(d, PbcParseMode::Jit); }},
      {"libprotobuf_serialize",
       [](const Dataset &d) { return std::make_unique<LibprotobufSerialize>(d); }},
      {"pbc_size_encode",
       [](const Dataset &d) {
         return std::make_unique<PbcSerialize<PbcEncodeMode::SizeFirst>>(d);
       }},
      {"pbc_encode_exact",
       [](const Dataset &d) { return std::make_unique<PbcSerialize<PbcEncodeMode::Exact>>(d); }},
      {"pbc_encode",
       [](const Dataset &d) { return std::make_unique<PbcSerialize<PbcEncodeMode::Large>>(d); }},
      {"pbc_encode_at_end",
       [](const Dataset &d) { return std::make_unique<PbcSerialize<PbcEncodeMode::AtEnd>>(d); }},
      {"pbc_table_size_encode",
       [](const Dataset &d) {
         return std::make_unique<PbcSerialize<PbcEncodeMode::TableSizeFirst>>(d);
       }},
      {"pbc_table_encode_exact",
       [](const Dataset &d) {
         return std::make_unique<PbcSerialize<PbcEncodeMode::TableExact>>(d);
       }},
      {"pbc_table_encode_at_end",
       [](const Dataset &d) {
         return std::make_unique<PbcSerialize<PbcEncodeMode::TableAtEnd>>(d);
       }},
      {"libprotobuf_text_print",
       [](const Dataset &d) { return std::make_unique<LibprotobufText>(d, TextMode::Print); }},
      {"pbc_text_print",
       [](const Dataset &d) { return std::make_unique<PbcText>(d, TextMode::Print); }},
      {"libprotobuf_text_parse",
       [](const Dataset &d) { return std::make_unique<LibprotobufText>(d, TextMode::Parse); }},
      {"pbc_text_parse",
       [](const Dataset &d) { return std::make_unique<PbcText>(d, TextMode::Parse); }},
      {"libprotobuf_copy",
       [](const Dataset &d) { return std::make_unique<LibprotobufOps>(d, OpsMode::Copy); }},
      {"pbc_copy", [](const Dataset &d) { return std::make_unique<PbcOps>(d, OpsMode::Copy); }},
      {"libprotobuf_merge",
       [](const Dataset &d) { return std::make_unique<LibprotobufOps>(d, OpsMode::Merge); }},
      {"pbc_merge", [](const Dataset &d) { return std::make_unique<PbcOps>(d, OpsMode::Merge); }},
      {"libprotobuf_equal",
       [](const Dataset &d) { return std::make_unique<LibprotobufOps>(d, OpsMode::Equal); }},
      {"pbc_equal", [](const Dataset &d) { return std::make_unique<PbcOps>(d, OpsMode::Equal); }},
      {"libprotobuf_merge_parse",
       [](const Dataset &d) { return std::make_unique<LibprotobufOps>(d, OpsMode::MergeParse); }},
      {"pbc_merge_parse",
       [](const Dataset &d) { return std::make_unique<PbcOps>(d, OpsMode::MergeParse); }},
      {"libprotobuf_reflect",
       [](const Dataset &d) { return std::make_unique<LibprotobufOps>(d, OpsMode::Read); }},
      {"pbc_reflect", [](const Dataset &d) { return std::make_unique<PbcOps>(d, OpsMode::Read); }},
      // ProtoJSON printed: MessageToJsonString (libprotobuf serializes the
      // message and transcodes the bytes) against pbc_json_print. On
      // google_message2 3.21 drops the groups that hold most of the data
      // (docs/json.md): its row prints a sixth of pbc's text.
      {"libprotobuf_to_json",
       [](const Dataset &d) { return std::make_unique<LibprotobufOps>(d, OpsMode::ToJson); }},
      {"pbc_to_json", [](const Dataset &d) { return std::make_unique<PbcOps>(d, OpsMode::ToJson); }},
      // ProtoJSON read: libprotobuf's JSON of each payload, parsed by
      // JsonStringToMessage and by pbc_json_parse (into a reset arena);
      // their MB/s (and simdjson's) count the JSON text, as JSON parsers'
      // rates are quoted.
      {"libprotobuf_from_json",
       [](const Dataset &d) { return std::make_unique<LibprotobufOps>(d, OpsMode::FromJson); }},
      {"pbc_from_json",
       [](const Dataset &d) { return std::make_unique<PbcOps>(d, OpsMode::FromJson); }},
#ifdef PBC_BENCH_HAVE_SIMDJSON
      {"simdjson_dom", [](const Dataset &d) { return std::make_unique<SimdjsonDom>(d); }},
#endif
#ifdef PBC_BENCH_HAVE_UPB
      {"upb_parse", [](const Dataset &d) { return std::make_unique<UpbParse>(d); }},
      {"upb_serialize", [](const Dataset &d) { return std::make_unique<UpbSerialize>(d); }},
#endif
  };
  return all;
}

void RunCodec(benchmark::State &state, const Dataset &d, const MakeCodec &make) {
  std::unique_ptr<Codec> codec = make(d);
  for (auto _ : state) {
    if (!codec->Run()) {
      state.SkipWithError("codec failed");
      break;
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * codec->messages());
  state.SetBytesProcessed(state.iterations() * codec->bytes());
}

// UTF-8 inputs: one proto3 string of 1 MiB (ASCII, or about 30% multi-byte
// characters), and a stream of 8-64-byte strings (a repeated string).
const Dataset kUtf8Ascii = {"utf8_ascii_1MiB", "pbcbench.Text", nullptr, [] {
  Text t;
  t.set_text(MixedText(1 << 20, 0.0, 1));
  return std::vector<std::string>{Serialize(t)};
}};
const Dataset kUtf8Mixed = {"utf8_mixed_1MiB", "pbcbench.Text", nullptr, [] {
  Text t;
  t.set_text(MixedText(1 << 20, 0.3, 2));
  return std::vector<std::string>{Serialize(t)};
}};
const Dataset kUtf8Short = {"utf8_short_strings", "pbcbench.Strings", nullptr, [] {
  std::mt19937 rng(3);
  Strings s;
  for (int i = 0; i < 4096; i++) s.add_items(MixedText(8 + rng() % 57, 0.3, rng()));
  return std::vector<std::string>{Serialize(s)};
}};

void RegisterAll() {
  for (const Dataset &d : Datasets())
    for (const Contender &c : Contenders())
      benchmark::RegisterBenchmark((std::string(d.name) + "/" + c.name).c_str(),
                                   RunCodec, d, c.make);
  for (const Dataset *d : {&kUtf8Ascii, &kUtf8Mixed, &kUtf8Short})
    for (const Contender &c : Contenders())
      if (std::string(c.name) == "libprotobuf_parse" || std::string(c.name) == "pbc_parse" ||
          std::string(c.name) == "upb_parse")
        benchmark::RegisterBenchmark((std::string(d->name) + "/" + c.name).c_str(),
                                     RunCodec, *d, c.make);
}

// Prints, after the runs, every time per message as a multiple of
// libprotobuf's in the same run.
class RatioReporter : public MedianReporter {
public:
  RatioReporter() : MedianReporter(PerItem) {}

  void PrintRatios() const {
    printf("\n%-20s %-24s %14s %16s\n", "dataset", "contender", "ns/message",
           "libprotobuf / it");
    for (const auto &[name, ns] : figures_) {
      size_t slash = name.find('/');
      std::string dataset = name.substr(0, slash), who = name.substr(slash + 1);
      bool parse = who.find("parse") != std::string::npos || who == "memcpy";
      const char *base = who.find("text_print") != std::string::npos ? "/libprotobuf_text_print"
                         : who.find("text_parse") != std::string::npos ? "/libprotobuf_text_parse"
                         : parse ? "/libprotobuf_parse"
                                 : "/libprotobuf_serialize";
      auto lib = figures_.find(dataset + base);
      double ratio = lib == figures_.end() ? 0 : lib->second / ns;
      printf("%-20s %-24s %14.1f %15.2fx\n", dataset.c_str(), who.c_str(), ns, ratio);
    }
  }

private:
  // ns per message: the run's time per iteration over its messages per iteration.
  static double PerItem(const Run &run) {
    double items_per_s = run.counters.at("items_per_second").value;
    return items_per_s > 0 ? 1e9 / items_per_s : 0;
  }
};

}  // namespace

int main(int argc, char **argv) {
  RegisterAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintRatios();
  benchmark::Shutdown();
  return 0;
}
