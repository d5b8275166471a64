// Scratch memory of the calling thread for the CPU backend's host-code
// thunks: one buffer per element type and slot, grown as needed and kept
// for the next call (a loop's step, the next run), so no call allocates
// once warm.
//
// A slot is one buffer for all code using it, so paths that are live at
// the same time take different slots:
//   0, 1, 3  conv_thunk.cc's im2col (packed kernel, gathered rows, product)
//   2        conv_thunk.cc's widened narrow-float operands
//   4, 5     conv_thunk.cc's phases (gathered kernel, dense output)
//   6, 7, 8  window_conv.cc (padded input, packed kernel, sums)
//   9        cpu_executable.cc's staged GEMM product (DotThunk)
#ifndef TESSERA_BACKENDS_CPU_THREAD_SCRATCH_H_
#define TESSERA_BACKENDS_CPU_THREAD_SCRATCH_H_

#include <cstdint>
#include <vector>

namespace tessera {
namespace cpu {

template <typename T, int kSlot = 0>
T* ThreadScratch(int64_t elements) {
  thread_local std::vector<T> buffer;
  if (static_cast<int64_t>(buffer.size()) < elements) {
    buffer.clear();
    buffer.shrink_to_fit();
    buffer.resize(elements);
  }
  return buffer.data();
}

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_THREAD_SCRATCH_H_
