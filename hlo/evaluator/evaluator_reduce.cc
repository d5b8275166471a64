// Reductions: reduce (variadic), reduce-window (variadic, strides,
// padding, base and window dilation) and select-and-scatter.  The reducer
// computation is applied exactly as written, in a fixed order: each output
// element starts from the init values and folds in the reduced elements in
// row-major order of the reduced (or window) dimensions.  Padding and
// base-dilation holes are skipped, as XLA does.
#include <algorithm>
#include <optional>

#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/evaluator/index_iteration.h"
#include "hlo/ir/hlo_opcode.h"

namespace tessera {
namespace evaluator_internal {
namespace {

// The running accumulators of one output element of a (variadic)
// reduction, folded through the reducer computation.
class Accumulator {
 public:
  Accumulator(const HloComputation& reducer, Operands inits)
      : runner_(reducer), inits_(inits) {
    for (const Literal* init : inits) {
      accumulators_.push_back(*init);
      inputs_.emplace_back(init->shape());
    }
    for (const Literal& a : accumulators_) args_.push_back(&a);
    for (const Literal& x : inputs_) args_.push_back(&x);
  }

  void Reset() {
    for (size_t i = 0; i < inits_.size(); ++i) CopyElement(*inits_[i], 0, &accumulators_[i], 0);
  }

  // Folds element `linear` of each of `arrays` into the accumulators.
  absl::Status Add(Operands arrays, int64_t linear) {
    for (size_t i = 0; i < arrays.size(); ++i) CopyElement(*arrays[i], linear, &inputs_[i], 0);
    TS_ASSIGN_OR_RETURN(Literal result, runner_.Run(args_));
    if (accumulators_.size() == 1 && !result.shape().IsTuple()) {
      return Store(std::move(result), 0);
    }
    if (!result.shape().IsTuple() ||
        result.tuple_size() != static_cast<int64_t>(accumulators_.size())) {
      return InvalidArgument(absl::StrCat("the reducer returns ", result.shape().ToString(),
                                          ", not ", accumulators_.size(), " scalars"));
    }
    std::vector<Literal> parts = result.DecomposeTuple();
    for (size_t i = 0; i < parts.size(); ++i) TS_RETURN_IF_ERROR(Store(std::move(parts[i]), i));
    return absl::OkStatus();
  }

  // Writes accumulator i into element `linear` of `out`.
  void WriteTo(size_t i, Literal* out, int64_t linear) const {
    CopyElement(accumulators_[i], 0, out, linear);
  }

 private:
  absl::Status Store(Literal value, size_t i) {
    if (!ShapesCompatible(value.shape(), accumulators_[i].shape())) {
      return InvalidArgument(absl::StrCat("the reducer returns ", value.shape().ToString(),
                                          " for an accumulator of ",
                                          accumulators_[i].shape().ToString()));
    }
    CopyElement(value, 0, &accumulators_[i], 0);
    return absl::OkStatus();
  }

  ComputationRunner runner_;
  Operands inits_;
  std::vector<Literal> accumulators_;
  std::vector<Literal> inputs_;
  std::vector<const Literal*> args_;
};

// Splits the operands of a variadic reduction into inputs and init values
// and checks them against the result shape; returns the result shape of
// each input (the tuple elements, or the one array).
absl::StatusOr<std::vector<Shape>> CheckVariadic(const HloInstruction& hlo, Operands operands,
                                                 Operands* inputs, Operands* inits) {
  if (operands.empty() || operands.size() % 2 != 0) {
    return InvalidArgument("needs inputs and as many init values");
  }
  const size_t n = operands.size() / 2;
  *inputs = operands.subspan(0, n);
  *inits = operands.subspan(n);
  std::vector<Shape> results;
  if (n == 1 && hlo.shape().IsArray()) {
    results.push_back(hlo.shape());
  } else if (hlo.shape().IsTuple() && hlo.shape().tuple_size() == static_cast<int64_t>(n)) {
    results = hlo.shape().tuple_shapes();
  } else {
    return InvalidArgument(absl::StrCat("the result shape ", hlo.shape().ToString(),
                                        " does not match ", n, " input(s)"));
  }
  for (size_t i = 0; i < n; ++i) {
    const Literal& input = *(*inputs)[i];
    const Literal& init = *(*inits)[i];
    TS_RETURN_IF_ERROR(ExpectArray(input, "an input"));
    if (!init.shape().IsArray() || init.shape().rank() != 0) {
      return InvalidArgument("init values must be scalars");
    }
    if (input.shape().dimensions() != (*inputs)[0]->shape().dimensions()) {
      return InvalidArgument("all inputs must have the same dimensions");
    }
    if (!results[i].IsArray() || init.shape().element_type() != results[i].element_type() ||
        input.shape().element_type() != results[i].element_type()) {
      return InvalidArgument(absl::StrCat("input ", i, " (", ShapeString(input), ") and init (",
                                          ShapeString(init), ") do not match the result ",
                                          results[i].ToString()));
    }
  }
  return results;
}

absl::StatusOr<Literal> PackResults(std::vector<Literal> results) {
  if (results.size() == 1) return std::move(results[0]);
  return Literal::MakeTuple(std::move(results));
}

absl::StatusOr<Literal> Reduce(const HloInstruction& hlo, Operands operands) {
  Operands inputs, inits;
  TS_ASSIGN_OR_RETURN(std::vector<Shape> result_shapes,
                      CheckVariadic(hlo, operands, &inputs, &inits));
  TS_ASSIGN_OR_RETURN(const HloComputation* reducer, CalledComputation(hlo, 0));
  const std::vector<int64_t>& in_dims = inputs[0]->shape().dimensions();
  const int64_t rank = static_cast<int64_t>(in_dims.size());
  std::vector<bool> reduced(rank, false);
  for (int64_t d : hlo.dimensions()) {
    if (d < 0 || d >= rank || reduced[d]) return InvalidArgument("bad reduce dimensions");
    reduced[d] = true;
  }
  std::vector<int64_t> kept_dims, kept, reduced_dims, reduced_list;
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[d]) {
      reduced_list.push_back(d);
      reduced_dims.push_back(in_dims[d]);
    } else {
      kept.push_back(d);
      kept_dims.push_back(in_dims[d]);
    }
  }
  std::vector<Literal> results;
  for (const Shape& shape : result_shapes) {
    if (shape.dimensions() != kept_dims) {
      return InvalidArgument(absl::StrCat("reducing ", ShapeString(*inputs[0]),
                                          " does not give ", shape.ToString()));
    }
    TS_ASSIGN_OR_RETURN(Literal result, MakeLiteral(shape));
    results.push_back(std::move(result));
  }
  const std::vector<int64_t> strides = RowMajorStrides(in_dims);
  Accumulator accumulator(*reducer, inits);
  int64_t out_linear = 0;
  TS_RETURN_IF_ERROR(ForEachIndex(kept_dims, [&](absl::Span<const int64_t> out_index) {
    int64_t base = 0;
    for (size_t i = 0; i < kept.size(); ++i) base += out_index[i] * strides[kept[i]];
    accumulator.Reset();
    TS_RETURN_IF_ERROR(ForEachIndex(reduced_dims, [&](absl::Span<const int64_t> r) {
      int64_t linear = base;
      for (size_t i = 0; i < reduced_list.size(); ++i) linear += r[i] * strides[reduced_list[i]];
      return accumulator.Add(inputs, linear);
    }));
    for (size_t i = 0; i < results.size(); ++i) accumulator.WriteTo(i, &results[i], out_linear);
    ++out_linear;
    return absl::OkStatus();
  }));
  return PackResults(std::move(results));
}

// The input position that window element `k` of output element `out`
// reads in dimension `d`, or nullopt for padding and dilation holes.
std::optional<int64_t> WindowInputPosition(const WindowDimension& w, int64_t out, int64_t k,
                                           int64_t input_size) {
  int64_t position = out * w.stride - w.padding_low + k * w.window_dilation;
  if (w.base_dilation > 1) {
    if (position % w.base_dilation != 0) return std::nullopt;
    position /= w.base_dilation;
  }
  if (position < 0 || position >= input_size) return std::nullopt;
  return position;
}

absl::Status CheckWindow(const HloInstruction& hlo, int64_t rank) {
  if (!hlo.attrs().window.has_value() ||
      static_cast<int64_t>(hlo.window().dimensions.size()) != rank) {
    return InvalidArgument("needs a window with one dimension per input dimension");
  }
  for (const WindowDimension& w : hlo.window().dimensions) {
    if (w.size < 0 || w.stride < 1 || w.window_dilation < 1 || w.base_dilation < 1) {
      return InvalidArgument("window sizes, strides and dilations must be positive");
    }
  }
  return absl::OkStatus();
}

// Calls fn(linear input position) for each element of the window placed
// at `out_index`, in row-major window order, skipping padding and holes.
template <typename Fn>
absl::Status ForEachWindowElement(const Window& window, absl::Span<const int64_t> in_dims,
                                  absl::Span<const int64_t> in_strides,
                                  absl::Span<const int64_t> out_index, Fn&& fn) {
  std::vector<int64_t> sizes;
  for (const WindowDimension& w : window.dimensions) sizes.push_back(w.size);
  return ForEachIndex(sizes, [&](absl::Span<const int64_t> k) -> absl::Status {
    int64_t linear = 0;
    for (size_t d = 0; d < sizes.size(); ++d) {
      std::optional<int64_t> position =
          WindowInputPosition(window.dimensions[d], out_index[d], k[d], in_dims[d]);
      if (!position) return absl::OkStatus();
      linear += *position * in_strides[d];
    }
    return fn(linear);
  });
}

absl::StatusOr<Literal> ReduceWindow(const HloInstruction& hlo, Operands operands) {
  Operands inputs, inits;
  TS_ASSIGN_OR_RETURN(std::vector<Shape> result_shapes,
                      CheckVariadic(hlo, operands, &inputs, &inits));
  TS_ASSIGN_OR_RETURN(const HloComputation* reducer, CalledComputation(hlo, 0));
  const std::vector<int64_t>& in_dims = inputs[0]->shape().dimensions();
  TS_RETURN_IF_ERROR(CheckWindow(hlo, in_dims.size()));
  const Window& window = hlo.window();
  std::vector<int64_t> out_dims;
  for (size_t d = 0; d < in_dims.size(); ++d) {
    const WindowDimension& w = window.dimensions[d];
    const int64_t dilated_base = in_dims[d] == 0 ? 0 : (in_dims[d] - 1) * w.base_dilation + 1;
    const int64_t padded = dilated_base + w.padding_low + w.padding_high;
    const int64_t dilated_window = w.size == 0 ? 0 : (w.size - 1) * w.window_dilation + 1;
    out_dims.push_back(padded < dilated_window ? 0 : (padded - dilated_window) / w.stride + 1);
  }
  std::vector<Literal> results;
  for (const Shape& shape : result_shapes) {
    if (shape.dimensions() != out_dims) {
      return InvalidArgument(absl::StrCat("reduce-window of ", ShapeString(*inputs[0]),
                                          " does not give ", shape.ToString()));
    }
    TS_ASSIGN_OR_RETURN(Literal result, MakeLiteral(shape));
    results.push_back(std::move(result));
  }
  const std::vector<int64_t> strides = RowMajorStrides(in_dims);
  Accumulator accumulator(*reducer, inits);
  int64_t out_linear = 0;
  TS_RETURN_IF_ERROR(ForEachIndex(out_dims, [&](absl::Span<const int64_t> out_index) {
    accumulator.Reset();
    TS_RETURN_IF_ERROR(ForEachWindowElement(window, in_dims, strides, out_index,
                                            [&](int64_t linear) {
                                              return accumulator.Add(inputs, linear);
                                            }));
    for (size_t i = 0; i < results.size(); ++i) accumulator.WriteTo(i, &results[i], out_linear);
    ++out_linear;
    return absl::OkStatus();
  }));
  return PackResults(std::move(results));
}

// select-and-scatter: for each source element, place the window over the
// operand, pick one element with `select` (the first of the window, then
// any later one `select(current, candidate)` rejects the current for), and
// combine the source value into the output there with
// `scatter(source, output)`.  The output starts as the init value.
absl::StatusOr<Literal> SelectAndScatter(const HloInstruction& hlo, Operands operands) {
  TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 3));
  const Literal& operand = *operands[0];
  const Literal& source = *operands[1];
  const Literal& init = *operands[2];
  TS_RETURN_IF_ERROR(ExpectArray(operand, "the operand"));
  TS_RETURN_IF_ERROR(ExpectArray(source, "the source"));
  const PrimitiveType type = operand.shape().element_type();
  if (!hlo.shape().IsArray() || hlo.shape().dimensions() != operand.shape().dimensions() ||
      hlo.shape().element_type() != type || source.shape().element_type() != type ||
      !init.shape().IsArray() || init.shape().rank() != 0 ||
      init.shape().element_type() != type) {
    return InvalidArgument("select-and-scatter's operand, source, init and result must agree");
  }
  TS_ASSIGN_OR_RETURN(const HloComputation* select, CalledComputation(hlo, 0));
  TS_ASSIGN_OR_RETURN(const HloComputation* scatter, CalledComputation(hlo, 1));
  const std::vector<int64_t>& in_dims = operand.shape().dimensions();
  TS_RETURN_IF_ERROR(CheckWindow(hlo, in_dims.size()));
  const Window& window = hlo.window();
  for (size_t d = 0; d < in_dims.size(); ++d) {
    const WindowDimension& w = window.dimensions[d];
    const int64_t padded = in_dims[d] + w.padding_low + w.padding_high;
    const int64_t expected = padded < w.size ? 0 : (padded - w.size) / w.stride + 1;
    if (source.shape().rank() != static_cast<int64_t>(in_dims.size()) ||
        source.shape().dimensions(d) != expected || w.window_dilation != 1 ||
        w.base_dilation != 1) {
      return InvalidArgument(absl::StrCat("the source ", ShapeString(source),
                                          " does not match the windows of ",
                                          ShapeString(operand)));
    }
  }
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  for (int64_t i = 0; i < out.element_count(); ++i) CopyElement(init, 0, &out, i);
  ComputationRunner select_runner(*select);
  ComputationRunner scatter_runner(*scatter);
  Literal current(Shape(type, {}));
  Literal candidate(Shape(type, {}));
  Literal source_value(Shape(type, {}));
  Literal output_value(Shape(type, {}));
  const std::vector<int64_t> strides = RowMajorStrides(in_dims);
  int64_t source_linear = 0;
  TS_RETURN_IF_ERROR(ForEachIndex(source.shape().dimensions(), [&](absl::Span<const int64_t> s) {
    int64_t selected = -1;
    TS_RETURN_IF_ERROR(ForEachWindowElement(
        window, in_dims, strides, s, [&](int64_t linear) -> absl::Status {
          if (selected < 0) {
            selected = linear;
            return absl::OkStatus();
          }
          CopyElement(operand, selected, &current, 0);
          CopyElement(operand, linear, &candidate, 0);
          TS_ASSIGN_OR_RETURN(Literal keep, select_runner.Run({&current, &candidate}));
          if (!keep.shape().IsArray() || keep.shape().element_type() != PRED ||
              keep.element_count() != 1) {
            return InvalidArgument("select must return a pred scalar");
          }
          if (!keep.data<bool>()[0]) selected = linear;
          return absl::OkStatus();
        }));
    if (selected >= 0) {
      CopyElement(source, source_linear, &source_value, 0);
      CopyElement(out, selected, &output_value, 0);
      TS_ASSIGN_OR_RETURN(Literal combined, scatter_runner.Run({&source_value, &output_value}));
      if (!ShapesCompatible(combined.shape(), output_value.shape())) {
        return InvalidArgument("scatter must return a scalar of the operand's type");
      }
      CopyElement(combined, 0, &out, selected);
    }
    ++source_linear;
    return absl::OkStatus();
  }));
  return out;
}

}  // namespace

absl::StatusOr<Literal> EvaluateReduceOp(const HloInstruction& hlo, Operands operands) {
  switch (hlo.opcode()) {
    case HloOpcode::kReduce: return Reduce(hlo, operands);
    case HloOpcode::kReduceWindow: return ReduceWindow(hlo, operands);
    case HloOpcode::kSelectAndScatter: return SelectAndScatter(hlo, operands);
    default:
      return absl::InternalError(
          absl::StrCat("not a reduction: ", HloOpcodeString(hlo.opcode())));
  }
}

}  // namespace evaluator_internal
}  // namespace tessera
