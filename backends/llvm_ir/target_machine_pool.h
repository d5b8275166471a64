// A process-wide pool of LLVM target machines, lent one user at a time.
//
// Creating a target machine costs more than compiling a small kernel's
// share of it: the subtarget's processor tables for this host's hundred or
// so features and the assembler info were 15-20% of a warm compile of a
// one-kernel module (perf, `tessera bench --compile_iters`), and every
// compile made three (the optimizer's, the JIT's, one per compile thread).
// A target machine is not thread-safe (it caches its subtargets per
// function attributes), but it can be reused by one thread after another,
// as ORC's own SimpleCompiler does for every module it compiles.
#ifndef TESSERA_BACKENDS_LLVM_IR_TARGET_MACHINE_POOL_H_
#define TESSERA_BACKENDS_LLVM_IR_TARGET_MACHINE_POOL_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Target/TargetMachine.h"

namespace tessera {
namespace llvm_ir {

// What a pooled target machine is made for (JIT code: default relocation
// and code models).
struct TargetConfig {
  std::string triple;
  std::string cpu;       // an LLVM CPU name: "znver5"
  std::string features;  // an LLVM feature string: "+avx2,-avx512fp16"
  llvm::CodeGenOptLevel level = llvm::CodeGenOptLevel::Aggressive;
};

// A target machine on loan: back to the pool when the lease ends.
class TargetMachineLease {
 public:
  TargetMachineLease(TargetMachineLease&& other) noexcept;
  TargetMachineLease& operator=(TargetMachineLease&& other) noexcept;
  TargetMachineLease(const TargetMachineLease&) = delete;
  TargetMachineLease& operator=(const TargetMachineLease&) = delete;
  ~TargetMachineLease();

  llvm::TargetMachine& operator*() const { return *machine_; }
  llvm::TargetMachine* operator->() const { return machine_.get(); }
  llvm::TargetMachine* get() const { return machine_.get(); }

 private:
  friend absl::StatusOr<TargetMachineLease> BorrowTargetMachine(const TargetConfig& config);
  TargetMachineLease(std::string key, std::unique_ptr<llvm::TargetMachine> machine)
      : key_(std::move(key)), machine_(std::move(machine)) {}
  void GiveBack();

  std::string key_;  // the TargetConfig's fields
  std::unique_ptr<llvm::TargetMachine> machine_;
};

// An idle target machine made for `config`, or a new one.  InternalError
// with LLVM's message when the target cannot be created.
absl::StatusOr<TargetMachineLease> BorrowTargetMachine(const TargetConfig& config);

// Idle target machines in the pool (all configurations), for tests.
int IdleTargetMachinesForTesting();

}  // namespace llvm_ir
}  // namespace tessera

#endif  // TESSERA_BACKENDS_LLVM_IR_TARGET_MACHINE_POOL_H_
