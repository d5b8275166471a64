// Eigen's SelfAdjointEigenSolver, BDCSVD, HouseholderQR and ComplexSchur on raw
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
#include <type_traits>
#include <utility>
#include <vector>

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

// Scales `v` to unit norm with its largest component (the first of
// largest modulus) real and positive.
template <typename C>
void NormalizeEigenvector(Eigen::Ref<Eigen::Matrix<C, Eigen::Dynamic, 1>> v) {
  Eigen::Index largest = 0;
  v.cwiseAbs().maxCoeff(&largest);
  const auto norm = v.norm();
  if (norm == 0) return;
  v *= std::conj(v(largest)) / C(std::abs(v(largest)) * norm);
  v(largest) = C(std::real(v(largest)));
}

template <typename T, typename Real>
bool GeneralEigen(int64_t n, const T* a, std::complex<Real>* w, bool left, std::complex<Real>* vl,
                  bool right, std::complex<Real>* vr) {
  using C = std::complex<Real>;
  using Vector = Eigen::Matrix<C, Eigen::Dynamic, 1>;
  constexpr bool kComplex = !std::is_same_v<T, Real>;
  Eigen::Map<Vector> values(w, n);
  MatrixMap<C> left_vectors(vl, n, n), right_vectors(vr, n, n);
  left_vectors.setZero();
  right_vectors.setZero();
  const ConstMatrixMap<T> input(a, n, n);
  if (!input.allFinite()) {
    values.setConstant(C(NaN<Real>(), NaN<Real>()));
    if (left) left_vectors.setConstant(C(NaN<Real>(), NaN<Real>()));
    if (right) right_vectors.setConstant(C(NaN<Real>(), NaN<Real>()));
    return true;
  }
  if constexpr (!kComplex) {
    if (!left) {
      // Real input and no left vectors: Eigen's real Schur form (Francis
      // double shifts in real arithmetic, several times faster than the
      // complex one), whose eigenvalues are exactly real or exact conjugate
      // pairs and whose real eigenvalues have real vectors.
      Eigen::EigenSolver<Matrix<Real>> solver(input, right);
      if (solver.info() != Eigen::Success) return false;
      values = solver.eigenvalues();
      if (right) {
        right_vectors = solver.eigenvectors();
        for (int64_t k = 0; k < n; ++k) {
          NormalizeEigenvector<C>(right_vectors.col(k));
          if (values(k).imag() == 0) {
            right_vectors.col(k) = right_vectors.col(k).real().template cast<C>();
          }
        }
      }
      return true;
    }
  }
  const Matrix<C> matrix = input.template cast<C>();
  Eigen::ComplexSchur<Matrix<C>> schur(matrix, left || right);
  if (schur.info() != Eigen::Success) return false;
  const Matrix<C>& t = schur.matrixT();
  values = t.diagonal();
  std::vector<bool> real(n, false);
  if constexpr (!kComplex) {
    // Within rounding of the real axis: real (LAPACK's dgeev gives these
    // exactly real, with real vectors).
    const Real rounding = n * std::numeric_limits<Real>::epsilon() * matrix.norm();
    for (int64_t k = 0; k < n; ++k) {
      if (std::abs(values(k).imag()) <= rounding) {
        values(k) = C(values(k).real());
        real[k] = true;
      }
    }
  }
  // Eigenvectors of T, as LAPACK's trevc: back (forward) substitution with
  // a divisor of epsilon |t_kk| where it would be zero; A's are Z times them.
  auto divide = [](C sum, C divisor, Real smallest) {
    return -sum / (std::abs(divisor) < smallest ? C(smallest) : divisor);
  };
  for (const auto& [wanted, is_left] : {std::pair{right, false}, std::pair{left, true}}) {
    if (!wanted) continue;
    Matrix<C> x = Matrix<C>::Zero(n, n);
    for (int64_t k = 0; k < n; ++k) {
      const C lambda = t(k, k);
      const Real smallest = std::max(std::numeric_limits<Real>::epsilon() * std::abs(lambda),
                                     std::numeric_limits<Real>::min());
      x(k, k) = 1;
      if (is_left) {
        for (int64_t i = k + 1; i < n; ++i) {
          const C sum =
              (t.col(i).segment(k, i - k).conjugate().cwiseProduct(x.col(k).segment(k, i - k)))
                  .sum();
          x(i, k) = divide(sum, std::conj(t(i, i) - lambda), smallest);
        }
      } else {
        for (int64_t i = k - 1; i >= 0; --i) {
          const C sum = t.row(i)
                            .segment(i + 1, k - i)
                            .transpose()
                            .cwiseProduct(x.col(k).segment(i + 1, k - i))
                            .sum();
          x(i, k) = divide(sum, t(i, i) - lambda, smallest);
        }
      }
    }
    MatrixMap<C>& out = is_left ? left_vectors : right_vectors;
    out.noalias() = schur.matrixU() * x;
    for (int64_t k = 0; k < n; ++k) {
      NormalizeEigenvector<C>(out.col(k));
      if (real[k]) out.col(k) = out.col(k).real().template cast<C>();
    }
  }
  return true;
}

#define TESSERA_FACTORIZATIONS(T, Real)                                                          \
  template bool HermitianEigen<T, Real>(int64_t, T*, Real*, bool);                               \
  template bool Svd<T, Real>(int64_t, int64_t, const T*, Real*, bool, int64_t, T*, int64_t, T*); \
  template void HouseholderQr<T>(int64_t, int64_t, T*, T*);                                      \
  template void HouseholderProduct<T>(int64_t, int64_t, int64_t, T*, const T*);                  \
  template bool GeneralEigen<T, Real>(int64_t, const T*, std::complex<Real>*, bool,              \
                                      std::complex<Real>*, bool, std::complex<Real>*);
TESSERA_FACTORIZATIONS(float, float)
TESSERA_FACTORIZATIONS(double, double)
TESSERA_FACTORIZATIONS(std::complex<float>, float)
TESSERA_FACTORIZATIONS(std::complex<double>, double)
#undef TESSERA_FACTORIZATIONS

}  // namespace TESSERA_FACTORIZATIONS_NAMESPACE
}  // namespace cpu
}  // namespace tessera
