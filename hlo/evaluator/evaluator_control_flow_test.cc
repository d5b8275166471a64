// Control flow and structure: while, conditional (predicate and index, an
// out-of-range index taking the last branch), call, fusion, map, tuple,
// get-tuple-element, opt-barrier, after-all and tokens, add-dependency,
// async pairs.
#include <atomic>
#include <chrono>
#include <thread>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator_test_util.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace evaluator_test {
namespace {

TEST(EvaluatorControlFlowTest, WhileCountsToALimit) {
  // Sums 1..10 with a counter in a (s32[], f32[]) tuple.
  constexpr absl::string_view kModule = R"(
HloModule m

cond {
  s = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = f32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  x = f32[] convert(next)
  sum = f32[] add(acc, x)
  ROOT t = (s32[], f32[]) tuple(next, sum)
}

ENTRY main {
  start = s32[] parameter(0)
  zero = f32[] constant(0)
  init = (s32[], f32[]) tuple(start, zero)
  ROOT w = (s32[], f32[]) while(init), condition=cond, body=body
}
)";
  EXPECT_EVAL(ParseAndEvaluate(kModule, {L("s32[]", "0")}),
              Literal::MakeTuple({L("s32[]", "10"), L("f32[]", "55")}));
  // The condition is false at once: the body never runs.
  EXPECT_EVAL(ParseAndEvaluate(kModule, {L("s32[]", "12")}),
              Literal::MakeTuple({L("s32[]", "12"), L("f32[]", "0")}));
}

// A loop that would run for ages stops once its cancel flag is set (here
// by another thread, 50 ms in): before an instruction of the body or the
// condition, however deep in called computations.  Without the flag, or
// with it never set, the evaluation is unchanged.
TEST(EvaluatorControlFlowTest, CancelledEvaluationsStopBetweenInstructions) {
  constexpr absl::string_view kModule = R"(
HloModule m
cond {
  s = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(2147483647)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  ROOT t = (s32[], f32[]) tuple(add(i, one), sine(x))
}
ENTRY main {
  start = s32[] parameter(0)
  x = f32[] parameter(1)
  ROOT w = (s32[], f32[]) while(tuple(start, x)), condition=cond, body=body
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> arguments = {L("s32[]", "0"), L("f32[]", "1")};
  std::atomic<bool> cancelled{false};
  EvaluateOptions options;
  options.cancelled = &cancelled;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cancelled = true;
  });
  absl::StatusOr<Literal> result = EvaluateModule(**module, arguments, options);
  canceller.join();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled) << result.status();
  EXPECT_TRUE(absl::StrContains(result.status().message(), "cancelled before %"))
      << result.status();
  // A flag that stays false, and a finite loop, give the plain result.
  cancelled = false;
  std::vector<Literal> near_the_end = {L("s32[]", "2147483640"), L("f32[]", "0")};
  EXPECT_EVAL(EvaluateModule(**module, near_the_end, options),
              Literal::MakeTuple({L("s32[]", "2147483647"), L("f32[]", "0")}));
}

TEST(EvaluatorControlFlowTest, WhileOnAnArrayState) {
  // Doubles an array until its first element reaches 100.
  constexpr absl::string_view kModule = R"(
HloModule m

cond {
  x = f32[3] parameter(0)
  first = f32[1] slice(x), slice={[0:1]}
  f = f32[] reshape(first)
  limit = f32[] constant(100)
  ROOT lt = pred[] compare(f, limit), direction=LT
}

body {
  x = f32[3] parameter(0)
  ROOT d = f32[3] add(x, x)
}

ENTRY main {
  p = f32[3] parameter(0)
  ROOT w = f32[3] while(p), condition=cond, body=body
}
)";
  EXPECT_EVAL(ParseAndEvaluate(kModule, {L("f32[3]", "{3, -1, 0.5}")}),
              L("f32[3]", "{192, -64, 32}"));
}

constexpr absl::string_view kBranches = R"(
negate_branch {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}
double_branch {
  x = f32[2] parameter(0)
  ROOT d = f32[2] add(x, x)
}
square_branch {
  x = f32[2] parameter(0)
  ROOT s = f32[2] multiply(x, x)
}
)";

TEST(EvaluatorControlFlowTest, ConditionalOnAPredicate) {
  // true runs the first (true) computation, false the second.
  const Literal x = L("f32[2]", "{3, -2}");
  EXPECT_EVAL(EvaluateRoot("f32[2] conditional(p0, p1, p1), true_computation=negate_branch, "
                           "false_computation=double_branch",
                           {L("pred[]", "true"), x}, kBranches),
              L("f32[2]", "{-3, 2}"));
  EXPECT_EVAL(EvaluateRoot("f32[2] conditional(p0, p1, p1), true_computation=negate_branch, "
                           "false_computation=double_branch",
                           {L("pred[]", "false"), x}, kBranches),
              L("f32[2]", "{6, -4}"));
}

TEST(EvaluatorControlFlowTest, ConditionalOnAnIndexTakesTheLastBranchWhenOutOfRange) {
  const Literal x = L("f32[2]", "{3, -2}");
  auto run = [&](absl::string_view index) {
    return EvaluateRoot("f32[2] conditional(p0, p1, p1, p1), "
                        "branch_computations={negate_branch, double_branch, square_branch}",
                        {L("s32[]", index), x}, kBranches);
  };
  EXPECT_EVAL(run("0"), L("f32[2]", "{-3, 2}"));
  EXPECT_EVAL(run("1"), L("f32[2]", "{6, -4}"));
  EXPECT_EVAL(run("2"), L("f32[2]", "{9, 4}"));
  // Out of range, either way: the last branch (N-1).
  EXPECT_EVAL(run("3"), L("f32[2]", "{9, 4}"));
  EXPECT_EVAL(run("-1"), L("f32[2]", "{9, 4}"));
  EXPECT_EVAL(run("2147483647"), L("f32[2]", "{9, 4}"));
}

TEST(EvaluatorControlFlowTest, ConditionalBranchesTakeTheirOwnOperands) {
  constexpr absl::string_view kModule = R"(
HloModule m

to_f32 {
  x = s32[] parameter(0)
  ROOT c = f32[] convert(x)
}

from_tuple {
  t = (f32[], f32[]) parameter(0)
  a = f32[] get-tuple-element(t), index=0
  b = f32[] get-tuple-element(t), index=1
  ROOT s = f32[] subtract(a, b)
}

ENTRY main {
  i = s32[] parameter(0)
  x = s32[] constant(7)
  a = f32[] constant(1.5)
  b = f32[] constant(4)
  t = (f32[], f32[]) tuple(a, b)
  ROOT c = f32[] conditional(i, x, t), branch_computations={to_f32, from_tuple}
}
)";
  EXPECT_EVAL(ParseAndEvaluate(kModule, {L("s32[]", "0")}), L("f32[]", "7"));
  EXPECT_EVAL(ParseAndEvaluate(kModule, {L("s32[]", "1")}), L("f32[]", "-2.5"));
  EXPECT_EVAL(ParseAndEvaluate(kModule, {L("s32[]", "5")}), L("f32[]", "-2.5"));
}

TEST(EvaluatorControlFlowTest, CallAndFusionRunTheirComputations) {
  constexpr absl::string_view kComputations = R"(
fma {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  c = f32[3] parameter(2)
  m = f32[3] multiply(a, b)
  ROOT s = f32[3] add(m, c)
}
)";
  const Literal a = L("f32[3]", "{1, 2, 3}");
  const Literal b = L("f32[3]", "{4, 5, 6}");
  const Literal c = L("f32[3]", "{0.5, -10, 0}");
  EXPECT_EVAL(EvaluateRoot("f32[3] call(p0, p1, p2), to_apply=fma", {a, b, c}, kComputations),
              L("f32[3]", "{4.5, 0, 18}"));
  EXPECT_EVAL(EvaluateRoot("f32[3] fusion(p0, p1, p2), kind=kLoop, calls=fma", {a, b, c},
                           kComputations),
              L("f32[3]", "{4.5, 0, 18}"));
}

TEST(EvaluatorControlFlowTest, MultiOutputFusionAndNestedCalls) {
  constexpr absl::string_view kModule = R"(
HloModule m

inner {
  x = s32[] parameter(0)
  ROOT n = s32[] negate(x)
}

fused {
  p = s32[2] parameter(0)
  r = s32[2] reverse(p), dimensions={0}
  m = s32[2] multiply(p, r)
  ROOT t = (s32[2], s32[2]) tuple(r, m)
}

ENTRY main {
  x = s32[2] parameter(0)
  f = (s32[2], s32[2]) fusion(x), kind=kLoop, calls=fused
  m = s32[2] get-tuple-element(f), index=1
  s = s32[] constant(5)
  c = s32[] call(s), to_apply=inner
  b = s32[2] broadcast(c), dimensions={}
  ROOT out = s32[2] add(m, b)
}
)";
  EXPECT_EVAL(ParseAndEvaluate(kModule, {L("s32[2]", "{3, 4}")}), L("s32[2]", "{7, 7}"));
}

TEST(EvaluatorControlFlowTest, MapAppliesPerElement) {
  constexpr absl::string_view kComputations = R"(
clamp01 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  s = f32[] add(x, y)
  zero = f32[] constant(0)
  one = f32[] constant(1)
  ROOT c = f32[] clamp(zero, s, one)
}
to_s32 {
  x = f32[] parameter(0)
  ROOT c = s32[] convert(x)
}
)";
  EXPECT_EVAL(EvaluateRoot("f32[2,2] map(p0, p1), dimensions={0,1}, to_apply=clamp01",
                           {L("f32[2,2]", "{ { 0.25, 2 }, { -3, 0.5 } }"),
                            L("f32[2,2]", "{ { 0.5, 0 }, { 1, 0.25 } }")},
                           kComputations),
              L("f32[2,2]", "{ { 0.75, 1 }, { 0, 0.75 } }"));
  EXPECT_EVAL(EvaluateRoot("s32[3] map(p0), dimensions={0}, to_apply=to_s32",
                           {L("f32[3]", "{-1.5, 2.5, 1e10}")}, kComputations),
              L("s32[3]", "{-1, 2, 2147483647}"));
  EXPECT_EVAL(EvaluateRoot("s32[0] map(p0), dimensions={0}, to_apply=to_s32", {L("f32[0]", "{}")},
                           kComputations),
              L("s32[0]", "{}"));
}

TEST(EvaluatorControlFlowTest, TuplesAndGetTupleElement) {
  constexpr absl::string_view kModule = R"(
HloModule m

ENTRY main {
  a = f32[2] parameter(0)
  b = s32[] parameter(1)
  inner = (f32[2], s32[]) tuple(a, b)
  empty = () tuple()
  outer = ((f32[2], s32[]), (), s32[]) tuple(inner, empty, b)
  g = (f32[2], s32[]) get-tuple-element(outer), index=0
  x = f32[2] get-tuple-element(g), index=0
  y = s32[] get-tuple-element(outer), index=2
  ROOT r = (s32[], f32[2], ()) tuple(y, x, empty)
}
)";
  EXPECT_EVAL(ParseAndEvaluate(kModule, {L("f32[2]", "{1, 2}"), L("s32[]", "9")}),
              Literal::MakeTuple({L("s32[]", "9"), L("f32[2]", "{1, 2}"), Literal()}));
}

TEST(EvaluatorControlFlowTest, TupleParameters) {
  constexpr absl::string_view kModule = R"(
HloModule m

ENTRY main {
  p = (f32[2], (s32[], pred[])) parameter(0)
  a = f32[2] get-tuple-element(p), index=0
  t = (s32[], pred[]) get-tuple-element(p), index=1
  ROOT b = pred[] get-tuple-element(t), index=1
}
)";
  Literal arg = Literal::MakeTuple(
      {L("f32[2]", "{1, 2}"), Literal::MakeTuple({L("s32[]", "3"), L("pred[]", "true")})});
  EXPECT_EVAL(ParseAndEvaluate(kModule, {arg}), L("pred[]", "true"));
}

TEST(EvaluatorControlFlowTest, OptimizationBarrierAndTokens) {
  constexpr absl::string_view kModule = R"(
HloModule m

ENTRY main {
  x = f32[2] parameter(0)
  tok = token[] parameter(1)
  a = token[] after-all()
  b = token[] after-all(tok, a)
  t = (f32[2], token[]) tuple(x, b)
  o = (f32[2], token[]) opt-barrier(t)
  y = f32[2] get-tuple-element(o), index=0
  d = f32[2] add-dependency(y, b)
  z = f32[2] multiply(d, d)
  ROOT r = (f32[2], token[]) tuple(z, b)
}
)";
  EXPECT_EVAL(ParseAndEvaluate(kModule, {L("f32[2]", "{3, -4}"), Literal::CreateToken()}),
              Literal::MakeTuple({L("f32[2]", "{9, 16}"), Literal::CreateToken()}));
}

TEST(EvaluatorControlFlowTest, AsyncPairRunsTheWrappedComputation) {
  constexpr absl::string_view kModule = R"(
HloModule m

wrapped {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}

ENTRY main {
  x = f32[2] parameter(0)
  start = ((f32[2]), f32[2], u32[]) async-start(x), calls=wrapped
  ROOT done = f32[2] async-done(start)
}
)";
  EXPECT_EVAL(ParseAndEvaluate(kModule, {L("f32[2]", "{1, -2}")}), L("f32[2]", "{-1, 2}"));
}

TEST(EvaluatorControlFlowTest, CopyStartAndDone) {
  constexpr absl::string_view kModule = R"(
HloModule m

ENTRY main {
  x = f32[2] parameter(0)
  start = (f32[2], f32[2], u32[]) copy-start(x)
  ROOT done = f32[2] copy-done(start)
}
)";
  EXPECT_EVAL(ParseAndEvaluate(kModule, {L("f32[2]", "{5, -0}")}), L("f32[2]", "{5, -0}"));
}

TEST(EvaluatorControlFlowTest, WhileConditionMustBePred) {
  constexpr absl::string_view kModule = R"(
HloModule m

cond {
  x = s32[] parameter(0)
  ROOT c = s32[] constant(1)
}

body {
  ROOT x = s32[] parameter(0)
}

ENTRY main {
  p = s32[] parameter(0)
  ROOT w = s32[] while(p), condition=cond, body=body
}
)";
  absl::StatusOr<Literal> result = ParseAndEvaluate(kModule, {L("s32[]", "0")});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("%w"), std::string::npos) << result.status();
  EXPECT_NE(result.status().message().find("pred"), std::string::npos) << result.status();
}

}  // namespace
}  // namespace evaluator_test
}  // namespace tessera
