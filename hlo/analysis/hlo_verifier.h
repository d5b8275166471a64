// The HLO verifier: checks that a module is well formed before any pass or
// backend relies on it, the way XLA's HloVerifier does.
//
// Structure: computations and instructions have the right parents, names
// are unique (instructions within a computation, computations within the
// module), parameters are numbered 0..n-1 once each, every computation has
// a root, operands live in the same computation, there are no cycles
// (through operands or control edges) and no recursive calls, and the entry
// computation exists.
//
// Instructions: operand counts, attributes (dimension lists, permutations,
// slice bounds, windows, dimension numbers, comparison types, precision
// configs, tuple indices, ...), called computations' signatures, shapes
// valid (layouts a permutation of the rank), and the declared shape equal to
// the one `InferShape` computes (layouts ignored unless layout-sensitive;
// element types exact unless mixed precision is allowed).
//
// Module: entry_computation_layout against the entry's parameters and
// result, input_output_alias and buffer donors against the entry's shapes,
// async start/done pairing, and the schedule if there is one.
//
// Every problem is reported as an absl::Status (InvalidArgument for bad
// shapes and attributes, FailedPrecondition for a malformed graph) whose
// message names the computation and instruction; the verifier never crashes
// on a malformed module.
#ifndef TESSERA_HLO_ANALYSIS_HLO_VERIFIER_H_
#define TESSERA_HLO_ANALYSIS_HLO_VERIFIER_H_

#include "absl/status/status.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_module.h"

namespace tessera {

struct HloVerifierOptions {
  // Layouts must agree where XLA requires it (ops that pass buffers through
  // unchanged, the entry computation layout, aliased buffers).  Layouts are
  // always checked for validity when present.
  bool layout_sensitive = false;
  // Floating-point types of different precision may mix (f32 operands of a
  // bf16 add, an f32 reduce of bf16 values, ...), as XLA's
  // allow_mixed_precision.
  bool allow_mixed_precision = false;
  // Dimensions of unknown size (`?`) are accepted.
  bool allow_unbounded_dynamism = false;
};

absl::Status VerifyHloModule(const HloModule& module, const HloVerifierOptions& options = {});

// Checks one shape on its own: a known element type, no negative (or,
// unless allowed, unbounded) dimension, a layout that is a permutation of
// the dimensions; tuples element by element.
absl::Status ValidateShape(const Shape& shape, const HloVerifierOptions& options = {});

// The per-instruction checks alone (operand count, attributes, called
// computations, declared vs inferred shape); the graph around it is assumed
// well formed.
absl::Status VerifyHloInstruction(const HloInstruction& instruction,
                                  const HloVerifierOptions& options = {});

}  // namespace tessera

#endif  // TESSERA_HLO_ANALYSIS_HLO_VERIFIER_H_
