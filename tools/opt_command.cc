#include "tools/opt_command.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "backends/common/hlo_executable.h"
#include "backends/cpu/cpu_compiler.h"
#include "hlo/analysis/hlo_verifier.h"
#include "hlo/ir/status_macros.h"
#include "hlo/parser/hlo_printer.h"
#include "passes/memory/buffer_assignment.h"
#include "passes/pass_registry.h"
#include "tools/command_line.h"
#include "tools/module_io.h"

namespace tessera {
namespace {

const std::vector<FlagSpec>& OptFlags() {
  static const auto* flags = new std::vector<FlagSpec>{
      {"passes", true, false, "comma-separated passes to run in order"},
      {"pipeline", true, false, "a named pipeline (default: simplify); cpu: the passes the "
                                "CPU backend runs before code generation"},
      {"dump_dir", true, false, "write the module before the pipeline and after every pass "
                                "that changed it, as NNNN.<module>.<pipeline>.<pass>.hlo"},
      {"dump_pass_re", true, false, "only dump after passes whose name matches this regex"},
      {"stats", false, false, "print each pass's time, whether it changed the module, and "
                              "instruction counts (to standard error)"},
      {"verify_each", false, false, "run the verifier after every pass that changed the module"},
      {"show_buffers", false, false, "assign buffers to the optimized (scheduled) module and "
                                     "print the plan and its summary (to standard error)"},
      {"explain_fusion", false, false, "print why each fusion candidate fused or did not (to "
                                       "standard error)"},
      {"show_thunks", false, false, "with --pipeline=cpu: compile the result and print the "
                                    "runtime plan, one thunk per line (to standard error): "
                                    "which instructions run as kernels, GEMMs or fallbacks, and why each fallback has no native thunk"},
      {"o", true, false, "write the module to FILE instead of standard output"},
  };
  return *flags;
}

}  // namespace

std::string OptUsage() {
  return absl::StrCat(
      "usage: tessera opt MODULE [--passes=a,b,c | --pipeline=NAME] [--dump_dir=DIR]\n"
      "                  [--dump_pass_re=RE] [--stats] [--explain_fusion] [--show_buffers]\n"
      "                  [--verify_each] [--show_thunks]\n"
      "                  [-o FILE]\n"
      "Runs optimization passes over MODULE and prints the result as HLO text.\n"
      "pipelines: cpu, ", absl::StrJoin(RegisteredPipelineNames(), ", "), "\n",
      "passes: ", absl::StrJoin(RegisteredPassNames(), ", "), "\n",
      FlagsHelp(OptFlags()));
}

absl::Status RunOptCommand(const std::vector<std::string>& args, std::ostream& out,
                           std::ostream& err) {
  TS_ASSIGN_OR_RETURN(CommandLine cl, CommandLine::Parse("opt", args, OptFlags()));
  if (cl.positional().size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tessera opt: expected exactly one MODULE file, got ", cl.positional().size(), "\n",
        OptUsage()));
  }
  if (cl.Has("passes") && cl.Has("pipeline")) {
    return absl::InvalidArgumentError("tessera opt: give --passes or --pipeline, not both");
  }
  PassPipelineOptions options;
  options.dump_dir = cl.Get("dump_dir");
  options.dump_pass_re = cl.Get("dump_pass_re");
  if (cl.Has("verify_each")) options.verify = true;

  std::vector<FusionExplanation> explanations;
  std::vector<FusionExplanation>* explain = cl.Has("explain_fusion") ? &explanations : nullptr;
  std::unique_ptr<PassPipeline> pipeline;
  if (cl.Has("passes")) {
    pipeline = std::make_unique<PassPipeline>("opt", options);
    for (absl::string_view name : absl::StrSplit(cl.Get("passes"), ',', absl::SkipEmpty())) {
      absl::StatusOr<std::unique_ptr<HloPass>> pass = MakePassByName(name, explain);
      if (!pass.ok()) return absl::InvalidArgumentError(absl::StrCat("tessera opt: ", pass.status().message()));
      pipeline->AddPass(*std::move(pass));
    }
  } else if (cl.Get("pipeline") == "cpu") {
    pipeline = cpu::MakeCpuPipeline(cpu::CpuCompileOptions{}, options, explain);
  } else {
    absl::StatusOr<std::unique_ptr<PassPipeline>> named =
        MakePipelineByName(cl.Get("pipeline", "simplify"), options, explain);
    if (!named.ok()) return absl::InvalidArgumentError(absl::StrCat("tessera opt: ", named.status().message()));
    pipeline = *std::move(named);
  }

  TS_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, LoadModule(cl.positional()[0]));
  TS_RETURN_IF_ERROR(pipeline->Run(module.get()).status());
  // Whatever the options, the result a user gets is checked.
  if (absl::Status status = VerifyHloModule(*module); !status.ok()) {
    return absl::InternalError(
        absl::StrCat("tessera opt: the optimized module does not verify: ", status.message()));
  }
  if (cl.Has("show_thunks") && cl.Get("pipeline") != "cpu") {
    return absl::InvalidArgumentError("tessera opt: --show_thunks needs --pipeline=cpu");
  }
  if (cl.Has("stats")) err << pipeline->stats().ToString();
  if (explain != nullptr) err << ExplainFusion(explanations);
  if (cl.Has("show_buffers")) {
    if (!module->has_schedule()) {
      return absl::FailedPreconditionError(
          "tessera opt: --show_buffers needs a scheduled module; use --pipeline=fusion (or "
          "end --passes with copy-insertion,scheduler)");
    }
    absl::StatusOr<BufferAssignment> assignment = AssignBuffers(*module);
    if (!assignment.ok()) {
      return absl::Status(assignment.status().code(),
                          absl::StrCat("tessera opt: buffer assignment: ",
                                       assignment.status().message()));
    }
    err << assignment->ToString();
  }
  const std::string text = PrintHloModule(*module);
  if (cl.Has("show_thunks")) {
    // The module is already optimized: compile it as it is.
    cpu::CpuCompileOptions compile;
    compile.run_fusion_pipeline = false;
    std::vector<std::string> fallbacks;
    absl::StatusOr<std::unique_ptr<HloExecutable>> executable =
        cpu::CompileForCpuExecutable(std::move(module), compile, &fallbacks);
    if (!executable.ok()) {
      return absl::Status(executable.status().code(),
                          absl::StrCat("tessera opt: CPU compilation: ",
                                       executable.status().message()));
    }
    err << (*executable)->ToString();
    if (!fallbacks.empty()) {
      err << "evaluator fallbacks (" << fallbacks.size() << "):\n";
      for (const std::string& fallback : fallbacks) err << "  " << fallback << "\n";
    }
  }
  if (cl.Has("o")) return WriteStringToFile(cl.Get("o"), text);
  out << text;
  return absl::OkStatus();
}

}  // namespace tessera
