#include "client/local_client.h"

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/common/literal_buffers.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/interpreter/interpreter_backend.h"
#include "hlo/analysis/hlo_verifier.h"
#include "hlo/ir/status_macros.h"

namespace tessera {
namespace {

// Every array leaf index of `shape` ({} for an array).
void LeafIndices(const Shape& shape, ShapeIndex* prefix, std::vector<ShapeIndex>* out) {
  if (!shape.IsTuple()) {
    if (shape.IsArray()) out->push_back(*prefix);
    return;
  }
  for (int64_t i = 0; i < shape.tuple_size(); ++i) {
    prefix->push_back(i);
    LeafIndices(shape.tuple_shapes(i), prefix, out);
    prefix->pop_back();
  }
}

// A buffer holding `shape`'s array leaves, zeroed; ResourceExhausted
// where memory runs out.
absl::StatusOr<std::vector<runtime::OwnedBuffer>> AllocateLeaves(const Shape& shape) {
  std::vector<runtime::OwnedBuffer> leaves;
  for (const Shape* leaf : ArrayLeafShapes(shape)) {
    TS_ASSIGN_OR_RETURN(runtime::OwnedBuffer buffer,
                        runtime::OwnedBuffer::TryAllocate(
                            leaf->ByteSize(), absl::StrCat("a leaf of ", shape.ToString())));
    leaves.push_back(std::move(buffer));
  }
  return leaves;
}

}  // namespace

// ---------------------------------------------------------------------------
// DeviceBuffer
// ---------------------------------------------------------------------------

int64_t DeviceBuffer::size_bytes() const {
  int64_t total = 0;
  for (const runtime::OwnedBuffer& leaf : leaves_) total += leaf.size();
  return total;
}

absl::StatusOr<Literal> DeviceBuffer::ToLiteral() const {
  if (deleted_) return absl::FailedPreconditionError("the buffer was donated to a run");
  Shape row_major = shape_;
  row_major.ClearLayoutRecursively();
  row_major.SetDefaultLayoutRecursively();
  TS_ASSIGN_OR_RETURN(Literal literal, Literal::CreateFromShape(row_major));
  std::vector<Literal*> values = MutableArrayLeaves(&literal);
  std::vector<const Shape*> layouts = ArrayLeafShapes(shape_);
  for (size_t i = 0; i < values.size(); ++i) {
    CopyBufferToLiteral(leaves_[i].data(), *layouts[i], values[i]);
  }
  return literal;
}

// ---------------------------------------------------------------------------
// LoadedExecutable
// ---------------------------------------------------------------------------

absl::StatusOr<Literal> LoadedExecutable::Execute(absl::Span<const Literal> arguments,
                                                  const ExecuteOptions& options) const {
  runtime::RunOptions run;
  run.cancelled = options.cancelled;
  return executable_->RunLiterals(arguments, run);
}

absl::StatusOr<std::vector<std::unique_ptr<DeviceBuffer>>> LoadedExecutable::ExecuteBuffers(
    absl::Span<DeviceBuffer* const> arguments, const ExecuteOptions& options) const {
  const ProgramShape& program = program_shape();
  const int64_t count = static_cast<int64_t>(program.parameters.size());
  if (static_cast<int64_t>(arguments.size()) != count) {
    return absl::InvalidArgumentError(
        absl::StrCat(name(), " takes ", count, " argument(s), got ", arguments.size()));
  }
  absl::flat_hash_set<int64_t> donated;
  for (int64_t i : options.donated_arguments) {
    if (i < 0 || i >= count) {
      return absl::InvalidArgumentError(
          absl::StrCat("donated argument ", i, " is out of range (", count, " arguments)"));
    }
    donated.insert(i);
  }
  // Checks, and arguments in another layout than the executable's are
  // converted into buffers of this call's own.
  std::vector<std::vector<runtime::OwnedBuffer>> converted(count);
  for (int64_t i = 0; i < count; ++i) {
    const DeviceBuffer* argument = arguments[i];
    if (argument == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(program.ParameterLabel(i, "argument"), " is null"));
    }
    if (argument->is_deleted()) {
      return absl::InvalidArgumentError(absl::StrCat(program.ParameterLabel(i, "argument"),
                                                     " was donated to an earlier run and is gone"));
    }
    for (int64_t j = 0; j < i; ++j) {
      if (arguments[j] == argument && (donated.contains(i) || donated.contains(j))) {
        return absl::InvalidArgumentError(absl::StrCat(
            program.ParameterLabel(i, "argument"), " is also ",
            program.ParameterLabel(j, "argument"), "; a donated buffer may be passed once"));
      }
    }
    const Shape& want = program.parameters[i];
    if (!ShapesCompatible(want, argument->shape())) {
      return absl::InvalidArgumentError(absl::StrCat(program.ParameterLabel(i, "argument"),
                                                     " expects ", want.ToString(), ", got ",
                                                     argument->shape().ToString()));
    }
    if (!(argument->shape() == want)) {
      TS_ASSIGN_OR_RETURN(Literal value, argument->ToLiteral());
      TS_ASSIGN_OR_RETURN(converted[i], AllocateLeaves(want));
      std::vector<const Literal*> values = ArrayLeaves(value);
      std::vector<const Shape*> layouts = ArrayLeafShapes(want);
      for (size_t k = 0; k < values.size(); ++k) {
        CopyLiteralToBuffer(*values[k], *layouts[k], converted[i][k].data());
      }
    }
  }
  // The runtime's argument leaves, in parameter order; a donated one (or a
  // converted copy, ours to overwrite) may be written in place.
  const runtime::Executable& raw = executable_->executable();
  std::vector<runtime::ArgumentBuffer> in;
  std::vector<runtime::OwnedBuffer*> owners;  // by runtime argument
  for (int64_t i = 0; i < count; ++i) {
    std::vector<runtime::OwnedBuffer>& leaves =
        converted[i].empty() ? arguments[i]->leaves_ : converted[i];
    const bool writable = donated.contains(i) || !converted[i].empty();
    for (runtime::OwnedBuffer& leaf : leaves) {
      in.push_back(writable ? runtime::ArgumentBuffer::Donated(leaf.data(), leaf.size())
                            : runtime::ArgumentBuffer(leaf));
      owners.push_back(writable ? &leaf : nullptr);
    }
  }
  // Results: where the plan computes a result over a writable argument's
  // allocation, that argument's memory becomes the result's.
  TS_ASSIGN_OR_RETURN(std::vector<runtime::OwnedBuffer> results, raw.AllocateResults());
  const runtime::BufferPlan& plan = raw.plan();
  for (int64_t r = 0; r < raw.result_count(); ++r) {
    const runtime::Allocation& allocation = plan.allocation(raw.result_slices()[r].allocation);
    if (allocation.kind != runtime::Allocation::Kind::kParameter || !allocation.donated) continue;
    runtime::OwnedBuffer* owner = owners[allocation.argument];
    if (owner == nullptr || raw.result_slices()[r].offset != 0 ||
        owner->size() != raw.result_size(r)) {
      continue;
    }
    results[r] = std::move(*owner);
    owners[allocation.argument] = nullptr;
  }
  std::vector<runtime::ResultBuffer> out(results.begin(), results.end());
  runtime::RunOptions run;
  run.cancelled = options.cancelled;
  TS_RETURN_IF_ERROR(raw.ExecuteInto(in, out, run));
  for (int64_t i : donated) {
    arguments[i]->deleted_ = true;
    arguments[i]->leaves_.clear();
  }
  // One device buffer per output.
  std::vector<std::unique_ptr<DeviceBuffer>> outputs;
  const Shape& result = program.result;
  std::vector<Shape> output_shapes =
      result.IsTuple() ? result.tuple_shapes() : std::vector<Shape>{result};
  size_t next = 0;
  for (const Shape& shape : output_shapes) {
    std::vector<runtime::OwnedBuffer> leaves;
    for (size_t k = 0; k < ArrayLeafShapes(shape).size(); ++k) {
      leaves.push_back(std::move(results[next++]));
    }
    outputs.push_back(std::make_unique<DeviceBuffer>(shape, std::move(leaves)));
  }
  return outputs;
}

// ---------------------------------------------------------------------------
// LocalClient
// ---------------------------------------------------------------------------

absl::StatusOr<std::unique_ptr<LocalClient>> LocalClient::Create() {
  return std::unique_ptr<LocalClient>(new LocalClient());
}

std::vector<std::string> LocalClient::Backends() { return {"cpu", "interpreter"}; }

absl::StatusOr<std::unique_ptr<LoadedExecutable>> LocalClient::Compile(
    const XlaComputation& computation, const CompileOptions& options) const {
  if (!computation.valid()) return absl::InvalidArgumentError("an invalid XlaComputation");
  return Compile(computation.CloneModule(), options);
}

absl::StatusOr<std::unique_ptr<LoadedExecutable>> LocalClient::Compile(
    std::unique_ptr<HloModule> module, const CompileOptions& options) const {
  if (module == nullptr || module->entry_computation() == nullptr) {
    return absl::InvalidArgumentError("Compile: no module or no entry computation");
  }
  TS_RETURN_IF_ERROR(VerifyHloModule(*module));
  const HloComputation& entry = *module->entry_computation();
  for (int64_t parameter : options.donatable_parameters) {
    if (parameter < 0 || parameter >= entry.num_parameters()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "donatable parameter ", parameter, " is out of range (", entry.num_parameters(),
          " parameters)"));
    }
    std::vector<ShapeIndex> indices;
    ShapeIndex prefix;
    LeafIndices(entry.parameter_instruction(parameter)->shape(), &prefix, &indices);
    for (const ShapeIndex& index : indices) {
      module->config().buffer_donors.push_back({parameter, index});
    }
  }
  std::unique_ptr<HloExecutable> executable;
  if (options.backend == "cpu") {
    cpu::CpuCompileOptions cpu_options;
    cpu_options.polynomial_math = options.polynomial_math;
    TS_ASSIGN_OR_RETURN(executable, cpu::CompileForCpuExecutable(std::move(module), cpu_options));
  } else if (options.backend == "interpreter") {
    std::shared_ptr<const HloModule> shared(std::move(module));
    TS_ASSIGN_OR_RETURN(executable, InterpreterBackend().Compile(shared));
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown backend '", options.backend,
                                                   "' (have: ", absl::StrJoin(Backends(), ", "),
                                                   ")"));
  }
  return std::make_unique<LoadedExecutable>(std::move(executable));
}

absl::StatusOr<std::unique_ptr<DeviceBuffer>> LocalClient::TransferToDevice(
    const Literal& literal) const {
  Shape shape = literal.shape();
  shape.SetDefaultLayoutRecursively();
  TS_RETURN_IF_ERROR(CheckDenseLayouts(shape));
  TS_ASSIGN_OR_RETURN(std::vector<runtime::OwnedBuffer> leaves, AllocateLeaves(shape));
  std::vector<const Literal*> values = ArrayLeaves(literal);
  std::vector<const Shape*> layouts = ArrayLeafShapes(shape);
  for (size_t i = 0; i < values.size(); ++i) {
    CopyLiteralToBuffer(*values[i], *layouts[i], leaves[i].data());
  }
  return std::make_unique<DeviceBuffer>(std::move(shape), std::move(leaves));
}

}  // namespace tessera
