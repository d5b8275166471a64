// Vectorizable transcendental functions: straight-line LLVM IR (no calls,
// no data-dependent branches; special cases are selects), so that a loop
// applying them vectorizes (AVX-512 where present).  Each works on scalars
// or vectors of f32 or f64; F16 and BF16 reach them as f32 (the elemental
// emitter computes those in f32 and rounds once).
//
// Maximum error, in ULPs of the result type against the exact value (0.5
// = correctly rounded), as measured by polynomial_math_test.cc against
// glibc evaluated in double (f32) or long double (f64) over 2^20 samples
// spread over the whole range, dense samples where the function is
// interesting and every edge case (the tables of AVX-512's tanh and erf:
// over every f32, math_tables.h); the tests assert the bound in brackets.
//
//   function   f32 measured [bound]                    f64 measured [bound]
//   exp        0.86 [1.5] Cody-Waite, degree-6 minimax  0.84 [1.5]
//                         (f64: degree-13 Taylor), in
//                         one Horner chain
//   expm1      1.46 [2]   2^n*em1(r) + (2^n - 1)        1.65 [2]
//   log        0.80 [1]   fdlibm's s = f/(2+f) scheme   0.78 [1]
//   log1p      0.80 [1]   log(1+x) + rounding term      0.77 [1]
//   logistic   2.07 [2.5] exp(-|x|), one division       1.95 [2.5]
//   tanh       1.03 [1.05] AVX-512: a degree-8 poly-    libm
//                         nomial per interval of |x|
//                         (math_tables.h), no division;
//              1.56 [2]   elsewhere em/(em+2), both
//                         roundings corrected
//   erf        0.77 [0.8] AVX-512: math_tables.h's      libm
//                         intervals, no exp;
//              0.94 [1.5] elsewhere x+x*K(x^2),
//                         1-exp(-x^2)*R
//   sin, cos   0.50 [1]   in f64: exact reduction with  libm
//                         26-bit pieces of 2/pi (every
//                         f32, up to 3.4e38), Taylor
//   pow        0.50 [1]   in f64: exp(y*log|x|)         libm
//   cbrt       0.50 [1]   in f64: bits/3 + 4 Newton     libm
//   sqrt       0.50 [0.5] llvm.sqrt (exact)             0.50 [0.5]
//   rsqrt      1.47 [1.5] 1 / llvm.sqrt, as evaluator   1.47 [1.5]
//
// "in f64": the f32 function is computed in f64 arithmetic and rounded
// once, so its loops vectorize at half the lanes (<8 x double> on
// AVX-512); the others stay in the argument's type (<16 x float>).
//
// Where the module says the target has AVX-512 (target_flags.h) and the
// values are whole 512-bit vectors (the routines' <64 x float>), exp
// scales by 2^n with vscalef instead of the generic two halves, and clamps
// x at its low bound instead of selecting 0 below it: the same bits (both
// round once; exp(low) rounds to +0), eight instructions fewer.
//
// The other functions (acos, atan2, sinh, hypot, tan, ...) keep calling
// the C library through ElementalIrEmitter's default hook.
//
// Special values follow C99 Annex F: ±0 keep their sign where the function
// is odd, NaN propagates, ±inf give the limits, overflow gives inf and
// underflow gives the correctly signed zero or denormal.
#ifndef TESSERA_BACKENDS_LLVM_IR_POLYNOMIAL_MATH_H_
#define TESSERA_BACKENDS_LLVM_IR_POLYNOMIAL_MATH_H_

#include <cstdint>
#include <initializer_list>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/llvm_ir/elemental_ir_emitter.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace tessera {
namespace llvm_ir {

// Whether EmitPolynomialMath has `function` for f32 (is_f64 false) or f64.
bool HasPolynomialMath(MathFunction function, bool is_f64);

// Whether the polynomial for `function` on f32 (is_f64 false) or f64, in
// `module`, picks coefficients from a table by each value's interval (tanh
// and erf on AVX-512 targets): vectors of 16 lanes do so with a permute, but a
// scalar loads from memory, which a loop vectorizer turns into gathers.
// Kernels that otherwise inline the polynomials call the routine for these.
bool PolynomialLooksUpTables(const llvm::Module& module, MathFunction function, bool is_f64);

// Whether the polynomial for `function` on f32 (is_f64 false) or f64 does
// its arithmetic in f64: the f64 functions, and the f32 ones computed "in
// f64" in the table above (sin, cos, pow, cbrt).
bool PolynomialComputesInF64(MathFunction function, bool is_f64);

// `function` of `args` (f32 or f64 scalars or vectors, all of one type) as
// straight-line IR, or nullptr when HasPolynomialMath is false for it.
llvm::Value* EmitPolynomialMath(llvm::IRBuilder<>* b, MathFunction function,
                                absl::Span<llvm::Value* const> args);

// An elemental emitter whose transcendental functions are the polynomial
// ones above; functions without one (or left out of `functions`) call the
// C library as the base class does.  Not the default of any backend yet.
class PolynomialMathEmitter : public ElementalIrEmitter {
 public:
  // Every function that has a polynomial implementation.
  PolynomialMathEmitter(llvm::Module* module, llvm::IRBuilder<>* b);
  // Only `functions`; the rest go to the C library.
  PolynomialMathEmitter(llvm::Module* module, llvm::IRBuilder<>* b,
                        std::initializer_list<MathFunction> functions);

  bool UsesPolynomial(MathFunction function) const {
    return (enabled_ >> static_cast<int>(function)) & 1;
  }

 protected:
  absl::StatusOr<llvm::Value*> EmitMathFunction(MathFunction function,
                                                absl::Span<llvm::Value* const> args) override;

 private:
  uint64_t enabled_ = 0;  // bit i: MathFunction(i) uses the polynomial
};

}  // namespace llvm_ir
}  // namespace tessera

#endif  // TESSERA_BACKENDS_LLVM_IR_POLYNOMIAL_MATH_H_
