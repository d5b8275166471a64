#include "passes/fusion/fusion_cost_model.h"

#include <algorithm>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/fusion/fusion_utils.h"

namespace tessera {
namespace {

constexpr int64_t kReuseCap = int64_t{1} << 40;

int64_t SaturatingMultiply(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a > kReuseCap / b) return kReuseCap;
  return std::min(a * b, kReuseCap);
}

std::string Name(const HloInstruction& instruction) {
  return absl::StrCat("%", instruction.name());
}

std::string OpName(const HloInstruction& instruction) {
  if (instruction.opcode() == HloOpcode::kFusion) {
    return absl::StrCat(FusionKindString(instruction.fusion_kind()), " fusion");
  }
  return std::string(HloOpcodeString(instruction.opcode()));
}

std::string DimsString(const std::vector<int64_t>& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

// How many times `user` reads each element of its operand `index`.
int64_t LocalReuse(const HloInstruction& user, int64_t index) {
  const HloInstruction& operand = *user.operand(index);
  const int64_t out = std::max<int64_t>(1, user.shape().IsArray() ? user.shape().ElementCount() : 1);
  const int64_t in =
      std::max<int64_t>(1, operand.shape().IsArray() ? operand.shape().ElementCount() : 1);
  switch (user.opcode()) {
    case HloOpcode::kBroadcast:
      return std::max<int64_t>(1, out / in);
    case HloOpcode::kGather:
      return index == 0 ? std::max<int64_t>(1, (out + in - 1) / in) : 1;
    case HloOpcode::kReduceWindow: {
      if (!user.attrs().window.has_value()) return 2;
      int64_t size = 1;
      for (const WindowDimension& d : user.window().dimensions) {
        size = SaturatingMultiply(size, std::max<int64_t>(1, d.size));
      }
      return size;
    }
    case HloOpcode::kDot: {
      if (!user.attrs().dot_dimension_numbers.has_value() || index > 1) return 2;
      const DotDimensionNumbers& dnums = user.dot_dimension_numbers();
      const std::vector<int64_t>& contracting =
          index == 0 ? dnums.lhs_contracting_dimensions : dnums.rhs_contracting_dimensions;
      int64_t k = 1;
      for (int64_t d : contracting) {
        if (d >= 0 && d < operand.shape().rank()) k = SaturatingMultiply(k, operand.shape().dimensions(d));
      }
      return std::max<int64_t>(1, SaturatingMultiply(out, k) / in);
    }
    case HloOpcode::kConvolution: {
      int64_t size = 1;
      if (user.attrs().window.has_value()) {
        for (const WindowDimension& d : user.window().dimensions) {
          size = SaturatingMultiply(size, std::max<int64_t>(1, d.size));
        }
      }
      return std::max<int64_t>(2, size);
    }
    default:
      return 1;
  }
}

// The instructions inside `consumer` that read `producer`'s value: for a
// fusion, the fused parameters bound to it; for a plain consumer, nothing
// (the consumer reads it directly).
std::vector<const HloInstruction*> BoundParameters(const HloInstruction& producer,
                                                   const HloInstruction& consumer) {
  std::vector<const HloInstruction*> parameters;
  if (consumer.opcode() != HloOpcode::kFusion) return parameters;
  for (const HloInstruction* parameter :
       consumer.fused_computation()->parameter_instructions()) {
    if (parameter == nullptr) continue;
    const int64_t number = parameter->parameter_number();
    if (number < consumer.operand_count() && consumer.operand(number) == &producer) {
      parameters.push_back(parameter);
    }
  }
  return parameters;
}

// Everything inside `consumer` whose value depends on `producer`'s (for a
// plain consumer: the consumer itself).
std::vector<const HloInstruction*> DependentsInConsumer(const HloInstruction& producer,
                                                        const HloInstruction& consumer) {
  if (consumer.opcode() != HloOpcode::kFusion) return {&consumer};
  absl::flat_hash_set<const HloInstruction*> seen;
  std::vector<const HloInstruction*> result;
  std::vector<const HloInstruction*> stack = BoundParameters(producer, consumer);
  for (const HloInstruction* parameter : stack) seen.insert(parameter);
  while (!stack.empty()) {
    const HloInstruction* current = stack.back();
    stack.pop_back();
    for (const HloInstruction* user : current->users()) {
      if (seen.insert(user).second) {
        result.push_back(user);
        stack.push_back(user);
      }
    }
  }
  return result;
}

bool IsReduceLike(const HloInstruction& hero) { return hero.opcode() == HloOpcode::kReduce; }

// A reduce of one array over its trailing dimensions {k, ..., n-1}, which
// are also its operand's minor-most in the layout, with at most
// `max_row_bytes` per result element: each result element is one
// contiguous row.
bool IsRowReduction(const HloInstruction& reduce, int64_t max_row_bytes) {
  if (reduce.opcode() != HloOpcode::kReduce || reduce.operand_count() != 2 ||
      !reduce.shape().IsArray() || reduce.shape().rank() == 0) {
    return false;
  }
  const Shape& input = reduce.operand(0)->shape();
  const int64_t rank = input.rank();
  const int64_t kept = reduce.shape().rank();
  std::vector<int64_t> reduced = reduce.dimensions();
  std::sort(reduced.begin(), reduced.end());
  if (static_cast<int64_t>(reduced.size()) != rank - kept || reduced.empty()) return false;
  int64_t row = ByteWidth(input.element_type());
  for (int64_t i = 0; i < static_cast<int64_t>(reduced.size()); ++i) {
    if (reduced[i] != kept + i) return false;
    row *= input.dimensions(reduced[i]);
  }
  if (row > max_row_bytes) return false;
  if (input.has_layout()) {
    const std::vector<int64_t>& minor_to_major = input.layout().minor_to_major;
    if (static_cast<int64_t>(minor_to_major.size()) != rank) return false;
    // Row-major: the kernel's rows are its major-most dimensions in order.
    for (int64_t i = 0; i < rank; ++i) {
      if (minor_to_major[i] != rank - 1 - i) return false;
    }
  }
  return true;
}

// The instructions a node holds: a fusion's fused ones, else itself.
std::vector<const HloInstruction*> HeldInstructions(const HloInstruction& node) {
  std::vector<const HloInstruction*> held;
  if (node.opcode() == HloOpcode::kFusion) {
    for (const HloInstruction* h : node.fused_computation()->instructions()) held.push_back(h);
  } else {
    held.push_back(&node);
  }
  return held;
}

// Dimensions of a shape, for comparing spaces.
std::vector<int64_t> Dims(const Shape& shape) {
  return std::vector<int64_t>(shape.dimensions().begin(), shape.dimensions().end());
}

}  // namespace

// ---------------------------------------------------------------------------
// Explanations.

std::string ExplainFusion(const FusionExplanation& e) {
  // A decision about one candidate alone (horizontal fusion's "is it a
  // small kernel") names it once.
  const std::string subject = e.consumer.empty() || e.consumer == e.producer
                                  ? absl::StrCat("%", e.producer)
                                  : absl::StrCat("%", e.producer, " -> %", e.consumer);
  return absl::StrCat(e.pass, ": ", subject, ": ", e.fused ? "fused" : "not fused",
                      e.reason.empty() ? "" : " (", e.reason, e.reason.empty() ? "" : ")", "\n");
}

std::string ExplainFusion(absl::Span<const FusionExplanation> explanations) {
  std::string out;
  for (const FusionExplanation& e : explanations) absl::StrAppend(&out, ExplainFusion(e));
  return out;
}

void FusionExplanationLog::Record(const HloInstruction& consumer, const HloInstruction& producer,
                                  const FusionDecision& decision) {
  if (out_ == nullptr) return;
  std::string key = absl::StrCat(consumer.name(), "\x1f", producer.name(), "\x1f",
                                 decision.fuse ? "1" : "0", decision.reason);
  if (!seen_.insert(std::move(key)).second) return;
  out_->push_back({pass_, consumer.name(), producer.name(), decision.fuse, decision.reason});
}

// ---------------------------------------------------------------------------
// Classes.

FusionDecision FusionCostModel::IsFusible(const HloInstruction& instruction) {
  if (instruction.opcode() == HloOpcode::kParameter) {
    return FusionDecision::No("a parameter is an input");
  }
  if (!instruction.control_predecessors().empty() || !instruction.control_successors().empty()) {
    return FusionDecision::No(absl::StrCat(Name(instruction), " has control dependencies"));
  }
  if (effects_.HasSideEffect(instruction)) {
    return FusionDecision::No(absl::StrCat(Name(instruction), " (", OpName(instruction),
                                           ") has side effects"));
  }
  if (instruction.opcode() == HloOpcode::kFusion) {
    if (instruction.fusion_kind() == FusionKind::kCustom) {
      return FusionDecision::No(absl::StrCat(Name(instruction), " is a kCustom fusion"));
    }
    if (instruction.shape().IsTuple()) {
      // Its results can join another fusion only one by one.
      bool whole = instruction.IsRoot();
      for (const HloInstruction* user : instruction.users()) {
        whole |= user->opcode() != HloOpcode::kGetTupleElement;
      }
      if (whole) {
        return FusionDecision::No(absl::StrCat(Name(instruction),
                                               "'s tuple is used whole, not element by element"));
      }
    }
    return FusionDecision::Yes("");
  }
  const FusionOpClass op_class = ClassifyForFusion(instruction);
  if (op_class == FusionOpClass::kOpaque) {
    return FusionDecision::No(absl::StrCat(Name(instruction), " (", OpName(instruction),
                                           ") is opaque"));
  }
  if (instruction.opcode() == HloOpcode::kConstant &&
      instruction.shape().ElementCount() > params_.max_fused_constant_elements) {
    return FusionDecision::No(absl::StrCat("constant ", Name(instruction), " has ",
                                           instruction.shape().ElementCount(),
                                           " elements and keeps its own buffer"));
  }
  return FusionDecision::Yes("");
}

FusionDecision FusionCostModel::IsConsumer(const HloInstruction& instruction) {
  if (instruction.operand_count() == 0) {
    return FusionDecision::No(absl::StrCat(Name(instruction), " has no operands"));
  }
  // A bitcast launches nothing; wrapping it in a fusion would make a kernel.
  if (instruction.opcode() == HloOpcode::kBitcast) {
    return FusionDecision::No(absl::StrCat(Name(instruction), " is a bitcast, no kernel"));
  }
  return IsFusible(instruction);
}

bool FusionCostModel::CanBeConsumer(const HloInstruction& instruction) {
  return IsConsumer(instruction).fuse;
}

int64_t FusionCostModel::ReuseFactor(const HloInstruction& producer,
                                     const HloInstruction& consumer) {
  if (consumer.opcode() != HloOpcode::kFusion) {
    int64_t reuse = 1;
    for (int64_t index : consumer.OperandIndices(&producer)) {
      reuse = std::max(reuse, LocalReuse(consumer, index));
    }
    return reuse;
  }
  absl::flat_hash_map<const HloInstruction*, int64_t> factor;
  for (const HloInstruction* parameter : BoundParameters(producer, consumer)) {
    factor[parameter] = 1;
  }
  int64_t reuse = 1;
  for (const HloInstruction* instruction :
       consumer.fused_computation()->MakeInstructionPostOrder()) {
    if (instruction->opcode() == HloOpcode::kParameter) continue;
    int64_t best = 0;
    for (int64_t i = 0; i < instruction->operand_count(); ++i) {
      auto it = factor.find(instruction->operand(i));
      if (it == factor.end()) continue;
      best = std::max(best, SaturatingMultiply(it->second, LocalReuse(*instruction, i)));
    }
    if (best > 0) {
      factor[instruction] = best;
      reuse = std::max(reuse, best);
    }
  }
  return reuse;
}

int64_t FusionCostModel::FusedOperandCount(const HloInstruction& producer,
                                           const HloInstruction& consumer, bool duplicate) {
  (void)duplicate;  // the producer is computed inside either way
  absl::flat_hash_set<const HloInstruction*> operands;
  for (const HloInstruction* operand : consumer.operands()) {
    if (operand != &producer) operands.insert(operand);
  }
  for (const HloInstruction* operand : producer.operands()) operands.insert(operand);
  return static_cast<int64_t>(operands.size());
}

FusionDecision FusionCostModel::CheckEpilogue(const HloInstruction& producer,
                                              const HloInstruction& hero,
                                              const HloInstruction& consumer) {
  const bool reduce = IsReduceLike(hero);
  if (reduce && !params_.fuse_reduce_epilogue) {
    return FusionDecision::No("reduce epilogue fusion is off");
  }
  if (!reduce && !params_.fuse_dot_epilogue) {
    return FusionDecision::No(absl::StrCat(HloOpcodeString(hero.opcode()),
                                           " epilogue fusion is off"));
  }
  const std::string what = absl::StrCat(HloOpcodeString(hero.opcode()), " ", Name(hero));
  for (const HloInstruction* user : DependentsInConsumer(producer, consumer)) {
    if (user->opcode() == HloOpcode::kTuple) {
      return FusionDecision::No("the consumer is a multi-output fusion");
    }
    // A bitcast into another layout reads the product transposed (jax's
    // (a + a.T) / 2 symmetrization): the GEMM's epilogue cannot.
    const bool transposing_bitcast = user->opcode() == HloOpcode::kBitcast &&
                                     user->shape().has_layout() &&
                                     user->operand(0)->shape().has_layout() &&
                                     user->shape().layout() != user->operand(0)->shape().layout();
    if ((!user->IsElementwise() && !IsDegenerateReshape(*user)) || transposing_bitcast) {
      return FusionDecision::No(absl::StrCat(
          "the consumer reads the result of ", what, " through ", HloOpcodeString(user->opcode()),
          " ", Name(*user), ", not elementwise: the ", HloOpcodeString(hero.opcode()),
          " would be redone per element"));
    }
    if (!SameIterationSpace(user->shape(), producer.shape())) {
      return FusionDecision::No(absl::StrCat(
          "epilogue op ", Name(*user), " ", user->shape().ToString(), " is not in the space of ",
          what, "'s result ", producer.shape().ToString()));
    }
  }
  if (!SameIterationSpace(consumer.shape(), producer.shape())) {
    return FusionDecision::No(absl::StrCat("the consumer's result ", consumer.shape().ToString(),
                                           " is not in the space of ", what, "'s result ",
                                           producer.shape().ToString()));
  }
  // A GEMM writes its result into the fusion's output, which the epilogue
  // then updates in place: an output of another element type cannot hold
  // it (a bf16 dot converted to f32 ran on the evaluator, 135x XLA's time).
  if (!reduce && consumer.shape().IsArray() && hero.shape().IsArray() &&
      consumer.shape().element_type() != hero.shape().element_type()) {
    return FusionDecision::No(absl::StrCat(
        "the consumer's result is ", PrimitiveTypeName(consumer.shape().element_type()), ", ", what,
        "'s ", PrimitiveTypeName(hero.shape().element_type()),
        ": no output could hold the product"));
  }
  return FusionDecision::Yes("");
}

FusionDecision FusionCostModel::CheckCaps(const HloInstruction& producer,
                                          const HloInstruction& consumer) {
  const int64_t size = FusedInstructionCount(producer) + FusedInstructionCount(consumer);
  if (size > params_.max_fused_instructions) {
    return FusionDecision::No(absl::StrCat("the fusion would hold ", size, " instructions (cap ",
                                           params_.max_fused_instructions, ")"));
  }
  const int64_t operands = FusedOperandCount(producer, consumer, false);
  if (operands > params_.max_fusion_operands) {
    return FusionDecision::No(absl::StrCat("the fusion would have ", operands, " operands (cap ",
                                           params_.max_fusion_operands, ")"));
  }
  return FusionDecision::Yes("");
}

std::optional<FusionDecision> FusionCostModel::CheckRowFusion(const HloInstruction& producer,
                                                             const HloInstruction& consumer) {
  if (!params_.fuse_row_reductions) return std::nullopt;
  std::vector<const HloInstruction*> heroes = FindHeroes(producer);
  if (heroes.empty()) return std::nullopt;
  for (const HloInstruction* hero : FindHeroes(consumer)) heroes.push_back(hero);
  for (const HloInstruction* hero : heroes) {
    if (!IsRowReduction(*hero, params_.max_row_bytes)) return std::nullopt;
  }
  const HloInstruction& first = *heroes[0];
  const std::vector<int64_t> row_space = Dims(first.operand(0)->shape());
  const std::vector<int64_t> result_space = Dims(first.shape());
  for (const HloInstruction* hero : heroes) {
    if (Dims(hero->operand(0)->shape()) != row_space || Dims(hero->shape()) != result_space) {
      return std::nullopt;
    }
  }
  // Only where a result comes back over the rows through a broadcast
  // (here or further down the consumer): anything else is the ordinary
  // epilogue rules' business.
  bool through_broadcast = false;
  auto is_row_broadcast = [&](const HloInstruction& h) {
    if (h.opcode() != HloOpcode::kBroadcast || Dims(h.shape()) != row_space ||
        Dims(h.operand(0)->shape()) != result_space) {
      return false;
    }
    for (size_t i = 0; i < h.dimensions().size(); ++i) {
      if (h.dimensions()[i] != static_cast<int64_t>(i)) return false;
    }
    return true;
  };
  for (const HloInstruction* user : DependentsInConsumer(producer, consumer)) {
    through_broadcast |= is_row_broadcast(*user);
  }
  if (!through_broadcast) return std::nullopt;

  const std::string what = absl::StrCat("row fusion of reduce ", Name(first), " over ",
                                        DimsString(row_space));
  for (const HloInstruction* node : {&producer, &consumer}) {
    if (Dims(node->shape()) != row_space && Dims(node->shape()) != result_space) {
      return FusionDecision::No(absl::StrCat(what, ": ", Name(*node), "'s result ",
                                             node->shape().ToString(),
                                             " is neither rows nor their reductions"));
    }
  }
  for (const HloInstruction* user : DependentsInConsumer(producer, consumer)) {
    const bool in_space = Dims(user->shape()) == row_space || Dims(user->shape()) == result_space;
    const bool hero = std::find(heroes.begin(), heroes.end(), user) != heroes.end();
    if (!hero && !is_row_broadcast(*user) && !(user->IsElementwise() && in_space)) {
      return FusionDecision::No(absl::StrCat(what, ": the consumer reads the producer through ",
                                             Name(*user), " (", HloOpcodeString(user->opcode()),
                                             ")"));
    }
  }
  if (consumer.shape().has_layout()) {
    const std::vector<int64_t>& minor_to_major = consumer.shape().layout().minor_to_major;
    for (size_t i = 0; i < minor_to_major.size(); ++i) {
      if (minor_to_major[i] != static_cast<int64_t>(minor_to_major.size() - 1 - i)) {
        return FusionDecision::No(absl::StrCat(what, ": the consumer's layout is not row-major"));
      }
    }
  }
  for (const HloInstruction* node : {&producer, &consumer}) {
    for (const HloInstruction* h : HeldInstructions(*node)) {
      // (An iota reads nothing: its value at an index is the index, in
      // any row; a causal mask is a compare of two.)
      const bool allowed = h->opcode() == HloOpcode::kParameter ||
                           h->opcode() == HloOpcode::kConstant || h->opcode() == HloOpcode::kIota ||
                           h->IsElementwise() || h->opcode() == HloOpcode::kReduce ||
                           (h->opcode() == HloOpcode::kBroadcast &&
                            (is_row_broadcast(*h) || Dims(h->operand(0)->shape()) != result_space));
      if (!allowed) {
        return FusionDecision::No(absl::StrCat(what, ": ", Name(*h), " (",
                                               HloOpcodeString(h->opcode()),
                                               ") is not elementwise, an iota, a broadcast or "
                                               "a row reduction"));
      }
    }
  }
  if (FusionDecision d = CheckCaps(producer, consumer); !d) return d;
  return FusionDecision::Yes(absl::StrCat(what, ": each row's reduction is computed once, the "
                                          "row read from memory once"));
}

FusionDecision FusionCostModel::CanFuseIntoConsumer(const HloInstruction& producer,
                                                    const HloInstruction& consumer) {
  if (FusionDecision d = IsFusible(producer); !d) return d;
  if (FusionDecision d = IsConsumer(consumer); !d) {
    return FusionDecision::No(absl::StrCat("consumer ", d.reason));
  }
  if (producer.shape().IsTuple()) {
    return FusionDecision::No("the producer is a multi-output fusion");
  }
  if (consumer.shape().IsTuple()) {
    return FusionDecision::No("the consumer is a multi-output fusion");
  }
  if (std::optional<FusionDecision> row = CheckRowFusion(producer, consumer)) return *row;
  const std::vector<const HloInstruction*> producer_heroes = FindHeroes(producer);
  const std::vector<const HloInstruction*> consumer_heroes = FindHeroes(consumer);
  if (!producer_heroes.empty() && !consumer_heroes.empty()) {
    return FusionDecision::No(absl::StrCat(
        "both hold a hero (", HloOpcodeString(producer_heroes[0]->opcode()), " and ",
        HloOpcodeString(consumer_heroes[0]->opcode()), "): one reduce or dot per kernel"));
  }
  for (const HloInstruction* hero : producer_heroes) {
    if (FusionDecision d = CheckEpilogue(producer, *hero, consumer); !d) return d;
  }
  for (const HloInstruction* hero : consumer_heroes) {
    if (hero->opcode() != HloOpcode::kDot && hero->opcode() != HloOpcode::kConvolution) continue;
    bool feeds_hero = hero == &consumer;
    if (!feeds_hero) {
      for (const HloInstruction* dependent : DependentsInConsumer(producer, consumer)) {
        feeds_hero |= dependent == hero;
      }
    }
    if (feeds_hero) {
      return FusionDecision::No(absl::StrCat("the producer feeds ", HloOpcodeString(hero->opcode()),
                                             " ", Name(*hero),
                                             ": only epilogues fuse with a dot or convolution"));
    }
  }
  const int64_t reuse = ReuseFactor(producer, consumer);
  if (reuse > 1 && IsExpensive(producer)) {
    return FusionDecision::No(absl::StrCat("the consumer reads each element of expensive ",
                                           OpName(producer), " ", reuse,
                                           " times: it would be recomputed"));
  }
  return CheckCaps(producer, consumer);
}

FusionDecision FusionCostModel::ShouldFuse(const HloInstruction& producer,
                                           const HloInstruction& consumer) {
  const FusionDecision can = CanFuseIntoConsumer(producer, consumer);
  if (!can) return can;
  const int64_t producer_bytes = producer.shape().ByteSize();
  std::vector<const HloInstruction*> others;
  for (const HloInstruction* user : producer.users()) {
    if (user != &consumer) others.push_back(user);
  }
  const bool row_fusion = absl::StartsWith(can.reason, "row fusion");
  const std::string kind_note =
      row_fusion                    ? absl::StrCat(can.reason, "; ")
      : FindHeroes(producer).empty() ? ""
                                     : absl::StrCat(HloOpcodeString(FindHeroes(producer)[0]->opcode()),
                                                    " epilogue; ");
  if (others.empty() && !producer.IsRoot()) {
    return FusionDecision::Yes(absl::StrCat(kind_note, "saves ", 2 * producer_bytes,
                                            " bytes: ", producer.shape().ToString(),
                                            " is neither written nor read back"));
  }
  const int64_t users = static_cast<int64_t>(producer.users().size());
  if (producer.IsRoot()) {
    return FusionDecision::No("the producer is the computation's result: it is computed anyway");
  }
  if (!params_.allow_duplication) {
    return FusionDecision::No(absl::StrCat("the producer has ", users,
                                           " users and duplication is off"));
  }
  if (IsExpensive(producer)) {
    return FusionDecision::No(absl::StrCat("expensive ", OpName(producer), " has ", users,
                                           " users: never duplicated"));
  }
  if (FusedInstructionCount(producer) > params_.max_duplicated_instructions) {
    return FusionDecision::No(absl::StrCat(
        "the producer has ", users, " users and ", FusedInstructionCount(producer),
        " instructions: too big to duplicate (cap ", params_.max_duplicated_instructions, ")"));
  }
  for (const HloInstruction* other : others) {
    if (FusionDecision d = CanFuseIntoConsumer(producer, *other); !d) {
      return FusionDecision::No(absl::StrCat("user ", Name(*other),
                                             " cannot absorb the producer, so duplicating would "
                                             "compute it twice (",
                                             d.reason, ")"));
    }
  }
  int64_t input_bytes = 0;
  for (const HloInstruction* operand : producer.operands()) input_bytes += EffectiveReadBytes(*operand);
  const int64_t saved = (users + 1) * producer_bytes - (users - 1) * input_bytes;
  if (saved < 0) {
    return FusionDecision::No(absl::StrCat("duplicating into ", users, " users reads ", -saved,
                                           " bytes more than it saves"));
  }
  return FusionDecision::Yes(absl::StrCat("cheap ", OpName(producer), " duplicated into its ",
                                          users, " users; saves ", saved, " bytes"));
}

FusionDecision FusionCostModel::ShouldFuseAsExtraOutput(const HloInstruction& producer,
                                                        const HloInstruction& consumer) {
  bool has_other_user = producer.IsRoot();
  for (const HloInstruction* user : producer.users()) has_other_user |= user != &consumer;
  if (!has_other_user) {
    return FusionDecision::No("the consumer is the only user (vertical fusion's case)");
  }
  const std::vector<const HloInstruction*> producer_heroes = FindHeroes(producer);
  const std::vector<const HloInstruction*> consumer_heroes = FindHeroes(consumer);
  if (!producer_heroes.empty() && !consumer_heroes.empty()) {
    return ReductionIntoReductionEpilogue(producer, consumer);
  }
  if (FusionDecision d = CanFuseIntoConsumer(producer, consumer); !d) return d;
  if (producer_heroes.empty()) {
    const std::vector<int64_t> producer_space = IterationSpace(producer);
    const std::vector<int64_t> consumer_space = IterationSpace(consumer);
    if (producer_space != consumer_space) {
      return FusionDecision::No(absl::StrCat("iteration spaces differ: producer ",
                                             DimsString(producer_space), ", consumer ",
                                             DimsString(consumer_space)));
    }
  }
  return FusionDecision::Yes(absl::StrCat("extra output: the consumer no longer reads ",
                                          producer.shape().ByteSize(),
                                          " bytes back and one kernel goes"));
}

FusionDecision FusionCostModel::ReductionIntoReductionEpilogue(const HloInstruction& producer,
                                                               const HloInstruction& consumer) {
  if (FusionDecision d = IsFusible(producer); !d) return d;
  if (FusionDecision d = IsConsumer(consumer); !d) {
    return FusionDecision::No(absl::StrCat("consumer ", d.reason));
  }
  if (producer.shape().IsTuple() || consumer.shape().IsTuple()) {
    return FusionDecision::No("multi-output fusions do not take extra outputs");
  }
  std::vector<const HloInstruction*> heroes = FindHeroes(producer);
  for (const HloInstruction* hero : FindHeroes(consumer)) heroes.push_back(hero);
  const HloInstruction& first = *heroes[0];
  for (const HloInstruction* hero : heroes) {
    if (hero->opcode() != HloOpcode::kReduce) {
      return FusionDecision::No(absl::StrCat("both hold a hero and ", Name(*hero), " is a ",
                                             HloOpcodeString(hero->opcode()),
                                             ": one dot per kernel"));
    }
    if (!SameDimensions(hero->operand(0)->shape(), first.operand(0)->shape()) ||
        hero->dimensions() != first.dimensions()) {
      return FusionDecision::No(absl::StrCat(
          "both hold a reduce and they differ: ", first.operand(0)->shape().ToString(), " over {",
          absl::StrJoin(first.dimensions(), ","), "} vs ", hero->operand(0)->shape().ToString(),
          " over {", absl::StrJoin(hero->dimensions(), ","), "}"));
    }
  }
  // The producer's result may only feed the consumer's epilogue: both
  // reductions then run over the input together and the epilogue follows.
  if (FusionDecision d = CheckEpilogue(producer, *FindHeroes(producer)[0], consumer); !d) {
    return d;
  }
  if (FusionDecision d = CheckCaps(producer, consumer); !d) return d;
  return FusionDecision::Yes(absl::StrCat(
      "sibling reductions over ", first.operand(0)->shape().ToString(),
      ", the producer's result read by the consumer's epilogue: extra output, one kernel fewer"));
}

FusionDecision FusionCostModel::ShouldFuseSiblings(const HloInstruction& a, const HloInstruction& b,
                                                   const HloInstruction& shared) {
  if (&a == &b) return FusionDecision::No("the same instruction");
  for (const HloInstruction* node : {&a, &b}) {
    if (FusionDecision d = IsConsumer(*node); !d) return d;
    for (const HloInstruction* hero : FindHeroes(*node)) {
      if (hero->opcode() != HloOpcode::kReduce) {
        return FusionDecision::No(absl::StrCat(Name(*node), " holds ",
                                               HloOpcodeString(hero->opcode()),
                                               ": kOutput fusions stay single-output"));
      }
    }
  }
  if (!shared.shape().IsArray() || shared.shape().IsScalar() ||
      shared.shape().ByteSize() < params_.min_shared_operand_bytes) {
    return FusionDecision::No(absl::StrCat("shared operand ", Name(shared), " has only ",
                                           shared.shape().ByteSize(), " bytes (min ",
                                           params_.min_shared_operand_bytes, ")"));
  }
  const std::vector<const HloInstruction*> heroes_a = FindHeroes(a);
  const std::vector<const HloInstruction*> heroes_b = FindHeroes(b);
  if (!heroes_a.empty() && !heroes_b.empty()) {
    const HloInstruction& first = *heroes_a[0];
    for (const HloInstruction* hero : heroes_b) {
      if (!SameDimensions(hero->operand(0)->shape(), first.operand(0)->shape()) ||
          hero->dimensions() != first.dimensions()) {
        return FusionDecision::No(absl::StrCat(
            "reductions differ: ", first.operand(0)->shape().ToString(), " over {",
            absl::StrJoin(first.dimensions(), ","), "} vs ", hero->operand(0)->shape().ToString(),
            " over {", absl::StrJoin(hero->dimensions(), ","), "}"));
      }
    }
  }
  const std::vector<int64_t> space_a = IterationSpace(a);
  const std::vector<int64_t> space_b = IterationSpace(b);
  if (space_a != space_b) {
    return FusionDecision::No(absl::StrCat("iteration spaces differ: ", DimsString(space_a),
                                           " vs ", DimsString(space_b)));
  }
  const int64_t size = FusedInstructionCount(a) + FusedInstructionCount(b);
  if (size > params_.max_fused_instructions) {
    return FusionDecision::No(absl::StrCat("the fusion would hold ", size, " instructions (cap ",
                                           params_.max_fused_instructions, ")"));
  }
  absl::flat_hash_set<const HloInstruction*> operands(a.operands().begin(), a.operands().end());
  operands.insert(b.operands().begin(), b.operands().end());
  if (static_cast<int64_t>(operands.size()) > params_.max_fusion_operands) {
    return FusionDecision::No(absl::StrCat("the fusion would have ", operands.size(),
                                           " operands (cap ", params_.max_fusion_operands, ")"));
  }
  return FusionDecision::Yes(absl::StrCat("siblings read ", Name(shared), " (",
                                          shared.shape().ByteSize(),
                                          " bytes) once instead of twice; one kernel fewer"));
}

FusionDecision FusionCostModel::IsHorizontalCandidate(const HloInstruction& instruction) {
  if (FusionDecision d = IsFusible(instruction); !d) return d;
  if (instruction.opcode() == HloOpcode::kFusion) {
    if (instruction.fusion_kind() != FusionKind::kLoop || !FindHeroes(instruction).empty()) {
      return FusionDecision::No(absl::StrCat(Name(instruction), " is a ",
                                             FusionKindString(instruction.fusion_kind()),
                                             " fusion, not a loop"));
    }
  } else {
    const FusionOpClass op_class = ClassifyForFusion(instruction);
    if (op_class != FusionOpClass::kElementwise && op_class != FusionOpClass::kInjective) {
      return FusionDecision::No(absl::StrCat(Name(instruction), " is ",
                                             FusionOpClassName(op_class)));
    }
    if (instruction.opcode() == HloOpcode::kReshape || instruction.opcode() == HloOpcode::kBitcast) {
      return FusionDecision::No(absl::StrCat(Name(instruction), " is a reshape, no kernel"));
    }
  }
  int64_t elements = 0;
  ForEachSubshape(instruction.shape(), [&](const Shape& shape, const ShapeIndex&) {
    if (shape.IsArray()) elements = std::max(elements, shape.ElementCount());
  });
  if (elements > params_.horizontal_max_output_elements) {
    return FusionDecision::No(absl::StrCat(Name(instruction), " writes ", elements,
                                           " elements: not a small kernel (cap ",
                                           params_.horizontal_max_output_elements, ")"));
  }
  return FusionDecision::Yes("");
}

}  // namespace tessera
