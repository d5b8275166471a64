// HloModule -> HloModuleProto.
#include "hlo/proto/hlo_proto_export.h"

#include <limits>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "hlo/ir/status_macros.h"
#include "hlo/proto/attribute_proto.h"
#include "hlo/proto/instruction_attributes_proto.h"
#include "hlo/proto/shape_proto.h"

namespace tessera {
namespace {

template <typename... Args>
absl::Status Invalid(const Args&... args) {
  return absl::InvalidArgumentError(absl::StrCat(args...));
}

// The module's computations in its own order when callees already come
// before callers there (keeps round trips stable), else in post order.
std::vector<HloComputation*> ComputationsCalleesFirst(const HloModule& module) {
  std::vector<HloComputation*> computations = module.computations();
  absl::flat_hash_set<const HloComputation*> emitted;
  for (const HloComputation* computation : computations) {
    for (const HloInstruction* instruction : computation->instructions()) {
      for (const HloComputation* callee : instruction->called_computations()) {
        if (!emitted.contains(callee)) return module.MakeComputationPostOrder();
      }
    }
    emitted.insert(computation);
  }
  return computations;
}

absl::StatusOr<xla::HloInstructionProto> ExportInstruction(
    const HloInstruction& instruction, const absl::flat_hash_set<const HloComputation*>& in_module) {
  const std::string what = absl::StrCat("%", instruction.name());
  xla::HloInstructionProto proto;
  proto.set_name(instruction.name());
  proto.set_opcode(std::string(HloOpcodeString(instruction.opcode())));
  *proto.mutable_shape() = ShapeToProto(instruction.shape());
  proto.set_id(instruction.unique_id());
  for (const HloInstruction* operand : instruction.operands()) {
    if (operand == nullptr || operand->parent() != instruction.parent()) {
      return Invalid(what, " has an operand outside its computation");
    }
    proto.add_operand_ids(operand->unique_id());
  }
  for (const HloInstruction* predecessor : instruction.control_predecessors()) {
    if (predecessor->parent() != instruction.parent()) {
      return Invalid(what, " has a control predecessor outside its computation");
    }
    proto.add_control_predecessor_ids(predecessor->unique_id());
  }
  std::vector<const HloComputation*> callees(instruction.called_computations().begin(),
                                             instruction.called_computations().end());
  // XLA's proto lists a while loop's body first, then its condition.
  if (instruction.opcode() == HloOpcode::kWhile && callees.size() == 2) {
    std::swap(callees[0], callees[1]);
  }
  for (const HloComputation* callee : callees) {
    if (callee == nullptr || !in_module.contains(callee)) {
      return Invalid(what, " calls a computation that is not in the module");
    }
    proto.add_called_computation_ids(callee->unique_id());
  }
  absl::Status status =
      InstructionAttributesToProto(instruction.opcode(), instruction.attrs(), &proto);
  if (!status.ok()) return Invalid(what, ": ", status.message());
  return proto;
}

absl::StatusOr<xla::HloComputationProto> ExportComputation(
    const HloComputation& computation,
    const absl::flat_hash_set<const HloComputation*>& in_module) {
  const std::string where = absl::StrCat("computation ", computation.name());
  if (computation.root_instruction() == nullptr) return Invalid(where, " has no root");
  xla::HloComputationProto proto;
  proto.set_name(computation.name());
  proto.set_id(computation.unique_id());
  proto.set_root_id(computation.root_instruction()->unique_id());
  proto.set_is_fusion_computation(computation.IsFusionComputation());
  proto.set_execution_thread(computation.execution_thread());
  *proto.mutable_program_shape() = ProgramShapeToProto(computation.ComputeProgramShape());
  absl::flat_hash_set<int64_t> ids;
  // Post order keeps the IR's order when it is already operands-first.
  for (const HloInstruction* instruction : computation.MakeInstructionPostOrder()) {
    if (!ids.insert(instruction->unique_id()).second) {
      return Invalid(where, ": %", instruction->name(), " repeats id ", instruction->unique_id());
    }
    auto instruction_proto = ExportInstruction(*instruction, in_module);
    if (!instruction_proto.ok()) {
      return Invalid(where, ": ", instruction_proto.status().message());
    }
    *proto.add_instructions() = *std::move(instruction_proto);
  }
  return proto;
}

void ExportConfig(const HloModule& module, xla::HloModuleProto* proto) {
  const HloModuleConfig& config = module.config();
  const ProgramShape entry_shape = module.entry_computation()->ComputeProgramShape();
  ProgramShape host_shape = config.entry_computation_layout.value_or(entry_shape);
  // XLA requires one name per parameter (its loader rejects the proto
  // otherwise); a layout parsed from text carries none, so take the entry's.
  if (host_shape.parameter_names.size() != host_shape.parameters.size()) {
    host_shape.parameter_names = entry_shape.parameter_names;
    host_shape.parameter_names.resize(host_shape.parameters.size());
  }
  *proto->mutable_host_program_shape() = ProgramShapeToProto(host_shape);
  if (!config.input_output_alias.empty()) {
    auto* aliases = proto->mutable_input_output_alias();
    for (const InputOutputAlias& alias : config.input_output_alias) {
      auto* entry = aliases->add_entries();
      for (int64_t i : alias.output_index) entry->add_output_shape_index(i);
      entry->set_parameter_number(alias.parameter_number);
      for (int64_t i : alias.parameter_index) entry->add_parameter_shape_index(i);
      entry->set_kind(alias.kind == InputOutputAlias::Kind::kMustAlias ? xla::MUST_ALIAS
                                                                        : xla::MAY_ALIAS);
    }
  }
  if (!config.buffer_donors.empty()) {
    auto* donors = proto->mutable_buffer_donor();
    for (const BufferDonor& donor : config.buffer_donors) {
      auto* entry = donors->add_entries();
      entry->set_parameter_number(donor.parameter_number);
      for (int64_t i : donor.parameter_index) entry->add_parameter_shape_index(i);
    }
  }
  if (!config.frontend_attributes.empty()) {
    *proto->mutable_frontend_attributes() = FrontendAttributesToProto(config.frontend_attributes);
  }
  if (config.spmd_output_sharding) {
    *proto->mutable_spmd_output_sharding() = HloShardingToProto(*config.spmd_output_sharding);
  }
  for (const HloSharding& sharding : config.spmd_parameters_shardings) {
    *proto->add_spmd_parameters_shardings() = HloShardingToProto(sharding);
  }
}

}  // namespace

absl::StatusOr<xla::HloModuleProto> ExportHloModuleProto(const HloModule& module) {
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return Invalid("module ", module.name(), " has no entry computation");
  const std::vector<HloComputation*> computations = ComputationsCalleesFirst(module);
  const absl::flat_hash_set<const HloComputation*> in_module(computations.begin(),
                                                             computations.end());
  xla::HloModuleProto proto;
  proto.set_name(module.name());
  proto.set_entry_computation_name(entry->name());
  proto.set_entry_computation_id(entry->unique_id());
  absl::flat_hash_set<int64_t> computation_ids;
  for (const HloComputation* computation : computations) {
    if (!computation_ids.insert(computation->unique_id()).second) {
      return Invalid("computation ", computation->name(), " repeats id ", computation->unique_id());
    }
    TS_ASSIGN_OR_RETURN(*proto.add_computations(), ExportComputation(*computation, in_module));
  }
  ExportConfig(module, &proto);
  if (module.has_schedule()) {
    auto* sequences = proto.mutable_schedule()->mutable_sequences();
    for (const HloComputation* computation : computations) {
      if (!module.schedule().HasSequence(computation)) continue;
      auto& ids = (*sequences)[computation->unique_id()];
      for (const HloInstruction* instruction : module.schedule().sequence(computation)) {
        if (instruction == nullptr || instruction->parent() != computation) {
          return Invalid("the schedule of computation ", computation->name(),
                         " names an instruction of another computation");
        }
        ids.add_instruction_ids(instruction->unique_id());
      }
    }
  }
  return proto;
}

absl::StatusOr<std::string> SerializeHloModule(const HloModule& module) {
  TS_ASSIGN_OR_RETURN(xla::HloModuleProto proto, ExportHloModuleProto(module));
  const size_t size = proto.ByteSizeLong();
  if (size > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return Invalid("module ", module.name(), " needs ", size,
                   " bytes, more than protobuf's 2 GiB limit");
  }
  // Deterministic: map fields (frontend attributes, the schedule) are written
  // in key order, so equal modules serialize to equal bytes.
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream string_stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&string_stream);
    coded.SetSerializationDeterministic(true);
    proto.SerializeWithCachedSizes(&coded);
  }
  return bytes;
}

}  // namespace tessera
