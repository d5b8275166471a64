#include "hlo/analysis/side_effects.h"

namespace tessera {

bool SideEffectAnalysis::HasSideEffect(const HloInstruction& instruction) {
  if (instruction.HasSideEffect()) return true;
  for (const HloComputation* callee : instruction.called_computations()) {
    if (HasSideEffect(*callee)) return true;
  }
  return false;
}

bool SideEffectAnalysis::HasSideEffect(const HloComputation& computation) {
  if (auto it = memo_.find(&computation); it != memo_.end()) return it->second;
  // Call graphs are acyclic in valid modules; the provisional entry only
  // bounds the recursion on invalid ones.
  memo_[&computation] = false;
  bool effect = false;
  for (const HloInstruction* instruction : computation.instructions()) {
    if (HasSideEffect(*instruction)) {
      effect = true;
      break;
    }
  }
  memo_[&computation] = effect;
  return effect;
}

}  // namespace tessera
