// HloPass: one transformation of a whole module.
//
// A pass takes a module and says whether it changed it.  Passes keep the
// module valid (the pipeline verifies after each one in tests and debug
// builds) and keep its results: what a module computes on the evaluator
// before a pass, it computes after (bit-for-bit unless the pass documents a
// fast-math option that relaxes floating point).
#ifndef TESSERA_PASSES_HLO_PASS_H_
#define TESSERA_PASSES_HLO_PASS_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/ir/hlo_module.h"

namespace tessera {

class HloPass {
 public:
  virtual ~HloPass() = default;

  // A short lower-case name ("dce", "algsimp"), used in dumps, stats and
  // `tessera opt --passes=`.
  virtual absl::string_view name() const = 0;

  // Runs the pass; true when the module changed.
  virtual absl::StatusOr<bool> Run(HloModule* module) = 0;
};

}  // namespace tessera

#endif  // TESSERA_PASSES_HLO_PASS_H_
