// The CPU backend's compiler: an HLO module in, a CpuExecutable out.
//
//   TS_ASSIGN_OR_RETURN(std::unique_ptr<cpu::CpuExecutable> executable,
//                       cpu::CompileForCpu(std::move(module)));
//   TS_ASSIGN_OR_RETURN(Literal result, executable->Run(arguments));
//   // executable->stats(): instructions run natively vs on the evaluator
//
// Pipeline: verify, the CPU pipeline (MakeCpuPipeline: Simplify, fusion
// with row fusion, DCE, copy insertion, scheduling), buffer assignment
// (64-byte aligned slices), then one thunk per instruction of the entry
// computation's schedule (cpu_executable.h, built by
// CpuExecutableBuilder): JIT-compiled kernels (one LLVM module per kernel,
// optimized and compiled in parallel at O3 for the host CPU), Eigen GEMMs
// with fused epilogues, convolution, sort and top-k thunks, control flow,
// and the evaluator fallback for anything without a native thunk.
// CompileForCpuExecutable consults a compilation cache first
// (compilation_cache.h).
#ifndef TESSERA_BACKENDS_CPU_CPU_COMPILER_H_
#define TESSERA_BACKENDS_CPU_CPU_COMPILER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/common/hlo_executable.h"
#include "backends/cpu/cpu_executable.h"
#include "backends/llvm_ir/llvm_jit.h"
#include "hlo/ir/hlo_module.h"
#include "passes/fusion/fusion_cost_model.h"
#include "passes/pass_pipeline.h"

namespace tessera {
namespace cpu {

class CpuCompilationCache;

struct CpuCompileOptions {
  // Run the fusion pipeline.  Off: the module must already be scheduled
  // (and copy-inserted): it is compiled as it is.
  bool run_fusion_pipeline = true;
  FusionCostParams fusion_cost;
  // Off: every instruction runs on the evaluator fallback (for tests).
  bool native_kernels = true;
  llvm_ir::JitOptions jit;
  // f32/f64 transcendentals in kernels as backends/llvm_ir's vectorizable
  // polynomials (within the ULP bounds of polynomial_math.h); off: the C
  // library, bit-exact with the evaluator.
  bool polynomial_math = true;
  // What runs the loop and row-reduction fusions the baseline tier takes
  // (tile_kernel.h: tile programs built in microseconds, no code generated,
  // the same results as the LLVM kernels); every other kernel is LLVM's.
  enum class KernelTier {
    // LLVM kernels, generated before the executable is returned.
    kLlvm,
    // The tier's tile programs (large memory-bound ones run 1.1-1.7x
    // slower than their LLVM kernels).
    kTile,
    // Tile programs until a tiered kernel's second execution (the
    // program's second run, or a loop's second iteration) asks for all
    // their LLVM kernels (each used from when its code exists, see
    // tier_up): the executable is ready in the tier's time, a program run
    // once never pays for LLVM, and one run many times runs LLVM's code,
    // except where the tile program's generated code is final
    // (final_tile_code).
    kTiered,
  };
  KernelTier kernel_tier = KernelTier::kTiered;
  // The tier's runs of elementwise steps as loops of machine code
  // (TileKernelOptions::compile_loops); off: tile operations only.
  bool compile_tile_loops = true;
  // kTiered: a kernel whose whole tile program is generated code, over
  // tiles (rows, where it reduces) of at least final_tile_code_min_elements,
  // keeps that code as its final code: no LLVM kernel is generated for it.
  // Measured (2 threads, this project's Zen 5): softmax and layer norm run
  // faster than their LLVM kernels (4096x1024: 0.46 against 0.53 ms, 0.30
  // against 0.34: the tile code's row max folds with vrange, its exp
  // routine scales with vscalef), elementwise chains as fast, the
  // transformer block's whole module as fast, while an LLVM kernel costs
  // ~3-10 ms to generate and, in the background, slows the runs meanwhile
  // (transformer block, second run: 6.4-7.9 ms with its tier-up, 2.8-3.2
  // without).  Shorter rows that reduce and pass through a math routine,
  // down to half final_tile_code_min_elements, are final too: their code
  // runs four rows at a time (TileKernel::interleaves_rows), which LLVM's
  // row kernels do not (softmax 16384x64: 0.17 against 0.27 ms).  Shorter
  // still, each row's fixed cost makes it the slower (65536x16: 0.70
  // against 0.44 ms).  Other shorter rows (a layer norm's: 0.10 against
  // 0.09 ms at 16384x64) and kernels on tile operations (1.5-3x slower)
  // tier up.  Off: every tiled kernel tiers up.
  bool final_tile_code = true;
  int64_t final_tile_code_min_elements = 128;
  // Where kTiered's LLVM kernels are generated.
  enum class TierUp {
    // On the process's BackgroundCompiler thread: no run waits for LLVM;
    // those meanwhile run the tile programs (CpuExecutable::WaitForTierUp
    // waits for the code).
    kBackground,
    // In the execution that asks for them, before its kernel runs (that
    // execution pays for LLVM; deterministic, for tests).
    kSynchronous,
    // Before the compile returns: every kernel's final code at once (what
    // the compile to the final code costs; tessera bench's "final").
    kEager,
  };
  TierUp tier_up = TierUp::kBackground;
  // Float sums and products reduced in vector lanes combined pairwise
  // (loop_kernel.h); off: the evaluator's serial order, bit-exact.
  bool reorder_float_reductions = true;
  // Kernels whose result has more elements than this split their outer
  // dimension over the runtime's thread pool (runtime::Executable path).
  int64_t parallel_min_elements = 64 * 1024;
  // Elementwise kernels whose result has at least this many bytes write it
  // with non-temporal stores (llvm_ir/streaming_stores.h); unset: the
  // host's last-level cache size.
  std::optional<int64_t> streaming_store_bytes;
  // Dots (and kOutput fusions of a dot and an elementwise epilogue) through
  // Eigen's GEMM (eigen_dot.h) where PlanDot accepts them.  Float sums are
  // reordered (results differ from the evaluator in the last bits); off:
  // dots run on the evaluator, bit-exact.
  bool native_dots = true;
  // CompileForCpuExecutable looks the optimized module up here first
  // (compilation_cache.h) and keeps what it compiles; null: the
  // process-wide CpuCompilationCache::Default().  Off: always compile.
  bool use_cache = true;
  CpuCompilationCache* cache = nullptr;
};

// The passes CompileForCpu runs before code generation (Simplify, fusion
// with options.fusion_cost, DCE, copy insertion, scheduling): the module it
// leaves is the one the CPU backend runs, instruction for instruction
// (`tessera opt --pipeline=cpu` prints it).
std::unique_ptr<PassPipeline> MakeCpuPipeline(
    const CpuCompileOptions& options, const PassPipelineOptions& pipeline = {},
    std::vector<FusionExplanation>* explanations = nullptr);

// Errors: a module that does not verify, a pass or buffer assignment that
// fails, a JIT that cannot start.  Kernels the elementwise compiler
// rejects are not errors: those instructions fall back to the evaluator.
absl::StatusOr<std::unique_ptr<CpuExecutable>> CompileForCpu(std::unique_ptr<HloModule> module,
                                                             const CpuCompileOptions& options = {});

// The same compilation as a runtime::Executable behind the common
// HloExecutable (what `tessera run/bench --backend=cpu` use): the buffer
// assignment becomes the runtime's BufferPlan (parameters, outputs,
// constants with their bytes, temps), kernels runtime KernelThunks, while
// and conditional runtime thunks, evaluator fallbacks host calls.  Steady
// state (ExecuteInto) copies no literals and allocates nothing per run.
// `fallbacks`, when given, receives one line per instruction that runs on
// the evaluator, with the reason it has no native thunk.
absl::StatusOr<std::unique_ptr<HloExecutable>> CompileForCpuExecutable(
    std::unique_ptr<HloModule> module, const CpuCompileOptions& options = {},
    std::vector<std::string>* fallbacks = nullptr);

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_CPU_COMPILER_H_
