// libFuzzer target: pbc_json_parse on arbitrary text, against libprotobuf
// 3.21's JsonToBinaryString and a strict JSON parser (see fuzz_common.h for
// how messages are chosen; the first byte picks one, the rest is the text).
//
// For every input the difftest's check Checker::JsonParseFuzz decides: what
// pbc accepts is one RFC 8259 JSON text (simdjson says so) and, when 3.21
// reads it too, the same message; what 3.21 reads and pbc refuses is not
// strict JSON or breaks one of the conformance suite's rules that pbc keeps
// and 3.21 does not (docs/json.md), told by pbc's error message; what pbc
// reads and 3.21 refuses is one of 3.21's documented gaps. pbc's verdict is
// the same twice and its error offset within the text. Under ASan and UBSan,
// the text flush against a PROT_NONE page: a read outside it is a finding.
// --stats prints how often each verdict and each allowed difference came up,
// at exit.
#include "fuzz_common.h"

#include <simdjson.h>

namespace {
std::string MakeSeed(size_t index, Rng &r) {
  Target &t = *g_targets[index];
  // A random message as libprotobuf 3.21 prints it (BinaryToJsonString of
  // its deterministic bytes, groups cleared as Checker::Json clears them),
  // with random print options, made smaller (its largest field cleared or
  // list halved, again) until its JSON is within 1500 bytes, so that
  // libFuzzer's mutations stay cheap: a smaller message rather than a cut
  // text. The largest of a few.
  Context ctx{&t.opts, &t.schema, "seed", "", nullptr};
  Checker c(ctx, t.d, t.pbc.get(), r);
  std::unique_ptr<gp::util::TypeResolver> resolver(gp::util::NewTypeResolverForDescriptorPool(
      "type.googleapis.com", t.d->file()->pool()));
  gp::util::JsonPrintOptions lo;
  lo.add_whitespace = r.Chance(0.5);
  lo.preserve_proto_field_names = r.Chance(0.5);
  lo.always_print_enums_as_ints = r.Chance(0.3);
  std::string best;
  for (int tries = 0; tries < 100 && (tries < 8 || best.empty()); tries++) {
    std::unique_ptr<Message> m = t.schema.New(t.d);
    Filler(r, t.schema, 2, false).Fill(m.get(), 0);
    std::unique_ptr<Message> canonical = t.schema.New(t.d);
    if (!canonical->ParseFromString(LibBytes(m.get()))) continue;
    c.JsonCanonical(canonical.get());
    const Reflection *R = canonical->GetReflection();
    for (;;) {
      std::string json;
      if (!gp::util::BinaryToJsonString(resolver.get(), "type.googleapis.com/" + t.d->full_name(),
                                        LibBytes(canonical.get()), &json, lo)
               .ok())
        break;  // another message
      if (json.size() <= 1500) {
        if (json.size() > best.size()) best = json;
        break;
      }
      // The field whose bytes are the most goes (half of a list).
      std::vector<const FieldDescriptor *> set;
      R->ListFields(*canonical, &set);
      const FieldDescriptor *f = nullptr;
      size_t most = 0;
      for (const FieldDescriptor *g : set) {
        std::unique_ptr<Message> without(canonical->New());
        without->CopyFrom(*canonical);
        without->GetReflection()->ClearField(without.get(), g);
        const size_t saved = canonical->ByteSizeLong() - without->ByteSizeLong();
        if (f == nullptr || saved > most) {
          f = g;
          most = saved;
        }
      }
      if (f->is_repeated() && R->FieldSize(*canonical, f) > 1) {
        for (int n = R->FieldSize(*canonical, f) / 2; n > 0; n--) R->RemoveLast(canonical.get(), f);
      } else {
        R->ClearField(canonical.get(), f);
      }
    }
  }
  if (best.empty()) Die("no seed for %s within 1500 bytes of JSON", t.d->full_name().c_str());
  return std::string(1, static_cast<char>(index)) + best;
}

// Whether `text` is one JSON text as RFC 8259 defines it: by simdjson's DOM
// parser (which refuses a byte order mark, trailing text, bad UTF-8,
// unescaped controls, whitespace beyond the RFC's four), with its two
// departures from the RFC's grammar undone: it refuses numbers beyond
// double's range and integers beyond 64 bits (NUMBER_ERROR), and \u escapes
// of unpaired surrogates (STRING_ERROR), which the grammar allows. On those
// errors the text is parsed again with each such number replaced by 0 and
// each such escape by \u0041, lengths kept. Nesting is not limited (its
// limit set past what the text can hold).
bool StrictJson(const std::string &text) {
  static simdjson::dom::parser parser;
  static size_t capacity = 0;
  if (text.size() + 2 > capacity) {
    capacity = std::max<size_t>(4096, text.size() + 2);
    if (parser.allocate(capacity, capacity) != simdjson::SUCCESS)
      Die("simdjson cannot allocate %zu bytes", capacity);
  }
  simdjson::dom::element root;
  simdjson::error_code e = parser.parse(text.data(), text.size()).get(root);
  if (e == simdjson::SUCCESS) return true;
  if (e != simdjson::NUMBER_ERROR && e != simdjson::NUMBER_OUT_OF_RANGE &&
      e != simdjson::STRING_ERROR)
    return false;
  // The same text with every number token (a maximal run of characters
  // that can be in a token outside strings) that the grammar allows as 0
  // and spaces, and every \u escape of a surrogate that is not part of a
  // pair as \u0041. A run is a whole token, so the text's validity stays
  // as it was in all else.
  std::string t = text;
  auto hex4 = [&](size_t at, uint32_t *v) {
    if (at + 4 > t.size()) return false;
    *v = 0;
    for (size_t i = at; i < at + 4; i++) {
      const char c = t[i];
      const int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
      if (d < 0) return false;
      *v = *v << 4 | static_cast<uint32_t>(d);
    }
    return true;
  };
  auto in_token = [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '.' || c == '+' || c == '-' || c == '_';
  };
  for (size_t i = 0; i < t.size();) {
    if (t[i] == '"') {
      for (i++; i < t.size() && t[i] != '"'; i++) {
        if (t[i] != '\\') continue;
        uint32_t hi, lo;
        if (i + 1 < t.size() && t[i + 1] == 'u' && hex4(i + 2, &hi) && hi >= 0xD800 &&
            hi <= 0xDFFF) {
          if (hi <= 0xDBFF && i + 7 < t.size() && t[i + 6] == '\\' && t[i + 7] == 'u' &&
              hex4(i + 8, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
            i += 11;  // a pair, kept
            continue;
          }
          t.replace(i + 2, 4, "0041");
        }
        i++;  // the escaped character
      }
      i++;
    } else if (in_token(t[i])) {
      size_t end = i;
      while (end < t.size() && in_token(t[end])) end++;
      if (Checker::IsJsonNumber(t.substr(i, end - i))) {
        t[i] = '0';
        for (size_t k = i + 1; k < end; k++) t[k] = ' ';
      }
      i = end;
    } else {
      i++;
    }
  }
  return parser.parse(t.data(), t.size()).get(root) == simdjson::SUCCESS;
}

bool g_print_stats = false;
}  // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  for (int i = 1; i < *argc; i++)
    if (strcmp((*argv)[i], "--stats") == 0) g_print_stats = true;
  if (g_print_stats) atexit(PrintStats);
  InitTargets(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  Target &t = *g_targets[data[0] % g_targets.size()];
  std::string text(reinterpret_cast<const char *>(data + 1), size - 1);
  Rng r(HashInput(data, size));
  Context ctx{&t.opts, &t.schema, "fuzz input", "", nullptr};
  Checker c(ctx, t.d, t.pbc.get(), r);
  if (!c.JsonParseFuzz(text, StrictJson)) Finding(ctx, t.d, c.failure());
  t.pbc->ResetArenas();
  return 0;
}
