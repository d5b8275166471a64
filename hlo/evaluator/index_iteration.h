// Multi-dimensional index walking for the evaluator: row-major iteration
// over the indices of a shape (or any box of dimension sizes), and the
// row-major linear position of an index.  Every handler that loops over
// output elements uses these instead of hand-written nested loops.
#ifndef TESSERA_HLO_EVALUATOR_INDEX_ITERATION_H_
#define TESSERA_HLO_EVALUATOR_INDEX_ITERATION_H_

#include <cstdint>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace tessera {
namespace evaluator_internal {

// Advances `index` to the next index of the box `dims` in row-major order
// (the last dimension fastest).  Returns false, with `index` back at all
// zeros, after the last index.
inline bool NextIndex(absl::Span<const int64_t> dims, absl::Span<int64_t> index) {
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    if (++index[d] < dims[d]) return true;
    index[d] = 0;
  }
  return false;
}

// Number of indices in the box `dims` (1 for rank 0; 0 if any size is 0).
inline int64_t IndexCount(absl::Span<const int64_t> dims) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  return count;
}

// Row-major linear position of `index` within `dims`.
inline int64_t RowMajorLinearIndex(absl::Span<const int64_t> dims,
                                   absl::Span<const int64_t> index) {
  int64_t linear = 0;
  for (size_t d = 0; d < dims.size(); ++d) linear = linear * dims[d] + index[d];
  return linear;
}

// Calls `fn(absl::Span<const int64_t> index)` for every index of `dims` in
// row-major order; nothing when the box is empty.  If `fn` returns
// absl::Status, the walk stops at the first error and returns it; otherwise
// the walk returns OkStatus.
template <typename Fn>
absl::Status ForEachIndex(absl::Span<const int64_t> dims, Fn&& fn) {
  if (IndexCount(dims) == 0) return absl::OkStatus();
  std::vector<int64_t> index(dims.size(), 0);
  do {
    if constexpr (std::is_same_v<std::invoke_result_t<Fn&, absl::Span<const int64_t>>,
                                 absl::Status>) {
      absl::Status status = fn(absl::Span<const int64_t>(index));
      if (!status.ok()) return status;
    } else {
      fn(absl::Span<const int64_t>(index));
    }
  } while (NextIndex(dims, absl::MakeSpan(index)));
  return absl::OkStatus();
}

// The position of each array element in memory under a layout: for the
// element at row-major position `i`, physical[i] is its offset (in
// elements) in a dense buffer ordered by `minor_to_major`.
std::vector<int64_t> PhysicalPositions(absl::Span<const int64_t> dims,
                                       absl::Span<const int64_t> minor_to_major);

}  // namespace evaluator_internal
}  // namespace tessera

#endif  // TESSERA_HLO_EVALUATOR_INDEX_ITERATION_H_
