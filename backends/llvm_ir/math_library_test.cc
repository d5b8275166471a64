// The math routines: every routine at every width returns, bit for bit,
// what the inlined polynomial (EmitPolynomialMath) returns, through the
// JIT's resolution of their names; the polynomial over whole 512-bit
// vectors returns what the scalar one does; loops calling the scalar routine are
// vectorized into calls of a variant; a routine is compiled once per
// target; names that are not routines are NotFound.
#include "backends/llvm_ir/math_library.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backends/llvm_ir/llvm_jit.h"
#include "backends/llvm_ir/llvm_jit_internal.h"
#include "backends/llvm_ir/polynomial_math.h"
#include "gtest/gtest.h"
#include "llvm/IR/Function.h"

namespace tessera {
namespace llvm_ir {
namespace {

constexpr MathFunction kRoutineFunctions[] = {
    MathFunction::kExp,      MathFunction::kExpm1, MathFunction::kLog,  MathFunction::kLog1p,
    MathFunction::kLogistic, MathFunction::kTanh,  MathFunction::kErf,  MathFunction::kSin,
    MathFunction::kCos,      MathFunction::kPow,   MathFunction::kCbrt,
};

int Arity(MathFunction function) { return function == MathFunction::kPow ? 2 : 1; }

// void NAME(ptr x, ptr y, ptr out, i64 count): out[i] = function(x[i](, y[i]))
// for i < count, a multiple of `lanes`, computed `lanes` at a time, through
// the routine (routine true) or the inlined polynomial.
void EmitApply(llvm::Module* module, const std::string& name, MathFunction function, bool is_f64,
               int lanes, bool routine) {
  llvm::LLVMContext& context = module->getContext();
  llvm::IRBuilder<> b(context);
  llvm::Type* element = is_f64 ? b.getDoubleTy() : b.getFloatTy();
  llvm::Type* type = lanes > 1 ? llvm::FixedVectorType::get(element, lanes) : element;
  llvm::Function* fn = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(),
                              {b.getPtrTy(), b.getPtrTy(), b.getPtrTy(), b.getInt64Ty()}, false),
      llvm::GlobalValue::ExternalLinkage, name, module);
  auto* entry = llvm::BasicBlock::Create(context, "entry", fn);
  auto* loop = llvm::BasicBlock::Create(context, "loop", fn);
  auto* exit = llvm::BasicBlock::Create(context, "exit", fn);
  b.SetInsertPoint(entry);
  b.CreateCondBr(b.CreateICmpSGT(fn->getArg(3), b.getInt64(0)), loop, exit);
  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2);
  i->addIncoming(b.getInt64(0), entry);
  std::vector<llvm::Value*> args;
  for (int a = 0; a < Arity(function); ++a) {
    // Element alignment: the test's arrays are not vector aligned.
    args.push_back(b.CreateAlignedLoad(type, b.CreateGEP(element, fn->getArg(a), i),
                                       llvm::Align(is_f64 ? 8 : 4)));
  }
  llvm::Value* v =
      routine ? EmitMathRoutineCall(&b, function, args) : EmitPolynomialMath(&b, function, args);
  ASSERT_NE(v, nullptr) << MathRoutineName(function, is_f64, lanes);
  b.CreateAlignedStore(v, b.CreateGEP(element, fn->getArg(2), i), llvm::Align(is_f64 ? 8 : 4));
  llvm::Value* next = b.CreateAdd(i, b.getInt64(lanes));
  i->addIncoming(next, loop);
  b.CreateCondBr(b.CreateICmpSLT(next, fn->getArg(3)), loop, exit);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();
}

// Random arguments over the whole range (random bit patterns), a dense
// range around zero, and the special values, for T = float or double.
template <typename T, typename Bits>
std::vector<T> Arguments(int64_t count, uint64_t seed) {
  std::vector<T> values = {T(0),
                           -T(0),
                           T(1),
                           -T(1),
                           std::numeric_limits<T>::infinity(),
                           -std::numeric_limits<T>::infinity(),
                           std::numeric_limits<T>::quiet_NaN(),
                           std::numeric_limits<T>::denorm_min(),
                           -std::numeric_limits<T>::min(),
                           std::numeric_limits<T>::max(),
                           -std::numeric_limits<T>::max(),
                           T(88.7),
                           T(-103.9),
                           T(709.7),
                           T(-745.2)};
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> dense(-10.0, 10.0);
  // Where exp's results overflow or become denormal: the scaling by 2^n
  // (vscalef on AVX-512, two halves elsewhere) rounds there.
  const bool is_f64 = sizeof(T) == 8;
  std::uniform_real_distribution<double> low(is_f64 ? -746.0 : -104.5, is_f64 ? -707.0 : -86.0);
  std::uniform_real_distribution<double> high(is_f64 ? 708.0 : 87.0, is_f64 ? 710.0 : 89.5);
  while (static_cast<int64_t>(values.size()) < count) {
    if (values.size() % 8 == 2) {
      values.push_back(static_cast<T>(low(random)));
    } else if (values.size() % 8 == 4) {
      values.push_back(static_cast<T>(high(random)));
    } else if (values.size() % 2 == 0) {
      values.push_back(static_cast<T>(dense(random)));
    } else {
      const Bits bits = static_cast<Bits>(random());
      T value;
      std::memcpy(&value, &bits, sizeof(value));
      values.push_back(value);
    }
  }
  values.resize(count);
  return values;
}

template <typename T, typename Bits>
void ExpectSameBits(const std::vector<T>& got, const std::vector<T>& want, const std::string& name,
                    const std::vector<T>& x) {
  int reported = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    Bits g, w;
    std::memcpy(&g, &got[i], sizeof(g));
    std::memcpy(&w, &want[i], sizeof(w));
    if (g == w || (std::isnan(got[i]) && std::isnan(want[i]))) continue;
    ADD_FAILURE() << name << "(" << x[i] << ") = " << got[i] << ", inlined " << want[i];
    if (++reported == 5) return;
  }
}

// `function` applied `lanes` at a time, through the routine or inlined
// (`routine`), against it applied `other_lanes` at a time, inlined: the
// same bits over `count` arguments.
template <typename T, typename Bits>
void ExpectSameResults(MathFunction function, int lanes, bool routine, int other_lanes,
                       int64_t count, uint64_t seed) {
  const bool is_f64 = sizeof(T) == 8;
  const std::string name = MathRoutineName(function, is_f64, lanes);
  SCOPED_TRACE(name);
  absl::StatusOr<std::unique_ptr<LlvmJit>> jit = LlvmJit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  ModuleWithContext module = CreateModule(**jit, "apply");
  EmitApply(module.module.get(), "tested", function, is_f64, lanes, routine);
  EmitApply(module.module.get(), "inlined", function, is_f64, other_lanes, /*routine=*/false);
  ASSERT_TRUE(AddModule(**jit, std::move(module)).ok());
  using Apply = void(const T*, const T*, T*, int64_t);
  absl::StatusOr<Apply*> tested = (*jit)->LookupFunction<Apply>("tested");
  absl::StatusOr<Apply*> inlined = (*jit)->LookupFunction<Apply>("inlined");
  ASSERT_TRUE(tested.ok()) << tested.status();
  ASSERT_TRUE(inlined.ok()) << inlined.status();
  const std::vector<T> x = Arguments<T, Bits>(count, seed);
  const std::vector<T> y = Arguments<T, Bits>(count, seed + 1);
  std::vector<T> got(count), want(count);
  (*tested)(x.data(), y.data(), got.data(), count);
  (*inlined)(x.data(), y.data(), want.data(), count);
  ExpectSameBits<T, Bits>(got, want, name, x);
}

template <typename T, typename Bits>
void CheckRoutine(MathFunction function, int lanes) {
  ExpectSameResults<T, Bits>(function, lanes, /*routine=*/true, lanes, 64 * 64, 1);
}

TEST(MathLibraryTest, RoutinesMatchTheInlinedPolynomials) {
  for (MathFunction function : kRoutineFunctions) {
    if (HasMathRoutine(function, /*is_f64=*/false)) {
      for (int lanes : {1, 4, 8, 16, 32, 64}) CheckRoutine<float, uint32_t>(function, lanes);
    }
    if (HasMathRoutine(function, /*is_f64=*/true)) {
      for (int lanes : {1, 2, 4, 8, 16, 32}) CheckRoutine<double, uint64_t>(function, lanes);
    }
  }
}

// The polynomial over vectors against the scalar polynomial vectorized by
// LLVM, bit for bit: on AVX-512, whole 512-bit vectors scale exp's result
// with vscalef where the scalar keeps the generic IR, and tanh's and erf's
// vectors pick coefficients with vpermps (shorter ones padded to 16 lanes)
// where the scalar loads them.
template <typename T, typename Bits>
void CheckWholeRegisters(MathFunction function, int lanes) {
  ExpectSameResults<T, Bits>(function, lanes, /*routine=*/false, 1, 64 * 256, 3);
}

TEST(MathLibraryTest, WholeRegisterPolynomialsMatchTheScalarOnes) {
  for (MathFunction function : kRoutineFunctions) {
    if (HasMathRoutine(function, /*is_f64=*/false)) {
      for (int lanes : {4, 8, 16, 64}) CheckWholeRegisters<float, uint32_t>(function, lanes);
    }
    if (HasMathRoutine(function, /*is_f64=*/true)) {
      for (int lanes : {8, 32}) CheckWholeRegisters<double, uint64_t>(function, lanes);
    }
  }
}

// The array routines (MathArrayRoutine) against the inlined scalar
// polynomial, over counts with and without a partial last vector (the
// array routine's scalar remainder), every element bit for bit.
template <typename T, typename Bits>
void CheckArrayRoutine(MathFunction function) {
  const bool is_f64 = sizeof(T) == 8;
  SCOPED_TRACE(absl::StrCat(MathRoutineName(function, is_f64, 1), "_array"));
  absl::StatusOr<std::unique_ptr<LlvmJit>> jit = LlvmJit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  ModuleWithContext module = CreateModule(**jit, "apply");
  EmitApply(module.module.get(), "inlined", function, is_f64, 1, /*routine=*/false);
  ASSERT_TRUE(AddModule(**jit, std::move(module)).ok());
  using Apply = void(const T*, const T*, T*, int64_t);
  absl::StatusOr<Apply*> inlined = (*jit)->LookupFunction<Apply>("inlined");
  ASSERT_TRUE(inlined.ok()) << inlined.status();
  JitOptions target = (*jit)->options();
  target.cpu = (*jit)->cpu_name();
  target.features = (*jit)->cpu_features();
  absl::StatusOr<void*> routine = MathArrayRoutine(function, is_f64, target);
  ASSERT_TRUE(routine.ok()) << routine.status();
  for (int64_t count : {0, 1, 15, 16, 17, 4099}) {
    SCOPED_TRACE(count);
    const std::vector<T> x = Arguments<T, Bits>(count, 3);
    const std::vector<T> y = Arguments<T, Bits>(count, 4);
    std::vector<T> got(count + 1, T(7)), want(count);
    if (Arity(function) == 2) {
      reinterpret_cast<BinaryArrayRoutine*> (*routine)(x.data(), y.data(), got.data(), count);
    } else {
      reinterpret_cast<UnaryArrayRoutine*> (*routine)(x.data(), got.data(), count);
    }
    (*inlined)(x.data(), y.data(), want.data(), count);
    EXPECT_EQ(got[count], T(7)) << "wrote past the end";
    got.resize(count);
    ExpectSameBits<T, Bits>(got, want, "array routine", x);
  }
}

TEST(MathLibraryTest, ArrayRoutinesMatchTheInlinedPolynomials) {
  for (MathFunction function : kRoutineFunctions) {
    if (HasMathRoutine(function, /*is_f64=*/false)) CheckArrayRoutine<float, uint32_t>(function);
    if (HasMathRoutine(function, /*is_f64=*/true)) CheckArrayRoutine<double, uint64_t>(function);
  }
  EXPECT_TRUE(absl::IsNotFound(MathArrayRoutine(MathFunction::kSqrt, false, {}).status()));
}

TEST(MathLibraryTest, WhichFunctionsHaveRoutines) {
  EXPECT_TRUE(HasMathRoutine(MathFunction::kTanh, false));
  EXPECT_FALSE(HasMathRoutine(MathFunction::kTanh, true));  // libm in f64
  EXPECT_TRUE(HasMathRoutine(MathFunction::kExp, true));
  EXPECT_FALSE(HasMathRoutine(MathFunction::kSqrt, false));  // one instruction: inline
  EXPECT_FALSE(HasMathRoutine(MathFunction::kRsqrt, false));
  EXPECT_FALSE(HasMathRoutine(MathFunction::kAtan2, false));  // no polynomial
  EXPECT_EQ(MathRoutineName(MathFunction::kTanh, false, 1), "tessera_math_tanh_f32");
  EXPECT_EQ(MathRoutineName(MathFunction::kLog1p, true, 8), "tessera_math_log1p_f64x8");
}

// A loop calling the scalar routine is vectorized into calls of a variant
// (pow: the two-argument form of the vector function ABI name).
TEST(MathLibraryTest, LoopsVectorizeIntoVariantCalls) {
  absl::StatusOr<std::unique_ptr<LlvmJit>> jit = LlvmJit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  (*jit)->set_keep_optimized_ir(true);
  ModuleWithContext module = CreateModule(**jit, "loop");
  EmitApply(module.module.get(), "apply", MathFunction::kExp, /*is_f64=*/false, /*lanes=*/1,
            /*routine=*/true);
  EmitApply(module.module.get(), "apply_pow", MathFunction::kPow, /*is_f64=*/false, /*lanes=*/1,
            /*routine=*/true);
  EmitApply(module.module.get(), "apply_log", MathFunction::kLog, /*is_f64=*/true, /*lanes=*/1,
            /*routine=*/true);
  ASSERT_TRUE(AddModule(**jit, std::move(module)).ok());
  const std::string& ir = (*jit)->last_optimized_ir();
  EXPECT_TRUE(absl::StrContains(ir, "@tessera_math_exp_f32x")) << ir;
  EXPECT_TRUE(absl::StrContains(ir, "@tessera_math_pow_f32x")) << ir;
  EXPECT_TRUE(absl::StrContains(ir, "@tessera_math_log_f64x")) << ir;
  using Apply = void(const float*, const float*, float*, int64_t);
  absl::StatusOr<Apply*> apply = (*jit)->LookupFunction<Apply>("apply");
  ASSERT_TRUE(apply.ok()) << apply.status();
  std::vector<float> x(1000), out(1000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) / 100 - 5;
  (*apply)(x.data(), x.data(), out.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_NEAR(out[i], std::exp(x[i]), 2e-7 * std::exp(x[i])) << x[i];
  }
}

// One compiled routine per target, shared by every JIT in the process.
TEST(MathLibraryTest, CompiledOncePerTarget) {
  absl::StatusOr<std::unique_ptr<LlvmJit>> a = LlvmJit::Create();
  absl::StatusOr<std::unique_ptr<LlvmJit>> b = LlvmJit::Create();
  ASSERT_TRUE(a.ok() && b.ok());
  JitOptions host = (*a)->options();
  host.cpu = (*a)->cpu_name();
  host.features = (*a)->cpu_features();
  absl::StatusOr<uint64_t> first = MathRoutineAddress("tessera_math_log_f32x16", host);
  absl::StatusOr<uint64_t> again = MathRoutineAddress("tessera_math_log_f32x16", host);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*first, *again);
  // Another target: its own code (compiled, not run).
  JitOptions other = host;
  other.cpu = "x86-64";
  other.features = "+sse2";
  absl::StatusOr<uint64_t> elsewhere = MathRoutineAddress("tessera_math_log_f32x16", other);
  ASSERT_TRUE(elsewhere.ok()) << elsewhere.status();
  EXPECT_NE(*elsewhere, *first);
}

// With an object cache, a routine's object is kept there too, so that a
// repeated run (a new process) compiles nothing.
TEST(MathLibraryTest, RoutinesUseTheObjectCache) {
  absl::StatusOr<std::unique_ptr<LlvmJit>> jit = LlvmJit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  JitOptions target = (*jit)->options();
  target.cpu = (*jit)->cpu_name();
  target.features = (*jit)->cpu_features();
  const std::filesystem::path dir =
      std::filesystem::path(std::getenv("TEST_TMPDIR")) / "math_routine_cache";
  std::filesystem::remove_all(dir);
  target.cache_dir = dir.string();
  absl::StatusOr<uint64_t> address = MathRoutineAddress("tessera_math_exp_f32x8", target);
  ASSERT_TRUE(address.ok()) << address.status();
  int objects = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    objects += entry.path().extension() == ".o";
  }
  EXPECT_EQ(objects, 1);
}

// Without one, the per-user cache: $TESSERA_CACHE_DIR/math ("off": none),
// else $XDG_CACHE_HOME/tessera/math.
TEST(MathLibraryTest, RoutinesDefaultToThePerUserCache) {
  absl::StatusOr<std::unique_ptr<LlvmJit>> jit = LlvmJit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  JitOptions target = (*jit)->options();
  target.cpu = (*jit)->cpu_name();
  target.features = (*jit)->cpu_features();
  target.cache_dir.clear();
  const std::filesystem::path dir =
      std::filesystem::path(std::getenv("TEST_TMPDIR")) / "per_user_cache";
  std::filesystem::remove_all(dir);
  auto objects = [](const std::filesystem::path& where) {
    int count = 0;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(where, error)) {
      count += entry.path().extension() == ".o";
    }
    return count;
  };
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const std::string saved_xdg = xdg != nullptr ? xdg : "";
  const std::filesystem::path xdg_math = dir / "xdg" / "tessera" / "math";
  ASSERT_EQ(setenv("XDG_CACHE_HOME", (dir / "xdg").c_str(), 1), 0);
  // "off" wins over the other places: nothing is written.
  ASSERT_EQ(setenv("TESSERA_CACHE_DIR", "off", 1), 0);
  ASSERT_TRUE(MathRoutineAddress("tessera_math_tanh_f32x8", target).ok());
  EXPECT_EQ(objects(xdg_math), 0);
  // Unset: $XDG_CACHE_HOME/tessera/math.
  ASSERT_EQ(unsetenv("TESSERA_CACHE_DIR"), 0);
  ASSERT_TRUE(MathRoutineAddress("tessera_math_tanh_f32x8", target).ok());
  EXPECT_EQ(objects(xdg_math), 1);
  // Set: $TESSERA_CACHE_DIR/math, one object per routine.
  ASSERT_EQ(setenv("TESSERA_CACHE_DIR", (dir / "own").c_str(), 1), 0);
  ASSERT_TRUE(MathRoutineAddress("tessera_math_tanh_f32x8", target).ok());
  ASSERT_TRUE(MathRoutineAddress("tessera_math_tanh_f32x16", target).ok());
  EXPECT_EQ(objects(dir / "own" / "math"), 2);
  unsetenv("TESSERA_CACHE_DIR");
  if (xdg != nullptr) {
    setenv("XDG_CACHE_HOME", saved_xdg.c_str(), 1);
  } else {
    unsetenv("XDG_CACHE_HOME");
  }
}

TEST(MathLibraryTest, OtherNamesAreNotFound) {
  JitOptions host;
  for (const char* name :
       {"tessera_math_sqrt_f32", "tessera_math_tanh_f64", "tessera_math_exp_f32x3",
        "tessera_math_exp_f16", "tessera_math_exp", "tessera_math_", "tessera_math_expf32",
        "tessera_math_exp_f32x", "tessera_math_exp_f32x16y", "tessera_math_exp_f32x016",
        "tessera_math_exp_f32x+16", "tessera_math_exp_f32x128", "expf"}) {
    SCOPED_TRACE(name);
    absl::StatusOr<uint64_t> address = MathRoutineAddress(name, host);
    EXPECT_EQ(address.status().code(), absl::StatusCode::kNotFound) << address.status();
  }
}

}  // namespace
}  // namespace llvm_ir
}  // namespace tessera
