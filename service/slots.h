// Slots: at most `capacity` holders at once; a request waits for one until
// its call is cancelled or its deadline passes.  Thread-safe.
#ifndef TESSERA_SERVICE_SLOTS_H_
#define TESSERA_SERVICE_SLOTS_H_

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/server_context.h"

namespace tessera {
namespace service {

class Slots {
 public:
  explicit Slots(int capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

  // CANCELLED or DEADLINE_EXCEEDED (naming `what` it waited for) instead
  // of a slot when the call ends first.
  absl::Status Acquire(grpc::ServerContext* context, const std::string& what) {
    std::unique_lock<std::mutex> lock(mutex_);
    while (in_use_ >= capacity_) {
      if (context->IsCancelled()) return absl::CancelledError("the call was cancelled");
      if (std::chrono::system_clock::now() > context->deadline()) {
        return absl::DeadlineExceededError(
            absl::StrCat("the deadline passed while waiting to ", what));
      }
      freed_.wait_for(lock, std::chrono::milliseconds(5));
    }
    ++in_use_;
    return absl::OkStatus();
  }

  void Release() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --in_use_;
    }
    freed_.notify_one();
  }

  int in_use() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return in_use_;
  }

 private:
  const int capacity_;
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  int in_use_ = 0;
};

}  // namespace service
}  // namespace tessera

#endif  // TESSERA_SERVICE_SLOTS_H_
