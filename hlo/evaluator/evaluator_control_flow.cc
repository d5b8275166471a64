// Control flow and structure: while, conditional (pred or index; an index
// out of range takes the last branch), call, fusion (the fused computation
// run as a call), map, tuple, get-tuple-element, and the ops that only pass
// values through (opt-barrier, add-dependency, domain, after-all tokens,
// async and copy start/done pairs).
#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/evaluator/index_iteration.h"
#include "hlo/ir/hlo_opcode.h"

namespace tessera {
namespace evaluator_internal {
namespace {

absl::StatusOr<Literal> Call(const HloComputation& computation, Operands operands) {
  ComputationRunner runner(computation);
  return runner.Run(operands);
}

absl::StatusOr<bool> PredValue(const Literal& value, absl::string_view what) {
  if (!value.shape().IsArray() || value.shape().element_type() != PRED ||
      value.shape().rank() != 0) {
    return InvalidArgument(absl::StrCat(what, " must be a pred scalar, not ",
                                        value.shape().ToString()));
  }
  return value.data<bool>()[0];
}

absl::StatusOr<Literal> While(const HloInstruction& hlo, Operands operands) {
  TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 1));
  TS_ASSIGN_OR_RETURN(const HloComputation* condition, CalledComputation(hlo, 0));
  TS_ASSIGN_OR_RETURN(const HloComputation* body, CalledComputation(hlo, 1));
  ComputationRunner condition_runner(*condition);
  ComputationRunner body_runner(*body);
  Literal state = *operands[0];
  while (true) {
    TS_ASSIGN_OR_RETURN(Literal keep_going, condition_runner.Run({&state}));
    TS_ASSIGN_OR_RETURN(bool again, PredValue(keep_going, "the while condition"));
    if (!again) break;
    TS_ASSIGN_OR_RETURN(state, body_runner.Run({&state}));
  }
  return state;
}

absl::StatusOr<Literal> Conditional(const HloInstruction& hlo, Operands operands) {
  const int64_t branches = hlo.called_computations().size();
  if (branches < 1 || static_cast<int64_t>(operands.size()) != branches + 1) {
    return InvalidArgument("conditional needs a selector and one operand per branch");
  }
  const Literal& selector = *operands[0];
  int64_t branch;
  if (selector.shape().IsArray() && selector.shape().element_type() == PRED) {
    TS_ASSIGN_OR_RETURN(bool value, PredValue(selector, "the predicate"));
    if (branches != 2) return InvalidArgument("a pred conditional needs two branches");
    branch = value ? 0 : 1;
  } else if (selector.shape().IsArray() && selector.shape().element_type() == S32 &&
             selector.shape().rank() == 0) {
    branch = selector.data<int32_t>()[0];
    if (branch < 0 || branch >= branches) branch = branches - 1;
  } else {
    return InvalidArgument("the branch index must be a pred or s32 scalar");
  }
  TS_ASSIGN_OR_RETURN(const HloComputation* computation, CalledComputation(hlo, branch));
  return Call(*computation, {operands[branch + 1]});
}

// map applies its computation to each element position of its operands.
absl::StatusOr<Literal> Map(const HloInstruction& hlo, Operands operands) {
  TS_ASSIGN_OR_RETURN(const HloComputation* computation, CalledComputation(hlo, 0));
  TS_RETURN_IF_ERROR(ExpectArrayShape(hlo));
  std::vector<Literal> scalars;
  for (const Literal* operand : operands) {
    TS_RETURN_IF_ERROR(ExpectArray(*operand, "an operand"));
    if (operand->shape().dimensions() != hlo.shape().dimensions()) {
      return InvalidArgument("map's operands must have the result's dimensions");
    }
    scalars.emplace_back(Shape(operand->shape().element_type(), {}));
  }
  std::vector<const Literal*> args;
  for (const Literal& s : scalars) args.push_back(&s);
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  ComputationRunner runner(*computation);
  for (int64_t i = 0; i < out.element_count(); ++i) {
    for (size_t j = 0; j < operands.size(); ++j) CopyElement(*operands[j], i, &scalars[j], 0);
    TS_ASSIGN_OR_RETURN(Literal value, runner.Run(args));
    if (!value.shape().IsArray() || value.shape().rank() != 0 ||
        value.shape().element_type() != hlo.shape().element_type()) {
      return InvalidArgument("map's computation must return a scalar of the result's type");
    }
    CopyElement(value, 0, &out, i);
  }
  return out;
}

absl::StatusOr<Literal> GetTupleElement(const HloInstruction& hlo, Operands operands) {
  TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 1));
  const Literal& tuple = *operands[0];
  const int64_t index = hlo.tuple_index();
  if (!tuple.shape().IsTuple() || index < 0 || index >= tuple.tuple_size()) {
    return InvalidArgument(absl::StrCat("no element ", index, " in ", ShapeString(tuple)));
  }
  return tuple.tuple_element(index);
}

// Element `index` of a tuple value, or an error.
absl::StatusOr<Literal> TupleElement(const Literal& tuple, int64_t index) {
  if (!tuple.shape().IsTuple() || index >= tuple.tuple_size()) {
    return InvalidArgument(absl::StrCat("no element ", index, " in ", ShapeString(tuple)));
  }
  return tuple.tuple_element(index);
}

// async-start: ((operands...), result, context...), the wrapped
// computation run at once.
absl::StatusOr<Literal> AsyncStart(const HloInstruction& hlo, Operands operands) {
  TS_ASSIGN_OR_RETURN(const HloComputation* computation, CalledComputation(hlo, 0));
  TS_ASSIGN_OR_RETURN(Literal result, Call(*computation, operands));
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  if (!out.shape().IsTuple() || out.tuple_size() < 2) {
    return InvalidArgument("async-start's shape must be ((operands), result, ...)");
  }
  std::vector<Literal> inputs;
  for (const Literal* operand : operands) inputs.push_back(*operand);
  out.mutable_tuple_element(0) = Literal::MakeTuple(std::move(inputs));
  out.mutable_tuple_element(1) = std::move(result);
  return out;
}

// copy-start: (destination, source, context).
absl::StatusOr<Literal> CopyStart(const HloInstruction& hlo, Operands operands) {
  TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 1));
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  if (!out.shape().IsTuple() || out.tuple_size() < 2) {
    return InvalidArgument("copy-start's shape must be (destination, source, context)");
  }
  out.mutable_tuple_element(0) = *operands[0];
  out.mutable_tuple_element(1) = *operands[0];
  return out;
}

}  // namespace

absl::StatusOr<Literal> EvaluateControlFlow(const HloInstruction& hlo, Operands operands) {
  switch (hlo.opcode()) {
    case HloOpcode::kWhile: return While(hlo, operands);
    case HloOpcode::kConditional: return Conditional(hlo, operands);
    case HloOpcode::kCall:
    case HloOpcode::kFusion: {
      TS_ASSIGN_OR_RETURN(const HloComputation* computation, CalledComputation(hlo, 0));
      return Call(*computation, operands);
    }
    case HloOpcode::kMap: return Map(hlo, operands);
    case HloOpcode::kTuple: {
      std::vector<Literal> elements;
      for (const Literal* operand : operands) elements.push_back(*operand);
      return Literal::MakeTuple(std::move(elements));
    }
    case HloOpcode::kGetTupleElement: return GetTupleElement(hlo, operands);
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kDomain:
    case HloOpcode::kAsyncUpdate:
      TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 1));
      return *operands[0];
    case HloOpcode::kAddDependency:
      TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 2));
      return *operands[0];
    case HloOpcode::kAfterAll: return Literal::CreateToken();
    case HloOpcode::kAsyncStart: return AsyncStart(hlo, operands);
    case HloOpcode::kAsyncDone:
      TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 1));
      return TupleElement(*operands[0], 1);
    case HloOpcode::kCopyStart: return CopyStart(hlo, operands);
    case HloOpcode::kCopyDone:
      TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 1));
      return TupleElement(*operands[0], 0);
    default:
      return absl::InternalError(
          absl::StrCat("not a control-flow op: ", HloOpcodeString(hlo.opcode())));
  }
}

}  // namespace evaluator_internal
}  // namespace tessera
