// Dense linear algebra on raw buffers (Cholesky, LU, triangular solves, QR,
// Hermitian eigen, SVD), for the CPU backend's
// thunks of XLA's `cholesky` and `triangular-solve` and of JAX's LAPACK
// custom calls (hlo/analysis/linalg_op.h has the semantics):
//
//   TS_ASSIGN_OR_RETURN(LinalgPlan plan, PlanLinalg(*hlo));        // compile time
//   TS_RETURN_IF_ERROR(RunLinalg(plan, operands, results, pool));
//
// Each matrix of the batch is copied into a dense column-major scratch
// matrix (any layout of the operands and results works, and a result may
// alias its operand), factored or solved there, and copied out; a batch is
// split over the thread pool.  Below order 128 Eigen's LLT and triangular
// solves run; from 128 up, blocked right-looking algorithms whose updates
// are GEMMs (oneDNN's sgemm for f32, RunDot's kernels otherwise) split
// over the pool, and whose diagonal-block solves multiply by the block's
// inverse.  LU from order 16 up is the host LAPACK's getrf where one loads
// (lapack_factorizations.h); otherwise our own blocked factorization,
// because its pivots must be LAPACK's (the first largest |a|, or
// |re| + |im| for complex, where Eigen scores complex by |z|).  Results match the evaluator's
// unblocked algorithms to a relative tolerance (the sums are in another
// order), pivots exactly but for near-ties.  QR (geqrf, orgqr/ungqr) is
// Eigen's (eigen_factorizations.h), built for AVX-512 where the host has it.
// The eigenproblems and the SVD from order 16 up run in the host's LAPACK
// (lapack_factorizations.h, OpenBLAS's where installed), as XLA's do, and
// below that or without one in Eigen; their eigenvectors and singular
// vectors may differ from the evaluator's in sign or phase.
// Eigen's Householder reflectors match LAPACK's (its coefficients are the
// taus' conjugates).
#ifndef TESSERA_BACKENDS_CPU_LINALG_THUNK_H_
#define TESSERA_BACKENDS_CPU_LINALG_THUNK_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/analysis/linalg_op.h"
#include "hlo/ir/shape.h"

namespace tessera {

class HloInstruction;

namespace runtime {
class ThreadPool;
}  // namespace runtime

namespace cpu {

// Element offsets of a batch of arrays: the leading dimensions a batch
// (numbered row-major), the last `trailing` (0 to 2) indexed by (i, j).
class BatchedView {
 public:
  BatchedView() = default;
  BatchedView(const Shape& shape, int trailing);
  int64_t Offset(int64_t batch, int64_t i = 0, int64_t j = 0) const;
  int64_t i_stride() const { return i_stride_; }
  int64_t j_stride() const { return j_stride_; }

 private:
  std::vector<int64_t> batch_dims_, batch_strides_;
  int64_t i_stride_ = 0, j_stride_ = 0;
};

struct LinalgPlan {
  LinalgOp op;
  // Operand views (a; b for a triangular solve), then result views
  // (the factor or solution; pivots and info where the op has them).
  std::vector<BatchedView> operands;
  std::vector<BatchedView> results;
};

// The plan of a linear-algebra op (IsLinalgOp); errors as DescribeLinalgOp.
absl::StatusOr<LinalgPlan> PlanLinalg(const HloInstruction& hlo);

// Runs the plan: `operands` and `results` in the plan's order.  A result
// may be its operand's buffer (same shape and layout); no other overlap.
// `pool` may be null.
absl::Status RunLinalg(const LinalgPlan& plan, absl::Span<const void* const> operands,
                       absl::Span<void* const> results, runtime::ThreadPool* pool);

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_LINALG_THUNK_H_
