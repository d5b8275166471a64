// Eigen's Hermitian eigensolver, SVD and blocked Householder QR on one
// dense column-major matrix, for the linear-algebra thunk (linalg_thunk.h);
// hlo/analysis/linalg_op.h has the semantics (LAPACK's syevd/heevd,
// gesdd/gesvd, geqrf, orgqr/ungqr and geev).  A file of its
// own because the solvers' templates are slow to compile, built twice: for
// the baseline ISA and for AVX-512.
//
// T is float, double, std::complex<float> or std::complex<double>, and
// Real its real type.  The eigensolver and the SVD give NaN results for
// non-finite input (Eigen's iterations would not end on it), and return
// false where Eigen reports no convergence.
#ifndef TESSERA_BACKENDS_CPU_EIGEN_FACTORIZATIONS_H_
#define TESSERA_BACKENDS_CPU_EIGEN_FACTORIZATIONS_H_

#include <complex>
#include <cstdint>

namespace tessera {
namespace cpu {

#define TESSERA_FACTORIZATION_DECLARATIONS                                                \
  /* A = V diag(w) V^H for the n x n `a`, of which the lower triangle is read;            \
     w (n) ascending; with `vectors`, a is overwritten by V, else unspecified. */         \
  template <typename T, typename Real>                                                    \
  bool HermitianEigen(int64_t n, T* a, Real* w, bool vectors);                            \
  /* A = U diag(s) V^H for the m x n `a` (left unchanged): s (min(m, n))                  \
     descending; with `vectors`, the m x u_cols `u` and the vt_rows x n `vt`              \
     (= V^H), u_cols and vt_rows either min(m, n) or the full m and n;                    \
     without them, u and vt are zero. */                                                  \
  template <typename T, typename Real>                                                    \
  bool Svd(int64_t m, int64_t n, const T* a, Real* s, bool vectors, int64_t u_cols, T* u, \
           int64_t vt_rows, T* vt);                                                       \
  /* A = Q R in place of the m x n `a` as LAPACK's geqrf leaves it: R on and              \
     above the diagonal, the reflectors' tails below it, their LAPACK taus                \
     (H = I - tau v v^H) in `taus` (min(m, n)). */                                        \
  template <typename T>                                                                   \
  void HouseholderQr(int64_t m, int64_t n, T* a, T* taus);                                \
  /* The first n columns of H(0) ... H(k-1) in place of the m x n `a` holding             \
     k <= n <= m reflectors as HouseholderQr leaves them (orgqr, ungqr). */               \
  template <typename T>                                                                   \
  void HouseholderProduct(int64_t m, int64_t n, int64_t k, T* a, const T* taus);          \
  /* The eigenvalues w (n) of the n x n `a` and, where asked, its left and                \
     right eigenvectors (columns of the n x n vl, vr; zero where not asked):              \
     geev's semantics (linalg_op.h).  Real input: eigenvalues within rounding             \
     of the real axis are real, with real vectors. */                                     \
  template <typename T, typename Real>                                                    \
  bool GeneralEigen(int64_t n, const T* a, std::complex<Real>* w, bool left,              \
                    std::complex<Real>* vl, bool right, std::complex<Real>* vr);

// eigen_factorizations.cc built for the baseline ISA.
namespace factorizations_baseline {
TESSERA_FACTORIZATION_DECLARATIONS
}  // namespace factorizations_baseline

// The same built for AVX-512 (several times faster: the eigensolver's
// rotations and the SVD's products vectorize 16 wide); callable only where
// the host has it (eigen_dot_internal::KernelsSupported()).
namespace factorizations_avx512 {
TESSERA_FACTORIZATION_DECLARATIONS
}  // namespace factorizations_avx512

#undef TESSERA_FACTORIZATION_DECLARATIONS

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_EIGEN_FACTORIZATIONS_H_
