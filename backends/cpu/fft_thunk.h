// Fast Fourier transforms on raw buffers, for the CPU backend's `fft`
// thunks, one axis at a time.  An axis of many lines runs through LaneFft
// (lane_fft.h), a vector register's worth of lines per pass (lengths with
// a prime factor above 31 by Bluestein's transform); one of too few lines
// to fill its lanes, or of lines too long for its lane buffers to stay in
// the caches, a line at a time through LineFft (line_fft.h: four steps, or
// Bluestein's transform over them).  Eigen's tensor FFT runs only axes
// beyond both (more than 2^26 points, or a non-power-of-two beyond about
// 2^22 without a four-step split).  Eigen's transform was far less
// accurate: 64 lines of 1009 points (c64) were 5.4e-3 off the evaluator
// where LaneFft's are 8.6e-5, two real lines of 2^20 points 6.8e-4 of the
// largest magnitude off numpy's float64 FFT where LineFft's is 2.1e-7.
//
//   TS_ASSIGN_OR_RETURN(FftPlan plan, PlanFft(*fft));              // compile time
//   TS_RETURN_IF_ERROR(RunFft(plan, operand, result, pool));
//
// The semantics are the evaluator's (hlo/evaluator/evaluator_fft.cc): FFT,
// IFFT (with its 1/N), RFFT (the first N/2 + 1 frequencies of the last
// axis) and IRFFT (the negative frequencies of the last axis rebuilt by
// Hermitian symmetry after the inverse along the other axes) over the last
// 1 to 3 dimensions, the rest a batch split over the thread pool.  The
// evaluator computes in double; here C64/F32 transforms compute in float
// (as XLA's do), so results match it to a relative tolerance, not bit for
// bit.
#ifndef TESSERA_BACKENDS_CPU_FFT_THUNK_H_
#define TESSERA_BACKENDS_CPU_FFT_THUNK_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/ir/hlo_attributes.h"
#include "hlo/ir/primitive_type.h"

namespace tessera {

class HloInstruction;

namespace runtime {
class ThreadPool;
}  // namespace runtime

namespace cpu {

struct AxisPlans;  // fft_thunk.cc

struct FftPlan {
  FftType type = FftType::kFft;
  bool is_f64 = false;           // C128 (F64) rather than C64 (F32)
  int64_t batch = 0;             // transforms (the product of the leading dimensions)
  std::vector<int64_t> lengths;  // fft_length: 1 to 3 transformed dimensions
  // How each transformed axis runs (twiddles computed once, at PlanFft);
  // null where Eigen's FFT runs the transform.
  std::shared_ptr<const AxisPlans> axes;
};

// The plan of an HLO `fft` whose operand and result are row-major, with
// the transformed dimensions of the operand and result as XLA's shape
// inference gives them (no zero padding or truncation).  Unimplemented
// otherwise (the evaluator then runs it).
absl::StatusOr<FftPlan> PlanFft(const HloInstruction& fft);

// result = the plan's transform of operand.  Buffers must not overlap.
// `pool` may be null.
absl::Status RunFft(const FftPlan& plan, const void* operand, void* result,
                    runtime::ThreadPool* pool);

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_FFT_THUNK_H_
