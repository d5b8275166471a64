#include "passes/simplify/simplify_pipeline.h"

#include "passes/simplify/algebraic_simplifier.h"
#include "passes/simplify/call_inliner.h"
#include "passes/simplify/constant_folding.h"
#include "passes/simplify/hlo_cse.h"
#include "passes/simplify/hlo_dce.h"
#include "passes/simplify/operator_sinking.h"
#include "passes/simplify/tuple_simplifier.h"
#include "passes/simplify/zero_sized_elimination.h"

namespace tessera {

void AddSimplifyPasses(PassPipeline& pipeline, const SimplifyOptions& options) {
  pipeline.AddPass<CallInliner>();
  PassPipeline& loop = pipeline.AddFixedPoint("simplify-fixed-point", options.max_iterations);
  loop.AddPass<ZeroSizedElimination>();
  loop.AddPass<AlgebraicSimplifier>();
  loop.AddPass<OperatorSinking>();
  loop.AddPass<ConstantFolding>();
  loop.AddPass<TupleSimplifier>();
  loop.AddPass<HloCse>();
  loop.AddPass<HloDce>();
}

std::unique_ptr<PassPipeline> MakeSimplifyPipeline(const SimplifyOptions& options,
                                                   const PassPipelineOptions& pipeline_options) {
  auto pipeline = std::make_unique<PassPipeline>("simplify", pipeline_options);
  AddSimplifyPasses(*pipeline, options);
  return pipeline;
}

}  // namespace tessera
