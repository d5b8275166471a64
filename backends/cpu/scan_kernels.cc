// Scanning kernels (loop_kernel_internal.h): a reduce-window that is a
// prefix or suffix scan (jnp.cumsum, cumprod, cummax, lax.cumsum with
// reverse=True, ...) computed with a running accumulator instead of a
// window per element.
#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/loop_kernel_internal.h"
#include "backends/llvm_ir/loop_emitter.h"
#include "hlo/ir/primitive_type.h"
#include "hlo/ir/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"

namespace tessera {
namespace cpu {
namespace {

// The dimension along which `window` folds every element up to the
// output's own position, or from it to the end (`reverse`), of an operand
// `dimensions` long: a window of size s with s - 1 padding, at least the
// dimension's length less one, on one side (low: a prefix scan; high: a
// suffix scan) and none on the other, stride 1, no dilation; every other
// dimension a window of one.  Dimension -1 if none.
struct ScanWindow {
  int64_t dimension = -1;
  bool reverse = false;
};

ScanWindow ScanDimension(const std::vector<WindowDimension>& window,
                         const std::vector<int64_t>& dimensions) {
  ScanWindow scan;
  for (size_t d = 0; d < window.size(); ++d) {
    const WindowDimension& w = window[d];
    if (w.stride != 1 || w.window_dilation != 1 || w.base_dilation != 1 || w.window_reversal) {
      return ScanWindow();
    }
    if (w.size == 1 && w.padding_low == 0 && w.padding_high == 0) continue;
    const bool prefix = w.padding_low == w.size - 1 && w.padding_high == 0;
    const bool suffix = w.padding_high == w.size - 1 && w.padding_low == 0;
    if (scan.dimension >= 0 || w.size < 2 || !(prefix || suffix) ||
        w.size - 1 < dimensions[d] - 1) {
      return ScanWindow();
    }
    scan.dimension = static_cast<int64_t>(d);
    scan.reverse = suffix;
  }
  return scan;
}

// Whether folding with `reducer` gives the same result in any order: a
// commutative, associative op of its two parameters (float sums and
// products only when `reorder_floats`; max and min up to which of two
// equal values, a zero's sign or a NaN's payload, they keep).
bool FoldsInAnyOrder(const HloComputation& reducer, bool reorder_floats) {
  const HloInstruction* root = reducer.root_instruction();
  if (root->operand_count() != 2 || root->operand(0)->opcode() != HloOpcode::kParameter ||
      root->operand(1)->opcode() != HloOpcode::kParameter || root->operand(0) == root->operand(1)) {
    return false;
  }
  const PrimitiveType type = root->shape().element_type();
  const bool inexact = !IsIntegralType(type) && type != PRED;
  switch (root->opcode()) {
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
      return !IsComplexType(type);
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      return !inexact;
    case HloOpcode::kAdd:
    case HloOpcode::kMultiply:
      return !inexact || reorder_floats;
    default:
      return false;
  }
}

}  // namespace

std::optional<ScanPlan> PlanScanKernel(const HloInstruction& root_instruction,
                                       const Shape& root_shape, bool reorder_floats) {
  const HloInstruction* root = &root_instruction;
  const int64_t rank = root_shape.rank();
  if (rank < 1) return std::nullopt;
  const absl::flat_hash_set<const HloInstruction*> at_root_index = InstructionsAtRootIndex(*root);
  for (const HloInstruction* h : at_root_index) {
    if (h->opcode() != HloOpcode::kReduceWindow || h->operand_count() != 2 ||
        !h->shape().IsArray() || h->shape().dimensions() != root_shape.dimensions() ||
        h->operand(0)->shape().dimensions() != root_shape.dimensions()) {
      continue;
    }
    const ScanWindow window = ScanDimension(h->window().dimensions, root_shape.dimensions());
    if (window.dimension < 0) continue;
    if (window.reverse && !FoldsInAnyOrder(*h->to_apply(), reorder_floats)) continue;
    const int64_t dimension = window.dimension;
    // Read once per element of the root, at its index, in the loops' order:
    // one use by each op up to the root (each read updates the
    // accumulator).
    bool read_once = true;
    for (const HloInstruction* x = h; x != root && read_once;) {
      if (x->user_count() != 1) {
        read_once = false;
        break;
      }
      const HloInstruction* user = x->users()[0];
      read_once = at_root_index.contains(user) && user->IsElementwise() &&
                  std::count(user->operands().begin(), user->operands().end(), x) == 1;
      x = user;
    }
    if (!read_once) continue;
    // One accumulator per position of the dimensions inside the scanned
    // one (in the root's layout), in the stack.
    const std::vector<int64_t> minor_to_major = llvm_ir::MinorToMajor(root_shape);
    ScanPlan plan;
    plan.reduce_window = h;
    plan.dimension = dimension;
    plan.reverse = window.reverse;
    int64_t stride = 1;
    plan.inner_strides.assign(rank, 0);
    for (int64_t d : minor_to_major) {
      if (d == dimension) break;
      plan.inner_strides[d] = stride;
      stride *= root_shape.dimensions(d);
    }
    plan.accumulators = stride;
    if (plan.accumulators > kMaxScanAccumulators) {
      if (h != root) continue;
      plan.reads_result = true;
      plan.accumulators = 0;
    }
    return plan;
  }
  return std::nullopt;
}

absl::StatusOr<llvm_ir::ElementGenerator> MakeScanGenerator(const ScanPlan& plan,
                                                            const llvm_ir::GeneratorMap& generators,
                                                            const llvm_ir::IrArray& result,
                                                            llvm_ir::ElementalIrEmitter* emitter,
                                                            llvm::IRBuilder<>* b) {
  const HloInstruction* hlo = plan.reduce_window;
  TS_RETURN_IF_ERROR(CheckScalarReducer(*hlo));
  TS_ASSIGN_OR_RETURN(llvm::Type * type,
                      llvm_ir::IrValueType(hlo->shape().element_type(), b->getContext()));
  llvm::Function* function = b->GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&function->getEntryBlock(), function->getEntryBlock().begin());
  llvm::AllocaInst* accumulators =
      plan.reads_result
          ? nullptr
          : entry.CreateAlloca(type, llvm::ConstantInt::get(b->getInt64Ty(), plan.accumulators),
                               absl::StrCat(hlo->name(), ".accumulators"));
  llvm_ir::ElementGenerator input = generators.at(hlo->operand(0));
  llvm_ir::ElementGenerator init = generators.at(hlo->operand(1));
  const HloComputation* reducer = hlo->to_apply();
  const ScanPlan scan = plan;
  return llvm_ir::ElementGenerator(
      [=](const llvm_ir::IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        // The first element of a scan (the last of a suffix scan) starts
        // from the init value; the others from the one before in the
        // scan's order (the loops run along the scanned dimension that
        // way: its accumulator slot, or its result, was last written by
        // that one).
        const int64_t extent = hlo->shape().dimensions(scan.dimension);
        llvm::Value* first =
            b->CreateICmpEQ(index[scan.dimension], index.Constant(scan.reverse ? extent - 1 : 0));
        TS_ASSIGN_OR_RETURN(llvm::Value * init_value, init(llvm_ir::IrIndex(index.index_type())));
        TS_ASSIGN_OR_RETURN(llvm::Value * x, input(index));
        if (scan.reads_result) {
          // At the first element, its own position (read, not used).
          std::vector<llvm::Value*> before_index = index.multi_index();
          before_index[scan.dimension] = b->CreateSelect(
              first, index[scan.dimension],
              b->CreateAdd(index[scan.dimension], index.Constant(scan.reverse ? 1 : -1)));
          TS_ASSIGN_OR_RETURN(
              llvm::Value * written,
              result.EmitRead(llvm_ir::IrIndex(before_index, result.shape(), index.index_type()),
                              b));
          return EmitReducer(*reducer, b->CreateSelect(first, init_value, written), x, emitter, b);
        }
        llvm::Value* position = index.Constant(0);
        for (int64_t d = 0; d < index.rank(); ++d) {
          if (scan.inner_strides[d] == 0) continue;
          position =
              b->CreateAdd(position, b->CreateMul(index[d], index.Constant(scan.inner_strides[d])));
        }
        llvm::Value* slot = b->CreateInBoundsGEP(type, accumulators, {position});
        llvm::Value* before = b->CreateSelect(first, init_value, b->CreateLoad(type, slot));
        TS_ASSIGN_OR_RETURN(llvm::Value * next, EmitReducer(*reducer, before, x, emitter, b));
        b->CreateStore(next, slot);
        return next;
      });
}

}  // namespace cpu
}  // namespace tessera
