// LayoutAssignment: chooses the physical layouts of the values a module
// computes inside its computations (XLA's layout assignment, for the CPU
// backend's kernels).
//
// - Row-major by default: an array value without a layout gets the
//   descending one.
// - Convolutions: the CPU convolution (backends/cpu/conv_thunk.h) gathers
//   its input windows fastest from an input laid out batch-major with the
//   features minor-most (NHWC), uses a kernel laid out spatial-major with
//   the output features minor-most (HWIO) in place instead of packing it
//   every run, and writes a result laid out NHWC straight from its GEMM
//   instead of through scratch and a scatter.  Whatever the dim_labels
//   (JAX's lax.conv is NCHW/OIHW), each convolution asks for those
//   physical layouts for its result and operands, and the request spreads
//   through elementwise neighbours of the same dimensions (a bias add, a
//   ReLU), so that a chain conv -> relu -> conv keeps NHWC in between and
//   converts only where the chain meets its inputs and outputs.  A
//   request moves its whole elementwise group or nothing: when the group
//   holds a value whose layout is fixed (a parameter, a root), the kernel
//   fused there would read or write across layouts, a transposing pass
//   that costs what the convolution saved (a weight gradient feeding an
//   SGD update of a parameter keeps the parameter's layout).
//   A convolution input whose layout is fixed, with 16 or more features
//   not minor-most (an NCHW parameter), is converted to NHWC by a copy
//   first (one per value, shared by its convolutions): gathering windows
//   of single elements at a stride cost more than the conversion.
// - Dots keep row-major operands: the Eigen path reads any permutation
//   layout as a (transposed) matrix at no cost, so there is nothing to
//   choose.
//
// Fixed layouts, never changed: computation parameters and roots (the
// entry's are the caller's; the others share storage with their callers'
// values), constants, tuples, and every value with a user that reads its
// bytes by layout or shares its buffer: bitcast and reshape (a reshape of
// a row-major value is free), tuple, while, conditional, call, custom-call,
// and the in-place operands of dynamic-update-slice and scatter.  A value
// wanted in two layouts keeps the first request (convolutions in post
// order), and the second request's group stays as it is.  Fusion computations are left alone: this
// runs before fusion.
#ifndef TESSERA_PASSES_LAYOUT_LAYOUT_ASSIGNMENT_H_
#define TESSERA_PASSES_LAYOUT_LAYOUT_ASSIGNMENT_H_

#include <cstdint>

#include "hlo/ir/hlo_instruction.h"
#include "passes/hlo_pass.h"

namespace tessera {

// The physical layouts LayoutAssignment asks for around `convolution`:
// its input (NHWC), kernel (HWIO) and result (NHWC) in its own dim_labels.
struct ConvolutionLayouts {
  Layout input, kernel, output;
};
ConvolutionLayouts PreferredConvolutionLayouts(const HloInstruction& convolution);

class LayoutAssignment : public HloPass {
 public:
  absl::string_view name() const override { return "layout-assignment"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

  // From the last Run: values whose layout it changed.
  int64_t layouts_changed() const { return layouts_changed_; }

 private:
  int64_t layouts_changed_ = 0;
};

}  // namespace tessera

#endif  // TESSERA_PASSES_LAYOUT_LAYOUT_ASSIGNMENT_H_
