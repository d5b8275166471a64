#include "service/buffer_store.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "service/executable_cache.h"

namespace tessera {
namespace service {

BufferStore::BufferStore(int64_t max_bytes)
    : max_bytes_(max_bytes), random_(std::random_device()()) {}

absl::StatusOr<uint64_t> BufferStore::Add(std::shared_ptr<DeviceBuffer> buffer) {
  std::lock_guard<std::mutex> lock(mutex_);
  const int64_t size = buffer->size_bytes();
  if (bytes_ + size > max_bytes_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "keeping ", size, " more bytes on the server would exceed its buffer budget of ",
        max_bytes_, " bytes (", bytes_, " in use)"));
  }
  uint64_t handle = NewHandle(random_);
  while (buffers_.contains(handle)) handle = NewHandle(random_);
  bytes_ += size;
  buffers_[handle] = std::move(buffer);
  return handle;
}

absl::StatusOr<std::shared_ptr<DeviceBuffer>> BufferStore::Get(uint64_t handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = buffers_.find(handle);
  if (found == buffers_.end()) {
    return absl::NotFoundError(absl::StrCat("no buffer with handle ", handle));
  }
  return found->second;
}

absl::StatusOr<std::shared_ptr<DeviceBuffer>> BufferStore::Take(uint64_t handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = buffers_.find(handle);
  if (found == buffers_.end()) {
    return absl::NotFoundError(absl::StrCat("no buffer with handle ", handle));
  }
  if (found->second.use_count() > 1) {
    return absl::FailedPreconditionError(absl::StrCat(
        "buffer ", handle, " is in use by another request and cannot be donated"));
  }
  std::shared_ptr<DeviceBuffer> buffer = std::move(found->second);
  bytes_ -= buffer->size_bytes();
  buffers_.erase(found);
  return buffer;
}

bool BufferStore::Remove(uint64_t handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = buffers_.find(handle);
  if (found == buffers_.end()) return false;
  bytes_ -= found->second->size_bytes();
  buffers_.erase(found);
  return true;
}

int64_t BufferStore::count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int64_t>(buffers_.size());
}

int64_t BufferStore::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

}  // namespace service
}  // namespace tessera
