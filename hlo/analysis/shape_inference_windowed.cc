// Shape inference for reductions and windowed ops: reduce, reduce-window,
// select-and-scatter and convolution, plus the reducer-signature check they
// share with scatter and all-reduce.
#include <algorithm>
#include <numeric>

#include "hlo/analysis/shape_inference.h"
#include "hlo/analysis/shape_inference_internal.h"
#include "hlo/ir/status_macros.h"

namespace tessera {

using namespace shape_inference_internal;  // NOLINT: shared helpers

namespace {

// Size of `bound` elements spread `dilation` apart (0 stays 0).
int64_t DilatedBound(int64_t bound, int64_t dilation) {
  return bound == 0 ? 0 : (bound - 1) * dilation + 1;
}

// Number of window positions of size `window` and `stride` inside `bound`.
int64_t StridedBound(int64_t bound, int64_t window, int64_t stride) {
  if (bound == 0 || window > bound) return 0;
  return (bound - window) / stride + 1;
}

std::string WindowDimensionString(int64_t i, const WindowDimension& d) {
  return absl::StrCat("window dimension ", i, " (size=", d.size, " stride=", d.stride,
                      " pad=", d.padding_low, "_", d.padding_high, " lhs_dilate=", d.base_dilation,
                      " rhs_dilate=", d.window_dilation, ")");
}

}  // namespace

absl::Status VerifyReducerShape(const ProgramShape& reducer,
                                absl::Span<const Shape* const> init_values,
                                absl::Span<const PrimitiveType> input_element_types,
                                int64_t inputs) {
  if (static_cast<int64_t>(reducer.parameters.size()) != 2 * inputs) {
    return Invalid("reduction computation must take ", 2 * inputs, " parameters, takes ",
                   reducer.parameters.size());
  }
  const Shape& accumulator = reducer.result;
  std::vector<const Shape*> accumulators;
  if (accumulator.IsArray()) {
    if (inputs != 1) {
      return Invalid("reduction computation must return a tuple of ", inputs, " scalars, returns ",
                     Str(accumulator));
    }
    accumulators.push_back(&accumulator);
  } else if (accumulator.IsTuple()) {
    if (accumulator.tuple_size() != inputs) {
      return Invalid("reduction computation must return a tuple of ", inputs, " scalars, returns ",
                     Str(accumulator));
    }
    for (const Shape& element : accumulator.tuple_shapes()) accumulators.push_back(&element);
  } else {
    return Invalid("reduction computation must return scalars, returns ", Str(accumulator));
  }
  for (const Shape* element : accumulators) {
    if (!element->IsArray() || element->rank() != 0) {
      return Invalid("reduction computation must return scalars, returns ", Str(accumulator));
    }
  }
  for (int64_t i = 0; i < inputs; ++i) {
    const Shape& acc = *accumulators[i];
    if (!ShapesCompatible(acc, reducer.parameters[i])) {
      return Invalid("reduction computation parameter ", i, " is ", Str(reducer.parameters[i]),
                     " but its result is ", Str(acc));
    }
    if (i < static_cast<int64_t>(init_values.size()) &&
        (!init_values[i]->IsScalar() ||
         !SameElementTypeIgnoringFpPrecision(acc, *init_values[i]))) {
      return Invalid("init value ", Str(*init_values[i]), " does not match the accumulator ",
                     Str(acc), " of the reduction computation");
    }
    const Shape& value_param = reducer.parameters[inputs + i];
    if (!value_param.IsScalar() ||
        !SameElementTypeIgnoringFpPrecision(value_param, ScalarShape(input_element_types[i])) ||
        !SameElementTypeIgnoringFpPrecision(value_param, acc)) {
      return Invalid("reduction computation parameter ", inputs + i, " is ", Str(value_param),
                     ", expected ", TypeName(input_element_types[i]), "[]");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferWindowOutputShape(const Shape& base, const Window& window,
                                             PrimitiveType element_type) {
  if (static_cast<int64_t>(window.dimensions.size()) != base.rank()) {
    return Invalid("window has ", window.dimensions.size(), " dimension(s) but ", Str(base),
                   " has rank ", base.rank());
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < base.rank(); ++i) {
    const WindowDimension& d = window.dimensions[i];
    if (d.size <= 0) return Invalid(WindowDimensionString(i, d), ": size must be positive");
    if (d.stride <= 0) return Invalid(WindowDimensionString(i, d), ": stride must be positive");
    if (d.base_dilation < 1 || d.window_dilation < 1) {
      return Invalid(WindowDimensionString(i, d), ": dilation must be positive");
    }
    const int64_t padded =
        d.padding_low + DilatedBound(base.dimensions(i), d.base_dilation) + d.padding_high;
    if (padded < 0) {
      return Invalid(WindowDimensionString(i, d), ": padding leaves a negative size for ",
                     Str(base));
    }
    dims.push_back(StridedBound(padded, DilatedBound(d.size, d.window_dilation), d.stride));
  }
  Shape result(element_type, std::move(dims));
  for (int64_t i = 0; i < base.rank(); ++i) {
    if (base.is_dynamic_dimension(i)) result.set_dynamic_dimension(i, true);
  }
  return result;
}

absl::StatusOr<Shape> InferReduceShape(absl::Span<const Shape* const> operands,
                                       absl::Span<const int64_t> dimensions,
                                       const ProgramShape& reducer) {
  if (operands.empty() || operands.size() % 2 != 0) {
    return Invalid("reduce expects an even, non-zero number of operands, got ", operands.size());
  }
  const int64_t n = static_cast<int64_t>(operands.size() / 2);
  const Shape& arg = *operands[0];
  for (int64_t i = 0; i < n; ++i) {
    TS_RETURN_IF_ERROR(ExpectArray(*operands[i], "a reduced operand"));
    if (operands[i]->dimensions() != arg.dimensions()) {
      return Invalid("reduced operands ", Str(arg), " and ", Str(*operands[i]),
                     " have different dimensions");
    }
  }
  TS_RETURN_IF_ERROR(CheckDimensionList(dimensions, arg.rank(), "reduce dimensions"));
  std::vector<PrimitiveType> types;
  for (int64_t i = 0; i < n; ++i) types.push_back(operands[i]->element_type());
  TS_RETURN_IF_ERROR(VerifyReducerShape(reducer, operands.subspan(n), types, n));
  std::vector<int64_t> kept;
  std::vector<bool> dynamic;
  for (int64_t i = 0; i < arg.rank(); ++i) {
    if (std::find(dimensions.begin(), dimensions.end(), i) == dimensions.end()) {
      kept.push_back(arg.dimensions(i));
      dynamic.push_back(arg.is_dynamic_dimension(i));
    }
  }
  auto make = [&](PrimitiveType type) {
    Shape s(type, kept);
    for (size_t i = 0; i < dynamic.size(); ++i) {
      if (dynamic[i]) s.set_dynamic_dimension(i, true);
    }
    return s;
  };
  if (reducer.result.IsArray()) return make(reducer.result.element_type());
  std::vector<Shape> results;
  for (const Shape& element : reducer.result.tuple_shapes()) {
    results.push_back(make(element.element_type()));
  }
  return Shape::MakeTuple(std::move(results));
}

absl::StatusOr<Shape> InferReduceWindowShape(absl::Span<const Shape* const> operands,
                                             absl::Span<const Shape* const> init_values,
                                             const Window& window, const ProgramShape& reducer) {
  if (operands.empty() || operands.size() != init_values.size()) {
    return Invalid("reduce-window expects as many init values as operands, got ", operands.size(),
                   " and ", init_values.size());
  }
  std::vector<PrimitiveType> types;
  for (const Shape* operand : operands) {
    TS_RETURN_IF_ERROR(ExpectArray(*operand, "an operand of reduce-window"));
    if (operand->dimensions() != operands[0]->dimensions()) {
      return Invalid("reduce-window operands ", Str(*operands[0]), " and ", Str(*operand),
                     " have different dimensions");
    }
    types.push_back(operand->element_type());
  }
  TS_RETURN_IF_ERROR(
      VerifyReducerShape(reducer, init_values, types, static_cast<int64_t>(operands.size())));
  std::vector<Shape> results;
  for (size_t i = 0; i < operands.size(); ++i) {
    TS_ASSIGN_OR_RETURN(
        Shape result, InferWindowOutputShape(*operands[i], window, init_values[i]->element_type()));
    results.push_back(std::move(result));
  }
  if (results.size() == 1 && reducer.result.IsArray()) return results[0];
  return Shape::MakeTuple(std::move(results));
}

absl::StatusOr<Shape> InferSelectAndScatterShape(const Shape& operand, const ProgramShape& select,
                                                 const Window& window, const Shape& source,
                                                 const Shape& init_value,
                                                 const ProgramShape& scatter) {
  TS_RETURN_IF_ERROR(ExpectArray(operand, "the operand of select-and-scatter"));
  TS_RETURN_IF_ERROR(ExpectArray(source, "the source of select-and-scatter"));
  if (select.parameters.size() != 2) {
    return Invalid("select computation must take 2 parameters, takes ", select.parameters.size());
  }
  if (!select.result.IsScalar() || select.result.element_type() != PRED) {
    return Invalid("select computation must return pred[], returns ", Str(select.result));
  }
  const Shape element = ScalarShape(operand.element_type());
  for (int i = 0; i < 2; ++i) {
    const Shape& param = select.parameters[i];
    if (!param.IsScalar() || !SameElementTypeIgnoringFpPrecision(param, element)) {
      return Invalid("select computation parameter ", i, " is ", Str(param), ", expected ",
                     Str(element));
    }
  }
  const Shape* init = &init_value;
  TS_RETURN_IF_ERROR(
      VerifyReducerShape(scatter, absl::MakeSpan(&init, 1), {source.element_type()}, 1));
  TS_ASSIGN_OR_RETURN(Shape windowed,
                      InferWindowOutputShape(operand, window, operand.element_type()));
  if (!SameElementTypeIgnoringFpPrecision(source, windowed) ||
      source.dimensions() != windowed.dimensions()) {
    return Invalid("select-and-scatter source ", Str(source),
                   " does not match the windowed operand ", Str(windowed));
  }
  return WithElementType(operand, operand.element_type());
}

absl::StatusOr<Shape> InferConvolutionShape(const Shape& lhs, const Shape& rhs,
                                            int64_t feature_group_count, int64_t batch_group_count,
                                            const Window& window,
                                            const ConvolutionDimensionNumbers& dnums,
                                            std::optional<PrimitiveType> preferred_type) {
  TS_RETURN_IF_ERROR(ExpectArray(lhs, "the lhs of convolution"));
  TS_RETURN_IF_ERROR(ExpectArray(rhs, "the rhs of convolution"));
  if (feature_group_count <= 0 || batch_group_count <= 0) {
    return Invalid("convolution group counts must be positive, got feature_group_count=",
                   feature_group_count, " batch_group_count=", batch_group_count);
  }
  if (feature_group_count > 1 && batch_group_count > 1) {
    return Invalid("convolution cannot have both feature_group_count and batch_group_count > 1");
  }
  const size_t spatial = dnums.input_spatial_dimensions.size();
  if (dnums.kernel_spatial_dimensions.size() != spatial ||
      dnums.output_spatial_dimensions.size() != spatial) {
    return Invalid(
        "convolution dimension numbers have different numbers of spatial "
        "dimensions for input, kernel and output");
  }
  if (window.dimensions.size() != spatial) {
    return Invalid("convolution window has ", window.dimensions.size(),
                   " dimension(s) but there are ", spatial, " spatial dimension(s)");
  }
  const int64_t rank = static_cast<int64_t>(spatial) + 2;
  if (lhs.rank() != rank || rhs.rank() != rank) {
    return Invalid("convolution operands ", Str(lhs), " and ", Str(rhs), " must have rank ", rank);
  }
  auto check_labels = [&](int64_t a, int64_t b, const std::vector<int64_t>& s,
                          const std::string& what) -> absl::Status {
    std::vector<int64_t> all = {a, b};
    all.insert(all.end(), s.begin(), s.end());
    if (!IsPermutation(all, rank)) {
      return Invalid("convolution ", what, " dimension numbers ", Dims(all),
                     " must name each of the ", rank, " dimensions once");
    }
    return absl::OkStatus();
  };
  TS_RETURN_IF_ERROR(check_labels(dnums.input_batch_dimension, dnums.input_feature_dimension,
                                  dnums.input_spatial_dimensions, "input"));
  TS_RETURN_IF_ERROR(check_labels(dnums.kernel_input_feature_dimension,
                                  dnums.kernel_output_feature_dimension,
                                  dnums.kernel_spatial_dimensions, "kernel"));
  TS_RETURN_IF_ERROR(check_labels(dnums.output_batch_dimension, dnums.output_feature_dimension,
                                  dnums.output_spatial_dimensions, "output"));
  const int64_t input_batch = lhs.dimensions(dnums.input_batch_dimension);
  const int64_t input_features = lhs.dimensions(dnums.input_feature_dimension);
  const int64_t kernel_input_features = rhs.dimensions(dnums.kernel_input_feature_dimension);
  const int64_t kernel_output_features = rhs.dimensions(dnums.kernel_output_feature_dimension);
  const std::string operands = absl::StrCat(" (", Str(lhs), " and ", Str(rhs), ")");
  if (kernel_output_features % batch_group_count != 0) {
    return Invalid("convolution output features ", kernel_output_features,
                   " are not a multiple of batch_group_count ", batch_group_count, operands);
  }
  if (input_features % feature_group_count != 0 ||
      input_features / feature_group_count != kernel_input_features) {
    return Invalid("convolution input features ", input_features, " / feature_group_count ",
                   feature_group_count, " must equal the kernel input features ",
                   kernel_input_features, operands);
  }
  if (kernel_output_features % feature_group_count != 0) {
    return Invalid("convolution output features ", kernel_output_features,
                   " are not a multiple of feature_group_count ", feature_group_count, operands);
  }
  if (input_batch % batch_group_count != 0) {
    return Invalid("convolution input batch ", input_batch,
                   " is not a multiple of batch_group_count ", batch_group_count, operands);
  }
  std::vector<int64_t> input_spatial;
  for (size_t i = 0; i < spatial; ++i) {
    const int64_t kernel_size = rhs.dimensions(dnums.kernel_spatial_dimensions[i]);
    if (window.dimensions[i].size != kernel_size) {
      return Invalid("convolution window size ", window.dimensions[i].size,
                     " of spatial dimension ", i, " does not match the kernel size ", kernel_size,
                     operands);
    }
    input_spatial.push_back(lhs.dimensions(dnums.input_spatial_dimensions[i]));
  }
  TS_ASSIGN_OR_RETURN(
      Shape windowed,
      InferWindowOutputShape(Shape(lhs.element_type(), input_spatial), window, lhs.element_type()));
  std::vector<int64_t> dims(rank);
  dims[dnums.output_batch_dimension] = input_batch / batch_group_count;
  dims[dnums.output_feature_dimension] = kernel_output_features;
  for (size_t i = 0; i < spatial; ++i) {
    dims[dnums.output_spatial_dimensions[i]] = windowed.dimensions(i);
  }
  TS_ASSIGN_OR_RETURN(
      PrimitiveType type,
      ResultElementType("convolution", HigherPrecisionElementType(lhs, rhs), preferred_type));
  return Shape(type, std::move(dims));
}

namespace shape_inference_internal {

absl::StatusOr<Shape> InferWindowedInstruction(const HloInstruction& hlo) {
  const HloAttributes& attrs = hlo.attrs();
  switch (hlo.opcode()) {
    case HloOpcode::kReduce: {
      TS_ASSIGN_OR_RETURN(ProgramShape reducer, CalledSignature(hlo, 0));
      return InferReduceShape(OperandShapes(hlo), hlo.dimensions(), reducer);
    }
    case HloOpcode::kReduceWindow: {
      if (!attrs.window.has_value()) return Invalid("reduce-window has no window");
      TS_ASSIGN_OR_RETURN(ProgramShape reducer, CalledSignature(hlo, 0));
      const int64_t n = hlo.operand_count() / 2;
      return InferReduceWindowShape(OperandShapes(hlo, 0, n), OperandShapes(hlo, n), *attrs.window,
                                    reducer);
    }
    case HloOpcode::kSelectAndScatter: {
      if (!attrs.window.has_value()) return Invalid("select-and-scatter has no window");
      TS_ASSIGN_OR_RETURN(ProgramShape select, CalledSignature(hlo, 0));
      TS_ASSIGN_OR_RETURN(ProgramShape scatter, CalledSignature(hlo, 1));
      return InferSelectAndScatterShape(hlo.operand(0)->shape(), select, *attrs.window,
                                        hlo.operand(1)->shape(), hlo.operand(2)->shape(), scatter);
    }
    case HloOpcode::kConvolution: {
      if (!attrs.window.has_value()) return Invalid("convolution has no window");
      if (!attrs.convolution_dimension_numbers.has_value()) {
        return Invalid("convolution has no dimension numbers (dim_labels)");
      }
      TS_RETURN_IF_ERROR(CheckPrecisionConfig(hlo, 2));
      return InferConvolutionShape(hlo.operand(0)->shape(), hlo.operand(1)->shape(),
                                   attrs.feature_group_count, attrs.batch_group_count,
                                   *attrs.window, *attrs.convolution_dimension_numbers,
                                   hlo.shape().element_type());
    }
    default:
      return Invalid(OpName(hlo.opcode()), " is not a windowed op");
  }
}

}  // namespace shape_inference_internal
}  // namespace tessera
