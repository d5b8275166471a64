// Shape inference for dot-like and linear-algebra ops: dot (general
// dimension numbers, mixed precision), ragged-dot, scaled-dot, fft,
// triangular-solve, cholesky and the batch-norm family.
#include <algorithm>

#include "hlo/analysis/shape_inference.h"
#include "hlo/analysis/shape_inference_internal.h"
#include "hlo/ir/status_macros.h"

namespace tessera {

using namespace shape_inference_internal;  // NOLINT: shared helpers

namespace shape_inference_internal {

absl::StatusOr<PrimitiveType> ResultElementType(const std::string& op, PrimitiveType operand_type,
                                                std::optional<PrimitiveType> preferred) {
  if (!preferred.has_value() || *preferred == operand_type) return operand_type;
  if (!IsArrayType(*preferred)) {
    return Invalid(op, " result type ", TypeName(*preferred), " is not an array type");
  }
  if (!IsFloatingPointType(operand_type) && BitWidth(*preferred) < BitWidth(operand_type)) {
    return Invalid(op, " result type ", TypeName(*preferred), " is narrower than the operand type ",
                   TypeName(operand_type));
  }
  return *preferred;
}

absl::Status CheckPrecisionConfig(const HloInstruction& hlo, int64_t operands) {
  const auto& precisions = hlo.attrs().precision_config.operand_precision;
  if (!precisions.empty() && static_cast<int64_t>(precisions.size()) != operands) {
    return Invalid("precision config has ", precisions.size(), " entries, expected ", operands);
  }
  int64_t nibbles = 0;
  for (Precision p : precisions) {
    const int32_t value = static_cast<int32_t>(p);
    if (value < 0 || value > static_cast<int32_t>(Precision::kPackedNibble)) {
      return Invalid("precision config has unknown precision ", value);
    }
    nibbles += p == Precision::kPackedNibble;
  }
  if (nibbles == 1) return Invalid("packed nibble precision must apply to both operands");
  if (nibbles == 2) {
    for (int64_t i = 0; i < 2; ++i) {
      const Shape& s = hlo.operand(i)->shape();
      if (!IsIntegralType(s.element_type()) || BitWidth(s.element_type()) != 8) {
        return Invalid("packed nibble precision needs 8-bit integer operands, got ", Str(s));
      }
    }
    if (hlo.attrs().feature_group_count != 1 || hlo.attrs().batch_group_count != 1) {
      return Invalid("packed nibble precision does not support group counts");
    }
  }
  return absl::OkStatus();
}

}  // namespace shape_inference_internal

namespace {

bool IsFloatOrComplex(PrimitiveType t) { return IsFloatingPointType(t) || IsComplexType(t); }

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

absl::StatusOr<Shape> InferDotShape(const Shape& lhs, const Shape& rhs,
                                    const DotDimensionNumbers& dnums,
                                    std::optional<PrimitiveType> preferred_type) {
  TS_RETURN_IF_ERROR(ExpectArray(lhs, "the lhs of dot"));
  TS_RETURN_IF_ERROR(ExpectArray(rhs, "the rhs of dot"));
  const std::string operands = absl::StrCat("dot of ", Str(lhs), " and ", Str(rhs));
  auto check_side = [&](const std::vector<int64_t>& contracting, const std::vector<int64_t>& batch,
                        const Shape& shape, const std::string& side) -> absl::Status {
    std::vector<int64_t> all = contracting;
    all.insert(all.end(), batch.begin(), batch.end());
    for (int64_t d : all) {
      if (d < 0 || d >= shape.rank()) {
        return Invalid(operands, ": ", side, " dimension ", d, " is out of range");
      }
    }
    if (!AllUnique(all)) {
      return Invalid(operands, ": ", side, " contracting and batch dimensions ", Dims(all),
                     " repeat a dimension");
    }
    return absl::OkStatus();
  };
  TS_RETURN_IF_ERROR(
      check_side(dnums.lhs_contracting_dimensions, dnums.lhs_batch_dimensions, lhs, "lhs"));
  TS_RETURN_IF_ERROR(
      check_side(dnums.rhs_contracting_dimensions, dnums.rhs_batch_dimensions, rhs, "rhs"));
  if (dnums.lhs_contracting_dimensions.size() != dnums.rhs_contracting_dimensions.size()) {
    return Invalid(operands, ": lhs_contracting_dims ", Dims(dnums.lhs_contracting_dimensions),
                   " and rhs_contracting_dims ", Dims(dnums.rhs_contracting_dimensions),
                   " differ in length");
  }
  for (size_t i = 0; i < dnums.lhs_contracting_dimensions.size(); ++i) {
    if (lhs.dimensions(dnums.lhs_contracting_dimensions[i]) !=
        rhs.dimensions(dnums.rhs_contracting_dimensions[i])) {
      return Invalid(operands, ": contracting dimension sizes do not match");
    }
  }
  if (dnums.lhs_batch_dimensions.size() != dnums.rhs_batch_dimensions.size()) {
    return Invalid(operands, ": lhs_batch_dims ", Dims(dnums.lhs_batch_dimensions),
                   " and rhs_batch_dims ", Dims(dnums.rhs_batch_dimensions), " differ in length");
  }
  for (size_t i = 0; i < dnums.lhs_batch_dimensions.size(); ++i) {
    if (lhs.dimensions(dnums.lhs_batch_dimensions[i]) !=
        rhs.dimensions(dnums.rhs_batch_dimensions[i])) {
      return Invalid(operands, ": batch dimension sizes do not match");
    }
  }
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  for (int64_t d : dnums.lhs_batch_dimensions) {
    dims.push_back(lhs.dimensions(d));
    dynamic.push_back(lhs.is_dynamic_dimension(d));
  }
  for (int64_t i = 0; i < lhs.rank(); ++i) {
    if (!Contains(dnums.lhs_contracting_dimensions, i) &&
        !Contains(dnums.lhs_batch_dimensions, i)) {
      dims.push_back(lhs.dimensions(i));
      dynamic.push_back(lhs.is_dynamic_dimension(i));
    }
  }
  for (int64_t i = 0; i < rhs.rank(); ++i) {
    if (!Contains(dnums.rhs_contracting_dimensions, i) &&
        !Contains(dnums.rhs_batch_dimensions, i)) {
      dims.push_back(rhs.dimensions(i));
      dynamic.push_back(rhs.is_dynamic_dimension(i));
    }
  }
  TS_ASSIGN_OR_RETURN(
      PrimitiveType type,
      ResultElementType("dot", HigherPrecisionElementType(lhs, rhs), preferred_type));
  Shape result(type, std::move(dims));
  for (size_t i = 0; i < dynamic.size(); ++i) {
    if (dynamic[i]) result.set_dynamic_dimension(i, true);
  }
  return result;
}

absl::StatusOr<Shape> InferRaggedDotShape(const Shape& lhs, const Shape& rhs,
                                          const Shape& group_sizes,
                                          const RaggedDotDimensionNumbers& dnums,
                                          std::optional<PrimitiveType> preferred_type) {
  TS_RETURN_IF_ERROR(ExpectArray(lhs, "the lhs of ragged-dot"));
  TS_RETURN_IF_ERROR(ExpectArray(rhs, "the rhs of ragged-dot"));
  TS_RETURN_IF_ERROR(ExpectArray(group_sizes, "the group sizes of ragged-dot"));
  if (!IsIntegralType(group_sizes.element_type()) || group_sizes.rank() < 1) {
    return Invalid("ragged-dot group sizes must be an integral array, got ", Str(group_sizes));
  }
  if (dnums.lhs_ragged_dimensions.size() != 1) {
    return Invalid("ragged-dot needs exactly one lhs ragged dimension, got ",
                   Dims(dnums.lhs_ragged_dimensions));
  }
  if (dnums.rhs_group_dimensions.size() > 1) {
    return Invalid("ragged-dot takes at most one rhs group dimension, got ",
                   Dims(dnums.rhs_group_dimensions));
  }
  const DotDimensionNumbers& dot = dnums.dot_dimension_numbers;
  const int64_t ragged = dnums.lhs_ragged_dimensions[0];
  if (ragged < 0 || ragged >= lhs.rank()) {
    return Invalid("ragged-dot lhs ragged dimension ", ragged, " is out of range for ", Str(lhs));
  }
  const int64_t groups = group_sizes.dimensions(group_sizes.rank() - 1);
  const bool ragged_contracting = Contains(dot.lhs_contracting_dimensions, ragged);
  const bool ragged_batch = Contains(dot.lhs_batch_dimensions, ragged);
  if (ragged_contracting || ragged_batch) {
    if (!dnums.rhs_group_dimensions.empty()) {
      return Invalid(
          "ragged-dot with a contracting or batch ragged dimension takes no rhs "
          "group dimension");
    }
    TS_ASSIGN_OR_RETURN(Shape result, InferDotShape(lhs, rhs, dot, preferred_type));
    if (ragged_batch) return result;
    std::vector<int64_t> dims = {groups};
    dims.insert(dims.end(), result.dimensions().begin(), result.dimensions().end());
    return Shape(result.element_type(), std::move(dims));
  }
  // The ragged dimension is a free lhs dimension: each group of its rows
  // multiplies its own rhs slice along the group dimension.
  if (dnums.rhs_group_dimensions.size() != 1) {
    return Invalid(
        "ragged-dot with a non-contracting ragged dimension needs one rhs group "
        "dimension");
  }
  const int64_t group = dnums.rhs_group_dimensions[0];
  if (group < 0 || group >= rhs.rank() || Contains(dot.rhs_contracting_dimensions, group) ||
      Contains(dot.rhs_batch_dimensions, group)) {
    return Invalid("ragged-dot rhs group dimension ", group, " is invalid for ", Str(rhs));
  }
  if (rhs.dimensions(group) != groups) {
    return Invalid("ragged-dot rhs group dimension size ", rhs.dimensions(group),
                   " does not match the ", groups, " group sizes");
  }
  std::vector<int64_t> rhs_dims = rhs.dimensions();
  rhs_dims.erase(rhs_dims.begin() + group);
  auto shift = [group](std::vector<int64_t> v) {
    for (int64_t& d : v) d -= d > group;
    return v;
  };
  DotDimensionNumbers reduced = dot;
  reduced.rhs_contracting_dimensions = shift(dot.rhs_contracting_dimensions);
  reduced.rhs_batch_dimensions = shift(dot.rhs_batch_dimensions);
  return InferDotShape(lhs, Shape(rhs.element_type(), std::move(rhs_dims)), reduced,
                       preferred_type);
}

absl::StatusOr<Shape> InferFftShape(const Shape& in, FftType type,
                                    absl::Span<const int64_t> fft_length) {
  TS_RETURN_IF_ERROR(ExpectArray(in, "the operand of fft"));
  const int64_t fft_rank = static_cast<int64_t>(fft_length.size());
  if (fft_rank < 1 || fft_rank > 3) {
    return Invalid("fft supports 1 to 3 dimensions, got fft_length ", Dims(fft_length));
  }
  if (in.rank() < fft_rank) {
    return Invalid("fft of rank ", fft_rank, " needs an operand of at least that rank, got ",
                   Str(in));
  }
  const int64_t first = in.rank() - fft_rank;
  switch (type) {
    case FftType::kFft:
    case FftType::kIfft:
      if (!IsComplexType(in.element_type())) {
        return Invalid("FFT and IFFT need a complex operand, got ", Str(in));
      }
      return WithElementType(in, in.element_type());
    case FftType::kRfft: {
      if (in.element_type() != F32 && in.element_type() != F64) {
        return Invalid("RFFT needs an f32 or f64 operand, got ", Str(in));
      }
      for (int64_t i = 0; i < fft_rank; ++i) {
        if (in.dimensions(first + i) != fft_length[i]) {
          return Invalid("RFFT fft_length ", Dims(fft_length),
                         " must match the minor dimensions of ", Str(in));
        }
      }
      Shape result = WithElementType(in, in.element_type() == F32 ? C64 : C128);
      if (fft_length[fft_rank - 1] != 0) {
        result.set_dimensions(in.rank() - 1, fft_length[fft_rank - 1] / 2 + 1);
      }
      return result;
    }
    case FftType::kIrfft: {
      if (!IsComplexType(in.element_type())) {
        return Invalid("IRFFT needs a complex operand, got ", Str(in));
      }
      for (int64_t i = 0; i + 1 < fft_rank; ++i) {
        if (in.dimensions(first + i) != fft_length[i]) {
          return Invalid("IRFFT fft_length ", Dims(fft_length),
                         " must match the minor dimensions of ", Str(in));
        }
      }
      const int64_t last = in.dimensions(in.rank() - 1);
      const int64_t length = fft_length[fft_rank - 1];
      if ((last != 0 || length != 0) && last != length / 2 + 1) {
        return Invalid("IRFFT minor dimension of ", Str(in),
                       " must be fft_length/2+1 = ", length / 2 + 1);
      }
      Shape result = WithElementType(in, ComplexComponentType(in.element_type()));
      result.set_dimensions(in.rank() - 1, length);
      return result;
    }
  }
  return Invalid("unknown fft type ", static_cast<int>(type));
}

absl::StatusOr<Shape> InferTriangularSolveShape(const Shape& a, const Shape& b,
                                                const TriangularSolveOptions& options) {
  TS_RETURN_IF_ERROR(ExpectArray(a, "the a operand of triangular-solve"));
  TS_RETURN_IF_ERROR(ExpectArray(b, "the b operand of triangular-solve"));
  if (!IsFloatOrComplex(a.element_type()) || a.element_type() != b.element_type()) {
    return Invalid(
        "triangular-solve needs floating-point or complex operands of one type, "
        "got ",
        Str(a), " and ", Str(b));
  }
  if (a.rank() < 2) return Invalid("triangular-solve a must have rank >= 2, got ", Str(a));
  if (b.rank() != a.rank()) {
    return Invalid("triangular-solve operands ", Str(a), " and ", Str(b), " have different ranks");
  }
  const int64_t n = a.rank();
  if (a.dimensions(n - 2) != a.dimensions(n - 1)) {
    return Invalid("triangular-solve a must be square in its two minor dimensions, got ", Str(a));
  }
  if (a.dimensions(n - 1) != b.dimensions(n - (options.left_side ? 2 : 1))) {
    return Invalid("triangular-solve shared dimension of ", Str(a), " and ", Str(b),
                   " does not match");
  }
  for (int64_t i = 0; i + 2 < n; ++i) {
    if (a.dimensions(i) != b.dimensions(i)) {
      return Invalid("triangular-solve batch dimensions of ", Str(a), " and ", Str(b), " differ");
    }
  }
  const int32_t transpose = static_cast<int32_t>(options.transpose_a);
  if (transpose < 1 || transpose > 3) {
    return Invalid("triangular-solve has an invalid transpose_a option (", transpose, ")");
  }
  return WithElementType(b, b.element_type());
}

absl::StatusOr<Shape> InferCholeskyShape(const Shape& a) {
  TS_RETURN_IF_ERROR(ExpectArray(a, "the operand of cholesky"));
  if (!IsFloatOrComplex(a.element_type())) {
    return Invalid("cholesky needs a floating-point or complex operand, got ", Str(a));
  }
  if (a.rank() < 2) return Invalid("cholesky operand must have rank >= 2, got ", Str(a));
  if (a.dimensions(a.rank() - 2) != a.dimensions(a.rank() - 1)) {
    return Invalid("cholesky operand must be square in its two minor dimensions, got ", Str(a));
  }
  return WithElementType(a, a.element_type());
}

namespace {

// The checks the three batch-norm ops share: a floating-point operand with
// a feature dimension, and rank-1 per-feature inputs of the same type.
absl::StatusOr<Shape> BatchNormFeatureShape(const std::string& op, const Shape& operand,
                                            int64_t feature_index,
                                            absl::Span<const Shape* const> per_feature) {
  TS_RETURN_IF_ERROR(ExpectArray(operand, absl::StrCat("the operand of ", op)));
  if (operand.rank() < 1) return Invalid(op, " operand must have rank >= 1");
  if (feature_index < 0 || feature_index >= operand.rank()) {
    return Invalid(op, " feature_index ", feature_index, " is out of range for ", Str(operand));
  }
  if (!IsFloatingPointType(operand.element_type())) {
    return Invalid(op, " needs a floating-point operand, got ", Str(operand));
  }
  const int64_t features = operand.dimensions(feature_index);
  for (const Shape* s : per_feature) {
    TS_RETURN_IF_ERROR(ExpectArray(*s, absl::StrCat("an input of ", op)));
    if (s->rank() != 1 || s->dimensions(0) != features ||
        !SameElementTypeIgnoringFpPrecision(*s, operand)) {
      return Invalid(op, " per-feature input ", Str(*s), " must be ",
                     TypeName(operand.element_type()), "[", features, "]");
    }
  }
  return Shape(operand.element_type(), {features});
}

}  // namespace

absl::StatusOr<Shape> InferBatchNormTrainingShape(const Shape& operand, const Shape& scale,
                                                  const Shape& offset, int64_t feature_index) {
  TS_ASSIGN_OR_RETURN(Shape feature, BatchNormFeatureShape("batch-norm-training", operand,
                                                           feature_index, {&scale, &offset}));
  return Shape::MakeTuple({WithElementType(operand, operand.element_type()), feature, feature});
}

absl::StatusOr<Shape> InferBatchNormInferenceShape(const Shape& operand, const Shape& scale,
                                                   const Shape& offset, const Shape& mean,
                                                   const Shape& variance, int64_t feature_index) {
  TS_RETURN_IF_ERROR(BatchNormFeatureShape("batch-norm-inference", operand, feature_index,
                                           {&scale, &offset, &mean, &variance})
                         .status());
  return WithElementType(operand, operand.element_type());
}

absl::StatusOr<Shape> InferBatchNormGradShape(const Shape& operand, const Shape& scale,
                                              const Shape& mean, const Shape& variance,
                                              const Shape& output_grad, int64_t feature_index) {
  TS_ASSIGN_OR_RETURN(
      Shape feature,
      BatchNormFeatureShape("batch-norm-grad", operand, feature_index, {&scale, &mean, &variance}));
  TS_RETURN_IF_ERROR(ExpectArray(output_grad, "the output gradient of batch-norm-grad"));
  if (!SameElementTypeIgnoringFpPrecision(output_grad, operand) ||
      output_grad.dimensions() != operand.dimensions()) {
    return Invalid("batch-norm-grad output gradient ", Str(output_grad), " does not match operand ",
                   Str(operand));
  }
  return Shape::MakeTuple({WithElementType(operand, operand.element_type()), feature, feature});
}

namespace shape_inference_internal {

absl::StatusOr<Shape> InferDotFamilyInstruction(const HloInstruction& hlo) {
  const HloAttributes& attrs = hlo.attrs();
  auto operand = [&](int64_t i) -> const Shape& { return hlo.operand(i)->shape(); };
  switch (hlo.opcode()) {
    case HloOpcode::kDot:
      if (!attrs.dot_dimension_numbers.has_value()) {
        return Invalid("dot has no dot dimension numbers");
      }
      TS_RETURN_IF_ERROR(CheckPrecisionConfig(hlo, 2));
      return InferDotShape(operand(0), operand(1), *attrs.dot_dimension_numbers,
                           hlo.shape().element_type());
    case HloOpcode::kScaledDot: {
      if (!attrs.dot_dimension_numbers.has_value()) {
        return Invalid("scaled-dot has no dot dimension numbers");
      }
      for (int64_t i : {0, 2}) {
        TS_RETURN_IF_ERROR(ExpectArray(operand(i + 1), "a scale of scaled-dot"));
        if (operand(i + 1).rank() != operand(i).rank()) {
          return Invalid("scaled-dot scale ", Str(operand(i + 1)), " must have the rank of ",
                         Str(operand(i)));
        }
      }
      return InferDotShape(operand(0), operand(2), *attrs.dot_dimension_numbers,
                           hlo.shape().element_type());
    }
    case HloOpcode::kRaggedDot:
      if (!attrs.ragged_dot_dimension_numbers.has_value()) {
        return Invalid("ragged-dot has no dimension numbers");
      }
      if (!attrs.precision_config.operand_precision.empty() &&
          attrs.precision_config.operand_precision.size() != 2) {
        return Invalid("precision config has ", attrs.precision_config.operand_precision.size(),
                       " entries, expected 2");
      }
      return InferRaggedDotShape(operand(0), operand(1), operand(2),
                                 *attrs.ragged_dot_dimension_numbers, hlo.shape().element_type());
    case HloOpcode::kFft:
      return InferFftShape(operand(0), attrs.fft_type, attrs.fft_length);
    case HloOpcode::kTriangularSolve:
      return InferTriangularSolveShape(
          operand(0), operand(1),
          attrs.triangular_solve_options.value_or(TriangularSolveOptions()));
    case HloOpcode::kCholesky:
      return InferCholeskyShape(operand(0));
    case HloOpcode::kBatchNormTraining:
      return InferBatchNormTrainingShape(operand(0), operand(1), operand(2), attrs.feature_index);
    case HloOpcode::kBatchNormInference:
      return InferBatchNormInferenceShape(operand(0), operand(1), operand(2), operand(3),
                                          operand(4), attrs.feature_index);
    case HloOpcode::kBatchNormGrad:
      return InferBatchNormGradShape(operand(0), operand(1), operand(2), operand(3), operand(4),
                                     attrs.feature_index);
    default:
      return Invalid(OpName(hlo.opcode()), " is not a dot-family op");
  }
}

}  // namespace shape_inference_internal
}  // namespace tessera
