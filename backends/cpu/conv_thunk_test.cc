// PlanConvolution and RunConvolution against the reference evaluator: one-
// convolution modules on seeded random inputs, buffers laid out as the
// shapes' layouts say, compared within 1e-4 * (1 + |x|) for f32 and
// 1e-10 * (1 + |x|) for f64 (reordered sums), exactly for integers.
#include "backends/cpu/conv_thunk.h"

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/random_literal.h"
#include "hlo/parser/hlo_parser.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {
namespace {

// The test convolutions take the paths of large ones, however small:
// oneDNN's chunks over the pool, lhs dilation in phases (by default those
// below 4 MFLOP run on the calling thread and whole:
// SmallConvolutionsRunWholeOnTheCallingThread).
class LargePathsForEverySize : public ::testing::Environment {
 public:
  void SetUp() override { SetSmallConvolutionFlopsForTesting(0); }
};
::testing::Environment* const kLargePathsForEverySize =
    ::testing::AddGlobalTestEnvironment(new LargePathsForEverySize);

std::vector<int64_t> PhysicalStrides(const Shape& shape) {
  if (!shape.has_layout()) return RowMajorStrides(shape.dimensions());
  std::vector<int64_t> strides(shape.rank(), 1);
  int64_t stride = 1;
  for (int64_t d : shape.layout().minor_to_major) {
    strides[d] = stride;
    stride *= shape.dimensions(d);
  }
  return strides;
}

// Calls fn(row_major_linear, physical_linear) for every element of `shape`.
template <typename Fn>
void ForEachElement(const Shape& shape, Fn fn) {
  const std::vector<int64_t> phys = PhysicalStrides(shape);
  const int64_t rank = shape.rank();
  std::vector<int64_t> index(rank, 0);
  for (int64_t linear = 0; linear < shape.ElementCount(); ++linear) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d) offset += index[d] * phys[d];
    fn(linear, offset);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape.dimensions(d)) break;
      index[d] = 0;
    }
  }
}

template <typename T>
std::vector<T> ToPhysical(const Literal& literal, const Shape& shape) {
  std::vector<T> data(shape.ElementCount() + 1);
  const T* src = static_cast<const T*>(literal.untyped_data());
  ForEachElement(shape, [&](int64_t linear, int64_t offset) { data[offset] = src[linear]; });
  return data;
}

std::string ConvModule(absl::string_view lhs, absl::string_view rhs, absl::string_view out,
                       absl::string_view attrs) {
  return absl::StrCat("HloModule m\n\nENTRY e {\n  a = ", lhs, " parameter(0)\n  b = ", rhs,
                      " parameter(1)\n  ROOT c = ", out, " convolution(a, b), ", attrs, "\n}\n");
}

// Input and kernel of type In, the result of type Out.
template <typename In, typename Out = In>
void CompareRun(const HloInstruction& conv, const ConvPlan& plan, const std::vector<Literal>& args,
                const Literal& expected, runtime::ThreadPool* pool, double tolerance) {
  std::vector<In> in = ToPhysical<In>(args[0], conv.operand(0)->shape());
  std::vector<In> ker = ToPhysical<In>(args[1], conv.operand(1)->shape());
  const Out sentinel(12.5f);
  std::vector<Out> out(conv.shape().ElementCount() + 1, sentinel);
  for (int run = 0; run < 2; ++run) {  // the second run reuses the scratch
    ASSERT_TRUE(RunConvolution(plan, in.data(), ker.data(), out.data(), pool).ok());
  }
  const Out* want = static_cast<const Out*>(expected.untyped_data());
  int failures = 0;
  ForEachElement(conv.shape(), [&](int64_t linear, int64_t offset) {
    if constexpr (std::is_integral_v<Out>) {
      if (failures < 5 && out[offset] != want[linear]) {
        ++failures;
        ADD_FAILURE() << "element " << linear << ": got " << int64_t{out[offset]} << ", evaluator "
                      << int64_t{want[linear]};
      }
      return;
    }
    const double g = static_cast<float>(out[offset]), e = static_cast<float>(want[linear]);
    if (failures < 5 && !(std::fabs(g - e) <= tolerance * (1 + std::fabs(e)))) {
      ++failures;
      ADD_FAILURE() << "element " << linear << ": got " << g << ", evaluator " << e;
    }
  });
  EXPECT_EQ(static_cast<float>(out.back()), static_cast<float>(sentinel))
      << "wrote past the output";
}

void CheckConv(const std::string& text, runtime::ThreadPool* pool, uint64_t seed = 1) {
  SCOPED_TRACE(text);
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const HloInstruction& conv = *(*module)->entry_computation()->root_instruction();
  absl::StatusOr<ConvPlan> plan = PlanConvolution(conv);
  ASSERT_TRUE(plan.ok()) << plan.status();
  SCOPED_TRACE(plan->ToString());

  std::mt19937_64 rng(seed);
  std::vector<Literal> args;
  for (int i = 0; i < 2; ++i) {
    Shape shape = conv.operand(i)->shape();
    shape.clear_layout();
    shape.SetDefaultLayoutRecursively();
    auto literal = MakeRandomLiteral(shape, rng);
    ASSERT_TRUE(literal.ok()) << literal.status();
    // Integers: spread over their range (an odd factor modulo 2^width), so
    // 32-bit sums wrap and narrow operands have their top bit set.
    if (IsIntegralType(shape.element_type())) {
      const int width = ByteWidth(shape.element_type());
      char* data = static_cast<char*>(literal->untyped_data());
      for (int64_t e = 0; e < shape.ElementCount(); ++e) {
        uint32_t v = 0;
        std::memcpy(&v, data + e * width, width);
        v *= 0x01000193u;
        std::memcpy(data + e * width, &v, width);  // little-endian: the low bytes
      }
    }
    args.push_back(std::move(*literal));
  }
  auto expected = EvaluateModule(**module, args);
  ASSERT_TRUE(expected.ok()) << expected.status();

  // Narrow results: the evaluator's f32 sum and ours, in another order,
  // may round to neighbours.
  const PrimitiveType in_type = conv.operand(0)->shape().element_type();
  const PrimitiveType out_type = conv.shape().element_type();
  if (out_type == F64) {
    CompareRun<double>(conv, *plan, args, *expected, pool, 1e-10);
  } else if (in_type == F32) {
    CompareRun<float>(conv, *plan, args, *expected, pool, 1e-4);
  } else if (in_type == BF16 && out_type == BF16) {
    CompareRun<bfloat16>(conv, *plan, args, *expected, pool, std::ldexp(1.0, -7));
  } else if (in_type == BF16 && out_type == F32) {
    CompareRun<bfloat16, float>(conv, *plan, args, *expected, pool, 1e-4);
  } else if (in_type == F16 && out_type == F16) {
    CompareRun<half>(conv, *plan, args, *expected, pool, std::ldexp(1.0, -10));
  } else if (in_type == F8E4M3FN && out_type == F32) {
    CompareRun<float8_e4m3fn, float>(conv, *plan, args, *expected, pool, 1e-4);
  } else if (in_type == F8E5M2 && out_type == F8E5M2) {
    CompareRun<float8_e5m2>(conv, *plan, args, *expected, pool, std::ldexp(1.0, -2));
  } else if (in_type == S32 && out_type == S32) {
    CompareRun<int32_t>(conv, *plan, args, *expected, pool, 0);
  } else if (in_type == U32 && out_type == U32) {
    CompareRun<uint32_t>(conv, *plan, args, *expected, pool, 0);
  } else if (in_type == S8 && out_type == S32) {
    CompareRun<int8_t, int32_t>(conv, *plan, args, *expected, pool, 0);
  } else if (in_type == U8 && out_type == S8) {
    CompareRun<uint8_t, int8_t>(conv, *plan, args, *expected, pool, 0);
  } else if (in_type == S8 && out_type == U32) {
    CompareRun<int8_t, uint32_t>(conv, *plan, args, *expected, pool, 0);
  } else if (in_type == S8 && out_type == S8) {
    CompareRun<int8_t>(conv, *plan, args, *expected, pool, 0);
  } else if (in_type == U8 && out_type == U32) {
    CompareRun<uint8_t, uint32_t>(conv, *plan, args, *expected, pool, 0);
  } else if (in_type == S16 && out_type == U16) {
    CompareRun<int16_t, uint16_t>(conv, *plan, args, *expected, pool, 0);
  } else if (in_type == S32 && out_type == S8) {
    CompareRun<int32_t, int8_t>(conv, *plan, args, *expected, pool, 0);
  } else {
    FAIL() << "no comparison for " << PrimitiveTypeName(in_type) << " -> "
           << PrimitiveTypeName(out_type);
  }
}

void CheckBoth(const std::string& text) {
  runtime::ThreadPool one(1);
  CheckConv(text, &one);
  CheckConv(text, &runtime::ThreadPool::Default(), 2);
  CheckConv(text, nullptr, 3);
}

TEST(ConvThunkTest, NhwcHwioSame) {
  CheckBoth(ConvModule("f32[1,9,9,8]", "f32[3,3,8,16]", "f32[1,9,9,16]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"));
}

TEST(ConvThunkTest, NhwcHwioValidBatch2) {
  CheckBoth(ConvModule("f32[2,10,11,5]", "f32[3,2,5,7]", "f32[2,8,10,7]",
                       "window={size=3x2}, dim_labels=b01f_01io->b01f"));
}

TEST(ConvThunkTest, NchwOihw) {
  CheckBoth(ConvModule("f32[2,6,9,9]", "f32[4,6,3,3]", "f32[2,4,9,9]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01"));
}

TEST(ConvThunkTest, Stride2) {
  CheckBoth(ConvModule("f32[2,11,12,4]", "f32[3,3,4,6]", "f32[2,6,6,6]",
                       "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"));
}

TEST(ConvThunkTest, AsymmetricPadding) {
  CheckBoth(ConvModule("f32[1,8,7,3]", "f32[3,4,3,5]", "f32[1,9,6,5]",
                       "window={size=3x4 pad=0_3x2_0}, dim_labels=b01f_01io->b01f"));
}

TEST(ConvThunkTest, NegativePadding) {
  CheckBoth(ConvModule("f32[1,8,8,3]", "f32[3,3,3,2]", "f32[1,5,6,2]",
                       "window={size=3x3 pad=-1_0x0_0}, dim_labels=b01f_01io->b01f"));
}

TEST(ConvThunkTest, RhsDilation2) {
  CheckBoth(ConvModule("f32[2,12,12,3]", "f32[3,3,3,4]", "f32[2,8,12,4]",
                       "window={size=3x3 pad=0_0x2_2 rhs_dilate=2x2}, dim_labels=b01f_01io->b01f"));
}

TEST(ConvThunkTest, OneByOne) {
  CheckBoth(ConvModule("f32[2,7,7,16]", "f32[1,1,16,32]", "f32[2,7,7,32]",
                       "window={size=1x1}, dim_labels=b01f_01io->b01f"));
}

TEST(ConvThunkTest, OneByOneNchw) {
  CheckBoth(ConvModule("f32[2,16,5,5]", "f32[32,16,1,1]", "f32[2,32,5,5]",
                       "window={size=1x1}, dim_labels=bf01_oi01->bf01"));
}

TEST(ConvThunkTest, KernelOhwiTransposed) {
  const std::string text = ConvModule("f32[1,6,6,4]", "f32[5,3,3,4]", "f32[1,4,4,5]",
                                      "window={size=3x3}, dim_labels=b01f_o01i->b01f");
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  auto plan = PlanConvolution(*(*module)->entry_computation()->root_instruction());
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->kernel_use, ConvPlan::KernelUse::kTransposed);
  CheckBoth(text);
}

TEST(ConvThunkTest, NonDefaultLayouts) {
  // NHWC logical order with an NCHW physical layout, and a column-major kernel.
  CheckBoth(ConvModule("f32[2,7,6,3]{2,1,3,0}", "f32[3,3,3,4]{0,1,2,3}", "f32[2,7,6,4]{1,2,0,3}",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"));
}

TEST(ConvThunkTest, MixedLabels) {
  CheckBoth(ConvModule("f32[5,2,9,8]", "f32[3,5,6,2]", "f32[6,4,2,6]",
                       "window={size=2x3 stride=2x1}, dim_labels=fb01_1io0->f0b1"));
}

TEST(ConvThunkTest, ConvBenchmarkShape) {
  runtime::ThreadPool* pool = &runtime::ThreadPool::Default();
  CheckConv(ConvModule("f32[1,56,56,64]", "f32[3,3,64,64]", "f32[1,56,56,64]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
            pool);
}

// 2-D f32 convolutions oneDNN takes (onednn_conv.h): batch chunks over the
// threads (3 entries on 2 threads: chunks of 1 and 2), output-row chunks
// for a batch of 1 (asymmetric padding per chunk), strides that leave
// input columns unread, window dilation, a strided (non-dense) kernel,
// feature groups (depthwise, with a channel multiplier and a stride, and
// two groups of an OHWI kernel).
TEST(ConvThunkTest, OneDnnConvolutions) {
  for (const std::string& text : {
           ConvModule("f32[3,12,13,8]", "f32[3,3,8,16]", "f32[3,12,13,16]",
                      "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
           ConvModule("f32[1,17,9,8]", "f32[3,3,8,4]", "f32[1,17,9,4]",
                      "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
           ConvModule("f32[1,16,15,8]", "f32[3,3,8,8]", "f32[1,7,7,8]",
                      "window={size=3x3 stride=2x2}, dim_labels=b01f_01io->b01f"),
           ConvModule("f32[2,11,11,4]", "f32[3,3,4,8]", "f32[2,11,7,8]",
                      "window={size=3x3 pad=2_2x0_0 rhs_dilate=2x2}, dim_labels=b01f_01io->b01f"),
           ConvModule("f32[2,9,9,8]", "f32[3,3,8,16]{0,1,2,3}", "f32[2,9,9,16]",
                      "window={size=3x3 pad=0_2x2_0}, dim_labels=b01f_01io->b01f"),
           ConvModule("f32[3,14,14,32]", "f32[3,3,1,32]", "f32[3,14,14,32]",
                      "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
                      "feature_group_count=32"),
           ConvModule("f32[1,10,10,4]", "f32[3,3,1,8]", "f32[1,5,5,8]",
                      "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
                      "feature_group_count=4"),
           ConvModule("f32[2,8,8,6]", "f32[8,3,3,3]", "f32[2,6,6,8]",
                      "window={size=3x3}, dim_labels=b01f_o01i->b01f, feature_group_count=2"),
       }) {
    auto module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    absl::StatusOr<ConvPlan> plan =
        PlanConvolution(*(*module)->entry_computation()->root_instruction());
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_NE(plan->onednn, nullptr) << text;
    CheckBoth(text);
  }
}

// The im2col path where oneDNN would take the convolution.
TEST(ConvThunkTest, Im2colWhereOneDnnWouldRun) {
  SetUseIm2colForTesting(true);
  CheckBoth(ConvModule("f32[3,12,13,8]", "f32[3,3,8,16]", "f32[3,12,13,16]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"));
  CheckBoth(ConvModule("f32[2,6,9,9]", "f32[4,6,3,3]", "f32[2,4,9,9]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01"));
  CheckConv(ConvModule("f32[1,56,56,64]", "f32[3,3,64,64]", "f32[1,56,56,64]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
            &runtime::ThreadPool::Default());
  SetUseIm2colForTesting(false);
}

// Rows in several chunks (RunChunked: 1200 rows of 288, 4 chunks of 304),
// gathered through strided channels and scattered into an NCHW output;
// and the same through the general gather (lhs dilation).
TEST(ConvThunkTest, NchwInChunks) {
  CheckBoth(ConvModule("f32[3,32,20,20]", "f32[16,32,3,3]", "f32[3,16,20,20]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01"));
  CheckBoth(ConvModule("f32[3,32,10,10]", "f32[16,32,3,3]", "f32[3,16,20,20]",
                       "window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2}, dim_labels=bf01_oi01->bf01"));
}

// N spatial dimensions.

TEST(ConvThunkTest, ZeroDIsAMatmul) {
  CheckBoth(ConvModule("f32[4,5]", "f32[5,6]", "f32[4,6]", "window={}, dim_labels=bf_io->bf"));
  CheckBoth(ConvModule("f32[5,4]", "f32[6,5]", "f32[6,4]", "window={}, dim_labels=fb_oi->fb"));
}

TEST(ConvThunkTest, OneDNwcWio) {
  CheckBoth(ConvModule("f32[2,17,5]", "f32[3,5,6]", "f32[2,17,6]",
                       "window={size=3 pad=1_1}, dim_labels=b0f_0io->b0f"));
}

TEST(ConvThunkTest, OneDStrideDilation) {
  CheckBoth(ConvModule("f32[3,20,4]", "f32[4,4,7]", "f32[3,6,7]",
                       "window={size=4 stride=3 pad=2_1 rhs_dilate=2}, dim_labels=b0f_0io->b0f"));
}

TEST(ConvThunkTest, OneDNcwOiw) {
  CheckBoth(ConvModule("f32[2,5,13]", "f32[6,5,3]", "f32[2,6,7]",
                       "window={size=3 stride=2 pad=1_1}, dim_labels=bf0_oi0->bf0"));
}

TEST(ConvThunkTest, OneDOddSizes) {
  // A length-1 sequence padded on both sides, batch 3.
  CheckBoth(ConvModule("f32[3,1,7]", "f32[3,7,5]", "f32[3,3,5]",
                       "window={size=3 pad=2_2}, dim_labels=b0f_0io->b0f"));
}

TEST(ConvThunkTest, ThreeDNdhwcDhwio) {
  CheckBoth(ConvModule("f32[2,7,8,6,3]", "f32[3,3,2,3,4]", "f32[2,4,5,3,4]",
                       "window={size=3x3x2 stride=2x1x2 pad=1_1x0_1x1_0 rhs_dilate=1x2x1}, "
                       "dim_labels=b012f_012io->b012f"));
}

TEST(ConvThunkTest, ThreeDNcdhwOidhw) {
  CheckBoth(ConvModule("f32[1,3,5,6,7]", "f32[4,3,2,2,2]", "f32[1,4,4,5,6]",
                       "window={size=2x2x2}, dim_labels=bf012_oi012->bf012"));
}

TEST(ConvThunkTest, PlainTwoDKeepsTheSimplePath) {
  auto module = ParseHloModule(ConvModule("f32[1,9,9,8]", "f32[3,3,8,16]", "f32[1,9,9,16]",
                                          "window={size=3x3 pad=1_1x1_1}, "
                                          "dim_labels=b01f_01io->b01f"));
  ASSERT_TRUE(module.ok()) << module.status();
  auto plan = PlanConvolution(*(*module)->entry_computation()->root_instruction());
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->simple_2d);
  EXPECT_EQ(plan->kernel_use, ConvPlan::KernelUse::kDirect);
  EXPECT_TRUE(plan->output_direct);
  EXPECT_TRUE(plan->gemm.IsDense());
}

// lhs (base) dilation and window reversal.

TEST(ConvThunkTest, LhsDilation2) {
  CheckBoth(ConvModule("f32[2,5,5,3]", "f32[3,3,3,4]", "f32[2,10,10,4]",
                       "window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f"));
}

TEST(ConvThunkTest, LhsDilationWithStride) {
  CheckBoth(ConvModule("f32[1,6,7,2]", "f32[3,2,2,3]", "f32[1,7,7,3]",
                       "window={size=3x2 stride=2x3 pad=2_2x1_0 lhs_dilate=2x3}, "
                       "dim_labels=b01f_01io->b01f"));
}

TEST(ConvThunkTest, LhsDilationNegativePadding1D) {
  CheckBoth(ConvModule("f32[1,6,3]", "f32[2,3,2]", "f32[1,12,2]",
                       "window={size=2 pad=-2_-1 lhs_dilate=3}, dim_labels=b0f_0io->b0f"));
}

// lhs dilation runs as phases, each a convolution on the taps that read
// the input: JAX's stride-2 transposed convolution (four phases of 2x2,
// 2x1, 1x2 and 1x1 taps, each one oneDNN takes); a stride sharing a factor
// with the dilation (period 2 of dilation 4) and a window dilation too
// (taps 2 apart); a dilation beyond the window (phases with no taps write
// zeros); and more than 64 phases (the whole window, holes and all).
TEST(ConvThunkTest, LhsDilationRunsInPhases) {
  const std::string transposed =
      ConvModule("f32[2,7,6,16]", "f32[3,3,16,8]", "f32[2,14,12,8]",
                 "window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f");
  auto module = ParseHloModule(transposed);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<ConvPlan> plan =
      PlanConvolution(*(*module)->entry_computation()->root_instruction());
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->phases.size(), 4);
  int64_t taps = 0;
  for (const ConvPhase& phase : plan->phases) {
    EXPECT_NE(phase.plan.onednn, nullptr) << phase.plan.ToString();
    taps += phase.plan.kernel_elements();
  }
  EXPECT_EQ(taps, 9);
  CheckBoth(transposed);
  SetUseIm2colForTesting(true);
  CheckBoth(transposed);
  SetUseIm2colForTesting(false);

  CheckBoth(ConvModule("f32[1,9,11,3]", "f32[3,5,3,4]", "f32[1,17,6,4]",
                       "window={size=3x5 stride=2x3 pad=3_1x-2_3 rhs_dilate=2x1 lhs_dilate=4x2 "
                       "rhs_reversal=0x1}, dim_labels=b01f_01io->b01f"));
  CheckBoth(ConvModule("f32[2,5,4,3]", "f32[2,2,3,5]", "f32[2,19,12,5]",
                       "window={size=2x2 pad=1_2x0_0 lhs_dilate=4x4}, dim_labels=b01f_01io->b01f"));
  const std::string many = ConvModule("f32[1,3,3,2]", "f32[2,2,2,3]", "f32[1,20,20,3]",
                                      "window={size=2x2 pad=1_1x1_1 lhs_dilate=9x9}, "
                                      "dim_labels=b01f_01io->b01f");
  module = ParseHloModule(many);
  ASSERT_TRUE(module.ok()) << module.status();
  plan = PlanConvolution(*(*module)->entry_computation()->root_instruction());
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->phases.empty());
  CheckBoth(many);
}

// At the default threshold a small lhs-dilated convolution runs as one
// GEMM over the whole window, and a large one in phases; a small one
// oneDNN takes runs on the calling thread (the same results).
TEST(ConvThunkTest, SmallConvolutionsRunWholeOnTheCallingThread) {
  SetSmallConvolutionFlopsForTesting(int64_t{1} << 22);
  for (const auto& [lhs, rhs, out, phased] : {
           std::tuple<std::string, std::string, std::string, bool>{
               "f32[1,8,8,16]", "f32[3,3,16,16]", "f32[1,16,16,16]", false},  // 1.2 MFLOP
           {"f32[1,16,16,32]", "f32[3,3,32,32]", "f32[1,32,32,32]", true},    // 19 MFLOP
       }) {
    auto module = ParseHloModule(ConvModule(
        lhs, rhs, out, "window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f"));
    ASSERT_TRUE(module.ok()) << module.status();
    absl::StatusOr<ConvPlan> plan =
        PlanConvolution(*(*module)->entry_computation()->root_instruction());
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_EQ(plan->phases.empty(), !phased) << plan->ToString();
  }
  CheckBoth(ConvModule("f32[1,8,8,16]", "f32[3,3,16,16]", "f32[1,16,16,16]",
                       "window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f"));
  // A small convolution oneDNN runs, on the calling thread.
  CheckBoth(ConvModule("f32[3,12,13,8]", "f32[3,3,8,16]", "f32[3,12,13,16]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"));
  SetSmallConvolutionFlopsForTesting(0);
}

TEST(ConvThunkTest, WindowReversal) {
  CheckBoth(ConvModule("f32[2,8,9,3]", "f32[3,2,3,5]", "f32[2,8,8,5]",
                       "window={size=3x2 pad=1_1x0_0 rhs_reversal=1x0}, "
                       "dim_labels=b01f_01io->b01f"));
  CheckBoth(ConvModule("f32[2,9,9,3]", "f32[3,3,3,5]", "f32[2,5,9,5]",
                       "window={size=3x3 pad=0_0x2_2 rhs_dilate=2x2 rhs_reversal=1x1}, "
                       "dim_labels=b01f_01io->b01f"));
}

TEST(ConvThunkTest, InputGradientOfStridedConv) {
  // JAX's input gradient of a stride-2 3x3 SAME conv: lhs dilation, padding
  // and a reversed kernel with swapped features (01oi).
  CheckBoth(ConvModule("f32[2,4,4,8]", "f32[3,3,5,8]", "f32[2,8,8,5]",
                       "window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2 rhs_reversal=1x1}, "
                       "dim_labels=b01f_01oi->b01f"));
}

// Feature groups.

TEST(ConvThunkTest, Depthwise) {
  CheckBoth(ConvModule("f32[2,9,9,8]", "f32[3,3,1,8]", "f32[2,9,9,8]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
                       "feature_group_count=8"));
}

TEST(ConvThunkTest, DepthwiseMultiplier2Stride2) {
  CheckBoth(ConvModule("f32[1,10,10,4]", "f32[3,3,1,8]", "f32[1,5,5,8]",
                       "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
                       "feature_group_count=4"));
}

TEST(ConvThunkTest, Grouped2) {
  CheckBoth(ConvModule("f32[2,8,8,6]", "f32[3,3,3,8]", "f32[2,6,6,8]",
                       "window={size=3x3}, dim_labels=b01f_01io->b01f, feature_group_count=2"));
}

TEST(ConvThunkTest, Grouped4NchwPackedScattered) {
  CheckBoth(ConvModule("f32[2,8,7,7]", "f32[12,2,3,3]", "f32[2,12,7,7]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, "
                       "feature_group_count=4"));
}

TEST(ConvThunkTest, GroupedOhwiKernelTransposed) {
  const std::string text = ConvModule("f32[1,6,6,4]", "f32[6,3,3,2]", "f32[1,4,4,6]",
                                      "window={size=3x3}, dim_labels=b01f_o01i->b01f, "
                                      "feature_group_count=2");
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  auto plan = PlanConvolution(*(*module)->entry_computation()->root_instruction());
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->kernel_use, ConvPlan::KernelUse::kTransposed);
  EXPECT_EQ(plan->gemm.batch, 2);
  CheckBoth(text);
}

TEST(ConvThunkTest, Grouped1DAnd3D) {
  CheckBoth(ConvModule("f32[2,11,6]", "f32[3,2,9]", "f32[2,9,9]",
                       "window={size=3}, dim_labels=b0f_0io->b0f, feature_group_count=3"));
  CheckBoth(ConvModule("f32[2,5,4,6,4]", "f32[2,2,3,2,6]", "f32[2,4,3,2,6]",
                       "window={size=2x2x3 stride=1x1x2}, dim_labels=b012f_012io->b012f, "
                       "feature_group_count=2"));
}

TEST(ConvThunkTest, GroupedWithLhsDilationAndReversal) {
  CheckBoth(ConvModule("f32[2,4,4,4]", "f32[3,3,2,6]", "f32[2,8,8,6]",
                       "window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2 rhs_reversal=1x1}, "
                       "dim_labels=b01f_01io->b01f, feature_group_count=2"));
}

// Batch groups.

TEST(ConvThunkTest, BatchGroups) {
  CheckBoth(ConvModule("f32[4,6,6,3]", "f32[3,3,3,4]", "f32[2,4,4,4]",
                       "window={size=3x3}, dim_labels=b01f_01io->b01f, batch_group_count=2"));
}

TEST(ConvThunkTest, BatchGroupsWeightGradientOfGroupedConv) {
  // The weight gradient of a 2-group conv (x: N=3, C=4, 6x6; dy: O=6, 4x4)
  // as JAX writes it: lhs f01b (its "batch" the channels), rhs i01o.
  CheckBoth(ConvModule("f32[3,6,6,4]", "f32[3,4,4,6]", "f32[3,3,2,6]",
                       "window={size=4x4}, dim_labels=f01b_i01o->01bf, batch_group_count=2"));
  CheckBoth(ConvModule("f32[8,5,5,3]", "f32[3,3,3,8]", "f32[1,3,3,8]",
                       "window={size=3x3}, dim_labels=b01f_01io->b01f, batch_group_count=8"));
}

// Weight gradients (a window as large as the input, few outputs) run as
// one GEMM per output position and window row on a padded copy of the
// input (window_conv.h): 1-D, 2-D, 3-D; window strides, dilations (in the
// last dimension through its phases) and padding, negative and uneven;
// layouts other than the canonical ones (the kernel packed, the input
// read through strides, the output scattered); a narrow float.
TEST(ConvThunkTest, WeightGradientsRunAsWindowGemms) {
  const std::vector<std::string> modules = {
      ConvModule("f32[3,8,8,5]", "f32[3,8,8,6]", "f32[3,3,5,6]",
                 "window={size=8x8 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf"),
      ConvModule("f32[4,140,5]", "f32[4,70,6]", "f32[5,5,6]",
                 "window={size=70 pad=1_2 rhs_dilate=2}, dim_labels=f0b_i0o->0bf"),
      ConvModule("f32[2,12,17,3]", "f32[2,5,14,4]", "f32[2,5,3,4]",
                 "window={size=5x14 stride=2x1 pad=0_-1x1_0 rhs_dilate=2x1}, "
                 "dim_labels=f01b_i01o->01bf"),
      ConvModule("f32[2,9,70,3]", "f32[2,3,33,4]", "f32[3,5,3,4]",
                 "window={size=3x33 pad=0_0x-2_1 rhs_dilate=3x2}, dim_labels=f01b_i01o->01bf"),
      ConvModule("f32[2,5,5,5,3]", "f32[2,4,4,4,5]", "f32[2,2,2,3,5]",
                 "window={size=4x4x4}, dim_labels=f012b_i012o->012bf"),
      ConvModule("f32[3,8,8,5]{0,3,2,1}", "f32[3,8,8,6]{1,2,0,3}", "f32[3,3,5,6]{0,1,3,2}",
                 "window={size=8x8 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf"),
      ConvModule("bf16[3,8,8,5]", "bf16[3,8,8,6]", "bf16[3,3,5,6]",
                 "window={size=8x8 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf"),
  };
  for (const std::string& text : modules) {
    auto module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    absl::StatusOr<ConvPlan> plan =
        PlanConvolution(*(*module)->entry_computation()->root_instruction());
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_TRUE(plan->window_gemms) << plan->ToString();
    CheckBoth(text);
  }
  // A forward convolution, and a weight gradient of a grouped one, do not.
  for (const std::string& text :
       {ConvModule("f32[1,9,9,8]", "f32[3,3,8,16]", "f32[1,9,9,16]",
                   "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
        ConvModule("f32[4,12,12,4]", "f32[4,9,9,6]", "f32[4,4,2,6]",
                   "window={size=9x9}, dim_labels=f01b_i01o->01bf, batch_group_count=2")}) {
    auto module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    absl::StatusOr<ConvPlan> plan =
        PlanConvolution(*(*module)->entry_computation()->root_instruction());
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_FALSE(plan->window_gemms) << plan->ToString();
  }
}

// f64.

TEST(ConvThunkTest, F64) {
  CheckBoth(ConvModule("f64[2,9,9,8]", "f64[3,3,8,16]", "f64[2,9,9,16]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"));
  CheckBoth(ConvModule("f64[2,5,13]", "f64[6,5,3]", "f64[2,6,7]",
                       "window={size=3 stride=2 pad=1_1}, dim_labels=bf0_oi0->bf0"));
  CheckBoth(ConvModule("f64[1,7,6,5,4]", "f64[3,2,3,2,6]", "f64[1,7,5,3,6]",
                       "window={size=3x2x3 pad=1_1x0_0x0_0}, dim_labels=b012f_012io->b012f, "
                       "feature_group_count=2"));
  CheckBoth(ConvModule("f64[2,4,4,8]", "f64[3,3,5,8]", "f64[2,8,8,5]",
                       "window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2 rhs_reversal=1x1}, "
                       "dim_labels=b01f_01oi->b01f"));
  CheckBoth(ConvModule("f64[4,6,6,3]", "f64[3,3,3,4]", "f64[2,4,4,4]",
                       "window={size=3x3}, dim_labels=b01f_01io->b01f, batch_group_count=2"));
}

// F16, BF16 and F8 convolutions run in f32 (oneDNN's and im2col's paths),
// into their own type or f32.
TEST(ConvThunkTest, NarrowFloatsRunInF32) {
  CheckBoth(ConvModule("bf16[2,9,9,8]", "bf16[3,3,8,16]", "bf16[2,9,9,16]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"));
  CheckBoth(ConvModule("bf16[2,8,9,9]", "bf16[16,8,3,3]", "f32[2,16,9,9]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01"));
  CheckBoth(ConvModule("f16[1,7,6,4]", "f16[3,3,2,6]", "f16[1,7,6,6]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
                       "feature_group_count=2"));
  CheckBoth(ConvModule("f8e4m3fn[2,5,13]", "f8e4m3fn[6,5,3]", "f32[2,6,7]",
                       "window={size=3 stride=2 pad=1_1}, dim_labels=bf0_oi0->bf0"));
  CheckBoth(ConvModule("f8e5m2[2,4,4,8]", "f8e5m2[3,3,5,8]", "f8e5m2[2,8,8,5]",
                       "window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2 rhs_reversal=1x1}, "
                       "dim_labels=b01f_01oi->b01f"));
}

// Integer convolutions wrap as the evaluator's: the operands converted to
// the result's type, sums modulo its width (s32 sums over the range, s8
// and u16 results of small operands, u8 operands zero- and s8 ones
// sign-extended), on the im2col paths (chunked, grouped, general).
TEST(ConvThunkTest, IntegersWrapAsTheEvaluator) {
  CheckBoth(ConvModule("s32[2,9,9,8]", "s32[3,3,8,16]", "s32[2,9,9,16]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"));
  CheckBoth(ConvModule("s32[1,2,7,7]", "s32[3,2,3,3]", "s32[1,3,7,7]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01"));
  CheckBoth(ConvModule("u32[2,5,13]", "u32[6,5,3]", "u32[2,6,7]",
                       "window={size=3 stride=2 pad=1_1}, dim_labels=bf0_oi0->bf0"));
  CheckBoth(ConvModule("s8[2,9,9,8]", "s8[3,3,8,16]", "s32[2,9,9,16]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"));
  CheckBoth(ConvModule("s8[2,8,9,9]", "s8[16,8,3,3]", "s32[2,16,9,9]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01"));
  CheckBoth(ConvModule("s8[1,7,6,4]", "s8[3,3,2,6]", "u32[1,7,6,6]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
                       "feature_group_count=2"));
  CheckBoth(ConvModule("s8[2,9,9,8]", "s8[3,3,8,16]", "s8[2,9,9,16]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"));
  CheckBoth(ConvModule("u8[2,6,6,8]", "u8[3,3,8,5]", "u32[2,6,6,5]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"));
  CheckBoth(ConvModule("u8[1,7,6,4]", "u8[3,3,2,6]", "s8[1,7,6,6]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
                       "feature_group_count=2"));
  CheckBoth(ConvModule("s16[2,4,4,8]", "s16[3,3,5,8]", "u16[2,8,8,5]",
                       "window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2 rhs_reversal=1x1}, "
                       "dim_labels=b01f_01oi->b01f"));
  CheckBoth(ConvModule("s32[4,6,6,3]", "s32[3,3,3,4]", "s8[2,4,4,4]",
                       "window={size=3x3}, dim_labels=b01f_01io->b01f, batch_group_count=2"));
}

void ExpectRejected(const std::string& text, absl::string_view message) {
  SCOPED_TRACE(text);
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  auto plan = PlanConvolution(*(*module)->entry_computation()->root_instruction());
  EXPECT_TRUE(absl::IsUnimplemented(plan.status())) << plan.status();
  EXPECT_NE(plan.status().message().find(message), absl::string_view::npos) << plan.status();
}

TEST(ConvThunkTest, Rejections) {
  ExpectRejected(ConvModule("f32[4,8,8,4]", "f32[3,3,2,4]", "f32[2,6,6,4]",
                            "window={size=3x3}, dim_labels=b01f_01io->b01f, "
                            "feature_group_count=2, batch_group_count=2"),
                 "both feature_group_count and batch_group_count > 1");
  ExpectRejected(ConvModule("s64[1,8,3]", "s64[3,3,4]", "s64[1,6,4]",
                            "window={size=3}, dim_labels=b0f_0io->b0f"),
                 "element type s64 (floats and integers of 8 to 32 bits only)");
  ExpectRejected(ConvModule("s8[1,8,3]", "s8[3,3,4]", "f32[1,6,4]",
                            "window={size=3}, dim_labels=b0f_0io->b0f"),
                 "mixed element types s8, s8 -> f32");
  ExpectRejected(ConvModule("bf16[1,8,3]", "bf16[3,3,4]", "f16[1,6,4]",
                            "window={size=3}, dim_labels=b0f_0io->b0f"),
                 "mixed element types bf16, bf16 -> f16");
  ExpectRejected(ConvModule("f32[1,8,3]", "f64[3,3,4]", "f64[1,6,4]",
                            "window={size=3}, dim_labels=b0f_0io->b0f"),
                 "mixed element types f32, f64 -> f64");
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
