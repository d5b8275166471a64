// The backend-independent `fusion` pipeline: Simplify, then vertical,
// multi-output and horizontal fusion, DCE, copy insertion, and the
// memory-minimizing scheduler; the result is ready for buffer assignment.  Backends run it with their own cost parameters;
// `tessera opt --pipeline=fusion` runs it with the defaults.
#ifndef TESSERA_PASSES_FUSION_FUSION_PIPELINE_H_
#define TESSERA_PASSES_FUSION_FUSION_PIPELINE_H_

#include <functional>
#include <memory>
#include <vector>

#include "passes/fusion/fusion_cost_model.h"
#include "passes/pass_pipeline.h"

namespace tessera {

struct FusionPipelineOptions {
  FusionCostParams cost;
  // When set, every fusion decision is appended here (--explain_fusion).
  std::vector<FusionExplanation>* explanations = nullptr;
  // A backend's own passes between layout assignment and fusion (the CPU
  // backend's dot canonicalization), when set.
  std::function<void(PassPipeline&)> add_layout_passes;
};

std::unique_ptr<PassPipeline> MakeFusionPipeline(const FusionPipelineOptions& options,
                                                 const PassPipelineOptions& pipeline);

}  // namespace tessera

#endif  // TESSERA_PASSES_FUSION_FUSION_PIPELINE_H_
