// The tile routine transposes 16x16 tiles of 4-byte elements exactly (bit
// patterns, NaNs among them), from rows any stride apart, in both its
// AVX-512 and its scalar form.
#include "backends/cpu/transpose_tile.h"

#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace tessera {
namespace cpu {
namespace {

void ExpectTransposes(TransposeTileFunction transpose, int64_t stride) {
  constexpr int kSize = static_cast<int>(kTransposeTileRoutineSize);
  std::mt19937 random(static_cast<uint32_t>(stride));
  std::vector<uint32_t> source(kSize * stride + 3);
  for (uint32_t& x : source) x = static_cast<uint32_t>(random());
  // A tile that starts off any alignment, in a buffer of 16 more elements.
  const uint32_t* tile = source.data() + 3;
  std::vector<uint32_t> result(kSize * kSize + 16, 0xDEADBEEF);
  transpose(tile, stride, result.data());
  for (int a = 0; a < kSize; ++a) {
    for (int i = 0; i < kSize; ++i) {
      ASSERT_EQ(result[a * kSize + i], tile[i * stride + a])
          << "row " << a << " column " << i << " stride " << stride;
    }
  }
  for (int j = kSize * kSize; j < kSize * kSize + 16; ++j) EXPECT_EQ(result[j], 0xDEADBEEF);
}

TEST(TransposeTileTest, TransposesTilesOfAnyStride) {
  for (TransposeTileFunction transpose : {TransposeTileRoutine(), &TransposeTileScalar}) {
    for (int64_t stride : {16, 17, 31, 64, 1000, 2048}) ExpectTransposes(transpose, stride);
  }
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
