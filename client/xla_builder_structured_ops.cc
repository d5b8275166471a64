// The builder's dot, convolution, reduction, window, indexing, sorting and
// control-flow ops, and the scalar reducer computations (xla_builder.h).
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/xla_builder.h"
#include "client/xla_builder_internal.h"
#include "hlo/analysis/shape_inference.h"

namespace tessera {

using builder_internal::BuilderOf;
using builder_internal::OperandShape;

// ---------------------------------------------------------------------------
// Dot and convolution
// ---------------------------------------------------------------------------

XlaOp DotGeneral(XlaOp lhs, XlaOp rhs, const DotDimensionNumbers& dimension_numbers,
                 std::optional<PrimitiveType> preferred_type) {
  XlaBuilder* builder = BuilderOf({lhs, rhs});
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Shape> lhs_shape = OperandShape(builder, "DotGeneral", lhs);
  absl::StatusOr<Shape> rhs_shape = OperandShape(builder, "DotGeneral", rhs);
  if (!lhs_shape.ok() || !rhs_shape.ok()) return XlaOp();
  absl::StatusOr<Shape> shape =
      InferDotShape(*lhs_shape, *rhs_shape, dimension_numbers, preferred_type);
  if (!shape.ok()) return builder->ReportError("DotGeneral", shape.status());
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kDot;
  request.shape = *shape;
  request.operands = {lhs, rhs};
  request.set_attributes = [dimension_numbers](HloAttributes& attributes) {
    attributes.dot_dimension_numbers = dimension_numbers;
  };
  return builder->AddOp("DotGeneral", std::move(request));
}

XlaOp Dot(XlaOp lhs, XlaOp rhs, std::optional<PrimitiveType> preferred_type) {
  XlaBuilder* builder = BuilderOf({lhs, rhs});
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Shape> lhs_shape = OperandShape(builder, "Dot", lhs);
  if (!lhs_shape.ok()) return XlaOp();
  if (lhs_shape->rank() < 1 || lhs_shape->rank() > 2) {
    return builder->ReportError(
        "Dot", absl::InvalidArgumentError(absl::StrCat(
                   "takes vectors and matrices; lhs is ", lhs_shape->ToString(),
                   " (use DotGeneral for batched products)")));
  }
  DotDimensionNumbers numbers;
  numbers.lhs_contracting_dimensions = {lhs_shape->rank() - 1};
  numbers.rhs_contracting_dimensions = {0};
  return DotGeneral(lhs, rhs, numbers, preferred_type);
}

ConvolutionDimensionNumbers CreateDefaultConvDimensionNumbers(int64_t spatial) {
  ConvolutionDimensionNumbers numbers;
  numbers.input_batch_dimension = 0;
  numbers.input_feature_dimension = 1;
  numbers.kernel_output_feature_dimension = 0;
  numbers.kernel_input_feature_dimension = 1;
  numbers.output_batch_dimension = 0;
  numbers.output_feature_dimension = 1;
  for (int64_t d = 0; d < spatial; ++d) {
    numbers.input_spatial_dimensions.push_back(2 + d);
    numbers.kernel_spatial_dimensions.push_back(2 + d);
    numbers.output_spatial_dimensions.push_back(2 + d);
  }
  return numbers;
}

namespace {

// XLA's SAME padding: the output has ceil(input / stride) elements; the
// padding that needs is split with the smaller half low.
std::vector<std::pair<int64_t, int64_t>> PaddingFor(Padding padding,
                                                    absl::Span<const int64_t> input,
                                                    absl::Span<const int64_t> window,
                                                    absl::Span<const int64_t> strides) {
  std::vector<std::pair<int64_t, int64_t>> pads(input.size(), {0, 0});
  if (padding == Padding::kValid) return pads;
  for (size_t d = 0; d < input.size(); ++d) {
    const int64_t stride = strides[d] > 0 ? strides[d] : 1;
    const int64_t output = (input[d] + stride - 1) / stride;
    const int64_t total = std::max<int64_t>((output - 1) * stride + window[d] - input[d], 0);
    pads[d] = {total / 2, total - total / 2};
  }
  return pads;
}

absl::StatusOr<Window> MakeWindow(absl::Span<const int64_t> sizes,
                                  absl::Span<const int64_t> strides,
                                  absl::Span<const std::pair<int64_t, int64_t>> padding,
                                  absl::Span<const int64_t> base_dilations,
                                  absl::Span<const int64_t> window_dilations) {
  const size_t n = sizes.size();
  auto check = [n](absl::string_view what, size_t count) -> absl::Status {
    if (count != 0 && count != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          count, " ", what, " for a window of ", n, " dimensions"));
    }
    return absl::OkStatus();
  };
  if (absl::Status s = check("strides", strides.size()); !s.ok()) return s;
  if (absl::Status s = check("paddings", padding.size()); !s.ok()) return s;
  if (absl::Status s = check("base dilations", base_dilations.size()); !s.ok()) return s;
  if (absl::Status s = check("window dilations", window_dilations.size()); !s.ok()) return s;
  Window window;
  for (size_t d = 0; d < n; ++d) {
    WindowDimension dimension;
    dimension.size = sizes[d];
    if (!strides.empty()) dimension.stride = strides[d];
    if (!padding.empty()) {
      dimension.padding_low = padding[d].first;
      dimension.padding_high = padding[d].second;
    }
    if (!base_dilations.empty()) dimension.base_dilation = base_dilations[d];
    if (!window_dilations.empty()) dimension.window_dilation = window_dilations[d];
    window.dimensions.push_back(dimension);
  }
  return window;
}

}  // namespace

XlaOp ConvGeneralDilated(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                         absl::Span<const std::pair<int64_t, int64_t>> padding,
                         absl::Span<const int64_t> lhs_dilation,
                         absl::Span<const int64_t> rhs_dilation,
                         const ConvolutionDimensionNumbers& dimension_numbers,
                         int64_t feature_group_count, int64_t batch_group_count,
                         std::optional<PrimitiveType> preferred_type) {
  XlaBuilder* builder = BuilderOf({lhs, rhs});
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Shape> lhs_shape = OperandShape(builder, "ConvGeneralDilated", lhs);
  absl::StatusOr<Shape> rhs_shape = OperandShape(builder, "ConvGeneralDilated", rhs);
  if (!lhs_shape.ok() || !rhs_shape.ok()) return XlaOp();
  std::vector<int64_t> window_sizes;
  for (int64_t d : dimension_numbers.kernel_spatial_dimensions) {
    if (d < 0 || d >= rhs_shape->rank()) {
      return builder->ReportError(
          "ConvGeneralDilated",
          absl::InvalidArgumentError(absl::StrCat("kernel spatial dimension ", d,
                                                  " is out of range for ", rhs_shape->ToString())));
    }
    window_sizes.push_back(rhs_shape->dimensions(d));
  }
  absl::StatusOr<Window> window =
      MakeWindow(window_sizes, window_strides, padding, lhs_dilation, rhs_dilation);
  if (!window.ok()) return builder->ReportError("ConvGeneralDilated", window.status());
  absl::StatusOr<Shape> shape =
      InferConvolutionShape(*lhs_shape, *rhs_shape, feature_group_count, batch_group_count,
                            *window, dimension_numbers, preferred_type);
  if (!shape.ok()) return builder->ReportError("ConvGeneralDilated", shape.status());
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kConvolution;
  request.shape = *shape;
  request.operands = {lhs, rhs};
  request.set_attributes = [window = *window, dimension_numbers, feature_group_count,
                            batch_group_count](HloAttributes& attributes) {
    attributes.window = window;
    attributes.convolution_dimension_numbers = dimension_numbers;
    attributes.feature_group_count = feature_group_count;
    attributes.batch_group_count = batch_group_count;
  };
  return builder->AddOp("ConvGeneralDilated", std::move(request));
}

XlaOp Conv(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides, Padding padding,
           int64_t feature_group_count) {
  XlaBuilder* builder = BuilderOf({lhs, rhs});
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Shape> lhs_shape = OperandShape(builder, "Conv", lhs);
  absl::StatusOr<Shape> rhs_shape = OperandShape(builder, "Conv", rhs);
  if (!lhs_shape.ok() || !rhs_shape.ok()) return XlaOp();
  const int64_t spatial = lhs_shape->rank() - 2;
  if (spatial < 0 || rhs_shape->rank() != lhs_shape->rank() ||
      static_cast<int64_t>(window_strides.size()) != spatial) {
    return builder->ReportError(
        "Conv", absl::InvalidArgumentError(absl::StrCat(
                    "needs input and kernel of equal rank and one stride per spatial "
                    "dimension; got ", lhs_shape->ToString(), ", ", rhs_shape->ToString(), " and ",
                    window_strides.size(), " strides")));
  }
  std::vector<int64_t> input(lhs_shape->dimensions().begin() + 2, lhs_shape->dimensions().end());
  std::vector<int64_t> window(rhs_shape->dimensions().begin() + 2, rhs_shape->dimensions().end());
  return ConvGeneralDilated(lhs, rhs, window_strides,
                            PaddingFor(padding, input, window, window_strides), {}, {},
                            CreateDefaultConvDimensionNumbers(spatial), feature_group_count);
}

// ---------------------------------------------------------------------------
// Reductions and windows
// ---------------------------------------------------------------------------

XlaOp Reduce(XlaBuilder* builder, absl::Span<const XlaOp> operands,
             absl::Span<const XlaOp> init_values, const XlaComputation& computation,
             absl::Span<const int64_t> dimensions_to_reduce) {
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kReduce;
  request.operands.assign(operands.begin(), operands.end());
  request.operands.insert(request.operands.end(), init_values.begin(), init_values.end());
  request.computations = {&computation};
  std::vector<int64_t> dimensions(dimensions_to_reduce.begin(), dimensions_to_reduce.end());
  request.set_attributes = [dimensions](HloAttributes& attributes) {
    attributes.dimensions = dimensions;
  };
  return builder->AddOp("Reduce", std::move(request));
}

XlaOp Reduce(XlaOp operand, XlaOp init_value, const XlaComputation& computation,
             absl::Span<const int64_t> dimensions_to_reduce) {
  XlaBuilder* builder = BuilderOf({operand, init_value});
  if (builder == nullptr) return XlaOp();
  return Reduce(builder, {operand}, {init_value}, computation, dimensions_to_reduce);
}

XlaOp ReduceAll(XlaOp operand, XlaOp init_value, const XlaComputation& computation) {
  XlaBuilder* builder = BuilderOf({operand, init_value});
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Shape> shape = OperandShape(builder, "ReduceAll", operand);
  if (!shape.ok()) return XlaOp();
  std::vector<int64_t> all;
  for (int64_t d = 0; d < shape->rank(); ++d) all.push_back(d);
  return Reduce(operand, init_value, computation, all);
}

XlaOp ReduceWindowWithGeneralPadding(XlaOp operand, XlaOp init_value,
                                     const XlaComputation& computation,
                                     absl::Span<const int64_t> window_dimensions,
                                     absl::Span<const int64_t> window_strides,
                                     absl::Span<const int64_t> base_dilations,
                                     absl::Span<const int64_t> window_dilations,
                                     absl::Span<const std::pair<int64_t, int64_t>> padding) {
  XlaBuilder* builder = BuilderOf({operand, init_value});
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Window> window =
      MakeWindow(window_dimensions, window_strides, padding, base_dilations, window_dilations);
  if (!window.ok()) return builder->ReportError("ReduceWindow", window.status());
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kReduceWindow;
  request.operands = {operand, init_value};
  request.computations = {&computation};
  request.set_attributes = [window = *window](HloAttributes& attributes) {
    attributes.window = window;
  };
  return builder->AddOp("ReduceWindow", std::move(request));
}

XlaOp ReduceWindow(XlaOp operand, XlaOp init_value, const XlaComputation& computation,
                   absl::Span<const int64_t> window_dimensions,
                   absl::Span<const int64_t> window_strides, Padding padding) {
  XlaBuilder* builder = BuilderOf({operand, init_value});
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Shape> shape = OperandShape(builder, "ReduceWindow", operand);
  if (!shape.ok()) return XlaOp();
  if (window_dimensions.size() != static_cast<size_t>(shape->rank()) ||
      window_strides.size() != window_dimensions.size()) {
    return builder->ReportError(
        "ReduceWindow", absl::InvalidArgumentError(absl::StrCat(
                            "needs one window size and one stride per dimension of ",
                            shape->ToString(), "; got ", window_dimensions.size(), " and ",
                            window_strides.size())));
  }
  return ReduceWindowWithGeneralPadding(
      operand, init_value, computation, window_dimensions, window_strides, {}, {},
      PaddingFor(padding, shape->dimensions(), window_dimensions, window_strides));
}

XlaOp SelectAndScatterWithGeneralPadding(XlaOp operand, const XlaComputation& select,
                                         absl::Span<const int64_t> window_dimensions,
                                         absl::Span<const int64_t> window_strides,
                                         absl::Span<const std::pair<int64_t, int64_t>> padding,
                                         XlaOp source, XlaOp init_value,
                                         const XlaComputation& scatter) {
  XlaBuilder* builder = BuilderOf({operand, source, init_value});
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Window> window = MakeWindow(window_dimensions, window_strides, padding, {}, {});
  if (!window.ok()) return builder->ReportError("SelectAndScatter", window.status());
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kSelectAndScatter;
  request.operands = {operand, source, init_value};
  request.computations = {&select, &scatter};
  request.set_attributes = [window = *window](HloAttributes& attributes) {
    attributes.window = window;
  };
  return builder->AddOp("SelectAndScatter", std::move(request));
}

XlaOp SelectAndScatter(XlaOp operand, const XlaComputation& select,
                       absl::Span<const int64_t> window_dimensions,
                       absl::Span<const int64_t> window_strides, Padding padding, XlaOp source,
                       XlaOp init_value, const XlaComputation& scatter) {
  XlaBuilder* builder = BuilderOf({operand, source, init_value});
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Shape> shape = OperandShape(builder, "SelectAndScatter", operand);
  if (!shape.ok()) return XlaOp();
  if (window_dimensions.size() != static_cast<size_t>(shape->rank()) ||
      window_strides.size() != window_dimensions.size()) {
    return builder->ReportError(
        "SelectAndScatter", absl::InvalidArgumentError(absl::StrCat(
                                "needs one window size and one stride per dimension of ",
                                shape->ToString(), "; got ", window_dimensions.size(), " and ",
                                window_strides.size())));
  }
  return SelectAndScatterWithGeneralPadding(
      operand, select, window_dimensions, window_strides,
      PaddingFor(padding, shape->dimensions(), window_dimensions, window_strides), source,
      init_value, scatter);
}

// ---------------------------------------------------------------------------
// Indexing and sorting
// ---------------------------------------------------------------------------

XlaOp Gather(XlaOp input, XlaOp start_indices, const GatherDimensionNumbers& dimension_numbers,
             absl::Span<const int64_t> slice_sizes, bool indices_are_sorted) {
  XlaBuilder* builder = BuilderOf({input, start_indices});
  if (builder == nullptr) return XlaOp();
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kGather;
  request.operands = {input, start_indices};
  std::vector<int64_t> sizes(slice_sizes.begin(), slice_sizes.end());
  request.set_attributes = [dimension_numbers, sizes,
                            indices_are_sorted](HloAttributes& attributes) {
    attributes.gather_dimension_numbers = dimension_numbers;
    attributes.gather_slice_sizes = sizes;
    attributes.indices_are_sorted = indices_are_sorted;
  };
  return builder->AddOp("Gather", std::move(request));
}

XlaOp Scatter(XlaOp input, XlaOp scatter_indices, XlaOp updates,
              const XlaComputation& update_computation,
              const ScatterDimensionNumbers& dimension_numbers, bool indices_are_sorted,
              bool unique_indices) {
  XlaBuilder* builder = BuilderOf({input, scatter_indices, updates});
  if (builder == nullptr) return XlaOp();
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kScatter;
  request.operands = {input, scatter_indices, updates};
  request.computations = {&update_computation};
  request.set_attributes = [dimension_numbers, indices_are_sorted,
                            unique_indices](HloAttributes& attributes) {
    attributes.scatter_dimension_numbers = dimension_numbers;
    attributes.indices_are_sorted = indices_are_sorted;
    attributes.unique_indices = unique_indices;
  };
  return builder->AddOp("Scatter", std::move(request));
}

XlaOp Sort(absl::Span<const XlaOp> operands, const XlaComputation& comparator,
           int64_t dimension, bool is_stable) {
  XlaBuilder* builder = nullptr;
  for (const XlaOp& op : operands) {
    if (builder == nullptr) builder = op.builder();
  }
  if (builder == nullptr) return XlaOp();
  if (dimension < 0) {
    absl::StatusOr<Shape> shape = OperandShape(builder, "Sort", operands[0]);
    if (!shape.ok()) return XlaOp();
    dimension += shape->rank();
  }
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kSort;
  request.operands.assign(operands.begin(), operands.end());
  request.computations = {&comparator};
  request.set_attributes = [dimension, is_stable](HloAttributes& attributes) {
    attributes.dimensions = {dimension};
    attributes.is_stable = is_stable;
  };
  return builder->AddOp("Sort", std::move(request));
}

XlaOp TopK(XlaOp operand, int64_t k, bool largest) {
  if (operand.builder() == nullptr) return XlaOp();
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kTopK;
  request.operands = {operand};
  request.set_attributes = [k, largest](HloAttributes& attributes) {
    attributes.k = k;
    attributes.largest = largest;
  };
  return operand.builder()->AddOp("TopK", std::move(request));
}

XlaOp ReducePrecision(XlaOp operand, int exponent_bits, int mantissa_bits) {
  if (operand.builder() == nullptr) return XlaOp();
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kReducePrecision;
  request.operands = {operand};
  request.set_attributes = [exponent_bits, mantissa_bits](HloAttributes& attributes) {
    attributes.exponent_bits = exponent_bits;
    attributes.mantissa_bits = mantissa_bits;
  };
  return operand.builder()->AddOp("ReducePrecision", std::move(request));
}

XlaOp OptimizationBarrier(XlaOp operand) {
  if (operand.builder() == nullptr) return XlaOp();
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kOptimizationBarrier;
  request.operands = {operand};
  return operand.builder()->AddOp("OptimizationBarrier", std::move(request));
}

// ---------------------------------------------------------------------------
// Tuples and control flow
// ---------------------------------------------------------------------------

XlaOp Tuple(XlaBuilder* builder, absl::Span<const XlaOp> elements) {
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kTuple;
  request.operands.assign(elements.begin(), elements.end());
  return builder->AddOp("Tuple", std::move(request));
}

XlaOp GetTupleElement(XlaOp tuple, int64_t index) {
  if (tuple.builder() == nullptr) return XlaOp();
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kGetTupleElement;
  request.operands = {tuple};
  request.set_attributes = [index](HloAttributes& attributes) { attributes.tuple_index = index; };
  return tuple.builder()->AddOp("GetTupleElement", std::move(request));
}

XlaOp While(const XlaComputation& condition, const XlaComputation& body, XlaOp init) {
  if (init.builder() == nullptr) return XlaOp();
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kWhile;
  request.operands = {init};
  request.computations = {&condition, &body};
  return init.builder()->AddOp("While", std::move(request));
}

XlaOp Conditional(XlaOp branch_index, absl::Span<const XlaComputation* const> branches,
                  absl::Span<const XlaOp> branch_operands) {
  if (branch_index.builder() == nullptr) return XlaOp();
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kConditional;
  request.operands = {branch_index};
  request.operands.insert(request.operands.end(), branch_operands.begin(), branch_operands.end());
  request.computations.assign(branches.begin(), branches.end());
  return branch_index.builder()->AddOp("Conditional", std::move(request));
}

XlaOp Conditional(XlaOp predicate, XlaOp true_operand, const XlaComputation& on_true,
                  XlaOp false_operand, const XlaComputation& on_false) {
  const XlaComputation* branches[] = {&on_true, &on_false};
  return Conditional(predicate, branches, {true_operand, false_operand});
}

XlaOp Call(XlaBuilder* builder, const XlaComputation& computation,
           absl::Span<const XlaOp> operands) {
  XlaBuilder::OpRequest request;
  request.opcode = HloOpcode::kCall;
  request.operands.assign(operands.begin(), operands.end());
  request.computations = {&computation};
  return builder->AddOp("Call", std::move(request));
}

// ---------------------------------------------------------------------------
// Scalar reducers
// ---------------------------------------------------------------------------

namespace {

XlaComputation ScalarBinaryComputation(absl::string_view name, PrimitiveType type,
                                       XlaBuilder* parent,
                                       XlaOp (*op)(XlaOp, XlaOp, absl::Span<const int64_t>)) {
  std::unique_ptr<XlaBuilder> builder = parent->CreateSubBuilder(name);
  const Shape scalar = Shape::MakeArray(type, {});
  op(Parameter(builder.get(), 0, scalar, "x"), Parameter(builder.get(), 1, scalar, "y"), {});
  absl::StatusOr<XlaComputation> computation = builder->Build();
  if (!computation.ok()) {
    parent->ReportError(absl::StrCat("Create scalar ", name, " computation"),
                        computation.status());
    return XlaComputation();
  }
  return *std::move(computation);
}

}  // namespace

XlaComputation CreateScalarAddComputation(PrimitiveType type, XlaBuilder* builder) {
  return ScalarBinaryComputation("add", type, builder, &Add);
}
XlaComputation CreateScalarMaxComputation(PrimitiveType type, XlaBuilder* builder) {
  return ScalarBinaryComputation("max", type, builder, &Max);
}
XlaComputation CreateScalarMinComputation(PrimitiveType type, XlaBuilder* builder) {
  return ScalarBinaryComputation("min", type, builder, &Min);
}
XlaComputation CreateScalarMultiplyComputation(PrimitiveType type, XlaBuilder* builder) {
  return ScalarBinaryComputation("mul", type, builder, &Mul);
}

}  // namespace tessera
