// Walking a computation: a post-order driver, and HloVisitor, a base class
// whose Handle* hooks are grouped by op family.  Every hook falls back to
// DefaultAction, so a visitor overrides only the families it cares about.
#ifndef TESSERA_HLO_IR_HLO_VISITOR_H_
#define TESSERA_HLO_IR_HLO_VISITOR_H_

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "hlo/ir/hlo_computation.h"

namespace tessera {

// Calls `fn` on every instruction of `computation`, operands first; stops
// at the first error and returns it.
absl::Status VisitPostOrder(const HloComputation& computation,
                            absl::FunctionRef<absl::Status(HloInstruction*)> fn);

class HloVisitor {
 public:
  virtual ~HloVisitor() = default;

  // Dispatches one instruction to its hook.
  absl::Status Visit(HloInstruction* instruction);
  // Visits every instruction of `computation` in post order.
  absl::Status Run(const HloComputation& computation);

 protected:
  virtual absl::Status DefaultAction(HloInstruction* instruction) = 0;

  // Elementwise ops (unary, binary, ternary, compare, convert, map, ...).
  virtual absl::Status HandleElementwise(HloInstruction* h) { return DefaultAction(h); }
  // Data movement (broadcast, reshape, transpose, slice, pad, gather, ...).
  virtual absl::Status HandleInjective(HloInstruction* h) { return DefaultAction(h); }
  virtual absl::Status HandleReduction(HloInstruction* h) { return DefaultAction(h); }
  // dot, convolution, fft, triangular-solve, cholesky.
  virtual absl::Status HandleComplex(HloInstruction* h) { return DefaultAction(h); }
  virtual absl::Status HandleParameter(HloInstruction* h) { return DefaultAction(h); }
  virtual absl::Status HandleConstant(HloInstruction* h) { return DefaultAction(h); }
  virtual absl::Status HandleTuple(HloInstruction* h) { return DefaultAction(h); }
  virtual absl::Status HandleGetTupleElement(HloInstruction* h) { return DefaultAction(h); }
  virtual absl::Status HandleFusion(HloInstruction* h) { return DefaultAction(h); }
  virtual absl::Status HandleCall(HloInstruction* h) { return DefaultAction(h); }
  virtual absl::Status HandleWhile(HloInstruction* h) { return DefaultAction(h); }
  virtual absl::Status HandleConditional(HloInstruction* h) { return DefaultAction(h); }
  // Everything else (collectives, custom-call, sort, scatter, rng, ...).
  virtual absl::Status HandleOther(HloInstruction* h) { return DefaultAction(h); }
};

}  // namespace tessera

#endif  // TESSERA_HLO_IR_HLO_VISITOR_H_
