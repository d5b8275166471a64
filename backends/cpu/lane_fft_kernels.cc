// RadixPass, SplitRealPairs, JoinRealPairs, DeinterleaveLanes and
// InterleaveLanes; see lane_fft_kernels.h.  Every lane is an
// independent transform, so a butterfly is the same arithmetic on all of them: one vector of lanes
// per element, no shuffles.
#include "backends/cpu/lane_fft_kernels.h"

namespace tessera {
namespace cpu {
namespace lane_fft_internal {
#ifdef TESSERA_LANE_FFT_AVX512
namespace avx512 {
#else
namespace baseline {
#endif
namespace {

// The largest radix a stage has (lane_fft.cc factors into 4, 2 and the
// primes up to 31).
constexpr int kMaxRadix = 31;

// One element of all lanes: a 64-byte vector (GCC's vector extension; one
// register with AVX-512, four with SSE2).  Arithmetic with a scalar
// broadcasts it.
// (Spelled per type: GCC ignores the attribute on a dependent type.)
template <typename R>
struct LanesOf;
template <>
struct LanesOf<float> {
  typedef float type __attribute__((vector_size(64)));
};
template <>
struct LanesOf<double> {
  typedef double type __attribute__((vector_size(64)));
};
template <typename R>
using Lanes = typename LanesOf<R>::type;

template <typename R>
Lanes<R> Load(const R* p) {
  Lanes<R> v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}

template <typename R>
void Store(R* p, Lanes<R> v) {
  __builtin_memcpy(p, &v, sizeof(v));
}

template <typename R>
void Pass(const RadixStage& stage, const R* twiddle_re, const R* twiddle_im, const R* omega_re,
          const R* omega_im, bool inverse, const R* x_re, const R* x_im, R* y_re, R* y_im) {
  using V = Lanes<R>;
  constexpr int L = kLanes<R>;
  static_assert(sizeof(V) == L * sizeof(R));
  const int p = stage.radix;
  const int64_t m = stage.m, s = stage.s;
  // Conjugation (the inverse) flips the sign of every imaginary part of
  // the twiddles and of omega.
  const R sign = inverse ? R(-1) : R(1);
  const int64_t in_step = s * m * L;  // from a_r to a_(r+1)
  const int64_t out_step = s * L;     // from y_t to y_(t+1)
  for (int64_t j = 0; j < m; ++j) {
    const R* wr = twiddle_re + j * p;
    const R* wi = twiddle_im + j * p;
    for (int64_t q = 0; q < s; ++q) {
      const int64_t in = (q + s * j) * L;
      const int64_t out = (q + s * p * j) * L;
      if (p == 2) {
        const R w1r = wr[1], w1i = sign * wi[1];
        const V ar = Load(x_re + in), ai = Load(x_im + in);
        const V br = Load(x_re + in + in_step), bi = Load(x_im + in + in_step);
        Store(y_re + out, ar + br);
        Store(y_im + out, ai + bi);
        const V dr = ar - br, di = ai - bi;
        Store(y_re + out + out_step, dr * w1r - di * w1i);
        Store(y_im + out + out_step, dr * w1i + di * w1r);
      } else if (p == 4) {
        const R w1r = wr[1], w1i = sign * wi[1], w2r = wr[2], w2i = sign * wi[2], w3r = wr[3],
                w3i = sign * wi[3];
        const V a0r = Load(x_re + in), a0i = Load(x_im + in);
        const V a1r = Load(x_re + in + in_step), a1i = Load(x_im + in + in_step);
        const V a2r = Load(x_re + in + 2 * in_step), a2i = Load(x_im + in + 2 * in_step);
        const V a3r = Load(x_re + in + 3 * in_step), a3i = Load(x_im + in + 3 * in_step);
        const V t0r = a0r + a2r, t0i = a0i + a2i, t1r = a0r - a2r, t1i = a0i - a2i;
        const V t2r = a1r + a3r, t2i = a1i + a3i;
        // (a1 - a3) times omega = -i forward, +i inverse.
        const V t3r = (a1i - a3i) * sign, t3i = (a3r - a1r) * sign;
        Store(y_re + out, t0r + t2r);
        Store(y_im + out, t0i + t2i);
        const V u1r = t1r + t3r, u1i = t1i + t3i;
        const V u2r = t0r - t2r, u2i = t0i - t2i;
        const V u3r = t1r - t3r, u3i = t1i - t3i;
        Store(y_re + out + out_step, u1r * w1r - u1i * w1i);
        Store(y_im + out + out_step, u1r * w1i + u1i * w1r);
        Store(y_re + out + 2 * out_step, u2r * w2r - u2i * w2i);
        Store(y_im + out + 2 * out_step, u2r * w2i + u2i * w2r);
        Store(y_re + out + 3 * out_step, u3r * w3r - u3i * w3i);
        Store(y_im + out + 3 * out_step, u3r * w3i + u3i * w3r);
      } else {
        // The p-point DFT directly (odd primes p up to 31: p^2 products).
        V ar[kMaxRadix], ai[kMaxRadix];
        for (int r = 0; r < p; ++r) {
          ar[r] = Load(x_re + in + r * in_step);
          ai[r] = Load(x_im + in + r * in_step);
        }
        for (int t = 0; t < p; ++t) {
          V sr = ar[0], si = ai[0];
          for (int r = 1; r < p; ++r) {
            const int k = (r * t) % p;
            const R c = omega_re[k], d = sign * omega_im[k];
            sr += ar[r] * c - ai[r] * d;
            si += ar[r] * d + ai[r] * c;
          }
          const R twr = wr[t], twi = sign * wi[t];
          Store(y_re + out + t * out_step, sr * twr - si * twi);
          Store(y_im + out + t * out_step, sr * twi + si * twr);
        }
      }
    }
  }
}

template <typename R>
void Split(int64_t n, R* z_re, R* z_im, R* x_re, R* x_im) {
  using V = Lanes<R>;
  constexpr int L = kLanes<R>;
  for (int64_t k = 0; k <= n / 2; ++k) {
    const int64_t j = (n - k) % n;
    const V ar = Load(z_re + k * L), ai = Load(z_im + k * L);
    const V br = Load(z_re + j * L), bi = -Load(z_im + j * L);
    Store(x_re + k * L, (ar + br) * R(0.5));
    Store(x_im + k * L, (ai + bi) * R(0.5));
    Store(z_re + k * L, (ai - bi) * R(0.5));  // (a - b) / 2i
    Store(z_im + k * L, (br - ar) * R(0.5));
  }
}

template <typename R>
void Join(int64_t n, const R* x_re, const R* x_im, R* y_re, R* y_im) {
  using V = Lanes<R>;
  constexpr int L = kLanes<R>;
  const int64_t half = n / 2 + 1;
  // The negative frequencies first, from Y's first half before it is
  // overwritten: Z[k] = conj(X[n-k]) + i conj(Y[n-k]).
  for (int64_t k = n - 1; k >= half; --k) {
    const int64_t j = n - k;
    Store(y_re + k * L, Load(x_re + j * L) + Load(y_im + j * L));
    Store(y_im + k * L, Load(y_re + j * L) - Load(x_im + j * L));
  }
  for (int64_t k = 0; k < half; ++k) {
    const V yr = Load(y_re + k * L), yi = Load(y_im + k * L);
    Store(y_re + k * L, Load(x_re + k * L) - yi);
    Store(y_im + k * L, Load(x_im + k * L) + yr);
  }
}

// The index vector of a shuffle of two vectors of R.
template <typename R>
struct IndicesOf;
template <>
struct IndicesOf<float> {
  typedef int32_t type __attribute__((vector_size(64)));
};
template <>
struct IndicesOf<double> {
  typedef int64_t type __attribute__((vector_size(64)));
};

// Even and odd elements of the two vectors (lo, hi): the real and the
// imaginary parts of kLanes interleaved complex values.
template <typename R>
typename IndicesOf<R>::type EvenIndices() {
  typename IndicesOf<R>::type indices;
  for (int l = 0; l < kLanes<R>; ++l) indices[l] = 2 * l;
  return indices;
}

template <typename R>
void Deinterleave(const R* from, int64_t stride, int64_t count, R* re, R* im) {
  using V = Lanes<R>;
  constexpr int L = kLanes<R>;
  const auto even = EvenIndices<R>();
  const auto odd = even + 1;
  for (int64_t k = 0; k < count; ++k) {
    const V lo = Load(from + k * stride), hi = Load(from + k * stride + L);
    Store(re + k * L, __builtin_shuffle(lo, hi, even));
    Store(im + k * L, __builtin_shuffle(lo, hi, odd));
  }
}

template <typename R>
void Interleave(const R* re, const R* im, R scale, int64_t count, R* to, int64_t stride) {
  using V = Lanes<R>;
  constexpr int L = kLanes<R>;
  // Element 2l of the pair (re, im) is re[l], 2l + 1 is im[l].
  typename IndicesOf<R>::type first, second;
  for (int l = 0; l < L; ++l) {
    first[l] = l % 2 == 0 ? l / 2 : L + l / 2;
    second[l] = l % 2 == 0 ? L / 2 + l / 2 : L + L / 2 + l / 2;
  }
  for (int64_t k = 0; k < count; ++k) {
    const V r = Load(re + k * L) * scale, i = Load(im + k * L) * scale;
    Store(to + k * stride, __builtin_shuffle(r, i, first));
    Store(to + k * stride + L, __builtin_shuffle(r, i, second));
  }
}

}  // namespace

void DeinterleaveLanes(const float* from, int64_t stride, int64_t count, float* re, float* im) {
  Deinterleave<float>(from, stride, count, re, im);
}
void DeinterleaveLanes(const double* from, int64_t stride, int64_t count, double* re, double* im) {
  Deinterleave<double>(from, stride, count, re, im);
}
void InterleaveLanes(const float* re, const float* im, float scale, int64_t count, float* to,
                     int64_t stride) {
  Interleave<float>(re, im, scale, count, to, stride);
}
void InterleaveLanes(const double* re, const double* im, double scale, int64_t count, double* to,
                     int64_t stride) {
  Interleave<double>(re, im, scale, count, to, stride);
}

void SplitRealPairs(int64_t n, float* z_re, float* z_im, float* x_re, float* x_im) {
  Split<float>(n, z_re, z_im, x_re, x_im);
}
void SplitRealPairs(int64_t n, double* z_re, double* z_im, double* x_re, double* x_im) {
  Split<double>(n, z_re, z_im, x_re, x_im);
}
void JoinRealPairs(int64_t n, const float* x_re, const float* x_im, float* y_re, float* y_im) {
  Join<float>(n, x_re, x_im, y_re, y_im);
}
void JoinRealPairs(int64_t n, const double* x_re, const double* x_im, double* y_re, double* y_im) {
  Join<double>(n, x_re, x_im, y_re, y_im);
}

void RadixPass(const RadixStage& stage, const float* twiddle_re, const float* twiddle_im,
               const float* omega_re, const float* omega_im, bool inverse, const float* x_re,
               const float* x_im, float* y_re, float* y_im) {
  Pass<float>(stage, twiddle_re, twiddle_im, omega_re, omega_im, inverse, x_re, x_im, y_re, y_im);
}

void RadixPass(const RadixStage& stage, const double* twiddle_re, const double* twiddle_im,
               const double* omega_re, const double* omega_im, bool inverse, const double* x_re,
               const double* x_im, double* y_re, double* y_im) {
  Pass<double>(stage, twiddle_re, twiddle_im, omega_re, omega_im, inverse, x_re, x_im, y_re, y_im);
}

}  // namespace avx512 or baseline
}  // namespace lane_fft_internal
}  // namespace cpu
}  // namespace tessera
