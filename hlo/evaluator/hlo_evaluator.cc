// The evaluator's driver: argument checks, the computation runner (post
// order, one value per instruction), and the dispatch of each opcode to its
// family's file.
#include "hlo/evaluator/hlo_evaluator.h"

#include <unistd.h>

#include <limits>
#include <new>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "hlo/analysis/linalg_op.h"
#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/ir/hlo_opcode.h"

namespace tessera {
namespace evaluator_internal {
namespace {

constexpr int kMaxCallDepth = 1000;

// Opcodes the evaluator does not run: they talk to the outside world or
// keep hidden state.
absl::Status Unsupported(const HloInstruction& hlo) {
  if (hlo.opcode() == HloOpcode::kCustomCall) {
    return absl::UnimplementedError(absl::StrCat("custom-call target '",
                                                 hlo.attrs().custom_call_target,
                                                 "' is not supported by the evaluator"));
  }
  return absl::UnimplementedError(
      absl::StrCat(HloOpcodeString(hlo.opcode()), " is not supported by the evaluator"));
}

// Gives array leaves of `literal` the layouts of `shape` (layouts are
// metadata on literals; this keeps the declared ones visible).
void StampLayouts(const Shape& shape, Literal* literal) {
  if (shape.IsArray() && literal->shape().IsArray()) {
    if (shape.has_layout() &&
        static_cast<int64_t>(shape.layout().minor_to_major.size()) == shape.rank()) {
      literal->set_layout(shape.layout());
    }
  } else if (shape.IsTuple() && literal->shape().IsTuple() &&
             shape.tuple_size() == literal->tuple_size()) {
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      StampLayouts(shape.tuple_shapes(i), &literal->mutable_tuple_element(i));
    }
  }
}

// The bytes of this machine's memory (0 when unknown).
double PhysicalMemoryBytes() {
  static const double bytes = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    return pages > 0 && page_size > 0 ? double(pages) * double(page_size) : 0.0;
  }();
  return bytes;
}

// An instruction whose result is larger than the machine's memory is an
// error naming it, before anything is allocated: Linux may promise the
// memory and then kill the process as the result is zeroed, so waiting
// for std::bad_alloc is not enough.
absl::Status CheckResultFitsInMemory(const HloInstruction& hlo) {
  const double memory = PhysicalMemoryBytes();
  if (memory <= 0) return absl::OkStatus();
  double bytes = 0;
  std::vector<const Shape*> pending = {&hlo.shape()};
  while (!pending.empty()) {
    const Shape* shape = pending.back();
    pending.pop_back();
    if (shape->IsTuple()) {
      for (const Shape& element : shape->tuple_shapes()) pending.push_back(&element);
    } else if (shape->IsArray()) {
      double elements = 1;
      for (int64_t d : shape->dimensions()) elements *= double(d);
      bytes += elements * ByteWidth(shape->element_type());
    }
  }
  if (bytes <= memory) return absl::OkStatus();
  // (The runner puts the instruction's name in front.)
  return absl::ResourceExhaustedError(absl::StrFormat(
      "its result %s takes %.0f bytes (%.1f GiB), more than this machine's %.1f GiB of memory",
      hlo.shape().ToString(), bytes, bytes / (1 << 30), memory / (1 << 30)));
}

// The evaluation's cancel flag (EvaluateOptions::cancelled) on this thread:
// the runners of called computations (loop bodies, reducers) are made deep
// inside the families' code, and all of them check it.
thread_local const std::atomic<bool>* cancel_flag = nullptr;

}  // namespace

ComputationRunner::ComputationRunner(const HloComputation& computation)
    : computation_(computation) {
  std::vector<HloInstruction*> order = computation.MakeInstructionPostOrder();
  absl::flat_hash_map<const HloInstruction*, int64_t> position;
  post_order_.reserve(order.size());
  for (HloInstruction* h : order) {
    position[h] = static_cast<int64_t>(post_order_.size());
    post_order_.push_back(h);
  }
  operand_positions_.resize(post_order_.size());
  for (size_t i = 0; i < post_order_.size(); ++i) {
    for (const HloInstruction* operand : post_order_[i]->operands()) {
      auto it = position.find(operand);
      operand_positions_[i].push_back(it == position.end() ? -1 : it->second);
    }
  }
  values_.resize(post_order_.size());
  value_ptrs_.resize(post_order_.size(), nullptr);
}

absl::StatusOr<Literal> ComputationRunner::Run(Operands args) {
  TS_RETURN_IF_ERROR(CheckArguments(computation_, args));
  // Calls nest (while bodies, reducers, ...); a module that calls itself is
  // malformed, and this turns its infinite recursion into an error.
  static thread_local int depth = 0;
  if (depth >= kMaxCallDepth) {
    return absl::FailedPreconditionError(absl::StrCat(
        "calls nest deeper than ", kMaxCallDepth, " at computation ", computation_.name()));
  }
  ++depth;
  absl::StatusOr<Literal> result = RunBody(args);
  --depth;
  return result;
}

absl::StatusOr<Literal> ComputationRunner::RunBody(Operands args) {
  const HloInstruction* root = computation_.root_instruction();
  if (root == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("computation ", computation_.name(), " has no root"));
  }
  int64_t root_position = -1;
  std::vector<const Literal*> operand_values;
  for (size_t i = 0; i < post_order_.size(); ++i) {
    const HloInstruction& hlo = *post_order_[i];
    if (cancel_flag != nullptr && cancel_flag->load(std::memory_order_relaxed)) {
      return absl::CancelledError(
          absl::StrCat("the evaluation was cancelled before %", hlo.name()));
    }
    if (&hlo == root) root_position = static_cast<int64_t>(i);
    if (hlo.opcode() == HloOpcode::kParameter) {
      value_ptrs_[i] = args[hlo.parameter_number()];
      continue;
    }
    if (hlo.opcode() == HloOpcode::kConstant) {
      if (!hlo.attrs().literal.has_value()) {
        return absl::InvalidArgumentError(absl::StrCat("%", hlo.name(), ": constant has no value"));
      }
      value_ptrs_[i] = &hlo.literal();
      continue;
    }
    operand_values.clear();
    for (int64_t p : operand_positions_[i]) {
      if (p < 0) {
        return absl::FailedPreconditionError(absl::StrCat(
            "%", hlo.name(), ": an operand is not in computation ", computation_.name()));
      }
      operand_values.push_back(value_ptrs_[p]);
    }
    absl::StatusOr<Literal> value = EvaluateInstruction(hlo, operand_values);
    if (!value.ok()) {
      return absl::Status(value.status().code(),
                          absl::StrCat("%", hlo.name(), ": ", value.status().message()));
    }
    if (!ShapesCompatible(value->shape(), hlo.shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "%", hlo.name(), ": evaluates to a value of shape ", value->shape().ToString(),
          " but its declared shape is ", hlo.shape().ToString()));
    }
    StampLayouts(hlo.shape(), &*value);
    values_[i] = *std::move(value);
    value_ptrs_[i] = &values_[i];
  }
  if (root_position < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("the root of computation ", computation_.name(), " is not in it"));
  }
  // Parameters and constants are not owned: copy them; anything else moves.
  Literal result = value_ptrs_[root_position] == &values_[root_position]
                       ? std::move(values_[root_position])
                       : *value_ptrs_[root_position];
  for (Literal& value : values_) value = Literal();
  return result;
}

absl::Status CheckArguments(const HloComputation& computation, Operands args) {
  const int64_t expected = computation.num_parameters();
  if (static_cast<int64_t>(args.size()) != expected) {
    return absl::InvalidArgumentError(absl::StrCat("computation ", computation.name(), " takes ",
                                                   expected, " argument(s) but got ",
                                                   args.size()));
  }
  for (int64_t i = 0; i < expected; ++i) {
    const HloInstruction* parameter = computation.parameter_instruction(i);
    if (parameter == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("computation ", computation.name(), " has no parameter ", i));
    }
    if (!ShapesCompatible(parameter->shape(), args[i]->shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "argument ", i, " for parameter %", parameter->name(), " of computation ",
          computation.name(), " has shape ", args[i]->shape().ToString(), " but the parameter is ",
          parameter->shape().ToString()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> EvaluateInstruction(const HloInstruction& hlo, Operands operands) {
  TS_RETURN_IF_ERROR(CheckResultFitsInMemory(hlo));
  switch (hlo.opcode()) {
    case HloOpcode::kConvert:
    case HloOpcode::kBitcastConvert:
    case HloOpcode::kReducePrecision:
    case HloOpcode::kStochasticConvert:
    case HloOpcode::kComplex:
    case HloOpcode::kReal:
    case HloOpcode::kImag:
    case HloOpcode::kIsFinite:
      return EvaluateConvertOp(hlo, operands);
    case HloOpcode::kIota:
    case HloOpcode::kBroadcast:
    case HloOpcode::kReshape:
    case HloOpcode::kTranspose:
    case HloOpcode::kSlice:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kConcatenate:
    case HloOpcode::kPad:
    case HloOpcode::kReverse:
    case HloOpcode::kCopy:
    case HloOpcode::kBitcast:
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kSetDimensionSize:
      return EvaluateShapeOp(hlo, operands);
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kSelectAndScatter:
      return EvaluateReduceOp(hlo, operands);
    case HloOpcode::kDot:
    case HloOpcode::kConvolution:
      return EvaluateDotOrConvolution(hlo, operands);
    case HloOpcode::kFft:
      return EvaluateFft(hlo, operands);
    case HloOpcode::kGather:
    case HloOpcode::kScatter:
      return EvaluateGatherOrScatter(hlo, operands);
    case HloOpcode::kSort:
    case HloOpcode::kTopK:
      return EvaluateSortOp(hlo, operands);
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
    case HloOpcode::kCall:
    case HloOpcode::kFusion:
    case HloOpcode::kMap:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kAfterAll:
    case HloOpcode::kAddDependency:
    case HloOpcode::kDomain:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kCopyStart:
    case HloOpcode::kCopyDone:
      return EvaluateControlFlow(hlo, operands);
    case HloOpcode::kRngBitGenerator:
      return EvaluateRngBitGenerator(hlo, operands);
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
      return EvaluateCollective(hlo, operands);
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
      return absl::InternalError("parameters and constants are handled by the runner");
    default:
      break;
  }
  if (HloOpcodeIsCollective(hlo.opcode())) return EvaluateCollective(hlo, operands);
  if (IsLinalgOp(hlo)) return EvaluateLinalg(hlo, operands);
  // Annotations for multi-device partitioning: one device's value is the
  // operand's (as a copy is).
  if (IsAnnotationCustomCall(hlo)) return *operands[0];
  if (HloOpcodeIsElementwise(hlo.opcode())) return EvaluateElementwise(hlo, operands);
  return Unsupported(hlo);
}

absl::StatusOr<Literal> MakeLiteral(const Shape& shape) { return Literal::CreateFromShape(shape); }

Literal ScalarOf(const Literal& array, int64_t linear) {
  Literal scalar(Shape(array.shape().element_type(), {}));
  CopyElement(array, linear, &scalar, 0);
  return scalar;
}

int64_t ScalarIndexValue(const Literal& scalar) {
  const PrimitiveType type = scalar.shape().element_type();
  if (type == U64) {
    const uint64_t value = scalar.data<uint64_t>()[0];
    return value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
               ? std::numeric_limits<int64_t>::max()
               : static_cast<int64_t>(value);
  }
  return scalar.GetAsInt64(0);
}

absl::Status ExpectOperandCount(const HloInstruction& hlo, Operands operands, int64_t n) {
  if (static_cast<int64_t>(operands.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat(HloOpcodeString(hlo.opcode()), " takes ", n,
                                                   " operand(s) but has ", operands.size()));
  }
  return absl::OkStatus();
}

absl::Status ExpectArray(const Literal& literal, absl::string_view what) {
  if (!literal.shape().IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be an array but has shape ", literal.shape().ToString()));
  }
  return absl::OkStatus();
}

absl::Status ExpectArrayShape(const HloInstruction& hlo) {
  if (!hlo.shape().IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat(HloOpcodeString(hlo.opcode()),
                                                   " must have an array shape, not ",
                                                   hlo.shape().ToString()));
  }
  return absl::OkStatus();
}

absl::StatusOr<const HloComputation*> CalledComputation(const HloInstruction& hlo, int64_t i) {
  if (i >= static_cast<int64_t>(hlo.called_computations().size()) ||
      hlo.called_computations()[i] == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(HloOpcodeString(hlo.opcode()),
                                                   " is missing called computation ", i));
  }
  return hlo.called_computations()[i];
}

}  // namespace evaluator_internal

absl::StatusOr<Literal> EvaluateComputation(const HloComputation& computation,
                                            absl::Span<const Literal> arguments,
                                            const EvaluateOptions& options) {
  std::vector<const Literal*> args;
  args.reserve(arguments.size());
  for (const Literal& argument : arguments) args.push_back(&argument);
  evaluator_internal::ComputationRunner runner(computation);
  // This evaluation's flag while it runs (an evaluation nested in another
  // without one of its own keeps the outer one's).
  const std::atomic<bool>* const outer_flag = evaluator_internal::cancel_flag;
  if (options.cancelled != nullptr) evaluator_internal::cancel_flag = options.cancelled;
  // A value too large for the machine is an error of the program's, not a
  // crash (the runner's values are freed as the exception unwinds).
  absl::StatusOr<Literal> result;
  try {
    result = runner.Run(args);
  } catch (const std::bad_alloc&) {
    result = absl::ResourceExhaustedError(
        absl::StrCat("the evaluator ran out of memory in computation ", computation.name(),
                     " (a value too large for this machine?)"));
  }
  evaluator_internal::cancel_flag = outer_flag;
  return result;
}

absl::StatusOr<Literal> EvaluateModule(const HloModule& module, absl::Span<const Literal> arguments,
                                       const EvaluateOptions& options) {
  if (module.entry_computation() == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("module ", module.name(), " has no entry computation"));
  }
  return EvaluateComputation(*module.entry_computation(), arguments, options);
}

}  // namespace tessera
