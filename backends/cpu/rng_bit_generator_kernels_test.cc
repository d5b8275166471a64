// The rng-bit-generator generators: the Random123 known answers through
// both builds, then the AVX-512 build against the baseline one on every
// width, run length (partial 16-lane blocks), limit and wrapping counter.
// (cpu_ops_test checks whole programs against the evaluator.)
#include "backends/cpu/rng_bit_generator_kernels.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "backends/cpu/eigen_dot.h"
#include "gtest/gtest.h"

namespace tessera {
namespace cpu {
namespace rng_internal {
namespace {

bool HasAvx512() { return eigen_dot_internal::KernelsSupported(); }

TEST(RngBitGeneratorKernelsTest, KnownAnswers) {
  for (bool avx512 : {false, true}) {
    if (avx512 && !HasAvx512()) continue;
    auto interleaved = avx512 ? avx512::ThreeFryInterleaved : baseline::ThreeFryInterleaved;
    auto philox = avx512 ? avx512::PhiloxWords : baseline::PhiloxWords;
    // ThreeFry-2x32-20, key 0 and counter 0 -> 0x6b200159 0x99ba4efe; key
    // (0x13198a2e, 0x03707344), counter (0x243f6a88, 0x85a308d3) ->
    // 0xc4923a9c 0x483df7a0.
    uint32_t words[2] = {};
    interleaved(0, 0, 1, 4, words, 2);
    EXPECT_EQ(words[0], 0x6b200159u);
    EXPECT_EQ(words[1], 0x99ba4efeu);
    interleaved(0x037073441319'8a2eull, 0x85a308d3243f6a88ull, 1, 4, words, 2);
    EXPECT_EQ(words[0], 0xc4923a9cu);
    EXPECT_EQ(words[1], 0x483df7a0u);
    // Philox-4x32-10, counter (0x243f6a88, 0x85a308d3, 0x13198a2e,
    // 0x03707344), key (0xa4093822, 0x299f31d0) -> 0xd16cfe09 0x94fdcceb
    // 0x5001e420 0x24126ea1.
    uint32_t four[4] = {};
    philox(0x299f31d0a4093822ull, 0x85a308d3243f6a88ull, 0x0370734413198a2eull, 1, 4, four, 4);
    EXPECT_EQ(four[0], 0xd16cfe09u);
    EXPECT_EQ(four[1], 0x94fdccebu);
    EXPECT_EQ(four[2], 0x5001e420u);
    EXPECT_EQ(four[3], 0x24126ea1u);
  }
}

// Fills with a marker byte, so a write past `limit` shows.
std::vector<uint8_t> Marked(int64_t bytes) { return std::vector<uint8_t>(bytes + 64, 0xa5); }

TEST(RngBitGeneratorKernelsTest, Avx512MatchesBaseline) {
  if (!HasAvx512()) GTEST_SKIP() << "no AVX-512 on this host";
  const uint64_t key = 0x9e3779b97f4a7c15ull;
  const uint64_t firsts[] = {0, 12345, ~uint64_t{0} - 7};  // the last wraps mid-run
  for (uint64_t first : firsts) {
    for (int width : {1, 2, 4, 8}) {
      for (int64_t count : {0, 1, 15, 16, 17, 40}) {
        for (int64_t cut : {0, 1, 3}) {
          SCOPED_TRACE(testing::Message() << "first " << first << " width " << width << " count "
                                          << count << " cut " << cut);
          if (width < 8) {
            const int64_t limit = std::max<int64_t>(0, 2 * count - cut);
            std::vector<uint8_t> a = Marked(2 * count * width), b = a;
            baseline::ThreeFryInterleaved(key, first, count, width, a.data(), limit);
            avx512::ThreeFryInterleaved(key, first, count, width, b.data(), limit);
            EXPECT_EQ(a, b);
            for (int64_t byte = limit * width; byte < static_cast<int64_t>(a.size()); ++byte) {
              ASSERT_EQ(a[byte], 0xa5) << "written past the limit at byte " << byte;
            }
            std::vector<uint8_t> a0 = Marked(count * width), a1 = a0, b0 = a0, b1 = a0;
            baseline::ThreeFrySplit(key, first, count, width, a0.data(), a1.data());
            avx512::ThreeFrySplit(key, first, count, width, b0.data(), b1.data());
            EXPECT_EQ(a0, b0);
            EXPECT_EQ(a1, b1);
            // x0 of the split layout is the interleaved layout's even word.
            for (int64_t i = 0; i < count && 2 * i < limit; ++i) {
              ASSERT_EQ(std::memcmp(&a0[i * width], &a[2 * i * width], width), 0);
            }
          } else {
            std::vector<uint64_t> a(count + 8, 7), b = a;
            baseline::ThreeFryWide(key, first, count, a.data());
            avx512::ThreeFryWide(key, first, count, b.data());
            EXPECT_EQ(a, b);
            EXPECT_EQ(a[count], 7u);
          }
          const int64_t per_counter = width == 8 ? 2 : 4;
          const int64_t limit = std::max<int64_t>(0, per_counter * count - cut);
          std::vector<uint8_t> a = Marked(per_counter * count * width), b = a;
          baseline::PhiloxWords(key, first, 3, count, width, a.data(), limit);
          avx512::PhiloxWords(key, first, 3, count, width, b.data(), limit);
          EXPECT_EQ(a, b);
          for (int64_t byte = limit * width; byte < static_cast<int64_t>(a.size()); ++byte) {
            ASSERT_EQ(a[byte], 0xa5) << "written past the limit at byte " << byte;
          }
        }
      }
    }
  }
}

// A Philox counter whose low word wraps inside a run carries into the high
// word from that lane on: the run equals the runs before and after the wrap.
TEST(RngBitGeneratorKernelsTest, PhiloxCarriesIntoTheHighWord) {
  const uint64_t key = 77, low = ~uint64_t{0} - 4, high = ~uint64_t{0};
  uint32_t run[4 * 20], before[4 * 5], after[4 * 15];
  baseline::PhiloxWords(key, low, high, 20, 4, run, 80);
  baseline::PhiloxWords(key, low, high, 5, 4, before, 20);
  baseline::PhiloxWords(key, 0, 0, 15, 4, after, 60);  // high + 1 wraps to 0
  EXPECT_EQ(std::memcmp(run, before, sizeof(before)), 0);
  EXPECT_EQ(std::memcmp(run + 20, after, sizeof(after)), 0);
}

}  // namespace
}  // namespace rng_internal
}  // namespace cpu
}  // namespace tessera
