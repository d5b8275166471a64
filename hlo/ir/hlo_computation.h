// HloComputation: a DAG of instructions with numbered parameters and one
// root.  It owns its instructions; all edits go through the mutation API so
// that operands and users stay consistent.
#ifndef TESSERA_HLO_IR_HLO_COMPUTATION_H_
#define TESSERA_HLO_IR_HLO_COMPUTATION_H_

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "hlo/ir/hlo_instruction.h"

namespace tessera {

// Parameter shapes (with names) and the result shape of a computation.
struct ProgramShape {
  std::vector<Shape> parameters;
  std::vector<std::string> parameter_names;
  Shape result;
  bool operator==(const ProgramShape&) const = default;
  // "(f32[2]{0}, s32[])->f32[2]{0}" as in `entry_computation_layout`.
  std::string ToString() const;
  // How errors name parameter i: "parameter 1 (y)", or "parameter 1" when
  // it has no name; `noun` replaces "parameter" ("argument").
  std::string ParameterLabel(int64_t i, absl::string_view noun = "parameter") const;
};

class HloComputation {
 public:
  explicit HloComputation(std::string name) : name_(std::move(name)) {}
  ~HloComputation();
  HloComputation(const HloComputation&) = delete;
  HloComputation& operator=(const HloComputation&) = delete;

  const std::string& name() const { return name_; }
  void SetName(std::string name) { name_ = std::move(name); }
  int64_t unique_id() const { return unique_id_; }
  void SetUniqueId(int64_t id) { unique_id_ = id; }

  HloModule* parent() const { return parent_; }
  void set_parent(HloModule* module) { parent_ = module; }

  // Adds an instruction (its operands must already be in this computation).
  // A parameter is registered as parameter `parameter_number()`; gaps are
  // allowed while building and checked by the verifier.  When the
  // computation belongs to a module, the module gives the instruction a
  // unique id and, if needed, a unique name.
  HloInstruction* AddInstruction(std::unique_ptr<HloInstruction> instruction);

  // Removes an instruction that has no users and is not the root.
  absl::Status RemoveInstruction(HloInstruction* instruction);
  // Removes `instruction` and then every operand left without users
  // (parameters and side-effecting ops stay).
  absl::Status RemoveInstructionAndUnusedOperands(HloInstruction* instruction);
  // Redirects all uses of `old_instruction` to `new_instruction`, then
  // removes `old_instruction`.
  absl::Status ReplaceInstruction(HloInstruction* old_instruction,
                                  HloInstruction* new_instruction);
  // Adds `new_instruction` and replaces `old_instruction` by it.
  absl::Status ReplaceWithNewInstruction(HloInstruction* old_instruction,
                                         std::unique_ptr<HloInstruction> new_instruction);

  HloInstruction* root_instruction() const { return root_; }
  void set_root_instruction(HloInstruction* root) { root_ = root; }

  int64_t num_parameters() const { return static_cast<int64_t>(parameters_.size()); }
  HloInstruction* parameter_instruction(int64_t number) const { return parameters_.at(number); }
  // Indexed by parameter number; an entry is null where no parameter has
  // that number (an invalid computation the verifier reports).
  const std::vector<HloInstruction*>& parameter_instructions() const { return parameters_; }

  int64_t instruction_count() const { return static_cast<int64_t>(instructions_.size()); }
  // Instructions in the order they were added.
  std::vector<HloInstruction*> instructions() const;
  // Whether an instruction other than `except` is named `name` (a lookup
  // in the computation's count of names).
  bool HasOtherInstructionNamed(absl::string_view name, const HloInstruction* except) const;
  bool Contains(const HloInstruction* instruction) const {
    return positions_.contains(instruction);
  }

  // Operands (and control predecessors) before users; every instruction
  // once, including ones not reachable from the root.
  std::vector<HloInstruction*> MakeInstructionPostOrder() const;
  // Puts the instructions in `order` (a permutation of them), which
  // instructions() then returns; nothing is copied.
  absl::Status ReorderInstructions(absl::Span<HloInstruction* const> order);

  ProgramShape ComputeProgramShape() const;

  // Fusion computations know the fusion instruction that calls them.
  bool IsFusionComputation() const { return is_fusion_computation_; }
  void SetIsFusionComputation(bool value) { is_fusion_computation_ = value; }
  const std::string& execution_thread() const { return execution_thread_; }
  void SetExecutionThread(std::string thread) { execution_thread_ = std::move(thread); }

  // How many calls the instructions of module computations make to this
  // one (an instruction that calls it twice counts twice); 0 until one
  // does.  Kept as instructions join and leave the module's computations
  // and change what they call, so that removing a computation need not
  // scan the module for callers (fusion removes one per fusion step).
  int64_t caller_count() const { return caller_count_; }

 private:
  friend class HloInstruction;  // renames, and changes of what it calls
  friend class HloModule;       // caller counts as instructions come and go

  // `instruction`, of this computation, was renamed.
  void NoteRename(const std::string& old_name, const std::string& new_name);
  void CountName(const std::string& name, int64_t delta);

  std::string name_;
  int64_t unique_id_ = -1;
  HloModule* parent_ = nullptr;
  std::list<std::unique_ptr<HloInstruction>> instructions_;
  absl::flat_hash_map<const HloInstruction*, std::list<std::unique_ptr<HloInstruction>>::iterator>
      positions_;
  std::vector<HloInstruction*> parameters_;
  HloInstruction* root_ = nullptr;
  bool is_fusion_computation_ = false;
  std::string execution_thread_;
  // How many instructions have each name (normally one).
  absl::flat_hash_map<std::string, int64_t> name_counts_;
  int64_t caller_count_ = 0;
};

}  // namespace tessera

#endif  // TESSERA_HLO_IR_HLO_COMPUTATION_H_
