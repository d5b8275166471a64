// Math routines compiled once per process and target (math_library.h).

#include "backends/llvm_ir/math_library.h"

#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "backends/llvm_ir/llvm_jit_internal.h"
#include "backends/llvm_ir/polynomial_math.h"
#include "llvm/IR/Attributes.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

namespace tessera {
namespace llvm_ir {
namespace {

constexpr absl::string_view kPrefix = "tessera_math_";

// Every MathFunction, for parsing names back.
constexpr MathFunction kAllFunctions[] = {
    MathFunction::kAcos,     MathFunction::kAcosh, MathFunction::kAsin,  MathFunction::kAsinh,
    MathFunction::kAtan,     MathFunction::kAtan2, MathFunction::kAtanh, MathFunction::kCbrt,
    MathFunction::kCos,      MathFunction::kCosh,  MathFunction::kErf,   MathFunction::kExp,
    MathFunction::kExpm1,    MathFunction::kHypot, MathFunction::kLog,   MathFunction::kLog1p,
    MathFunction::kLogistic, MathFunction::kPow,   MathFunction::kRsqrt, MathFunction::kSin,
    MathFunction::kSinh,     MathFunction::kSqrt,  MathFunction::kTan,   MathFunction::kTanh,
};

// The vector widths with a variant: 128, 256 and 512 bits (one SSE, AVX
// or AVX-512 register), whichever the vectorizer picks, and 1024 and 2048
// bits (2 and 4 AVX-512 registers: the long-chain loops' one call per
// vector iteration, loop_kernel.cc).
std::vector<int> VariantLanes(bool is_f64) {
  return is_f64 ? std::vector<int>{2, 4, 8, 16, 32} : std::vector<int>{4, 8, 16, 32, 64};
}

int Arity(MathFunction function) { return function == MathFunction::kPow ? 2 : 1; }

struct Routine {
  MathFunction function;
  bool is_f64;
  int lanes;  // 1: scalar
};

std::optional<Routine> ParseRoutineName(absl::string_view name) {
  if (!absl::ConsumePrefix(&name, kPrefix)) return std::nullopt;
  for (MathFunction function : kAllFunctions) {
    absl::string_view rest = name;
    if (!absl::ConsumePrefix(&rest, MathFunctionName(function)) ||
        !absl::ConsumePrefix(&rest, "_")) {
      continue;
    }
    Routine routine{function, false, 1};
    if (absl::ConsumePrefix(&rest, "f64")) {
      routine.is_f64 = true;
    } else if (!absl::ConsumePrefix(&rest, "f32")) {
      continue;
    }
    if (absl::ConsumePrefix(&rest, "x")) {
      if (!absl::SimpleAtoi(rest, &routine.lanes)) continue;
      bool known = false;
      for (int lanes : VariantLanes(routine.is_f64)) known |= lanes == routine.lanes;
      if (!known) continue;
    } else if (!rest.empty()) {
      continue;
    }
    // Only the names MathRoutineName writes ("x016" is not one).
    if (!HasMathRoutine(function, routine.is_f64) ||
        MathRoutineName(function, routine.is_f64, routine.lanes) != absl::StrCat(kPrefix, name)) {
      return std::nullopt;
    }
    return routine;
  }
  return std::nullopt;
}

llvm::FunctionType* RoutineType(llvm::LLVMContext& context, MathFunction function, bool is_f64,
                                int lanes) {
  llvm::Type* type = is_f64 ? llvm::Type::getDoubleTy(context) : llvm::Type::getFloatTy(context);
  if (lanes > 1) type = llvm::FixedVectorType::get(type, lanes);
  return llvm::FunctionType::get(type, std::vector<llvm::Type*>(Arity(function), type),
                                 /*isVarArg=*/false);
}

// A routine has no side effects and reads no memory: calls to it may be
// vectorized, hoisted, combined or deleted like arithmetic.
void MarkPure(llvm::Function* f) {
  f->setDoesNotThrow();
  f->setWillReturn();
  f->addFnAttr(llvm::Attribute::NoSync);
  f->addFnAttr(llvm::Attribute::NoFree);
  f->setDoesNotAccessMemory();
}

// The routine's declaration in `module`, with its vector variants declared
// and named in the vector function ABI attribute of the scalar one.  The
// variants are kept by llvm.compiler.used: until the vectorizer calls one,
// nothing refers to them, and the optimizer deletes unused declarations.
llvm::Function* DeclareRoutine(llvm::Module* module, MathFunction function, bool is_f64) {
  const std::string name = MathRoutineName(function, is_f64, 1);
  if (llvm::Function* existing = module->getFunction(name)) return existing;
  llvm::LLVMContext& context = module->getContext();
  llvm::Function* scalar = llvm::Function::Create(RoutineType(context, function, is_f64, 1),
                                                  llvm::GlobalValue::ExternalLinkage, name, module);
  MarkPure(scalar);
  std::vector<std::string> variants;
  std::vector<llvm::GlobalValue*> declared;
  for (int lanes : VariantLanes(is_f64)) {
    const std::string vector_name = MathRoutineName(function, is_f64, lanes);
    llvm::Function* variant =
        llvm::Function::Create(RoutineType(context, function, is_f64, lanes),
                               llvm::GlobalValue::ExternalLinkage, vector_name, module);
    MarkPure(variant);
    declared.push_back(variant);
    // _ZGV <isa: _LLVM_> <N: unmasked> <lanes> <v per argument> _ <scalar>(<vector>)
    variants.push_back(absl::StrCat("_ZGV_LLVM_N", lanes, Arity(function) == 2 ? "vv" : "v", "_",
                                    name, "(", vector_name, ")"));
  }
  scalar->addFnAttr("vector-function-abi-variant", absl::StrJoin(variants, ","));
  llvm::appendToCompilerUsed(*module, declared);
  return scalar;
}

// Routine::lanes of an array routine (MathArrayRoutine).
constexpr int kArrayLanes = -1;

// `void name(const T* in0, [const T* in1,] T* out, i64 n)`: whole 64-byte
// vectors of the polynomial, then one element at a time.  False where
// there is no polynomial.
bool EmitArrayRoutine(llvm::Module* module, llvm::StringRef name, const Routine& routine) {
  llvm::LLVMContext& context = module->getContext();
  llvm::Type* element =
      routine.is_f64 ? llvm::Type::getDoubleTy(context) : llvm::Type::getFloatTy(context);
  llvm::Type* pointer = llvm::PointerType::getUnqual(context);
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  const int arity = Arity(routine.function);
  std::vector<llvm::Type*> parameters(arity + 1, pointer);
  parameters.push_back(i64);
  llvm::Function* f = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(context), parameters, /*isVarArg=*/false),
      llvm::GlobalValue::ExternalLinkage, name, module);
  f->setDoesNotThrow();
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", f));
  std::vector<llvm::Value*> inputs;
  for (int k = 0; k < arity; ++k) inputs.push_back(f->getArg(k));
  llvm::Value* out = f->getArg(arity);
  llvm::Value* n = f->getArg(arity + 1);
  const int width = routine.is_f64 ? 8 : 16;
  llvm::Type* vector = llvm::FixedVectorType::get(element, width);
  llvm::Value* whole = b.CreateAnd(n, llvm::ConstantInt::get(i64, -int64_t{width}));
  // One loop over [start, end) in steps of `step` elements of `type`.
  auto emit_loop = [&](absl::string_view loop_name, llvm::Value* start, llvm::Value* end,
                       llvm::Type* type, int step) -> bool {
    llvm::BasicBlock* before = b.GetInsertBlock();
    llvm::BasicBlock* body = llvm::BasicBlock::Create(context, absl::StrCat(loop_name, ".body"), f);
    llvm::BasicBlock* exit = llvm::BasicBlock::Create(context, absl::StrCat(loop_name, ".exit"), f);
    b.CreateCondBr(b.CreateICmpSLT(start, end), body, exit);
    b.SetInsertPoint(body);
    llvm::PHINode* i = b.CreatePHI(i64, 2);
    i->addIncoming(start, before);
    std::vector<llvm::Value*> args;
    for (llvm::Value* input : inputs) {
      args.push_back(b.CreateAlignedLoad(type, b.CreateInBoundsGEP(element, input, i),
                                         llvm::Align(element->getPrimitiveSizeInBits() / 8)));
    }
    llvm::Value* result = EmitPolynomialMath(&b, routine.function, args);
    if (result == nullptr) return false;
    b.CreateAlignedStore(result, b.CreateInBoundsGEP(element, out, i),
                         llvm::Align(element->getPrimitiveSizeInBits() / 8));
    llvm::Value* next = b.CreateAdd(i, llvm::ConstantInt::get(i64, step), "", /*HasNUW=*/true,
                                    /*HasNSW=*/true);
    i->addIncoming(next, b.GetInsertBlock());
    b.CreateCondBr(b.CreateICmpSLT(next, end), body, exit);
    b.SetInsertPoint(exit);
    return true;
  };
  if (!emit_loop("vector", llvm::ConstantInt::get(i64, 0), whole, vector, width) ||
      !emit_loop("scalar", whole, n, element, 1)) {
    return false;
  }
  b.CreateRetVoid();
  return true;
}

// The routines compiled for one target, in a JIT of their own.
class RoutineLibrary {
 public:
  explicit RoutineLibrary(JitOptions target) : target_(std::move(target)) {}

  absl::StatusOr<uint64_t> Address(absl::string_view name, const Routine& routine) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = addresses_.find(name); it != addresses_.end()) return it->second;
    if (jit_ == nullptr) {
      absl::StatusOr<std::unique_ptr<LlvmJit>> jit = LlvmJit::Create(target_);
      if (!jit.ok()) return jit.status();
      jit_ = std::move(*jit);
    }
    ModuleWithContext module = CreateModule(*jit_, name);
    const llvm::StringRef symbol(name.data(), name.size());
    if (routine.lanes == kArrayLanes) {
      if (!EmitArrayRoutine(module.module.get(), symbol, routine)) {
        return absl::InternalError(absl::StrCat("no polynomial for math routine ", name));
      }
    } else {
      llvm::Function* f = llvm::Function::Create(
          RoutineType(*module.context, routine.function, routine.is_f64, routine.lanes),
          llvm::GlobalValue::ExternalLinkage, symbol, module.module.get());
      MarkPure(f);
      llvm::IRBuilder<> b(llvm::BasicBlock::Create(*module.context, "entry", f));
      std::vector<llvm::Value*> args;
      for (llvm::Argument& arg : f->args()) args.push_back(&arg);
      llvm::Value* result = EmitPolynomialMath(&b, routine.function, args);
      if (result == nullptr) {
        return absl::InternalError(absl::StrCat("no polynomial for math routine ", name));
      }
      b.CreateRet(result);
    }
    if (absl::Status status = AddModule(*jit_, std::move(module)); !status.ok()) return status;
    absl::StatusOr<void*> address = jit_->Lookup(name);
    if (!address.ok()) return address.status();
    const uint64_t value = reinterpret_cast<uint64_t>(*address);
    addresses_.emplace(name, value);
    return value;
  }

 private:
  const JitOptions target_;
  std::mutex mutex_;
  std::unique_ptr<LlvmJit> jit_;
  absl::flat_hash_map<std::string, uint64_t> addresses_;
};

// Registers the routines' resolver with the JIT, once per process (before
// the first module that calls one is added).
void RegisterOnce() {
  static std::once_flag once;
  std::call_once(once, [] { RegisterRuntimeSymbols(kPrefix, MathRoutineAddress); });
}

}  // namespace

bool HasMathRoutine(MathFunction function, bool is_f64) {
  return function != MathFunction::kSqrt && function != MathFunction::kRsqrt &&
         HasPolynomialMath(function, is_f64);
}

std::string MathRoutineName(MathFunction function, bool is_f64, int lanes) {
  return absl::StrCat(kPrefix, MathFunctionName(function), is_f64 ? "_f64" : "_f32",
                      lanes > 1 ? absl::StrCat("x", lanes) : "");
}

llvm::Value* EmitMathRoutineCall(llvm::IRBuilder<>* b, MathFunction function,
                                 absl::Span<llvm::Value* const> args) {
  if (args.size() != static_cast<size_t>(Arity(function))) return nullptr;
  llvm::Type* type = args[0]->getType();
  llvm::Type* element = type->getScalarType();
  if (!element->isFloatTy() && !element->isDoubleTy()) return nullptr;
  const bool is_f64 = element->isDoubleTy();
  if (!HasMathRoutine(function, is_f64)) return nullptr;
  int lanes = 1;
  if (auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(type)) {
    lanes = static_cast<int>(vector->getNumElements());
    bool known = false;
    for (int l : VariantLanes(is_f64)) known |= l == lanes;
    if (!known) return nullptr;
  } else if (type->isVectorTy()) {
    return nullptr;
  }
  RegisterOnce();
  llvm::Module* module = b->GetInsertBlock()->getModule();
  llvm::Function* scalar = DeclareRoutine(module, function, is_f64);
  llvm::Function* callee =
      lanes == 1 ? scalar : module->getFunction(MathRoutineName(function, is_f64, lanes));
  return b->CreateCall(callee, std::vector<llvm::Value*>(args.begin(), args.end()));
}

namespace {

// Where routines' object code is kept across processes when the caller
// names no cache directory (see math_library.h).
std::string DefaultRoutineCacheDir() {
  if (const char* dir = std::getenv("TESSERA_CACHE_DIR"); dir != nullptr) {
    const std::string value = dir;
    return value.empty() || value == "off" ? "" : absl::StrCat(value, "/math");
  }
  if (const char* dir = std::getenv("XDG_CACHE_HOME"); dir != nullptr && *dir != '\0') {
    return absl::StrCat(dir, "/tessera/math");
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return absl::StrCat(home, "/.cache/tessera/math");
  }
  return "";
}

RoutineLibrary& LibraryFor(const JitOptions& target) {
  static std::mutex mutex;
  static auto* libraries = new absl::flat_hash_map<std::string, std::unique_ptr<RoutineLibrary>>;
  RoutineLibrary* library;
  const std::string cache_dir =
      target.cache_dir.empty() ? DefaultRoutineCacheDir() : target.cache_dir;
  {
    std::lock_guard<std::mutex> lock(mutex);
    // Everything that decides a routine's code, and where its object is kept.
    std::unique_ptr<RoutineLibrary>& slot =
        (*libraries)[absl::StrCat(target.cpu, "\n", target.features, "\n", target.opt_level, "\n",
                                  target.kernel_pipeline, "\n", cache_dir)];
    if (slot == nullptr) {
      JitOptions options;
      options.opt_level = target.opt_level;
      options.kernel_pipeline = target.kernel_pipeline;
      options.cpu = target.cpu;
      options.features = target.features;
      options.cache_dir = cache_dir;
      slot = std::make_unique<RoutineLibrary>(std::move(options));
    }
    library = slot.get();
  }
  return *library;
}

}  // namespace

absl::StatusOr<uint64_t> MathRoutineAddress(absl::string_view name, const JitOptions& target) {
  std::optional<Routine> routine = ParseRoutineName(name);
  if (!routine.has_value()) {
    return absl::NotFoundError(absl::StrCat("'", name, "' is not a math routine"));
  }
  return LibraryFor(target).Address(name, *routine);
}

absl::StatusOr<void*> MathArrayRoutine(MathFunction function, bool is_f64,
                                       const JitOptions& target) {
  if (!HasMathRoutine(function, is_f64)) {
    return absl::NotFoundError(
        absl::StrCat("no math routine for ", MathFunctionName(function), is_f64 ? " f64" : " f32"));
  }
  absl::StatusOr<uint64_t> address =
      LibraryFor(target).Address(absl::StrCat(MathRoutineName(function, is_f64, 1), "_array"),
                                 Routine{function, is_f64, kArrayLanes});
  if (!address.ok()) return address.status();
  return reinterpret_cast<void*>(*address);
}

MathRoutineEmitter::MathRoutineEmitter(llvm::Module* module, llvm::IRBuilder<>* b, Calls calls)
    : ElementalIrEmitter(module, b), calls_(calls) {}

absl::StatusOr<llvm::Value*> MathRoutineEmitter::EmitMathFunction(
    MathFunction function, absl::Span<llvm::Value* const> args) {
  const bool call_routine =
      calls_ == Calls::kEveryRoutine ||
      (!args.empty() && PolynomialLooksUpTables(*builder()->GetInsertBlock()->getModule(), function,
                                                args[0]->getType()->getScalarType()->isDoubleTy()));
  if (call_routine) {
    if (llvm::Value* call = EmitMathRoutineCall(builder(), function, args)) return call;
  }
  if (llvm::Value* inline_polynomial = EmitPolynomialMath(builder(), function, args)) {
    return inline_polynomial;
  }
  return ElementalIrEmitter::EmitMathFunction(function, args);
}

}  // namespace llvm_ir
}  // namespace tessera
