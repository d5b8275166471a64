// MultiOutputFusion (pass "multi-output-fusion"): fusions with a tuple of
// results, in two shapes:
//   - siblings: two users of one large operand (the mean and the mean of
//     squares of a layer norm, both reducing x) become one fusion that reads
//     the operand once; reductions must agree in input shape and dimensions,
//     a loop must iterate over the reduction's input space;
//   - producer-consumer: a producer that vertical fusion left alone because
//     it has other users (an expensive exp read by a reduction and by a
//     divide) fuses into one consumer and becomes an extra output, which the
//     other users read through get-tuple-element.
// Never creates a cycle: a candidate pair connected by a path through other
// instructions is refused.  Fusions are made in post-order sweeps, with
// reachability built once per sweep (producer-consumer sweeps until none
// fuses, then a sibling sweep, and again): rebuilding it and revisiting
// every candidate after each fusion was quadratic in a big module.
#ifndef TESSERA_PASSES_FUSION_MULTI_OUTPUT_FUSION_H_
#define TESSERA_PASSES_FUSION_MULTI_OUTPUT_FUSION_H_

#include <vector>

#include "passes/fusion/fusion_cost_model.h"
#include "passes/hlo_pass.h"

namespace tessera {

class MultiOutputFusion : public HloPass {
 public:
  explicit MultiOutputFusion(FusionCostParams params = {},
                             std::vector<FusionExplanation>* explanations = nullptr)
      : params_(params), explanations_(explanations) {}
  absl::string_view name() const override { return "multi-output-fusion"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  FusionCostParams params_;
  std::vector<FusionExplanation>* explanations_;
};

}  // namespace tessera

#endif  // TESSERA_PASSES_FUSION_MULTI_OUTPUT_FUSION_H_
