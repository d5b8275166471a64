// The CPU backend against the reference evaluator: hand-written modules,
// the JAX corpus (TESSERA_JAX_CORPUS, skipped when unset) and random
// modules.  Results must match bit for bit (NaNs match NaNs): the native
// kernels are exact for elementwise ops, the fallback is the evaluator.
#include "backends/cpu/cpu_compiler.h"

#include <cmath>
#include <complex>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/npy.h"
#include "hlo/ir/random_literal.h"
#include "hlo/parser/hlo_parser.h"
#include "hlo/parser/hlo_printer.h"
#include "runtime/thread_pool.h"
#include "hlo/testing/random_control_flow_module.h"
#include "hlo/testing/random_module.h"

namespace tessera {
namespace cpu {
namespace {

namespace fs = std::filesystem;

// Bitwise equality, except that NaNs equal NaNs; `why` says where not.
// With `ulps` > 0, floats may differ by that many units in the last place
// of the larger magnitude (in the element type's precision): for kernels
// with polynomial transcendentals (polynomial_math.h bounds them at 2.5 ulp
// at most; 4 leaves room for a rounding or two after them).
// With `rtol` > 0, floats may also differ by rtol * (1 + max(|a|, |b|))
// (native dots sum in another order than the evaluator).
bool SameResults(const Literal& a, const Literal& b, std::string* why, double ulps = 0,
                 double rtol = 0) {
  std::vector<const Literal*> left = a.Leaves(), right = b.Leaves();
  if (left.size() != right.size()) {
    *why = absl::StrCat(left.size(), " vs ", right.size(), " result leaves");
    return false;
  }
  for (size_t leaf = 0; leaf < left.size(); ++leaf) {
    const Literal& x = *left[leaf];
    const Literal& y = *right[leaf];
    if (x.shape().IsToken() && y.shape().IsToken()) continue;
    if (x.shape().element_type() != y.shape().element_type() ||
        x.shape().dimensions() != y.shape().dimensions()) {
      *why = absl::StrCat("leaf ", leaf, ": shape ", x.shape().ToString(), " vs ",
                          y.shape().ToString());
      return false;
    }
    const PrimitiveType type = x.shape().element_type();
    for (int64_t i = 0; i < x.element_count(); ++i) {
      if (IsFloatingPointType(type) || IsComplexType(type)) {
        const std::complex<double> u = x.GetAsComplex(i), v = y.GetAsComplex(i);
        const bool both_nan = (std::isnan(u.real()) || std::isnan(u.imag())) &&
                              (std::isnan(v.real()) || std::isnan(v.imag()));
        if (both_nan) continue;
        if (u == v && std::signbit(u.real()) == std::signbit(v.real()) &&
            std::signbit(u.imag()) == std::signbit(v.imag())) {
          continue;
        }
        if (rtol > 0 && !IsComplexType(type) && std::isfinite(u.real()) &&
            std::isfinite(v.real()) &&
            std::abs(u.real() - v.real()) <=
                rtol * (1 + std::max(std::abs(u.real()), std::abs(v.real())))) {
          continue;
        }
        if (ulps > 0 && !IsComplexType(type)) {
          const int mantissa = type == F64 ? 52 : type == F32 ? 23 : type == BF16 ? 7 : 10;
          const double larger = std::max(std::abs(u.real()), std::abs(v.real()));
          const double ulp = std::ldexp(1.0, std::ilogb(std::max(larger, 1e-300)) - mantissa);
          const double tiny = type == F64 ? 4.9e-324 : 1.4e-45;
          if (std::isfinite(larger) && std::abs(u.real() - v.real()) <= ulps * ulp + tiny) {
            continue;
          }
        }
      } else if (x.GetAsInt64(i) == y.GetAsInt64(i)) {
        continue;
      }
      *why = absl::StrCat("leaf ", leaf, " element ", i, ": evaluator ", x.GetAsDouble(i),
                          ", cpu ", y.GetAsDouble(i));
      return false;
    }
  }
  return true;
}

// Whether kernels of `text` may use polynomial transcendentals.
bool HasTranscendental(absl::string_view text) {
  for (absl::string_view op : {" exponential(", " exponential-minus-one(", " log(",
                               " log-plus-one(", " logistic(", " tanh(", " erf(", " sine(",
                               " cosine(", " power(", " cbrt(", " rsqrt(", " sqrt("}) {
    if (absl::StrContains(text, op)) return true;
  }
  return false;
}

double Tolerance(absl::string_view text, const CpuCompileOptions& options) {
  return options.polynomial_math && HasTranscendental(text) ? 4 : 0;
}

// Relative tolerance for modules whose sums run in another order than the
// evaluator's: dots (and convolutions) through Eigen, float reductions in
// vector lanes: 1e-4 on modest values.
double DotTolerance(absl::string_view text, const CpuCompileOptions& options) {
  const bool dots = options.native_dots && (absl::StrContains(text, " dot(") ||
                                            absl::StrContains(text, " convolution("));
  const bool reductions = options.reorder_float_reductions && absl::StrContains(text, " reduce(");
  return dots || reductions ? 1e-4 : 0;
}

std::vector<Literal> Clone(const std::vector<Literal>& literals) {
  std::vector<Literal> copies;
  for (const Literal& literal : literals) copies.push_back(literal);
  return copies;
}

std::vector<Literal> RandomArguments(const HloModule& module, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Literal> arguments;
  for (const HloInstruction* parameter : module.entry_computation()->parameter_instructions()) {
    absl::StatusOr<Literal> argument = MakeRandomLiteral(parameter->shape(), rng);
    EXPECT_TRUE(argument.ok()) << argument.status();
    arguments.push_back(argument.ok() ? *std::move(argument) : Literal());
  }
  return arguments;
}

// The runtime::Executable path (CompileForCpuExecutable): RunLiterals, and
// steady state (buffers converted once, ExecuteInto into the same result
// buffers several times, with new inputs in between), against the
// evaluator.
void CheckRuntimeModule(absl::string_view text, const std::vector<Literal>& arguments,
                        const CpuCompileOptions& options) {
  absl::StatusOr<std::unique_ptr<HloModule>> reference = ParseHloModule(text);
  ASSERT_TRUE(reference.ok()) << reference.status();
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<HloExecutable>> executable =
      CompileForCpuExecutable(*std::move(module), options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  const runtime::Executable& runtime_executable = (*executable)->executable();
  std::vector<runtime::OwnedBuffer> outputs = runtime_executable.AllocateResults();
  std::vector<runtime::ResultBuffer> out(outputs.begin(), outputs.end());
  for (uint64_t trial = 0; trial < 3; ++trial) {
    std::vector<Literal> inputs =
        !arguments.empty() && trial == 0 ? Clone(arguments) : RandomArguments(**reference, trial + 7);
    absl::StatusOr<Literal> expected = EvaluateModule(**reference, inputs);
    ASSERT_TRUE(expected.ok()) << expected.status();
    std::string why;
    if (trial == 0) {
      absl::StatusOr<Literal> actual = (*executable)->RunLiterals(inputs);
      ASSERT_TRUE(actual.ok()) << actual.status();
      EXPECT_TRUE(SameResults(*expected, *actual, &why, Tolerance(text, options), DotTolerance(text, options)))
          << why << "\n" << (*executable)->ToString();
    }
    absl::StatusOr<std::vector<runtime::OwnedBuffer>> in_buffers =
        (*executable)->ArgumentsToBuffers(inputs);
    ASSERT_TRUE(in_buffers.ok()) << in_buffers.status();
    std::vector<runtime::ArgumentBuffer> in(in_buffers->begin(), in_buffers->end());
    for (int run = 0; run < 2; ++run) {
      absl::Status status = runtime_executable.ExecuteInto(in, out);
      ASSERT_TRUE(status.ok()) << status;
    }
    absl::StatusOr<Literal> actual = (*executable)->ResultFromBuffers(outputs);
    ASSERT_TRUE(actual.ok()) << actual.status();
    EXPECT_TRUE(SameResults(*expected, *actual, &why, Tolerance(text, options), DotTolerance(text, options)))
        << "steady state: " << why << "\n" << (*executable)->ToString();
  }
}

// Polynomial math off, for modules that amplify a transcendental's ulps
// past any fixed bound (exp(t) - c cancels; a loop squares sin(x) 7 times):
// compared bit for bit.
CpuCompileOptions LibmMath() {
  CpuCompileOptions options;
  options.polynomial_math = false;
  options.reorder_float_reductions = false;
  return options;
}

struct Counts {
  int64_t native = 0;
  int64_t fallback = 0;
};

// Compiles `text` for the CPU and checks it against the evaluator on
// `arguments` (random ones when empty), twice (the arena is reused).
void CheckModule(absl::string_view text, std::vector<Literal> arguments = {},
                 Counts* counts = nullptr, const CpuCompileOptions& options = {}) {
  absl::StatusOr<std::unique_ptr<HloModule>> reference = ParseHloModule(text);
  ASSERT_TRUE(reference.ok()) << reference.status();
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(*std::move(module), options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  if (counts != nullptr) {
    counts->native = (*executable)->native_instruction_count();
    counts->fallback = (*executable)->fallback_instruction_count();
  }
  for (uint64_t trial = 0; trial < 2; ++trial) {
    std::vector<Literal> inputs =
        arguments.empty() || trial > 0 ? RandomArguments(**reference, trial + 1) : arguments;
    if (!arguments.empty() && trial == 0) inputs = arguments;
    absl::StatusOr<Literal> expected = EvaluateModule(**reference, inputs);
    ASSERT_TRUE(expected.ok()) << expected.status();
    absl::StatusOr<Literal> actual = (*executable)->Run(inputs);
    ASSERT_TRUE(actual.ok()) << actual.status();
    std::string why;
    EXPECT_TRUE(SameResults(*expected, *actual, &why, Tolerance(text, options), DotTolerance(text, options)))
        << why << "\n" << PrintHloModule((*executable)->module()) << "\n"
        << (*executable)->ToString();
  }
  CheckRuntimeModule(text, arguments, options);
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

// The fallbacks of `text` compiled with `options`, one a line.
std::string Fallbacks(absl::string_view text, const CpuCompileOptions& options = {}) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return std::string(module.status().message());
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(*std::move(module), options);
  if (!executable.ok()) return std::string(executable.status().message());
  std::string out;
  for (const std::string& f : (*executable)->stats().fallbacks) absl::StrAppend(&out, f, "\n");
  return out;
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

// Pad (edge, negative and interior), concatenate, dynamic-slice and
// dynamic-update-slice (start indices clamped as XLA does, signed and
// unsigned, the update written in place over its base) in kernels, fused
// and alone, on several element types: bit for bit with the evaluator.
TEST(CpuCompilerTest, IndexingOpsRunNatively) {
  const std::string text = R"(
HloModule indexing
ENTRY main {
  x = f32[5,7] parameter(0)
  y = f32[5,3] parameter(1)
  i = s32[] parameter(2)
  j = u32[] parameter(3)
  k = s8[6,4] parameter(4)
  zero = f32[] constant(0.5)
  padded = f32[12,6] pad(x, zero), padding=2_1_1x-1_0_0
  cat = f32[5,17] concatenate(x, y, x), dimensions={1}
  e = f32[5,17] exponential(cat)
  ds = f32[3,4] dynamic-slice(e, i, i), dynamic_slice_sizes={3,4}
  ds_far = f32[2,2] dynamic-slice(x, j, j), dynamic_slice_sizes={2,2}
  neg = f32[5,7] negate(x)
  upd = f32[5,7] dynamic-update-slice(neg, ds_far, i, i)
  one = s8[] constant(1)
  kb = s8[2,4] broadcast(one), dimensions={}
  kz = s32[] constant(0)
  kupd = s8[6,4] dynamic-update-slice(k, kb, i, kz)
  ROOT t = (f32[12,6], f32[3,4], f32[5,7], s8[6,4], f32[2,2]) tuple(padded, ds, upd, kupd, ds_far)
}
)";
  for (auto [i, j] : {std::pair<int32_t, uint32_t>{1, 2}, {-3, 100}, {4, 0}, {100, 6}}) {
    SCOPED_TRACE(absl::StrCat("i=", i, " j=", j));
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    std::vector<Literal> arguments = RandomArguments(**module, 5);
    arguments[2] = Literal::CreateR0<int32_t>(i);
    arguments[3] = Literal::CreateR0<uint32_t>(j);
    Counts counts;
    CheckModule(text, std::move(arguments), &counts, LibmMath());
    EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, LibmMath());
  }
}

// Reduce-window: pooling with strides, padding (skipped, not folded),
// window and base dilation, f32 and s32, fused with an epilogue: bit for
// bit with the evaluator.
TEST(CpuCompilerTest, ReduceWindowsRunNatively) {
  const std::string text = R"(
HloModule windows
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
iadd {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY main {
  x = f32[2,9,11,3] parameter(0)
  k = s32[13,7] parameter(1)
  ninf = f32[] constant(-inf)
  pool = f32[2,5,6,3] reduce-window(x, ninf), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=max
  zero = f32[] constant(0)
  avg = f32[2,9,11,3] reduce-window(x, zero), window={size=1x3x3x1 pad=0_0x1_1x1_1x0_0}, to_apply=add
  ninth = f32[] constant(0.111111)
  nb = f32[2,9,11,3] broadcast(ninth), dimensions={}
  scaled = f32[2,9,11,3] multiply(avg, nb)
  one = s32[] constant(1)
  dil = s32[13,5] reduce-window(k, one), window={size=3x2 stride=2x1 pad=2_2x0_1 rhs_dilate=2x3 lhs_dilate=2x1}, to_apply=iadd
  ROOT t = (f32[2,5,6,3], f32[2,9,11,3], s32[13,5]) tuple(pool, scaled, dil)
}
)";
  Counts counts;
  CheckModule(text, {}, &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, LibmMath());
}

// Gather: an embedding lookup (indices out of range clamp), a 2-D index
// vector with an implicit index_vector_dim elsewhere, and batching
// dimensions; bit for bit with the evaluator.
TEST(CpuCompilerTest, GathersRunNatively) {
  const std::string text = R"(
HloModule gathers
ENTRY main {
  table = f32[50,16] parameter(0)
  ids = s32[9] parameter(1)
  rows = f32[9,16] gather(table, ids), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,16}
  two = f32[] constant(2)
  tb = f32[9,16] broadcast(two), dimensions={}
  scaled = f32[9,16] multiply(rows, tb)
  img = f32[10,12] parameter(2)
  corners = u32[4,2] parameter(3)
  patches = f32[4,3,5] gather(img, corners), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={3,5}
  batched = f32[3,8,6] parameter(4)
  which = s32[3,4] parameter(5)
  picked = f32[3,4,6] gather(batched, which), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,6}
  ROOT t = (f32[9,16], f32[4,3,5], f32[3,4,6]) tuple(scaled, patches, picked)
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> arguments = RandomArguments(**module, 3);
  arguments[1] = Literal::CreateR1<int32_t>({0, 49, 50, -1, 7, 1000, 3, 3, -100000});
  arguments[3] = Literal::CreateFromVector<uint32_t>({4, 2}, {0, 0, 9, 11, 4000000000u, 3, 5, 6});
  std::vector<int32_t> which(12);
  for (int i = 0; i < 12; ++i) which[i] = (i * 5) % 11 - 1;  // -1..9: some clamp
  arguments[5] = Literal::CreateFromVector<int32_t>({3, 4}, which);
  Counts counts;
  CheckModule(text, std::move(arguments), &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, LibmMath());
}

// Scatter: an embedding gradient (scatter-add of rows, repeated and
// out-of-range indices), a non-commutative update (last write wins: the
// evaluator's order), batching dimensions, and an in-place update of a
// loop-carried buffer; bit for bit with the evaluator.
TEST(CpuCompilerTest, ScattersRunNatively) {
  const std::string text = R"(
HloModule scatters
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
second {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] subtract(b, a)
}
ENTRY main {
  table = f32[20,8] parameter(0)
  ids = s32[11] parameter(1)
  grads = f32[11,8] parameter(2)
  zero = f32[] constant(0)
  zb = f32[20,8] broadcast(zero), dimensions={}
  acc = f32[20,8] scatter(zb, ids, grads), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  moved = f32[20,8] add(table, acc)
  base = s32[6,5] parameter(3)
  where = s32[4,2] parameter(4)
  vals = s32[4] parameter(5)
  put = s32[6,5] scatter(base, where, vals), update_window_dims={}, inserted_window_dims={0,1}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=second
  batched = f32[3,7,2] parameter(6)
  rows = s32[3,4] parameter(7)
  bup = f32[3,4,2] parameter(8)
  bres = f32[3,7,2] scatter(batched, rows, bup), update_window_dims={2}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2, to_apply=add
  ROOT t = (f32[20,8], s32[6,5], f32[3,7,2]) tuple(moved, put, bres)
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> arguments = RandomArguments(**module, 9);
  arguments[1] = Literal::CreateR1<int32_t>({3, 3, 0, 19, 20, -1, 7, 3, 12, 19, 5});
  arguments[4] = Literal::CreateFromVector<int32_t>({4, 2}, {1, 1, 5, 4, 1, 1, 6, 0});
  std::vector<int32_t> rows(12);
  for (int i = 0; i < 12; ++i) rows[i] = (i * 3) % 9 - 1;  // -1..7: some skipped
  arguments[7] = Literal::CreateFromVector<int32_t>({3, 4}, rows);
  Counts counts;
  CheckModule(text, std::move(arguments), &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, LibmMath());
}

// Variadic reduces: argmax over rows and argmin over columns with JAX's
// NaN-aware reducers (first index on ties), a sum with a count, and a
// scalar result; bit for bit with the evaluator.
TEST(CpuCompilerTest, VariadicReducesRunNatively) {
  const std::string text = R"(
HloModule variadic
argmax {
  a = f32[] parameter(0)
  ai = s32[] parameter(1)
  b = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  isnan = pred[] compare(a, a), direction=NE
  keep = pred[] or(gt, isnan)
  eq = pred[] compare(a, b), direction=EQ
  first = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, first)
  take = pred[] or(keep, tie)
  v = f32[] select(take, a, b)
  i = s32[] select(take, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
argmin {
  a = f32[] parameter(0)
  ai = s32[] parameter(1)
  b = f32[] parameter(2)
  bi = s32[] parameter(3)
  lt = pred[] compare(a, b), direction=LT
  isnan = pred[] compare(a, a), direction=NE
  keep = pred[] or(lt, isnan)
  eq = pred[] compare(a, b), direction=EQ
  first = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, first)
  take = pred[] or(keep, tie)
  v = f32[] select(take, a, b)
  i = s32[] select(take, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
sumcount {
  a = f32[] parameter(0)
  n = s32[] parameter(1)
  b = f32[] parameter(2)
  m = s32[] parameter(3)
  s = f32[] add(a, b)
  c = s32[] add(n, m)
  ROOT t = (f32[], s32[]) tuple(s, c)
}
ENTRY main {
  x = f32[37,53] parameter(0)
  cols = s32[37,53] iota(), iota_dimension=1
  rows = s32[37,53] iota(), iota_dimension=0
  ninf = f32[] constant(-inf)
  pinf = f32[] constant(inf)
  zero = s32[] constant(0)
  fzero = f32[] constant(0)
  one = s32[] constant(1)
  ones = s32[37,53] broadcast(one), dimensions={}
  amax = (f32[37], s32[37]) reduce(x, cols, ninf, zero), dimensions={1}, to_apply=argmax
  amin = (f32[53], s32[53]) reduce(x, rows, pinf, zero), dimensions={0}, to_apply=argmin
  all = (f32[], s32[]) reduce(x, ones, fzero, zero), dimensions={0,1}, to_apply=sumcount
  v0 = f32[37] get-tuple-element(amax), index=0
  i0 = s32[37] get-tuple-element(amax), index=1
  i1 = s32[53] get-tuple-element(amin), index=1
  s = f32[] get-tuple-element(all), index=0
  c = s32[] get-tuple-element(all), index=1
  ROOT t = (f32[37], s32[37], s32[53], f32[], s32[]) tuple(v0, i0, i1, s, c)
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> arguments = RandomArguments(**module, 4);
  // Ties and NaNs.
  for (int i = 0; i < 37 * 53; i += 17) arguments[0].data<float>()[i] = 0.5f;
  arguments[0].data<float>()[100] = std::nanf("");
  Counts counts;
  CheckModule(text, std::move(arguments), &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, LibmMath());
}

// Sort: JAX's NaN-aware total order on f32 keys carrying s32 values,
// along a minor and a major dimension, descending s32, pred keys, a
// column-major operand and a comparator that is not a strict weak order;
// element for element with the evaluator (same merge sort).
TEST(CpuCompilerTest, SortsRunNatively) {
  const std::string text = R"(
HloModule sorts
total_less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ai = s32[] parameter(2)
  bi = s32[] parameter(3)
  ab = s32[] bitcast-convert(a)
  bb = s32[] bitcast-convert(b)
  zero = s32[] constant(0)
  mask = s32[] constant(2147483647)
  an = pred[] compare(ab, zero), direction=LT
  bn = pred[] compare(bb, zero), direction=LT
  ax = s32[] xor(ab, mask)
  bx = s32[] xor(bb, mask)
  ak = s32[] select(an, ax, ab)
  bk = s32[] select(bn, bx, bb)
  ROOT lt = pred[] compare(ak, bk), direction=LT
}
greater {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT gt = pred[] compare(a, b), direction=GT
}
pred_less {
  a = pred[] parameter(0)
  b = pred[] parameter(1)
  na = pred[] not(a)
  ROOT lt = pred[] and(na, b)
}
not_an_order {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT le = pred[] compare(a, b), direction=LE
}
ENTRY main {
  x = f32[9,40] parameter(0)
  idx = s32[9,40] iota(), iota_dimension=1
  rows = (f32[9,40], s32[9,40]) sort(x, idx), dimensions={1}, is_stable=true, to_apply=total_less
  cols = (f32[9,40], s32[9,40]) sort(x, idx), dimensions={0}, to_apply=total_less
  k = s32[33,5]{0,1} parameter(1)
  down = s32[33,5]{0,1} sort(k), dimensions={0}, to_apply=greater
  p = pred[17] parameter(2)
  ps = pred[17] sort(p), dimensions={0}, to_apply=pred_less
  y = f32[21] parameter(3)
  odd = f32[21] sort(y), dimensions={0}, to_apply=not_an_order
  r0 = f32[9,40] get-tuple-element(rows), index=0
  r1 = s32[9,40] get-tuple-element(rows), index=1
  c1 = s32[9,40] get-tuple-element(cols), index=1
  ROOT t = (f32[9,40], s32[9,40], s32[9,40], s32[33,5]{0,1}, pred[17], f32[21]) tuple(r0, r1, c1, down, ps, odd)
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> arguments = RandomArguments(**module, 6);
  // Ties, signed zeros and NaNs among the keys; repeated values in y.
  float* x = arguments[0].data<float>().data();
  for (int i = 0; i < 9 * 40; i += 7) x[i] = 0.25f;
  x[3] = -0.0f;
  x[4] = 0.0f;
  x[5] = std::nanf("");
  x[6] = -std::nanf("");
  for (int i = 0; i < 21; ++i) arguments[3].data<float>()[i] = static_cast<float>(i % 4);
  Counts counts;
  CheckModule(text, std::move(arguments), &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, LibmMath());
}

// topk: largest and smallest, ties (lower index first), signed zeros and
// NaNs (a total order), f32, s32 and bf16, k = 0 and k = the row length.
TEST(CpuCompilerTest, TopKRunsNatively) {
  const std::string text = R"(
HloModule topks
ENTRY main {
  x = f32[6,50] parameter(0)
  i = s32[3,4,10] parameter(1)
  h = bf16[5,9] parameter(2)
  top = (f32[6,7], s32[6,7]) topk(x), k=7, largest=true
  bottom = (f32[6,50], s32[6,50]) topk(x), k=50, largest=false
  itop = (s32[3,4,3], s32[3,4,3]) topk(i), k=3, largest=true
  htop = (bf16[5,2], s32[5,2]) topk(h), k=2, largest=true
  none = (f32[6,0], s32[6,0]) topk(x), k=0, largest=true
  t0 = f32[6,7] get-tuple-element(top), index=0
  t1 = s32[6,7] get-tuple-element(top), index=1
  b0 = f32[6,50] get-tuple-element(bottom), index=0
  b1 = s32[6,50] get-tuple-element(bottom), index=1
  i1 = s32[3,4,3] get-tuple-element(itop), index=1
  h0 = bf16[5,2] get-tuple-element(htop), index=0
  n1 = s32[6,0] get-tuple-element(none), index=1
  ROOT t = (f32[6,7], s32[6,7], f32[6,50], s32[6,50], s32[3,4,3], bf16[5,2], s32[6,0]) tuple(t0, t1, b0, b1, i1, h0, n1)
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> arguments = RandomArguments(**module, 8);
  float* x = arguments[0].data<float>().data();
  for (int j = 0; j < 300; j += 11) x[j] = 0.75f;
  x[1] = std::nanf("");
  x[2] = -std::nanf("");
  x[3] = -0.0f;
  x[4] = 0.0f;
  for (int j = 0; j < 120; ++j) arguments[1].data<int32_t>()[j] = j % 5;
  Counts counts;
  CheckModule(text, std::move(arguments), &counts, LibmMath());
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, LibmMath());
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

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
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

TEST(CpuCompilerTest, RandomModules) {
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
        module = MakeRandomModule(options);
      } else {
        RandomControlFlowModuleOptions options;
        options.seed = seed;
        options.element_type = type;
        options.num_steps = 6 + seed % 10;
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
  std::cout << "random: " << modules << " modules, " << native << " native, " << fallback
            << " fallback instructions\n";
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
