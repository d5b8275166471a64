#include "runtime/kernel_thunk.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"

namespace tessera {
namespace runtime {
namespace {

// The addresses of a thunk's slices, on the stack up to a chain of small
// kernels' worth (KernelThunk::Chain), built in place: a loop of small
// kernels pays this per iteration (returning an InlinedVector of them was
// a quarter of a scalar loop's time).
class Addresses {
 public:
  Addresses(const BufferAllocations& buffers, absl::Span<const BufferSlice> slices)
      : size_(slices.size()) {
    if (size_ > kOnStack) {
      on_heap_ = std::make_unique<void*[]>(size_);
      data_ = on_heap_.get();
    }
    for (size_t i = 0; i < size_; ++i) data_[i] = buffers.Resolve(slices[i]);
  }
  Addresses(const Addresses&) = delete;
  Addresses& operator=(const Addresses&) = delete;

  void** data() { return data_; }
  size_t size() const { return size_; }

 private:
  static constexpr size_t kOnStack = 64;
  void* on_stack_[kOnStack];
  std::unique_ptr<void*[]> on_heap_;
  void** data_ = on_stack_;
  size_t size_;
};

}  // namespace

KernelThunk::KernelThunk(std::string name, std::vector<BufferSlice> buffers, Function* fn)
    : KernelThunk(std::move(name), std::move(buffers),
                  fn == nullptr ? Callable()
                                : Callable([fn](void** addresses, int64_t, int64_t) { fn(addresses); }),
                  1, 1) {}

KernelThunk::KernelThunk(std::string name, std::vector<BufferSlice> buffers,
                         PartitionedFunction* fn, int64_t work_size, int64_t partitions)
    : KernelThunk(std::move(name), std::move(buffers), Callable(fn), work_size, partitions) {}

KernelThunk::KernelThunk(std::string name, std::vector<BufferSlice> buffers, Callable fn,
                         int64_t work_size, int64_t partitions)
    : Thunk(Kind::kKernel, std::move(name)),
      buffers_(std::move(buffers)),
      fn_(std::move(fn)),
      work_size_(work_size),
      partitions_(partitions) {}

std::unique_ptr<KernelThunk> KernelThunk::Chain(std::vector<std::unique_ptr<KernelThunk>> kernels) {
  struct Part {
    Callable fn;
    size_t first_buffer;
    int64_t work_size;
  };
  std::vector<Part> parts;
  std::vector<BufferSlice> buffers;
  std::string name;
  for (std::unique_ptr<KernelThunk>& kernel : kernels) {
    absl::StrAppend(&name, name.empty() ? "" : " + ", kernel->name());
    if (kernel->work_size_ > 0) {
      parts.push_back({std::move(kernel->fn_), buffers.size(), kernel->work_size_});
    }
    buffers.insert(buffers.end(), kernel->buffers_.begin(), kernel->buffers_.end());
  }
  return std::make_unique<KernelThunk>(
      std::move(name), std::move(buffers),
      [parts = std::move(parts)](void** addresses, int64_t, int64_t) {
        for (const Part& part : parts) part.fn(addresses + part.first_buffer, 0, part.work_size);
      });
}

absl::Status KernelThunk::Execute(const ExecuteParams& params) const {
  if (work_size_ == 0) return absl::OkStatus();
  Addresses addresses(*params.buffers, buffers_);
  void** data = addresses.data();
  if (partitions_ <= 1 || work_size_ <= 1) {
    fn_(data, 0, work_size_);
    return absl::OkStatus();
  }
  const int64_t block_size = (work_size_ + partitions_ - 1) / partitions_;
  params.thread_pool->ParallelFor(work_size_, block_size,
                                  [&](int64_t begin, int64_t end) { fn_(data, begin, end); });
  return absl::OkStatus();
}

void KernelThunk::ResolveSlices(const BufferAllocations& allocations, void** addresses) const {
  for (size_t i = 0; i < buffers_.size(); ++i) addresses[i] = allocations.Resolve(buffers_[i]);
}

absl::Status KernelThunk::Check(const BufferPlan& plan) const {
  if (!fn_) return absl::InvalidArgumentError(absl::StrCat("kernel ", name(), " has no function"));
  if (work_size_ < 0 || partitions_ < 1) {
    return absl::InvalidArgumentError(absl::StrCat("kernel ", name(), ": work size ", work_size_,
                                                   " in ", partitions_, " partitions"));
  }
  return CheckSlices(plan, buffers_);
}

void KernelThunk::Print(int indent, std::string* out) const {
  absl::StrAppend(out, std::string(indent, ' '), "kernel ", name(), " (",
                  SlicesToString(buffers_), ")");
  if (partitions_ > 1) absl::StrAppend(out, " work ", work_size_, " in ", partitions_, " partitions");
  absl::StrAppend(out, "\n");
}

absl::Status HostCallThunk::Execute(const ExecuteParams& params) const {
  Addresses addresses(*params.buffers, buffers_);
  return fn_(absl::Span<void* const>(addresses.data(), addresses.size()), params);
}

absl::Status HostCallThunk::Check(const BufferPlan& plan) const {
  if (!fn_) {
    return absl::InvalidArgumentError(absl::StrCat("host call ", name(), " has no function"));
  }
  return CheckSlices(plan, buffers_);
}

void HostCallThunk::Print(int indent, std::string* out) const {
  absl::StrAppend(out, std::string(indent, ' '), "host-call ", name(), " (",
                  SlicesToString(buffers_), ")\n");
}

}  // namespace runtime
}  // namespace tessera
