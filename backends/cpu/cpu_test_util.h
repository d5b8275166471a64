// Helpers of the CPU backend's tests: compile a module for the CPU and
// check it against the reference evaluator, on both execution paths.
#ifndef TESSERA_BACKENDS_CPU_CPU_TEST_UTIL_H_
#define TESSERA_BACKENDS_CPU_CPU_TEST_UTIL_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "backends/cpu/cpu_compiler.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/ir/literal.h"

namespace tessera {
namespace cpu {
namespace testing {

// Bitwise equality of every leaf, except that NaNs equal NaNs; `why` says
// where not.  With `ulps` > 0, floats may differ by that many units in
// the last place of the larger magnitude (polynomial transcendentals);
// with `rtol` > 0 also by rtol * (1 + max(|a|, |b|)) (reordered sums).
bool SameResults(const Literal& a, const Literal& b, std::string* why, double ulps = 0,
                 double rtol = 0);

// Whether kernels of `text` may use polynomial transcendentals, and the
// ulps allowed for them under `options`.
bool HasTranscendental(absl::string_view text);
double Tolerance(absl::string_view text, const CpuCompileOptions& options);
// The relative tolerance for sums in another order than the evaluator's
// (dots and convolutions through Eigen, float reductions in lanes).
double DotTolerance(absl::string_view text, const CpuCompileOptions& options);

std::vector<Literal> Clone(const std::vector<Literal>& literals);
// Seeded random arguments for the entry's parameters.
std::vector<Literal> RandomArguments(const HloModule& module, uint64_t seed);

// The runtime::Executable path (CompileForCpuExecutable): RunLiterals and
// steady-state runs, against the evaluator; on `arguments`, then on random
// ones unless `only_these_arguments`.
void CheckRuntimeModule(absl::string_view text, const std::vector<Literal>& arguments,
                        const CpuCompileOptions& options, bool only_these_arguments = false);

// Polynomial math off and the evaluator's reduction order: bit for bit.
CpuCompileOptions LibmMath();

struct Counts {
  int64_t native = 0;
  int64_t fallback = 0;
  int64_t streaming = 0;  // kernels writing with non-temporal stores
};

// Compiles `text` for the CPU and checks it against the evaluator on
// `arguments` (random ones when empty), on both paths; `counts` receives
// the native and fallback instruction counts.  With `only_these_arguments`
// no random arguments follow (for ops whose results random inputs make
// ill-conditioned: a triangular solve of a random matrix).
void CheckModule(absl::string_view text, std::vector<Literal> arguments = {},
                 Counts* counts = nullptr, const CpuCompileOptions& options = {},
                 bool only_these_arguments = false);

// The fallbacks of `text` compiled with `options`, one a line.
std::string Fallbacks(absl::string_view text, const CpuCompileOptions& options = {});

// CheckModule on random arguments, and no instruction of `text` left to
// the evaluator (the fallbacks listed where one is).
void CheckNativeModule(absl::string_view text, const CpuCompileOptions& options = {});

std::string ReadAll(const std::filesystem::path& path);

}  // namespace testing
}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_CPU_TEST_UTIL_H_
