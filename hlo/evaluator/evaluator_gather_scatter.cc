// gather and scatter, following XLA's operation semantics including the
// batching dimensions.
//
// gather: each output index splits into batch dimensions (the ones not in
// offset_dims, which index start_indices) and offset dimensions (positions
// inside the slice).  The start of the slice comes from start_indices
// through start_index_map (and the batch position itself for
// operand_batching_dims) and is clamped so the whole slice fits in the
// operand.
//
// scatter: the same mapping from update indices to operand indices; an
// update window that does not fit in the operand is skipped entirely.
// Updates are applied in row-major order of the scatter dimensions, then
// of the window, each through the update computation
// `to_apply(current..., update...)`.
#include <algorithm>

#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/evaluator/index_iteration.h"
#include "hlo/ir/hlo_opcode.h"

namespace tessera {
namespace evaluator_internal {
namespace {

bool Contains(const std::vector<int64_t>& list, int64_t value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// Reads index vectors out of start/scatter indices.  `batch_index` lists
// the values of the indices' dimensions other than index_vector_dim, in
// order; an index_vector_dim equal to the rank means an implicit trailing
// dimension of size 1.
class IndexReader {
 public:
  IndexReader(const Literal& indices, int64_t index_vector_dim)
      : indices_(indices), index_vector_dim_(index_vector_dim) {
    const std::vector<int64_t>& dims = indices.shape().dimensions();
    implicit_ = index_vector_dim == static_cast<int64_t>(dims.size());
    vector_size_ = implicit_ ? 1 : dims[index_vector_dim];
    for (size_t d = 0; d < dims.size(); ++d) {
      if (static_cast<int64_t>(d) != index_vector_dim) batch_dims_.push_back(dims[d]);
    }
    strides_ = RowMajorStrides(dims);
  }

  // The dimensions the batch index ranges over.
  const std::vector<int64_t>& batch_dims() const { return batch_dims_; }
  int64_t vector_size() const { return vector_size_; }

  // Component `k` of the index vector at `batch_index`.
  int64_t Component(absl::Span<const int64_t> batch_index, int64_t k) const {
    const int64_t linear = Linear(batch_index, k);
    if (indices_.shape().element_type() == U64) return ScalarIndexValue(ScalarOf(indices_, linear));
    return indices_.GetAsInt64(linear);
  }

  // The value of indices dimension `dim` (not index_vector_dim) in
  // `batch_index`.
  int64_t BatchCoordinate(absl::Span<const int64_t> batch_index, int64_t dim) const {
    return batch_index[dim < index_vector_dim_ || implicit_ ? dim : dim - 1];
  }

 private:
  int64_t Linear(absl::Span<const int64_t> batch_index, int64_t k) const {
    int64_t linear = 0;
    size_t b = 0;
    for (size_t d = 0; d < strides_.size(); ++d) {
      const int64_t value =
          static_cast<int64_t>(d) == index_vector_dim_ ? k : batch_index[b++];
      linear += value * strides_[d];
    }
    return linear;
  }

  const Literal& indices_;
  int64_t index_vector_dim_;
  bool implicit_ = false;
  int64_t vector_size_ = 1;
  std::vector<int64_t> batch_dims_;
  std::vector<int64_t> strides_;
};

absl::Status CheckIndices(const Literal& indices, int64_t index_vector_dim) {
  TS_RETURN_IF_ERROR(ExpectArray(indices, "the indices"));
  if (!IsIntegralType(indices.shape().element_type())) {
    return InvalidArgument("indices must be integers");
  }
  if (index_vector_dim < 0 || index_vector_dim > indices.shape().rank()) {
    return InvalidArgument("index_vector_dim is out of range");
  }
  return absl::OkStatus();
}

// Operand start position for a batch index: index-vector components through
// `index_map`, batch coordinates through the batching dimensions.
absl::StatusOr<std::vector<int64_t>> StartPosition(
    const IndexReader& reader, absl::Span<const int64_t> batch_index, int64_t operand_rank,
    const std::vector<int64_t>& index_map, const std::vector<int64_t>& operand_batching_dims,
    const std::vector<int64_t>& indices_batching_dims) {
  std::vector<int64_t> start(operand_rank, 0);
  for (size_t k = 0; k < index_map.size(); ++k) {
    start[index_map[k]] = reader.Component(batch_index, k);
  }
  for (size_t i = 0; i < operand_batching_dims.size(); ++i) {
    start[operand_batching_dims[i]] = reader.BatchCoordinate(batch_index, indices_batching_dims[i]);
  }
  return start;
}

absl::Status CheckDimList(const std::vector<int64_t>& dims, int64_t rank, absl::string_view what) {
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) return InvalidArgument(absl::StrCat(what, " dimension out of range"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> Gather(const HloInstruction& hlo, Operands operands) {
  TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 2));
  TS_RETURN_IF_ERROR(ExpectArrayShape(hlo));
  const Literal& operand = *operands[0];
  const Literal& indices = *operands[1];
  TS_RETURN_IF_ERROR(ExpectArray(operand, "the operand"));
  if (!hlo.attrs().gather_dimension_numbers.has_value()) {
    return InvalidArgument("gather has no dimension numbers");
  }
  const GatherDimensionNumbers& dn = hlo.gather_dimension_numbers();
  TS_RETURN_IF_ERROR(CheckIndices(indices, dn.index_vector_dim));
  const std::vector<int64_t>& slice_sizes = hlo.attrs().gather_slice_sizes;
  const std::vector<int64_t>& in_dims = operand.shape().dimensions();
  const std::vector<int64_t>& out_dims = hlo.shape().dimensions();
  const int64_t rank = in_dims.size();
  IndexReader reader(indices, dn.index_vector_dim);
  TS_RETURN_IF_ERROR(CheckDimList(dn.offset_dims, out_dims.size(), "offset"));
  TS_RETURN_IF_ERROR(CheckDimList(dn.collapsed_slice_dims, rank, "collapsed slice"));
  TS_RETURN_IF_ERROR(CheckDimList(dn.start_index_map, rank, "start index map"));
  TS_RETURN_IF_ERROR(CheckDimList(dn.operand_batching_dims, rank, "operand batching"));
  TS_RETURN_IF_ERROR(
      CheckDimList(dn.start_indices_batching_dims, indices.shape().rank(), "indices batching"));
  // Operand dimensions that keep a window position: neither collapsed nor
  // batching.  They map to offset_dims in order.
  std::vector<int64_t> window_operand_dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(dn.collapsed_slice_dims, d) && !Contains(dn.operand_batching_dims, d)) {
      window_operand_dims.push_back(d);
    }
  }
  std::vector<int64_t> batch_out_dims;
  for (int64_t d = 0; d < static_cast<int64_t>(out_dims.size()); ++d) {
    if (!Contains(dn.offset_dims, d)) batch_out_dims.push_back(d);
  }
  bool ok = static_cast<int64_t>(slice_sizes.size()) == rank &&
            window_operand_dims.size() == dn.offset_dims.size() &&
            static_cast<int64_t>(dn.start_index_map.size()) == reader.vector_size() &&
            batch_out_dims.size() == reader.batch_dims().size() &&
            dn.operand_batching_dims.size() == dn.start_indices_batching_dims.size() &&
            hlo.shape().element_type() == operand.shape().element_type();
  for (int64_t d = 0; ok && d < rank; ++d) ok = slice_sizes[d] >= 0 && slice_sizes[d] <= in_dims[d];
  for (size_t i = 0; ok && i < batch_out_dims.size(); ++i) {
    ok = out_dims[batch_out_dims[i]] == reader.batch_dims()[i];
  }
  for (size_t i = 0; ok && i < dn.offset_dims.size(); ++i) {
    ok = out_dims[dn.offset_dims[i]] == slice_sizes[window_operand_dims[i]];
  }
  for (size_t i = 0; ok && i < dn.start_indices_batching_dims.size(); ++i) {
    ok = dn.start_indices_batching_dims[i] != dn.index_vector_dim;
  }
  if (!ok) return InvalidArgument("gather dimension numbers do not fit the shapes");
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  if (out.element_count() == 0) return out;
  const std::vector<int64_t> in_strides = RowMajorStrides(in_dims);
  std::vector<int64_t> batch_index(batch_out_dims.size());
  int64_t linear = 0;
  TS_RETURN_IF_ERROR(ForEachIndex(out_dims, [&](absl::Span<const int64_t> o) -> absl::Status {
    for (size_t i = 0; i < batch_out_dims.size(); ++i) batch_index[i] = o[batch_out_dims[i]];
    TS_ASSIGN_OR_RETURN(std::vector<int64_t> start,
                        StartPosition(reader, batch_index, rank, dn.start_index_map,
                                      dn.operand_batching_dims, dn.start_indices_batching_dims));
    int64_t from = 0;
    size_t w = 0;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t position = std::clamp<int64_t>(start[d], 0, in_dims[d] - slice_sizes[d]);
      if (w < window_operand_dims.size() && window_operand_dims[w] == d) {
        position += o[dn.offset_dims[w++]];
      }
      from += position * in_strides[d];
    }
    CopyElement(operand, from, &out, linear++);
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<Literal> Scatter(const HloInstruction& hlo, Operands operands) {
  if (operands.size() < 3 || operands.size() % 2 != 1) {
    return InvalidArgument("scatter takes N operands, indices and N updates");
  }
  const size_t n = operands.size() / 2;
  Operands inputs = operands.subspan(0, n);
  const Literal& indices = *operands[n];
  Operands updates = operands.subspan(n + 1);
  if (!hlo.attrs().scatter_dimension_numbers.has_value()) {
    return InvalidArgument("scatter has no dimension numbers");
  }
  const ScatterDimensionNumbers& dn = hlo.scatter_dimension_numbers();
  TS_RETURN_IF_ERROR(CheckIndices(indices, dn.index_vector_dim));
  TS_ASSIGN_OR_RETURN(const HloComputation* combiner, CalledComputation(hlo, 0));
  for (size_t i = 0; i < n; ++i) {
    TS_RETURN_IF_ERROR(ExpectArray(*inputs[i], "an operand"));
    TS_RETURN_IF_ERROR(ExpectArray(*updates[i], "an update"));
    if (inputs[i]->shape().dimensions() != inputs[0]->shape().dimensions() ||
        updates[i]->shape().dimensions() != updates[0]->shape().dimensions() ||
        updates[i]->shape().element_type() != inputs[i]->shape().element_type()) {
      return InvalidArgument("scatter operands (and updates) must agree in shape and type");
    }
  }
  const std::vector<int64_t>& in_dims = inputs[0]->shape().dimensions();
  const std::vector<int64_t>& up_dims = updates[0]->shape().dimensions();
  const int64_t rank = in_dims.size();
  IndexReader reader(indices, dn.index_vector_dim);
  TS_RETURN_IF_ERROR(CheckDimList(dn.update_window_dims, up_dims.size(), "update window"));
  TS_RETURN_IF_ERROR(CheckDimList(dn.inserted_window_dims, rank, "inserted window"));
  TS_RETURN_IF_ERROR(CheckDimList(dn.scatter_dims_to_operand_dims, rank, "scatter to operand"));
  TS_RETURN_IF_ERROR(CheckDimList(dn.input_batching_dims, rank, "input batching"));
  TS_RETURN_IF_ERROR(
      CheckDimList(dn.scatter_indices_batching_dims, indices.shape().rank(), "indices batching"));
  std::vector<int64_t> window_operand_dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(dn.inserted_window_dims, d) && !Contains(dn.input_batching_dims, d)) {
      window_operand_dims.push_back(d);
    }
  }
  std::vector<int64_t> scatter_update_dims, window_update_dims;
  for (int64_t d = 0; d < static_cast<int64_t>(up_dims.size()); ++d) {
    if (Contains(dn.update_window_dims, d)) {
      window_update_dims.push_back(up_dims[d]);
    } else {
      scatter_update_dims.push_back(d);
    }
  }
  bool ok = window_operand_dims.size() == dn.update_window_dims.size() &&
            static_cast<int64_t>(dn.scatter_dims_to_operand_dims.size()) == reader.vector_size() &&
            scatter_update_dims.size() == reader.batch_dims().size() &&
            dn.input_batching_dims.size() == dn.scatter_indices_batching_dims.size();
  for (size_t i = 0; ok && i < scatter_update_dims.size(); ++i) {
    ok = up_dims[scatter_update_dims[i]] == reader.batch_dims()[i];
  }
  // Window size in each operand dimension.
  std::vector<int64_t> window_size(rank, 1);
  for (size_t i = 0; ok && i < window_operand_dims.size(); ++i) {
    window_size[window_operand_dims[i]] = up_dims[dn.update_window_dims[i]];
    ok = up_dims[dn.update_window_dims[i]] <= in_dims[window_operand_dims[i]];
  }
  for (size_t i = 0; ok && i < dn.scatter_indices_batching_dims.size(); ++i) {
    ok = dn.scatter_indices_batching_dims[i] != dn.index_vector_dim;
  }
  if (!ok) return InvalidArgument("scatter dimension numbers do not fit the shapes");
  std::vector<Shape> result_shapes;
  for (size_t i = 0; i < n; ++i) result_shapes.push_back(inputs[i]->shape());
  if (!ShapesCompatible(n == 1 ? result_shapes[0] : Shape::MakeTuple(result_shapes),
                        hlo.shape())) {
    return InvalidArgument("scatter's result must have the operands' shapes");
  }
  std::vector<Literal> results;
  for (size_t i = 0; i < n; ++i) results.push_back(*inputs[i]);
  ComputationRunner runner(*combiner);
  std::vector<Literal> currents, values;
  for (size_t i = 0; i < n; ++i) {
    currents.emplace_back(Shape(inputs[i]->shape().element_type(), {}));
    values.emplace_back(Shape(inputs[i]->shape().element_type(), {}));
  }
  std::vector<const Literal*> args;
  for (const Literal& c : currents) args.push_back(&c);
  for (const Literal& v : values) args.push_back(&v);
  const std::vector<int64_t> in_strides = RowMajorStrides(in_dims);
  const std::vector<int64_t> up_strides = RowMajorStrides(up_dims);
  std::vector<int64_t> scatter_dims;
  for (int64_t d : scatter_update_dims) scatter_dims.push_back(up_dims[d]);
  TS_RETURN_IF_ERROR(ForEachIndex(scatter_dims, [&](absl::Span<const int64_t> s) -> absl::Status {
    TS_ASSIGN_OR_RETURN(std::vector<int64_t> start,
                        StartPosition(reader, s, rank, dn.scatter_dims_to_operand_dims,
                                      dn.input_batching_dims, dn.scatter_indices_batching_dims));
    for (int64_t d = 0; d < rank; ++d) {
      if (start[d] < 0 || start[d] > in_dims[d] - window_size[d]) return absl::OkStatus();
    }
    int64_t update_base = 0;
    for (size_t i = 0; i < scatter_update_dims.size(); ++i) {
      update_base += s[i] * up_strides[scatter_update_dims[i]];
    }
    return ForEachIndex(window_update_dims, [&](absl::Span<const int64_t> w) -> absl::Status {
      int64_t to = 0;
      for (int64_t d = 0; d < rank; ++d) to += start[d] * in_strides[d];
      int64_t from = update_base;
      for (size_t i = 0; i < w.size(); ++i) {
        to += w[i] * in_strides[window_operand_dims[i]];
        from += w[i] * up_strides[dn.update_window_dims[i]];
      }
      for (size_t i = 0; i < n; ++i) {
        CopyElement(results[i], to, &currents[i], 0);
        CopyElement(*updates[i], from, &values[i], 0);
      }
      TS_ASSIGN_OR_RETURN(Literal combined, runner.Run(args));
      std::vector<Literal> parts;
      if (n == 1 && !combined.shape().IsTuple()) {
        parts.push_back(std::move(combined));
      } else if (combined.shape().IsTuple() && combined.tuple_size() == static_cast<int64_t>(n)) {
        parts = combined.DecomposeTuple();
      } else {
        return InvalidArgument("the update computation returns the wrong number of values");
      }
      for (size_t i = 0; i < n; ++i) {
        if (!ShapesCompatible(parts[i].shape(), currents[i].shape())) {
          return InvalidArgument("the update computation returns the wrong type");
        }
        CopyElement(parts[i], 0, &results[i], to);
      }
      return absl::OkStatus();
    });
  }));
  if (n == 1) return std::move(results[0]);
  return Literal::MakeTuple(std::move(results));
}

}  // namespace

absl::StatusOr<Literal> EvaluateGatherOrScatter(const HloInstruction& hlo, Operands operands) {
  if (hlo.opcode() == HloOpcode::kGather) return Gather(hlo, operands);
  return Scatter(hlo, operands);
}

}  // namespace evaluator_internal
}  // namespace tessera
