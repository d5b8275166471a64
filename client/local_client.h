// LocalClient: compiles built computations (or any HloModule) for a backend
// of this process and runs them, on literals or on buffers that stay on the
// device between calls (as XLA's PJRT clients do).
//
//   TS_ASSIGN_OR_RETURN(std::unique_ptr<LocalClient> client, LocalClient::Create());
//   TS_ASSIGN_OR_RETURN(std::unique_ptr<LoadedExecutable> step,
//                       client->Compile(computation, {.backend = "cpu"}));
//   TS_ASSIGN_OR_RETURN(Literal result, step->Execute({x, y}));
//
//   // Values that stay on the device: weights updated in place each step.
//   TS_ASSIGN_OR_RETURN(auto w, client->TransferToDevice(initial_weights));
//   ExecuteOptions donate;
//   donate.donated_arguments = {0};
//   TS_ASSIGN_OR_RETURN(auto outputs, step->ExecuteBuffers({w.get(), batch.get()}, donate));
//
// The backends here are host ones ("cpu": LLVM-compiled kernels;
// "interpreter": the reference evaluator), so "device" memory is host
// memory in the layouts the executable wants: a device buffer passed in
// that layout is read where it lies, not copied.
#ifndef TESSERA_CLIENT_LOCAL_CLIENT_H_
#define TESSERA_CLIENT_LOCAL_CLIENT_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/common/hlo_executable.h"
#include "client/xla_builder.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/ir/literal.h"
#include "runtime/buffer.h"

namespace tessera {

struct CompileOptions {
  // "cpu" or "interpreter" (LocalClient::Backends()).
  std::string backend = "cpu";
  // Parameters whose buffers a caller may donate (ExecuteOptions): the
  // compiler may then place outputs over them, updating them in place.
  std::vector<int64_t> donatable_parameters;
  // cpu: polynomial transcendentals (documented ULP bounds) rather than
  // the C library's.
  bool polynomial_math = true;
};

// A value held by a client for one executable parameter or result: its
// array leaves as dense buffers in `shape`'s layout.  Move-only.  A buffer
// donated to a run is consumed (is_deleted()).
class DeviceBuffer {
 public:
  DeviceBuffer(Shape shape, std::vector<runtime::OwnedBuffer> leaves)
      : shape_(std::move(shape)), leaves_(std::move(leaves)) {}

  const Shape& shape() const { return shape_; }
  bool is_deleted() const { return deleted_; }
  int64_t size_bytes() const;
  // Array leaf `i`'s memory (null once deleted).
  const void* leaf_data(int64_t i) const {
    return deleted_ || i < 0 || i >= static_cast<int64_t>(leaves_.size()) ? nullptr
                                                                          : leaves_[i].data();
  }
  // A row-major copy of the value.
  absl::StatusOr<Literal> ToLiteral() const;

 private:
  friend class LoadedExecutable;
  Shape shape_;
  std::vector<runtime::OwnedBuffer> leaves_;
  bool deleted_ = false;
};

struct ExecuteOptions {
  // Arguments (by position) whose buffers the run may overwrite and
  // consume; a result placed over one takes its memory.
  std::vector<int64_t> donated_arguments;
  // When set, another thread may set it to stop the run between its steps
  // (kernels, loop iterations): the run fails with CANCELLED.  An op that
  // runs on the evaluator finishes first.
  const std::atomic<bool>* cancelled = nullptr;
};

class LoadedExecutable {
 public:
  explicit LoadedExecutable(std::unique_ptr<HloExecutable> executable)
      : executable_(std::move(executable)) {}

  const ProgramShape& program_shape() const { return executable_->program_shape(); }
  const std::string& name() const { return executable_->name(); }
  const HloExecutable& executable() const { return *executable_; }

  // Runs on literals; the result is the program's result (a tuple for
  // several outputs).  Wrong argument counts, types or shapes are
  // InvalidArgument errors naming the parameter.
  absl::StatusOr<Literal> Execute(absl::Span<const Literal> arguments,
                                  const ExecuteOptions& options = {}) const;

  // Runs on device buffers; returns one buffer per output (the elements of
  // a tuple result, else the one result).  Safe to call from many threads
  // with different donated buffers.
  absl::StatusOr<std::vector<std::unique_ptr<DeviceBuffer>>> ExecuteBuffers(
      absl::Span<DeviceBuffer* const> arguments, const ExecuteOptions& options = {}) const;

 private:
  std::unique_ptr<HloExecutable> executable_;
};

class LocalClient {
 public:
  static absl::StatusOr<std::unique_ptr<LocalClient>> Create();

  // The backends Compile accepts.
  static std::vector<std::string> Backends();

  absl::StatusOr<std::unique_ptr<LoadedExecutable>> Compile(
      const XlaComputation& computation, const CompileOptions& options = {}) const;
  // Verifies and compiles `module` (the backend's pipeline optimizes it).
  absl::StatusOr<std::unique_ptr<LoadedExecutable>> Compile(
      std::unique_ptr<HloModule> module, const CompileOptions& options = {}) const;

  // `literal` as a device buffer (row-major).
  absl::StatusOr<std::unique_ptr<DeviceBuffer>> TransferToDevice(const Literal& literal) const;

 private:
  LocalClient() = default;
};

}  // namespace tessera

#endif  // TESSERA_CLIENT_LOCAL_CLIENT_H_
