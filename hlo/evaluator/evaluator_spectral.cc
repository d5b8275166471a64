// The Hermitian eigendecomposition (LAPACK's syevd, heevd) and the SVD
// (gesdd, gesvd) of hlo/analysis/linalg_op.h, by Jacobi rotations in the
// element type: cyclic two-sided Jacobi for the eigenproblem, one-sided
// (Hestenes) Jacobi for the SVD.  The general eigenproblem (geev) by the
// complex Schur form (Hessenberg reduction, shifted QR steps) and
// triangular eigenvectors, in complex arithmetic for every type; complex
// gees by the same Schur form.  Slow (a few O(n^3) sweeps) but
// simple and accurate to about the element type's epsilon relative to the norm, so an oracle
// independent of the backends' LAPACK-style algorithms.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <numeric>
#include <tuple>
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

// Z^H A Z upper Hessenberg in place of `t`, Z (set here) the product of
// the Householder reflections P = I - 2 v v^H / |v|^2 that map each column
// below its subdiagonal onto e1: the first stage of both Schur iterations.
template <typename T>
void ReduceToHessenberg(Columns<T>& t, Columns<T>& z) {
  using Real = decltype(RealPart(T()));
  const int64_t n = t.rows;
  z = Identity<T>(n);
  for (int64_t k = 0; k + 2 < n; ++k) {
    Real norm = 0;
    for (int64_t i = k + 1; i < n; ++i) norm += RealPart(t(i, k) * Conj(t(i, k)));
    norm = std::sqrt(norm);
    if (norm == 0) continue;
    std::vector<T> v(n, T(0));
    const T x0 = t(k + 1, k);
    const T phase = std::abs(x0) == 0 ? T(1) : x0 / T(std::abs(x0));
    for (int64_t i = k + 1; i < n; ++i) v[i] = t(i, k);
    v[k + 1] += phase * T(norm);
    Real v_norm = 0;
    for (int64_t i = k + 1; i < n; ++i) v_norm += RealPart(v[i] * Conj(v[i]));
    const T scale = T(2 / v_norm);
    for (int64_t j = 0; j < n; ++j) {  // t = P t
      T dot = 0;
      for (int64_t i = k + 1; i < n; ++i) dot += Conj(v[i]) * t(i, j);
      for (int64_t i = k + 1; i < n; ++i) t(i, j) -= scale * v[i] * dot;
    }
    for (Columns<T>* m : {&t, &z}) {  // t = t P, z = z P
      for (int64_t i = 0; i < n; ++i) {
        T dot = 0;
        for (int64_t j = k + 1; j < n; ++j) dot += (*m)(i, j) * v[j];
        for (int64_t j = k + 1; j < n; ++j) (*m)(i, j) -= scale * dot * Conj(v[j]);
      }
    }
    for (int64_t i = k + 2; i < n; ++i) t(i, k) = 0;
  }
}

// Applies the rotation G = [c s; -s c] as the similarity G T G^T to rows
// and columns p, p + 1 of `t` (rows over columns [from, n), columns over
// rows [0, to)) and as Z G^T to `z`.
template <typename Real>
void Rotate(Columns<Real>& t, Columns<Real>& z, int64_t p, Real c, Real s, int64_t from,
            int64_t to) {
  const int64_t n = t.rows;
  for (int64_t j = from; j < n; ++j) {
    const Real x = t(p, j), y = t(p + 1, j);
    t(p, j) = c * x + s * y;
    t(p + 1, j) = c * y - s * x;
  }
  for (Columns<Real>* m : {&t, &z}) {
    const int64_t rows = m == &z ? n : to;
    for (int64_t i = 0; i < rows; ++i) {
      const Real x = (*m)(i, p), y = (*m)(i, p + 1);
      (*m)(i, p) = c * x + s * y;
      (*m)(i, p + 1) = c * y - s * x;
    }
  }
}

// LAPACK's lanv2: the rotation (cs, sn) that makes the 2 x 2 block
// [a b; c d] upper triangular where its eigenvalues are real, or gives it
// equal diagonal entries and off-diagonal ones of opposite sign where they
// are complex; the block is replaced by the result.
template <typename Real>
void StandardizeBlock(Real& a, Real& b, Real& c, Real& d, Real& cs, Real& sn) {
  auto sign = [](Real x, Real y) { return std::copysign(std::abs(x), y); };
  cs = 1;
  sn = 0;
  if (c == 0) return;
  if (b == 0) {  // swap the rows and columns
    cs = 0;
    sn = 1;
    std::swap(a, d);
    b = -c;
    c = 0;
    return;
  }
  if (a - d == 0 && std::signbit(b) != std::signbit(c)) return;
  Real temp = a - d, p = temp / 2;
  const Real bcmax = std::max(std::abs(b), std::abs(c));
  const Real bcmis = std::min(std::abs(b), std::abs(c)) * sign(1, b) * sign(1, c);
  const Real scale = std::max(std::abs(p), bcmax);
  Real z = p / scale * p + bcmax / scale * bcmis;
  if (z >= 4 * std::numeric_limits<Real>::epsilon()) {  // real eigenvalues
    z = p + sign(std::sqrt(scale) * std::sqrt(z), p);
    a = d + z;
    d = d - bcmax / z * bcmis;
    const Real tau = std::hypot(c, z);
    cs = z / tau;
    sn = c / tau;
    b = b - c;
    c = 0;
    return;
  }
  // Complex (or nearly equal real) eigenvalues: equal diagonal entries.
  const Real sigma = b + c;
  const Real tau = std::hypot(sigma, temp);
  cs = std::sqrt((1 + std::abs(sigma) / tau) / 2);
  sn = -(p / (tau * cs)) * sign(1, sigma);
  const Real aa = a * cs + b * sn, bb = -a * sn + b * cs;
  const Real cc = c * cs + d * sn, dd = -c * sn + d * cs;
  a = aa * cs + cc * sn;
  b = bb * cs + dd * sn;
  c = -aa * sn + cc * cs;
  d = -bb * sn + dd * cs;
  temp = (a + d) / 2;
  a = d = temp;
  if (c == 0) return;
  if (b == 0) {
    b = -c;
    c = 0;
    temp = cs;
    cs = -sn;
    sn = temp;
    return;
  }
  if (std::signbit(b) == std::signbit(c)) {  // real after all: triangular
    const Real sab = std::sqrt(std::abs(b)), sac = std::sqrt(std::abs(c));
    p = sign(sab * sac, c);
    const Real t2 = 1 / std::sqrt(std::abs(b + c));
    a = temp + p;
    d = temp - p;
    b = b - c;
    c = 0;
    const Real cs1 = sab * t2, sn1 = sac * t2;
    temp = cs * cs1 - sn * sn1;
    sn = cs * sn1 + sn * cs1;
    cs = temp;
  }
}

// A = Z T Z^T, T quasi-upper-triangular (the real Schur form: 1 x 1
// blocks for real eigenvalues, standardized 2 x 2 ones for complex pairs),
// from the real n x n `t` in place: Householder reduction to Hessenberg
// form, then Francis double-shift QR sweeps with 3 x 3 reflectors (an
// exceptional shift every 10 steps without deflation).  Returns
// whether it converged.
template <typename Real>
bool RealSchur(Columns<Real>& t, Columns<Real>& z) {
  const int64_t n = t.rows;
  const Real eps = std::numeric_limits<Real>::epsilon();
  // P = I - 2 v v^T / |v|^2 on rows and columns [first, first + size),
  // v = (v0, v1, v2) (size 2 or 3): T = P T over columns [from, n), T = T P
  // over rows [0, to), Z = Z P.
  auto reflect = [&](int64_t first, int64_t size, const Real* v, int64_t from, int64_t to) {
    Real norm = 0;
    for (int64_t i = 0; i < size; ++i) norm += v[i] * v[i];
    if (norm == 0) return;
    const Real scale = 2 / norm;
    for (int64_t j = from; j < n; ++j) {
      Real dot = 0;
      for (int64_t i = 0; i < size; ++i) dot += v[i] * t(first + i, j);
      for (int64_t i = 0; i < size; ++i) t(first + i, j) -= scale * dot * v[i];
    }
    for (Columns<Real>* m : {&t, &z}) {
      const int64_t rows = m == &z ? n : to;
      for (int64_t r = 0; r < rows; ++r) {
        Real dot = 0;
        for (int64_t i = 0; i < size; ++i) dot += (*m)(r, first + i) * v[i];
        for (int64_t i = 0; i < size; ++i) (*m)(r, first + i) -= scale * dot * v[i];
      }
    }
  };
  ReduceToHessenberg(t, z);
  int64_t hi = n - 1, since_deflation = 0, steps = 0;
  while (hi >= 0) {
    int64_t l = hi;
    while (l > 0) {
      const Real scale = std::abs(t(l, l)) + std::abs(t(l - 1, l - 1));
      if (std::abs(t(l, l - 1)) <= eps * scale || t(l, l - 1) == 0) break;
      --l;
    }
    if (l > 0) t(l, l - 1) = 0;
    if (l == hi) {  // a 1 x 1 block
      --hi;
      since_deflation = 0;
      continue;
    }
    if (l == hi - 1) {  // a 2 x 2 block: standardized
      Real a = t(l, l), b = t(l, hi), c = t(hi, l), d = t(hi, hi), cs, sn;
      StandardizeBlock(a, b, c, d, cs, sn);
      Rotate(t, z, l, cs, sn, hi + 1, l);
      t(l, l) = a;
      t(l, hi) = b;
      t(hi, l) = c;
      t(hi, hi) = d;
      hi -= 2;
      since_deflation = 0;
      continue;
    }
    if (++steps > 100 * n) return false;
    ++since_deflation;
    // The shifts: the trailing 2 x 2's eigenvalues, by their sum and
    // product (every 10 steps without deflation, LAPACK lahqr's
    // exceptional ones: those of [h h - 0.4375 s; s h], h = t_hi,hi + 0.75 s).
    Real sum, product;
    if (since_deflation % 10 == 0) {
      const Real s = std::abs(t(hi, hi - 1)) + std::abs(t(hi - 1, hi - 2));
      const Real h = t(hi, hi) + Real(0.75) * s;
      sum = 2 * h;
      product = h * h + Real(0.4375) * s * s;
    } else {
      sum = t(hi - 1, hi - 1) + t(hi, hi);
      product = t(hi - 1, hi - 1) * t(hi, hi) - t(hi - 1, hi) * t(hi, hi - 1);
    }
    // The first column of (T - s1)(T - s2), then the bulge chased down.
    Real x = t(l, l) * t(l, l) + t(l, l + 1) * t(l + 1, l) - sum * t(l, l) + product;
    Real y = t(l + 1, l) * (t(l, l) + t(l + 1, l + 1) - sum);
    Real w = t(l + 1, l) * t(l + 2, l + 1);
    for (int64_t k = l; k < hi; ++k) {
      const int64_t size = std::min<int64_t>(3, hi - k + 1);
      if (k > l) {
        x = t(k, k - 1);
        y = t(k + 1, k - 1);
        w = size == 3 ? t(k + 2, k - 1) : 0;
      }
      const Real norm = std::sqrt(x * x + y * y + w * w);
      if (norm == 0) continue;
      const Real v[3] = {x + std::copysign(norm, x), y, w};
      reflect(k, size, v, k > l ? k - 1 : k, std::min(k + 4, hi + 1));
      if (k > l) {
        t(k + 1, k - 1) = 0;
        if (size == 3) t(k + 2, k - 1) = 0;
      }
    }
  }
  return true;
}

// A = Z T Z^H, T upper triangular (the complex Schur form), from the n x n
// `t` in place: Householder reduction to Hessenberg form, then single-shift
// QR steps (Wilkinson's shift, an exceptional one every 10 steps without
// deflation) chasing the bulge with Givens rotations.  Returns whether it
// converged.
template <typename C>
bool ComplexSchur(Columns<C>& t, Columns<C>& z) {
  using Real = typename C::value_type;
  const int64_t n = t.rows;
  const Real eps = std::numeric_limits<Real>::epsilon();
  ReduceToHessenberg(t, z);
  int64_t hi = n - 1, since_deflation = 0, steps = 0;
  while (hi > 0) {
    int64_t l = hi;
    while (l > 0) {
      Real scale = std::abs(t(l, l)) + std::abs(t(l - 1, l - 1));
      if (std::abs(t(l, l - 1)) <= eps * scale || std::abs(t(l, l - 1)) == 0) break;
      --l;
    }
    if (l > 0) t(l, l - 1) = 0;
    if (l == hi) {
      --hi;
      since_deflation = 0;
      continue;
    }
    if (++steps > 100 * n) return false;
    ++since_deflation;
    C shift;
    if (since_deflation % 10 == 0) {
      shift = t(hi, hi) + C(Real(0.75) * std::abs(t(hi, hi - 1)));
    } else {
      // The eigenvalue of the trailing 2 x 2 nearer its last diagonal entry.
      const C a = t(hi - 1, hi - 1), b = t(hi - 1, hi), c = t(hi, hi - 1), d = t(hi, hi);
      const C half = (a - d) / C(2);
      C root = std::sqrt(half * half + b * c);
      if (std::real(std::conj(half) * root) < 0) root = -root;
      shift = d - b * c / (half + root == C(0) ? C(eps) : half + root);
    }
    C x = t(l, l) - shift, y = t(l + 1, l);
    for (int64_t k = l; k < hi; ++k) {
      if (k > l) {
        x = t(k, k - 1);
        y = t(k + 1, k - 1);
      }
      // G = [[c, s], [-conj(s), c]] with G (x, y) = (r, 0).
      const Real r = std::hypot(std::abs(x), std::abs(y));
      if (r == 0) continue;
      Real c;
      C s;
      if (std::abs(x) == 0) {
        c = 0;
        s = std::conj(y) / C(std::abs(y));
      } else {
        c = std::abs(x) / r;
        s = x / C(std::abs(x)) * std::conj(y) / C(r);
      }
      for (int64_t j = k > l ? k - 1 : k; j < n; ++j) {  // rows k, k+1: G t
        const C p = t(k, j), q = t(k + 1, j);
        t(k, j) = C(c) * p + s * q;
        t(k + 1, j) = -std::conj(s) * p + C(c) * q;
      }
      if (k > l) t(k + 1, k - 1) = 0;
      const int64_t last = std::min(k + 2, hi);
      for (Columns<C>* m : {&t, &z}) {  // columns k, k+1: t G^H, z G^H
        const int64_t rows = m == &z ? n - 1 : last;
        for (int64_t i = 0; i <= rows; ++i) {
          const C p = (*m)(i, k), q = (*m)(i, k + 1);
          (*m)(i, k) = C(c) * p + std::conj(s) * q;
          (*m)(i, k + 1) = -s * p + C(c) * q;
        }
      }
    }
  }
  return true;
}

// Scales `v` (n) to unit norm with its largest component (the first of
// largest modulus) real and positive.
template <typename C>
void NormalizeEigenvector(std::vector<C>& v) {
  using Real = typename C::value_type;
  Real norm = 0;
  int64_t largest = 0;
  for (int64_t i = 0; i < static_cast<int64_t>(v.size()); ++i) {
    norm += std::norm(v[i]);
    if (std::abs(v[i]) > std::abs(v[largest])) largest = i;
  }
  if (norm == 0) return;
  const C scale = std::conj(v[largest]) / C(std::abs(v[largest]) * std::sqrt(norm));
  for (C& x : v) x *= scale;
  v[largest] = C(std::real(v[largest]));
}

// Eigenvector k of A = Z T Z^H: right (A v = t_kk v) from T's upper
// triangle by back substitution, or left (u^H A = t_kk u^H) forward, as
// LAPACK's trevc; a zero divisor (a repeated eigenvalue) is replaced by
// epsilon |t_kk|, as trevc does.
template <typename C>
std::vector<C> Eigenvector(const Columns<C>& t, const Columns<C>& z, int64_t k, bool left) {
  using Real = typename C::value_type;
  const int64_t n = t.rows;
  const C lambda = t(k, k);
  const Real smallest = std::max(std::numeric_limits<Real>::epsilon() * std::abs(lambda),
                                 std::numeric_limits<Real>::min());
  auto divide = [&](C sum, C d) {
    if (std::abs(d) < smallest) d = C(smallest);
    return -sum / d;
  };
  std::vector<C> x(n, C(0));
  x[k] = 1;
  if (left) {
    for (int64_t i = k + 1; i < n; ++i) {
      C sum = 0;
      for (int64_t j = k; j < i; ++j) sum += std::conj(t(j, i)) * x[j];
      x[i] = divide(sum, std::conj(t(i, i) - lambda));
    }
  } else {
    for (int64_t i = k - 1; i >= 0; --i) {
      C sum = 0;
      for (int64_t j = i + 1; j <= k; ++j) sum += t(i, j) * x[j];
      x[i] = divide(sum, t(i, i) - lambda);
    }
  }
  std::vector<C> v(n, C(0));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) v[i] += z(i, j) * x[j];
  }
  NormalizeEigenvector(v);
  return v;
}

template <typename T>
absl::StatusOr<Literal> GeneralEigenOf(const HloInstruction& hlo, const LinalgOp& op,
                                       const Literal& a) {
  using Real = decltype(RealPart(T()));
  using C = std::complex<Real>;
  const int64_t n = op.rows;
  constexpr bool kComplex = kIsComplex<T>;
  std::vector<Literal> results;
  for (int64_t i = 0; i < hlo.shape().tuple_size(); ++i) {
    TS_ASSIGN_OR_RETURN(Literal result, MakeLiteral(hlo.shape().tuple_shapes(i)));
    results.push_back(std::move(result));
  }
  Literal& info = results.back();
  Literal& left = results[kComplex ? 1 : 2];
  Literal& right = results[kComplex ? 2 : 3];
  for (int64_t b = 0; b < op.batch; ++b) {
    const T* in = a.data<T>().data() + b * n * n;
    std::vector<C> w(n);
    Columns<C> t(n, n), z(n, n);
    Real frobenius = 0;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        t(i, j) = C(in[i * n + j]);
        frobenius += std::norm(t(i, j));
      }
    }
    const bool finite = AllFinite(in, n * n);
    const bool converged = finite && ComplexSchur(t, z);
    info.data<int32_t>()[b] = finite && !converged ? 1 : 0;
    for (int64_t k = 0; k < n; ++k) {
      w[k] = converged ? t(k, k) : C(std::numeric_limits<Real>::quiet_NaN());
      // Real input: an eigenvalue within rounding of the real axis is real.
      if (!kComplex && std::abs(std::imag(w[k])) <=
                           n * std::numeric_limits<Real>::epsilon() * std::sqrt(frobenius)) {
        w[k] = C(std::real(w[k]));
      }
    }
    for (int64_t k = 0; k < n; ++k) {
      if constexpr (kComplex) {
        results[0].data<T>()[b * n + k] = w[k];
      } else {
        results[0].data<T>()[b * n + k] = std::real(w[k]);
        results[1].data<T>()[b * n + k] = std::imag(w[k]);
      }
      for (const auto& [wanted, side, is_left] :
           {std::tuple{op.left_vectors, &left, true}, std::tuple{op.vectors, &right, false}}) {
        if (!wanted) continue;
        std::vector<C> v = converged ? Eigenvector(t, z, k, is_left)
                                     : std::vector<C>(n, C(std::numeric_limits<Real>::quiet_NaN()));
        if (!kComplex && std::imag(w[k]) == 0) {
          for (C& x : v) x = C(std::real(x));
        }
        for (int64_t i = 0; i < n; ++i) side->template data<C>()[b * n * n + i * n + k] = v[i];
      }
    }
  }
  return Literal::MakeTuple(std::move(results));
}

// gees: (T, Z, w, sdim, info) from ComplexSchur for complex input, (T, Z,
// wr, wi, sdim, info) from RealSchur for real input, the eigenvalues read
// off T's blocks.
template <typename T>
absl::StatusOr<Literal> SchurOf(const HloInstruction& hlo, const LinalgOp& op, const Literal& a) {
  using Real = decltype(RealPart(T()));
  constexpr bool kComplex = kIsComplex<T>;
  const int64_t n = op.rows;
  std::vector<Literal> results;
  for (int64_t i = 0; i < hlo.shape().tuple_size(); ++i) {
    TS_ASSIGN_OR_RETURN(Literal result, MakeLiteral(hlo.shape().tuple_shapes(i)));
    results.push_back(std::move(result));
  }
  const Real nan = std::numeric_limits<Real>::quiet_NaN();
  Literal& info = results.back();
  for (int64_t b = 0; b < op.batch; ++b) {
    const T* in = a.data<T>().data() + b * n * n;
    Columns<T> t(n, n), z(n, n);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) t(i, j) = in[i * n + j];
    }
    const bool finite = AllFinite(in, n * n);
    bool converged = false;
    if (finite) {
      if constexpr (kComplex) {
        converged = ComplexSchur(t, z);
      } else {
        converged = RealSchur(t, z);
      }
    }
    info.data<int32_t>()[b] = finite && !converged ? 1 : 0;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        results[0].data<T>()[b * n * n + i * n + j] = finite ? t(i, j) : T(nan);
        if (op.vectors) results[1].data<T>()[b * n * n + i * n + j] = finite ? z(i, j) : T(nan);
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (kComplex) {
        results[2].data<T>()[b * n + i] = finite ? t(i, i) : T(nan, nan);
      } else {
        // A 2 x 2 block [a b; c a] (standardized) holds a +- i sqrt(|b c|).
        Real re = t(i, i), im = 0;
        if (i + 1 < n && t(i + 1, i) != 0) {
          im = std::sqrt(std::abs(t(i, i + 1))) * std::sqrt(std::abs(t(i + 1, i)));
        } else if (i > 0 && t(i, i - 1) != 0) {
          im = -std::sqrt(std::abs(t(i - 1, i))) * std::sqrt(std::abs(t(i, i - 1)));
        }
        results[2].data<T>()[b * n + i] = finite ? re : nan;
        results[3].data<T>()[b * n + i] = finite ? im : nan;
      }
    }
  }
  return Literal::MakeTuple(std::move(results));
}

template <typename T>
absl::StatusOr<Literal> Spectral(const HloInstruction& hlo, const LinalgOp& op, const Literal& a) {
  if (op.kind == LinalgKind::kHermitianEigen) return HermitianEigenOf<T>(hlo, op, a);
  if (op.kind == LinalgKind::kEigen) return GeneralEigenOf<T>(hlo, op, a);
  if (op.kind == LinalgKind::kSchur) return SchurOf<T>(hlo, op, a);
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
