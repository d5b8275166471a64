// LlvmJit: host detection, adding textual IR, lookups, calls into libm, and
// errors for bad IR and unknown symbols.
#include "backends/llvm_ir/llvm_jit.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/llvm_ir/llvm_jit_internal.h"
#include "gtest/gtest.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

namespace tessera {
namespace llvm_ir {
namespace {

TEST(LlvmJitTest, DetectsTheHost) {
  absl::StatusOr<std::unique_ptr<LlvmJit>> jit = LlvmJit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  EXPECT_FALSE((*jit)->cpu_name().empty());
  EXPECT_NE((*jit)->cpu_features().find("+sse2"), std::string::npos) << (*jit)->cpu_features();
  EXPECT_NE((*jit)->target_triple().find("x86_64"), std::string::npos);
}

TEST(LlvmJitTest, RunsAFunction) {
  auto jit = LlvmJit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  ASSERT_TRUE((*jit)->AddIrText(R"(
    define i32 @add(i32 %a, i32 %b) {
      %sum = add i32 %a, %b
      ret i32 %sum
    }
  )").ok());
  auto add = (*jit)->LookupFunction<int(int, int)>("add");
  ASSERT_TRUE(add.ok()) << add.status();
  EXPECT_EQ((*add)(40, 2), 42);
}

TEST(LlvmJitTest, ResolvesLibmFromTheProcess) {
  auto jit = LlvmJit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  ASSERT_TRUE((*jit)->AddIrText(R"(
    declare float @erff(float)
    define float @f(float %x) {
      %y = call float @erff(float %x)
      ret float %y
    }
  )").ok());
  auto f = (*jit)->LookupFunction<float(float)>("f");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ((*f)(0.5f), std::erf(0.5f));
}

int TripleForRuntimeSymbolTest(int x) { return 3 * x; }

// Names under a registered prefix resolve through its resolver (given the
// requesting JIT's CPU); a resolver's error fails the lookup with its message.
TEST(LlvmJitTest, ResolvesRegisteredRuntimeSymbols) {
  // The registration outlives the test (and a repeat of it keeps the
  // first resolver): what it records lives for the process.
  static std::string* const requested_cpu = new std::string;
  RegisterRuntimeSymbols(
      "jit_test_runtime_",
      [](absl::string_view name, const JitOptions& target) -> absl::StatusOr<uint64_t> {
        *requested_cpu = target.cpu;
        if (name == "jit_test_runtime_triple") {
          return reinterpret_cast<uint64_t>(&TripleForRuntimeSymbolTest);
        }
        return absl::NotFoundError(absl::StrCat("no runtime routine ", name));
      });
  auto jit = LlvmJit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  ASSERT_TRUE((*jit)
                  ->AddIrText(R"(
    declare i32 @jit_test_runtime_triple(i32)
    define i32 @f(i32 %x) {
      %y = call i32 @jit_test_runtime_triple(i32 %x)
      ret i32 %y
    }
  )")
                  .ok());
  auto f = (*jit)->LookupFunction<int(int)>("f");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ((*f)(14), 42);
  EXPECT_EQ(*requested_cpu, (*jit)->cpu_name());

  auto other = LlvmJit::Create();
  ASSERT_TRUE(other.ok()) << other.status();
  ASSERT_TRUE((*other)
                  ->AddIrText(R"(
    declare i32 @jit_test_runtime_missing(i32)
    define i32 @g(i32 %x) {
      %y = call i32 @jit_test_runtime_missing(i32 %x)
      ret i32 %y
    }
  )")
                  .ok());
  absl::StatusOr<void*> g = (*other)->Lookup("g");
  EXPECT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("no runtime routine jit_test_runtime_missing"),
            absl::string_view::npos)
      << g.status();
}

constexpr char kScaleLoop[] = R"(
    define void @scale(ptr noalias %out, ptr noalias %in, i64 %n) {
    entry:
      %empty = icmp eq i64 %n, 0
      br i1 %empty, label %done, label %loop
    loop:
      %i = phi i64 [ 0, %entry ], [ %next, %loop ]
      %src = getelementptr float, ptr %in, i64 %i
      %x = load float, ptr %src
      %y = fmul float %x, 2.0
      %dst = getelementptr float, ptr %out, i64 %i
      store float %y, ptr %dst
      %next = add i64 %i, 1
      %more = icmp ult i64 %next, %n
      br i1 %more, label %loop, label %done
    done:
      ret void
    }
  )";

TEST(LlvmJitTest, VectorizesALoopAtO3) {
  auto jit = LlvmJit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  (*jit)->set_keep_optimized_ir(true);
  ASSERT_TRUE((*jit)->AddIrText(kScaleLoop).ok());
  EXPECT_NE((*jit)->last_optimized_ir().find("<16 x float>"), std::string::npos)
      << "expected AVX-512 vectors for " << (*jit)->cpu_name() << ":\n"
      << (*jit)->last_optimized_ir();
  auto scale = (*jit)->LookupFunction<void(float*, const float*, int64_t)>("scale");
  ASSERT_TRUE(scale.ok());
  float in[37], out[37];
  for (int i = 0; i < 37; ++i) in[i] = i;
  (*scale)(out, in, 37);
  for (int i = 0; i < 37; ++i) EXPECT_EQ(out[i], 2.0f * i);
}

// LLVM's tuning for Sapphire Rapids prefers 256-bit vectors; the JIT asks
// for AVX-512's 512 wherever the target has them (compiled, not run: the
// host may be another CPU).
TEST(LlvmJitTest, PrefersTheWidestVectorRegisters) {
  struct Case {
    const char* features;
    const char* vector;
  };
  for (const Case& c : {Case{"", "<16 x float>"}, Case{"-avx512f", "<8 x float>"}}) {
    SCOPED_TRACE(c.features);
    JitOptions options;
    options.cpu = "sapphirerapids";
    options.features = c.features;
    auto jit = LlvmJit::Create(options);
    ASSERT_TRUE(jit.ok()) << jit.status();
    (*jit)->set_keep_optimized_ir(true);
    ASSERT_TRUE((*jit)->AddIrText(kScaleLoop).ok());
    EXPECT_NE((*jit)->last_optimized_ir().find(c.vector), std::string::npos)
        << (*jit)->last_optimized_ir();
  }
}

// A module of its own context, parsed from `ir`.
ModuleWithContext ParseModule(const std::string& ir) {
  ModuleWithContext result;
  result.context = std::make_unique<llvm::LLVMContext>();
  llvm::SMDiagnostic error;
  result.module = llvm::parseAssemblyString(ir, error, *result.context);
  EXPECT_NE(result.module, nullptr) << error.getMessage().str();
  return result;
}

// More modules than threads are linked into one module per thread: every
// function still answers, each private table its own (same names in every
// module), and two modules defining one external name are an error.
TEST(LlvmJitTest, AddModulesLinksIntoOnePerThread) {
  auto jit = LlvmJit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  std::vector<ModuleWithContext> modules;
  for (int k = 0; k < 5; ++k) {
    modules.push_back(ParseModule(absl::StrCat(R"(
      @table = private constant [2 x i32] [i32 )",
                                               k, R"(, i32 )", 10 * k, R"(]
      define internal i32 @helper(i64 %i) {
        %p = getelementptr inbounds [2 x i32], ptr @table, i64 0, i64 %i
        %v = load i32, ptr %p
        ret i32 %v
      }
      define i32 @get)",
                                               k, R"((i64 %i) {
        %v = call i32 @helper(i64 %i)
        ret i32 %v
      }
    )")));
  }
  ASSERT_TRUE(AddModules(**jit, std::move(modules), /*threads=*/2).ok());
  for (int k = 0; k < 5; ++k) {
    auto get = (*jit)->LookupFunction<int(int64_t)>(absl::StrCat("get", k));
    ASSERT_TRUE(get.ok()) << get.status();
    EXPECT_EQ((*get)(0), k);
    EXPECT_EQ((*get)(1), 10 * k);
  }
  EXPECT_EQ((*jit)->stats().modules, 2);

  std::vector<ModuleWithContext> clashing;
  for (int k = 0; k < 3; ++k) {
    clashing.push_back(ParseModule("define i32 @same() {\n  ret i32 1\n}\n"));
  }
  EXPECT_FALSE(AddModules(**jit, std::move(clashing), /*threads=*/2).ok());
}

// AddModules with the object cache: groups are linked, compiled and written
// on the compile threads; a second JIT loads every group; damaged entries
// are compiled again; an invalid module is an error naming it.
TEST(LlvmJitTest, AddModulesUsesTheObjectCache) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::filesystem::path dir =
      std::filesystem::path(tmp != nullptr ? tmp : "/tmp") / "llvm_jit_add_modules_cache";
  std::filesystem::remove_all(dir);
  JitOptions options;
  options.cache_dir = dir.string();
  auto run = [&]() -> JitStats {
    auto jit = LlvmJit::Create(options);
    EXPECT_TRUE(jit.ok()) << jit.status();
    std::vector<ModuleWithContext> modules;
    for (int k = 0; k < 5; ++k) {
      modules.push_back(ParseModule(absl::StrCat("define i32 @times", k,
                                                 "(i32 %x) {\n  %y = mul i32 %x, ", k,
                                                 "\n  ret i32 %y\n}\n")));
    }
    EXPECT_TRUE(AddModules(**jit, std::move(modules), /*threads=*/2).ok());
    for (int k = 0; k < 5; ++k) {
      auto times = (*jit)->LookupFunction<int(int)>(absl::StrCat("times", k));
      EXPECT_TRUE(times.ok()) << times.status();
      if (times.ok()) EXPECT_EQ((*times)(7), 7 * k);
    }
    return (*jit)->stats();
  };
  const JitStats first = run();
  EXPECT_EQ(first.modules, 2);
  EXPECT_EQ(first.cache_hits, 0);
  EXPECT_EQ(first.cache_writes, 2);
  EXPECT_EQ(run().cache_hits, 2);
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ofstream(entry.path(), std::ios::trunc) << "not an object file";
  }
  const JitStats damaged = run();
  EXPECT_EQ(damaged.cache_hits, 0);
  EXPECT_EQ(damaged.cache_writes, 2);
  EXPECT_EQ(run().cache_hits, 2);

  auto jit = LlvmJit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  std::vector<ModuleWithContext> modules;
  for (int k = 0; k < 3; ++k) {
    modules.push_back(ParseModule(absl::StrCat("define i32 @f", k, "() {\n  ret i32 0\n}\n")));
  }
  // Made invalid after parsing: a block without a terminator.
  modules[1].module->setModuleIdentifier("broken_kernel");
  modules[1].module->getFunction("f1")->getEntryBlock().getTerminator()->eraseFromParent();
  absl::Status status = AddModules(**jit, std::move(modules), /*threads=*/2);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("broken_kernel"), absl::string_view::npos) << status;
}

// The code generator settings hold once a JIT exists (process-wide LLVM
// options, found by name: a renamed option would be skipped silently).
TEST(LlvmJitTest, CodeGeneratorSettingsAreSet) {
  ASSERT_TRUE(LlvmJit::Create().ok());
  llvm::StringMap<llvm::cl::Option*>& options = llvm::cl::getRegisteredOptions();
  for (const auto& [name, value] : CodeGeneratorSettings()) {
    auto it = options.find(name);
    ASSERT_NE(it, options.end()) << name;
    EXPECT_EQ(static_cast<llvm::cl::opt<bool>*>(it->second)->getValue(), value) << name;
    EXPECT_GT(it->second->getNumOccurrences(), 0) << name << " must read as given";
  }
}

TEST(LlvmJitTest, BadIrIsAnError) {
  auto jit = LlvmJit::Create();
  ASSERT_TRUE(jit.ok());
  absl::Status status = (*jit)->AddIrText("define i32 @f() {\n  ret i64 0\n}\n");
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("line 2"), absl::string_view::npos) << status;
}

TEST(LlvmJitTest, UnknownSymbolIsNotFound) {
  auto jit = LlvmJit::Create();
  ASSERT_TRUE(jit.ok());
  EXPECT_EQ((*jit)->Lookup("no_such_function").status().code(), absl::StatusCode::kNotFound);
}

TEST(LlvmJitTest, Sha256MatchesKnownAnswers) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

// The on-disk object cache: a second JIT with the same module loads the
// object instead of compiling; another module, or another level, misses;
// a damaged entry is compiled again and rewritten.
TEST(LlvmJitTest, ObjectCacheOnDisk) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::filesystem::path dir =
      std::filesystem::path(tmp != nullptr ? tmp : "/tmp") / "llvm_jit_object_cache";
  std::filesystem::remove_all(dir);
  const char* kAdd = R"(
    define i32 @add(i32 %a, i32 %b) {
      %sum = add i32 %a, %b
      ret i32 %sum
    }
  )";
  JitOptions options;
  options.cache_dir = dir.string();  // created on first use
  auto run = [&](const JitOptions& jit_options, const char* ir) -> JitStats {
    auto jit = LlvmJit::Create(jit_options);
    EXPECT_TRUE(jit.ok()) << jit.status();
    EXPECT_TRUE((*jit)->AddIrText(ir).ok());
    auto add = (*jit)->LookupFunction<int(int, int)>("add");
    EXPECT_TRUE(add.ok()) << add.status();
    if (add.ok()) EXPECT_EQ((*add)(40, 2), 42);
    return (*jit)->stats();
  };
  JitStats first = run(options, kAdd);
  EXPECT_EQ(first.modules, 1);
  EXPECT_EQ(first.cache_hits, 0);
  EXPECT_EQ(first.cache_writes, 1);
  JitStats second = run(options, kAdd);
  EXPECT_EQ(second.cache_hits, 1);
  EXPECT_EQ(second.cache_writes, 0);
  // A different level is a different key.
  JitOptions o1 = options;
  o1.opt_level = 1;
  EXPECT_EQ(run(o1, kAdd).cache_hits, 0);
  int entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().extension(), ".o") << entry.path();
    ++entries;
    // Damage every entry.
    std::ofstream(entry.path(), std::ios::trunc) << "not an object file";
  }
  EXPECT_EQ(entries, 2);
  JitStats damaged = run(options, kAdd);
  EXPECT_EQ(damaged.cache_hits, 0);
  EXPECT_EQ(damaged.cache_writes, 1);
  EXPECT_EQ(run(options, kAdd).cache_hits, 1);
  // An unwritable cache directory only costs the compilation.
  JitOptions unwritable = options;
  unwritable.cache_dir = "/proc/no_such_dir/cache";
  JitStats none = run(unwritable, kAdd);
  EXPECT_EQ(none.cache_hits, 0);
  EXPECT_EQ(none.cache_writes, 0);
}

}  // namespace
}  // namespace llvm_ir
}  // namespace tessera
