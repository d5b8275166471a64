// The loops of tile_ops.h, compiled once per ISA (see the BUILD file).
#include "backends/cpu/tile_ops.h"

#include <immintrin.h>

#include <cmath>

namespace tessera {
namespace cpu {
namespace tile_ops {
#ifdef TESSERA_TILE_OPS_AVX512
namespace avx512 {
#else
namespace baseline {
#endif
namespace {

inline uint32_t Bits(float x) { return __builtin_bit_cast(uint32_t, x); }

inline float FromBits(uint32_t bits) { return __builtin_bit_cast(float, bits); }

// The elemental emitter's FloatMaxMin: a NaN `a` wins, then a NaN `b`
// (the compare-select returns b); equal operands combine their bits (AND
// for max: +0 wins; OR for min: -0 wins).
inline float MaxMin(float a, float b, bool is_max) {
  float result = is_max ? (a > b ? a : b) : (a < b ? a : b);
  if (a == b) result = FromBits(is_max ? Bits(a) & Bits(b) : Bits(a) | Bits(b));
  return a != a ? a : result;
}

inline float Apply(BinaryOp op, float a, float b) {
  switch (op) {
    case BinaryOp::kAdd: return a + b;
    case BinaryOp::kSubtract: return a - b;
    case BinaryOp::kMultiply: return a * b;
    case BinaryOp::kDivide: return a / b;
    case BinaryOp::kMaximum: return MaxMin(a, b, true);
    case BinaryOp::kMinimum: return MaxMin(a, b, false);
  }
  return 0;
}

// One loop per op and operand form, so that each vectorizes.
template <BinaryOp kOp>
void BinaryLoop(const float* a, float a_scalar, const float* b, float b_scalar, float* out,
                int64_t n) {
  if (a != nullptr && b != nullptr) {
    for (int64_t i = 0; i < n; ++i) out[i] = Apply(kOp, a[i], b[i]);
  } else if (a != nullptr) {
    for (int64_t i = 0; i < n; ++i) out[i] = Apply(kOp, a[i], b_scalar);
  } else if (b != nullptr) {
    for (int64_t i = 0; i < n; ++i) out[i] = Apply(kOp, a_scalar, b[i]);
  } else {
    const float value = Apply(kOp, a_scalar, b_scalar);
    for (int64_t i = 0; i < n; ++i) out[i] = value;
  }
}

template <BinaryOp kOp, bool kAccumulatorFirst>
inline float Fold(float accumulator, float value) {
  return kAccumulatorFirst ? Apply(kOp, accumulator, value) : Apply(kOp, value, accumulator);
}

// The reduce emitter's lane order with kLanes accumulators (a constant, so
// that they stay in registers): lane j folds x[j], x[j + kLanes], ...; the
// elements past the last whole group fold into lanes 0, 1, ...; then lane j
// absorbs lane j + half, halving, and the result folds into `init`.
template <BinaryOp kOp, bool kAccumulatorFirst, int64_t kLanes>
float ReduceInLanes(const float* x, int64_t n, float init) {
  // The reducer's identity (reduce_emitter.cc's ReducerIdentity).
  float identity = 0;
  switch (kOp) {
    case BinaryOp::kAdd: identity = -0.0f; break;
    case BinaryOp::kMultiply: identity = 1.0f; break;
    case BinaryOp::kMaximum: identity = -INFINITY; break;
    case BinaryOp::kMinimum: identity = INFINITY; break;
    default: break;
  }
  float lane[kLanes];
  for (int64_t j = 0; j < kLanes; ++j) lane[j] = identity;
  const int64_t full = n / kLanes * kLanes;
  for (int64_t base = 0; base < full; base += kLanes) {
    for (int64_t j = 0; j < kLanes; ++j) {
      lane[j] = Fold<kOp, kAccumulatorFirst>(lane[j], x[base + j]);
    }
  }
  for (int64_t j = 0; j < n - full; ++j) {
    lane[j] = Fold<kOp, kAccumulatorFirst>(lane[j], x[full + j]);
  }
  // The emitter combines max/min lanes with LLVM's maximum/minimum, which
  // differ from MaxMin only in which NaN of two they return.
  for (int64_t half = kLanes / 2; half >= 1; half /= 2) {
    for (int64_t j = 0; j < half; ++j) {
      lane[j] = Fold<kOp, kAccumulatorFirst>(lane[j], lane[j + half]);
    }
  }
  return Fold<kOp, kAccumulatorFirst>(init, lane[0]);
}

template <BinaryOp kOp, bool kAccumulatorFirst>
float ReduceOrdered(int64_t lanes, const float* x, int64_t n, float init) {
  if (lanes == 64) return ReduceInLanes<kOp, kAccumulatorFirst, 64>(x, n, init);
  if (lanes == 32) return ReduceInLanes<kOp, kAccumulatorFirst, 32>(x, n, init);
  if (lanes == 16) return ReduceInLanes<kOp, kAccumulatorFirst, 16>(x, n, init);
  float accumulator = init;
  for (int64_t i = 0; i < n; ++i) accumulator = Fold<kOp, kAccumulatorFirst>(accumulator, x[i]);
  return accumulator;
}

template <BinaryOp kOp>
float ReduceWith(bool accumulator_first, int64_t lanes, const float* x, int64_t n, float init) {
  return accumulator_first ? ReduceOrdered<kOp, true>(lanes, x, n, init)
                           : ReduceOrdered<kOp, false>(lanes, x, n, init);
}

}  // namespace

void Binary(BinaryOp op, const float* a, float a_scalar, const float* b, float b_scalar, float* out,
            int64_t n) {
  switch (op) {
    case BinaryOp::kAdd: return BinaryLoop<BinaryOp::kAdd>(a, a_scalar, b, b_scalar, out, n);
    case BinaryOp::kSubtract:
      return BinaryLoop<BinaryOp::kSubtract>(a, a_scalar, b, b_scalar, out, n);
    case BinaryOp::kMultiply:
      return BinaryLoop<BinaryOp::kMultiply>(a, a_scalar, b, b_scalar, out, n);
    case BinaryOp::kDivide: return BinaryLoop<BinaryOp::kDivide>(a, a_scalar, b, b_scalar, out, n);
    case BinaryOp::kMaximum:
      return BinaryLoop<BinaryOp::kMaximum>(a, a_scalar, b, b_scalar, out, n);
    case BinaryOp::kMinimum:
      return BinaryLoop<BinaryOp::kMinimum>(a, a_scalar, b, b_scalar, out, n);
  }
}

void Unary(UnaryOp op, const float* a, float* out, int64_t n) {
  switch (op) {
    case UnaryOp::kNegate:
      for (int64_t i = 0; i < n; ++i) out[i] = -a[i];
      return;
    case UnaryOp::kAbs:
      for (int64_t i = 0; i < n; ++i) out[i] = __builtin_fabsf(a[i]);
      return;
    case UnaryOp::kSqrt:
      for (int64_t i = 0; i < n; ++i) out[i] = __builtin_sqrtf(a[i]);
      return;
    case UnaryOp::kRsqrt:
      // polynomial_math.h's rsqrt: 1 / sqrt(x), both correctly rounded.
      for (int64_t i = 0; i < n; ++i) out[i] = 1.0f / __builtin_sqrtf(a[i]);
      return;
    case UnaryOp::kFloor:
      for (int64_t i = 0; i < n; ++i) out[i] = a[i] != a[i] ? a[i] : __builtin_floorf(a[i]);
      return;
    case UnaryOp::kCeil:
      for (int64_t i = 0; i < n; ++i) out[i] = a[i] != a[i] ? a[i] : __builtin_ceilf(a[i]);
      return;
    case UnaryOp::kRoundNearestAfz:
      for (int64_t i = 0; i < n; ++i) out[i] = __builtin_roundf(a[i]);
      return;
    case UnaryOp::kRoundNearestEven:
      for (int64_t i = 0; i < n; ++i) out[i] = __builtin_roundevenf(a[i]);
      return;
    case UnaryOp::kSign:
      // +-1, or +-0, with x's sign; a NaN stays.
      for (int64_t i = 0; i < n; ++i) {
        out[i] = a[i] != a[i] ? a[i] : __builtin_copysignf(a[i] != 0.0f ? 1.0f : 0.0f, a[i]);
      }
      return;
  }
}

namespace {

template <CompareOp kOp>
inline float CompareOne(float a, float b) {
  bool result = false;
  switch (kOp) {
    case CompareOp::kEq: result = a == b; break;
    case CompareOp::kNe: result = a != b; break;
    case CompareOp::kGe: result = a >= b; break;
    case CompareOp::kGt: result = a > b; break;
    case CompareOp::kLe: result = a <= b; break;
    case CompareOp::kLt: result = a < b; break;
  }
  return result ? 1.0f : 0.0f;
}

template <CompareOp kOp>
void CompareLoop(const float* a, float a_scalar, const float* b, float b_scalar, float* out,
                 int64_t n) {
  if (a != nullptr && b != nullptr) {
    for (int64_t i = 0; i < n; ++i) out[i] = CompareOne<kOp>(a[i], b[i]);
  } else if (a != nullptr) {
    for (int64_t i = 0; i < n; ++i) out[i] = CompareOne<kOp>(a[i], b_scalar);
  } else if (b != nullptr) {
    for (int64_t i = 0; i < n; ++i) out[i] = CompareOne<kOp>(a_scalar, b[i]);
  } else {
    const float value = CompareOne<kOp>(a_scalar, b_scalar);
    for (int64_t i = 0; i < n; ++i) out[i] = value;
  }
}

}  // namespace

void Compare(CompareOp op, const float* a, float a_scalar, const float* b, float b_scalar,
             float* out, int64_t n) {
  switch (op) {
    case CompareOp::kEq: return CompareLoop<CompareOp::kEq>(a, a_scalar, b, b_scalar, out, n);
    case CompareOp::kNe: return CompareLoop<CompareOp::kNe>(a, a_scalar, b, b_scalar, out, n);
    case CompareOp::kGe: return CompareLoop<CompareOp::kGe>(a, a_scalar, b, b_scalar, out, n);
    case CompareOp::kGt: return CompareLoop<CompareOp::kGt>(a, a_scalar, b, b_scalar, out, n);
    case CompareOp::kLe: return CompareLoop<CompareOp::kLe>(a, a_scalar, b, b_scalar, out, n);
    case CompareOp::kLt: return CompareLoop<CompareOp::kLt>(a, a_scalar, b, b_scalar, out, n);
  }
}

void Select(const float* p, float p_scalar, const float* a, float a_scalar, const float* b,
            float b_scalar, float* out, int64_t n) {
  if (p != nullptr && a != nullptr && b != nullptr) {
    for (int64_t i = 0; i < n; ++i) out[i] = p[i] != 0.0f ? a[i] : b[i];
    return;
  }
  if (p != nullptr && a != nullptr) {
    for (int64_t i = 0; i < n; ++i) out[i] = p[i] != 0.0f ? a[i] : b_scalar;
    return;
  }
  if (p != nullptr && b != nullptr) {
    for (int64_t i = 0; i < n; ++i) out[i] = p[i] != 0.0f ? a_scalar : b[i];
    return;
  }
  // The other forms in one loop: a scalar is read through a zero stride.
  const int64_t p_stride = p != nullptr ? 1 : 0;
  const int64_t a_stride = a != nullptr ? 1 : 0;
  const int64_t b_stride = b != nullptr ? 1 : 0;
  if (p == nullptr) p = &p_scalar;
  if (a == nullptr) a = &a_scalar;
  if (b == nullptr) b = &b_scalar;
  for (int64_t i = 0; i < n; ++i) {
    out[i] = p[i * p_stride] != 0.0f ? a[i * a_stride] : b[i * b_stride];
  }
}

float Reduce(const Reduction& reduction, const float* x, int64_t n, float init) {
  const int64_t lanes = reduction.lanes;
  switch (reduction.op) {
    case BinaryOp::kAdd:
      return ReduceWith<BinaryOp::kAdd>(reduction.accumulator_first, lanes, x, n, init);
    case BinaryOp::kMultiply:
      return ReduceWith<BinaryOp::kMultiply>(reduction.accumulator_first, lanes, x, n, init);
    case BinaryOp::kMaximum:
      return ReduceWith<BinaryOp::kMaximum>(reduction.accumulator_first, lanes, x, n, init);
    case BinaryOp::kMinimum:
      return ReduceWith<BinaryOp::kMinimum>(reduction.accumulator_first, lanes, x, n, init);
    default:
      return init;
  }
}

void StoreStreaming(const float* tile, float* out, int64_t n) {
  int64_t i = 0;
#ifdef TESSERA_TILE_OPS_AVX512
  constexpr int64_t kWidth = 16;
#else
  constexpr int64_t kWidth = 4;
#endif
  while (i < n && reinterpret_cast<uintptr_t>(out + i) % (kWidth * sizeof(float)) != 0) {
    out[i] = tile[i];
    ++i;
  }
  for (; i + kWidth <= n; i += kWidth) {
#ifdef TESSERA_TILE_OPS_AVX512
    _mm512_stream_ps(out + i, _mm512_loadu_ps(tile + i));
#else
    _mm_stream_ps(out + i, _mm_loadu_ps(tile + i));
#endif
  }
  for (; i < n; ++i) out[i] = tile[i];
}

}  // namespace avx512 / baseline
}  // namespace tile_ops
}  // namespace cpu
}  // namespace tessera
