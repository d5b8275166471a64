// The optimizer's pipeline for Tessera's kernels: the few passes of LLVM's
// O3 module pipeline that our kernels need, in the order they need them.
//
// A kernel is one function (its body inlined into an entry that unpacks the
// buffer table) of loop nests with known trip counts, no calls but math
// routines, and no stores but to its results and a reduction's lane array.
// O3's module pipeline is written for C++: an inliner over the call graph,
// GVN, jump threading, the SLP vectorizer, the loop unroller, ... run on
// every kernel, and on ours it ends where this pipeline ends.  Measured
// (`tessera bench MODULE --backend=cpu --compile_iters=10`, warm compiles,
// alternating `--llvm_pipeline=default` and this one): softmax 4096x1024
// 10.2-11.2 -> 7.8-9.2 ms, layer norm 7.6 -> 5.9 ms, the elementwise chain
// 6.1 -> 4.7 ms, GEMM+bias+GELU 4.2 -> 3.6 ms, the MLP step 24.3-24.5 ->
// 19.2-20.5 ms, the transformer block 20.1-20.7 -> 15.7-16.7 ms, and every
// module of the JAX corpus 10-30% faster; run times equal within noise
// (per-kernel profiles of the MLP step and the NCHW conv chain, and a pad,
// a concatenate, a gather, a transpose and a column reduction).
//
// The stages, and why each is there:
//   1. always-inline: the kernel's body into its entry (the body's noalias
//      parameters become scoped alias metadata);
//   2. sroa, early-cse, simplifycfg, instcombine, correlated-propagation:
//      the emitter's index arithmetic and scalar temporaries folded, and
//      clamps of indices that are known in range (pad, concatenate) dropped;
//   3. loop-rotate, licm, simple-loop-unswitch (nontrivial): loops in the
//      form the vectorizer takes, invariants out of them, and a loop-invariant
//      branch (a row that is all padding) split into two loops;
//   4. indvars, loop-vectorize: the vector loops (the emitter's width and
//      interleave hints decide their shape);
//   5. sroa, licm (promotion), instcombine: a reduction's lane array, after
//      the vectorizer made each lane loop one vector operation, promoted to
//      vector registers across the row loop;
//   6. alignment-from-assumptions: the alignment the emitter asserts (an
//      llvm.assume per block of a streamed result) on the vector stores, as
//      the streaming-store pass needs it;
//   7. simplifycfg, globaldce: dead blocks and unused constants gone.
// The streaming-store pass (streaming_stores.h) runs after all of these,
// as after O3's.
#ifndef TESSERA_BACKENDS_LLVM_IR_KERNEL_PIPELINE_H_
#define TESSERA_BACKENDS_LLVM_IR_KERNEL_PIPELINE_H_

#include <string>

#include "absl/status/status.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"

namespace tessera {
namespace llvm_ir {

// The pipeline in `opt -passes=` syntax, to reproduce a kernel's
// optimization outside the JIT (`opt -passes='...' loop_kernel_0.ll`, on
// the IR that --dump_llvm_dir writes).  With `unroll_loops` (JitOptions'
// loop_unrolling), LLVM's loop unroller runs after the vectorizer, as in O3.
std::string KernelPipelineText(bool unroll_loops = false);

// Appends the pipeline to `passes`, parsed by `builder` (which brings the
// target's cost model for the vectorizer).
absl::Status AddKernelPipeline(llvm::PassBuilder& builder, bool unroll_loops,
                               llvm::ModulePassManager& passes);

}  // namespace llvm_ir
}  // namespace tessera

#endif  // TESSERA_BACKENDS_LLVM_IR_KERNEL_PIPELINE_H_
