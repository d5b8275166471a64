// Eigen's Hermitian eigensolver and SVD on one dense column-major matrix,
// for the linear-algebra thunk (linalg_thunk.h); hlo/analysis/linalg_op.h
// has the semantics (LAPACK's syevd/heevd and gesdd/gesvd).  A file of its
// own because the solvers' templates are slow to compile, built twice: for
// the baseline ISA and for AVX-512.
//
// T is float, double, std::complex<float> or std::complex<double>, and
// Real its real type.  Non-finite input gives NaN results (Eigen's
// iterations would not end on it).  Each returns false where Eigen
// reports no convergence.
#ifndef TESSERA_BACKENDS_CPU_SPECTRAL_KERNELS_H_
#define TESSERA_BACKENDS_CPU_SPECTRAL_KERNELS_H_

#include <cstdint>

namespace tessera {
namespace cpu {

#define TESSERA_SPECTRAL_KERNEL_DECLARATIONS                                              \
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
           int64_t vt_rows, T* vt);

// spectral_kernels.cc built for the baseline ISA.
namespace spectral_baseline {
TESSERA_SPECTRAL_KERNEL_DECLARATIONS
}  // namespace spectral_baseline

// The same built for AVX-512 (several times faster: the eigensolver's
// rotations and the SVD's products vectorize 16 wide); callable only where
// the host has it (eigen_dot_internal::KernelsSupported()).
namespace spectral_avx512 {
TESSERA_SPECTRAL_KERNEL_DECLARATIONS
}  // namespace spectral_avx512

#undef TESSERA_SPECTRAL_KERNEL_DECLARATIONS

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_SPECTRAL_KERNELS_H_
