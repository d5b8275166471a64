// WhileThunk: a loop.  Each iteration runs the condition sequence, reads the
// predicate it wrote (one byte: zero is false), and stops or runs the body
// sequence.  With a trip count known at compile time the condition is
// skipped and the body runs that many times.  The loop state lives where
// the compiler put it: the body reads and writes the same slices.
#ifndef TESSERA_RUNTIME_WHILE_THUNK_H_
#define TESSERA_RUNTIME_WHILE_THUNK_H_

#include <cstdint>
#include <optional>
#include <string>

#include "runtime/thunk.h"

namespace tessera {
namespace runtime {

class WhileThunk : public Thunk {
 public:
  WhileThunk(std::string name, ThunkSequence condition, BufferSlice predicate, ThunkSequence body,
             std::optional<int64_t> trip_count = std::nullopt)
      : Thunk(Kind::kWhile, std::move(name)),
        condition_(std::move(condition)),
        predicate_(predicate),
        body_(std::move(body)),
        trip_count_(trip_count) {}

  const ThunkSequence& condition() const { return condition_; }
  const BufferSlice& predicate() const { return predicate_; }
  const ThunkSequence& body() const { return body_; }
  const std::optional<int64_t>& trip_count() const { return trip_count_; }

  absl::Status Execute(const ExecuteParams& params) const override;
  // Also: the predicate has at least one byte (unless the trip count is
  // known), and a known trip count is not negative.
  absl::Status Check(const BufferPlan& plan) const override;
  // "while w (predicate a3[0, 1))", then "condition:" and "body:" with
  // their thunks indented.
  void Print(int indent, std::string* out) const override;

 private:
  ThunkSequence condition_;
  BufferSlice predicate_;
  ThunkSequence body_;
  std::optional<int64_t> trip_count_;
};

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_WHILE_THUNK_H_
