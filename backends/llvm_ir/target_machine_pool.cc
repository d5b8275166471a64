#include "backends/llvm_ir/target_machine_pool.h"

#include <mutex>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace tessera {
namespace llvm_ir {
namespace {

// More idle machines than compile threads would only hold memory.
constexpr size_t kMaxIdlePerKey = 8;

struct Pool {
  std::mutex mutex;
  absl::flat_hash_map<std::string, std::vector<std::unique_ptr<llvm::TargetMachine>>> idle;
};

// Never destroyed: leases may end during static destruction.
Pool& ThePool() {
  static Pool* pool = new Pool;
  return *pool;
}

std::string KeyOf(const TargetConfig& config) {
  return absl::StrCat(config.triple, "\n", config.cpu, "\n", config.features, "\nO",
                      static_cast<int>(config.level));
}

}  // namespace

TargetMachineLease::TargetMachineLease(TargetMachineLease&& other) noexcept = default;

TargetMachineLease& TargetMachineLease::operator=(TargetMachineLease&& other) noexcept {
  if (this != &other) {
    GiveBack();
    key_ = std::move(other.key_);
    machine_ = std::move(other.machine_);
  }
  return *this;
}

TargetMachineLease::~TargetMachineLease() { GiveBack(); }

void TargetMachineLease::GiveBack() {
  if (machine_ == nullptr) return;
  Pool& pool = ThePool();
  std::lock_guard<std::mutex> lock(pool.mutex);
  std::vector<std::unique_ptr<llvm::TargetMachine>>& idle = pool.idle[key_];
  if (idle.size() < kMaxIdlePerKey) idle.push_back(std::move(machine_));
  machine_.reset();
}

absl::StatusOr<TargetMachineLease> BorrowTargetMachine(const TargetConfig& config) {
  std::string key = KeyOf(config);
  {
    Pool& pool = ThePool();
    std::lock_guard<std::mutex> lock(pool.mutex);
    auto it = pool.idle.find(key);
    if (it != pool.idle.end() && !it->second.empty()) {
      std::unique_ptr<llvm::TargetMachine> machine = std::move(it->second.back());
      it->second.pop_back();
      return TargetMachineLease(std::move(key), std::move(machine));
    }
  }
  // Created outside the lock: creation is the slow part.
  llvm::orc::JITTargetMachineBuilder builder{llvm::Triple(config.triple)};
  builder.setCPU(config.cpu);
  builder.getFeatures() = llvm::SubtargetFeatures(config.features);
  builder.setCodeGenOptLevel(config.level);
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> created = builder.createTargetMachine();
  if (!created) {
    std::string message;
    llvm::raw_string_ostream stream(message);
    stream << created.takeError();
    return absl::InternalError(
        absl::StrCat("cannot create a target machine for ", config.cpu, ": ", stream.str()));
  }
  return TargetMachineLease(std::move(key), std::move(*created));
}

int IdleTargetMachinesForTesting() {
  Pool& pool = ThePool();
  std::lock_guard<std::mutex> lock(pool.mutex);
  int count = 0;
  for (const auto& [key, machines] : pool.idle) count += static_cast<int>(machines.size());
  return count;
}

}  // namespace llvm_ir
}  // namespace tessera
