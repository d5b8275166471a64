// Work over rows [0, n) split over a thread pool, for the CPU backend's
// host-code thunks (convolutions): fn(begin, end) per block of at least
// `min_block` rows, on the calling thread alone where `pool` is null or n
// is small.
#ifndef TESSERA_BACKENDS_CPU_PARALLEL_ROWS_H_
#define TESSERA_BACKENDS_CPU_PARALLEL_ROWS_H_

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {

inline void ParallelRows(runtime::ThreadPool* pool, int64_t n, int64_t min_block,
                         absl::FunctionRef<void(int64_t, int64_t)> fn) {
  if (pool == nullptr || n <= min_block) {
    fn(0, n);
    return;
  }
  pool->ParallelFor(n, pool->BlockSizeFor(n, min_block), fn);
}

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_PARALLEL_ROWS_H_
