// See background_compiler.h.
#include "backends/cpu/background_compiler.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>

namespace tessera {
namespace cpu {

BackgroundCompiler& BackgroundCompiler::Default() {
  // Never destroyed (owners may cancel during exit); its thread is stopped
  // by the atexit handler the first Submit registers.
  static BackgroundCompiler* compiler = new BackgroundCompiler();
  return *compiler;
}

bool BackgroundCompiler::Submit(const void* owner, absl::AnyInvocable<void() &&> job) {
  bool first = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return false;
    queue_.push_back(Job{owner, std::move(job)});
    if (!thread_.joinable()) {
      thread_ = std::thread([this] { Loop(); });
      first = true;
    }
  }
  changed_.notify_all();
  if (first && this == &Default()) {
    // At exit it runs before the destructors of the static objects created
    // before it, LLVM's among them (made as the library loads); ours that
    // jobs use (target machines, math routine libraries, the runtime
    // symbol registry) are never destroyed.
    std::atexit([] { Default().Stop(); });
  }
  return true;
}

namespace {

// Stops the compiler as the main thread exits, before static destruction.
struct MainThreadExitGuard {
  ~MainThreadExitGuard() { BackgroundCompiler::Default().Stop(); }
};

}  // namespace

void BackgroundCompiler::StopWhenMainThreadExits() {
  if (static_cast<pid_t>(syscall(SYS_gettid)) != getpid()) return;
  static thread_local MainThreadExitGuard guard;
  (void)guard;
}

void BackgroundCompiler::Cancel(const void* owner) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (auto it = queue_.begin(); it != queue_.end();) {
    it = it->owner == owner ? queue_.erase(it) : it + 1;
  }
  changed_.wait(lock, [&] { return !running_ || running_owner_ != owner; });
}

void BackgroundCompiler::Stop() {
  std::thread thread;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    queue_.clear();
    thread = std::move(thread_);
  }
  changed_.notify_all();
  if (thread.joinable()) thread.join();
}

void BackgroundCompiler::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping
    Job job = std::move(queue_.front());
    queue_.pop_front();
    running_ = true;
    running_owner_ = job.owner;
    lock.unlock();
    std::move(job.run)();
    job.run = nullptr;  // what the job holds goes before its owner may
    lock.lock();
    running_ = false;
    running_owner_ = nullptr;
    changed_.notify_all();
  }
}

}  // namespace cpu
}  // namespace tessera
