// Shape inference for gather and (variadic) scatter, including the
// explicit batching dimensions (operand_batching_dims and friends).
#include <algorithm>

#include "hlo/analysis/shape_inference.h"
#include "hlo/analysis/shape_inference_internal.h"
#include "hlo/ir/status_macros.h"

namespace tessera {

using namespace shape_inference_internal;  // NOLINT: shared helpers

namespace {

bool Contains(absl::Span<const int64_t> v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// An error unless `values` are strictly increasing and in [0, bound).
absl::Status CheckSortedInRange(absl::Span<const int64_t> values, int64_t bound,
                                const std::string& what) {
  for (int64_t v : values) {
    if (v < 0 || v >= bound) {
      return Invalid(what, " ", Dims(values), " has dimension ", v, " out of range [0, ", bound,
                     ")");
    }
  }
  if (!IsSortedStrictly(values)) {
    return Invalid(what, " ", Dims(values), " must be sorted and must not repeat");
  }
  return absl::OkStatus();
}

absl::Status CheckDisjoint(absl::Span<const int64_t> a, absl::Span<const int64_t> b,
                           const std::string& what) {
  for (int64_t x : a) {
    if (Contains(b, x)) return Invalid(what, " share dimension ", x);
  }
  return absl::OkStatus();
}

// The index operand's dimensions with an implicit trailing 1 when
// index_vector_dim equals its rank.
absl::StatusOr<std::vector<int64_t>> ExpandedIndexDims(const Shape& indices,
                                                       int64_t index_vector_dim,
                                                       const std::string& op) {
  TS_RETURN_IF_ERROR(ExpectArray(indices, absl::StrCat("the indices of ", op)));
  if (!IsIntegralType(indices.element_type())) {
    return Invalid(op, " indices must be integral, got ", Str(indices));
  }
  if (index_vector_dim < 0 || index_vector_dim > indices.rank()) {
    return Invalid(op, " index_vector_dim ", index_vector_dim, " is out of range for ",
                   Str(indices));
  }
  std::vector<int64_t> dims = indices.dimensions();
  if (index_vector_dim == indices.rank()) dims.push_back(1);
  return dims;
}

// Checks the batching dimensions pairing operand dimensions with index
// dimensions (same count, same sizes, not the index vector dimension).
absl::Status CheckBatchingDims(const Shape& operand, absl::Span<const int64_t> operand_dims,
                               const Shape& indices, absl::Span<const int64_t> index_dims,
                               int64_t index_vector_dim, const std::string& op) {
  TS_RETURN_IF_ERROR(
      CheckSortedInRange(operand_dims, operand.rank(), absl::StrCat(op, " operand batching dims")));
  TS_RETURN_IF_ERROR(
      CheckDimensionList(index_dims, indices.rank(), absl::StrCat(op, " indices batching dims")));
  if (Contains(index_dims, index_vector_dim)) {
    return Invalid(op, " indices batching dims ", Dims(index_dims),
                   " must not contain index_vector_dim ", index_vector_dim);
  }
  if (operand_dims.size() != index_dims.size()) {
    return Invalid(op, " has ", operand_dims.size(), " operand batching dims but ",
                   index_dims.size(), " indices batching dims");
  }
  for (size_t i = 0; i < operand_dims.size(); ++i) {
    if (operand.dimensions(operand_dims[i]) != indices.dimensions(index_dims[i])) {
      return Invalid(op, " batching dimension ", operand_dims[i], " of ", Str(operand),
                     " and dimension ", index_dims[i], " of ", Str(indices),
                     " have different sizes");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferGatherShape(const Shape& operand, const Shape& start_indices,
                                       const GatherDimensionNumbers& dnums,
                                       absl::Span<const int64_t> slice_sizes) {
  TS_RETURN_IF_ERROR(ExpectArray(operand, "the operand of gather"));
  TS_ASSIGN_OR_RETURN(std::vector<int64_t> indices,
                      ExpandedIndexDims(start_indices, dnums.index_vector_dim, "gather"));
  const int64_t result_rank = static_cast<int64_t>(dnums.offset_dims.size() + indices.size()) - 1;
  TS_RETURN_IF_ERROR(CheckSortedInRange(dnums.offset_dims, result_rank, "gather offset_dims"));
  if (static_cast<int64_t>(dnums.start_index_map.size()) != indices[dnums.index_vector_dim]) {
    return Invalid("gather start_index_map ", Dims(dnums.start_index_map), " has ",
                   dnums.start_index_map.size(), " entries but the index vector of ",
                   Str(start_indices), " has ", indices[dnums.index_vector_dim]);
  }
  TS_RETURN_IF_ERROR(
      CheckDimensionList(dnums.start_index_map, operand.rank(), "gather start_index_map"));
  TS_RETURN_IF_ERROR(CheckSortedInRange(dnums.collapsed_slice_dims, operand.rank(),
                                        "gather collapsed_slice_dims"));
  TS_RETURN_IF_ERROR(CheckBatchingDims(operand, dnums.operand_batching_dims, start_indices,
                                       dnums.start_indices_batching_dims, dnums.index_vector_dim,
                                       "gather"));
  TS_RETURN_IF_ERROR(CheckDisjoint(dnums.collapsed_slice_dims, dnums.operand_batching_dims,
                                   "gather collapsed_slice_dims and operand_batching_dims"));
  TS_RETURN_IF_ERROR(CheckDisjoint(dnums.start_index_map, dnums.operand_batching_dims,
                                   "gather start_index_map and operand_batching_dims"));
  if (static_cast<int64_t>(slice_sizes.size()) != operand.rank()) {
    return Invalid("gather slice_sizes ", Dims(slice_sizes), " must have one entry per ",
                   "dimension of ", Str(operand));
  }
  if (static_cast<int64_t>(dnums.offset_dims.size() + dnums.collapsed_slice_dims.size() +
                           dnums.operand_batching_dims.size()) != operand.rank()) {
    return Invalid("gather offset_dims ", Dims(dnums.offset_dims), ", collapsed_slice_dims ",
                   Dims(dnums.collapsed_slice_dims), " and operand_batching_dims ",
                   Dims(dnums.operand_batching_dims), " must cover the ", operand.rank(),
                   " dimensions of ", Str(operand));
  }
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (slice_sizes[i] < 0 || slice_sizes[i] > operand.dimensions(i)) {
      return Invalid("gather slice size ", slice_sizes[i], " of dimension ", i,
                     " is out of bounds for ", Str(operand));
    }
    if ((Contains(dnums.collapsed_slice_dims, i) || Contains(dnums.operand_batching_dims, i)) &&
        slice_sizes[i] > 1) {
      return Invalid("gather collapses dimension ", i, " whose slice size ", slice_sizes[i],
                     " is greater than 1");
    }
  }
  std::vector<int64_t> offset_sizes;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (!Contains(dnums.collapsed_slice_dims, i) && !Contains(dnums.operand_batching_dims, i)) {
      offset_sizes.push_back(slice_sizes[i]);
    }
  }
  std::vector<int64_t> batch_sizes;
  for (int64_t i = 0; i < static_cast<int64_t>(indices.size()); ++i) {
    if (i != dnums.index_vector_dim) batch_sizes.push_back(indices[i]);
  }
  std::vector<int64_t> dims;
  size_t next_offset = 0, next_batch = 0;
  for (int64_t i = 0; i < result_rank; ++i) {
    dims.push_back(Contains(dnums.offset_dims, i) ? offset_sizes[next_offset++]
                                                  : batch_sizes[next_batch++]);
  }
  return Shape(operand.element_type(), std::move(dims));
}

absl::StatusOr<Shape> InferScatterShape(absl::Span<const Shape* const> operands,
                                        const ScatterDimensionNumbers& dnums,
                                        const ProgramShape& update_computation) {
  if (operands.size() < 3 || operands.size() % 2 != 1) {
    return Invalid("scatter expects 2N+1 operands (N >= 1), got ", operands.size());
  }
  const size_t n = operands.size() / 2;
  const Shape& indices_shape = *operands[n];
  TS_ASSIGN_OR_RETURN(std::vector<int64_t> indices,
                      ExpandedIndexDims(indices_shape, dnums.index_vector_dim, "scatter"));
  const Shape& operand = *operands[0];
  const Shape& updates = *operands[n + 1];
  for (size_t i = 0; i < n; ++i) {
    TS_RETURN_IF_ERROR(ExpectArray(*operands[i], "a scatter operand"));
    TS_RETURN_IF_ERROR(ExpectArray(*operands[n + 1 + i], "a scatter update"));
    if (operands[i]->dimensions() != operand.dimensions() ||
        operands[n + 1 + i]->dimensions() != updates.dimensions()) {
      return Invalid("scatter operands (or updates) have different dimensions");
    }
  }
  const int64_t update_rank =
      static_cast<int64_t>(indices.size() - 1 + dnums.update_window_dims.size());
  if (updates.rank() != update_rank) {
    return Invalid("scatter updates ", Str(updates), " must have rank ", update_rank);
  }
  TS_RETURN_IF_ERROR(
      CheckSortedInRange(dnums.update_window_dims, updates.rank(), "scatter update_window_dims"));
  TS_RETURN_IF_ERROR(CheckSortedInRange(dnums.inserted_window_dims, operand.rank(),
                                        "scatter inserted_window_dims"));
  TS_RETURN_IF_ERROR(CheckBatchingDims(operand, dnums.input_batching_dims, indices_shape,
                                       dnums.scatter_indices_batching_dims, dnums.index_vector_dim,
                                       "scatter"));
  TS_RETURN_IF_ERROR(CheckDisjoint(dnums.inserted_window_dims, dnums.input_batching_dims,
                                   "scatter inserted_window_dims and input_batching_dims"));
  if (static_cast<int64_t>(dnums.update_window_dims.size() + dnums.inserted_window_dims.size() +
                           dnums.input_batching_dims.size()) != operand.rank()) {
    return Invalid("scatter update_window_dims ", Dims(dnums.update_window_dims),
                   ", inserted_window_dims ", Dims(dnums.inserted_window_dims),
                   " and input_batching_dims ", Dims(dnums.input_batching_dims), " must cover the ",
                   operand.rank(), " dimensions of ", Str(operand));
  }
  if (static_cast<int64_t>(dnums.scatter_dims_to_operand_dims.size()) !=
      indices[dnums.index_vector_dim]) {
    return Invalid("scatter scatter_dims_to_operand_dims ",
                   Dims(dnums.scatter_dims_to_operand_dims), " has ",
                   dnums.scatter_dims_to_operand_dims.size(), " entries but the index vector of ",
                   Str(indices_shape), " has ", indices[dnums.index_vector_dim]);
  }
  TS_RETURN_IF_ERROR(CheckDimensionList(dnums.scatter_dims_to_operand_dims, operand.rank(),
                                        "scatter scatter_dims_to_operand_dims"));
  TS_RETURN_IF_ERROR(CheckDisjoint(dnums.scatter_dims_to_operand_dims, dnums.input_batching_dims,
                                   "scatter scatter_dims_to_operand_dims and input_batching_dims"));
  std::vector<int64_t> window_bounds;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (!Contains(dnums.inserted_window_dims, i) && !Contains(dnums.input_batching_dims, i)) {
      window_bounds.push_back(operand.dimensions(i));
    }
  }
  for (size_t i = 0; i < dnums.update_window_dims.size(); ++i) {
    const int64_t d = dnums.update_window_dims[i];
    if (updates.dimensions(d) > window_bounds[i]) {
      return Invalid("scatter update window dimension ", d, " of ", Str(updates),
                     " exceeds the operand bound ", window_bounds[i]);
    }
  }
  int64_t scatter_dim = 0;
  for (int64_t i = 0; i < updates.rank(); ++i) {
    if (Contains(dnums.update_window_dims, i)) continue;
    if (scatter_dim == dnums.index_vector_dim) ++scatter_dim;
    if (updates.dimensions(i) != indices[scatter_dim]) {
      return Invalid("scatter update dimension ", i, " of ", Str(updates),
                     " does not match dimension ", scatter_dim, " of indices ", Str(indices_shape));
    }
    ++scatter_dim;
  }
  std::vector<Shape> inits;
  std::vector<PrimitiveType> update_types;
  for (size_t i = 0; i < n; ++i) {
    inits.push_back(ScalarShape(operands[i]->element_type()));
    update_types.push_back(operands[n + 1 + i]->element_type());
  }
  std::vector<const Shape*> init_ptrs;
  for (const Shape& s : inits) init_ptrs.push_back(&s);
  TS_RETURN_IF_ERROR(
      VerifyReducerShape(update_computation, init_ptrs, update_types, static_cast<int64_t>(n)));
  if (n == 1) return WithElementType(operand, operand.element_type());
  return InferTupleShape(operands.subspan(0, n));
}

namespace shape_inference_internal {

absl::StatusOr<Shape> InferGatherScatterInstruction(const HloInstruction& hlo) {
  const HloAttributes& attrs = hlo.attrs();
  if (hlo.opcode() == HloOpcode::kGather) {
    if (!attrs.gather_dimension_numbers.has_value()) {
      return Invalid("gather has no dimension numbers");
    }
    return InferGatherShape(hlo.operand(0)->shape(), hlo.operand(1)->shape(),
                            *attrs.gather_dimension_numbers, attrs.gather_slice_sizes);
  }
  if (!attrs.scatter_dimension_numbers.has_value()) {
    return Invalid("scatter has no dimension numbers");
  }
  TS_ASSIGN_OR_RETURN(ProgramShape update, CalledSignature(hlo, 0));
  return InferScatterShape(OperandShapes(hlo), *attrs.scatter_dimension_numbers, update);
}

}  // namespace shape_inference_internal
}  // namespace tessera
