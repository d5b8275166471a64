// PassPipeline: passes run in order, with fixed-point groups.
//
//   PassPipeline pipeline("simplify");
//   pipeline.AddPass<HloDce>();
//   PassPipeline& loop = pipeline.AddFixedPoint("simplify-loop", /*max_iterations=*/25);
//   loop.AddPass<AlgebraicSimplifier>();
//   loop.AddPass<HloDce>();
//   TS_ASSIGN_OR_RETURN(bool changed, pipeline.Run(module));
//
// A pipeline is itself a pass.  A fixed-point group repeats its passes until
// one round changes nothing; hitting the iteration cap is not an error (the
// module is still valid) but is recorded in the stats and reported by
// `tessera opt --stats`.
//
// Every pass run is recorded (wall time, changed, instruction counts), and
// with `verify` set the verifier runs after each pass that changed the
// module, so a pass that breaks the module is named at once.  Dumps mirror
// XLA's --xla_dump_to: the module before the pipeline and after every pass
// that changed it, as `NNNN.<module>.<pipeline>.<pass>.hlo`.
#ifndef TESSERA_PASSES_PASS_PIPELINE_H_
#define TESSERA_PASSES_PASS_PIPELINE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/ir/hlo_module.h"
#include "passes/hlo_pass.h"

namespace tessera {

struct PassPipelineOptions {
  // Run the verifier after every pass that changed the module.  On by
  // default in debug builds and tests; `tessera opt --verify_each` turns it
  // on in optimized builds.
#ifdef NDEBUG
  bool verify = false;
#else
  bool verify = true;
#endif
  // When set, write the module as HLO text before the pipeline and after
  // each pass that changed it.
  std::string dump_dir;
  // Only dump after passes whose name matches (std::regex, ECMAScript,
  // partial match); empty dumps all.
  std::string dump_pass_re;
};

// One pass run, as `--stats` prints it.
struct PassRunRecord {
  std::string pipeline;  // the innermost pipeline or group running the pass
  std::string pass;
  int64_t iteration = 0;  // round within a fixed-point group, else 0
  double wall_ms = 0;
  bool changed = false;
  int64_t instructions_before = 0;
  int64_t instructions_after = 0;
};

struct PipelineStats {
  std::vector<PassRunRecord> runs;
  // Fixed-point groups that stopped at their cap while still changing.
  std::vector<std::string> groups_at_iteration_cap;
  // "pass  ms  changed  before -> after" lines, one per run.
  std::string ToString() const;
};

class PassPipeline : public HloPass {
 public:
  explicit PassPipeline(std::string name, PassPipelineOptions options = {});

  absl::string_view name() const override { return name_; }
  absl::StatusOr<bool> Run(HloModule* module) override;

  template <typename Pass, typename... Args>
  Pass& AddPass(Args&&... args) {
    auto pass = std::make_unique<Pass>(std::forward<Args>(args)...);
    Pass& ref = *pass;
    steps_.push_back(Step{std::move(pass), nullptr});
    return ref;
  }
  void AddPass(std::unique_ptr<HloPass> pass) {
    steps_.push_back(Step{std::move(pass), nullptr});
  }

  // A group that repeats until a round changes nothing, at most
  // `max_iterations` rounds.  The group shares this pipeline's options,
  // stats and dump numbering.
  PassPipeline& AddFixedPoint(std::string name, int64_t max_iterations = 25);

  // Names of the passes in order, groups expanded ("simplify-loop{a,b}").
  std::string Describe() const;

  const PipelineStats& stats() const { return *stats_; }
  const PassPipelineOptions& options() const { return options_; }

 private:
  struct Step {
    std::unique_ptr<HloPass> pass;
    PassPipeline* group = nullptr;  // set when `pass` is a fixed-point group
  };
  // State shared by a pipeline and its groups.
  struct Shared {
    PassPipelineOptions options;
    std::shared_ptr<PipelineStats> stats;
    int64_t dump_counter = 0;
  };

  PassPipeline(std::string name, std::shared_ptr<Shared> shared, int64_t max_iterations);
  absl::StatusOr<bool> RunOnce(HloModule* module, int64_t iteration);
  absl::StatusOr<bool> RunStep(HloPass& pass, HloModule* module, int64_t iteration);
  absl::Status Dump(const HloModule& module, absl::string_view pass_name);

  std::string name_;
  std::shared_ptr<Shared> shared_;
  PassPipelineOptions& options_;
  std::shared_ptr<PipelineStats> stats_;
  std::optional<int64_t> max_iterations_;  // set for fixed-point groups
  std::vector<Step> steps_;
};

}  // namespace tessera

#endif  // TESSERA_PASSES_PASS_PIPELINE_H_
