// HloExecutable: a compiled program as an HLO user sees it, values in and
// out as Literals, over the runtime::Executable every backend produces
// (raw buffers, one per array leaf).  The program shape says how each leaf
// lies in its buffer (its layout; row-major when it has none).
//
//   TS_ASSIGN_OR_RETURN(std::unique_ptr<HloExecutable> executable,
//                       InterpreterBackend().Compile(*module));
//   TS_ASSIGN_OR_RETURN(Literal result, executable->RunLiterals(arguments));
//
//   // Steady state (benchmarks, serving): convert once, run many times.
//   TS_ASSIGN_OR_RETURN(auto inputs, executable->ArgumentsToBuffers(arguments));
//   std::vector<runtime::ArgumentBuffer> in(inputs.begin(), inputs.end());
//   TS_ASSIGN_OR_RETURN(std::vector<runtime::OwnedBuffer> outputs,
//                       executable->executable().AllocateResults());
//   std::vector<runtime::ResultBuffer> out(outputs.begin(), outputs.end());
//   for (...) TS_RETURN_IF_ERROR(executable->executable().ExecuteInto(in, out));
//   TS_ASSIGN_OR_RETURN(Literal result, executable->ResultFromBuffers(outputs));
#ifndef TESSERA_BACKENDS_COMMON_HLO_EXECUTABLE_H_
#define TESSERA_BACKENDS_COMMON_HLO_EXECUTABLE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/literal.h"
#include "runtime/buffer.h"
#include "runtime/executable.h"

namespace tessera {

class HloExecutable {
 public:
  // `program_shape`: the entry's parameters (with names) and result, with
  // the layouts of the raw buffers.  Checks that the array leaves match the
  // executable's arguments and results in number and byte size, and that
  // every layout is dense (CheckDenseLayouts).
  static absl::StatusOr<std::unique_ptr<HloExecutable>> Create(
      ProgramShape program_shape, std::unique_ptr<runtime::Executable> executable);

  const ProgramShape& program_shape() const { return program_shape_; }
  const runtime::Executable& executable() const { return *executable_; }
  const std::string& name() const { return executable_->name(); }

  // InvalidArgument unless `arguments` match the parameters in number,
  // element type and dimensions (layouts are ignored: literals are
  // row-major); the message names the parameter:
  // "parameter 1 (y) expects f32[3], got f32[4]".
  absl::Status CheckArguments(absl::Span<const Literal> arguments) const;

  // Checks, converts, runs and converts back.  The result has the program's
  // result shape (and layout, as metadata).
  absl::StatusOr<Literal> RunLiterals(absl::Span<const Literal> arguments,
                                      const runtime::RunOptions& options = {}) const;

  // The arguments as the executable's argument buffers (checked as
  // CheckArguments does), one per array leaf, in the parameters' layouts.
  absl::StatusOr<std::vector<runtime::OwnedBuffer>> ArgumentsToBuffers(
      absl::Span<const Literal> arguments) const;
  // The result from the executable's result buffers (sizes checked).
  absl::StatusOr<Literal> ResultFromBuffers(absl::Span<const runtime::OwnedBuffer> results) const;

  // The runtime executable's plan and thunks, after the program shape.
  std::string ToString() const;

 private:
  HloExecutable(ProgramShape program_shape, std::unique_ptr<runtime::Executable> executable);

  ProgramShape program_shape_;
  std::unique_ptr<runtime::Executable> executable_;
  std::vector<std::vector<const Shape*>> parameter_leaves_;  // by parameter
  std::vector<const Shape*> result_leaves_;
};

}  // namespace tessera

#endif  // TESSERA_BACKENDS_COMMON_HLO_EXECUTABLE_H_
