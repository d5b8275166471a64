// The CPU backend's compilation caches: in memory (CpuCompilationCache,
// keyed by the optimized module and the code generation options), and on
// disk (JitOptions::cache_dir, LLVM object code per kernel).
#include "backends/cpu/compilation_cache.h"

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "backends/common/hlo_executable.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/cpu/cpu_executable.h"
#include "gtest/gtest.h"
#include "hlo/ir/literal.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace cpu {
namespace {

constexpr char kModule[] = R"(
HloModule cached
ENTRY main {
  x = f32[1000] parameter(0)
  e = f32[1000] exponential(x)
  ROOT r = f32[1000] add(e, x)
}
)";

constexpr char kOtherModule[] = R"(
HloModule cached
ENTRY main {
  x = f32[1000] parameter(0)
  e = f32[1000] exponential(x)
  ROOT r = f32[1000] multiply(e, x)
}
)";

std::unique_ptr<HloModule> Parse(const char* text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : nullptr;
}

std::unique_ptr<HloExecutable> Compile(const char* text, const CpuCompileOptions& options) {
  absl::StatusOr<std::unique_ptr<HloExecutable>> executable =
      CompileForCpuExecutable(Parse(text), options);
  EXPECT_TRUE(executable.ok()) << executable.status();
  return executable.ok() ? *std::move(executable) : nullptr;
}

Literal Ramp(float scale) {
  Literal x(Shape(F32, {1000}));
  for (int i = 0; i < 1000; ++i) x.data<float>()[i] = scale * static_cast<float>(i) / 1000.0f;
  return x;
}

TEST(CompilationCacheTest, SameModuleAndOptionsHit) {
  CpuCompilationCache cache(8);
  CpuCompileOptions options;
  options.cache = &cache;
  std::unique_ptr<HloExecutable> first = Compile(kModule, options);
  std::unique_ptr<HloExecutable> second = Compile(kModule, options);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(cache.stats().hits, 1);
  EXPECT_EQ(cache.stats().misses, 1);
  EXPECT_EQ(cache.stats().entries, 1);
  // Both run, independently, to the same results.
  absl::StatusOr<Literal> a = first->RunLiterals({Ramp(1.0f)});
  absl::StatusOr<Literal> b = second->RunLiterals({Ramp(1.0f)});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);

  // Another module, or options that change the code, miss.
  Compile(kOtherModule, options);
  CpuCompileOptions exact = options;
  exact.polynomial_math = false;
  Compile(kModule, exact);
  EXPECT_EQ(cache.stats().hits, 1);
  EXPECT_EQ(cache.stats().misses, 3);
  EXPECT_EQ(cache.stats().entries, 3);
  // use_cache off neither looks up nor keeps.
  CpuCompileOptions uncached = options;
  uncached.use_cache = false;
  Compile(kModule, uncached);
  EXPECT_EQ(cache.stats().hits + cache.stats().misses, 4);
}

TEST(CompilationCacheTest, FingerprintsSeparateModulesAndOptions) {
  std::unique_ptr<HloModule> module = Parse(kModule);
  std::unique_ptr<HloModule> other = Parse(kOtherModule);
  const CpuCompileOptions options;
  const std::string key = CpuCompilationFingerprint(*module, options);
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key, CpuCompilationFingerprint(*Parse(kModule), options));
  EXPECT_NE(key, CpuCompilationFingerprint(*other, options));
  for (auto change : std::vector<void (*)(CpuCompileOptions*)>{
           [](CpuCompileOptions* o) { o->native_kernels = false; },
           [](CpuCompileOptions* o) { o->native_dots = false; },
           [](CpuCompileOptions* o) { o->polynomial_math = false; },
           [](CpuCompileOptions* o) { o->reorder_float_reductions = false; },
           [](CpuCompileOptions* o) { o->parallel_min_elements = 7; },
           [](CpuCompileOptions* o) { o->jit.opt_level = 1; },
           [](CpuCompileOptions* o) { o->jit.loop_unrolling = true; },
           [](CpuCompileOptions* o) { o->jit.kernel_pipeline = false; },
           [](CpuCompileOptions* o) { o->jit.cpu = "x86-64"; },
           [](CpuCompileOptions* o) { o->compile_tile_loops = false; },
           [](CpuCompileOptions* o) { o->final_tile_code = false; },
           [](CpuCompileOptions* o) { o->final_tile_code_min_elements = 64; },
           [](CpuCompileOptions* o) { o->tier_up = CpuCompileOptions::TierUp::kEager; }}) {
    CpuCompileOptions changed;
    change(&changed);
    EXPECT_NE(key, CpuCompilationFingerprint(*module, changed));
  }
  // Where the object cache lives does not change the code.
  CpuCompileOptions elsewhere;
  elsewhere.jit.cache_dir = "/tmp/somewhere";
  EXPECT_EQ(key, CpuCompilationFingerprint(*module, elsewhere));
}

TEST(CompilationCacheTest, EvictsLeastRecentlyUsed) {
  CpuCompilationCache cache(2);
  auto program = [](const char* text) {
    absl::StatusOr<std::unique_ptr<CpuExecutable>> executable = CompileForCpu(Parse(text));
    EXPECT_TRUE(executable.ok()) << executable.status();
    return std::shared_ptr<const CpuExecutable>(*std::move(executable));
  };
  cache.Insert("a", program(kModule));
  cache.Insert("b", program(kOtherModule));
  EXPECT_NE(cache.Lookup("a"), nullptr);  // a is now the most recent
  cache.Insert("c", program(kModule));    // evicts b
  EXPECT_EQ(cache.Lookup("b"), nullptr);
  EXPECT_NE(cache.Lookup("a"), nullptr);
  EXPECT_NE(cache.Lookup("c"), nullptr);
  EXPECT_EQ(cache.stats().evictions, 1);
  EXPECT_EQ(cache.stats().entries, 2);
  cache.Clear();
  EXPECT_EQ(cache.stats().entries, 0);
  EXPECT_EQ(cache.Lookup("a"), nullptr);
}

// Executables sharing one cached program run concurrently, each with its
// own arena.
TEST(CompilationCacheTest, SharedProgramRunsConcurrently) {
  CpuCompilationCache cache(4);
  CpuCompileOptions options;
  options.cache = &cache;
  std::vector<std::unique_ptr<HloExecutable>> executables;
  for (int i = 0; i < 4; ++i) executables.push_back(Compile(kModule, options));
  EXPECT_EQ(cache.stats().hits, 3);
  std::vector<Literal> expected;
  for (int i = 0; i < 4; ++i) {
    absl::StatusOr<Literal> result = executables[0]->RunLiterals({Ramp(static_cast<float>(i))});
    ASSERT_TRUE(result.ok()) << result.status();
    expected.push_back(*std::move(result));
  }
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      for (int run = 0; run < 50; ++run) {
        absl::StatusOr<Literal> result =
            executables[i]->RunLiterals({Ramp(static_cast<float>(i))});
        if (!result.ok() || !(*result == expected[i])) ++mismatches[i];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(mismatches[i], 0) << i;
}

TEST(CompilationCacheTest, ObjectCacheOnDiskSkipsLlvm) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir =
      (std::filesystem::path(tmp != nullptr ? tmp : "/tmp") / "cpu_object_cache").string();
  std::filesystem::remove_all(dir);
  CpuCompileOptions options;
  options.use_cache = false;  // as a new process would
  options.jit.cache_dir = dir;
  options.kernel_tier = CpuCompileOptions::KernelTier::kLlvm;  // LLVM before the first run
  absl::StatusOr<std::unique_ptr<CpuExecutable>> first = CompileForCpu(Parse(kModule), options);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_GT((*first)->stats().llvm_modules, 0);
  EXPECT_EQ((*first)->stats().llvm_cache_hits, 0);
  absl::StatusOr<std::unique_ptr<CpuExecutable>> second = CompileForCpu(Parse(kModule), options);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ((*second)->stats().llvm_cache_hits, (*second)->stats().llvm_modules);
  absl::StatusOr<Literal> a = (*first)->Run({Ramp(2.0f)});
  absl::StatusOr<Literal> b = (*second)->Run({Ramp(2.0f)});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
