// ThreadPool: the threads that parallel kernels split their work over,
// built on Eigen's non-blocking `Eigen::ThreadPool`.  One process-wide pool
// sized to the machine (ThreadPool::Default) is shared by every executable,
// so kernels of different programs do not oversubscribe the cores.
//
//   ThreadPool::Default().ParallelFor(rows, /*block_size=*/64,
//                                     [&](int64_t begin, int64_t end) {
//                                       for (int64_t r = begin; r < end; ++r) DoRow(r);
//                                     });
//
// A pool of parallelism P runs a ParallelFor on the calling thread and
// P - 1 worker threads; the caller takes blocks too, so a ParallelFor never
// waits for a worker that has not started (nested or concurrent calls from
// many threads cannot deadlock).  A ParallelFor issued from inside one of
// the pool's own workers runs inline.
#ifndef TESSERA_RUNTIME_THREAD_POOL_H_
#define TESSERA_RUNTIME_THREAD_POOL_H_

#include <cstdint>
#include <functional>
#include <memory>

#include "absl/functional/function_ref.h"

namespace Eigen {
struct StlThreadEnvironment;
template <typename Environment>
class ThreadPoolTempl;
}  // namespace Eigen

namespace tessera {
namespace runtime {

struct ThreadPoolOptions {
  // Workers spin briefly for new work before sleeping (Eigen's
  // allow_spinning): lower latency between short kernels, at the cost of
  // CPU time while idle.
  bool allow_spinning = true;
};

class ThreadPool {
 public:
  // `parallelism` threads in all (the caller and parallelism - 1 workers);
  // values below 1 mean 1 (everything inline).
  explicit ThreadPool(int parallelism, const ThreadPoolOptions& options = {});
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // The process-wide pool: parallelism std::thread::hardware_concurrency()
  // (at least 1).  Created on first use and never destroyed.
  static ThreadPool& Default();

  int parallelism() const { return parallelism_; }

  // Calls fn(begin, end) for the blocks [0, b), [b, 2b), ... covering
  // [0, n) (b = block_size, at least 1; the last block may be shorter), in
  // parallel, and returns when all have run.  Runs inline when there is one
  // block, the pool has parallelism 1, or the caller is a worker of this
  // pool.  Nothing runs for n <= 0.
  void ParallelFor(int64_t n, int64_t block_size,
                   absl::FunctionRef<void(int64_t begin, int64_t end)> fn);

  // A block size that splits n units into about parallelism() blocks of at
  // least min_block_size units each.
  int64_t BlockSizeFor(int64_t n, int64_t min_block_size = 1) const;

  // Runs `task` on a worker (or inline when there are none).
  void Schedule(std::function<void()> task);

 private:
  bool InWorker() const;

  int parallelism_ = 1;
  std::unique_ptr<Eigen::ThreadPoolTempl<Eigen::StlThreadEnvironment>> workers_;
};

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_THREAD_POOL_H_
