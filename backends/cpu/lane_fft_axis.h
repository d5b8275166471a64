// One axis of an FFT through LaneFft (lane_fft.h): kLanes lines per pass,
// moved into and out of its lane buffers (f32 lines in 16 x 16 tile
// transposes).  The fft thunk's choice for axes of many lines that are not
// too long (fft_thunk.cc); LineFft (line_fft.h) runs the others.
#ifndef TESSERA_BACKENDS_CPU_LANE_FFT_AXIS_H_
#define TESSERA_BACKENDS_CPU_LANE_FFT_AXIS_H_

#include <cstdint>

#include "backends/cpu/lane_fft.h"
#include "backends/cpu/line_fft.h"

namespace tessera {
namespace runtime {
class ThreadPool;
}  // namespace runtime

namespace cpu {

// Transforms every line along the middle axis of a row-major tensor
// [outer, n, inner] (element k of line (o, c) at (o * n + k) * inner + c,
// n being the axis's extent on that side: n/2 + 1 for a half spectrum),
// n = fft.size(), as LineFft::TransformAxis does.  The inverse is scaled by
// 1/n.  `in` may be `out` (each pass reads its lines whole before writing
// them back); `pool` may be null.
template <typename R>
void LaneTransformAxis(const LaneFft<R>& fft, int64_t outer, int64_t inner, LineIn in_kind,
                       const void* in, LineOut out_kind, void* out, bool inverse,
                       runtime::ThreadPool* pool);

extern template void LaneTransformAxis<float>(const LaneFft<float>&, int64_t, int64_t, LineIn,
                                              const void*, LineOut, void*, bool,
                                              runtime::ThreadPool*);
extern template void LaneTransformAxis<double>(const LaneFft<double>&, int64_t, int64_t, LineIn,
                                               const void*, LineOut, void*, bool,
                                               runtime::ThreadPool*);

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_LANE_FFT_AXIS_H_
