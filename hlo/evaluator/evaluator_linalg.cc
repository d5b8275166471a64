// cholesky, triangular-solve, and JAX's LAPACK calls (potrf, getrf, trsm,
// geqrf, orgqr/ungqr, gehrd, sytrd/hetrd, gtsv; syevd/heevd and gesdd/gesvd in
// evaluator_spectral.cc): the semantics of hlo/analysis/linalg_op.h as textbook unblocked
// algorithms, one matrix of the batch at a time, in the element type.  Row-major literal data puts
// matrix b's element (i, j) at b * rows * cols + i * cols + j.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "hlo/analysis/linalg_op.h"
#include "hlo/evaluator/evaluator_internal.h"

namespace tessera {
namespace evaluator_internal {
namespace {

// LAPACK's pivot score (i?amax): |x|, or |re| + |im| for complex.
template <typename T>
auto PivotScore(T x) {
  if constexpr (kIsComplex<T>) {
    return std::abs(x.real()) + std::abs(x.imag());
  } else {
    return std::abs(x);
  }
}

// A = L L^H on the n x n matrix `a`, reading and writing only the lower
// triangle (or, with !lower, A = U^H U on the upper one, as the lower
// factor of the conjugate transpose).  Returns LAPACK's info: 0, or j + 1
// for the first column j whose pivot is not positive (NaN included).
template <typename T>
int32_t Cholesky(T* a, int64_t n, bool lower) {
  // L(i, j) of the triangle used, for i >= j.
  auto at = [&](int64_t i, int64_t j) -> T { return lower ? a[i * n + j] : Conj(a[j * n + i]); };
  auto set = [&](int64_t i, int64_t j, T value) {
    if (lower) {
      a[i * n + j] = value;
    } else {
      a[j * n + i] = Conj(value);
    }
  };
  for (int64_t j = 0; j < n; ++j) {
    auto diagonal = RealPart(at(j, j));
    for (int64_t k = 0; k < j; ++k) diagonal -= RealPart(at(j, k) * Conj(at(j, k)));
    if (!(diagonal > 0)) return static_cast<int32_t>(j + 1);
    const auto pivot = std::sqrt(diagonal);
    set(j, j, T(pivot));
    for (int64_t i = j + 1; i < n; ++i) {
      T sum = at(i, j);
      for (int64_t k = 0; k < j; ++k) sum -= at(i, k) * Conj(at(j, k));
      set(i, j, sum / T(pivot));
    }
  }
  return 0;
}

// P A = L U in place on the rows x cols matrix `a`; pivots[k] = the
// (1-based) row swapped with row k.  Returns LAPACK's info.
template <typename T>
int32_t Lu(T* a, int64_t rows, int64_t cols, int32_t* pivots) {
  int32_t info = 0;
  for (int64_t k = 0; k < std::min(rows, cols); ++k) {
    int64_t pivot_row = k;
    for (int64_t i = k + 1; i < rows; ++i) {
      if (PivotScore(a[i * cols + k]) > PivotScore(a[pivot_row * cols + k])) pivot_row = i;
    }
    pivots[k] = static_cast<int32_t>(pivot_row + 1);
    if (a[pivot_row * cols + k] != T(0)) {
      if (pivot_row != k) {
        for (int64_t j = 0; j < cols; ++j) std::swap(a[k * cols + j], a[pivot_row * cols + j]);
      }
      for (int64_t i = k + 1; i < rows; ++i) a[i * cols + k] /= a[k * cols + k];
    } else if (info == 0) {
      info = static_cast<int32_t>(k + 1);
    }
    for (int64_t i = k + 1; i < rows; ++i) {
      for (int64_t j = k + 1; j < cols; ++j) a[i * cols + j] -= a[i * cols + k] * a[k * cols + j];
    }
  }
  return info;
}

// Solves op(A) X = B or X op(A) = B in place of the rows x cols `b`, with
// `a` square (rows or cols).
template <typename T>
void TriangularSolve(const LinalgOp& op, const T* a, T* b) {
  const int64_t rows = op.rows, cols = op.cols;
  const int64_t n = op.left_side ? rows : cols;
  // op(A)(i, j), within the triangle op(A) has.
  auto op_a = [&](int64_t i, int64_t j) -> T {
    if (i == j && op.unit_diagonal) return T(1);
    switch (op.transpose) {
      case LinalgTranspose::kNone:
        return a[i * n + j];
      case LinalgTranspose::kTranspose:
        return a[j * n + i];
      case LinalgTranspose::kAdjoint:
        return Conj(a[j * n + i]);
    }
    return T(0);
  };
  const bool lower = op.lower != (op.transpose != LinalgTranspose::kNone);
  if (op.left_side) {
    // Column c: substitution down (lower) or up the rows.
    for (int64_t c = 0; c < cols; ++c) {
      for (int64_t step = 0; step < rows; ++step) {
        const int64_t i = lower ? step : rows - 1 - step;
        T sum = b[i * cols + c];
        if (lower) {
          for (int64_t k = 0; k < i; ++k) sum -= op_a(i, k) * b[k * cols + c];
        } else {
          for (int64_t k = i + 1; k < rows; ++k) sum -= op_a(i, k) * b[k * cols + c];
        }
        b[i * cols + c] = sum / op_a(i, i);
      }
    }
    return;
  }
  // Row r of X op(A) = B: x_j op(A)(j, j) = b_j - sum of the other x_k
  // op(A)(k, j), from the last column (lower) or the first.
  for (int64_t r = 0; r < rows; ++r) {
    T* x = b + r * cols;
    for (int64_t step = 0; step < cols; ++step) {
      const int64_t j = lower ? cols - 1 - step : step;
      T sum = x[j];
      if (lower) {
        for (int64_t k = j + 1; k < cols; ++k) sum -= x[k] * op_a(k, j);
      } else {
        for (int64_t k = 0; k < j; ++k) sum -= x[k] * op_a(k, j);
      }
      x[j] = sum / op_a(j, j);
    }
  }
}

// LAPACK's larfg on alpha and the `count` elements of x `stride` apart:
// returns tau (0: no reflection), leaves beta in alpha and the reflector's
// tail in x.
template <typename T>
T Reflector(T& alpha, T* x, int64_t count, int64_t stride) {
  using Real = decltype(RealPart(alpha));
  Real tail = 0;
  for (int64_t i = 0; i < count; ++i) tail += RealPart(x[i * stride] * Conj(x[i * stride]));
  const Real alpha_re = RealPart(alpha), alpha_im = ImagPart(alpha);
  if (tail == 0 && alpha_im == 0) return T(0);
  const Real norm = std::sqrt(alpha_re * alpha_re + alpha_im * alpha_im + tail);
  const Real beta = alpha_re >= 0 ? -norm : norm;
  T tau;
  if constexpr (kIsComplex<T>) {
    tau = T((beta - alpha_re) / beta, -alpha_im / beta);
  } else {
    tau = (beta - alpha) / beta;
  }
  const T scale = T(1) / (alpha - T(beta));
  for (int64_t i = 0; i < count; ++i) x[i * stride] *= scale;
  alpha = T(beta);
  return tau;
}

// C = (I - t v v^H) C for the rows [row, rows) and columns [col, cols) of
// the row-major `a`, v = (1, a[row + 1:, vcol]) (LAPACK's larf).
template <typename T>
void ApplyReflector(T* a, int64_t rows, int64_t cols, int64_t row, int64_t vcol, int64_t col, T t) {
  auto v = [&](int64_t r) { return r == row ? T(1) : a[r * cols + vcol]; };
  for (int64_t c = col; c < cols; ++c) {
    T w = 0;
    for (int64_t r = row; r < rows; ++r) w += Conj(v(r)) * a[r * cols + c];
    for (int64_t r = row; r < rows; ++r) a[r * cols + c] -= t * v(r) * w;
  }
}

// A = Q R in place (LAPACK's geqr2); taus[0, min(rows, cols)).
template <typename T>
void Qr(T* a, int64_t rows, int64_t cols, T* taus) {
  for (int64_t i = 0; i < std::min(rows, cols); ++i) {
    T alpha = a[i * cols + i];
    taus[i] = Reflector(alpha, a + (i + 1) * cols + i, rows - i - 1, cols);
    a[i * cols + i] = alpha;
    // H(i)^H from the left on the columns to the right.
    if (i + 1 < cols) ApplyReflector(a, rows, cols, i, i, i + 1, Conj(taus[i]));
  }
}

// A P = Q R in place (LAPACK's geqp3 with laqp2's steps, linalg_op.h):
// `jpvt` (cols) marks the fixed columns on entry (nonzero) and holds the
// 1-based permutation on exit; taus[0, min(rows, cols)).
template <typename T>
void PivotedQr(T* a, int64_t rows, int64_t cols, int32_t* jpvt, T* taus) {
  using Real = decltype(RealPart(T()));
  if (rows == 0 || cols == 0) return;  // LAPACK returns before reading jpvt
  auto swap_columns = [&](int64_t x, int64_t y) {
    for (int64_t r = 0; r < rows; ++r) std::swap(a[r * cols + x], a[r * cols + y]);
  };
  // The fixed columns to the front, in order.
  int64_t fixed = 0;
  for (int64_t j = 0; j < cols; ++j) {
    if (jpvt[j] != 0) {
      if (j != fixed) {
        swap_columns(j, fixed);
        jpvt[j] = jpvt[fixed];
        jpvt[fixed] = static_cast<int32_t>(j + 1);
      } else {
        jpvt[j] = static_cast<int32_t>(j + 1);
      }
      ++fixed;
    } else {
      jpvt[j] = static_cast<int32_t>(j + 1);
    }
  }
  const int64_t steps = std::min(rows, cols);
  auto reflect = [&](int64_t i) {
    T alpha = a[i * cols + i];
    taus[i] = Reflector(alpha, a + (i + 1) * cols + i, rows - i - 1, cols);
    a[i * cols + i] = alpha;
    if (i + 1 < cols) ApplyReflector(a, rows, cols, i, i, i + 1, Conj(taus[i]));
  };
  for (int64_t i = 0; i < std::min(fixed, steps); ++i) reflect(i);
  // The free columns' norms below the fixed rows: vn1 downdated, vn2 the
  // value when last computed.
  auto norm_below = [&](int64_t j, int64_t from) {
    Real sum = 0;
    for (int64_t r = from; r < rows; ++r) sum += RealPart(a[r * cols + j] * Conj(a[r * cols + j]));
    return std::sqrt(sum);
  };
  std::vector<Real> vn1(cols, 0), vn2(cols, 0);
  for (int64_t j = fixed; j < cols; ++j) vn1[j] = vn2[j] = norm_below(j, fixed);
  const Real tolerance = std::sqrt(std::numeric_limits<Real>::epsilon());
  for (int64_t i = fixed; i < steps; ++i) {
    int64_t pivot = i;
    for (int64_t j = i + 1; j < cols; ++j) {
      if (vn1[j] > vn1[pivot]) pivot = j;
    }
    if (pivot != i) {
      swap_columns(pivot, i);
      std::swap(jpvt[pivot], jpvt[i]);
      vn1[pivot] = vn1[i];
      vn2[pivot] = vn2[i];
    }
    reflect(i);
    for (int64_t j = i + 1; j < cols; ++j) {
      if (vn1[j] == 0) continue;
      const Real ratio = std::abs(a[i * cols + j]) / vn1[j];
      const Real remaining = std::max<Real>(0, (1 - ratio) * (1 + ratio));
      const Real relative = vn1[j] / vn2[j];
      if (remaining * relative * relative <= tolerance) {
        vn1[j] = i + 1 < rows ? norm_below(j, i + 1) : 0;
        vn2[j] = vn1[j];
      } else {
        vn1[j] *= std::sqrt(remaining);
      }
    }
  }
}

// The first `cols` columns of H(0) ... H(k-1) in place of the reflectors
// (LAPACK's org2r, ung2r).
template <typename T>
void HouseholderProduct(T* a, int64_t rows, int64_t cols, const T* taus, int64_t k) {
  for (int64_t j = k; j < cols; ++j) {
    for (int64_t r = 0; r < rows; ++r) a[r * cols + j] = T(r == j ? 1 : 0);
  }
  for (int64_t i = k - 1; i >= 0; --i) {
    if (i + 1 < cols) {
      a[i * cols + i] = T(1);
      ApplyReflector(a, rows, cols, i, i, i + 1, taus[i]);
    }
    for (int64_t r = i + 1; r < rows; ++r) a[r * cols + i] *= -taus[i];
    a[i * cols + i] = T(1) - taus[i];
    for (int64_t r = 0; r < i; ++r) a[r * cols + i] = T(0);
  }
}

// Reduces the row-major n x n `a` to upper Hessenberg form H = Q^H A Q in
// place, as LAPACK's gehd2: for i in [ilo - 1, ihi - 1) (1-based ilo, ihi),
// the reflector H(i) = I - tau v v^H, v zero up to i, one at i + 1, its
// tail stored in a[i + 2:ihi, i], taken from the right over rows [0, ihi)
// and with its adjoint from the left over columns (i, n); taus outside
// that range zero.
template <typename T>
void Hessenberg(T* a, int64_t n, int64_t ilo, int64_t ihi, T* taus) {
  auto at = [&](int64_t r, int64_t c) -> T& { return a[r * n + c]; };
  for (int64_t i = 0; i + 1 < n; ++i) taus[i] = T(0);
  for (int64_t i = ilo - 1; i + 1 < ihi; ++i) {
    T alpha = at(i + 1, i);
    const T tau = Reflector(alpha, a + std::min(i + 2, n - 1) * n + i, ihi - i - 2, n);
    taus[i] = tau;
    at(i + 1, i) = T(1);
    auto v = [&](int64_t r) { return at(r, i); };  // rows [i + 1, ihi)
    for (int64_t r = 0; r < ihi; ++r) {            // A H(i)
      T w = 0;
      for (int64_t c = i + 1; c < ihi; ++c) w += at(r, c) * v(c);
      for (int64_t c = i + 1; c < ihi; ++c) at(r, c) -= tau * w * Conj(v(c));
    }
    for (int64_t c = i + 1; c < n; ++c) {  // H(i)^H A
      T w = 0;
      for (int64_t r = i + 1; r < ihi; ++r) w += Conj(v(r)) * at(r, c);
      for (int64_t r = i + 1; r < ihi; ++r) at(r, c) -= Conj(tau) * v(r) * w;
    }
    at(i + 1, i) = alpha;
  }
}

// Reduces the Hermitian row-major n x n `a`, of which the `lower` (or
// upper) triangle is read, to real symmetric tridiagonal form T = Q^H A Q
// in place, as LAPACK's sytd2/hetd2: T's diagonal in d (n) and off
// diagonal in e (n - 1), both also written to a's diagonal and first
// sub- (super-) diagonal; the reflectors' tails below (above) that, taus
// in `taus`; the other triangle untouched.  Lower: H(i) has v zero up to
// i, one at i + 1, its tail in a[i + 2:, i], for i = 0 ... n - 2.  Upper:
// v one at i, zero after, its head in a[:i, i + 1], for i = n - 2 ... 0.
template <typename T, typename Real>
void Tridiagonal(T* a, int64_t n, bool lower, Real* d, Real* e, T* taus) {
  auto at = [&](int64_t r, int64_t c) -> T& { return a[r * n + c]; };
  if (n == 0) return;
  // Applies H = I - tau v v^H to both sides of the block [first, last)^2,
  // v's entries there stored in a's `column`.
  auto reduce = [&](int64_t first, int64_t last, int64_t column, T tau) {
    auto v = [&](int64_t r) { return at(r, column); };
    // x = tau A v over the block, reading the stored triangle only.
    auto element = [&](int64_t r, int64_t c) {
      const bool stored = lower ? r >= c : r <= c;
      return stored ? at(r, c) : Conj(at(c, r));
    };
    std::vector<T> w(last - first);
    for (int64_t r = first; r < last; ++r) {
      T sum = 0;
      for (int64_t c = first; c < last; ++c) {
        T entry = element(r, c);
        if (r == c) entry = T(RealPart(entry));
        sum += entry * v(c);
      }
      w[r - first] = tau * sum;
    }
    // w = x - tau / 2 (x^H v) v
    T dot = 0;
    for (int64_t r = first; r < last; ++r) dot += Conj(w[r - first]) * v(r);
    const T scale = T(-0.5) * tau * dot;
    for (int64_t r = first; r < last; ++r) w[r - first] += scale * v(r);
    // A -= v w^H + w v^H on the stored triangle (a real diagonal).
    for (int64_t r = first; r < last; ++r) {
      for (int64_t c = first; c < last; ++c) {
        if (lower ? r < c : r > c) continue;
        at(r, c) -= v(r) * Conj(w[c - first]) + w[r - first] * Conj(v(c));
        if (r == c) at(r, c) = T(RealPart(at(r, c)));
      }
    }
  };
  if (lower) {
    at(0, 0) = T(RealPart(at(0, 0)));
    for (int64_t i = 0; i + 1 < n; ++i) {
      T alpha = at(i + 1, i);
      const T tau = Reflector(alpha, a + std::min(i + 2, n - 1) * n + i, n - i - 2, n);
      e[i] = RealPart(alpha);
      if (tau != T(0)) {
        at(i + 1, i) = T(1);
        reduce(i + 1, n, i, tau);
      } else {
        at(i + 1, i + 1) = T(RealPart(at(i + 1, i + 1)));
      }
      at(i + 1, i) = T(e[i]);
      d[i] = RealPart(at(i, i));
      taus[i] = tau;
    }
    d[n - 1] = RealPart(at(n - 1, n - 1));
    return;
  }
  at(n - 1, n - 1) = T(RealPart(at(n - 1, n - 1)));
  for (int64_t i = n - 2; i >= 0; --i) {
    // larfg with alpha last: x = a[0:i, i + 1] (stride n), alpha a[i, i + 1].
    T alpha = at(i, i + 1);
    const T tau = Reflector(alpha, a + i + 1, i, n);
    e[i] = RealPart(alpha);
    if (tau != T(0)) {
      at(i, i + 1) = T(1);
      reduce(0, i + 1, i + 1, tau);
    } else {
      at(i, i) = T(RealPart(at(i, i)));
    }
    at(i, i + 1) = T(e[i]);
    d[i + 1] = RealPart(at(i + 1, i + 1));
    taus[i] = tau;
  }
  d[0] = RealPart(at(0, 0));
}

// LAPACK's gtsv on one system, step for step (linalg_op.h): the
// subdiagonal element under d[i] is dl[i + 1]; `x` is B's n rows of nrhs,
// row-major.  Returns info.
template <typename T>
int32_t TridiagonalSolve(T* dl, T* d, T* du, T* x, int64_t n, int64_t nrhs) {
  auto row = [&](int64_t i) { return x + i * nrhs; };
  for (int64_t i = 0; i + 1 < n; ++i) {
    T& sub = dl[i + 1];
    const bool last = i + 2 == n;  // no second superdiagonal element to make
    if (PivotScore(d[i]) >= PivotScore(sub)) {
      if (d[i] == T(0)) return static_cast<int32_t>(i + 1);
      const T factor = sub / d[i];
      d[i + 1] -= factor * du[i];
      for (int64_t j = 0; j < nrhs; ++j) row(i + 1)[j] -= factor * row(i)[j];
      if (!last) sub = T(0);
    } else {  // rows i and i + 1 swap
      const T factor = d[i] / sub;
      d[i] = sub;
      const T below = d[i + 1];
      d[i + 1] = du[i] - factor * below;
      if (!last) {
        sub = du[i + 1];
        du[i + 1] = -factor * sub;
      }
      du[i] = below;
      for (int64_t j = 0; j < nrhs; ++j) {
        const T upper = row(i)[j];
        row(i)[j] = row(i + 1)[j];
        row(i + 1)[j] = upper - factor * row(i + 1)[j];
      }
    }
  }
  if (n == 0) return 0;
  if (d[n - 1] == T(0)) return static_cast<int32_t>(n);
  for (int64_t j = 0; j < nrhs; ++j) {
    row(n - 1)[j] /= d[n - 1];
    if (n > 1) row(n - 2)[j] = (row(n - 2)[j] - du[n - 2] * row(n - 1)[j]) / d[n - 2];
    for (int64_t i = n - 3; i >= 0; --i) {
      row(i)[j] = (row(i)[j] - du[i] * row(i + 1)[j] - dl[i + 1] * row(i + 2)[j]) / d[i];
    }
  }
  return 0;
}

template <typename T>
absl::StatusOr<Literal> Evaluate(const HloInstruction& hlo, const LinalgOp& op, Operands operands) {
  const int64_t matrix = op.rows * op.cols;
  switch (op.kind) {
    case LinalgKind::kCholesky: {
      Literal factor = *operands[0];
      std::vector<int32_t> info(op.batch);
      absl::Span<T> data = factor.data<T>();
      for (int64_t b = 0; b < op.batch; ++b) {
        T* a = data.data() + b * matrix;
        info[b] = Cholesky(a, op.rows, op.lower);
        if (op.lapack) continue;
        // XLA's op: the other triangle zero, a failed matrix all NaN.
        for (int64_t i = 0; i < op.rows; ++i) {
          for (int64_t j = 0; j < op.cols; ++j) {
            if (info[b] != 0) {
              a[i * op.cols + j] = T(std::numeric_limits<double>::quiet_NaN());
            } else if (op.lower ? j > i : j < i) {
              a[i * op.cols + j] = T(0);
            }
          }
        }
      }
      if (!op.lapack) return factor;
      TS_ASSIGN_OR_RETURN(Literal info_literal, MakeLiteral(hlo.shape().tuple_shapes(1)));
      std::copy(info.begin(), info.end(), info_literal.data<int32_t>().begin());
      std::vector<Literal> results;
      results.push_back(std::move(factor));
      results.push_back(std::move(info_literal));
      return Literal::MakeTuple(std::move(results));
    }
    case LinalgKind::kLu: {
      Literal lu = *operands[0];
      TS_ASSIGN_OR_RETURN(Literal pivots, MakeLiteral(hlo.shape().tuple_shapes(1)));
      TS_ASSIGN_OR_RETURN(Literal info, MakeLiteral(hlo.shape().tuple_shapes(2)));
      const int64_t steps = std::min(op.rows, op.cols);
      for (int64_t b = 0; b < op.batch; ++b) {
        info.data<int32_t>()[b] = Lu(lu.data<T>().data() + b * matrix, op.rows, op.cols,
                                     pivots.data<int32_t>().data() + b * steps);
      }
      std::vector<Literal> results;
      results.push_back(std::move(lu));
      results.push_back(std::move(pivots));
      results.push_back(std::move(info));
      return Literal::MakeTuple(std::move(results));
    }
    case LinalgKind::kQr: {
      Literal qr = *operands[0];
      TS_ASSIGN_OR_RETURN(Literal taus, MakeLiteral(hlo.shape().tuple_shapes(1)));
      const int64_t steps = std::min(op.rows, op.cols);
      for (int64_t b = 0; b < op.batch; ++b) {
        Qr(qr.data<T>().data() + b * matrix, op.rows, op.cols, taus.data<T>().data() + b * steps);
      }
      std::vector<Literal> results;
      results.push_back(std::move(qr));
      results.push_back(std::move(taus));
      return Literal::MakeTuple(std::move(results));
    }
    case LinalgKind::kPivotedQr: {
      Literal qr = *operands[0];
      Literal jpvt = *operands[1];
      TS_ASSIGN_OR_RETURN(Literal taus, MakeLiteral(hlo.shape().tuple_shapes(2)));
      const int64_t steps = std::min(op.rows, op.cols);
      for (int64_t b = 0; b < op.batch; ++b) {
        PivotedQr(qr.data<T>().data() + b * matrix, op.rows, op.cols,
                  jpvt.data<int32_t>().data() + b * op.cols, taus.data<T>().data() + b * steps);
      }
      std::vector<Literal> results;
      results.push_back(std::move(qr));
      results.push_back(std::move(jpvt));
      results.push_back(std::move(taus));
      return Literal::MakeTuple(std::move(results));
    }
    case LinalgKind::kHouseholderProduct: {
      Literal q = *operands[0];
      for (int64_t b = 0; b < op.batch; ++b) {
        HouseholderProduct(q.data<T>().data() + b * matrix, op.rows, op.cols,
                           operands[1]->data<T>().data() + b * op.reflectors, op.reflectors);
      }
      return q;
    }
    case LinalgKind::kHermitianEigen:
    case LinalgKind::kSvd:
    case LinalgKind::kEigen:
    case LinalgKind::kSchur:
      return EvaluateSpectral(hlo, op, *operands[0]);
    case LinalgKind::kHessenberg: {
      Literal h = *operands[0];
      TS_ASSIGN_OR_RETURN(Literal taus, MakeLiteral(hlo.shape().tuple_shapes(1)));
      TS_ASSIGN_OR_RETURN(Literal info, MakeLiteral(hlo.shape().tuple_shapes(2)));
      const int64_t off = std::max<int64_t>(op.rows - 1, 0);
      for (int64_t b = 0; b < op.batch; ++b) {
        Hessenberg(h.data<T>().data() + b * matrix, op.rows, op.low, op.high,
                   taus.data<T>().data() + b * off);
        info.data<int32_t>()[b] = 0;
      }
      std::vector<Literal> results;
      results.push_back(std::move(h));
      results.push_back(std::move(taus));
      results.push_back(std::move(info));
      return Literal::MakeTuple(std::move(results));
    }
    case LinalgKind::kTridiagonal: {
      using Real = decltype(RealPart(T()));
      Literal t = *operands[0];
      std::vector<Literal> results;
      for (int k = 1; k < 5; ++k) {
        TS_ASSIGN_OR_RETURN(Literal result, MakeLiteral(hlo.shape().tuple_shapes(k)));
        results.push_back(std::move(result));
      }
      const int64_t n = op.rows, off = std::max<int64_t>(n - 1, 0);
      for (int64_t b = 0; b < op.batch; ++b) {
        Tridiagonal(
            t.data<T>().data() + b * matrix, n, op.lower, results[0].data<Real>().data() + b * n,
            results[1].data<Real>().data() + b * off, results[2].data<T>().data() + b * off);
        results[3].data<int32_t>()[b] = 0;
      }
      results.insert(results.begin(), std::move(t));
      return Literal::MakeTuple(std::move(results));
    }
    case LinalgKind::kTridiagonalSolve: {
      std::vector<Literal> results;
      for (int i = 0; i < 4; ++i) results.push_back(*operands[i]);
      TS_ASSIGN_OR_RETURN(Literal info, MakeLiteral(hlo.shape().tuple_shapes(4)));
      const int64_t n = op.rows;
      for (int64_t b = 0; b < op.batch; ++b) {
        info.data<int32_t>()[b] = TridiagonalSolve(
            results[0].data<T>().data() + b * n, results[1].data<T>().data() + b * n,
            results[2].data<T>().data() + b * n, results[3].data<T>().data() + b * matrix, n,
            op.cols);
      }
      results.push_back(std::move(info));
      return Literal::MakeTuple(std::move(results));
    }
    case LinalgKind::kTriangularSolve: {
      Literal x = *operands[1];
      const int64_t side = op.left_side ? op.rows : op.cols;
      for (int64_t b = 0; b < op.batch; ++b) {
        TriangularSolve(op, operands[0]->data<T>().data() + b * side * side,
                        x.data<T>().data() + b * matrix);
      }
      return x;
    }
  }
  return absl::InternalError("unknown linalg kind");
}

}  // namespace

absl::StatusOr<Literal> EvaluateLinalg(const HloInstruction& hlo, Operands operands) {
  TS_ASSIGN_OR_RETURN(LinalgOp op, DescribeLinalgOp(hlo));
  int64_t expected = 1;
  if (op.kind == LinalgKind::kTridiagonalSolve) {
    expected = 4;
  } else if (op.kind == LinalgKind::kTriangularSolve ||
             op.kind == LinalgKind::kHouseholderProduct || op.kind == LinalgKind::kPivotedQr) {
    expected = 2;
  }
  TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, expected));
  for (int64_t i = 0; i < expected; ++i) {
    TS_RETURN_IF_ERROR(ExpectArray(*operands[i], "an operand"));
    // (geqp3's jpvt is s32; every other operand is of the op's type.)
    if (operands[i]->shape().element_type() != hlo.operand(i)->shape().element_type() ||
        operands[i]->shape().dimensions() != hlo.operand(i)->shape().dimensions()) {
      return InvalidArgument(absl::StrCat("operand ", i, " is ", ShapeString(*operands[i]),
                                          ", not ", hlo.operand(i)->shape().ToString()));
    }
  }
  switch (op.type) {
    case F32:
      return Evaluate<float>(hlo, op, operands);
    case F64:
      return Evaluate<double>(hlo, op, operands);
    case C64:
      return Evaluate<complex64>(hlo, op, operands);
    case C128:
      return Evaluate<complex128>(hlo, op, operands);
    default:
      return InvalidArgument("linalg element type");
  }
}

}  // namespace evaluator_internal
}  // namespace tessera
