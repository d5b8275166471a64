#include "backends/common/hlo_executable.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "backends/common/literal_buffers.h"
#include "hlo/ir/status_macros.h"

namespace tessera {

HloExecutable::HloExecutable(ProgramShape program_shape,
                             std::unique_ptr<runtime::Executable> executable)
    : program_shape_(std::move(program_shape)), executable_(std::move(executable)) {
  for (const Shape& parameter : program_shape_.parameters) {
    parameter_leaves_.push_back(ArrayLeafShapes(parameter));
  }
  result_leaves_ = ArrayLeafShapes(program_shape_.result);
}

absl::StatusOr<std::unique_ptr<HloExecutable>> HloExecutable::Create(
    ProgramShape program_shape, std::unique_ptr<runtime::Executable> executable) {
  if (executable == nullptr) return absl::InvalidArgumentError("no executable");
  for (int64_t i = 0; i < static_cast<int64_t>(program_shape.parameters.size()); ++i) {
    absl::Status status = CheckDenseLayouts(program_shape.parameters[i]);
    if (!status.ok()) {
      return absl::Status(status.code(),
                          absl::StrCat(program_shape.ParameterLabel(i), ": ", status.message()));
    }
  }
  absl::Status status = CheckDenseLayouts(program_shape.result);
  if (!status.ok()) {
    return absl::Status(status.code(), absl::StrCat("result: ", status.message()));
  }
  std::unique_ptr<HloExecutable> hlo_executable(
      new HloExecutable(std::move(program_shape), std::move(executable)));
  const runtime::Executable& raw = *hlo_executable->executable_;
  int64_t argument = 0;
  for (const std::vector<const Shape*>& leaves : hlo_executable->parameter_leaves_) {
    for (const Shape* leaf : leaves) {
      if (argument >= raw.argument_count() || raw.argument_size(argument) != leaf->ByteSize()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "argument ", argument, " (", leaf->ToString(true), ") does not match executable ",
            raw.name(), " (", raw.argument_count(), " argument(s))"));
      }
      ++argument;
    }
  }
  if (argument != raw.argument_count()) {
    return absl::InvalidArgumentError(absl::StrCat("the parameters have ", argument,
                                                   " array leaves; executable ", raw.name(),
                                                   " takes ", raw.argument_count()));
  }
  const std::vector<const Shape*>& results = hlo_executable->result_leaves_;
  if (static_cast<int64_t>(results.size()) != raw.result_count()) {
    return absl::InvalidArgumentError(absl::StrCat("the result has ", results.size(),
                                                   " array leaves; executable ", raw.name(),
                                                   " has ", raw.result_count()));
  }
  for (int64_t r = 0; r < raw.result_count(); ++r) {
    if (raw.result_size(r) != results[r]->ByteSize()) {
      return absl::InvalidArgumentError(absl::StrCat("result leaf ", r, " (",
                                                     results[r]->ToString(true), ") is ",
                                                     raw.result_size(r), " bytes in executable ",
                                                     raw.name()));
    }
  }
  return hlo_executable;
}

absl::Status HloExecutable::CheckArguments(absl::Span<const Literal> arguments) const {
  const int64_t count = static_cast<int64_t>(program_shape_.parameters.size());
  if (static_cast<int64_t>(arguments.size()) != count) {
    return absl::InvalidArgumentError(absl::StrCat(name(), " takes ", count, " argument(s), got ",
                                                   arguments.size()));
  }
  for (int64_t i = 0; i < count; ++i) {
    const Shape& want = program_shape_.parameters[i];
    if (!ShapesCompatible(want, arguments[i].shape())) {
      return absl::InvalidArgumentError(absl::StrCat(program_shape_.ParameterLabel(i), " expects ",
                                                     want.ToString(), ", got ",
                                                     arguments[i].shape().ToString()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<runtime::OwnedBuffer>> HloExecutable::ArgumentsToBuffers(
    absl::Span<const Literal> arguments) const {
  TS_RETURN_IF_ERROR(CheckArguments(arguments));
  std::vector<runtime::OwnedBuffer> buffers;
  buffers.reserve(executable_->argument_count());
  for (int64_t i = 0; i < static_cast<int64_t>(arguments.size()); ++i) {
    const std::vector<const Shape*>& leaves = parameter_leaves_[i];
    std::vector<const Literal*> values = ArrayLeaves(arguments[i]);
    for (size_t j = 0; j < leaves.size(); ++j) {
      TS_ASSIGN_OR_RETURN(runtime::OwnedBuffer buffer,
                          runtime::OwnedBuffer::TryAllocate(
                              leaves[j]->ByteSize(), absl::StrCat("leaf ", j, " of argument ", i)));
      CopyLiteralToBuffer(*values[j], *leaves[j], buffer.data());
      buffers.push_back(std::move(buffer));
    }
  }
  return buffers;
}

absl::StatusOr<Literal> HloExecutable::ResultFromBuffers(
    absl::Span<const runtime::OwnedBuffer> results) const {
  if (results.size() != result_leaves_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(name(), " has ", result_leaves_.size(),
                                                   " result leaves, got ", results.size(),
                                                   " buffer(s)"));
  }
  TS_ASSIGN_OR_RETURN(Literal result, Literal::CreateFromShape(program_shape_.result));
  std::vector<Literal*> leaves = MutableArrayLeaves(&result);
  for (size_t r = 0; r < results.size(); ++r) {
    if (results[r].size() != result_leaves_[r]->ByteSize()) {
      return absl::InvalidArgumentError(absl::StrCat("result ", r, " has ", results[r].size(),
                                                     " bytes, expected ",
                                                     result_leaves_[r]->ByteSize()));
    }
    CopyBufferToLiteral(results[r].data(), *result_leaves_[r], leaves[r]);
  }
  return result;
}

absl::StatusOr<Literal> HloExecutable::RunLiterals(absl::Span<const Literal> arguments,
                                                   const runtime::RunOptions& options) const {
  TS_ASSIGN_OR_RETURN(std::vector<runtime::OwnedBuffer> inputs, ArgumentsToBuffers(arguments));
  // The buffers are this call's own copies: donate them, so that outputs the
  // plan places over parameters are computed in place.
  std::vector<runtime::ArgumentBuffer> in;
  in.reserve(inputs.size());
  for (runtime::OwnedBuffer& input : inputs) {
    in.push_back(runtime::ArgumentBuffer::Donated(input.data(), input.size()));
  }
  TS_ASSIGN_OR_RETURN(std::vector<runtime::OwnedBuffer> outputs, executable_->Run(in, options));
  return ResultFromBuffers(outputs);
}

std::string HloExecutable::ToString() const {
  return absl::StrCat("program ", program_shape_.ToString(), "\n", executable_->ToString());
}

}  // namespace tessera
