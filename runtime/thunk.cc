#include "runtime/thunk.h"

#include "absl/strings/str_cat.h"

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

absl::Status ThunkSequence::Execute(const ExecuteParams& params) const {
  for (const std::unique_ptr<Thunk>& thunk : thunks_) {
    absl::Status status = thunk->Execute(params);
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
