// The C++ header (pbc compile --cpp-header) over the all-types schemas:
// alltypes.pbc.hpp and alltypes2.pbc.hpp both carry imported.proto, so
// including both checks that its block appears once. Built with -std=c++17
// -Wall -Wextra -Werror by cpp-header.test; prints what it checked and
// exits non-zero on the first mismatch.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "alltypes.pbc.hpp"
#include "alltypes2.pbc.hpp"

static int failures = 0;
#define EXPECT(cond)                                                          \
  do {                                                                        \
    if (!(cond)) {                                                            \
      std::printf("FAILED line %d: %s\n", __LINE__, #cond);                   \
      failures++;                                                             \
    }                                                                         \
  } while (0)

static_assert(std::is_same_v<e2e::p3::AllTypes, e2e_p3_AllTypes>);
static_assert(std::is_same_v<e2e::p3::AllTypes_Nested, e2e_p3_AllTypes_Nested>);
static_assert(std::is_same_v<e2e::p3::AllTypes_NestedEnum, e2e_p3_AllTypes_NestedEnum>);
static_assert(std::is_same_v<e2e::imp::Imported, e2e_imp_Imported>);
static_assert(std::is_same_v<e2e::p2::Tree2_Leaf, e2e_p2_Tree2_Leaf>);

static void proto3() {
  using e2e::p3::AllTypes;
  std::vector<std::int32_t> sints = {0, -1, INT32_MIN, INT32_MAX};
  std::vector<double> doubles = {0.5, -1e300};
  std::vector<pbc_str> strings = {pbc::str("a"), pbc::str(""), pbc::str("\xc3\xa9")};
  const std::uint8_t raw[] = {0, 0xff};
  auto nested = pbc::make<e2e::p3::AllTypes_Nested>();
  nested.a = -5;
  nested.kind = e2e_p3_AllTypes_NestedEnum_NEG;

  auto m = pbc::make<AllTypes>();
  m.f_int64 = INT64_MIN;
  m.f_string = pbc::str("hello");
  m.f_bytes = pbc::bytes(raw);
  m.f_top_enum = e2e_p3_TopEnum_TOP_MIN;
  m.f_nested = &nested;
  e2e_p3_AllTypes_set_o_bool(&m, false);
  pbc::assign(m.r_sint32, pbc::span<std::int32_t>(sints));
  pbc::assign(m.r_double, pbc::span<double>(doubles));
  pbc::assign(m.r_string, pbc::span<pbc_str>(strings));
  EXPECT(pbc::is_initialized(m));
  EXPECT(std::strcmp(pbc::message_traits<AllTypes>::full_name, "e2e.p3.AllTypes") == 0);
  EXPECT(&pbc::info<AllTypes>() == &e2e_p3_AllTypes_info);

  pbc::result<std::string> bytes = pbc::encode_to_string(m);
  EXPECT(bytes.ok() && bytes->size() == pbc::encoded_size(m));
  std::printf("AllTypes: %zu bytes\n", bytes.value().size());
  pbc::result<std::string> json = pbc::to_json(m);
  EXPECT(json.ok());
  std::printf("AllTypes JSON: %s\n", json.value().c_str());
  {
    // Read back, it prints the same; a bad member says where.
    pbc::arena json_arena;
    AllTypes from;
    EXPECT(pbc::from_json(from, *json, json_arena) == PBC_OK);
    EXPECT(pbc::equal(from, m));
    pbc::result<std::string> again = pbc::to_json(from);
    EXPECT(again.ok() && *again == *json);
    pbc_json_error error;
    EXPECT(pbc::from_json(from, "{\"fInt32\": true}", json_arena, nullptr, &error) ==
           PBC_ERR_JSON_SYNTAX);
    EXPECT(error.offset == 11);
    std::printf("from_json: %s\n", error.message);
  }

  // Decode from the std::string (as a string_view) and from bytes (span).
  std::uint8_t block[4096];
  pbc::arena arena(block, sizeof block);
  pbc::result<AllTypes> back = pbc::parse<AllTypes>(*bytes, arena);
  EXPECT(back.ok());
  EXPECT(back->f_int64 == INT64_MIN);
  EXPECT(pbc::view(back->f_string) == "hello");
  pbc::span<const std::uint8_t> b = pbc::view(back->f_bytes);
  EXPECT(b.size() == 2 && b[0] == 0 && b[1] == 0xff);
  EXPECT(back->f_top_enum == e2e_p3_TopEnum_TOP_MIN);
  EXPECT(back->f_nested && back->f_nested->a == -5 &&
         back->f_nested->kind == e2e_p3_AllTypes_NestedEnum_NEG);
  EXPECT(e2e_p3_AllTypes_has_o_bool(&*back) && !back->o_bool);
  std::vector<std::int32_t> sints_back;
  for (std::int32_t v : pbc::view(back->r_sint32))
    sints_back.push_back(v);
  EXPECT(sints_back == sints);
  EXPECT(pbc::view(back->r_double).size() == 2 && pbc::view(back->r_double)[1] == -1e300);
  auto strs = pbc::view(back->r_string);
  EXPECT(strs.size() == 3 && pbc::view(strs[0]) == "a" &&
         pbc::view(strs[1]).empty() && pbc::view(strs[2]) == "\xc3\xa9");

  std::vector<std::uint8_t> copy(bytes->begin(), bytes->end());
  AllTypes again;
  EXPECT(pbc::decode(again, pbc::span<const std::uint8_t>(copy), arena) == PBC_OK);
  std::vector<std::uint8_t> out(copy.size());
  pbc::result<std::size_t> n = pbc::encode(again, out);
  EXPECT(n.ok() && *n == copy.size() && out == copy);

  // Failures come back as statuses.
  pbc::result<AllTypes> bad = pbc::parse<AllTypes>(std::string_view("\x08", 1), arena);
  EXPECT(!bad && bad.status() == PBC_ERR_TRUNCATED);
  std::printf("truncated: %s\n", bad.error());
  std::uint8_t small[2];
  EXPECT(pbc::encode(m, small).status() == PBC_ERR_BUFFER_TOO_SMALL);

  // encode_at_end: the same bytes, a view of the end of a larger buffer.
  std::vector<std::uint8_t> scratch(copy.size() + 100);
  pbc::result<pbc::span<std::uint8_t>> tail = pbc::encode_at_end(again, scratch);
  EXPECT(tail.ok() && tail->size() == copy.size() &&
         tail->data() + tail->size() == scratch.data() + scratch.size() &&
         std::vector<std::uint8_t>(tail->begin(), tail->end()) == copy);
  EXPECT(pbc::encode_at_end(m, small).status() == PBC_ERR_BUFFER_TOO_SMALL);

  // merge_decode (MergeFromString) into a copy of again's struct: explicit
  // zeros overwrite (f_int64 = 0, f_string = ""), f_nested { a: 9 } merges
  // into the one there, r_sint32 gets one more (packed: 1); nothing again
  // points to changes.
  const std::uint8_t more[] = {0x10, 0x00, 0x72, 0x00, 0x92, 0x01, 0x02, 0x08,
                               0x09, 0xea, 0x02, 0x01, 0x02};
  AllTypes merged = again;
  EXPECT(pbc::merge_decode(merged, pbc::span<const std::uint8_t>(more), arena) == PBC_OK);
  EXPECT(merged.f_int64 == 0 && pbc::view(merged.f_string).empty());
  EXPECT(merged.f_nested && merged.f_nested != again.f_nested && merged.f_nested->a == 9 &&
         merged.f_nested->kind == e2e_p3_AllTypes_NestedEnum_NEG);
  EXPECT(pbc::view(merged.r_sint32).size() == sints.size() + 1 &&
         pbc::view(merged.r_sint32)[sints.size()] == 1 &&
         pbc::view(merged.r_sint32)[0] == sints[0]);
  EXPECT(again.f_nested->a == -5 && pbc::view(again.r_sint32).size() == sints.size());
  EXPECT(pbc::merge_decode(merged, std::string_view("\x92", 1), arena) == PBC_ERR_TRUNCATED);

  // Compare, copy, merge, clear.
  AllTypes twin;
  EXPECT(pbc::copy(twin, again, arena) == PBC_OK && pbc::equal(twin, again));
  EXPECT(pbc::merge(twin, again, arena) == PBC_OK && !pbc::equal(twin, again));
  EXPECT(pbc::view(twin.r_sint32).size() == 2 * pbc::view(again.r_sint32).size());
  pbc::clear(twin);
  EXPECT(pbc::encoded_size(twin) == 0 && pbc::equal(twin, pbc::make<AllTypes>()));
  arena.reset();

  pbc::arena capped;
  capped.set_max_bytes(16);
  std::vector<AllTypes> many(64, m);
  AllTypes list = pbc::make<AllTypes>();
  pbc::assign(list.recursive_list, pbc::span<AllTypes>(many));
  pbc::result<std::string> big = pbc::encode_to_string(list);
  EXPECT(big.ok());
  pbc::result<AllTypes> oom = pbc::parse<AllTypes>(*big, capped);
  EXPECT(oom.status() == PBC_ERR_ARENA_LIMIT);
  std::printf("capped arena: %s\n", oom.error());
}

static void proto2() {
  using e2e::p2::WithRequired;
  auto sub = pbc::make<e2e::p2::Sub>();
  EXPECT(sub.a == 7 && pbc::view(sub.b) == "sub"); // proto2 defaults
  auto m = pbc::make<WithRequired>();
  EXPECT(!pbc::is_initialized(m));
  e2e_p2_WithRequired_set_id(&m, -1);
  e2e_p2_WithRequired_set_data(&m, pbc::bytes(pbc::span<const std::uint8_t>()));
  m.sub = &sub; // message fields: non-null = present
  EXPECT(pbc::is_initialized(m));
  pbc::result<std::string> bytes = pbc::encode_to_string(m);
  EXPECT(bytes.ok());
  pbc::arena arena;
  pbc::result<WithRequired> back = pbc::parse<WithRequired>(*bytes, arena);
  EXPECT(back.ok() && back->id == -1 && back->sub && back->sub->a == 7);
  // Without its required `sub`, decoding reports it.
  pbc::result<WithRequired> partial =
      pbc::parse<WithRequired>(bytes->substr(0, bytes->size() - 2), arena);
  std::printf("missing required: %s\n", partial.error());
  EXPECT(partial.status() == PBC_ERR_MISSING_REQUIRED);
}

int main() {
  proto3();
  proto2();
  std::printf("%s\n", failures ? "FAILED" : "ok");
  return failures != 0;
}
