// Test helpers for the LLVM IR emitters: inputs that cover each element
// type's edge values (±0, ±inf, NaNs, denormals, INT_MIN, -1, shift
// amounts around the width, values at the edges of conversions) plus
// seeded random ones, and a differential check that a JIT-compiled kernel
// computes what the reference evaluator computes, bit for bit.  Test-only.
#ifndef TESSERA_BACKENDS_LLVM_IR_KERNEL_TEST_UTIL_H_
#define TESSERA_BACKENDS_LLVM_IR_KERNEL_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "backends/llvm_ir/elementwise_kernel.h"
#include "gtest/gtest.h"
#include "hlo/ir/literal.h"

namespace tessera {
namespace llvm_ir {
namespace test {

// The edge values of `type` as a rank-1 literal.
Literal EdgeValues(PrimitiveType type);

// Seeded random values of `type`: half of them random bit patterns, half
// small ordinary values (|x| <= 10).
Literal RandomValues(PrimitiveType type, int64_t count, uint64_t seed);

// The edge values followed by `random_count` random values.
Literal UnaryInputs(PrimitiveType type, int64_t random_count, uint64_t seed);

// Two rank-1 literals of equal length whose element pairs cover every pair
// of edge values, followed by `random_count` random pairs.
std::pair<Literal, Literal> BinaryInputs(PrimitiveType type, int64_t random_count,
                                         uint64_t seed);

// Concatenation of rank-1 literals of one element type.
Literal Concat(absl::Span<const Literal> parts);

// One compiler (and JIT) shared by the tests of a binary.
ElementwiseKernelCompiler& SharedCompiler();

// How a kernel's result may differ from the evaluator's.
struct Tolerance {
  // Floats: at most this many units in the last place apart (0: identical
  // bits).  Integers and PRED are always compared exactly.
  int64_t max_ulps = 0;
  // Any NaN matches any NaN (sign and payload are not compared).
  bool nan_payload_free = false;
};

// Same shape and element bits (or within `tolerance`), with the first
// mismatches listed by index, with the inputs' bits there.
::testing::AssertionResult ResultsMatch(const Literal& expected, const Literal& actual,
                                        absl::Span<const Literal> inputs,
                                        const Tolerance& tolerance = {});

// Parses `module_text`, evaluates its entry on `args`, compiles it with
// SharedCompiler() and runs it on the same `args`.  Where the evaluator
// rejects the module, the compiler must reject it too; otherwise both
// results must match.
::testing::AssertionResult MatchesEvaluator(absl::string_view module_text,
                                            absl::Span<const Literal> args,
                                            const Tolerance& tolerance = {});

// "HloModule m\nENTRY e {\n  p0 = f32[8]{0} parameter(0) ... ROOT r = <root>\n}":
// one parameter per argument (shapes and layouts from the literals).
std::string ModuleWithRoot(absl::string_view root, absl::Span<const Literal> args);

}  // namespace test
}  // namespace llvm_ir
}  // namespace tessera

#endif  // TESSERA_BACKENDS_LLVM_IR_KERNEL_TEST_UTIL_H_
