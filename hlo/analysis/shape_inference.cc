// InferShape: operand-count rules, shared helpers, and the dispatch from
// opcode to the op family that infers its shape.  Each family lives in its
// own shape_inference_<family>.cc.
#include "hlo/analysis/shape_inference.h"

#include <algorithm>
#include <limits>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "hlo/analysis/shape_inference_internal.h"
#include "hlo/ir/status_macros.h"

namespace tessera {
namespace shape_inference_internal {

absl::Status ExpectArray(const Shape& shape, const std::string& what) {
  if (!shape.IsArray()) {
    return Invalid("expected an array for ", what, ", got ", Str(shape));
  }
  return absl::OkStatus();
}

bool SameElementTypeIgnoringFpPrecision(const Shape& a, const Shape& b) {
  if (IsFloatingPointType(a.element_type()) && IsFloatingPointType(b.element_type())) {
    return true;
  }
  return a.element_type() == b.element_type();
}

namespace {

// XLA's precision order (primitive_util::HigherPrecisionType): complex over
// real, then floating-point exponent range, then significand width, then
// bit width, then signed over unsigned.
std::tuple<bool, int, int, int, bool> PrecisionKey(PrimitiveType type) {
  const bool complex = IsComplexType(type);
  const PrimitiveType component = complex ? ComplexComponentType(type) : type;
  int exponent = -1, significand = -1;
  if (std::optional<FloatFormat> format = FloatFormatOf(component)) {
    // numeric_limits' max_exponent (one past the largest exponent; the
    // finite formats use the all-ones exponent too), then the digits.
    exponent = (1 << format->exponent_bits) - 1 - format->bias +
               (format->specials == FloatFormat::Specials::kIeee ? 0 : 1);
    significand = format->mantissa_bits + 1;
  }
  return {complex, exponent, significand, BitWidth(component), IsSignedIntegralType(component)};
}

}  // namespace

PrimitiveType HigherPrecisionElementType(const Shape& a, const Shape& b) {
  return PrecisionKey(b.element_type()) > PrecisionKey(a.element_type()) ? b.element_type()
                                                                         : a.element_type();
}

Shape WithElementType(const Shape& shape, PrimitiveType type) {
  Shape result(type, shape.dimensions());
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (shape.is_dynamic_dimension(i)) result.set_dynamic_dimension(i, true);
  }
  return result;
}

Shape ScalarShape(PrimitiveType type) { return Shape(type, {}); }

int64_t SafeElementCount(const Shape& shape) {
  int64_t count = 1;
  for (int64_t d : shape.dimensions()) {
    if (d < 0) return -1;
    if (d == 0) return 0;
  }
  for (int64_t d : shape.dimensions()) {
    if (count > std::numeric_limits<int64_t>::max() / d) {
      return std::numeric_limits<int64_t>::max();
    }
    count *= d;
  }
  return count;
}

bool AllUnique(absl::Span<const int64_t> values) {
  return std::set<int64_t>(values.begin(), values.end()).size() == values.size();
}

bool IsSortedStrictly(absl::Span<const int64_t> values) {
  for (size_t i = 1; i < values.size(); ++i) {
    if (values[i - 1] >= values[i]) return false;
  }
  return true;
}

bool IsPermutation(absl::Span<const int64_t> values, int64_t rank) {
  if (static_cast<int64_t>(values.size()) != rank) return false;
  std::vector<bool> seen(rank, false);
  for (int64_t v : values) {
    if (v < 0 || v >= rank || seen[v]) return false;
    seen[v] = true;
  }
  return true;
}

absl::Status CheckDimensionList(absl::Span<const int64_t> values, int64_t rank,
                                const std::string& what) {
  for (int64_t v : values) {
    if (v < 0 || v >= rank) {
      return Invalid(what, " ", Dims(values), " has dimension ", v, " out of range for rank ",
                     rank);
    }
  }
  if (!AllUnique(values)) return Invalid(what, " ", Dims(values), " repeats a dimension");
  return absl::OkStatus();
}

std::vector<const Shape*> OperandShapes(const HloInstruction& hlo, int64_t begin, int64_t end) {
  if (end < 0) end = hlo.operand_count();
  std::vector<const Shape*> shapes;
  for (int64_t i = begin; i < end; ++i) shapes.push_back(&hlo.operand(i)->shape());
  return shapes;
}

absl::Status ExpectCalledComputations(const HloInstruction& hlo, int64_t count) {
  const int64_t actual = static_cast<int64_t>(hlo.called_computations().size());
  if (actual != count) {
    return Invalid(OpName(hlo.opcode()), " must call ", count, " computation(s), calls ", actual);
  }
  for (const HloComputation* c : hlo.called_computations()) {
    if (c == nullptr) return Invalid("called computation is null");
  }
  return absl::OkStatus();
}

absl::StatusOr<ProgramShape> CalledSignature(const HloInstruction& hlo, int64_t index) {
  const auto& called = hlo.called_computations();
  if (index < 0 || index >= static_cast<int64_t>(called.size()) || called[index] == nullptr) {
    return Invalid(OpName(hlo.opcode()), " is missing called computation ", index);
  }
  return ComputationSignature(called[index]);
}

absl::StatusOr<int64_t> SingleDimension(const HloInstruction& hlo, const std::string& what) {
  if (hlo.dimensions().size() != 1) {
    return Invalid(what, " must be one dimension, got ", Dims(hlo.dimensions()));
  }
  return hlo.dimensions(0);
}

}  // namespace shape_inference_internal

using namespace shape_inference_internal;  // NOLINT: this file's own helpers

absl::StatusOr<ProgramShape> ComputationSignature(const HloComputation* computation) {
  if (computation == nullptr) return Invalid("called computation is null");
  ProgramShape signature;
  const auto& params = computation->parameter_instructions();
  for (int64_t i = 0; i < static_cast<int64_t>(params.size()); ++i) {
    if (params[i] == nullptr) {
      return Invalid("computation ", computation->name(), " has no parameter ", i);
    }
    signature.parameters.push_back(params[i]->shape());
    signature.parameter_names.push_back(params[i]->name());
  }
  if (computation->root_instruction() == nullptr) {
    return Invalid("computation ", computation->name(), " has no root instruction");
  }
  signature.result = computation->root_instruction()->shape();
  return signature;
}

OperandCountRange ExpectedOperandCount(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAfterAll:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kCall:
    case HloOpcode::kCustomCall:
    case HloOpcode::kFusion:
    case HloOpcode::kScan:
    case HloOpcode::kTuple:
      return {0, -1};
    case HloOpcode::kAsyncUpdate:
      return {1, 1};
    case HloOpcode::kConvolution:
    case HloOpcode::kRng:
      return {2, 2};
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
      return {2, -1};
    case HloOpcode::kScatter:
      return {3, -1};
    default:
      break;
  }
  if (std::optional<int> arity = HloOpcodeArity(opcode)) return {*arity, *arity};
  return {1, -1};
}

absl::Status CheckOperandCount(const HloInstruction& hlo) {
  const OperandCountRange range = ExpectedOperandCount(hlo.opcode());
  const int64_t n = hlo.operand_count();
  if (n < range.min || (range.max >= 0 && n > range.max)) {
    std::string expected = range.min == range.max ? absl::StrCat(range.min)
                           : range.max < 0        ? absl::StrCat("at least ", range.min)
                                                  : absl::StrCat(range.min, " to ", range.max);
    return Invalid(OpName(hlo.opcode()), " expects ", expected, " operand(s), got ", n);
  }
  for (int64_t i = 0; i < n; ++i) {
    if (hlo.operand(i) == nullptr) return Invalid("operand ", i, " is null");
  }
  switch (hlo.opcode()) {
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
      if (n % 2 != 0) {
        return Invalid(OpName(hlo.opcode()), " expects an even number of operands, got ", n);
      }
      break;
    case HloOpcode::kScatter:
      if (n % 2 != 1) {
        return Invalid("scatter expects an odd number of operands, got ", n);
      }
      break;
    default:
      break;
  }
  return absl::OkStatus();
}

namespace {

// The family that infers each opcode's shape.
absl::StatusOr<Shape> Dispatch(const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    // Elementwise and element-type ops.
    case HloOpcode::kAbs:
    case HloOpcode::kAcos:
    case HloOpcode::kAcosh:
    case HloOpcode::kAdd:
    case HloOpcode::kAnd:
    case HloOpcode::kAsin:
    case HloOpcode::kAsinh:
    case HloOpcode::kAtan:
    case HloOpcode::kAtan2:
    case HloOpcode::kAtanh:
    case HloOpcode::kBitcastConvert:
    case HloOpcode::kCbrt:
    case HloOpcode::kCeil:
    case HloOpcode::kClamp:
    case HloOpcode::kClz:
    case HloOpcode::kCompare:
    case HloOpcode::kComplex:
    case HloOpcode::kConvert:
    case HloOpcode::kCos:
    case HloOpcode::kCosh:
    case HloOpcode::kDivide:
    case HloOpcode::kErf:
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kFloor:
    case HloOpcode::kImag:
    case HloOpcode::kIsFinite:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kLogistic:
    case HloOpcode::kMap:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kMulhi:
    case HloOpcode::kMultiply:
    case HloOpcode::kNegate:
    case HloOpcode::kNot:
    case HloOpcode::kOr:
    case HloOpcode::kPopulationCount:
    case HloOpcode::kPower:
    case HloOpcode::kReal:
    case HloOpcode::kReducePrecision:
    case HloOpcode::kRemainder:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kRsqrt:
    case HloOpcode::kSelect:
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kSign:
    case HloOpcode::kSin:
    case HloOpcode::kSinh:
    case HloOpcode::kSqrt:
    case HloOpcode::kStochasticConvert:
    case HloOpcode::kSubtract:
    case HloOpcode::kTan:
    case HloOpcode::kTanh:
    case HloOpcode::kXor:
      return InferElementwiseInstruction(hlo);

    // Data movement and shape manipulation.
    case HloOpcode::kBitcast:
    case HloOpcode::kBroadcast:
    case HloOpcode::kConcatenate:
    case HloOpcode::kConstant:
    case HloOpcode::kCopy:
    case HloOpcode::kDynamicReshape:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kIota:
    case HloOpcode::kPad:
    case HloOpcode::kParameter:
    case HloOpcode::kReshape:
    case HloOpcode::kReverse:
    case HloOpcode::kSetDimensionSize:
    case HloOpcode::kSlice:
    case HloOpcode::kSort:
    case HloOpcode::kTopK:
    case HloOpcode::kTranspose:
    case HloOpcode::kTuple:
      return InferShapeOpInstruction(hlo);

    // Reductions and windowed ops.
    case HloOpcode::kConvolution:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kSelectAndScatter:
      return InferWindowedInstruction(hlo);

    // Dot and linear algebra.
    case HloOpcode::kBatchNormGrad:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kCholesky:
    case HloOpcode::kDot:
    case HloOpcode::kFft:
    case HloOpcode::kRaggedDot:
    case HloOpcode::kScaledDot:
    case HloOpcode::kTriangularSolve:
      return InferDotFamilyInstruction(hlo);

    case HloOpcode::kGather:
    case HloOpcode::kScatter:
      return InferGatherScatterInstruction(hlo);

    // Control flow, calls and asynchronous wrappers.
    case HloOpcode::kAsyncDone:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kCall:
    case HloOpcode::kConditional:
    case HloOpcode::kCustomCall:
    case HloOpcode::kFusion:
    case HloOpcode::kScan:
    case HloOpcode::kWhile:
      return InferControlFlowInstruction(hlo);

    // Collectives, communication, tokens, RNG and other side effects.
    case HloOpcode::kAddDependency:
    case HloOpcode::kAfterAll:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteDone:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectiveReduce:
    case HloOpcode::kCopyDone:
    case HloOpcode::kCopyStart:
    case HloOpcode::kDomain:
    case HloOpcode::kInfeed:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kOutfeed:
    case HloOpcode::kPartitionId:
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kReplicaId:
    case HloOpcode::kRng:
    case HloOpcode::kRngBitGenerator:
    case HloOpcode::kRngGetAndUpdateState:
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kShuffle:
      return InferCollectiveInstruction(hlo);
  }
  return Invalid("unknown opcode ", static_cast<int>(hlo.opcode()));
}

// Opcodes that may call computations (and how many, -1: any number).
int64_t ExpectedCalledComputationCount(const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    case HloOpcode::kWhile:
    case HloOpcode::kSelectAndScatter:
      return 2;
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kCall:
    case HloOpcode::kFusion:
    case HloOpcode::kMap:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kScatter:
    case HloOpcode::kSort:
      return 1;
    case HloOpcode::kConditional:
    case HloOpcode::kCustomCall:
    case HloOpcode::kCollectiveReduce:
    case HloOpcode::kScan:
      return -1;
    default:
      return 0;
  }
}

}  // namespace

absl::StatusOr<Shape> InferShape(const HloInstruction& hlo) {
  absl::Status status = CheckOperandCount(hlo);
  if (status.ok()) {
    const int64_t expected = ExpectedCalledComputationCount(hlo);
    if (expected >= 0) status = ExpectCalledComputations(hlo, expected);
    for (const HloComputation* c : hlo.called_computations()) {
      if (c == nullptr) status.Update(Invalid("called computation is null"));
    }
  }
  absl::StatusOr<Shape> result = status.ok() ? Dispatch(hlo) : absl::StatusOr<Shape>(status);
  if (!result.ok()) {
    return absl::Status(result.status().code(),
                        absl::StrCat("%", hlo.name(), ": ", result.status().message()));
  }
  return result;
}

}  // namespace tessera
