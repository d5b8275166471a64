#include "backends/cpu/cpu_compiler.h"

#include <atomic>
#include <chrono>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/background_compiler.h"
#include "backends/cpu/compilation_cache.h"
#include "backends/cpu/conv_thunk.h"
#include "backends/cpu/cpu_executable_builder.h"
#include "backends/cpu/dot_canonicalization.h"
#include "backends/cpu/kernel_computations.h"
#include "backends/cpu/loop_kernel.h"
#include "backends/cpu/onednn_gemm.h"
#include "backends/cpu/while_trip_count.h"
#include "backends/interpreter/interpreter_backend.h"
#include "hlo/analysis/hlo_verifier.h"
#include "hlo/analysis/linalg_op.h"
#include "hlo/ir/status_macros.h"
#include "passes/fusion/fusion_pipeline.h"
#include "passes/memory/buffer_assignment.h"
#include "runtime/buffer_allocations.h"
#include "runtime/kernel_thunk.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {

absl::StatusOr<std::vector<ArenaLeaf>> CpuExecutableBuilder::Leaves(
    const HloInstruction* instruction) const {
  std::vector<ArenaLeaf> leaves;
  absl::Status status = absl::OkStatus();
  ForEachSubshape(instruction->shape(), [&](const Shape& subshape, const ShapeIndex& index) {
    if (!status.ok() || !subshape.IsArray()) return;
    absl::StatusOr<BufferSlice> slice = executable_.assignment_->GetSlice(instruction, index);
    if (!slice.ok()) {
      status = absl::InternalError(absl::StrCat("no buffer for %", instruction->name(),
                                                ShapeIndexToString(index), ": ",
                                                slice.status().message()));
      return;
    }
    leaves.push_back(ArenaLeaf{index, subshape, *slice});
  });
  if (!status.ok()) return status;
  return leaves;
}

bool CpuExecutableBuilder::Forwards(const HloInstruction* instruction) const {
  switch (instruction->opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
      return true;
    case HloOpcode::kBitcast:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kAddDependency:
    case HloOpcode::kDomain: {
      absl::StatusOr<std::vector<ArenaLeaf>> mine = Leaves(instruction);
      absl::StatusOr<std::vector<ArenaLeaf>> theirs = Leaves(instruction->operand(0));
      if (!mine.ok() || !theirs.ok() || mine->size() != theirs->size()) return false;
      for (size_t i = 0; i < mine->size(); ++i) {
        if ((*mine)[i].slice.allocation != (*theirs)[i].slice.allocation ||
            (*mine)[i].slice.offset != (*theirs)[i].slice.offset ||
            (*mine)[i].shape.ByteSize() > (*theirs)[i].shape.ByteSize()) {
          return false;
        }
        if (instruction->opcode() != HloOpcode::kBitcast &&
            (*mine)[i].shape != (*theirs)[i].shape) {
          return false;
        }
      }
      return true;
    }
    default:
      return false;
  }
}

absl::StatusOr<std::unique_ptr<CpuThunk>> CpuExecutableBuilder::TryKernel(
    const HloInstruction* instruction) {
  if (!options_.native_kernels) return absl::UnimplementedError("native kernels are off");
  if (instruction->opcode() == HloOpcode::kFusion &&
      (instruction->fusion_kind() == FusionKind::kLoop ||
       instruction->fusion_kind() == FusionKind::kInput) &&
      instruction->shape().IsTuple()) {
    return TryMultiOutputKernel(instruction);
  }
  if (instruction->opcode() == HloOpcode::kReduce && instruction->shape().IsTuple()) {
    return TryVariadicReduce(instruction);
  }
  if (instruction->opcode() == HloOpcode::kSort) return TrySort(instruction);
  if (instruction->opcode() == HloOpcode::kTopK) return TryTopK(instruction);
  if (instruction->opcode() == HloOpcode::kFft) return TryFft(instruction);
  if (instruction->opcode() == HloOpcode::kRngBitGenerator) {
    return TryRngBitGenerator(instruction);
  }
  if (IsLinalgOp(*instruction)) return TryLinalg(instruction);
  // A dot fusion even when a module hands it over as another kind (XLA's
  // own tests mark dot fusions kLoop).
  bool output_fusion = false;
  if (instruction->opcode() == HloOpcode::kFusion) {
    output_fusion = instruction->fusion_kind() == FusionKind::kOutput;
    for (const HloInstruction* h : instruction->fused_computation()->instructions()) {
      output_fusion |= h->opcode() == HloOpcode::kDot;
    }
  }
  if (!instruction->shape().IsArray() && !output_fusion) {
    return absl::UnimplementedError("the result is not an array");
  }
  if (instruction->opcode() == HloOpcode::kDot) return TryDot(instruction);
  if (instruction->opcode() == HloOpcode::kScatter) return TryScatter(instruction);
  if (instruction->opcode() == HloOpcode::kSelectAndScatter) {
    return TrySelectAndScatter(instruction);
  }
  if (instruction->opcode() == HloOpcode::kConvolution) {
    if (!options_.native_dots) return absl::UnimplementedError("native dots are off");
    TS_ASSIGN_OR_RETURN(ConvPlan plan, PlanConvolution(*instruction));
    TS_ASSIGN_OR_RETURN(BufferSlice in,
                        executable_.assignment_->GetSlice(instruction->operand(0), {}));
    TS_ASSIGN_OR_RETURN(BufferSlice ker,
                        executable_.assignment_->GetSlice(instruction->operand(1), {}));
    TS_ASSIGN_OR_RETURN(BufferSlice out, executable_.assignment_->GetSlice(instruction, {}));
    if (out.Overlaps(in) || out.Overlaps(ker)) {
      return absl::UnimplementedError("the convolution's result overlaps an operand");
    }
    return std::unique_ptr<CpuThunk>(
        std::make_unique<ConvThunk>(instruction->name(), plan, in, ker, out));
  }
  const HloComputation* computation = nullptr;
  std::unique_ptr<HloComputation> single;
  if (instruction->opcode() == HloOpcode::kFusion) {
    if (output_fusion) {
      absl::StatusOr<std::unique_ptr<CpuThunk>> thunk = TryOutputFusion(instruction);
      if (thunk.ok() || !absl::IsUnimplemented(thunk.status())) return thunk;
      return absl::UnimplementedError(
          absl::StrCat("kOutput fusion: ", thunk.status().message()));
    }
    // kInput: a reduce hero (loop_kernel.cc folds each result element's
    // row in the evaluator's order) with its producers and epilogue.
    if (instruction->fusion_kind() != FusionKind::kLoop &&
        instruction->fusion_kind() != FusionKind::kInput) {
      return absl::UnimplementedError(
          absl::StrCat(FusionKindString(instruction->fusion_kind()), " fusion"));
    }
    computation = instruction->fused_computation();
  } else if (KernelCandidateOpcode(instruction)) {
    single = SingleOpComputation(instruction);
    computation = single.get();
  } else {
    return absl::UnimplementedError("no native kernel for this opcode");
  }
  std::vector<BufferSlice> operands;
  for (const HloInstruction* operand : instruction->operands()) {
    if (!operand->shape().IsArray()) return absl::UnimplementedError("a non-array operand");
    TS_ASSIGN_OR_RETURN(BufferSlice slice, executable_.assignment_->GetSlice(operand, {}));
    operands.push_back(slice);
  }
  TS_ASSIGN_OR_RETURN(BufferSlice result, executable_.assignment_->GetSlice(instruction, {}));
  // The kernel may write over an operand only where it reads that operand
  // elementwise (buffer assignment's in-place rule); anything else runs on
  // the fallback, which reads every operand before writing.
  for (size_t k = 0; k < operands.size(); ++k) {
    if (!operands[k].Overlaps(result)) continue;
    const bool exact = operands[k].allocation == result.allocation &&
                       operands[k].offset == result.offset;
    const HloInstruction* parameter = computation->parameter_instruction(k);
    if (!exact || parameter == nullptr || !ElementwiseOnlyUse(parameter)) {
      return absl::UnimplementedError(
          absl::StrCat("the result overlaps operand ", k, " where the kernel cannot update it in place"));
    }
  }
  const int64_t partitions = WorkPartitions(instruction->shape(), instruction);
  return MakeKernelThunk(instruction->name(), *computation, std::move(single), std::move(operands),
                         result, partitions);
}

absl::StatusOr<std::unique_ptr<TileKernel>> CpuExecutableBuilder::TileKernelFor(
    const HloComputation& computation) const {
  TileKernelOptions tile_options;
  tile_options.reorder_float_reductions = options_.reorder_float_reductions;
  tile_options.math_target = executable_.kernel_compiler_->target();
  tile_options.streaming_store_bytes = options_.streaming_store_bytes;
  tile_options.compile_loops = options_.compile_tile_loops;
  return TileKernel::Create(computation, tile_options);
}

bool CpuExecutableBuilder::TileCodeIsFinal(const TileKernel& tile) const {
  return options_.kernel_tier == CpuCompileOptions::KernelTier::kTiered &&
         options_.final_tile_code && tile.runs_generated_code() &&
         (tile.tile_length() >= options_.final_tile_code_min_elements ||
          (tile.interleaves_rows() && tile.calls_math_routines() &&
           2 * tile.tile_length() >= options_.final_tile_code_min_elements));
}

absl::StatusOr<std::unique_ptr<EpilogueKernel>> CpuExecutableBuilder::MakeEpilogue(
    const HloComputation& computation, std::unique_ptr<HloComputation> owned,
    const std::vector<BufferSlice>& operands, BufferSlice result, std::optional<int64_t> work_size,
    int64_t staged_operand) {
  if (owned != nullptr) executable_.kernel_computations_.push_back(std::move(owned));
  auto check_work_size = [&](int64_t size) -> absl::Status {
    if (!work_size.has_value() || size == *work_size) return absl::OkStatus();
    return absl::UnimplementedError(absl::StrCat("the epilogue's work size is ", size,
                                                 ", not the ", *work_size, " it is run over"));
  };
  using KernelTier = CpuCompileOptions::KernelTier;
  LoopKernelOptions llvm_options = EpilogueOptions(operands, result);
  if (staged_operand >= 0) {
    // Its slice names the result's, but the thunk points it at scratch.
    llvm_options.noalias[staged_operand] = true;
    llvm_options.same_as_result[staged_operand] = false;
  }
  if (options_.kernel_tier != KernelTier::kLlvm && options_.polynomial_math) {
    absl::StatusOr<std::unique_ptr<TileKernel>> tile = TileKernelFor(computation);
    if (!tile.ok() && !absl::IsUnimplemented(tile.status())) return tile.status();
    if (tile.ok() && (*tile)->splits_by_major() && check_work_size((*tile)->major_size()).ok()) {
      ++executable_.stats_.tile_kernels;
      if (options_.kernel_tier == KernelTier::kTile || TileCodeIsFinal(**tile)) {
        return std::make_unique<EpilogueKernel>(nullptr, std::move(*tile));
      }
      llvm_options.deferred = true;
      TS_ASSIGN_OR_RETURN(std::unique_ptr<LoopKernel> deferred,
                          executable_.kernel_compiler_->Compile(computation, llvm_options));
      if (deferred->work_size() == (*tile)->major_size()) {
        ++executable_.stats_.tiered_kernels;
        return std::make_unique<EpilogueKernel>(std::move(deferred), std::move(*tile),
                                                &executable_);
      }
      --executable_.stats_.tile_kernels;
      llvm_options.deferred = false;  // split otherwise: LLVM's kernel alone
    }
  }
  TS_ASSIGN_OR_RETURN(std::unique_ptr<LoopKernel> kernel,
                      executable_.kernel_compiler_->Compile(computation, llvm_options));
  TS_RETURN_IF_ERROR(check_work_size(kernel->work_size()));
  return std::make_unique<EpilogueKernel>(std::move(kernel));
}

absl::StatusOr<std::unique_ptr<CpuThunk>> CpuExecutableBuilder::MakeKernelThunk(
    std::string name, const HloComputation& computation, std::unique_ptr<HloComputation> owned,
    std::vector<BufferSlice> operands, BufferSlice result, int64_t partitions, bool epilogue) {
  if (owned != nullptr) {
    executable_.kernel_computations_.push_back(std::move(owned));
  }
  const LoopKernelOptions llvm_options = epilogue
                                             ? EpilogueOptions(operands, result, partitions)
                                             : KernelOptions(operands, result, partitions);
  using KernelTier = CpuCompileOptions::KernelTier;
  if (options_.kernel_tier != KernelTier::kLlvm && options_.polynomial_math) {
    absl::StatusOr<std::unique_ptr<TileKernel>> tile = TileKernelFor(computation);
    if (!tile.ok() && !absl::IsUnimplemented(tile.status())) return tile.status();
    if (tile.ok()) {
      ++executable_.stats_.tile_kernels;
      if ((*tile)->streaming()) ++executable_.stats_.streaming_kernels;
      std::unique_ptr<LoopKernel> tier_up;
      if (options_.kernel_tier == KernelTier::kTiered && (*tile)->splits_by_major() &&
          !TileCodeIsFinal(**tile)) {
        // Its LLVM kernel, generated at its second execution (TierUp).
        LoopKernelOptions deferred = llvm_options;
        deferred.deferred = true;
        TS_ASSIGN_OR_RETURN(tier_up, executable_.kernel_compiler_->Compile(computation, deferred));
        if ((*tile)->SplitAs(tier_up->work_size())) {
          ++executable_.stats_.tiered_kernels;
        } else {
          tier_up = nullptr;  // split otherwise: the tile program alone
        }
      }
      return std::unique_ptr<CpuThunk>(
          std::make_unique<KernelThunk>(std::move(name), std::move(*tile), std::move(operands),
                                        result, partitions, std::move(tier_up), &executable_));
    }
  }
  TS_ASSIGN_OR_RETURN(std::unique_ptr<LoopKernel> kernel,
                      executable_.kernel_compiler_->Compile(
                          computation, llvm_options));
  if (kernel->streaming_stores()) ++executable_.stats_.streaming_kernels;
  return std::unique_ptr<CpuThunk>(std::make_unique<KernelThunk>(
      std::move(name), std::move(kernel), std::move(operands), result, partitions));
}

absl::StatusOr<std::unique_ptr<CpuThunk>> CpuExecutableBuilder::Fallback(
    const HloInstruction* instruction, std::string reason) {
  std::vector<Shape> operand_shapes;
  std::vector<std::vector<ArenaLeaf>> operands;
  for (const HloInstruction* operand : instruction->operands()) {
    operand_shapes.push_back(operand->shape());
    TS_ASSIGN_OR_RETURN(std::vector<ArenaLeaf> leaves, Leaves(operand));
    operands.push_back(std::move(leaves));
  }
  TS_ASSIGN_OR_RETURN(std::vector<ArenaLeaf> results, Leaves(instruction));
  for (const ArenaLeaf& leaf : results) {
    const BufferAllocation& allocation = executable_.assignment_->allocations()[leaf.slice.allocation];
    if (allocation.kind == BufferAllocation::Kind::kConstants) {
      return absl::InternalError(absl::StrCat("%", instruction->name(),
                                              " would be written into the constant allocation"));
    }
  }
  return std::unique_ptr<CpuThunk>(std::make_unique<EvaluatorFallbackThunk>(
      instruction->name(), std::move(reason), SingleOpComputation(instruction),
      std::move(operand_shapes), std::move(operands), std::move(results)));
}

absl::Status CpuExecutableBuilder::Build() {
  const HloModule& module = *executable_.module_;
  const HloComputation* entry = module.entry_computation();
  if (runtime_only_) {
    std::vector<BufferAllocation> constants_only = executable_.assignment_->allocations();
    for (BufferAllocation& allocation : constants_only) {
      if (allocation.kind != BufferAllocation::Kind::kConstants) allocation.size = 0;
    }
    executable_.arena_ = std::make_unique<Arena>(constants_only);
  } else {
    executable_.arena_ = std::make_unique<Arena>(executable_.assignment_->allocations());
  }
  executable_.stats_.arena_bytes = executable_.arena_->size();

  for (const HloInstruction* parameter : entry->parameter_instructions()) {
    TS_ASSIGN_OR_RETURN(std::vector<ArenaLeaf> leaves, Leaves(parameter));
    executable_.parameters_.push_back(std::move(leaves));
  }
  TS_ASSIGN_OR_RETURN(executable_.results_, Leaves(entry->root_instruction()));
  TS_RETURN_IF_ERROR(BuildSequence(entry, &executable_.thunks_));
  // Every kernel's code, generated in parallel.
  return executable_.kernel_compiler_->Finalize();
}

absl::Status CpuExecutableBuilder::BuildSequence(const HloComputation* computation,
                                                 CpuThunkSequence* thunks) {
  const HloModule& module = *executable_.module_;
  if (!module.has_schedule() || !module.schedule().HasSequence(computation)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "module ", module.name(), ": computation ", computation->name(), " is not scheduled"));
  }
  CpuExecutableStats& stats = executable_.stats_;
  for (const HloInstruction* instruction : module.schedule().sequence(computation)) {
    if (instruction->opcode() == HloOpcode::kConstant) {
      TS_ASSIGN_OR_RETURN(std::vector<ArenaLeaf> leaves, Leaves(instruction));
      for (ArenaLeaf& leaf : leaves) {
        const Literal* value = &instruction->literal();
        for (int64_t i : leaf.index) value = &value->tuple_element(i);
        const BufferAllocation& allocation =
            executable_.assignment_->allocations()[leaf.slice.allocation];
        if (allocation.kind == BufferAllocation::Kind::kConstants) {
          executable_.arena_->Write(leaf, *value);
        } else {
          executable_.per_run_constants_.emplace_back(std::move(leaf), value);
        }
      }
    }
    if (Forwards(instruction)) {
      ++stats.aliasing_instructions;
      continue;
    }
    if (options_.native_kernels) {
      // Control flow over the arena; nullptr: the fallback runs it whole.
      TS_ASSIGN_OR_RETURN(std::unique_ptr<CpuThunk> control, TryControlFlow(instruction));
      if (control != nullptr) {
        thunks->push_back(std::move(control));
        ++stats.control_flow_instructions;
        continue;
      }
    }
    absl::StatusOr<std::unique_ptr<CpuThunk>> kernel = TryKernel(instruction);
    if (kernel.ok()) {
      thunks->push_back(*std::move(kernel));
      ++stats.native_instructions;
      continue;
    }
    std::string what(HloOpcodeString(instruction->opcode()));
    if (instruction->opcode() == HloOpcode::kFusion) {
      what = absl::StrCat(what, "(", FusionKindString(instruction->fusion_kind()), ")");
    }
    std::string reason(kernel.status().message());
    TS_ASSIGN_OR_RETURN(std::unique_ptr<CpuThunk> fallback, Fallback(instruction, reason));
    thunks->push_back(std::move(fallback));
    ++stats.fallback_instructions;
    stats.fallbacks.push_back(absl::StrCat(what, " ", instruction->name(), ": ", reason));
  }
  return absl::OkStatus();
}

// Copies from `from` to `to` where a leaf lies apart; false when the two
// do not have the same leaves.
bool CpuExecutableBuilder::CopyLeaves(const std::vector<ArenaLeaf>& from,
                                      const std::vector<ArenaLeaf>& to, absl::string_view name,
                                      CpuThunkSequence* thunks) {
  if (from.size() != to.size()) return false;
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i].index != to[i].index || from[i].shape.ByteSize() != to[i].shape.ByteSize() ||
        from[i].slice.size < from[i].shape.ByteSize() || to[i].slice.size < to[i].shape.ByteSize()) {
      return false;
    }
    if (from[i].slice.allocation == to[i].slice.allocation &&
        from[i].slice.offset == to[i].slice.offset) {
      continue;
    }
    BufferSlice source = from[i].slice, destination = to[i].slice;
    source.size = destination.size = from[i].shape.ByteSize();
    thunks->push_back(std::make_unique<CopyThunk>(
        absl::StrCat(name, ShapeIndexToString(from[i].index)), source, destination));
  }
  return true;
}

static bool SameSlices(const std::vector<ArenaLeaf>& a, const std::vector<ArenaLeaf>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].index != b[i].index || a[i].slice.allocation != b[i].slice.allocation ||
        a[i].slice.offset != b[i].slice.offset) {
      return false;
    }
  }
  return true;
}

absl::StatusOr<std::unique_ptr<CpuThunk>> CpuExecutableBuilder::TryControlFlow(
    const HloInstruction* instruction) {
  const std::string& name = instruction->name();
  switch (instruction->opcode()) {
    case HloOpcode::kWhile: {
      const HloComputation* condition = instruction->while_condition();
      const HloComputation* body = instruction->while_body();
      if (condition->num_parameters() != 1 || body->num_parameters() != 1) return nullptr;
      TS_ASSIGN_OR_RETURN(std::vector<ArenaLeaf> state, Leaves(instruction));
      TS_ASSIGN_OR_RETURN(std::vector<ArenaLeaf> init, Leaves(instruction->operand(0)));
      TS_ASSIGN_OR_RETURN(std::vector<ArenaLeaf> body_in, Leaves(body->parameter_instruction(0)));
      TS_ASSIGN_OR_RETURN(std::vector<ArenaLeaf> body_out, Leaves(body->root_instruction()));
      TS_ASSIGN_OR_RETURN(std::vector<ArenaLeaf> condition_in,
                          Leaves(condition->parameter_instruction(0)));
      const HloInstruction* verdict = condition->root_instruction();
      if (!SameSlices(state, body_in) || !SameSlices(state, body_out) ||
          !SameSlices(state, condition_in) || !verdict->shape().IsArray() ||
          verdict->shape().element_type() != PRED || verdict->shape().ElementCount() != 1) {
        return nullptr;
      }
      TS_ASSIGN_OR_RETURN(BufferSlice predicate,
                          executable_.assignment_->GetSlice(verdict, {}));
      CpuThunkSequence init_thunks;
      if (!CopyLeaves(init, state, absl::StrCat(name, ".init"), &init_thunks)) return nullptr;
      CpuThunkSequence condition_thunks, body_thunks;
      TS_RETURN_IF_ERROR(BuildSequence(condition, &condition_thunks));
      TS_RETURN_IF_ERROR(BuildSequence(body, &body_thunks));
      return std::unique_ptr<CpuThunk>(std::make_unique<WhileThunk>(
          name, std::move(init_thunks), std::move(condition_thunks), predicate,
          std::move(body_thunks), KnownTripCount(*instruction)));
    }
    case HloOpcode::kConditional: {
      const HloInstruction* selector = instruction->operand(0);
      const PrimitiveType type = selector->shape().element_type();
      const int64_t branches = static_cast<int64_t>(instruction->called_computations().size());
      if (!selector->shape().IsArray() || selector->shape().ElementCount() != 1 ||
          (type != PRED && type != S32) || branches < 1 || (type == PRED && branches != 2) ||
          instruction->operand_count() != branches + 1) {
        return nullptr;
      }
      TS_ASSIGN_OR_RETURN(BufferSlice selector_slice, executable_.assignment_->GetSlice(selector, {}));
      TS_ASSIGN_OR_RETURN(std::vector<ArenaLeaf> result, Leaves(instruction));
      std::vector<CpuThunkSequence> sequences;
      for (int64_t b = 0; b < branches; ++b) {
        const HloComputation* branch = instruction->called_computations()[b];
        if (branch->num_parameters() != 1) return nullptr;
        TS_ASSIGN_OR_RETURN(std::vector<ArenaLeaf> operand, Leaves(instruction->operand(b + 1)));
        TS_ASSIGN_OR_RETURN(std::vector<ArenaLeaf> in, Leaves(branch->parameter_instruction(0)));
        TS_ASSIGN_OR_RETURN(std::vector<ArenaLeaf> out, Leaves(branch->root_instruction()));
        CpuThunkSequence sequence;
        if (!CopyLeaves(operand, in, absl::StrCat(name, ".in", b), &sequence)) return nullptr;
        TS_RETURN_IF_ERROR(BuildSequence(branch, &sequence));
        if (!CopyLeaves(out, result, absl::StrCat(name, ".out", b), &sequence)) return nullptr;
        sequences.push_back(std::move(sequence));
      }
      return std::unique_ptr<CpuThunk>(std::make_unique<ConditionalThunk>(
          name, selector_slice, type == PRED, std::move(sequences)));
    }
    case HloOpcode::kCall: {
      const HloComputation* callee = instruction->to_apply();
      if (callee->num_parameters() != instruction->operand_count()) return nullptr;
      CpuThunkSequence sequence;
      for (int64_t k = 0; k < instruction->operand_count(); ++k) {
        TS_ASSIGN_OR_RETURN(std::vector<ArenaLeaf> operand, Leaves(instruction->operand(k)));
        TS_ASSIGN_OR_RETURN(std::vector<ArenaLeaf> in, Leaves(callee->parameter_instruction(k)));
        if (!CopyLeaves(operand, in, absl::StrCat(name, ".in", k), &sequence)) return nullptr;
      }
      TS_RETURN_IF_ERROR(BuildSequence(callee, &sequence));
      TS_ASSIGN_OR_RETURN(std::vector<ArenaLeaf> out, Leaves(callee->root_instruction()));
      TS_ASSIGN_OR_RETURN(std::vector<ArenaLeaf> result, Leaves(instruction));
      if (!CopyLeaves(out, result, absl::StrCat(name, ".out"), &sequence)) return nullptr;
      return std::unique_ptr<CpuThunk>(std::make_unique<SequenceThunk>(name, std::move(sequence)));
    }
    default:
      return nullptr;
  }
}

namespace {

// What both entry points do first: check, verify, and run the fusion
// pipeline (fusion, copy insertion, scheduling) unless told not to.
absl::Status PrepareModule(absl::string_view caller, HloModule* module,
                           const CpuCompileOptions& options) {
  if (module == nullptr || module->entry_computation() == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(caller, ": no module or no entry computation"));
  }
  TS_RETURN_IF_ERROR(VerifyHloModule(*module));
  if (options.kernel_tier == CpuCompileOptions::KernelTier::kTiered &&
      options.tier_up == CpuCompileOptions::TierUp::kBackground) {
    BackgroundCompiler::StopWhenMainThreadExits();
  }
  // (Started first, so that the rest of the compile overlaps it.)
  if (options.native_dots) CpuExecutableBuilder::WarmUpGemmsInBackground(*module);
  if (!options.run_fusion_pipeline) return absl::OkStatus();
  return MakeCpuPipeline(options)->Run(module).status();
}

}  // namespace

std::unique_ptr<PassPipeline> MakeCpuPipeline(const CpuCompileOptions& options,
                                              const PassPipelineOptions& pipeline,
                                              std::vector<FusionExplanation>* explanations) {
  FusionPipelineOptions fusion;
  fusion.cost = options.fusion_cost;
  fusion.explanations = explanations;
  // Dots whose operands the GEMM cannot read in place get transposes.
  fusion.add_layout_passes = [](PassPipeline& passes) { passes.AddPass<DotCanonicalization>(); };
  return MakeFusionPipeline(fusion, pipeline);
}

absl::StatusOr<std::unique_ptr<CpuExecutable>> CompileForCpu(std::unique_ptr<HloModule> module,
                                                             const CpuCompileOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  TS_RETURN_IF_ERROR(PrepareModule("CompileForCpu", module.get(), options));
  TS_ASSIGN_OR_RETURN(std::unique_ptr<CpuExecutable> executable,
                      CpuExecutableBuilder::Create(std::move(module), options));
  CpuExecutableBuilder::SetCompileTime(
      executable.get(),
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  return executable;
}


namespace {

// A host call writing the constants that buffer assignment placed outside
// the constant allocation (rewritten every run, as CpuExecutable::Run does).
class PerRunConstantsThunk : public CpuThunk {
 public:
  explicit PerRunConstantsThunk(std::vector<std::pair<ArenaLeaf, const Literal*>> constants)
      : CpuThunk("constants"), constants_(std::move(constants)) {}
  absl::Status Execute(const Arena& arena) const override {
    for (const auto& [leaf, value] : constants_) arena.Write(leaf, *value);
    return absl::OkStatus();
  }
  bool native() const override { return true; }
  std::string ToString() const override { return "constants"; }
  std::vector<BufferSlice> Slices() const override {
    std::vector<BufferSlice> slices;
    for (const auto& [leaf, value] : constants_) slices.push_back(leaf.slice);
    return slices;
  }

 private:
  std::vector<std::pair<ArenaLeaf, const Literal*>> constants_;
};

// Keeps the CpuExecutable and the thunks made for the runtime path alive.
struct RuntimeResources {
  std::shared_ptr<const CpuExecutable> executable;
  std::unique_ptr<PerRunConstantsThunk> constants;
};

}  // namespace

void CpuExecutableBuilder::WarmUpGemmsInBackground(const HloModule& module) {
  static std::atomic<bool> started{false};
  if (started.load(std::memory_order_relaxed)) return;
  // f32 matrix products (GEMMs run through oneDNN; matrix-vector products
  // and outer products do not).
  bool multiplies = false;
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* h : computation->instructions()) {
      multiplies |= h->opcode() == HloOpcode::kDot && h->shape().IsArray() &&
                    h->shape().element_type() == F32 && h->shape().rank() >= 2 &&
                    h->operand(0)->shape().rank() >= 2 && h->operand(1)->shape().rank() >= 2 &&
                    !h->dot_dimension_numbers().lhs_contracting_dimensions.empty();
    }
  }
  if (!multiplies || started.exchange(true)) return;
  // A process that exits while it runs waits for it (its statics are
  // oneDNN's first).
  BackgroundCompiler::StopWhenMainThreadExits();
  static const char owner = 0;  // no executable's: never cancelled
  BackgroundCompiler::Default().Submit(&owner, [] { WarmUpOneDnnGemm(); });
}

absl::StatusOr<std::unique_ptr<runtime::Executable>> CpuExecutableBuilder::ToRuntime(
    std::shared_ptr<const CpuExecutable> executable) {
  const HloModule& module = *executable->module_;
  const HloComputation* entry = module.entry_computation();
  const BufferAssignment& assignment = *executable->assignment_;
  const std::vector<BufferAllocation>& allocations = assignment.allocations();

  // Argument leaves, flattened over the parameters in order.
  std::vector<int64_t> first_argument;  // by parameter
  std::vector<int64_t> argument_bytes;
  absl::flat_hash_map<std::pair<int64_t, ShapeIndex>, int64_t> argument_of;
  for (int64_t p = 0; p < entry->num_parameters(); ++p) {
    ForEachSubshape(entry->parameter_instruction(p)->shape(),
                    [&](const Shape& subshape, const ShapeIndex& index) {
                      if (!subshape.IsArray()) return;
                      argument_of[{p, index}] = static_cast<int64_t>(argument_bytes.size());
                      argument_bytes.push_back(subshape.ByteSize());
                    });
  }
  // Result leaves.
  const HloInstruction* root = entry->root_instruction();
  std::vector<BufferSlice> results;
  absl::flat_hash_map<ShapeIndex, int64_t> result_of;
  {
    absl::Status status = absl::OkStatus();
    ForEachSubshape(root->shape(), [&](const Shape& subshape, const ShapeIndex& index) {
      if (!status.ok() || !subshape.IsArray()) return;
      absl::StatusOr<BufferSlice> slice = assignment.GetSlice(root, index);
      if (!slice.ok()) {
        status = slice.status();
        return;
      }
      result_of[index] = static_cast<int64_t>(results.size());
      results.push_back(*slice);
    });
    TS_RETURN_IF_ERROR(status);
  }

  std::vector<runtime::Allocation> plan;
  std::vector<bool> has_argument(argument_bytes.size(), false);
  for (size_t i = 0; i < allocations.size(); ++i) {
    const BufferAllocation& allocation = allocations[i];
    switch (allocation.kind) {
      case BufferAllocation::Kind::kParameter: {
        auto it = argument_of.find({allocation.parameter_number, allocation.parameter_index});
        if (it == argument_of.end() || has_argument[it->second] ||
            allocation.size > argument_bytes[it->second]) {
          return absl::InternalError(absl::StrCat("allocation ", i, " (", allocation.ToString(),
                                                  ") is no argument leaf"));
        }
        has_argument[it->second] = true;
        plan.push_back(runtime::Allocation::Parameter(it->second, argument_bytes[it->second],
                                                      allocation.donated));
        break;
      }
      case BufferAllocation::Kind::kOutput: {
        const BufferSlice whole{static_cast<int64_t>(i), 0, allocation.size};
        if (allocation.output_indices.size() == 1 && result_of.contains(allocation.output_indices[0]) &&
            results[result_of.at(allocation.output_indices[0])] == whole) {
          plan.push_back(runtime::Allocation::Output(result_of.at(allocation.output_indices[0]),
                                                     allocation.size));
        } else {
          plan.push_back(runtime::Allocation::Temp(allocation.size));
        }
        break;
      }
      case BufferAllocation::Kind::kConstants: {
        const char* data = executable->arena_->Address(BufferSlice{static_cast<int64_t>(i), 0, 0});
        plan.push_back(runtime::Allocation::Constant(
            std::vector<uint8_t>(data, data + allocation.size)));
        break;
      }
      case BufferAllocation::Kind::kTemp:
        plan.push_back(runtime::Allocation::Temp(allocation.size));
        break;
    }
  }
  // Unused argument leaves without an allocation still take a buffer.
  for (size_t a = 0; a < has_argument.size(); ++a) {
    if (!has_argument[a]) {
      plan.push_back(runtime::Allocation::Parameter(static_cast<int64_t>(a), argument_bytes[a]));
    }
  }
  TS_ASSIGN_OR_RETURN(runtime::BufferPlan buffer_plan, runtime::BufferPlan::Create(std::move(plan)));

  auto resources = std::make_shared<RuntimeResources>();
  resources->executable = executable;
  runtime::ThunkSequence thunks;
  if (!executable->per_run_constants_.empty()) {
    resources->constants = std::make_unique<PerRunConstantsThunk>(executable->per_run_constants_);
    thunks.Add(resources->constants->Lower());
  }
  for (const std::unique_ptr<CpuThunk>& thunk : executable->thunks_) thunks.Add(thunk->Lower());
  std::vector<runtime::BufferSlice> result_slices;
  for (const BufferSlice& slice : results) result_slices.push_back(cpu::ToRuntime(slice));
  TS_ASSIGN_OR_RETURN(
      std::unique_ptr<runtime::Executable> runtime_executable,
      runtime::Executable::Create(module.name(), std::move(buffer_plan), std::move(thunks),
                                  std::move(result_slices), {resources}));
  // The executable outlives the runtime one (a resource of it).
  const CpuExecutable* raw = executable.get();
  runtime_executable->set_background_work_waiter([raw] {
    raw->WaitForTierUp();
    return raw->tier_up_ms();
  });
  return runtime_executable;
}

absl::StatusOr<std::unique_ptr<HloExecutable>> CompileForCpuExecutable(
    std::unique_ptr<HloModule> module, const CpuCompileOptions& options,
    std::vector<std::string>* fallbacks) {
  const auto start = std::chrono::steady_clock::now();
  TS_RETURN_IF_ERROR(PrepareModule("CompileForCpuExecutable", module.get(), options));
  CpuCompilationCache* cache = nullptr;
  std::string key;
  std::shared_ptr<const CpuExecutable> shared;
  if (options.use_cache) {
    cache = options.cache != nullptr ? options.cache : &CpuCompilationCache::Default();
    key = CpuCompilationFingerprint(*module, options);
    shared = cache->Lookup(key);
  }
  if (shared == nullptr) {
    TS_ASSIGN_OR_RETURN(std::unique_ptr<CpuExecutable> executable,
                        CpuExecutableBuilder::Create(std::move(module), options,
                                                     /*runtime_only=*/true));
    CpuExecutableBuilder::SetCompileTime(
        executable.get(), std::chrono::duration<double, std::milli>(
                              std::chrono::steady_clock::now() - start)
                              .count());
    shared = std::move(executable);
    if (cache != nullptr) cache->Insert(key, shared);
  }
  if (fallbacks != nullptr) *fallbacks = shared->stats().fallbacks;
  TS_ASSIGN_OR_RETURN(ProgramShape program_shape, EntryProgramShape(shared->module()));
  TS_ASSIGN_OR_RETURN(std::unique_ptr<runtime::Executable> runtime_executable,
                      CpuExecutableBuilder::ToRuntime(shared));
  return HloExecutable::Create(std::move(program_shape), std::move(runtime_executable));
}

}  // namespace cpu
}  // namespace tessera
