// The interpreter through the executable interface gives the evaluator's
// results: arrays, tuples in and out, non-default layouts, loops, aliased
// (donated) parameters; and errors for bad arguments and modules.
#include "backends/interpreter/interpreter_backend.h"

#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/random_literal.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<HloModule> Parse(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : nullptr;
}

std::vector<Literal> RandomArguments(const HloModule& module, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Literal> arguments;
  for (const HloInstruction* parameter : module.entry_computation()->parameter_instructions()) {
    arguments.push_back(*MakeRandomLiteral(parameter->shape(), rng));
  }
  return arguments;
}

// Runs `text` on random inputs through the interpreter and the evaluator
// directly; the results must be equal bit for bit.
void ExpectSameAsEvaluator(absl::string_view text) {
  std::unique_ptr<HloModule> module = Parse(text);
  ASSERT_NE(module, nullptr);
  absl::StatusOr<std::unique_ptr<HloExecutable>> executable =
      InterpreterBackend().Compile(*module);
  ASSERT_TRUE(executable.ok()) << executable.status();
  for (uint64_t seed : {1, 2}) {
    std::vector<Literal> arguments = RandomArguments(*module, seed);
    absl::StatusOr<Literal> expected = EvaluateModule(*module, arguments);
    ASSERT_TRUE(expected.ok()) << expected.status();
    absl::StatusOr<Literal> result = (*executable)->RunLiterals(arguments);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(*result, *expected) << result->ToString() << "\nvs\n" << expected->ToString();
  }
}

constexpr absl::string_view kMlp = R"(
HloModule mlp, entry_computation_layout={(f32[4,8]{1,0}, f32[8,16]{1,0}, f32[16]{0})->(f32[4,16]{1,0}, f32[])}

add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  w = f32[8,16]{1,0} parameter(1)
  b = f32[16]{0} parameter(2)
  h = f32[4,16]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[4,16]{1,0} broadcast(b), dimensions={1}
  hb = f32[4,16]{1,0} add(h, bb)
  t = f32[4,16]{1,0} tanh(hb)
  zero = f32[] constant(0)
  total = f32[] reduce(t, zero), dimensions={0,1}, to_apply=add_f32
  ROOT out = (f32[4,16]{1,0}, f32[]) tuple(t, total)
}
)";

TEST(InterpreterBackendTest, MlpMatchesTheEvaluator) { ExpectSameAsEvaluator(kMlp); }

TEST(InterpreterBackendTest, WhileLoopMatchesTheEvaluator) {
  ExpectSameAsEvaluator(R"(
HloModule while_loop, entry_computation_layout={(f32[64]{0})->f32[64]{0}}

cond {
  state = (s32[], f32[64]{0}) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  limit = s32[] constant(7)
  ROOT less = pred[] compare(i, limit), direction=LT
}

body {
  state = (s32[], f32[64]{0}) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  one = s32[] constant(1)
  next_i = s32[] add(i, one)
  v = f32[64]{0} get-tuple-element(state), index=1
  next_v = f32[64]{0} tanh(v)
  ROOT next = (s32[], f32[64]{0}) tuple(next_i, next_v)
}

ENTRY main {
  x = f32[64]{0} parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[64]{0}) tuple(zero, x)
  loop = (s32[], f32[64]{0}) while(init), condition=cond, body=body
  ROOT result = f32[64]{0} get-tuple-element(loop), index=1
}
)");
}

TEST(InterpreterBackendTest, TupleParametersTokensAndMixedTypes) {
  ExpectSameAsEvaluator(R"(
HloModule tuples

ENTRY main {
  p = (s32[3], (pred[2], f64[])) parameter(0)
  q = u8[2,2] parameter(1)
  a = s32[3] get-tuple-element(p), index=0
  inner = (pred[2], f64[]) get-tuple-element(p), index=1
  d = f64[] get-tuple-element(inner), index=1
  n = pred[2] get-tuple-element(inner), index=0
  nn = pred[2] not(n)
  neg = s32[3] negate(a)
  tok = token[] after-all()
  ROOT r = (s32[3], (pred[2], u8[2,2]), f64[], token[]) tuple(neg, (pred[2], u8[2,2]) tuple(nn, q), d, tok)
}
)");
}

TEST(InterpreterBackendTest, ColumnMajorLayoutsGiveTheSameValues) {
  const absl::string_view text = R"(
HloModule transpose, entry_computation_layout={(f32[2,3]{0,1})->f32[3,2]{0,1}}

ENTRY main {
  x = f32[2,3]{0,1} parameter(0)
  ROOT t = f32[3,2]{0,1} transpose(x), dimensions={1,0}
}
)";
  ExpectSameAsEvaluator(text);
  // The raw buffers are column-major: x = [[1,2,3],[4,5,6]] lies as
  // 1 4 2 5 3 6, and its transpose as 1 2 3 4 5 6.
  std::unique_ptr<HloModule> module = Parse(text);
  std::unique_ptr<HloExecutable> executable = *InterpreterBackend().Compile(*module);
  const float x[6] = {1, 4, 2, 5, 3, 6};
  absl::StatusOr<std::vector<runtime::OwnedBuffer>> results =
      executable->executable().Run({runtime::ArgumentBuffer(x, sizeof(x))});
  ASSERT_TRUE(results.ok()) << results.status();
  const float* t = static_cast<const float*>((*results)[0].data());
  EXPECT_EQ(std::vector<float>(t, t + 6), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

constexpr absl::string_view kAliased = R"(
HloModule update, input_output_alias={ {0}: (0, {}, may-alias) }

ENTRY main {
  state = f32[4] parameter(0)
  delta = f32[4] parameter(1)
  next = f32[4] add(state, delta)
  ROOT out = (f32[4], f32[4]) tuple(next, delta)
}
)";

TEST(InterpreterBackendTest, AliasedOutputIsWrittenOverTheDonatedParameter) {
  std::unique_ptr<HloModule> module = Parse(kAliased);
  ASSERT_NE(module, nullptr);
  std::unique_ptr<HloExecutable> executable = *InterpreterBackend().Compile(*module);
  EXPECT_EQ(executable->ToString(),
            "program (f32[4]{0}, f32[4]{0})->(f32[4]{0}, f32[4]{0})\n"
            "executable update\n"
            "a0: parameter 0, 16 bytes, donated\n"
            "a1: parameter 1, 16 bytes\n"
            "a2: output 1, 16 bytes\n"
            "arena: 64 bytes\n"
            "results: a0[0, 16), a2[0, 16)\n"
            "host-call evaluate update (a0[0, 16), a1[0, 16), a0[0, 16), a2[0, 16))\n");
  ExpectSameAsEvaluator(kAliased);

  const runtime::Executable& raw = executable->executable();
  float state[4] = {1, 2, 3, 4};
  const float delta[4] = {10, 20, 30, 40};
  float delta_out[4] = {};
  // Donated, and the result is the state buffer itself: updated in place.
  ASSERT_TRUE(raw.ExecuteInto({runtime::ArgumentBuffer::Donated(state, sizeof(state)),
                               runtime::ArgumentBuffer(delta, sizeof(delta))},
                              {runtime::ResultBuffer(state, sizeof(state)),
                               runtime::ResultBuffer(delta_out, sizeof(delta_out))})
                  .ok());
  EXPECT_EQ(std::vector<float>(state, state + 4), (std::vector<float>{11, 22, 33, 44}));
  EXPECT_EQ(std::vector<float>(delta_out, delta_out + 4), (std::vector<float>{10, 20, 30, 40}));

  // Not donated: the caller's state is left alone.
  absl::StatusOr<std::vector<runtime::OwnedBuffer>> results =
      raw.Run({runtime::ArgumentBuffer(state, sizeof(state)),
               runtime::ArgumentBuffer(delta, sizeof(delta))});
  ASSERT_TRUE(results.ok()) << results.status();
  const float* next = static_cast<const float*>((*results)[0].data());
  EXPECT_EQ(std::vector<float>(next, next + 4), (std::vector<float>{21, 42, 63, 84}));
  EXPECT_EQ(std::vector<float>(state, state + 4), (std::vector<float>{11, 22, 33, 44}));
}

TEST(InterpreterBackendTest, OwnedModuleOutlivesTheCaller) {
  std::unique_ptr<HloExecutable> executable;
  {
    std::shared_ptr<const HloModule> module = Parse(kMlp);
    executable = *InterpreterBackend().Compile(std::move(module));
  }
  std::unique_ptr<HloModule> again = Parse(kMlp);
  std::vector<Literal> arguments = RandomArguments(*again, 3);
  absl::StatusOr<Literal> result = executable->RunLiterals(arguments);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(*result, *EvaluateModule(*again, arguments));
}

TEST(InterpreterBackendTest, WrongArgumentsNameTheParameter) {
  std::unique_ptr<HloModule> module = Parse(kMlp);
  std::unique_ptr<HloExecutable> executable = *InterpreterBackend().Compile(*module);
  std::vector<Literal> arguments = RandomArguments(*module, 1);
  absl::Status status = executable->RunLiterals(absl::MakeSpan(arguments).subspan(0, 2)).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "mlp takes 3 argument(s), got 2");
  arguments[1] = Literal::CreateR1<float>({1, 2, 3});
  EXPECT_EQ(executable->RunLiterals(arguments).status().message(),
            "parameter 1 (w) expects f32[8,16], got f32[3]");
  arguments[1] = Literal(Shape::MakeArray(S32, {8, 16}));
  EXPECT_EQ(executable->RunLiterals(arguments).status().message(),
            "parameter 1 (w) expects f32[8,16], got s32[8,16]");
  // Raw buffers of the wrong size.
  float small[3] = {};
  EXPECT_THAT(executable->executable()
                  .Run({runtime::ArgumentBuffer(small, sizeof(small)),
                        runtime::ArgumentBuffer(small, sizeof(small)),
                        runtime::ArgumentBuffer(small, sizeof(small))})
                  .status()
                  .message(),
              HasSubstr("argument 0 has 12 bytes, expected 128"));
}

TEST(InterpreterBackendTest, EvaluatorErrorsReachTheCaller) {
  std::unique_ptr<HloModule> module = Parse(R"(
HloModule custom

ENTRY main {
  x = f32[2] parameter(0)
  ROOT c = f32[2] custom-call(x), custom_call_target="no_such_target"
}
)");
  ASSERT_NE(module, nullptr);
  std::unique_ptr<HloExecutable> executable = *InterpreterBackend().Compile(*module);
  absl::Status status = executable->RunLiterals({Literal::CreateR1<float>({1, 2})}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(status.message(), HasSubstr("evaluate custom: "));
  EXPECT_THAT(status.message(), HasSubstr("c"));
}

TEST(InterpreterBackendTest, ModulesItCannotCompile) {
  std::unique_ptr<HloModule> module = Parse(R"(
HloModule tiled, entry_computation_layout={(f32[8,128]{1,0:T(8,128)})->f32[8,128]{1,0}}

ENTRY main {
  x = f32[8,128]{1,0:T(8,128)} parameter(0)
  ROOT y = f32[8,128]{1,0} copy(x)
}
)");
  ASSERT_NE(module, nullptr);
  absl::Status status = InterpreterBackend().Compile(*module).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(status.message(), HasSubstr("parameter 0 (x): array {}"));
  EXPECT_THAT(status.message(), HasSubstr("tiled layouts are not supported"));

  module->config().entry_computation_layout->parameters[0] = Shape::MakeArray(F32, {8, 4});
  EXPECT_THAT(InterpreterBackend().Compile(*module).status().message(),
              HasSubstr("entry_computation_layout parameter 0 f32[8,4] does not match parameter x"));
  EXPECT_EQ(InterpreterBackend().Compile(std::shared_ptr<const HloModule>()).status().message(),
            "no module");
}

}  // namespace
}  // namespace tessera
