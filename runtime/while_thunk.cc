#include "runtime/while_thunk.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace tessera {
namespace runtime {

namespace {

// Each iteration may be the last a cancelled run makes (even one whose
// condition and body are empty).
absl::Status CheckCancelled(const ExecuteParams& params, const std::string& name) {
  if (params.cancelled != nullptr && params.cancelled->load(std::memory_order_relaxed)) {
    return absl::CancelledError(absl::StrCat("the run was cancelled in loop ", name));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WhileThunk::Execute(const ExecuteParams& params) const {
  if (trip_count_.has_value()) {
    for (int64_t i = 0; i < *trip_count_; ++i) {
      if (absl::Status cancelled = CheckCancelled(params, name()); !cancelled.ok()) {
        return cancelled;
      }
      absl::Status status = body_.Execute(params);
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }
  const uint8_t* predicate = static_cast<const uint8_t*>(params.buffers->Resolve(predicate_));
  while (true) {
    if (absl::Status cancelled = CheckCancelled(params, name()); !cancelled.ok()) {
      return cancelled;
    }
    absl::Status status = condition_.Execute(params);
    if (!status.ok()) return status;
    if (*predicate == 0) return absl::OkStatus();
    status = body_.Execute(params);
    if (!status.ok()) return status;
  }
}

absl::Status WhileThunk::Check(const BufferPlan& plan) const {
  if (trip_count_.has_value()) {
    if (*trip_count_ < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("while ", name(), ": negative trip count ", *trip_count_));
    }
  } else {
    if (predicate_.size < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "while ", name(), ": predicate ", predicate_.ToString(), " has no byte to read"));
    }
    absl::Status status = CheckSlices(plan, {predicate_});
    if (!status.ok()) return status;
  }
  absl::Status status = condition_.Check(plan);
  if (!status.ok()) return status;
  return body_.Check(plan);
}

void WhileThunk::Print(int indent, std::string* out) const {
  const std::string pad(indent, ' ');
  if (trip_count_.has_value()) {
    absl::StrAppend(out, pad, "while ", name(), " (trip count ", *trip_count_, ")\n");
  } else {
    absl::StrAppend(out, pad, "while ", name(), " (predicate ", predicate_.ToString(), ")\n");
    absl::StrAppend(out, pad, "  condition:\n");
    condition_.Print(indent + 4, out);
  }
  absl::StrAppend(out, pad, "  body:\n");
  body_.Print(indent + 4, out);
}

}  // namespace runtime
}  // namespace tessera
