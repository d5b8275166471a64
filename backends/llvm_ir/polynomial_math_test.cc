// The polynomial math functions, JIT-compiled in a loop, against the C
// library: f32 results against glibc's double functions (the error in f32
// ULPs of the exact value), f64 against glibc's long double functions; over
// 2^20 samples spread over the whole range, dense samples where the
// function is interesting, and the edge cases.  Also: the loops vectorize,
// and PolynomialMathEmitter swaps functions one at a time.
#include "backends/llvm_ir/polynomial_math.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/llvm_ir/elemental_ir_emitter.h"
#include "backends/llvm_ir/llvm_jit.h"
#include "backends/llvm_ir/llvm_jit_internal.h"
#include "backends/llvm_ir/loop_emitter.h"
#include "backends/llvm_ir/target_flags.h"
#include "gtest/gtest.h"
#include "hlo/parser/hlo_parser.h"
#include "llvm/IR/Function.h"

namespace tessera {
namespace llvm_ir {
namespace {

using Kernel = void(const void* x, const void* y, void* out, int64_t n);

struct Compiled {
  std::unique_ptr<LlvmJit> jit;
  Kernel* kernel = nullptr;
  std::string ir;
  bool avx512 = false;  // the module said its target has AVX-512
};

// out[i] = function(x[i]) (or (x[i], y[i]) for pow) over T = f32 or f64,
// for the host or the CPU `target` names.
Compiled Compile(MathFunction function, bool f64, const JitOptions& target = {}) {
  Compiled c;
  auto jit = LlvmJit::Create(target);
  EXPECT_TRUE(jit.ok()) << jit.status();
  c.jit = std::move(*jit);
  c.jit->set_keep_optimized_ir(true);
  ModuleWithContext ir = CreateModule(*c.jit, "math");
  c.avx512 = ModuleHasAvx512(*ir.module);
  llvm::IRBuilder<> b(*ir.context);
  llvm::Type* t = f64 ? b.getDoubleTy() : b.getFloatTy();
  llvm::Function* fn = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(),
                              {b.getPtrTy(), b.getPtrTy(), b.getPtrTy(), b.getInt64Ty()}, false),
      llvm::GlobalValue::ExternalLinkage, "kernel", ir.module.get());
  for (int i = 0; i < 3; ++i) fn->getArg(i)->addAttr(llvm::Attribute::NoAlias);
  auto* entry = llvm::BasicBlock::Create(*ir.context, "entry", fn);
  auto* loop = llvm::BasicBlock::Create(*ir.context, "loop", fn);
  auto* exit = llvm::BasicBlock::Create(*ir.context, "exit", fn);
  b.SetInsertPoint(entry);
  llvm::Value* n = fn->getArg(3);
  b.CreateCondBr(b.CreateICmpSGT(n, b.getInt64(0)), loop, exit);
  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2);
  i->addIncoming(b.getInt64(0), entry);
  llvm::Value* x = b.CreateLoad(t, b.CreateGEP(t, fn->getArg(0), i));
  llvm::Value* y = b.CreateLoad(t, b.CreateGEP(t, fn->getArg(1), i));
  std::vector<llvm::Value*> args = {x};
  if (function == MathFunction::kPow) args.push_back(y);
  llvm::Value* v = EmitPolynomialMath(&b, function, args);
  EXPECT_NE(v, nullptr) << MathFunctionName(function);
  if (v == nullptr) return c;
  b.CreateStore(v, b.CreateGEP(t, fn->getArg(2), i));
  llvm::Value* next = b.CreateAdd(i, b.getInt64(1));
  i->addIncoming(next, loop);
  b.CreateCondBr(b.CreateICmpSLT(next, n), loop, exit);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();
  absl::Status added = AddModule(*c.jit, std::move(ir));
  EXPECT_TRUE(added.ok()) << added;
  c.ir = c.jit->last_optimized_ir();
  auto kernel = c.jit->LookupFunction<Kernel>("kernel");
  EXPECT_TRUE(kernel.ok()) << kernel.status();
  if (kernel.ok()) c.kernel = *kernel;
  return c;
}

// The error of `got` in ULPs of T at the exact value `want` (a wider
// type): 0 for a correctly rounded NaN / inf / zero of the right sign.
template <typename T, typename W>
double UlpError(T got, W want) {
  if (std::isnan(want)) return std::isnan(got) ? 0 : INFINITY;
  if (std::isnan(got)) return INFINITY;
  const T rounded = static_cast<T>(want);
  if (std::isinf(rounded) || rounded == 0) {
    // Overflow / underflow of the exact value: allow the neighbours of the
    // rounded result (e.g. FLT_MAX for inf, or the smallest denormal).
    if (got == rounded && std::signbit(got) == std::signbit(rounded)) return 0;
    if (std::isinf(got)) return INFINITY;
  }
  if (std::isinf(got)) return INFINITY;
  const int digits = std::numeric_limits<T>::digits;
  const int min_exp = std::numeric_limits<T>::min_exponent;  // FLT_MIN = 2^(min_exp-1)
  int e;
  std::frexp(static_cast<W>(std::fabs(want)), &e);  // |want| in [2^(e-1), 2^e)
  if (want == 0) e = min_exp;
  const int ulp_exp = std::max(e, min_exp) - digits;
  W diff = std::fabs(static_cast<W>(got) - want);
  if (want == 0 && got == 0 && std::signbit(got) != std::signbit(want)) return INFINITY;
  return static_cast<double>(std::ldexp(diff, -ulp_exp));
}

struct Case {
  MathFunction function;
  double f32_bound;               // documented maximum error in f32 ULPs (but see
                                  // F32Bound)
  double f64_bound;               // 0: libm in f64
  float lo, hi;                   // dense sampling region (for x)
  std::function<double(double, double)> ref32;
  std::function<long double(long double)> ref64;
};

std::vector<Case> Cases() {
  return {
      {MathFunction::kExp, 1.5, 1.5, -104, 89, [](double x, double) { return std::exp(x); },
       [](long double x) { return expl(x); }},
      {MathFunction::kExpm1, 2, 2, -20, 89, [](double x, double) { return std::expm1(x); },
       [](long double x) { return expm1l(x); }},
      {MathFunction::kLog, 1, 1, 0, 4, [](double x, double) { return std::log(x); },
       [](long double x) { return logl(x); }},
      {MathFunction::kLog1p, 1, 1, -1, 4, [](double x, double) { return std::log1p(x); },
       [](long double x) { return log1pl(x); }},
      {MathFunction::kLogistic, 2.5, 2.5, -110, 30,
       [](double x, double) { return 1.0 / (1.0 + std::exp(-x)); },
       [](long double x) { return 1.0L / (1.0L + expl(-x)); }},
      {MathFunction::kTanh, 2, 0, -10, 10, [](double x, double) { return std::tanh(x); }, {}},
      {MathFunction::kErf, 1.5, 0, -5, 5, [](double x, double) { return std::erf(x); }, {}},
      {MathFunction::kSin, 1, 0, -100, 100, [](double x, double) { return std::sin(x); }, {}},
      {MathFunction::kCos, 1, 0, -100, 100, [](double x, double) { return std::cos(x); }, {}},
      {MathFunction::kCbrt, 1, 0, -10, 10, [](double x, double) { return std::cbrt(x); }, {}},
      {MathFunction::kSqrt, 0.5, 0.5, 0, 10, [](double x, double) { return std::sqrt(x); },
       [](long double x) { return sqrtl(x); }},
      {MathFunction::kRsqrt, 1.5, 1.5, 0, 10, [](double x, double) { return 1 / std::sqrt(x); },
       [](long double x) { return 1 / sqrtl(x); }},
      {MathFunction::kPow, 1, 0, 0, 4, [](double x, double y) { return std::pow(x, y); }, {}},
  };
}

// The bound of a function whose table on AVX-512 targets (math_tables.h)
// is more accurate than its formula elsewhere (the Case's bound): just
// above its error measured over every f32 (its bits are the same on every
// AVX-512 host), so that a perturbed coefficient shows.
double F32Bound(const Case& c, bool avx512) {
  if (!avx512) return c.f32_bound;
  if (c.function == MathFunction::kTanh) return 1.05;
  if (c.function == MathFunction::kErf) return 0.8;
  return c.f32_bound;
}

template <typename T>
std::vector<T> EdgeCases() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {0,          -0.0,        1,          -1,          0.5,        -0.5,
                      2,          -2,          L::min(),   -L::min(),   L::denorm_min(),
                      -L::denorm_min(), L::max(), -L::max(), L::infinity(), -L::infinity(),
                      L::quiet_NaN(), -L::quiet_NaN(), L::epsilon(), 1 - L::epsilon() / 2,
                      1 + L::epsilon(), 88.72283f, 88.72284f, -87.33654f, -103.972f, -104.0f,
                      709.78, 709.79, -745.13, -745.14, 0.84375, 1.0f, 3.92f, 4, 6, 9.01f,
                      0.625f, 0.25f, 0.2499f, 10, 20, 17.3f, -17.4f, -37.5, -38.5,
                      static_cast<T>(M_PI), static_cast<T>(M_PI_2), static_cast<T>(M_PI_4),
                      static_cast<T>(-M_PI), 1e4, 1e8, 3e8, 4.3e8, 1e20, 1e30, 1.6e38f};
  // Denormals and numbers around the f32 and f64 denormal thresholds.
  for (int e = -160; e <= -120; e += 3) v.push_back(std::ldexp(T(1.3), e));
  if (sizeof(T) == 8) {
    for (int e = -1080; e <= -1015; e += 5) v.push_back(std::ldexp(T(1.3), e));
  }
  for (T t : {T(1e-3), T(1e-7), T(1e-20)}) {
    v.push_back(t);
    v.push_back(-t);
    v.push_back(1 + t);
    v.push_back(1 - t);
    v.push_back(-1 + t);
  }
  // Floats nearest to large multiples of pi/2 (sin/cos's hard cases).
  for (float f : {16367173.0f * 0x1p72f, 13176795.0f, 1.5707963f, 3.1415927f, 52174.0f}) {
    v.push_back(static_cast<T>(f));
  }
  return v;
}

template <typename T>
std::vector<T> Samples(const Case& c, int random_count, int dense_count) {
  std::mt19937_64 rng(1234 + static_cast<int>(c.function));
  std::vector<T> v = EdgeCases<T>();
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  for (int i = 0; i < random_count; ++i) {  // every exponent, sign, NaNs
    U bits = static_cast<U>(rng());
    T x;
    std::memcpy(&x, &bits, sizeof(x));
    v.push_back(x);
  }
  std::uniform_real_distribution<double> dense(c.lo, c.hi);
  for (int i = 0; i < dense_count; ++i) v.push_back(static_cast<T>(dense(rng)));
  // Small magnitudes, logarithmically spread.
  std::uniform_real_distribution<double> expo(-40, 2);
  for (int i = 0; i < dense_count / 4; ++i) {
    v.push_back(static_cast<T>((i & 1 ? -1 : 1) * std::pow(10.0, expo(rng))));
  }
  return v;
}

// Second operands for pow: mostly small reals and integers, some random bits.
template <typename T>
std::vector<T> PowExponents(const std::vector<T>& xs) {
  std::mt19937_64 rng(99);
  std::vector<T> ys(xs.size());
  std::uniform_real_distribution<double> real(-40, 40);
  std::uniform_int_distribution<int> integer(-40, 40);
  for (size_t i = 0; i < xs.size(); ++i) {
    switch (i % 4) {
      case 0: ys[i] = static_cast<T>(real(rng)); break;
      case 1: ys[i] = static_cast<T>(integer(rng)); break;
      case 2: ys[i] = static_cast<T>(real(rng) / 16); break;
      default: {
        uint32_t bits = static_cast<uint32_t>(rng());
        float f;
        std::memcpy(&f, &bits, 4);
        ys[i] = f;
      }
    }
  }
  return ys;
}

// The largest error of f32 `c.function` compiled for `target`, which must
// be within its bound.
void CheckF32(const Case& c, const JitOptions& target = {}) {
  SCOPED_TRACE(MathFunctionName(c.function));
  ASSERT_TRUE(HasPolynomialMath(c.function, /*is_f64=*/false));
  Compiled k = Compile(c.function, /*f64=*/false, target);
  ASSERT_NE(k.kernel, nullptr);
  const double bound = F32Bound(c, k.avx512);
  std::vector<float> xs = Samples<float>(c, 1 << 20, 1 << 18);
  std::vector<float> ys = PowExponents(xs);
  const bool pow = c.function == MathFunction::kPow;
  if (pow) {  // exact cases: every edge value against every other
    std::vector<float> edges = EdgeCases<float>();
    for (float a : edges) {
      for (float e : edges) {
        xs.push_back(a);
        ys.push_back(e);
      }
      for (float e : {3.0f, -3.0f, 0.5f, -0.5f, 1.0f / 3, 7.0f, 16777215.0f, 16777216.0f}) {
        xs.push_back(a);
        ys.push_back(e);
      }
    }
  }
  std::vector<float> out(xs.size());
  k.kernel(xs.data(), ys.data(), out.data(), static_cast<int64_t>(xs.size()));
  double worst = 0;
  size_t worst_i = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double want = c.ref32(xs[i], ys[i]);
    const double err = UlpError<float, double>(out[i], want);
    if (!(err <= worst)) {
      worst = err;
      worst_i = i;
    }
  }
  std::printf("%-9s f32%s: max error %.3f ulp over %zu values\n",
              std::string(MathFunctionName(c.function)).c_str(), k.avx512 ? "" : " (no AVX-512)",
              worst, xs.size());
  EXPECT_LE(worst, bound) << "x = " << std::hexfloat << xs[worst_i]
                          << (pow ? absl::StrCat(" y = ", ys[worst_i]) : "") << " got "
                          << out[worst_i] << " want " << c.ref32(xs[worst_i], ys[worst_i]);
}

class PolynomialMathTest : public ::testing::TestWithParam<int> {};

TEST_P(PolynomialMathTest, F32MatchesLibmWithinDocumentedUlps) { CheckF32(Cases()[GetParam()]); }

// The IR a target without AVX-512 gets (tanh's expm1 formula, exp's 2^n in
// two halves), run here on the host.
TEST_P(PolynomialMathTest, F32WithoutAvx512MatchesLibmWithinDocumentedUlps) {
  auto host = LlvmJit::Create();
  ASSERT_TRUE(host.ok()) << host.status();
  if ((*host)->cpu_features().find("+avx2") == std::string::npos) {
    GTEST_SKIP() << "the host cannot run AVX2 code";
  }
  JitOptions avx2;
  avx2.cpu = "haswell";
  avx2.features = "+avx2,+fma,-avx512f";
  CheckF32(Cases()[GetParam()], avx2);
}

TEST_P(PolynomialMathTest, F64MatchesLongDoubleLibmWithinDocumentedUlps) {
  const Case c = Cases()[GetParam()];
  SCOPED_TRACE(MathFunctionName(c.function));
  if (c.f64_bound == 0) {
    EXPECT_FALSE(HasPolynomialMath(c.function, /*is_f64=*/true));
    return;
  }
  ASSERT_TRUE(HasPolynomialMath(c.function, /*is_f64=*/true));
  Compiled k = Compile(c.function, /*f64=*/true);
  ASSERT_NE(k.kernel, nullptr);
  Case wide = c;
  if (c.function == MathFunction::kExp || c.function == MathFunction::kExpm1) {
    wide.lo = -746;
    wide.hi = 710;
  }
  std::vector<double> xs = Samples<double>(wide, 1 << 18, 1 << 18);
  std::vector<double> out(xs.size());
  k.kernel(xs.data(), xs.data(), out.data(), static_cast<int64_t>(xs.size()));
  double worst = 0;
  size_t worst_i = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double err = UlpError<double, long double>(out[i], c.ref64(xs[i]));
    if (!(err <= worst)) {
      worst = err;
      worst_i = i;
    }
  }
  std::printf("%-9s f64: max error %.3f ulp over %zu values\n",
              std::string(MathFunctionName(c.function)).c_str(), worst, xs.size());
  EXPECT_LE(worst, c.f64_bound) << "x = " << std::hexfloat << xs[worst_i] << " got "
                                << out[worst_i];
}

INSTANTIATE_TEST_SUITE_P(AllFunctions, PolynomialMathTest,
                         ::testing::Range(0, static_cast<int>(Cases().size())),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(MathFunctionName(Cases()[info.param].function));
                         });

// The loops vectorize at the host's full width, with no calls left.
TEST(PolynomialMathVectorizeTest, F32LoopsVectorize) {
  for (MathFunction f : {MathFunction::kExp, MathFunction::kLog, MathFunction::kTanh,
                         MathFunction::kLogistic, MathFunction::kErf, MathFunction::kSin,
                         MathFunction::kPow}) {
    SCOPED_TRACE(MathFunctionName(f));
    Compiled k = Compile(f, /*f64=*/false);
    const std::string& features = k.jit->cpu_features();
    const bool avx512 = features.find("+avx512f") != std::string::npos;
    const bool avx = features.find("+avx,") != std::string::npos ||
                     features.find("+avx2") != std::string::npos;
    // sin and pow compute in f64: full-width vectors of double.
    const bool via_f64 = f == MathFunction::kSin || f == MathFunction::kPow;
    const int lanes = (avx512 ? 16 : avx ? 8 : 4) / (via_f64 ? 2 : 1);
    const std::string vector = absl::StrCat("<", lanes, " x ", via_f64 ? "double>" : "float>");
    EXPECT_NE(k.ir.find(vector), std::string::npos) << vector << "\n" << k.ir;
    // No library calls: only intrinsics.
    for (size_t at = k.ir.find("call "); at != std::string::npos;
         at = k.ir.find("call ", at + 1)) {
      const size_t end = k.ir.find('\n', at);
      const std::string line = k.ir.substr(at, end - at);
      EXPECT_NE(line.find("@llvm."), std::string::npos) << line;
    }
  }
}

// The emitter: exp and tanh are polynomial, sin (left out) still calls
// libm; f16 computes in f32.
TEST(PolynomialMathEmitterTest, SwapsChosenFunctionsOnly) {
  auto module = ParseHloModule(R"(
    HloModule m
    ENTRY e {
      x = f32[1024] parameter(0)
      e = f32[1024] exponential(x)
      t = f32[1024] tanh(x)
      s = f32[1024] sine(x)
      et = f32[1024] add(e, t)
      ROOT r = f32[1024] add(et, s)
    })");
  ASSERT_TRUE(module.ok()) << module.status();
  const HloComputation& entry = *(*module)->entry_computation();
  auto jit = LlvmJit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  (*jit)->set_keep_optimized_ir(true);
  ModuleWithContext ir = CreateModule(**jit, "emitter");
  llvm::IRBuilder<> b(*ir.context);
  llvm::Function* function = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), b.getPtrTy()}, false),
      llvm::GlobalValue::ExternalLinkage, "f", ir.module.get());
  function->getArg(0)->addAttr(llvm::Attribute::NoAlias);
  function->getArg(1)->addAttr(llvm::Attribute::NoAlias);
  b.SetInsertPoint(llvm::BasicBlock::Create(*ir.context, "entry", function));
  PolynomialMathEmitter emitter(ir.module.get(), &b, {MathFunction::kExp, MathFunction::kTanh});
  EXPECT_TRUE(emitter.UsesPolynomial(MathFunction::kExp));
  EXPECT_FALSE(emitter.UsesPolynomial(MathFunction::kSin));
  GeneratorMap generators;
  for (const HloInstruction* hlo : entry.MakeInstructionPostOrder()) {
    if (hlo->opcode() == HloOpcode::kParameter) {
      IrArray input(function->getArg(0), hlo->shape());
      generators[hlo] = [input, &b](const IrIndex& index) { return input.EmitRead(index, &b); };
      continue;
    }
    auto generator = emitter.MakeElementGenerator(hlo, generators);
    ASSERT_TRUE(generator.ok()) << generator.status();
    generators[hlo] = *generator;
  }
  IrArray output(function->getArg(1), entry.root_instruction()->shape());
  ASSERT_TRUE(LoopEmitter(generators.at(entry.root_instruction()), output, &b).EmitLoop().ok());
  b.CreateRetVoid();
  ASSERT_TRUE(AddModule(**jit, std::move(ir)).ok());
  const std::string& optimized = (*jit)->last_optimized_ir();
  EXPECT_TRUE(optimized.find("@sinf") != std::string::npos ||
              optimized.find("@llvm.sin.") != std::string::npos)
      << optimized;
  EXPECT_EQ(optimized.find("@expf"), std::string::npos);
  EXPECT_EQ(optimized.find("@tanhf"), std::string::npos);
  auto f = (*jit)->LookupFunction<void(const float*, float*)>("f");
  ASSERT_TRUE(f.ok()) << f.status();
  std::vector<float> x(1024), out(1024);
  for (int i = 0; i < 1024; ++i) x[i] = -20.0f + 40.0f * i / 1023;
  (*f)(x.data(), out.data());
  for (int i = 0; i < 1024; ++i) {
    const double want = std::exp(double{x[i]}) + std::tanh(double{x[i]}) + std::sin(double{x[i]});
    EXPECT_NEAR(out[i], want, 4 * std::fabs(want) * FLT_EPSILON + 1e-6) << x[i];
  }
}

}  // namespace
}  // namespace llvm_ir
}  // namespace tessera
