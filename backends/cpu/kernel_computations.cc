// The computations CPU kernels are built from (kernel_computations.h).
#include "backends/cpu/kernel_computations.h"

#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace tessera {
namespace cpu {
namespace {

// Clones what `target` uses into `computation` (post order), starting
// from `map` (which must hold `fused`'s parameters, and may hold other
// instructions to be replaced), and makes the clone of `target` its root.
void CloneInto(const HloInstruction* target,
               absl::flat_hash_map<const HloInstruction*, HloInstruction*> map,
               HloComputation* computation) {
  // Post order of what `target` uses.
  std::vector<const HloInstruction*> order;
  std::vector<std::pair<const HloInstruction*, size_t>> stack = {{target, 0}};
  absl::flat_hash_set<const HloInstruction*> visited;
  while (!stack.empty()) {
    auto& [h, next] = stack.back();
    if (map.contains(h) || (next == 0 && !visited.insert(h).second)) {
      stack.pop_back();
      continue;
    }
    if (next < static_cast<size_t>(h->operand_count())) {
      const HloInstruction* operand = h->operand(next++);
      if (!map.contains(operand) && !visited.contains(operand)) stack.push_back({operand, 0});
      continue;
    }
    order.push_back(h);
    stack.pop_back();
  }
  for (const HloInstruction* h : order) {
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* operand : h->operands()) operands.push_back(map.at(operand));
    map[h] = computation->AddInstruction(h->CloneWithNewOperands(h->shape(), operands));
  }
  computation->set_root_instruction(map.at(target));
}

}  // namespace

std::unique_ptr<HloComputation> SingleOpComputation(const HloInstruction* instruction) {
  auto computation = std::make_unique<HloComputation>(absl::StrCat("cpu.", instruction->name()));
  std::vector<HloInstruction*> parameters;
  for (int64_t k = 0; k < instruction->operand_count(); ++k) {
    parameters.push_back(computation->AddInstruction(HloInstruction::CreateParameter(
        k, instruction->operand(k)->shape(), absl::StrCat("operand.", k))));
  }
  HloInstruction* root = computation->AddInstruction(
      instruction->CloneWithNewOperands(instruction->shape(), parameters));
  computation->set_root_instruction(root);
  return computation;
}


// The part of `fused` (whose root is a tuple) that computes tuple element
// `output`, over all of `fused`'s parameters (so that kernel buffers stay
// the fusion's operands, in order), then one parameter per earlier output
// (number num_parameters() + j for output j < `output`): what an earlier
// output computed is read from its result, not computed again.
std::unique_ptr<HloComputation> ExtractOutput(const HloComputation& fused, int64_t output) {
  std::vector<int64_t> earlier(output);
  for (int64_t j = 0; j < output; ++j) earlier[j] = j;
  return ExtractOutput(fused, output, earlier);
}

std::unique_ptr<HloComputation> ExtractOutput(const HloComputation& fused, int64_t output,
                                              absl::Span<const int64_t> earlier) {
  auto computation =
      std::make_unique<HloComputation>(absl::StrCat(fused.name(), ".output", output));
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> map;
  for (int64_t k = 0; k < fused.num_parameters(); ++k) {
    const HloInstruction* parameter = fused.parameter_instruction(k);
    map[parameter] = computation->AddInstruction(
        HloInstruction::CreateParameter(k, parameter->shape(), parameter->name()));
  }
  for (size_t i = 0; i < earlier.size(); ++i) {
    const HloInstruction* value = fused.root_instruction()->operand(earlier[i]);
    HloInstruction* parameter = computation->AddInstruction(HloInstruction::CreateParameter(
        fused.num_parameters() + static_cast<int64_t>(i), value->shape(),
        absl::StrCat("output.", earlier[i])));
    if (!map.contains(value) || value->opcode() != HloOpcode::kParameter) {
      map[value] = parameter;
    }
  }
  CloneInto(fused.root_instruction()->operand(output), std::move(map), computation.get());
  return computation;
}

// What `target` (an instruction of `fused`) computes, over `fused`'s
// parameters and `replaced` as one more parameter (number
// fused.num_parameters()), after `fused`'s own, of `replaced_shape` when
// given (the layout its value is stored in).
std::unique_ptr<HloComputation> WithParameterFor(const HloComputation& fused,
                                                 const HloInstruction* replaced,
                                                 const HloInstruction* target,
                                                 const Shape* replaced_shape) {
  auto computation = std::make_unique<HloComputation>(absl::StrCat(fused.name(), ".epilogue"));
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> map;
  for (int64_t k = 0; k < fused.num_parameters(); ++k) {
    const HloInstruction* parameter = fused.parameter_instruction(k);
    map[parameter] = computation->AddInstruction(
        HloInstruction::CreateParameter(k, parameter->shape(), parameter->name()));
  }
  map[replaced] = computation->AddInstruction(HloInstruction::CreateParameter(
      fused.num_parameters(), replaced_shape != nullptr ? *replaced_shape : replaced->shape(),
      absl::StrCat(replaced->name(), ".value")));
  CloneInto(target, std::move(map), computation.get());
  return computation;
}


// Ops the elementwise kernel compiler may accept unfused.
bool KernelCandidateOpcode(const HloInstruction* instruction) {
  switch (instruction->opcode()) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kIota:
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:  // row-major ones (layout assignment's reshapes)
    case HloOpcode::kTranspose:
    case HloOpcode::kSlice:
    case HloOpcode::kReverse:
    case HloOpcode::kCopy:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kPad:
    case HloOpcode::kConcatenate:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kGather:
      return true;
    default:
      return instruction->IsElementwise();
  }
}

// Every use of `parameter` inside `computation` (transitively) is an
// elementwise op over the same dimensions (or the base of a
// dynamic-update-slice): a kernel may write its result
// over that parameter's buffer (each element is read before it is written,
// at the same position).
bool ElementwiseOnlyUse(const HloInstruction* parameter) {
  std::vector<const HloInstruction*> stack = {parameter};
  absl::flat_hash_set<const HloInstruction*> seen;
  while (!stack.empty()) {
    const HloInstruction* h = stack.back();
    stack.pop_back();
    for (const HloInstruction* user : h->users()) {
      // A dynamic-update-slice reads its base only where it keeps it, at
      // the position it writes.
      const bool base_of_update = user->opcode() == HloOpcode::kDynamicUpdateSlice &&
                                  user->operand(0) == h && user->OperandIndices(h).size() == 1;
      if ((!user->IsElementwise() && !base_of_update) ||
          user->shape().dimensions() != parameter->shape().dimensions()) {
        return false;
      }
      if (seen.insert(user).second) stack.push_back(user);
    }
  }
  return true;
}


}  // namespace cpu
}  // namespace tessera
