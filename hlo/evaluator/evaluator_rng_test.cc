// rng-bit-generator, bit-exact with XLA's expansion (prng.cc): the core
// generators against the Random123 known-answer vectors (Threefry-2x32-20,
// Philox-4x32-10), then how outputs of each shape and width are laid out and
// how the state advances.  Expected values of the multi-element layouts come
// from an independent reference written from the algorithms' definitions
// and checked against the same known answers.
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator_test_util.h"

namespace tessera {
namespace evaluator_test {
namespace {

absl::StatusOr<Literal> Rng(absl::string_view algorithm, absl::string_view output_shape,
                            Literal state) {
  const std::string state_shape = state.shape().ToString();
  return EvaluateRoot(absl::StrCat("(", state_shape, ", ", output_shape, ") rng-bit-generator(p0), ",
                                   "algorithm=", algorithm),
                      {std::move(state)});
}

TEST(EvaluatorRngTest, ThreeFryKnownAnswers) {
  // key (0, 0), counter (0, 0) -> 0x6b200159 0x99ba4efe.
  EXPECT_EVAL(Rng("rng_three_fry", "u32[2]", L("u64[2]", "{0, 0}")),
              Literal::MakeTuple({L("u64[2]", "{0, 1}"), L("u32[2]", "{1797259609, 2579123966}")}));
  // All ones -> 0x1cb996fc 0xbb002be7; the counter wraps to 0.
  EXPECT_EVAL(Rng("rng_three_fry", "u32[2]",
                  L("u64[2]", "{18446744073709551615, 18446744073709551615}")),
              Literal::MakeTuple({L("u64[2]", "{18446744073709551615, 0}"),
                                  L("u32[2]", "{481924860, 3137350631}")}));
  // key (0x13198a2e, 0x03707344), counter (0x243f6a88, 0x85a308d3) ->
  // 0xc4923a9c 0x483df7a0.
  EXPECT_EVAL(Rng("rng_three_fry", "u32[2]",
                  L("u64[2]", "{247824715720788526, 9629550131187509896}")),
              Literal::MakeTuple({L("u64[2]", "{247824715720788526, 9629550131187509897}"),
                                  L("u32[2]", "{3297917596, 1212020640}")}));
  // 64-bit outputs: x0 | x1 << 32.
  EXPECT_EVAL(Rng("rng_three_fry", "u64[1]", L("u64[2]", "{0, 0}")),
              Literal::MakeTuple({L("u64[2]", "{0, 1}"), L("u64[1]", "{11077253088097075545}")}));
}

TEST(EvaluatorRngTest, ThreeFryShapes) {
  // Odd length: split into halves of ceil(3/2) = 2 counters; x0 fills even
  // positions, x1 odd ones.
  EXPECT_EVAL(Rng("rng_three_fry", "u32[3]", L("u64[2]", "{0, 0}")),
              Literal::MakeTuple({L("u64[2]", "{0, 2}"),
                                  L("u32[3]", "{1797259609, 2579123966, 1351547692}")}));
  // [2,3] splits dimension 0 (the first even one): row i is word i of
  // counters 7, 8, 9.  [3,2] splits dimension 1.
  EXPECT_EVAL(Rng("rng_three_fry", "u32[2,3]", L("u64[2]", "{5, 7}")),
              Literal::MakeTuple({L("u64[2]", "{5, 10}"),
                                  L("u32[2,3]", "{ { 4000641395, 10964293, 3804237681 }, "
                                                "{ 1063621336, 2057536082, 1604586794 } }")}));
  EXPECT_EVAL(Rng("rng_three_fry", "u32[3,2]", L("u64[2]", "{5, 7}")),
              Literal::MakeTuple({L("u64[2]", "{5, 10}"),
                                  L("u32[3,2]", "{ { 4000641395, 1063621336 }, "
                                                "{ 10964293, 2057536082 }, "
                                                "{ 3804237681, 1604586794 } }")}));
  EXPECT_EVAL(Rng("rng_three_fry", "u64[2]", L("u64[2]", "{5, 7}")),
              Literal::MakeTuple({L("u64[2]", "{5, 9}"),
                                  L("u64[2]", "{4568218857448468851, 8837050182540938565}")}));
  // Narrower outputs keep the low bits of the 32-bit words.
  EXPECT_EVAL(Rng("rng_three_fry", "u16[2]", L("u64[2]", "{0, 0}")),
              Literal::MakeTuple({L("u64[2]", "{0, 1}"), L("u16[2]", "{345, 20222}")}));
  // A scalar is generated as [1].
  EXPECT_EVAL(Rng("rng_three_fry", "u32[]", L("u64[2]", "{0, 0}")),
              Literal::MakeTuple({L("u64[2]", "{0, 1}"), L("u32[]", "1797259609")}));
}

TEST(EvaluatorRngTest, PhiloxKnownAnswers) {
  // A u64[3] state is (key, counter low, counter high).
  EXPECT_EVAL(Rng("rng_philox", "u32[4]", L("u64[3]", "{0, 0, 0}")),
              Literal::MakeTuple({L("u64[3]", "{0, 1, 0}"),
                                  L("u32[4]", "{1713891541, 3781805453, 3159862348, 2600524760}")}));
  // counter (0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344), key
  // (0xa4093822, 0x299f31d0) -> 0xd16cfe09 0x94fdcceb 0x5001e420 0x24126ea1.
  EXPECT_EVAL(Rng("rng_philox", "u32[4]",
                  L("u64[3]", "{2999170649027065890, 9629550131187509896, 247824715720788526}")),
              Literal::MakeTuple(
                  {L("u64[3]", "{2999170649027065890, 9629550131187509897, 247824715720788526}"),
                   L("u32[4]", "{3513581065, 2499661035, 1342301216, 605187745}")}));
}

TEST(EvaluatorRngTest, PhiloxShapesAndCounterCarry) {
  // Six words take two blocks; the 128-bit counter carries into its high
  // word.
  EXPECT_EVAL(Rng("rng_philox", "u32[6]", L("u64[3]", "{5, 18446744073709551615, 9}")),
              Literal::MakeTuple({L("u64[3]", "{5, 1, 10}"),
                                  L("u32[6]", "{4017057404, 1634864995, 201065378, 3840247100, "
                                              "1292614439, 4135220703}")}));
  // A u64[2] state: the counter is (state[1], state[0]) and only its low
  // word is written back.  64-bit outputs pair words (w0 | w1 << 32,
  // w2 | w3 << 32); narrow ones truncate the 32-bit words.
  EXPECT_EVAL(Rng("rng_philox", "u64[3]", L("u64[2]", "{5, 3}")),
              Literal::MakeTuple({L("u64[2]", "{5, 5}"),
                                  L("u64[3]", "{7682642939430087899, 8956501664011963142, "
                                              "4128514191196192716}")}));
  EXPECT_EVAL(Rng("rng_philox", "u8[5]", L("u64[2]", "{5, 3}")),
              Literal::MakeTuple({L("u64[2]", "{5, 5}"), L("u8[5]", "{219, 12, 6, 207, 204}")}));
  // RNG_DEFAULT is Philox on XLA's CPU backend.
  EXPECT_EVAL(Rng("rng_default", "u8[5]", L("u64[2]", "{5, 3}")),
              Literal::MakeTuple({L("u64[2]", "{5, 5}"), L("u8[5]", "{219, 12, 6, 207, 204}")}));
}

TEST(EvaluatorRngTest, EmptyOutputLeavesTheCounter) {
  EXPECT_EVAL(Rng("rng_three_fry", "u32[0]", L("u64[2]", "{1, 2}")),
              Literal::MakeTuple({L("u64[2]", "{1, 2}"), L("u32[0]", "{}")}));
  EXPECT_EVAL(Rng("rng_philox", "u32[0]", L("u64[3]", "{1, 2, 3}")),
              Literal::MakeTuple({L("u64[3]", "{1, 2, 3}"), L("u32[0]", "{}")}));
}

TEST(EvaluatorRngTest, BadStatesAreErrors) {
  EXPECT_FALSE(Rng("rng_three_fry", "u32[2]", L("u64[1]", "{0}")).ok());
  EXPECT_FALSE(Rng("rng_philox", "u32[2]", L("u32[2]", "{0, 0}")).ok());
}

}  // namespace
}  // namespace evaluator_test
}  // namespace tessera
