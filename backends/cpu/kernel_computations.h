// The computations the CPU backend builds its kernels from, out of a
// module's instructions and fused computations.
#ifndef TESSERA_BACKENDS_CPU_KERNEL_COMPUTATIONS_H_
#define TESSERA_BACKENDS_CPU_KERNEL_COMPUTATIONS_H_

#include <cstdint>
#include <memory>

#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "absl/types/span.h"
#include "hlo/ir/shape.h"

namespace tessera {
namespace cpu {

// `instruction` alone over parameters standing for its operands.
std::unique_ptr<HloComputation> SingleOpComputation(const HloInstruction* instruction);

// The part of `fused` (whose root is a tuple) that computes tuple element
// `output`, over all of `fused`'s parameters, then one parameter per
// earlier output (number num_parameters() + j for output j < `output`):
// what an earlier output computed is read from its result.
std::unique_ptr<HloComputation> ExtractOutput(const HloComputation& fused, int64_t output);
// The same with the outputs `earlier` computed before it, in that order
// (parameter num_parameters() + i stands for output earlier[i]).
std::unique_ptr<HloComputation> ExtractOutput(const HloComputation& fused, int64_t output,
                                              absl::Span<const int64_t> earlier);

// What `target` (an instruction of `fused`) computes, over `fused`'s
// parameters and `replaced` as one more parameter (number
// fused.num_parameters()), of `replaced_shape` when given (the layout its
// value is stored in).
std::unique_ptr<HloComputation> WithParameterFor(const HloComputation& fused,
                                                 const HloInstruction* replaced,
                                                 const HloInstruction* target,
                                                 const Shape* replaced_shape = nullptr);

// Ops the loop kernel compiler may accept unfused (or in a dot's epilogue).
bool KernelCandidateOpcode(const HloInstruction* instruction);

// Every use of `parameter` (transitively) is an elementwise op over the
// same dimensions, or the base of a dynamic-update-slice: a kernel may
// write its result over that parameter's buffer.
bool ElementwiseOnlyUse(const HloInstruction* parameter);

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_KERNEL_COMPUTATIONS_H_
