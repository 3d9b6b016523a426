#include "ops_check.h"

#include "description_check.h"

#include <cstring>
#include <memory>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/util/message_differencer.h>

namespace pbc_test {
namespace {

using google::protobuf::Message;

// An arena freed with its scope.
struct Arena {
  pbc_arena a;
  Arena() { pbc_arena_init(&a, nullptr, 0); }
  ~Arena() { pbc_arena_destroy(&a); }
  Arena(const Arena &) = delete;
  Arena &operator=(const Arena &) = delete;
};

// A message pbc decoded from its own copy of the input (so a test can
// scribble over the input and free it).
struct Decoded {
  std::unique_ptr<uint8_t[]> input;
  Arena arena;
  void *m = nullptr;
};

bool Decode(const pbc_message_info *info, const std::string &bytes, Decoded *out,
            std::string *why) {
  out->input.reset(new uint8_t[bytes.size() + 1]);
  memcpy(out->input.get(), bytes.data(), bytes.size());
  out->m = pbc_message_new(info, &out->arena.a);
  // ParsePartialFromString's counterpart: the reference parses that way.
  pbc_decode_options partial = {0, true, false};
  pbc_status s = out->m ? pbc_decode(info, out->m, out->input.get(), bytes.size(),
                                     &out->arena.a, &partial)
                        : PBC_ERR_OUT_OF_MEMORY;
  if (s != PBC_OK) *why = std::string("decoding an input: ") + pbc_status_str(s);
  return s == PBC_OK;
}

std::string Encode(const pbc_message_info *info, const void *m) {
  std::string out(pbc_message_encoded_size(info, m), '\0');
  size_t written = 0;
  pbc_message_encode(info, m, reinterpret_cast<uint8_t *>(out.data()), out.size(), &written);
  out.resize(written);
  return out;
}

class OpsChecker {
 public:
  OpsChecker(const OpsReference &ref, const pbc_message_info *info, std::string *why)
      : ref_(ref), info_(info), why_(why) {}

  std::unique_ptr<Message> Lib(const std::string &bytes) {
    std::unique_ptr<Message> m(ref_.prototype->New());
    if (!m->ParsePartialFromString(bytes)) return nullptr;
    ref_.normalize(m.get());
    return m;
  }

  bool Fail(const std::string &what) {
    *why_ = what;
    return false;
  }

  bool Equal(size_t i, size_t j, const std::string &a, const std::string &b) {
    std::unique_ptr<Message> la = Lib(a), lb = Lib(b);
    if (!la || !lb) return Fail("harness error: libprotobuf cannot parse an input");
    Decoded pa, pb;
    if (!Decode(info_, a, &pa, why_) || !Decode(info_, b, &pb, why_)) return false;
    using google::protobuf::util::MessageDifferencer;
    const std::pair<const Message *, const void *> sides[2] = {{la.get(), pa.m}, {lb.get(), pb.m}};
    for (int x = 0; x < 2; x++) {
      for (int y = 0; y < 2; y++) {
        bool want = MessageDifferencer::Equals(*sides[x].first, *sides[y].first);
        bool got = pbc_message_equal(info_, sides[x].second, sides[y].second, ref_.equal_options);
        if (got != want)
          return Fail("pbc_message_equal(input " + std::to_string(x ? j : i) + ", input " +
                      std::to_string(y ? j : i) + ") is " + (got ? "true" : "false") +
                      ", MessageDifferencer::Equals says " + (want ? "true" : "false"));
      }
    }
    return true;
  }

  // pbc's message m (encoded: `bytes`) is libprotobuf's `lib` (`want`, as
  // `serialize` writes it): compared as bytes read back, then through the
  // description (the same values, map entries counted: a key pbc merged in
  // twice reads back as one).
  bool Matches(const std::string &op, const std::string &lib_op, const Message &lib,
               const std::string &want, const void *m, const std::string &bytes,
               const std::string &at) {
    std::unique_ptr<Message> back = Lib(bytes);
    if (!back) return Fail("libprotobuf cannot parse the bytes of " + op + "'s message" + at);
    std::string got = ref_.serialize(*back);
    if (got != want)
      return Fail(op + "'s message is not " + lib_op + "'s" + at + ": " +
                  std::to_string(got.size()) + " bytes read back, libprotobuf's " +
                  std::to_string(want.size()));
    std::string differs;
    if (!DecodedMatches(lib, info_, m, &differs))
      return Fail(op + "'s message holds other values than " + lib_op + "'s" + at + ": " +
                  differs);
    return true;
  }

  // MergeFrom(b) into a, then b's input and arena freed: a's bytes stay.
  bool Merge(size_t i, size_t j, const std::string &a, const std::string &b) {
    std::unique_ptr<Message> la = Lib(a), lb = Lib(b);
    if (!la || !lb) return Fail("harness error: libprotobuf cannot parse an input");
    la->MergeFrom(*lb);
    ref_.normalize(la.get());
    std::string want = ref_.serialize(*la);
    std::string at = " (merging input " + std::to_string(j) + " into input " + std::to_string(i) + ")";
    Decoded pa;
    std::string merged;
    if (!Decode(info_, a, &pa, why_)) return false;
    {
      Decoded pb;
      if (!Decode(info_, b, &pb, why_)) return false;
      std::string b_before = Encode(info_, pb.m);
      pbc_status s = pbc_message_merge(info_, pa.m, pb.m, &pa.arena.a);
      if (s != PBC_OK) return Fail(std::string("pbc_message_merge: ") + pbc_status_str(s) + at);
      if (Encode(info_, pb.m) != b_before) return Fail("pbc_message_merge changed its source" + at);
      merged = Encode(info_, pa.m);
      memset(pb.input.get(), 0xa5, b.size());
    }
    if (Encode(info_, pa.m) != merged)
      return Fail("the merged message changed when its source's input and arena went" + at);
    return Matches("pbc_message_merge", "MergeFrom", *la, want, pa.m, merged, at);
  }

  // MergePartialFromCodedStream (MergeFromString without the required
  // check) of b into a, where b is an input as given (not
  // pbc's canonical re-encoding: explicit proto3 zeros, overlong varints,
  // repeated fields split, a message written twice). pbc merges into a
  // shallow copy of a's struct, which must leave everything a points to as
  // it was, with its input copied (copy_input) and then scribbled over; and
  // with the required-field check, fails exactly when the result is
  // incomplete.
  // Where DynamicMessage reads the input as given otherwise than generated
  // code does (ref_.dynamic_differs), pbc's re-encoding `canonical` is
  // merged instead.
  std::unique_ptr<Message> LibMerged(const std::string &a, const std::string &b) {
    std::unique_ptr<Message> m = Lib(a);
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t *>(b.data()),
                                              static_cast<int>(b.size()));
    if (!m || !m->MergePartialFromCodedStream(&in) || !in.ConsumedEntireMessage()) return nullptr;
    return m;
  }

  bool MergeDecode(size_t i, size_t j, const std::string &a, const std::string &given,
                   const std::string &canonical) {
    std::string at = " (decoding input " + std::to_string(j) + " as given into input " +
                     std::to_string(i) + ")";
    const std::string *bp = &given;
    std::unique_ptr<Message> la = LibMerged(a, given);
    if (la && ref_.dynamic_differs(*la)) {
      bp = &canonical;
      at = " (decoding pbc's encoding of input " + std::to_string(j) + " into input " +
           std::to_string(i) + ")";
      la = LibMerged(a, canonical);
    }
    if (!la) return Fail("harness error: libprotobuf cannot merge an input" + at);
    const std::string &b = *bp;
    bool complete = la->IsInitialized();
    ref_.normalize(la.get());
    // Read back as pbc's bytes are: libprotobuf keeps a closed enum's
    // undeclared value from a packed run as the 64-bit varint read, and the
    // next parse, a record of its own, as the int32 sign-extended.
    std::unique_ptr<Message> reread = Lib(ref_.serialize(*la));
    if (!reread) return Fail("harness error: libprotobuf cannot parse its own output" + at);
    std::string want = ref_.serialize(*reread);
    Decoded pa;
    if (!Decode(info_, a, &pa, why_)) return false;
    std::string before = Encode(info_, pa.m);
    void *target = pbc_message_new(info_, &pa.arena.a);
    void *checked = pbc_message_new(info_, &pa.arena.a);
    if (!target || !checked) return Fail("out of arena memory" + at);
    memcpy(target, pa.m, info_->struct_size);
    memcpy(checked, pa.m, info_->struct_size);
    std::unique_ptr<uint8_t[]> input(new uint8_t[b.size() + 1]);
    memcpy(input.get(), b.data(), b.size());
    pbc_decode_options partial = {0, true, true};
    pbc_status s = pbc_merge_decode(info_, target, input.get(), b.size(), &pa.arena.a, &partial);
    if (s != PBC_OK) return Fail(std::string("pbc_merge_decode: ") + pbc_status_str(s) + at);
    pbc_status whole = pbc_merge_decode(info_, checked, input.get(), b.size(), &pa.arena.a, nullptr);
    if (whole != (complete ? PBC_OK : PBC_ERR_MISSING_REQUIRED))
      return Fail(std::string("pbc_merge_decode with the required-field check: ") +
                  pbc_status_str(whole) + ", but the merged message is " +
                  (complete ? "complete" : "incomplete") + at);
    memset(input.get(), 0xa5, b.size());
    if (Encode(info_, pa.m) != before)
      return Fail("pbc_merge_decode wrote into what the message it merged into pointed to" + at);
    return Matches("pbc_merge_decode", "MergeFromString", *la, want, target,
                   Encode(info_, target), at);
  }

  // CopyFrom, then the source's input and arena gone; then Clear.
  bool CopyAndClear(const std::string &a) {
    Arena copy_arena;
    void *copy = pbc_message_new(info_, &copy_arena.a);
    std::string want;
    {
      Decoded pa;
      if (!Decode(info_, a, &pa, why_)) return false;
      want = Encode(info_, pa.m);
      // Something to replace: copy overwrites everything.
      Decoded other;
      if (!Decode(info_, a, &other, why_)) return false;
      pbc_status s = pbc_message_merge(info_, copy, other.m, &copy_arena.a);
      s = s != PBC_OK ? s : pbc_message_copy(info_, copy, pa.m, &copy_arena.a);
      if (s != PBC_OK) return Fail(std::string("pbc_message_copy: ") + pbc_status_str(s));
      memset(pa.input.get(), 0xa5, a.size());
      memset(other.input.get(), 0xa5, a.size());
    }
    if (Encode(info_, copy) != want)
      return Fail("pbc_message_copy's message encodes to other bytes than its source's");
    pbc_message_clear(info_, copy);
    if (pbc_message_encoded_size(info_, copy) != 0)
      return Fail("a message pbc_message_clear cleared encodes to " +
                  std::to_string(pbc_message_encoded_size(info_, copy)) + " bytes");
    void *fresh = pbc_message_new(info_, &copy_arena.a);
    if (!pbc_message_equal(info_, copy, fresh, ref_.equal_options))
      return Fail("a cleared message is not equal to a new one");
    return true;
  }

 private:
  const OpsReference &ref_;
  const pbc_message_info *info_;
  std::string *why_;
};

} // namespace

bool OpsMatch(const OpsReference &ref, const pbc_message_info *info,
              const std::vector<std::string> &given, std::string *why) {
  OpsChecker c(ref, info, why);
  if (given.empty()) return true;
  // Both sides read pbc's encoding of each input: what pbc decoded is
  // checked elsewhere, and where libprotobuf's two parsers disagree (a
  // closed enum's undeclared value in a packed run kept as 32 or 64 bits)
  // DynamicMessage would be no reference. pbc's encoding keeps what makes
  // an input non-canonical where it matters here: map order and raw
  // unknown fields.
  std::vector<std::string> inputs;
  for (const std::string &in : given) {
    Decoded p;
    if (!Decode(info, in, &p, why)) return false;
    inputs.push_back(Encode(info, p.m));
  }
  if (!c.CopyAndClear(inputs[0])) return false;
  // The first against each (itself included), and each later one against
  // the one before it (an encoding and its reordered unknown fields); merges
  // of the first with itself and with the next two, both ways.
  for (size_t j = 0; j < inputs.size(); j++) {
    if (!c.Equal(0, j, inputs[0], inputs[j])) return false;
    if (j >= 2 && !c.Equal(j - 1, j, inputs[j - 1], inputs[j])) return false;
    if (j <= 2 && !c.Merge(0, j, inputs[0], inputs[j])) return false;
    if (j >= 1 && j <= 2 && !c.Merge(j, 0, inputs[j], inputs[0])) return false;
    // Each input as given decoded into the first and into the second (the
    // last one, a variant of the first: its explicit zeros then clear
    // fields the second sets).
    if (!c.MergeDecode(0, j, inputs[0], given[j], inputs[j])) return false;
    if (inputs.size() > 1 && (j == 0 || j + 1 == inputs.size()) &&
        !c.MergeDecode(1, j, inputs[1], given[j], inputs[j]))
      return false;
  }
  return true;
}

} // namespace pbc_test
