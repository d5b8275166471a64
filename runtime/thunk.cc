#include "runtime/thunk.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tessera {
namespace runtime {

std::string Thunk::ToString() const {
  std::string text;
  Print(0, &text);
  return text;
}

absl::Status Thunk::CheckSlices(const BufferPlan& plan,
                                absl::Span<const BufferSlice> slices) const {
  for (const BufferSlice& slice : slices) {
    absl::Status status = plan.CheckSlice(slice);
    if (!status.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("thunk ", name_, ": ", status.message()));
    }
  }
  return absl::OkStatus();
}

const char* Thunk::KindName(Kind kind) {
  switch (kind) {
    case Kind::kKernel:
      return "kernel";
    case Kind::kHostCall:
      return "host-call";
    case Kind::kCopy:
      return "copy";
    case Kind::kSequential:
      return "sequential";
    case Kind::kWhile:
      return "while";
    case Kind::kConditional:
      return "conditional";
  }
  return "?";
}

void ThunkProfile::Record(const Thunk& thunk, double ms) {
  auto [it, inserted] = index_.try_emplace(&thunk, entries_.size());
  if (inserted) entries_.push_back(Entry{thunk.name(), Thunk::KindName(thunk.kind())});
  Entry& entry = entries_[it->second];
  ++entry.calls;
  entry.total_ms += ms;
}

std::string ThunkProfile::ToString(int64_t runs, double run_ms) const {
  std::vector<const Entry*> sorted;
  for (const Entry& entry : entries_) sorted.push_back(&entry);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Entry* a, const Entry* b) { return a->total_ms > b->total_ms; });
  const double per = runs > 0 ? 1.0 / static_cast<double>(runs) : 0.0;
  std::string out = absl::StrFormat("  %-12s %10s %7s %8s  %s\n", "kind", "ms/run", "share",
                                    "calls/run", "thunk");
  for (const Entry* entry : sorted) {
    const double ms = entry->total_ms * per;
    absl::StrAppendFormat(&out, "  %-12s %10.4f %6.1f%% %8.1f  %s\n", entry->kind, ms,
                          run_ms > 0 ? 100.0 * ms / run_ms : 0.0,
                          static_cast<double>(entry->calls) * per, entry->name);
  }
  return out;
}

absl::Status ThunkSequence::Execute(const ExecuteParams& params) const {
  for (const std::unique_ptr<Thunk>& thunk : thunks_) {
    if (params.cancelled != nullptr && params.cancelled->load(std::memory_order_relaxed)) {
      return absl::CancelledError(absl::StrCat("the run was cancelled before ", thunk->name()));
    }
    absl::Status status;
    if (params.profile != nullptr) {
      const auto start = std::chrono::steady_clock::now();
      status = thunk->Execute(params);
      params.profile->Record(
          *thunk, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                            start)
                      .count());
    } else {
      status = thunk->Execute(params);
    }
    if (!status.ok()) {
      return absl::Status(status.code(), absl::StrCat(thunk->name(), ": ", status.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status ThunkSequence::Check(const BufferPlan& plan) const {
  for (const std::unique_ptr<Thunk>& thunk : thunks_) {
    absl::Status status = thunk->Check(plan);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

void ThunkSequence::Print(int indent, std::string* out) const {
  for (const std::unique_ptr<Thunk>& thunk : thunks_) thunk->Print(indent, out);
}

std::string ThunkSequence::ToString() const {
  std::string text;
  Print(0, &text);
  return text;
}

absl::Status SequentialThunk::Execute(const ExecuteParams& params) const {
  return thunks_.Execute(params);
}

absl::Status SequentialThunk::Check(const BufferPlan& plan) const { return thunks_.Check(plan); }

void SequentialThunk::Print(int indent, std::string* out) const {
  absl::StrAppend(out, std::string(indent, ' '), "sequential ", name(), "\n");
  thunks_.Print(indent + 2, out);
}

std::string SlicesToString(absl::Span<const BufferSlice> slices) {
  std::string text;
  for (const BufferSlice& slice : slices) {
    if (!text.empty()) text += ", ";
    text += slice.ToString();
  }
  return text;
}

}  // namespace runtime
}  // namespace tessera
