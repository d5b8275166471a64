// The CPU backend's thunks for ops other than loop kernels: GEMMs (with
// their fused epilogues), scatter, sort, top-k, rng-bit-generator,
// variadic reduce, and multi-output loop fusions (CpuExecutableBuilder;
// see cpu_executable_builder.h).
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_executable_builder.h"
#include "backends/cpu/conv_thunk.h"
#include "backends/cpu/eigen_dot.h"
#include "backends/cpu/kernel_computations.h"
#include "backends/cpu/sort_thunk.h"
#include "hlo/ir/status_macros.h"

namespace tessera {
namespace cpu {
namespace {

// Stored row-major: a reshape between two such shapes moves no element.
bool IsRowMajor(const Shape& shape) {
  return !shape.has_layout() || shape.layout().IsDescending();
}

// An order to compute a multi-output fusion's outputs in, one after the
// other, such that an output that writes over one of the fusion's operands
// runs after every other output that reads that operand (by index where
// nothing constrains it); an error when the overwrites form a cycle.
absl::StatusOr<std::vector<int64_t>> OutputOrder(const HloComputation& fused,
                                                 const std::vector<BufferSlice>& operands,
                                                 const std::vector<BufferSlice>& results) {
  const int64_t n = static_cast<int64_t>(results.size());
  // before[i]: the outputs that must run before output i.
  std::vector<std::vector<int64_t>> before(n);
  std::vector<std::unique_ptr<HloComputation>> alone;
  for (int64_t i = 0; i < n; ++i) alone.push_back(ExtractOutput(fused, i, {}));
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < operands.size(); ++k) {
      if (!operands[k].Overlaps(results[i])) continue;
      for (int64_t j = 0; j < n; ++j) {
        if (j != i && !alone[j]->parameter_instruction(k)->users().empty()) {
          before[i].push_back(j);
        }
      }
    }
  }
  std::vector<int64_t> order;
  std::vector<bool> placed(n, false);
  while (static_cast<int64_t>(order.size()) < n) {
    int64_t next = -1;
    for (int64_t i = 0; i < n && next < 0; ++i) {
      if (placed[i]) continue;
      bool ready = true;
      for (int64_t j : before[i]) ready = ready && placed[j];
      if (ready) next = i;
    }
    if (next < 0) {
      return absl::UnimplementedError(
          "outputs overwrite operands that other outputs read, in a cycle");
    }
    placed[next] = true;
    order.push_back(next);
  }
  return order;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CpuThunk>> CpuExecutableBuilder::TryVariadicReduce(
    const HloInstruction* reduce) {
  std::vector<BufferSlice> buffers;
  for (const HloInstruction* operand : reduce->operands()) {
    if (!operand->shape().IsArray()) return absl::UnimplementedError("a non-array operand");
    TS_ASSIGN_OR_RETURN(BufferSlice slice, executable_.assignment_->GetSlice(operand, {}));
    buffers.push_back(slice);
  }
  const int64_t inputs = static_cast<int64_t>(buffers.size());
  for (int64_t i = 0; i < reduce->shape().tuple_size(); ++i) {
    TS_ASSIGN_OR_RETURN(BufferSlice slice, executable_.assignment_->GetSlice(reduce, {i}));
    for (const BufferSlice& other : buffers) {
      if (other.Overlaps(slice)) {
        return absl::UnimplementedError("a result overlaps an operand or another result");
      }
    }
    buffers.push_back(slice);
  }
  if (static_cast<int64_t>(buffers.size()) == inputs) return absl::UnimplementedError("no results");
  // The kernel's buffers in order: the last result goes in the result slot.
  BufferSlice last = buffers.back();
  buffers.pop_back();
  TS_ASSIGN_OR_RETURN(std::unique_ptr<LoopKernel> kernel,
                      executable_.kernel_compiler_->CompileVariadicReduce(
                          *reduce, KernelOptions(buffers, last)));
  return std::unique_ptr<CpuThunk>(std::make_unique<KernelThunk>(
      reduce->name(), std::move(kernel), std::move(buffers), last,
      WorkPartitions(reduce->shape().tuple_shapes(0), reduce)));
}

absl::StatusOr<std::unique_ptr<CpuThunk>> CpuExecutableBuilder::TryTopK(
    const HloInstruction* topk) {
  auto row_major = [](const Shape& shape) {
    return shape.IsArray() && shape.rank() >= 1 &&
           (!shape.has_layout() ||
            shape.layout() == Layout::Descending(shape.rank()));
  };
  const Shape& operand = topk->operand(0)->shape();
  if (topk->operand_count() != 1 || !row_major(operand) || !topk->shape().IsTuple() ||
      topk->shape().tuple_size() != 2 || !row_major(topk->shape().tuple_shapes(0)) ||
      !row_major(topk->shape().tuple_shapes(1)) ||
      topk->shape().tuple_shapes(1).element_type() != S32) {
    return absl::UnimplementedError("topk of a non-row-major operand or result");
  }
  const int64_t length = operand.dimensions().back();
  const int64_t k = topk->attrs().k;
  if (k < 0 || k > length || topk->shape().tuple_shapes(0).dimensions().back() != k) {
    return absl::InvalidArgumentError(absl::StrCat("%", topk->name(), ": k out of range"));
  }
  TS_ASSIGN_OR_RETURN(BufferSlice in, executable_.assignment_->GetSlice(topk->operand(0), {}));
  TS_ASSIGN_OR_RETURN(BufferSlice values, executable_.assignment_->GetSlice(topk, {0}));
  TS_ASSIGN_OR_RETURN(BufferSlice indices, executable_.assignment_->GetSlice(topk, {1}));
  if (in.Overlaps(values) || in.Overlaps(indices) || values.Overlaps(indices)) {
    return absl::UnimplementedError("topk's buffers overlap");
  }
  // Types RunTopK lacks fall back rather than fail at run time.
  switch (operand.element_type()) {
    case F32: case F64: case F16: case BF16: case S8: case S16: case S32: case S64:
    case U8: case U16: case U32:
      break;
    default:
      if (IsFloat8Type(operand.element_type())) break;
      return absl::UnimplementedError(
          absl::StrCat("topk of ", PrimitiveTypeName(operand.element_type())));
  }
  const int64_t rows = length == 0 ? 0 : operand.ElementCount() / length;
  return std::unique_ptr<CpuThunk>(std::make_unique<TopKThunk>(
      topk->name(), operand.element_type(), rows, length, k, topk->attrs().largest, in, values,
      indices));
}

absl::StatusOr<std::unique_ptr<CpuThunk>> CpuExecutableBuilder::TryFft(const HloInstruction* fft) {
  TS_ASSIGN_OR_RETURN(FftPlan plan, PlanFft(*fft));
  TS_ASSIGN_OR_RETURN(BufferSlice in, executable_.assignment_->GetSlice(fft->operand(0), {}));
  TS_ASSIGN_OR_RETURN(BufferSlice out, executable_.assignment_->GetSlice(fft, {}));
  if (in.Overlaps(out)) return absl::UnimplementedError("fft's operand and result overlap");
  return std::unique_ptr<CpuThunk>(
      std::make_unique<FftThunk>(fft->name(), std::move(plan), in, out));
}

absl::StatusOr<std::unique_ptr<CpuThunk>> CpuExecutableBuilder::TryRngBitGenerator(
    const HloInstruction* rng) {
  TS_ASSIGN_OR_RETURN(RngPlan plan, PlanRngBitGenerator(*rng));
  TS_ASSIGN_OR_RETURN(BufferSlice state, executable_.assignment_->GetSlice(rng->operand(0), {}));
  TS_ASSIGN_OR_RETURN(BufferSlice new_state, executable_.assignment_->GetSlice(rng, {0}));
  TS_ASSIGN_OR_RETURN(BufferSlice bits, executable_.assignment_->GetSlice(rng, {1}));
  // The generator reads the whole state before it writes the new one, so
  // those two may share a buffer (exactly, or not at all); the bits may
  // share none.
  const bool state_in_place =
      state.allocation == new_state.allocation && state.offset == new_state.offset;
  if (bits.Overlaps(state) || bits.Overlaps(new_state) ||
      (state.Overlaps(new_state) && !state_in_place)) {
    return absl::UnimplementedError("rng-bit-generator's buffers overlap");
  }
  return std::unique_ptr<CpuThunk>(
      std::make_unique<RngBitGeneratorThunk>(rng->name(), plan, state, new_state, bits));
}

absl::StatusOr<std::unique_ptr<CpuThunk>> CpuExecutableBuilder::TryLinalg(
    const HloInstruction* hlo) {
  TS_ASSIGN_OR_RETURN(LinalgPlan plan, PlanLinalg(*hlo));
  std::vector<BufferSlice> operands, results;
  for (const HloInstruction* operand : hlo->operands()) {
    TS_ASSIGN_OR_RETURN(BufferSlice slice, executable_.assignment_->GetSlice(operand, {}));
    operands.push_back(slice);
  }
  const int64_t result_count = hlo->shape().IsTuple() ? hlo->shape().tuple_size() : 1;
  for (int64_t k = 0; k < result_count; ++k) {
    ShapeIndex index;
    if (hlo->shape().IsTuple()) index = {k};
    TS_ASSIGN_OR_RETURN(BufferSlice slice, executable_.assignment_->GetSlice(hlo, index));
    const Shape& shape = hlo->shape().IsTuple() ? hlo->shape().tuple_shapes(k) : hlo->shape();
    // Each matrix is read whole before it is written, so a result may be
    // its operand's buffer in the same layout; any other overlap may not.
    for (size_t i = 0; i < operands.size(); ++i) {
      if (slice.Overlaps(operands[i]) &&
          !(slice == operands[i] && shape == hlo->operand(i)->shape())) {
        return absl::UnimplementedError("a result overlaps an operand");
      }
    }
    for (const BufferSlice& other : results) {
      if (other.Overlaps(slice)) return absl::UnimplementedError("results overlap");
    }
    results.push_back(slice);
  }
  return std::unique_ptr<CpuThunk>(std::make_unique<LinalgThunk>(
      hlo->name(), std::move(plan), std::move(operands), std::move(results)));
}

absl::StatusOr<std::unique_ptr<CpuThunk>> CpuExecutableBuilder::TrySort(
    const HloInstruction* sort) {
  TS_ASSIGN_OR_RETURN(SortPlan plan, PlanSort(*sort));
  std::vector<BufferSlice> operands, results;
  for (const HloInstruction* operand : sort->operands()) {
    TS_ASSIGN_OR_RETURN(BufferSlice slice, executable_.assignment_->GetSlice(operand, {}));
    operands.push_back(slice);
  }
  for (int64_t k = 0; k < sort->operand_count(); ++k) {
    ShapeIndex index;
    if (sort->shape().IsTuple()) index = {k};
    TS_ASSIGN_OR_RETURN(BufferSlice slice, executable_.assignment_->GetSlice(sort, index));
    for (const BufferSlice& other : operands) {
      if (other.Overlaps(slice)) return absl::UnimplementedError("a result overlaps an operand");
    }
    for (const BufferSlice& other : results) {
      if (other.Overlaps(slice)) return absl::UnimplementedError("results overlap");
    }
    results.push_back(slice);
  }
  // A comparator that orders by one operand's keys is not compiled: the
  // rows are sorted by the keys' bits (sort_keys.h).
  std::shared_ptr<void*> comparator;
  if (!plan.key.has_value()) {
    TS_ASSIGN_OR_RETURN(
        comparator, executable_.kernel_compiler_->CompileComparator(*sort->to_apply(), plan.types));
  }
  return std::unique_ptr<CpuThunk>(std::make_unique<SortThunk>(
      sort->name(), std::move(plan), std::move(comparator), std::move(operands),
      std::move(results)));
}

absl::StatusOr<std::unique_ptr<CpuThunk>> CpuExecutableBuilder::TrySelectAndScatter(
    const HloInstruction* hlo) {
  std::vector<BufferSlice> operands;
  for (const HloInstruction* operand : hlo->operands()) {
    if (!operand->shape().IsArray()) return absl::UnimplementedError("a non-array operand");
    TS_ASSIGN_OR_RETURN(BufferSlice slice, executable_.assignment_->GetSlice(operand, {}));
    operands.push_back(slice);
  }
  TS_ASSIGN_OR_RETURN(BufferSlice result, executable_.assignment_->GetSlice(hlo, {}));
  for (const BufferSlice& operand : operands) {
    if (operand.Overlaps(result)) {
      return absl::UnimplementedError("the select-and-scatter's result overlaps an operand");
    }
  }
  TS_ASSIGN_OR_RETURN(std::unique_ptr<LoopKernel> kernel,
                      executable_.kernel_compiler_->CompileSelectAndScatter(
                          *hlo, KernelOptions(operands, result)));
  return std::unique_ptr<CpuThunk>(std::make_unique<KernelThunk>(
      hlo->name(), std::move(kernel), std::move(operands), result,
      WorkPartitions(hlo->shape(), hlo)));
}

absl::StatusOr<std::unique_ptr<CpuThunk>> CpuExecutableBuilder::TryScatter(
    const HloInstruction* scatter) {
  std::vector<BufferSlice> operands;
  for (const HloInstruction* operand : scatter->operands()) {
    if (!operand->shape().IsArray()) return absl::UnimplementedError("a non-array operand");
    TS_ASSIGN_OR_RETURN(BufferSlice slice, executable_.assignment_->GetSlice(operand, {}));
    operands.push_back(slice);
  }
  TS_ASSIGN_OR_RETURN(BufferSlice result, executable_.assignment_->GetSlice(scatter, {}));
  // In place over the operand (buffer assignment's rule for scatter), or
  // apart from every operand.
  for (size_t k = 0; k < operands.size(); ++k) {
    if (!operands[k].Overlaps(result)) continue;
    if (k != 0 || !(operands[k] == result)) {
      return absl::UnimplementedError(
          absl::StrCat("the scatter's result overlaps operand ", k));
    }
  }
  TS_ASSIGN_OR_RETURN(std::unique_ptr<LoopKernel> kernel,
                      executable_.kernel_compiler_->CompileScatter(
                          *scatter, KernelOptions(operands, result)));
  return std::unique_ptr<CpuThunk>(std::make_unique<KernelThunk>(
      scatter->name(), std::move(kernel), std::move(operands), result, /*partitions=*/1));
}

absl::StatusOr<std::unique_ptr<CpuThunk>> CpuExecutableBuilder::TryDot(
    const HloInstruction* dot) {
  if (!options_.native_dots) return absl::UnimplementedError("native dots are off");
  TS_ASSIGN_OR_RETURN(DotShape shape, PlanDot(*dot));
  if (dot->operand_count() != 2) return absl::UnimplementedError("a dot without two operands");
  TS_ASSIGN_OR_RETURN(BufferSlice lhs, executable_.assignment_->GetSlice(dot->operand(0), {}));
  TS_ASSIGN_OR_RETURN(BufferSlice rhs, executable_.assignment_->GetSlice(dot->operand(1), {}));
  TS_ASSIGN_OR_RETURN(BufferSlice out, executable_.assignment_->GetSlice(dot, {}));
  if (lhs.size < dot->operand(0)->shape().ByteSize() ||
      rhs.size < dot->operand(1)->shape().ByteSize() || out.size < dot->shape().ByteSize()) {
    return absl::InternalError(absl::StrCat("%", dot->name(), ": a slice smaller than its value"));
  }
  if (out.Overlaps(lhs) || out.Overlaps(rhs)) {
    return absl::UnimplementedError("the dot's result overlaps an operand");
  }
  return std::unique_ptr<CpuThunk>(
      std::make_unique<DotThunk>(dot->name(), shape, lhs, rhs, out));
}

absl::StatusOr<std::unique_ptr<CpuThunk>> CpuExecutableBuilder::TryOutputFusion(
    const HloInstruction* fusion) {
  if (!options_.native_dots) return absl::UnimplementedError("native dots are off");
  const HloComputation& fused = *fusion->fused_computation();
  // (`dot` below names the hero, a dot or a convolution.)
  // The hero: one dot (an Eigen GEMM) or convolution (im2col + GEMM).
  const HloInstruction* dot = nullptr;
  for (const HloInstruction* h : fused.instructions()) {
    if (h->opcode() == HloOpcode::kParameter || h->opcode() == HloOpcode::kConstant) continue;
    if (h->opcode() == HloOpcode::kTuple && h == fused.root_instruction()) continue;
    if (h->opcode() == HloOpcode::kDot || h->opcode() == HloOpcode::kConvolution) {
      if (dot != nullptr) return absl::UnimplementedError("more than one dot or convolution");
      dot = h;
    } else if (!KernelCandidateOpcode(h)) {
      return absl::UnimplementedError(
          absl::StrCat("%", h->name(), " (", HloOpcodeString(h->opcode()),
                       ") in the epilogue"));
    }
  }
  if (dot == nullptr) return absl::UnimplementedError("no dot or convolution");
  const bool convolution = dot->opcode() == HloOpcode::kConvolution;
  if (dot->operand_count() != 2 || dot->operand(0)->opcode() != HloOpcode::kParameter ||
      dot->operand(1)->opcode() != HloOpcode::kParameter) {
    return absl::UnimplementedError("the dot's operands are not the fusion's parameters");
  }
  const int64_t lhs_number = dot->operand(0)->parameter_number();
  const int64_t rhs_number = dot->operand(1)->parameter_number();
  if (fusion->operand(lhs_number)->shape() != dot->operand(0)->shape() ||
      fusion->operand(rhs_number)->shape() != dot->operand(1)->shape()) {
    return absl::UnimplementedError("the dot's operand layouts are not the fusion's");
  }
  DotShape shape;
  ConvPlan conv_plan;
  if (convolution) {
    TS_ASSIGN_OR_RETURN(conv_plan, PlanConvolution(*dot));
  } else {
    TS_ASSIGN_OR_RETURN(shape, PlanDot(*dot));
  }
  std::vector<BufferSlice> operands;
  for (const HloInstruction* operand : fusion->operands()) {
    if (!operand->shape().IsArray()) return absl::UnimplementedError("a non-array operand");
    TS_ASSIGN_OR_RETURN(BufferSlice slice, executable_.assignment_->GetSlice(operand, {}));
    operands.push_back(slice);
  }
  // The outputs: the root, or the elements of a tuple root (a multi-output
  // fusion, say the pre-activation and the activation of a layer).
  const HloInstruction* root = fused.root_instruction();
  std::vector<const HloInstruction*> outputs;
  std::vector<BufferSlice> results;
  if (fusion->shape().IsArray()) {
    outputs.push_back(root);
    TS_ASSIGN_OR_RETURN(BufferSlice slice, executable_.assignment_->GetSlice(fusion, {}));
    results.push_back(slice);
  } else {
    if (root->opcode() != HloOpcode::kTuple ||
        root->operand_count() != fusion->shape().tuple_size()) {
      return absl::UnimplementedError("a tuple-shaped fusion without a tuple root");
    }
    for (int64_t i = 0; i < root->operand_count(); ++i) {
      if (!root->operand(i)->shape().IsArray()) {
        return absl::UnimplementedError("a non-array output");
      }
      outputs.push_back(root->operand(i));
      TS_ASSIGN_OR_RETURN(BufferSlice slice, executable_.assignment_->GetSlice(fusion, {i}));
      results.push_back(slice);
    }
  }
  int64_t in_place_operand = -1;  // an operand that is the result (an accumulator)
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (results[i].size < outputs[i]->shape().ByteSize()) {
      return absl::InternalError(
          absl::StrCat("%", fusion->name(), ": a slice smaller than its value"));
    }
    // The dot writes a result before the epilogue reads the operands,
    // unless the product is staged apart (below): then an operand that is
    // exactly the one result and that the epilogue reads only elementwise
    // (an accumulator updated in place) may be it.
    for (size_t k = 0; k < operands.size(); ++k) {
      if (!operands[k].Overlaps(results[i])) continue;
      const bool accumulator =
          outputs.size() == 1 && operands[k].allocation == results[i].allocation &&
          operands[k].offset == results[i].offset && static_cast<int64_t>(k) != lhs_number &&
          static_cast<int64_t>(k) != rhs_number &&
          ElementwiseOnlyUse(fused.parameter_instruction(k));
      if (!accumulator) return absl::UnimplementedError("the result overlaps an operand");
      in_place_operand = static_cast<int64_t>(k);
    }
    for (size_t j = 0; j < i; ++j) {
      if (results[j].Overlaps(results[i])) return absl::UnimplementedError("outputs overlap");
    }
  }
  // The GEMM writes into the output that is the dot itself, else into one
  // of the dot's shape (and layout), whose kernel then runs last, updating
  // it in place; the other outputs' kernels read the dot from there.
  int64_t holder = -1;
  for (size_t i = 0; i < outputs.size() && holder < 0; ++i) {
    if (outputs[i] == dot) holder = static_cast<int64_t>(i);
  }
  // A reshape of the dot that moves no element (row-major both) is the
  // dot's bytes: the GEMM writes that output as it is.
  bool holder_is_dot = holder >= 0;
  for (size_t i = 0; i < outputs.size() && holder < 0; ++i) {
    if ((outputs[i]->opcode() == HloOpcode::kReshape ||
         outputs[i]->opcode() == HloOpcode::kBitcast) &&
        outputs[i]->operand(0) == dot &&
        IsRowMajor(outputs[i]->shape()) && IsRowMajor(dot->shape())) {
      holder = static_cast<int64_t>(i);
      holder_is_dot = true;
    }
  }
  for (size_t i = 0; i < outputs.size() && holder < 0; ++i) {
    if (outputs[i]->shape() == dot->shape()) holder = static_cast<int64_t>(i);
  }
  // Else any output of the dot's dimensions and type: the dot's value
  // never leaves the fusion, so it is stored in that output's layout.
  const Shape* stored_shape = nullptr;
  for (size_t i = 0; i < outputs.size() && holder < 0 && !convolution; ++i) {
    const Shape& candidate = outputs[i]->shape();
    if (candidate.dimensions() == dot->shape().dimensions() &&
        candidate.element_type() == dot->shape().element_type()) {
      holder = static_cast<int64_t>(i);
      stored_shape = &candidate;
      TS_ASSIGN_OR_RETURN(shape, PlanDot(*dot, stored_shape));
    }
  }
  if (holder < 0) return absl::UnimplementedError("no output has the dot's shape");
  // One output of a row-major matrix GEMM: its epilogue runs per row panel
  // inside the GEMM (DotThunk), each panel while it is in cache.
  const Shape& result_shape = outputs[0]->shape();
  const bool row_major_matrix =
      result_shape.rank() == 2 &&
      (!result_shape.has_layout() || result_shape.layout().minor_to_major == std::vector<int64_t>{1, 0});
  if (!convolution && outputs.size() == 1 && outputs[0] != dot && shape.batch == 1 &&
      !shape.out_transposed &&
      (shape.type == F32 || shape.type == F64 || shape.type == S32) &&
      shape.type == shape.output_type && row_major_matrix &&
      result_shape.dimensions(0) == shape.m && result_shape.dimensions(1) == shape.n) {
    std::unique_ptr<HloComputation> epilogue = WithParameterFor(fused, dot, outputs[0], stored_shape);
    if (!ElementwiseOnlyUse(epilogue->parameter_instruction(fused.num_parameters()))) {
      return absl::UnimplementedError("the epilogue reads the dot other than elementwise");
    }
    std::vector<BufferSlice> kernel_operands = operands;
    kernel_operands.push_back(results[0]);
    // The kernel's parameter for the dot follows the fusion's operands.
    const int64_t staged = in_place_operand >= 0 ? static_cast<int64_t>(operands.size()) : -1;
    const HloComputation& computation = *epilogue;
    TS_ASSIGN_OR_RETURN(std::unique_ptr<EpilogueKernel> kernel,
                        MakeEpilogue(computation, std::move(epilogue), kernel_operands, results[0],
                                     std::nullopt, staged));
    std::vector<BufferSlice> kernel_buffers = kernel_operands;
    kernel_buffers.push_back(results[0]);
    return std::unique_ptr<CpuThunk>(std::make_unique<DotThunk>(
        fusion->name(), shape, operands[lhs_number], operands[rhs_number], results[0],
        std::move(kernel), std::move(kernel_buffers), staged));
  }
  if (in_place_operand >= 0) {
    return absl::UnimplementedError(
        absl::StrCat("the result is operand ", in_place_operand,
                     ", which only a row-major matrix GEMM with its epilogue updates in place"));
  }
  // One output of a convolution that oneDNN runs, laid out batch-major:
  // its epilogue runs per chunk of batch entries inside the convolution
  // (ConvThunk), each chunk's result while it is in cache.
  const Shape& output_shape = outputs[0]->shape();
  if (convolution && conv_plan.onednn != nullptr && outputs.size() == 1 && outputs[0] != dot &&
      holder == 0 && output_shape.has_layout() && output_shape.rank() > 0 &&
      output_shape.layout().minor_to_major.back() ==
          dot->convolution_dimension_numbers().output_batch_dimension) {
    std::unique_ptr<HloComputation> epilogue = WithParameterFor(fused, dot, outputs[0], stored_shape);
    if (ElementwiseOnlyUse(epilogue->parameter_instruction(fused.num_parameters()))) {
      std::vector<BufferSlice> kernel_operands = operands;
      kernel_operands.push_back(results[0]);
      const HloComputation& computation = *epilogue;
      absl::StatusOr<std::unique_ptr<EpilogueKernel>> kernel = MakeEpilogue(
          computation, std::move(epilogue), kernel_operands, results[0], conv_plan.batch);
      if (!kernel.ok() && !absl::IsUnimplemented(kernel.status())) return kernel.status();
      if (kernel.ok()) {
        std::vector<BufferSlice> kernel_buffers = kernel_operands;
        kernel_buffers.push_back(results[0]);
        return std::unique_ptr<CpuThunk>(std::make_unique<ConvThunk>(
            fusion->name(), conv_plan, operands[lhs_number], operands[rhs_number], results[0],
            std::move(*kernel), std::move(kernel_buffers)));
      }
    }
  }
  std::vector<std::unique_ptr<CpuThunk>> steps;
  if (convolution) {
    steps.push_back(std::make_unique<ConvThunk>(absl::StrCat(fusion->name(), ".convolution"),
                                                conv_plan, operands[lhs_number],
                                                operands[rhs_number], results[holder]));
  } else {
    steps.push_back(std::make_unique<DotThunk>(absl::StrCat(fusion->name(), ".dot"), shape,
                                               operands[lhs_number], operands[rhs_number],
                                               results[holder]));
  }
  std::vector<int64_t> order;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (static_cast<int64_t>(i) != holder) order.push_back(static_cast<int64_t>(i));
  }
  order.push_back(holder);
  std::vector<BufferSlice> kernel_operands = operands;
  kernel_operands.push_back(results[holder]);
  for (int64_t i : order) {
    if (i == holder && holder_is_dot) continue;  // the GEMM wrote it
    std::unique_ptr<HloComputation> epilogue = WithParameterFor(fused, dot, outputs[i], stored_shape);
    // The other outputs read the dot before the holder's kernel overwrites
    // it, in any pattern; the holder's kernel updates it in place, so it
    // must read each element only where it writes it.
    if (i == holder &&
        !ElementwiseOnlyUse(epilogue->parameter_instruction(fused.num_parameters()))) {
      return absl::UnimplementedError("the epilogue reads the dot other than elementwise");
    }
    const int64_t partitions = Partitions(outputs[i]->shape());
    const HloComputation& computation = *epilogue;
    TS_ASSIGN_OR_RETURN(
        std::unique_ptr<CpuThunk> kernel,
        MakeKernelThunk(
            absl::StrCat(fusion->name(), ".epilogue", outputs.size() > 1 ? absl::StrCat(i) : ""),
            computation, std::move(epilogue), kernel_operands, results[i], partitions,
            /*epilogue=*/true));
    steps.push_back(std::move(kernel));
  }
  if (steps.size() == 1) return std::move(steps.front());
  return std::unique_ptr<CpuThunk>(
      std::make_unique<SequenceThunk>(fusion->name(), std::move(steps)));
}

absl::StatusOr<std::unique_ptr<CpuThunk>> CpuExecutableBuilder::TryMultiOutputKernel(
    const HloInstruction* fusion) {
  const HloComputation& fused = *fusion->fused_computation();
  const HloInstruction* root = fused.root_instruction();
  if (root->opcode() != HloOpcode::kTuple ||
      root->operand_count() != fusion->shape().tuple_size()) {
    return absl::UnimplementedError("a tuple-shaped fusion without a tuple root");
  }
  std::vector<BufferSlice> operands;
  for (const HloInstruction* operand : fusion->operands()) {
    if (!operand->shape().IsArray()) return absl::UnimplementedError("a non-array operand");
    TS_ASSIGN_OR_RETURN(BufferSlice slice, executable_.assignment_->GetSlice(operand, {}));
    operands.push_back(slice);
  }
  std::vector<BufferSlice> results;
  for (int64_t i = 0; i < root->operand_count(); ++i) {
    if (!fusion->shape().tuple_shapes(i).IsArray()) {
      return absl::UnimplementedError("a non-array output");
    }
    TS_ASSIGN_OR_RETURN(BufferSlice slice, executable_.assignment_->GetSlice(fusion, {i}));
    for (const BufferSlice& other : results) {
      if (other.Overlaps(slice)) return absl::UnimplementedError("outputs overlap");
    }
    results.push_back(slice);
  }
  const int64_t n = root->operand_count();
  TS_ASSIGN_OR_RETURN(std::vector<int64_t> order, OutputOrder(fused, operands, results));
  // parts[i]: output i over the operands and the outputs that run before it.
  std::vector<std::unique_ptr<HloComputation>> parts(n);
  for (int64_t position = 0; position < n; ++position) {
    parts[order[position]] = ExtractOutput(
        fused, order[position], absl::MakeConstSpan(order.data(), position));
  }
  // The outputs are computed one after the other: an output may write over
  // an operand only exactly, only where it reads it elementwise, and only
  // after every other output that reads that operand.
  for (int64_t position = 0; position < n; ++position) {
    const int64_t i = order[position];
    for (size_t k = 0; k < operands.size(); ++k) {
      if (!operands[k].Overlaps(results[i])) continue;
      bool ok = operands[k].allocation == results[i].allocation &&
                operands[k].offset == results[i].offset &&
                ElementwiseOnlyUse(parts[i]->parameter_instruction(k));
      for (int64_t later = position + 1; ok && later < n; ++later) {
        if (!parts[order[later]]->parameter_instruction(k)->users().empty()) ok = false;
      }
      if (!ok) {
        return absl::UnimplementedError(absl::StrCat(
            "output ", i, " overwrites operand ", k, ", which the kernels cannot share"));
      }
    }
  }
  std::vector<std::unique_ptr<CpuThunk>> kernels;
  for (int64_t position = 0; position < n; ++position) {
    const int64_t i = order[position];
    // The fusion's operands, then the results of the outputs run before.
    std::vector<BufferSlice> kernel_operands = operands;
    for (int64_t j = 0; j < position; ++j) kernel_operands.push_back(results[order[j]]);
    const int64_t partitions = WorkPartitions(fusion->shape().tuple_shapes(i), fusion);
    const HloComputation& part = *parts[i];
    TS_ASSIGN_OR_RETURN(
        std::unique_ptr<CpuThunk> kernel,
        MakeKernelThunk(absl::StrCat(fusion->name(), "{", i, "}"), part, std::move(parts[i]),
                        std::move(kernel_operands), results[i], partitions));
    kernels.push_back(std::move(kernel));
  }
  return std::unique_ptr<CpuThunk>(
      std::make_unique<SequenceThunk>(fusion->name(), std::move(kernels)));
}

}  // namespace cpu
}  // namespace tessera
