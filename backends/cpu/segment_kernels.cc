// Segmented kernels (loop_kernel_internal.h): which concatenate or pad a
// fused computation may compute one segment of the result's rows at a time.
#include <algorithm>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "backends/cpu/loop_kernel_internal.h"
#include "backends/llvm_ir/elemental_ir_emitter.h"
#include "backends/llvm_ir/loop_emitter.h"
#include "hlo/ir/status_macros.h"

namespace tessera {
namespace cpu {
namespace {

// Whether `hlo` picks its elements along `minor` in segments: a concatenate
// along it, or a pad without interior padding along it.
bool PicksAlong(const HloInstruction& hlo, int64_t minor) {
  if (hlo.opcode() == HloOpcode::kConcatenate) {
    return hlo.dimensions().size() == 1 && hlo.dimensions(0) == minor;
  }
  if (hlo.opcode() != HloOpcode::kPad || hlo.operand_count() != 2 ||
      !hlo.attrs().padding_config.has_value()) {
    return false;
  }
  const std::vector<PaddingDimension>& padding = hlo.padding_config().dimensions;
  return static_cast<int64_t>(padding.size()) == hlo.shape().rank() &&
         padding[minor].interior_padding == 0 && hlo.operand(0)->shape().dimensions(minor) > 0;
}

}  // namespace

// A concatenate or pad among the instructions the root reads at its own
// index, along the root's minor-most dimension, whose every transitive user
// is among them too (nothing reads it elsewhere), is planned.
std::optional<SegmentPlan> PlanSegmentedKernel(const HloInstruction& root_instruction,
                                               const Shape& root_shape) {
  const HloInstruction* root = &root_instruction;
  const int64_t rank = root_shape.rank();
  if (rank < 1 || root->shape().rank() != rank) return std::nullopt;
  const int64_t minor = llvm_ir::MinorToMajor(root_shape)[0];
  const absl::flat_hash_set<const HloInstruction*> at_root_index = InstructionsAtRootIndex(*root);
  const HloInstruction* picker = nullptr;
  for (const HloInstruction* h : at_root_index) {
    if (PicksAlong(*h, minor)) {
      picker = h;
      break;
    }
  }
  if (picker == nullptr) return std::nullopt;
  // Read only at the root's index: every transitive user on the walk.
  if (!EveryUserUpTo(picker, root, [&](const HloInstruction* user) {
        return at_root_index.contains(user) && user->IsElementwise();
      })) {
    return std::nullopt;
  }
  SegmentPlan plan;
  plan.picker = picker;
  plan.dimension = minor;
  const int64_t extent = root_shape.dimensions(minor);
  if (picker->opcode() == HloOpcode::kPad) {
    // Padding, the operand (cut where an edge is negative), padding.
    const PaddingDimension& padding = picker->padding_config().dimensions[minor];
    const int64_t first = std::clamp<int64_t>(padding.edge_padding_low, 0, extent);
    const int64_t last = std::clamp<int64_t>(
        padding.edge_padding_low + picker->operand(0)->shape().dimensions(minor), first, extent);
    plan.offsets = {0, first, last};
    plan.sizes = {first, last - first, extent - last};
    plan.sources = {1, 0, 1};
    return plan;
  }
  const int64_t count = picker->operand_count();
  if (count < 2 || count > kMaxSegments) return std::nullopt;
  int64_t offset = 0;
  for (const HloInstruction* operand : picker->operands()) {
    if (operand->shape().rank() != rank) return std::nullopt;
    plan.offsets.push_back(offset);
    plan.sizes.push_back(operand->shape().dimensions(minor));
    plan.sources.push_back(static_cast<int64_t>(plan.sources.size()));
    offset += operand->shape().dimensions(minor);
  }
  if (offset != extent) return std::nullopt;
  return plan;
}

llvm_ir::ElementGenerator MakeSegmentGenerator(const SegmentPlan& plan,
                                               llvm_ir::ElementGenerator whole,
                                               std::vector<llvm_ir::ElementGenerator> operands,
                                               std::shared_ptr<const int64_t> segment,
                                               llvm::IRBuilder<>* b) {
  const HloInstruction* picker = plan.picker;
  std::vector<Shape> shapes;
  for (const HloInstruction* operand : picker->operands()) shapes.push_back(operand->shape());
  const std::vector<int64_t> offsets = plan.offsets;
  const std::vector<int64_t> sources = plan.sources;
  const int64_t dimension = plan.dimension;
  return [whole, operands, segment, shapes, offsets, sources, dimension, picker,
          b](const llvm_ir::IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    if (*segment < 0) return whole(index);
    const int64_t source = sources[*segment];
    if (picker->opcode() == HloOpcode::kPad) {
      TS_ASSIGN_OR_RETURN(llvm::Value * padding_value,
                          operands[1](llvm_ir::IrIndex(index.index_type())));
      if (source == 1) return padding_value;
      // Inside along the segment's dimension; the others may still pad.
      const llvm_ir::PadSource from = llvm_ir::PadSourceIndex(*picker, index, dimension, b);
      TS_ASSIGN_OR_RETURN(
          llvm::Value * value,
          operands[0](llvm_ir::IrIndex(from.operand_index, shapes[0], index.index_type())));
      return b->CreateSelect(from.inside, value, padding_value);
    }
    std::vector<llvm::Value*> at = index.multi_index();
    at[dimension] = b->CreateSub(index[dimension], index.Constant(offsets[*segment]), "",
                                 /*HasNUW=*/true, /*HasNSW=*/true);
    return operands[source](llvm_ir::IrIndex(at, shapes[source], index.index_type()));
  };
}

}  // namespace cpu
}  // namespace tessera
