// The buffer plan of an executable and the memory one run binds it to.
//
// A BufferPlan is the list of allocations a compiled program uses (what the
// compiler's buffer assignment decided), each of a kind:
// - kParameter: the caller's argument `argument`, used where it lies.  A
//   donated parameter allocation may be written by the program (an output
//   placed over the parameter); if the caller did not donate that argument
//   at run time, the run first copies it into a place of its own in the
//   arena, so the caller's buffer is never written without consent.
// - kOutput: the caller's buffer for result leaf `result`, written in place.
// - kConstant: read-only bytes owned by the plan, shared by every run.
// - kTemp: scratch, packed into one arena per run.
//
// The arena (every kTemp allocation and the fallback places of donated
// parameters, each at a multiple of kBufferAlignment) is allocated once per
// executable and reused by later runs; see Executable.
//
//   BufferPlan plan = *BufferPlan::Create({Allocation::Parameter(0, 64),
//                                          Allocation::Output(0, 64),
//                                          Allocation::Temp(256)});
//   BufferAllocations buffers = *BufferAllocations::Bind(plan, arena, args, results);
//   float* x = static_cast<float*>(buffers.Resolve({/*allocation=*/0, 0, 64}));
#ifndef TESSERA_RUNTIME_BUFFER_ALLOCATIONS_H_
#define TESSERA_RUNTIME_BUFFER_ALLOCATIONS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "runtime/buffer.h"

namespace tessera {
namespace runtime {

struct Allocation {
  enum class Kind { kParameter, kOutput, kConstant, kTemp };
  Kind kind = Kind::kTemp;
  int64_t size = 0;
  // kParameter: the argument (0-based, in the executable's argument order).
  int64_t argument = -1;
  // kParameter: the program may write it (an output lives there).
  bool donated = false;
  // kOutput: the result leaf whose caller buffer this allocation is.
  int64_t result = -1;
  // kConstant: exactly `size` bytes (moved into aligned memory by
  // BufferPlan::Create, so empty afterwards).
  std::vector<uint8_t> contents;

  static Allocation Parameter(int64_t argument, int64_t size, bool donated = false);
  static Allocation Output(int64_t result, int64_t size);
  static Allocation Constant(std::vector<uint8_t> contents);
  static Allocation Temp(int64_t size);

  // "parameter 0, 64 bytes, donated", "output 1, 16 bytes", "temp, 256 bytes".
  std::string ToString() const;
};

class BufferPlan {
 public:
  // Checks the allocations: sizes are not negative; the kParameter
  // allocations name the arguments 0..n-1 once each; kOutput allocations
  // name distinct results; constants have `size` bytes of contents.
  static absl::StatusOr<BufferPlan> Create(std::vector<Allocation> allocations);

  BufferPlan(BufferPlan&&) = default;
  BufferPlan& operator=(BufferPlan&&) = default;

  const std::vector<Allocation>& allocations() const { return allocations_; }
  const Allocation& allocation(int64_t index) const { return allocations_[index]; }
  int64_t allocation_count() const { return static_cast<int64_t>(allocations_.size()); }

  int64_t argument_count() const { return static_cast<int64_t>(argument_allocations_.size()); }
  // The kParameter allocation of `argument`.
  int64_t argument_allocation(int64_t argument) const { return argument_allocations_[argument]; }
  int64_t argument_size(int64_t argument) const {
    return allocations_[argument_allocations_[argument]].size;
  }

  // Bytes of the per-run arena, and where allocation `index` sits in it
  // (kTemp, and donated kParameter for an argument the caller keeps); -1
  // for the others.
  int64_t arena_size() const { return arena_size_; }
  int64_t arena_offset(int64_t index) const { return arena_offsets_[index]; }

  // A kConstant allocation's aligned bytes (read-only by contract).
  void* constant_data(int64_t index) const;

  // An error unless `slice` lies inside one of the allocations.
  absl::Status CheckSlice(const BufferSlice& slice) const;

  // One line per allocation, "a0: parameter 0, 64 bytes", then
  // "arena: N bytes".
  std::string ToString() const;

 private:
  BufferPlan() = default;

  std::vector<Allocation> allocations_;
  std::vector<int64_t> argument_allocations_;
  std::vector<int64_t> arena_offsets_;
  int64_t arena_size_ = 0;
  // Constant contents by allocation index (empty for other kinds); shared so
  // that a plan can be moved without moving the bytes.
  std::vector<std::shared_ptr<OwnedBuffer>> constants_;
};

// Where each allocation of a plan lives during one run.  Cheap to copy.
class BufferAllocations {
 public:
  // Allocation i at bases[i], sizes[i] bytes long (for tests and callers
  // that lay memory out themselves).
  BufferAllocations(std::vector<void*> bases, std::vector<int64_t> sizes);

  // Binds `plan` for a run: parameters to `arguments` (sizes checked),
  // outputs to `results[allocation.result]` (sizes checked), temps into
  // `arena` (plan.arena_size() bytes, aligned to kBufferAlignment),
  // constants to the plan's memory.  Copies each non-donated argument whose
  // allocation the program writes into its arena place.
  static absl::StatusOr<BufferAllocations> Bind(const BufferPlan& plan, void* arena,
                                                absl::Span<const ArgumentBuffer> arguments,
                                                absl::Span<const ResultBuffer> results);

  int64_t allocation_count() const { return static_cast<int64_t>(bases_.size()); }
  void* base(int64_t allocation) const { return bases_[allocation]; }
  int64_t size(int64_t allocation) const { return sizes_[allocation]; }

  // The address of a slice.  The slice must lie in its allocation (checked
  // when an executable is created; see ResolveChecked for unchecked input).
  void* Resolve(const BufferSlice& slice) const {
    return static_cast<char*>(bases_[slice.allocation]) + slice.offset;
  }
  absl::StatusOr<void*> ResolveChecked(const BufferSlice& slice) const;

 private:
  std::vector<void*> bases_;
  std::vector<int64_t> sizes_;
};

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_BUFFER_ALLOCATIONS_H_
