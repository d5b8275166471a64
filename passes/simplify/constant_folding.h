// ConstantFolding: an instruction whose operands are all constants is
// evaluated (on the reference evaluator, so the folded value is exactly what
// the op computes) and replaced by a constant.
//
// Not folded: parameters and constants themselves, anything with side
// effects, while loops (their trip count is unbounded), broadcasts (as in
// XLA: cheap to recompute, free once fused, expensive to store), and results
// that would make the module much bigger: iotas and pads above
// `max_expanding_elements` elements, and any result above
// `max_result_bytes`.
#ifndef TESSERA_PASSES_SIMPLIFY_CONSTANT_FOLDING_H_
#define TESSERA_PASSES_SIMPLIFY_CONSTANT_FOLDING_H_

#include <cstdint>

#include "passes/hlo_pass.h"

namespace tessera {

struct ConstantFoldingOptions {
  int64_t max_expanding_elements = 64;
  int64_t max_result_bytes = 1 << 20;
};

class ConstantFolding : public HloPass {
 public:
  explicit ConstantFolding(ConstantFoldingOptions options = {}) : options_(options) {}
  absl::string_view name() const override { return "constant-folding"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  ConstantFoldingOptions options_;
};

}  // namespace tessera

#endif  // TESSERA_PASSES_SIMPLIFY_CONSTANT_FOLDING_H_
