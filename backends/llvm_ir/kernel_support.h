// Pieces every kernel emitter needs around the elemental emitter: a
// constant as a global array, the check that a kernel can address an
// instruction's result, and absl -> LLVM string views.  Includes LLVM: for
// LLVM-including emitter files only.
#ifndef TESSERA_BACKENDS_LLVM_IR_KERNEL_SUPPORT_H_
#define TESSERA_BACKENDS_LLVM_IR_KERNEL_SUPPORT_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "backends/llvm_ir/loop_emitter.h"
#include "hlo/ir/hlo_instruction.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Module.h"

namespace tessera {
namespace llvm_ir {

inline llvm::StringRef ToStringRef(absl::string_view text) {
  return llvm::StringRef(text.data(), text.size());
}

// A constant's elements as a private global of `module` (row-major, like
// the literal), and the array to index it with.
IrArray EmitConstantArray(const HloInstruction& constant, llvm::Module* module);

// OK when a kernel can address `hlo`'s result: an array whose layout gives
// dense strides; Unimplemented naming the instruction otherwise.
absl::Status CheckKernelArrayShape(const HloInstruction& hlo);

}  // namespace llvm_ir
}  // namespace tessera

#endif  // TESSERA_BACKENDS_LLVM_IR_KERNEL_SUPPORT_H_
