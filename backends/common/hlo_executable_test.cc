// HloExecutable over hand-built runtime executables: literals in and out
// through tuple leaves and layouts, the steady-state buffer path, and the
// errors naming parameters and mismatched programs.
#include "backends/common/hlo_executable.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/parser/hlo_parser.h"
#include "runtime/copy_thunk.h"
#include "runtime/kernel_thunk.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;
using runtime::Allocation;
using runtime::BufferPlan;
using runtime::BufferSlice;
using runtime::ThunkSequence;

// A shape from HLO text, e.g. "f32[2,3]{0,1}".
Shape S(absl::string_view text) { return *ParseShape(text); }

// (x: f32[2,3]{0,1}, t: (s32[], f32[2])) -> (f32[3,2]{1,0}, s32[]):
// result 0 is x's bytes as they lie (column-major x is row-major x^T),
// result 1 is t.0 + 1.
ProgramShape TransposeProgramShape() {
  ProgramShape program_shape;
  program_shape.parameters = {
      S("f32[2,3]{0,1}"),
      Shape::MakeTuple({Shape::MakeArray(S32, {}), Shape::MakeArray(F32, {2})})};
  program_shape.parameter_names = {"x", "t"};
  program_shape.result =
      Shape::MakeTuple({S("f32[3,2]{1,0}"), Shape::MakeArray(S32, {})});
  return program_shape;
}

std::unique_ptr<runtime::Executable> TransposeExecutable() {
  BufferPlan plan = *BufferPlan::Create({Allocation::Parameter(0, 24), Allocation::Parameter(1, 4),
                                         Allocation::Parameter(2, 8), Allocation::Output(0, 24),
                                         Allocation::Output(1, 4)});
  ThunkSequence thunks;
  thunks.Emplace<runtime::CopyThunk>("bytes", BufferSlice{0, 0, 24}, BufferSlice{3, 0, 24});
  thunks.Emplace<runtime::KernelThunk>(
      "increment", std::vector<BufferSlice>{{1, 0, 4}, {4, 0, 4}},
      [](void** b, int64_t, int64_t) {
        *static_cast<int32_t*>(b[1]) = *static_cast<const int32_t*>(b[0]) + 1;
      });
  return *runtime::Executable::Create("transpose", std::move(plan), std::move(thunks),
                                      {{3, 0, 24}, {4, 0, 4}});
}

std::vector<Literal> TransposeArguments() {
  std::vector<Literal> arguments;
  arguments.push_back(Literal::CreateFromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  std::vector<Literal> t;
  t.push_back(Literal::CreateR0<int32_t>(41));
  t.push_back(Literal::CreateR1<float>({0.5f, 1.5f}));
  arguments.push_back(Literal::MakeTuple(std::move(t)));
  return arguments;
}

TEST(HloExecutableTest, RunLiteralsThroughLeavesAndLayouts) {
  absl::StatusOr<std::unique_ptr<HloExecutable>> executable =
      HloExecutable::Create(TransposeProgramShape(), TransposeExecutable());
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ((*executable)->name(), "transpose");
  absl::StatusOr<Literal> result = (*executable)->RunLiterals(TransposeArguments());
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->tuple_size(), 2);
  EXPECT_EQ(result->tuple_element(0),
            Literal::CreateFromVector<float>({3, 2}, {1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(result->tuple_element(1), Literal::CreateR0<int32_t>(42));
  EXPECT_EQ(result->shape().ToString(true), "(f32[3,2]{1,0}, s32[])");
}

TEST(HloExecutableTest, SteadyStateBufferPath) {
  std::unique_ptr<HloExecutable> executable =
      *HloExecutable::Create(TransposeProgramShape(), TransposeExecutable());
  absl::StatusOr<std::vector<runtime::OwnedBuffer>> inputs =
      executable->ArgumentsToBuffers(TransposeArguments());
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  ASSERT_EQ(inputs->size(), 3u);
  // x in its column-major layout.
  const float* x = static_cast<const float*>((*inputs)[0].data());
  EXPECT_EQ(std::vector<float>(x, x + 6), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  std::vector<runtime::ArgumentBuffer> in(inputs->begin(), inputs->end());
  std::vector<runtime::OwnedBuffer> outputs = executable->executable().AllocateResults().value();
  std::vector<runtime::ResultBuffer> out(outputs.begin(), outputs.end());
  for (int run = 0; run < 3; ++run) ASSERT_TRUE(executable->executable().ExecuteInto(in, out).ok());
  absl::StatusOr<Literal> result = executable->ResultFromBuffers(outputs);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->tuple_element(1), Literal::CreateR0<int32_t>(42));
  EXPECT_THAT(executable->ResultFromBuffers({}).status().message(),
              HasSubstr("has 2 result leaves, got 0 buffer(s)"));
}

TEST(HloExecutableTest, WrongArgumentsNameTheParameter) {
  std::unique_ptr<HloExecutable> executable =
      *HloExecutable::Create(TransposeProgramShape(), TransposeExecutable());
  std::vector<Literal> arguments = TransposeArguments();
  EXPECT_EQ(executable->RunLiterals(absl::MakeSpan(arguments).subspan(0, 1)).status().message(),
            "transpose takes 2 argument(s), got 1");
  arguments[1] = Literal::CreateR1<float>({1, 2});
  absl::Status status = executable->RunLiterals(arguments).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "parameter 1 (t) expects (s32[], f32[2]), got f32[2]");
  arguments = TransposeArguments();
  arguments[0] = Literal::CreateFromVector<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(executable->RunLiterals(arguments).status().message(),
            "parameter 0 (x) expects f32[2,3], got f32[3,2]");
  arguments[0] = Literal::CreateFromVector<double>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(executable->ArgumentsToBuffers(arguments).status().message(),
            "parameter 0 (x) expects f32[2,3], got f64[2,3]");
}

TEST(HloExecutableTest, ProgramShapeMustMatchTheExecutable) {
  ProgramShape fewer = TransposeProgramShape();
  fewer.parameters.pop_back();
  EXPECT_THAT(HloExecutable::Create(fewer, TransposeExecutable()).status().message(),
              HasSubstr("the parameters have 1 array leaves; executable transpose takes 3"));
  ProgramShape bigger = TransposeProgramShape();
  bigger.parameters[0] = Shape::MakeArray(F32, {2, 4});
  EXPECT_THAT(HloExecutable::Create(bigger, TransposeExecutable()).status().message(),
              HasSubstr("argument 0 (f32[2,4]) does not match executable transpose"));
  ProgramShape result = TransposeProgramShape();
  result.result = Shape::MakeArray(F32, {3, 2});
  EXPECT_THAT(HloExecutable::Create(result, TransposeExecutable()).status().message(),
              HasSubstr("the result has 1 array leaves; executable transpose has 2"));
  ProgramShape tiled = TransposeProgramShape();
  tiled.parameters[0].mutable_layout()->tiles.push_back(Tile{{8, 128}});
  absl::Status status = HloExecutable::Create(tiled, TransposeExecutable()).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(status.message(), HasSubstr("parameter 0 (x): array {}"));
}

}  // namespace
}  // namespace tessera
