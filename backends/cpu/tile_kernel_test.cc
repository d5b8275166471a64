// The baseline tier (tile_kernel.h): fusions it takes compute exactly what
// their JIT kernels compute, element for element (NaNs as NaNs), on random
// inputs with special values mixed in, over row lengths around the
// reduction lanes' thresholds and the tile length; fusions it does not
// take go to LLVM as before.
#include "backends/cpu/tile_kernel.h"

#include <atomic>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/background_compiler.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/cpu/cpu_test_util.h"
#include "backends/cpu/loop_kernel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace cpu {
namespace {

using testing::CheckModule;
using ::testing::HasSubstr;
using testing::RandomArguments;
using testing::SameResults;

// Writes special values over a few elements of every f32 argument, each
// argument's shifted by one from the previous one's (so that elementwise
// ops meet different specials: +0 and -0, NaN and infinity).
void MixInSpecialValues(std::vector<Literal>& arguments) {
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            0.0f,
                            -0.0f,
                            std::numeric_limits<float>::denorm_min(),
                            -1e-40f,
                            88.0f,
                            -104.5f,
                            1e30f};
  size_t shift = 0;
  for (Literal& argument : arguments) {
    if (argument.shape().element_type() != F32) continue;
    absl::Span<float> data = argument.data<float>();
    // Sparse enough that most rows stay finite (a NaN in a row makes its
    // whole softmax NaN).
    for (size_t i = 0, k = shift++; i < data.size(); i += 97, ++k) {
      data[i] = specials[k % (sizeof(specials) / sizeof(specials[0]))];
    }
  }
}

// KernelTier::kTiered, compiled afresh (no cached executable).
// Tiered, with the tier-up in the execution that asks for it: which code
// each run runs is then certain.
// Every tiled kernel tiers up (no final tile code): the tests of the
// tier-up itself.
CpuCompileOptions TieredOptions() {
  CpuCompileOptions options;
  options.kernel_tier = CpuCompileOptions::KernelTier::kTiered;
  options.tier_up = CpuCompileOptions::TierUp::kSynchronous;
  options.final_tile_code = false;
  options.use_cache = false;
  return options;
}

struct Compiled {
  std::unique_ptr<CpuExecutable> executable;
  Literal result;
};

// (compile_loops: CpuCompileOptions::compile_tile_loops; streaming_store_bytes
// as CpuCompileOptions's.)
Compiled CompileAndRun(absl::string_view text, bool tile_kernels,
                       const std::vector<Literal>& arguments, bool compile_loops = true,
                       std::optional<int64_t> streaming_store_bytes = std::nullopt) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  CpuCompileOptions options;
  options.kernel_tier =
      tile_kernels ? CpuCompileOptions::KernelTier::kTile : CpuCompileOptions::KernelTier::kLlvm;
  options.use_cache = false;
  options.compile_tile_loops = compile_loops;
  options.streaming_store_bytes = streaming_store_bytes;
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(*std::move(module), options);
  EXPECT_TRUE(executable.ok()) << executable.status();
  if (!executable.ok()) return {};
  absl::StatusOr<Literal> result = (*executable)->Run(arguments);
  EXPECT_TRUE(result.ok()) << result.status();
  return {*std::move(executable), result.ok() ? *std::move(result) : Literal()};
}

// KernelTier::kTiered on the runtime path (its thunks split the work as the
// LLVM kernels do, over the thread pool): the first run on tile programs,
// the second and third on the LLVM kernels it generates, all `want`.
void ExpectTieredRunsMatch(absl::string_view text, const std::vector<Literal>& arguments,
                           const Literal& want) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const CpuCompileOptions options = TieredOptions();
  absl::StatusOr<std::unique_ptr<HloExecutable>> executable =
      CompileForCpuExecutable(*std::move(module), options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  for (int run = 1; run <= 3; ++run) {
    absl::StatusOr<Literal> got = (*executable)->RunLiterals(arguments);
    ASSERT_TRUE(got.ok()) << got.status();
    std::string why;
    EXPECT_TRUE(SameResults(*got, want, &why)) << "tiered, run " << run << ": " << why;
  }
}

// `text` through the tier (in `tile_kernels` kernels; -1: any number) and
// through LLVM:
// the same bits; and against the evaluator on both execution paths.
void ExpectSameAsJitKernels(const std::string& text, int64_t tile_kernels = 1) {
  SCOPED_TRACE(text);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  for (uint64_t seed : {1, 2}) {
    std::vector<Literal> arguments = RandomArguments(**module, seed);
    if (seed == 2) MixInSpecialValues(arguments);
    Compiled tiles = CompileAndRun(text, true, arguments);
    Compiled tile_ops = CompileAndRun(text, true, arguments, /*compile_loops=*/false);
    // Every result written with non-temporal stores: by the loops where its
    // tiles are aligned, else copied from the scratch.
    Compiled streamed = CompileAndRun(text, true, arguments, /*compile_loops=*/true,
                                      /*streaming_store_bytes=*/0);
    Compiled jit = CompileAndRun(text, false, arguments);
    ASSERT_NE(tiles.executable, nullptr);
    ASSERT_NE(tile_ops.executable, nullptr);
    ASSERT_NE(streamed.executable, nullptr);
    ASSERT_NE(jit.executable, nullptr);
    if (tile_kernels >= 0) {
      EXPECT_EQ(tiles.executable->stats().tile_kernels, tile_kernels);
    }
    EXPECT_EQ(jit.executable->stats().tile_kernels, 0);
    EXPECT_EQ(tiles.executable->stats().fallback_instructions, 0);
    std::string why;
    EXPECT_TRUE(SameResults(tiles.result, jit.result, &why)) << "seed " << seed << ": " << why;
    EXPECT_TRUE(SameResults(tile_ops.result, jit.result, &why))
        << "tile operations only, seed " << seed << ": " << why;
    EXPECT_TRUE(SameResults(streamed.result, jit.result, &why))
        << "streaming, seed " << seed << ": " << why;
    ExpectTieredRunsMatch(text, arguments, jit.result);
  }
  CpuCompileOptions options;
  options.kernel_tier = CpuCompileOptions::KernelTier::kTile;
  CheckModule(text, {}, nullptr, options);
}

// A module named `name` of the reducers max_f32 and add_f32 and `entry`.
std::string WithReducers(absl::string_view name, absl::string_view entry) {
  return absl::StrCat("HloModule ", name, R"(
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {)", entry, "}\n");
}

// A module of `entry` and its reducer r: `op` of the parameters a and b in
// `order` ("a, b" or "b, a").
std::string WithReducer(absl::string_view op, absl::string_view order, absl::string_view entry) {
  return absl::StrCat("HloModule reduce\nr {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n",
                      "  ROOT c = f32[] ", op, "(", order, ")\n}\nENTRY main {", entry, "}\n");
}

const std::string& Softmax() {
  static const std::string* text = new std::string(WithReducers("softmax", R"(

  x = f32[ROWS,LEN] parameter(0)
  ninf = f32[] constant(-inf)
  max = f32[ROWS] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  maxb = f32[ROWS,LEN] broadcast(max), dimensions={0}
  shifted = f32[ROWS,LEN] subtract(x, maxb)
  e = f32[ROWS,LEN] exponential(shifted)
  zero = f32[] constant(0)
  sum = f32[ROWS] reduce(e, zero), dimensions={1}, to_apply=add_f32
  sumb = f32[ROWS,LEN] broadcast(sum), dimensions={0}
  ROOT out = f32[ROWS,LEN] divide(e, sumb)
)"));
  return *text;
}

// Row lengths on both sides of the lane counts' thresholds (16, 32 and 256),
// of the longest rows run four at a time (128; 37 rows: nine passes and a
// row left) and of the tile length.
TEST(TileKernelTest, SoftmaxMatchesJitKernels) {
  for (const char* e : {"1", "7", "15", "16", "17", "31", "32", "33", "64", "128", "129", "255",
                        "256", "257", "1023", "1025", "3000"}) {
    // Rows of 1 element reduce to copies in the simplifier: any kernels.
    ExpectSameAsJitKernels(absl::StrReplaceAll(Softmax(), {{"ROWS", "37"}, {"LEN", e}}),
                           std::string(e) == "1" ? -1 : 1);
  }
}

// Rows of up to 128 elements that reduce run four at a time, given four
// rows.
TEST(TileKernelTest, ShortRowsRunFourAtATime) {
  if (!TileCode::Supported()) GTEST_SKIP() << "the host has no AVX-512";
  // Whether the kernel of `text` interleaves rows (it calls math routines).
  auto interleaves = [](const std::string& text) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    EXPECT_TRUE(module.ok()) << module.status();
    if (!module.ok()) return false;
    absl::StatusOr<std::unique_ptr<TileKernel>> kernel =
        TileKernel::Create(*(*module)->entry_computation(), {});
    EXPECT_TRUE(kernel.ok()) << kernel.status();
    if (!kernel.ok()) return false;
    EXPECT_TRUE((*kernel)->calls_math_routines());
    return (*kernel)->interleaves_rows();
  };
  struct Case {
    const char* rows;
    const char* len;
    bool interleaved;
  };
  for (const Case& c : {Case{"37", "64", true}, Case{"37", "128", true}, Case{"37", "129", false},
                        Case{"3", "64", false}, Case{"4", "33", true}}) {
    SCOPED_TRACE(absl::StrCat(c.rows, "x", c.len));
    EXPECT_EQ(interleaves(absl::StrReplaceAll(Softmax(), {{"ROWS", c.rows}, {"LEN", c.len}})),
              c.interleaved);
  }
  // Rows without a reduction have no chain to overlap.
  EXPECT_FALSE(interleaves(R"(
HloModule tanh
ENTRY e {
  x = f32[37,64] parameter(0)
  ROOT t = f32[37,64] tanh(x)
})"));
}

// Softmax's steps as compiled loops: up to each reduce, and the division
// after the last (ExpectSameAsJitKernels checks their results).
TEST(TileKernelTest, CompiledLoopsEndAtTheReducesTheyFeed) {
  if (!TileCode::Supported()) GTEST_SKIP() << "the host has no AVX-512";
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(absl::StrReplaceAll(Softmax(), {{"ROWS", "8"}, {"LEN", "100"}}));
  ASSERT_TRUE(module.ok()) << module.status();
  const HloComputation& computation = *(*module)->entry_computation();
  absl::StatusOr<std::unique_ptr<TileKernel>> loops = TileKernel::Create(computation, {});
  ASSERT_TRUE(loops.ok()) << loops.status();
  EXPECT_EQ((*loops)->compiled_loops(), 3);
  TileKernelOptions tile_ops_only;
  tile_ops_only.compile_loops = false;
  absl::StatusOr<std::unique_ptr<TileKernel>> steps =
      TileKernel::Create(computation, tile_ops_only);
  ASSERT_TRUE(steps.ok()) << steps.status();
  EXPECT_EQ((*steps)->compiled_loops(), 0);
}

// Twenty values, each read again after all are computed: more at once
// than the loops' registers hold, so the kernel runs tile operations (the
// same results; its math steps' routines the tile operations' own).
TEST(TileKernelTest, LoopsBeyondTheRegistersRunAsTileOperations) {
  std::string entry = "\n  x = f32[16,300] parameter(0)\n";
  for (int i = 0; i < 20; ++i) {
    absl::StrAppend(&entry, "  c", i, " = f32[] constant(", i + 2, ")\n  cb", i,
                    " = f32[16,300] broadcast(c", i, "), dimensions={}\n  v", i,
                    " = f32[16,300] multiply(x, cb", i, ")\n");
  }
  absl::StrAppend(&entry, "  sum0 = f32[16,300] add(v0, v1)\n");
  for (int i = 2; i < 20; ++i) {
    absl::StrAppend(&entry, "  sum", i - 1, " = f32[16,300] add(sum", i - 2, ", v", i, ")\n");
  }
  absl::StrAppend(&entry, "  quo0 = f32[16,300] divide(sum18, v0)\n");
  for (int i = 1; i < 20; ++i) {
    absl::StrAppend(&entry, "  quo", i, " = f32[16,300] divide(quo", i - 1, ", v", i, ")\n");
  }
  // Math steps too, through exact maxima (their few ulps stay as they are).
  absl::StrAppend(&entry, "  e = f32[16,300] exponential(x)\n  t = f32[16,300] tanh(x)\n",
                  "  m = f32[16,300] maximum(quo19, e)\n  ROOT r = f32[16,300] maximum(m, t)\n");
  const std::string text = absl::StrCat("HloModule many_values\nENTRY main {", entry, "}\n");
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<TileKernel>> kernel =
      TileKernel::Create(*(*module)->entry_computation(), {});
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_EQ((*kernel)->compiled_loops(), 0);
  ExpectSameAsJitKernels(text);
}

TEST(TileKernelTest, LayerNormWithColumnsMatchesJitKernels) {
  constexpr char kLayerNorm[] = R"(
HloModule layer_norm
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(b, a)
}
ENTRY main {
  x = f32[3,11,LEN] parameter(0)
  gamma = f32[LEN] parameter(1)
  beta = f32[LEN] parameter(2)
  zero = f32[] constant(0)
  sum = f32[3,11] reduce(x, zero), dimensions={2}, to_apply=add_f32
  inv = f32[] constant(0.01)
  invb = f32[3,11] broadcast(inv), dimensions={}
  mean = f32[3,11] multiply(sum, invb)
  meanb = f32[3,11,LEN] broadcast(mean), dimensions={0,1}
  centered = f32[3,11,LEN] subtract(x, meanb)
  square = f32[3,11,LEN] multiply(centered, centered)
  var_sum = f32[3,11] reduce(square, zero), dimensions={2}, to_apply=add_f32
  var = f32[3,11] multiply(var_sum, invb)
  eps = f32[] constant(1e-5)
  epsb = f32[3,11] broadcast(eps), dimensions={}
  rstd = f32[3,11] rsqrt(f32[3,11] add(var, epsb))
  rstdb = f32[3,11,LEN] broadcast(rstd), dimensions={0,1}
  normed = f32[3,11,LEN] multiply(centered, rstdb)
  g = f32[3,11,LEN] broadcast(gamma), dimensions={2}
  b = f32[3,11,LEN] broadcast(beta), dimensions={2}
  ROOT out = f32[3,11,LEN] add(f32[3,11,LEN] multiply(normed, g), b)
}
)";
  for (const char* e : {"1", "100", "300"}) {
    ExpectSameAsJitKernels(absl::StrReplaceAll(kLayerNorm, {{"LEN", e}}),
                           std::string(e) == "1" ? -1 : 1);
  }
}

// max/min reducers read in both parameter orders, a product, and a reduce
// as the root: NaNs, infinities and signed zeros fold as the emitter's.
TEST(TileKernelTest, ReductionsMatchJitKernels) {
  constexpr char kReduce[] = R"(
  x = f32[9,LEN] parameter(0)
  init = f32[] parameter(1)
  ROOT out = f32[9] reduce(f32[9,LEN] abs(x), init), dimensions={1}, to_apply=r
)";
  for (const char* op : {"maximum", "minimum", "multiply", "add"}) {
    for (const char* order : {"a, b", "b, a"}) {
      for (const char* e : {"5", "16", "21", "40", "300"}) {
        ExpectSameAsJitKernels(WithReducer(op, order, absl::StrReplaceAll(kReduce, {{"LEN", e}})));
      }
    }
  }
}

// Without reductions rows are cut into tiles; per-row values, scalars,
// columns and math routines on full and on per-row values.
TEST(TileKernelTest, ElementwiseTilesMatchJitKernels) {
  constexpr char kChain[] = R"(
HloModule chain
ENTRY main {
  x = f32[5,LEN] parameter(0)
  scale = f32[5] parameter(1)
  c = f32[] parameter(2)
  col = f32[LEN] parameter(3)
  s = f32[5] tanh(scale)
  sb = f32[5,LEN] broadcast(s), dimensions={0}
  cb = f32[5,LEN] broadcast(c), dimensions={}
  colb = f32[5,LEN] broadcast(col), dimensions={1}
  t = f32[5,LEN] tanh(f32[5,LEN] add(f32[5,LEN] multiply(x, sb), cb))
  l = f32[5,LEN] log(f32[5,LEN] abs(t))
  m = f32[5,LEN] maximum(l, f32[5,LEN] negate(colb))
  ROOT out = f32[5,LEN] minimum(f32[5,LEN] logistic(m), f32[5,LEN] sqrt(f32[5,LEN] exponential(x)))
}
)";
  // Two kernels: the unfused tanh of the per-row values, and the fusion.
  for (const char* e : {"3", "2048", "5000"}) {
    ExpectSameAsJitKernels(absl::StrReplaceAll(kChain, {{"LEN", e}}), 2);
  }
}

// A random fusion over [rows, len]: elementwise ops (math routines among
// them) on two full parameters, a scalar, a per-row and a per-column
// parameter, with row reductions broadcast back into the chain, so that
// the generated code gets loops of several phases, pinned routine operands
// and results, values read phases and loops later, and reduces between;
// every third one ends in a column reduction.
std::string RandomFusion(uint32_t seed, int64_t rows, int64_t len) {
  std::mt19937 rng(seed);
  auto pick = [&rng](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
  const std::string full = absl::StrCat("f32[", rows, ",", len, "]");
  std::string entry = absl::StrCat(
      "\n  x = ", full, " parameter(0)\n  y = ", full,
      " parameter(1)\n  s = f32[] parameter(2)\n  r = f32[", rows, "] parameter(3)\n  c = f32[",
      len, "] parameter(4)\n  sb = ", full, " broadcast(s), dimensions={}\n  rb = ", full,
      " broadcast(r), dimensions={0}\n  cb = ", full,
      " broadcast(c), dimensions={1}\n  zero = f32[] constant(0)\n"
      "  ninf = f32[] constant(-inf)\n");
  std::vector<std::string> values = {"x", "y", "sb", "rb", "cb"};
  const char* binaries[] = {"add", "subtract", "multiply", "maximum", "minimum", "divide"};
  const char* unaries[] = {"negate", "abs", "exponential", "tanh", "logistic", "sine"};
  const int steps = 5 + pick(12);
  for (int i = 0; i < steps; ++i) {
    const std::string v = absl::StrCat("v", i);
    const std::string a = values[pick(static_cast<int>(values.size()))];
    const std::string b = values[pick(static_cast<int>(values.size()))];
    switch (pick(6)) {
      case 0:
      case 1:
        absl::StrAppend(&entry, "  ", v, " = ", full, " ", binaries[pick(6)], "(", a, ", ", b,
                        ")\n");
        break;
      case 2:
      case 3:
        absl::StrAppend(&entry, "  ", v, " = ", full, " ", unaries[pick(6)], "(", a, ")\n");
        break;
      case 4: {
        const bool sum = pick(2) == 0;
        absl::StrAppend(&entry, "  ", v, "r = f32[", rows, "] reduce(", a, ", ",
                        sum ? "zero" : "ninf",
                        "), dimensions={1}, to_apply=", sum ? "add_f32" : "max_f32", "\n  ", v,
                        " = ", full, " broadcast(", v, "r), dimensions={0}\n");
        break;
      }
      default:
        absl::StrAppend(&entry, "  ", v, "p = pred[", rows, ",", len, "] compare(", a, ", ", b,
                        "), direction=GT\n  ", v, " = ", full, " select(", v, "p, ", a, ", ", b,
                        ")\n");
        break;
    }
    values.push_back(v);
  }
  // The result reads the last value and one other, so that few are dead;
  // every third one is a column reduction of that (a bias gradient), with
  // an epilogue on the column parameter.
  const std::string other = values[pick(static_cast<int>(values.size()))];
  if (seed % 3 == 0) {
    absl::StrAppend(&entry, "  sum = ", full, " add(v", steps - 1, ", ", other,
                    ")\n  columns = f32[", len,
                    "] reduce(sum, zero), dimensions={0}, to_apply=add_f32\n  ROOT out = f32[", len,
                    "] multiply(columns, c)\n");
  } else {
    absl::StrAppend(&entry, "  ROOT out = ", full, " add(v", steps - 1, ", ", other, ")\n");
  }
  return WithReducers(absl::StrCat("random_", seed), entry);
}

// Random fusions: the generated code, the tile operations and the LLVM
// kernels agree bit for bit (NaN and the special values included).
TEST(TileKernelTest, RandomFusionsMatchJitKernels) {
  int64_t tile_kernels = 0;
  for (uint32_t seed = 1; seed <= 64; ++seed) {
    const int64_t len = std::vector<int64_t>{40, 64, 100, 300, 1024}[seed % 5];
    const std::string text = RandomFusion(seed, 3 + seed % 4, len);
    SCOPED_TRACE(text);
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    std::vector<Literal> arguments = RandomArguments(**module, seed);
    if (seed % 2 == 0) MixInSpecialValues(arguments);
    Compiled code = CompileAndRun(text, true, arguments);
    Compiled tile_ops = CompileAndRun(text, true, arguments, /*compile_loops=*/false);
    Compiled jit = CompileAndRun(text, false, arguments);
    ASSERT_NE(code.executable, nullptr);
    ASSERT_NE(tile_ops.executable, nullptr);
    ASSERT_NE(jit.executable, nullptr);
    tile_kernels += code.executable->stats().tile_kernels;
    std::string why;
    EXPECT_TRUE(SameResults(code.result, jit.result, &why)) << "generated code: " << why;
    EXPECT_TRUE(SameResults(tile_ops.result, jit.result, &why)) << "tile operations: " << why;
  }
  // Most of them are (or have) tile kernels.
  EXPECT_GE(tile_kernels, 48);
}

// The elemental emitter's maximum and minimum: a NaN wins, -0 < +0.
TEST(TileKernelTest, MaximumAndMinimumMatchJitKernels) {
  ExpectSameAsJitKernels(R"(
HloModule m
ENTRY main {
  x = f32[7,300] parameter(0)
  y = f32[7,300] parameter(1)
  z = f32[7,300] parameter(2)
  ROOT out = f32[7,300] minimum(f32[7,300] maximum(x, y), z)
})");
}

// A loop's max and min reduces fold with vrange and note NaNs in a mask
// register each: a NaN in one row only (row 3) makes that row's result NaN
// and not the next row's; in the partial iteration the lanes past the row
// do not count (x / same_x of their zeros is NaN); both reducer operand
// orders; and in one kernel a max and a min of x beside a min of x with
// its NaNs replaced, which must not see their NaN (the kernel plans each
// reduce in a loop of its own: the mask is reset per loop).
TEST(TileKernelTest, MaxAndMinReducesTrackNaNsRowByRow) {
  constexpr char kOneReduce[] = R"(
  x = f32[8,LEN] parameter(0)
  same_x = f32[8,LEN] parameter(1)
  one = f32[] constant(1)
  ones = f32[8,LEN] broadcast(one), dimensions={}
  y = f32[8,LEN] add(x, f32[8,LEN] subtract(f32[8,LEN] divide(x, same_x), ones))
  init = f32[] constant(INIT)
  ROOT r = f32[8] reduce(y, init), dimensions={1}, to_apply=r
)";
  constexpr char kMaxAndMin[] = R"(HloModule max_and_min
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] maximum(a, b)
}
min {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] minimum(b, a)
}
ENTRY main {
  x = f32[8,LEN] parameter(0)
  same_x = f32[8,LEN] parameter(1)
  ninf = f32[] constant(-inf)
  pinf = f32[] constant(inf)
  zero = f32[] constant(0)
  zeros = f32[8,LEN] broadcast(zero), dimensions={}
  is_number = pred[8,LEN] compare(x, x), direction=EQ
  numbers = f32[8,LEN] select(is_number, x, zeros)
  mx = f32[8] reduce(x, ninf), dimensions={1}, to_apply=max
  mn = f32[8] reduce(numbers, pinf), dimensions={1}, to_apply=min
  mn_of_x = f32[8] reduce(x, pinf), dimensions={1}, to_apply=min
  ROOT out = (f32[8], f32[8], f32[8]) tuple(mx, mn, mn_of_x)
}
)";
  for (int64_t len : {70, 1000}) {
    Literal x(Shape(F32, {8, len}));
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> value(0.5f, 100.0f);
    for (int64_t i = 0; i < 8 * len; ++i) {
      x.data<float>()[i] = (i % 3 == 0 ? -1 : 1) * value(rng);  // no zeros
    }
    x.data<float>()[3 * len + len / 2] = std::numeric_limits<float>::quiet_NaN();
    std::vector<std::string> modules = {
        absl::StrReplaceAll(kMaxAndMin, {{"LEN", absl::StrCat(len)}})};
    for (const char* op : {"maximum", "minimum"}) {
      for (const char* order : {"a, b", "b, a"}) {
        modules.push_back(WithReducer(
            op, order,
            absl::StrReplaceAll(kOneReduce,
                                {{"LEN", absl::StrCat(len)},
                                 {"INIT", std::string(op) == "maximum" ? "-inf" : "inf"}})));
      }
    }
    for (size_t m = 0; m < modules.size(); ++m) {
      const std::string& text = modules[m];
      SCOPED_TRACE(text);
      const bool two_reduces = m == 0;  // the three-reduce module
      Compiled tiles = CompileAndRun(text, true, {x, x});
      Compiled jit = CompileAndRun(text, false, {x, x});
      ASSERT_NE(tiles.executable, nullptr);
      ASSERT_NE(jit.executable, nullptr);
      EXPECT_GE(tiles.executable->stats().tile_kernels, 1);
      std::string why;
      EXPECT_TRUE(SameResults(tiles.result, jit.result, &why)) << why;
      const Literal& rows = two_reduces ? tiles.result.tuple_element(0) : tiles.result;
      for (int64_t row = 0; row < 8; ++row) {
        EXPECT_EQ(std::isnan(rows.data<float>()[row]), row == 3) << row;
        if (two_reduces) {
          EXPECT_FALSE(std::isnan(tiles.result.tuple_element(1).data<float>()[row])) << row;
          EXPECT_EQ(std::isnan(tiles.result.tuple_element(2).data<float>()[row]), row == 3) << row;
        }
      }
    }
  }
}

// The arena path tiers up at its second run too: tile programs, then the
// LLVM kernels, the same bits.
TEST(TileKernelTest, TieredExecutableTiersUpAtTheSecondRun) {
  const std::string text = absl::StrReplaceAll(Softmax(), {{"ROWS", "64"}, {"LEN", "1000"}});
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::vector<Literal> arguments = RandomArguments(**module, 5);
  const CpuCompileOptions options = TieredOptions();
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(*std::move(module), options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ((*executable)->stats().tiered_kernels, 1);
  EXPECT_THAT((*executable)->ToString(), HasSubstr("tiered kernel"));
  Compiled jit = CompileAndRun(text, false, arguments);
  for (int run = 1; run <= 3; ++run) {
    absl::StatusOr<Literal> got = (*executable)->Run(arguments);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ((*executable)->tiered_up(), run >= 2) << "run " << run;
    std::string why;
    EXPECT_TRUE(SameResults(*got, jit.result, &why)) << "run " << run << ": " << why;
  }
  EXPECT_TRUE((*executable)->tier_up_status().ok());
  EXPECT_GT((*executable)->tier_up_ms(), 0);
}

// Results whose major dimensions have extent 1 (a batch of one) split
// their work along the first longer one, short of the minor-most: the JIT
// kernel (emitted now or deferred), and the tile program it tiers up from,
// alike; a GEMM epilogue keeps dimension 0, and a rank-2 result its rows.
// Tile code is final where it is generated code over rows (or a column
// reduction's tiles of columns) of at least final_tile_code_min_elements,
// or over rows of at least half that run four at a time that pass through
// a math routine (a softmax of 8 rows of 64 or 100): no LLVM kernel.  Other
// shorter rows (a row sum; a softmax of 3 rows, too few to interleave, or of
// rows of 63), tile operations
// (--kernels=tile_ops) or the option off tier up.
// TierUp::kEager generates the tiered kernels' code before the compile
// returns.
TEST(TileKernelTest, GeneratedTileCodeOverLongRowsIsFinal) {
  if (!TileCode::Supported()) GTEST_SKIP() << "the host has no AVX-512";
  struct Case {
    const char* len;
    bool final_tile_code;
    bool compile_loops;
    int64_t tiered;
    bool columns = false;  // a column reduction (a bias gradient) instead of a softmax
    const char* rows = "8";
    bool row_sum = false;  // a row sum instead of a softmax
  };
  constexpr char kColumnSum[] = R"(
  x = f32[64,LEN] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[LEN] reduce(x, zero), dimensions={0}, to_apply=add_f32
)";
  constexpr char kRowSum[] = R"(
  x = f32[8,LEN] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[8] reduce(x, zero), dimensions={1}, to_apply=add_f32
)";
  for (const Case& c :
       {Case{"128", true, true, 0}, Case{"3000", true, true, 0}, Case{"100", true, true, 0},
        Case{"64", true, true, 0}, Case{"63", true, true, 1},
        Case{"100", true, true, 1, false, "3"}, Case{"100", true, true, 1, false, "8", true},
        Case{"1024", false, true, 1}, Case{"1024", true, false, 1},
        Case{"1024", true, true, 0, true}, Case{"100", true, true, 1, true}}) {
    SCOPED_TRACE(absl::StrCat(c.len, c.final_tile_code ? " final" : "",
                              c.compile_loops ? " code" : "", c.columns ? " columns" : "",
                              c.row_sum ? " row sum" : " rows ", c.rows));
    const std::string text =
        c.columns   ? absl::StrReplaceAll(WithReducers("column_sum", kColumnSum), {{"LEN", c.len}})
        : c.row_sum ? absl::StrReplaceAll(WithReducers("row_sum", kRowSum), {{"LEN", c.len}})
                    : absl::StrReplaceAll(Softmax(), {{"ROWS", c.rows}, {"LEN", c.len}});
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    CpuCompileOptions options = TieredOptions();
    options.final_tile_code = c.final_tile_code;
    options.compile_tile_loops = c.compile_loops;
    options.tier_up = CpuCompileOptions::TierUp::kEager;
    absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
        CompileForCpu(*std::move(module), options);
    ASSERT_TRUE(executable.ok()) << executable.status();
    EXPECT_EQ((*executable)->stats().tile_kernels, 1);
    EXPECT_EQ((*executable)->stats().tiered_kernels, c.tiered);
    // Eager: the LLVM code exists before the first run.
    EXPECT_EQ((*executable)->tiered_up(), c.tiered > 0);
  }
}

TEST(TileKernelTest, UnitMajorDimensionsSplitPastThem) {
  auto computation_of = [](absl::string_view text) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    EXPECT_TRUE(module.ok()) << module.status();
    return std::move(*module);
  };
  std::unique_ptr<HloModule> unit = computation_of(R"(HloModule unit
ENTRY e {
  x = f32[1,1,64,300] parameter(0)
  ROOT t = f32[1,1,64,300] tanh(x)
})");
  std::unique_ptr<HloModule> row = computation_of(R"(HloModule row
ENTRY e {
  x = f32[1,300] parameter(0)
  ROOT t = f32[1,300] tanh(x)
})");
  absl::StatusOr<std::unique_ptr<LoopKernelCompiler>> compiler = LoopKernelCompiler::Create();
  ASSERT_TRUE(compiler.ok()) << compiler.status();
  const HloComputation& computation = *unit->entry_computation();
  LoopKernelOptions options;
  for (const bool deferred : {false, true}) {
    options.deferred = deferred;
    absl::StatusOr<std::unique_ptr<LoopKernel>> kernel = (*compiler)->Compile(computation, options);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    EXPECT_EQ((*kernel)->work_size(), 64) << "deferred " << deferred;
  }
  ASSERT_TRUE((*compiler)->FinalizeDeferred().ok());  // the prediction held
  options.deferred = false;
  options.epilogue = true;
  absl::StatusOr<std::unique_ptr<LoopKernel>> epilogue = (*compiler)->Compile(computation, options);
  ASSERT_TRUE(epilogue.ok()) << epilogue.status();
  EXPECT_EQ((*epilogue)->work_size(), 1);
  options.epilogue = false;
  absl::StatusOr<std::unique_ptr<LoopKernel>> rows =
      (*compiler)->Compile(*row->entry_computation(), options);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ((*rows)->work_size(), 1);
  // A row kernel whose rows are 2-D (the mean over both trailing
  // dimensions, batch 1) never splits into a row, which one call reduces.
  const std::string centered = R"(HloModule centered
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[1,64,300] parameter(0)
  zero = f32[] constant(0)
  sum = f32[1] reduce(x, zero), dimensions={1,2}, to_apply=add
  sumb = f32[1,64,300] broadcast(sum), dimensions={0}
  ROOT d = f32[1,64,300] subtract(x, sumb)
})";
  std::unique_ptr<HloModule> rows2d = computation_of(centered);
  absl::StatusOr<std::unique_ptr<LoopKernel>> whole_rows =
      (*compiler)->Compile(*rows2d->entry_computation(), options);
  ASSERT_TRUE(whole_rows.ok()) << whole_rows.status();
  EXPECT_EQ((*whole_rows)->work_size(), 1);
  ASSERT_TRUE((*compiler)->Finalize().ok());
  CheckModule(centered);

  absl::StatusOr<std::unique_ptr<TileKernel>> tile = TileKernel::Create(computation, {});
  ASSERT_TRUE(tile.ok()) << tile.status();
  EXPECT_EQ((*tile)->major_size(), 1);
  EXPECT_FALSE((*tile)->SplitAs(5));
  EXPECT_TRUE((*tile)->SplitAs(64));
  EXPECT_EQ((*tile)->major_size(), 64);

  // A tiered softmax over [1, 37, LEN]: one tiered kernel, the same bits
  // on tiles and after the tier-up.
  const std::string text = absl::StrReplaceAll(Softmax(), {{"f32[ROWS,LEN]", "f32[1,37,1000]"},
                                                           {"f32[ROWS]", "f32[1,37]"},
                                                           {"dimensions={1}", "dimensions={2}"},
                                                           {"dimensions={0}", "dimensions={0,1}"}});
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status() << text;
  const std::vector<Literal> arguments = RandomArguments(**module, 7);
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(*std::move(module), TieredOptions());
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ((*executable)->stats().tiered_kernels, 1) << (*executable)->ToString();
  Compiled jit = CompileAndRun(text, false, arguments);
  for (int run = 1; run <= 2; ++run) {
    absl::StatusOr<Literal> got = (*executable)->Run(arguments);
    ASSERT_TRUE(got.ok()) << got.status();
    std::string why;
    EXPECT_TRUE(SameResults(*got, jit.result, &why)) << "run " << run << ": " << why;
  }
  EXPECT_TRUE((*executable)->tiered_up());
}

// Holds the process's BackgroundCompiler on a job of its own until
// Release (or destruction): tier-ups asked for meanwhile wait in its queue.
class BlockedBackgroundCompiler {
 public:
  BlockedBackgroundCompiler() {
    EXPECT_TRUE(BackgroundCompiler::Default().Submit(this, [this] {
      started_ = true;
      while (!release_.load()) std::this_thread::yield();
    }));
    while (!started_.load()) std::this_thread::yield();
  }
  ~BlockedBackgroundCompiler() { Release(); }
  void Release() {
    release_ = true;
    BackgroundCompiler::Default().Cancel(this);
  }

 private:
  std::atomic<bool> started_{false}, release_{false};
};

// The default: the tier-up runs on the BackgroundCompiler's thread, and
// runs go on with the tile programs until the LLVM kernels exist, then run
// those; every result the same bits.
TEST(TileKernelTest, BackgroundTierUpLeavesRunsOnTilesUntilTheCodeExists) {
  EXPECT_EQ(CpuCompileOptions().tier_up, CpuCompileOptions::TierUp::kBackground);
  const std::string text = absl::StrReplaceAll(Softmax(), {{"ROWS", "64"}, {"LEN", "1000"}});
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::vector<Literal> arguments = RandomArguments(**module, 5);
  Compiled jit = CompileAndRun(text, false, arguments);
  CpuCompileOptions options;
  options.use_cache = false;
  options.final_tile_code = false;  // every tiled kernel tiers up
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(*std::move(module), options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  ASSERT_EQ((*executable)->stats().tiered_kernels, 1);
  (*executable)->WaitForTierUp();  // none asked for: returns
  {
    BlockedBackgroundCompiler blocked;
    for (int run = 1; run <= 3; ++run) {
      absl::StatusOr<Literal> got = (*executable)->Run(arguments);
      ASSERT_TRUE(got.ok()) << got.status();
      std::string why;
      EXPECT_TRUE(SameResults(*got, jit.result, &why)) << "run " << run << ": " << why;
      // Asked for by run 2, queued behind the blocking job.
      EXPECT_FALSE((*executable)->tiered_up()) << "run " << run;
    }
  }
  (*executable)->WaitForTierUp();
  EXPECT_TRUE((*executable)->tiered_up());
  EXPECT_TRUE((*executable)->tier_up_status().ok()) << (*executable)->tier_up_status();
  EXPECT_GT((*executable)->tier_up_ms(), 0);
  absl::StatusOr<Literal> got = (*executable)->Run(arguments);
  ASSERT_TRUE(got.ok()) << got.status();
  std::string why;
  EXPECT_TRUE(SameResults(*got, jit.result, &why)) << "after the tier-up: " << why;
}

// The runtime path waits for it through runtime::Executable, which says how
// long the code generation took.
TEST(TileKernelTest, RuntimeExecutablesWaitForTheBackgroundTierUp) {
  const std::string text = absl::StrReplaceAll(Softmax(), {{"ROWS", "32"}, {"LEN", "700"}});
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::vector<Literal> arguments = RandomArguments(**module, 6);
  Compiled jit = CompileAndRun(text, false, arguments);
  CpuCompileOptions options;
  options.use_cache = false;
  options.final_tile_code = false;  // every tiled kernel tiers up
  absl::StatusOr<std::unique_ptr<HloExecutable>> executable =
      CompileForCpuExecutable(*std::move(module), options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ((*executable)->executable().WaitForBackgroundWork(), 0);  // none asked for
  for (int run = 1; run <= 2; ++run) {
    absl::StatusOr<Literal> got = (*executable)->RunLiterals(arguments);
    ASSERT_TRUE(got.ok()) << got.status();
  }
  EXPECT_GT((*executable)->executable().WaitForBackgroundWork(), 0);
  absl::StatusOr<Literal> got = (*executable)->RunLiterals(arguments);
  ASSERT_TRUE(got.ok()) << got.status();
  std::string why;
  EXPECT_TRUE(SameResults(*got, jit.result, &why)) << why;
}

// An executable destroyed with its tier-up queued drops it, and one
// destroyed while it runs waits for it: nothing runs on freed kernels.
TEST(TileKernelTest, DestroyingAnExecutableCancelsItsTierUp) {
  const std::string text = absl::StrReplaceAll(Softmax(), {{"ROWS", "16"}, {"LEN", "300"}});
  auto compile = [&]() -> std::unique_ptr<CpuExecutable> {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    EXPECT_TRUE(module.ok()) << module.status();
    CpuCompileOptions options;
    options.use_cache = false;
    options.final_tile_code = false;  // every tiled kernel tiers up
    absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
        CompileForCpu(*std::move(module), options);
    EXPECT_TRUE(executable.ok()) << executable.status();
    return executable.ok() ? *std::move(executable) : nullptr;
  };
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::vector<Literal> arguments = RandomArguments(**module, 7);
  std::unique_ptr<CpuExecutable> kept = compile();
  ASSERT_NE(kept, nullptr);
  {
    BlockedBackgroundCompiler blocked;
    std::unique_ptr<CpuExecutable> dropped = compile();
    ASSERT_NE(dropped, nullptr);
    for (int run = 0; run < 2; ++run) {
      ASSERT_TRUE(dropped->Run(arguments).ok());
      ASSERT_TRUE(kept->Run(arguments).ok());
    }
    dropped.reset();  // its tier-up was queued: dropped with it
  }
  kept->WaitForTierUp();  // queued after the dropped one's: still runs
  EXPECT_TRUE(kept->tiered_up());
  for (int i = 0; i < 3; ++i) {
    std::unique_ptr<CpuExecutable> brief = compile();
    ASSERT_NE(brief, nullptr);
    ASSERT_TRUE(brief->Run(arguments).ok());
    ASSERT_TRUE(brief->Run(arguments).ok());
    // Destroyed at once: its tier-up is queued or running.
  }
}

// A tiered kernel in a loop's body tiers up at the loop's second
// iteration, within the first run.
TEST(TileKernelTest, LoopBodiesTierUpWithinTheFirstRun) {
  const std::string text = R"(
HloModule loop
cond {
  s = (s32[], f32[64,500]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[64,500]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[64,500] get-tuple-element(s), index=1
  one = s32[] constant(1)
  half = f32[] constant(0.5)
  halfb = f32[64,500] broadcast(half), dimensions={}
  y = f32[64,500] add(f32[64,500] multiply(x, halfb), f32[64,500] tanh(x))
  ROOT next = (s32[], f32[64,500]) tuple(s32[] add(i, one), y)
}
ENTRY main {
  x = f32[64,500] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[64,500]) tuple(zero, x)
  loop = (s32[], f32[64,500]) while(init), condition=cond, body=body
  ROOT out = f32[64,500] get-tuple-element(loop), index=1
})";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::vector<Literal> arguments = RandomArguments(**module, 3);
  Compiled jit = CompileAndRun(text, false, arguments);
  const CpuCompileOptions options = TieredOptions();
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(*std::move(module), options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  ASSERT_GE((*executable)->stats().tiered_kernels, 1);
  EXPECT_FALSE((*executable)->tiered_up());
  absl::StatusOr<Literal> got = (*executable)->Run(arguments);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE((*executable)->tiered_up());
  std::string why;
  EXPECT_TRUE(SameResults(*got, jit.result, &why)) << why;
}

// Runs from several threads at once on a fresh tiered executable: one of
// them (or the background thread) tiers up while the others run tile
// programs or, once their functions are set, the LLVM kernels; every result
// is the LLVM kernels' own.
TEST(TileKernelTest, ConcurrentRunsTierUpOnce) {
  for (CpuCompileOptions::TierUp tier_up :
       {CpuCompileOptions::TierUp::kSynchronous, CpuCompileOptions::TierUp::kBackground}) {
    SCOPED_TRACE(static_cast<int>(tier_up));
    const std::string text = absl::StrReplaceAll(Softmax(), {{"ROWS", "300"}, {"LEN", "500"}});
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    const std::vector<Literal> arguments = RandomArguments(**module, 9);
    Compiled jit = CompileAndRun(text, false, arguments);
    CpuCompileOptions options = TieredOptions();
    options.tier_up = tier_up;
    absl::StatusOr<std::unique_ptr<HloExecutable>> executable =
        CompileForCpuExecutable(*std::move(module), options);
    ASSERT_TRUE(executable.ok()) << executable.status();
    std::vector<std::thread> threads;
    std::vector<int> mismatches(4, 0);
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        for (int run = 0; run < 10; ++run) {
          absl::StatusOr<Literal> got = (*executable)->RunLiterals(arguments);
          std::string why;
          if (!got.ok() || !SameResults(*got, jit.result, &why)) ++mismatches[t];
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    for (int t = 0; t < 4; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
  }
}

// Compares (NaN in either operand: only NE holds), and/or/not of their
// predicates, and selects on them, elementwise and before a reduction (a
// masked softmax).
TEST(TileKernelTest, ComparesAndSelectsMatchJitKernels) {
  constexpr char kMasks[] = R"(
HloModule masks
ENTRY main {
  x = f32[9,LEN] parameter(0)
  y = f32[9,LEN] parameter(1)
  t = f32[] parameter(2)
  tb = f32[9,LEN] broadcast(t), dimensions={}
  zero = f32[] constant(0)
  zb = f32[9,LEN] broadcast(zero), dimensions={}
  ax = f32[9,LEN] abs(x)
  gt = pred[9,LEN] compare(x, y), direction=GT
  lt = pred[9,LEN] compare(x, tb), direction=LT
  ge = pred[9,LEN] compare(x, ax), direction=GE
  le = pred[9,LEN] compare(ax, x), direction=LE
  eq = pred[9,LEN] compare(ax, x), direction=EQ
  ne = pred[9,LEN] compare(ax, x), direction=NE
  unordered = pred[9,LEN] compare(x, x), direction=NE
  both = pred[9,LEN] and(gt, pred[9,LEN] not(lt))
  either = pred[9,LEN] or(both, unordered)
  sel1 = f32[9,LEN] select(either, x, y)
  sel2 = f32[9,LEN] select(ge, sel1, zb)
  sel3 = f32[9,LEN] select(le, zb, sel2)
  sel4 = f32[9,LEN] select(ne, tb, sel3)
  ROOT out = f32[9,LEN] add(sel4, f32[9,LEN] select(eq, tb, sel1))
}
)";
  const std::string masked_softmax = WithReducers("masked_softmax", R"(
  x = f32[9,LEN] parameter(0)
  keep = f32[9,LEN] parameter(1)
  half = f32[] constant(0.5)
  ninf = f32[] constant(-inf)
  halfb = f32[9,LEN] broadcast(half), dimensions={}
  ninfb = f32[9,LEN] broadcast(ninf), dimensions={}
  mask = pred[9,LEN] compare(keep, halfb), direction=GT
  masked = f32[9,LEN] select(mask, x, ninfb)
  max = f32[9] reduce(masked, ninf), dimensions={1}, to_apply=max_f32
  maxb = f32[9,LEN] broadcast(max), dimensions={0}
  e = f32[9,LEN] exponential(f32[9,LEN] subtract(masked, maxb))
  zero = f32[] constant(0)
  sum = f32[9] reduce(e, zero), dimensions={1}, to_apply=add_f32
  sumb = f32[9,LEN] broadcast(sum), dimensions={0}
  ROOT out = f32[9,LEN] divide(e, sumb)
)");
  for (const char* e : {"7", "300"}) {
    ExpectSameAsJitKernels(absl::StrReplaceAll(kMasks, {{"LEN", e}}));
    ExpectSameAsJitKernels(absl::StrReplaceAll(masked_softmax, {{"LEN", e}}));
  }
}

// A GEMM's epilogue (bias and an activation, run per row panel inside the
// GEMM) takes the tier too, tiered on the runtime path.
TEST(TileKernelTest, GemmEpiloguesMatchJitKernels) {
  const std::string text = R"(
HloModule gemm_bias_tanh
ENTRY main {
  a = f32[256,64] parameter(0)
  b = f32[64,96] parameter(1)
  bias = f32[96] parameter(2)
  d = f32[256,96] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  biasb = f32[256,96] broadcast(bias), dimensions={1}
  ROOT out = f32[256,96] tanh(f32[256,96] add(d, biasb))
})";
  ExpectSameAsJitKernels(text);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(*std::move(module), TieredOptions());
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ((*executable)->stats().tiered_kernels, 1);
  EXPECT_THAT((*executable)->ToString(), HasSubstr("with its epilogue per row panel"));
}

// A rank-1 value broadcast along the last dimension is a column only when
// computed from columns and scalars: with as many rows as columns, a
// per-row value (a row's sum) has a column's shape but varies along the
// rows.  (The fusion pipeline does not make such a fusion; Create refuses
// it anyway.)
TEST(TileKernelTest, ColumnsComputedFromRowValuesAreRefused) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(WithReducers("m", R"(
  x = f32[64,64] parameter(0)
  c = f32[64] parameter(1)
  zero = f32[] constant(0)
  r = f32[64] reduce(x, zero), dimensions={1}, to_apply=add_f32
  h = f32[64] add(c, r)
  hb = f32[64,64] broadcast(h), dimensions={1}
  ROOT out = f32[64,64] add(x, hb)
)"));
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<TileKernel>> kernel =
      TileKernel::Create(*(*module)->entry_computation(), TileKernelOptions{});
  EXPECT_TRUE(absl::IsUnimplemented(kernel.status())) << kernel.status();
  EXPECT_THAT(kernel.status().message(), HasSubstr(": a column computed from"));
}

// Converts between f32 and predicates: a mask as a float (a ReLU's
// gradient), and a float as a predicate (x != 0: true for NaN).
TEST(TileKernelTest, ConvertsBetweenFloatsAndPredicatesMatchJitKernels) {
  for (const char* e : {"7", "300"}) {
    ExpectSameAsJitKernels(absl::StrReplaceAll(R"(
HloModule converts
ENTRY main {
  x = f32[5,LEN] parameter(0)
  dy = f32[5,LEN] parameter(1)
  zero = f32[] constant(0)
  zb = f32[5,LEN] broadcast(zero), dimensions={}
  positive = pred[5,LEN] compare(x, zb), direction=GT
  mask = f32[5,LEN] convert(positive)
  nonzero = pred[5,LEN] convert(dy)
  flag = f32[5,LEN] convert(nonzero)
  ROOT out = f32[5,LEN] add(f32[5,LEN] multiply(dy, mask), flag)
})",
                                               {{"LEN", e}}));
  }
}

// Rounding, sign and clamp as the elemental emitter computes them (NaNs
// through floor, ceil and sign unchanged; clamp's maximum then minimum;
// the special values' -104.5 rounds both ways).
TEST(TileKernelTest, RoundingSignAndClampMatchJitKernels) {
  for (const char* e : {"7", "300"}) {
    ExpectSameAsJitKernels(absl::StrReplaceAll(R"(
HloModule rounding
ENTRY main {
  x = f32[6,LEN] parameter(0)
  lo = f32[] parameter(1)
  hi = f32[6,LEN] parameter(2)
  k = f32[] constant(4.5)
  kb = f32[6,LEN] broadcast(k), dimensions={}
  s = f32[6,LEN] multiply(x, kb)
  fl = f32[6,LEN] floor(s)
  ce = f32[6,LEN] ceil(s)
  ra = f32[6,LEN] round-nearest-afz(s)
  re = f32[6,LEN] round-nearest-even(s)
  sg = f32[6,LEN] sign(x)
  lob = f32[6,LEN] broadcast(lo), dimensions={}
  c = f32[6,LEN] clamp(lob, s, hi)
  m = f32[6,LEN] multiply(f32[6,LEN] multiply(fl, ce), f32[6,LEN] multiply(ra, re))
  ROOT out = f32[6,LEN] multiply(m, f32[6,LEN] multiply(sg, c))
})",
                                               {{"LEN", e}}));
    // Alone, where nothing hides a half's rounding or a NaN's sign.
    for (const char* root :
         {"add(f32[6,LEN] round-nearest-afz(x), f32[6,LEN] round-nearest-even(x))", "sign(x)"}) {
      const std::string text = absl::StrCat(
          "HloModule alone\nENTRY main {\n  x = f32[6,LEN] parameter(0)\n  ROOT out = f32[6,LEN] ",
          root, "\n}");
      ExpectSameAsJitKernels(absl::StrReplaceAll(text, {{"LEN", e}}));
    }
  }
}

// Bitcasts and reshapes that only add or drop dimensions of size 1 (what
// fusion leaves between a reduction's [R] and the [R,1] of keepdims):
// parameters read through them as full, per-row or column values.
TEST(TileKernelTest, DegenerateBitcastsMatchJitKernels) {
  // An MLP's per-row log and divide of [R] vectors seen as [R,1].
  ExpectSameAsJitKernels(R"(
HloModule log_rows
ENTRY main {
  x = f32[256] parameter(0)
  b = f32[256,1] bitcast(x)
  ROOT out = f32[256,1] log(b)
})");
  for (const char* e : {"1", "7", "300"}) {
    ExpectSameAsJitKernels(absl::StrReplaceAll(R"(
HloModule divide_rows
ENTRY main {
  x = f32[LEN] parameter(0)
  y = f32[LEN] parameter(1)
  bx = f32[LEN,1] bitcast(x)
  by = f32[LEN,1] reshape(y)
  ROOT out = f32[LEN,1] divide(by, bx)
})",
                                               {{"LEN", e}}));
  }
  // A [R,1] per-row value squeezed to [R] and broadcast along the rows; a
  // [1,E] column squeezed to [E] and broadcast down the columns.
  for (const char* e : {"10", "33", "1000"}) {
    ExpectSameAsJitKernels(absl::StrReplaceAll(R"(
HloModule rows_and_columns
ENTRY main {
  s = f32[256,1] parameter(0)
  p = f32[256,LEN] parameter(1)
  c = f32[1,LEN] parameter(2)
  zero = f32[] constant(0)
  zb = f32[256,1] broadcast(zero), dimensions={}
  r = f32[256] bitcast(f32[256,1] add(s, zb))
  rb = f32[256,LEN] broadcast(r), dimensions={0}
  cc = f32[LEN] reshape(c)
  cb = f32[256,LEN] broadcast(cc), dimensions={1}
  ROOT out = f32[256,LEN] add(f32[256,LEN] multiply(rb, p), cb)
})",
                                               {{"LEN", e}}));
  }
}

// Elementwise epilogues on rows' reductions (one value per row), and a
// scalar from a rank-1 reduction (a loss).
TEST(TileKernelTest, EpiloguesOnReductionsMatchJitKernels) {
  for (const char* e : {"1", "10", "33", "1000", "5000"}) {
    ExpectSameAsJitKernels(absl::StrReplaceAll(WithReducers("logsumexp", R"(
  x = f32[37,LEN] parameter(0)
  zero = f32[] constant(0)
  sum = f32[37] reduce(f32[37,LEN] exponential(x), zero), dimensions={1}, to_apply=add_f32
  ROOT out = f32[37,1] bitcast(f32[37] log(sum))
)"),
                                               {{"LEN", e}}));
    // (A reduce of one element is simplified away.)
    if (std::string(e) == "1") continue;
    ExpectSameAsJitKernels(absl::StrReplaceAll(WithReducers("loss", R"(
  x = f32[LEN] parameter(0)
  zero = f32[] constant(0)
  sum = f32[] reduce(x, zero), dimensions={0}, to_apply=add_f32
  scale = f32[] constant(0.00390625)
  ROOT loss = f32[] negate(f32[] multiply(sum, scale))
)"),
                                               {{"LEN", e}}));
  }
}

// Column reductions ([R, E] -> [E], over all but the last dimension), row
// by row as the JIT's column kernels fold them, with what is computed per
// element before the fold and per column after it (a bias gradient and its
// SGD update).
TEST(TileKernelTest, ColumnReductionsMatchJitKernels) {
  constexpr char kSum[] = R"(
  x = f32[ROWS,LEN] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[LEN] reduce(x, zero), dimensions={0}, to_apply=add_f32
)";
  for (const char* rows : {"1", "7", "100"}) {
    for (const char* e : {"1", "33", "2100"}) {
      ExpectSameAsJitKernels(
          absl::StrReplaceAll(WithReducers("column_sum", kSum), {{"ROWS", rows}, {"LEN", e}}));
    }
  }
  constexpr char kUpdate[] = R"(
  g = f32[64,LEN] parameter(0)
  b = f32[LEN] parameter(1)
  zero = f32[] constant(0)
  sum = f32[LEN] reduce(g, zero), dimensions={0}, to_apply=add_f32
  zb = f32[LEN] broadcast(zero), dimensions={}
  lr = f32[] constant(0.01)
  lrb = f32[LEN] broadcast(lr), dimensions={}
  step = f32[LEN] multiply(f32[LEN] add(sum, zb), lrb)
  ROOT updated = f32[LEN] subtract(b, step)
)";
  for (const char* e : {"10", "2500"}) {
    ExpectSameAsJitKernels(absl::StrReplaceAll(WithReducers("bias_update", kUpdate), {{"LEN", e}}));
  }
  // Per-element work before the fold (a per-row value, a column, a math
  // routine), over rank 3; then alone, or with an epilogue that reads the
  // same column (the accumulators must outlive the rows' scratch tiles).
  constexpr char kWeighted[] = R"(
  x = f32[4,9,300] parameter(0)
  w = f32[4,9] parameter(1)
  c = f32[300] parameter(2)
  wb = f32[4,9,300] broadcast(w), dimensions={0,1}
  cb = f32[4,9,300] broadcast(c), dimensions={2}
  t = f32[4,9,300] tanh(x)
  v = f32[4,9,300] add(f32[4,9,300] multiply(t, wb), cb)
  zero = f32[] constant(0)
  r = f32[300] reduce(v, zero), dimensions={0,1}, to_apply=add_f32
  ROOT out = ROOT_OP
)";
  for (const char* root : {"f32[300] negate(r)", "f32[300] multiply(r, c)"}) {
    ExpectSameAsJitKernels(
        WithReducers("weighted", absl::StrReplaceAll(kWeighted, {{"ROOT_OP", root}})));
  }
  // Other reducers, in either operand order.
  for (const char* op : {"maximum", "minimum", "multiply", "add"}) {
    for (const char* order : {"a, b", "b, a"}) {
      ExpectSameAsJitKernels(WithReducer(op, order, R"(
  x = f32[40,70] parameter(0)
  init = f32[] parameter(1)
  ROOT r = f32[70] reduce(x, init), dimensions={0}, to_apply=r
)"));
    }
  }
}

// Fusions outside the tier compile through LLVM as before.
TEST(TileKernelTest, OtherFusionsGoToLlvm) {
  for (const std::string& text : {
           // f64
           std::string(R"(
HloModule m
ENTRY main {
  x = f64[64,64] parameter(0)
  ROOT y = f64[64,64] exponential(f64[64,64] add(x, x))
})"),
           // a reduction over a middle dimension
           (WithReducers("m", R"(
  x = f32[8,64,16] parameter(0)
  zero = f32[] constant(0)
  e = f32[8,64,16] exponential(x)
  ROOT r = f32[8,16] reduce(e, zero), dimensions={1}, to_apply=add_f32
)")),

           // a reshape that moves elements
           std::string(R"(
HloModule m
ENTRY main {
  x = f32[8,4,32] parameter(0)
  y = f32[32,32] parameter(1)
  e = f32[8,4,32] exponential(x)
  r = f32[32,32] reshape(e)
  ROOT z = f32[32,32] multiply(r, y)
})"),
           // a transpose
           std::string(R"(
HloModule m
ENTRY main {
  x = f32[64,32] parameter(0)
  t = f32[32,64] transpose(x), dimensions={1,0}
  ROOT y = f32[32,64] exponential(t)
})"),
       }) {
    ExpectSameAsJitKernels(text, /*tile_kernels=*/0);
  }
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
