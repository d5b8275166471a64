// Reductions in the CPU backend's kernels (loop_kernel.cc), against the
// reference evaluator and against exact sums:
// - ops that are exact in any order (integer sums and products, max/min
//   with NaN and signed zeros, and/or/xor on PRED) match the evaluator bit
//   for bit in the vectorized lane order;
// - float sums in lanes stay within their documented error bound,
//   (n/lanes + log2(lanes) + 2) ulps of sum |x|, of the exact (double)
//   sum, on lengths around the lane count (tails, exact multiples, shorter
//   rows that take the serial path), several reduced dimensions and a
//   column-major operand;
// - with reorder_float_reductions off, float sums match bit for bit.
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "backends/common/hlo_executable.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/cpu/cpu_executable.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/literal.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace cpu {
namespace {

// Runs `text` on the CPU backend and on the evaluator.
void RunBoth(const std::string& text, const std::vector<Literal>& arguments,
             const CpuCompileOptions& options, Literal* cpu, Literal* reference) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<Literal> expected = EvaluateModule(**module, arguments);
  ASSERT_TRUE(expected.ok()) << expected.status();
  *reference = *std::move(expected);
  absl::StatusOr<std::unique_ptr<HloExecutable>> executable =
      CompileForCpuExecutable(*std::move(module), options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  absl::StatusOr<Literal> actual = (*executable)->RunLiterals(arguments);
  ASSERT_TRUE(actual.ok()) << actual.status();
  *cpu = *std::move(actual);
}

bool SameBits(const Literal& a, const Literal& b) {
  if (a.shape().IsTuple() || b.shape().IsTuple()) {
    if (!a.shape().IsTuple() || !b.shape().IsTuple() || a.tuple_size() != b.tuple_size()) {
      return false;
    }
    for (int64_t i = 0; i < a.tuple_size(); ++i) {
      if (!SameBits(a.tuple_element(i), b.tuple_element(i))) return false;
    }
    return true;
  }
  return a.shape().dimensions() == b.shape().dimensions() && a.size_bytes() == b.size_bytes() &&
         std::memcmp(a.untyped_data(), b.untyped_data(), a.size_bytes()) == 0;
}

std::string ReduceModule(const std::string& type, const std::string& op,
                         const std::string& operand, const std::string& result,
                         const std::string& dimensions, const std::string& init,
                         const std::string& reducer_operands = "a, b") {
  return absl::StrReplaceAll(R"(
HloModule reduce
red {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  ROOT c = $T[] $OP($ARGS)
}
ENTRY main {
  x = $OPERAND parameter(0)
  init = $T[] constant($INIT)
  ROOT r = $RESULT reduce(x, init), dimensions={$DIMS}, to_apply=red
}
)",
                             {{"$T", type},
                              {"$OP", op},
                              {"$ARGS", reducer_operands},
                              {"$OPERAND", operand},
                              {"$RESULT", result},
                              {"$DIMS", dimensions},
                              {"$INIT", init}});
}

TEST(ReductionKernelTest, ExactOpsMatchBitForBitInLaneOrder) {
  std::mt19937_64 rng(11);
  // f32 max and min over rows with NaNs, infinities and both zeros.
  const std::vector<float> specials = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.5f, -2.5f};
  // Reducers taking the accumulator first and second.
  for (const char* op : {"maximum", "minimum"}) {
    for (int64_t n : {31, 32, 33, 100, 1025}) {
      for (const char* operands : {"a, b", "b, a"}) {
        SCOPED_TRACE(absl::StrCat(op, "(", operands, ") n=", n));
        const std::string text =
            ReduceModule("f32", op, absl::StrCat("f32[6,", n, "]"), "f32[6]", "1",
                         std::string(op) == "maximum" ? "-inf" : "inf", operands);
        Literal x(Shape(F32, {6, n}));
        std::uniform_int_distribution<int> pick(0, 20);
        std::uniform_real_distribution<float> value(-100.0f, 100.0f);
        for (int64_t i = 0; i < 6 * n; ++i) {
          const int k = pick(rng);
          // Row 0 has no NaN; row 1 only zeros of both signs.
          if (i / n == 1) {
            x.data<float>()[i] = k % 2 == 0 ? 0.0f : -0.0f;
          } else if (k < static_cast<int>(specials.size()) && (i / n != 0 || k != 4)) {
            x.data<float>()[i] = specials[k];
          } else {
            x.data<float>()[i] = value(rng);
          }
        }
        Literal cpu, reference;
        RunBoth(text, {x}, CpuCompileOptions{}, &cpu, &reference);
        EXPECT_TRUE(SameBits(cpu, reference)) << cpu.ToString() << "\nvs\n" << reference.ToString();
      }
    }
  }
  // Integer sums (wrapping) and products, s32 and u8, and PRED and/or.
  struct Case {
    const char* type;
    const char* op;
    const char* init;
  };
  for (const Case& c : {Case{"s32", "add", "7"}, Case{"s32", "multiply", "1"},
                        Case{"u8", "add", "3"}, Case{"s32", "maximum", "-5"},
                        Case{"u32", "minimum", "4000000000"}, Case{"pred", "and", "true"},
                        Case{"pred", "or", "false"}, Case{"s64", "xor", "0"}}) {
    for (int64_t n : {40, 129, 300}) {
      SCOPED_TRACE(absl::StrCat(c.type, " ", c.op, " n=", n));
      const std::string text = ReduceModule(c.type, c.op, absl::StrCat(c.type, "[5,", n, "]"),
                                            absl::StrCat(c.type, "[5]"), "1", c.init);
      absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
      ASSERT_TRUE(module.ok()) << module.status();
      Literal x(Shape((*module)->entry_computation()->parameter_instruction(0)->shape()));
      std::uniform_int_distribution<int64_t> value(-1000, 1000);
      for (int64_t i = 0; i < 5 * n; ++i) {
        // Products of small values (mostly 1) so they neither vanish nor
        // only wrap; PRED rows mostly true / mostly false.
        int64_t v = value(rng);
        if (std::string(c.op) == "multiply") v = v % 7 == 0 ? 3 : (v % 5 == 0 ? -1 : 1);
        if (std::string(c.type) == "pred") v = (v % 50 != 0) == (i / n % 2 == 0);
        x.SetFromInt64(i, v);
      }
      Literal cpu, reference;
      RunBoth(text, {x}, CpuCompileOptions{}, &cpu, &reference);
      EXPECT_TRUE(SameBits(cpu, reference)) << cpu.ToString() << "\nvs\n" << reference.ToString();
    }
  }
}

// The exact sum and sum |x| of the elements of `x` (f32[rows, ...]) that
// reduce into result element `r`, per `reduced(i) == r`.
struct FloatSumCase {
  std::string operand;     // "f32[...]{...}"
  std::string result;      // "f32[...]"
  std::string dimensions;  // reduced dimensions
  int64_t rows;            // result elements
  int64_t length;          // elements folded per result element
  int64_t lanes_length;    // the innermost reduced dimension's extent
};

TEST(ReductionKernelTest, FloatSumsStayWithinTheLaneBound) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  // Each case's operand is laid out so that the kept dimension is dim 0
  // and the evaluator's linear order per result element is easy to follow:
  // result element r folds x[r, ...] (all remaining dimensions).
  const std::vector<FloatSumCase> cases = {
      {"f32[8,4099]{1,0}", "f32[8]", "1", 8, 4099, 4099},
      {"f32[8,1024]{1,0}", "f32[8]", "1", 8, 1024, 1024},
      {"f32[8,32]{1,0}", "f32[8]", "1", 8, 32, 32},
      {"f32[8,31]{1,0}", "f32[8]", "1", 8, 31, 31},  // serial: shorter than the lanes
      {"f32[4,7,100]{2,1,0}", "f32[4]", "1,2", 4, 700, 100},
      {"f32[4,7,100]{1,2,0}", "f32[4]", "1,2", 4, 700, 7},  // dim 1 is minor: serial
      {"f32[4,50,40]{1,2,0}", "f32[4]", "1,2", 4, 2000, 50},
  };
  for (const FloatSumCase& c : cases) {
    SCOPED_TRACE(c.operand);
    const std::string text = ReduceModule("f32", "add", c.operand, c.result, c.dimensions, "0");
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    Literal x(Shape((*module)->entry_computation()->parameter_instruction(0)->shape()));
    for (float& v : x.data<float>()) v = value(rng);
    Literal cpu, reference;
    RunBoth(text, {x}, CpuCompileOptions{}, &cpu, &reference);
    // 32 f32 lanes (128 bytes), 64 from 256 elements on (reduce_emitter.cc).
    const int64_t lanes = c.lanes_length >= 256 ? 64 : 32;
    const double eps = std::ldexp(1.0, -24);
    const double bound_ulps = c.lanes_length >= lanes
                                  ? static_cast<double>(c.length) / lanes + std::log2(lanes) + 2
                                  : static_cast<double>(c.length) + 2;
    for (int64_t r = 0; r < c.rows; ++r) {
      double exact = 0, magnitude = 0;
      for (int64_t i = 0; i < c.length; ++i) {
        const double v = x.data<float>()[r * c.length + i];  // row-major literal data
        exact += v;
        magnitude += std::fabs(v);
      }
      const double error = std::fabs(cpu.data<float>()[r] - exact);
      EXPECT_LE(error, bound_ulps * eps * magnitude)
          << "row " << r << ": cpu " << cpu.data<float>()[r] << ", exact " << exact
          << ", evaluator " << reference.data<float>()[r];
    }
  }
}

TEST(ReductionKernelTest, SerialOrderWhenReorderingIsOff) {
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  CpuCompileOptions serial;
  serial.reorder_float_reductions = false;
  for (const char* type : {"f32", "f64"}) {
    const std::string text = ReduceModule(type, "add", absl::StrCat(type, "[6,1000]"),
                                          absl::StrCat(type, "[6]"), "1", "0.25");
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    Literal x(Shape((*module)->entry_computation()->parameter_instruction(0)->shape()));
    for (int64_t i = 0; i < x.element_count(); ++i) x.SetFromDouble(i, value(rng));
    Literal cpu, reference;
    RunBoth(text, {x}, serial, &cpu, &reference);
    EXPECT_TRUE(SameBits(cpu, reference)) << type;
  }
}

// Row kernels: reduces read through broadcasts inside one fusion are
// computed once per row (loop_kernel.cc's RowPlan): a whole softmax, a
// whole layer norm (two reduces, the second reading the first), and a
// reduce root, against the evaluator.
TEST(ReductionKernelTest, RowKernelsComputeEachRowOnce) {
  const std::string softmax = R"(
HloModule row_softmax, is_scheduled=true
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
fused {
  x = f32[ROWS,COLS] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[ROWS] reduce(x, ninf), dimensions={1}, to_apply=max
  mb = f32[ROWS,COLS] broadcast(m), dimensions={0}
  d = f32[ROWS,COLS] subtract(x, mb)
  e = f32[ROWS,COLS] exponential(d)
  z = f32[] constant(0)
  s = f32[ROWS] reduce(e, z), dimensions={1}, to_apply=add
  sb = f32[ROWS,COLS] broadcast(s), dimensions={0}
  ROOT r = f32[ROWS,COLS] divide(e, sb)
}
ENTRY main {
  p = f32[ROWS,COLS] parameter(0)
  ROOT f = f32[ROWS,COLS] fusion(p), kind=kInput, calls=fused
}
)";
  const std::string layer_norm = R"(
HloModule row_layer_norm, is_scheduled=true
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  x = f32[ROWS,COLS] parameter(0)
  g = f32[COLS] parameter(1)
  z = f32[] constant(0)
  n = f32[] constant(COLS)
  sum = f32[ROWS] reduce(x, z), dimensions={1}, to_apply=add
  nb = f32[ROWS] broadcast(n), dimensions={}
  mean = f32[ROWS] divide(sum, nb)
  meanb = f32[ROWS,COLS] broadcast(mean), dimensions={0}
  c = f32[ROWS,COLS] subtract(x, meanb)
  sq = f32[ROWS,COLS] multiply(c, c)
  ss = f32[ROWS] reduce(sq, z), dimensions={1}, to_apply=add
  var = f32[ROWS] divide(ss, nb)
  eps = f32[] constant(1e-5)
  epsb = f32[ROWS] broadcast(eps), dimensions={}
  ve = f32[ROWS] add(var, epsb)
  inv = f32[ROWS] rsqrt(ve)
  invb = f32[ROWS,COLS] broadcast(inv), dimensions={0}
  gb = f32[ROWS,COLS] broadcast(g), dimensions={1}
  scaled = f32[ROWS,COLS] multiply(c, invb)
  ROOT y = f32[ROWS,COLS] multiply(scaled, gb)
}
ENTRY main {
  p = f32[ROWS,COLS] parameter(0)
  q = f32[COLS] parameter(1)
  ROOT f = f32[ROWS,COLS] fusion(p, q), kind=kInput, calls=fused
}
)";
  // The variance of each row as the root: both reduces per row, root [ROWS].
  const std::string variance = R"(
HloModule row_variance, is_scheduled=true
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  x = f32[ROWS,COLS] parameter(0)
  z = f32[] constant(0)
  sum = f32[ROWS] reduce(x, z), dimensions={1}, to_apply=add
  sb = f32[ROWS,COLS] broadcast(sum), dimensions={0}
  c = f32[ROWS,COLS] subtract(x, sb)
  sq = f32[ROWS,COLS] multiply(c, c)
  ROOT ss = f32[ROWS] reduce(sq, z), dimensions={1}, to_apply=add
}
ENTRY main {
  p = f32[ROWS,COLS] parameter(0)
  ROOT f = f32[ROWS] fusion(p), kind=kInput, calls=fused
}
)";
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<float> value(-3.0f, 3.0f);
  CpuCompileOptions exact;
  exact.polynomial_math = false;
  exact.reorder_float_reductions = false;
  exact.run_fusion_pipeline = false;
  exact.parallel_min_elements = 0;  // rows split over threads
  for (const std::string& text : {softmax, layer_norm, variance}) {
    for (auto [rows, cols] : {std::pair<int, int>{1, 1}, {7, 33}, {64, 1025}, {300, 100}}) {
      const std::string module_text =
          absl::StrReplaceAll(text, {{"ROWS", absl::StrCat(rows)}, {"COLS", absl::StrCat(cols)}});
      SCOPED_TRACE(module_text.substr(0, 40) + absl::StrCat(" ", rows, "x", cols));
      absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(module_text);
      ASSERT_TRUE(module.ok()) << module.status();
      std::vector<Literal> arguments;
      for (const HloInstruction* p : (*module)->entry_computation()->parameter_instructions()) {
        Literal x(p->shape());
        for (float& v : x.data<float>()) v = value(rng);
        arguments.push_back(std::move(x));
      }
      // Bit for bit with exact math and the serial order; with the
      // defaults (polynomial exp, lanes), close.
      Literal cpu, reference;
      RunBoth(module_text, arguments, exact, &cpu, &reference);
      EXPECT_TRUE(SameBits(cpu, reference));
      CpuCompileOptions fast;
      fast.run_fusion_pipeline = false;
      RunBoth(module_text, arguments, fast, &cpu, &reference);
      for (int64_t i = 0; i < cpu.element_count(); ++i) {
        const float a = cpu.data<float>()[i], b = reference.data<float>()[i];
        ASSERT_NEAR(a, b, 1e-4f * (1.0f + std::fabs(b))) << i;
      }
      // It ran as one kernel, no fallback.
      absl::StatusOr<std::unique_ptr<HloModule>> again = ParseHloModule(module_text);
      ASSERT_TRUE(again.ok());
      absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
          CompileForCpu(*std::move(again), exact);
      ASSERT_TRUE(executable.ok()) << executable.status();
      EXPECT_EQ((*executable)->fallback_instruction_count(), 0)
          << absl::StrJoin((*executable)->stats().fallbacks, "\n");
    }
  }
}

// Arguments for the column tests: floats in [-2, 2), s32 in [-2000, 2000).
std::vector<Literal> ColumnArguments(const HloModule& module, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  std::vector<Literal> arguments;
  for (const HloInstruction* p : module.entry_computation()->parameter_instructions()) {
    Literal literal(p->shape());
    for (int64_t i = 0; i < literal.element_count(); ++i) {
      literal.SetFromDouble(
          i, p->shape().element_type() == S32 ? std::floor(value(rng) * 1000) : value(rng));
    }
    arguments.push_back(std::move(literal));
  }
  return arguments;
}

// Column kernels: reduces that keep the operand's minor dimension (bias
// gradients) fold tiles of results at once along it, in the evaluator's
// order: bit for bit, with the default options too, on sizes from 1 to
// around two tiles (vector widths, the tile's edges; up to 16 columns in
// registers), several kept and reduced dimensions, an epilogue, s32 and
// max, split over threads.
TEST(ReductionKernelTest, ColumnKernelsMatchBitForBit) {
  const std::string text = R"(
HloModule columns
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
imax {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}
ENTRY main {
  x = f32[ROWS,COLS] parameter(0)
  bias = f32[COLS] parameter(1)
  y = f32[3,ROWS,5,COLS] parameter(2)
  k = s32[ROWS,COLS] parameter(3)
  z = f32[] constant(0)
  g = f32[COLS] reduce(x, z), dimensions={0}, to_apply=add
  lr = f32[] constant(0.01)
  lb = f32[COLS] broadcast(lr), dimensions={}
  step = f32[COLS] multiply(g, lb)
  new_bias = f32[COLS] subtract(bias, step)
  g2 = f32[3,COLS] reduce(y, z), dimensions={1,2}, to_apply=add
  lowest = s32[] constant(-2147483648)
  km = s32[COLS] reduce(k, lowest), dimensions={0}, to_apply=imax
  ROOT t = (f32[COLS], f32[3,COLS], s32[COLS]) tuple(new_bias, g2, km)
}
)";
  std::mt19937_64 rng(17);
  for (auto [rows, cols] : {std::pair<int, int>{1, 1},
                            // Narrow: an accumulator register per column
                            // (kNarrowColumns) for the rank-2 result.
                            {4, 7},
                            {6, 16},
                            {5, 17},
                            {9, 63},
                            {16, 64},
                            {5, 65},
                            {33, 130},
                            // Around the tile of 2048 results (kColumnTile).
                            {3, 2047},
                            {2, 2048},
                            {3, 2049},
                            {2, 4100}}) {
    const std::string module_text =
        absl::StrReplaceAll(text, {{"ROWS", absl::StrCat(rows)}, {"COLS", absl::StrCat(cols)}});
    SCOPED_TRACE(absl::StrCat(rows, "x", cols));
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(module_text);
    ASSERT_TRUE(module.ok()) << module.status();
    std::vector<Literal> arguments = ColumnArguments(**module, rng);
    for (bool defaults : {false, true}) {
      CpuCompileOptions options;
      options.parallel_min_elements = 0;
      if (!defaults) {
        options.polynomial_math = false;
        options.reorder_float_reductions = false;
      }
      Literal cpu, reference;
      RunBoth(module_text, arguments, options, &cpu, &reference);
      EXPECT_TRUE(SameBits(cpu, reference)) << (defaults ? "defaults" : "exact");
    }
  }
}

// Narrow column kernels over a whole range known when they are emitted
// (one partition: rank-1 results too), as column softmax-like programs
// have them: a 1023x9 column sum with an epilogue, an s32 max of 7
// columns, and 16 and 17 columns either side of kNarrowColumns.
TEST(ReductionKernelTest, NarrowColumnsOverTheirWholeRange) {
  const std::string text = R"(
HloModule narrow
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
imax {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}
ENTRY main {
  x = f32[1023,9] parameter(0)
  k = s32[40,7] parameter(1)
  y = f32[30,16] parameter(2)
  w = f32[30,17] parameter(3)
  z = f32[] constant(0)
  s = f32[9] reduce(x, z), dimensions={0}, to_apply=add
  half = f32[9] broadcast(f32[] constant(0.5)), dimensions={}
  scaled = f32[9] multiply(s, half)
  lowest = s32[] constant(-2147483648)
  km = s32[7] reduce(k, lowest), dimensions={0}, to_apply=imax
  ys = f32[16] reduce(y, z), dimensions={0}, to_apply=add
  ws = f32[17] reduce(w, z), dimensions={0}, to_apply=add
  ROOT t = (f32[9], s32[7], f32[16], f32[17]) tuple(scaled, km, ys, ws)
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::mt19937_64 rng(5);
  std::vector<Literal> arguments = ColumnArguments(**module, rng);
  for (bool defaults : {false, true}) {
    CpuCompileOptions options;
    if (!defaults) {
      options.polynomial_math = false;
      options.reorder_float_reductions = false;
    }
    Literal cpu, reference;
    RunBoth(text, arguments, options, &cpu, &reference);
    EXPECT_TRUE(SameBits(cpu, reference)) << (defaults ? "defaults" : "exact");
  }
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
