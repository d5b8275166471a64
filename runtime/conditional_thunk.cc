#include "runtime/conditional_thunk.h"

#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace tessera {
namespace runtime {

int64_t ConditionalThunk::BranchFor(const void* selector) const {
  const int64_t count = static_cast<int64_t>(branches_.size());
  if (selector_type_ == SelectorType::kPred) {
    return *static_cast<const uint8_t*>(selector) != 0 ? 0 : 1;
  }
  int32_t index;
  std::memcpy(&index, selector, sizeof(index));
  return index >= 0 && index < count ? index : count - 1;
}

absl::Status ConditionalThunk::Execute(const ExecuteParams& params) const {
  const int64_t branch = BranchFor(params.buffers->Resolve(selector_));
  return branches_[branch].Execute(params);
}

absl::Status ConditionalThunk::Check(const BufferPlan& plan) const {
  const bool pred = selector_type_ == SelectorType::kPred;
  if (pred ? branches_.size() != 2 : branches_.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("conditional ", name(), " has ",
                                                   branches_.size(), " branch(es)",
                                                   pred ? "; a PRED selector needs 2" : ""));
  }
  const int64_t want = pred ? 1 : 4;
  if (selector_.size != want) {
    return absl::InvalidArgumentError(absl::StrCat("conditional ", name(), ": selector ",
                                                   selector_.ToString(), " is not ", want,
                                                   " byte(s)"));
  }
  absl::Status status = CheckSlices(plan, {selector_});
  if (!status.ok()) return status;
  for (const ThunkSequence& branch : branches_) {
    status = branch.Check(plan);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

void ConditionalThunk::Print(int indent, std::string* out) const {
  const std::string pad(indent, ' ');
  absl::StrAppend(out, pad, "conditional ", name(), " (",
                  selector_type_ == SelectorType::kPred ? "pred" : "s32", " selector ",
                  selector_.ToString(), ")\n");
  for (size_t i = 0; i < branches_.size(); ++i) {
    absl::StrAppend(out, pad, "  branch ", i, ":\n");
    branches_[i].Print(indent + 4, out);
  }
}

}  // namespace runtime
}  // namespace tessera
