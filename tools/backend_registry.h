// The backends `tessera run` and `tessera bench` can compile for, by name.
#ifndef TESSERA_TOOLS_BACKEND_REGISTRY_H_
#define TESSERA_TOOLS_BACKEND_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "backends/common/hlo_executable.h"
#include "hlo/ir/hlo_module.h"
#include "tools/command_line.h"

namespace tessera {

std::vector<std::string> BackendNames();

struct BackendOptions {
  // cpu: LLVM object code cached in this directory across runs
  // (llvm_ir::JitOptions::cache_dir); empty: none.
  std::string cache_dir;
  // cpu: each kernel's LLVM IR before and after optimization is written
  // here (llvm_ir::JitOptions::dump_dir); empty: none.
  std::string dump_llvm_dir;
  // cpu: the LLVM optimizer's pipeline, "kernel" (Tessera's, the default;
  // also when empty) or "default" (LLVM's O3 module pipeline), for
  // comparing them (llvm_ir::JitOptions::kernel_pipeline).
  std::string llvm_pipeline;
  // cpu: "tiered" (also when empty), "tile", "tile_ops" (the tile tier
  // without compiled loops: CpuCompileOptions::compile_tile_loops) or
  // "llvm" (CpuCompileOptions::KernelTier).
  std::string kernels;
  // cpu: "background" (also when empty) or "sync"
  // (CpuCompileOptions::TierUp).
  std::string tier_up;
  // cpu: look the program up in (and add it to) the in-memory compilation
  // cache; off: always compile.
  bool use_cache = true;
};

// The flags of BackendOptions (--cache_dir, --dump_llvm_dir, --llvm_pipeline,
// --kernels, --tier_up), for the commands that compile, and the options they
// give.
const std::vector<FlagSpec>& BackendOptionFlags();
BackendOptions BackendOptionsFromFlags(const CommandLine& cl);

// Compiles `module` (verified) for `backend`; InvalidArgument naming the
// known backends for an unknown one.
absl::StatusOr<std::unique_ptr<HloExecutable>> CompileForBackend(
    absl::string_view backend, std::unique_ptr<HloModule> module,
    const BackendOptions& options = {});

}  // namespace tessera

#endif  // TESSERA_TOOLS_BACKEND_REGISTRY_H_
