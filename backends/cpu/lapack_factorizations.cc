// LAPACK's syevd/heevd, gesdd and geev on raw column-major matrices; see
// lapack_factorizations.h.
#include "backends/cpu/lapack_factorizations.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace tessera {
namespace cpu {
namespace factorizations_lapack {
namespace {

using lapack::Int;

template <typename T>
constexpr bool kComplex = !std::is_floating_point_v<T>;

// The routines for element type T.
template <typename T>
struct Select;
template <>
struct Select<float> {
  static auto Solve(const lapack::Routines& r) { return r.strsm; }
  static auto Tridiagonal(const lapack::Routines& r) { return r.sgtsv; }
  static auto Hessenberg(const lapack::Routines& r) { return r.sgehrd; }
  static auto Condense(const lapack::Routines& r) { return r.ssytrd; }
  static auto Lu(const lapack::Routines& r) { return r.sgetrf; }
  static auto PivotedQr(const lapack::Routines& r) { return r.sgeqp3; }
  static auto Eigen(const lapack::Routines& r) { return r.ssyevd; }
  static auto Svd(const lapack::Routines& r) { return r.sgesdd; }
  static auto General(const lapack::Routines& r) { return r.sgeev; }
};
template <>
struct Select<double> {
  static auto Solve(const lapack::Routines& r) { return r.dtrsm; }
  static auto Tridiagonal(const lapack::Routines& r) { return r.dgtsv; }
  static auto Hessenberg(const lapack::Routines& r) { return r.dgehrd; }
  static auto Condense(const lapack::Routines& r) { return r.dsytrd; }
  static auto Lu(const lapack::Routines& r) { return r.dgetrf; }
  static auto PivotedQr(const lapack::Routines& r) { return r.dgeqp3; }
  static auto Eigen(const lapack::Routines& r) { return r.dsyevd; }
  static auto Svd(const lapack::Routines& r) { return r.dgesdd; }
  static auto General(const lapack::Routines& r) { return r.dgeev; }
};
template <>
struct Select<std::complex<float>> {
  static auto Solve(const lapack::Routines& r) { return r.ctrsm; }
  static auto Tridiagonal(const lapack::Routines& r) { return r.cgtsv; }
  static auto Hessenberg(const lapack::Routines& r) { return r.cgehrd; }
  static auto Condense(const lapack::Routines& r) { return r.chetrd; }
  static auto Lu(const lapack::Routines& r) { return r.cgetrf; }
  static auto PivotedQr(const lapack::Routines& r) { return r.cgeqp3; }
  static auto Eigen(const lapack::Routines& r) { return r.cheevd; }
  static auto Svd(const lapack::Routines& r) { return r.cgesdd; }
  static auto General(const lapack::Routines& r) { return r.cgeev; }
};
template <>
struct Select<std::complex<double>> {
  static auto Solve(const lapack::Routines& r) { return r.ztrsm; }
  static auto Tridiagonal(const lapack::Routines& r) { return r.zgtsv; }
  static auto Hessenberg(const lapack::Routines& r) { return r.zgehrd; }
  static auto Condense(const lapack::Routines& r) { return r.zhetrd; }
  static auto Lu(const lapack::Routines& r) { return r.zgetrf; }
  static auto PivotedQr(const lapack::Routines& r) { return r.zgeqp3; }
  static auto Eigen(const lapack::Routines& r) { return r.zheevd; }
  static auto Svd(const lapack::Routines& r) { return r.zgesdd; }
  static auto General(const lapack::Routines& r) { return r.zgeev; }
};

template <typename Real>
Real NaN() {
  return std::numeric_limits<Real>::quiet_NaN();
}

// A workspace size as a query returned it (in a floating-point element),
// rounded up: a float cannot hold every integer above 2^24.
template <typename T>
Int WorkspaceSize(T queried) {
  const double size = static_cast<double>(std::real(queried));
  return static_cast<Int>(std::ceil(size * (1 + 1e-6)));
}

template <typename T>
bool AllFinite(const T* data, int64_t count) {
  return std::all_of(data, data + count, [](const T& x) {
    return std::isfinite(std::real(x)) && std::isfinite(std::imag(x));
  });
}

// Scales column `v` (n) to unit norm with its largest component (the first
// of largest modulus) real and positive, as eigen_factorizations does;
// LAPACK's geev leaves that component real but of either sign.
template <typename C>
void NormalizeEigenvector(int64_t n, C* v) {
  // Squared moduli: geev's vectors have unit norm already, so the sum
  // cannot overflow, and the comparisons need no square roots.
  int64_t largest = 0;
  typename C::value_type squares = 0;
  for (int64_t i = 0; i < n; ++i) {
    squares += std::norm(v[i]);
    if (std::norm(v[i]) > std::norm(v[largest])) largest = i;
  }
  if (squares == 0) return;
  const C scale = std::conj(v[largest]) / (std::abs(v[largest]) * std::sqrt(squares));
  for (int64_t i = 0; i < n; ++i) v[i] *= scale;
  v[largest] = std::real(v[largest]);
}

// Real geev's vectors to complex ones: a real eigenvalue's column is its
// vector; a pair's columns k, k+1 hold the real and imaginary parts of the
// first one's vector, the second's being its conjugate.
template <typename Real>
void ExpandRealEigenvectors(int64_t n, const std::vector<Real>& imaginary,
                            const std::vector<Real>& packed, std::complex<Real>* out) {
  for (int64_t k = 0; k < n; ++k) {
    const Real* column = packed.data() + k * n;
    if (imaginary[k] == 0 || k + 1 == n) {
      for (int64_t i = 0; i < n; ++i) out[k * n + i] = column[i];
      continue;
    }
    const Real* next = column + n;
    for (int64_t i = 0; i < n; ++i) {
      out[k * n + i] = {column[i], next[i]};
      out[(k + 1) * n + i] = {column[i], -next[i]};
    }
    ++k;
  }
}

}  // namespace

bool Fits(int64_t m, int64_t n) {
  const int64_t k = std::min(m, n), larger = std::max(m, n);
  // Above every workspace the routines here ask for (gesdd's largest).
  const double bound =
      8.0 * (static_cast<double>(k) * k + static_cast<double>(larger) * k + larger);
  return bound < std::numeric_limits<Int>::max();
}

template <typename T>
void TriangularSolve(const lapack::Routines& lapack, bool left_side, bool lower, char transpose,
                     bool unit_diagonal, int64_t m, int64_t n, const T* a, T* b, int64_t ldb) {
  if (m == 0 || n == 0) return;
  const char side = left_side ? 'L' : 'R', uplo = lower ? 'L' : 'U';
  const char diag = unit_diagonal ? 'U' : 'N';
  const Int rows = m, cols = n, lda = left_side ? m : n, b_stride = ldb;
  const T one = 1;
  Select<T>::Solve(lapack)(&side, &uplo, &transpose, &diag, &rows, &cols, &one, a, &lda, b,
                           &b_stride, 1, 1, 1, 1);
}

template <typename C>
bool Schur(const lapack::Routines& lapack, int64_t n, C* a, bool vectors, C* z, C* w) {
  using Real = typename C::value_type;
  std::fill(z, z + n * n, C(0));
  if (n == 0) return true;
  if (!AllFinite(a, n * n)) {
    const C nan(NaN<Real>(), NaN<Real>());
    std::fill(a, a + n * n, nan);
    std::fill(w, w + n, nan);
    if (vectors) std::fill(z, z + n * n, nan);
    return true;
  }
  const char jobvs = vectors ? 'V' : 'N', sort = 'N';
  const Int order = n, query = -1;
  Int info = 0, sdim = 0;
  C work_size = 0;
  std::vector<Real> rwork(n);
  std::vector<Int> bwork(n);
  const auto gees = [&] {
    if constexpr (std::is_same_v<C, std::complex<float>>) {
      return lapack.cgees;
    } else {
      return lapack.zgees;
    }
  }();
  gees(&jobvs, &sort, nullptr, &order, a, &order, &sdim, w, z, &order, &work_size, &query,
       rwork.data(), bwork.data(), &info, 1, 1);
  const Int lwork = std::max<Int>(1, WorkspaceSize(work_size));
  std::vector<C> work(lwork);
  gees(&jobvs, &sort, nullptr, &order, a, &order, &sdim, w, z, &order, work.data(), &lwork,
       rwork.data(), bwork.data(), &info, 1, 1);
  return info == 0;
}

template <typename T>
bool RealSchur(const lapack::Routines& lapack, int64_t n, T* a, bool vectors, T* z, T* wr, T* wi) {
  std::fill(z, z + n * n, T(0));
  if (n == 0) return true;
  if (!AllFinite(a, n * n)) {
    std::fill(a, a + n * n, NaN<T>());
    std::fill(wr, wr + n, NaN<T>());
    std::fill(wi, wi + n, NaN<T>());
    if (vectors) std::fill(z, z + n * n, NaN<T>());
    return true;
  }
  const char jobvs = vectors ? 'V' : 'N', sort = 'N';
  const Int order = n, query = -1;
  Int info = 0, sdim = 0;
  T work_size = 0;
  std::vector<Int> bwork(n);
  const auto gees = [&] {
    if constexpr (std::is_same_v<T, float>) {
      return lapack.sgees;
    } else {
      return lapack.dgees;
    }
  }();
  gees(&jobvs, &sort, nullptr, &order, a, &order, &sdim, wr, wi, z, &order, &work_size, &query,
       bwork.data(), &info, 1, 1);
  const Int lwork = std::max<Int>(1, WorkspaceSize(work_size));
  std::vector<T> work(lwork);
  gees(&jobvs, &sort, nullptr, &order, a, &order, &sdim, wr, wi, z, &order, work.data(), &lwork,
       bwork.data(), &info, 1, 1);
  return info == 0;
}

template <typename T>
void Hessenberg(const lapack::Routines& lapack, int64_t n, int64_t low, int64_t high, T* a,
                T* taus) {
  if (n == 0) return;
  const Int order = n, ilo = low, ihi = high, query = -1;
  Int info = 0;
  T work_size = 0, unused_tau = 0;
  if (n == 1) taus = &unused_tau;  // no reflectors, but a valid address
  const auto reduce = Select<T>::Hessenberg(lapack);
  reduce(&order, &ilo, &ihi, a, &order, taus, &work_size, &query, &info);
  const Int lwork = std::max<Int>(1, WorkspaceSize(work_size));
  std::vector<T> work(lwork);
  reduce(&order, &ilo, &ihi, a, &order, taus, work.data(), &lwork, &info);
}

template <typename T, typename Real>
void Tridiagonal(const lapack::Routines& lapack, bool lower, int64_t n, T* a, Real* d, Real* e,
                 T* taus) {
  if (n == 0) return;
  const char uplo = lower ? 'L' : 'U';
  const Int order = n, query = -1;
  Int info = 0;
  T work_size = 0, unused_tau = 0;
  Real unused_e = 0;
  if (n == 1) {  // no off diagonal, but valid addresses
    taus = &unused_tau;
    e = &unused_e;
  }
  const auto reduce = Select<T>::Condense(lapack);
  reduce(&uplo, &order, a, &order, d, e, taus, &work_size, &query, &info, 1);
  const Int lwork = std::max<Int>(1, WorkspaceSize(work_size));
  std::vector<T> work(lwork);
  reduce(&uplo, &order, a, &order, d, e, taus, work.data(), &lwork, &info, 1);
  // LAPACK puts T on a's diagonals, but OpenBLAS's her2k (the blocked
  // hetrd's update) leaves the imaginary parts that it assumes zero on the
  // diagonal as they came: T is written again.
  for (int64_t i = 0; i < n; ++i) a[i * n + i] = d[i];
  for (int64_t i = 0; i + 1 < n; ++i) a[lower ? i * n + i + 1 : (i + 1) * n + i] = e[i];
}

template <typename T>
int32_t TridiagonalSolve(const lapack::Routines& lapack, int64_t n, int64_t nrhs, T* dl, T* d,
                         T* du, T* b) {
  if (n == 0) return 0;
  // OpenBLAS's gtsv touches B even with no right-hand sides (it faulted on
  // an empty one); it still factors, so it runs on a scratch column.
  std::vector<T> scratch;
  if (nrhs == 0) {
    scratch.resize(n);
    b = scratch.data();
  }
  const Int order = n, columns = nrhs;
  Int info = 0;
  Select<T>::Tridiagonal(lapack)(&order, &columns, dl, d, du, b, &order, &info);
  return info;
}

template <typename T>
void PivotedQr(const lapack::Routines& lapack, int64_t m, int64_t n, T* a, int32_t* jpvt, T* taus) {
  if (m == 0 || n == 0) return;  // LAPACK returns before reading jpvt
  const Int rows = m, cols = n, query = -1;
  Int info = 0;
  T work_size = 0;
  const auto factor = Select<T>::PivotedQr(lapack);
  if constexpr (kComplex<T>) {
    std::vector<decltype(std::real(T()))> rwork(2 * n);
    factor(&rows, &cols, a, &rows, jpvt, taus, &work_size, &query, rwork.data(), &info);
    const Int lwork = std::max<Int>(1, WorkspaceSize(work_size));
    std::vector<T> work(lwork);
    factor(&rows, &cols, a, &rows, jpvt, taus, work.data(), &lwork, rwork.data(), &info);
  } else {
    factor(&rows, &cols, a, &rows, jpvt, taus, &work_size, &query, &info);
    const Int lwork = std::max<Int>(1, WorkspaceSize(work_size));
    std::vector<T> work(lwork);
    factor(&rows, &cols, a, &rows, jpvt, taus, work.data(), &lwork, &info);
  }
}

template <typename T>
int32_t Lu(const lapack::Routines& lapack, int64_t m, int64_t n, T* a, int32_t* pivots) {
  if (m == 0 || n == 0) return 0;
  const Int rows = m, cols = n;
  Int info = 0;
  Select<T>::Lu(lapack)(&rows, &cols, a, &rows, pivots, &info);
  return info;
}

template <typename T, typename Real>
bool HermitianEigen(const lapack::Routines& lapack, int64_t n, T* a, Real* w, bool vectors) {
  if (n == 0) return true;
  bool finite = true;
  for (int64_t j = 0; j < n && finite; ++j) finite = AllFinite(a + j * n + j, n - j);
  if (!finite) {
    std::fill(a, a + n * n, T(NaN<Real>()));
    std::fill(w, w + n, NaN<Real>());
    return true;
  }
  const char jobz = vectors ? 'V' : 'N', uplo = 'L';
  const Int order = n;
  Int info = 0, query = -1, iwork_size = 0;
  T work_size = 0;
  const auto solve = Select<T>::Eigen(lapack);
  if constexpr (kComplex<T>) {
    Real rwork_size = 0;
    solve(&jobz, &uplo, &order, a, &order, w, &work_size, &query, &rwork_size, &query, &iwork_size,
          &query, &info, 1, 1);
    const Int lwork = WorkspaceSize(work_size), lrwork = WorkspaceSize(rwork_size);
    std::vector<T> work(lwork);
    std::vector<Real> rwork(lrwork);
    std::vector<Int> iwork(iwork_size);
    solve(&jobz, &uplo, &order, a, &order, w, work.data(), &lwork, rwork.data(), &lrwork,
          iwork.data(), &iwork_size, &info, 1, 1);
  } else {
    solve(&jobz, &uplo, &order, a, &order, w, &work_size, &query, &iwork_size, &query, &info, 1, 1);
    const Int lwork = WorkspaceSize(work_size);
    std::vector<T> work(lwork);
    std::vector<Int> iwork(iwork_size);
    solve(&jobz, &uplo, &order, a, &order, w, work.data(), &lwork, iwork.data(), &iwork_size, &info,
          1, 1);
  }
  return info == 0;
}

template <typename T, typename Real>
bool Svd(const lapack::Routines& lapack, int64_t m, int64_t n, const T* a, Real* s, bool vectors,
         int64_t u_cols, T* u, int64_t vt_rows, T* vt) {
  const int64_t k = std::min(m, n);
  std::fill(u, u + m * u_cols, T(0));
  std::fill(vt, vt + vt_rows * n, T(0));
  if (k == 0) return true;
  if (!AllFinite(a, m * n)) {
    std::fill(s, s + k, NaN<Real>());
    if (vectors) {
      std::fill(u, u + m * u_cols, T(NaN<Real>()));
      std::fill(vt, vt + vt_rows * n, T(NaN<Real>()));
    }
    return true;
  }
  std::vector<T> copy(a, a + m * n);  // gesdd destroys its operand
  const char jobz = !vectors ? 'N' : (u_cols == m && vt_rows == n ? 'A' : 'S');
  const Int rows = m, cols = n, ldu = std::max<int64_t>(1, m);
  const Int ldvt = std::max<int64_t>(1, vt_rows);
  Int info = 0, query = -1;
  std::vector<Int> iwork(8 * k);
  T work_size = 0;
  const auto solve = Select<T>::Svd(lapack);
  if constexpr (kComplex<T>) {
    const int64_t larger = std::max(m, n);
    std::vector<Real> rwork(vectors ? std::max(5 * k * k + 5 * k, 2 * larger * k + 2 * k * k + k)
                                    : 7 * k);
    solve(&jobz, &rows, &cols, copy.data(), &rows, s, u, &ldu, vt, &ldvt, &work_size, &query,
          rwork.data(), iwork.data(), &info, 1);
    const Int lwork = WorkspaceSize(work_size);
    std::vector<T> work(lwork);
    solve(&jobz, &rows, &cols, copy.data(), &rows, s, u, &ldu, vt, &ldvt, work.data(), &lwork,
          rwork.data(), iwork.data(), &info, 1);
  } else {
    solve(&jobz, &rows, &cols, copy.data(), &rows, s, u, &ldu, vt, &ldvt, &work_size, &query,
          iwork.data(), &info, 1);
    const Int lwork = WorkspaceSize(work_size);
    std::vector<T> work(lwork);
    solve(&jobz, &rows, &cols, copy.data(), &rows, s, u, &ldu, vt, &ldvt, work.data(), &lwork,
          iwork.data(), &info, 1);
  }
  return info == 0;
}

template <typename T, typename Real>
bool GeneralEigen(const lapack::Routines& lapack, int64_t n, const T* a, std::complex<Real>* w,
                  bool left, std::complex<Real>* vl, bool right, std::complex<Real>* vr) {
  using C = std::complex<Real>;
  std::fill(vl, vl + n * n, C(0));
  std::fill(vr, vr + n * n, C(0));
  if (n == 0) return true;
  if (!AllFinite(a, n * n)) {
    const C nan(NaN<Real>(), NaN<Real>());
    std::fill(w, w + n, nan);
    if (left) std::fill(vl, vl + n * n, nan);
    if (right) std::fill(vr, vr + n * n, nan);
    return true;
  }
  std::vector<T> copy(a, a + n * n);  // geev destroys its operand
  const char jobvl = left ? 'V' : 'N', jobvr = right ? 'V' : 'N';
  const Int order = n;
  Int info = 0, query = -1;
  T work_size = 0;
  const auto solve = Select<T>::General(lapack);
  if constexpr (kComplex<T>) {
    std::vector<Real> rwork(2 * n);
    solve(&jobvl, &jobvr, &order, copy.data(), &order, w, vl, &order, vr, &order, &work_size,
          &query, rwork.data(), &info, 1, 1);
    const Int lwork = WorkspaceSize(work_size);
    std::vector<T> work(lwork);
    solve(&jobvl, &jobvr, &order, copy.data(), &order, w, vl, &order, vr, &order, work.data(),
          &lwork, rwork.data(), &info, 1, 1);
  } else {
    std::vector<Real> real(n), imaginary(n);
    std::vector<Real> packed_left(left ? n * n : 1), packed_right(right ? n * n : 1);
    solve(&jobvl, &jobvr, &order, copy.data(), &order, real.data(), imaginary.data(),
          packed_left.data(), &order, packed_right.data(), &order, &work_size, &query, &info, 1, 1);
    const Int lwork = WorkspaceSize(work_size);
    std::vector<T> work(lwork);
    solve(&jobvl, &jobvr, &order, copy.data(), &order, real.data(), imaginary.data(),
          packed_left.data(), &order, packed_right.data(), &order, work.data(), &lwork, &info, 1,
          1);
    for (int64_t i = 0; i < n; ++i) w[i] = {real[i], imaginary[i]};
    if (info == 0 && left) ExpandRealEigenvectors(n, imaginary, packed_left, vl);
    if (info == 0 && right) ExpandRealEigenvectors(n, imaginary, packed_right, vr);
  }
  if (info != 0) return false;
  for (int64_t k = 0; k < n; ++k) {
    if (left) NormalizeEigenvector(n, vl + k * n);
    if (right) NormalizeEigenvector(n, vr + k * n);
  }
  return true;
}

#define TESSERA_LAPACK_FACTORIZATIONS(T, Real)                                                     \
  template void TriangularSolve<T>(const lapack::Routines&, bool, bool, char, bool, int64_t,       \
                                   int64_t, const T*, T*, int64_t);                                \
  template void Hessenberg<T>(const lapack::Routines&, int64_t, int64_t, int64_t, T*, T*);         \
  template void Tridiagonal<T, Real>(const lapack::Routines&, bool, int64_t, T*, Real*, Real*,     \
                                     T*);                                                          \
  template int32_t TridiagonalSolve<T>(const lapack::Routines&, int64_t, int64_t, T*, T*, T*, T*); \
  template void PivotedQr<T>(const lapack::Routines&, int64_t, int64_t, T*, int32_t*, T*);         \
  template int32_t Lu<T>(const lapack::Routines&, int64_t, int64_t, T*, int32_t*);                 \
  template bool HermitianEigen<T, Real>(const lapack::Routines&, int64_t, T*, Real*, bool);        \
  template bool Svd<T, Real>(const lapack::Routines&, int64_t, int64_t, const T*, Real*, bool,     \
                             int64_t, T*, int64_t, T*);                                            \
  template bool GeneralEigen<T, Real>(const lapack::Routines&, int64_t, const T*,                  \
                                      std::complex<Real>*, bool, std::complex<Real>*, bool,        \
                                      std::complex<Real>*);
template bool Schur<std::complex<float>>(const lapack::Routines&, int64_t, std::complex<float>*,
                                         bool, std::complex<float>*, std::complex<float>*);
template bool Schur<std::complex<double>>(const lapack::Routines&, int64_t, std::complex<double>*,
                                          bool, std::complex<double>*, std::complex<double>*);
template bool RealSchur<float>(const lapack::Routines&, int64_t, float*, bool, float*, float*,
                               float*);
template bool RealSchur<double>(const lapack::Routines&, int64_t, double*, bool, double*, double*,
                                double*);
TESSERA_LAPACK_FACTORIZATIONS(float, float)
TESSERA_LAPACK_FACTORIZATIONS(double, double)
TESSERA_LAPACK_FACTORIZATIONS(std::complex<float>, float)
TESSERA_LAPACK_FACTORIZATIONS(std::complex<double>, double)
#undef TESSERA_LAPACK_FACTORIZATIONS

}  // namespace factorizations_lapack
}  // namespace cpu
}  // namespace tessera
