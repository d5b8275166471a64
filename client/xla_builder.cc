#include "client/xla_builder.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "hlo/analysis/hlo_verifier.h"
#include "hlo/analysis/shape_inference.h"
#include "hlo/ir/hlo_clone.h"
#include "hlo/proto/hlo_proto_export.h"

namespace tessera {

// ---------------------------------------------------------------------------
// XlaComputation
// ---------------------------------------------------------------------------

const std::string& XlaComputation::name() const {
  static const std::string* const kNone = new std::string("<invalid computation>");
  return module_ == nullptr ? *kNone : module_->entry_computation()->name();
}

ProgramShape XlaComputation::GetProgramShape() const {
  return module_->entry_computation()->ComputeProgramShape();
}

std::unique_ptr<HloModule> XlaComputation::CloneModule() const {
  auto module = std::make_unique<HloModule>(module_->name());
  module->config() = module_->config();
  HloComputation* entry = nullptr;
  std::vector<std::unique_ptr<HloComputation>> copies =
      CloneModuleComputations(*module_, &entry);
  for (std::unique_ptr<HloComputation>& copy : copies) {
    if (copy.get() == entry) {
      module->AddEntryComputation(std::move(copy));
    } else {
      module->AddEmbeddedComputation(std::move(copy));
    }
  }
  return module;
}

absl::StatusOr<xla::HloModuleProto> XlaComputation::proto() const {
  if (module_ == nullptr) return absl::FailedPreconditionError("an invalid XlaComputation");
  return ExportHloModuleProto(*module_);
}

// ---------------------------------------------------------------------------
// XlaBuilder
// ---------------------------------------------------------------------------

XlaBuilder::XlaBuilder(std::string name)
    : name_(std::move(name)), computation_(std::make_unique<HloComputation>(name_)) {}

XlaBuilder::~XlaBuilder() = default;

std::unique_ptr<XlaBuilder> XlaBuilder::CreateSubBuilder(absl::string_view name) {
  return std::make_unique<XlaBuilder>(absl::StrCat(name_, ".", name, ".", ++sub_builders_));
}

XlaOp XlaBuilder::ReportError(absl::string_view what, absl::Status status) {
  if (first_error_.ok()) {
    first_error_ = absl::Status(status.code(), absl::StrCat(what, ": ", status.message()));
  }
  return XlaOp();
}

const HloInstruction* XlaBuilder::instruction(XlaOp op) const {
  if (op.builder() != this || op.handle() < 0 ||
      op.handle() >= static_cast<int64_t>(handles_.size())) {
    return nullptr;
  }
  return handles_[op.handle()];
}

absl::StatusOr<Shape> XlaBuilder::GetShape(XlaOp op) const {
  if (!op.valid()) {
    return first_error_.ok() ? absl::InvalidArgumentError("an invalid XlaOp") : first_error_;
  }
  const HloInstruction* found = instruction(op);
  if (found == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("the op belongs to builder ", op.builder()->name(), ", not ", name_));
  }
  return found->shape();
}

absl::StatusOr<HloComputation*> XlaBuilder::Embed(const XlaComputation& computation) {
  if (!computation.valid()) {
    return absl::InvalidArgumentError("an invalid XlaComputation (its Build failed?)");
  }
  const HloModule* source = &computation.module();
  auto found = embedded_entries_.find(source);
  if (found != embedded_entries_.end()) return found->second;
  HloComputation* entry = nullptr;
  for (std::unique_ptr<HloComputation>& copy : CloneModuleComputations(*source, &entry)) {
    embedded_.push_back(std::move(copy));
  }
  embedded_entries_[source] = entry;
  embedded_sources_.push_back(computation.shared_module());
  return entry;
}

XlaOp XlaBuilder::AddOp(absl::string_view what, OpRequest request) {
  if (!first_error_.ok()) return XlaOp();
  if (built_) {
    return ReportError(what, absl::FailedPreconditionError(
                                 absl::StrCat("builder ", name_, " has already been built")));
  }
  std::vector<HloInstruction*> operands;
  for (size_t i = 0; i < request.operands.size(); ++i) {
    const XlaOp& op = request.operands[i];
    if (!op.valid()) {
      return ReportError(what, absl::InvalidArgumentError(
                                   absl::StrCat("operand ", i, " is an invalid XlaOp")));
    }
    HloInstruction* operand = handles_.empty() || op.builder() != this
                                  ? nullptr
                                  : const_cast<HloInstruction*>(instruction(op));
    if (operand == nullptr) {
      return ReportError(what, absl::InvalidArgumentError(absl::StrCat(
                                   "operand ", i, " belongs to builder ", op.builder()->name(),
                                   ", not ", name_)));
    }
    operands.push_back(operand);
  }
  std::unique_ptr<HloInstruction> instruction = HloInstruction::Create(
      request.opcode, request.shape.value_or(Shape::MakeTuple({})), operands);
  if (request.set_attributes) request.set_attributes(instruction->mutable_attrs());
  for (const XlaComputation* computation : request.computations) {
    if (computation == nullptr) {
      return ReportError(what, absl::InvalidArgumentError("a null XlaComputation"));
    }
    absl::StatusOr<HloComputation*> embedded = Embed(*computation);
    if (!embedded.ok()) return ReportError(what, embedded.status());
    instruction->AppendCalledComputation(*embedded);
  }
  if (request.shape.has_value()) {
    if (absl::Status valid = ValidateShape(*request.shape); !valid.ok()) {
      return ReportError(what, valid);
    }
  }
  if (request.opcode == HloOpcode::kParameter) {
    const int64_t number = instruction->parameter_number();
    if (number < 0) {
      return ReportError(what, absl::InvalidArgumentError(
                                   absl::StrCat("parameter number ", number, " is negative")));
    }
    if (number < computation_->num_parameters() &&
        computation_->parameter_instruction(number) != nullptr) {
      return ReportError(what, absl::InvalidArgumentError(absl::StrCat(
                                   "parameter ", number, " is already defined (",
                                   computation_->parameter_instruction(number)->name(), ")")));
    }
  }
  // Names as XLA's builder gives them: the opcode and a number, or the
  // client's name (parameters), made unique.
  const std::string base =
      request.name.empty() ? std::string(HloOpcodeString(request.opcode)) : request.name;
  const int64_t count = ++name_counts_[base];
  instruction->SetName(count == 1 && !request.name.empty() ? base
                                                           : absl::StrCat(base, ".", count));
  absl::StatusOr<Shape> shape = InferShape(*instruction);
  if (!shape.ok()) return ReportError(what, shape.status());
  Shape result = *std::move(shape);
  if (request.shape.has_value() && ShapesCompatible(result, *request.shape)) {
    result = *request.shape;  // keeps a declared layout
  }
  result.SetDefaultLayoutRecursively();
  *instruction->mutable_shape() = std::move(result);
  handles_.push_back(computation_->AddInstruction(std::move(instruction)));
  return XlaOp(static_cast<int64_t>(handles_.size()) - 1, this);
}

absl::StatusOr<XlaComputation> XlaBuilder::Build() {
  if (!first_error_.ok()) return first_error_;
  if (handles_.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("builder ", name_, " has no ops to build"));
  }
  return Build(XlaOp(static_cast<int64_t>(handles_.size()) - 1, this));
}

absl::StatusOr<XlaComputation> XlaBuilder::Build(XlaOp root) {
  if (!first_error_.ok()) return first_error_;
  if (built_) {
    return absl::FailedPreconditionError(
        absl::StrCat("builder ", name_, " has already been built"));
  }
  HloInstruction* root_instruction = const_cast<HloInstruction*>(instruction(root));
  if (root_instruction == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("Build: the root is not an op of builder ", name_));
  }
  computation_->set_root_instruction(root_instruction);
  auto module = std::make_shared<HloModule>(name_);
  for (std::unique_ptr<HloComputation>& embedded : embedded_) {
    module->AddEmbeddedComputation(std::move(embedded));
  }
  embedded_.clear();
  module->AddEntryComputation(std::move(computation_));
  built_ = true;
  if (absl::Status verified = VerifyHloModule(*module); !verified.ok()) {
    return absl::Status(verified.code(),
                        absl::StrCat("Build of ", name_, ": ", verified.message()));
  }
  return XlaComputation(std::move(module));
}

}  // namespace tessera
