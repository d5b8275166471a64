// ExecutableCache: the service's compiled executables, one per distinct
// module and compile options (keyed by a fingerprint of both), each behind
// an unguessable handle, evicted least recently used first when there are
// more than `max_entries` or they hold more than `max_bytes`.
//
// Entries are shared: an execution in flight keeps its executable alive
// even if the cache evicts or unloads it meanwhile.  Thread-safe.
#ifndef TESSERA_SERVICE_EXECUTABLE_CACHE_H_
#define TESSERA_SERVICE_EXECUTABLE_CACHE_H_

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <random>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "client/local_client.h"
#include "service/tessera_service.pb.h"

namespace tessera {
namespace service {

struct CachedExecutable {
  uint64_t handle = 0;
  std::string key;
  std::shared_ptr<const LoadedExecutable> executable;
  // What the executable holds (constants, its arena): what eviction weighs.
  int64_t bytes = 0;
  xla::ProgramShapeProto program_shape;
  CompileStats stats;
};

class ExecutableCache {
 public:
  ExecutableCache(int64_t max_entries, int64_t max_bytes);

  // The entry for `key` (a compile request seen before), or null.
  std::shared_ptr<const CachedExecutable> Lookup(const std::string& key);
  // The entry behind `handle`, or null.
  std::shared_ptr<const CachedExecutable> Get(uint64_t handle);
  // Adds an entry (given a fresh handle) and evicts what no longer fits;
  // when another request inserted `key` first, returns that entry instead.
  std::shared_ptr<const CachedExecutable> Insert(CachedExecutable entry);
  // Drops `handle`; false if unknown.
  bool Remove(uint64_t handle);

  struct Stats {
    int64_t entries = 0;
    int64_t bytes = 0;
    int64_t evictions = 0;
  };
  Stats stats() const;

 private:
  using Lru = std::list<std::shared_ptr<const CachedExecutable>>;
  void Touch(Lru::iterator it);  // requires mutex_
  void Erase(Lru::iterator it);  // requires mutex_

  const int64_t max_entries_;
  const int64_t max_bytes_;
  mutable std::mutex mutex_;
  Lru lru_;  // most recently used first
  absl::flat_hash_map<std::string, Lru::iterator> by_key_;
  absl::flat_hash_map<uint64_t, Lru::iterator> by_handle_;
  int64_t bytes_ = 0;
  int64_t evictions_ = 0;
  std::mt19937_64 random_;
};

// A fresh random handle from `random` that is never 0.
uint64_t NewHandle(std::mt19937_64& random);

}  // namespace service
}  // namespace tessera

#endif  // TESSERA_SERVICE_EXECUTABLE_CACHE_H_
