#include "runtime/copy_thunk.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace tessera {
namespace runtime {
namespace {

// Below this a copy is not worth waking other threads for.
constexpr int64_t kParallelCopyBytes = int64_t{1} << 20;
constexpr int64_t kCopyBlockBytes = int64_t{256} << 10;

}  // namespace

absl::Status CopyThunk::Execute(const ExecuteParams& params) const {
  const int64_t size = source_.size;
  if (size == 0) return absl::OkStatus();
  const char* from = static_cast<const char*>(params.buffers->Resolve(source_));
  char* to = static_cast<char*>(params.buffers->Resolve(destination_));
  if (from == to) return absl::OkStatus();
  const bool overlap = from < to + size && to < from + size;
  if (overlap || size < kParallelCopyBytes || params.thread_pool->parallelism() == 1) {
    std::memmove(to, from, size);
    return absl::OkStatus();
  }
  params.thread_pool->ParallelFor(size, kCopyBlockBytes, [&](int64_t begin, int64_t end) {
    std::memcpy(to + begin, from + begin, end - begin);
  });
  return absl::OkStatus();
}

absl::Status CopyThunk::Check(const BufferPlan& plan) const {
  if (source_.size != destination_.size) {
    return absl::InvalidArgumentError(absl::StrCat("copy ", name(), ": source ",
                                                   source_.ToString(), " and destination ",
                                                   destination_.ToString(), " differ in size"));
  }
  return CheckSlices(plan, {source_, destination_});
}

void CopyThunk::Print(int indent, std::string* out) const {
  absl::StrAppend(out, std::string(indent, ' '), "copy ", name(), " ", source_.ToString(), " -> ",
                  destination_.ToString(), "\n");
}

}  // namespace runtime
}  // namespace tessera
