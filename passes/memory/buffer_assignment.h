// Buffer assignment: gives every HLO value of a scheduled module a slice
// (allocation, offset, size) of a few allocations.
//
//   TS_ASSIGN_OR_RETURN(BufferAssignment assignment, AssignBuffers(*module));
//   BufferSlice slice = *assignment.GetSlice(instruction, {1});
//
// Allocations:
// - one per entry parameter array leaf (the caller's argument), read-only
//   unless the caller donates it;
// - one per entry output leaf (handed to the caller), unless the output
//   lives in a donated parameter's allocation;
// - one read-only allocation holding every constant;
// - one temp allocation for everything else, packed by the heap simulator
//   (best fit and first fit; the smaller heap is kept) over the values'
//   live ranges (BufferLiveness).
//
// Values share a slice when they must (a while's loop state with its init
// and its body's new state; a conditional's result with each branch's root:
// HloAliasAnalysis) and when they may: an instruction writes its result over
// an operand it reads for the last time where the op allows it (elementwise
// ops, dynamic-update-slice, scatter, elementwise fusions), and an output
// takes over the storage of a parameter the caller donates (the module's
// input_output_alias, then buffer_donor) when their lifetimes do not
// overlap.
//
// The module must be scheduled (HloScheduler), and the storage-sharing
// rules must hold whatever the order: a loop's init must not be read after
// the loop starts, parameters and constants must not be loop state or
// outputs, ...; CopyInsertion (run before scheduling) makes any module so.
// Otherwise AssignBuffers fails with FailedPrecondition naming the values.
#ifndef TESSERA_PASSES_MEMORY_BUFFER_ASSIGNMENT_H_
#define TESSERA_PASSES_MEMORY_BUFFER_ASSIGNMENT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/analysis/hlo_dataflow_analysis.h"
#include "hlo/ir/hlo_module.h"
#include "passes/memory/buffer_liveness.h"
#include "passes/memory/heap_simulator.h"

namespace tessera {

struct BufferAllocation {
  enum class Kind { kParameter, kOutput, kConstants, kTemp };
  int64_t index = 0;
  Kind kind = Kind::kTemp;
  int64_t size = 0;
  // kParameter: which argument leaf.
  int64_t parameter_number = -1;
  ShapeIndex parameter_index;
  // Entry outputs held here (kOutput; a donated kParameter).
  std::vector<ShapeIndex> output_indices;
  // kParameter: outputs may overwrite it.
  bool donated = false;

  bool read_only() const {
    return kind == Kind::kConstants || (kind == Kind::kParameter && !donated);
  }
  // "allocation 0: parameter 0 {}, 256 bytes, donated to output {0}"
  std::string ToString() const;
};

struct BufferSlice {
  int64_t allocation = -1;
  int64_t offset = 0;
  int64_t size = 0;
  bool operator==(const BufferSlice&) const = default;
  bool Overlaps(const BufferSlice& other) const {
    return allocation == other.allocation && size > 0 && other.size > 0 &&
           offset < other.offset + other.size && other.offset < offset + size;
  }
  std::string ToString() const;  // "a3[128, 384)"
};

struct BufferAssignmentOptions {
  // Every slice offset is a multiple of this (backends raise it, e.g. to 64
  // for wide vector loads).
  int64_t alignment = 16;
  enum class Heap { kBest, kBestFit, kFirstFit };
  Heap heap = Heap::kBest;
  // Results over operands that die (elementwise, dynamic-update-slice, ...).
  bool in_place = true;
  // Outputs into donated parameters.
  bool use_donation = true;
};

class BufferAssignment {
 public:
  BufferAssignment(BufferAssignment&&) = default;
  BufferAssignment& operator=(BufferAssignment&&) = default;

  const HloModule& module() const { return *module_; }
  const HloDataflowAnalysis& dataflow() const { return *dataflow_; }
  const BufferLiveness& liveness() const { return *liveness_; }

  const std::vector<BufferAllocation>& allocations() const { return allocations_; }
  // True for values in the sequential scope (the entry and the computations
  // it runs through while, conditional and call).
  bool HasSlice(const HloValue& value) const { return slices_[value.id()].allocation >= 0; }
  const BufferSlice& GetValueSlice(const HloValue& value) const { return slices_[value.id()]; }
  // The slice of the value held at a position (an array leaf).
  absl::StatusOr<BufferSlice> GetSlice(const HloInstruction* instruction,
                                       const ShapeIndex& index = {}) const;

  // Figures: the bytes of all allocations (what running the program needs
  // at once), of each kind, and of all values if each had its own buffer.
  int64_t total_bytes() const { return total_bytes_; }
  int64_t parameter_bytes() const { return parameter_bytes_; }
  int64_t output_bytes() const { return output_bytes_; }
  int64_t constant_bytes() const { return constant_bytes_; }
  int64_t temp_bytes() const { return temp_bytes_; }
  int64_t naive_bytes() const { return naive_bytes_; }
  // The heap algorithm whose placement of the temp allocation was kept.
  HeapAlgorithm heap_algorithm() const { return heap_algorithm_; }
  // Values that were given the slice of an operand they replace in place.
  int64_t in_place_count() const { return in_place_count_; }

  // Allocations, then every value with its slice, then the summary line
  // "summary: peak P bytes (...), sum of buffers S bytes, ratio R".
  std::string ToString() const;
  std::string SummaryString() const;

  // Tests: moves a value to another slice (to check that checkers notice).
  void OverrideValueSliceForTesting(const HloValue& value, const BufferSlice& slice) {
    slices_[value.id()] = slice;
  }

 private:
  friend class BufferAssigner;
  BufferAssignment() = default;

  const HloModule* module_ = nullptr;
  std::unique_ptr<HloDataflowAnalysis> dataflow_;
  std::unique_ptr<BufferLiveness> liveness_;
  std::vector<BufferAllocation> allocations_;
  std::vector<BufferSlice> slices_;  // by value id
  std::vector<std::string> notes_;
  int64_t alignment_ = 1;
  int64_t total_bytes_ = 0;
  int64_t parameter_bytes_ = 0;
  int64_t output_bytes_ = 0;
  int64_t constant_bytes_ = 0;
  int64_t temp_bytes_ = 0;
  int64_t naive_bytes_ = 0;
  int64_t in_place_count_ = 0;
  HeapAlgorithm heap_algorithm_ = HeapAlgorithm::kBestFit;
};

// `module` must be scheduled and must outlive the result.
absl::StatusOr<BufferAssignment> AssignBuffers(const HloModule& module,
                                               const BufferAssignmentOptions& options = {});

}  // namespace tessera

#endif  // TESSERA_PASSES_MEMORY_BUFFER_ASSIGNMENT_H_
