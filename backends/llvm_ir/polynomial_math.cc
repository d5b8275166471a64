#include "backends/llvm_ir/polynomial_math.h"

#include <cmath>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "backends/llvm_ir/math_tables.h"
#include "backends/llvm_ir/target_flags.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsX86.h"

namespace tessera {
namespace llvm_ir {
namespace {

// Builds the functions for one floating type (f32 or f64, scalar or
// vector); values of the other float width are made with Ext/Trunc.
class MathBuilder {
 public:
  MathBuilder(llvm::IRBuilder<>* b, llvm::Type* type) : b_(b), type_(type) {
    is_f64_ = type->getScalarType()->isDoubleTy();
    int_type_ = type->getWithNewType(b->getIntNTy(is_f64_ ? 64 : 32));
    // Whole 512-bit registers only: a scalar or narrower vector is either
    // a loop's body that LLVM vectorizes (which cannot widen the x86
    // intrinsic) or a remainder.
    auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(type);
    avx512_ = ModuleHasAvx512(*b->GetInsertBlock()->getModule());
    scalef_ = avx512_ && vector != nullptr && vector->getNumElements() % (is_f64_ ? 8 : 16) == 0;
  }

  bool is_f64() const { return is_f64_; }
  llvm::Type* type() const { return type_; }

  // --- small helpers --------------------------------------------------------
  llvm::Constant* C(double v) const { return llvm::ConstantFP::get(type_, v); }
  llvm::Constant* I(int64_t v) const { return llvm::ConstantInt::get(int_type_, v, true); }
  llvm::Value* Add(llvm::Value* a, llvm::Value* c) { return b_->CreateFAdd(a, c); }
  llvm::Value* Sub(llvm::Value* a, llvm::Value* c) { return b_->CreateFSub(a, c); }
  llvm::Value* Mul(llvm::Value* a, llvm::Value* c) { return b_->CreateFMul(a, c); }
  llvm::Value* Div(llvm::Value* a, llvm::Value* c) { return b_->CreateFDiv(a, c); }
  llvm::Value* Fma(llvm::Value* a, llvm::Value* c, llvm::Value* d) {
    return b_->CreateIntrinsic(llvm::Intrinsic::fmuladd, {type_}, {a, c, d});
  }
  llvm::Value* Unary(llvm::Intrinsic::ID id, llvm::Value* x) {
    return b_->CreateUnaryIntrinsic(id, x);
  }
  llvm::Value* Abs(llvm::Value* x) { return Unary(llvm::Intrinsic::fabs, x); }
  llvm::Value* Rint(llvm::Value* x) { return Unary(llvm::Intrinsic::rint, x); }
  llvm::Value* CopySign(llvm::Value* mag, llvm::Value* sign) {
    return b_->CreateBinaryIntrinsic(llvm::Intrinsic::copysign, mag, sign);
  }
  llvm::Value* Sel(llvm::Value* c, llvm::Value* t, llvm::Value* f) {
    return b_->CreateSelect(c, t, f);
  }
  llvm::Value* IsNan(llvm::Value* x) { return b_->CreateFCmpUNO(x, x); }
  llvm::Value* IsInf(llvm::Value* x) {
    return b_->CreateFCmpOEQ(Abs(x), C(INFINITY));
  }
  // NaN inputs propagate (selects below only move ordered values).
  llvm::Value* ClampLow(llvm::Value* x, double lo) {
    return Sel(b_->CreateFCmpOLT(x, C(lo)), C(lo), x);
  }
  llvm::Value* ClampHigh(llvm::Value* x, double hi) {
    return Sel(b_->CreateFCmpOGT(x, C(hi)), C(hi), x);
  }
  // c[0] + x*(c[1] + x*(c[2] + ...)).
  llvm::Value* Horner(llvm::Value* x, std::initializer_list<double> c) {
    return Horner(x, std::vector<double>(c));
  }
  llvm::Value* Horner(llvm::Value* x, const std::vector<double>& v) {
    llvm::Value* acc = C(v.back());
    for (int i = static_cast<int>(v.size()) - 2; i >= 0; --i) acc = Fma(acc, x, C(v[i]));
    return acc;
  }
  llvm::Value* ToInt(llvm::Value* x) { return b_->CreateFPToSI(x, int_type_); }
  llvm::Value* ToFloat(llvm::Value* i) { return b_->CreateSIToFP(i, type_); }
  llvm::Value* Bits(llvm::Value* x) { return b_->CreateBitCast(x, int_type_); }
  llvm::Value* FromBits(llvm::Value* i) { return b_->CreateBitCast(i, type_); }
  // p * 2^n for an integer-valued n of p's type, rounded once, by
  // AVX-512's vscalef on each 512-bit part.  One instruction where the
  // generic sequence (Exp's 2^n in two halves) takes seven: exp's share of
  // softmax.  The result is the same: both round p * 2^n once.
  llvm::Value* Scalef(llvm::Value* p, llvm::Value* n) {
    const int width = is_f64_ ? 8 : 16;
    llvm::Type* part_type = llvm::FixedVectorType::get(type_->getScalarType(), width);
    llvm::Function* scalef =
        llvm::Intrinsic::getDeclaration(b_->GetInsertBlock()->getModule(),
                                        is_f64_ ? llvm::Intrinsic::x86_avx512_mask_scalef_pd_512
                                                : llvm::Intrinsic::x86_avx512_mask_scalef_ps_512);
    llvm::Value* all_lanes = b_->getIntN(width, (uint64_t{1} << width) - 1);
    llvm::Value* current_rounding = b_->getInt32(4);  // _MM_FROUND_CUR_DIRECTION
    return PerPart(width, [&](llvm::ArrayRef<int> lanes) -> llvm::Value* {
      return b_->CreateCall(scalef,
                            {b_->CreateShuffleVector(p, lanes), b_->CreateShuffleVector(n, lanes),
                             llvm::Constant::getNullValue(part_type), all_lanes, current_rounding});
    });
  }
  // fn(lanes) for each `width`-lane part of type_'s vector (lanes: the
  // part's lane numbers, -1 past the vector's end), the results
  // concatenated and cut back to type_'s lanes: an x86 intrinsic of one
  // register's width over vectors of several registers, or of part of one.
  llvm::Value* PerPart(int width, absl::FunctionRef<llvm::Value*(llvm::ArrayRef<int>)> fn) {
    const int lanes = static_cast<int>(llvm::cast<llvm::FixedVectorType>(type_)->getNumElements());
    std::vector<llvm::Value*> parts;
    for (int first = 0; first < lanes; first += width) {
      llvm::SmallVector<int, 16> part_lanes;
      for (int l = first; l < first + width; ++l) part_lanes.push_back(l < lanes ? l : -1);
      parts.push_back(fn(part_lanes));
    }
    llvm::Value* all = parts.size() == 1 ? parts[0] : llvm::concatenateVectors(*b_, parts);
    if (static_cast<int>(parts.size()) * width == lanes) return all;
    llvm::SmallVector<int, 16> first_lanes;
    for (int l = 0; l < lanes; ++l) first_lanes.push_back(l);
    return b_->CreateShuffleVector(all, first_lanes);
  }

  // 2^n for integer n in the normal exponent range.
  llvm::Value* Pow2(llvm::Value* n) {
    const int mantissa = is_f64_ ? 52 : 23, bias = is_f64_ ? 1023 : 127;
    return FromBits(b_->CreateShl(b_->CreateAdd(n, I(bias)), I(mantissa)));
  }

  // --- exp and expm1 --------------------------------------------------------
  // Cody-Waite: x = n*ln2 + r, |r| <= ln2/2, with ln2 split so that n*hi is
  // exact; expm1(r) = r + r^2 P(r), P's coefficients below.
  void Reduce(llvm::Value* x, llvm::Value** n, llvm::Value** r) {
    *n = Rint(Mul(x, C(1.4426950408889634)));
    *r = ReduceBy(x, *n);
  }
  // x - n*ln2*scale for an integer n (as a float) near x / (ln2*scale),
  // scale a power of 2.
  llvm::Value* ReduceBy(llvm::Value* x, llvm::Value* n, double scale = 1.0) {
    const double ln2_hi = is_f64_ ? 6.93147180369123816490e-01 : 6.93145751953125e-01;
    const double ln2_lo = is_f64_ ? 1.90821492927058770002e-10 : 1.42860682030941723212e-06;
    llvm::Value* nn = b_->CreateFNeg(n);
    return Fma(nn, C(ln2_lo * scale), Fma(nn, C(ln2_hi * scale), x));
  }
  // P's coefficients, r^0's first.  f64: Taylor's to r^13 (truncation
  // < 2^-57).  f32: a degree-6 minimax fit of expm1's relative error over
  // |r| <= ln2/2 (Lawson's iteration on Chebyshev points, 1/2 kept exact):
  // 2^-26.1, as small as Taylor's to r^7 (2^-26.2) with one term fewer.
  std::vector<double> Expm1Coefficients() const {
    if (is_f64_) {
      return {1.0 / 2,       1.0 / 6,        1.0 / 24,        1.0 / 120,
              1.0 / 720,     1.0 / 5040,     1.0 / 40320,     1.0 / 362880,
              1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800.0};
    }
    return {0.5, 0.1666654825282315, 0.04166685495395533, 0.008366104213305137,
            0.001389824123407015};
  }
  llvm::Value* Expm1Kernel(llvm::Value* r) {
    return Fma(Mul(r, r), Horner(r, Expm1Coefficients()), r);
  }
  // exp(r) for |r| <= ln2/2: 1 + r + r^2 P(r) in one Horner chain: one
  // instruction fewer than Expm1Kernel(r) + 1, and its last step rounds
  // once where that rounds r + r^2 P(r) and then the sum with 1.
  llvm::Value* ExpKernel(llvm::Value* r) {
    std::vector<double> coefficients = {1.0, 1.0};
    for (double c : Expm1Coefficients()) coefficients.push_back(c);
    return Horner(r, coefficients);
  }
  // Expm1Kernel(2h) / 2, with the same bits as Expm1Kernel(r) / 2 for
  // r = 2h: h*h is r*r / 4, and the Horner steps on h with coefficient k
  // scaled by 2^(k+1) are those on r scaled by 2^(k+1), all exactly.
  llvm::Value* Expm1KernelOfDouble(llvm::Value* h) {
    std::vector<double> scaled = Expm1Coefficients();
    for (size_t k = 0; k < scaled.size(); ++k) scaled[k] = std::ldexp(scaled[k], k + 1);
    return Fma(Mul(h, h), Horner(h, scaled), h);
  }
  // `bounded_below`: the caller knows x is above the low bound (erf's
  // exp(-x^2) of a clamped x), so the select for 0 is not made.
  llvm::Value* Exp(llvm::Value* x, bool bounded_below = false) {
    // Beyond these, exp is inf or 0 (and n stays small enough for Pow2).
    // Below the low one the result is 0, selected at the end; meanwhile
    // such a lane computes exp(0), because computing exp(-104) makes a
    // denormal, and each instruction that does costs a microcode assist
    // (exp of -inf, a causal mask's, ran 7x slower than of normal inputs;
    // legitimately denormal results, x in (-104, -87.3), still take it).
    //
    // With Scalef x is clamped to the low bound instead: exp(low) rounds to
    // +0 by itself, and vscalef makes a denormal or a 0 at no extra cost
    // (as fast as a normal result, measured on Zen 5), so the compare and
    // the two selects become one clamp.
    const double low = is_f64_ ? -746.0 : -104.0, high = is_f64_ ? 710.0 : 89.0;
    llvm::Value* zero = nullptr;
    llvm::Value* xc;
    if (bounded_below) {
      xc = ClampHigh(x, high);
    } else if (scalef_) {
      xc = ClampLow(ClampHigh(x, high), low);
    } else {
      zero = b_->CreateFCmpOLT(x, C(low));
      xc = ClampHigh(Sel(zero, C(0.0), x), high);
    }
    // n = round(x / ln2) by the 1.5 * 2^p shifter (p the mantissa width):
    // t's low mantissa bits hold n, so the integer n is t's bits minus the
    // shifter's, with no rounding instruction and no float-to-int
    // conversion (whose NaN case LLVM leaves undefined).  A NaN x stays
    // NaN through t, n, r and the polynomial, so no select is needed for it.
    const double shifter = is_f64_ ? 6755399441055744.0 : 12582912.0;
    const int64_t shifter_bits = is_f64_ ? 0x4338000000000000 : 0x4B400000;
    llvm::Value* t = Fma(xc, C(1.4426950408889634), C(shifter));
    llvm::Value* n = Sub(t, C(shifter));
    llvm::Value* r = ReduceBy(xc, n);
    llvm::Value* p = ExpKernel(r);
    if (scalef_) return Scalef(p, n);
    // 2^n in two halves, 2^n1 * 2^n2 with n1 = n >> 1 and n2 = n - n1, so
    // that denormal results round once and n = 128 (f32) or 1024 (f64)
    // still overflows correctly.  Their biased exponents straight from t's
    // bits: u = n + 2*bias, n1 + bias = u >> 1, n2 + bias = u - (u >> 1).
    const int mantissa = is_f64_ ? 52 : 23, bias = is_f64_ ? 1023 : 127;
    llvm::Value* u = b_->CreateSub(Bits(t), I(shifter_bits - 2 * bias));
    llvm::Value* e1 = b_->CreateAShr(u, I(1));
    llvm::Value* e2 = b_->CreateSub(u, e1);
    llvm::Value* result = Mul(Mul(p, FromBits(b_->CreateShl(e1, I(mantissa)))),
                              FromBits(b_->CreateShl(e2, I(mantissa))));
    return zero == nullptr ? result : Sel(zero, C(0.0), result);
  }
  llvm::Value* Expm1(llvm::Value* x) {
    // Below the low clamp expm1 rounds to -1.
    llvm::Value* xc = ClampLow(ClampHigh(x, is_f64_ ? 710.0 : 89.0), is_f64_ ? -40.0 : -20.0);
    llvm::Value *n, *r;
    Reduce(xc, &n, &r);
    llvm::Value* em = Expm1Kernel(r);
    llvm::Value* ni = ToInt(Sel(IsNan(n), C(0.0), n));
    const int big = is_f64_ ? 1000 : 100;
    // 2^n * (em + 1) - 1 = 2^n*em + (2^n - 1), the latter exact for small n.
    llvm::Value* s = Pow2(b_->CreateSelect(b_->CreateICmpSGT(ni, I(big)), I(big), ni));
    llvm::Value* small = Fma(s, em, Sub(s, C(1.0)));
    // Large n: the -1 is far below the result's ulp.
    llvm::Value* half = I(is_f64_ ? 512 : 64);
    llvm::Value* large =
        Mul(Mul(Add(em, C(1.0)), Pow2(b_->CreateSub(ni, half))), Pow2(half));
    llvm::Value* result = Sel(b_->CreateICmpSGT(ni, I(big)), large, small);
    // ±0 (and NaN) are their own expm1.
    return Sel(b_->CreateFCmpUEQ(x, C(0.0)), x, result);
  }

  // --- log and log1p --------------------------------------------------------
  // x = 2^k * m, m in [sqrt(1/2), sqrt(2)), f = m - 1, s = f / (2 + f):
  // log(1+f) = f - hfsq + s*(hfsq + R(s^2)) (fdlibm's scheme) with R the
  // atanh series 2/3 z + 2/5 z^2 + ..., z = s^2 <= 0.0295; `extra` is added
  // to the low-order part (log1p's rounding correction).  Only for x > 0
  // finite; the caller selects the special cases.
  llvm::Value* LogCore(llvm::Value* x, llvm::Value* extra) {
    const double min_normal = is_f64_ ? 2.2250738585072014e-308 : 1.17549435e-38;
    llvm::Value* tiny = b_->CreateFCmpOLT(x, C(min_normal));
    llvm::Value* xs = Sel(tiny, Mul(x, C(is_f64_ ? 0x1p54 : 0x1p23)), x);
    llvm::Value* k_adjust = Sel(tiny, I(is_f64_ ? -54 : -23), I(0));
    llvm::Value* ix = Bits(xs);
    const int64_t one = is_f64_ ? 0x3ff0000000000000LL : 0x3f800000;
    const int64_t sqrt_half = is_f64_ ? 0x3fe6a09e667f3bcdLL : 0x3f3504f3;
    const int mantissa = is_f64_ ? 52 : 23;
    const int64_t mantissa_mask = (int64_t{1} << mantissa) - 1;
    ix = b_->CreateAdd(ix, I(one - sqrt_half));
    llvm::Value* k = b_->CreateAdd(
        b_->CreateSub(b_->CreateAShr(ix, I(mantissa)), I(is_f64_ ? 1023 : 127)), k_adjust);
    llvm::Value* m = FromBits(b_->CreateAdd(b_->CreateAnd(ix, I(mantissa_mask)), I(sqrt_half)));
    llvm::Value* f = Sub(m, C(1.0));
    llvm::Value* s = Div(f, Add(C(2.0), f));
    llvm::Value* z = Mul(s, s);
    llvm::Value* poly =
        is_f64_ ? Horner(z, {2.0 / 3, 2.0 / 5, 2.0 / 7, 2.0 / 9, 2.0 / 11, 2.0 / 13, 2.0 / 15,
                             2.0 / 17, 2.0 / 19, 2.0 / 21})
                : Horner(z, {2.0 / 3, 2.0 / 5, 2.0 / 7, 2.0 / 9});
    llvm::Value* R = Mul(z, poly);
    llvm::Value* hfsq = Mul(C(0.5), Mul(f, f));
    llvm::Value* dk = ToFloat(k);
    const double ln2_hi = is_f64_ ? 6.93147180369123816490e-01 : 6.9313812256e-01;
    const double ln2_lo = is_f64_ ? 1.90821492927058770002e-10 : 9.0580006145e-06;
    llvm::Value* low = Fma(dk, C(ln2_lo), extra);
    // k*ln2_hi - ((hfsq - (s*(hfsq+R) + low)) - f)
    llvm::Value* inner = Sub(Sub(hfsq, Fma(s, Add(hfsq, R), low)), f);
    return Sub(Mul(dk, C(ln2_hi)), inner);
  }
  llvm::Value* LogSpecials(llvm::Value* x, llvm::Value* result) {
    result = Sel(b_->CreateFCmpOEQ(x, C(INFINITY)), x, result);
    result = Sel(b_->CreateFCmpOEQ(x, C(0.0)), C(-INFINITY), result);
    result = Sel(b_->CreateFCmpOLT(x, C(0.0)), C(NAN), result);
    return Sel(IsNan(x), x, result);
  }
  llvm::Value* Log(llvm::Value* x) { return LogSpecials(x, LogCore(x, C(0.0))); }
  llvm::Value* Log1p(llvm::Value* x) {
    // u = 1 + x rounded; log1p(x) = log(u) + (x - (u - 1)) / u.
    llvm::Value* u = Add(C(1.0), x);
    llvm::Value* c = Sel(b_->CreateFCmpOLT(x, C(1.0)), Sub(x, Sub(u, C(1.0))),
                         Sub(C(1.0), Sub(u, x)));
    llvm::Value* result = LogSpecials(u, LogCore(u, Div(c, u)));
    return Sel(b_->CreateFCmpOEQ(x, C(0.0)), x, result);
  }

  // --- logistic and tanh ----------------------------------------------------
  llvm::Value* Logistic(llvm::Value* x) {
    // e = exp(-|x|) <= 1: 1/(1+e) for x >= 0, e/(1+e) below (no overflow,
    // denormal results for very negative x).
    llvm::Value* e = Exp(b_->CreateFNeg(Abs(x)));
    llvm::Value* d = Add(C(1.0), e);
    // One division: the numerator is selected first (same values).
    llvm::Value* result = Div(Sel(b_->CreateFCmpOGE(x, C(0.0)), C(1.0), e), d);
    return Sel(IsNan(x), x, result);
  }
  // erf: math_tables.h's polynomials on AVX-512, else ErfByExp.
  llvm::Value* Erf(llvm::Value* x) {  // f32 only
    return avx512_ ? Piecewise(x, kErfTable, "tessera.erf_table") : ErfByExp(x);
  }
  // erf where no vpermps picks coefficients by lane, in f32 arithmetic
  // (full-width vectors): |x| < 1: x + x K(2x^2 - 1); 1 <= |x| < 4:
  // 1 - exp(-x^2) R((|x| - 2.5) / 1.5), with K and R fits of erf(x)/x - 1
  // over x^2 in [0, 1] and of erfc(x) exp(x^2) over [1, 4],
  // minimax in the error each brings to erf itself, in erf's ulps: x K's
  // error (degree 6: 0.017 ulp) and exp(-x^2) R's (degree 8: 0.04 ulp; R
  // need only be close where erfc is not negligible, near 1).  The small
  // branch adds the correction (|K| <= 0.16) to x, so its rounding errors
  // are scaled down; in the large one erfc <= 0.16, so erfc's relative
  // errors (x^2's rounding moves exp(-x^2) by x^2 2^-24, exp's ulp, R's
  // rounding) reach erf as at most a few tenths of its ulp.  erf rounds to
  // ±1 beyond 3.92; NaN stays NaN through the large branch.
  llvm::Value* ErfByExp(llvm::Value* x) {  // f32 only
    llvm::Value* ax = Abs(x);
    llvm::Value* k = Horner(Fma(C(2.0), Mul(x, x), C(-1.0)),
                            {-0.03453126114220715, -0.14053609856231808, 0.019852496403215736,
                             -0.002285415312161949, 0.0002175144211118126, -1.7672131123798623e-05,
                             1.2302695005309042e-06});
    llvm::Value* small = Fma(x, k, x);
    llvm::Value* axc = ClampHigh(ax, 4.0);
    llvm::Value* r = Horner(
        Mul(Sub(axc, C(2.5)), C(1.0 / 1.5)),
        {0.21080760520899844, -0.11151327826503943, 0.05605794479857471, -0.02744622935732942,
         0.011656447422873223, -0.00502089878777349, 0.006187744540003099, 0.00384463731769162,
         0.0027380585330084206});
    llvm::Value* erfc = Mul(Exp(b_->CreateFNeg(Mul(axc, axc)), /*bounded_below=*/true), r);
    llvm::Value* large = CopySign(Sub(C(1.0), erfc), x);
    return Sel(b_->CreateFCmpOLT(ax, C(1.0)), small, large);
  }

  // tanh: math_tables.h's polynomials on AVX-512, else TanhByExpm1.
  llvm::Value* Tanh(llvm::Value* x) {  // f32 only
    return avx512_ ? Piecewise(x, kTanhTable, "tessera.tanh_table") : TanhByExpm1(x);
  }

  // `table`'s f(|x|) with the sign of x (math_tables.h), f odd.  The
  // interval k = round(|x| / width) by the 1.5 * 2^23 shifter: `shifted`'s
  // low mantissa bits are k, the lane index vpermps reads.  ±0 give ±0 and
  // NaN gives NaN (t is NaN).  `name` names the table's copy in memory.
  llvm::Value* Piecewise(llvm::Value* x, const PiecewiseTable& table, const char* name) {
    llvm::Value* a = ClampHigh(Abs(x), table.clamp);  // NaN stays NaN
    const double shifter = 12582912.0;
    llvm::Value* shifted = Fma(a, C(1.0 / table.width), C(shifter));
    llvm::Value* k = Sub(shifted, C(shifter));
    llvm::Value* t = Fma(k, C(-table.width), a);  // exact
    llvm::Value* lane = Bits(shifted);
    auto entry = [&](int row, const float(&values)[kTableIntervals]) {
      return type_->isVectorTy() ? PermuteRow(values, lane)
                                 : LoadTableEntry(table, name, row, lane);
    };
    llvm::Value* q = entry(2 + table.degree, table.q[table.degree]);
    for (int i = table.degree - 1; i >= 0; --i) q = Fma(q, t, entry(2 + i, table.q[i]));
    llvm::Value* relative =
        table.relative_intervals > 0 ? b_->CreateFCmpOLT(k, C(table.relative_intervals)) : nullptr;
    llvm::Value* p = Fma(relative ? Sel(relative, a, t) : t, q, entry(1, table.low));
    bool has_base = relative != nullptr;
    for (float b : table.base) has_base |= b != 0;
    if (!has_base) return CopySign(p, x);
    llvm::Value* base = entry(0, table.base);
    return CopySign(Add(relative ? Sel(relative, a, base) : base, p), x);
  }
  // Row `row` of `table` (0: base, 1: low, 2 + i: q[i]) at lane & 15, from
  // the table's copy in the module's memory: a scalar's lookup (which a
  // loop vectorizer would make gathers of, so kernels call the routine
  // instead: PolynomialLooksUpTables).
  llvm::Value* LoadTableEntry(const PiecewiseTable& table, const char* name, int row,
                              llvm::Value* lane) {
    llvm::LLVMContext& context = b_->getContext();
    llvm::Module* module = b_->GetInsertBlock()->getModule();
    llvm::GlobalVariable* memory = module->getGlobalVariable(name, /*AllowInternal=*/true);
    auto* row_type = llvm::ArrayType::get(b_->getFloatTy(), kTableIntervals);
    auto* table_type = llvm::ArrayType::get(row_type, 3 + table.degree);
    if (memory == nullptr) {
      std::vector<llvm::Constant*> rows;
      auto add = [&](const float(&values)[kTableIntervals]) {
        rows.push_back(llvm::ConstantDataArray::get(context, llvm::ArrayRef<float>(values)));
      };
      add(table.base);
      add(table.low);
      for (int i = 0; i <= table.degree; ++i) add(table.q[i]);
      memory = new llvm::GlobalVariable(*module, table_type, /*isConstant=*/true,
                                        llvm::GlobalValue::PrivateLinkage,
                                        llvm::ConstantArray::get(table_type, rows), name);
      memory->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
      memory->setAlignment(llvm::Align(64));
    }
    llvm::Value* index =
        b_->CreateZExt(b_->CreateAnd(lane, I(kTableIntervals - 1)), b_->getInt64Ty());
    llvm::Value* address =
        b_->CreateInBoundsGEP(table_type, memory, {b_->getInt64(0), b_->getInt64(row), index});
    return b_->CreateAlignedLoad(b_->getFloatTy(), address, llvm::Align(4));
  }
  // row[index & 15] in each lane of a vector (AVX-512's vpermps, 16 lanes
  // at a time; a shorter vector is padded).
  llvm::Value* PermuteRow(const float (&row)[kTableIntervals], llvm::Value* index) {
    llvm::Constant* table =
        llvm::ConstantDataVector::get(b_->getContext(), llvm::ArrayRef<float>(row));
    llvm::Function* permute = llvm::Intrinsic::getDeclaration(
        b_->GetInsertBlock()->getModule(), llvm::Intrinsic::x86_avx512_permvar_sf_512);
    return PerPart(kTableIntervals, [&](llvm::ArrayRef<int> lanes) -> llvm::Value* {
      return b_->CreateCall(permute, {table, b_->CreateShuffleVector(index, lanes)});
    });
  }

  // tanh elsewhere (no vpermps to pick coefficients by lane).
  llvm::Value* TanhByExpm1(llvm::Value* x) {  // f32 only
    // em / (em + 2) with em = expm1(2|x|), for every |x|: near 0 em keeps
    // its relative accuracy (n = 0 below, so em is the kernel's own
    // value), so no separate small-|x| branch is needed.  Saturates to 1
    // beyond 10, where 2|x| <= 20 gives n = round(2|x| / ln2) <= 29 and
    // expm1 = 2^n expm1(r) + (2^n - 1) with both terms exact enough: the
    // general Expm1's clamps and large-n path are not needed.
    //
    // y = 2|x| is never formed: every step below is the one on y scaled by
    // a power of 2 (exact), so the bits are those of the computation on y
    // with one instruction fewer.  The reduction gives h = r / 2 (ln2's
    // pieces halved), and Expm1KernelOfDouble(h) = expm1(r) / 2.
    llvm::Value* a = ClampHigh(Abs(x), 10.0);  // NaN stays NaN
    // n = round(y / ln2) by the 1.5 * 2^23 shifter: t's low mantissa bits
    // are n, so 2^n is t's bits shifted into the exponent field, with no
    // float-to-int conversion (whose NaN case LLVM leaves undefined).
    const double shifter = 12582912.0;  // 1.5 * 2^23
    llvm::Value* t = Fma(a, C(2 * 1.4426950408889634), C(shifter));
    llvm::Value* n = Sub(t, C(shifter));
    llvm::Value* h = ReduceBy(a, n, /*scale=*/0.5);
    const int64_t shifter_bits = 0x4B400000;  // the bits of 1.5 * 2^23
    llvm::Value* exponent = b_->CreateShl(Bits(t), I(23));
    llvm::Value* s =
        FromBits(b_->CreateAdd(exponent, I((127 - shifter_bits) * (int64_t{1} << 23))));
    llvm::Value* twice_s =
        FromBits(b_->CreateAdd(exponent, I((128 - shifter_bits) * (int64_t{1} << 23))));
    llvm::Value* em = Fma(twice_s, Expm1KernelOfDouble(h), Sub(s, C(1.0)));
    // q = em / (em + 2), with the rounding errors of the sum and of the
    // quotient corrected (a bare division was 2.4 ulp near 0):
    //   d + delta = em + 2 exactly (Fast2Sum, exact for em <= 2; beyond,
    //   where q > 1/2 and the sum's error matters less, delta is 0),
    //   q0 + rho / d = em / d exactly (rho by an fma),
    //   em / (d + delta) ~ q0 + (rho - q0 delta) / d, and 1/d = (1 - q0)/2.
    llvm::Value* d = Add(em, C(2.0));
    llvm::Value* delta = Add(Sub(C(2.0), d), em);
    delta = Sel(b_->CreateFCmpOLE(em, C(2.0)), delta, C(0.0));
    llvm::Value* q0 = Div(em, d);
    llvm::Value* rho = Fma(b_->CreateFNeg(q0), d, em);
    llvm::Value* correction = Fma(b_->CreateFNeg(q0), delta, rho);
    llvm::Value* q = Fma(correction, Fma(q0, C(-0.5), C(0.5)), q0);
    // ±0 give ±0 (em = 0) and NaN gives NaN, through the formula itself.
    return CopySign(q, x);
  }

 private:
  llvm::IRBuilder<>* b_;
  llvm::Type* type_;
  llvm::Type* int_type_;
  bool is_f64_;
  bool avx512_;  // the module's target has AVX-512
  bool scalef_;  // Scalef is available for type_

  friend class F32ViaF64;
};

// f32 functions computed in f64 (for accuracy), then rounded once.
class F32ViaF64 {
 public:
  F32ViaF64(llvm::IRBuilder<>* b, llvm::Type* f32_type)
      : b_(b), f32_(f32_type), d_(b, f32_type->getWithNewType(b->getDoubleTy())) {}

  llvm::Value* Ext(llvm::Value* x) { return b_->CreateFPExt(x, d_.type()); }
  llvm::Value* Trunc(llvm::Value* x) { return b_->CreateFPTrunc(x, f32_); }

  // sin and cos: x*2/pi mod 4 computed exactly enough for every f32 x:
  // 2/pi is split into 26-bit pieces P_i, so each x*P_i is exact in f64 and
  // is reduced mod 4 exactly; the running sum stays exact down to 2^-51.
  // Then n = rint(sum), r = (sum - n)*pi/2, |r| <= pi/4, and Taylor series
  // of sin/cos in f64 (truncation < 1e-11).
  llvm::Value* SinCos(llvm::Value* x32, bool is_cos) {
    MathBuilder& d = d_;
    llvm::Value* x = Ext(x32);
    llvm::Value* finite = b_->CreateFCmpOLT(d.Abs(x), d.C(INFINITY));
    llvm::Value* xf = d.Sel(finite, x, d.C(0.0));
    static const double kTwoOverPi[] = {
        std::ldexp(42722829.0, -26),  std::ldexp(48555073.0, -52),
        std::ldexp(21659401.0, -78),  std::ldexp(56087029.0, -104),
        std::ldexp(13858563.0, -130), std::ldexp(28715353.0, -156),
        std::ldexp(38736100.0, -182), std::ldexp(4324945.0, -208),
        std::ldexp(26128250.0, -234),
    };
    auto mod4 = [&](llvm::Value* v) {
      return d.Fma(d.Rint(d.Mul(v, d.C(0.25))), d.C(-4.0), v);
    };
    llvm::Value* sum = d.C(0.0);
    for (double piece : kTwoOverPi) sum = mod4(d.Add(sum, mod4(d.Mul(xf, d.C(piece)))));
    llvm::Value* n = d.Rint(sum);
    llvm::Value* r = d.Mul(d.Sub(sum, n), d.C(1.5707963267948966));
    llvm::Value* q = b_->CreateAnd(d.ToInt(n), d.I(3));
    if (is_cos) q = b_->CreateAdd(q, d.I(1));  // cos(x) = sin(x + pi/2)
    llvm::Value* z = d.Mul(r, r);
    llvm::Value* sin_r = d.Fma(
        d.Mul(r, z),
        d.Horner(z, {-1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880, -1.0 / 39916800}), r);
    llvm::Value* cos_r = d.Fma(
        z,
        d.Horner(z, {-1.0 / 2, 1.0 / 24, -1.0 / 720, 1.0 / 40320, -1.0 / 3628800,
                     1.0 / 479001600}),
        d.C(1.0));
    llvm::Value* odd = b_->CreateICmpNE(b_->CreateAnd(q, d.I(1)), d.I(0));
    llvm::Value* negative = b_->CreateICmpNE(b_->CreateAnd(q, d.I(2)), d.I(0));
    llvm::Value* v = d.Sel(odd, cos_r, sin_r);
    v = d.Sel(negative, b_->CreateFNeg(v), v);
    v = d.Sel(finite, v, d.C(NAN));
    v = d.Sel(d.IsNan(x), x, v);
    if (!is_cos) v = d.Sel(b_->CreateFCmpOEQ(x, d.C(0.0)), x, v);  // sin(±0) = ±0
    return Trunc(v);
  }

  // pow = exp(y * log|x|) in f64 (error of y*log|x| ~ 2^-45 relative to the
  // result), with the sign and the exact cases of C99 F.9.4.4.
  llvm::Value* Pow(llvm::Value* x32, llvm::Value* y32) {
    MathBuilder& d = d_;
    llvm::Value* x = Ext(x32);
    llvm::Value* y = Ext(y32);
    llvm::Value* ax = d.Abs(x);
    llvm::Value* magnitude = d.Exp(d.Mul(y, d.Log(ax)));
    llvm::Value* y_int = b_->CreateFCmpOEQ(d.Rint(y), y);  // true for ±inf
    // Odd integers: |y| < 2^24 (every larger f32 is even).
    llvm::Value* y_small = b_->CreateFCmpOLT(d.Abs(y), d.C(0x1p24));
    llvm::Value* yi = d.ToInt(d.Sel(y_small, y, d.C(0.0)));
    llvm::Value* y_odd =
        b_->CreateAnd(b_->CreateAnd(y_int, y_small),
                      b_->CreateICmpNE(b_->CreateAnd(yi, d.I(1)), d.I(0)));
    llvm::Value* x_negative = b_->CreateICmpSLT(d.Bits(x), d.I(0));  // -0 included
    llvm::Value* result =
        d.Sel(b_->CreateAnd(x_negative, y_odd), b_->CreateFNeg(magnitude), magnitude);
    // Negative finite x to a finite non-integer power: NaN.
    llvm::Value* y_finite_nonint =
        b_->CreateAnd(b_->CreateNot(y_int), b_->CreateFCmpOLT(d.Abs(y), d.C(INFINITY)));
    llvm::Value* x_negative_finite = b_->CreateAnd(b_->CreateFCmpOLT(x, d.C(0.0)),
                                                   b_->CreateFCmpOGT(x, d.C(-INFINITY)));
    result = d.Sel(b_->CreateAnd(x_negative_finite, y_finite_nonint), d.C(NAN),
                   result);
    // (-1)^±inf = 1, 1^y = 1 (y NaN too), x^±0 = 1 (x NaN too).
    llvm::Value* one_cases = b_->CreateOr(
        b_->CreateAnd(b_->CreateFCmpOEQ(x, d.C(-1.0)), d.IsInf(y)),
        b_->CreateOr(b_->CreateFCmpOEQ(x, d.C(1.0)), b_->CreateFCmpOEQ(y, d.C(0.0))));
    result = d.Sel(one_cases, d.C(1.0), result);
    return Trunc(result);
  }

  // cbrt: an estimate from the exponent bits (|x| as f64 is normal), then
  // four Newton steps y -= (y - x/y^2)/3 (error 10% -> < 2^-60).
  llvm::Value* Cbrt(llvm::Value* x32) {
    MathBuilder& d = d_;
    llvm::Value* x = Ext(x32);
    llvm::Value* ax = d.Abs(x);
    llvm::Value* axs = d.Sel(b_->CreateFCmpOGT(ax, d.C(0.0)), ax, d.C(1.0));
    llvm::Value* axs_finite = d.Sel(b_->CreateFCmpOLT(axs, d.C(INFINITY)), axs, d.C(1.0));
    llvm::Value* third_bits =
        d.ToInt(d.Mul(d.ToFloat(d.Bits(axs_finite)), d.C(1.0 / 3.0)));
    llvm::Value* y = d.FromBits(b_->CreateAdd(third_bits, d.I(int64_t{682} << 52)));
    for (int i = 0; i < 4; ++i) {
      y = d.Sub(y, d.Mul(d.Sub(y, d.Div(axs_finite, d.Mul(y, y))), d.C(1.0 / 3.0)));
    }
    llvm::Value* result = d.CopySign(y, x);
    // ±0, ±inf and NaN are their own cube roots.
    llvm::Value* itself = b_->CreateOr(b_->CreateFCmpUEQ(x, d.C(0.0)), d.IsInf(x));
    return Trunc(d.Sel(itself, x, result));
  }

 private:
  llvm::IRBuilder<>* b_;
  llvm::Type* f32_;
  MathBuilder d_;
};

}  // namespace

bool HasPolynomialMath(MathFunction function, bool is_f64) {
  switch (function) {
    case MathFunction::kExp:
    case MathFunction::kExpm1:
    case MathFunction::kLog:
    case MathFunction::kLog1p:
    case MathFunction::kLogistic:
    case MathFunction::kSqrt:
    case MathFunction::kRsqrt:
      return true;
    case MathFunction::kTanh:
    case MathFunction::kErf:
    case MathFunction::kSin:
    case MathFunction::kCos:
    case MathFunction::kPow:
    case MathFunction::kCbrt:
      return !is_f64;
    default:
      return false;
  }
}

bool PolynomialLooksUpTables(const llvm::Module& module, MathFunction function, bool is_f64) {
  return (function == MathFunction::kTanh || function == MathFunction::kErf) && !is_f64 &&
         ModuleHasAvx512(module);
}

bool PolynomialComputesInF64(MathFunction function, bool is_f64) {
  if (is_f64) return true;
  switch (function) {
    case MathFunction::kSin:
    case MathFunction::kCos:
    case MathFunction::kPow:
    case MathFunction::kCbrt:
      return true;
    default:
      return false;
  }
}

llvm::Value* EmitPolynomialMath(llvm::IRBuilder<>* b, MathFunction function,
                                absl::Span<llvm::Value* const> args) {
  if (args.empty()) return nullptr;
  llvm::Type* type = args[0]->getType();
  llvm::Type* scalar = type->getScalarType();
  if (!scalar->isFloatTy() && !scalar->isDoubleTy()) return nullptr;
  const bool is_f64 = scalar->isDoubleTy();
  if (!HasPolynomialMath(function, is_f64)) return nullptr;
  MathBuilder m(b, type);
  llvm::Value* x = args[0];
  switch (function) {
    case MathFunction::kExp:
      return m.Exp(x);
    case MathFunction::kExpm1:
      return m.Expm1(x);
    case MathFunction::kLog:
      return m.Log(x);
    case MathFunction::kLog1p:
      return m.Log1p(x);
    case MathFunction::kLogistic:
      return m.Logistic(x);
    case MathFunction::kSqrt:
      return m.Unary(llvm::Intrinsic::sqrt, x);
    case MathFunction::kRsqrt:
      return m.Div(m.C(1.0), m.Unary(llvm::Intrinsic::sqrt, x));
    case MathFunction::kTanh:
      return m.Tanh(x);
    case MathFunction::kErf:
      return m.Erf(x);
    default:
      break;
  }
  F32ViaF64 f(b, type);
  switch (function) {
    case MathFunction::kSin:
      return f.SinCos(x, /*is_cos=*/false);
    case MathFunction::kCos:
      return f.SinCos(x, /*is_cos=*/true);
    case MathFunction::kPow:
      return args.size() == 2 ? f.Pow(x, args[1]) : nullptr;
    case MathFunction::kCbrt:
      return f.Cbrt(x);
    default:
      return nullptr;
  }
}

PolynomialMathEmitter::PolynomialMathEmitter(llvm::Module* module, llvm::IRBuilder<>* b)
    : ElementalIrEmitter(module, b), enabled_(~uint64_t{0}) {}

PolynomialMathEmitter::PolynomialMathEmitter(llvm::Module* module, llvm::IRBuilder<>* b,
                                             std::initializer_list<MathFunction> functions)
    : ElementalIrEmitter(module, b) {
  for (MathFunction f : functions) enabled_ |= uint64_t{1} << static_cast<int>(f);
}

absl::StatusOr<llvm::Value*> PolynomialMathEmitter::EmitMathFunction(
    MathFunction function, absl::Span<llvm::Value* const> args) {
  if (UsesPolynomial(function)) {
    if (llvm::Value* v = EmitPolynomialMath(builder(), function, args)) return v;
  }
  return ElementalIrEmitter::EmitMathFunction(function, args);
}

}  // namespace llvm_ir
}  // namespace tessera
