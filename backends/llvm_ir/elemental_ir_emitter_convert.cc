// ElementalIrEmitter: the float formats and conversions: F16/BF16 to and
// from their f32 compute type, convert between all element types (as
// Literal::Convert does it), bitcast-convert, and reduce-precision (as
// evaluator_convert.cc does it).
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/llvm_ir/elemental_ir_emitter.h"
#include "hlo/ir/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Intrinsics.h"

namespace tessera {
namespace llvm_ir {

namespace {

bool IsSmallFloat(PrimitiveType type) { return type == F16 || type == BF16 || IsFloat8Type(type); }

}  // namespace


// half::ToFloat and bfloat16's float conversion: exact, and a NaN keeps its
// payload bits even when signaling.  (A plain fpext would quiet it, and
// LLVM would fold fptrunc(op(fpext x)) into a half op that does not.)
llvm::Value* ElementalIrEmitter::ToCompute(llvm::Value* value, PrimitiveType type) {
  if (type == F16) {
    llvm::Value* bits = b_->CreateZExt(b_->CreateBitCast(value, b_->getInt16Ty()), b_->getInt32Ty());
    llvm::Value* is_nan = b_->CreateICmpUGT(b_->CreateAnd(bits, 0x7fff), b_->getInt32(0x7c00));
    llvm::Value* nan = b_->CreateOr(b_->CreateOr(b_->CreateShl(b_->CreateAnd(bits, 0x8000), 16),
                                                 b_->getInt32(0x7f800000)),
                                    b_->CreateShl(b_->CreateAnd(bits, 0x3ff), 13));
    return b_->CreateSelect(is_nan, b_->CreateBitCast(nan, b_->getFloatTy()),
                            b_->CreateFPExt(value, b_->getFloatTy()));
  }
  if (type == BF16) {
    llvm::Value* bits = b_->CreateShl(b_->CreateZExt(value, b_->getInt32Ty()), 16);
    return b_->CreateBitCast(bits, b_->getFloatTy());
  }
  if (IsFloat8Type(type)) return Float8ToFloat(value, *FloatFormatOf(type));
  return value;
}

// float8::ToFloat: the fields moved into a float's, subnormals scaled from
// their mantissa; the format's specials as selects.
llvm::Value* ElementalIrEmitter::Float8ToFloat(llvm::Value* value, const FloatFormat& format) {
  using Specials = FloatFormat::Specials;
  const int m_bits = format.mantissa_bits, e_bits = format.exponent_bits;
  llvm::Type* i32 = b_->getInt32Ty();
  auto constant = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
  llvm::Value* bits = b_->CreateZExt(value, i32);
  llvm::Value* sign = b_->CreateShl(b_->CreateAnd(bits, constant(0x80)), 24);
  llvm::Value* exponent = b_->CreateAnd(b_->CreateLShr(bits, m_bits), constant((1u << e_bits) - 1));
  llvm::Value* mantissa = b_->CreateAnd(bits, constant((1u << m_bits) - 1));
  llvm::Value* mantissa_field = b_->CreateShl(mantissa, 23 - m_bits);
  llvm::Value* normal = b_->CreateOr(
      sign, b_->CreateOr(b_->CreateShl(b_->CreateAdd(exponent, constant(127 - format.bias)), 23),
                         mantissa_field));
  llvm::Value* subnormal_magnitude = b_->CreateFMul(
      b_->CreateUIToFP(mantissa, b_->getFloatTy()),
      llvm::ConstantFP::get(b_->getFloatTy(), std::ldexp(1.0, 1 - format.bias - m_bits)));
  llvm::Value* subnormal = b_->CreateOr(sign, b_->CreateBitCast(subnormal_magnitude, i32));
  llvm::Value* result =
      b_->CreateSelect(b_->CreateICmpEQ(exponent, constant(0)), subnormal, normal);
  switch (format.specials) {
    case Specials::kIeee: {
      llvm::Value* special =
          b_->CreateOr(sign, b_->CreateOr(constant(0x7f800000u), mantissa_field));
      result = b_->CreateSelect(b_->CreateICmpEQ(exponent, constant((1u << e_bits) - 1)), special,
                                result);
      break;
    }
    case Specials::kFiniteNan:
      result =
          b_->CreateSelect(b_->CreateICmpEQ(b_->CreateAnd(bits, constant(0x7f)), constant(0x7f)),
                           b_->CreateOr(sign, constant(0x7fc00000u)), result);
      break;
    case Specials::kFiniteUnsignedZero:
      result =
          b_->CreateSelect(b_->CreateICmpEQ(bits, constant(0x80)), constant(0x7fc00000u), result);
      break;
  }
  return b_->CreateBitCast(result, b_->getFloatTy());
}

// float8::FromFloat: below the smallest normal, the nearest multiple of the
// smallest subnormal; above, the mantissa rounded on the bits (a carry
// moves into the exponent) and the exponent rebiased; past the largest
// finite value infinity or NaN; NaN kept a NaN; FNUZ's zero unsigned.
llvm::Value* ElementalIrEmitter::FloatToFloat8(llvm::Value* value, const FloatFormat& format) {
  using Specials = FloatFormat::Specials;
  const int m_bits = format.mantissa_bits, e_bits = format.exponent_bits;
  llvm::Type* i32 = b_->getInt32Ty();
  llvm::Type* i8 = b_->getInt8Ty();
  auto constant = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
  const uint32_t infinity = ((1u << e_bits) - 1) << m_bits;
  const uint32_t max_finite = format.specials == Specials::kIeee        ? infinity - 1
                              : format.specials == Specials::kFiniteNan ? 0x7e
                                                                        : 0x7f;
  llvm::Value* u = b_->CreateBitCast(value, i32);
  llvm::Value* sign = b_->CreateLShr(u, 31);
  llvm::Value* abs = b_->CreateAnd(u, constant(0x7fffffffu));
  llvm::Value* scaled = b_->CreateFMul(
      b_->CreateBitCast(abs, b_->getFloatTy()),
      llvm::ConstantFP::get(b_->getFloatTy(), std::ldexp(1.0, format.bias - 1 + m_bits)));
  llvm::Value* subnormal_code =
      b_->CreateFPToUI(b_->CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, scaled), i32);
  const int shift = 23 - m_bits;
  llvm::Value* rounded = b_->CreateAdd(b_->CreateAdd(abs, constant((1u << (shift - 1)) - 1)),
                                       b_->CreateAnd(b_->CreateLShr(abs, shift), constant(1)));
  llvm::Value* normal_code = b_->CreateSub(
      b_->CreateLShr(rounded, shift), constant(static_cast<uint32_t>(127 - format.bias) << m_bits));
  llvm::Value* code = b_->CreateSelect(
      b_->CreateICmpULT(abs, constant(static_cast<uint32_t>(128 - format.bias) << 23)),
      subnormal_code, normal_code);
  llvm::Value* nan = nullptr;
  switch (format.specials) {
    case Specials::kIeee:
      nan = b_->CreateOr(b_->CreateShl(sign, 7), constant(infinity | (1u << (m_bits - 1))));
      break;
    case Specials::kFiniteNan:
      nan = b_->CreateOr(b_->CreateShl(sign, 7), constant(0x7f));
      break;
    case Specials::kFiniteUnsignedZero:
      nan = constant(0x80);
      break;
  }
  llvm::Value* overflows = b_->CreateICmpUGT(code, constant(max_finite));
  llvm::Value* result = b_->CreateOr(b_->CreateShl(sign, 7), code);
  if (format.specials == Specials::kFiniteUnsignedZero) {
    result = b_->CreateSelect(b_->CreateICmpEQ(code, constant(0)), constant(0), result);
  }
  llvm::Value* overflow_value = format.specials == Specials::kIeee
                                    ? b_->CreateOr(b_->CreateShl(sign, 7), constant(infinity))
                                    : nan;
  result = b_->CreateSelect(overflows, overflow_value, result);
  result = b_->CreateSelect(b_->CreateICmpUGT(abs, constant(0x7f800000u)), nan, result);
  return b_->CreateTrunc(result, i8);
}

// bfloat16::FromFloat: round to nearest even on the bits; a NaN keeps its
// top bits and is made quiet.
llvm::Value* ElementalIrEmitter::FloatToBf16(llvm::Value* value) {
  llvm::Value* u = b_->CreateBitCast(value, b_->getInt32Ty());
  llvm::Value* is_nan = b_->CreateICmpUGT(b_->CreateAnd(u, 0x7fffffffu), b_->getInt32(0x7f800000u));
  llvm::Value* high = b_->CreateLShr(u, 16);
  llvm::Value* nan = b_->CreateTrunc(b_->CreateOr(high, 0x40), b_->getInt16Ty());
  llvm::Value* bias = b_->CreateAdd(b_->getInt32(0x7fff), b_->CreateAnd(high, 1));
  llvm::Value* rounded = b_->CreateTrunc(b_->CreateLShr(b_->CreateAdd(u, bias), 16),
                                         b_->getInt16Ty());
  return b_->CreateSelect(is_nan, nan, rounded);
}

llvm::Value* ElementalIrEmitter::FromCompute(llvm::Value* value, PrimitiveType type) {
  if (type == F16) return b_->CreateFPTrunc(value, b_->getHalfTy());  // round to nearest even
  if (type == BF16) return FloatToBf16(value);
  if (IsFloat8Type(type)) return FloatToFloat8(value, *FloatFormatOf(type));
  return value;
}

llvm::Value* ElementalIrEmitter::RoundToOddF32(llvm::Value* value, PrimitiveType from) {
  llvm::Type* f32 = b_->getFloatTy();
  llvm::Type* i32 = b_->getInt32Ty();
  if (from == F32) return value;
  if (from == F64) {
    llvm::Value* f = b_->CreateFPTrunc(value, f32);
    llvm::Value* back = b_->CreateFPExt(f, b_->getDoubleTy());
    llvm::Value* keep = b_->CreateOr(b_->CreateFCmpOEQ(back, value), b_->CreateFCmpUNO(value, value));
    llvm::Value* rounded_up =
        b_->CreateFCmpOGT(b_->CreateUnaryIntrinsic(llvm::Intrinsic::fabs, back),
                          b_->CreateUnaryIntrinsic(llvm::Intrinsic::fabs, value));
    llvm::Value* bits = b_->CreateBitCast(f, i32);
    bits = b_->CreateSelect(rounded_up, b_->CreateSub(bits, b_->getInt32(1)), bits);
    llvm::Value* odd = b_->CreateBitCast(b_->CreateOr(bits, 1), f32);
    return b_->CreateSelect(keep, f, odd);
  }
  const bool is_signed = IsSignedIntegralType(from);
  const int width = BitWidth(from);
  if (width <= 16) {
    return is_signed ? b_->CreateSIToFP(value, f32) : b_->CreateUIToFP(value, f32);  // exact
  }
  llvm::Type* type = value->getType();
  llvm::Value* magnitude =
      is_signed ? b_->CreateBinaryIntrinsic(llvm::Intrinsic::abs, value, b_->getFalse()) : value;
  llvm::Value* leading = b_->CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, magnitude, b_->getFalse());
  llvm::Value* bit_width = b_->CreateSub(llvm::ConstantInt::get(type, width), leading);
  llvm::Value* shift = b_->CreateBinaryIntrinsic(llvm::Intrinsic::usub_sat, bit_width,
                                                 llvm::ConstantInt::get(type, 24));
  llvm::Value* lost_mask =
      b_->CreateSub(b_->CreateShl(llvm::ConstantInt::get(type, 1), shift), llvm::ConstantInt::get(type, 1));
  llvm::Value* sticky =
      b_->CreateZExt(b_->CreateICmpNE(b_->CreateAnd(magnitude, lost_mask), llvm::ConstantInt::get(type, 0)), type);
  llvm::Value* kept = b_->CreateShl(b_->CreateOr(b_->CreateLShr(magnitude, shift), sticky), shift);
  llvm::Value* result = b_->CreateUIToFP(kept, f32);  // at most 24 significant bits: exact
  if (!is_signed) return result;
  llvm::Value* negative = b_->CreateICmpSLT(value, llvm::ConstantInt::get(type, 0));
  return b_->CreateSelect(negative, b_->CreateFNeg(result), result);
}

// ---------------------------------------------------------------------------
// Convert (Literal::Convert's ConvertElement).

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitConvert(llvm::Value* value,
                                                             PrimitiveType from,
                                                             PrimitiveType to) {
  llvm::LLVMContext& context = b_->getContext();
  if (from == to) return value;
  TS_ASSIGN_OR_RETURN(llvm::Type * to_type, IrValueType(to, context));
  TS_RETURN_IF_ERROR(IrValueType(from, context).status());
  if (to == PRED) {
    if (IsComplexType(from)) {
      return b_->CreateOr(b_->CreateFCmpUNE(Re(value), llvm::ConstantFP::get(Re(value)->getType(), 0)),
                          b_->CreateFCmpUNE(Im(value), llvm::ConstantFP::get(Im(value)->getType(), 0)));
    }
    if (IsFloatingPointType(from)) {
      llvm::Value* x = ToCompute(value, from);
      return b_->CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0));
    }
    return b_->CreateICmpNE(value, llvm::ConstantInt::get(value->getType(), 0));
  }
  if (from == PRED) {
    value = b_->CreateZExt(value, b_->getInt8Ty());
    from = U8;
    if (to == U8) return value;
  }
  if (IsComplexType(from)) {
    if (IsComplexType(to)) {
      llvm::Type* part = to == C64 ? b_->getFloatTy() : b_->getDoubleTy();
      return MakeComplex(b_->CreateFPCast(Re(value), part), b_->CreateFPCast(Im(value), part));
    }
    return EmitConvert(Re(value), ComplexComponentType(from), to);
  }
  if (IsComplexType(to)) {
    const PrimitiveType part = ComplexComponentType(to);
    TS_ASSIGN_OR_RETURN(llvm::Value * re, EmitConvert(value, from, part));
    return MakeComplex(re, llvm::ConstantFP::get(re->getType(), 0.0));
  }
  if (IsSmallFloat(from)) {
    value = ToCompute(value, from);  // exact
    from = F32;
    if (to == F32) return value;
  }
  if (IsSmallFloat(to)) return FromCompute(RoundToOddF32(value, from), to);
  const bool from_float = IsFloatingPointType(from);
  const bool to_float = IsFloatingPointType(to);
  if (from_float && to_float) return b_->CreateFPCast(value, to_type);
  if (from_float) {
    // Saturating, NaN -> 0: exactly the evaluator's checks.
    const auto intrinsic = IsSignedIntegralType(to) ? llvm::Intrinsic::fptosi_sat
                                                    : llvm::Intrinsic::fptoui_sat;
    return b_->CreateIntrinsic(intrinsic, {to_type, value->getType()}, {value});
  }
  if (to_float) {
    return IsSignedIntegralType(from) ? b_->CreateSIToFP(value, to_type)
                                      : b_->CreateUIToFP(value, to_type);
  }
  return b_->CreateIntCast(value, to_type, IsSignedIntegralType(from));
}

namespace {

// The unsigned integer type of `bits` bits (8 to 64).
PrimitiveType UnsignedOfWidth(int bits) {
  switch (bits) {
    case 8:
      return U8;
    case 16:
      return U16;
    case 32:
      return U32;
    default:
      return U64;
  }
}

}  // namespace

// A bitcast-convert between widths moves bytes as the evaluator's memcpy
// does on this little-endian host: a wide element becomes k narrow ones
// along a new minor-most dimension, part j its bits [j w, (j + 1) w)
// (low bits first; c64's real half), and k narrow elements along the
// operand's minor-most dimension become one wide element the same way.
absl::StatusOr<ElementGenerator> ElementalIrEmitter::MakeWidthChangingBitcastConvert(
    const HloInstruction& hlo, ElementGenerator operand) {
  const Shape& shape = hlo.shape();
  const Shape operand_shape = hlo.operand(0)->shape();
  const PrimitiveType from = operand_shape.element_type(), to = shape.element_type();
  const int in_bits = BitWidth(from), out_bits = BitWidth(to);
  if (in_bits > 64 || out_bits > 64) {
    return absl::UnimplementedError(absl::StrCat(
        "%", hlo.name(), ": bitcast-convert between widths of a 128-bit type is not emitted"));
  }
  const std::vector<int64_t>& in_dims = operand_shape.dimensions();
  const std::vector<int64_t>& out_dims = shape.dimensions();
  const bool narrowing = in_bits > out_bits;
  const std::vector<int64_t>& longer = narrowing ? out_dims : in_dims;
  const std::vector<int64_t>& shorter = narrowing ? in_dims : out_dims;
  const int64_t parts = narrowing ? in_bits / out_bits : out_bits / in_bits;
  if (longer.size() != shorter.size() + 1 || longer.back() != parts ||
      !std::equal(shorter.begin(), shorter.end(), longer.begin())) {
    return absl::InvalidArgumentError(absl::StrCat("%", hlo.name(), ": cannot bitcast-convert ",
                                                   operand_shape.ToString(), " to ",
                                                   shape.ToString()));
  }
  llvm::IRBuilder<>* b = b_;
  const PrimitiveType in_bits_type = UnsignedOfWidth(in_bits);
  const PrimitiveType out_bits_type = UnsignedOfWidth(out_bits);
  if (narrowing) {
    return ElementGenerator([this, b, operand, operand_shape, from, to, in_bits, out_bits,
                             in_bits_type,
                             out_bits_type](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
      std::vector<llvm::Value*> source = index.multi_index();
      llvm::Value* part = source.back();
      source.pop_back();
      TS_ASSIGN_OR_RETURN(llvm::Value * value,
                          operand(IrIndex(source, operand_shape, index.index_type())));
      TS_ASSIGN_OR_RETURN(llvm::Value * bits, EmitBitcastConvert(value, from, in_bits_type));
      llvm::Value* shift =
          b->CreateZExtOrTrunc(b->CreateMul(part, index.Constant(out_bits)), bits->getType());
      llvm::Value* piece = b->CreateTrunc(b->CreateLShr(bits, shift), b->getIntNTy(out_bits));
      return EmitBitcastConvert(piece, out_bits_type, to);
    });
  }
  return ElementGenerator([this, b, operand, operand_shape, from, to, in_bits, out_bits,
                           in_bits_type, out_bits_type,
                           parts](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    llvm::Value* bits = llvm::ConstantInt::get(b->getIntNTy(out_bits), 0);
    for (int64_t j = 0; j < parts; ++j) {
      std::vector<llvm::Value*> source = index.multi_index();
      source.push_back(index.Constant(j));
      TS_ASSIGN_OR_RETURN(llvm::Value * value,
                          operand(IrIndex(source, operand_shape, index.index_type())));
      TS_ASSIGN_OR_RETURN(llvm::Value * piece, EmitBitcastConvert(value, from, in_bits_type));
      bits = b->CreateOr(bits, b->CreateShl(b->CreateZExt(piece, bits->getType()), j * in_bits));
    }
    return EmitBitcastConvert(bits, out_bits_type, to);
  });
}

// Bitcast-convert between equal widths: the element's bits reinterpreted
// (a PRED byte read back is != 0).  C64 is its two f32 halves, real first.
absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitBitcastConvert(llvm::Value* value,
                                                                    PrimitiveType from,
                                                                    PrimitiveType to) {
  const int width = BitWidth(from);
  if (width != BitWidth(to)) {
    return absl::UnimplementedError(
        absl::StrCat("bitcast-convert from ", PrimitiveTypeName(from), " to ",
                     PrimitiveTypeName(to), " changes the element width; not yet emitted"));
  }
  llvm::Type* bits_type = b_->getIntNTy(width);
  llvm::Value* bits;
  if (from == PRED) {
    bits = b_->CreateZExt(value, bits_type);
  } else if (IsComplexType(from)) {
    llvm::Type* half_type = b_->getIntNTy(width / 2);
    llvm::Value* re = b_->CreateZExt(b_->CreateBitCast(Re(value), half_type), bits_type);
    llvm::Value* im = b_->CreateZExt(b_->CreateBitCast(Im(value), half_type), bits_type);
    bits = b_->CreateOr(re, b_->CreateShl(im, width / 2));
  } else {
    bits = b_->CreateBitCast(value, bits_type);
  }
  if (to == PRED) return b_->CreateICmpNE(bits, llvm::ConstantInt::get(bits_type, 0));
  if (IsComplexType(to)) {
    llvm::Type* part = to == C64 ? b_->getFloatTy() : b_->getDoubleTy();
    llvm::Type* half_type = b_->getIntNTy(width / 2);
    llvm::Value* re = b_->CreateBitCast(b_->CreateTrunc(bits, half_type), part);
    llvm::Value* im = b_->CreateBitCast(b_->CreateTrunc(b_->CreateLShr(bits, width / 2), half_type), part);
    return MakeComplex(re, im);
  }
  TS_ASSIGN_OR_RETURN(llvm::Type * to_type, IrValueType(to, b_->getContext()));
  return b_->CreateBitCast(bits, to_type);
}

// ReducePrecisionBits of evaluator_convert.cc, on the type's own bits.
absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitReducePrecision(llvm::Value* value,
                                                                     PrimitiveType type,
                                                                     int exponent_bits,
                                                                     int mantissa_bits) {
  if (IsFloat8Type(type)) {
    // On the float value, as the evaluator does (float8 values are floats).
    TS_ASSIGN_OR_RETURN(llvm::Value * reduced, EmitReducePrecision(ToCompute(value, type), F32,
                                                                   exponent_bits, mantissa_bits));
    return FromCompute(reduced, type);
  }
  int src_mantissa, src_exponent;
  switch (type) {
    case F16: src_mantissa = 10, src_exponent = 5; break;
    case BF16: src_mantissa = 7, src_exponent = 8; break;
    case F32: src_mantissa = 23, src_exponent = 8; break;
    case F64: src_mantissa = 52, src_exponent = 11; break;
    default:
      return absl::InvalidArgumentError(absl::StrCat("reduce-precision of ",
                                                     PrimitiveTypeName(type)));
  }
  if (exponent_bits < 1 || mantissa_bits < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0, not ",
                     exponent_bits, " and ", mantissa_bits));
  }
  const int width = BitWidth(type);
  llvm::Type* u = b_->getIntNTy(width);
  auto constant = [&](uint64_t v) { return llvm::ConstantInt::get(u, v); };
  const uint64_t all = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  const uint64_t sign_mask = uint64_t{1} << (width - 1);
  const uint64_t exp_mask = ((uint64_t{1} << src_exponent) - 1) << src_mantissa;
  llvm::Value* original = type == BF16 ? value : b_->CreateBitCast(value, u);
  llvm::Value* bits = original;
  llvm::Value* is_nan = b_->CreateICmpUGT(b_->CreateAnd(bits, constant(~sign_mask & all)),
                                          constant(exp_mask));
  if (mantissa_bits < src_mantissa) {
    const int shift = src_mantissa - mantissa_bits;
    const uint64_t last_bit = uint64_t{1} << shift;
    const uint64_t bias = (last_bit >> 1) - 1;
    llvm::Value* x_last = b_->CreateLShr(b_->CreateAnd(bits, constant(last_bit)), shift);
    bits = b_->CreateAnd(b_->CreateAdd(b_->CreateAdd(bits, x_last), constant(bias)),
                         constant(~(last_bit - 1) & all));
  }
  if (exponent_bits < src_exponent) {
    const uint64_t exponent_bias = (uint64_t{1} << (src_exponent - 1)) - 1;
    const uint64_t reduced_bias = (uint64_t{1} << (exponent_bits - 1)) - 1;
    const uint64_t max_exponent = ((exponent_bias + reduced_bias) << src_mantissa) & all;
    const uint64_t min_exponent = ((exponent_bias - reduced_bias) << src_mantissa) & all;
    llvm::Value* x_exponent = b_->CreateAnd(bits, constant(exp_mask));
    llvm::Value* signed_zero = b_->CreateAnd(bits, constant(sign_mask));
    llvm::Value* overflows = b_->CreateICmpUGT(x_exponent, constant(max_exponent));
    llvm::Value* underflows = b_->CreateICmpULE(x_exponent, constant(min_exponent));
    bits = b_->CreateSelect(overflows, b_->CreateOr(signed_zero, constant(exp_mask)), bits);
    bits = b_->CreateSelect(underflows, signed_zero, bits);
  }
  bits = b_->CreateSelect(is_nan, mantissa_bits > 0 ? original : constant(exp_mask), bits);
  if (type == BF16) return bits;
  return b_->CreateBitCast(bits, value->getType());
}

}  // namespace llvm_ir
}  // namespace tessera
