// The benchmark inputs shared by bin/pbc_bench_datasets (time) and
// bin/pbc_bench_instructions (callgrind instruction counts): Google's
// datasets from bench/data and synthetic ones built here deterministically.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "synthetic.pb.h"

namespace pbcbench {

// The payloads of a BenchmarkDataset file (field 3, repeated bytes): a minimal
// walk over its records (all varints and length-delimited fields).
inline std::vector<std::string> ReadDatasetFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  std::vector<std::string> out;
  size_t i = 0;
  auto varint = [&] {
    uint64_t v = 0;
    for (int shift = 0; i < s.size() && shift < 64; shift += 7) {
      uint8_t b = s[i++];
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
    return v;
  };
  while (i < s.size()) {
    uint64_t tag = varint();
    uint64_t len = (tag & 7) == 2 ? varint() : (varint(), 0);
    if (len > s.size() - i) break;
    if ((tag >> 3) == 3) out.push_back(s.substr(i, len));
    i += len;
  }
  return out;
}

// Text of `n` bytes where about `multibyte` of the characters take 2-4 bytes
// (Latin, Greek, CJK, emoji); the rest is ASCII. Always valid UTF-8.
inline std::string MixedText(size_t n, double multibyte, uint32_t seed) {
  static const char *const kWide[] = {"é", "ß", "λ", "Ж", "中", "文", "€", "😀"};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> coin(0, 1);
  std::string s;
  while (s.size() < n) {
    if (coin(rng) < multibyte) {
      const char *w = kWide[rng() % 8];
      if (s.size() + strlen(w) > n) break;
      s += w;
    } else {
      s += char('a' + rng() % 26);
    }
  }
  while (s.size() < n) s += ' ';
  return s;
}

inline std::string Serialize(const google::protobuf::Message &m) {
  std::string s;
  m.SerializeToString(&s);
  return s;
}

// 64 records of StringHeavy's fields: short ASCII tags, key/value entries,
// a title, values and a body of `text(bytes, multibyte share, seed)`.
template <typename Text>
inline std::vector<std::string> TextRecords(uint32_t seed, Text text) {
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  for (int i = 0; i < 64; i++) {
    StringHeavy m;
    m.set_title(text(16 + rng() % 48, 0.1, rng()));
    for (int t = 0, n = 2 + rng() % 8; t < n; t++)
      m.add_tags(MixedText(4 + rng() % 12, 0.0, rng()));
    for (int e = 0, n = 4 + rng() % 12; e < n; e++) {
      StringHeavy::Entry *entry = m.add_entries();
      entry->set_key(MixedText(6 + rng() % 10, 0.0, rng()));
      entry->set_value(text(8 + rng() % 56, 0.3, rng()));
    }
    m.set_body(text(200 + rng() % 800, 0.3, rng()));
    m.set_id(int64_t(rng()) << 20);
    out.push_back(Serialize(m));
  }
  return out;
}

// About 10% multi-byte characters in titles, 30% in values and bodies:
// typical of RPC metadata and document records.
inline std::vector<std::string> StringHeavyPayloads() { return TextRecords(7, MixedText); }

// Prose of about `n` bytes in one script (Latin with accents, Cyrillic,
// Greek, Chinese) with the punctuation of real text: dashes, curly quotes
// and ellipses (kept as they are by 3.21's JSON escaper, though their first
// two bytes are ones the printer's blocks flag) and now and then an ASCII
// quote (escaped).
inline std::string ProseText(size_t n, uint32_t seed) {
  static const char *const kWords[4][6] = {
      {"café", "naïve", "déjà", "über", "garçon", "année"},
      {"привет", "текст", "слово", "мир", "язык", "время"},
      {"λόγος", "κόσμος", "ήλιος", "θάλασσα", "χρόνος", "φως"},
      {"中文", "字符串", "测试", "数据", "时间", "世界"},
  };
  static const char *const kPunct[] = {" – ", " — ", " “", "” ", "…", ", ", ". ", " \""};
  std::mt19937 rng(seed);
  const char *const *words = kWords[rng() % 4];
  std::string s;
  while (s.size() < n) {
    s += words[rng() % 6];
    s += rng() % 4 == 0 ? kPunct[rng() % 8] : words == kWords[3] ? "" : " ";
  }
  return s;
}

// For the JSON printer's scan of text in other scripts with typographic
// punctuation.
inline std::vector<std::string> ProseHeavyPayloads() {
  return TextRecords(13, [](size_t n, double, uint32_t seed) { return ProseText(n, seed); });
}

// 64 packed-heavy messages: a few hundred elements per field, values spread
// over the varint lengths the way real counters and ids are.
inline std::vector<std::string> PackedHeavyPayloads() {
  std::mt19937_64 rng(11);
  auto spread = [&] { return rng() >> (rng() % 64); };
  std::vector<std::string> out;
  for (int i = 0; i < 64; i++) {
    PackedHeavy m;
    for (int k = 0, n = 100 + rng() % 200; k < n; k++) {
      m.add_small(int32_t(rng() % 300));
      m.add_wide(int64_t(spread()));
      m.add_deltas(int32_t(rng() % 2001) - 1000);
      m.add_hashes(uint32_t(rng()));
      m.add_samples(double(rng() % 100000) / 7.0);
      m.add_flags(rng() & 1);
      m.add_ids(spread());
    }
    out.push_back(Serialize(m));
  }
  return out;
}

struct Dataset {
  const char *name;     // as benchmarks and tables show it
  const char *message;  // full protobuf name
  const char *file;     // under bench/data, or null for a synthetic dataset
  std::vector<std::string> (*generate)();
};

inline std::vector<std::string> Payloads(const Dataset &d) {
  if (d.file) return ReadDatasetFile(std::string(PBC_DATA_DIR) + "/" + d.file);
  return d.generate();
}

inline const std::vector<Dataset> &Datasets() {
  static const std::vector<Dataset> all = {
      {"message1_proto2", "benchmarks.proto2.GoogleMessage1",
       "google_message1/proto2/dataset.google_message1_proto2.pb", nullptr},
      {"message1_proto3", "benchmarks.proto3.GoogleMessage1",
       "google_message1/proto3/dataset.google_message1_proto3.pb", nullptr},
      {"message2", "benchmarks.proto2.GoogleMessage2",
       "google_message2/dataset.google_message2.pb", nullptr},
      {"string_heavy", "pbcbench.StringHeavy", nullptr, StringHeavyPayloads},
      {"prose_heavy", "pbcbench.StringHeavy", nullptr, ProseHeavyPayloads},
      {"packed_heavy", "pbcbench.PackedHeavy", nullptr, PackedHeavyPayloads},
  };
  return all;
}

inline const Dataset *FindDataset(const std::string &name) {
  for (const Dataset &d : Datasets())
    if (name == d.name) return &d;
  return nullptr;
}

}  // namespace pbcbench
