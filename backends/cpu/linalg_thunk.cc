// Dense linear algebra through Eigen and the GEMM kernels; see linalg_thunk.h.
#include "backends/cpu/linalg_thunk.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <limits>
#include <type_traits>

#include "Eigen/Cholesky"
#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "backends/cpu/eigen_dot.h"
#include "backends/cpu/eigen_factorizations.h"
#include "backends/cpu/lapack_factorizations.h"
#include "backends/cpu/lapack_library.h"
#include "backends/cpu/onednn_gemm.h"
#include "backends/cpu/transpose_tile.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/status_macros.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {
namespace {

// Below this many scalar multiply-adds in the whole batch one thread runs it.
constexpr int64_t kParallelLinalgWork = 1 << 16;
// Matrices of at least this order factor and solve in blocks of kBlock
// whose updates are GEMMs (oneDNN's sgemm for f32, RunDot's kernels
// otherwise, split over the pool): Eigen's own LLT and triangular solves,
// built here for the baseline ISA, reach a tenth of their speed.  Smaller
// ones run Eigen's directly.
constexpr Eigen::Index kBlockedOrder = 128;
constexpr Eigen::Index kBlock = 64;
// Columns of an update's product per task.
constexpr Eigen::Index kPanelColumns = 128;
// Eigenproblems and SVDs of at least this order run in the host's LAPACK
// (lapack_factorizations.h) where it loads, and so do LUs of at least
// kLapackLuOrder and triangular solves of kBlockedOrder; smaller ones run
// Eigen's solvers or our LU, which have no per-call workspace queries and
// allocations to amortize (an LU at 16 took 1.3x OpenBLAS's time, at 48
// about the same: op_sweep's slogdet batches).
constexpr int64_t kLapackOrder = 16;
constexpr int64_t kLapackLuOrder = 32;

template <typename T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;

// The LAPACK routines to run `op`'s matrices with, or null for our own.
const lapack::Routines* LapackFor(const LinalgOp& op) {
  const int64_t order = std::max(op.rows, op.cols);
  if (order < (op.kind == LinalgKind::kLu ? kLapackLuOrder : kLapackOrder)) return nullptr;
  if (!factorizations_lapack::Fits(op.rows, op.cols)) return nullptr;
  return lapack::Load();
}
template <typename T>
using MatrixRef = Eigen::Ref<Matrix<T>, 0, Eigen::OuterStride<>>;
template <typename T>
using ConstMatrixRef = Eigen::Ref<const Matrix<T>, 0, Eigen::OuterStride<>>;

// Calls fn(begin, end) over chunks of [0, count) split over `pool` (null:
// all on this thread).
void ForChunks(runtime::ThreadPool* pool, int64_t count,
               const std::function<void(int64_t, int64_t)>& fn) {
  if (pool == nullptr || pool->parallelism() < 2 || count < 2) {
    fn(0, count);
  } else {
    pool->ParallelFor(count, pool->BlockSizeFor(count), fn);
  }
}

// out = a b through RunDot on `pool` (null: this thread): its GEMM kernels
// (oneDNN's for f32, AVX-512 Eigen ones for f64 and the complex parts),
// where this file is built for the baseline ISA and Eigen's products here
// run several times slower.  Column-major m x k is row-major k x m: every
// operand is "transposed".
template <typename T>
void Multiply(MatrixRef<T> out, ConstMatrixRef<T> a, ConstMatrixRef<T> b,
              runtime::ThreadPool* pool) {
  DotShape shape;
  shape.type = shape.output_type = PrimitiveTypeOf<T>();
  shape.m = out.rows();
  shape.n = out.cols();
  shape.k = a.cols();
  shape.lhs_transposed = shape.rhs_transposed = shape.out_transposed = true;
  shape.lda = a.outerStride();
  shape.ldb = b.outerStride();
  shape.ldc = out.outerStride();
  if (!RunDot(shape, a.data(), b.data(), out.data(), pool).ok()) {
    out.noalias() = a * b;  // not expected: RunDot takes every T here
  }
}

// c -= a b for one column panel of c, in place: oneDNN's sgemm accumulating
// for f32 (column-major c = a b is row-major c^T = b^T a^T), else a
// product (Multiply) subtracted from c.
template <typename T>
void SubtractPanel(MatrixRef<T> c, ConstMatrixRef<T> a, ConstMatrixRef<T> b) {
  if constexpr (std::is_same_v<T, float>) {
    if (OneDnnGemmBlockF32(b.data(), a.data(), c.data(), a.cols(), false, false, b.outerStride(),
                           a.outerStride(), c.outerStride(), 0, c.cols(), 0, c.rows(), -1.0f,
                           1.0f)) {
      return;
    }
  }
  Matrix<T> product(c.rows(), c.cols());
  Multiply<T>(product, a, b, nullptr);
  c -= product;
}

// c -= a b on column-major blocks, in place, in panels of kPanelColumns
// columns split over `pool`.  With `lower_part` (c square), only c's lower
// triangle (the diagonal included) changes.
template <typename T>
void SubtractProduct(MatrixRef<T> c, ConstMatrixRef<T> a, ConstMatrixRef<T> b,
                     runtime::ThreadPool* pool, bool lower_part = false) {
  const Eigen::Index rows = c.rows(), cols = c.cols(), depth = a.cols();
  if (rows == 0 || cols == 0 || depth == 0) return;
  if (rows * cols * depth < kBlock * kBlock * kBlock) {
    if (lower_part) {
      c.template triangularView<Eigen::Lower>() -= a * b;
    } else {
      c.noalias() -= a * b;
    }
    return;
  }
  const int64_t panels = (cols + kPanelColumns - 1) / kPanelColumns;
  ForChunks(pool, panels, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const Eigen::Index c0 = p * kPanelColumns, width = std::min(kPanelColumns, cols - c0);
      Eigen::Index r0 = 0;
      if (lower_part) {
        // The panel's diagonal block on and below its diagonal only; then
        // the rows below it.
        Matrix<T> product(width, width);
        Multiply<T>(product, a.middleRows(c0, width), b.middleCols(c0, width), nullptr);
        c.block(c0, c0, width, width).template triangularView<Eigen::Lower>() -= product;
        r0 = c0 + width;
      }
      SubtractPanel<T>(c.block(r0, c0, rows - r0, width), a.middleRows(r0, rows - r0),
                       b.middleCols(c0, width));
    }
  });
}

// x = t^-1 x (`left`) or x t^-1, t a diagonal block of at most kBlock
// (Mode: Lower, UnitLower or Upper), as a product with t's inverse through
// RunDot on `pool`: Eigen's triangular solve, built here for the baseline
// ISA, ran at a tenth of the GEMM's speed and was the largest cost of a
// blocked factorization.  The error then grows with the condition of the
// kBlock-sized block, not of the whole matrix.
template <int Mode, typename T, typename Block>
void MultiplyByInverse(const Block& t, MatrixRef<T> x, bool left, runtime::ThreadPool* pool) {
  if (x.rows() == 0 || x.cols() == 0) return;
  if (x.size() < kBlock * kBlock) {
    if (left) {
      t.template triangularView<Mode>().solveInPlace(x);
    } else {
      t.template triangularView<Mode>().template solveInPlace<Eigen::OnTheRight>(x);
    }
    return;
  }
  Matrix<T> inverse = Matrix<T>::Identity(t.rows(), t.cols());
  t.template triangularView<Mode>().solveInPlace(inverse);
  const Matrix<T> copy = x;
  if (left) {
    Multiply<T>(x, inverse, copy, pool);
  } else {
    Multiply<T>(x, copy, inverse, pool);
  }
}

// LAPACK's pivot score (i?amax): |x|, or |re| + |im| for complex.
template <typename T>
auto PivotScore(T x) {
  if constexpr (Eigen::NumTraits<T>::IsComplex) {
    return std::abs(x.real()) + std::abs(x.imag());
  } else {
    return std::abs(x);
  }
}

// P A = L U in place, partial pivoting as LAPACK's getrf: panels of
// kBlock columns factored one column at a time (whole rows swapped), then
// U12 = L11^-1 A12 and A22 -= L21 U12.  Returns info.
template <typename T>
int32_t BlockedLu(Matrix<T>& a, int32_t* pivots, runtime::ThreadPool* pool) {
  const Eigen::Index rows = a.rows(), cols = a.cols(), steps = std::min(rows, cols);
  int32_t info = 0;
  for (Eigen::Index k0 = 0; k0 < steps; k0 += kBlock) {
    const Eigen::Index panel_end = std::min(steps, k0 + kBlock);
    for (Eigen::Index k = k0; k < panel_end; ++k) {
      Eigen::Index pivot = k;
      for (Eigen::Index i = k + 1; i < rows; ++i) {
        if (PivotScore(a(i, k)) > PivotScore(a(pivot, k))) pivot = i;
      }
      pivots[k] = static_cast<int32_t>(pivot + 1);
      if (a(pivot, k) != T(0)) {
        if (pivot != k) a.row(k).swap(a.row(pivot));
        a.col(k).tail(rows - k - 1) /= a(k, k);
      } else if (info == 0) {
        info = static_cast<int32_t>(k + 1);
      }
      a.block(k + 1, k + 1, rows - k - 1, panel_end - k - 1).noalias() -=
          a.col(k).tail(rows - k - 1) * a.row(k).segment(k + 1, panel_end - k - 1);
    }
    const Eigen::Index rest = cols - panel_end;
    if (rest == 0) continue;
    const Eigen::Index width = panel_end - k0;
    auto a12 = a.block(k0, panel_end, width, rest);
    MultiplyByInverse<Eigen::UnitLower, T>(a.block(k0, k0, width, width), a12, /*left=*/true, pool);
    SubtractProduct<T>(a.block(panel_end, panel_end, rows - panel_end, rest),
                       a.block(panel_end, k0, rows - panel_end, width), a12, pool);
  }
  return info;
}

// A = L L^H in place on the lower triangle, right-looking in blocks:
// L11 by Eigen's LLT, L21 = A21 L11^-H, A22 -= L21 L21^H (on and below the
// diagonal: the upper triangle keeps its values).  Returns LAPACK's info.
template <typename T>
int32_t BlockedCholesky(Matrix<T>& a, runtime::ThreadPool* pool) {
  const Eigen::Index n = a.rows();
  for (Eigen::Index k0 = 0; k0 < n; k0 += kBlock) {
    const Eigen::Index width = std::min(kBlock, n - k0), rest = n - k0 - width;
    auto a11 = a.block(k0, k0, width, width);
    const Eigen::Index failed = Eigen::internal::llt_inplace<T, Eigen::Lower>::blocked(a11);
    if (failed >= 0) return static_cast<int32_t>(k0 + failed + 1);
    if (rest == 0) break;
    auto a21 = a.block(k0 + width, k0, rest, width);
    const Matrix<T> a11_adjoint = a11.adjoint();
    MultiplyByInverse<Eigen::Upper, T>(a11_adjoint, a21, /*left=*/false, pool);
    const Matrix<T> a21_adjoint = a21.adjoint();
    SubtractProduct<T>(a.block(k0 + width, k0 + width, rest, rest), a21, a21_adjoint, pool,
                       /*lower_part=*/true);
  }
  return 0;
}

// A = L L^H (or U^H U) in place, reading and writing one triangle.
// Returns LAPACK's info; a NaN pivot fails, as in LAPACK and the evaluator.
template <typename T>
int32_t Cholesky(Matrix<T>& a, bool lower, runtime::ThreadPool* pool) {
  int32_t info = 0;
  if (a.rows() < kBlockedOrder) {
    const Eigen::Index failed = lower ? Eigen::internal::llt_inplace<T, Eigen::Lower>::blocked(a)
                                      : Eigen::internal::llt_inplace<T, Eigen::Upper>::blocked(a);
    info = failed >= 0 ? static_cast<int32_t>(failed + 1) : 0;
  } else if (lower) {
    info = BlockedCholesky(a, pool);
  } else {
    // U^H U of A's upper triangle is L L^H of A^H's lower one.
    Matrix<T> adjoint = a.adjoint();
    info = BlockedCholesky(adjoint, pool);
    a = adjoint.adjoint();
  }
  if (info != 0) return info;
  for (Eigen::Index j = 0; j < a.rows(); ++j) {
    if (std::isnan(std::real(a(j, j)))) return static_cast<int32_t>(j + 1);
  }
  return 0;
}

template <int Mode, typename OpA, typename B>
void SolveWithMode(const OpA& op_a, bool left_side, B& b) {
  if (left_side) {
    op_a.template triangularView<Mode>().solveInPlace(b);
  } else {
    op_a.template triangularView<Mode>().template solveInPlace<Eigen::OnTheRight>(b);
  }
}

template <typename OpA, typename B>
void Solve(const OpA& op_a, bool lower, bool unit, bool left_side, B& b) {
  if (lower) {
    unit ? SolveWithMode<Eigen::UnitLower>(op_a, left_side, b)
         : SolveWithMode<Eigen::Lower>(op_a, left_side, b);
  } else {
    unit ? SolveWithMode<Eigen::UnitUpper>(op_a, left_side, b)
         : SolveWithMode<Eigen::Upper>(op_a, left_side, b);
  }
}

// M X = B in place of b, M triangular (its other triangle unread), in
// blocks of kBlock rows: a diagonal block's solve by Eigen, then the rows
// still to solve less its product through SubtractProduct.
template <typename T>
void BlockedTriangularSolve(const Matrix<T>& m, bool lower, Matrix<T>& b,
                            runtime::ThreadPool* pool) {
  const Eigen::Index n = m.rows();
  const Eigen::Index blocks = (n + kBlock - 1) / kBlock;
  for (Eigen::Index step = 0; step < blocks; ++step) {
    const Eigen::Index block = lower ? step : blocks - 1 - step;
    const Eigen::Index i0 = block * kBlock, width = std::min(kBlock, n - i0);
    auto x = b.middleRows(i0, width);
    if (lower) {
      MultiplyByInverse<Eigen::Lower, T>(m.block(i0, i0, width, width), x, /*left=*/true, pool);
    } else {
      MultiplyByInverse<Eigen::Upper, T>(m.block(i0, i0, width, width), x, /*left=*/true, pool);
    }
    if (lower) {
      SubtractProduct<T>(b.bottomRows(n - i0 - width),
                         m.block(i0 + width, i0, n - i0 - width, width), x, pool);
    } else {
      SubtractProduct<T>(b.topRows(i0), m.block(0, i0, i0, width), x, pool);
    }
  }
}

// A large triangular solve as M X' = B': M = op(A) on the left, op(A)^T on
// the right (X op(A) = B is op(A)^T X^T = B^T), copied dense with only its
// triangle (ones on the diagonal for a unit one).
template <typename T>
void LargeTriangularSolve(const LinalgOp& op, const Matrix<T>& a, Matrix<T>& b,
                          runtime::ThreadPool* pool) {
  const Eigen::Index n = a.rows();
  auto op_a = [&](Eigen::Index i, Eigen::Index j) -> T {
    switch (op.transpose) {
      case LinalgTranspose::kNone:
        return a(i, j);
      case LinalgTranspose::kTranspose:
        return a(j, i);
      case LinalgTranspose::kAdjoint:
        return Eigen::numext::conj(a(j, i));
    }
    return T(0);
  };
  const bool op_lower = op.lower != (op.transpose != LinalgTranspose::kNone);
  const bool lower = op.left_side ? op_lower : !op_lower;
  Matrix<T> m = Matrix<T>::Zero(n, n);
  for (Eigen::Index j = 0; j < n; ++j) {
    for (Eigen::Index i = lower ? j : 0; i < (lower ? n : j + 1); ++i) {
      m(i, j) = op.left_side ? op_a(i, j) : op_a(j, i);
    }
    if (op.unit_diagonal) m(j, j) = T(1);
  }
  if (op.left_side) {
    BlockedTriangularSolve(m, lower, b, pool);
    return;
  }
  Matrix<T> transposed = b.transpose();
  BlockedTriangularSolve(m, lower, transposed, pool);
  b = transposed.transpose();
}

// Square tiles of the copies between a strided layout and the scratch
// matrix: a row-major operand is read a tile at a time, each cache line
// once.
constexpr Eigen::Index kCopyTile = 16;

template <typename T>
using StridedMap = Eigen::Map<Matrix<T>, 0, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;

// Assigns `from` to `to` (same sizes), column by column where the source
// and destination columns are contiguous, else tile by tile.
template <typename To, typename From>
void CopyTiled(To&& to, const From& from, bool columns_contiguous) {
  if (columns_contiguous) {
    to = from;
    return;
  }
  for (Eigen::Index j0 = 0; j0 < to.cols(); j0 += kCopyTile) {
    const Eigen::Index width = std::min(kCopyTile, to.cols() - j0);
    for (Eigen::Index i0 = 0; i0 < to.rows(); i0 += kCopyTile) {
      const Eigen::Index height = std::min(kCopyTile, to.rows() - i0);
      to.block(i0, j0, height, width) = from.block(i0, j0, height, width);
    }
  }
}

template <typename T>
StridedMap<T> View(T* data, const BatchedView& view, int64_t batch, Eigen::Index rows,
                   Eigen::Index cols) {
  return StridedMap<T>(
      data + view.Offset(batch), rows, cols,
      Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(view.j_stride(), view.i_stride()));
}

// dst[c * dst_stride + r] = src[r * src_stride + c] for r < rows, c < cols:
// 16x16 tiles through the kernels' tile transpose (AVX-512 where the host
// has it), the ragged edges element by element.
void TransposeCopyF32(const float* src, int64_t src_stride, float* dst, int64_t dst_stride,
                      int64_t rows, int64_t cols) {
  constexpr int64_t kTile = kTransposeTileRoutineSize;
  static const TransposeTileFunction tile = TransposeTileRoutine();
  alignas(64) float buffer[kTile * kTile];
  const int64_t full_rows = rows / kTile * kTile, full_cols = cols / kTile * kTile;
  for (int64_t r0 = 0; r0 < full_rows; r0 += kTile) {
    for (int64_t c0 = 0; c0 < full_cols; c0 += kTile) {
      tile(src + r0 * src_stride + c0, src_stride, buffer);
      for (int64_t a = 0; a < kTile; ++a) {
        std::memcpy(dst + (c0 + a) * dst_stride + r0, buffer + a * kTile, sizeof(buffer) / kTile);
      }
    }
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = r < full_rows ? full_cols : 0; c < cols; ++c) {
      dst[c * dst_stride + r] = src[r * src_stride + c];
    }
  }
}

template <typename T>
void CopyIn(const T* data, const BatchedView& view, int64_t batch, Matrix<T>& m) {
  if constexpr (std::is_same_v<T, float>) {
    if (view.j_stride() == 1 && view.i_stride() != 1) {  // row-major
      TransposeCopyF32(data + view.Offset(batch), view.i_stride(), m.data(), m.rows(), m.rows(),
                       m.cols());
      return;
    }
  }
  CopyTiled(m, View(const_cast<T*>(data), view, batch, m.rows(), m.cols()), view.i_stride() == 1);
}

template <typename T>
void CopyOut(const Matrix<T>& m, const BatchedView& view, int64_t batch, T* data) {
  if constexpr (std::is_same_v<T, float>) {
    if (view.j_stride() == 1 && view.i_stride() != 1) {
      TransposeCopyF32(m.data(), m.rows(), data + view.Offset(batch), view.i_stride(), m.cols(),
                       m.rows());
      return;
    }
  }
  CopyTiled(View(data, view, batch, m.rows(), m.cols()), m, view.i_stride() == 1);
}

// Matrix `batch` of the plan; blocked updates split over `pool` (null
// where the batch is split over it).
template <typename T>
void RunOne(const LinalgPlan& plan, int64_t batch, absl::Span<const void* const> operands,
            absl::Span<void* const> results, runtime::ThreadPool* pool) {
  const LinalgOp& op = plan.op;
  const T* a_data = static_cast<const T*>(operands[0]);
  T* out = static_cast<T*>(results[0]);
  switch (op.kind) {
    case LinalgKind::kCholesky: {
      Matrix<T> a(op.rows, op.cols);
      CopyIn(a_data, plan.operands[0], batch, a);
      const int32_t info = Cholesky(a, op.lower, pool);
      if (op.lapack) {
        static_cast<int32_t*>(results[1])[plan.results[1].Offset(batch)] = info;
      } else if (info != 0) {
        a.setConstant(T(std::numeric_limits<double>::quiet_NaN()));
      } else if (op.lower) {
        a.template triangularView<Eigen::StrictlyUpper>().setZero();
      } else {
        a.template triangularView<Eigen::StrictlyLower>().setZero();
      }
      CopyOut(a, plan.results[0], batch, out);
      return;
    }
    case LinalgKind::kLu: {
      Matrix<T> a(op.rows, op.cols);
      CopyIn(a_data, plan.operands[0], batch, a);
      const int64_t steps = std::min(op.rows, op.cols);
      std::vector<int32_t> pivots(steps);
      const lapack::Routines* lapack = LapackFor(op);
      const int32_t info = lapack != nullptr ? factorizations_lapack::Lu(*lapack, op.rows, op.cols,
                                                                         a.data(), pivots.data())
                                             : BlockedLu(a, pivots.data(), pool);
      CopyOut(a, plan.results[0], batch, out);
      int32_t* pivots_out = static_cast<int32_t*>(results[1]);
      for (int64_t k = 0; k < steps; ++k) pivots_out[plan.results[1].Offset(batch, k)] = pivots[k];
      static_cast<int32_t*>(results[2])[plan.results[2].Offset(batch)] = info;
      return;
    }
    case LinalgKind::kQr: {
      const int64_t k = std::min(op.rows, op.cols);
      Matrix<T> a(op.rows, op.cols);
      std::vector<T> taus(k);
      CopyIn(a_data, plan.operands[0], batch, a);
      if (eigen_dot_internal::KernelsSupported()) {
        factorizations_avx512::HouseholderQr(op.rows, op.cols, a.data(), taus.data());
      } else {
        factorizations_baseline::HouseholderQr(op.rows, op.cols, a.data(), taus.data());
      }
      CopyOut(a, plan.results[0], batch, out);
      T* taus_out = static_cast<T*>(results[1]);
      for (int64_t i = 0; i < k; ++i) taus_out[plan.results[1].Offset(batch, i)] = taus[i];
      return;
    }
    case LinalgKind::kHouseholderProduct: {
      Matrix<T> a(op.rows, op.cols);
      std::vector<T> taus(op.reflectors);
      CopyIn(a_data, plan.operands[0], batch, a);
      const T* taus_in = static_cast<const T*>(operands[1]);
      for (int64_t i = 0; i < op.reflectors; ++i) {
        taus[i] = taus_in[plan.operands[1].Offset(batch, i)];
      }
      if (eigen_dot_internal::KernelsSupported()) {
        factorizations_avx512::HouseholderProduct(op.rows, op.cols, op.reflectors, a.data(),
                                                  taus.data());
      } else {
        factorizations_baseline::HouseholderProduct(op.rows, op.cols, op.reflectors, a.data(),
                                                    taus.data());
      }
      CopyOut(a, plan.results[0], batch, out);
      return;
    }
    case LinalgKind::kHermitianEigen: {
      using Real = typename Eigen::NumTraits<T>::Real;
      Matrix<T> a(op.rows, op.cols);
      CopyIn(a_data, plan.operands[0], batch, a);
      // The eigensolver reads the lower triangle: the upper one's, mirrored.
      if (!op.lower) a = a.adjoint().eval();
      std::vector<Real> w(op.rows);
      const lapack::Routines* lapack = LapackFor(op);
      const bool converged =
          lapack != nullptr ? factorizations_lapack::HermitianEigen(*lapack, op.rows, a.data(),
                                                                    w.data(), op.vectors)
          : eigen_dot_internal::KernelsSupported()
              ? factorizations_avx512::HermitianEigen(op.rows, a.data(), w.data(), op.vectors)
              : factorizations_baseline::HermitianEigen(op.rows, a.data(), w.data(), op.vectors);
      CopyOut(a, plan.results[0], batch, out);
      Real* values = static_cast<Real*>(results[1]);
      for (int64_t i = 0; i < op.rows; ++i) values[plan.results[1].Offset(batch, i)] = w[i];
      static_cast<int32_t*>(results[2])[plan.results[2].Offset(batch)] = converged ? 0 : 1;
      return;
    }
    case LinalgKind::kEigen: {
      using Real = typename Eigen::NumTraits<T>::Real;
      using C = std::complex<Real>;
      constexpr bool kComplex = !std::is_same_v<T, Real>;
      const int64_t n = op.rows;
      Matrix<T> a(n, n);
      Matrix<C> left(n, n), right(n, n);
      std::vector<C> w(n);
      CopyIn(a_data, plan.operands[0], batch, a);
      const lapack::Routines* lapack = LapackFor(op);
      const bool converged =
          lapack != nullptr
              ? factorizations_lapack::GeneralEigen(*lapack, n, a.data(), w.data(), op.left_vectors,
                                                    left.data(), op.vectors, right.data())
          : eigen_dot_internal::KernelsSupported()
              ? factorizations_avx512::GeneralEigen(n, a.data(), w.data(), op.left_vectors,
                                                    left.data(), op.vectors, right.data())
              : factorizations_baseline::GeneralEigen(n, a.data(), w.data(), op.left_vectors,
                                                      left.data(), op.vectors, right.data());
      int result = 0;
      if constexpr (kComplex) {
        T* values = static_cast<T*>(results[result]);
        for (int64_t i = 0; i < n; ++i) values[plan.results[result].Offset(batch, i)] = w[i];
        ++result;
      } else {
        T* real = static_cast<T*>(results[0]);
        T* imaginary = static_cast<T*>(results[1]);
        for (int64_t i = 0; i < n; ++i) {
          real[plan.results[0].Offset(batch, i)] = w[i].real();
          imaginary[plan.results[1].Offset(batch, i)] = w[i].imag();
        }
        result = 2;
      }
      CopyOut(left, plan.results[result], batch, static_cast<C*>(results[result]));
      CopyOut(right, plan.results[result + 1], batch, static_cast<C*>(results[result + 1]));
      static_cast<int32_t*>(results[result + 2])[plan.results[result + 2].Offset(batch)] =
          converged ? 0 : 1;
      return;
    }
    case LinalgKind::kSvd: {
      using Real = typename Eigen::NumTraits<T>::Real;
      const int64_t k = std::min(op.rows, op.cols);
      const int64_t u_cols = op.full_matrices ? op.rows : k;
      const int64_t vt_rows = op.full_matrices ? op.cols : k;
      Matrix<T> a(op.rows, op.cols), u(op.rows, u_cols), vt(vt_rows, op.cols);
      CopyIn(a_data, plan.operands[0], batch, a);
      std::vector<Real> s(k);
      bool converged = true;
      if (k == 0) {  // a full U or V^H of an empty matrix is the identity
        u.setZero();
        vt.setZero();
        if (op.vectors) {
          u.setIdentity();
          vt.setIdentity();
        }
      } else {
        const lapack::Routines* lapack = LapackFor(op);
        converged =
            lapack != nullptr
                ? factorizations_lapack::Svd(*lapack, op.rows, op.cols, a.data(), s.data(),
                                             op.vectors, u_cols, u.data(), vt_rows, vt.data())
            : eigen_dot_internal::KernelsSupported()
                ? factorizations_avx512::Svd(op.rows, op.cols, a.data(), s.data(), op.vectors,
                                             u_cols, u.data(), vt_rows, vt.data())
                : factorizations_baseline::Svd(op.rows, op.cols, a.data(), s.data(), op.vectors,
                                               u_cols, u.data(), vt_rows, vt.data());
      }
      CopyOut(a, plan.results[0], batch, out);  // LAPACK destroys it: unspecified
      Real* values = static_cast<Real*>(results[1]);
      for (int64_t i = 0; i < k; ++i) values[plan.results[1].Offset(batch, i)] = s[i];
      CopyOut(u, plan.results[2], batch, static_cast<T*>(results[2]));
      CopyOut(vt, plan.results[3], batch, static_cast<T*>(results[3]));
      static_cast<int32_t*>(results[4])[plan.results[4].Offset(batch)] = converged ? 0 : 1;
      return;
    }
    case LinalgKind::kSchur: {
      // PlanLinalg takes the LAPACK-only kinds (this, kHessenberg,
      // kTridiagonal, kTridiagonalSolve) only where a LAPACK loads.
      // Results: (t, z, w, sdim, info), or real (t, z, wr, wi, sdim, info).
      constexpr bool kComplex = Eigen::NumTraits<T>::IsComplex;
      const int64_t n = op.rows;
      Matrix<T> a(n, n), z(n, n);
      std::vector<T> w(n), wi(n);
      CopyIn(a_data, plan.operands[0], batch, a);
      bool converged;
      if constexpr (kComplex) {
        converged = factorizations_lapack::Schur(*lapack::Load(), n, a.data(), op.vectors, z.data(),
                                                 w.data());
      } else {
        converged = factorizations_lapack::RealSchur(*lapack::Load(), n, a.data(), op.vectors,
                                                     z.data(), w.data(), wi.data());
      }
      CopyOut(a, plan.results[0], batch, out);
      CopyOut(z, plan.results[1], batch, static_cast<T*>(results[1]));
      const int values = kComplex ? 1 : 2;
      for (int k = 0; k < values; ++k) {
        T* out_k = static_cast<T*>(results[2 + k]);
        const std::vector<T>& from = k == 0 ? w : wi;
        for (int64_t i = 0; i < n; ++i) out_k[plan.results[2 + k].Offset(batch, i)] = from[i];
      }
      static_cast<int32_t*>(results[2 + values])[plan.results[2 + values].Offset(batch)] = 0;
      static_cast<int32_t*>(results[3 + values])[plan.results[3 + values].Offset(batch)] =
          converged ? 0 : 1;
      return;
    }
    case LinalgKind::kPivotedQr: {
      const int64_t k = std::min(op.rows, op.cols);
      Matrix<T> a(op.rows, op.cols);
      std::vector<int32_t> jpvt(op.cols);
      std::vector<T> taus(k);
      CopyIn(a_data, plan.operands[0], batch, a);
      const int32_t* jpvt_in = static_cast<const int32_t*>(operands[1]);
      for (int64_t j = 0; j < op.cols; ++j) jpvt[j] = jpvt_in[plan.operands[1].Offset(batch, j)];
      factorizations_lapack::PivotedQr(*lapack::Load(), op.rows, op.cols, a.data(), jpvt.data(),
                                       taus.data());
      CopyOut(a, plan.results[0], batch, out);
      int32_t* jpvt_out = static_cast<int32_t*>(results[1]);
      for (int64_t j = 0; j < op.cols; ++j) jpvt_out[plan.results[1].Offset(batch, j)] = jpvt[j];
      T* taus_out = static_cast<T*>(results[2]);
      for (int64_t i = 0; i < k; ++i) taus_out[plan.results[2].Offset(batch, i)] = taus[i];
      return;
    }
    case LinalgKind::kHessenberg: {
      const int64_t n = op.rows;
      Matrix<T> a(n, n);
      std::vector<T> taus(std::max<int64_t>(n - 1, 0));
      CopyIn(a_data, plan.operands[0], batch, a);
      factorizations_lapack::Hessenberg(*lapack::Load(), n, op.low, op.high, a.data(), taus.data());
      CopyOut(a, plan.results[0], batch, out);
      T* taus_out = static_cast<T*>(results[1]);
      for (size_t i = 0; i < taus.size(); ++i) taus_out[plan.results[1].Offset(batch, i)] = taus[i];
      static_cast<int32_t*>(results[2])[plan.results[2].Offset(batch)] = 0;
      return;
    }
    case LinalgKind::kTridiagonal: {
      using Real = typename Eigen::NumTraits<T>::Real;
      const int64_t n = op.rows, off = std::max<int64_t>(n - 1, 0);
      Matrix<T> a(n, n);
      std::vector<Real> d(n), e(off);
      std::vector<T> taus(off);
      CopyIn(a_data, plan.operands[0], batch, a);
      factorizations_lapack::Tridiagonal(*lapack::Load(), op.lower, n, a.data(), d.data(), e.data(),
                                         taus.data());
      CopyOut(a, plan.results[0], batch, out);
      Real* d_out = static_cast<Real*>(results[1]);
      Real* e_out = static_cast<Real*>(results[2]);
      T* taus_out = static_cast<T*>(results[3]);
      for (int64_t i = 0; i < n; ++i) d_out[plan.results[1].Offset(batch, i)] = d[i];
      for (int64_t i = 0; i < off; ++i) {
        e_out[plan.results[2].Offset(batch, i)] = e[i];
        taus_out[plan.results[3].Offset(batch, i)] = taus[i];
      }
      static_cast<int32_t*>(results[4])[plan.results[4].Offset(batch)] = 0;
      return;
    }
    case LinalgKind::kTridiagonalSolve: {
      const lapack::Routines* lapack = lapack::Load();
      const int64_t n = op.rows;
      std::vector<T> diagonals[3];
      for (int k = 0; k < 3; ++k) {
        const T* in = static_cast<const T*>(operands[k]);
        diagonals[k].resize(n);
        for (int64_t i = 0; i < n; ++i) diagonals[k][i] = in[plan.operands[k].Offset(batch, i)];
      }
      Matrix<T> b(op.rows, op.cols);
      CopyIn(static_cast<const T*>(operands[3]), plan.operands[3], batch, b);
      // JAX's dl[0] is outside the matrix: LAPACK's subdiagonal starts at 1.
      const int32_t info = factorizations_lapack::TridiagonalSolve(
          *lapack, n, op.cols, diagonals[0].data() + 1, diagonals[1].data(), diagonals[2].data(),
          b.data());
      for (int k = 0; k < 3; ++k) {
        T* out_k = static_cast<T*>(results[k]);
        for (int64_t i = 0; i < n; ++i) out_k[plan.results[k].Offset(batch, i)] = diagonals[k][i];
      }
      CopyOut(b, plan.results[3], batch, static_cast<T*>(results[3]));
      static_cast<int32_t*>(results[4])[plan.results[4].Offset(batch)] = info;
      return;
    }
    case LinalgKind::kTriangularSolve: {
      const int64_t side = op.left_side ? op.rows : op.cols;
      Matrix<T> a(side, side), b(op.rows, op.cols);
      CopyIn(a_data, plan.operands[0], batch, a);
      CopyIn(static_cast<const T*>(operands[1]), plan.operands[1], batch, b);
      if (side >= kBlockedOrder) {
        if (const lapack::Routines* lapack = LapackFor(op)) {
          const char transpose = op.transpose == LinalgTranspose::kNone        ? 'N'
                                 : op.transpose == LinalgTranspose::kTranspose ? 'T'
                                                                               : 'C';
          // One call: OpenBLAS runs level-3 calls from several threads one at
          // a time, so slices of X's columns on the pool's threads took as
          // long (256 x 256 on two cores).
          factorizations_lapack::TriangularSolve(*lapack, op.left_side, op.lower, transpose,
                                                 op.unit_diagonal, op.rows, op.cols, a.data(),
                                                 b.data(), op.rows);
        } else {
          LargeTriangularSolve(op, a, b, pool);
        }
        CopyOut(b, plan.results[0], batch, out);
        return;
      }
      // The triangle op(A) has: A's, or the other one transposed.
      const bool lower = op.lower != (op.transpose != LinalgTranspose::kNone);
      switch (op.transpose) {
        case LinalgTranspose::kNone:
          Solve(a, lower, op.unit_diagonal, op.left_side, b);
          break;
        case LinalgTranspose::kTranspose:
          Solve(a.transpose(), lower, op.unit_diagonal, op.left_side, b);
          break;
        case LinalgTranspose::kAdjoint:
          Solve(a.adjoint(), lower, op.unit_diagonal, op.left_side, b);
          break;
      }
      CopyOut(b, plan.results[0], batch, out);
      return;
    }
  }
}

// Scalar multiply-adds of one matrix, roughly: what decides threading.
int64_t WorkPerMatrix(const LinalgOp& op) {
  const int64_t n = std::max<int64_t>(1, std::min(op.rows, op.cols));
  if (op.kind == LinalgKind::kTriangularSolve) {
    const int64_t side = op.left_side ? op.rows : op.cols;
    return side * op.rows * op.cols;
  }
  return n * op.rows * op.cols;
}

template <typename T>
void RunBatch(const LinalgPlan& plan, absl::Span<const void* const> operands,
              absl::Span<void* const> results, runtime::ThreadPool* pool) {
  if (pool == nullptr || plan.op.batch < 2 ||
      plan.op.batch * WorkPerMatrix(plan.op) < kParallelLinalgWork) {
    for (int64_t b = 0; b < plan.op.batch; ++b) RunOne<T>(plan, b, operands, results, pool);
    return;
  }
  pool->ParallelFor(plan.op.batch, pool->BlockSizeFor(plan.op.batch),
                    [&](int64_t begin, int64_t end) {
                      for (int64_t b = begin; b < end; ++b) {
                        RunOne<T>(plan, b, operands, results, nullptr);
                      }
                    });
}

}  // namespace

BatchedView::BatchedView(const Shape& shape, int trailing) {
  const int64_t rank = shape.rank();
  const std::vector<int64_t>& dims = shape.dimensions();
  std::vector<int64_t> strides(rank, 1);
  const std::vector<int64_t> order =
      shape.has_layout() && static_cast<int64_t>(shape.layout().minor_to_major.size()) == rank
          ? shape.layout().minor_to_major
          : Layout::Descending(rank).minor_to_major;
  int64_t stride = 1;
  for (int64_t d : order) {
    strides[d] = stride;
    stride *= dims[d];
  }
  const int64_t leading = rank - trailing;
  batch_dims_.assign(dims.begin(), dims.begin() + leading);
  batch_strides_.assign(strides.begin(), strides.begin() + leading);
  if (trailing >= 1) i_stride_ = strides[leading];
  if (trailing == 2) j_stride_ = strides[leading + 1];
}

int64_t BatchedView::Offset(int64_t batch, int64_t i, int64_t j) const {
  int64_t offset = i * i_stride_ + j * j_stride_;
  for (int64_t d = static_cast<int64_t>(batch_dims_.size()) - 1; d >= 0; --d) {
    offset += (batch % batch_dims_[d]) * batch_strides_[d];
    batch /= batch_dims_[d];
  }
  return offset;
}

absl::StatusOr<LinalgPlan> PlanLinalg(const HloInstruction& hlo) {
  LinalgPlan plan;
  TS_ASSIGN_OR_RETURN(plan.op, DescribeLinalgOp(hlo));
  const LinalgKind kind = plan.op.kind;
  if ((kind == LinalgKind::kTridiagonalSolve || kind == LinalgKind::kHessenberg ||
       kind == LinalgKind::kTridiagonal || kind == LinalgKind::kSchur ||
       kind == LinalgKind::kPivotedQr) &&
      lapack::Load() == nullptr) {
    // Our own kernels would repeat the evaluator's; without a LAPACK the
    // evaluator runs these.
    return absl::UnimplementedError(
        absl::StrCat(LinalgName(hlo), " needs a LAPACK library: ", lapack::Describe()));
  }
  if (kind == LinalgKind::kPivotedQr) {  // (a, jpvt) -> (a, jpvt, taus)
    plan.operands.emplace_back(hlo.operand(0)->shape(), 2);
    plan.operands.emplace_back(hlo.operand(1)->shape(), 1);
    plan.results.emplace_back(hlo.shape().tuple_shapes(0), 2);
    plan.results.emplace_back(hlo.shape().tuple_shapes(1), 1);
    plan.results.emplace_back(hlo.shape().tuple_shapes(2), 1);
    return plan;
  }
  if (kind == LinalgKind::kSchur) {  // (t, z, w or wr and wi, sdim, info)
    plan.operands.emplace_back(hlo.operand(0)->shape(), 2);
    const int count = static_cast<int>(hlo.shape().tuple_size());
    for (int k = 0; k < count; ++k) {
      plan.results.emplace_back(hlo.shape().tuple_shapes(k), k < 2 ? 2 : k < count - 2 ? 1 : 0);
    }
    return plan;
  }
  if (kind == LinalgKind::kHessenberg || kind == LinalgKind::kTridiagonal) {
    plan.operands.emplace_back(hlo.operand(0)->shape(), 2);
    plan.results.emplace_back(hlo.shape().tuple_shapes(0), 2);
    const int vectors = kind == LinalgKind::kHessenberg ? 1 : 3;  // taus; d, e, taus
    for (int k = 1; k <= vectors; ++k) plan.results.emplace_back(hlo.shape().tuple_shapes(k), 1);
    plan.results.emplace_back(hlo.shape().tuple_shapes(vectors + 1), 0);
    return plan;
  }
  if (plan.op.kind == LinalgKind::kTridiagonalSolve) {
    for (int k = 0; k < 4; ++k) plan.operands.emplace_back(hlo.operand(k)->shape(), k < 3 ? 1 : 2);
    for (int k = 0; k < 5; ++k) {
      plan.results.emplace_back(hlo.shape().tuple_shapes(k), k < 3 ? 1 : k == 3 ? 2 : 0);
    }
    return plan;
  }
  for (const HloInstruction* operand : hlo.operands()) {
    // Matrices, but for a Householder product's taus (vectors).
    const bool taus = plan.op.kind == LinalgKind::kHouseholderProduct && !plan.operands.empty();
    plan.operands.emplace_back(operand->shape(), taus ? 1 : 2);
  }
  if (!hlo.shape().IsTuple()) {
    plan.results.emplace_back(hlo.shape(), 2);
    return plan;
  }
  if (plan.op.kind == LinalgKind::kEigen) {
    // (wr, wi, vl, vr, info) or, complex, (w, vl, vr, info).
    const int64_t batch_rank = hlo.operand(0)->shape().rank() - 2;
    for (const Shape& result : hlo.shape().tuple_shapes()) {
      plan.results.emplace_back(result, static_cast<int>(result.rank() - batch_rank));
    }
    return plan;
  }
  plan.results.emplace_back(hlo.shape().tuple_shapes(0), 2);
  if (plan.op.kind == LinalgKind::kHermitianEigen) {
    plan.results.emplace_back(hlo.shape().tuple_shapes(1), 1);
    plan.results.emplace_back(hlo.shape().tuple_shapes(2), 0);
  } else if (plan.op.kind == LinalgKind::kSvd) {
    plan.results.emplace_back(hlo.shape().tuple_shapes(1), 1);
    plan.results.emplace_back(hlo.shape().tuple_shapes(2), 2);
    plan.results.emplace_back(hlo.shape().tuple_shapes(3), 2);
    plan.results.emplace_back(hlo.shape().tuple_shapes(4), 0);
  } else if (plan.op.kind == LinalgKind::kLu) {
    plan.results.emplace_back(hlo.shape().tuple_shapes(1), 1);
    plan.results.emplace_back(hlo.shape().tuple_shapes(2), 0);
  } else if (plan.op.kind == LinalgKind::kQr) {
    plan.results.emplace_back(hlo.shape().tuple_shapes(1), 1);
  } else {
    plan.results.emplace_back(hlo.shape().tuple_shapes(1), 0);
  }
  return plan;
}

absl::Status RunLinalg(const LinalgPlan& plan, absl::Span<const void* const> operands,
                       absl::Span<void* const> results, runtime::ThreadPool* pool) {
  if (operands.size() != plan.operands.size() || results.size() != plan.results.size()) {
    return absl::InternalError("linalg thunk: buffer count does not match the plan");
  }
  // An empty SVD's full U or V^H is still an identity, gtsv with no
  // right-hand sides still factors, and geqp3's jpvt passes through.
  const bool factors_when_empty =
      plan.op.kind == LinalgKind::kSvd ||
      (plan.op.kind == LinalgKind::kTridiagonalSolve && plan.op.rows > 0) ||
      (plan.op.kind == LinalgKind::kPivotedQr && plan.op.cols > 0);
  if ((plan.op.rows == 0 || plan.op.cols == 0) && !factors_when_empty) {
    // Empty matrices: nothing to factor; info (and no pivots) are zero.
    const LinalgKind kind = plan.op.kind;
    const bool has_info = kind == LinalgKind::kCholesky || kind == LinalgKind::kLu ||
                          kind == LinalgKind::kHermitianEigen || kind == LinalgKind::kEigen ||
                          kind == LinalgKind::kTridiagonalSolve ||
                          kind == LinalgKind::kHessenberg || kind == LinalgKind::kTridiagonal ||
                          kind == LinalgKind::kSchur;
    if (plan.op.lapack && has_info) {
      int32_t* info = static_cast<int32_t*>(results.back());
      for (int64_t b = 0; b < plan.op.batch; ++b) info[plan.results.back().Offset(b)] = 0;
    }
    if (kind == LinalgKind::kSchur) {  // and sdim, before info
      const size_t at = results.size() - 2;
      int32_t* sdim = static_cast<int32_t*>(results[at]);
      for (int64_t b = 0; b < plan.op.batch; ++b) sdim[plan.results[at].Offset(b)] = 0;
    }
    return absl::OkStatus();
  }
  switch (plan.op.type) {
    case F32:
      RunBatch<float>(plan, operands, results, pool);
      break;
    case F64:
      RunBatch<double>(plan, operands, results, pool);
      break;
    case C64:
      RunBatch<std::complex<float>>(plan, operands, results, pool);
      break;
    case C128:
      RunBatch<std::complex<double>>(plan, operands, results, pool);
      break;
    default:
      return absl::InternalError("linalg thunk: element type");
  }
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace tessera
