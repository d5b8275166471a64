// Copying computations between modules.
//
// HloInstruction::CloneWithNewOperands shares called computations; a
// computation that moves into another module (a builder embedding a
// reducer, a client module assembled from parts) needs its callees copied
// too, each once.
#ifndef TESSERA_HLO_IR_HLO_CLONE_H_
#define TESSERA_HLO_IR_HLO_CLONE_H_

#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_module.h"

namespace tessera {

// A parentless copy of `source` (instructions, names, control edges, root,
// execution thread) whose instructions call `callees[c]` wherever the
// original calls `c`; a callee missing from the map is shared.
std::unique_ptr<HloComputation> CloneComputation(
    const HloComputation& source,
    const absl::flat_hash_map<const HloComputation*, HloComputation*>& callees);

// Copies of every computation of `source` (callees before callers, the
// entry last), calling each other; `entry` receives the entry's copy.
std::vector<std::unique_ptr<HloComputation>> CloneModuleComputations(const HloModule& source,
                                                                     HloComputation** entry);

}  // namespace tessera

#endif  // TESSERA_HLO_IR_HLO_CLONE_H_
