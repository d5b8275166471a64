// `tessera run MODULE [--backend=interpreter|cpu] [--input=FILE.npy ...]
//  [--random_inputs --seed=N] [--output_dir=DIR] [--print]
//  [--compare_with=BACKEND --tolerance=T]`: runs a module
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

// Compares `actual` (from `backend`) with `expected` (from `reference`)
// leaf by leaf, printing the largest absolute and relative error of each;
// FailedPrecondition naming the outputs where an element differs by more
// than tolerance * (1 + |expected|) (integers and NaN-ness exactly).
absl::Status CompareResults(const Literal& expected, const Literal& actual, double tolerance,
                            absl::string_view backend, absl::string_view reference,
                            std::ostream& out);

// Seeded random arguments for every parameter of the entry computation.
absl::StatusOr<std::vector<Literal>> RandomArguments(const HloModule& module, uint64_t seed);

}  // namespace tessera

#endif  // TESSERA_TOOLS_RUN_COMMAND_H_
