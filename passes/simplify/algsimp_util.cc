// Helpers shared by the AlgebraicSimplifier's rule families: uniform
// constants, special values of each element type, constant folding of one
// binary op, shapes for new instructions, and reducer recognition.
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "hlo/evaluator/hlo_evaluator.h"
#include "passes/simplify/algsimp_internal.h"

namespace tessera {
namespace algsimp {

std::optional<Literal> UniformValue(const HloInstruction* instruction) {
  if (instruction->opcode() == HloOpcode::kBroadcast) instruction = instruction->operand(0);
  if (instruction->opcode() != HloOpcode::kConstant || !instruction->shape().IsArray()) {
    return std::nullopt;
  }
  const Literal& literal = instruction->literal();
  const PrimitiveType type = literal.shape().element_type();
  const int64_t count = literal.element_count();
  const int64_t width = ByteWidth(type);
  if (count == 0 || width == 0) return std::nullopt;
  const char* bytes = static_cast<const char*>(literal.untyped_data());
  for (int64_t i = 1; i < count; ++i) {
    if (std::memcmp(bytes, bytes + i * width, width) != 0) return std::nullopt;
  }
  Literal scalar(Shape::MakeArrayWithDescendingLayout(type, {}));
  std::memcpy(scalar.untyped_data(), bytes, width);
  return scalar;
}

std::optional<Literal> ScalarOf(PrimitiveType type, double value) {
  if (!IsArrayType(type)) return std::nullopt;
  Literal scalar(Shape::MakeArrayWithDescendingLayout(type, {}));
  if (IsFloat(type) || IsComplexType(type)) {
    scalar.SetFromComplex(0, complex128(value, 0));
    const complex128 back = scalar.GetAsComplex(0);
    if (back.real() != value || std::signbit(back.real()) != std::signbit(value)) {
      return std::nullopt;
    }
    return scalar;
  }
  if (value != std::trunc(value) || std::abs(value) > 1e18) return std::nullopt;
  if ((type == PRED && value != 0 && value != 1) || (IsUnsignedIntegralType(type) && value < 0)) {
    return std::nullopt;
  }
  scalar.SetFromInt64(0, static_cast<int64_t>(value));
  if (scalar.GetAsInt64(0) != static_cast<int64_t>(value)) return std::nullopt;
  return scalar;
}

Literal AllOnesOf(PrimitiveType type) {
  Literal scalar(Shape::MakeArrayWithDescendingLayout(type, {}));
  scalar.SetFromInt64(0, -1);  // integers wrap to all ones; PRED: true
  return scalar;
}

Literal LowestOf(PrimitiveType type) {
  Literal scalar(Shape::MakeArrayWithDescendingLayout(type, {}));
  if (IsFloat(type)) {
    scalar.SetFromDouble(0, -std::numeric_limits<double>::infinity());
  } else if (IsSignedIntegralType(type)) {
    const int bits = BitWidth(type);
    scalar.SetFromInt64(0, bits == 64 ? std::numeric_limits<int64_t>::min()
                                      : -(int64_t{1} << (bits - 1)));
  }  // unsigned and PRED: zero
  return scalar;
}

Literal HighestOf(PrimitiveType type) {
  Literal scalar(Shape::MakeArrayWithDescendingLayout(type, {}));
  if (IsFloat(type)) {
    scalar.SetFromDouble(0, std::numeric_limits<double>::infinity());
  } else if (IsSignedIntegralType(type)) {
    scalar.SetFromInt64(0, static_cast<int64_t>((uint64_t{1} << (BitWidth(type) - 1)) - 1));
  } else {
    scalar.SetFromInt64(0, -1);  // unsigned: all ones; PRED: true
  }
  return scalar;
}

bool IsUniform(const HloInstruction* instruction, const Literal& value) {
  std::optional<Literal> uniform = UniformValue(instruction);
  return uniform.has_value() && *uniform == value;
}

bool IsUniform(const HloInstruction* instruction, double value) {
  std::optional<Literal> scalar = ScalarOf(ElementType(instruction), value);
  return scalar.has_value() && IsUniform(instruction, *scalar);
}

bool IsConstantLike(const HloInstruction* instruction) {
  return instruction->opcode() == HloOpcode::kConstant ||
         (instruction->opcode() == HloOpcode::kBroadcast &&
          instruction->operand(0)->opcode() == HloOpcode::kConstant);
}

HloInstruction* MakeUniform(Rewriter& rewriter, const Literal& scalar, const Shape& like,
                            const HloInstruction* origin) {
  Literal value = scalar;
  HloInstruction* constant = rewriter.Add(HloInstruction::CreateConstant(std::move(value)), origin);
  if (like.rank() == 0) {
    *constant->mutable_shape() = like;
    return constant;
  }
  if (!like.has_layout()) constant->mutable_shape()->clear_layout();
  return rewriter.Add(HloInstruction::CreateBroadcast(like, constant, {}), origin);
}

absl::StatusOr<Literal> FoldBinary(HloOpcode opcode, const Literal& lhs, const Literal& rhs) {
  HloComputation scratch("algsimp_fold");
  HloInstruction* a =
      scratch.AddInstruction(HloInstruction::CreateParameter(0, lhs.shape(), "lhs"));
  HloInstruction* b =
      scratch.AddInstruction(HloInstruction::CreateParameter(1, rhs.shape(), "rhs"));
  scratch.set_root_instruction(
      scratch.AddInstruction(HloInstruction::CreateBinary(lhs.shape(), opcode, a, b)));
  std::vector<Literal> arguments = {lhs, rhs};
  return EvaluateComputation(scratch, arguments);
}

Shape IntermediateShape(PrimitiveType type, std::vector<int64_t> dimensions, const Shape& like) {
  return like.has_layout() ? Shape::MakeArrayWithDescendingLayout(type, std::move(dimensions))
                           : Shape::MakeArray(type, std::move(dimensions));
}

bool IsIdentityPermutation(absl::Span<const int64_t> permutation) {
  for (size_t i = 0; i < permutation.size(); ++i) {
    if (permutation[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

HloInstruction* BroadcastTo(Rewriter& rewriter, HloInstruction* operand, const Shape& shape,
                            std::vector<int64_t> dimensions, const HloInstruction* origin) {
  if (operand->shape() == shape && IsIdentityPermutation(dimensions)) return operand;
  return rewriter.Add(HloInstruction::CreateBroadcast(shape, operand, std::move(dimensions)),
                      origin);
}

std::optional<BinaryReducer> AsBinaryReducer(const HloComputation* reducer) {
  if (reducer == nullptr || reducer->num_parameters() != 2 ||
      reducer->instruction_count() != 3) {
    return std::nullopt;
  }
  const HloInstruction* root = reducer->root_instruction();
  const HloInstruction* p0 = reducer->parameter_instruction(0);
  const HloInstruction* p1 = reducer->parameter_instruction(1);
  if (root == nullptr || p0 == nullptr || p1 == nullptr || root->operand_count() != 2 ||
      HloOpcodeArity(root->opcode()) != 2 || !HloOpcodeIsElementwise(root->opcode()) ||
      root->opcode() == HloOpcode::kCompare || !root->shape().IsScalar() ||
      !ShapesCompatible(root->shape(), p0->shape()) ||
      !ShapesCompatible(root->shape(), p1->shape())) {
    return std::nullopt;
  }
  if (root->operand(0) == p0 && root->operand(1) == p1) return BinaryReducer{root->opcode(), true};
  if (root->operand(0) == p1 && root->operand(1) == p0) {
    return BinaryReducer{root->opcode(), false};
  }
  return std::nullopt;
}

std::unique_ptr<HloInstruction> ApplyReducer(const BinaryReducer& reducer, const Shape& shape,
                                             HloInstruction* accumulator, HloInstruction* value) {
  return reducer.accumulator_first
             ? HloInstruction::CreateBinary(shape, reducer.opcode, accumulator, value)
             : HloInstruction::CreateBinary(shape, reducer.opcode, value, accumulator);
}

}  // namespace algsimp
}  // namespace tessera
