#include "tools/backend_registry.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/interpreter/interpreter_backend.h"
#include "hlo/ir/status_macros.h"

namespace tessera {

std::vector<std::string> BackendNames() { return {"cpu", "interpreter"}; }

absl::StatusOr<std::unique_ptr<HloExecutable>> CompileForBackend(
    absl::string_view backend, std::unique_ptr<HloModule> module) {
  if (backend == "interpreter") {
    return InterpreterBackend().Compile(std::shared_ptr<const HloModule>(std::move(module)));
  }
  if (backend == "cpu") {
    TS_ASSIGN_OR_RETURN(std::unique_ptr<cpu::CpuExecutable> compiled,
                        cpu::CompileForCpu(std::move(module)));
    std::shared_ptr<const cpu::CpuExecutable> shared = std::move(compiled);
    const cpu::CpuExecutable* raw = shared.get();
    return CompileLiteralProgram(
        raw->module(),
        [raw](std::vector<Literal> arguments) { return raw->Run(arguments); }, shared);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown backend '", backend, "' (available: ",
                                                 absl::StrJoin(BackendNames(), ", "), ")"));
}

}  // namespace tessera
