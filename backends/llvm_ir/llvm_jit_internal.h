// The LLVM side of LlvmJit, for emitters only: make a module set up for the
// JIT's target, and hand a finished module over.  Includes LLVM headers;
// code that only runs compiled functions includes llvm_jit.h instead.
#ifndef TESSERA_BACKENDS_LLVM_IR_LLVM_JIT_INTERNAL_H_
#define TESSERA_BACKENDS_LLVM_IR_LLVM_JIT_INTERNAL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "backends/llvm_ir/llvm_jit.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace tessera {
namespace llvm_ir {

// A module and the context that owns its types and constants.
struct ModuleWithContext {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
};

// The code generator options (LLVM command-line option name, value) the
// first LlvmJit::Create sets process-wide: passes our kernels do not need.
std::vector<std::pair<std::string, bool>> CodeGeneratorSettings();

// An empty module with the JIT's target triple and data layout.
ModuleWithContext CreateModule(const LlvmJit& jit, absl::string_view name);

// Verifies, optimizes and adds `module`; its functions can then be looked
// up.  A module that fails verification is an internal error carrying
// LLVM's message (an emitter bug, never a user error).
absl::Status AddModule(LlvmJit& jit, ModuleWithContext module);

// AddModule for several modules at once: verified here, linked into one
// module per thread when there are more modules than `threads` (0: one per
// hardware thread; the external names of all of them must differ), then
// optimized and compiled to object code on those threads, each with its
// own target machine, and added.  Same object cache (keyed by the linked
// modules) and errors as AddModule.
absl::Status AddModules(LlvmJit& jit, std::vector<ModuleWithContext> modules, int threads = 0);

// Runtime routines a library of ours compiles on demand and the JIT's
// modules call (math_library.h: vector math): when a module's code refers
// to a symbol whose name starts with a registered prefix, the JIT asks the
// prefix's resolver for its address, passing the requesting JIT's options
// (with its actual CPU and features) so that the routine is compiled for
// the same target.  Checked before the process's own symbols.  A prefix is
// registered once; registering it again keeps the first resolver.
using RuntimeSymbolResolver =
    std::function<absl::StatusOr<uint64_t>(absl::string_view name, const JitOptions& target)>;
void RegisterRuntimeSymbols(absl::string_view prefix, RuntimeSymbolResolver resolver);

}  // namespace llvm_ir
}  // namespace tessera

#endif  // TESSERA_BACKENDS_LLVM_IR_LLVM_JIT_INTERNAL_H_
