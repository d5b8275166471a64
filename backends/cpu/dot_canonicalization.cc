// Transposes for dots the GEMM cannot read in place; see
// dot_canonicalization.h.
#include "backends/cpu/dot_canonicalization.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "backends/cpu/eigen_dot.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_opcode.h"
#include "hlo/ir/status_macros.h"

namespace tessera {
namespace cpu {
namespace {

// `operand` transposed so that its dimensions come in `order`, row-major.
HloInstruction* TransposeInto(HloComputation* computation, HloInstruction* operand,
                              const std::vector<int64_t>& order) {
  std::vector<int64_t> dims;
  for (int64_t d : order) dims.push_back(operand->shape().dimensions(d));
  Shape shape(operand->shape().element_type(), dims);
  shape.set_layout(Layout::Descending(shape.rank()));
  return computation->AddInstruction(HloInstruction::CreateTranspose(shape, operand, order));
}

// The operand's dimensions that are neither batch nor contracting, in
// order (they are the result's, in that order).
std::vector<int64_t> FreeDimensions(int64_t rank, const std::vector<int64_t>& batch,
                                    const std::vector<int64_t>& contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) == contracting.end()) {
      free.push_back(d);
    }
  }
  return free;
}

// Rewrites `dot` when PlanDot refuses it as it is and takes the canonical
// form; true when it did.
absl::StatusOr<bool> Canonicalize(HloComputation* computation, HloInstruction* dot) {
  if (PlanDot(*dot).ok() || !dot->shape().IsArray()) return false;
  const DotDimensionNumbers& dnums = dot->dot_dimension_numbers();
  HloInstruction* lhs = dot->operands()[0];
  HloInstruction* rhs = dot->operands()[1];
  if (!lhs->shape().IsArray() || !rhs->shape().IsArray()) return false;
  const std::vector<int64_t> lhs_free = FreeDimensions(
      lhs->shape().rank(), dnums.lhs_batch_dimensions, dnums.lhs_contracting_dimensions);
  const std::vector<int64_t> rhs_free = FreeDimensions(
      rhs->shape().rank(), dnums.rhs_batch_dimensions, dnums.rhs_contracting_dimensions);
  std::vector<int64_t> lhs_order = dnums.lhs_batch_dimensions;
  lhs_order.insert(lhs_order.end(), lhs_free.begin(), lhs_free.end());
  lhs_order.insert(lhs_order.end(), dnums.lhs_contracting_dimensions.begin(),
                   dnums.lhs_contracting_dimensions.end());
  std::vector<int64_t> rhs_order = dnums.rhs_batch_dimensions;
  rhs_order.insert(rhs_order.end(), dnums.rhs_contracting_dimensions.begin(),
                   dnums.rhs_contracting_dimensions.end());
  rhs_order.insert(rhs_order.end(), rhs_free.begin(), rhs_free.end());

  const int64_t batch = dnums.lhs_batch_dimensions.size();
  const int64_t contracting = dnums.lhs_contracting_dimensions.size();
  DotDimensionNumbers canonical;
  for (int64_t i = 0; i < batch; ++i) {
    canonical.lhs_batch_dimensions.push_back(i);
    canonical.rhs_batch_dimensions.push_back(i);
  }
  for (int64_t i = 0; i < contracting; ++i) {
    canonical.lhs_contracting_dimensions.push_back(batch + lhs_free.size() + i);
    canonical.rhs_contracting_dimensions.push_back(batch + i);
  }
  // The result keeps its dimensions (batch, lhs free, rhs free); its
  // layout too where the GEMM writes that, else row-major and a copy.
  HloInstruction* new_lhs = TransposeInto(computation, lhs, lhs_order);
  HloInstruction* new_rhs = TransposeInto(computation, rhs, rhs_order);
  std::vector<HloInstruction*> added = {new_lhs, new_rhs};
  auto add = [&](std::unique_ptr<HloInstruction> instruction) {
    added.push_back(computation->AddInstruction(std::move(instruction)));
    return added.back();
  };
  auto make_dot = [&](const Shape& shape) {
    std::unique_ptr<HloInstruction> clone = dot->CloneWithNewOperands(shape, {new_lhs, new_rhs});
    clone->mutable_attrs().dot_dimension_numbers = canonical;
    return add(std::move(clone));
  };
  HloInstruction* replacement = make_dot(dot->shape());
  if (!PlanDot(*replacement).ok()) {
    Shape row_major = dot->shape();
    row_major.set_layout(Layout::Descending(row_major.rank()));
    HloInstruction* row_major_dot = make_dot(row_major);
    replacement =
        PlanDot(*row_major_dot).ok()
            ? add(HloInstruction::CreateUnary(dot->shape(), HloOpcode::kCopy, row_major_dot))
            : nullptr;
  }
  // What was tried and is not used goes, users first: everything when the
  // dot is refused for another reason (its types) and stays to fall back.
  for (auto it = added.rbegin(); it != added.rend(); ++it) {
    if (*it != replacement && (*it)->user_count() == 0) {
      TS_RETURN_IF_ERROR(computation->RemoveInstruction(*it));
    }
  }
  if (replacement == nullptr) return false;
  TS_RETURN_IF_ERROR(dot->ReplaceAllUsesWith(replacement));  // the root too
  TS_RETURN_IF_ERROR(computation->RemoveInstruction(dot));
  return true;
}

}  // namespace

absl::StatusOr<bool> DotCanonicalization::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->computations()) {
    if (computation->IsFusionComputation()) continue;
    for (HloInstruction* hlo : computation->MakeInstructionPostOrder()) {
      if (hlo->opcode() != HloOpcode::kDot) continue;
      TS_ASSIGN_OR_RETURN(bool rewritten, Canonicalize(computation, hlo));
      changed |= rewritten;
    }
  }
  return changed;
}

}  // namespace cpu
}  // namespace tessera
