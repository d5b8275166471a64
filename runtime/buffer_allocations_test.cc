// Buffer plans (checks, arena layout, constants) and binding a plan to the
// memory of one run (parameters, donation, outputs, temps, slices).
#include "runtime/buffer_allocations.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace runtime {
namespace {

using ::testing::HasSubstr;

TEST(OwnedBufferTest, AlignedZeroedAndMovable) {
  OwnedBuffer buffer = OwnedBuffer::Allocate(100);
  ASSERT_NE(buffer.data(), nullptr);
  EXPECT_EQ(buffer.size(), 100);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.data()) % kBufferAlignment, 0u);
  const uint8_t* bytes = static_cast<const uint8_t*>(buffer.data());
  for (int i = 0; i < 100; ++i) EXPECT_EQ(bytes[i], 0);
  void* data = buffer.data();
  OwnedBuffer moved = std::move(buffer);
  EXPECT_EQ(moved.data(), data);
  EXPECT_EQ(buffer.data(), nullptr);
  EXPECT_EQ(buffer.size(), 0);
  EXPECT_EQ(OwnedBuffer::Allocate(0).data(), nullptr);
}

TEST(BufferSliceTest, PrintsAndOverlaps) {
  BufferSlice a{3, 128, 256};
  EXPECT_EQ(a.ToString(), "a3[128, 384)");
  EXPECT_TRUE(a.Overlaps({3, 0, 129}));
  EXPECT_FALSE(a.Overlaps({3, 0, 128}));
  EXPECT_FALSE(a.Overlaps({2, 128, 256}));
  EXPECT_FALSE(a.Overlaps({3, 200, 0}));
}

TEST(BufferPlanTest, ArenaHoldsTempsAndDonatedParametersAligned) {
  absl::StatusOr<BufferPlan> plan = BufferPlan::Create({
      Allocation::Parameter(1, 12),
      Allocation::Temp(100),
      Allocation::Parameter(0, 8, /*donated=*/true),
      Allocation::Output(0, 16),
      Allocation::Temp(1),
      Allocation::Constant({1, 2, 3}),
  });
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->argument_count(), 2);
  EXPECT_EQ(plan->argument_allocation(0), 2);
  EXPECT_EQ(plan->argument_allocation(1), 0);
  EXPECT_EQ(plan->argument_size(1), 12);
  EXPECT_EQ(plan->arena_offset(0), -1);
  EXPECT_EQ(plan->arena_offset(1), 0);
  EXPECT_EQ(plan->arena_offset(2), 128);
  EXPECT_EQ(plan->arena_offset(3), -1);
  EXPECT_EQ(plan->arena_offset(4), 192);
  EXPECT_EQ(plan->arena_offset(5), -1);
  EXPECT_EQ(plan->arena_size(), 256);
  const uint8_t* constant = static_cast<const uint8_t*>(plan->constant_data(5));
  ASSERT_NE(constant, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(constant) % kBufferAlignment, 0u);
  EXPECT_EQ(constant[0], 1);
  EXPECT_EQ(constant[2], 3);
  EXPECT_EQ(plan->ToString(),
            "a0: parameter 1, 12 bytes\n"
            "a1: temp, 100 bytes\n"
            "a2: parameter 0, 8 bytes, donated\n"
            "a3: output 0, 16 bytes\n"
            "a4: temp, 1 bytes\n"
            "a5: constant, 3 bytes\n"
            "arena: 256 bytes\n");
}

TEST(BufferPlanTest, RejectsMalformedPlans) {
  EXPECT_THAT(BufferPlan::Create({Allocation::Temp(-1)}).status().message(),
              HasSubstr("negative size"));
  EXPECT_THAT(BufferPlan::Create({Allocation::Parameter(0, 4), Allocation::Parameter(0, 4)})
                  .status()
                  .message(),
              HasSubstr("are both argument 0"));
  EXPECT_THAT(BufferPlan::Create({Allocation::Parameter(1, 4), Allocation::Temp(4)})
                  .status()
                  .message(),
              HasSubstr("no parameter allocation for argument 0"));
  EXPECT_THAT(BufferPlan::Create({Allocation::Output(0, 4), Allocation::Output(0, 4)})
                  .status()
                  .message(),
              HasSubstr("two output allocations name result 0"));
  Allocation constant = Allocation::Constant({1, 2});
  constant.size = 3;
  EXPECT_THAT(BufferPlan::Create({constant}).status().message(),
              HasSubstr("2 bytes of contents for a size of 3"));
}

TEST(BufferPlanTest, ChecksSlices) {
  BufferPlan plan = *BufferPlan::Create({Allocation::Temp(64), Allocation::Temp(0)});
  EXPECT_TRUE(plan.CheckSlice({0, 0, 64}).ok());
  EXPECT_TRUE(plan.CheckSlice({0, 60, 4}).ok());
  EXPECT_TRUE(plan.CheckSlice({1, 0, 0}).ok());
  EXPECT_THAT(plan.CheckSlice({0, 60, 8}).message(), HasSubstr("outside allocation 0 of 64"));
  EXPECT_THAT(plan.CheckSlice({0, -1, 1}).message(), HasSubstr("outside"));
  EXPECT_THAT(plan.CheckSlice({2, 0, 1}).message(), HasSubstr("no allocation 2"));
  EXPECT_THAT(plan.CheckSlice({-1, 0, 1}).message(), HasSubstr("no allocation -1"));
}

TEST(BufferAllocationsTest, BindsEachKindAndResolvesSlices) {
  BufferPlan plan = *BufferPlan::Create({
      Allocation::Parameter(0, 8),
      Allocation::Output(0, 16),
      Allocation::Temp(32),
      Allocation::Constant({7, 8}),
  });
  float x[2] = {1, 2};
  float out[4] = {};
  OwnedBuffer arena = OwnedBuffer::Allocate(plan.arena_size());
  absl::StatusOr<BufferAllocations> buffers = BufferAllocations::Bind(
      plan, arena.data(), {ArgumentBuffer(x, sizeof(x))}, {ResultBuffer(out, sizeof(out))});
  ASSERT_TRUE(buffers.ok()) << buffers.status();
  EXPECT_EQ(buffers->allocation_count(), 4);
  EXPECT_EQ(buffers->base(0), x);
  EXPECT_EQ(buffers->base(1), out);
  EXPECT_EQ(buffers->base(2), arena.data());
  EXPECT_EQ(buffers->base(3), plan.constant_data(3));
  EXPECT_EQ(buffers->size(2), 32);
  EXPECT_EQ(buffers->Resolve({0, 4, 4}), &x[1]);
  EXPECT_EQ(buffers->Resolve({1, 8, 4}), &out[2]);
  EXPECT_EQ(*buffers->ResolveChecked({0, 4, 4}), &x[1]);
  EXPECT_THAT(buffers->ResolveChecked({0, 4, 8}).status().message(),
              HasSubstr("outside allocation 0"));
  EXPECT_THAT(buffers->ResolveChecked({9, 0, 1}).status().message(),
              HasSubstr("no allocation 9"));
}

TEST(BufferAllocationsTest, DonatedArgumentIsUsedInPlaceOtherwiseCopied) {
  BufferPlan plan = *BufferPlan::Create({Allocation::Parameter(0, 8, /*donated=*/true)});
  OwnedBuffer arena = OwnedBuffer::Allocate(plan.arena_size());
  float x[2] = {1, 2};

  absl::StatusOr<BufferAllocations> donated = BufferAllocations::Bind(
      plan, arena.data(), {ArgumentBuffer::Donated(x, sizeof(x))}, {});
  ASSERT_TRUE(donated.ok()) << donated.status();
  EXPECT_EQ(donated->base(0), x);

  // Kept by the caller: the program writes a copy in the arena.
  absl::StatusOr<BufferAllocations> kept =
      BufferAllocations::Bind(plan, arena.data(), {ArgumentBuffer(x, sizeof(x))}, {});
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(kept->base(0), arena.data());
  EXPECT_EQ(std::memcmp(arena.data(), x, sizeof(x)), 0);
}

TEST(BufferAllocationsTest, WrongArgumentsAndResultsAreErrors) {
  BufferPlan plan = *BufferPlan::Create({Allocation::Parameter(0, 8), Allocation::Output(0, 4)});
  float x[2] = {};
  float y = 0;
  EXPECT_THAT(BufferAllocations::Bind(plan, nullptr, {}, {ResultBuffer(&y, 4)})
                  .status()
                  .message(),
              HasSubstr("expected 1 argument(s), got 0"));
  EXPECT_THAT(BufferAllocations::Bind(plan, nullptr, {ArgumentBuffer(x, 4)}, {ResultBuffer(&y, 4)})
                  .status()
                  .message(),
              HasSubstr("argument 0 has 4 bytes, expected 8"));
  EXPECT_THAT(BufferAllocations::Bind(plan, nullptr, {ArgumentBuffer(x, 8)}, {ResultBuffer(x, 8)})
                  .status()
                  .message(),
              HasSubstr("result 0 has 8 bytes, expected 4"));
  EXPECT_THAT(BufferAllocations::Bind(plan, nullptr, {ArgumentBuffer(x, 8)}, {}).status().message(),
              HasSubstr("no buffer for result 0"));
  EXPECT_THAT(
      BufferAllocations::Bind(plan, nullptr, {ArgumentBuffer(nullptr, 8)}, {ResultBuffer(&y, 4)})
          .status()
          .message(),
      HasSubstr("argument 0 is null"));
}

}  // namespace
}  // namespace runtime
}  // namespace tessera
