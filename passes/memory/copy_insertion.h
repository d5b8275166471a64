// CopyInsertion: makes a module safe for buffer assignment, whatever order
// a scheduler then picks, by adding copies (and control edges) where values
// that must share storage could otherwise overwrite each other.  Run it
// after the passes that reshape the graph (simplify, fusion) and before the
// scheduler; it drops a schedule the module already has.
//
// What must share storage (HloAliasAnalysis): a while's loop state with the
// init that flows in and the body root that updates it, and a conditional's
// result with each branch's root.  Rules, conservative but keeping the
// common in-place cases copy-free:
//
// - The call graph is flattened: a computation run by several while /
//   conditional / call instructions (or also used as a reducer) is cloned so
//   that each call site has its own.
// - A while's init leaf is copied unless it is made in the same computation
//   by an op (not a parameter or constant), appears once in the init, is not
//   in the computation's result, no other while takes it (the loop that
//   made it aside: its reads end before it does, so a scan's stacks go to
//   its backward scan as they are), and no reader of it must run after the
//   loop; its other readers get control edges to the while so that they run
//   before the loop overwrites it.  A leaf repeated in the init whose maker
//   is cheaper to run again than to copy (a broadcast of a scalar, an iota,
//   a loop fusion of such: CheapToRemake) is made again instead.
// - A body's root leaf updates the loop state in place (no copy) when it is
//   made in the body by an op that no reader of the old state depends on;
//   those readers get control edges to it.  Otherwise the leaf is copied (a
//   state element moved to another position is copied twice, so that swaps
//   work), and the readers of the old state get control edges to the copy.
// - A branch's root leaf is copied unless the branch itself makes it.
// - An entry root leaf is copied when it is a parameter (unless the caller
//   donates that parameter to that output), a constant, or repeated.
#ifndef TESSERA_PASSES_MEMORY_COPY_INSERTION_H_
#define TESSERA_PASSES_MEMORY_COPY_INSERTION_H_

#include <cstdint>

#include "passes/hlo_pass.h"

namespace tessera {

class CopyInsertion : public HloPass {
 public:
  absl::string_view name() const override { return "copy-insertion"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

  // From the last Run.
  int64_t copies_added() const { return copies_added_; }
  int64_t control_edges_added() const { return control_edges_added_; }
  int64_t computations_cloned() const { return computations_cloned_; }

 private:
  int64_t copies_added_ = 0;
  int64_t control_edges_added_ = 0;
  int64_t computations_cloned_ = 0;
};

}  // namespace tessera

#endif  // TESSERA_PASSES_MEMORY_COPY_INSERTION_H_
