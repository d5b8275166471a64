// Passes by name, for `tessera opt --passes=a,b,c` and `--pipeline=NAME`.
#ifndef TESSERA_PASSES_PASS_REGISTRY_H_
#define TESSERA_PASSES_PASS_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "passes/fusion/fusion_cost_model.h"
#include "passes/hlo_pass.h"
#include "passes/pass_pipeline.h"

namespace tessera {

// The names `MakePassByName` knows, sorted.
std::vector<std::string> RegisteredPassNames();
// A fresh pass, or NotFound listing the known names.
absl::StatusOr<std::unique_ptr<HloPass>> MakePassByName(
    absl::string_view name, std::vector<FusionExplanation>* explanations = nullptr);

// The names `MakePipelineByName` knows ("simplify", ...).
std::vector<std::string> RegisteredPipelineNames();
// `explanations`, when set, collects the fusion passes' decisions.
absl::StatusOr<std::unique_ptr<PassPipeline>> MakePipelineByName(
    absl::string_view name, const PassPipelineOptions& options,
    std::vector<FusionExplanation>* explanations = nullptr);

}  // namespace tessera

#endif  // TESSERA_PASSES_PASS_REGISTRY_H_
