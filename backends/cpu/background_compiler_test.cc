#include "backends/cpu/background_compiler.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace tessera {
namespace cpu {
namespace {

// Jobs run one at a time, in the order submitted.
TEST(BackgroundCompilerTest, RunsJobsInOrder) {
  BackgroundCompiler compiler;
  std::vector<int> order;
  std::atomic<int> done{0};
  int owner = 0;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(compiler.Submit(&owner, [&, i] {
      order.push_back(i);
      ++done;
    }));
  }
  int other = 0;
  compiler.Cancel(&other);   // no job of its own: waits for nothing
  compiler.Cancel(nullptr);  // nor for a null owner's
  while (done.load() < 5) std::this_thread::yield();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

// Cancel drops the owner's queued jobs, leaves the others', and returns
// only after the owner's running job has finished.
TEST(BackgroundCompilerTest, CancelDropsQueuedJobsAndWaitsForTheRunningOne) {
  BackgroundCompiler compiler;
  int a = 0, b = 0;
  std::atomic<bool> started{false}, release{false}, finished{false};
  std::atomic<int> ran_a{0}, ran_b{0};
  ASSERT_TRUE(compiler.Submit(&a, [&] {
    started = true;
    while (!release.load()) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    finished = true;
  }));
  ASSERT_TRUE(compiler.Submit(&a, [&] { ++ran_a; }));
  ASSERT_TRUE(compiler.Submit(&b, [&] { ++ran_b; }));
  while (!started.load()) std::this_thread::yield();
  release = true;
  compiler.Cancel(&a);
  EXPECT_TRUE(finished.load());  // waited for the running job
  compiler.Cancel(&b);           // b's job may be queued still: dropped too
  compiler.Stop();
  EXPECT_EQ(ran_a.load(), 0);
  EXPECT_LE(ran_b.load(), 1);
}

// Stop finishes the running job, drops the queued ones, and refuses more.
TEST(BackgroundCompilerTest, StopRefusesLaterJobs) {
  BackgroundCompiler compiler;
  int owner = 0;
  std::atomic<bool> started{false};
  std::atomic<int> ran{0};
  ASSERT_TRUE(compiler.Submit(&owner, [&] {
    started = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ++ran;
  }));
  ASSERT_TRUE(compiler.Submit(&owner, [&] { ++ran; }));
  while (!started.load()) std::this_thread::yield();
  compiler.Stop();
  EXPECT_EQ(ran.load(), 1);
  EXPECT_FALSE(compiler.Submit(&owner, [&] { ++ran; }));
  compiler.Cancel(&owner);  // after Stop: returns
  EXPECT_EQ(ran.load(), 1);
}

// A job that makes a static object of its own (as LLVM's code generator
// does at its first use) and still runs when the main thread exits: the
// exit waits for it before that object is destroyed.
std::atomic<bool> job_started{false};
std::atomic<bool> late_static_destroyed{false};

struct LateStatic {
  ~LateStatic() { late_static_destroyed = true; }
};

void ExitWhileAJobRuns() {
  BackgroundCompiler::StopWhenMainThreadExits();
  static const char owner = 0;
  BackgroundCompiler::Default().Submit(&owner, [] {
    static LateStatic late;  // registered after the exit handler
    job_started = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (late_static_destroyed.load()) std::_Exit(3);  // destroyed under the job
  });
  while (!job_started.load()) std::this_thread::yield();
  std::exit(0);
}

TEST(BackgroundCompilerDeathTest, MainThreadExitWaitsForTheRunningJob) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(ExitWhileAJobRuns(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
