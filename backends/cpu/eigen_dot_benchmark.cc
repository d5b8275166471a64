// SGEMM (n x n x n, row-major, f32) through RunDot, steady state: buffers
// allocated and touched once, reused by every iteration.
//
//   bazel run -c opt //backends/cpu:eigen_dot_benchmark
//
// BM_Sgemm runs on runtime::ThreadPool::Default() (all cores);
// BM_SgemmOneThread on the calling thread only.  GFLOP/s = 2 n^3 / time.
#include <random>
#include <vector>

#include "backends/cpu/eigen_dot.h"
#include "benchmark/benchmark.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {
namespace {

void RunSgemm(benchmark::State& state, runtime::ThreadPool* pool) {
  const int64_t n = state.range(0);
  DotShape shape;
  shape.m = shape.n = shape.k = n;
  std::vector<float> a(n * n), b(n * n), c(n * n);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& x : a) x = dist(rng);
  for (float& x : b) x = dist(rng);
  // Warm-up: first touches and Eigen's own allocations.
  if (!RunDot(shape, a.data(), b.data(), c.data(), pool).ok()) {
    state.SkipWithError("RunDot failed");
    return;
  }
  for (auto _ : state) {
    (void)RunDot(shape, a.data(), b.data(), c.data(), pool);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      static_cast<double>(shape.flops()) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["threads"] = pool == nullptr ? 1 : pool->parallelism();
}

void BM_Sgemm(benchmark::State& state) { RunSgemm(state, &runtime::ThreadPool::Default()); }
void BM_SgemmOneThread(benchmark::State& state) { RunSgemm(state, nullptr); }

BENCHMARK(BM_Sgemm)->Arg(256)->Arg(512)->Arg(1024)->Arg(2048)->UseRealTime()->Unit(
    benchmark::kMillisecond);
BENCHMARK(BM_SgemmOneThread)->Arg(256)->Arg(512)->Arg(1024)->Arg(2048)->UseRealTime()->Unit(
    benchmark::kMillisecond);

}  // namespace
}  // namespace cpu
}  // namespace tessera

BENCHMARK_MAIN();
