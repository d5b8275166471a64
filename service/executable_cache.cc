#include "service/executable_cache.h"

#include <utility>

namespace tessera {
namespace service {

uint64_t NewHandle(std::mt19937_64& random) {
  uint64_t handle = 0;
  while (handle == 0) handle = random();
  return handle;
}

ExecutableCache::ExecutableCache(int64_t max_entries, int64_t max_bytes)
    : max_entries_(max_entries), max_bytes_(max_bytes), random_(std::random_device()()) {}

void ExecutableCache::Touch(Lru::iterator it) { lru_.splice(lru_.begin(), lru_, it); }

void ExecutableCache::Erase(Lru::iterator it) {
  bytes_ -= (*it)->bytes;
  by_key_.erase((*it)->key);
  by_handle_.erase((*it)->handle);
  lru_.erase(it);
}

std::shared_ptr<const CachedExecutable> ExecutableCache::Lookup(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = by_key_.find(key);
  if (found == by_key_.end()) return nullptr;
  Touch(found->second);
  return *found->second;
}

std::shared_ptr<const CachedExecutable> ExecutableCache::Get(uint64_t handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = by_handle_.find(handle);
  if (found == by_handle_.end()) return nullptr;
  Touch(found->second);
  return *found->second;
}

std::shared_ptr<const CachedExecutable> ExecutableCache::Insert(CachedExecutable entry) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = by_key_.find(entry.key);
  if (found != by_key_.end()) {
    Touch(found->second);
    return *found->second;
  }
  do {
    entry.handle = NewHandle(random_);
  } while (by_handle_.contains(entry.handle));
  auto shared = std::make_shared<const CachedExecutable>(std::move(entry));
  lru_.push_front(shared);
  by_key_[shared->key] = lru_.begin();
  by_handle_[shared->handle] = lru_.begin();
  bytes_ += shared->bytes;
  // Evict the least recently used, never the entry just added.
  while (lru_.size() > 1 &&
         (static_cast<int64_t>(lru_.size()) > max_entries_ || bytes_ > max_bytes_)) {
    Erase(std::prev(lru_.end()));
    ++evictions_;
  }
  return shared;
}

bool ExecutableCache::Remove(uint64_t handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = by_handle_.find(handle);
  if (found == by_handle_.end()) return false;
  Erase(found->second);
  return true;
}

ExecutableCache::Stats ExecutableCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {static_cast<int64_t>(lru_.size()), bytes_, evictions_};
}

}  // namespace service
}  // namespace tessera
