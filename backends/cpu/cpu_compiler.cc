#include "backends/cpu/cpu_compiler.h"

#include <chrono>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/compilation_cache.h"
#include "backends/cpu/conv_thunk.h"
#include "backends/cpu/loop_kernel.h"
#include "runtime/thread_pool.h"
#include "hlo/analysis/hlo_verifier.h"
#include "hlo/ir/status_macros.h"
#include "passes/fusion/fusion_pipeline.h"
#include "passes/memory/buffer_assignment.h"
#include "backends/interpreter/interpreter_backend.h"
#include "runtime/buffer_allocations.h"
#include "runtime/kernel_thunk.h"

namespace tessera {
namespace cpu {

class CpuExecutableBuilder {
 public:
  CpuExecutableBuilder(const CpuCompileOptions& options, CpuExecutable* executable,
                       bool runtime_only = false)
      : options_(options), executable_(*executable), runtime_only_(runtime_only) {}

  absl::Status Build();
  absl::Status BuildSequence(const HloComputation* computation, CpuThunkSequence* thunks);
  // While, conditional and call as thunks over the arena; nullptr where
  // buffer assignment placed things so that they cannot be (the fallback
  // then runs the instruction whole).
  absl::StatusOr<std::unique_ptr<CpuThunk>> TryControlFlow(const HloInstruction* instruction);
  bool CopyLeaves(const std::vector<ArenaLeaf>& from, const std::vector<ArenaLeaf>& to,
                  absl::string_view name, CpuThunkSequence* thunks);

  static absl::StatusOr<std::unique_ptr<CpuExecutable>> Create(std::unique_ptr<HloModule> module,
                                                               const CpuCompileOptions& options,
                                                               bool runtime_only = false) {
    auto executable = std::unique_ptr<CpuExecutable>(new CpuExecutable());
    executable->module_ = std::move(module);
    BufferAssignmentOptions assignment_options;
    assignment_options.alignment = Arena::kAlignment;
    TS_ASSIGN_OR_RETURN(BufferAssignment assignment,
                        AssignBuffers(*executable->module_, assignment_options));
    executable->assignment_ = std::make_unique<BufferAssignment>(std::move(assignment));
    TS_ASSIGN_OR_RETURN(std::unique_ptr<LoopKernelCompiler> compiler,
                        LoopKernelCompiler::Create(options.jit));
    executable->kernel_compiler_ = std::move(compiler);
    CpuExecutableBuilder builder(options, executable.get(), runtime_only);
    TS_RETURN_IF_ERROR(builder.Build());
    const llvm_ir::JitStats jit = executable->kernel_compiler_->jit_stats();
    executable->stats_.llvm_modules = jit.modules;
    executable->stats_.llvm_cache_hits = jit.cache_hits;
    return executable;
  }
  static void SetCompileTime(CpuExecutable* executable, double ms) {
    executable->stats_.compile_ms = ms;
  }
  // The runtime::Executable over `executable`'s thunks (which it keeps
  // alive).
  static absl::StatusOr<std::unique_ptr<runtime::Executable>> ToRuntime(
      std::shared_ptr<const CpuExecutable> executable);

 private:
  absl::StatusOr<std::vector<ArenaLeaf>> Leaves(const HloInstruction* instruction) const;
  // Where the instruction's storage is its operand's: nothing to run.
  bool Forwards(const HloInstruction* instruction) const;
  // A kernel thunk, or a status saying why not (then: the fallback).
  absl::StatusOr<std::unique_ptr<CpuThunk>> TryKernel(const HloInstruction* instruction);
  // A kLoop fusion with a tuple root: one kernel per output, run in turn.
  absl::StatusOr<std::unique_ptr<CpuThunk>> TryMultiOutputKernel(const HloInstruction* fusion);
  // An unfused dot through RunDot (PlanDot decides).
  absl::StatusOr<std::unique_ptr<CpuThunk>> TryScatter(const HloInstruction* scatter);
  absl::StatusOr<std::unique_ptr<CpuThunk>> TrySort(const HloInstruction* sort);
  absl::StatusOr<std::unique_ptr<CpuThunk>> TryTopK(const HloInstruction* topk);
  absl::StatusOr<std::unique_ptr<CpuThunk>> TryVariadicReduce(const HloInstruction* reduce);
  absl::StatusOr<std::unique_ptr<CpuThunk>> TryDot(const HloInstruction* dot);
  // A kOutput fusion of a dot (over two of the fusion's parameters) and an
  // elementwise epilogue: RunDot into the fusion's result, then the
  // epilogue as a kernel over the fusion's operands and that result (read
  // and written in place).
  absl::StatusOr<std::unique_ptr<CpuThunk>> TryOutputFusion(const HloInstruction* fusion);
  absl::StatusOr<std::unique_ptr<CpuThunk>> Fallback(const HloInstruction* instruction,
                                                     std::string reason);
  // Noalias for every buffer whose memory no other buffer of the call
  // (only the result is written) shares; the polynomial math option.
  LoopKernelOptions KernelOptions(const std::vector<BufferSlice>& operands,
                                  const BufferSlice& result) const {
    LoopKernelOptions kernel_options;
    kernel_options.polynomial_math = options_.polynomial_math;
    kernel_options.reorder_float_reductions = options_.reorder_float_reductions;
    bool result_alone = true;
    for (const BufferSlice& operand : operands) {
      const bool overlaps = operand.Overlaps(result);
      const bool same = operand.allocation == result.allocation &&
                        operand.offset == result.offset && operand.size == result.size;
      kernel_options.noalias.push_back(!overlaps);
      kernel_options.same_as_result.push_back(same);
      if (overlaps && !same) result_alone = false;
    }
    kernel_options.noalias.push_back(result_alone);
    return kernel_options;
  }
  // Thread-pool blocks for a kernel writing `shape`.
  int64_t Partitions(const Shape& shape) const {
    if (!shape.IsArray() || shape.ElementCount() <= options_.parallel_min_elements) return 1;
    return runtime::ThreadPool::Default().parallelism();
  }

  // The same for a kernel of `instruction` writing `shape`, where a
  // reduction's work is its input's: by the largest of `shape` and the
  // array operands.
  int64_t WorkPartitions(const Shape& shape, const HloInstruction* instruction) const {
    int64_t partitions = Partitions(shape);
    for (const HloInstruction* operand : instruction->operands()) {
      if (operand->shape().IsArray() && shape.IsArray() &&
          operand->shape().ElementCount() > shape.ElementCount()) {
        partitions = std::max(partitions, Partitions(operand->shape()));
      }
    }
    return partitions;
  }

  const CpuCompileOptions& options_;
  CpuExecutable& executable_;
  // The arena holds only the constant allocations (the runtime::Executable
  // binds everything else per run).
  bool runtime_only_ = false;
};

namespace {

// An unfused convolution as im2col + GEMM (conv_thunk.h).
class ConvThunk : public CpuThunk {
 public:
  ConvThunk(std::string name, ConvPlan plan, BufferSlice input, BufferSlice kernel,
            BufferSlice out)
      : CpuThunk(std::move(name)), plan_(plan), input_(input), kernel_(kernel), out_(out) {}
  absl::Status Execute(const Arena& arena) const override {
    return RunConvolution(plan_, arena.Address(input_), arena.Address(kernel_),
                          arena.Address(out_), &runtime::ThreadPool::Default());
  }
  bool native() const override { return true; }
  std::string ToString() const override {
    auto slice = [](const BufferSlice& s) {
      return absl::StrCat("a", s.allocation, "[", s.offset, ", ", s.offset + s.size, ")");
    };
    return absl::StrCat("convolution ", name(), " ", plan_.ToString(), " (", slice(input_), ", ",
                        slice(kernel_), ") -> ", slice(out_));
  }
  std::unique_ptr<runtime::Thunk> Lower() const override {
    const ConvPlan plan = plan_;
    return std::make_unique<runtime::HostCallThunk>(
        name(),
        std::vector<runtime::BufferSlice>{ToRuntime(input_), ToRuntime(kernel_), ToRuntime(out_)},
        [plan](absl::Span<void* const> buffers, const runtime::ExecuteParams& params) {
          runtime::ThreadPool* pool = params.thread_pool != nullptr
                                          ? params.thread_pool
                                          : &runtime::ThreadPool::Default();
          return RunConvolution(plan, buffers[0], buffers[1], buffers[2], pool);
        });
  }
  std::vector<BufferSlice> Slices() const override { return {input_, kernel_, out_}; }

 private:
  ConvPlan plan_;
  BufferSlice input_, kernel_, out_;
};

std::unique_ptr<HloComputation> SingleOpComputation(const HloInstruction* instruction) {
  auto computation = std::make_unique<HloComputation>(absl::StrCat("cpu.", instruction->name()));
  std::vector<HloInstruction*> parameters;
  for (int64_t k = 0; k < instruction->operand_count(); ++k) {
    parameters.push_back(computation->AddInstruction(HloInstruction::CreateParameter(
        k, instruction->operand(k)->shape(), absl::StrCat("operand.", k))));
  }
  HloInstruction* root = computation->AddInstruction(
      instruction->CloneWithNewOperands(instruction->shape(), parameters));
  computation->set_root_instruction(root);
  return computation;
}

// Clones what `target` uses into `computation` (post order), starting
// from `map` (which must hold `fused`'s parameters, and may hold other
// instructions to be replaced), and makes the clone of `target` its root.
void CloneInto(const HloInstruction* target,
               absl::flat_hash_map<const HloInstruction*, HloInstruction*> map,
               HloComputation* computation);

// The part of `fused` (whose root is a tuple) that computes tuple element
// `output`, over all of `fused`'s parameters (so that kernel buffers stay
// the fusion's operands, in order), then one parameter per earlier output
// (number num_parameters() + j for output j < `output`): what an earlier
// output computed is read from its result, not computed again.
std::unique_ptr<HloComputation> ExtractOutput(const HloComputation& fused, int64_t output) {
  auto computation =
      std::make_unique<HloComputation>(absl::StrCat(fused.name(), ".output", output));
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> map;
  for (int64_t k = 0; k < fused.num_parameters(); ++k) {
    const HloInstruction* parameter = fused.parameter_instruction(k);
    map[parameter] = computation->AddInstruction(
        HloInstruction::CreateParameter(k, parameter->shape(), parameter->name()));
  }
  for (int64_t j = 0; j < output; ++j) {
    const HloInstruction* earlier = fused.root_instruction()->operand(j);
    HloInstruction* parameter = computation->AddInstruction(HloInstruction::CreateParameter(
        fused.num_parameters() + j, earlier->shape(), absl::StrCat("output.", j)));
    if (!map.contains(earlier) || earlier->opcode() != HloOpcode::kParameter) {
      map[earlier] = parameter;
    }
  }
  CloneInto(fused.root_instruction()->operand(output), std::move(map), computation.get());
  return computation;
}

// What `target` (an instruction of `fused`) computes, over `fused`'s
// parameters and `replaced` as one more parameter (number
// fused.num_parameters()), after `fused`'s own, of `replaced_shape` when
// given (the layout its value is stored in).
std::unique_ptr<HloComputation> WithParameterFor(const HloComputation& fused,
                                                 const HloInstruction* replaced,
                                                 const HloInstruction* target,
                                                 const Shape* replaced_shape = nullptr) {
  auto computation = std::make_unique<HloComputation>(absl::StrCat(fused.name(), ".epilogue"));
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> map;
  for (int64_t k = 0; k < fused.num_parameters(); ++k) {
    const HloInstruction* parameter = fused.parameter_instruction(k);
    map[parameter] = computation->AddInstruction(
        HloInstruction::CreateParameter(k, parameter->shape(), parameter->name()));
  }
  map[replaced] = computation->AddInstruction(HloInstruction::CreateParameter(
      fused.num_parameters(), replaced_shape != nullptr ? *replaced_shape : replaced->shape(),
      absl::StrCat(replaced->name(), ".value")));
  CloneInto(target, std::move(map), computation.get());
  return computation;
}

void CloneInto(const HloInstruction* target,
               absl::flat_hash_map<const HloInstruction*, HloInstruction*> map,
               HloComputation* computation) {
  // Post order of what `target` uses.
  std::vector<const HloInstruction*> order;
  std::vector<std::pair<const HloInstruction*, size_t>> stack = {{target, 0}};
  absl::flat_hash_set<const HloInstruction*> visited;
  while (!stack.empty()) {
    auto& [h, next] = stack.back();
    if (map.contains(h) || (next == 0 && !visited.insert(h).second)) {
      stack.pop_back();
      continue;
    }
    if (next < static_cast<size_t>(h->operand_count())) {
      const HloInstruction* operand = h->operand(next++);
      if (!map.contains(operand) && !visited.contains(operand)) stack.push_back({operand, 0});
      continue;
    }
    order.push_back(h);
    stack.pop_back();
  }
  for (const HloInstruction* h : order) {
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* operand : h->operands()) operands.push_back(map.at(operand));
    map[h] = computation->AddInstruction(h->CloneWithNewOperands(h->shape(), operands));
  }
  computation->set_root_instruction(map.at(target));
}

// Ops the elementwise kernel compiler may accept unfused.
bool KernelCandidateOpcode(const HloInstruction* instruction) {
  switch (instruction->opcode()) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kIota:
    case HloOpcode::kReshape:
    case HloOpcode::kTranspose:
    case HloOpcode::kSlice:
    case HloOpcode::kReverse:
    case HloOpcode::kCopy:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kPad:
    case HloOpcode::kConcatenate:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kGather:
      return true;
    default:
      return instruction->IsElementwise();
  }
}

// Every use of `parameter` inside `computation` (transitively) is an
// elementwise op over the same dimensions (or the base of a
// dynamic-update-slice): a kernel may write its result
// over that parameter's buffer (each element is read before it is written,
// at the same position).
bool ElementwiseOnlyUse(const HloInstruction* parameter) {
  std::vector<const HloInstruction*> stack = {parameter};
  absl::flat_hash_set<const HloInstruction*> seen;
  while (!stack.empty()) {
    const HloInstruction* h = stack.back();
    stack.pop_back();
    for (const HloInstruction* user : h->users()) {
      // A dynamic-update-slice reads its base only where it keeps it, at
      // the position it writes.
      const bool base_of_update = user->opcode() == HloOpcode::kDynamicUpdateSlice &&
                                  user->operand(0) == h && user->OperandIndices(h).size() == 1;
      if ((!user->IsElementwise() && !base_of_update) ||
          user->shape().dimensions() != parameter->shape().dimensions()) {
        return false;
      }
      if (seen.insert(user).second) stack.push_back(user);
    }
  }
  return true;
}

}  // namespace

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
  TS_ASSIGN_OR_RETURN(std::unique_ptr<LoopKernel> kernel,
                      executable_.kernel_compiler_->Compile(
                          *computation, KernelOptions(operands, result)));
  const int64_t partitions = WorkPartitions(instruction->shape(), instruction);
  return std::unique_ptr<CpuThunk>(std::make_unique<KernelThunk>(
      instruction->name(), std::move(kernel), std::move(operands), result, partitions));
}

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
      return absl::UnimplementedError(
          absl::StrCat("topk of ", PrimitiveTypeName(operand.element_type())));
  }
  const int64_t rows = length == 0 ? 0 : operand.ElementCount() / length;
  return std::unique_ptr<CpuThunk>(std::make_unique<TopKThunk>(
      topk->name(), operand.element_type(), rows, length, k, topk->attrs().largest, in, values,
      indices));
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
  TS_ASSIGN_OR_RETURN(std::shared_ptr<void*> comparator,
                      executable_.kernel_compiler_->CompileComparator(*sort->to_apply(),
                                                                      plan.types));
  return std::unique_ptr<CpuThunk>(std::make_unique<SortThunk>(
      sort->name(), std::move(plan), std::move(comparator), std::move(operands),
      std::move(results)));
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
  const HloInstruction* dot = nullptr;
  for (const HloInstruction* h : fused.instructions()) {
    if (h->opcode() == HloOpcode::kParameter || h->opcode() == HloOpcode::kConstant) continue;
    if (h->opcode() == HloOpcode::kTuple && h == fused.root_instruction()) continue;
    if (h->opcode() == HloOpcode::kDot) {
      if (dot != nullptr) return absl::UnimplementedError("more than one dot");
      dot = h;
    } else if (!KernelCandidateOpcode(h)) {
      return absl::UnimplementedError(
          absl::StrCat("%", h->name(), " (", HloOpcodeString(h->opcode()),
                       ") in the epilogue"));
    }
  }
  if (dot == nullptr) return absl::UnimplementedError("no dot");
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
  TS_ASSIGN_OR_RETURN(DotShape shape, PlanDot(*dot));
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
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (results[i].size < outputs[i]->shape().ByteSize()) {
      return absl::InternalError(
          absl::StrCat("%", fusion->name(), ": a slice smaller than its value"));
    }
    // The dot writes a result before the epilogue reads the operands.
    for (const BufferSlice& operand : operands) {
      if (operand.Overlaps(results[i])) {
        return absl::UnimplementedError("the result overlaps an operand");
      }
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
  for (size_t i = 0; i < outputs.size() && holder < 0; ++i) {
    if (outputs[i]->shape() == dot->shape()) holder = static_cast<int64_t>(i);
  }
  // Else any output of the dot's dimensions and type: the dot's value
  // never leaves the fusion, so it is stored in that output's layout.
  const Shape* stored_shape = nullptr;
  for (size_t i = 0; i < outputs.size() && holder < 0; ++i) {
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
  if (outputs.size() == 1 && outputs[0] != dot && shape.batch == 1 && !shape.out_transposed &&
      (shape.type == F32 || shape.type == F64 || shape.type == S32) &&
      shape.type == shape.output_type && row_major_matrix &&
      result_shape.dimensions(0) == shape.m && result_shape.dimensions(1) == shape.n) {
    std::unique_ptr<HloComputation> epilogue = WithParameterFor(fused, dot, outputs[0], stored_shape);
    if (!ElementwiseOnlyUse(epilogue->parameter_instruction(fused.num_parameters()))) {
      return absl::UnimplementedError("the epilogue reads the dot other than elementwise");
    }
    std::vector<BufferSlice> kernel_operands = operands;
    kernel_operands.push_back(results[0]);
    TS_ASSIGN_OR_RETURN(std::unique_ptr<LoopKernel> kernel,
                        executable_.kernel_compiler_->Compile(
                            *epilogue, KernelOptions(kernel_operands, results[0])));
    std::vector<BufferSlice> kernel_buffers = kernel_operands;
    kernel_buffers.push_back(results[0]);
    return std::unique_ptr<CpuThunk>(std::make_unique<DotThunk>(
        fusion->name(), shape, operands[lhs_number], operands[rhs_number], results[0],
        std::move(kernel), std::move(kernel_buffers)));
  }
  std::vector<std::unique_ptr<CpuThunk>> steps;
  steps.push_back(std::make_unique<DotThunk>(absl::StrCat(fusion->name(), ".dot"), shape,
                                             operands[lhs_number], operands[rhs_number],
                                             results[holder]));
  std::vector<int64_t> order;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (static_cast<int64_t>(i) != holder) order.push_back(static_cast<int64_t>(i));
  }
  order.push_back(holder);
  std::vector<BufferSlice> kernel_operands = operands;
  kernel_operands.push_back(results[holder]);
  for (int64_t i : order) {
    if (outputs[i] == dot && i == holder) continue;  // the GEMM wrote it
    std::unique_ptr<HloComputation> epilogue = WithParameterFor(fused, dot, outputs[i], stored_shape);
    if (!ElementwiseOnlyUse(epilogue->parameter_instruction(fused.num_parameters()))) {
      return absl::UnimplementedError("the epilogue reads the dot other than elementwise");
    }
    TS_ASSIGN_OR_RETURN(std::unique_ptr<LoopKernel> kernel,
                        executable_.kernel_compiler_->Compile(
                            *epilogue, KernelOptions(kernel_operands, results[i])));
    steps.push_back(std::make_unique<KernelThunk>(
        absl::StrCat(fusion->name(), ".epilogue", outputs.size() > 1 ? absl::StrCat(i) : ""),
        std::move(kernel), kernel_operands, results[i], Partitions(outputs[i]->shape())));
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
  std::vector<std::unique_ptr<HloComputation>> parts;
  for (int64_t i = 0; i < root->operand_count(); ++i) parts.push_back(ExtractOutput(fused, i));
  // The outputs are computed one after the other: an output may write over
  // an operand only exactly, only where it reads it elementwise, and only
  // if no other output reads that operand.
  for (int64_t i = 0; i < root->operand_count(); ++i) {
    for (size_t k = 0; k < operands.size(); ++k) {
      if (!operands[k].Overlaps(results[i])) continue;
      bool ok = operands[k].allocation == results[i].allocation &&
                operands[k].offset == results[i].offset &&
                ElementwiseOnlyUse(parts[i]->parameter_instruction(k));
      for (int64_t j = 0; ok && j < root->operand_count(); ++j) {
        if (j != i && !parts[j]->parameter_instruction(k)->users().empty()) ok = false;
      }
      if (!ok) {
        return absl::UnimplementedError(absl::StrCat(
            "output ", i, " overwrites operand ", k, ", which the kernels cannot share"));
      }
    }
  }
  std::vector<std::unique_ptr<CpuThunk>> kernels;
  for (int64_t i = 0; i < root->operand_count(); ++i) {
    // The fusion's operands, then the earlier outputs' results.
    std::vector<BufferSlice> kernel_operands = operands;
    for (int64_t j = 0; j < i; ++j) kernel_operands.push_back(results[j]);
    TS_ASSIGN_OR_RETURN(std::unique_ptr<LoopKernel> kernel,
                        executable_.kernel_compiler_->Compile(
                            *parts[i], KernelOptions(kernel_operands, results[i])));
    kernels.push_back(std::make_unique<KernelThunk>(
        absl::StrCat(fusion->name(), "{", i, "}"), std::move(kernel),
        std::move(kernel_operands), results[i],
        WorkPartitions(fusion->shape().tuple_shapes(i), fusion)));
  }
  return std::unique_ptr<CpuThunk>(
      std::make_unique<SequenceThunk>(fusion->name(), std::move(kernels)));
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
      return std::unique_ptr<CpuThunk>(
          std::make_unique<WhileThunk>(name, std::move(init_thunks), std::move(condition_thunks),
                                       predicate, std::move(body_thunks)));
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

// Keeps the CpuExecutable and the per-run constants thunk alive.
struct RuntimeResources {
  std::shared_ptr<const CpuExecutable> executable;
  std::unique_ptr<PerRunConstantsThunk> constants;
};

}  // namespace

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
  return runtime::Executable::Create(module.name(), std::move(buffer_plan), std::move(thunks),
                                     std::move(result_slices), {resources});
}

absl::StatusOr<std::unique_ptr<HloExecutable>> CompileForCpuExecutable(
    std::unique_ptr<HloModule> module, const CpuCompileOptions& options) {
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
  TS_ASSIGN_OR_RETURN(ProgramShape program_shape, EntryProgramShape(shared->module()));
  TS_ASSIGN_OR_RETURN(std::unique_ptr<runtime::Executable> runtime_executable,
                      CpuExecutableBuilder::ToRuntime(shared));
  return HloExecutable::Create(std::move(program_shape), std::move(runtime_executable));
}

}  // namespace cpu
}  // namespace tessera
