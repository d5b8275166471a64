// The heap simulator: places blocks of memory, each live over a closed
// interval of time, at offsets in one heap so that blocks live at the same
// time never overlap, and reports the heap's size.
//
// - kBestFit: XLA's global decreasing-size best fit: the biggest blocks
//   first (then the longest lived), each in the smallest gap left between
//   the blocks already placed that it overlaps in time, or on top of them.
// - kFirstFit: blocks in order of their start time, each at the lowest
//   offset where it fits.
// RunBestHeapSimulator runs both and keeps the smaller heap (best fit on
// ties).  Sizes are rounded up to `alignment`, so every offset is aligned.
#ifndef TESSERA_PASSES_MEMORY_HEAP_SIMULATOR_H_
#define TESSERA_PASSES_MEMORY_HEAP_SIMULATOR_H_

#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace tessera {

struct HeapBlock {
  int64_t size = 0;
  int64_t start = 0;  // live on [start, end]
  int64_t end = 0;
};

enum class HeapAlgorithm { kBestFit, kFirstFit };
absl::string_view HeapAlgorithmName(HeapAlgorithm algorithm);  // "best-fit", "first-fit"

struct HeapResult {
  HeapAlgorithm algorithm = HeapAlgorithm::kBestFit;
  std::vector<int64_t> offsets;  // one per block
  int64_t heap_size = 0;
};

HeapResult RunHeapSimulator(absl::Span<const HeapBlock> blocks, HeapAlgorithm algorithm,
                            int64_t alignment = 1);
HeapResult RunBestHeapSimulator(absl::Span<const HeapBlock> blocks, int64_t alignment = 1);

// True when no two blocks live at the same time overlap in memory and all
// fit in the heap.
bool HeapResultIsValid(absl::Span<const HeapBlock> blocks, const HeapResult& result);

// The most bytes live at any one time: a lower bound for any heap.
int64_t PeakLiveBytes(absl::Span<const HeapBlock> blocks, int64_t alignment = 1);

}  // namespace tessera

#endif  // TESSERA_PASSES_MEMORY_HEAP_SIMULATOR_H_
