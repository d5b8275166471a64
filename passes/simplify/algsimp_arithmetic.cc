// AlgebraicSimplifier rules for elementwise arithmetic: identities and
// annihilators, negation and logic, canonical operand order, integer
// reassociation, compare, select, strength reduction of power and divide,
// and exact folds of unary ops.
//
// Float rules keep IEEE results bit-for-bit (NaN payloads aside); where a
// rule holds only for some element types, its comment says which.
#include <cmath>
#include <vector>

#include "hlo/ir/status_macros.h"
#include "passes/simplify/algsimp_internal.h"

namespace tessera {
namespace algsimp {
namespace {

using Result = absl::StatusOr<bool>;

// Which operand of a commutative op is a uniform constant equal to `value`
// (1 preferred); -1 for neither.
int UniformSide(const HloInstruction* h, const std::optional<Literal>& value) {
  if (!value.has_value()) return -1;
  if (IsUniform(h->operand(1), *value)) return 1;
  if (IsUniform(h->operand(0), *value)) return 0;
  return -1;
}

// h becomes its operand other than `side`.
Result KeepOther(HloInstruction* h, int side, Rewriter& rw) {
  if (side < 0) return false;
  return rw.Replace(h, h->operand(1 - side));
}

// h becomes a constant filled with `value`.
Result BecomeUniform(HloInstruction* h, const Literal& value, Rewriter& rw) {
  return rw.Replace(h, MakeUniform(rw, value, h->shape(), h));
}

std::optional<Literal> Value(const HloInstruction* h, double value) {
  return ScalarOf(ElementType(h), value);
}

ComparisonDirection Mirror(ComparisonDirection direction) {
  switch (direction) {
    case ComparisonDirection::kLt: return ComparisonDirection::kGt;
    case ComparisonDirection::kGt: return ComparisonDirection::kLt;
    case ComparisonDirection::kLe: return ComparisonDirection::kGe;
    case ComparisonDirection::kGe: return ComparisonDirection::kLe;
    default: return direction;  // EQ, NE
  }
}

// op(c, x) -> op(x, c): constants go right, so the rules below look only
// there.  Exact for every type: these ops are commutative (compare with its
// direction mirrored).
Result ConstantToRight(HloInstruction* h, Rewriter&) {
  HloInstruction* lhs = h->operand(0);
  HloInstruction* rhs = h->operand(1);
  if (!IsConstantLike(lhs) || IsConstantLike(rhs)) return false;
  if (h->opcode() == HloOpcode::kCompare) {
    h->mutable_attrs().comparison_direction = Mirror(h->comparison_direction());
  }
  TS_RETURN_IF_ERROR(h->ReplaceOperandWith(0, rhs));
  TS_RETURN_IF_ERROR(h->ReplaceOperandWith(1, lhs));
  return true;
}

// x + 0 -> x.  Integers: any 0.  Floats and complex: only -0 (x + (+0) is
// +0 for x = -0); +0 too under fast math.
Result AddZero(HloInstruction* h, Rewriter& rw) {
  const PrimitiveType type = ElementType(h);
  if (IsInt(type)) return KeepOther(h, UniformSide(h, Value(h, 0)), rw);
  if (IsComplexType(type)) {
    Literal negative_zero(Shape::MakeArrayWithDescendingLayout(type, {}));
    negative_zero.SetFromComplex(0, complex128(-0.0, -0.0));
    int side = UniformSide(h, negative_zero);
    if (side < 0 && rw.fast_math()) side = UniformSide(h, Value(h, 0));
    return KeepOther(h, side, rw);
  }
  if (!IsFloat(type)) return false;
  int side = UniformSide(h, Value(h, -0.0));
  if (side < 0 && rw.fast_math()) side = UniformSide(h, Value(h, 0));
  return KeepOther(h, side, rw);
}

// x - 0 -> x.  Integers: any 0.  Floats: only +0 (x - (-0) is +0 for
// x = -0); -0 too under fast math.
Result SubtractZero(HloInstruction* h, Rewriter& rw) {
  const PrimitiveType type = ElementType(h);
  if (!IsInt(type) && !IsFloat(type)) return false;
  HloInstruction* rhs = h->operand(1);
  const bool zero = IsUniform(rhs, 0.0) ||
                    (IsFloat(type) && rw.fast_math() && IsUniform(rhs, -0.0));
  return zero ? rw.Replace(h, h->operand(0)) : false;
}

// 0 - x -> -x.  Integers: any 0 (wrapping).  Floats: only -0 (+0 - (+0)
// is +0, not -0); +0 too under fast math.
Result ZeroMinus(HloInstruction* h, Rewriter& rw) {
  const PrimitiveType type = ElementType(h);
  if (!IsInt(type) && !IsFloat(type)) return false;
  HloInstruction* lhs = h->operand(0);
  const bool zero = IsFloat(type) ? IsUniform(lhs, -0.0) || (rw.fast_math() && IsUniform(lhs, 0.0))
                                  : IsUniform(lhs, 0.0);
  if (!zero) return false;
  return rw.ReplaceWithNew(
      h, HloInstruction::CreateUnary(h->shape(), HloOpcode::kNegate, h->operand(1)));
}

// x - x -> 0 for integers only (inf - inf and NaN - NaN are NaN).
Result SubtractSelf(HloInstruction* h, Rewriter& rw) {
  if (!IsInt(ElementType(h)) || h->operand(0) != h->operand(1)) return false;
  return BecomeUniform(h, *Value(h, 0), rw);
}

// x * 1 -> x for integers, PRED and floats (exact, -0 and NaN included);
// not complex, where (inf + 0i) * (1 + 0i) is NaN in the real part.
Result MultiplyOne(HloInstruction* h, Rewriter& rw) {
  if (IsComplexType(ElementType(h))) return false;
  return KeepOther(h, UniformSide(h, Value(h, 1)), rw);
}

// x * 0 -> 0 for integers and PRED only: for floats NaN * 0 and inf * 0 are
// NaN and -1 * 0 is -0.
Result MultiplyZero(HloInstruction* h, Rewriter& rw) {
  if (!IsIntOrPred(ElementType(h))) return false;
  const int side = UniformSide(h, Value(h, 0));
  if (side < 0) return false;
  return BecomeUniform(h, *Value(h, 0), rw);
}

// x * -1 -> -x for integers (wrapping) and floats (exact sign flip).
Result MultiplyMinusOne(HloInstruction* h, Rewriter& rw) {
  const PrimitiveType type = ElementType(h);
  if (!IsFloat(type) && !IsSignedIntegralType(type)) return false;
  const int side = UniformSide(h, Value(h, -1));
  if (side < 0) return false;
  return rw.ReplaceWithNew(
      h, HloInstruction::CreateUnary(h->shape(), HloOpcode::kNegate, h->operand(1 - side)));
}

// x / 1 -> x for integers and floats (exact).
Result DivideOne(HloInstruction* h, Rewriter& rw) {
  const PrimitiveType type = ElementType(h);
  if (!IsInt(type) && !IsFloat(type)) return false;
  return IsUniform(h->operand(1), 1.0) ? rw.Replace(h, h->operand(0)) : false;
}

// x / 2^k -> x * 2^-k for floats when 2^-k is exactly representable: both
// round the same real number x * 2^-k once, so the results are identical
// (subnormals, infinities, zeros and NaN included).
Result DivideByPowerOfTwo(HloInstruction* h, Rewriter& rw) {
  const PrimitiveType type = ElementType(h);
  if (!IsFloat(type)) return false;
  std::optional<Literal> divisor = UniformValue(h->operand(1));
  if (!divisor.has_value()) return false;
  const double c = divisor->GetAsDouble(0);
  int exponent = 0;
  if (!std::isfinite(c) || c == 0 || std::abs(std::frexp(c, &exponent)) != 0.5) return false;
  const double reciprocal = 1.0 / c;
  std::optional<Literal> scalar = ScalarOf(type, reciprocal);
  if (!std::isfinite(reciprocal) || !scalar.has_value()) return false;
  HloInstruction* factor = MakeUniform(
      rw, *scalar, IntermediateShape(type, h->shape().dimensions(), h->shape()), h);
  return rw.ReplaceWithNew(h, HloInstruction::CreateBinary(h->shape(), HloOpcode::kMultiply,
                                                           h->operand(0), factor));
}

// and/or/xor with constants, for integers and PRED.
//   and(x, ~0) -> x, and(x, 0) -> 0, or(x, 0) -> x, or(x, ~0) -> ~0,
//   xor(x, 0) -> x, xor(x, ~0) -> not(x).
Result LogicWithConstant(HloInstruction* h, Rewriter& rw) {
  const PrimitiveType type = ElementType(h);
  if (!IsIntOrPred(type)) return false;
  const Literal ones = AllOnesOf(type);
  const std::optional<Literal> zero = Value(h, 0);
  const int zero_side = UniformSide(h, zero);
  const int ones_side = UniformSide(h, ones);
  switch (h->opcode()) {
    case HloOpcode::kAnd:
      if (zero_side >= 0) return BecomeUniform(h, *zero, rw);
      return KeepOther(h, ones_side, rw);
    case HloOpcode::kOr:
      if (ones_side >= 0) return BecomeUniform(h, ones, rw);
      return KeepOther(h, zero_side, rw);
    case HloOpcode::kXor:
      if (zero_side >= 0) return KeepOther(h, zero_side, rw);
      if (ones_side < 0) return false;
      return rw.ReplaceWithNew(h, HloInstruction::CreateUnary(h->shape(), HloOpcode::kNot,
                                                              h->operand(1 - ones_side)));
    default: return false;
  }
}

// and(x, x) -> x, or(x, x) -> x, maximum(x, x) -> x, minimum(x, x) -> x
// (every type); xor(x, x) -> 0 (integers and PRED).
Result SameOperands(HloInstruction* h, Rewriter& rw) {
  if (h->operand(0) != h->operand(1)) return false;
  if (h->opcode() != HloOpcode::kXor) return rw.Replace(h, h->operand(0));
  if (!IsIntOrPred(ElementType(h))) return false;
  return BecomeUniform(h, *Value(h, 0), rw);
}

// maximum(x, lowest) -> x and minimum(x, highest) -> x: -inf / +inf for
// floats (NaN still propagates, -0 is kept), the type's extremes for
// integers.
Result MaxMinIdentity(HloInstruction* h, Rewriter& rw) {
  const PrimitiveType type = ElementType(h);
  if (!IsInt(type) && !IsFloat(type)) return false;
  const Literal identity = h->opcode() == HloOpcode::kMaximum ? LowestOf(type) : HighestOf(type);
  return KeepOther(h, UniformSide(h, identity), rw);
}

// (x op c1) op c2 -> x op (c1 op c2) for integer add, multiply, and, or,
// xor, maximum and minimum (associative and commutative with wrapping),
// and PRED and/or/xor.  Not floats: rounding makes them non-associative.
Result ReassociateConstants(HloInstruction* h, Rewriter& rw) {
  const PrimitiveType type = ElementType(h);
  const HloOpcode op = h->opcode();
  const bool logic = op == HloOpcode::kAnd || op == HloOpcode::kOr || op == HloOpcode::kXor;
  if (!IsInt(type) && !(type == PRED && logic)) return false;
  HloInstruction* inner = h->operand(0);
  HloInstruction* c2 = h->operand(1);
  if (inner->opcode() != op || !IsConstantLike(c2) || !IsConstantLike(inner->operand(1)) ||
      IsConstantLike(inner->operand(0)) || !inner->control_successors().empty()) {
    return false;
  }
  HloInstruction* c1 = inner->operand(1);
  HloInstruction* folded = nullptr;
  if (c1->opcode() == HloOpcode::kConstant && c2->opcode() == HloOpcode::kConstant) {
    TS_ASSIGN_OR_RETURN(Literal value, FoldBinary(op, c1->literal(), c2->literal()));
    folded = rw.Add(HloInstruction::CreateConstant(std::move(value)), h);
    if (!h->shape().has_layout()) folded->mutable_shape()->clear_layout();
  } else if (c1->opcode() == HloOpcode::kBroadcast && c2->opcode() == HloOpcode::kBroadcast &&
             c1->operand(0)->shape().rank() == 0 && c2->operand(0)->shape().rank() == 0) {
    TS_ASSIGN_OR_RETURN(Literal value,
                        FoldBinary(op, c1->operand(0)->literal(), c2->operand(0)->literal()));
    folded = MakeUniform(rw, value, IntermediateShape(type, h->shape().dimensions(), h->shape()),
                         h);
  } else {
    return false;
  }
  return rw.ReplaceWithNew(h, HloInstruction::CreateBinary(h->shape(), op, inner->operand(0),
                                                           folded));
}

// negate(negate(x)) -> x and not(not(x)) -> x: exact for every type
// (integers wrap, floats flip the sign bit twice).
Result Involution(HloInstruction* h, Rewriter& rw) {
  HloInstruction* inner = h->operand(0);
  if (inner->opcode() != h->opcode()) return false;
  return rw.Replace(h, inner->operand(0));
}

// f(f(x)) -> f(x) for idempotent ops: abs, floor, ceil, round-nearest-*
// (every type where the op exists) and sign (not complex: sign(z) = z / |z|
// need not have magnitude exactly 1).
Result Idempotent(HloInstruction* h, Rewriter& rw) {
  HloInstruction* inner = h->operand(0);
  if (inner->opcode() != h->opcode()) return false;
  if (h->opcode() == HloOpcode::kSign && IsComplexType(ElementType(h))) return false;
  return rw.Replace(h, inner);
}

// abs(negate(x)) -> abs(x): |-x| = |x| for integers (wrapping: both give
// INT_MIN for INT_MIN) and floats; not complex.
Result AbsOfNegate(HloInstruction* h, Rewriter& rw) {
  HloInstruction* inner = h->operand(0);
  if (inner->opcode() != HloOpcode::kNegate || IsComplexType(ElementType(inner))) return false;
  return rw.ReplaceWithNew(
      h, HloInstruction::CreateUnary(h->shape(), HloOpcode::kAbs, inner->operand(0)));
}

// real(complex(a, b)) -> a, imag(complex(a, b)) -> b: exact.
Result PartOfComplex(HloInstruction* h, Rewriter& rw) {
  HloInstruction* inner = h->operand(0);
  if (inner->opcode() != HloOpcode::kComplex) return false;
  return rw.Replace(h, inner->operand(h->opcode() == HloOpcode::kReal ? 0 : 1));
}

// exp(log(x)) -> x and log(exp(x)) -> x only under fast math: neither is
// exact (double rounding; log(exp(x)) overflows for large x; exp(log(x)) is
// NaN for x < 0).  The exact unary folds are the ones above.
Result ExpLogInverse(HloInstruction* h, Rewriter& rw) {
  if (!rw.fast_math()) return false;
  HloInstruction* inner = h->operand(0);
  const HloOpcode inverse = h->opcode() == HloOpcode::kExp ? HloOpcode::kLog : HloOpcode::kExp;
  if (inner->opcode() != inverse) return false;
  return rw.Replace(h, inner->operand(0));
}

// select(p, x, x) -> x; select(true, a, b) -> a; select(false, a, b) -> b
// (a constant predicate, scalar or array, all true or all false).
Result SimplifySelect(HloInstruction* h, Rewriter& rw) {
  HloInstruction* on_true = h->operand(1);
  HloInstruction* on_false = h->operand(2);
  if (on_true == on_false) return rw.Replace(h, on_true);
  std::optional<Literal> predicate = UniformValue(h->operand(0));
  if (!predicate.has_value()) return false;
  return rw.Replace(h, predicate->GetAsInt64(0) != 0 ? on_true : on_false);
}

// compare(x, x) for integers and PRED (and floats compared in total order,
// where NaN equals itself): EQ, LE, GE are true; NE, LT, GT false.  Not
// IEEE floats: NaN compares unequal to itself.
Result CompareSelf(HloInstruction* h, Rewriter& rw) {
  if (h->operand(0) != h->operand(1)) return false;
  const PrimitiveType type = ElementType(h->operand(0));
  if (!IsIntOrPred(type) && h->EffectiveComparisonType() != ComparisonType::kFloatTotalOrder) {
    return false;
  }
  const ComparisonDirection direction = h->comparison_direction();
  const bool value = direction == ComparisonDirection::kEq ||
                     direction == ComparisonDirection::kLe ||
                     direction == ComparisonDirection::kGe;
  return BecomeUniform(h, Literal::CreateR0<bool>(value), rw);
}

// Strength reduction of power(x, c) for a uniform constant c:
//   c = 0  -> 1      every type (the evaluator and C's pow give 1 even for NaN)
//   c = 1  -> x      integers and floats (pow(x, 1) is x exactly)
//   c = 2  -> x * x  integers (wrapping) and floats (x * x is the correctly
//                    rounded square; glibc's pow agrees bit-for-bit, halfway
//                    cases included)
//   c = -1 -> 1 / x  floats (correctly rounded like pow; signs of zeros and
//                    infinities agree)
//   c = 0.5 -> sqrt(x) floats under fast math only: pow(-0, 0.5) = +0 but
//                    sqrt(-0) = -0, and pow(-inf, 0.5) = +inf but sqrt(-inf)
//                    is NaN.
Result SimplifyPower(HloInstruction* h, Rewriter& rw) {
  const PrimitiveType type = ElementType(h);
  HloInstruction* x = h->operand(0);
  HloInstruction* exponent = h->operand(1);
  if (IsUniform(exponent, 0.0) || (IsComplexType(type) && IsUniform(exponent, -0.0))) {
    return BecomeUniform(h, *Value(h, 1), rw);
  }
  if (!IsInt(type) && !IsFloat(type)) return false;
  if (IsUniform(exponent, -0.0)) return BecomeUniform(h, *Value(h, 1), rw);
  if (IsUniform(exponent, 1.0)) return rw.Replace(h, x);
  if (IsUniform(exponent, 2.0)) {
    return rw.ReplaceWithNew(
        h, HloInstruction::CreateBinary(h->shape(), HloOpcode::kMultiply, x, x));
  }
  if (!IsFloat(type)) return false;
  if (IsUniform(exponent, -1.0)) {
    HloInstruction* one =
        MakeUniform(rw, *Value(h, 1), IntermediateShape(type, h->shape().dimensions(), h->shape()),
                    h);
    return rw.ReplaceWithNew(
        h, HloInstruction::CreateBinary(h->shape(), HloOpcode::kDivide, one, x));
  }
  if (rw.fast_math() && IsUniform(exponent, 0.5)) {
    return rw.ReplaceWithNew(h, HloInstruction::CreateUnary(h->shape(), HloOpcode::kSqrt, x));
  }
  return false;
}

constexpr Rule kRules[] = {
    // Canonical order first: the binary rules below look for constants on
    // the right.
    {HloOpcode::kAdd, "constant-to-right", ConstantToRight},
    {HloOpcode::kMultiply, "constant-to-right", ConstantToRight},
    {HloOpcode::kAnd, "constant-to-right", ConstantToRight},
    {HloOpcode::kOr, "constant-to-right", ConstantToRight},
    {HloOpcode::kXor, "constant-to-right", ConstantToRight},
    {HloOpcode::kMaximum, "constant-to-right", ConstantToRight},
    {HloOpcode::kMinimum, "constant-to-right", ConstantToRight},
    {HloOpcode::kCompare, "constant-to-right", ConstantToRight},
    {HloOpcode::kAdd, "add-zero", AddZero},
    {HloOpcode::kAdd, "reassociate-constants", ReassociateConstants},
    {HloOpcode::kSubtract, "subtract-zero", SubtractZero},
    {HloOpcode::kSubtract, "zero-minus", ZeroMinus},
    {HloOpcode::kSubtract, "subtract-self", SubtractSelf},
    {HloOpcode::kMultiply, "multiply-one", MultiplyOne},
    {HloOpcode::kMultiply, "multiply-zero", MultiplyZero},
    {HloOpcode::kMultiply, "multiply-minus-one", MultiplyMinusOne},
    {HloOpcode::kMultiply, "reassociate-constants", ReassociateConstants},
    {HloOpcode::kDivide, "divide-one", DivideOne},
    {HloOpcode::kDivide, "divide-power-of-two", DivideByPowerOfTwo},
    {HloOpcode::kAnd, "logic-constant", LogicWithConstant},
    {HloOpcode::kOr, "logic-constant", LogicWithConstant},
    {HloOpcode::kXor, "logic-constant", LogicWithConstant},
    {HloOpcode::kAnd, "same-operands", SameOperands},
    {HloOpcode::kOr, "same-operands", SameOperands},
    {HloOpcode::kXor, "same-operands", SameOperands},
    {HloOpcode::kMaximum, "same-operands", SameOperands},
    {HloOpcode::kMinimum, "same-operands", SameOperands},
    {HloOpcode::kAnd, "reassociate-constants", ReassociateConstants},
    {HloOpcode::kOr, "reassociate-constants", ReassociateConstants},
    {HloOpcode::kXor, "reassociate-constants", ReassociateConstants},
    {HloOpcode::kMaximum, "max-min-identity", MaxMinIdentity},
    {HloOpcode::kMinimum, "max-min-identity", MaxMinIdentity},
    {HloOpcode::kMaximum, "reassociate-constants", ReassociateConstants},
    {HloOpcode::kMinimum, "reassociate-constants", ReassociateConstants},
    {HloOpcode::kNegate, "involution", Involution},
    {HloOpcode::kNot, "involution", Involution},
    {HloOpcode::kAbs, "idempotent", Idempotent},
    {HloOpcode::kAbs, "abs-of-negate", AbsOfNegate},
    {HloOpcode::kFloor, "idempotent", Idempotent},
    {HloOpcode::kCeil, "idempotent", Idempotent},
    {HloOpcode::kRoundNearestAfz, "idempotent", Idempotent},
    {HloOpcode::kRoundNearestEven, "idempotent", Idempotent},
    {HloOpcode::kSign, "idempotent", Idempotent},
    {HloOpcode::kReal, "part-of-complex", PartOfComplex},
    {HloOpcode::kImag, "part-of-complex", PartOfComplex},
    {HloOpcode::kExp, "exp-log-inverse", ExpLogInverse},
    {HloOpcode::kLog, "exp-log-inverse", ExpLogInverse},
    {HloOpcode::kSelect, "select", SimplifySelect},
    {HloOpcode::kCompare, "compare-self", CompareSelf},
    {HloOpcode::kPower, "power", SimplifyPower},
};

}  // namespace

absl::Span<const Rule> ArithmeticRules() { return kRules; }

}  // namespace algsimp
}  // namespace tessera
