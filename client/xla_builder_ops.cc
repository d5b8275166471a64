// The builder's leaf, elementwise and shape ops (xla_builder.h).
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/xla_builder.h"
#include "client/xla_builder_internal.h"
#include "hlo/analysis/shape_inference.h"

namespace tessera {

using builder_internal::OperandShape;
using builder_internal::BuilderOf;

// ---------------------------------------------------------------------------
// Leaves
// ---------------------------------------------------------------------------

XlaOp Parameter(XlaBuilder* builder, int64_t number, const Shape& shape, absl::string_view name) {
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kParameter;
  request.shape = shape;
  request.name = name.empty() ? absl::StrCat("parameter.", number) : std::string(name);
  request.set_attributes = [number](HloAttributes& attributes) {
    attributes.parameter_number = number;
  };
  return builder->AddOp("Parameter", std::move(request));
}

XlaOp ConstantLiteral(XlaBuilder* builder, const Literal& literal) {
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kConstant;
  request.shape = literal.shape();
  request.set_attributes = [&literal](HloAttributes& attributes) {
    attributes.literal = literal;
  };
  return builder->AddOp("ConstantLiteral", std::move(request));
}

XlaOp ConstantScalar(XlaBuilder* builder, PrimitiveType type, double value) {
  absl::StatusOr<Literal> literal = Literal::CreateFromShape(Shape::MakeArray(type, {}));
  if (!literal.ok()) return builder->ReportError("ConstantScalar", literal.status());
  if (IsComplexType(type)) {
    literal->SetFromComplex(0, complex128(value, 0));
  } else if (IsFloatingPointType(type)) {
    literal->SetFromDouble(0, value);
  } else {
    literal->SetFromInt64(0, static_cast<int64_t>(value));
  }
  return ConstantLiteral(builder, *literal);
}

XlaOp Zero(XlaBuilder* builder, PrimitiveType type) { return ConstantScalar(builder, type, 0); }
XlaOp One(XlaBuilder* builder, PrimitiveType type) { return ConstantScalar(builder, type, 1); }

XlaOp Iota(XlaBuilder* builder, const Shape& shape, int64_t iota_dimension) {
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kIota;
  request.shape = shape;
  request.set_attributes = [iota_dimension](HloAttributes& attributes) {
    attributes.dimensions = {iota_dimension};
  };
  return builder->AddOp("Iota", std::move(request));
}

XlaOp Iota(XlaBuilder* builder, PrimitiveType type, int64_t size) {
  return Iota(builder, Shape::MakeArray(type, {size}), 0);
}

// ---------------------------------------------------------------------------
// Elementwise
// ---------------------------------------------------------------------------

namespace {

XlaOp Unary(absl::string_view what, HloOpcode opcode, XlaOp x) {
  if (x.builder() == nullptr) return XlaOp();
  XlaBuilder::OpRequest request;
  request.opcode = opcode;
  request.operands = {x};
  return x.builder()->AddOp(what, std::move(request));
}

// `operand` broadcast to `dimensions` (of the other operand's rank) along
// `broadcast_dimensions`, or itself when it already has them.
XlaOp BroadcastTo(XlaOp operand, const Shape& shape, absl::Span<const int64_t> dimensions,
                  absl::Span<const int64_t> broadcast_dimensions) {
  if (shape.dimensions() == std::vector<int64_t>(dimensions.begin(), dimensions.end())) {
    return operand;
  }
  return BroadcastInDim(operand, dimensions, broadcast_dimensions);
}

// XLA's implicit broadcasting of binary ops: a scalar against an array, or
// the lower-rank operand along `broadcast_dimensions` of the other.
XlaOp Binary(absl::string_view what, HloOpcode opcode, XlaOp lhs, XlaOp rhs,
             absl::Span<const int64_t> broadcast_dimensions,
             std::function<void(HloAttributes&)> set_attributes = nullptr) {
  XlaBuilder* builder = BuilderOf({lhs, rhs});
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Shape> lhs_shape = OperandShape(builder, what, lhs);
  absl::StatusOr<Shape> rhs_shape = OperandShape(builder, what, rhs);
  if (!lhs_shape.ok() || !rhs_shape.ok()) return XlaOp();
  if (lhs_shape->IsArray() && rhs_shape->IsArray() &&
      lhs_shape->rank() != rhs_shape->rank()) {
    const bool lhs_larger = lhs_shape->rank() > rhs_shape->rank();
    const Shape& larger = lhs_larger ? *lhs_shape : *rhs_shape;
    const Shape& smaller = lhs_larger ? *rhs_shape : *lhs_shape;
    std::vector<int64_t> along(broadcast_dimensions.begin(), broadcast_dimensions.end());
    if (smaller.rank() == 0) {
      along.clear();
    } else if (static_cast<int64_t>(along.size()) != smaller.rank()) {
      return builder->ReportError(
          what, absl::InvalidArgumentError(absl::StrCat(
                    "operands of ranks ", lhs_shape->rank(), " and ", rhs_shape->rank(),
                    " need broadcast_dimensions with one entry per dimension of ",
                    smaller.ToString(), ", got {", absl::StrJoin(along, ","), "}")));
    }
    for (int64_t d : along) {
      if (d < 0 || d >= larger.rank()) {
        return builder->ReportError(
            what, absl::InvalidArgumentError(absl::StrCat(
                      "broadcast dimension ", d, " is out of range for ", larger.ToString())));
      }
    }
    XlaOp widened = BroadcastTo(lhs_larger ? rhs : lhs, smaller, larger.dimensions(), along);
    if (lhs_larger) {
      rhs = widened;
    } else {
      lhs = widened;
    }
  }
  XlaBuilder::OpRequest request;
  request.opcode = opcode;
  request.operands = {lhs, rhs};
  request.set_attributes = std::move(set_attributes);
  return builder->AddOp(what, std::move(request));
}

}  // namespace

#define TS_UNARY(Function, opcode) \
  XlaOp Function(XlaOp x) { return Unary(#Function, HloOpcode::opcode, x); }
TS_UNARY(Abs, kAbs)
TS_UNARY(Neg, kNegate)
TS_UNARY(Exp, kExp)
TS_UNARY(Expm1, kExpm1)
TS_UNARY(Log, kLog)
TS_UNARY(Log1p, kLog1p)
TS_UNARY(Logistic, kLogistic)
TS_UNARY(Sign, kSign)
TS_UNARY(Sqrt, kSqrt)
TS_UNARY(Rsqrt, kRsqrt)
TS_UNARY(Cbrt, kCbrt)
TS_UNARY(Tanh, kTanh)
TS_UNARY(Tan, kTan)
TS_UNARY(Sin, kSin)
TS_UNARY(Cos, kCos)
TS_UNARY(Atan, kAtan)
TS_UNARY(Erf, kErf)
TS_UNARY(Floor, kFloor)
TS_UNARY(Ceil, kCeil)
TS_UNARY(Round, kRoundNearestAfz)
TS_UNARY(RoundNearestEven, kRoundNearestEven)
TS_UNARY(Not, kNot)
TS_UNARY(IsFinite, kIsFinite)
TS_UNARY(Clz, kClz)
TS_UNARY(PopulationCount, kPopulationCount)
TS_UNARY(Real, kReal)
TS_UNARY(Imag, kImag)
#undef TS_UNARY

XlaOp Square(XlaOp x) { return Mul(x, x); }

XlaOp Reciprocal(XlaOp x) {
  if (x.builder() == nullptr) return XlaOp();
  absl::StatusOr<Shape> shape = OperandShape(x.builder(), "Reciprocal", x);
  if (!shape.ok()) return XlaOp();
  return Div(One(x.builder(), shape->element_type()), x);
}

#define TS_BINARY(Function, opcode)                                                     \
  XlaOp Function(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions) { \
    return Binary(#Function, HloOpcode::opcode, lhs, rhs, broadcast_dimensions);        \
  }
TS_BINARY(Add, kAdd)
TS_BINARY(Sub, kSubtract)
TS_BINARY(Mul, kMultiply)
TS_BINARY(Div, kDivide)
TS_BINARY(Rem, kRemainder)
TS_BINARY(Max, kMaximum)
TS_BINARY(Min, kMinimum)
TS_BINARY(Pow, kPower)
TS_BINARY(Atan2, kAtan2)
TS_BINARY(Complex, kComplex)
TS_BINARY(And, kAnd)
TS_BINARY(Or, kOr)
TS_BINARY(Xor, kXor)
TS_BINARY(ShiftLeft, kShiftLeft)
TS_BINARY(ShiftRightArithmetic, kShiftRightArithmetic)
TS_BINARY(ShiftRightLogical, kShiftRightLogical)
#undef TS_BINARY

XlaOp Compare(XlaOp lhs, XlaOp rhs, ComparisonDirection direction, ComparisonType type,
              absl::Span<const int64_t> broadcast_dimensions) {
  return Binary("Compare", HloOpcode::kCompare, lhs, rhs, broadcast_dimensions,
                [direction, type](HloAttributes& attributes) {
                  attributes.comparison_direction = direction;
                  attributes.comparison_type = type;
                });
}

XlaOp Compare(XlaOp lhs, XlaOp rhs, ComparisonDirection direction,
              absl::Span<const int64_t> broadcast_dimensions) {
  return Compare(lhs, rhs, direction, ComparisonType::kDefault, broadcast_dimensions);
}

#define TS_COMPARE(Function, direction)                                                  \
  XlaOp Function(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions) { \
    return Compare(lhs, rhs, ComparisonDirection::direction, broadcast_dimensions);      \
  }
TS_COMPARE(Eq, kEq)
TS_COMPARE(Ne, kNe)
TS_COMPARE(Lt, kLt)
TS_COMPARE(Le, kLe)
TS_COMPARE(Gt, kGt)
TS_COMPARE(Ge, kGe)
#undef TS_COMPARE

namespace {

// `op` broadcast to the dimensions of `like` when it is a scalar and
// `like` is not (select's predicate, clamp's bounds).
XlaOp ScalarTo(XlaBuilder* builder, absl::string_view what, XlaOp op, XlaOp like) {
  absl::StatusOr<Shape> shape = OperandShape(builder, what, op);
  absl::StatusOr<Shape> target = OperandShape(builder, what, like);
  if (!shape.ok() || !target.ok()) return XlaOp();
  if (!shape->IsArray() || shape->rank() != 0 || !target->IsArray() || target->rank() == 0) {
    return op;
  }
  return BroadcastInDim(op, target->dimensions(), {});
}

}  // namespace

XlaOp Select(XlaOp pred, XlaOp on_true, XlaOp on_false) {
  XlaBuilder* builder = BuilderOf({pred, on_true, on_false});
  if (builder == nullptr) return XlaOp();
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kSelect;
  request.operands = {ScalarTo(builder, "Select", pred, on_true), on_true, on_false};
  return builder->AddOp("Select", std::move(request));
}

XlaOp Clamp(XlaOp min, XlaOp operand, XlaOp max) {
  XlaBuilder* builder = BuilderOf({min, operand, max});
  if (builder == nullptr) return XlaOp();
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kClamp;
  request.operands = {ScalarTo(builder, "Clamp", min, operand), operand,
                      ScalarTo(builder, "Clamp", max, operand)};
  return builder->AddOp("Clamp", std::move(request));
}

namespace {

// A conversion to `new_type` whose shape `infer` gives.
XlaOp Conversion(absl::string_view what, HloOpcode opcode, XlaOp operand, PrimitiveType new_type,
                 absl::StatusOr<Shape> (*infer)(const Shape&, PrimitiveType)) {
  XlaBuilder* builder = operand.builder();
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Shape> shape = OperandShape(builder, what, operand);
  if (!shape.ok()) return XlaOp();
  absl::StatusOr<Shape> converted = infer(*shape, new_type);
  if (!converted.ok()) return builder->ReportError(what, converted.status());
  XlaBuilder::OpRequest request;
  request.opcode = opcode;
  request.shape = *converted;
  request.operands = {operand};
  return builder->AddOp(what, std::move(request));
}

}  // namespace

XlaOp ConvertElementType(XlaOp operand, PrimitiveType new_type) {
  return Conversion("ConvertElementType", HloOpcode::kConvert, operand, new_type,
                    &InferConvertShape);
}

XlaOp BitcastConvertType(XlaOp operand, PrimitiveType new_type) {
  return Conversion("BitcastConvertType", HloOpcode::kBitcastConvert, operand, new_type,
                    &InferBitcastConvertShape);
}

XlaOp Map(XlaBuilder* builder, absl::Span<const XlaOp> operands,
          const XlaComputation& computation, absl::Span<const int64_t> dimensions) {
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kMap;
  request.operands.assign(operands.begin(), operands.end());
  request.computations = {&computation};
  std::vector<int64_t> along(dimensions.begin(), dimensions.end());
  request.set_attributes = [along](HloAttributes& attributes) { attributes.dimensions = along; };
  return builder->AddOp("Map", std::move(request));
}

// ---------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------

XlaOp BroadcastInDim(XlaOp operand, absl::Span<const int64_t> out_dimensions,
                     absl::Span<const int64_t> broadcast_dimensions) {
  XlaBuilder* builder = operand.builder();
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Shape> shape = OperandShape(builder, "BroadcastInDim", operand);
  if (!shape.ok()) return XlaOp();
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kBroadcast;
  request.shape = Shape::MakeArray(shape->element_type(),
                                   std::vector<int64_t>(out_dimensions.begin(), out_dimensions.end()));
  request.operands = {operand};
  std::vector<int64_t> along(broadcast_dimensions.begin(), broadcast_dimensions.end());
  request.set_attributes = [along](HloAttributes& attributes) { attributes.dimensions = along; };
  return builder->AddOp("BroadcastInDim", std::move(request));
}

XlaOp Broadcast(XlaOp operand, absl::Span<const int64_t> sizes) {
  XlaBuilder* builder = operand.builder();
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Shape> shape = OperandShape(builder, "Broadcast", operand);
  if (!shape.ok()) return XlaOp();
  std::vector<int64_t> dimensions(sizes.begin(), sizes.end());
  std::vector<int64_t> along;
  for (int64_t d = 0; d < shape->rank(); ++d) {
    along.push_back(static_cast<int64_t>(sizes.size()) + d);
    dimensions.push_back(shape->dimensions(d));
  }
  return BroadcastInDim(operand, dimensions, along);
}

XlaOp Reshape(XlaOp operand, absl::Span<const int64_t> new_sizes) {
  XlaBuilder* builder = operand.builder();
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Shape> shape = OperandShape(builder, "Reshape", operand);
  if (!shape.ok()) return XlaOp();
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kReshape;
  request.shape = Shape::MakeArray(shape->element_type(),
                                   std::vector<int64_t>(new_sizes.begin(), new_sizes.end()));
  request.operands = {operand};
  return builder->AddOp("Reshape", std::move(request));
}

namespace {

XlaOp WithDimensions(absl::string_view what, HloOpcode opcode, XlaOp operand,
                     absl::Span<const int64_t> dimensions) {
  if (operand.builder() == nullptr) return XlaOp();
  XlaBuilder::OpRequest request;
  request.opcode = opcode;
  request.operands = {operand};
  std::vector<int64_t> list(dimensions.begin(), dimensions.end());
  request.set_attributes = [list](HloAttributes& attributes) { attributes.dimensions = list; };
  return operand.builder()->AddOp(what, std::move(request));
}

}  // namespace

XlaOp Transpose(XlaOp operand, absl::Span<const int64_t> permutation) {
  return WithDimensions("Transpose", HloOpcode::kTranspose, operand, permutation);
}

XlaOp Rev(XlaOp operand, absl::Span<const int64_t> dimensions) {
  return WithDimensions("Rev", HloOpcode::kReverse, operand, dimensions);
}

XlaOp Slice(XlaOp operand, absl::Span<const int64_t> start_indices,
            absl::Span<const int64_t> limit_indices, absl::Span<const int64_t> strides) {
  XlaBuilder* builder = operand.builder();
  if (builder == nullptr) return XlaOp();
  if (start_indices.size() != limit_indices.size() || start_indices.size() != strides.size()) {
    return builder->ReportError(
        "Slice", absl::InvalidArgumentError(absl::StrCat(
                     start_indices.size(), " start indices, ", limit_indices.size(),
                     " limit indices and ", strides.size(), " strides: need one each per dimension")));
  }
  std::vector<SliceDimension> slice;
  for (size_t d = 0; d < start_indices.size(); ++d) {
    slice.push_back({start_indices[d], limit_indices[d], strides[d]});
  }
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kSlice;
  request.operands = {operand};
  request.set_attributes = [slice](HloAttributes& attributes) {
    attributes.slice_dimensions = slice;
  };
  return builder->AddOp("Slice", std::move(request));
}

XlaOp SliceInDim(XlaOp operand, int64_t start_index, int64_t limit_index, int64_t stride,
                 int64_t dimension) {
  XlaBuilder* builder = operand.builder();
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Shape> shape = OperandShape(builder, "SliceInDim", operand);
  if (!shape.ok()) return XlaOp();
  if (dimension < 0 || dimension >= shape->rank()) {
    return builder->ReportError(
        "SliceInDim", absl::InvalidArgumentError(absl::StrCat(
                          "dimension ", dimension, " is out of range for ", shape->ToString())));
  }
  std::vector<int64_t> starts(shape->rank(), 0), limits = shape->dimensions(),
                                                 strides(shape->rank(), 1);
  starts[dimension] = start_index;
  limits[dimension] = limit_index;
  strides[dimension] = stride;
  return Slice(operand, starts, limits, strides);
}

XlaOp DynamicSlice(XlaOp operand, absl::Span<const XlaOp> start_indices,
                   absl::Span<const int64_t> slice_sizes) {
  XlaBuilder* builder = operand.builder();
  if (builder == nullptr) return XlaOp();
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kDynamicSlice;
  request.operands = {operand};
  request.operands.insert(request.operands.end(), start_indices.begin(), start_indices.end());
  std::vector<int64_t> sizes(slice_sizes.begin(), slice_sizes.end());
  request.set_attributes = [sizes](HloAttributes& attributes) {
    attributes.dynamic_slice_sizes = sizes;
  };
  return builder->AddOp("DynamicSlice", std::move(request));
}

XlaOp DynamicUpdateSlice(XlaOp operand, XlaOp update, absl::Span<const XlaOp> start_indices) {
  XlaBuilder* builder = operand.builder();
  if (builder == nullptr) return XlaOp();
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kDynamicUpdateSlice;
  request.operands = {operand, update};
  request.operands.insert(request.operands.end(), start_indices.begin(), start_indices.end());
  return builder->AddOp("DynamicUpdateSlice", std::move(request));
}

XlaOp ConcatInDim(XlaBuilder* builder, absl::Span<const XlaOp> operands, int64_t dimension) {
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kConcatenate;
  request.operands.assign(operands.begin(), operands.end());
  request.set_attributes = [dimension](HloAttributes& attributes) {
    attributes.dimensions = {dimension};
  };
  return builder->AddOp("ConcatInDim", std::move(request));
}

XlaOp Pad(XlaOp operand, XlaOp padding_value, const PaddingConfig& padding_config) {
  XlaBuilder* builder = BuilderOf({operand, padding_value});
  if (builder == nullptr) return XlaOp();
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kPad;
  request.operands = {operand, padding_value};
  request.set_attributes = [padding_config](HloAttributes& attributes) {
    attributes.padding_config = padding_config;
  };
  return builder->AddOp("Pad", std::move(request));
}

XlaOp PadInDim(XlaOp operand, XlaOp padding_value, int64_t dimension, int64_t low, int64_t high) {
  XlaBuilder* builder = operand.builder();
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Shape> shape = OperandShape(builder, "PadInDim", operand);
  if (!shape.ok()) return XlaOp();
  if (dimension < 0 || dimension >= shape->rank()) {
    return builder->ReportError(
        "PadInDim", absl::InvalidArgumentError(absl::StrCat(
                        "dimension ", dimension, " is out of range for ", shape->ToString())));
  }
  PaddingConfig config;
  config.dimensions.resize(shape->rank());
  config.dimensions[dimension].edge_padding_low = low;
  config.dimensions[dimension].edge_padding_high = high;
  return Pad(operand, padding_value, config);
}

}  // namespace tessera
