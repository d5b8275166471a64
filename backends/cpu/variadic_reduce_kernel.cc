// Variadic reduce kernels (LoopKernelCompiler::CompileVariadicReduce; see
// loop_kernel.h): N inputs folded together into N results (argmax,
// argmin, sum with count, ...) through a reducer taking N accumulators
// then N elements and returning a tuple of N, in the evaluator's order.
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

absl::Status Unsupported(const HloInstruction& reduce, absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat("%", reduce.name(), ": ", why));
}

Shape WithLayout(Shape shape) {
  if (!shape.has_layout()) shape.set_layout(Layout::Descending(shape.rank()));
  return shape;
}

}  // namespace

absl::StatusOr<std::unique_ptr<LoopKernel>> LoopKernelCompiler::CompileVariadicReduce(
    const HloInstruction& reduce, const LoopKernelOptions& options) {
  const int64_t n = reduce.operand_count() / 2;
  if (reduce.opcode() != HloOpcode::kReduce || reduce.operand_count() % 2 != 0 || n < 1 ||
      !reduce.shape().IsTuple() || reduce.shape().tuple_size() != n) {
    return Unsupported(reduce, "not a variadic reduce");
  }
  const HloComputation* reducer = reduce.to_apply();
  if (reducer == nullptr || reducer->num_parameters() != 2 * n ||
      reducer->root_instruction()->opcode() != HloOpcode::kTuple ||
      reducer->root_instruction()->operand_count() != n) {
    return Unsupported(reduce, "the reducer does not return a tuple of one value per input");
  }
  for (const HloInstruction* h : reducer->MakeInstructionPostOrder()) {
    if (h == reducer->root_instruction()) continue;
    if (!h->shape().IsArray() || h->shape().rank() != 0 ||
        (h->opcode() != HloOpcode::kParameter && h->opcode() != HloOpcode::kConstant &&
         !h->IsElementwise())) {
      return Unsupported(reduce, "the reducer is not scalar elementwise");
    }
  }
  std::vector<Shape> inputs, results;
  for (int64_t i = 0; i < n; ++i) {
    TS_RETURN_IF_ERROR(llvm_ir::CheckKernelArrayShape(*reduce.operand(i)));
    TS_RETURN_IF_ERROR(llvm_ir::CheckKernelArrayShape(*reduce.operand(n + i)));
    inputs.push_back(WithLayout(reduce.operand(i)->shape()));
    results.push_back(WithLayout(reduce.shape().tuple_shapes(i)));
    if (inputs[i].dimensions() != inputs[0].dimensions() ||
        results[i].dimensions() != results[0].dimensions() ||
        results[i].layout().minor_to_major != results[0].layout().minor_to_major ||
        reduce.operand(n + i)->shape().rank() != 0) {
      return Unsupported(reduce, "inputs, inits or results of different shapes or layouts");
    }
  }
  const int64_t rank = inputs[0].rank();
  std::vector<bool> reduced(rank, false);
  for (int64_t d : reduce.dimensions()) {
    if (d < 0 || d >= rank) return absl::InvalidArgumentError("bad reduce dimensions");
    reduced[d] = true;
  }

  const std::string name = absl::StrCat("variadic_reduce_kernel_", next_kernel_++);
  llvm_ir::ModuleWithContext module = llvm_ir::CreateModule(*jit_, name);
  llvm::LLVMContext& context = *module.context;
  llvm::IRBuilder<> b(context);
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Function* function = CreateKernelEntry(module.module.get(), name);
  b.SetInsertPoint(&function->getEntryBlock());
  auto buffer = [&](int64_t i) { return LoadKernelBuffer(function, i, &b); };
  std::vector<IrArray> input_arrays, init_arrays, result_arrays;
  for (int64_t i = 0; i < n; ++i) {
    input_arrays.emplace_back(buffer(i), inputs[i]);
    init_arrays.emplace_back(buffer(n + i), WithLayout(reduce.operand(n + i)->shape()));
    result_arrays.emplace_back(buffer(2 * n + i), results[i]);
  }
  std::unique_ptr<llvm_ir::ElementalIrEmitter> emitter =
      MakeEmitter(options.polynomial_math ? KernelMath::kInline : KernelMath::kLibrary,
                  module.module.get(), &b);
  auto constant = [&](int64_t v) -> llvm::Value* { return llvm::ConstantInt::get(i64, v); };

  // Consecutive results along the minor result dimension are reduced
  // together, each with its own accumulators: the reducer's chain of
  // dependent compares and selects runs kGroup times in parallel (each
  // result still folds its elements in the evaluator's order).
  constexpr int64_t kGroup = 8;
  // Accumulators in entry-block slots (registers after mem2reg):
  // slots[u * n + i] for result u of a group and input i.
  std::vector<llvm::AllocaInst*> slots;
  for (int64_t u = 0; u < kGroup; ++u) {
    for (int64_t i = 0; i < n; ++i) {
      TS_ASSIGN_OR_RETURN(llvm::Type * type,
                          llvm_ir::IrValueType(results[i].element_type(), context));
      slots.push_back(
          b.CreateAlloca(type, nullptr, llvm_ir::ToStringRef(absl::StrCat("acc", u, "_", i))));
    }
  }
  // The result loops, major to minor; the major-most is partitioned.
  const Shape& out = results[0];
  const std::vector<int64_t> minor_to_major = llvm_ir::MinorToMajor(out);
  const int64_t out_rank = out.rank();
  std::vector<llvm::Value*> out_index(out_rank, nullptr);
  std::vector<llvm_ir::ForLoop> out_loops;
  for (int64_t k = out_rank - 1; k >= 1; --k) {
    const int64_t dimension = minor_to_major[k];
    llvm::Value* start = k == out_rank - 1 ? function->getArg(1) : constant(0);
    llvm::Value* stop = k == out_rank - 1 ? function->getArg(2) : constant(out.dimensions(dimension));
    out_loops.push_back(llvm_ir::ForLoop::Emit(absl::StrCat("d", dimension), start, stop, &b));
    out_index[dimension] = out_loops.back().induction_variable();
  }

  // Reduces `width` results, the minor result dimension at `minor`,
  // minor + 1, ... (no minor dimension for a scalar result).
  auto emit_group = [&](int64_t width, llvm::Value* minor) -> absl::Status {
    for (int64_t u = 0; u < width; ++u) {
      for (int64_t i = 0; i < n; ++i) {
        TS_ASSIGN_OR_RETURN(llvm::Value * init, init_arrays[i].EmitRead(IrIndex(i64), &b));
        b.CreateStore(init, slots[u * n + i]);
      }
    }
    // Each result's index, computed before the loops that use it.
    std::vector<std::vector<llvm::Value*>> indices(width, out_index);
    for (int64_t u = 0; u < width && out_rank > 0; ++u) {
      indices[u][minor_to_major[0]] = b.CreateAdd(minor, constant(u));
    }
    // The reduced dimensions in row-major order.
    std::vector<llvm_ir::ForLoop> reduce_loops;
    std::vector<llvm::Value*> reduced_index(rank, nullptr);
    for (int64_t d = 0; d < rank; ++d) {
      if (!reduced[d]) continue;
      reduce_loops.push_back(llvm_ir::ForLoop::Emit(absl::StrCat("r", d), constant(0),
                                                    constant(inputs[0].dimensions(d)), &b));
      reduced_index[d] = reduce_loops.back().induction_variable();
    }
    for (int64_t u = 0; u < width; ++u) {
      std::vector<llvm::Value*> in_index = reduced_index;
      int64_t kept = 0;
      for (int64_t d = 0; d < rank; ++d) {
        if (!reduced[d]) in_index[d] = indices[u][kept++];
      }
      std::vector<llvm::Value*> parameters;
      for (int64_t i = 0; i < n; ++i) {
        llvm::AllocaInst* slot = slots[u * n + i];
        parameters.push_back(b.CreateLoad(slot->getAllocatedType(), slot));
      }
      for (int64_t i = 0; i < n; ++i) {
        TS_ASSIGN_OR_RETURN(llvm::Value * x,
                            input_arrays[i].EmitRead(IrIndex(in_index, inputs[i], i64), &b));
        parameters.push_back(x);
      }
      TS_ASSIGN_OR_RETURN(std::vector<llvm::Value*> next,
                          EmitScalarComputation(*reducer, parameters, emitter.get(), &b));
      for (int64_t i = 0; i < n; ++i) b.CreateStore(next[i], slots[u * n + i]);
    }
    for (auto it = reduce_loops.rbegin(); it != reduce_loops.rend(); ++it) it->Finish(&b);
    for (int64_t u = 0; u < width; ++u) {
      const IrIndex result_index = out_rank == 0 ? IrIndex({}, out, i64, constant(0))
                                                 : IrIndex(indices[u], out, i64);
      for (int64_t i = 0; i < n; ++i) {
        llvm::AllocaInst* slot = slots[u * n + i];
        TS_RETURN_IF_ERROR(result_arrays[i].EmitWrite(
            result_index, b.CreateLoad(slot->getAllocatedType(), slot), &b));
      }
    }
    return absl::OkStatus();
  };

  if (out_rank == 0) {
    TS_RETURN_IF_ERROR(emit_group(1, nullptr));
  } else {
    // The minor result dimension: groups of kGroup, then one at a time.
    const int64_t dimension = minor_to_major[0];
    llvm::Value* start = out_rank == 1 ? function->getArg(1) : constant(0);
    llvm::Value* stop = out_rank == 1 ? function->getArg(2) : constant(out.dimensions(dimension));
    llvm::Value* groups = b.CreateUDiv(b.CreateSub(stop, start), constant(kGroup));
    llvm_ir::ForLoop group_loop = llvm_ir::ForLoop::Emit("group", constant(0), groups, &b);
    TS_RETURN_IF_ERROR(emit_group(
        kGroup, b.CreateAdd(start, b.CreateMul(group_loop.induction_variable(), constant(kGroup)))));
    group_loop.Finish(&b);
    llvm::Value* tail_start = b.CreateAdd(start, b.CreateMul(groups, constant(kGroup)));
    llvm_ir::ForLoop tail_loop = llvm_ir::ForLoop::Emit("tail", tail_start, stop, &b);
    TS_RETURN_IF_ERROR(emit_group(1, tail_loop.induction_variable()));
    tail_loop.Finish(&b);
  }
  for (auto it = out_loops.rbegin(); it != out_loops.rend(); ++it) it->Finish(&b);
  b.CreateRetVoid();

  auto kernel = std::unique_ptr<LoopKernel>(new LoopKernel());
  // A scalar result has no loop: the body runs once per call (work 1).
  kernel->work_size_ = out_rank == 0 ? 1 : out.dimensions(minor_to_major[out_rank - 1]);
  AddPending(std::move(module), name, kernel.get());
  return kernel;
}

}  // namespace cpu
}  // namespace tessera
