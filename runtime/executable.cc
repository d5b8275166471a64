#include "runtime/executable.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace tessera {
namespace runtime {
namespace {

bool Overlap(const void* a, int64_t a_size, const void* b, int64_t b_size) {
  if (a_size <= 0 || b_size <= 0) return false;
  const char* x = static_cast<const char*>(a);
  const char* y = static_cast<const char*>(b);
  return x < y + b_size && y < x + a_size;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Executable>> Executable::Create(
    std::string name, BufferPlan plan, ThunkSequence thunks,
    std::vector<BufferSlice> result_slices, std::vector<std::shared_ptr<const void>> resources) {
  absl::Status status = thunks.Check(plan);
  if (!status.ok()) return status;
  const int64_t result_count = static_cast<int64_t>(result_slices.size());
  for (int64_t r = 0; r < result_count; ++r) {
    status = plan.CheckSlice(result_slices[r]);
    if (!status.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("result ", r, ": ", status.message()));
    }
  }
  for (int64_t i = 0; i < plan.allocation_count(); ++i) {
    const Allocation& allocation = plan.allocation(i);
    if (allocation.kind != Allocation::Kind::kOutput) continue;
    const int64_t r = allocation.result;
    if (r >= result_count) {
      return absl::InvalidArgumentError(absl::StrCat("allocation ", i, " is result ", r,
                                                     " of only ", result_count, " result(s)"));
    }
    const BufferSlice whole{i, 0, allocation.size};
    if (result_slices[r] != whole) {
      return absl::InvalidArgumentError(absl::StrCat("result ", r, " is at ",
                                                     result_slices[r].ToString(),
                                                     ", not its whole output allocation ",
                                                     whole.ToString()));
    }
  }
  return std::unique_ptr<Executable>(new Executable(std::move(name), std::move(plan),
                                                    std::move(thunks), std::move(result_slices),
                                                    std::move(resources)));
}

absl::Status Executable::CheckBuffers(absl::Span<const ArgumentBuffer> arguments,
                                      absl::Span<const ResultBuffer> results) const {
  if (static_cast<int64_t>(arguments.size()) != argument_count()) {
    return absl::InvalidArgumentError(absl::StrCat(name_, " takes ", argument_count(),
                                                   " argument(s), got ", arguments.size()));
  }
  if (static_cast<int64_t>(results.size()) != result_count()) {
    return absl::InvalidArgumentError(absl::StrCat(name_, " has ", result_count(),
                                                   " result(s), got ", results.size(),
                                                   " result buffer(s)"));
  }
  for (int64_t k = 0; k < argument_count(); ++k) {
    const ArgumentBuffer& argument = arguments[k];
    if (argument.size != argument_size(k)) {
      return absl::InvalidArgumentError(absl::StrCat("argument ", k, " has ", argument.size,
                                                     " bytes, expected ", argument_size(k)));
    }
    if (argument.data == nullptr && argument.size > 0) {
      return absl::InvalidArgumentError(absl::StrCat("argument ", k, " is null"));
    }
    if (!argument.donated) continue;
    for (int64_t other = 0; other < argument_count(); ++other) {
      if (other != k &&
          Overlap(argument.data, argument.size, arguments[other].data, arguments[other].size)) {
        return absl::InvalidArgumentError(absl::StrCat("donated argument ", k,
                                                       " overlaps argument ", other));
      }
    }
  }
  for (int64_t r = 0; r < result_count(); ++r) {
    const ResultBuffer& result = results[r];
    if (result.size != result_size(r)) {
      return absl::InvalidArgumentError(absl::StrCat("result ", r, " has ", result.size,
                                                     " bytes, expected ", result_size(r)));
    }
    if (result.data == nullptr && result.size > 0) {
      return absl::InvalidArgumentError(absl::StrCat("result ", r, " is null"));
    }
    for (int64_t other = 0; other < r; ++other) {
      if (Overlap(result.data, result.size, results[other].data, results[other].size)) {
        return absl::InvalidArgumentError(absl::StrCat("result ", r, " overlaps result ", other));
      }
    }
    const BufferSlice& slice = result_slices_[r];
    for (int64_t k = 0; k < argument_count(); ++k) {
      const ArgumentBuffer& argument = arguments[k];
      if (!Overlap(result.data, result.size, argument.data, argument.size)) continue;
      const bool in_place = argument.donated && slice.allocation == plan_.argument_allocation(k) &&
                            result.data == static_cast<const char*>(argument.data) + slice.offset;
      if (!in_place) {
        return absl::InvalidArgumentError(
            absl::StrCat("result ", r, " overlaps argument ", k,
                         argument.donated ? " (donated, but result " : "",
                         argument.donated ? std::to_string(r) : "",
                         argument.donated ? " is not computed in its place)" : ""));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<OwnedBuffer> Executable::TakeArena() const {
  {
    std::lock_guard<std::mutex> lock(arenas_mutex_);
    if (!free_arenas_.empty()) {
      OwnedBuffer arena = std::move(free_arenas_.back());
      free_arenas_.pop_back();
      return arena;
    }
  }
  return OwnedBuffer::TryAllocate(plan_.arena_size(), absl::StrCat("the arena of ", name_));
}

void Executable::ReturnArena(OwnedBuffer arena) const {
  std::lock_guard<std::mutex> lock(arenas_mutex_);
  free_arenas_.push_back(std::move(arena));
}

absl::Status Executable::ExecuteInto(absl::Span<const ArgumentBuffer> arguments,
                                     absl::Span<const ResultBuffer> results,
                                     const RunOptions& options) const {
  absl::Status status = CheckBuffers(arguments, results);
  if (!status.ok()) return status;
  absl::StatusOr<OwnedBuffer> taken = TakeArena();
  if (!taken.ok()) return taken.status();
  OwnedBuffer arena = *std::move(taken);
  absl::StatusOr<BufferAllocations> buffers =
      BufferAllocations::Bind(plan_, arena.data(), arguments, results);
  if (!buffers.ok()) {
    ReturnArena(std::move(arena));
    return buffers.status();
  }
  ExecuteParams params;
  params.buffers = &*buffers;
  params.thread_pool =
      options.thread_pool != nullptr ? options.thread_pool : &ThreadPool::Default();
  params.profile = options.profile;
  params.cancelled = options.cancelled;
  status = thunks_.Execute(params);
  if (status.ok()) {
    for (int64_t r = 0; r < result_count(); ++r) {
      const void* from = buffers->Resolve(result_slices_[r]);
      if (from != results[r].data && results[r].size > 0) {
        std::memcpy(results[r].data, from, results[r].size);
      }
    }
  }
  ReturnArena(std::move(arena));
  return status;
}

absl::StatusOr<std::vector<OwnedBuffer>> Executable::Run(
    absl::Span<const ArgumentBuffer> arguments, const RunOptions& options) const {
  absl::StatusOr<std::vector<OwnedBuffer>> allocated = AllocateResults();
  if (!allocated.ok()) return allocated.status();
  std::vector<OwnedBuffer> results = *std::move(allocated);
  std::vector<ResultBuffer> views(results.begin(), results.end());
  absl::Status status = ExecuteInto(arguments, views, options);
  if (!status.ok()) return status;
  return results;
}

absl::StatusOr<std::vector<OwnedBuffer>> Executable::AllocateResults() const {
  std::vector<OwnedBuffer> results;
  results.reserve(result_slices_.size());
  for (size_t r = 0; r < result_slices_.size(); ++r) {
    absl::StatusOr<OwnedBuffer> buffer =
        OwnedBuffer::TryAllocate(result_slices_[r].size, absl::StrCat("result ", r, " of ", name_));
    if (!buffer.ok()) return buffer.status();
    results.push_back(*std::move(buffer));
  }
  return results;
}

std::string Executable::ToString() const {
  std::string text = absl::StrCat("executable ", name_, "\n", plan_.ToString(), "results: ",
                                  SlicesToString(result_slices_), "\n");
  thunks_.Print(0, &text);
  return text;
}

}  // namespace runtime
}  // namespace tessera
