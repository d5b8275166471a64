// `tessera run MODULE [--backend=interpreter] [--input=FILE.npy ...]
//  [--random_inputs --seed=N] [--output_dir=DIR] [--print]`: runs a module
// on the chosen backend and writes or prints its results.
#ifndef TESSERA_TOOLS_RUN_COMMAND_H_
#define TESSERA_TOOLS_RUN_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/ir/literal.h"

namespace tessera {

// `args` excludes "tessera run".  Results and notes go to `out`.
absl::Status RunRunCommand(const std::vector<std::string>& args, std::ostream& out);

std::string RunUsage();

// The entry computation's arguments from `.npy` files, checked against the
// parameters (count, element type, dimensions); errors name the parameter.
absl::StatusOr<std::vector<Literal>> LoadArguments(const HloModule& module,
                                                   const std::vector<std::string>& paths);

// Seeded random arguments for every parameter of the entry computation.
absl::StatusOr<std::vector<Literal>> RandomArguments(const HloModule& module, uint64_t seed);

}  // namespace tessera

#endif  // TESSERA_TOOLS_RUN_COMMAND_H_
