// Cholesky, LU and triangular solves through Eigen; see linalg_thunk.h.
#include "backends/cpu/linalg_thunk.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

#include "Eigen/Cholesky"
#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/status_macros.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {
namespace {

// Below this many scalar multiply-adds in the whole batch one thread runs it.
constexpr int64_t kParallelLinalgWork = 1 << 16;
// Columns of an LU panel factored unblocked before the GEMM update.
constexpr Eigen::Index kLuPanel = 32;

template <typename T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;

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
// kLuPanel columns factored one column at a time (whole rows swapped), then
// U12 = L11^-1 A12 and A22 -= L21 U12 through Eigen.  Returns info.
template <typename T>
int32_t BlockedLu(Matrix<T>& a, int32_t* pivots) {
  const Eigen::Index rows = a.rows(), cols = a.cols(), steps = std::min(rows, cols);
  int32_t info = 0;
  for (Eigen::Index k0 = 0; k0 < steps; k0 += kLuPanel) {
    const Eigen::Index panel_end = std::min(steps, k0 + kLuPanel);
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
    a.block(k0, k0, width, width).template triangularView<Eigen::UnitLower>().solveInPlace(a12);
    if (rows > panel_end) {
      a.block(panel_end, panel_end, rows - panel_end, rest).noalias() -=
          a.block(panel_end, k0, rows - panel_end, width) * a12;
    }
  }
  return info;
}

// A = L L^H (or U^H U) in place, reading and writing one triangle.
// Returns LAPACK's info; a NaN pivot fails, as in LAPACK and the evaluator.
template <typename T>
int32_t Cholesky(Matrix<T>& a, bool lower) {
  const Eigen::Index failed = lower ? Eigen::internal::llt_inplace<T, Eigen::Lower>::blocked(a)
                                    : Eigen::internal::llt_inplace<T, Eigen::Upper>::blocked(a);
  if (failed >= 0) return static_cast<int32_t>(failed + 1);
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

template <typename T>
void CopyIn(const T* data, const BatchedView& view, int64_t batch, Matrix<T>& m) {
  for (Eigen::Index j = 0; j < m.cols(); ++j) {
    for (Eigen::Index i = 0; i < m.rows(); ++i) m(i, j) = data[view.Offset(batch, i, j)];
  }
}

template <typename T>
void CopyOut(const Matrix<T>& m, const BatchedView& view, int64_t batch, T* data) {
  for (Eigen::Index j = 0; j < m.cols(); ++j) {
    for (Eigen::Index i = 0; i < m.rows(); ++i) data[view.Offset(batch, i, j)] = m(i, j);
  }
}

// Matrix `batch` of the plan.
template <typename T>
void RunOne(const LinalgPlan& plan, int64_t batch, absl::Span<const void* const> operands,
            absl::Span<void* const> results) {
  const LinalgOp& op = plan.op;
  const T* a_data = static_cast<const T*>(operands[0]);
  T* out = static_cast<T*>(results[0]);
  switch (op.kind) {
    case LinalgKind::kCholesky: {
      Matrix<T> a(op.rows, op.cols);
      CopyIn(a_data, plan.operands[0], batch, a);
      const int32_t info = Cholesky(a, op.lower);
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
      const int32_t info = BlockedLu(a, pivots.data());
      CopyOut(a, plan.results[0], batch, out);
      int32_t* pivots_out = static_cast<int32_t*>(results[1]);
      for (int64_t k = 0; k < steps; ++k) pivots_out[plan.results[1].Offset(batch, k)] = pivots[k];
      static_cast<int32_t*>(results[2])[plan.results[2].Offset(batch)] = info;
      return;
    }
    case LinalgKind::kTriangularSolve: {
      const int64_t side = op.left_side ? op.rows : op.cols;
      Matrix<T> a(side, side), b(op.rows, op.cols);
      CopyIn(a_data, plan.operands[0], batch, a);
      CopyIn(static_cast<const T*>(operands[1]), plan.operands[1], batch, b);
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
  auto block = [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) RunOne<T>(plan, b, operands, results);
  };
  if (pool == nullptr || plan.op.batch < 2 ||
      plan.op.batch * WorkPerMatrix(plan.op) < kParallelLinalgWork) {
    block(0, plan.op.batch);
  } else {
    pool->ParallelFor(plan.op.batch, pool->BlockSizeFor(plan.op.batch), block);
  }
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
  for (const HloInstruction* operand : hlo.operands()) {
    plan.operands.emplace_back(operand->shape(), 2);
  }
  if (!hlo.shape().IsTuple()) {
    plan.results.emplace_back(hlo.shape(), 2);
    return plan;
  }
  plan.results.emplace_back(hlo.shape().tuple_shapes(0), 2);
  if (plan.op.kind == LinalgKind::kLu) {
    plan.results.emplace_back(hlo.shape().tuple_shapes(1), 1);
    plan.results.emplace_back(hlo.shape().tuple_shapes(2), 0);
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
  if (plan.op.rows == 0 || plan.op.cols == 0) {
    // Empty matrices: nothing to factor; info (and no pivots) are zero.
    if (plan.op.lapack && plan.op.kind != LinalgKind::kTriangularSolve) {
      int32_t* info = static_cast<int32_t*>(results.back());
      for (int64_t b = 0; b < plan.op.batch; ++b) info[plan.results.back().Offset(b)] = 0;
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
