// OneDnnGemmBlockF32 and OneDnnGemmBlockS8; see onednn_gemm.h.
#include "backends/cpu/onednn_gemm.h"

#include <atomic>
#include <mutex>

#include "oneapi/dnnl/dnnl.h"

// libgomp's, which oneDNN links: the calling thread's team size (an OpenMP
// internal control variable of that thread alone).
extern "C" void omp_set_num_threads(int);
extern "C" int omp_get_max_threads();

namespace tessera {
namespace cpu {

OneOpenMpThread::OneOpenMpThread() : previous_(omp_get_max_threads()) {
  omp_set_num_threads(1);
}
OneOpenMpThread::~OneOpenMpThread() { omp_set_num_threads(previous_); }

bool OneDnnGemmBlockF32(const float* a, const float* b, float* c, int64_t k, bool ta, bool tb,
                        int64_t lda, int64_t ldb, int64_t ldc, int64_t r0, int64_t r1, int64_t c0,
                        int64_t c1, float alpha, float beta) {
  const int64_t rows = r1 - r0, cols = c1 - c0;
  if (rows <= 0 || cols <= 0) return true;
  const OneOpenMpThread one_thread;  // ours (see the header)
  // op(a)[r0:r1, :] starts at row r0 of a (m x k), or column r0 of the
  // k x m a; op(b)[:, c0:c1] at column c0 of b (k x n), or row c0 of the
  // n x k b.  oneDNN's sgemm is row-major, like these.
  const float* a_block = ta ? a + r0 : a + r0 * lda;
  const float* b_block = tb ? b + c0 * ldb : b + c0;
  return dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', rows, cols, k, alpha, a_block, lda, b_block,
                    ldb, beta, c + r0 * ldc + c0, ldc) == dnnl_success;
}

namespace {
std::atomic<bool> gemm_warm{false};
}  // namespace

void WarmUpOneDnnGemm() {
  static std::once_flag once;
  std::call_once(once, [] {
    float a[16] = {}, b[16] = {}, c[16];
    OneDnnGemmBlockF32(a, b, c, 4, false, false, 4, 4, 4, 0, 4, 0, 4);
    gemm_warm.store(true, std::memory_order_release);
  });
}

bool OneDnnGemmIsWarm() { return gemm_warm.load(std::memory_order_acquire); }

bool OneDnnGemmS8IsExact() {
  static const bool exact = [] {
    const unsigned isa = static_cast<unsigned>(dnnl_get_effective_cpu_isa());
    const unsigned vnni = static_cast<unsigned>(dnnl_cpu_isa_avx512_core_vnni);
    return (isa & vnni) == vnni;
  }();
  return exact;
}

bool OneDnnGemmBlockS8(const int8_t* a, const int8_t* b, int32_t* c, int64_t k, bool ta, bool tb,
                       int64_t lda, int64_t ldb, int64_t ldc, int64_t r0, int64_t r1, int64_t c0,
                       int64_t c1) {
  const int64_t rows = r1 - r0, cols = c1 - c0;
  if (rows <= 0 || cols <= 0) return true;
  const OneOpenMpThread one_thread;
  const int8_t* a_block = ta ? a + r0 : a + r0 * lda;
  const int8_t* b_block = tb ? b + c0 * ldb : b + c0;
  const int32_t no_offset = 0;
  // alpha 1 and beta 0 keep oneDNN's sums in integers (no float scaling).
  return dnnl_gemm_s8s8s32(ta ? 'T' : 'N', tb ? 'T' : 'N', 'F', rows, cols, k, 1.0f, a_block, lda,
                           0, b_block, ldb, 0, 0.0f, c + r0 * ldc + c0, ldc,
                           &no_offset) == dnnl_success;
}

}  // namespace cpu
}  // namespace tessera
