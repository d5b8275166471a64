// Triangular solves, LU, the Hermitian eigensolver, the SVD, the general
// eigensolver, Hessenberg and tridiagonal reductions and tridiagonal
// solves through the
// host's LAPACK (lapack_library.h): the same routines as XLA's CPU runtime,
// OpenBLAS's recursive getrf, LAPACK's divide-and-conquer syevd and gesdd
// and geev's multishift Hessenberg QR with early deflation, which Eigen's
// solvers lack (Eigen's real Schur iteration took 4-5x LAPACK's time at
// order 256).  The eigensolvers' and SVD's contracts are
// eigen_factorizations.h's, so the linear-algebra thunk can run either:
// column-major matrices, NaN results for non-finite input,
// false where LAPACK reports no convergence.  Orders must fit LAPACK's
// 32-bit integers (Fits).
#ifndef TESSERA_BACKENDS_CPU_LAPACK_FACTORIZATIONS_H_
#define TESSERA_BACKENDS_CPU_LAPACK_FACTORIZATIONS_H_

#include <complex>
#include <cstdint>

#include "backends/cpu/lapack_library.h"

namespace tessera {
namespace cpu {
namespace factorizations_lapack {

// Whether an m x n matrix's dimensions and workspaces fit LAPACK's Int.
bool Fits(int64_t m, int64_t n);

// op(A) X = B (`left_side`) or X op(A) = B in place of the m x n `b`
// (leading dimension ldb), A the side x side `a` (side m or n), of which the `lower` or upper
// triangle is read, op(A) one of A, A^T, A^H (`transpose` 'N', 'T', 'C'), its diagonal taken as
// ones with `unit_diagonal`: BLAS's trsm.
template <typename T>
void TriangularSolve(const lapack::Routines& lapack, bool left_side, bool lower, char transpose,
                     bool unit_diagonal, int64_t m, int64_t n, const T* a, T* b, int64_t ldb);

// The complex Schur form A = Z T Z^H in place of the n x n `a` (T), with
// the Schur vectors in `z` where `vectors` (else zero) and T's diagonal in
// `w`: LAPACK's gees, unsorted.  NaN results for non-finite input; false
// where the QR iteration does not converge.
template <typename C>
bool Schur(const lapack::Routines& lapack, int64_t n, C* a, bool vectors, C* z, C* w);

// The real Schur form A = Z T Z^T in place of the real n x n `a` (T quasi
// upper triangular, LAPACK's standardized 2 x 2 blocks), eigenvalues
// wr + i wi: gees, unsorted; otherwise as Schur.
template <typename T>
bool RealSchur(const lapack::Routines& lapack, int64_t n, T* a, bool vectors, T* z, T* wr, T* wi);

// Upper Hessenberg form in place of the n x n `a` as LAPACK's gehrd leaves
// it (linalg_op.h), ilo `low` and ihi `high` 1-based, taus (n - 1).
template <typename T>
void Hessenberg(const lapack::Routines& lapack, int64_t n, int64_t low, int64_t high, T* a,
                T* taus);

// Real tridiagonal form of the Hermitian n x n `a` (its `lower` or upper
// triangle) in place as LAPACK's sytrd/hetrd leaves it: d (n), e (n - 1),
// taus (n - 1).
template <typename T, typename Real>
void Tridiagonal(const lapack::Routines& lapack, bool lower, int64_t n, T* a, Real* d, Real* e,
                 T* taus);

// A X = B in place of the n x nrhs `b` for the tridiagonal A with
// subdiagonal dl (n - 1), diagonal d (n) and superdiagonal du (n - 1),
// which are overwritten as LAPACK's gtsv does (linalg_op.h); returns its
// info.
template <typename T>
int32_t TridiagonalSolve(const lapack::Routines& lapack, int64_t n, int64_t nrhs, T* dl, T* d,
                         T* du, T* b);

// A P = Q R in place of the m x n `a` as LAPACK's geqp3 leaves it, `jpvt`
// (n) the fixed columns (nonzero) on entry and the 1-based permutation on
// exit, taus (min(m, n)).
template <typename T>
void PivotedQr(const lapack::Routines& lapack, int64_t m, int64_t n, T* a, int32_t* jpvt, T* taus);

// P A = L U in place of the m x n `a` with partial pivoting, LAPACK's
// 1-based pivots (min(m, n)) in `pivots`; returns getrf's info (k + 1 for
// the first zero pivot u_kk, else 0).
template <typename T>
int32_t Lu(const lapack::Routines& lapack, int64_t m, int64_t n, T* a, int32_t* pivots);

template <typename T, typename Real>
bool HermitianEigen(const lapack::Routines& lapack, int64_t n, T* a, Real* w, bool vectors);

template <typename T, typename Real>
bool Svd(const lapack::Routines& lapack, int64_t m, int64_t n, const T* a, Real* s, bool vectors,
         int64_t u_cols, T* u, int64_t vt_rows, T* vt);

template <typename T, typename Real>
bool GeneralEigen(const lapack::Routines& lapack, int64_t n, const T* a, std::complex<Real>* w,
                  bool left, std::complex<Real>* vl, bool right, std::complex<Real>* vr);

}  // namespace factorizations_lapack
}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_LAPACK_FACTORIZATIONS_H_
