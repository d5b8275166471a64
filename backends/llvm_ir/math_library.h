// Math routines: the polynomial transcendental functions of
// polynomial_math.h (exp, tanh, erf, log, ...) as functions compiled once
// per process and target, which kernels call instead of carrying a copy of
// the polynomial each.
//
// Why: inlined, a polynomial is optimized and compiled again in every
// kernel that uses it, and 4 times over in a vectorized loop interleaved 4
// ways; for a 16M-element tanh chain that was a third of its compile.  A
// call costs a few cycles per vector and the spilling of live vector
// registers around it (all of them are caller-saved).
//
// How: a kernel calls the scalar routine `tessera_math_<fn>_<f32|f64>`,
// declared with its vector variants (`..._f32x4`, `x8`, `x16`; f64 `x2`,
// `x4`, `x8`) under LLVM's vector function ABI attribute
// (`vector-function-abi-variant`), so the loop vectorizer calls the variant
// of its width.  The JIT resolves these names through
// RegisterRuntimeSymbols (llvm_jit_internal.h): the first use of a routine
// in the process, for a target (CPU, features, level, object cache),
// compiles it in a JIT of its own (one small module per routine), whose code
// then serves every later kernel.  The results are those of
// EmitPolynomialMath (same IR, so the same ULP bounds).
#ifndef TESSERA_BACKENDS_LLVM_IR_MATH_LIBRARY_H_
#define TESSERA_BACKENDS_LLVM_IR_MATH_LIBRARY_H_

#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "backends/llvm_ir/elemental_ir_emitter.h"
#include "backends/llvm_ir/llvm_jit.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace tessera {
namespace llvm_ir {

// Whether `function` on f32 (is_f64 false) or f64 has a routine: those with
// a polynomial implementation, except sqrt and rsqrt (an instruction or two,
// cheaper inline than a call).
bool HasMathRoutine(MathFunction function, bool is_f64);

// The routine's symbol: "tessera_math_tanh_f32" (lanes 1) or
// "tessera_math_tanh_f32x16".
std::string MathRoutineName(MathFunction function, bool is_f64, int lanes);

// A call of the routine for `function` on `args` (f32 or f64 scalars, or
// vectors of a variant's width, all of one type), declaring the routine and
// its vector variants in the builder's module; nullptr when there is no
// such routine (HasMathRoutine false, or a vector width without a variant).
llvm::Value* EmitMathRoutineCall(llvm::IRBuilder<>* b, MathFunction function,
                                 absl::Span<llvm::Value* const> args);

// The address of routine `name` (a MathRoutineName) compiled for `target`
// (an LlvmJit's options with its actual CPU and features); compiled on the
// first request per target, then kept for the process.  NotFound for a name
// that is not a routine.  The JIT's resolver; exposed for tests.
//
// Routines' object code is kept on disk in target.cache_dir, or where that
// is empty in a per-user cache shared by processes (a fresh process then
// loads a routine in about a millisecond instead of compiling it in 10-20):
// $TESSERA_CACHE_DIR/math ("off" or empty: none), else
// $XDG_CACHE_HOME/tessera/math, else $HOME/.cache/tessera/math.  The
// object cache's key holds everything that decides the code (the IR, LLVM's
// version, the target), and a directory that cannot be written is skipped.
absl::StatusOr<uint64_t> MathRoutineAddress(absl::string_view name, const JitOptions& target);

// The routine for `function` over arrays, for callers that are not JIT
// code (backends/cpu/tile_kernel.h's baseline kernels):
//
//   void f(const T* in, T* out, int64_t n);             // one argument
//   void f(const T* in0, const T* in1, T* out, int64_t n);  // pow
//
// out[i] = function(in[i]) for i < n: the same polynomial as the scalar
// and vector routines (whole vectors of 64 bytes, then scalars), so every
// element is what a kernel computes for it.  Compiled on the first request
// per function and target, then kept for the process.  NotFound where
// HasMathRoutine is false.
using UnaryArrayRoutine = void(const void* in, void* out, int64_t n);
using BinaryArrayRoutine = void(const void* in0, const void* in1, void* out, int64_t n);
absl::StatusOr<void*> MathArrayRoutine(MathFunction function, bool is_f64,
                                       const JitOptions& target);

// An elemental emitter whose transcendental functions call the routines;
// functions without one are inlined polynomials where polynomial_math.h has
// them (sqrt, rsqrt) and C library calls otherwise.
class MathRoutineEmitter : public ElementalIrEmitter {
 public:
  enum class Calls {
    kEveryRoutine,
    // Only where the polynomial looks up tables (PolynomialLooksUpTables),
    // which a vectorized loop would do with gathers; the rest are inlined.
    // For kernels whose vector registers stay live across the calls (a
    // reduction's accumulators), which every call would spill.
    kTableLookupsOnly,
  };
  MathRoutineEmitter(llvm::Module* module, llvm::IRBuilder<>* b,
                     Calls calls = Calls::kEveryRoutine);

 protected:
  absl::StatusOr<llvm::Value*> EmitMathFunction(MathFunction function,
                                                absl::Span<llvm::Value* const> args) override;

 private:
  Calls calls_;
};

}  // namespace llvm_ir
}  // namespace tessera

#endif  // TESSERA_BACKENDS_LLVM_IR_MATH_LIBRARY_H_
