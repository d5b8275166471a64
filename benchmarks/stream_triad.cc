// STREAM triad, a[i] = b[i] + s * c[i], over three 256 MiB arrays of double,
// with 1 and N threads (default: 1 and 2).  Each thread touches its own
// slice first (outside the timing: fresh pages are slow here, see
// ../shared/MACHINE_PERF.md), then the best of `reps` timed passes is
// reported as STREAM counts it: 3 x 256 MiB (two reads, one write) per pass.
//
//   bazel run -c opt //benchmarks:stream_triad [-- THREADS...]
// Prints one JSON object per thread count:
//   {"kernel": "triad", "threads": 2, "bytes": ..., "best_ms": ..., "gbs": ...}
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

namespace {

constexpr size_t kBytes = size_t{256} << 20;
constexpr size_t kN = kBytes / sizeof(double);

void ForEachSlice(int threads, void (*body)(size_t, size_t, double*, double*, double*),
                  double* a, double* b, double* c) {
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    const size_t begin = kN * t / threads, end = kN * (t + 1) / threads;
    pool.emplace_back([=] { body(begin, end, a, b, c); });
  }
  for (std::thread& th : pool) th.join();
}

void Init(size_t begin, size_t end, double* a, double* b, double* c) {
  for (size_t i = begin; i < end; ++i) {
    a[i] = 0.0;
    b[i] = 1.0;
    c[i] = 2.0;
  }
}

void Triad(size_t begin, size_t end, double* __restrict a, double* __restrict b,
           double* __restrict c) {
  const double s = 3.0;
  for (size_t i = begin; i < end; ++i) a[i] = b[i] + s * c[i];
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> thread_counts;
  for (int i = 1; i < argc; ++i) thread_counts.push_back(std::atoi(argv[i]));
  if (thread_counts.empty()) thread_counts = {1, 2};
  const int reps = 10;
  for (int threads : thread_counts) {
    if (threads < 1) continue;
    // Fresh arrays per thread count, so each thread first-touches its slice
    // (the pages land near the thread that uses them).
    auto* a = static_cast<double*>(std::aligned_alloc(64, kBytes));
    auto* b = static_cast<double*>(std::aligned_alloc(64, kBytes));
    auto* c = static_cast<double*>(std::aligned_alloc(64, kBytes));
    ForEachSlice(threads, Init, a, b, c);
    ForEachSlice(threads, Triad, a, b, c);  // warm-up
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
      const auto start = std::chrono::steady_clock::now();
      ForEachSlice(threads, Triad, a, b, c);
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      best = std::min(best, ms);
    }
    // Keep the result observable.
    if (a[kN / 2] != 1.0 + 3.0 * 2.0) {
      std::fprintf(stderr, "stream_triad: wrong result\n");
      return 1;
    }
    const double bytes = 3.0 * kBytes;
    std::printf("{\"kernel\": \"triad\", \"threads\": %d, \"bytes\": %.0f, \"best_ms\": %.4f, "
                "\"gbs\": %.2f}\n",
                threads, bytes, best, bytes / (best * 1e-3) / 1e9);
    std::fflush(stdout);
    std::free(a);
    std::free(b);
    std::free(c);
  }
  return 0;
}
