// Non-temporal ("streaming") stores for kernels whose results are too large
// to stay in the cache: such a store skips the read-for-ownership that an
// ordinary store to a missing line costs, so a kernel reading N bytes and
// writing N bytes moves 2N bytes through memory instead of 3N.
//
// The emitter marks a kernel function with RequestStreamingStores and
// aligns its result stores (peeling a head, and an llvm.assume of the
// alignment of the rest); after the optimizer has vectorized the loops,
// StreamingStoresPass makes every vector store of a marked function that
// is aligned to its own size, and does not go to a stack slot, non-temporal
// (an unaligned one would be split into scalar stores on x86), and ends the
// function with an sfence: non-temporal stores are weakly ordered, and the
// thread that waits for the kernel must see them.  x86 only; elsewhere the
// pass changes nothing.
#ifndef TESSERA_BACKENDS_LLVM_IR_STREAMING_STORES_H_
#define TESSERA_BACKENDS_LLVM_IR_STREAMING_STORES_H_

#include <cstdint>

#include "llvm/IR/Function.h"
#include "llvm/IR/PassManager.h"

namespace tessera {
namespace llvm_ir {

// Bytes of a result from which a kernel should stream its stores: the
// host's last-level cache (one core's view of it), or 32 MiB where its size
// is unknown.  A result that large is evicted before its consumer reads
// it anyway; a smaller one may stay in the cache for the next kernel, or
// for the next run (layer norm 4096x1024, 16 MiB in and out, ran 20%
// slower with streamed stores at half the cache).
int64_t StreamingStoreThresholdBytes();

// Marks `function` for StreamingStoresPass.
void RequestStreamingStores(llvm::Function* function);
bool StreamingStoresRequested(const llvm::Function& function);

class StreamingStoresPass : public llvm::PassInfoMixin<StreamingStoresPass> {
 public:
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);
};

}  // namespace llvm_ir
}  // namespace tessera

#endif  // TESSERA_BACKENDS_LLVM_IR_STREAMING_STORES_H_
