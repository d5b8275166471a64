#include "hlo/analysis/hlo_dataflow_analysis.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tessera {
namespace {

std::string IndexSuffix(const ShapeIndex& index) {
  return index.empty() ? "" : ShapeIndexToString(index);
}

bool IsPrefix(const ShapeIndex& prefix, const ShapeIndex& index) {
  return prefix.size() <= index.size() && std::equal(prefix.begin(), prefix.end(), index.begin());
}

std::vector<int64_t> MinorToMajorOf(const Shape& shape) {
  if (shape.has_layout() &&
      static_cast<int64_t>(shape.layout().minor_to_major.size()) == shape.rank()) {
    return shape.layout().minor_to_major;
  }
  return Layout::Descending(shape.rank()).minor_to_major;
}

// Same dimensions, element width and physical order: element i of one sits
// where element i of the other does.
bool SamePhysicalArray(const Shape& a, const Shape& b) {
  return a.IsArray() && b.IsArray() && a.dimensions() == b.dimensions() &&
         ByteWidth(a.element_type()) == ByteWidth(b.element_type()) &&
         MinorToMajorOf(a) == MinorToMajorOf(b);
}

// Every transitive user of `parameter` inside its fused computation reads it
// elementwise at its own dimensions (a root tuple only forwards).
bool OnlyElementwiseUses(const HloInstruction* parameter) {
  const HloInstruction* root = parameter->parent()->root_instruction();
  std::vector<const HloInstruction*> worklist = {parameter};
  absl::flat_hash_set<const HloInstruction*> seen = {parameter};
  while (!worklist.empty()) {
    const HloInstruction* current = worklist.back();
    worklist.pop_back();
    for (const HloInstruction* user : current->users()) {
      if (user == root && root->opcode() == HloOpcode::kTuple) continue;
      if (!user->IsElementwise() || !user->shape().IsArray() ||
          user->shape().dimensions() != parameter->shape().dimensions()) {
        return false;
      }
      if (seen.insert(user).second) worklist.push_back(user);
    }
  }
  return true;
}

// Whether `fusion` (kOutput) is one that backends run with the product
// staged apart from the result, so that an operand its epilogue reads
// elementwise may be the result's own storage: one array output, rank 2 and
// row-major, of f32, f64 or s32, made from one dot of that type (operands
// and result) without batch dimensions (the CPU backend's DotThunk with a row epilogue, which
// writes the GEMM into scratch when the result overlaps an operand).  This
// is the accumulation `acc + a x b` of a gradient summed over a loop
// (a scan's backward pass), updated in place instead of copied each step.
bool StagesItsProduct(const HloInstruction& fusion) {
  const Shape& shape = fusion.shape();
  if (!shape.IsArray() || shape.rank() != 2 ||
      MinorToMajorOf(shape) != std::vector<int64_t>{1, 0}) {
    return false;
  }
  const PrimitiveType type = shape.element_type();
  if (type != F32 && type != F64 && type != S32) return false;
  const HloInstruction* dot = nullptr;
  for (const HloInstruction* h : fusion.fused_computation()->instructions()) {
    if (h->opcode() == HloOpcode::kConvolution) return false;
    if (h->opcode() != HloOpcode::kDot) continue;
    if (dot != nullptr) return false;
    dot = h;
  }
  // (The epilogue reads the product elementwise, as it reads from scratch
  // the rows the GEMM just made.)
  return dot != nullptr && dot->shape().rank() == 2 && dot->shape().element_type() == type &&
         dot->operand(0)->shape().element_type() == type &&
         dot->operand(1)->shape().element_type() == type &&
         dot->dot_dimension_numbers().lhs_batch_dimensions.empty() && OnlyElementwiseUses(dot);
}

// Whether output `user_index` of `fusion` may write over operand
// `operand_number`, considering that output alone.
bool OutputCanShare(const HloInstruction& fusion, int64_t operand_number,
                    const ShapeIndex& operand_index, const ShapeIndex& user_index) {
  if (!operand_index.empty() || fusion.called_computations().empty()) return false;
  // A kOutput fusion's dot or convolution writes the whole result before
  // its epilogue reads the other operands, so none may share the result,
  // unless the product is staged apart (StagesItsProduct).
  if (fusion.fusion_kind() == FusionKind::kOutput && !StagesItsProduct(fusion)) return false;
  const HloComputation* fused = fusion.fused_computation();
  if (operand_number >= fused->num_parameters()) return false;
  const HloInstruction* parameter = fused->parameter_instruction(operand_number);
  if (parameter == nullptr || !parameter->shape().IsArray()) return false;
  const Shape* out_shape = fusion.shape().Subshape(user_index);
  if (out_shape == nullptr || !out_shape->IsArray()) return false;
  if (!SamePhysicalArray(fusion.operand(operand_number)->shape(), *out_shape)) return false;
  const HloInstruction* root = fused->root_instruction();
  const HloInstruction* out = root;
  if (!user_index.empty()) {
    if (root->opcode() != HloOpcode::kTuple || user_index.size() != 1 ||
        user_index[0] >= root->operand_count()) {
      return false;
    }
    out = root->operand(user_index[0]);
  }
  if (out->opcode() == HloOpcode::kDynamicUpdateSlice && out->operand(0) == parameter &&
      parameter->user_count() == 1) {
    return true;
  }
  return OnlyElementwiseUses(parameter);
}

// Whether the parameters of `fused` that output `out` (an operand of its
// root tuple) reads, by index.
std::vector<bool> ParametersRead(const HloComputation& fused, const HloInstruction* out) {
  std::vector<bool> read(fused.num_parameters(), false);
  std::vector<const HloInstruction*> worklist = {out};
  absl::flat_hash_set<const HloInstruction*> seen = {out};
  while (!worklist.empty()) {
    const HloInstruction* current = worklist.back();
    worklist.pop_back();
    if (current->opcode() == HloOpcode::kParameter) {
      const int64_t number = current->parameter_number();
      if (number >= 0 && number < static_cast<int64_t>(read.size())) read[number] = true;
    }
    for (const HloInstruction* operand : current->operands()) {
      if (seen.insert(operand).second) worklist.push_back(operand);
    }
  }
  return read;
}

}  // namespace

// Which outputs of a multi-output fusion read which of its operands, and
// which orders their sharings would impose (see SharingCouldCycle).
struct FusionSharingGraph {
  // reads[j][p]: output j reads fused parameter p.
  std::vector<std::vector<bool>> reads;
  // after[i]: (j, p) where output i would have to run after output j if it
  // took operand p, for every operand i could take; built when first
  // needed (most queries stop at the readers).
  bool has_after = false;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> after;
};

namespace {

FusionSharingGraph SharingGraphOf(const HloInstruction& fusion) {
  const HloComputation* fused = fusion.fused_computation();
  const HloInstruction* root = fused->root_instruction();
  FusionSharingGraph graph;
  graph.reads.resize(root->operand_count());
  for (int64_t j = 0; j < root->operand_count(); ++j) {
    graph.reads[j] = ParametersRead(*fused, root->operand(j));
  }
  return graph;
}

void AddOrders(const HloInstruction& fusion, FusionSharingGraph* graph) {
  if (graph->has_after) return;
  const int64_t n = static_cast<int64_t>(graph->reads.size());
  graph->after.assign(n, {});
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t p = 0; p < fusion.fused_computation()->num_parameters(); ++p) {
      if (!OutputCanShare(fusion, p, {}, {i})) continue;
      for (int64_t j = 0; j < n; ++j) {
        if (j != i && graph->reads[j][p]) graph->after[i].push_back({j, p});
      }
    }
  }
  graph->has_after = true;
}

// A backend computes a multi-output fusion's outputs one after another, so
// an output that writes over an operand must run after every other output
// that reads it.  Output i sharing operand k read by output j puts i after
// j; where such orders could close a cycle (the loop state of JAX's
// threefry: x0' = x0 + x1 over x0, x1' = rotl(x1) ^ x0' over x1), no
// order works.  Whether output `out` taking operand `k` could be part of a
// cycle, from the outputs' possible sharings alone (buffer assignment's
// choices are not known here), so that none of the cycle's sharings is
// made: an operand shared with an output that no other output reads (an
// optimizer's in-place update) is never refused.
bool SharingCouldCycle(const HloInstruction& fusion, FusionSharingGraph* graph, int64_t k,
                       int64_t out) {
  const std::vector<std::vector<bool>>& reads = graph->reads;
  const int64_t n = static_cast<int64_t>(reads.size());
  // Most operands (all of a horizontal fusion's) have one reader: no order
  // to keep, and the graph below is not needed.
  bool contested = false;
  for (int64_t j = 0; j < n; ++j) contested |= j != out && reads[j][k];
  if (!contested) return false;
  AddOrders(fusion, graph);
  const auto& after = graph->after;
  // A cycle through out -> j (j reads k) exists if j reaches out by
  // sharings of other operands (one buffer goes to one output: two outputs
  // reading the one operand k that either could take form no cycle).
  for (int64_t j = 0; j < n; ++j) {
    if (j == out || !reads[j][k]) continue;
    std::vector<bool> seen(n, false);
    std::vector<int64_t> worklist = {j};
    seen[j] = true;
    while (!worklist.empty()) {
      const int64_t current = worklist.back();
      worklist.pop_back();
      if (current == out) return true;
      for (const auto& [next, p] : after[current]) {
        if (p != k && !seen[next]) {
          seen[next] = true;
          worklist.push_back(next);
        }
      }
    }
  }
  return false;
}

// `graph_of(fusion)`: the fusion's sharing graph, built once per fusion by
// a caller that asks many times.
bool FusionCanShare(const HloInstruction& fusion, int64_t operand_number,
                    const ShapeIndex& operand_index, const ShapeIndex& user_index,
                    absl::FunctionRef<FusionSharingGraph*(const HloInstruction&)> graph_of) {
  if (!OutputCanShare(fusion, operand_number, operand_index, user_index)) return false;
  if (user_index.empty()) return true;  // one output
  return !SharingCouldCycle(fusion, graph_of(fusion), operand_number, user_index[0]);
}

bool CanShare(const HloInstruction& user, int64_t operand_number, const ShapeIndex& operand_index,
              const ShapeIndex& user_index,
              absl::FunctionRef<FusionSharingGraph*(const HloInstruction&)> graph_of) {
  if (operand_number < 0 || operand_number >= user.operand_count()) return false;
  const Shape* operand_shape = user.operand(operand_number)->shape().Subshape(operand_index);
  const Shape* user_shape = user.shape().Subshape(user_index);
  if (operand_shape == nullptr || user_shape == nullptr) return false;
  switch (user.opcode()) {
    // An update in place keeps the operand's bytes where they are: only an
    // operand stored as the result is may be updated.
    case HloOpcode::kDynamicUpdateSlice:
      return operand_number == 0 && operand_index.empty() && user_index.empty() &&
             SamePhysicalArray(*operand_shape, *user_shape);
    case HloOpcode::kScatter: {
      const int64_t n = (user.operand_count() - 1) / 2;
      if (operand_number >= n || !operand_index.empty()) return false;
      const bool position = n == 1 ? user_index.empty() : user_index == ShapeIndex{operand_number};
      return position && SamePhysicalArray(*operand_shape, *user_shape);
    }
    case HloOpcode::kWhile:
      return operand_number == 0 && operand_index == user_index && operand_shape->IsArray();
    case HloOpcode::kFusion:
      return FusionCanShare(user, operand_number, operand_index, user_index, graph_of);
    default:
      break;
  }
  if (user.IsElementwise()) {
    return operand_index.empty() && user_index.empty() &&
           SamePhysicalArray(*operand_shape, *user_shape);
  }
  return false;
}

}  // namespace

std::string HloPosition::ToString() const {
  return absl::StrCat("%", instruction->name(), IndexSuffix(index));
}

std::string HloUse::ToString() const {
  return absl::StrCat("%", instruction->name(), " operand ", operand_number,
                      IndexSuffix(operand_index));
}

HloValue::HloValue(int64_t id, const HloInstruction* instruction, ShapeIndex index, bool is_phi)
    : id_(id), instruction_(instruction), index_(std::move(index)), is_phi_(is_phi) {}

const Shape& HloValue::shape() const { return *instruction_->shape().Subshape(index_); }

bool HloValue::IsRootOf(const HloComputation* computation) const {
  const HloInstruction* root = computation->root_instruction();
  for (const HloPosition& position : positions_) {
    if (position.instruction == root) return true;
  }
  return false;
}

std::string HloValue::ToShortString() const {
  return absl::StrCat("%", instruction_->name(), IndexSuffix(index_));
}

bool IsForwardingInstruction(const HloInstruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kBitcast:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kDomain:
    case HloOpcode::kAddDependency:
      return true;
    default:
      return false;
  }
}

bool CanShareOperandBufferWithUser(const HloInstruction& user, int64_t operand_number,
                                   const ShapeIndex& operand_index, const ShapeIndex& user_index) {
  FusionSharingGraph graph;
  bool built = false;
  return CanShare(user, operand_number, operand_index, user_index,
                  [&](const HloInstruction& fusion) {
                    if (!built) graph = SharingGraphOf(fusion), built = true;
                    return &graph;
                  });
}

HloDataflowAnalysis::HloDataflowAnalysis(const HloModule& module) : module_(module) {}
HloDataflowAnalysis::~HloDataflowAnalysis() = default;

bool HloDataflowAnalysis::CanShareOperandBuffer(const HloInstruction& user, int64_t operand_number,
                                                const ShapeIndex& operand_index,
                                                const ShapeIndex& user_index) const {
  absl::MutexLock lock(&sharing_graphs_mutex_);
  return CanShare(user, operand_number, operand_index, user_index,
                  [&](const HloInstruction& fusion) {
                    std::unique_ptr<FusionSharingGraph>& graph = sharing_graphs_[&fusion];
                    if (graph == nullptr) {
                      graph = std::make_unique<FusionSharingGraph>(SharingGraphOf(fusion));
                    }
                    return graph.get();
                  });
}

absl::StatusOr<std::unique_ptr<HloDataflowAnalysis>> HloDataflowAnalysis::Run(
    const HloModule& module) {
  if (module.entry_computation() == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("module ", module.name(), " has no entry computation"));
  }
  std::unique_ptr<HloDataflowAnalysis> analysis(new HloDataflowAnalysis(module));
  analysis->ComputeContexts();
  analysis->Analyze(module.entry_computation(), nullptr);
  for (const HloComputation* computation : module.MakeComputationPostOrder()) {
    if (analysis->context(computation) == Context::kFusion) continue;
    if (analysis->analyzed_.contains(computation)) continue;
    // A flat computation whose caller is never analysed (it sits in a fused
    // computation) is analysed on its own.
    analysis->contexts_[computation] = Context::kIsolated;
    analysis->callers_.erase(computation);
    analysis->Analyze(computation, nullptr);
  }
  analysis->ComputeUses();
  return analysis;
}

void HloDataflowAnalysis::ComputeContexts() {
  struct Sites {
    int sequential = 0;
    int other = 0;
    const HloInstruction* caller = nullptr;
    bool fused = false;
  };
  absl::flat_hash_map<const HloComputation*, Sites> sites;
  const std::vector<HloComputation*> computations = module_.computations();
  for (const HloComputation* computation : computations) {
    for (const HloInstruction* instruction : computation->instructions()) {
      for (const HloComputation* callee : instruction->called_computations()) {
        Sites& s = sites[callee];
        switch (instruction->opcode()) {
          case HloOpcode::kWhile:
          case HloOpcode::kConditional:
          case HloOpcode::kCall:
            ++s.sequential;
            s.caller = instruction;
            break;
          case HloOpcode::kFusion:
            s.fused = true;
            break;
          default:
            ++s.other;
            break;
        }
      }
    }
  }
  for (const HloComputation* computation : computations) {
    const Sites& s = sites[computation];
    Context context = Context::kIsolated;
    if (computation == module_.entry_computation()) {
      context = Context::kEntry;
    } else if (computation->IsFusionComputation() || s.fused) {
      context = Context::kFusion;
    } else if (s.sequential == 1 && s.other == 0) {
      context = Context::kFlat;
      callers_[computation] = s.caller;
    }
    contexts_[computation] = context;
  }
  // The sequential scope: the entry and flat callees, callers first.
  absl::flat_hash_set<const HloComputation*> in_scope;
  absl::flat_hash_set<const HloComputation*> unflattened;
  std::vector<const HloComputation*> worklist = {module_.entry_computation()};
  in_scope.insert(module_.entry_computation());
  for (size_t next = 0; next < worklist.size(); ++next) {
    const HloComputation* computation = worklist[next];
    sequential_computations_.push_back(computation);
    for (const HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      if (instruction->opcode() != HloOpcode::kWhile &&
          instruction->opcode() != HloOpcode::kConditional &&
          instruction->opcode() != HloOpcode::kCall) {
        continue;
      }
      for (const HloComputation* callee : instruction->called_computations()) {
        if (context(callee) == Context::kFlat) {
          if (in_scope.insert(callee).second) worklist.push_back(callee);
        } else if (unflattened.insert(callee).second) {
          unflattened_callees_.push_back(callee);
        }
      }
    }
  }
}

HloDataflowAnalysis::Context HloDataflowAnalysis::context(
    const HloComputation* computation) const {
  auto it = contexts_.find(computation);
  return it == contexts_.end() ? Context::kIsolated : it->second;
}

const HloInstruction* HloDataflowAnalysis::caller(const HloComputation* computation) const {
  auto it = callers_.find(computation);
  return it == callers_.end() ? nullptr : it->second;
}

bool HloDataflowAnalysis::InSequentialScope(const HloComputation* computation) const {
  return std::find(sequential_computations_.begin(), sequential_computations_.end(),
                   computation) != sequential_computations_.end();
}

const HloInstruction* HloDataflowAnalysis::LiftToComputation(
    const HloInstruction* instruction, const HloComputation* computation) const {
  const HloInstruction* current = instruction;
  for (int depth = 0; current != nullptr && depth < 10000; ++depth) {
    if (current->parent() == computation) return current;
    current = caller(current->parent());
  }
  return nullptr;
}

HloValue* HloDataflowAnalysis::NewValue(const HloInstruction* instruction,
                                        const ShapeIndex& index, bool is_phi) {
  values_.push_back(
      std::make_unique<HloValue>(static_cast<int64_t>(values_.size()), instruction, index, is_phi));
  return values_.back().get();
}

void HloDataflowAnalysis::SetLeaves(const HloInstruction* instruction,
                                    std::vector<HloLeafValue> leaves) {
  for (const HloLeafValue& leaf : leaves) {
    const_cast<HloValue*>(leaf.value)->positions_.push_back({instruction, leaf.index});
  }
  leaves_[instruction] = std::move(leaves);
}

void HloDataflowAnalysis::DefineAll(const HloInstruction* instruction, bool is_phi) {
  std::vector<HloLeafValue> leaves;
  ForEachSubshape(instruction->shape(), [&](const Shape& subshape, const ShapeIndex& index) {
    if (subshape.IsArray()) leaves.push_back({index, NewValue(instruction, index, is_phi)});
  });
  SetLeaves(instruction, std::move(leaves));
}

const std::vector<HloLeafValue>& HloDataflowAnalysis::GetLeafValues(
    const HloInstruction* instruction) const {
  static const std::vector<HloLeafValue>* const kEmpty = new std::vector<HloLeafValue>();
  auto it = leaves_.find(instruction);
  return it == leaves_.end() ? *kEmpty : it->second;
}

const HloValue* HloDataflowAnalysis::GetValueAt(const HloInstruction* instruction,
                                                const ShapeIndex& index) const {
  for (const HloLeafValue& leaf : GetLeafValues(instruction)) {
    if (leaf.index == index) return leaf.value;
  }
  return nullptr;
}

const HloValue* HloDataflowAnalysis::GetValueDefinedAt(const HloInstruction* instruction,
                                                       const ShapeIndex& index) const {
  const HloValue* value = GetValueAt(instruction, index);
  if (value == nullptr || value->defining_instruction() != instruction ||
      value->defining_index() != index) {
    return nullptr;
  }
  return value;
}

std::vector<const HloValue*> HloDataflowAnalysis::GetValuesDefinedBy(
    const HloInstruction* instruction) const {
  std::vector<const HloValue*> defined;
  for (const HloLeafValue& leaf : GetLeafValues(instruction)) {
    if (leaf.value->defining_instruction() == instruction) defined.push_back(leaf.value);
  }
  return defined;
}

void HloDataflowAnalysis::Analyze(
    const HloComputation* computation,
    const std::vector<const std::vector<HloLeafValue>*>* parameter_leaves) {
  if (analyzed_[computation]) return;
  analyzed_[computation] = true;
  const bool parameters_forward = parameter_leaves != nullptr;
  for (const HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
    AnalyzeInstruction(instruction, parameters_forward, parameter_leaves);
  }
}

void HloDataflowAnalysis::AnalyzeInstruction(
    const HloInstruction* instruction, bool parameters_forward,
    const std::vector<const std::vector<HloLeafValue>*>* parameter_leaves) {
  auto operand_leaves = [&](int64_t i) -> const std::vector<HloLeafValue>& {
    return GetLeafValues(instruction->operand(i));
  };
  auto flat_callee = [&](const HloComputation* callee) {
    return context(callee) == Context::kFlat && caller(callee) == instruction;
  };
  auto count_leaves = [](const Shape& shape) {
    int64_t count = 0;
    ForEachSubshape(shape, [&](const Shape& s, const ShapeIndex&) { count += s.IsArray(); });
    return count;
  };
  switch (instruction->opcode()) {
    case HloOpcode::kParameter: {
      const int64_t number = instruction->parameter_number();
      if (parameters_forward && number >= 0 &&
          number < static_cast<int64_t>(parameter_leaves->size()) &&
          static_cast<int64_t>((*parameter_leaves)[number]->size()) ==
              count_leaves(instruction->shape())) {
        SetLeaves(instruction, *(*parameter_leaves)[number]);
      } else {
        DefineAll(instruction, false);
      }
      return;
    }
    case HloOpcode::kTuple: {
      std::vector<HloLeafValue> leaves;
      for (int64_t i = 0; i < instruction->operand_count(); ++i) {
        for (const HloLeafValue& leaf : operand_leaves(i)) {
          ShapeIndex index = {i};
          index.insert(index.end(), leaf.index.begin(), leaf.index.end());
          leaves.push_back({std::move(index), leaf.value});
        }
      }
      SetLeaves(instruction, std::move(leaves));
      return;
    }
    case HloOpcode::kGetTupleElement: {
      std::vector<HloLeafValue> leaves;
      if (instruction->operand_count() == 1) {
        const ShapeIndex prefix = {instruction->tuple_index()};
        for (const HloLeafValue& leaf : operand_leaves(0)) {
          if (!IsPrefix(prefix, leaf.index)) continue;
          leaves.push_back({ShapeIndex(leaf.index.begin() + 1, leaf.index.end()), leaf.value});
        }
      }
      SetLeaves(instruction, std::move(leaves));
      return;
    }
    case HloOpcode::kBitcast:
      if (instruction->operand_count() == 1 && instruction->shape().IsArray() &&
          instruction->operand(0)->shape().IsArray() && operand_leaves(0).size() == 1) {
        SetLeaves(instruction, {{ShapeIndex{}, operand_leaves(0)[0].value}});
      } else {
        DefineAll(instruction, false);
      }
      return;
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kDomain:
    case HloOpcode::kAddDependency:
      if (instruction->operand_count() >= 1 &&
          static_cast<int64_t>(operand_leaves(0).size()) == count_leaves(instruction->shape())) {
        SetLeaves(instruction, operand_leaves(0));
      } else {
        DefineAll(instruction, false);
      }
      return;
    case HloOpcode::kCall: {
      const HloComputation* callee =
          instruction->called_computations().empty() ? nullptr : instruction->to_apply();
      if (callee != nullptr && flat_callee(callee) &&
          callee->num_parameters() == instruction->operand_count()) {
        // Copies: analysing the callee adds entries to leaves_.
        std::vector<std::vector<HloLeafValue>> copies;
        for (int64_t i = 0; i < instruction->operand_count(); ++i) {
          copies.push_back(operand_leaves(i));
        }
        std::vector<const std::vector<HloLeafValue>*> arguments;
        for (const auto& copy : copies) arguments.push_back(&copy);
        Analyze(callee, &arguments);
        SetLeaves(instruction, GetLeafValues(callee->root_instruction()));
      } else {
        DefineAll(instruction, false);
      }
      return;
    }
    case HloOpcode::kWhile: {
      DefineAll(instruction, true);
      if (instruction->called_computations().size() != 2 || instruction->operand_count() != 1) {
        return;
      }
      const std::vector<HloLeafValue> state = GetLeafValues(instruction);
      const std::vector<const std::vector<HloLeafValue>*> arguments = {&state};
      const HloComputation* body = instruction->while_body();
      for (const HloComputation* callee : instruction->called_computations()) {
        if (flat_callee(callee)) Analyze(callee, &arguments);
      }
      for (const HloLeafValue& leaf : state) {
        HloValue* phi = const_cast<HloValue*>(leaf.value);
        if (const HloValue* init = GetValueAt(instruction->operand(0), leaf.index)) {
          phi->phi_inputs_.push_back(init);
        }
        if (flat_callee(body)) {
          if (const HloValue* next = GetValueAt(body->root_instruction(), leaf.index)) {
            if (next != phi) phi->phi_inputs_.push_back(next);
          }
        }
      }
      return;
    }
    case HloOpcode::kConditional: {
      DefineAll(instruction, true);
      const int64_t branches = instruction->called_computations().size();
      if (instruction->operand_count() != branches + 1) return;
      const std::vector<HloLeafValue> merged = GetLeafValues(instruction);
      for (int64_t b = 0; b < branches; ++b) {
        const HloComputation* branch = instruction->called_computations()[b];
        if (!flat_callee(branch)) continue;
        const std::vector<HloLeafValue> operand = operand_leaves(b + 1);
        const std::vector<const std::vector<HloLeafValue>*> arguments = {&operand};
        Analyze(branch, &arguments);
        for (const HloLeafValue& leaf : merged) {
          if (const HloValue* input = GetValueAt(branch->root_instruction(), leaf.index)) {
            const_cast<HloValue*>(leaf.value)->phi_inputs_.push_back(input);
          }
        }
      }
      return;
    }
    default:
      DefineAll(instruction, false);
      return;
  }
}

void HloDataflowAnalysis::ComputeUses() {
  // Deterministic order: computations in post order, instructions in post order.
  for (const HloComputation* computation : module_.MakeComputationPostOrder()) {
    if (!analyzed_.contains(computation)) continue;
    for (const HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      if (IsForwardingInstruction(*instruction)) continue;
      for (int64_t i = 0; i < instruction->operand_count(); ++i) {
        for (const HloLeafValue& leaf : GetLeafValues(instruction->operand(i))) {
          HloValue* value = const_cast<HloValue*>(leaf.value);
          HloUse use{instruction, i, leaf.index};
          if (std::find(value->uses_.begin(), value->uses_.end(), use) == value->uses_.end()) {
            value->uses_.push_back(std::move(use));
          }
        }
      }
    }
  }
}

std::string HloDataflowAnalysis::ToString() const {
  std::string out = absl::StrCat("HloDataflowAnalysis of ", module_.name(), "\n");
  for (const auto& value : values_) {
    std::vector<std::string> positions, uses;
    for (const HloPosition& p : value->positions()) positions.push_back(p.ToString());
    for (const HloUse& u : value->uses()) uses.push_back(u.ToString());
    absl::StrAppend(&out, "  v", value->id(), " ", value->ToShortString(),
                    value->is_phi() ? " (phi)" : "", ": positions {",
                    absl::StrJoin(positions, ", "), "} uses {", absl::StrJoin(uses, ", "), "}\n");
  }
  return out;
}

}  // namespace tessera
