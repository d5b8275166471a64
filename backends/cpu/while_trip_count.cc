#include "backends/cpu/while_trip_count.h"

#include <cstring>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_opcode.h"
#include "hlo/ir/literal.h"

namespace tessera {
namespace cpu {
namespace {

// Follows a value to the instruction that computes it, through copies,
// tuples, fusions and their parameters.
class Tracer {
 public:
  const HloInstruction* Trace(const HloInstruction* x) {
    for (int step = 0; step < 256; ++step) {
      switch (x->opcode()) {
        case HloOpcode::kCopy:
          x = x->operand(0);
          continue;
        case HloOpcode::kFusion:
          if (x->shape().IsTuple()) return x;
          Enter(x);
          x = x->fused_computation()->root_instruction();
          continue;
        case HloOpcode::kGetTupleElement: {
          const HloInstruction* tuple = Trace(x->operand(0));
          if (tuple->opcode() == HloOpcode::kFusion) {
            Enter(tuple);
            tuple = tuple->fused_computation()->root_instruction();
          }
          if (tuple->opcode() != HloOpcode::kTuple) return x;
          x = tuple->operand(x->tuple_index());
          continue;
        }
        case HloOpcode::kParameter: {
          auto caller = callers_.find(x->parent());
          if (caller == callers_.end()) return x;
          x = caller->second->operand(x->parameter_number());
          continue;
        }
        default: return x;
      }
    }
    return x;
  }

  // Element k of `parameter` (a computation's tuple parameter), read
  // directly: k, else nullopt.
  std::optional<int64_t> ElementOf(const HloInstruction* x, const HloInstruction* parameter) {
    if (x->opcode() != HloOpcode::kGetTupleElement || Trace(x->operand(0)) != parameter) {
      return std::nullopt;
    }
    return x->tuple_index();
  }

 private:
  void Enter(const HloInstruction* fusion) { callers_[fusion->fused_computation()] = fusion; }

  absl::flat_hash_map<const HloComputation*, const HloInstruction*> callers_;
};

std::optional<int64_t> IntegerConstant(const HloInstruction* x, PrimitiveType type) {
  if (x->opcode() != HloOpcode::kConstant || !x->shape().IsArray() ||
      x->shape().element_type() != type || x->shape().ElementCount() != 1) {
    return std::nullopt;
  }
  if (type == S32) {
    int32_t value;
    std::memcpy(&value, x->literal().untyped_data(), sizeof(value));
    return value;
  }
  int64_t value;
  std::memcpy(&value, x->literal().untyped_data(), sizeof(value));
  return value;
}

ComparisonDirection Mirrored(ComparisonDirection d) {
  switch (d) {
    case ComparisonDirection::kLt: return ComparisonDirection::kGt;
    case ComparisonDirection::kLe: return ComparisonDirection::kGe;
    case ComparisonDirection::kGt: return ComparisonDirection::kLt;
    case ComparisonDirection::kGe: return ComparisonDirection::kLe;
    default: return d;
  }
}

// Iterations of `for (i = start; i <direction> bound; i += step)` in
// exact arithmetic, where no value the counter takes leaves [low, high].
std::optional<int64_t> Iterations(__int128 start, __int128 bound, __int128 step,
                                  ComparisonDirection direction, __int128 low, __int128 high) {
  __int128 count = 0;
  switch (direction) {
    case ComparisonDirection::kLt:
      if (step <= 0) return std::nullopt;
      count = start < bound ? (bound - start + step - 1) / step : 0;
      break;
    case ComparisonDirection::kLe:
      if (step <= 0) return std::nullopt;
      count = start <= bound ? (bound - start) / step + 1 : 0;
      break;
    case ComparisonDirection::kGt:
      if (step >= 0) return std::nullopt;
      count = start > bound ? (start - bound - step - 1) / -step : 0;
      break;
    case ComparisonDirection::kGe:
      if (step >= 0) return std::nullopt;
      count = start >= bound ? (start - bound) / -step + 1 : 0;
      break;
    default: return std::nullopt;
  }
  // The value after the last iteration (the one the condition refuses)
  // must not wrap around.
  const __int128 last = start + count * step;
  if (last < low || last > high) return std::nullopt;
  return static_cast<int64_t>(count);
}

}  // namespace

std::optional<int64_t> KnownTripCount(const HloInstruction& while_loop) {
  if (while_loop.opcode() != HloOpcode::kWhile || while_loop.operand_count() != 1) {
    return std::nullopt;
  }
  const HloComputation* condition = while_loop.while_condition();
  const HloComputation* body = while_loop.while_body();
  if (condition == nullptr || body == nullptr || condition->num_parameters() != 1 ||
      body->num_parameters() != 1) {
    return std::nullopt;
  }
  Tracer tracer;
  // The condition: counter (element k) against a constant bound.
  const HloInstruction* compare = tracer.Trace(condition->root_instruction());
  if (compare->opcode() != HloOpcode::kCompare ||
      compare->EffectiveComparisonType() != ComparisonType::kSigned) {
    return std::nullopt;
  }
  const PrimitiveType type = compare->operand(0)->shape().element_type();
  if (type != S32 && type != S64) return std::nullopt;
  const HloInstruction* condition_state = condition->parameter_instruction(0);
  const HloInstruction* left = tracer.Trace(compare->operand(0));
  const HloInstruction* right = tracer.Trace(compare->operand(1));
  ComparisonDirection direction = compare->comparison_direction();
  std::optional<int64_t> k = tracer.ElementOf(left, condition_state);
  std::optional<int64_t> bound = IntegerConstant(right, type);
  if (!k.has_value() || !bound.has_value()) {
    k = tracer.ElementOf(right, condition_state);
    bound = IntegerConstant(left, type);
    direction = Mirrored(direction);
  }
  if (!k.has_value() || !bound.has_value()) return std::nullopt;
  // The body: element k becomes counter + step (or counter - step).
  const HloInstruction* body_state = body->parameter_instruction(0);
  const HloInstruction* root = tracer.Trace(body->root_instruction());
  if (root->opcode() != HloOpcode::kTuple || *k >= root->operand_count()) return std::nullopt;
  const HloInstruction* next = tracer.Trace(root->operand(*k));
  if (next->opcode() != HloOpcode::kAdd && next->opcode() != HloOpcode::kSubtract) {
    return std::nullopt;
  }
  std::optional<int64_t> step;
  if (tracer.ElementOf(tracer.Trace(next->operand(0)), body_state) == k) {
    step = IntegerConstant(tracer.Trace(next->operand(1)), type);
    if (step.has_value() && next->opcode() == HloOpcode::kSubtract) step = -*step;
  } else if (next->opcode() == HloOpcode::kAdd &&
             tracer.ElementOf(tracer.Trace(next->operand(1)), body_state) == k) {
    step = IntegerConstant(tracer.Trace(next->operand(0)), type);
  }
  if (!step.has_value()) return std::nullopt;
  // The start: element k of the loop's operand.
  const HloInstruction* init = tracer.Trace(while_loop.operand(0));
  if (init->opcode() != HloOpcode::kTuple || *k >= init->operand_count()) return std::nullopt;
  std::optional<int64_t> start = IntegerConstant(tracer.Trace(init->operand(*k)), type);
  if (!start.has_value()) return std::nullopt;
  const __int128 low =
      type == S32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
  const __int128 high =
      type == S32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
  return Iterations(*start, *bound, *step, direction, low, high);
}

}  // namespace cpu
}  // namespace tessera
