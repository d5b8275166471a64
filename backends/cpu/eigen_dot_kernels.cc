#include "backends/cpu/eigen_dot_kernels.h"

#define EIGEN_DONT_PARALLELIZE
// Eigen's namespace renamed in this AVX-512 build: other files instantiate
// some of the same templates (linalg_thunk.cc's matrix-vector products,
// built for the baseline ISA), and the linker would keep one copy of each,
// which could be this one on a host without AVX-512.
#define Eigen TesseraEigenDotAvx512
#include "Eigen/Core"

namespace tessera {
namespace cpu {
namespace eigen_dot_internal {
namespace {

template <typename T>
using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstMap = Eigen::Map<const RowMat<T>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <typename T>
using MutMap = Eigen::Map<RowMat<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

template <typename T>
void GemmBlock(const T* a, const T* b, T* c, int64_t k, bool ta, bool tb, int64_t lda,
               int64_t ldb, int64_t ldc, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  const int64_t rows = r1 - r0, cols = c1 - c0;
  if (rows <= 0 || cols <= 0) return;
  MutMap<T> out(c + r0 * ldc + c0, rows, cols, Eigen::OuterStride<>(ldc));
  if (k == 0) {
    out.setZero();
    return;
  }
  // op(a)[r0:r1, :]: rows of a, or (columns r0:r1 of the k x m a)^T.
  const ConstMap<T> a_rows(a + r0 * lda, ta ? 0 : rows, ta ? 0 : k, Eigen::OuterStride<>(lda));
  const ConstMap<T> a_cols(a + r0, ta ? k : 0, ta ? rows : 0, Eigen::OuterStride<>(lda));
  // op(b)[:, c0:c1]: columns of b, or (rows c0:c1 of the n x k b)^T.
  const ConstMap<T> b_cols(b + c0, tb ? 0 : k, tb ? 0 : cols, Eigen::OuterStride<>(ldb));
  const ConstMap<T> b_rows(b + c0 * ldb, tb ? cols : 0, tb ? k : 0, Eigen::OuterStride<>(ldb));
  if (!ta && !tb) {
    out.noalias() = a_rows * b_cols;
  } else if (!ta && tb) {
    out.noalias() = a_rows * b_rows.transpose();
  } else if (ta && !tb) {
    out.noalias() = a_cols.transpose() * b_cols;
  } else {
    out.noalias() = a_cols.transpose() * b_rows.transpose();
  }
}

}  // namespace

void GemmBlockF32(const float* a, const float* b, float* c, int64_t k, bool ta, bool tb,
                  int64_t lda, int64_t ldb, int64_t ldc, int64_t r0, int64_t r1, int64_t c0,
                  int64_t c1) {
  GemmBlock<float>(a, b, c, k, ta, tb, lda, ldb, ldc, r0, r1, c0, c1);
}
void GemmBlockF64(const double* a, const double* b, double* c, int64_t k, bool ta, bool tb,
                  int64_t lda, int64_t ldb, int64_t ldc, int64_t r0, int64_t r1, int64_t c0,
                  int64_t c1) {
  GemmBlock<double>(a, b, c, k, ta, tb, lda, ldb, ldc, r0, r1, c0, c1);
}
void GemmBlockU32(const uint32_t* a, const uint32_t* b, uint32_t* c, int64_t k, bool ta, bool tb,
                  int64_t lda, int64_t ldb, int64_t ldc, int64_t r0, int64_t r1, int64_t c0,
                  int64_t c1) {
  GemmBlock<uint32_t>(a, b, c, k, ta, tb, lda, ldb, ldc, r0, r1, c0, c1);
}

}  // namespace eigen_dot_internal
}  // namespace cpu
}  // namespace tessera
