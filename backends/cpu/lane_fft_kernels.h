// The butterfly pass of LaneFft (lane_fft.h): one stage of a self-sorting
// (Stockham) mixed-radix FFT over lane-interleaved split-complex data.
// Built twice, for the baseline ISA and for AVX-512 (the same source under
// two namespaces, see the BUILD file); lane_fft.cc picks one by the host.
// Plain loops only, no standard-library templates: an inline function
// compiled for AVX-512 here must not be what the linker keeps for the
// baseline code elsewhere.
#ifndef TESSERA_BACKENDS_CPU_LANE_FFT_KERNELS_H_
#define TESSERA_BACKENDS_CPU_LANE_FFT_KERNELS_H_

#include <cstdint>

namespace tessera {
namespace cpu {
namespace lane_fft_internal {

// Lanes per element: one 64-byte vector of reals.
template <typename R>
constexpr int kLanes = 64 / static_cast<int>(sizeof(R));

// One stage of radix p over the current sub-transform length n = p * m,
// with stride s (the product of the earlier stages' radices): for j < m and
// q < s, with a_r = x[q + s (j + r m)] (r < p),
//   y[q + s (p j + t)] = w^(j t) sum_r a_r omega^(r t)   (t < p),
// w = e^(-2 pi i / n) and omega = e^(-2 pi i / p) forward, both conjugated
// when `inverse`.  Element e of lane l is at [e * kLanes + l] in the split
// real and imaginary arrays.  twiddle_re/im[j * p + t] hold the forward
// w^(j t); omega_re/im[k] the forward omega^k (k < p).  p is 2, 4 or an
// odd prime up to 31.
struct RadixStage {
  int radix;
  int64_t m, s;
};

// Real lines two to a lane (LaneFft::SplitRealPairs, JoinRealPairs),
// lanes of adjacent complex lines (LaneFft::DeinterleaveLanes,
// InterleaveLanes, TwiddleRows), and a real line packed two points to one
// complex point, vectorized along the line (PackedToSpectrum,
// SpectrumToPacked in lane_fft.h), and pointwise complex products
// (MultiplyPointwise; MultiplyLanesByPoints, Bluestein's transform over
// lanes).
#define TESSERA_LANE_FFT_DECLARE(ns)                                                               \
  namespace ns {                                                                                   \
  void RadixPass(const RadixStage& stage, const float* twiddle_re, const float* twiddle_im,        \
                 const float* omega_re, const float* omega_im, bool inverse, const float* x_re,    \
                 const float* x_im, float* y_re, float* y_im);                                     \
  void RadixPass(const RadixStage& stage, const double* twiddle_re, const double* twiddle_im,      \
                 const double* omega_re, const double* omega_im, bool inverse, const double* x_re, \
                 const double* x_im, double* y_re, double* y_im);                                  \
  void SplitRealPairs(int64_t n, float* z_re, float* z_im, float* x_re, float* x_im);              \
  void SplitRealPairs(int64_t n, double* z_re, double* z_im, double* x_re, double* x_im);          \
  void JoinRealPairs(int64_t n, const float* x_re, const float* x_im, float* y_re, float* y_im);   \
  void JoinRealPairs(int64_t n, const double* x_re, const double* x_im, double* y_re,              \
                     double* y_im);                                                                \
  void DeinterleaveLanes(const float* from, int64_t stride, int64_t count, float* re, float* im);  \
  void DeinterleaveLanes(const double* from, int64_t stride, int64_t count, double* re,            \
                         double* im);                                                              \
  void InterleaveLanes(const float* re, const float* im, float scale, int64_t count, float* to,    \
                       int64_t stride);                                                            \
  void InterleaveLanes(const double* re, const double* im, double scale, int64_t count,            \
                       double* to, int64_t stride);                                                \
  void PackedToSpectrum(int64_t h, int64_t begin, int64_t end, const float* z, const float* w,     \
                        float* x);                                                                 \
  void PackedToSpectrum(int64_t h, int64_t begin, int64_t end, const double* z, const double* w,   \
                        double* x);                                                                \
  void SpectrumToPacked(int64_t h, int64_t begin, int64_t end, const float* x, const float* w,     \
                        float* z);                                                                 \
  void SpectrumToPacked(int64_t h, int64_t begin, int64_t end, const double* x, const double* w,   \
                        double* z);                                                                \
  void TwiddleRows(int64_t rows, const float* a_re, const float* a_im, const float* w_re,          \
                   const float* w_im, int64_t w_stride, float sign, float* y_re, float* y_im);     \
  void TwiddleRows(int64_t rows, const double* a_re, const double* a_im, const double* w_re,       \
                   const double* w_im, int64_t w_stride, double sign, double* y_re, double* y_im); \
  void MultiplyPointwise(int64_t count, const float* a, const float* b, float b_sign, float scale, \
                         float* y);                                                                \
  void MultiplyPointwise(int64_t count, const double* a, const double* b, double b_sign,           \
                         double scale, double* y);                                                 \
  void MultiplyLanesByPoints(int64_t count, const float* x_re, const float* x_im,                  \
                             const float* f_re, const float* f_im, float sign, float* y_re,        \
                             float* y_im);                                                         \
  void MultiplyLanesByPoints(int64_t count, const double* x_re, const double* x_im,                \
                             const double* f_re, const double* f_im, double sign, double* y_re,    \
                             double* y_im);                                                        \
  }

TESSERA_LANE_FFT_DECLARE(baseline)
TESSERA_LANE_FFT_DECLARE(avx512)

#undef TESSERA_LANE_FFT_DECLARE

}  // namespace lane_fft_internal
}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_LANE_FFT_KERNELS_H_
