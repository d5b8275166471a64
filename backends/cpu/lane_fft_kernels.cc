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

// (yr + i yi) (wr + i wi) into y_re, y_im.
template <typename V, typename R>
void StoreTwiddled(R* y_re, R* y_im, V yr, V yi, R wr, R wi) {
  Store(y_re, yr * wr - yi * wi);
  Store(y_im, yr * wi + yi * wr);
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
  // Each radix's butterfly in a loop of its own: with the radix chosen in
  // the inner loop, every radix's code was worse (64 lines of 1009 points
  // 0.23 -> 0.27 ms once radices 3 and 5 had butterflies of their own;
  // 0.20 now).  (A radix-8 butterfly, tried, was 15-45% slower than two
  // radix-4 passes: its 32 load and store streams, 2^k apart, contend for
  // the L1 cache's sets.)
  auto for_each = [&](auto butterfly) {
    for (int64_t j = 0; j < m; ++j) {
      const R* wr = twiddle_re + j * p;
      const R* wi = twiddle_im + j * p;
      for (int64_t q = 0; q < s; ++q) {
        butterfly((q + s * j) * L, (q + s * p * j) * L, wr, wi);
      }
    }
  };
  switch (p) {
    case 2:
      return for_each([&](int64_t in, int64_t out, const R* wr, const R* wi) {
        const R w1r = wr[1], w1i = sign * wi[1];
        const V ar = Load(x_re + in), ai = Load(x_im + in);
        const V br = Load(x_re + in + in_step), bi = Load(x_im + in + in_step);
        Store(y_re + out, ar + br);
        Store(y_im + out, ai + bi);
        const V dr = ar - br, di = ai - bi;
        Store(y_re + out + out_step, dr * w1r - di * w1i);
        Store(y_im + out + out_step, dr * w1i + di * w1r);
      });
    case 3:
      return for_each([&](int64_t in, int64_t out, const R* wr, const R* wi) {
        // y0 = a0 + t, y1,2 = a0 - t/2 -/+ i sign sin(2 pi/3) (a1 - a2),
        // t = a1 + a2.
        const V a0r = Load(x_re + in), a0i = Load(x_im + in);
        const V a1r = Load(x_re + in + in_step), a1i = Load(x_im + in + in_step);
        const V a2r = Load(x_re + in + 2 * in_step), a2i = Load(x_im + in + 2 * in_step);
        const R sin60 = R(0.86602540378443864676) * sign;
        const V tr = a1r + a2r, ti = a1i + a2i;
        const V mr = a0r - tr * R(0.5), mi = a0i - ti * R(0.5);
        // -i sign sin60 (a1 - a2)
        const V sr = (a1i - a2i) * sin60, si = (a2r - a1r) * sin60;
        Store(y_re + out, a0r + tr);
        Store(y_im + out, a0i + ti);
        StoreTwiddled(y_re + out + out_step, y_im + out + out_step, mr + sr, mi + si, wr[1],
                      sign * wi[1]);
        StoreTwiddled(y_re + out + 2 * out_step, y_im + out + 2 * out_step, mr - sr, mi - si, wr[2],
                      sign * wi[2]);
      });
    case 4:
      return for_each([&](int64_t in, int64_t out, const R* wr, const R* wi) {
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
      });
    case 5:
      return for_each([&](int64_t in, int64_t out, const R* wr, const R* wi) {
        // With t1 = a1 + a4, t2 = a2 + a3, t3 = a1 - a4, t4 = a2 - a3 and
        // c_k, s_k = cos, sin(2 pi k / 5): y0 = a0 + t1 + t2,
        // y1,4 = a0 + c1 t1 + c2 t2 -/+ i sign (s1 t3 + s2 t4),
        // y2,3 = a0 + c2 t1 + c1 t2 -/+ i sign (s2 t3 - s1 t4).
        const V a0r = Load(x_re + in), a0i = Load(x_im + in);
        const V a1r = Load(x_re + in + in_step), a1i = Load(x_im + in + in_step);
        const V a2r = Load(x_re + in + 2 * in_step), a2i = Load(x_im + in + 2 * in_step);
        const V a3r = Load(x_re + in + 3 * in_step), a3i = Load(x_im + in + 3 * in_step);
        const V a4r = Load(x_re + in + 4 * in_step), a4i = Load(x_im + in + 4 * in_step);
        const R c1 = R(0.30901699437494742410), c2 = R(-0.80901699437494742410);
        const R s1 = R(0.95105651629515357212) * sign, s2 = R(0.58778525229247312917) * sign;
        const V t1r = a1r + a4r, t1i = a1i + a4i, t2r = a2r + a3r, t2i = a2i + a3i;
        const V t3r = a1r - a4r, t3i = a1i - a4i, t4r = a2r - a3r, t4i = a2i - a3i;
        const V m1r = a0r + t1r * c1 + t2r * c2, m1i = a0i + t1i * c1 + t2i * c2;
        const V m2r = a0r + t1r * c2 + t2r * c1, m2i = a0i + t1i * c2 + t2i * c1;
        // -i times (s1 t3 + s2 t4) and (s2 t3 - s1 t4), signs folded in.
        const V n1r = t3i * s1 + t4i * s2, n1i = -(t3r * s1 + t4r * s2);
        const V n2r = t3i * s2 - t4i * s1, n2i = t4r * s1 - t3r * s2;
        Store(y_re + out, a0r + t1r + t2r);
        Store(y_im + out, a0i + t1i + t2i);
        StoreTwiddled(y_re + out + out_step, y_im + out + out_step, m1r + n1r, m1i + n1i, wr[1],
                      sign * wi[1]);
        StoreTwiddled(y_re + out + 2 * out_step, y_im + out + 2 * out_step, m2r + n2r, m2i + n2i,
                      wr[2], sign * wi[2]);
        StoreTwiddled(y_re + out + 3 * out_step, y_im + out + 3 * out_step, m2r - n2r, m2i - n2i,
                      wr[3], sign * wi[3]);
        StoreTwiddled(y_re + out + 4 * out_step, y_im + out + 4 * out_step, m1r - n1r, m1i - n1i,
                      wr[4], sign * wi[4]);
      });
    default:
      return for_each([&](int64_t in, int64_t out, const R* wr, const R* wi) {
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
      });
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

// Shuffles of interleaved complex values within a vector (C = kLanes / 2
// of them): complex order reversed, parts swapped, real or imaginary parts
// duplicated; and the signs (1, -1, 1, -1, ...) of a conjugate.
template <typename R>
struct ComplexShuffles {
  typename IndicesOf<R>::type reverse, swap, real, imag;
  Lanes<R> conj;
  ComplexShuffles() {
    constexpr int L = kLanes<R>, C = L / 2;
    for (int l = 0; l < L; ++l) {
      reverse[l] = (C - 1 - l / 2) * 2 + l % 2;
      swap[l] = l ^ 1;
      real[l] = l & ~1;
      imag[l] = l | 1;
      conj[l] = l % 2 == 0 ? R(1) : R(-1);
    }
  }
};

// For k in [begin, end), 1 <= k < h, of a line v of h complex points
// (interleaved parts), with a = v[k] and b = conj(v[h - k]): out[k] =
// combine(e, d, w[k]) for e = (a + b) / 2 and d = (a - b) / 2, over
// vectors of C points (b's block reversed) and then one point at a time.
// combine takes and returns real and imaginary parts as vectors (each
// twiddle part duplicated) or as scalars (a pair returned).
template <typename R, typename Combine>
void AlongPackedLine(int64_t h, int64_t begin, int64_t end, const R* v, const R* w, R* out,
                     Combine combine) {
  using V = Lanes<R>;
  constexpr int C = kLanes<R> / 2;
  const ComplexShuffles<R> sh;
  int64_t k = begin < 1 ? 1 : begin;
  for (; k + C <= end && k + C <= h; k += C) {
    const V a = Load(v + 2 * k);
    const V b = __builtin_shuffle(Load(v + 2 * (h - k - C + 1)), sh.reverse) * sh.conj;
    const V ww = Load(w + 2 * k);
    Store(out + 2 * k,
          combine.Vector(sh, (a + b) * R(0.5), (a - b) * R(0.5), __builtin_shuffle(ww, sh.real),
                         __builtin_shuffle(ww, sh.imag)));
  }
  for (; k < end; ++k) {
    const R ar = v[2 * k], ai = v[2 * k + 1];
    const R br = v[2 * (h - k)], bi = -v[2 * (h - k) + 1];
    combine.Scalar((ar + br) / 2, (ai + bi) / 2, (ar - br) / 2, (ai - bi) / 2, w[2 * k],
                   w[2 * k + 1], out + 2 * k);
  }
}

// X[k] = e + w (d / i): PackedToSpectrum in lane_fft_kernels.h.
struct ToSpectrum {
  template <typename R, typename V>
  V Vector(const ComplexShuffles<R>& sh, V e, V d, V wr, V wi) const {
    const V o = __builtin_shuffle(d, sh.swap) * sh.conj;  // d / i
    return e + wr * o - wi * (__builtin_shuffle(o, sh.swap) * sh.conj);
  }
  template <typename R>
  void Scalar(R er, R ei, R dr, R di, R wr, R wi, R* x) const {
    const R orr = di, oi = -dr;  // d / i
    x[0] = er + wr * orr - wi * oi;
    x[1] = ei + wr * oi + wi * orr;
  }
};

// Z[k] = e + i d conj(w): SpectrumToPacked.
struct FromSpectrum {
  template <typename R, typename V>
  V Vector(const ComplexShuffles<R>& sh, V e, V d, V wr, V wi) const {
    const V o = wr * d + wi * (__builtin_shuffle(d, sh.swap) * sh.conj);  // d conj(w)
    return e - __builtin_shuffle(o, sh.swap) * sh.conj;                   // e + i o
  }
  template <typename R>
  void Scalar(R er, R ei, R dr, R di, R wr, R wi, R* z) const {
    const R orr = wr * dr + wi * di, oi = wr * di - wi * dr;
    z[0] = er - oi;
    z[1] = ei + orr;
  }
};

template <typename R>
void Twiddle(int64_t rows, const R* a_re, const R* a_im, const R* w_re, const R* w_im,
             int64_t w_stride, R sign, R* y_re, R* y_im) {
  using V = Lanes<R>;
  constexpr int L = kLanes<R>;
  for (int64_t r = 0; r < rows; ++r) {
    const V ar = Load(a_re + r * L), ai = Load(a_im + r * L);
    const V wr = Load(w_re + r * w_stride), wi = Load(w_im + r * w_stride) * sign;
    Store(y_re + r * L, ar * wr - ai * wi);
    Store(y_im + r * L, ar * wi + ai * wr);
  }
}

// y[k] = a[k] b[k] scale (b's imaginary parts times b_sign) for k < count,
// interleaved complex arrays (y may be a).
template <typename R>
void Pointwise(int64_t count, const R* a, const R* b, R b_sign, R scale, R* y) {
  using V = Lanes<R>;
  constexpr int C = kLanes<R> / 2;
  const ComplexShuffles<R> sh;
  int64_t k = 0;
  for (; k + C <= count; k += C) {
    const V x = Load(a + 2 * k), w = Load(b + 2 * k);
    const V wr = __builtin_shuffle(w, sh.real) * scale;
    const V wi = __builtin_shuffle(w, sh.imag) * (b_sign * scale);
    // (xr wr - xi wi, xi wr + xr wi)
    Store(y + 2 * k, x * wr - __builtin_shuffle(x, sh.swap) * sh.conj * wi);
  }
  for (; k < count; ++k) {
    const R xr = a[2 * k], xi = a[2 * k + 1];
    const R wr = b[2 * k] * scale, wi = b[2 * k + 1] * b_sign * scale;
    y[2 * k] = xr * wr - xi * wi;
    y[2 * k + 1] = xi * wr + xr * wi;
  }
}

template <typename R>
void ByPoints(int64_t count, const R* x_re, const R* x_im, const R* f_re, const R* f_im, R sign,
              R* y_re, R* y_im) {
  using V = Lanes<R>;
  constexpr int L = kLanes<R>;
  for (int64_t k = 0; k < count; ++k) {
    const V xr = Load(x_re + k * L), xi = Load(x_im + k * L);
    const R fr = f_re[k], fi = sign * f_im[k];
    Store(y_re + k * L, xr * fr - xi * fi);
    Store(y_im + k * L, xr * fi + xi * fr);
  }
}

}  // namespace

void MultiplyLanesByPoints(int64_t count, const float* x_re, const float* x_im, const float* f_re,
                           const float* f_im, float sign, float* y_re, float* y_im) {
  ByPoints<float>(count, x_re, x_im, f_re, f_im, sign, y_re, y_im);
}
void MultiplyLanesByPoints(int64_t count, const double* x_re, const double* x_im,
                           const double* f_re, const double* f_im, double sign, double* y_re,
                           double* y_im) {
  ByPoints<double>(count, x_re, x_im, f_re, f_im, sign, y_re, y_im);
}

void MultiplyPointwise(int64_t count, const float* a, const float* b, float b_sign, float scale,
                       float* y) {
  Pointwise<float>(count, a, b, b_sign, scale, y);
}
void MultiplyPointwise(int64_t count, const double* a, const double* b, double b_sign, double scale,
                       double* y) {
  Pointwise<double>(count, a, b, b_sign, scale, y);
}

void TwiddleRows(int64_t rows, const float* a_re, const float* a_im, const float* w_re,
                 const float* w_im, int64_t w_stride, float sign, float* y_re, float* y_im) {
  Twiddle<float>(rows, a_re, a_im, w_re, w_im, w_stride, sign, y_re, y_im);
}
void TwiddleRows(int64_t rows, const double* a_re, const double* a_im, const double* w_re,
                 const double* w_im, int64_t w_stride, double sign, double* y_re, double* y_im) {
  Twiddle<double>(rows, a_re, a_im, w_re, w_im, w_stride, sign, y_re, y_im);
}

void PackedToSpectrum(int64_t h, int64_t begin, int64_t end, const float* z, const float* w,
                      float* x) {
  AlongPackedLine<float>(h, begin, end, z, w, x, ToSpectrum());
}
void PackedToSpectrum(int64_t h, int64_t begin, int64_t end, const double* z, const double* w,
                      double* x) {
  AlongPackedLine<double>(h, begin, end, z, w, x, ToSpectrum());
}
void SpectrumToPacked(int64_t h, int64_t begin, int64_t end, const float* x, const float* w,
                      float* z) {
  AlongPackedLine<float>(h, begin, end, x, w, z, FromSpectrum());
}
void SpectrumToPacked(int64_t h, int64_t begin, int64_t end, const double* x, const double* w,
                      double* z) {
  AlongPackedLine<double>(h, begin, end, x, w, z, FromSpectrum());
}

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
