// Thunks that call code over a list of slices:
// - KernelThunk: a compiled kernel (a JIT-compiled function pointer, or any
//   callable), given the base address of each slice, optionally split into
//   partitions that the thread pool runs in parallel.  Kernels cannot fail.
// - HostCallThunk: a host function that may fail (a library call, a
//   custom-call, the evaluator standing in for an op), given the addresses
//   and returning absl::Status.
//
//   // void Add(void** buffers) { ... buffers[0] + buffers[1] -> buffers[2] }
//   thunks.Emplace<KernelThunk>("add", std::vector<BufferSlice>{x, y, out}, &Add);
//   // rows [begin, end) of a 1024-row kernel, in 8 partitions
//   thunks.Emplace<KernelThunk>("softmax", slices, &SoftmaxRows, 1024, 8);
#ifndef TESSERA_RUNTIME_KERNEL_THUNK_H_
#define TESSERA_RUNTIME_KERNEL_THUNK_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "runtime/thunk.h"

namespace tessera {
namespace runtime {

class KernelThunk : public Thunk {
 public:
  // A kernel that does all its work in one call: buffers[i] is the address
  // of slice i.  The signature of the LLVM JIT's kernels.
  using Function = void(void** buffers);
  // A kernel that does units [begin, end) of its work (rows, tiles, ...).
  using PartitionedFunction = void(void** buffers, int64_t begin, int64_t end);
  using Callable = std::function<void(void** buffers, int64_t begin, int64_t end)>;

  // Calls fn(buffers) once.
  KernelThunk(std::string name, std::vector<BufferSlice> buffers, Function* fn);
  // Splits [0, work_size) into `partitions` blocks of ceil(work_size /
  // partitions) units (partitions 1: one call, inline) and runs the blocks
  // on the thread pool; returns when all have run.  The kernel must be safe
  // to run on disjoint blocks at once.  Work size 0 calls nothing.
  KernelThunk(std::string name, std::vector<BufferSlice> buffers, PartitionedFunction* fn,
              int64_t work_size, int64_t partitions);
  KernelThunk(std::string name, std::vector<BufferSlice> buffers, Callable fn,
              int64_t work_size = 1, int64_t partitions = 1);

  // One thunk running `kernels` (each RunsAsOneBlock) one after the other,
  // over their slices in turn: a loop body of small kernels pays one
  // dispatch per iteration, not one per kernel.  Named "a + b + c".
  static std::unique_ptr<KernelThunk> Chain(std::vector<std::unique_ptr<KernelThunk>> kernels);
  // True when the kernel runs as one call on the calling thread.
  bool RunsAsOneBlock() const { return partitions_ <= 1 || work_size_ <= 1; }

  const std::vector<BufferSlice>& buffers() const { return buffers_; }
  int64_t work_size() const { return work_size_; }
  int64_t partitions() const { return partitions_; }

  absl::Status Execute(const ExecuteParams& params) const override;

  // Execute in two halves, for a loop of one-block kernels (WhileThunk),
  // whose slices stay put through a run: resolve the addresses of
  // buffers() once (into `addresses`, buffers().size() of them), then run
  // the kernel over them on the calling thread at each iteration.
  // RunResolved needs RunsAsOneBlock().
  void ResolveSlices(const BufferAllocations& allocations, void** addresses) const;
  void RunResolved(void** addresses) const {
    if (work_size_ > 0) fn_(addresses, 0, work_size_);
  }

  // Also: work_size >= 0 and partitions >= 1.
  absl::Status Check(const BufferPlan& plan) const override;
  // "kernel add.1 (a0[0, 64), a1[0, 64)) work 1024 in 8 partitions"
  void Print(int indent, std::string* out) const override;

 private:
  std::vector<BufferSlice> buffers_;
  Callable fn_;
  int64_t work_size_;
  int64_t partitions_;
};

class HostCallThunk : public Thunk {
 public:
  // buffers[i] is the address of slice i; params gives the thread pool.
  using Function = std::function<absl::Status(absl::Span<void* const> buffers,
                                              const ExecuteParams& params)>;

  HostCallThunk(std::string name, std::vector<BufferSlice> buffers, Function fn)
      : Thunk(Kind::kHostCall, std::move(name)), buffers_(std::move(buffers)), fn_(std::move(fn)) {}

  const std::vector<BufferSlice>& buffers() const { return buffers_; }

  absl::Status Execute(const ExecuteParams& params) const override;
  absl::Status Check(const BufferPlan& plan) const override;
  // "host-call evaluate (a0[0, 64), a1[0, 16))"
  void Print(int indent, std::string* out) const override;

 private:
  std::vector<BufferSlice> buffers_;
  Function fn_;
};

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_KERNEL_THUNK_H_
