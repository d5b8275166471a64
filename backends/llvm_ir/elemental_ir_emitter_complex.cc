// ElementalIrEmitter: complex numbers (C64, C128) and real/imag/complex.
//
// The evaluator computes with std::complex, which GCC and libstdc++ lower to
// libgcc's __mulsc3/__divsc3 (C99 Annex G multiplication and division) and
// glibc's cexp, clog, csqrt, ... .  To match it bit for bit the kernels do
// the same: multiplication inline with libgcc's recovery call when the
// naive product is NaN, division and the transcendental functions as calls.
// x86-64 SysV passes a `float _Complex` as one <2 x float> register and a
// `double _Complex` as two doubles (returned as {double, double}).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/llvm_ir/elemental_ir_emitter.h"
#include "hlo/ir/hlo_opcode.h"
#include "hlo/ir/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"

namespace tessera {
namespace llvm_ir {

llvm::Value* ElementalIrEmitter::MakeComplex(llvm::Value* re, llvm::Value* im) {
  llvm::Type* type = llvm::StructType::get(b_->getContext(), {re->getType(), im->getType()});
  llvm::Value* z = b_->CreateInsertValue(llvm::PoisonValue::get(type), re, {0});
  return b_->CreateInsertValue(z, im, {1});
}

llvm::Value* ElementalIrEmitter::Re(llvm::Value* z) { return b_->CreateExtractValue(z, {0}); }
llvm::Value* ElementalIrEmitter::Im(llvm::Value* z) { return b_->CreateExtractValue(z, {1}); }

llvm::Value* ElementalIrEmitter::ComplexAdd(llvm::Value* x, llvm::Value* y) {
  return MakeComplex(b_->CreateFAdd(Re(x), Re(y)), b_->CreateFAdd(Im(x), Im(y)));
}

namespace {

// The {re, im} of a C-ABI complex return value: <2 x float> or {double, double}.
struct AbiComplex {
  llvm::Value* re;
  llvm::Value* im;
};

// The C ABI's type of a returned complex number of `part`s.
llvm::Type* AbiComplexType(llvm::Type* part) {
  if (part->isFloatTy()) return llvm::FixedVectorType::get(part, 2);
  return llvm::StructType::get(part->getContext(), {part, part});
}

AbiComplex SplitAbiResult(llvm::IRBuilder<>* b, llvm::Value* result) {
  if (result->getType()->isVectorTy()) {
    return {b->CreateExtractElement(result, uint64_t{0}), b->CreateExtractElement(result, uint64_t{1})};
  }
  return {b->CreateExtractValue(result, {0}), b->CreateExtractValue(result, {1})};
}

}  // namespace

llvm::Value* ElementalIrEmitter::CallComplexLibrary(absl::string_view name,
                                                    absl::Span<llvm::Value* const> args) {
  llvm::Type* part = Re(args[0])->getType();
  const bool is_float = part->isFloatTy();
  std::vector<llvm::Value*> abi_args;
  for (llvm::Value* z : args) {
    if (is_float) {
      llvm::Type* vector = llvm::FixedVectorType::get(part, 2);
      llvm::Value* v = b_->CreateInsertElement(llvm::PoisonValue::get(vector), Re(z), uint64_t{0});
      abi_args.push_back(b_->CreateInsertElement(v, Im(z), uint64_t{1}));
    } else {
      abi_args.push_back(Re(z));
      abi_args.push_back(Im(z));
    }
  }
  llvm::Type* result_type = AbiComplexType(part);
  llvm::Value* result =
      CallLibrary(absl::StrCat(name, is_float ? "f" : ""), result_type, abi_args);
  AbiComplex split = SplitAbiResult(b_, result);
  return MakeComplex(split.re, split.im);
}

// (a + bi)(c + di) as GCC expands it: the naive product, and libgcc's
// __mulsc3/__muldc3 (which recovers infinities) when that is NaN.
llvm::Value* ElementalIrEmitter::ComplexMultiply(llvm::Value* x, llvm::Value* y) {
  llvm::Value* a = Re(x);
  llvm::Value* b = Im(x);
  llvm::Value* c = Re(y);
  llvm::Value* d = Im(y);
  llvm::Value* re = b_->CreateFSub(b_->CreateFMul(a, c), b_->CreateFMul(b, d));
  llvm::Value* im = b_->CreateFAdd(b_->CreateFMul(a, d), b_->CreateFMul(b, c));
  llvm::Type* part = a->getType();
  const bool is_float = part->isFloatTy();

  llvm::BasicBlock* start = b_->GetInsertBlock();
  llvm::Function* function = start->getParent();
  llvm::BasicBlock* slow = llvm::BasicBlock::Create(b_->getContext(), "cmul.nan", function);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(b_->getContext(), "cmul.done", function);
  b_->CreateCondBr(b_->CreateFCmpUNO(re, im), slow, done);

  b_->SetInsertPoint(slow);
  llvm::Type* result_type = AbiComplexType(part);
  AbiComplex recovered = SplitAbiResult(
      b_, CallLibrary(is_float ? "__mulsc3" : "__muldc3", result_type, {a, b, c, d}));
  llvm::BasicBlock* slow_end = b_->GetInsertBlock();
  b_->CreateBr(done);

  b_->SetInsertPoint(done);
  llvm::PHINode* re_phi = b_->CreatePHI(part, 2);
  re_phi->addIncoming(re, start);
  re_phi->addIncoming(recovered.re, slow_end);
  llvm::PHINode* im_phi = b_->CreatePHI(part, 2);
  im_phi->addIncoming(im, start);
  im_phi->addIncoming(recovered.im, slow_end);
  return MakeComplex(re_phi, im_phi);
}

// GCC always divides complex numbers with libgcc's __divsc3/__divdc3.
llvm::Value* ElementalIrEmitter::ComplexDivide(llvm::Value* x, llvm::Value* y) {
  llvm::Type* part = Re(x)->getType();
  const bool is_float = part->isFloatTy();
  llvm::Type* result_type = AbiComplexType(part);
  AbiComplex q = SplitAbiResult(b_, CallLibrary(is_float ? "__divsc3" : "__divdc3", result_type,
                                                {Re(x), Im(x), Re(y), Im(y)}));
  return MakeComplex(q.re, q.im);
}

// |z|: glibc's cabs is hypot.  For c64 that is, as glibc's hypotf computes
// it, the f32 rounding of sqrt(x^2 + y^2) in double (the squares exact, no
// overflow), infinite where either part is: inline, so that a kernel of
// complex magnitudes vectorizes instead of calling hypotf per element.
absl::StatusOr<llvm::Value*> ElementalIrEmitter::ComplexAbs(llvm::Value* z) {
  llvm::Value* re = Re(z);
  llvm::Value* im = Im(z);
  if (!re->getType()->isFloatTy()) return EmitMathFunction(MathFunction::kHypot, {re, im});
  llvm::Type* wide = b_->getDoubleTy();
  llvm::Value* x = b_->CreateFPExt(re, wide);
  llvm::Value* y = b_->CreateFPExt(im, wide);
  llvm::Value* magnitude = b_->CreateFPTrunc(
      b_->CreateUnaryIntrinsic(llvm::Intrinsic::sqrt,
                               b_->CreateFAdd(b_->CreateFMul(x, x), b_->CreateFMul(y, y))),
      re->getType());
  llvm::Value* inf = llvm::ConstantFP::getInfinity(re->getType());
  llvm::Value* either_infinite =
      b_->CreateOr(b_->CreateFCmpOEQ(b_->CreateUnaryIntrinsic(llvm::Intrinsic::fabs, re), inf),
                   b_->CreateFCmpOEQ(b_->CreateUnaryIntrinsic(llvm::Intrinsic::fabs, im), inf));
  return b_->CreateSelect(either_infinite, inf, magnitude);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitComplexOp(
    const HloInstruction& hlo, PrimitiveType type, absl::Span<llvm::Value* const> operands) {
  const HloOpcode opcode = hlo.opcode();
  auto unsupported = [&]() {
    return absl::InvalidArgumentError(absl::StrCat("%", hlo.name(), ": ",
                                                   HloOpcodeString(opcode),
                                                   " does not support element type ",
                                                   PrimitiveTypeName(type)));
  };
  // real, imag, complex: also defined on real floats.
  switch (opcode) {
    case HloOpcode::kReal:
    case HloOpcode::kImag: {
      if (IsComplexType(type)) return opcode == HloOpcode::kReal ? Re(operands[0]) : Im(operands[0]);
      if (!IsFloatingPointType(type)) return unsupported();
      if (opcode == HloOpcode::kReal) return operands[0];
      return llvm::Constant::getNullValue(operands[0]->getType());  // imag of a real is +0
    }
    case HloOpcode::kComplex:
      if (type != F32 && type != F64) return unsupported();
      return MakeComplex(operands[0], operands[1]);
    default:
      break;
  }
  llvm::Value* x = operands[0];
  llvm::Type* part = Re(x)->getType();
  auto real = [&](double v) { return llvm::ConstantFP::get(part, v); };
  auto constant = [&](double re, double im) { return MakeComplex(real(re), real(im)); };
  auto negate = [&](llvm::Value* z) {
    return MakeComplex(b_->CreateFNeg(Re(z)), b_->CreateFNeg(Im(z)));
  };
  auto math = [&](MathFunction function, std::vector<llvm::Value*> args) {
    return EmitMathFunction(function, args);
  };
  if (operands.size() == 1) {
    switch (opcode) {
      case HloOpcode::kNegate: return negate(x);
      case HloOpcode::kAbs: return ComplexAbs(x);
      case HloOpcode::kSign: {
        // 0 for 0, else z / |z| (each part divided by the real magnitude).
        TS_ASSIGN_OR_RETURN(llvm::Value * magnitude, ComplexAbs(x));
        llvm::Value* unit = MakeComplex(b_->CreateFDiv(Re(x), magnitude),
                                        b_->CreateFDiv(Im(x), magnitude));
        return b_->CreateSelect(b_->CreateFCmpOEQ(magnitude, real(0)), constant(0, 0), unit);
      }
      case HloOpcode::kExp: return CallComplexLibrary("cexp", {x});
      case HloOpcode::kLog: return CallComplexLibrary("clog", {x});
      case HloOpcode::kSqrt: return CallComplexLibrary("csqrt", {x});
      case HloOpcode::kSin: return CallComplexLibrary("csin", {x});
      case HloOpcode::kCos: return CallComplexLibrary("ccos", {x});
      case HloOpcode::kTan: return CallComplexLibrary("ctan", {x});
      case HloOpcode::kTanh: return CallComplexLibrary("ctanh", {x});
      case HloOpcode::kSinh: return CallComplexLibrary("csinh", {x});
      case HloOpcode::kCosh: return CallComplexLibrary("ccosh", {x});
      case HloOpcode::kAsin: return CallComplexLibrary("casin", {x});
      case HloOpcode::kAcos: return CallComplexLibrary("cacos", {x});
      case HloOpcode::kAtan: return CallComplexLibrary("catan", {x});
      case HloOpcode::kAsinh: return CallComplexLibrary("casinh", {x});
      case HloOpcode::kAcosh: return CallComplexLibrary("cacosh", {x});
      case HloOpcode::kAtanh: return CallComplexLibrary("catanh", {x});
      case HloOpcode::kLogistic: {
        // 1 / (1 + exp(-x)).
        llvm::Value* e = CallComplexLibrary("cexp", {negate(x)});
        return ComplexDivide(constant(1, 0), ComplexAdd(constant(1, 0), e));
      }
      case HloOpcode::kRsqrt:
        return ComplexDivide(constant(1, 0), CallComplexLibrary("csqrt", {x}));
      case HloOpcode::kExpm1: {
        // ComplexExpm1: (expm1(a) cos b - 2 sin^2(b/2)) + i e^a sin b.
        llvm::Value* a = Re(x);
        llvm::Value* b = Im(x);
        TS_ASSIGN_OR_RETURN(llvm::Value * half_sin,
                            math(MathFunction::kSin, {b_->CreateFDiv(b, real(2))}));
        TS_ASSIGN_OR_RETURN(llvm::Value * expm1, math(MathFunction::kExpm1, {a}));
        TS_ASSIGN_OR_RETURN(llvm::Value * cos, math(MathFunction::kCos, {b}));
        TS_ASSIGN_OR_RETURN(llvm::Value * exp, math(MathFunction::kExp, {a}));
        TS_ASSIGN_OR_RETURN(llvm::Value * sin, math(MathFunction::kSin, {b}));
        llvm::Value* re = b_->CreateFSub(b_->CreateFMul(expm1, cos),
                                         b_->CreateFMul(b_->CreateFMul(real(2), half_sin), half_sin));
        return MakeComplex(re, b_->CreateFMul(exp, sin));
      }
      case HloOpcode::kLog1p: {
        // ComplexLog1p: log|1 + z| via log1p(2a + a^2 + b^2) / 2 near 1.
        llvm::Value* a = Re(x);
        llvm::Value* b = Im(x);
        llvm::Value* one_plus_a = b_->CreateFAdd(a, real(1));
        TS_ASSIGN_OR_RETURN(llvm::Value * magnitude, math(MathFunction::kHypot, {one_plus_a, b}));
        TS_ASSIGN_OR_RETURN(llvm::Value * log, math(MathFunction::kLog, {magnitude}));
        llvm::Value* inner = b_->CreateFAdd(b_->CreateFMul(a, b_->CreateFAdd(real(2), a)),
                                            b_->CreateFMul(b, b));
        TS_ASSIGN_OR_RETURN(llvm::Value * log1p, math(MathFunction::kLog1p, {inner}));
        llvm::Value* far = b_->CreateOr(b_->CreateFCmpOLT(magnitude, real(0.5)),
                                        b_->CreateFCmpOGT(magnitude, real(2)));
        llvm::Value* re = b_->CreateSelect(far, log, b_->CreateFDiv(log1p, real(2)));
        TS_ASSIGN_OR_RETURN(llvm::Value * im, math(MathFunction::kAtan2, {b, one_plus_a}));
        return MakeComplex(re, im);
      }
      default: return unsupported();
    }
  }
  llvm::Value* y = operands[1];
  switch (opcode) {
    case HloOpcode::kAdd: return ComplexAdd(x, y);
    case HloOpcode::kSubtract:
      return MakeComplex(b_->CreateFSub(Re(x), Re(y)), b_->CreateFSub(Im(x), Im(y)));
    case HloOpcode::kMultiply: return ComplexMultiply(x, y);
    case HloOpcode::kDivide: return ComplexDivide(x, y);
    case HloOpcode::kPower: {
      // ComplexPower: 1 for x == 1 or y == 0; (+inf)^y for real y > 0 or
      // < 0 is +inf or 0; otherwise cpow.
      auto is_zero = [&](llvm::Value* v) { return b_->CreateFCmpOEQ(v, real(0)); };
      llvm::Value* trivial =
          b_->CreateOr(b_->CreateAnd(b_->CreateFCmpOEQ(Re(x), real(1)), is_zero(Im(x))),
                       b_->CreateAnd(is_zero(Re(y)), is_zero(Im(y))));
      llvm::Value* infinite_base =
          b_->CreateAnd(b_->CreateAnd(is_zero(Im(x)),
                                      b_->CreateFCmpOEQ(Re(x), llvm::ConstantFP::getInfinity(part))),
                        is_zero(Im(y)));
      llvm::Value* result = CallComplexLibrary("cpow", {x, y});
      result = b_->CreateSelect(b_->CreateAnd(infinite_base, b_->CreateFCmpOLT(Re(y), real(0))),
                                constant(0, 0), result);
      result = b_->CreateSelect(b_->CreateAnd(infinite_base, b_->CreateFCmpOGT(Re(y), real(0))),
                                x, result);
      return b_->CreateSelect(trivial, constant(1, 0), result);
    }
    case HloOpcode::kAtan2: {
      // atan2(y, x) = -i * log((x + i*y) / sqrt(x*x + y*y)), operand 0 is y.
      llvm::Value* i = constant(0, 1);
      llvm::Value* lhs = x;  // y of the formula
      llvm::Value* rhs = y;  // x of the formula
      llvm::Value* numerator = ComplexAdd(rhs, ComplexMultiply(i, lhs));
      llvm::Value* squares = ComplexAdd(ComplexMultiply(rhs, rhs), ComplexMultiply(lhs, lhs));
      llvm::Value* quotient = ComplexDivide(numerator, CallComplexLibrary("csqrt", {squares}));
      return ComplexMultiply(negate(i), CallComplexLibrary("clog", {quotient}));
    }
    default: return unsupported();
  }
}

}  // namespace llvm_ir
}  // namespace tessera
