// CpuCompilationCache: compiled CPU programs kept in memory, keyed by a
// fingerprint of the optimized module and of every option that changes the
// code generated from it, so that compiling the same program again (a
// service's repeated requests, a test suite, a notebook re-running a cell)
// skips buffer assignment and LLVM altogether.
//
//   std::string key = CpuCompilationFingerprint(optimized_module, options);
//   if (auto hit = cache.Lookup(key)) return hit;
//   ... compile ...
//   cache.Insert(key, executable);
//
// Least-recently-used entries are dropped beyond the capacity.  All methods
// are thread-safe.  (On disk, llvm_ir::JitOptions::cache_dir keeps each
// kernel's object code across processes.)
#ifndef TESSERA_BACKENDS_CPU_COMPILATION_CACHE_H_
#define TESSERA_BACKENDS_CPU_COMPILATION_CACHE_H_

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "backends/cpu/cpu_compiler.h"
#include "hlo/ir/hlo_module.h"

namespace tessera {
namespace cpu {

class CpuExecutable;

// SHA-256 (hex) of the module's canonical text (names, layouts, schedule
// included) and of the code generation options: native kernels/dots,
// polynomial math, float reduction order, the parallel threshold and the
// thread pool's size (partitions are planned for it), the JIT's level, CPU
// and features.  Fusion options are not in it: they already shaped the
// module.
std::string CpuCompilationFingerprint(const HloModule& optimized_module,
                                      const CpuCompileOptions& options);

class CpuCompilationCache {
 public:
  struct Stats {
    int64_t hits = 0;
    int64_t misses = 0;
    int64_t evictions = 0;
    int64_t entries = 0;
  };

  explicit CpuCompilationCache(int64_t capacity) : capacity_(capacity) {}

  // The process-wide cache CompileForCpuExecutable uses by default (64
  // programs).
  static CpuCompilationCache& Default();

  // The program compiled under `key`, or null (counted as a miss).
  std::shared_ptr<const CpuExecutable> Lookup(const std::string& key);
  // Keeps `executable` under `key` (replacing an entry with that key) and
  // evicts the least recently used entries beyond the capacity.
  void Insert(const std::string& key, std::shared_ptr<const CpuExecutable> executable);
  void Clear();
  Stats stats() const;

 private:
  using Entry = std::pair<std::string, std::shared_ptr<const CpuExecutable>>;
  const int64_t capacity_;
  mutable std::mutex mutex_;
  std::list<Entry> entries_;  // most recently used first
  absl::flat_hash_map<std::string, std::list<Entry>::iterator> index_;
  Stats stats_;
};

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_COMPILATION_CACHE_H_
