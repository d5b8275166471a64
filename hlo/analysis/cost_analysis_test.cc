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

TEST(CostAnalysisTest, FftsCountFiveNLogN) {
  HloCost cost = CostOf(R"(
HloModule m
ENTRY e {
  x = c64[3,1024] parameter(0)
  r = f32[2,16,64] parameter(1)
  c = c64[2,16,33] parameter(2)
  f = c64[3,1024] fft(x), fft_type=FFT, fft_length={1024}
  g = c64[2,16,33] fft(r), fft_type=RFFT, fft_length={16,64}
  h = f32[2,16,64] fft(c), fft_type=IRFFT, fft_length={16,64}
  ROOT t = (c64[3,1024], c64[2,16,33], f32[2,16,64]) tuple(f, g, h)
})");
  EXPECT_DOUBLE_EQ(cost.flops, 3 * 5.0 * 1024 * 10 + 2 * (2 * 2.5 * 1024 * 10));
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
