// Convolutions whose window is large and whose output is small, as one GEMM
// per output position and window row: the form of a convolution's weight
// gradient (JAX's and XLA's `f01b_i01o->01bf`: the activations convolved
// with the output gradient as the window, the kernel's few taps as the
// output positions).
//
// For output position t and the window's outer positions k (all spatial
// dimensions but the last), out[n, t, :] += A x B where
//   A[n, (j, c)] = in[n, t * stride + (k, j) - pad, c]   (j the last window
//                  dimension: N rows of contiguous (j, c) in a padded copy
//                  of the input, one row stride apart),
//   B[(j, c), o] = kernel[k, j, c, o]                   (an HWIO block),
// so no im2col matrix is built: the input is copied once, zero-padded to
// the positions the window reads (along the last dimension split by
// residue modulo the window dilation, so that a tap's positions are
// adjacent: the weight gradient of a strided convolution has its stride
// as window dilation), and the GEMMs read it in place.  The
// work is split over the window's outer positions (or, with none, over
// the last dimension's), each part summing into its own accumulators; the
// parts are added at the end.  im2col for such a convolution gathers
// Ct x Ws values per output row (Ws the window size) into a matrix as large
// as the input times the output positions.
//
// Figures (`tessera bench` of one convolution, its input's relayout
// included; alternating runs of both paths): a resnet block's 3x3 weight
// gradient (16x32x32x64 to 64) 12.9-13.9 ms by im2col, 7.5-7.7 ms here;
// a 1-D one (16x1024x32, 5 taps, to 64) 3.3-3.8 -> 1.8-2.6 ms; with
// window dilation 2 (a stride-2 convolution's, 16x1024x64) 3.0-3.3 ->
// 2.4-2.8 ms.  A 1-D convolutional net's training step (two layers,
// batch 16 of 1024x32) went 13.7-14.1 -> 10.5-11.2 ms (XLA 14.9).
#ifndef TESSERA_BACKENDS_CPU_WINDOW_CONV_H_
#define TESSERA_BACKENDS_CPU_WINDOW_CONV_H_

#include "absl/status/status.h"
#include "backends/cpu/conv_thunk.h"

namespace tessera {
namespace runtime {
class ThreadPool;
}  // namespace runtime

namespace cpu {

// Whether `plan` runs as window GEMMs: f32 GEMMs (f32, f16, bf16 and f8
// operands), no groups, no lhs dilation or window reversal, at least one
// spatial dimension, a window of at least 64 positions and at least 4 per
// output position, and an input whose padded copy is at most 256 MB.
bool UsesWindowGemms(const ConvPlan& plan);

// The convolution of `plan` (UsesWindowGemms) over f32 buffers laid out as
// the plan's strides say.  `pool` may be null.
absl::Status RunWindowGemms(const ConvPlan& plan, const float* input, const float* kernel,
                            float* output, runtime::ThreadPool* pool);

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_WINDOW_CONV_H_
