// Modules, computations and instructions as XLA's canonical HLO text (see
// hlo_printer.h); attribute spellings live in hlo_attribute_printer.cc.
#include "hlo/parser/hlo_printer.h"

#include <algorithm>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/ir/literal.h"
#include "hlo/parser/hlo_printer_internal.h"
#include "hlo/parser/hlo_text_util.h"

namespace tessera {
namespace {

using printer_internal::AppendCalledComputationAttributes;
using printer_internal::AppendOpcodeAttributes;
using printer_internal::NameText;
using printer_internal::OutputOperandAliasingText;
using printer_internal::QuotedString;
using printer_internal::StringOrJsonDict;

// XLA prints constants with at most this many elements even when large
// constants are elided.
constexpr int64_t kMaxElidedConstantElements = 10;

struct Context {
  const HloPrintOptions& options;
  // Async computations printed inline through the `<op>-start` sugar (and
  // therefore not printed as computations of their own).
  absl::flat_hash_set<const HloComputation*> sugared;
};

// ---------------------------------------------------------------------------
// Orders.

// XLA's HloComputation::MakeInstructionPostOrder: a depth-first walk from
// every instruction without users (in instruction order) that visits an
// instruction's control predecessors first, then its operands in order.
std::vector<const HloInstruction*> InstructionPostOrder(const HloComputation& computation) {
  const std::vector<HloInstruction*> instructions = computation.instructions();
  std::vector<const HloInstruction*> order;
  order.reserve(instructions.size());
  enum class State : uint8_t { kNew, kVisiting, kVisited };
  absl::flat_hash_map<const HloInstruction*, State> state;
  std::vector<const HloInstruction*> stack;
  auto push = [&](const HloInstruction* instruction) {
    if (instruction == nullptr || instruction->parent() != &computation) return;
    auto it = state.find(instruction);
    if (it == state.end() || it->second != State::kVisited) stack.push_back(instruction);
  };
  auto walk = [&](const HloInstruction* root) {
    push(root);
    while (!stack.empty()) {
      const HloInstruction* current = stack.back();
      State& s = state[current];
      if (s != State::kNew) {
        stack.pop_back();
        if (s != State::kVisited) {
          s = State::kVisited;
          order.push_back(current);
        }
        continue;
      }
      s = State::kVisiting;
      const std::vector<HloInstruction*>& operands = current->operands();
      for (auto it = operands.rbegin(); it != operands.rend(); ++it) push(*it);
      for (const HloInstruction* predecessor : current->control_predecessors()) push(predecessor);
    }
  };
  for (const HloInstruction* instruction : instructions) {
    if (instruction->users().empty()) walk(instruction);
  }
  // Only a cycle leaves instructions unvisited; print them anyway.
  for (const HloInstruction* instruction : instructions) {
    if (!state.contains(instruction)) walk(instruction);
  }
  return order;
}

// The order a computation's instructions print in: the schedule's, when the
// module has one for it that lists exactly its instructions, else post order.
std::vector<const HloInstruction*> PrintOrder(const HloComputation& computation) {
  const HloModule* module = computation.parent();
  if (module != nullptr && module->has_schedule() && module->schedule().HasSequence(&computation)) {
    const std::vector<HloInstruction*>& sequence = module->schedule().sequence(&computation);
    absl::flat_hash_set<const HloInstruction*> seen;
    bool valid = static_cast<int64_t>(sequence.size()) == computation.instruction_count();
    for (const HloInstruction* instruction : sequence) {
      if (!valid) break;
      valid = instruction != nullptr && computation.Contains(instruction) &&
              seen.insert(instruction).second;
    }
    if (valid) return std::vector<const HloInstruction*>(sequence.begin(), sequence.end());
  }
  return InstructionPostOrder(computation);
}

// XLA's HloComputation::MakeEmbeddedComputationsList: the computations
// `computation` calls, transitively, callees first.
void AppendEmbeddedComputations(const HloComputation& computation,
                                absl::flat_hash_set<const HloComputation*>* added,
                                std::vector<const HloComputation*>* order) {
  struct Frame {
    const HloComputation* computation;
    std::vector<HloInstruction*> instructions;
    size_t next = 0;
  };
  absl::flat_hash_set<const HloComputation*> visited;
  std::vector<Frame> stack;
  auto push_called = [&](const HloInstruction* instruction) {
    std::vector<HloComputation*> called = instruction->called_computations();
    // XLA keeps a while's body before its condition.
    if (instruction->opcode() == HloOpcode::kWhile && called.size() == 2) {
      std::swap(called[0], called[1]);
    }
    for (auto it = called.rbegin(); it != called.rend(); ++it) {
      if (*it != nullptr && visited.insert(*it).second) {
        stack.push_back(Frame{*it, (*it)->instructions(), 0});
      }
    }
  };
  for (const HloInstruction* instruction : computation.instructions()) {
    push_called(instruction);
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next == top.instructions.size()) {
        const HloComputation* done = top.computation;
        stack.pop_back();
        if (added->insert(done).second) order->push_back(done);
      } else {
        const HloInstruction* next = top.instructions[top.next++];
        push_called(next);
      }
    }
  }
}

// XLA's HloModule::MakeComputationPostOrder: for each computation no
// instruction calls, in module order, its callees and then itself.
std::vector<const HloComputation*> ComputationPostOrder(const HloModule& module) {
  const std::vector<HloComputation*> computations = module.computations();
  absl::flat_hash_set<const HloComputation*> called;
  for (const HloComputation* computation : computations) {
    for (const HloInstruction* instruction : computation->instructions()) {
      for (const HloComputation* callee : instruction->called_computations()) called.insert(callee);
    }
  }
  absl::flat_hash_set<const HloComputation*> added;
  std::vector<const HloComputation*> order;
  for (const HloComputation* computation : computations) {
    if (called.contains(computation)) continue;
    AppendEmbeddedComputations(*computation, &added, &order);
    if (added.insert(computation).second) order.push_back(computation);
  }
  // Computations reachable only through a cycle of calls.
  for (const HloComputation* computation : computations) {
    if (added.insert(computation).second) order.push_back(computation);
  }
  return order;
}

// ---------------------------------------------------------------------------
// The async syntax sugar.

// The start of the async chain `instruction` (an async op) belongs to.
const HloInstruction* AsyncChainStart(const HloInstruction& instruction) {
  const HloInstruction* current = &instruction;
  for (int guard = 0; guard < 100000; ++guard) {
    if (current->opcode() == HloOpcode::kAsyncStart) return current;
    if ((current->opcode() != HloOpcode::kAsyncUpdate &&
         current->opcode() != HloOpcode::kAsyncDone) ||
        current->operand_count() != 1 || current->operand(0) == nullptr) {
      return nullptr;
    }
    current = current->operand(0);
  }
  return nullptr;
}

// True when `start` can print as `<op>-start(...)`: its computation holds
// only parameters and one op that reads them in order (XLA's
// CanExpandIntoSingleInstruction, plus what makes the sugar read back as
// the same module), and nothing else calls that computation.
bool CanSugar(const HloInstruction& start,
              const absl::flat_hash_map<const HloComputation*, int64_t>& callers) {
  if (start.opcode() != HloOpcode::kAsyncStart || start.called_computations().size() != 1) {
    return false;
  }
  const HloComputation* body = start.called_computations()[0];
  if (body == nullptr) return false;
  const HloInstruction* root = body->root_instruction();
  if (root == nullptr) return false;
  switch (root->opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      return false;
    default:
      break;
  }
  for (const HloInstruction* instruction : body->instructions()) {
    if (instruction != root && instruction->opcode() != HloOpcode::kParameter) return false;
  }
  if (root->operand_count() != body->num_parameters() ||
      root->operand_count() != start.operand_count() ||
      body->instruction_count() != root->operand_count() + 1) {
    return false;
  }
  for (int64_t i = 0; i < root->operand_count(); ++i) {
    if (root->operand(i) != body->parameter_instruction(i)) return false;
  }
  const Shape& shape = start.shape();
  if (!shape.IsTuple() || shape.tuple_size() < 2 || !shape.tuple_shapes(0).IsTuple()) return false;
  if (!start.attrs().output_operand_aliasing.empty()) return false;
  auto it = callers.find(body);
  return it != callers.end() && it->second == 1;
}

// The async computations of `module` that print through the sugar.
absl::flat_hash_set<const HloComputation*> SugaredComputations(const HloModule* module,
                                                               const HloPrintOptions& options) {
  absl::flat_hash_set<const HloComputation*> sugared;
  if (module == nullptr || !options.syntax_sugar_async_ops) return sugared;
  absl::flat_hash_map<const HloComputation*, int64_t> callers;
  std::vector<const HloInstruction*> starts;
  for (const HloComputation* computation : module->computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      // An async chain's update and done ops may name the start's computation.
      if (instruction->opcode() == HloOpcode::kAsyncUpdate ||
          instruction->opcode() == HloOpcode::kAsyncDone) {
        continue;
      }
      for (const HloComputation* callee : instruction->called_computations()) ++callers[callee];
      if (instruction->opcode() == HloOpcode::kAsyncStart) starts.push_back(instruction);
    }
  }
  for (const HloInstruction* start : starts) {
    if (CanSugar(*start, callers)) sugared.insert(start->called_computations()[0]);
  }
  return sugared;
}

// SugaredComputations for printing `computation` (or one of its
// instructions) alone: only its own async starts can print sugared, so the
// module is scanned only when it has one (printing every fused computation
// of a big module, one scan each, was quadratic).
absl::flat_hash_set<const HloComputation*> SugaredComputationsFor(const HloComputation* computation,
                                                                  const HloPrintOptions& options) {
  if (computation == nullptr || !options.syntax_sugar_async_ops) return {};
  for (const HloInstruction* instruction : computation->instructions()) {
    if (instruction->opcode() == HloOpcode::kAsyncStart) {
      return SugaredComputations(computation->parent(), options);
    }
  }
  return {};
}

// The op an async instruction stands for when it prints with the sugar.
const HloInstruction* SugaredWrappedOp(const HloInstruction& instruction, const Context& context) {
  if (!context.options.syntax_sugar_async_ops) return nullptr;
  const HloInstruction* start = AsyncChainStart(instruction);
  if (start == nullptr || start->called_computations().size() != 1 ||
      !context.sugared.contains(start->called_computations()[0])) {
    return nullptr;
  }
  return start->called_computations()[0]->root_instruction();
}

// ---------------------------------------------------------------------------
// Instructions.

void AppendCommonAttributes(const HloInstruction& instruction, const Context& context,
                            bool include_control_predecessors, std::vector<std::string>* out) {
  const HloAttributes& a = instruction.attrs();
  if (a.sharding.has_value()) {
    out->push_back(
        absl::StrCat("sharding=", PrintSharding(*a.sharding, context.options.print_metadata)));
  }
  if (!a.frontend_attributes.empty()) {
    out->push_back(
        absl::StrCat("frontend_attributes=", PrintFrontendAttributes(a.frontend_attributes)));
  }
  if (include_control_predecessors && context.options.print_control_dependencies &&
      !instruction.control_predecessors().empty()) {
    out->push_back(absl::StrCat("control-predecessors={",
                                absl::StrJoin(instruction.control_predecessors(), ", ",
                                              [&](std::string* s, const HloInstruction* p) {
                                                absl::StrAppend(
                                                    s, NameText(p->name(), context.options));
                                              }),
                                "}"));
  }
  if (a.statistics_viz.has_value() && !a.statistics_viz->statistics.empty()) {
    out->push_back(absl::StrCat(
        "statistics={visualizing_index=", a.statistics_viz->stat_index_to_visualize, ",",
        absl::StrJoin(a.statistics_viz->statistics, ",",
                      [](std::string* s, const std::pair<std::string, double>& stat) {
                        absl::StrAppend(s, stat.first, "=", DoubleToText(stat.second));
                      }),
        "}"));
  }
}

std::string OperandsText(const HloInstruction& instruction, const Context& context) {
  const HloPrintOptions& options = context.options;
  if (instruction.opcode() == HloOpcode::kParameter) {
    return absl::StrCat(instruction.parameter_number());
  }
  if (instruction.opcode() == HloOpcode::kConstant) {
    const std::optional<Literal>& literal = instruction.attrs().literal;
    if (literal.has_value() && (options.print_large_constants ||
                                (literal->shape().IsArray() &&
                                 literal->shape().ElementCount() <= kMaxElidedConstantElements))) {
      return literal->ToStringWithoutShape();
    }
    return "{...}";
  }
  std::string out;
  const int interval = options.operand_index_annotation_interval;
  for (int64_t i = 0; i < instruction.operand_count(); ++i) {
    if (i > 0) {
      out += interval > 0 && i % interval == 0 ? absl::StrCat(", /*index=", i, "*/") : ", ";
    }
    const HloInstruction* operand = instruction.operand(i);
    if (operand == nullptr) {
      out += "null ";
      continue;
    }
    if (options.print_operand_shapes) {
      AppendShapeText(operand->shape(), options.print_layouts, &out);
      out += " ";
    }
    out += NameText(operand->name(), options);
  }
  return out;
}

std::string InstructionText(const HloInstruction& instruction, const Context& context) {
  const HloPrintOptions& options = context.options;
  const HloAttributes& a = instruction.attrs();
  std::string out = absl::StrCat(NameText(instruction.name(), options), " = ");
  AppendShapeText(instruction.shape(), options.print_layouts, &out);
  out += " ";

  const HloInstruction* wrapped = nullptr;
  if (instruction.opcode() == HloOpcode::kAsyncStart ||
      instruction.opcode() == HloOpcode::kAsyncUpdate ||
      instruction.opcode() == HloOpcode::kAsyncDone) {
    wrapped = SugaredWrappedOp(instruction, context);
  }
  if (wrapped != nullptr) {
    absl::StrAppend(&out, HloOpcodeString(wrapped->opcode()),
                    instruction.opcode() == HloOpcode::kAsyncStart    ? "-start"
                    : instruction.opcode() == HloOpcode::kAsyncUpdate ? "-update"
                                                                      : "-done");
  } else {
    absl::StrAppend(&out, HloOpcodeString(instruction.opcode()));
  }
  absl::StrAppend(&out, "(", OperandsText(instruction, context), ")");

  std::vector<std::string> attributes;
  switch (instruction.opcode()) {
    case HloOpcode::kAsyncStart:
      if (!a.async_execution_thread.empty()) {
        attributes.push_back(
            absl::StrCat("async_execution_thread=", QuotedString(a.async_execution_thread)));
      }
      if (wrapped != nullptr) {
        // The wrapped op's own attributes; its common ones only where the
        // start has none (the parser gives the op the start's).
        AppendOpcodeAttributes(*wrapped, options, &attributes);
        AppendCalledComputationAttributes(*wrapped, options, &attributes);
        std::vector<std::string> common;
        AppendCommonAttributes(*wrapped, context, /*include_control_predecessors=*/false, &common);
        for (std::string& attribute : common) {
          const bool is_sharding = absl::StartsWith(attribute, "sharding=");
          const bool is_frontend = absl::StartsWith(attribute, "frontend_attributes=");
          const bool is_statistics = absl::StartsWith(attribute, "statistics=");
          if ((is_sharding && a.sharding.has_value()) ||
              (is_frontend && !a.frontend_attributes.empty()) ||
              (is_statistics && a.statistics_viz.has_value())) {
            continue;
          }
          attributes.push_back(std::move(attribute));
        }
      } else {
        if (!a.output_operand_aliasing.empty()) {
          attributes.push_back(absl::StrCat("output_to_operand_aliasing=",
                                            OutputOperandAliasingText(a.output_operand_aliasing)));
        }
        if (!instruction.called_computations().empty() &&
            instruction.called_computations()[0] != nullptr) {
          attributes.push_back(absl::StrCat(
              "calls=", NameText(instruction.called_computations()[0]->name(), options)));
        }
      }
      break;
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      // The chain's thread and computation are the start's.
      if (wrapped == nullptr && !a.async_execution_thread.empty()) {
        attributes.push_back(
            absl::StrCat("async_execution_thread=", QuotedString(a.async_execution_thread)));
      }
      break;
    default:
      AppendOpcodeAttributes(instruction, options, &attributes);
      AppendCalledComputationAttributes(instruction, options, &attributes);
      break;
  }
  AppendCommonAttributes(instruction, context, /*include_control_predecessors=*/true, &attributes);
  for (const std::string& attribute : attributes) absl::StrAppend(&out, ", ", attribute);

  const OpMetadata& m = a.metadata;
  if (options.print_metadata &&
      (!m.op_type.empty() || !m.op_name.empty() || !m.source_file.empty() ||
       !m.scheduling_name.empty() || m.stack_frame_id != 0)) {
    absl::StrAppend(&out, ", metadata={", PrintOpMetadata(m), "}");
  }
  if (options.print_backend_config && !a.backend_config.empty()) {
    absl::StrAppend(&out, ", backend_config=", StringOrJsonDict(a.backend_config));
  }
  return out;
}

// ---------------------------------------------------------------------------
// Computations and modules.

std::string ComputationText(const HloComputation& computation, const Context& context) {
  const HloPrintOptions& options = context.options;
  std::string out = NameText(computation.name(), options);
  out += " ";
  if (options.print_program_shape) {
    std::vector<std::string> parameters;
    for (const HloInstruction* parameter : computation.parameter_instructions()) {
      if (parameter == nullptr) continue;
      parameters.push_back(
          absl::StrCat(parameter->name(), ": ", ShapeToText(parameter->shape(), false)));
    }
    const HloInstruction* root = computation.root_instruction();
    absl::StrAppend(&out, "(", absl::StrJoin(parameters, ", "), ") -> ",
                    root == nullptr ? "()" : ShapeToText(root->shape(), false), " ");
  }
  out += "{\n";
  for (const HloInstruction* instruction : PrintOrder(computation)) {
    out += "  ";
    if (instruction == computation.root_instruction()) out += "ROOT ";
    out += InstructionText(*instruction, context);
    out += "\n";
  }
  out += "}";
  if (!computation.execution_thread().empty()) {
    absl::StrAppend(&out, ", execution_thread=\"", EscapeString(computation.execution_thread()),
                    "\"");
  }
  return out;
}

std::string HeaderText(const HloModule& module, const Context& context) {
  const HloModuleConfig& config = module.config();
  std::string out = absl::StrCat("HloModule ", module.name());
  if (module.has_schedule()) out += ", is_scheduled=true";

  if (!config.input_output_alias.empty()) {
    std::vector<InputOutputAlias> aliases = config.input_output_alias;
    std::stable_sort(aliases.begin(), aliases.end(),
                     [](const InputOutputAlias& x, const InputOutputAlias& y) {
                       return x.output_index < y.output_index;
                     });
    absl::StrAppend(&out, ", input_output_alias={ ",
                    absl::StrJoin(aliases, ", ",
                                  [](std::string* s, const InputOutputAlias& alias) {
                                    absl::StrAppend(s, ShapeIndexToText(alias.output_index), ": (",
                                                    alias.parameter_number, ", ",
                                                    ShapeIndexToText(alias.parameter_index), ", ",
                                                    alias.kind == InputOutputAlias::Kind::kMustAlias
                                                        ? "must-alias"
                                                        : "may-alias",
                                                    ")");
                                  }),
                    " }");
  }
  if (!config.buffer_donors.empty()) {
    std::vector<BufferDonor> donors = config.buffer_donors;
    std::sort(donors.begin(), donors.end(), [](const BufferDonor& x, const BufferDonor& y) {
      return std::tie(x.parameter_number, x.parameter_index) <
             std::tie(y.parameter_number, y.parameter_index);
    });
    donors.erase(std::unique(donors.begin(), donors.end()), donors.end());
    absl::StrAppend(&out, ", buffer_donor={ ",
                    absl::StrJoin(donors, ", ",
                                  [](std::string* s, const BufferDonor& donor) {
                                    absl::StrAppend(s, "(", donor.parameter_number, ", ",
                                                    ShapeIndexToText(donor.parameter_index), ")");
                                  }),
                    " }");
  }

  std::optional<ProgramShape> layout = config.entry_computation_layout;
  if (!layout.has_value() && module.entry_computation() != nullptr) {
    layout = module.entry_computation()->ComputeProgramShape();
  }
  if (layout.has_value()) {
    absl::StrAppend(&out, ", entry_computation_layout={", PrintComputationLayout(*layout), "}");
  }
  auto bools = [](const std::vector<bool>& values) {
    return absl::StrJoin(values, ",",
                         [](std::string* s, bool b) { s->append(b ? "true" : "false"); });
  };
  // Tessera keeps XLA's default {false} as {}.
  if (!config.allow_spmd_sharding_propagation_to_parameters.empty()) {
    absl::StrAppend(&out, ", allow_spmd_sharding_propagation_to_parameters={",
                    bools(config.allow_spmd_sharding_propagation_to_parameters), "}");
  }
  if (!config.allow_spmd_sharding_propagation_to_output.empty()) {
    absl::StrAppend(&out, ", allow_spmd_sharding_propagation_to_output={",
                    bools(config.allow_spmd_sharding_propagation_to_output), "}");
  }
  if (config.replica_count != 1) absl::StrAppend(&out, ", replica_count=", config.replica_count);
  if (config.num_partitions != 1) {
    absl::StrAppend(&out, ", num_partitions=", config.num_partitions);
  }
  if (!config.frontend_attributes.empty()) {
    absl::StrAppend(&out,
                    ", frontend_attributes=", PrintFrontendAttributes(config.frontend_attributes));
  }
  // Not printed by XLA, but read by its parser: kept so printing loses
  // nothing.
  const bool metadata = context.options.print_metadata;
  if (config.spmd_output_sharding.has_value()) {
    absl::StrAppend(
        &out, ", spmd_output_sharding=", PrintSharding(*config.spmd_output_sharding, metadata));
  }
  if (!config.spmd_parameters_shardings.empty()) {
    std::string shardings;
    if (config.spmd_parameters_shardings.size() == 1 &&
        config.spmd_parameters_shardings[0].type != HloSharding::Type::kTuple) {
      shardings = PrintSharding(config.spmd_parameters_shardings[0], metadata);
    } else {
      HloSharding tuple;
      tuple.type = HloSharding::Type::kTuple;
      tuple.tuple_shardings = config.spmd_parameters_shardings;
      shardings = PrintSharding(tuple, metadata);
    }
    absl::StrAppend(&out, ", spmd_parameters_shardings=", shardings);
  }
  return out;
}

const HloModule* ModuleOf(const HloComputation* computation) {
  return computation == nullptr ? nullptr : computation->parent();
}

}  // namespace

HloPrintOptions HloPrintOptions::ShortParsable() {
  HloPrintOptions options;
  options.print_percent = false;
  options.print_operand_shapes = false;
  options.print_program_shape = false;
  options.print_metadata = false;
  options.print_backend_config = false;
  options.print_control_dependencies = false;
  options.operand_index_annotation_interval = 0;
  return options;
}

std::string PrintHloModule(const HloModule& module) {
  return PrintHloModule(module, HloPrintOptions::Default());
}

std::string PrintHloModule(const HloModule& module, const HloPrintOptions& options) {
  Context context{options, SugaredComputations(&module, options)};
  std::string out = HeaderText(module, context);
  out += "\n\n";
  for (const HloComputation* computation : ComputationPostOrder(module)) {
    if (context.sugared.contains(computation)) continue;
    if (computation == module.entry_computation()) out += "ENTRY ";
    out += ComputationText(*computation, context);
    out += "\n\n";
  }
  return out;
}

std::string PrintHloComputation(const HloComputation& computation) {
  return PrintHloComputation(computation, HloPrintOptions::Default());
}

std::string PrintHloComputation(const HloComputation& computation, const HloPrintOptions& options) {
  Context context{options, SugaredComputationsFor(&computation, options)};
  return ComputationText(computation, context);
}

std::string PrintHloInstruction(const HloInstruction& instruction) {
  return PrintHloInstruction(instruction, HloPrintOptions::Default());
}

std::string PrintHloInstruction(const HloInstruction& instruction, const HloPrintOptions& options) {
  Context context{options, SugaredComputationsFor(instruction.parent(), options)};
  return InstructionText(instruction, context);
}

}  // namespace tessera
