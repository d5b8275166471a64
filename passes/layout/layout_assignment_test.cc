#include "passes/layout/layout_assignment.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "passes/pass_test_util.h"

namespace tessera {
namespace {

using pass_test::FindInstruction;
using pass_test::Parse;
using pass_test::RunPassKeepingResults;

std::string LayoutOf(const HloModule& module, absl::string_view name) {
  const HloInstruction* instruction = FindInstruction(module, name);
  return instruction == nullptr ? "" : instruction->shape().layout().ToString();
}

// lax.conv's NCHW/OIHW: the kernels want NHWC ({1,3,2,0} here) and HWIO
// ({0,1,3,2}).
TEST(LayoutAssignmentTest, PreferredLayoutsFollowTheDimLabels) {
  std::unique_ptr<HloModule> module = Parse(R"(HloModule m
ENTRY e {
  x = f32[2,3,9,9] parameter(0)
  k = f32[4,3,3,3] parameter(1)
  ROOT c = f32[2,4,7,7] convolution(x, k), window={size=3x3}, dim_labels=bf01_oi01->bf01
}
)");
  ASSERT_NE(module, nullptr);
  const ConvolutionLayouts layouts =
      PreferredConvolutionLayouts(*module->entry_computation()->root_instruction());
  EXPECT_EQ(layouts.input.ToString(), "{1,3,2,0}");
  EXPECT_EQ(layouts.kernel.ToString(), "{0,1,3,2}");
  EXPECT_EQ(layouts.output.ToString(), "{1,3,2,0}");
}

// conv -> relu -> conv -> relu -> conv in NCHW: the values between the
// convolutions go NHWC (and a kernel computed in the module HWIO); the
// entry's parameters and root keep their layouts.
TEST(LayoutAssignmentTest, ConvolutionChainsKeepNhwcInBetween) {
  std::unique_ptr<HloModule> module = Parse(R"(HloModule m
ENTRY e {
  x = f32[2,3,9,9] parameter(0)
  k1 = f32[4,3,3,3] parameter(1)
  k2 = f32[4,4,3,3] parameter(2)
  c1 = f32[2,4,9,9] convolution(x, k1), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  zero = f32[] constant(0)
  zb = f32[2,4,9,9] broadcast(zero), dimensions={}
  r1 = f32[2,4,9,9] maximum(c1, zb)
  two = f32[] constant(2)
  tb = f32[4,4,3,3] broadcast(two), dimensions={}
  k2s = f32[4,4,3,3] multiply(k2, tb)
  c2 = f32[2,4,9,9] convolution(r1, k2s), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  r2 = f32[2,4,9,9] maximum(c2, zb)
  kv = f32[4] parameter(3)
  kb = f32[4,4,3,3] broadcast(kv), dimensions={0}
  c3 = f32[2,4,9,9] convolution(r2, kb), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  ROOT r3 = f32[2,4,9,9] maximum(c3, zb)
}
)");
  ASSERT_NE(module, nullptr);
  LayoutAssignment pass;
  EXPECT_TRUE(RunPassKeepingResults(pass, *module).value_or(false));
  for (const char* name : {"c1", "zb", "r1", "c2", "r2"}) {
    EXPECT_EQ(LayoutOf(*module, name), "{1,3,2,0}") << name;
  }
  // A kernel broadcast inside the module is written HWIO.
  EXPECT_EQ(LayoutOf(*module, "kb"), "{0,1,3,2}");
  // k2s is computed from the parameter k2: HWIO would make that multiply
  // a transposing pass, which is what packing it costs the convolution.
  EXPECT_EQ(LayoutOf(*module, "k2s"), "{3,2,1,0}");
  // c3's ReLU is the root: c3 stays with it.
  EXPECT_EQ(LayoutOf(*module, "c3"), "{3,2,1,0}");
  for (const char* name : {"x", "k1", "k2", "r3"}) {
    EXPECT_EQ(LayoutOf(*module, name), "{3,2,1,0}") << name;
  }
}

// A value that a reshape, a tuple or an in-place update reads by its bytes
// keeps its layout; so does a computation's root.
TEST(LayoutAssignmentTest, LayoutReadersKeepTheirOperandsLayouts) {
  std::unique_ptr<HloModule> module = Parse(R"(HloModule m
ENTRY e {
  x = f32[2,3,5,5] parameter(0)
  k = f32[4,3,3,3] parameter(1)
  c = f32[2,4,3,3] convolution(x, k), window={size=3x3}, dim_labels=bf01_oi01->bf01
  flat = f32[2,36] reshape(c)
  c2 = f32[2,4,3,3] convolution(x, k), window={size=3x3}, dim_labels=bf01_oi01->bf01
  u = f32[1,4,3,3] slice(c2), slice={[0:1], [0:4], [0:3], [0:3]}
  zero = s32[] constant(0)
  c3 = f32[2,4,3,3] convolution(x, k), window={size=3x3}, dim_labels=bf01_oi01->bf01
  d = f32[2,4,3,3] dynamic-update-slice(c3, u, zero, zero, zero, zero)
  ROOT t = (f32[2,36], f32[2,4,3,3]) tuple(flat, d)
}
)");
  ASSERT_NE(module, nullptr);
  LayoutAssignment pass;
  EXPECT_TRUE(RunPassKeepingResults(pass, *module).value_or(false));
  EXPECT_EQ(LayoutOf(*module, "c"), "{3,2,1,0}");   // reshape user
  EXPECT_EQ(LayoutOf(*module, "c2"), "{1,3,2,0}");  // sliced: any layout
  EXPECT_EQ(LayoutOf(*module, "c3"), "{3,2,1,0}");  // updated in place
  EXPECT_EQ(LayoutOf(*module, "d"), "{3,2,1,0}");   // a tuple's element
}

// An NCHW parameter with many features is converted once, for both
// convolutions reading it; an RGB-sized one is gathered as it is.
TEST(LayoutAssignmentTest, ManyFeatureInputsAreConvertedOnce) {
  std::unique_ptr<HloModule> module = Parse(R"(HloModule m
ENTRY e {
  x = f32[2,16,6,6] parameter(0)
  k = f32[4,16,3,3] parameter(1)
  rgb = f32[2,3,6,6] parameter(2)
  k3 = f32[4,3,3,3] parameter(3)
  a = f32[2,4,4,4] convolution(x, k), window={size=3x3}, dim_labels=bf01_oi01->bf01
  b = f32[2,4,4,4] convolution(x, k), window={size=3x3 rhs_dilate=1x1}, dim_labels=bf01_oi01->bf01
  c = f32[2,4,4,4] convolution(rgb, k3), window={size=3x3}, dim_labels=bf01_oi01->bf01
  ROOT t = (f32[2,4,4,4], f32[2,4,4,4], f32[2,4,4,4]) tuple(a, b, c)
}
)");
  ASSERT_NE(module, nullptr);
  LayoutAssignment pass;
  EXPECT_TRUE(RunPassKeepingResults(pass, *module).value_or(false));
  const HloInstruction* a = FindInstruction(*module, "a");
  const HloInstruction* b = FindInstruction(*module, "b");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(a->operand(0)->opcode(), HloOpcode::kCopy);
  EXPECT_EQ(a->operand(0)->shape().layout().ToString(), "{1,3,2,0}");
  EXPECT_EQ(a->operand(0), b->operand(0));
  EXPECT_EQ(FindInstruction(*module, "c")->operand(0)->name(), "rgb");
}

// A many-feature convolution whose result (through its ReLU) is the root,
// or a root tuple's element, is computed NHWC and converted by one copy at
// the end; a few-feature one stays (ConvolutionChainsKeepNhwcInBetween).
TEST(LayoutAssignmentTest, ManyFeatureResultsAreConvertedAtTheRoot) {
  for (const bool tuple : {false, true}) {
    SCOPED_TRACE(tuple ? "tuple" : "array");
    std::unique_ptr<HloModule> module =
        Parse(absl::StrCat(R"(HloModule m
ENTRY e {
  x = f32[2,16,6,6] parameter(0)
  k = f32[16,16,3,3] parameter(1)
  c = f32[2,16,6,6] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  zero = f32[] constant(0)
  zb = f32[2,16,6,6] broadcast(zero), dimensions={}
  )",
                           tuple ? "r" : "ROOT r", R"( = f32[2,16,6,6] maximum(c, zb)
  )",
                           tuple ? "ROOT t = (f32[2,16,6,6], f32[2,16,6,6]) tuple(r, x)" : "", R"(
}
)"));
    ASSERT_NE(module, nullptr);
    LayoutAssignment pass;
    EXPECT_TRUE(RunPassKeepingResults(pass, *module).value_or(false));
    EXPECT_EQ(LayoutOf(*module, "c"), "{1,3,2,0}");
    EXPECT_EQ(LayoutOf(*module, "r"), "{1,3,2,0}");
    const HloInstruction* root = module->entry_computation()->root_instruction();
    const HloInstruction* converted = tuple ? root->operand(0) : root;
    EXPECT_EQ(converted->opcode(), HloOpcode::kCopy);
    EXPECT_EQ(converted->shape().layout().ToString(), "{3,2,1,0}");
    EXPECT_EQ(converted->operand(0)->name(), "r");
  }
}

// Reshapes between row-major layouts become bitcasts (no kernel, no copy);
// the root's reshape, and one out of a non-row-major layout, stay.
TEST(LayoutAssignmentTest, RowMajorReshapesBecomeBitcasts) {
  std::unique_ptr<HloModule> module = Parse(R"(HloModule m
ENTRY e {
  x = f32[4,6] parameter(0)
  heads = f32[4,2,3] reshape(x)
  y = f32[3,2] parameter(1)
  k = f32[3,2] add(y, y)
  r = f32[2,3] reshape(k)
  t = f32[3,2]{0,1} transpose(r), dimensions={1,0}
  n = f32[2,3] reshape(t)
  s = f32[4,2,3] multiply(heads, heads)
  b = f32[4,2,3] broadcast(n), dimensions={1,2}
  sum = f32[4,2,3] add(s, b)
  ROOT out = f32[24] reshape(sum)
}
)");
  ASSERT_NE(module, nullptr);
  LayoutAssignment pass;
  EXPECT_TRUE(RunPassKeepingResults(pass, *module).value_or(false));
  const HloInstruction* s = FindInstruction(*module, "s");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->operand(0)->opcode(), HloOpcode::kBitcast);
  EXPECT_EQ(s->operand(0)->operand(0)->name(), "x");
  EXPECT_EQ(module->entry_computation()->root_instruction()->opcode(), HloOpcode::kReshape);
  const HloInstruction* b = FindInstruction(*module, "b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->operand(0)->opcode(), HloOpcode::kReshape);  // of a {0,1} transpose
}

// A batched dot read only through a transpose and a reshape (attention's
// [heads, seq, dim] -> [seq, heads * dim]) writes [seq, heads, dim]
// directly: the transpose and the reshape become bitcasts.
TEST(LayoutAssignmentTest, DotsWriteTheirTransposedLayout) {
  std::unique_ptr<HloModule> module = Parse(R"(HloModule m
ENTRY e {
  p = f32[2,3,4] parameter(0)
  v = f32[2,4,5] parameter(1)
  d = f32[2,3,5] dot(p, v), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  t = f32[3,2,5]{2,0,1} transpose(d), dimensions={1,0,2}
  r = f32[3,10] reshape(t)
  w = f32[10,7] parameter(2)
  ROOT o = f32[3,7] dot(r, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)");
  ASSERT_NE(module, nullptr);
  LayoutAssignment pass;
  EXPECT_TRUE(RunPassKeepingResults(pass, *module).value_or(false));
  EXPECT_EQ(LayoutOf(*module, "d"), "{2,0,1}");
  const HloInstruction* root = module->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kBitcast);
  EXPECT_EQ(root->operand(0)->operand(0)->opcode(), HloOpcode::kBitcast);
  EXPECT_EQ(root->operand(0)->operand(0)->operand(0)->name(), "d");

  // Two batch dimensions: the GEMM's strided batch is one; the dot stays.
  std::unique_ptr<HloModule> two = Parse(R"(HloModule m
ENTRY e {
  p = f32[2,2,3,4] parameter(0)
  v = f32[2,2,4,5] parameter(1)
  d = f32[2,2,3,5] dot(p, v), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}
  t = f32[3,2,2,5] transpose(d), dimensions={2,0,1,3}
  ROOT r = f32[3,20] reshape(t)
}
)");
  ASSERT_NE(two, nullptr);
  (void)RunPassKeepingResults(pass, *two);
  EXPECT_EQ(LayoutOf(*two, "d"), "{3,2,1,0}");
}

// A module already laid out for the kernels (NHWC/HWIO) is unchanged.
TEST(LayoutAssignmentTest, NhwcModulesAreUnchanged) {
  std::unique_ptr<HloModule> module = Parse(R"(HloModule m
ENTRY e {
  x = f32[1,8,8,4] parameter(0)
  k = f32[3,3,4,4] parameter(1)
  c = f32[1,8,8,4] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  ROOT n = f32[1,8,8,4] negate(c)
}
)");
  ASSERT_NE(module, nullptr);
  LayoutAssignment pass;
  EXPECT_FALSE(RunPassKeepingResults(pass, *module).value_or(true));
}

}  // namespace
}  // namespace tessera
