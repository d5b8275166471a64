// LoopKernel: the CPU backend's elementwise (kLoop) kernels in partitioned
// form,
//
//   void kernel(void** buffers, int64_t begin, int64_t end);
//
// buffers[0..n-1] are the computation's parameters, buffers[n] its result,
// each dense in its shape's layout.  A call computes the result elements
// whose major-most dimension (in layout order) lies in [begin, end), so
// runtime::KernelThunk can split [0, work_size()) over the thread pool.
// Built like backends/llvm_ir's ElementwiseKernel (elemental emitter, one
// ORC JIT at O3 for the host), plus:
// - f32/f64 transcendentals from PolynomialMathEmitter (vectorizable, with
//   the ULP bounds documented in backends/llvm_ir/polynomial_math.h) unless
//   turned off (then the C library, bit-exact with the evaluator);
// - buffers marked noalias where the caller says no other buffer of the
//   call writes their memory (the body takes them as `noalias` arguments
//   and is inlined into the entry, which LLVM turns into alias scopes).
//
// - one-operand `reduce`s whose reducer is a scalar elementwise computation
//   (kInput fusions: the reduce with its fused producers and an elementwise
//   epilogue): each result element starts from the init value and folds
//   the operand's elements in, reduced dimensions in row-major order,
//   accumulator first, in the element type -- the evaluator's order, so
//   results match it bit for bit (with polynomial math off) -- or, where
//   the reducer is one add/multiply/max/min/and/or/xor and the innermost
//   reduced dimension is long enough, in vector lanes combined pairwise
//   (exact for integers and max/min; for float sums and products only
//   with `reorder_float_reductions`; loop_kernel.cc says the order).  A reduce
//   whose result is read other than elementwise (say, broadcast) inside
//   the computation is Unimplemented (it would be recomputed per element).
//
// This header is free of LLVM; only loop_kernel.cc includes LLVM headers
// (the `loop_kernel` target), so cpu_compiler stays fast to compile.
#ifndef TESSERA_BACKENDS_CPU_LOOP_KERNEL_H_
#define TESSERA_BACKENDS_CPU_LOOP_KERNEL_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/llvm_ir/llvm_jit.h"
#include "hlo/ir/hlo_computation.h"

namespace tessera {
namespace cpu {

struct LoopKernelOptions {
  // Polynomial f32/f64 exp, log, tanh, logistic, erf, ... (see above).
  bool polynomial_math = true;
  // Float add/multiply reductions in vector lanes combined pairwise (a
  // smaller error bound than the serial order, and vectorized); off: the
  // evaluator's serial order, bit-exact.
  bool reorder_float_reductions = true;
  // noalias[i] for buffer i (parameters, then the result); missing: false.
  std::vector<bool> noalias;
  // same_as_result[i]: parameter i's buffer is exactly the result's (an
  // in-place update).  The kernel then reads it through the result's
  // pointer, so LLVM sees one base address (each element read before it
  // is written at the same position) instead of two that may overlap
  // anywhere, which keeps the loop vectorizable.  Missing: false.
  std::vector<bool> same_as_result;
};

class LoopKernel {
 public:
  using Function = void(void** buffers, int64_t begin, int64_t end);

  Function* function() const { return function_; }
  // The extent of the partitioned (major-most) dimension; 1 for scalars.
  int64_t work_size() const { return work_size_; }
  void Run(void** buffers) const { function_(buffers, 0, work_size_); }

 private:
  friend class LoopKernelCompiler;
  LoopKernel() = default;
  std::shared_ptr<llvm_ir::LlvmJit> jit_;  // owns the code
  Function* function_ = nullptr;
  int64_t work_size_ = 1;
};

// Compiles kernels into one JIT (which lives as long as any of them).
class LoopKernelCompiler {
 public:
  static absl::StatusOr<std::unique_ptr<LoopKernelCompiler>> Create(
      const llvm_ir::JitOptions& options = {});

  // Unimplemented for ops the elemental emitter lacks, naming the
  // instruction (the caller then falls back).
  absl::StatusOr<std::unique_ptr<LoopKernel>> Compile(const HloComputation& computation,
                                                      const LoopKernelOptions& options);

  llvm_ir::JitStats jit_stats() const { return jit_->stats(); }

 private:
  explicit LoopKernelCompiler(std::shared_ptr<llvm_ir::LlvmJit> jit) : jit_(std::move(jit)) {}
  std::shared_ptr<llvm_ir::LlvmJit> jit_;
  int64_t next_kernel_ = 0;
};

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_LOOP_KERNEL_H_
