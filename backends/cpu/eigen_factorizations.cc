// Eigen's SelfAdjointEigenSolver, BDCSVD and HouseholderQR on raw
// column-major matrices; see eigen_factorizations.h.  Compiled twice: as is (namespace
// factorizations_baseline) and with TESSERA_FACTORIZATIONS_AVX512 and AVX-512 flags
// (factorizations_avx512).  The AVX-512 build renames Eigen's namespace, so that
// its template instances (Eigen's products, say) never share a symbol with
// the baseline ones other files instantiate: the linker would keep one of
// the two, and the AVX-512 one would fault on a host without it.
#include "backends/cpu/eigen_factorizations.h"

#ifdef TESSERA_FACTORIZATIONS_AVX512
#define Eigen TesseraEigenAvx512
#define TESSERA_FACTORIZATIONS_NAMESPACE factorizations_avx512
#else
#define TESSERA_FACTORIZATIONS_NAMESPACE factorizations_baseline
#endif

#include <algorithm>
#include <complex>
#include <limits>

#include "Eigen/Eigenvalues"
#include "Eigen/Householder"
#include "Eigen/QR"
#include "Eigen/SVD"

namespace tessera {
namespace cpu {
namespace TESSERA_FACTORIZATIONS_NAMESPACE {
namespace {

template <typename T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
template <typename T>
using MatrixMap = Eigen::Map<Matrix<T>>;
template <typename T>
using ConstMatrixMap = Eigen::Map<const Matrix<T>>;

template <typename Real>
Real NaN() {
  return std::numeric_limits<Real>::quiet_NaN();
}

}  // namespace

template <typename T, typename Real>
bool HermitianEigen(int64_t n, T* a, Real* w, bool vectors) {
  MatrixMap<T> matrix(a, n, n);
  Eigen::Map<Eigen::Matrix<Real, Eigen::Dynamic, 1>> values(w, n);
  if (!matrix.template triangularView<Eigen::Lower>().toDenseMatrix().allFinite()) {
    matrix.setConstant(T(NaN<Real>()));
    values.setConstant(NaN<Real>());
    return true;
  }
  Eigen::SelfAdjointEigenSolver<Matrix<T>> solver(
      matrix, vectors ? Eigen::ComputeEigenvectors : Eigen::EigenvaluesOnly);
  if (solver.info() != Eigen::Success) return false;
  values = solver.eigenvalues();
  if (vectors) matrix = solver.eigenvectors();
  return true;
}

template <typename T, typename Real>
bool Svd(int64_t m, int64_t n, const T* a, Real* s, bool vectors, int64_t u_cols, T* u,
         int64_t vt_rows, T* vt) {
  ConstMatrixMap<T> matrix(a, m, n);
  const int64_t k = std::min(m, n);
  Eigen::Map<Eigen::Matrix<Real, Eigen::Dynamic, 1>> values(s, k);
  MatrixMap<T> u_map(u, m, u_cols);
  MatrixMap<T> vt_map(vt, vt_rows, n);
  u_map.setZero();
  vt_map.setZero();
  if (!matrix.allFinite()) {
    values.setConstant(NaN<Real>());
    if (vectors) {
      u_map.setConstant(T(NaN<Real>()));
      vt_map.setConstant(T(NaN<Real>()));
    }
    return true;
  }
  unsigned int options = 0;
  if (vectors) {
    const bool full = u_cols == m && vt_rows == n;
    options = full ? Eigen::ComputeFullU | Eigen::ComputeFullV
                   : Eigen::ComputeThinU | Eigen::ComputeThinV;
  }
  Eigen::BDCSVD<Matrix<T>> svd(matrix, options);
  if (svd.info() != Eigen::Success) return false;
  values = svd.singularValues();
  if (vectors) {
    u_map = svd.matrixU().leftCols(u_cols);
    vt_map = svd.matrixV().leftCols(vt_rows).adjoint();
  }
  return true;
}

template <typename T>
void HouseholderQr(int64_t m, int64_t n, T* a, T* taus) {
  MatrixMap<T> matrix(a, m, n);
  Eigen::Ref<Matrix<T>> in_place(matrix);
  Eigen::HouseholderQR<Eigen::Ref<Matrix<T>>> qr(in_place);
  // Eigen's coefficients are LAPACK's taus conjugated: its householderQ()
  // is the sequence of the conjugates, LAPACK's Q that of the taus.
  Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(taus, std::min(m, n)) = qr.hCoeffs().conjugate();
}

template <typename T>
void HouseholderProduct(int64_t m, int64_t n, int64_t k, T* a, const T* taus) {
  MatrixMap<T> matrix(a, m, n);
  using Coefficients = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>>;
  const Matrix<T> reflectors = matrix.leftCols(k);
  Eigen::HouseholderSequence<Matrix<T>, Coefficients> sequence(reflectors, Coefficients(taus, k));
  matrix.setIdentity();
  sequence.applyThisOnTheLeft(matrix);
}

#define TESSERA_FACTORIZATIONS(T, Real)                                                          \
  template bool HermitianEigen<T, Real>(int64_t, T*, Real*, bool);                               \
  template bool Svd<T, Real>(int64_t, int64_t, const T*, Real*, bool, int64_t, T*, int64_t, T*); \
  template void HouseholderQr<T>(int64_t, int64_t, T*, T*);                                      \
  template void HouseholderProduct<T>(int64_t, int64_t, int64_t, T*, const T*);
TESSERA_FACTORIZATIONS(float, float)
TESSERA_FACTORIZATIONS(double, double)
TESSERA_FACTORIZATIONS(std::complex<float>, float)
TESSERA_FACTORIZATIONS(std::complex<double>, double)
#undef TESSERA_FACTORIZATIONS

}  // namespace TESSERA_FACTORIZATIONS_NAMESPACE
}  // namespace cpu
}  // namespace tessera
