// Random valid HLO modules for differential testing: a seeded generator of
// entry computations over a mix of elementwise ops, constants (with the
// identities passes look for: 0, 1, -1, 2), broadcasts, reshapes,
// transposes, slices, concatenates, reductions, dots, compares and selects.
// Every module verifies; the same seed gives the same module.
#ifndef TESSERA_HLO_TESTING_RANDOM_MODULE_H_
#define TESSERA_HLO_TESTING_RANDOM_MODULE_H_

#include <cstdint>
#include <memory>

#include "hlo/ir/hlo_module.h"

namespace tessera {

struct RandomModuleOptions {
  uint64_t seed = 0;
  int num_parameters = 3;
  int num_instructions = 24;  // besides parameters and the root tuple
  // F32 or S32: the element type of the parameters and most values.
  PrimitiveType element_type = F32;
  // Give about half the arrays of rank >= 2 a random (non-row-major)
  // layout, as a module before XLA's layout assignment may have.
  bool random_layouts = false;
};

std::unique_ptr<HloModule> MakeRandomModule(const RandomModuleOptions& options);

}  // namespace tessera

#endif  // TESSERA_HLO_TESTING_RANDOM_MODULE_H_
