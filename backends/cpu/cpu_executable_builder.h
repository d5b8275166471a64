// CpuExecutableBuilder: turns a scheduled, buffer-assigned module into a
// CpuExecutable's thunks, instruction by instruction: JIT loop kernels
// (cpu_compiler.cc), GEMM, scatter, sort, top-k and variadic-reduce thunks
// (cpu_op_thunks.cc), control flow, copies and the evaluator fallback.
// Internal to the CPU backend.
#ifndef TESSERA_BACKENDS_CPU_CPU_EXECUTABLE_BUILDER_H_
#define TESSERA_BACKENDS_CPU_CPU_EXECUTABLE_BUILDER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/cpu/cpu_executable.h"
#include "backends/cpu/loop_kernel.h"
#include "hlo/ir/status_macros.h"
#include "passes/memory/buffer_assignment.h"
#include "runtime/executable.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {

class CpuExecutableBuilder {
 public:
  CpuExecutableBuilder(const CpuCompileOptions& options, CpuExecutable* executable,
                       bool runtime_only = false)
      : options_(options), executable_(*executable), runtime_only_(runtime_only) {}

  absl::Status Build();
  absl::Status BuildSequence(const HloComputation* computation, CpuThunkSequence* thunks);
  // While, conditional and call as thunks over the arena; nullptr where
  // buffer assignment placed things so that they cannot be (the fallback
  // then runs the instruction whole).
  absl::StatusOr<std::unique_ptr<CpuThunk>> TryControlFlow(const HloInstruction* instruction);
  bool CopyLeaves(const std::vector<ArenaLeaf>& from, const std::vector<ArenaLeaf>& to,
                  absl::string_view name, CpuThunkSequence* thunks);

  static absl::StatusOr<std::unique_ptr<CpuExecutable>> Create(std::unique_ptr<HloModule> module,
                                                               const CpuCompileOptions& options,
                                                               bool runtime_only = false) {
    auto executable = std::unique_ptr<CpuExecutable>(new CpuExecutable());
    executable->module_ = std::move(module);
    BufferAssignmentOptions assignment_options;
    assignment_options.alignment = Arena::kAlignment;
    TS_ASSIGN_OR_RETURN(BufferAssignment assignment,
                        AssignBuffers(*executable->module_, assignment_options));
    executable->assignment_ = std::make_unique<BufferAssignment>(std::move(assignment));
    TS_ASSIGN_OR_RETURN(std::unique_ptr<LoopKernelCompiler> compiler,
                        LoopKernelCompiler::Create(options.jit));
    executable->kernel_compiler_ = std::move(compiler);
    executable->background_tier_up_ = options.tier_up == CpuCompileOptions::TierUp::kBackground;
    CpuExecutableBuilder builder(options, executable.get(), runtime_only);
    TS_RETURN_IF_ERROR(builder.Build());
    if (options.kernel_tier == CpuCompileOptions::KernelTier::kTiered &&
        options.tier_up == CpuCompileOptions::TierUp::kEager &&
        executable->stats_.tiered_kernels > 0) {
      executable->TierUp();  // not in the background: generated before this returns
      TS_RETURN_IF_ERROR(executable->tier_up_status());
    }
    const llvm_ir::JitStats jit = executable->kernel_compiler_->jit_stats();
    executable->stats_.llvm_modules = jit.modules;
    executable->stats_.llvm_cache_hits = jit.cache_hits;
    executable->stats_.reused_kernels = executable->kernel_compiler_->reused_kernels();
    return executable;
  }
  // Where `module` multiplies f32 matrices: oneDNN's one-time kernel
  // generation (WarmUpOneDnnGemm), started on the BackgroundCompiler's
  // thread now (as a compile starts) rather than paid by the first run
  // (once per process).
  static void WarmUpGemmsInBackground(const HloModule& module);
  static void SetCompileTime(CpuExecutable* executable, double ms) {
    executable->stats_.compile_ms = ms;
  }
  // The runtime::Executable over `executable`'s thunks (which it keeps
  // alive).
  static absl::StatusOr<std::unique_ptr<runtime::Executable>> ToRuntime(
      std::shared_ptr<const CpuExecutable> executable);

 private:
  absl::StatusOr<std::vector<ArenaLeaf>> Leaves(const HloInstruction* instruction) const;
  // Where the instruction's storage is its operand's: nothing to run.
  bool Forwards(const HloInstruction* instruction) const;
  // A kernel thunk, or a status saying why not (then: the fallback).
  absl::StatusOr<std::unique_ptr<CpuThunk>> TryKernel(const HloInstruction* instruction);
  // The kernel thunk for `computation` (a fusion's, or one made for a
  // thunk, then `owned`, which the executable keeps: a tiered kernel is
  // emitted from it at its second execution): the baseline tier's tile
  // program (tiered or alone) where CpuCompileOptions::kernel_tier and the
  // tier allow, else an LLVM kernel (compiled with EpilogueOptions when
  // `epilogue`: a GEMM's or convolution's, after it).
  absl::StatusOr<std::unique_ptr<CpuThunk>> MakeKernelThunk(std::string name,
                                                            const HloComputation& computation,
                                                            std::unique_ptr<HloComputation> owned,
                                                            std::vector<BufferSlice> operands,
                                                            BufferSlice result, int64_t partitions,
                                                            bool epilogue = false);
  // The baseline tier's program for `computation` under the options (the
  // kernels' math target, reduction order and streaming threshold).
  absl::StatusOr<std::unique_ptr<TileKernel>> TileKernelFor(
      const HloComputation& computation) const;
  // Whether `tile` is a tiered kernel's final code (no LLVM kernel to tier
  // up to: CpuCompileOptions::final_tile_code).
  bool TileCodeIsFinal(const TileKernel& tile) const;
  // The epilogue of a GEMM or convolution writing `result`, from
  // `computation` (`owned`, kept by the executable): as MakeKernelThunk
  // chooses, where the tile program splits the work as the LLVM kernel does.
  // Unimplemented where the kernel's work size is not `work_size` (when
  // given: the units its caller runs it over).  `staged_operand`: the
  // operand whose slice is the result's but which the thunk points at
  // scratch (DotThunk's staged product), distinct from every other.
  absl::StatusOr<std::unique_ptr<EpilogueKernel>> MakeEpilogue(
      const HloComputation& computation, std::unique_ptr<HloComputation> owned,
      const std::vector<BufferSlice>& operands, BufferSlice result,
      std::optional<int64_t> work_size = std::nullopt, int64_t staged_operand = -1);
  // A kLoop fusion with a tuple root: one kernel per output, run in turn.
  absl::StatusOr<std::unique_ptr<CpuThunk>> TryMultiOutputKernel(const HloInstruction* fusion);
  // An unfused dot through RunDot (PlanDot decides).
  absl::StatusOr<std::unique_ptr<CpuThunk>> TryScatter(const HloInstruction* scatter);
  absl::StatusOr<std::unique_ptr<CpuThunk>> TrySelectAndScatter(const HloInstruction* hlo);
  absl::StatusOr<std::unique_ptr<CpuThunk>> TrySort(const HloInstruction* sort);
  absl::StatusOr<std::unique_ptr<CpuThunk>> TryTopK(const HloInstruction* topk);
  absl::StatusOr<std::unique_ptr<CpuThunk>> TryFft(const HloInstruction* fft);
  absl::StatusOr<std::unique_ptr<CpuThunk>> TryRngBitGenerator(const HloInstruction* rng);
  absl::StatusOr<std::unique_ptr<CpuThunk>> TryLinalg(const HloInstruction* hlo);
  absl::StatusOr<std::unique_ptr<CpuThunk>> TryVariadicReduce(const HloInstruction* reduce);
  absl::StatusOr<std::unique_ptr<CpuThunk>> TryDot(const HloInstruction* dot);
  // A kOutput fusion of a dot (over two of the fusion's parameters) and an
  // elementwise epilogue: RunDot into the fusion's result, then the
  // epilogue as a kernel over the fusion's operands and that result (read
  // and written in place).
  absl::StatusOr<std::unique_ptr<CpuThunk>> TryOutputFusion(const HloInstruction* fusion);
  absl::StatusOr<std::unique_ptr<CpuThunk>> Fallback(const HloInstruction* instruction,
                                                     std::string reason);
  // Noalias for every buffer whose memory no other buffer of the call
  // (only the result is written) shares; the polynomial math option.
  // `partitions`: how many thread-pool blocks the kernel's thunk splits its
  // work into (1: one call over the whole range); 0 where the caller runs
  // the kernel over ranges of its own (a GEMM's epilogue per block).
  LoopKernelOptions KernelOptions(const std::vector<BufferSlice>& operands,
                                  const BufferSlice& result, int64_t partitions = 0) const {
    LoopKernelOptions kernel_options;
    kernel_options.whole_range = partitions == 1;
    kernel_options.polynomial_math = options_.polynomial_math;
    kernel_options.reorder_float_reductions = options_.reorder_float_reductions;
    kernel_options.streaming_store_bytes = options_.streaming_store_bytes;
    bool result_alone = true;
    for (const BufferSlice& operand : operands) {
      const bool overlaps = operand.Overlaps(result);
      const bool same = operand.allocation == result.allocation &&
                        operand.offset == result.offset && operand.size == result.size;
      kernel_options.noalias.push_back(!overlaps);
      kernel_options.same_as_result.push_back(same);
      if (overlaps && !same) result_alone = false;
    }
    kernel_options.noalias.push_back(result_alone);
    return kernel_options;
  }
  // KernelOptions for a GEMM's or convolution's epilogue.
  LoopKernelOptions EpilogueOptions(const std::vector<BufferSlice>& operands,
                                    const BufferSlice& result, int64_t partitions = 0) const {
    LoopKernelOptions kernel_options = KernelOptions(operands, result, partitions);
    kernel_options.epilogue = true;
    return kernel_options;
  }
  // Thread-pool blocks for a kernel writing `shape`.
  int64_t Partitions(const Shape& shape) const {
    if (!shape.IsArray() || shape.ElementCount() <= options_.parallel_min_elements) return 1;
    return runtime::ThreadPool::Default().parallelism();
  }

  // The same for a kernel of `instruction` writing `shape`, where a
  // reduction's work is its input's: by the largest of `shape` and the
  // array operands.
  int64_t WorkPartitions(const Shape& shape, const HloInstruction* instruction) const {
    int64_t partitions = Partitions(shape);
    for (const HloInstruction* operand : instruction->operands()) {
      if (operand->shape().IsArray() && shape.IsArray() &&
          operand->shape().ElementCount() > shape.ElementCount()) {
        partitions = std::max(partitions, Partitions(operand->shape()));
      }
    }
    return partitions;
  }

  const CpuCompileOptions& options_;
  CpuExecutable& executable_;
  // The arena holds only the constant allocations (the runtime::Executable
  // binds everything else per run).
  bool runtime_only_ = false;
};

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_CPU_EXECUTABLE_BUILDER_H_
