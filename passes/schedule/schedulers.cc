#include "passes/schedule/schedulers.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace tessera {
namespace {

// Operands, then control predecessors, each once.
std::vector<HloInstruction*> Predecessors(const HloInstruction* instruction) {
  std::vector<HloInstruction*> result;
  for (HloInstruction* operand : instruction->operands()) {
    if (std::find(result.begin(), result.end(), operand) == result.end()) result.push_back(operand);
  }
  for (HloInstruction* predecessor : instruction->control_predecessors()) {
    if (std::find(result.begin(), result.end(), predecessor) == result.end()) {
      result.push_back(predecessor);
    }
  }
  return result;
}

std::vector<HloInstruction*> Successors(const HloInstruction* instruction) {
  std::vector<HloInstruction*> result = instruction->users();
  for (HloInstruction* successor : instruction->control_successors()) {
    if (std::find(result.begin(), result.end(), successor) == result.end()) {
      result.push_back(successor);
    }
  }
  return result;
}

}  // namespace

std::vector<HloInstruction*> PostOrderSchedule(const ComputationMemoryModel& model) {
  return model.computation().MakeInstructionPostOrder();
}

std::vector<HloInstruction*> DfsSchedule(const ComputationMemoryModel& model) {
  const HloComputation& computation = model.computation();
  const std::vector<HloInstruction*> post_order = computation.MakeInstructionPostOrder();
  // Cumulative extra users and bytes of each instruction's operand subtree
  // (shared subtrees count once per path, as in XLA).
  absl::flat_hash_map<const HloInstruction*, int64_t> extra_users, total_bytes;
  absl::flat_hash_map<const HloInstruction*, int64_t> position;
  for (HloInstruction* instruction : post_order) {
    position[instruction] = position.size();
    int64_t users = std::max<int64_t>(0, instruction->user_count() - 1);
    int64_t bytes = 0;
    for (int64_t b : model.defines(instruction)) bytes += model.buffer_size(b);
    for (HloInstruction* operand : Predecessors(instruction)) {
      users += extra_users[operand];
      bytes += total_bytes[operand];
    }
    extra_users[instruction] = users;
    total_bytes[instruction] = bytes;
  }
  auto visit_first = [&](const HloInstruction* a, const HloInstruction* b) {
    if (extra_users[a] != extra_users[b]) return extra_users[a] > extra_users[b];
    if (total_bytes[a] != total_bytes[b]) return total_bytes[a] > total_bytes[b];
    return position[a] < position[b];
  };
  std::vector<HloInstruction*> order;
  order.reserve(post_order.size());
  absl::flat_hash_set<const HloInstruction*> visited;
  std::vector<std::pair<HloInstruction*, std::vector<HloInstruction*>>> stack;
  auto push = [&](HloInstruction* instruction) {
    visited.insert(instruction);
    std::vector<HloInstruction*> predecessors = Predecessors(instruction);
    std::stable_sort(predecessors.begin(), predecessors.end(), visit_first);
    // Visited from the back: reverse so the first to visit is last.
    std::reverse(predecessors.begin(), predecessors.end());
    stack.push_back({instruction, std::move(predecessors)});
  };
  std::vector<HloInstruction*> starts;
  if (computation.root_instruction() != nullptr) starts.push_back(computation.root_instruction());
  for (auto it = post_order.rbegin(); it != post_order.rend(); ++it) starts.push_back(*it);
  for (HloInstruction* start : starts) {
    if (visited.contains(start)) continue;
    push(start);
    while (!stack.empty()) {
      auto& [instruction, pending] = stack.back();
      if (pending.empty()) {
        order.push_back(instruction);
        stack.pop_back();
        continue;
      }
      HloInstruction* next = pending.back();
      pending.pop_back();
      if (!visited.contains(next)) push(next);
    }
  }
  return order;
}

std::vector<HloInstruction*> ListSchedule(const ComputationMemoryModel& model) {
  const HloComputation& computation = model.computation();
  const std::vector<HloInstruction*> post_order = computation.MakeInstructionPostOrder();
  absl::flat_hash_map<const HloInstruction*, int64_t> position, waiting;
  for (HloInstruction* instruction : post_order) {
    position[instruction] = position.size();
    waiting[instruction] = Predecessors(instruction).size();
  }
  std::vector<HloInstruction*> ready;
  for (HloInstruction* instruction : post_order) {
    if (waiting[instruction] == 0) ready.push_back(instruction);
  }
  MemoryTracker tracker(model);
  std::vector<HloInstruction*> order;
  order.reserve(post_order.size());
  while (!ready.empty()) {
    size_t best = 0;
    int64_t best_gain = 0;
    for (size_t i = 0; i < ready.size(); ++i) {
      const int64_t gain = tracker.BytesFreed(ready[i]) - tracker.BytesDefined(ready[i]);
      if (i == 0 || gain > best_gain ||
          (gain == best_gain && position[ready[i]] < position[ready[best]])) {
        best = i;
        best_gain = gain;
      }
    }
    HloInstruction* next = ready[best];
    ready.erase(ready.begin() + best);
    tracker.Schedule(next);
    order.push_back(next);
    for (HloInstruction* successor : Successors(next)) {
      if (--waiting[successor] == 0) ready.push_back(successor);
    }
  }
  return order;
}

}  // namespace tessera
