// Elementwise kernels end to end: a computation made of parameters,
// constants, elementwise ops and the index-remapping ops the elemental
// emitter generates (broadcast, iota, reshape, transpose, slice, reverse,
// copy), with an array root, becomes one JIT-compiled function
//
//   void kernel(void** buffers);  // buffers[0..n-1]: parameters, buffers[n]: result
//
// that loops over the result in its layout and computes each element from
// the parameters (each read in its own layout).  This is the first, small
// user of the elemental emitter, loop emitter and JIT; the CPU backend's
// fused kernels grow out of it.  Free of LLVM headers.
#ifndef TESSERA_BACKENDS_LLVM_IR_ELEMENTWISE_KERNEL_H_
#define TESSERA_BACKENDS_LLVM_IR_ELEMENTWISE_KERNEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/llvm_ir/llvm_jit.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/literal.h"

namespace tessera {
namespace llvm_ir {

class ElementwiseKernel {
 public:
  using Function = void(void**);

  // Runs on raw buffers: one per parameter in order, then the result, each
  // dense in its shape's layout (row-major where a shape has none).
  void Run(void** buffers) const { function_(buffers); }

  // Runs on literals (any layout: they are row-major in memory and are
  // rearranged into the parameters' layouts); the result has the root's
  // shape and layout.  Errors for a wrong number, element type or
  // dimensions of arguments.
  absl::StatusOr<Literal> Run(absl::Span<const Literal> arguments) const;

  const std::vector<Shape>& parameter_shapes() const { return parameter_shapes_; }
  const Shape& result_shape() const { return result_shape_; }
  const std::string& function_name() const { return function_name_; }
  // The optimized LLVM IR of the kernel's module, when the compiler kept it.
  const std::string& optimized_ir() const { return optimized_ir_; }

 private:
  friend class ElementwiseKernelCompiler;
  ElementwiseKernel() = default;

  std::shared_ptr<LlvmJit> jit_;  // owns the code
  Function* function_ = nullptr;
  std::vector<Shape> parameter_shapes_;
  Shape result_shape_;
  std::string function_name_;
  std::string optimized_ir_;
};

// Compiles kernels into one JIT (which lives as long as any of them).
class ElementwiseKernelCompiler {
 public:
  static absl::StatusOr<std::unique_ptr<ElementwiseKernelCompiler>> Create(
      const JitOptions& options = {});

  // Compiles `computation` (see the top of this file for what it may
  // hold).  Unimplemented for other ops, naming the instruction.
  absl::StatusOr<std::unique_ptr<ElementwiseKernel>> Compile(const HloComputation& computation);

  // Keep each kernel's optimized IR (ElementwiseKernel::optimized_ir).
  void set_keep_optimized_ir(bool keep) { jit_->set_keep_optimized_ir(keep); }
  LlvmJit& jit() { return *jit_; }

 private:
  explicit ElementwiseKernelCompiler(std::shared_ptr<LlvmJit> jit) : jit_(std::move(jit)) {}
  std::shared_ptr<LlvmJit> jit_;
  int64_t next_kernel_ = 0;
};

// One kernel with a JIT of its own.
absl::StatusOr<std::unique_ptr<ElementwiseKernel>> CompileElementwiseComputation(
    const HloComputation& computation, const JitOptions& options = {});

}  // namespace llvm_ir
}  // namespace tessera

#endif  // TESSERA_BACKENDS_LLVM_IR_ELEMENTWISE_KERNEL_H_
