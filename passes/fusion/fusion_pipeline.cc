#include "passes/fusion/fusion_pipeline.h"

#include "passes/fusion/horizontal_fusion.h"
#include "passes/fusion/instruction_fusion.h"
#include "passes/fusion/multi_output_fusion.h"
#include "passes/layout/layout_assignment.h"
#include "passes/layout/layout_normalization.h"
#include "passes/memory/copy_insertion.h"
#include "passes/schedule/hlo_scheduler.h"
#include "passes/simplify/hlo_dce.h"
#include "passes/simplify/simplify_pipeline.h"

namespace tessera {

std::unique_ptr<PassPipeline> MakeFusionPipeline(const FusionPipelineOptions& options,
                                                 const PassPipelineOptions& pipeline_options) {
  auto pipeline = std::make_unique<PassPipeline>("fusion", pipeline_options);
  // Storage-sharing values agree on layouts before anything reads them as
  // one buffer; again after the graph has been rewritten.
  pipeline->AddPass<LayoutNormalization>();
  AddSimplifyPasses(*pipeline);
  // Physical layouts for the kernels (convolutions' NHWC/HWIO), before
  // fusion builds kernels around them.
  pipeline->AddPass<LayoutAssignment>();
  if (options.add_layout_passes) options.add_layout_passes(*pipeline);
  pipeline->AddPass<InstructionFusion>(options.cost, options.explanations);
  pipeline->AddPass<MultiOutputFusion>(options.cost, options.explanations);
  pipeline->AddPass<HorizontalFusion>(options.cost, options.explanations);
  pipeline->AddPass<HloDce>();
  // Copies that let loop state, branch results and outputs share storage
  // under any schedule; it drops a schedule, so the scheduler comes after.
  pipeline->AddPass<LayoutNormalization>();
  pipeline->AddPass<CopyInsertion>();
  pipeline->AddPass<HloScheduler>();
  return pipeline;
}

}  // namespace tessera
