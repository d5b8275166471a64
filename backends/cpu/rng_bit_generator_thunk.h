// rng-bit-generator on raw buffers, for the CPU backend's thunk: the
// evaluator's semantics (hlo/evaluator/evaluator_rng.cc, bit for bit XLA's
// expansion of the op), generated 16 counters at a time in vector lanes
// (rng_bit_generator_kernels.h) and split over the thread pool.
//
//   TS_ASSIGN_OR_RETURN(RngPlan plan, PlanRngBitGenerator(*rng));  // compile time
//   TS_RETURN_IF_ERROR(RunRngBitGenerator(plan, state, new_state, bits, pool));
//
// The state is u64[n], n >= 2; state[0] is the key.  ThreeFry counts with
// state[1]; Philox with the 128-bit (state[1], state[2]), or (state[1],
// state[0]) when n is 2, writing back only state[1] then.  RNG_DEFAULT is
// Philox, as in XLA's CPU backend.
#ifndef TESSERA_BACKENDS_CPU_RNG_BIT_GENERATOR_THUNK_H_
#define TESSERA_BACKENDS_CPU_RNG_BIT_GENERATOR_THUNK_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "hlo/ir/hlo_attributes.h"

namespace tessera {

class HloInstruction;

namespace runtime {
class ThreadPool;
}  // namespace runtime

namespace cpu {

struct RngPlan {
  RandomAlgorithm algorithm = RandomAlgorithm::kPhilox;  // kThreeFry or kPhilox
  int64_t state_words = 2;
  int width = 4;         // bytes per output element: 1, 2, 4 or 8
  int64_t elements = 0;  // of the output
  // A ThreeFry output of 32-bit or narrower words, viewed as [outer,
  // split, inner] around the dimension it splits in halves (the first even
  // one, else the largest; a scalar is [1]).  Unused otherwise.
  int64_t outer = 1, split = 1, inner = 1;
};

// The plan of an HLO rng-bit-generator whose output is row-major and of
// 8, 16, 32 or 64-bit elements; Unimplemented otherwise (the evaluator
// then runs it), InvalidArgument for a malformed one.
absl::StatusOr<RngPlan> PlanRngBitGenerator(const HloInstruction& rng);

// Writes the plan's random bits to `bits` and the advanced state to
// `new_state`, which may be `state` itself; `bits` overlaps neither.
// `pool` may be null.
void RunRngBitGenerator(const RngPlan& plan, const uint64_t* state, uint64_t* new_state, void* bits,
                        runtime::ThreadPool* pool);

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_RNG_BIT_GENERATOR_THUNK_H_
