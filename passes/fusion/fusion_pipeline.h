// The backend-independent `fusion` pipeline: Simplify, then vertical,
// multi-output and horizontal fusion, DCE, copy insertion, and the
// memory-minimizing scheduler; the result is ready for buffer assignment.  Backends run it with their own cost parameters;
// `tessera opt --pipeline=fusion` runs it with the defaults.
#ifndef TESSERA_PASSES_FUSION_FUSION_PIPELINE_H_
#define TESSERA_PASSES_FUSION_FUSION_PIPELINE_H_

#include <memory>
#include <vector>

#include "passes/fusion/fusion_cost_model.h"
#include "passes/pass_pipeline.h"

namespace tessera {

struct FusionPipelineOptions {
  FusionCostParams cost;
  // When set, every fusion decision is appended here (--explain_fusion).
  std::vector<FusionExplanation>* explanations = nullptr;
};

std::unique_ptr<PassPipeline> MakeFusionPipeline(const FusionPipelineOptions& options,
                                                 const PassPipelineOptions& pipeline);

}  // namespace tessera

#endif  // TESSERA_PASSES_FUSION_FUSION_PIPELINE_H_
