// ElementalIrEmitter: the real-valued op families (PRED, integers, floats),
// compare, clamp, the libm hook, and the per-instruction element
// generators.  Conversions are in elemental_ir_emitter_convert.cc, complex
// numbers in elemental_ir_emitter_complex.cc.  Every edge case mirrors the
// evaluator (hlo/evaluator/evaluator_elementwise.cc, evaluator_convert.cc
// and Literal::Convert); the comments name the evaluator function copied.
#include "backends/llvm_ir/elemental_ir_emitter.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/llvm_ir/loop_emitter.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_opcode.h"
#include "hlo/ir/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Intrinsics.h"

namespace tessera {
namespace llvm_ir {

namespace {

llvm::StringRef Ref(absl::string_view text) { return llvm::StringRef(text.data(), text.size()); }

absl::Status UnsupportedType(const HloInstruction& hlo, PrimitiveType type) {
  return absl::InvalidArgumentError(absl::StrCat("%", hlo.name(), ": ",
                                                 HloOpcodeString(hlo.opcode()),
                                                 " does not support element type ",
                                                 PrimitiveTypeName(type)));
}

}  // namespace

std::optional<MathFunction> MathFunctionOf(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kSqrt: return MathFunction::kSqrt;
    case HloOpcode::kRsqrt: return MathFunction::kRsqrt;
    case HloOpcode::kCbrt: return MathFunction::kCbrt;
    case HloOpcode::kExp: return MathFunction::kExp;
    case HloOpcode::kExpm1: return MathFunction::kExpm1;
    case HloOpcode::kLog: return MathFunction::kLog;
    case HloOpcode::kLog1p: return MathFunction::kLog1p;
    case HloOpcode::kLogistic: return MathFunction::kLogistic;
    case HloOpcode::kTanh: return MathFunction::kTanh;
    case HloOpcode::kSin: return MathFunction::kSin;
    case HloOpcode::kCos: return MathFunction::kCos;
    case HloOpcode::kTan: return MathFunction::kTan;
    case HloOpcode::kErf: return MathFunction::kErf;
    case HloOpcode::kAcos: return MathFunction::kAcos;
    case HloOpcode::kAsin: return MathFunction::kAsin;
    case HloOpcode::kAtan: return MathFunction::kAtan;
    case HloOpcode::kAcosh: return MathFunction::kAcosh;
    case HloOpcode::kAsinh: return MathFunction::kAsinh;
    case HloOpcode::kAtanh: return MathFunction::kAtanh;
    case HloOpcode::kCosh: return MathFunction::kCosh;
    case HloOpcode::kSinh: return MathFunction::kSinh;
    case HloOpcode::kPower: return MathFunction::kPow;
    case HloOpcode::kAtan2: return MathFunction::kAtan2;
    default: return std::nullopt;
  }
}

absl::string_view MathFunctionName(MathFunction function) {
  switch (function) {
    case MathFunction::kAcos: return "acos";
    case MathFunction::kAcosh: return "acosh";
    case MathFunction::kAsin: return "asin";
    case MathFunction::kAsinh: return "asinh";
    case MathFunction::kAtan: return "atan";
    case MathFunction::kAtan2: return "atan2";
    case MathFunction::kAtanh: return "atanh";
    case MathFunction::kCbrt: return "cbrt";
    case MathFunction::kCos: return "cos";
    case MathFunction::kCosh: return "cosh";
    case MathFunction::kErf: return "erf";
    case MathFunction::kExp: return "exp";
    case MathFunction::kExpm1: return "expm1";
    case MathFunction::kHypot: return "hypot";
    case MathFunction::kLog: return "log";
    case MathFunction::kLog1p: return "log1p";
    case MathFunction::kLogistic: return "logistic";
    case MathFunction::kPow: return "pow";
    case MathFunction::kRsqrt: return "rsqrt";
    case MathFunction::kSin: return "sin";
    case MathFunction::kSinh: return "sinh";
    case MathFunction::kSqrt: return "sqrt";
    case MathFunction::kTan: return "tan";
    case MathFunction::kTanh: return "tanh";
  }
  return "?";
}

// ---------------------------------------------------------------------------
// The C library hook.

llvm::Value* ElementalIrEmitter::CallLibrary(absl::string_view name, llvm::Type* result,
                                             absl::Span<llvm::Value* const> args) {
  std::vector<llvm::Type*> arg_types;
  for (llvm::Value* arg : args) arg_types.push_back(arg->getType());
  llvm::FunctionType* type = llvm::FunctionType::get(result, arg_types, /*isVarArg=*/false);
  llvm::FunctionCallee callee = module_->getOrInsertFunction(Ref(name), type);
  if (auto* function = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    // errno is invisible to the kernels: let LLVM treat the call as pure.
    function->setDoesNotThrow();
    function->setDoesNotAccessMemory();
    function->setWillReturn();
  }
  return b_->CreateCall(callee, std::vector<llvm::Value*>(args.begin(), args.end()));
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitMathFunction(
    MathFunction function, absl::Span<llvm::Value* const> args) {
  llvm::Value* x = args[0];
  llvm::Type* type = x->getType();
  if (!type->isFloatTy() && !type->isDoubleTy()) {
    return absl::InternalError(absl::StrCat(MathFunctionName(function),
                                            " needs an f32 or f64 argument"));
  }
  llvm::Value* one = llvm::ConstantFP::get(type, 1.0);
  switch (function) {
    case MathFunction::kSqrt:
      return b_->CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
    case MathFunction::kRsqrt:
      return b_->CreateFDiv(one, b_->CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x));
    case MathFunction::kLogistic: {
      TS_ASSIGN_OR_RETURN(llvm::Value * e, EmitMathFunction(MathFunction::kExp, {b_->CreateFNeg(x)}));
      return b_->CreateFDiv(one, b_->CreateFAdd(one, e));
    }
    default:
      break;
  }
  const std::string name =
      absl::StrCat(MathFunctionName(function), type->isFloatTy() ? "f" : "");
  return CallLibrary(name, type, args);
}

// ---------------------------------------------------------------------------
// Float max/min: FloatMax/FloatMin of the evaluator: a NaN operand wins
// (the first one), and -0 < +0.  Written so that x86 needs 5 instructions:
// the compare-select is MAXPS/MINPS, which already returns b when either
// is NaN (so a NaN b needs nothing more); equal operands (where only the
// zeros' signs can differ) combine their bits, AND for max (+0 wins) and
// OR for min (-0 wins); a NaN a is selected last.

llvm::Value* ElementalIrEmitter::FloatMaxMin(llvm::Value* a, llvm::Value* b, bool is_max) {
  llvm::Value* result =
      b_->CreateSelect(is_max ? b_->CreateFCmpOGT(a, b) : b_->CreateFCmpOLT(a, b), a, b);
  llvm::Type* bits_type =
      a->getType()->getWithNewType(b_->getIntNTy(a->getType()->getScalarSizeInBits()));
  llvm::Value* a_bits = b_->CreateBitCast(a, bits_type);
  llvm::Value* b_bits = b_->CreateBitCast(b, bits_type);
  llvm::Value* equal = b_->CreateBitCast(
      is_max ? b_->CreateAnd(a_bits, b_bits) : b_->CreateOr(a_bits, b_bits), a->getType());
  result = b_->CreateSelect(b_->CreateFCmpOEQ(a, b), equal, result);
  return b_->CreateSelect(b_->CreateFCmpUNO(a, a), a, result);
}

llvm::Value* ElementalIrEmitter::FloatMax(llvm::Value* a, llvm::Value* b) {
  return FloatMaxMin(a, b, /*is_max=*/true);
}

llvm::Value* ElementalIrEmitter::FloatMin(llvm::Value* a, llvm::Value* b) {
  return FloatMaxMin(a, b, /*is_max=*/false);
}

// RoundToOddFloat of Literal::Convert: `value` (f64 or an integer of type
// `from`) as an f32 truncated toward zero with the lowest bit set when
// anything was lost, so that rounding it once more to f16/bf16 gives the
// correctly rounded result.
// ---------------------------------------------------------------------------
// PRED: XLA computes PRED arithmetic on unsigned ints and tests for non-zero.

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitPredOp(
    const HloInstruction& hlo, absl::Span<llvm::Value* const> operands) {
  llvm::Value* x = operands[0];
  if (operands.size() == 1) {
    if (hlo.opcode() == HloOpcode::kNot) return b_->CreateNot(x);
    return UnsupportedType(hlo, PRED);
  }
  llvm::Value* y = operands[1];
  switch (hlo.opcode()) {
    case HloOpcode::kAnd:
    case HloOpcode::kMultiply:
    case HloOpcode::kMinimum: return b_->CreateAnd(x, y);
    case HloOpcode::kOr:
    case HloOpcode::kAdd:
    case HloOpcode::kMaximum: return b_->CreateOr(x, y);
    case HloOpcode::kXor:
    case HloOpcode::kSubtract: return b_->CreateXor(x, y);
    case HloOpcode::kDivide:
    case HloOpcode::kPower: return b_->CreateOr(x, b_->CreateNot(y));  // y ? x : true; x || !y
    case HloOpcode::kRemainder: return b_->CreateAnd(x, b_->CreateNot(y));  // y ? false : x
    default: return UnsupportedType(hlo, PRED);
  }
}

// ---------------------------------------------------------------------------
// Integers.

// IntPower: square and multiply over every bit of the exponent (wrapping);
// a negative signed exponent gives 1 for a base of 1 and 0 otherwise.
absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitIntegerPower(llvm::Value* base,
                                                                  llvm::Value* exponent,
                                                                  bool is_signed) {
  llvm::Type* type = base->getType();
  const unsigned width = type->getIntegerBitWidth();
  llvm::Value* one = llvm::ConstantInt::get(type, 1);
  llvm::Value* zero = llvm::ConstantInt::get(type, 0);
  llvm::Value* result = one;
  llvm::Value* square = base;
  for (unsigned bit = 0; bit < width; ++bit) {
    llvm::Value* set = b_->CreateTrunc(b_->CreateLShr(exponent, bit), b_->getInt1Ty());
    result = b_->CreateSelect(set, b_->CreateMul(result, square), result);
    if (bit + 1 < width) square = b_->CreateMul(square, square);
  }
  if (!is_signed) return result;
  llvm::Value* negative = b_->CreateICmpSLT(exponent, zero);
  llvm::Value* negative_result = b_->CreateSelect(b_->CreateICmpEQ(base, one), one, zero);
  return b_->CreateSelect(negative, negative_result, result);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitIntegerOp(
    const HloInstruction& hlo, PrimitiveType type, absl::Span<llvm::Value* const> operands) {
  const bool is_signed = IsSignedIntegralType(type);
  llvm::Value* x = operands[0];
  llvm::Type* t = x->getType();
  const unsigned width = t->getIntegerBitWidth();
  auto constant = [&](int64_t v) { return llvm::ConstantInt::get(t, v, /*IsSigned=*/true); };
  if (operands.size() == 1) {
    switch (hlo.opcode()) {
      case HloOpcode::kNot: return b_->CreateNot(x);
      case HloOpcode::kNegate: return b_->CreateNeg(x);
      case HloOpcode::kAbs:
        return is_signed ? b_->CreateBinaryIntrinsic(llvm::Intrinsic::abs, x, b_->getFalse()) : x;
      case HloOpcode::kSign:
        if (is_signed) {
          return b_->CreateSub(b_->CreateZExt(b_->CreateICmpSGT(x, constant(0)), t),
                               b_->CreateZExt(b_->CreateICmpSLT(x, constant(0)), t));
        }
        return b_->CreateZExt(b_->CreateICmpNE(x, constant(0)), t);
      case HloOpcode::kPopulationCount: return b_->CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, x);
      case HloOpcode::kClz:
        return b_->CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, x, b_->getFalse());
      case HloOpcode::kCeil:
      case HloOpcode::kFloor:
      case HloOpcode::kRoundNearestAfz:
      case HloOpcode::kRoundNearestEven: return x;  // already integral
      default: return UnsupportedType(hlo, type);
    }
  }
  llvm::Value* y = operands[1];
  switch (hlo.opcode()) {
    case HloOpcode::kAdd: return b_->CreateAdd(x, y);
    case HloOpcode::kSubtract: return b_->CreateSub(x, y);
    case HloOpcode::kMultiply: return b_->CreateMul(x, y);
    case HloOpcode::kDivide: {
      // x / 0 = -1 (all bits); INT_MIN / -1 = INT_MIN (divide by 1 instead).
      llvm::Value* by_zero = b_->CreateICmpEQ(y, constant(0));
      llvm::Value* unsafe = by_zero;
      if (is_signed) {
        llvm::Value* overflow =
            b_->CreateAnd(b_->CreateICmpEQ(x, llvm::ConstantInt::get(t, llvm::APInt::getSignedMinValue(width))),
                          b_->CreateICmpEQ(y, constant(-1)));
        unsafe = b_->CreateOr(unsafe, overflow);
      }
      llvm::Value* divisor = b_->CreateSelect(unsafe, constant(1), y);
      llvm::Value* quotient = is_signed ? b_->CreateSDiv(x, divisor) : b_->CreateUDiv(x, divisor);
      return b_->CreateSelect(by_zero, constant(-1), quotient);
    }
    case HloOpcode::kRemainder: {
      // x % 0 = x; x % -1 = 0 (INT_MIN included).
      llvm::Value* by_zero = b_->CreateICmpEQ(y, constant(0));
      llvm::Value* unsafe = is_signed ? b_->CreateOr(by_zero, b_->CreateICmpEQ(y, constant(-1)))
                                      : by_zero;
      llvm::Value* divisor = b_->CreateSelect(unsafe, constant(1), y);
      llvm::Value* remainder = is_signed ? b_->CreateSRem(x, divisor) : b_->CreateURem(x, divisor);
      return b_->CreateSelect(by_zero, x, remainder);
    }
    case HloOpcode::kMaximum:
      return b_->CreateBinaryIntrinsic(is_signed ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, x, y);
    case HloOpcode::kMinimum:
      return b_->CreateBinaryIntrinsic(is_signed ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, x, y);
    case HloOpcode::kPower: return EmitIntegerPower(x, y, is_signed);
    case HloOpcode::kAnd: return b_->CreateAnd(x, y);
    case HloOpcode::kOr: return b_->CreateOr(x, y);
    case HloOpcode::kXor: return b_->CreateXor(x, y);
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kShiftRightArithmetic: {
      // An amount >= the width (unsigned; so negative ones too) shifts
      // everything out: 0, or the sign fill for the arithmetic shift.
      llvm::Value* out_of_range = b_->CreateICmpUGE(y, constant(width));
      if (hlo.opcode() == HloOpcode::kShiftRightArithmetic) {
        return b_->CreateAShr(x, b_->CreateSelect(out_of_range, constant(width - 1), y));
      }
      llvm::Value* amount = b_->CreateSelect(out_of_range, constant(0), y);
      llvm::Value* shifted = hlo.opcode() == HloOpcode::kShiftLeft ? b_->CreateShl(x, amount)
                                                                   : b_->CreateLShr(x, amount);
      return b_->CreateSelect(out_of_range, constant(0), shifted);
    }
    case HloOpcode::kMulhi: {
      llvm::Type* wide = b_->getIntNTy(2 * width);
      llvm::Value* product = b_->CreateMul(b_->CreateIntCast(x, wide, is_signed),
                                           b_->CreateIntCast(y, wide, is_signed));
      return b_->CreateTrunc(b_->CreateLShr(product, width), t);
    }
    default: return UnsupportedType(hlo, type);
  }
}

// ---------------------------------------------------------------------------
// Floats: computed in f32 for F8*/F16/BF16, rounded once at the end.

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitFloatOp(
    const HloInstruction& hlo, PrimitiveType type, absl::Span<llvm::Value* const> operands) {
  llvm::Value* x = ToCompute(operands[0], type);
  llvm::Type* t = x->getType();
  auto unary_intrinsic = [&](llvm::Intrinsic::ID id) { return b_->CreateUnaryIntrinsic(id, x); };
  auto math = [&](MathFunction function,
                  std::vector<llvm::Value*> args) -> absl::StatusOr<llvm::Value*> {
    return EmitMathFunction(function, args);
  };
  llvm::Value* result = nullptr;
  if (operands.size() == 1) {
    if (std::optional<MathFunction> function = MathFunctionOf(hlo.opcode())) {
      TS_ASSIGN_OR_RETURN(result, math(*function, {x}));
      return FromCompute(result, type);
    }
    absl::StatusOr<llvm::Value*> computed;
    switch (hlo.opcode()) {
      case HloOpcode::kAbs: computed = unary_intrinsic(llvm::Intrinsic::fabs); break;
      case HloOpcode::kNegate: computed = b_->CreateFNeg(x); break;
      case HloOpcode::kSign: {
        // NaN stays; otherwise +-1 or +-0 with x's sign.
        llvm::Value* magnitude =
            b_->CreateSelect(b_->CreateFCmpUNE(x, llvm::ConstantFP::get(t, 0.0)),
                             llvm::ConstantFP::get(t, 1.0), llvm::ConstantFP::get(t, 0.0));
        llvm::Value* signed_magnitude =
            b_->CreateBinaryIntrinsic(llvm::Intrinsic::copysign, magnitude, x);
        computed = b_->CreateSelect(b_->CreateFCmpUNO(x, x), x, signed_magnitude);
        break;
      }
      // GCC inlines std::ceil/floor of a float as a sequence that returns
      // a NaN unchanged (even a signaling one); glibc's ceil/floor of a
      // double quiet it, as the instruction does.
      case HloOpcode::kCeil:
      case HloOpcode::kFloor: {
        llvm::Value* rounded = unary_intrinsic(
            hlo.opcode() == HloOpcode::kCeil ? llvm::Intrinsic::ceil : llvm::Intrinsic::floor);
        computed = t->isFloatTy() ? b_->CreateSelect(b_->CreateFCmpUNO(x, x), x, rounded) : rounded;
        break;
      }
      case HloOpcode::kRoundNearestAfz: computed = unary_intrinsic(llvm::Intrinsic::round); break;
      case HloOpcode::kRoundNearestEven:
        computed = unary_intrinsic(llvm::Intrinsic::roundeven);
        break;
      default: return UnsupportedType(hlo, type);
    }
    TS_ASSIGN_OR_RETURN(result, std::move(computed));
    return FromCompute(result, type);
  }
  llvm::Value* y = ToCompute(operands[1], type);
  switch (hlo.opcode()) {
    case HloOpcode::kAdd: result = b_->CreateFAdd(x, y); break;
    case HloOpcode::kSubtract: result = b_->CreateFSub(x, y); break;
    case HloOpcode::kMultiply: result = b_->CreateFMul(x, y); break;
    case HloOpcode::kDivide: result = b_->CreateFDiv(x, y); break;
    case HloOpcode::kRemainder: result = b_->CreateFRem(x, y); break;  // fmod
    case HloOpcode::kMaximum: result = FloatMax(x, y); break;
    case HloOpcode::kMinimum: result = FloatMin(x, y); break;
    case HloOpcode::kPower: {
      // pow(1, y) = pow(x, 0) = 1, even for NaN.
      TS_ASSIGN_OR_RETURN(llvm::Value * power, math(MathFunction::kPow, {x, y}));
      llvm::Value* trivial = b_->CreateOr(b_->CreateFCmpOEQ(x, llvm::ConstantFP::get(t, 1.0)),
                                          b_->CreateFCmpOEQ(y, llvm::ConstantFP::get(t, 0.0)));
      result = b_->CreateSelect(trivial, llvm::ConstantFP::get(t, 1.0), power);
      break;
    }
    case HloOpcode::kAtan2: {
      TS_ASSIGN_OR_RETURN(result, math(MathFunction::kAtan2, {x, y}));
      break;
    }
    default: return UnsupportedType(hlo, type);
  }
  return FromCompute(result, type);
}

// ---------------------------------------------------------------------------
// Compare and clamp.

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitCompare(const HloInstruction& hlo,
                                                             PrimitiveType type, llvm::Value* lhs,
                                                             llvm::Value* rhs) {
  const ComparisonDirection direction = hlo.comparison_direction();
  const ComparisonType comparison = hlo.EffectiveComparisonType();
  if (IsComplexType(type)) {
    if (direction != ComparisonDirection::kEq && direction != ComparisonDirection::kNe) {
      return absl::InvalidArgumentError(
          absl::StrCat("%", hlo.name(), ": complex numbers compare only with EQ and NE, not ",
                       ComparisonDirectionString(direction)));
    }
    llvm::Value* equal = b_->CreateAnd(b_->CreateFCmpOEQ(Re(lhs), Re(rhs)),
                                       b_->CreateFCmpOEQ(Im(lhs), Im(rhs)));
    return direction == ComparisonDirection::kEq ? equal : b_->CreateNot(equal);
  }
  using P = llvm::CmpInst::Predicate;
  auto predicate = [&](P eq, P ne, P ge, P gt, P le, P lt) {
    switch (direction) {
      case ComparisonDirection::kEq: return eq;
      case ComparisonDirection::kNe: return ne;
      case ComparisonDirection::kGe: return ge;
      case ComparisonDirection::kGt: return gt;
      case ComparisonDirection::kLe: return le;
      case ComparisonDirection::kLt: return lt;
    }
    return eq;
  };
  const P signed_predicate =
      predicate(P::ICMP_EQ, P::ICMP_NE, P::ICMP_SGE, P::ICMP_SGT, P::ICMP_SLE, P::ICMP_SLT);
  const P unsigned_predicate =
      predicate(P::ICMP_EQ, P::ICMP_NE, P::ICMP_UGE, P::ICMP_UGT, P::ICMP_ULE, P::ICMP_ULT);
  if (IsFloatingPointType(type)) {
    if (comparison == ComparisonType::kFloatTotalOrder) {
      // TotalOrderKey: flip the magnitude bits of negative values.
      const int width = BitWidth(type);
      llvm::Type* bits_type = b_->getIntNTy(width);
      auto key = [&](llvm::Value* value) {
        // BF16 and F8* values are their bits already.
        llvm::Value* bits =
            value->getType()->isIntegerTy() ? value : b_->CreateBitCast(value, bits_type);
        llvm::Value* flipped =
            b_->CreateXor(bits, llvm::ConstantInt::get(bits_type, llvm::APInt::getSignedMaxValue(width)));
        return b_->CreateSelect(b_->CreateICmpSLT(bits, llvm::ConstantInt::get(bits_type, 0)),
                                flipped, bits);
      };
      return b_->CreateICmp(signed_predicate, key(lhs), key(rhs));
    }
    return b_->CreateFCmp(predicate(P::FCMP_OEQ, P::FCMP_UNE, P::FCMP_OGE, P::FCMP_OGT,
                                    P::FCMP_OLE, P::FCMP_OLT),
                          ToCompute(lhs, type), ToCompute(rhs, type));
  }
  bool is_signed = IsSignedIntegralType(type);
  if (type != PRED && comparison == ComparisonType::kSigned) is_signed = true;
  if (type == PRED || comparison == ComparisonType::kUnsigned) is_signed = false;
  return b_->CreateICmp(is_signed ? signed_predicate : unsigned_predicate, lhs, rhs);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitClamp(PrimitiveType type, llvm::Value* low,
                                                           llvm::Value* x, llvm::Value* high) {
  if (IsFloatingPointType(type)) {
    llvm::Value* clamped =
        FloatMin(FloatMax(ToCompute(x, type), ToCompute(low, type)), ToCompute(high, type));
    return FromCompute(clamped, type);
  }
  if (IsComplexType(type)) {
    return absl::InvalidArgumentError(absl::StrCat("clamp does not support element type ",
                                                   PrimitiveTypeName(type)));
  }
  const bool is_signed = IsSignedIntegralType(type);
  llvm::Value* at_least_low =
      b_->CreateBinaryIntrinsic(is_signed ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, x, low);
  return b_->CreateBinaryIntrinsic(is_signed ? llvm::Intrinsic::smin : llvm::Intrinsic::umin,
                                   at_least_low, high);
}

// ---------------------------------------------------------------------------
// Dispatch.

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitElementwise(
    const HloInstruction& hlo, absl::Span<llvm::Value* const> operands) {
  const HloOpcode opcode = hlo.opcode();
  if (static_cast<int64_t>(operands.size()) != hlo.operand_count()) {
    return absl::InternalError(absl::StrCat("%", hlo.name(), ": ", operands.size(),
                                            " operand values for ", hlo.operand_count(),
                                            " operands"));
  }
  const std::optional<int> arity = HloOpcodeArity(opcode);
  if (arity.has_value() && *arity != hlo.operand_count()) {
    return absl::InvalidArgumentError(absl::StrCat("%", hlo.name(), ": ",
                                                   HloOpcodeString(opcode), " takes ", *arity,
                                                   " operands, not ", hlo.operand_count()));
  }
  const PrimitiveType result_type = hlo.shape().element_type();
  const PrimitiveType type =
      operands.empty() ? result_type : hlo.operand(0)->shape().element_type();
  switch (opcode) {
    case HloOpcode::kConvert: return EmitConvert(operands[0], type, result_type);
    case HloOpcode::kBitcastConvert: return EmitBitcastConvert(operands[0], type, result_type);
    case HloOpcode::kReducePrecision:
      return EmitReducePrecision(operands[0], type, hlo.attrs().exponent_bits,
                                 hlo.attrs().mantissa_bits);
    case HloOpcode::kIsFinite: {
      if (!IsFloatingPointType(type)) return UnsupportedType(hlo, type);
      llvm::Value* x = ToCompute(operands[0], type);
      return b_->CreateFCmpONE(b_->CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x),
                               llvm::ConstantFP::getInfinity(x->getType()));
    }
    case HloOpcode::kSelect:
      if (hlo.operand(0)->shape().element_type() != PRED) {
        return absl::InvalidArgumentError(
            absl::StrCat("%", hlo.name(), ": the predicate of select must be pred"));
      }
      return b_->CreateSelect(operands[0], operands[1], operands[2]);
    case HloOpcode::kClamp:
      return EmitClamp(result_type, operands[0], operands[1], operands[2]);
    case HloOpcode::kCompare: return EmitCompare(hlo, type, operands[0], operands[1]);
    case HloOpcode::kReal:
    case HloOpcode::kImag:
    case HloOpcode::kComplex: return EmitComplexOp(hlo, type, operands);
    case HloOpcode::kMap:
    case HloOpcode::kStochasticConvert:
      return absl::UnimplementedError(absl::StrCat("%", hlo.name(), ": ",
                                                   HloOpcodeString(opcode),
                                                   " is not emitted elementally yet"));
    default: break;
  }
  if (!HloOpcodeIsElementwise(opcode) || operands.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "%", hlo.name(), ": ", HloOpcodeString(opcode), " is not an elementwise op"));
  }
  for (int64_t i = 1; i < hlo.operand_count(); ++i) {
    if (hlo.operand(i)->shape().element_type() != type) {
      return absl::InvalidArgumentError(absl::StrCat("%", hlo.name(),
                                                     ": operands have different element types"));
    }
  }
  const bool complex_abs = opcode == HloOpcode::kAbs && IsComplexType(type);
  const PrimitiveType expected = complex_abs ? ComplexComponentType(type) : type;
  if (result_type != expected) {
    return absl::InvalidArgumentError(absl::StrCat("%", hlo.name(),
                                                   ": the result must have element type ",
                                                   PrimitiveTypeName(expected)));
  }
  if (type == PRED) return EmitPredOp(hlo, operands);
  if (IsIntegralType(type)) return EmitIntegerOp(hlo, type, operands);
  if (IsFloatingPointType(type)) return EmitFloatOp(hlo, type, operands);
  if (IsComplexType(type)) return EmitComplexOp(hlo, type, operands);
  return UnsupportedType(hlo, type);
}

// ---------------------------------------------------------------------------
// Element generators.

namespace {

absl::Status BadShapes(const HloInstruction& hlo, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("%", hlo.name(), ": ", what, " (result ",
                                                 hlo.shape().ToString(), ")"));
}

// What the generators rely on to index operands without bounds checks:
// elementwise operands have the result's dimensions (or are the scalars
// select and clamp allow), and the remapping ops' attributes fit their
// operand.  The full verifier runs earlier in a pipeline; this keeps a
// malformed computation from reading out of bounds here.
absl::Status CheckIndexing(const HloInstruction& hlo) {
  const Shape& shape = hlo.shape();
  for (const HloInstruction* operand : hlo.operands()) {
    if (!operand->shape().IsArray()) return BadShapes(hlo, "an operand is not an array");
  }
  const int64_t rank = shape.rank();
  auto operand_dims = [&](int64_t i) -> const std::vector<int64_t>& {
    return hlo.operand(i)->shape().dimensions();
  };
  switch (hlo.opcode()) {
    case HloOpcode::kBroadcast: {
      const std::vector<int64_t>& dims = hlo.dimensions();
      if (hlo.operand_count() != 1 || dims.size() != operand_dims(0).size()) {
        return BadShapes(hlo, "broadcast needs one dimension per operand dimension");
      }
      for (size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] < 0 || dims[i] >= rank || shape.dimensions(dims[i]) != operand_dims(0)[i]) {
          return BadShapes(hlo, absl::StrCat("operand dimension ", i, " does not broadcast"));
        }
      }
      return absl::OkStatus();
    }
    case HloOpcode::kTranspose: {
      const std::vector<int64_t>& permutation = hlo.dimensions();
      if (hlo.operand_count() != 1 || static_cast<int64_t>(permutation.size()) != rank ||
          operand_dims(0).size() != permutation.size()) {
        return BadShapes(hlo, "transpose needs a permutation of the operand's dimensions");
      }
      std::vector<bool> seen(rank, false);
      for (int64_t i = 0; i < rank; ++i) {
        const int64_t d = permutation[i];
        if (d < 0 || d >= rank || seen[d] || shape.dimensions(i) != operand_dims(0)[d]) {
          return BadShapes(hlo, "transpose needs a permutation of the operand's dimensions");
        }
        seen[d] = true;
      }
      return absl::OkStatus();
    }
    case HloOpcode::kReshape:
      if (hlo.operand_count() != 1 ||
          hlo.operand(0)->shape().ElementCount() != shape.ElementCount()) {
        return BadShapes(hlo, "reshape must keep the element count");
      }
      return absl::OkStatus();
    case HloOpcode::kBitcast: {
      // One element type and count, plain layouts: the element at the same
      // physical position.  Other bitcasts reinterpret bytes in ways the
      // generators do not follow.
      const Shape& operand = hlo.operand(0)->shape();
      const bool plain = (!shape.has_layout() || shape.layout().tiles.empty()) &&
                         (!operand.has_layout() || operand.layout().tiles.empty());
      if (hlo.operand_count() != 1 || operand.ElementCount() != shape.ElementCount() ||
          operand.element_type() != shape.element_type() || !plain) {
        return absl::UnimplementedError(
            absl::StrCat("%", hlo.name(),
                         ": only bitcasts between plain layouts of one element type and count "
                         "have an element generator"));
      }
      return absl::OkStatus();
    }
    case HloOpcode::kSlice: {
      const std::vector<SliceDimension>& slices = hlo.slice_dimensions();
      if (hlo.operand_count() != 1 || static_cast<int64_t>(slices.size()) != rank ||
          operand_dims(0).size() != slices.size()) {
        return BadShapes(hlo, "slice needs one range per dimension");
      }
      for (int64_t d = 0; d < rank; ++d) {
        const SliceDimension& s = slices[d];
        if (s.start < 0 || s.stride < 1 || s.limit < s.start || s.limit > operand_dims(0)[d] ||
            shape.dimensions(d) != (s.limit - s.start + s.stride - 1) / s.stride) {
          return BadShapes(hlo, absl::StrCat("slice of dimension ", d, " does not fit"));
        }
      }
      return absl::OkStatus();
    }
    case HloOpcode::kReverse:
      for (int64_t d : hlo.dimensions()) {
        if (d < 0 || d >= rank) return BadShapes(hlo, "reverse dimension out of range");
      }
      [[fallthrough]];
    case HloOpcode::kCopy:
      if (hlo.operand_count() != 1 || operand_dims(0) != shape.dimensions()) {
        return BadShapes(hlo, "operand and result dimensions differ");
      }
      return absl::OkStatus();
    case HloOpcode::kIota:
      if (hlo.dimensions().size() != 1 || hlo.dimensions(0) < 0 || hlo.dimensions(0) >= rank) {
        return BadShapes(hlo, "bad iota dimension");
      }
      return absl::OkStatus();
    default:
      break;
  }
  for (int64_t i = 0; i < hlo.operand_count(); ++i) {
    const bool scalar_allowed = (hlo.opcode() == HloOpcode::kSelect && i == 0) ||
                                (hlo.opcode() == HloOpcode::kClamp && (i == 0 || i == 2));
    if (scalar_allowed && operand_dims(i).empty()) continue;
    if (operand_dims(i) != shape.dimensions()) {
      return BadShapes(hlo, absl::StrCat("operand ", i, " has shape ",
                                         hlo.operand(i)->shape().ToString()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ElementGenerator> ElementalIrEmitter::MakeElementGenerator(
    const HloInstruction* hlo, const GeneratorMap& operands) {
  if (!hlo->shape().IsArray()) {
    return absl::UnimplementedError(absl::StrCat("%", hlo->name(), ": ",
                                                 HloOpcodeString(hlo->opcode()),
                                                 " of non-array shape ", hlo->shape().ToString(),
                                                 " has no element generator"));
  }
  switch (hlo->opcode()) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kReverse:
    case HloOpcode::kSlice:
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:
    case HloOpcode::kCopy:
    case HloOpcode::kIota:
    case HloOpcode::kPad:
    case HloOpcode::kConcatenate:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kGather: break;
    default:
      if (!hlo->IsElementwise()) {
        return absl::UnimplementedError(absl::StrCat("%", hlo->name(), ": ",
                                                     HloOpcodeString(hlo->opcode()),
                                                     " has no element generator"));
      }
  }
  const bool picks = hlo->opcode() == HloOpcode::kPad ||
                     hlo->opcode() == HloOpcode::kConcatenate ||
                     hlo->opcode() == HloOpcode::kDynamicSlice ||
                     hlo->opcode() == HloOpcode::kDynamicUpdateSlice ||
                     hlo->opcode() == HloOpcode::kGather;
  if (hlo->opcode() == HloOpcode::kBitcastConvert && hlo->operand_count() == 1 &&
      hlo->operand(0)->shape().IsArray() &&
      BitWidth(hlo->shape().element_type()) != BitWidth(hlo->operand(0)->shape().element_type())) {
    auto it = operands.find(hlo->operand(0));
    if (it == operands.end()) {
      return absl::InternalError(
          absl::StrCat("%", hlo->name(), ": no generator for operand %", hlo->operand(0)->name()));
    }
    return MakeWidthChangingBitcastConvert(*hlo, it->second);
  }
  if (!picks) TS_RETURN_IF_ERROR(CheckIndexing(*hlo));
  std::vector<ElementGenerator> operand_generators;
  for (const HloInstruction* operand : hlo->operands()) {
    auto it = operands.find(operand);
    if (it == operands.end()) {
      return absl::InternalError(absl::StrCat("%", hlo->name(), ": no generator for operand %",
                                              operand->name()));
    }
    operand_generators.push_back(it->second);
  }
  llvm::IRBuilder<>* b = b_;
  if (picks) return MakeIndexingGenerator(*hlo, std::move(operand_generators), b);
  const Shape& shape = hlo->shape();
  // The generator of operand 0 at a multi-index computed from the result's.
  auto remapped = [&](std::function<std::vector<llvm::Value*>(const IrIndex&)> map) {
    ElementGenerator operand = operand_generators[0];
    const Shape operand_shape = hlo->operand(0)->shape();
    return ElementGenerator(
        [operand, operand_shape, map](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
          return operand(IrIndex(map(index), operand_shape, index.index_type()));
        });
  };
  switch (hlo->opcode()) {
    case HloOpcode::kBroadcast: {
      const std::vector<int64_t> dims = hlo->dimensions();
      return remapped([dims](const IrIndex& index) {
        std::vector<llvm::Value*> source;
        for (int64_t d : dims) source.push_back(index[d]);
        return source;
      });
    }
    case HloOpcode::kTranspose: {
      const std::vector<int64_t> permutation = hlo->dimensions();
      return remapped([permutation](const IrIndex& index) {
        std::vector<llvm::Value*> source(permutation.size());
        for (size_t i = 0; i < permutation.size(); ++i) source[permutation[i]] = index[i];
        return source;
      });
    }
    case HloOpcode::kReverse: {
      const std::vector<int64_t> reversed = hlo->dimensions();
      return remapped([reversed, shape, b](const IrIndex& index) {
        std::vector<llvm::Value*> source = index.multi_index();
        for (int64_t d : reversed) {
          source[d] = b->CreateSub(index.Constant(shape.dimensions(d) - 1), index[d]);
        }
        return source;
      });
    }
    case HloOpcode::kSlice: {
      const std::vector<SliceDimension> slices = hlo->slice_dimensions();
      return remapped([slices, b](const IrIndex& index) {
        std::vector<llvm::Value*> source = index.multi_index();
        for (size_t d = 0; d < slices.size(); ++d) {
          llvm::Value* scaled = b->CreateMul(index[d], index.Constant(slices[d].stride));
          source[d] = b->CreateAdd(scaled, index.Constant(slices[d].start));
        }
        return source;
      });
    }
    case HloOpcode::kBitcast:
    case HloOpcode::kReshape: {
      // A reshape keeps each element's row-major position; a bitcast its
      // position in the physical order (the layouts').
      const bool bitcast = hlo->opcode() == HloOpcode::kBitcast;
      const Shape operand_shape = hlo->operand(0)->shape();
      const std::vector<int64_t> order =
          bitcast ? MinorToMajor(shape) : Layout::Descending(shape.rank()).minor_to_major;
      const std::vector<int64_t> operand_order =
          bitcast ? MinorToMajor(operand_shape)
                  : Layout::Descending(operand_shape.rank()).minor_to_major;
      // The same dimensions in that order (a layout assignment's transpose
      // as a bitcast, or a reshape that changes nothing): a permutation of
      // the index, without the division of a position back into one (which
      // the vectorizer can only gather).
      bool permutes = operand_shape.rank() == shape.rank();
      for (size_t k = 0; permutes && k < order.size(); ++k) {
        permutes = shape.dimensions(order[k]) == operand_shape.dimensions(operand_order[k]);
      }
      if (permutes) {
        return remapped([order, operand_order](const IrIndex& index) {
          std::vector<llvm::Value*> source(operand_order.size());
          for (size_t k = 0; k < order.size(); ++k) source[operand_order[k]] = index[order[k]];
          return source;
        });
      }
      return remapped([shape, operand_shape, order, operand_order, b](const IrIndex& index) {
        // The position, major-most dimension first.
        llvm::Value* linear = index.Constant(0);
        for (auto it = order.rbegin(); it != order.rend(); ++it) {
          linear =
              b->CreateAdd(b->CreateMul(linear, index.Constant(shape.dimensions(*it))), index[*it]);
        }
        // The operand's multi-index at it, minor-most dimension first.
        std::vector<llvm::Value*> source(operand_shape.rank());
        for (size_t k = 0; k < operand_order.size(); ++k) {
          const int64_t d = operand_order[k];
          if (k + 1 == operand_order.size()) {
            source[d] = linear;
            break;
          }
          llvm::Value* size = index.Constant(operand_shape.dimensions(d));
          source[d] = b->CreateURem(linear, size);
          linear = b->CreateUDiv(linear, size);
        }
        return source;
      });
    }
    case HloOpcode::kCopy:
      return operand_generators[0];
    case HloOpcode::kIota: {
      const int64_t dimension = hlo->dimensions(0);
      const PrimitiveType type = shape.element_type();
      return ElementGenerator([this, dimension, type](const IrIndex& index) {
        return EmitConvert(index[dimension], S64, type);
      });
    }
    default:
      break;
  }
  std::vector<bool> scalar_operand;
  for (const HloInstruction* operand : hlo->operands()) {
    scalar_operand.push_back(operand->shape().rank() == 0 && shape.rank() != 0);
  }
  return ElementGenerator([this, hlo, operand_generators, scalar_operand](
                              const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    std::vector<llvm::Value*> values;
    for (size_t i = 0; i < operand_generators.size(); ++i) {
      // Scalar operands of select and clamp are read at the scalar index.
      const IrIndex scalar_index(index.index_type());
      TS_ASSIGN_OR_RETURN(llvm::Value * value,
                          operand_generators[i](scalar_operand[i] ? scalar_index : index));
      values.push_back(value);
    }
    return EmitElementwise(*hlo, values);
  });
}

}  // namespace llvm_ir
}  // namespace tessera
