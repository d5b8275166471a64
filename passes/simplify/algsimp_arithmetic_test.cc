// AlgebraicSimplifier: elementwise arithmetic rules.  Each test is HLO
// before, the pass (with the evaluator checking results), and the entry
// opcodes or root after; "unchanged" where the rule must not fire.
#include <cmath>

#include "gtest/gtest.h"
#include "passes/simplify/algsimp_test_util.h"

namespace tessera {
namespace algsimp_test {
namespace {

// --- x + 0 ------------------------------------------------------------------

TEST(AlgsimpArithmeticTest, AddNegativeZeroFloatIsIdentity) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  z = f32[] constant(-0)
  b = f32[4] broadcast(z), dimensions={}
  ROOT a = f32[4] add(p, b))")),
            "parameter");
}

TEST(AlgsimpArithmeticTest, AddPositiveZeroFloatStays) {
  // -0 + +0 is +0: not an identity.
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  b = f32[4] broadcast(z), dimensions={}
  ROOT a = f32[4] add(p, b))")),
            "unchanged");
}

TEST(AlgsimpArithmeticTest, AddPositiveZeroFloatUnderFastMath) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  b = f32[4] broadcast(z), dimensions={}
  ROOT a = f32[4] add(p, b))"),
                  FastMath()),
            "parameter");
}

TEST(AlgsimpArithmeticTest, AddZeroIntegerOnEitherSide) {
  EXPECT_EQ(After(Module(R"(
  p = s32[4] parameter(0)
  z = s32[4] constant({0, 0, 0, 0})
  ROOT a = s32[4] add(z, p))")),
            "parameter");
}

TEST(AlgsimpArithmeticTest, AddNonUniformConstantStays) {
  EXPECT_EQ(After(Module(R"(
  p = s32[2] parameter(0)
  c = s32[2] constant({0, 1})
  ROOT a = s32[2] add(p, c))")),
            "unchanged");
}

// --- x - 0, 0 - x, x - x ---------------------------------------------------------

TEST(AlgsimpArithmeticTest, SubtractPositiveZeroFloatIsIdentity) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  b = f32[4] broadcast(z), dimensions={}
  ROOT s = f32[4] subtract(p, b))")),
            "parameter");
}

TEST(AlgsimpArithmeticTest, SubtractNegativeZeroFloatStays) {
  // -0 - (-0) is +0.
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  z = f32[] constant(-0)
  b = f32[4] broadcast(z), dimensions={}
  ROOT s = f32[4] subtract(p, b))")),
            "unchanged");
}

TEST(AlgsimpArithmeticTest, ZeroMinusIntegerIsNegate) {
  EXPECT_EQ(After(Module(R"(
  p = s32[4] parameter(0)
  z = s32[] constant(0)
  b = s32[4] broadcast(z), dimensions={}
  ROOT s = s32[4] subtract(b, p))")),
            "parameter,negate");
}

TEST(AlgsimpArithmeticTest, NegativeZeroMinusFloatIsNegate) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  z = f32[] constant(-0)
  b = f32[4] broadcast(z), dimensions={}
  ROOT s = f32[4] subtract(b, p))")),
            "parameter,negate");
}

TEST(AlgsimpArithmeticTest, PositiveZeroMinusFloatStays) {
  // +0 - (+0) is +0, but -(+0) is -0.
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  b = f32[4] broadcast(z), dimensions={}
  ROOT s = f32[4] subtract(b, p))")),
            "unchanged");
}

TEST(AlgsimpArithmeticTest, SubtractSelfIntegerIsZero) {
  auto module = Parse(Module(R"(
  p = s32[4] parameter(0)
  ROOT s = s32[4] subtract(p, p))"));
  ASSERT_TRUE(RunAlgsimp(*module));
  ASSERT_EQ(Root(*module)->opcode(), HloOpcode::kBroadcast);
  EXPECT_EQ(Root(*module)->operand(0)->literal().Get<int32_t>({}), 0);
}

TEST(AlgsimpArithmeticTest, SubtractSelfFloatStays) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  ROOT s = f32[4] subtract(p, p))")),
            "unchanged");
}

// --- x * 1, x * 0, x * -1 -----------------------------------------------------

TEST(AlgsimpArithmeticTest, MultiplyOneFloat) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  one = f32[] constant(1)
  b = f32[4] broadcast(one), dimensions={}
  ROOT m = f32[4] multiply(b, p))")),
            "parameter");
}

TEST(AlgsimpArithmeticTest, MultiplyOneComplexStays) {
  // (inf + 0i) * (1 + 0i) has a NaN real part.
  EXPECT_EQ(After(Module(R"(
  p = c64[4] parameter(0)
  one = c64[] constant((1, 0))
  b = c64[4] broadcast(one), dimensions={}
  ROOT m = c64[4] multiply(p, b))")),
            "unchanged");
}

TEST(AlgsimpArithmeticTest, MultiplyZeroInteger) {
  auto module = Parse(Module(R"(
  p = s32[4] parameter(0)
  z = s32[] constant(0)
  b = s32[4] broadcast(z), dimensions={}
  ROOT m = s32[4] multiply(p, b))"));
  ASSERT_TRUE(RunAlgsimp(*module));
  ASSERT_EQ(Root(*module)->opcode(), HloOpcode::kBroadcast);
  EXPECT_EQ(Root(*module)->operand(0)->literal().Get<int32_t>({}), 0);
}

TEST(AlgsimpArithmeticTest, MultiplyZeroPred) {
  auto module = Parse(Module(R"(
  p = pred[4] parameter(0)
  f = pred[4] constant({0, 0, 0, 0})
  ROOT m = pred[4] multiply(p, f))"));
  ASSERT_TRUE(RunAlgsimp(*module));
  EXPECT_EQ(Root(*module)->opcode(), HloOpcode::kBroadcast);
}

TEST(AlgsimpArithmeticTest, MultiplyZeroFloatStays) {
  // NaN * 0 is NaN, inf * 0 is NaN, -1 * 0 is -0.
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  b = f32[4] broadcast(z), dimensions={}
  ROOT m = f32[4] multiply(p, b))")),
            "unchanged");
}

TEST(AlgsimpArithmeticTest, MultiplyMinusOneIsNegate) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  m1 = f32[] constant(-1)
  b = f32[4] broadcast(m1), dimensions={}
  ROOT m = f32[4] multiply(p, b))")),
            "parameter,negate");
}

TEST(AlgsimpArithmeticTest, IdentityThatWouldChangeTheLayoutStays) {
  EXPECT_EQ(After(Module(R"(
  p = s32[2,3]{0,1} parameter(0)
  one = s32[] constant(1)
  b = s32[2,3]{1,0} broadcast(one), dimensions={}
  ROOT m = s32[2,3]{1,0} multiply(p, b))")),
            "unchanged");
}

// --- division --------------------------------------------------------------

TEST(AlgsimpArithmeticTest, DivideByOneInteger) {
  EXPECT_EQ(After(Module(R"(
  p = s32[4] parameter(0)
  one = s32[] constant(1)
  b = s32[4] broadcast(one), dimensions={}
  ROOT d = s32[4] divide(p, b))")),
            "parameter");
}

TEST(AlgsimpArithmeticTest, DivideByPowerOfTwoBecomesExactMultiply) {
  auto module = Parse(Module(R"(
  p = f32[4] parameter(0)
  c = f32[4] constant({-8, -8, -8, -8})
  ROOT d = f32[4] divide(p, c))"));
  ASSERT_TRUE(RunAlgsimp(*module));
  const HloInstruction* root = Root(*module);
  ASSERT_EQ(root->opcode(), HloOpcode::kMultiply);
  ASSERT_EQ(root->operand(1)->opcode(), HloOpcode::kBroadcast);
  EXPECT_EQ(root->operand(1)->operand(0)->literal().Get<float>({}), -0.125f);
}

TEST(AlgsimpArithmeticTest, DivideByPowerOfTwoBf16) {
  EXPECT_EQ(After(Module(R"(
  p = bf16[4] parameter(0)
  c = bf16[] constant(0.25)
  b = bf16[4] broadcast(c), dimensions={}
  ROOT d = bf16[4] divide(p, b))")),
            "parameter,constant,broadcast,multiply");
}

TEST(AlgsimpArithmeticTest, DivideByNonPowerOfTwoStays) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  c = f32[] constant(3)
  b = f32[4] broadcast(c), dimensions={}
  ROOT d = f32[4] divide(p, b))")),
            "unchanged");
}

TEST(AlgsimpArithmeticTest, DivideByPowerOfTwoWithoutExactReciprocalStays) {
  // 2^-24 is an f16 subnormal; 2^24 overflows f16.
  EXPECT_EQ(After(Module(R"(
  p = f16[4] parameter(0)
  c = f16[] constant(5.96046448e-08)
  b = f16[4] broadcast(c), dimensions={}
  ROOT d = f16[4] divide(p, b))")),
            "unchanged");
}

TEST(AlgsimpArithmeticTest, IntegerDivideByPowerOfTwoStays) {
  // Integer division rounds toward zero; there is no exact reciprocal.
  EXPECT_EQ(After(Module(R"(
  p = s32[4] parameter(0)
  c = s32[] constant(2)
  b = s32[4] broadcast(c), dimensions={}
  ROOT d = s32[4] divide(p, b))")),
            "unchanged");
}

// --- logic -------------------------------------------------------------------

TEST(AlgsimpArithmeticTest, AndTruePred) {
  EXPECT_EQ(After(Module(R"(
  p = pred[4] parameter(0)
  t = pred[] constant(true)
  b = pred[4] broadcast(t), dimensions={}
  ROOT a = pred[4] and(p, b))")),
            "parameter");
}

TEST(AlgsimpArithmeticTest, AndZeroInteger) {
  auto module = Parse(Module(R"(
  p = u8[4] parameter(0)
  z = u8[] constant(0)
  b = u8[4] broadcast(z), dimensions={}
  ROOT a = u8[4] and(b, p))"));
  ASSERT_TRUE(RunAlgsimp(*module));
  ASSERT_EQ(Root(*module)->opcode(), HloOpcode::kBroadcast);
  EXPECT_EQ(Root(*module)->operand(0)->literal().Get<uint8_t>({}), 0);
}

TEST(AlgsimpArithmeticTest, AndAllOnesUnsigned) {
  EXPECT_EQ(After(Module(R"(
  p = u8[4] parameter(0)
  ones = u8[] constant(255)
  b = u8[4] broadcast(ones), dimensions={}
  ROOT a = u8[4] and(p, b))")),
            "parameter");
}

TEST(AlgsimpArithmeticTest, AndWithOtherMaskStays) {
  EXPECT_EQ(After(Module(R"(
  p = u8[4] parameter(0)
  mask = u8[] constant(127)
  b = u8[4] broadcast(mask), dimensions={}
  ROOT a = u8[4] and(p, b))")),
            "unchanged");
}

TEST(AlgsimpArithmeticTest, OrAllOnesSigned) {
  auto module = Parse(Module(R"(
  p = s32[4] parameter(0)
  ones = s32[] constant(-1)
  b = s32[4] broadcast(ones), dimensions={}
  ROOT o = s32[4] or(p, b))"));
  ASSERT_TRUE(RunAlgsimp(*module));
  ASSERT_EQ(Root(*module)->opcode(), HloOpcode::kBroadcast);
  EXPECT_EQ(Root(*module)->operand(0)->literal().Get<int32_t>({}), -1);
}

TEST(AlgsimpArithmeticTest, OrFalsePred) {
  EXPECT_EQ(After(Module(R"(
  p = pred[4] parameter(0)
  f = pred[] constant(false)
  b = pred[4] broadcast(f), dimensions={}
  ROOT o = pred[4] or(b, p))")),
            "parameter");
}

TEST(AlgsimpArithmeticTest, XorAllOnesIsNot) {
  EXPECT_EQ(After(Module(R"(
  p = s8[4] parameter(0)
  ones = s8[] constant(-1)
  b = s8[4] broadcast(ones), dimensions={}
  ROOT x = s8[4] xor(p, b))")),
            "parameter,not");
}

TEST(AlgsimpArithmeticTest, XorZeroAndXorSelf) {
  EXPECT_EQ(After(Module(R"(
  p = pred[4] parameter(0)
  f = pred[] constant(false)
  b = pred[4] broadcast(f), dimensions={}
  x = pred[4] xor(p, b)
  ROOT y = pred[4] xor(x, x))")),
            "parameter,constant,broadcast");
}

TEST(AlgsimpArithmeticTest, AndOrMaxMinOfSameOperand) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  mx = f32[4] maximum(p, p)
  ROOT mn = f32[4] minimum(mx, mx))")),
            "parameter");
  EXPECT_EQ(After(Module(R"(
  p = s32[4] parameter(0)
  a = s32[4] and(p, p)
  ROOT o = s32[4] or(a, a))")),
            "parameter");
}

TEST(AlgsimpArithmeticTest, MaximumWithLowestIsIdentity) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  c = f32[] constant(-inf)
  b = f32[4] broadcast(c), dimensions={}
  ROOT m = f32[4] maximum(b, p))")),
            "parameter");
  EXPECT_EQ(After(Module(R"(
  p = s16[4] parameter(0)
  c = s16[] constant(32767)
  b = s16[4] broadcast(c), dimensions={}
  ROOT m = s16[4] minimum(p, b))")),
            "parameter");
}

TEST(AlgsimpArithmeticTest, MaximumWithFiniteFloatStays) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  c = f32[] constant(-3.4028235e+38)
  b = f32[4] broadcast(c), dimensions={}
  ROOT m = f32[4] maximum(p, b))")),
            "unchanged");
}

// --- negation and exact unary folds ------------------------------------------

TEST(AlgsimpArithmeticTest, DoubleNegation) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  n = f32[4] negate(p)
  ROOT r = f32[4] negate(n))")),
            "parameter");
  EXPECT_EQ(After(Module(R"(
  p = s8[4] parameter(0)
  n = s8[4] negate(p)
  ROOT r = s8[4] negate(n))")),
            "parameter");
}

TEST(AlgsimpArithmeticTest, NotNot) {
  EXPECT_EQ(After(Module(R"(
  p = pred[4] parameter(0)
  n = pred[4] not(p)
  ROOT r = pred[4] not(n))")),
            "parameter");
}

TEST(AlgsimpArithmeticTest, SingleNegationStays) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  n = f32[4] negate(p)
  ROOT r = f32[4] abs(n))")),
            "parameter,abs");
}

TEST(AlgsimpArithmeticTest, IdempotentUnaryOps) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  a = f32[4] abs(p)
  b = f32[4] abs(a)
  f = f32[4] floor(b)
  g = f32[4] floor(f)
  s = f32[4] sign(g)
  ROOT t = f32[4] sign(s))")),
            "parameter,abs,floor,sign");
}

TEST(AlgsimpArithmeticTest, RealAndImagOfComplex) {
  EXPECT_EQ(After(Module(R"(
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  c = c64[4] complex(a, b)
  re = f32[4] real(c)
  im = f32[4] imag(c)
  ROOT t = (f32[4], f32[4]) tuple(re, im))")),
            "parameter,parameter,tuple");
}

TEST(AlgsimpArithmeticTest, ExpOfLogStaysWithoutFastMath) {
  // exp(log(x)) rounds twice and is NaN for x < 0.
  const std::string text = Module(R"(
  p = f32[4] parameter(0)
  l = f32[4] log(p)
  ROOT e = f32[4] exponential(l))");
  EXPECT_EQ(After(text), "unchanged");
  auto module = Parse(text);
  ASSERT_TRUE(*AlgebraicSimplifier(FastMath()).Run(module.get()));
  EXPECT_EQ(EntryOpcodes(*module), "parameter");
}

// --- select ------------------------------------------------------------------

TEST(AlgsimpArithmeticTest, SelectOfEqualBranches) {
  EXPECT_EQ(After(Module(R"(
  c = pred[4] parameter(0)
  p = f32[4] parameter(1)
  ROOT s = f32[4] select(c, p, p))")),
            "parameter,parameter");
}

TEST(AlgsimpArithmeticTest, SelectWithConstantPredicate) {
  EXPECT_EQ(After(Module(R"(
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  t = pred[] constant(true)
  tb = pred[4] broadcast(t), dimensions={}
  ROOT s = f32[4] select(tb, a, b))")),
            "parameter,parameter");
  auto module = Parse(Module(R"(
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  f = pred[4] constant({0, 0, 0, 0})
  ROOT s = f32[4] select(f, a, b))"));
  ASSERT_TRUE(RunAlgsimp(*module));
  EXPECT_EQ(Root(*module)->name(), "b");
}

TEST(AlgsimpArithmeticTest, SelectWithMixedPredicateStays) {
  EXPECT_EQ(After(Module(R"(
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  c = pred[2] constant({1, 0})
  ROOT s = f32[2] select(c, a, b))")),
            "unchanged");
}

// --- compare -----------------------------------------------------------------

TEST(AlgsimpArithmeticTest, CompareIntegerWithItself) {
  for (const char* direction : {"EQ", "LE", "GE", "NE", "LT", "GT"}) {
    auto module = Parse(Module(absl::StrCat(R"(
  p = s32[4] parameter(0)
  ROOT c = pred[4] compare(p, p), direction=)",
                                            direction)));
    ASSERT_TRUE(RunAlgsimp(*module)) << direction;
    ASSERT_EQ(Root(*module)->opcode(), HloOpcode::kBroadcast) << direction;
    const std::string d = direction;
    const bool expected = d == "EQ" || d == "LE" || d == "GE";
    EXPECT_EQ(Root(*module)->operand(0)->literal().Get<bool>({}), expected) << direction;
  }
}

TEST(AlgsimpArithmeticTest, CompareFloatWithItselfStays) {
  // NaN != NaN.
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  ROOT c = pred[4] compare(p, p), direction=EQ)")),
            "unchanged");
}

TEST(AlgsimpArithmeticTest, CompareFloatWithItselfInTotalOrder) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  ROOT c = pred[4] compare(p, p), direction=GE, type=TOTALORDER)")),
            "parameter,constant,broadcast");
}

// --- canonical operand order and reassociation -------------------------------

TEST(AlgsimpArithmeticTest, ConstantsMoveRight) {
  auto module = Parse(Module(R"(
  p = f32[4] parameter(0)
  c = f32[] constant(3)
  b = f32[4] broadcast(c), dimensions={}
  ROOT a = f32[4] add(b, p))"));
  ASSERT_TRUE(RunAlgsimp(*module));
  EXPECT_EQ(Root(*module)->operand(0)->name(), "p");
  EXPECT_EQ(Root(*module)->operand(1)->name(), "b");
}

TEST(AlgsimpArithmeticTest, CompareWithConstantOnLeftIsMirrored) {
  auto module = Parse(Module(R"(
  p = s32[4] parameter(0)
  c = s32[4] constant({1, 2, 3, 4})
  ROOT lt = pred[4] compare(c, p), direction=LT)"));
  ASSERT_TRUE(RunAlgsimp(*module));
  EXPECT_EQ(Root(*module)->operand(0)->name(), "p");
  EXPECT_EQ(Root(*module)->comparison_direction(), ComparisonDirection::kGt);
}

TEST(AlgsimpArithmeticTest, NonCommutativeOperandsKeepTheirOrder) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  c = f32[] constant(3)
  b = f32[4] broadcast(c), dimensions={}
  ROOT s = f32[4] subtract(b, p))")),
            "unchanged");
}

TEST(AlgsimpArithmeticTest, ReassociatesIntegerConstants) {
  auto module = Parse(Module(R"(
  p = s32[4] parameter(0)
  c1 = s32[] constant(2147483647)
  b1 = s32[4] broadcast(c1), dimensions={}
  c2 = s32[] constant(5)
  b2 = s32[4] broadcast(c2), dimensions={}
  a1 = s32[4] add(b1, p)
  ROOT a2 = s32[4] add(a1, b2))"));
  ASSERT_TRUE(RunAlgsimp(*module));
  const HloInstruction* root = Root(*module);
  ASSERT_EQ(root->opcode(), HloOpcode::kAdd);
  EXPECT_EQ(root->operand(0)->name(), "p");
  // Wraps: 2147483647 + 5.
  EXPECT_EQ(root->operand(1)->operand(0)->literal().Get<int32_t>({}), -2147483644);
}

TEST(AlgsimpArithmeticTest, ReassociatesArrayConstants) {
  auto module = Parse(Module(R"(
  p = u32[3] parameter(0)
  c1 = u32[3] constant({1, 2, 3})
  c2 = u32[3] constant({10, 20, 30})
  m1 = u32[3] multiply(p, c1)
  ROOT m2 = u32[3] multiply(m1, c2))"));
  ASSERT_TRUE(RunAlgsimp(*module));
  const HloInstruction* root = Root(*module);
  ASSERT_EQ(root->operand(1)->opcode(), HloOpcode::kConstant);
  EXPECT_EQ(root->operand(1)->literal().Get<uint32_t>({2}), 90u);
}

TEST(AlgsimpArithmeticTest, FloatConstantsAreNotReassociated) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  c1 = f32[] constant(1e+20)
  b1 = f32[4] broadcast(c1), dimensions={}
  c2 = f32[] constant(-1e+20)
  b2 = f32[4] broadcast(c2), dimensions={}
  a1 = f32[4] add(p, b1)
  ROOT a2 = f32[4] add(a1, b2))")),
            "unchanged");
}

// --- power -------------------------------------------------------------------

std::string PowerOf(absl::string_view type, absl::string_view exponent) {
  return Module(absl::StrCat("  p = ", type, "[4] parameter(0)\n  e = ", type, "[] constant(",
                             exponent, ")\n  b = ", type,
                             "[4] broadcast(e), dimensions={}\n  ROOT w = ", type,
                             "[4] power(p, b)"));
}

TEST(AlgsimpArithmeticTest, PowerStrengthReduction) {
  EXPECT_EQ(After(PowerOf("f32", "2")), "parameter,multiply");
  EXPECT_EQ(After(PowerOf("f32", "1")), "parameter");
  EXPECT_EQ(After(PowerOf("f32", "0")), "parameter,constant,broadcast");
  EXPECT_EQ(After(PowerOf("f32", "-1")), "parameter,constant,broadcast,divide");
  EXPECT_EQ(After(PowerOf("s32", "2")), "parameter,multiply");
  EXPECT_EQ(After(PowerOf("s32", "0")), "parameter,constant,broadcast");
}

TEST(AlgsimpArithmeticTest, PowerHalfIsSqrtOnlyUnderFastMath) {
  // pow(-0, 0.5) = +0 but sqrt(-0) = -0; pow(-inf, 0.5) = inf, sqrt(-inf) = NaN.
  EXPECT_EQ(After(PowerOf("f32", "0.5")), "unchanged");
  auto module = Parse(PowerOf("f32", "0.5"));
  ASSERT_TRUE(*AlgebraicSimplifier(FastMath()).Run(module.get()));
  EXPECT_EQ(EntryOpcodes(*module), "parameter,sqrt");
}

TEST(AlgsimpArithmeticTest, IntegerPowerMinusOneStays) {
  EXPECT_EQ(After(PowerOf("s32", "-1")), "unchanged");
  EXPECT_EQ(After(PowerOf("f32", "3")), "unchanged");
}

// --- what the pass leaves alone ------------------------------------------------

TEST(AlgsimpArithmeticTest, SideEffectingOperandsStay) {
  // The multiply goes, the rng it read stays (it has an effect).
  auto module = Parse(Module(R"(
  lo = s32[] constant(0)
  hi = s32[] constant(10)
  r = s32[4] rng(lo, hi), distribution=rng_uniform
  z = s32[] constant(0)
  b = s32[4] broadcast(z), dimensions={}
  ROOT m = s32[4] multiply(r, b))"));
  ASSERT_TRUE(*AlgebraicSimplifier().Run(module.get()));
  EXPECT_EQ(EntryOpcodes(*module), "constant,constant,rng,constant,broadcast");
}

TEST(AlgsimpArithmeticTest, InstructionsWithControlEdgesStay) {
  auto module = Parse(Module(R"(
  p = f32[4] parameter(0)
  n = f32[4] negate(p)
  nn = f32[4] negate(n)
  ROOT e = f32[4] exponential(p), control-predecessors={nn})"));
  EXPECT_FALSE(*AlgebraicSimplifier().Run(module.get()));
}

TEST(AlgsimpArithmeticTest, SimplifiesCalledComputations) {
  auto module = Parse(R"(
HloModule m
body {
  p = s32[] parameter(0)
  z = s32[] constant(0)
  ROOT a = s32[] add(p, z)
}
ENTRY e {
  x = s32[] parameter(0)
  ROOT c = s32[] call(x), to_apply=body
})");
  ASSERT_TRUE(RunAlgsimp(*module));
  EXPECT_EQ(module->GetComputationWithName("body")->root_instruction()->opcode(),
            HloOpcode::kParameter);
}

TEST(AlgsimpArithmeticTest, KeepsMetadataOfReplacedInstruction) {
  auto module = Parse(Module(R"(
  p = s32[4] parameter(0)
  z = s32[] constant(0)
  b = s32[4] broadcast(z), dimensions={}
  ROOT s = s32[4] subtract(b, p), metadata={op_name="jit(f)/neg"})"));
  ASSERT_TRUE(RunAlgsimp(*module));
  ASSERT_EQ(Root(*module)->opcode(), HloOpcode::kNegate);
  EXPECT_EQ(Root(*module)->metadata().op_name, "jit(f)/neg");
}

}  // namespace
}  // namespace algsimp_test
}  // namespace tessera
