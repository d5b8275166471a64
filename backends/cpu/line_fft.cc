#include "backends/cpu/line_fft.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/functional/function_ref.h"
#include "backends/cpu/lane_fft.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {
namespace {

// Lines gathered into one contiguous block per transform call, up to this
// many points in all (8 MB of c64), so that Bluestein's and the four steps'
// scratch serves several short lines at once.
constexpr int64_t kBlockPoints = int64_t{1} << 20;

bool PowerOfTwo(int64_t n) { return (n & (n - 1)) == 0; }

// Points per task of the loads and stores split over the pool, and the
// points in all from which they are split (fewer cost more to hand out
// than to move).
constexpr int64_t kChunkPoints = 4096;
constexpr int64_t kParallelPoints = int64_t{1} << 15;

// body(line, begin, end) for `lines` lines of `extent` points in chunks of
// kChunkPoints, split over the pool (may be null) when they are many.
void ForChunks(runtime::ThreadPool* pool, int64_t lines, int64_t extent,
               absl::FunctionRef<void(int64_t, int64_t, int64_t)> body) {
  const int64_t chunks = (extent + kChunkPoints - 1) / kChunkPoints, tasks = lines * chunks;
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t line = task / chunks, k0 = task % chunks * kChunkPoints;
      body(line, k0, std::min(extent, k0 + kChunkPoints));
    }
  };
  if (pool == nullptr || lines * extent < kParallelPoints) {
    run(0, tasks);
  } else {
    pool->ParallelFor(tasks, pool->BlockSizeFor(tasks), run);
  }
}

// Runs `lines` lines through `transform` in contiguous blocks of lines of
// `points` complex points: load(line, k0, k1, to) fills points [k0, k1) of
// one line of a block (of load_extent in all), transform(block, count)
// transforms its first `count` lines in place, and store(line, k0, k1,
// from) writes a line's outputs [k0, k1) (of store_extent) back.  The
// loads and stores are split over the pool as well as the transforms.
template <typename C, typename Load, typename Transform, typename Store>
void InBlocks(int64_t lines, int64_t points, int64_t load_extent, int64_t store_extent,
              runtime::ThreadPool* pool, Load load, Transform transform, Store store) {
  using R = typename C::value_type;
  const int64_t per_block = std::clamp<int64_t>(kBlockPoints / points, 1, lines);
  // Uninitialized (reals, as std::complex would zero its elements): the
  // loads write every point the transform reads.
  std::unique_ptr<R[]> storage(new R[2 * per_block * points]);
  C* block = reinterpret_cast<C*>(storage.get());
  for (int64_t first = 0; first < lines; first += per_block) {
    const int64_t count = std::min(per_block, lines - first);
    ForChunks(pool, count, load_extent, [&](int64_t i, int64_t k0, int64_t k1) {
      load(first + i, k0, k1, block + i * points);
    });
    transform(block, count);
    ForChunks(pool, count, store_extent, [&](int64_t i, int64_t k0, int64_t k1) {
      store(first + i, k0, k1, block + i * points);
    });
  }
}

}  // namespace

template <typename R>
bool LineFft<R>::Supports(int64_t n) {
  if (n < 1) return false;
  if (n <= kMaxFourStepLength && FourStepFft<R>::Supports(n)) return true;
  return !PowerOfTwo(n) && BluesteinFft<R>::Supports(n);
}

template <typename R>
LineFft<R>::LineFft(int64_t n, bool real) : n_(n) {
  if (real && n % 2 == 0 && Supports(n / 2)) {
    const int64_t h = n / 2;
    half_ = std::make_unique<const LineFft<R>>(h);
    half_twiddle_.reserve(h);
    for (int64_t k = 0; k < h; ++k) {
      const double angle = -2 * M_PI * static_cast<double>(k) / static_cast<double>(n);
      half_twiddle_.push_back(std::complex<R>(std::polar(1.0, angle)));
    }
    return;
  }
  if (n <= kMaxFourStepLength && FourStepFft<R>::Supports(n)) {
    four_step_ = std::make_unique<const FourStepFft<R>>(n);
  } else {
    bluestein_ = std::make_unique<const BluesteinFft<R>>(n);
  }
}

template <typename R>
void LineFft<R>::Transform(const std::complex<R>* in, std::complex<R>* out, int64_t lines,
                           bool inverse, runtime::ThreadPool* pool) const {
  // Both read all of their lines before writing any (into scratch of
  // their own), so in may be out.
  if (four_step_ != nullptr) {
    four_step_->Transform(in, out, lines, inverse, pool);
  } else {
    bluestein_->Transform(in, out, lines, inverse, pool);
  }
}

template <typename R>
void LineFft<R>::TransformAxis(int64_t outer, int64_t inner, LineIn in_kind, const void* in,
                               LineOut out_kind, void* out, bool inverse,
                               runtime::ThreadPool* pool) const {
  using C = std::complex<R>;
  if (half_ != nullptr) {  // contiguous lines (the constructor's contract)
    TransformPacked(outer * inner, in_kind, in, out_kind, out, inverse, pool);
    return;
  }
  const int64_t n = n_, half = n / 2 + 1;
  if (inner == 1 && in_kind == LineIn::kComplex && out_kind == LineOut::kComplex) {
    Transform(static_cast<const C*>(in), static_cast<C*>(out), outer, inverse, pool);
    return;
  }
  const int64_t n_in = in_kind == LineIn::kHalfSpectrum ? half : n;
  const int64_t n_out = out_kind == LineOut::kHalfSpectrum ? half : n;
  auto load = [&](int64_t index, int64_t k0, int64_t k1, C* line) {
    const int64_t base = index / inner * n_in * inner + index % inner;
    if (in_kind == LineIn::kReal) {
      const R* from = static_cast<const R*>(in) + base;
      for (int64_t k = k0; k < k1; ++k) line[k] = C(from[k * inner], R(0));
      return;
    }
    const C* from = static_cast<const C*>(in) + base;
    for (int64_t k = k0; k < std::min(k1, n_in); ++k) line[k] = from[k * inner];
    // The negative frequencies of a half spectrum.
    for (int64_t k = std::max(k0, n_in); k < k1; ++k) line[k] = std::conj(from[(n - k) * inner]);
  };
  auto transform = [&](C* block, int64_t count) { Transform(block, block, count, inverse, pool); };
  auto store = [&](int64_t index, int64_t k0, int64_t k1, const C* line) {
    const int64_t base = index / inner * n_out * inner + index % inner;
    if (out_kind == LineOut::kReal) {
      R* to = static_cast<R*>(out) + base;
      for (int64_t k = k0; k < k1; ++k) to[k * inner] = line[k].real();
      return;
    }
    C* to = static_cast<C*>(out) + base;
    for (int64_t k = k0; k < k1; ++k) to[k * inner] = line[k];
  };
  InBlocks<C>(outer * inner, n, n, n_out, pool, load, transform, store);
}

template <typename R>
void LineFft<R>::TransformPacked(int64_t lines, LineIn in_kind, const void* in, LineOut out_kind,
                                 void* out, bool inverse, runtime::ThreadPool* pool) const {
  using C = std::complex<R>;
  const int64_t n = n_, h = n / 2;
  const C* w = half_twiddle_.data();
  auto load = [&](int64_t line, int64_t k0, int64_t k1, C* z) {
    if (in_kind == LineIn::kReal) {  // the pairs of points are the complex points
      std::memcpy(z + k0, static_cast<const R*>(in) + line * n + 2 * k0, sizeof(C) * (k1 - k0));
      return;
    }
    const C* x = static_cast<const C*>(in) + line * (h + 1);
    SpectrumToPacked<R>(h, k0, k1, x, w, z);
    if (k0 == 0) {
      // X[0] and X[h] count by their real parts: the result is the real
      // part of the inverse of the spectrum rebuilt from its first half.
      const R x0 = x[0].real(), xh = x[h].real();
      z[0] = C((x0 + xh) / 2, (x0 - xh) / 2);
    }
  };
  auto transform = [&](C* block, int64_t count) {
    half_->Transform(block, block, count, inverse, pool);
  };
  auto store = [&](int64_t line, int64_t k0, int64_t k1, const C* z) {
    if (out_kind == LineOut::kReal) {
      std::memcpy(static_cast<R*>(out) + line * n + 2 * k0, z + k0, sizeof(C) * (k1 - k0));
      return;
    }
    C* x = static_cast<C*>(out) + line * (h + 1);
    PackedToSpectrum<R>(h, k0, k1, z, w, x);
    if (k0 == 0) {
      x[0] = C(z[0].real() + z[0].imag(), 0);
      x[h] = C(z[0].real() - z[0].imag(), 0);
    }
  };
  InBlocks<C>(lines, h, h, h, pool, load, transform, store);
}

template class LineFft<float>;
template class LineFft<double>;

}  // namespace cpu
}  // namespace tessera
