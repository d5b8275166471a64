// CpuExecutable: a module compiled by the CPU backend (cpu_compiler.h), as
// a list of thunks over one arena laid out by buffer assignment.
//
// Every allocation of the BufferAssignment (parameters, outputs, constants,
// temps) sits at its own 64-byte-aligned place in one host arena, allocated
// at compile time and reused by every run (steady state: a run allocates no
// arena).  A run copies the arguments into the parameter allocations (in
// the parameters' layouts), runs the thunks in schedule order, and reads the
// result leaves back out.  Constants are written into their read-only
// allocation once, at compile time.
//
// Thunks (each also lowers to a runtime::Thunk for the runtime::Executable
// path that `tessera run` and `bench` use, cpu_compiler.h):
// - KernelThunk: a JIT-compiled LoopKernel (loop_kernel.h: loop, input
//   and row/column fusions, unfused elementwise, shape, indexing and
//   reduce ops, scatter, variadic reduce) on its operands' and result's
//   slices, split over the thread pool.
// - DotThunk: a dot through Eigen's GEMM (RunDot) where PlanDot accepts
//   it, optionally with a kOutput fusion's epilogue kernel run per row
//   panel inside the GEMM.
// - SortThunk / TopKThunk: sort with a JIT comparator, top-k
//   (sort_thunk.h); ConvThunk: im2col + GEMM (conv_thunk.h).
// - While, conditional and call over the arena; copies; sequences.
// - EvaluatorFallbackThunk: one instruction evaluated by the reference
//   evaluator on literals read from the arena, its result written back,
//   for whatever has no native thunk.  Slow, exact; counted, so that what
//   runs off the native path is visible (none of the JAX corpus or the
//   benchmark modules does).
//
// Runs are serialized (one arena): Run may be called from many threads.
#ifndef TESSERA_BACKENDS_CPU_CPU_EXECUTABLE_H_
#define TESSERA_BACKENDS_CPU_CPU_EXECUTABLE_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/cpu/conv_thunk.h"
#include "backends/cpu/eigen_dot.h"
#include "backends/cpu/fft_thunk.h"
#include "backends/cpu/linalg_thunk.h"
#include "backends/cpu/loop_kernel.h"
#include "backends/cpu/rng_bit_generator_thunk.h"
#include "backends/cpu/sort_thunk.h"
#include "backends/cpu/tile_kernel.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/ir/literal.h"
#include "passes/memory/buffer_assignment.h"
#include "runtime/buffer_allocations.h"
#include "runtime/kernel_thunk.h"
#include "runtime/thunk.h"

namespace tessera {
namespace cpu {

// One array leaf of a value in the arena: where it is and how it lies.
struct ArenaLeaf {
  ShapeIndex index;
  Shape shape;  // the leaf's array shape (its layout says the byte order)
  BufferSlice slice;
};

// The arena: one aligned host buffer holding every allocation.  Thunks
// only ask it for addresses (Address is virtual): RuntimeArena answers from
// the runtime's BufferAllocations of one run instead.
class Arena {
 public:
  static constexpr int64_t kAlignment = 64;
  explicit Arena(const std::vector<BufferAllocation>& allocations);
  virtual ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  virtual char* Address(const BufferSlice& slice) const {
    return data_ + base_[slice.allocation] + slice.offset;
  }
  int64_t size() const { return size_; }

  // Array literals (row-major) in and out of a leaf's slice, in the leaf's
  // layout.
  void Write(const ArenaLeaf& leaf, const Literal& value) const;
  Literal Read(const ArenaLeaf& leaf) const;

 protected:
  Arena() = default;  // no memory of its own

 private:
  char* data_ = nullptr;
  int64_t size_ = 0;
  std::vector<int64_t> base_;
};

// The slices of one runtime::Executable run (allocation indices are the
// buffer assignment's: the runtime plan keeps them one to one).
class RuntimeArena : public Arena {
 public:
  explicit RuntimeArena(const runtime::BufferAllocations& buffers) : buffers_(buffers) {}
  char* Address(const BufferSlice& slice) const override {
    return static_cast<char*>(buffers_.base(slice.allocation)) + slice.offset;
  }

 private:
  const runtime::BufferAllocations& buffers_;
};

runtime::BufferSlice ToRuntime(const BufferSlice& slice);

class CpuExecutable;

class CpuThunk {
 public:
  explicit CpuThunk(std::string name) : name_(std::move(name)) {}
  virtual ~CpuThunk() = default;
  virtual absl::Status Execute(const Arena& arena) const = 0;
  virtual bool native() const = 0;
  // "kernel fusion.3 (a0[0, 64), a3[0, 64)) -> a3[0, 64)"
  virtual std::string ToString() const = 0;
  const std::string& name() const { return name_; }

  // This thunk as a runtime thunk (the runtime::Executable path).  It may
  // refer to this thunk, which must outlive it.  Default: a host call that
  // runs Execute over the run's buffers (RuntimeArena).
  virtual std::unique_ptr<runtime::Thunk> Lower() const;
  // The slices a lowered host call names (for printing).
  virtual std::vector<BufferSlice> Slices() const { return {}; }

 protected:
  // A host call named after this thunk over Slices(), running `fn`.
  std::unique_ptr<runtime::Thunk> LowerToHostCall(runtime::HostCallThunk::Function fn) const;

 private:
  std::string name_;
};

// A compiled elementwise kernel, or the baseline tier's tile program for
// one (tile_kernel.h): buffers are the operands, then the result.
class KernelThunk : public CpuThunk {
 public:
  // `partitions` > 1: the runtime thunk splits the kernel's work over the
  // thread pool in that many blocks (CpuExecutable::Run runs it whole).
  KernelThunk(std::string name, std::unique_ptr<LoopKernel> kernel,
              std::vector<BufferSlice> operands, BufferSlice result, int64_t partitions = 1);
  // The tier's program; with `tier_up`, a deferred LLVM kernel of the same
  // fusion (LoopKernelOptions::deferred, with tile->major_size() as its
  // work size) that runs instead once its code is generated: the thunk's
  // second execution asks `owner` (the executable holding the thunk) to
  // generate it (CpuExecutable::TierUp).
  KernelThunk(std::string name, std::unique_ptr<TileKernel> kernel,
              std::vector<BufferSlice> operands, BufferSlice result, int64_t partitions = 1,
              std::unique_ptr<LoopKernel> tier_up = nullptr, const CpuExecutable* owner = nullptr);
  absl::Status Execute(const Arena& arena) const override;
  bool native() const override { return true; }
  std::string ToString() const override;
  std::unique_ptr<runtime::Thunk> Lower() const override;

 private:
  // A tiered kernel's second execution (a second run, or a loop's second
  // iteration) tiers the executable up.
  void CountExecution() const;

  std::unique_ptr<LoopKernel> kernel_;  // one of these two, or both (tiered)
  std::unique_ptr<TileKernel> tile_kernel_;
  const CpuExecutable* owner_ = nullptr;
  mutable std::atomic<int64_t> executions_{0};
  std::vector<BufferSlice> operands_;
  BufferSlice result_;
  int64_t partitions_ = 1;
};

// A GEMM's or a convolution's epilogue over ranges of its result's
// dimension 0: its LLVM kernel, the baseline tier's tile program, or both
// (tiered: the tile program until the deferred LLVM kernel's code exists,
// which the epilogue's second execution asks `owner` for, as KernelThunk).
class EpilogueKernel {
 public:
  EpilogueKernel(std::unique_ptr<LoopKernel> llvm, std::unique_ptr<TileKernel> tile = nullptr,
                 const CpuExecutable* owner = nullptr);
  // The extent of the result's dimension 0.
  int64_t work_size() const;
  // Once per execution of the thunk, before its ranges run.
  void CountExecution() const;
  void Run(void** buffers, int64_t begin, int64_t end) const;

 private:
  std::unique_ptr<LoopKernel> llvm_;
  std::unique_ptr<TileKernel> tile_;
  const CpuExecutable* owner_;
  mutable std::atomic<int64_t> executions_{0};
};

// A dot through Eigen's GEMM (eigen_dot.h): out = lhs x rhs as `shape`
// says, split over the thread pool (the runtime's; the default pool when
// run on an Arena).  `out` overlaps neither operand.  Scratch (16-bit
// types only) is allocated by RunDot per call.
//
// With an epilogue kernel (a kOutput fusion's elementwise tail, reading the
// dot from `out` and writing `out` in place), each panel of result rows
// goes through the epilogue as soon as the GEMM finishes it, on the same
// thread, while it is in cache (RunDot's RowEpilogue): no second pass over
// the result.  The kernel's partitions must be the result's rows.
//
// With `staged_dot_buffer` (an index into `epilogue_buffers`, the kernel's
// parameter that holds the dot), the GEMM writes into scratch of the
// calling thread instead of `out`, and the kernel reads the dot there: for
// a result that is also an operand the epilogue reads elementwise (the
// accumulator of `acc + a x b`, updated in place; StagesItsProduct in
// hlo_dataflow_analysis.cc), which the product must not overwrite first.
class DotThunk : public CpuThunk {
 public:
  DotThunk(std::string name, DotShape shape, BufferSlice lhs, BufferSlice rhs, BufferSlice out)
      : CpuThunk(std::move(name)), shape_(shape), lhs_(lhs), rhs_(rhs), out_(out) {}
  DotThunk(std::string name, DotShape shape, BufferSlice lhs, BufferSlice rhs, BufferSlice out,
           std::unique_ptr<EpilogueKernel> epilogue, std::vector<BufferSlice> epilogue_buffers,
           int64_t staged_dot_buffer = -1)
      : CpuThunk(std::move(name)),
        shape_(shape),
        lhs_(lhs),
        rhs_(rhs),
        out_(out),
        epilogue_(std::move(epilogue)),
        epilogue_buffers_(std::move(epilogue_buffers)),
        staged_dot_buffer_(staged_dot_buffer) {}
  absl::Status Execute(const Arena& arena) const override;
  bool native() const override { return true; }
  std::string ToString() const override;
  std::unique_ptr<runtime::Thunk> Lower() const override;
  std::vector<BufferSlice> Slices() const override;

 private:
  DotShape shape_;
  BufferSlice lhs_, rhs_, out_;
  std::unique_ptr<EpilogueKernel> epilogue_;   // null: a plain dot
  std::vector<BufferSlice> epilogue_buffers_;  // its parameters, then its result
  int64_t staged_dot_buffer_ = -1;             // -1: the GEMM writes `out`
};

// A convolution as im2col + GEMM (RunConvolution, conv_thunk.h).
class ConvThunk : public CpuThunk {
 public:
  // With `epilogue`: a kernel over the output's batch entries (its work
  // size the batch), run per chunk of finished entries (RunConvolution),
  // over `epilogue_buffers` (its parameters, then its result).
  ConvThunk(std::string name, ConvPlan plan, BufferSlice input, BufferSlice kernel, BufferSlice out,
            std::unique_ptr<EpilogueKernel> epilogue = nullptr,
            std::vector<BufferSlice> epilogue_buffers = {})
      : CpuThunk(std::move(name)),
        plan_(std::move(plan)),
        input_(input),
        kernel_(kernel),
        out_(out),
        epilogue_(std::move(epilogue)),
        epilogue_buffers_(std::move(epilogue_buffers)) {}
  absl::Status Execute(const Arena& arena) const override;
  bool native() const override { return true; }
  std::string ToString() const override;
  std::unique_ptr<runtime::Thunk> Lower() const override;
  std::vector<BufferSlice> Slices() const override;

 private:
  ConvPlan plan_;
  BufferSlice input_, kernel_, out_;
  std::unique_ptr<EpilogueKernel> epilogue_;  // null: a plain convolution
  std::vector<BufferSlice> epilogue_buffers_;
};

// A sort through RunSort (sort_thunk.h) with its JIT comparator: operands
// in, results out (apart), rows split over the thread pool.
class SortThunk : public CpuThunk {
 public:
  SortThunk(std::string name, SortPlan plan, std::shared_ptr<void*> comparator,
            std::vector<BufferSlice> operands, std::vector<BufferSlice> results)
      : CpuThunk(std::move(name)), plan_(std::move(plan)), comparator_(std::move(comparator)),
        operands_(std::move(operands)), results_(std::move(results)) {}
  absl::Status Execute(const Arena& arena) const override;
  bool native() const override { return true; }
  std::string ToString() const override;
  std::unique_ptr<runtime::Thunk> Lower() const override;
  std::vector<BufferSlice> Slices() const override;

 private:
  // The JIT comparator, or null where the plan sorts by a key.
  SortComparator* Comparator() const {
    return comparator_ == nullptr ? nullptr : reinterpret_cast<SortComparator*>(*comparator_);
  }

  SortPlan plan_;
  // The address, set when the JIT finalizes; null where plan_.key is set.
  std::shared_ptr<void*> comparator_;
  std::vector<BufferSlice> operands_, results_;
};

// topk along the last dimension of a row-major operand (RunTopK).
class TopKThunk : public CpuThunk {
 public:
  TopKThunk(std::string name, PrimitiveType type, int64_t rows, int64_t length, int64_t k,
            bool largest, BufferSlice operand, BufferSlice values, BufferSlice indices)
      : CpuThunk(std::move(name)), type_(type), rows_(rows), length_(length), k_(k),
        largest_(largest), operand_(operand), values_(values), indices_(indices) {}
  absl::Status Execute(const Arena& arena) const override;
  bool native() const override { return true; }
  std::string ToString() const override;
  std::unique_ptr<runtime::Thunk> Lower() const override;
  std::vector<BufferSlice> Slices() const override { return {operand_, values_, indices_}; }

 private:
  PrimitiveType type_;
  int64_t rows_, length_, k_;
  bool largest_;
  BufferSlice operand_, values_, indices_;
};

// An `fft` (fft_thunk.h: LaneFft and LineFft per axis).
class FftThunk : public CpuThunk {
 public:
  FftThunk(std::string name, FftPlan plan, BufferSlice operand, BufferSlice result)
      : CpuThunk(std::move(name)), plan_(std::move(plan)), operand_(operand), result_(result) {}
  absl::Status Execute(const Arena& arena) const override;
  bool native() const override { return true; }
  std::string ToString() const override;
  std::unique_ptr<runtime::Thunk> Lower() const override;
  std::vector<BufferSlice> Slices() const override { return {operand_, result_}; }

 private:
  FftPlan plan_;
  BufferSlice operand_, result_;
};

// rng-bit-generator: (state, bits) from a u64[n] state
// (rng_bit_generator_thunk.h).  The new state may be the old one's buffer.
class RngBitGeneratorThunk : public CpuThunk {
 public:
  RngBitGeneratorThunk(std::string name, RngPlan plan, BufferSlice state, BufferSlice new_state,
                       BufferSlice bits)
      : CpuThunk(std::move(name)), plan_(plan), state_(state), new_state_(new_state), bits_(bits) {}
  absl::Status Execute(const Arena& arena) const override;
  bool native() const override { return true; }
  std::string ToString() const override;
  std::unique_ptr<runtime::Thunk> Lower() const override;
  std::vector<BufferSlice> Slices() const override { return {state_, new_state_, bits_}; }

 private:
  RngPlan plan_;
  BufferSlice state_, new_state_, bits_;
};

// A Cholesky factorization, LU factorization or triangular solve through
// Eigen (linalg_thunk.h): XLA's cholesky and triangular-solve, JAX's LAPACK
// custom calls.
class LinalgThunk : public CpuThunk {
 public:
  LinalgThunk(std::string name, LinalgPlan plan, std::vector<BufferSlice> operands,
              std::vector<BufferSlice> results)
      : CpuThunk(std::move(name)),
        plan_(std::move(plan)),
        operands_(std::move(operands)),
        results_(std::move(results)) {}
  absl::Status Execute(const Arena& arena) const override;
  bool native() const override { return true; }
  std::string ToString() const override;
  std::unique_ptr<runtime::Thunk> Lower() const override;
  std::vector<BufferSlice> Slices() const override;

 private:
  LinalgPlan plan_;
  std::vector<BufferSlice> operands_, results_;
};

// Thunks run in turn as one (the kernels of one multi-output fusion).
class SequenceThunk : public CpuThunk {
 public:
  SequenceThunk(std::string name, std::vector<std::unique_ptr<CpuThunk>> thunks)
      : CpuThunk(std::move(name)), thunks_(std::move(thunks)) {}
  absl::Status Execute(const Arena& arena) const override;
  bool native() const override;
  std::string ToString() const override;
  std::unique_ptr<runtime::Thunk> Lower() const override;
  const std::vector<std::unique_ptr<CpuThunk>>& thunks() const { return thunks_; }

 private:
  std::vector<std::unique_ptr<CpuThunk>> thunks_;
};

using CpuThunkSequence = std::vector<std::unique_ptr<CpuThunk>>;

// Copies bytes between slices (a called computation's parameter or result
// that buffer assignment placed apart from the caller's value).
class CopyThunk : public CpuThunk {
 public:
  CopyThunk(std::string name, BufferSlice source, BufferSlice destination)
      : CpuThunk(std::move(name)), source_(source), destination_(destination) {}
  absl::Status Execute(const Arena& arena) const override;
  bool native() const override { return true; }
  std::string ToString() const override;
  std::unique_ptr<runtime::Thunk> Lower() const override;

 private:
  BufferSlice source_;
  BufferSlice destination_;
};

// A while loop over the arena: the state lives in one set of slices (init,
// body parameter, body root and the loop's value share them); `init`
// copies the init in where it lies elsewhere.  Each iteration runs the
// condition, reads its PRED, then runs the body; with a known trip count
// (KnownTripCount) the body runs that many times and the condition never.
class WhileThunk : public CpuThunk {
 public:
  WhileThunk(std::string name, CpuThunkSequence init, CpuThunkSequence condition,
             BufferSlice predicate, CpuThunkSequence body,
             std::optional<int64_t> trip_count = std::nullopt)
      : CpuThunk(std::move(name)),
        init_(std::move(init)),
        condition_(std::move(condition)),
        predicate_(predicate),
        body_(std::move(body)),
        trip_count_(trip_count) {}
  absl::Status Execute(const Arena& arena) const override;
  bool native() const override { return true; }
  std::string ToString() const override;
  std::unique_ptr<runtime::Thunk> Lower() const override;

 private:
  CpuThunkSequence init_;
  CpuThunkSequence condition_;
  BufferSlice predicate_;
  CpuThunkSequence body_;
  std::optional<int64_t> trip_count_;
};

// A conditional: a PRED selector picks branch 0 (true) or 1 (false); an
// S32 selector picks branch i, or the last one when out of range.  Each
// branch sequence copies its operand in, runs, and copies its result out
// where buffer assignment placed them apart.
class ConditionalThunk : public CpuThunk {
 public:
  ConditionalThunk(std::string name, BufferSlice selector, bool pred_selector,
                   std::vector<CpuThunkSequence> branches)
      : CpuThunk(std::move(name)),
        selector_(selector),
        pred_selector_(pred_selector),
        branches_(std::move(branches)) {}
  absl::Status Execute(const Arena& arena) const override;
  bool native() const override { return true; }
  std::string ToString() const override;
  std::unique_ptr<runtime::Thunk> Lower() const override;

 private:
  BufferSlice selector_;
  bool pred_selector_;
  std::vector<CpuThunkSequence> branches_;
};

// One instruction on the reference evaluator.  `computation` holds the
// instruction alone over parameters (its called computations are the
// module's); operands[k] are operand k's array leaves.
class EvaluatorFallbackThunk : public CpuThunk {
 public:
  EvaluatorFallbackThunk(std::string name, std::string reason,
                         std::unique_ptr<HloComputation> computation,
                         std::vector<Shape> operand_shapes,
                         std::vector<std::vector<ArenaLeaf>> operands,
                         std::vector<ArenaLeaf> results);
  absl::Status Execute(const Arena& arena) const override;
  bool native() const override { return false; }
  std::string ToString() const override;
  // A host call that passes the run's cancellation flag to the evaluator,
  // so that a deadline stops a long evaluation (a reduction's reducer, a
  // sort's comparator) between the instructions it evaluates.
  std::unique_ptr<runtime::Thunk> Lower() const override;
  std::vector<BufferSlice> Slices() const override;
  const std::string& reason() const { return reason_; }

 private:
  absl::Status Evaluate(const Arena& arena, const EvaluateOptions& options) const;

  std::string reason_;
  std::unique_ptr<HloComputation> computation_;
  std::vector<Shape> operand_shapes_;
  std::vector<std::vector<ArenaLeaf>> operands_;
  std::vector<ArenaLeaf> results_;
};

struct CpuExecutableStats {
  int64_t native_instructions = 0;    // kernels
  int64_t fallback_instructions = 0;  // EvaluatorFallbackThunk
  int64_t aliasing_instructions = 0;  // parameter, constant, tuple, gte, bitcast: no thunk
  // while, conditional, call run as control-flow thunks over the arena
  // (their bodies' instructions are counted as native or fallback).
  int64_t control_flow_instructions = 0;
  // Kernels that write their result with non-temporal stores
  // (CpuCompileOptions::streaming_store_bytes).
  int64_t streaming_kernels = 0;
  // Kernels run as the baseline tier's tile programs (tile_kernel.h), and
  // how many of them have an LLVM kernel generated at the second run
  // (KernelTier::kTiered).
  int64_t tile_kernels = 0;
  int64_t tiered_kernels = 0;
  // "opcode name: reason" per fallback instruction.
  std::vector<std::string> fallbacks;
  double compile_ms = 0;  // the whole CompileForCpu
  int64_t arena_bytes = 0;
  // LLVM modules compiled for kernels, and how many of them were loaded
  // from the on-disk object cache (JitOptions::cache_dir) instead.
  int64_t llvm_modules = 0;
  int64_t llvm_cache_hits = 0;
  // Kernels that share the code of an earlier, structurally identical one
  // (LoopKernelCompiler::reused_kernels).
  int64_t reused_kernels = 0;
};

class CpuExecutable {
 public:
  // Values in and out as literals.  InvalidArgument unless `arguments`
  // match the entry's parameters in number, element type and dimensions
  // (layouts are ignored: literals are row-major), naming the parameter:
  // "parameter 1 (y) expects f32[3], got f32[4]".
  absl::StatusOr<Literal> Run(absl::Span<const Literal> arguments) const;

  // The module as compiled (fused, scheduled) and its buffer plan.
  const HloModule& module() const { return *module_; }
  const BufferAssignment& buffer_assignment() const { return *assignment_; }
  const CpuExecutableStats& stats() const { return stats_; }
  const std::vector<std::unique_ptr<CpuThunk>>& thunks() const { return thunks_; }
  int64_t native_instruction_count() const { return stats_.native_instructions; }
  int64_t fallback_instruction_count() const { return stats_.fallback_instructions; }

  // The thunks, one per line, then "native N, fallback M, aliasing K".
  std::string ToString() const;

  ~CpuExecutable();

  // Generates the tiered kernels' LLVM code, once (a tiered kernel's second
  // execution calls it): on the BackgroundCompiler's thread, the runs going
  // on with the tile programs meanwhile, or before it returns, as
  // CpuCompileOptions::tier_up says.  Each tiered kernel runs that code
  // once it exists.  An error leaves the tiered kernels on their tile
  // programs (the same results) and is kept in tier_up_status().
  void TierUp() const;
  // Returns once an asked-for tier-up is done (at once where none was).
  void WaitForTierUp() const;
  // Whether the tiered kernels run their LLVM code now.
  bool tiered_up() const { return tiered_up_.load(std::memory_order_acquire); }
  absl::Status tier_up_status() const;
  // How long the tier-up's code generation took (0 before it).
  double tier_up_ms() const;

 private:
  friend class CpuExecutableBuilder;
  CpuExecutable() = default;

  absl::Status CheckArguments(absl::Span<const Literal> arguments) const;
  // TierUp's work, on whichever thread.
  void GenerateTieredCode() const;

  std::unique_ptr<HloModule> module_;
  std::unique_ptr<BufferAssignment> assignment_;
  std::shared_ptr<LoopKernelCompiler> kernel_compiler_;  // owns the JIT
  // Computations made for kernels (a multi-output fusion's outputs), which
  // tiered kernels are emitted from at their second execution.
  std::vector<std::unique_ptr<HloComputation>> kernel_computations_;
  std::unique_ptr<Arena> arena_;
  std::vector<std::unique_ptr<CpuThunk>> thunks_;
  // Per entry parameter, its array leaves; the root's array leaves.
  std::vector<std::vector<ArenaLeaf>> parameters_;
  std::vector<ArenaLeaf> results_;
  // Constants outside the read-only constant allocation, rewritten per run.
  std::vector<std::pair<ArenaLeaf, const Literal*>> per_run_constants_;
  CpuExecutableStats stats_;
  mutable std::mutex run_mutex_;
  bool background_tier_up_ = false;  // CpuCompileOptions::tier_up
  mutable std::atomic<bool> tier_up_asked_{false};
  mutable std::atomic<bool> tiered_up_{false};
  mutable std::mutex tier_up_mutex_;
  mutable std::condition_variable tier_up_done_;
  mutable bool tier_up_finished_ = false;  // under tier_up_mutex_
  mutable absl::Status tier_up_status_;    // under tier_up_mutex_
  mutable double tier_up_ms_ = 0;          // under tier_up_mutex_
};

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_CPU_EXECUTABLE_H_
