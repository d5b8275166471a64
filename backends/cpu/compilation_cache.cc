#include "backends/cpu/compilation_cache.h"

#include "absl/strings/str_cat.h"
#include "backends/llvm_ir/llvm_jit.h"
#include "hlo/parser/hlo_printer.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {

std::string CpuCompilationFingerprint(const HloModule& optimized_module,
                                      const CpuCompileOptions& options) {
  // Bump when code generation changes in a way the options do not show
  // (an in-memory cache never outlives the binary, so this only guards
  // against stale entries within one process's tests).
  constexpr char kFormat[] = "tessera-cpu-1";
  const std::string options_text = absl::StrCat(
      kFormat, " native_kernels=", options.native_kernels, " native_dots=", options.native_dots,
      " polynomial_math=", options.polynomial_math,
      " reorder_float_reductions=", options.reorder_float_reductions,
      " parallel_min_elements=", options.parallel_min_elements,
      " streaming_store_bytes=", options.streaming_store_bytes.value_or(-1),
      " threads=", runtime::ThreadPool::Default().parallelism(),
      " opt_level=", options.jit.opt_level, " unroll=", options.jit.loop_unrolling,
      " kernel_pipeline=", options.jit.kernel_pipeline, " cpu=", options.jit.cpu,
      " features=", options.jit.features, " kernel_tier=", static_cast<int>(options.kernel_tier),
      " tier_up=", static_cast<int>(options.tier_up),
      " compile_tile_loops=", options.compile_tile_loops,
      " final_tile_code=", options.final_tile_code, ":", options.final_tile_code_min_elements);
  return llvm_ir::Sha256Hex(
      absl::StrCat(options_text, "\n", PrintHloModule(optimized_module)));
}

CpuCompilationCache& CpuCompilationCache::Default() {
  static auto* cache = new CpuCompilationCache(64);
  return *cache;
}

std::shared_ptr<const CpuExecutable> CpuCompilationCache::Lookup(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = index_.find(key);
  if (it == index_.end()) {
    ++stats_.misses;
    return nullptr;
  }
  ++stats_.hits;
  entries_.splice(entries_.begin(), entries_, it->second);
  return it->second->second;
}

void CpuCompilationCache::Insert(const std::string& key,
                                 std::shared_ptr<const CpuExecutable> executable) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = index_.find(key); it != index_.end()) {
    entries_.erase(it->second);
    index_.erase(it);
  }
  entries_.emplace_front(key, std::move(executable));
  index_[key] = entries_.begin();
  while (static_cast<int64_t>(entries_.size()) > capacity_) {
    index_.erase(entries_.back().first);
    entries_.pop_back();
    ++stats_.evictions;
  }
}

void CpuCompilationCache::Clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.clear();
  index_.clear();
}

CpuCompilationCache::Stats CpuCompilationCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Stats stats = stats_;
  stats.entries = static_cast<int64_t>(entries_.size());
  return stats;
}

}  // namespace cpu
}  // namespace tessera
