// The dense linear-algebra ops, described once for the evaluator and the
// backends: XLA's `cholesky` and `triangular-solve`, and the LAPACK custom
// calls that JAX's CPU lowering emits for jnp.linalg and jax.scipy.linalg
// (typed FFI, api_version=API_VERSION_TYPED_FFI):
//
//   lapack_?potrf_ffi(a) -> (factor, info s32[batch])                   Cholesky
//   lapack_?getrf_ffi(a) -> (lu, pivots s32[batch, min(m,n)], info s32[batch])  LU
//   lapack_?trsm_ffi(a, b) -> x                                          triangular solve
//   lapack_?geqrf_ffi(a) -> (reflectors and R, taus [batch, min(m,n)])  QR
//   lapack_?geqp3_ffi(a, jpvt s32[batch, n]) -> (a, jpvt, taus)        pivoted QR
//   lapack_?orgqr_ffi(a, taus) -> q  (?ungqr for complex)                Q from reflectors
//   lapack_{s,d}syevd_ffi, lapack_{c,z}heevd_ffi(a)
//       -> (vectors, eigenvalues [batch, n] real, info s32[batch])       Hermitian eigen
//   lapack_?gesdd_ffi, lapack_?gesvd_ffi(a)
//       -> (a, s [batch, min(m,n)] real, u, vt, info s32[batch])         SVD
//   lapack_{s,d}geev_ffi(a) -> (wr, wi [batch, n], vl, vr complex, info)
//   lapack_{c,z}geev_ffi(a) -> (w [batch, n], vl, vr, info)               general eigen
//   lapack_{s,d}gees_ffi(a) -> (t, z, wr, wi [batch, n], sdim s32, info s32)  Schur
//   lapack_{c,z}gees_ffi(a) -> (t, z, w [batch, n], sdim s32, info s32)
//   lapack_?gehrd_ffi(a) -> (h and reflectors, taus [batch, n-1], info)   Hessenberg
//   lapack_{s,d}sytrd_ffi, lapack_{c,z}hetrd_ffi(a)
//       -> (t and reflectors, d [batch, n], e [batch, n-1] real, taus, info)  tridiagonal
//   lapack_?gtsv_ffi(dl, d, du [batch, n], b [batch, n, nrhs])
//       -> (dl, d, du, x, info s32[batch])                                tridiagonal solve
//
// with ? one of s, d, c, z (f32, f64, c64, c128), the matrices in the last
// two dimensions and any leading dimensions a batch.  Their attributes come
// as an MLIR dictionary in backend_config, `{uplo = 76 : ui8, ...}`, of
// LAPACK's character codes ('L' 76, 'U' 85, 'N' 78, 'T' 84, 'C' 67).
// jnp.linalg.cholesky, solve, inv, det, slogdet, qr, eig, eigvals, eigh, eigvalsh, svd,
// pinv, lstsq, matrix_rank, norm(ord=2), jax.scipy.linalg.lu_factor,
// cho_solve and solve_triangular lower to these, and jax.lax.linalg's
// hessenberg, tridiagonal and tridiagonal_solve to gehrd, sytrd/hetrd and
// gtsv; jax.scipy.linalg.schur and sqrtm to gees.
//
// Semantics, on the logical matrices (layouts do not matter):
//   Cholesky: A = L L^H from the lower triangle (`lower`), or A = U^H U
//     from the upper one.  LAPACK's form leaves the other triangle as the
//     operand had it and sets info = j (1-based) where the leading minor of
//     order j is not positive definite (the factor is then partial; JAX
//     replaces it with NaN).  XLA's op zeroes the other triangle and fills
//     a matrix that is not positive definite with NaN.
//   LU: P A = L U with partial pivoting (the row of the largest |a|, or
//     |re| + |im| for complex, first on ties: LAPACK's i?amax), L unit
//     lower below the diagonal and U on and above it; pivots[k] (1-based) is
//     the row swapped with row k at step k; info = k (1-based) of the first
//     exactly zero U(k,k), the factorization going on past it.
//   Triangular solve: op(A) X = B (`left_side`) or X op(A) = B, op one of
//     A, A^T, A^H, reading only A's `lower` (or upper) triangle and taking
//     its diagonal as ones with `unit_diagonal`.
//   QR (LAPACK's geqr2): A = Q R with Q = H(0) ... H(k-1), k = min(m, n),
//     H(i) = I - tau_i v_i v_i^H, v_i zero above i, one at i, its tail
//     stored below the diagonal of column i; R on and above the diagonal.
//     Each reflector as LAPACK's larfg makes it: beta = -sign(re alpha)
//     |(alpha, tail)|, tau = (beta - alpha) / beta, tail / (alpha - beta),
//     none (tau 0) where the tail is zero and alpha real.
//   Pivoted QR (geqp3): A P = Q R as QR above, the columns marked nonzero
//     in jpvt moved to the front first and not pivoted; the others chosen
//     one step at a time as the one of largest remaining norm (first on
//     ties), the norms downdated as LAPACK's laqp2 does (recomputed where
//     cancellation took more than half the digits).  jpvt[j] (1-based) is
//     the column of A that became column j (an empty matrix leaves jpvt
//     as it came, as LAPACK returns first).
//   Householder product (org2r, ung2r): the first n columns of
//     H(0) ... H(k-1), from k reflectors stored as QR leaves them.
//   Hermitian eigen (syevd, heevd; `vectors` is mode 'V', else 'N'):
//     A = V diag(w) V^H from A's `lower` (or upper) triangle, the other
//     one taken as its conjugate transpose; w ascending, V's columns
//     orthonormal (each one's sign, or complex phase, is free: LAPACK
//     builds differ in it).  With mode 'N' result 0 is unspecified.
//   SVD (gesdd, gesvd; mode 'A' `vectors` and `full_matrices`, 'S'
//     vectors only, 'N' neither): A = U diag(s) V^H, s descending and
//     non-negative; U is m x m ('A') or m x k, vt = V^H n x n or k x n,
//     k = min(m, n), their columns (rows of vt) orthonormal, completed to a
//     basis with 'A'; the pairs' signs (phases) are free.  Result 0 (the
//     operand, which LAPACK destroys) and, with 'N', u and vt (shaped as for
//     'A' or 'S') are unspecified.  LAPACK's mode 'O' is not supported.
//   General eigen (geev; `left_vectors` compute_left 'V', `vectors`
//     compute_right 'V'): the eigenvalues w of A in no set order (real
//     input: wr + i wi; LAPACK pairs conjugates, this need not), right
//     eigenvectors A v = w v and left ones u^H A = w u^H as columns, each
//     of unit norm with its largest component real (positive here; its
//     phase is otherwise free).  For real input, an eigenvalue whose
//     imaginary part is within rounding (n epsilon |A|_F) is taken as real,
//     and so are its vectors.  Vectors not asked for are zero.
//   Schur (gees; `vectors` mode 'V'; sort 'N' only): A = Z T Z^H, Z
//     unitary; complex: T upper triangular, w = diag(T); real: T
//     quasi-upper-triangular, 1 x 1 blocks for real eigenvalues and 2 x 2
//     ones [a b; c a] with b c < 0 for the pair a +- i sqrt(-b c) (LAPACK's
//     standardized form), wr and wi read off the blocks; sdim 0.  The
//     eigenvalues' order along T and Z's column signs (phases) are free
//     (LAPACK's come from its QR iteration).  With mode 'N', Z is zero.
//     Non-finite input gives NaN; info is nonzero where the QR iteration
//     did not converge.
//   Hessenberg (gehrd; backend_config low = ilo, high = ihi, 1-based):
//     H = Q^H A Q upper Hessenberg, Q = H(ilo-1) ... H(ihi-2), each
//     reflector as QR's (larfg) with v zero up to i, one at i + 1 and its
//     tail stored in column i below the subdiagonal (rows i + 2 to ihi);
//     H on and above the subdiagonal; taus outside [ilo-1, ihi-1) zero.
//     (LAPACK assumes A already triangular outside rows and columns
//     [ilo, ihi], as gebal leaves it; JAX passes 1 and n.)
//   Tridiagonal (sytrd, hetrd; `lower`): T = Q^H A Q real symmetric
//     tridiagonal from A's `lower` (or upper) triangle taken as Hermitian:
//     lower, Q = H(0) ... H(n-2) with v one at i + 1 and its tail in
//     column i below the subdiagonal; upper, Q = H(n-2) ... H(0) with v one
//     at i and its head in column i + 1 above the superdiagonal.  T's
//     diagonal (d) and off diagonal (e) also sit on a's diagonal and first
//     sub- (super-) diagonal; the other triangle is as the operand had it.
//   Tridiagonal solve (gtsv): A X = B for the tridiagonal A with
//     subdiagonal dl[1..n-1] (dl[0] is not read: JAX's convention),
//     diagonal d and superdiagonal du[0..n-2] (du[n-1] not read), by
//     LAPACK's gtsv step for step: Gaussian elimination with partial
//     pivoting between adjacent rows (pivot score as LU's), then back
//     substitution.  The results are LAPACK's overwritten arrays: d and
//     du[0..n-2] U's diagonal and superdiagonal, dl[1..n-2] its second
//     superdiagonal (dl[0] and dl[n-1], du[n-1] as they came), x the
//     solution, and info = k (1-based) where U(k,k) is exactly zero, the
//     arrays then left as the elimination had them when it stopped.
//   None of these reports a failure to converge (info 0) for finite input.
#ifndef TESSERA_HLO_ANALYSIS_LINALG_OP_H_
#define TESSERA_HLO_ANALYSIS_LINALG_OP_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "hlo/ir/primitive_type.h"

namespace tessera {

class HloInstruction;

enum class LinalgKind {
  kCholesky,
  kLu,
  kTriangularSolve,
  kQr,
  kHouseholderProduct,
  kHermitianEigen,
  kSvd,
  kEigen,
  kTridiagonalSolve,
  kHessenberg,
  kTridiagonal,
  kSchur,
  kPivotedQr,
};
enum class LinalgTranspose { kNone, kTranspose, kAdjoint };

struct LinalgOp {
  LinalgKind kind = LinalgKind::kCholesky;
  // A JAX LAPACK custom call (tuple result with info) rather than XLA's op.
  bool lapack = false;
  PrimitiveType type = F32;  // F32, F64, C64 or C128
  int64_t batch = 1;         // matrices: the product of the leading dimensions
  // The operand's matrix (Cholesky, LU), or B's (triangular solve, whose A
  // is rows x rows on the left side and cols x cols on the right;
  // tridiagonal solve, n x nrhs).
  int64_t rows = 0;
  int64_t cols = 0;
  bool lower = true;
  bool left_side = true;
  LinalgTranspose transpose = LinalgTranspose::kNone;
  bool unit_diagonal = false;
  int64_t reflectors = 0;  // Householder product: k
  bool vectors = true;     // eigen and SVD: (right) eigenvectors, U and V^H wanted
  bool left_vectors = false;  // general eigen: left eigenvectors wanted
  bool full_matrices = true;  // SVD: U m x m and vt n x n (else k columns, rows)
  int64_t low = 1;            // Hessenberg: LAPACK's ilo and ihi (1-based)
  int64_t high = 0;
};

// Whether `hlo` is one of the ops above (by opcode or custom-call target);
// DescribeLinalgOp may still reject it.
bool IsLinalgOp(const HloInstruction& hlo);

// "cholesky", "triangular-solve", or the custom call's target: for messages.
std::string LinalgName(const HloInstruction& hlo);

// The description of `hlo`, with its operand and result shapes checked; an
// InvalidArgument error naming what does not fit otherwise.
absl::StatusOr<LinalgOp> DescribeLinalgOp(const HloInstruction& hlo);

}  // namespace tessera

#endif  // TESSERA_HLO_ANALYSIS_LINALG_OP_H_
