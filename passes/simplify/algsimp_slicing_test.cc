// AlgebraicSimplifier: slice, pad, concatenate, dynamic-slice and
// dynamic-update-slice rules.
#include "gtest/gtest.h"
#include "passes/simplify/algsimp_test_util.h"

namespace tessera {
namespace algsimp_test {
namespace {

const std::vector<SliceDimension>& SliceOf(const HloInstruction* h) {
  return h->slice_dimensions();
}

// --- slice -------------------------------------------------------------------

TEST(AlgsimpSlicingTest, FullSlice) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4,3] parameter(0)
  ROOT s = f32[4,3] slice(p), slice={[0:4], [0:3]})")),
            "parameter");
}

TEST(AlgsimpSlicingTest, PartialOrStridedSliceStays) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  ROOT s = f32[2] slice(p), slice={[0:4:2]})")),
            "unchanged");
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  ROOT s = f32[3] slice(p), slice={[1:4]})")),
            "unchanged");
}

TEST(AlgsimpSlicingTest, SliceOfSliceComposes) {
  auto module = Parse(Module(R"(
  p = f32[20] parameter(0)
  a = f32[8] slice(p), slice={[3:19:2]}
  ROOT b = f32[3] slice(a), slice={[1:8:3]})"));
  ASSERT_TRUE(RunAlgsimp(*module));
  ASSERT_EQ(EntryOpcodes(*module), "parameter,slice");
  // a[1], a[4], a[7] = p[5], p[11], p[17].
  EXPECT_EQ(SliceOf(Root(*module))[0], (SliceDimension{5, 18, 6}));
}

TEST(AlgsimpSlicingTest, SliceOfConcatenateWithinOneOperand) {
  auto module = Parse(Module(R"(
  a = f32[2,3] parameter(0)
  b = f32[4,3] parameter(1)
  c = f32[3,3] parameter(2)
  cat = f32[9,3] concatenate(a, b, c), dimensions={0}
  ROOT s = f32[2,2] slice(cat), slice={[3:5], [1:3]})"));
  ASSERT_TRUE(RunAlgsimp(*module));
  ASSERT_EQ(Root(*module)->opcode(), HloOpcode::kSlice);
  EXPECT_EQ(Root(*module)->operand(0)->name(), "b");
  EXPECT_EQ(SliceOf(Root(*module))[0], (SliceDimension{1, 3, 1}));
  EXPECT_EQ(SliceOf(Root(*module))[1], (SliceDimension{1, 3, 1}));
}

TEST(AlgsimpSlicingTest, SliceOfConcatenateCoveringOneOperandIsThatOperand) {
  EXPECT_EQ(After(Module(R"(
  a = f32[2] parameter(0)
  b = f32[4] parameter(1)
  cat = f32[6] concatenate(a, b), dimensions={0}
  ROOT s = f32[4] slice(cat), slice={[2:6]})")),
            "parameter,parameter");
}

TEST(AlgsimpSlicingTest, SliceAcrossConcatenatedOperandsStays) {
  EXPECT_EQ(After(Module(R"(
  a = f32[2] parameter(0)
  b = f32[4] parameter(1)
  cat = f32[6] concatenate(a, b), dimensions={0}
  ROOT s = f32[2] slice(cat), slice={[1:3]})")),
            "unchanged");
}

TEST(AlgsimpSlicingTest, SliceOfPaddingIsBroadcastOfPaddingValue) {
  auto module = Parse(Module(R"(
  p = f32[4] parameter(0)
  v = f32[] parameter(1)
  pad = f32[10] pad(p, v), padding=3_3
  ROOT s = f32[2] slice(pad), slice={[7:10:2]})"));
  ASSERT_TRUE(RunAlgsimp(*module));
  ASSERT_EQ(Root(*module)->opcode(), HloOpcode::kBroadcast);
  EXPECT_EQ(Root(*module)->operand(0)->name(), "v");
}

TEST(AlgsimpSlicingTest, SliceInsidePaddedOperandIsSliceOfOperand) {
  auto module = Parse(Module(R"(
  p = f32[4,5] parameter(0)
  v = f32[] constant(0)
  pad = f32[6,5] pad(p, v), padding=1_1x-1_1
  ROOT s = f32[2,3] slice(pad), slice={[2:4], [0:3]})"));
  ASSERT_TRUE(RunAlgsimp(*module));
  ASSERT_EQ(Root(*module)->opcode(), HloOpcode::kSlice);
  EXPECT_EQ(Root(*module)->operand(0)->name(), "p");
  EXPECT_EQ(SliceOf(Root(*module))[0], (SliceDimension{1, 3, 1}));
  EXPECT_EQ(SliceOf(Root(*module))[1], (SliceDimension{1, 4, 1}));
}

TEST(AlgsimpSlicingTest, SliceMixingPaddingAndOperandStays) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  v = f32[] parameter(1)
  pad = f32[10] pad(p, v), padding=3_3
  ROOT s = f32[4] slice(pad), slice={[1:5]})")),
            "unchanged");
  // Interior padding: the slice reads holes between elements.
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  v = f32[] parameter(1)
  pad = f32[7] pad(p, v), padding=0_0_1
  ROOT s = f32[3] slice(pad), slice={[0:3]})")),
            "unchanged");
}

TEST(AlgsimpSlicingTest, SliceOfBroadcastSlicesTheOperand) {
  auto module = Parse(Module(R"(
  p = f32[5] parameter(0)
  b = f32[3,5] broadcast(p), dimensions={1}
  ROOT s = f32[2,2] slice(b), slice={[0:2], [1:5:2]})"));
  ASSERT_TRUE(RunAlgsimp(*module));
  ASSERT_EQ(EntryOpcodes(*module), "parameter,slice,broadcast");
  EXPECT_EQ(SliceOf(Root(*module)->operand(0))[0], (SliceDimension{1, 5, 2}));
}

TEST(AlgsimpSlicingTest, SliceOfScalarBroadcastIsBroadcast) {
  EXPECT_EQ(After(Module(R"(
  p = f32[] parameter(0)
  b = f32[8,8] broadcast(p), dimensions={}
  ROOT s = f32[2,3] slice(b), slice={[1:3], [4:7]})")),
            "parameter,broadcast");
}

// --- pad ---------------------------------------------------------------------

TEST(AlgsimpSlicingTest, PadWithNoPadding) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4,3] parameter(0)
  v = f32[] constant(0)
  ROOT pad = f32[4,3] pad(p, v), padding=0_0x0_0)")),
            "parameter");
}

TEST(AlgsimpSlicingTest, PadWithPaddingStays) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  v = f32[] constant(0)
  ROOT pad = f32[5] pad(p, v), padding=0_1)")),
            "unchanged");
}

TEST(AlgsimpSlicingTest, PadOfZeroElementOperandIsBroadcast) {
  auto module = Parse(Module(R"(
  p = f32[0,3] parameter(0)
  v = f32[] parameter(1)
  ROOT pad = f32[2,3] pad(p, v), padding=1_1x0_0)"));
  ASSERT_TRUE(RunAlgsimp(*module));
  ASSERT_EQ(Root(*module)->opcode(), HloOpcode::kBroadcast);
  EXPECT_EQ(Root(*module)->operand(0)->name(), "v");
}

// --- concatenate --------------------------------------------------------------

TEST(AlgsimpSlicingTest, ConcatenateOfOneOperand) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  ROOT c = f32[4] concatenate(p), dimensions={0})")),
            "parameter");
}

TEST(AlgsimpSlicingTest, ConcatenateDropsZeroElementOperands) {
  auto module = Parse(Module(R"(
  a = f32[2,3] parameter(0)
  e = f32[2,0] parameter(1)
  b = f32[2,4] parameter(2)
  ROOT c = f32[2,7] concatenate(a, e, b), dimensions={1})"));
  ASSERT_TRUE(RunAlgsimp(*module));
  ASSERT_EQ(Root(*module)->opcode(), HloOpcode::kConcatenate);
  EXPECT_EQ(Root(*module)->operand_count(), 2);
  EXPECT_EQ(Root(*module)->dimensions(), (std::vector<int64_t>{1}));
}

TEST(AlgsimpSlicingTest, ConcatenateOfAdjacentSlicesIsOneSlice) {
  EXPECT_EQ(After(Module(R"(
  p = f32[6,3] parameter(0)
  a = f32[2,3] slice(p), slice={[0:2], [0:3]}
  b = f32[1,3] slice(p), slice={[2:3], [0:3]}
  c = f32[3,3] slice(p), slice={[3:6], [0:3]}
  ROOT cat = f32[6,3] concatenate(a, b, c), dimensions={0})")),
            "parameter");
  auto module = Parse(Module(R"(
  p = f32[6,3] parameter(0)
  a = f32[2,2] slice(p), slice={[1:3], [1:3]}
  b = f32[2,2] slice(p), slice={[3:5], [1:3]}
  ROOT cat = f32[4,2] concatenate(a, b), dimensions={0})"));
  ASSERT_TRUE(RunAlgsimp(*module));
  ASSERT_EQ(EntryOpcodes(*module), "parameter,slice");
  EXPECT_EQ(SliceOf(Root(*module))[0], (SliceDimension{1, 5, 1}));
}

TEST(AlgsimpSlicingTest, ConcatenateMergesRunsOfAdjacentSlices) {
  auto module = Parse(Module(R"(
  p = f32[6] parameter(0)
  q = f32[2] parameter(1)
  a = f32[2] slice(p), slice={[0:2]}
  b = f32[2] slice(p), slice={[2:4]}
  ROOT cat = f32[6] concatenate(a, b, q), dimensions={0})"));
  ASSERT_TRUE(RunAlgsimp(*module));
  const HloInstruction* root = Root(*module);
  ASSERT_EQ(root->opcode(), HloOpcode::kConcatenate);
  ASSERT_EQ(root->operand_count(), 2);
  EXPECT_EQ(SliceOf(root->operand(0))[0], (SliceDimension{0, 4, 1}));
  EXPECT_EQ(root->operand(1)->name(), "q");
}

TEST(AlgsimpSlicingTest, ConcatenateOfNonAdjacentSlicesStays) {
  EXPECT_EQ(After(Module(R"(
  p = f32[6] parameter(0)
  a = f32[2] slice(p), slice={[0:2]}
  b = f32[2] slice(p), slice={[3:5]}
  ROOT cat = f32[4] concatenate(a, b), dimensions={0})")),
            "unchanged");
  // Adjacent along the other dimension.
  EXPECT_EQ(After(Module(R"(
  p = f32[4,4] parameter(0)
  a = f32[2,2] slice(p), slice={[0:2], [0:2]}
  b = f32[2,2] slice(p), slice={[0:2], [2:4]}
  ROOT cat = f32[4,2] concatenate(a, b), dimensions={0})")),
            "unchanged");
}

// --- dynamic-slice and dynamic-update-slice ------------------------------------

TEST(AlgsimpSlicingTest, DynamicSliceWithConstantIndicesIsSlice) {
  auto module = Parse(Module(R"(
  p = f32[8,6] parameter(0)
  i = s32[] constant(3)
  j = s32[] constant(1)
  ROOT d = f32[2,4] dynamic-slice(p, i, j), dynamic_slice_sizes={2,4})"));
  ASSERT_TRUE(RunAlgsimp(*module));
  ASSERT_EQ(EntryOpcodes(*module), "parameter,slice");
  EXPECT_EQ(SliceOf(Root(*module))[0], (SliceDimension{3, 5, 1}));
  EXPECT_EQ(SliceOf(Root(*module))[1], (SliceDimension{1, 5, 1}));
}

TEST(AlgsimpSlicingTest, DynamicSliceIndicesClampAsXlaDoes) {
  auto module = Parse(Module(R"(
  p = f32[8,6] parameter(0)
  i = s32[] constant(7)
  j = u32[] constant(4294967295)
  ROOT d = f32[2,4] dynamic-slice(p, i, j), dynamic_slice_sizes={2,4})"));
  ASSERT_TRUE(RunAlgsimp(*module));
  // 7 clamps to 8 - 2; u32 max clamps to 6 - 4.
  EXPECT_EQ(SliceOf(Root(*module))[0], (SliceDimension{6, 8, 1}));
  EXPECT_EQ(SliceOf(Root(*module))[1], (SliceDimension{2, 6, 1}));
  auto negative = Parse(Module(R"(
  p = f32[8] parameter(0)
  i = s8[] constant(-5)
  ROOT d = f32[3] dynamic-slice(p, i), dynamic_slice_sizes={3})"));
  ASSERT_TRUE(RunAlgsimp(*negative));
  EXPECT_EQ(SliceOf(Root(*negative))[0], (SliceDimension{0, 3, 1}));
}

TEST(AlgsimpSlicingTest, DynamicSliceWithVariableIndicesStays) {
  EXPECT_EQ(After(Module(R"(
  p = f32[8] parameter(0)
  i = s32[] parameter(1)
  ROOT d = f32[3] dynamic-slice(p, i), dynamic_slice_sizes={3})")),
            "unchanged");
}

TEST(AlgsimpSlicingTest, DynamicSliceOfWholeOperand) {
  EXPECT_EQ(After(Module(R"(
  p = f32[8] parameter(0)
  i = s32[] parameter(1)
  ROOT d = f32[8] dynamic-slice(p, i), dynamic_slice_sizes={8})")),
            "parameter,parameter");
}

TEST(AlgsimpSlicingTest, DynamicUpdateSliceCoveringTheOperand) {
  auto module = Parse(Module(R"(
  p = f32[4,3] parameter(0)
  u = f32[4,3] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT d = f32[4,3] dynamic-update-slice(p, u, i, j))"));
  ASSERT_TRUE(RunAlgsimp(*module));
  EXPECT_EQ(Root(*module)->name(), "u");
}

TEST(AlgsimpSlicingTest, PartialDynamicUpdateSliceStays) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4,3] parameter(0)
  u = f32[2,3] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT d = f32[4,3] dynamic-update-slice(p, u, i, j))")),
            "unchanged");
}

TEST(AlgsimpSlicingTest, DynamicUpdateSliceWithOtherLayoutStays) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4,3]{1,0} parameter(0)
  u = f32[4,3]{0,1} parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT d = f32[4,3]{1,0} dynamic-update-slice(p, u, i, j))")),
            "unchanged");
}

}  // namespace
}  // namespace algsimp_test
}  // namespace tessera
