#include "hlo/analysis/cost_analysis.h"

#include "gtest/gtest.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace {

HloCost CostOf(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? AnalyzeCost(**module) : HloCost{};
}

TEST(CostAnalysisTest, DotIsTwoMnk) {
  HloCost cost = CostOf(R"(
HloModule m
ENTRY e {
  a = f32[8,16] parameter(0)
  b = f32[16,4] parameter(1)
  ROOT d = f32[8,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  EXPECT_EQ(cost.flops, 2.0 * 8 * 4 * 16);
  EXPECT_EQ(cost.bytes_accessed, 4.0 * (8 * 16 + 16 * 4 + 8 * 4));
}

TEST(CostAnalysisTest, ElementwiseAndTranscendentals) {
  HloCost cost = CostOf(R"(
HloModule m
ENTRY e {
  x = f32[100] parameter(0)
  y = f32[100] exponential(x)
  ROOT z = f32[100] add(y, x)
})");
  EXPECT_EQ(cost.flops, 200);
  EXPECT_EQ(cost.transcendentals, 100);
  EXPECT_EQ(cost.bytes_accessed, 4.0 * (200 + 300));
}

TEST(CostAnalysisTest, FusionCountsOnlyItsInputsAndOutputs) {
  HloCost cost = CostOf(R"(
HloModule m
fused {
  p = f32[100] parameter(0)
  e = f32[100] exponential(p)
  ROOT n = f32[100] negate(e)
}
ENTRY e {
  x = f32[100] parameter(0)
  ROOT f = f32[100] fusion(x), kind=kLoop, calls=fused
})");
  EXPECT_EQ(cost.flops, 200);
  EXPECT_EQ(cost.bytes_accessed, 4.0 * 200);
}

TEST(CostAnalysisTest, ConvolutionCountsMultiplyAdds) {
  HloCost cost = CostOf(R"(
HloModule m
ENTRY e {
  x = f32[1,8,8,3] parameter(0)
  k = f32[3,3,3,16] parameter(1)
  ROOT c = f32[1,8,8,16] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
})");
  EXPECT_EQ(cost.flops, 2.0 * (8 * 8 * 16) * (3 * 3 * 3));
}

}  // namespace
}  // namespace tessera
