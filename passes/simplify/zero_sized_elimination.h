// ZeroSizedElimination: an array with no elements has only one value, so an
// instruction producing one is replaced by a constant of its shape, and
// whatever computed it becomes dead.  Side-effecting instructions,
// parameters and constants stay.
#ifndef TESSERA_PASSES_SIMPLIFY_ZERO_SIZED_ELIMINATION_H_
#define TESSERA_PASSES_SIMPLIFY_ZERO_SIZED_ELIMINATION_H_

#include "passes/hlo_pass.h"

namespace tessera {

class ZeroSizedElimination : public HloPass {
 public:
  absl::string_view name() const override { return "zero-sized-elimination"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace tessera

#endif  // TESSERA_PASSES_SIMPLIFY_ZERO_SIZED_ELIMINATION_H_
