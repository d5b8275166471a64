// The evaluator's driver: parameters and constants, argument checks, layouts
// of results, EvaluateComputation, and the errors for what it cannot run
// (each naming the instruction).
#include "hlo/evaluator/hlo_evaluator.h"

#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator_test_util.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace evaluator_test {
namespace {

bool Contains(absl::string_view text, absl::string_view part) {
  return text.find(part) != absl::string_view::npos;
}

TEST(HloEvaluatorTest, ParametersAndConstants) {
  constexpr absl::string_view kModule = R"(
HloModule m

ENTRY main {
  a = f32[2,2] parameter(0)
  b = f32[2,2] parameter(1)
  c = f32[2,2] constant({ { 1, 2 }, { 3, 4 } })
  s = f32[2,2] subtract(a, b)
  ROOT r = f32[2,2] multiply(s, c)
}
)";
  EXPECT_EVAL(ParseAndEvaluate(kModule, {L("f32[2,2]", "{ { 5, 5 }, { 5, 5 } }"),
                                         L("f32[2,2]", "{ { 1, 2 }, { 3, 4 } }")}),
              L("f32[2,2]", "{ { 4, 6 }, { 6, 4 } }"));
}

TEST(HloEvaluatorTest, RootMayBeAParameterOrAConstant) {
  EXPECT_EVAL(ParseAndEvaluate("HloModule m\nENTRY main {\n  ROOT p = s32[2] parameter(0)\n}\n",
                               {L("s32[2]", "{7, 8}")}),
              L("s32[2]", "{7, 8}"));
  EXPECT_EVAL(ParseAndEvaluate("HloModule m\nENTRY main {\n  ROOT c = pred[] constant(true)\n}\n"),
              L("pred[]", "true"));
  // A root that is both used and returned.
  EXPECT_EVAL(ParseAndEvaluate(R"(
HloModule m
ENTRY main {
  c = (s32[], f32[]) constant((1, 2.5))
  ROOT t = ((s32[], f32[]), (s32[], f32[])) tuple(c, c)
}
)"),
              Literal::MakeTuple({Literal::MakeTuple({L("s32[]", "1"), L("f32[]", "2.5")}),
                                  Literal::MakeTuple({L("s32[]", "1"), L("f32[]", "2.5")})}));
}

TEST(HloEvaluatorTest, ValuesAreReusedAndTheModuleRunsTwice) {
  constexpr absl::string_view kModule = R"(
HloModule m

ENTRY main {
  a = s32[3] parameter(0)
  b = s32[3] add(a, a)
  c = s32[3] multiply(b, b)
  ROOT d = s32[3] subtract(c, b)
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> args;
  args.push_back(L("s32[3]", "{1, 2, 3}"));
  EXPECT_EVAL(EvaluateModule(**module, args), L("s32[3]", "{2, 12, 30}"));
  args[0] = L("s32[3]", "{0, -1, 10}");
  EXPECT_EVAL(EvaluateModule(**module, args), L("s32[3]", "{0, 6, 380}"));
}

TEST(HloEvaluatorTest, EvaluateComputationRunsAnyComputation) {
  constexpr absl::string_view kModule = R"(
HloModule m

helper {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT m = f32[] maximum(x, y)
}

ENTRY main {
  ROOT c = f32[] constant(0)
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  const HloComputation* helper = nullptr;
  for (const HloComputation* computation : (*module)->computations()) {
    if (computation->name() == "helper") helper = computation;
  }
  ASSERT_NE(helper, nullptr);
  std::vector<Literal> args;
  args.push_back(L("f32[]", "-2"));
  args.push_back(L("f32[]", "nan"));
  EXPECT_EVAL(EvaluateComputation(*helper, args), L("f32[]", "nan"));
}

TEST(HloEvaluatorTest, ArgumentCountShapeAndTypeAreChecked) {
  constexpr absl::string_view kModule = R"(
HloModule m

ENTRY main {
  x = f32[2] parameter(0)
  y = f32[2] parameter(1)
  ROOT r = f32[2] add(x, y)
}
)";
  absl::StatusOr<Literal> result = ParseAndEvaluate(kModule, {L("f32[2]", "{1, 2}")});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(result.status().message(), "takes 2 argument(s) but got 1"))
      << result.status();

  result = ParseAndEvaluate(kModule, {L("f32[2]", "{1, 2}"), L("f32[3]", "{1, 2, 3}")});
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(Contains(result.status().message(), "%y")) << result.status();
  EXPECT_TRUE(Contains(result.status().message(), "f32[3]")) << result.status();

  result = ParseAndEvaluate(kModule, {L("s32[2]", "{1, 2}"), L("f32[2]", "{1, 2}")});
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(Contains(result.status().message(), "%x")) << result.status();
  EXPECT_TRUE(Contains(result.status().message(), "s32[2]")) << result.status();
}

TEST(HloEvaluatorTest, ArgumentLayoutsAreMetadata) {
  // A column-major argument for a row-major parameter: same logical values.
  constexpr absl::string_view kModule = R"(
HloModule m

ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  ROOT t = f32[3,2]{0,1} transpose(x), dimensions={1,0}
}
)";
  absl::StatusOr<Literal> result =
      ParseAndEvaluate(kModule, {L("f32[2,3]{0,1}", "{ { 1, 2, 3 }, { 4, 5, 6 } }")});
  EXPECT_EVAL(result, L("f32[3,2]", "{ { 1, 4 }, { 2, 5 }, { 3, 6 } }"));
  // The result carries the declared layout.
  ASSERT_TRUE(result.ok());
  ASSERT_TRUE(result->shape().has_layout());
  EXPECT_EQ(result->shape().layout().minor_to_major, (std::vector<int64_t>{0, 1}));
}

TEST(HloEvaluatorTest, CustomCallWithAnUnknownTargetNamesTheInstruction) {
  absl::StatusOr<Literal> result = EvaluateRoot(
      "f32[2] custom-call(p0), custom_call_target=\"my_kernel\"", {L("f32[2]", "{1, 2}")});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(Contains(result.status().message(), "%r: custom-call target 'my_kernel'"))
      << result.status();
}

TEST(HloEvaluatorTest, ShardingAnnotationsPassTheirOperandThrough) {
  EXPECT_EVAL(EvaluateRoot("f32[2] custom-call(p0), custom_call_target=\"Sharding\", "
                           "sharding={replicated}",
                           {L("f32[2]", "{1, 2}")}),
              L("f32[2]", "{1, 2}"));
}

TEST(HloEvaluatorTest, SideEffectingOpsAreUnsupportedAndNamed) {
  const struct {
    absl::string_view body;
    absl::string_view expected;
  } kCases[] = {
      {R"(  tok = token[] after-all()
  ROOT in = ((f32[2], u32[]), token[]) infeed(tok)
)",
       "%in: infeed is not supported"},
      {R"(  x = f32[2] parameter(0)
  tok = token[] after-all()
  ROOT out = token[] outfeed(x, tok), outfeed_shape=f32[2]
)",
       "%out: outfeed is not supported"},
      {R"(  x = f32[2] parameter(0)
  tok = token[] after-all()
  ROOT s = (f32[2], u32[], token[]) send(x, tok), channel_id=1
)",
       "%s: send is not supported"},
      {R"(  tok = token[] after-all()
  ROOT r = (f32[2], u32[], token[]) recv(tok), channel_id=1
)",
       "%r: recv is not supported"},
      {R"(  lo = f32[] constant(0)
  hi = f32[] constant(1)
  ROOT r = f32[2] rng(lo, hi), distribution=rng_uniform
)",
       "%r: rng is not supported"},
  };
  for (const auto& c : kCases) {
    const std::string module = absl::StrCat("HloModule m\n\nENTRY main {\n", c.body, "}\n");
    std::vector<Literal> args;
    if (Contains(c.body, "parameter(0)")) args.push_back(L("f32[2]", "{1, 2}"));
    absl::StatusOr<Literal> result = ParseAndEvaluate(module, args);
    ASSERT_FALSE(result.ok()) << module;
    EXPECT_EQ(result.status().code(), absl::StatusCode::kUnimplemented) << result.status();
    EXPECT_TRUE(Contains(result.status().message(), c.expected))
        << result.status() << "\nexpected: " << c.expected;
  }
}

TEST(HloEvaluatorTest, ErrorsInsideCalledComputationsNameTheInnerInstruction) {
  constexpr absl::string_view kModule = R"(
HloModule m

inner {
  x = f32[2] parameter(0)
  ROOT bad = f32[2] custom-call(x), custom_call_target="nope"
}

ENTRY main {
  x = f32[2] parameter(0)
  ROOT c = f32[2] call(x), to_apply=inner
}
)";
  absl::StatusOr<Literal> result = ParseAndEvaluate(kModule, {L("f32[2]", "{1, 2}")});
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(Contains(result.status().message(), "%c: %bad: custom-call target 'nope'"))
      << result.status();
}

TEST(HloEvaluatorTest, RecursionIsAnErrorNotACrash) {
  // A computation that calls itself is malformed (the parser cannot even
  // write one); made by rewiring a call, it must give an error, not a crash.
  constexpr absl::string_view kModule = R"(
HloModule m

leaf {
  ROOT x = s32[] parameter(0)
}

ENTRY main {
  x = s32[] parameter(0)
  ROOT c = s32[] call(x), to_apply=leaf
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  HloComputation* entry = (*module)->entry_computation();
  entry->root_instruction()->ReplaceCalledComputation(0, entry);
  std::vector<Literal> args;
  args.push_back(L("s32[]", "1"));
  absl::StatusOr<Literal> result = EvaluateModule(**module, args);
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(Contains(result.status().message(), "calls nest deeper than 1000"))
      << result.status().message().substr(0, 200);
}

}  // namespace
}  // namespace evaluator_test
}  // namespace tessera
