// The trip count of a counted while loop, for the CPU backend's while
// thunks: a loop whose count is known runs its body that many times and
// never its condition (a fori_loop of small steps: one kernel call less
// per iteration).
//
//   if (std::optional<int64_t> n = KnownTripCount(*while_loop)) ...
//
// Works on the module as the backend runs it: values are traced through
// fusions (a fused parameter to the fusion's operand, a fusion to its
// root, a multi-output fusion's element to its root's operand) and copies.
#ifndef TESSERA_BACKENDS_CPU_WHILE_TRIP_COUNT_H_
#define TESSERA_BACKENDS_CPU_WHILE_TRIP_COUNT_H_

#include <cstdint>
#include <optional>

namespace tessera {

class HloInstruction;

namespace cpu {

// The number of times `while_loop` runs its body, or nullopt when it is
// not of this form: state element k is an s32 or s64 counter that starts
// at a constant c, that the body's root tuple sets to counter + s for a
// constant step s (the only way the state changes it), and that the
// condition's root compares (signed) with a constant bound:
//   counter < n or counter <= n with s > 0, counter > n or counter >= n
//   with s < 0 (either operand order),
// with no step past the bound overflowing the counter's type.
std::optional<int64_t> KnownTripCount(const HloInstruction& while_loop);

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_WHILE_TRIP_COUNT_H_
