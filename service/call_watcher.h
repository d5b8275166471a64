// CallWatcher: one thread that watches the calls whose runs are in flight
// and sets a call's cancel flag when the call is cancelled or its deadline
// passes (the runtime then stops the run between steps).  One thread for
// all calls, rather than one per call.
#ifndef TESSERA_SERVICE_CALL_WATCHER_H_
#define TESSERA_SERVICE_CALL_WATCHER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <list>
#include <mutex>
#include <thread>

#include "grpcpp/server_context.h"

namespace tessera {
namespace service {

class CallWatcher {
 public:
  struct Watched {
    grpc::ServerContext* context;
    std::atomic<bool> cancelled{false};
  };
  using Handle = std::list<Watched>::iterator;

  CallWatcher() : thread_([this] { Loop(); }) {}
  ~CallWatcher() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  CallWatcher(const CallWatcher&) = delete;
  CallWatcher& operator=(const CallWatcher&) = delete;

  // Watches `context` until Unwatch; the flag is the entry's `cancelled`.
  Handle Watch(grpc::ServerContext* context) {
    std::lock_guard<std::mutex> lock(mutex_);
    calls_.emplace_back();
    calls_.back().context = context;
    wake_.notify_one();
    return std::prev(calls_.end());
  }
  void Unwatch(Handle handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    calls_.erase(handle);
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
      if (calls_.empty()) {
        wake_.wait(lock, [this] { return stopping_ || !calls_.empty(); });
        continue;
      }
      const auto now = std::chrono::system_clock::now();
      for (Watched& call : calls_) {
        if (call.context->IsCancelled() || now > call.context->deadline()) {
          call.cancelled = true;
        }
      }
      wake_.wait_for(lock, std::chrono::milliseconds(2));
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::list<Watched> calls_;  // guarded by mutex_; entries never move
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the rest is built
};

}  // namespace service
}  // namespace tessera

#endif  // TESSERA_SERVICE_CALL_WATCHER_H_
