// Non-temporal vector stores after vectorization; see streaming_stores.h.
#include "backends/llvm_ir/streaming_stores.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

namespace tessera {
namespace llvm_ir {
namespace {

constexpr char kStreamingStoresAttribute[] = "tessera-streaming-stores";

// The size of the largest cache level of CPU 0 as sysfs gives it (one
// core's share; glibc's sysconf(_SC_LEVEL3_CACHE_SIZE) reports the whole
// socket's on some machines), or -1.
int64_t LastLevelCacheBytes() {
  int best_level = 0;
  int64_t best_bytes = -1;
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream level_file(dir + "/level"), size_file(dir + "/size");
    int level = 0;
    std::string size;
    if (!(level_file >> level) || !(size_file >> size) || size.empty()) continue;
    int64_t bytes = std::atoll(size.c_str());
    if (size.back() == 'K') bytes <<= 10;
    if (size.back() == 'M') bytes <<= 20;
    if (level > best_level && bytes > 0) {
      best_level = level;
      best_bytes = bytes;
    }
  }
  return best_bytes;
}

}  // namespace

int64_t StreamingStoreThresholdBytes() {
  static const int64_t threshold = [] {
    const int64_t cache = LastLevelCacheBytes();
    return cache > 0 ? cache : int64_t{32} << 20;
  }();
  return threshold;
}

void RequestStreamingStores(llvm::Function* function) {
  function->addFnAttr(kStreamingStoresAttribute);
}

bool StreamingStoresRequested(const llvm::Function& function) {
  return function.hasFnAttribute(kStreamingStoresAttribute);
}

llvm::PreservedAnalyses StreamingStoresPass::run(llvm::Function& function,
                                                 llvm::FunctionAnalysisManager&) {
  if (!StreamingStoresRequested(function)) return llvm::PreservedAnalyses::all();
  llvm::Module& module = *function.getParent();
  if (!llvm::Triple(module.getTargetTriple()).isX86()) return llvm::PreservedAnalyses::all();
  const llvm::DataLayout& layout = module.getDataLayout();
  llvm::LLVMContext& context = function.getContext();
  llvm::MDNode* nontemporal = llvm::MDNode::get(
      context,
      llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(context), 1)));
  bool changed = false;
  std::vector<llvm::ReturnInst*> returns;
  for (llvm::BasicBlock& block : function) {
    for (llvm::Instruction& instruction : block) {
      if (auto* ret = llvm::dyn_cast<llvm::ReturnInst>(&instruction)) returns.push_back(ret);
      auto* store = llvm::dyn_cast<llvm::StoreInst>(&instruction);
      if (store == nullptr || !store->isSimple()) continue;
      llvm::Type* type = store->getValueOperand()->getType();
      if (!type->isVectorTy()) continue;
      const uint64_t bytes = layout.getTypeStoreSize(type).getFixedValue();
      // Each register's part must be aligned: a vector wider than the
      // widest register (64 bytes) is stored as 64-byte parts at multiples
      // of 64 from its start.
      if (bytes < 16 || store->getAlign().value() < std::min<uint64_t>(bytes, 64)) continue;
      // Scratch rows on the stack are re-read at once: keep them cached.
      if (llvm::isa<llvm::AllocaInst>(llvm::getUnderlyingObject(store->getPointerOperand()))) {
        continue;
      }
      store->setMetadata(llvm::LLVMContext::MD_nontemporal, nontemporal);
      changed = true;
    }
  }
  if (!changed) return llvm::PreservedAnalyses::all();
  llvm::Function* sfence =
      llvm::Intrinsic::getDeclaration(&module, llvm::Intrinsic::x86_sse_sfence);
  for (llvm::ReturnInst* ret : returns) llvm::IRBuilder<>(ret).CreateCall(sfence);
  llvm::PreservedAnalyses preserved;
  preserved.preserveSet<llvm::CFGAnalyses>();
  return preserved;
}

}  // namespace llvm_ir
}  // namespace tessera
