// Elementwise kernels: emit `void kernel(void** buffers)` for a computation
// with the elemental emitter and the loop emitter, JIT it, and run it on
// raw buffers or literals.  See elementwise_kernel.h.
#include "backends/llvm_ir/elementwise_kernel.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "backends/llvm_ir/elemental_ir_emitter.h"
#include "backends/llvm_ir/llvm_jit_internal.h"
#include "backends/llvm_ir/kernel_support.h"
#include "backends/llvm_ir/loop_emitter.h"
#include "hlo/ir/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"

namespace tessera {
namespace llvm_ir {

namespace {


// Copies the elements of a dense array between row-major order and the
// order of `shape`'s layout.
absl::Status Relayout(const Shape& shape, const uint8_t* from, uint8_t* to, bool to_layout) {
  TS_ASSIGN_OR_RETURN(std::vector<int64_t> strides, LayoutStrides(shape));
  const int64_t count = shape.ElementCount();
  const int64_t bytes = ByteWidth(shape.element_type());
  std::vector<int64_t> index(shape.rank(), 0);
  for (int64_t row_major = 0; row_major < count; ++row_major) {
    int64_t physical = 0;
    for (int64_t d = 0; d < shape.rank(); ++d) physical += index[d] * strides[d];
    const int64_t from_offset = (to_layout ? row_major : physical) * bytes;
    const int64_t to_offset = (to_layout ? physical : row_major) * bytes;
    std::memcpy(to + to_offset, from + from_offset, bytes);
    for (int64_t d = shape.rank() - 1; d >= 0; --d) {
      if (++index[d] < shape.dimensions(d)) break;
      index[d] = 0;
    }
  }
  return absl::OkStatus();
}



}  // namespace

absl::StatusOr<std::unique_ptr<ElementwiseKernelCompiler>> ElementwiseKernelCompiler::Create(
    const JitOptions& options) {
  TS_ASSIGN_OR_RETURN(std::unique_ptr<LlvmJit> jit, LlvmJit::Create(options));
  return std::unique_ptr<ElementwiseKernelCompiler>(
      new ElementwiseKernelCompiler(std::shared_ptr<LlvmJit>(std::move(jit))));
}

absl::StatusOr<std::unique_ptr<ElementwiseKernel>> ElementwiseKernelCompiler::Compile(
    const HloComputation& computation) {
  const HloInstruction* root = computation.root_instruction();
  if (root == nullptr) return absl::InvalidArgumentError("computation has no root");
  const std::string name = absl::StrCat("kernel_", next_kernel_++);

  ModuleWithContext module = CreateModule(*jit_, name);
  llvm::LLVMContext& context = *module.context;
  llvm::IRBuilder<> b(context);
  llvm::Type* pointer = llvm::PointerType::get(context, 0);
  llvm::Function* function = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), {pointer}, /*isVarArg=*/false),
      llvm::GlobalValue::ExternalLinkage, ToStringRef(name), module.module.get());
  function->setDoesNotThrow();
  llvm::Argument* buffers = function->getArg(0);
  buffers->setName("buffers");
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", function));

  auto buffer = [&](int64_t i, absl::string_view buffer_name) {
    llvm::Value* slot = b.CreateConstInBoundsGEP1_64(pointer, buffers, i);
    return b.CreateLoad(pointer, slot, ToStringRef(buffer_name));
  };

  ElementalIrEmitter emitter(module.module.get(), &b);
  GeneratorMap generators;
  auto kernel = std::unique_ptr<ElementwiseKernel>(new ElementwiseKernel());
  for (const HloInstruction* parameter : computation.parameter_instructions()) {
    TS_RETURN_IF_ERROR(CheckKernelArrayShape(*parameter));
    kernel->parameter_shapes_.push_back(parameter->shape());
  }
  for (const HloInstruction* hlo : computation.MakeInstructionPostOrder()) {
    TS_RETURN_IF_ERROR(CheckKernelArrayShape(*hlo));
    switch (hlo->opcode()) {
      case HloOpcode::kParameter: {
        IrArray array(buffer(hlo->parameter_number(), hlo->name()), hlo->shape());
        generators[hlo] = [array, &b](const IrIndex& index) { return array.EmitRead(index, &b); };
        break;
      }
      case HloOpcode::kConstant: {
        IrArray array = EmitConstantArray(*hlo, module.module.get());
        generators[hlo] = [array, &b](const IrIndex& index) { return array.EmitRead(index, &b); };
        break;
      }
      default: {
        TS_ASSIGN_OR_RETURN(generators[hlo], emitter.MakeElementGenerator(hlo, generators));
        break;
      }
    }
  }
  IrArray result(buffer(computation.num_parameters(), "result"), root->shape());
  TS_RETURN_IF_ERROR(LoopEmitter(generators.at(root), result, &b).EmitLoop(root->name()));
  b.CreateRetVoid();

  TS_RETURN_IF_ERROR(AddModule(*jit_, std::move(module)));
  TS_ASSIGN_OR_RETURN(kernel->function_, jit_->LookupFunction<ElementwiseKernel::Function>(name));
  kernel->jit_ = jit_;
  kernel->result_shape_ = root->shape();
  if (!kernel->result_shape_.has_layout()) {
    kernel->result_shape_.set_layout(Layout::Descending(root->shape().rank()));
  }
  kernel->function_name_ = name;
  kernel->optimized_ir_ = jit_->last_optimized_ir();
  return kernel;
}

absl::StatusOr<Literal> ElementwiseKernel::Run(absl::Span<const Literal> arguments) const {
  if (arguments.size() != parameter_shapes_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("kernel takes ", parameter_shapes_.size(),
                                                   " arguments, not ", arguments.size()));
  }
  std::vector<std::vector<uint8_t>> storage;
  std::vector<void*> buffers;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const Shape& shape = parameter_shapes_[i];
    const Literal& argument = arguments[i];
    if (!argument.shape().IsArray() ||
        argument.shape().element_type() != shape.element_type() ||
        argument.shape().dimensions() != shape.dimensions()) {
      return absl::InvalidArgumentError(absl::StrCat("argument ", i, " has shape ",
                                                     argument.shape().ToString(), ", expected ",
                                                     shape.ToString()));
    }
    storage.emplace_back(argument.size_bytes() + 1);  // never empty: a valid pointer
    TS_RETURN_IF_ERROR(Relayout(shape, static_cast<const uint8_t*>(argument.untyped_data()),
                                storage.back().data(), /*to_layout=*/true));
  }
  storage.emplace_back(result_shape_.ByteSize() + 1);
  for (std::vector<uint8_t>& bytes : storage) buffers.push_back(bytes.data());
  Run(buffers.data());
  TS_ASSIGN_OR_RETURN(Literal result, Literal::CreateFromShape(result_shape_));
  TS_RETURN_IF_ERROR(Relayout(result_shape_, storage.back().data(),
                              static_cast<uint8_t*>(result.untyped_data()), /*to_layout=*/false));
  return result;
}

absl::StatusOr<std::unique_ptr<ElementwiseKernel>> CompileElementwiseComputation(
    const HloComputation& computation, const JitOptions& options) {
  TS_ASSIGN_OR_RETURN(std::unique_ptr<ElementwiseKernelCompiler> compiler,
                      ElementwiseKernelCompiler::Create(options));
  return compiler->Compile(computation);
}

}  // namespace llvm_ir
}  // namespace tessera
