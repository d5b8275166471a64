// Eigen's SelfAdjointEigenSolver and BDCSVD on raw column-major matrices;
// see spectral_kernels.h.  Compiled twice: as is (namespace
// spectral_baseline) and with TESSERA_SPECTRAL_AVX512 and AVX-512 flags
// (spectral_avx512).  The AVX-512 build renames Eigen's namespace, so that
// its template instances (Eigen's products, say) never share a symbol with
// the baseline ones other files instantiate: the linker would keep one of
// the two, and the AVX-512 one would fault on a host without it.
#include "backends/cpu/spectral_kernels.h"

#ifdef TESSERA_SPECTRAL_AVX512
#define Eigen TesseraEigenAvx512
#define TESSERA_SPECTRAL_NAMESPACE spectral_avx512
#else
#define TESSERA_SPECTRAL_NAMESPACE spectral_baseline
#endif

#include <algorithm>
#include <complex>
#include <limits>

#include "Eigen/Eigenvalues"
#include "Eigen/SVD"

namespace tessera {
namespace cpu {
namespace TESSERA_SPECTRAL_NAMESPACE {
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

#define TESSERA_SPECTRAL_KERNELS(T, Real)                          \
  template bool HermitianEigen<T, Real>(int64_t, T*, Real*, bool); \
  template bool Svd<T, Real>(int64_t, int64_t, const T*, Real*, bool, int64_t, T*, int64_t, T*);
TESSERA_SPECTRAL_KERNELS(float, float)
TESSERA_SPECTRAL_KERNELS(double, double)
TESSERA_SPECTRAL_KERNELS(std::complex<float>, float)
TESSERA_SPECTRAL_KERNELS(std::complex<double>, double)
#undef TESSERA_SPECTRAL_KERNELS

}  // namespace TESSERA_SPECTRAL_NAMESPACE
}  // namespace cpu
}  // namespace tessera
