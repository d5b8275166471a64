// SGEMM (n x n x n, row-major, f32) through RunDot, steady state: buffers
// allocated and touched once, reused by every iteration.
//
//   bazel run -c opt //backends/cpu:eigen_dot_benchmark
//
// BM_Sgemm runs on runtime::ThreadPool::Default() (all cores);
// BM_SgemmOneThread on the calling thread only; the *Eigen variants on
// Eigen's f32 kernels instead of oneDNN's (the default).  GFLOP/s = 2 n^3 / time
// (the counter GFLOP, shown as a rate "GFLOP=.../s").  BM_FmaPeak measures
// this machine's register-only AVX-512 f32 FMA throughput (1 and all
// threads) in the same run, since the machine is shared and noisy; it is
// skipped on a CPU without AVX-512F.
#include <algorithm>
#include <cmath>
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
  // Spot-check the product so that a fast wrong kernel cannot pass.
  for (int64_t s = 0; s < 64; ++s) {
    const int64_t i = (s * 7919) % n, j = (s * 104729) % n;
    double exact = 0, scale = 0;
    for (int64_t p = 0; p < n; ++p) {
      exact += double{a[i * n + p]} * b[p * n + j];
      scale += std::fabs(double{a[i * n + p]} * b[p * n + j]);
    }
    if (std::fabs(c[i * n + j] - exact) > 1e-5 * scale) {
      state.SkipWithError("wrong product");
      return;
    }
  }
  for (auto _ : state) {
    (void)RunDot(shape, a.data(), b.data(), c.data(), pool);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP"] = benchmark::Counter(
      static_cast<double>(shape.flops()) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["threads"] = pool == nullptr ? 1 : pool->parallelism();
}

// 12 independent chains of 16-lane FMAs, `iters` times; returns a value so
// the work is kept.
__attribute__((target("avx512f,fma"), noinline)) float FmaChains(int64_t iters) {
  typedef float v16 __attribute__((vector_size(64)));
  v16 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = v16{} + 0.5f * i;
  const v16 x = v16{} + 0.999999f, y = v16{} + 1e-7f;
  for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = acc[i] * x + y;
  }
  v16 sum = acc[0];
  for (int i = 1; i < 12; ++i) sum += acc[i];
  float total = 0;
  for (int i = 0; i < 16; ++i) total += sum[i];
  return total;
}

void BM_FmaPeak(benchmark::State& state) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("fma")) {
    state.SkipWithError("no AVX-512F");
    return;
  }
  const int threads = static_cast<int>(state.range(0));
  runtime::ThreadPool& pool = runtime::ThreadPool::Default();
  const int64_t iters = 1 << 22;
  for (auto _ : state) {
    if (threads == 1) {
      benchmark::DoNotOptimize(FmaChains(iters));
    } else {
      pool.ParallelFor(threads, 1, [&](int64_t, int64_t) {
        benchmark::DoNotOptimize(FmaChains(iters));
      });
    }
  }
  state.counters["GFLOP"] = benchmark::Counter(static_cast<double>(iters) * 12 * 16 * 2 *
                                                   threads * 1e-9,
                                               benchmark::Counter::kIsIterationInvariantRate);
  state.counters["threads"] = threads;
}

void BM_Sgemm(benchmark::State& state) { RunSgemm(state, &runtime::ThreadPool::Default()); }
void BM_SgemmOneThread(benchmark::State& state) { RunSgemm(state, nullptr); }
// The same on Eigen's f32 kernels instead of oneDNN's.
void BM_SgemmEigen(benchmark::State& state) {
  eigen_dot_internal::SetUseEigenF32KernelsForTesting(true);
  RunSgemm(state, &runtime::ThreadPool::Default());
  eigen_dot_internal::SetUseEigenF32KernelsForTesting(false);
}
void BM_SgemmOneThreadEigen(benchmark::State& state) {
  eigen_dot_internal::SetUseEigenF32KernelsForTesting(true);
  RunSgemm(state, nullptr);
  eigen_dot_internal::SetUseEigenF32KernelsForTesting(false);
}

BENCHMARK(BM_FmaPeak)
    ->Arg(1)
    ->Arg(std::max(1, runtime::ThreadPool::Default().parallelism()))
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
// n = 256, 512, 1024, 2048, in milliseconds of real time.
void SgemmSizes(benchmark::internal::Benchmark* b) {
  for (int64_t n : {256, 512, 1024, 2048}) b->Arg(n);
  b->UseRealTime()->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_Sgemm)->Apply(SgemmSizes);
BENCHMARK(BM_SgemmOneThread)->Apply(SgemmSizes);
BENCHMARK(BM_SgemmEigen)->Apply(SgemmSizes);
BENCHMARK(BM_SgemmOneThreadEigen)->Apply(SgemmSizes);

}  // namespace
}  // namespace cpu
}  // namespace tessera

BENCHMARK_MAIN();
