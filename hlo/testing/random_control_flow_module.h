// Random valid HLO modules with control flow, for buffer-assignment and
// scheduling tests: seeded generators of entry computations that mix
// elementwise ops, constants, bitcasts, dynamic-update-slices, reductions and
// tuples with while loops (a counter and array state, whose bodies update
// state elements in place, pass them through, swap them or replace them
// with constants), conditionals (pred or index selected, branches that
// compute, pass their operand through or return constants), calls, and
// nesting of these.  The result sometimes returns a parameter, a constant or
// a value twice, and sometimes donates a parameter to an output
// (input_output_alias).  Every module verifies and runs on the evaluator;
// the same seed gives the same module.
#ifndef TESSERA_HLO_TESTING_RANDOM_CONTROL_FLOW_MODULE_H_
#define TESSERA_HLO_TESTING_RANDOM_CONTROL_FLOW_MODULE_H_

#include <cstdint>
#include <memory>

#include "hlo/ir/hlo_module.h"

namespace tessera {

struct RandomControlFlowModuleOptions {
  uint64_t seed = 0;
  // F32 or S32: the element type of the parameters and most values.
  PrimitiveType element_type = F32;
  int num_parameters = 3;
  int num_steps = 10;  // ops (or control-flow constructs) in the entry
  int max_depth = 2;   // nesting of loops, conditionals and calls
  // Give about half the arrays of rank >= 2 a random layout, so that loop
  // state, branch operands and their computations' parameters may
  // disagree on layouts (as JAX's modules do).
  bool random_layouts = false;
};

std::unique_ptr<HloModule> MakeRandomControlFlowModule(
    const RandomControlFlowModuleOptions& options);

}  // namespace tessera

#endif  // TESSERA_HLO_TESTING_RANDOM_CONTROL_FLOW_MODULE_H_
