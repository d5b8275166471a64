// Sort comparators as JIT functions (LoopKernelCompiler::CompileComparator;
// see loop_kernel.h).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/loop_kernel.h"
#include "backends/cpu/loop_kernel_internal.h"
#include "backends/llvm_ir/kernel_support.h"
#include "backends/llvm_ir/llvm_jit_internal.h"
#include "backends/llvm_ir/loop_emitter.h"
#include "hlo/ir/status_macros.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"

namespace tessera {
namespace cpu {

absl::StatusOr<std::shared_ptr<void*>> LoopKernelCompiler::CompileComparator(
    const HloComputation& comparator, const std::vector<PrimitiveType>& types) {
  const int64_t n = static_cast<int64_t>(types.size());
  if (comparator.num_parameters() != 2 * n) {
    return absl::InvalidArgumentError(absl::StrCat("comparator ", comparator.name(), " takes ",
                                                   comparator.num_parameters(),
                                                   " parameters, not two per operand"));
  }
  for (const HloInstruction* h : comparator.MakeInstructionPostOrder()) {
    if (!h->shape().IsArray() || h->shape().rank() != 0 ||
        (h->opcode() != HloOpcode::kParameter && h->opcode() != HloOpcode::kConstant &&
         !h->IsElementwise())) {
      return absl::UnimplementedError(
          absl::StrCat("comparator ", comparator.name(), " is not scalar elementwise"));
    }
  }
  const HloInstruction* root = comparator.root_instruction();
  if (root->shape().element_type() != PRED) {
    return absl::InvalidArgumentError(
        absl::StrCat("comparator ", comparator.name(), " does not return pred"));
  }
  const std::string name = absl::StrCat("comparator_", next_kernel_++);
  llvm_ir::ModuleWithContext module = llvm_ir::CreateModule(*jit_, name);
  llvm::LLVMContext& context = *module.context;
  llvm::IRBuilder<> b(context);
  llvm::Type* pointer = llvm::PointerType::get(context, 0);
  llvm::Function* function = llvm::Function::Create(
      llvm::FunctionType::get(b.getInt8Ty(), {pointer, pointer}, /*isVarArg=*/false),
      llvm::GlobalValue::ExternalLinkage, llvm_ir::ToStringRef(name), module.module.get());
  function->setDoesNotThrow();
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", function));
  // Parameter 2k is operand k's lhs element, 2k + 1 its rhs element.
  std::vector<llvm::Value*> parameters;
  for (int64_t p = 0; p < 2 * n; ++p) {
    llvm::Value* table = function->getArg(p % 2);
    llvm::Value* address = b.CreateLoad(pointer, b.CreateConstInBoundsGEP1_64(pointer, table, p / 2));
    const llvm_ir::IrArray element(address, Shape(types[p / 2], {}));
    TS_ASSIGN_OR_RETURN(llvm::Value * value, element.EmitRead(llvm_ir::IrIndex(b.getInt64Ty()), &b));
    parameters.push_back(value);
  }
  std::unique_ptr<llvm_ir::ElementalIrEmitter> emitter =
      MakeEmitter(KernelMath::kLibrary, module.module.get(), &b);
  TS_ASSIGN_OR_RETURN(std::vector<llvm::Value*> result,
                      EmitScalarComputation(comparator, parameters, emitter.get(), &b));
  b.CreateRet(b.CreateZExt(result[0], b.getInt8Ty()));
  auto address = std::make_shared<void*>(nullptr);
  AddPending(std::move(module), name, address);
  return address;
}

}  // namespace cpu
}  // namespace tessera
