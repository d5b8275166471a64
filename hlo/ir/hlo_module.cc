#include "hlo/ir/hlo_module.h"

#include <functional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace tessera {
namespace {

// "add.12" -> "add": the base a fresh name is derived from.
absl::string_view NameBase(absl::string_view name) {
  const size_t dot = name.rfind('.');
  if (dot == absl::string_view::npos || dot == 0) return name;
  int64_t unused;
  if (absl::SimpleAtoi(name.substr(dot + 1), &unused)) return name.substr(0, dot);
  return name;
}

// A name not in `taken`: `base`, else "base.N" for the smallest N not yet
// tried for this base (`next_suffix` remembers it, so handing out many
// names of one base stays linear).
std::string UniqueName(absl::string_view base, absl::flat_hash_set<std::string>& taken,
                       absl::flat_hash_map<std::string, int64_t>& next_suffix) {
  base = NameBase(base);
  if (base.empty()) base = "instruction";
  if (taken.insert(std::string(base)).second) return std::string(base);
  int64_t& suffix = next_suffix[base];
  for (int64_t i = std::max<int64_t>(suffix, 1);; ++i) {
    std::string candidate = absl::StrCat(base, ".", i);
    if (taken.insert(candidate).second) {
      suffix = i + 1;
      return candidate;
    }
  }
}

}  // namespace

HloComputation* HloModule::AddComputation(std::unique_ptr<HloComputation> computation) {
  HloComputation* raw = computation.get();
  raw->set_parent(this);
  raw->SetUniqueId(next_computation_id_++);
  if (raw->name().empty() || computation_names_.contains(raw->name())) {
    raw->SetName(UniqueName(raw->name().empty() ? "computation" : raw->name(),
                            computation_names_, next_suffix_));
  } else {
    computation_names_.insert(raw->name());
  }
  for (HloInstruction* instruction : raw->instructions()) RegisterInstruction(instruction);
  computations_.push_back(std::move(computation));
  return raw;
}

HloComputation* HloModule::AddEntryComputation(std::unique_ptr<HloComputation> computation) {
  entry_ = AddComputation(std::move(computation));
  return entry_;
}

HloComputation* HloModule::AddEmbeddedComputation(std::unique_ptr<HloComputation> computation) {
  return AddComputation(std::move(computation));
}

absl::Status HloModule::RemoveComputation(HloComputation* computation) {
  return RemoveComputations({computation});
}

absl::Status HloModule::RemoveComputations(absl::Span<HloComputation* const> doomed) {
  absl::flat_hash_set<const HloComputation*> removing(doomed.begin(), doomed.end());
  for (const HloComputation* computation : doomed) {
    if (computation == entry_) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot remove the entry computation ", computation->name()));
    }
  }
  // Nothing that stays may call what goes: each doomed computation's
  // callers must all be among the doomed.  The counts say so without a
  // scan; where they do not, the scan names the caller.
  absl::flat_hash_map<const HloComputation*, int64_t> calls_among_doomed;
  for (const HloComputation* computation : doomed) {
    for (const HloInstruction* instruction : computation->instructions()) {
      for (const HloComputation* callee : instruction->called_computations()) {
        if (removing.contains(callee)) ++calls_among_doomed[callee];
      }
    }
  }
  bool may_be_called = false;
  for (const HloComputation* computation : doomed) {
    may_be_called |= computation->caller_count() > calls_among_doomed[computation];
  }
  for (const auto& other : computations_) {
    if (!may_be_called) break;
    if (removing.contains(other.get())) continue;
    for (const HloInstruction* instruction : other->instructions()) {
      for (const HloComputation* callee : instruction->called_computations()) {
        if (removing.contains(callee)) {
          return absl::FailedPreconditionError(
              absl::StrCat("cannot remove computation ", callee->name(),
                           ": it is called by %", instruction->name()));
        }
      }
    }
  }
  size_t found = 0;
  for (const auto& computation : computations_) found += removing.contains(computation.get());
  if (found != removing.size()) {
    return absl::NotFoundError(absl::StrCat("a computation to remove is not in module ", name_));
  }
  for (const HloComputation* computation : doomed) {
    computation_names_.erase(computation->name());
    if (schedule_) schedule_->RemoveSequence(computation);
    // Their instructions' calls go with them.
    for (const HloInstruction* instruction : computation->instructions()) {
      for (HloComputation* callee : instruction->called_computations()) {
        if (callee != nullptr) --callee->caller_count_;
      }
    }
  }
  std::erase_if(computations_, [&](const std::unique_ptr<HloComputation>& computation) {
    return removing.contains(computation.get());
  });
  return absl::OkStatus();
}

std::vector<HloComputation*> HloModule::computations() const {
  std::vector<HloComputation*> result;
  result.reserve(computations_.size());
  for (const auto& c : computations_) result.push_back(c.get());
  return result;
}

std::vector<HloComputation*> HloModule::MakeComputationPostOrder() const {
  std::vector<HloComputation*> order;
  absl::flat_hash_set<const HloComputation*> visited;
  // Iterative DFS over call edges; a cycle (invalid) cannot loop forever
  // because each computation is visited once.
  std::function<void(HloComputation*)> visit = [&](HloComputation* root) {
    std::vector<std::pair<HloComputation*, std::vector<HloComputation*>>> stack;
    auto callees = [](HloComputation* c) {
      std::vector<HloComputation*> result;
      for (const HloInstruction* instruction : c->instructions()) {
        for (HloComputation* callee : instruction->called_computations()) {
          if (callee != nullptr) result.push_back(callee);
        }
      }
      return result;
    };
    visited.insert(root);
    stack.push_back({root, callees(root)});
    while (!stack.empty()) {
      auto& [current, pending] = stack.back();
      if (!pending.empty()) {
        HloComputation* next = pending.front();
        pending.erase(pending.begin());
        if (!visited.contains(next)) {
          visited.insert(next);
          stack.push_back({next, callees(next)});
        }
      } else {
        order.push_back(current);
        stack.pop_back();
      }
    }
  };
  // Computations unreachable from the entry first, then the entry's tree.
  std::vector<HloComputation*> reachable_from_entry;
  if (entry_ != nullptr) {
    visit(entry_);
    reachable_from_entry.swap(order);
  }
  for (const auto& c : computations_) {
    if (!visited.contains(c.get())) visit(c.get());
  }
  order.insert(order.end(), reachable_from_entry.begin(), reachable_from_entry.end());
  return order;
}

HloComputation* HloModule::GetComputationWithName(absl::string_view name) const {
  for (const auto& c : computations_) {
    if (c->name() == name) return c.get();
  }
  return nullptr;
}

int64_t HloModule::instruction_count() const {
  int64_t count = 0;
  for (const auto& c : computations_) count += c->instruction_count();
  return count;
}

std::string HloModule::UniqueInstructionName(absl::string_view base) {
  return UniqueName(base, instruction_names_, next_suffix_);
}

std::string HloModule::UniqueComputationName(absl::string_view base) {
  return UniqueName(base, computation_names_, next_computation_suffix_);
}

void HloModule::RegisterInstruction(HloInstruction* instruction) {
  instruction->SetUniqueId(NewUniqueInstructionId());
  for (HloComputation* callee : instruction->called_computations()) {
    if (callee != nullptr) ++callee->caller_count_;
  }
  // Names need only be unique within a computation (XLA text may reuse
  // "p0" in several); a clash inside the same computation gets a fresh name.
  // A name the module has not seen cannot clash, which spares the scan of
  // the computation (quadratic over a big one) for all but reused names.
  bool clash = instruction->name().empty();
  if (!clash && instruction->parent() != nullptr &&
      instruction_names_.contains(instruction->name())) {
    clash = instruction->parent()->HasOtherInstructionNamed(instruction->name(), instruction);
  }
  if (clash) {
    instruction->SetName(UniqueInstructionName(
        instruction->name().empty() ? std::string(HloOpcodeString(instruction->opcode()))
                                    : instruction->name()));
  } else {
    instruction_names_.insert(instruction->name());
  }
}

}  // namespace tessera
