#include "passes/memory/copy_insertion.h"

#include <algorithm>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/analysis/hlo_alias_analysis.h"
#include "hlo/analysis/hlo_dataflow_analysis.h"
#include "hlo/ir/hlo_clone.h"
#include "hlo/ir/status_macros.h"

namespace tessera {
namespace {

bool IsSequentialCaller(const HloInstruction& instruction) {
  return instruction.opcode() == HloOpcode::kWhile ||
         instruction.opcode() == HloOpcode::kConditional ||
         instruction.opcode() == HloOpcode::kCall;
}

// A copy of `original` (same instructions, control edges and callees) added
// to `module`.
HloComputation* CloneIntoModule(HloModule* module, const HloComputation& original) {
  std::unique_ptr<HloComputation> clone = CloneComputation(original, /*callees=*/{});
  clone->SetName(absl::StrCat(original.name(), ".clone"));
  return module->AddEmbeddedComputation(std::move(clone));
}

// Gives every computation run sequentially from more than one place (or also
// used otherwise, e.g. as a reducer) one clone per extra call site.
int64_t FlattenCallGraph(HloModule* module) {
  int64_t cloned = 0;
  for (int round = 0; round < 100; ++round) {
    struct Site {
      HloInstruction* instruction;
      int64_t index;
    };
    std::map<int64_t, std::vector<Site>> sequential;  // by computation id, deterministic
    absl::flat_hash_map<int64_t, HloComputation*> by_id;
    absl::flat_hash_set<const HloComputation*> other_use;
    for (HloComputation* computation : module->MakeComputationPostOrder()) {
      by_id[computation->unique_id()] = computation;
      for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
        const std::vector<HloComputation*>& callees = instruction->called_computations();
        for (int64_t i = 0; i < static_cast<int64_t>(callees.size()); ++i) {
          if (IsSequentialCaller(*instruction)) {
            sequential[callees[i]->unique_id()].push_back({instruction, i});
          } else {
            other_use.insert(callees[i]);
          }
        }
      }
    }
    bool changed = false;
    for (auto& [id, sites] : sequential) {
      HloComputation* computation = by_id.at(id);
      const bool shared = other_use.contains(computation);
      if (sites.size() < 2 && !shared) continue;
      for (size_t s = shared ? 0 : 1; s < sites.size(); ++s) {
        HloComputation* clone = CloneIntoModule(module, *computation);
        sites[s].instruction->ReplaceCalledComputation(sites[s].index, clone);
        ++cloned;
        changed = true;
      }
    }
    if (!changed) break;
  }
  return cloned;
}

// True when `to` depends on `from` (through data or control edges).
bool Reaches(const HloInstruction* from, const HloInstruction* to) {
  if (from == to) return true;
  std::vector<const HloInstruction*> worklist = {from};
  absl::flat_hash_set<const HloInstruction*> seen = {from};
  while (!worklist.empty()) {
    const HloInstruction* current = worklist.back();
    worklist.pop_back();
    auto visit = [&](const HloInstruction* next) {
      if (next == to) return true;
      if (seen.insert(next).second) worklist.push_back(next);
      return false;
    };
    for (const HloInstruction* user : current->users()) {
      if (visit(user)) return true;
    }
    for (const HloInstruction* successor : current->control_successors()) {
      if (visit(successor)) return true;
    }
  }
  return false;
}

// kRemake: a second evaluation of the leaf's producer (CheapToRemake)
// rather than a copy of its value.
enum class CopyKind { kSingle, kDouble, kRemake };

// A producer that is cheaper to run again than its value is to copy (it
// reads no array, only writes one), and gives the same value each time:
// a broadcast of a scalar, an iota, or a loop fusion of such over scalar
// operands (JAX's zeros for a scan's carried and stacked values, several
// of which a loop's init may take from one broadcast).
bool CheapToRemake(const HloInstruction& instruction) {
  if (!instruction.shape().IsArray()) return false;
  for (const HloInstruction* operand : instruction.operands()) {
    if (!operand->shape().IsArray() || operand->shape().rank() != 0) return false;
  }
  switch (instruction.opcode()) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kIota:
      return true;
    case HloOpcode::kFusion:
      break;
    default:
      return false;
  }
  if (instruction.fusion_kind() != FusionKind::kLoop) return false;
  for (const HloInstruction* fused : instruction.fused_computation()->instructions()) {
    switch (fused->opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kConstant:
      case HloOpcode::kBroadcast:
      case HloOpcode::kIota:
      case HloOpcode::kConvert:
      case HloOpcode::kReshape:
      case HloOpcode::kBitcast:
        break;
      default:
        if (!fused->IsElementwise() || fused->opcode() == HloOpcode::kRng) return false;
    }
  }
  return true;
}

class Copier {
 public:
  Copier(HloModule* module, int64_t* copies, int64_t* edges)
      : module_(module), copies_(copies), edges_(edges) {}

  bool FixWhileInits(const HloDataflowAnalysis& dataflow) {
    bool changed = false;
    for (const HloComputation* const_computation : dataflow.sequential_computations()) {
      HloComputation* computation = const_cast<HloComputation*>(const_computation);
      for (HloInstruction* loop : computation->MakeInstructionPostOrder()) {
        if (loop->opcode() != HloOpcode::kWhile || loop->operand_count() != 1) continue;
        changed |= FixWhileInit(dataflow, computation, loop);
      }
    }
    return changed;
  }

  bool FixRoots(const HloDataflowAnalysis& dataflow) {
    HloAliasAnalysis alias(dataflow);
    bool changed = false;
    for (const HloComputation* const_computation : dataflow.sequential_computations()) {
      HloComputation* computation = const_cast<HloComputation*>(const_computation);
      const HloInstruction* caller = dataflow.caller(computation);
      if (computation == module_->entry_computation()) {
        changed |= FixEntryRoot(dataflow, computation);
      } else if (caller != nullptr && caller->opcode() == HloOpcode::kWhile &&
                 caller->called_computations().size() == 2 && caller->while_body() == computation) {
        changed |= FixBodyRoot(dataflow, alias, computation, caller);
      } else if (caller != nullptr && caller->opcode() == HloOpcode::kConditional) {
        changed |= FixBranchRoot(dataflow, computation);
      }
    }
    return changed;
  }

  // Removes the instructions replaced during the round that nothing uses.
  void RemoveDead() {
    for (auto& [computation, instruction] : maybe_dead_) {
      if (instruction->user_count() == 0 && !instruction->IsRoot() &&
          instruction->control_successors().empty() &&
          instruction->control_predecessors().empty() &&
          instruction->opcode() != HloOpcode::kParameter) {
        computation->RemoveInstruction(instruction).IgnoreError();
      }
    }
    maybe_dead_.clear();
  }

 private:
  bool AddEdge(HloInstruction* from, HloInstruction* to) {
    if (from == to) return false;
    const std::vector<HloInstruction*>& successors = from->control_successors();
    if (std::find(successors.begin(), successors.end(), to) != successors.end()) return false;
    if (Reaches(from, to)) return false;  // already ordered
    from->AddControlDependencyTo(to).IgnoreError();
    ++*edges_;
    return true;
  }

  // `instruction` (of shape `shape`) rebuilt with the leaves in `copies`
  // copied; the copies made are recorded in `made`.
  HloInstruction* Rebuild(HloComputation* computation, HloInstruction* instruction,
                          const Shape& shape, ShapeIndex* prefix,
                          const std::map<ShapeIndex, CopyKind>& copies,
                          std::map<ShapeIndex, HloInstruction*>* made) {
    if (shape.IsTuple()) {
      bool touched = false;
      for (const auto& [index, kind] : copies) {
        touched |= index.size() > prefix->size() &&
                   std::equal(prefix->begin(), prefix->end(), index.begin());
      }
      if (!touched) return instruction;
      std::vector<HloInstruction*> elements;
      for (int64_t i = 0; i < shape.tuple_size(); ++i) {
        HloInstruction* element =
            instruction->opcode() == HloOpcode::kTuple
                ? instruction->operand(i)
                : computation->AddInstruction(
                      HloInstruction::CreateGetTupleElement(shape.tuple_shapes(i), instruction, i));
        prefix->push_back(i);
        elements.push_back(
            Rebuild(computation, element, shape.tuple_shapes(i), prefix, copies, made));
        prefix->pop_back();
      }
      return computation->AddInstruction(HloInstruction::CreateTuple(elements));
    }
    auto it = copies.find(*prefix);
    if (it == copies.end()) return instruction;
    if (it->second == CopyKind::kRemake) {
      std::unique_ptr<HloInstruction> again =
          instruction->CloneWithNewOperands(shape, instruction->operands());
      if (again->opcode() == HloOpcode::kFusion) {
        // A fused computation has one caller.
        again->ReplaceCalledComputation(
            0, CloneIntoModule(module_, *instruction->fused_computation()));
      }
      HloInstruction* remade = computation->AddInstruction(std::move(again));
      (*made)[*prefix] = remade;
      return remade;
    }
    HloInstruction* copy = computation->AddInstruction(
        HloInstruction::CreateUnary(shape, HloOpcode::kCopy, instruction));
    ++*copies_;
    if (it->second == CopyKind::kDouble) {
      copy = computation->AddInstruction(
          HloInstruction::CreateUnary(shape, HloOpcode::kCopy, copy));
      ++*copies_;
    }
    (*made)[*prefix] = copy;
    return copy;
  }

  // The instructions of `computation` that read `value` (directly or by
  // running a callee that does).
  std::vector<HloInstruction*> Readers(const HloDataflowAnalysis& dataflow, const HloValue& value,
                                       const HloComputation* computation) {
    std::vector<HloInstruction*> readers;
    for (const HloUse& use : value.uses()) {
      const HloInstruction* lifted = dataflow.LiftToComputation(use.instruction, computation);
      if (lifted == nullptr) continue;
      HloInstruction* reader = const_cast<HloInstruction*>(lifted);
      if (std::find(readers.begin(), readers.end(), reader) == readers.end()) {
        readers.push_back(reader);
      }
    }
    return readers;
  }

  bool IsParameterOrConstant(const HloInstruction* instruction) {
    return instruction->opcode() == HloOpcode::kParameter ||
           instruction->opcode() == HloOpcode::kConstant;
  }

  bool FixWhileInit(const HloDataflowAnalysis& dataflow, HloComputation* computation,
                    HloInstruction* loop) {
    const std::vector<HloLeafValue>& leaves = dataflow.GetLeafValues(loop->operand(0));
    std::map<ShapeIndex, CopyKind> copies;
    std::vector<std::pair<HloInstruction*, HloInstruction*>> edges;
    absl::flat_hash_set<const HloValue*> seen;
    for (const HloLeafValue& leaf : leaves) {
      const HloValue& value = *leaf.value;
      const HloInstruction* definer = value.defining_instruction();
      const bool first = seen.insert(&value).second;
      if (!first && CheapToRemake(*definer) && leaf.index.size() == 1 &&
          loop->operand(0)->opcode() == HloOpcode::kTuple &&
          loop->operand(0)->operand(leaf.index[0]) == definer) {
        copies[leaf.index] = CopyKind::kRemake;
        continue;
      }
      bool keep = first && definer->parent() == computation && !IsParameterOrConstant(definer) &&
                  !value.IsRootOf(computation);
      std::vector<HloInstruction*> readers;
      if (keep) {
        readers = Readers(dataflow, value, computation);
        for (HloInstruction* reader : readers) {
          if (reader == loop) continue;
          // A loop's final state is read inside that loop only before the
          // loop has made it, so before this loop, which takes it, starts
          // (a scan's stacked residuals handed to its backward scan).
          if (reader == definer && definer->opcode() == HloOpcode::kWhile) continue;
          if (reader->opcode() == HloOpcode::kWhile || Reaches(loop, reader)) {
            keep = false;
            break;
          }
        }
        // A value also read through a position outside this computation
        // (it cannot be: it is not in the result) would have failed above.
      }
      if (!keep) {
        copies[leaf.index] = CopyKind::kSingle;
        continue;
      }
      for (HloInstruction* reader : readers) {
        if (reader != loop) edges.push_back({reader, loop});
      }
    }
    bool changed = false;
    for (auto& [from, to] : edges) changed |= AddEdge(from, to);
    if (copies.empty()) return changed;
    std::map<ShapeIndex, HloInstruction*> made;
    ShapeIndex prefix;
    HloInstruction* old_init = loop->operand(0);
    HloInstruction* init =
        Rebuild(computation, old_init, old_init->shape(), &prefix, copies, &made);
    loop->ReplaceOperandWith(0, init).IgnoreError();
    maybe_dead_.push_back({computation, old_init});
    return true;
  }

  // Rebuilds the root of `computation` with `copies`; returns the copies.
  std::map<ShapeIndex, HloInstruction*> ReplaceRoot(HloComputation* computation,
                                                    const std::map<ShapeIndex, CopyKind>& copies) {
    std::map<ShapeIndex, HloInstruction*> made;
    if (copies.empty()) return made;
    HloInstruction* old_root = computation->root_instruction();
    ShapeIndex prefix;
    HloInstruction* root = Rebuild(computation, old_root, old_root->shape(), &prefix, copies, &made);
    computation->set_root_instruction(root);
    maybe_dead_.push_back({computation, old_root});
    return made;
  }

  bool FixEntryRoot(const HloDataflowAnalysis& dataflow, HloComputation* entry) {
    std::map<ShapeIndex, CopyKind> copies;
    absl::flat_hash_set<const HloValue*> seen;
    for (const HloLeafValue& leaf : dataflow.GetLeafValues(entry->root_instruction())) {
      const HloValue& value = *leaf.value;
      const HloInstruction* definer = value.defining_instruction();
      bool keep = seen.insert(&value).second && definer->opcode() != HloOpcode::kConstant;
      if (keep && definer->opcode() == HloOpcode::kParameter && definer->parent() == entry) {
        keep = false;
        for (const InputOutputAlias& alias : module_->config().input_output_alias) {
          keep |= alias.output_index == leaf.index &&
                  alias.parameter_number == definer->parameter_number() &&
                  alias.parameter_index == value.defining_index();
        }
      }
      if (!keep) copies[leaf.index] = CopyKind::kSingle;
    }
    ReplaceRoot(entry, copies);
    return !copies.empty();
  }

  bool FixBranchRoot(const HloDataflowAnalysis& dataflow, HloComputation* branch) {
    std::map<ShapeIndex, CopyKind> copies;
    absl::flat_hash_set<const HloValue*> seen;
    for (const HloLeafValue& leaf : dataflow.GetLeafValues(branch->root_instruction())) {
      const HloValue& value = *leaf.value;
      const HloInstruction* definer = value.defining_instruction();
      bool keep = seen.insert(&value).second && definer->parent() == branch &&
                  !IsParameterOrConstant(definer);
      if (keep) {
        for (HloInstruction* reader : Readers(dataflow, value, branch)) {
          keep &= reader->opcode() != HloOpcode::kWhile;
        }
      }
      if (!keep) copies[leaf.index] = CopyKind::kSingle;
    }
    ReplaceRoot(branch, copies);
    return !copies.empty();
  }

  bool FixBodyRoot(const HloDataflowAnalysis& dataflow, const HloAliasAnalysis& alias,
                   HloComputation* body, const HloInstruction* loop) {
    std::map<ShapeIndex, CopyKind> copies;
    std::map<ShapeIndex, std::vector<HloInstruction*>> readers_of_state;
    std::vector<std::pair<HloInstruction*, HloInstruction*>> edges;
    absl::flat_hash_set<const HloValue*> seen;
    bool changed = false;
    for (const HloLeafValue& leaf : dataflow.GetLeafValues(body->root_instruction())) {
      const HloValue& next = *leaf.value;
      const HloValue* state = dataflow.GetValueAt(loop, leaf.index);
      if (state == nullptr) continue;
      if (&next == state) {
        seen.insert(&next);
        continue;  // the state passes through unchanged
      }
      std::vector<HloInstruction*> readers = Readers(dataflow, *state, body);
      readers_of_state[leaf.index] = readers;
      const HloInstruction* definer = next.defining_instruction();
      if (definer == loop) {
        // Another element of the state: copy it out before anything
        // overwrites it, then into place.
        copies[leaf.index] = CopyKind::kDouble;
        continue;
      }
      bool keep = seen.insert(&next).second && definer->parent() == body &&
                  !IsParameterOrConstant(definer);
      HloInstruction* maker = const_cast<HloInstruction*>(definer);
      if (keep) {
        for (HloInstruction* reader : Readers(dataflow, next, body)) {
          keep &= reader->opcode() != HloOpcode::kWhile;
        }
      }
      if (keep) {
        // The maker may read the old state only where it can work in place.
        for (const HloUse& use : state->uses()) {
          if (dataflow.LiftToComputation(use.instruction, body) != maker) continue;
          keep &= use.instruction == maker &&
                  dataflow.CanShareOperandBuffer(*maker, use.operand_number, use.operand_index,
                                                 next.defining_index());
        }
      }
      // The new state's own storage group (a nested loop's state, a nested
      // conditional's result) joins the loop state: whoever makes a member
      // must wait for every reader of the old state.
      std::vector<HloInstruction*> makers = {maker};
      if (keep) {
        for (const HloValue* member : alias.GetBufferContainingValue(next).values()) {
          if (member == &next) continue;
          const HloInstruction* lifted =
              dataflow.LiftToComputation(member->defining_instruction(), body);
          // Values made outside the body are this loop's own state group
          // (its phi, its init and what flows into that).
          if (lifted == nullptr) continue;
          if (lifted == maker) continue;  // made inside the maker's callees
          if (IsParameterOrConstant(lifted) ||
              std::find(readers.begin(), readers.end(), lifted) != readers.end()) {
            keep = false;
            break;
          }
          makers.push_back(const_cast<HloInstruction*>(lifted));
        }
      }
      if (keep) {
        for (HloInstruction* reader : readers) {
          for (HloInstruction* m : makers) {
            if (reader != m && Reaches(m, reader)) keep = false;
          }
        }
      }
      if (!keep) {
        copies[leaf.index] = CopyKind::kSingle;
        continue;
      }
      for (HloInstruction* reader : readers) {
        for (HloInstruction* m : makers) {
          if (reader != m) changed |= AddEdge(reader, m);
        }
      }
    }
    const std::map<ShapeIndex, HloInstruction*> made = ReplaceRoot(body, copies);
    for (const auto& [index, copy] : made) {
      for (HloInstruction* reader : readers_of_state[index]) changed |= AddEdge(reader, copy);
    }
    return changed || !copies.empty();
  }

  HloModule* module_;
  int64_t* copies_;
  int64_t* edges_;
  std::vector<std::pair<HloComputation*, HloInstruction*>> maybe_dead_;
};

}  // namespace

absl::StatusOr<bool> CopyInsertion::Run(HloModule* module) {
  copies_added_ = 0;
  control_edges_added_ = 0;
  computations_cloned_ = FlattenCallGraph(module);
  bool changed = computations_cloned_ > 0;
  Copier copier(module, &copies_added_, &control_edges_added_);
  for (int round = 0; round < 64; ++round) {
    TS_ASSIGN_OR_RETURN(std::unique_ptr<HloDataflowAnalysis> dataflow,
                        HloDataflowAnalysis::Run(*module));
    bool round_changed = copier.FixWhileInits(*dataflow);
    copier.RemoveDead();
    if (round_changed) {
      TS_ASSIGN_OR_RETURN(dataflow, HloDataflowAnalysis::Run(*module));
    }
    round_changed |= copier.FixRoots(*dataflow);
    copier.RemoveDead();
    if (!round_changed) break;
    changed = true;
  }
  if (changed) module->clear_schedule();
  return changed;
}

}  // namespace tessera
