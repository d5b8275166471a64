// `tessera bench` through its library entry point: output forms and errors
// (never timings: those are for benchmarks, not tests).
#include "tools/bench_command.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/tile_code.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/module_io.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kModule[] = R"(HloModule axpy
ENTRY main {
  a = f32[] parameter(0)
  x = f32[1000] parameter(1)
  y = f32[1000] parameter(2)
  ab = f32[1000] broadcast(a), dimensions={}
  ax = f32[1000] multiply(ab, x)
  ROOT r = f32[1000] add(ax, y)
}
)";

std::string WriteTemp(const std::string& name, const std::string& contents) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/" + name;
  EXPECT_TRUE(WriteStringToFile(path, contents).ok());
  return path;
}

absl::Status Bench(const std::vector<std::string>& args, std::string* out = nullptr) {
  std::ostringstream stream;
  absl::Status status = RunBenchCommand(args, stream);
  if (out) *out = stream.str();
  return status;
}

TEST(BenchCommandTest, TextReport) {
  std::string out;
  ASSERT_TRUE(
      Bench({WriteTemp("a.hlo", kModule), "--warmup=1", "--warmup_ms=0", "--iters=3"}, &out).ok());
  EXPECT_THAT(out, HasSubstr("compile"));
  EXPECT_THAT(out, HasSubstr("(3 runs after 1 warm-up, buffers reused)"));
  // One fused kernel: reads a, x, y and writes r; 2000 flops.
  EXPECT_THAT(out, HasSubstr("traffic  12004 bytes"));
  EXPECT_THAT(out, HasSubstr("compute  2000 flops"));
}

TEST(BenchCommandTest, JsonReport) {
  std::string out;
  ASSERT_TRUE(
      Bench({WriteTemp("b.hlo", kModule), "--iters=2", "--format=json"}, &out).ok());
  EXPECT_THAT(out, StartsWith("{\"module\": "));
  for (const char* key :
       {"\"compile_ms\": ", "\"first_runs_ms\": [", "\"run_ms_min\": ", "\"run_ms_median\": ",
        "\"run_ms_max\": ", "\"bytes\": 12004", "\"flops\": 2000"}) {
    EXPECT_THAT(out, HasSubstr(key));
  }
}

// The warm-up runs --warmup times, then on until --warmup_ms have passed
// (a run of this module takes microseconds, so 50 ms are many runs);
// --warmup=0 runs none.
TEST(BenchCommandTest, WarmsUpForAtLeastTheGivenTime) {
  auto warmup_runs = [](const std::vector<std::string>& flags) {
    std::vector<std::string> args = {WriteTemp("w.hlo", kModule), "--iters=1", "--format=json"};
    args.insert(args.end(), flags.begin(), flags.end());
    std::string out;
    EXPECT_TRUE(Bench(args, &out).ok()) << out;
    const size_t at = out.find("\"warmup_runs\": ");
    if (at == std::string::npos) return int64_t{-1};
    return static_cast<int64_t>(std::stoll(out.substr(at + 15)));
  };
  EXPECT_EQ(warmup_runs({"--warmup=2", "--warmup_ms=0"}), 2);
  EXPECT_GT(warmup_runs({"--warmup=1", "--warmup_ms=50"}), 2);
  EXPECT_EQ(warmup_runs({"--warmup=0", "--warmup_ms=50"}), 0);
  absl::Status bad = Bench({WriteTemp("w.hlo", kModule), "--warmup_ms=-1"});
  EXPECT_TRUE(absl::IsInvalidArgument(bad)) << bad;
  EXPECT_THAT(bad.message(), HasSubstr("--warmup_ms >= 0"));
}

// --kernels=tiered: the first two warm-up runs' times (the second asks for
// the LLVM kernels) and how long generating them took (waited for before
// the timed runs), in the background or not; an unknown tier or tier-up is
// an error naming the choices.
TEST(BenchCommandTest, TieredKernelsReportTheFirstRuns) {
  // Rows too short for the tile code to be final: the kernel tiers up.
  const std::string short_rows = absl::StrReplaceAll(kModule, {{"f32[1000]", "f32[100]"}});
  for (const char* tier_up : {"--tier_up=background", "--tier_up=sync"}) {
    std::string out;
    ASSERT_TRUE(Bench({WriteTemp("t.hlo", short_rows), "--backend=cpu", "--kernels=tiered", tier_up,
                       "--warmup=2", "--iters=2", "--format=json"},
                      &out)
                    .ok());
    EXPECT_THAT(out, ::testing::ContainsRegex("\"first_runs_ms\": \\[[0-9.]+, [0-9.]+\\]"));
    EXPECT_THAT(out, ::testing::ContainsRegex("\"tier_up_ms\": [0-9.]+"));
  }
  absl::Status bad = Bench({WriteTemp("u.hlo", kModule), "--backend=cpu", "--kernels=fast"});
  EXPECT_TRUE(absl::IsInvalidArgument(bad)) << bad;
  EXPECT_THAT(bad.message(), HasSubstr("llvm, tile, tile_ops or tiered"));
  bad = Bench({WriteTemp("v.hlo", kModule), "--backend=cpu", "--tier_up=later"});
  EXPECT_TRUE(absl::IsInvalidArgument(bad)) << bad;
  EXPECT_THAT(bad.message(), HasSubstr("background, sync or eager"));
}

// A kernel whose generated tile code is final (rows of 128 or more) has
// no tier-up: its final code is the tile code, and so is its compile.
TEST(BenchCommandTest, FinalTileCodeHasNoTierUp) {
  std::string module = kModule;
  module = absl::StrReplaceAll(module, {{"f32[1000]", "f32[4096]"}});
  std::string out;
  ASSERT_TRUE(Bench({WriteTemp("final.hlo", module), "--backend=cpu", "--iters=2",
                     "--compile_iters=1", "--format=json"},
                    &out)
                  .ok());
  if (!cpu::TileCode::Supported()) GTEST_SKIP() << "the host has no AVX-512";
  EXPECT_THAT(out, Not(HasSubstr("tier_up_ms")));
  EXPECT_THAT(out, ::testing::ContainsRegex("\"final_compile_ms_warm_min\": [0-9.]+"));
}

// --compile_iters with tiered kernels: also the warm compile to the final
// code (LLVM's here), which the tile programs' compile time leaves out; not with
// --kernels=llvm, whose compiles are already that, nor without
// --compile_iters.
TEST(BenchCommandTest, TieredKernelsReportTheFinalCodesCompile) {
  std::string out;
  ASSERT_TRUE(Bench({WriteTemp("f.hlo", kModule), "--backend=cpu", "--iters=1", "--compile_iters=2",
                     "--format=json"},
                    &out)
                  .ok());
  EXPECT_THAT(out, ::testing::ContainsRegex("\"final_compile_ms_warm_min\": [0-9.]+"));
  ASSERT_TRUE(
      Bench({WriteTemp("g.hlo", kModule), "--backend=cpu", "--iters=1", "--compile_iters=2"}, &out)
          .ok());
  EXPECT_THAT(out, HasSubstr("to compile to the final code (fastest of 2 more"));
  for (const std::vector<std::string>& flags :
       {std::vector<std::string>{"--kernels=llvm", "--compile_iters=2"},
        std::vector<std::string>{"--kernels=tiered"}}) {
    std::vector<std::string> args = {WriteTemp("h.hlo", kModule), "--backend=cpu", "--iters=1",
                                     "--format=json"};
    args.insert(args.end(), flags.begin(), flags.end());
    ASSERT_TRUE(Bench(args, &out).ok());
    EXPECT_THAT(out, Not(HasSubstr("final_compile_ms_warm_min"))) << flags[0];
  }
}

TEST(BenchCommandTest, ProfilePrintsEachThunk) {
  std::string out;
  ASSERT_TRUE(Bench({WriteTemp("p.hlo", kModule), "--backend=cpu", "--iters=2", "--profile"},
                    &out)
                  .ok());
  EXPECT_THAT(out, HasSubstr("profile  (2 runs"));
  EXPECT_THAT(out, HasSubstr("calls/run"));
  EXPECT_THAT(out, HasSubstr("kernel"));
}

TEST(BenchCommandTest, CacheDirKeepsObjectCode) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/bench_object_cache";
  // A module of its own: one compiled earlier in this process would come
  // from the in-memory cache without reaching LLVM.
  std::string module = kModule;
  module.replace(module.find("add(ax, y)"), 3, "subtract");
  const std::string path = WriteTemp("q.hlo", module);
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(
        Bench({path, "--backend=cpu", "--kernels=llvm", "--iters=1", "--cache_dir=" + dir}).ok());
  }
  int objects = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".o") ++objects;
  }
  EXPECT_GT(objects, 0);
}

TEST(BenchCommandTest, DumpLlvmDirKeepsEachKernelsIr) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/bench_llvm_dump";
  std::string module = kModule;  // its own, past the in-memory cache
  module.replace(module.find("add(ax, y)"), 3, "maximum");
  ASSERT_TRUE(
      Bench({WriteTemp("d.hlo", module), "--backend=cpu", "--iters=1", "--dump_llvm_dir=" + dir})
          .ok());
  std::string before, after;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 7 && name.substr(name.size() - 7) == ".opt.ll") {
      after = ReadFileToString(entry.path().string()).value_or("");
    } else if (entry.path().extension() == ".ll") {
      before = ReadFileToString(entry.path().string()).value_or("");
    }
  }
  // The kernel before optimization (scalar) and after (vectorized).
  EXPECT_THAT(before, HasSubstr("define void @loop_kernel_"));
  EXPECT_THAT(after, HasSubstr(" x float>"));
}

TEST(BenchCommandTest, DumpLlvmDirThatCannotBeMadeIsAnError) {
  const std::string blocker = WriteTemp("not_a_dir", "x");
  absl::Status status = Bench({WriteTemp("e.hlo", kModule), "--backend=cpu", "--iters=1",
                               "--dump_llvm_dir=" + blocker + "/sub"});
  EXPECT_THAT(status.message(), HasSubstr("cannot create --dump_llvm_dir"));
}

TEST(BenchCommandTest, LlvmPipelineIsKernelOrDefault) {
  std::string module = kModule;  // its own, past the in-memory cache
  module.replace(module.find("add(ax, y)"), 3, "minimum");
  const std::string path = WriteTemp("p.hlo", module);
  for (const char* pipeline : {"kernel", "default"}) {
    absl::Status status =
        Bench({path, "--backend=cpu", "--iters=1", absl::StrCat("--llvm_pipeline=", pipeline)});
    EXPECT_TRUE(status.ok()) << pipeline << ": " << status;
  }
  EXPECT_THAT(Bench({path, "--backend=cpu", "--iters=1", "--llvm_pipeline=O2"}).message(),
              HasSubstr("unknown --llvm_pipeline 'O2' (kernel or default)"));
}

TEST(BenchCommandTest, Errors) {
  const std::string path = WriteTemp("c.hlo", kModule);
  EXPECT_THAT(Bench({path, "--format=xml"}).message(), HasSubstr("--format must be"));
  EXPECT_THAT(Bench({path, "--iters=0"}).message(), HasSubstr("--iters >= 1"));
  EXPECT_THAT(Bench({path, "--backend=tpu"}).message(), HasSubstr("unknown backend 'tpu'"));
  EXPECT_THAT(Bench({}).message(), HasSubstr("expected exactly one MODULE file, got 0"));
}

}  // namespace
}  // namespace tessera
