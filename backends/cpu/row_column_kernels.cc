// Row and column kernel plans (loop_kernel_internal.h): which reduces a
// fused computation may compute once per row, or per tile of columns, and
// the column tiles' loops.
#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/loop_kernel_internal.h"
#include "backends/llvm_ir/loop_emitter.h"
#include "hlo/ir/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"

namespace tessera {
namespace cpu {

using llvm_ir::IrArray;
using llvm_ir::IrIndex;


// Which dimension of each instruction carries each row dimension of the
// root (-1: none), propagated from the root to operands.  Nullopt unless
// `computation` is a row kernel: some reduce is read other than
// elementwise; every reduce has as many dimensions as the root has row
// dimensions and they carry the rows in order (so whoever reads it reads
// the current row's value), or does not depend on the row and is read
// once per element; row dimensions pass only through elementwise ops,
// broadcasts and reduces; and the rows are the root's major-most
// dimensions in its layout.
std::optional<RowPlan> PlanRowKernel(const HloComputation& computation, const Shape& root_shape) {
  const std::vector<HloInstruction*> order = computation.MakeInstructionPostOrder();
  int64_t rows = -1;
  bool needed = false;
  for (const HloInstruction* h : order) {
    if (h->opcode() != HloOpcode::kReduce || !h->shape().IsArray()) continue;
    if (ReadOncePerElement(h)) continue;
    needed = true;
    if (rows >= 0 && rows != h->shape().rank()) return std::nullopt;
    rows = h->shape().rank();
  }
  if (!needed || rows <= 0 || root_shape.rank() < rows) return std::nullopt;
  const std::vector<int64_t> minor_to_major = llvm_ir::MinorToMajor(root_shape);
  for (int64_t i = 0; i < rows; ++i) {
    if (minor_to_major[root_shape.rank() - 1 - i] != i) return std::nullopt;
  }
  using Mapping = std::vector<int64_t>;
  const Mapping none(rows, -1);
  absl::flat_hash_map<const HloInstruction*, Mapping> mapping;
  Mapping identity(rows);
  for (int64_t i = 0; i < rows; ++i) identity[i] = i;
  mapping[computation.root_instruction()] = identity;
  auto assign = [&](const HloInstruction* operand, const Mapping& m) {
    auto [it, inserted] = mapping.try_emplace(operand, m);
    return inserted || it->second == m;
  };
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const HloInstruction* h = *it;
    auto found = mapping.find(h);
    if (found == mapping.end()) {
      // An unused parameter: one output of a multi-output fusion, computed
      // on its own, keeps all the fusion's parameters.
      if (h->opcode() == HloOpcode::kParameter && h->users().empty()) continue;
      return std::nullopt;
    }
    const Mapping m = found->second;
    // An iota reads nothing: its value is its index, whichever dimensions
    // are the rows'.
    if (h->opcode() == HloOpcode::kParameter || h->opcode() == HloOpcode::kConstant ||
        h->opcode() == HloOpcode::kIota) {
      continue;
    }
    if (h->opcode() == HloOpcode::kBroadcast) {
      Mapping operand_m(rows, -1);
      const std::vector<int64_t>& dims = h->dimensions();
      for (int64_t i = 0; i < rows; ++i) {
        for (size_t j = 0; m[i] >= 0 && j < dims.size(); ++j) {
          if (dims[j] == m[i]) operand_m[i] = static_cast<int64_t>(j);
        }
      }
      if (!assign(h->operand(0), operand_m)) return std::nullopt;
    } else if (h->opcode() == HloOpcode::kReduce) {
      if (h->operand_count() != 2) return std::nullopt;
      std::vector<int64_t> kept;
      const std::vector<int64_t>& reduced = h->dimensions();
      for (int64_t d = 0; d < h->operand(0)->shape().rank(); ++d) {
        if (std::find(reduced.begin(), reduced.end(), d) == reduced.end()) kept.push_back(d);
      }
      Mapping operand_m(rows, -1);
      for (int64_t i = 0; i < rows; ++i) {
        if (m[i] >= 0) operand_m[i] = kept[m[i]];
      }
      if (!assign(h->operand(0), operand_m) || !assign(h->operand(1), none)) return std::nullopt;
    } else if (h->IsElementwise()) {
      for (const HloInstruction* operand : h->operands()) {
        // Operands have the op's dimensions, or are scalars (clamp's bounds).
        const bool same = operand->shape().dimensions() == h->shape().dimensions();
        if (!same && operand->shape().rank() != 0) return std::nullopt;
        if (!assign(operand, same ? m : none)) return std::nullopt;
      }
    } else {
      if (m != none) return std::nullopt;
      for (const HloInstruction* operand : h->operands()) {
        if (!assign(operand, none)) return std::nullopt;
      }
    }
  }
  RowPlan plan;
  plan.rows = rows;
  plan.row_elements = 1;
  for (int64_t d = rows; d < root_shape.rank(); ++d) plan.row_elements *= root_shape.dimensions(d);
  for (const HloInstruction* h : order) {
    if (h->opcode() != HloOpcode::kReduce) continue;
    const Mapping& m = mapping.at(h);
    if (m == identity && h->shape().rank() == rows) {
      plan.reduces.push_back(h);
      const HloInstruction* input = h->operand(0);
      const bool in_row = input->shape().dimensions() == root_shape.dimensions() &&
                          mapping.at(input) == identity && root_shape.rank() > rows;
      if (in_row && input->user_count() > 1 && input->opcode() != HloOpcode::kParameter &&
          input->opcode() != HloOpcode::kConstant &&
          std::find(plan.kept.begin(), plan.kept.end(), input) == plan.kept.end()) {
        plan.kept.push_back(input);
      }
    } else if (m != none || !ReadOncePerElement(h)) {
      return std::nullopt;
    }
  }
  // A row too long for a stack scratch keeps nothing (it is recomputed).
  if (plan.row_elements * 8 > (int64_t{256} << 10)) plan.kept.clear();
  return plan;
}


std::optional<ColumnPlan> PlanColumnKernel(const HloComputation& computation,
                                           const Shape& root_shape) {
  const HloInstruction* reduce = nullptr;
  for (const HloInstruction* h : computation.instructions()) {
    if (h->opcode() != HloOpcode::kReduce) continue;
    if (reduce != nullptr) return std::nullopt;
    reduce = h;
  }
  if (reduce == nullptr || reduce->operand_count() != 2 || !reduce->shape().IsArray() ||
      reduce->shape().rank() == 0 ||
      reduce->shape().dimensions() != root_shape.dimensions()) {
    return std::nullopt;
  }
  // Only elementwise ops between the reduce and the root: one index space.
  std::vector<const HloInstruction*> stack = {reduce};
  while (!stack.empty()) {
    const HloInstruction* h = stack.back();
    stack.pop_back();
    for (const HloInstruction* user : h->users()) {
      if (!user->IsElementwise() || user->shape().dimensions() != root_shape.dimensions()) {
        return std::nullopt;
      }
      stack.push_back(user);
    }
  }
  const Shape& input = reduce->operand(0)->shape();
  const int64_t input_minor = llvm_ir::MinorToMajor(input)[0];
  const std::vector<int64_t>& reduced = reduce->dimensions();
  if (std::find(reduced.begin(), reduced.end(), input_minor) != reduced.end()) {
    return std::nullopt;
  }
  ColumnPlan plan;
  plan.reduce = reduce;
  plan.input_minor = input_minor;
  for (int64_t d = 0; d < input_minor; ++d) {
    if (std::find(reduced.begin(), reduced.end(), d) == reduced.end()) ++plan.result_minor;
  }
  if (llvm_ir::MinorToMajor(root_shape)[0] != plan.result_minor) return std::nullopt;
  return plan;
}

// Column kernels over at most this many minor elements (known when the
// kernel is emitted) keep each element's accumulator in a register.
constexpr int64_t kNarrowColumns = 16;

// The operand's index for a column kernel: kept dimensions from the
// result's `multi_index`, reduced ones from new loops (appended to
// `reduce_loops`, outermost first), the minor one left for the caller.
std::vector<llvm::Value*> ColumnInputIndex(const ColumnPlan& plan,
                                           const std::vector<llvm::Value*>& multi_index,
                                           std::vector<llvm_ir::ForLoop>* reduce_loops,
                                           llvm::IRBuilder<>* b) {
  const HloInstruction* reduce = plan.reduce;
  const Shape& input_shape = reduce->operand(0)->shape();
  const int64_t rank = input_shape.rank();
  std::vector<bool> reduced(rank, false);
  for (int64_t d : reduce->dimensions()) reduced[d] = true;
  std::vector<llvm::Value*> input_index(rank, nullptr);
  int64_t kept = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) input_index[d] = multi_index[kept++];
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) continue;
    reduce_loops->push_back(llvm_ir::ForLoop::Emit(absl::StrCat("column.r", d), b->getInt64(0),
                                                   b->getInt64(input_shape.dimensions(d)), b));
    input_index[d] = reduce_loops->back().induction_variable();
  }
  return input_index;
}

// EmitColumnTiles for `width` <= kNarrowColumns minor elements from
// `start`: one scalar alloca per element, which SROA makes a register
// across the reduced loops.  Through the tile's array, whose slots the
// lane loop indexes by a variable, each row's add waited for the previous
// row's (masked) store: a sum over the middle of 33x1000x7 took 0.15 ms
// (XLA 0.11).  The sums are copied to the array once, for the epilogue.
absl::Status EmitNarrowColumns(const ColumnPlan& plan, llvm::Value* start, int64_t width,
                               std::vector<llvm::Value*> multi_index, llvm::Value* linear,
                               int64_t minor_stride, const Shape& shape,
                               llvm::AllocaInst* accumulators,
                               const std::shared_ptr<llvm::Value*>& tile_start,
                               const llvm_ir::ElementGenerator& input,
                               const llvm_ir::ElementGenerator& init,
                               const llvm_ir::ElementGenerator& root, const IrArray& result,
                               llvm_ir::ElementalIrEmitter* emitter, llvm::IRBuilder<>* b) {
  llvm::Type* i64 = b->getInt64Ty();
  llvm::Type* type = accumulators->getAllocatedType();
  const HloInstruction* reduce = plan.reduce;
  const Shape& input_shape = reduce->operand(0)->shape();
  std::vector<llvm::AllocaInst*> lanes;
  {
    llvm::BasicBlock& block = accumulators->getFunction()->getEntryBlock();
    llvm::IRBuilder<> entry(&block, block.begin());
    for (int64_t j = 0; j < width; ++j) {
      lanes.push_back(entry.CreateAlloca(type, nullptr, absl::StrCat("column_lane", j)));
    }
  }
  *tile_start = start;
  TS_ASSIGN_OR_RETURN(llvm::Value * init_value, init(IrIndex(i64)));
  for (llvm::AllocaInst* lane : lanes) b->CreateStore(init_value, lane);
  std::vector<llvm_ir::ForLoop> reduce_loops;
  std::vector<llvm::Value*> input_index = ColumnInputIndex(plan, multi_index, &reduce_loops, b);
  for (int64_t j = 0; j < width; ++j) {
    input_index[plan.input_minor] = b->CreateAdd(start, b->getInt64(j));
    TS_ASSIGN_OR_RETURN(llvm::Value * x, input(IrIndex(input_index, input_shape, i64)));
    llvm::Value* accumulator = b->CreateLoad(type, lanes[j]);
    TS_ASSIGN_OR_RETURN(llvm::Value * next,
                        EmitReducer(*reduce->to_apply(), accumulator, x, emitter, b));
    b->CreateStore(next, lanes[j]);
  }
  for (auto it = reduce_loops.rbegin(); it != reduce_loops.rend(); ++it) it->Finish(b);
  for (int64_t j = 0; j < width; ++j) {
    b->CreateStore(b->CreateLoad(type, lanes[j]),
                   b->CreateInBoundsGEP(type, accumulators, {b->getInt64(j)}));
  }
  for (int64_t j = 0; j < width; ++j) {
    llvm::Value* position = b->CreateAdd(start, b->getInt64(j));
    multi_index[plan.result_minor] = position;
    llvm::Value* at = b->CreateAdd(linear, b->CreateMul(position, b->getInt64(minor_stride)));
    const IrIndex index(multi_index, shape, i64, at);
    TS_ASSIGN_OR_RETURN(llvm::Value * value, root(index));
    TS_RETURN_IF_ERROR(result.EmitWrite(index, value, b));
  }
  *tile_start = nullptr;
  return absl::OkStatus();
}

// The loops of a column kernel over the result's minor dimension, from
// `start` to `stop`, inside the loops over its other dimensions (whose
// indices are in `multi_index`, their part of the linear position in
// `linear`): per tile, init, fold (reduced dimensions outermost, row-major;
// the tile's elements innermost), then the epilogue and the stores.
absl::Status EmitColumnTiles(const ColumnPlan& plan, llvm::Value* start, llvm::Value* stop,
                             std::vector<llvm::Value*> multi_index, llvm::Value* linear,
                             int64_t minor_stride, const Shape& shape,
                             llvm::AllocaInst* accumulators,
                             const std::shared_ptr<llvm::Value*>& tile_start,
                             const llvm_ir::ElementGenerator& input,
                             const llvm_ir::ElementGenerator& init,
                             const llvm_ir::ElementGenerator& root, const IrArray& result,
                             llvm_ir::ElementalIrEmitter* emitter, llvm::IRBuilder<>* b) {
  llvm::Type* i64 = b->getInt64Ty();
  auto constant = [&](int64_t v) -> llvm::Value* { return llvm::ConstantInt::get(i64, v); };
  const HloInstruction* reduce = plan.reduce;
  const Shape input_shape = reduce->operand(0)->shape();
  llvm::Type* type = accumulators->getAllocatedType();
  auto slot = [&](llvm::Value* j) { return b->CreateInBoundsGEP(type, accumulators, {j}); };
  llvm::Value* count = b->CreateSub(stop, start);
  if (auto* narrow = llvm::dyn_cast<llvm::ConstantInt>(count);
      narrow != nullptr && narrow->getSExtValue() <= kNarrowColumns) {
    return EmitNarrowColumns(plan, start, narrow->getSExtValue(), std::move(multi_index), linear,
                             minor_stride, shape, accumulators, tile_start, input, init, root,
                             result, emitter, b);
  }
  llvm::Value* tiles = b->CreateUDiv(b->CreateAdd(count, constant(kColumnTile - 1)),
                                     constant(kColumnTile));
  llvm_ir::ForLoop tile = llvm_ir::ForLoop::Emit("tile", constant(0), tiles, b);
  llvm::Value* first = b->CreateAdd(start, b->CreateMul(tile.induction_variable(),
                                                        constant(kColumnTile)));
  llvm::Value* left = b->CreateSub(stop, first);
  llvm::Value* width = b->CreateSelect(b->CreateICmpULT(left, constant(kColumnTile)), left,
                                       constant(kColumnTile));
  *tile_start = first;
  TS_ASSIGN_OR_RETURN(llvm::Value * init_value, init(IrIndex(i64)));
  {
    llvm_ir::ForLoop fill = llvm_ir::ForLoop::Emit("fill", constant(0), width, b);
    b->CreateStore(init_value, slot(fill.induction_variable()));
    fill.FoldTailByMasking();
    fill.Finish(b);
  }
  // The operand's index: kept dimensions from the result's, reduced ones
  // from their loops, the minor one from the tile.
  std::vector<llvm_ir::ForLoop> reduce_loops;
  std::vector<llvm::Value*> input_index = ColumnInputIndex(plan, multi_index, &reduce_loops, b);
  {
    llvm_ir::ForLoop lane = llvm_ir::ForLoop::Emit("lane", constant(0), width, b);
    llvm::Value* j = lane.induction_variable();
    input_index[plan.input_minor] = b->CreateAdd(first, j);
    TS_ASSIGN_OR_RETURN(llvm::Value * x, input(IrIndex(input_index, input_shape, i64)));
    llvm::Value* accumulator = b->CreateLoad(type, slot(j));
    TS_ASSIGN_OR_RETURN(llvm::Value * next,
                        EmitReducer(*reduce->to_apply(), accumulator, x, emitter, b));
    b->CreateStore(next, slot(j));
    // Not folded by masking, unlike the loops once per tile around it: its
    // masked stores ran the 4096x2048 column sum at 1.02 ms against 0.58 ms
    // with a vector epilogue and a scalar remainder (Zen 5).
    lane.Finish(b);
  }
  for (auto it = reduce_loops.rbegin(); it != reduce_loops.rend(); ++it) it->Finish(b);
  {
    llvm_ir::ForLoop lane = llvm_ir::ForLoop::Emit("store", constant(0), width, b);
    llvm::Value* position = b->CreateAdd(first, lane.induction_variable());
    multi_index[plan.result_minor] = position;
    llvm::Value* at = b->CreateAdd(linear, b->CreateMul(position, constant(minor_stride)));
    const IrIndex index(multi_index, shape, i64, at);
    TS_ASSIGN_OR_RETURN(llvm::Value * value, root(index));
    TS_RETURN_IF_ERROR(result.EmitWrite(index, value, b));
    lane.FoldTailByMasking();
    lane.Finish(b);
  }
  tile.Finish(b);
  *tile_start = nullptr;
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace tessera
