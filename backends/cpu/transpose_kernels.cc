// Transposing kernels (loop_kernel_internal.h): which operand a fused
// computation reads across the result's rows, and the tiled loops that
// read it a cache-resident tile at a time.
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/loop_kernel_internal.h"
#include "backends/cpu/transpose_tile.h"
#include "backends/llvm_ir/loop_emitter.h"
#include "hlo/ir/status_macros.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/Support/ModRef.h"

namespace tessera {
namespace cpu {

using llvm_ir::IrArray;
using llvm_ir::IrIndex;

static_assert(kTransposeTile == kTransposeTileRoutineSize, "the tile routine's size");

namespace {

// For a bitcast whose result has its operand's dimensions in layout order
// (the same array in memory, its logical dimensions permuted: what layout
// assignment makes of a transpose), the root dimension each operand
// dimension carries, given the result's `mapping`; nullopt for other ops.
std::optional<std::vector<int64_t>> PhysicalBitcastMapping(const HloInstruction& h,
                                                           const std::vector<int64_t>& mapping) {
  if (h.opcode() != HloOpcode::kBitcast) return std::nullopt;
  const Shape& result = h.shape();
  const Shape& operand = h.operand(0)->shape();
  if (!operand.IsArray() || operand.rank() != result.rank()) return std::nullopt;
  const std::vector<int64_t> result_order = llvm_ir::MinorToMajor(result);
  const std::vector<int64_t> operand_order = llvm_ir::MinorToMajor(operand);
  std::vector<int64_t> operand_mapping(result.rank(), -1);
  for (int64_t k = 0; k < result.rank(); ++k) {
    if (result.dimensions(result_order[k]) != operand.dimensions(operand_order[k])) {
      return std::nullopt;
    }
    operand_mapping[operand_order[k]] = mapping[result_order[k]];
  }
  return operand_mapping;
}

}  // namespace

// Which root dimension each dimension of an instruction carries, propagated
// from the root to operands through elementwise ops (converts among them),
// copies, transposes and bitcasts that permute dimensions; other ops end
// the walk.  A parameter reached this way whose minor-most dimension (in
// its layout) carries a root dimension other than the root's minor-most one
// is read across the rows of the loops: the plan names that dimension, for
// the largest such parameter.
std::optional<TransposePlan> PlanTransposeKernel(const HloComputation& computation,
                                                 const HloInstruction& root_instruction,
                                                 const Shape& root_shape) {
  const int64_t rank = root_shape.rank();
  if (rank < 2) return std::nullopt;
  const std::vector<int64_t> root_minor_to_major = llvm_ir::MinorToMajor(root_shape);
  const int64_t minor = root_minor_to_major[0];
  using Mapping = std::vector<int64_t>;  // dimension of h -> root dimension
  absl::flat_hash_map<const HloInstruction*, Mapping> mapping;
  Mapping identity(rank);
  for (int64_t i = 0; i < rank; ++i) identity[i] = i;
  const HloInstruction* root = &root_instruction;
  if (root->shape().rank() != rank) return std::nullopt;
  mapping[root] = identity;
  std::optional<TransposePlan> plan;
  int64_t planned_elements = 0;
  const std::vector<HloInstruction*> order = computation.MakeInstructionPostOrder();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const HloInstruction* h = *it;
    auto found = mapping.find(h);
    if (found == mapping.end()) continue;
    const Mapping m = found->second;
    if (h->opcode() == HloOpcode::kParameter) {
      if (h->shape().rank() != rank) continue;
      const std::vector<int64_t> minor_to_major = llvm_ir::MinorToMajor(h->shape());
      const int64_t across = m[minor_to_major[0]];
      const int64_t elements = h->shape().ElementCount();
      if (across != minor && root_shape.dimensions(across) >= kTransposeTile / 2 &&
          elements > planned_elements) {
        plan = TransposePlan{across, minor, h, m};
        planned_elements = elements;
      }
      continue;
    }
    std::vector<std::pair<const HloInstruction*, Mapping>> next;
    if (h->opcode() == HloOpcode::kTranspose) {
      // Result dimension j is operand dimension dimensions()[j].
      Mapping operand(rank, -1);
      for (int64_t j = 0; j < rank; ++j) operand[h->dimensions()[j]] = m[j];
      next.push_back({h->operand(0), operand});
    } else if (const std::optional<Mapping> operand = PhysicalBitcastMapping(*h, m)) {
      next.push_back({h->operand(0), *operand});
    } else if (h->IsElementwise() || h->opcode() == HloOpcode::kCopy) {
      for (const HloInstruction* operand : h->operands()) {
        if (operand->shape().IsArray() && operand->shape().rank() == rank) {
          next.push_back({operand, m});
        }
      }
    }
    for (auto& [operand, operand_mapping] : next) {
      auto [slot, inserted] = mapping.try_emplace(operand, operand_mapping);
      // Read two ways (x + transpose(x)): either order has a strided read.
      if (!inserted && slot->second != operand_mapping) return std::nullopt;
    }
  }
  // Looping over the result in its order reads one cache line of the
  // operand per element of a result row.  Where the operand's minor
  // dimension is the result's second-minor one, the next 15 rows read those
  // lines again: rows of up to 256 elements keep them in L1 (a 4x64x56x56
  // NCHW to NHWC copy, rows of 64, ran 0.18-0.21 ms untiled and 0.23-0.25
  // tiled).  Otherwise the rows that reuse a line come after a whole run of
  // the dimensions between (a 16x1024x64 array reversed, rows of 16:
  // 1.86 ms untiled), so short rows are tiled too.
  if (plan.has_value() && root_shape.dimensions(minor) <= kTransposeTileMinRow &&
      plan->across == root_minor_to_major[1]) {
    return std::nullopt;
  }
  // Whether the operand is read only at the indices of the result's element
  // being computed (which a tile of it holds): every transitive user on the
  // walk.  (A broadcast or a reduce of it would read elsewhere.)
  if (plan.has_value() && !EveryUserUpTo(plan->parameter, root, [&](const HloInstruction* user) {
        return mapping.contains(user) &&
               (user->IsElementwise() || user->opcode() == HloOpcode::kCopy ||
                user->opcode() == HloOpcode::kTranspose || user->opcode() == HloOpcode::kBitcast);
      })) {
    // Tiles still, but the operand is read where it is.
    plan->parameter = nullptr;
    plan->parameter_to_root.clear();
  }
  return plan;
}

bool TransposesInRegisters(const TransposePlan& plan) {
  if (plan.parameter == nullptr) return false;
  switch (plan.parameter->shape().element_type()) {
    case PrimitiveType::F32:
    case PrimitiveType::S32:
    case PrimitiveType::U32:
      return true;
    default:
      return false;
  }
}

namespace {

// The dimension of the plan's operand that carries root dimension `root`.
int64_t OperandDimension(const TransposePlan& plan, int64_t root) {
  for (size_t d = 0; d < plan.parameter_to_root.size(); ++d) {
    if (plan.parameter_to_root[d] == root) return static_cast<int64_t>(d);
  }
  return -1;
}

// Has the tile routine (transpose_tile.h) write the whole tile of the
// plan's operand at (`across_first`, `minor_first`) (the other root
// dimensions at `multi_index`) to the tile's buffer, row `a` holding the
// 16 elements along `minor` at across offset `a`; and prefetches the rows
// of the tile `prefetch_offset` operand elements further on (0: none).
absl::Status EmitTileTranspose(const TransposePlan& plan, const IrArray& operand,
                               const std::vector<llvm::Value*>& multi_index,
                               llvm::Value* across_first, llvm::Value* minor_first,
                               int64_t prefetch_offset, const TransposedTile& tile,
                               llvm::IRBuilder<>* b) {
  llvm::Type* i64 = b->getInt64Ty();
  const Shape& operand_shape = plan.parameter->shape();
  std::vector<llvm::Value*> index(operand_shape.rank());
  for (int64_t d = 0; d < operand_shape.rank(); ++d) {
    const int64_t root = plan.parameter_to_root[d];
    index[d] = root == plan.across  ? across_first
               : root == plan.minor ? minor_first
                                    : multi_index[root];
  }
  TS_ASSIGN_OR_RETURN(llvm::Value * source,
                      operand.EmitElementPointer(IrIndex(index, operand_shape, i64), b));
  TS_ASSIGN_OR_RETURN(std::vector<int64_t> strides, llvm_ir::LayoutStrides(operand_shape));
  const int64_t row_stride = strides[OperandDimension(plan, plan.minor)];
  llvm::LLVMContext& context = b->getContext();
  llvm::Type* pointer = llvm::PointerType::get(context, 0);
  llvm::Module* module = b->GetInsertBlock()->getModule();
  llvm::FunctionCallee routine = module->getOrInsertFunction(
      kTransposeTileRoutine,
      llvm::FunctionType::get(b->getVoidTy(), {pointer, i64, pointer}, /*isVarArg=*/false));
  if (auto* function = llvm::dyn_cast<llvm::Function>(routine.getCallee())) {
    // It touches only the memory its arguments point to, so the optimizer
    // keeps the kernel's other loads and stores where they are.
    function->setDoesNotThrow();
    function->setWillReturn();
    function->setMemoryEffects(llvm::MemoryEffects::argMemOnly());
    function->addParamAttr(0, llvm::Attribute::NoCapture);
    function->addParamAttr(0, llvm::Attribute::ReadOnly);
    function->addParamAttr(2, llvm::Attribute::NoCapture);
    function->addParamAttr(2, llvm::Attribute::WriteOnly);
  }
  b->CreateCall(routine, {source, llvm::ConstantInt::get(i64, row_stride), tile.buffer});
  if (prefetch_offset != 0) {
    // After the tile's own loads, which go first (before them: x.T + y of
    // 2048x2048 15-25% slower).  A prefetch does not fault: past the
    // operand's end it only costs a request.
    llvm::Function* prefetch =
        llvm::Intrinsic::getDeclaration(module, llvm::Intrinsic::prefetch, {pointer});
    for (int64_t row = 0; row < kTransposeTile; ++row) {
      llvm::Value* ahead =
          b->CreateGEP(tile.element_type, source,
                       {llvm::ConstantInt::get(i64, row * row_stride + prefetch_offset)});
      b->CreateCall(prefetch, {ahead, b->getInt32(0), b->getInt32(3), b->getInt32(1)});
    }
  }
  return absl::OkStatus();
}

}  // namespace

llvm_ir::ElementGenerator MakeTransposedTileGenerator(const TransposePlan& plan,
                                                      const IrArray& operand,
                                                      std::shared_ptr<TransposedTile> tile,
                                                      llvm::IRBuilder<>* b) {
  const int64_t across = OperandDimension(plan, plan.across);
  const int64_t minor = OperandDimension(plan, plan.minor);
  return [operand, tile, across, minor, b](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    if (!tile->active) return operand.EmitRead(index, b);
    llvm::Value* a = b->CreateSub(index[across], tile->across_first);
    llvm::Value* m = b->CreateSub(index[minor], tile->minor_first);
    llvm::Value* offset =
        b->CreateAdd(b->CreateMul(a, llvm::ConstantInt::get(a->getType(), kTransposeTile)), m);
    return static_cast<llvm::Value*>(b->CreateLoad(
        tile->element_type, b->CreateInBoundsGEP(tile->element_type, tile->buffer, {offset})));
  };
}

absl::Status EmitTransposeTiles(const TransposePlan& plan, const Shape& shape, llvm::Value* begin,
                                llvm::Value* end, const llvm_ir::ElementGenerator& generator,
                                const IrArray& result, const std::shared_ptr<TransposedTile>& tile,
                                const IrArray* operand, llvm::IRBuilder<>* b) {
  llvm::Type* i64 = b->getInt64Ty();
  auto constant = [&](int64_t v) -> llvm::Value* { return llvm::ConstantInt::get(i64, v); };
  TS_ASSIGN_OR_RETURN(std::vector<int64_t> strides, llvm_ir::LayoutStrides(shape));
  const std::vector<int64_t> minor_to_major = llvm_ir::MinorToMajor(shape);
  const int64_t rank = shape.rank();
  if (minor_to_major[0] != plan.minor) return absl::InternalError("transpose plan's minor");
  if (tile != nullptr) {
    if (operand == nullptr || !TransposesInRegisters(plan)) {
      return absl::InternalError("a register tile without its operand");
    }
    // The tile's buffer, in the function's entry block (one per kernel).
    llvm::Function* function = b->GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&function->getEntryBlock(), function->getEntryBlock().begin());
    TS_ASSIGN_OR_RETURN(
        tile->element_type,
        llvm_ir::IrMemoryType(plan.parameter->shape().element_type(), b->getContext()));
    llvm::AllocaInst* buffer = entry.CreateAlloca(
        tile->element_type, constant(kTransposeTile * kTransposeTile), "transposed_tile");
    buffer->setAlignment(llvm::Align(64));
    tile->buffer = buffer;
  }
  std::vector<llvm::Value*> multi_index(rank, nullptr);
  std::vector<llvm_ir::ForLoop> loops;
  llvm::Value* across_first = nullptr;
  llvm::Value* across_stop = nullptr;
  // The loops over every dimension but the minor one, major to minor; the
  // `across` one by tiles (the major-most runs from begin to end: a
  // thread's share).
  for (int64_t k = rank - 1; k >= 1; --k) {
    const int64_t d = minor_to_major[k];
    llvm::Value* start = k == rank - 1 ? begin : constant(0);
    llvm::Value* stop = k == rank - 1 ? end : constant(shape.dimensions(d));
    if (d == plan.across) {
      llvm::Value* tiles =
          b->CreateUDiv(b->CreateAdd(b->CreateSub(stop, start), constant(kTransposeTile - 1)),
                        constant(kTransposeTile));
      loops.push_back(llvm_ir::ForLoop::Emit("across.tile", constant(0), tiles, b));
      across_first = b->CreateAdd(
          start, b->CreateMul(loops.back().induction_variable(), constant(kTransposeTile)));
      llvm::Value* tile_stop = b->CreateAdd(across_first, constant(kTransposeTile));
      across_stop = b->CreateSelect(b->CreateICmpULT(tile_stop, stop), tile_stop, stop);
    } else {
      loops.push_back(llvm_ir::ForLoop::Emit(absl::StrCat("d", d), start, stop, b));
      multi_index[d] = loops.back().induction_variable();
    }
  }
  // The loops over one tile's elements: rows along `across` from
  // `across_first` to `stop`, each `width` elements of the minor dimension
  // from `minor_first` (a constant trip count the vectorizer covers with
  // whole vectors).
  auto emit_elements = [&](llvm::Value* stop, llvm::Value* minor_first,
                           int64_t width) -> absl::Status {
    llvm_ir::ForLoop row = llvm_ir::ForLoop::Emit("across", across_first, stop, b);
    multi_index[plan.across] = row.induction_variable();
    // The minor index itself is the induction variable: an offset added to
    // a tile's multiple of 16 became a bitwise or, which the vectorizer
    // took for a non-consecutive address (a scatter per vector).
    llvm_ir::ForLoop element = llvm_ir::ForLoop::Emit(
        "minor", minor_first,
        b->CreateAdd(minor_first, constant(width), "", /*HasNUW=*/true, /*HasNSW=*/true), b);
    multi_index[plan.minor] = element.induction_variable();
    llvm::Value* linear = constant(0);
    for (int64_t d = 0; d < rank; ++d) {
      linear = b->CreateAdd(linear,
                            b->CreateMul(multi_index[d], constant(strides[d]), "",
                                         /*HasNUW=*/true, /*HasNSW=*/true),
                            "", /*HasNUW=*/true, /*HasNSW=*/true);
    }
    IrIndex index(multi_index, shape, i64, linear);
    TS_ASSIGN_OR_RETURN(llvm::Value * value, generator(index));
    TS_RETURN_IF_ERROR(result.EmitWrite(index, value, b));
    element.Finish(b);
    row.Finish(b);
    return absl::OkStatus();
  };
  // Where a tile a few iterations of the loop around the tile routine's
  // calls on lies in the operand: its rows are prefetched.  A tile's 16
  // rows are 16 streams a row stride apart, each read a tile's width per
  // iteration, which the hardware prefetchers do not follow.  Along the
  // minor dimension's tiles, the next tile is the 16 rows below (a
  // column-major x.T + y of 2048x2048: 1.31-1.40 -> 1.09-1.17 ms); further
  // ahead was slower there (x.T + y of 2048x2048 20 -> 14 GB/s eight tiles
  // ahead), its rows filling the same cache sets at power-of-two strides.
  // With one minor tile, the loop around the calls is another dimension's,
  // whose next tile is the next 16-element piece of the same rows, eight
  // iterations ahead (a [16,16384,64] array laid out {0,1,2} from {2,1,0},
  // a 1-D convolution weight gradient's relayout, 10.8 -> 27 GB/s; a copy
  // moves 58; in a 1-D convolutional net's training step that relayout went
  // 0.85 -> 0.23 ms).
  int64_t prefetch_offset = 0;
  if (tile != nullptr) {
    TS_ASSIGN_OR_RETURN(std::vector<int64_t> operand_strides,
                        llvm_ir::LayoutStrides(plan.parameter->shape()));
    const int64_t row_stride = operand_strides[OperandDimension(plan, plan.minor)];
    if (shape.dimensions(plan.minor) / kTransposeTile > 1 || rank < 2) {
      prefetch_offset = kTransposeTile * row_stride;
    } else {
      const int64_t loop_dimension = minor_to_major[1];
      const int64_t carrier = OperandDimension(plan, loop_dimension);
      const int64_t step = loop_dimension == plan.across ? kTransposeTile : 1;
      if (carrier >= 0) prefetch_offset = 8 * step * operand_strides[carrier];
    }
  }
  // A tile of the full width: transposed in registers when its rows are
  // whole too (not at a thread's or the result's edge), else read in place.
  auto emit_tile = [&](llvm::Value* minor_first, int64_t width) -> absl::Status {
    if (tile == nullptr || width != kTransposeTile) {
      return emit_elements(across_stop, minor_first, width);
    }
    llvm::Function* function = b->GetInsertBlock()->getParent();
    llvm::LLVMContext& context = b->getContext();
    auto* in_registers = llvm::BasicBlock::Create(context, "tile.registers", function);
    auto* in_place = llvm::BasicBlock::Create(context, "tile.in_place", function);
    auto* done = llvm::BasicBlock::Create(context, "tile.done", function);
    b->CreateCondBr(
        b->CreateICmpEQ(b->CreateSub(across_stop, across_first), constant(kTransposeTile)),
        in_registers, in_place);
    b->SetInsertPoint(in_registers);
    TS_RETURN_IF_ERROR(EmitTileTranspose(plan, *operand, multi_index, across_first, minor_first,
                                         prefetch_offset, *tile, b));
    tile->across_first = across_first;
    tile->minor_first = minor_first;
    tile->active = true;
    absl::Status status = emit_elements(across_stop, minor_first, width);
    tile->active = false;
    TS_RETURN_IF_ERROR(status);
    b->CreateBr(done);
    // A tile cut short, at the end of the dimension or of a thread's range.
    b->SetInsertPoint(in_place);
    TS_RETURN_IF_ERROR(emit_elements(across_stop, minor_first, width));
    b->CreateBr(done);
    b->SetInsertPoint(done);
    return absl::OkStatus();
  };
  const int64_t minor_size = shape.dimensions(plan.minor);
  const int64_t whole_tiles = minor_size / kTransposeTile;
  if (whole_tiles > 0) {
    llvm_ir::ForLoop minor_tile =
        llvm_ir::ForLoop::Emit("minor.tile", constant(0), constant(whole_tiles), b);
    TS_RETURN_IF_ERROR(emit_tile(
        b->CreateMul(minor_tile.induction_variable(), constant(kTransposeTile)), kTransposeTile));
    minor_tile.Finish(b);
  }
  if (minor_size % kTransposeTile != 0) {
    TS_RETURN_IF_ERROR(
        emit_tile(constant(whole_tiles * kTransposeTile), minor_size % kTransposeTile));
  }
  for (auto it = loops.rbegin(); it != loops.rend(); ++it) it->Finish(b);
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace tessera
