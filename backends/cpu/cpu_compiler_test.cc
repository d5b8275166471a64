// The CPU backend against the reference evaluator: hand-written modules,
// the JAX corpus (TESSERA_JAX_CORPUS, skipped when unset) and random
// modules.  Results must match bit for bit (NaNs match NaNs): the native
// kernels are exact for elementwise ops, the fallback is the evaluator.
#include "backends/cpu/cpu_compiler.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/cpu_test_util.h"
#include "backends/cpu/onednn_gemm.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/npy.h"
#include "hlo/ir/random_literal.h"
#include "hlo/parser/hlo_parser.h"
#include "hlo/parser/hlo_printer.h"
#include "hlo/testing/random_control_flow_module.h"
#include "hlo/testing/random_module.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {
namespace {

namespace fs = std::filesystem;
using namespace testing;  // NOLINT: the CPU test helpers

// Compiling a program with an f32 dot starts oneDNN's one-time kernel
// generation in the background: no run pays for it.  (The file's first
// test, so that nothing in this process has multiplied before.)
TEST(CpuCompilerTest, CompilingADotWarmsUpOneDnnInTheBackground) {
  const bool warm_before = OneDnnGemmIsWarm();
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule gemm
ENTRY main {
  a = f32[64,32] parameter(0)
  b = f32[32,16] parameter(1)
  ROOT c = f32[64,16] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  ASSERT_TRUE(module.ok()) << module.status();
  CpuCompileOptions options;
  options.use_cache = false;
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(*std::move(module), options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_FALSE(warm_before) << "an earlier test multiplied: this one proves nothing";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!OneDnnGemmIsWarm() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(OneDnnGemmIsWarm());
}

TEST(CpuCompilerTest, ElementwiseChainRunsNatively) {
  Counts counts;
  CheckModule(R"(
HloModule chain
ENTRY main {
  x = f32[1025] parameter(0)
  a = f32[1025] parameter(1)
  b = f32[1025] parameter(2)
  m = f32[1025] multiply(a, x)
  s = f32[1025] add(m, b)
  t = f32[1025] tanh(s)
  ROOT r = f32[1025] multiply(t, a)
}
)",
              {}, &counts);
  EXPECT_GT(counts.native, 0);
  EXPECT_EQ(counts.fallback, 0);
}

// A dot whose consumer converts it to another type is not fused with it
// (no output of the fusion could hold the product): the GEMM, then the
// convert, natively (a bf16 dot converted to f32 ran on the evaluator).
// An epilogue that comes back to the dot's type still fuses.
TEST(CpuCompilerTest, DotsConvertedToAnotherTypeRunNatively) {
  EXPECT_EQ(Fallbacks(R"(
HloModule mixed
ENTRY main {
  a = bf16[64,48] parameter(0)
  b = bf16[48,32] parameter(1)
  d = bf16[64,32] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT f = f32[64,32] convert(d)
}
)"),
            "");
  EXPECT_EQ(Fallbacks(R"(
HloModule round_trip
ENTRY main {
  a = bf16[64,48] parameter(0)
  b = bf16[48,32] parameter(1)
  c = f32[64,32] parameter(2)
  d = bf16[64,32] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  f = f32[64,32] convert(d)
  s = f32[64,32] add(f, c)
  ROOT r = bf16[64,32] convert(s)
}
)"),
            "");
}

// Structurally identical kernels (here three dot epilogues) are compiled
// once and share their code; one that differs (a constant) gets its own.
TEST(CpuCompilerTest, IdenticalKernelsShareTheirCode) {
  constexpr char kChain[] = R"(
HloModule chain
ENTRY main {
  x = f32[64,64] parameter(0)
  w = f32[64,64] parameter(1)
  d1 = f32[64,64] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t1 = f32[64,64] tanh(d1)
  d2 = f32[64,64] dot(t1, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t2 = f32[64,64] tanh(d2)
  d3 = f32[64,64] dot(t2, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  c = f32[] constant(LAST)
  cb = f32[64,64] broadcast(c), dimensions={}
  s = f32[64,64] multiply(d3, cb)
  ROOT t3 = f32[64,64] tanh(s)
}
)";
  // The first two epilogues are tanh(d); the last is tanh(d * c).  With
  // c = 1 the simplifier removes the multiply and all three are the same.
  for (const auto& [last, reused] :
       std::vector<std::pair<std::string, int>>{{"1", 2}, {"0.5", 1}}) {
    SCOPED_TRACE(last);
    const std::string text = absl::StrReplaceAll(kChain, {{"LAST", last}});
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
        CompileForCpu(*std::move(module), CpuCompileOptions{});
    ASSERT_TRUE(executable.ok()) << executable.status();
    EXPECT_EQ((*executable)->stats().reused_kernels, reused);
    EXPECT_EQ((*executable)->stats().fallback_instructions, 0);
    CheckModule(text);
  }
}

// The LLVM IR (before and after optimization) of every module compiled
// for `text` with `options`, by file name, through JitOptions::dump_dir.
std::map<std::string, std::string> CompiledIr(absl::string_view text, CpuCompileOptions options,
                                              absl::string_view name) {
  const std::filesystem::path dir =
      std::filesystem::path(std::getenv("TEST_TMPDIR")) / std::string(name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  options.jit.dump_dir = dir.string();
  // Every kernel through LLVM before the first run (tiered ones would be
  // emitted only at the second).
  options.kernel_tier = CpuCompileOptions::KernelTier::kLlvm;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return {};
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(*std::move(module), options);
  EXPECT_TRUE(executable.ok()) << executable.status();
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    files[entry.path().filename().string()] = ReadAll(entry.path());
  }
  return files;
}

// The IR of every module compiled for `text` with default options, after
// optimization (or before it), joined.
int64_t CountOccurrences(absl::string_view text, absl::string_view pattern) {
  int64_t count = 0;
  for (size_t at = text.find(pattern); at != absl::string_view::npos;
       at = text.find(pattern, at + pattern.size())) {
    ++count;
  }
  return count;
}

std::string JoinedIr(absl::string_view text, absl::string_view name, bool optimized = true) {
  std::string all;
  for (const auto& [file, ir] : CompiledIr(text, {}, name)) {
    if (absl::EndsWith(file, ".opt.ll") == optimized) all += ir;
  }
  return all;
}

// Transposing kernels with long result rows loop over tiles, 4-byte ones
// through the tile routine; short rows do not (transpose_kernels.cc).
TEST(CpuCompilerTest, TransposingKernelsLoopOverTiles) {
  auto ir_of = [](absl::string_view body, absl::string_view name) {
    return JoinedIr(absl::StrCat("HloModule t\nENTRY e {\n", body, "\n}\n"), name);
  };
  const std::string f32 =
      ir_of("x = f32[300,520] parameter(0)\n ROOT t = f32[520,300] transpose(x), dimensions={1,0}",
            "tiles_f32");
  EXPECT_TRUE(absl::StrContains(f32, "call void @tessera_transpose_tile_b32x16(")) << f32;
  // Each tile prefetches the next one's 16 rows: along the minor tiles the
  // rows below, with one minor tile the next piece of the same rows, 8
  // iterations (8 x 64 elements) on.
  // (16 per copy of the tile's code, which loop unswitching may make.)
  EXPECT_EQ(CountOccurrences(f32, "call void @llvm.prefetch") % 16, 0) << f32;
  EXPECT_GE(CountOccurrences(f32, "call void @llvm.prefetch"), 16) << f32;
  const std::string one_minor_tile = ir_of(
      "x = f32[16,1024,64]{2,1,0} parameter(0)\n"
      " ROOT c = f32[16,1024,64]{0,1,2} copy(x)",
      "one_minor_tile");
  EXPECT_EQ(CountOccurrences(one_minor_tile, "call void @llvm.prefetch") % 16, 0) << one_minor_tile;
  EXPECT_GE(CountOccurrences(one_minor_tile, "call void @llvm.prefetch"), 16) << one_minor_tile;
  EXPECT_TRUE(absl::StrContains(one_minor_tile, "i64 2048\n")) << one_minor_tile;
  EXPECT_FALSE(absl::StrContains(f32, "scatter")) << f32;
  const std::string s8 =
      ir_of("x = s8[520,300] parameter(0)\n ROOT t = s8[300,520] transpose(x), dimensions={1,0}",
            "tiles_s8");
  EXPECT_TRUE(absl::StrContains(s8, "across.tile")) << s8;
  EXPECT_FALSE(absl::StrContains(s8, "tessera_transpose_tile")) << s8;
  // JAX's ravel of a transpose: a bitcast to the transposed layout under a
  // root reshape.
  const std::string ravel = ir_of(
      "x = f32[300,300]{1,0} parameter(0)\n b = f32[300,300]{0,1} bitcast(x)\n"
      " ROOT r = f32[90000]{0} reshape(b)",
      "tiles_ravel");
  EXPECT_TRUE(absl::StrContains(ravel, "call void @tessera_transpose_tile_b32x16(")) << ravel;
  const std::string short_rows =
      ir_of("x = f32[64,48] parameter(0)\n ROOT t = f32[48,64] transpose(x), dimensions={1,0}",
            "short_rows");
  EXPECT_FALSE(absl::StrContains(short_rows, "across.tile")) << short_rows;
  // Short rows with a dimension between the two swapped ones: the rows that
  // read a line again come a whole middle dimension later, so tiles.
  const std::string reversed = ir_of(
      "x = f32[16,1024,64] parameter(0)\n ROOT t = f32[64,1024,16] transpose(x), "
      "dimensions={2,1,0}",
      "reversed");
  EXPECT_TRUE(absl::StrContains(reversed, "call void @tessera_transpose_tile_b32x16(")) << reversed;
}

// A concatenate along the minor dimension is one loop per operand, each a
// contiguous copy: no gathers, no select per element.
TEST(CpuCompilerTest, ConcatenatingKernelsLoopPerOperand) {
  const std::string all = JoinedIr(R"(
HloModule concat
ENTRY e {
  x = f32[64,1000] parameter(0)
  y = f32[64,1000] parameter(1)
  ROOT c = f32[64,2000] concatenate(x, y), dimensions={1}
}
)",
                                   "concat");
  EXPECT_TRUE(absl::StrContains(all, "d1.part1")) << all;
  EXPECT_FALSE(absl::StrContains(all, "gather")) << all;
  EXPECT_FALSE(absl::StrContains(all, "select <")) << all;
}

// So is a pad along it: the padding, then the operand read contiguously
// (the pad of the rows above and below is the same loops' select).
TEST(CpuCompilerTest, PaddingKernelsLoopPerSegment) {
  const std::string all = JoinedIr(R"(
HloModule pad
ENTRY e {
  x = f32[64,1000] parameter(0)
  z = f32[] constant(0)
  ROOT p = f32[70,1010] pad(x, z), padding=3_3x5_5
}
)",
                                   "pad");
  EXPECT_TRUE(absl::StrContains(all, "d1.part2")) << all;
  EXPECT_FALSE(absl::StrContains(all, "gather")) << all;
}

// A slice with a stride along the rows reads whole vectors and shuffles
// them: no gathers (the row's start and the element in it are two
// addresses, loop_emitter.cc; rows of a power of two's length are where
// one address did not do).
TEST(CpuCompilerTest, StridedSlicesReadWholeVectors) {
  for (const char* limit_and_stride : {"2000:2", "3000:3"}) {
    const std::string all = JoinedIr(absl::StrCat(R"(
HloModule strided
ENTRY e {
  x = f32[64,4096] parameter(0)
  ROOT s = f32[32,1000] slice(x), slice={[1:64:2], [1:)",
                                                  limit_and_stride, "]}\n}\n"),
                                     "strided");
    EXPECT_FALSE(absl::StrContains(all, "gather")) << all;
    EXPECT_TRUE(absl::StrContains(all, "shufflevector")) << all;
  }
}

// A prefix or suffix scan keeps a running accumulator: no loop over a
// window per element (read in the IR before optimization, whose names are the
// emitter's).
TEST(CpuCompilerTest, ScanningKernelsKeepARunningValue) {
  // A cumsum along rows, padded low (a prefix scan) or high (a suffix scan:
  // lax.cumsum with reverse=True).
  auto cumsum_ir = [](absl::string_view padding, absl::string_view name) {
    return JoinedIr(absl::StrCat("HloModule ", name, R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[64,1000] parameter(0)
  z = f32[] constant(0)
  ROOT c = f32[64,1000] reduce-window(x, z), window={size=1x1000 pad=0_0x)",
                                 padding, "}, to_apply=add\n}\n"),
                    name, /*optimized=*/false);
  };
  const std::string prefix = cumsum_ir("999_0", "cumsum");
  EXPECT_TRUE(absl::StrContains(prefix, "c.accumulators")) << prefix;
  EXPECT_FALSE(absl::StrContains(prefix, ".w1")) << prefix;  // the window loop
  const std::string suffix = cumsum_ir("0_999", "rcumsum");
  EXPECT_TRUE(absl::StrContains(suffix, "c.accumulators")) << suffix;
  EXPECT_TRUE(absl::StrContains(suffix, "%reversed")) << suffix;  // its loop runs from the end
  EXPECT_FALSE(absl::StrContains(suffix, ".w1")) << suffix;
}

// The loop shapes that keep compile time down (loop_kernel.cc): a rank-1
// polynomial kernel split over threads runs whole blocks plus one scalar
// leftover loop, so the vectorizer makes no vector epilogue; an
// elementwise polynomial loop is interleaved, a GEMM's epilogue is not.
TEST(CpuCompilerTest, KernelLoopShapes) {
  CpuCompileOptions split;
  split.parallel_min_elements = 0;
  split.streaming_store_bytes = int64_t{1} << 40;
  const std::map<std::string, std::string> blocked = CompiledIr(R"(
HloModule blocked
ENTRY e {
  x = f32[4099] parameter(0)
  ROOT t = f32[4099] tanh(x)
}
)",
                                                                split, "blocked");
  ASSERT_EQ(blocked.size(), 2u);  // NAME.ll and NAME.opt.ll
  for (const auto& [file, ir] : blocked) {
    SCOPED_TRACE(file);
    if (absl::EndsWith(file, ".opt.ll")) {
      // Vectorized 4 registers wide, as one call of the math routine; the
      // leftovers call the scalar one.
      EXPECT_TRUE(absl::StrContains(ir, "call <64 x float> @tessera_math_tanh_f32x64(")) << ir;
      EXPECT_TRUE(absl::StrContains(ir, "call float @tessera_math_tanh_f32(")) << ir;
      EXPECT_FALSE(absl::StrContains(ir, "vec.epilog"));
    } else {
      EXPECT_TRUE(absl::StrContains(ir, "d0.leftover"));
      EXPECT_TRUE(absl::StrContains(ir, "d0.block"));
      EXPECT_TRUE(absl::StrContains(ir, "!\"llvm.loop.vectorize.width\", i32 64}")) << ir;
      EXPECT_TRUE(absl::StrContains(ir, "!\"llvm.loop.interleave.count\", i32 1}")) << ir;
    }
  }
  // Streamed: the 4-register stores are non-temporal.
  CpuCompileOptions streamed = split;
  streamed.streaming_store_bytes = 0;
  const std::map<std::string, std::string> streamed_ir = CompiledIr(R"(
HloModule streamed
ENTRY e {
  x = f32[4099] parameter(0)
  ROOT t = f32[4099] tanh(x)
}
)",
                                                                    streamed, "streamed");
  for (const auto& [file, ir] : streamed_ir) {
    if (!absl::EndsWith(file, ".opt.ll")) continue;
    const size_t store = ir.find("store <64 x float>");
    ASSERT_NE(store, std::string::npos) << ir;
    EXPECT_TRUE(absl::StrContains(ir.substr(store, ir.find('\n', store) - store), "!nontemporal"))
        << ir;
  }
  // A row sum of `values` (HLO instructions over x = f32[64,1024] ending in
  // e = f32[64,1024]).
  auto row_sum_ir = [](absl::string_view name, absl::string_view values) {
    return CompiledIr(absl::StrCat("HloModule ", name, R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[64,1024] parameter(0)
)",
                                   values, R"(
  z = f32[] constant(0)
  ROOT r = f32[64] reduce(e, z), dimensions={1}, to_apply=add
}
)"),
                      CpuCompileOptions{}, name);
  };
  // A reduction inlines its polynomial (its accumulators would be spilled
  // around calls), interleaved.
  const std::map<std::string, std::string> row =
      row_sum_ir("row", "e = f32[64,1024] exponential(x)");
  ASSERT_FALSE(row.empty());
  for (const auto& [file, ir] : row) {
    SCOPED_TRACE(file);
    EXPECT_FALSE(absl::StrContains(ir, "tessera_math_")) << ir;
  }
  // But tanh on AVX-512, whose coefficients are picked from a table by
  // vpermps in its routine (inlined, the vectorizer would make gathers of
  // its loads), calls the routine; exp stays inlined.
  const std::map<std::string, std::string> row_tanh =
      row_sum_ir("row_tanh", "t = f32[64,1024] tanh(x)\n  e = f32[64,1024] exponential(t)");
  ASSERT_FALSE(row_tanh.empty());
  for (const auto& [file, ir] : row_tanh) {
    SCOPED_TRACE(file);
    if (!absl::EndsWith(file, ".opt.ll")) continue;
    const bool avx512 = absl::StrContains(ir, "\"tessera.avx512\"");
    EXPECT_EQ(absl::StrContains(ir, "call <16 x float> @tessera_math_tanh_f32x16("), avx512) << ir;
    EXPECT_FALSE(absl::StrContains(ir, "tessera_math_exp")) << ir;
    EXPECT_FALSE(absl::StrContains(ir, "llvm.masked.gather")) << ir;
  }
  const std::map<std::string, std::string> epilogue = CompiledIr(R"(
HloModule epilogue
ENTRY e {
  x = f32[64,64] parameter(0)
  w = f32[64,64] parameter(1)
  d = f32[64,64] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = f32[64,64] tanh(d)
}
)",
                                                                 CpuCompileOptions{}, "epilogue");
  ASSERT_EQ(epilogue.size(), 2u);
  for (const auto& [file, ir] : epilogue) {
    if (absl::EndsWith(file, ".opt.ll")) continue;
    EXPECT_TRUE(absl::StrContains(ir, "tanh") || absl::StrContains(ir, "fdiv")) << ir;
    EXPECT_FALSE(absl::StrContains(ir, "llvm.loop.interleave.count")) << file;
  }
}

// Every kernel split over the thread pool (threshold 0), on sizes that are
// not multiples of the partition count, including 1 and 0 rows.
TEST(CpuCompilerTest, ParallelKernelsOnOddSizes) {
  CpuCompileOptions options;
  options.parallel_min_elements = 0;
  for (absl::string_view dims : {"1", "7", "1023", "1025", "100003", "0", "257,1031", "3,5,7",
                                 "1,9", "0,4"}) {
    SCOPED_TRACE(dims);
    const std::string text = absl::StrFormat(R"(
HloModule odd
ENTRY e {
  x = f32[%s] parameter(0)
  y = f32[%s] parameter(1)
  m = f32[%s] multiply(x, y)
  s = f32[%s] subtract(m, x)
  t = f32[%s] negate(s)
  ROOT r = f32[%s] add(t, y)
})", dims, dims, dims, dims, dims, dims);
    CheckModule(text, {}, nullptr, options);
  }
  // The kernels are split: "in N partitions" where there are cores.
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule split
ENTRY e {
  x = f32[257,1031] parameter(0)
  ROOT t = f32[257,1031] tanh(x)
})");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<HloExecutable>> executable =
      CompileForCpuExecutable(*std::move(module), options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  if (runtime::ThreadPool::Default().parallelism() > 1) {
    EXPECT_TRUE(absl::StrContains((*executable)->ToString(), "work 257 in")) << (*executable)->ToString();
  }
}

// Polynomial math off: transcendental kernels are bit-exact again.
TEST(CpuCompilerTest, LibmTranscendentalsAreExact) {
  CpuCompileOptions options;
  options.polynomial_math = false;
  CheckModule(R"(
HloModule libm
ENTRY e {
  x = f32[1025] parameter(0)
  t = f32[1025] tanh(x)
  e = f32[1025] exponential(t)
  l = f32[1025] logistic(x)
  ROOT r = f32[1025] add(e, l)
})", {}, nullptr, options);
}

// The steady state reuses the run's memory: the elementwise chain's result
// is an output allocation (written in the caller's buffer, no copy) and
// the plan's temps fit one arena.
TEST(CpuCompilerTest, SteadyStateWritesResultsInPlace) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule chain
ENTRY e {
  x = f32[4096] parameter(0)
  a = f32[4096] parameter(1)
  m = f32[4096] multiply(a, x)
  ROOT t = f32[4096] tanh(m)
})");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<HloExecutable>> executable =
      CompileForCpuExecutable(*std::move(module));
  ASSERT_TRUE(executable.ok()) << executable.status();
  const runtime::Executable& runtime_executable = (*executable)->executable();
  ASSERT_EQ(runtime_executable.result_count(), 1);
  const runtime::BufferSlice& slice = runtime_executable.result_slices()[0];
  EXPECT_EQ(runtime_executable.plan().allocation(slice.allocation).kind,
            runtime::Allocation::Kind::kOutput)
      << runtime_executable.ToString();
  EXPECT_EQ(runtime_executable.thunks().size(), 1) << runtime_executable.ToString();
}

TEST(CpuCompilerTest, BroadcastsAndShapeOpsRunNatively) {
  Counts counts;
  CheckModule(R"(
HloModule broadcasts
ENTRY main {
  x = f32[7,33] parameter(0)
  b = f32[33] parameter(1)
  bb = f32[7,33] broadcast(b), dimensions={1}
  s = f32[7,33] add(x, bb)
  t = f32[33,7] transpose(s), dimensions={1,0}
  e = f32[33,7] exponential(t)
  i = s32[33,7] iota(), iota_dimension=0
  c = f32[33,7] convert(i)
  ROOT r = f32[33,7] subtract(e, c)
}
)",
              {}, &counts, LibmMath());
  EXPECT_GT(counts.native, 0);
  EXPECT_EQ(counts.fallback, 0);
}

TEST(CpuCompilerTest, IntegerOps) {
  Counts counts;
  CheckModule(R"(
HloModule ints
ENTRY main {
  x = s32[1023] parameter(0)
  y = s32[1023] parameter(1)
  a = s32[1023] and(x, y)
  m = s32[1023] maximum(a, y)
  c = pred[1023] compare(m, x), direction=GT
  ROOT r = s32[1023] select(c, x, m)
}
)",
              {}, &counts);
  EXPECT_GT(counts.native, 0);
  EXPECT_EQ(counts.fallback, 0);
}

TEST(CpuCompilerTest, MultiOutputLoopFusionRunsNatively) {
  Counts counts;
  CheckModule(R"(
HloModule two_outputs
fused {
  p0 = f32[257] parameter(0)
  p1 = f32[257] parameter(1)
  s = f32[257] add(p0, p1)
  e = f32[257] exponential(s)
  n = f32[257] negate(s)
  ROOT t = (f32[257], f32[257]) tuple(e, n)
}
ENTRY main {
  x = f32[257] parameter(0)
  y = f32[257] parameter(1)
  ROOT f = (f32[257], f32[257]) fusion(x, y), kind=kLoop, calls=fused
}
)",
              {}, &counts);
  EXPECT_EQ(counts.native, 1);
  EXPECT_EQ(counts.fallback, 0);
}


// Row reductions (kInput fusions with their producers and epilogue) as
// kernels, bit-exact with the evaluator (same order of the f32 sums).
TEST(CpuCompilerTest, ReductionsRunNatively) {
  const std::string softmax = R"(
HloModule softmax
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY main {
  x = f32[300,100] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[300] reduce(x, ninf), dimensions={1}, to_apply=max
  mb = f32[300,100] broadcast(m), dimensions={0}
  d = f32[300,100] subtract(x, mb)
  e = f32[300,100] exponential(d)
  z = f32[] constant(0)
  s = f32[300] reduce(e, z), dimensions={1}, to_apply=add
  sb = f32[300,100] broadcast(s), dimensions={0}
  ROOT r = f32[300,100] divide(e, sb)
}
)";
  Counts counts;
  CheckModule(softmax, {}, &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(softmax, LibmMath());
  CpuCompileOptions parallel = LibmMath();
  parallel.parallel_min_elements = 0;
  CheckModule(softmax, {}, &counts, parallel);

  // Several reduced dimensions (row-major order), a column reduction, a
  // full reduction, s32 products and a min, unfused and with an epilogue.
  const std::string others = R"(
HloModule reductions
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
mul {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT p = s32[] multiply(a, b)
}
min {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] minimum(a, b)
}
ENTRY main {
  x = f32[7,9,33] parameter(0)
  z = f32[] constant(0)
  rows = f32[7] reduce(x, z), dimensions={1,2}, to_apply=add
  cols = f32[7,33] reduce(x, z), dimensions={1}, to_apply=add
  all = f32[] reduce(x, z), dimensions={0,1,2}, to_apply=add
  half = f32[] constant(0.5)
  hb = f32[7] broadcast(half), dimensions={}
  scaled = f32[7] multiply(rows, hb)
  i = s32[5,6] parameter(1)
  one = s32[] constant(1)
  prod = s32[5] reduce(i, one), dimensions={1}, to_apply=mul
  big = f32[] constant(1e30)
  mins = f32[7,9] reduce(x, big), dimensions={2}, to_apply=min
  ROOT r = (f32[7], f32[7,33], f32[], s32[5], f32[7,9]) tuple(scaled, cols, all, prod, mins)
}
)";
  CheckModule(others, {}, &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(others, LibmMath());
}

TEST(CpuCompilerTest, DotWithEpilogueRunsNatively) {
  Counts counts;
  CheckModule(R"(
HloModule dot
ENTRY main {
  x = f32[16,32] parameter(0)
  w = f32[32,8] parameter(1)
  b = f32[8] parameter(2)
  d = f32[16,8] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[16,8] broadcast(b), dimensions={1}
  s = f32[16,8] add(d, bb)
  zero = f32[] constant(0)
  z = f32[16,8] broadcast(zero), dimensions={}
  ROOT r = f32[16,8] maximum(s, z)
}
)",
              {}, &counts);
  EXPECT_EQ(counts.fallback, 0);  // the dot, with its epilogue fused (kOutput)
  EXPECT_GT(counts.native, 0);
  CpuCompileOptions evaluator_dots;
  evaluator_dots.native_dots = false;
  CheckModule(R"(
HloModule dot
ENTRY main {
  x = f32[16,32] parameter(0)
  w = f32[32,8] parameter(1)
  ROOT d = f32[16,8] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)",
              {}, &counts, evaluator_dots);
  EXPECT_GT(counts.fallback, 0);
}

// A layer whose pre-activation and activation both stay live (the MLP
// training step's forward layer: a multi-output kOutput fusion), and a
// backward epilogue reading an operand of the result's shape (which must
// not share the result's buffer: the GEMM writes it first).
TEST(CpuCompilerTest, MultiOutputDotFusionRunsNatively) {
  Counts counts;
  CheckModule(R"(
HloModule layer
ENTRY main {
  x = f32[33,40] parameter(0)
  w = f32[40,24] parameter(1)
  b = f32[24] parameter(2)
  g = f32[33,7] parameter(3)
  w2 = f32[24,7] parameter(4)
  d = f32[33,24] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[33,24] broadcast(b), dimensions={1}
  pre = f32[33,24] add(d, bb)
  zero = f32[] constant(0)
  z = f32[33,24] broadcast(zero), dimensions={}
  act = f32[33,24] maximum(pre, z)
  back = f32[33,24] dot(g, w2), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  positive = pred[33,24] compare(pre, z), direction=GT
  grad = f32[33,24] select(positive, back, z)
  ROOT t = (f32[33,24], f32[33,24], f32[33,24]) tuple(pre, act, grad)
}
)",
              {}, &counts);
  EXPECT_EQ(counts.fallback, 0);
  EXPECT_GT(counts.native, 0);
}

// An SGD weight update as JAX writes it: w - lr * (g^T x)^T, the
// transpose a {0,1} bitcast of the dot.  The simplifier commutes the dot
// (transpose-of-dot) and the fused dot is stored in the output's layout,
// its epilogue applied per row panel: no transposed pass, no fallback.
TEST(CpuCompilerTest, WeightUpdateDotIsStoredInTheOutputLayout) {
  Counts counts;
  const std::string text = R"(
HloModule sgd
ENTRY main {
  g = f32[64,96] parameter(0)
  x = f32[64,48] parameter(1)
  w = f32[48,96] parameter(2)
  d = f32[96,48] dot(g, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  t = f32[48,96]{0,1} transpose(d), dimensions={1,0}
  lr = f32[] constant(0.01)
  lb = f32[48,96] broadcast(lr), dimensions={}
  m = f32[48,96] multiply(t, lb)
  ROOT r = f32[48,96] subtract(w, m)
}
)";
  CheckModule(text, {}, &counts);
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text);
}

// The benchmark's gemm_bias_gelu at a test size: one kOutput fusion.
TEST(CpuCompilerTest, GemmBiasGeluRunsNatively) {
  Counts counts;
  CheckModule(R"(
HloModule jit_gemm_bias_gelu
ENTRY main.1 {
  a.1 = f32[96,256]{1,0} parameter(0)
  w.1 = f32[256,80]{1,0} parameter(1)
  dot_general.1 = f32[96,80]{1,0} dot(a.1, w.1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bias.1 = f32[80]{0} parameter(2)
  broadcast_in_dim.1 = f32[1,80]{1,0} reshape(bias.1)
  add.8 = f32[1,80]{1,0} broadcast(broadcast_in_dim.1), dimensions={0,1}
  add.9 = f32[80]{0} reshape(add.8)
  add.10 = f32[96,80]{1,0} broadcast(add.9), dimensions={1}
  add.11 = f32[96,80]{1,0} add(dot_general.1, add.10)
  integer_pow.2 = f32[96,80]{1,0} multiply(add.11, add.11)
  integer_pow.3 = f32[96,80]{1,0} multiply(integer_pow.2, add.11)
  constant.7 = f32[] constant(0.044715)
  mul.9 = f32[96,80]{1,0} broadcast(constant.7), dimensions={}
  mul.10 = f32[96,80]{1,0} multiply(integer_pow.3, mul.9)
  add.12 = f32[96,80]{1,0} add(add.11, mul.10)
  constant.6 = f32[] constant(0.797884583)
  mul.8 = f32[96,80]{1,0} broadcast(constant.6), dimensions={}
  mul.11 = f32[96,80]{1,0} multiply(add.12, mul.8)
  tanh.1 = f32[96,80]{1,0} tanh(mul.11)
  constant.5 = f32[] constant(1)
  add.7 = f32[96,80]{1,0} broadcast(constant.5), dimensions={}
  add.13 = f32[96,80]{1,0} add(tanh.1, add.7)
  constant.4 = f32[] constant(0.5)
  mul.7 = f32[96,80]{1,0} broadcast(constant.4), dimensions={}
  mul.12 = f32[96,80]{1,0} multiply(add.13, mul.7)
  ROOT mul.13 = f32[96,80]{1,0} multiply(add.11, mul.12)
}
)",
              {}, &counts);
  EXPECT_EQ(counts.fallback, 0);
}

// Unfused dots (batched, transposed operands, s32, a column-major result)
// through RunDot; a dot feeding a reduce stays unfused.
TEST(CpuCompilerTest, DotsRunNatively) {
  Counts counts;
  CheckModule(R"(
HloModule dots
ENTRY main {
  x = f32[3,40,24] parameter(0)
  y = f32[3,33,24] parameter(1)
  d = f32[3,40,33] dot(x, y), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}
  t = f32[24,40]{0,1} parameter(2)
  u = f32[24,17] parameter(3)
  e = f32[40,17]{0,1} dot(t, u), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  i = s32[20,30] parameter(4)
  j = s32[30,10] parameter(5)
  k = s32[20,10] dot(i, j), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = (f32[3,40,33], f32[40,17]{0,1}, s32[20,10]) tuple(d, e, k)
}
)",
              {}, &counts);
  EXPECT_EQ(counts.fallback, 0);
  EXPECT_EQ(counts.native, 3);
}

TEST(CpuCompilerTest, ConvolutionsRunNatively) {
  Counts counts;
  CheckModule(R"(
HloModule convs
ENTRY main {
  x = f32[2,12,12,8] parameter(0)
  k = f32[3,3,8,16] parameter(1)
  c = f32[2,6,6,16] convolution(x, k), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  y = f32[2,8,10,10] parameter(2)
  w = f32[4,8,3,3] parameter(3)
  d = f32[2,4,8,10]{1,3,2,0} convolution(y, w), window={size=3x3 pad=0_2x1_1 rhs_dilate=2x1}, dim_labels=bf01_oi01->bf01
  g = f32[2,8,8,4] parameter(4)
  h = f32[3,3,2,4] parameter(5)
  e = f32[2,6,6,4] convolution(g, h), window={size=3x3}, dim_labels=b01f_01io->b01f, feature_group_count=2
  ROOT r = (f32[2,6,6,16], f32[2,4,8,10]{1,3,2,0}, f32[2,6,6,4]) tuple(c, d, e)
}
)",
              {}, &counts);
  EXPECT_EQ(counts.native, 3);  // the grouped one too
  EXPECT_EQ(counts.fallback, 0);
}

// A convolution with its epilogue (bias and relu, as a kOutput fusion),
// with the pre-activation kept too (multi-output), as a CNN's forward
// layer: the convolution thunk writes the output, the epilogue runs after.
TEST(CpuCompilerTest, ConvolutionWithEpilogueRunsNatively) {
  Counts counts;
  const std::string text = R"(
HloModule conv_layer
ENTRY main {
  x = f32[2,12,12,8] parameter(0)
  k = f32[3,3,8,16] parameter(1)
  b = f32[16] parameter(2)
  c = f32[2,12,12,16] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  bb = f32[2,12,12,16] broadcast(b), dimensions={3}
  pre = f32[2,12,12,16] add(c, bb)
  zero = f32[] constant(0)
  z = f32[2,12,12,16] broadcast(zero), dimensions={}
  act = f32[2,12,12,16] maximum(pre, z)
  ROOT t = (f32[2,12,12,16], f32[2,12,12,16]) tuple(pre, act)
}
)";
  CheckModule(text, {}, &counts);
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text);

  // With the activation the only output, of a batch of 3 (chunks of 1 and
  // 2 on 2 threads): oneDNN's convolution runs the epilogue per chunk.
  const std::string single = absl::StrReplaceAll(
      text, {{"  ROOT t = (f32[2,12,12,16], f32[2,12,12,16]) tuple(pre, act)\n", ""},
             {"f32[2,", "f32[3,"},
             {"  act = ", "  ROOT act = "}});
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(single);
  ASSERT_TRUE(module.ok()) << module.status() << single;
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(*std::move(module), CpuCompileOptions{});
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_TRUE(absl::StrContains((*executable)->ToString(), "with its epilogue per batch chunk"))
      << (*executable)->ToString();
  CheckModule(single, {}, &counts);
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(single);
}

TEST(CpuCompilerTest, WhileLoop) {
  Counts counts;
  CheckModule(R"(
HloModule loop
cond {
  p = (s32[], f32[10]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(7)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[10]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[10] get-tuple-element(p), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  w = f32[10] multiply(v, v)
  half = f32[] constant(0.5)
  h = f32[10] broadcast(half), dimensions={}
  u = f32[10] add(w, h)
  ROOT t = (s32[], f32[10]) tuple(j, u)
}
ENTRY main {
  x = f32[10] parameter(0)
  y = f32[10] sine(x)
  zero = s32[] constant(0)
  init = (s32[], f32[10]) tuple(zero, y)
  l = (s32[], f32[10]) while(init), condition=cond, body=body
  r = f32[10] get-tuple-element(l), index=1
  ROOT out = (f32[10], f32[10]) tuple(r, y)
}
)",
              {}, &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0);  // the loop runs over the arena, its body natively
  EXPECT_GT(counts.native, 0);
}

TEST(CpuCompilerTest, TupleParameterAndLayouts) {
  CheckModule(R"(
HloModule layouts
ENTRY main {
  p = (f32[5,6]{0,1}, f32[6,5]) parameter(0)
  a = f32[5,6]{0,1} get-tuple-element(p), index=0
  b = f32[6,5] get-tuple-element(p), index=1
  t = f32[5,6]{0,1} transpose(b), dimensions={1,0}
  ROOT s = f32[5,6]{1,0} add(a, t)
}
)");
}

TEST(CpuCompilerTest, EvaluatorOnlyMatchesToo) {
  CpuCompileOptions options;
  options.native_kernels = false;
  Counts counts;
  CheckModule(R"(
HloModule chain
ENTRY main {
  x = f32[100] parameter(0)
  y = f32[100] parameter(1)
  ROOT r = f32[100] add(x, y)
}
)",
              {}, &counts, options);
  EXPECT_EQ(counts.native, 0);
  EXPECT_GT(counts.fallback, 0);
}

// An instruction on the evaluator (here every one: native kernels off)
// stops once the run is cancelled, between the instructions the evaluator
// runs for it: a reduction of 2^24 elements calls its reducer that often.
// Left uncancelled, the same run gives the sum.
TEST(CpuCompilerTest, CancelledRunsStopInsideEvaluatorFallbacks) {
  // The sum of n ones, every instruction on the evaluator.
  auto compile = [](int64_t n) {
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModule(absl::StrCat(R"(
HloModule long_reduce
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[)",
                                    n, R"(] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(x, zero), dimensions={0}, to_apply=add
}
)"));
    EXPECT_TRUE(module.ok()) << module.status();
    CpuCompileOptions options;
    options.native_kernels = false;
    return CompileForCpuExecutable(*std::move(module), options);
  };
  auto ones = [](int64_t n) {
    Literal x(Shape::MakeArray(F32, {n}));
    for (float& value : x.data<float>()) value = 1;
    return x;
  };
  std::atomic<bool> cancelled{false};
  runtime::RunOptions run_options;
  run_options.cancelled = &cancelled;
  {
    constexpr int64_t n = int64_t{1} << 24;  // about 45 s uncancelled (fastbuild)
    absl::StatusOr<std::unique_ptr<HloExecutable>> executable = compile(n);
    ASSERT_TRUE(executable.ok()) << executable.status();
    std::thread canceller([&] {
      // Once the reduction runs (after the arguments' conversion).
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      cancelled = true;
    });
    absl::StatusOr<Literal> result = (*executable)->RunLiterals({ones(n)}, run_options);
    canceller.join();
    EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled) << result.status();
    // Inside the evaluation ("... evaluator fallback for %reduce_fusion:
    // ... the evaluation was cancelled before %a"), not between thunks.
    EXPECT_TRUE(absl::StrContains(result.status().message(), "evaluation was cancelled"))
        << result.status();
  }
  cancelled = false;
  absl::StatusOr<std::unique_ptr<HloExecutable>> executable = compile(1000);
  ASSERT_TRUE(executable.ok()) << executable.status();
  absl::StatusOr<Literal> result = (*executable)->RunLiterals({ones(1000)}, run_options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->data<float>()[0], 1000.0f);
}

TEST(CpuCompilerTest, ArgumentErrorsNameTheParameter) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule m
ENTRY main {
  x = f32[3] parameter(0)
  y = f32[3] parameter(1)
  ROOT r = f32[3] add(x, y)
}
)");
  ASSERT_TRUE(module.ok());
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable = CompileForCpu(*std::move(module));
  ASSERT_TRUE(executable.ok()) << executable.status();
  Literal x = Literal::CreateR1<float>({1, 2, 3});
  Literal y = Literal::CreateR1<float>({1, 2, 3, 4});
  absl::StatusOr<Literal> result = (*executable)->Run({x, y});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("parameter 1 (y)"), std::string::npos)
      << result.status();
  result = (*executable)->Run({x});
  ASSERT_FALSE(result.ok());
  Literal good = Literal::CreateR1<float>({4, 5, 6});
  result = (*executable)->Run({x, good});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->data<float>()[2], 9.0f);
}

TEST(CpuCompilerTest, BadModuleIsAnError) {
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable = CompileForCpu(nullptr);
  EXPECT_FALSE(executable.ok());
}


// XLA's own HLO texts (TESSERA_SHARED_CORPUS): each runs natively on the
// CPU backend, on seeded random inputs, matching the evaluator (bit for
// bit with exact math and evaluator-ordered sums; within float tolerance
// with the defaults).
TEST(CpuCompilerTest, SharedCorpus) {
  const char* root = std::getenv("TESSERA_SHARED_CORPUS");
  if (root == nullptr || !fs::is_directory(root)) GTEST_SKIP() << "TESSERA_SHARED_CORPUS is not set";
  int checked = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".hlo") continue;
    SCOPED_TRACE(entry.path().string());
    const std::string text = ReadAll(entry.path());
    absl::StatusOr<std::unique_ptr<HloModule>> reference = ParseHloModule(text);
    ASSERT_TRUE(reference.ok()) << reference.status();
    std::vector<Literal> arguments = RandomArguments(**reference, 11);
    Counts counts;
    CpuCompileOptions exact = LibmMath();
    exact.native_dots = false;
    CheckModule(text, Clone(arguments), &counts, exact);
    CheckModule(text, Clone(arguments), &counts);
    EXPECT_EQ(counts.fallback, 0) << Fallbacks(text);
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

TEST(CpuCompilerTest, JaxCorpus) {
  const char* root = std::getenv("TESSERA_JAX_CORPUS");
  if (root == nullptr || !fs::exists(fs::path(root) / "INDEX")) {
    GTEST_SKIP() << "TESSERA_JAX_CORPUS is not set";
  }
  const fs::path dir(root);
  std::ifstream index(dir / "INDEX");
  std::string name;
  int inputs = 0, outputs = 0;
  double tolerance = 0;
  int checked = 0;
  int64_t native = 0, fallback = 0;
  std::cout << absl::StrFormat("%-18s %7s %9s %10s %s\n", "program", "native", "fallback",
                               "compile_ms", "fallbacks");
  while (index >> name >> inputs >> outputs >> tolerance) {
    SCOPED_TRACE(name);
    const std::string text = ReadAll(dir / name / "module.hlo");
    absl::StatusOr<std::unique_ptr<HloModule>> reference = ParseHloModule(text);
    ASSERT_TRUE(reference.ok()) << reference.status();
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    const HloComputation& entry = *(*reference)->entry_computation();
    std::vector<Literal> arguments;
    for (int i = 0; i < inputs; ++i) {
      absl::StatusOr<Literal> input =
          ReadNpyFileAs((dir / name / absl::StrCat("in", i, ".npy")).string(),
                        entry.parameter_instruction(i)->shape().element_type());
      ASSERT_TRUE(input.ok()) << input.status();
      arguments.push_back(*std::move(input));
    }
    absl::StatusOr<Literal> expected = EvaluateModule(**reference, arguments);
    ASSERT_TRUE(expected.ok()) << expected.status();
    CpuCompileOptions exact;
    exact.polynomial_math = false;  // bit-exact against the evaluator
    exact.reorder_float_reductions = false;
    exact.native_dots = false;
    absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
        CompileForCpu(*std::move(module), exact);
    ASSERT_TRUE(executable.ok()) << executable.status();
    for (int run = 0; run < 2; ++run) {
      absl::StatusOr<Literal> actual = (*executable)->Run(arguments);
      ASSERT_TRUE(actual.ok()) << actual.status();
      std::string why;
      EXPECT_TRUE(SameResults(*expected, *actual, &why)) << why;
    }
    // As `tessera run --backend=cpu` compiles it (native dots, polynomial
    // math, vectorized reductions; the runtime::Executable path): every
    // instruction native, results within float tolerance.
    absl::StatusOr<std::unique_ptr<HloModule>> fast_module = ParseHloModule(text);
    ASSERT_TRUE(fast_module.ok()) << fast_module.status();
    absl::StatusOr<std::unique_ptr<CpuExecutable>> fast =
        CompileForCpu(*std::move(fast_module), CpuCompileOptions{});
    ASSERT_TRUE(fast.ok()) << fast.status();
    absl::StatusOr<std::unique_ptr<HloModule>> runtime_module = ParseHloModule(text);
    ASSERT_TRUE(runtime_module.ok()) << runtime_module.status();
    absl::StatusOr<std::unique_ptr<HloExecutable>> runtime_executable =
        CompileForCpuExecutable(*std::move(runtime_module));
    ASSERT_TRUE(runtime_executable.ok()) << runtime_executable.status();
    absl::StatusOr<Literal> fast_result = (*runtime_executable)->RunLiterals(arguments);
    ASSERT_TRUE(fast_result.ok()) << fast_result.status();
    std::string why;
    EXPECT_TRUE(SameResults(*expected, *fast_result, &why, /*ulps=*/4, /*rtol=*/1e-4)) << why;
    const CpuExecutableStats& stats = (*fast)->stats();
    std::string kinds;
    for (const std::string& f : stats.fallbacks) {
      absl::StrAppend(&kinds, f.substr(0, f.find(' ')), " ");
      if (std::getenv("TESSERA_CPU_TEST_VERBOSE") != nullptr) std::cout << "  " << f << "\n";
    }
    EXPECT_EQ(stats.fallback_instructions, 0) << absl::StrJoin(stats.fallbacks, "\n");
    std::cout << absl::StrFormat("%-18s %7d %9d %10.1f %s\n", name, stats.native_instructions,
                                 stats.fallback_instructions, stats.compile_ms, kinds);
    native += stats.native_instructions;
    fallback += stats.fallback_instructions;
    ++checked;
  }
  std::cout << "corpus: " << checked << " programs, " << native << " native, " << fallback
            << " fallback instructions\n";
  EXPECT_GT(checked, 0);
}

class CpuRandomModulesTest : public ::testing::TestWithParam<bool> {};

// Random modules (straight-line and with loops, conditionals and calls),
// and the same with random layouts: values whose layouts disagree with
// their users', their loop state's, their branches'.
TEST_P(CpuRandomModulesTest, MatchTheEvaluator) {
  const bool random_layouts = GetParam();
  int64_t native = 0, fallback = 0, modules = 0;
  for (PrimitiveType type : {F32, S32}) {
    for (uint64_t seed = 0; seed < 25; ++seed) {
      SCOPED_TRACE(absl::StrCat(PrimitiveTypeName(type), " seed ", seed));
      std::unique_ptr<HloModule> module;
      if (seed % 3 != 2) {
        RandomModuleOptions options;
        options.seed = seed;
        options.element_type = type;
        options.num_instructions = 16 + seed % 24;
        options.random_layouts = random_layouts;
        module = MakeRandomModule(options);
      } else {
        RandomControlFlowModuleOptions options;
        options.seed = seed;
        options.element_type = type;
        options.num_steps = 6 + seed % 10;
        options.random_layouts = random_layouts;
        module = MakeRandomControlFlowModule(options);
      }
      const std::string text = PrintHloModule(*module);
      Counts counts;
      CpuCompileOptions exact;
      exact.polynomial_math = false;  // random chains may amplify any ulp
      exact.reorder_float_reductions = false;
      exact.parallel_min_elements = seed % 2 == 0 ? 0 : 64 * 1024;
      exact.native_dots = type == S32;  // wrapping integer sums are exact in any order
      CheckModule(text, {}, &counts, exact);
      native += counts.native;
      fallback += counts.fallback;
      ++modules;
    }
  }
  std::cout << "random" << (random_layouts ? " (random layouts)" : "") << ": " << modules
            << " modules, " << native << " native, " << fallback << " fallback instructions\n";
}

INSTANTIATE_TEST_SUITE_P(Layouts, CpuRandomModulesTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "RandomLayouts" : "RowMajor";
                         });

}  // namespace
}  // namespace cpu
}  // namespace tessera
