// LoopKernel: the CPU backend's JIT-compiled kernels in partitioned form,
//
//   void kernel(void** buffers, int64_t begin, int64_t end);
//
// buffers[0..n-1] are the computation's parameters, buffers[n] its result,
// each dense in its shape's layout.  A call computes the result elements
// whose major-most dimension (in layout order) lies in [begin, end), so
// runtime::KernelThunk can split [0, work_size()) over the thread pool.
// LoopKernelCompiler emits each kernel's LLVM IR (elemental emitter, loop
// emitter) and Finalize() optimizes and compiles all of them at once, in
// parallel, in one ORC JIT at O3 for the host.  What a kernel holds:
// - elementwise and shape ops, pad, concatenate, dynamic slices, gather
//   (backends/llvm_ir's element generators); f32/f64 transcendentals as
//   the polynomials of backends/llvm_ir/polynomial_math.h (vectorizable,
//   with its ULP bounds): calls of their routines (math_library.h,
//   compiled once per process) in kernels without reductions, inlined in
//   kernels with them; unless turned off (then the C library, bit-exact
//   with the evaluator);
// - one-operand `reduce`s with a scalar elementwise reducer
//   (reduce_emitter.cc): each result element folds its operand's elements
//   from the init value in the evaluator's order (bit for bit), or, where
//   the reducer is one add/multiply/max/min/and/or/xor and the innermost
//   reduced dimension is long enough, in vector lanes combined pairwise
//   (exact for integers and max/min; float sums and products only with
//   `reorder_float_reductions`);
// - row kernels (row_column_kernels.cc): reduces read back over their rows
//   through broadcasts (softmax, layer norm) computed once per row before
//   the rest of the row; column kernels: a reduce that keeps its operand's
//   minor dimension (bias gradients) folded in tiles along it;
// - reduce-window, in the evaluator's window order.
// Buffers are marked noalias where the caller says no other buffer of the
// call writes their memory; an operand updated in place is read through
// the result's pointer.  Scatter, variadic reduce and sort comparators are
// compiled by their own entry points below.
//
// This header is free of LLVM; only the `loop_kernel` target's sources
// include LLVM headers, so cpu_compiler stays fast to compile.
#ifndef TESSERA_BACKENDS_CPU_LOOP_KERNEL_H_
#define TESSERA_BACKENDS_CPU_LOOP_KERNEL_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "backends/llvm_ir/llvm_jit.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"

namespace tessera {
namespace llvm_ir {
struct ModuleWithContext;  // llvm_jit_internal.h
}  // namespace llvm_ir

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
  // Elementwise results of at least this many bytes are written with
  // non-temporal stores (llvm_ir/streaming_stores.h); unset: the host's
  // threshold, StreamingStoreThresholdBytes().
  std::optional<int64_t> streaming_store_bytes;
  // The runtime always calls the kernel once over its whole work range
  // [0, work_size()) (it is not split over threads).  Its loops then get
  // constant bounds, so LLVM knows every trip count: no vector epilogue or
  // scalar remainder where the vector width divides it, and less code to
  // optimize and generate for the small kernels this applies to.
  bool whole_range = false;
  // The kernel finishes a GEMM's or a convolution's result (its epilogue):
  // its cost is a small fraction of theirs (GEMM+bias+GELU 1024x4096x1024:
  // 0.15 of 17.3 ms), so its loops favor compile time and are not
  // interleaved beyond the vectorizer's own choice, even with polynomial
  // math.
  bool epilogue = false;
  // The kernel is emitted, and its code generated, by FinalizeDeferred, not
  // Compile and Finalize (its function() stays null until then; the
  // computation must outlive that call): a tiered kernel, which the
  // baseline tier runs until the executable tiers up (cpu_compiler.h's
  // KernelTier::kTiered).
  bool deferred = false;
};

// The number of lanes a vectorized reduction of `type` folds `extent`
// elements into (reduce_emitter.cc; 0: too short to vectorize).  The
// baseline tier folds in the same lanes (tile_kernel.h).
int64_t ReductionLanes(PrimitiveType type, int64_t extent);

class LoopKernel {
 public:
  using Function = void(void** buffers, int64_t begin, int64_t end);

  // Null until the compiler's Finalize() (or FinalizeDeferred()) has
  // generated the code; safe to read while another thread sets it.
  Function* function() const {
    return reinterpret_cast<Function*>(__atomic_load_n(function_.get(), __ATOMIC_ACQUIRE));
  }
  // The extent of the partitioned (major-most) dimension; 1 for scalars.
  int64_t work_size() const { return work_size_; }
  void Run(void** buffers) const { function()(buffers, 0, work_size_); }
  // Whether the kernel writes its result with non-temporal stores (see
  // LoopKernelOptions::streaming_store_bytes).
  bool streaming_stores() const { return streaming_stores_; }

 private:
  friend class LoopKernelCompiler;
  LoopKernel() = default;
  std::shared_ptr<llvm_ir::LlvmJit> jit_;  // owns the code
  // Filled by Finalize (shared, so that a kernel dropped before then only
  // leaves an unread slot behind).
  std::shared_ptr<void*> function_ = std::make_shared<void*>(nullptr);
  int64_t work_size_ = 1;
  bool streaming_stores_ = false;
};

// Compiles kernels into one JIT (which lives as long as any of them).
class LoopKernelCompiler {
 public:
  static absl::StatusOr<std::unique_ptr<LoopKernelCompiler>> Create(
      const llvm_ir::JitOptions& options = {});

  // Emits the kernel's LLVM IR; its code is generated by Finalize(), for
  // all kernels emitted so far at once, in parallel.  Unimplemented for ops
  // the elemental emitter lacks, naming the instruction (the caller then
  // falls back).
  absl::StatusOr<std::unique_ptr<LoopKernel>> Compile(const HloComputation& computation,
                                                      const LoopKernelOptions& options);
  // Optimizes and generates code for the kernels Compile emitted since the
  // last call (llvm_ir::AddModules: one thread per hardware thread) and
  // sets their functions.  Errors are internal (an emitter bug).
  absl::Status Finalize();
  // The same for the deferred kernels (LoopKernelOptions::deferred) emitted
  // so far; may run on another thread than Compile and Finalize, while the
  // kernels compiled before run (their functions are set atomically).
  absl::Status FinalizeDeferred();
  bool has_deferred() const;

  // A kernel for an unfused one-operand `scatter` (scatter_kernel.cc),
  // buffers [operand, indices, updates, result], work size 1: copies the
  // operand into the result unless `options.same_as_result[0]` says it is
  // already there, then applies the updates serially in the evaluator's
  // order (row-major scatter indices, then window), skipping windows that
  // do not fit, through the update computation.  Unimplemented for
  // variadic scatters and non-scalar-elementwise update computations.
  absl::StatusOr<std::unique_ptr<LoopKernel>> CompileScatter(const HloInstruction& scatter,
                                                             const LoopKernelOptions& options);

  // A kernel for an unfused `select-and-scatter` (max-pool gradients;
  // select_and_scatter_kernel.cc): buffers [operand, source, init, result];
  // partitioned over the source's dimension 0 where windows do not overlap
  // along it (pooling), else work size 1 (serial); each result element
  // sees its sources in the evaluator's order.  Unimplemented for dilated windows and
  // non-scalar-elementwise select/scatter computations.
  absl::StatusOr<std::unique_ptr<LoopKernel>> CompileSelectAndScatter(
      const HloInstruction& hlo, const LoopKernelOptions& options);

  // A sort comparator (comparator_kernel.cc; sort_thunk.h runs it):
  // `uint8_t less(const void* const* lhs, const void* const* rhs)`, where lhs[k] / rhs[k] point at operand k's two elements (of
  // `types[k]`, PRED as a byte); it evaluates `comparator`, whose parameters
  // are lhs0, rhs0, lhs1, rhs1, ....  The returned slot holds the function's
  // address after Finalize().
  using Comparator = uint8_t(const void* const* lhs, const void* const* rhs);
  absl::StatusOr<std::shared_ptr<void*>> CompileComparator(
      const HloComputation& comparator, const std::vector<PrimitiveType>& types);

  // A kernel for an unfused variadic `reduce` (variadic_reduce_kernel.cc):
  // buffers [inputs..., inits..., results...], partitioned over the
  // results' major-most dimension; each result element folds its inputs
  // serially in the evaluator's order through the tuple-returning reducer.
  absl::StatusOr<std::unique_ptr<LoopKernel>> CompileVariadicReduce(
      const HloInstruction& reduce, const LoopKernelOptions& options);

  llvm_ir::JitStats jit_stats() const { return jit_->stats(); }
  struct Pending;  // a module emitted, its code not generated yet (loop_kernel.cc)
  // What the kernels are compiled for: the JIT's options with its actual
  // CPU and features (the math routines' target).
  llvm_ir::JitOptions target() const {
    llvm_ir::JitOptions options = jit_->options();
    options.cpu = jit_->cpu_name();
    options.features = jit_->cpu_features();
    return options;
  }
  // How many Compile calls returned an earlier kernel's code: a computation
  // with the same structural text (hlo_structural_text.h) and options
  // compiles once.
  int64_t reused_kernels() const { return reused_kernels_; }

 private:
  explicit LoopKernelCompiler(std::shared_ptr<llvm_ir::LlvmJit> jit) : jit_(std::move(jit)) {}
  // Compile's module for `computation` (named `name`); sets `kernel`'s
  // work size and streaming flag.
  absl::StatusOr<llvm_ir::ModuleWithContext> EmitKernel(const HloComputation& computation,
                                                        const LoopKernelOptions& options,
                                                        const std::string& name,
                                                        LoopKernel* kernel);
  std::shared_ptr<llvm_ir::LlvmJit> jit_;
  int64_t next_kernel_ = 0;
  // Queues `module` for Finalize, which sets `kernel`'s function `name`.
  void AddPending(llvm_ir::ModuleWithContext&& module, std::string name, LoopKernel* kernel);
  void AddPending(llvm_ir::ModuleWithContext&& module, std::string name,
                  std::shared_ptr<void*> address);
  std::vector<std::shared_ptr<Pending>> pending_;
  mutable std::mutex deferred_mutex_;
  std::vector<std::shared_ptr<Pending>> deferred_;  // under deferred_mutex_
  // Compiled kernels by structural text and options: their code (a
  // computation repeated in a module, such as one transpose per attention
  // head input, is optimized and generated once).
  absl::flat_hash_map<std::string, std::shared_ptr<const LoopKernel>> compiled_;
  int64_t reused_kernels_ = 0;
};

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_LOOP_KERNEL_H_
