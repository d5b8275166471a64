#include "backends/interpreter/interpreter_backend.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/common/literal_buffers.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/status_macros.h"
#include "runtime/buffer_allocations.h"
#include "runtime/executable.h"
#include "runtime/kernel_thunk.h"

namespace tessera {
namespace {

// A program that maps argument literals to the result literal, stopping
// once `cancelled` (the run's flag, or null) is set.
using LiteralProgram = std::function<absl::StatusOr<Literal>(std::vector<Literal> arguments,
                                                             const std::atomic<bool>* cancelled)>;

absl::StatusOr<std::unique_ptr<HloExecutable>> CompileLiteralProgram(
    const HloModule& module, LiteralProgram program, std::shared_ptr<const void> owned);

// The position of the array leaf at `index` of shapes[which] among all
// array leaves of `shapes`, in order; -1 when that is not an array leaf.
int64_t LeafNumber(absl::Span<const Shape> shapes, int64_t which, const ShapeIndex& index) {
  int64_t number = 0;
  for (int64_t i = 0; i < static_cast<int64_t>(shapes.size()); ++i) {
    int64_t found = -1;
    ForEachSubshape(shapes[i], [&](const Shape& subshape, const ShapeIndex& at) {
      if (!subshape.IsArray()) return;
      if (i == which && at == index) found = number;
      ++number;
    });
    if (found >= 0) return found;
  }
  return -1;
}

// Reads the arguments, evaluates, writes the results.  `buffers` holds the
// argument leaves, then the result leaves.
absl::Status Evaluate(const LiteralProgram& program, const ProgramShape& program_shape,
                      absl::Span<void* const> buffers, const std::atomic<bool>* cancelled) {
  std::vector<Literal> arguments;
  arguments.reserve(program_shape.parameters.size());
  size_t next = 0;
  for (const Shape& parameter : program_shape.parameters) {
    TS_ASSIGN_OR_RETURN(Literal argument, Literal::CreateFromShape(parameter));
    std::vector<const Shape*> shapes = ArrayLeafShapes(parameter);
    std::vector<Literal*> leaves = MutableArrayLeaves(&argument);
    for (size_t j = 0; j < leaves.size(); ++j) {
      CopyBufferToLiteral(buffers[next++], *shapes[j], leaves[j]);
    }
    arguments.push_back(std::move(argument));
  }
  TS_ASSIGN_OR_RETURN(Literal result, program(std::move(arguments), cancelled));
  if (!ShapesCompatible(result.shape(), program_shape.result)) {
    return absl::InternalError(absl::StrCat("the evaluator's result ", result.shape().ToString(),
                                            " is not the program's ",
                                            program_shape.result.ToString()));
  }
  std::vector<const Shape*> shapes = ArrayLeafShapes(program_shape.result);
  std::vector<const Literal*> leaves = ArrayLeaves(result);
  for (size_t r = 0; r < leaves.size(); ++r) {
    CopyLiteralToBuffer(*leaves[r], *shapes[r], buffers[next++]);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ProgramShape> EntryProgramShape(const HloModule& module) {
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("module ", module.name(), " has no entry computation"));
  }
  ProgramShape program_shape = entry->ComputeProgramShape();
  if (module.config().entry_computation_layout.has_value()) {
    const ProgramShape& layout = *module.config().entry_computation_layout;
    if (layout.parameters.size() != program_shape.parameters.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("entry_computation_layout has ", layout.parameters.size(),
                       " parameter(s); the entry computation has ",
                       program_shape.parameters.size()));
    }
    for (size_t i = 0; i < layout.parameters.size(); ++i) {
      if (!ShapesCompatible(layout.parameters[i], program_shape.parameters[i])) {
        return absl::InvalidArgumentError(absl::StrCat(
            "entry_computation_layout parameter ", i, " ", layout.parameters[i].ToString(true),
            " does not match parameter ", program_shape.parameter_names[i], " ",
            program_shape.parameters[i].ToString(true)));
      }
      program_shape.parameters[i] = layout.parameters[i];
    }
    if (!ShapesCompatible(layout.result, program_shape.result)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "entry_computation_layout result ", layout.result.ToString(true),
          " does not match the root's ", program_shape.result.ToString(true)));
    }
    program_shape.result = layout.result;
  }
  for (Shape& parameter : program_shape.parameters) parameter.SetDefaultLayoutRecursively();
  program_shape.result.SetDefaultLayoutRecursively();
  return program_shape;
}

absl::StatusOr<std::unique_ptr<HloExecutable>> InterpreterBackend::Compile(
    const HloModule& module) const {
  return Compile(module, nullptr);
}

absl::StatusOr<std::unique_ptr<HloExecutable>> InterpreterBackend::Compile(
    std::shared_ptr<const HloModule> module) const {
  if (module == nullptr) return absl::InvalidArgumentError("no module");
  const HloModule& borrowed = *module;
  return Compile(borrowed, std::move(module));
}

absl::StatusOr<std::unique_ptr<HloExecutable>> InterpreterBackend::Compile(
    const HloModule& module, std::shared_ptr<const HloModule> owned) const {
  const HloModule* evaluated = &module;
  return CompileLiteralProgram(
      module,
      [evaluated](std::vector<Literal> arguments, const std::atomic<bool>* cancelled) {
        EvaluateOptions options;
        options.cancelled = cancelled;
        return EvaluateModule(*evaluated, arguments, options);
      },
      std::move(owned));
}

namespace {

// Puts a literal-level program with `module`'s entry signature behind the
// executable interface: one host-call thunk that reads the argument buffers
// into literals, runs `program`, and writes the result buffers.  `owned`
// lives as long as the executable.
absl::StatusOr<std::unique_ptr<HloExecutable>> CompileLiteralProgram(
    const HloModule& module, LiteralProgram program, std::shared_ptr<const void> owned) {
  TS_ASSIGN_OR_RETURN(ProgramShape program_shape, EntryProgramShape(module));
  for (size_t i = 0; i < program_shape.parameters.size(); ++i) {
    absl::Status status = CheckDenseLayouts(program_shape.parameters[i]);
    if (!status.ok()) {
      return absl::Status(status.code(),
                          absl::StrCat("parameter ", i, " (", program_shape.parameter_names[i],
                                       "): ", status.message()));
    }
  }
  TS_RETURN_IF_ERROR(CheckDenseLayouts(program_shape.result));

  // One allocation per argument leaf, in order.
  std::vector<runtime::Allocation> allocations;
  std::vector<int64_t> argument_sizes;
  for (const Shape& parameter : program_shape.parameters) {
    for (const Shape* leaf : ArrayLeafShapes(parameter)) argument_sizes.push_back(leaf->ByteSize());
  }
  const int64_t argument_count = static_cast<int64_t>(argument_sizes.size());
  for (int64_t k = 0; k < argument_count; ++k) {
    allocations.push_back(runtime::Allocation::Parameter(k, argument_sizes[k]));
  }

  // Result leaves the module aliases to a parameter leaf of the same size
  // live in that parameter's allocation.
  std::vector<const Shape*> result_leaves = ArrayLeafShapes(program_shape.result);
  const int64_t result_count = static_cast<int64_t>(result_leaves.size());
  std::vector<int64_t> aliased_argument(result_count, -1);
  std::vector<bool> argument_taken(argument_count, false);
  const std::vector<Shape> results_as_list = {program_shape.result};
  for (const InputOutputAlias& alias : module.config().input_output_alias) {
    const int64_t r = LeafNumber(results_as_list, 0, alias.output_index);
    const int64_t k =
        LeafNumber(program_shape.parameters, alias.parameter_number, alias.parameter_index);
    if (r < 0 || k < 0 || aliased_argument[r] >= 0 || argument_taken[k] ||
        argument_sizes[k] != result_leaves[r]->ByteSize()) {
      continue;  // Not an array leaf pair we can share; the output gets its own buffer.
    }
    aliased_argument[r] = k;
    argument_taken[k] = true;
    allocations[k].donated = true;
  }
  std::vector<runtime::BufferSlice> result_slices;
  for (int64_t r = 0; r < result_count; ++r) {
    const int64_t size = result_leaves[r]->ByteSize();
    if (aliased_argument[r] >= 0) {
      result_slices.push_back({aliased_argument[r], 0, size});
    } else {
      result_slices.push_back({static_cast<int64_t>(allocations.size()), 0, size});
      allocations.push_back(runtime::Allocation::Output(r, size));
    }
  }
  TS_ASSIGN_OR_RETURN(runtime::BufferPlan plan, runtime::BufferPlan::Create(std::move(allocations)));

  std::vector<runtime::BufferSlice> slices;
  for (int64_t k = 0; k < argument_count; ++k) slices.push_back({k, 0, argument_sizes[k]});
  slices.insert(slices.end(), result_slices.begin(), result_slices.end());
  runtime::ThunkSequence thunks;
  thunks.Emplace<runtime::HostCallThunk>(
      absl::StrCat("evaluate ", module.name()), std::move(slices),
      [program = std::move(program), program_shape](absl::Span<void* const> buffers,
                                                    const runtime::ExecuteParams& params) {
        return Evaluate(program, program_shape, buffers, params.cancelled);
      });
  std::vector<std::shared_ptr<const void>> resources;
  if (owned != nullptr) resources.push_back(std::move(owned));
  TS_ASSIGN_OR_RETURN(std::unique_ptr<runtime::Executable> executable,
                      runtime::Executable::Create(module.name(), std::move(plan), std::move(thunks),
                                                  std::move(result_slices), std::move(resources)));
  return HloExecutable::Create(std::move(program_shape), std::move(executable));
}

}  // namespace

}  // namespace tessera
