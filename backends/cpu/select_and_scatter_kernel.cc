// Select-and-scatter kernels (LoopKernelCompiler::CompileSelectAndScatter;
// see loop_kernel.h): max-pool gradients and the like, in the evaluator's
// order.  The result starts as the init value; for each source element
// (row-major), the window over the operand picks one element -- the first
// in row-major window order, replaced by each later one that `select`
// (current, candidate) rejects the current for -- and the source value is
// combined into the result there with `scatter(source, result)`.  Where
// windows may overlap in dimension 0 the source elements run serially;
// else partitions of that dimension run in parallel.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/loop_kernel.h"
#include "backends/cpu/loop_kernel_internal.h"
#include "backends/llvm_ir/kernel_support.h"
#include "backends/llvm_ir/llvm_jit_internal.h"
#include "backends/llvm_ir/loop_emitter.h"
#include "hlo/ir/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"

namespace tessera {
namespace cpu {
namespace {

using llvm_ir::IrArray;
using llvm_ir::IrIndex;

Shape WithLayout(Shape shape) {
  if (!shape.has_layout()) shape.set_layout(Layout::Descending(shape.rank()));
  return shape;
}

absl::Status CheckScalarComputation(const HloInstruction& hlo, const HloComputation* computation,
                                    PrimitiveType result_type) {
  const Shape* root = computation == nullptr ? nullptr : &computation->root_instruction()->shape();
  if (computation == nullptr || computation->num_parameters() != 2 || !root->IsArray() ||
      root->rank() != 0 || root->element_type() != result_type) {
    return absl::UnimplementedError(
        absl::StrCat("%", hlo.name(), ": an unusual select or scatter computation"));
  }
  for (const HloInstruction* h : computation->MakeInstructionPostOrder()) {
    if (!h->shape().IsArray() || h->shape().rank() != 0 ||
        (h->opcode() != HloOpcode::kParameter && h->opcode() != HloOpcode::kConstant &&
         !h->IsElementwise())) {
      return absl::UnimplementedError(
          absl::StrCat("%", hlo.name(), ": a select or scatter computation that is not scalar "
                                        "elementwise"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<LoopKernel>> LoopKernelCompiler::CompileSelectAndScatter(
    const HloInstruction& hlo, const LoopKernelOptions& options) {
  if (hlo.opcode() != HloOpcode::kSelectAndScatter || hlo.operand_count() != 3 ||
      !hlo.shape().IsArray() || !hlo.attrs().window.has_value() ||
      hlo.called_computations().size() != 2) {
    return absl::UnimplementedError(absl::StrCat("%", hlo.name(), ": not a select-and-scatter"));
  }
  for (const HloInstruction* operand : hlo.operands()) {
    TS_RETURN_IF_ERROR(llvm_ir::CheckKernelArrayShape(*operand));
  }
  TS_RETURN_IF_ERROR(llvm_ir::CheckKernelArrayShape(hlo));
  const PrimitiveType type = hlo.shape().element_type();
  const HloComputation* select = hlo.called_computations()[0];
  const HloComputation* scatter = hlo.called_computations()[1];
  TS_RETURN_IF_ERROR(CheckScalarComputation(hlo, select, PRED));
  TS_RETURN_IF_ERROR(CheckScalarComputation(hlo, scatter, type));
  const Shape operand_shape = WithLayout(hlo.operand(0)->shape());
  const Shape source_shape = WithLayout(hlo.operand(1)->shape());
  const Shape init_shape = WithLayout(hlo.operand(2)->shape());
  const Shape result_shape = WithLayout(hlo.shape());
  const int64_t rank = operand_shape.rank();
  const std::vector<WindowDimension> window = hlo.window().dimensions;
  if (static_cast<int64_t>(window.size()) != rank || source_shape.rank() != rank ||
      init_shape.rank() != 0 || result_shape.dimensions() != operand_shape.dimensions()) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", hlo.name(), ": window, source or result do not fit the operand"));
  }
  for (const WindowDimension& w : window) {
    if (w.size < 0 || w.stride < 1 || w.window_dilation != 1 || w.base_dilation != 1) {
      return absl::UnimplementedError(absl::StrCat("%", hlo.name(), ": a dilated window"));
    }
  }

  const std::string name = absl::StrCat("select_and_scatter_kernel_", next_kernel_++);
  llvm_ir::ModuleWithContext module = llvm_ir::CreateModule(*jit_, name);
  llvm::LLVMContext& context = *module.context;
  llvm::IRBuilder<> b(context);
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Function* function = CreateKernelEntry(module.module.get(), name);
  b.SetInsertPoint(&function->getEntryBlock());
  auto buffer = [&](int64_t i) { return LoadKernelBuffer(function, i, &b); };
  const IrArray operand(buffer(0), operand_shape);
  const IrArray source(buffer(1), source_shape);
  const IrArray init(buffer(2), init_shape);
  const IrArray result(buffer(3), result_shape);
  auto constant = [&](int64_t v) -> llvm::Value* { return llvm::ConstantInt::get(i64, v); };
  std::unique_ptr<llvm_ir::ElementalIrEmitter> emitter =
      MakeEmitter(options.polynomial_math ? KernelMath::kInline : KernelMath::kLibrary,
                  module.module.get(), &b);
  TS_ASSIGN_OR_RETURN(llvm::Type * value_type, llvm_ir::IrValueType(type, context));
  llvm::AllocaInst* selected = b.CreateAlloca(i64, nullptr, "selected");
  llvm::AllocaInst* selected_value = b.CreateAlloca(value_type, nullptr, "selected_value");

  // Partitioned over the source's dimension 0 when windows of different
  // source rows never share an operand row (stride >= size there, as in
  // pooling): a partition [begin, end) fills the result rows its windows
  // can reach -- from its first window's start (0 for the first
  // partition) to the next partition's -- then scatters its sources, so
  // no two partitions touch one row and each row sees its sources in
  // order.  Otherwise one call does everything.
  const bool partitioned = rank > 0 && window[0].stride >= window[0].size;
  llvm::Value* begin = partitioned ? static_cast<llvm::Value*>(function->getArg(1)) : constant(0);
  llvm::Value* end = partitioned ? static_cast<llvm::Value*>(function->getArg(2))
                                 : constant(rank > 0 ? source_shape.dimensions(0) : 1);
  TS_ASSIGN_OR_RETURN(llvm::Value * init_value, init.EmitRead(IrIndex(i64), &b));
  if (rank == 0) {
    TS_RETURN_IF_ERROR(result.EmitWrite(IrIndex({}, result_shape, i64, constant(0)), init_value, &b));
  } else {
    const int64_t rows = result_shape.dimensions(0);
    const int64_t sources = source_shape.dimensions(0);
    auto first_row = [&](llvm::Value* s) {
      llvm::Value* row = b.CreateSub(b.CreateMul(s, constant(window[0].stride)),
                                     constant(window[0].padding_low));
      row = b.CreateSelect(b.CreateICmpSLT(row, constant(0)), constant(0), row);
      row = b.CreateSelect(b.CreateICmpSGT(row, constant(rows)), constant(rows), row);
      row = b.CreateSelect(b.CreateICmpEQ(s, constant(0)), constant(0), row);
      return b.CreateSelect(b.CreateICmpSGE(s, constant(sources)), constant(rows), row);
    };
    std::vector<llvm_ir::ForLoop> fill_loops;
    std::vector<llvm::Value*> fill_index(rank);
    fill_loops.push_back(
        llvm_ir::ForLoop::Emit("fill0", first_row(begin), first_row(end), &b));
    fill_index[0] = fill_loops.back().induction_variable();
    for (int64_t d = 1; d < rank; ++d) {
      fill_loops.push_back(llvm_ir::ForLoop::Emit(absl::StrCat("fill", d), constant(0),
                                                  constant(result_shape.dimensions(d)), &b));
      fill_index[d] = fill_loops.back().induction_variable();
    }
    TS_RETURN_IF_ERROR(result.EmitWrite(IrIndex(fill_index, result_shape, i64), init_value, &b));
    for (auto it = fill_loops.rbegin(); it != fill_loops.rend(); ++it) it->Finish(&b);
  }
  // Source elements in row-major order.
  std::vector<llvm_ir::ForLoop> source_loops;
  std::vector<llvm::Value*> source_index(rank);
  for (int64_t d = 0; d < rank; ++d) {
    source_loops.push_back(llvm_ir::ForLoop::Emit(
        absl::StrCat("s", d), d == 0 ? begin : constant(0),
        d == 0 ? end : constant(source_shape.dimensions(d)), &b));
    source_index[d] = source_loops.back().induction_variable();
  }
  b.CreateStore(constant(-1), selected);
  // The window in row-major order: positions outside the operand are
  // skipped; the selection runs without branches (a clamped read, then
  // selects).
  std::vector<llvm_ir::ForLoop> window_loops;
  std::vector<llvm::Value*> position(rank);
  llvm::Value* valid = b.getTrue();
  for (int64_t d = 0; d < rank; ++d) {
    window_loops.push_back(llvm_ir::ForLoop::Emit(absl::StrCat("w", d), constant(0),
                                                  constant(window[d].size), &b));
    llvm::Value* p = b.CreateAdd(
        b.CreateSub(b.CreateMul(source_index[d], constant(window[d].stride)),
                    constant(window[d].padding_low)),
        window_loops.back().induction_variable());
    const int64_t extent = operand_shape.dimensions(d);
    valid = b.CreateAnd(valid, b.CreateICmpSGE(p, constant(0)));
    valid = b.CreateAnd(valid, b.CreateICmpSLT(p, constant(extent)));
    llvm::Value* low = b.CreateSelect(b.CreateICmpSLT(p, constant(0)), constant(0), p);
    position[d] =
        b.CreateSelect(b.CreateICmpSGT(low, constant(extent - 1)), constant(extent - 1), low);
  }
  if (operand_shape.ElementCount() > 0) {
    // Row-major linear position of the (clamped) window element.
    llvm::Value* linear = constant(0);
    for (int64_t d = 0; d < rank; ++d) {
      linear = b.CreateAdd(b.CreateMul(linear, constant(operand_shape.dimensions(d))), position[d]);
    }
    TS_ASSIGN_OR_RETURN(llvm::Value * candidate,
                        operand.EmitRead(IrIndex(position, operand_shape, i64), &b));
    llvm::Value* current_position = b.CreateLoad(i64, selected);
    llvm::Value* current = b.CreateLoad(value_type, selected_value);
    TS_ASSIGN_OR_RETURN(std::vector<llvm::Value*> keep,
                        EmitScalarComputation(*select, {current, candidate}, emitter.get(), &b));
    llvm::Value* first = b.CreateICmpSLT(current_position, constant(0));
    llvm::Value* take = b.CreateAnd(valid, b.CreateOr(first, b.CreateNot(keep[0])));
    b.CreateStore(b.CreateSelect(take, linear, current_position), selected);
    b.CreateStore(b.CreateSelect(take, candidate, current), selected_value);
  }
  for (auto it = window_loops.rbegin(); it != window_loops.rend(); ++it) it->Finish(&b);
  // Combine the source value into the selected element, if any.
  llvm::Value* chosen = b.CreateLoad(i64, selected);
  llvm::BasicBlock* combine = llvm::BasicBlock::Create(context, "combine", function);
  llvm::BasicBlock* next = llvm::BasicBlock::Create(context, "next", function);
  b.CreateCondBr(b.CreateICmpSGE(chosen, constant(0)), combine, next);
  b.SetInsertPoint(combine);
  {
    // The selected element's multi-index from its row-major position.
    std::vector<llvm::Value*> target(rank);
    llvm::Value* rest = chosen;
    for (int64_t d = rank - 1; d >= 0; --d) {
      const int64_t extent = std::max<int64_t>(1, operand_shape.dimensions(d));
      target[d] = b.CreateURem(rest, constant(extent));
      rest = b.CreateUDiv(rest, constant(extent));
    }
    const IrIndex at(target, result_shape, i64);
    TS_ASSIGN_OR_RETURN(llvm::Value * value,
                        source.EmitRead(IrIndex(source_index, source_shape, i64), &b));
    TS_ASSIGN_OR_RETURN(llvm::Value * old, result.EmitRead(at, &b));
    TS_ASSIGN_OR_RETURN(std::vector<llvm::Value*> combined,
                        EmitScalarComputation(*scatter, {value, old}, emitter.get(), &b));
    TS_RETURN_IF_ERROR(result.EmitWrite(at, combined[0], &b));
  }
  b.CreateBr(next);
  b.SetInsertPoint(next);
  for (auto it = source_loops.rbegin(); it != source_loops.rend(); ++it) it->Finish(&b);
  b.CreateRetVoid();

  auto kernel = std::unique_ptr<LoopKernel>(new LoopKernel());
  kernel->work_size_ = partitioned ? std::max<int64_t>(1, source_shape.dimensions(0)) : 1;
  AddPending(std::move(module), name, kernel.get());
  return kernel;
}

}  // namespace cpu
}  // namespace tessera
