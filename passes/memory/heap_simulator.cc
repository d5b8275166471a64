#include "passes/memory/heap_simulator.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

namespace tessera {
namespace {

int64_t AlignUp(int64_t value, int64_t alignment) {
  if (alignment <= 1) return value;
  return (value + alignment - 1) / alignment * alignment;
}

bool TimeOverlap(const HeapBlock& a, const HeapBlock& b) {
  return a.start <= b.end && b.start <= a.end;
}

struct Chunk {
  int64_t offset;
  int64_t end;  // exclusive
};

// The offset for a block of `size` among `chunks` (the placed blocks that
// overlap it in time): the best or first fitting gap, or the top.
int64_t FindOffset(std::vector<Chunk>& chunks, int64_t size, bool best_fit) {
  std::sort(chunks.begin(), chunks.end(),
            [](const Chunk& a, const Chunk& b) { return a.offset < b.offset; });
  int64_t cursor = 0;
  int64_t best = -1;
  int64_t best_gap = std::numeric_limits<int64_t>::max();
  for (const Chunk& chunk : chunks) {
    if (chunk.offset > cursor) {
      const int64_t gap = chunk.offset - cursor;
      if (gap >= size) {
        if (!best_fit) return cursor;
        if (gap < best_gap) {
          best_gap = gap;
          best = cursor;
        }
      }
    }
    cursor = std::max(cursor, chunk.end);
  }
  return best >= 0 ? best : cursor;
}

}  // namespace

absl::string_view HeapAlgorithmName(HeapAlgorithm algorithm) {
  return algorithm == HeapAlgorithm::kBestFit ? "best-fit" : "first-fit";
}

HeapResult RunHeapSimulator(absl::Span<const HeapBlock> blocks, HeapAlgorithm algorithm,
                            int64_t alignment) {
  HeapResult result;
  result.algorithm = algorithm;
  result.offsets.assign(blocks.size(), 0);
  std::vector<size_t> order(blocks.size());
  std::iota(order.begin(), order.end(), 0);
  if (algorithm == HeapAlgorithm::kBestFit) {
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const HeapBlock &x = blocks[a], &y = blocks[b];
      if (x.size != y.size) return x.size > y.size;
      return x.end - x.start > y.end - y.start;
    });
  } else {
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return blocks[a].start < blocks[b].start; });
  }
  std::vector<size_t> placed;
  std::vector<Chunk> chunks;
  for (size_t i : order) {
    const int64_t size = AlignUp(blocks[i].size, alignment);
    if (size == 0) continue;
    chunks.clear();
    for (size_t j : placed) {
      if (TimeOverlap(blocks[i], blocks[j])) {
        chunks.push_back({result.offsets[j], result.offsets[j] + AlignUp(blocks[j].size, alignment)});
      }
    }
    const int64_t offset = FindOffset(chunks, size, algorithm == HeapAlgorithm::kBestFit);
    result.offsets[i] = offset;
    result.heap_size = std::max(result.heap_size, offset + size);
    placed.push_back(i);
  }
  return result;
}

HeapResult RunBestHeapSimulator(absl::Span<const HeapBlock> blocks, int64_t alignment) {
  HeapResult best_fit = RunHeapSimulator(blocks, HeapAlgorithm::kBestFit, alignment);
  HeapResult first_fit = RunHeapSimulator(blocks, HeapAlgorithm::kFirstFit, alignment);
  return first_fit.heap_size < best_fit.heap_size ? first_fit : best_fit;
}

bool HeapResultIsValid(absl::Span<const HeapBlock> blocks, const HeapResult& result) {
  if (result.offsets.size() != blocks.size()) return false;
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i].size == 0) continue;
    if (result.offsets[i] < 0 || result.offsets[i] + blocks[i].size > result.heap_size) {
      return false;
    }
    for (size_t j = i + 1; j < blocks.size(); ++j) {
      if (blocks[j].size == 0 || !TimeOverlap(blocks[i], blocks[j])) continue;
      const bool apart = result.offsets[i] + blocks[i].size <= result.offsets[j] ||
                         result.offsets[j] + blocks[j].size <= result.offsets[i];
      if (!apart) return false;
    }
  }
  return true;
}

int64_t PeakLiveBytes(absl::Span<const HeapBlock> blocks, int64_t alignment) {
  // Sweep: +size at start, -size after end.
  std::map<int64_t, int64_t> delta;
  for (const HeapBlock& block : blocks) {
    const int64_t size = AlignUp(block.size, alignment);
    delta[block.start] += size;
    delta[block.end + 1] -= size;
  }
  int64_t live = 0, peak = 0;
  for (const auto& [time, change] : delta) {
    live += change;
    peak = std::max(peak, live);
  }
  return peak;
}

}  // namespace tessera
