#include "passes/pass_registry.h"

#include <functional>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/fusion/fusion_pipeline.h"
#include "passes/fusion/horizontal_fusion.h"
#include "passes/fusion/instruction_fusion.h"
#include "passes/fusion/multi_output_fusion.h"
#include "passes/layout/layout_assignment.h"
#include "passes/layout/layout_normalization.h"
#include "passes/memory/copy_insertion.h"
#include "passes/schedule/hlo_scheduler.h"
#include "passes/simplify/algebraic_simplifier.h"
#include "passes/simplify/call_inliner.h"
#include "passes/simplify/constant_folding.h"
#include "passes/simplify/hlo_cse.h"
#include "passes/simplify/hlo_dce.h"
#include "passes/simplify/operator_sinking.h"
#include "passes/simplify/simplify_pipeline.h"
#include "passes/simplify/tuple_simplifier.h"
#include "passes/simplify/zero_sized_elimination.h"

namespace tessera {
namespace {

using PassFactory =
    std::function<std::unique_ptr<HloPass>(std::vector<FusionExplanation>* explanations)>;

template <typename Pass>
std::pair<const std::string, PassFactory> Entry() {
  return {std::string(Pass().name()),
          [](std::vector<FusionExplanation>*) { return std::make_unique<Pass>(); }};
}

// Fusion passes take cost parameters and an explanation sink.
template <typename Pass>
std::pair<const std::string, PassFactory> FusionEntry() {
  return {std::string(Pass().name()), [](std::vector<FusionExplanation>* explanations) {
            return std::make_unique<Pass>(FusionCostParams{}, explanations);
          }};
}

const std::map<std::string, PassFactory>& Passes() {
  static const auto* passes = new std::map<std::string, PassFactory>{
      Entry<AlgebraicSimplifier>(),
      Entry<CallInliner>(),
      Entry<ConstantFolding>(),
      Entry<HloCse>(),
      Entry<HloDce>(),
      Entry<OperatorSinking>(),
      Entry<TupleSimplifier>(),
      Entry<ZeroSizedElimination>(),
      Entry<HloScheduler>(),
      Entry<CopyInsertion>(),
      Entry<LayoutAssignment>(),
      Entry<LayoutNormalization>(),
      FusionEntry<InstructionFusion>(),
      FusionEntry<MultiOutputFusion>(),
      FusionEntry<HorizontalFusion>(),
  };
  return *passes;
}

}  // namespace

std::vector<std::string> RegisteredPassNames() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : Passes()) names.push_back(name);
  return names;
}

absl::StatusOr<std::unique_ptr<HloPass>> MakePassByName(
    absl::string_view name, std::vector<FusionExplanation>* explanations) {
  auto it = Passes().find(std::string(name));
  if (it == Passes().end()) {
    return absl::NotFoundError(absl::StrCat("unknown pass '", name, "' (known: ",
                                            absl::StrJoin(RegisteredPassNames(), ", "), ")"));
  }
  return it->second(explanations);
}

std::vector<std::string> RegisteredPipelineNames() { return {"fusion", "simplify"}; }

absl::StatusOr<std::unique_ptr<PassPipeline>> MakePipelineByName(
    absl::string_view name, const PassPipelineOptions& options,
    std::vector<FusionExplanation>* explanations) {
  if (name == "simplify") return MakeSimplifyPipeline({}, options);
  if (name == "fusion") {
    FusionPipelineOptions fusion;
    fusion.explanations = explanations;
    return MakeFusionPipeline(fusion, options);
  }
  return absl::NotFoundError(absl::StrCat("unknown pipeline '", name, "' (known: ",
                                          absl::StrJoin(RegisteredPipelineNames(), ", "), ")"));
}

}  // namespace tessera
