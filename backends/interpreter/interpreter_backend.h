// The interpreter backend: runs a module on the reference evaluator behind
// the same executable interface the compiling backends produce, so tools,
// tests and benchmarks treat every backend alike.  The runtime program is
// one host-call thunk that reads the argument buffers into literals,
// evaluates the entry computation and writes the result leaves; outputs the
// module aliases to parameters (input_output_alias) are written over those
// parameters' buffers when the caller donates them.
//
//   InterpreterBackend backend;
//   TS_ASSIGN_OR_RETURN(std::unique_ptr<HloExecutable> executable, backend.Compile(*module));
//   TS_ASSIGN_OR_RETURN(Literal result, executable->RunLiterals(arguments));
//
// Argument and result buffers are laid out as the module's
// entry_computation_layout says (the entry's own shapes where there is
// none; row-major where a shape has no layout).
#ifndef TESSERA_BACKENDS_INTERPRETER_INTERPRETER_BACKEND_H_
#define TESSERA_BACKENDS_INTERPRETER_INTERPRETER_BACKEND_H_

#include <memory>

#include "absl/status/statusor.h"
#include "backends/common/hlo_executable.h"
#include "hlo/ir/hlo_module.h"

namespace tessera {

class InterpreterBackend {
 public:
  // The module is borrowed: it must outlive the executable.  Errors: no
  // entry computation, an entry_computation_layout that does not match the
  // entry, a layout that is not dense (tiled, packed).  The module is not
  // verified here (the caller does; the evaluator reports what it cannot
  // run, naming the instruction, at run time).
  absl::StatusOr<std::unique_ptr<HloExecutable>> Compile(const HloModule& module) const;
  // The executable keeps the module alive.
  absl::StatusOr<std::unique_ptr<HloExecutable>> Compile(
      std::shared_ptr<const HloModule> module) const;

 private:
  absl::StatusOr<std::unique_ptr<HloExecutable>> Compile(
      const HloModule& module, std::shared_ptr<const HloModule> owned) const;
};


// The entry's parameters (with names) and result as callers lay them out:
// entry_computation_layout's shapes when the module has one (checked
// against the entry's), else the entry's; every array without a layout gets
// the row-major one.
absl::StatusOr<ProgramShape> EntryProgramShape(const HloModule& module);

}  // namespace tessera

#endif  // TESSERA_BACKENDS_INTERPRETER_INTERPRETER_BACKEND_H_
