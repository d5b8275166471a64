// PlanConvolution and RunConvolution against the reference evaluator: one-
// convolution modules on seeded random inputs, buffers laid out as the
// shapes' layouts say, compared within 1e-4 * (1 + |x|) (reordered sums).
#include "backends/cpu/conv_thunk.h"

#include <cmath>
#include <cstring>
#include <random>
#include <string>
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

std::vector<float> ToPhysical(const Literal& literal, const Shape& shape) {
  std::vector<float> data(shape.ElementCount() + 1);
  const float* src = static_cast<const float*>(literal.untyped_data());
  ForEachElement(shape, [&](int64_t linear, int64_t offset) { data[offset] = src[linear]; });
  return data;
}

std::string ConvModule(absl::string_view lhs, absl::string_view rhs, absl::string_view out,
                       absl::string_view attrs) {
  return absl::StrCat("HloModule m\n\nENTRY e {\n  a = ", lhs, " parameter(0)\n  b = ", rhs,
                      " parameter(1)\n  ROOT c = ", out, " convolution(a, b), ", attrs, "\n}\n");
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
    args.push_back(std::move(*literal));
  }
  auto expected = EvaluateModule(**module, args);
  ASSERT_TRUE(expected.ok()) << expected.status();

  std::vector<float> in = ToPhysical(args[0], conv.operand(0)->shape());
  std::vector<float> ker = ToPhysical(args[1], conv.operand(1)->shape());
  std::vector<float> out(conv.shape().ElementCount() + 1, 12345.0f);
  for (int run = 0; run < 2; ++run) {  // the second run reuses the scratch
    ASSERT_TRUE(RunConvolution(*plan, in.data(), ker.data(), out.data(), pool).ok());
  }
  const float* want = static_cast<const float*>(expected->untyped_data());
  int failures = 0;
  ForEachElement(conv.shape(), [&](int64_t linear, int64_t offset) {
    const double g = out[offset], e = want[linear];
    if (failures < 5 && !(std::fabs(g - e) <= 1e-4 * (1 + std::fabs(e)))) {
      ++failures;
      ADD_FAILURE() << "element " << linear << ": got " << g << ", evaluator " << e;
    }
  });
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

void ExpectRejected(const std::string& text) {
  SCOPED_TRACE(text);
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  auto plan = PlanConvolution(*(*module)->entry_computation()->root_instruction());
  EXPECT_TRUE(absl::IsUnimplemented(plan.status())) << plan.status();
}

TEST(ConvThunkTest, Rejections) {
  ExpectRejected(ConvModule("f32[1,8,8,4]", "f32[3,3,2,4]", "f32[1,6,6,4]",
                            "window={size=3x3}, dim_labels=b01f_01io->b01f, "
                            "feature_group_count=2"));
  ExpectRejected(ConvModule("f32[1,4,4,2]", "f32[3,3,2,3]", "f32[1,5,5,3]",
                            "window={size=3x3 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f"));
  ExpectRejected(ConvModule("f32[1,8,3]", "f32[3,3,4]", "f32[1,6,4]",
                            "window={size=3}, dim_labels=b0f_0io->b0f"));
  ExpectRejected(ConvModule("f64[1,8,8,3]", "f64[3,3,3,4]", "f64[1,6,6,4]",
                            "window={size=3x3}, dim_labels=b01f_01io->b01f"));
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
