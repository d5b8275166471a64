// CopyThunk: copies one slice's bytes to another (a `copy` the compiler
// could not elide, a loop state or output that needs its own buffer).
// Large copies are split over the thread pool.
#ifndef TESSERA_RUNTIME_COPY_THUNK_H_
#define TESSERA_RUNTIME_COPY_THUNK_H_

#include <string>

#include "runtime/thunk.h"

namespace tessera {
namespace runtime {

class CopyThunk : public Thunk {
 public:
  // Source and destination must have the same size; they may overlap.
  CopyThunk(std::string name, BufferSlice source, BufferSlice destination)
      : Thunk(Kind::kCopy, std::move(name)), source_(source), destination_(destination) {}

  const BufferSlice& source() const { return source_; }
  const BufferSlice& destination() const { return destination_; }

  absl::Status Execute(const ExecuteParams& params) const override;
  absl::Status Check(const BufferPlan& plan) const override;
  // "copy copy.1 a0[0, 64) -> a2[64, 128)"
  void Print(int indent, std::string* out) const override;

 private:
  BufferSlice source_;
  BufferSlice destination_;
};

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_COPY_THUNK_H_
