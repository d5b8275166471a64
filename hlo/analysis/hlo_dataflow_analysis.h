// HloDataflowAnalysis: the HLO values of a module, where each one is held
// (positions) and read (uses).
//
// A value is one array leaf of data that some instruction makes: every array
// leaf of an instruction's output is either a new value defined there or a
// value that flows in from elsewhere.  Values are what buffer assignment
// gives storage to; tuples are only structure (no storage of their own), and
// tokens carry no data.
//
//   defines new values            forwards values (defines none)
//   ----------------------------  -------------------------------------------
//   entry parameters, constants,  tuple, get-tuple-element, bitcast,
//   every computing op, fusion    opt-barrier, add-dependency (operand 0),
//   (each leaf of a multi-output  domain; call (its output is the callee
//   fusion), while and            root's values); the parameters of while
//   conditional (one "phi" value  bodies and conditions (the loop state),
//   per leaf: the loop state /    of conditional branches (the branch
//   the merge of the branches)    operand) and of call callees (the operand)
//
// The analysis is in SSA form: every array leaf position holds exactly one
// value.  A while's phi value stands for the loop state: it is the while's
// output and its body's and condition's parameter; the init operand's value
// and the body root's value flow into it (phi_inputs) and must share its
// storage, and so must a conditional's branch roots with its phi (see
// HloAliasAnalysis).
//
// Forwarding through parameters needs each such computation to be called
// from one place.  A computation called sequentially (while, conditional,
// call) from exactly one call site, and not also used as a reducer, is
// "flat"; any other non-fusion computation (reducers, comparators,
// computations called from several sites) is analysed on its own, its
// parameters defining values.  Fused computations are not analysed: a fusion
// instruction is one op that defines its outputs.
#ifndef TESSERA_HLO_ANALYSIS_HLO_DATAFLOW_ANALYSIS_H_
#define TESSERA_HLO_ANALYSIS_HLO_DATAFLOW_ANALYSIS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/ir/shape.h"

namespace tessera {

// A place a value is held: an array leaf of an instruction's output.
struct HloPosition {
  const HloInstruction* instruction = nullptr;
  ShapeIndex index;
  bool operator==(const HloPosition&) const = default;
  std::string ToString() const;  // "%name{1,0}"
};

// A read of a value: `instruction` reads leaf `operand_index` of its operand
// `operand_number`.  Forwarding ops (tuple, get-tuple-element, bitcast, ...)
// do not read the values they forward: the readers of their output do.
struct HloUse {
  const HloInstruction* instruction = nullptr;
  int64_t operand_number = 0;
  ShapeIndex operand_index;
  bool operator==(const HloUse&) const = default;
  std::string ToString() const;  // "%name operand 0 {1}"
};

class HloValue {
 public:
  HloValue(int64_t id, const HloInstruction* instruction, ShapeIndex index, bool is_phi);

  int64_t id() const { return id_; }
  const HloInstruction* defining_instruction() const { return instruction_; }
  const ShapeIndex& defining_index() const { return index_; }
  HloPosition defining_position() const { return {instruction_, index_}; }
  // The array shape of the value.
  const Shape& shape() const;
  // True for the loop state of a while and the merged result of a
  // conditional.
  bool is_phi() const { return is_phi_; }
  // For a phi: the values that flow into it (a while's init and body root
  // leaves, a conditional's branch root leaves), where the callees are flat.
  const std::vector<const HloValue*>& phi_inputs() const { return phi_inputs_; }

  // The defining position first, then the others in analysis order.
  const std::vector<HloPosition>& positions() const { return positions_; }
  const std::vector<HloUse>& uses() const { return uses_; }
  // True when some position is the root of its computation.
  bool IsRootOf(const HloComputation* computation) const;

  // "%name" or "%name{1}".
  std::string ToShortString() const;

 private:
  friend class HloDataflowAnalysis;
  int64_t id_;
  const HloInstruction* instruction_;
  ShapeIndex index_;
  bool is_phi_;
  std::vector<const HloValue*> phi_inputs_;
  std::vector<HloPosition> positions_;
  std::vector<HloUse> uses_;
};

// One array leaf of an instruction's output and the value held there.
struct HloLeafValue {
  ShapeIndex index;
  const HloValue* value = nullptr;
};

struct FusionSharingGraph;  // hlo_dataflow_analysis.cc

class HloDataflowAnalysis {
 public:
  // How a non-fusion computation is called.
  enum class Context {
    kEntry,
    kFlat,      // sequential (while/conditional/call), from exactly one call site
    kIsolated,  // anything else: reducers, computations called from several sites, unreachable
    kFusion,    // a fused computation (not analysed)
  };

  static absl::StatusOr<std::unique_ptr<HloDataflowAnalysis>> Run(const HloModule& module);
  ~HloDataflowAnalysis();

  // CanShareOperandBufferWithUser (below) for this analysis's module, which
  // must not change meanwhile: a multi-output fusion's sharing graph (which
  // outputs read which operands) is built once per fusion, not once per
  // query, which made asking about every operand and output of a big
  // horizontal fusion quadratic in both.  Thread-safe.
  bool CanShareOperandBuffer(const HloInstruction& user, int64_t operand_number,
                             const ShapeIndex& operand_index, const ShapeIndex& user_index) const;

  const HloModule& module() const { return module_; }

  // All values, indexed by id.
  const std::vector<std::unique_ptr<HloValue>>& values() const { return values_; }
  const HloValue& value(int64_t id) const { return *values_[id]; }

  // The array leaves of `instruction`'s output with their values, in
  // pre-order; empty for fused instructions and token-only shapes.
  const std::vector<HloLeafValue>& GetLeafValues(const HloInstruction* instruction) const;
  // The value at a position; null when the position is not an array leaf of
  // an analysed instruction.
  const HloValue* GetValueAt(const HloInstruction* instruction, const ShapeIndex& index = {}) const;
  // The value defined at a position, or null when the value there is
  // defined elsewhere (or there is none).
  const HloValue* GetValueDefinedAt(const HloInstruction* instruction,
                                    const ShapeIndex& index = {}) const;
  // The values `instruction` defines.
  std::vector<const HloValue*> GetValuesDefinedBy(const HloInstruction* instruction) const;

  Context context(const HloComputation* computation) const;
  // The one call site of a flat computation; null for other computations.
  const HloInstruction* caller(const HloComputation* computation) const;
  // The entry and every flat computation reachable from it through flat
  // calls, callers before callees: the computations whose values need
  // storage of their own (buffer assignment's scope).
  const std::vector<const HloComputation*>& sequential_computations() const {
    return sequential_computations_;
  }
  bool InSequentialScope(const HloComputation* computation) const;
  // The non-flat computations that a computation in the sequential scope
  // calls sequentially (a body shared by two loops, ...): buffer assignment
  // needs them cloned per call site first (copy insertion does it).
  const std::vector<const HloComputation*>& unflattened_callees() const {
    return unflattened_callees_;
  }

  // `instruction`, or the instruction of `computation` whose execution runs
  // it (through flat calls); null when it does not run inside `computation`.
  const HloInstruction* LiftToComputation(const HloInstruction* instruction,
                                          const HloComputation* computation) const;

  std::string ToString() const;

 private:
  explicit HloDataflowAnalysis(const HloModule& module);
  void ComputeContexts();
  // Analyses `computation`; `parameter_leaves` (one list per parameter) is
  // what its parameters forward, or null when they define values.
  void Analyze(const HloComputation* computation,
               const std::vector<const std::vector<HloLeafValue>*>* parameter_leaves);
  void AnalyzeInstruction(const HloInstruction* instruction, bool parameters_forward,
                          const std::vector<const std::vector<HloLeafValue>*>* parameter_leaves);
  HloValue* NewValue(const HloInstruction* instruction, const ShapeIndex& index, bool is_phi);
  // Defines a new value at every array leaf of `instruction`.
  void DefineAll(const HloInstruction* instruction, bool is_phi);
  void SetLeaves(const HloInstruction* instruction, std::vector<HloLeafValue> leaves);
  void ComputeUses();

  const HloModule& module_;
  std::vector<std::unique_ptr<HloValue>> values_;
  absl::flat_hash_map<const HloInstruction*, std::vector<HloLeafValue>> leaves_;
  absl::flat_hash_map<const HloComputation*, Context> contexts_;
  absl::flat_hash_map<const HloComputation*, const HloInstruction*> callers_;
  std::vector<const HloComputation*> sequential_computations_;
  std::vector<const HloComputation*> unflattened_callees_;
  absl::flat_hash_map<const HloComputation*, bool> analyzed_;
  mutable absl::Mutex sharing_graphs_mutex_;
  mutable absl::flat_hash_map<const HloInstruction*, std::unique_ptr<FusionSharingGraph>>
      sharing_graphs_;
};

// Whether `user` may write its output leaf `user_index` over the storage of
// its operand leaf (`operand_number`, `operand_index`), provided that leaf's
// value is not read after `user`: elementwise ops with an operand of the
// output's dimensions and element width; dynamic-update-slice and scatter on
// the operand they update; a while on its init (the loop state); a fusion
// whose fused parameter is only read elementwise on the way to the output,
// or is the updated operand of a dynamic-update-slice root (for a kOutput
// fusion, only one whose backend stages the product apart: one rank-2,
// row-major f32/f64/s32 dot of its own type, as the accumulation
// `acc + a x b`).
bool CanShareOperandBufferWithUser(const HloInstruction& user, int64_t operand_number,
                                   const ShapeIndex& operand_index, const ShapeIndex& user_index);

// True for instructions that forward their operand's values without
// defining or reading any (tuple, get-tuple-element, bitcast, opt-barrier,
// domain, add-dependency).
bool IsForwardingInstruction(const HloInstruction& instruction);

}  // namespace tessera

#endif  // TESSERA_HLO_ANALYSIS_HLO_DATAFLOW_ANALYSIS_H_
