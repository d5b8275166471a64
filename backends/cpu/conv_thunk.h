// Convolutions on raw buffers as im2col + GEMM (RunDot), or through
// oneDNN's direct convolution where it takes the plan (onednn_conv.h), for
// the CPU backend's `convolution` thunks.
//
//   TS_ASSIGN_OR_RETURN(ConvPlan plan, PlanConvolution(*conv));   // compile time
//   TS_RETURN_IF_ERROR(RunConvolution(plan, input, kernel, output, pool));
//
// RunConvolution gathers the input windows into a [N*OS, G*KS*Cg]
// row-major matrix (im2col; OS the product of the output's spatial sizes,
// KS that of the window's, G the feature groups, Cg = C/G; padding, the
// holes of lhs (base) dilation and anything out of range read as zero; a
// reversed window dimension reads its taps mirrored), multiplies it by the
// kernel as a [KS*Cg, O] matrix (one [KS*Cg, O/G] GEMM per group, batched
// through RunDot's strides) and writes the [N*OS, O] product into the
// output's layout.  Without groups the matrix is never whole: chunks of
// rows (2 MiB of them, at least two chunks per thread) are gathered and
// multiplied by one thread each, over the pool, so the gathered rows are read back from
// the cache, not memory (a batch of 4 at 56x56x64, 3x3: a 29 MB matrix;
// conv-relu-conv 10.8 -> 6.6 ms).  The kernel is used in place when its layout already is
// that matrix (HWIO row-major) or its transpose (OHWI); otherwise it is
// packed first.  The product goes straight into the output when the output
// is laid out N,spatial...,O (NHWC row-major), else through scratch and a
// scatter.  Scratch is per calling thread (thread_local), reused across
// calls.  batch_group_count B > 1 (weight gradients of grouped
// convolutions) is the same batched GEMM with the groups taken from blocks
// of N/B input batch rows instead of blocks of feature columns.  An lhs
// (base) dilated convolution (a transposed convolution, or the input
// gradient of a strided one) runs as phases (ConvPhase): the outputs that
// read the input through one set of taps, each a convolution without lhs
// dilation, so no product with a hole's zero is computed (stride 2 in 2-D:
// a quarter of the work).
//
// PlanConvolution accepts f32 and f64 convolutions (and f16, bf16 and f8
// ones, into their own type or f32, computed in f32; and integer ones of 8
// to 32-bit operands and result, summed modulo 2^32 in s32) with any number of
// spatial dimensions (0 is a plain matmul), feature_group_count or
// batch_group_count > 1 (not both), any stride, padding (negative too),
// lhs (base) and rhs (window) dilation and window reversal; any
// dim_labels, with operand and result layouts that are plain permutations
// (no tiles, packed elements or dynamic dimensions).  Everything else
// (other element types, mixed types, both kinds of groups at once) is
// Unimplemented with the reason.
#ifndef TESSERA_BACKENDS_CPU_CONV_THUNK_H_
#define TESSERA_BACKENDS_CPU_CONV_THUNK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "backends/cpu/eigen_dot.h"
#include "hlo/ir/primitive_type.h"

namespace tessera {

class HloInstruction;

namespace runtime {
class ThreadPool;
}  // namespace runtime

namespace cpu {

class OneDnnConvolution;
struct ConvPhase;

struct ConvPlan {
  static constexpr int kMaxSpatialDimensions = 8;
  int64_t batch = 1;     // output batch (input batch / batch_groups)
  int64_t in_batch = 1;  // input batch
  int64_t in_features = 1, out_features = 1;
  int64_t feature_groups = 1, batch_groups = 1;
  // The GEMM's: of input, kernel and output as run (S8: input and kernel,
  // the sums and output S32).
  PrimitiveType type = F32;
  // F16, BF16 and F8* convolutions run in f32: input and kernel (of
  // operand_type) are widened into scratch first, and a result of another
  // output_type than F32 is rounded from an f32 one, once, as the evaluator
  // computes them.  Both equal `type` otherwise.
  PrimitiveType operand_type = F32, output_type = F32;
  int64_t in_elements = 0, kernel_elements_total = 0, out_elements = 0;
  // One entry per spatial dimension, in dim_labels order.
  std::vector<int64_t> in_size, kernel_size, out_size;
  std::vector<int64_t> stride, pad, dilation, lhs_dilation;  // pad: low (may be negative)
  std::vector<bool> reversal;
  // Element strides of each logical dimension in the buffers.
  int64_t in_stride_n = 0, in_stride_c = 0;
  int64_t k_stride_i = 0, k_stride_o = 0;
  int64_t out_stride_n = 0, out_stride_o = 0;
  std::vector<int64_t> in_stride_s, k_stride_s, out_stride_s;
  // Per spatial dimension i, out_size[i] * kernel_size[i] input offsets
  // (index times in_stride_s[i]) of output position o and kernel tap k at
  // taps[tap_begin[i] + o * kernel_size[i] + k], or -1 where that tap reads
  // padding or a hole of the lhs dilation.
  std::vector<int64_t> taps, tap_begin;
  // How the kernel enters the GEMM: in place as [K, O], in place as [O, K]
  // (rhs transposed), or packed into scratch as [K, O] per group.
  enum class KernelUse { kDirect, kTransposed, kPacked };
  KernelUse kernel_use = KernelUse::kPacked;
  // The output is [N*OS, O] row-major: the GEMM writes it directly.
  bool output_direct = false;
  // 2-D, no lhs dilation, no reversal, no groups: the plain im2col loop.
  bool simple_2d = false;
  // A large window over few outputs (a weight gradient): one GEMM per
  // output position and window row, no im2col (window_conv.h).
  bool window_gemms = false;
  DotShape gemm;  // per group: [M, K] x [K, O/groups]
  // oneDNN's direct convolution where it runs this plan (onednn_conv.h;
  // shared by copies of the plan), else null: im2col + GEMM.
  std::shared_ptr<const OneDnnConvolution> onednn;
  // With lhs (base) dilation: the output's phases (ConvPhase), run in turn
  // in place of this plan's own im2col, which would multiply the holes'
  // zeros.  Empty otherwise, or when there would be more than 64.
  std::vector<ConvPhase> phases;

  int spatial() const { return static_cast<int>(in_size.size()); }
  int64_t groups() const { return feature_groups * batch_groups; }
  int64_t out_spatial() const;      // product of out_size
  int64_t kernel_elements() const;  // product of kernel_size
  int64_t m() const { return batch * out_spatial(); }               // GEMM rows
  int64_t k() const { return kernel_elements() * (in_features / feature_groups); }  // per group
  int64_t flops() const { return gemm.flops(); }
  std::string ToString() const;
};

// The output positions of an lhs-dilated convolution that read the input
// through one set of taps per spatial dimension: those at offsets
// residue_i + P_i * j (P_i the dilation over its gcd with the stride)
// from the start.  `plan` computes them as a convolution without lhs
// dilation on a kernel of that set's taps only, gathered per run into
// dense [taps..., Cg, O] scratch from the original kernel's taps
// first_tap[i] + tap_step[i] * t; its output is the original's from
// out_offset on, with spatial strides P_i times the original's, or, where
// oneDNN runs the phase (it takes dense outputs only), dense [N,
// outputs..., O] scratch copied there after (output_strides: the strides
// it is copied with; empty when the plan writes the output itself).  A
// plan with no taps in some dimension writes zeros.
struct ConvPhase {
  ConvPlan plan;
  int64_t out_offset = 0;  // elements
  std::vector<int64_t> first_tap, tap_step;
  std::vector<int64_t> output_strides;
};

absl::StatusOr<ConvPlan> PlanConvolution(const HloInstruction& conv);

// `epilogue` over batch entries [0, batch), split over `pool` (may be null).
void RunEpilogueOverBatch(const RowEpilogue& epilogue, int64_t batch, runtime::ThreadPool* pool);

// For tests: when true, RunConvolution takes the im2col path even where
// oneDNN would run the plan.
void SetUseIm2colForTesting(bool use);

// For tests: below this many flops (default 4M) a convolution is small:
// oneDNN runs it on the calling thread, and one with lhs dilation is
// planned (PlanConvolution) as one GEMM, not in phases.
void SetSmallConvolutionFlopsForTesting(int64_t flops);

// `pool` may be null (runs on the calling thread).  `output` must not
// overlap input or kernel.  `epilogue`, when given, is called with ranges
// [begin, end) of the output's batch entries once they are final, each
// entry exactly once: where oneDNN runs the plan in batch chunks, right
// after each chunk, on its thread (its results still in cache), else over
// the pool at the end.
absl::Status RunConvolution(const ConvPlan& plan, const void* input, const void* kernel,
                            void* output, runtime::ThreadPool* pool,
                            const RowEpilogue* epilogue = nullptr);

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_CONV_THUNK_H_
