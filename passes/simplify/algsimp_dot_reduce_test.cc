// AlgebraicSimplifier: reduce and dot rules.
#include "gtest/gtest.h"
#include "passes/simplify/algsimp_test_util.h"

namespace tessera {
namespace algsimp_test {
namespace {

const std::string kAddF32 = Reducer("add_f32", "add", "f32");
const std::string kAddS32 = Reducer("add_s32", "add", "s32");
const std::string kMaxF32 = Reducer("max_f32", "maximum", "f32");
const std::string kMulF32 = Reducer("mul_f32", "multiply", "f32");
const std::string kSubF32 = Reducer("sub_f32", "subtract", "f32");

// --- reduce ------------------------------------------------------------------

TEST(AlgsimpReduceTest, ReduceOverNoDimensionsAppliesTheReducerOnce) {
  // Each element is folded once into +0: x + 0, which is not x for -0, so
  // the add stays.
  auto module = Parse(Module(R"(
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[4] reduce(p, z), dimensions={}, to_apply=add_f32)",
                             kAddF32));
  ASSERT_TRUE(RunAlgsimp(*module));
  EXPECT_EQ(EntryOpcodes(*module), "parameter,constant,broadcast,add");
}

TEST(AlgsimpReduceTest, ReduceOverNoDimensionsWithIdentityInitIsOperand) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  z = f32[] constant(-0)
  ROOT r = f32[4] reduce(p, z), dimensions={}, to_apply=add_f32)",
                         kAddF32)),
            "parameter");
}

TEST(AlgsimpReduceTest, ReducerOperandOrderIsKept) {
  // reducer(acc, x) = x - acc.
  auto module = Parse(Module(R"(
  p = f32[4,1] parameter(0)
  i = f32[] parameter(1)
  ROOT r = f32[4] reduce(p, i), dimensions={1}, to_apply=rsub)",
                             R"(rsub {
  acc = f32[] parameter(0)
  x = f32[] parameter(1)
  ROOT d = f32[] subtract(x, acc)
})"));
  ASSERT_TRUE(RunAlgsimp(*module));
  const HloInstruction* root = Root(*module);
  ASSERT_EQ(root->opcode(), HloOpcode::kSubtract);
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kReshape);
  EXPECT_EQ(root->operand(1)->opcode(), HloOpcode::kBroadcast);
}

TEST(AlgsimpReduceTest, ReduceOverUnitDimensions) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4,1,3] parameter(0)
  i = f32[] parameter(1)
  ROOT r = f32[4,3] reduce(p, i), dimensions={1}, to_apply=mul_f32)",
                         kMulF32)),
            "parameter,parameter,reshape,broadcast,multiply");
}

TEST(AlgsimpReduceTest, ReduceWithComplexReducerStays) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4,1] parameter(0)
  i = f32[] parameter(1)
  ROOT r = f32[4] reduce(p, i), dimensions={1}, to_apply=twice
)",
                         R"(twice {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  s = f32[] add(a, b)
  ROOT t = f32[] add(s, b)
})")),
            "unchanged");
}

TEST(AlgsimpReduceTest, ReduceOfZeroElementsIsInit) {
  auto module = Parse(Module(R"(
  p = f32[3,0] parameter(0)
  i = f32[] parameter(1)
  ROOT r = f32[3] reduce(p, i), dimensions={1}, to_apply=sub_f32)",
                             kSubF32));
  ASSERT_TRUE(RunAlgsimp(*module));
  ASSERT_EQ(Root(*module)->opcode(), HloOpcode::kBroadcast);
  EXPECT_EQ(Root(*module)->operand(0)->name(), "i");
}

TEST(AlgsimpReduceTest, MaxOfBroadcastIsBroadcast) {
  EXPECT_EQ(After(Module(R"(
  p = f32[3] parameter(0)
  b = f32[5,3,7] broadcast(p), dimensions={1}
  init = f32[] constant(-inf)
  ROOT r = f32[3] reduce(b, init), dimensions={0,2}, to_apply=max_f32)",
                         kMaxF32)),
            "parameter");
  EXPECT_EQ(After(Module(R"(
  p = f32[3] parameter(0)
  b = f32[5,3,7] broadcast(p), dimensions={1}
  init = f32[] parameter(1)
  ROOT r = f32[3,7] reduce(b, init), dimensions={0}, to_apply=max_f32)",
                         kMaxF32)),
            "parameter,parameter,broadcast,broadcast,maximum");
}

TEST(AlgsimpReduceTest, IntegerSumOfBroadcastIsMultiply) {
  auto module = Parse(Module(R"(
  p = s32[3] parameter(0)
  b = s32[3,6] broadcast(p), dimensions={0}
  init = s32[] parameter(1)
  ROOT r = s32[3] reduce(b, init), dimensions={1}, to_apply=add_s32)",
                             kAddS32));
  ASSERT_TRUE(RunAlgsimp(*module));
  const HloInstruction* root = Root(*module);
  ASSERT_EQ(root->opcode(), HloOpcode::kAdd);
  const HloInstruction* product = root->operand(1);
  ASSERT_EQ(product->opcode(), HloOpcode::kMultiply);
  EXPECT_EQ(product->operand(0)->name(), "p");
  EXPECT_EQ(product->operand(1)->operand(0)->literal().Get<int32_t>({}), 6);
}

TEST(AlgsimpReduceTest, FloatSumOfBroadcastStays) {
  // Adding six copies of v rounds differently from 6 * v.
  EXPECT_EQ(After(Module(R"(
  p = f32[3] parameter(0)
  b = f32[3,6] broadcast(p), dimensions={0}
  init = f32[] constant(0)
  ROOT r = f32[3] reduce(b, init), dimensions={1}, to_apply=add_f32)",
                         kAddF32)),
            "unchanged");
}

TEST(AlgsimpReduceTest, ReduceOverBroadcastOperandDimensionStays) {
  EXPECT_EQ(After(Module(R"(
  p = f32[3] parameter(0)
  b = f32[3,6] broadcast(p), dimensions={0}
  init = f32[] constant(-inf)
  ROOT r = f32[6] reduce(b, init), dimensions={0}, to_apply=max_f32)",
                         kMaxF32)),
            "unchanged");
}

TEST(AlgsimpReduceTest, ReduceOfReshapeAddingUnitDimensions) {
  auto module = Parse(Module(R"(
  p = f32[4,3] parameter(0)
  r1 = f32[4,1,3,1] reshape(p)
  z = f32[] constant(0)
  ROOT r = f32[3,1] reduce(r1, z), dimensions={0,1}, to_apply=add_f32)",
                             kAddF32));
  ASSERT_TRUE(RunAlgsimp(*module));
  const HloInstruction* root = Root(*module);
  ASSERT_EQ(root->opcode(), HloOpcode::kReshape);
  ASSERT_EQ(root->operand(0)->opcode(), HloOpcode::kReduce);
  EXPECT_EQ(root->operand(0)->operand(0)->name(), "p");
  EXPECT_EQ(root->operand(0)->dimensions(), (std::vector<int64_t>{0}));
}

TEST(AlgsimpReduceTest, ReduceOfGeneralReshapeStays) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4,3] parameter(0)
  r1 = f32[2,6] reshape(p)
  z = f32[] constant(0)
  ROOT r = f32[6] reduce(r1, z), dimensions={0}, to_apply=add_f32)",
                         kAddF32)),
            "unchanged");
}

// --- dot ---------------------------------------------------------------------

TEST(AlgsimpDotTest, ContractingDimensionOfSizeOneIsMultiply) {
  // The + 0 turns a -0 product into +0, as the dot's accumulator does.
  auto module = Parse(Module(R"(
  a = f32[4,1] parameter(0)
  b = f32[1,5] parameter(1)
  ROOT d = f32[4,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0})"));
  ASSERT_TRUE(RunAlgsimp(*module));
  const HloInstruction* root = Root(*module);
  ASSERT_EQ(root->opcode(), HloOpcode::kAdd);
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kMultiply);
  EXPECT_FALSE(*AlgebraicSimplifier().Run(module.get()));
}

TEST(AlgsimpDotTest, DotToMultiplyUnderFastMathOrForIntegers) {
  auto module = Parse(Module(R"(
  a = f32[4,1] parameter(0)
  b = f32[1,5] parameter(1)
  ROOT d = f32[4,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0})"));
  ASSERT_TRUE(*AlgebraicSimplifier(FastMath()).Run(module.get()));
  EXPECT_EQ(EntryOpcodes(*module), "parameter,parameter,reshape,broadcast,reshape,broadcast,multiply");
  EXPECT_EQ(After(Module(R"(
  a = s32[4,1] parameter(0)
  b = s32[1,5] parameter(1)
  ROOT d = s32[4,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0})")),
            "parameter,parameter,reshape,broadcast,reshape,broadcast,multiply");
}

TEST(AlgsimpDotTest, BatchedDotWithUnitContractionAndTransposedOperand) {
  // lhs [k=1, batch=2, m=3], rhs [batch=2, n=4, k=1].
  auto module = Parse(Module(R"(
  a = f32[1,2,3] parameter(0)
  b = f32[2,4,1] parameter(1)
  ROOT d = f32[2,3,4] dot(a, b), lhs_batch_dims={1}, lhs_contracting_dims={0}, rhs_batch_dims={0}, rhs_contracting_dims={2})"));
  ASSERT_TRUE(RunAlgsimp(*module));
  EXPECT_EQ(Root(*module)->opcode(), HloOpcode::kAdd);
}

TEST(AlgsimpDotTest, MixedPrecisionDotToMultiplyConvertsFirst) {
  auto module = Parse(Module(R"(
  a = bf16[3] parameter(0)
  b = bf16[5] parameter(1)
  ROOT d = f32[3,5] dot(a, b))"));
  ASSERT_TRUE(RunAlgsimp(*module));
  EXPECT_EQ(EntryOpcodes(*module),
            "parameter,parameter,convert,broadcast,convert,broadcast,multiply,constant,broadcast,"
            "add");
}

TEST(AlgsimpDotTest, HalfPrecisionDotToMultiplySumsInF32) {
  // The product -1e-8 underflows to -0 in f16 but not in the dot's f32
  // accumulator: 0 + (-1e-8) rounds to -0, while f16 multiply + 0 is +0.
  auto module = Parse(Module(R"(
  a = f16[1,1] constant({ {0.0001} })
  b = f16[1,1] constant({ {-0.0001} })
  ROOT d = f16[1,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0})"));
  ASSERT_TRUE(RunAlgsimp(*module));
  const HloInstruction* root = Root(*module);
  ASSERT_EQ(root->opcode(), HloOpcode::kConvert);
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kAdd);
  EXPECT_EQ(root->operand(0)->shape().element_type(), F32);
}

TEST(AlgsimpDotTest, DotToMultiplyCanBeTurnedOff) {
  AlgebraicSimplifierOptions options;
  options.enable_dot_to_multiply = false;
  EXPECT_EQ(After(Module(R"(
  a = f32[4,1] parameter(0)
  b = f32[1,5] parameter(1)
  ROOT d = f32[4,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0})"),
                  options),
            "unchanged");
}

TEST(AlgsimpDotTest, LongerContractionStays) {
  EXPECT_EQ(After(Module(R"(
  a = f32[4,2] parameter(0)
  b = f32[2,5] parameter(1)
  ROOT d = f32[4,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0})")),
            "unchanged");
}

TEST(AlgsimpDotTest, DotOverZeroElementsIsZeros) {
  auto module = Parse(Module(R"(
  a = f32[4,0] parameter(0)
  b = f32[0,5] parameter(1)
  ROOT d = f32[4,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0})"));
  ASSERT_TRUE(RunAlgsimp(*module));
  ASSERT_EQ(Root(*module)->opcode(), HloOpcode::kBroadcast);
  const Literal& zero = Root(*module)->operand(0)->literal();
  EXPECT_EQ(zero.Get<float>({}), 0.0f);
  EXPECT_FALSE(std::signbit(zero.Get<float>({})));
}

TEST(AlgsimpDotTest, OperandTransposesFoldIntoDimensionNumbers) {
  auto module = Parse(Module(R"(
  a = f32[3,4] parameter(0)
  b = f32[5,3] parameter(1)
  ta = f32[4,3] transpose(a), dimensions={1,0}
  tb = f32[3,5] transpose(b), dimensions={1,0}
  ROOT d = f32[4,5] dot(ta, tb), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={high,default})"));
  ASSERT_TRUE(RunAlgsimp(*module));
  const HloInstruction* root = Root(*module);
  ASSERT_EQ(EntryOpcodes(*module), "parameter,parameter,dot");
  EXPECT_EQ(root->dot_dimension_numbers().lhs_contracting_dimensions, (std::vector<int64_t>{0}));
  EXPECT_EQ(root->dot_dimension_numbers().rhs_contracting_dimensions, (std::vector<int64_t>{1}));
  EXPECT_EQ(root->attrs().precision_config.operand_precision[0], Precision::kHigh);
}

TEST(AlgsimpDotTest, TransposeOfASingleUseMatrixDotCommutesTheDot) {
  // (x^T g)^T -> g^T x: the weight gradient in the weight's orientation.
  auto module = Parse(Module(R"(
  g = f32[8,5] parameter(0)
  x = f32[8,3] parameter(1)
  d = f32[5,3] dot(g, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}, operand_precision={high,default}
  ROOT t = f32[3,5] transpose(d), dimensions={1,0})"));
  ASSERT_TRUE(RunAlgsimp(*module));
  ASSERT_EQ(EntryOpcodes(*module), "parameter,parameter,dot");
  const HloInstruction* root = Root(*module);
  EXPECT_EQ(root->operand(0)->name(), "x");
  EXPECT_EQ(root->operand(1)->name(), "g");
  EXPECT_EQ(root->dot_dimension_numbers().lhs_contracting_dimensions, (std::vector<int64_t>{0}));
  EXPECT_EQ(root->dot_dimension_numbers().rhs_contracting_dimensions, (std::vector<int64_t>{0}));
  EXPECT_EQ(root->attrs().precision_config.operand_precision[1], Precision::kHigh);
  // A dot with another user, or a batched one, keeps its transpose.
  EXPECT_EQ(After(Module(R"(
  g = f32[8,5] parameter(0)
  x = f32[8,3] parameter(1)
  d = f32[5,3] dot(g, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  t = f32[3,5] transpose(d), dimensions={1,0}
  ROOT r = (f32[5,3], f32[3,5]) tuple(d, t))")),
            "unchanged");
  EXPECT_EQ(After(Module(R"(
  a = f32[2,4,3] parameter(0)
  b = f32[2,3,4] parameter(1)
  d = f32[2,4,4] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
  ROOT t = f32[2,4,4] transpose(d), dimensions={0,2,1})")),
            "unchanged");
}

TEST(AlgsimpDotTest, BatchTransposeFolds) {
  auto module = Parse(Module(R"(
  a = f32[3,2,4] parameter(0)
  b = f32[2,4,5] parameter(1)
  ta = f32[2,3,4] transpose(a), dimensions={1,0,2}
  ROOT d = f32[2,3,5] dot(ta, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1})"));
  ASSERT_TRUE(RunAlgsimp(*module));
  const DotDimensionNumbers& dnums = Root(*module)->dot_dimension_numbers();
  EXPECT_EQ(dnums.lhs_batch_dimensions, (std::vector<int64_t>{1}));
  EXPECT_EQ(dnums.lhs_contracting_dimensions, (std::vector<int64_t>{2}));
}

TEST(AlgsimpDotTest, TransposeReorderingFreeDimensionsDoesNotFold) {
  EXPECT_EQ(After(Module(R"(
  a = f32[2,3,4] parameter(0)
  b = f32[4,5] parameter(1)
  ta = f32[3,2,4] transpose(a), dimensions={1,0,2}
  ROOT d = f32[3,2,5] dot(ta, b), lhs_contracting_dims={2}, rhs_contracting_dims={0})")),
            "unchanged");
}

TEST(AlgsimpDotTest, DotOfTransposesIsTransposeOfSwappedDot) {
  AlgebraicSimplifierOptions options;
  options.enable_dot_transpose_folding = false;
  auto module = Parse(Module(R"(
  a = f32[3,4] parameter(0)
  b = f32[5,3] parameter(1)
  ta = f32[4,3] transpose(a), dimensions={1,0}
  tb = f32[3,5] transpose(b), dimensions={1,0}
  ROOT d = f32[4,5]{0,1} dot(ta, tb), lhs_contracting_dims={1}, rhs_contracting_dims={0})"));
  ASSERT_TRUE(RunAlgsimp(*module, options));
  const HloInstruction* root = Root(*module);
  ASSERT_EQ(root->opcode(), HloOpcode::kTranspose);
  EXPECT_EQ(root->shape().layout().minor_to_major, (std::vector<int64_t>{0, 1}));
  const HloInstruction* dot = root->operand(0);
  ASSERT_EQ(dot->opcode(), HloOpcode::kDot);
  EXPECT_EQ(dot->operand(0)->name(), "b");
  EXPECT_EQ(dot->operand(1)->name(), "a");
  EXPECT_EQ(dot->shape().dimensions(), (std::vector<int64_t>{5, 4}));
}

TEST(AlgsimpDotTest, OneTransposedOperandWithoutFoldingStays) {
  AlgebraicSimplifierOptions options;
  options.enable_dot_transpose_folding = false;
  EXPECT_EQ(After(Module(R"(
  a = f32[3,4] parameter(0)
  b = f32[3,5] parameter(1)
  ta = f32[4,3] transpose(a), dimensions={1,0}
  ROOT d = f32[4,5] dot(ta, b), lhs_contracting_dims={1}, rhs_contracting_dims={0})"),
                  options),
            "unchanged");
}

}  // namespace
}  // namespace algsimp_test
}  // namespace tessera
