#include "passes/layout/layout_normalization.h"

#include <vector>

#include "hlo/ir/status_macros.h"

namespace tessera {
namespace {

// The minor-to-major order an array is stored in (row-major when the shape
// has no layout).
std::vector<int64_t> StorageOrder(const Shape& shape) {
  if (shape.has_layout() &&
      static_cast<int64_t>(shape.layout().minor_to_major.size()) == shape.rank()) {
    return shape.layout().minor_to_major;
  }
  return Layout::Descending(shape.rank()).minor_to_major;
}

// True when a value of shape `a` may be read as one of shape `b` (same
// bytes in the same order), tuples element by element.
bool SameStorage(const Shape& a, const Shape& b) {
  if (a.IsTuple() != b.IsTuple()) return false;
  if (a.IsTuple()) {
    if (a.tuple_size() != b.tuple_size()) return false;
    for (int64_t i = 0; i < a.tuple_size(); ++i) {
      if (!SameStorage(a.tuple_shapes(i), b.tuple_shapes(i))) return false;
    }
    return true;
  }
  if (!a.IsArray() || !b.IsArray()) return true;
  const auto tiles = [](const Shape& s) {
    return s.has_layout() ? s.layout().tiles : std::vector<Tile>{};
  };
  return StorageOrder(a) == StorageOrder(b) && tiles(a) == tiles(b);
}

class Normalizer {
 public:
  explicit Normalizer(int64_t* conversions) : conversions_(conversions) {}

  // One sweep over every non-fusion computation, callees first.  Returns
  // whether anything changed; the caller repeats until nothing does (a
  // condition's parameter set by its while is propagated on the next one).
  absl::StatusOr<bool> Sweep(HloModule* module) {
    bool changed = false;
    for (HloComputation* computation : module->MakeComputationPostOrder()) {
      if (computation->IsFusionComputation()) continue;
      for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
        TS_ASSIGN_OR_RETURN(bool here, Visit(computation, instruction));
        changed |= here;
      }
    }
    return changed;
  }

 private:
  // `value` in computation `computation` as a value of shape `target` (same
  // dimensions): itself when the storage agrees, else copies.
  HloInstruction* Convert(HloComputation* computation, HloInstruction* value,
                          const Shape& target) {
    if (SameStorage(value->shape(), target)) return value;
    if (!value->shape().IsTuple()) {
      ++*conversions_;
      return computation->AddInstruction(
          HloInstruction::CreateUnary(target, HloOpcode::kCopy, value));
    }
    std::vector<HloInstruction*> elements;
    for (int64_t i = 0; i < value->shape().tuple_size(); ++i) {
      HloInstruction* element = computation->AddInstruction(
          HloInstruction::CreateGetTupleElement(value->shape().tuple_shapes(i), value, i));
      elements.push_back(Convert(computation, element, target.tuple_shapes(i)));
    }
    return computation->AddInstruction(HloInstruction::CreateTuple(elements));
  }

  // Replaces operand `number` of `user` by its conversion to `target`.
  absl::StatusOr<bool> ConvertOperand(HloComputation* computation, HloInstruction* user,
                                      int64_t number, const Shape& target) {
    HloInstruction* operand = user->operands()[number];
    HloInstruction* converted = Convert(computation, operand, target);
    if (converted == operand) return false;
    TS_RETURN_IF_ERROR(user->ReplaceOperandWith(number, converted));
    return true;
  }

  // Makes `computation`'s root a value of shape `target`.
  bool ConvertRoot(HloComputation* computation, const Shape& target) {
    HloInstruction* root = computation->root_instruction();
    HloInstruction* converted = Convert(computation, root, target);
    if (converted == root) return false;
    computation->set_root_instruction(converted);
    return true;
  }

  // Sets `instruction`'s shape to `shape` where its storage differs.
  static bool Follow(HloInstruction* instruction, const Shape& shape) {
    if (SameStorage(instruction->shape(), shape)) return false;
    *instruction->mutable_shape() = shape;
    return true;
  }

  static bool FollowParameter(HloComputation* callee, int64_t number, const Shape& shape) {
    if (number >= callee->num_parameters()) return false;
    return Follow(callee->parameter_instruction(number), shape);
  }

  absl::StatusOr<bool> Visit(HloComputation* computation, HloInstruction* instruction) {
    switch (instruction->opcode()) {
      case HloOpcode::kTuple: {
        std::vector<Shape> elements;
        for (const HloInstruction* operand : instruction->operands()) {
          elements.push_back(operand->shape());
        }
        return Follow(instruction, Shape::MakeTuple(std::move(elements)));
      }
      case HloOpcode::kGetTupleElement: {
        const Shape& tuple = instruction->operand(0)->shape();
        if (!tuple.IsTuple() || instruction->tuple_index() >= tuple.tuple_size()) return false;
        return Follow(instruction, tuple.tuple_shapes(instruction->tuple_index()));
      }
      case HloOpcode::kOptimizationBarrier:
      case HloOpcode::kDomain:
      case HloOpcode::kAddDependency:
        return Follow(instruction, instruction->operand(0)->shape());
      case HloOpcode::kWhile: {
        HloComputation* body = instruction->while_body();
        if (body->num_parameters() != 1) return false;
        const Shape state = body->parameter_instruction(0)->shape();
        bool changed = ConvertRoot(body, state);
        changed |= FollowParameter(instruction->while_condition(), 0, state);
        TS_ASSIGN_OR_RETURN(bool init, ConvertOperand(computation, instruction, 0, state));
        return changed | init | Follow(instruction, state);
      }
      case HloOpcode::kConditional: {
        bool changed = false;
        const auto& branches = instruction->called_computations();
        for (size_t b = 0; b < branches.size(); ++b) {
          changed |= ConvertRoot(branches[b], instruction->shape());
          if (branches[b]->num_parameters() != 1 ||
              static_cast<int64_t>(b) + 1 >= instruction->operand_count()) {
            continue;
          }
          TS_ASSIGN_OR_RETURN(bool operand,
                              ConvertOperand(computation, instruction, b + 1,
                                             branches[b]->parameter_instruction(0)->shape()));
          changed |= operand;
        }
        return changed;
      }
      case HloOpcode::kCall: {
        HloComputation* callee = instruction->to_apply();
        bool changed = false;
        for (int64_t i = 0; i < instruction->operand_count() && i < callee->num_parameters();
             ++i) {
          TS_ASSIGN_OR_RETURN(bool operand,
                              ConvertOperand(computation, instruction, i,
                                             callee->parameter_instruction(i)->shape()));
          changed |= operand;
        }
        return changed | Follow(instruction, callee->root_instruction()->shape());
      }
      case HloOpcode::kDynamicUpdateSlice:
        return ConvertOperand(computation, instruction, 0, instruction->shape());
      case HloOpcode::kScatter: {
        const int64_t n = (instruction->operand_count() - 1) / 2;
        bool changed = false;
        for (int64_t i = 0; i < n; ++i) {
          const Shape& result =
              n == 1 ? instruction->shape() : instruction->shape().tuple_shapes(i);
          TS_ASSIGN_OR_RETURN(bool operand, ConvertOperand(computation, instruction, i, result));
          changed |= operand;
        }
        return changed;
      }
      default:
        return false;
    }
  }

  int64_t* conversions_;
};

}  // namespace

absl::StatusOr<bool> LayoutNormalization::Run(HloModule* module) {
  conversions_added_ = 0;
  Normalizer normalizer(&conversions_added_);
  bool changed = false;
  // Each sweep settles at least one more level of nesting; a module nests
  // control flow only so deep, and a bound keeps a bad module from looping.
  constexpr int kMaxSweeps = 64;
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    TS_ASSIGN_OR_RETURN(bool here, normalizer.Sweep(module));
    if (!here) return changed;
    changed = true;
  }
  return absl::InternalError("layout-normalization did not settle after 64 sweeps");
}

}  // namespace tessera
