// Helpers of the CPU backend's tests (cpu_test_util.h).
#include "backends/cpu/cpu_test_util.h"

#include <cmath>
#include <complex>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/random_literal.h"
#include "hlo/parser/hlo_parser.h"
#include "hlo/parser/hlo_printer.h"

namespace tessera {
namespace cpu {
namespace testing {

// Bitwise equality, except that NaNs equal NaNs; `why` says where not.
// With `ulps` > 0, floats may differ by that many units in the last place
// of the larger magnitude (in the element type's precision): for kernels
// with polynomial transcendentals (polynomial_math.h bounds them at 2.5 ulp
// at most; 4 leaves room for a rounding or two after them).
// With `rtol` > 0, floats may also differ by rtol * (1 + max(|a|, |b|))
// (native dots sum in another order than the evaluator).
bool SameResults(const Literal& a, const Literal& b, std::string* why, double ulps,
                 double rtol) {
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
        if (rtol > 0 && std::isfinite(std::abs(u)) && std::isfinite(std::abs(v)) &&
            std::abs(u - v) <= rtol * (1 + std::max(std::abs(u), std::abs(v)))) {
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
      if (IsComplexType(type)) {
        const std::complex<double> u = x.GetAsComplex(i), v = y.GetAsComplex(i);
        *why = absl::StrCat("leaf ", leaf, " element ", i, ": evaluator (", u.real(), ", ",
                            u.imag(), "), cpu (", v.real(), ", ", v.imag(), ")");
        return false;
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
// vector lanes, float suffix scans folded from the end, FFTs (in float,
// through Eigen, against the evaluator's DFT in double): 1e-4 on modest
// values.
double DotTolerance(absl::string_view text, const CpuCompileOptions& options) {
  const bool dots = options.native_dots && (absl::StrContains(text, " dot(") ||
                                            absl::StrContains(text, " convolution("));
  const bool reductions =
      options.reorder_float_reductions &&
      (absl::StrContains(text, " reduce(") || absl::StrContains(text, " reduce-window("));
  const bool ffts = options.native_kernels && absl::StrContains(text, " fft(");
  // Blocked factorizations and solves (linalg_thunk.h).
  const bool linalg = options.native_kernels && (absl::StrContains(text, " cholesky(") ||
                                                 absl::StrContains(text, " triangular-solve(") ||
                                                 absl::StrContains(text, "\"lapack_"));
  return dots || reductions || ffts || linalg ? 1e-4 : 0;
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
                        const CpuCompileOptions& options, bool only_these_arguments) {
  absl::StatusOr<std::unique_ptr<HloModule>> reference = ParseHloModule(text);
  ASSERT_TRUE(reference.ok()) << reference.status();
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<HloExecutable>> executable =
      CompileForCpuExecutable(*std::move(module), options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  const runtime::Executable& runtime_executable = (*executable)->executable();
  absl::StatusOr<std::vector<runtime::OwnedBuffer>> allocated =
      runtime_executable.AllocateResults();
  ASSERT_TRUE(allocated.ok()) << allocated.status();
  std::vector<runtime::OwnedBuffer> outputs = *std::move(allocated);
  std::vector<runtime::ResultBuffer> out(outputs.begin(), outputs.end());
  const uint64_t trials = only_these_arguments ? 1 : 3;
  for (uint64_t trial = 0; trial < trials; ++trial) {
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


// Compiles `text` for the CPU and checks it against the evaluator on
// `arguments` (random ones when empty), twice (the arena is reused).
void CheckModule(absl::string_view text, std::vector<Literal> arguments, Counts* counts,
                 const CpuCompileOptions& options, bool only_these_arguments) {
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
    counts->streaming = (*executable)->stats().streaming_kernels;
  }
  const uint64_t trials = only_these_arguments && !arguments.empty() ? 1 : 2;
  for (uint64_t trial = 0; trial < trials; ++trial) {
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
  CheckRuntimeModule(text, arguments, options, only_these_arguments && !arguments.empty());
}

// The fallbacks of `text` compiled with `options`, one a line.
std::string Fallbacks(absl::string_view text, const CpuCompileOptions& options) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return std::string(module.status().message());
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(*std::move(module), options);
  if (!executable.ok()) return std::string(executable.status().message());
  std::string out;
  for (const std::string& f : (*executable)->stats().fallbacks) absl::StrAppend(&out, f, "\n");
  return out;
}

void CheckNativeModule(absl::string_view text, const CpuCompileOptions& options) {
  Counts counts;
  CheckModule(text, {}, &counts, options);
  EXPECT_EQ(counts.fallback, 0) << Fallbacks(text, options);
}

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace testing
}  // namespace cpu
}  // namespace tessera
