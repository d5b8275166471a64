// MatchSortKey on the comparators JAX and XLA write, and SortByKey against
// the reference evaluator's sort of the same keys (with an iota carried
// along: the permutation, element for element).
#include "backends/cpu/sort_keys.h"

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/ir/literal.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace cpu {
namespace {

// JAX's comparator for jnp.sort of floats: NaNs and -0 canonicalized, then
// a total order.
constexpr char kJaxLess[] = R"(
  ne.2 = pred[] compare(a, a), direction=NE
  qnan = $T[] constant(nan)
  zero = $T[] constant(0)
  eq.2 = pred[] compare(a, zero), direction=EQ
  s.4 = $T[] select(eq.2, zero, a)
  s.5 = $T[] select(ne.2, qnan, s.4)
  ne.3 = pred[] compare(b, b), direction=NE
  eq.3 = pred[] compare(b, zero), direction=EQ
  s.6 = $T[] select(eq.3, zero, b)
  s.7 = $T[] select(ne.3, qnan, s.6)
  ROOT lt = pred[] compare(s.5, s.7), direction=$DIR, type=TOTALORDER)";

// A sort of $T[$N] keys carrying an s32 iota, by the comparator `body`
// (over a, b: the keys; i, j: the iota).
std::string SortModule(const std::string& type, int64_t n, const std::string& body,
                       const std::string& direction = "LT") {
  const std::string text = absl::StrCat(R"(
HloModule m
less {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3))",
                                        body, R"(
}
ENTRY e {
  x = $T[$N] parameter(0)
  idx = s32[$N] iota(), iota_dimension=0
  ROOT s = ($T[$N], s32[$N]) sort(x, idx), dimensions={0}, is_stable=true, to_apply=less
}
)");
  return absl::StrReplaceAll(text, {{"$T", type}, {"$N", absl::StrCat(n)}, {"$DIR", direction}});
}

std::optional<SortKey> Match(const std::string& text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return std::nullopt;
  const HloInstruction* sort = (*module)->entry_computation()->root_instruction();
  return MatchSortKey(*sort->to_apply());
}

TEST(SortKeysTest, MatchesOrdersByOneKey) {
  std::optional<SortKey> key = Match(SortModule("f32", 4, kJaxLess));
  ASSERT_TRUE(key.has_value());
  EXPECT_EQ(key->operand, 0);
  EXPECT_FALSE(key->descending);
  EXPECT_TRUE(key->canonical);
  EXPECT_EQ(key->nan_bits, 0x7FC00000u);
  EXPECT_EQ(key->zero_bits, 0u);

  key = Match(SortModule("bf16", 4, kJaxLess, "GT"));
  ASSERT_TRUE(key.has_value());
  EXPECT_TRUE(key->descending);

  key = Match(SortModule("s32", 4, "\n  ROOT lt = pred[] compare(a, b), direction=LT"));
  ASSERT_TRUE(key.has_value());
  EXPECT_FALSE(key->canonical);

  // The carried operand's key; swapped sides (b < a: descending).
  key = Match(SortModule("u8", 4, "\n  ROOT lt = pred[] compare(j, i), direction=LT"));
  ASSERT_TRUE(key.has_value());
  EXPECT_EQ(key->operand, 1);
  EXPECT_TRUE(key->descending);

  key = Match(
      SortModule("f64", 4, "\n  ROOT gt = pred[] compare(a, b), direction=GT, type=TOTALORDER"));
  ASSERT_TRUE(key.has_value());
  EXPECT_TRUE(key->descending);
}

TEST(SortKeysTest, RefusesOtherComparators) {
  for (const std::string& body : {
           // A partial float order: NaNs are not ordered.
           std::string("\n  ROOT lt = pred[] compare(a, b), direction=LT"),
           std::string("\n  ROOT le = pred[] compare(a, b), direction=LE, type=TOTALORDER"),
           // Keys from two operands; one operand against itself.
           std::string("\n  ROOT lt = pred[] compare(a, a), direction=LT, type=TOTALORDER"),
           // One side canonical, the other not.
           std::string(R"(
  ne = pred[] compare(a, a), direction=NE
  qnan = f32[] constant(nan)
  zero = f32[] constant(0)
  eq = pred[] compare(a, zero), direction=EQ
  sa = f32[] select(eq, zero, a)
  sb = f32[] select(ne, qnan, sa)
  ROOT lt = pred[] compare(sb, b), direction=LT, type=TOTALORDER)"),
           // A select that is not the canonicalization.
           std::string(R"(
  one = f32[] constant(1)
  ne = pred[] compare(a, a), direction=NE
  s = f32[] select(ne, one, a)
  ne2 = pred[] compare(b, b), direction=NE
  t = f32[] select(ne2, one, b)
  ROOT lt = pred[] compare(s, t), direction=LT, type=TOTALORDER)"),
       }) {
    EXPECT_FALSE(Match(SortModule("f32", 4, body)).has_value()) << body;
  }
  // Integers compared in another signedness than their own.
  EXPECT_FALSE(Match(SortModule("s32", 4,
                                "\n  ROOT lt = pred[] compare(a, b), direction=LT, "
                                "type=UNSIGNED"))
                   .has_value());
  // Keys from the iota compared with the keys: i is parameter 2, a 0.
  EXPECT_FALSE(
      Match(SortModule("s32", 4, "\n  ROOT lt = pred[] compare(a, j), direction=LT")).has_value());
}

// Random keys of `bytes` bytes with many repeats, and for floats the
// special values (both zeros, both infinities, NaNs of both signs and
// other payloads) scattered among them.
std::vector<uint8_t> Keys(const std::string& type, int64_t n, int bytes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> data(n * bytes);
  std::vector<uint64_t> specials;
  if (type == "f32")
    specials = {0x0,        0x80000000, 0x7F800000, 0xFF800000,
                0x7FC00000, 0xFFC00000, 0x7F800001, 0x3F800000};
  if (type == "f64")
    specials = {0x0, 0x8000000000000000, 0x7FF0000000000000, 0xFFF8000000000000,
                0x7FF8000000000001};
  if (type == "bf16") specials = {0x0, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x3F80};
  if (type == "f16") specials = {0x0, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE01, 0x3C00};
  for (int64_t i = 0; i < n; ++i) {
    uint64_t v = rng();
    if (i % 3 == 0) v = rng() % 7;  // repeats
    if (!specials.empty()) {
      if (i % 5 == 0) v = specials[rng() % specials.size()];
      // Floats of moderate magnitude: keep the exponent in range.
      else if (type == "f32")
        v = (v & 0x807FFFFF) | (uint64_t{0x3C + rng() % 8} << 24);
    }
    std::memcpy(&data[i * bytes], &v, bytes);
  }
  return data;
}

void CheckAgainstEvaluator(const std::string& type, int bytes, PrimitiveType primitive,
                           const std::string& body, const std::string& direction, int64_t n) {
  const std::string text = SortModule(type, n, body, direction);
  SCOPED_TRACE(absl::StrCat(type, " ", direction, " n=", n, body));
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::optional<SortKey> key =
      MatchSortKey(*(*module)->entry_computation()->root_instruction()->to_apply());
  ASSERT_TRUE(key.has_value());
  const std::vector<uint8_t> keys = Keys(type, n, bytes, n);
  Literal argument(Shape(primitive, {n}));
  std::memcpy(argument.untyped_data(), keys.data(), keys.size());
  std::vector<Literal> arguments;
  arguments.push_back(std::move(argument));
  absl::StatusOr<Literal> expected = EvaluateModule(**module, arguments);
  ASSERT_TRUE(expected.ok()) << expected.status();
  const int32_t* permutation =
      static_cast<const int32_t*>(expected->tuple_element(1).untyped_data());

  std::vector<int64_t> order;
  SortByKey(*key, keys.data(), bytes, n, &order);
  ASSERT_EQ(static_cast<int64_t>(order.size()), n);
  int failures = 0;
  for (int64_t j = 0; j < n && failures < 5; ++j) {
    if (order[j] != permutation[j]) {
      ++failures;
      ADD_FAILURE() << "position " << j << ": " << order[j] << ", evaluator " << permutation[j];
    }
  }
}

TEST(SortKeysTest, SortsAsTheEvaluator) {
  const std::string raw_less = "\n  ROOT lt = pred[] compare(a, b), direction=$DIR";
  const std::string total = "\n  ROOT lt = pred[] compare(a, b), direction=$DIR, type=TOTALORDER";
  for (int64_t n : {1, 7, 255, 256, 1000, 5000}) {
    for (const std::string direction : {"LT", "GT"}) {
      CheckAgainstEvaluator("f32", 4, F32, kJaxLess, direction, n);
      CheckAgainstEvaluator("f32", 4, F32, total, direction, n);
      CheckAgainstEvaluator("s32", 4, S32, raw_less, direction, n);
      CheckAgainstEvaluator("u8", 1, U8, raw_less, direction, n);
      CheckAgainstEvaluator("s8", 1, S8, raw_less, direction, n);
      CheckAgainstEvaluator("s16", 2, S16, raw_less, direction, n);
      CheckAgainstEvaluator("u64", 8, U64, raw_less, direction, n);
      CheckAgainstEvaluator("s64", 8, S64, raw_less, direction, n);
      CheckAgainstEvaluator("f64", 8, F64, kJaxLess, direction, n);
      CheckAgainstEvaluator("bf16", 2, BF16, kJaxLess, direction, n);
      CheckAgainstEvaluator("f16", 2, F16, total, direction, n);
    }
  }
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
