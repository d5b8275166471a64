// Shape inference for ops that call computations: while, conditional, call,
// fusion, custom-call, scan, and the async-start/update/done wrappers.
#include "hlo/analysis/shape_inference.h"
#include "hlo/analysis/shape_inference_internal.h"
#include "hlo/ir/status_macros.h"

namespace tessera {

using namespace shape_inference_internal;  // NOLINT: shared helpers

absl::StatusOr<Shape> InferWhileShape(const ProgramShape& condition, const ProgramShape& body,
                                      const Shape& init) {
  if (condition.parameters.size() != 1) {
    return Invalid("while condition must take 1 parameter, takes ", condition.parameters.size());
  }
  if (body.parameters.size() != 1) {
    return Invalid("while body must take 1 parameter, takes ", body.parameters.size());
  }
  if (!condition.result.IsScalar() || condition.result.element_type() != PRED) {
    return Invalid("while condition must return pred[], returns ", Str(condition.result));
  }
  if (!ShapesCompatible(condition.parameters[0], init)) {
    return Invalid("while condition parameter ", Str(condition.parameters[0]),
                   " does not match the loop state ", Str(init));
  }
  if (!ShapesCompatible(body.parameters[0], init)) {
    return Invalid("while body parameter ", Str(body.parameters[0]),
                   " does not match the loop state ", Str(init));
  }
  if (!ShapesCompatible(body.result, init)) {
    return Invalid("while body returns ", Str(body.result), " but the loop state is ", Str(init));
  }
  return body.result;
}

absl::StatusOr<Shape> InferConditionalShape(const Shape& branch_index,
                                            absl::Span<const ProgramShape> branches,
                                            absl::Span<const Shape* const> branch_operands) {
  if (!branch_index.IsScalar() ||
      (branch_index.element_type() != PRED && branch_index.element_type() != S32)) {
    return Invalid("conditional selector must be pred[] or s32[], got ", Str(branch_index));
  }
  if (branches.empty()) return Invalid("conditional needs at least one branch");
  if (branch_index.element_type() == PRED && branches.size() != 2) {
    return Invalid("conditional with a pred selector needs 2 branches, has ", branches.size());
  }
  if (branch_operands.size() != branches.size()) {
    return Invalid("conditional has ", branches.size(), " branch(es) but ", branch_operands.size(),
                   " branch operand(s)");
  }
  for (size_t j = 0; j < branches.size(); ++j) {
    if (branches[j].parameters.size() != 1) {
      return Invalid("conditional branch ", j, " must take 1 parameter, takes ",
                     branches[j].parameters.size());
    }
    if (!ShapesCompatible(branches[j].parameters[0], *branch_operands[j])) {
      return Invalid("conditional branch ", j, " parameter ", Str(branches[j].parameters[0]),
                     " does not match its operand ", Str(*branch_operands[j]));
    }
    if (!ShapesCompatible(branches[j].result, branches[0].result)) {
      return Invalid("conditional branch ", j, " returns ", Str(branches[j].result),
                     " but branch 0 returns ", Str(branches[0].result));
    }
  }
  return branches[0].result;
}

absl::StatusOr<Shape> InferCallShape(absl::Span<const Shape* const> arguments,
                                     const ProgramShape& callee) {
  if (arguments.size() != callee.parameters.size()) {
    return Invalid("called computation takes ", callee.parameters.size(),
                   " parameter(s) but there are ", arguments.size(), " operand(s)");
  }
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (!ShapesCompatible(*arguments[i], callee.parameters[i])) {
      return Invalid("operand ", i, " ", Str(*arguments[i]),
                     " does not match called computation parameter ", Str(callee.parameters[i]));
    }
  }
  return callee.result;
}

namespace {

// Checks output_operand_aliasing of fusion and custom-call.
absl::Status CheckOutputOperandAliasing(const HloInstruction& hlo) {
  for (const OutputOperandAliasing& alias : hlo.attrs().output_operand_aliasing) {
    if (alias.operand_index < 0 || alias.operand_index >= hlo.operand_count()) {
      return Invalid("output_to_operand_aliasing names operand ", alias.operand_index, " of ",
                     hlo.operand_count());
    }
    const Shape* output = hlo.shape().Subshape(alias.output_shape_index);
    const Shape* operand =
        hlo.operand(alias.operand_index)->shape().Subshape(alias.operand_shape_index);
    if (output == nullptr || operand == nullptr) {
      return Invalid("output_to_operand_aliasing index ",
                     ShapeIndexToString(alias.output_shape_index), " -> operand ",
                     alias.operand_index, " ", ShapeIndexToString(alias.operand_shape_index),
                     " does not exist");
    }
    if (!ShapesCompatible(*output, *operand)) {
      return Invalid("output_to_operand_aliasing pairs ", Str(*output), " with ", Str(*operand));
    }
  }
  return absl::OkStatus();
}

// async-start's shape: ((wrapped parameters...), wrapped result, context...).
absl::StatusOr<Shape> AsyncShape(const HloInstruction& hlo, const Shape& declared) {
  TS_ASSIGN_OR_RETURN(ProgramShape wrapped, CalledSignature(hlo, 0));
  if (!declared.IsTuple() || declared.tuple_size() < 2) {
    return Invalid(OpName(hlo.opcode()), " needs a tuple shape of at least 2 elements, got ",
                   Str(declared));
  }
  std::vector<Shape> elements = {Shape::MakeTuple(wrapped.parameters), wrapped.result};
  for (int64_t i = 2; i < declared.tuple_size(); ++i) {
    elements.push_back(declared.tuple_shapes(i));
  }
  return Shape::MakeTuple(std::move(elements));
}

// async-update and async-done consume an async-start or async-update of the
// same wrapped computation.
absl::Status CheckAsyncOperand(const HloInstruction& hlo) {
  const HloInstruction* operand = hlo.operand(0);
  if (operand->opcode() != HloOpcode::kAsyncStart && operand->opcode() != HloOpcode::kAsyncUpdate) {
    return Invalid(OpName(hlo.opcode()), " operand must be async-start or async-update, got ",
                   OpName(operand->opcode()));
  }
  if (operand->called_computations() != hlo.called_computations()) {
    return Invalid(OpName(hlo.opcode()), " must wrap the same computation as its operand %",
                   operand->name());
  }
  return absl::OkStatus();
}

}  // namespace

namespace shape_inference_internal {

absl::StatusOr<Shape> InferControlFlowInstruction(const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    case HloOpcode::kWhile: {
      TS_ASSIGN_OR_RETURN(ProgramShape condition, CalledSignature(hlo, 0));
      TS_ASSIGN_OR_RETURN(ProgramShape body, CalledSignature(hlo, 1));
      return InferWhileShape(condition, body, hlo.operand(0)->shape());
    }
    case HloOpcode::kConditional: {
      const int64_t branches = static_cast<int64_t>(hlo.called_computations().size());
      if (hlo.operand_count() != branches + 1) {
        return Invalid("conditional with ", branches, " branch(es) needs ", branches + 1,
                       " operands, has ", hlo.operand_count());
      }
      std::vector<ProgramShape> signatures;
      for (int64_t j = 0; j < branches; ++j) {
        TS_ASSIGN_OR_RETURN(ProgramShape s, CalledSignature(hlo, j));
        signatures.push_back(std::move(s));
      }
      return InferConditionalShape(hlo.operand(0)->shape(), signatures, OperandShapes(hlo, 1));
    }
    case HloOpcode::kCall: {
      TS_ASSIGN_OR_RETURN(ProgramShape callee, CalledSignature(hlo, 0));
      return InferCallShape(OperandShapes(hlo), callee);
    }
    case HloOpcode::kFusion: {
      TS_ASSIGN_OR_RETURN(ProgramShape fused, CalledSignature(hlo, 0));
      TS_RETURN_IF_ERROR(CheckOutputOperandAliasing(hlo));
      return InferCallShape(OperandShapes(hlo), fused);
    }
    case HloOpcode::kCustomCall: {
      TS_RETURN_IF_ERROR(CheckOutputOperandAliasing(hlo));
      const auto& with_layout = hlo.attrs().operand_shapes_with_layout;
      if (!with_layout.empty() || hlo.attrs().constrain_layout) {
        if (static_cast<int64_t>(with_layout.size()) != hlo.operand_count()) {
          return Invalid("custom-call has ", with_layout.size(),
                         " operand layout constraint(s) for ", hlo.operand_count(), " operand(s)");
        }
        for (int64_t i = 0; i < hlo.operand_count(); ++i) {
          if (!ShapesCompatible(with_layout[i], hlo.operand(i)->shape())) {
            return Invalid("custom-call operand ", i, " ", Str(hlo.operand(i)->shape()),
                           " does not match its layout constraint ", Str(with_layout[i]));
          }
        }
      }
      return hlo.shape();
    }
    case HloOpcode::kScan:
      // No shape rule is defined for scan yet; its declared shape stands.
      return hlo.shape();
    case HloOpcode::kAsyncStart: {
      TS_ASSIGN_OR_RETURN(Shape shape, AsyncShape(hlo, hlo.shape()));
      TS_RETURN_IF_ERROR(
          InferCallShape(
              OperandShapes(hlo),
              ProgramShape{shape.tuple_shapes(0).tuple_shapes(), {}, shape.tuple_shapes(1)})
              .status());
      return shape;
    }
    case HloOpcode::kAsyncUpdate: {
      TS_RETURN_IF_ERROR(CheckAsyncOperand(hlo));
      return AsyncShape(hlo, hlo.operand(0)->shape());
    }
    case HloOpcode::kAsyncDone: {
      TS_RETURN_IF_ERROR(CheckAsyncOperand(hlo));
      TS_ASSIGN_OR_RETURN(Shape shape, AsyncShape(hlo, hlo.operand(0)->shape()));
      if (!ShapesCompatible(shape, hlo.operand(0)->shape())) {
        return Invalid("async operand ", Str(hlo.operand(0)->shape()),
                       " does not match the wrapped computation ", Str(shape));
      }
      return shape.tuple_shapes(1);
    }
    default:
      return Invalid(OpName(hlo.opcode()), " is not a control-flow op");
  }
}

}  // namespace shape_inference_internal
}  // namespace tessera
