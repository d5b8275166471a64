#include "passes/memory/arena_checker.h"

#include <cmath>
#include <complex>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/literal_comparison.h"
#include "hlo/ir/random_literal.h"
#include "hlo/ir/status_macros.h"

namespace tessera {
namespace {

constexpr uint8_t kPoison = 0xCD;
constexpr int64_t kArenaAlignment = 64;
constexpr int64_t kMaxLoopIterations = 1 << 20;

absl::Status Failed(absl::string_view message) {
  return absl::FailedPreconditionError(absl::StrCat("arena check: ", message));
}

std::string Name(const HloInstruction* instruction, const ShapeIndex& index) {
  return absl::StrCat("%", instruction->name(), index.empty() ? "" : ShapeIndexToString(index));
}

// ---------------------------------------------------------------------------
// Physical layout: element i (row-major) of a literal sits at position
// Physical(i) of the array's storage.

std::vector<int64_t> MinorToMajor(const Shape& shape) {
  if (shape.has_layout() &&
      static_cast<int64_t>(shape.layout().minor_to_major.size()) == shape.rank()) {
    return shape.layout().minor_to_major;
  }
  return Layout::Descending(shape.rank()).minor_to_major;
}

// Physical position of each row-major element; empty when they coincide.
std::vector<int64_t> PhysicalOrder(const Shape& shape) {
  const std::vector<int64_t> m2m = MinorToMajor(shape);
  if (m2m == Layout::Descending(shape.rank()).minor_to_major) return {};
  const int64_t rank = shape.rank();
  std::vector<int64_t> stride(rank, 1);
  int64_t s = 1;
  for (int64_t k = 0; k < rank; ++k) {
    stride[m2m[k]] = s;
    s *= shape.dimensions(m2m[k]);
  }
  const int64_t count = shape.ElementCount();
  std::vector<int64_t> order(count);
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t p = 0;
    for (int64_t d = 0; d < rank; ++d) p += index[d] * stride[d];
    order[i] = p;
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape.dimensions(d)) break;
      index[d] = 0;
    }
  }
  return order;
}

std::string ToPhysical(const Literal& literal, const Shape& shape) {
  const int64_t bytes = shape.ByteSize();
  std::string out(bytes, '\0');
  const auto* src = static_cast<const char*>(literal.untyped_data());
  const std::vector<int64_t> order = PhysicalOrder(shape);
  if (order.empty()) {
    std::memcpy(out.data(), src, std::min<int64_t>(bytes, literal.size_bytes()));
    return out;
  }
  const int64_t width = ByteWidth(shape.element_type());
  for (size_t i = 0; i < order.size(); ++i) {
    std::memcpy(out.data() + order[i] * width, src + i * width, width);
  }
  return out;
}

Literal FromPhysical(const std::string& bytes, const Shape& shape) {
  Shape logical = shape;
  logical.clear_layout();
  Literal literal(logical);
  literal.set_layout(shape.has_layout() ? shape.layout() : Layout::Descending(shape.rank()));
  auto* dst = static_cast<char*>(literal.untyped_data());
  const std::vector<int64_t> order = PhysicalOrder(shape);
  if (order.empty()) {
    std::memcpy(dst, bytes.data(), std::min<int64_t>(bytes.size(), literal.size_bytes()));
    return literal;
  }
  const int64_t width = ByteWidth(shape.element_type());
  for (size_t i = 0; i < order.size(); ++i) {
    std::memcpy(dst + i * width, bytes.data() + order[i] * width, width);
  }
  return literal;
}

// ---------------------------------------------------------------------------
// The checker's own in-place rule (deliberately not the assigner's code).

bool SameStorageShape(const Shape& a, const Shape& b) {
  return a.IsArray() && b.IsArray() && a.dimensions() == b.dimensions() &&
         ByteWidth(a.element_type()) == ByteWidth(b.element_type()) &&
         MinorToMajor(a) == MinorToMajor(b);
}

bool FusedParameterInPlace(const HloInstruction& fusion, int64_t k, const ShapeIndex& out) {
  const HloComputation* fused = fusion.fused_computation();
  if (k >= fused->num_parameters() || fused->parameter_instruction(k) == nullptr) return false;
  const HloInstruction* parameter = fused->parameter_instruction(k);
  const HloInstruction* root = fused->root_instruction();
  const HloInstruction* result = root;
  if (!out.empty()) {
    if (root->opcode() != HloOpcode::kTuple || out.size() != 1) return false;
    result = root->operand(out[0]);
  }
  if (result->opcode() == HloOpcode::kDynamicUpdateSlice && result->operand(0) == parameter &&
      parameter->users().size() == 1) {
    return true;
  }
  std::vector<const HloInstruction*> stack = {parameter};
  absl::flat_hash_set<const HloInstruction*> seen;
  while (!stack.empty()) {
    const HloInstruction* h = stack.back();
    stack.pop_back();
    for (const HloInstruction* user : h->users()) {
      if (user == root && root->opcode() == HloOpcode::kTuple) continue;
      if (!user->IsElementwise() || user->shape().dimensions() != parameter->shape().dimensions()) {
        return false;
      }
      if (seen.insert(user).second) stack.push_back(user);
    }
  }
  return true;
}

bool MayWriteOver(const HloInstruction& op, int64_t k, const ShapeIndex& operand_index,
                  const ShapeIndex& out) {
  const Shape* in_shape = op.operand(k)->shape().Subshape(operand_index);
  const Shape* out_shape = op.shape().Subshape(out);
  if (in_shape == nullptr || out_shape == nullptr || !SameStorageShape(*in_shape, *out_shape)) {
    return false;
  }
  switch (op.opcode()) {
    case HloOpcode::kDynamicUpdateSlice:
      return k == 0;
    case HloOpcode::kScatter: {
      const int64_t n = (op.operand_count() - 1) / 2;
      return k < n && operand_index.empty() && (n == 1 ? out.empty() : out == ShapeIndex{k});
    }
    case HloOpcode::kFusion:
      return operand_index.empty() && FusedParameterInPlace(op, k, out);
    default:
      return op.IsElementwise() && operand_index.empty() && out.empty();
  }
}

// ---------------------------------------------------------------------------

struct Leaf {
  ShapeIndex index;
  Shape shape;  // the array leaf's shape at this position
  BufferSlice slice;
  std::shared_ptr<const std::string> expected;  // physical bytes last written
  int64_t written_at = -1;                      // write log position
  std::string owner;                            // "%name{1}" of the value
};
using Binding = std::vector<Leaf>;

class ArenaInterpreter {
 public:
  ArenaInterpreter(const HloModule& module, const BufferAssignment& assignment)
      : module_(module), assignment_(assignment) {}

  absl::StatusOr<Literal> Run(absl::Span<const Literal> arguments) {
    if (!module_.has_schedule()) return Failed("the module is not scheduled");
    const std::vector<BufferAllocation>& allocations = assignment_.allocations();
    int64_t cursor = 0;
    for (const BufferAllocation& allocation : allocations) {
      base_.push_back(cursor);
      cursor += (allocation.size + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
    }
    arena_.assign(cursor, kPoison);
    const HloComputation* entry = module_.entry_computation();
    if (static_cast<int64_t>(arguments.size()) != entry->num_parameters()) {
      return absl::InvalidArgumentError(absl::StrCat("the entry takes ", entry->num_parameters(),
                                                     " arguments, not ", arguments.size()));
    }
    std::vector<Binding> parameters;
    for (int64_t p = 0; p < entry->num_parameters(); ++p) {
      const HloInstruction* parameter = entry->parameter_instruction(p);
      TS_ASSIGN_OR_RETURN(Binding binding, DefinedBinding(parameter));
      for (Leaf& leaf : binding) {
        const Literal* value = Subliteral(arguments[p], leaf.index);
        if (value == nullptr || !value->shape().IsArray() ||
            value->shape().dimensions() != leaf.shape.dimensions()) {
          return absl::InvalidArgumentError(
              absl::StrCat("argument ", p, " does not match ", Name(parameter, leaf.index)));
        }
        TS_RETURN_IF_ERROR(Write(&leaf, *value, "the caller", /*preload=*/true));
      }
      parameters.push_back(std::move(binding));
    }
    TS_RETURN_IF_ERROR(PreloadConstants(entry));
    TS_ASSIGN_OR_RETURN(Binding result, Execute(entry, parameters));
    return Assemble(result, entry->root_instruction()->shape(), {}, "the caller");
  }

 private:
  static const Literal* Subliteral(const Literal& literal, const ShapeIndex& index) {
    const Literal* current = &literal;
    for (int64_t i : index) {
      if (!current->shape().IsTuple() || i >= current->tuple_size()) return nullptr;
      current = &current->tuple_element(i);
    }
    return current;
  }

  // The slices the assignment gives the array leaves `instruction` defines.
  absl::StatusOr<Binding> DefinedBinding(const HloInstruction* instruction) {
    Binding binding;
    absl::Status status = absl::OkStatus();
    ForEachSubshape(instruction->shape(), [&](const Shape& subshape, const ShapeIndex& index) {
      if (!status.ok() || !subshape.IsArray()) return;
      absl::StatusOr<BufferSlice> slice = assignment_.GetSlice(instruction, index);
      if (!slice.ok()) {
        status = Failed(absl::StrCat("no slice for ", Name(instruction, index)));
        return;
      }
      if (slice->allocation < 0 ||
          slice->allocation >= static_cast<int64_t>(assignment_.allocations().size())) {
        status = Failed(absl::StrCat(Name(instruction, index), " is in no allocation"));
        return;
      }
      const BufferAllocation& allocation = assignment_.allocations()[slice->allocation];
      if (slice->offset < 0 || slice->size < subshape.ByteSize() ||
          slice->offset + subshape.ByteSize() > allocation.size) {
        status = Failed(absl::StrCat(Name(instruction, index), " (", subshape.ByteSize(),
                                     " bytes) does not fit its slice ", slice->ToString(), " of ",
                                     allocation.ToString()));
        return;
      }
      Leaf leaf;
      leaf.index = index;
      leaf.shape = subshape;
      leaf.slice = *slice;
      leaf.owner = Name(instruction, index);
      binding.push_back(std::move(leaf));
    });
    if (!status.ok()) return status;
    return binding;
  }

  char* Address(const BufferSlice& slice) {
    return reinterpret_cast<char*>(arena_.data()) + base_[slice.allocation] + slice.offset;
  }

  absl::Status Write(Leaf* leaf, const Literal& value, absl::string_view writer, bool preload) {
    const BufferAllocation& allocation = assignment_.allocations()[leaf->slice.allocation];
    if (!preload && allocation.read_only()) {
      return Failed(absl::StrCat(writer, " writes ", leaf->owner, " into read-only ",
                                 allocation.ToString()));
    }
    auto bytes = std::make_shared<const std::string>(ToPhysical(value, leaf->shape));
    std::memcpy(Address(leaf->slice), bytes->data(), bytes->size());
    leaf->expected = std::move(bytes);
    leaf->written_at = log_.size();
    log_.push_back({leaf->slice, std::string(writer), leaf->owner});
    return absl::OkStatus();
  }

  absl::StatusOr<Literal> Read(const Leaf& leaf, absl::string_view reader) {
    if (leaf.expected == nullptr) {
      return Failed(absl::StrCat(reader, " reads ", leaf.owner, " before it is written"));
    }
    std::string bytes(leaf.expected->size(), '\0');
    std::memcpy(bytes.data(), Address(leaf.slice), bytes.size());
    if (bytes != *leaf.expected) {
      std::string culprit = "something";
      for (int64_t i = static_cast<int64_t>(log_.size()) - 1; i > leaf.written_at; --i) {
        if (log_[i].slice.Overlaps(leaf.slice)) {
          culprit = absl::StrCat(log_[i].writer, " (writing ", log_[i].value, " to ",
                                 log_[i].slice.ToString(), ")");
          break;
        }
      }
      return Failed(absl::StrCat(reader, " reads ", leaf.owner, " from ", leaf.slice.ToString(),
                                 " but ", culprit, " overwrote it while it was live"));
    }
    return FromPhysical(bytes, leaf.shape);
  }

  // The value of `binding` (the leaves of a position of `shape` under
  // `prefix`) as a literal.
  absl::StatusOr<Literal> Assemble(const Binding& binding, const Shape& shape,
                                   const ShapeIndex& prefix, absl::string_view reader) {
    if (shape.IsTuple()) {
      std::vector<Literal> elements;
      for (int64_t i = 0; i < shape.tuple_size(); ++i) {
        ShapeIndex index = prefix;
        index.push_back(i);
        TS_ASSIGN_OR_RETURN(Literal element,
                            Assemble(binding, shape.tuple_shapes(i), index, reader));
        elements.push_back(std::move(element));
      }
      return Literal::MakeTuple(std::move(elements));
    }
    if (shape.IsToken()) return Literal::CreateToken();
    for (const Leaf& leaf : binding) {
      if (leaf.index == prefix) return Read(leaf, reader);
    }
    return Failed(absl::StrCat(reader, ": nothing holds leaf ", ShapeIndexToString(prefix)));
  }

  static Binding SubBinding(const Binding& binding, int64_t tuple_index) {
    Binding result;
    for (const Leaf& leaf : binding) {
      if (leaf.index.empty() || leaf.index[0] != tuple_index) continue;
      Leaf copy = leaf;
      copy.index = ShapeIndex(leaf.index.begin() + 1, leaf.index.end());
      result.push_back(std::move(copy));
    }
    return result;
  }

  absl::Status PreloadConstants(const HloComputation* computation) {
    if (!visited_.insert(computation).second) return absl::OkStatus();
    for (const HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() == HloOpcode::kConstant) {
        TS_ASSIGN_OR_RETURN(Binding binding, DefinedBinding(instruction));
        for (Leaf& leaf : binding) {
          const Literal* value = Subliteral(instruction->literal(), leaf.index);
          if (value == nullptr) return Failed(absl::StrCat("bad constant ", leaf.owner));
          TS_RETURN_IF_ERROR(Write(&leaf, *value, "the loader", /*preload=*/true));
        }
        constants_[instruction] = std::move(binding);
      }
      if (instruction->opcode() == HloOpcode::kWhile ||
          instruction->opcode() == HloOpcode::kConditional ||
          instruction->opcode() == HloOpcode::kCall) {
        for (const HloComputation* callee : instruction->called_computations()) {
          TS_RETURN_IF_ERROR(PreloadConstants(callee));
        }
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Binding> Execute(const HloComputation* computation,
                                  const std::vector<Binding>& parameters) {
    if (!module_.schedule().HasSequence(computation)) {
      return Failed(absl::StrCat("computation ", computation->name(), " has no schedule"));
    }
    for (const HloInstruction* instruction : module_.schedule().sequence(computation)) {
      TS_ASSIGN_OR_RETURN(Binding binding, Step(instruction, parameters));
      bindings_[instruction] = std::move(binding);
    }
    return bindings_.at(computation->root_instruction());
  }

  const Binding& BindingOf(const HloInstruction* instruction) { return bindings_[instruction]; }

  absl::StatusOr<Binding> Step(const HloInstruction* instruction,
                               const std::vector<Binding>& parameters) {
    switch (instruction->opcode()) {
      case HloOpcode::kParameter: {
        const int64_t number = instruction->parameter_number();
        if (number < 0 || number >= static_cast<int64_t>(parameters.size())) {
          return Failed(absl::StrCat("no argument for ", Name(instruction, {})));
        }
        return parameters[number];
      }
      case HloOpcode::kConstant:
        return constants_.at(instruction);
      case HloOpcode::kTuple: {
        Binding binding;
        for (int64_t i = 0; i < instruction->operand_count(); ++i) {
          for (Leaf leaf : BindingOf(instruction->operand(i))) {
            leaf.index.insert(leaf.index.begin(), i);
            binding.push_back(std::move(leaf));
          }
        }
        return binding;
      }
      case HloOpcode::kGetTupleElement:
        return SubBinding(BindingOf(instruction->operand(0)), instruction->tuple_index());
      case HloOpcode::kBitcast: {
        Binding binding = BindingOf(instruction->operand(0));
        if (binding.size() != 1 || instruction->shape().ByteSize() > binding[0].shape.ByteSize()) {
          break;  // not a plain reinterpretation: evaluate it
        }
        Leaf& leaf = binding[0];
        leaf.shape = instruction->shape();
        if (leaf.expected != nullptr) {
          leaf.expected = std::make_shared<const std::string>(
              leaf.expected->substr(0, instruction->shape().ByteSize()));
        }
        return binding;
      }
      case HloOpcode::kOptimizationBarrier:
      case HloOpcode::kDomain:
      case HloOpcode::kAddDependency:
        return BindingOf(instruction->operand(0));
      case HloOpcode::kCall: {
        std::vector<Binding> arguments;
        for (const HloInstruction* operand : instruction->operands()) {
          arguments.push_back(BindingOf(operand));
        }
        return Execute(instruction->to_apply(), arguments);
      }
      case HloOpcode::kWhile:
        return RunWhile(instruction);
      case HloOpcode::kConditional:
        return RunConditional(instruction);
      default:
        break;
    }
    return RunOp(instruction);
  }

  // Checks that `actual` (what a callee left) sits where `expected` (the
  // caller's slices for the result) says, and carries the data over.
  absl::StatusOr<Binding> Land(const HloInstruction* instruction, const Binding& actual,
                               Binding expected, absl::string_view what) {
    for (Leaf& leaf : expected) {
      const Leaf* from = nullptr;
      for (const Leaf& candidate : actual) {
        if (candidate.index == leaf.index) from = &candidate;
      }
      if (from == nullptr) {
        return Failed(absl::StrCat(Name(instruction, leaf.index), ": ", what, " has no leaf there"));
      }
      if (!(from->slice.allocation == leaf.slice.allocation &&
            from->slice.offset == leaf.slice.offset)) {
        return Failed(absl::StrCat(Name(instruction, leaf.index), " lives at ",
                                   leaf.slice.ToString(), " but ", what, " leaves ", from->owner,
                                   " at ", from->slice.ToString()));
      }
      leaf.expected = from->expected;
      leaf.written_at = from->written_at;
      leaf.owner = from->owner;
    }
    return expected;
  }

  absl::StatusOr<Binding> RunWhile(const HloInstruction* loop) {
    const HloComputation* condition = loop->while_condition();
    const HloComputation* body = loop->while_body();
    TS_ASSIGN_OR_RETURN(Binding state_slots, DefinedBinding(loop));
    TS_ASSIGN_OR_RETURN(Binding state, Land(loop, BindingOf(loop->operand(0)), state_slots,
                                            "the loop's init"));
    for (int64_t iteration = 0;; ++iteration) {
      if (iteration > kMaxLoopIterations) {
        return Failed(absl::StrCat(Name(loop, {}), " runs too long"));
      }
      TS_ASSIGN_OR_RETURN(Binding verdict, Execute(condition, {state}));
      TS_ASSIGN_OR_RETURN(Literal keep_going,
                          Assemble(verdict, condition->root_instruction()->shape(), {},
                                   Name(loop, {})));
      if (keep_going.shape().element_type() != PRED || keep_going.element_count() != 1) {
        return Failed(absl::StrCat(Name(loop, {}), ": the condition is not a pred"));
      }
      if (!keep_going.data<bool>()[0]) break;
      TS_ASSIGN_OR_RETURN(Binding next, Execute(body, {state}));
      TS_ASSIGN_OR_RETURN(state, Land(loop, next, state_slots, "the body"));
    }
    return state;
  }

  absl::StatusOr<Binding> RunConditional(const HloInstruction* conditional) {
    const int64_t branches = conditional->called_computations().size();
    TS_ASSIGN_OR_RETURN(Literal selector,
                        Assemble(BindingOf(conditional->operand(0)),
                                 conditional->operand(0)->shape(), {}, Name(conditional, {})));
    int64_t branch = 0;
    if (selector.shape().element_type() == PRED) {
      branch = selector.data<bool>()[0] ? 0 : 1;
    } else if (selector.shape().element_type() == S32) {
      branch = selector.data<int32_t>()[0];
      if (branch < 0 || branch >= branches) branch = branches - 1;
    } else {
      return Failed(absl::StrCat(Name(conditional, {}), ": bad branch selector"));
    }
    const HloComputation* computation = conditional->called_computations()[branch];
    TS_ASSIGN_OR_RETURN(Binding result,
                        Execute(computation, {BindingOf(conditional->operand(branch + 1))}));
    TS_ASSIGN_OR_RETURN(Binding slots, DefinedBinding(conditional));
    return Land(conditional, result, std::move(slots),
                absl::StrCat("branch ", computation->name()));
  }

  // An op evaluated as a unit by the evaluator.
  absl::StatusOr<Binding> RunOp(const HloInstruction* instruction) {
    const std::string who = Name(instruction, {});
    std::vector<Literal> operands;
    for (const HloInstruction* operand : instruction->operands()) {
      TS_ASSIGN_OR_RETURN(Literal value,
                          Assemble(BindingOf(operand), operand->shape(), {}, who));
      operands.push_back(std::move(value));
    }
    TS_ASSIGN_OR_RETURN(const HloComputation* single, SingleOpComputation(instruction));
    TS_ASSIGN_OR_RETURN(Literal result, EvaluateComputation(*single, operands));
    TS_ASSIGN_OR_RETURN(Binding outputs, DefinedBinding(instruction));
    // Results overlap operands only exactly, where the op works in place.
    for (size_t i = 0; i < outputs.size(); ++i) {
      for (size_t j = i + 1; j < outputs.size(); ++j) {
        if (outputs[i].slice.Overlaps(outputs[j].slice)) {
          return Failed(absl::StrCat(outputs[i].owner, " and ", outputs[j].owner,
                                     " are written at once to overlapping slices ",
                                     outputs[i].slice.ToString(), " and ",
                                     outputs[j].slice.ToString()));
        }
      }
      for (int64_t k = 0; k < instruction->operand_count(); ++k) {
        for (const Leaf& in : BindingOf(instruction->operand(k))) {
          if (!in.slice.Overlaps(outputs[i].slice)) continue;
          const bool exact = in.slice.allocation == outputs[i].slice.allocation &&
                             in.slice.offset == outputs[i].slice.offset;
          if (!exact || !MayWriteOver(*instruction, k, in.index, outputs[i].index)) {
            return Failed(absl::StrCat(outputs[i].owner, " at ", outputs[i].slice.ToString(),
                                       " overlaps its operand ", in.owner, " at ",
                                       in.slice.ToString(), ", which it cannot update in place"));
          }
        }
      }
    }
    for (Leaf& leaf : outputs) {
      const Literal* value = Subliteral(result, leaf.index);
      if (value == nullptr) return Failed(absl::StrCat(leaf.owner, ": no such result leaf"));
      TS_RETURN_IF_ERROR(Write(&leaf, *value, who, /*preload=*/false));
    }
    return outputs;
  }

  absl::StatusOr<const HloComputation*> SingleOpComputation(const HloInstruction* instruction) {
    auto it = single_ops_.find(instruction);
    if (it != single_ops_.end()) return it->second.get();
    auto computation = std::make_unique<HloComputation>(absl::StrCat("arena.", instruction->name()));
    std::vector<HloInstruction*> parameters;
    for (int64_t k = 0; k < instruction->operand_count(); ++k) {
      parameters.push_back(computation->AddInstruction(HloInstruction::CreateParameter(
          k, instruction->operand(k)->shape(), absl::StrCat("operand.", k))));
    }
    computation->set_root_instruction(computation->AddInstruction(
        instruction->CloneWithNewOperands(instruction->shape(), parameters)));
    const HloComputation* raw = computation.get();
    single_ops_[instruction] = std::move(computation);
    return raw;
  }

  struct LogEntry {
    BufferSlice slice;
    std::string writer;
    std::string value;
  };

  const HloModule& module_;
  const BufferAssignment& assignment_;
  std::vector<uint8_t> arena_;
  std::vector<int64_t> base_;
  absl::flat_hash_map<const HloInstruction*, Binding> bindings_;
  absl::flat_hash_map<const HloInstruction*, Binding> constants_;
  absl::flat_hash_set<const HloComputation*> visited_;
  absl::flat_hash_map<const HloInstruction*, std::unique_ptr<HloComputation>> single_ops_;
  std::vector<LogEntry> log_;
};


}  // namespace

absl::StatusOr<Literal> RunOnArena(const HloModule& module, const BufferAssignment& assignment,
                                   absl::Span<const Literal> arguments) {
  ArenaInterpreter interpreter(module, assignment);
  return interpreter.Run(arguments);
}

absl::Status CheckAssignmentOnArena(const HloModule& module, const BufferAssignment& assignment,
                                    absl::Span<const Literal> arguments) {
  TS_ASSIGN_OR_RETURN(Literal expected, EvaluateModule(module, arguments));
  TS_ASSIGN_OR_RETURN(Literal actual, RunOnArena(module, assignment, arguments));
  std::string why;
  if (!LiteralsEqualNanAware(expected, actual, &why)) {
    return Failed(absl::StrCat("the result differs from the evaluator's: ", why));
  }
  return absl::OkStatus();
}

absl::Status CheckAssignmentOnArena(const HloModule& module, const BufferAssignment& assignment,
                                    int trials, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const HloComputation* entry = module.entry_computation();
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<Literal> arguments;
    for (const HloInstruction* parameter : entry->parameter_instructions()) {
      if (parameter == nullptr) return absl::InvalidArgumentError("missing entry parameter");
      TS_ASSIGN_OR_RETURN(Literal argument, MakeRandomLiteral(parameter->shape(), rng));
      arguments.push_back(std::move(argument));
    }
    TS_RETURN_IF_ERROR(CheckAssignmentOnArena(module, assignment, arguments));
  }
  return absl::OkStatus();
}

}  // namespace tessera
