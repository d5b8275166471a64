// LayoutNormalization: makes the layouts of values that share storage agree.
//
// Before XLA's layout assignment a module may carry layouts that disagree
// where no computation happens: JAX writes a while whose init element is
// f32[32,16,64]{2,0,1} (a transposed view) while the body's parameter says
// {2,1,0}; a get-tuple-element may declare another layout than the element
// it forwards.  The evaluator reads every value by its logical index, so
// such a module is well defined; a backend that lets the loop state, the
// init and the body parameter share one buffer would read the bytes in the
// wrong order.
//
// This pass keeps the layout of every instruction that computes a value
// and of every computation's parameters, and makes the rest follow:
//
// - forwarding instructions take their operands' layouts (tuple,
//   get-tuple-element, optimization-barrier, add-dependency, domain);
// - a while's init, a conditional's branch operands and a call's operands
//   are converted (copy) to the layouts of the callee's parameters; a
//   while's body root is converted to the body parameter's layout and the
//   condition parameter takes it; the while's result takes it too;
// - every branch root of a conditional is converted to the conditional's
//   declared layout; a call's result takes its callee root's layout;
// - a dynamic-update-slice or scatter whose in-place operand has another
//   layout than its result gets that operand converted, so that it may be
//   updated in place.
//
// Conversions are `copy` instructions with the target layout (tuples are
// taken apart, converted element by element and rebuilt).  The entry's
// parameters and root keep their layouts: backends convert at that border.
// Fusion computations are left alone (the fusion passes build them
// consistent).  A module whose layouts already agree is left unchanged.
#ifndef TESSERA_PASSES_LAYOUT_LAYOUT_NORMALIZATION_H_
#define TESSERA_PASSES_LAYOUT_LAYOUT_NORMALIZATION_H_

#include <cstdint>

#include "passes/hlo_pass.h"

namespace tessera {

class LayoutNormalization : public HloPass {
 public:
  absl::string_view name() const override { return "layout-normalization"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

  // From the last Run.
  int64_t conversions_added() const { return conversions_added_; }

 private:
  int64_t conversions_added_ = 0;
};

}  // namespace tessera

#endif  // TESSERA_PASSES_LAYOUT_LAYOUT_NORMALIZATION_H_
