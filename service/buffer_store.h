// BufferStore: the values clients keep on the server between calls
// (TransferToServer, Execute with keep_results_on_server), each behind an
// unguessable handle, within a total byte budget.  Thread-safe.
#ifndef TESSERA_SERVICE_BUFFER_STORE_H_
#define TESSERA_SERVICE_BUFFER_STORE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <random>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "client/local_client.h"

namespace tessera {
namespace service {

class BufferStore {
 public:
  explicit BufferStore(int64_t max_bytes);

  // A handle for `buffer`; RESOURCE_EXHAUSTED when the budget is spent.
  absl::StatusOr<uint64_t> Add(std::shared_ptr<DeviceBuffer> buffer);
  // The buffer behind `handle` (shared with the store), or NOT_FOUND.
  absl::StatusOr<std::shared_ptr<DeviceBuffer>> Get(uint64_t handle);
  // Removes and returns the buffer for a run to consume; FAILED_PRECONDITION
  // when another request is using it, NOT_FOUND when unknown.
  absl::StatusOr<std::shared_ptr<DeviceBuffer>> Take(uint64_t handle);
  bool Remove(uint64_t handle);

  int64_t count() const;
  int64_t bytes() const;

 private:
  const int64_t max_bytes_;
  mutable std::mutex mutex_;
  absl::flat_hash_map<uint64_t, std::shared_ptr<DeviceBuffer>> buffers_;
  int64_t bytes_ = 0;
  std::mt19937_64 random_;
};

}  // namespace service
}  // namespace tessera

#endif  // TESSERA_SERVICE_BUFFER_STORE_H_
