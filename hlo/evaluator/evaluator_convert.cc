// Element type changes: convert (XLA's rules, via Literal::Convert),
// bitcast-convert (same width, or a minor dimension that grows or shrinks
// with the width ratio), reduce-precision (XLA's bit-exact rounding),
// stochastic-convert, and the complex/real/imag/is-finite family.
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/ir/hlo_opcode.h"

namespace tessera {
namespace evaluator_internal {
namespace {

absl::Status CheckSameDimensions(const HloInstruction& hlo, const Literal& operand) {
  TS_RETURN_IF_ERROR(ExpectArrayShape(hlo));
  TS_RETURN_IF_ERROR(ExpectArray(operand, "the operand"));
  if (operand.shape().dimensions() != hlo.shape().dimensions()) {
    return absl::InvalidArgumentError(absl::StrCat("operand shape ", ShapeString(operand),
                                                   " does not match the result shape ",
                                                   hlo.shape().ToString()));
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> Convert(const HloInstruction& hlo, const Literal& operand) {
  TS_RETURN_IF_ERROR(CheckSameDimensions(hlo, operand));
  return operand.Convert(hlo.shape().element_type());
}

// Bitcast-convert reinterprets the bytes of each element.  When the widths
// differ, the wider side has one more (minor) dimension on the narrower
// side, of the width ratio; in row-major order that is the same bytes.
absl::StatusOr<Literal> BitcastConvert(const HloInstruction& hlo, const Literal& operand) {
  TS_RETURN_IF_ERROR(ExpectArrayShape(hlo));
  TS_RETURN_IF_ERROR(ExpectArray(operand, "the operand"));
  const int in_bits = BitWidth(operand.shape().element_type());
  const int out_bits = BitWidth(hlo.shape().element_type());
  const std::vector<int64_t>& in_dims = operand.shape().dimensions();
  const std::vector<int64_t>& out_dims = hlo.shape().dimensions();
  bool dims_ok;
  if (in_bits == out_bits) {
    dims_ok = in_dims == out_dims;
  } else if (in_bits > out_bits) {
    dims_ok = out_dims.size() == in_dims.size() + 1 && out_dims.back() == in_bits / out_bits &&
              std::equal(in_dims.begin(), in_dims.end(), out_dims.begin());
  } else {
    dims_ok = in_dims.size() == out_dims.size() + 1 && in_dims.back() == out_bits / in_bits &&
              std::equal(out_dims.begin(), out_dims.end(), in_dims.begin());
  }
  if (!dims_ok) {
    return absl::InvalidArgumentError(absl::StrCat("cannot bitcast-convert ", ShapeString(operand),
                                                   " to ", hlo.shape().ToString()));
  }
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  std::memcpy(out.untyped_data(), operand.untyped_data(), out.size_bytes());
  if (hlo.shape().element_type() == PRED) {
    // Keep PRED bytes 0 or 1.
    auto* bytes = static_cast<uint8_t*>(out.untyped_data());
    for (int64_t i = 0; i < out.size_bytes(); ++i) bytes[i] = bytes[i] != 0;
  }
  return out;
}

// XLA's reduce-precision on the bits of a value of `kSrcMantissa`
// mantissa and `kSrcExponent` exponent bits (the element type's own width,
// as XLA's CPU backend does it, so f16/bf16 denormals are kept when the
// exponent is not narrowed): round the mantissa to nearest even, then
// flush exponents out of range to zero (denormals too) or infinity.  A NaN
// stays the same NaN while mantissa bits are left, and becomes +inf when
// none are.
template <typename U, int kSrcMantissa, int kSrcExponent>
U ReducePrecisionBits(U bits, int exponent_bits, int mantissa_bits) {
  constexpr int kWidth = 8 * sizeof(U);
  static_assert(kSrcMantissa + kSrcExponent + 1 == kWidth);
  const U sign_bit_mask = U(U{1} << (kWidth - 1));
  const U exp_bits_mask = U(((U{1} << kSrcExponent) - 1) << kSrcMantissa);
  const bool is_nan = U(bits & U(~sign_bit_mask)) > exp_bits_mask;
  const U original = bits;
  if (mantissa_bits < kSrcMantissa) {
    const int shift = kSrcMantissa - mantissa_bits;
    const U last_mantissa_bit_mask = U(U{1} << shift);
    const U base_rounding_bias = U((last_mantissa_bit_mask >> 1) - 1);
    const U x_last_mantissa_bit = U((bits & last_mantissa_bit_mask) >> shift);
    const U truncation_mask = U(~U(last_mantissa_bit_mask - 1));
    bits = U(U(bits + x_last_mantissa_bit + base_rounding_bias) & truncation_mask);
  }
  if (exponent_bits < kSrcExponent) {
    const U exponent_bias = U((U{1} << (kSrcExponent - 1)) - 1);
    const U reduced_exponent_bias = U((U{1} << (exponent_bits - 1)) - 1);
    const U reduced_max_exponent = U(exponent_bias + reduced_exponent_bias);
    const U reduced_min_exponent = U(exponent_bias - reduced_exponent_bias);
    const U x_exponent = U(bits & exp_bits_mask);
    const bool overflows = x_exponent > U(reduced_max_exponent << kSrcMantissa);
    const bool underflows = x_exponent <= U(reduced_min_exponent << kSrcMantissa);
    const U signed_zero = U(bits & sign_bit_mask);
    if (overflows) bits = U(signed_zero | exp_bits_mask);
    if (underflows) bits = signed_zero;
  }
  if (is_nan) return mantissa_bits > 0 ? original : exp_bits_mask;  // +inf
  return bits;
}

template <typename T>
T ReducePrecisionValue(T value, int exponent_bits, int mantissa_bits) {
  if constexpr (std::is_same_v<T, half>) {
    return half::FromBits(ReducePrecisionBits<uint16_t, 10, 5>(value.bits, exponent_bits,
                                                              mantissa_bits));
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return bfloat16::FromBits(ReducePrecisionBits<uint16_t, 7, 8>(value.bits, exponent_bits,
                                                                 mantissa_bits));
  } else if constexpr (kIsFloat8<T>) {
    // On the float value: every float8 value is a float, and the float's
    // reduced value rounds back to T exactly where the reduced format is
    // no wider than T's (and to nearest where it is).
    return T(ReducePrecisionValue(static_cast<float>(value), exponent_bits, mantissa_bits));
  } else if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<float>(ReducePrecisionBits<uint32_t, 23, 8>(
        std::bit_cast<uint32_t>(value), exponent_bits, mantissa_bits));
  } else {
    static_assert(std::is_same_v<T, double>);
    return std::bit_cast<double>(ReducePrecisionBits<uint64_t, 52, 11>(
        std::bit_cast<uint64_t>(value), exponent_bits, mantissa_bits));
  }
}

absl::StatusOr<Literal> ReducePrecision(const HloInstruction& hlo, const Literal& operand) {
  TS_RETURN_IF_ERROR(CheckSameDimensions(hlo, operand));
  const int exponent_bits = hlo.attrs().exponent_bits;
  const int mantissa_bits = hlo.attrs().mantissa_bits;
  if (exponent_bits < 1 || mantissa_bits < 0) {
    return absl::InvalidArgumentError(absl::StrCat("reduce-precision needs exponent_bits >= 1 and "
                                                   "mantissa_bits >= 0, not ",
                                                   exponent_bits, " and ", mantissa_bits));
  }
  const PrimitiveType type = operand.shape().element_type();
  if (!IsFloatingPointType(type) || hlo.shape().element_type() != type) {
    return absl::InvalidArgumentError(
        absl::StrCat("reduce-precision needs a floating-point operand and result of one type, not ",
                     PrimitiveTypeName(type)));
  }
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  DispatchElementType(type, [&]<typename T>() {
    if constexpr (kIsFloat<T>) {
      auto src = operand.data<T>();
      auto dst = out.data<T>();
      for (size_t i = 0; i < src.size(); ++i) {
        dst[i] = ReducePrecisionValue<T>(src[i], exponent_bits, mantissa_bits);
      }
    }
  });
  return out;
}

// Rounds toward zero or away from it at random: away when the random bits,
// read as a fraction of 2^bits, fall below the fractional part (XLA's
// stochastic-convert to an integer type).
template <typename F, typename R, typename I>
I StochasticToInteger(F operand, R random) {
  const bool negative = std::signbit(operand);
  if (std::isinf(operand)) {
    return negative ? std::numeric_limits<I>::min() : std::numeric_limits<I>::max();
  }
  if (std::isnan(operand)) return I{0};
  if (operand >= static_cast<F>(std::numeric_limits<I>::max())) {
    return std::numeric_limits<I>::max();
  }
  if (operand <= static_cast<F>(std::numeric_limits<I>::min())) {
    return std::numeric_limits<I>::min();
  }
  operand = std::fabs(operand);
  I truncated = static_cast<I>(operand);
  const F fractional = operand - static_cast<F>(truncated);
  if (fractional != F{0}) {
    const R fixed = static_cast<R>(
        std::ldexp(static_cast<double>(fractional), std::numeric_limits<R>::digits));
    if (random < fixed) {
      if (truncated == std::numeric_limits<I>::max()) return std::numeric_limits<I>::min();
      ++truncated;
    }
  }
  return negative ? static_cast<I>(-truncated) : truncated;
}

absl::StatusOr<Literal> StochasticConvert(const HloInstruction& hlo, Operands operands) {
  TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 2));
  const Literal& operand = *operands[0];
  const Literal& random = *operands[1];
  TS_RETURN_IF_ERROR(CheckSameDimensions(hlo, operand));
  TS_RETURN_IF_ERROR(CheckSameDimensions(hlo, random));
  const PrimitiveType in = operand.shape().element_type();
  const PrimitiveType bits = random.shape().element_type();
  const PrimitiveType out_type = hlo.shape().element_type();
  if (!IsFloatingPointType(in) || !IsUnsignedIntegralType(bits) || BitWidth(in) != BitWidth(bits) ||
      !IsSignedIntegralType(out_type)) {
    return absl::UnimplementedError(absl::StrCat(
        "stochastic-convert from ", PrimitiveTypeName(in), " with ", PrimitiveTypeName(bits),
        " random bits to ", PrimitiveTypeName(out_type), " is not supported by the evaluator"));
  }
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  DispatchElementType(in, [&]<typename F>() {
    if constexpr (kIsFloat<F>) {
      using R = std::conditional_t<sizeof(F) == 2, uint16_t,
                                   std::conditional_t<sizeof(F) == 4, uint32_t, uint64_t>>;
      DispatchElementType(out_type, [&]<typename I>() {
        if constexpr (kIsInteger<I> && std::is_signed_v<I>) {
          auto src = operand.data<F>();
          auto rnd = random.data<R>();
          auto dst = out.data<I>();
          for (size_t i = 0; i < src.size(); ++i) {
            dst[i] = StochasticToInteger<ComputeType<F>, R, I>(ToCompute(src[i]), rnd[i]);
          }
        }
      });
    }
  });
  return out;
}

absl::StatusOr<Literal> MakeComplex(const HloInstruction& hlo, Operands operands) {
  TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 2));
  const Literal& re = *operands[0];
  const Literal& im = *operands[1];
  TS_RETURN_IF_ERROR(CheckSameDimensions(hlo, re));
  TS_RETURN_IF_ERROR(CheckSameDimensions(hlo, im));
  const PrimitiveType type = hlo.shape().element_type();
  if (!IsComplexType(type) || re.shape().element_type() != ComplexComponentType(type) ||
      im.shape().element_type() != ComplexComponentType(type)) {
    return InvalidArgument("complex takes two f32 (c64) or two f64 (c128) operands");
  }
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  auto fill = [&]<typename C>() {
    using R = typename C::value_type;
    auto a = re.data<R>();
    auto b = im.data<R>();
    auto dst = out.data<C>();
    for (size_t i = 0; i < dst.size(); ++i) dst[i] = C(a[i], b[i]);
  };
  if (type == C64) {
    fill.template operator()<complex64>();
  } else {
    fill.template operator()<complex128>();
  }
  return out;
}

// real/imag: the component of a complex number; of a real number, the
// number itself (real) or zero (imag).
absl::StatusOr<Literal> RealOrImag(const HloInstruction& hlo, const Literal& operand) {
  TS_RETURN_IF_ERROR(CheckSameDimensions(hlo, operand));
  const PrimitiveType type = operand.shape().element_type();
  const bool real = hlo.opcode() == HloOpcode::kReal;
  const PrimitiveType expected = IsComplexType(type) ? ComplexComponentType(type) : type;
  if ((!IsComplexType(type) && !IsFloatingPointType(type)) ||
      hlo.shape().element_type() != expected) {
    return InvalidArgument(absl::StrCat(HloOpcodeString(hlo.opcode()), " of ",
                                        PrimitiveTypeName(type), " must give ",
                                        PrimitiveTypeName(expected)));
  }
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  if (!IsComplexType(type)) {
    if (real) return operand;
    return out;  // zeros
  }
  auto split = [&]<typename C>() {
    using R = typename C::value_type;
    auto src = operand.data<C>();
    auto dst = out.data<R>();
    for (size_t i = 0; i < src.size(); ++i) dst[i] = real ? src[i].real() : src[i].imag();
  };
  if (type == C64) {
    split.template operator()<complex64>();
  } else {
    split.template operator()<complex128>();
  }
  return out;
}

absl::StatusOr<Literal> IsFinite(const HloInstruction& hlo, const Literal& operand) {
  TS_RETURN_IF_ERROR(CheckSameDimensions(hlo, operand));
  const PrimitiveType type = operand.shape().element_type();
  if (!IsFloatingPointType(type) || hlo.shape().element_type() != PRED) {
    return InvalidArgument("is-finite takes a floating-point operand and gives pred");
  }
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  DispatchElementType(type, [&]<typename T>() {
    if constexpr (kIsFloat<T>) {
      auto src = operand.data<T>();
      auto dst = out.data<bool>();
      for (size_t i = 0; i < src.size(); ++i) dst[i] = std::isfinite(ToCompute(src[i]));
    }
  });
  return out;
}

}  // namespace

absl::StatusOr<Literal> EvaluateConvertOp(const HloInstruction& hlo, Operands operands) {
  switch (hlo.opcode()) {
    case HloOpcode::kStochasticConvert:
      return StochasticConvert(hlo, operands);
    case HloOpcode::kComplex:
      return MakeComplex(hlo, operands);
    default:
      break;
  }
  TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 1));
  const Literal& operand = *operands[0];
  switch (hlo.opcode()) {
    case HloOpcode::kConvert: return Convert(hlo, operand);
    case HloOpcode::kBitcastConvert: return BitcastConvert(hlo, operand);
    case HloOpcode::kReducePrecision: return ReducePrecision(hlo, operand);
    case HloOpcode::kReal:
    case HloOpcode::kImag: return RealOrImag(hlo, operand);
    case HloOpcode::kIsFinite: return IsFinite(hlo, operand);
    default:
      return absl::InternalError(
          absl::StrCat("not a conversion: ", HloOpcodeString(hlo.opcode())));
  }
}

}  // namespace evaluator_internal
}  // namespace tessera
