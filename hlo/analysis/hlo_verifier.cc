// The HLO verifier: graph structure first (so later checks may follow
// operands and called computations safely), then each instruction against
// shape inference, then the module-level configuration.
#include "hlo/analysis/hlo_verifier.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/analysis/shape_inference.h"
#include "hlo/ir/status_macros.h"

namespace tessera {
namespace {

std::string OpName(HloOpcode opcode) { return std::string(HloOpcodeString(opcode)); }

template <typename... Args>
absl::Status Malformed(const Args&... args) {
  return absl::FailedPreconditionError(absl::StrCat(args...));
}

template <typename... Args>
absl::Status Invalid(const Args&... args) {
  return absl::InvalidArgumentError(absl::StrCat(args...));
}

// Prefixes an error with where it happened.
absl::Status InComputation(const HloComputation& computation, absl::Status status) {
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrCat("computation ", computation.name(), ": ", status.message()));
}

// ---------------------------------------------------------------------------
// Shapes and layouts.
// ---------------------------------------------------------------------------

}  // namespace

absl::Status ValidateShape(const Shape& shape, const HloVerifierOptions& options) {
  const PrimitiveType type = shape.element_type();
  if (!IsKnownPrimitiveType(type) || type == PRIMITIVE_TYPE_INVALID) {
    return Invalid("shape has invalid element type ", static_cast<int>(type));
  }
  if (!shape.IsArray()) {
    if (shape.rank() != 0) return Invalid("non-array shape ", shape.ToString(), " has dimensions");
    for (const Shape& element : shape.tuple_shapes()) {
      TS_RETURN_IF_ERROR(ValidateShape(element, options));
    }
    return absl::OkStatus();
  }
  for (int64_t d : shape.dimensions()) {
    if (d == Shape::kUnboundedSize) {
      if (!options.allow_unbounded_dynamism) {
        return Invalid("shape ", shape.ToString(), " has an unbounded dimension");
      }
    } else if (d < 0) {
      return Invalid("shape ", shape.ToString(), " has a negative dimension");
    }
  }
  if (!shape.dynamic_dimensions().empty() &&
      static_cast<int64_t>(shape.dynamic_dimensions().size()) != shape.rank()) {
    return Invalid("shape ", shape.ToString(), " has a malformed dynamic-dimension list");
  }
  if (shape.has_layout()) {
    const Layout& layout = shape.layout();
    std::vector<bool> seen(shape.rank(), false);
    bool ok = static_cast<int64_t>(layout.minor_to_major.size()) == shape.rank();
    for (int64_t d : layout.minor_to_major) {
      if (!ok || d < 0 || d >= shape.rank() || seen[d]) {
        ok = false;
        break;
      }
      seen[d] = true;
    }
    if (!ok) {
      return Invalid("layout ", layout.ToString(), " of ", shape.ToString(),
                     " is not a permutation of its ", shape.rank(), " dimensions");
    }
    if (layout.element_size_in_bits < 0 || layout.memory_space < 0) {
      return Invalid("layout ", layout.ToString(), " of ", shape.ToString(), " is invalid");
    }
  }
  return absl::OkStatus();
}

namespace {

// Equal element types and dimensions; layouts compared where both shapes
// have one.
bool SameShapeAndLayout(const Shape& a, const Shape& b) {
  if (!ShapesCompatible(a, b)) return false;
  if (a.IsTuple()) {
    for (int64_t i = 0; i < a.tuple_size(); ++i) {
      if (!SameShapeAndLayout(a.tuple_shapes(i), b.tuple_shapes(i))) return false;
    }
    return true;
  }
  if (a.IsArray() && a.has_layout() && b.has_layout()) {
    return a.layout().minor_to_major == b.layout().minor_to_major;
  }
  return true;
}

bool ShapesSame(const Shape& a, const Shape& b, const HloVerifierOptions& options) {
  return options.layout_sensitive ? SameShapeAndLayout(a, b) : ShapesCompatible(a, b);
}

// Ops whose result is an existing buffer passed through: no implicit layout
// or precision change is allowed (XLA's list in ShapeVerifier::CheckShape,
// plus fusion and the async wrappers, which XLA compares the same way).
bool PassesBuffersThrough(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAsyncDone:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kFusion:
    case HloOpcode::kBitcast:
    case HloOpcode::kCall:
    case HloOpcode::kConditional:
    case HloOpcode::kConstant:
    case HloOpcode::kCopyDone:
    case HloOpcode::kCopyStart:
    case HloOpcode::kCustomCall:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kParameter:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kTuple:
    case HloOpcode::kWhile:
      return true;
    default:
      return false;
  }
}

// Ops whose operands may mix floating-point precisions even without
// allow_mixed_precision (XLA's CheckMixedPrecisionOperands list).
bool MayMixOperandPrecision(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kCall:
    case HloOpcode::kConditional:
    case HloOpcode::kConstant:
    case HloOpcode::kConvolution:
    case HloOpcode::kCopyDone:
    case HloOpcode::kCopyStart:
    case HloOpcode::kCustomCall:
    case HloOpcode::kDomain:
    case HloOpcode::kDot:
    case HloOpcode::kFusion:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kInfeed:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kOutfeed:
    case HloOpcode::kParameter:
    case HloOpcode::kRaggedDot:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
    case HloOpcode::kReducePrecision:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kScaledDot:
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kSort:
    case HloOpcode::kTuple:
    case HloOpcode::kWhile:
      return true;
    default:
      return false;
  }
}

absl::Status CheckNoMixedPrecision(const HloInstruction& hlo) {
  if (MayMixOperandPrecision(hlo.opcode())) return absl::OkStatus();
  PrimitiveType seen = PRIMITIVE_TYPE_INVALID;
  for (const HloInstruction* operand : hlo.operands()) {
    absl::Status status;
    ForEachSubshape(operand->shape(), [&](const Shape& subshape, const ShapeIndex&) {
      const PrimitiveType t = subshape.element_type();
      if (!IsFloatingPointType(t) || !status.ok()) return;
      if (seen == PRIMITIVE_TYPE_INVALID) {
        seen = t;
      } else if (seen != t) {
        status = Invalid("%", hlo.name(), ": operands mix ", std::string(PrimitiveTypeName(seen)),
                         " and ", std::string(PrimitiveTypeName(t)),
                         " (mixed precision is not allowed)");
      }
    });
    TS_RETURN_IF_ERROR(status);
  }
  // Reductions and maps must also apply their computation to exactly the
  // operand types.
  switch (hlo.opcode()) {
    case HloOpcode::kMap:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow: {
      TS_ASSIGN_OR_RETURN(ProgramShape to_apply,
                          ComputationSignature(hlo.called_computations()[0]));
      for (int64_t i = 0;
           i < hlo.operand_count() && i < static_cast<int64_t>(to_apply.parameters.size()); ++i) {
        if (to_apply.parameters[i].element_type() != hlo.operand(i)->shape().element_type()) {
          return Invalid("%", hlo.name(), ": parameter ", i, " of computation ",
                         hlo.called_computations()[0]->name(), " is ",
                         to_apply.parameters[i].ToString(), " but operand ", i, " is ",
                         hlo.operand(i)->shape().ToString(), " (mixed precision is not allowed)");
        }
      }
      break;
    }
    default:
      break;
  }
  return absl::OkStatus();
}

// With layouts, the operands of calling ops must match the called
// computations' parameters exactly (shape inference compares them without
// layouts).
absl::Status CheckCalleeParameterLayouts(const HloInstruction& hlo) {
  auto check = [&](int64_t operand, const HloComputation* callee,
                   int64_t parameter) -> absl::Status {
    const Shape& actual = hlo.operand(operand)->shape();
    const Shape& expected = callee->parameter_instruction(parameter)->shape();
    if (!SameShapeAndLayout(actual, expected)) {
      return Invalid("%", hlo.name(), ": operand ", operand, " ", actual.ToString(true),
                     " does not match parameter ", parameter, " ", expected.ToString(true),
                     " of computation ", callee->name());
    }
    return absl::OkStatus();
  };
  const auto& called = hlo.called_computations();
  switch (hlo.opcode()) {
    case HloOpcode::kCall:
    case HloOpcode::kFusion:
    case HloOpcode::kAsyncStart:
      for (int64_t i = 0; i < hlo.operand_count(); ++i) TS_RETURN_IF_ERROR(check(i, called[0], i));
      break;
    case HloOpcode::kWhile:
      TS_RETURN_IF_ERROR(check(0, called[0], 0));
      TS_RETURN_IF_ERROR(check(0, called[1], 0));
      break;
    case HloOpcode::kConditional:
      for (size_t j = 0; j < called.size(); ++j) {
        TS_RETURN_IF_ERROR(check(static_cast<int64_t>(j) + 1, called[j], 0));
      }
      break;
    default:
      break;
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Graph structure.
// ---------------------------------------------------------------------------

absl::Status CheckParameters(const HloComputation& computation) {
  std::vector<const HloInstruction*> by_number;
  for (const HloInstruction* hlo : computation.instructions()) {
    if (hlo->opcode() != HloOpcode::kParameter) continue;
    const int64_t number = hlo->parameter_number();
    if (number < 0 || number > computation.instruction_count()) {
      return Malformed("%", hlo->name(), ": parameter number ", number, " is out of range");
    }
    if (number >= static_cast<int64_t>(by_number.size())) by_number.resize(number + 1, nullptr);
    if (by_number[number] != nullptr) {
      return Malformed("parameter number ", number, " is used by both %", by_number[number]->name(),
                       " and %", hlo->name());
    }
    by_number[number] = hlo;
  }
  for (size_t i = 0; i < by_number.size(); ++i) {
    if (by_number[i] == nullptr) {
      return Malformed("parameter numbers must be 0..", by_number.size() - 1, " but parameter ", i,
                       " is missing");
    }
  }
  const auto& registered = computation.parameter_instructions();
  if (registered.size() != by_number.size() ||
      !std::equal(registered.begin(), registered.end(), by_number.begin())) {
    return Malformed(
        "the computation's parameter list does not match its parameter "
        "instructions");
  }
  return absl::OkStatus();
}

// Operands and control edges stay inside the computation; no cycles.
absl::Status CheckEdgesAndCycles(const HloComputation& computation) {
  const std::vector<HloInstruction*> instructions = computation.instructions();
  for (const HloInstruction* hlo : instructions) {
    for (int64_t i = 0; i < hlo->operand_count(); ++i) {
      const HloInstruction* operand = hlo->operand(i);
      if (operand == nullptr) return Malformed("%", hlo->name(), ": operand ", i, " is null");
      if (operand->parent() != &computation || !computation.Contains(operand)) {
        return Malformed("%", hlo->name(), ": operand ", i, " %", operand->name(),
                         " belongs to another computation");
      }
    }
    for (const auto* edges : {&hlo->control_predecessors(), &hlo->control_successors()}) {
      for (const HloInstruction* other : *edges) {
        if (other == nullptr || !computation.Contains(other)) {
          return Malformed("%", hlo->name(),
                           ": control edge to an instruction of another "
                           "computation");
        }
      }
    }
  }
  // Iterative DFS: 0 unvisited, 1 on the stack, 2 done.
  absl::flat_hash_map<const HloInstruction*, int> state;
  for (const HloInstruction* start : instructions) {
    if (state[start] != 0) continue;
    std::vector<std::pair<const HloInstruction*, size_t>> stack = {{start, 0}};
    state[start] = 1;
    while (!stack.empty()) {
      auto& [current, next] = stack.back();
      const size_t n_operands = current->operands().size();
      const size_t total = n_operands + current->control_predecessors().size();
      if (next == total) {
        state[current] = 2;
        stack.pop_back();
        continue;
      }
      const HloInstruction* pred = next < n_operands
                                       ? current->operand(next)
                                       : current->control_predecessors()[next - n_operands];
      ++next;
      int& s = state[pred];
      if (s == 1) {
        return Malformed("cycle through %", pred->name(), " (via operands or control edges)");
      }
      if (s == 0) {
        s = 1;
        stack.push_back({pred, 0});
      }
    }
  }
  return absl::OkStatus();
}

absl::Status CheckComputationStructure(const HloComputation& computation,
                                       const absl::flat_hash_set<const HloComputation*>& known) {
  absl::flat_hash_map<std::string, const HloInstruction*> names;
  for (const HloInstruction* hlo : computation.instructions()) {
    if (hlo == nullptr) return Malformed("null instruction");
    if (hlo->parent() != &computation) {
      return Malformed("%", hlo->name(), " does not name this computation as its parent");
    }
    auto [it, inserted] = names.emplace(hlo->name(), hlo);
    if (!inserted) return Malformed("instruction name %", hlo->name(), " is used twice");
    for (const HloComputation* callee : hlo->called_computations()) {
      if (callee == nullptr) return Malformed("%", hlo->name(), ": called computation is null");
      if (!known.contains(callee)) {
        return Malformed("%", hlo->name(), ": called computation ", callee->name(),
                         " is not in the module");
      }
    }
  }
  const HloInstruction* root = computation.root_instruction();
  if (root == nullptr) return Malformed("no root instruction");
  if (!computation.Contains(root)) {
    return Malformed("root %", root->name(), " is not an instruction of this computation");
  }
  TS_RETURN_IF_ERROR(CheckParameters(computation));
  return CheckEdgesAndCycles(computation);
}

// Computations must not call themselves, directly or through others.
absl::Status CheckNoRecursion(const std::vector<HloComputation*>& computations) {
  absl::flat_hash_map<const HloComputation*, int> state;
  for (const HloComputation* start : computations) {
    if (state[start] != 0) continue;
    std::vector<std::pair<const HloComputation*, std::vector<const HloComputation*>>> stack;
    auto callees = [](const HloComputation* c) {
      std::vector<const HloComputation*> result;
      for (const HloInstruction* hlo : c->instructions()) {
        for (const HloComputation* callee : hlo->called_computations()) result.push_back(callee);
      }
      return result;
    };
    state[start] = 1;
    stack.push_back({start, callees(start)});
    while (!stack.empty()) {
      auto& [current, pending] = stack.back();
      if (pending.empty()) {
        state[current] = 2;
        stack.pop_back();
        continue;
      }
      const HloComputation* next = pending.back();
      pending.pop_back();
      int& s = state[next];
      if (s == 1) return Malformed("computation ", next->name(), " calls itself recursively");
      if (s == 0) {
        s = 1;
        stack.push_back({next, callees(next)});
      }
    }
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Async pairs and schedule.
// ---------------------------------------------------------------------------

absl::Status CheckSingleUser(const HloInstruction& hlo, std::initializer_list<HloOpcode> allowed) {
  if (hlo.user_count() != 1) {
    return Malformed("%", hlo.name(), ": ", OpName(hlo.opcode()),
                     " must have exactly one user, has ", hlo.user_count());
  }
  const HloOpcode user = hlo.users()[0]->opcode();
  if (std::find(allowed.begin(), allowed.end(), user) == allowed.end()) {
    return Malformed("%", hlo.name(), ": ", OpName(hlo.opcode()), " may not be used by ",
                     OpName(user));
  }
  return absl::OkStatus();
}

absl::Status CheckSingleOperand(const HloInstruction& hlo,
                                std::initializer_list<HloOpcode> allowed) {
  const HloOpcode operand = hlo.operand(0)->opcode();
  if (std::find(allowed.begin(), allowed.end(), operand) == allowed.end()) {
    return Malformed("%", hlo.name(), ": the operand of ", OpName(hlo.opcode()), " may not be ",
                     OpName(operand));
  }
  return absl::OkStatus();
}

absl::Status CheckAsyncPairing(const HloInstruction& hlo) {
  using Op = HloOpcode;
  switch (hlo.opcode()) {
    case Op::kAsyncStart:
      return CheckSingleUser(hlo, {Op::kAsyncUpdate, Op::kAsyncDone});
    case Op::kAsyncUpdate:
      TS_RETURN_IF_ERROR(CheckSingleOperand(hlo, {Op::kAsyncStart, Op::kAsyncUpdate}));
      return CheckSingleUser(hlo, {Op::kAsyncUpdate, Op::kAsyncDone});
    case Op::kAsyncDone:
      return CheckSingleOperand(hlo, {Op::kAsyncStart, Op::kAsyncUpdate});
    case Op::kAllReduceStart:
      return CheckSingleUser(hlo, {Op::kAllReduceDone});
    case Op::kAllReduceDone:
      return CheckSingleOperand(hlo, {Op::kAllReduceStart});
    case Op::kCopyStart:
      return CheckSingleUser(hlo, {Op::kCopyDone});
    case Op::kCopyDone:
      return CheckSingleOperand(hlo, {Op::kCopyStart});
    case Op::kCollectivePermuteStart:
      return CheckSingleUser(hlo, {Op::kCollectivePermuteDone});
    case Op::kCollectivePermuteDone:
      return CheckSingleOperand(hlo, {Op::kCollectivePermuteStart});
    case Op::kSend:
      if (hlo.IsRoot()) return absl::OkStatus();
      return CheckSingleUser(hlo, {Op::kSendDone, Op::kTuple});
    case Op::kSendDone:
      return CheckSingleOperand(hlo, {Op::kSend, Op::kGetTupleElement});
    case Op::kRecv:
      if (hlo.IsRoot()) return absl::OkStatus();
      return CheckSingleUser(hlo, {Op::kRecvDone, Op::kTuple});
    case Op::kRecvDone:
      return CheckSingleOperand(hlo, {Op::kRecv, Op::kGetTupleElement});
    default:
      return absl::OkStatus();
  }
}

absl::Status CheckSchedule(const HloModule& module) {
  if (!module.has_schedule()) return absl::OkStatus();
  for (const HloComputation* computation : module.computations()) {
    if (!module.schedule().HasSequence(computation)) continue;
    const auto& sequence = module.schedule().sequence(computation);
    absl::flat_hash_set<const HloInstruction*> done;
    for (const HloInstruction* hlo : sequence) {
      if (hlo == nullptr || !computation->Contains(hlo)) {
        return Malformed("schedule of computation ", computation->name(),
                         " names an instruction of another computation");
      }
      if (done.contains(hlo)) {
        return Malformed("schedule of computation ", computation->name(), " lists %", hlo->name(),
                         " twice");
      }
      for (const auto* preds : {&hlo->operands(), &hlo->control_predecessors()}) {
        for (const HloInstruction* pred : *preds) {
          if (!done.contains(pred)) {
            return Malformed("schedule of computation ", computation->name(), " puts %",
                             hlo->name(), " before its operand %", pred->name());
          }
        }
      }
      done.insert(hlo);
    }
    if (static_cast<int64_t>(done.size()) != computation->instruction_count()) {
      return Malformed("schedule of computation ", computation->name(), " lists ", done.size(),
                       " of its ", computation->instruction_count(), " instructions");
    }
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Module configuration.
// ---------------------------------------------------------------------------

absl::Status CheckEntryLayout(const HloModule& module, const HloVerifierOptions& options) {
  const HloComputation& entry = *module.entry_computation();
  if (!module.config().entry_computation_layout.has_value()) return absl::OkStatus();
  const ProgramShape& layout = *module.config().entry_computation_layout;
  if (static_cast<int64_t>(layout.parameters.size()) != entry.num_parameters()) {
    return Invalid("entry_computation_layout has ", layout.parameters.size(),
                   " parameter(s) but the entry computation ", entry.name(), " has ",
                   entry.num_parameters());
  }
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    TS_RETURN_IF_ERROR(ValidateShape(layout.parameters[i], options));
    const Shape& actual = entry.parameter_instruction(i)->shape();
    if (!ShapesSame(actual, layout.parameters[i], options)) {
      return Invalid("entry_computation_layout parameter ", i, " ",
                     layout.parameters[i].ToString(true), " does not match entry parameter ",
                     actual.ToString(true));
    }
  }
  TS_RETURN_IF_ERROR(ValidateShape(layout.result, options));
  if (!ShapesSame(entry.root_instruction()->shape(), layout.result, options)) {
    return Invalid("entry_computation_layout result ", layout.result.ToString(true),
                   " does not match the entry root ",
                   entry.root_instruction()->shape().ToString(true));
  }
  return absl::OkStatus();
}

// The entry parameter buffer at `index` of parameter `number`, or an error.
absl::StatusOr<const Shape*> EntryParameterSubshape(const HloComputation& entry, int64_t number,
                                                    const ShapeIndex& index,
                                                    const std::string& what) {
  if (number < 0 || number >= entry.num_parameters()) {
    return Invalid(what, " names parameter ", number, " but the entry computation has ",
                   entry.num_parameters());
  }
  const Shape* shape = entry.parameter_instruction(number)->shape().Subshape(index);
  if (shape == nullptr) {
    return Invalid(what, " names index ", ShapeIndexToString(index), " of parameter ", number, " ",
                   entry.parameter_instruction(number)->shape().ToString(),
                   ", which does not exist");
  }
  return shape;
}

absl::Status CheckAliasing(const HloModule& module) {
  const HloComputation& entry = *module.entry_computation();
  const Shape& result = entry.root_instruction()->shape();
  std::set<ShapeIndex> outputs;
  std::set<std::pair<int64_t, ShapeIndex>> parameters;
  for (const InputOutputAlias& alias : module.config().input_output_alias) {
    const std::string what =
        absl::StrCat("input_output_alias ", ShapeIndexToString(alias.output_index));
    const Shape* output = result.Subshape(alias.output_index);
    if (output == nullptr) {
      return Invalid(what, " names an output index that does not exist in ", result.ToString());
    }
    TS_ASSIGN_OR_RETURN(
        const Shape* parameter,
        EntryParameterSubshape(entry, alias.parameter_number, alias.parameter_index, what));
    if (!ShapesCompatible(*output, *parameter)) {
      return Invalid(what, ": output ", output->ToString(), " and parameter ",
                     alias.parameter_number, " ", ShapeIndexToString(alias.parameter_index), " ",
                     parameter->ToString(), " have different shapes");
    }
    if (!outputs.insert(alias.output_index).second) {
      return Invalid(what, ": the output is aliased twice");
    }
    if (!parameters.insert({alias.parameter_number, alias.parameter_index}).second) {
      return Invalid(what, ": parameter ", alias.parameter_number, " ",
                     ShapeIndexToString(alias.parameter_index), " is aliased twice");
    }
  }
  for (const BufferDonor& donor : module.config().buffer_donors) {
    const std::string what = absl::StrCat("buffer_donor (", donor.parameter_number, ", ",
                                          ShapeIndexToString(donor.parameter_index), ")");
    TS_RETURN_IF_ERROR(
        EntryParameterSubshape(entry, donor.parameter_number, donor.parameter_index, what)
            .status());
    if (!parameters.insert({donor.parameter_number, donor.parameter_index}).second) {
      return Invalid(what, " is already aliased or donated");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status VerifyHloInstruction(const HloInstruction& hlo, const HloVerifierOptions& options) {
  {
    absl::Status status = ValidateShape(hlo.shape(), options);
    if (!status.ok()) return Invalid("%", hlo.name(), ": ", status.message());
  }
  TS_ASSIGN_OR_RETURN(Shape inferred, InferShape(hlo));
  bool same;
  if (PassesBuffersThrough(hlo.opcode())) {
    same = ShapesSame(hlo.shape(), inferred, options);
  } else if (options.allow_mixed_precision) {
    same = ShapesCompatibleIgnoringFpPrecision(hlo.shape(), inferred);
  } else {
    same = ShapesCompatible(hlo.shape(), inferred);
  }
  if (!same) {
    const bool layouts = options.layout_sensitive && ShapesCompatible(hlo.shape(), inferred);
    return Invalid("%", hlo.name(), ": declared shape ", hlo.shape().ToString(layouts),
                   " does not match the inferred shape ", inferred.ToString(layouts));
  }
  if (!options.allow_mixed_precision) TS_RETURN_IF_ERROR(CheckNoMixedPrecision(hlo));
  if (options.layout_sensitive) TS_RETURN_IF_ERROR(CheckCalleeParameterLayouts(hlo));
  return absl::OkStatus();
}

// Each computation's count of its callers (HloComputation::caller_count,
// which lets the module remove computations without a scan) against the
// calls its module's instructions make.
absl::Status CheckCallerCounts(const std::vector<HloComputation*>& computations) {
  absl::flat_hash_map<const HloComputation*, int64_t> calls;
  for (const HloComputation* computation : computations) {
    for (const HloInstruction* hlo : computation->instructions()) {
      for (const HloComputation* callee : hlo->called_computations()) ++calls[callee];
    }
  }
  for (const HloComputation* computation : computations) {
    const int64_t actual = calls.contains(computation) ? calls.at(computation) : 0;
    if (computation->caller_count() != actual) {
      return Malformed("computation ", computation->name(), " counts ", computation->caller_count(),
                       " calls to it, but the module makes ", actual);
    }
  }
  return absl::OkStatus();
}

absl::Status VerifyHloModule(const HloModule& module, const HloVerifierOptions& options) {
  const std::vector<HloComputation*> computations = module.computations();
  absl::flat_hash_set<const HloComputation*> known;
  absl::flat_hash_set<std::string> names;
  for (const HloComputation* computation : computations) {
    if (computation == nullptr)
      return Malformed("module ", module.name(), " has a null computation");
    if (computation->parent() != &module) {
      return Malformed("computation ", computation->name(), " does not belong to module ",
                       module.name());
    }
    if (!names.insert(computation->name()).second) {
      return Malformed("computation name ", computation->name(), " is used twice");
    }
    known.insert(computation);
  }
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return Malformed("module ", module.name(), " has no entry computation");
  if (!known.contains(entry)) {
    return Malformed("entry computation ", entry->name(), " is not in module ", module.name());
  }
  if (entry->IsFusionComputation()) {
    return Malformed("entry computation ", entry->name(), " is a fusion computation");
  }
  for (const HloComputation* computation : computations) {
    TS_RETURN_IF_ERROR(InComputation(*computation, CheckComputationStructure(*computation, known)));
  }
  TS_RETURN_IF_ERROR(CheckNoRecursion(computations));
  TS_RETURN_IF_ERROR(CheckCallerCounts(computations));
  for (const HloComputation* computation : computations) {
    for (const HloInstruction* hlo : computation->instructions()) {
      TS_RETURN_IF_ERROR(InComputation(*computation, VerifyHloInstruction(*hlo, options)));
      TS_RETURN_IF_ERROR(InComputation(*computation, CheckAsyncPairing(*hlo)));
    }
  }
  TS_RETURN_IF_ERROR(CheckEntryLayout(module, options));
  TS_RETURN_IF_ERROR(CheckAliasing(module));
  return CheckSchedule(module);
}

}  // namespace tessera
