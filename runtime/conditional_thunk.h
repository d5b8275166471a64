// ConditionalThunk: runs one of N thunk sequences, chosen at run time by a
// branch index the program computed, with XLA's `conditional` semantics:
// - a PRED selector (one byte, zero is false): true runs branch 0, false
//   runs branch 1 (exactly two branches);
// - an S32 selector: branch i for 0 <= i < N, and any other value runs the
//   last branch, N - 1.
#ifndef TESSERA_RUNTIME_CONDITIONAL_THUNK_H_
#define TESSERA_RUNTIME_CONDITIONAL_THUNK_H_

#include <string>
#include <vector>

#include "runtime/thunk.h"

namespace tessera {
namespace runtime {

class ConditionalThunk : public Thunk {
 public:
  enum class SelectorType { kPred, kS32 };

  ConditionalThunk(std::string name, BufferSlice selector, SelectorType selector_type,
                   std::vector<ThunkSequence> branches)
      : Thunk(Kind::kConditional, std::move(name)),
        selector_(selector),
        selector_type_(selector_type),
        branches_(std::move(branches)) {}

  const BufferSlice& selector() const { return selector_; }
  SelectorType selector_type() const { return selector_type_; }
  const std::vector<ThunkSequence>& branches() const { return branches_; }

  // The branch a selector value picks (the rules above).
  int64_t BranchFor(const void* selector) const;

  absl::Status Execute(const ExecuteParams& params) const override;
  // Also: at least one branch (exactly two for PRED), and a selector of 1
  // (PRED) or 4 (S32) bytes.
  absl::Status Check(const BufferPlan& plan) const override;
  // "conditional c (s32 selector a0[0, 4))", then "branch 0:" ... with
  // their thunks indented.
  void Print(int indent, std::string* out) const override;

 private:
  BufferSlice selector_;
  SelectorType selector_type_;
  std::vector<ThunkSequence> branches_;
};

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_CONDITIONAL_THUNK_H_
