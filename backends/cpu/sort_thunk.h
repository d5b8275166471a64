// Sorting on raw buffers, for the CPU backend's `sort` thunks: N operands
// of one shape sorted together along one dimension by a JIT-compiled
// comparator (LoopKernelCompiler::CompileComparator).
//
//   TS_ASSIGN_OR_RETURN(SortPlan plan, PlanSort(*sort));        // compile time
//   TS_RETURN_IF_ERROR(RunSort(plan, less, operands, results, pool));
//
// Each row (every index of the other dimensions) is ordered by the same
// bottom-up merge sort the evaluator uses -- stable, and in bounds even for
// a comparator that is not a strict weak order -- so results match it
// element for element; or, where the comparator is a strict weak order by
// one operand's keys, by a stable sort of those keys' bits, which gives the
// same permutation (sort_keys.h).  Rows are split over the thread pool.
#ifndef TESSERA_BACKENDS_CPU_SORT_THUNK_H_
#define TESSERA_BACKENDS_CPU_SORT_THUNK_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/cpu/sort_keys.h"
#include "hlo/ir/primitive_type.h"

namespace tessera {

class HloInstruction;

namespace runtime {
class ThreadPool;
}  // namespace runtime

namespace cpu {

struct SortPlan {
  int64_t dimension = 0;
  std::vector<int64_t> dims;                  // logical dimensions, shared
  std::vector<PrimitiveType> types;           // per operand
  std::vector<int64_t> element_bytes;         // per operand (PRED: 1)
  std::vector<std::vector<int64_t>> operand_strides;  // elements per dimension
  std::vector<std::vector<int64_t>> result_strides;
  // Where the comparator orders by one operand's keys (MatchSortKey):
  // rows are sorted by them (SortByKey), with no comparator calls.
  std::optional<SortKey> key;
};

// The plan of an HLO `sort` whose buffers lie as their shapes' layouts say.
absl::StatusOr<SortPlan> PlanSort(const HloInstruction& sort);

using SortComparator = uint8_t(const void* const* lhs, const void* const* rhs);

// results[k] = operands[k] with each row permuted into `less` order (by
// plan.key where set: `less` may then be null).  Results must not overlap
// operands.  `pool` may be null.
absl::Status RunSort(const SortPlan& plan, SortComparator* less,
                     absl::Span<const void* const> operands, absl::Span<void* const> results,
                     runtime::ThreadPool* pool);

// topk along the last dimension of a row-major operand of `type` (rows x
// length): the k largest (or smallest) of each row in order, with their
// s32 indices, ties keeping the lower index first; floats ordered totally
// (-NaN < -inf < ... < -0 < +0 < ... < NaN), as the evaluator does.
// Unimplemented for complex and other non-real types.
absl::Status RunTopK(PrimitiveType type, int64_t rows, int64_t length, int64_t k, bool largest,
                     const void* operand, void* values, int32_t* indices,
                     runtime::ThreadPool* pool);

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_SORT_THUNK_H_
