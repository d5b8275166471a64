// HloModuleProto -> HloModule.  Import runs in phases so that nothing
// depends on the order the proto lists things in:
//   1. index computations by id and name; find the entry; check that every
//      called computation exists and that calls do not recurse;
//   2. create every computation (listed order), then every instruction
//      (listed order) with its opcode, shape and attributes but no edges;
//   3. connect operands, control predecessors and called computations by
//      id; set roots; reject cycles and bad parameter numbering;
//   4. the module header: entry layout, aliasing, donors, schedule, ...
#include "hlo/proto/hlo_proto_import.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
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

// One computation of the proto and what import made of it.
struct ImportedComputation {
  const xla::HloComputationProto* proto = nullptr;
  HloComputation* computation = nullptr;
  // Proto instruction id -> instruction, and the proto of each instruction.
  absl::flat_hash_map<int64_t, HloInstruction*> by_id;
  std::vector<std::pair<const xla::HloInstructionProto*, HloInstruction*>> instructions;
};

// "computation main" or "computation #2 (id 7)" when it has no name.
std::string DescribeComputation(const xla::HloComputationProto& proto, int index) {
  if (!proto.name().empty()) return absl::StrCat("computation ", proto.name());
  return absl::StrCat("computation #", index, " (id ", proto.id(), ")");
}

// "%add.3" or "instruction #4 (id 12)" when it has no name.
std::string DescribeInstruction(const xla::HloInstructionProto& proto, int index) {
  if (!proto.name().empty()) return absl::StrCat("%", proto.name());
  return absl::StrCat("instruction #", index, " (id ", proto.id(), ")");
}

class ModuleImporter {
 public:
  explicit ModuleImporter(const xla::HloModuleProto& proto) : proto_(proto) {}

  absl::StatusOr<std::unique_ptr<HloModule>> Import() {
    TS_RETURN_IF_ERROR(IndexComputations());
    TS_ASSIGN_OR_RETURN(const int entry, FindEntry());
    TS_RETURN_IF_ERROR(CheckCallGraph());
    module_ = std::make_unique<HloModule>(proto_.name());
    for (int i = 0; i < static_cast<int>(computations_.size()); ++i) {
      const xla::HloComputationProto& proto = *computations_[i].proto;
      auto computation = std::make_unique<HloComputation>(proto.name());
      computation->SetIsFusionComputation(proto.is_fusion_computation());
      computation->SetExecutionThread(proto.execution_thread());
      computations_[i].computation = i == entry
                                         ? module_->AddEntryComputation(std::move(computation))
                                         : module_->AddEmbeddedComputation(std::move(computation));
    }
    for (int i = 0; i < static_cast<int>(computations_.size()); ++i) {
      TS_RETURN_IF_ERROR(CreateInstructions(i));
    }
    for (int i = 0; i < static_cast<int>(computations_.size()); ++i) {
      TS_RETURN_IF_ERROR(ConnectInstructions(i));
      TS_RETURN_IF_ERROR(CheckAcyclic(i));
    }
    TS_RETURN_IF_ERROR(ImportConfig());
    TS_RETURN_IF_ERROR(ImportSchedule());
    return std::move(module_);
  }

 private:
  absl::Status IndexComputations() {
    if (proto_.computations_size() == 0) return Invalid("module has no computations");
    absl::flat_hash_map<std::string, int> by_name;
    for (int i = 0; i < proto_.computations_size(); ++i) {
      const xla::HloComputationProto& proto = proto_.computations(i);
      auto [it, inserted] = index_by_id_.emplace(proto.id(), i);
      if (!inserted) {
        return Invalid(DescribeComputation(proto, i), " has id ", proto.id(), ", already used by ",
                       DescribeComputation(proto_.computations(it->second), it->second));
      }
      if (!proto.name().empty() && !by_name.emplace(proto.name(), i).second) {
        return Invalid("two computations are named ", proto.name());
      }
      ImportedComputation imported;
      imported.proto = &proto;
      computations_.push_back(std::move(imported));
    }
    return absl::OkStatus();
  }

  // The entry is named by id and/or name; when both are given they must agree
  // (an id of 0 may just be unset, so the name wins then).
  absl::StatusOr<int> FindEntry() const {
    const std::string& name = proto_.entry_computation_name();
    const int64_t id = proto_.entry_computation_id();
    auto by_id = index_by_id_.find(id);
    if (name.empty()) {
      if (by_id == index_by_id_.end()) return Invalid("entry computation id ", id, " does not exist");
      return by_id->second;
    }
    int by_name = -1;
    for (int i = 0; i < proto_.computations_size(); ++i) {
      if (proto_.computations(i).name() == name) by_name = i;
    }
    if (by_name < 0) return Invalid("entry computation ", name, " does not exist");
    if (by_id != index_by_id_.end() && by_id->second != by_name && id != 0) {
      return Invalid("entry_computation_name ", name, " and entry_computation_id ", id,
                     " name different computations");
    }
    return by_name;
  }

  // Every called computation id exists, and no computation reaches itself.
  absl::Status CheckCallGraph() {
    const int n = static_cast<int>(computations_.size());
    callees_.assign(n, {});
    for (int c = 0; c < n; ++c) {
      const xla::HloComputationProto& proto = *computations_[c].proto;
      for (int j = 0; j < proto.instructions_size(); ++j) {
        for (int64_t id : proto.instructions(j).called_computation_ids()) {
          auto it = index_by_id_.find(id);
          if (it == index_by_id_.end()) {
            return Invalid(DescribeComputation(proto, c), ", ",
                           DescribeInstruction(proto.instructions(j), j),
                           ": called computation id ", id, " does not exist");
          }
          callees_[c].push_back(it->second);
        }
      }
    }
    // Iterative depth-first search; a computation still on the stack that is
    // reached again closes a cycle.
    enum class State : uint8_t { kUnvisited, kOnStack, kDone };
    std::vector<State> state(n, State::kUnvisited);
    for (int root = 0; root < n; ++root) {
      if (state[root] != State::kUnvisited) continue;
      std::vector<std::pair<int, size_t>> stack = {{root, 0}};
      state[root] = State::kOnStack;
      while (!stack.empty()) {
        auto& [current, next] = stack.back();
        if (next == callees_[current].size()) {
          state[current] = State::kDone;
          stack.pop_back();
          continue;
        }
        const int callee = callees_[current][next++];
        if (state[callee] == State::kOnStack) {
          return Invalid(DescribeComputation(*computations_[callee].proto, callee),
                         " calls itself (directly or through other computations)");
        }
        if (state[callee] == State::kUnvisited) {
          state[callee] = State::kOnStack;
          stack.push_back({callee, 0});
        }
      }
    }
    return absl::OkStatus();
  }

  // Creates the instructions of computation `c` without any edges.
  absl::Status CreateInstructions(int c) {
    ImportedComputation& imported = computations_[c];
    const xla::HloComputationProto& proto = *imported.proto;
    const std::string where = DescribeComputation(proto, c);
    const int count = proto.instructions_size();
    if (count == 0) return Invalid(where, " has no instructions");
    absl::flat_hash_set<std::string> names;
    std::vector<bool> parameter_seen;
    int64_t max_parameter = -1;
    for (int j = 0; j < count; ++j) {
      const xla::HloInstructionProto& instruction_proto = proto.instructions(j);
      const std::string what = absl::StrCat(where, ", ", DescribeInstruction(instruction_proto, j));
      auto opcode = StringToHloOpcode(instruction_proto.opcode());
      if (!opcode.ok()) return Invalid(what, ": unknown opcode \"", instruction_proto.opcode(), "\"");
      if (!instruction_proto.has_shape()) return Invalid(what, ": no shape");
      auto shape = ShapeFromProto(instruction_proto.shape());
      if (!shape.ok()) return Invalid(what, ": shape: ", shape.status().message());
      if (!instruction_proto.name().empty() && !names.insert(instruction_proto.name()).second) {
        return Invalid(what, ": another instruction of the computation has the same name");
      }
      std::unique_ptr<HloInstruction> instruction = HloInstruction::Create(*opcode, *shape, {});
      instruction->SetName(instruction_proto.name());
      absl::Status status = InstructionAttributesFromProto(instruction_proto, *opcode, *shape,
                                                           &instruction->mutable_attrs());
      if (!status.ok()) return Invalid(what, ": ", status.message());
      if (instruction_proto.backend_config().empty() &&
          instruction_proto.has_backend_config_payload()) {
        TS_ASSIGN_OR_RETURN(instruction->mutable_attrs().backend_config,
                            ResolvePayload(instruction_proto.backend_config_payload(),
                                           what + ": backend_config_payload"));
      }
      if (*opcode == HloOpcode::kParameter) {
        const int64_t number = instruction->parameter_number();
        if (number < 0 || number >= count) {
          return Invalid(what, ": parameter number ", number, " is out of range [0, ", count, ")");
        }
        if (parameter_seen.size() <= static_cast<size_t>(number)) {
          parameter_seen.resize(number + 1, false);
        }
        if (parameter_seen[number]) return Invalid(what, ": parameter number ", number, " is repeated");
        parameter_seen[number] = true;
        max_parameter = std::max(max_parameter, number);
      }
      HloInstruction* added = imported.computation->AddInstruction(std::move(instruction));
      if (!imported.by_id.emplace(instruction_proto.id(), added).second) {
        return Invalid(what, ": id ", instruction_proto.id(),
                       " is used by another instruction of the computation");
      }
      imported.instructions.push_back({&instruction_proto, added});
    }
    for (int64_t number = 0; number <= max_parameter; ++number) {
      if (!parameter_seen[number]) {
        return Invalid(where, ": parameters are numbered up to ", max_parameter,
                       " but parameter ", number, " is missing");
      }
    }
    return absl::OkStatus();
  }

  // Operands, control predecessors, called computations and the root.
  absl::Status ConnectInstructions(int c) {
    ImportedComputation& imported = computations_[c];
    const std::string where = DescribeComputation(*imported.proto, c);
    auto find = [&](int64_t id) -> HloInstruction* {
      auto it = imported.by_id.find(id);
      return it == imported.by_id.end() ? nullptr : it->second;
    };
    for (int j = 0; j < static_cast<int>(imported.instructions.size()); ++j) {
      const auto& [proto, instruction] = imported.instructions[j];
      const std::string what = absl::StrCat(where, ", ", DescribeInstruction(*proto, j));
      for (int k = 0; k < proto->operand_ids_size(); ++k) {
        HloInstruction* operand = find(proto->operand_ids(k));
        if (operand == nullptr) {
          return Invalid(what, ": operand ", k, " has id ", proto->operand_ids(k),
                         ", which is no instruction of the computation");
        }
        instruction->AppendOperand(operand);
      }
      for (int64_t id : proto->control_predecessor_ids()) {
        HloInstruction* predecessor = find(id);
        if (predecessor == nullptr) {
          return Invalid(what, ": control predecessor id ", id,
                         " is no instruction of the computation");
        }
        if (predecessor == instruction) return Invalid(what, ": is its own control predecessor");
        TS_RETURN_IF_ERROR(predecessor->AddControlDependencyTo(instruction));
      }
      std::vector<int64_t> callee_ids(proto->called_computation_ids().begin(),
                                      proto->called_computation_ids().end());
      // XLA lists a while loop's body before its condition; the IR keeps
      // them in the order the text names them (condition, body).
      if (instruction->opcode() == HloOpcode::kWhile && callee_ids.size() == 2) {
        std::swap(callee_ids[0], callee_ids[1]);
      }
      for (int64_t id : callee_ids) {
        instruction->AppendCalledComputation(computations_[index_by_id_.at(id)].computation);
      }
      if (instruction->opcode() == HloOpcode::kFusion &&
          !instruction->called_computations().empty()) {
        instruction->called_computations()[0]->SetIsFusionComputation(true);
      }
      if (instruction->opcode() == HloOpcode::kGetTupleElement) {
        TS_RETURN_IF_ERROR(CheckTupleIndex(*instruction, what));
      }
    }
    HloInstruction* root = find(imported.proto->root_id());
    if (root == nullptr) {
      return Invalid(where, ": root id ", imported.proto->root_id(),
                     " is no instruction of the computation");
    }
    imported.computation->set_root_instruction(root);
    return absl::OkStatus();
  }

  // A Payload's bytes: inline, or an index into the module's payloads.
  absl::StatusOr<std::string> ResolvePayload(const xla::Payload& payload,
                                             const std::string& what) const {
    if (payload.payload_source_case() != xla::Payload::kId) return payload.value();
    if (payload.id() < 0 || payload.id() >= proto_.payloads_size()) {
      return Invalid(what, " refers to payload ", payload.id(), " but the module has ",
                     proto_.payloads_size());
    }
    return proto_.payloads(static_cast<int>(payload.id()));
  }

  static absl::Status CheckTupleIndex(const HloInstruction& gte, const std::string& what) {
    if (gte.operand_count() != 1) {
      return Invalid(what, ": get-tuple-element has ", gte.operand_count(), " operands");
    }
    const Shape& tuple = gte.operand(0)->shape();
    if (!tuple.IsTuple()) {
      return Invalid(what, ": get-tuple-element of non-tuple shape ", tuple.ToString());
    }
    if (gte.tuple_index() < 0 || gte.tuple_index() >= tuple.tuple_size()) {
      return Invalid(what, ": tuple_index ", gte.tuple_index(), " is out of range for ",
                     tuple.ToString());
    }
    return absl::OkStatus();
  }

  // Operand and control edges must form a DAG.
  absl::Status CheckAcyclic(int c) {
    const ImportedComputation& imported = computations_[c];
    enum class State : uint8_t { kUnvisited, kOnStack, kDone };
    absl::flat_hash_map<const HloInstruction*, State> state;
    auto predecessor = [](const HloInstruction* h, size_t i) {
      const size_t n = h->operands().size();
      return i < n ? h->operand(i) : h->control_predecessors()[i - n];
    };
    for (const auto& [proto, start] : imported.instructions) {
      if (state[start] != State::kUnvisited) continue;
      std::vector<std::pair<const HloInstruction*, size_t>> stack = {{start, 0}};
      state[start] = State::kOnStack;
      while (!stack.empty()) {
        auto& [current, next] = stack.back();
        if (next == current->operands().size() + current->control_predecessors().size()) {
          state[current] = State::kDone;
          stack.pop_back();
          continue;
        }
        const HloInstruction* pred = predecessor(current, next++);
        State& pred_state = state[pred];
        if (pred_state == State::kOnStack) {
          return Invalid(DescribeComputation(*imported.proto, c), ": %", pred->name(),
                         " depends on itself (a cycle through operands or control edges)");
        }
        if (pred_state == State::kUnvisited) {
          pred_state = State::kOnStack;
          stack.push_back({pred, 0});
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status ImportConfig() {
    HloModuleConfig& config = module_->config();
    HloComputation* entry = module_->entry_computation();
    if (proto_.has_host_program_shape()) {
      auto layout = ProgramShapeFromProto(proto_.host_program_shape());
      if (!layout.ok()) return Invalid("host_program_shape: ", layout.status().message());
      config.entry_computation_layout = *std::move(layout);
    } else {
      config.entry_computation_layout = entry->ComputeProgramShape();
    }
    auto parameter_shape = [&](int64_t number, const ShapeIndex& index,
                               const std::string& what) -> absl::Status {
      if (number < 0 || number >= entry->num_parameters()) {
        return Invalid(what, " names parameter ", number, " but the entry computation has ",
                       entry->num_parameters());
      }
      if (entry->parameter_instruction(number)->shape().Subshape(index) == nullptr) {
        return Invalid(what, " names index ", ShapeIndexToString(index), " of parameter ", number,
                       ", which does not exist");
      }
      return absl::OkStatus();
    };
    for (const auto& entry_proto : proto_.input_output_alias().entries()) {
      InputOutputAlias alias;
      alias.output_index.assign(entry_proto.output_shape_index().begin(),
                                entry_proto.output_shape_index().end());
      alias.parameter_number = entry_proto.parameter_number();
      alias.parameter_index.assign(entry_proto.parameter_shape_index().begin(),
                                   entry_proto.parameter_shape_index().end());
      if (!xla::Kind_IsValid(entry_proto.kind())) {
        return Invalid("input_output_alias has unknown kind ", entry_proto.kind());
      }
      alias.kind = entry_proto.kind() == xla::MUST_ALIAS ? InputOutputAlias::Kind::kMustAlias
                                                         : InputOutputAlias::Kind::kMayAlias;
      TS_RETURN_IF_ERROR(parameter_shape(alias.parameter_number, alias.parameter_index,
                                         "input_output_alias"));
      if (entry->root_instruction()->shape().Subshape(alias.output_index) == nullptr) {
        return Invalid("input_output_alias names output index ",
                       ShapeIndexToString(alias.output_index), ", which does not exist");
      }
      config.input_output_alias.push_back(std::move(alias));
    }
    for (const auto& donor_proto : proto_.buffer_donor().entries()) {
      BufferDonor donor;
      donor.parameter_number = donor_proto.parameter_number();
      donor.parameter_index.assign(donor_proto.parameter_shape_index().begin(),
                                   donor_proto.parameter_shape_index().end());
      TS_RETURN_IF_ERROR(
          parameter_shape(donor.parameter_number, donor.parameter_index, "buffer_donor"));
      config.buffer_donors.push_back(std::move(donor));
    }
    config.frontend_attributes = FrontendAttributesFromProto(proto_.frontend_attributes());
    if (proto_.has_spmd_output_sharding()) {
      auto sharding = HloShardingFromProto(proto_.spmd_output_sharding());
      if (!sharding.ok()) return Invalid("spmd_output_sharding: ", sharding.status().message());
      config.spmd_output_sharding = *std::move(sharding);
    }
    for (int i = 0; i < proto_.spmd_parameters_shardings_size(); ++i) {
      auto sharding = HloShardingFromProto(proto_.spmd_parameters_shardings(i));
      if (!sharding.ok()) {
        return Invalid("spmd_parameters_shardings ", i, ": ", sharding.status().message());
      }
      config.spmd_parameters_shardings.push_back(*std::move(sharding));
    }
    return absl::OkStatus();
  }

  absl::Status ImportSchedule() {
    if (!proto_.has_schedule()) return absl::OkStatus();
    HloSchedule& schedule = module_->mutable_schedule();
    for (const auto& [computation_id, sequence_proto] : proto_.schedule().sequences()) {
      auto it = index_by_id_.find(computation_id);
      if (it == index_by_id_.end()) {
        return Invalid("schedule names computation id ", computation_id, ", which does not exist");
      }
      const ImportedComputation& imported = computations_[it->second];
      std::vector<HloInstruction*> sequence;
      sequence.reserve(sequence_proto.instruction_ids_size());
      for (int64_t id : sequence_proto.instruction_ids()) {
        auto found = imported.by_id.find(id);
        if (found == imported.by_id.end()) {
          return Invalid("schedule of ", DescribeComputation(*imported.proto, it->second),
                         " names instruction id ", id, ", which is not in the computation");
        }
        sequence.push_back(found->second);
      }
      schedule.SetSequence(imported.computation, std::move(sequence));
    }
    return absl::OkStatus();
  }

  const xla::HloModuleProto& proto_;
  std::unique_ptr<HloModule> module_;
  std::vector<ImportedComputation> computations_;  // in the proto's order
  absl::flat_hash_map<int64_t, int> index_by_id_;
  std::vector<std::vector<int>> callees_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<HloModule>> ImportHloModuleProto(const xla::HloModuleProto& proto) {
  return ModuleImporter(proto).Import();
}

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModuleProtoBytes(std::string_view bytes) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return Invalid("serialized HloModuleProto of ", bytes.size(),
                   " bytes is larger than protobuf's 2 GiB limit");
  }
  xla::HloModuleProto proto;
  if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Invalid("bytes (", bytes.size(), ") are not a serialized HloModuleProto");
  }
  return ImportHloModuleProto(proto);
}

}  // namespace tessera
