// RunRngBitGenerator on raw buffers: for every layout of the plan, the
// evaluator's bits and state, and not a byte written past the bits (an
// overrun into a neighbouring buffer of the arena may go unseen in a
// whole-program test).  A new state in the old one's buffer is updated in
// place.
#include "backends/cpu/rng_bit_generator_thunk.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/parser/hlo_parser.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {
namespace {

constexpr uint8_t kGuard = 0xa5;
constexpr int64_t kGuardBytes = 256;

void CheckAgainstEvaluator(const std::string& algorithm, const std::string& bits_shape) {
  SCOPED_TRACE(algorithm + " " + bits_shape);
  const std::string text =
      absl::StrCat("HloModule rng\nENTRY main {\n  p = u64[3] parameter(0)\n  ROOT r = (u64[3], ",
                   bits_shape, ") rng-bit-generator(p), algorithm=", algorithm, "\n}\n");
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const HloInstruction& rng = *(*module)->entry_computation()->root_instruction();
  absl::StatusOr<RngPlan> plan = PlanRngBitGenerator(rng);
  ASSERT_TRUE(plan.ok()) << plan.status();

  const std::vector<uint64_t> state = {0x0123456789abcdefull, ~uint64_t{0} - 40, 9};
  std::vector<Literal> arguments;
  arguments.push_back(Literal::CreateR1<uint64_t>(state));
  absl::StatusOr<Literal> expected = EvaluateModule(**module, arguments);
  ASSERT_TRUE(expected.ok()) << expected.status();

  const Literal& expected_bits = expected->tuple_element(1);
  const int64_t bytes = expected_bits.shape().ByteSize();
  std::vector<uint8_t> bits(bytes + kGuardBytes, kGuard);
  std::vector<uint64_t> new_state = state;  // in place
  runtime::ThreadPool pool(4);
  RunRngBitGenerator(*plan, new_state.data(), new_state.data(), bits.data(), &pool);

  EXPECT_EQ(std::memcmp(bits.data(), expected_bits.untyped_data(), bytes), 0);
  for (int64_t byte = bytes; byte < bytes + kGuardBytes; ++byte) {
    ASSERT_EQ(bits[byte], kGuard) << "written past the bits at byte " << byte;
  }
  const Literal& expected_state = expected->tuple_element(0);
  EXPECT_EQ(std::memcmp(new_state.data(), expected_state.untyped_data(), 3 * sizeof(uint64_t)), 0);
}

TEST(RngBitGeneratorThunkTest, EveryLayoutMatchesTheEvaluatorAndStaysInBounds) {
  // ThreeFry: an even split dimension (one run), odd ones (rows of pairs),
  // short and long rows behind the split (scattered, direct), many outer
  // rows, enough counters for the pool, and 64-bit words.
  for (const char* shape : {"u32[8]", "u32[7]", "u8[5,3]", "u16[3,7,5]", "u32[9,3,9]", "u32[4,65]",
                            "u8[3,5,65]", "u32[5,70,3]", "u32[67,9,9]", "u32[69,33,33]",
                            "u16[41,1001]", "u32[3,9001,3]", "u64[7]", "u64[30001]", "u32[]"}) {
    CheckAgainstEvaluator("rng_three_fry", shape);
  }
  for (const char* shape :
       {"u32[7]", "u8[13]", "u16[3,3]", "u64[5]", "u32[90001]", "u64[3,9999]"}) {
    CheckAgainstEvaluator("rng_philox", shape);
  }
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
