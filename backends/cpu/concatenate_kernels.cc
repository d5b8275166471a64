// Concatenating kernels (loop_kernel_internal.h): which concatenate a fused
// computation may compute one operand at a time along the result's rows.
#include <optional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "backends/cpu/loop_kernel_internal.h"
#include "backends/llvm_ir/loop_emitter.h"

namespace tessera {
namespace cpu {

// A concatenate among the instructions the root reads at its own index,
// along the root's minor-most dimension, whose every transitive user is
// among them too (nothing reads it elsewhere), is planned.
std::optional<ConcatenatePlan> PlanConcatenateKernel(const HloInstruction& root_instruction,
                                                     const Shape& root_shape) {
  const HloInstruction* root = &root_instruction;
  const int64_t rank = root_shape.rank();
  if (rank < 1 || root->shape().rank() != rank) return std::nullopt;
  const int64_t minor = llvm_ir::MinorToMajor(root_shape)[0];
  const absl::flat_hash_set<const HloInstruction*> at_root_index = InstructionsAtRootIndex(*root);
  const HloInstruction* concatenate = nullptr;
  for (const HloInstruction* h : at_root_index) {
    if (h->opcode() == HloOpcode::kConcatenate && h->dimensions().size() == 1 &&
        h->dimensions(0) == minor) {
      concatenate = h;
      break;
    }
  }
  if (concatenate == nullptr) return std::nullopt;
  const int64_t count = concatenate->operand_count();
  if (count < 2 || count > kMaxConcatenateSegments) return std::nullopt;
  // Read only at the root's index: every transitive user on the walk.
  if (!EveryUserUpTo(concatenate, root, [&](const HloInstruction* user) {
        return at_root_index.contains(user) && user->IsElementwise();
      })) {
    return std::nullopt;
  }
  ConcatenatePlan plan;
  plan.concatenate = concatenate;
  plan.dimension = minor;
  int64_t offset = 0;
  for (const HloInstruction* operand : concatenate->operands()) {
    if (operand->shape().rank() != rank) return std::nullopt;
    plan.offsets.push_back(offset);
    plan.sizes.push_back(operand->shape().dimensions(minor));
    offset += operand->shape().dimensions(minor);
  }
  if (offset != root_shape.dimensions(minor)) return std::nullopt;
  return plan;
}

llvm_ir::ElementGenerator MakeConcatenateSegmentGenerator(
    const ConcatenatePlan& plan, llvm_ir::ElementGenerator whole,
    std::vector<llvm_ir::ElementGenerator> operands, std::shared_ptr<const int64_t> segment,
    llvm::IRBuilder<>* b) {
  std::vector<Shape> shapes;
  for (const HloInstruction* operand : plan.concatenate->operands()) {
    shapes.push_back(operand->shape());
  }
  const std::vector<int64_t> offsets = plan.offsets;
  const int64_t dimension = plan.dimension;
  return [whole, operands, segment, shapes, offsets, dimension,
          b](const llvm_ir::IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    if (*segment < 0) return whole(index);
    std::vector<llvm::Value*> source = index.multi_index();
    source[dimension] = b->CreateSub(index[dimension], index.Constant(offsets[*segment]), "",
                                     /*HasNUW=*/true, /*HasNSW=*/true);
    return operands[*segment](llvm_ir::IrIndex(source, shapes[*segment], index.index_type()));
  };
}

}  // namespace cpu
}  // namespace tessera
