// f32 (and s8) GEMM blocks through oneDNN's sgemm (gemm_s8s8s32) (libdnnl, Debian's libdnnl-dev),
// the dot thunk's f32 kernel: its JIT kernels (AVX-512 here, whatever the CPU has elsewhere) beat
// Eigen's on this machine, on 2 threads 6-9% at n = 512-2048 (508 against 466 GFLOP/s at 2048, 93%
// of the FMA peak) and 1.6x at 256 (//backends/cpu:eigen_dot_benchmark, the *Eigen variants).
//
// Threading stays ours: RunDot splits a product into panels over the
// runtime::ThreadPool and each panel is one call here, run sequentially on
// the calling thread.  Debian's oneDNN parallelizes with OpenMP; its team
// would compete with our pool for the cores (and spin after each call), so
// every call limits the calling thread's OpenMP team to itself while it
// runs (OneOpenMpThread).
#ifndef TESSERA_BACKENDS_CPU_ONEDNN_GEMM_H_
#define TESSERA_BACKENDS_CPU_ONEDNN_GEMM_H_

#include <cstdint>

namespace tessera {
namespace cpu {

// While alive, OpenMP parallel regions started by this thread (oneDNN's)
// run on it alone; the thread's previous team size comes back after, since
// the calling thread may be the user's, with OpenMP code of its own.
class OneOpenMpThread {
 public:
  OneOpenMpThread();
  ~OneOpenMpThread();
  OneOpenMpThread(const OneOpenMpThread&) = delete;
  OneOpenMpThread& operator=(const OneOpenMpThread&) = delete;

 private:
  int previous_;
};

// oneDNN generates its sgemm's JIT kernels at its first call in a process
// (30-55 ms here, whatever the size): this makes that call, on a 4 x 4
// product, once per process (callers: on a background thread, before a
// program's first run needs them; cpu_compiler.cc).  Later calls return at
// once; calls while it runs wait for it.
void WarmUpOneDnnGemm();
// Whether WarmUpOneDnnGemm has finished.
bool OneDnnGemmIsWarm();

// c[r0:r1, c0:c1] = alpha op(a)[r0:r1, :] x op(b)[:, c0:c1] + beta c[...] over k, as
// eigen_dot_internal::GemmBlockF32: a stored m x k row-major with row
// stride lda (k x m when ta), b stored k x n (n x k when tb), c row-major
// with row stride ldc.  False when oneDNN refused (the caller then uses
// another kernel); the block is then unwritten.
bool OneDnnGemmBlockF32(const float* a, const float* b, float* c, int64_t k, bool ta, bool tb,
                        int64_t lda, int64_t ldb, int64_t ldc, int64_t r0, int64_t r1, int64_t c0,
                        int64_t c1, float alpha = 1.0f, float beta = 0.0f);

// Whether OneDnnGemmBlockS8 is exact here: oneDNN's effective ISA has
// AVX512-VNNI, whose vpdpbusd adds byte products straight into 32-bit sums.
// Without it oneDNN's int8 GEMM pairs products in saturating 16-bit sums
// (vpmaddubsw), where an s8 dot must wrap in s32 as the evaluator does; so
// there, and where DNNL_MAX_CPU_ISA caps the ISA below VNNI, the caller
// uses its own kernels instead.
bool OneDnnGemmS8IsExact();

// The s8 x s8 -> s32 form of OneDnnGemmBlockF32 (dnnl_gemm_s8s8s32, no
// offsets): c's s32 sums wrap.  Call only where OneDnnGemmS8IsExact().
bool OneDnnGemmBlockS8(const int8_t* a, const int8_t* b, int32_t* c, int64_t k, bool ta, bool tb,
                       int64_t lda, int64_t ldb, int64_t ldc, int64_t r0, int64_t r1, int64_t c0,
                       int64_t c1);

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_ONEDNN_GEMM_H_
