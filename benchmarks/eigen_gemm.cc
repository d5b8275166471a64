// The Eigen GEMM peer: SGEMM n x n x n (row-major f32) as a user of Eigen
// would write it on this machine, steady state (buffers allocated and
// touched once, reused): an Eigen Tensor contraction on a ThreadPoolDevice
// with all cores (what XLA's CPU runtime calls), and Eigen's Matrix
// product on one thread.  Best of the timed runs after warm-up.
//
//   bazel run -c opt //benchmarks:eigen_gemm [-- N...]   (default 256 512 1024 2048)
// Prints one JSON object per size and variant:
//   {"name": "gemm_1024", "peer": "eigen_tensor", "threads": 2, "run_ms_min": ..., "gflops": ...}
#define EIGEN_USE_THREADS
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "Eigen/Core"
#include "unsupported/Eigen/CXX11/Tensor"

namespace {

using Clock = std::chrono::steady_clock;

template <typename F>
double BestMs(F&& f, int n) {
  f();  // warm-up
  f();
  const int iters = n <= 512 ? 50 : (n <= 1024 ? 10 : 4);
  double best = 1e30;
  for (int i = 0; i < iters; ++i) {
    const auto start = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  return best;
}

void Report(int n, const char* peer, int threads, double ms) {
  const double flops = 2.0 * n * n * n;
  std::printf("{\"name\": \"gemm_%d\", \"peer\": \"%s\", \"threads\": %d, \"run_ms_min\": %.4f, "
              "\"gflops\": %.2f}\n",
              n, peer, threads, ms, flops / (ms * 1e-3) / 1e9);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {256, 512, 1024, 2048};
  const int threads = std::max(1u, std::thread::hardware_concurrency());
  Eigen::ThreadPool pool(threads);
  Eigen::ThreadPoolDevice device(&pool, threads);
  for (int n : sizes) {
    using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    Mat a = Mat::Random(n, n), b = Mat::Random(n, n), c = Mat::Zero(n, n);
    Eigen::TensorMap<Eigen::Tensor<float, 2, Eigen::RowMajor>> ta(a.data(), n, n), tb(b.data(), n, n),
        tc(c.data(), n, n);
    const Eigen::array<Eigen::IndexPair<int>, 1> dims = {Eigen::IndexPair<int>(1, 0)};
    // Spot-check one element after each variant, so a broken build cannot
    // report a fast wrong product.
    auto check = [&](const char* peer) {
      double exact = 0;
      for (int p = 0; p < n; ++p) exact += double{a(n / 3, p)} * b(p, n / 5);
      if (std::abs(c(n / 3, n / 5) - exact) > 1e-3 * n) {
        std::fprintf(stderr, "eigen_gemm: %s: wrong product at n=%d\n", peer, n);
        std::exit(1);
      }
      c.setZero();
    };
    Report(n, "eigen_tensor", threads,
           BestMs([&] { tc.device(device) = ta.contract(tb, dims); }, n));
    check("eigen_tensor");
    Report(n, "eigen_matrix", 1, BestMs([&] { c.noalias() = a * b; }, n));
    check("eigen_matrix");
  }
  return 0;
}
