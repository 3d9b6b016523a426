// One pass over a dataset's payloads, for each way of parsing or serializing
// that bench/ compares. bin/pbc_bench_datasets times them; bin/
// pbc_bench_instructions runs them under callgrind. Every codec is built
// once (inputs decoded, buffers sized), then Run() is the measured work.
#pragma once

#include <google/protobuf/arena.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/message.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>

#include <google/protobuf/descriptor.pb.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "datasets.h"
#include "pbc/field.h"
#include "pbc/jit.h"
#include "pbc/json.h"

#ifdef PBC_BENCH_HAVE_SIMDJSON
#include <simdjson.h>
#endif
#include "pbc/pbc.h"
#include "pbc/schema.h"
#include "pbc/text.h"
#ifdef PBC_BENCH_HAVE_UPB
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <cstdio>

#include "upb_layout.h"
#endif

namespace pbcbench {

class Codec {
public:
  virtual ~Codec() = default;
  virtual bool Run() = 0;  // one pass over every payload; false on failure
  size_t messages() const { return payloads_.size(); }
  // What a pass reads, for MB/s: the binary payloads, or a JSON parser's
  // texts (SetTexts).
  size_t bytes() const { return text_bytes_ ? text_bytes_ : TotalSize(payloads_); }

protected:
  explicit Codec(std::vector<std::string> payloads) : payloads_(std::move(payloads)) {}
  static size_t TotalSize(const std::vector<std::string> &v) {
    size_t n = 0;
    for (const std::string &p : v) n += p.size();
    return n;
  }
  // A codec that reads JSON texts instead of the payloads.
  void SetTexts(const std::vector<std::string> &texts) { text_bytes_ = TotalSize(texts); }
  std::vector<std::string> payloads_;

private:
  size_t text_bytes_ = 0;
};

// libprotobuf's protoc-generated class for the dataset's message.
inline const google::protobuf::Message *Prototype(const Dataset &d) {
  const google::protobuf::Descriptor *desc =
      google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(d.message);
  return google::protobuf::MessageFactory::generated_factory()->GetPrototype(desc);
}

// The dataset's .proto file and its imports as a FileDescriptorSet, imports
// first: what a program that learns its schema at run time is given.
inline std::string DescriptorSetOf(const Dataset &d) {
  using google::protobuf::FileDescriptor;
  google::protobuf::FileDescriptorSet set;
  std::set<const FileDescriptor *> seen;
  std::function<void(const FileDescriptor *)> add = [&](const FileDescriptor *f) {
    if (!seen.insert(f).second) return;
    for (int i = 0; i < f->dependency_count(); i++) add(f->dependency(i));
    f->CopyTo(set.add_file());
  };
  add(Prototype(d)->GetDescriptor()->file());
  return set.SerializeAsString();
}

// Where a program finds the dataset's message type when its schema comes at
// run time: pbc_schema_load (descriptions for the runtime's table codec,
// built in microseconds) or pbc_jit_load (the schema compiled into the
// process, at -O2 unless PBC_BENCH_JIT_OPT says otherwise: the smoke test
// takes -O0). Loaded once per .proto file for the whole run, never freed.
enum class RunTimeSchema { Tables, Jit };

inline const pbc_message_info *RunTimeType(const Dataset &d, RunTimeSchema kind) {
  static std::map<std::string, pbc_schema *> tables;
  static std::map<std::string, pbc_jit_schema *> jitted;
  std::string file = Prototype(d)->GetDescriptor()->file()->name();
  pbc_schema_error error;
  if (kind == RunTimeSchema::Tables) {
    pbc_schema *&schema = tables[file];
    if (!schema) {
      std::string set = DescriptorSetOf(d);
      if (pbc_schema_load(reinterpret_cast<const uint8_t *>(set.data()), set.size(), &schema,
                          &error) != PBC_OK) {
        fprintf(stderr, "pbc_schema_load %s: %s\n", file.c_str(), error.message);
        return nullptr;
      }
    }
    return pbc_schema_find_message(schema, d.message);
  }
  pbc_jit_schema *&schema = jitted[file];
  if (!schema) {
    std::string set = DescriptorSetOf(d);
    pbc_jit_options options = PBC_JIT_OPTIONS_DEFAULT;
    if (const char *level = getenv("PBC_BENCH_JIT_OPT")) options.opt_level = atoi(level);
    if (pbc_jit_load(reinterpret_cast<const uint8_t *>(set.data()), set.size(), &options,
                     &schema, &error) != PBC_OK) {
      fprintf(stderr, "pbc_jit_load %s: %s\n", file.c_str(), error.message);
      return nullptr;
    }
  }
  return pbc_jit_find_message(schema, d.message);
}

// Each payload decoded by pbc's generated code into a struct of its own
// (arrays, sub-messages and strings in `arena`); none without `info`.
inline std::vector<std::vector<char>> DecodeStructs(const pbc_message_info *info,
                                                   const std::vector<std::string> &payloads,
                                                   pbc_arena *arena) {
  std::vector<std::vector<char>> ms;
  if (!info) return ms;
  for (const std::string &p : payloads) {
    ms.emplace_back(info->struct_size);
    info->decode(ms.back().data(), reinterpret_cast<const uint8_t *>(p.data()), p.size(), arena);
  }
  return ms;
}

// The speed of light: a memcpy of each payload.
class Memcpy : public Codec {
public:
  explicit Memcpy(const Dataset &d) : Codec(Payloads(d)), out_(1 << 21) {}
  bool Run() override {
    for (const std::string &p : payloads_) memcpy(out_.data(), p.data(), p.size());
    return true;
  }

private:
  std::vector<char> out_;
};

// libprotobuf's fastest parse: into one reused message.
class LibprotobufParse : public Codec {
public:
  explicit LibprotobufParse(const Dataset &d)
      : Codec(Payloads(d)), m_(Prototype(d)->New()) {}
  bool Run() override {
    bool ok = true;
    for (const std::string &p : payloads_) ok &= m_->ParseFromString(p);
    return ok;
  }

private:
  std::unique_ptr<google::protobuf::Message> m_;
};

// libprotobuf's parse when the schema comes at run time: a DynamicMessage
// (reflection over the descriptor, no generated class), reused like the
// generated one above.
class LibprotobufDynamicParse : public Codec {
public:
  explicit LibprotobufDynamicParse(const Dataset &d)
      : Codec(Payloads(d)), m_(factory_.GetPrototype(Prototype(d)->GetDescriptor())->New()) {}
  bool Run() override {
    bool ok = true;
    for (const std::string &p : payloads_) ok &= m_->ParseFromString(p);
    return ok;
  }

private:
  google::protobuf::DynamicMessageFactory factory_;
  std::unique_ptr<google::protobuf::Message> m_;
};

// libprotobuf parsing into an arena that is reset before each message and
// starts on a reused 1 MiB block.
class LibprotobufArenaParse : public Codec {
public:
  explicit LibprotobufArenaParse(const Dataset &d)
      : Codec(Payloads(d)), prototype_(Prototype(d)), block_(1 << 20),
        arena_(Options(block_)) {}
  bool Run() override {
    bool ok = true;
    for (const std::string &p : payloads_) {
      arena_.Reset();
      ok &= prototype_->New(&arena_)->ParseFromString(p);
    }
    return ok;
  }

private:
  static google::protobuf::ArenaOptions Options(std::vector<char> &block) {
    google::protobuf::ArenaOptions o;
    o.initial_block = block.data();
    o.initial_block_size = block.size();
    return o;
  }
  const google::protobuf::Message *prototype_;
  std::vector<char> block_;
  google::protobuf::Arena arena_;
};

// libprotobuf's serialize: ByteSizeLong, then the array writer.
class LibprotobufSerialize : public Codec {
public:
  explicit LibprotobufSerialize(const Dataset &d) : Codec(Payloads(d)), out_(1 << 21) {
    for (const std::string &p : payloads_) {
      ms_.emplace_back(Prototype(d)->New());
      ms_.back()->ParseFromString(p);
    }
  }
  bool Run() override {
    size_t total = 0;
    for (const auto &m : ms_) {
      size_t n = m->ByteSizeLong();
      m->SerializeWithCachedSizesToArray(out_.data());
      total += n;
    }
    return total != 0;
  }

private:
  std::vector<std::unique_ptr<google::protobuf::Message>> ms_;
  std::vector<uint8_t> out_;
};

// pbc's decode into an arena reset before each message, on a reused 1 MiB
// block: zero-copy (strings are views of the input) or copying the input.
// pbc's decode: T_decode, T_decode copying the input first, the
// table-driven decoder (pbc_table_decode: the message's description, no
// generated code), and the two with the schema given at run time: the
// table codec on descriptions pbc_schema_load built, and the code
// pbc_jit_load compiled.
enum class PbcParseMode { Generated, CopyInput, Table, RunTimeTables, Jit };

class PbcParse : public Codec {
public:
  PbcParse(const Dataset &d, PbcParseMode mode)
      : Codec(Payloads(d)),
        info_(mode == PbcParseMode::RunTimeTables ? RunTimeType(d, RunTimeSchema::Tables)
              : mode == PbcParseMode::Jit         ? RunTimeType(d, RunTimeSchema::Jit)
                                                  : pbc_find_message(d.message)),
        mode_(mode),
        m_(info_ ? info_->struct_size : 0), block_(1 << 20) {
    options_.copy_input = mode == PbcParseMode::CopyInput;
    pbc_arena_init(&arena_, block_.data(), block_.size());
  }
  ~PbcParse() override { pbc_arena_destroy(&arena_); }
  bool Run() override {
    if (!info_) return false;
    bool ok = true;
    for (const std::string &p : payloads_) {
      pbc_arena_reset(&arena_);
      const uint8_t *bytes = reinterpret_cast<const uint8_t *>(p.data());
      switch (mode_) {
      case PbcParseMode::Generated:
      case PbcParseMode::Jit:
        ok &= info_->decode(m_.data(), bytes, p.size(), &arena_) == PBC_OK;
        break;
      case PbcParseMode::RunTimeTables:  // its info has no codec pointers
        ok &= pbc_decode(info_, m_.data(), bytes, p.size(), &arena_, nullptr) == PBC_OK;
        break;
      case PbcParseMode::CopyInput:
        ok &= pbc_decode(info_, m_.data(), bytes, p.size(), &arena_, &options_) == PBC_OK;
        break;
      case PbcParseMode::Table:
        ok &= pbc_table_decode(info_->desc, m_.data(), bytes, p.size(), &arena_, nullptr) == PBC_OK;
        break;
      }
    }
    return ok;
  }

private:
  const pbc_message_info *info_;
  PbcParseMode mode_;
  std::vector<char> m_, block_;
  pbc_arena arena_;
  pbc_decode_options options_ = {};
};

// pbc's encode of decoded messages, the ways a caller can hold its buffer.
enum class PbcEncodeMode {
  SizeFirst, // T_encoded_size, then T_encode into exactly that (a length prefix)
  Exact,     // T_encode into a buffer of the exact size, known beforehand
  Large,     // T_encode into a reused 1 MiB buffer: the bytes move to its front
  AtEnd,     // T_encode_at_end into the same buffer: they stay at its end
  // The table-driven codec (pbc_table_*: the message's description, no
  // generated code), the same ways as SizeFirst, Exact and AtEnd (the
  // compact tier's T_encode_at_end, one walk into the large buffer).
  TableSizeFirst,
  TableExact,
  TableAtEnd,
};

template <PbcEncodeMode Mode> class PbcSerialize : public Codec {
public:
  explicit PbcSerialize(const Dataset &d)
      : Codec(Payloads(d)), info_(pbc_find_message(d.message)), out_(1 << 20) {
    pbc_arena_init(&arena_, nullptr, 0);
    ms_ = DecodeStructs(info_, payloads_, &arena_);
    for (const std::vector<char> &m : ms_) {
      sizes_.push_back(info_->encoded_size(m.data()));
      structs_.push_back(m.data());
    }
  }
  ~PbcSerialize() override { pbc_arena_destroy(&arena_); }
  // The mode is a template argument and what the loop calls is loaded
  // before it: the loop around each call is as lean as libprotobuf's (a
  // mode switched on in Run cost google_message1, one message a pass,
  // about 25 instructions a call more than libprotobuf's loop).
  bool Run() override {
    if (!info_) return false;
    uint8_t *out = out_.data();
    const size_t cap = out_.size();
    const pbc_message_desc *desc = info_->desc;
    size_t n;
    uint8_t *start;
    if constexpr (Mode == PbcEncodeMode::SizeFirst) {
      auto size = info_->encoded_size;
      auto encode = info_->encode;
      return Each([&](const void *m, size_t) { return encode(m, out, size(m), &n); });
    } else if constexpr (Mode == PbcEncodeMode::Exact) {
      auto encode = info_->encode;
      const size_t *sizes = sizes_.data();
      return Each([&](const void *m, size_t i) { return encode(m, out, sizes[i], &n); });
    } else if constexpr (Mode == PbcEncodeMode::Large) {
      auto encode = info_->encode;
      return Each([&](const void *m, size_t) { return encode(m, out, cap, &n); });
    } else if constexpr (Mode == PbcEncodeMode::AtEnd) {
      auto encode_at_end = info_->encode_at_end;
      return Each([&](const void *m, size_t) { return encode_at_end(m, out, cap, &start, &n); });
    } else if constexpr (Mode == PbcEncodeMode::TableSizeFirst) {
      return Each([&](const void *m, size_t) {
        return pbc_table_encode(desc, m, out, pbc_table_encoded_size(desc, m), &n);
      });
    } else if constexpr (Mode == PbcEncodeMode::TableExact) {
      const size_t *sizes = sizes_.data();
      return Each([&](const void *m, size_t i) {
        return pbc_table_encode(desc, m, out, sizes[i], &n);
      });
    } else {
      static_assert(Mode == PbcEncodeMode::TableAtEnd);
      return Each([&](const void *m, size_t) {
        return pbc_table_encode_at_end(desc, m, out, cap, &start, &n);
      });
    }
  }

private:
  // encode(message, index) for every message; true when each returned
  // PBC_OK.
  template <typename F> bool Each(F encode) const {
    bool ok = true;
    const void *const *m = structs_.data();
    for (size_t i = 0, count = structs_.size(); i < count; ++i)
      ok &= encode(m[i], i) == PBC_OK;
    return ok;
  }

  const pbc_message_info *info_;
  std::vector<uint8_t> out_;
  std::vector<std::vector<char>> ms_;
  std::vector<const void *> structs_;
  std::vector<size_t> sizes_;
  pbc_arena arena_;
};

// The text format, each side on its own data: libprotobuf prints its
// parsed messages (TextFormat::PrintToString) and parses what it printed
// (TextFormat::ParseFromString, into one reused message); pbc prints its
// decoded structs (pbc_text_print into a reused buffer) and parses the
// same text (pbc_text_parse, arena reset per message). Items and bytes are
// the binary payloads', so rates compare across formats.
enum class TextMode { Print, Parse };

class LibprotobufText : public Codec {
public:
  LibprotobufText(const Dataset &d, TextMode mode)
      : Codec(Payloads(d)), mode_(mode), m_(Prototype(d)->New()) {
    for (const std::string &p : payloads_) {
      std::unique_ptr<google::protobuf::Message> m(Prototype(d)->New());
      m->ParseFromString(p);
      texts_.emplace_back();
      google::protobuf::TextFormat::PrintToString(*m, &texts_.back());
      messages_.push_back(std::move(m));
    }
  }
  bool Run() override {
    bool ok = true;
    for (size_t i = 0; i < texts_.size(); i++) {
      if (mode_ == TextMode::Print) {
        out_.clear();
        ok &= google::protobuf::TextFormat::PrintToString(*messages_[i], &out_);
      } else {
        ok &= google::protobuf::TextFormat::ParseFromString(texts_[i], m_.get());
      }
    }
    return ok;
  }
  const std::vector<std::string> &texts() const { return texts_; }

private:
  TextMode mode_;
  std::unique_ptr<google::protobuf::Message> m_;
  std::vector<std::unique_ptr<google::protobuf::Message>> messages_;
  std::vector<std::string> texts_;
  std::string out_;
};

class PbcText : public Codec {
public:
  PbcText(const Dataset &d, TextMode mode)
      : Codec(Payloads(d)), info_(pbc_find_message(d.message)), mode_(mode),
        m_(info_ ? info_->struct_size : 0), block_(1 << 20), out_(1 << 22) {
    texts_ = LibprotobufText(d, TextMode::Print).texts();
    pbc_arena_init(&arena_, nullptr, 0);
    pbc_arena_init(&parse_arena_, block_.data(), block_.size());
    ms_ = DecodeStructs(info_, payloads_, &arena_);
  }
  ~PbcText() override {
    pbc_arena_destroy(&arena_);
    pbc_arena_destroy(&parse_arena_);
  }
  bool Run() override {
    if (!info_) return false;
    bool ok = true;
    for (size_t i = 0; i < texts_.size(); i++) {
      if (mode_ == TextMode::Print) {
        size_t n;
        ok &= pbc_text_print(info_, ms_[i].data(), out_.data(), out_.size(), &n, nullptr) ==
              PBC_OK;
      } else {
        pbc_arena_reset(&parse_arena_);
        ok &= pbc_text_parse(info_, m_.data(), texts_[i].data(), texts_[i].size(), &parse_arena_,
                             nullptr, nullptr) == PBC_OK;
      }
    }
    return ok;
  }

private:
  const pbc_message_info *info_;
  TextMode mode_;
  std::vector<char> m_, block_, out_;
  std::vector<std::vector<char>> ms_;
  std::vector<std::string> texts_;
  pbc_arena arena_, parse_arena_;
};

// The generic operations on each payload's message, decoded once: a deep
// copy (libprotobuf's CopyFrom into a reused message, pbc_message_copy into
// an arena reset per message), a merge into a copy of itself (CopyFrom then
// MergeFrom; pbc_message_copy then pbc_message_merge: repeated fields
// doubled, sub-messages merged) and an equality test against a copy
// (MessageDifferencer::Equals, pbc_message_equal: true, every field read);
// and a merging parse of the payload into a copy of its message (CopyFrom
// then MergeFromString; pbc_message_copy then pbc_merge_decode, which first
// copies the message's structure into the arena); and a walk of every set
// field through reflection (libprotobuf's Reflection: ListFields and the
// Get* getters; pbc/field.h: pbc_field_has and pbc_field_get, over the
// description), integers and enums summed, strings and bytes by size,
// sub-messages walked, floats counted: generic code reading a message.
// FromJson parses each payload's JSON as libprotobuf 3.21 prints it (both
// sides the same text).
enum class OpsMode { Copy, Merge, Equal, MergeParse, Read, ToJson, FromJson };

// m without its groups, at every depth.
inline void ClearGroups(google::protobuf::Message *m) {
  using FD = google::protobuf::FieldDescriptor;
  const google::protobuf::Reflection *r = m->GetReflection();
  std::vector<const FD *> fields;
  r->ListFields(*m, &fields);
  for (const FD *f : fields) {
    if (f->type() == FD::TYPE_GROUP) {
      r->ClearField(m, f);
    } else if (f->cpp_type() == FD::CPPTYPE_MESSAGE) {
      if (!f->is_repeated()) ClearGroups(r->MutableMessage(m, f));
      for (int i = 0; f->is_repeated() && i < r->FieldSize(*m, f); i++)
        ClearGroups(r->MutableRepeatedMessage(m, f, i));
    }
  }
}

// The payloads' JSON as 3.21 prints it, groups cleared first: 3.21 prints
// a repeated group as one empty array per element, under the same name,
// which is not JSON a strict parser reads (pbc refuses the repeated name),
// nor does 3.21 read groups back. On google_message2, whose data is mostly
// in groups, that leaves a fraction of the message.
inline std::vector<std::string> LibprotobufJson(
    const std::vector<std::unique_ptr<google::protobuf::Message>> &messages) {
  std::vector<std::string> out;
  for (const auto &m : messages) {
    std::unique_ptr<google::protobuf::Message> copy(m->New());
    copy->CopyFrom(*m);
    ClearGroups(copy.get());
    out.emplace_back();
    google::protobuf::util::MessageToJsonString(*copy, &out.back());
  }
  return out;
}

inline uint64_t LibprotobufWalk(const google::protobuf::Message &m) {
  using FD = google::protobuf::FieldDescriptor;
  const google::protobuf::Reflection *R = m.GetReflection();
  std::vector<const FD *> fields;
  R->ListFields(m, &fields);
  uint64_t sum = 0;
  for (const FD *f : fields) {
    const bool rep = f->is_repeated();
    const int n = rep ? R->FieldSize(m, f) : 1;
    for (int i = 0; i < n; i++) {
      switch (f->cpp_type()) {
        case FD::CPPTYPE_INT32: sum += rep ? R->GetRepeatedInt32(m, f, i) : R->GetInt32(m, f); break;
        case FD::CPPTYPE_INT64: sum += rep ? R->GetRepeatedInt64(m, f, i) : R->GetInt64(m, f); break;
        case FD::CPPTYPE_UINT32: sum += rep ? R->GetRepeatedUInt32(m, f, i) : R->GetUInt32(m, f); break;
        case FD::CPPTYPE_UINT64: sum += rep ? R->GetRepeatedUInt64(m, f, i) : R->GetUInt64(m, f); break;
        case FD::CPPTYPE_BOOL: sum += rep ? R->GetRepeatedBool(m, f, i) : R->GetBool(m, f); break;
        case FD::CPPTYPE_ENUM:
          sum += rep ? R->GetRepeatedEnumValue(m, f, i) : R->GetEnumValue(m, f);
          break;
        case FD::CPPTYPE_FLOAT:
        case FD::CPPTYPE_DOUBLE:
          sum += 1;
          break;
        case FD::CPPTYPE_STRING: {
          std::string scratch;
          sum += (rep ? R->GetRepeatedStringReference(m, f, i, &scratch)
                      : R->GetStringReference(m, f, &scratch))
                     .size();
          break;
        }
        case FD::CPPTYPE_MESSAGE:
          sum += LibprotobufWalk(rep ? R->GetRepeatedMessage(m, f, i) : R->GetMessage(m, f));
          break;
      }
    }
  }
  return sum;
}

inline uint64_t PbcWalk(const pbc_message_desc *d, const void *m) {
  uint64_t sum = 0;
  for (uint32_t i = 0; i < d->field_count; i++) {
    const pbc_field_desc *f = &d->fields[i];
    if (!pbc_field_has(d, f, m)) continue;
    const bool rep = f->kind == PBC_FIELD_REPEATED;
    const size_t n = rep ? pbc_field_size(d, f, m) : 1;
    const pbc_message_desc *sub = pbc_field_message(d, f);
    for (size_t j = 0; j < n; j++) {
      pbc_value v = rep ? pbc_field_get_at(d, f, m, j) : pbc_field_get(d, f, m);
      switch (f->type) {
        case PBC_TYPE_MESSAGE: case PBC_TYPE_GROUP:
          if (v.message) sum += PbcWalk(sub, v.message);
          break;
        case PBC_TYPE_STRING: case PBC_TYPE_BYTES: sum += v.bytes.size; break;
        case PBC_TYPE_FLOAT: case PBC_TYPE_DOUBLE: sum += 1; break;
        case PBC_TYPE_BOOL: sum += v.b; break;
        case PBC_TYPE_INT64: case PBC_TYPE_SINT64: case PBC_TYPE_SFIXED64:
        case PBC_TYPE_UINT64: case PBC_TYPE_FIXED64:
          sum += v.u64;
          break;
        case PBC_TYPE_UINT32: case PBC_TYPE_FIXED32: sum += v.u32; break;
        default: sum += static_cast<uint64_t>(static_cast<int64_t>(v.i32)); break;
      }
    }
  }
  return sum;
}

class LibprotobufOps : public Codec {
public:
  LibprotobufOps(const Dataset &d, OpsMode mode)
      : Codec(Payloads(d)), mode_(mode), m_(Prototype(d)->New()) {
    for (const std::string &p : payloads_) {
      messages_.emplace_back(Prototype(d)->New());
      messages_.back()->ParseFromString(p);
      copies_.emplace_back(Prototype(d)->New());
      copies_.back()->ParseFromString(p);
    }
    if (mode_ == OpsMode::FromJson) {
      texts_ = LibprotobufJson(messages_);
      SetTexts(texts_);
    }
  }
  bool Run() override {
    bool ok = true;
    for (size_t i = 0; i < messages_.size(); i++) {
      const google::protobuf::Message &x = *messages_[i];
      if (mode_ == OpsMode::Equal) {
        ok &= google::protobuf::util::MessageDifferencer::Equals(x, *copies_[i]);
        continue;
      }
      if (mode_ == OpsMode::Read) {
        sum_ += LibprotobufWalk(x);
        continue;
      }
      if (mode_ == OpsMode::ToJson) {
        json_.clear();
        ok &= google::protobuf::util::MessageToJsonString(x, &json_).ok();
        continue;
      }
      if (mode_ == OpsMode::FromJson) {
        ok &= google::protobuf::util::JsonStringToMessage(texts_[i], m_.get()).ok();
        continue;
      }
      m_->CopyFrom(x);
      if (mode_ == OpsMode::Merge) m_->MergeFrom(x);
      if (mode_ == OpsMode::MergeParse) ok &= m_->MergeFromString(payloads_[i]);
    }
    return ok;
  }

private:
  OpsMode mode_;
  std::unique_ptr<google::protobuf::Message> m_;
  std::vector<std::unique_ptr<google::protobuf::Message>> messages_, copies_;
  uint64_t sum_ = 0;
  std::string json_;
  std::vector<std::string> texts_;
};

class PbcOps : public Codec {
public:
  PbcOps(const Dataset &d, OpsMode mode)
      : Codec(Payloads(d)), info_(pbc_find_message(d.message)), mode_(mode),
        m_(info_ ? info_->struct_size : 0), block_(1 << 22) {
    pbc_arena_init(&arena_, nullptr, 0);
    pbc_arena_init(&ops_arena_, block_.data(), block_.size());
    ms_ = DecodeStructs(info_, payloads_, &arena_);
    copies_ = DecodeStructs(info_, payloads_, &arena_);
    if (mode_ == OpsMode::FromJson) {
      std::vector<std::unique_ptr<google::protobuf::Message>> lib;
      for (const std::string &p : payloads_) {
        lib.emplace_back(Prototype(d)->New());
        lib.back()->ParseFromString(p);
      }
      texts_ = LibprotobufJson(lib);
      SetTexts(texts_);
    }
    // The printer writes what 3.21 does, byte for byte, on every payload
    // without groups (3.21 does not print them).
    for (size_t i = 0; mode_ == OpsMode::ToJson && info_ && i < ms_.size(); i++) {
      std::vector<std::unique_ptr<google::protobuf::Message>> lib;
      lib.emplace_back(Prototype(d)->New());
      lib.back()->ParseFromString(payloads_[i]);
      std::unique_ptr<google::protobuf::Message> plain(lib.back()->New());
      plain->CopyFrom(*lib.back());
      ClearGroups(plain.get());
      if (plain->SerializeAsString() != lib.back()->SerializeAsString()) continue;
      std::string got(1 << 20, '\0');
      size_t n = 0;
      if (pbc_json_print(info_, ms_[i].data(), got.data(), got.size(), &n, nullptr) != PBC_OK ||
          got.substr(0, n) != LibprotobufJson(lib)[0]) {
        fprintf(stderr, "%s: payload %zu: pbc's JSON differs from 3.21's\n", d.name, i);
        agrees_ = false;
      }
    }
    // Both walks read the same values: their sums agree on every payload.
    for (size_t i = 0; mode_ == OpsMode::Read && info_ && i < ms_.size(); i++) {
      std::unique_ptr<google::protobuf::Message> lib(Prototype(d)->New());
      lib->ParseFromString(payloads_[i]);
      if (LibprotobufWalk(*lib) != PbcWalk(info_->desc, ms_[i].data())) {
        fprintf(stderr, "%s: payload %zu: the reflection walks disagree\n", d.name, i);
        agrees_ = false;
      }
    }
  }
  ~PbcOps() override {
    pbc_arena_destroy(&arena_);
    pbc_arena_destroy(&ops_arena_);
  }
  bool Run() override {
    if (!info_ || !agrees_) return false;
    bool ok = true;
    for (size_t i = 0; i < ms_.size(); i++) {
      const void *x = ms_[i].data();
      if (mode_ == OpsMode::Equal) {
        ok &= pbc_message_equal(info_, x, copies_[i].data(), nullptr);
        continue;
      }
      if (mode_ == OpsMode::Read) {
        sum_ += PbcWalk(info_->desc, x);
        continue;
      }
      if (mode_ == OpsMode::ToJson) {
        // Into a buffer kept large enough, as a server reusing one would.
        size_t n = 0;
        pbc_status s = pbc_json_print(info_, x, json_.data(), json_.size(), &n, nullptr);
        if (s == PBC_ERR_BUFFER_TOO_SMALL) {
          json_.resize(2 * n);
          s = pbc_json_print(info_, x, json_.data(), json_.size(), &n, nullptr);
        }
        ok &= s == PBC_OK;
        continue;
      }
      pbc_arena_reset(&ops_arena_);
      if (mode_ == OpsMode::FromJson) {
        ok &= pbc_json_parse(info_, m_.data(), texts_[i].data(), texts_[i].size(), &ops_arena_,
                             nullptr, nullptr) == PBC_OK;
        continue;
      }
      ok &= pbc_message_copy(info_, m_.data(), x, &ops_arena_) == PBC_OK;
      if (mode_ == OpsMode::Merge)
        ok &= pbc_message_merge(info_, m_.data(), x, &ops_arena_) == PBC_OK;
      if (mode_ == OpsMode::MergeParse)
        ok &= pbc_merge_decode(info_, m_.data(),
                               reinterpret_cast<const uint8_t *>(payloads_[i].data()),
                               payloads_[i].size(), &ops_arena_, nullptr) == PBC_OK;
    }
    return ok;
  }

private:
  const pbc_message_info *info_;
  OpsMode mode_;
  std::vector<char> m_, block_, json_;
  std::vector<std::vector<char>> ms_, copies_;
  std::vector<std::string> texts_;
  pbc_arena arena_, ops_arena_;
  uint64_t sum_ = 0;
  bool agrees_ = true;
};

#ifdef PBC_BENCH_HAVE_SIMDJSON
// simdjson's DOM parse of the text pbc_from_json reads (libprotobuf's JSON
// of each payload): the JSON checked (UTF-8 included) and indexed, no
// message built; the speed of a JSON parser, for reference. The text is
// padded once, as simdjson requires, outside the timed loop.
class SimdjsonDom : public Codec {
public:
  explicit SimdjsonDom(const Dataset &d) : Codec(Payloads(d)) {
    std::vector<std::unique_ptr<google::protobuf::Message>> lib;
    for (const std::string &p : payloads_) {
      lib.emplace_back(Prototype(d)->New());
      lib.back()->ParseFromString(p);
    }
    std::vector<std::string> texts = LibprotobufJson(lib);
    SetTexts(texts);
    for (const std::string &t : texts) texts_.emplace_back(t);
  }
  bool Run() override {
    bool ok = true;
    for (const simdjson::padded_string &t : texts_) {
      simdjson::dom::element doc;
      ok &= parser_.parse(t).get(doc) == simdjson::SUCCESS;
    }
    return ok;
  }

private:
  simdjson::dom::parser parser_;
  std::vector<simdjson::padded_string> texts_;
};
#endif

#ifdef PBC_BENCH_HAVE_UPB
// upb (libupb-dev: the July 2020 snapshot, before upb's fasttable parser) on
// tables built from the dataset's descriptor as upbc would generate them
// (upb_layout.h). Construction checks them: each payload decoded by upb
// must keep nothing as unknown fields, and upb's re-encoding must parse in
// libprotobuf to the message libprotobuf parses from the payload; if not,
// the reason goes to stderr and Run() fails.
class UpbCodec : public Codec {
public:
  bool valid() const { return valid_; }

protected:
  explicit UpbCodec(const Dataset &d)
      : Codec(Payloads(d)), prototype_(Prototype(d)),
        layouts_(prototype_->GetDescriptor()), block_(1 << 20) {
    for (size_t i = 0; i < payloads_.size() && valid_; i++) valid_ = Check(d, i);
  }

  // An arena on the reused 1 MiB block: the 2020 API has no reset, but an
  // arena initialized on a caller's block and freed gives back only the
  // blocks it took beyond it, so init + free per message is the reset.
  upb_arena *FreshArena() {
    return upb_arena_init(block_.data(), block_.size(), &upb_alloc_global);
  }

  const google::protobuf::Message *prototype_;
  UpbLayouts layouts_;
  std::vector<char> block_;
  bool valid_ = true;

private:
  static std::string Canonical(const google::protobuf::Message &m) {
    std::string s;
    {
      google::protobuf::io::StringOutputStream out(&s);
      google::protobuf::io::CodedOutputStream coded(&out);
      coded.SetSerializationDeterministic(true);
      m.SerializeToCodedStream(&coded);
    }
    return s;
  }

  bool Check(const Dataset &d, size_t i) {
    const std::string &p = payloads_[i];
    upb_arena *a = upb_arena_init(nullptr, 0, &upb_alloc_global);
    void *m = _upb_msg_new(layouts_.root(), a);
    std::string why;
    size_t n = 0;
    char *out = nullptr;
    if (!m || !upb_decode(p.data(), p.size(), m, layouts_.root(), a)) {
      why = "upb_decode failed";
    } else if (size_t unknown = layouts_.UnknownBytes(m, prototype_->GetDescriptor())) {
      why = "upb kept " + std::to_string(unknown) + " bytes as unknown fields";
    } else if (!(out = upb_encode(m, layouts_.root(), a, &n))) {
      why = "upb_encode failed";
    } else {
      std::unique_ptr<google::protobuf::Message> want(prototype_->New()), got(prototype_->New());
      want->ParseFromString(p);
      if (!got->ParseFromArray(out, int(n))) {
        why = "libprotobuf cannot parse upb's encoding";
      } else if (Canonical(*want) != Canonical(*got)) {
        google::protobuf::util::MessageDifferencer diff;
        diff.ReportDifferencesToString(&why);
        diff.Compare(*want, *got);
        why = "upb's round trip differs:\n" + why.substr(0, 2000);
      }
    }
    upb_arena_free(a);
    if (!why.empty())
      fprintf(stderr, "upb on %s, payload %zu: %s\n", d.name, i, why.c_str());
    return why.empty();
  }
};

// upb_decode into a fresh message (_upb_msg_new) per payload, in an arena
// reset per message on the reused block. Zero-copy: upb of 2020 always
// points strings into the input.
class UpbParse : public UpbCodec {
public:
  explicit UpbParse(const Dataset &d) : UpbCodec(d) {}
  bool Run() override {
    if (!valid_) return false;
    bool ok = true;
    for (const std::string &p : payloads_) {
      upb_arena *a = FreshArena();
      void *m = _upb_msg_new(layouts_.root(), a);
      ok &= m && upb_decode(p.data(), p.size(), m, layouts_.root(), a);
      upb_arena_free(a);
    }
    return ok;
  }
};

// upb_encode of messages decoded beforehand; its output buffer comes from an
// arena reset per message on the reused block (upb grows it by doubling).
class UpbSerialize : public UpbCodec {
public:
  explicit UpbSerialize(const Dataset &d)
      : UpbCodec(d), decoded_(upb_arena_init(nullptr, 0, &upb_alloc_global)) {
    for (const std::string &p : payloads_) {
      ms_.push_back(_upb_msg_new(layouts_.root(), decoded_));
      valid_ &= ms_.back() && upb_decode(p.data(), p.size(), ms_.back(), layouts_.root(), decoded_);
    }
  }
  ~UpbSerialize() override { upb_arena_free(decoded_); }
  bool Run() override {
    if (!valid_) return false;
    bool ok = true;
    for (const void *m : ms_) {
      upb_arena *a = FreshArena();
      size_t n;
      ok &= upb_encode(m, layouts_.root(), a, &n) != nullptr;
      upb_arena_free(a);
    }
    return ok;
  }

private:
  upb_arena *decoded_;
  std::vector<void *> ms_;
};
#endif  // PBC_BENCH_HAVE_UPB

}  // namespace pbcbench
