// HloCse: common subexpression elimination within each computation.
//
// Two instructions merge when they compute the same value: same opcode,
// shape (layout included), attributes and called computations, and the same
// operands — in either order for commutative ops (add, multiply, maximum,
// minimum, and, or, xor, compare EQ/NE).  Equal constants merge first, so
// expressions over equal constants then merge too.  Instructions with side
// effects (in themselves or in what they call) or with control edges never
// merge: merging would drop an effect or an ordering someone asked for.
#ifndef TESSERA_PASSES_SIMPLIFY_HLO_CSE_H_
#define TESSERA_PASSES_SIMPLIFY_HLO_CSE_H_

#include "passes/hlo_pass.h"

namespace tessera {

class HloCse : public HloPass {
 public:
  absl::string_view name() const override { return "cse"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace tessera

#endif  // TESSERA_PASSES_SIMPLIFY_HLO_CSE_H_
