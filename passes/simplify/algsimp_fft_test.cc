// AlgebraicSimplifier's fft rules: the transform of a real array as rfft
// and the rest of its Hermitian spectrum, checked on the evaluator.
#include <cmath>
#include <memory>
#include <random>
#include <string>

#include "gtest/gtest.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/random_literal.h"
#include "passes/simplify/algsimp_test_util.h"

namespace tessera {
namespace {

using algsimp_test::Module;
using algsimp_test::Parse;

// Runs algsimp on `text` and compares the entry's results before and after
// on random arguments within `tolerance` (the evaluator's rfft and fft sum
// in another order); returns the entry's opcodes after, or "unchanged".
std::string SimplifiedWithin(const std::string& text, double tolerance) {
  std::unique_ptr<HloModule> module = Parse(text);
  if (module == nullptr) return "parse error";
  std::mt19937_64 rng(7);
  std::vector<Literal> arguments;
  for (const HloInstruction* parameter : module->entry_computation()->parameter_instructions()) {
    absl::StatusOr<Literal> argument = MakeRandomLiteral(parameter->shape(), rng);
    EXPECT_TRUE(argument.ok()) << argument.status();
    arguments.push_back(std::move(*argument));
  }
  absl::StatusOr<Literal> before = EvaluateModule(*module, arguments);
  EXPECT_TRUE(before.ok()) << before.status();
  AlgebraicSimplifier pass;
  absl::StatusOr<bool> changed = pass.Run(module.get());
  EXPECT_TRUE(changed.ok()) << changed.status();
  if (!changed.ok() || !*changed) return "unchanged";
  absl::StatusOr<Literal> after = EvaluateModule(*module, arguments);
  EXPECT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(before->shape(), after->shape());
  const int64_t n = before->shape().ElementCount();
  const bool wide = before->shape().element_type() == C128;
  for (int64_t i = 0; i < n * 2; ++i) {  // real and imaginary parts
    const double b = wide ? static_cast<const double*>(before->untyped_data())[i]
                          : static_cast<const float*>(before->untyped_data())[i];
    const double a = wide ? static_cast<const double*>(after->untyped_data())[i]
                          : static_cast<const float*>(after->untyped_data())[i];
    EXPECT_LE(std::fabs(a - b), tolerance * (1 + std::fabs(b))) << "part " << i;
  }
  return algsimp_test::EntryOpcodes(*module);
}

TEST(AlgsimpFftTest, FftOfRealIsRfftAndItsMirror) {
  // Even and odd lengths, f32 and f64, a batch of rows.
  for (const char* n : {"8", "7", "3"}) {
    SCOPED_TRACE(n);
    const std::string f32 = Module(
        absl::StrCat("x = f32[5,", n, "] parameter(0)\n", "c = c64[5,", n, "] convert(x)\n",
                     "ROOT f = c64[5,", n, "] fft(c), fft_type=FFT, ", "fft_length={", n, "}"));
    EXPECT_EQ(SimplifiedWithin(f32, 1e-5),
              "parameter,fft,slice,reverse,real,imag,negate,complex,concatenate");
    const std::string f64 = Module(
        absl::StrCat("x = f64[2,", n, "] parameter(0)\n", "c = c128[2,", n, "] convert(x)\n",
                     "ROOT f = c128[2,", n, "] fft(c), fft_type=FFT, ", "fft_length={", n, "}"));
    EXPECT_EQ(SimplifiedWithin(f64, 1e-12),
              "parameter,fft,slice,reverse,real,imag,negate,complex,concatenate");
  }
  // Length 2: rfft is the whole spectrum.
  EXPECT_EQ(SimplifiedWithin(Module("x = f32[4,2] parameter(0)\n c = c64[4,2] convert(x)\n"
                                    " ROOT f = c64[4,2] fft(c), fft_type=FFT, fft_length={2}"),
                             1e-6),
            "parameter,fft");
  // Not: a complex operand, an inverse, two axes, a real operand of another
  // width than the transform's.
  EXPECT_EQ(SimplifiedWithin(Module("x = c64[4,8] parameter(0)\n"
                                    " ROOT f = c64[4,8] fft(x), fft_type=FFT, fft_length={8}"),
                             0),
            "unchanged");
  EXPECT_EQ(SimplifiedWithin(Module("x = f32[4,8] parameter(0)\n c = c64[4,8] convert(x)\n"
                                    " ROOT f = c64[4,8] fft(c), fft_type=IFFT, fft_length={8}"),
                             0),
            "unchanged");
  EXPECT_EQ(SimplifiedWithin(Module("x = f32[4,8] parameter(0)\n c = c64[4,8] convert(x)\n"
                                    " ROOT f = c64[4,8] fft(c), fft_type=FFT, fft_length={4,8}"),
                             0),
            "unchanged");
  EXPECT_EQ(SimplifiedWithin(Module("x = f64[4,8] parameter(0)\n c = c64[4,8] convert(x)\n"
                                    " ROOT f = c64[4,8] fft(c), fft_type=FFT, fft_length={8}"),
                             0),
            "unchanged");
}

}  // namespace
}  // namespace tessera
