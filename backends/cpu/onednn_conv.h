// 2-D f32 convolutions through oneDNN's direct convolution (libdnnl), for
// ConvPlans it supports: feature groups (depthwise too: an 8x56x56x64 NHWC
// 3x3 depthwise convolution took 91 ms as im2col's one tiny GEMM per group,
// 0.38 ms here; XLA 56 ms), no batch groups, no lhs (base) dilation, no
// window reversal, padding >= 0 (any stride, window
// dilation and plain layouts, described to oneDNN by their strides), and
// only where oneDNN has a real kernel for the layouts (its reference loops,
// which it falls back to for an NHWC input with an NCHW result, are slower
// than im2col).  Benchmarks, 2 cores: conv3x3 NHWC 1x56x56x64 0.51 ->
// 0.47 ms; the NCHW conv-relu-conv chain (its first convolution runs here)
// 4.7-5.0 -> 4.5 ms.
//
// Threading is ours, as for the GEMMs (onednn_gemm.h): the output is split
// into chunks of batch entries, or of output rows for a batch smaller than
// the pool, and each chunk runs one single-threaded oneDNN primitive on a
// pool thread.  Primitives (oneDNN generates their code) are created on
// first use, one per distinct chunk geometry (at most three), and kept.
#ifndef TESSERA_BACKENDS_CPU_ONEDNN_CONV_H_
#define TESSERA_BACKENDS_CPU_ONEDNN_CONV_H_

#include <memory>

#include "absl/status/status.h"
#include "backends/cpu/eigen_dot.h"

namespace tessera {
namespace runtime {
class ThreadPool;
}  // namespace runtime

namespace cpu {

struct ConvPlan;

class OneDnnConvolution {
 public:
  // Null where `plan` is not one oneDNN runs here (RunConvolution then
  // takes the im2col path).
  static std::shared_ptr<const OneDnnConvolution> Create(const ConvPlan& plan);
  ~OneDnnConvolution();

  // As RunConvolution; `pool` and `epilogue` may be null.
  absl::Status Run(const void* input, const void* kernel, void* output, runtime::ThreadPool* pool,
                   const RowEpilogue* epilogue = nullptr) const;

  struct Impl;

 private:
  explicit OneDnnConvolution(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_ONEDNN_CONV_H_
