// Partitioned elementwise kernels; see loop_kernel.h.
#include "backends/cpu/loop_kernel.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "backends/llvm_ir/elemental_ir_emitter.h"
#include "backends/llvm_ir/llvm_jit_internal.h"
#include "backends/llvm_ir/loop_emitter.h"
#include "backends/llvm_ir/polynomial_math.h"
#include "hlo/ir/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"

namespace tessera {
namespace cpu {
namespace {

using llvm_ir::IrArray;
using llvm_ir::IrIndex;

llvm::StringRef Ref(absl::string_view text) { return llvm::StringRef(text.data(), text.size()); }

// A constant's elements as a private global (row-major, like the literal).
IrArray EmitConstantArray(const HloInstruction& constant, llvm::Module* module) {
  const Literal& literal = constant.literal();
  const auto* data = static_cast<const uint8_t*>(literal.untyped_data());
  llvm::Constant* initializer = llvm::ConstantDataArray::get(
      module->getContext(), llvm::ArrayRef<uint8_t>(data, literal.size_bytes()));
  auto* global = new llvm::GlobalVariable(*module, initializer->getType(), /*isConstant=*/true,
                                          llvm::GlobalValue::PrivateLinkage, initializer,
                                          Ref(absl::StrCat("constant.", constant.name())));
  global->setAlignment(llvm::Align(64));
  global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  Shape shape = constant.shape();
  shape.set_layout(Layout::Descending(shape.rank()));
  return IrArray(global, shape);
}

absl::Status CheckArrayShape(const HloInstruction& hlo) {
  if (!hlo.shape().IsArray()) {
    return absl::UnimplementedError(absl::StrCat("%", hlo.name(), ": loop kernels take ",
                                                 "arrays only, not ", hlo.shape().ToString()));
  }
  return llvm_ir::LayoutStrides(hlo.shape()).status();
}

}  // namespace

absl::StatusOr<std::unique_ptr<LoopKernelCompiler>> LoopKernelCompiler::Create(
    const llvm_ir::JitOptions& options) {
  TS_ASSIGN_OR_RETURN(std::unique_ptr<llvm_ir::LlvmJit> jit, llvm_ir::LlvmJit::Create(options));
  return std::unique_ptr<LoopKernelCompiler>(
      new LoopKernelCompiler(std::shared_ptr<llvm_ir::LlvmJit>(std::move(jit))));
}

absl::StatusOr<std::unique_ptr<LoopKernel>> LoopKernelCompiler::Compile(
    const HloComputation& computation, const LoopKernelOptions& options) {
  const HloInstruction* root = computation.root_instruction();
  if (root == nullptr) return absl::InvalidArgumentError("computation has no root");
  for (const HloInstruction* hlo : computation.MakeInstructionPostOrder()) {
    TS_RETURN_IF_ERROR(CheckArrayShape(*hlo));
  }
  const std::string name = absl::StrCat("loop_kernel_", next_kernel_++);
  const int64_t buffer_count = computation.num_parameters() + 1;

  llvm_ir::ModuleWithContext module = llvm_ir::CreateModule(*jit_, name);
  llvm::LLVMContext& context = *module.context;
  llvm::IRBuilder<> b(context);
  llvm::Type* pointer = llvm::PointerType::get(context, 0);
  llvm::Type* i64 = b.getInt64Ty();

  // The body: (ptr p0, ..., ptr pn, i64 begin, i64 end), inlined into the
  // entry so that its noalias arguments become alias scopes.
  std::vector<llvm::Type*> body_arguments(buffer_count, pointer);
  body_arguments.push_back(i64);
  body_arguments.push_back(i64);
  llvm::Function* body = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), body_arguments, /*isVarArg=*/false),
      llvm::GlobalValue::InternalLinkage, Ref(absl::StrCat(name, ".body")), module.module.get());
  body->setDoesNotThrow();
  body->addFnAttr(llvm::Attribute::AlwaysInline);
  for (int64_t i = 0; i < buffer_count; ++i) {
    if (i < static_cast<int64_t>(options.noalias.size()) && options.noalias[i]) {
      body->addParamAttr(i, llvm::Attribute::NoAlias);
    }
  }
  llvm::Value* begin = body->getArg(buffer_count);
  llvm::Value* end = body->getArg(buffer_count + 1);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", body));

  std::unique_ptr<llvm_ir::ElementalIrEmitter> emitter;
  if (options.polynomial_math) {
    emitter = std::make_unique<llvm_ir::PolynomialMathEmitter>(module.module.get(), &b);
  } else {
    emitter = std::make_unique<llvm_ir::ElementalIrEmitter>(module.module.get(), &b);
  }
  llvm_ir::GeneratorMap generators;
  for (const HloInstruction* hlo : computation.MakeInstructionPostOrder()) {
    switch (hlo->opcode()) {
      case HloOpcode::kParameter: {
        IrArray array(body->getArg(hlo->parameter_number()), hlo->shape());
        generators[hlo] = [array, &b](const IrIndex& index) { return array.EmitRead(index, &b); };
        break;
      }
      case HloOpcode::kConstant: {
        IrArray array = EmitConstantArray(*hlo, module.module.get());
        generators[hlo] = [array, &b](const IrIndex& index) { return array.EmitRead(index, &b); };
        break;
      }
      default: {
        TS_ASSIGN_OR_RETURN(generators[hlo], emitter->MakeElementGenerator(hlo, generators));
        break;
      }
    }
  }
  Shape shape = root->shape();
  if (!shape.has_layout()) shape.set_layout(Layout::Descending(shape.rank()));
  IrArray result(body->getArg(buffer_count - 1), shape);
  const llvm_ir::ElementGenerator& generator = generators.at(root);
  auto kernel = std::unique_ptr<LoopKernel>(new LoopKernel());
  if (shape.rank() == 0) {
    kernel->work_size_ = 1;
    IrIndex index({}, shape, i64, llvm::ConstantInt::get(i64, 0));
    TS_ASSIGN_OR_RETURN(llvm::Value * value, generator(index));
    TS_RETURN_IF_ERROR(result.EmitWrite(index, value, &b));
  } else {
    TS_ASSIGN_OR_RETURN(std::vector<int64_t> strides, llvm_ir::LayoutStrides(shape));
    const std::vector<int64_t> minor_to_major = llvm_ir::MinorToMajor(shape);
    const int64_t rank = shape.rank();
    kernel->work_size_ = shape.dimensions(minor_to_major[rank - 1]);
    std::vector<llvm::Value*> multi_index(rank, nullptr);
    std::vector<llvm_ir::ForLoop> loops;
    llvm::Value* linear = llvm::ConstantInt::get(i64, 0);
    for (int64_t k = rank - 1; k >= 0; --k) {
      const int64_t dimension = minor_to_major[k];
      llvm::Value* start = k == rank - 1 ? begin : llvm::ConstantInt::get(i64, 0);
      llvm::Value* stop =
          k == rank - 1 ? end : llvm::ConstantInt::get(i64, shape.dimensions(dimension));
      loops.push_back(llvm_ir::ForLoop::Emit(absl::StrCat("d", dimension), start, stop, &b));
      llvm::Value* iv = loops.back().induction_variable();
      multi_index[dimension] = iv;
      linear = b.CreateAdd(linear, b.CreateMul(iv, llvm::ConstantInt::get(i64, strides[dimension]),
                                               "", /*HasNUW=*/true, /*HasNSW=*/true),
                           "linear", /*HasNUW=*/true, /*HasNSW=*/true);
    }
    IrIndex index(multi_index, shape, i64, linear);
    TS_ASSIGN_OR_RETURN(llvm::Value * value, generator(index));
    TS_RETURN_IF_ERROR(result.EmitWrite(index, value, &b));
    for (auto it = loops.rbegin(); it != loops.rend(); ++it) it->Finish(&b);
  }
  b.CreateRetVoid();

  // The entry: void name(ptr buffers, i64 begin, i64 end).
  llvm::Function* entry = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), {pointer, i64, i64}, /*isVarArg=*/false),
      llvm::GlobalValue::ExternalLinkage, Ref(name), module.module.get());
  entry->setDoesNotThrow();
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", entry));
  std::vector<llvm::Value*> call_arguments;
  for (int64_t i = 0; i < buffer_count; ++i) {
    llvm::Value* slot = b.CreateConstInBoundsGEP1_64(pointer, entry->getArg(0), i);
    call_arguments.push_back(b.CreateLoad(pointer, slot, Ref(absl::StrCat("buffer", i))));
  }
  call_arguments.push_back(entry->getArg(1));
  call_arguments.push_back(entry->getArg(2));
  b.CreateCall(body, call_arguments);
  b.CreateRetVoid();

  TS_RETURN_IF_ERROR(llvm_ir::AddModule(*jit_, std::move(module)));
  TS_ASSIGN_OR_RETURN(kernel->function_, jit_->LookupFunction<LoopKernel::Function>(name));
  kernel->jit_ = jit_;
  return kernel;
}

}  // namespace cpu
}  // namespace tessera
