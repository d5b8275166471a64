// The optimizer's pipeline for kernels; see kernel_pipeline.h.
#include "backends/llvm_ir/kernel_pipeline.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "llvm/Support/Error.h"

namespace tessera {
namespace llvm_ir {

std::string KernelPipelineText(bool unroll_loops) {
  // InstCombine's fixpoint check is a debugging aid that costs a second run
  // where it did not converge in one; O3 turns it off too.
  return absl::StrCat(
      "always-inline,"
      "function("
      "sroa<modify-cfg>,early-cse,simplifycfg,instcombine<no-verify-fixpoint>,"
      "correlated-propagation,"
      "loop-mssa(loop-rotate,licm<allowspeculation>,simple-loop-unswitch<nontrivial;trivial>),"
      "simplifycfg,instcombine<no-verify-fixpoint>,"
      "loop(indvars),loop-vectorize,",
      unroll_loops ? "loop-unroll<O3>," : "",
      "simplifycfg,sroa,early-cse,loop-mssa(licm<allowspeculation>),"
      "instcombine<no-verify-fixpoint>,alignment-from-assumptions,simplifycfg),"
      "globaldce");
}

absl::Status AddKernelPipeline(llvm::PassBuilder& builder, bool unroll_loops,
                               llvm::ModulePassManager& passes) {
  if (llvm::Error error = builder.parsePassPipeline(passes, KernelPipelineText(unroll_loops))) {
    return absl::InternalError(
        absl::StrCat("the kernel pass pipeline: ", llvm::toString(std::move(error))));
  }
  return absl::OkStatus();
}

}  // namespace llvm_ir
}  // namespace tessera
