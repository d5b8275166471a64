#include "passes/memory/heap_simulator.h"

#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace tessera {
namespace {

TEST(HeapSimulatorTest, DisjointLifetimesShareMemory) {
  const std::vector<HeapBlock> blocks = {{100, 0, 1}, {100, 2, 3}, {100, 4, 5}};
  for (HeapAlgorithm algorithm : {HeapAlgorithm::kBestFit, HeapAlgorithm::kFirstFit}) {
    HeapResult result = RunHeapSimulator(blocks, algorithm);
    EXPECT_EQ(result.heap_size, 100) << HeapAlgorithmName(algorithm);
    EXPECT_TRUE(HeapResultIsValid(blocks, result));
  }
}

TEST(HeapSimulatorTest, OverlappingLifetimesDoNot) {
  // Closed intervals: [0,2] and [2,4] meet at time 2.
  const std::vector<HeapBlock> blocks = {{100, 0, 2}, {50, 2, 4}, {25, 1, 1}};
  for (HeapAlgorithm algorithm : {HeapAlgorithm::kBestFit, HeapAlgorithm::kFirstFit}) {
    HeapResult result = RunHeapSimulator(blocks, algorithm);
    EXPECT_EQ(result.heap_size, 150) << HeapAlgorithmName(algorithm);
    EXPECT_TRUE(HeapResultIsValid(blocks, result));
  }
  EXPECT_EQ(PeakLiveBytes(blocks), 150);
}

TEST(HeapSimulatorTest, AlignmentRoundsSizesAndOffsets) {
  const std::vector<HeapBlock> blocks = {{4, 0, 5}, {4, 0, 5}, {100, 0, 5}};
  HeapResult result = RunHeapSimulator(blocks, HeapAlgorithm::kBestFit, 64);
  EXPECT_EQ(result.heap_size, 64 + 64 + 128);
  for (int64_t offset : result.offsets) EXPECT_EQ(offset % 64, 0);
  EXPECT_TRUE(HeapResultIsValid(blocks, result));
}

TEST(HeapSimulatorTest, ZeroSizedBlocksTakeNoSpace) {
  const std::vector<HeapBlock> blocks = {{0, 0, 9}, {8, 0, 9}};
  HeapResult result = RunBestHeapSimulator(blocks, 1);
  EXPECT_EQ(result.heap_size, 8);
}

// First fit goes in time order: the short block that comes first takes the
// bottom, and the big late block no longer fits under the long one.
TEST(HeapSimulatorTest, BestFitBeatsFirstFit) {
  const std::vector<HeapBlock> blocks = {{10, 3, 3}, {20, 6, 8}, {10, 3, 6}};
  const HeapResult best = RunHeapSimulator(blocks, HeapAlgorithm::kBestFit);
  const HeapResult first = RunHeapSimulator(blocks, HeapAlgorithm::kFirstFit);
  EXPECT_TRUE(HeapResultIsValid(blocks, best));
  EXPECT_TRUE(HeapResultIsValid(blocks, first));
  EXPECT_EQ(best.heap_size, 30);
  EXPECT_EQ(first.heap_size, 40);
  const HeapResult kept = RunBestHeapSimulator(blocks);
  EXPECT_EQ(kept.heap_size, 30);
  EXPECT_EQ(kept.algorithm, HeapAlgorithm::kBestFit);
}

// Best fit goes by size: the two 30-byte blocks share the bottom, then the
// 20-byte blocks that overlap each other stack on top.
TEST(HeapSimulatorTest, FirstFitBeatsBestFit) {
  const std::vector<HeapBlock> blocks = {{30, 0, 2}, {30, 5, 6}, {20, 3, 6}, {20, 1, 3}};
  const HeapResult best = RunHeapSimulator(blocks, HeapAlgorithm::kBestFit);
  const HeapResult first = RunHeapSimulator(blocks, HeapAlgorithm::kFirstFit);
  EXPECT_TRUE(HeapResultIsValid(blocks, best));
  EXPECT_TRUE(HeapResultIsValid(blocks, first));
  EXPECT_EQ(best.heap_size, 70);
  EXPECT_EQ(first.heap_size, 50);
  const HeapResult kept = RunBestHeapSimulator(blocks);
  EXPECT_EQ(kept.heap_size, 50);
  EXPECT_EQ(kept.algorithm, HeapAlgorithm::kFirstFit);
  EXPECT_EQ(PeakLiveBytes(blocks), 50);
}

// Random blocks: both algorithms never overlap live blocks, never exceed the
// sum of sizes, never go below the peak of live bytes.
TEST(HeapSimulatorTest, RandomBlocksNeverOverlap) {
  std::mt19937_64 rng(5);
  int best_wins = 0, first_wins = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<HeapBlock> blocks(std::uniform_int_distribution<int>(1, 40)(rng));
    int64_t sum = 0;
    for (HeapBlock& block : blocks) {
      block.size = std::uniform_int_distribution<int>(0, 1000)(rng);
      block.start = std::uniform_int_distribution<int>(0, 50)(rng);
      block.end = block.start + std::uniform_int_distribution<int>(0, 20)(rng);
      sum += block.size;
    }
    const int64_t alignment = trial % 2 ? 1 : 16;
    const HeapResult best = RunHeapSimulator(blocks, HeapAlgorithm::kBestFit, alignment);
    const HeapResult first = RunHeapSimulator(blocks, HeapAlgorithm::kFirstFit, alignment);
    for (const HeapResult* result : {&best, &first}) {
      ASSERT_TRUE(HeapResultIsValid(blocks, *result)) << trial;
      EXPECT_GE(result->heap_size, PeakLiveBytes(blocks, alignment));
      if (alignment == 1) EXPECT_LE(result->heap_size, sum);
    }
    best_wins += best.heap_size < first.heap_size;
    first_wins += first.heap_size < best.heap_size;
  }
  // Each wins sometimes: keeping the better one is worth it.
  EXPECT_GT(best_wins, 0);
  EXPECT_GT(first_wins, 0);
}

}  // namespace
}  // namespace tessera
