// ParallelFor covers every index exactly once, for edge sizes and block
// sizes, inline and on workers, nested and from several threads at once.
#include "runtime/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <cstdint>
#include <numeric>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace tessera {
namespace runtime {
namespace {

// Counts how often each index in [0, n) is visited; every count must be 1.
void ExpectEachIndexOnce(ThreadPool& pool, int64_t n, int64_t block_size) {
  std::vector<std::atomic<int>> visits(std::max<int64_t>(n, 0));
  std::atomic<int64_t> calls{0};
  pool.ParallelFor(n, block_size, [&](int64_t begin, int64_t end) {
    ASSERT_LE(0, begin);
    ASSERT_LT(begin, end);
    ASSERT_LE(end, n);
    ASSERT_LE(end - begin, std::max<int64_t>(block_size, 1));
    calls.fetch_add(1);
    for (int64_t i = begin; i < end; ++i) visits[i].fetch_add(1);
  });
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(visits[i].load(), 1) << "index " << i << " of " << n;
  const int64_t block = std::max<int64_t>(block_size, 1);
  EXPECT_EQ(calls.load(), n <= 0 ? 0 : (n + block - 1) / block);
}

TEST(ThreadPoolTest, EveryIndexOnceForEdgeSizes) {
  for (int parallelism : {1, 2, 4}) {
    ThreadPool pool(parallelism);
    EXPECT_EQ(pool.parallelism(), parallelism);
    for (int64_t n : {0, 1, 2, 7, 63, 64, 65, 1023, 1025, 100000}) {
      for (int64_t block : {0, 1, 3, 64, 1000, 200000}) {
        SCOPED_TRACE(testing::Message() << "parallelism " << parallelism << " n " << n
                                        << " block " << block);
        ExpectEachIndexOnce(pool, n, block);
      }
    }
  }
}

TEST(ThreadPoolTest, NegativeCountRunsNothing) {
  ThreadPool pool(2);
  bool ran = false;
  pool.ParallelFor(-5, 1, [&](int64_t, int64_t) { ran = true; });
  EXPECT_FALSE(ran);
}

TEST(ThreadPoolTest, SumsMatchSerialSum) {
  ThreadPool pool(4);
  const int64_t n = 1 << 20;
  std::vector<int64_t> values(n);
  std::iota(values.begin(), values.end(), -1000);
  const int64_t block = pool.BlockSizeFor(n, 1024);
  std::vector<int64_t> partial((n + block - 1) / block, 0);
  pool.ParallelFor(n, block, [&](int64_t begin, int64_t end) {
    int64_t sum = 0;
    for (int64_t i = begin; i < end; ++i) sum += values[i];
    partial[begin / block] = sum;
  });
  EXPECT_EQ(std::accumulate(partial.begin(), partial.end(), int64_t{0}),
            std::accumulate(values.begin(), values.end(), int64_t{0}));
}

TEST(ThreadPoolTest, RunsOnWorkersWhenThereAreSome) {
  ThreadPool pool(3);
  std::mutex mutex;
  std::vector<std::thread::id> ids;
  // Blocks that wait for each other can only finish if several threads run them.
  std::atomic<int> arrived{0};
  pool.ParallelFor(2, 1, [&](int64_t, int64_t) {
    arrived.fetch_add(1);
    while (arrived.load() < 2) std::this_thread::yield();
    std::lock_guard<std::mutex> lock(mutex);
    ids.push_back(std::this_thread::get_id());
  });
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_NE(ids[0], ids[1]);
}

TEST(ThreadPoolTest, SingleThreadPoolRunsInlineInOrder) {
  ThreadPool pool(1);
  std::vector<int64_t> begins;
  const std::thread::id caller = std::this_thread::get_id();
  pool.ParallelFor(10, 3, [&](int64_t begin, int64_t end) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    begins.push_back(begin);
  });
  EXPECT_EQ(begins, (std::vector<int64_t>{0, 3, 6, 9}));
}

TEST(ThreadPoolTest, NestedParallelForCompletes) {
  ThreadPool pool(2);
  std::atomic<int64_t> total{0};
  pool.ParallelFor(16, 1, [&](int64_t, int64_t) {
    pool.ParallelFor(100, 7, [&](int64_t begin, int64_t end) { total.fetch_add(end - begin); });
  });
  EXPECT_EQ(total.load(), 1600);
}

TEST(ThreadPoolTest, ConcurrentCallersShareThePool) {
  ThreadPool pool(2);
  std::atomic<int64_t> total{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&] {
      for (int rep = 0; rep < 50; ++rep) {
        pool.ParallelFor(1000, 10, [&](int64_t begin, int64_t end) { total.fetch_add(end - begin); });
      }
    });
  }
  for (std::thread& caller : callers) caller.join();
  EXPECT_EQ(total.load(), 4 * 50 * 1000);
}

TEST(ThreadPoolTest, BlockSizeFor) {
  ThreadPool one(1);
  EXPECT_EQ(one.BlockSizeFor(1000), 1000);
  ThreadPool two(2);
  EXPECT_EQ(two.BlockSizeFor(1000), 125);  // 4 blocks per thread
  EXPECT_EQ(two.BlockSizeFor(1000, 300), 300);
  EXPECT_EQ(two.BlockSizeFor(0, 5), 5);
}

TEST(ThreadPoolTest, DefaultIsSizedToTheMachine) {
  const int expected = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_EQ(ThreadPool::Default().parallelism(), expected);
  EXPECT_EQ(&ThreadPool::Default(), &ThreadPool::Default());
}

TEST(ThreadPoolTest, ScheduleRunsTask) {
  ThreadPool pool(2);
  std::atomic<bool> ran{false};
  pool.Schedule([&] { ran = true; });
  while (!ran.load()) std::this_thread::yield();
  ThreadPool inline_pool(1);
  bool ran_inline = false;
  inline_pool.Schedule([&] { ran_inline = true; });
  EXPECT_TRUE(ran_inline);
}

}  // namespace
}  // namespace runtime
}  // namespace tessera
