// Batched matrix products on raw (dense or strided) buffers through Eigen's
// GEMM, for the CPU backend's `dot` thunks.
//
//   TS_ASSIGN_OR_RETURN(DotShape shape, PlanDot(*dot));   // compile time
//   TS_RETURN_IF_ERROR(RunDot(shape, lhs, rhs, out, &runtime::ThreadPool::Default()));
//
// RunDot computes, for every b in [0, batch),
//   out[b] = op(lhs[b]) x op(rhs[b])          (m x n, contracted over k)
// where lhs[b] is stored row-major as m x k (k x m when lhs_transposed, so
// op = transpose), rhs[b] as k x n (n x k when rhs_transposed), and out[b]
// as m x n (n x m when out_transposed).  In each stored matrix the elements
// of a row are adjacent, rows are a leading dimension apart (lda, ldb, ldc)
// and the b-th matrix is a batch stride after the (b-1)-th (or, for a batch
// of several strided dimensions, at the offset its multi-index gives), all
// in elements; by default both are dense (see DotShape).  Work is split over the batch
// and over panels of the output (16-row/column multiples of its longer
// side) across the pool's threads; each panel is one single-threaded Eigen
// GEMM.  Eigen picks its k-blocking per panel, so float results may differ
// in the last bits between thread counts (as any reordered sum).
//
// PlanDot maps an HLO dot (dimension numbers plus operand and result
// layouts) onto that form, or says Unimplemented and why.
//
// f32 products (and the f32 products 16-bit operands are widened into) run
// oneDNN's sgemm on each panel (onednn_gemm.h), faster than Eigen's here;
// f64 and s32 run Eigen's kernels, compiled for AVX-512
// (eigen_dot_kernels.cc, built with -mavx512f...): on a CPU without
// AVX-512F those use a plain loop (correct, slow).  s8 operands run
// oneDNN's int8 GEMM where the CPU has AVX512-VNNI.  Integer and pred
// operands of other widths (8 to 32 bits) into any such integer, pred, f32
// or f64 result run as exact f32/f64 sums of widened operands or wrapping
// u32 GEMMs (IntegerDot in eigen_dot.cc); s64 and u64 dots (of their own
// type only) in plain loops.
#ifndef TESSERA_BACKENDS_CPU_EIGEN_DOT_H_
#define TESSERA_BACKENDS_CPU_EIGEN_DOT_H_

#include <array>
#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/ir/primitive_type.h"

namespace tessera {

class HloInstruction;
class Shape;

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
  // accumulated in f32; a 16-bit result is rounded once at the end), F8*->F8*
  // and F8*->F32 (likewise), S8->S32
  // (widened to s32, wrapping; quantized matmuls' preferred_element_type),
  // C64->C64 and C128->C128 (four real GEMMs over the split parts).
  PrimitiveType type = F32;
  PrimitiveType output_type = F32;

  // Strides in elements; 0 (the default) means dense, so a DotShape built by
  // hand describes densely packed matrices.  lda is the row stride of lhs[b]
  // as stored (m x k rows of k, or k x m rows of m when lhs_transposed;
  // dense: k, or m), ldb that of rhs[b] (k x n or n x k; dense: n, or k),
  // ldc that of out[b] (m x n or n x m; dense: n, or m).  The batch strides
  // are the distances between consecutive lhs[b], rhs[b], out[b] (dense:
  // m*k, k*n, m*n).  Non-dense strides let a dot read and write arrays
  // whose batch dimensions are not outermost (e.g. [seq, heads, head_dim]
  // attention operands) in place.  The matrices must not overlap within
  // `out` (distinct output elements at distinct addresses).
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t lhs_batch_stride = 0, rhs_batch_stride = 0, out_batch_stride = 0;

  // A batch that is not one strided dimension: when batch_dim_count > 0,
  // the batch is batch_dims[0 .. batch_dim_count), outermost first (row-major
  // multi-index, the product of the sizes must be `batch`), and lhs[b],
  // rhs[b], out[b] start at sum_i index_i(b) * (lhs|rhs|out)_stride of
  // dimension i; those strides are explicit (0 is a stride, not "dense")
  // and lhs_batch_stride, rhs_batch_stride, out_batch_stride are ignored.
  // When batch_dim_count is 0 (the default) the batch is one dimension of
  // extent `batch` with the batch strides above.  PlanDot uses batch_dims
  // only for batches that do not collapse to one stride (e.g. batch
  // dimensions [batch, heads] of a [batch, seq, heads, head_dim] array).
  struct BatchDimension {
    int64_t size = 1;
    int64_t lhs_stride = 0, rhs_stride = 0, out_stride = 0;
  };
  static constexpr int kMaxBatchDimensions = 4;
  int batch_dim_count = 0;
  std::array<BatchDimension, kMaxBatchDimensions> batch_dims = {};

  // The strides in effect (the dense value where a field is 0).
  int64_t effective_lda() const { return lda != 0 ? lda : (lhs_transposed ? m : k); }
  int64_t effective_ldb() const { return ldb != 0 ? ldb : (rhs_transposed ? k : n); }
  int64_t effective_ldc() const { return ldc != 0 ? ldc : (out_transposed ? m : n); }
  int64_t effective_lhs_batch_stride() const {
    return lhs_batch_stride != 0 ? lhs_batch_stride : m * k;
  }
  int64_t effective_rhs_batch_stride() const {
    return rhs_batch_stride != 0 ? rhs_batch_stride : k * n;
  }
  int64_t effective_out_batch_stride() const {
    return out_batch_stride != 0 ? out_batch_stride : m * n;
  }
  // True when every stride in effect is the dense one (with batch_dims:
  // when they are laid out row-major, outermost first, matrix after matrix).
  bool IsDense() const;

  int64_t flops() const { return 2 * batch * m * n * k; }
  // Sizes, transpositions, and the strides that are not dense (with
  // batch_dims: their sizes and all their strides, e.g. " batch_dims=2,4
  // lhs_batch_strides=512,8 rhs_batch_strides=512,8 out_batch_strides=1024,256").
  std::string ToString() const;
};

// OK when RunDot supports `shape` (types, non-negative sizes and strides;
// batch_dim_count in [0, kMaxBatchDimensions] and their sizes' product
// equal to batch).
absl::Status CheckDotShape(const DotShape& shape);

// Converts `count` elements of type `from` at `in` into type `to` at `out`,
// split over `pool` (may be null), where one side is F32 and the other F16,
// BF16 or an F8* type: exact widening, or rounding to nearest even (as
// `convert`).  False, converting nothing, for any other pair.
bool ConvertFloats(PrimitiveType from, const void* in, PrimitiveType to, void* out, int64_t count,
                   runtime::ThreadPool* pool);

// Bytes of scratch RunDot needs for `shape`: nonzero only for F8*/F16/BF16
// (the operands, and a 16-bit result, widened to dense f32 matrices; an
// f32 result is written in place with its strides).
int64_t DotScratchBytes(const DotShape& shape);

// out[b] = op(lhs[b]) x op(rhs[b]) for each b.  `pool` may be null (runs on
// the calling thread).  `scratch`, when not null, must hold
// DotScratchBytes(shape) bytes, 64-byte aligned is best; when null and
// scratch is needed, RunDot allocates it.  `out` must not overlap lhs/rhs.
//
// `epilogue`, when set, is called with disjoint ranges [row_begin,
// row_end) of the result's m rows that together cover all of them, each
// once the product's rows there are final: on the thread that computed
// them, while they are still in its cache, where the product is split by
// rows (single-matrix F32/F64/S32 products with a row-major result and
// m >= n); after the product, split over the pool, where it is split by
// columns; once with [0, m) after the whole product otherwise.
using RowEpilogue = std::function<void(int64_t row_begin, int64_t row_end)>;
absl::Status RunDot(const DotShape& shape, const void* lhs, const void* rhs, void* out,
                    runtime::ThreadPool* pool, void* scratch = nullptr,
                    const RowEpilogue* epilogue = nullptr);

// The DotShape of an HLO `dot`, whose operand and result buffers are laid
// out as their shapes' layouts say (row-major when a shape has none).
// Each array's dimensions fall in four groups: batch, lhs-free, rhs-free
// and contracting (lhs: batch, lhs-free, contracting; rhs: batch,
// contracting, rhs-free; result: batch, lhs-free, rhs-free).  Dimensions of
// size 1 are ignored.  The free and contracting groups must each collapse
// to one (extent, stride) in every array holding it, in one common order of
// its dimensions (the order of decreasing stride in lhs, or in rhs for
// rhs-free): stride(g_i) == stride(g_{i+1}) * size(g_{i+1}); a group of
// extent 1 has any stride.  The batch group need not: its dimensions, in
// the order of decreasing stride in lhs, are merged where adjacent ones
// collapse in all three arrays, and what is left (at most
// kMaxBatchDimensions dimensions, else Unimplemented) becomes batch_dims
// when it is more than one.  So the batch dimensions may sit anywhere
// (outermost, between or inside the matrix dimensions, split by another
// group's dimensions, in different orders in different arrays: strided
// batched GEMMs), while the free and contracting dimensions may not be
// interleaved with another group's dimensions in a way that breaks them
// apart.  Each matrix
// then needs a unit-stride group: lhs (m, k) is row-major when k has stride
// 1, else transposed when m has (lda the other group's stride); likewise
// rhs (k, n) and the result (m, n; out_transposed when only m has stride 1).
// Everything else (tiled or packed layouts, dynamic dimensions, free or
// contracting groups that do not collapse, batches left with more than
// kMaxBatchDimensions dimensions, matrices without a unit-stride dimension, unsupported
// element types, non-dot instructions) is Unimplemented (or
// InvalidArgument for a malformed dot) with the reason.  Empty results and
// empty contractions plan as a dense zero fill (m = element count).
// `result_shape`, when given, replaces the dot's own (same dimensions and
// type, another layout): for a dot inside a fusion, whose value the
// backend may store as the fusion's output needs.
absl::StatusOr<DotShape> PlanDot(const HloInstruction& dot, const Shape* result_shape = nullptr);

namespace eigen_dot_internal {
// Whether the host runs the kernels built for AVX-512 (AVX-512 F, BW, DQ,
// VL, AVX2 and FMA).
bool KernelsSupported();
// For tests: when true, RunDot uses the plain-loop product even on CPUs
// that can run the AVX-512 kernels.
void SetUseReferenceKernelsForTesting(bool use);
// For tests: when true, f32 products use Eigen's kernels instead of
// oneDNN's (onednn_gemm.h).
void SetUseEigenF32KernelsForTesting(bool use);
}  // namespace eigen_dot_internal

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_EIGEN_DOT_H_
