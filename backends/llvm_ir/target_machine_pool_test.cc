// The target machine pool: leases come back, a configuration gets its own
// machines, concurrent leases never share one, and a target LLVM lacks is
// an error.
#include "backends/llvm_ir/target_machine_pool.h"

#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"

namespace tessera {
namespace llvm_ir {
namespace {

TargetConfig HostConfig(llvm::CodeGenOptLevel level = llvm::CodeGenOptLevel::Aggressive) {
  llvm::InitializeNativeTarget();
  return TargetConfig{llvm::sys::getProcessTriple(), "x86-64", "+sse2", level};
}

TEST(TargetMachinePoolTest, AReturnedMachineIsLentAgain) {
  llvm::TargetMachine* first = nullptr;
  {
    absl::StatusOr<TargetMachineLease> lease = BorrowTargetMachine(HostConfig());
    ASSERT_TRUE(lease.ok()) << lease.status();
    first = lease->get();
    EXPECT_EQ((*lease)->getTargetCPU(), "x86-64");
  }
  const int idle = IdleTargetMachinesForTesting();
  EXPECT_GE(idle, 1);
  absl::StatusOr<TargetMachineLease> again = BorrowTargetMachine(HostConfig());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->get(), first);
  EXPECT_EQ(IdleTargetMachinesForTesting(), idle - 1);
}

TEST(TargetMachinePoolTest, ConfigurationsDoNotShareMachines) {
  { BorrowTargetMachine(HostConfig()).IgnoreError(); }  // one idle at O3
  absl::StatusOr<TargetMachineLease> none =
      BorrowTargetMachine(HostConfig(llvm::CodeGenOptLevel::None));
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ((*none)->getOptLevel(), llvm::CodeGenOptLevel::None);
  absl::StatusOr<TargetMachineLease> aggressive = BorrowTargetMachine(HostConfig());
  ASSERT_TRUE(aggressive.ok()) << aggressive.status();
  EXPECT_EQ((*aggressive)->getOptLevel(), llvm::CodeGenOptLevel::Aggressive);
}

TEST(TargetMachinePoolTest, ConcurrentLeasesAreDistinct) {
  constexpr int kThreads = 4;
  std::vector<llvm::TargetMachine*> held(kThreads, nullptr);
  {
    std::vector<TargetMachineLease> leases;
    for (int i = 0; i < kThreads; ++i) {
      absl::StatusOr<TargetMachineLease> lease = BorrowTargetMachine(HostConfig());
      ASSERT_TRUE(lease.ok()) << lease.status();
      held[i] = lease->get();
      leases.push_back(std::move(*lease));
    }
  }
  EXPECT_EQ(std::set<llvm::TargetMachine*>(held.begin(), held.end()).size(), kThreads);
  // Borrowed and returned from many threads at once (a data race here is
  // what TSan or a crash would show).
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < 50; ++i) {
        absl::StatusOr<TargetMachineLease> lease = BorrowTargetMachine(HostConfig());
        ASSERT_TRUE(lease.ok());
        (void)(*lease)->createDataLayout();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
}

TEST(TargetMachinePoolTest, AnUnknownTargetIsAnError) {
  absl::StatusOr<TargetMachineLease> lease =
      BorrowTargetMachine(TargetConfig{"sparc-sun-nowhere", "", "", llvm::CodeGenOptLevel::None});
  ASSERT_FALSE(lease.ok());
  EXPECT_EQ(lease.status().code(), absl::StatusCode::kInternal);
  EXPECT_NE(lease.status().message().find("cannot create a target machine"), std::string::npos)
      << lease.status();
}

}  // namespace
}  // namespace llvm_ir
}  // namespace tessera
