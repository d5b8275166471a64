// The arena checker: an independent test of a BufferAssignment.  It runs a
// scheduled module in schedule order over ONE flat byte arena laid out
// exactly as assigned (every allocation at its own offset, every value in
// its slice, array bytes in their layout's physical order), so that two
// values the assignment wrongly lets overlap corrupt each other:
//
// - every instruction reads its operands from their slices and writes its
//   results to theirs; ops are evaluated one at a time by the reference
//   evaluator (a fusion, like any op, as one unit), while loops,
//   conditionals and calls are interpreted so that their bodies run on the
//   arena too (a loop's state must sit in one slice across iterations);
// - every read is compared with what was last written for that value: a
//   value overwritten while still live is reported with the instruction
//   that overwrote it;
// - a result may overlap an operand's slice only exactly, and only where
//   the op can work in place (elementwise, dynamic-update-slice, scatter,
//   an elementwise fusion); nothing is written into read-only allocations
//   (constants, parameters the caller keeps);
// - the final result must equal plain EvaluateModule's, bit for bit.
//
// The checker decides on its own which instructions forward storage (tuple,
// get-tuple-element, bitcast, parameters of called computations, ...) and
// asks the assignment only for the slices of the values the others define.
#ifndef TESSERA_PASSES_MEMORY_ARENA_CHECKER_H_
#define TESSERA_PASSES_MEMORY_ARENA_CHECKER_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/ir/literal.h"
#include "passes/memory/buffer_assignment.h"

namespace tessera {

// Runs the entry computation on `arguments` over the arena; an error when a
// check fails (FailedPrecondition, naming the values) or the evaluator
// cannot run an op (Unimplemented).
absl::StatusOr<Literal> RunOnArena(const HloModule& module, const BufferAssignment& assignment,
                                   absl::Span<const Literal> arguments);

// RunOnArena, then compares its result with EvaluateModule's (bitwise; NaNs
// match NaNs).
absl::Status CheckAssignmentOnArena(const HloModule& module, const BufferAssignment& assignment,
                                    absl::Span<const Literal> arguments);

// The same on `trials` sets of seeded random arguments.
absl::Status CheckAssignmentOnArena(const HloModule& module, const BufferAssignment& assignment,
                                    int trials, uint64_t seed);

}  // namespace tessera

#endif  // TESSERA_PASSES_MEMORY_ARENA_CHECKER_H_
