#include "runtime/kernel_thunk.h"

#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"

namespace tessera {
namespace runtime {
namespace {

using Addresses = absl::InlinedVector<void*, 16>;

Addresses Resolve(const BufferAllocations& buffers, absl::Span<const BufferSlice> slices) {
  Addresses addresses(slices.size());
  for (size_t i = 0; i < slices.size(); ++i) addresses[i] = buffers.Resolve(slices[i]);
  return addresses;
}

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

absl::Status KernelThunk::Execute(const ExecuteParams& params) const {
  if (work_size_ == 0) return absl::OkStatus();
  Addresses addresses = Resolve(*params.buffers, buffers_);
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
  Addresses addresses = Resolve(*params.buffers, buffers_);
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
