// Runs one codec over one dataset under callgrind and prints instructions per
// message: the noise-free figure next to pbc_bench_datasets' times. Collection
// is on only around the measured passes (run with --collect-atstart=no);
// bench/callgrind.sh drives it for every dataset and codec.
//
//   valgrind --tool=callgrind --collect-atstart=no \
//     build/bin/pbc_bench_instructions message1_proto3 pbc_parse 200
#include <valgrind/callgrind.h>

#include <cstdio>
#include <cstdlib>

#include "codecs.h"

using namespace pbcbench;

// What Make knows, for `--codecs` (callgrind.sh and lit ask which peers were built).
static const char *const kCodecs[] = {
    "libprotobuf_parse", "libprotobuf_parse_arena", "libprotobuf_serialize", "pbc_parse",
    "pbc_parse_copy",    "pbc_size_encode",         "pbc_encode_exact",
    "pbc_encode",        "pbc_encode_at_end", "pbc_table_parse",
    "libprotobuf_dynamic_parse", "pbc_schema_parse", "pbc_jit_parse",
    "pbc_table_size_encode", "pbc_table_encode_exact", "pbc_table_encode_at_end",
    "libprotobuf_text_print", "pbc_text_print",
    "libprotobuf_text_parse", "pbc_text_parse", "libprotobuf_copy", "pbc_copy",
    "libprotobuf_merge", "pbc_merge", "libprotobuf_equal", "pbc_equal",
    "libprotobuf_merge_parse", "pbc_merge_parse", "libprotobuf_reflect", "pbc_reflect",
    "libprotobuf_to_json", "pbc_to_json", "libprotobuf_from_json", "pbc_from_json",
#ifdef PBC_BENCH_HAVE_SIMDJSON
    "simdjson_dom",
#endif
#ifdef PBC_BENCH_HAVE_UPB
    "upb_parse",         "upb_serialize",
#endif
};

static std::unique_ptr<Codec> Make(const std::string &codec, const Dataset &d) {
  if (codec == "libprotobuf_parse") return std::make_unique<LibprotobufParse>(d);
  if (codec == "libprotobuf_parse_arena") return std::make_unique<LibprotobufArenaParse>(d);
  if (codec == "libprotobuf_serialize") return std::make_unique<LibprotobufSerialize>(d);
  if (codec == "pbc_parse") return std::make_unique<PbcParse>(d, PbcParseMode::Generated);
  if (codec == "pbc_parse_copy") return std::make_unique<PbcParse>(d, PbcParseMode::CopyInput);
  if (codec == "pbc_table_parse") return std::make_unique<PbcParse>(d, PbcParseMode::Table);
  if (codec == "libprotobuf_dynamic_parse") return std::make_unique<LibprotobufDynamicParse>(d);
  if (codec == "pbc_schema_parse")
    return std::make_unique<PbcParse>(d, PbcParseMode::RunTimeTables);
  if (codec == "pbc_jit_parse") return std::make_unique<PbcParse>(d, PbcParseMode::Jit);
  if (codec == "pbc_size_encode")
    return std::make_unique<PbcSerialize<PbcEncodeMode::SizeFirst>>(d);
  if (codec == "pbc_encode_exact") return std::make_unique<PbcSerialize<PbcEncodeMode::Exact>>(d);
  if (codec == "pbc_encode") return std::make_unique<PbcSerialize<PbcEncodeMode::Large>>(d);
  if (codec == "pbc_encode_at_end") return std::make_unique<PbcSerialize<PbcEncodeMode::AtEnd>>(d);
  if (codec == "pbc_table_size_encode")
    return std::make_unique<PbcSerialize<PbcEncodeMode::TableSizeFirst>>(d);
  if (codec == "pbc_table_encode_exact")
    return std::make_unique<PbcSerialize<PbcEncodeMode::TableExact>>(d);
  if (codec == "pbc_table_encode_at_end")
    return std::make_unique<PbcSerialize<PbcEncodeMode::TableAtEnd>>(d);
  if (codec == "libprotobuf_text_print") return std::make_unique<LibprotobufText>(d, TextMode::Print);
  if (codec == "pbc_text_print") return std::make_unique<PbcText>(d, TextMode::Print);
  if (codec == "libprotobuf_text_parse") return std::make_unique<LibprotobufText>(d, TextMode::Parse);
  if (codec == "pbc_text_parse") return std::make_unique<PbcText>(d, TextMode::Parse);
  if (codec == "libprotobuf_copy") return std::make_unique<LibprotobufOps>(d, OpsMode::Copy);
  if (codec == "pbc_copy") return std::make_unique<PbcOps>(d, OpsMode::Copy);
  if (codec == "libprotobuf_merge") return std::make_unique<LibprotobufOps>(d, OpsMode::Merge);
  if (codec == "pbc_merge") return std::make_unique<PbcOps>(d, OpsMode::Merge);
  if (codec == "libprotobuf_equal") return std::make_unique<LibprotobufOps>(d, OpsMode::Equal);
  if (codec == "pbc_equal") return std::make_unique<PbcOps>(d, OpsMode::Equal);
  if (codec == "libprotobuf_merge_parse")
    return std::make_unique<LibprotobufOps>(d, OpsMode::MergeParse);
  if (codec == "pbc_merge_parse") return std::make_unique<PbcOps>(d, OpsMode::MergeParse);
  if (codec == "libprotobuf_reflect") return std::make_unique<LibprotobufOps>(d, OpsMode::Read);
  if (codec == "pbc_reflect") return std::make_unique<PbcOps>(d, OpsMode::Read);
  if (codec == "libprotobuf_to_json") return std::make_unique<LibprotobufOps>(d, OpsMode::ToJson);
  if (codec == "pbc_to_json") return std::make_unique<PbcOps>(d, OpsMode::ToJson);
  if (codec == "libprotobuf_from_json")
    return std::make_unique<LibprotobufOps>(d, OpsMode::FromJson);
  if (codec == "pbc_from_json") return std::make_unique<PbcOps>(d, OpsMode::FromJson);
#ifdef PBC_BENCH_HAVE_SIMDJSON
  if (codec == "simdjson_dom") return std::make_unique<SimdjsonDom>(d);
#endif
#ifdef PBC_BENCH_HAVE_UPB
  if (codec == "upb_parse") return std::make_unique<UpbParse>(d);
  if (codec == "upb_serialize") return std::make_unique<UpbSerialize>(d);
#endif
  return nullptr;
}

int main(int argc, char **argv) {
  if (argc == 2 && std::string(argv[1]) == "--codecs") {
    for (const char *c : kCodecs) printf("%s\n", c);
    return 0;
  }
  if (argc != 4) {
    fprintf(stderr, "usage: %s DATASET CODEC PASSES | --codecs\n", argv[0]);
    return 2;
  }
  const Dataset *d = FindDataset(argv[1]);
  std::unique_ptr<Codec> codec = d ? Make(argv[2], *d) : nullptr;
  int passes = atoi(argv[3]);
  if (!codec || passes <= 0) {
    fprintf(stderr, "unknown dataset or codec, or bad pass count\n");
    return 2;
  }
  if (!codec->Run()) {  // warm-up: first-touch allocations stay out of the count
    fprintf(stderr, "%s failed on %s\n", argv[2], argv[1]);
    return 1;
  }
  CALLGRIND_TOGGLE_COLLECT;
  for (int i = 0; i < passes; i++) codec->Run();
  CALLGRIND_TOGGLE_COLLECT;
  printf("%s %s messages=%zu passes=%d\n", argv[1], argv[2], codec->messages(), passes);
  return 0;
}
