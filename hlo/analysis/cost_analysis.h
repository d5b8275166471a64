// Cost analysis: how much arithmetic and memory traffic a module's entry
// computation does, for `tessera bench`'s GFLOP/s and GB/s.
//
// flops: one per output element of an elementwise op (transcendentals also
// counted apart), 2·M·N·K for a dot, 2 per multiply-add of a convolution,
// one per input element of a reduction, 5 N log2(N) per FFT of N points
// (2.5 N log2(N) for RFFT and IRFFT).  Fusion instructions count the
// flops of their fused computation.
// bytes: what each top-level kernel reads and writes: operand and result
// bytes of every instruction of the entry computation that does work (not
// parameters, constants, tuples, get-tuple-element or bitcasts), so a fused
// kernel counts only its own inputs and outputs, not its intermediates.
// Loop bodies and branches count once (trip counts are unknown statically).
#ifndef TESSERA_HLO_ANALYSIS_COST_ANALYSIS_H_
#define TESSERA_HLO_ANALYSIS_COST_ANALYSIS_H_

#include <cstdint>

#include "hlo/ir/hlo_module.h"

namespace tessera {

struct HloCost {
  double flops = 0;
  double transcendentals = 0;
  double bytes_accessed = 0;
};

HloCost AnalyzeCost(const HloModule& module);
// The same for one computation (and what it calls).
HloCost AnalyzeComputationCost(const HloComputation& computation);

}  // namespace tessera

#endif  // TESSERA_HLO_ANALYSIS_COST_ANALYSIS_H_
