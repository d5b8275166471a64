// Shape inference for elementwise ops: unary, binary, compare, clamp,
// select, the element-type changing ops (convert, bitcast-convert,
// stochastic-convert, reduce-precision) and map.
#include <algorithm>

#include "hlo/analysis/shape_inference.h"
#include "hlo/analysis/shape_inference_internal.h"
#include "hlo/ir/status_macros.h"

namespace tessera {

using namespace shape_inference_internal;  // NOLINT: shared helpers

namespace {

bool IsSignedOrFloat(PrimitiveType t) { return IsSignedIntegralType(t) || IsFloatingPointType(t); }

absl::Status ExpectElementType(bool ok, HloOpcode opcode, const Shape& shape,
                               const std::string& expected) {
  if (ok) return absl::OkStatus();
  return Invalid(OpName(opcode), " expects ", expected, " operands, got ", Str(shape));
}

}  // namespace

absl::StatusOr<Shape> InferUnaryOpShape(HloOpcode opcode, const Shape& shape) {
  TS_RETURN_IF_ERROR(ExpectArray(shape, absl::StrCat("the operand of ", OpName(opcode))));
  const PrimitiveType t = shape.element_type();
  switch (opcode) {
    case HloOpcode::kFloor:
    case HloOpcode::kCeil:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kErf:
      TS_RETURN_IF_ERROR(
          ExpectElementType(IsFloatingPointType(t), opcode, shape, "floating-point"));
      return shape;
    case HloOpcode::kAcos:
    case HloOpcode::kAcosh:
    case HloOpcode::kAsin:
    case HloOpcode::kAsinh:
    case HloOpcode::kAtan:
    case HloOpcode::kAtanh:
    case HloOpcode::kCbrt:
    case HloOpcode::kCos:
    case HloOpcode::kCosh:
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kLogistic:
    case HloOpcode::kRsqrt:
    case HloOpcode::kSin:
    case HloOpcode::kSinh:
    case HloOpcode::kSqrt:
    case HloOpcode::kTan:
    case HloOpcode::kTanh:
      TS_RETURN_IF_ERROR(ExpectElementType(IsFloatingPointType(t) || IsComplexType(t), opcode,
                                           shape, "floating-point or complex"));
      return shape;
    case HloOpcode::kReal:
    case HloOpcode::kImag:
      if (IsComplexType(t)) return WithElementType(shape, ComplexComponentType(t));
      TS_RETURN_IF_ERROR(
          ExpectElementType(IsFloatingPointType(t), opcode, shape, "floating-point or complex"));
      return shape;
    case HloOpcode::kAbs:
      if (IsComplexType(t)) return WithElementType(shape, ComplexComponentType(t));
      TS_RETURN_IF_ERROR(ExpectElementType(IsSignedOrFloat(t), opcode, shape,
                                           "signed, floating-point or complex"));
      return shape;
    case HloOpcode::kClz:
    case HloOpcode::kPopulationCount:
      TS_RETURN_IF_ERROR(ExpectElementType(IsIntegralType(t), opcode, shape, "integral"));
      return shape;
    case HloOpcode::kNegate:
      TS_RETURN_IF_ERROR(
          ExpectElementType(IsIntegralType(t) || IsFloatingPointType(t) || IsComplexType(t), opcode,
                            shape, "integral, floating-point or complex"));
      return shape;
    case HloOpcode::kSign:
      TS_RETURN_IF_ERROR(ExpectElementType(IsSignedOrFloat(t) || IsComplexType(t), opcode, shape,
                                           "signed, floating-point or complex"));
      return shape;
    case HloOpcode::kNot:
      TS_RETURN_IF_ERROR(
          ExpectElementType(t == PRED || IsIntegralType(t), opcode, shape, "pred or integral"));
      return shape;
    case HloOpcode::kIsFinite:
      TS_RETURN_IF_ERROR(
          ExpectElementType(IsFloatingPointType(t), opcode, shape, "floating-point"));
      return WithElementType(shape, PRED);
    default:
      return Invalid(OpName(opcode), " is not a unary elementwise op");
  }
}

absl::StatusOr<Shape> InferBinaryOpShape(HloOpcode opcode, const Shape& lhs, const Shape& rhs) {
  TS_RETURN_IF_ERROR(ExpectArray(lhs, absl::StrCat("the lhs of ", OpName(opcode))));
  TS_RETURN_IF_ERROR(ExpectArray(rhs, absl::StrCat("the rhs of ", OpName(opcode))));
  if (!SameElementTypeIgnoringFpPrecision(lhs, rhs) || lhs.dimensions() != rhs.dimensions()) {
    return Invalid("operand shapes ", Str(lhs), " and ", Str(rhs), " are incompatible");
  }
  const PrimitiveType t = lhs.element_type();
  Shape result = WithElementType(lhs, HigherPrecisionElementType(lhs, rhs));
  for (int64_t i = 0; i < rhs.rank(); ++i) {
    if (rhs.is_dynamic_dimension(i)) result.set_dynamic_dimension(i, true);
  }
  switch (opcode) {
    case HloOpcode::kAdd:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kMultiply:
      return result;
    case HloOpcode::kSubtract:
    case HloOpcode::kAtan2:
    case HloOpcode::kPower:
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder:
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
      TS_RETURN_IF_ERROR(ExpectElementType(t != PRED, opcode, lhs, "arithmetic (non-pred)"));
      return result;
    case HloOpcode::kMulhi:
      TS_RETURN_IF_ERROR(ExpectElementType(IsIntegralType(t), opcode, lhs, "integral"));
      return result;
    case HloOpcode::kComplex:
      if (lhs.element_type() == F32 && rhs.element_type() == F32) {
        return WithElementType(result, C64);
      }
      if (lhs.element_type() == F64 && rhs.element_type() == F64) {
        return WithElementType(result, C128);
      }
      return Invalid("complex expects two f32 or two f64 operands, got ", Str(lhs), " and ",
                     Str(rhs));
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      TS_RETURN_IF_ERROR(
          ExpectElementType(t == PRED || IsIntegralType(t), opcode, lhs, "pred or integral"));
      return result;
    case HloOpcode::kCompare:
      return WithElementType(result, PRED);
    default:
      return Invalid(OpName(opcode), " is not a binary elementwise op");
  }
}

absl::Status CheckComparison(PrimitiveType operand_type, ComparisonType type) {
  if (type == ComparisonType::kDefault) return absl::OkStatus();  // the type's natural order
  if (IsFloatingPointType(operand_type)) {
    if (type != ComparisonType::kFloat && type != ComparisonType::kFloatTotalOrder) {
      return Invalid("comparison type ", std::string(ComparisonTypeString(type)),
                     " is not valid for ", TypeName(operand_type),
                     " operands (expected FLOAT or TOTALORDER)");
    }
    return absl::OkStatus();
  }
  const ComparisonType expected = IsComplexType(operand_type)          ? ComparisonType::kFloat
                                  : IsSignedIntegralType(operand_type) ? ComparisonType::kSigned
                                                                       : ComparisonType::kUnsigned;
  if (type != expected) {
    return Invalid("comparison type ", std::string(ComparisonTypeString(type)),
                   " is not valid for ", TypeName(operand_type), " operands (expected ",
                   std::string(ComparisonTypeString(expected)), ")");
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferClampShape(const Shape& min, const Shape& operand, const Shape& max) {
  TS_RETURN_IF_ERROR(ExpectArray(min, "clamp min"));
  TS_RETURN_IF_ERROR(ExpectArray(operand, "clamp operand"));
  TS_RETURN_IF_ERROR(ExpectArray(max, "clamp max"));
  auto fits = [&](const Shape& bound) {
    return SameElementTypeIgnoringFpPrecision(bound, operand) &&
           (bound.IsScalar() || bound.dimensions() == operand.dimensions());
  };
  if (!fits(min) || !fits(max)) {
    return Invalid("clamp bounds ", Str(min), " and ", Str(max), " are incompatible with operand ",
                   Str(operand));
  }
  return WithElementType(operand, operand.element_type());
}

absl::StatusOr<Shape> InferSelectShape(const Shape& pred, const Shape& on_true,
                                       const Shape& on_false) {
  TS_RETURN_IF_ERROR(ExpectArray(pred, "select pred"));
  TS_RETURN_IF_ERROR(ExpectArray(on_true, "select on-true"));
  TS_RETURN_IF_ERROR(ExpectArray(on_false, "select on-false"));
  if (!SameElementTypeIgnoringFpPrecision(on_true, on_false) ||
      on_true.dimensions() != on_false.dimensions()) {
    return Invalid("select branches ", Str(on_true), " and ", Str(on_false), " are incompatible");
  }
  if (pred.element_type() != PRED) {
    return Invalid("select predicate must be pred, got ", Str(pred));
  }
  if (pred.dimensions() != on_true.dimensions()) {
    return Invalid("select predicate ", Str(pred), " and branches ", Str(on_true),
                   " have different dimensions");
  }
  return WithElementType(on_true, HigherPrecisionElementType(on_true, on_false));
}

absl::StatusOr<Shape> InferConvertShape(const Shape& operand, PrimitiveType new_type) {
  if (!operand.IsArray() || !IsArrayType(new_type)) {
    return Invalid("convert needs array types, cannot convert ", Str(operand), " to ",
                   TypeName(new_type));
  }
  return WithElementType(operand, new_type);
}

absl::StatusOr<Shape> InferBitcastConvertShape(const Shape& operand, PrimitiveType new_type) {
  if (!operand.IsArray() || !IsArrayType(new_type)) {
    return Invalid("bitcast-convert needs array types, cannot convert ", Str(operand), " to ",
                   TypeName(new_type));
  }
  const PrimitiveType old_type = operand.element_type();
  if (IsComplexType(old_type) != IsComplexType(new_type)) {
    return Invalid("bitcast-convert between complex and real types: ", Str(operand), " to ",
                   TypeName(new_type));
  }
  const int in_bits = BitWidth(old_type);
  const int out_bits = BitWidth(new_type);
  if (std::max(in_bits, out_bits) % std::min(in_bits, out_bits) != 0) {
    return Invalid("bitcast-convert between indivisible bit widths: ", TypeName(old_type), " to ",
                   TypeName(new_type));
  }
  const int64_t ratio = std::max(in_bits, out_bits) / std::min(in_bits, out_bits);
  std::vector<int64_t> dims = operand.dimensions();
  if (in_bits > out_bits) {
    dims.push_back(ratio);
  } else if (in_bits < out_bits) {
    if (dims.empty() || dims.back() != ratio) {
      return Invalid("bitcast-convert from ", Str(operand), " to ", TypeName(new_type),
                     " needs a minor dimension of size ", ratio);
    }
    dims.pop_back();
  }
  return Shape(new_type, std::move(dims));
}

absl::StatusOr<Shape> InferStochasticConvertShape(const Shape& operand, const Shape& random,
                                                  PrimitiveType new_type) {
  TS_RETURN_IF_ERROR(ExpectArray(operand, "the operand of stochastic-convert"));
  TS_RETURN_IF_ERROR(ExpectArray(random, "the random bits of stochastic-convert"));
  if (!IsUnsignedIntegralType(random.element_type())) {
    return Invalid("stochastic-convert random bits must be unsigned, got ", Str(random));
  }
  if (!IsFloatingPointType(operand.element_type())) {
    return Invalid("stochastic-convert converts floating-point operands, got ", Str(operand));
  }
  if (BitWidth(operand.element_type()) != BitWidth(random.element_type())) {
    return Invalid("stochastic-convert random bits ", Str(random),
                   " must be as wide as the operand ", Str(operand));
  }
  if (operand.dimensions() != random.dimensions()) {
    return Invalid("stochastic-convert operand ", Str(operand), " and random bits ", Str(random),
                   " have different dimensions");
  }
  return InferConvertShape(operand, new_type);
}

absl::StatusOr<Shape> InferReducePrecisionShape(const Shape& operand, int exponent_bits,
                                                int mantissa_bits) {
  TS_RETURN_IF_ERROR(ExpectArray(operand, "the operand of reduce-precision"));
  if (!IsFloatingPointType(operand.element_type())) {
    return Invalid("reduce-precision expects a floating-point operand, got ", Str(operand));
  }
  if (exponent_bits < 1)
    return Invalid("reduce-precision needs exponent_bits >= 1, got ", exponent_bits);
  if (mantissa_bits < 0)
    return Invalid("reduce-precision needs mantissa_bits >= 0, got ", mantissa_bits);
  return WithElementType(operand, operand.element_type());
}

absl::StatusOr<Shape> InferMapShape(absl::Span<const Shape* const> operands,
                                    const ProgramShape& to_apply,
                                    absl::Span<const int64_t> dimensions) {
  if (operands.empty()) return Invalid("map expects at least one operand");
  const Shape* arg = operands[0];
  for (const Shape* shape : operands) {
    TS_RETURN_IF_ERROR(ExpectArray(*shape, "an operand of map"));
    if (shape->dimensions() == arg->dimensions()) continue;
    // A scalar of the same type may stand for any shape, as in XLA.
    if (SameElementTypeIgnoringFpPrecision(*shape, *arg)) {
      if (shape->IsScalar()) continue;
      if (arg->IsScalar()) {
        arg = shape;
        continue;
      }
    }
    return Invalid("map operands ", Str(*operands[0]), " and ", Str(*shape),
                   " have different shapes");
  }
  if (!dimensions.empty()) {
    bool identity = static_cast<int64_t>(dimensions.size()) == arg->rank();
    for (size_t i = 0; identity && i < dimensions.size(); ++i) {
      identity = dimensions[i] == static_cast<int64_t>(i);
    }
    if (!identity) {
      return Invalid("map dimensions ", Dims(dimensions), " must be all dimensions in order");
    }
  }
  if (to_apply.parameters.size() != operands.size()) {
    return Invalid("map computation takes ", to_apply.parameters.size(),
                   " parameter(s) but map has ", operands.size(), " operand(s)");
  }
  if (!to_apply.result.IsScalar()) {
    return Invalid("map computation must return a scalar, returns ", Str(to_apply.result));
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    const Shape& param = to_apply.parameters[i];
    if (!param.IsScalar() || !SameElementTypeIgnoringFpPrecision(param, *operands[i])) {
      return Invalid("map computation parameter ", i, " is ", Str(param),
                     ", expected a scalar of operand ", Str(*operands[i]), "'s type");
    }
  }
  return Shape(to_apply.result.element_type(), arg->dimensions());
}

namespace shape_inference_internal {

absl::StatusOr<Shape> InferElementwiseInstruction(const HloInstruction& hlo) {
  const HloOpcode opcode = hlo.opcode();
  switch (opcode) {
    case HloOpcode::kClamp:
      return InferClampShape(hlo.operand(0)->shape(), hlo.operand(1)->shape(),
                             hlo.operand(2)->shape());
    case HloOpcode::kSelect:
      return InferSelectShape(hlo.operand(0)->shape(), hlo.operand(1)->shape(),
                              hlo.operand(2)->shape());
    case HloOpcode::kConvert:
      return InferConvertShape(hlo.operand(0)->shape(), hlo.shape().element_type());
    case HloOpcode::kBitcastConvert:
      return InferBitcastConvertShape(hlo.operand(0)->shape(), hlo.shape().element_type());
    case HloOpcode::kStochasticConvert:
      return InferStochasticConvertShape(hlo.operand(0)->shape(), hlo.operand(1)->shape(),
                                         hlo.shape().element_type());
    case HloOpcode::kReducePrecision:
      return InferReducePrecisionShape(hlo.operand(0)->shape(), hlo.attrs().exponent_bits,
                                       hlo.attrs().mantissa_bits);
    case HloOpcode::kMap: {
      TS_ASSIGN_OR_RETURN(ProgramShape to_apply, CalledSignature(hlo, 0));
      return InferMapShape(OperandShapes(hlo), to_apply, hlo.dimensions());
    }
    case HloOpcode::kCompare: {
      TS_ASSIGN_OR_RETURN(Shape result, InferBinaryOpShape(opcode, hlo.operand(0)->shape(),
                                                           hlo.operand(1)->shape()));
      TS_RETURN_IF_ERROR(
          CheckComparison(hlo.operand(0)->shape().element_type(), hlo.attrs().comparison_type));
      return result;
    }
    default:
      break;
  }
  if (hlo.operand_count() == 1) return InferUnaryOpShape(opcode, hlo.operand(0)->shape());
  return InferBinaryOpShape(opcode, hlo.operand(0)->shape(), hlo.operand(1)->shape());
}

}  // namespace shape_inference_internal
}  // namespace tessera
