// Executable: a compiled program as the runtime runs it, the buffer plan,
// the thunk sequence, and where each result leaf is when the thunks have
// run.  Every backend (cpu, the interpreter, ...) produces one; callers run
// it on raw host buffers, one per argument leaf and per result leaf, dense
// in the layouts the program was compiled for (the backend's Literal-level
// wrapper, backends/common/hlo_executable.h, does shapes and layouts).
//
//   TS_ASSIGN_OR_RETURN(std::vector<OwnedBuffer> results,
//                       executable->Run({ArgumentBuffer(x), ArgumentBuffer(y)}));
//
//   // Steady state (a serving loop, a benchmark): results allocated once,
//   // and the run's arena is reused.
//   TS_ASSIGN_OR_RETURN(std::vector<OwnedBuffer> results, executable->AllocateResults());
//   std::vector<ResultBuffer> outs(results.begin(), results.end());
//   for (...) TS_RETURN_IF_ERROR(executable->ExecuteInto(arguments, outs));
//
// The arena (temps) is allocated by the first run and kept for the next
// ones; concurrent runs each take an arena of their own (more are made as
// needed and kept).  Runs are safe to issue from many threads.
#ifndef TESSERA_RUNTIME_EXECUTABLE_H_
#define TESSERA_RUNTIME_EXECUTABLE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "runtime/buffer.h"
#include "runtime/buffer_allocations.h"
#include "runtime/thread_pool.h"
#include "runtime/thunk.h"

namespace tessera {
namespace runtime {

struct RunOptions {
  // The pool parallel kernels and copies use; null: ThreadPool::Default().
  ThreadPool* thread_pool = nullptr;
  // When set, each thunk's time is added to it (`tessera bench --profile`).
  ThunkProfile* profile = nullptr;
  // When set, another thread may set it to stop the run between thunks
  // (and loop iterations); the run then fails with CANCELLED.
  const std::atomic<bool>* cancelled = nullptr;
};

class Executable {
 public:
  // `result_slices[r]`: where result leaf r is after the thunks ran (it is
  // copied into the caller's buffer unless it is already there).  A kOutput
  // allocation for result r must be exactly result_slices[r].
  // `resources` live as long as the executable (the JIT owning the kernels'
  // code, tables the kernels read, ...).  Checks the plan, every thunk's
  // slices and the result slices; errors name what is wrong.
  static absl::StatusOr<std::unique_ptr<Executable>> Create(
      std::string name, BufferPlan plan, ThunkSequence thunks,
      std::vector<BufferSlice> result_slices,
      std::vector<std::shared_ptr<const void>> resources = {});

  const std::string& name() const { return name_; }
  const BufferPlan& plan() const { return plan_; }
  const ThunkSequence& thunks() const { return thunks_; }
  const std::vector<BufferSlice>& result_slices() const { return result_slices_; }

  int64_t argument_count() const { return plan_.argument_count(); }
  int64_t argument_size(int64_t argument) const { return plan_.argument_size(argument); }
  int64_t result_count() const { return static_cast<int64_t>(result_slices_.size()); }
  int64_t result_size(int64_t result) const { return result_slices_[result].size; }

  // Runs with the caller's result buffers.  Checks the number and byte
  // sizes of arguments and results (errors name them: "argument 1 has 12
  // bytes, expected 16"), that no result overlaps another result or an
  // argument, and that no donated argument overlaps another argument.  The
  // one permitted overlap: results[r] is the very buffer of a donated
  // argument whose allocation holds result r (in-place update, no copy).
  absl::Status ExecuteInto(absl::Span<const ArgumentBuffer> arguments,
                           absl::Span<const ResultBuffer> results,
                           const RunOptions& options = {}) const;

  // Runs into freshly allocated result buffers (AllocateResults).
  absl::StatusOr<std::vector<OwnedBuffer>> Run(absl::Span<const ArgumentBuffer> arguments,
                                               const RunOptions& options = {}) const;

  // One zeroed, aligned buffer per result leaf.
  // ResourceExhausted where memory runs out.
  absl::StatusOr<std::vector<OwnedBuffer>> AllocateResults() const;

  // Work a backend goes on with on its own threads after the executable
  // exists (the CPU backend generating its tiered kernels' LLVM code while
  // runs go on: backends/cpu/cpu_compiler.h's TierUp): returns once what
  // has been asked for so far is done, so that the runs after it use the
  // final code (benchmarks), and how long that work took on its thread in
  // milliseconds (0 where there was none).
  double WaitForBackgroundWork() const {
    return background_work_waiter_ ? background_work_waiter_() : 0;
  }
  void set_background_work_waiter(std::function<double()> wait) {
    background_work_waiter_ = std::move(wait);
  }

  // "executable NAME", the plan's allocations, "results: ...", then the
  // thunks, one per line.
  std::string ToString() const;

 private:
  Executable(std::string name, BufferPlan plan, ThunkSequence thunks,
             std::vector<BufferSlice> result_slices,
             std::vector<std::shared_ptr<const void>> resources)
      : name_(std::move(name)),
        plan_(std::move(plan)),
        thunks_(std::move(thunks)),
        result_slices_(std::move(result_slices)),
        resources_(std::move(resources)) {}

  absl::Status CheckBuffers(absl::Span<const ArgumentBuffer> arguments,
                            absl::Span<const ResultBuffer> results) const;
  absl::StatusOr<OwnedBuffer> TakeArena() const;
  void ReturnArena(OwnedBuffer arena) const;

  std::string name_;
  BufferPlan plan_;
  ThunkSequence thunks_;
  std::vector<BufferSlice> result_slices_;
  std::vector<std::shared_ptr<const void>> resources_;
  std::function<double()> background_work_waiter_;

  mutable std::mutex arenas_mutex_;
  mutable std::vector<OwnedBuffer> free_arenas_;  // guarded by arenas_mutex_
};

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_EXECUTABLE_H_
