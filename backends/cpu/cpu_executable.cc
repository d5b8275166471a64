#include "backends/cpu/cpu_executable.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/background_compiler.h"
#include "backends/cpu/thread_scratch.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/status_macros.h"
#include "runtime/conditional_thunk.h"
#include "runtime/copy_thunk.h"
#include "runtime/kernel_thunk.h"
#include "runtime/thread_pool.h"
#include "runtime/while_thunk.h"

namespace tessera {
namespace cpu {
namespace {

std::vector<int64_t> MinorToMajor(const Shape& shape) {
  if (shape.has_layout() &&
      static_cast<int64_t>(shape.layout().minor_to_major.size()) == shape.rank()) {
    return shape.layout().minor_to_major;
  }
  return Layout::Descending(shape.rank()).minor_to_major;
}

// Calls fn(row_major_index, physical_index) for every element of `shape`
// whose layout is not row-major; returns false (calling nothing) when the
// two orders coincide.
template <typename Fn>
bool ForEachPhysical(const Shape& shape, Fn&& fn) {
  const std::vector<int64_t> m2m = MinorToMajor(shape);
  const int64_t rank = shape.rank();
  if (m2m == Layout::Descending(rank).minor_to_major) return false;
  std::vector<int64_t> stride(rank, 1);
  int64_t s = 1;
  for (int64_t k = 0; k < rank; ++k) {
    stride[m2m[k]] = s;
    s *= shape.dimensions(m2m[k]);
  }
  const int64_t count = shape.ElementCount();
  std::vector<int64_t> index(rank, 0);
  int64_t physical = 0;
  for (int64_t i = 0; i < count; ++i) {
    fn(i, physical);
    for (int64_t d = rank - 1; d >= 0; --d) {
      physical += stride[d];
      if (++index[d] < shape.dimensions(d)) break;
      physical -= stride[d] * shape.dimensions(d);
      index[d] = 0;
    }
  }
  return true;
}

std::string SliceString(const BufferSlice& slice) { return slice.ToString(); }

// The pool a lowered thunk runs on: the caller's, else the process-wide one.
runtime::ThreadPool* PoolOf(const runtime::ExecuteParams& params) {
  return params.thread_pool != nullptr ? params.thread_pool : &runtime::ThreadPool::Default();
}

}  // namespace

// ---------------------------------------------------------------------------
// Arena

Arena::Arena(const std::vector<BufferAllocation>& allocations) {
  for (const BufferAllocation& allocation : allocations) {
    base_.push_back(size_);
    size_ += (allocation.size + kAlignment - 1) / kAlignment * kAlignment;
  }
  const int64_t bytes = std::max<int64_t>(size_, kAlignment);
  data_ = static_cast<char*>(std::aligned_alloc(kAlignment, bytes));
  if (data_ == nullptr) throw std::bad_alloc();
  std::memset(data_, 0, bytes);
}

Arena::~Arena() { std::free(data_); }

void Arena::Write(const ArenaLeaf& leaf, const Literal& value) const {
  char* dst = Address(leaf.slice);
  const auto* src = static_cast<const char*>(value.untyped_data());
  const int64_t width = ByteWidth(leaf.shape.element_type());
  const bool permuted = ForEachPhysical(leaf.shape, [&](int64_t i, int64_t p) {
    std::memcpy(dst + p * width, src + i * width, width);
  });
  if (!permuted) {
    std::memcpy(dst, src, std::min<int64_t>(leaf.shape.ByteSize(), value.size_bytes()));
  }
}

Literal Arena::Read(const ArenaLeaf& leaf) const {
  Shape logical = leaf.shape;
  logical.clear_layout();
  Literal literal(logical);
  literal.set_layout(Layout::Descending(leaf.shape.rank()));
  const char* src = Address(leaf.slice);
  auto* dst = static_cast<char*>(literal.untyped_data());
  const int64_t width = ByteWidth(leaf.shape.element_type());
  const bool permuted = ForEachPhysical(leaf.shape, [&](int64_t i, int64_t p) {
    std::memcpy(dst + i * width, src + p * width, width);
  });
  if (!permuted) {
    std::memcpy(dst, src, std::min<int64_t>(leaf.shape.ByteSize(), literal.size_bytes()));
  }
  return literal;
}

runtime::BufferSlice ToRuntime(const BufferSlice& slice) {
  return runtime::BufferSlice{slice.allocation, slice.offset, slice.size};
}

// ---------------------------------------------------------------------------
// Lowering to runtime thunks

std::unique_ptr<runtime::Thunk> CpuThunk::LowerToHostCall(
    runtime::HostCallThunk::Function fn) const {
  std::vector<runtime::BufferSlice> slices;
  for (const BufferSlice& slice : Slices()) slices.push_back(ToRuntime(slice));
  return std::make_unique<runtime::HostCallThunk>(name(), std::move(slices), std::move(fn));
}

std::unique_ptr<runtime::Thunk> CpuThunk::Lower() const {
  const CpuThunk* self = this;
  return LowerToHostCall([self](absl::Span<void* const>, const runtime::ExecuteParams& params) {
    RuntimeArena arena(*params.buffers);
    return self->Execute(arena);
  });
}

namespace {

// The runtime thunks of `thunks` in order, nested sequences inlined.
void AppendLowered(const CpuThunkSequence& thunks,
                   std::vector<std::unique_ptr<runtime::Thunk>>* lowered) {
  for (const std::unique_ptr<CpuThunk>& thunk : thunks) {
    if (const auto* sequence = dynamic_cast<const SequenceThunk*>(thunk.get())) {
      AppendLowered(sequence->thunks(), lowered);
    } else {
      lowered->push_back(thunk->Lower());
    }
  }
}

// The thunks lowered, each run of consecutive kernels that execute as one
// call chained into one runtime thunk: a loop iteration of small kernels
// (a counter, a row of a scan) is then one dispatch, not one per kernel
// (1000 iterations of a scalar counter: 71 -> 35 us, before trip counts).
runtime::ThunkSequence LowerSequence(const CpuThunkSequence& thunks) {
  std::vector<std::unique_ptr<runtime::Thunk>> lowered;
  AppendLowered(thunks, &lowered);
  runtime::ThunkSequence sequence;
  std::vector<std::unique_ptr<runtime::KernelThunk>> run;
  auto flush = [&] {
    if (run.size() == 1) {
      sequence.Add(std::move(run.front()));
    } else if (run.size() > 1) {
      sequence.Add(runtime::KernelThunk::Chain(std::move(run)));
    }
    run.clear();
  };
  for (std::unique_ptr<runtime::Thunk>& thunk : lowered) {
    if (thunk->kind() == runtime::Thunk::Kind::kKernel &&
        static_cast<const runtime::KernelThunk&>(*thunk).RunsAsOneBlock()) {
      run.emplace_back(static_cast<runtime::KernelThunk*>(thunk.release()));
      continue;
    }
    flush();
    sequence.Add(std::move(thunk));
  }
  flush();
  return sequence;
}

}  // namespace

std::unique_ptr<runtime::Thunk> KernelThunk::Lower() const {
  std::vector<runtime::BufferSlice> slices;
  for (const BufferSlice& slice : operands_) slices.push_back(ToRuntime(slice));
  slices.push_back(ToRuntime(result_));
  if (tile_kernel_ != nullptr && kernel_ != nullptr) {
    // Split as the LLVM kernel splits its work, for either code.
    const TileKernel* tile = tile_kernel_.get();
    const LoopKernel* kernel = kernel_.get();
    const int64_t work = kernel->work_size();
    return std::make_unique<runtime::KernelThunk>(
        absl::StrCat(name(), " (tiered)"), std::move(slices),
        [this, tile, kernel](void** buffers, int64_t begin, int64_t end) {
          // One block of each execution starts at 0.
          if (begin == 0) CountExecution();
          if (LoopKernel::Function* function = kernel->function()) {
            function(buffers, begin, end);
          } else {
            tile->RunMajor(buffers, begin, end);
          }
        },
        work, std::max<int64_t>(1, std::min(partitions_, work)));
  }
  if (tile_kernel_ != nullptr) {
    const TileKernel* tile = tile_kernel_.get();
    const int64_t work = tile->work_size();
    return std::make_unique<runtime::KernelThunk>(
        absl::StrCat(name(), " (tiles)"), std::move(slices),
        [tile](void** buffers, int64_t begin, int64_t end) { tile->Run(buffers, begin, end); },
        work, std::max<int64_t>(1, std::min(partitions_, work)));
  }
  return std::make_unique<runtime::KernelThunk>(name(), std::move(slices), kernel_->function(),
                                                kernel_->work_size(),
                                                std::max<int64_t>(1, std::min(partitions_, kernel_->work_size())));
}

std::unique_ptr<runtime::Thunk> SequenceThunk::Lower() const {
  return std::make_unique<runtime::SequentialThunk>(name(), LowerSequence(thunks_));
}

std::unique_ptr<runtime::Thunk> CopyThunk::Lower() const {
  return std::make_unique<runtime::CopyThunk>(name(), ToRuntime(source_),
                                              ToRuntime(destination_));
}

std::unique_ptr<runtime::Thunk> WhileThunk::Lower() const {
  auto loop = std::make_unique<runtime::WhileThunk>(
      name(), LowerSequence(condition_), ToRuntime(predicate_), LowerSequence(body_), trip_count_);
  if (init_.empty()) return loop;
  runtime::ThunkSequence sequence = LowerSequence(init_);
  sequence.Add(std::move(loop));
  return std::make_unique<runtime::SequentialThunk>(name(), std::move(sequence));
}

std::unique_ptr<runtime::Thunk> ConditionalThunk::Lower() const {
  std::vector<runtime::ThunkSequence> branches;
  for (const CpuThunkSequence& branch : branches_) branches.push_back(LowerSequence(branch));
  return std::make_unique<runtime::ConditionalThunk>(
      name(), ToRuntime(selector_),
      pred_selector_ ? runtime::ConditionalThunk::SelectorType::kPred
                     : runtime::ConditionalThunk::SelectorType::kS32,
      std::move(branches));
}

std::vector<BufferSlice> EvaluatorFallbackThunk::Slices() const {
  std::vector<BufferSlice> slices;
  for (const std::vector<ArenaLeaf>& operand : operands_) {
    for (const ArenaLeaf& leaf : operand) slices.push_back(leaf.slice);
  }
  for (const ArenaLeaf& leaf : results_) slices.push_back(leaf.slice);
  return slices;
}

// ---------------------------------------------------------------------------
// KernelThunk

KernelThunk::KernelThunk(std::string name, std::unique_ptr<LoopKernel> kernel,
                         std::vector<BufferSlice> operands, BufferSlice result,
                         int64_t partitions)
    : CpuThunk(std::move(name)),
      kernel_(std::move(kernel)),
      operands_(std::move(operands)),
      result_(result),
      partitions_(std::max<int64_t>(partitions, 1)) {}

KernelThunk::KernelThunk(std::string name, std::unique_ptr<TileKernel> kernel,
                         std::vector<BufferSlice> operands, BufferSlice result, int64_t partitions,
                         std::unique_ptr<LoopKernel> tier_up, const CpuExecutable* owner)
    : CpuThunk(std::move(name)),
      kernel_(std::move(tier_up)),
      tile_kernel_(std::move(kernel)),
      owner_(owner),
      operands_(std::move(operands)),
      result_(result),
      partitions_(std::max<int64_t>(partitions, 1)) {}

EpilogueKernel::EpilogueKernel(std::unique_ptr<LoopKernel> llvm, std::unique_ptr<TileKernel> tile,
                               const CpuExecutable* owner)
    : llvm_(std::move(llvm)), tile_(std::move(tile)), owner_(owner) {}

int64_t EpilogueKernel::work_size() const {
  return llvm_ != nullptr ? llvm_->work_size() : tile_->major_size();
}

void EpilogueKernel::CountExecution() const {
  if (owner_ == nullptr || llvm_ == nullptr || tile_ == nullptr || llvm_->function() != nullptr) {
    return;
  }
  if (executions_.fetch_add(1, std::memory_order_relaxed) + 1 >= 2) owner_->TierUp();
}

void EpilogueKernel::Run(void** buffers, int64_t begin, int64_t end) const {
  if (llvm_ != nullptr) {
    if (LoopKernel::Function* function = llvm_->function()) return function(buffers, begin, end);
  }
  tile_->RunMajor(buffers, begin, end);
}

void KernelThunk::CountExecution() const {
  if (owner_ == nullptr || kernel_ == nullptr || kernel_->function() != nullptr) return;
  if (executions_.fetch_add(1, std::memory_order_relaxed) + 1 >= 2) owner_->TierUp();
}

absl::Status KernelThunk::Execute(const Arena& arena) const {
  void* stack[16];
  std::vector<void*> heap;
  void** buffers = stack;
  const size_t count = operands_.size() + 1;
  if (count > 16) {
    heap.resize(count);
    buffers = heap.data();
  }
  for (size_t i = 0; i < operands_.size(); ++i) buffers[i] = arena.Address(operands_[i]);
  buffers[operands_.size()] = arena.Address(result_);
  if (tile_kernel_ != nullptr) CountExecution();
  if (kernel_ != nullptr && kernel_->function() != nullptr) {
    kernel_->Run(buffers);
  } else {
    tile_kernel_->Run(buffers, 0, tile_kernel_->work_size());
  }
  return absl::OkStatus();
}

std::string KernelThunk::ToString() const {
  std::vector<std::string> in;
  for (const BufferSlice& slice : operands_) in.push_back(SliceString(slice));
  const char* kind = tile_kernel_ == nullptr ? "kernel "
                     : kernel_ == nullptr    ? "tile kernel "
                                             : "tiered kernel ";
  return absl::StrCat(kind, name(), " (", absl::StrJoin(in, ", "), ") -> ", SliceString(result_),
                      partitions_ > 1 ? absl::StrCat(" in ", partitions_, " partitions") : "");
}

// ---------------------------------------------------------------------------
// DotThunk

std::vector<BufferSlice> DotThunk::Slices() const {
  std::vector<BufferSlice> slices = {lhs_, rhs_, out_};
  slices.insert(slices.end(), epilogue_buffers_.begin(), epilogue_buffers_.end());
  return slices;
}

namespace {

// RunDot with the epilogue kernel (if any) over `buffers`: lhs, rhs, out,
// then the kernel's buffers.  With `staged_dot_buffer` >= 0 the product
// goes to scratch of `out_bytes`, where kernel buffer `staged_dot_buffer`
// then points (DotThunk).
absl::Status RunDotWithEpilogue(const DotShape& shape, const EpilogueKernel* epilogue,
                                absl::Span<void* const> buffers, runtime::ThreadPool* pool,
                                int64_t staged_dot_buffer, int64_t out_bytes) {
  if (epilogue == nullptr) return RunDot(shape, buffers[0], buffers[1], buffers[2], pool);
  epilogue->CountExecution();
  void* product = buffers[2];
  absl::InlinedVector<void*, 8> kernel_buffers(buffers.begin() + 3, buffers.end());
  if (staged_dot_buffer >= 0) {
    // (Raw storage of any element type: max_align_t units.)
    product = ThreadScratch<std::max_align_t, 9>((out_bytes + sizeof(std::max_align_t) - 1) /
                                                 sizeof(std::max_align_t));
    kernel_buffers[staged_dot_buffer] = product;
  }
  void** kernel_data = kernel_buffers.data();
  const RowEpilogue rows = [epilogue, kernel_data](int64_t begin, int64_t end) {
    epilogue->Run(kernel_data, begin, end);
  };
  return RunDot(shape, buffers[0], buffers[1], product, pool, nullptr, &rows);
}

}  // namespace

absl::Status DotThunk::Execute(const Arena& arena) const {
  std::vector<void*> buffers;
  for (const BufferSlice& slice : Slices()) buffers.push_back(arena.Address(slice));
  return RunDotWithEpilogue(shape_, epilogue_.get(), buffers, &runtime::ThreadPool::Default(),
                            staged_dot_buffer_, out_.size);
}

std::string DotThunk::ToString() const {
  return absl::StrCat("dot ", name(), " ", shape_.ToString(), " (", SliceString(lhs_), ", ",
                      SliceString(rhs_), ") -> ", SliceString(out_),
                      epilogue_ ? " with its epilogue per row panel" : "",
                      staged_dot_buffer_ >= 0 ? " (product staged: the result is an operand)" : "");
}

std::unique_ptr<runtime::Thunk> DotThunk::Lower() const {
  const DotShape shape = shape_;
  const EpilogueKernel* epilogue = epilogue_.get();
  const int64_t staged = staged_dot_buffer_;
  const int64_t out_bytes = out_.size;
  return LowerToHostCall(
      [shape, epilogue, staged, out_bytes](absl::Span<void* const> buffers,
                                           const runtime::ExecuteParams& params) {
        runtime::ThreadPool* pool = PoolOf(params);
        return RunDotWithEpilogue(shape, epilogue, buffers, pool, staged, out_bytes);
      });
}

// ---------------------------------------------------------------------------
// ConvThunk

namespace {

// The convolution over buffers [input, kernel, output, epilogue's...], with
// its epilogue (when not null) per chunk of batch entries.
absl::Status RunConvolutionWithEpilogue(const ConvPlan& plan, const EpilogueKernel* epilogue,
                                        absl::Span<void* const> buffers,
                                        runtime::ThreadPool* pool) {
  if (epilogue == nullptr) return RunConvolution(plan, buffers[0], buffers[1], buffers[2], pool);
  epilogue->CountExecution();
  void* const* kernel_buffers = buffers.data() + 3;
  const RowEpilogue batch = [epilogue, kernel_buffers](int64_t begin, int64_t end) {
    epilogue->Run(const_cast<void**>(kernel_buffers), begin, end);
  };
  return RunConvolution(plan, buffers[0], buffers[1], buffers[2], pool, &batch);
}

}  // namespace

std::vector<BufferSlice> ConvThunk::Slices() const {
  std::vector<BufferSlice> slices = {input_, kernel_, out_};
  slices.insert(slices.end(), epilogue_buffers_.begin(), epilogue_buffers_.end());
  return slices;
}

absl::Status ConvThunk::Execute(const Arena& arena) const {
  std::vector<void*> buffers;
  for (const BufferSlice& slice : Slices()) buffers.push_back(arena.Address(slice));
  return RunConvolutionWithEpilogue(plan_, epilogue_.get(), buffers,
                                    &runtime::ThreadPool::Default());
}

std::string ConvThunk::ToString() const {
  return absl::StrCat("convolution ", name(), " ", plan_.ToString(), " (", SliceString(input_),
                      ", ", SliceString(kernel_), ") -> ", SliceString(out_),
                      epilogue_ ? " with its epilogue per batch chunk" : "");
}

std::unique_ptr<runtime::Thunk> ConvThunk::Lower() const {
  const ConvPlan plan = plan_;
  const EpilogueKernel* epilogue = epilogue_.get();
  return LowerToHostCall(
      [plan, epilogue](absl::Span<void* const> buffers, const runtime::ExecuteParams& params) {
        runtime::ThreadPool* pool = PoolOf(params);
        return RunConvolutionWithEpilogue(plan, epilogue, buffers, pool);
      });
}

// ---------------------------------------------------------------------------
// SortThunk

std::vector<BufferSlice> SortThunk::Slices() const {
  std::vector<BufferSlice> slices = operands_;
  slices.insert(slices.end(), results_.begin(), results_.end());
  return slices;
}

absl::Status SortThunk::Execute(const Arena& arena) const {
  std::vector<const void*> in;
  std::vector<void*> out;
  for (const BufferSlice& slice : operands_) in.push_back(arena.Address(slice));
  for (const BufferSlice& slice : results_) out.push_back(arena.Address(slice));
  return RunSort(plan_, Comparator(), in, out, &runtime::ThreadPool::Default());
}

std::string SortThunk::ToString() const {
  std::vector<std::string> in, out;
  for (const BufferSlice& slice : operands_) in.push_back(SliceString(slice));
  for (const BufferSlice& slice : results_) out.push_back(SliceString(slice));
  return absl::StrCat("sort ", name(), " along ", plan_.dimension, " (", absl::StrJoin(in, ", "),
                      ") -> (", absl::StrJoin(out, ", "), ")",
                      plan_.key.has_value() ? absl::StrCat(" ", plan_.key->ToString()) : "");
}

std::unique_ptr<runtime::Thunk> SortThunk::Lower() const {
  const SortPlan plan = plan_;
  SortComparator* less = Comparator();
  const size_t n = operands_.size();
  return LowerToHostCall(
      [plan, less, n](absl::Span<void* const> buffers, const runtime::ExecuteParams& params) {
        std::vector<const void*> in(buffers.begin(), buffers.begin() + n);
        runtime::ThreadPool* pool = PoolOf(params);
        return RunSort(plan, less, in, buffers.subspan(n), pool);
      });
}

// ---------------------------------------------------------------------------
// TopKThunk

absl::Status TopKThunk::Execute(const Arena& arena) const {
  return RunTopK(type_, rows_, length_, k_, largest_, arena.Address(operand_),
                 arena.Address(values_), reinterpret_cast<int32_t*>(arena.Address(indices_)),
                 &runtime::ThreadPool::Default());
}

std::string TopKThunk::ToString() const {
  return absl::StrCat("topk ", name(), " k=", k_, largest_ ? " largest" : " smallest", " (",
                      SliceString(operand_), ") -> (", SliceString(values_), ", ",
                      SliceString(indices_), ")");
}

std::unique_ptr<runtime::Thunk> TopKThunk::Lower() const {
  const PrimitiveType type = type_;
  const int64_t rows = rows_, length = length_, k = k_;
  const bool largest = largest_;
  return LowerToHostCall([type, rows, length, k, largest](absl::Span<void* const> buffers,
                                                          const runtime::ExecuteParams& params) {
    runtime::ThreadPool* pool = PoolOf(params);
    return RunTopK(type, rows, length, k, largest, buffers[0], buffers[1],
                   static_cast<int32_t*>(buffers[2]), pool);
  });
}

// ---------------------------------------------------------------------------
// FftThunk

absl::Status FftThunk::Execute(const Arena& arena) const {
  return RunFft(plan_, arena.Address(operand_), arena.Address(result_),
                &runtime::ThreadPool::Default());
}

std::string FftThunk::ToString() const {
  return absl::StrCat("fft ", name(), " (", SliceString(operand_), ") -> (", SliceString(result_),
                      ")");
}

std::unique_ptr<runtime::Thunk> FftThunk::Lower() const {
  return LowerToHostCall(
      [plan = plan_](absl::Span<void* const> buffers, const runtime::ExecuteParams& params) {
        runtime::ThreadPool* pool = PoolOf(params);
        return RunFft(plan, buffers[0], buffers[1], pool);
      });
}

// ---------------------------------------------------------------------------
// RngBitGeneratorThunk

absl::Status RngBitGeneratorThunk::Execute(const Arena& arena) const {
  RunRngBitGenerator(plan_, reinterpret_cast<const uint64_t*>(arena.Address(state_)),
                     reinterpret_cast<uint64_t*>(arena.Address(new_state_)), arena.Address(bits_),
                     &runtime::ThreadPool::Default());
  return absl::OkStatus();
}

std::string RngBitGeneratorThunk::ToString() const {
  return absl::StrCat("rng-bit-generator ", name(),
                      plan_.algorithm == RandomAlgorithm::kThreeFry ? " threefry" : " philox", " (",
                      SliceString(state_), ") -> (", SliceString(new_state_), ", ",
                      SliceString(bits_), ")");
}

std::unique_ptr<runtime::Thunk> RngBitGeneratorThunk::Lower() const {
  return LowerToHostCall(
      [plan = plan_](absl::Span<void* const> buffers, const runtime::ExecuteParams& params) {
        runtime::ThreadPool* pool = PoolOf(params);
        RunRngBitGenerator(plan, static_cast<const uint64_t*>(buffers[0]),
                           static_cast<uint64_t*>(buffers[1]), buffers[2], pool);
        return absl::OkStatus();
      });
}

// ---------------------------------------------------------------------------
// LinalgThunk

std::vector<BufferSlice> LinalgThunk::Slices() const {
  std::vector<BufferSlice> slices = operands_;
  slices.insert(slices.end(), results_.begin(), results_.end());
  return slices;
}

absl::Status LinalgThunk::Execute(const Arena& arena) const {
  std::vector<const void*> operands;
  std::vector<void*> results;
  for (const BufferSlice& slice : operands_) operands.push_back(arena.Address(slice));
  for (const BufferSlice& slice : results_) results.push_back(arena.Address(slice));
  return RunLinalg(plan_, operands, results, &runtime::ThreadPool::Default());
}

std::string LinalgThunk::ToString() const {
  std::vector<std::string> operands, results;
  for (const BufferSlice& slice : operands_) operands.push_back(SliceString(slice));
  for (const BufferSlice& slice : results_) results.push_back(SliceString(slice));
  return absl::StrCat("linalg ", name(), " (", absl::StrJoin(operands, ", "), ") -> (",
                      absl::StrJoin(results, ", "), ")");
}

std::unique_ptr<runtime::Thunk> LinalgThunk::Lower() const {
  const size_t operand_count = operands_.size();
  return LowerToHostCall([plan = plan_, operand_count](absl::Span<void* const> buffers,
                                                       const runtime::ExecuteParams& params) {
    runtime::ThreadPool* pool = PoolOf(params);
    std::vector<const void*> operands(buffers.begin(), buffers.begin() + operand_count);
    return RunLinalg(plan, operands, buffers.subspan(operand_count), pool);
  });
}

// ---------------------------------------------------------------------------
// Control flow

namespace {

absl::Status RunSequence(const CpuThunkSequence& thunks, const Arena& arena) {
  for (const std::unique_ptr<CpuThunk>& thunk : thunks) {
    absl::Status status = thunk->Execute(arena);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

void PrintSequence(const CpuThunkSequence& thunks, absl::string_view label, std::string* out) {
  absl::StrAppend(out, "\n  ", label, ":");
  for (const std::unique_ptr<CpuThunk>& thunk : thunks) {
    std::string text = thunk->ToString();
    size_t at = 0;
    while ((at = text.find('\n', at)) != std::string::npos) {
      text.insert(at + 1, "    ");
      at += 5;
    }
    absl::StrAppend(out, "\n    ", text);
  }
}

}  // namespace

absl::Status CopyThunk::Execute(const Arena& arena) const {
  std::memmove(arena.Address(destination_), arena.Address(source_), source_.size);
  return absl::OkStatus();
}

std::string CopyThunk::ToString() const {
  return absl::StrCat("copy ", name(), " ", source_.ToString(), " -> ", destination_.ToString());
}

absl::Status WhileThunk::Execute(const Arena& arena) const {
  absl::Status status = RunSequence(init_, arena);
  if (!status.ok()) return status;
  if (trip_count_.has_value()) {
    for (int64_t i = 0; i < *trip_count_; ++i) TS_RETURN_IF_ERROR(RunSequence(body_, arena));
    return absl::OkStatus();
  }
  for (;;) {
    status = RunSequence(condition_, arena);
    if (!status.ok()) return status;
    if (*reinterpret_cast<const uint8_t*>(arena.Address(predicate_)) == 0) break;
    status = RunSequence(body_, arena);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

std::string WhileThunk::ToString() const {
  std::string out = absl::StrCat("while ", name(),
                                 trip_count_.has_value()
                                     ? absl::StrCat(" (trip count ", *trip_count_, ")")
                                     : absl::StrCat(" (predicate ", predicate_.ToString(), ")"),
                                 " {");
  if (!init_.empty()) PrintSequence(init_, "init", &out);
  PrintSequence(condition_, "condition", &out);
  PrintSequence(body_, "body", &out);
  absl::StrAppend(&out, "\n}");
  return out;
}

absl::Status ConditionalThunk::Execute(const Arena& arena) const {
  const int64_t count = static_cast<int64_t>(branches_.size());
  int64_t branch = 0;
  if (pred_selector_) {
    branch = *reinterpret_cast<const uint8_t*>(arena.Address(selector_)) != 0 ? 0 : 1;
  } else {
    int32_t index;
    std::memcpy(&index, arena.Address(selector_), sizeof(index));
    branch = index < 0 || index >= count ? count - 1 : index;
  }
  return RunSequence(branches_[branch], arena);
}

std::string ConditionalThunk::ToString() const {
  std::string out = absl::StrCat("conditional ", name(), " (", pred_selector_ ? "pred" : "s32",
                                 " selector ", selector_.ToString(), ") {");
  for (size_t b = 0; b < branches_.size(); ++b) {
    PrintSequence(branches_[b], absl::StrCat("branch ", b), &out);
  }
  absl::StrAppend(&out, "\n}");
  return out;
}

// ---------------------------------------------------------------------------
// SequenceThunk

absl::Status SequenceThunk::Execute(const Arena& arena) const {
  for (const std::unique_ptr<CpuThunk>& thunk : thunks_) {
    absl::Status status = thunk->Execute(arena);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

bool SequenceThunk::native() const {
  for (const std::unique_ptr<CpuThunk>& thunk : thunks_) {
    if (!thunk->native()) return false;
  }
  return true;
}

std::string SequenceThunk::ToString() const {
  std::string out = absl::StrCat("sequence ", name(), " {");
  for (const std::unique_ptr<CpuThunk>& thunk : thunks_) {
    absl::StrAppend(&out, "\n  ", thunk->ToString());
  }
  absl::StrAppend(&out, "\n}");
  return out;
}

// ---------------------------------------------------------------------------
// EvaluatorFallbackThunk

EvaluatorFallbackThunk::EvaluatorFallbackThunk(std::string name, std::string reason,
                                               std::unique_ptr<HloComputation> computation,
                                               std::vector<Shape> operand_shapes,
                                               std::vector<std::vector<ArenaLeaf>> operands,
                                               std::vector<ArenaLeaf> results)
    : CpuThunk(std::move(name)),
      reason_(std::move(reason)),
      computation_(std::move(computation)),
      operand_shapes_(std::move(operand_shapes)),
      operands_(std::move(operands)),
      results_(std::move(results)) {}

namespace {

// The value of `shape` (at `prefix`) from its array leaves in the arena.
Literal Assemble(const Arena& arena, const std::vector<ArenaLeaf>& leaves, const Shape& shape,
                 ShapeIndex* prefix) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      prefix->push_back(i);
      elements.push_back(Assemble(arena, leaves, shape.tuple_shapes(i), prefix));
      prefix->pop_back();
    }
    return Literal::MakeTuple(std::move(elements));
  }
  if (shape.IsToken()) return Literal::CreateToken();
  for (const ArenaLeaf& leaf : leaves) {
    if (leaf.index == *prefix) return arena.Read(leaf);
  }
  return Literal(shape);  // not reached: every array leaf has a slice
}

const Literal* Subliteral(const Literal& literal, const ShapeIndex& index) {
  const Literal* current = &literal;
  for (int64_t i : index) {
    if (!current->shape().IsTuple() || i >= current->tuple_size()) return nullptr;
    current = &current->tuple_element(i);
  }
  return current;
}

}  // namespace

absl::Status EvaluatorFallbackThunk::Execute(const Arena& arena) const {
  return Evaluate(arena, EvaluateOptions());
}

std::unique_ptr<runtime::Thunk> EvaluatorFallbackThunk::Lower() const {
  const EvaluatorFallbackThunk* self = this;
  return LowerToHostCall([self](absl::Span<void* const>, const runtime::ExecuteParams& params) {
    RuntimeArena arena(*params.buffers);
    EvaluateOptions options;
    options.cancelled = params.cancelled;
    return self->Evaluate(arena, options);
  });
}

absl::Status EvaluatorFallbackThunk::Evaluate(const Arena& arena,
                                              const EvaluateOptions& options) const {
  std::vector<Literal> operands;
  operands.reserve(operands_.size());
  for (size_t k = 0; k < operands_.size(); ++k) {
    ShapeIndex prefix;
    operands.push_back(Assemble(arena, operands_[k], operand_shapes_[k], &prefix));
  }
  absl::StatusOr<Literal> result = EvaluateComputation(*computation_, operands, options);
  if (!result.ok()) {
    return absl::Status(result.status().code(),
                        absl::StrCat("evaluator fallback for %", name(), ": ",
                                     result.status().message()));
  }
  for (const ArenaLeaf& leaf : results_) {
    const Literal* value = Subliteral(*result, leaf.index);
    if (value == nullptr || !value->shape().IsArray() ||
        value->element_count() != leaf.shape.ElementCount()) {
      return absl::InternalError(absl::StrCat("evaluator fallback for %", name(),
                                              ": no result leaf ", ShapeIndexToString(leaf.index)));
    }
    arena.Write(leaf, *value);
  }
  return absl::OkStatus();
}

std::string EvaluatorFallbackThunk::ToString() const {
  std::vector<std::string> in;
  for (const std::vector<ArenaLeaf>& operand : operands_) {
    for (const ArenaLeaf& leaf : operand) in.push_back(SliceString(leaf.slice));
  }
  std::vector<std::string> out;
  for (const ArenaLeaf& leaf : results_) out.push_back(SliceString(leaf.slice));
  return absl::StrCat("evaluator-fallback ", name(), " (", absl::StrJoin(in, ", "), ") -> (",
                      absl::StrJoin(out, ", "), ")  # ", reason_);
}

// ---------------------------------------------------------------------------
// CpuExecutable

namespace {

absl::Status CheckArgument(const Shape& expected, const Shape& actual, bool* ok) {
  if (expected.IsTuple() != actual.IsTuple() || expected.IsToken() != actual.IsToken()) {
    *ok = false;
  } else if (expected.IsTuple()) {
    if (expected.tuple_size() != actual.tuple_size()) {
      *ok = false;
    } else {
      for (int64_t i = 0; i < expected.tuple_size(); ++i) {
        CheckArgument(expected.tuple_shapes(i), actual.tuple_shapes(i), ok).IgnoreError();
      }
    }
  } else if (expected.IsArray() && (expected.element_type() != actual.element_type() ||
                                    expected.dimensions() != actual.dimensions())) {
    *ok = false;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CpuExecutable::CheckArguments(absl::Span<const Literal> arguments) const {
  const HloComputation* entry = module_->entry_computation();
  if (static_cast<int64_t>(arguments.size()) != entry->num_parameters()) {
    return absl::InvalidArgumentError(absl::StrCat(module_->name(), " takes ",
                                                   entry->num_parameters(), " arguments, got ",
                                                   arguments.size()));
  }
  for (int64_t p = 0; p < entry->num_parameters(); ++p) {
    const HloInstruction* parameter = entry->parameter_instruction(p);
    bool ok = true;
    CheckArgument(parameter->shape(), arguments[p].shape(), &ok).IgnoreError();
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat("parameter ", p, " (", parameter->name(),
                                                     ") expects ", parameter->shape().ToString(),
                                                     ", got ", arguments[p].shape().ToString()));
    }
  }
  return absl::OkStatus();
}

CpuExecutable::~CpuExecutable() {
  // A queued tier-up must not run, nor a running one outlive what it reads
  // (the kernels' computations, the JIT).
  if (tier_up_asked_.load(std::memory_order_acquire)) BackgroundCompiler::Default().Cancel(this);
}

void CpuExecutable::TierUp() const {
  // A kernel run twice is likely to run many times: its LLVM code, and the
  // others', will pay for itself.
  if (tier_up_asked_.exchange(true, std::memory_order_acq_rel)) return;
  if (!background_tier_up_) return GenerateTieredCode();
  if (!BackgroundCompiler::Default().Submit(this, [this] { GenerateTieredCode(); })) {
    std::lock_guard<std::mutex> lock(tier_up_mutex_);
    tier_up_status_ = absl::CancelledError("the process is exiting: no tier-up");
    tier_up_finished_ = true;
    tier_up_done_.notify_all();
  }
}

void CpuExecutable::GenerateTieredCode() const {
  const auto start = std::chrono::steady_clock::now();
  absl::Status status = kernel_compiler_->FinalizeDeferred();
  std::lock_guard<std::mutex> lock(tier_up_mutex_);
  tier_up_status_ = status;
  tier_up_ms_ =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  tiered_up_.store(status.ok(), std::memory_order_release);
  tier_up_finished_ = true;
  tier_up_done_.notify_all();
}

void CpuExecutable::WaitForTierUp() const {
  if (!tier_up_asked_.load(std::memory_order_acquire)) return;
  std::unique_lock<std::mutex> lock(tier_up_mutex_);
  tier_up_done_.wait(lock, [this] { return tier_up_finished_; });
}

absl::Status CpuExecutable::tier_up_status() const {
  std::lock_guard<std::mutex> lock(tier_up_mutex_);
  return tier_up_status_;
}

double CpuExecutable::tier_up_ms() const {
  std::lock_guard<std::mutex> lock(tier_up_mutex_);
  return tier_up_ms_;
}

absl::StatusOr<Literal> CpuExecutable::Run(absl::Span<const Literal> arguments) const {
  TS_RETURN_IF_ERROR(CheckArguments(arguments));
  std::lock_guard<std::mutex> lock(run_mutex_);
  for (size_t p = 0; p < parameters_.size(); ++p) {
    for (const ArenaLeaf& leaf : parameters_[p]) {
      const Literal* value = Subliteral(arguments[p], leaf.index);
      if (value == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat("parameter ", p, " has no leaf ",
                                                       ShapeIndexToString(leaf.index)));
      }
      arena_->Write(leaf, *value);
    }
  }
  for (const auto& [leaf, value] : per_run_constants_) arena_->Write(leaf, *value);
  for (const std::unique_ptr<CpuThunk>& thunk : thunks_) {
    TS_RETURN_IF_ERROR(thunk->Execute(*arena_));
  }
  ShapeIndex prefix;
  return Assemble(*arena_, results_, module_->entry_computation()->root_instruction()->shape(),
                  &prefix);
}

std::string CpuExecutable::ToString() const {
  std::string out;
  for (const std::unique_ptr<CpuThunk>& thunk : thunks_) {
    absl::StrAppend(&out, thunk->ToString(), "\n");
  }
  absl::StrAppend(&out, "native ", stats_.native_instructions, ", fallback ",
                  stats_.fallback_instructions, ", aliasing ", stats_.aliasing_instructions,
                  ", control flow ", stats_.control_flow_instructions,
                  ", arena ", stats_.arena_bytes, " bytes\n");
  return out;
}

}  // namespace cpu
}  // namespace tessera
