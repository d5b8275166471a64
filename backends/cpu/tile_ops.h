// The loops of the baseline tier's tile kernels (tile_kernel.h): f32
// elementwise arithmetic over a tile and a row's reduction, each element's
// result exactly what a JIT-compiled kernel computes for it (IEEE
// arithmetic; the elemental emitter's maximum and minimum; the reduce
// emitter's lane order).  Built twice, for the baseline ISA and for
// AVX-512 (the same source under two namespaces, see the BUILD file);
// tile_kernel.cc picks one by the host.  Plain loops, no standard-library
// templates: an inline function compiled for AVX-512 here must not be what
// the linker keeps for the baseline code elsewhere.
#ifndef TESSERA_BACKENDS_CPU_TILE_OPS_H_
#define TESSERA_BACKENDS_CPU_TILE_OPS_H_

#include <cstdint>

namespace tessera {
namespace cpu {
namespace tile_ops {

enum class BinaryOp : uint8_t { kAdd, kSubtract, kMultiply, kDivide, kMaximum, kMinimum };
// The rounding ops and sign as the elemental emitter computes them: a NaN
// passes through floor, ceil and sign unchanged.
enum class UnaryOp : uint8_t {
  kNegate,
  kAbs,
  kSqrt,
  kRsqrt,
  kFloor,
  kCeil,
  kRoundNearestAfz,
  kRoundNearestEven,
  kSign,
};
// Float comparisons (IEEE: every one but kNe is false when an operand is
// NaN).  Predicates are floats 1 (true) and 0 in tiles.
enum class CompareOp : uint8_t { kEq, kNe, kGe, kGt, kLe, kLt };

// A row reduction's parameters: the reducer `op` (add, multiply, maximum or
// minimum) applied as op(accumulator, x) when `accumulator_first` (its
// root reads parameter 0 first) and op(x, accumulator) otherwise; `lanes`
// as the reduce emitter's ReductionLanes for f32: 16, 32 or 64, or 0
// (serial from the init value).
struct Reduction {
  BinaryOp op;
  bool accumulator_first;
  int64_t lanes;
};

#define TESSERA_TILE_OPS_DECLARE(ns)                                                            \
  namespace ns {                                                                                \
  /* out[i] = a[i] op b[i]; a scalar operand where its pointer is null (then a_scalar or   */   \
  /* b_scalar).  out may be a or b.                                                         */  \
  void Binary(BinaryOp op, const float* a, float a_scalar, const float* b, float b_scalar,      \
              float* out, int64_t n);                                                           \
  void Unary(UnaryOp op, const float* a, float* out, int64_t n);                                \
  /* out[i] = a[i] op b[i] ? 1 : 0, operands as Binary's.                                   */  \
  void Compare(CompareOp op, const float* a, float a_scalar, const float* b, float b_scalar,    \
               float* out, int64_t n);                                                          \
  /* out[i] = p[i] != 0 ? a[i] : b[i], each operand a tile or (pointer null) a scalar.       */ \
  void Select(const float* p, float p_scalar, const float* a, float a_scalar, const float* b,   \
              float b_scalar, float* out, int64_t n);                                           \
  /* The reduction of x[0, n) from `init`.                                                  */  \
  float Reduce(const Reduction& reduction, const float* x, int64_t n, float init);              \
  /* out[0, n) = tile[0, n) with non-temporal stores where out is aligned (the caller      */   \
  /* fences before others read out).                                                       */   \
  void StoreStreaming(const float* tile, float* out, int64_t n);                                \
  }

TESSERA_TILE_OPS_DECLARE(baseline)
TESSERA_TILE_OPS_DECLARE(avx512)

#undef TESSERA_TILE_OPS_DECLARE

}  // namespace tile_ops
}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_TILE_OPS_H_
