// Sequential orders for one computation.  Each returns every instruction of
// the computation once, operands and control predecessors first.
//
// - PostOrderSchedule: the computation's post order (operands first, in
//   operand order); the baseline.
// - DfsSchedule: XLA's DFS memory scheduler: a post order that visits the
//   operand subtrees with more extra users, then more bytes, first, so that
//   big subtrees finish (and free their temporaries) before small ones start.
// - ListSchedule: a greedy list scheduler driven by buffer sizes: of the
//   instructions whose operands are done, run next the one that frees the
//   most bytes net of what it allocates (ties: earliest in post order).
#ifndef TESSERA_PASSES_SCHEDULE_SCHEDULERS_H_
#define TESSERA_PASSES_SCHEDULE_SCHEDULERS_H_

#include <vector>

#include "hlo/ir/hlo_computation.h"
#include "passes/schedule/memory_model.h"

namespace tessera {

std::vector<HloInstruction*> PostOrderSchedule(const ComputationMemoryModel& model);
std::vector<HloInstruction*> DfsSchedule(const ComputationMemoryModel& model);
std::vector<HloInstruction*> ListSchedule(const ComputationMemoryModel& model);

}  // namespace tessera

#endif  // TESSERA_PASSES_SCHEDULE_SCHEDULERS_H_
