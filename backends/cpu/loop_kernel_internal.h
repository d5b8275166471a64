// What the CPU kernel emitters (loop_kernel.cc, scatter_kernel.cc) share.
// Includes LLVM headers: for those files only.
#ifndef TESSERA_BACKENDS_CPU_LOOP_KERNEL_INTERNAL_H_
#define TESSERA_BACKENDS_CPU_LOOP_KERNEL_INTERNAL_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/llvm_ir/elemental_ir_emitter.h"
#include "hlo/ir/hlo_computation.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace tessera {
namespace cpu {

// Emits the scalar computation `computation` on `parameters` (one value
// per parameter, in order) at b's position: its root's value, or the
// values of a tuple root's operands.
absl::StatusOr<std::vector<llvm::Value*>> EmitScalarComputation(
    const HloComputation& computation, const std::vector<llvm::Value*>& parameters,
    llvm_ir::ElementalIrEmitter* emitter, llvm::IRBuilder<>* b);

// Emits the two-parameter scalar computation `reducer` (a reduce's
// reducer, a scatter's update computation) on `accumulator` (parameter 0)
// and `x` (parameter 1) at b's position.
absl::StatusOr<llvm::Value*> EmitReducer(const HloComputation& reducer, llvm::Value* accumulator,
                                         llvm::Value* x, llvm_ir::ElementalIrEmitter* emitter,
                                         llvm::IRBuilder<>* b);

// The elemental emitter kernels use: polynomial transcendentals or the C
// library's.
std::unique_ptr<llvm_ir::ElementalIrEmitter> MakeEmitter(bool polynomial_math,
                                                         llvm::Module* module,
                                                         llvm::IRBuilder<>* b);

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_LOOP_KERNEL_INTERNAL_H_
