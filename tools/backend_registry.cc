#include "tools/backend_registry.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/interpreter/interpreter_backend.h"
#include "hlo/ir/status_macros.h"

namespace tessera {

std::vector<std::string> BackendNames() { return {"cpu", "interpreter"}; }

const std::vector<FlagSpec>& BackendOptionFlags() {
  static const auto* flags = new std::vector<FlagSpec>{
      {"cache_dir", true, false,
       "cpu: keep each kernel's LLVM object code in DIR, so that a "
       "repeated compile of the same module skips LLVM"},
      {"dump_llvm_dir", true, false,
       "cpu: write the LLVM IR of each compiled module (a "
       "kernel, or one thread's share of them) before (NAME.ll) "
       "and after (NAME.opt.ll) optimization to DIR"},
      {"llvm_pipeline", true, false,
       "cpu: the LLVM optimizer's pipeline: kernel (Tessera's, the "
       "default) or default (LLVM's O3 module pipeline, for comparison)"},
      {"kernels", true, false,
       "cpu: tiered (the default: loop and row-reduction fusions the baseline "
       "tier takes run as tile programs until their LLVM kernels, asked for by "
       "the second run, exist (see --tier_up); a tile program that is all "
       "generated code over rows of 128 or more is final, with no LLVM kernel), "
       "tile (tile programs only: the same results), tile_ops (tile programs "
       "without generated code) or llvm (every kernel compiled by LLVM before "
       "the first run; also with --dump_llvm_dir)"},
      {"tier_up", true, false,
       "cpu, --kernels=tiered: where the tiered kernels' LLVM code is generated: "
       "background (the default: on a thread of its own while runs go on with "
       "the tile programs), sync (in the second run, before its kernels run) or "
       "eager (before the compile returns: the final code at once)"},
  };
  return *flags;
}

BackendOptions BackendOptionsFromFlags(const CommandLine& cl) {
  BackendOptions options;
  options.cache_dir = cl.Get("cache_dir");
  options.dump_llvm_dir = cl.Get("dump_llvm_dir");
  options.llvm_pipeline = cl.Get("llvm_pipeline");
  options.kernels = cl.Get("kernels");
  options.tier_up = cl.Get("tier_up");
  return options;
}

absl::StatusOr<std::unique_ptr<HloExecutable>> CompileForBackend(
    absl::string_view backend, std::unique_ptr<HloModule> module,
    const BackendOptions& options) {
  if (backend == "interpreter") {
    return InterpreterBackend().Compile(std::shared_ptr<const HloModule>(std::move(module)));
  }
  if (backend == "cpu") {
    // The runtime::Executable path: steady-state runs (tessera bench) copy
    // no literals and allocate nothing.
    cpu::CpuCompileOptions cpu_options;
    cpu_options.jit.cache_dir = options.cache_dir;
    cpu_options.jit.dump_dir = options.dump_llvm_dir;
    cpu_options.use_cache = options.use_cache;
    if (options.llvm_pipeline == "default") {
      cpu_options.jit.kernel_pipeline = false;
    } else if (!options.llvm_pipeline.empty() && options.llvm_pipeline != "kernel") {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown --llvm_pipeline '", options.llvm_pipeline, "' (kernel or default)"));
    }
    if (options.kernels == "tile" || options.kernels == "tile_ops") {
      cpu_options.kernel_tier = cpu::CpuCompileOptions::KernelTier::kTile;
      cpu_options.compile_tile_loops = options.kernels == "tile";
    } else if (options.kernels == "tiered" || options.kernels.empty()) {
      cpu_options.kernel_tier = cpu::CpuCompileOptions::KernelTier::kTiered;
    } else if (options.kernels == "llvm") {
      cpu_options.kernel_tier = cpu::CpuCompileOptions::KernelTier::kLlvm;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown --kernels '", options.kernels,
                                                     "' (llvm, tile, tile_ops or tiered)"));
    }
    if (options.tier_up == "sync") {
      cpu_options.tier_up = cpu::CpuCompileOptions::TierUp::kSynchronous;
    } else if (options.tier_up == "eager") {
      cpu_options.tier_up = cpu::CpuCompileOptions::TierUp::kEager;
    } else if (!options.tier_up.empty() && options.tier_up != "background") {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown --tier_up '", options.tier_up, "' (background, sync or eager)"));
    }
    if (!options.dump_llvm_dir.empty()) {
      // The JIT ignores a dump it cannot write; the user asked for it.
      std::error_code error;
      std::filesystem::create_directories(options.dump_llvm_dir, error);
      if (error || !std::filesystem::is_directory(options.dump_llvm_dir)) {
        return absl::InvalidArgumentError(
            absl::StrCat("cannot create --dump_llvm_dir ", options.dump_llvm_dir, ": ",
                         error ? error.message() : "not a directory"));
      }
      // A program found in the in-memory cache would skip LLVM: no dump.
      cpu_options.use_cache = false;
      // Nor would tile programs: every kernel through LLVM, now.
      cpu_options.kernel_tier = cpu::CpuCompileOptions::KernelTier::kLlvm;
    }
    return cpu::CompileForCpuExecutable(std::move(module), cpu_options);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown backend '", backend, "' (available: ",
                                                 absl::StrJoin(BackendNames(), ", "), ")"));
}

}  // namespace tessera
