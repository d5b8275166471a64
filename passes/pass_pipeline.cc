#include "passes/pass_pipeline.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hlo/analysis/hlo_verifier.h"
#include "hlo/ir/status_macros.h"
#include "hlo/parser/hlo_printer.h"

namespace tessera {
namespace {

// Characters of a module or pass name that are safe in a file name.
std::string FileNamePart(absl::string_view name) {
  std::string out(name);
  for (char& c : out) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                      (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    if (!safe) c = '_';
  }
  return out;
}

}  // namespace

std::string PipelineStats::ToString() const {
  std::string out = absl::StrFormat("%-40s %10s  %-7s  %s\n", "pass", "ms", "changed",
                                    "instructions");
  for (const PassRunRecord& run : runs) {
    std::string label = absl::StrCat(run.pipeline, "/", run.pass);
    if (run.iteration > 0) absl::StrAppend(&label, " #", run.iteration);
    absl::StrAppendFormat(&out, "%-40s %10.3f  %-7s  %d -> %d\n", label, run.wall_ms,
                          run.changed ? "yes" : "no", run.instructions_before,
                          run.instructions_after);
  }
  if (!runs.empty()) {
    double total_ms = 0;
    for (const PassRunRecord& run : runs) total_ms += run.wall_ms;
    absl::StrAppendFormat(&out, "%-40s %10.3f  %-7s  %d -> %d\n", "total", total_ms, "",
                          runs.front().instructions_before, runs.back().instructions_after);
  }
  for (const std::string& group : groups_at_iteration_cap) {
    absl::StrAppend(&out, "note: fixed-point group ", group,
                    " stopped at its iteration cap while still changing\n");
  }
  return out;
}

PassPipeline::PassPipeline(std::string name, PassPipelineOptions options)
    : PassPipeline(std::move(name),
                   std::make_shared<Shared>(
                       Shared{std::move(options), std::make_shared<PipelineStats>(), 0}),
                   0) {
  max_iterations_.reset();
}

PassPipeline::PassPipeline(std::string name, std::shared_ptr<Shared> shared,
                           int64_t max_iterations)
    : name_(std::move(name)),
      shared_(std::move(shared)),
      options_(shared_->options),
      stats_(shared_->stats),
      max_iterations_(max_iterations) {}

PassPipeline& PassPipeline::AddFixedPoint(std::string name, int64_t max_iterations) {
  auto group = std::unique_ptr<PassPipeline>(
      new PassPipeline(std::move(name), shared_, std::max<int64_t>(1, max_iterations)));
  PassPipeline* raw = group.get();
  steps_.push_back(Step{std::move(group), raw});
  return *raw;
}

std::string PassPipeline::Describe() const {
  std::string out;
  for (const Step& step : steps_) {
    if (!out.empty()) out += ",";
    if (step.group != nullptr) {
      absl::StrAppend(&out, step.group->name(), "{", step.group->Describe(), "}");
    } else {
      absl::StrAppend(&out, step.pass->name());
    }
  }
  return out;
}

absl::StatusOr<bool> PassPipeline::Run(HloModule* module) {
  if (!max_iterations_.has_value()) {
    // The top-level pipeline: dump the module as it came in.
    TS_RETURN_IF_ERROR(Dump(*module, "before"));
    return RunOnce(module, 0);
  }
  bool changed = false;
  for (int64_t round = 1; round <= *max_iterations_; ++round) {
    TS_ASSIGN_OR_RETURN(bool round_changed, RunOnce(module, round));
    if (!round_changed) return changed;
    changed = true;
  }
  stats_->groups_at_iteration_cap.push_back(
      absl::StrCat(name_, " (", *max_iterations_, " rounds)"));
  return changed;
}

absl::StatusOr<bool> PassPipeline::RunOnce(HloModule* module, int64_t iteration) {
  bool changed = false;
  for (Step& step : steps_) {
    TS_ASSIGN_OR_RETURN(bool step_changed, RunStep(*step.pass, module, iteration));
    changed |= step_changed;
  }
  return changed;
}

absl::StatusOr<bool> PassPipeline::RunStep(HloPass& pass, HloModule* module,
                                           int64_t iteration) {
  const bool is_group = dynamic_cast<PassPipeline*>(&pass) != nullptr;
  if (is_group) return pass.Run(module);  // its passes record themselves

  PassRunRecord record;
  record.pipeline = name_;
  record.pass = std::string(pass.name());
  record.iteration = iteration;
  record.instructions_before = module->instruction_count();
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<bool> changed = pass.Run(module);
  record.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!changed.ok()) {
    return absl::Status(changed.status().code(),
                        absl::StrCat("pass ", pass.name(), ": ", changed.status().message()));
  }
  record.changed = *changed;
  record.instructions_after = module->instruction_count();
  stats_->runs.push_back(record);
  if (*changed) {
    if (options_.verify) {
      if (absl::Status status = VerifyHloModule(*module); !status.ok()) {
        return absl::InternalError(absl::StrCat("pass ", pass.name(), " (in ", name_,
                                                ") left an invalid module: ", status.message()));
      }
    }
    TS_RETURN_IF_ERROR(Dump(*module, pass.name()));
  }
  return *changed;
}

absl::Status PassPipeline::Dump(const HloModule& module, absl::string_view pass_name) {
  if (options_.dump_dir.empty()) return absl::OkStatus();
  if (!options_.dump_pass_re.empty() && pass_name != "before") {
    std::regex filter;
    try {
      filter = std::regex(options_.dump_pass_re);
    } catch (const std::regex_error& error) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad --dump_pass_re '", options_.dump_pass_re, "': ", error.what()));
    }
    if (!std::regex_search(std::string(pass_name), filter)) return absl::OkStatus();
  }
  std::error_code error;
  std::filesystem::create_directories(options_.dump_dir, error);
  if (error) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create dump directory ", options_.dump_dir, ": ", error.message()));
  }
  const std::string path = absl::StrFormat(
      "%s/%04d.%s.%s.%s.hlo", options_.dump_dir, shared_->dump_counter++,
      FileNamePart(module.name()), FileNamePart(name_), FileNamePart(pass_name));
  std::ofstream out(path, std::ios::binary);
  out << PrintHloModule(module);
  if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write dump ", path));
  return absl::OkStatus();
}

}  // namespace tessera
