// fft: FFT, IFFT, RFFT and IRFFT over the last len(fft_length) dimensions,
// as a direct DFT per axis in double precision (rounded once to the result
// type).  X[k] = sum_n x[n] exp(-2 pi i k n / N); the inverse carries the
// 1/N factor.  Inputs shorter than fft_length are zero-padded and longer
// ones truncated, as XLA's evaluator does; IRFFT rebuilds the negative
// frequencies of the last axis from Hermitian symmetry.
#include <cmath>
#include <complex>
#include <numbers>

#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/evaluator/index_iteration.h"

namespace tessera {
namespace evaluator_internal {
namespace {

using Complex = std::complex<double>;

// One 1-D DFT along `axis` of the box `lengths` (row-major `data`),
// restricted to the positions where the last axis is < `last_limit`.
void Dft(std::vector<Complex>* data, absl::Span<const int64_t> lengths, size_t axis,
         bool inverse, int64_t last_limit) {
  const int64_t n = lengths[axis];
  const std::vector<int64_t> strides = RowMajorStrides(lengths);
  std::vector<int64_t> outer(lengths.begin(), lengths.end());
  outer[axis] = 1;
  if (axis + 1 != lengths.size()) outer.back() = std::min(outer.back(), last_limit);
  std::vector<Complex> twiddle(n), line(n);
  for (int64_t j = 0; j < n; ++j) {
    const double angle = (inverse ? 2 : -2) * std::numbers::pi * static_cast<double>(j) /
                         static_cast<double>(n);
    twiddle[j] = std::polar(1.0, angle);
  }
  ForEachIndex(outer, [&](absl::Span<const int64_t> index) {
    int64_t base = 0;
    for (size_t d = 0; d < index.size(); ++d) base += index[d] * strides[d];
    for (int64_t k = 0; k < n; ++k) {
      Complex sum = 0;
      for (int64_t m = 0; m < n; ++m) sum += (*data)[base + m * strides[axis]] * twiddle[(k * m) % n];
      line[k] = inverse ? sum / static_cast<double>(n) : sum;
    }
    for (int64_t k = 0; k < n; ++k) (*data)[base + k * strides[axis]] = line[k];
  }).IgnoreError();
}

}  // namespace

absl::StatusOr<Literal> EvaluateFft(const HloInstruction& hlo, Operands operands) {
  TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 1));
  TS_RETURN_IF_ERROR(ExpectArrayShape(hlo));
  const Literal& in = *operands[0];
  TS_RETURN_IF_ERROR(ExpectArray(in, "the operand"));
  const FftType type = hlo.attrs().fft_type;
  const std::vector<int64_t>& lengths = hlo.attrs().fft_length;
  const std::vector<int64_t>& in_dims = in.shape().dimensions();
  const std::vector<int64_t>& out_dims = hlo.shape().dimensions();
  const size_t k = lengths.size();
  const PrimitiveType in_type = in.shape().element_type();
  const PrimitiveType out_type = hlo.shape().element_type();
  const bool real_in = type == FftType::kRfft, real_out = type == FftType::kIrfft;
  bool ok = k >= 1 && k <= in_dims.size() && in_dims.size() == out_dims.size() &&
            (real_in ? IsFloatingPointType(in_type) : IsComplexType(in_type)) &&
            (real_out ? IsFloatingPointType(out_type) : IsComplexType(out_type));
  for (size_t d = 0; ok && d < in_dims.size() - k; ++d) ok = in_dims[d] == out_dims[d];
  for (int64_t length : lengths) ok = ok && length >= 1;
  if (!ok) return InvalidArgument("fft types, lengths or shapes do not fit");
  const size_t batch_rank = in_dims.size() - k;
  const int64_t last = lengths.back();
  const int64_t half = last / 2 + 1;
  // Transform dimensions of the input and output.
  const std::vector<int64_t> in_t(in_dims.begin() + batch_rank, in_dims.end());
  const std::vector<int64_t> out_t(out_dims.begin() + batch_rank, out_dims.end());
  const std::vector<int64_t> batch(in_dims.begin(), in_dims.begin() + batch_rank);
  const int64_t in_block = IndexCount(in_t), out_block = IndexCount(out_t);
  const int64_t work_size = IndexCount(lengths);
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  const std::vector<int64_t> in_strides = RowMajorStrides(in_t);
  const std::vector<int64_t> out_strides = RowMajorStrides(out_t);
  std::vector<Complex> work(work_size);
  int64_t b = 0;
  ForEachIndex(batch, [&](absl::Span<const int64_t>) {
    std::fill(work.begin(), work.end(), Complex(0));
    // Input: only the first half of the last axis for IRFFT.
    const int64_t input_last_limit = real_out ? half : last;
    int64_t w = 0;
    ForEachIndex(lengths, [&](absl::Span<const int64_t> index) {
      bool inside = index.back() < input_last_limit;
      int64_t from = 0;
      for (size_t d = 0; d < k && inside; ++d) {
        inside = index[d] < in_t[d];
        from += index[d] * in_strides[d];
      }
      if (inside) work[w] = in.GetAsComplex(b * in_block + from);
      ++w;
    }).IgnoreError();
    const bool inverse = type == FftType::kIfft || type == FftType::kIrfft;
    if (real_out) {
      for (size_t axis = 0; axis + 1 < k; ++axis) Dft(&work, lengths, axis, true, half);
      const int64_t rows = work_size / last;
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t j = half; j < last; ++j) {
          work[r * last + j] = std::conj(work[r * last + (last - j)]);
        }
      }
      Dft(&work, lengths, k - 1, true, last);
    } else {
      for (size_t axis = 0; axis < k; ++axis) Dft(&work, lengths, axis, inverse, last);
    }
    int64_t o = 0;
    ForEachIndex(out_t, [&](absl::Span<const int64_t> index) {
      bool inside = index.back() < (real_in ? half : last);
      int64_t from = 0;
      const std::vector<int64_t> work_strides = RowMajorStrides(lengths);
      for (size_t d = 0; d < k && inside; ++d) {
        inside = index[d] < lengths[d];
        from += index[d] * work_strides[d];
      }
      const Complex value = inside ? work[from] : Complex(0);
      if (real_out) {
        out.SetFromDouble(b * out_block + o, value.real());
      } else {
        out.SetFromComplex(b * out_block + o, value);
      }
      ++o;
    }).IgnoreError();
    ++b;
  }).IgnoreError();
  return out;
}

}  // namespace evaluator_internal
}  // namespace tessera
