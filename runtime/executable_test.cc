// Executables end to end on raw buffers: results, temps in a reused arena,
// donation (in place, and a copy when the caller keeps the argument),
// duplicate and constant results, loops, concurrent runs, and the errors
// for wrong arguments, results and plans.
#include "runtime/executable.h"

#include <cstdint>
#include <cstring>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/copy_thunk.h"
#include "runtime/kernel_thunk.h"
#include "runtime/while_thunk.h"

namespace tessera {
namespace runtime {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kN = 8;
constexpr int64_t kBytes = kN * sizeof(float);

void Add(void** b) {
  for (int i = 0; i < kN; ++i) {
    static_cast<float*>(b[2])[i] = static_cast<float*>(b[0])[i] + static_cast<float*>(b[1])[i];
  }
}
void Double(void** b) {
  for (int i = 0; i < kN; ++i) static_cast<float*>(b[1])[i] = 2 * static_cast<float*>(b[0])[i];
}
void AddOneInPlace(void** b) {
  for (int i = 0; i < kN; ++i) static_cast<float*>(b[0])[i] += 1;
}

std::vector<float> Floats(const void* data) {
  const float* f = static_cast<const float*>(data);
  return std::vector<float>(f, f + kN);
}

// out = 2 * x + y, through a temp: allocations x, y, out, temp.
std::unique_ptr<Executable> DoubleThenAdd(std::vector<void*>* temp_addresses = nullptr) {
  BufferPlan plan = *BufferPlan::Create({Allocation::Parameter(0, kBytes),
                                         Allocation::Parameter(1, kBytes),
                                         Allocation::Output(0, kBytes), Allocation::Temp(kBytes)});
  const BufferSlice x{0, 0, kBytes}, y{1, 0, kBytes}, out{2, 0, kBytes}, temp{3, 0, kBytes};
  ThunkSequence thunks;
  thunks.Emplace<KernelThunk>("double", std::vector<BufferSlice>{x, temp}, &Double);
  if (temp_addresses != nullptr) {
    thunks.Emplace<KernelThunk>("record", std::vector<BufferSlice>{temp},
                                [temp_addresses](void** b, int64_t, int64_t) {
                                  temp_addresses->push_back(b[0]);
                                });
  }
  thunks.Emplace<KernelThunk>("add", std::vector<BufferSlice>{temp, y, out}, &Add);
  return *Executable::Create("double_then_add", std::move(plan), std::move(thunks), {out});
}

TEST(ExecutableTest, RunReturnsResults) {
  std::unique_ptr<Executable> executable = DoubleThenAdd();
  EXPECT_EQ(executable->argument_count(), 2);
  EXPECT_EQ(executable->argument_size(1), kBytes);
  EXPECT_EQ(executable->result_count(), 1);
  EXPECT_EQ(executable->result_size(0), kBytes);
  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8}, y(kN, 0.5f);
  absl::StatusOr<std::vector<OwnedBuffer>> results =
      executable->Run({ArgumentBuffer(x.data(), kBytes), ArgumentBuffer(y.data(), kBytes)});
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 1u);
  EXPECT_EQ(Floats((*results)[0].data()),
            (std::vector<float>{2.5, 4.5, 6.5, 8.5, 10.5, 12.5, 14.5, 16.5}));
  EXPECT_EQ(x[0], 1);  // arguments are only read
}

TEST(ExecutableTest, SteadyStateReusesTheArenaAndResultBuffers) {
  std::vector<void*> temps;
  std::unique_ptr<Executable> executable = DoubleThenAdd(&temps);
  std::vector<OwnedBuffer> results = executable->AllocateResults().value();
  std::vector<ResultBuffer> outs(results.begin(), results.end());
  std::vector<float> x(kN), y(kN, 1);
  for (int run = 0; run < 5; ++run) {
    for (int i = 0; i < kN; ++i) x[i] = run * 10 + i;
    ASSERT_TRUE(executable
                    ->ExecuteInto({ArgumentBuffer(x.data(), kBytes), ArgumentBuffer(y.data(), kBytes)},
                                  outs)
                    .ok());
    EXPECT_EQ(Floats(results[0].data())[3], 2 * (run * 10 + 3) + 1);
  }
  ASSERT_EQ(temps.size(), 5u);
  for (void* temp : temps) EXPECT_EQ(temp, temps[0]);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(temps[0]) % kBufferAlignment, 0u);
}

// x += 1 in x's (donated) allocation, which is also the result.
std::unique_ptr<Executable> IncrementInPlace() {
  BufferPlan plan = *BufferPlan::Create({Allocation::Parameter(0, kBytes, /*donated=*/true)});
  ThunkSequence thunks;
  thunks.Emplace<KernelThunk>("increment", std::vector<BufferSlice>{{0, 0, kBytes}},
                              &AddOneInPlace);
  return *Executable::Create("increment", std::move(plan), std::move(thunks), {{0, 0, kBytes}});
}

TEST(ExecutableTest, DonatedArgumentIsWrittenInPlace) {
  std::unique_ptr<Executable> executable = IncrementInPlace();
  std::vector<float> x = {0, 1, 2, 3, 4, 5, 6, 7};
  // The result is the donated buffer itself: computed in place, no copy.
  ASSERT_TRUE(executable
                  ->ExecuteInto({ArgumentBuffer::Donated(x.data(), kBytes)},
                                {ResultBuffer(x.data(), kBytes)})
                  .ok());
  EXPECT_EQ(x, (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));

  // Donated, with a result buffer of its own: the result is copied out.
  std::vector<float> out(kN);
  ASSERT_TRUE(executable
                  ->ExecuteInto({ArgumentBuffer::Donated(x.data(), kBytes)},
                                {ResultBuffer(out.data(), kBytes)})
                  .ok());
  EXPECT_EQ(out, (std::vector<float>{2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(ExecutableTest, KeptArgumentOfADonatedAllocationIsNotWritten) {
  std::unique_ptr<Executable> executable = IncrementInPlace();
  std::vector<float> x = {0, 1, 2, 3, 4, 5, 6, 7};
  for (int run = 0; run < 2; ++run) {
    absl::StatusOr<std::vector<OwnedBuffer>> results =
        executable->Run({ArgumentBuffer(x.data(), kBytes)});
    ASSERT_TRUE(results.ok()) << results.status();
    EXPECT_EQ(Floats((*results)[0].data()), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
    EXPECT_EQ(x, (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
  }
}

TEST(ExecutableTest, DuplicateAndConstantResults) {
  const float constant[kN] = {9, 8, 7, 6, 5, 4, 3, 2};
  std::vector<uint8_t> bytes(kBytes);
  std::memcpy(bytes.data(), constant, kBytes);
  BufferPlan plan = *BufferPlan::Create({Allocation::Parameter(0, kBytes),
                                         Allocation::Output(0, kBytes),
                                         Allocation::Constant(std::move(bytes))});
  ThunkSequence thunks;
  thunks.Emplace<KernelThunk>("double", std::vector<BufferSlice>{{0, 0, kBytes}, {1, 0, kBytes}},
                              &Double);
  // Results: the doubled value twice (the second is a copy), then the constant.
  std::unique_ptr<Executable> executable =
      *Executable::Create("dup", std::move(plan), std::move(thunks),
                          {{1, 0, kBytes}, {1, 0, kBytes}, {2, 0, kBytes}});
  std::vector<float> x(kN, 3);
  absl::StatusOr<std::vector<OwnedBuffer>> results = executable->Run({ArgumentBuffer(x.data(), kBytes)});
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 3u);
  EXPECT_EQ(Floats((*results)[0].data()), std::vector<float>(kN, 6));
  EXPECT_EQ(Floats((*results)[1].data()), std::vector<float>(kN, 6));
  EXPECT_EQ(Floats((*results)[2].data()), std::vector<float>(constant, constant + kN));
}

// Sums 1..n with a loop whose state (counter, limit, sum) lives in a temp:
// copy the argument in, loop, copy the sum out.
void Less(void** b) {
  const int32_t* s = static_cast<const int32_t*>(b[0]);
  *static_cast<uint8_t*>(b[1]) = s[0] < s[1];
}
void Accumulate(void** b) {
  int32_t* s = static_cast<int32_t*>(b[0]);
  s[0] += 1;
  s[2] += s[0];
}

// sum = 1 + 2 + ... + n by a while loop over a temp state {i, n, sum}.
std::unique_ptr<Executable> SumLoop(const std::string& name) {
  BufferPlan plan = *BufferPlan::Create(
      {Allocation::Parameter(0, 12), Allocation::Output(0, 4), Allocation::Temp(16)});
  const BufferSlice state{2, 0, 12}, predicate{2, 12, 1};
  ThunkSequence condition;
  condition.Emplace<KernelThunk>("less", std::vector<BufferSlice>{state, predicate}, &Less);
  ThunkSequence body;
  body.Emplace<KernelThunk>("accumulate", std::vector<BufferSlice>{state}, &Accumulate);
  ThunkSequence thunks;
  thunks.Emplace<CopyThunk>("init", BufferSlice{0, 0, 12}, state);
  thunks.Emplace<WhileThunk>("loop", std::move(condition), predicate, std::move(body));
  thunks.Emplace<CopyThunk>("sum", BufferSlice{2, 8, 4}, BufferSlice{1, 0, 4});
  return *Executable::Create(name, std::move(plan), std::move(thunks), {{1, 0, 4}});
}

TEST(ExecutableTest, WhileLoopOverTempState) {
  std::unique_ptr<Executable> executable = SumLoop("sum");
  for (int32_t n : {0, 1, 100}) {
    int32_t init[3] = {0, n, 0};
    absl::StatusOr<std::vector<OwnedBuffer>> results = executable->Run({ArgumentBuffer(init, 12)});
    ASSERT_TRUE(results.ok()) << results.status();
    EXPECT_EQ(*static_cast<const int32_t*>((*results)[0].data()), n * (n + 1) / 2);
  }
  EXPECT_EQ(executable->ToString(),
            "executable sum\n"
            "a0: parameter 0, 12 bytes\n"
            "a1: output 0, 4 bytes\n"
            "a2: temp, 16 bytes\n"
            "arena: 64 bytes\n"
            "results: a1[0, 4)\n"
            "copy init a0[0, 12) -> a2[0, 12)\n"
            "while loop (predicate a2[12, 13))\n"
            "  condition:\n"
            "    kernel less (a2[0, 12), a2[12, 13))\n"
            "  body:\n"
            "    kernel accumulate (a2[0, 12))\n"
            "copy sum a2[8, 12) -> a1[0, 4)\n");
}

// A loop that would run 2^31 times, stopped from another thread between
// iterations; a flag set before the run stops it before its first thunk.
TEST(ExecutableTest, CancellationStopsARunBetweenSteps) {
  std::unique_ptr<Executable> executable = SumLoop("endless");
  int32_t init[3] = {0, 2147483647, 0};
  std::atomic<bool> cancelled{false};
  RunOptions options;
  options.cancelled = &cancelled;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cancelled = true;
  });
  absl::StatusOr<std::vector<OwnedBuffer>> results =
      executable->Run({ArgumentBuffer(init, 12)}, options);
  canceller.join();
  EXPECT_EQ(results.status().code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(std::string(results.status().message()), HasSubstr("cancelled"));
  results = executable->Run({ArgumentBuffer(init, 12)}, options);
  EXPECT_THAT(std::string(results.status().message()), HasSubstr("cancelled before init"));
}

TEST(ExecutableTest, ConcurrentRunsUseArenasOfTheirOwn) {
  std::unique_ptr<Executable> executable = DoubleThenAdd();
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<float> x(kN, t), y(kN, 1);
      for (int rep = 0; rep < 200; ++rep) {
        absl::StatusOr<std::vector<OwnedBuffer>> results =
            executable->Run({ArgumentBuffer(x.data(), kBytes), ArgumentBuffer(y.data(), kBytes)});
        if (!results.ok() || Floats((*results)[0].data()) != std::vector<float>(kN, 2 * t + 1)) {
          failures.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(ExecutableTest, WrongArgumentsAreErrors) {
  std::unique_ptr<Executable> executable = DoubleThenAdd();
  std::vector<float> x(kN), y(kN);
  EXPECT_THAT(executable->Run({ArgumentBuffer(x.data(), kBytes)}).status().message(),
              HasSubstr("double_then_add takes 2 argument(s), got 1"));
  absl::Status status =
      executable->Run({ArgumentBuffer(x.data(), kBytes), ArgumentBuffer(y.data(), kBytes - 4)})
          .status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "argument 1 has 28 bytes, expected 32");
  EXPECT_THAT(executable->Run({ArgumentBuffer(x.data(), kBytes), ArgumentBuffer(nullptr, kBytes)})
                  .status()
                  .message(),
              HasSubstr("argument 1 is null"));
}

TEST(ExecutableTest, WrongResultBuffersAreErrors) {
  std::unique_ptr<Executable> executable = DoubleThenAdd();
  std::vector<float> x(kN), y(kN), out(2 * kN);
  const std::vector<ArgumentBuffer> arguments = {ArgumentBuffer(x.data(), kBytes),
                                                 ArgumentBuffer(y.data(), kBytes)};
  EXPECT_THAT(executable->ExecuteInto(arguments, {}).message(),
              HasSubstr("has 1 result(s), got 0 result buffer(s)"));
  EXPECT_THAT(executable->ExecuteInto(arguments, {ResultBuffer(out.data(), 2 * kBytes)}).message(),
              HasSubstr("result 0 has 64 bytes, expected 32"));
  // A result over an argument the caller did not donate.
  EXPECT_THAT(executable->ExecuteInto(arguments, {ResultBuffer(y.data(), kBytes)}).message(),
              HasSubstr("result 0 overlaps argument 1"));
  // Donated, but the result is not computed in that argument's place.
  EXPECT_THAT(executable
                  ->ExecuteInto({ArgumentBuffer::Donated(x.data(), kBytes), arguments[1]},
                                {ResultBuffer(x.data(), kBytes)})
                  .message(),
              HasSubstr("result 0 overlaps argument 0 (donated, but result 0 is not computed in "
                        "its place)"));
  // A donated argument must not share memory with another argument.
  EXPECT_THAT(executable
                  ->ExecuteInto({ArgumentBuffer::Donated(x.data(), kBytes),
                                 ArgumentBuffer(x.data(), kBytes)},
                                {ResultBuffer(out.data(), kBytes)})
                  .message(),
              HasSubstr("donated argument 0 overlaps argument 1"));
}

TEST(ExecutableTest, OverlappingResultsAreErrors) {
  BufferPlan plan = *BufferPlan::Create({Allocation::Temp(8)});
  std::unique_ptr<Executable> executable =
      *Executable::Create("two", std::move(plan), {}, {{0, 0, 4}, {0, 4, 4}});
  float out[3];
  EXPECT_THAT(executable->ExecuteInto({}, {ResultBuffer(&out[0], 8), ResultBuffer(&out[1], 4)})
                  .message(),
              HasSubstr("result 0 has 8 bytes"));
  EXPECT_THAT(executable->ExecuteInto({}, {ResultBuffer(&out[0], 4), ResultBuffer(&out[0], 4)})
                  .message(),
              HasSubstr("result 1 overlaps result 0"));
}

TEST(ExecutableTest, ThunkErrorsReachTheCallerAndTheNextRunWorks) {
  BufferPlan plan = *BufferPlan::Create({Allocation::Parameter(0, 4), Allocation::Output(0, 4)});
  ThunkSequence thunks;
  thunks.Emplace<HostCallThunk>(
      "check", std::vector<BufferSlice>{{0, 0, 4}, {1, 0, 4}},
      [](absl::Span<void* const> b, const ExecuteParams&) {
        int32_t value = *static_cast<const int32_t*>(b[0]);
        if (value < 0) return absl::InvalidArgumentError("negative input");
        *static_cast<int32_t*>(b[1]) = value * 3;
        return absl::OkStatus();
      });
  std::unique_ptr<Executable> executable =
      *Executable::Create("check", std::move(plan), std::move(thunks), {{1, 0, 4}});
  int32_t bad = -1, good = 5;
  EXPECT_EQ(executable->Run({ArgumentBuffer(&bad, 4)}).status().message(),
            "check: negative input");
  absl::StatusOr<std::vector<OwnedBuffer>> results = executable->Run({ArgumentBuffer(&good, 4)});
  ASSERT_TRUE(results.ok());
  EXPECT_EQ(*static_cast<const int32_t*>((*results)[0].data()), 15);
}

TEST(ExecutableTest, MalformedProgramsAreErrors) {
  auto plan = [] {
    return *BufferPlan::Create({Allocation::Parameter(0, kBytes), Allocation::Output(0, kBytes)});
  };
  ThunkSequence outside;
  outside.Emplace<KernelThunk>("k", std::vector<BufferSlice>{{0, 4, kBytes}}, &AddOneInPlace);
  EXPECT_THAT(Executable::Create("p", plan(), std::move(outside), {{1, 0, kBytes}}).status().message(),
              HasSubstr("thunk k: slice a0[4, 36) is outside allocation 0 of 32 bytes"));
  EXPECT_THAT(Executable::Create("p", plan(), {}, {{2, 0, 4}}).status().message(),
              HasSubstr("result 0: slice a2[0, 4): no allocation 2"));
  EXPECT_THAT(Executable::Create("p", plan(), {}, {}).status().message(),
              HasSubstr("allocation 1 is result 0 of only 0 result(s)"));
  EXPECT_THAT(Executable::Create("p", plan(), {}, {{1, 0, 16}}).status().message(),
              HasSubstr("result 0 is at a1[0, 16), not its whole output allocation a1[0, 32)"));
}

TEST(ExecutableTest, UsesTheGivenThreadPool) {
  BufferPlan plan = *BufferPlan::Create({});
  ThreadPool pool(3);
  ThreadPool* seen = nullptr;
  ThunkSequence thunks;
  thunks.Emplace<HostCallThunk>("pool", std::vector<BufferSlice>{},
                                [&](absl::Span<void* const>, const ExecuteParams& params) {
                                  seen = params.thread_pool;
                                  return absl::OkStatus();
                                });
  std::unique_ptr<Executable> executable =
      *Executable::Create("p", std::move(plan), std::move(thunks), {});
  RunOptions options;
  options.thread_pool = &pool;
  ASSERT_TRUE(executable->ExecuteInto({}, {}, options).ok());
  EXPECT_EQ(seen, &pool);
  ASSERT_TRUE(executable->ExecuteInto({}, {}).ok());
  EXPECT_EQ(seen, &ThreadPool::Default());
}

}  // namespace
}  // namespace runtime
}  // namespace tessera
