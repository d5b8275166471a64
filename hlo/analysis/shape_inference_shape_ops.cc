// Shape inference for data-movement and shape-manipulating ops: broadcast,
// reshape, transpose, slices, concatenate, pad, reverse, iota, tuples,
// dimension sizes, sort, top-k, and the leaves (parameter, constant).
#include <algorithm>
#include <limits>

#include "hlo/analysis/shape_inference.h"
#include "hlo/analysis/shape_inference_internal.h"
#include "hlo/ir/status_macros.h"

namespace tessera {

using namespace shape_inference_internal;  // NOLINT: shared helpers

absl::StatusOr<Shape> InferBroadcastShape(const Shape& operand, const Shape& output,
                                          absl::Span<const int64_t> dimensions) {
  TS_RETURN_IF_ERROR(ExpectArray(operand, "the operand of broadcast"));
  TS_RETURN_IF_ERROR(ExpectArray(output, "the result of broadcast"));
  if (operand.element_type() != output.element_type()) {
    return Invalid("broadcast changes the element type from ", Str(operand), " to ", Str(output));
  }
  if (static_cast<int64_t>(dimensions.size()) != operand.rank()) {
    return Invalid("broadcast dimensions ", Dims(dimensions), " must have one entry per ",
                   "dimension of operand ", Str(operand));
  }
  TS_RETURN_IF_ERROR(CheckDimensionList(dimensions, output.rank(), "broadcast dimensions"));
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (operand.dimensions(i) != output.dimensions(dimensions[i])) {
      return Invalid("broadcast dimensions ", Dims(dimensions), " map operand dimension ", i,
                     " of ", Str(operand), " to dimension ", dimensions[i], " of ", Str(output),
                     " with a different size");
    }
  }
  return WithElementType(output, output.element_type());
}

absl::StatusOr<Shape> InferReshapeShape(const Shape& operand, const Shape& output) {
  TS_RETURN_IF_ERROR(ExpectArray(operand, "the operand of reshape"));
  TS_RETURN_IF_ERROR(ExpectArray(output, "the result of reshape"));
  if (operand.element_type() != output.element_type()) {
    return Invalid("reshape changes the element type from ", Str(operand), " to ", Str(output));
  }
  const int64_t from = SafeElementCount(operand);
  const int64_t to = SafeElementCount(output);
  if (from != to || from < 0) {
    return Invalid("reshape from ", Str(operand), " (", from, " elements) to ", Str(output), " (",
                   to, " elements) changes the element count");
  }
  return WithElementType(output, output.element_type());
}

absl::StatusOr<Shape> InferTransposeShape(const Shape& operand,
                                          absl::Span<const int64_t> permutation) {
  TS_RETURN_IF_ERROR(ExpectArray(operand, "the operand of transpose"));
  if (!IsPermutation(permutation, operand.rank())) {
    return Invalid("transpose dimensions ", Dims(permutation),
                   " are not a permutation of the dimensions of ", Str(operand));
  }
  Shape result(operand.element_type(), {});
  for (int64_t i = 0; i < operand.rank(); ++i) {
    result.add_dimension(operand.dimensions(permutation[i]));
    if (operand.is_dynamic_dimension(permutation[i])) result.set_dynamic_dimension(i, true);
  }
  return result;
}

absl::StatusOr<Shape> InferSliceShape(const Shape& operand,
                                      absl::Span<const SliceDimension> slice) {
  TS_RETURN_IF_ERROR(ExpectArray(operand, "the operand of slice"));
  if (static_cast<int64_t>(slice.size()) != operand.rank()) {
    return Invalid("slice has ", slice.size(), " dimension(s) but operand ", Str(operand),
                   " has rank ", operand.rank());
  }
  std::vector<int64_t> sizes;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    const SliceDimension& s = slice[i];
    const std::string where = absl::StrCat("slice dimension ", i, " [", s.start, ":", s.limit, ":",
                                           s.stride, "] of ", Str(operand));
    if (s.start < 0) return Invalid(where, ": negative start");
    if (s.limit > operand.dimensions(i)) return Invalid(where, ": limit is out of bounds");
    if (s.start > s.limit) return Invalid(where, ": start is after limit");
    if (s.stride <= 0) return Invalid(where, ": stride must be positive");
    sizes.push_back((s.limit - s.start) / s.stride + ((s.limit - s.start) % s.stride != 0));
  }
  Shape result(operand.element_type(), std::move(sizes));
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (result.dimensions(i) != 1 && operand.is_dynamic_dimension(i)) {
      result.set_dynamic_dimension(i, true);
    }
  }
  return result;
}

namespace {

// The start-index operands of dynamic-slice and dynamic-update-slice: one
// integral scalar per operand dimension (or, the legacy form, one vector).
absl::Status CheckStartIndices(const Shape& operand, absl::Span<const Shape* const> start_indices,
                               const std::string& op) {
  if (start_indices.size() == 1 && start_indices[0]->IsArray() && start_indices[0]->rank() == 1) {
    const Shape& indices = *start_indices[0];
    if (!IsIntegralType(indices.element_type())) {
      return Invalid(op, " start indices must be integral, got ", Str(indices));
    }
    if (indices.dimensions(0) != operand.rank()) {
      return Invalid(op, " start indices ", Str(indices), " do not match the rank of ",
                     Str(operand));
    }
    return absl::OkStatus();
  }
  if (static_cast<int64_t>(start_indices.size()) != operand.rank()) {
    return Invalid(op, " has ", start_indices.size(), " start indices but operand ", Str(operand),
                   " has rank ", operand.rank());
  }
  for (const Shape* index : start_indices) {
    if (!index->IsScalar() || !IsIntegralType(index->element_type())) {
      return Invalid(op, " start indices must be integral scalars, got ", Str(*index));
    }
    if (index->element_type() != start_indices[0]->element_type()) {
      return Invalid(op, " start indices must all have the same type, got ", Str(*start_indices[0]),
                     " and ", Str(*index));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferDynamicSliceShape(const Shape& operand,
                                             absl::Span<const Shape* const> start_indices,
                                             absl::Span<const int64_t> slice_sizes) {
  TS_RETURN_IF_ERROR(ExpectArray(operand, "the operand of dynamic-slice"));
  TS_RETURN_IF_ERROR(CheckStartIndices(operand, start_indices, "dynamic-slice"));
  if (static_cast<int64_t>(slice_sizes.size()) != operand.rank()) {
    return Invalid("dynamic-slice sizes ", Dims(slice_sizes), " do not match the rank of ",
                   Str(operand));
  }
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (slice_sizes[i] < 0 || slice_sizes[i] > operand.dimensions(i)) {
      return Invalid("dynamic-slice size ", slice_sizes[i], " of dimension ", i,
                     " is out of bounds for ", Str(operand));
    }
  }
  return Shape(operand.element_type(),
               std::vector<int64_t>(slice_sizes.begin(), slice_sizes.end()));
}

absl::StatusOr<Shape> InferDynamicUpdateSliceShape(const Shape& operand, const Shape& update,
                                                   absl::Span<const Shape* const> start_indices) {
  TS_RETURN_IF_ERROR(ExpectArray(operand, "the operand of dynamic-update-slice"));
  TS_RETURN_IF_ERROR(ExpectArray(update, "the update of dynamic-update-slice"));
  TS_RETURN_IF_ERROR(CheckStartIndices(operand, start_indices, "dynamic-update-slice"));
  if (update.rank() != operand.rank()) {
    return Invalid("dynamic-update-slice update ", Str(update), " and operand ", Str(operand),
                   " have different ranks");
  }
  if (!SameElementTypeIgnoringFpPrecision(operand, update)) {
    return Invalid("dynamic-update-slice update ", Str(update), " and operand ", Str(operand),
                   " have different element types");
  }
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (update.dimensions(i) < 0 || update.dimensions(i) > operand.dimensions(i)) {
      return Invalid("dynamic-update-slice update ", Str(update), " does not fit in operand ",
                     Str(operand));
    }
  }
  Shape result = WithElementType(operand, operand.element_type());
  for (int64_t i = 0; i < update.rank(); ++i) {
    if (update.is_dynamic_dimension(i) && update.dimensions(i) == operand.dimensions(i)) {
      result.set_dynamic_dimension(i, true);
    }
  }
  return result;
}

absl::StatusOr<Shape> InferConcatenateShape(absl::Span<const Shape* const> operands,
                                            int64_t dimension) {
  if (operands.empty()) return Invalid("concatenate expects at least one operand");
  for (const Shape* shape : operands) {
    TS_RETURN_IF_ERROR(ExpectArray(*shape, "an operand of concatenate"));
  }
  const Shape& first = *operands[0];
  if (dimension < 0 || dimension >= first.rank()) {
    return Invalid("concatenate dimension ", dimension, " is out of range for ", Str(first));
  }
  PrimitiveType type = first.element_type();
  std::vector<int64_t> dims = first.dimensions();
  for (size_t k = 1; k < operands.size(); ++k) {
    const Shape& shape = *operands[k];
    if (shape.rank() != first.rank() || !SameElementTypeIgnoringFpPrecision(shape, first)) {
      return Invalid("cannot concatenate ", Str(first), " and ", Str(shape));
    }
    for (int64_t i = 0; i < first.rank(); ++i) {
      if (i != dimension && shape.dimensions(i) != first.dimensions(i)) {
        return Invalid("cannot concatenate ", Str(first), " and ", Str(shape), " along dimension ",
                       dimension, ": dimension ", i, " differs");
      }
    }
    dims[dimension] += shape.dimensions(dimension);
    type = HigherPrecisionElementType(Shape(type, {}), shape);
  }
  Shape result(type, std::move(dims));
  for (const Shape* shape : operands) {
    for (int64_t i = 0; i < shape->rank(); ++i) {
      if (shape->is_dynamic_dimension(i)) result.set_dynamic_dimension(i, true);
    }
  }
  return result;
}

absl::StatusOr<Shape> InferPadShape(const Shape& operand, const Shape& padding_value,
                                    const PaddingConfig& config) {
  TS_RETURN_IF_ERROR(ExpectArray(operand, "the operand of pad"));
  if (!padding_value.IsScalar()) {
    return Invalid("pad value must be a scalar, got ", Str(padding_value));
  }
  if (!SameElementTypeIgnoringFpPrecision(operand, padding_value)) {
    return Invalid("pad value ", Str(padding_value), " and operand ", Str(operand),
                   " have different element types");
  }
  if (static_cast<int64_t>(config.dimensions.size()) != operand.rank()) {
    return Invalid("padding config has ", config.dimensions.size(), " dimension(s) but operand ",
                   Str(operand), " has rank ", operand.rank());
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    const PaddingDimension& p = config.dimensions[i];
    if (p.interior_padding < 0) {
      return Invalid("pad dimension ", i, " has negative interior padding ", p.interior_padding);
    }
    const int64_t d = operand.dimensions(i);
    const int64_t size = d + p.edge_padding_low + p.edge_padding_high +
                         std::max<int64_t>(d - 1, 0) * p.interior_padding;
    if (size < 0) {
      return Invalid("pad dimension ", i, " of ", Str(operand), " has negative size ", size);
    }
    dims.push_back(size);
  }
  Shape result(HigherPrecisionElementType(operand, padding_value), std::move(dims));
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (operand.is_dynamic_dimension(i)) result.set_dynamic_dimension(i, true);
  }
  return result;
}

absl::StatusOr<Shape> InferReverseShape(const Shape& operand,
                                        absl::Span<const int64_t> dimensions) {
  TS_RETURN_IF_ERROR(ExpectArray(operand, "the operand of reverse"));
  TS_RETURN_IF_ERROR(CheckDimensionList(dimensions, operand.rank(), "reverse dimensions"));
  return WithElementType(operand, operand.element_type());
}

absl::StatusOr<Shape> InferIotaShape(const Shape& output, int64_t iota_dimension) {
  TS_RETURN_IF_ERROR(ExpectArray(output, "the result of iota"));
  if (output.rank() == 0) return Invalid("iota result must not be a scalar");
  if (iota_dimension < 0 || iota_dimension >= output.rank()) {
    return Invalid("iota dimension ", iota_dimension, " is out of range for ", Str(output));
  }
  const PrimitiveType t = output.element_type();
  if (!IsIntegralType(t) && !IsFloatingPointType(t) && !IsComplexType(t)) {
    return Invalid("iota of ", TypeName(t), " is not supported");
  }
  return WithElementType(output, t);
}

absl::StatusOr<Shape> InferGetTupleElementShape(const Shape& operand, int64_t index) {
  if (!operand.IsTuple()) {
    return Invalid("get-tuple-element of non-tuple ", Str(operand));
  }
  if (index < 0 || index >= operand.tuple_size()) {
    return Invalid("tuple index ", index, " is out of range for ", Str(operand));
  }
  return operand.tuple_shapes(index);
}

absl::StatusOr<Shape> InferTupleShape(absl::Span<const Shape* const> elements) {
  std::vector<Shape> shapes;
  for (const Shape* e : elements) shapes.push_back(*e);
  return Shape::MakeTuple(std::move(shapes));
}

absl::StatusOr<Shape> InferGetDimensionSizeShape(const Shape& operand, int64_t dimension) {
  TS_RETURN_IF_ERROR(ExpectArray(operand, "the operand of get-dimension-size"));
  if (dimension < 0 || dimension >= operand.rank()) {
    return Invalid("get-dimension-size dimension ", dimension, " is out of range for ",
                   Str(operand));
  }
  if (operand.dimensions(dimension) > std::numeric_limits<int32_t>::max()) {
    return Invalid("get-dimension-size of a dimension larger than INT32_MAX in ", Str(operand));
  }
  return ScalarShape(S32);
}

absl::StatusOr<Shape> InferSetDimensionSizeShape(const Shape& operand, const Shape& value,
                                                 int64_t dimension) {
  TS_RETURN_IF_ERROR(ExpectArray(operand, "the operand of set-dimension-size"));
  if (dimension < 0 || dimension >= operand.rank()) {
    return Invalid("set-dimension-size dimension ", dimension, " is out of range for ",
                   Str(operand));
  }
  if (!value.IsScalar() || value.element_type() != S32) {
    return Invalid("set-dimension-size value must be s32[], got ", Str(value));
  }
  Shape result = WithElementType(operand, operand.element_type());
  result.set_dynamic_dimension(dimension, true);
  return result;
}

absl::StatusOr<Shape> InferTopKShape(const Shape& operand, int64_t k) {
  TS_RETURN_IF_ERROR(ExpectArray(operand, "the operand of topk"));
  if (operand.rank() < 1) return Invalid("topk needs an operand of rank >= 1");
  const int64_t last = operand.rank() - 1;
  if (k < 0 || k > operand.dimensions(last)) {
    return Invalid("topk k=", k, " is out of range for ", Str(operand));
  }
  std::vector<int64_t> dims = operand.dimensions();
  dims[last] = k;
  return Shape::MakeTuple({Shape(operand.element_type(), dims), Shape(S32, dims)});
}

absl::StatusOr<Shape> InferSortShape(absl::Span<const Shape* const> operands, int64_t dimension,
                                     const ProgramShape& compare) {
  if (operands.empty()) return Invalid("sort expects at least one operand");
  for (const Shape* shape : operands) {
    TS_RETURN_IF_ERROR(ExpectArray(*shape, "an operand of sort"));
    if (shape->dimensions() != operands[0]->dimensions()) {
      return Invalid("sort operands ", Str(*operands[0]), " and ", Str(*shape),
                     " have different dimensions");
    }
  }
  if (dimension < 0 || dimension >= operands[0]->rank()) {
    return Invalid("sort dimension ", dimension, " is out of range for ", Str(*operands[0]));
  }
  if (compare.parameters.size() != 2 * operands.size()) {
    return Invalid("sort comparator takes ", compare.parameters.size(), " parameter(s), expected ",
                   2 * operands.size());
  }
  for (size_t i = 0; i < compare.parameters.size(); ++i) {
    const Shape& param = compare.parameters[i];
    const Shape& operand = *operands[i / 2];
    if (!param.IsScalar() || !SameElementTypeIgnoringFpPrecision(param, operand)) {
      return Invalid("sort comparator parameter ", i, " is ", Str(param), ", expected ",
                     TypeName(operand.element_type()), "[]");
    }
  }
  if (!compare.result.IsScalar() || compare.result.element_type() != PRED) {
    return Invalid("sort comparator must return pred[], returns ", Str(compare.result));
  }
  if (operands.size() == 1) return *operands[0];
  return InferTupleShape(operands);
}

namespace shape_inference_internal {

absl::StatusOr<Shape> InferShapeOpInstruction(const HloInstruction& hlo) {
  const HloAttributes& attrs = hlo.attrs();
  switch (hlo.opcode()) {
    case HloOpcode::kParameter:
      if (attrs.parameter_number < 0) {
        return Invalid("negative parameter number ", attrs.parameter_number);
      }
      return hlo.shape();
    case HloOpcode::kConstant:
      if (!attrs.literal.has_value()) return Invalid("constant has no literal");
      return attrs.literal->shape();
    case HloOpcode::kCopy:
      return hlo.operand(0)->shape();
    case HloOpcode::kBitcast: {
      const Shape& operand = hlo.operand(0)->shape();
      TS_RETURN_IF_ERROR(ExpectArray(operand, "the operand of bitcast"));
      TS_RETURN_IF_ERROR(ExpectArray(hlo.shape(), "the result of bitcast"));
      if (operand.is_static() && hlo.shape().is_static() &&
          operand.ByteSize() != hlo.shape().ByteSize()) {
        return Invalid("bitcast from ", Str(operand), " to ", Str(hlo.shape()),
                       " changes the size in bytes");
      }
      return hlo.shape();
    }
    case HloOpcode::kBroadcast:
      return InferBroadcastShape(hlo.operand(0)->shape(), hlo.shape(), hlo.dimensions());
    case HloOpcode::kReshape:
      return InferReshapeShape(hlo.operand(0)->shape(), hlo.shape());
    case HloOpcode::kDynamicReshape: {
      TS_ASSIGN_OR_RETURN(Shape result, InferReshapeShape(hlo.operand(0)->shape(), hlo.shape()));
      if (hlo.operand_count() != result.rank() + 1) {
        return Invalid("dynamic-reshape to ", Str(result), " needs ", result.rank(),
                       " size operand(s), has ", hlo.operand_count() - 1);
      }
      for (int64_t i = 1; i < hlo.operand_count(); ++i) {
        const Shape& size = hlo.operand(i)->shape();
        if (!size.IsScalar() || size.element_type() != S32) {
          return Invalid("dynamic-reshape sizes must be s32[], got ", Str(size));
        }
      }
      return hlo.shape();
    }
    case HloOpcode::kTranspose:
      return InferTransposeShape(hlo.operand(0)->shape(), hlo.dimensions());
    case HloOpcode::kSlice:
      return InferSliceShape(hlo.operand(0)->shape(), attrs.slice_dimensions);
    case HloOpcode::kDynamicSlice:
      return InferDynamicSliceShape(hlo.operand(0)->shape(), OperandShapes(hlo, 1),
                                    attrs.dynamic_slice_sizes);
    case HloOpcode::kDynamicUpdateSlice:
      return InferDynamicUpdateSliceShape(hlo.operand(0)->shape(), hlo.operand(1)->shape(),
                                          OperandShapes(hlo, 2));
    case HloOpcode::kConcatenate: {
      TS_ASSIGN_OR_RETURN(int64_t dimension, SingleDimension(hlo, "concatenate dimension"));
      return InferConcatenateShape(OperandShapes(hlo), dimension);
    }
    case HloOpcode::kPad:
      if (!attrs.padding_config.has_value()) return Invalid("pad has no padding config");
      return InferPadShape(hlo.operand(0)->shape(), hlo.operand(1)->shape(), *attrs.padding_config);
    case HloOpcode::kReverse:
      return InferReverseShape(hlo.operand(0)->shape(), hlo.dimensions());
    case HloOpcode::kIota: {
      TS_ASSIGN_OR_RETURN(int64_t dimension, SingleDimension(hlo, "iota dimension"));
      return InferIotaShape(hlo.shape(), dimension);
    }
    case HloOpcode::kGetTupleElement:
      return InferGetTupleElementShape(hlo.operand(0)->shape(), attrs.tuple_index);
    case HloOpcode::kTuple:
      return InferTupleShape(OperandShapes(hlo));
    case HloOpcode::kGetDimensionSize: {
      TS_ASSIGN_OR_RETURN(int64_t dimension, SingleDimension(hlo, "get-dimension-size dimension"));
      return InferGetDimensionSizeShape(hlo.operand(0)->shape(), dimension);
    }
    case HloOpcode::kSetDimensionSize: {
      TS_ASSIGN_OR_RETURN(int64_t dimension, SingleDimension(hlo, "set-dimension-size dimension"));
      return InferSetDimensionSizeShape(hlo.operand(0)->shape(), hlo.operand(1)->shape(),
                                        dimension);
    }
    case HloOpcode::kTopK:
      return InferTopKShape(hlo.operand(0)->shape(), attrs.k);
    case HloOpcode::kSort: {
      TS_ASSIGN_OR_RETURN(int64_t dimension, SingleDimension(hlo, "sort dimension"));
      TS_ASSIGN_OR_RETURN(ProgramShape compare, CalledSignature(hlo, 0));
      return InferSortShape(OperandShapes(hlo), dimension, compare);
    }
    default:
      return Invalid(OpName(hlo.opcode()), " is not a shape op");
  }
}

}  // namespace shape_inference_internal
}  // namespace tessera
