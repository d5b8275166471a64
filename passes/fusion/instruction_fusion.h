// InstructionFusion (pass "fusion"): vertical, producer-into-consumer
// fusion.
//
// Consumers are visited from the root towards the parameters; each takes its
// operands one at a time while the cost model says yes (FusionCostModel::
// ShouldFuse), growing into a fusion:
//   - elementwise and injective producers fuse into their consumers (kLoop);
//   - a reduce takes its elementwise/injective producers (kInput) and, where
//     its consumers stay in the reduce's output space, fuses into them as
//     their prologue ("epilogue" of the reduce; still kInput);
//   - a dot or convolution fuses into its elementwise consumers of the same
//     shape (bias add, activation, scaling: kOutput); nothing fuses into its
//     operands;
//   - a producer with other users is duplicated only when cheap and when all
//     its users can absorb it; otherwise it stays (multi-output fusion may
//     still take it as an extra output).
// Lone instructions stay as they are.  The fusion kind follows the fused
// computation: kOutput with a dot/convolution, kInput with a reduce, else
// kLoop.
#ifndef TESSERA_PASSES_FUSION_INSTRUCTION_FUSION_H_
#define TESSERA_PASSES_FUSION_INSTRUCTION_FUSION_H_

#include <vector>

#include "passes/fusion/fusion_cost_model.h"
#include "passes/hlo_pass.h"

namespace tessera {

class InstructionFusion : public HloPass {
 public:
  // `explanations`, when set, receives one entry per distinct decision.
  explicit InstructionFusion(FusionCostParams params = {},
                             std::vector<FusionExplanation>* explanations = nullptr)
      : params_(params), explanations_(explanations) {}
  absl::string_view name() const override { return "fusion"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  FusionCostParams params_;
  std::vector<FusionExplanation>* explanations_;
};

}  // namespace tessera

#endif  // TESSERA_PASSES_FUSION_INSTRUCTION_FUSION_H_
