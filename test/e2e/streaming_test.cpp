// The streaming (append-only) writers, byte level, against libprotobuf.
//
// Each case writes a random message twice from the same random values:
// through the pbc-generated T_w_* functions into a pbc_writer, and through
// libprotobuf reflection into a DynamicMessage (from an Importer, so no
// protoc-generated code). The writer's chunks are concatenated, patches
// applied, and the stream must parse with libprotobuf into a message equal
// to the reflection-built one; it must also decode with pbc's own T_decode
// (lengths in the 4-byte redundant form), whose re-encoding must parse to
// the same message.
//
// Chunks are 1 byte to 64 KiB (log-uniform, so small sizes and every
// boundary position come up), fixed per case or varying per chunk, from a
// delegate that never commits, commits every chunk as soon as the next one
// is handed out (the patch-list path: committed chunks are snapshotted and
// scribbled over, so a late write into one would be lost and caught), or
// commits at random; or from the heap writer.
//
//   streaming_test --proto_path DIR --cases N [--seed S] [--max-depth D]
//                  [--only-case K] [--verbose] [--dump FILE]
// Prints "<passed> passed, <failed> failed". PBC_DIFFTEST_SAMPLE=K in the
// environment runs every K-th case only, as difftest does (the same cases as
// the full run, floor(N/K) of them): the test suite's sanitizer pass sets it
// (test/lit.cfg.py).
#include <google/protobuf/compiler/importer.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/util/message_differencer.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "streaming.pbc.h"
#include "streaming3.pbc.h"

using google::protobuf::Descriptor;
using google::protobuf::DynamicMessageFactory;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
namespace compiler = google::protobuf::compiler;

namespace {

// ---- Values and the generated writers, per field -----------------------------

struct Value {
  int64_t i = 0;
  uint64_t u = 0;
  float f = 0;
  double d = 0;
  bool b = false;
  std::string s;
};

using SetFn = void (*)(pbc_msg *, const Value &);
using PackedFn = void (*)(pbc_msg *, const std::vector<Value> &);
using BeginFn = pbc_msg *(*)(pbc_msg *);

// How to write one field with the generated API: a scalar/string setter
// (set or add), a packed setter, or a begin for messages, groups and maps.
struct Writer {
  SetFn set = nullptr;
  PackedFn packed = nullptr;
  BeginFn begin = nullptr;
};

std::map<std::string, Writer> &writers() {
  static std::map<std::string, Writer> table;
  return table;
}

struct Register {
  Register(const char *name, Writer w) { writers()[name] = w; }
};

template <class T> struct Array {
  explicit Array(size_t n) : data(new T[n + 1]) {}
  std::unique_ptr<T[]> data;
};

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define REG(NAME, ...)                                                         \
  static Register CAT(reg_, __COUNTER__)(NAME, __VA_ARGS__)

// Singular scalar (also oneof members): T_w_set_F(m, EXPR of v).
#define SET(T, F, FULL, EXPR)                                                  \
  REG(FULL, Writer{[](pbc_msg *m, const Value &v) { T##_w_set_##F(m, EXPR); }, \
                   nullptr, nullptr})
// Repeated scalar: T_w_add_F and T_w_set_F_packed over a CT array.
#define ADD(T, F, FULL, CT, EXPR)                                              \
  REG(FULL,                                                                    \
      Writer{[](pbc_msg *m, const Value &v) { T##_w_add_##F(m, EXPR); },       \
             [](pbc_msg *m, const std::vector<Value> &vs) {                    \
               Array<CT> a(vs.size());                                         \
               for (size_t i = 0; i < vs.size(); i++) {                        \
                 const Value &v = vs[i];                                       \
                 a.data[i] = EXPR;                                             \
               }                                                               \
               T##_w_set_##F##_packed(m, a.data.get(), vs.size());             \
             },                                                                \
             nullptr})
#define SET_STR(T, F, FULL)                                                    \
  REG(FULL, Writer{[](pbc_msg *m, const Value &v) {                            \
                     T##_w_set_##F(m, v.s.data(), v.s.size());                 \
                   },                                                          \
                   nullptr, nullptr})
#define ADD_STR(T, F, FULL)                                                    \
  REG(FULL, Writer{[](pbc_msg *m, const Value &v) {                            \
                     T##_w_add_##F(m, v.s.data(), v.s.size());                 \
                   },                                                          \
                   nullptr, nullptr})
#define BEGIN(T, F, FULL)                                                      \
  REG(FULL, Writer{nullptr, nullptr,                                           \
                   [](pbc_msg *m) { return T##_w_begin_##F(m); }})
#define MAP(T, F, FULL)                                                        \
  REG(FULL, Writer{nullptr, nullptr,                                           \
                   [](pbc_msg *m) { return T##_w_add_##F(m); }})

SET(e2e_st_All, f_int32, "e2e.st.All.f_int32", (int32_t)v.i);
SET(e2e_st_All, f_int64, "e2e.st.All.f_int64", v.i);
SET(e2e_st_All, f_uint32, "e2e.st.All.f_uint32", (uint32_t)v.u);
SET(e2e_st_All, f_uint64, "e2e.st.All.f_uint64", v.u);
SET(e2e_st_All, f_sint32, "e2e.st.All.f_sint32", (int32_t)v.i);
SET(e2e_st_All, f_sint64, "e2e.st.All.f_sint64", v.i);
SET(e2e_st_All, f_fixed32, "e2e.st.All.f_fixed32", (uint32_t)v.u);
SET(e2e_st_All, f_fixed64, "e2e.st.All.f_fixed64", v.u);
SET(e2e_st_All, f_sfixed32, "e2e.st.All.f_sfixed32", (int32_t)v.i);
SET(e2e_st_All, f_sfixed64, "e2e.st.All.f_sfixed64", v.i);
SET(e2e_st_All, f_float, "e2e.st.All.f_float", v.f);
SET(e2e_st_All, f_double, "e2e.st.All.f_double", v.d);
SET(e2e_st_All, f_bool, "e2e.st.All.f_bool", v.b);
SET_STR(e2e_st_All, f_string, "e2e.st.All.f_string");
SET_STR(e2e_st_All, f_bytes, "e2e.st.All.f_bytes");
SET(e2e_st_All, f_enum, "e2e.st.All.f_enum", (int32_t)v.i);
BEGIN(e2e_st_All, child, "e2e.st.All.child");
BEGIN(e2e_st_All, grp, "e2e.st.All.grp");
ADD(e2e_st_All, r_int32, "e2e.st.All.r_int32", int32_t, (int32_t)v.i);
ADD(e2e_st_All, r_int64, "e2e.st.All.r_int64", int64_t, v.i);
ADD(e2e_st_All, r_uint32, "e2e.st.All.r_uint32", uint32_t, (uint32_t)v.u);
ADD(e2e_st_All, r_uint64, "e2e.st.All.r_uint64", uint64_t, v.u);
ADD(e2e_st_All, r_sint32, "e2e.st.All.r_sint32", int32_t, (int32_t)v.i);
ADD(e2e_st_All, r_sint64, "e2e.st.All.r_sint64", int64_t, v.i);
ADD(e2e_st_All, r_fixed32, "e2e.st.All.r_fixed32", uint32_t, (uint32_t)v.u);
ADD(e2e_st_All, r_fixed64, "e2e.st.All.r_fixed64", uint64_t, v.u);
ADD(e2e_st_All, r_sfixed32, "e2e.st.All.r_sfixed32", int32_t, (int32_t)v.i);
ADD(e2e_st_All, r_sfixed64, "e2e.st.All.r_sfixed64", int64_t, v.i);
ADD(e2e_st_All, r_float, "e2e.st.All.r_float", float, v.f);
ADD(e2e_st_All, r_double, "e2e.st.All.r_double", double, v.d);
ADD(e2e_st_All, r_bool, "e2e.st.All.r_bool", bool, v.b);
ADD_STR(e2e_st_All, r_string, "e2e.st.All.r_string");
ADD_STR(e2e_st_All, r_bytes, "e2e.st.All.r_bytes");
ADD(e2e_st_All, r_enum, "e2e.st.All.r_enum", int32_t, (int32_t)v.i);
BEGIN(e2e_st_All, r_child, "e2e.st.All.r_child");
BEGIN(e2e_st_All, rgrp, "e2e.st.All.rgrp");
SET(e2e_st_All, o_int, "e2e.st.All.o_int", (int32_t)v.i);
SET_STR(e2e_st_All, o_str, "e2e.st.All.o_str");
BEGIN(e2e_st_All, o_child, "e2e.st.All.o_child");
MAP(e2e_st_All, m_int_str, "e2e.st.All.m_int_str");
MAP(e2e_st_All, m_str_msg, "e2e.st.All.m_str_msg");
SET(e2e_st_All, t2, "e2e.st.All.t2", (int32_t)v.i);
SET(e2e_st_All, t3, "e2e.st.All.t3", (int32_t)v.i);
SET_STR(e2e_st_All, t4, "e2e.st.All.t4");
BEGIN(e2e_st_All, t5, "e2e.st.All.t5");
SET(e2e_st_All_Grp, g_int, "e2e.st.All.Grp.g_int", (int32_t)v.i);
BEGIN(e2e_st_All_Grp, g_child, "e2e.st.All.Grp.g_child");
SET_STR(e2e_st_All_RGrp, rg, "e2e.st.All.RGrp.rg");
SET(e2e_st_All_MIntStrEntry, key, "e2e.st.All.MIntStrEntry.key", (int32_t)v.i);
SET_STR(e2e_st_All_MIntStrEntry, value, "e2e.st.All.MIntStrEntry.value");
SET_STR(e2e_st_All_MStrMsgEntry, key, "e2e.st.All.MStrMsgEntry.key");
BEGIN(e2e_st_All_MStrMsgEntry, value, "e2e.st.All.MStrMsgEntry.value");

SET(e2e_st3_P3, a, "e2e.st3.P3.a", (int32_t)v.i);
ADD(e2e_st3_P3, ints, "e2e.st3.P3.ints", int32_t, (int32_t)v.i);
ADD(e2e_st3_P3, doubles, "e2e.st3.P3.doubles", double, v.d);
ADD(e2e_st3_P3, zz, "e2e.st3.P3.zz", int64_t, v.i);
SET_STR(e2e_st3_P3, s, "e2e.st3.P3.s");
MAP(e2e_st3_P3, m, "e2e.st3.P3.m");
BEGIN(e2e_st3_P3, child, "e2e.st3.P3.child");
SET(e2e_st3_P3, opt, "e2e.st3.P3.opt", v.i);
SET(e2e_st3_P3, e, "e2e.st3.P3.e", (int32_t)v.i);
ADD(e2e_st3_P3, es, "e2e.st3.P3.es", int32_t, (int32_t)v.i);
SET_STR(e2e_st3_P3, b, "e2e.st3.P3.b");
ADD(e2e_st3_P3, fx, "e2e.st3.P3.fx", uint32_t, (uint32_t)v.u);
ADD(e2e_st3_P3, flags, "e2e.st3.P3.flags", bool, v.b);
MAP(e2e_st3_P3, mb, "e2e.st3.P3.mb");
SET_STR(e2e_st3_P3_MEntry, key, "e2e.st3.P3.MEntry.key");
BEGIN(e2e_st3_P3_MEntry, value, "e2e.st3.P3.MEntry.value");
SET(e2e_st3_P3_MbEntry, key, "e2e.st3.P3.MbEntry.key", v.u);
SET_STR(e2e_st3_P3_MbEntry, value, "e2e.st3.P3.MbEntry.value");

// ---- Random values ----------------------------------------------------------

struct Rng {
  std::mt19937_64 gen;
  explicit Rng(uint64_t seed) : gen(seed) {}
  uint64_t next() { return gen(); }
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
  bool chance(unsigned one_in) { return below(one_in) == 0; }
  // A value of 0 to `bits` significant bits, so varints of every length.
  uint64_t spread(unsigned bits) {
    unsigned n = (unsigned)below(bits + 1);
    return n == 0 ? 0 : next() >> (64 - n);
  }
  int64_t signed_spread(unsigned bits) {
    int64_t v = (int64_t)spread(bits - 1);
    return chance(2) ? -v - 1 : v;
  }
};

std::string random_utf8(Rng &r, size_t n) {
  static const char *pieces[] = {"a", "Z", "0", " ", "\xc3\xa9", "\xe2\x82\xac",
                                 "\xf0\x9f\x98\x80", "\xd0\x96"};
  std::string s;
  while (s.size() < n) s += pieces[r.below(8)];
  return s;
}

size_t random_length(Rng &r) {
  static const size_t edges[] = {0, 1, 127, 128, 255, 256, 16383, 16384};
  switch (r.below(6)) {
  case 0: return edges[r.below(8)];
  case 1: return r.below(70000);
  case 2: return r.below(4096);
  default: return r.below(48);
  }
}

Value random_value(Rng &r, const FieldDescriptor *fd) {
  Value v;
  switch (fd->type()) {
  case FieldDescriptor::TYPE_INT32:
  case FieldDescriptor::TYPE_SINT32:
  case FieldDescriptor::TYPE_SFIXED32:
    v.i = (int32_t)r.signed_spread(32);
    break;
  case FieldDescriptor::TYPE_INT64:
  case FieldDescriptor::TYPE_SINT64:
  case FieldDescriptor::TYPE_SFIXED64:
    v.i = r.signed_spread(64);
    break;
  case FieldDescriptor::TYPE_UINT32:
  case FieldDescriptor::TYPE_FIXED32:
    v.u = (uint32_t)r.spread(32);
    break;
  case FieldDescriptor::TYPE_UINT64:
  case FieldDescriptor::TYPE_FIXED64:
    v.u = r.spread(64);
    break;
  case FieldDescriptor::TYPE_FLOAT:
    v.f = r.chance(8) ? -0.0f : (float)((double)r.signed_spread(40) / 1024.0);
    break;
  case FieldDescriptor::TYPE_DOUBLE:
    v.d = r.chance(8) ? 1e300 : (double)r.signed_spread(64) / 3.0;
    break;
  case FieldDescriptor::TYPE_BOOL:
    v.b = r.chance(2);
    break;
  case FieldDescriptor::TYPE_ENUM:
    if (fd->enum_type()->file()->syntax() ==
            google::protobuf::FileDescriptor::SYNTAX_PROTO3 &&
        r.chance(3))
      v.i = (int32_t)r.signed_spread(32); // open enum: any value
    else
      v.i = fd->enum_type()->value((int)r.below(fd->enum_type()->value_count()))
                ->number();
    break;
  case FieldDescriptor::TYPE_STRING:
    v.s = random_utf8(r, random_length(r));
    break;
  case FieldDescriptor::TYPE_BYTES:
    v.s.resize(random_length(r));
    for (char &c : v.s) c = (char)r.next();
    break;
  default:
    abort();
  }
  return v;
}

// The same value through reflection.
void reflect(Message *msg, const FieldDescriptor *fd, const Value &v) {
  const Reflection *ref = msg->GetReflection();
  bool rep = fd->is_repeated();
  switch (fd->cpp_type()) {
#define CASE(CPP, METHOD, EXPR)                                                \
  case FieldDescriptor::CPP:                                                   \
    if (rep) ref->Add##METHOD(msg, fd, EXPR);                                  \
    else ref->Set##METHOD(msg, fd, EXPR);                                      \
    break;
    CASE(CPPTYPE_INT32, Int32, (int32_t)v.i)
    CASE(CPPTYPE_INT64, Int64, v.i)
    CASE(CPPTYPE_UINT32, UInt32, (uint32_t)v.u)
    CASE(CPPTYPE_UINT64, UInt64, v.u)
    CASE(CPPTYPE_FLOAT, Float, v.f)
    CASE(CPPTYPE_DOUBLE, Double, v.d)
    CASE(CPPTYPE_BOOL, Bool, v.b)
    CASE(CPPTYPE_ENUM, EnumValue, (int)v.i)
    CASE(CPPTYPE_STRING, String, v.s)
#undef CASE
  default:
    abort();
  }
}

// ---- Filling a message both ways ----------------------------------------------

struct Filler {
  Rng &r;
  unsigned max_depth;
  size_t budget; // bytes of strings left, so cases stay small
  // Map keys used so far, per map: a message written in several pieces
  // (merged by parsers) still gets each key once, since parsers keep the
  // last entry of a key and reflection would keep both.
  std::map<std::pair<const Message *, const FieldDescriptor *>,
           std::set<std::string>>
      map_keys;

  const Writer &writer_of(const FieldDescriptor *fd) {
    auto it = writers().find(fd->full_name());
    if (it == writers().end()) {
      fprintf(stderr, "no writer for %s\n", fd->full_name().c_str());
      exit(2);
    }
    return it->second;
  }

  Value value_for(const FieldDescriptor *fd) {
    Value v = random_value(r, fd);
    if (v.s.size() > budget) v.s.clear(); // (cutting could split UTF-8)
    budget -= v.s.size();
    return v;
  }

  // A map entry: key (unique in this map) and value, written both ways.
  void fill_entry(pbc_msg *m, Message *msg, const FieldDescriptor *fd,
                  std::set<std::string> &keys, unsigned depth) {
    const Descriptor *entry_type = fd->message_type();
    const FieldDescriptor *key_fd = entry_type->FindFieldByNumber(1);
    const FieldDescriptor *value_fd = entry_type->FindFieldByNumber(2);
    Value key = value_for(key_fd);
    auto text = [&] {
      return std::to_string(key.i) + "/" + std::to_string(key.u) + "/" + key.s;
    };
    while (!keys.insert(text()).second) { // taken: step to a free key
      key.s += "#";
      key.u++;
      key.i = (int32_t)(key.i + 1); // the only signed key type is int32
    }
    pbc_msg *e = writer_of(fd).begin(m);
    Message *e_msg = msg->GetReflection()->AddMessage(msg, fd);
    writer_of(key_fd).set(e, key);
    reflect(e_msg, key_fd, key);
    if (value_fd->message_type() != nullptr) {
      pbc_msg *vm = writer_of(value_fd).begin(e);
      Message *v_msg = e_msg->GetReflection()->MutableMessage(e_msg, value_fd);
      fill(vm, v_msg, depth + 2);
      if (r.chance(2)) pbc_msg_finalize(vm); // else the entry's finalize does
    } else {
      Value v = value_for(value_fd);
      writer_of(value_fd).set(e, v);
      reflect(e_msg, value_fd, v);
    }
    pbc_msg_finalize(e);
  }

  void fill(pbc_msg *m, Message *msg, unsigned depth) {
    const Descriptor *type = msg->GetDescriptor();
    const Reflection *ref = msg->GetReflection();
    unsigned ops = (unsigned)r.below(depth < 2 ? 24 : 8);
    for (unsigned op = 0; op < ops; op++) {
      const FieldDescriptor *fd = type->field((int)r.below(type->field_count()));
      const Writer &w = writer_of(fd);
      if (fd->is_map()) {
        if (depth + 2 <= max_depth) fill_entry(m, msg, fd, map_keys[{msg, fd}], depth);
      } else if (fd->message_type() != nullptr) {
        if (depth + 1 > max_depth) continue;
        pbc_msg *child = w.begin(m);
        Message *child_msg = fd->is_repeated() ? ref->AddMessage(msg, fd)
                                               : ref->MutableMessage(msg, fd);
        fill(child, child_msg, depth + 1);
        // Sometimes left open: the next write to m (or m's finalize)
        // finalizes it.
        if (r.chance(2)) pbc_msg_finalize(child);
      } else if (fd->is_repeated() && w.packed != nullptr && r.chance(2)) {
        std::vector<Value> vs(r.below(r.chance(4) ? 3000 : 12));
        for (Value &v : vs) {
          v = value_for(fd);
          reflect(msg, fd, v);
        }
        w.packed(m, vs);
      } else {
        Value v = value_for(fd);
        w.set(m, v);
        reflect(msg, fd, v);
      }
    }
  }

  // A chain of `levels` nested messages and groups below m, with values.
  void chain(pbc_msg *m, Message *msg, unsigned levels) {
    for (unsigned i = 0; i < levels; i++) {
      const Descriptor *type = msg->GetDescriptor();
      const FieldDescriptor *fd = nullptr;
      if (type->full_name() == "e2e.st.All")
        fd = type->FindFieldByName(r.chance(3) ? "grp" : "r_child");
      else if (type->full_name() == "e2e.st.All.Grp")
        fd = type->FindFieldByName("g_child");
      else
        fd = type->FindFieldByName("child");
      const FieldDescriptor *leaf = type->FindFieldByNumber(type->full_name() == "e2e.st.All.Grp" ? 19 : 1);
      Value v = value_for(leaf);
      writer_of(leaf).set(m, v);
      reflect(msg, leaf, v);
      m = writer_of(fd).begin(m);
      msg = fd->is_repeated() ? msg->GetReflection()->AddMessage(msg, fd)
                              : msg->GetReflection()->MutableMessage(msg, fd);
    }
    fill(m, msg, max_depth);
  }
};

// ---- Chunk delegates ---------------------------------------------------------------

enum Commit { kNever, kAlways, kRandom };

// Hands out chunks and keeps what a tracing service would receive (see the
// file comment).
struct Recorder {
  size_t chunk_size;   // 0: each chunk's size is random
  size_t max_chunk;
  Commit commit;
  Rng rng;
  std::vector<std::unique_ptr<uint8_t[]>> live, sent;
  std::vector<size_t> sizes;
  uint32_t committed_below = 0;
  size_t patches = 0;
  std::string violation;

  Recorder(size_t chunk_size, size_t max_chunk, Commit commit, uint64_t seed)
      : chunk_size(chunk_size), max_chunk(max_chunk), commit(commit),
        rng(seed) {}

  static bool get(void *ctx, uint32_t id, uint8_t **begin, uint8_t **end,
                  bool *committed) {
    auto *r = static_cast<Recorder *>(ctx);
    if (id != r->live.size()) r->violation = "chunk ids out of order";
    size_t size = r->chunk_size ? r->chunk_size : 1 + r->rng.below(r->max_chunk);
    r->live.emplace_back(new uint8_t[size]);
    memset(r->live.back().get(), 0xCC, size);
    r->sent.emplace_back();
    r->sizes.push_back(size);
    if (r->commit == kAlways || (r->commit == kRandom && r->rng.chance(3))) {
      for (uint32_t c = r->committed_below; c < id; c++) {
        r->sent[c].reset(new uint8_t[r->sizes[c]]);
        memcpy(r->sent[c].get(), r->live[c].get(), r->sizes[c]);
        memset(r->live[c].get(), 0xEE, r->sizes[c]);
      }
      r->committed_below = id;
      *committed = true;
    }
    *begin = r->live.back().get();
    *end = *begin + size;
    return true;
  }

  static void patch(void *ctx, uint32_t id, size_t offset, const uint8_t *bytes,
                    size_t size) {
    auto *r = static_cast<Recorder *>(ctx);
    r->patches++;
    if (id >= r->committed_below || size == 0 || size > 4 ||
        offset + size > r->sizes[id]) {
      r->violation = "bad patch";
      return;
    }
    memcpy(r->sent[id].get() + offset, bytes, size);
  }

  std::string stream(pbc_writer *w) const {
    std::string out;
    for (size_t c = 0; c < live.size(); c++) {
      size_t n = c + 1 < live.size() ? sizes[c] : pbc_writer_chunk_used(w);
      const uint8_t *data = sent[c] ? sent[c].get() : live[c].get();
      out.append(reinterpret_cast<const char *>(data), n);
    }
    return out;
  }
};

std::string hex_prefix(const std::string &s, size_t n = 48) {
  std::string out;
  char buf[4];
  for (size_t i = 0; i < s.size() && i < n; i++) {
    snprintf(buf, sizeof buf, "%02x ", (uint8_t)s[i]);
    out += buf;
  }
  return out;
}

bool parse(Message *msg, const std::string &bytes) {
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t *>(bytes.data()), (int)bytes.size());
  in.SetRecursionLimit(1000);
  return msg->ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
}

struct Options {
  std::string proto_path;
  long cases = 100;
  uint64_t seed = 20240601;
  unsigned max_depth = 5;
  long only_case = -1;
  long sample = 1; // every sample-th case (PBC_DIFFTEST_SAMPLE)
  bool verbose = false;
  std::string dump; // the failing stream goes here
};

int run(const Options &opt) {
  compiler::DiskSourceTree tree;
  tree.MapPath("", opt.proto_path);
  struct Errors : compiler::MultiFileErrorCollector {
    void AddError(const std::string &file, int line, int col,
                  const std::string &message) override {
      fprintf(stderr, "%s:%d:%d: %s\n", file.c_str(), line + 1, col + 1,
              message.c_str());
    }
  } errors;
  compiler::Importer importer(&tree, &errors);
  if (!importer.Import("streaming.proto") || !importer.Import("streaming3.proto"))
    return 2;
  DynamicMessageFactory factory;
  const char *roots[] = {"e2e.st.All", "e2e.st3.P3"};

  long passed = 0, failed = 0;
  size_t total_patches = 0, total_chunks = 0, deep_cases = 0;
  printf("seed: %llu\n", (unsigned long long)opt.seed);
  long ran = 0;
  for (long k = 0; k < opt.cases; k++) {
    if (opt.only_case >= 0 ? k != opt.only_case : k % opt.sample != opt.sample - 1)
      continue;
    ran++;
    Rng r(opt.seed * 1000003 + (uint64_t)k);
    const char *root_name = roots[r.below(2)];
    const Descriptor *type = importer.pool()->FindMessageTypeByName(root_name);
    std::unique_ptr<Message> expected(factory.GetPrototype(type)->New());

    // The chunking of this case.
    unsigned kind = (unsigned)r.below(5);
    size_t chunk = (size_t)std::exp2((double)r.below(1601) / 100.0); // 1..64K
    Commit commit = kind == 1 ? kAlways : kind == 2 ? kRandom : kNever;
    bool heap = kind == 4;
    size_t fixed = kind == 3 ? 0 : chunk;
    Recorder rec(fixed, chunk, commit, r.next());
    pbc_heap_writer h;
    pbc_writer own;
    pbc_writer *w = &own;
    if (heap) {
      pbc_heap_writer_init(&h, chunk);
      w = &h.writer;
    } else {
      pbc_writer_delegate d = {Recorder::get, Recorder::patch, &rec};
      pbc_writer_init(&own, &d);
    }

    Filler filler{r, opt.max_depth, 200000, {}};
    pbc_msg *root = pbc_writer_root(w);
    bool deep = std::strcmp(root_name, "e2e.st.All") == 0 && r.chance(8);
    if (deep) {
      // Nested as deep as the writer allows (100 below the root; the last
      // level is the fill's).
      deep_cases++;
      Filler f2{r, 0, 20000, {}};
      f2.chain(root, expected.get(), PBC_WRITER_MAX_DEPTH);
    } else {
      filler.fill(root, expected.get(), 0);
    }
    pbc_status status = pbc_writer_finish(w);

    std::string stream;
    if (heap) {
      stream.resize(pbc_heap_writer_size(&h));
      pbc_heap_writer_copy(&h, &stream[0], stream.size());
      total_chunks += pbc_heap_writer_chunk_count(&h);
      pbc_heap_writer_destroy(&h);
    } else {
      stream = rec.stream(w);
      total_chunks += rec.live.size();
      total_patches += rec.patches;
    }

    std::string problem;
    std::unique_ptr<Message> got(factory.GetPrototype(type)->New());
    std::string diff;
    google::protobuf::util::MessageDifferencer differ;
    differ.ReportDifferencesToString(&diff);
    if (status != PBC_OK) {
      problem = std::string("writer status ") + pbc_status_str(status);
    } else if (!rec.violation.empty()) {
      problem = "delegate contract: " + rec.violation;
    } else if (!parse(got.get(), stream)) {
      problem = "libprotobuf cannot parse the stream";
    } else if (!differ.Compare(*expected, *got)) {
      problem = "libprotobuf parsed a different message:\n" + diff;
    } else {
      // pbc's own decoder on the redundant lengths, then back.
      const pbc_message_info *info = pbc_find_message(root_name);
      std::unique_ptr<char[]> m(new char[info->struct_size]);
      pbc_arena arena;
      pbc_arena_init(&arena, nullptr, 0);
      pbc_decode_options dopt = {1000, false, false};
      pbc_status ds = pbc_decode(info, m.get(),
                                 reinterpret_cast<const uint8_t *>(stream.data()),
                                 stream.size(), &arena, &dopt);
      if (ds != PBC_OK) {
        problem = std::string("pbc decode: ") + pbc_status_str(ds);
      } else {
        std::string again(info->encoded_size(m.get()), '\0');
        size_t written = 0;
        info->encode(m.get(), reinterpret_cast<uint8_t *>(&again[0]),
                     again.size(), &written);
        std::unique_ptr<Message> back(factory.GetPrototype(type)->New());
        diff.clear();
        if (!parse(back.get(), again))
          problem = "libprotobuf cannot parse pbc's re-encoding";
        else if (!differ.Compare(*expected, *back))
          problem = "pbc decoded a different message:\n" + diff;
      }
      pbc_arena_destroy(&arena);
    }
    if (problem.empty()) {
      passed++;
    } else {
      failed++;
      if (problem.size() > 2000) problem = problem.substr(0, 2000) + "...";
      printf("case %ld (%s, %s, chunk %zu%s, commit %d, %zu bytes): %s\n", k,
             root_name, heap ? "heap writer" : "recorder", chunk,
             fixed ? "" : " max", (int)commit, stream.size(), problem.c_str());
      printf("  stream: %s\n", hex_prefix(stream).c_str());
      if (!opt.dump.empty()) {
        FILE *f = fopen(opt.dump.c_str(), "wb");
        if (f != nullptr) {
          fwrite(stream.data(), 1, stream.size(), f);
          fclose(f);
        }
      }
      printf("  reproduce with: --seed %llu --only-case %ld\n",
             (unsigned long long)opt.seed, k);
      if (failed >= 3) break;
    }
  }
  if (opt.verbose)
    fprintf(stderr, "chunks %zu, patches %zu, deep cases %zu\n", total_chunks,
            total_patches, deep_cases);
  // The randomization must actually reach the patch path and deep chains.
  if (ran >= 100 && opt.only_case < 0 &&
      (total_patches == 0 || deep_cases == 0)) {
    printf("coverage: patches %zu, deep cases %zu\n", total_patches, deep_cases);
    failed++;
  }
  printf("%ld passed, %ld failed\n", passed, failed);
  return failed ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  Options opt;
  if (const char *sample = getenv("PBC_DIFFTEST_SAMPLE")) {
    opt.sample = atol(sample);
    if (opt.sample < 1) {
      fprintf(stderr, "PBC_DIFFTEST_SAMPLE must be 1 or more\n");
      return 2;
    }
  }
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto next = [&]() -> const char * {
      if (i + 1 >= argc) {
        fprintf(stderr, "%s needs a value\n", a.c_str());
        exit(2);
      }
      return argv[++i];
    };
    if (a == "--proto_path") opt.proto_path = next();
    else if (a == "--cases") opt.cases = atol(next());
    else if (a == "--seed") opt.seed = strtoull(next(), nullptr, 10);
    else if (a == "--max-depth") opt.max_depth = (unsigned)atoi(next());
    else if (a == "--only-case") opt.only_case = atol(next());
    else if (a == "--verbose") opt.verbose = true;
    else if (a == "--dump") opt.dump = next();
    else {
      fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  return run(opt);
}
