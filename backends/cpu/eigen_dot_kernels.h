// Internal to eigen_dot: Eigen GEMMs on one output block, compiled for
// AVX-512 (with Eigen's namespace renamed, so no other translation unit's
// baseline copy of Eigen's templates can be mixed with these).  Callers
// check KernelsSupported() first.
#ifndef TESSERA_BACKENDS_CPU_EIGEN_DOT_KERNELS_H_
#define TESSERA_BACKENDS_CPU_EIGEN_DOT_KERNELS_H_

#include <cstdint>

namespace tessera {
namespace cpu {
namespace eigen_dot_internal {

// True when this CPU can run the kernels below (AVX-512 F/BW/DQ/VL and FMA).
// Defined in eigen_dot.cc, which is compiled for the baseline CPU.
bool KernelsSupported();

// c[r0:r1, c0:c1] = op(a)[r0:r1, :] x op(b)[:, c0:c1], contracted over k,
// where c is m x n row-major with row stride ldc, a is m x k (k x m when ta)
// row-major with row stride lda, b is k x n (n x k when tb) with row stride
// ldb (all in elements; the dense strides are k or m, n or k, and n).
void GemmBlockF32(const float* a, const float* b, float* c, int64_t k, bool ta, bool tb,
                  int64_t lda, int64_t ldb, int64_t ldc, int64_t r0, int64_t r1, int64_t c0,
                  int64_t c1);
void GemmBlockF64(const double* a, const double* b, double* c, int64_t k, bool ta, bool tb,
                  int64_t lda, int64_t ldb, int64_t ldc, int64_t r0, int64_t r1, int64_t c0,
                  int64_t c1);
// Wrapping 32-bit integer products (signed results are the same bits).
void GemmBlockU32(const uint32_t* a, const uint32_t* b, uint32_t* c, int64_t k, bool ta, bool tb,
                  int64_t lda, int64_t ldb, int64_t ldc, int64_t r0, int64_t r1, int64_t c0,
                  int64_t c1);

}  // namespace eigen_dot_internal
}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_EIGEN_DOT_KERNELS_H_
