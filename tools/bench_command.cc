#include "tools/bench_command.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "backends/common/hlo_executable.h"
#include "hlo/analysis/cost_analysis.h"
#include "hlo/ir/status_macros.h"
#include "passes/fusion/fusion_pipeline.h"
#include "tools/backend_registry.h"
#include "tools/command_line.h"
#include "tools/module_io.h"
#include "tools/run_command.h"

namespace tessera {
namespace {

const std::vector<FlagSpec>& BenchFlags() {
  static const std::vector<FlagSpec>* flags = [] {
    auto* list = new std::vector<FlagSpec>{
        {"backend", true, false, "what to run on: interpreter (default) or cpu"},
        {"input", true, true,
         "an argument as a .npy file; repeat in parameter order "
         "(default: seeded random arguments)"},
        {"seed", true, false, "seed for random arguments (default 0)"},
        {"warmup", true, false, "untimed runs first (default 3)"},
        {"warmup_ms", true, false,
         "and more untimed runs until this many milliseconds have passed since the "
         "first (default 100; ignored with --warmup=0)"},
        {"iters", true, false, "timed runs (default 20)"},
        {"format", true, false, "text (default) or json"},
        {"compile_iters", true, false,
         "compile this many more times, bypassing the in-memory "
         "cache, and report the fastest (a warm process's compile "
         "time; default 0); with tiered kernels, also as many compiles "
         "to the final code after the runs (--tier_up=eager: its warm compile)"},
        {"profile", false, false,
         "after the timed runs, time each thunk over --iters more runs "
         "and print them, slowest first (text format)"},
    };
    list->insert(list->end(), BackendOptionFlags().begin(), BackendOptionFlags().end());
    return list;
  }();
  return *flags;
}

using Clock = std::chrono::steady_clock;

double MillisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

std::string BenchUsage() {
  return absl::StrCat(
      "usage: tessera bench MODULE [--backend=interpreter|cpu] [--input=FILE.npy ...]\n"
      "                    [--warmup=N --warmup_ms=T --iters=N] [--format=text|json]\n"
      "                    [--profile]\n"
      "                    [--cache_dir=DIR] [--dump_llvm_dir=DIR] [--compile_iters=N]\n"
      "                    [--llvm_pipeline=kernel|default]\n"
      "Compiles MODULE once and times it in steady state (buffers allocated once).\n",
      FlagsHelp(BenchFlags()));
}

absl::Status RunBenchCommand(const std::vector<std::string>& args, std::ostream& out) {
  TS_ASSIGN_OR_RETURN(CommandLine cl, CommandLine::Parse("bench", args, BenchFlags()));
  if (cl.positional().size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tessera bench: expected exactly one MODULE file, got ", cl.positional().size(), "\n",
        BenchUsage()));
  }
  const std::string format = cl.Get("format", "text");
  if (format != "text" && format != "json") {
    return absl::InvalidArgumentError(
        absl::StrCat("tessera bench: --format must be 'text' or 'json', got '", format, "'"));
  }
  TS_ASSIGN_OR_RETURN(int64_t warmup, cl.GetInt("warmup", 3));
  TS_ASSIGN_OR_RETURN(int64_t warmup_ms, cl.GetInt("warmup_ms", 100));
  TS_ASSIGN_OR_RETURN(int64_t iters, cl.GetInt("iters", 20));
  TS_ASSIGN_OR_RETURN(int64_t seed, cl.GetInt("seed", 0));
  if (warmup < 0 || warmup_ms < 0 || iters < 1) {
    return absl::InvalidArgumentError(
        "tessera bench: need --warmup >= 0, --warmup_ms >= 0 and --iters >= 1");
  }
  const std::string path = cl.positional()[0];
  TS_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, LoadModule(path));
  std::vector<Literal> arguments;
  if (!cl.GetAll("input").empty()) {
    TS_ASSIGN_OR_RETURN(arguments, LoadArguments(*module, cl.GetAll("input")));
  } else {
    TS_ASSIGN_OR_RETURN(arguments, RandomArguments(*module, static_cast<uint64_t>(seed)));
  }

  // What the kernels must move and compute: the module as fusion leaves it.
  TS_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> fused, LoadModule(path));
  PassPipelineOptions quiet;
  quiet.verify = false;
  TS_RETURN_IF_ERROR(MakeFusionPipeline({}, quiet)->Run(fused.get()).status());
  const HloCost cost = AnalyzeCost(*fused);

  const std::string backend = cl.Get("backend", "interpreter");
  const Clock::time_point compile_start = Clock::now();
  TS_ASSIGN_OR_RETURN(std::unique_ptr<HloExecutable> executable,
                      CompileForBackend(backend, std::move(module), BackendOptionsFromFlags(cl)));
  const double compile_ms = MillisecondsSince(compile_start);
  TS_ASSIGN_OR_RETURN(int64_t compile_iters, cl.GetInt("compile_iters", 0));
  if (compile_iters < 0) return absl::InvalidArgumentError("tessera bench: need --compile_iters >= 0");
  double warm_compile_ms = -1;
  for (int64_t i = 0; i < compile_iters; ++i) {
    TS_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> again, LoadModule(path));
    BackendOptions uncached = BackendOptionsFromFlags(cl);
    uncached.use_cache = false;
    const Clock::time_point start = Clock::now();
    TS_RETURN_IF_ERROR(CompileForBackend(backend, std::move(again), uncached).status());
    const double ms = MillisecondsSince(start);
    if (warm_compile_ms < 0 || ms < warm_compile_ms) warm_compile_ms = ms;
  }

  TS_ASSIGN_OR_RETURN(std::vector<runtime::OwnedBuffer> inputs,
                      executable->ArgumentsToBuffers(arguments));
  std::vector<runtime::ArgumentBuffer> in(inputs.begin(), inputs.end());
  TS_ASSIGN_OR_RETURN(std::vector<runtime::OwnedBuffer> outputs,
                      executable->executable().AllocateResults());
  std::vector<runtime::ResultBuffer> results(outputs.begin(), outputs.end());
  // The first runs' times: what a program run once or twice costs (with
  // --kernels=tiered both on tile programs, the second asking for the LLVM
  // kernels, generated in the background or, with --tier_up=sync, first).
  std::vector<double> first_runs;
  const Clock::time_point warmup_start = Clock::now();
  int64_t warmup_runs = 0;
  for (; warmup_runs < warmup; ++warmup_runs) {
    const Clock::time_point start = Clock::now();
    TS_RETURN_IF_ERROR(executable->executable().ExecuteInto(in, results));
    if (warmup_runs < 2) first_runs.push_back(MillisecondsSince(start));
    // A tier-up the second run asked for is waited for here, so that its
    // code generation time is its own, not shared with more warm-up runs.
    if (warmup_runs == 1) executable->executable().WaitForBackgroundWork();
  }
  // Steady state is also the threads': in the first tens of milliseconds
  // of a new process a parallel kernel may run at one core's speed, the
  // pool's worker not yet scheduled on a core of its own (GEMM 256 took
  // 0.122 ms instead of 0.064 in all of the first 10 runs of some
  // processes; after 300 warm-up runs, 0.064 in every process).  A peer
  // timed in a long-lived process (the suite's JAX and Eigen) is past that.
  if (warmup > 0) {
    while (MillisecondsSince(warmup_start) < static_cast<double>(warmup_ms)) {
      TS_RETURN_IF_ERROR(executable->executable().ExecuteInto(in, results));
      ++warmup_runs;
    }
  }
  std::vector<std::string> first_runs_text;
  for (double ms : first_runs) first_runs_text.push_back(absl::StrFormat("%.3f", ms));
  // Steady state is the final code's: a tier-up the warm-up asked for
  // finishes first.
  const double tier_up_ms = executable->executable().WaitForBackgroundWork();
  std::vector<double> times;
  for (int64_t i = 0; i < iters; ++i) {
    const Clock::time_point start = Clock::now();
    TS_RETURN_IF_ERROR(executable->executable().ExecuteInto(in, results));
    times.push_back(MillisecondsSince(start));
  }
  std::sort(times.begin(), times.end());
  const double min = times.front(), max = times.back(), median = times[times.size() / 2];
  // With tiered kernels, the compiles above stop at the tile programs.  The
  // compile to the final code (--tier_up=eager: the LLVM kernels of those
  // that tier up, the others' final tile code), in a process whose LLVM is
  // already started, as a peer's warm compile is timed: XLA's
  // lower().compile() makes its optimized code before it returns.
  double final_compile_ms = -1;
  if (backend == "cpu" && (cl.Get("kernels").empty() || cl.Get("kernels") == "tiered")) {
    for (int64_t i = 0; i < compile_iters; ++i) {
      TS_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> again, LoadModule(path));
      BackendOptions final_code = BackendOptionsFromFlags(cl);
      final_code.use_cache = false;
      final_code.tier_up = "eager";
      const Clock::time_point start = Clock::now();
      TS_RETURN_IF_ERROR(CompileForBackend(backend, std::move(again), final_code).status());
      const double ms = MillisecondsSince(start);
      if (final_compile_ms < 0 || ms < final_compile_ms) final_compile_ms = ms;
    }
  }
  const double gbs = cost.bytes_accessed / (min * 1e-3) / 1e9;
  const double gflops = cost.flops / (min * 1e-3) / 1e9;
  if (format == "json") {
    out << absl::StrFormat(
        "{\"module\": \"%s\", \"backend\": \"%s\", \"compile_ms\": %.3f, \"run_ms_min\": %.6f, "
        "\"run_ms_median\": %.6f, \"run_ms_max\": %.6f, \"bytes\": %.0f, \"flops\": %.0f, "
        "\"iters\": %d, \"warmup_runs\": %d, \"first_runs_ms\": [%s]%s}\n",
        path, backend, compile_ms, min, median, max, cost.bytes_accessed, cost.flops, iters,
        warmup_runs, absl::StrJoin(first_runs_text, ", "),
        absl::StrCat(warm_compile_ms < 0
                         ? ""
                         : absl::StrFormat(", \"compile_ms_warm_min\": %.3f", warm_compile_ms),
                     tier_up_ms <= 0 ? "" : absl::StrFormat(", \"tier_up_ms\": %.3f", tier_up_ms),
                     final_compile_ms < 0 ? ""
                                          : absl::StrFormat(", \"final_compile_ms_warm_min\": %.3f",
                                                            final_compile_ms)));
  } else {
    out << absl::StrFormat(
        "%s on %s\n  compile  %.3f ms%s\n  run      min %.4f ms, median %.4f ms, max %.4f ms "
        "(%d runs after %d warm-up, buffers reused)\n%s%s"
        "  traffic  %.0f bytes, %.2f GB/s at min\n"
        "  compute  %.0f flops, %.3f GFLOP/s at min\n",
        path, backend, compile_ms,
        warm_compile_ms < 0
            ? ""
            : absl::StrFormat(" (first in this process; fastest of %d more: %.3f ms)",
                              compile_iters, warm_compile_ms),
        min, median, max, iters, warmup_runs,
        first_runs.empty()
            ? ""
            : absl::StrCat("  first    ", absl::StrJoin(first_runs_text, " ms, "),
                           " ms (the first warm-up runs: with --kernels=tiered on tile "
                           "programs, the second asks for the LLVM kernels of those that "
                           "tier up)\n",
                           tier_up_ms <= 0
                               ? ""
                               : absl::StrFormat("  tier-up  %.3f ms generating the LLVM kernels "
                                                 "(waited for before the timed runs)\n",
                                                 tier_up_ms)),
        final_compile_ms < 0
            ? ""
            : absl::StrFormat("  final    %.3f ms to compile to the final code (fastest of %d "
                              "more compiles with --tier_up=eager, after the runs)\n",
                              final_compile_ms, compile_iters),
        cost.bytes_accessed, gbs, cost.flops, gflops);
  }
  if (cl.Has("profile")) {
    // Separate runs, so that timing each thunk does not perturb the figures
    // above.
    runtime::ThunkProfile profile;
    runtime::RunOptions options;
    options.profile = &profile;
    double total_ms = 0;
    for (int64_t i = 0; i < iters; ++i) {
      const Clock::time_point start = Clock::now();
      TS_RETURN_IF_ERROR(executable->executable().ExecuteInto(in, results, options));
      total_ms += MillisecondsSince(start);
    }
    out << absl::StrFormat("  profile  (%d runs, %.4f ms per run, thunks timed)\n", iters,
                           total_ms / iters)
        << profile.ToString(iters, total_ms / iters);
  }
  return absl::OkStatus();
}

}  // namespace tessera
