// Dense matrix products on raw buffers through Eigen's GEMM, for the CPU
// backend's `dot` thunks.
//
//   TS_ASSIGN_OR_RETURN(DotShape shape, PlanDot(*dot));   // compile time
//   TS_RETURN_IF_ERROR(RunDot(shape, lhs, rhs, out, &runtime::ThreadPool::Default()));
//
// RunDot computes, for every b in [0, batch),
//   out[b] = op(lhs[b]) x op(rhs[b])          (m x n, contracted over k)
// where lhs[b] is stored row-major as m x k (k x m when lhs_transposed, so
// op = transpose), rhs[b] as k x n (n x k when rhs_transposed), and out[b]
// as m x n (n x m when out_transposed).  The b-th matrices follow each other
// densely (strides m*k, k*n, m*n elements).  Work is split over the batch
// and over panels of the output (16-row/column multiples of its longer
// side) across the pool's threads; each panel is one single-threaded Eigen
// GEMM.  Eigen picks its k-blocking per panel, so float results may differ
// in the last bits between thread counts (as any reordered sum).
//
// PlanDot maps an HLO dot (dimension numbers plus operand and result
// layouts) onto that form, or says Unimplemented and why.
//
// Eigen's kernels are compiled for AVX-512 (eigen_dot_kernels.cc, built
// with -mavx512f...): on a CPU without AVX-512F, RunDot uses a plain loop
// (correct, slow).
#ifndef TESSERA_BACKENDS_CPU_EIGEN_DOT_H_
#define TESSERA_BACKENDS_CPU_EIGEN_DOT_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/ir/primitive_type.h"

namespace tessera {

class HloInstruction;

namespace runtime {
class ThreadPool;
}  // namespace runtime

namespace cpu {

struct DotShape {
  int64_t batch = 1;
  int64_t m = 1, n = 1, k = 1;
  bool lhs_transposed = false;  // lhs[b] stored k x m
  bool rhs_transposed = false;  // rhs[b] stored n x k
  bool out_transposed = false;  // out[b] stored n x m (column-major result)
  // Element type of both operands, and of the result.  Supported pairs:
  // F32->F32, F64->F64, S32->S32 (wrapping, like the evaluator), F16->F16,
  // BF16->BF16, F16->F32, BF16->F32 (16-bit operands are widened to f32 and
  // accumulated in f32; a 16-bit result is rounded once at the end).
  PrimitiveType type = F32;
  PrimitiveType output_type = F32;

  int64_t flops() const { return 2 * batch * m * n * k; }
  std::string ToString() const;
};

// OK when RunDot supports `shape` (types, non-negative sizes).
absl::Status CheckDotShape(const DotShape& shape);

// Bytes of scratch RunDot needs for `shape`: nonzero only for F16/BF16
// (the operands, and a 16-bit result, widened to f32).
int64_t DotScratchBytes(const DotShape& shape);

// out[b] = op(lhs[b]) x op(rhs[b]) for each b.  `pool` may be null (runs on
// the calling thread).  `scratch`, when not null, must hold
// DotScratchBytes(shape) bytes, 64-byte aligned is best; when null and
// scratch is needed, RunDot allocates it.  `out` must not overlap lhs/rhs.
absl::Status RunDot(const DotShape& shape, const void* lhs, const void* rhs, void* out,
                    runtime::ThreadPool* pool, void* scratch = nullptr);

// The DotShape of an HLO `dot`, whose operand and result buffers are laid
// out as their shapes' layouts say (row-major when a shape has none).
// Accepted: batch dimensions physically outermost, in one common order in
// lhs, rhs and result; after them, per operand, its free dimensions and its
// contracting dimensions as two contiguous groups (either group first: the
// second order is a transposed operand), the contracting dimensions in the
// same physical order in both operands, each operand's free dimensions in
// the same physical order as in the result, and the result's lhs-free and
// rhs-free groups contiguous (rhs-free first: out_transposed).  Dimensions
// of size 1 are ignored, since they do not change the memory order.
// Everything else (tiled layouts, dynamic dimensions, interleaved groups,
// unsupported element types, non-dot instructions) is Unimplemented (or
// InvalidArgument for a malformed dot) with the reason.
absl::StatusOr<DotShape> PlanDot(const HloInstruction& dot);

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_EIGEN_DOT_H_
