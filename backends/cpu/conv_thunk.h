// 2-D convolutions on raw buffers as im2col + GEMM (RunDot), for the CPU
// backend's `convolution` thunks.
//
//   TS_ASSIGN_OR_RETURN(ConvPlan plan, PlanConvolution(*conv));   // compile time
//   TS_RETURN_IF_ERROR(RunConvolution(plan, input, kernel, output, pool));
//
// RunConvolution gathers the input windows into a [N*OH*OW, KH*KW*C]
// row-major matrix (im2col; padding reads as zero), multiplies it by the
// kernel as a [KH*KW*C, O] matrix through RunDot, and writes the
// [N*OH*OW, O] product into the output's layout.  The kernel is used in
// place when its layout already is that matrix (HWIO row-major) or its
// transpose (OHWI); otherwise it is packed first.  The product goes
// straight into the output when the output is laid out N,OH,OW,O
// (NHWC row-major), else through scratch and a scatter.  Scratch is
// per calling thread (thread_local), reused across calls.
//
// PlanConvolution accepts f32 2-D convolutions with feature_group_count
// and batch_group_count 1, no lhs (base) dilation and no window reversal;
// any stride, padding (negative too) and rhs (window) dilation; any
// dim_labels, with operand and result layouts that are plain permutations
// (no tiles, packed elements or dynamic dimensions).  Everything else is
// Unimplemented with the reason.
#ifndef TESSERA_BACKENDS_CPU_CONV_THUNK_H_
#define TESSERA_BACKENDS_CPU_CONV_THUNK_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "backends/cpu/eigen_dot.h"

namespace tessera {

class HloInstruction;

namespace runtime {
class ThreadPool;
}  // namespace runtime

namespace cpu {

struct ConvPlan {
  int64_t batch = 1, in_features = 1, out_features = 1;
  int64_t in_h = 1, in_w = 1;      // input spatial sizes
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t out_h = 1, out_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0;    // low padding (may be negative)
  int64_t dilation_h = 1, dilation_w = 1;
  // Element strides of each logical dimension in the buffers.
  int64_t in_stride_n = 0, in_stride_c = 0, in_stride_h = 0, in_stride_w = 0;
  int64_t k_stride_i = 0, k_stride_o = 0, k_stride_h = 0, k_stride_w = 0;
  int64_t out_stride_n = 0, out_stride_o = 0, out_stride_h = 0, out_stride_w = 0;
  // How the kernel enters the GEMM: in place as [K, O], in place as [O, K]
  // (rhs transposed), or packed into scratch as [K, O].
  enum class KernelUse { kDirect, kTransposed, kPacked };
  KernelUse kernel_use = KernelUse::kPacked;
  // The output is [N*OH*OW, O] row-major: the GEMM writes it directly.
  bool output_direct = false;
  DotShape gemm;  // [M, K] x [K, O]

  int64_t m() const { return batch * out_h * out_w; }
  int64_t k() const { return kernel_h * kernel_w * in_features; }
  int64_t flops() const { return gemm.flops(); }
  std::string ToString() const;
};

absl::StatusOr<ConvPlan> PlanConvolution(const HloInstruction& conv);

// `pool` may be null (runs on the calling thread).  `output` must not
// overlap input or kernel.
absl::Status RunConvolution(const ConvPlan& plan, const void* input, const void* kernel,
                            void* output, runtime::ThreadPool* pool);

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_CONV_THUNK_H_
