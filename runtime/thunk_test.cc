// Each thunk kind with hand-written kernels: kernels (whole and
// partitioned), host calls, copies, loops, branches, nesting; the checks
// Executable::Create relies on; the printed form.
#include "runtime/thunk.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/conditional_thunk.h"
#include "runtime/copy_thunk.h"
#include "runtime/kernel_thunk.h"
#include "runtime/while_thunk.h"

namespace tessera {
namespace runtime {
namespace {

using ::testing::HasSubstr;

// Four allocations of host memory the tests write through slices.
class ThunkTest : public ::testing::Test {
 protected:
  static constexpr int64_t kSize = 4096;

  ThunkTest() : pool_(2) {
    std::vector<Allocation> allocations;
    for (int i = 0; i < 4; ++i) {
      memory_.push_back(OwnedBuffer::Allocate(kSize));
      allocations.push_back(Allocation::Temp(kSize));
    }
    plan_ = std::make_unique<BufferPlan>(*BufferPlan::Create(std::move(allocations)));
    std::vector<void*> bases;
    for (OwnedBuffer& buffer : memory_) bases.push_back(buffer.data());
    buffers_ = std::make_unique<BufferAllocations>(bases, std::vector<int64_t>(4, kSize));
  }

  template <typename T>
  T* At(int64_t allocation, int64_t offset = 0) {
    return reinterpret_cast<T*>(static_cast<char*>(memory_[allocation].data()) + offset);
  }
  ExecuteParams Params() { return {buffers_.get(), &pool_}; }

  ThreadPool pool_;
  std::vector<OwnedBuffer> memory_;
  std::unique_ptr<BufferPlan> plan_;
  std::unique_ptr<BufferAllocations> buffers_;
};

// out[i] = x[i] + y[i] for 8 floats.
void AddEight(void** buffers) {
  const float* x = static_cast<const float*>(buffers[0]);
  const float* y = static_cast<const float*>(buffers[1]);
  float* out = static_cast<float*>(buffers[2]);
  for (int i = 0; i < 8; ++i) out[i] = x[i] + y[i];
}

// out[i] = x[i] + y[i] for i in [begin, end).
void AddRange(void** buffers, int64_t begin, int64_t end) {
  const float* x = static_cast<const float*>(buffers[0]);
  const float* y = static_cast<const float*>(buffers[1]);
  float* out = static_cast<float*>(buffers[2]);
  for (int64_t i = begin; i < end; ++i) out[i] = x[i] + y[i];
}

TEST_F(ThunkTest, KernelThunkAddsTwoFloatBuffers) {
  for (int i = 0; i < 8; ++i) {
    At<float>(0)[i] = i;
    At<float>(1)[i] = 0.5f * i;
  }
  KernelThunk thunk("add", {{0, 0, 32}, {1, 0, 32}, {2, 64, 32}}, &AddEight);
  ASSERT_TRUE(thunk.Check(*plan_).ok());
  ASSERT_TRUE(thunk.Execute(Params()).ok());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(At<float>(2, 64)[i], 1.5f * i);
  EXPECT_EQ(thunk.ToString(), "kernel add (a0[0, 32), a1[0, 32), a2[64, 96))\n");
}

// A chain runs its kernels in order, each on its own slices (the third
// reads what the first wrote), whole ones and one-block partitioned ones,
// and calls none with no work; more slices than fit on the stack.
TEST_F(ThunkTest, ChainRunsItsKernelsInOrderOnTheirOwnSlices) {
  for (int i = 0; i < 8; ++i) {
    At<float>(0)[i] = i;
    At<float>(1)[i] = 1;
  }
  std::vector<std::unique_ptr<KernelThunk>> kernels;
  kernels.push_back(std::make_unique<KernelThunk>(
      "first", std::vector<BufferSlice>{{0, 0, 32}, {1, 0, 32}, {2, 0, 32}}, &AddEight));
  kernels.push_back(std::make_unique<KernelThunk>(
      "idle", std::vector<BufferSlice>{{0, 0, 32}, {1, 0, 32}, {3, 256, 32}}, &AddRange, 0, 1));
  kernels.push_back(std::make_unique<KernelThunk>(
      "third", std::vector<BufferSlice>{{2, 0, 32}, {1, 0, 32}, {3, 0, 32}}, &AddRange, 8, 1));
  EXPECT_TRUE(kernels[2]->RunsAsOneBlock());
  EXPECT_FALSE(KernelThunk("split", {}, &AddRange, 8, 2).RunsAsOneBlock());
  // Many more: slices beyond the stack's room (each writes a3[512 + 32k]).
  for (int k = 0; k < 30; ++k) {
    kernels.push_back(std::make_unique<KernelThunk>(
        absl::StrCat("more", k),
        std::vector<BufferSlice>{{0, 0, 32}, {1, 0, 32}, {3, 512 + 32 * k, 32}}, &AddEight));
  }
  std::memset(At<float>(3, 256), 0x7f, 32);
  std::unique_ptr<KernelThunk> chain = KernelThunk::Chain(std::move(kernels));
  EXPECT_THAT(chain->name(), ::testing::StartsWith("first + idle + third + more0 + "));
  EXPECT_EQ(chain->buffers().size(), 99u);
  ASSERT_TRUE(chain->Check(*plan_).ok());
  ASSERT_TRUE(chain->Execute(Params()).ok());
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(At<float>(2)[i], i + 1.0f);
    EXPECT_EQ(At<float>(3)[i], i + 2.0f);
    EXPECT_EQ(At<float>(3, 512 + 32 * 29)[i], i + 1.0f);
  }
  EXPECT_NE(At<float>(3, 256)[0], 1.0f);  // "idle" ran nothing
}

TEST_F(ThunkTest, ProfileTimesEachThunkIncludingNestedOnes) {
  ThunkSequence inner;
  inner.Emplace<KernelThunk>("inner_add", std::vector<BufferSlice>{{0, 0, 32}, {1, 0, 32}, {2, 0, 32}},
                             &AddEight);
  ThunkSequence outer;
  outer.Emplace<KernelThunk>("add", std::vector<BufferSlice>{{0, 0, 32}, {1, 0, 32}, {3, 0, 32}},
                             &AddEight);
  outer.Emplace<SequentialThunk>("group", std::move(inner));
  ThunkProfile profile;
  ExecuteParams params = Params();
  params.profile = &profile;
  for (int run = 0; run < 3; ++run) ASSERT_TRUE(outer.Execute(params).ok());
  ASSERT_EQ(profile.entries().size(), 3u);
  EXPECT_EQ(profile.entries()[0].name, "add");
  EXPECT_EQ(profile.entries()[0].kind, "kernel");
  EXPECT_EQ(profile.entries()[1].name, "inner_add");  // recorded before its parent ends
  EXPECT_EQ(profile.entries()[2].name, "group");
  EXPECT_EQ(profile.entries()[2].kind, "sequential");
  for (const ThunkProfile::Entry& entry : profile.entries()) {
    EXPECT_EQ(entry.calls, 3) << entry.name;
    EXPECT_GE(entry.total_ms, 0.0) << entry.name;
  }
  const std::string table = profile.ToString(3, 1.0);
  EXPECT_THAT(table, HasSubstr("ms/run"));
  EXPECT_THAT(table, HasSubstr("inner_add"));
  // Without a profile nothing is recorded.
  ASSERT_TRUE(outer.Execute(Params()).ok());
  EXPECT_EQ(profile.entries()[0].calls, 3);
}

TEST_F(ThunkTest, PartitionedKernelCoversTheWorkOnce) {
  const int64_t n = kSize / 4;
  for (int64_t i = 0; i < n; ++i) {
    At<float>(0)[i] = i;
    At<float>(1)[i] = 1;
  }
  for (int64_t partitions : {1, 2, 3, 7, 1024, 5000}) {
    std::memset(At<float>(2), 0, kSize);
    KernelThunk thunk("add", {{0, 0, kSize}, {1, 0, kSize}, {2, 0, kSize}}, &AddRange, n,
                      partitions);
    ASSERT_TRUE(thunk.Check(*plan_).ok());
    ASSERT_TRUE(thunk.Execute(Params()).ok());
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(At<float>(2)[i], i + 1.0f) << partitions;
  }
}

TEST_F(ThunkTest, PartitionedKernelSplitsIntoBlocks) {
  std::mutex mutex;
  std::vector<std::pair<int64_t, int64_t>> blocks;
  KernelThunk thunk(
      "k", {},
      [&](void**, int64_t begin, int64_t end) {
        std::lock_guard<std::mutex> lock(mutex);
        blocks.emplace_back(begin, end);
      },
      10, 4);
  ASSERT_TRUE(thunk.Execute(Params()).ok());
  std::sort(blocks.begin(), blocks.end());
  EXPECT_EQ(blocks, (std::vector<std::pair<int64_t, int64_t>>{{0, 3}, {3, 6}, {6, 9}, {9, 10}}));
  EXPECT_EQ(thunk.ToString(), "kernel k () work 10 in 4 partitions\n");

  int calls = 0;
  KernelThunk empty("e", {}, [&](void**, int64_t, int64_t) { ++calls; }, 0, 4);
  ASSERT_TRUE(empty.Execute(Params()).ok());
  EXPECT_EQ(calls, 0);
}

TEST_F(ThunkTest, KernelThunkChecks) {
  EXPECT_THAT(KernelThunk("k", {{0, 4090, 8}}, &AddEight).Check(*plan_).message(),
              HasSubstr("thunk k: slice a0[4090, 4098) is outside allocation 0"));
  EXPECT_THAT(KernelThunk("k", {{7, 0, 8}}, &AddEight).Check(*plan_).message(),
              HasSubstr("no allocation 7"));
  EXPECT_THAT(KernelThunk("k", {}, &AddRange, 10, 0).Check(*plan_).message(),
              HasSubstr("work size 10 in 0 partitions"));
  KernelThunk::Function* null_kernel = nullptr;
  EXPECT_THAT(KernelThunk("k", {}, null_kernel).Check(*plan_).message(),
              HasSubstr("no function"));
}

TEST_F(ThunkTest, HostCallThunkPassesAddressesAndErrors) {
  HostCallThunk thunk("call", {{1, 8, 4}, {3, 0, 4}},
                      [&](absl::Span<void* const> addresses, const ExecuteParams& params) {
                        EXPECT_EQ(params.thread_pool, &pool_);
                        if (addresses.size() != 2) return absl::InternalError("addresses");
                        if (addresses[0] != At<char>(1, 8)) return absl::InternalError("first");
                        std::memcpy(addresses[1], "abc", 4);
                        return absl::OkStatus();
                      });
  ASSERT_TRUE(thunk.Check(*plan_).ok());
  ASSERT_TRUE(thunk.Execute(Params()).ok());
  EXPECT_STREQ(At<char>(3), "abc");
  EXPECT_EQ(thunk.ToString(), "host-call call (a1[8, 12), a3[0, 4))\n");

  ThunkSequence failing;
  failing.Emplace<HostCallThunk>("bad", std::vector<BufferSlice>{},
                                 [](absl::Span<void* const>, const ExecuteParams&) {
                                   return absl::UnimplementedError("no such op");
                                 });
  absl::Status status = failing.Execute(Params());
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(status.message(), "bad: no such op");
}

TEST_F(ThunkTest, CopyThunkCopiesSmallLargeAndOverlapping) {
  for (int i = 0; i < kSize; ++i) At<uint8_t>(0)[i] = static_cast<uint8_t>(i * 7);
  CopyThunk small("c", {0, 16, 100}, {1, 200, 100});
  ASSERT_TRUE(small.Check(*plan_).ok());
  ASSERT_TRUE(small.Execute(Params()).ok());
  EXPECT_EQ(std::memcmp(At<char>(1, 200), At<char>(0, 16), 100), 0);
  EXPECT_EQ(small.ToString(), "copy c a0[16, 116) -> a1[200, 300)\n");

  // Overlapping, within one allocation: memmove semantics.
  std::vector<uint8_t> expected(At<uint8_t>(0), At<uint8_t>(0) + 1000);
  CopyThunk overlapping("o", {0, 0, 1000}, {0, 10, 1000});
  ASSERT_TRUE(overlapping.Execute(Params()).ok());
  EXPECT_EQ(std::memcmp(At<uint8_t>(0, 10), expected.data(), 1000), 0);

  EXPECT_THAT(CopyThunk("c", {0, 0, 8}, {1, 0, 4}).Check(*plan_).message(),
              HasSubstr("differ in size"));
  EXPECT_THAT(CopyThunk("c", {0, 0, 8}, {1, kSize, 8}).Check(*plan_).message(),
              HasSubstr("outside"));
}

TEST(CopyThunkLargeTest, ParallelCopyOfSeveralMegabytes) {
  const int64_t size = (int64_t{5} << 20) + 13;
  std::vector<OwnedBuffer> memory;
  memory.push_back(OwnedBuffer::Allocate(size));
  memory.push_back(OwnedBuffer::Allocate(size));
  for (int64_t i = 0; i < size; ++i) static_cast<uint8_t*>(memory[0].data())[i] = i % 251;
  BufferAllocations buffers({memory[0].data(), memory[1].data()}, {size, size});
  ThreadPool pool(2);
  CopyThunk copy("big", {0, 0, size}, {1, 0, size});
  ASSERT_TRUE(copy.Execute({&buffers, &pool}).ok());
  EXPECT_EQ(std::memcmp(memory[0].data(), memory[1].data(), size), 0);
}

// counter (s32 at a0[0]) < limit (s32 at a0[4]) -> predicate at a0[8].
void LessThan(void** buffers) {
  const int32_t* state = static_cast<const int32_t*>(buffers[0]);
  *static_cast<bool*>(buffers[1]) = state[0] < state[1];
}
// counter += 1; sum (at a1[0]) += counter.
void Step(void** buffers) {
  int32_t* counter = static_cast<int32_t*>(buffers[0]);
  int64_t* sum = static_cast<int64_t*>(buffers[1]);
  ++*counter;
  *sum += *counter;
}

TEST_F(ThunkTest, WhileThunkLoopsUntilThePredicateIsFalse) {
  const BufferSlice state{0, 0, 8}, predicate{0, 8, 1}, counter{0, 0, 4}, sum{1, 0, 8};
  auto make_loop = [&](std::optional<int64_t> trip_count) {
    ThunkSequence condition;
    condition.Emplace<KernelThunk>("lt", std::vector<BufferSlice>{state, predicate}, &LessThan);
    ThunkSequence body;
    body.Emplace<KernelThunk>("step", std::vector<BufferSlice>{counter, sum}, &Step);
    return WhileThunk("loop", std::move(condition), predicate, std::move(body), trip_count);
  };
  for (int32_t limit : {0, 1, 10}) {
    At<int32_t>(0)[0] = 0;
    At<int32_t>(0)[1] = limit;
    *At<int64_t>(1) = 0;
    WhileThunk loop = make_loop(std::nullopt);
    ASSERT_TRUE(loop.Check(*plan_).ok());
    ASSERT_TRUE(loop.Execute(Params()).ok());
    EXPECT_EQ(At<int32_t>(0)[0], limit);
    EXPECT_EQ(*At<int64_t>(1), limit * (limit + 1) / 2);
  }
  // A known trip count skips the condition.
  At<int32_t>(0)[0] = 0;
  At<int32_t>(0)[1] = 0;
  *At<int64_t>(1) = 0;
  WhileThunk counted = make_loop(4);
  ASSERT_TRUE(counted.Execute(Params()).ok());
  EXPECT_EQ(At<int32_t>(0)[0], 4);
  EXPECT_EQ(counted.ToString(),
            "while loop (trip count 4)\n"
            "  body:\n"
            "    kernel step (a0[0, 4), a1[0, 8))\n");
  EXPECT_EQ(make_loop(std::nullopt).ToString(),
            "while loop (predicate a0[8, 9))\n"
            "  condition:\n"
            "    kernel lt (a0[0, 8), a0[8, 9))\n"
            "  body:\n"
            "    kernel step (a0[0, 4), a1[0, 8))\n");
}

// counter += 1 (s32 at buffers[0]).
void Increment(void** buffers) { ++*static_cast<int32_t*>(buffers[0]); }
// sum (s64 at buffers[1]) += counter (s32 at buffers[0]).
void AddCounter(void** buffers) {
  *static_cast<int64_t*>(buffers[1]) += *static_cast<const int32_t*>(buffers[0]);
}
// Counter and sum as Step does, split into `partitions` blocks of one unit.
void StepInParts(void** buffers, int64_t begin, int64_t end) {
  for (int64_t unit = begin; unit < end; ++unit) {
    if (unit == 0) Step(buffers);
  }
}

// Loops of one-block kernels run over slices resolved once (ResolvedKernels
// in while_thunk.cc); others thunk by thunk.  Each body here sums
// 1..limit, counted or not: two kernels over slices of their own, a kernel
// and a copy, a partitioned kernel, and profiled (thunk by thunk, each
// timed).
TEST_F(ThunkTest, WhileThunkBodiesOfKernelsAndOfOtherThunksLoopAlike) {
  const BufferSlice state{0, 0, 8}, predicate{0, 8, 1}, counter{0, 0, 4}, sum{1, 0, 8};
  const BufferSlice staged{2, 0, 8};
  auto two_kernels = [&] {
    ThunkSequence body;
    body.Emplace<KernelThunk>("increment", std::vector<BufferSlice>{counter}, &Increment);
    body.Emplace<KernelThunk>("add", std::vector<BufferSlice>{counter, sum}, &AddCounter);
    return body;
  };
  auto kernel_and_copy = [&] {
    ThunkSequence body;
    body.Emplace<KernelThunk>("step", std::vector<BufferSlice>{counter, staged}, &Step);
    body.Emplace<CopyThunk>("copy", staged, sum);
    return body;
  };
  auto partitioned = [&] {
    ThunkSequence body;
    body.Emplace<KernelThunk>("step", std::vector<BufferSlice>{counter, sum}, &StepInParts, 2, 2);
    return body;
  };
  for (auto make_body : {std::function<ThunkSequence()>(two_kernels),
                         std::function<ThunkSequence()>(kernel_and_copy),
                         std::function<ThunkSequence()>(partitioned)}) {
    for (bool counted : {false, true}) {
      for (bool profiled : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "counted " << counted << " profiled " << profiled);
        constexpr int32_t kLimit = 10;
        At<int32_t>(0)[0] = 0;
        At<int32_t>(0)[1] = kLimit;
        *At<int64_t>(1) = *At<int64_t>(2) = 0;
        ThunkSequence condition;
        condition.Emplace<KernelThunk>("lt", std::vector<BufferSlice>{state, predicate}, &LessThan);
        WhileThunk loop("loop", std::move(condition), predicate, make_body(),
                        counted ? std::optional<int64_t>(kLimit) : std::nullopt);
        ThunkProfile profile;
        ExecuteParams params = Params();
        if (profiled) params.profile = &profile;
        ASSERT_TRUE(loop.Execute(params).ok());
        EXPECT_EQ(At<int32_t>(0)[0], kLimit);
        EXPECT_EQ(*At<int64_t>(1), kLimit * (kLimit + 1) / 2);
      }
    }
  }
}

TEST_F(ThunkTest, WhileThunkPropagatesErrorsAndChecksNestedThunks) {
  ThunkSequence body;
  body.Emplace<HostCallThunk>("fail", std::vector<BufferSlice>{},
                              [](absl::Span<void* const>, const ExecuteParams&) {
                                return absl::InternalError("boom");
                              });
  WhileThunk loop("w", {}, {0, 0, 1}, std::move(body), 3);
  EXPECT_EQ(loop.Execute(Params()).message(), "fail: boom");

  ThunkSequence bad_body;
  bad_body.Emplace<CopyThunk>("c", BufferSlice{9, 0, 1}, BufferSlice{0, 0, 1});
  EXPECT_THAT(WhileThunk("w", {}, {0, 0, 1}, std::move(bad_body)).Check(*plan_).message(),
              HasSubstr("thunk c: slice a9[0, 1): no allocation 9"));
  EXPECT_THAT(WhileThunk("w", {}, {0, 0, 0}, {}).Check(*plan_).message(),
              HasSubstr("no byte to read"));
  EXPECT_THAT(WhileThunk("w", {}, {}, {}, -1).Check(*plan_).message(),
              HasSubstr("negative trip count"));
}

// Writes its branch number to a3[0].
ThunkSequence WriteBranch(int32_t branch) {
  ThunkSequence sequence;
  sequence.Emplace<KernelThunk>(
      absl::StrCat("b", branch), std::vector<BufferSlice>{{3, 0, 4}},
      [branch](void** buffers, int64_t, int64_t) { *static_cast<int32_t*>(buffers[0]) = branch; });
  return sequence;
}

TEST_F(ThunkTest, ConditionalThunkWithIndexSelector) {
  std::vector<ThunkSequence> branches;
  for (int32_t b = 0; b < 3; ++b) branches.push_back(WriteBranch(b));
  ConditionalThunk conditional("cond", {2, 0, 4}, ConditionalThunk::SelectorType::kS32,
                               std::move(branches));
  ASSERT_TRUE(conditional.Check(*plan_).ok());
  // Out-of-range indices run the last branch, as XLA's conditional does.
  for (auto [index, branch] : std::vector<std::pair<int32_t, int32_t>>{
           {0, 0}, {1, 1}, {2, 2}, {3, 2}, {-1, 2}, {1 << 30, 2}}) {
    *At<int32_t>(2) = index;
    *At<int32_t>(3) = -7;
    ASSERT_TRUE(conditional.Execute(Params()).ok());
    EXPECT_EQ(*At<int32_t>(3), branch) << "index " << index;
  }
  EXPECT_EQ(conditional.ToString(),
            "conditional cond (s32 selector a2[0, 4))\n"
            "  branch 0:\n"
            "    kernel b0 (a3[0, 4))\n"
            "  branch 1:\n"
            "    kernel b1 (a3[0, 4))\n"
            "  branch 2:\n"
            "    kernel b2 (a3[0, 4))\n");
}

TEST_F(ThunkTest, ConditionalThunkWithPredSelector) {
  std::vector<ThunkSequence> branches;
  branches.push_back(WriteBranch(0));
  branches.push_back(WriteBranch(1));
  ConditionalThunk conditional("cond", {2, 5, 1}, ConditionalThunk::SelectorType::kPred,
                               std::move(branches));
  ASSERT_TRUE(conditional.Check(*plan_).ok());
  *At<bool>(2, 5) = true;
  ASSERT_TRUE(conditional.Execute(Params()).ok());
  EXPECT_EQ(*At<int32_t>(3), 0);
  *At<bool>(2, 5) = false;
  ASSERT_TRUE(conditional.Execute(Params()).ok());
  EXPECT_EQ(*At<int32_t>(3), 1);
}

TEST_F(ThunkTest, ConditionalThunkChecks) {
  std::vector<ThunkSequence> three;
  for (int32_t b = 0; b < 3; ++b) three.push_back(WriteBranch(b));
  EXPECT_THAT(ConditionalThunk("c", {0, 0, 1}, ConditionalThunk::SelectorType::kPred,
                               std::move(three))
                  .Check(*plan_)
                  .message(),
              HasSubstr("has 3 branch(es); a PRED selector needs 2"));
  EXPECT_THAT(
      ConditionalThunk("c", {0, 0, 4}, ConditionalThunk::SelectorType::kS32, {}).Check(*plan_)
          .message(),
      HasSubstr("has 0 branch(es)"));
  std::vector<ThunkSequence> one;
  one.push_back(WriteBranch(0));
  EXPECT_THAT(ConditionalThunk("c", {0, 0, 8}, ConditionalThunk::SelectorType::kS32,
                               std::move(one))
                  .Check(*plan_)
                  .message(),
              HasSubstr("is not 4 byte(s)"));
}

TEST_F(ThunkTest, SequentialThunkRunsInOrder) {
  ThunkSequence inner;
  inner.Emplace<KernelThunk>("set", std::vector<BufferSlice>{{0, 0, 4}},
                             [](void** b, int64_t, int64_t) { *static_cast<int32_t*>(b[0]) = 5; });
  inner.Emplace<KernelThunk>("double", std::vector<BufferSlice>{{0, 0, 4}},
                             [](void** b, int64_t, int64_t) { *static_cast<int32_t*>(b[0]) *= 2; });
  ThunkSequence outer;
  outer.Emplace<SequentialThunk>("group", std::move(inner));
  outer.Emplace<CopyThunk>("copy", BufferSlice{0, 0, 4}, BufferSlice{1, 0, 4});
  ASSERT_TRUE(outer.Check(*plan_).ok());
  ASSERT_TRUE(outer.Execute(Params()).ok());
  EXPECT_EQ(*At<int32_t>(1), 10);
  EXPECT_EQ(outer.size(), 2);
  EXPECT_EQ(outer[0].kind(), Thunk::Kind::kSequential);
  EXPECT_EQ(outer.ToString(),
            "sequential group\n"
            "  kernel set (a0[0, 4))\n"
            "  kernel double (a0[0, 4))\n"
            "copy copy a0[0, 4) -> a1[0, 4)\n");
}

}  // namespace
}  // namespace runtime
}  // namespace tessera
