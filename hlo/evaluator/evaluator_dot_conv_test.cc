// dot (general dimension numbers, mixed precision, integer wraparound, one
// rounding for 16-bit floats) and convolution (padding, strides, dilations,
// window reversal, feature and batch groups, general dim_labels).  The
// convolution expectations were computed with XLA's CPU backend
// (jax.lax.conv_general_dilated) on the same inputs.
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator_test_util.h"

namespace tessera {
namespace evaluator_test {
namespace {

TEST(EvaluatorDotTest, Matmul) {
  EXPECT_EVAL(EvaluateRoot("f32[2,2] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
                           {L("f32[2,3]", "{ { 1, 2, 3 }, { 4, 5, 6 } }"),
                            L("f32[3,2]", "{ { 1, 2 }, { 3, 4 }, { 5, 6 } }")}),
              L("f32[2,2]", "{ { 22, 28 }, { 49, 64 } }"));
  // A . B^T.
  EXPECT_EVAL(EvaluateRoot("s32[2,2] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={1}",
                           {L("s32[2,3]", "{ { 1, 2, 3 }, { 4, 5, 6 } }"),
                            L("s32[2,3]", "{ { 1, 0, 1 }, { 0, 1, 0 } }")}),
              L("s32[2,2]", "{ { 4, 2 }, { 10, 5 } }"));
  EXPECT_EVAL(EvaluateRoot("f32[] dot(p0, p1), lhs_contracting_dims={0}, rhs_contracting_dims={0}",
                           {L("f32[3]", "{1, 2, 3}"), L("f32[3]", "{4, 5, 6}")}),
              L("f32[]", "32"));
  // No contracting dimensions: an outer product.
  EXPECT_EVAL(EvaluateRoot("f32[2,2] dot(p0, p1)", {L("f32[2]", "{1, 2}"), L("f32[2]", "{3, 4}")}),
              L("f32[2,2]", "{ { 3, 4 }, { 6, 8 } }"));
}

TEST(EvaluatorDotTest, BatchAndMultipleContractingDimensions) {
  EXPECT_EVAL(EvaluateRoot("s32[2,1,1] dot(p0, p1), lhs_batch_dims={0}, rhs_batch_dims={0}, "
                           "lhs_contracting_dims={2}, rhs_contracting_dims={1}",
                           {L("s32[2,1,2]", "{ { { 1, 2 } }, { { 3, 4 } } }"),
                            L("s32[2,2,1]", "{ { {5}, {6} }, { {7}, {8} } }")}),
              L("s32[2,1,1]", "{ { {17} }, { {53} } }"));
  // Batch dimension in the middle of the rhs; result: batch, lhs free, rhs free.
  EXPECT_EVAL(EvaluateRoot("s32[2,1,1] dot(p0, p1), lhs_batch_dims={0}, rhs_batch_dims={1}, "
                           "lhs_contracting_dims={2}, rhs_contracting_dims={0}",
                           {L("s32[2,1,2]", "{ { { 1, 2 } }, { { 3, 4 } } }"),
                            L("s32[2,2,1]", "{ { {5}, {7} }, { {6}, {8} } }")}),
              L("s32[2,1,1]", "{ { {17} }, { {53} } }"));
  EXPECT_EVAL(EvaluateRoot("s32[2] dot(p0, p1), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}",
                           {L("s32[2,2,2]", "{ { { 1, 2 }, { 3, 4 } }, { { 5, 6 }, { 7, 8 } } }"),
                            L("s32[2,2]", "{ { 1, 0 }, { 0, 1 } }")}),
              L("s32[2]", "{5, 13}"));
  EXPECT_EVAL(EvaluateRoot("f32[2,2] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
                           {L("f32[2,0]", "{ {}, {} }"), L("f32[0,2]", "{}")}),
              L("f32[2,2]", "{ { 0, 0 }, { 0, 0 } }"));
}

TEST(EvaluatorDotTest, MixedAndNarrowTypes) {
  // s8 x s8 -> s32 accumulates in s32.
  EXPECT_EVAL(EvaluateRoot("s32[] dot(p0, p1), lhs_contracting_dims={0}, rhs_contracting_dims={0}",
                           {L("s8[2]", "{100, -100}"), L("s8[2]", "{100, -100}")}),
              L("s32[]", "20000"));
  // Integer accumulation wraps.
  EXPECT_EVAL(EvaluateRoot("s32[] dot(p0, p1), lhs_contracting_dims={0}, rhs_contracting_dims={0}",
                           {L("s32[2]", "{65536, 65536}"), L("s32[2]", "{65536, 1}")}),
              L("s32[]", "65536"));
  EXPECT_EVAL(EvaluateRoot("f32[] dot(p0, p1), lhs_contracting_dims={0}, rhs_contracting_dims={0}",
                           {L("bf16[2]", "{1.5, 3}"), L("bf16[2]", "{2, 0.25}")}),
              L("f32[]", "3.75"));
  // f16 products are summed in f32 and rounded once: 2048 + 1 + 1 = 2050
  // (rounding after each step would stay at 2048).
  EXPECT_EVAL(EvaluateRoot("f16[] dot(p0, p1), lhs_contracting_dims={0}, rhs_contracting_dims={0}",
                           {L("f16[3]", "{2048, 1, 1}"), L("f16[3]", "{1, 1, 1}")}),
              L("f16[]", "2050"));
  EXPECT_EVAL(EvaluateRoot("c64[] dot(p0, p1), lhs_contracting_dims={0}, rhs_contracting_dims={0}",
                           {L("c64[2]", "{(1, 1), (0, 2)}"), L("c64[2]", "{(1, -1), (3, 0)}")}),
              L("c64[]", "(2, 6)"));
}

// A pred dot ORs the ANDs (XLA's and JAX's bool matmul): two true
// products give true, not their sum's low bit; bool operands into s32 count.
TEST(EvaluatorDotTest, PredIsOrOfAnds) {
  EXPECT_EVAL(
      EvaluateRoot("pred[2,2] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
                   {L("pred[2,2]", "{ { true, true }, { true, false } }"),
                    L("pred[2,2]", "{ { true, false }, { true, false } }")}),
      L("pred[2,2]", "{ { true, false }, { true, false } }"));
  EXPECT_EVAL(
      EvaluateRoot("s32[] dot(p0, p1), lhs_contracting_dims={0}, rhs_contracting_dims={0}",
                   {L("pred[3]", "{true, true, false}"), L("pred[3]", "{true, true, true}")}),
      L("s32[]", "2"));
}

constexpr absl::string_view kX = "{ { {1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10} }, "
                                 "{ {11, 12}, {13, 14}, {15, 16}, {17, 18}, {19, 20} } }";
constexpr absl::string_view kK = "{ { {1, 0, 2}, {0, 1, -1} }, { {2, 1, 0}, {1, -1, 1} }, "
                                 "{ {0, 1, 1}, {-1, 0, 2} } }";

TEST(EvaluatorConvolutionTest, PaddingAndStrides) {
  EXPECT_EVAL(EvaluateRoot("f32[2,5,3] convolution(p0, p1), window={size=3 pad=1_1}, dim_labels=b0f_0io->b0f",
                           {L("f32[2,5,2]", kX), L("f32[3,2,3]", kK)}),
              L("f32[2,5,3]", "{ { {0, 2, 13}, {5, 6, 21}, {11, 10, 31}, {17, 14, 41}, {35, 7, 16} }, "
                              "{ {20, 12, 53}, {35, 26, 71}, {41, 30, 81}, {47, 34, 91}, {75, 17, 36} } }"));
  EXPECT_EVAL(EvaluateRoot("f32[2,3,3] convolution(p0, p1), window={size=3 stride=2 pad=0_2}, dim_labels=b0f_0io->b0f",
                           {L("f32[2,5,2]", kX), L("f32[3,2,3]", kK)}),
              L("f32[2,3,3]", "{ { {5, 6, 21}, {17, 14, 41}, {9, 10, 8} }, "
                              "{ {35, 26, 71}, {47, 34, 91}, {19, 20, 18} } }"));
}

TEST(EvaluatorConvolutionTest, DilationsAndReversal) {
  EXPECT_EVAL(EvaluateRoot("f32[2,7,3] convolution(p0, p1), window={size=3 lhs_dilate=2}, dim_labels=b0f_0io->b0f",
                           {L("f32[2,5,2]", kX), L("f32[3,2,3]", kK)}),
              L("f32[2,7,3]",
                "{ { {-3, 5, 11}, {10, -1, 4}, {-3, 9, 19}, {16, -1, 6}, {-3, 13, 27}, {22, -1, 8}, {-3, 17, 35} }, "
                "{ {-3, 25, 51}, {40, -1, 14}, {-3, 29, 59}, {46, -1, 16}, {-3, 33, 67}, {52, -1, 18}, {-3, 37, 75} } }"));
  EXPECT_EVAL(EvaluateRoot("f32[2,1,3] convolution(p0, p1), window={size=3 rhs_dilate=2}, dim_labels=b0f_0io->b0f",
                           {L("f32[2,5,2]", kX), L("f32[3,2,3]", kK)}),
              L("f32[2,1,3]", "{ { {7, 10, 35} }, { {37, 30, 85} } }"));
  EXPECT_EVAL(EvaluateRoot("f32[2,5,3] convolution(p0, p1), window={size=3 pad=1_1 rhs_reversal=1}, dim_labels=b0f_0io->b0f",
                           {L("f32[2,5,2]", kX), L("f32[3,2,3]", kK)}),
              L("f32[2,5,3]", "{ { {7, 3, 4}, {13, 6, 13}, {19, 10, 23}, {25, 14, 33}, {20, 6, 33} }, "
                              "{ {47, 13, 24}, {43, 26, 63}, {49, 30, 73}, {55, 34, 83}, {40, 16, 73} } }"));
}

TEST(EvaluatorConvolutionTest, FeatureAndBatchGroups) {
  EXPECT_EVAL(EvaluateRoot("f32[2,3,4] convolution(p0, p1), window={size=3}, dim_labels=b0f_0io->b0f, "
                           "feature_group_count=2",
                           {L("f32[2,5,2]", kX),
                            L("f32[3,1,4]", "{ { {1, 2, 0, -1} }, { {0, 1, 1, 2} }, { {2, -1, 1, 0} } }")}),
              L("f32[2,3,4]", "{ { {11, 0, 10, 6}, {17, 4, 14, 8}, {23, 8, 18, 10} }, "
                              "{ {41, 20, 30, 16}, {47, 24, 34, 18}, {53, 28, 38, 20} } }"));
  EXPECT_EVAL(EvaluateRoot("f32[1,4,4] convolution(p0, p1), window={size=2}, dim_labels=b0f_0io->b0f, "
                           "batch_group_count=2",
                           {L("f32[2,5,2]", kX),
                            L("f32[2,2,4]", "{ { {1, 0, 2, 1}, {0, 1, -1, 1} }, { {2, 1, 0, 0}, {1, -1, 1, 2} } }")}),
              L("f32[1,4,4]", "{ { {11, 1, 24, 51}, {19, 3, 28, 59}, {27, 5, 32, 67}, {35, 7, 36, 75} } }"));
}

TEST(EvaluatorConvolutionTest, TwoDimensionalNchw) {
  EXPECT_EVAL(EvaluateRoot("f32[1,1,3,3] convolution(p0, p1), window={size=2x2 pad=0_1x1_0}, dim_labels=bf01_oi01->bf01",
                           {L("f32[1,2,3,3]", "{ { { {1, 2, 3}, {4, 5, 6}, {7, 8, 9} }, "
                                              "{ {10, 11, 12}, {13, 14, 15}, {16, 17, 18} } } }"),
                            L("f32[1,2,2,2]", "{ { { {1, 0}, {0, -1} }, { {2, 1}, {1, 0} } } }")}),
              L("f32[1,1,3,3]", "{ { { {6, 40, 44}, {6, 52, 56}, {16, 56, 60} } } }"));
}

TEST(EvaluatorConvolutionTest, IntegerAndMixedTypes) {
  EXPECT_EVAL(EvaluateRoot("s32[1,2,1] convolution(p0, p1), window={size=2}, dim_labels=b0f_0io->b0f",
                           {L("s8[1,3,1]", "{ { {100}, {100}, {-100} } }"), L("s8[2,1,1]", "{ { {100} }, { {100} } }")}),
              L("s32[1,2,1]", "{ { {20000}, {0} } }"));
}

TEST(EvaluatorDotTest, PrecisionConfigIsAcceptedAndBf16RoundsOnce) {
  EXPECT_EVAL(EvaluateRoot("f32[1,1] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
                           "operand_precision={highest,default}",
                           {L("f32[1,2]", "{ { 1.5, 2 } }"), L("f32[2,1]", "{ {2}, {0.25} }")}),
              L("f32[1,1]", "{ {3.5} }"));
  // 256 + 1 + 1 in bf16 steps would stay 256; summed wider it is 258.
  EXPECT_EVAL(EvaluateRoot("bf16[] dot(p0, p1), lhs_contracting_dims={0}, rhs_contracting_dims={0}",
                           {L("bf16[3]", "{256, 1, 1}"), L("bf16[3]", "{1, 1, 1}")}),
              L("bf16[]", "258"));
  // NaN and inf propagate through the sum.
  EXPECT_EVAL(EvaluateRoot("f32[2] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
                           {L("f32[2,2]", "{ { inf, 1 }, { inf, 0 } }"), L("f32[2]", "{1, -inf}")}),
              L("f32[2]", "{nan, nan}"));
  // u8 operands into a u32 result do not wrap at 8 bits.
  EXPECT_EVAL(EvaluateRoot("u32[] dot(p0, p1), lhs_contracting_dims={0}, rhs_contracting_dims={0}",
                           {L("u8[2]", "{255, 255}"), L("u8[2]", "{255, 1}")}),
              L("u32[]", "65280"));
}

TEST(EvaluatorConvolutionTest, NegativePaddingAndOutputLayoutLabels) {
  // pad=-1_0 drops the first input element: out[o] = x[o+1] + 10 x[o+2].
  EXPECT_EVAL(EvaluateRoot("f32[1,2,1] convolution(p0, p1), window={size=2 pad=-1_0}, dim_labels=b0f_0io->b0f",
                           {L("f32[1,4,1]", "{ { {1}, {2}, {3}, {4} } }"), L("f32[2,1,1]", "{ { {1} }, { {10} } }")}),
              L("f32[1,2,1]", "{ { {32}, {43} } }"));
  // The output written feature-major: out[o][x][b].
  EXPECT_EVAL(EvaluateRoot("f32[2,2,1] convolution(p0, p1), window={size=2}, dim_labels=b0f_0io->f0b",
                           {L("f32[1,3,1]", "{ { {1}, {2}, {3} } }"),
                            L("f32[2,1,2]", "{ { {1, 10} }, { {100, 1000} } }")}),
              L("f32[2,2,1]", "{ { {201}, {302} }, { {2010}, {3020} } }"));
}

TEST(EvaluatorConvolutionTest, BatchGroupsSplitTheBatchIntoContiguousBlocks) {
  // Four batch elements in two groups of two: output feature 0 reads
  // batches 0 and 1, output feature 1 batches 2 and 3.
  EXPECT_EVAL(EvaluateRoot("f32[2,1,2] convolution(p0, p1), window={size=1}, dim_labels=b0f_0io->b0f, "
                           "batch_group_count=2",
                           {L("f32[4,1,1]", "{ { {1} }, { {2} }, { {3} }, { {4} } }"),
                            L("f32[1,1,2]", "{ { {10, 100} } }")}),
              L("f32[2,1,2]", "{ { {10, 300} }, { {20, 400} } }"));
  // Depthwise: two input features, feature_group_count=2, two outputs per
  // group.
  EXPECT_EVAL(EvaluateRoot("f32[1,1,4] convolution(p0, p1), window={size=1}, dim_labels=b0f_0io->b0f, "
                           "feature_group_count=2",
                           {L("f32[1,1,2]", "{ { {3, 5} } }"), L("f32[1,1,4]", "{ { {1, 2, 10, 20} } }")}),
              L("f32[1,1,4]", "{ { {3, 6, 50, 100} } }"));
}

}  // namespace
}  // namespace evaluator_test
}  // namespace tessera
