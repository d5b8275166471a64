// The reference evaluator: runs an HLO module (or one computation) on host
// literals, slowly and exactly, following XLA's operation semantics.  It is
// the oracle every pass and backend is tested against.
//
//   TS_ASSIGN_OR_RETURN(Literal result, EvaluateModule(*module, {x, y}));
//
// Arguments must match the parameters in number and shape (element type and
// dimensions; layouts are metadata, since literals are row-major).  Ops the
// evaluator cannot run (custom-calls with unknown targets, send/recv,
// infeed/outfeed, stateful rng, ...) give UnimplementedError naming the
// instruction; malformed input gives an error, never a crash.
#ifndef TESSERA_HLO_EVALUATOR_HLO_EVALUATOR_H_
#define TESSERA_HLO_EVALUATOR_HLO_EVALUATOR_H_

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/ir/literal.h"

namespace tessera {

// Evaluates the entry computation of `module` on `arguments`.
absl::StatusOr<Literal> EvaluateModule(const HloModule& module,
                                       absl::Span<const Literal> arguments);

// Evaluates `computation` (any computation of a module) on `arguments`.
absl::StatusOr<Literal> EvaluateComputation(const HloComputation& computation,
                                            absl::Span<const Literal> arguments);

}  // namespace tessera

#endif  // TESSERA_HLO_EVALUATOR_HLO_EVALUATOR_H_
