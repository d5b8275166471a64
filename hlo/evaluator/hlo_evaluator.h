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

#include <atomic>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/ir/literal.h"

namespace tessera {

struct EvaluateOptions {
  // When set, checked before every instruction the evaluation runs (so
  // every loop iteration and every call of a reducer): once it is true, the
  // evaluation stops with CancelledError naming the instruction it did not
  // start.  One instruction already running (a large dot) runs to its end.
  // A service's deadline or cancelled call sets it: an endless loop would
  // otherwise hold its execution slot for good.
  const std::atomic<bool>* cancelled = nullptr;
};

// Evaluates the entry computation of `module` on `arguments`.
absl::StatusOr<Literal> EvaluateModule(const HloModule& module, absl::Span<const Literal> arguments,
                                       const EvaluateOptions& options = {});

// Evaluates `computation` (any computation of a module) on `arguments`.
absl::StatusOr<Literal> EvaluateComputation(const HloComputation& computation,
                                            absl::Span<const Literal> arguments,
                                            const EvaluateOptions& options = {});

}  // namespace tessera

#endif  // TESSERA_HLO_EVALUATOR_HLO_EVALUATOR_H_
