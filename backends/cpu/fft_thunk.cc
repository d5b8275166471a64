#include "backends/cpu/fft_thunk.h"

#include <algorithm>
#include <array>
#include <complex>
#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/lane_fft.h"
#include "backends/cpu/lane_fft_axis.h"
#include "backends/cpu/line_fft.h"
#include "hlo/ir/hlo_instruction.h"
#include "runtime/thread_pool.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tessera {
namespace cpu {

// How one transformed axis runs: kLanes lines per LaneFft pass, or a line
// at a time (LineFft).
template <typename R>
struct AxisFft {
  std::optional<LaneFft<R>> lanes;
  std::unique_ptr<const LineFft<R>> line;
};

struct AxisPlans {
  // One per transformed dimension, of the plan's element type.
  std::vector<AxisFft<float>> f32;
  std::vector<AxisFft<double>> f64;
};

namespace {

// LaneFft's longest lines, for an axis LineFft has no plan for (LineFft
// takes lines from 2^15 points on where it has one): beyond this, a pass's
// lane buffer (64 MB of f32) outgrows the data of few lines by far, and
// Eigen's FFT runs the plan.
constexpr int64_t kMaxLaneFftLength = int64_t{1} << 18;

bool RowMajor(const Shape& shape) {
  return shape.IsArray() &&
         (!shape.has_layout() || shape.layout() == Layout::Descending(shape.rank()));
}

// Transforms of at least this many elements in all run a batch per block
// of the pool (smaller ones cost more to hand out than to compute).
constexpr int64_t kParallelFftElements = 1 << 15;

// The transforms of `count` batch entries: K transformed dimensions, real
// scalar R.  Tensors are [count, lengths...] row-major.
template <int K, typename R>
void Transform(const FftPlan& plan, int64_t count, const void* operand, void* result) {
  using C = std::complex<R>;
  using Dims = Eigen::DSizes<Eigen::Index, K + 1>;
  Dims full;  // [count, fft_length...]
  full[0] = count;
  for (int d = 0; d < K; ++d) full[d + 1] = plan.lengths[d];
  const Eigen::Index last = plan.lengths[K - 1];
  Dims half = full;  // the last axis's first N/2 + 1 frequencies
  half[K] = last / 2 + 1;
  std::array<int, K> axes;
  for (int d = 0; d < K; ++d) axes[d] = d + 1;
  const Dims origin;  // zeros
  switch (plan.type) {
    case FftType::kFft:
    case FftType::kIfft: {
      Eigen::TensorMap<const Eigen::Tensor<C, K + 1, Eigen::RowMajor>> in(
          static_cast<const C*>(operand), full);
      Eigen::TensorMap<Eigen::Tensor<C, K + 1, Eigen::RowMajor>> out(static_cast<C*>(result), full);
      if (plan.type == FftType::kFft) {
        out = in.template fft<Eigen::BothParts, Eigen::FFT_FORWARD>(axes);
      } else {
        out = in.template fft<Eigen::BothParts, Eigen::FFT_REVERSE>(axes);
      }
      return;
    }
    case FftType::kRfft: {
      Eigen::TensorMap<const Eigen::Tensor<R, K + 1, Eigen::RowMajor>> in(
          static_cast<const R*>(operand), full);
      Eigen::TensorMap<Eigen::Tensor<C, K + 1, Eigen::RowMajor>> out(static_cast<C*>(result), half);
      // As complex input: Eigen's real-input path dropped imaginary parts
      // (an RFFT of length 12: the imaginary part of frequency 3 came out 0).
      out = in.template cast<C>().template fft<Eigen::BothParts, Eigen::FFT_FORWARD>(axes).slice(
          origin, half);
      return;
    }
    case FftType::kIrfft: {
      Eigen::TensorMap<const Eigen::Tensor<C, K + 1, Eigen::RowMajor>> in(
          static_cast<const C*>(operand), half);
      // The inverse along the other axes first, on the half spectrum.
      Eigen::Tensor<C, K + 1, Eigen::RowMajor> partial(half);
      if constexpr (K > 1) {
        std::array<int, K - 1> others;
        for (int d = 0; d < K - 1; ++d) others[d] = d + 1;
        partial = in.template fft<Eigen::BothParts, Eigen::FFT_REVERSE>(others);
      } else {
        partial = in;
      }
      // Then the last axis's negative frequencies from Hermitian symmetry:
      // X[j] = conj(X[N - j]) for j > N/2.
      Eigen::Tensor<C, K + 1, Eigen::RowMajor> spectrum(full);
      const Eigen::Index lines = partial.size() / half[K];
      const C* from = partial.data();
      C* to = spectrum.data();
      for (Eigen::Index line = 0; line < lines; ++line) {
        const C* a = from + line * half[K];
        C* b = to + line * last;
        std::copy(a, a + std::min<Eigen::Index>(half[K], last), b);
        for (Eigen::Index j = half[K]; j < last; ++j) b[j] = std::conj(a[last - j]);
      }
      Eigen::TensorMap<Eigen::Tensor<R, K + 1, Eigen::RowMajor>> out(static_cast<R*>(result), full);
      const std::array<int, 1> last_axis = {K};
      out = spectrum.template fft<Eigen::RealPart, Eigen::FFT_REVERSE>(last_axis);
      return;
    }
  }
}

// One axis's lines transformed, by LaneFft or LineFft (LaneTransformAxis's
// and LineFft::TransformAxis's arguments).
template <typename R>
void TransformAlong(const AxisFft<R>& axis, int64_t outer, int64_t inner, LineIn in_kind,
                    const void* in, LineOut out_kind, void* out, bool inverse,
                    runtime::ThreadPool* pool) {
  if (axis.lanes.has_value()) {
    LaneTransformAxis<R>(*axis.lanes, outer, inner, in_kind, in, out_kind, out, inverse, pool);
  } else {
    axis.line->TransformAxis(outer, inner, in_kind, in, out_kind, out, inverse, pool);
  }
}

// The plan's transform one axis at a time: the last axis of an RFFT first (real to half spectrum)
// and of an IRFFT last (half spectrum to real, after the inverse along the other axes, as the
// evaluator does).
template <typename R>
void AxisTransform(const FftPlan& plan, const std::vector<AxisFft<R>>& axes, const void* operand,
                   void* result, runtime::ThreadPool* pool) {
  const int k = static_cast<int>(plan.lengths.size());
  std::vector<int64_t> extents = plan.lengths;  // the axes' extents in the complex tensor
  if (plan.type == FftType::kRfft || plan.type == FftType::kIrfft) {
    extents.back() = plan.lengths.back() / 2 + 1;
  }
  auto outer_of = [&](int d) {
    int64_t outer = plan.batch;
    for (int e = 0; e < d; ++e) outer *= extents[e];
    return outer;
  };
  auto inner_of = [&](int d) {
    int64_t inner = 1;
    for (int e = d + 1; e < k; ++e) inner *= extents[e];
    return inner;
  };
  const bool inverse = plan.type == FftType::kIfft || plan.type == FftType::kIrfft;
  switch (plan.type) {
    case FftType::kFft:
    case FftType::kIfft: {
      const void* from = operand;
      for (int d = k - 1; d >= 0; --d) {
        TransformAlong<R>(axes[d], outer_of(d), inner_of(d), LineIn::kComplex, from,
                          LineOut::kComplex, result, inverse, pool);
        from = result;
      }
      return;
    }
    case FftType::kRfft:
      TransformAlong<R>(axes[k - 1], outer_of(k - 1), 1, LineIn::kReal, operand,
                        LineOut::kHalfSpectrum, result, false, pool);
      for (int d = k - 2; d >= 0; --d) {
        TransformAlong<R>(axes[d], outer_of(d), inner_of(d), LineIn::kComplex, result,
                          LineOut::kComplex, result, false, pool);
      }
      return;
    case FftType::kIrfft: {
      const void* spectrum = operand;
      std::vector<std::complex<R>> partial;  // the operand stays as it is
      if (k > 1) {
        partial.assign(
            static_cast<const std::complex<R>*>(operand),
            static_cast<const std::complex<R>*>(operand) + outer_of(k - 1) * extents.back());
        for (int d = k - 2; d >= 0; --d) {
          TransformAlong<R>(axes[d], outer_of(d), inner_of(d), LineIn::kComplex, partial.data(),
                            LineOut::kComplex, partial.data(), true, pool);
        }
        spectrum = partial.data();
      }
      TransformAlong<R>(axes[k - 1], outer_of(k - 1), 1, LineIn::kHalfSpectrum, spectrum,
                        LineOut::kReal, result, true, pool);
      return;
    }
  }
}

// Whether an axis of `lines` lines of `length` points runs a line at a time
// (LineFft) rather than kLanes lines per LaneFft pass.  LaneFft fills the
// vector lanes with lines, so few lines leave lanes idle, and it sweeps a
// group's whole lane buffer (16 lines of f32: 128 bytes per point) once
// per radix pass, which outgrows the caches on long lines; LineFft spreads
// one line's points over the lanes and the pool.  Measured (c64, ms,
// LaneFft -> LineFft; XLA):
// - two 4096-point lines: 0.22 -> 0.046 (four steps; 0.058);
// - one 1009-point line: 0.127 -> 0.018 (Bluestein's transform over four
//   steps; 0.044);
// - 16 lines of 65536 points: 3.2-3.4 -> 2.0; of 59049: 4.5-5.0 -> 2.7-3.0;
//   of 100003 (a prime: LaneFft's Bluestein transform, of inner length
//   2^18): 93.6 -> 25.4 (27.2);
// - but 32 lines of 32768 points: 1.38 -> 1.96; of 20000: 0.97-1.2 ->
//   1.4-1.5; 32 of 16384: 0.59 -> 0.81-0.85.
template <typename R>
bool LineFftPays(int64_t lines, int64_t length) {
  constexpr int64_t kLanes = LaneFft<R>::kLanes;
  // Up to this, LaneFft's lane buffers stay cached well enough.
  constexpr int64_t kMaxCachedLaneLength = int64_t{1} << 15;
  if (!LineFft<R>::Supports(length)) return false;
  if (length > kMaxCachedLaneLength) return true;
  // Few lines: most lanes would idle (but lines shorter than one four-step
  // tile, kLanes^2 points, cost little either way).
  return lines * 2 < kLanes && length >= kLanes * kLanes;
}

// Adds the plan of an axis of `lines` lines of `length` points to `axes`
// (`real`: the axis is an RFFT's or IRFFT's last);
// false where neither LaneFft nor LineFft should run it.
template <typename R>
bool AddAxis(int64_t lines, int64_t length, bool real, std::vector<AxisFft<R>>* axes) {
  AxisFft<R>& axis = axes->emplace_back();
  if (LineFftPays<R>(lines, length)) {
    axis.line = std::make_unique<const LineFft<R>>(length, real);
  } else if (length <= kMaxLaneFftLength) {
    axis.lanes.emplace(length);
  } else {
    return false;
  }
  return true;
}

// The axes' plans for `plan`, or null where Eigen's FFT should run it: an
// axis beyond LaneFft's reach that LineFft has no plan for either (a
// length beyond 2^26, or beyond about 2^22 without a four-step split).
std::shared_ptr<const AxisPlans> MakeAxisPlans(const FftPlan& plan) {
  const int k = static_cast<int>(plan.lengths.size());
  std::vector<int64_t> extents = plan.lengths;  // the axes' extents in the complex tensor
  const bool real = plan.type == FftType::kRfft || plan.type == FftType::kIrfft;
  if (real) extents.back() = plan.lengths.back() / 2 + 1;
  int64_t elements = plan.batch;
  for (int64_t extent : extents) elements *= extent;
  auto plans = std::make_shared<AxisPlans>();
  for (int d = 0; d < k; ++d) {
    const int64_t lines = elements / extents[d];
    const bool real_axis = real && d == k - 1;
    const bool planned = plan.is_f64
                             ? AddAxis<double>(lines, plan.lengths[d], real_axis, &plans->f64)
                             : AddAxis<float>(lines, plan.lengths[d], real_axis, &plans->f32);
    if (!planned) return nullptr;
  }
  return plans;
}

template <typename R>
void TransformBlock(const FftPlan& plan, int64_t count, const void* operand, void* result) {
  switch (plan.lengths.size()) {
    case 1:
      return Transform<1, R>(plan, count, operand, result);
    case 2:
      return Transform<2, R>(plan, count, operand, result);
    default:
      return Transform<3, R>(plan, count, operand, result);
  }
}

}  // namespace

absl::StatusOr<FftPlan> PlanFft(const HloInstruction& fft) {
  if (fft.operand_count() != 1) return absl::InvalidArgumentError("fft takes one operand");
  const Shape& in = fft.operand(0)->shape();
  const Shape& out = fft.shape();
  if (!RowMajor(in) || !RowMajor(out) || in.rank() != out.rank()) {
    return absl::UnimplementedError("fft of a non-row-major operand or result");
  }
  FftPlan plan;
  plan.type = fft.attrs().fft_type;
  plan.lengths = fft.attrs().fft_length;
  const int64_t k = static_cast<int64_t>(plan.lengths.size());
  if (k < 1 || k > 3 || k > in.rank()) {
    return absl::UnimplementedError(absl::StrCat("fft over ", k, " dimensions"));
  }
  const bool real_in = plan.type == FftType::kRfft, real_out = plan.type == FftType::kIrfft;
  const PrimitiveType in_type = in.element_type(), out_type = out.element_type();
  // By the complex side (an IRFFT's operand, an RFFT's result).
  plan.is_f64 = (real_in ? out_type : in_type) == C128;
  const PrimitiveType real_type = plan.is_f64 ? F64 : F32;
  const PrimitiveType complex_type = plan.is_f64 ? C128 : C64;
  if (in_type != (real_in ? real_type : complex_type) ||
      out_type != (real_out ? real_type : complex_type)) {
    return absl::UnimplementedError(
        absl::StrCat("fft from ", PrimitiveTypeName(in_type), " to ", PrimitiveTypeName(out_type)));
  }
  // Leading dimensions shared; transformed ones as shape inference gives
  // them (the last axis N/2 + 1 on the complex side of RFFT and IRFFT).
  const int64_t batch_rank = in.rank() - k;
  plan.batch = 1;
  for (int64_t d = 0; d < batch_rank; ++d) {
    if (in.dimensions(d) != out.dimensions(d)) {
      return absl::InvalidArgumentError(absl::StrCat("%", fft.name(), ": batch dimensions differ"));
    }
    plan.batch *= in.dimensions(d);
  }
  for (int64_t d = 0; d < k; ++d) {
    const int64_t length = plan.lengths[d];
    const bool is_last = d == k - 1;
    const int64_t half = length / 2 + 1;
    const int64_t want_in = is_last && real_out ? half : length;
    const int64_t want_out = is_last && real_in ? half : length;
    if (length < 1 || in.dimensions(batch_rank + d) != want_in ||
        out.dimensions(batch_rank + d) != want_out) {
      return absl::UnimplementedError(
          absl::StrCat("%", fft.name(), ": fft dimensions padded or truncated"));
    }
  }
  plan.axes = MakeAxisPlans(plan);
  return plan;
}

absl::Status RunFft(const FftPlan& plan, const void* operand, void* result,
                    runtime::ThreadPool* pool) {
  if (plan.batch == 0) return absl::OkStatus();
  if (plan.axes != nullptr) {
    if (plan.is_f64) {
      AxisTransform<double>(plan, plan.axes->f64, operand, result, pool);
    } else {
      AxisTransform<float>(plan, plan.axes->f32, operand, result, pool);
    }
    return absl::OkStatus();
  }
  int64_t transform = 1;  // elements of one transform's full spectrum
  for (int64_t length : plan.lengths) transform *= length;
  const int64_t last = plan.lengths.back();
  const int64_t half_transform = transform / last * (last / 2 + 1);
  const bool real_in = plan.type == FftType::kRfft, real_out = plan.type == FftType::kIrfft;
  const int64_t real_bytes = plan.is_f64 ? 8 : 4;
  // Bytes per batch entry of the operand and the result.
  const int64_t in_stride = real_in    ? transform * real_bytes
                            : real_out ? half_transform * 2 * real_bytes
                                       : transform * 2 * real_bytes;
  const int64_t out_stride = real_out  ? transform * real_bytes
                             : real_in ? half_transform * 2 * real_bytes
                                       : transform * 2 * real_bytes;
  auto block = [&](int64_t begin, int64_t end) {
    const void* in = static_cast<const char*>(operand) + begin * in_stride;
    void* out = static_cast<char*>(result) + begin * out_stride;
    if (plan.is_f64) {
      TransformBlock<double>(plan, end - begin, in, out);
    } else {
      TransformBlock<float>(plan, end - begin, in, out);
    }
  };
  if (pool == nullptr || plan.batch * transform < kParallelFftElements) {
    block(0, plan.batch);
  } else {
    pool->ParallelFor(plan.batch, pool->BlockSizeFor(plan.batch), block);
  }
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace tessera
