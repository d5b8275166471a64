// The host's LAPACK, loaded at first use: the routines XLA's CPU runtime
// calls for JAX's linear algebra (trsm, getrf, geqp3, gtsv, gehrd, sytrd/hetrd, syevd/heevd, gesdd,
// geev, gees), which the linear-algebra thunk prefers to Eigen's solvers where they are faster
// (lapack_factorizations.h).  Loaded with dlopen rather than linked, so that
// the compiler builds and runs without it: where none loads, every caller
// falls back to Eigen.
//
// Which library: $TESSERA_LAPACK names a shared object, or "none" to use
// none; by default OpenBLAS's (Debian's libopenblas0).  The library must
// have the LP64 interface (32-bit INTEGER, as Debian's and MKL's default
// libmkl_rt): an ILP64 build has the same symbol names, which no check at
// load time can tell apart.  OpenBLAS reads two variables when it loads, and where
// the user has not set them they are set first:
// - OPENBLAS_NUM_THREADS=1: the runtime's thread pool already runs a
//   batch's matrices in parallel; OpenBLAS's own threads would oversubscribe
//   the cores (and were slower at order 256 on two cores).
// - OPENBLAS_CORETYPE from the host's features (SkylakeX with AVX-512,
//   Haswell with AVX2): OpenBLAS 0.3.21 recognizes CPUs by model number, and
//   on a VM whose model it does not know it falls back to SSE3 kernels,
//   2-3x slower here.
#ifndef TESSERA_BACKENDS_CPU_LAPACK_LIBRARY_H_
#define TESSERA_BACKENDS_CPU_LAPACK_LIBRARY_H_

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>

namespace tessera {
namespace cpu {
namespace lapack {

// LAPACK's INTEGER in the LP64 builds Debian ships.
using Int = int32_t;
// gfortran passes each CHARACTER argument's length after the others; the
// routines here read one character, so each length is 1.
using Length = size_t;

template <typename T>
using Trsm = void (*)(const char* side, const char* uplo, const char* transa, const char* diag,
                      const Int* m, const Int* n, const T* alpha, const T* a, const Int* lda, T* b,
                      const Int* ldb, Length, Length, Length, Length);
// `select` is LAPACK's LOGICAL FUNCTION argument, unused with sort 'N'.
template <typename T>
using RealGees = void (*)(const char* jobvs, const char* sort, void* select, const Int* n, T* a,
                          const Int* lda, Int* sdim, T* wr, T* wi, T* vs, const Int* ldvs, T* work,
                          const Int* lwork, Int* bwork, Int* info, Length, Length);
template <typename C, typename Real>
using ComplexGees = void (*)(const char* jobvs, const char* sort, void* select, const Int* n, C* a,
                             const Int* lda, Int* sdim, C* w, C* vs, const Int* ldvs, C* work,
                             const Int* lwork, Real* rwork, Int* bwork, Int* info, Length, Length);
template <typename T>
using Gehrd = void (*)(const Int* n, const Int* ilo, const Int* ihi, T* a, const Int* lda, T* tau,
                       T* work, const Int* lwork, Int* info);
template <typename T, typename Real>
using Sytrd = void (*)(const char* uplo, const Int* n, T* a, const Int* lda, Real* d, Real* e,
                       T* tau, T* work, const Int* lwork, Int* info, Length);
template <typename T>
using Gtsv = void (*)(const Int* n, const Int* nrhs, T* dl, T* d, T* du, T* b, const Int* ldb,
                      Int* info);
template <typename T>
using RealGeqp3 = void (*)(const Int* m, const Int* n, T* a, const Int* lda, Int* jpvt, T* tau,
                           T* work, const Int* lwork, Int* info);
template <typename C, typename Real>
using ComplexGeqp3 = void (*)(const Int* m, const Int* n, C* a, const Int* lda, Int* jpvt, C* tau,
                              C* work, const Int* lwork, Real* rwork, Int* info);
template <typename T>
using Getrf = void (*)(const Int* m, const Int* n, T* a, const Int* lda, Int* ipiv, Int* info);
template <typename T>
using Syevd = void (*)(const char* jobz, const char* uplo, const Int* n, T* a, const Int* lda, T* w,
                       T* work, const Int* lwork, Int* iwork, const Int* liwork, Int* info, Length,
                       Length);
template <typename C, typename Real>
using Heevd = void (*)(const char* jobz, const char* uplo, const Int* n, C* a, const Int* lda,
                       Real* w, C* work, const Int* lwork, Real* rwork, const Int* lrwork,
                       Int* iwork, const Int* liwork, Int* info, Length, Length);
template <typename T>
using RealGesdd = void (*)(const char* jobz, const Int* m, const Int* n, T* a, const Int* lda, T* s,
                           T* u, const Int* ldu, T* vt, const Int* ldvt, T* work, const Int* lwork,
                           Int* iwork, Int* info, Length);
template <typename C, typename Real>
using ComplexGesdd = void (*)(const char* jobz, const Int* m, const Int* n, C* a, const Int* lda,
                              Real* s, C* u, const Int* ldu, C* vt, const Int* ldvt, C* work,
                              const Int* lwork, Real* rwork, Int* iwork, Int* info, Length);
template <typename T>
using RealGeev = void (*)(const char* jobvl, const char* jobvr, const Int* n, T* a, const Int* lda,
                          T* wr, T* wi, T* vl, const Int* ldvl, T* vr, const Int* ldvr, T* work,
                          const Int* lwork, Int* info, Length, Length);
template <typename C, typename Real>
using ComplexGeev = void (*)(const char* jobvl, const char* jobvr, const Int* n, C* a,
                             const Int* lda, C* w, C* vl, const Int* ldvl, C* vr, const Int* ldvr,
                             C* work, const Int* lwork, Real* rwork, Int* info, Length, Length);

// The routines, all present (a library lacking one is not used).
struct Routines {
  RealGeqp3<float> sgeqp3;
  RealGeqp3<double> dgeqp3;
  ComplexGeqp3<std::complex<float>, float> cgeqp3;
  ComplexGeqp3<std::complex<double>, double> zgeqp3;
  RealGees<float> sgees;
  RealGees<double> dgees;
  ComplexGees<std::complex<float>, float> cgees;
  ComplexGees<std::complex<double>, double> zgees;
  Gehrd<float> sgehrd;
  Gehrd<double> dgehrd;
  Gehrd<std::complex<float>> cgehrd;
  Gehrd<std::complex<double>> zgehrd;
  Sytrd<float, float> ssytrd;
  Sytrd<double, double> dsytrd;
  Sytrd<std::complex<float>, float> chetrd;
  Sytrd<std::complex<double>, double> zhetrd;
  Gtsv<float> sgtsv;
  Gtsv<double> dgtsv;
  Gtsv<std::complex<float>> cgtsv;
  Gtsv<std::complex<double>> zgtsv;
  Trsm<float> strsm;  // BLAS's, which OpenBLAS (and any LAPACK's BLAS) has
  Trsm<double> dtrsm;
  Trsm<std::complex<float>> ctrsm;
  Trsm<std::complex<double>> ztrsm;
  Getrf<float> sgetrf;
  Getrf<double> dgetrf;
  Getrf<std::complex<float>> cgetrf;
  Getrf<std::complex<double>> zgetrf;
  Syevd<float> ssyevd;
  Syevd<double> dsyevd;
  Heevd<std::complex<float>, float> cheevd;
  Heevd<std::complex<double>, double> zheevd;
  RealGesdd<float> sgesdd;
  RealGesdd<double> dgesdd;
  ComplexGesdd<std::complex<float>, float> cgesdd;
  ComplexGesdd<std::complex<double>, double> zgesdd;
  RealGeev<float> sgeev;
  RealGeev<double> dgeev;
  ComplexGeev<std::complex<float>, float> cgeev;
  ComplexGeev<std::complex<double>, double> zgeev;
};

// The loaded routines, or null where no library loads (see above).  The
// first call loads; later ones are a read.  Thread-safe.
const Routines* Load();

// What Load() found: the library's path and, for OpenBLAS, its kernels'
// core type ("SkylakeX"), or why none loaded.  For `tessera` diagnostics
// and tests.
std::string Describe();

}  // namespace lapack
}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_LAPACK_LIBRARY_H_
