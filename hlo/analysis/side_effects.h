// Whether an instruction has an effect beyond computing its value: its own
// (infeed, send, rng, custom-calls marked so, collectives with channels) or
// one of a computation it calls (a while loop whose body sends, a call of a
// computation with an rng, ...).  Passes use it to decide what they may
// remove, merge or move.
#ifndef TESSERA_HLO_ANALYSIS_SIDE_EFFECTS_H_
#define TESSERA_HLO_ANALYSIS_SIDE_EFFECTS_H_

#include "absl/container/flat_hash_map.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"

namespace tessera {

// Memoizes per computation, since computations are shared by many callers.
// Valid while the computations it has seen do not change.
class SideEffectAnalysis {
 public:
  bool HasSideEffect(const HloInstruction& instruction);
  bool HasSideEffect(const HloComputation& computation);

 private:
  absl::flat_hash_map<const HloComputation*, bool> memo_;
};

}  // namespace tessera

#endif  // TESSERA_HLO_ANALYSIS_SIDE_EFFECTS_H_
