#include "passes/fusion/fusion_utils.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "hlo/ir/status_macros.h"

namespace tessera {
namespace {

bool IsHeroOpcode(const HloInstruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kReduce:
      return !instruction.shape().IsTuple();
    case HloOpcode::kDot:
    case HloOpcode::kConvolution:
      return true;
    default:
      return false;
  }
}

bool IsExpensiveOpcode(const HloInstruction& instruction) {
  const HloOpcode opcode = instruction.opcode();
  if (HloOpcodeHasFlag(opcode, kTranscendental)) return true;
  switch (opcode) {
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder:
    case HloOpcode::kPower:
    case HloOpcode::kAtan2:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kDot:
    case HloOpcode::kConvolution:
    case HloOpcode::kFft:
    case HloOpcode::kMap:
    case HloOpcode::kSort:
    case HloOpcode::kScatter:
    case HloOpcode::kCustomCall:
      return true;
    default:
      return false;
  }
}

bool IsControlFlow(HloOpcode opcode) {
  return opcode == HloOpcode::kWhile || opcode == HloOpcode::kConditional ||
         opcode == HloOpcode::kCall;
}

}  // namespace

absl::string_view FusionOpClassName(FusionOpClass op_class) {
  switch (op_class) {
    case FusionOpClass::kElementwise: return "elementwise";
    case FusionOpClass::kInjective: return "injective";
    case FusionOpClass::kReduction: return "reduction";
    case FusionOpClass::kComplexOutFusable: return "complex-out-fusable";
    case FusionOpClass::kLeaf: return "leaf";
    case FusionOpClass::kOpaque: return "opaque";
  }
  return "opaque";
}

FusionOpClass ClassifyForFusion(const HloInstruction& instruction) {
  const HloOpcode opcode = instruction.opcode();
  if (instruction.HasSideEffect()) return FusionOpClass::kOpaque;
  switch (opcode) {
    case HloOpcode::kConstant:
    case HloOpcode::kIota:
      return FusionOpClass::kLeaf;
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
      // Variadic reductions (tuple results) stay unfused.
      return instruction.shape().IsTuple() ? FusionOpClass::kOpaque : FusionOpClass::kReduction;
    case HloOpcode::kDot:
    case HloOpcode::kConvolution:
      return FusionOpClass::kComplexOutFusable;
    case HloOpcode::kGather:
      // Each output element reads exactly one operand element (at a
      // computed index): injective in the sense that matters for fusion.
      return FusionOpClass::kInjective;
    case HloOpcode::kMap:               // calls a computation per element
    case HloOpcode::kDynamicUpdateSlice:  // in place: left to buffer assignment
    case HloOpcode::kFusion:
      return FusionOpClass::kOpaque;
    default:
      break;
  }
  if (instruction.shape().IsTuple() || !instruction.shape().IsArray()) {
    return FusionOpClass::kOpaque;
  }
  switch (HloOpcodeCategory(opcode)) {
    case OpCategory::kElementwise: return FusionOpClass::kElementwise;
    case OpCategory::kInjective: return FusionOpClass::kInjective;
    default: return FusionOpClass::kOpaque;
  }
}

bool IsExpensive(const HloInstruction& instruction) {
  if (instruction.opcode() == HloOpcode::kFusion) {
    for (const HloInstruction* fused : instruction.fused_computation()->instructions()) {
      if (IsExpensiveOpcode(*fused)) return true;
    }
    return false;
  }
  return IsExpensiveOpcode(instruction);
}

std::vector<const HloInstruction*> FindHeroes(const HloInstruction& instruction) {
  std::vector<const HloInstruction*> heroes;
  if (instruction.opcode() == HloOpcode::kFusion) {
    for (const HloInstruction* fused : instruction.fused_computation()->instructions()) {
      if (IsHeroOpcode(*fused)) heroes.push_back(fused);
    }
  } else if (IsHeroOpcode(instruction)) {
    heroes.push_back(&instruction);
  }
  return heroes;
}

FusionKind InferFusionKind(const HloComputation& fused_computation) {
  bool has_reduce = false;
  for (const HloInstruction* instruction : fused_computation.instructions()) {
    if (instruction->opcode() == HloOpcode::kDot ||
        instruction->opcode() == HloOpcode::kConvolution) {
      return FusionKind::kOutput;
    }
    if (instruction->opcode() == HloOpcode::kReduce) has_reduce = true;
  }
  return has_reduce ? FusionKind::kInput : FusionKind::kLoop;
}

namespace {

bool EmitsNoWork(const HloInstruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kBitcast:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
      return true;
    case HloOpcode::kBroadcast: {
      const HloInstruction& operand = *instruction.operand(0);
      return operand.opcode() == HloOpcode::kConstant ||
             (operand.shape().IsArray() && operand.shape().rank() == 0);
    }
    default:
      return false;
  }
}

}  // namespace

int64_t FusedInstructionCount(const HloInstruction& instruction) {
  if (instruction.opcode() != HloOpcode::kFusion) return EmitsNoWork(instruction) ? 0 : 1;
  int64_t count = 0;
  for (const HloInstruction* fused : instruction.fused_computation()->instructions()) {
    if (!EmitsNoWork(*fused)) ++count;
  }
  return count;
}

std::vector<int64_t> NonDegenerateDimensions(const Shape& shape) {
  std::vector<int64_t> dims;
  if (!shape.IsArray()) return dims;
  for (int64_t d : shape.dimensions()) {
    if (d != 1) dims.push_back(d);
  }
  return dims;
}

bool SameIterationSpace(const Shape& a, const Shape& b) {
  return a.IsArray() && b.IsArray() && NonDegenerateDimensions(a) == NonDegenerateDimensions(b);
}

std::vector<int64_t> IterationSpace(const HloInstruction& instruction) {
  for (const HloInstruction* hero : FindHeroes(instruction)) {
    if (hero->opcode() == HloOpcode::kReduce) {
      return NonDegenerateDimensions(hero->operand(0)->shape());
    }
  }
  const Shape& shape = instruction.shape();
  if (shape.IsTuple()) {
    return shape.tuple_size() > 0 ? NonDegenerateDimensions(shape.tuple_shapes(0))
                                  : std::vector<int64_t>{};
  }
  return NonDegenerateDimensions(shape);
}

bool IsDegenerateReshape(const HloInstruction& instruction) {
  if (instruction.opcode() != HloOpcode::kReshape && instruction.opcode() != HloOpcode::kBitcast) {
    return false;
  }
  return instruction.operand_count() == 1 &&
         instruction.shape().element_type() == instruction.operand(0)->shape().element_type() &&
         SameIterationSpace(instruction.shape(), instruction.operand(0)->shape());
}

int64_t EffectiveReadBytes(const HloInstruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kBroadcast:
      return EffectiveReadBytes(*instruction.operand(0));
    case HloOpcode::kIota:
      return 0;
    case HloOpcode::kConstant:
      return instruction.shape().IsScalar() ? 0 : instruction.shape().ByteSize();
    default:
      return instruction.shape().IsArray() ? instruction.shape().ByteSize() : 0;
  }
}

std::vector<HloComputation*> FusionTargetComputations(const HloModule& module) {
  std::vector<HloComputation*> result;
  if (module.entry_computation() == nullptr) return result;
  absl::flat_hash_set<const HloComputation*> targets;
  std::vector<HloComputation*> worklist = {module.entry_computation()};
  while (!worklist.empty()) {
    HloComputation* computation = worklist.back();
    worklist.pop_back();
    if (computation == nullptr || computation->IsFusionComputation() ||
        !targets.insert(computation).second) {
      continue;
    }
    for (const HloInstruction* instruction : computation->instructions()) {
      if (!IsControlFlow(instruction->opcode())) continue;
      for (HloComputation* callee : instruction->called_computations()) {
        worklist.push_back(callee);
      }
    }
  }
  // Callees before callers, in the module's stable order.
  for (HloComputation* computation : module.MakeComputationPostOrder()) {
    if (targets.contains(computation)) result.push_back(computation);
  }
  return result;
}

int64_t CountKernels(const HloComputation& computation) {
  int64_t kernels = 0;
  for (const HloInstruction* instruction : computation.instructions()) {
    switch (instruction->opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kConstant:
      case HloOpcode::kTuple:
      case HloOpcode::kGetTupleElement:
      case HloOpcode::kBitcast:
      case HloOpcode::kWhile:
      case HloOpcode::kConditional:
      case HloOpcode::kCall:
      case HloOpcode::kAfterAll:
      case HloOpcode::kAddDependency:
      case HloOpcode::kOptimizationBarrier:
        break;
      default:
        ++kernels;
    }
  }
  return kernels;
}

int64_t CountKernels(const HloModule& module) {
  int64_t kernels = 0;
  for (const HloComputation* computation : FusionTargetComputations(module)) {
    kernels += CountKernels(*computation);
  }
  return kernels;
}

std::string FusionInstructionBaseName(const HloComputation& fused_computation) {
  const HloInstruction* root = fused_computation.root_instruction();
  if (root == nullptr || root->opcode() == HloOpcode::kTuple) return "fusion";
  return absl::StrCat(absl::StrReplaceAll(HloOpcodeString(root->opcode()), {{"-", "_"}}),
                      "_fusion");
}

// ---------------------------------------------------------------------------
// Reachability.

ReachabilityMap::ReachabilityMap(const HloComputation& computation) {
  const std::vector<HloInstruction*> order = computation.MakeInstructionPostOrder();
  const int64_t n = static_cast<int64_t>(order.size());
  words_ = (n + 63) / 64;
  ancestors_.assign(static_cast<size_t>(n * words_), 0);
  for (int64_t i = 0; i < n; ++i) index_[order[i]] = i;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t* row = &ancestors_[i * words_];
    row[i / 64] |= uint64_t{1} << (i % 64);
    auto merge = [&](const HloInstruction* predecessor) {
      auto it = index_.find(predecessor);
      if (it == index_.end()) return;
      const uint64_t* other = &ancestors_[it->second * words_];
      for (int64_t w = 0; w < words_; ++w) row[w] |= other[w];
    };
    for (const HloInstruction* operand : order[i]->operands()) merge(operand);
    for (const HloInstruction* predecessor : order[i]->control_predecessors()) merge(predecessor);
  }
}

bool ReachabilityMap::IsReachable(const HloInstruction* from, const HloInstruction* to) const {
  auto f = index_.find(from);
  auto t = index_.find(to);
  if (f == index_.end() || t == index_.end()) return false;
  return (ancestors_[t->second * words_ + f->second / 64] >> (f->second % 64)) & 1;
}

// ---------------------------------------------------------------------------
// Building fusions.

bool FusionWouldCreateCycle(const absl::flat_hash_set<HloInstruction*>& members,
                            const absl::flat_hash_set<HloInstruction*>& duplicate) {
  // Walk forward from every outside user of a (non-duplicated) member; the
  // set is convex when no walk comes back into it.
  std::vector<HloInstruction*> worklist;
  absl::flat_hash_set<HloInstruction*> visited;
  auto push = [&](HloInstruction* instruction) {
    if (visited.insert(instruction).second) worklist.push_back(instruction);
  };
  for (HloInstruction* member : members) {
    if (duplicate.contains(member)) continue;
    for (HloInstruction* user : member->users()) {
      if (!members.contains(user)) push(user);
    }
    for (HloInstruction* successor : member->control_successors()) {
      if (!members.contains(successor)) push(successor);
    }
  }
  while (!worklist.empty()) {
    HloInstruction* current = worklist.back();
    worklist.pop_back();
    if (members.contains(current)) return true;
    for (HloInstruction* user : current->users()) push(user);
    for (HloInstruction* successor : current->control_successors()) push(successor);
  }
  return false;
}

namespace {

absl::Status Refuse(const HloInstruction& instruction, absl::string_view why) {
  return absl::FailedPreconditionError(
      absl::StrCat("cannot fuse %", instruction.name(), ": ", why));
}

// The instructions of `scratch` that the root needs, in a computation with
// its parameters first (numbered densely, in their old order) and the rest
// in post-order; `parameter_sources` (indexed by scratch parameter number)
// is rewritten to the kept parameters' sources.  When the root needs every
// instruction (the usual case), that is `scratch` itself, reordered;
// otherwise the live ones are copied into a fresh computation.
std::unique_ptr<HloComputation> CompactFusedComputation(
    std::unique_ptr<HloComputation> scratch_owner,
    std::vector<HloInstruction*>* parameter_sources) {
  const HloComputation& scratch = *scratch_owner;
  absl::flat_hash_set<const HloInstruction*> live;
  std::vector<const HloInstruction*> stack = {scratch.root_instruction()};
  while (!stack.empty()) {
    const HloInstruction* current = stack.back();
    stack.pop_back();
    if (!live.insert(current).second) continue;
    for (const HloInstruction* operand : current->operands()) stack.push_back(operand);
  }
  if (static_cast<int64_t>(live.size()) == scratch.instruction_count()) {
    std::vector<HloInstruction*> order = scratch.parameter_instructions();
    for (HloInstruction* instruction : scratch.MakeInstructionPostOrder()) {
      if (instruction->opcode() != HloOpcode::kParameter) order.push_back(instruction);
    }
    if (scratch_owner->ReorderInstructions(order).ok()) return scratch_owner;
  }
  auto compact = std::make_unique<HloComputation>(scratch.name());
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> copy;
  std::vector<HloInstruction*> kept_sources;
  // Parameters first, in their old order, so the fusion's operands keep
  // the order in which the members first read them.
  for (int64_t i = 0; i < scratch.num_parameters(); ++i) {
    const HloInstruction* parameter = scratch.parameter_instruction(i);
    if (!live.contains(parameter)) continue;
    const int64_t number = static_cast<int64_t>(kept_sources.size());
    // Names need only be unique within the computation; module-wide ones
    // would cost a probe of the module's name table per parameter.
    copy[parameter] = compact->AddInstruction(
        HloInstruction::CreateParameter(number, parameter->shape(), absl::StrCat("param_", number)));
    kept_sources.push_back((*parameter_sources)[i]);
  }
  for (const HloInstruction* instruction : scratch.MakeInstructionPostOrder()) {
    if (!live.contains(instruction) || instruction->opcode() == HloOpcode::kParameter) continue;
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* operand : instruction->operands()) operands.push_back(copy.at(operand));
    copy[instruction] = compact->AddInstruction(
        instruction->CloneWithNewOperands(instruction->shape(), operands));
  }
  compact->set_root_instruction(copy.at(scratch.root_instruction()));
  *parameter_sources = std::move(kept_sources);
  return compact;
}

}  // namespace

absl::StatusOr<HloInstruction*> FuseInstructions(HloComputation* computation,
                                                 absl::Span<HloInstruction* const> instructions,
                                                 const FuseOptions& options) {
  HloModule* module = computation->parent();
  if (module == nullptr) {
    return absl::FailedPreconditionError("fusion needs a computation inside a module");
  }
  if (instructions.empty()) return absl::InvalidArgumentError("nothing to fuse");
  // Members in a deterministic order (as given, then brought-along
  // get-tuple-elements) and as a set.
  std::vector<HloInstruction*> member_list;
  absl::flat_hash_set<HloInstruction*> members;
  for (HloInstruction* instruction : instructions) {
    if (members.insert(instruction).second) member_list.push_back(instruction);
  }
  const absl::flat_hash_set<HloInstruction*>& duplicate = options.duplicate;
  for (HloInstruction* member : duplicate) {
    if (!members.contains(member)) {
      return absl::InvalidArgumentError(
          absl::StrCat("%", member->name(), " is marked duplicate but is not a member"));
    }
  }
  // A multi-output fusion brings its get-tuple-elements along.
  for (HloInstruction* member : std::vector<HloInstruction*>(member_list)) {
    if (!member->shape().IsTuple()) continue;
    if (member->opcode() != HloOpcode::kFusion) return Refuse(*member, "tuple-shaped");
    if (member->IsRoot()) return Refuse(*member, "a multi-output fusion at the root");
    if (duplicate.contains(member)) return Refuse(*member, "multi-output fusions are not duplicated");
    for (HloInstruction* user : member->users()) {
      if (user->opcode() != HloOpcode::kGetTupleElement) {
        return Refuse(*member, absl::StrCat("multi-output fusion used by %", user->name()));
      }
      if (members.insert(user).second) member_list.push_back(user);
    }
  }
  for (HloInstruction* member : members) {
    if (member->parent() != computation) {
      return Refuse(*member, absl::StrCat("not in computation ", computation->name()));
    }
    if (member->opcode() == HloOpcode::kParameter) return Refuse(*member, "a parameter");
    if (!member->control_predecessors().empty() || !member->control_successors().empty()) {
      return Refuse(*member, "has control dependencies");
    }
    if (member->opcode() == HloOpcode::kGetTupleElement &&
        !members.contains(member->operand(0))) {
      return Refuse(*member, "get-tuple-element of an outside value");
    }
  }
  for (HloInstruction* member : duplicate) {
    for (HloInstruction* operand : member->operands()) {
      if (members.contains(operand) && !duplicate.contains(operand)) {
        return Refuse(*member, "a duplicated member reads another member");
      }
    }
  }
  if (options.check_cycles && FusionWouldCreateCycle(members, duplicate)) {
    return absl::FailedPreconditionError(
        "cannot fuse: a path leaves the fused set and re-enters it (the fusion would be cyclic)");
  }

  // Members in post order, found by walking member operands only (the rest
  // of the computation is not visited, so growing a fusion stays cheap).
  std::vector<HloInstruction*> order;
  {
    absl::flat_hash_set<const HloInstruction*> visited;
    std::vector<std::pair<HloInstruction*, int64_t>> stack;
    for (HloInstruction* start : member_list) {
      if (!visited.insert(start).second) continue;
      stack.push_back({start, 0});
      while (!stack.empty()) {
        auto& [current, next] = stack.back();
        if (next < current->operand_count()) {
          HloInstruction* operand = current->operand(next++);
          if (members.contains(operand) && visited.insert(operand).second) {
            stack.push_back({operand, 0});
          }
        } else {
          order.push_back(current);
          stack.pop_back();
        }
      }
    }
  }

  // Outputs: members whose value is needed outside the set.
  std::vector<HloInstruction*> outputs;
  for (HloInstruction* member : order) {
    if (duplicate.contains(member) || member->shape().IsTuple()) continue;
    // Dead members (no users at all) stay outputs too, so that the set
    // always computes what it replaces.
    bool needed = member->IsRoot() || member->user_count() == 0;
    for (HloInstruction* user : member->users()) needed |= !members.contains(user);
    if (needed) outputs.push_back(member);
  }
  if (outputs.empty()) return absl::FailedPreconditionError("cannot fuse: no member is used");

  // Build the fused computation in a scratch computation, then compact it.
  auto scratch_owner = std::make_unique<HloComputation>(
      options.computation_name.empty() ? "fused_computation" : options.computation_name);
  HloComputation& scratch = *scratch_owner;
  std::vector<HloInstruction*> parameter_sources;
  absl::flat_hash_map<HloInstruction*, HloInstruction*> parameter_of;
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> value;
  auto get = [&](HloInstruction* outer) -> HloInstruction* {
    if (members.contains(outer)) return value.at(outer);
    auto it = parameter_of.find(outer);
    if (it != parameter_of.end()) return it->second;
    const int64_t number = static_cast<int64_t>(parameter_sources.size());
    HloInstruction* parameter = scratch.AddInstruction(HloInstruction::CreateParameter(
        number, outer->shape(), absl::StrCat("param_", number)));
    parameter_sources.push_back(outer);
    parameter_of[outer] = parameter;
    return parameter;
  };
  for (HloInstruction* member : order) {
    if (member->opcode() == HloOpcode::kFusion) {
      absl::flat_hash_map<const HloInstruction*, HloInstruction*> inner;
      const HloComputation& body = *member->fused_computation();
      for (HloInstruction* instruction : body.MakeInstructionPostOrder()) {
        if (instruction->opcode() == HloOpcode::kParameter) {
          const int64_t number = instruction->parameter_number();
          if (number < 0 || number >= member->operand_count()) {
            return Refuse(*member, "fused parameter out of range");
          }
          inner[instruction] = get(member->operand(number));
          continue;
        }
        std::vector<HloInstruction*> operands;
        for (const HloInstruction* operand : instruction->operands()) {
          operands.push_back(inner.at(operand));
        }
        inner[instruction] = scratch.AddInstruction(
            instruction->CloneWithNewOperands(instruction->shape(), operands));
      }
      value[member] = inner.at(body.root_instruction());
      continue;
    }
    if (member->opcode() == HloOpcode::kGetTupleElement) {
      HloInstruction* tuple = value.at(member->operand(0));
      if (tuple->opcode() == HloOpcode::kTuple) {
        value[member] = tuple->operand(member->tuple_index());
        continue;
      }
    }
    std::vector<HloInstruction*> operands;
    for (HloInstruction* operand : member->operands()) operands.push_back(get(operand));
    value[member] = scratch.AddInstruction(member->CloneWithNewOperands(member->shape(), operands));
  }
  if (outputs.size() == 1) {
    scratch.set_root_instruction(value.at(outputs[0]));
  } else {
    std::vector<HloInstruction*> elements;
    for (HloInstruction* output : outputs) elements.push_back(value.at(output));
    scratch.set_root_instruction(scratch.AddInstruction(HloInstruction::CreateTuple(elements)));
  }
  std::unique_ptr<HloComputation> compact =
      CompactFusedComputation(std::move(scratch_owner), &parameter_sources);
  compact->SetIsFusionComputation(true);
  const FusionKind kind = options.kind.has_value() ? *options.kind : InferFusionKind(*compact);
  std::string base = options.instruction_name.empty() ? FusionInstructionBaseName(*compact)
                                                      : options.instruction_name;
  // A grown fusion keeps its names; they are free once the old one is gone,
  // so the fused computation joins the module last.
  HloInstruction* inherit = options.inherit_names;
  if (inherit != nullptr && (!members.contains(inherit) || inherit->opcode() != HloOpcode::kFusion ||
                             duplicate.contains(inherit))) {
    inherit = nullptr;
  }
  std::string inherited_instruction_name;
  if (inherit != nullptr) {
    inherited_instruction_name = inherit->name();
    compact->SetName(inherit->fused_computation()->name());
  }
  HloComputation* fused = compact.get();
  // However this ends, the module owns the fused computation the new
  // fusion instruction calls.
  struct AdoptOnExit {
    HloModule* module;
    std::unique_ptr<HloComputation>* computation;
    ~AdoptOnExit() {
      if (*computation != nullptr) module->AddEmbeddedComputation(std::move(*computation));
    }
  } adopt{module, &compact};
  const Shape shape = fused->root_instruction()->shape();
  std::unique_ptr<HloInstruction> fusion_instruction =
      HloInstruction::CreateFusion(shape, kind, parameter_sources, fused);
  fusion_instruction->SetName(module->UniqueInstructionName(base));
  HloInstruction* fusion = computation->AddInstruction(std::move(fusion_instruction));

  // Rewire the outputs' users.
  if (outputs.size() == 1) {
    TS_RETURN_IF_ERROR(outputs[0]->ReplaceAllUsesWith(fusion));
  }
  // The get-tuple-elements take the names of the values they stand for,
  // once those are gone (until then they carry a name no one else has).
  std::vector<std::pair<HloInstruction*, std::string>> renames;
  if (outputs.size() > 1) {
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::unique_ptr<HloInstruction> gte = HloInstruction::CreateGetTupleElement(
          shape.tuple_shapes(i), fusion, static_cast<int64_t>(i));
      gte->SetName(absl::StrCat(fusion->name(), ".", i));
      HloInstruction* element = computation->AddInstruction(std::move(gte));
      TS_RETURN_IF_ERROR(outputs[i]->ReplaceAllUsesWith(element));
      renames.push_back({element, outputs[i]->name()});
    }
  }
  // Remove the members, users first.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    HloInstruction* member = *it;
    if (duplicate.contains(member) && (member->user_count() > 0 || member->IsRoot())) continue;
    HloComputation* old_body =
        member->opcode() == HloOpcode::kFusion ? member->fused_computation() : nullptr;
    TS_RETURN_IF_ERROR(computation->RemoveInstruction(member));
    // Another fusion may share the body (parsed modules); then it stays.
    if (old_body != nullptr) (void)module->RemoveComputation(old_body);
  }
  for (auto& [element, name] : renames) element->SetName(std::move(name));
  module->AddEmbeddedComputation(std::move(compact));
  if (inherit != nullptr) fusion->SetName(inherited_instruction_name);
  if (module->has_schedule()) module->clear_schedule();
  return fusion;
}

absl::StatusOr<HloInstruction*> FuseProducerIntoConsumer(HloInstruction* producer,
                                                         HloInstruction* consumer,
                                                         bool duplicate) {
  FuseOptions options;
  if (duplicate) options.duplicate.insert(producer);
  bool producer_has_other_users = producer->IsRoot();
  for (const HloInstruction* user : producer->users()) producer_has_other_users |= user != consumer;
  if (duplicate || !producer_has_other_users) options.inherit_names = consumer;
  // Without duplication, other users make the producer an extra output,
  // which can close a cycle through them; with it, no path can.  Nor can
  // one without other users or control successors: a path out of the pair
  // and back would have to leave the producer by another edge (leaving the
  // consumer, it could not come back to either in a DAG).  The walk costs
  // the rest of the graph, per fusion.
  options.check_cycles =
      !duplicate && (producer_has_other_users || !producer->control_successors().empty());
  return FuseInstructions(consumer->parent(), {producer, consumer}, options);
}

absl::StatusOr<HloInstruction*> WrapInFusion(HloInstruction* instruction) {
  FuseOptions options;
  options.check_cycles = false;
  return FuseInstructions(instruction->parent(), {instruction}, options);
}

absl::StatusOr<HloInstruction*> MergeSiblings(HloInstruction* a, HloInstruction* b) {
  if (a->parent() != b->parent()) {
    return absl::InvalidArgumentError("siblings must be in the same computation");
  }
  return FuseInstructions(a->parent(), {a, b});
}

}  // namespace tessera
