// KnownTripCount on counted loops (each comparison, both operand orders,
// steps up and down, loops that never run), through fusions and copies as
// the CPU backend's modules have them, and its refusals.
#include "backends/cpu/while_trip_count.h"

#include <optional>
#include <string>

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace cpu {
namespace {

// A loop over (counter, f32 value): counter starts at $START, the body
// sets it to $NEXT (of `i`) and doubles the value, the condition is $COND
// (of `i`).
std::string Loop(const std::string& start, const std::string& next, const std::string& cond,
                 const std::string& type = "s32") {
  return absl::StrReplaceAll(R"(
HloModule m
body {
  p = ($T[], f32[]) parameter(0)
  i = $T[] get-tuple-element(p), index=0
  v = f32[] get-tuple-element(p), index=1
  two = f32[] constant(2)
  w = f32[] multiply(v, two)
  $NEXT
  ROOT t = ($T[], f32[]) tuple(n, w)
}
cond {
  p = ($T[], f32[]) parameter(0)
  i = $T[] get-tuple-element(p), index=0
  $COND
}
ENTRY e {
  start = $T[] constant($START)
  x = f32[] parameter(0)
  init = ($T[], f32[]) tuple(start, x)
  ROOT loop = ($T[], f32[]) while(init), condition=cond, body=body
}
)",
                             {{"$T", type}, {"$START", start}, {"$NEXT", next}, {"$COND", cond}});
}

std::optional<int64_t> TripCount(const std::string& text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return std::nullopt;
  return KnownTripCount(*(*module)->entry_computation()->root_instruction());
}

constexpr char kPlusOne[] = "one = s32[] constant(1)\n  n = s32[] add(i, one)";

TEST(WhileTripCountTest, CountedLoops) {
  const std::string lt10 =
      "ten = s32[] constant(10)\n  ROOT c = pred[] compare(i, ten), direction=LT";
  EXPECT_EQ(TripCount(Loop("0", kPlusOne, lt10)), 10);
  EXPECT_EQ(TripCount(Loop("-5", kPlusOne, lt10)), 15);
  EXPECT_EQ(TripCount(Loop("10", kPlusOne, lt10)), 0);
  EXPECT_EQ(TripCount(Loop("20", kPlusOne, lt10)), 0);
  // The step on either side of the add; the bound on either side of the
  // comparison.
  EXPECT_EQ(TripCount(Loop("0", "one = s32[] constant(1)\n  n = s32[] add(one, i)", lt10)), 10);
  EXPECT_EQ(TripCount(Loop("0", kPlusOne,
                           "ten = s32[] constant(10)\n  ROOT c = pred[] compare(ten, i), "
                           "direction=GT")),
            10);
  // i <= 10 from 3 by 2: 3, 5, 7, 9.
  EXPECT_EQ(TripCount(Loop("3", "two_ = s32[] constant(2)\n  n = s32[] add(i, two_)",
                           "ten = s32[] constant(10)\n  ROOT c = pred[] compare(i, ten), "
                           "direction=LE")),
            4);
  // Down: i > 0 from 10 by -1; i >= 0 from 10 by 3 (a subtract): 10, 7, 4, 1.
  EXPECT_EQ(TripCount(Loop("10", "m1 = s32[] constant(-1)\n  n = s32[] add(i, m1)",
                           "zero = s32[] constant(0)\n  ROOT c = pred[] compare(i, zero), "
                           "direction=GT")),
            10);
  EXPECT_EQ(TripCount(Loop("10", "three = s32[] constant(3)\n  n = s32[] subtract(i, three)",
                           "zero = s32[] constant(0)\n  ROOT c = pred[] compare(i, zero), "
                           "direction=GE")),
            4);
  // s64 counters, beyond 32 bits.
  EXPECT_EQ(TripCount(Loop("0", "one = s64[] constant(1)\n  n = s64[] add(i, one)",
                           "big = s64[] constant(5000000000)\n  ROOT c = pred[] compare(i, big), "
                           "direction=LT",
                           "s64")),
            5000000000);
}

TEST(WhileTripCountTest, RefusesOtherLoops) {
  const std::string lt10 =
      "ten = s32[] constant(10)\n  ROOT c = pred[] compare(i, ten), direction=LT";
  for (const std::string& text : {
           // The step leads away from the bound, or is zero.
           Loop("0", "m1 = s32[] constant(-1)\n  n = s32[] add(i, m1)", lt10),
           Loop("0", "z = s32[] constant(0)\n  n = s32[] add(i, z)", lt10),
           // Not a constant step; not an add.
           Loop("0", "n = s32[] add(i, i)", lt10),
           Loop("1", "two_ = s32[] constant(2)\n  n = s32[] multiply(i, two_)", lt10),
           // The last step would overflow: i <= INT32_MAX never ends.
           Loop("0", kPlusOne,
                "top = s32[] constant(2147483647)\n  ROOT c = pred[] compare(i, top), "
                "direction=LE"),
           // Not equal; a bound that is not a constant.
           Loop("0", kPlusOne,
                "ten = s32[] constant(10)\n  ROOT c = pred[] compare(i, ten), direction=NE"),
           Loop("0", kPlusOne, "ROOT c = pred[] compare(i, i), direction=LT"),
           // Unsigned comparison.
           Loop("0", kPlusOne,
                "ten = s32[] constant(10)\n  ROOT c = pred[] compare(i, ten), direction=LT, "
                "type=UNSIGNED"),
       }) {
    EXPECT_EQ(TripCount(text), std::nullopt) << text;
  }
  // u32 counters are left alone.
  EXPECT_EQ(TripCount(Loop("0", "one = u32[] constant(1)\n  n = u32[] add(i, one)",
                           "ten = u32[] constant(10)\n  ROOT c = pred[] compare(i, ten), "
                           "direction=LT",
                           "u32")),
            std::nullopt);
  // A counter that does not start at a constant.
  EXPECT_EQ(TripCount(R"(
HloModule m
body {
  p = (s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  n = s32[] add(i, one)
  ROOT t = (s32[]) tuple(n)
}
cond {
  p = (s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  ten = s32[] constant(10)
  ROOT c = pred[] compare(i, ten), direction=LT
}
ENTRY e {
  start = s32[] parameter(0)
  init = (s32[]) tuple(start)
  ROOT loop = (s32[]) while(init), condition=cond, body=body
}
)"),
            std::nullopt);
}

// As the CPU backend has the loop: the comparison in a fusion, the
// counter's step in a multi-output fusion, the start copied.
TEST(WhileTripCountTest, ThroughFusionsAndCopies) {
  EXPECT_EQ(TripCount(R"(
HloModule m
fused_compare {
  a = s32[] parameter(0)
  bound = s32[] constant(512)
  ROOT c = pred[] compare(a, bound), direction=LT
}
fused_steps {
  a = s32[] parameter(0)
  v = f32[] parameter(1)
  one = s32[] constant(1)
  n = s32[] add(a, one)
  two = f32[] constant(2)
  w = f32[] multiply(v, two)
  ROOT t = (s32[], f32[]) tuple(n, w)
}
body {
  p = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[] get-tuple-element(p), index=1
  steps = (s32[], f32[]) fusion(i, v), kind=kLoop, calls=fused_steps
  n = s32[] get-tuple-element(steps), index=0
  w = f32[] get-tuple-element(steps), index=1
  ROOT t = (s32[], f32[]) tuple(n, w)
}
cond {
  p = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  ROOT c = pred[] fusion(i), kind=kLoop, calls=fused_compare
}
ENTRY e {
  zero = s32[] constant(0)
  start = s32[] copy(zero)
  x = f32[] parameter(0)
  init = (s32[], f32[]) tuple(start, x)
  ROOT loop = (s32[], f32[]) while(init), condition=cond, body=body
}
)"),
            512);
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
