// The `Simplify` pipeline: the backend-independent graph simplification
// every backend runs first.  Calls are inlined once, then the simplifiers
// run to a fixed point:
//
//   call-inliner
//   simplify-fixed-point {
//     zero-sized-elimination, algsimp, operator-sinking, constant-folding,
//     tuple-simplifier, cse, dce
//   }
#ifndef TESSERA_PASSES_SIMPLIFY_SIMPLIFY_PIPELINE_H_
#define TESSERA_PASSES_SIMPLIFY_SIMPLIFY_PIPELINE_H_

#include <memory>

#include "passes/pass_pipeline.h"

namespace tessera {

struct SimplifyOptions {
  // Rounds of the fixed-point group before it stops (and says so in the
  // stats).
  int64_t max_iterations = 25;
};

std::unique_ptr<PassPipeline> MakeSimplifyPipeline(const SimplifyOptions& options = {},
                                                   const PassPipelineOptions& pipeline = {});

// Adds the same passes to a larger pipeline (which then records their
// stats and dumps with its own).
void AddSimplifyPasses(PassPipeline& pipeline, const SimplifyOptions& options = {});

}  // namespace tessera

#endif  // TESSERA_PASSES_SIMPLIFY_SIMPLIFY_PIPELINE_H_
