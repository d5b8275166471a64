// Partitioned elementwise kernels; see loop_kernel.h.
#include "backends/cpu/loop_kernel.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "backends/llvm_ir/elemental_ir_emitter.h"
#include "backends/llvm_ir/llvm_jit_internal.h"
#include "backends/llvm_ir/kernel_support.h"
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

using llvm_ir::CheckKernelArrayShape;
using llvm_ir::EmitConstantArray;
using llvm_ir::ToStringRef;



// Every transitive user of `hlo` inside its computation is elementwise over
// `hlo`'s dimensions: a generator for it is called once per element of the
// kernel's result (a reduce read through a broadcast would be recomputed
// per element of the broadcast).
bool ReadOncePerElement(const HloInstruction* hlo) {
  std::vector<const HloInstruction*> stack = {hlo};
  while (!stack.empty()) {
    const HloInstruction* h = stack.back();
    stack.pop_back();
    for (const HloInstruction* user : h->users()) {
      if (!user->IsElementwise() || user->shape().dimensions() != hlo->shape().dimensions()) {
        return false;
      }
      stack.push_back(user);
    }
  }
  return true;
}

// A generator for a one-operand `reduce` whose reducer is a scalar
// elementwise computation: per result element, starts from the init value
// and folds the operand's elements in, reduced dimensions in row-major
// (logical) order, accumulator first (the evaluator's order, so results
// match it bit for bit).
absl::StatusOr<llvm_ir::ElementGenerator> MakeReduceGenerator(
    const HloInstruction* reduce, const llvm_ir::GeneratorMap& generators,
    llvm_ir::ElementalIrEmitter* emitter, llvm::IRBuilder<>* b) {
  if (reduce->operand_count() != 2 || !reduce->shape().IsArray()) {
    return absl::UnimplementedError(
        absl::StrCat("%", reduce->name(), ": only one-operand reduces run in kernels"));
  }
  const HloComputation* reducer = reduce->to_apply();
  if (reducer == nullptr || reducer->num_parameters() != 2) {
    return absl::UnimplementedError(absl::StrCat("%", reduce->name(), ": an unusual reducer"));
  }
  const PrimitiveType type = reduce->shape().element_type();
  for (const HloInstruction* h : reducer->MakeInstructionPostOrder()) {
    if (!h->shape().IsArray() || h->shape().rank() != 0 || h->shape().element_type() != type) {
      return absl::UnimplementedError(
          absl::StrCat("%", reduce->name(), ": the reducer is not scalar ",
                       PrimitiveTypeName(type)));
    }
    if (h->opcode() != HloOpcode::kParameter && h->opcode() != HloOpcode::kConstant &&
        !h->IsElementwise()) {
      return absl::UnimplementedError(
          absl::StrCat("%", reduce->name(), ": the reducer is not elementwise"));
    }
  }
  if (!ReadOncePerElement(reduce)) {
    return absl::UnimplementedError(
        absl::StrCat("%", reduce->name(), ": its result is read other than elementwise"));
  }
  const HloInstruction* input = reduce->operand(0);
  const HloInstruction* init = reduce->operand(1);
  const int64_t rank = input->shape().rank();
  std::vector<bool> reduced(rank, false);
  for (int64_t d : reduce->dimensions()) {
    if (d < 0 || d >= rank) return absl::InvalidArgumentError("bad reduce dimensions");
    reduced[d] = true;
  }
  const Shape input_shape = input->shape();
  llvm_ir::ElementGenerator input_generator = generators.at(input);
  llvm_ir::ElementGenerator init_generator = generators.at(init);
  return llvm_ir::ElementGenerator(
      [=](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        llvm::Type* index_type = index.index_type();
        TS_ASSIGN_OR_RETURN(llvm::Value * init_value, init_generator(IrIndex(index_type)));
        // The accumulator lives in a stack slot of the function's entry
        // block (promoted to a register by mem2reg).
        llvm::Function* function = b->GetInsertBlock()->getParent();
        llvm::IRBuilder<> entry_builder(&function->getEntryBlock(),
                                        function->getEntryBlock().begin());
        llvm::AllocaInst* slot =
            entry_builder.CreateAlloca(init_value->getType(), nullptr, "accumulator");
        b->CreateStore(init_value, slot);
        std::vector<llvm::Value*> multi_index(rank, nullptr);
        int64_t kept = 0;
        for (int64_t d = 0; d < rank; ++d) {
          if (!reduced[d]) multi_index[d] = index[kept++];
        }
        std::vector<llvm_ir::ForLoop> loops;
        for (int64_t d = 0; d < rank; ++d) {
          if (!reduced[d]) continue;
          loops.push_back(llvm_ir::ForLoop::Emit(
              absl::StrCat(reduce->name(), ".r", d), llvm::ConstantInt::get(index_type, 0),
              llvm::ConstantInt::get(index_type, input_shape.dimensions(d)), b));
          multi_index[d] = loops.back().induction_variable();
        }
        TS_ASSIGN_OR_RETURN(llvm::Value * x,
                            input_generator(IrIndex(multi_index, input_shape, index_type)));
        llvm::Value* accumulator = b->CreateLoad(init_value->getType(), slot);
        // The reducer, elementally on the two scalars.
        llvm_ir::GeneratorMap scalar;
        for (const HloInstruction* h : reducer->MakeInstructionPostOrder()) {
          if (h->opcode() == HloOpcode::kParameter) {
            llvm::Value* value = h->parameter_number() == 0 ? accumulator : x;
            scalar[h] = [value](const IrIndex&) -> absl::StatusOr<llvm::Value*> { return value; };
          } else if (h->opcode() == HloOpcode::kConstant) {
            IrArray array = EmitConstantArray(*h, function->getParent());
            llvm::IRBuilder<>* builder = b;
            scalar[h] = [array, builder](const IrIndex& i) { return array.EmitRead(i, builder); };
          } else {
            TS_ASSIGN_OR_RETURN(scalar[h], emitter->MakeElementGenerator(h, scalar));
          }
        }
        TS_ASSIGN_OR_RETURN(llvm::Value * next,
                            scalar.at(reducer->root_instruction())(IrIndex(index_type)));
        b->CreateStore(next, slot);
        for (auto it = loops.rbegin(); it != loops.rend(); ++it) it->Finish(b);
        return static_cast<llvm::Value*>(b->CreateLoad(init_value->getType(), slot));
      });
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
    TS_RETURN_IF_ERROR(CheckKernelArrayShape(*hlo));
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
      llvm::GlobalValue::InternalLinkage, ToStringRef(absl::StrCat(name, ".body")), module.module.get());
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
      case HloOpcode::kReduce: {
        TS_ASSIGN_OR_RETURN(generators[hlo],
                            MakeReduceGenerator(hlo, generators, emitter.get(), &b));
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
      llvm::GlobalValue::ExternalLinkage, ToStringRef(name), module.module.get());
  entry->setDoesNotThrow();
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", entry));
  std::vector<llvm::Value*> call_arguments;
  for (int64_t i = 0; i < buffer_count; ++i) {
    llvm::Value* slot = b.CreateConstInBoundsGEP1_64(pointer, entry->getArg(0), i);
    call_arguments.push_back(b.CreateLoad(pointer, slot, ToStringRef(absl::StrCat("buffer", i))));
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
