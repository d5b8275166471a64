// CallInliner: replaces every `call` by the body of the computation it
// calls, so later passes see one graph.  Callees left uncalled are removed
// by DCE.  Control edges inside the callee are kept; control edges on the
// call itself attach to the inlined root (successors) and to the inlined
// instructions without operands (predecessors), so every ordering survives.
#ifndef TESSERA_PASSES_SIMPLIFY_CALL_INLINER_H_
#define TESSERA_PASSES_SIMPLIFY_CALL_INLINER_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace tessera {

class CallInliner : public HloPass {
 public:
  absl::string_view name() const override { return "call-inliner"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

// Inlines one call instruction; returns the instruction that replaced it.
absl::StatusOr<HloInstruction*> InlineCall(HloInstruction* call);

}  // namespace tessera

#endif  // TESSERA_PASSES_SIMPLIFY_CALL_INLINER_H_
