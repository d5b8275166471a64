#include "runtime/thread_pool.h"

#define EIGEN_USE_THREADS
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>

#include "unsupported/Eigen/CXX11/ThreadPool"

namespace tessera {
namespace runtime {
namespace {

// The blocks of one ParallelFor, shared by the caller and the workers it
// woke.  Workers that start after every block is claimed find nothing to do
// and only touch this state, which the shared_ptr keeps alive.
struct ParallelForState {
  ParallelForState(int64_t n, int64_t block_size, int64_t num_blocks,
                   absl::FunctionRef<void(int64_t, int64_t)> fn)
      : n(n), block_size(block_size), num_blocks(num_blocks), fn(fn) {}

  const int64_t n;
  const int64_t block_size;
  const int64_t num_blocks;
  // Valid while any block is unfinished: the caller waits for all of them.
  const absl::FunctionRef<void(int64_t, int64_t)> fn;
  std::atomic<int64_t> next_block{0};
  std::atomic<int64_t> done_blocks{0};
  std::mutex mutex;
  std::condition_variable finished_changed;
  bool finished = false;  // guarded by mutex

  // Runs blocks until none is left to claim.
  void RunBlocks() {
    int64_t ran = 0;
    for (int64_t block = next_block.fetch_add(1, std::memory_order_relaxed); block < num_blocks;
         block = next_block.fetch_add(1, std::memory_order_relaxed)) {
      const int64_t begin = block * block_size;
      fn(begin, std::min(n, begin + block_size));
      ++ran;
    }
    if (ran == 0) return;
    if (done_blocks.fetch_add(ran, std::memory_order_acq_rel) + ran == num_blocks) {
      std::lock_guard<std::mutex> lock(mutex);
      finished = true;
      finished_changed.notify_all();
    }
  }

  void Wait() {
    // Short kernels finish within microseconds: spin a little before
    // sleeping on the mutex.
    for (int spin = 0; spin < 2000; ++spin) {
      if (done_blocks.load(std::memory_order_acquire) == num_blocks) return;
    }
    std::unique_lock<std::mutex> lock(mutex);
    finished_changed.wait(lock, [this] { return finished; });
  }
};

}  // namespace

ThreadPool::ThreadPool(int parallelism, const ThreadPoolOptions& options)
    : parallelism_(std::max(parallelism, 1)) {
  if (parallelism_ > 1) {
    workers_ = std::make_unique<Eigen::ThreadPool>(parallelism_ - 1, options.allow_spinning);
  }
}

ThreadPool::~ThreadPool() = default;

ThreadPool& ThreadPool::Default() {
  static ThreadPool* const pool =
      new ThreadPool(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  return *pool;
}

bool ThreadPool::InWorker() const {
  return workers_ != nullptr && workers_->CurrentThreadId() >= 0;
}

int64_t ThreadPool::BlockSizeFor(int64_t n, int64_t min_block_size) const {
  min_block_size = std::max<int64_t>(min_block_size, 1);
  if (n <= 0) return min_block_size;
  // A few blocks per thread, so that a thread slowed by other load on the
  // machine does not hold up the others.
  const int64_t blocks = parallelism_ == 1 ? 1 : 4 * static_cast<int64_t>(parallelism_);
  return std::max((n + blocks - 1) / blocks, min_block_size);
}

void ThreadPool::ParallelFor(int64_t n, int64_t block_size,
                             absl::FunctionRef<void(int64_t begin, int64_t end)> fn) {
  if (n <= 0) return;
  block_size = std::max<int64_t>(block_size, 1);
  const int64_t num_blocks = (n - 1) / block_size + 1;
  if (num_blocks == 1 || workers_ == nullptr || InWorker()) {
    for (int64_t begin = 0; begin < n; begin += block_size) {
      fn(begin, std::min(n, begin + block_size));
    }
    return;
  }
  auto state = std::make_shared<ParallelForState>(n, block_size, num_blocks, fn);
  const int64_t helpers = std::min<int64_t>(num_blocks - 1, parallelism_ - 1);
  for (int64_t i = 0; i < helpers; ++i) {
    workers_->Schedule([state] { state->RunBlocks(); });
  }
  state->RunBlocks();
  state->Wait();
}

void ThreadPool::Schedule(std::function<void()> task) {
  if (workers_ == nullptr) {
    task();
    return;
  }
  workers_->Schedule(std::move(task));
}

}  // namespace runtime
}  // namespace tessera
