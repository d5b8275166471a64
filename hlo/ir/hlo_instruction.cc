#include "hlo/ir/hlo_instruction.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_module.h"

namespace tessera {

HloInstruction::HloInstruction(HloOpcode opcode, const Shape& shape)
    : opcode_(opcode), shape_(shape) {}

HloInstruction::~HloInstruction() = default;

std::unique_ptr<HloInstruction> HloInstruction::Create(
    HloOpcode opcode, const Shape& shape, absl::Span<HloInstruction* const> operands) {
  std::unique_ptr<HloInstruction> instruction(new HloInstruction(opcode, shape));
  for (HloInstruction* operand : operands) instruction->AppendOperand(operand);
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateParameter(int64_t number,
                                                                const Shape& shape,
                                                                std::string name) {
  auto instruction = Create(HloOpcode::kParameter, shape, {});
  instruction->attrs_.parameter_number = number;
  instruction->name_ = std::move(name);
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateConstant(Literal literal) {
  auto instruction = Create(HloOpcode::kConstant, literal.shape(), {});
  instruction->attrs_.literal = std::move(literal);
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateUnary(const Shape& shape, HloOpcode opcode,
                                                            HloInstruction* operand) {
  return Create(opcode, shape, {operand});
}

std::unique_ptr<HloInstruction> HloInstruction::CreateBinary(const Shape& shape,
                                                             HloOpcode opcode,
                                                             HloInstruction* lhs,
                                                             HloInstruction* rhs) {
  return Create(opcode, shape, {lhs, rhs});
}

std::unique_ptr<HloInstruction> HloInstruction::CreateTernary(const Shape& shape,
                                                              HloOpcode opcode,
                                                              HloInstruction* a,
                                                              HloInstruction* b,
                                                              HloInstruction* c) {
  return Create(opcode, shape, {a, b, c});
}

std::unique_ptr<HloInstruction> HloInstruction::CreateCompare(const Shape& shape,
                                                              HloInstruction* lhs,
                                                              HloInstruction* rhs,
                                                              ComparisonDirection direction,
                                                              ComparisonType type) {
  auto instruction = Create(HloOpcode::kCompare, shape, {lhs, rhs});
  instruction->attrs_.comparison_direction = direction;
  instruction->attrs_.comparison_type = type;
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateBroadcast(const Shape& shape,
                                                                HloInstruction* operand,
                                                                std::vector<int64_t> dimensions) {
  auto instruction = Create(HloOpcode::kBroadcast, shape, {operand});
  instruction->attrs_.dimensions = std::move(dimensions);
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateReshape(const Shape& shape,
                                                              HloInstruction* operand) {
  return Create(HloOpcode::kReshape, shape, {operand});
}

std::unique_ptr<HloInstruction> HloInstruction::CreateTranspose(
    const Shape& shape, HloInstruction* operand, std::vector<int64_t> permutation) {
  auto instruction = Create(HloOpcode::kTranspose, shape, {operand});
  instruction->attrs_.dimensions = std::move(permutation);
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateConvert(const Shape& shape,
                                                              HloInstruction* operand) {
  return Create(HloOpcode::kConvert, shape, {operand});
}

std::unique_ptr<HloInstruction> HloInstruction::CreateTuple(
    absl::Span<HloInstruction* const> elements) {
  std::vector<Shape> shapes;
  shapes.reserve(elements.size());
  for (const HloInstruction* element : elements) shapes.push_back(element->shape());
  return Create(HloOpcode::kTuple, Shape::MakeTuple(std::move(shapes)), elements);
}

std::unique_ptr<HloInstruction> HloInstruction::CreateGetTupleElement(const Shape& shape,
                                                                      HloInstruction* operand,
                                                                      int64_t index) {
  auto instruction = Create(HloOpcode::kGetTupleElement, shape, {operand});
  instruction->attrs_.tuple_index = index;
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateIota(const Shape& shape,
                                                           int64_t dimension) {
  auto instruction = Create(HloOpcode::kIota, shape, {});
  instruction->attrs_.dimensions = {dimension};
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateSlice(const Shape& shape,
                                                            HloInstruction* operand,
                                                            std::vector<SliceDimension> slice) {
  auto instruction = Create(HloOpcode::kSlice, shape, {operand});
  instruction->attrs_.slice_dimensions = std::move(slice);
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateReduce(
    const Shape& shape, absl::Span<HloInstruction* const> operands,
    std::vector<int64_t> dimensions, HloComputation* reducer) {
  auto instruction = Create(HloOpcode::kReduce, shape, operands);
  instruction->attrs_.dimensions = std::move(dimensions);
  instruction->AppendCalledComputation(reducer);
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateDot(const Shape& shape,
                                                          HloInstruction* lhs,
                                                          HloInstruction* rhs,
                                                          DotDimensionNumbers dnums) {
  auto instruction = Create(HloOpcode::kDot, shape, {lhs, rhs});
  instruction->attrs_.dot_dimension_numbers = std::move(dnums);
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateCall(
    const Shape& shape, absl::Span<HloInstruction* const> operands, HloComputation* callee) {
  auto instruction = Create(HloOpcode::kCall, shape, operands);
  instruction->AppendCalledComputation(callee);
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateFusion(
    const Shape& shape, FusionKind kind, absl::Span<HloInstruction* const> operands,
    HloComputation* fused) {
  auto instruction = Create(HloOpcode::kFusion, shape, operands);
  instruction->attrs_.fusion_kind = kind;
  instruction->AppendCalledComputation(fused);
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateWhile(const Shape& shape,
                                                            HloComputation* condition,
                                                            HloComputation* body,
                                                            HloInstruction* init) {
  auto instruction = Create(HloOpcode::kWhile, shape, {init});
  instruction->AppendCalledComputation(condition);
  instruction->AppendCalledComputation(body);
  return instruction;
}

bool HloInstruction::IsUserOf(const HloInstruction* operand) const {
  return std::find(operands_.begin(), operands_.end(), operand) != operands_.end();
}

std::vector<int64_t> HloInstruction::OperandIndices(const HloInstruction* operand) const {
  std::vector<int64_t> indices;
  for (int64_t i = 0; i < operand_count(); ++i) {
    if (operands_[i] == operand) indices.push_back(i);
  }
  return indices;
}

void HloInstruction::AddUser(HloInstruction* user) {
  // The set keeps adding O(1) for values with very many users (a constant
  // broadcast into every layer of a large model); the vector keeps order.
  if (user_set_.insert(user).second) users_.push_back(user);
}

void HloInstruction::RemoveUser(HloInstruction* user) {
  if (user_set_.erase(user) == 0) return;
  users_.erase(std::find(users_.begin(), users_.end(), user));
}

void HloInstruction::AppendOperand(HloInstruction* operand) {
  operands_.push_back(operand);
  operand->AddUser(this);
}

absl::Status HloInstruction::ReplaceOperandWith(int64_t index, HloInstruction* new_operand) {
  if (index < 0 || index >= operand_count()) {
    return absl::OutOfRangeError(
        absl::StrCat("%", name_, ": operand index ", index, " out of range"));
  }
  if (new_operand == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("%", name_, ": null replacement operand"));
  }
  HloInstruction* old_operand = operands_[index];
  if (old_operand == new_operand) return absl::OkStatus();
  operands_[index] = new_operand;
  if (!IsUserOf(old_operand)) old_operand->RemoveUser(this);
  new_operand->AddUser(this);
  return absl::OkStatus();
}

absl::Status HloInstruction::ReplaceUseWith(HloInstruction* old_operand,
                                            HloInstruction* new_operand) {
  for (int64_t i : OperandIndices(old_operand)) {
    absl::Status status = ReplaceOperandWith(i, new_operand);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status HloInstruction::ReplaceAllUsesWith(HloInstruction* replacement) {
  if (replacement == this) return absl::OkStatus();
  if (!ShapesCompatible(shape_, replacement->shape())) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot replace %", name_, " (", shape_.ToString(), ") with %",
                     replacement->name(), " (", replacement->shape().ToString(), ")"));
  }
  // Copy: ReplaceUseWith edits users_.
  std::vector<HloInstruction*> users = users_;
  for (HloInstruction* user : users) {
    if (user == replacement) continue;  // e.g. replacing x by f(x)
    absl::Status status = user->ReplaceUseWith(this, replacement);
    if (!status.ok()) return status;
  }
  if (parent_ != nullptr && parent_->root_instruction() == this) {
    parent_->set_root_instruction(replacement);
  }
  return absl::OkStatus();
}

void HloInstruction::DetachFromOperands() {
  for (HloInstruction* operand : operands_) operand->RemoveUser(this);
  operands_.clear();
}

absl::Status HloInstruction::AddControlDependencyTo(HloInstruction* successor) {
  if (successor == nullptr || successor == this) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", name_, ": invalid control dependency target"));
  }
  if (std::find(control_successors_.begin(), control_successors_.end(), successor) ==
      control_successors_.end()) {
    control_successors_.push_back(successor);
    successor->control_predecessors_.push_back(this);
  }
  return absl::OkStatus();
}

absl::Status HloInstruction::RemoveControlDependencyTo(HloInstruction* successor) {
  auto it = std::find(control_successors_.begin(), control_successors_.end(), successor);
  if (it == control_successors_.end()) {
    return absl::NotFoundError(absl::StrCat("%", name_, " has no control edge to %",
                                            successor->name()));
  }
  control_successors_.erase(it);
  auto& preds = successor->control_predecessors_;
  preds.erase(std::find(preds.begin(), preds.end(), this));
  return absl::OkStatus();
}

void HloInstruction::DropAllControlDeps() {
  for (HloInstruction* pred : control_predecessors_) {
    auto& succs = pred->control_successors_;
    succs.erase(std::find(succs.begin(), succs.end(), this));
  }
  for (HloInstruction* succ : control_successors_) {
    auto& preds = succ->control_predecessors_;
    preds.erase(std::find(preds.begin(), preds.end(), this));
  }
  control_predecessors_.clear();
  control_successors_.clear();
}

void HloInstruction::SetName(std::string name) {
  if (parent_ != nullptr) parent_->NoteRename(name_, name);
  name_ = std::move(name);
}

bool HloInstruction::InModule() const { return parent_ != nullptr && parent_->parent() != nullptr; }

void HloInstruction::AppendCalledComputation(HloComputation* computation) {
  called_computations_.push_back(computation);
  if (InModule() && computation != nullptr) ++computation->caller_count_;
}

void HloInstruction::ReplaceCalledComputation(int64_t index, HloComputation* computation) {
  HloComputation*& slot = called_computations_.at(index);
  if (InModule()) {
    if (slot != nullptr) --slot->caller_count_;
    if (computation != nullptr) ++computation->caller_count_;
  }
  slot = computation;
}

void HloInstruction::ClearCalledComputations() {
  if (InModule()) {
    for (HloComputation* callee : called_computations_) {
      if (callee != nullptr) --callee->caller_count_;
    }
  }
  called_computations_.clear();
}

HloComputation* HloInstruction::to_apply() const {
  return called_computations_.empty() ? nullptr : called_computations_[0];
}

ComparisonType HloInstruction::EffectiveComparisonType() const {
  if (attrs_.comparison_type != ComparisonType::kDefault) return attrs_.comparison_type;
  const PrimitiveType type = operands_.empty() ? PRED : operands_[0]->shape().element_type();
  if (IsFloatingPointType(type) || IsComplexType(type)) return ComparisonType::kFloat;
  if (IsUnsignedIntegralType(type) || type == PRED) return ComparisonType::kUnsigned;
  return ComparisonType::kSigned;
}

bool HloInstruction::IsElementwise() const {
  switch (opcode_) {
    case HloOpcode::kMap:
      return true;
    case HloOpcode::kFusion:
      return false;
    default:
      return HloOpcodeIsElementwise(opcode_);
  }
}

bool HloInstruction::HasSideEffect() const {
  if (HloOpcodeHasFlag(opcode_, kSideEffecting)) return true;
  if (opcode_ == HloOpcode::kCustomCall) return attrs_.custom_call_has_side_effect;
  // A channel orders a collective against other programs', except where
  // it has no one else to talk to (pmap or shard_map on one device).
  if (HloOpcodeIsCollective(opcode_)) {
    return (attrs_.channel_id > 0 && CollectiveGroupSize(*this) != 1) || attrs_.constrain_layout;
  }
  return false;
}

bool HloInstruction::IsRoot() const {
  return parent_ != nullptr && parent_->root_instruction() == this;
}

bool HloInstruction::AttributesEqual(const HloInstruction& other) const {
  // Compare everything but metadata, which never changes what is computed.
  if (attrs_.metadata == other.attrs_.metadata) return attrs_ == other.attrs_;
  HloAttributes a = attrs_;
  a.metadata = other.attrs_.metadata;
  return a == other.attrs_;
}

std::unique_ptr<HloInstruction> HloInstruction::CloneWithNewOperands(
    const Shape& shape, absl::Span<HloInstruction* const> new_operands) const {
  auto clone = Create(opcode_, shape, new_operands);
  clone->attrs_ = attrs_;
  clone->called_computations_ = called_computations_;
  clone->name_ = name_;
  return clone;
}

absl::string_view ComparisonDirectionString(ComparisonDirection direction) {
  switch (direction) {
    case ComparisonDirection::kEq: return "EQ";
    case ComparisonDirection::kNe: return "NE";
    case ComparisonDirection::kGe: return "GE";
    case ComparisonDirection::kGt: return "GT";
    case ComparisonDirection::kLe: return "LE";
    case ComparisonDirection::kLt: return "LT";
  }
  return "EQ";
}

absl::string_view ComparisonTypeString(ComparisonType type) {
  switch (type) {
    case ComparisonType::kDefault: return "DEFAULT";
    case ComparisonType::kFloat: return "FLOAT";
    case ComparisonType::kFloatTotalOrder: return "TOTALORDER";
    case ComparisonType::kSigned: return "SIGNED";
    case ComparisonType::kUnsigned: return "UNSIGNED";
  }
  return "DEFAULT";
}

absl::string_view FusionKindString(FusionKind kind) {
  switch (kind) {
    case FusionKind::kLoop: return "kLoop";
    case FusionKind::kInput: return "kInput";
    case FusionKind::kOutput: return "kOutput";
    case FusionKind::kCustom: return "kCustom";
  }
  return "kLoop";
}

bool IsAnnotationCustomCall(const HloInstruction& hlo) {
  if (hlo.opcode() != HloOpcode::kCustomCall || hlo.operand_count() != 1) return false;
  const std::string& target = hlo.attrs().custom_call_target;
  if (target != "Sharding" && target != "SPMDFullToShardShape" &&
      target != "SPMDShardToFullShape" && target != "MoveToHost" && target != "MoveToDevice") {
    return false;
  }
  const Shape& in = hlo.operand(0)->shape();
  const Shape& out = hlo.shape();
  return in.IsArray() && out.IsArray() && in.element_type() == out.element_type() &&
         in.dimensions() == out.dimensions();
}

int64_t CollectiveGroupSize(const HloInstruction& hlo) {
  const HloAttributes& attrs = hlo.attrs();
  if (attrs.iota_replica_groups.has_value()) {
    return attrs.iota_replica_groups->num_devices_per_group;
  }
  if (!attrs.replica_groups.empty()) {
    int64_t size = 0;
    for (const ReplicaGroup& group : attrs.replica_groups) {
      size = std::max<int64_t>(size, group.replica_ids.size());
    }
    return size;
  }
  // No groups: every replica (or partition) takes part.
  const HloComputation* computation = hlo.parent();
  const HloModule* module = computation == nullptr ? nullptr : computation->parent();
  if (module == nullptr) return 1;
  return module->config().replica_count * module->config().num_partitions;
}

}  // namespace tessera
