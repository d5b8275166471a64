// Thunk: one step of a compiled program, run over buffers.  A program is a
// ThunkSequence (kernel launches, host calls, copies, loops, branches);
// the runtime runs it in order and never looks at HLO: every decision
// (which kernel, which slices, how many partitions) was made by the
// compiler and shows in the printed sequence.
//
//   ThunkSequence thunks;
//   thunks.Emplace<KernelThunk>("add.1", slices, &AddKernel);
//   thunks.Emplace<CopyThunk>("copy.2", from, to);
//   TS_RETURN_IF_ERROR(thunks.Execute({&buffers, &ThreadPool::Default()}));
//
// Thunks are immutable once built, so one sequence may run concurrently on
// different BufferAllocations.
#ifndef TESSERA_RUNTIME_THUNK_H_
#define TESSERA_RUNTIME_THUNK_H_

#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "runtime/buffer.h"
#include "runtime/buffer_allocations.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace runtime {

class Thunk;

// Wall time per thunk, summed over runs: what `tessera bench --profile`
// prints.  Thunks nested in sequences, loops and branches count under their
// own names (and in their parent's time).  Not thread-safe: one run at a
// time records into one profile.
class ThunkProfile {
 public:
  struct Entry {
    std::string name;
    std::string kind;
    int64_t calls = 0;
    double total_ms = 0;
  };
  void Record(const Thunk& thunk, double ms);
  // Entries in first-run order.
  const std::vector<Entry>& entries() const { return entries_; }
  // A table, slowest first, with each thunk's share of `run_ms` per run
  // over `runs` runs.
  std::string ToString(int64_t runs, double run_ms) const;

 private:
  std::vector<Entry> entries_;
  absl::flat_hash_map<const Thunk*, size_t> index_;
};

// What a thunk runs with.  Both pointers are set during a run.
struct ExecuteParams {
  const BufferAllocations* buffers = nullptr;
  ThreadPool* thread_pool = nullptr;
  // When set, ThunkSequence times each thunk into it.
  ThunkProfile* profile = nullptr;
  // When set and true, the run stops before its next thunk (a loop before
  // its next iteration) with CANCELLED: a caller's deadline or
  // cancellation, set from another thread.
  const std::atomic<bool>* cancelled = nullptr;
};

class Thunk {
 public:
  enum class Kind { kKernel, kHostCall, kCopy, kSequential, kWhile, kConditional };

  Thunk(Kind kind, std::string name) : kind_(kind), name_(std::move(name)) {}
  virtual ~Thunk() = default;
  Thunk(const Thunk&) = delete;
  Thunk& operator=(const Thunk&) = delete;

  Kind kind() const { return kind_; }
  // "kernel", "host-call", "copy", "sequential", "while", "conditional".
  static const char* KindName(Kind kind);
  // The compiler's name for the step (usually the HLO instruction's).
  const std::string& name() const { return name_; }

  virtual absl::Status Execute(const ExecuteParams& params) const = 0;

  // An error naming the thunk unless every slice it (and any thunk it
  // holds) uses lies in `plan`, and its own constraints hold (matching copy
  // sizes, a predicate of at least one byte, ...).  Executable::Create
  // checks every thunk, so Execute need not.
  virtual absl::Status Check(const BufferPlan& plan) const = 0;

  // Appends the thunk as text, `indent` spaces in, one line per thunk:
  // "kernel add.1 (a0[0, 64), a1[0, 64), a2[0, 64))".
  virtual void Print(int indent, std::string* out) const = 0;
  std::string ToString() const;

 protected:
  // Checks `slices` against `plan`, naming this thunk in the error.
  absl::Status CheckSlices(const BufferPlan& plan, absl::Span<const BufferSlice> slices) const;

 private:
  Kind kind_;
  std::string name_;
};

// Thunks run one after the other.  Move-only.
class ThunkSequence {
 public:
  ThunkSequence() = default;
  ThunkSequence(ThunkSequence&&) = default;
  ThunkSequence& operator=(ThunkSequence&&) = default;

  void Add(std::unique_ptr<Thunk> thunk) { thunks_.push_back(std::move(thunk)); }
  template <typename T, typename... Args>
  T* Emplace(Args&&... args) {
    auto thunk = std::make_unique<T>(std::forward<Args>(args)...);
    T* raw = thunk.get();
    thunks_.push_back(std::move(thunk));
    return raw;
  }

  int64_t size() const { return static_cast<int64_t>(thunks_.size()); }
  bool empty() const { return thunks_.empty(); }
  const Thunk& operator[](int64_t i) const { return *thunks_[i]; }
  auto begin() const { return thunks_.begin(); }
  auto end() const { return thunks_.end(); }

  // Runs each thunk in order; stops at the first error.
  absl::Status Execute(const ExecuteParams& params) const;
  absl::Status Check(const BufferPlan& plan) const;
  void Print(int indent, std::string* out) const;
  std::string ToString() const;

 private:
  std::vector<std::unique_ptr<Thunk>> thunks_;
};

// A nested sequence as one thunk (a called computation, a group to print
// under one name).
class SequentialThunk : public Thunk {
 public:
  SequentialThunk(std::string name, ThunkSequence thunks)
      : Thunk(Kind::kSequential, std::move(name)), thunks_(std::move(thunks)) {}

  const ThunkSequence& thunks() const { return thunks_; }

  absl::Status Execute(const ExecuteParams& params) const override;
  absl::Status Check(const BufferPlan& plan) const override;
  void Print(int indent, std::string* out) const override;

 private:
  ThunkSequence thunks_;
};

// "a0[0, 64), a1[0, 64)", for printing.
std::string SlicesToString(absl::Span<const BufferSlice> slices);

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_THUNK_H_
