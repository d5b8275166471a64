// The Hermitian eigendecomposition (LAPACK's syevd, heevd) and the SVD
// (gesdd, gesvd) of hlo/analysis/linalg_op.h, by Jacobi rotations in the
// element type: cyclic two-sided Jacobi for the eigenproblem, one-sided
// (Hestenes) Jacobi for the SVD.  Slow (a few O(n^3) sweeps) but simple and
// accurate to about the element type's epsilon relative to the norm, so an
// oracle independent of the backends' LAPACK-style algorithms.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "hlo/analysis/linalg_op.h"
#include "hlo/evaluator/evaluator_internal.h"

namespace tessera {
namespace evaluator_internal {
namespace {

// Jacobi converges quadratically: a handful of sweeps; the cap only ends
// a run on input that cannot converge.
constexpr int kMaxSweeps = 60;

// A column-major n-column matrix: column j at data[j * rows].
template <typename T>
struct Columns {
  int64_t rows = 0, cols = 0;
  std::vector<T> data;
  Columns(int64_t r, int64_t c) : rows(r), cols(c), data(r * c, T(0)) {}
  T& operator()(int64_t i, int64_t j) { return data[j * rows + i]; }
  T operator()(int64_t i, int64_t j) const { return data[j * rows + i]; }
  T* column(int64_t j) { return data.data() + j * rows; }
};

template <typename T>
Columns<T> Identity(int64_t n) {
  Columns<T> m(n, n);
  for (int64_t i = 0; i < n; ++i) m(i, i) = T(1);
  return m;
}

// The plane rotation G = [[c, s e], [-s conj(e), c]] (e a unit phase, +-1
// when real) that diagonalizes the Hermitian 2 x 2 [[app, apq],
// [conj(apq), aqq]] as G^H M G: the real Jacobi angle of Golub and Van
// Loan (8.5.2) on |apq|, with the phase of apq moved into e.
template <typename T>
struct Rotation {
  using Real = decltype(RealPart(T()));
  Real c = 1, s = 0;
  T e = T(1);

  static Rotation For(Real app, Real aqq, T apq) {
    Rotation r;
    const Real g = std::abs(apq);
    r.e = apq / T(g);
    const Real theta = (aqq - app) / (2 * g);
    const Real t = (theta >= 0 ? 1 : -1) / (std::abs(theta) + std::hypot(Real(1), theta));
    r.c = 1 / std::sqrt(1 + t * t);
    r.s = t * r.c;
    return r;
  }

  // (x, y) <- (x, y) G: columns p and q of a matrix, element by element.
  void ApplyRight(T& x, T& y) const {
    const T xp = x, yq = y;
    x = T(c) * xp - T(s) * Conj(e) * yq;
    y = T(s) * e * xp + T(c) * yq;
  }
  // (x; y) <- G^H (x; y): rows p and q.
  void ApplyLeft(T& x, T& y) const {
    const T xp = x, yq = y;
    x = T(c) * xp - T(s) * e * yq;
    y = T(s) * Conj(e) * xp + T(c) * yq;
  }
};

template <typename T>
bool AllFinite(const T* data, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    if (!std::isfinite(RealPart(data[i])) || !std::isfinite(ImagPart(data[i]))) return false;
  }
  return true;
}

// Whether off-diagonal `apq` is negligible next to the diagonal (the
// relative criterion of Demmel and Veselic) at `tolerance`, or exactly zero.
template <typename Real, typename T>
bool Negligible(T apq, Real app, Real aqq, Real tolerance) {
  const Real g = std::abs(apq);
  return g == 0 || g <= tolerance * std::sqrt(std::abs(app) * std::abs(aqq));
}

// A = V diag(w) V^H for the n x n Hermitian `h` (both triangles filled):
// w ascending, V's columns the eigenvectors.  Returns whether it converged.
template <typename T>
bool HermitianEigen(Columns<T> h, std::vector<decltype(RealPart(T()))>& w, Columns<T>& v) {
  using Real = decltype(RealPart(T()));
  const int64_t n = h.rows;
  v = Identity<T>(n);
  bool converged = false;
  for (int sweep = 0; sweep < kMaxSweeps && !converged; ++sweep) {
    converged = true;
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        const Real app = RealPart(h(p, p)), aqq = RealPart(h(q, q));
        // Each rotation zeroes its pair exactly: half an epsilon is reached.
        if (Negligible(h(p, q), app, aqq, std::numeric_limits<Real>::epsilon() / 2)) continue;
        converged = false;
        const Rotation<T> g = Rotation<T>::For(app, aqq, h(p, q));
        for (int64_t k = 0; k < n; ++k) g.ApplyRight(h(k, p), h(k, q));
        for (int64_t k = 0; k < n; ++k) g.ApplyLeft(h(p, k), h(q, k));
        for (int64_t k = 0; k < n; ++k) g.ApplyRight(v(k, p), v(k, q));
        h(p, q) = h(q, p) = T(0);
        h(p, p) = T(RealPart(h(p, p)));
        h(q, q) = T(RealPart(h(q, q)));
      }
    }
  }
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t x, int64_t y) { return RealPart(h(x, x)) < RealPart(h(y, y)); });
  Columns<T> sorted(n, n);
  w.resize(n);
  for (int64_t j = 0; j < n; ++j) {
    w[j] = RealPart(h(order[j], order[j]));
    std::copy(v.column(order[j]), v.column(order[j]) + n, sorted.column(j));
  }
  v = std::move(sorted);
  return converged;
}

template <typename T>
auto Norm(const T* x, int64_t count) {
  decltype(RealPart(T())) sum = 0;
  for (int64_t i = 0; i < count; ++i) sum += RealPart(x[i] * Conj(x[i]));
  return std::sqrt(sum);
}

// Replaces column j of `u` (rows x cols, columns [0, j) orthonormal and
// `known[j']` saying which other ones are) with a unit vector orthogonal to
// all known columns: the unit vector e_i whose residual is largest after
// Gram-Schmidt (twice, for orthogonality to working precision).
template <typename T>
void CompleteColumn(Columns<T>& u, int64_t j, const std::vector<bool>& known) {
  std::vector<T> best, candidate(u.rows);
  decltype(RealPart(T())) best_norm = -1;
  for (int64_t i = 0; i < u.rows; ++i) {
    std::fill(candidate.begin(), candidate.end(), T(0));
    candidate[i] = T(1);
    for (int pass = 0; pass < 2; ++pass) {
      for (int64_t k = 0; k < u.cols; ++k) {
        if (!known[k]) continue;
        T dot = 0;
        for (int64_t r = 0; r < u.rows; ++r) dot += Conj(u(r, k)) * candidate[r];
        for (int64_t r = 0; r < u.rows; ++r) candidate[r] -= dot * u(r, k);
      }
    }
    const auto norm = Norm(candidate.data(), u.rows);
    if (norm > best_norm) {
      best_norm = norm;
      best = candidate;
    }
  }
  for (int64_t r = 0; r < u.rows; ++r) u(r, j) = best[r] / T(best_norm);
}

// A = U diag(s) V^H for the m x n `a` with m >= n by one-sided Jacobi:
// V's rotations make W = A V's columns orthogonal; s_j = |w_j|, U's
// columns w_j / s_j, completed to `u_cols` orthonormal columns.  s
// descending.  Returns whether it converged.
template <typename T>
bool TallSvd(Columns<T> w, int64_t u_cols, std::vector<decltype(RealPart(T()))>& s, Columns<T>& u,
             Columns<T>& v) {
  using Real = decltype(RealPart(T()));
  const int64_t m = w.rows, n = w.cols;
  v = Identity<T>(n);
  bool converged = false;
  for (int sweep = 0; sweep < kMaxSweeps && !converged; ++sweep) {
    converged = true;
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        // The Gram matrix's 2 x 2 block of columns p and q.
        Real alpha = 0, beta = 0;
        T gamma = 0;
        for (int64_t i = 0; i < m; ++i) {
          alpha += RealPart(w(i, p) * Conj(w(i, p)));
          beta += RealPart(w(i, q) * Conj(w(i, q)));
          gamma += Conj(w(i, p)) * w(i, q);
        }
        // gamma is a sum of m rounded products: below m epsilons it is noise.
        if (Negligible(gamma, alpha, beta, m * std::numeric_limits<Real>::epsilon())) continue;
        converged = false;
        const Rotation<T> g = Rotation<T>::For(alpha, beta, gamma);
        for (int64_t i = 0; i < m; ++i) g.ApplyRight(w(i, p), w(i, q));
        for (int64_t i = 0; i < n; ++i) g.ApplyRight(v(i, p), v(i, q));
      }
    }
  }
  std::vector<Real> norms(n);
  for (int64_t j = 0; j < n; ++j) norms[j] = Norm(w.column(j), m);
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t x, int64_t y) { return norms[x] > norms[y]; });
  s.resize(n);
  u = Columns<T>(m, u_cols);
  Columns<T> sorted_v(n, n);
  std::vector<bool> known(u_cols, false);
  for (int64_t j = 0; j < n; ++j) {
    s[j] = norms[order[j]];
    std::copy(v.column(order[j]), v.column(order[j]) + n, sorted_v.column(j));
    if (s[j] == 0) continue;
    for (int64_t i = 0; i < m; ++i) u(i, j) = w(i, order[j]) / T(s[j]);
    known[j] = true;
  }
  v = std::move(sorted_v);
  for (int64_t j = 0; j < u_cols; ++j) {
    if (known[j]) continue;
    CompleteColumn(u, j, known);
    known[j] = true;
  }
  return converged;
}

template <typename T>
void FillNaN(Literal& literal) {
  const T nan = T(std::numeric_limits<decltype(RealPart(T()))>::quiet_NaN());
  for (T& x : literal.data<T>()) x = nan;
}

template <typename T>
absl::StatusOr<Literal> HermitianEigenOf(const HloInstruction& hlo, const LinalgOp& op,
                                         const Literal& a) {
  using Real = decltype(RealPart(T()));
  const int64_t n = op.rows;
  Literal vectors = a;
  TS_ASSIGN_OR_RETURN(Literal values, MakeLiteral(hlo.shape().tuple_shapes(1)));
  TS_ASSIGN_OR_RETURN(Literal info, MakeLiteral(hlo.shape().tuple_shapes(2)));
  for (int64_t b = 0; b < op.batch; ++b) {
    const T* in = a.data<T>().data() + b * n * n;
    T* out = vectors.data<T>().data() + b * n * n;
    Real* w_out = values.data<Real>().data() + b * n;
    int32_t& status = info.data<int32_t>()[b];
    status = 0;
    if (!AllFinite(in, n * n)) {
      std::fill(out, out + n * n, T(std::numeric_limits<Real>::quiet_NaN()));
      std::fill(w_out, w_out + n, std::numeric_limits<Real>::quiet_NaN());
      continue;
    }
    // The triangle read, mirrored: h(i, j) = a(i, j) on it.
    Columns<T> h(n, n);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        const bool in_triangle = op.lower ? j <= i : j >= i;
        h(i, j) = in_triangle ? in[i * n + j] : Conj(in[j * n + i]);
      }
      h(i, i) = T(RealPart(h(i, i)));
    }
    std::vector<Real> w;
    Columns<T> v(n, n);
    if (!HermitianEigen(std::move(h), w, v)) status = 1;
    std::copy(w.begin(), w.end(), w_out);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) out[i * n + j] = v(i, j);
    }
  }
  std::vector<Literal> results;
  results.push_back(std::move(vectors));
  results.push_back(std::move(values));
  results.push_back(std::move(info));
  return Literal::MakeTuple(std::move(results));
}

template <typename T>
absl::StatusOr<Literal> SvdOf(const HloInstruction& hlo, const LinalgOp& op, const Literal& a) {
  using Real = decltype(RealPart(T()));
  const int64_t m = op.rows, n = op.cols, k = std::min(m, n);
  const Shape& u_shape = hlo.shape().tuple_shapes(2);
  const Shape& vt_shape = hlo.shape().tuple_shapes(3);
  const int64_t u_cols = u_shape.dimensions().back(),
                vt_rows = vt_shape.dimensions()[vt_shape.rank() - 2];
  TS_ASSIGN_OR_RETURN(Literal s_out, MakeLiteral(hlo.shape().tuple_shapes(1)));
  TS_ASSIGN_OR_RETURN(Literal u_out, MakeLiteral(u_shape));
  TS_ASSIGN_OR_RETURN(Literal vt_out, MakeLiteral(vt_shape));
  TS_ASSIGN_OR_RETURN(Literal info, MakeLiteral(hlo.shape().tuple_shapes(4)));
  for (int64_t b = 0; b < op.batch; ++b) {
    const T* in = a.data<T>().data() + b * m * n;
    Real* s = s_out.data<Real>().data() + b * k;
    T* u_data = u_out.data<T>().data() + b * m * u_cols;
    T* vt_data = vt_out.data<T>().data() + b * vt_rows * n;
    int32_t& status = info.data<int32_t>()[b];
    status = 0;
    if (!AllFinite(in, m * n)) {
      std::fill(s, s + k, std::numeric_limits<Real>::quiet_NaN());
      std::fill(u_data, u_data + m * u_cols, T(std::numeric_limits<Real>::quiet_NaN()));
      std::fill(vt_data, vt_data + vt_rows * n, T(std::numeric_limits<Real>::quiet_NaN()));
      continue;
    }
    // Tall: A itself; wide: A^H = V S U^H, so U and V trade places.
    const bool tall = m >= n;
    Columns<T> work(tall ? m : n, k);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        if (tall) {
          work(i, j) = in[i * n + j];
        } else {
          work(j, i) = Conj(in[i * n + j]);
        }
      }
    }
    std::vector<Real> values;
    Columns<T> left(0, 0), right(0, 0);
    // The long side's basis, with as many columns as its result wants.
    const int64_t long_cols = tall ? u_cols : vt_rows;
    if (!TallSvd(std::move(work), long_cols, values, left, right)) status = 1;
    std::copy(values.begin(), values.end(), s);
    if (!op.vectors) continue;  // u and vt stay zero
    // tall: U = left, V = right; wide: U = right, V = left.
    const Columns<T>& u = tall ? left : right;
    const Columns<T>& v = tall ? right : left;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < u_cols; ++j) u_data[i * u_cols + j] = u(i, j);
    }
    for (int64_t i = 0; i < vt_rows; ++i) {
      for (int64_t j = 0; j < n; ++j) vt_data[i * n + j] = Conj(v(j, i));
    }
  }
  std::vector<Literal> results;
  results.push_back(a);  // LAPACK destroys it: unspecified
  results.push_back(std::move(s_out));
  results.push_back(std::move(u_out));
  results.push_back(std::move(vt_out));
  results.push_back(std::move(info));
  return Literal::MakeTuple(std::move(results));
}

template <typename T>
absl::StatusOr<Literal> Spectral(const HloInstruction& hlo, const LinalgOp& op, const Literal& a) {
  if (op.kind == LinalgKind::kHermitianEigen) return HermitianEigenOf<T>(hlo, op, a);
  return SvdOf<T>(hlo, op, a);
}

}  // namespace

absl::StatusOr<Literal> EvaluateSpectral(const HloInstruction& hlo, const LinalgOp& op,
                                         const Literal& a) {
  switch (op.type) {
    case F32:
      return Spectral<float>(hlo, op, a);
    case F64:
      return Spectral<double>(hlo, op, a);
    case C64:
      return Spectral<complex64>(hlo, op, a);
    case C128:
      return Spectral<complex128>(hlo, op, a);
    default:
      return InvalidArgument("linalg element type");
  }
}

}  // namespace evaluator_internal
}  // namespace tessera
