// Facts about the target that IR builders read from the module they write
// into.  CreateModule (llvm_jit_internal.h) records them as module flags,
// so that a builder with no JIT at hand (polynomial_math.cc) can use an
// instruction the target has; a module without the flags (a GPU module,
// or one made by hand) gets the generic IR.
#ifndef TESSERA_BACKENDS_LLVM_IR_TARGET_FLAGS_H_
#define TESSERA_BACKENDS_LLVM_IR_TARGET_FLAGS_H_

#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"

namespace tessera {
namespace llvm_ir {

// The target has AVX-512 (AVX512F with 512-bit registers).
inline constexpr char kAvx512ModuleFlag[] = "tessera.avx512";

inline void MarkModuleAvx512(llvm::Module* module) {
  module->addModuleFlag(llvm::Module::Error, kAvx512ModuleFlag, 1);
}

inline bool ModuleHasAvx512(const llvm::Module& module) {
  auto* flag =
      llvm::mdconst::extract_or_null<llvm::ConstantInt>(module.getModuleFlag(kAvx512ModuleFlag));
  return flag != nullptr && flag->isOne();
}

}  // namespace llvm_ir
}  // namespace tessera

#endif  // TESSERA_BACKENDS_LLVM_IR_TARGET_FLAGS_H_
