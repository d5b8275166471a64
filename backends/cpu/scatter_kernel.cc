// Scatter kernels (LoopKernelCompiler::CompileScatter; see loop_kernel.h):
// XLA's scatter with batching dimensions, in the evaluator's order.  The
// updates run serially (two may hit one element, and the update
// computation need not commute), the copy of the operand in parallel-
// friendly vector code before them.
#include <algorithm>
#include <limits>
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

bool Contains(const std::vector<int64_t>& list, int64_t value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

absl::Status Unsupported(const HloInstruction& scatter, absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat("%", scatter.name(), ": ", why));
}

Shape WithLayout(Shape shape) {
  if (!shape.has_layout()) shape.set_layout(Layout::Descending(shape.rank()));
  return shape;
}

}  // namespace

absl::StatusOr<std::unique_ptr<LoopKernel>> LoopKernelCompiler::CompileScatter(
    const HloInstruction& scatter, const LoopKernelOptions& options) {
  if (scatter.opcode() != HloOpcode::kScatter || scatter.operand_count() != 3 ||
      !scatter.shape().IsArray() || !scatter.attrs().scatter_dimension_numbers.has_value()) {
    return Unsupported(scatter, "only one-operand scatters run in kernels");
  }
  for (const HloInstruction* operand : scatter.operands()) {
    TS_RETURN_IF_ERROR(llvm_ir::CheckKernelArrayShape(*operand));
  }
  TS_RETURN_IF_ERROR(llvm_ir::CheckKernelArrayShape(scatter));
  const HloComputation* combiner = scatter.to_apply();
  const PrimitiveType type = scatter.shape().element_type();
  if (combiner == nullptr || combiner->num_parameters() != 2) {
    return Unsupported(scatter, "an unusual update computation");
  }
  for (const HloInstruction* h : combiner->MakeInstructionPostOrder()) {
    if (!h->shape().IsArray() || h->shape().rank() != 0 || h->shape().element_type() != type ||
        (h->opcode() != HloOpcode::kParameter && h->opcode() != HloOpcode::kConstant &&
         !h->IsElementwise())) {
      return Unsupported(scatter, "the update computation is not scalar elementwise");
    }
  }
  const ScatterDimensionNumbers dn = scatter.scatter_dimension_numbers();
  const Shape operand_shape = WithLayout(scatter.operand(0)->shape());
  const Shape indices_shape = WithLayout(scatter.operand(1)->shape());
  const Shape updates_shape = WithLayout(scatter.operand(2)->shape());
  const Shape result_shape = WithLayout(scatter.shape());
  const int64_t rank = operand_shape.rank();
  const int64_t indices_rank = indices_shape.rank();
  if (!IsIntegralType(indices_shape.element_type()) || dn.index_vector_dim < 0 ||
      dn.index_vector_dim > indices_rank || updates_shape.element_type() != type ||
      operand_shape.dimensions() != result_shape.dimensions()) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", scatter.name(), ": bad indices, updates or result"));
  }
  const bool implicit = dn.index_vector_dim == indices_rank;
  const int64_t vector_size = implicit ? 1 : indices_shape.dimensions(dn.index_vector_dim);
  std::vector<int64_t> window_operand_dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(dn.inserted_window_dims, d) && !Contains(dn.input_batching_dims, d)) {
      window_operand_dims.push_back(d);
    }
  }
  std::vector<int64_t> scatter_update_dims;
  for (int64_t d = 0; d < updates_shape.rank(); ++d) {
    if (!Contains(dn.update_window_dims, d)) scatter_update_dims.push_back(d);
  }
  bool ok = window_operand_dims.size() == dn.update_window_dims.size() &&
            static_cast<int64_t>(dn.scatter_dims_to_operand_dims.size()) == vector_size &&
            static_cast<int64_t>(scatter_update_dims.size()) == indices_rank - (implicit ? 0 : 1) &&
            dn.input_batching_dims.size() == dn.scatter_indices_batching_dims.size();
  std::vector<int64_t> window_size(rank, 1);
  for (size_t i = 0; ok && i < window_operand_dims.size(); ++i) {
    window_size[window_operand_dims[i]] = updates_shape.dimensions(dn.update_window_dims[i]);
    ok = window_size[window_operand_dims[i]] <= operand_shape.dimensions(window_operand_dims[i]);
  }
  for (int64_t d : dn.scatter_dims_to_operand_dims) ok = ok && d >= 0 && d < rank;
  for (int64_t d : dn.input_batching_dims) ok = ok && d >= 0 && d < rank;
  for (int64_t d : dn.scatter_indices_batching_dims) {
    ok = ok && d >= 0 && d < indices_rank && d != dn.index_vector_dim;
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", scatter.name(), ": dimension numbers do not fit the shapes"));
  }

  const std::string name = absl::StrCat("scatter_kernel_", next_kernel_++);
  llvm_ir::ModuleWithContext module = llvm_ir::CreateModule(*jit_, name);
  llvm::LLVMContext& context = *module.context;
  llvm::IRBuilder<> b(context);
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Function* function = CreateKernelEntry(module.module.get(), name);
  b.SetInsertPoint(&function->getEntryBlock());
  std::vector<llvm::Value*> buffers;
  for (int64_t i = 0; i < 4; ++i) buffers.push_back(LoadKernelBuffer(function, i, &b));
  const IrArray operand(buffers[0], operand_shape);
  const IrArray indices(buffers[1], indices_shape);
  const IrArray updates(buffers[2], updates_shape);
  const IrArray result(buffers[3], result_shape);
  auto constant = [&](int64_t v) { return llvm::ConstantInt::get(i64, v); };

  // The result starts as the operand (unless it is the operand's buffer).
  const bool in_place = !options.same_as_result.empty() && options.same_as_result[0];
  if (!in_place) {
    llvm_ir::LoopEmitter copy(
        [&](const IrIndex& index) { return operand.EmitRead(index, &b); }, result, &b);
    TS_RETURN_IF_ERROR(copy.EmitLoop("copy"));
  }
  std::unique_ptr<llvm_ir::ElementalIrEmitter> emitter =
      MakeEmitter(options.polynomial_math ? KernelMath::kInline : KernelMath::kLibrary,
                  module.module.get(), &b);

  // Row-major over the scatter dimensions of the updates.
  std::vector<llvm::Value*> scatter_index;
  std::vector<llvm_ir::ForLoop> scatter_loops;
  for (int64_t d : scatter_update_dims) {
    scatter_loops.push_back(llvm_ir::ForLoop::Emit(absl::StrCat("s", d), constant(0),
                                                   constant(updates_shape.dimensions(d)), &b));
    scatter_index.push_back(scatter_loops.back().induction_variable());
  }
  // The window's start in the operand.
  std::vector<llvm::Value*> start(rank, constant(0));
  const PrimitiveType index_type = indices_shape.element_type();
  for (int64_t k = 0; k < vector_size; ++k) {
    std::vector<llvm::Value*> multi(indices_rank);
    size_t next = 0;
    for (int64_t d = 0; d < indices_rank; ++d) {
      multi[d] = d == dn.index_vector_dim ? constant(k) : scatter_index[next++];
    }
    TS_ASSIGN_OR_RETURN(llvm::Value * component,
                        indices.EmitRead(IrIndex(multi, indices_shape, i64), &b));
    llvm::Value* wide = IsUnsignedIntegralType(index_type) ? b.CreateZExtOrTrunc(component, i64)
                                                           : b.CreateSExtOrTrunc(component, i64);
    if (index_type == U64) {
      // Beyond INT64_MAX: out of any operand (the window is skipped).
      wide = b.CreateSelect(b.CreateICmpSLT(wide, constant(0)),
                            constant(std::numeric_limits<int64_t>::max()), wide);
    }
    start[dn.scatter_dims_to_operand_dims[k]] = wide;
  }
  for (size_t i = 0; i < dn.input_batching_dims.size(); ++i) {
    const int64_t dim = dn.scatter_indices_batching_dims[i];
    const int64_t position = implicit || dim < dn.index_vector_dim ? dim : dim - 1;
    start[dn.input_batching_dims[i]] = scatter_index[position];
  }
  // A window that does not fit in the operand is skipped whole.
  llvm::Value* fits = b.getTrue();
  for (int64_t d = 0; d < rank; ++d) {
    fits = b.CreateAnd(fits, b.CreateICmpSGE(start[d], constant(0)));
    fits = b.CreateAnd(fits, b.CreateICmpSLE(
                                 start[d], constant(operand_shape.dimensions(d) - window_size[d])));
  }
  llvm::BasicBlock* apply = llvm::BasicBlock::Create(context, "apply", function);
  llvm::BasicBlock* skip = llvm::BasicBlock::Create(context, "skip", function);
  b.CreateCondBr(fits, apply, skip);
  b.SetInsertPoint(apply);
  std::vector<llvm_ir::ForLoop> window_loops;
  std::vector<llvm::Value*> to = start;
  std::vector<llvm::Value*> from(updates_shape.rank(), nullptr);
  for (size_t i = 0; i < scatter_update_dims.size(); ++i) {
    from[scatter_update_dims[i]] = scatter_index[i];
  }
  for (size_t i = 0; i < dn.update_window_dims.size(); ++i) {
    const int64_t update_dim = dn.update_window_dims[i];
    window_loops.push_back(llvm_ir::ForLoop::Emit(absl::StrCat("w", update_dim), constant(0),
                                                  constant(updates_shape.dimensions(update_dim)),
                                                  &b));
    llvm::Value* w = window_loops.back().induction_variable();
    from[update_dim] = w;
    to[window_operand_dims[i]] = b.CreateAdd(start[window_operand_dims[i]], w);
  }
  const IrIndex to_index(to, result_shape, i64);
  TS_ASSIGN_OR_RETURN(llvm::Value * current, result.EmitRead(to_index, &b));
  TS_ASSIGN_OR_RETURN(llvm::Value * update,
                      updates.EmitRead(IrIndex(from, updates_shape, i64), &b));
  TS_ASSIGN_OR_RETURN(llvm::Value * combined,
                      EmitReducer(*combiner, current, update, emitter.get(), &b));
  TS_RETURN_IF_ERROR(result.EmitWrite(to_index, combined, &b));
  for (auto it = window_loops.rbegin(); it != window_loops.rend(); ++it) it->Finish(&b);
  b.CreateBr(skip);
  b.SetInsertPoint(skip);
  for (auto it = scatter_loops.rbegin(); it != scatter_loops.rend(); ++it) it->Finish(&b);
  b.CreateRetVoid();

  auto kernel = std::unique_ptr<LoopKernel>(new LoopKernel());
  kernel->work_size_ = 1;
  AddPending(std::move(module), name, kernel.get());
  return kernel;
}

}  // namespace cpu
}  // namespace tessera
