// HloDce: dead code elimination.
//
// Removes instructions whose values nobody uses (not the root, no users, no
// side effect in themselves or in any computation they call), dead elements
// of while loop states (while_dead_elements.h), then computations that
// nothing reachable from the entry calls.  Parameters stay:
// they are the computation's signature.  An instruction that orders others
// through control edges stays too, since the edge is an explicit request of
// the producer of the module.
#ifndef TESSERA_PASSES_SIMPLIFY_HLO_DCE_H_
#define TESSERA_PASSES_SIMPLIFY_HLO_DCE_H_

#include "passes/hlo_pass.h"

namespace tessera {

class HloDce : public HloPass {
 public:
  // With `remove_dead_computations` false only instructions are removed
  // (for pipelines that still expect to find a computation by name).
  explicit HloDce(bool remove_dead_computations = true)
      : remove_dead_computations_(remove_dead_computations) {}

  absl::string_view name() const override { return "dce"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  bool remove_dead_computations_;
};

}  // namespace tessera

#endif  // TESSERA_PASSES_SIMPLIFY_HLO_DCE_H_
