#include "hlo/analysis/cost_analysis.h"

#include <cmath>
#include <vector>

namespace tessera {
namespace {

double Bytes(const Shape& shape) {
  if (shape.IsTuple()) {
    double total = 0;
    for (const Shape& element : shape.tuple_shapes()) total += Bytes(element);
    return total;
  }
  if (!shape.IsArray()) return 0;
  return static_cast<double>(shape.ElementCount()) * ByteWidth(shape.element_type());
}

double Elements(const Shape& shape) {
  if (shape.IsTuple()) {
    double total = 0;
    for (const Shape& element : shape.tuple_shapes()) total += Elements(element);
    return total;
  }
  return shape.IsArray() ? static_cast<double>(shape.ElementCount()) : 0;
}

bool MovesNoData(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kBitcast:
    case HloOpcode::kAfterAll:
      return true;
    default:
      return false;
  }
}

// Flops of one instruction (its called computations included).
void AddFlops(const HloInstruction& instruction, HloCost* cost) {
  const HloOpcode opcode = instruction.opcode();
  if (opcode == HloOpcode::kDot) {
    double contracted = 1;
    for (int64_t d : instruction.dot_dimension_numbers().lhs_contracting_dimensions) {
      contracted *= static_cast<double>(instruction.operand(0)->shape().dimensions()[d]);
    }
    cost->flops += 2 * Elements(instruction.shape()) * contracted;
    return;
  }
  if (opcode == HloOpcode::kConvolution) {
    const Shape& kernel = instruction.operand(1)->shape();
    const ConvolutionDimensionNumbers& dnums = instruction.convolution_dimension_numbers();
    double per_output = static_cast<double>(kernel.dimensions()[dnums.kernel_input_feature_dimension]);
    for (int64_t d : dnums.kernel_spatial_dimensions) {
      per_output *= static_cast<double>(kernel.dimensions()[d]);
    }
    cost->flops += 2 * Elements(instruction.shape()) * per_output;
    return;
  }
  if (opcode == HloOpcode::kFft) {
    // FFTW's convention, 5 N log2(N) per complex transform of N points (a
    // radix-2 transform's count), half that for a real one, whatever the
    // algorithm that runs it.
    const std::vector<int64_t>& lengths = instruction.attrs().fft_length;
    double points = 1;
    for (int64_t length : lengths) points *= static_cast<double>(length);
    if (points <= 1) return;
    const FftType type = instruction.attrs().fft_type;
    const bool real = type == FftType::kRfft || type == FftType::kIrfft;
    // The leading dimensions of the complex side are the batch.
    const Shape& complex_side =
        type == FftType::kIrfft ? instruction.operand(0)->shape() : instruction.shape();
    const double batch =
        Elements(complex_side) / (real ? points / static_cast<double>(lengths.back()) *
                                             static_cast<double>(lengths.back() / 2 + 1)
                                       : points);
    cost->flops += (real ? 2.5 : 5) * batch * points * std::log2(points);
    return;
  }
  if (opcode == HloOpcode::kReduce || opcode == HloOpcode::kReduceWindow) {
    cost->flops += Elements(instruction.operand(0)->shape());
    return;
  }
  if (instruction.IsElementwise()) {
    const double elements = Elements(instruction.shape());
    cost->flops += elements;
    if (HloOpcodeHasFlag(opcode, kTranscendental)) cost->transcendentals += elements;
    return;
  }
  if (opcode == HloOpcode::kFusion || opcode == HloOpcode::kCall ||
      opcode == HloOpcode::kWhile || opcode == HloOpcode::kConditional) {
    for (const HloComputation* callee : instruction.called_computations()) {
      for (const HloInstruction* inner : callee->instructions()) AddFlops(*inner, cost);
    }
  }
}

}  // namespace

HloCost AnalyzeComputationCost(const HloComputation& computation) {
  HloCost cost;
  for (const HloInstruction* instruction : computation.instructions()) {
    AddFlops(*instruction, &cost);
    if (MovesNoData(instruction->opcode())) continue;
    if (instruction->opcode() == HloOpcode::kWhile ||
        instruction->opcode() == HloOpcode::kConditional ||
        instruction->opcode() == HloOpcode::kCall) {
      // Their bodies' kernels move the data.
      for (const HloComputation* callee : instruction->called_computations()) {
        cost.bytes_accessed += AnalyzeComputationCost(*callee).bytes_accessed;
      }
      continue;
    }
    cost.bytes_accessed += Bytes(instruction->shape());
    for (const HloInstruction* operand : instruction->operands()) {
      cost.bytes_accessed += Bytes(operand->shape());
    }
  }
  return cost;
}

HloCost AnalyzeCost(const HloModule& module) {
  return AnalyzeComputationCost(*module.entry_computation());
}

}  // namespace tessera
