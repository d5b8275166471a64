// HorizontalFusion (pass "horizontal-fusion"): independent small kernels of
// one computation (no path between any two of them), such as the
// per-parameter updates of an optimizer step, merge into one multi-output
// kLoop fusion: one launch instead of many.  Candidates are kLoop fusions and
// lone elementwise or data-movement ops writing at most
// `horizontal_max_output_elements` elements; a group holds at most
// `horizontal_max_count` of them and `horizontal_max_fused_instructions`
// fused instructions.  Reachability is rebuilt after each group, so groups
// never close a cycle between them.
#ifndef TESSERA_PASSES_FUSION_HORIZONTAL_FUSION_H_
#define TESSERA_PASSES_FUSION_HORIZONTAL_FUSION_H_

#include <vector>

#include "passes/fusion/fusion_cost_model.h"
#include "passes/hlo_pass.h"

namespace tessera {

class HorizontalFusion : public HloPass {
 public:
  explicit HorizontalFusion(FusionCostParams params = {},
                            std::vector<FusionExplanation>* explanations = nullptr)
      : params_(params), explanations_(explanations) {}
  absl::string_view name() const override { return "horizontal-fusion"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  FusionCostParams params_;
  std::vector<FusionExplanation>* explanations_;
};

}  // namespace tessera

#endif  // TESSERA_PASSES_FUSION_HORIZONTAL_FUSION_H_
