// Test-only: a structural comparison of two modules, for round-trip tests
// (IR -> proto -> IR).  Instructions are matched by position; operands,
// control predecessors and callees by name, since ids are reassigned on
// import.  Everything HloModuleProto carries is compared: names, order,
// shapes with layouts, attributes (HloAttributes::operator==), roots, the
// entry, fusion flags, execution threads, the module config and schedule.
#ifndef TESSERA_HLO_PROTO_MODULE_COMPARISON_TEST_UTIL_H_
#define TESSERA_HLO_PROTO_MODULE_COMPARISON_TEST_UTIL_H_

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/ir/hlo_module.h"

namespace tessera {
namespace test_util {

inline std::vector<std::string> InstructionNames(const std::vector<HloInstruction*>& list) {
  std::vector<std::string> names;
  for (const HloInstruction* h : list) names.push_back(h == nullptr ? "<null>" : h->name());
  return names;
}

inline std::vector<std::string> ComputationNames(const std::vector<HloComputation*>& list) {
  std::vector<std::string> names;
  for (const HloComputation* c : list) names.push_back(c == nullptr ? "<null>" : c->name());
  return names;
}

// "" when `a` and `b` agree on everything a proto carries, else the first
// difference.  `compare_entry_layout`: an IR module without an
// entry_computation_layout gets one on import, so callers comparing such a
// module pass false.
inline std::string DescribeModuleDifference(const HloModule& a, const HloModule& b,
                                            bool compare_entry_layout = true) {
  if (a.name() != b.name()) return absl::StrCat("module names ", a.name(), " vs ", b.name());
  const std::vector<HloComputation*> ca = a.computations();
  const std::vector<HloComputation*> cb = b.computations();
  if (ComputationNames(ca) != ComputationNames(cb)) {
    return absl::StrCat("computations [", absl::StrJoin(ComputationNames(ca), ","), "] vs [",
                        absl::StrJoin(ComputationNames(cb), ","), "]");
  }
  if (a.entry_computation()->name() != b.entry_computation()->name()) return "entry differs";
  for (size_t c = 0; c < ca.size(); ++c) {
    const HloComputation& x = *ca[c];
    const HloComputation& y = *cb[c];
    const std::string where = absl::StrCat("computation ", x.name(), ": ");
    if (x.IsFusionComputation() != y.IsFusionComputation()) return where + "fusion flag";
    if (x.execution_thread() != y.execution_thread()) return where + "execution thread";
    if (x.root_instruction()->name() != y.root_instruction()->name()) return where + "root";
    const std::vector<HloInstruction*> ia = x.instructions();
    const std::vector<HloInstruction*> ib = y.instructions();
    if (InstructionNames(ia) != InstructionNames(ib)) {
      return absl::StrCat(where, "instructions [", absl::StrJoin(InstructionNames(ia), ","),
                          "] vs [", absl::StrJoin(InstructionNames(ib), ","), "]");
    }
    for (size_t i = 0; i < ia.size(); ++i) {
      const HloInstruction& h = *ia[i];
      const HloInstruction& g = *ib[i];
      const std::string what = absl::StrCat(where, "%", h.name(), ": ");
      if (h.opcode() != g.opcode()) return what + "opcode";
      if (h.shape() != g.shape()) {
        return absl::StrCat(what, "shape ", h.shape().ToString(true), " vs ",
                            g.shape().ToString(true));
      }
      if (!(h.attrs() == g.attrs())) return what + "attributes";
      if (InstructionNames(h.operands()) != InstructionNames(g.operands())) return what + "operands";
      if (InstructionNames(h.control_predecessors()) !=
          InstructionNames(g.control_predecessors())) {
        return what + "control predecessors";
      }
      if (ComputationNames(h.called_computations()) !=
          ComputationNames(g.called_computations())) {
        return what + "called computations";
      }
    }
    if (a.has_schedule() != b.has_schedule()) return "schedule presence";
    if (a.has_schedule() && a.schedule().HasSequence(&x) != b.schedule().HasSequence(&y)) {
      return where + "schedule presence";
    }
    if (a.has_schedule() && a.schedule().HasSequence(&x) &&
        InstructionNames(a.schedule().sequence(&x)) != InstructionNames(b.schedule().sequence(&y))) {
      return where + "schedule";
    }
  }
  const HloModuleConfig& x = a.config();
  const HloModuleConfig& y = b.config();
  if (compare_entry_layout && x.entry_computation_layout != y.entry_computation_layout) {
    return "entry_computation_layout";
  }
  if (x.input_output_alias != y.input_output_alias) return "input_output_alias";
  if (x.buffer_donors != y.buffer_donors) return "buffer_donors";
  if (x.frontend_attributes != y.frontend_attributes) return "frontend_attributes";
  if (x.spmd_output_sharding != y.spmd_output_sharding) return "spmd_output_sharding";
  if (x.spmd_parameters_shardings != y.spmd_parameters_shardings) {
    return "spmd_parameters_shardings";
  }
  return "";
}

}  // namespace test_util
}  // namespace tessera

#endif  // TESSERA_HLO_PROTO_MODULE_COMPARISON_TEST_UTIL_H_
