// The tile transpose that transposing kernels call (transpose_kernels.cc):
// a 16x16 tile of 4-byte elements, read 16 rows of 16 contiguous elements
// `src_stride` elements apart, written transposed and contiguous to `dst`:
//   dst[a * 16 + i] = src[i * src_stride + a]   for a, i in [0, 16).
// Host code rather than IR the kernel emits: the shuffle network, as IR,
// cost the code generator 5 ms per kernel (LLVM's x86 shuffle lowering),
// where a call costs nothing to compile.  With AVX-512F, 16 loads, 64
// in-register shuffles and 16 stores; elsewhere a scalar loop.
#ifndef TESSERA_BACKENDS_CPU_TRANSPOSE_TILE_H_
#define TESSERA_BACKENDS_CPU_TRANSPOSE_TILE_H_

#include <cstdint>

namespace tessera {
namespace cpu {

inline constexpr char kTransposeTileRoutine[] = "tessera_transpose_tile_b32x16";
inline constexpr int64_t kTransposeTileRoutineSize = 16;

// Lets the JIT resolve kTransposeTileRoutine (once per process; repeated
// calls do nothing).
void RegisterTransposeTileRoutine();

// The routine the JIT resolves (the AVX-512 one where the host has it),
// and the scalar one, for tests.
using TransposeTileFunction = void (*)(const void* src, int64_t src_stride, void* dst);
TransposeTileFunction TransposeTileRoutine();
void TransposeTileScalar(const void* src, int64_t src_stride, void* dst);

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_TRANSPOSE_TILE_H_
