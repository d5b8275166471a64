// fft: FFT, IFFT, RFFT and IRFFT over the trailing dimensions.
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator_test_util.h"

namespace tessera {
namespace evaluator_test {
namespace {

TEST(EvaluatorFftTest, ForwardAndInverse) {
  // DFT of 1 2 3 4: 10, -2+2i, -2, -2-2i.
  EXPECT_EVAL_NEAR(EvaluateRoot("c64[4] fft(p0), fft_type=FFT, fft_length={4}",
                                {L("c64[4]", "{(1, 0), (2, 0), (3, 0), (4, 0)}")}),
                   L("c64[4]", "{(10, 0), (-2, 2), (-2, 0), (-2, -2)}"), 1e-6, 1e-5);
  EXPECT_EVAL_NEAR(EvaluateRoot("c128[4] fft(p0), fft_type=IFFT, fft_length={4}",
                                {L("c128[4]", "{(10, 0), (-2, 2), (-2, 0), (-2, -2)}")}),
                   L("c128[4]", "{(1, 0), (2, 0), (3, 0), (4, 0)}"), 1e-12, 1e-12);
  // A unit impulse at 1 gives the twiddles exp(-2 pi i k / 4) = 1, -i, -1, i.
  EXPECT_EVAL_NEAR(EvaluateRoot("c64[4] fft(p0), fft_type=FFT, fft_length={4}",
                                {L("c64[4]", "{(0, 0), (1, 0), (0, 0), (0, 0)}")}),
                   L("c64[4]", "{(1, 0), (0, -1), (-1, 0), (0, 1)}"), 1e-6, 1e-6);
}

TEST(EvaluatorFftTest, RealForwardAndInverse) {
  EXPECT_EVAL_NEAR(EvaluateRoot("c64[3] fft(p0), fft_type=RFFT, fft_length={4}",
                                {L("f32[4]", "{1, 2, 3, 4}")}),
                   L("c64[3]", "{(10, 0), (-2, 2), (-2, 0)}"), 1e-6, 1e-5);
  EXPECT_EVAL_NEAR(EvaluateRoot("f32[4] fft(p0), fft_type=IRFFT, fft_length={4}",
                                {L("c64[3]", "{(10, 0), (-2, 2), (-2, 0)}")}),
                   L("f32[4]", "{1, 2, 3, 4}"), 1e-6, 1e-5);
  // Odd length: 5 real points keep 3 frequencies.
  EXPECT_EVAL_NEAR(EvaluateRoot("f64[5] fft(p0), fft_type=IRFFT, fft_length={5}",
                                {L("c128[3]", "{(5, 0), (0, 0), (0, 0)}")}),
                   L("f64[5]", "{1, 1, 1, 1, 1}"), 1e-12, 1e-12);
}

TEST(EvaluatorFftTest, TwoDimensionalWithABatch) {
  // 2-D DFT of [[1, 2], [3, 4]] = [[10, -2], [-4, 0]], for each of two
  // batch elements (the second scaled by -1).
  EXPECT_EVAL_NEAR(
      EvaluateRoot("c64[2,2,2] fft(p0), fft_type=FFT, fft_length={2,2}",
                   {L("c64[2,2,2]", "{ { { (1, 0), (2, 0) }, { (3, 0), (4, 0) } }, "
                                    "{ { (-1, 0), (-2, 0) }, { (-3, 0), (-4, 0) } } }")}),
      L("c64[2,2,2]", "{ { { (10, 0), (-2, 0) }, { (-4, 0), (0, 0) } }, "
                      "{ { (-10, 0), (2, 0) }, { (4, 0), (0, 0) } } }"),
      1e-6, 1e-5);
  EXPECT_EVAL_NEAR(EvaluateRoot("c64[2,2] fft(p0), fft_type=RFFT, fft_length={2,2}",
                                {L("f32[2,2]", "{ { 1, 2 }, { 3, 4 } }")}),
                   L("c64[2,2]", "{ { (10, 0), (-2, 0) }, { (-4, 0), (0, 0) } }"), 1e-6, 1e-5);
  EXPECT_EVAL_NEAR(EvaluateRoot("f32[2,2] fft(p0), fft_type=IRFFT, fft_length={2,2}",
                                {L("c64[2,2]", "{ { (10, 0), (-2, 0) }, { (-4, 0), (0, 0) } }")}),
                   L("f32[2,2]", "{ { 1, 2 }, { 3, 4 } }"), 1e-6, 1e-5);
}

}  // namespace
}  // namespace evaluator_test
}  // namespace tessera
