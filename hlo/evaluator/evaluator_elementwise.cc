// Elementwise ops: unary and binary arithmetic, logic, shifts, compare,
// select and clamp, with XLA's semantics at the edges:
//
//  - integers wrap (arithmetic is done in uint64 and truncated);
//  - x / 0 is -1 (all bits set), x % 0 is x, INT_MIN / -1 is INT_MIN and
//    INT_MIN % -1 is 0;
//  - shifts by an amount >= the bit width (or negative) give 0, or the sign
//    fill for shift-right-arithmetic;
//  - maximum/minimum propagate NaN and order -0 < +0 (IEEE 754-2019, as
//    XLA's CPU backend does);
//  - integer power squares and multiplies (wrapping); a negative exponent
//    gives 1 for a base of 1 and 0 otherwise (-1 included), as XLA does;
//  - F16/BF16 compute in float and round once to the 16-bit type;
//  - compare is IEEE by default; TOTALORDER orders
//    -NaN < -inf < ... < -0 < +0 < ... < inf < NaN.
#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <limits>

#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/ir/hlo_opcode.h"

namespace tessera {
namespace evaluator_internal {
namespace {

absl::Status UnsupportedType(const HloInstruction& hlo, PrimitiveType type) {
  return absl::InvalidArgumentError(absl::StrCat(HloOpcodeString(hlo.opcode()),
                                                 " does not support element type ",
                                                 PrimitiveTypeName(type)));
}

// Checks that every operand is an array with the instruction's dimensions.
// Operands listed in `scalar_ok` may also be scalars (select's predicate,
// clamp's bounds).
absl::Status CheckElementwiseOperands(const HloInstruction& hlo, Operands operands,
                                      std::initializer_list<int64_t> scalar_ok = {}) {
  TS_RETURN_IF_ERROR(ExpectArrayShape(hlo));
  for (size_t i = 0; i < operands.size(); ++i) {
    TS_RETURN_IF_ERROR(ExpectArray(*operands[i], absl::StrCat("operand ", i)));
    const bool may_be_scalar =
        std::find(scalar_ok.begin(), scalar_ok.end(), static_cast<int64_t>(i)) != scalar_ok.end();
    if (may_be_scalar && operands[i]->shape().rank() == 0) continue;
    if (operands[i]->shape().dimensions() != hlo.shape().dimensions()) {
      return absl::InvalidArgumentError(absl::StrCat("operand ", i, " has shape ",
                                                     ShapeString(*operands[i]),
                                                     " but the result is ",
                                                     hlo.shape().ToString()));
    }
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Scalar helpers.

template <typename C>
C FloatMax(C a, C b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

template <typename C>
C FloatMin(C a, C b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

template <typename T>
T WrapAdd(T a, T b) {
  return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
template <typename T>
T WrapSub(T a, T b) {
  return static_cast<T>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
template <typename T>
T WrapMul(T a, T b) {
  return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

template <typename T>
T IntDivide(T a, T b) {
  if (b == 0) return static_cast<T>(-1);  // all bits set; max for unsigned
  if constexpr (std::is_signed_v<T>) {
    if (b == -1 && a == std::numeric_limits<T>::min()) return a;
  }
  return static_cast<T>(a / b);
}

template <typename T>
T IntRemainder(T a, T b) {
  if (b == 0) return a;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
  }
  return static_cast<T>(a % b);
}

// Integer power, as XLA's evaluator and CPU backend compute it: squaring
// and multiplying with wraparound; a negative exponent gives 1 for a base
// of 1 and 0 otherwise (also for a base of -1).
template <typename T>
T IntPower(T base, T exponent) {
  if constexpr (std::is_signed_v<T>) {
    if (exponent < 0) return base == 1 ? T{1} : T{0};
  }
  uint64_t result = 1;
  uint64_t b = static_cast<uint64_t>(base);
  uint64_t e = static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(exponent));
  while (e != 0) {
    if (e & 1) result *= b;
    b *= b;
    e >>= 1;
  }
  return static_cast<T>(result);
}

template <typename T>
T MulHi(T a, T b) {
  constexpr int kBits = 8 * sizeof(T);
  if constexpr (kBits == 64) {
    if constexpr (std::is_signed_v<T>) {
      return static_cast<T>((static_cast<__int128>(a) * static_cast<__int128>(b)) >> 64);
    } else {
      return static_cast<T>((static_cast<unsigned __int128>(a) * b) >> 64);
    }
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<T>((static_cast<int64_t>(a) * static_cast<int64_t>(b)) >> kBits);
  } else {
    return static_cast<T>((static_cast<uint64_t>(a) * static_cast<uint64_t>(b)) >> kBits);
  }
}

template <typename T>
bool ShiftOutOfRange(T amount) {
  using U = std::make_unsigned_t<T>;
  return static_cast<U>(amount) >= static_cast<U>(8 * sizeof(T));
}

template <typename T>
T ShiftLeft(T value, T amount) {
  using U = std::make_unsigned_t<T>;
  if (ShiftOutOfRange(amount)) return 0;
  return static_cast<T>(static_cast<uint64_t>(static_cast<U>(value)) << static_cast<U>(amount));
}

template <typename T>
T ShiftRightArithmetic(T value, T amount) {
  using S = std::make_signed_t<T>;
  using U = std::make_unsigned_t<T>;
  const S signed_value = static_cast<S>(value);
  if (ShiftOutOfRange(amount)) return static_cast<T>(signed_value < 0 ? S(-1) : S(0));
  return static_cast<T>(static_cast<S>(signed_value >> static_cast<U>(amount)));
}

template <typename T>
T ShiftRightLogical(T value, T amount) {
  using U = std::make_unsigned_t<T>;
  if (ShiftOutOfRange(amount)) return 0;
  return static_cast<T>(static_cast<U>(value) >> static_cast<U>(amount));
}

template <typename C>
C ComplexPower(C a, C b) {
  if (a == C(1) || b == C(0)) return C(1);
  using R = typename C::value_type;
  if (a.imag() == 0 && a.real() > 0 && std::isinf(a.real()) && b.imag() == 0) {
    if (b.real() > 0) return a;
    if (b.real() < 0) return C(0);
  }
  (void)sizeof(R);
  return std::pow(a, b);
}

// exp(z) - 1 without the cancellation of computing exp(z) first:
// (e^a cos b - 1) + i e^a sin b, with e^a cos b - 1 = expm1(a) cos b -
// 2 sin^2(b/2).
template <typename C>
C ComplexExpm1(C z) {
  using R = typename C::value_type;
  const R a = z.real(), b = z.imag();
  const R half_sin = std::sin(b / 2);
  return C(std::expm1(a) * std::cos(b) - 2 * half_sin * half_sin, std::exp(a) * std::sin(b));
}

// log(1 + z) keeping precision for small z: the real part is
// log|1 + z| = log1p(2a + a^2 + b^2) / 2.
template <typename C>
C ComplexLog1p(C z) {
  using R = typename C::value_type;
  const R a = z.real(), b = z.imag();
  const R one_plus_a = a + 1;
  const R magnitude = std::hypot(one_plus_a, b);
  const R real = magnitude < R(0.5) || magnitude > R(2)
                     ? std::log(magnitude)
                     : std::log1p(a * (2 + a) + b * b) / 2;
  return C(real, std::atan2(b, one_plus_a));
}

// ---------------------------------------------------------------------------
// Unary ops whose result has the operand's element type.

template <typename T>
absl::Status Unary(const HloInstruction& hlo, const Literal& in, Literal* out) {
  const HloOpcode op = hlo.opcode();
  auto src = in.data<T>();
  auto dst = out->data<T>();
  bool supported = true;
  // Applies `fn` to every element in the compute type.
  auto map = [&](auto fn) {
    for (size_t i = 0; i < src.size(); ++i) dst[i] = FromCompute<T>(fn(ToCompute(src[i])));
  };
  using C = ComputeType<T>;
  if constexpr (std::is_same_v<T, bool>) {
    if (op == HloOpcode::kNot) {
      map([](bool x) { return !x; });
    } else {
      supported = false;
    }
  } else if constexpr (kIsInteger<T>) {
    switch (op) {
      case HloOpcode::kNot: map([](T x) { return static_cast<T>(~x); }); break;
      case HloOpcode::kNegate: map([](T x) { return WrapSub<T>(0, x); }); break;
      case HloOpcode::kAbs:
        map([](T x) {
          if constexpr (std::is_signed_v<T>) return x < 0 ? WrapSub<T>(0, x) : x;
          return x;
        });
        break;
      case HloOpcode::kSign:
        map([](T x) { return static_cast<T>((T(0) < x) - (x < T(0))); });
        break;
      case HloOpcode::kPopulationCount:
        map([](T x) { return static_cast<T>(std::popcount(static_cast<std::make_unsigned_t<T>>(x))); });
        break;
      case HloOpcode::kClz:
        map([](T x) {
          return static_cast<T>(std::countl_zero(static_cast<std::make_unsigned_t<T>>(x)));
        });
        break;
      case HloOpcode::kCeil:
      case HloOpcode::kFloor:
      case HloOpcode::kRoundNearestAfz:
      case HloOpcode::kRoundNearestEven:
        map([](T x) { return x; });  // integers are already integral
        break;
      default: supported = false; break;
    }
  } else if constexpr (kIsFloat<T>) {
    switch (op) {
      case HloOpcode::kAbs: map([](C x) { return std::fabs(x); }); break;
      case HloOpcode::kNegate: map([](C x) { return -x; }); break;
      case HloOpcode::kSign:
        map([](C x) { return std::isnan(x) ? x : std::copysign(x != C(0) ? C(1) : C(0), x); });
        break;
      case HloOpcode::kCeil: map([](C x) { return std::ceil(x); }); break;
      case HloOpcode::kFloor: map([](C x) { return std::floor(x); }); break;
      case HloOpcode::kRoundNearestAfz: map([](C x) { return std::round(x); }); break;
      case HloOpcode::kRoundNearestEven: map([](C x) { return std::nearbyint(x); }); break;
      case HloOpcode::kCos: map([](C x) { return std::cos(x); }); break;
      case HloOpcode::kSin: map([](C x) { return std::sin(x); }); break;
      case HloOpcode::kTan: map([](C x) { return std::tan(x); }); break;
      case HloOpcode::kTanh: map([](C x) { return std::tanh(x); }); break;
      case HloOpcode::kExp: map([](C x) { return std::exp(x); }); break;
      case HloOpcode::kExpm1: map([](C x) { return std::expm1(x); }); break;
      case HloOpcode::kLog: map([](C x) { return std::log(x); }); break;
      case HloOpcode::kLog1p: map([](C x) { return std::log1p(x); }); break;
      case HloOpcode::kLogistic: map([](C x) { return C(1) / (C(1) + std::exp(-x)); }); break;
      case HloOpcode::kSqrt: map([](C x) { return std::sqrt(x); }); break;
      case HloOpcode::kRsqrt: map([](C x) { return C(1) / std::sqrt(x); }); break;
      case HloOpcode::kCbrt: map([](C x) { return std::cbrt(x); }); break;
      case HloOpcode::kErf: map([](C x) { return std::erf(x); }); break;
      case HloOpcode::kAcos: map([](C x) { return std::acos(x); }); break;
      case HloOpcode::kAsin: map([](C x) { return std::asin(x); }); break;
      case HloOpcode::kAtan: map([](C x) { return std::atan(x); }); break;
      case HloOpcode::kAcosh: map([](C x) { return std::acosh(x); }); break;
      case HloOpcode::kAsinh: map([](C x) { return std::asinh(x); }); break;
      case HloOpcode::kAtanh: map([](C x) { return std::atanh(x); }); break;
      case HloOpcode::kCosh: map([](C x) { return std::cosh(x); }); break;
      case HloOpcode::kSinh: map([](C x) { return std::sinh(x); }); break;
      default: supported = false; break;
    }
  } else if constexpr (kIsComplex<T>) {
    switch (op) {
      case HloOpcode::kNegate: map([](T x) { return -x; }); break;
      case HloOpcode::kSign:
        map([](T x) {
          const auto magnitude = std::abs(x);
          return magnitude == 0 ? T(0) : x / magnitude;
        });
        break;
      case HloOpcode::kCos: map([](T x) { return std::cos(x); }); break;
      case HloOpcode::kSin: map([](T x) { return std::sin(x); }); break;
      case HloOpcode::kTan: map([](T x) { return std::tan(x); }); break;
      case HloOpcode::kTanh: map([](T x) { return std::tanh(x); }); break;
      case HloOpcode::kExp: map([](T x) { return std::exp(x); }); break;
      case HloOpcode::kLog: map([](T x) { return std::log(x); }); break;
      case HloOpcode::kExpm1: map(ComplexExpm1<T>); break;
      case HloOpcode::kLog1p: map(ComplexLog1p<T>); break;
      case HloOpcode::kLogistic: map([](T x) { return T(1) / (T(1) + std::exp(-x)); }); break;
      case HloOpcode::kSqrt: map([](T x) { return std::sqrt(x); }); break;
      case HloOpcode::kRsqrt: map([](T x) { return T(1) / std::sqrt(x); }); break;
      case HloOpcode::kAcos: map([](T x) { return std::acos(x); }); break;
      case HloOpcode::kAsin: map([](T x) { return std::asin(x); }); break;
      case HloOpcode::kAtan: map([](T x) { return std::atan(x); }); break;
      case HloOpcode::kAcosh: map([](T x) { return std::acosh(x); }); break;
      case HloOpcode::kAsinh: map([](T x) { return std::asinh(x); }); break;
      case HloOpcode::kAtanh: map([](T x) { return std::atanh(x); }); break;
      case HloOpcode::kCosh: map([](T x) { return std::cosh(x); }); break;
      case HloOpcode::kSinh: map([](T x) { return std::sinh(x); }); break;
      default: supported = false; break;
    }
  } else {
    supported = false;
  }
  if (!supported) return UnsupportedType(hlo, in.shape().element_type());
  return absl::OkStatus();
}

// abs of a complex number: its magnitude, of the component type.
template <typename T>
void ComplexAbs(const Literal& in, Literal* out) {
  using R = typename T::value_type;
  auto src = in.data<T>();
  auto dst = out->data<R>();
  for (size_t i = 0; i < src.size(); ++i) dst[i] = std::abs(src[i]);
}

// ---------------------------------------------------------------------------
// Binary ops whose operands and result share one element type.

template <typename T>
absl::Status Binary(const HloInstruction& hlo, const Literal& lhs, const Literal& rhs,
                    Literal* out) {
  const HloOpcode op = hlo.opcode();
  auto a = lhs.data<T>();
  auto b = rhs.data<T>();
  auto dst = out->data<T>();
  bool supported = true;
  auto map = [&](auto fn) {
    for (size_t i = 0; i < a.size(); ++i) {
      dst[i] = FromCompute<T>(fn(ToCompute(a[i]), ToCompute(b[i])));
    }
  };
  using C = ComputeType<T>;
  if constexpr (std::is_same_v<T, bool>) {
    // XLA computes PRED arithmetic on unsigned ints and tests for non-zero:
    // add is or, subtract is xor, multiply is and.
    switch (op) {
      case HloOpcode::kAnd:
      case HloOpcode::kMultiply:
      case HloOpcode::kMinimum: map([](bool x, bool y) { return x && y; }); break;
      case HloOpcode::kOr:
      case HloOpcode::kAdd:
      case HloOpcode::kMaximum: map([](bool x, bool y) { return x || y; }); break;
      case HloOpcode::kXor:
      case HloOpcode::kSubtract: map([](bool x, bool y) { return x != y; }); break;
      case HloOpcode::kDivide: map([](bool x, bool y) { return y ? x : true; }); break;
      case HloOpcode::kRemainder: map([](bool x, bool y) { return y ? false : x; }); break;
      case HloOpcode::kPower: map([](bool x, bool y) { return x || !y; }); break;
      default: supported = false; break;
    }
  } else if constexpr (kIsInteger<T>) {
    switch (op) {
      case HloOpcode::kAdd: map(WrapAdd<T>); break;
      case HloOpcode::kSubtract: map(WrapSub<T>); break;
      case HloOpcode::kMultiply: map(WrapMul<T>); break;
      case HloOpcode::kDivide: map(IntDivide<T>); break;
      case HloOpcode::kRemainder: map(IntRemainder<T>); break;
      case HloOpcode::kMaximum: map([](T x, T y) { return std::max(x, y); }); break;
      case HloOpcode::kMinimum: map([](T x, T y) { return std::min(x, y); }); break;
      case HloOpcode::kPower: map(IntPower<T>); break;
      case HloOpcode::kAnd: map([](T x, T y) { return static_cast<T>(x & y); }); break;
      case HloOpcode::kOr: map([](T x, T y) { return static_cast<T>(x | y); }); break;
      case HloOpcode::kXor: map([](T x, T y) { return static_cast<T>(x ^ y); }); break;
      case HloOpcode::kShiftLeft: map(ShiftLeft<T>); break;
      case HloOpcode::kShiftRightArithmetic: map(ShiftRightArithmetic<T>); break;
      case HloOpcode::kShiftRightLogical: map(ShiftRightLogical<T>); break;
      case HloOpcode::kMulhi: map(MulHi<T>); break;
      default: supported = false; break;
    }
  } else if constexpr (kIsFloat<T>) {
    switch (op) {
      case HloOpcode::kAdd: map([](C x, C y) { return x + y; }); break;
      case HloOpcode::kSubtract: map([](C x, C y) { return x - y; }); break;
      case HloOpcode::kMultiply: map([](C x, C y) { return x * y; }); break;
      case HloOpcode::kDivide: map([](C x, C y) { return x / y; }); break;
      case HloOpcode::kRemainder: map([](C x, C y) { return std::fmod(x, y); }); break;
      case HloOpcode::kMaximum: map(FloatMax<C>); break;
      case HloOpcode::kMinimum: map(FloatMin<C>); break;
      case HloOpcode::kPower:
        map([](C x, C y) { return (x == C(1) || y == C(0)) ? C(1) : std::pow(x, y); });
        break;
      case HloOpcode::kAtan2: map([](C x, C y) { return std::atan2(x, y); }); break;
      default: supported = false; break;
    }
  } else if constexpr (kIsComplex<T>) {
    switch (op) {
      case HloOpcode::kAdd: map([](T x, T y) { return x + y; }); break;
      case HloOpcode::kSubtract: map([](T x, T y) { return x - y; }); break;
      case HloOpcode::kMultiply: map([](T x, T y) { return x * y; }); break;
      case HloOpcode::kDivide: map([](T x, T y) { return x / y; }); break;
      case HloOpcode::kPower: map(ComplexPower<T>); break;
      case HloOpcode::kAtan2:
        // atan2(y, x) = -i * log((x + i*y) / sqrt(x*x + y*y)), as XLA.
        map([](T y, T x) {
          const T i(0, 1);
          return -i * std::log((x + i * y) / std::sqrt(x * x + y * y));
        });
        break;
      default: supported = false; break;
    }
  } else {
    supported = false;
  }
  if (!supported) return UnsupportedType(hlo, lhs.shape().element_type());
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Compare.

// A signed integer that orders floats totally: flip the magnitude bits of
// negative values so larger magnitudes sort lower.
template <typename T>
int64_t TotalOrderKey(T value) {
  if constexpr (kIsSmallFloat<T>) {
    using Signed = std::make_signed_t<decltype(value.bits)>;
    const Signed bits = static_cast<Signed>(value.bits);
    constexpr Signed kMagnitude = std::numeric_limits<Signed>::max();
    return bits < 0 ? static_cast<Signed>(bits ^ kMagnitude) : bits;
  } else if constexpr (std::is_same_v<T, float>) {
    const int32_t bits = std::bit_cast<int32_t>(value);
    return bits < 0 ? (bits ^ 0x7fffffff) : bits;
  } else {
    const int64_t bits = std::bit_cast<int64_t>(value);
    return bits < 0 ? (bits ^ 0x7fffffffffffffffLL) : bits;
  }
}

template <typename V>
bool CompareValues(ComparisonDirection direction, V a, V b) {
  switch (direction) {
    case ComparisonDirection::kEq: return a == b;
    case ComparisonDirection::kNe: return a != b;
    case ComparisonDirection::kGe: return a >= b;
    case ComparisonDirection::kGt: return a > b;
    case ComparisonDirection::kLe: return a <= b;
    case ComparisonDirection::kLt: return a < b;
  }
  return false;
}

template <typename T>
absl::Status Compare(const HloInstruction& hlo, const Literal& lhs, const Literal& rhs,
                     Literal* out) {
  const ComparisonDirection direction = hlo.comparison_direction();
  const ComparisonType type = hlo.EffectiveComparisonType();
  auto a = lhs.data<T>();
  auto b = rhs.data<T>();
  auto dst = out->data<bool>();
  auto map = [&](auto fn) {
    for (size_t i = 0; i < a.size(); ++i) dst[i] = fn(a[i], b[i]);
  };
  if constexpr (kIsComplex<T>) {
    if (direction != ComparisonDirection::kEq && direction != ComparisonDirection::kNe) {
      return absl::InvalidArgumentError(absl::StrCat("complex numbers compare only with EQ and NE, not ",
                                                     ComparisonDirectionString(direction)));
    }
    const bool equal = direction == ComparisonDirection::kEq;
    map([&](T x, T y) { return (x == y) == equal; });
  } else if constexpr (kIsFloat<T>) {
    if (type == ComparisonType::kFloatTotalOrder) {
      map([&](T x, T y) { return CompareValues(direction, TotalOrderKey(x), TotalOrderKey(y)); });
    } else {
      map([&](T x, T y) { return CompareValues(direction, ToCompute(x), ToCompute(y)); });
    }
  } else if constexpr (kIsInteger<T>) {
    if (type == ComparisonType::kUnsigned) {
      using U = std::make_unsigned_t<T>;
      map([&](T x, T y) { return CompareValues(direction, static_cast<U>(x), static_cast<U>(y)); });
    } else if (type == ComparisonType::kSigned) {
      using S = std::make_signed_t<T>;
      map([&](T x, T y) { return CompareValues(direction, static_cast<S>(x), static_cast<S>(y)); });
    } else {
      map([&](T x, T y) { return CompareValues(direction, x, y); });
    }
  } else {
    map([&](T x, T y) { return CompareValues(direction, x, y); });
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Ternary ops.

absl::StatusOr<Literal> Select(const HloInstruction& hlo, Operands operands) {
  TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 3));
  TS_RETURN_IF_ERROR(CheckElementwiseOperands(hlo, operands, {0}));
  const Literal& pred = *operands[0];
  const Literal& on_true = *operands[1];
  const Literal& on_false = *operands[2];
  if (pred.shape().element_type() != PRED) {
    return InvalidArgument("the predicate of select must be pred");
  }
  const PrimitiveType type = hlo.shape().element_type();
  if (on_true.shape().element_type() != type || on_false.shape().element_type() != type) {
    return InvalidArgument("select's operands must have the result's element type");
  }
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  auto p = pred.data<bool>();
  const bool scalar_pred = pred.shape().rank() == 0;
  for (int64_t i = 0; i < out.element_count(); ++i) {
    CopyElement(p[scalar_pred ? 0 : i] ? on_true : on_false, i, &out, i);
  }
  return out;
}

template <typename T>
void ClampElements(const Literal& low, const Literal& x, const Literal& high, Literal* out) {
  auto lo = low.data<T>();
  auto v = x.data<T>();
  auto hi = high.data<T>();
  auto dst = out->data<T>();
  const bool scalar_lo = low.shape().rank() == 0 && x.shape().rank() != 0;
  const bool scalar_hi = high.shape().rank() == 0 && x.shape().rank() != 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const auto l = ToCompute(lo[scalar_lo ? 0 : i]);
    const auto h = ToCompute(hi[scalar_hi ? 0 : i]);
    const auto e = ToCompute(v[i]);
    if constexpr (kIsFloat<T>) {
      dst[i] = FromCompute<T>(FloatMin(FloatMax(e, l), h));
    } else {
      dst[i] = std::min(std::max(e, l), h);
    }
  }
}

absl::StatusOr<Literal> Clamp(const HloInstruction& hlo, Operands operands) {
  TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 3));
  TS_RETURN_IF_ERROR(CheckElementwiseOperands(hlo, operands, {0, 2}));
  const PrimitiveType type = hlo.shape().element_type();
  for (const Literal* operand : operands) {
    if (operand->shape().element_type() != type) {
      return InvalidArgument("clamp's operands must have the result's element type");
    }
  }
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  absl::Status status = DispatchElementType(type, [&]<typename T>() -> absl::Status {
    if constexpr (std::is_void_v<T> || kIsComplex<T>) {
      return UnsupportedType(hlo, type);
    } else {
      ClampElements<T>(*operands[0], *operands[1], *operands[2], &out);
      return absl::OkStatus();
    }
  });
  TS_RETURN_IF_ERROR(status);
  return out;
}

bool IsUnaryOpcode(HloOpcode op) { return HloOpcodeArity(op) == 1; }

}  // namespace

absl::StatusOr<Literal> EvaluateElementwise(const HloInstruction& hlo, Operands operands) {
  const HloOpcode op = hlo.opcode();
  if (op == HloOpcode::kSelect) return Select(hlo, operands);
  if (op == HloOpcode::kClamp) return Clamp(hlo, operands);
  if (IsUnaryOpcode(op)) {
    TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 1));
    TS_RETURN_IF_ERROR(CheckElementwiseOperands(hlo, operands));
    const Literal& in = *operands[0];
    const PrimitiveType type = in.shape().element_type();
    TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
    if (op == HloOpcode::kAbs && IsComplexType(type)) {
      if (hlo.shape().element_type() != ComplexComponentType(type)) {
        return InvalidArgument("abs of a complex number has the component type");
      }
      if (type == C64) {
        ComplexAbs<complex64>(in, &out);
      } else {
        ComplexAbs<complex128>(in, &out);
      }
      return out;
    }
    if (hlo.shape().element_type() != type) {
      return InvalidArgument(absl::StrCat("the result must have the operand's element type ",
                                          PrimitiveTypeName(type)));
    }
    TS_RETURN_IF_ERROR(DispatchElementType(type, [&]<typename T>() -> absl::Status {
      if constexpr (std::is_void_v<T>) {
        return UnsupportedType(hlo, type);
      } else {
        return Unary<T>(hlo, in, &out);
      }
    }));
    return out;
  }
  TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 2));
  TS_RETURN_IF_ERROR(CheckElementwiseOperands(hlo, operands));
  const Literal& lhs = *operands[0];
  const Literal& rhs = *operands[1];
  const PrimitiveType type = lhs.shape().element_type();
  if (rhs.shape().element_type() != type) {
    return InvalidArgument(absl::StrCat("operands have different element types ",
                                        PrimitiveTypeName(type), " and ",
                                        PrimitiveTypeName(rhs.shape().element_type())));
  }
  const PrimitiveType result_type = op == HloOpcode::kCompare ? PRED : type;
  if (hlo.shape().element_type() != result_type) {
    return InvalidArgument(absl::StrCat("the result must have element type ",
                                        PrimitiveTypeName(result_type)));
  }
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  TS_RETURN_IF_ERROR(DispatchElementType(type, [&]<typename T>() -> absl::Status {
    if constexpr (std::is_void_v<T>) {
      return UnsupportedType(hlo, type);
    } else if (op == HloOpcode::kCompare) {
      return Compare<T>(hlo, lhs, rhs, &out);
    } else {
      return Binary<T>(hlo, lhs, rhs, &out);
    }
  }));
  return out;
}

}  // namespace evaluator_internal
}  // namespace tessera
